#include "watchpoints.h"

#include <algorithm>

namespace faultline {

bool Watchpoints::Set(uint64_t address, uint64_t length, Kind kind, bool on) {
  const Watch w{address, address + std::max<uint64_t>(length, 1), kind};
  auto same = [&](const Watch& x) { return x.begin == w.begin && x.end == w.end && x.kind == w.kind; };
  auto it = std::find_if(watches_.begin(), watches_.end(), same);
  if (on == (it != watches_.end())) return false;
  if (on) {
    watches_.push_back(w);
  } else {
    watches_.erase(it);
  }
  return true;
}

Watchpoints::Refused Watchpoints::OnPage(uint64_t page, uint64_t page_size) const {
  Refused r;
  for (const Watch& w : watches_) {
    if (w.end <= page || w.begin >= page + page_size) continue;
    r.write = r.write || w.Watches(true);
    r.read = r.read || w.Watches(false);
  }
  return r;
}

const Watchpoints::Watch* Watchpoints::Hit(uint64_t address, uint32_t size, bool write) const {
  const uint64_t end = address + std::max<uint32_t>(size, 1);
  for (const Watch& w : watches_) {
    if (w.Watches(write) && address < w.end && w.begin < end) return &w;
  }
  return nullptr;
}

}  // namespace faultline
