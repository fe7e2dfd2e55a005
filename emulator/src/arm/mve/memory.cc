// Vector loads and stores (DDI 0553 §C2.4): contiguous VLDRB/VLDRH/VLDRW, VSTRB/VSTRH/
// VSTRW and their widening/narrowing forms; gather loads and scatter stores (a vector of
// offsets from Rn, or a vector of addresses plus an immediate); the interleaving
// VLD2x/VLD4x/VST2x/VST4x. Predicated-off lanes are not accessed; a load writes zero to
// them (QEMU 7.2 mve_helper.c does the same).
#include "handlers.h"
#include "lanes.h"

#include <cstring>
#include <type_traits>

namespace faultline::arm::mve {

namespace {

void NoWriteback(int, uint32_t) {}

// Guest memory through the Memory interface, element by element: an aligned element of
// plain memory straight in its host bytes (Memory::Host, as a contiguous span: a
// scatter of CMSIS-NN's made four million byte stores through the engine per run), any
// other through Load and Store, which take the faults. `size` is 1, 2 or 4, or 8 for a
// doubleword form, whose lanes move as words (Memory::Load's size 8 is a word too).
struct ByElement {
  Memory& memory;
  uint32_t Load(uint32_t address, unsigned size) const {
    const unsigned n = size < 4 ? size : 4;
    if (const uint8_t* p = address % n == 0 ? memory.Host(address, n, false) : nullptr) {
      uint32_t v = 0;
      std::memcpy(&v, p, n);  // little-endian, as the guest's
      return v;
    }
    return memory.Load(address, size);
  }
  void Store(uint32_t address, unsigned size, uint32_t value) const {
    const unsigned n = size < 4 ? size : 4;
    if (uint8_t* p = address % n == 0 ? memory.Host(address, n, true) : nullptr) {
      std::memcpy(p, &value, n);
      return;
    }
    memory.Store(address, size, value);
  }
};

// A contiguous span's host bytes (Memory::Host), little-endian as the guest's.
struct InHost {
  uint8_t* host;
  uint32_t base;
  // One fixed-size copy per size: the compiler makes each a single move.
  uint32_t Load(uint32_t address, unsigned size) const {
    const uint8_t* p = host + (address - base);
    if (size == 1) return *p;
    if (size == 2) {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  void Store(uint32_t address, unsigned size, uint32_t value) const {
    uint8_t* p = host + (address - base);
    if (size == 1) {
      *p = uint8_t(value);
    } else if (size == 2) {
      const uint16_t v = uint16_t(value);
      std::memcpy(p, &v, 2);
    } else {
      std::memcpy(p, &value, 4);
    }
  }
};

// Every form but the interleaving ones, element by element in lane order: lane e is at
// address_of(e); a load zero- or sign-extends the memory element (msize) into the lane
// (T). `written(e, address)` is the writeback of the vector-of-addresses form.
template <typename T, typename A, typename W, typename M = ByElement>
void GatherScatter(const Insn& i, State& s, bool load, A address_of, W written, M memory) {
  const uint16_t mask = ElementMask(s);
  const unsigned msize = 1u << i.msize;
  uint8_t* d = Q(s, i.qd);
  for (int e = 0; e < Lanes<T>(); ++e) {
    const uint32_t address = address_of(e);
    const bool active = Active<T>(mask, e);
    if (load) {
      T v = 0;
      if (active) {
        const uint32_t raw = memory.Load(address, msize);
        const int bits = int(8 * msize);
        v = i.u || bits == 32 ? T(raw) : T(int32_t(raw << (32 - bits)) >> (32 - bits));
      }
      Merge<T>(d, e, v, 0xFFFF);
    } else if (active) {
      memory.Store(address, msize, uint32_t(Lane<T>(d, e)));
    }
    written(e, address);
  }
}
template <typename T, typename A, typename W>
void GatherScatter(const Insn& i, State& s, bool load, A address_of, W written) {
  GatherScatter<T>(i, s, load, address_of, written, ByElement{*s.memory});
}

// A contiguous transfer between T lanes (unsigned) and memory elements M at `host`, M
// as wide as T or narrower (widening loads: M signed sign-extends; narrowing stores keep
// the low bits). A load writes every lane, zero where inactive; a store writes the
// active lanes only. Inactive elements are read but not used: the bytes are plain
// memory (Memory::Host), where a read has no effect.
template <typename T, typename M>
void HostTransfer(uint8_t* d, uint8_t* host, bool load, uint16_t mask) {
  if constexpr (sizeof(M) <= sizeof(T)) {
    constexpr int n = Lanes<T>();
    if (load) {
      uint8_t bytes[16];
      if constexpr (sizeof(M) == sizeof(T)) {
        std::memcpy(bytes, host, 16);
      } else {
        T lanes[n];
        for (int e = 0; e < n; ++e) {
          M v;
          std::memcpy(&v, host + e * sizeof(M), sizeof(M));
          lanes[e] = T(v);
        }
        std::memcpy(bytes, lanes, 16);
      }
      KeepBytes(bytes, LaneMask<T>(mask));
      std::memcpy(d, bytes, 16);
    } else if (sizeof(M) == sizeof(T) && LaneMask<T>(mask) == 0xFFFF) {
      std::memcpy(host, d, 16);  // every lane
    } else {
      for (int e = 0; e < n; ++e) {
        if (!Active<T>(mask, e)) continue;
        const M v = M(Lane<T>(d, e));
        std::memcpy(host + e * sizeof(M), &v, sizeof(M));
      }
    }
  }
}

// A contiguous transfer of T lanes: straight to the host bytes when the whole span is
// plain memory (the common case, one lookup instead of one engine access per element).
template <typename T, typename A>
void Contiguous(const Insn& i, State& s, bool load, uint32_t address, A address_of) {
  const unsigned span = unsigned(Lanes<T>()) << i.msize;
  uint8_t* host = s.memory->Host(address, span, !load);
  if (host == nullptr) return GatherScatter<T>(i, s, load, address_of, NoWriteback);
  using U = std::make_unsigned_t<T>;
  const uint16_t mask = ElementMask(s);
  uint8_t* d = Q(s, i.qd);
  // The memory element is signed when a load widens it by sign extension.
  const bool extend = !i.u && i.msize < i.size;
  switch (i.msize) {
    case 0: extend ? HostTransfer<U, int8_t>(d, host, load, mask) : HostTransfer<U, uint8_t>(d, host, load, mask); break;
    case 1: extend ? HostTransfer<U, int16_t>(d, host, load, mask) : HostTransfer<U, uint16_t>(d, host, load, mask); break;
    default: HostTransfer<U, uint32_t>(d, host, load, mask); break;
  }
}

void Transfer(const Insn& i, State& s) {
  const bool load = (i.raw >> 20) & 1;
  const uint32_t base = s.r[i.rn];
  const uint32_t offset_address = i.add ? base + uint32_t(i.imm) : base - uint32_t(i.imm);
  const uint32_t address = i.pre ? offset_address : base;
  const auto contiguous = [&](int e) { return address + uint32_t(e) * (1u << i.msize); };
  switch (i.size) {
    case 0: Contiguous<uint8_t>(i, s, load, address, contiguous); break;
    case 1: Contiguous<uint16_t>(i, s, load, address, contiguous); break;
    default: Contiguous<uint32_t>(i, s, load, address, contiguous); break;
  }
  if (i.wback) s.r[i.rn] = offset_address;
  AdvanceVpt(s);
}

// VLDRx/VSTRx Qd, [Rn, Qm{, UXTW #os}]: lane e at Rn + (Qm[e] << imm), Qm's lanes
// unsigned and as wide as Qd's. Doubleword lanes (VLDRD/VSTRD) move as two words, each
// under its own bytes' predicate, the offset read from the low word.
void ByOffsets(const Insn& i, State& s) {
  const bool load = (i.raw >> 20) & 1;
  const uint32_t base = s.r[i.rn];
  uint8_t m[16];
  std::memcpy(m, Q(s, i.qm), 16);  // Qm may be Qd for a store
  const auto by_lane = [&]<typename T>() {
    GatherScatter<T>(i, s, load, [&](int e) { return base + (uint32_t(Lane<T>(m, e)) << i.imm); }, NoWriteback);
  };
  switch (i.size) {
    case 0: by_lane.template operator()<uint8_t>(); break;
    case 1: by_lane.template operator()<uint16_t>(); break;
    case 2: by_lane.template operator()<uint32_t>(); break;
    default:
      GatherScatter<uint32_t>(
          i, s, load, [&](int e) { return base + (Lane<uint32_t>(m, e & ~1) << i.imm) + 4 * uint32_t(e & 1); },
          NoWriteback);
      break;
  }
  AdvanceVpt(s);
}

// VLDRW/VLDRD/VSTRW/VSTRD Qd, [Qm, #imm]{!}: lane e at Qm[e] + imm; writeback puts the
// address back into Qm's lane (after the access: a load into Qm = Qd keeps the address).
void ByAddresses(const Insn& i, State& s) {
  const bool load = (i.raw >> 20) & 1;
  const uint32_t offset = i.add ? uint32_t(i.imm) : 0u - uint32_t(i.imm);
  uint8_t* qm = Q(s, i.qm);
  uint8_t m[16];
  std::memcpy(m, qm, 16);
  const auto written = [&](int e, uint32_t address) {
    if (!i.wback) return;
    if (i.size == 2) {
      std::memcpy(qm + 4 * e, &address, 4);
    } else if (e & 1) {
      const uint32_t lane = address - 4;
      std::memcpy(qm + 4 * (e & ~1), &lane, 4);
    }
  };
  if (i.size == 2) {
    GatherScatter<uint32_t>(i, s, load, [&](int e) { return Lane<uint32_t>(m, e) + offset; }, written);
  } else {
    GatherScatter<uint32_t>(
        i, s, load, [&](int e) { return Lane<uint32_t>(m, e & ~1) + offset + 4 * uint32_t(e & 1); }, written);
  }
  AdvanceVpt(s);
}

// VLD2x/VLD4x and VST2x/VST4x (n = 2 or 4 registers Qd..Qd+n-1): the structure of
// n-element records in the n*16 bytes at Rn, element k of memory being lane k / n of
// Q(d + k % n). Each of the n instructions (pattern x) moves four of the block's words,
// which the architecture fixes per pattern so that a VLDn0..VLDn(n-1) sequence covers
// it (DDI 0553 §C2.4, VLD2/VLD4 pseudocode; checked against QEMU 7.2 by the
// differential test). Not predicated, no VPT step: QEMU applies neither.
constexpr uint8_t kVld2Words[2][4] = {{0, 1, 6, 7}, {2, 3, 4, 5}};
constexpr uint8_t kVld4Words[4][4] = {{0, 1, 10, 11}, {2, 3, 12, 13}, {4, 5, 14, 15}, {6, 7, 8, 9}};

void Interleaved(const Insn& i, State& s, unsigned n) {
  const bool load = (i.raw >> 20) & 1;
  const unsigned pattern = unsigned(i.imm);
  const uint8_t* words = n == 2 ? kVld2Words[pattern] : kVld4Words[pattern];
  const unsigned esize = 1u << i.size;
  const uint32_t base = s.r[i.rn];
  // Four words, through the host bytes when the 16 * n bytes are plain memory.
  const auto beats = [&](auto memory) {
    for (int beat = 0; beat < 4; ++beat) {
      const uint32_t address = base + 4u * words[beat];
      uint32_t word = load ? memory.Load(address, 4) : 0;
      for (unsigned b = 0; b < 4; b += esize) {
        const unsigned k = (4 * words[beat] + b) / esize;  // element number in memory order
        uint8_t* lane = Q(s, i.qd + int(k % n)) + (k / n) * esize;
        for (unsigned j = 0; j < esize; ++j) {
          if (load) {
            lane[j] = uint8_t(word >> (8 * (b + j)));
          } else {
            word |= uint32_t(lane[j]) << (8 * (b + j));
          }
        }
      }
      if (!load) memory.Store(address, 4, word);
    }
  };
  if (uint8_t* host = s.memory->Host(base, 16 * n, !load)) {
    beats(InHost{host, base});
  } else {
    beats(ByElement{*s.memory});
  }
  if (i.wback) s.r[i.rn] = base + 16 * n;
}

}  // namespace

void Handlers::LoadStore(const Insn& i, State& s) { Transfer(i, s); }
void Handlers::LoadStoreWidening(const Insn& i, State& s) { Transfer(i, s); }
void Handlers::GatherOffsets(const Insn& i, State& s) { ByOffsets(i, s); }
void Handlers::GatherAddresses(const Insn& i, State& s) { ByAddresses(i, s); }
void Handlers::Interleave2(const Insn& i, State& s) { Interleaved(i, s, 2); }
void Handlers::Interleave4(const Insn& i, State& s) { Interleaved(i, s, 4); }

}  // namespace faultline::arm::mve
