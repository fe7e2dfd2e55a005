// Where Unicorn 2.0.1's CPUARMState keeps what the MVE unit (core_mve.cc) reads and writes
// on the engine's own state, measured when a core is made rather than assumed (marker
// values written through Unicorn's register API, looked for in a saved context), and the
// Cortex-M55's FPU features set in the CPU the engine translates for.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

struct uc_struct;

namespace faultline::arm {

struct MveLayout {
  size_t q_offset = 0;            // Q0-Q7 (D0-D15)
  size_t fpscr_offset = 0;        // FPSCR
  size_t standard_fp_offset = 0;  // the standard FPSCR's float_status
  size_t control_offset = SIZE_MAX;  // CONTROL's Secure bank (FPCA), if found
};

// The offsets from R0 in CPUARMState, or nullopt if any of Q0-Q7, FPSCR and the
// standard float_status is not found (MVE and double precision then stay off).
std::optional<MveLayout> FindMveLayout(uc_struct* uc);

// MVFR0.FPDP = 2 and MVFR1.FPHP = 2 (Cortex-M55 TRM §B.2) in the CPU whose env this is,
// found by the M33's ID values after env; nothing if they are not found exactly once.
void SetM55Features(void* env);

}  // namespace faultline::arm
