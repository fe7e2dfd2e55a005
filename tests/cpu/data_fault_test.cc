// A data access that faults stops the core at that instruction, in the middle of its
// translation block, with the registers as they were before it (core_data_faults.cc):
// no later instruction of the block runs and the PC is exact without a replay.
#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

#include "arm/core.h"
#include "faultline/board.h"
#include "faultline/memory_map.h"

namespace faultline {
namespace {

constexpr uint32_t kCode = 0x10000000;      // mps2-an505 SSRAM1
constexpr uint32_t kUnmapped = 0x60000000;  // no region on the board

class DataFault : public ::testing::Test {
 protected:
  Board board_ = LoadBoardFile(std::filesystem::path(FAULTLINE_BOARDS_DIR) / "mps2-an505.yaml");
  MemoryMap map_{board_};
  arm::Core core_{Cpu::kCortexM33, map_};

  void Load(const std::vector<uint16_t>& code) {
    std::vector<uint8_t> bytes;
    for (uint16_t h : code) bytes.insert(bytes.end(), {uint8_t(h), uint8_t(h >> 8)});
    map_.Write(kCode, bytes);
    core_.InvalidateCode(kCode, kCode + bytes.size());
  }
  uint32_t R(int n) const { return core_.ReadAll().r[n]; }
};

TEST_F(DataFault, ALoadInTheMiddleOfABlockStopsAtTheLoad) {
  Load({0x2101,    // 0: movs r1, #1
        0x1c4a,    // 2: adds r2, r1, #1
        0x6818,    // 4: ldr  r0, [r3]      faults
        0x2107,    // 6: movs r1, #7        must not run
        0xe7fe});  // 8: b .
  core_.WriteGeneral(0, 0x5A5A5A5A);
  core_.WriteGeneral(3, kUnmapped);
  arm::Stop s = core_.Run(kCode, {.max_instructions = 1000});
  ASSERT_EQ(s.kind, arm::Stop::Kind::kMemoryFault);
  EXPECT_EQ(s.pc, kCode + 4);
  EXPECT_FALSE(s.imprecise_pc);
  EXPECT_EQ(s.access, AccessType::kRead);
  EXPECT_EQ(s.address, kUnmapped);
  EXPECT_EQ(core_.Read(arm::Reg::kPc), kCode + 4);
  EXPECT_EQ(core_.instructions(), 2u);
  EXPECT_EQ(R(0), 0x5A5A5A5Au) << "the load wrote nothing";
  EXPECT_EQ(R(1), 1u) << "nothing after the load ran";
  EXPECT_EQ(R(2), 2u);
}

TEST_F(DataFault, AStoreInTheMiddleOfABlockStopsAtTheStore) {
  Load({0x2105,    // 0: movs r1, #5
        0x6019,    // 2: str  r1, [r3]      faults
        0x3101,    // 4: adds r1, #1        must not run
        0xe7fe});  // 6: b .
  core_.WriteGeneral(3, kUnmapped + 0x10);
  arm::Stop s = core_.Run(kCode, {.max_instructions = 1000});
  ASSERT_EQ(s.kind, arm::Stop::Kind::kMemoryFault);
  EXPECT_EQ(s.pc, kCode + 2);
  EXPECT_FALSE(s.imprecise_pc);
  EXPECT_EQ(s.access, AccessType::kWrite);
  EXPECT_EQ(s.address, kUnmapped + 0x10);
  EXPECT_EQ(core_.instructions(), 1u);
  EXPECT_EQ(R(1), 5u);
}

}  // namespace
}  // namespace faultline
