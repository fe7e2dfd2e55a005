// The register layouts of the UART models a board can declare with `model:`. Names,
// offsets and bit positions are the reference manual's; devices/uart.cc gives the
// registers their behaviour and finds them by these names.
#include <fmt/core.h>

#include "faultline/board.h"
#include "register_layout.h"

namespace faultline {

namespace {

// Arm CMSDK APB UART: Cortex-M System Design Kit TRM (ARM DDI 0479C) §4.3, as QEMU 7.2
// hw/char/cmsdk-apb-uart.c models it (register map, field positions, ID values).
std::vector<Register> CmsdkApb() {
  std::vector<Register> r = {
      Reg("DATA", 0x00),
      Reg("STATE", 0x04, 0,
          {Bit("TXFULL", 0), Bit("RXFULL", 1), Bit("TXOVERRUN", 2), Bit("RXOVERRUN", 3)}),
      Reg("CTRL", 0x08, 0,
          {Bit("TXEN", 0), Bit("RXEN", 1), Bit("TXINTEN", 2), Bit("RXINTEN", 3), Bit("TXOINTEN", 4),
           Bit("RXOINTEN", 5), Bit("HSTEST", 6)}),
      Reg("INTSTATUS", 0x0C, 0, {Bit("TX", 0), Bit("RX", 1), Bit("TXO", 2), Bit("RXO", 3)}),
      Reg("BAUDDIV", 0x10),
  };
  // Peripheral and component ID registers (QEMU's uart_id[]).
  const std::pair<const char*, uint32_t> ids[] = {
      {"PID4", 0x04}, {"PID5", 0x00}, {"PID6", 0x00}, {"PID7", 0x00}, {"PID0", 0x21}, {"PID1", 0xB8},
      {"PID2", 0x1B}, {"PID3", 0x00}, {"CID0", 0x0D}, {"CID1", 0xF0}, {"CID2", 0x05}, {"CID3", 0xB1}};
  uint32_t offset = 0xFD0;
  for (const auto& [name, value] : ids) {
    r.push_back(Reg(name, offset, value));
    offset += 4;
  }
  return r;
}

// STM32 USART with FIFO (RM0433 STM32H742/743/750/753 §48.8, RM0399 STM32H745/747 §50.8,
// RM0486 STM32N6 USART registers; bit positions as ST's CMSIS headers stm32h747xx.h /
// stm32n657xx.h define USART_CR1_*, USART_RQR_*, USART_ISR_*, USART_ICR_*). ISR resets with
// TXE/TXFNF, TC and TXFE set: the transmitter is idle. RQR and ICR are
// write-only requests: devices/uart.cc gives them their effect on ISR and RDR.
std::vector<Register> Stm32Usart(bool lpuart) {
  std::vector<Register> r = {
      Reg("CR1", 0x00, 0,
          {Bit("UE", 0), Bit("UESM", 1), Bit("RE", 2), Bit("TE", 3), Bit("IDLEIE", 4), Bit("RXNEIE", 5),
           Bit("TCIE", 6), Bit("TXEIE", 7), Bit("PEIE", 8), Bit("FIFOEN", 29), Bit("TXFEIE", 30)}),
      Reg("CR2", 0x04),
      Reg("CR3", 0x08, 0, {Bit("EIE", 0)}),
      Reg("BRR", 0x0C),
  };
  if (!lpuart) {  // the LPUART has no guard time or receiver timeout (0x10, 0x14 reserved)
    r.push_back(Reg("GTPR", 0x10));
    r.push_back(Reg("RTOR", 0x14));
  }
  r.push_back(Reg("RQR", 0x18, 0, {Bit("RXFRQ", 3), Bit("TXFRQ", 4)}));
  r.push_back(Reg("ISR", 0x1C, 0x008000C0,
                  {Bit("PE", 0), Bit("FE", 1), Bit("NE", 2), Bit("ORE", 3), Bit("IDLE", 4), Bit("RXNE", 5),
                   Bit("TC", 6), Bit("TXE", 7), Bit("TEACK", 21), Bit("REACK", 22), Bit("TXFE", 23)}));
  r.push_back(Reg("ICR", 0x20, 0,
                  {Bit("PECF", 0), Bit("FECF", 1), Bit("NECF", 2), Bit("ORECF", 3), Bit("IDLECF", 4),
                   Bit("TXFECF", 5), Bit("TCCF", 6), Bit("TCBGTCF", 7), Bit("LBDCF", 8), Bit("CTSCF", 9),
                   Bit("RTOCF", 11), Bit("EOBCF", 12), Bit("UDRCF", 13), Bit("CMCF", 17), Bit("WUCF", 20)}));
  r.push_back(Reg("RDR", 0x24));
  r.push_back(Reg("TDR", 0x28));
  r.push_back(Reg("PRESC", 0x2C));
  return r;
}

// NXP LPUART (i.MX93 RM "LPUART memory map"; the MCUXpresso SDK's LPUART_Type in
// MIMX9352_cm33.h and Linux drivers/tty/serial/fsl_lpuart.c UARTSTAT/UARTCTRL/UARTDATA give
// the same offsets and bits). STAT resets with TDRE and TC set. STAT mixes read-only flags
// (TDRE, TC, RDRF, RAF), write-1-to-clear flags (LBKDIF, RXEDGIF, IDLE, OR, NF, FE, PF, MA1F,
// MA2F) and read/write configuration (LBKDE, BRK13, RWUID, RXINV, MSBF): i.MX93 RM, LPUART
// "Status (STAT)" field descriptions; MIMX9352_cm33.h LPUART_STAT_*_MASK.
std::vector<Register> NxpLpuart() {
  return {
      Reg("VERID", 0x00),
      Reg("PARAM", 0x04),
      Reg("GLOBAL", 0x08),
      Reg("PINCFG", 0x0C),
      Reg("BAUD", 0x10),
      Reg("STAT", 0x14, 0x00C00000,
          {Bit("MA2F", 14), Bit("MA1F", 15), Bit("PF", 16), Bit("FE", 17), Bit("NF", 18), Bit("OR", 19),
           Bit("IDLE", 20), Bit("RDRF", 21), Bit("TC", 22), Bit("TDRE", 23), Bit("RAF", 24), Bit("LBKDE", 25),
           Bit("BRK13", 26), Bit("RWUID", 27), Bit("RXINV", 28), Bit("MSBF", 29), Bit("RXEDGIF", 30),
           Bit("LBKDIF", 31)}),
      Reg("CTRL", 0x18, 0,
          {Bit("RE", 18), Bit("TE", 19), Bit("ILIE", 20), Bit("RIE", 21), Bit("TCIE", 22), Bit("TIE", 23),
           Bit("ORIE", 27)}),
      Reg("DATA", 0x1C, 0, {Bit("RXEMPT", 12)}),
      Reg("MATCH", 0x20),
      Reg("MODIR", 0x24),
      Reg("FIFO", 0x28, 0, {Bit("RXEMPT", 22), Bit("TXEMPT", 23)}),
      Reg("WATER", 0x2C, 0, {{"TXCOUNT", 14, 8}, {"RXCOUNT", 30, 24}}),
  };
}

// Synopsys DesignWare APB UART (16550-compatible, 32-bit register stride), as the Alif
// Ensemble DFP's drivers/include/uart.h drives it (LSR/USR/LCR bit definitions) and Linux
// drivers/tty/serial/8250/8250_dw.c addresses it (USR at register 0x1f). Offset 0 is
// RBR (read) / THR (write) / DLL (LCR.DLAB = 1); 0x04 IER / DLH; 0x08 IIR (read) / FCR
// (write): devices/uart.cc keeps the banked registers apart.
std::vector<Register> Dw16550() {
  return {
      Reg("THR", 0x00),
      Reg("IER", 0x04, 0, {Bit("ERBFI", 0), Bit("ETBEI", 1), Bit("ELSI", 2), Bit("EDSSI", 3), Bit("PTIME", 7)}),
      Reg("FCR", 0x08, 0, {Bit("FIFOE", 0), {"RT", 7, 6}}),  // write-only; a read gives IIR
      Reg("LCR", 0x0C, 0, {Bit("DLAB", 7)}),
      Reg("MCR", 0x10),
      Reg("LSR", 0x14, 0x60, {Bit("DR", 0), Bit("OE", 1), Bit("THRE", 5), Bit("TEMT", 6)}),
      Reg("MSR", 0x18),
      Reg("SCR", 0x1C),
      Reg("FAR", 0x70),
      Reg("USR", 0x7C, 0x06, {Bit("BUSY", 0), Bit("TFNF", 1), Bit("TFE", 2), Bit("RFNE", 3), Bit("RFF", 4)}),
      Reg("TFL", 0x80),
      Reg("RFL", 0x84),
      Reg("SRR", 0x88),
      Reg("SRTS", 0x8C),
      Reg("SBCR", 0x90),
      Reg("SDMAM", 0x94),
      Reg("SFE", 0x98),
      Reg("SRT", 0x9C),
      Reg("STET", 0xA0),
      Reg("HTX", 0xA4),
      Reg("DMASA", 0xA8),
      Reg("TCR", 0xAC),
      Reg("DE_EN", 0xB0),
      Reg("RE_EN", 0xB4),
      Reg("DET", 0xB8),
      Reg("TAT", 0xBC),
      Reg("DLF", 0xC0),
      Reg("CPR", 0xF4),
      Reg("UCV", 0xF8),
      Reg("CTR", 0xFC),
  };
}

// The 16550A as QEMU 7.2's RISC-V virt machine maps it (hw/riscv/virt.c serial_mm_init,
// regshift 0: one byte per register; hw/char/serial.c): 0 RBR/THR/DLL, 1 IER/DLM, 2
// IIR/FCR, 3 LCR, 4 MCR, 5 LSR (THRE and TEMT at reset), 6 MSR, 7 SCR (TI PC16550D
// datasheet, "Register Summary"). The DesignWare UART's behaviour without its extra
// registers: devices/uart.cc.
std::vector<Register> Ns16550() {
  std::vector<Register> r = Dw16550();
  r.resize(8);  // THR .. SCR, in the same order
  for (Register& reg : r) reg.offset /= 4;
  r[1].fields.pop_back();  // IER bit 7 is the DesignWare's PTIME, reserved on the 16550A
  return r;
}

// Arm PrimeCell UART (PL011) r1p5, Technical Reference Manual DDI 0183G §3.2-3.3: register
// offsets and reset values (FR 0x90 with both FIFOs empty; CR 0x300, TXE and RXE; IFLS
// 0x12), the peripheral and PrimeCell identification registers at 0xFE0-0xFFC (Arm's
// values, as QEMU 7.2 hw/char/pl011.c pl011_id_arm gives them).
std::vector<Register> Pl011() {
  const uint32_t id[8] = {0x11, 0x10, 0x14, 0x00, 0x0D, 0xF0, 0x05, 0xB1};
  std::vector<Register> r = {
      Reg("DR", 0x000, 0, {{"DATA", 7, 0}, Bit("FE", 8), Bit("PE", 9), Bit("BE", 10), Bit("OE", 11)}),
      Reg("RSR", 0x004),
      Reg("FR", 0x018, 0x90, {Bit("CTS", 0), Bit("BUSY", 3), Bit("RXFE", 4), Bit("TXFF", 5), Bit("RXFF", 6), Bit("TXFE", 7)}),
      Reg("ILPR", 0x020),
      Reg("IBRD", 0x024, 0, {{"BAUD_DIVINT", 15, 0}}),
      Reg("FBRD", 0x028, 0, {{"BAUD_DIVFRAC", 5, 0}}),
      Reg("LCR_H", 0x02C, 0, {Bit("BRK", 0), Bit("PEN", 1), Bit("EPS", 2), Bit("STP2", 3), Bit("FEN", 4), {"WLEN", 6, 5}}),
      Reg("CR", 0x030, 0x300, {Bit("UARTEN", 0), Bit("LBE", 7), Bit("TXE", 8), Bit("RXE", 9), Bit("RTS", 11)}),
      Reg("IFLS", 0x034, 0x12),
      Reg("IMSC", 0x038, 0, {Bit("RXIM", 4), Bit("TXIM", 5), Bit("RTIM", 6), Bit("OEIM", 10)}),
      Reg("RIS", 0x03C, 0, {Bit("RXRIS", 4), Bit("TXRIS", 5), Bit("RTRIS", 6), Bit("OERIS", 10)}),
      Reg("MIS", 0x040, 0, {Bit("RXMIS", 4), Bit("TXMIS", 5), Bit("RTMIS", 6), Bit("OEMIS", 10)}),
      Reg("ICR", 0x044, 0, {Bit("RXIC", 4), Bit("TXIC", 5), Bit("RTIC", 6), Bit("OEIC", 10)}),
      Reg("DMACR", 0x048),
  };
  const char* names[8] = {"PERIPHID0", "PERIPHID1", "PERIPHID2", "PERIPHID3", "PCELLID0", "PCELLID1", "PCELLID2", "PCELLID3"};
  for (uint32_t i = 0; i < 8; ++i) r.push_back(Reg(names[i], 0xFE0 + 4 * i, id[i]));
  return r;
}

}  // namespace

std::vector<Register> UartRegisters(UartModel model) {
  switch (model) {
    case UartModel::kCmsdkApb: return CmsdkApb();
    case UartModel::kStm32Usart: return Stm32Usart(false);
    case UartModel::kStm32Lpuart: return Stm32Usart(true);
    case UartModel::kNxpLpuart: return NxpLpuart();
    case UartModel::kDw16550: return Dw16550();
    case UartModel::kPl011: return Pl011();
    case UartModel::kNs16550: return Ns16550();
  }
  return {};
}

uint64_t UartBlockSize(UartModel model) {
  // CMSDK: 4 KiB (QEMU maps 0x1000, the ID registers reach 0xFFC); STM32: 1 KiB (the RMs'
  // USART boundary); DesignWare: 256 bytes of registers (CTR at 0xFC) in a 4 KiB slot
  // (Alif global_map.h); LPUART: 4 KiB, less than the SoC's window (a board states that);
  // the 16550 of QEMU's virt machine: 0x100 (virt_memmap VIRT_UART0).
  if (model == UartModel::kNs16550) return 0x100;
  return model == UartModel::kStm32Usart || model == UartModel::kStm32Lpuart ? 0x400 : 0x1000;
}

std::string ToString(UartModel model) {
  switch (model) {
    case UartModel::kCmsdkApb: return "cmsdk-apb-uart";
    case UartModel::kStm32Usart: return "stm32-usart";
    case UartModel::kStm32Lpuart: return "stm32-lpuart";
    case UartModel::kNxpLpuart: return "nxp-lpuart";
    case UartModel::kDw16550: return "dw-apb-uart";
    case UartModel::kPl011: return "pl011";
    case UartModel::kNs16550: return "ns16550";
  }
  return "?";
}

}  // namespace faultline
