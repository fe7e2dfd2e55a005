// Where reset starts: the vector table the core reads at the boot address (or a boot
// configuration's), its SP and reset handler, the handlers written at reset; an RV32
// hart's reset address.
#include <fmt/core.h>

#include <algorithm>
#include <set>

#include "check_rules.h"

namespace faultline::check {

// Reset reads the vector table where the board boots, unless a boot config or
// --boot-address says where the image is started from.
void BootRules::BootSource() {
  vtor_ = board_.boot.vector_table;
  if (options_.boot_config) {
    config_ = ReadBootConfig(*options_.boot_config);
    vtor_ = config_->image_address;
  }
  if (options_.boot_address) vtor_ = *options_.boot_address;
}

void BootRules::Boot() {
  std::string from = options_.boot_config || options_.boot_address ? "the boot address" : "the board's boot address";
  std::string source = options_.boot_address ? " (--boot-address)"
                       : config_ ? fmt::format(" ({}: {}.mramAddress)", config_->path, config_->entry)
                                 : "";
  auto sp = LoadedWord(image_, vtor_), reset = LoadedWord(image_, vtor_ + 4);
  // The image's vector table: the symbol CMSIS and the vendors' startup files give it
  // (Alif's __VECTOR_TABLE sits in .startup.at_mram), else a section named for it; where
  // the loader writes it.
  std::string vectors;
  std::optional<uint64_t> vectors_at;
  std::string table_symbol;
  const std::optional<uint64_t> table =
      Value(image_, {"__VECTOR_TABLE", "__Vectors", "__isr_vector", "g_pfnVectors", "__vector_table", "_vector_table"},
            &table_symbol);
  for (const Placed& p : placed_) {
    const std::string& n = p.section->name;
    const bool holds = table ? !p.section->nobits && *table >= p.section->address &&
                                   *table - p.section->address < p.section->size
                             : n == ".vectors" || n == ".isr_vector" || n.find("vector") != std::string::npos;
    if (holds) {
      vectors = table ? fmt::format("{} ({})", table_symbol, n) : n;
      vectors_at = p.load.value_or(p.section->address) + (table ? *table - p.section->address : 0);
      break;
    }
  }
  if (!sp || !reset) {
    Add(Severity::kError, "boot", nullptr,
        fmt::format("nothing in the image is loaded at {} 0x{:08x}{}{}: the core would reset from blank memory", from,
                    vtor_, source,
                    vectors_at ? fmt::format(" (the image's {} is at 0x{:08x})", vectors, *vectors_at) : ""),
        "link the image for the address the boot ROM or boot config starts it from (the vector table first)");
  } else {
    const Region* ram = *sp >= 4 ? Window(*sp - 4, 4) : nullptr;
    if (ram == nullptr || !ram->access.write || IsNonVolatile(ram->kind)) {
      Add(Severity::kError, "boot", nullptr,
          fmt::format("initial stack pointer 0x{:08x} (vector table word 0) is not at or inside writable RAM", *sp),
          "point __StackTop/_estack at the end of a RAM region");
    } else if (*sp % 8 != 0) {
      Add(Severity::kError, "boot", nullptr,
          fmt::format("initial stack pointer 0x{:08x} is not 8-byte aligned (AAPCS)", *sp), "align __StackTop to 8");
    }
    const Region* code = Window(*reset & ~1u, 2);
    if ((*reset & 1) == 0) {
      Add(Severity::kError, "boot", nullptr,
          fmt::format("reset vector 0x{:08x} has no Thumb bit: the core takes a HardFault at reset", *reset),
          "the reset vector must be a Thumb function address (bit 0 set)");
    } else if (code == nullptr || !code->access.execute) {
      Add(Severity::kError, "boot", nullptr,
          fmt::format("reset vector 0x{:08x} does not point into executable memory", *reset),
          "point the vector table's word 1 at Reset_Handler in executable memory");
    }
    HandlersWrittenAtReset(vtor_);
  }
  if (config_ && vectors_at) BootConfigMatches(*config_, *vectors_at);
}

// Whether the loader writes `addr` before reset: a segment's load image covers it and,
// on a flash-loaded board, lies in non-volatile memory.
bool BootRules::WrittenAtReset(uint64_t addr) const {
  for (const Segment& seg : image_.segments) {
    if (addr < seg.load_address || addr >= seg.load_address + seg.bytes.size()) continue;
    const Region* r = Window(addr, 1);
    if (!FlashLoaded() || (r && IsNonVolatile(r->kind))) return true;
  }
  return false;
}

// The reset handler and the fault handlers must run from memory that holds them at
// reset. With -ffunction-sections, Reset_Handler is in .text.Reset_Handler, which a
// template's `*startup*(.text)` no longer catches, and lands in the code the copy table
// moves to ITCM: the core then starts in memory the copy has not filled. A fault handler
// there is only reached correctly once the copy has run (a warning).
void BootRules::HandlersWrittenAtReset(uint64_t vtor) {
  static const char* const kVectors[] = {"reset", "NMI", "HardFault", "MemManage", "BusFault", "UsageFault"};
  // Handler address -> the vectors that hold it (CMSIS aliases them to Default_Handler).
  std::vector<std::pair<uint32_t, std::vector<std::string>>> handlers;
  for (int n = 1; n <= 6; ++n) {
    auto v = LoadedWord(image_, vtor + 4 * uint64_t(n));
    if (!v || *v == 0) continue;
    auto same = std::find_if(handlers.begin(), handlers.end(), [&](const auto& h) { return h.first == *v; });
    if (n > 1 && same != handlers.end()) same->second.push_back(kVectors[n - 1]);
    else handlers.push_back({*v, {kVectors[n - 1]}});
  }
  for (const auto& [v, names] : handlers) {
    uint64_t target = v & ~1u;
    const Region* code = Window(target, 2);
    if (code == nullptr || !code->access.execute || WrittenAtReset(target)) continue;
    auto sym = image_.symbols.Lookup(target);
    std::string name = sym ? " (" + sym->ToString() + ")" : "";
    bool copied = std::any_of(result_.copy_table.begin(), result_.copy_table.end(), [&](const CopyTableEntry& e) {
      return target >= e.destination && target < e.destination + e.words * 4;
    });
    std::string fill = copied ? "only the copy table fills it" : "nothing writes it";
    if (names[0] == "reset") {
      Add(Severity::kError, "boot", nullptr,
          fmt::format("reset vector 0x{:08x}{} points into {}, which holds its reset contents when the core starts: "
                      "{}{}",
                      v, name, code->name, fill, copied ? ", and the copy is what Reset_Handler itself runs" : ""),
          "keep Reset_Handler and the startup code in memory the programmer writes: match their input sections "
          "by name in the output section placed there (`*startup*(.text .text.*)`), or build the startup without "
          "-ffunction-sections");
      continue;
    }
    std::string list;
    for (size_t i = 0; i < names.size(); ++i) {
      list += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
    }
    Add(Severity::kWarning, "boot", nullptr,
        fmt::format("{} vector{} 0x{:08x}{} point{} into {}, where {}: a fault taken before the startup code has "
                    "run executes {}'s reset contents",
                    list, names.size() > 1 ? "s" : "", v, name, names.size() > 1 ? "" : "s", code->name, fill,
                    code->name),
        "keep the fault handlers with the startup code in memory the programmer writes");
  }
}

void BootRules::BootConfigMatches(const BootConfig& c, uint64_t vectors_at) {
  const std::string& path = c.path;
  const std::string& owner = c.entry;
  const std::string& cpu_id = c.cpu_id;
  const uint64_t mram = c.image_address;
  if (mram != vectors_at) {
    Add(Severity::kError, "boot", nullptr,
        fmt::format("{} writes the image at 0x{:08x} ({}.mramAddress), but it is linked to start at 0x{:08x}: the "
                    "vector table and every absolute address in it are off by 0x{:x}",
                    path, mram, owner, vectors_at, mram > vectors_at ? mram - vectors_at : vectors_at - mram),
        "make mramAddress and the linker script's MRAM origin (APP_MRAM_HP_BASE in app_mem_regions.h) agree");
  }
  bool hp_board = board_.name.find("-hp") != std::string::npos, he_board = board_.name.find("-he") != std::string::npos;
  if (!cpu_id.empty() && ((hp_board && cpu_id != "M55_HP") || (he_board && cpu_id != "M55_HE"))) {
    Add(Severity::kError, "boot", nullptr,
        fmt::format("{} boots the image on {} ({}.cpu_id), but board '{}' is the other core", path, cpu_id, owner,
                    board_.name),
        "set cpu_id to the core the image is built for");
  }
}

// An RV32 hart starts at the board's reset address (Kelvin: ml_top CTRL.pc_start, 0) or
// at the ELF's entry: the loader must have put the start file's code there.
void BootRules::ResetAddress() {
  const bool at_entry = board_.boot.reset_at_entry;
  const uint64_t pc = at_entry ? image_.entry : board_.boot.reset_pc;
  auto named = [&](uint64_t a) {
    auto sym = image_.symbols.Lookup(a);
    return sym ? fmt::format("0x{:08x} <{}>", a, sym->ToString()) : fmt::format("0x{:08x}", a);
  };
  const Placed* code = nullptr;
  for (const Placed& p : placed_) {
    const Section& s = *p.section;
    if (s.exec && !s.nobits && pc >= s.address && pc - s.address < s.size) code = &p;
  }
  const std::string fix =
      "link the start file first at the reset address: `KEEP(*(._init))` (its section) first in .text, which the "
      "linker script places there, and ENTRY(_start)";
  if (code == nullptr) {
    Add(Severity::kError, "boot", nullptr,
        fmt::format("the hart starts at 0x{:08x} ({}), but no code section of the image is loaded there: it runs "
                    "whatever the memory holds",
                    pc, at_entry ? "the ELF's entry" : "the board's boot.reset"),
        fix);
  } else if (!at_entry && image_.entry != pc) {
    Add(Severity::kError, "boot", code,
        fmt::format("the hart starts at {} (the board's boot.reset), but the ELF's entry is {}: the host starts "
                    "the core at the fixed address, not at the entry",
                    named(pc), named(image_.entry)),
        fix);
  }
}
}  // namespace faultline::check
