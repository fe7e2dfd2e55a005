// MVE predicate bookkeeping as TCG ops in the translated block, without a call
// (docs/performance.md, "Predicate bookkeeping without a call").
//
// Every vector instruction is one call from the translated code (core_mve.cc): QEMU 5.0's
// helper_v7m_mrs, with the guest registers written back before it and reloaded after.
// A third of tinynet's vector instructions only move VPR: VPST writes its mask fields,
// VMSR P0 and VMRS P0 copy P0 from and to a general register. Here those are emitted as
// ops on the VPR word the MVE unit keeps (State::vpr) where the call would be, as
// unicorn_dsp_ops.cc does for SMLAD: the translator reaches tcg_gen_callN_arm through
// its PLT, and the call of helper_v7m_mrs whose SYSm constant carries the instruction's
// index (the MRS r0 the translator was shown) is replaced.
//
// The ops store VPR back at the end of each instruction, as the call does: at a block
// boundary, before a Unicorn code hook on the next instruction (the GDB server's single
// step), at a fault or an exception entry VPR is what the instruction left. The
// instruction count (MveUnit::executed) is kept the same way. The MRS writes its result
// to R0: the ops return R0 as it then is, which the translator's move writes back.
//
// What the call also does before each instruction is decided when the block is
// translated (core_mve.cc, MveUnit::EmitOps): NOCP with CPACR.CP10 off (translated
// blocks follow CPACR: core_traps.cc), and the lazy preservation and new FP context of
// FPCCR.LSPACT and ASPEN, which QEMU 5.0 keys every block by (cpu_get_tb_cpu_state's
// LSPACT and NEW_FP_CTXT_NEEDED flags): a block that may need them keeps the calls.
//
// The general registers are the translator's TCG globals, found in the TCGContext at
// QEMU 5.0's tcg_ctx->cpu_R (arm_translate_init_arm stores them at 0x9600 in the Debian
// library's disassembly; each temp is checked by the env offset it names, TCGTemp's
// mem_offset at 0x18, before it is used).
#include "core_mve_ops.h"

#include <cstddef>
#include <cstring>

#include "unicorn_tcg.h"

extern "C" {
void tcg_gen_andi_i32_arm(TCGContext* s, intptr_t ret, intptr_t a1, int32_t a2);
void tcg_gen_ori_i32_arm(TCGContext* s, intptr_t ret, intptr_t a1, int32_t a2);
void tcg_gen_deposit_i32_arm(TCGContext* s, intptr_t ret, intptr_t a1, intptr_t a2, unsigned ofs, unsigned len);
void tcg_gen_addi_i64_arm(TCGContext* s, intptr_t ret, intptr_t a1, int64_t a2);
}

namespace faultline::cpu {

namespace {

// QEMU 5.0 tcg-opc.h numbers, as unicorn_dsp_ops.cc and core_block_count.cc read them.
constexpr int kTypeI32 = 0, kTypeI64 = 1;
constexpr int kOpMovI32 = 0x5, kOpLdI32 = 0xd, kOpStI32 = 0x10, kOpLdI64 = 0x49, kOpStI64 = 0x4d;
constexpr size_t kCpuR = 0x9600;          // offsetof(TCGContext, cpu_R)
constexpr size_t kTempMemOffset = 0x18;   // offsetof(TCGTemp, mem_offset)
constexpr size_t kTemps = 0x388, kTempSize = 0x38, kMaxTemps = 512;  // TCGContext.temps

constexpr uint32_t kP0 = 0xFFFF, kMasks = 0xFFu << 16;  // VPR (DDI 0553 §B5.4)

struct Ops {
  TCGContext* s;
  uintptr_t Arg(intptr_t v) const { return reinterpret_cast<uintptr_t>(s) + uintptr_t(v); }  // TCGv -> op argument
  intptr_t V(uintptr_t t) const { return intptr_t(t - reinterpret_cast<uintptr_t>(s)); }
  uintptr_t New(int type) const { return reinterpret_cast<uintptr_t>(tcg_temp_new_internal_arm(s, type, false)); }
  void Free(uintptr_t t) const { tcg_temp_free_internal_arm(s, reinterpret_cast<TCGTemp*>(t)); }
  uintptr_t Pointer(const void* p) const {
    return Arg(tcg_const_i64_arm(s, int64_t(reinterpret_cast<uintptr_t>(p))));
  }
  void Op(int opc, uintptr_t a, uintptr_t b, uintptr_t c = 0) const { tcg_gen_op3_arm(s, opc, a, b, c); }
};

// The translator's global for Rn (cpu_R[n]), or 0 if the layout is not what it should be.
uintptr_t GeneralRegister(TCGContext* s, unsigned n) {
  intptr_t v;
  std::memcpy(&v, reinterpret_cast<const uint8_t*>(s) + kCpuR + 8 * n, sizeof v);
  if (v < intptr_t(kTemps) || v >= intptr_t(kTemps + kMaxTemps * kTempSize) || (v - kTemps) % kTempSize != 0) {
    return 0;
  }
  const uintptr_t temp = reinterpret_cast<uintptr_t>(s) + uintptr_t(v);
  intptr_t mem_offset;
  std::memcpy(&mem_offset, reinterpret_cast<const void*>(temp + kTempMemOffset), sizeof mem_offset);
  return mem_offset == intptr_t(4 * n) ? temp : 0;  // CPUARMState.regs[n]: env + 4n
}

bool Named(const arm::mve::Insn& insn, const char* name) { return std::strcmp(insn.name, name) == 0; }

}  // namespace

bool EmitsAsOps(const arm::mve::Insn& insn) {
  // Rt is a general register other than SP and PC (UNPREDICTABLE; the call keeps them).
  const bool rt_ok = insn.rt < 13 || insn.rt == 14;
  return Named(insn, "VPST") || ((Named(insn, "VMRS P0/VPR") || Named(insn, "VMSR P0/VPR")) && rt_ok);
}

bool EmitAsOps(TCGContext* s, const arm::mve::Insn& insn, const MveOpTargets& t, TCGTemp* ret) {
  const Ops o{s};
  const uintptr_t r0 = GeneralRegister(s, 0), rt = GeneralRegister(s, insn.rt);
  if (r0 == 0 || rt == 0) return false;
  const uintptr_t vpr_at = o.Pointer(t.vpr);
  const uintptr_t v = o.New(kTypeI32);
  if (Named(insn, "VPST")) {
    // Handlers::Vpst: both mask fields from the instruction's mask.
    const uint32_t mask = uint32_t(insn.imm);
    o.Op(kOpLdI32, v, vpr_at, 0);
    tcg_gen_andi_i32_arm(s, o.V(v), o.V(v), int32_t(~kMasks));
    tcg_gen_ori_i32_arm(s, o.V(v), o.V(v), int32_t(mask << 16 | mask << 20));
    o.Op(kOpStI32, v, vpr_at, 0);
  } else if (Named(insn, "VMSR P0/VPR")) {
    // Handlers::WriteVpr: P0 alone (imm 1), or all 32 bits.
    if (insn.imm) {
      o.Op(kOpLdI32, v, vpr_at, 0);
      tcg_gen_deposit_i32_arm(s, o.V(v), o.V(v), o.V(rt), 0, 16);
      o.Op(kOpStI32, v, vpr_at, 0);
    } else {
      o.Op(kOpStI32, rt, vpr_at, 0);
    }
  } else {
    // Handlers::ReadVpr: P0 alone (imm 1), or all of VPR.
    o.Op(kOpLdI32, v, vpr_at, 0);
    if (insn.imm) tcg_gen_andi_i32_arm(s, o.V(v), o.V(v), int32_t(kP0));
    o.Op(kOpMovI32, rt, v);
  }
  if (t.executed != nullptr) {
    const uintptr_t count_at = o.Pointer(t.executed), n = o.New(kTypeI64);
    o.Op(kOpLdI64, n, count_at, 0);
    tcg_gen_addi_i64_arm(s, o.V(n), o.V(n), 1);
    o.Op(kOpStI64, n, count_at, 0);
    o.Free(n);
    o.Free(count_at);
  }
  o.Op(kOpMovI32, reinterpret_cast<uintptr_t>(ret), r0);
  o.Free(v);
  o.Free(vpr_at);
  return true;
}

}  // namespace faultline::cpu
