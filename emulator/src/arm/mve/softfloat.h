// IEEE 754 arithmetic for the MVE floating-point lanes: the softfloat library inside
// libunicorn 2.0.1 (QEMU 5.0's fpu/softfloat.c, built for the Arm target: every symbol
// ends in _arm), the same code QEMU 7.2 runs for these instructions. Using it, not host
// floats, gives QEMU's results bit for bit: default NaNs, flush-to-zero of subnormal
// inputs and results, rounding modes and the cumulative exception flags.
#pragma once

#include <cstdint>

namespace faultline::arm::mve {

// QEMU 5.0's float_status (include/fpu/softfloat-types.h in libunicorn 2.0.1's tree),
// field for field. The engine keeps one for the Armv8-M "standard FPSCR value" (default
// NaN, flush-to-zero, round to nearest), which MVE arithmetic uses (DDI 0553 §B5.3).
struct FloatStatus {
  int8_t detect_tininess;
  int8_t rounding_mode;
  uint8_t exception_flags;
  int8_t floatx80_rounding_precision;
  uint8_t flush_to_zero;
  uint8_t flush_inputs_to_zero;
  uint8_t default_nan_mode;
  uint8_t snan_bit_is_one;
};
static_assert(sizeof(FloatStatus) == 8);

// float_relation and the muladd flags of QEMU 5.0's softfloat.h.
enum : int { kLess = -1, kEqual = 0, kGreater = 1, kUnordered = 2 };
enum : int { kNegateAddend = 1, kNegateProduct = 2 };
// float_flag_invalid, _inexact and _input_denormal; FloatRoundMode.
constexpr uint8_t kInvalid = 1, kInexact = 32, kInputDenormal = 64;
enum : int { kRoundNearestEven = 0, kRoundDown = 1, kRoundUp = 2, kRoundToZero = 3, kRoundTiesAway = 4 };

extern "C" {
uint32_t float32_add_arm(uint32_t, uint32_t, FloatStatus*);
uint32_t float32_sub_arm(uint32_t, uint32_t, FloatStatus*);
uint32_t float32_mul_arm(uint32_t, uint32_t, FloatStatus*);
uint32_t float32_muladd_arm(uint32_t, uint32_t, uint32_t, int flags, FloatStatus*);
uint32_t float32_maxnum_arm(uint32_t, uint32_t, FloatStatus*);
uint32_t float32_minnum_arm(uint32_t, uint32_t, FloatStatus*);
uint32_t float32_maxnummag_arm(uint32_t, uint32_t, FloatStatus*);
uint32_t float32_minnummag_arm(uint32_t, uint32_t, FloatStatus*);
int float32_compare_arm(uint32_t, uint32_t, FloatStatus*);

uint32_t int32_to_float32_scalbn_arm(int32_t, int scale, FloatStatus*);
uint32_t uint32_to_float32_scalbn_arm(uint32_t, int scale, FloatStatus*);
int32_t float32_to_int32_scalbn_arm(uint32_t, int rounding, int scale, FloatStatus*);
uint32_t float32_to_uint32_scalbn_arm(uint32_t, int rounding, int scale, FloatStatus*);
uint32_t float32_round_to_int_arm(uint32_t, FloatStatus*);
uint16_t float32_to_float16_arm(uint32_t, bool ieee, FloatStatus*);
uint32_t float16_to_float32_arm(uint16_t, bool ieee, FloatStatus*);

uint16_t float16_add_arm(uint16_t, uint16_t, FloatStatus*);
uint16_t float16_sub_arm(uint16_t, uint16_t, FloatStatus*);
uint16_t float16_mul_arm(uint16_t, uint16_t, FloatStatus*);
uint16_t float16_muladd_arm(uint16_t, uint16_t, uint16_t, int flags, FloatStatus*);
uint16_t float16_maxnum_arm(uint16_t, uint16_t, FloatStatus*);
uint16_t float16_minnum_arm(uint16_t, uint16_t, FloatStatus*);
uint16_t float16_maxnummag_arm(uint16_t, uint16_t, FloatStatus*);
uint16_t float16_minnummag_arm(uint16_t, uint16_t, FloatStatus*);
int float16_compare_arm(uint16_t, uint16_t, FloatStatus*);
uint16_t int16_to_float16_scalbn_arm(int16_t, int scale, FloatStatus*);
uint16_t uint16_to_float16_scalbn_arm(uint16_t, int scale, FloatStatus*);
int16_t float16_to_int16_scalbn_arm(uint16_t, int rounding, int scale, FloatStatus*);
uint16_t float16_to_uint16_scalbn_arm(uint16_t, int rounding, int scale, FloatStatus*);
uint16_t float16_round_to_int_arm(uint16_t, FloatStatus*);
uint16_t float16_div_arm(uint16_t, uint16_t, FloatStatus*);
uint16_t float16_sqrt_arm(uint16_t, FloatStatus*);
int float16_compare_quiet_arm(uint16_t, uint16_t, FloatStatus*);
int32_t float16_to_int32_scalbn_arm(uint16_t, int rounding, int scale, FloatStatus*);
uint32_t float16_to_uint32_scalbn_arm(uint16_t, int rounding, int scale, FloatStatus*);
uint16_t int32_to_float16_scalbn_arm(int32_t, int scale, FloatStatus*);
uint16_t uint32_to_float16_scalbn_arm(uint32_t, int scale, FloatStatus*);
}

}  // namespace faultline::arm::mve
