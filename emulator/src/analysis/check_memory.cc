// The memories the program sets up for itself and the host: stack and heap, the host's
// fixed-address contracts, and the page a host such as Kelvin's owns.
#include <fmt/core.h>

#include <algorithm>
#include <set>

#include "check_rules.h"

namespace faultline::check {

void MemoryRules::StackAndHeap() {
  // Kelvin's crt/kelvin.ld names the stack __stack_start__..__stack_end__.
  auto top = Value(image_, {"__StackTop", "_estack", "__stack_end__"}, &stack_top_name_);
  auto limit = Value(image_, {"__StackLimit", "__stack_start__"}, &stack_limit_name_);
  auto min_stack = Value(image_, {"_Min_Stack_Size", "__STACK_SIZE", "__stack_size__"});
  if (top && !limit && min_stack) limit = *top - *min_stack;
  auto heap_base = Value(image_, {"__HeapBase", "__heap_start__", "_end", "end"}, &heap_base_name_);
  auto heap_limit = Value(image_, {"__HeapLimit", "__heap_end__"}, &heap_limit_name_);
  auto min_heap = Value(image_, {"_Min_Heap_Size", "__HEAP_SIZE", "__heap_size__"});
  if (heap_base && !heap_limit && min_heap) heap_limit = *heap_base + *min_heap;
  auto check_range = [&](const char* what, uint64_t lo, uint64_t hi) {
    if (hi <= lo) return;
    const Region* r = Window(lo, hi - lo);
    if (r == nullptr || !r->access.write) {
      Add(Severity::kError, "stack", nullptr,
          fmt::format("the {} ({}) is not inside one writable region", what, Span(lo, hi - lo)),
          "place it in RAM in the linker script");
      return;
    }
    for (const Placed& p : placed_) {
      const Section& s = *p.section;
      std::string n = s.name;
      if (n.find("stack") != std::string::npos || n.find("heap") != std::string::npos) continue;
      if (s.address < hi && lo < s.address + s.size) {
        Add(Severity::kError, "stack", &p,
            fmt::format("the {} ({}) overlaps {} ({})", what, Span(lo, hi - lo), s.name, Span(s.address, s.size)),
            "give the stack and heap their own space after the data sections");
      }
    }
  };
  if (top && limit) {
    result_.stack_base = *limit;
    result_.stack_size = *top - *limit;
    check_range("stack", *limit, *top);
  }
  if (heap_base && heap_limit) {
    result_.heap_base = *heap_base;
    result_.heap_size = *heap_limit - *heap_base;
    check_range("heap", *heap_base, *heap_limit);
  }
}

void MemoryRules::Contracts() {
  for (const HostContract& c : board_.contracts) {
    auto v = Value(image_, {c.symbol.c_str()});
    if (!v) {
      Add(Severity::kError, "host-contract", nullptr,
          fmt::format("the board's host expects symbol {} at 0x{:08x} ({}), but the image does not define it",
                      c.symbol, c.address, c.description.empty() ? c.where : c.description),
          "define it, placed at that address by the linker script");
    } else if (*v != c.address) {
      Add(Severity::kError, "host-contract", nullptr,
          fmt::format("{} is at 0x{:08x}, but the host expects it at 0x{:08x} ({})", c.symbol, *v, c.address,
                      c.description.empty() ? c.where : c.description),
          "place it at the address the host reads, with its own section in the linker script");
    }
  }
}

const Placed* MemoryRules::FindPlaced(const std::string& name) const {
  for (const Placed& p : placed_) {
    if (p.section->name == name) return &p;
  }
  return nullptr;
}

// The host's page (board `host_page:`, Kelvin's MODEL_HEADER): the host writes the
// model's input from its start and reads the output header at a fixed address, neither
// looked up in the ELF, so the image must put both exactly there and keep all else out.
// The fixes speak the seed's linker script (crt/kelvin.ld): TCM below the page,
// MODEL_HEADER the page.
void MemoryRules::HostPageRules() {
  if (!board_.host_page) return;
  const HostPage& hp = *board_.host_page;
  const uint64_t page_end = hp.base + hp.size;
  const std::string page = Span(hp.base, hp.size);
  const std::optional<Memory> memory = MemoryHolding(board_, hp.base, hp.size);  // the board's parser made sure
  const std::string split = fmt::format(
      "MEMORY {{ TCM(rwx): ORIGIN = 0x{:x}, LENGTH = 0x{:x}  MODEL_HEADER(rw): ORIGIN = 0x{:x}, LENGTH = 0x{:x} }}",
      memory->base, hp.base - memory->base, hp.base, hp.size);
  // The input area: the page below the header (Kelvin), or all of it when the header is
  // at its start.
  const uint64_t input_end = hp.header_base > hp.base ? hp.header_base : page_end;
  auto in_page = [&](uint64_t a, uint64_t size) { return a < page_end && hp.base < a + std::max<uint64_t>(size, 1); };
  const Placed* input = FindPlaced(hp.input_section);
  const Placed* header = FindPlaced(hp.header_section);

  if (input == nullptr) {
    std::string there;
    for (const Placed& p : placed_) {
      if (in_page(p.section->address, p.section->size) && p.section->address < input_end) {
        there += (there.empty() ? "" : ", ") + p.section->name;
      }
    }
    // Where the model's input buffer is instead (`model_input` for `.model_input`).
    std::string buffer;
    if (auto sym = image_.symbols.Find(hp.input_section.substr(1))) {
      const Placed* in = nullptr;
      for (const Placed& p : placed_) {
        if (sym->address >= p.section->address && sym->address - p.section->address < p.section->size) in = &p;
      }
      buffer = fmt::format("; the image's {} is at 0x{:08x}{}, where the host never writes", sym->name,
                           sym->address, in ? " in " + in->section->name : "");
    }
    Add(Severity::kError, "host-input", nullptr,
        fmt::format("no input page: the image has no {} section, but the host writes the model's input at {} "
                    "(its page {} up to the output header), over {}{}",
                    hp.input_section, Span(hp.base, input_end - hp.base), page,
                    there.empty() ? "memory the image does not read it from" : "what the image keeps there: " + there,
                    buffer),
        fmt::format("give the host its page, `{}`, and place `{} ORIGIN(MODEL_HEADER) (NOLOAD) : {{ *({}) }} > "
                    "MODEL_HEADER` first in it, with the model's input buffer in that section "
                    "(`__attribute__((section(\"{}\")))`)",
                    split, hp.input_section, hp.input_section, hp.input_section));
  } else {
    const Section& s = *input->section;
    const uint64_t room = input_end - hp.base;
    if (!in_page(s.address, s.size)) {
      const Region* r = Window(s.address, s.size);
      Add(Severity::kError, "host-input", input,
          fmt::format("{} ({}) is {}, not in the host's page {}: the host writes the input at 0x{:08x}, and the "
                      "model reads a buffer nobody writes",
                      s.name, Span(s.address, s.size), r ? "in " + r->name : "in no region", page, hp.base),
          fmt::format("place `{} ORIGIN(MODEL_HEADER) (NOLOAD) : {{ *({}) }} > MODEL_HEADER` at the page's start, "
                      "not > TCM (the page: `{}`)",
                      s.name, s.name, split));
    } else if (s.address != hp.base) {
      Add(Severity::kError, "host-input", input,
          fmt::format("{} starts at 0x{:08x}, 0x{:x} bytes from the start of the host's page {}: the host writes "
                      "the input from 0x{:08x}, so the model reads it shifted",
                      s.name, s.address, s.address - std::min(s.address, hp.base), page, hp.base),
          fmt::format("place {} first in MODEL_HEADER, at ORIGIN(MODEL_HEADER) = 0x{:x}", s.name, hp.base));
    } else if (s.size > room) {
      Add(Severity::kError, "host-input", input,
          fmt::format("{} is {} bytes and runs to 0x{:08x}, into the output header at 0x{:08x}: the input has "
                      "{} bytes",
                      s.name, s.size, s.address + s.size - 1, hp.header_base, room),
          fmt::format("make the model's input buffer at most {} bytes (the page less the output header)", room));
    }
  }

  const std::string header_fix = fmt::format(
      "place it at the fixed address, `{} ORIGIN(MODEL_HEADER) + LENGTH(MODEL_HEADER) - 0x{:x} (NOLOAD) : {{ {}*(.model_output_header*) }} > "
      "MODEL_HEADER` (0x{:x}), with the header's size 0x{:x}",
      hp.header_section, hp.header_size, hp.header_symbol.empty() ? "" : hp.header_symbol + " = .; ",
      hp.header_base, hp.header_size);
  const std::string what_host_reads =
      fmt::format("the host reads the output header (return code, output pointer, length) at 0x{:08x}, {} bytes",
                  hp.header_base, hp.header_size);
  if (header == nullptr) {
    Add(Severity::kError, "host-output-header", nullptr,
        fmt::format("the image has no {} section: {}, and the firmware writes none there", hp.header_section,
                    what_host_reads),
        "give the header its own output section: " + header_fix);
  } else if (header->section->address != hp.header_base) {
    const Section& s = *header->section;
    Add(Severity::kError, "host-output-header", header,
        fmt::format("{} is at 0x{:08x}, but {}: it reads words the firmware never wrote", s.name, s.address,
                    what_host_reads),
        header_fix);
  } else if (header->section->size > hp.header_size) {
    const Section& s = *header->section;
    Add(Severity::kError, "host-output-header", header,
        fmt::format("{} is {} bytes, but {}: the rest lies past what the host reads", s.name, s.size,
                    what_host_reads),
        fmt::format("keep the header within {} bytes (return_code, output_ptr, length)", hp.header_size));
  } else if (auto sym = hp.header_symbol.empty() ? std::nullopt : Value(image_, {hp.header_symbol.c_str()});
             sym && *sym != hp.header_base) {
    Add(Severity::kError, "host-output-header", header,
        fmt::format("{} is at 0x{:08x}, not at the start of {} (0x{:08x}): the start file stores main's return "
                    "value there, and the host reads the return code at 0x{:08x}",
                    hp.header_symbol, *sym, hp.header_section, hp.header_base, hp.header_base),
        fmt::format("define `{} = .;` first in {}", hp.header_symbol, hp.header_section));
  }

  // Nothing else of the firmware's in the page: the host's input write lands on it.
  const std::string below = fmt::format("with TCM ending where the page starts (`{}`)", split);
  bool stack_section = false, heap_section = false;
  for (const Placed& p : placed_) {
    const Section& s = *p.section;
    if (&p == input || &p == header || !in_page(s.address, s.size)) continue;
    const bool stack = s.name.find("stack") != std::string::npos, heap = s.name.find("heap") != std::string::npos;
    stack_section |= stack;
    heap_section |= heap;
    std::string fix = stack ? "end the stack below the page: `.stack ORIGIN(TCM) + LENGTH(TCM) - OUTPUT_SIZE - "
                              "STACK_SIZE (NOLOAD)`, " + below
                      : heap ? "end the heap below the stack, `. = ORIGIN(TCM) + LENGTH(TCM) - OUTPUT_SIZE - "
                               "STACK_SIZE;` in .heap, " + below
                      : s.name.find("output") != std::string::npos
                          ? fmt::format("place it just below the page, `{} ORIGIN(TCM) + LENGTH(TCM) - OUTPUT_SIZE "
                                        "(NOLOAD) : {{ *({}) }} > TCM`, {}",
                                        s.name, s.name, below)
                          : fmt::format("place it > TCM, below 0x{:08x}: only {} and {} belong in the host's page",
                                        hp.base, hp.input_section, hp.header_section);
    Add(Severity::kError, "host-page", &p,
        fmt::format("{} ({}) reaches into the host's page {}: the host writes the model's input there before the "
                    "core starts{}",
                    s.name, Span(s.address, s.size), page,
                    stack ? ", and the stack grows down over it" : ""),
        fix);
  }
  auto symbols_in_page = [&](const char* what, bool reported, const std::optional<uint64_t>& base,
                             const std::optional<uint64_t>& size, const std::string& lo, const std::string& hi,
                             const std::string& fix) {
    if (reported || !base || !size || !in_page(*base, *size) || *size == 0) return;
    Add(Severity::kError, "host-page", nullptr,
        fmt::format("the {} {}..{} ({}) reaches into the host's page {}: the host writes the model's input there "
                    "before the core starts",
                    what, lo.empty() ? "?" : lo, hi.empty() ? "?" : hi, Span(*base, *size), page),
        fix + ", " + below);
  };
  symbols_in_page("stack", stack_section, result_.stack_base, result_.stack_size, stack_limit_name_,
                  stack_top_name_,
                  fmt::format("put the stack's top below the page: {} = ORIGIN(TCM) + LENGTH(TCM) - OUTPUT_SIZE, not "
                              "computed from the whole memory's size",
                              stack_top_name_));
  symbols_in_page("heap", heap_section, result_.heap_base, result_.heap_size, heap_base_name_, heap_limit_name_,
                  fmt::format("end the heap below the stack: {} = ORIGIN(TCM) + LENGTH(TCM) - OUTPUT_SIZE - "
                              "STACK_SIZE, not computed from the whole memory's size",
                              heap_limit_name_));
}
}  // namespace faultline::check
