// The Cortex-M machine's registers as a debugger sees them: the features gdb knows for an
// M-profile core (gdb/features/arm/*.xml), numbered in order: the core registers, the
// stack pointers of org.gnu.gdb.arm.m-system, then where the core has them the FP
// registers (org.gnu.gdb.arm.vfp: gdb makes s0-s31 of d0-d15, and on an MVE core q0-q7)
// and VPR (org.gnu.gdb.arm.m-profile-mve).
#include <fmt/core.h>

#include "arm_machine.h"

namespace faultline::machine {

namespace {

constexpr size_t kXpsr = 16, kMsp = 17, kPsp = 18, kFirstD = 19, kFpscr = kFirstD + 16, kVpr = kFpscr + 1;

}  // namespace

void ArmMachine::DescribeRegisters() {
  std::vector<DebugRegister>& regs = debug_registers_;
  regs.clear();
  static constexpr const char* kCore[] = {"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8",
                                          "r9", "r10", "r11", "r12", "sp", "lr", "pc"};
  const char* profile = "org.gnu.gdb.arm.m-profile";
  for (int n = 0; n < 16; ++n) {
    regs.push_back({kCore[n], 32, n == 13 ? "data_ptr" : n == 15 ? "code_ptr" : "uint32", profile});
  }
  regs.push_back({"xpsr", 32, "uint32", profile});
  regs.push_back({"msp", 32, "data_ptr", "org.gnu.gdb.arm.m-system"});
  regs.push_back({"psp", 32, "data_ptr", "org.gnu.gdb.arm.m-system"});
  // Cortex-M4, M7, M33 and M55 have an FPU (single precision on M4 and M33, whose
  // D registers are pairs of S registers as gdb shows them).
  if (in_.board.cpu != Cpu::kCortexM0 && in_.board.cpu != Cpu::kCortexM3) {
    for (int n = 0; n < 16; ++n) regs.push_back({fmt::format("d{}", n), 64, "ieee_double", "org.gnu.gdb.arm.vfp"});
    regs.push_back({"fpscr", 32, "int", "org.gnu.gdb.arm.vfp"});
    if (core_->mve() != nullptr) regs.push_back({"vpr", 32, "uint32", "org.gnu.gdb.arm.m-profile-mve"});
  }
}

uint64_t ArmMachine::ReadRegister(size_t n) const {
  const Registers r = registers();
  if (n < 13) return r.r[n];
  switch (n) {
    case 13: return r.sp;
    case 14: return r.lr;
    case 15: return ended_ ? r.pc : pc_;
    case kXpsr: return r.xpsr;
    case kMsp: return r.msp;
    case kPsp: return r.psp;
    case kFpscr: return core_->ReadFpscr();
    case kVpr: return core_->MveVpr();
  }
  return core_->ReadD(int(n - kFirstD));
}

bool ArmMachine::WriteRegister(size_t n, uint64_t value) {
  if (ended_ || n >= debug_registers_.size()) return false;
  const uint32_t low = uint32_t(value);
  if (n < 15) {
    core_->WriteGeneral(int(n), low);
    return true;
  }
  switch (n) {
    case 15: SetPc(low); break;
    case kXpsr: core_->Write(arm::Reg::kXpsr, low); break;
    case kMsp: core_->Write(arm::Reg::kMsp, low); break;
    case kPsp: core_->Write(arm::Reg::kPsp, low); break;
    case kFpscr: core_->WriteFpscr(low); break;
    case kVpr: core_->MveRestore(core_->ReadFpscr(), low); break;
    default: core_->WriteD(int(n - kFirstD), value); break;
  }
  return true;
}

std::optional<WatchHit> ArmMachine::watch_hit() const {
  if (!watch_hit_) return std::nullopt;
  return WatchHit{uint32_t(watch_hit_->address), WatchKind(watch_hit_->imm)};
}

}  // namespace faultline::machine
