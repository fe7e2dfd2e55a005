// Lane-wise building blocks of the MVE instructions (internal to arm/mve/): Q register
// lanes, predicated writes and the element loops every data-processing form shares.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "mve.h"

namespace faultline::arm::mve {

// 128-bit intermediates of the doubling and high-half multiplies (GCC and Clang).
__extension__ typedef __int128 Int128;

inline uint8_t* Q(State& s, int n) { return s.q + 16 * n; }

template <typename T>
T Lane(const uint8_t* q, int e) {
  T v;
  std::memcpy(&v, q + e * sizeof(T), sizeof(T));
  return v;
}

// Writes `value` into lane e of q, byte by byte as the predicate allows: a predicate that
// covers only part of an element (VCTP.8 before a 32-bit operation) writes only those
// bytes (DDI 0553 §B5.6, as QEMU's mergemask does).
template <typename T>
void Merge(uint8_t* q, int e, T value, uint16_t mask) {
  uint8_t bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  for (unsigned b = 0; b < sizeof(T); ++b) {
    if (mask >> (e * sizeof(T) + b) & 1) q[e * sizeof(T) + b] = bytes[b];
  }
}

// Whether lane e of an element size T is active: its lowest byte's predicate bit.
template <typename T>
bool Active(uint16_t mask, int e) {
  return (mask >> (e * sizeof(T))) & 1;
}

template <typename T>
constexpr int Lanes() {
  return 16 / int(sizeof(T));
}

// The predicate widened to whole lanes of T: every byte of an active lane (the lane's
// lowest byte's bit set) set.
template <typename T>
uint16_t LaneMask(uint16_t mask) {
  if constexpr (sizeof(T) == 1) return mask;
  if constexpr (sizeof(T) == 2) return uint16_t((mask & 0x5555) * 3);
  if constexpr (sizeof(T) == 4) return uint16_t((mask & 0x1111) * 15);
  return uint16_t((mask & 0x0101) * 255);
}

// The eight bytes a mask byte selects, all ones where its bit is set.
inline uint64_t ByteSelect(uint8_t mask) {
  struct Table {
    uint64_t of[256] = {};
    constexpr Table() {
      for (int m = 0; m < 256; ++m) {
        for (int b = 0; b < 8; ++b) of[m] |= (m >> b & 1) ? uint64_t(0xFF) << (8 * b) : 0;
      }
    }
  };
  static constexpr Table kBytes;
  return kBytes.of[mask];
}

// Clears the bytes of `bytes` whose mask bit is clear: branch-free predication of a
// whole vector, eight bytes at a time.
inline void KeepBytes(uint8_t bytes[16], uint16_t mask) {
  uint64_t w[2];
  std::memcpy(w, bytes, 16);
  w[0] &= ByteSelect(uint8_t(mask));
  w[1] &= ByteSelect(uint8_t(mask >> 8));
  std::memcpy(bytes, w, 16);
}

// Writes the bytes of `r` whose mask bit is set into q: Merge for every lane at once
// (the lanes' results computed first, then one predicated write).
inline void MergeAll(uint8_t* q, const uint8_t r[16], uint16_t mask) {
  if (mask == 0xFFFF) {
    std::memcpy(q, r, 16);
    return;
  }
  uint64_t w[2], v[2];
  std::memcpy(w, q, 16);
  std::memcpy(v, r, 16);
  for (int h = 0; h < 2; ++h) {
    const uint64_t m = ByteSelect(uint8_t(mask >> (8 * h)));
    w[h] = (w[h] & ~m) | (v[h] & m);
  }
  std::memcpy(q, w, 16);
}

// Sets FPSCR.QC if a lane of T saturated (bit e of `saturated`) and is active.
template <typename T>
void SaturatedLanes(State& s, uint32_t saturated, uint16_t mask) {
  for (int e = 0; saturated != 0; ++e, saturated >>= 1) {
    if ((saturated & 1) && Active<T>(mask, e)) s.qc = true;
  }
}

// Saturates a wide value into T; `sat` is set when it did not fit.
template <typename T, typename W>
T Saturate(W v, bool& sat) {
  if (v > W(std::numeric_limits<T>::max())) {
    sat = true;
    return std::numeric_limits<T>::max();
  }
  if (v < W(std::numeric_limits<T>::min())) {
    sat = true;
    return std::numeric_limits<T>::min();
  }
  return T(v);
}

// Qd = f(Qn, Qm) lane by lane. f(n, m, sat) may set sat; a saturation in an active lane
// sets FPSCR.QC.
template <typename T, typename F>
void Binary(State& s, const Insn& i, F f) {
  const uint16_t mask = ElementMask(s);
  uint8_t n[16], m[16];
  std::memcpy(n, Q(s, i.qn), 16);
  std::memcpy(m, Q(s, i.qm), 16);
  T r[Lanes<T>()];
  uint32_t saturated = 0;
  for (int e = 0; e < Lanes<T>(); ++e) {
    bool sat = false;
    r[e] = f(Lane<T>(n, e), Lane<T>(m, e), sat);
    saturated |= uint32_t(sat) << e;
  }
  SaturatedLanes<T>(s, saturated, mask);
  MergeAll(Q(s, i.qd), reinterpret_cast<const uint8_t*>(r), mask);
  AdvanceVpt(s);
}

// Qd = f(Qn, Rm) lane by lane: the scalar forms.
template <typename T, typename F>
void WithScalar(State& s, const Insn& i, F f) {
  const uint16_t mask = ElementMask(s);
  uint8_t n[16];
  std::memcpy(n, Q(s, i.qn), 16);
  const T m = T(s.r[i.rm]);
  T r[Lanes<T>()];
  uint32_t saturated = 0;
  for (int e = 0; e < Lanes<T>(); ++e) {
    bool sat = false;
    r[e] = f(Lane<T>(n, e), m, sat);
    saturated |= uint32_t(sat) << e;
  }
  SaturatedLanes<T>(s, saturated, mask);
  MergeAll(Q(s, i.qd), reinterpret_cast<const uint8_t*>(r), mask);
  AdvanceVpt(s);
}

// Qd = f(Qm) lane by lane.
template <typename T, typename F>
void Unary(State& s, const Insn& i, F f) {
  const uint16_t mask = ElementMask(s);
  uint8_t m[16];
  std::memcpy(m, Q(s, i.qm), 16);
  T r[Lanes<T>()];
  uint32_t saturated = 0;
  for (int e = 0; e < Lanes<T>(); ++e) {
    bool sat = false;
    r[e] = f(Lane<T>(m, e), sat);
    saturated |= uint32_t(sat) << e;
  }
  SaturatedLanes<T>(s, saturated, mask);
  MergeAll(Q(s, i.qd), reinterpret_cast<const uint8_t*>(r), mask);
  AdvanceVpt(s);
}

// Calls F::template Run<T>() with T the element type of size 0/1/2, signed or not.
template <typename F>
void BySize(const Insn& i, F&& f) {
  switch (i.size) {
    case 0: i.u ? f.template operator()<uint8_t>() : f.template operator()<int8_t>(); break;
    case 1: i.u ? f.template operator()<uint16_t>() : f.template operator()<int16_t>(); break;
    default: i.u ? f.template operator()<uint32_t>() : f.template operator()<int32_t>(); break;
  }
}

// The next wider type of T, same signedness.
template <typename T>
using Wide = std::conditional_t<
    sizeof(T) == 1, std::conditional_t<std::is_signed_v<T>, int16_t, uint16_t>,
    std::conditional_t<sizeof(T) == 2, std::conditional_t<std::is_signed_v<T>, int32_t, uint32_t>,
                       std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>>;

// Qd's wide lanes = f(Qn, Qm) of the bottom (even) or top (odd) lanes: VMULL, VMULLP,
// VQDMULL.
template <typename T, typename F>
void Widening(State& s, const Insn& i, F f) {
  using W = Wide<T>;
  const uint16_t mask = ElementMask(s);
  uint8_t n[16], m[16];
  std::memcpy(n, Q(s, i.qn), 16);
  std::memcpy(m, Q(s, i.qm), 16);
  for (int e = 0; e < Lanes<W>(); ++e) {
    const int lane = 2 * e + (i.top ? 1 : 0);
    bool sat = false;
    const W r = f(Lane<T>(n, lane), Lane<T>(m, lane), sat);
    if (sat && Active<W>(mask, e)) s.qc = true;
    Merge<W>(Q(s, i.qd), e, r, mask);
  }
  AdvanceVpt(s);
}

}  // namespace faultline::arm::mve
