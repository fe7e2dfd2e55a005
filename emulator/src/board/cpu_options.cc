// `cpu_options:` of a board file (board.cc): the core's implementation options a SoC
// chose, each checked against what the core can have. Internal to the emulator library.
#include <fmt/core.h>

#include <string_view>

#include "layer.h"

namespace faultline {

CpuOptions ParseCpuOptions(const Field& field, const std::optional<CpuOptions>& earlier, const std::string& origin) {
  Mapping om(field,
             {"write_buffer", "nvic_irqs", "mpu_regions", "sau_regions", "traps", "halt", "icache", "dcache"});
  CpuOptions o = earlier.value_or(CpuOptions{});
  if (om.Has("traps")) o.traps_to_host = om.Get("traps").Choice<bool>("trap delivery", {{"mtvec", false}, {"host", true}});
  for (const Field& hf : Items<std::string>(om, "halt", origin)) {
    (hf.Choice<bool>("halting instruction", {{"mpause", true}, {"ebreak", false}}) ? o.halt_on_mpause
                                                                                    : o.halt_on_ebreak) = true;
  }
  if (om.Has("write_buffer")) {
    o.write_buffer = om.Get("write_buffer").Choice<bool>("value", {{"true", true}, {"false", false}});
  }
  if (om.Has("nvic_irqs")) {
    const Field f = om.Get("nvic_irqs");
    const uint64_t n = f.Number();
    if (n < 1 || n > kNvicMaxIrqLines) {
      f.Fail(fmt::format("{} interrupt lines: an NVIC has 1 to {}", n, kNvicMaxIrqLines),
             "give the number of external interrupts the SoC's reference manual lists");
    }
    o.nvic_irqs = uint32_t(n);
  }
  if (om.Has("mpu_regions")) {
    const Field f = om.Get("mpu_regions");
    const uint64_t n = f.Number();
    if (n < 4 || n > 16 || n % 4 != 0) {
      f.Fail(fmt::format("{} MPU regions: a Cortex-M MPU has 4, 8, 12 or 16", n),
             "give MPU_TYPE.DREGION of the SoC's core (CMSIS code reads it as MPU->TYPE >> 8)");
    }
    o.mpu_regions = uint32_t(n);
  }
  if (om.Has("sau_regions")) {
    const Field f = om.Get("sau_regions");
    const uint64_t n = f.Number();
    if (n != 0 && n != 4 && n != 8) {
      f.Fail(fmt::format("{} SAU regions: the Cortex-M33 and M55 SAU has 0, 4 or 8", n),
             "give SAU_TYPE.SREGION of the SoC's core (Secure start-up code reads it as SAU->TYPE)");
    }
    o.sau_regions = uint32_t(n);
  }
  for (const char* key : {"icache", "dcache"}) {
    if (!om.Has(key)) continue;
    const Field f = om.Get(key);
    const uint64_t n = f.Size();
    if (n != 0 && (n % 1024 != 0 || n / 1024 > 64 || ((n / 1024) & (n / 1024 - 1)) != 0 || n < 4096)) {
      f.Fail(fmt::format("a {} of {} bytes: a Cortex-M7 or M55 L1 cache has 0, 4K, 8K, 16K, 32K or 64K", key, n),
             "give the size the SoC's reference manual or datasheet states for the core's cache");
    }
    (std::string_view(key) == "icache" ? o.icache_bytes : o.dcache_bytes) = uint32_t(n);
    if (o.caches_where.empty()) o.caches_where = f.Where();
  }
  return o;}

}  // namespace faultline
