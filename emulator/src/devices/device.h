// A peripheral model behind the memory map, as QEMU's device models are (hw/char/pl011.c):
// its registers behind read and write callbacks, its interrupts as output lines, its
// time-driven state brought up to the instruction clock. The map routes a register
// block's accesses to it (bus/memory_map.cc) and ORs its outputs onto the NVIC lines the
// board wires (`irq:`). The registers' stored values live in the map, where a gate's
// condition, a debugger and the report read them; a device gives them their behaviour and
// keeps the rest of its state. A bus master among the devices (a DMA controller, an NPU)
// reaches memory through its own bus/bus_view.h.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bus_port.h"
#include "faultline/board.h"

namespace faultline {

class Device {
 public:
  virtual ~Device() = default;

  virtual const std::string& name() const = 0;
  // A master reads register `reg` at instruction time `now` (after AdvanceTo(now)), with
  // the read's side effects (a receive register hands over its byte).
  virtual uint32_t Read(size_t reg, std::vector<uint32_t>& values, uint64_t now) = 0;
  virtual void Write(size_t reg, uint32_t value, std::vector<uint32_t>& values, uint64_t now) = 0;
  // Brings time-driven state up to `now`: a counter's triggers, a byte due at a receiver.
  virtual void AdvanceTo(uint64_t now, std::vector<uint32_t>& values) = 0;
  // The earliest time, from `now` on, at which the device changes an output on its own,
  // or UINT64_MAX.
  virtual uint64_t NextEventAt(const std::vector<uint32_t>& values, uint64_t now) const = 0;
  // The level of the interrupt output `line` names (an IrqLine's `output`).
  virtual bool Output(const std::string& line, const std::vector<uint32_t>& values) const = 0;
  // Whether the accesses since the last call changed state that may move an output or the
  // next event: the CPU then looks at the next block boundary. A polling read that
  // changes nothing says no, and costs nothing more.
  virtual bool TakeAttention() = 0;
};

// A device other devices' interrupt lines go to (a PLIC): the memory map hands it their
// levels whenever they may have moved.
class InterruptController : public Device {
 public:
  // The level of the line into source `source` now; true if that changed what the
  // controller holds (a request became pending).
  virtual bool SetSourceLevel(uint32_t source, bool level) = 0;
};

// The index of the register `name` in a model's layout (board/*_models.cc names them).
size_t RegisterIndex(const std::vector<Register>& layout, const std::string& name);

// The model a peripheral's `model:` names (a UART, a timer, an NPU), or null for a register
// block whose behaviour is the board's rules alone. A bus master among them (an NPU) reaches
// memory through `port`, its view of the map; the others get none.
std::unique_ptr<Device> MakeDevice(const Peripheral& peripheral, std::unique_ptr<BusPort> port = {});

}  // namespace faultline
