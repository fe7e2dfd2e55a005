#include "mve_layout.h"

#include <malloc.h>
#include <unicorn/unicorn.h>

#include <algorithm>
#include <cstring>

#include "unicorn_interpose.h"  // RunningCpu

namespace faultline::arm {

// Cortex-M33 ID registers as QEMU 5.0 sets them (target/arm/cpu.c, cortex_m33_initfn).
constexpr uint32_t kM33Mvfr0 = 0x10110021, kM33Mvfr1 = 0x11000011, kM33Mvfr2 = 0x00000040;

namespace {

// The standard FPSCR's float_status in a saved context, searched from FPSCR on: three
// consecutive 8-byte float_status whose rounding-mode, flush and default-NaN bytes read
// (3, 1, 1, 1), (3, -, -, 1), (0, 1, 1, 1) under the calibration's FPSCR.
size_t FindStandardFpStatus(const uint8_t* p, size_t from, size_t size) {
  size_t found = SIZE_MAX;
  for (size_t o = from; o + 24 <= size && o < from + 1024; ++o) {
    const uint8_t* a = p + o;
    const uint8_t* st = a + 16;
    const bool fp_status = a[1] == 3 && a[4] == 1 && a[5] == 1 && a[6] == 1;
    const bool f16 = a[9] == 3 && a[14] == 1;
    const bool standard = st[1] == 0 && st[4] == 1 && st[5] == 1 && st[6] == 1 && st[0] == a[0];
    if (fp_status && f16 && standard) {
      if (found != SIZE_MAX) return SIZE_MAX;  // ambiguous
      found = o + 16;
    }
  }
  return found;
}

// CONTROL's Secure bank in CPUARMState (v7m.control[M_REG_S], where QEMU keeps FPCA and
// SFPA), from `base` (R0) in the saved context `before`: the one word that changes, by
// FPCA alone, when FPCA is toggled through Unicorn's register API. SIZE_MAX if not one.
size_t FindControl(uc_engine* e, const uint8_t* before, size_t base, size_t size) {
  constexpr uint32_t kFpca = 1u << 2;
  uint32_t control = 0;
  uc_reg_read(e, UC_ARM_REG_CONTROL, &control);
  const uint32_t toggled = control ^ kFpca;
  uc_reg_write(e, UC_ARM_REG_CONTROL, &toggled);
  uc_context* ctx = nullptr;
  size_t found = SIZE_MAX;
  if (uc_context_alloc(e, &ctx) == UC_ERR_OK && uc_context_save(e, ctx) == UC_ERR_OK) {
    const auto* after = reinterpret_cast<const uint8_t*>(ctx);
    for (size_t i = base; i + 4 <= size; i += 4) {
      uint32_t a, b;
      std::memcpy(&a, before + i, 4);
      std::memcpy(&b, after + i, 4);
      if (a == b) continue;
      if ((a ^ b) != kFpca || found != SIZE_MAX) {
        found = SIZE_MAX;
        break;
      }
      found = i - base;
    }
  }
  if (ctx != nullptr) uc_context_free(ctx);
  uc_reg_write(e, UC_ARM_REG_CONTROL, &control);
  return found;
}

}  // namespace

// Finds the Q registers and FPSCR in CPUARMState: writes marker values through
// Unicorn's register API and looks for them in a saved context (a copy of the state).
std::optional<MveLayout> FindMveLayout(uc_struct* uc) {
  std::optional<MveLayout> layout;
  uc_engine* e = reinterpret_cast<uc_engine*>(uc);
  const uint32_t r0 = 0x5EC0DE01;
  uc_reg_write(e, UC_ARM_REG_R0, &r0);
  for (int d = 0; d < 16; ++d) {
    const uint64_t v = 0xD0D0000000000000ull | uint64_t(d) << 32 | 0x600D0000u | uint32_t(d);
    uc_reg_write(e, UC_ARM_REG_D0 + d, &v);
  }
  const uint32_t fpscr = 0x03C00000;  // DN, FZ, RMode = RZ: bits a reset never sets
  uc_reg_write(e, UC_ARM_REG_FPSCR, &fpscr);
  uc_context* ctx = nullptr;
  if (uc_context_alloc(e, &ctx) == UC_ERR_OK && uc_context_save(e, ctx) == UC_ERR_OK) {
    const size_t size = uc_context_size(e);
    uint8_t* p = reinterpret_cast<uint8_t*>(ctx);
    auto find32 = [&](uint32_t v, size_t from) -> size_t {
      for (size_t i = from; i + 4 <= size; i += 4) {
        uint32_t w;
        std::memcpy(&w, p + i, 4);
        if (w == v) return i;
      }
      return SIZE_MAX;
    };
    const size_t base = find32(r0, 0);
    const size_t d0 = base == SIZE_MAX ? SIZE_MAX : find32(0x600D0000u, base);
    const size_t fp = base == SIZE_MAX ? SIZE_MAX : find32(fpscr, base);
    bool ok = d0 != SIZE_MAX && fp != SIZE_MAX && fp + 64 <= size;
    for (int d = 0; ok && d < 16; ++d) {
      uint64_t v;
      std::memcpy(&v, p + d0 + 8 * size_t(d), 8);
      ok = v == (0xD0D0000000000000ull | uint64_t(d) << 32 | 0x600D0000u | uint32_t(d));
    }
    // QEMU 5.0 keeps three float_status after FPSCR (fp_status, fp_status_f16,
    // standard_fp_status: target/arm/cpu.h). The marker FPSCR put round-to-zero (3),
    // flush-to-zero (both) and default NaN into the first two; the third is the
    // standard value: round to nearest (0), flush-to-zero, default NaN.
    const size_t status = ok ? FindStandardFpStatus(p, fp, size) : SIZE_MAX;
    if (ok && status != SIZE_MAX) {
      layout = MveLayout{d0 - base, fp - base, status - base, FindControl(e, p, base, size)};
    }
    uc_context_free(ctx);
  }
  const uint64_t zero = 0;
  const uint32_t zero32 = 0;
  uc_reg_write(e, UC_ARM_REG_R0, &zero32);
  for (int d = 0; d < 16; ++d) uc_reg_write(e, UC_ARM_REG_D0 + d, &zero);
  uc_reg_write(e, UC_ARM_REG_FPSCR, &zero32);
  return layout;
}

// The Cortex-M55's FPU: MVFR0/MVFR1 of the CPU the engine translates for, found by the
// M33's values after env (ARMCPU.isar follows CPUARMState).
void SetM55Features(void* env) {
  auto* w = static_cast<uint32_t*>(env);
  uint32_t* found = nullptr;
  // Only within the ARMCPU allocation env lies in: past its end is not ours to read
  // (AddressSanitizer found the scan running off it).
  size_t words = 0x10000 / 4;
  if (const void* cpu = RunningCpu()) {
    const auto* end = static_cast<const uint8_t*>(cpu) + malloc_usable_size(const_cast<void*>(cpu));
    const auto* begin = static_cast<const uint8_t*>(env);
    words = end > begin ? std::min(words, size_t(end - begin) / 4) : 0;
  }
  for (size_t i = 0; i + 3 < words; ++i) {
    if (w[i] == kM33Mvfr0 && w[i + 1] == kM33Mvfr1 && w[i + 2] == kM33Mvfr2) {
      if (found != nullptr) return;  // ambiguous: leave the model as it is
      found = &w[i];
    }
  }
  if (found == nullptr) return;
  found[0] = (found[0] & ~0xF00u) | 0x200u;          // MVFR0.FPDP: double precision
  found[1] = (found[1] & ~0x0F000000u) | 0x02000000u;  // MVFR1.FPHP: F16 <-> F64 too
}

}  // namespace faultline::arm
