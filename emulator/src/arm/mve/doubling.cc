// The saturating doubling multiplies beyond VQDMULH (DDI 0553 §C2.4): the dual forms
// VQDMLADH/VQDMLSDH/VQRDMLADH/VQRDMLSDH (and X), the long VQDMULLB/T by vector and by
// scalar, and the accumulating VQDMLAH/VQRDMLAH/VQDMLASH/VQRDMLASH by scalar. Each
// computes exactly (128 bits), saturates once to twice the element width and keeps the
// high half, which is the architecture's order of operations; saturation in an active
// lane sets FPSCR.QC.
#include "handlers.h"
#include "lanes.h"

namespace faultline::arm::mve {

namespace {

// (2 * sum + rounding constant), saturated to 2 * bits, high half.
template <typename T>
T DoubledHigh(Int128 sum, bool round, bool& sat) {
  constexpr int bits = int(8 * sizeof(T));
  const Int128 r = 2 * sum + (round ? Int128(1) << (bits - 1) : 0);
  const Int128 max = (Int128(1) << (2 * bits - 1)) - 1, min = -(Int128(1) << (2 * bits - 1));
  if (r > max || r < min) {
    sat = true;
    return r > max ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
  }
  return T(r >> bits);
}

// Signed element types only: bit 28 of these encodings is not U.
template <typename F>
void BySignedSize(const Insn& i, F&& f) {
  Insn v = i;
  v.u = false;
  BySize(v, f);
}

// VQDMLADH{X}/VQDMLSDH{X}, with R the rounding forms: lane e (even, or odd with X) of Qd
// gets the dual product of the pair e belongs to; the other lanes are left.
//   plain: n[e] * m[e] +/- n[e+1] * m[e+1]     X: n[e] * m[e-1] +/- n[e-1] * m[e]
void DualDoublingHigh(const Insn& i, State& s) {
  BySignedSize(i, [&]<typename T>() {
    const uint16_t mask = ElementMask(s);
    uint8_t n[16], m[16];
    std::memcpy(n, Q(s, i.qn), 16);
    std::memcpy(m, Q(s, i.qm), 16);
    uint8_t* d = Q(s, i.qd);
    const int x = i.exchange ? 1 : 0;
    for (int e = x; e < Lanes<T>(); e += 2) {
      const int other = x ? e - 1 : e + 1;
      const Int128 first = Int128(Lane<T>(n, e)) * Lane<T>(m, e - x);
      const Int128 second = Int128(Lane<T>(n, other)) * Lane<T>(m, e + 1 - x);
      bool sat = false;
      const T r = DoubledHigh<T>(i.subtract ? first - second : first + second, i.rounding, sat);
      if (sat && Active<T>(mask, e)) s.qc = true;
      Merge<T>(d, e, r, mask);
    }
  });
  AdvanceVpt(s);
}

// VQDMULLB/T: lanes 2e + T, doubled into a wide lane; the operand is Qm's lane or Rm.
void DoublingLong(const Insn& i, State& s, bool scalar) {
  BySignedSize(i, [&]<typename T>() {
    Widening<T>(s, i, [&](T n, T m, bool& sat) {
      return Saturate<Wide<T>>(Int128(2) * n * (scalar ? T(s.r[i.rm]) : m), sat);
    });
  });
}

}  // namespace

void Handlers::DualDoublingHigh(const Insn& i, State& s) { mve::DualDoublingHigh(i, s); }
void Handlers::DoublingLong(const Insn& i, State& s) { mve::DoublingLong(i, s, false); }
void Handlers::DoublingLongScalar(const Insn& i, State& s) { mve::DoublingLong(i, s, true); }

// VQ{R}DMLAH: Qda = high(2 * Qn * Rm + (Qda << bits)); VQ{R}DMLASH: Qda = high(2 * Qda *
// Qn + (Rm << bits)), subtract selecting the second.
void Handlers::DoublingAccumulate(const Insn& i, State& s) {
  BySignedSize(i, [&]<typename T>() {
    constexpr int bits = int(8 * sizeof(T));
    const uint16_t mask = ElementMask(s);
    uint8_t n[16];
    std::memcpy(n, Q(s, i.qn), 16);
    uint8_t* d = Q(s, i.qd);
    const T scalar = T(s.r[i.rm]);
    for (int e = 0; e < Lanes<T>(); ++e) {
      const T da = Lane<T>(d, e);
      const Int128 product = Int128(Lane<T>(n, e)) * (i.subtract ? da : scalar);
      const Int128 addend = Int128(i.subtract ? scalar : da) << (bits - 1);  // doubled below
      bool sat = false;
      const T r = DoubledHigh<T>(product + addend, i.rounding, sat);
      if (sat && Active<T>(mask, e)) s.qc = true;
      Merge<T>(d, e, r, mask);
    }
  });
  AdvanceVpt(s);
}

}  // namespace faultline::arm::mve
