#include "clint.h"

#include <algorithm>

namespace faultline {

Clint::Clint(const Peripheral& p) : name_(p.name) {
  const auto index = [&](const char* name) { return RegisterIndex(p.registers, name); };
  msip_ = index("MSIP");
  mtimecmp_ = index("MTIMECMP");
  mtimecmph_ = index("MTIMECMPH");
  mtime_ = index("MTIME");
  mtimeh_ = index("MTIMEH");
}

uint32_t Clint::Read(size_t reg, std::vector<uint32_t>& values, uint64_t now) {
  if (reg == mtime_) return uint32_t(Mtime(now));
  if (reg == mtimeh_) return uint32_t(Mtime(now) >> 32);
  if (reg == msip_) return values[msip_] & 1;
  return values[reg];
}

void Clint::Write(size_t reg, uint32_t value, std::vector<uint32_t>& values, uint64_t now) {
  if (reg == mtime_ || reg == mtimeh_) {
    const uint64_t t = Mtime(now);
    const uint64_t want = reg == mtime_ ? (t & ~uint64_t{0xFFFFFFFF}) | value : (uint64_t(value) << 32) | (t & 0xFFFFFFFF);
    offset_ += want - t;
  } else {
    values[reg] = reg == msip_ ? value & 1 : value;
  }
  written_ = true;
  AdvanceTo(now, values);
}

void Clint::AdvanceTo(uint64_t now, std::vector<uint32_t>& values) {
  now_ = std::max(now_, now);
  mtip_ = Mtime(now_) >= Mtimecmp(values);
}

uint64_t Clint::NextEventAt(const std::vector<uint32_t>& values, uint64_t now) const {
  if (mtip_) return UINT64_MAX;  // already raised: it falls only with a write
  const uint64_t cmp = Mtimecmp(values);
  if (cmp < offset_) return now;
  const uint64_t ticks = cmp - offset_;
  if (ticks > UINT64_MAX / kInstructionsPerTick) return UINT64_MAX;
  return std::max(now, ticks * kInstructionsPerTick);
}

bool Clint::Output(const std::string& line, const std::vector<uint32_t>& values) const {
  if (line == "mtip") return mtip_;
  if (line == "msip") return values[msip_] & 1;
  return false;
}

}  // namespace faultline
