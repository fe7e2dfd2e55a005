// Board + image -> a run: a machine (machine/) run to its outcome, replayed from reset
// where Unicorn's block-granular fault PCs need a precise one.
#include "faultline/run.h"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>

#include "../engine/unicorn_build.h"
#include "machine.h"
#include "faultline/debug.h"
#include "faultline/error.h"

namespace faultline {

namespace {

using machine::MachineInput;
using machine::MachineOutput;

// A replay re-runs the machine from reset for each distinct block with an imprecise
// data fault, up to this many.
constexpr int kMaxReplays = 8;

MachineOutput RunMachine(const MachineInput& in) {
  std::unique_ptr<machine::Machine> m = machine::MakeMachine(in);
  m->Run();
  return m->TakeOutput();
}

}  // namespace

// An Arm ELF's build attributes against the board's core (issue 39 item 3): a build for
// a newer architecture, another profile, MVE or the hard-float ABI on a core without them
// runs until its first such instruction and then reads as faultline's limit. Which
// Tag_CPU_arch values each core executes: v6-M on all; v7-M (10 with profile M) from the
// M3; v7E-M (the DSP extension) on the M4, M7, M33 and M55; v8-M on the M33 and M55;
// v8.1-M on the M55 (Armv8.1-M ARM §A1; the cores' TRMs).
void RequireArmBuildFitsCore(const Board& board, const Image& image) {
  if (!image.arm_attributes) return;
  const ArmAttributes& a = *image.arm_attributes;
  const std::string where = image.path.string();
  const std::string core = ToString(board.cpu);
  // Tag_CPU_name is the -mcpu ("cortex-m55") or, with -march, the architecture again ("7E-M").
  const bool named = !a.cpu_name.empty() && "v" + a.cpu_name != ArmArchName(a.cpu_arch);
  const std::string built = fmt::format("built for {}{}", named ? a.cpu_name + ", " : "", ArmArchName(a.cpu_arch));
  const char* fix_core = "rebuild with the board's -mcpu, or pick a board with that core (`faultline boards`)";
  if (a.profile != 0 && a.profile != 'M' && a.profile != 'S') {
    throw InputError(where,
                     fmt::format("{} (Tag_CPU_arch_profile '{}'), not for the M profile of board {}'s {}", built,
                                 a.profile, board.name, core),
                     "build for a Cortex-M core (-mcpu=cortex-m..., -mthumb)");
  }
  std::vector<uint32_t> runs = {11, 12};  // v6-M, v6S-M
  if (board.cpu != Cpu::kCortexM0) runs.push_back(10);  // v7-M
  if (board.cpu != Cpu::kCortexM0 && board.cpu != Cpu::kCortexM3) runs.push_back(13);  // v7E-M
  if (board.cpu == Cpu::kCortexM33 || board.cpu == Cpu::kCortexM55) {
    runs.push_back(16);
    runs.push_back(17);
  }
  if (board.cpu == Cpu::kCortexM55) runs.push_back(21);
  if (a.cpu_arch != 0 && std::find(runs.begin(), runs.end(), a.cpu_arch) == runs.end()) {
    throw InputError(where,
                     fmt::format("{} (Tag_CPU_arch {}), which board {}'s {} does not execute", built, a.cpu_arch,
                                 board.name, core),
                     fix_core);
  }
  if (a.mve_arch != 0 && board.cpu != Cpu::kCortexM55) {
    throw InputError(where,
                     fmt::format("built with Helium (Tag_MVE_arch {}), which board {}'s {} does not have", a.mve_arch,
                                 board.name, core),
                     fix_core);
  }
  if (a.vfp_args && (board.cpu == Cpu::kCortexM0 || board.cpu == Cpu::kCortexM3)) {
    throw InputError(where,
                     fmt::format("built for the hard-float ABI (Tag_ABI_VFP_args), but board {}'s {} has no FPU",
                                 board.name, core),
                     "build with -mfloat-abi=soft for this core, or pick a board whose core has an FPU");
  }
}

void RequireImageFitsCore(const Board& board, const Image& image) {
  const std::string where = image.path.string();
  const bool riscv_board = IsaOf(board.cpu) == Isa::kRiscv;
  if (image.isa != IsaOf(board.cpu)) {
    throw InputError(where,
                     fmt::format("{} ELF, but board {} has a {} core", image.isa == Isa::kRiscv ? "a RISC-V" : "an Arm",
                                 board.name, ToString(board.cpu)),
                     riscv_board ? "build the firmware for the board's RISC-V core, or pick an Arm board "
                                   "(`faultline boards` lists them)"
                                 : "pick a RISC-V board (riscv32-virt, kelvin; `faultline boards` lists them), or "
                                   "build the firmware for the board's Cortex-M core");
  }
  if (!riscv_board) return RequireArmBuildFitsCore(board, image);
  // RISC-V ELF psABI, "File Header": e_flags bit 0 EF_RISCV_RVC, bits 1-2 EF_RISCV_FLOAT_ABI
  // (0 soft, 1 single, 2 double, 3 quad).
  const std::string march = ToString(board.cpu);
  if ((image.flags & 0x1) && !HasRvc(board.cpu)) {
    throw InputError(where,
                     fmt::format("built with compressed instructions (e_flags EF_RISCV_RVC), but board {}'s core "
                                 "is {}: it has no C extension",
                                 board.name, march),
                     fmt::format("build with -march={} (no `c`), or pick a board whose core has it", march));
  }
  const uint32_t float_abi = (image.flags >> 1) & 3;
  if (float_abi != 0 && (!HasRvf(board.cpu) || float_abi > 1)) {
    throw InputError(where,
                     fmt::format("built for a hard-float ABI ({}: e_flags EF_RISCV_FLOAT_ABI = {}), but board {}'s "
                                 "core is {}",
                                 float_abi == 1 ? "ilp32f" : float_abi == 2 ? "ilp32d" : "ilp32q", float_abi,
                                 board.name, march),
                     HasRvf(board.cpu) ? "build with -mabi=ilp32f" : "build with -mabi=ilp32 (soft float)");
  }
}

RunResult Run(const Board& board, const Image& image, const RunOptions& options) {
  RequireImageFitsCore(board, image);
  if (options.gdb) return RunUnderGdb(board, image, options, *options.gdb);
  if (!ValidTimeout(options.timeout_seconds)) {
    throw InputError(options.timeout_setting,
                     fmt::format("{} is not a number of seconds from 0 to {}", options.timeout_seconds,
                                 kMaxTimeoutSeconds),
                     "give seconds (0 = no timeout)");
  }
  MachineInput in = machine::InputFor(board, image, options);
  if (options.timeout_seconds > 0) {
    in.deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::chrono::duration<double>(options.timeout_seconds));
  }
  if (IsaOf(board.cpu) == Isa::kRiscv) {
    // The hart reports data faults at their instruction: nothing to replay.
    if (options.console_stream) in.console_stream = [&options](uint64_t, std::string_view text) { options.console_stream(text); };
    return RunMachine(in).result;
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
  MachineOutput first;
  for (int replays = 0;; ++replays) {
    in.allow_trace_requests = replays < kMaxReplays;
    in.announce = replays == 0;
    first = RunMachine(in);
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
  MachineInput replay = in;
  replay.wall_clock = first.wall_clock;
  replay.allow_trace_requests = false;
  replay.announce = false;
  for (uint64_t b : blocks) {
    if (std::find(replay.traces.begin(), replay.traces.end(), b) == replay.traces.end()) {
      replay.traces.push_back(b);
    }
  }
  MachineOutput second = RunMachine(replay);
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
  if (engine::KnownUnicornBuild()) return "";
  std::string id = engine::UnicornBuildId();
  // The cost and the differences are those of FAULTLINE_UNICORN_BUILD_ID=0 against the
  // default on the bench fixtures (docs/performance.md, "Another libunicorn build").
  return fmt::format("libunicorn {} is not the build faultline's engine patches were measured against (Debian 12 "
                     "libunicorn2 2.0.1.post1-1+b1, amd64): running Unicorn's own paths, about 10x slower on "
                     "store-heavy code (1.5x on ALU-bound code); UNALIGNED, DIVBYZERO and NOCP UsageFaults are not "
                     "raised, a data fault's stacked xPSR may be its block's, code in an XIP window stops as "
                     "unsupported, and LDRT/STRT in privileged code see the privileged view of the MPU",
                     id.empty() ? "without a build-id" : "build-id " + id);
}

int ExitStatus(const RunResult& r) {
  switch (r.outcome) {
    case Outcome::kExit: return r.exit_code == 0 ? 0 : 1;
    // The host's verdict: the output header's return code, when it read one.
    case Outcome::kHalt: return r.output_header && r.output_header->return_code != 0 ? 1 : 0;
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
    case Outcome::kHalt: return "halt";
  }
  return "?";
}

}  // namespace faultline
