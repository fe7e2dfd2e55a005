// The MVE binding shows the translator an MRS in place of each vector instruction it
// decodes (arm/core_mve.cc). Only an instruction's first halfword may start one: the
// second halfword of a 32-bit instruction is never read as an instruction of its own.
#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

#include "arm/mve/mve.h"
#include "arm/core.h"
#include "faultline/board.h"
#include "faultline/memory_map.h"

namespace faultline {
namespace {

constexpr uint32_t kCode = 0x01000000;  // mps3-an547 BRAM (rwx)

// A BL backwards by 0x2b8 has F7FF FEA4, and FEA4 2F20 (its second halfword and the
// CMP after it) is VRMLALDAVH.S32 r0, r1, q2, q2 to the MVE decoder. Seen in the
// mve_diff harness: the call went to 0xffbffbb6.
TEST(MveFetch, TheSecondHalfwordOfABlIsNotAVectorInstruction) {
  ASSERT_TRUE(arm::mve::Decode(0xFEA4, 0x2F20).has_value());
  Board board = LoadBoardFile(std::filesystem::path(FAULTLINE_BOARDS_DIR) / "mps3-an547.yaml");
  MemoryMap map{board};
  arm::Core core{Cpu::kCortexM55, map};
  std::vector<uint16_t> code = {0x3101, 0x4770};  // 0: adds r1, #1; bx lr
  code.resize(0x2b4 / 2, 0xBF00);                  // nop
  code.insert(code.end(), {
                              0xF7FF, 0xFEA4,  // 2b4: bl 0
                              0x2F20,          // 2b8: cmp r7, #32
                              0xE7FE,          // 2ba: b .
                          });
  std::vector<uint8_t> bytes;
  for (uint16_t h : code) bytes.insert(bytes.end(), {uint8_t(h), uint8_t(h >> 8)});
  map.Write(kCode, bytes);
  core.InvalidateCode(kCode, kCode + bytes.size());
  core.WriteGeneral(1, 41);
  core.WriteGeneral(7, 32);
  const arm::Stop s = core.Run(kCode + 0x2b4, {.max_instructions = 1000});
  EXPECT_EQ(s.kind, arm::Stop::Kind::kHang) << "pc=0x" << std::hex << s.pc;
  EXPECT_EQ(s.pc, kCode + 0x2ba);
  EXPECT_EQ(core.ReadAll().r[1], 42u);
  EXPECT_EQ(core.mve_instructions(), 0u);
}

}  // namespace
}  // namespace faultline
