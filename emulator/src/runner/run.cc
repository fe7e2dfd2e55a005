// Board + image -> a run: load as a programmer or debugger would, reset from the
// vector table, run the core, and turn each stop into an outcome.
#include "faultline/run.h"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>
#include <set>

#include "../arm/mve/mve.h"
#include "../bus/uart.h"
#include "../cpu/core.h"
#include "../cpu/thumb.h"
#include "../cpu/unicorn_build.h"
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
void ApplyHostActions(const std::vector<HostAction>& actions, MemoryMap& map, cpu::Core* core,
                      uint32_t* pc, std::vector<Event>* events = nullptr) {
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

struct SessionInput {
  const Board& board;
  const Image& image;
  const RunOptions& options;
  LoadMode mode;
  std::vector<uint32_t> wall_clock;             // SYS_TIME answers to replay
  std::vector<uint64_t> traces;                 // replay: trace these blocks
  uint64_t max_instructions;
  bool allow_trace_requests = true;             // may stop to ask for a replay
  // RunOptions::timeout_seconds from the start of Run: one budget for every replay.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  // RunOptions::console_stream, passed the console's text once over every replay; and
  // whether this session is the first (it calls RunOptions::on_loaded).
  ConsoleLog::Stream console_stream;
  bool announce = true;
  // RunOptions::trace_blocks, with the first block's index in the run (a replay repeats
  // the blocks before where the run it replays stopped).
  std::function<void(uint64_t first, const TracedBlock* blocks, size_t n)> trace_blocks;
};

struct SessionOutput {
  RunResult result;
  std::optional<uint64_t> need_trace;  // an imprecise data fault in this untraced block
  std::vector<uint32_t> wall_clock;
};

// A replay re-runs the session from reset for each distinct block with an imprecise
// data fault, up to this many.
constexpr int kMaxReplays = 8;

// The core's road with the image's names.
std::vector<RoadBlock> Named(const std::vector<cpu::Core::RoadBlock>& blocks, const Image& image) {
  std::vector<RoadBlock> road;
  for (const cpu::Core::RoadBlock& b : blocks) {
    road.push_back({b.address, b.instructions, image.symbols.Lookup(b.address),
                    b.entered != 0 ? cpu::ExceptionName(b.entered) : "", b.returned});
  }
  return road;
}

Fault::StackedFrame ToReport(const cpu::StackFrame& f) {
  return {f.r0, f.r1, f.r2, f.r3, f.r12, f.lr, f.pc, f.xpsr};
}

// Entering exception `n` (its vector at `vector_at`) faulted: which step, from the bits
// the entry set. The vector read first, since it is what a bad VTOR or a short table
// breaks, and it is the vector, not a priority, that the report must name.
Fault EntryFault(uint32_t n, uint32_t vector_at, const cpu::Core::Taken& t) {
  Fault f;
  const std::string name = cpu::ExceptionName(n);
  if (t.hfsr & cpu::hfsr::kVecttbl) {
    f.kind = "HardFault";
    f.detail = fmt::format("the vector of {} (exception {}) could not be read at 0x{:08x} "
                           "(VTOR + 4 x {}): HFSR.VECTTBL",
                           name, n, vector_at, n);
    f.address = vector_at;
    f.access = AccessType::kRead;
    f.size = 4;
  } else if (t.cfsr & cpu::cfsr::kMstkerr) {
    f.kind = "MemManage";
    f.detail = fmt::format("stacking the frame to enter {} failed (MSTKERR): the MPU does not let the "
                           "interrupted code write its stack there",
                           name);
  } else if (t.cfsr & cpu::cfsr::kStkerr) {
    f.kind = "BusFault";
    f.detail = fmt::format("stacking the frame to enter {} failed (STKERR): the stack pointer is outside "
                           "writable memory",
                           name);
  } else {
    f.kind = "UsageFault";
    f.detail = fmt::format("the vector of {} at 0x{:08x} has no Thumb bit: INVSTATE at its handler's first "
                           "instruction",
                           name, vector_at);
  }
  return f;
}

// An MVE instruction on a Cortex-M55 board that faultline does not execute yet
// (arm/mve/decode.cc lists those it does). The fix is a scalar build of the object.
std::string MveUnsupported(std::span<const uint8_t> insn, const std::optional<SymbolRef>& sym) {
  std::optional<std::string> mnemonic = cpu::MveMnemonic(insn);
  return fmt::format("MVE (Helium) instruction {}[{}]: faultline does not execute this MVE instruction yet; "
                     "build the object that contains {} with -mcpu=cortex-m55+nomve (or add +nomve to "
                     "-march) so GCC emits scalar code",
                     mnemonic ? *mnemonic + " " : "", cpu::EncodingHex(insn),
                     sym ? sym->name : "this code");
}

// Why code at `at` (in memory holding its reset contents) was expected there: the image
// section that runs there from a load image elsewhere, which only a copy at startup puts
// in place; "" when no section covers it.
std::string CopiedThereOnly(const MemoryMap& map, const Image& image, uint64_t at) {
  for (const Segment& seg : image.segments) {
    if (seg.load_address == seg.run_address) continue;
    for (const Section& sec : image.sections) {
      if (at < sec.address || at >= sec.address + sec.size || sec.nobits) continue;
      if (std::find(seg.sections.begin(), seg.sections.end(), sec.name) == seg.sections.end()) continue;
      const uint64_t load = seg.load_address + (sec.address - seg.run_address);
      const int r = map.Find(load);
      auto sym = image.symbols.Lookup(at);
      return fmt::format("{}'s code is only placed there by the copy table ({} runs at 0x{:08x}, its load "
                         "image is at 0x{:08x}{}), and no copy has put it there",
                         sym ? sym->name : sec.name, sec.name, sec.address, load,
                         r >= 0 ? " in " + map.regions()[size_t(r)].name : "");
    }
  }
  return "";
}

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

// A run that ends on its budget while the firmware keeps reading one register nobody
// declared (it reads 0 here) is, as a rule, a loop waiting for a ready bit. It counts as
// polling when that register was read at least kPollMinReads times and its latest read
// came within a few of its own read intervals of the stop: a bounded timeout loop that
// gave up earlier, or one that exits, does not qualify.
constexpr uint64_t kPollMinReads = 16;
constexpr uint64_t kPollSlack = 64;  // instructions, for a loop whose reads come close together

std::optional<Event> PollingEvent(const cpu::Core& core, const MemoryMap& map, const Image& image) {
  const cpu::Core::UnmodelledRead* latest = nullptr;
  uint64_t word = 0;
  for (const auto& [w, u] : core.unmodelled_reads()) {
    if (latest == nullptr || u.last_time > latest->last_time) {
      latest = &u;
      word = w;
    }
  }
  if (latest == nullptr || latest->count < kPollMinReads) return std::nullopt;
  const uint64_t since = core.time() - latest->last_time;
  if (since > std::max(4 * latest->gap, kPollSlack)) return std::nullopt;
  const Peripheral& per = map.peripherals()[latest->peripheral];
  const uint64_t offset = word - per.base;
  const std::string what =
      per.unimplemented
          ? fmt::format("0x{:08x} in {} (offset 0x{:x}), an unimplemented window", word, per.name, offset)
          : fmt::format("0x{:08x}, {} offset 0x{:x}, a register {} does not declare", word, per.name, offset,
                        per.name);
  Event e;
  e.kind = "unmodelled-register-poll";
  e.where = fmt::format("{}@0x{:08x}", per.name, word);
  e.first_address = word;
  e.first_pc = latest->pc;
  e.first_pc_symbol = image.symbols.Lookup(latest->pc);
  e.pc_precise = latest->pc_precise;
  e.count = latest->count;
  e.message = fmt::format(
      "the run ended while the firmware was polling {}: it reads 0 here, so a loop waiting for a bit "
      "there never ends (read {} times, the last {} instructions before the stop). Fix: declare the "
      "register in the board file with its fields and a ready rule, `rules: [{{field: RDY, reads: 1, "
      "when: \"...\"}}]` (docs/boards.md, \"A loop polling a register nobody declared\"); or correct "
      "the address the firmware polls",
      what, latest->count, since);
  return e;
}

SessionOutput RunSession(const SessionInput& in) {
  SessionOutput out;
  RunResult& res = out.result;
  res.board = in.board.name;
  res.firmware = in.image.path.string();
  res.load_mode = in.mode;

  MemoryMap map(in.board);
  std::vector<Event> host_events;  // from host actions and semihosting, for the report
  std::vector<cpu::Core::RoadBlock> latest_road;  // of the latest fault not kept (chain, below)
  res.loaded = LoadImage(in.board, map, in.image, in.mode);
  LoadHostFiles(map, in.options.loads);
  CheckHostActions(map, in.options.before_reset);
  for (const Breakpoint& b : in.options.breakpoints) CheckHostActions(map, b.actions);
  ApplyHostActions(OfKind(in.options.before_reset, HostAction::Kind::kMemory), map, nullptr,
                   nullptr);
  // Before the core maps memory, so that gates they open are mapped open.
  ApplyHostActions(OfKind(in.options.before_reset, HostAction::Kind::kField), map, nullptr, nullptr);

  for (const UartInput& input : in.options.uart_input) map.FindUart(input.uart)->GiveInput(input.text);
  for (const auto& port : map.uarts()) port->KeepLast(in.options.console_keep);

  const uint64_t vtor = in.options.boot_address.value_or(in.board.boot.vector_table);
  if (in.options.boot_address && map.FindRange(vtor, 8) < 0) {
    throw InputError(in.options.boot_source.empty() ? "boot address" : in.options.boot_source,
                     fmt::format("boot address 0x{:08x} is not in any memory of board '{}'", vtor, in.board.name),
                     "give the address of the image's vector table (e.g. its MRAM slot)");
  }
  res.vector_table = vtor;
  res.boot_source = in.options.boot_address ? in.options.boot_source : "";
  cpu::Core core(in.board.cpu, map, uint32_t(vtor));
  core.scs().SetInterruptLines(in.board.cpu_options.nvic_irqs);
  core.scs().SetMpuRegions(in.board.cpu_options.mpu_regions);
  core.scs().SetSauRegions(in.board.cpu_options.sau_regions);
  for (uint64_t block : in.traces) core.TraceRange(block, block + kTraceWindow);
  uint64_t blocks = 0;  // executed so far, for trace_blocks
  if (in.trace_blocks) {
    core.TraceBlocks([&](const TracedBlock* b, size_t n) {
      in.trace_blocks(blocks, b, n);
      blocks += n;
    });
  }
  std::set<uint64_t> break_addresses;  // one hook per address, however many breakpoints
  for (const Breakpoint& b : in.options.breakpoints) {
    if (break_addresses.insert(b.address).second) core.BreakAt(b.address);
  }
  if (in.options.armv81m_by_host) core.SetArmv81Mode(cpu::Core::Armv81Mode::kEmulate);
  for (const Segment& seg : in.image.segments) {
    if (seg.executable) core.TrapUndecodedArmv81(seg.run_address, seg.bytes);
  }

  // Reset (Armv7-M ARM §B1.5.5 TakeReset): SP_main from word 0 of the vector table, PC
  // from word 1, whose bit 0 must be 1 (Thumb).
  const uint32_t initial_sp = map.Read32(vtor);
  const uint32_t reset_vector = map.Read32(vtor + 4);
  Semihosting semihosting(map, ComputeHeapInfo(map, in.image, initial_sp), in.options.clock_hz,
                          in.wall_clock);
  semihosting.SetConsole(in.options.console_keep, in.console_stream, in.options.console_watch);
  if (in.announce && in.options.on_loaded) in.options.on_loaded(res);
  auto finish = [&] {
    res.registers = core.ReadAll();
    res.instructions = core.instructions();
    res.armv81m_sites_translated = core.armv81_stats().sites_translated;
    res.armv81m_sites_rewritten = core.armv81_stats().sites_rewritten;
    res.armv81m_host_executions = core.armv81_stats().executed_by_host;
    res.armv81m_loops_relocated = core.armv81_stats().loops_relocated;
    res.armv81m_sites_untrapped = core.armv81_stats().sites_untrapped;
    res.mve_instructions = core.mve_instructions();
    res.console = semihosting.console();
    res.console_bytes = semihosting.console_log().bytes();
    res.console_seen = semihosting.console_log().seen();
    res.console_stdout = semihosting.out();
    res.console_stderr = semihosting.err();
    res.pc_symbol = in.image.symbols.Lookup(res.registers.pc);
    res.road = Named(core.Road(), in.image);
    if (res.faults_not_kept > 0) {
      Fault& latest = res.faults.back();
      latest.road = Named(latest_road, in.image);
      if (res.fault && res.fault->instructions == latest.instructions && res.fault->pc == latest.pc) {
        res.fault->road = latest.road;
      }
    }
    res.events = core.events();
    res.events.insert(res.events.end(), host_events.begin(), host_events.end());
    for (Event& e : res.events) e.first_pc_symbol = in.image.symbols.Lookup(e.first_pc);
    if (res.outcome == Outcome::kLimit && res.stop_detail.rfind("reached stop_at", 0) != 0) {
      if (auto poll = PollingEvent(core, map, in.image)) res.events.push_back(std::move(*poll));
    }
    res.register_writes = core.register_writes();
    for (const auto& port : map.uarts()) {
      res.uart.push_back({port->name(), ToString(port->model()), port->transmitted(), port->transmitted_bytes()});
    }
    out.wall_clock = semihosting.wall_clock();
    for (const auto& [address, u] : core.scs().unmodelled()) {
      res.events.push_back(
          {.kind = "scs-unmodelled",
           .where = fmt::format("SCS 0x{:08x}", address),
           .first_address = address,
           .first_pc = u.first_pc,
           .first_pc_symbol = in.image.symbols.Lookup(u.first_pc),
           .count = u.count,
           .message = fmt::format("the firmware {} 0x{:08x}, a System Control Space register "
                                  "faultline does not model: reads give 0, writes are ignored "
                                  "(pc is its basic block's start)",
                                  u.write ? "wrote" : "read", address)});
    }
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

  // Every fault goes into the chain (RunResult::faults) as it is raised: the first
  // kFaultsKept, then only the latest, whose road is named when the run ends (a storm of
  // faults must not cost a road each).
  auto chain = [&](Fault& f) {
    f.instructions = core.instructions();
    if (res.faults.size() < RunResult::kFaultsKept) {
      f.road = Named(core.Road(), in.image);
      res.faults.push_back(f);
      return;
    }
    if (res.faults.size() == RunResult::kFaultsKept) res.faults.emplace_back();
    ++res.faults_not_kept;
    res.faults.back() = f;
    latest_road = core.Road();
  };

  // A blank vector table (erased 0xFFFFFFFF or zero): the reset vector's fetch faults,
  // HardFault's vector is blank too, and the core locks up before its first instruction.
  const bool blank = (initial_sp == 0xFFFFFFFF && reset_vector == 0xFFFFFFFF) ||
                     (initial_sp == 0 && reset_vector == 0);
  if (blank) {
    res.outcome = Outcome::kLockup;
    Fault f;
    f.kind = "HardFault";
    f.detail = fmt::format("the vector table at 0x{:08x} is blank (SP and reset vector read 0x{:08x}): "
                           "nothing was programmed at the boot address, so the core locks up at reset",
                           vtor, reset_vector);
    f.address = vtor + 4;
    f.access = AccessType::kRead;
    f.size = 4;
    FillLocation(map, in.image, vtor + 4, f);
    chain(f);
    res.fault = f;
    return finish();
  }
  core.Write(Reg::kMsp, initial_sp);
  core.Write(Reg::kSp, initial_sp);

  uint32_t pc = reset_vector & ~1u;

  // Whether `at` is code in memory that still holds its reset contents: recorded once for
  // the report. Asked only when the run stops for a fault (and at reset), never per access;
  // the 1 KiB page around it is compared with the region's reset pattern.
  auto unwritten = [&](uint64_t at) -> std::optional<std::string> {
    const int w = map.Find(at);
    if (w < 0) return std::nullopt;
    const Region& r = map.regions()[size_t(w)];
    const uint64_t page = std::max<uint64_t>(at & ~uint64_t{0x3FF}, r.base);
    if (!map.HoldsResetContents(page, std::min<uint64_t>(page + 0x400, r.end()) - page)) return std::nullopt;
    auto sym = in.image.symbols.Lookup(at);
    std::string where = fmt::format("{} at 0x{:08x}{}", r.name, at, sym ? " (" + sym->ToString() + ")" : "");
    if (res.unwritten_code.empty()) res.unwritten_code = where;
    return where;
  };
  unwritten(pc);  // the reset handler itself (linked where only the copy table puts it)
  // What executing reset contents at `at` means, for the report: said instead of what the
  // core makes of the bytes, which are not the firmware's code.
  auto uninitialised = [&](uint64_t at) -> std::optional<std::string> {
    if (!unwritten(at)) return std::nullopt;
    const Region& r = map.regions()[size_t(map.Find(at))];
    auto sym = in.image.symbols.Lookup(at);
    std::string why = CopiedThereOnly(map, in.image, at);
    return fmt::format("executing uninitialised {} at 0x{:08x}{}: {}", r.name, at,
                       sym ? " <" + sym->ToString() + ">" : "",
                       why.empty() ? "it holds its reset contents (never loaded, never written by the firmware)" : why);
  };

  // --- Exception model (issue 3) ---
  // The first fault the firmware's handler was entered for: reported if the run then
  // ends in a handler that spins.
  std::optional<Fault> first_fault;
  bool lockup = false;
  auto record_taken = [&](Fault& f, const cpu::Core::Taken& t) {
    f.exception = cpu::ExceptionName(t.exception);
    f.escalated = t.escalated;
    f.cfsr = t.cfsr;
    f.hfsr = t.hfsr;
    f.bfar = t.bfar;
    f.mmfar = t.mmfar;
    if (t.frame) f.stacked_frame = ToReport(*t.frame);
    if (t.lockup) {
      lockup = true;
      res.outcome = Outcome::kLockup;
      f.detail += fmt::format("; taken as {} while the core runs at priority {}: lockup",
                              f.exception, core.ExecutionPriority());
    } else if (auto where = uninitialised(t.handler)) {
      f.handler_unwritten = *where;
    }
    chain(f);
    if (t.lockup) res.fault = f;
  };
  // Takes a synchronous fault as silicon would; false when the run ends here (the
  // option --stop-at-fault, or lockup), with res.fault set.
  // `pc`: the faulting instruction, when the stacked PC is past it (an imprecise fault).
  auto vector_fault = [&](Fault f, cpu::Core::FaultRequest req,
                          std::optional<uint32_t> faulting_pc = std::nullopt) -> bool {
    Registers before = core.ReadAll();
    before.pc = faulting_pc.value_or(req.return_address);
    f.registers = before;
    if (in.options.stop_at_fault) {
      res.outcome = Outcome::kFault;
      chain(f);
      res.fault = f;
      return false;
    }
    cpu::Core::Taken t = core.TakeFault(req);
    if (!t.lockup) core.MarkRoad(t.exception);
    record_taken(f, t);
    if (lockup) return false;
    if (!first_fault) first_fault = f;
    pc = t.handler;
    return true;
  };
  // Peripherals' interrupt lines into the NVIC, brought up to the core's time: timers
  // count, and each line's level reaches the NVIC (a rising one pends its interrupt).
  auto sync_irqs = [&] {
    map.AdvanceTo(core.time());
    for (uint32_t n : map.irq_numbers()) core.scs().SetIrqLevel(n, map.IrqLevel(n));
  };
  // When SysTick or a peripheral next raises an interrupt by itself, or UINT64_MAX.
  auto next_event = [&] { return std::min(core.scs().NextTickAt().value_or(UINT64_MAX), map.NextEventAt()); };
  // The core sleeps (WFI, or `b .` waiting for an interrupt) until SysTick or a
  // peripheral's interrupt wakes it; false if nothing ever will. `must_preempt`: only an
  // exception that can be taken ends the wait (a spin), not any pending one (WFI).
  auto sleep_until_wake = [&](bool must_preempt) -> bool {
    cpu::Scs& scs = core.scs();
    auto can_take = [&] { return scs.PendingToTake(core.ExecutionPriority()).has_value(); };
    sync_irqs();
    if (must_preempt ? can_take() : scs.AnythingPending()) return true;
    const uint64_t tick = scs.NextTickAt().value_or(UINT64_MAX);
    const uint64_t peripheral = map.NextEventAt();
    const bool tick_wakes =
        tick != UINT64_MAX && (!must_preempt || cpu::Preempts(cpu::GroupPriority(scs.Priority(cpu::kSysTick), scs.prigroup()),
                                                              core.ExecutionPriority()));
    // A peripheral's interrupt wakes a spin only if it could be taken; whether it can is
    // known once it is pending, so sleep to it and look again (the runner's loop).
    if (!tick_wakes && peripheral == UINT64_MAX) return false;
    const uint64_t next = std::min(tick_wakes ? tick : UINT64_MAX, peripheral);
    if (next > core.time()) core.Idle(next - core.time());
    scs.AdvanceTo(core.time());
    sync_irqs();
    return true;
  };

  ApplyHostActions(OfKind(in.options.before_reset, HostAction::Kind::kRegister), map, &core, &pc, &host_events);

  auto timed_out = [&] {
    res.outcome = Outcome::kLimit;
    res.stop_detail = fmt::format("wall-clock timeout of {} s reached", in.options.timeout_seconds);
    res.budget = RunResult::Budget{"wall-clock", in.options.timeout_seconds, in.options.timeout_setting};
    return finish();
  };
  // A reset vector without the Thumb bit: the core starts with EPSR.T clear, so its first
  // instruction is an INVSTATE UsageFault, escalated to HardFault (Armv7-M ARM §B1.5.5
  // TakeReset; QEMU 7.2 takes it so and enters the HardFault handler).
  if ((reset_vector & 1u) == 0) {
    Fault f;
    f.kind = "UsageFault";
    f.detail = fmt::format("reset vector 0x{:08x} (word 1 of the vector table at 0x{:08x}) has no Thumb "
                           "bit: the core starts outside Thumb state and its first instruction is INVSTATE",
                           reset_vector, vtor);
    f.pc = pc;
    f.instruction = core.InstructionAt(pc);
    f.pc_symbol = in.image.symbols.Lookup(pc);
    res.outcome = Outcome::kFault;
    if (!vector_fault(f, {.exception = cpu::kUsageFault, .cfsr_bits = cpu::cfsr::kInvstate, .return_address = pc})) {
      return finish();
    }
  }
  for (;;) {
    // Every engine stop comes back here, and the clock is read at each (a read costs far
    // less than the stop): the timeout holds however often the firmware stops the engine,
    // a handler returning to its faulting load, an exception storm, WFE or semihosting in
    // a loop. Between stops the core reads it every 2^20 instructions.
    if (in.deadline && std::chrono::steady_clock::now() >= *in.deadline) {
      core.Write(Reg::kPc, pc | 1u);  // where the firmware would go on
      return timed_out();
    }
    {
      cpu::Scs& scs = core.scs();
      scs.AdvanceTo(core.time());
      sync_irqs();
      if (scs.reset_requested()) {  // AIRCR.SYSRESETREQ: a warm reset, memory kept
        core.ResetRegisters(initial_sp);
        pc = reset_vector & ~1u;
      }
      if (auto n = scs.PendingToTake(core.ExecutionPriority())) {
        const uint32_t vector_at = scs.vtor() + 4 * *n;
        cpu::Core::Taken t = core.TakeException(*n, pc);
        if (!t.lockup) core.MarkRoad(t.exception);
        if (t.fault) {  // entering it faulted: reported as any fault is
          Fault f = EntryFault(*n, vector_at, t);
          f.pc = pc;
          f.instruction = core.InstructionAt(pc);
          f.pc_symbol = in.image.symbols.Lookup(pc);
          if (f.access) FillLocation(map, in.image, f.address, f);
          record_taken(f, t);
          if (lockup) return finish();
          if (!first_fault) first_fault = f;
        }
        pc = t.handler;
      }
      core.SetNextEvent(next_event(), scs.AnythingPending());
    }
    cpu::Limits limits{.max_instructions = in.max_instructions, .deadline = in.deadline};
    core.SyncMpu();  // after any exception entry or return above: the privilege it runs at
    Stop s = core.Run(pc, limits);
    auto fault = [&](std::string kind, std::string detail) {
      unwritten(s.pc);
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
      if (auto where = uninitialised(s.pc)) what = *where + "; the core cannot execute what is there";
      res.outcome = Outcome::kUnsupported;
      auto insn = core.InstructionAt(s.pc);
      res.unsupported = Unsupported{s.pc, insn, std::move(what), in.image.symbols.Lookup(s.pc)};
    };

    // A data or fetch fault the bus or MPU refused. Unicorn 2.0.1 reports a data fault
    // at its translation block's start (unicorn.md §3): ask for a replay of the same,
    // deterministic run with a code hook on that block first, so that the handler sees
    // the faulting instruction as its stacked PC. False when the session ends here.
    auto take_data_fault = [&](Fault& f, cpu::Core::FaultRequest req) -> bool {
      bool traced = false;
      for (uint64_t b : in.traces) traced = traced || (s.pc >= b && s.pc < b + kTraceWindow);
      if (s.imprecise_pc && !traced && in.allow_trace_requests) out.need_trace = s.pc;
      if (!out.need_trace && vector_fault(f, req, s.pc)) return true;
      res.fault = res.fault ? res.fault : f;
      finish();
      out.result.registers.pc = s.pc;
      out.result.pc_symbol = f.pc_symbol;
      return false;
    };
    switch (s.kind) {
      case Stop::Kind::kBreakpoint: {
        if (s.imm != kSemihostingBkpt) {
          Fault f = fault("HardFault", fmt::format("BKPT #0x{:02x} with no debugger attached "
                                                   "escalates to HardFault (HFSR.DEBUGEVT)",
                                                   s.imm));
          if (vector_fault(f, {.exception = cpu::kHardFault, .hfsr_bits = cpu::hfsr::kDebugevt,
                               .return_address = s.pc})) {
            continue;
          }
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
        if (!r.problem.empty()) {
          auto same = std::find_if(host_events.begin(), host_events.end(), [&](const Event& e) {
            return e.kind == "semihosting-unterminated" && e.first_pc == s.pc;
          });
          if (same != host_events.end()) {
            ++same->count;
          } else {
            host_events.push_back({.kind = "semihosting-unterminated",
                                   .where = "SYS_WRITE0",
                                   .first_address = r.problem_address,
                                   .first_pc = s.pc,
                                   .pc_precise = true,
                                   .count = 1,
                                   .message = r.problem});
          }
        }
        core.Write(Reg::kR0, r.r0);
        pc = s.pc + 2;
        continue;
      }
      case Stop::Kind::kMemoryFault: {
        const Region* region = nullptr;
        if (int r = map.Find(s.address); r >= 0) region = &map.regions()[r];
        // The board's own permissions allow it, so the page protection that refused it
        // is the MPU's: MemManage (Armv7-M ARM §B3.5.x), not a bus error.
        const bool board_allows = region != nullptr && map.Enabled(map.Find(s.address)) &&
                                  (s.access == AccessType::kWrite   ? region->access.write
                                   : s.access == AccessType::kFetch ? region->access.execute
                                                                    : region->access.read);
        if (s.permission && board_allows && core.scs().mpu_enabled()) {
          bool fetch = s.access == AccessType::kFetch;
          const char* who = core.Unprivileged() ? "unprivileged " : "";
          Fault f = fault("MemManage", fetch ? fmt::format("{}instruction fetch the MPU does not allow (IACCVIOL)", who)
                                             : fmt::format("{}data access the MPU does not allow (DACCVIOL, MMFAR valid)", who));
          f.access = s.access;
          f.address = s.address;
          f.size = s.size;
          FillLocation(map, in.image, s.address, f);
          if (!take_data_fault(f, {.exception = cpu::kMemManage,
                                   .cfsr_bits = fetch ? cpu::cfsr::kIaccviol : cpu::cfsr::kDaccviol | cpu::cfsr::kMmarvalid,
                                   .mmfar = fetch ? std::nullopt : std::optional<uint32_t>(uint32_t(s.address)),
                                   .return_address = s.pc})) {
            return out;
          }
          continue;
        }
        std::string why;
        int window = map.Find(s.address);
        // The Private Peripheral Bus (SCS, DWT...): privileged only, strongly ordered.
        const bool ppb = region == nullptr && s.address >= 0xE0000000u && s.address < 0xE0100000u;
        if (ppb) {
          why = "unprivileged code may not access the System Control Space (Armv7-M ARM §B3.2: privileged "
                "only, but for STIR with CCR.USERSETMPEND)";
        } else if (window >= 0 && !map.Enabled(window)) {
          size_t g = *map.GateOf(window);
          why = fmt::format("{} is disabled: its gate `{}` does not hold: {}", region->name,
                            map.gates()[g].when.text, map.ExplainClosed(g));
        } else if (region == nullptr) {
          why = "no memory answers at this address";
        } else if (s.access == AccessType::kWrite) {
          why = fmt::format("{} is not writable ({})", region->name, AccessString(region->access));
        } else if (s.access == AccessType::kFetch) {
          why = fmt::format("{} is not executable ({})", region->name, AccessString(region->access));
        } else {
          why = fmt::format("{} is not readable ({})", region->name, AccessString(region->access));
        }
        // A store the board's write buffer accepted: the bus error comes back after the
        // core has moved on, so the firmware sees IMPRECISERR without BFAR and a stacked
        // PC past the store. faultline's own record stays precise: the store, its address.
        const bool buffered = s.access == AccessType::kWrite && in.board.cpu_options.write_buffer && !ppb;
        std::string detail =
            s.access == AccessType::kFetch ? "instruction fetch bus error (IBUSERR): " + why
            : buffered ? "imprecise data bus error (IMPRECISERR, BFAR not valid: the store went "
                         "through the write buffer, so the firmware's handler sees a stacked PC "
                         "after it; the faulting instruction is the one below): " + why
                       : "precise data bus error (PRECISERR, BFAR valid): " + why;
        Fault f = fault("BusFault", detail);
        if (window >= 0 && !map.Enabled(window)) f.gate = map.gates()[*map.GateOf(window)].when.text;
        f.access = s.access;
        f.address = s.address;
        f.size = s.size;
        FillLocation(map, in.image, s.address, f);
        // Imprecise: taken at the next instruction (silicon may run a few more first; the
        // store itself never completes). Its base-register writeback, if any, is not done.
        const uint32_t store_size = uint32_t(f.instruction.empty() ? 2 : f.instruction.size());
        if (!take_data_fault(f, {.exception = cpu::kBusFault,
                                 .cfsr_bits = s.access == AccessType::kFetch ? cpu::cfsr::kIbuserr
                                              : buffered ? cpu::cfsr::kImpreciserr
                                                         : cpu::cfsr::kPreciserr | cpu::cfsr::kBfarvalid,
                                 .bfar = s.access == AccessType::kFetch || buffered
                                             ? std::nullopt
                                             : std::optional<uint32_t>(uint32_t(s.address)),
                                 .return_address = buffered ? s.pc + store_size : s.pc})) {
          return out;
        }
        continue;
      }
      case Stop::Kind::kExecuteNever: {
        const int w = map.Find(s.pc);
        const Region* xip = w >= 0 && map.regions()[size_t(w)].access.execute ? &map.regions()[size_t(w)] : nullptr;
        if (xip != nullptr && core.ExecutesInPlace(s.pc)) {  // cpu/unicorn_xip.cc is turned off
          unsupported(fmt::format(
              "execute in place from {} at 0x{:08x}: the board and the MPU make it executable, but "
              "Unicorn 2.0.1 applies the default memory map's execute-never rule to "
              "0x40000000-0x5FFFFFFF and 0xA0000000-0xFFFFFFFF and faultline's override of it is off "
              "(FAULTLINE_UNICORN_XIP=stock, or a libunicorn other than 2.0.1)",
              xip->name, s.pc));
          return finish();
        }
        std::string detail =
            "instruction fetch from execute-never space of the default memory map (IACCVIOL): "
            "0x40000000-0x5FFFFFFF and 0xA0000000-0xFFFFFFFF are XN without an MPU region";
        if (xip != nullptr) {
          detail += fmt::format(
              "; {} is executable on this board, but code runs in place there only under an enabled "
              "MPU region with XN clear (vendor startups set one up, e.g. Alif's default MPU table "
              "in mpu_M55.c): enable the MPU with such a region before calling code there",
              xip->name);
        }
        Fault f = fault("MemManage", detail);
        f.access = AccessType::kFetch;
        f.address = s.pc;
        f.size = 2;
        FillLocation(map, in.image, s.pc, f);
        if (vector_fault(f, {.exception = cpu::kMemManage, .cfsr_bits = cpu::cfsr::kIaccviol,
                             .return_address = s.pc})) {
          continue;
        }
        return finish();
      }
      case Stop::Kind::kInvalidInstruction: {
        auto insn = core.InstructionAt(s.pc);
        auto cls = cpu::Classify(insn);
        // What the core cannot decode in memory nothing has written (the reset handler
        // linked where only the copy table puts it, a call through a GOT nobody copied) is
        // not the firmware's code: say so, and stop there, since whatever the core did
        // next would be reset contents too.
        if (auto where = unwritten(s.pc)) {
          const std::string why = CopiedThereOnly(map, in.image, s.pc);
          Fault f = fault("UsageFault",
                          fmt::format("executing memory nothing has written: {} holds its reset contents (never "
                                      "loaded, never written by the firmware), here [{}], which the core cannot "
                                      "execute (UNDEFINSTR){}",
                                      *where, cpu::EncodingHex(insn), why.empty() ? "" : "; " + why));
          f.registers = core.ReadAll();
          f.registers->pc = s.pc;
          chain(f);
          res.fault = f;
          return finish();
        }
        if (cls == cpu::EncodingClass::kUdf) {
          if (vector_fault(fault("UsageFault", "undefined instruction (UNDEFINSTR)"),
                           {.exception = cpu::kUsageFault, .cfsr_bits = cpu::cfsr::kUndefinstr,
                            .return_address = s.pc})) {
            continue;
          }
          return finish();
        }
        // EPSR.T clear: a branch or vector without the Thumb bit (INVSTATE).
        if ((core.Read(Reg::kXpsr) & (1u << 24)) == 0) {
          if (vector_fault(fault("UsageFault", "execution in ARM state: a branch target or "
                                               "vector without the Thumb bit (INVSTATE)"),
                           {.exception = cpu::kUsageFault, .cfsr_bits = cpu::cfsr::kInvstate,
                            .return_address = s.pc})) {
            continue;
          }
          return finish();
        }
        // Unicorn raises NOCP for MVE in coprocessor 14/15 space but "invalid instruction"
        // for the vector data-processing space and VCTP (unicorn.md §1, §4).
        if (in.board.cpu == Cpu::kCortexM55 && cpu::IsMve(insn)) {
          unsupported(MveUnsupported(insn, in.image.symbols.Lookup(s.pc)));
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
        // An MVE instruction faultline executes stops here only when CPACR denies
        // CP10/CP11: NOCP, as for FP (core_mve.cc).
        const bool executed = core.mve() != nullptr && insn.size() == 4 &&
                              arm::mve::Decode(uint16_t(insn[0] | insn[1] << 8), uint16_t(insn[2] | insn[3] << 8));
        if (in.board.cpu == Cpu::kCortexM55 && cpu::IsMve(insn) && !executed) {
          unsupported(MveUnsupported(insn, in.image.symbols.Lookup(s.pc)));
          return finish();
        }
        if (vector_fault(fault("UsageFault", "coprocessor instruction with no coprocessor (NOCP)"),
                         {.exception = cpu::kUsageFault, .cfsr_bits = cpu::cfsr::kNocp,
                          .return_address = s.pc})) {
          continue;
        }
        return finish();
      }
      case Stop::Kind::kTrap: {
        const char* what = s.imm == cpu::cfsr::kDivbyzero ? "divide by zero with CCR.DIV_0_TRP set (DIVBYZERO)"
                           : s.imm == cpu::cfsr::kUnaligned ? "unaligned access: LDRD/STRD/LDM/STM/LDREX/STREX/VLDR/VSTR, "
                                                              "or any with CCR.UNALIGN_TRP set (UNALIGNED)"
                                                            : "FP instruction while CPACR denies CP10/CP11 (NOCP)";
        if (vector_fault(fault("UsageFault", what),
                         {.exception = cpu::kUsageFault, .cfsr_bits = s.imm, .return_address = s.pc})) {
          continue;
        }
        return finish();
      }
      case Stop::Kind::kStackLimit: {
        // Armv8-M ARM §B3.21: the instruction does not write below the limit; the core
        // takes UsageFault with UFSR.STKOF. (Silicon then stacks nothing and leaves SP at
        // the limit; faultline stacks the frame below it: docs/fidelity.md.)
        Fault f = fault("UsageFault", fmt::format("stack limit violation (STKOF): a push below the stack "
                                                  "limit (MSPLIM/PSPLIM), SP 0x{:08x}", s.address));
        f.access = AccessType::kWrite;
        f.address = s.address;
        f.size = 4;
        FillLocation(map, in.image, s.address, f);
        if (vector_fault(f, {.exception = cpu::kUsageFault, .cfsr_bits = cpu::cfsr::kStkof,
                             .return_address = s.pc})) {
          continue;
        }
        return finish();
      }
      case Stop::Kind::kSupervisorCall: {
        // SVCall; it escalates to HardFault where it cannot preempt (Armv7-M ARM §B1.5.15).
        cpu::Core::Taken t = core.TakeFault({.exception = cpu::kSvCall, .return_address = s.pc});
        if (!t.lockup) core.MarkRoad(t.exception);
        const bool stacking = t.exception != cpu::kSvCall && (t.cfsr & (cpu::cfsr::kMstkerr | cpu::cfsr::kStkerr));
        if (t.escalated || t.lockup || stacking) {
          Fault f = stacking ? fault((t.cfsr & cpu::cfsr::kMstkerr) ? "MemManage" : "BusFault",
                                     fmt::format("SVC #{}: its frame could not be stacked at SP 0x{:08x} ({})", s.imm,
                                                 core.Read(Reg::kSp),
                                                 (t.cfsr & cpu::cfsr::kMstkerr)
                                                     ? "MSTKERR: the MPU does not let the interrupted code write there"
                                                     : "STKERR: no writable memory there"))
                             : fault("HardFault", fmt::format("SVC #{} where SVCall cannot preempt: escalated "
                                                              "to HardFault (FORCED)", s.imm));
          f.pc = s.pc - 2;
          f.instruction = core.InstructionAt(f.pc);
          f.pc_symbol = in.image.symbols.Lookup(f.pc);
          record_taken(f, t);
          if (lockup) return finish();
          if (!first_fault) first_fault = f;
        }
        pc = t.handler;
        continue;
      }
      case Stop::Kind::kExceptionReturn: {
        sync_irqs();  // a handler that cleared its interrupt source in this block
        const uint32_t returning = core.ipsr();
        cpu::Core::Taken t = core.ReturnFromException(s.imm);
        if (!t.lockup) core.MarkRoad(t.fault ? t.exception : 0);
        if (t.fault) {
          // Reported as any fault is: the run ends as it if the handler then spins.
          const bool invpc = t.cfsr & cpu::cfsr::kInvpc, mpu = t.cfsr & cpu::cfsr::kMunstkerr;
          Fault f = fault(invpc ? "UsageFault" : mpu ? "MemManage" : "BusFault",
                          invpc ? fmt::format("exception return from {} with EXC_RETURN 0x{:08x}, "
                                              "which names no valid mode or stack (INVPC)",
                                              cpu::ExceptionName(returning), s.imm)
                          : mpu ? fmt::format("exception return from {} with EXC_RETURN 0x{:08x}: the MPU does "
                                              "not let the code returned to read its stacked frame (MUNSTKERR)",
                                              cpu::ExceptionName(returning), s.imm)
                                : fmt::format("exception return from {} with EXC_RETURN 0x{:08x}: its stacked "
                                              "frame is not in readable memory (UNSTKERR)",
                                              cpu::ExceptionName(returning), s.imm));
          record_taken(f, t);
          if (lockup) return finish();
          if (!first_fault) first_fault = f;
        }
        pc = t.handler;
        continue;
      }
      case Stop::Kind::kEvent:
        pc = s.pc;
        continue;
      case Stop::Kind::kOtherException:
        unsupported(fmt::format("engine exception {} at this instruction", s.imm));
        return finish();
      case Stop::Kind::kWaitForInterrupt:
        if (sleep_until_wake(false)) {
          pc = s.pc;
          continue;
        }
        res.outcome = Outcome::kHang;
        res.hang = Hang{s.pc, "WFI with no interrupt source to wake the core",
                        in.image.symbols.Lookup(s.pc)};
        return finish();
      case Stop::Kind::kHang:
        if (sleep_until_wake(true)) {  // `b .` in thread mode while SysTick runs
          pc = s.pc;
          continue;
        }
        if (first_fault && core.ipsr() != 0) {
          // The firmware's fault handler spins: the run ends as the fault it handled.
          res.outcome = Outcome::kFault;
          res.fault = first_fault;
          res.fault->handled_by_firmware = true;
          res.hang = Hang{s.pc, fmt::format("the firmware's {} handler spins (b .)",
                                            cpu::ExceptionName(core.ipsr())),
                          in.image.symbols.Lookup(s.pc)};
          return finish();
        }
        res.outcome = Outcome::kHang;
        res.hang = Hang{s.pc, "branch to itself (b .)", in.image.symbols.Lookup(s.pc)};
        return finish();
      case Stop::Kind::kLimit:
        res.outcome = Outcome::kLimit;
        res.stop_detail = fmt::format("instruction budget of {} reached", in.max_instructions);
        res.budget = RunResult::Budget{"instructions", double(in.max_instructions),
                                       in.options.max_instructions_setting};
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
          ApplyHostActions(b.actions, map, &core, &pc, &host_events);
        }
        continue;
      }
      case Stop::Kind::kTimeout:
        return timed_out();
    }
  }
}

}  // namespace

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

RunResult Run(const Board& board, const Image& image, const RunOptions& options) {
  CheckUartInput(board, options.uart_input);
  if (!ValidTimeout(options.timeout_seconds)) {
    throw InputError(options.timeout_setting,
                     fmt::format("{} is not a number of seconds from 0 to {}", options.timeout_seconds,
                                 kMaxTimeoutSeconds),
                     "give seconds (0 = no timeout)");
  }
  SessionInput in{board, image, options, options.load_mode.value_or(board.boot.load_mode), {}, {},
                  options.max_instructions};
  if (options.timeout_seconds > 0) {
    in.deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::chrono::duration<double>(options.timeout_seconds));
  }
  // Unicorn 2.0.1 reports a data fault at its translation block's start (unicorn.md §3).
  // A session that meets one in a block it does not trace stops and asks for a replay:
  // the same run, which is deterministic (SYS_TIME answers are given again), with a
  // code hook on that block too. The handler must see the precise stacked PC, so this
  // happens before the fault is taken, once per distinct faulting block.
  // A replay prints what the first run printed, up to where that run stopped: only the
  // console past what was streamed already is streamed.
  uint64_t traced = 0;  // blocks passed to trace_blocks: a replay passes only those after
  if (options.trace_blocks) {
    in.trace_blocks = [&options, &traced](uint64_t first, const TracedBlock* b, size_t n) {
      if (first + n <= traced) return;
      const size_t skip = size_t(traced > first ? traced - first : 0);
      options.trace_blocks(b + skip, n - skip);
      traced = first + n;
    };
  }
  uint64_t streamed = 0;
  if (options.console_stream) {
    in.console_stream = [&options, &streamed](uint64_t offset, std::string_view text) {
      const uint64_t end = offset + text.size();
      if (end <= streamed) return;
      options.console_stream(text.substr(size_t(streamed > offset ? streamed - offset : 0)));
      streamed = end;
    };
  }
  SessionOutput first;
  for (int replays = 0;; ++replays) {
    in.allow_trace_requests = replays < kMaxReplays;
    in.announce = replays == 0;
    first = RunSession(in);
    if (!first.need_trace) break;  // pc_precise is false if a replay still disagreed
    in.traces.push_back(*first.need_trace);
    in.wall_clock = first.wall_clock;
  }

  // Accesses the bus serves itself (a disabled region that reads as zero, a register the
  // board does not declare) see the same block-start PC. One more replay with a code
  // hook on those blocks names the instruction that made each first access.
  std::vector<uint64_t> blocks;
  for (const Event& e : first.result.events) {
    if (!e.pc_precise && e.kind != "scs-unmodelled") blocks.push_back(e.first_pc);
  }
  const bool timed_out = first.result.budget && first.result.budget->kind == "wall-clock";
  if (blocks.empty() || timed_out) return first.result;
  SessionInput replay = in;
  replay.wall_clock = first.wall_clock;
  replay.allow_trace_requests = false;
  replay.announce = false;
  for (uint64_t b : blocks) {
    if (std::find(replay.traces.begin(), replay.traces.end(), b) == replay.traces.end()) {
      replay.traces.push_back(b);
    }
  }
  SessionOutput second = RunSession(replay);
  bool same = second.result.outcome == first.result.outcome &&
              second.result.instructions == first.result.instructions &&
              second.result.events.size() == first.result.events.size();
  for (size_t i = 0; same && i < first.result.events.size(); ++i) {
    same = second.result.events[i].count == first.result.events[i].count &&
           second.result.events[i].first_address == first.result.events[i].first_address;
  }
  return same ? second.result : first.result;  // otherwise the event PCs stay approximate
}

std::string EngineFallbackNote() {
  if (cpu::KnownUnicornBuild()) return "";
  std::string id = cpu::UnicornBuildId();
  // The cost and the differences are those of FAULTLINE_UNICORN_BUILD_ID=0 against the
  // default on the bench fixtures (docs/performance.md, "Another libunicorn build").
  return fmt::format("libunicorn {} is not the build faultline's engine patches were measured against (Debian 12 "
                     "libunicorn2 2.0.1.post1-1+b1, amd64): running Unicorn's own paths, about 10x slower on "
                     "store-heavy code (1.5x on ALU-bound code); UNALIGNED, DIVBYZERO and NOCP UsageFaults are not "
                     "raised, a data fault's stacked xPSR may be its block's, and code in an XIP window stops as "
                     "unsupported",
                     id.empty() ? "without a build-id" : "build-id " + id);
}

int ExitStatus(const RunResult& r) {
  switch (r.outcome) {
    case Outcome::kExit: return r.exit_code == 0 ? 0 : 1;
    case Outcome::kFault:
    case Outcome::kLockup:
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
    case Outcome::kLockup: return "lockup";
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
