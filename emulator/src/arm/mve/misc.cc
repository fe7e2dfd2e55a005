// Lane moves and the remaining integer forms (DDI 0553 §C2.4): VMOV between two 32-bit
// lanes and two general-purpose registers, VIDUP/VDDUP/VIWDUP/VDWDUP, VREV16/32/64,
// VCLS, VQABS/VQNEG, VMAXA/VMINA, VMULL (integer) and VABAV.
#include <bit>
#include <cstdlib>

#include "handlers.h"
#include "lanes.h"

namespace faultline::arm::mve {

namespace {

// VIDUP and friends: Qd's lanes from a running offset that steps by imm, wrapping at
// Rm for the W forms; Rn receives the offset after the last lane.
uint32_t Step(const Insn& i, const State& s, uint32_t offset) {
  const auto imm = uint32_t(i.imm);
  if (i.subtract) {  // VDDUP, VDWDUP
    if (i.exchange && offset == 0) offset = s.r[i.rm];
    return offset - imm;
  }
  offset += imm;
  if (i.exchange && offset == s.r[i.rm]) offset = 0;
  return offset;
}

}  // namespace

// VMOV Rt, Rt2, Qd[idx], Qd[idx + 2] and back: not predicated (DDI 0553 §C2.4 VMOV).
void Handlers::MovToRegisters(const Insn& i, State& s) {
  s.r[i.rt] = Lane<uint32_t>(Q(s, i.qd), i.imm);
  s.r[i.rt2] = Lane<uint32_t>(Q(s, i.qd), i.imm + 2);
}
void Handlers::MovFromRegisters(const Insn& i, State& s) {
  std::memcpy(Q(s, i.qd) + 4 * i.imm, &s.r[i.rt], 4);
  std::memcpy(Q(s, i.qd) + 4 * (i.imm + 2), &s.r[i.rt2], 4);
}

void Handlers::IncrementDup(const Insn& i, State& s) {
  const uint16_t mask = ElementMask(s);
  uint32_t offset = s.r[i.rn];
  BySize(i, [&]<typename T>() {
    for (int e = 0; e < Lanes<T>(); ++e) {
      Merge<T>(Q(s, i.qd), e, T(offset), mask);
      offset = Step(i, s, offset);
    }
  });
  s.r[i.rn] = offset;
  AdvanceVpt(s);
}

// VREV16/32/64: the elements of each 16-, 32- or 64-bit container in reverse order
// (container size in imm, bytes).
void Handlers::Reverse(const Insn& i, State& s) {
  const int esize = 1 << i.size, container = i.imm;
  uint8_t m[16], r[16];
  std::memcpy(m, Q(s, i.qm), 16);
  for (int b = 0; b < 16; b += esize) {
    const int base = b / container * container, within = b - base;
    std::memcpy(r + base + (container - esize - within), m + b, size_t(esize));
  }
  const uint16_t mask = ElementMask(s);
  for (int b = 0; b < 16; ++b) {
    if (mask >> b & 1) Q(s, i.qd)[b] = r[b];
  }
  AdvanceVpt(s);
}

// VCLS: leading bits equal to the sign bit, not counting the sign bit.
void Handlers::Cls(const Insn& i, State& s) {
  BySize(i, [&]<typename T>() {
    using U = std::make_unsigned_t<T>;
    Unary<T>(s, i, [](T v, bool&) {
      const U x = U(v < 0 ? ~v : v);
      return T(std::countl_zero(x) - 1);
    });
  });
}
void Handlers::Qabs(const Insn& i, State& s) {
  BySize(i, [&]<typename T>() {
    Unary<T>(s, i, [](T v, bool& sat) { return Saturate<T>(v < 0 ? -int64_t(v) : int64_t(v), sat); });
  });
}
void Handlers::Qneg(const Insn& i, State& s) {
  BySize(i, [&]<typename T>() { Unary<T>(s, i, [](T v, bool& sat) { return Saturate<T>(-int64_t(v), sat); }); });
}

// VMAXA/VMINA: Qda (unsigned) = max/min(Qda, |Qm|) with Qm signed.
void Handlers::MaxAbs(const Insn& i, State& s) {
  Insn two = i;
  two.qn = i.qd;
  const bool min = i.subtract;
  BySize(two, [&]<typename T>() {
    using U = std::make_unsigned_t<T>;
    Binary<T>(s, two, [min](T d, T m, bool&) {
      const U a = U(d), b = U(m < 0 ? U(0) - U(m) : U(m));
      return T(min ? std::min(a, b) : std::max(a, b));
    });
  });
}

// VMULL (integer): the products of the bottom (even) or top (odd) lanes, double width.
void Handlers::MulLong(const Insn& i, State& s) {
  const uint16_t mask = ElementMask(s);
  uint8_t n[16], m[16];
  std::memcpy(n, Q(s, i.qn), 16);
  std::memcpy(m, Q(s, i.qm), 16);
  BySize(i, [&]<typename T>() {
    using W = Wide<T>;
    for (int e = 0; e < Lanes<W>(); ++e) {
      const int lane = 2 * e + (i.top ? 1 : 0);
      Merge<W>(Q(s, i.qd), e, W(W(Lane<T>(n, lane)) * W(Lane<T>(m, lane))), mask);
    }
  });
  AdvanceVpt(s);
}

// VABAV: Rda += |Qn - Qm| over the active lanes.
void Handlers::AbsDiffAcross(const Insn& i, State& s) {
  const uint16_t mask = ElementMask(s);
  uint32_t sum = s.r[i.rda];
  BySize(i, [&]<typename T>() {
    for (int e = 0; e < Lanes<T>(); ++e) {
      if (!Active<T>(mask, e)) continue;
      const int64_t d = int64_t(Lane<T>(Q(s, i.qn), e)) - int64_t(Lane<T>(Q(s, i.qm), e));
      sum += uint32_t(d < 0 ? -d : d);
    }
  });
  s.r[i.rda] = sum;
  AdvanceVpt(s);
}

}  // namespace faultline::arm::mve
