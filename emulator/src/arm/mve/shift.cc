// Shifts by an immediate, and the widening and narrowing moves (DDI 0553 §C2.4: VSHL,
// VSHR, VRSHR, VSHLL/VMOVL, VMOVN, VQMOVN, VQMOVUN, VSHRN, VRSHRN, VQSHRN, VQRSHRN,
// VQSHRUN, VQRSHRUN, VQSHL/VQSHLU, VSLI/VSRI) and VSHLC. Narrowing forms write the
// bottom (B) or top (T) half of each wide lane of Qd and leave the other half.
#include "handlers.h"
#include "lanes.h"

namespace faultline::arm::mve {

namespace {

template <typename T>
int64_t RightShift(T v, int n, bool round) {
  const int64_t x = int64_t(v);
  return round ? (x + (int64_t(1) << (n - 1))) >> n : x >> n;
}

// Narrows each wide lane of Qm (type W) with f into lane 2e + T of Qd (type N).
template <typename W, typename N, typename F>
void Narrowing(const Insn& i, State& s, F f) {
  const uint16_t mask = ElementMask(s);
  uint8_t m[16];
  std::memcpy(m, Q(s, i.qm), 16);
  for (int e = 0; e < Lanes<W>(); ++e) {
    bool sat = false;
    const N r = f(Lane<W>(m, e), sat);
    const int lane = 2 * e + (i.top ? 1 : 0);
    if (sat && Active<N>(mask, lane)) s.qc = true;
    Merge<N>(Q(s, i.qd), lane, r, mask);
  }
  AdvanceVpt(s);
}

// Calls f<W, N>() for the narrowing size (0: 16 -> 8, 1: 32 -> 16) and signedness.
template <typename F>
void ByNarrowSize(const Insn& i, bool is_signed, F&& f) {
  if (i.size == 0) {
    is_signed ? f.template operator()<int16_t, int8_t>() : f.template operator()<uint16_t, uint8_t>();
  } else {
    is_signed ? f.template operator()<int32_t, int16_t>() : f.template operator()<uint32_t, uint16_t>();
  }
}

// Shift right by the immediate, then narrow: truncating, or saturating to N's range,
// or (unsigned_result) saturating a signed value to the unsigned range of N.
void ShiftRightNarrow(const Insn& i, State& s, bool round, bool saturate, bool unsigned_result) {
  const bool is_signed = unsigned_result || !i.u;
  ByNarrowSize(i, is_signed, [&]<typename W, typename N>() {
    using R = N;
    Narrowing<W, R>(i, s, [&](W v, bool& sat) -> R {
      const int64_t x = RightShift<W>(v, i.imm, round);
      if (unsigned_result) return R(Saturate<std::make_unsigned_t<N>>(x, sat));
      return saturate ? Saturate<N>(x, sat) : N(x);
    });
  });
}

}  // namespace

void Handlers::ShlImmediate(const Insn& i, State& s) {
  Insn v = i;
  v.u = true;
  BySize(v, [&]<typename T>() { Unary<T>(s, i, [&](T m, bool&) { return T(uint64_t(m) << i.imm); }); });
}

void Handlers::ShrImmediate(const Insn& i, State& s) {
  BySize(i, [&]<typename T>() {
    Unary<T>(s, i, [&](T m, bool&) { return T(RightShift<T>(m, i.imm, false)); });
  });
}

void Handlers::RshrImmediate(const Insn& i, State& s) {
  BySize(i, [&]<typename T>() {
    Unary<T>(s, i, [&](T m, bool&) { return T(RightShift<T>(m, i.imm, true)); });
  });
}

// VSHLL/VMOVL: lanes 2e + T of Qm, extended to twice their size and shifted left.
void Handlers::ShiftLeftLong(const Insn& i, State& s) {
  const uint16_t mask = ElementMask(s);
  uint8_t m[16];
  std::memcpy(m, Q(s, i.qm), 16);
  const auto widen = [&]<typename N, typename W>() {
    for (int e = 0; e < Lanes<W>(); ++e) {
      const W r = W(uint64_t(int64_t(Lane<N>(m, 2 * e + (i.top ? 1 : 0)))) << i.imm);
      Merge<W>(Q(s, i.qd), e, r, mask);
    }
  };
  if (i.size == 0) {
    i.u ? widen.template operator()<uint8_t, uint16_t>() : widen.template operator()<int8_t, int16_t>();
  } else {
    i.u ? widen.template operator()<uint16_t, uint32_t>() : widen.template operator()<int16_t, int32_t>();
  }
  AdvanceVpt(s);
}

void Handlers::MovN(const Insn& i, State& s) {
  ByNarrowSize(i, false, [&]<typename W, typename N>() { Narrowing<W, N>(i, s, [](W v, bool&) { return N(v); }); });
}
void Handlers::QmovN(const Insn& i, State& s) {
  ByNarrowSize(i, !i.u, [&]<typename W, typename N>() {
    Narrowing<W, N>(i, s, [](W v, bool& sat) { return Saturate<N>(int64_t(v), sat); });
  });
}
void Handlers::QmovUN(const Insn& i, State& s) {
  ByNarrowSize(i, true, [&]<typename W, typename N>() {
    using U = std::make_unsigned_t<N>;
    Narrowing<W, U>(i, s, [](W v, bool& sat) { return Saturate<U>(int64_t(v), sat); });
  });
}
void Handlers::ShrN(const Insn& i, State& s) {
  Insn v = i;
  v.u = true;
  ShiftRightNarrow(v, s, false, false, false);
}
void Handlers::RshrN(const Insn& i, State& s) {
  Insn v = i;
  v.u = true;
  ShiftRightNarrow(v, s, true, false, false);
}
void Handlers::QshrN(const Insn& i, State& s) { ShiftRightNarrow(i, s, false, true, false); }
void Handlers::QrshrN(const Insn& i, State& s) { ShiftRightNarrow(i, s, true, true, false); }
void Handlers::QshrUN(const Insn& i, State& s) { ShiftRightNarrow(i, s, false, true, true); }
void Handlers::QrshrUN(const Insn& i, State& s) { ShiftRightNarrow(i, s, true, true, true); }

// VQSHL (immediate): saturating to the lane's own signedness; VQSHLU: a signed lane
// saturated to the unsigned range (a negative one is 0, saturated).
void Handlers::QshlImmediate(const Insn& i, State& s) {
  BySize(i, [&]<typename T>() {
    Unary<T>(s, i, [&](T m, bool& sat) { return Saturate<T>(Int128(m) << i.imm, sat); });
  });
}
void Handlers::QshluImmediate(const Insn& i, State& s) {
  Insn v = i;
  v.u = false;
  BySize(v, [&]<typename T>() {
    using U = std::make_unsigned_t<T>;
    Unary<T>(s, v, [&](T m, bool& sat) { return T(Saturate<U>(Int128(m) << i.imm, sat)); });
  });
}

namespace {

// VSLI/VSRI: Qm shifted, inserted into Qd; the bits the shift vacates keep Qd's.
void ShiftInsert(const Insn& i, State& s, bool left) {
  Insn v = i;
  v.u = true;
  BySize(v, [&]<typename T>() {
    uint8_t d[16];
    std::memcpy(d, Q(s, i.qd), 16);
    int e = 0;
    const T ones = T(~T(0));
    const T keep = left ? T(~T(ones << i.imm)) : T(i.imm >= int(8 * sizeof(T)) ? ones : T(~T(ones >> i.imm)));
    Unary<T>(s, v, [&](T m, bool&) {
      const T shifted = left ? T(m << i.imm) : T(i.imm >= int(8 * sizeof(T)) ? 0 : m >> i.imm);
      return T((Lane<T>(d, e++) & keep) | shifted);
    });
  });
}
}  // namespace

void Handlers::Sli(const Insn& i, State& s) { ShiftInsert(i, s, true); }
void Handlers::Sri(const Insn& i, State& s) { ShiftInsert(i, s, false); }

// VSHLC: Qda's 32-bit lanes shifted left as one chain, Rdm's low bits coming in at the
// bottom of lane 0 and each active lane's top bits going on to the next; Rdm receives
// what leaves the last active lane. A shift of 32 (imm 0) moves whole lanes.
void Handlers::ShiftLeftCarry(const Insn& i, State& s) {
  const uint16_t mask = ElementMask(s);
  const unsigned shift = i.imm == 0 ? 32u : unsigned(i.imm);
  uint32_t carry = s.r[i.rm];
  uint8_t* d = Q(s, i.qd);
  for (int e = 0; e < 4; ++e) {
    const uint32_t lane = Lane<uint32_t>(d, e);
    const uint32_t r = shift == 32 ? carry : (lane << shift) | (carry & ((1u << shift) - 1));
    if (Active<uint32_t>(mask, e)) carry = shift == 32 ? lane : lane >> (32 - shift);
    Merge<uint32_t>(d, e, r, mask);
  }
  s.r[i.rm] = carry;
  AdvanceVpt(s);
}

uint64_t LongShift(uint64_t value, int32_t n, uint32_t op) {
  bool right = op != 0;
  if (n < 0) {
    right = !right;
    n = -n;
  }
  if (!right) return n >= 64 ? 0 : value << n;
  if (op == 2) return uint64_t(int64_t(value) >> (n > 63 ? 63 : n));
  return n >= 64 ? 0 : value >> n;
}

// LSLL/ASRL by register: RdaHi:RdaLo shifted by SInt(Rm<7:0>). Scalar, not beat-wise: the
// VPT state does not advance.
void Handlers::LongShift(const Insn& i, State& s) {
  const uint64_t value = uint64_t(s.r[i.rdahi]) << 32 | s.r[i.rda];
  const uint64_t result = mve::LongShift(value, int8_t(s.r[i.rm] & 0xFF), uint32_t(i.imm));
  s.r[i.rda] = uint32_t(result);
  s.r[i.rdahi] = uint32_t(result >> 32);
}

}  // namespace faultline::arm::mve
