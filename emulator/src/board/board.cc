// boards/*.yaml -> Board. Strict: every key is known, every value checked, and every
// error names file:line and what to write instead.
#include "faultline/board.h"

#include <fmt/core.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "faultline/error.h"
#include "yaml_fields.h"

namespace faultline {

namespace {

Cpu ParseCpu(const Field& f) {
  static const std::vector<std::pair<std::string, Cpu>> kCpus = {
      {"cortex-m0", Cpu::kCortexM0},   {"cortex-m3", Cpu::kCortexM3},
      {"cortex-m4", Cpu::kCortexM4},   {"cortex-m7", Cpu::kCortexM7},
      {"cortex-m33", Cpu::kCortexM33}, {"cortex-m55", Cpu::kCortexM55}};
  return f.Choice("cpu", kCpus);
}

RegionKind ParseKind(const Field& f) {
  static const std::vector<std::pair<std::string, RegionKind>> kKinds = {
      {"flash", RegionKind::kFlash}, {"mram", RegionKind::kMram},
      {"rom", RegionKind::kRom},     {"sram", RegionKind::kSram},
      {"tcm", RegionKind::kTcm},     {"ddr", RegionKind::kDdr},
      {"xspi", RegionKind::kXspi},   {"peripheral", RegionKind::kPeripheral}};
  return f.Choice("region kind", kKinds);
}

Access ParseAccess(const Field& f) {
  std::string s = f.Scalar();
  Access a;
  for (char c : s) {
    bool* bit = c == 'r' ? &a.read : c == 'w' ? &a.write : c == 'x' ? &a.execute : nullptr;
    if (c == '-') continue;
    if (bit == nullptr || *bit) {
      f.Fail(fmt::format("access '{}' is not a set of r, w, x", s),
             "write the permissions as letters, e.g. access: rx (flash) or access: rwx (RAM)");
    }
    *bit = true;
  }
  if (!a.read && !a.write && !a.execute) {
    f.Fail("access grants nothing", "use r, w and/or x, e.g. access: rw");
  }
  return a;
}

ResetContents ParseReset(const Field& f) {
  ResetContents r;
  const char* kFix =
      "use one of: reset: zero | reset: erased | reset: {fill: 0xA5} | reset: {random: SEED}";
  if (f.node.IsScalar()) {
    std::string s = f.Scalar();
    if (s == "zero") return r;
    if (s == "erased") {
      r.kind = ResetContents::Kind::kErased;
      return r;
    }
    if (s == "random") {
      f.Fail("random reset contents need a seed, so that runs are repeatable",
             "write reset: {random: 1} (any integer seed)");
    }
    f.Fail(fmt::format("unknown reset contents '{}'", s), kFix);
  }
  Mapping m(f, {"fill", "random"});
  if (m.Has("fill") == m.Has("random")) f.Fail("reset needs exactly one of fill or random", kFix);
  if (m.Has("fill")) {
    uint64_t v = m.Get("fill").Number();
    if (v > 0xFF) m.Get("fill").Fail(fmt::format("fill byte 0x{:x} does not fit in a byte", v),
                                     "use a value 0x00..0xFF");
    r.kind = ResetContents::Kind::kFill;
    r.fill = static_cast<uint8_t>(v);
  } else {
    r.kind = ResetContents::Kind::kRandom;
    r.seed = m.Get("random").Number();
  }
  return r;
}

Region ParseRegion(const Field& f) {
  Mapping m(f, {"name", "base", "size", "kind", "access", "reset", "description"});
  Region r;
  r.line = f.Line();
  r.name = m.Require("name").Scalar();
  r.base = m.Require("base").Address();
  r.size = m.Require("size").Size();
  r.kind = ParseKind(m.Require("kind"));
  r.access = ParseAccess(m.Require("access"));
  r.reset = ParseReset(m.Require("reset"));
  if (m.Has("description")) r.description = m.Get("description").Scalar();
  if (r.size == 0) m.Get("size").Fail(fmt::format("region '{}' has size 0", r.name),
                                      "give the region its size in bytes, e.g. size: 256K");
  if (r.base + r.size > (uint64_t{1} << 32)) {
    m.Get("size").Fail(
        fmt::format("region '{}' at 0x{:08x} with size 0x{:x} ends at 0x{:x}, past the 4 GiB "
            "address space",
            r.name, r.base, r.size, r.base + r.size),
        fmt::format("reduce size to at most 0x{:x}", (uint64_t{1} << 32) - r.base));
  }
  return r;
}

LoadMode ParseLoadModeField(const Field& f) {
  auto mode = ParseLoadMode(f.Scalar());
  if (!mode) f.Fail(fmt::format("unknown load mode '{}'", f.Scalar()), "use load_mode: flash or debugger");
  return *mode;
}

}  // namespace

Board ParseBoard(const std::string& yaml, const std::string& origin) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::Exception& e) {
    throw InputError(fmt::format("{}:{}", origin, e.mark.line + 1),
                     "not valid YAML: " + e.msg, "fix the YAML syntax at that line");
  }
  Field top{root, origin, "board"};
  if (!root.IsMap()) top.Fail("a board file must be a YAML mapping", "see docs/boards.md for an example");
  Mapping m(top, {"name", "description", "cpu", "boot", "regions"});
  Board b;
  b.source = origin;
  b.name = m.Require("name").Scalar();
  b.description = m.Require("description").Scalar();
  b.cpu = ParseCpu(m.Require("cpu"));

  Field boot = m.Require("boot");
  Mapping bm(boot, {"vector_table", "load_mode"});
  b.boot.vector_table = bm.Require("vector_table").Address();
  b.boot.load_mode = ParseLoadModeField(bm.Require("load_mode"));

  Field regions = m.Require("regions");
  if (!regions.node.IsSequence() || regions.node.size() == 0) {
    regions.Fail("regions must be a non-empty list", "list each memory as '- name: ... base: ... size: ...'");
  }
  std::set<std::string> names;
  for (size_t i = 0; i < regions.node.size(); ++i) {
    Field rf{regions.node[i], origin, fmt::format("regions[{}]", i)};
    Region r = ParseRegion(rf);
    if (!names.insert(r.name).second) {
      rf.Fail(fmt::format("region name '{}' is used twice", r.name), "give each region a unique name");
    }
    b.regions.push_back(std::move(r));
  }
  std::sort(b.regions.begin(), b.regions.end(),
            [](const Region& x, const Region& y) { return x.base < y.base; });
  for (size_t i = 1; i < b.regions.size(); ++i) {
    const Region& prev = b.regions[i - 1];
    const Region& cur = b.regions[i];
    if (cur.base < prev.end()) {
      throw InputError(
          fmt::format("{}:{}", origin, cur.line),
          fmt::format("region '{}' (0x{:08x}-0x{:08x}) overlaps region '{}' (0x{:08x}-0x{:08x}, line {})",
              cur.name, cur.base, cur.end() - 1, prev.name, prev.base, prev.end() - 1, prev.line),
          "regions must not overlap: fix base or size (the same memory at two addresses is an "
          "alias, not a second region)");
    }
  }
  auto holds_vtor = std::find_if(b.regions.begin(), b.regions.end(), [&](const Region& r) {
    return r.Contains(b.boot.vector_table) && r.Contains(b.boot.vector_table + 7);
  });
  if (holds_vtor == b.regions.end()) {
    bm.Get("vector_table").Fail(
        fmt::format("boot vector table 0x{:08x} is not inside any region", b.boot.vector_table),
        "set boot.vector_table to the address the core reads SP and PC from at reset");
  }
  return b;
}

Board LoadBoardFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) {
    throw InputError(path.string(), "cannot open board file",
                     "check the path, or pass a built-in board name (faultline boards lists them)");
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseBoard(ss.str(), path.string());
}

std::vector<BoardSummary> ListBoards(const std::filesystem::path& dir) {
  std::vector<BoardSummary> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".yaml") continue;
    Board b = LoadBoardFile(entry.path());
    out.push_back({b.name, b.description});
  }
  std::sort(out.begin(), out.end(),
            [](const BoardSummary& a, const BoardSummary& b) { return a.name < b.name; });
  return out;
}

Board ResolveBoard(const std::string& name_or_path, const std::filesystem::path& boards_dir) {
  std::filesystem::path p(name_or_path);
  if (p.extension() == ".yaml" || p.extension() == ".yml" ||
      name_or_path.find('/') != std::string::npos) {
    return LoadBoardFile(p);
  }
  std::filesystem::path builtin = boards_dir / (name_or_path + ".yaml");
  if (std::filesystem::exists(builtin)) return LoadBoardFile(builtin);
  std::string known;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(boards_dir, ec)) {
    if (entry.path().extension() == ".yaml") {
      known += (known.empty() ? "" : ", ") + entry.path().stem().string();
    }
  }
  throw InputError("--board", fmt::format("unknown board '{}'", name_or_path),
                   fmt::format("use one of: {} (or a path to a board .yaml file)",
                       known.empty() ? "<none found in " + boards_dir.string() + ">" : known));
}

std::filesystem::path DefaultBoardsDir() {
  if (const char* env = std::getenv("FAULTLINE_BOARDS")) return env;
#ifdef FAULTLINE_SOURCE_BOARDS_DIR
  if (std::filesystem::is_directory(FAULTLINE_SOURCE_BOARDS_DIR)) return FAULTLINE_SOURCE_BOARDS_DIR;
#endif
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return exe.parent_path().parent_path() / "share" / "faultline" / "boards";
}

bool IsNonVolatile(RegionKind kind) {
  return kind == RegionKind::kFlash || kind == RegionKind::kMram || kind == RegionKind::kRom ||
         kind == RegionKind::kXspi;
}

std::string ToString(Cpu cpu) {
  switch (cpu) {
    case Cpu::kCortexM0: return "cortex-m0";
    case Cpu::kCortexM3: return "cortex-m3";
    case Cpu::kCortexM4: return "cortex-m4";
    case Cpu::kCortexM7: return "cortex-m7";
    case Cpu::kCortexM33: return "cortex-m33";
    case Cpu::kCortexM55: return "cortex-m55";
  }
  return "?";
}

std::string ToString(RegionKind kind) {
  switch (kind) {
    case RegionKind::kFlash: return "flash";
    case RegionKind::kMram: return "mram";
    case RegionKind::kRom: return "rom";
    case RegionKind::kSram: return "sram";
    case RegionKind::kTcm: return "tcm";
    case RegionKind::kDdr: return "ddr";
    case RegionKind::kXspi: return "xspi";
    case RegionKind::kPeripheral: return "peripheral";
  }
  return "?";
}

std::string ToString(LoadMode mode) { return mode == LoadMode::kFlash ? "flash" : "debugger"; }

std::optional<LoadMode> ParseLoadMode(const std::string& text) {
  if (text == "flash") return LoadMode::kFlash;
  if (text == "debugger") return LoadMode::kDebugger;
  return std::nullopt;
}

std::string AccessString(const Access& a) {
  return std::string(a.read ? "r" : "-") + (a.write ? "w" : "-") + (a.execute ? "x" : "-");
}

}  // namespace faultline

// For scenario overrides (board_fields.h): the same grammar as in a board file.
namespace faultline {
ResetContents ParseResetField(const Field& field) { return ParseReset(field); }
LoadMode ParseLoadModeValue(const Field& field) { return ParseLoadModeField(field); }
}  // namespace faultline
