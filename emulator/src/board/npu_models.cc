// The register block of the Arm Ethos-U55 and U65 as their driver programs it; devices/
// ethos_u/ gives the registers their behaviour and finds them by these names.
//
// Offsets, fields and reset values: Arm's ethos-u-core-driver interface headers
// (src/ethosu55_interface.h, src/ethosu65_interface.h: the NPU_REG_* offsets and the
// register structs' constructors), read in zephyrproject-rtos/hal_ethos_u @ 03567073,
// byte-identical in pytorch-labs/ethos-u-core-driver-mirror @ e79714ad. Alif's Ensemble
// device headers (alif_ensemble-cmsis-dfp 2.0.2, rtss_hp/soc.h NPU_HP_Type) list the same
// block. The ID values are the headers' (U55 arch 1.1.0, U65 arch 1.0.6); what a given
// part's silicon reads back in ID is UNCONFIRMED. CONFIG is this configuration's, in the
// layout the driver compares with Vela's optimizer configuration.
#include <bit>

#include "faultline/board.h"
#include "register_layout.h"

namespace faultline {

namespace {

RegisterField Field(const char* name, uint32_t msb, uint32_t lsb) { return {name, msb, lsb}; }

}  // namespace

std::string ToString(NpuModel model) { return model == NpuModel::kEthosU55 ? "ethos-u55" : "ethos-u65"; }

// Vela's accelerator configurations (ethos-u-vela architecture_features.py): SHRAM banks of
// 1 KiB: 16 on U55-32/64, 24 on U55-128, 48 on U55-256 and on each U65 core (U65-512 has
// two cores).
uint32_t NpuShramKiB(const Npu& npu) {
  if (npu.model == NpuModel::kEthosU65) return npu.macs == 512 ? 96 : 48;
  return npu.macs <= 64 ? 16 : npu.macs == 128 ? 24 : 48;
}

std::vector<Register> NpuRegisters(const Npu& npu) {
  const bool u65 = npu.model == NpuModel::kEthosU65;
  // CONFIG: macs_per_cc[3:0] log2 MACs per cycle, cmd_stream_version[7:4] 0, shram_size
  // [15:8] KiB, product[31:28] (0 U55, 1 U65).
  const uint32_t config = uint32_t(std::countr_zero(npu.macs)) | NpuShramKiB(npu) << 8 | (u65 ? 1u : 0u) << 28;
  std::vector<Register> r = {
      Reg("ID", 0x000, u65 ? 0x10066001u : 0x10104201u,
          {Field("version_status", 3, 0), Field("version_minor", 7, 4), Field("version_major", 11, 8),
           Field("product_major", 15, 12), Field("arch_patch_rev", 19, 16), Field("arch_minor_rev", 27, 20),
           Field("arch_major_rev", 31, 28)}),
      // The headers' reset value has reset_status set: the power-on reset is in progress.
      // It is over before the CPU's first instruction here, so STATUS reads 0 (stopped).
      Reg("STATUS", 0x004, 0,
          {Bit("state", 0), Bit("irq_raised", 1), Bit("bus_status", 2), Bit("reset_status", 3),
           Bit("cmd_parse_error", 4), Bit("cmd_end_reached", 5), Bit("pmu_irq_raised", 6), Bit("wd_fault", 7),
           Bit("ecc_fault", 8), Bit("faulting_interface", 11), Field("faulting_channel", 15, 12),
           Field("irq_history_mask", 31, 16)}),
      Reg("CMD", 0x008, 0xC,
          {Bit("transition_to_running_state", 0), Bit("clear_irq", 1), Bit("clock_q_enable", 2),
           Bit("power_q_enable", 3), Bit("stop_request", 4), Field("clear_irq_history", 31, 16)}),
      Reg("RESET", 0x00C, 0, {Bit("pending_CPL", 0), Bit("pending_CSL", 1)}),
      Reg("QBASE", 0x010),
      Reg("QBASE_HI", 0x014),
      Reg("QREAD", 0x018),
      Reg("QCONFIG", 0x01C, 0, {Field("cmd_region0", 1, 0)}),
      Reg("QSIZE", 0x020),
      Reg("PROT", 0x024, 0, {Bit("active_CPL", 0), Bit("active_CSL", 1)}),
      Reg("CONFIG", 0x028, config,
          {Field("macs_per_cc", 3, 0), Field("cmd_stream_version", 7, 4), Field("shram_size", 15, 8),
           Bit("functional_safety", 26), Bit("custom_dma", 27), Field("product", 31, 28)}),
      Reg("LOCK", 0x02C),
      Reg("REGIONCFG", 0x03C),
  };
  for (uint32_t n = 0; n < 4; ++n) {
    r.push_back(Reg("AXI_LIMIT" + std::to_string(n), 0x040 + 4 * n, 0,
                    {Field("max_beats", 1, 0), Field("memtype", 7, 4),
                     Field("max_outstanding_read_m1", u65 ? 21 : 20, 16),
                     Field("max_outstanding_write_m1", u65 ? 28 : 27, 24)}));
  }
  // BASEP0..7: the region base addresses, 64 bits each (the driver writes the high word on
  // the U65, whose addresses are 40 bits).
  for (uint32_t n = 0; n < 8; ++n) {
    r.push_back(Reg("BASEP" + std::to_string(n), 0x080 + 8 * n));
    r.push_back(Reg("BASEP" + std::to_string(n) + "_HI", 0x084 + 8 * n));
  }
  // The PMU (ethosu_pmu.c): PMCR's reset value says four event counters.
  r.push_back(Reg("PMCR", 0x180, 0x2000,
                  {Bit("cnt_en", 0), Bit("event_cnt_rst", 1), Bit("cycle_cnt_rst", 2), Bit("mask_en", 3),
                   Field("num_event_cnt", 15, 11)}));
  const char* pmu[] = {"PMCNTENSET", "PMCNTENCLR", "PMOVSSET", "PMOVSCLR", "PMINTSET", "PMINTCLR"};
  for (uint32_t i = 0; i < 6; ++i) r.push_back(Reg(pmu[i], 0x184 + 4 * i, 0, {Bit("CYCLE_CNT", 31)}));
  r.push_back(Reg("PMCCNTR", 0x1A0));
  r.push_back(Reg("PMCCNTR_HI", 0x1A4));
  r.push_back(Reg("PMCCNTR_CFG", 0x1A8, 0, {Field("CYCLE_CNT_CFG_START", 9, 0), Field("CYCLE_CNT_CFG_STOP", 25, 16)}));
  r.push_back(Reg("PMCAXI_CHAN", 0x1AC, 0, {Field("CH_SEL", 3, 0), Field("AXI_CNT_SEL", 9, 8), Bit("BW_CH_SEL_EN", 10)}));
  for (uint32_t n = 0; n < 4; ++n) r.push_back(Reg("PMEVCNTR" + std::to_string(n), 0x300 + 4 * n));
  for (uint32_t n = 0; n < 4; ++n) {
    r.push_back(Reg("PMEVTYPER" + std::to_string(n), 0x380 + 4 * n, 0, {Field("EV_TYPE", 9, 0)}));
  }
  return r;
}

}  // namespace faultline
