// Board + image -> a run: load as a programmer or debugger would, reset from the
// vector table, run the core, and turn each stop into an outcome.
#include "faultline/run.h"

#include <fmt/core.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <set>

#include "../cpu/core.h"
#include "../cpu/thumb.h"
#include "faultline/error.h"
#include "faultline/memory_map.h"
#include "semihosting.h"

namespace faultline {

namespace {

using cpu::Reg;
using cpu::Stop;

constexpr uint32_t kSemihostingBkpt = 0xAB;
// A replay traces this many bytes from the translation block's start: a block never
// spans more than two of Unicorn's 1 KiB pages.
constexpr uint64_t kTraceWindow = 2048;

std::string RegionLabel(const Region& r) {
  return fmt::format("{} (0x{:08x}-0x{:08x}, {}, {})", r.name, r.base, r.end() - 1,
                     ToString(r.kind), AccessString(r.access));
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : " ") + x;
  return s;
}

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

// Applies host actions in order; a write to pc changes where execution continues.
void ApplyHostActions(const std::vector<HostAction>& actions, MemoryMap& map, cpu::Core* core,
                      uint32_t* pc) {
  for (const HostAction& a : actions) {
    if (a.kind == HostAction::Kind::kMemory) {
      map.Write(a.address, a.bytes);
      if (core != nullptr && !a.bytes.empty()) {
        core->InvalidateCode(a.address, a.address + a.bytes.size());
      }
    } else if (core != nullptr) {
      if (a.reg == 15) {
        *pc = a.value & ~1u;
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

struct SessionInput {
  const Board& board;
  const Image& image;
  const RunOptions& options;
  LoadMode mode;
  std::vector<uint32_t> wall_clock;             // SYS_TIME answers to replay
  std::optional<uint64_t> trace_from;           // replay: trace this block
  uint64_t max_instructions;
};

struct SessionOutput {
  RunResult result;
  std::optional<Stop> fault_stop;   // the engine's record of a memory fault
  std::vector<uint32_t> wall_clock;
};

void FillLocation(const MemoryMap& map, const Image& image, uint64_t address, Fault& f) {
  int r = map.Find(address);
  if (r >= 0) {
    f.region = map.regions()[r].name;
  } else {
    auto [below, above] = map.Neighbours(address);
    if (below >= 0) f.region_below = map.regions()[below].name;
    if (above >= 0) f.region_above = map.regions()[above].name;
  }
  f.address_symbol = image.symbols.Lookup(address);
}

SessionOutput RunSession(const SessionInput& in) {
  SessionOutput out;
  RunResult& res = out.result;
  res.board = in.board.name;
  res.firmware = in.image.path.string();
  res.load_mode = in.mode;

  MemoryMap map(in.board);
  res.loaded = LoadImage(in.board, map, in.image, in.mode);
  LoadHostFiles(map, in.options.loads);
  CheckHostActions(map, in.options.before_reset);
  for (const Breakpoint& b : in.options.breakpoints) CheckHostActions(map, b.actions);
  ApplyHostActions(OfKind(in.options.before_reset, HostAction::Kind::kMemory), map, nullptr,
                   nullptr);

  cpu::Core core(in.board.cpu, map);
  if (in.trace_from) core.TraceRange(*in.trace_from, *in.trace_from + kTraceWindow);
  std::set<uint64_t> break_addresses;  // one hook per address, however many breakpoints
  for (const Breakpoint& b : in.options.breakpoints) {
    if (break_addresses.insert(b.address).second) core.BreakAt(b.address);
  }

  // Reset (Armv7-M ARM §B1.5.5 TakeReset): SP_main from word 0 of the vector table, PC
  // from word 1, whose bit 0 must be 1 (Thumb).
  const uint64_t vtor = in.board.boot.vector_table;
  const uint32_t initial_sp = map.Read32(vtor);
  const uint32_t reset_vector = map.Read32(vtor + 4);
  Semihosting semihosting(map, ComputeHeapInfo(map, in.image, initial_sp), in.options.clock_hz,
                          in.wall_clock);
  auto finish = [&] {
    res.registers = core.ReadAll();
    res.instructions = core.instructions();
    res.console = semihosting.console();
    res.console_stdout = semihosting.out();
    res.console_stderr = semihosting.err();
    res.pc_symbol = in.image.symbols.Lookup(res.registers.pc);
    out.wall_clock = semihosting.wall_clock();
    for (const MemoryCapture& c : in.options.captures) {
      std::vector<uint8_t> bytes;
      if (c.size > 0 && map.FindRange(c.address, c.size) >= 0) {
        bytes.resize(c.size);
        map.Read(c.address, bytes);
      }
      res.captured.push_back(std::move(bytes));
    }
    return out;
  };

  if ((reset_vector & 1) == 0) {
    res.outcome = Outcome::kFault;
    Fault f;
    f.kind = "HardFault";
    f.detail = fmt::format(
        "reset vector 0x{:08x} (word 1 of the vector table at 0x{:08x}) has no Thumb bit: "
        "INVSTATE at reset, the core locks up{}",
        reset_vector, vtor,
        reset_vector == 0xFFFFFFFF || reset_vector == 0
            ? "; the vector table is blank, so no image was programmed there"
            : "");
    f.address = vtor + 4;
    f.access = AccessType::kRead;
    f.size = 4;
    FillLocation(map, in.image, vtor + 4, f);
    res.fault = f;
    return finish();
  }
  core.Write(Reg::kMsp, initial_sp);
  core.Write(Reg::kSp, initial_sp);

  uint32_t pc = reset_vector & ~1u;
  ApplyHostActions(OfKind(in.options.before_reset, HostAction::Kind::kRegister), map, &core, &pc);

  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    cpu::Limits limits{.max_instructions = in.max_instructions};
    if (in.options.timeout_seconds > 0) {
      double used = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      limits.timeout_seconds = std::max(1e-6, in.options.timeout_seconds - used);
    }
    Stop s = core.Run(pc, limits);
    auto fault = [&](std::string kind, std::string detail) {
      Fault f;
      f.kind = std::move(kind);
      f.detail = std::move(detail);
      f.pc = s.pc;
      f.pc_precise = !s.imprecise_pc;
      f.instruction = core.InstructionAt(s.pc);
      f.pc_symbol = in.image.symbols.Lookup(s.pc);
      res.outcome = Outcome::kFault;
      return f;
    };
    auto unsupported = [&](std::string what) {
      res.outcome = Outcome::kUnsupported;
      auto insn = core.InstructionAt(s.pc);
      res.unsupported = Unsupported{s.pc, insn, std::move(what), in.image.symbols.Lookup(s.pc)};
    };

    switch (s.kind) {
      case Stop::Kind::kBreakpoint: {
        if (s.imm != kSemihostingBkpt) {
          Fault f = fault("HardFault", fmt::format("BKPT #0x{:02x} with no debugger attached "
                                                   "escalates to HardFault (HFSR.DEBUGEVT)",
                                                   s.imm));
          res.fault = f;
          return finish();
        }
        core.RetireThrough(s.pc);
        SemihostingResult r =
            semihosting.Call(core.Read(Reg::kR0), core.Read(Reg::kR1), core.instructions());
        if (r.kind == SemihostingResult::Kind::kExit) {
          res.outcome = Outcome::kExit;
          res.exit_code = r.exit_code;
          res.stop_detail = r.detail;
          return finish();
        }
        if (r.kind == SemihostingResult::Kind::kUnsupported) {
          unsupported(r.detail);
          return finish();
        }
        core.Write(Reg::kR0, r.r0);
        pc = s.pc + 2;
        continue;
      }
      case Stop::Kind::kMemoryFault: {
        const Region* region = nullptr;
        if (int r = map.Find(s.address); r >= 0) region = &map.regions()[r];
        std::string why;
        if (region == nullptr) {
          why = "no memory answers at this address";
        } else if (s.access == AccessType::kWrite) {
          why = fmt::format("{} is not writable ({})", region->name, AccessString(region->access));
        } else if (s.access == AccessType::kFetch) {
          why = fmt::format("{} is not executable ({})", region->name, AccessString(region->access));
        } else {
          why = fmt::format("{} is not readable ({})", region->name, AccessString(region->access));
        }
        std::string detail =
            s.access == AccessType::kFetch
                ? "instruction fetch bus error (IBUSERR): " + why
                : "precise data bus error (PRECISERR, BFAR valid): " + why;
        Fault f = fault("BusFault", detail);
        f.access = s.access;
        f.address = s.address;
        f.size = s.size;
        FillLocation(map, in.image, s.address, f);
        res.fault = f;
        out.fault_stop = s;
        finish();
        out.result.registers.pc = s.pc;
        out.result.pc_symbol = f.pc_symbol;
        return out;
      }
      case Stop::Kind::kExecuteNever: {
        Fault f = fault("MemManage",
                        "instruction fetch from execute-never space of the default memory map "
                        "(IACCVIOL): 0x40000000-0x5FFFFFFF and 0xA0000000-0xFFFFFFFF are XN "
                        "without an MPU region");
        f.access = AccessType::kFetch;
        f.address = s.pc;
        f.size = 2;
        FillLocation(map, in.image, s.pc, f);
        res.fault = f;
        return finish();
      }
      case Stop::Kind::kInvalidInstruction: {
        auto insn = core.InstructionAt(s.pc);
        auto cls = cpu::Classify(insn);
        if (cls == cpu::EncodingClass::kUdf) {
          res.fault = fault("UsageFault", "undefined instruction (UNDEFINSTR)");
          return finish();
        }
        // WFE/YIELD stop the engine with the PC after them; they are hints, so resume.
        if (cls == cpu::EncodingClass::kOther && s.pc >= 2) {
          auto prev = core.InstructionAt(s.pc - 2);
          if (cpu::IsWaitHint(prev) && prev.size() == 2) {
            pc = s.pc;
            continue;
          }
          if (s.pc >= 4) {
            auto prev4 = core.InstructionAt(s.pc - 4);
            if (cpu::IsWaitHint(prev4) && prev4.size() == 4) {
              pc = s.pc;
              continue;
            }
          }
        }
        unsupported(fmt::format("{} [{}]: the {} model of Unicorn 2.0.1 cannot execute it",
                                cpu::Describe(cls), cpu::EncodingHex(insn),
                                in.board.cpu == Cpu::kCortexM55 ? "Armv8-M mainline (Cortex-M33)"
                                                                : ToString(in.board.cpu)));
        return finish();
      }
      case Stop::Kind::kCoprocessor: {
        auto insn = core.InstructionAt(s.pc);
        if (in.board.cpu == Cpu::kCortexM55) {
          unsupported(fmt::format("{} [{}]: MVE (Helium) is Armv8.1-M; Unicorn 2.0.1 runs this "
                                  "board on the Armv8-M mainline model",
                                  cpu::Describe(cpu::Classify(insn)), cpu::EncodingHex(insn)));
        } else {
          res.fault = fault("UsageFault", "coprocessor instruction with no coprocessor (NOCP)");
        }
        return finish();
      }
      case Stop::Kind::kSupervisorCall:
        unsupported(fmt::format("SVC #{}: taking exceptions is not modelled yet (issue 3)", s.imm));
        return finish();
      case Stop::Kind::kOtherException:
        unsupported(fmt::format("engine exception {} at this instruction", s.imm));
        return finish();
      case Stop::Kind::kWaitForInterrupt:
        res.outcome = Outcome::kHang;
        res.hang = Hang{s.pc, "WFI with no interrupt source to wake the core",
                        in.image.symbols.Lookup(s.pc)};
        return finish();
      case Stop::Kind::kHang:
        res.outcome = Outcome::kHang;
        res.hang = Hang{s.pc, "branch to itself (b .)", in.image.symbols.Lookup(s.pc)};
        return finish();
      case Stop::Kind::kLimit:
        res.outcome = Outcome::kLimit;
        res.stop_detail = fmt::format("instruction budget of {} reached", in.max_instructions);
        return finish();
      case Stop::Kind::kHostBreakpoint: {
        pc = s.pc;
        for (const Breakpoint& b : in.options.breakpoints) {
          if (b.address != s.pc) continue;
          if (b.stop) {
            res.outcome = Outcome::kLimit;
            res.stop_detail = "reached stop_at " + b.label;
            return finish();
          }
          ApplyHostActions(b.actions, map, &core, &pc);
        }
        continue;
      }
      case Stop::Kind::kTimeout:
        res.outcome = Outcome::kLimit;
        res.stop_detail = fmt::format("wall-clock timeout of {} s reached", in.options.timeout_seconds);
        return finish();
    }
  }
}

}  // namespace

RunResult Run(const Board& board, const Image& image, const RunOptions& options) {
  SessionInput in{board, image, options, options.load_mode.value_or(board.boot.load_mode), {}, {},
                  options.max_instructions};
  SessionOutput first = RunSession(in);
  if (!first.fault_stop || !first.fault_stop->imprecise_pc) return first.result;

  // Unicorn 2.0.1 reports a data fault at its translation block's start (unicorn.md §3).
  // Replay the same run, which is deterministic, with a code hook on that block only:
  // the last instruction the hook saw before the fault is the faulting one.
  SessionInput replay = in;
  replay.wall_clock = first.wall_clock;
  replay.trace_from = first.fault_stop->pc;
  replay.max_instructions = first.result.instructions + kTraceWindow;
  SessionOutput second = RunSession(replay);
  const auto& a = *first.fault_stop;
  if (second.fault_stop && !second.fault_stop->imprecise_pc &&
      second.fault_stop->address == a.address && second.fault_stop->access == a.access) {
    return second.result;
  }
  return first.result;  // pc_precise stays false
}

int ExitStatus(const RunResult& r) {
  switch (r.outcome) {
    case Outcome::kExit: return r.exit_code == 0 ? 0 : 1;
    case Outcome::kFault:
    case Outcome::kUnsupported: return 3;
    case Outcome::kHang:
    case Outcome::kLimit: return 4;
  }
  return 3;
}

std::string ToString(Outcome o) {
  switch (o) {
    case Outcome::kExit: return "exit";
    case Outcome::kFault: return "fault";
    case Outcome::kHang: return "hang";
    case Outcome::kLimit: return "limit";
    case Outcome::kUnsupported: return "unsupported";
  }
  return "?";
}

std::string ToString(AccessType t) {
  switch (t) {
    case AccessType::kRead: return "read";
    case AccessType::kWrite: return "write";
    case AccessType::kFetch: return "fetch";
  }
  return "?";
}

}  // namespace faultline
