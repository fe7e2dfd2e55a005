// The Armv8.1-M half-precision scalar instructions (the FP16 extension the Cortex-M55's
// FPU has and Unicorn's M33 model does not; DDI 0553 §C2.4 VADD, VFMA, VCMP, VCVT,
// VINS, VMOVX, VLDR, VMOV with .F16): on S registers, reading bits 15:0 and writing the
// result zero-extended. Unlike MVE they compute with FPSCR itself: its rounding mode,
// FZ16 for flushing and DN; the flags join FPSCR's cumulative ones. The order of the
// non-fused forms' steps (multiply, negate, add) is QEMU 7.2's translate-vfp.c.
#include "float_lanes.h"
#include "handlers.h"

namespace faultline::arm::mve {

namespace {

uint32_t Single(const State& s, int n) {
  uint32_t v;
  std::memcpy(&v, s.q + 4 * n, 4);
  return v;
}
void SetSingle(State& s, int n, uint32_t v) { std::memcpy(s.q + 4 * n, &v, 4); }
uint16_t Half(const State& s, int n) { return uint16_t(Single(s, n)); }

// The status of a scalar half-precision instruction, from FPSCR (RMode 23:22, FZ16 19,
// DN 25); its exception flags are added to FPSCR's when it goes.
class ScalarStatus {
 public:
  explicit ScalarStatus(State& s) : s_(s) {
    static constexpr int8_t kRounding[4] = {kRoundNearestEven, kRoundUp, kRoundDown, kRoundToZero};
    const uint32_t fpscr = s.fpscr->Read();
    status_ = *s.fp;
    status_.rounding_mode = kRounding[(fpscr >> 22) & 3];
    status_.flush_to_zero = status_.flush_inputs_to_zero = (fpscr & fpscr::kFz16) != 0;
    status_.default_nan_mode = (fpscr >> 25) & 1;
    status_.exception_flags = 0;
  }
  // FZ16 flushes without raising Input Denormal (QEMU 7.2 vfp_get_fpscr masks it).
  ~ScalarStatus() { s_.fp->exception_flags |= status_.exception_flags & uint8_t(~kInputDenormal); }
  FloatStatus* operator->() { return &status_; }
  FloatStatus* get() { return &status_; }

 private:
  State& s_;
  FloatStatus status_;
};

uint16_t Negated(uint16_t v) { return uint16_t(v ^ F16::kSign); }

}  // namespace

// VMLA/VMLS/VNMLA/VNMLS/VMUL/VNMUL/VADD/VSUB/VDIV/VFMA/VFMS/VFNMA/VFNMS .F16: i.imm is
// opc1 (bits 23, 21:20) << 1 | op (bit 6).
void Handlers::HalfArithmetic(const Insn& i, State& s) {
  ScalarStatus st(s);
  const uint16_t n = Half(s, i.qn), m = Half(s, i.qm), d = Half(s, i.qd);
  uint16_t r = 0;
  switch (i.imm) {
    case 0: r = F16::Add(d, F16::Mul(n, m, st.get()), st.get()); break;                     // VMLA
    case 1: r = F16::Add(d, Negated(F16::Mul(n, m, st.get())), st.get()); break;            // VMLS
    case 2: r = F16::Add(Negated(d), F16::Mul(n, m, st.get()), st.get()); break;            // VNMLS
    case 3: {                                                                               // VNMLA
      const uint16_t p = Negated(F16::Mul(n, m, st.get()));
      r = F16::Add(Negated(d), p, st.get());
      break;
    }
    case 4: r = F16::Mul(n, m, st.get()); break;                                            // VMUL
    case 5: r = Negated(F16::Mul(n, m, st.get())); break;                                   // VNMUL
    case 6: r = F16::Add(n, m, st.get()); break;                                            // VADD
    case 7: r = F16::Sub(n, m, st.get()); break;                                            // VSUB
    case 8: r = float16_div_arm(n, m, st.get()); break;                                     // VDIV
    case 10: r = F16::MulAdd(n, m, Negated(d), 0, st.get()); break;                         // VFNMS
    case 11: r = F16::MulAdd(Negated(n), m, Negated(d), 0, st.get()); break;                // VFNMA
    case 12: r = F16::MulAdd(n, m, d, 0, st.get()); break;                                  // VFMA
    case 13: r = F16::MulAdd(Negated(n), m, d, 0, st.get()); break;                         // VFMS
    default: break;
  }
  SetSingle(s, i.qd, r);
}

// VABS/VNEG (the sign bit, no exception) and VSQRT .F16.
void Handlers::HalfUnary(const Insn& i, State& s) {
  const uint16_t m = Half(s, i.qm);
  if (i.imm == 0) {
    SetSingle(s, i.qd, uint16_t(m & ~F16::kSign));
  } else if (i.imm == 1) {
    SetSingle(s, i.qd, Negated(m));
  } else {
    ScalarStatus st(s);
    SetSingle(s, i.qd, float16_sqrt_arm(m, st.get()));
  }
}

// VMOV.F16 Sd, #imm: imm8 expanded as VFPExpandImm does for a 5-bit exponent.
void Handlers::HalfMoveImmediate(const Insn& i, State& s) {
  const uint32_t imm8 = uint32_t(i.imm);
  const uint32_t b6 = (imm8 >> 6) & 1;
  const uint32_t exponent = (b6 ^ 1) << 4 | (b6 ? 3u : 0u) << 2 | ((imm8 >> 4) & 3);
  SetSingle(s, i.qd, uint16_t((imm8 >> 7) << 15 | exponent << 10 | (imm8 & 15) << 6));
}

// VCMP{E}.F16 Sd, Sm (or #0): FPSCR.NZCV; VCMPE signals on a quiet NaN too.
void Handlers::HalfCompare(const Insn& i, State& s) {
  ScalarStatus st(s);
  const uint16_t d = Half(s, i.qd), m = i.accumulate ? uint16_t(0) : Half(s, i.qm);
  const int r = i.exchange ? F16::Compare(d, m, st.get()) : float16_compare_quiet_arm(d, m, st.get());
  static constexpr uint32_t kNzcv[4] = {0x8u, 0x6u, 0x2u, 0x3u};  // less, equal, greater, unordered
  s.fpscr_nzcv = kNzcv[r + 1] << 28;
}

// VCVT{R} between .F16 and 32-bit integers: i.imm 0 S32/U32 from F16 (i.u unsigned;
// i.rounding: toward zero, else FPSCR's mode), 1 F16 from S32/U32.
void Handlers::HalfConvert(const Insn& i, State& s) {
  ScalarStatus st(s);
  if (i.imm == 1) {
    const uint32_t v = Single(s, i.qm);
    SetSingle(s, i.qd, i.u ? uint32_to_float16_scalbn_arm(v, 0, st.get())
                           : int32_to_float16_scalbn_arm(int32_t(v), 0, st.get()));
    return;
  }
  const uint16_t v = Half(s, i.qm);
  const int rounding = i.rounding ? int(kRoundToZero) : int(st->rounding_mode);
  uint32_t r = 0;
  if ((v & F16::kExponent) == F16::kExponent && (v & ~(F16::kSign | F16::kExponent)) != 0) {
    st->exception_flags |= kInvalid;  // FPToFixed: a NaN is 0
  } else {
    r = i.u ? float16_to_uint32_scalbn_arm(v, rounding, 0, st.get())
            : uint32_t(float16_to_int32_scalbn_arm(v, rounding, 0, st.get()));
  }
  SetSingle(s, i.qd, r);
}

// VCVT between .F16 and fixed point, in place in Sd (QEMU 7.2 trans_VCVT_fix_hp): to half
// rounds to nearest whatever FPSCR says, to fixed point toward zero (a NaN is 0 and
// Invalid), and a 16-bit fixed-point result is sign- or zero-extended into Sd.
void Handlers::HalfConvertFixed(const Insn& i, State& s) {
  ScalarStatus st(s);
  const uint32_t v = Single(s, i.qd);
  const bool wide = i.size == 2;
  const int fbits = i.fbits;
  if (i.imm == 0) {
    st->rounding_mode = kRoundNearestEven;
    const uint16_t h = wide ? (i.u ? uint32_to_float16_scalbn_arm(v, -fbits, st.get())
                                   : int32_to_float16_scalbn_arm(int32_t(v), -fbits, st.get()))
                            : (i.u ? uint16_to_float16_scalbn_arm(uint16_t(v), -fbits, st.get())
                                   : int16_to_float16_scalbn_arm(int16_t(v), -fbits, st.get()));
    SetSingle(s, i.qd, h);
    return;
  }
  const uint16_t h = uint16_t(v);
  uint32_t r = 0;
  if ((h & F16::kExponent) == F16::kExponent && (h & ~(F16::kSign | F16::kExponent)) != 0) {
    st->exception_flags |= kInvalid;
  } else if (wide) {
    r = i.u ? float16_to_uint32_scalbn_arm(h, kRoundToZero, fbits, st.get())
            : uint32_t(float16_to_int32_scalbn_arm(h, kRoundToZero, fbits, st.get()));
  } else {
    r = i.u ? uint32_t(float16_to_uint16_scalbn_arm(h, kRoundToZero, fbits, st.get()))
            : uint32_t(int32_t(float16_to_int16_scalbn_arm(h, kRoundToZero, fbits, st.get())));
  }
  SetSingle(s, i.qd, r);
}

// VSEL .F16: Sn if the condition holds on APSR.NZCV, else Sm; the low half only
// (QEMU 7.2 trans_VSEL masks a half-precision result to 16 bits).
void Handlers::HalfSelect(const Insn& i, State& s) {
  const uint32_t apsr = s.apsr->Read();
  const bool n = apsr >> 31 & 1, z = apsr >> 30 & 1, v = apsr >> 28 & 1;
  const bool pass = i.imm == 0 ? z : i.imm == 1 ? v : i.imm == 2 ? n == v : (!z && n == v);
  SetSingle(s, i.qd, Half(s, pass ? i.qn : i.qm));
}

// VMAXNM/VMINNM .F16 (i.subtract: min): the number when one operand is a quiet NaN.
void Handlers::HalfMaxMin(const Insn& i, State& s) {
  ScalarStatus st(s);
  const uint16_t n = Half(s, i.qn), m = Half(s, i.qm);
  SetSingle(s, i.qd, i.subtract ? F16::MinNum(n, m, st.get()) : F16::MaxNum(n, m, st.get()));
}

// VRINT{A,N,P,M,Z,R,X}.F16: i.imm the rounding mode, or -1 for FPSCR's; only VRINTX
// (i.exchange) raises Inexact (QEMU's helper_rinth and rinth_exact).
void Handlers::HalfRound(const Insn& i, State& s) {
  ScalarStatus st(s);
  if (i.imm >= 0) st->rounding_mode = int8_t(i.imm);
  const uint16_t r = F16::RoundToInt(Half(s, i.qm), st.get());
  if (!i.exchange) st->exception_flags &= uint8_t(~kInexact);
  SetSingle(s, i.qd, r);
}

// VINS.F16: Sd's top half from Sm's bottom; VMOVX.F16: Sd = Sm's top half.
void Handlers::HalfInsert(const Insn& i, State& s) {
  SetSingle(s, i.qd, (Single(s, i.qd) & 0xFFFF) | Single(s, i.qm) << 16);
}
void Handlers::HalfExtract(const Insn& i, State& s) { SetSingle(s, i.qd, Single(s, i.qm) >> 16); }

// VMOV.F16 Sn, Rt and Rt, Sn: the bottom half, the rest zero.
void Handlers::HalfToRegister(const Insn& i, State& s) { s.r[i.rt] = Half(s, i.qn); }
void Handlers::HalfFromRegister(const Insn& i, State& s) { SetSingle(s, i.qn, uint16_t(s.r[i.rt])); }

// VLDR.16/VSTR.16 Sd, [Rn, #+/-imm]: a halfword, the register's top half zero.
void Handlers::HalfLoadStore(const Insn& i, State& s) {
  const uint32_t base = i.rn == 15 ? (s.pc + 4) & ~3u : s.r[i.rn];  // literal: Align(PC, 4)
  const uint32_t address = i.add ? base + uint32_t(i.imm) : base - uint32_t(i.imm);
  if ((i.raw >> 20) & 1) {
    SetSingle(s, i.qd, s.memory->Load(address, 2));
  } else {
    s.memory->Store(address, 2, Half(s, i.qd));
  }
}

}  // namespace faultline::arm::mve
