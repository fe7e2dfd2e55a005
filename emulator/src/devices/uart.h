// The behaviour of a UART model's registers (board/uart_models.cc has their layout):
// what the transmitter sends, the status flags a driver polls, and the bytes the
// receiver hands over. Pure C++; internal to the emulator library.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "console_log.h"
#include "device.h"
#include "faultline/board.h"

namespace faultline {

// Received bytes arrive when the firmware looks for them (a status read or a receive
// register read with the receiver enabled), one at a time, so a polling driver never
// overruns and a FIFO reset during initialisation drops nothing a scenario gave. With the
// model's receive interrupt enabled, the next byte arrives by itself at a block boundary
// once the receive register is empty (ReceiveDue), so an interrupt-driven driver that
// never polls gets it.
//
// Receive overrun (CMSDK STATE.RXOVERRUN, STM32 ISR.ORE, LPUART STAT.OR, DesignWare
// LSR.OE) is the hardware's answer to a byte arriving while the previous one is unread.
// With this delivery no byte ever arrives then: each model takes the next byte only into
// an empty receive register (as QEMU's cmsdk-apb-uart does: uart_can_receive is false while
// RXFULL is set, so its uart_receive never sets RXOVERRUN). So no model raises it; the
// flags read 0, and the writes that clear them (ICR.ORECF, STAT.OR write-1-to-clear, the
// LSR read, CMSDK STATE/INTCLEAR) behave as the manuals say.
class UartPort : public Device {
 public:
  explicit UartPort(const Peripheral& peripheral);

  // A CPU read of register `reg` (an index into the peripheral's registers): status
  // flags computed, a receive register consumes its byte. `values` are the
  // peripheral's stored register values.
  uint32_t Read(size_t reg, std::vector<uint32_t>& values);
  // A CPU write: what the hardware keeps is stored, the transmit register sends.
  void Write(size_t reg, uint32_t value, std::vector<uint32_t>& values);

  // As a Device (device.h): a read whose side effects moved the model's state asks for
  // attention; a write does not (the map compares the lines' levels around it).
  uint32_t Read(size_t reg, std::vector<uint32_t>& values, uint64_t /*now*/) override { return Read(reg, values); }
  void Write(size_t reg, uint32_t value, std::vector<uint32_t>& values, uint64_t /*now*/) override {
    Write(reg, value, values);
    seen_changes_ = state_changes_;
  }
  void AdvanceTo(uint64_t /*now*/, std::vector<uint32_t>& values) override {
    if (ReceiveDue(values)) ReceiveNow(values);
  }
  uint64_t NextEventAt(const std::vector<uint32_t>& values, uint64_t now) const override {
    return ReceiveDue(values) ? now : UINT64_MAX;
  }
  bool TakeAttention() override { return std::exchange(seen_changes_, state_changes_) != state_changes_; }

  void GiveInput(std::string_view bytes) { rx_.append(bytes); }

  // A byte waits, the receive register is empty and the receive interrupt is enabled:
  // the byte arrives now (CMSDK, STM32; the LPUART and DesignWare models show a waiting
  // byte as soon as their receiver is on, so nothing is ever due there).
  bool ReceiveDue(const std::vector<uint32_t>& values) const;
  void ReceiveNow(std::vector<uint32_t>& values);
  // An interrupt output's level: the CMSDK UART's "tx", "rx", "overflow" (its INTSTATUS
  // bits); the other models' one line ("") is the OR of their enabled interrupt flags.
  bool Output(const std::string& output, const std::vector<uint32_t>& values) const override;

  const std::string& name() const override { return name_; }
  UartModel model() const { return model_; }
  // What the transmitter sent: its last `keep` bytes (KeepLast; all of them until then),
  // and how many it sent in all.
  std::string transmitted() const { return tx_.Tail(); }
  uint64_t transmitted_bytes() const { return tx_.bytes(); }
  void KeepLast(size_t keep) { tx_ = ConsoleLog(keep); }
  // Bytes the firmware wrote to the transmit register while the transmitter was off,
  // and the register field that was off ("CTRL.TXEN").
  uint64_t dropped() const { return dropped_; }
  std::string TransmitterEnable() const;
  // Counts the changes a CPU read can make to what the model's outputs depend on (a byte
  // received or taken, RDR emptied, a DesignWare THR-empty interrupt cleared): a read that
  // leaves it alone moved no line.
  uint64_t state_changes() const { return state_changes_; }

 private:
  size_t Index(const char* name) const;
  bool Field(const std::vector<uint32_t>& values, size_t reg, uint32_t bit) const {
    return (values[reg] >> bit) & 1;
  }
  bool HasInput() const { return rx_next_ < rx_.size(); }
  uint8_t TakeInput() {
    ++state_changes_;
    return uint8_t(rx_[rx_next_++]);
  }
  void Send(uint8_t byte) {
    const char c = char(byte);
    tx_.Append(std::string_view(&c, 1));
  }

  bool CmsdkCanReceive(const std::vector<uint32_t>& values) const;
  uint32_t ReadCmsdk(size_t reg, std::vector<uint32_t>& values);
  void WriteCmsdk(size_t reg, uint32_t value, std::vector<uint32_t>& values);
  void Stm32Latch(std::vector<uint32_t>& values);
  void Stm32EmptyRdr(std::vector<uint32_t>& values);
  uint32_t Stm32Isr(const std::vector<uint32_t>& values) const;
  bool Stm32Line(const std::vector<uint32_t>& values) const;
  uint32_t LpuartStat(const std::vector<uint32_t>& values) const;
  bool LpuartLine(const std::vector<uint32_t>& values) const;
  uint32_t DwRxLevel() const;
  uint32_t DwInterruptId(const std::vector<uint32_t>& values) const;
  uint32_t ReadStm32(size_t reg, std::vector<uint32_t>& values);
  void WriteStm32(size_t reg, uint32_t value, std::vector<uint32_t>& values);
  uint32_t ReadLpuart(size_t reg, std::vector<uint32_t>& values);
  void WriteLpuart(size_t reg, uint32_t value, std::vector<uint32_t>& values);
  uint32_t ReadDw(size_t reg, std::vector<uint32_t>& values);
  void WriteDw(size_t reg, uint32_t value, std::vector<uint32_t>& values);
  uint32_t Pl011Ris(const std::vector<uint32_t>& values) const;
  uint32_t ReadPl011(size_t reg, std::vector<uint32_t>& values);
  void WritePl011(size_t reg, uint32_t value, std::vector<uint32_t>& values);

  std::string name_;
  UartModel model_;
  std::vector<std::string> registers_;  // names, by index
  // Register indices the behaviour needs, by model: a transmit/receive data register,
  // a status register and a control register (other models' fields stay unused).
  size_t data_ = 0, status_ = 0, control_ = 0, interrupts_ = 0;  // CMSDK, LPUART
  size_t cr1_ = 0, cr3_ = 0, isr_ = 0, rdr_ = 0, tdr_ = 0, rqr_ = 0, icr_ = 0;  // STM32
  size_t thr_ = 0, ier_ = 0, fcr_ = 0, lcr_ = 0, lsr_ = 0;  // DesignWare and 16550
  size_t usr_ = SIZE_MAX, rfl_ = SIZE_MAX;                 // DesignWare only
  size_t fifo_ = 0, water_ = 0;                                   // LPUART
  size_t dr_ = 0, fr_ = 0, imsc_ = 0, ris_ = 0, mis_ = 0, pl_icr_ = 0, pl_id_ = 0;  // PL011
  bool pl011_tx_int_ = false;  // PL011 RIS.TXRIS: set by a DR write, cleared by ICR.TXIC
  uint32_t dll_ = 0, dlh_ = 0;  // DesignWare divisor latch, behind THR/IER while LCR.DLAB = 1
  uint8_t rx_holding_ = 0;      // CMSDK: the byte in the receive buffer (QEMU's rxbuf)
  bool rdr_full_ = false;       // STM32: RDR holds a received byte (ISR.RXNE) the firmware has seen
  // DesignWare: the THR-empty interrupt is pending (set when THR empties or IER.ETBEI is
  // set, cleared by the IIR read that reports it; DW_apb_uart databook, interrupt table).
  bool dw_thre_pending_ = false;
  ConsoleLog tx_{SIZE_MAX / 2};
  std::string rx_;
  size_t rx_next_ = 0;
  uint64_t dropped_ = 0;
  uint64_t state_changes_ = 0;
  uint64_t seen_changes_ = 0;  // state_changes_ at the latest TakeAttention
};

}  // namespace faultline
