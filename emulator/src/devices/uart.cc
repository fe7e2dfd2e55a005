#include "uart.h"

#include <algorithm>
#include <cassert>

namespace faultline {

namespace {

// CMSDK APB UART fields (QEMU 7.2 hw/char/cmsdk-apb-uart.c).
constexpr uint32_t kCmsdkTxFull = 1u << 0, kCmsdkRxFull = 1u << 1;
constexpr uint32_t kCmsdkOverruns = 3u << 2;  // STATE.TXOVERRUN, RXOVERRUN (W1C)
constexpr uint32_t kCmsdkTxEn = 1u << 0, kCmsdkRxEn = 1u << 1, kCmsdkTxIntEn = 1u << 2,
                   kCmsdkRxIntEn = 1u << 3;
constexpr uint32_t kCmsdkIntTx = 1u << 0, kCmsdkIntRx = 1u << 1;

// STM32 USART (RM0433 / RM0486; stm32h747xx.h USART_CR1_*, USART_RQR_*, USART_ISR_*, USART_ICR_*).
constexpr uint32_t kStmUe = 0, kStmRe = 2, kStmTe = 3;  // CR1 bits
constexpr uint32_t kStmIdle = 1u << 4, kStmRxne = 1u << 5, kStmTc = 1u << 6, kStmTxe = 1u << 7,
                   kStmTeack = 1u << 21, kStmReack = 1u << 22, kStmTxfe = 1u << 23;
constexpr uint32_t kStmRxfrq = 1u << 3, kStmTxfrq = 1u << 4;  // RQR
constexpr uint32_t kStmPe = 1u << 0, kStmFe = 1u << 1, kStmNe = 1u << 2, kStmOre = 1u << 3;  // ISR
// Interrupt enables (RM0433 §48.8 USART_CR1 and USART_CR3 field descriptions, and the
// USART chapter's "USART interrupt requests" table; RM0486 likewise): CR1.IDLEIE (4) IDLE,
// RXNEIE/RXFNEIE (5) RXNE/RXFNE and ORE, TCIE (6) TC, TXEIE/TXFNFIE (7) TXE/TXFNF, PEIE (8)
// PE, TXFEIE (30) TXFE; CR3.EIE (0) FE, ORE, NE. All of a USART's sources share its one
// global interrupt line (stm32h747xx.h: one USARTn_IRQn per USART).
constexpr uint32_t kStmIdleie = 1u << 4, kStmRxneie = 1u << 5, kStmTcie = 1u << 6, kStmTxeie = 1u << 7,
                   kStmPeie = 1u << 8, kStmTxfeie = 1u << 30;
constexpr uint32_t kStmEie = 1u << 0;  // CR3
// USART_ICR (RM0433 §48.8, USART_ICR): each clear bit clears the ISR flag at the same position (PECF PE,
// FECF FE, NECF NE, ORECF ORE, IDLECF IDLE, TCCF TC, TCBGTCF TCBGT, LBDCF LBDF, CTSCF CTSIF,
// RTOCF RTOF, EOBCF EOBF, UDRCF UDR, CMCF CMF, WUCF WUF), except TXFECF (bit 5), which
// clears TXFE (ISR bit 23): bit 5 of ISR is RXNE, which only reading RDR clears.
constexpr uint32_t kStmIcrSamePosition = 0x1Fu | (0xFu << 6) | (0x7u << 11) | (1u << 17) | (1u << 20);
constexpr uint32_t kStmTxfecf = 1u << 5;

// NXP LPUART (fsl_lpuart.c UARTSTAT_*, UARTCTRL_*, UARTDATA_*, UARTFIFO_*).
constexpr uint32_t kLpRe = 18, kLpTe = 19;  // CTRL bits
constexpr uint32_t kLpOr = 1u << 19, kLpIdle = 1u << 20, kLpRdrf = 1u << 21, kLpTc = 1u << 22, kLpTdre = 1u << 23;
// Interrupt enables (i.MX93 RM, LPUART "Control (CTRL)" field descriptions; fsl_lpuart.h
// kLPUART_*InterruptEnable): ILIE (20) IDLE, RIE (21) RDRF, TCIE (22) TC, TIE (23) TDRE,
// ORIE (27) OR. One LPUARTn_IRQn per instance (NXP's i.MX 9 Cortex-M33 device headers).
constexpr uint32_t kLpIlie = 1u << 20, kLpRie = 1u << 21, kLpTcie = 1u << 22, kLpTie = 1u << 23, kLpOrie = 1u << 27;
constexpr uint32_t kLpStatConfig = 0x1Fu << 25;  // LBKDE, BRK13, RWUID, RXINV, MSBF: read/write
// LBKDIF, RXEDGIF, IDLE, OR, NF, FE, PF, MA1F, MA2F: write 1 to clear (i.MX93 RM, LPUART STAT).
constexpr uint32_t kLpStatW1c = (3u << 30) | (0x7Fu << 14);
constexpr uint32_t kLpDataRxEmpty = 1u << 12;
constexpr uint32_t kLpFifoRxEmpty = 1u << 22, kLpFifoTxEmpty = 1u << 23;
constexpr uint32_t kLpWaterCounts = (0x7Fu << 24) | (0x7Fu << 8);  // RXCOUNT, TXCOUNT (read-only)
constexpr uint32_t kLpWaterRxOne = 1u << 24;

// DesignWare APB UART (DW_apb_uart databook, register descriptions; Alif DFP
// drivers/include/uart.h).
constexpr uint32_t kDwDlab = 1u << 7;                                     // LCR
constexpr uint32_t kDwDr = 1u << 0, kDwThre = 1u << 5, kDwTemt = 1u << 6;  // LSR
constexpr uint32_t kDwTfnf = 1u << 1, kDwTfe = 1u << 2, kDwRfne = 1u << 3, kDwRff = 1u << 4;  // USR
constexpr uint32_t kDwErbfi = 1u << 0, kDwEtbei = 1u << 1, kDwPtime = 1u << 7;  // IER
constexpr uint32_t kDwFcrFifoEnable = 0x01, kDwFcrTxTriggerShift = 4, kDwFcrRxTriggerShift = 6;  // FCR.FIFOE, TET, RT
constexpr uint32_t kDwFifoDepth = 32;  // UART_FIFO_DEPTH
// IIR.IID (DW_apb_uart databook, "Interrupt Identity Register" and its interrupt
// priority table), with IIR.FIFOSE (bits 7:6) 0b11 while FCR.FIFOE is set.
constexpr uint32_t kDwIidNone = 0x1, kDwIidThre = 0x2, kDwIidRxData = 0x4, kDwIidTimeout = 0xC;
constexpr uint32_t kDwIirFifos = 0xC0;

}  // namespace

UartPort::UartPort(const Peripheral& p) : name_(p.name), model_(*p.uart) {
  for (const Register& r : p.registers) registers_.push_back(r.name);
  switch (model_) {
    case UartModel::kCmsdkApb:
      data_ = Index("DATA");
      status_ = Index("STATE");
      control_ = Index("CTRL");
      interrupts_ = Index("INTSTATUS");
      break;
    case UartModel::kStm32Usart:
    case UartModel::kStm32Lpuart:
      cr1_ = Index("CR1");
      cr3_ = Index("CR3");
      isr_ = Index("ISR");
      rdr_ = Index("RDR");
      tdr_ = Index("TDR");
      rqr_ = Index("RQR");
      icr_ = Index("ICR");
      break;
    case UartModel::kNxpLpuart:
      data_ = Index("DATA");
      status_ = Index("STAT");
      control_ = Index("CTRL");
      fifo_ = Index("FIFO");
      water_ = Index("WATER");
      break;
    case UartModel::kPl011:
      dr_ = Index("DR");
      fr_ = Index("FR");
      imsc_ = Index("IMSC");
      ris_ = Index("RIS");
      mis_ = Index("MIS");
      pl_icr_ = Index("ICR");
      pl_id_ = Index("PERIPHID0");  // the identification registers follow it
      break;
    case UartModel::kDw16550:
    case UartModel::kNs16550:  // the same without USR, RFL and the shadow registers
      thr_ = Index("THR");
      ier_ = Index("IER");
      fcr_ = Index("FCR");
      lcr_ = Index("LCR");
      lsr_ = Index("LSR");
      if (model_ == UartModel::kDw16550) {
        usr_ = Index("USR");
        rfl_ = Index("RFL");
      }
      break;
  }
}

size_t UartPort::Index(const char* name) const {
  auto it = std::find(registers_.begin(), registers_.end(), name);
  assert(it != registers_.end());  // the model's layout declares it (board/uart_models.cc)
  return size_t(it - registers_.begin());
}

std::string UartPort::TransmitterEnable() const {
  switch (model_) {
    case UartModel::kCmsdkApb: return "CTRL.TXEN";
    case UartModel::kStm32Usart:
    case UartModel::kStm32Lpuart: return "CR1.UE and CR1.TE";
    case UartModel::kNxpLpuart: return "CTRL.TE";
    case UartModel::kDw16550:
    case UartModel::kNs16550: return "";  // a 16550's transmitter is always on
    case UartModel::kPl011: return "";    // QEMU 7.2's PL011 sends whatever CR says
  }
  return "";
}

uint32_t UartPort::Read(size_t reg, std::vector<uint32_t>& values) {
  switch (model_) {
    case UartModel::kCmsdkApb: return ReadCmsdk(reg, values);
    case UartModel::kStm32Usart:
    case UartModel::kStm32Lpuart: return ReadStm32(reg, values);
    case UartModel::kNxpLpuart: return ReadLpuart(reg, values);
    case UartModel::kDw16550:
    case UartModel::kNs16550: return ReadDw(reg, values);
    case UartModel::kPl011: return ReadPl011(reg, values);
  }
  return values[reg];
}

void UartPort::Write(size_t reg, uint32_t value, std::vector<uint32_t>& values) {
  switch (model_) {
    case UartModel::kCmsdkApb: return WriteCmsdk(reg, value, values);
    case UartModel::kStm32Usart:
    case UartModel::kStm32Lpuart: return WriteStm32(reg, value, values);
    case UartModel::kNxpLpuart: return WriteLpuart(reg, value, values);
    case UartModel::kDw16550:
    case UartModel::kNs16550: return WriteDw(reg, value, values);
    case UartModel::kPl011: return WritePl011(reg, value, values);
  }
}

// --- CMSDK APB UART, as QEMU 7.2 models it -------------------------------------------
// A one-byte buffer each way. A write to DATA sets STATE.TXFULL; the byte goes out (and
// TXFULL clears) only while CTRL.TXEN is set: written with TXEN clear it stays pending,
// TXFULL stays set and later writes are overruns (QEMU's uart_transmit returns early and
// nothing retries it). A byte is received only while CTRL.RXEN is set and the buffer is
// empty (uart_can_receive); reading DATA empties it.

bool UartPort::CmsdkCanReceive(const std::vector<uint32_t>& values) const {
  return (values[control_] & kCmsdkRxEn) && !(values[status_] & kCmsdkRxFull) && HasInput();
}

bool UartPort::ReceiveDue(const std::vector<uint32_t>& values) const {
  switch (model_) {
    case UartModel::kCmsdkApb: return (values[control_] & kCmsdkRxIntEn) && CmsdkCanReceive(values);
    case UartModel::kStm32Usart:
    case UartModel::kStm32Lpuart:
      return (values[cr1_] & kStmRxneie) && !rdr_full_ && Field(values, cr1_, kStmUe) &&
             Field(values, cr1_, kStmRe) && HasInput();
    case UartModel::kNxpLpuart:
    case UartModel::kDw16550:
    case UartModel::kNs16550:
    case UartModel::kPl011: return false;
  }
  return false;
}

void UartPort::ReceiveNow(std::vector<uint32_t>& values) {
  if (model_ == UartModel::kStm32Usart || model_ == UartModel::kStm32Lpuart) return Stm32Latch(values);
  if (model_ != UartModel::kCmsdkApb || !CmsdkCanReceive(values)) return;
  rx_holding_ = TakeInput();
  values[status_] |= kCmsdkRxFull;
  if (values[control_] & kCmsdkRxIntEn) values[interrupts_] |= kCmsdkIntRx;
}

bool UartPort::Output(const std::string& output, const std::vector<uint32_t>& values) const {
  switch (model_) {
    case UartModel::kCmsdkApb: {
      // QEMU 7.2 cmsdk-apb-uart.c uart_update_irqs: TXINT, RXINT, and the overflow outputs
      // TXOVRINT/RXOVRINT (the MPS2 boards OR those of UART0-2 into one line).
      const uint32_t intstatus = values[interrupts_];
      if (output == "tx") return intstatus & kCmsdkIntTx;
      if (output == "rx") return intstatus & kCmsdkIntRx;
      return intstatus & kCmsdkOverruns;  // "overflow"
    }
    case UartModel::kStm32Usart:
    case UartModel::kStm32Lpuart: return Stm32Line(values);
    case UartModel::kNxpLpuart: return LpuartLine(values);
    case UartModel::kDw16550:
    case UartModel::kNs16550: return DwInterruptId(values) != kDwIidNone;
    case UartModel::kPl011: return (Pl011Ris(values) & values[imsc_]) != 0;  // UARTINTR, the combined line
  }
  return false;
}

uint32_t UartPort::ReadCmsdk(size_t reg, std::vector<uint32_t>& values) {
  uint32_t& state = values[status_];
  if (reg == data_ || reg == status_) ReceiveNow(values);
  if (reg == data_) {
    if (state & kCmsdkRxFull) ++state_changes_;
    state &= ~kCmsdkRxFull;
    return rx_holding_;
  }
  return values[reg];
}

void UartPort::WriteCmsdk(size_t reg, uint32_t value, std::vector<uint32_t>& values) {
  uint32_t& state = values[status_];
  uint32_t& ctrl = values[control_];
  uint32_t& intstatus = values[interrupts_];
  if (reg == data_) {
    values[data_] = value & 0xFF;
    if (state & kCmsdkTxFull) {
      state |= 1u << 2;  // TXOVERRUN
      ++dropped_;
    } else if (ctrl & kCmsdkTxEn) {
      Send(uint8_t(value));
      if (ctrl & kCmsdkTxIntEn) intstatus |= kCmsdkIntTx;
    } else {
      state |= kCmsdkTxFull;
      ++dropped_;
    }
  } else if (reg == status_) {
    state &= ~(value & kCmsdkOverruns);
  } else if (reg == control_) {
    ctrl = value & 0x7F;
  } else if (reg == interrupts_) {
    state &= ~(value & kCmsdkOverruns);
    intstatus &= ~value;
  } else if (registers_[reg] == "BAUDDIV") {
    values[reg] = value & 0xFFFFF;
  }  // PID/CID are read-only
  // INTSTATUS.TXO/RXO are STATE's overrun bits where CTRL enables their interrupt.
  intstatus = (intstatus & ~kCmsdkOverruns) | (state & (ctrl >> 2) & kCmsdkOverruns);
}

// --- STM32 USART / LPUART ---------------------------------------------------------------
// The transmitter is always idle: ISR.TXE/TXFNF reads 1; a byte written to TDR is sent at
// once, so TC and TXFE are set again by the write that sends it. TDR sends while CR1.UE and
// CR1.TE are set (RM: "TE: transmitter enable"; QEMU's stm32f2xx_usart checks the same two
// bits). TEACK/REACK follow TE/RE while UE is set.
// The receiver holds at most one byte, in RDR: the next input byte arrives there when the
// firmware looks (an ISR or RDR read with UE and RE set) or, with CR1.RXNEIE set, at the
// next block boundary, and RXNE is set while it is there.
// Reading RDR empties it (RM0433 §48.8 USART_ISR: RXNE "cleared by a read to the USART_RDR"), and
// so does RQR.RXFRQ, which discards it unread (USART_RQR: "RXFRQ: receive data flush request").
// When RDR is emptied with no more input waiting, the line has gone quiet after a frame:
// ISR.IDLE is set (USART_ISR "IDLE: idle line detected"; it is not set again before a new
// byte arrives). TC, TXFE and IDLE stay set until ICR clears them (USART_ICR; TC "cleared by
// software, writing 1 to the TCCF in the USART_ICR register"), and TXFE is set again by
// RQR.TXFRQ. Not raised: the line errors PE, FE, NE and the overrun ORE (no byte arrives
// while RDR is full: uart.h), and the LIN, CTS, timeout, smartcard and wake-up flags; their
// ICR bits clear them all the same.

void UartPort::Stm32Latch(std::vector<uint32_t>& values) {
  if (rdr_full_ || !Field(values, cr1_, kStmUe) || !Field(values, cr1_, kStmRe) || !HasInput()) return;
  rdr_full_ = true;
  values[rdr_] = TakeInput();
}

void UartPort::Stm32EmptyRdr(std::vector<uint32_t>& values) {
  if (!rdr_full_) return;
  rdr_full_ = false;
  ++state_changes_;
  if (!HasInput()) values[isr_] |= kStmIdle;
}

uint32_t UartPort::Stm32Isr(const std::vector<uint32_t>& values) const {
  const bool ue = Field(values, cr1_, kStmUe);
  uint32_t v = (values[isr_] & ~(kStmRxne | kStmTxe | kStmTeack | kStmReack)) | kStmTxe;
  if (ue && Field(values, cr1_, kStmTe)) v |= kStmTeack;
  if (ue && Field(values, cr1_, kStmRe)) v |= kStmReack;
  if (rdr_full_) v |= kStmRxne;
  return v;
}

// The USART's interrupt line: any flag whose enable is set (constants above). TXE reads 1
// always, so TXEIE holds the line high until the driver clears it, as on silicon when the
// transmitter keeps up.
bool UartPort::Stm32Line(const std::vector<uint32_t>& values) const {
  const uint32_t isr = Stm32Isr(values), cr1 = values[cr1_], cr3 = values[cr3_];
  auto source = [](uint32_t enables, uint32_t enable, uint32_t flags, uint32_t flag) {
    return (enables & enable) && (flags & flag);
  };
  return source(cr1, kStmTxeie, isr, kStmTxe) || source(cr1, kStmTcie, isr, kStmTc) ||
         source(cr1, kStmRxneie, isr, kStmRxne | kStmOre) || source(cr1, kStmIdleie, isr, kStmIdle) ||
         source(cr1, kStmPeie, isr, kStmPe) || source(cr1, kStmTxfeie, isr, kStmTxfe) ||
         source(cr3, kStmEie, isr, kStmFe | kStmOre | kStmNe);
}

uint32_t UartPort::ReadStm32(size_t reg, std::vector<uint32_t>& values) {
  if (reg == isr_ || reg == rdr_) Stm32Latch(values);
  if (reg == isr_) return Stm32Isr(values);
  if (reg == rdr_) {
    const uint32_t v = values[rdr_];
    Stm32EmptyRdr(values);
    return v;
  }
  return values[reg];
}

void UartPort::WriteStm32(size_t reg, uint32_t value, std::vector<uint32_t>& values) {
  if (reg == tdr_) {
    values[tdr_] = value & 0x1FF;
    if (Field(values, cr1_, kStmUe) && Field(values, cr1_, kStmTe)) {
      Send(uint8_t(value));
      values[isr_] |= kStmTc | kStmTxfe;  // the write clears TC; the frame completes at once
    } else {
      ++dropped_;
    }
    return;
  }
  if (reg == icr_) {
    values[isr_] &= ~((value & kStmIcrSamePosition) | ((value & kStmTxfecf) ? kStmTxfe : 0));
    return;
  }
  if (reg == rqr_) {
    if (value & kStmRxfrq) Stm32EmptyRdr(values);
    if (value & kStmTxfrq) values[isr_] |= kStmTxfe;
    return;
  }
  if (reg == isr_ || reg == rdr_) return;  // read-only
  values[reg] = value;
}

// --- NXP LPUART -------------------------------------------------------------------------
// STAT.TDRE and TC read 1; DATA sends while CTRL.TE is set; RDRF is set while CTRL.RE is
// set and a byte is waiting; a DATA read with nothing received has RXEMPT set. A DATA read
// that takes the last byte waiting leaves the line idle after a character: STAT.IDLE is set
// (i.MX93 RM, LPUART STAT: "IDLE is set when the LPUART receive line becomes idle for a full
// character time after a period of activity ... cannot become set again until after a new
// character has been stored in the receive buffer"). STAT writes: a 1 clears a
// write-1-to-clear flag and a 0 leaves it (so the SDK's `STAT |= flag` clears every flag that
// was set), configuration bits are stored, the read-only flags ignore the write. Not raised:
// OR, NF, FE, PF (no line errors; no overrun: uart.h), RXEDGIF, LBKDIF, MA1F, MA2F.

uint32_t UartPort::LpuartStat(const std::vector<uint32_t>& values) const {
  const bool rx_ready = Field(values, control_, kLpRe) && HasInput();
  return (values[status_] & ~(kLpRdrf | kLpTc | kLpTdre)) | kLpTdre | kLpTc | (rx_ready ? kLpRdrf : 0);
}

// The LPUART's interrupt line: a STAT flag whose CTRL enable is set (constants above).
// TDRE and TC read 1 always, so TIE or TCIE hold the line high until the driver clears them.
bool UartPort::LpuartLine(const std::vector<uint32_t>& values) const {
  const uint32_t stat = LpuartStat(values), ctrl = values[control_];
  return ((ctrl & kLpTie) && (stat & kLpTdre)) || ((ctrl & kLpTcie) && (stat & kLpTc)) ||
         ((ctrl & kLpRie) && (stat & kLpRdrf)) || ((ctrl & kLpIlie) && (stat & kLpIdle)) ||
         ((ctrl & kLpOrie) && (stat & kLpOr));
}

uint32_t UartPort::ReadLpuart(size_t reg, std::vector<uint32_t>& values) {
  const bool rx_ready = Field(values, control_, kLpRe) && HasInput();
  if (reg == status_) return LpuartStat(values);
  if (reg == data_) {
    if (!rx_ready) return kLpDataRxEmpty;
    const uint8_t byte = TakeInput();
    if (!HasInput()) values[status_] |= kLpIdle;
    return byte;
  }
  if (reg == fifo_) {
    return (values[fifo_] & ~(kLpFifoRxEmpty | kLpFifoTxEmpty)) | kLpFifoTxEmpty | (rx_ready ? 0 : kLpFifoRxEmpty);
  }
  // The transmit FIFO is always empty; the receive FIFO holds the one byte waiting (the
  // SDK's FIFO-mode LPUART_ReadBlocking polls RXCOUNT before it reads DATA).
  if (reg == water_) return (values[water_] & ~kLpWaterCounts) | (rx_ready ? kLpWaterRxOne : 0);
  return values[reg];
}

void UartPort::WriteLpuart(size_t reg, uint32_t value, std::vector<uint32_t>& values) {
  if (reg == data_) {
    if (Field(values, control_, kLpTe)) {
      Send(uint8_t(value));
    } else {
      ++dropped_;
    }
    return;
  }
  if (reg == status_) {
    values[status_] = (values[status_] & ~kLpStatConfig & ~(value & kLpStatW1c)) | (value & kLpStatConfig);
    return;
  }
  values[reg] = value;
}

// --- DesignWare APB UART (16550) ----------------------------------------------------------
// No enable bit: THR always sends. With LCR.DLAB set, offsets 0x00/0x04 are the divisor
// latch. LSR.THRE (but see PTIME below), LSR.TEMT and USR.TFNF/TFE read 1; LSR.DR,
// USR.RFNE/RFF and RFL follow the bytes waiting (all of them are in the receive FIFO, up
// to its depth); LSR's error bits (OE, PE, FE, BI, RFE) read 0. IIR (a read of offset
// 0x08) identifies the interrupt, with the FIFO-enabled bits while FCR.FIFOE is set. The
// shadow registers SFE, SRT and STET read and write FCR.FIFOE, FCR.RT and FCR.TET.
//
// Interrupts, by the databook's priority (DW_apb_uart databook, "Interrupt Identity
// Register" interrupt table), on the UART's one line:
//   received data available (IID 0x4): IER.ERBFI and a byte waiting with the FIFOs off, or
//     the receive FIFO at its trigger level FCR.RT (1, 1/4, 1/2 of 32, or 2 less than
//     full) with them on; reset by reading RBR until it is not.
//   character timeout (IID 0xC): IER.ERBFI, FIFOs on, bytes in the receive FIFO below the
//     trigger level. The hardware waits four character times without input first; here
//     no more input comes until the firmware reads, so it is raised at once. Reset by
//     reading RBR.
//   THR empty (IID 0x2): IER.ETBEI and THR has emptied since the last IIR read that
//     reported it (a byte written to THR leaves at once; setting ETBEI with THR empty
//     raises it too). Reset by that IIR read, or by writing THR.
// Not raised: receiver line status (IID 0x6; LSR.OE/PE/FE/BI are never set: no line errors,
// no overrun (uart.h), so the LSR read that clears them has nothing to clear), modem status
// (IID 0x0; no modem lines), busy detect (IID 0x7; USR.BUSY never reads 1: a byte is sent
// at once).
//
// Programmable THRE interrupt mode (IER.PTIME, with the FIFOs on; DW_apb_uart databook,
// "Programmable THRE Interrupt"): LSR.THRE then reads as "transmit FIFO full" instead of
// "THR/transmit FIFO empty", so it reads 0 here (the FIFO never holds a byte), and a driver
// that waits while it is set writes at once; LSR.TEMT keeps its meaning. The THR-empty
// interrupt then fires at or below the FCR.TET threshold rather than at empty: the FIFO
// is always empty, so it is raised as without PTIME. Without the FIFOs PTIME changes
// nothing. The UART is taken as configured with the mode (the databook's THRE_MODE_USER
// parameter); a board cannot declare one without it.

uint32_t UartPort::DwRxLevel() const { return uint32_t(std::min<size_t>(rx_.size() - rx_next_, kDwFifoDepth)); }

uint32_t UartPort::DwInterruptId(const std::vector<uint32_t>& values) const {
  const uint32_t ier = values[ier_], fcr = values[fcr_];
  if ((ier & kDwErbfi) && HasInput()) {
    if (!(fcr & kDwFcrFifoEnable)) return kDwIidRxData;
    static constexpr uint32_t kTrigger[4] = {1, kDwFifoDepth / 4, kDwFifoDepth / 2, kDwFifoDepth - 2};
    return DwRxLevel() >= kTrigger[(fcr >> kDwFcrRxTriggerShift) & 3] ? kDwIidRxData : kDwIidTimeout;
  }
  if ((ier & kDwEtbei) && dw_thre_pending_) return kDwIidThre;
  return kDwIidNone;
}

uint32_t UartPort::ReadDw(size_t reg, std::vector<uint32_t>& values) {
  const bool dlab = values[lcr_] & kDwDlab;
  if (reg == thr_) return dlab ? dll_ : HasInput() ? TakeInput() : 0;
  if (reg == ier_) return dlab ? dlh_ : values[ier_];
  if (reg == fcr_) {
    const uint32_t iid = DwInterruptId(values);
    if (iid == kDwIidThre) {
      dw_thre_pending_ = false;
      ++state_changes_;
    }
    return iid | ((values[fcr_] & kDwFcrFifoEnable) ? kDwIirFifos : 0);
  }
  if (reg == lsr_) {
    // PTIME with the FIFOs on: THRE says "transmit FIFO full", never so here.
    const bool ptime = (values[ier_] & kDwPtime) && (values[fcr_] & kDwFcrFifoEnable);
    return (values[lsr_] & ~(kDwDr | kDwThre)) | (ptime ? 0 : kDwThre) | kDwTemt | (HasInput() ? kDwDr : 0);
  }
  if (reg == usr_) return kDwTfnf | kDwTfe | (HasInput() ? kDwRfne : 0) | (DwRxLevel() == kDwFifoDepth ? kDwRff : 0);
  if (reg == rfl_) return DwRxLevel();
  if (registers_[reg] == "SFE") return values[fcr_] & kDwFcrFifoEnable;
  if (registers_[reg] == "SRT") return (values[fcr_] >> kDwFcrRxTriggerShift) & 3;
  if (registers_[reg] == "STET") return (values[fcr_] >> kDwFcrTxTriggerShift) & 3;
  return values[reg];
}

void UartPort::WriteDw(size_t reg, uint32_t value, std::vector<uint32_t>& values) {
  const bool dlab = values[lcr_] & kDwDlab;
  if (reg == thr_) {
    if (dlab) {
      dll_ = value & 0xFF;
    } else {
      Send(uint8_t(value));
      dw_thre_pending_ = true;  // written, then empty again as the byte leaves
    }
    return;
  }
  if (reg == ier_ && dlab) {
    dlh_ = value & 0xFF;
    return;
  }
  // The 16550A's IER has four bits (QEMU 7.2 hw/char/serial.c: ier = val & 0x0f).
  if (reg == ier_ && model_ == UartModel::kNs16550) value &= 0x0F;
  if (reg == ier_ && (value & kDwEtbei) && !(values[ier_] & kDwEtbei)) dw_thre_pending_ = true;
  if (registers_[reg] == "SFE") {
    values[fcr_] = (values[fcr_] & ~kDwFcrFifoEnable) | (value & kDwFcrFifoEnable);
    return;
  }
  for (const auto& [shadow, shift] : {std::pair{"SRT", kDwFcrRxTriggerShift}, std::pair{"STET", kDwFcrTxTriggerShift}}) {
    if (registers_[reg] != shadow) continue;
    values[fcr_] = (values[fcr_] & ~(3u << shift)) | ((value & 3) << shift);
    return;
  }
  // Status registers are read-only; SRR (software reset) is write-only and self-clearing.
  if (reg == lsr_ || reg == usr_ || reg == rfl_ || registers_[reg] == "TFL" || registers_[reg] == "SRR") return;
  values[reg] = value;
}

// --- Arm PL011, as QEMU 7.2 hw/char/pl011.c models it ---------------------------------
// DR sends the byte whatever CR.UARTEN/TXE say, and raises TXRIS until ICR.TXIC clears it;
// a waiting byte shows at once (FR.RXFE clear, RXRIS set) and a DR read takes it; MIS is
// RIS masked by IMSC, and the one interrupt line (UARTINTR) is MIS not 0. The FIFOs are
// never full (FR.TXFF and RXFF read 0).
constexpr uint32_t kPlRx = 1u << 4, kPlTx = 1u << 5, kPlRxfe = 1u << 4, kPlTxfe = 1u << 7;

uint32_t UartPort::Pl011Ris(const std::vector<uint32_t>&) const {
  return (HasInput() ? kPlRx : 0) | (pl011_tx_int_ ? kPlTx : 0);
}

uint32_t UartPort::ReadPl011(size_t reg, std::vector<uint32_t>& values) {
  if (reg == dr_) return HasInput() ? TakeInput() : 0;
  if (reg == fr_) return kPlTxfe | (HasInput() ? 0 : kPlRxfe);
  if (reg == ris_) return Pl011Ris(values);
  if (reg == mis_) return Pl011Ris(values) & values[imsc_];
  if (reg == pl_icr_) return 0;  // write-only
  return values[reg];
}

void UartPort::WritePl011(size_t reg, uint32_t value, std::vector<uint32_t>& values) {
  if (reg == dr_) {
    Send(uint8_t(value));
    if (!pl011_tx_int_) ++state_changes_;
    pl011_tx_int_ = true;
    return;
  }
  if (reg == pl_icr_) {
    if ((value & kPlTx) && pl011_tx_int_) ++state_changes_;
    if (value & kPlTx) pl011_tx_int_ = false;
    return;
  }
  if (reg == fr_ || reg == ris_ || reg == mis_ || reg >= pl_id_) return;  // read-only
  values[reg] = value;
}

}  // namespace faultline
