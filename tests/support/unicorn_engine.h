// A bare Unicorn engine for the tests of faultline's replacements inside libunicorn
// (engine/): a code page, host RAM, and the register and code helpers they share.
#pragma once

#include <gtest/gtest.h>

#include <unicorn/unicorn.h>

#include <array>
#include <cstdint>
#include <initializer_list>

namespace faultline::test {

constexpr uint64_t kFlash = 0x00000000;
constexpr uint64_t kRam = 0x20000000;

// An engine with a code page and `kRamSize` bytes of host RAM, `Insn`-sized instructions.
template <typename Insn, size_t kRamSize>
struct EngineOf {
  uc_engine* uc = nullptr;
  alignas(4096) std::array<uint8_t, kRamSize> ram{};
  EngineOf(uc_arch arch, uc_mode mode, uint64_t code, uint64_t code_size, uint64_t data) {
    EXPECT_EQ(uc_open(arch, mode, &uc), UC_ERR_OK);
    EXPECT_EQ(uc_mem_map(uc, code, code_size, UC_PROT_READ | UC_PROT_EXEC), UC_ERR_OK);
    EXPECT_EQ(uc_mem_map_ptr(uc, data, ram.size(), UC_PROT_ALL, ram.data()), UC_ERR_OK);
  }
  ~EngineOf() { uc_close(uc); }
  EngineOf(const EngineOf&) = delete;
  EngineOf& operator=(const EngineOf&) = delete;
  void Code(uint64_t at, std::initializer_list<Insn> insns) {
    for (Insn i : insns) {
      ASSERT_EQ(uc_mem_write(uc, at, &i, sizeof i), UC_ERR_OK);
      at += sizeof i;
    }
  }
  void Set(int reg, uint32_t v) { ASSERT_EQ(uc_reg_write(uc, reg, &v), UC_ERR_OK); }
  uint32_t Get(int reg) {
    uint32_t v = 0;
    uc_reg_read(uc, reg, &v);
    return v;
  }
};

struct Engine : EngineOf<uint16_t, 0x800> {
  Engine() : EngineOf(UC_ARCH_ARM, uc_mode(UC_MODE_THUMB | UC_MODE_MCLASS), kFlash, 0x400, kRam) {}
  // Runs [begin, end) (Thumb addresses without bit 0).
  uc_err Run(uint64_t begin, uint64_t end) { return uc_emu_start(uc, begin | 1, end, 0, 0); }
};

}  // namespace faultline::test
