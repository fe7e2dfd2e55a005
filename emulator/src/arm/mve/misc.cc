// Lane moves and the remaining integer forms (DDI 0553 §C2.4): VMOV between two 32-bit
// lanes and two general-purpose registers, VIDUP/VDDUP/VIWDUP/VDWDUP, VREV16/32/64,
// VCLS, VQABS/VQNEG, VMAXA/VMINA, VMULL (integer and polynomial), VABAV, VADC/VSBC and
// VBRSR.
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

// VMOV between Rt and one 8- or 16-bit lane: neither predicated nor a step of a VPT
// block (QEMU 7.2 translate-vfp.c: these are only subject to beat-wise execution).
void Handlers::MovToLane(const Insn& i, State& s) {
  const uint32_t v = s.r[i.rt];
  std::memcpy(s.q + i.imm, &v, i.size == 0 ? 1 : 2);  // little-endian: the low bytes
}
void Handlers::MovFromLane(const Insn& i, State& s) {
  const uint8_t* lane = s.q + i.imm;
  if (i.size == 0) {
    s.r[i.rt] = i.u ? lane[0] : uint32_t(int32_t(int8_t(lane[0])));
  } else {
    const uint16_t v = Lane<uint16_t>(lane, 0);
    s.r[i.rt] = i.u ? v : uint32_t(int32_t(int16_t(v)));
  }
}

// VMULL (integer): the products of the bottom (even) or top (odd) lanes, double width.
void Handlers::MulLong(const Insn& i, State& s) {
  BySize(i, [&]<typename T>() {
    Widening<T>(s, i, [](T n, T m, bool&) { return Wide<T>(Wide<T>(n) * Wide<T>(m)); });
  });
}

// VMULLP: carry-less (polynomial) products of 8- or 16-bit lanes.
void Handlers::MulLongPolynomial(const Insn& i, State& s) {
  const auto clmul = []<typename T>(T n, T m, bool&) {
    Wide<T> r = 0;
    for (unsigned b = 0; b < 8 * sizeof(T); ++b) {
      if ((m >> b) & 1) r ^= Wide<T>(Wide<T>(n) << b);
    }
    return r;
  };
  if (i.size == 0) {
    Widening<uint8_t>(s, i, [&](uint8_t n, uint8_t m, bool& sat) { return clmul(n, m, sat); });
  } else {
    Widening<uint16_t>(s, i, [&](uint16_t n, uint16_t m, bool& sat) { return clmul(n, m, sat); });
  }
}

// VADC/VSBC{I}: 32-bit lanes added (or Qn + NOT Qm) with the carry running from lane to
// lane through the active ones, in from FPSCR.C (VADC/VSBC) or 0/1 (the I forms), out
// to FPSCR.C with N, Z and V cleared. The I forms always write the flags, the others
// only when a lane is active (QEMU 7.2 do_vadc).
void Handlers::AddWithCarry(const Insn& i, State& s) {
  uint16_t mask = ElementMask(s);
  const bool initial = (i.raw >> 12) & 1;
  const uint32_t invert = i.subtract ? 0xFFFFFFFFu : 0;
  uint32_t carry = initial ? (i.subtract ? 1 : 0) : (s.fpscr_nzcv & fpscr::kC ? 1 : 0);
  const bool update = initial || (mask & 0x1111) != 0;
  uint8_t n[16], m[16];
  std::memcpy(n, Q(s, i.qn), 16);
  std::memcpy(m, Q(s, i.qm), 16);
  for (int e = 0; e < 4; ++e) {
    const uint64_t r = uint64_t(carry) + Lane<uint32_t>(n, e) + (Lane<uint32_t>(m, e) ^ invert);
    if (Active<uint32_t>(mask, e)) carry = uint32_t(r >> 32);
    Merge<uint32_t>(Q(s, i.qd), e, uint32_t(r), mask);
  }
  if (update) s.fpscr_nzcv = carry ? fpscr::kC : 0;
  AdvanceVpt(s);
}

// VBRSR: each lane of Qn bit-reversed and shifted right to keep Rm's bottom byte of bits
// (0 when that count is 0).
void Handlers::BitReverseShiftRight(const Insn& i, State& s) {
  const uint32_t count = s.r[i.rm] & 0xFF;
  Insn v = i;
  v.u = true;
  BySize(v, [&]<typename T>() {
    WithScalar<T>(s, v, [&](T n, T, bool&) {
      constexpr unsigned bits = 8 * sizeof(T);
      if (count == 0) return T(0);
      T r = 0;
      for (unsigned b = 0; b < bits; ++b) r |= T(((n >> b) & 1) << (bits - 1 - b));
      return count < bits ? T(r >> (bits - count)) : r;
    });
  });
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
