// Across-vector operations (DDI 0553 §C2.4: VADDV, VADDLV, VMLADAV/VMLSDAV,
// VMLALDAV/VMLSLDAV, VRMLALDAVH/VRMLSLDAVH, VMAXV/VMINV, VMAXAV/VMINAV): active lanes
// only.
#include "handlers.h"
#include "lanes.h"

namespace faultline::arm::mve {

namespace {

template <typename T>
int64_t Extend(const uint8_t* q, int e) {
  return int64_t(Lane<T>(q, e));
}

// The sum of products over active lanes; with X, the even lane pairs with the next odd
// one and the odd with the previous; VMLSDAV subtracts the odd lanes' products.
template <typename T>
int64_t DualMultiplyAdd(const Insn& i, State& s, int64_t acc) {
  const uint16_t mask = ElementMask(s);
  const uint8_t* n = Q(s, i.qn);
  const uint8_t* m = Q(s, i.qm);
  if (!i.exchange && !i.subtract) {
    // VMLADAV proper, a dot product, inactive lanes of Qn zeroed: sixteen 8-bit
    // products fit a 32-bit sum.
    using P = std::conditional_t<sizeof(T) == 1, int32_t, int64_t>;
    uint8_t active[16];
    std::memcpy(active, n, 16);
    KeepBytes(active, LaneMask<T>(mask));
    P sum = 0;
    for (int e = 0; e < Lanes<T>(); ++e) sum += P(Lane<T>(active, e)) * P(Lane<T>(m, e));
    return acc + int64_t(sum);
  }
  for (int e = 0; e < Lanes<T>(); ++e) {
    if (!Active<T>(mask, e)) continue;
    const int ne = i.exchange ? (e & 1 ? e - 1 : e + 1) : e;
    const int64_t p = Extend<T>(n, ne) * Extend<T>(m, e);
    acc += (i.subtract && (e & 1)) ? -p : p;
  }
  return acc;
}

template <typename T>
int64_t DualMultiplyAddUnsigned(const Insn& i, State& s, uint64_t acc) {
  const uint16_t mask = ElementMask(s);
  for (int e = 0; e < Lanes<T>(); ++e) {
    if (Active<T>(mask, e)) acc += uint64_t(Lane<T>(Q(s, i.qn), e)) * uint64_t(Lane<T>(Q(s, i.qm), e));
  }
  return int64_t(acc);
}

int64_t MultiplyAdd(const Insn& i, State& s, int64_t acc) {
  switch (i.size) {
    case 0: return i.u ? DualMultiplyAddUnsigned<uint8_t>(i, s, acc) : DualMultiplyAdd<int8_t>(i, s, acc);
    case 1: return i.u ? DualMultiplyAddUnsigned<uint16_t>(i, s, acc) : DualMultiplyAdd<int16_t>(i, s, acc);
    default: return i.u ? DualMultiplyAddUnsigned<uint32_t>(i, s, acc) : DualMultiplyAdd<int32_t>(i, s, acc);
  }
}

}  // namespace

void Handlers::AddAcross(const Insn& i, State& s) {
  const uint16_t mask = ElementMask(s);
  uint32_t sum = i.accumulate ? s.r[i.rda] : 0;
  uint8_t m[16];
  std::memcpy(m, Q(s, i.qm), 16);
  BySize(i, [&]<typename T>() {
    KeepBytes(m, LaneMask<T>(mask));  // an inactive lane adds zero
    for (int e = 0; e < Lanes<T>(); ++e) sum += uint32_t(int64_t(Lane<T>(m, e)));
  });
  s.r[i.rda] = sum;
  AdvanceVpt(s);
}

void Handlers::AddLongAcross(const Insn& i, State& s) {
  const uint16_t mask = ElementMask(s);
  uint64_t sum = i.accumulate ? (uint64_t(s.r[i.rdahi]) << 32 | s.r[i.rda]) : 0;
  for (int e = 0; e < 4; ++e) {
    if (!Active<uint32_t>(mask, e)) continue;
    const uint32_t v = Lane<uint32_t>(Q(s, i.qm), e);
    sum += i.u ? uint64_t(v) : uint64_t(int64_t(int32_t(v)));
  }
  s.r[i.rda] = uint32_t(sum);
  s.r[i.rdahi] = uint32_t(sum >> 32);
  AdvanceVpt(s);
}

void Handlers::MaxAcross(const Insn& i, State& s) {
  const uint16_t mask = ElementMask(s);
  const bool min = (i.raw >> 7) & 1;
  BySize(i, [&]<typename T>() {
    T r = T(s.r[i.rda]);  // the accumulator is Rda's low element, extended back (as QEMU)
    for (int e = 0; e < Lanes<T>(); ++e) {
      if (!Active<T>(mask, e)) continue;
      const T v = Lane<T>(Q(s, i.qm), e);
      r = min ? (v < r ? v : r) : (v > r ? v : r);
    }
    s.r[i.rda] = uint32_t(int64_t(r));
  });
  AdvanceVpt(s);
}

void Handlers::MaxAbsAcross(const Insn& i, State& s) {
  const uint16_t mask = ElementMask(s);
  const bool min = (i.raw >> 7) & 1;
  Insn u = i;
  u.u = true;
  BySize(u, [&]<typename T>() {  // T unsigned: the accumulator and |lane|
    using S = std::make_signed_t<T>;
    T r = T(s.r[i.rda]);
    for (int e = 0; e < Lanes<T>(); ++e) {
      if (!Active<T>(mask, e)) continue;
      const S v = S(Lane<T>(Q(s, i.qm), e));
      const T a = v < 0 ? T(-int64_t(v)) : T(v);
      r = min ? (a < r ? a : r) : (a > r ? a : r);
    }
    s.r[i.rda] = uint32_t(r);
  });
  AdvanceVpt(s);
}

void Handlers::MulAddAcross(const Insn& i, State& s) {
  const int64_t acc = i.accumulate ? int64_t(int32_t(s.r[i.rda])) : 0;
  s.r[i.rda] = uint32_t(MultiplyAdd(i, s, acc));
  AdvanceVpt(s);
}

void Handlers::MulAddLongAcross(const Insn& i, State& s) {
  const int64_t acc = i.accumulate ? int64_t(uint64_t(s.r[i.rdahi]) << 32 | s.r[i.rda]) : 0;
  const uint64_t r = uint64_t(MultiplyAdd(i, s, acc));
  s.r[i.rda] = uint32_t(r);
  s.r[i.rdahi] = uint32_t(r >> 32);
  AdvanceVpt(s);
}

// VRMLALDAVH/VRMLSLDAVH: VMLALDAV on 32-bit lanes, RdaHi:RdaLo holding bits 71:8 of the
// 72-bit sum; each lane's product is rounded to those bits as it is added (what QEMU 7.2
// computes, which the differential test holds faultline to).
void Handlers::RoundingMulAddLongAcrossHigh(const Insn& i, State& s) {
  const uint16_t mask = ElementMask(s);
  const uint64_t a = i.accumulate ? uint64_t(s.r[i.rdahi]) << 32 | s.r[i.rda] : 0;
  Int128 acc = i.u ? Int128(a) : Int128(int64_t(a));
  const uint8_t* n = Q(s, i.qn);
  const uint8_t* m = Q(s, i.qm);
  for (int e = 0; e < 4; ++e) {
    if (!Active<uint32_t>(mask, e)) continue;
    const int ne = i.exchange ? (e & 1 ? e - 1 : e + 1) : e;
    const Int128 p = i.u ? Int128(uint64_t(Lane<uint32_t>(n, ne)) * Lane<uint32_t>(m, e))
                         : Int128(int64_t(Lane<int32_t>(n, ne)) * Lane<int32_t>(m, e));
    acc += (((i.subtract && (e & 1)) ? -p : p) + 128) >> 8;
  }
  const auto r = uint64_t(acc);
  s.r[i.rda] = uint32_t(r);
  s.r[i.rdahi] = uint32_t(r >> 32);
  AdvanceVpt(s);
}

}  // namespace faultline::arm::mve
