// bus/bus_view.h: each bus master reaches memory through its own view of the map (issue
// 40 item 4). What it is not routed to answers DECERR, naming where it does reach the same
// bytes; a closed gate answers SLVERR (or zeros, as the board says); the host reaches all.
#include "bus/bus_view.h"

#include <gtest/gtest.h>

#include <array>
#include <filesystem>

#include "board_yaml.h"
#include "faultline/board.h"
#include "faultline/memory_map.h"

namespace faultline {
namespace {

const BusMaster& Master(const Board& b, const std::string& name) {
  for (const BusMaster& m : b.masters) {
    if (m.name == name) return m;
  }
  throw std::runtime_error("no master " + name);
}

class BusViewTest : public ::testing::Test {
 protected:
  Board board_ = LoadBoardFile(std::filesystem::path(FAULTLINE_TEST_DATA_DIR) / "boards" / "masters_an505.yaml");
  MemoryMap map_{board_};
  BusView host_ = BusView::Host(map_);
  BusView npu_{map_, Master(board_, "NPU0")};
  BusView dma_{map_, Master(board_, "DMA0")};

  uint32_t HostWord(uint64_t address) {
    std::array<uint8_t, 4> b{};
    EXPECT_TRUE(host_.Read(address, b).ok());
    return uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
  }
};

TEST_F(BusViewTest, TheBoardDeclaresEachMasterWithWhatItReaches) {
  ASSERT_EQ(board_.masters.size(), 2u);
  EXPECT_EQ(board_.masters[0].name, "NPU0");
  EXPECT_EQ(board_.masters[0].kind, MasterKind::kNpu);
  EXPECT_EQ(board_.masters[1].kind, MasterKind::kDma);
  EXPECT_EQ(board_.masters[1].reaches.size(), 5u);
}

// The arena the NPU cannot reach: a buffer at the CPU's Secure address of a memory the
// NPU is routed to only at its Non-secure alias.
TEST_F(BusViewTest, AnAddressTheMasterIsNotRoutedToIsADecodeErrorNamingWhereItReachesTheBytes) {
  const std::array<uint8_t, 4> word = {0x11, 0x22, 0x33, 0x44};
  ASSERT_TRUE(host_.Write(0x30000100, word).ok());
  std::array<uint8_t, 4> got{};
  const BusResponse r = npu_.Read(0x30000100, got);
  EXPECT_EQ(r.resp, BusResp::kDecErr);
  EXPECT_EQ(r.address, 0x30000100u);
  EXPECT_NE(r.why.find("NPU0 is not routed to iotkit_sram"), std::string::npos) << r.why;
  EXPECT_NE(r.why.find("it reaches the same bytes at 0x20000100 (iotkit_sram_ns)"), std::string::npos) << r.why;
  ASSERT_TRUE(npu_.Read(0x20000100, got).ok());
  EXPECT_EQ(got, word);
  // The DMA controller is routed to neither.
  EXPECT_EQ(dma_.Read(0x20000100, got).resp, BusResp::kDecErr);
  EXPECT_EQ(dma_.Read(0x20000100, got).why.find("same bytes"), std::string::npos);
  // Nothing at all: a decode error for every master, the host too.
  EXPECT_EQ(host_.Read(0x90000000, got).resp, BusResp::kDecErr);
}

// A DMA transfer into a bank whose gate is closed: the board says the bank errors
// (xspi_flash) or reads zero and drops writes (bank); the DMA controller opens the gate
// by writing the register, as the firmware would, and the transfer then goes through.
TEST_F(BusViewTest, ClosedGatesAnswerAsTheBoardSaysAndAMasterThatWritesTheRegisterOpensThem) {
  std::array<uint8_t, 8> got{};
  const BusResponse refused = dma_.Read(0x70000000, got);
  EXPECT_EQ(refused.resp, BusResp::kSlvErr);
  EXPECT_NE(refused.why.find("xspi_flash is disabled: XSPI.CR.FMODE"), std::string::npos) << refused.why;

  const std::array<uint8_t, 4> word = {1, 2, 3, 4};
  BusResponse dropped = dma_.Write(0x60000000, word);
  EXPECT_TRUE(dropped.ok());
  EXPECT_TRUE(dropped.disabled_region);
  EXPECT_EQ(HostWord(0x60000000), 0x5A5A5A5Au) << "a write to a closed read-zero gate is dropped";
  BusResponse zero = dma_.Read(0x60000000, got);
  EXPECT_TRUE(zero.ok() && zero.disabled_region);
  EXPECT_EQ(got, (std::array<uint8_t, 8>{}));

  const std::array<uint8_t, 4> banken = {1, 0, 0, 0};  // PWR.CR.BANKEN = 1
  const BusResponse opened = dma_.Write(0x40000000, banken);
  ASSERT_TRUE(opened.ok()) << opened.why;
  EXPECT_EQ(opened.gates_changed.size(), 1u);
  EXPECT_TRUE(map_.Enabled(size_t(map_.Find(0x60000000))));
  dropped = dma_.Write(0x60000000, word);
  EXPECT_TRUE(dropped.ok() && !dropped.disabled_region);
  EXPECT_EQ(HostWord(0x60000000), 0x04030201u);
  // The NPU reaches the same bank only through its alias, through the same gate.
  ASSERT_TRUE(npu_.Read(0x61000000, got).ok());
  EXPECT_EQ(got[0], 1);
}

TEST_F(BusViewTest, TheHostIgnoresGatesAndPermissionsAndMastersDoNot) {
  std::array<uint8_t, 4> got{};
  EXPECT_TRUE(host_.Read(0x70000000, got).ok()) << "the host reads a closed window";
  EXPECT_EQ(got, (std::array<uint8_t, 4>{0xFF, 0xFF, 0xFF, 0xFF}));  // erased
  const std::array<uint8_t, 4> word = {9, 9, 9, 9};
  const BusResponse flash = npu_.Write(0x10000000, word);  // ssram1 is the boot memory: rwx on this board
  EXPECT_TRUE(flash.ok()) << flash.why;
  // Open the XSPI window (FMODE = 3) and write it: it is read-only (access: r).
  const std::array<uint8_t, 4> fmode = {0, 0, 0, 0x30};
  ASSERT_TRUE(dma_.Write(0x40001000, fmode).ok());
  const BusResponse ro = dma_.Write(0x70000000, word);
  EXPECT_EQ(ro.resp, BusResp::kSlvErr);
  EXPECT_NE(ro.why.find("xspi_flash is not writable (r"), std::string::npos) << ro.why;
  EXPECT_TRUE(host_.Write(0x70000000, word).ok());
  EXPECT_EQ(HostWord(0x70000000), 0x09090909u);
}

TEST_F(BusViewTest, ABurstCrossesAdjacentWindowsAndStopsAtTheFirstByteRefused) {
  std::vector<uint8_t> burst(64, 0xAB);
  // ssram2 ends at 0x38200000 where ssram3 begins: one burst across both.
  ASSERT_TRUE(npu_.Write(0x38200000 - 32, burst).ok());
  EXPECT_EQ(HostWord(0x38200000 - 4), 0xABABABABu);
  EXPECT_EQ(HostWord(0x38200000), 0xABABABABu);
  // ssram3 ends at 0x38400000, with nothing after it: the first 32 bytes land.
  const BusResponse r = npu_.Write(0x38400000 - 32, burst);
  EXPECT_EQ(r.resp, BusResp::kDecErr);
  EXPECT_EQ(r.address, 0x38400000u);
  EXPECT_EQ(HostWord(0x38400000 - 4), 0xABABABABu);
}

TEST_F(BusViewTest, PeripheralRegistersTakeAlignedWordsOnlyFromMastersRoutedToThem) {
  std::array<uint8_t, 2> half{};
  EXPECT_EQ(dma_.Read(0x40000000, half).resp, BusResp::kSlvErr);
  std::array<uint8_t, 4> word{};
  EXPECT_EQ(dma_.Read(0x40000002, word).resp, BusResp::kSlvErr);
  EXPECT_EQ(dma_.Read(0x40000008, word).resp, BusResp::kSlvErr) << "no register there";
  const BusResponse npu = npu_.Read(0x40000000, word);
  EXPECT_EQ(npu.resp, BusResp::kDecErr);
  EXPECT_NE(npu.why.find("NPU0 is not routed to PWR"), std::string::npos) << npu.why;
  EXPECT_TRUE(dma_.Read(0x40000004, word).ok());  // PWR.SR
}

// A board with one RAM region and then `masters:`, the first entry on line 7.
std::string WithMasters(const std::string& entries) {
  return "name: t\n"
         "description: test\n"
         "cpu: cortex-m33\n"
         "boot: {vector_table: 0x20000000, load_mode: debugger}\n"
         "regions:\n"
         "  - {name: ram, base: 0x20000000, size: 64K, kind: sram, access: rwx, reset: zero}\n"
         "masters:\n" +
         entries;
}

TEST(BusMasters, BadEntriesNameTheirLineAndTheFix) {
  ExpectBoardError(WithMasters("  - {name: NPU, kind: npu, reaches: [ram, tcm]}\n"), 8,
                   "master 'NPU' reaches 'tcm', which is no region, alias or peripheral",
                   "name a region, alias or peripheral");
  ExpectBoardError(WithMasters("  - {name: NPU, kind: gpu, reaches: [ram]}\n"), 8, "unknown master kind 'gpu'",
                   "write npu");
  ExpectBoardError(WithMasters("  - {name: NPU, kind: npu, reaches: []}\n"), 8, "expected a list", "reaches: [sram0");
  ExpectBoardError(WithMasters("  - {name: NPU, kind: npu, reaches: [ram]}\n  - {name: NPU, kind: dma, reaches: [ram]}\n"),
                   9, "master name 'NPU' is used twice", "unique name");
  ExpectBoardError(WithMasters("  - {name: NPU, kind: npu, reaches: [ram], port: 1}\n"), 8, "unknown key 'port'",
                   "reaches");
  EXPECT_EQ(ParseBoard(WithMasters("  - {name: NPU, kind: npu, reaches: [ram]}\n"), "t.yaml").masters.size(), 1u);
}

}  // namespace
}  // namespace faultline
