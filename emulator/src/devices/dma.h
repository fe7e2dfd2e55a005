// What faultline's DMA controller models share (stm32_gpdma.h, stm32_dma.h): the transfers
// they made, for the report (DmaTransfer, faultline/guest.h), and moving one block through
// the controller's own view of the bus (a `masters:` entry of kind dma), where gates,
// aliases, reach and the CPU's caches apply as they do to any other master.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bus_port.h"
#include "device.h"
#include "faultline/board.h"
#include "faultline/guest.h"

namespace faultline {

class DmaController : public Device {
 public:
  const std::vector<DmaTransfer>& transfers() const { return transfers_; }
  const std::string& name() const override { return name_; }
  // Reads have no side effects but where a model says so.
  uint32_t Read(size_t reg, std::vector<uint32_t>& values, uint64_t) override { return values[reg]; }
  bool TakeAttention() override { return std::exchange(attention_, false); }

 protected:
  DmaController(const Peripheral& peripheral, std::unique_ptr<BusPort> port)
      : name_(peripheral.name), port_(std::move(port)) {}

  // One side of a block: elements of `width` bytes, the address stepping by them or not
  // (a peripheral's data register).
  struct Side {
    uint32_t width = 1;
    bool increments = true;
  };
  // Moves t.bytes from t.source to t.destination now: the whole source read first, then
  // the destination written. On a bus error fills t's fault fields and returns false;
  // notes a source that nothing wrote since reset (t.read_unwritten).
  bool MoveBlock(DmaTransfer& t, Side source, Side destination);

  // Records in `t` the transfer the bus refused (`r`), `what` naming the access ("a load
  // (DMALD)"), or nothing for the copy as a whole.
  void BusError(DmaTransfer& t, const BusResponse& r, const std::string& what = "") const;

  std::string name_;
  std::unique_ptr<BusPort> port_;
  std::vector<DmaTransfer> transfers_;
  bool attention_ = false;  // state changed that may move an output or the next event
};

}  // namespace faultline
