// devices/ethos_u/: the Ethos-U55 of mps3-an547 driven through its registers as Arm's
// driver drives it (issue 35): reset and PROT, the configuration the version check reads,
// a job started through CMD that ends after its cycles with its interrupt, and the ways a
// job fails (a bus the NPU is not routed to, a command it cannot parse), each as STATUS
// shows it and as the job's record names it.
#include "devices/ethos_u/ethos_u.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <random>

#include "board_yaml.h"
#include "bus/bus_view.h"
#include "devices/ethos_u/command_stream.h"
#include "faultline/board.h"
#include "faultline/memory_map.h"
#include "npu_rig.h"
#include "npu_stream.h"

namespace faultline {
namespace {

using npu_test::StreamWriter;

constexpr uint64_t kStream = 0x21100000;  // isram, which the NPU reaches
constexpr uint64_t kArena = 0x21000000;

class EthosUTest : public ::testing::Test {
 protected:
  npu_test::NpuRig rig_;
  MemoryMap& map_ = rig_.map();
  uint64_t now_ = 1000;

  uint32_t Get(const std::string& name) { return rig_.Get(name); }
  void Set(const std::string& name, uint32_t v) { rig_.Set(name, v); }
  void Put(uint64_t address, const std::vector<uint8_t>& bytes) { rig_.Put(address, bytes); }
  std::vector<uint8_t> Take(uint64_t address, size_t n) { return rig_.Take(address, n); }
  void Invoke(const StreamWriter& s, uint64_t at = kStream, uint32_t basep1 = kArena) {
    rig_.Invoke(s, at, basep1, uint32_t(npu_test::NpuRig::kWeights));
  }
  const NpuJob& Job() { return rig_.Job(); }
  // Runs the clock to the job's end (the machine advances the map at the next event).
  void Finish() {
    const uint64_t at = map_.NextEventAt();
    ASSERT_NE(at, UINT64_MAX) << "no job running";
    map_.AdvanceTo(at);
  }
};

TEST_F(EthosUTest, TheDriversProbeReadsItsConfigurationAndASoftResetTakesTheSecurityLevel) {
  // ID: arch 1.1.0, which the driver's check requires to be at least Vela's 1.0.6.
  EXPECT_EQ(Get("ID") >> 28, 1u);
  EXPECT_GE((Get("ID") >> 20) & 0xFF, 0u);
  // CONFIG: product 0 (U55), macs_per_cc log2(256) = 8, 48 KiB of SHRAM: Vela's own
  // optimizer configuration word for ethos-u55-256 is 0x00003008.
  EXPECT_EQ(Get("CONFIG"), 0x00003008u);
  Set("RESET", 0x1);  // privileged, Secure
  EXPECT_EQ(Get("STATUS") & 0x8, 0u) << "reset_status: the driver polls it to 0";
  EXPECT_EQ(Get("PROT"), 0x1u);
  Set("RESET", 0x2);  // user, Non-secure
  EXPECT_EQ(Get("PROT"), 0x2u);
  Set("ID", 0);  // read-only
  EXPECT_NE(Get("ID"), 0u);
}

TEST_F(EthosUTest, AJobRunsItsDmaAfterItsCyclesAndRaisesItsInterrupt) {
  std::vector<uint8_t> weights(64);
  for (size_t i = 0; i < weights.size(); ++i) weights[i] = uint8_t(3 * i + 1);
  Put(kArena, weights);
  map_.AdvanceTo(now_);
  StreamWriter s;
  s.Dma(1, 0, 1, 0x100, 64).Stop();
  Invoke(s);
  EXPECT_EQ(Get("STATUS") & 1, 1u) << "running";
  EXPECT_FALSE(map_.IrqLevel(56));
  EXPECT_NE(Take(kArena + 0x100, 64), weights) << "nothing is written before the job ends";
  const uint64_t end = map_.NextEventAt();
  EXPECT_GT(end, now_);
  map_.AdvanceTo(end - 1);
  EXPECT_EQ(Get("STATUS") & 1, 1u);
  map_.AdvanceTo(end);
  const uint32_t status = Get("STATUS");
  EXPECT_EQ(status & 1, 0u) << "stopped";
  EXPECT_EQ(status & 0x2, 0x2u) << "irq_raised";
  EXPECT_EQ(status & 0x20, 0x20u) << "cmd_end_reached";
  EXPECT_EQ(status & 0x94, 0u) << "no bus_status, cmd_parse_error, wd_fault";
  EXPECT_EQ(status >> 16, 0xFFFFu) << "irq_history_mask: NPU_OP_STOP's mask";
  EXPECT_TRUE(map_.IrqLevel(56));
  EXPECT_EQ(Take(kArena + 0x100, 64), weights);
  EXPECT_EQ(Get("QREAD"), s.words().size() * 4);
  EXPECT_EQ(Job().outcome, "completed");
  EXPECT_EQ(Job().operations, 2u);  // the DMA and its wait
  EXPECT_EQ(Job().ended, end);
  // The driver's interrupt handler: CMD.clear_irq drops the line.
  Set("CMD", 0x2);
  EXPECT_FALSE(map_.IrqLevel(56));
  EXPECT_EQ(Get("STATUS") & 0x2, 0u);
}

TEST_F(EthosUTest, ABiggerJobTakesLongerAndTheCycleCounterCountsIt) {
  Set("PMCR", 1);
  Set("PMCNTENSET", 0x80000000u);
  Set("PMEVTYPER0", 17);  // CYCLE
  Set("PMCNTENSET", 1);
  EXPECT_EQ(Get("PMCNTENCLR"), 0x80000001u);
  map_.AdvanceTo(now_);
  StreamWriter small, big;
  small.Dma(1, 0, 1, 0x1000, 16).Stop();
  big.Dma(1, 0, 1, 0x1000, 65536).Stop();
  Invoke(small);
  const uint64_t small_end = map_.NextEventAt(), small_cycles = small_end - now_;
  Finish();
  EXPECT_EQ(Get("PMCCNTR"), small_cycles);
  EXPECT_EQ(Get("PMEVCNTR0"), small_cycles);
  Set("CMD", 0x2);
  Invoke(big);
  const uint64_t big_cycles = map_.NextEventAt() - small_end;
  EXPECT_GT(big_cycles, small_cycles + 1000);
  Finish();
  EXPECT_EQ(Get("PMCCNTR"), small_cycles + big_cycles);
  Set("PMCR", 1 | 4);  // cycle_cnt_rst
  EXPECT_EQ(Get("PMCCNTR"), 0u);
}

TEST_F(EthosUTest, AStreamInATcmIsABusErrorOnTheCommandChannel) {
  StreamWriter s;
  s.Stop();
  Invoke(s, 0x20001000);  // dtcm: the CPU's, not the NPU's
  Finish();
  const uint32_t status = Get("STATUS");
  EXPECT_EQ(status & 0x4, 0x4u) << "bus_status";
  EXPECT_EQ((status >> 12) & 0xF, 0u) << "faulting_channel: command";
  EXPECT_EQ(status & 0x20, 0u) << "no cmd_end_reached: the driver reports a failure";
  EXPECT_TRUE(map_.IrqLevel(56));
  EXPECT_EQ(Job().outcome, "bus error");
  EXPECT_NE(Job().detail.find("DECERR at 0x20001000"), std::string::npos) << Job().detail;
  EXPECT_NE(Job().detail.find("NPU_AXI is not routed to dtcm"), std::string::npos) << Job().detail;
  // bus_status is sticky: a new start does nothing until a soft reset.
  Set("CMD", 0x2);
  Set("CMD", 0x1);
  EXPECT_EQ(Job().outcome, "not started");
  EXPECT_EQ(map_.NextEventAt(), UINT64_MAX);
  Set("RESET", 0x1);
  EXPECT_EQ(Get("STATUS") & 0x4, 0u);
}

TEST_F(EthosUTest, ADmaIntoATcmFailsOnTheDmaWriteChannelNamingTheRegionAndOffset) {
  StreamWriter s;
  s.Dma(1, 0, 2, 0x40, 32).Stop();
  Put(kStream, s.bytes());
  Set("QBASE", uint32_t(kStream));
  Set("QSIZE", uint32_t(s.words().size() * 4));
  Set("BASEP1", uint32_t(kArena));
  Set("BASEP2", 0x30000000);  // dtcm_s: the arena at the CPU's Secure DTCM address
  Set("CMD", 1);
  Finish();
  const uint32_t status = Get("STATUS");
  EXPECT_EQ(status & 0x4, 0x4u);
  EXPECT_EQ((status >> 12) & 0xF, 9u) << "faulting_channel: DMA write";
  EXPECT_EQ(Job().outcome, "bus error");
  EXPECT_NE(Job().detail.find("op 0 NPU_OP_DMA_START destination (BASEP2 + 0x40)"), std::string::npos) << Job().detail;
  EXPECT_NE(Job().detail.find("0x30000040"), std::string::npos) << Job().detail;
  EXPECT_EQ(Get("QREAD"), 8u * 4) << "the DMA_START command's offset: after two CMD0 and three CMD1";
}

TEST_F(EthosUTest, AWordThatIsNoCommandIsAParseErrorAtItsOffset) {
  StreamWriter s;
  s.Cmd0(0x105, 1).Cmd0(0x1FE).Stop();  // 0x1fe: no such command
  Invoke(s);
  Finish();
  EXPECT_EQ(Get("STATUS") & 0x10, 0x10u) << "cmd_parse_error";
  EXPECT_EQ(Get("QREAD"), 4u);
  EXPECT_EQ(Job().outcome, "command parse error");
  EXPECT_NE(Job().detail.find("unknown CMD0 command 0x1fe at stream offset 0x4"), std::string::npos) << Job().detail;
}

TEST_F(EthosUTest, AnOperationNotModelledYetSaysSoInTheRecord) {
  StreamWriter s;
  s.Cmd0(0x10F, 1).Cmd0(0x11F, 1).Cmd0(0x125, 3).Cmd0(0x006, 6).Stop();  // ABS with the TANH activation
  Invoke(s);
  Finish();
  EXPECT_EQ(Job().outcome, "not modelled");
  EXPECT_NE(Job().detail.find("op 0 NPU_OP_ELEMENTWISE: the TANH activation is not modelled"), std::string::npos)
      << Job().detail;
  EXPECT_EQ(Get("STATUS") & 0x10, 0x10u) << "the firmware sees a parse error";
}

TEST_F(EthosUTest, ASoftResetWhileRunningAbandonsTheJob) {
  StreamWriter s;
  s.Dma(1, 0, 1, 0x100, 4096).Stop();
  Invoke(s);
  Set("RESET", 0x1);
  EXPECT_EQ(map_.NextEventAt(), UINT64_MAX);
  EXPECT_EQ(Job().outcome, "reset");
  EXPECT_EQ(Get("STATUS"), 0u);
  EXPECT_EQ(Get("QBASE"), 0u);
}

TEST(EthosUStream, TheDecoderReadsWhatTheWriterWrites) {
  StreamWriter s;
  s.Cmd0(0x104, 15).Cmd1(0x000, 0x1234).Cmd0(0x006, 1).Cmd0(0x104, 31).Cmd0(0x005, 2).Stop(0x3);
  const ethos_u::Stream d = ethos_u::Decode(s.words(), false);
  ASSERT_EQ(d.operations.size(), 2u);
  EXPECT_TRUE(d.stopped);
  EXPECT_EQ(d.irq_mask, 0x3);
  EXPECT_EQ(d.operations[0].op, ethos_u::kOpElementwise);
  EXPECT_EQ(d.operations[0].param, 1);
  EXPECT_EQ(d.operations[0].offset, 12u);
  EXPECT_EQ(d.operations[0].parameters[ethos_u::kIfmDepthM1], 15);
  EXPECT_EQ(d.operations[0].parameters[ethos_u::kIfmBase0], 0x1234u);
  EXPECT_EQ(d.operations[1].parameters[ethos_u::kIfmDepthM1], 31) << "each op keeps the parameters as they were";
  EXPECT_EQ(d.end_offset, s.words().size() * 4);
  // A CMD1 without its payload, a U65 command on a U55, control 2.
  EXPECT_NE(ethos_u::Decode(std::vector<uint32_t>{0x4000}, false).parse_error->find("without its payload"),
            std::string::npos);
  EXPECT_NE(ethos_u::Decode(std::vector<uint32_t>{0x0123}, false).parse_error->find("an Ethos-U65 command"),
            std::string::npos);
  EXPECT_FALSE(ethos_u::Decode(std::vector<uint32_t>{0x0123, 0xFFFF0000}, true).parse_error);
  EXPECT_TRUE(ethos_u::Decode(std::vector<uint32_t>{0x8000}, false).parse_error);
}

TEST(EthosUBoard, AnNpuDeclaresItsConfigurationAndItsMaster) {
  const std::string npu = "  - {name: NPU, model: ethos-u55, base: 0x40000000, macs: 256, master: AXI, irq: 5, source: s}\n";
  const std::string masters = "masters:\n  - {name: AXI, kind: npu, reaches: [ram]}\n";
  const Board b = ParseBoard(BoardWith(npu) + masters, "t.yaml");
  ASSERT_TRUE(b.peripherals[0].npu);
  EXPECT_EQ(b.peripherals[0].npu->macs, 256u);
  EXPECT_EQ(b.peripherals[0].size, 0x1000u);
  ExpectBoardError(BoardWith("  - {name: NPU, model: ethos-u56, base: 0x40000000, source: s}\n") + masters, 8,
                   "ethos-u56", "ethos-u55");
  ExpectBoardError(BoardWith("  - {name: NPU, model: ethos-u55, base: 0x40000000, macs: 512, master: AXI, source: s}\n") +
                       masters,
                   8, "no 512-MAC configuration", "32, 64, 128 or 256");
  ExpectBoardError(BoardWith("  - {name: NPU, model: ethos-u65, base: 0x40000000, master: AXI, source: s}\n") + masters,
                   8, "MAC configuration", "256 or 512");
  ExpectBoardError(BoardWith("  - {name: NPU, model: ethos-u55, base: 0x40000000, macs: 64, source: s}\n") + masters, 8,
                   "does not say what its AXI ports reach", "masters:");
  ExpectBoardError(BoardWith("  - {name: NPU, model: ethos-u55, base: 0x40000000, macs: 64, master: DMA, source: s}\n") +
                       "masters:\n  - {name: DMA, kind: dma, reaches: [ram]}\n",
                   8, "no npu entry of masters", "kind: npu");
  ExpectBoardError(BoardWith("  - {name: NPU, model: ethos-u55, base: 0x40000000, mac: 64, master: AXI, source: s}\n") + masters,
                   8, "unknown key 'mac'", "macs");
  ExpectBoardError(BoardWith("  - {name: U, model: cmsdk-apb-uart, base: 0x40000000, macs: 64, source: s}\n"), 8,
                   "an NPU's key", "ethos-u55");
  ExpectBoardError(BoardWith("  - {name: NPU, model: ethos-u55, base: 0x40000000, macs: 64, master: AXI, irq: 600, source: s}\n") +
                       masters,
                   8, "IRQ 600", "interrupt number");
}

}  // namespace
}  // namespace faultline

namespace faultline {
namespace {

// A stream of garbage (a wrong QBASE, a corrupted model) ends its job with a status, and
// never the host's memory or patience: random known commands with random parameters.
TEST(EthosUGarbage, RandomStreamsEndTheirJobs) {
  npu_test::NpuRig rig;
  std::mt19937 rng(3599);
  const std::vector<uint16_t> ops = {0x002, 0x003, 0x005, 0x006, 0x010, 0x011, 0x012, 0x013, 0x001};
  const std::vector<uint16_t> set0 = {0x100, 0x101, 0x102, 0x103, 0x104, 0x105, 0x107, 0x109, 0x10A, 0x10B, 0x10C,
                                      0x10F, 0x111, 0x112, 0x113, 0x114, 0x117, 0x118, 0x11A, 0x11B, 0x11C, 0x11F,
                                      0x120, 0x121, 0x122, 0x124, 0x125, 0x126, 0x127, 0x128, 0x129, 0x130, 0x131,
                                      0x180, 0x181, 0x185, 0x189, 0x18A, 0x18B, 0x18C, 0x18F};
  const std::vector<uint16_t> set1 = {0x000, 0x004, 0x005, 0x006, 0x010, 0x014, 0x015, 0x016, 0x020, 0x021,
                                      0x022, 0x023, 0x024, 0x025, 0x026, 0x030, 0x031, 0x032, 0x080, 0x084};
  std::map<std::string, int> outcomes;
  for (int round = 0; round < 1500; ++round) {
    StreamWriter s;
    const int n = 1 + int(rng() % 40);
    for (int i = 0; i < n; ++i) {
      const uint32_t pick = rng() % 10;
      // Small values most of the time, so that operations get past their limits and run.
      const uint32_t small = rng() % 16 == 0 ? rng() : rng() % 24;
      if (pick < 5) {
        s.Cmd0(set0[rng() % set0.size()], uint16_t(small));
      } else if (pick < 8) {
        s.Cmd1(set1[rng() % set1.size()], rng() % 16 == 0 ? rng() : rng() % 0x4000);
      } else {
        s.Cmd0(ops[rng() % ops.size()], uint16_t(rng() % 12));
      }
    }
    if (rng() % 2) s.Stop();
    rig.Invoke(s);
    ASSERT_TRUE(rig.Finish()) << "round " << round;
    ++outcomes[rig.Job().outcome];
    if (rig.Get("STATUS") & 0x94) rig.Set("RESET", 1);  // sticky errors: the driver resets
  }
  EXPECT_GT(outcomes["completed"], 0);
  EXPECT_GT(outcomes["not modelled"] + outcomes["bus error"] + outcomes["weight decoder fault"], 0);
}

}  // namespace
}  // namespace faultline
