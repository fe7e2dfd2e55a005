// MVE predicate bookkeeping as TCG ops in the translated block, without a call
// (docs/performance.md, "Predicate bookkeeping without a call (third round)").
//
// Every vector instruction is one call from the translated code (core_mve.cc): QEMU 5.0's
// helper_v7m_mrs, with the guest registers written back before it and reloaded after.
// Over half of tinynet's vector instructions only write or move VPR: VPST writes its mask
// fields, VCTP P0 from a count, VMSR P0 and VMRS P0 copy P0 from and to a general
// register (the VPR forms all of it). Here those are emitted as
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

#include "../engine/unicorn_tcg.h"

extern "C" {
void tcg_gen_andi_i32_arm(TCGContext* s, intptr_t ret, intptr_t a1, int32_t a2);
void tcg_gen_ori_i32_arm(TCGContext* s, intptr_t ret, intptr_t a1, int32_t a2);
void tcg_gen_deposit_i32_arm(TCGContext* s, intptr_t ret, intptr_t a1, intptr_t a2, unsigned ofs, unsigned len);
void tcg_gen_addi_i64_arm(TCGContext* s, intptr_t ret, intptr_t a1, int64_t a2);
void tcg_gen_extract_i32_arm(TCGContext* s, intptr_t ret, intptr_t a1, unsigned ofs, unsigned len);
void tcg_gen_setcond_i32_arm(TCGContext* s, int cond, intptr_t ret, intptr_t a1, intptr_t a2);
void tcg_gen_setcondi_i32_arm(TCGContext* s, int cond, intptr_t ret, intptr_t a1, int32_t a2);
void tcg_gen_muli_i32_arm(TCGContext* s, intptr_t ret, intptr_t a1, int32_t a2);
void tcg_gen_shli_i32_arm(TCGContext* s, intptr_t ret, intptr_t a1, int32_t a2);
void tcg_gen_subi_i32_arm(TCGContext* s, intptr_t ret, intptr_t a1, int32_t a2);
void tcg_gen_umin_i32_arm(TCGContext* s, intptr_t ret, intptr_t a1, intptr_t a2);
void tcg_gen_movcond_i32_arm(TCGContext* s, int cond, intptr_t ret, intptr_t c1, intptr_t c2, intptr_t v1,
                             intptr_t v2);
}

namespace faultline::cpu {

namespace {

// QEMU 5.0 tcg-opc.h numbers, as unicorn_dsp_ops.cc and core_block_count.cc read them.
constexpr int kTypeI32 = 0, kTypeI64 = 1;
constexpr int kOpMovI32 = 0x5, kOpLdI32 = 0xd, kOpStI32 = 0x10, kOpAndI32 = 0x1a, kOpOrI32 = 0x1b,
              kOpXorI32 = 0x1c, kOpShlI32 = 0x1d, kOpShrI32 = 0x1e, kOpLdI64 = 0x49, kOpStI64 = 0x4d;
// tcg-cond.h: EQ, NE, LTU, LEU, GTU.
constexpr int kCondEq = 8, kCondNe = 9, kCondLtu = 4, kCondLeu = 12, kCondGtu = 13;
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
  uintptr_t Const(int32_t v) const { return Arg(tcg_const_i32_arm(s, v)); }
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

// `to` = all ones in the byte lanes of half `at` (16: lanes 0-7, 20: 8-15) whose VPT mask
// field in `vpr` is zero (`cond` kCondEq: the half is outside a VPT block), or whose mask
// says the next instruction is an E one (kCondGtu 8: VPTAdvance inverts that half).
void HalfWhereMask(const Ops& o, uintptr_t to, uintptr_t vpr, unsigned at, int cond) {
  tcg_gen_extract_i32_arm(o.s, o.V(to), o.V(vpr), at, 4);
  tcg_gen_setcondi_i32_arm(o.s, cond, o.V(to), o.V(to), cond == kCondEq ? 0 : 8);
  tcg_gen_muli_i32_arm(o.s, o.V(to), o.V(to), at == 16 ? 0x00FF : 0xFF00);
}

// VCTP (Handlers::Vctp): P0 = the first min(Rn, elements) elements, under the current
// predicate (ElementMask: P0 in a VPT block's halves, all lanes outside, less the lanes
// past LR on a tail-predicated loop's last iteration), then the VPT block moves on
// (AdvanceVptBlock; with both mask fields zero it changes nothing, so no test).
void Vctp(const Ops& o, const arm::mve::Insn& insn, const MveOpTargets& t, uintptr_t v, uintptr_t rn,
          uintptr_t lr) {
  const uintptr_t mask = o.New(kTypeI32), x = o.New(kTypeI32), y = o.New(kTypeI32);
  tcg_gen_andi_i32_arm(o.s, o.V(mask), o.V(v), int32_t(kP0));
  HalfWhereMask(o, x, v, 16, kCondEq);
  o.Op(kOpOrI32, mask, mask, x);
  HalfWhereMask(o, x, v, 20, kCondEq);
  o.Op(kOpOrI32, mask, mask, x);
  // Tail predication: LTPSIZE < 4 and LR <= 16 >> LTPSIZE keep the first LR << LTPSIZE
  // bytes (at most 16; any other shift's result is not chosen).
  const uintptr_t ltpsize_at = o.Pointer(t.ltpsize), ltpsize = o.New(kTypeI32), sixteen = o.Const(16),
                  one = o.Const(1);
  o.Op(kOpLdI32, ltpsize, ltpsize_at, 0);
  o.Op(kOpShrI32, x, sixteen, ltpsize);
  tcg_gen_setcond_i32_arm(o.s, kCondLeu, o.V(x), o.V(lr), o.V(x));
  tcg_gen_setcondi_i32_arm(o.s, kCondLtu, o.V(y), o.V(ltpsize), 4);
  o.Op(kOpAndI32, x, x, y);
  o.Op(kOpShlI32, y, lr, ltpsize);
  o.Op(kOpShlI32, y, one, y);
  tcg_gen_subi_i32_arm(o.s, o.V(y), o.V(y), 1);
  const uintptr_t all = o.Const(int32_t(kP0)), zero = o.Const(0);
  tcg_gen_movcond_i32_arm(o.s, kCondNe, o.V(y), o.V(x), o.V(zero), o.V(y), o.V(all));
  o.Op(kOpAndI32, mask, mask, y);
  // The predicate: (1 << (min(Rn, 16 >> size) << size)) - 1, at most 16 bits.
  const uintptr_t elements = o.Const(int32_t(16u >> insn.size));
  tcg_gen_umin_i32_arm(o.s, o.V(x), o.V(rn), o.V(elements));
  tcg_gen_shli_i32_arm(o.s, o.V(x), o.V(x), insn.size);
  o.Op(kOpShlI32, x, one, x);
  tcg_gen_subi_i32_arm(o.s, o.V(x), o.V(x), 1);
  o.Op(kOpAndI32, x, x, mask);
  tcg_gen_deposit_i32_arm(o.s, o.V(v), o.V(v), o.V(x), 0, 16);
  // AdvanceVptBlock: a half whose mask is above 0b1000 inverts its P0 bits; both masks
  // shift left one.
  HalfWhereMask(o, x, v, 16, kCondGtu);
  o.Op(kOpXorI32, v, v, x);
  HalfWhereMask(o, x, v, 20, kCondGtu);
  o.Op(kOpXorI32, v, v, x);
  tcg_gen_shli_i32_arm(o.s, o.V(x), o.V(v), 1);
  tcg_gen_andi_i32_arm(o.s, o.V(x), o.V(x), 0x00EE0000);
  tcg_gen_andi_i32_arm(o.s, o.V(v), o.V(v), int32_t(~kMasks));
  o.Op(kOpOrI32, v, v, x);
  for (uintptr_t temp : {mask, x, y, ltpsize_at, ltpsize, sixteen, one, all, zero, elements}) o.Free(temp);
}

}  // namespace

bool EmitsAsOps(const arm::mve::Insn& insn) {
  // Rt is a general register other than SP and PC (UNPREDICTABLE; the call keeps them).
  const bool rt_ok = insn.rt < 13 || insn.rt == 14, rn_ok = insn.rn < 13 || insn.rn == 14;
  return Named(insn, "VPST") || ((Named(insn, "VMRS P0/VPR") || Named(insn, "VMSR P0/VPR")) && rt_ok) ||
         (Named(insn, "VCTP") && rn_ok);
}

bool EmitAsOps(TCGContext* s, const arm::mve::Insn& insn, const MveOpTargets& t, TCGTemp* ret) {
  const Ops o{s};
  const bool vctp = Named(insn, "VCTP");
  const uintptr_t r0 = GeneralRegister(s, 0), rt = GeneralRegister(s, vctp ? insn.rn : insn.rt),
                  lr = GeneralRegister(s, 14);
  if (r0 == 0 || rt == 0 || lr == 0) return false;
  const uintptr_t vpr_at = o.Pointer(t.vpr);
  const uintptr_t v = o.New(kTypeI32);
  if (Named(insn, "VPST")) {
    // Handlers::Vpst: both mask fields from the instruction's mask.
    const uint32_t mask = uint32_t(insn.imm);
    o.Op(kOpLdI32, v, vpr_at, 0);
    tcg_gen_andi_i32_arm(s, o.V(v), o.V(v), int32_t(~kMasks));
    tcg_gen_ori_i32_arm(s, o.V(v), o.V(v), int32_t(mask << 16 | mask << 20));
    o.Op(kOpStI32, v, vpr_at, 0);
  } else if (vctp) {
    o.Op(kOpLdI32, v, vpr_at, 0);
    Vctp(o, insn, t, v, rt, lr);
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
