#include "bus_view.h"

#include "cpu_cache.h"

#include <fmt/core.h>

#include <algorithm>
#include <type_traits>

namespace faultline {

BusView::BusView(MemoryMap& map, std::string name, bool host)
    : map_(map),
      name_(std::move(name)),
      host_(host),
      windows_(map.regions().size(), host),
      peripherals_(map.peripherals().size(), host) {}

BusView BusView::Host(MemoryMap& map) { return BusView(map, "the host", true); }

BusView::BusView(MemoryMap& map, const BusMaster& master) : BusView(map, master.name, false) {
  for (const std::string& name : master.reaches) {
    for (size_t w = 0; w < map.regions().size(); ++w) {
      if (map.regions()[w].name == name) windows_[w] = true;
    }
    for (size_t p = 0; p < map.peripherals().size(); ++p) {
      if (map.peripherals()[p].name == name) peripherals_[p] = true;
    }
  }
}

BusResponse BusView::Read(uint64_t address, std::span<uint8_t> bytes) { return Transfer(address, bytes); }

bool BusView::NeverWritten(uint64_t address, uint64_t size) const {
  const int w = map_.FindRange(address, size);
  if (w < 0 || map_.regions()[size_t(w)].reset.kind == ResetContents::Kind::kZero) return false;
  // Memory's bytes, not the CPU's stale copy of them (bus/cpu_cache.h).
  const CpuCacheView* cache = host_ ? nullptr : map_.cpu_cache();
  if (cache == nullptr || !cache->Holds(size_t(w), address, size)) return map_.HoldsResetContents(address, size);
  std::vector<uint8_t> memory(size);
  map_.Read(address, memory);
  cache->MemoryOf(size_t(w), address, memory);
  return map_.HoldsResetContents(address, memory);
}

BusResponse BusView::Write(uint64_t address, std::span<const uint8_t> bytes) {
  return Transfer(address, bytes);
}

BusResponse BusView::Refused(BusResp resp, uint64_t address, std::string why) const {
  BusResponse r;
  r.resp = resp;
  r.address = address;
  r.why = std::move(why);
  return r;
}

// "NPU_HP is not routed to dtcm (0x20000000-0x200fffff); it reaches the same bytes at
// 0x50800000 (dtcm_global)": the mistake behind an arena the NPU cannot reach is an
// address the CPU sees locally.
std::string BusView::Unreachable(size_t window, uint64_t address) const {
  const Region& r = map_.regions()[window];
  std::string why = fmt::format("{} is not routed to {} (0x{:08x}-0x{:08x})", name_, r.name, r.base, r.end() - 1);
  for (size_t other = 0; other < map_.regions().size(); ++other) {
    if (other == window || !ReachesWindow(other)) continue;
    if (std::optional<uint64_t> same = map_.SameByteIn(window, address, other)) {
      return why + fmt::format("; it reaches the same bytes at 0x{:08x} ({})", *same, map_.regions()[other].name);
    }
  }
  std::string reaches;
  for (size_t w = 0; w < map_.regions().size(); ++w) {
    if (ReachesWindow(w)) reaches += (reaches.empty() ? "" : ", ") + map_.regions()[w].name;
  }
  return why + (reaches.empty() ? "" : "; it reaches only " + reaches);
}

BusResponse BusView::Register(uint64_t address, uint8_t* data, uint64_t size, bool write, int peripheral) {
  const Peripheral& p = map_.peripherals()[size_t(peripheral)];
  if (!host_ && !peripherals_[size_t(peripheral)]) {
    return Refused(BusResp::kDecErr, address, fmt::format("{} is not routed to {} (0x{:08x})", name_, p.name, p.base));
  }
  if (address % 4 != 0 || size < 4) {
    return Refused(BusResp::kSlvErr, address,
                   fmt::format("{} registers take aligned 32-bit words (a {}-byte transfer at 0x{:08x})", p.name, size,
                               address));
  }
  const int reg = map_.FindRegister(size_t(peripheral), address - p.base);
  if (reg < 0) {
    return Refused(BusResp::kSlvErr, address, fmt::format("no register of {} at 0x{:08x}", p.name, address));
  }
  BusResponse r;
  if (write) {
    const uint32_t v = uint32_t(data[0]) | uint32_t(data[1]) << 8 | uint32_t(data[2]) << 16 | uint32_t(data[3]) << 24;
    r.gates_changed = map_.WriteRegister(size_t(peripheral), size_t(reg), v).gates_changed;
  } else {
    const uint32_t v = map_.LoadRegister(size_t(peripheral), size_t(reg));
    for (int k = 0; k < 4; ++k) data[k] = uint8_t(v >> (8 * k));
  }
  return r;
}

template <typename Bytes>
BusResponse BusView::Transfer(uint64_t address, Bytes bytes) {
  constexpr bool write = std::is_const_v<typename Bytes::element_type>;
  BusResponse result;
  uint64_t done = 0;
  while (done < bytes.size()) {
    const uint64_t at = address + done;
    if (at >= (uint64_t(1) << 32)) return Refused(BusResp::kDecErr, at, "past the 32-bit address space");
    const int w = map_.Find(at);
    if (w < 0) {
      const int p = map_.FindPeripheral(at);
      if (p < 0 || map_.peripherals()[size_t(p)].unimplemented) {
        return Refused(BusResp::kDecErr, at, fmt::format("no memory answers at 0x{:08x}", at));
      }
      BusResponse r = Register(at, const_cast<uint8_t*>(bytes.data()) + done, bytes.size() - done, write, p);
      if (!r.ok()) return r;
      result.gates_changed.insert(result.gates_changed.end(), r.gates_changed.begin(), r.gates_changed.end());
      done += 4;
      continue;
    }
    const Region& region = map_.regions()[size_t(w)];
    if (!ReachesWindow(size_t(w))) return Refused(BusResp::kDecErr, at, Unreachable(size_t(w), at));
    const uint64_t n = std::min<uint64_t>(bytes.size() - done, region.end() - at);
    bool answered = true;
    if (!host_) {
      if (!map_.Enabled(size_t(w))) {
        const size_t gate = *map_.GateOf(size_t(w));
        if (map_.gates()[gate].when_disabled == WhenDisabled::kBusFault) {
          return Refused(BusResp::kSlvErr, at,
                         fmt::format("{} is disabled: {}", region.name, map_.ExplainClosed(gate)));
        }
        answered = false;  // reads as zero, writes are dropped
        result.disabled_region = true;
      }
      if (write ? !region.access.write : !region.access.read) {
        return Refused(BusResp::kSlvErr, at,
                       fmt::format("{} is not {} ({})", region.name, write ? "writable" : "readable",
                                   AccessString(region.access)));
      }
    }
    // The CPU's cache (bus/cpu_cache.h) stands between its view and memory for the lines
    // it holds: another master meets memory there. The host (loader, debugger) sees the
    // CPU's view.
    CpuCacheView* cache = host_ ? nullptr : map_.cpu_cache();
    const bool cached = cache != nullptr && cache->Holds(size_t(w), at, n);
    if constexpr (write) {
      if (answered && cached) {
        cache->MasterWrite(size_t(w), at, bytes.subspan(done, n), name_);
      } else if (answered) {
        map_.Write(at, bytes.subspan(done, n));
      }
      if (answered && !host_) map_.MasterWrote(size_t(w), at, n);
    } else if (answered) {
      map_.Read(at, bytes.subspan(done, n));
      if (cached) cache->MasterRead(size_t(w), at, bytes.subspan(done, n), name_);
    } else {
      std::fill_n(bytes.data() + done, n, uint8_t(0));
    }
    done += n;
  }
  return result;
}

}  // namespace faultline
