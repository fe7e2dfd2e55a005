// The MPU's view of an address: which region (if any) decides a privileged or an
// unprivileged access, and what it allows. PMSAv7 (Armv7-M ARM §B3.5) and PMSAv8 (Armv8-M ARM §B3.8/§D1.2.8x).
// Pure: the core turns it into page protections.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace faultline::arm {

struct MpuPermission {
  bool read = false, write = false, execute = false;
  bool operator==(const MpuPermission&) const = default;
};

class Mpu {
 public:
  static constexpr size_t kMaxRegions = 16;
  // `rbar`/`rasr` as stored by the SCS (RASR is RLAR on Armv8-M).
  // `v81m`: Armv8.1-M, whose RLAR bit 4 is PXN (privileged execute-never).
  Mpu(bool v8m, bool v81m, uint32_t ctrl, const std::array<uint32_t, kMaxRegions>& rbar,
      const std::array<uint32_t, kMaxRegions>& rasr, size_t regions);

  bool enabled() const { return ctrl_ & 1u; }
  // HFNMIENA: the MPU also applies while the execution priority is negative (HardFault,
  // NMI); clear, those handlers run with the MPU off (Armv7-M ARM §B3.5.7 MPU_CTRL,
  // Armv8-M ARM §D1.2 MPU_CTRL).
  bool enabled_at_negative_priority() const { return enabled() && (ctrl_ & 2u); }
  // PRIVDEFENA: privileged accesses that hit no region use the default memory map.
  bool privileged_default() const { return ctrl_ & 4u; }

  // Permissions for an access to `addr` at a privilege: those of the region that decides
  // it, nothing if no region does (unprivileged, or PRIVDEFENA clear), or nullopt for
  // "the default map" (MPU disabled, or a privileged access, no region, PRIVDEFENA set).
  std::optional<MpuPermission> Access(uint64_t addr, bool privileged) const;

  // The inner (L1) cache policy the region deciding `addr` gives it, from PMSAv7's
  // TEX/C/B (Armv7-M ARM §B3.5.8 table B3-13) or PMSAv8's MAIR attribute (Armv8-M ARM
  // §D1.2 MPU_MAIR0: the attribute's inner half); kDefault where no region decides (the
  // MPU off, or the default map behind PRIVDEFENA).
  enum class Cacheability { kDefault, kNone, kWriteThrough, kWriteBack };
  Cacheability CacheabilityAt(uint64_t addr, uint32_t mair0, uint32_t mair1) const;

  // The addresses in (lo, hi) where an enabled region or subregion starts or ends: where
  // Access may change its answer. Regions are 32-byte granular, pages 1 KiB.
  std::vector<uint64_t> EdgesIn(uint64_t lo, uint64_t hi) const;

 private:
  // Region n's address range [base, end), if it is enabled.
  struct Span {
    uint64_t base, end;
  };
  std::optional<Span> RegionSpan(size_t n) const;

  bool v8m_, v81m_;
  uint32_t ctrl_;
  std::array<uint32_t, kMaxRegions> rbar_, rasr_;
  size_t regions_;
};

}  // namespace faultline::arm
