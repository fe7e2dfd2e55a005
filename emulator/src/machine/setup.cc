// Putting the firmware and the host's inputs in memory before reset, as a flash
// programmer or a debugger would, and the host actions a scenario applies at reset and
// at its breakpoints.
#include "setup.h"

#include <fmt/core.h>

#include <algorithm>
#include <fstream>
#include <iterator>

#include "../arm/core.h"
#include "../devices/uart.h"
#include "faultline/error.h"

namespace faultline::machine {

namespace {

std::string RegionLabel(const Region& r) {
  return fmt::format("{} (0x{:08x}-0x{:08x}, {}, {})", r.name, r.base, r.end() - 1,
                     ToString(r.kind), AccessString(r.access));
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : " ") + x;
  return s;
}

}  // namespace

// Writes the image into memory as `mode` says; throws InputError for a segment that no
// region can hold.
std::vector<LoadedSegment> LoadImage(const Board& board, MemoryMap& map, const Image& image,
                                     LoadMode mode) {
  std::vector<LoadedSegment> loaded;
  for (const Segment& seg : image.segments) {
    if (seg.bytes.empty()) continue;  // pure .bss: nothing to write
    int r = map.FindRange(seg.load_address, seg.bytes.size());
    if (r < 0) {
      auto [below, above] = map.Neighbours(seg.load_address);
      int holder = map.Find(seg.load_address);
      std::string near;
      if (holder >= 0) {
        near = "it starts in " + RegionLabel(map.regions()[holder]) + " but does not fit";
      } else {
        near = fmt::format("nearest regions: {} below, {} above",
                           below >= 0 ? RegionLabel(map.regions()[below]) : "none",
                           above >= 0 ? RegionLabel(map.regions()[above]) : "none");
      }
      throw InputError(
          image.path.string(),
          fmt::format("segment {} [{}] loads at 0x{:08x}-0x{:08x}, outside every region of board "
                      "'{}'; {}",
                      seg.index, Join(seg.sections), seg.load_address,
                      seg.load_address + seg.bytes.size() - 1, board.name, near),
          "link the firmware for this board (compare the linker script's MEMORY block with the "
          "board file), or choose the board it was linked for");
    }
    const Region& region = map.regions()[r];
    bool write = mode == LoadMode::kDebugger || IsNonVolatile(region.kind);
    if (write) map.Write(seg.load_address, seg.bytes);
    loaded.push_back({.index = seg.index,
                      .load_address = seg.load_address,
                      .size = seg.bytes.size(),
                      .run_address = seg.run_address,
                      .region = region.name,
                      .written = write,
                      .sections = Join(seg.sections)});
  }
  return loaded;
}

void LoadHostFiles(MemoryMap& map, const std::vector<HostLoad>& loads) {
  for (const HostLoad& load : loads) {
    RequireRegularFile(load.path, "--load", "file to place");
    std::ifstream in(load.path, std::ios::binary);
    if (!in) throw InputError("--load", fmt::format("cannot open '{}'", load.path), "check the path");
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
    if (map.FindRange(load.address, std::max<size_t>(bytes.size(), 1)) < 0) {
      throw InputError("--load",
                       fmt::format("'{}' ({} bytes) at 0x{:08x} does not fit inside one region",
                                   load.path, bytes.size(), load.address),
                       "load it at an address inside a region large enough for it");
    }
    map.Write(load.address, bytes);
  }
}

// Every memory action must land inside one region; checked before anything runs.
void CheckHostActions(const MemoryMap& map, const std::vector<HostAction>& actions) {
  for (const HostAction& a : actions) {
    if (a.kind != HostAction::Kind::kMemory) continue;
    if (a.bytes.empty() || map.FindRange(a.address, a.bytes.size()) >= 0) continue;
    throw InputError(a.origin,
                     fmt::format("{} bytes at 0x{:08x}-0x{:08x} do not fit inside one region",
                                 a.bytes.size(), a.address, a.address + a.bytes.size() - 1),
                     "place them at an address inside a region large enough for them");
  }
}

// Applies host actions in order; a write to pc changes where execution continues. What
// the core changed about a value (sp's low bits) goes to `events`.
void ApplyHostActions(const std::vector<HostAction>& actions, MemoryMap& map, arm::Core* core,
                      uint32_t* pc, std::vector<Event>* events) {
  for (const HostAction& a : actions) {
    if (a.kind == HostAction::Kind::kMemory) {
      map.Write(a.address, a.bytes);
      if (core != nullptr && !a.bytes.empty()) {
        core->InvalidateCode(a.address, a.address + a.bytes.size());
      }
    } else if (a.kind == HostAction::Kind::kField) {
      uint32_t v = (map.StoredValue(a.peripheral, a.peripheral_register) & ~a.mask) | ((a.value << a.shift) & a.mask);
      RegisterWriteEffect effect = map.WriteRegister(a.peripheral, a.peripheral_register, v);
      if (core != nullptr) core->GatesChanged(effect.gates_changed);  // remap what they gate
    } else if (core != nullptr) {
      if (a.reg == 15) {
        *pc = a.value & ~1u;
      } else if (a.reg == 13 && (a.value & 3u) != 0) {
        // SP is word-aligned: bits [1:0] of SP_main and SP_process are zero and writes
        // ignore them (Armv7-M ARM B1.4.1; Armv8-M the same). Unicorn's register write
        // would keep them, so the value silicon holds is written, and said.
        const uint32_t sp = a.value & ~3u;
        core->WriteGeneral(13, sp);
        if (events != nullptr) {
          events->push_back({.kind = "sp-aligned",
                             .where = "sp",
                             .first_address = sp,
                             .first_pc = *pc,
                             .pc_precise = true,
                             .count = 1,
                             .message = fmt::format("{}: reg: sp value 0x{:08x} has bits [1:0] set; SP holds "
                                                    "0x{:08x}, as on silicon (SP is word-aligned)",
                                                    a.origin, a.value, sp)});
        }
      } else {
        core->WriteGeneral(a.reg, a.value);
      }
    }
  }
}

std::vector<HostAction> OfKind(const std::vector<HostAction>& actions, HostAction::Kind kind) {
  std::vector<HostAction> out;
  for (const HostAction& a : actions) {
    if (a.kind == kind) out.push_back(a);
  }
  return out;
}

// Heap for SYS_HEAPINFO: from the end of the image's data in the region that holds the
// initial stack pointer, up to a stack of a quarter of that region (at most 64 KiB).
HeapInfo ComputeHeapInfo(const MemoryMap& map, const Image& image, uint32_t initial_sp) {
  int r = map.Find(initial_sp == 0 ? 0 : initial_sp - 1);
  if (r < 0) return {};
  const Region& ram = map.regions()[r];
  uint64_t heap_base = ram.base;
  for (const Segment& seg : image.segments) {
    if (seg.run_address >= ram.base && seg.run_address < ram.end()) {
      heap_base = std::max(heap_base, seg.run_address + seg.mem_size);
    }
  }
  uint64_t stack = std::min<uint64_t>(ram.size / 4, 64 * 1024);
  uint64_t stack_limit = std::max<uint64_t>(heap_base, initial_sp > stack ? initial_sp - stack : 0);
  heap_base = (heap_base + 7) & ~uint64_t{7};
  return {uint32_t(heap_base), uint32_t(stack_limit), initial_sp, uint32_t(stack_limit)};
}

// Every UART input names a port the board declares; checked before anything runs.
void CheckUartInput(const Board& board, const std::vector<UartInput>& inputs) {
  std::string known;
  for (const Peripheral& p : board.peripherals) {
    if (p.uart) known += (known.empty() ? "" : ", ") + p.name;
  }
  for (const UartInput& input : inputs) {
    auto it = std::find_if(board.peripherals.begin(), board.peripherals.end(),
                           [&](const Peripheral& p) { return p.uart && p.name == input.uart; });
    if (it != board.peripherals.end()) continue;
    throw InputError(input.origin, fmt::format("board '{}' has no UART named '{}'", board.name, input.uart),
                     known.empty() ? "declare one in the board file (peripherals: with model:, docs/boards.md)"
                                   : "name one of its UARTs: " + known);
  }
}

void PrepareUarts(MemoryMap& map, const RunOptions& options) {
  for (const UartInput& input : options.uart_input) map.FindUart(input.uart)->GiveInput(input.text);
  for (const auto& port : map.uarts()) port->KeepLast(options.console_keep);
}

void TakeUarts(const MemoryMap& map, RunResult& res) {
  for (const auto& port : map.uarts()) {
    res.uart.push_back({port->name(), ToString(port->model()), port->transmitted(), port->transmitted_bytes()});
  }
}

void TakeConsole(const Semihosting& semihosting, RunResult& res) {
  res.console = semihosting.console();
  res.console_bytes = semihosting.console_log().bytes();
  res.console_seen = semihosting.console_log().seen();
  res.console_stdout = semihosting.out();
  res.console_stderr = semihosting.err();
}

std::vector<std::vector<uint8_t>> Capture(const MemoryMap& map, const std::vector<MemoryCapture>& captures) {
  std::vector<std::vector<uint8_t>> out;
  for (const MemoryCapture& c : captures) {
    std::vector<uint8_t> bytes;
    if (c.size > 0 && map.FindRange(c.address, c.size) >= 0) {  // else empty: not inside one region
      bytes.resize(c.size);
      map.Read(c.address, bytes);
    }
    out.push_back(std::move(bytes));
  }
  return out;
}

bool KeepFault(RunResult& res, const Fault& f) {
  if (res.faults.size() < RunResult::kFaultsKept) {
    res.faults.push_back(f);
    return true;
  }
  if (res.faults.size() == RunResult::kFaultsKept) res.faults.emplace_back();
  ++res.faults_not_kept;
  res.faults.back() = f;
  return false;
}

void NameLatestRoad(RunResult& res, std::vector<RoadBlock> road) {
  if (res.faults_not_kept == 0) return;
  Fault& latest = res.faults.back();
  latest.road = std::move(road);
  if (res.fault && res.fault->instructions == latest.instructions && res.fault->pc == latest.pc) {
    res.fault->road = latest.road;
  }
}

void RecordSemihostingProblem(std::vector<Event>& events, const SemihostingResult& r, uint32_t pc) {
  if (r.problem.empty()) return;
  auto same = std::find_if(events.begin(), events.end(),
                           [&](const Event& e) { return e.kind == "semihosting-unterminated" && e.first_pc == pc; });
  if (same != events.end()) {
    ++same->count;
    return;
  }
  events.push_back({.kind = "semihosting-unterminated",
                    .where = "SYS_WRITE0",
                    .first_address = r.problem_address,
                    .first_pc = pc,
                    .pc_precise = true,
                    .count = 1,
                    .message = r.problem});
}

}  // namespace faultline::machine
