#include "mpu.h"

#include <algorithm>

namespace faultline::arm {

namespace {

// Access for an AP field. PMSAv7 AP[2:0] (Armv7-M ARM Table B3-15), privileged /
// unprivileged: 000 none/none, 001 RW/none, 010 RW/RO, 011 RW/RW, 100 reserved (none
// here), 101 RO/none, 110 and 111 RO/RO.
MpuPermission V7Access(uint32_t ap, bool xn, bool privileged) {
  MpuPermission p;
  if (privileged) {
    p.read = ap != 0 && ap != 4;
    p.write = ap >= 1 && ap <= 3;
  } else {
    p.read = ap == 2 || ap == 3 || ap >= 6;
    p.write = ap == 3;
  }
  p.execute = p.read && !xn;
  return p;
}

// PMSAv8 AP[2:1] (Armv8-M ARM §D1.2 MPU_RBAR): 00 RW privileged only, 01 RW any, 10 RO
// privileged only, 11 RO any. `pxn`: Armv8.1-M MPU_RLAR.PXN, execute-never for
// privileged code only (Armv8.1-M ARM §D1.2 MPU_RLAR; QEMU 7.2 target/arm/ptw.c
// get_phys_addr_pmsav8 reads it when ARM_FEATURE_V8_1M).
MpuPermission V8Access(uint32_t ap, bool xn, bool pxn, bool privileged) {
  MpuPermission p;
  p.read = privileged || (ap & 1u);
  p.write = p.read && ap < 2;
  p.execute = p.read && !xn && !(pxn && privileged);
  return p;
}

}  // namespace

Mpu::Mpu(bool v8m, bool v81m, uint32_t ctrl, const std::array<uint32_t, kMaxRegions>& rbar,
         const std::array<uint32_t, kMaxRegions>& rasr, size_t regions)
    : v8m_(v8m), v81m_(v81m), ctrl_(ctrl), rbar_(rbar), rasr_(rasr), regions_(regions < kMaxRegions ? regions : kMaxRegions) {}

std::optional<Mpu::Span> Mpu::RegionSpan(size_t n) const {
  if (v8m_) {
    const uint32_t rlar = rasr_[n];
    if (!(rlar & 1u)) return std::nullopt;
    return Span{rbar_[n] & ~0x1Fu, uint64_t(rlar & ~0x1Fu) + 0x20u};
  }
  const uint32_t rasr = rasr_[n];
  const uint32_t size_field = (rasr >> 1) & 0x1Fu;
  if (!(rasr & 1u) || size_field < 4) return std::nullopt;  // UNPREDICTABLE below 32 bytes
  const uint64_t size = uint64_t{1} << (size_field + 1);
  const uint64_t base = rbar_[n] & ~uint64_t(size - 1) & 0xFFFFFFE0u;
  return Span{base, base + size};
}

std::optional<MpuPermission> Mpu::Access(uint64_t addr, bool privileged) const {
  if (!enabled()) return std::nullopt;
  std::optional<MpuPermission> hit;
  int hits = 0;
  for (size_t n = 0; n < regions_; ++n) {
    const std::optional<Span> span = RegionSpan(n);
    if (!span || addr < span->base || addr >= span->end) continue;
    if (v8m_) {
      ++hits;
      hit = V8Access((rbar_[n] >> 1) & 3u, rbar_[n] & 1u, v81m_ && (rasr_[n] & 0x10u), privileged);
    } else {
      const uint32_t rasr = rasr_[n];
      const uint64_t size = span->end - span->base;
      if (size >= 256) {  // eight subregions, each disabled by its SRD bit
        uint32_t sub = uint32_t((addr - span->base) / (size / 8));
        if ((rasr >> (8 + sub)) & 1u) continue;
      }
      hit = V7Access((rasr >> 24) & 7u, (rasr >> 28) & 1u, privileged);  // the highest number wins
    }
  }
  // PMSAv8: an address in more than one enabled region is a MemManage fault.
  if (v8m_ && hits > 1) return MpuPermission{};
  if (hit) return hit;
  // The default map serves privileged accesses only (Armv7-M ARM §B3.5.1; Armv8-M ARM
  // §B3.8.1): an unprivileged access that hits no region faults.
  if (privileged && privileged_default()) return std::nullopt;
  return MpuPermission{};
}

Mpu::Cacheability Mpu::CacheabilityAt(uint64_t addr, uint32_t mair0, uint32_t mair1) const {
  if (!enabled()) return Cacheability::kDefault;
  std::optional<size_t> region;
  for (size_t n = 0; n < regions_; ++n) {
    const std::optional<Span> span = RegionSpan(n);
    if (!span || addr < span->base || addr >= span->end) continue;
    if (!v8m_ && span->end - span->base >= 256 && ((rasr_[n] >> (8 + uint32_t((addr - span->base) / ((span->end - span->base) / 8)))) & 1u)) {
      continue;  // a disabled subregion
    }
    region = n;  // PMSAv7: the highest number wins; PMSAv8: one region (two fault anyway)
  }
  if (!region) return Cacheability::kDefault;
  if (v8m_) {
    const uint32_t index = (rasr_[*region] >> 1) & 7u;
    const uint32_t attr = ((index < 4 ? mair0 >> (8 * index) : mair1 >> (8 * (index - 4)))) & 0xFFu;
    if ((attr & 0xF0u) == 0) return Cacheability::kNone;  // Device-nGnRnE ... Device-GRE
    const uint32_t inner = attr & 0x0Fu;  // 0b00RW WT transient, 0b0100 non-cacheable,
    const uint32_t rw = inner & 3u;       // 0b01RW WB transient, 0b10RW WT, 0b11RW WB
    if (inner == 0x4u || rw == 0) return Cacheability::kNone;
    return (inner >> 2) == 0 || (inner >> 2) == 2 ? Cacheability::kWriteThrough : Cacheability::kWriteBack;
  }
  const uint32_t rasr = rasr_[*region];
  const uint32_t tex = (rasr >> 19) & 7u, cb = (rasr >> 16) & 3u;
  if (tex & 4u) {  // Normal, cached as TEX[1:0] (outer) and C:B (inner) say: 00 none, 01 WBWA, 10 WT, 11 WB
    return cb == 0 ? Cacheability::kNone : cb == 2 ? Cacheability::kWriteThrough : Cacheability::kWriteBack;
  }
  if (tex == 0 && cb == 2) return Cacheability::kWriteThrough;                      // WT, no write allocate
  if ((tex == 0 || tex == 1) && cb == 3) return Cacheability::kWriteBack;          // WB (TEX 1: with write allocate)
  return Cacheability::kNone;  // strongly-ordered, Device, Normal non-cacheable, reserved
}

std::vector<uint64_t> Mpu::EdgesIn(uint64_t lo, uint64_t hi) const {
  std::vector<uint64_t> edges;
  for (size_t n = 0; enabled() && n < regions_; ++n) {
    const std::optional<Span> span = RegionSpan(n);
    if (!span || span->base >= hi || span->end <= lo) continue;
    const uint64_t size = span->end - span->base;
    const uint64_t step = !v8m_ && size >= 256 ? size / 8 : size;  // PMSAv7 subregions
    for (uint64_t e = span->base; e <= span->end; e += step) {
      if (e > lo && e < hi) edges.push_back(e);
    }
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  return edges;
}

}  // namespace faultline::arm
