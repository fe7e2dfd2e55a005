// The engine's callbacks into arm::Core (Unicorn calls them with the core as user data):
// the block hook that counts instructions and stops for what is due, the code hooks of
// the debugger's breakpoints and steps, the invalid-memory, interrupt and
// invalid-instruction hooks, and the served pages' MMIO callbacks. Inline, included by
// core.cc (which defines BlockHookCallback, so that the block hook's fast path compiles
// with the core's: issue 40 item 3) and core_debug.cc (the debugger's code hooks).
#pragma once

#include <unicorn/unicorn.h>

#include <chrono>

#include "core.h"

namespace faultline::arm {

// The wall clock is read every kClockEvery instructions, not per block.
constexpr uint64_t kClockEvery = 1u << 20;

// Trampolines: Unicorn calls these with the Core as user data. No C++ exception may
// cross them, so they only record a Stop and ask the engine to stop.
struct Hooks {
  // Blocks counted by their own generated code (core_block_count.cc) call this only when
  // left_ is no longer positive, with size 0; the others call it every time.
  static void Block(uc_engine*, uint64_t address, uint32_t size, void* user) {
    Core& c = *static_cast<Core*>(user);
    if (size == 0) {  // counted: Through() and CurrentBlock() already include this block
      Due(c, address, c.Retired(), c.RoadInCode());
      return;
    }
    Core::BlockInfo& b = c.block_cache_[(address >> 1) & (Core::kBlockCacheSize - 1)];
    // The common case, kept to a few instructions and free of calls (no stack frame): a
    // cached ordinary block, and nothing below can fire before check_at_.
    const uint64_t through = c.Through() + b.count;
    if (b.key == (address | uint64_t(size) << 32) && through < c.check_at_) {
      c.SetThrough(through);
      c.PushRoad(&b);
      c.SetCurrentBlock(&b);
      return;
    }
    BlockChecks(c, address, size, b);
  }

  [[gnu::noinline]] static void BlockChecks(Core& c, uint64_t address, uint32_t size, Core::BlockInfo& b) {
    if (b.address != address || b.size != size) {
      b.address = address;
      b.size = size;
      b.count = c.CountInstructions(address, size, &b.self_loop);
      const Core::TrampolinePage* t = c.PageOf(address);
      b.hidden = t != nullptr && !t->counted;
      b.key = b.self_loop || b.hidden ? Core::BlockInfo::kNoKey : address | uint64_t(size) << 32;
    }
    if (b.hidden) {  // an Armv8.1-M trampoline: it stands for the site's one instruction
      c.SetCurrentBlock(&Core::kNoBlock);
      return;
    }
    const uint64_t retired = c.Through();  // everything before this block
    c.SetThrough(retired + b.count);
    c.PushRoad(&b);
    c.SetCurrentBlock(&b);
    Due(c, address, retired, true);
  }

  // The block at `address`, counted in Through() and CurrentBlock() with `retired`
  // instructions before it, is about to run: stop before it if something is due.
  // `on_road`: the block was pushed on the road (its code's ring ops, or PushRoad).
  [[gnu::noinline]] static void Due(Core& c, uint64_t address, uint64_t retired, bool on_road) {
    // Stopped already, in the block before (StopWith): the engine leaves before this one.
    if (c.stop_) return;
    DueStop(c, address, retired);
    // The block has not run, so it is not on the road; but `b .` is where a hang is.
    if (on_road && c.stop_ && c.stop_->kind != Stop::Kind::kHang) c.UnpushRoad();
    if (c.trace_) c.FlushTrace();
    c.RecomputeCheckAt();
  }

  static void DueStop(Core& c, uint64_t address, uint64_t retired) {
    // Exception model (issue 3): SysTick due, an SCS write, or a mask change while an
    // exception is pending. Checked before the block runs, which then does not count.
    if (retired + c.idle_ >= c.next_event_ ||
        (c.watch_masks_ && c.ReadMasksRaw() != c.masks_snapshot_)) {
      c.Settle(0);
      c.StopWith({.kind = Stop::Kind::kEvent, .pc = uint32_t(address)});
    } else if (c.CurrentBlock()->self_loop) {
      c.Settle(0);
      c.StopWith({.kind = Stop::Kind::kHang, .pc = uint32_t(address)});
    } else if (c.Through() > c.budget_) {
      c.Settle(0);
      c.StopWith({.kind = Stop::Kind::kLimit, .pc = uint32_t(address)});
    } else if (c.deadline_ && retired >= c.clock_at_) {
      // The wall clock is read every kClockEvery instructions, not per block.
      c.clock_at_ = retired + kClockEvery;
      if (std::chrono::steady_clock::now() >= *c.deadline_) {
        c.Settle(0);
        c.StopWith({.kind = Stop::Kind::kTimeout, .pc = uint32_t(address)});
      }
    }
  }

  static void Code(uc_engine*, uint64_t address, uint32_t, void* user) {
    static_cast<Core*>(user)->last_traced_ = uint32_t(address);
  }

  static void HostBreak(uc_engine*, uint64_t address, uint32_t, void* user) {
    auto& b = *static_cast<Core::HostBreak*>(user);
    if (!b.armed) return;
    b.armed = false;
    b.core->StopWith({.kind = Stop::Kind::kHostBreakpoint, .pc = uint32_t(address)});
  }

  static void DebugBreak(uc_engine*, uint64_t address, uint32_t, void* user) {
    Core& c = *static_cast<Core*>(user);
    if (c.break_skip_ == address) {  // resuming from it: this once, it runs
      c.break_skip_.reset();
      return;
    }
    c.StopWith({.kind = Stop::Kind::kHostBreakpoint, .pc = uint32_t(address)});
  }

  static void Step(uc_engine*, uint64_t address, uint32_t, void* user) {
    Core& c = *static_cast<Core*>(user);
    // The second half of an in-place pair is the same instruction as its IT.
    if (!c.stepping_ || c.InPlacePairsIn(address - 2, 4) != 0 || c.step_seen_++ == 0) return;
    c.StopWith({.kind = Stop::Kind::kStep, .pc = uint32_t(address)});
  }

  // The instruction after a write to a stack pointer (GuardStackPointerWrites): bits
  // [1:0] of SP, SP_main and SP_process cleared.
  static void SpGuard(uc_engine* uc, uint64_t, uint32_t, void*) {
    for (int reg : {UC_ARM_REG_SP, UC_ARM_REG_MSP, UC_ARM_REG_PSP}) {
      uint32_t sp = 0;
      uc_reg_read(uc, reg, &sp);
      if (sp & 3u) {
        sp &= ~3u;
        uc_reg_write(uc, reg, &sp);
      }
    }
  }

  // A VSCCLRM or MVE scalar-shift site (TrapUndecodedArmv81): stop before it, as an
  // undecodable instruction.
  static void HostSite(uc_engine*, uint64_t address, uint32_t, void* user) {
    static_cast<Core*>(user)->StopWith({.kind = Stop::Kind::kInvalidInstruction, .pc = uint32_t(address)});
  }

  static bool InvalidMemory(uc_engine* uc, uc_mem_type type, uint64_t address, int size, int64_t value,
                            void* user) {
    Core& c = *static_cast<Core*>(user);
    // A page cut by MPU regions refuses what any of its pieces refuses: an access the
    // piece it falls in allows goes on. Unicorn then performs a read; a write it drops
    // (store_helper sends it to io_writex, the entry not being writable), so it is
    // written here.
    if ((type == UC_MEM_READ_PROT || type == UC_MEM_WRITE_PROT) && !c.watchpoints_.empty()) {
      switch (c.WatchedAccess(address, uint32_t(size), type == UC_MEM_WRITE_PROT, uint64_t(value))) {
        case Core::WatchOutcome::kPerformed: return true;
        case Core::WatchOutcome::kStopped: return false;
        case Core::WatchOutcome::kNotWatched: break;
      }
    }
    if ((type == UC_MEM_READ_PROT || type == UC_MEM_WRITE_PROT) &&
        c.pages_->SplitPageAllows(address, uint32_t(size), type == UC_MEM_WRITE_PROT)) {
      if (type == UC_MEM_WRITE_PROT) c.Check(uc_mem_write(uc, address, &value, size_t(size)), "uc_mem_write");
      return true;
    }
    Stop s{.kind = Stop::Kind::kMemoryFault};
    switch (type) {
      case UC_MEM_WRITE_UNMAPPED:
      case UC_MEM_WRITE_PROT: s.access = AccessType::kWrite; break;
      case UC_MEM_FETCH_UNMAPPED:
      case UC_MEM_FETCH_PROT: s.access = AccessType::kFetch; break;
      default: s.access = AccessType::kRead; break;
    }
    s.address = address;
    s.size = uint32_t(size);
    s.permission = type == UC_MEM_READ_PROT || type == UC_MEM_WRITE_PROT || type == UC_MEM_FETCH_PROT;
    s.pc = c.Read(Reg::kPc);
    // unicorn.md §3: a data fault reports the translation block's start unless a code
    // hook covers the instruction; fetch faults are always exact.
    s.imprecise_pc = s.access != AccessType::kFetch;
    if (s.imprecise_pc && c.TracedInBlock()) {
      s.pc = *c.last_traced_;
      s.imprecise_pc = false;
    }
    c.StopWith(s);
    return false;
  }

  static void Interrupt(uc_engine*, uint32_t intno, void* user) {
    Core& c = *static_cast<Core*>(user);
    uint32_t pc = c.Read(Reg::kPc);
    Stop s{.pc = pc, .imm = intno};
    // Exception numbers are QEMU's EXCP_* (target/arm/cpu.h), as unicorn.md §4 measured.
    switch (intno) {
      case 7: {  // EXCP_BKPT: pc is the BKPT itself
        auto insn = c.InstructionAt(pc);
        s.kind = Stop::Kind::kBreakpoint;
        s.imm = insn.empty() ? 0 : insn[0];
        break;
      }
      case 2: {  // EXCP_SWI: pc is after the SVC
        auto insn = c.InstructionAt(pc - 2);
        s.kind = Stop::Kind::kSupervisorCall;
        s.imm = insn.empty() ? 0 : insn[0];
        break;
      }
      case 8:  // EXCP_EXCEPTION_EXIT: pc is EXC_RETURN without bit 0 (unicorn.md §4)
        s.kind = Stop::Kind::kExceptionReturn;
        s.imm = pc | 1u;
        break;
      case 3:  // EXCP_PREFETCH_ABORT: execute-never in the default memory map
        if (pc >= 0xFFFFFF00u && c.ipsr() != 0) {  // M4/M7: EXC_RETURN seen as a fetch
          s.kind = Stop::Kind::kExceptionReturn;
          s.imm = pc | 1u;
          break;
        }
        s.kind = Stop::Kind::kExecuteNever;
        s.access = AccessType::kFetch;
        s.address = pc;
        break;
      case 4:  // EXCP_DATA_ABORT, PC restored: an alignment fault (core_traps.cc), or an
               // unprivileged access the MPU refused (RefusesUnprivileged)
        if (c.unprivileged_refusal_) {
          s = *c.unprivileged_refusal_;
          s.pc = pc;
          c.unprivileged_refusal_.reset();
          // The access's bytes from the "T" form's size field, hw1 bits 6:5 (LDRBT F81n,
          // LDRHT F83n, LDRT F85n, STRBT F80n ...: Armv7-M ARM §A7.7.52 ff.).
          const std::vector<uint8_t> insn = c.InstructionAt(pc);
          s.size = insn.empty() ? 0 : 1u << ((insn[0] >> 5) & 3);
          break;
        }
        s.kind = Stop::Kind::kTrap;
        s.imm = cfsr::kUnaligned;
        break;
      case 17:  // EXCP_NOCP
        s.kind = Stop::Kind::kCoprocessor;
        break;
      case 19:  // EXCP_STKOF: Unicorn's v8-M model checks MSPLIM/PSPLIM on pushes itself
        s.kind = Stop::Kind::kStackLimit;
        s.access = AccessType::kWrite;
        s.address = c.Read(Reg::kSp);
        break;
      default:
        s.kind = Stop::Kind::kOtherException;
        break;
    }
    c.StopWith(s);
  }

  static bool InvalidInstruction(uc_engine*, void* user) {
    Core& c = *static_cast<Core*>(user);
    c.StopWith({.kind = Stop::Kind::kInvalidInstruction, .pc = c.Read(Reg::kPc)});
    return false;
  }

  static uint64_t ServedRead(uc_engine*, uint64_t offset, unsigned size, void* user) {
    auto& page = *static_cast<PageMap::ServedPage*>(user);
    return static_cast<Core*>(page.owner)->ServeAccess(page.base + offset, size, false, 0);
  }

  static void ServedWrite(uc_engine*, uint64_t offset, unsigned size, uint64_t value, void* user) {
    auto& page = *static_cast<PageMap::ServedPage*>(user);
    static_cast<Core*>(page.owner)->ServeAccess(page.base + offset, size, true, value);
  }
};

}  // namespace faultline::arm
