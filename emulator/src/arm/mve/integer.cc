// Integer lane arithmetic (DDI 0553 §C2.4): bitwise, add/subtract (plain, halving,
// rounding-halving, saturating), multiplies (low, high, doubling-high), min/max,
// absolute difference, shifts by a vector, the vector-by-scalar forms, VDUP, the
// one-operand forms and the modified immediates.
#include <bit>

#include "handlers.h"
#include "lanes.h"

namespace faultline::arm::mve {

namespace {

template <typename T>
T Wrap(int64_t v) {
  return T(v);
}

// Saturating shift left by a signed count (VSHL/VRSHL/VQSHL/VQRSHL by vector or scalar,
// DDI 0553 §C2.4, as QEMU's do_sqrshl/do_uqrshl): a negative count shifts right, with
// rounding if `round`; the result saturates if `saturate`, else wraps.
template <typename T>
T ShiftBy(T value, int8_t count, bool round, bool saturate, bool& sat) {
  constexpr int bits = int(8 * sizeof(T));
  const int64_t v = int64_t(value);
  int64_t r;
  if (count >= 0) {
    if (v == 0) return 0;
    if (count >= bits) {
      if (!saturate) return 0;
      sat = true;
      return v < 0 ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max();
    }
    r = int64_t(uint64_t(v) << count);
  } else {
    const int n = -count;
    if (n > bits) {
      r = round ? 0 : (v < 0 ? -1 : 0);
    } else if (round) {
      r = (v + (int64_t(1) << (n - 1))) >> n;
    } else {
      r = v >> (n >= 64 ? 63 : n);
    }
  }
  return saturate ? Saturate<T>(r, sat) : T(r);
}

template <typename T>
T DoublingHigh(T a, T b, bool round, bool& sat) {
  constexpr int bits = int(8 * sizeof(T));
  const Int128 p = Int128(2) * a * b + (round ? (Int128(1) << (bits - 1)) : 0);
  return Saturate<T>(int64_t(p >> bits), sat);
}

// Runs `f` as a two-vector operation on the element type of i's size and signedness.
template <typename F>
void Lanewise(const Insn& i, State& s, F f) {
  BySize(i, [&]<typename T>() { Binary<T>(s, i, [&](T n, T m, bool& sat) { return f(n, m, sat); }); });
}
template <typename F>
void ScalarLanewise(const Insn& i, State& s, F f) {
  BySize(i, [&]<typename T>() { WithScalar<T>(s, i, [&](T n, T m, bool& sat) { return f(n, m, sat); }); });
}

// The bitwise forms act on bytes: predication is per byte anyway.
template <typename F>
void Bitwise(const Insn& i, State& s, F f) {
  Binary<uint8_t>(s, i, [&](uint8_t n, uint8_t m, bool&) { return uint8_t(f(n, m)); });
}

// Shifts by a vector: the value is in the M field, the counts (bottom byte, signed) in N.
void ShiftByVector(const Insn& i, State& s, bool round, bool saturate) {
  Insn swapped = i;
  swapped.qn = i.qm;
  swapped.qm = i.qn;
  BySize(i, [&]<typename T>() {
    Binary<T>(s, swapped, [&](T v, T c, bool& sat) { return ShiftBy<T>(v, int8_t(c), round, saturate, sat); });
  });
}

// Shifts of Qda by the bottom byte of Rm (signed), one count for every lane.
void ShiftByScalar(const Insn& i, State& s, bool round, bool saturate) {
  const auto count = int8_t(s.r[i.rm]);
  BySize(i, [&]<typename T>() {
    Unary<T>(s, i, [&](T v, bool& sat) { return ShiftBy<T>(v, count, round, saturate, sat); });
  });
}

}  // namespace

void Handlers::ShlScalar(const Insn& i, State& s) { ShiftByScalar(i, s, false, false); }
void Handlers::RshlScalar(const Insn& i, State& s) { ShiftByScalar(i, s, true, false); }
void Handlers::QshlScalar(const Insn& i, State& s) { ShiftByScalar(i, s, false, true); }
void Handlers::QrshlScalar(const Insn& i, State& s) { ShiftByScalar(i, s, true, true); }

void Handlers::And(const Insn& i, State& s) { Bitwise(i, s, [](uint8_t n, uint8_t m) { return n & m; }); }
void Handlers::Bic(const Insn& i, State& s) { Bitwise(i, s, [](uint8_t n, uint8_t m) { return n & ~m; }); }
void Handlers::Orr(const Insn& i, State& s) { Bitwise(i, s, [](uint8_t n, uint8_t m) { return n | m; }); }
void Handlers::Orn(const Insn& i, State& s) { Bitwise(i, s, [](uint8_t n, uint8_t m) { return n | ~m; }); }
void Handlers::Eor(const Insn& i, State& s) { Bitwise(i, s, [](uint8_t n, uint8_t m) { return n ^ m; }); }

// Modulo the lane width: in uint64_t, since a signed 32-bit lane's sum may overflow int
// (UBSan found VADD.I32 doing that in mve_dsp).
void Handlers::Add(const Insn& i, State& s) {
  Lanewise(i, s, []<typename T>(T n, T m, bool&) { return T(uint64_t(n) + uint64_t(m)); });
}
void Handlers::Sub(const Insn& i, State& s) {
  Lanewise(i, s, []<typename T>(T n, T m, bool&) { return T(uint64_t(n) - uint64_t(m)); });
}
void Handlers::Mul(const Insn& i, State& s) {
  Lanewise(i, s, []<typename T>(T n, T m, bool&) { return T(uint64_t(n) * uint64_t(m)); });
}
void Handlers::MulHigh(const Insn& i, State& s) {
  const bool round = (i.raw >> 12) & 1;  // VRMULH
  Lanewise(i, s, [round]<typename T>(T n, T m, bool&) {
    constexpr int bits = int(8 * sizeof(T));
    const Int128 p = Int128(n) * Int128(m) + (round ? Int128(1) << (bits - 1) : 0);
    return T(p >> bits);
  });
}
void Handlers::Max(const Insn& i, State& s) {
  Lanewise(i, s, []<typename T>(T n, T m, bool&) { return n > m ? n : m; });
}
void Handlers::Min(const Insn& i, State& s) {
  Lanewise(i, s, []<typename T>(T n, T m, bool&) { return n < m ? n : m; });
}
void Handlers::Abd(const Insn& i, State& s) {
  Lanewise(i, s, []<typename T>(T n, T m, bool&) { return T(n > m ? int64_t(n) - m : int64_t(m) - n); });
}
void Handlers::Hadd(const Insn& i, State& s) {
  Lanewise(i, s, []<typename T>(T n, T m, bool&) { return T((int64_t(n) + m) >> 1); });
}
void Handlers::Rhadd(const Insn& i, State& s) {
  Lanewise(i, s, []<typename T>(T n, T m, bool&) { return T((int64_t(n) + m + 1) >> 1); });
}
void Handlers::Hsub(const Insn& i, State& s) {
  Lanewise(i, s, []<typename T>(T n, T m, bool&) { return T((int64_t(n) - m) >> 1); });
}
void Handlers::Qadd(const Insn& i, State& s) {
  Lanewise(i, s, []<typename T>(T n, T m, bool& sat) { return Saturate<T>(int64_t(n) + m, sat); });
}
void Handlers::Qsub(const Insn& i, State& s) {
  Lanewise(i, s, []<typename T>(T n, T m, bool& sat) { return Saturate<T>(int64_t(n) - m, sat); });
}
// VQDMULH/VQRDMULH are signed only: bit 28 tells them apart, it is not U.
void Handlers::Qdmulh(const Insn& i, State& s) {
  Insn v = i;
  v.u = false;
  Lanewise(v, s, []<typename T>(T n, T m, bool& sat) { return DoublingHigh<T>(n, m, false, sat); });
}
void Handlers::Qrdmulh(const Insn& i, State& s) {
  Insn v = i;
  v.u = false;
  Lanewise(v, s, []<typename T>(T n, T m, bool& sat) { return DoublingHigh<T>(n, m, true, sat); });
}
void Handlers::Shl(const Insn& i, State& s) { ShiftByVector(i, s, false, false); }
void Handlers::Rshl(const Insn& i, State& s) { ShiftByVector(i, s, true, false); }
void Handlers::Qshl(const Insn& i, State& s) { ShiftByVector(i, s, false, true); }
void Handlers::Qrshl(const Insn& i, State& s) { ShiftByVector(i, s, true, true); }

void Handlers::AddScalar(const Insn& i, State& s) {
  ScalarLanewise(i, s, []<typename T>(T n, T m, bool&) { return T(n + m); });
}
void Handlers::SubScalar(const Insn& i, State& s) {
  ScalarLanewise(i, s, []<typename T>(T n, T m, bool&) { return T(n - m); });
}
void Handlers::MulScalar(const Insn& i, State& s) {
  ScalarLanewise(i, s, []<typename T>(T n, T m, bool&) { return T(uint64_t(n) * uint64_t(m)); });
}
void Handlers::HaddScalar(const Insn& i, State& s) {
  ScalarLanewise(i, s, []<typename T>(T n, T m, bool&) { return T((int64_t(n) + m) >> 1); });
}
void Handlers::HsubScalar(const Insn& i, State& s) {
  ScalarLanewise(i, s, []<typename T>(T n, T m, bool&) { return T((int64_t(n) - m) >> 1); });
}
void Handlers::QaddScalar(const Insn& i, State& s) {
  ScalarLanewise(i, s, []<typename T>(T n, T m, bool& sat) { return Saturate<T>(int64_t(n) + m, sat); });
}
void Handlers::QsubScalar(const Insn& i, State& s) {
  ScalarLanewise(i, s, []<typename T>(T n, T m, bool& sat) { return Saturate<T>(int64_t(n) - m, sat); });
}
void Handlers::QdmulhScalar(const Insn& i, State& s) {
  Insn v = i;
  v.u = false;
  ScalarLanewise(v, s, []<typename T>(T n, T m, bool& sat) { return DoublingHigh<T>(n, m, false, sat); });
}
void Handlers::QrdmulhScalar(const Insn& i, State& s) {
  Insn v = i;
  v.u = false;
  ScalarLanewise(v, s, []<typename T>(T n, T m, bool& sat) { return DoublingHigh<T>(n, m, true, sat); });
}

// VMLA: Qda += Qn * Rm; VMLAS: Qda = Qda * Qn + Rm (modulo the element size).
void Handlers::MlaScalar(const Insn& i, State& s) {
  Insn v = i;
  v.u = true;
  uint8_t da[16];
  std::memcpy(da, Q(s, i.qd), 16);
  BySize(v, [&]<typename T>() {
    int e = 0;
    WithScalar<T>(s, v, [&](T n, T m, bool&) { T r = T(uint64_t(Lane<T>(da, e)) + uint64_t(n) * uint64_t(m)); ++e; return r; });
  });
}
void Handlers::MlasScalar(const Insn& i, State& s) {
  Insn v = i;
  v.u = true;
  uint8_t da[16];
  std::memcpy(da, Q(s, i.qd), 16);
  BySize(v, [&]<typename T>() {
    int e = 0;
    WithScalar<T>(s, v, [&](T n, T m, bool&) { T r = T(uint64_t(Lane<T>(da, e)) * uint64_t(n) + uint64_t(m)); ++e; return r; });
  });
}

void Handlers::Dup(const Insn& i, State& s) {
  Insn v = i;
  v.u = true;
  const uint16_t mask = ElementMask(s);
  BySize(v, [&]<typename T>() {
    for (int e = 0; e < Lanes<T>(); ++e) Merge<T>(Q(s, i.qd), e, T(s.r[i.rt]), mask);
  });
  AdvanceVpt(s);
}

void Handlers::Mvn(const Insn& i, State& s) {
  Unary<uint8_t>(s, i, [](uint8_t m, bool&) { return uint8_t(~m); });
}
void Handlers::Abs(const Insn& i, State& s) {
  Insn v = i;
  v.u = false;
  BySize(v, [&]<typename T>() { Unary<T>(s, i, [](T m, bool&) { return T(m < 0 ? -int64_t(m) : m); }); });
}
void Handlers::Neg(const Insn& i, State& s) {
  Insn v = i;
  v.u = false;
  BySize(v, [&]<typename T>() { Unary<T>(s, i, [](T m, bool&) { return T(-int64_t(m)); }); });
}
void Handlers::Clz(const Insn& i, State& s) {
  Insn v = i;
  v.u = true;
  BySize(v, [&]<typename T>() { Unary<T>(s, i, [](T m, bool&) { return T(std::countl_zero(std::make_unsigned_t<T>(m))); }); });
}

// AdvSIMDExpandImm (DDI 0553 §C2.1.x) and the VMOV/VMVN/VORR/VBIC selection by cmode and op.
ExpandedImmediate ExpandModifiedImmediate(const Insn& i) {
  const uint32_t cmode = i.rda, imm8 = uint32_t(i.imm);
  const bool op = i.subtract;
  uint64_t imm = 0;
  const auto rep32 = [](uint32_t v) { return uint64_t(v) << 32 | v; };
  const auto rep16 = [&](uint32_t v) { return rep32(v << 16 | v); };
  switch (cmode >> 1) {
    case 0: imm = rep32(imm8); break;
    case 1: imm = rep32(imm8 << 8); break;
    case 2: imm = rep32(imm8 << 16); break;
    case 3: imm = rep32(imm8 << 24); break;
    case 4: imm = rep16(imm8); break;
    case 5: imm = rep16(imm8 << 8); break;
    case 6: imm = rep32((cmode & 1) ? (imm8 << 16 | 0xFFFF) : (imm8 << 8 | 0xFF)); break;
    default:
      if ((cmode & 1) == 0 && !op) {
        imm = 0x0101010101010101ull * imm8;
      } else if ((cmode & 1) == 0) {
        for (int b = 0; b < 8; ++b) imm |= uint64_t((imm8 >> b) & 1 ? 0xFF : 0) << (8 * b);
      } else {  // cmode 1111, op 0: an FP32 constant
        const uint32_t f = (imm8 & 0x80) << 24 | ((imm8 & 0x40) ? 0x3E000000u : 0x40000000u) | (imm8 & 0x3F) << 19;
        imm = rep32(f);
      }
      break;
  }
  const bool logical = (cmode & 1) && cmode < 12;
  if (op && cmode != 14) imm = ~imm;  // VMVN, and VBIC's inverted mask
  return {imm, logical ? (op ? ExpandedImmediate::kAnd : ExpandedImmediate::kOr) : ExpandedImmediate::kMove};
}

void Handlers::ModifiedImmediate(const Insn& i, State& s) {
  const auto [imm, how] = ExpandModifiedImmediate(i);
  uint8_t bytes[16];
  std::memcpy(bytes, &imm, 8);
  std::memcpy(bytes + 8, &imm, 8);
  Unary<uint8_t>(s, i, [&, b = 0](uint8_t, bool&) mutable {
    const uint8_t old = Q(s, i.qd)[b], v = bytes[b];
    ++b;
    return how == ExpandedImmediate::kAnd ? uint8_t(old & v) : how == ExpandedImmediate::kOr ? uint8_t(old | v) : v;
  });
}

}  // namespace faultline::arm::mve
