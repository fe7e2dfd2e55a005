// The PLIC (devices/plic.h) behind a board's peripherals, through the memory map as the
// hart meets it: sources wired by `interrupt_parent:`, priorities, enables, the threshold,
// claim and completion, the level-triggered gateway, and the board-file mistakes around
// it named with their fix.
#include <gtest/gtest.h>

#include <string>

#include "faultline/board.h"
#include "faultline/error.h"
#include "faultline/memory_map.h"

namespace faultline {
namespace {

// Two register blocks whose line is high while their LINE.UP bit is set, into the PLIC's
// sources 3 and 5; the PLIC's machine context on mip bit 11, supervisor on 9.
const char* kBoard = R"(
name: plic-test
description: a PLIC and two sources
cpu: rv32imac
boot: {reset: 0x80000000, load_mode: debugger}
regions:
  - {name: dram, base: 0x80000000, size: 64K, kind: ddr, access: rwx, reset: zero}
peripherals:
  - {name: PLIC, model: riscv-plic, base: 0xc000000, irq: {meip: 11, seip: 9}, source: test}
  - name: A
    base: 0x10001000
    registers: [{name: LINE, offset: 0, fields: {UP: 0}}]
    irq: 3
    irq_when: "A.LINE.UP == 1"
    interrupt_parent: PLIC
  - name: B
    base: 0x10002000
    registers: [{name: LINE, offset: 0, fields: {UP: 0}}]
    irq: 5
    irq_when: "B.LINE.UP == 1"
    interrupt_parent: PLIC
)";

constexpr uint64_t kPlic = 0xc000000;

class PlicTest : public ::testing::Test {
 protected:
  PlicTest() : board_(ParseBoard(kBoard, "plic-test.yaml")), map_(board_) {}

  uint32_t Access(uint64_t addr, bool write, uint32_t value = 0) {
    const int p = map_.FindPeripheral(addr);
    EXPECT_GE(p, 0) << std::hex << addr;
    const uint64_t offset = addr - map_.peripherals()[size_t(p)].base;
    const int r = map_.FindRegister(size_t(p), offset);
    EXPECT_GE(r, 0) << std::hex << addr;
    RegisterWriteEffect effect;
    return map_.AccessRegister(size_t(p), size_t(r), offset, 4, write, value, &effect);
  }
  void Write(uint64_t addr, uint32_t value) { Access(addr, true, value); }
  uint32_t Read(uint64_t addr) { return Access(addr, false); }
  void Line(char source, bool up) { Write(source == 'A' ? 0x10001000 : 0x10002000, up ? 1 : 0); }
  uint32_t Claim() { return Read(kPlic + 0x200004); }
  void Complete(uint32_t id) { Write(kPlic + 0x200004, id); }
  bool Meip() const { return map_.IrqLevel(11); }

  Board board_;
  MemoryMap map_;
};

TEST_F(PlicTest, TheSourcesLinesAreThePlicsNotTheHarts) {
  EXPECT_EQ(map_.irq_numbers(), (std::vector<uint32_t>{11, 9}));
  Write(kPlic + 4 * 3, 1);
  Write(kPlic + 0x2000, 1u << 3);
  Line('A', true);
  EXPECT_FALSE(map_.IrqLevel(3)) << "source 3 is the PLIC's, not mip bit 3";
  EXPECT_TRUE(Meip());
}

TEST_F(PlicTest, ASourceInterruptsOnlyWhenEnabledAndAboveTheThreshold) {
  Line('A', true);
  EXPECT_EQ(Read(kPlic + 0x1000), 1u << 3) << "pending whether enabled or not";
  EXPECT_FALSE(Meip()) << "priority 0 never interrupts";
  Write(kPlic + 4 * 3, 2);
  EXPECT_FALSE(Meip()) << "not enabled";
  Write(kPlic + 0x2000, 1u << 3);
  EXPECT_TRUE(Meip());
  EXPECT_FALSE(map_.IrqLevel(9)) << "enabled in the machine context only";
  Write(kPlic + 0x200000, 2);
  EXPECT_FALSE(Meip()) << "a priority equal to the threshold is masked";
  Write(kPlic + 0x200000, 1);
  EXPECT_TRUE(Meip());
  Write(kPlic + 0x2080, 1u << 3);
  EXPECT_TRUE(map_.IrqLevel(9)) << "the supervisor context's enables drive SEIP";
}

TEST_F(PlicTest, ClaimTakesTheHighestPriorityThenTheLowestId) {
  Write(kPlic + 0x2000, (1u << 3) | (1u << 5));
  Write(kPlic + 4 * 3, 1);
  Write(kPlic + 4 * 5, 1);
  Line('A', true);
  Line('B', true);
  EXPECT_EQ(Claim(), 3u) << "a tie goes to the lower ID";
  EXPECT_EQ(Claim(), 5u);
  EXPECT_EQ(Claim(), 0u) << "both claimed: nothing to claim";
  EXPECT_FALSE(Meip());
  Complete(3);
  Complete(5);
  Write(kPlic + 4 * 5, 7);
  EXPECT_EQ(Claim(), 5u) << "the higher priority first";
  EXPECT_EQ(Claim(), 3u);
}

TEST_F(PlicTest, TheGatewayForwardsAgainOnlyAfterCompletion) {
  Write(kPlic + 4 * 3, 1);
  Write(kPlic + 0x2000, 1u << 3);
  Line('A', true);
  EXPECT_EQ(Claim(), 3u);
  EXPECT_EQ(Read(kPlic + 0x1000), 0u) << "the claim clears the pending bit";
  Line('A', true);
  EXPECT_EQ(Read(kPlic + 0x1000), 0u) << "no new request before the completion";
  EXPECT_FALSE(Meip());
  Complete(3);
  EXPECT_TRUE(Meip()) << "still high at completion: pending again";
  EXPECT_EQ(Claim(), 3u);
  Line('A', false);  // the handler served the device
  Complete(3);
  EXPECT_FALSE(Meip());
  EXPECT_EQ(Read(kPlic + 0x1000), 0u);
}

TEST_F(PlicTest, PrioritiesAndTheThresholdKeepThreeBits) {
  Write(kPlic + 4 * 3, 9);
  EXPECT_EQ(Read(kPlic + 4 * 3), 1u);
  Write(kPlic + 0x200000, 0xF);
  EXPECT_EQ(Read(kPlic + 0x200000), 7u);
  Write(kPlic + 0x1000, 0xFFFFFFFF);
  EXPECT_EQ(Read(kPlic + 0x1000), 0u) << "the pending bits are read-only";
}

void ExpectError(const std::string& yaml, const std::string& what, const std::string& fix) {
  try {
    ParseBoard(yaml, "bad.yaml");
    ADD_FAILURE() << "accepted: " << yaml;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("fix: " + fix), std::string::npos) << e.what();
  }
}

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

TEST(PlicBoard, AParentThatIsNotAControllerIsNamed) {
  ExpectError(Replace(kBoard, "irq: 5\n    irq_when: \"B.LINE.UP == 1\"\n    interrupt_parent: PLIC",
                      "irq: 5\n    irq_when: \"B.LINE.UP == 1\"\n    interrupt_parent: A"),
              "bad.yaml:21: interrupt_parent: A of B is not an interrupt controller",
              "name one of the board's interrupt controllers: PLIC");
  ExpectError(Replace(kBoard, "interrupt_parent: PLIC\n  - name: B", "interrupt_parent: PLC\n  - name: B"),
              "interrupt_parent: PLC of A is not a peripheral of the board", "name one of the board's");
}

TEST(PlicBoard, ASourceOutsideTheControllersIsNamed) {
  ExpectError(Replace(kBoard, "irq: 5", "irq: 96"), "source 96 of B is not one of PLIC's sources 1-95",
              "use the source number the SoC's interrupt map gives");
  ExpectError(Replace(kBoard, "irq: 5", "irq: 0"), "source 0 of B", "use the source number");
}

TEST(PlicBoard, APlicOnAnArmBoardIsRefused) {
  std::string arm = Replace(kBoard, "cpu: rv32imac\nboot: {reset: 0x80000000, load_mode: debugger}", "cpu: cortex-m4\nboot: {vector_table: 0x80000000, load_mode: debugger}");
  ExpectError(arm, "PLIC is a riscv-plic, and a cortex-m4 takes interrupts through its NVIC",
              "remove it: on an Arm board a peripheral's irq: is its NVIC line");
}

TEST(PlicBoard, TheBoardTextSaysWhereALineGoes) {
  const Board b = ParseBoard(kBoard, "plic-test.yaml");
  ASSERT_TRUE(b.peripherals[1].irqs[0].parent);
  EXPECT_EQ(*b.peripherals[1].irqs[0].parent, 0u);
  EXPECT_FALSE(b.peripherals[0].irqs[0].parent);
}

}  // namespace
}  // namespace faultline
