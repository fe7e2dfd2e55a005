// The bus: which region answers at each address, and the bytes behind each region.
// Pure C++; the CPU module maps this storage into the engine.
#pragma once

#include <bitset>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "faultline/board.h"

namespace faultline {

class Device;
class InterruptController;
class UartPort;
class DmaController;
class CpuCacheView;
namespace ethos_u {
class EthosU;
}

// Host memory backing one region. Anonymous mmap, so a 2 GiB DDR that the firmware
// never touches costs no RAM.
class Storage {
 public:
  explicit Storage(uint64_t size);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  uint64_t size() const { return size_; }

 private:
  uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
};

// A page-aligned run of pages that lies wholly inside one window: the CPU maps it
// directly, so accesses to it cost nothing extra.
struct DirectSpan {
  uint64_t base = 0;
  uint64_t size = 0;
  size_t region = 0;  // window index into MemoryMap::regions()
};

// A page-aligned run of pages the CPU serves access by access: where windows and
// Unicorn's pages disagree (a region smaller than a page, or not page-aligned), so that
// bytes outside every window still fault; and peripheral register blocks, however large
// (an unimplemented window of tens of MiB is one run).
struct ServedSpan {
  uint64_t base = 0;
  uint64_t size = 0;
  bool operator==(const ServedSpan&) const = default;
};

struct PagePlan {
  std::vector<DirectSpan> direct;
  std::vector<ServedSpan> served;  // sorted, disjoint, not adjacent (adjacent runs are joined)
};

// What a peripheral write changed.
struct RegisterWriteEffect {
  std::vector<size_t> gates_changed;  // indices into Board::gates whose state flipped
  // A UART's transmitter did not send the byte written: the enable bits that were
  // clear ("CTRL.TXEN"), or empty when it was sent (or the write was not a transmit).
  std::string uart_not_sent;
};

// The address space: windows onto storage (each board region, then each alias of one),
// the gates that enable them, and the peripheral registers the gates read.
class MemoryMap {
 public:
  explicit MemoryMap(const Board& board);
  ~MemoryMap();
  MemoryMap(const MemoryMap&) = delete;
  MemoryMap& operator=(const MemoryMap&) = delete;

  // Windows, sorted by base. An alias is a window whose bytes are another region's;
  // it carries that region's kind, access and reset contents.
  const std::vector<Region>& regions() const { return windows_; }
  // The board region behind a window (itself unless it is an alias).
  const std::string& BackingName(size_t window) const { return windows_[backing_[window]].name; }
  bool IsAlias(size_t window) const { return backing_[window] != window; }
  size_t Backing(size_t window) const { return backing_[window]; }
  // The address at which `other` shows the byte `window` shows at `addr`, if it shows it
  // (the same storage, inside the other's span): an alias's address for a region's byte.
  std::optional<uint64_t> SameByteIn(size_t window, uint64_t addr, size_t other) const;

  // Index of the window holding `addr`, or -1.
  int Find(uint64_t addr) const;
  // Index of the window that holds all of [addr, addr + size), or -1.
  int FindRange(uint64_t addr, uint64_t size) const;
  // The nearest windows below and above an address that none holds (-1 if none).
  std::pair<int, int> Neighbours(uint64_t addr) const;

  // Host bytes behind the first byte of a window.
  uint8_t* Host(size_t window);
  const uint8_t* Host(size_t window) const;

  // Raw access that ignores permissions and gates, as a flash programmer or debugger
  // has. Requires: the range lies in one window.
  void Write(uint64_t addr, std::span<const uint8_t> bytes);
  void Read(uint64_t addr, std::span<uint8_t> bytes) const;
  uint32_t Read32(uint64_t addr) const;
  // Whether [addr, addr + size) (in one window) still holds its region's reset contents:
  // nothing — the loader, the host or the firmware — has written other bytes there. The
  // pattern is recomputed on demand (for a report), so writes cost nothing.
  bool HoldsResetContents(uint64_t addr, uint64_t size) const;
  // Whether `bytes` are the reset contents of [addr, addr + bytes.size()) (in one window).
  bool HoldsResetContents(uint64_t addr, std::span<const uint8_t> bytes) const;

  PagePlan PlanPages(uint64_t page_size) const;

  // Gates. A window without a gate is always enabled.
  const std::vector<Gate>& gates() const { return gates_; }
  std::optional<size_t> GateOf(size_t window) const { return gate_of_[window]; }
  bool GateOpen(size_t gate) const { return gate_open_[gate]; }
  bool Enabled(size_t window) const { return !gate_of_[window] || gate_open_[*gate_of_[window]]; }
  // Why a gate is closed: "RCC.MEMENR.AXISRAM5EN = 0 (needs == 1)".
  std::string ExplainClosed(size_t gate) const;

  // Peripherals: register blocks whose writes are stored and whose reads follow the
  // board's rules.
  const std::vector<Peripheral>& peripherals() const { return peripherals_; }
  // The peripheral holding `addr` (a modelled one before the unimplemented window around
  // it), or -1.
  int FindPeripheral(uint64_t addr) const;
  // Index of the register at `offset`, or -1 for an address the board does not declare.
  int FindRegister(size_t peripheral, uint64_t offset) const;
  uint32_t ReadRegister(size_t peripheral, size_t reg) const;  // rules applied, no side effects
  // A read by the CPU: a UART's status reads as its model computes it, and a receive
  // register hands over its byte.
  uint32_t LoadRegister(size_t peripheral, size_t reg);
  uint32_t StoredValue(size_t peripheral, size_t reg) const { return values_[peripheral][reg]; }
  // A write by the CPU or the host: stored, or for a UART, as its model does (a transmit
  // register sends).
  RegisterWriteEffect WriteRegister(size_t peripheral, size_t reg, uint32_t value);
  // A CPU access of `size` bytes at `offset` into the peripheral, which falls in register
  // `reg`: a read gives the bytes of the register it covers (LoadRegister), a write merges
  // them into the stored value and writes it (`effect` gets what it changed).
  uint32_t AccessRegister(size_t peripheral, size_t reg, uint64_t offset, unsigned size, bool write, uint64_t value,
                          RegisterWriteEffect* effect);

  // UART ports (peripherals declared with `model:`), in board order.
  const std::vector<UartPort*>& uarts() const { return uarts_; }
  // The NPUs among the devices, in board order.
  const std::vector<ethos_u::EthosU*>& npus() const { return npus_; }
  // The CPU's data cache as the other masters meet it (bus/cpu_cache.h), while the core
  // has one enabled; null otherwise.
  CpuCacheView* cpu_cache() const { return cpu_cache_; }
  void SetCpuCache(CpuCacheView* cache) { cpu_cache_ = cache; }
  // Told of every write another master made (window, address, bytes): the CPU drops code
  // it translated from those bytes, as QEMU's DMA writes invalidate it.
  using MasterWriteListener = std::function<void(size_t, uint64_t, uint64_t)>;
  void SetMasterWriteListener(MasterWriteListener f) { master_write_ = std::move(f); }
  void MasterWrote(size_t window, uint64_t address, uint64_t size) const {
    if (master_write_) master_write_(window, address, size);
  }
  // The DMA controllers among them, in board order (devices/stm32_gpdma.h).
  const std::vector<DmaController*>& dmas() const { return dmas_; }
  // The port named `name`, or null.
  UartPort* FindUart(const std::string& name);

  // Peripheral time: the instruction clock SysTick counts (Core::time()). The CPU brings
  // it up to date before each register access and at each event; timers count to it.
  void AdvanceTo(uint64_t now);
  uint64_t now() const { return now_; }
  // The earliest time at which a peripheral raises an interrupt on its own (a timer's
  // count reaching zero, a byte for an interrupt-driven receiver), or UINT64_MAX.
  uint64_t NextEventAt() const;
  // The NVIC lines (RV32: mip bits) the board's peripherals drive (`irq:`), each once, and
  // whether a line is high now: the OR of the outputs wired to it. Lines into an interrupt
  // controller among the peripherals (`interrupt_parent:`) are its, not the CPU's.
  const std::vector<uint32_t>& irq_numbers() const { return irq_numbers_; }
  bool IrqLevel(uint32_t number) const;
  // Whether a register access since the last call may have moved an interrupt line or a
  // timer's next event: the CPU then lets the exception model look at the next block.
  bool TakeIrqAttention() {
    bool a = irq_attention_;
    irq_attention_ = false;
    return a;
  }

  // "AXISRAM5EN=1 SRAMSD=0" for a value of a register with named fields.
  std::string DescribeFields(size_t peripheral, size_t reg, uint32_t value) const;

 private:
  bool Holds(const Condition& c) const;
  bool GateHolds(size_t gate) const;
  uint32_t ReadRegisterForCondition(const Comparison& cmp) const;
  void UpdateGates(RegisterWriteEffect* effect);

  std::vector<Region> windows_;
  std::vector<size_t> backing_;          // window -> window that owns the storage
  std::vector<uint64_t> backing_offset_; // offset of the window inside that storage
  std::vector<std::unique_ptr<Storage>> storage_;  // per window; null for aliases
  std::vector<Gate> gates_;
  std::vector<std::optional<size_t>> gate_of_;  // window -> gate
  std::vector<bool> gate_open_;
  std::vector<Peripheral> peripherals_;
  // Each peripheral's registers by offset, (offset, index) in order: FindRegister's search
  // (an eDMA4 declares nearly a thousand).
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> register_offsets_;
  std::vector<std::vector<uint32_t>> values_;  // stored register values
  std::vector<std::unique_ptr<Device>> devices_;  // the models behind peripherals (devices/)
  std::vector<Device*> device_of_;                 // peripheral -> its model, or null
  std::vector<UartPort*> uarts_;                   // the UARTs among them, in board order
  std::vector<UartPort*> uart_of_;                 // peripheral -> its UART model, or null
  std::vector<ethos_u::EthosU*> npus_;             // the NPUs among them, in board order
  std::vector<DmaController*> dmas_;                  // the DMA controllers among them
  CpuCacheView* cpu_cache_ = nullptr;
  MasterWriteListener master_write_;
  std::vector<uint32_t> irq_numbers_;
  // The lines into an interrupt controller: (peripheral, line, controller).
  struct RoutedLine {
    size_t peripheral;
    const IrqLine* line;
    InterruptController* controller;
  };
  std::vector<RoutedLine> routed_;
  // Hands the controllers their sources' levels (after any change of a device's state).
  void RouteInterrupts();
  uint64_t now_ = 0;
  bool irq_attention_ = false;
  bool LineOutput(size_t peripheral, const IrqLine& line) const;
  // The lines' levels, a bit per NVIC line: vendor UARTs sit past 64 (Alif 128, N6 159),
  // where a bit per line modulo 64 would let two lines hide each other's change.
  using IrqLevels = std::bitset<kNvicMaxIrqLines>;
  IrqLevels IrqSignature() const;
};

// Fills `storage` with the region's reset contents.
void ApplyResetContents(const ResetContents& reset, Storage& storage);

}  // namespace faultline
