#include "dma.h"

#include <fmt/core.h>

#include <algorithm>
#include <span>

namespace faultline {

bool DmaController::MoveBlock(DmaTransfer& t, Side source, Side destination) {
  std::vector<uint8_t> block(size_t(t.bytes), 0);
  BusResponse r;
  if (source.increments) {
    r = port_->Read(t.source, block);
    t.read_unwritten = r.ok() && port_->NeverWritten(t.source, t.bytes);
  } else {
    for (size_t at = 0; at < block.size() && r.ok(); at += source.width) {
      r = port_->Read(t.source, std::span(block).subspan(at, std::min<size_t>(source.width, block.size() - at)));
    }
  }
  if (r.ok()) {
    if (destination.increments) {
      r = port_->Write(t.destination, block);
    } else {
      for (size_t at = 0; at < block.size() && r.ok(); at += destination.width) {
        r = port_->Write(t.destination,
                         std::span<const uint8_t>(block).subspan(at, std::min<size_t>(destination.width, block.size() - at)));
      }
    }
  }
  if (r.ok()) return true;
  BusError(t, r);
  return false;
}

void DmaController::BusError(DmaTransfer& t, const BusResponse& r, const std::string& what) const {
  t.outcome = "bus error";
  t.fault_address = r.address;
  t.fault_region = port_->Where(r.address);
  t.detail = fmt::format("{}{} at 0x{:08x}: {}", what.empty() ? "" : fmt::format("{} at 0x{:08x}: ", what, r.address),
                         ToString(r.resp), r.address, r.why);
}

}  // namespace faultline
