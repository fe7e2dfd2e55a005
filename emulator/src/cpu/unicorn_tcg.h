// The QEMU 5.0 TCG emitters inside libunicorn 2.0.1 that faultline calls to put its own
// ops into a block being translated (core_block_count.cc, unicorn_dsp_ops.cc). Unicorn's
// own, resolved from libunicorn at link time; they run only behind the build-id guard
// (unicorn_build.h). A TCGv is the temp's offset from the TCGContext
// (qemu/include/tcg/tcg.h, tcgv_i32_temp); an op's argument is the TCGTemp* itself.
#pragma once

#include <cstdint>

extern "C" {

struct TCGContext;
struct TCGTemp;
struct TCGLabel;

TCGTemp* tcg_temp_new_internal_arm(TCGContext* s, int type, bool local);
void tcg_temp_free_internal_arm(TCGContext* s, TCGTemp* t);
intptr_t tcg_const_i64_arm(TCGContext* s, int64_t value);  // a TCGv_i64
intptr_t tcg_const_i32_arm(TCGContext* s, int32_t value);  // a TCGv_i32
void* tcg_emit_op_arm(TCGContext* s, int opc);             // a TCGOp*
void tcg_gen_op1_arm(TCGContext* s, int opc, uintptr_t a1);
void tcg_gen_op3_arm(TCGContext* s, int opc, uintptr_t a1, uintptr_t a2, uintptr_t a3);

}  // extern "C"
