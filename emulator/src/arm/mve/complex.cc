// Complex arithmetic on pairs of lanes (DDI 0553 §C2.4: VCADD and VHCADD for integers,
// VCADD, VCMUL and VCMLA for floating point): even lanes hold real parts, odd lanes
// imaginary ones, and the rotation turns Qm by quarter turns. Every result is computed
// before any lane of Qd is written, so Qd may be an operand.
#include "float_lanes.h"
#include "handlers.h"

namespace faultline::arm::mve {

namespace {

// rot90:  (n.re - m.im, n.im + m.re)     rot270: (n.re + m.im, n.im - m.re)
template <typename T>
void ComplexAdd(const Insn& i, State& s, bool halving) {
  const bool rot270 = (i.raw >> 12) & 1;
  uint8_t n[16], m[16];
  std::memcpy(n, Q(s, i.qn), 16);
  std::memcpy(m, Q(s, i.qm), 16);
  int e = 0;
  Binary<T>(s, i, [&](T, T, bool&) {
    const int64_t a = Lane<T>(n, e);
    const int64_t b = (e & 1) ? Lane<T>(m, e - 1) : Lane<T>(m, e + 1);
    const bool add = (e & 1) ? !rot270 : rot270;
    ++e;
    const int64_t r = add ? a + b : a - b;
    return T(halving ? r >> 1 : r);
  });
}

// VCADD (floating point): as the integer form, each lane with its own status.
template <typename F>
void FloatComplexAdd(const Insn& i, State& s) {
  using B = typename F::Bits;
  const bool rot270 = (i.raw >> 24) & 1;
  const uint16_t mask = ElementMask(s);
  uint8_t n[16], m[16];
  std::memcpy(n, Q(s, i.qn), 16);
  std::memcpy(m, Q(s, i.qm), 16);
  ElementStatus<F> status;
  for (int e = 0; e < Lanes<B>(); ++e) {
    FloatStatus* st = status.Of(s, Active<B>(mask, e));
    const B a = Lane<B>(n, e), b = (e & 1) ? Lane<B>(m, e - 1) : Lane<B>(m, e + 1);
    const bool add = (e & 1) ? !rot270 : rot270;
    Merge<B>(Q(s, i.qd), e, add ? F::Add(a, b, st) : F::Sub(a, b, st), mask);
  }
  AdvanceVpt(s);
}

// VCMUL/VCMLA #rot, per pair (re, im), with -x flipping Qm's sign bit first:
//   #0: (n.re * m.re, n.re * m.im)       #90: (n.im * -m.im, n.im * m.re)
//   #180: (n.re * -m.re, n.re * -m.im)   #270: (n.im * m.im, n.im * -m.re)
// VCMLA adds each product to Qd's lane, fused. A pair with no active byte is skipped.
template <typename F>
void ComplexMultiply(const Insn& i, State& s, bool accumulate) {
  using B = typename F::Bits;
  const unsigned rot = unsigned(i.imm);
  const uint16_t mask = ElementMask(s);
  uint8_t n[16], m[16], d[16];
  std::memcpy(n, Q(s, i.qn), 16);
  std::memcpy(m, Q(s, i.qm), 16);
  std::memcpy(d, Q(s, i.qd), 16);
  const auto negated = [](B v) { return B(v ^ F::kSign); };
  constexpr unsigned pair_bytes = 2 * sizeof(B);
  ElementStatus<F> status_re, status_im;
  for (int e = 0; e < Lanes<B>(); e += 2) {
    if (((mask >> (e * sizeof(B))) & ((1u << pair_bytes) - 1)) == 0) continue;
    const B re = Lane<B>(m, e), im = Lane<B>(m, e + 1);
    const B a = (rot & 1) ? Lane<B>(n, e + 1) : Lane<B>(n, e);
    const B b0 = rot == 0 ? re : rot == 1 ? negated(im) : rot == 2 ? negated(re) : im;
    const B b1 = rot == 0 ? im : rot == 1 ? re : rot == 2 ? negated(im) : negated(re);
    FloatStatus* st0 = status_re.Of(s, Active<B>(mask, e));
    FloatStatus* st1 = status_im.Of(s, Active<B>(mask, e + 1));
    const B r0 = accumulate ? F::MulAdd(a, b0, Lane<B>(d, e), 0, st0) : F::Mul(a, b0, st0);
    const B r1 = accumulate ? F::MulAdd(a, b1, Lane<B>(d, e + 1), 0, st1) : F::Mul(a, b1, st1);
    Merge<B>(Q(s, i.qd), e, r0, mask);
    Merge<B>(Q(s, i.qd), e + 1, r1, mask);
  }
  AdvanceVpt(s);
}

}  // namespace

void Handlers::FloatComplexAdd(const Insn& i, State& s) {
  ByPrecision(i, [&]<typename F>() { mve::FloatComplexAdd<F>(i, s); });
}
void Handlers::FloatComplexMultiply(const Insn& i, State& s) {
  ByPrecision(i, [&]<typename F>() { ComplexMultiply<F>(i, s, false); });
}
void Handlers::FloatComplexMultiplyAdd(const Insn& i, State& s) {
  ByPrecision(i, [&]<typename F>() { ComplexMultiply<F>(i, s, true); });
}

void Handlers::ComplexAdd(const Insn& i, State& s) {
  BySize(i, [&]<typename T>() { mve::ComplexAdd<T>(i, s, false); });
}

// VHCADD is signed: bit 28 selects it from VCADD, it is not U.
void Handlers::HalvingComplexAdd(const Insn& i, State& s) {
  Insn v = i;
  v.u = false;
  BySize(v, [&]<typename T>() { mve::ComplexAdd<T>(v, s, true); });
}

}  // namespace faultline::arm::mve
