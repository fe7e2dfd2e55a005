// The register block of ST's GPDMA/HPDMA as the STM32N6 has it (HPDMA1 and GPDMA1 are the
// same design: RM0486 "High-performance direct memory access controller (HPDMA)" and
// "General purpose direct memory access controller (GPDMA)"): the controller's security,
// privilege and interrupt-status registers, then per channel x at 0x50 + 0x80 * x the
// registers a linear (1-D) block transfer uses. devices/stm32_gpdma.cc gives them their
// behaviour and finds them by these names.
//
// Offsets and bits: ST's CMSIS device header stm32n657xx.h (cmsis-device-n6 v1.1.0:
// DMA_TypeDef l.845, DMA_Channel_TypeDef l.854, the DMA_CxCR_*, DMA_CxSR_*, DMA_CxTR1_*,
// DMA_CxTR2_*, DMA_CxBR1_* definitions l.11877-12145); the channel count, 16 for both
// (its Channel0..15 bases). The 2-D registers (CTR3, CBR2) of channels 12-15 are not
// modelled. CSR resets with IDLEF set (ST's SVD description of the GPDMA: "asserted after
// hard reset"); the other reset values are 0, UNCONFIRMED.
#include <fmt/core.h>

#include "faultline/board.h"
#include "register_layout.h"

namespace faultline {

namespace {

RegisterField Field(const char* name, uint32_t msb, uint32_t lsb) { return {name, msb, lsb}; }

// The status and clear registers share their flags' positions.
std::vector<RegisterField> Flags(bool status) {
  std::vector<RegisterField> f = {Bit("TCF", 8), Bit("HTF", 9), Bit("DTEF", 10), Bit("ULEF", 11),
                                  Bit("USEF", 12), Bit("SUSPF", 13), Bit("TOF", 14)};
  if (status) {
    f.insert(f.begin(), Bit("IDLEF", 0));
    f.push_back(Field("FIFOL", 23, 16));
  }
  return f;
}

}  // namespace

std::string ToString(DmaModel model) {
  switch (model) {
    case DmaModel::kStm32Gpdma: return "stm32-gpdma";
    case DmaModel::kStm32Dma: return "stm32-dma";
    case DmaModel::kPl330: return "pl330";
    case DmaModel::kNxpEdma4: return "nxp-edma4";
  }
  return "?";
}

uint32_t DmaMostChannels(DmaModel model) {
  return model == DmaModel::kStm32Gpdma ? 16 : model == DmaModel::kNxpEdma4 ? 64 : 8;
}

std::vector<std::string> DmaIrqOutputs(const Dma& dma) {
  std::vector<std::string> outputs;
  if (dma.model == DmaModel::kPl330) {
    for (uint32_t e = 0; e < kPl330Events; ++e) outputs.push_back(fmt::format("event{}", e));
    outputs.push_back("abort");
    return outputs;
  }
  const char* unit = dma.model == DmaModel::kStm32Dma ? "stream" : "channel";
  for (uint32_t c = 0; c < dma.channels; ++c) outputs.push_back(fmt::format("{}{}", unit, c));
  if (dma.model == DmaModel::kNxpEdma4) outputs.push_back("error");
  return outputs;
}

namespace {

// ST's stream DMA as the STM32H7 has it (DMA1 and DMA2: RM0399 "DMA controller (DMA)"):
// the low and high interrupt status and flag clear registers, then per stream x at
// 0x10 + 0x18 * x its configuration, count, addresses and FIFO control. Offsets and bits:
// ST's stm32h747xx.h (STM32CubeH7: DMA_Stream_TypeDef CR, NDTR, PAR, M0AR, M1AR, FCR;
// DMA_TypeDef LISR, HISR, LIFCR, HIFCR; DMA_SxCR_*, DMA_SxFCR_*, DMA_LISR_*). FCR resets to
// 0x21 (FS "FIFO empty", FTH half full; RM0399's DMA_SxFCR reset value); the rest to 0.
std::vector<Register> StreamDmaRegisters(const Dma& dma) {
  // A stream's five flags, at its position in LISR/HISR (streams 0-3 and 4-7: bit 0, 6,
  // 16, 22).
  const auto flags = [&](bool clear, uint32_t first) {
    std::vector<RegisterField> f;
    for (uint32_t x = first; x < first + 4 && x < dma.channels; ++x) {
      const uint32_t at = (x % 4 == 0 ? 0 : x % 4 == 1 ? 6 : x % 4 == 2 ? 16 : 22);
      const char* c = clear ? "C" : "";
      f.push_back(Bit(fmt::format("{}FEIF{}", c, x), at));
      f.push_back(Bit(fmt::format("{}DMEIF{}", c, x), at + 2));
      f.push_back(Bit(fmt::format("{}TEIF{}", c, x), at + 3));
      f.push_back(Bit(fmt::format("{}HTIF{}", c, x), at + 4));
      f.push_back(Bit(fmt::format("{}TCIF{}", c, x), at + 5));
    }
    return f;
  };
  std::vector<Register> r = {Reg("LISR", 0x00, 0, flags(false, 0)), Reg("HISR", 0x04, 0, flags(false, 4)),
                             Reg("LIFCR", 0x08, 0, flags(true, 0)), Reg("HIFCR", 0x0C, 0, flags(true, 4))};
  for (uint32_t x = 0; x < dma.channels; ++x) {
    const uint32_t at = 0x10 + 0x18 * x;
    const auto name = [x](const char* reg) { return fmt::format("S{}{}", x, reg); };
    r.push_back(Reg(name("CR"), at + 0x00, 0,
                    {Bit("EN", 0), Bit("DMEIE", 1), Bit("TEIE", 2), Bit("HTIE", 3), Bit("TCIE", 4), Bit("PFCTRL", 5),
                     Field("DIR", 7, 6), Bit("CIRC", 8), Bit("PINC", 9), Bit("MINC", 10), Field("PSIZE", 12, 11),
                     Field("MSIZE", 14, 13), Bit("PINCOS", 15), Field("PL", 17, 16), Bit("DBM", 18), Bit("CT", 19),
                     Bit("TRBUFF", 20), Field("PBURST", 22, 21), Field("MBURST", 24, 23)}));
    r.push_back(Reg(name("NDTR"), at + 0x04, 0, {Field("NDT", 15, 0)}));
    r.push_back(Reg(name("PAR"), at + 0x08));
    r.push_back(Reg(name("M0AR"), at + 0x0C));
    r.push_back(Reg(name("M1AR"), at + 0x10));
    r.push_back(Reg(name("FCR"), at + 0x14, 0x21, {Field("FTH", 1, 0), Bit("DMDIS", 2), Field("FS", 5, 3), Bit("FEIE", 7)}));
  }
  return r;
}

}  // namespace

// Arm's CoreLink DMA-330 (Arm DDI 0424, "Register summary"): the manager's status, the
// event interrupts, the fault status and type registers, each channel's status and PC
// (0x100 + 8n) and its SAR, DAR, CCR, LC0, LC1 (0x400 + 0x20n), the debug registers, the
// configuration registers CR0-CR4 and CRD, the watchdog, the PrimeCell identification.
// Every register resets to 0 but the configuration and identification ones; CR0 says
// `channels` threads, 32 events and interrupts, no peripheral request interface and the
// manager not booting (what faultline models); CRD a 64-bit AXI data bus with a 16-entry
// MFIFO (UNCONFIRMED for any Alif part). periph_id/pcell_id: the r1p2 values Arm's TRM
// gives (0x30 0x13 0x24 0x00; 0x0D 0xF0 0x05 0xB1); the revision an Alif part has is
// UNCONFIRMED.
std::vector<Register> Pl330Registers(const Dma& dma) {
  std::vector<Register> r = {Reg("DSR", 0x000, 0, {Field("DMA_status", 3, 0), Field("Wakeup_event", 8, 4), Bit("DNS", 9)}),
                             Reg("DPC", 0x004),
                             Reg("INTEN", 0x020),
                             Reg("INT_EVENT_RIS", 0x024),
                             Reg("INTMIS", 0x028),
                             Reg("INTCLR", 0x02C),
                             Reg("FSRD", 0x030, 0, {Bit("fs_mgr", 0)}),
                             Reg("FSRC", 0x034),
                             Reg("FTRD", 0x038, 0, {Bit("undef_instr", 0), Bit("operand_invalid", 1), Bit("dmago_err", 4),
                                                    Bit("mgr_evnt_err", 5), Bit("instr_fetch_err", 16), Bit("dbg_instr", 30)})};
  const std::vector<RegisterField> ftr = {Bit("undef_instr", 0), Bit("operand_invalid", 1), Bit("ch_evnt_err", 5),
                                          Bit("ch_periph_err", 6), Bit("ch_rdwr_err", 7), Bit("mfifo_err", 12),
                                          Bit("st_data_unavailable", 13), Bit("instr_fetch_err", 16),
                                          Bit("data_write_err", 17), Bit("data_read_err", 18), Bit("dbg_instr", 30),
                                          Bit("lockup_err", 31)};
  for (uint32_t n = 0; n < dma.channels; ++n) r.push_back(Reg(fmt::format("FTR{}", n), 0x040 + 4 * n, 0, ftr));
  for (uint32_t n = 0; n < dma.channels; ++n) {
    r.push_back(Reg(fmt::format("CSR{}", n), 0x100 + 8 * n, 0,
                    {Field("Channel_status", 3, 0), Field("Wakeup_number", 8, 4), Bit("dmawfp_b_ns", 14),
                     Bit("dmawfp_periph", 15), Bit("CNS", 21)}));
    r.push_back(Reg(fmt::format("CPC{}", n), 0x104 + 8 * n));
  }
  for (uint32_t n = 0; n < dma.channels; ++n) {
    const uint32_t at = 0x400 + 0x20 * n;
    r.push_back(Reg(fmt::format("SAR{}", n), at + 0x00));
    r.push_back(Reg(fmt::format("DAR{}", n), at + 0x04));
    r.push_back(Reg(fmt::format("CCR{}", n), at + 0x08, 0,
                    {Bit("src_inc", 0), Field("src_burst_size", 3, 1), Field("src_burst_len", 7, 4),
                     Field("src_prot_ctrl", 10, 8), Field("src_cache_ctrl", 13, 11), Bit("dst_inc", 14),
                     Field("dst_burst_size", 17, 15), Field("dst_burst_len", 21, 18), Field("dst_prot_ctrl", 24, 22),
                     Field("dst_cache_ctrl", 27, 25), Field("endian_swap_size", 30, 28)}));
    r.push_back(Reg(fmt::format("LC0_{}", n), at + 0x0C, 0, {Field("Loop_counter_iterations", 7, 0)}));
    r.push_back(Reg(fmt::format("LC1_{}", n), at + 0x10, 0, {Field("Loop_counter_iterations", 7, 0)}));
  }
  const uint32_t cr0 = (dma.channels - 1) << 4 | (kPl330Events - 1) << 17;
  for (const Register& reg :
       {Reg("DBGSTATUS", 0xD00, 0, {Bit("dbgstatus", 0)}), Reg("DBGCMD", 0xD04, 0, {Field("dbgcmd", 1, 0)}),
        Reg("DBGINST0", 0xD08, 0, {Bit("Debug_thread", 0), Field("Channel_number", 10, 8), Field("Instruction_byte0", 23, 16),
                                   Field("Instruction_byte1", 31, 24)}),
        Reg("DBGINST1", 0xD0C),
        Reg("CR0", 0xE00, cr0, {Bit("periph_req", 0), Bit("boot_en", 1), Bit("mgr_ns_at_rst", 2),
                                Field("num_chnls", 6, 4), Field("num_periph_req", 16, 12), Field("num_events", 21, 17)}),
        Reg("CR1", 0xE04), Reg("CR2", 0xE08), Reg("CR3", 0xE0C), Reg("CR4", 0xE10),
        Reg("CRD", 0xE14, 0x3 | 1u << 4 | 7u << 8 | 1u << 12 | 7u << 16 | 15u << 20),
        Reg("WD", 0xE80), Reg("periph_id_0", 0xFE0, 0x30), Reg("periph_id_1", 0xFE4, 0x13),
        Reg("periph_id_2", 0xFE8, 0x24), Reg("periph_id_3", 0xFEC, 0x00), Reg("pcell_id_0", 0xFF0, 0x0D),
        Reg("pcell_id_1", 0xFF4, 0xF0), Reg("pcell_id_2", 0xFF8, 0x05), Reg("pcell_id_3", 0xFFC, 0xB1)}) {
    r.push_back(reg);
  }
  return r;
}

// NXP's eDMA4 as the i.MX93 has it (DMA4): the management page's CSR, ES, INT_LOW/HIGH and
// HRS_LOW/HIGH, then each channel's page at 0x10000 + 0x8000 * n: CH_CSR, CH_ES, CH_INT,
// CH_SBR, CH_PRI, CH_MUX, CH_MATTR and its TCD at +0x20. Offsets and bits: MCUXpresso's
// MIMX9352_cm33 PERI_DMA4.h (DMA4_Type, the DMA4_CH_*, DMA4_TCD_* masks), the channel
// stride 0x8000 from fsl_edma_soc.h EDMA_CHANNEL_ARRAY_STEP (the header's struct says
// 0x1000; Linux's fsl-edma imx93 data uses 0x8000). The 16-bit TCD registers are paired
// into their 32-bit words (SOFF_ATTR, DOFF_CITER, CSR_BITER). Reset values 0, UNCONFIRMED.
std::vector<Register> Edma4Registers(const Dma& dma) {
  const std::vector<RegisterField> errors = {Bit("DBE", 0), Bit("SBE", 1), Bit("SGE", 2), Bit("NCE", 3), Bit("DOE", 4),
                                             Bit("DAE", 5), Bit("SOE", 6), Bit("SAE", 7)};
  std::vector<RegisterField> es = errors;
  es.push_back(Field("ERRCHN", 29, 24));
  es.push_back(Bit("VLD", 31));
  std::vector<Register> r = {Reg("CSR", 0x000, 0, {Bit("EDBG", 1), Bit("ERCA", 2), Bit("HAE", 4), Bit("HALT", 5),
                                                   Bit("GCLC", 6), Bit("GMRC", 7), Bit("ACTIVE", 31)}),
                             Reg("ES", 0x004, 0, es), Reg("INT_LOW", 0x008), Reg("INT_HIGH", 0x00C),
                             Reg("HRS_LOW", 0x010), Reg("HRS_HIGH", 0x014)};
  std::vector<RegisterField> ch_es = errors;
  ch_es.push_back(Bit("ERR", 31));
  for (uint32_t n = 0; n < dma.channels; ++n) {
    const uint32_t at = 0x10000 + 0x8000 * n;
    const auto ch = [n](const char* reg) { return fmt::format("CH{}_{}", n, reg); };
    const auto tcd = [n](const char* reg) { return fmt::format("TCD{}_{}", n, reg); };
    r.push_back(Reg(ch("CSR"), at + 0x00, 0, {Bit("ERQ", 0), Bit("EARQ", 1), Bit("EEI", 2), Field("SWAP", 15, 12),
                                             Field("SIGNEXT", 21, 16), Bit("DONE", 30), Bit("ACTIVE", 31)}));
    r.push_back(Reg(ch("ES"), at + 0x04, 0, ch_es));
    r.push_back(Reg(ch("INT"), at + 0x08, 0, {Bit("INT", 0)}));
    r.push_back(Reg(ch("SBR"), at + 0x0C, 0, {Field("MID", 3, 0), Bit("SEC", 14), Bit("PAL", 15), Bit("EMI", 16)}));
    r.push_back(Reg(ch("PRI"), at + 0x10, 0, {Field("APL", 2, 0), Bit("DPA", 30), Bit("ECP", 31)}));
    r.push_back(Reg(ch("MUX"), at + 0x14, 0, {Field("SRC", 6, 0)}));
    r.push_back(Reg(ch("MATTR"), at + 0x18, 0, {Field("RCACHE", 3, 0), Field("WCACHE", 7, 4)}));
    r.push_back(Reg(tcd("SADDR"), at + 0x20));
    r.push_back(Reg(tcd("SOFF_ATTR"), at + 0x24, 0, {Field("SOFF", 15, 0), Field("DSIZE", 18, 16), Field("DMOD", 23, 19),
                                                    Field("SSIZE", 26, 24), Field("SMOD", 31, 27)}));
    r.push_back(Reg(tcd("NBYTES"), at + 0x28, 0, {Field("NBYTES", 29, 0), Bit("DMLOE", 30), Bit("SMLOE", 31)}));
    r.push_back(Reg(tcd("SLAST_SDA"), at + 0x2C));
    r.push_back(Reg(tcd("DADDR"), at + 0x30));
    r.push_back(Reg(tcd("DOFF_CITER"), at + 0x34, 0, {Field("DOFF", 15, 0), Field("CITER", 30, 16), Bit("CITER_ELINK", 31)}));
    r.push_back(Reg(tcd("DLAST_SGA"), at + 0x38));
    r.push_back(Reg(tcd("CSR_BITER"), at + 0x3C, 0,
                    {Bit("START", 0), Bit("INTMAJOR", 1), Bit("INTHALF", 2), Bit("DREQ", 3), Bit("ESG", 4),
                     Bit("MAJORELINK", 5), Bit("EEOP", 6), Bit("ESDA", 7), Field("MAJORLINKCH", 13, 8),
                     Field("TMC", 15, 14), Field("BITER", 30, 16), Bit("BITER_ELINK", 31)}));
  }
  return r;
}

std::vector<Register> DmaRegisters(const Dma& dma) {
  if (dma.model == DmaModel::kStm32Dma) return StreamDmaRegisters(dma);
  if (dma.model == DmaModel::kNxpEdma4) return Edma4Registers(dma);
  if (dma.model == DmaModel::kPl330) return Pl330Registers(dma);
  std::vector<Register> r = {Reg("SECCFGR", 0x00), Reg("PRIVCFGR", 0x04), Reg("RCFGLOCKR", 0x08),
                             Reg("MISR", 0x0C), Reg("SMISR", 0x10)};
  for (uint32_t x = 0; x < dma.channels; ++x) {
    const uint32_t at = 0x50 + 0x80 * x;
    const auto name = [x](const char* reg) { return fmt::format("C{}{}", x, reg); };
    r.push_back(Reg(name("LBAR"), at + 0x00, 0, {Field("LBA", 31, 16)}));
    r.push_back(Reg(name("CIDCFGR"), at + 0x04));
    r.push_back(Reg(name("FCR"), at + 0x0C, 0, Flags(false)));
    r.push_back(Reg(name("SR"), at + 0x10, 1, Flags(true)));
    r.push_back(Reg(name("CR"), at + 0x14, 0,
                    {Bit("EN", 0), Bit("RESET", 1), Bit("SUSP", 2), Bit("TCIE", 8), Bit("HTIE", 9), Bit("DTEIE", 10),
                     Bit("ULEIE", 11), Bit("USEIE", 12), Bit("SUSPIE", 13), Bit("TOIE", 14), Bit("LSM", 16),
                     Bit("LAP", 17), Field("PRIO", 23, 22)}));
    r.push_back(Reg(name("TR1"), at + 0x40, 0,
                    {Field("SDW_LOG2", 1, 0), Bit("SINC", 3), Field("SBL_1", 9, 4), Field("PAM", 12, 11),
                     Bit("SBX", 13), Bit("SAP", 14), Bit("SSEC", 15), Field("DDW_LOG2", 17, 16), Bit("DINC", 19),
                     Field("DBL_1", 25, 20), Bit("DBX", 26), Bit("DHX", 27), Bit("DWX", 28), Bit("DAP", 30),
                     Bit("DSEC", 31)}));
    r.push_back(Reg(name("TR2"), at + 0x44, 0,
                    {Field("REQSEL", 7, 0), Bit("SWREQ", 9), Bit("DREQ", 10), Bit("BREQ", 11), Bit("PFREQ", 12),
                     Field("TRIGM", 15, 14), Field("TRIGSEL", 22, 16), Field("TRIGPOL", 25, 24),
                     Field("TCEM", 31, 30)}));
    r.push_back(Reg(name("BR1"), at + 0x48, 0,
                    {Field("BNDT", 15, 0), Field("BRC", 26, 16), Bit("SDEC", 28), Bit("DDEC", 29),
                     Bit("BRSDEC", 30), Bit("BRDDEC", 31)}));
    r.push_back(Reg(name("SAR"), at + 0x4C));
    r.push_back(Reg(name("DAR"), at + 0x50));
    r.push_back(Reg(name("LLR"), at + 0x7C, 0, {Field("LA", 15, 2), Bit("ULL", 16), Bit("UB2", 25), Bit("UT3", 26),
                                                 Bit("UDA", 27), Bit("USA", 28), Bit("UB1", 29), Bit("UT2", 30),
                                                 Bit("UT1", 31)}));
  }
  return r;
}

}  // namespace faultline
