// emulator/src/engine/unicorn_mapping.cc replaces libunicorn's memory_mapping, the lookup
// of the mapped block an address is in. It must give the same block as Unicorn's own for
// every address, whatever it looked up before and whatever was mapped or unmapped since,
// and libunicorn's own calls must reach it.
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <unicorn/unicorn.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "engine/unicorn_build.h"
#include "engine/unicorn_mapping.h"

namespace {

using MemoryMapping = MemoryRegion* (*)(uc_struct*, uint64_t);

TEST(UnicornMapping, FindsTheBlockUnicornsLookupFinds) {
  const auto unicorns = reinterpret_cast<MemoryMapping>(dlsym(RTLD_NEXT, "memory_mapping"));
  ASSERT_NE(unicorns, nullptr);
  uc_engine* uc = nullptr;
  ASSERT_EQ(uc_open(UC_ARCH_ARM, uc_mode(UC_MODE_THUMB | UC_MODE_MCLASS), &uc), UC_ERR_OK);
  // Blocks with gaps between them, mapped out of order (Unicorn keeps them sorted).
  const std::vector<std::pair<uint64_t, uint64_t>> blocks = {
      {0x38000000, 0x4000}, {0x10000000, 0x8000}, {0x20000000, 0x1000}, {0x00000000, 0x400},
      {0x40000000, 0x10000}, {0x28000000, 0x2000}, {0x10010000, 0x400}};
  for (const auto& [base, size] : blocks) ASSERT_EQ(uc_mem_map(uc, base, size, UC_PROT_ALL), UC_ERR_OK);
  // Addresses at every block's edges and in its gaps, in a random order, so that the
  // kept blocks are both hit and missed.
  std::vector<uint64_t> probes;
  for (const auto& [base, size] : blocks) {
    for (uint64_t a : {base - 1, base, base + 1, base + size / 2, base + size - 1, base + size}) probes.push_back(a);
  }
  std::mt19937 random(19);
  int found = 0;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 2000; ++i) {
      const uint64_t a = probes[random() % probes.size()];
      MemoryRegion* theirs = unicorns(reinterpret_cast<uc_struct*>(uc), a);
      ASSERT_EQ(memory_mapping(reinterpret_cast<uc_struct*>(uc), a), theirs) << std::hex << "address 0x" << a;
      found += theirs != nullptr;
    }
    // Unmapping shifts the blocks after it: kept indexes now name other blocks.
    const auto [base, size] = blocks[round];
    ASSERT_EQ(uc_mem_unmap(uc, base, size), UC_ERR_OK);
  }
  EXPECT_GT(found, 1000);
  uc_close(uc);
}

TEST(UnicornMapping, LibunicornCallsTheReplacement) {
  if (!faultline::engine::KnownUnicornBuild()) GTEST_SKIP() << "another libunicorn build: Unicorn's own lookup runs";
  const char* e = std::getenv("FAULTLINE_UNICORN_MAPPING");
  if (e != nullptr && std::string(e) == "stock") GTEST_SKIP() << "FAULTLINE_UNICORN_MAPPING=stock";
  uc_engine* uc = nullptr;
  ASSERT_EQ(uc_open(UC_ARCH_ARM, uc_mode(UC_MODE_THUMB | UC_MODE_MCLASS), &uc), UC_ERR_OK);
  ASSERT_EQ(uc_mem_map(uc, 0x20000000, 0x1000, UC_PROT_ALL), UC_ERR_OK);
  const uint64_t before = faultline::engine::MappingSearches();
  uint32_t word = 0x12345678;
  ASSERT_EQ(uc_mem_write(uc, 0x20000010, &word, sizeof word), UC_ERR_OK);  // looks the block up
  EXPECT_GT(faultline::engine::MappingSearches(), before) << "libunicorn did not call faultline's memory_mapping";
  uc_close(uc);
}

}  // namespace
