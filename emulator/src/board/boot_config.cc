// Boot configurations: where a boot ROM or secure enclave puts the image and starts the
// core, when that is not the board's default. Alif's SE-tools write an application to
// MRAM at the `mramAddress` of its JSON entry and boot the core named by `cpu_id` from
// there (Alif "Ensemble Secure Enclave Tools" user guide, app-cfg JSON: {"USER_APP":
// {"binary": ..., "mramAddress": "0x80000000", "cpu_id": "M55_HP", ...}}).
#include <fmt/core.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "faultline/board.h"
#include "faultline/error.h"

namespace faultline {

BootConfig ReadBootConfig(const std::string& path) {
  RequireRegularFile(path, path, "boot config (SE-tools JSON)");
  std::ifstream in(path);
  if (!in) throw InputError(path, "cannot open boot config", "pass the SE-tools JSON, e.g. .alif/M55_HP_cfg.json");
  return ParseBootConfig(std::string(std::istreambuf_iterator<char>(in), {}), path);
}

BootConfig ParseBootConfig(const std::string& json, const std::string& path) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path, std::string("not valid JSON: ") + e.what(), "fix the JSON syntax");
  }
  BootConfig c;
  c.path = path;
  for (auto it = j.begin(); j.is_object() && it != j.end(); ++it) {
    if (!it->is_object() || !it->contains("mramAddress")) continue;
    const auto& v = (*it)["mramAddress"];
    try {
      c.image_address = v.is_string() ? std::stoull(v.get<std::string>(), nullptr, 0) : v.get<uint64_t>();
    } catch (const std::exception&) {
      throw InputError(path, fmt::format("{}.mramAddress is not an address", it.key()), "write e.g. \"0x80000000\"");
    }
    c.entry = it.key();
    if (it->contains("cpu_id") && (*it)["cpu_id"].is_string()) c.cpu_id = (*it)["cpu_id"];
    return c;
  }
  throw InputError(path, "no entry with an mramAddress", "the SE-tools config names the image's MRAM address");
}

}  // namespace faultline
