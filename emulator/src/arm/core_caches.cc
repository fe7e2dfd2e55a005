// The core's L1 caches (issue 36): made from the CCSIDR the SCS reports, told about the
// engine's data TLB fills and translations (engine/arm_fills.h) and about the SCS writes
// that enable and maintain them.
#include <cstdlib>
#include <string_view>

#include "../engine/store_path.h"
#include "../engine/unicorn_tlb.h"
#include "core.h"

namespace faultline::arm {

void Core::SetCacheSizes(std::optional<uint32_t> icache, std::optional<uint32_t> dcache) {
  scs_.SetCacheSizes(icache, dcache);
  if (dcache_) map_.SetCpuCache(nullptr);
  icache_.reset();
  dcache_.reset();
  MakeCaches();
}

void Core::MakeCaches() {
  // CCSIDR (Armv7-M ARM §B4.8.3): NumSets-1 [27:13], Associativity-1 [12:3], LineSize [2:0]
  // (log2 of the words per line, minus 2).
  // FAULTLINE_DCACHE=off: CCR.IC and CCR.DC are stored and nothing is cached (the bench's
  // A/B runs).
  const char* off = std::getenv("FAULTLINE_DCACHE");
  if (off != nullptr && std::string_view(off) == "off") return;
  // A core with an instruction cache only keeps a data cache object that CCR.DC never
  // turns on: the I-cache asks it what is cacheable.
  const uint32_t ccsidr = scs_.data_ccsidr();
  if (ccsidr == 0 && scs_.instruction_ccsidr() == 0) return;
  dcache_ = std::make_unique<DCache>(
      map_, ccsidr == 0 ? DCache::Geometry{}
                        : DCache::Geometry{((ccsidr >> 13) & 0x7FFFu) + 1, ((ccsidr >> 3) & 0x3FFu) + 1,
                                           1u << ((ccsidr & 7u) + 4)});
  dcache_->OnChange([this] {
    engine::DropTlb(uc_);
    MveCachesChanged();
  });
  dcache_->Attributes(
      [this](uint64_t a) { return scs_.mpu().CacheabilityAt(a, scs_.mpu_mair0(), scs_.mpu_mair1()); });
  if (scs_.instruction_ccsidr() == 0) {
    map_.SetCpuCache(dcache_.get());
    return;
  }
  icache_ = std::make_unique<ICache>(map_, *dcache_);
  icache_->OnChange([this] {
    engine::DropTlb(uc_);
    MveCachesChanged();
  });
  map_.SetCpuCache(icache_.get());  // in front of the data cache for the other masters
}

bool Core::AsksDataFills() const { return dcache_ && (dcache_->enabled() || (icache_ && icache_->enabled())); }

Core::DataFillAnswer Core::DataFill(uint64_t addr, bool store) {
  // The PC of the block the access is in: the engine syncs the guest PC only at its ends.
  const BlockInfo* b = CurrentBlock();
  const uint32_t pc = b != nullptr && b->address != BlockInfo{}.address ? uint32_t(b->address) : Read(Reg::kPc);
  const DCache::Fill f = dcache_->DataFill(addr, store, pc);
  const bool code_watch = icache_ && icache_->DataFill(addr, store, pc);
  return {f.read_only || code_watch, f.per_access};
}

size_t Core::CodeTranslated(uint64_t pc, uint64_t size, std::array<uint32_t, kMaxAliases>& aliases) {
  if (icache_) icache_->Translated(pc, size);
  const int w = map_.Find(pc);
  if (w < 0) return 0;
  size_t n = 0;
  for (size_t i = 0; i < map_.regions().size() && n < aliases.size(); ++i) {
    if (i == size_t(w) || map_.Backing(i) != map_.Backing(size_t(w))) continue;
    if (const auto at = map_.SameByteIn(size_t(w), pc, i)) aliases[n++] = uint32_t(*at);
  }
  return n;
}

// Another master wrote [address, address + size) through `window`: the code translated
// from those bytes, at any address that shows them, is dropped (QEMU's DMA writes mark the
// pages dirty and invalidate it). Pages no code was translated from cost a bitmap test.
void Core::MasterWrote(size_t window, uint64_t address, uint64_t size) {
  if (size == 0) return;
  for (size_t i = 0; i < map_.regions().size(); ++i) {
    if (map_.Backing(i) != map_.Backing(window)) continue;
    const auto at = map_.SameByteIn(window, address, i);
    if (at && engine::ArmCodeIn(*at, *at + size)) InvalidateCode(*at, *at + size);
  }
}

void Core::WriteCode(uint32_t at, std::span<const uint8_t> bytes) {
  map_.Write(at, bytes);
  if (icache_) {
    icache_->EngineWrote(at, bytes);  // and the data cache's
  } else if (dcache_) {
    dcache_->EngineWrote(at, bytes);
  }
}

void Core::CacheControl(uint32_t address, uint32_t value) {
  if (dcache_ && scs_.data_ccsidr() != 0) dcache_->RegisterWritten(address, value, scs_.ccr());
  if (icache_) icache_->RegisterWritten(address, value, scs_.ccr());
}

}  // namespace faultline::arm
