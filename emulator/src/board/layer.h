// A board file's layers as parsed, before `uses:` layers are merged and names resolved
// (board.cc), and the parsers of its parts that live in files of their own
// (peripherals.cc, cpu_options.cc). Internal to the emulator library.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "faultline/board.h"
#include "host_page.h"
#include "yaml_fields.h"

namespace faultline {

// A condition as written, resolved against the peripherals once every layer is merged.
struct PendingCondition {
  std::string text;
  std::string where;
};

struct PendingRule {
  size_t peripheral = 0, reg = 0;
  std::string field;
  uint32_t value = 0;
  PendingCondition when;
};

struct PendingIrq {
  size_t peripheral = 0;  // its last irqs entry is the line
  PendingCondition when;
};

struct PendingGate {
  Gate gate;
  PendingCondition when;
};

// One file's contribution before `uses:` layers are merged.
struct Layer {
  std::optional<std::string> name, description;
  std::optional<Cpu> cpu;
  std::optional<CpuOptions> cpu_options;
  std::optional<Boot> boot;
  std::string boot_where;
  bool boot_reset = false;  // boot: gave `reset` (an RV32 hart's), not `vector_table`
  std::string top_where;  // the board mapping itself, for missing keys
  std::vector<Region> regions;
  std::vector<Alias> aliases;
  std::vector<Peripheral> peripherals;
  std::vector<PendingRule> rules;  // indices into `peripherals`
  std::vector<PendingIrq> irq_conditions;
  std::vector<PendingGate> gates;
  std::vector<HostContract> contracts;
  std::optional<HostPage> host_page;
  std::vector<BusMaster> masters;
};

template <typename T>
std::vector<Field> Items(const Mapping& m, const char* key, const std::string& origin) {
  std::vector<Field> out;
  if (!m.Has(key)) return out;
  Field list = m.Get(key);
  if (!list.node.IsSequence()) list.Fail("expected a list ('- ' items)", "write each entry on a '- ' line");
  for (size_t i = 0; i < list.node.size(); ++i) {
    out.push_back(Field{list.node[i], origin, fmt::format("{}[{}]", key, i)});
  }
  return out;
}


// One `peripherals:` entry (peripherals.cc), appended to `layer`.
void ParsePeripheral(const Field& f, Layer& layer);
// `cpu_options:` over what an earlier layer (a SoC file) gave (cpu_options.cc).
CpuOptions ParseCpuOptions(const Field& field, const std::optional<CpuOptions>& earlier, const std::string& origin);

}  // namespace faultline
