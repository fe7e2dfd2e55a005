// Static layout checks: sections against the board's regions, the startup copy/zero
// tables decoded from the image's own bytes, the boot vector, stack and heap, and the
// host's fixed-address contracts. Pure: no engine, no running.
#include "faultline/check.h"

#include "check_rules.h"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>
#include <nlohmann/json.hpp>

#include "../scenario/glob.h"
#include "faultline/error.h"
#include "faultline/memory_map.h"
#include "faultline/run.h"

namespace faultline {

namespace {

using namespace check;

// The rules in their order: what one finds (the vector table, crt0's .bss), a later one uses.
class Checker {
 public:
  Checker(const Board& board, const Image& image, const CheckOptions& options) : s_(board, image, options) {}

  CheckResult Run() {
    // The vector table, the Thumb reset vector and the CMSIS copy/zero tables are
    // Cortex-M's. An RV32 hart starts at an address, and its start file copies and zeroes
    // in code (picolibc's crt0, Kelvin's _start), which is not decoded here.
    const bool arm = IsaOf(s_.board.cpu) == Isa::kArm;
    LayoutRules layout(s_);
    StartupRules startup(s_);
    BootRules boot(s_);
    MemoryRules memory(s_);
    if (arm) boot.BootSource();
    layout.Usage();
    layout.Placement();
    layout.Overlaps();
    if (arm) {
      startup.StartupTables();
    } else {
      s_.result.startup_layout = "not checked on RISC-V (the start file copies .data and zeroes .bss in code)";
    }
    layout.SectionNames();
    if (arm) {
      boot.Boot();
    } else {
      boot.ResetAddress();
    }
    memory.StackAndHeap();
    memory.Contracts();
    memory.HostPageRules();
    std::stable_sort(s_.result.diagnostics.begin(), s_.result.diagnostics.end(),
                     [](const Diagnostic& a, const Diagnostic& b) { return a.severity < b.severity; });
    return s_.result;
  }

 private:
  CheckState s_;
};

}  // namespace

std::string ToString(Diagnostic::Severity s) {
  switch (s) {
    case Diagnostic::Severity::kError: return "error";
    case Diagnostic::Severity::kWarning: return "warning";
    case Diagnostic::Severity::kNote: return "note";
  }
  return "?";
}

size_t CheckResult::errors() const {
  return size_t(std::count_if(diagnostics.begin(), diagnostics.end(),
                              [](const Diagnostic& d) { return d.severity == Diagnostic::Severity::kError; }));
}

size_t CheckResult::warnings() const {
  return size_t(std::count_if(diagnostics.begin(), diagnostics.end(),
                              [](const Diagnostic& d) { return d.severity == Diagnostic::Severity::kWarning; }));
}

std::optional<std::string> MapFileBeside(const std::filesystem::path& elf) {
  std::filesystem::path beside = std::filesystem::path(elf).replace_extension(".map");
  if (!std::filesystem::is_regular_file(beside)) return std::nullopt;
  return beside.string();
}

CheckResult Check(const Board& board, const Image& image, const CheckOptions& options) {
  RequireImageFitsCore(board, image);
  return Checker(board, image, options).Run();
}

}  // namespace faultline
