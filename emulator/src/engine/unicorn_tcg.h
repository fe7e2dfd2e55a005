// The QEMU 5.0 TCG emitters inside libunicorn 2.0.1 that faultline calls to put its own
// ops into a block being translated (tcg_block.cc, arm/core_block_count.cc,
// engine/unicorn_dsp_ops.cc, arm/core_mve_ops.cc). Unicorn's own, resolved from libunicorn
// at link time: one copy per target, suffixed _arm or _riscv32 (`nm -D libunicorn.so.2`);
// they run only behind the build-id guard (unicorn_build.h). A TCGv is the temp's offset
// from the TCGContext (qemu/include/tcg/tcg.h, tcgv_i32_temp); an op's argument is the
// TCGTemp* itself.
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
TCGLabel* gen_new_label_arm(TCGContext* s);
void tcg_gen_brcondi_i64_arm(TCGContext* s, int cond, intptr_t a1, int64_t a2, TCGLabel* l);
void tcg_gen_addi_i64_arm(TCGContext* s, intptr_t ret, intptr_t a1, int64_t a2);
void tcg_gen_andi_i64_arm(TCGContext* s, intptr_t ret, intptr_t a1, int64_t a2);

// The other emitters faultline's own ops use (arm/core_mve_ops.cc, engine/unicorn_dsp_ops.cc).
void tcg_gen_andi_i32_arm(TCGContext* s, intptr_t ret, intptr_t a1, int32_t a2);
void tcg_gen_ori_i32_arm(TCGContext* s, intptr_t ret, intptr_t a1, int32_t a2);
void tcg_gen_deposit_i32_arm(TCGContext* s, intptr_t ret, intptr_t a1, intptr_t a2, unsigned ofs, unsigned len);
void tcg_gen_extract_i32_arm(TCGContext* s, intptr_t ret, intptr_t a1, unsigned ofs, unsigned len);
void tcg_gen_setcondi_i32_arm(TCGContext* s, int cond, intptr_t ret, intptr_t a1, int32_t a2);
void tcg_gen_setcond_i32_arm(TCGContext* s, int cond, intptr_t ret, intptr_t a1, intptr_t a2);
void tcg_gen_muli_i32_arm(TCGContext* s, intptr_t ret, intptr_t a1, int32_t a2);
void tcg_gen_shli_i32_arm(TCGContext* s, intptr_t ret, intptr_t a1, int32_t a2);
void tcg_gen_subi_i32_arm(TCGContext* s, intptr_t ret, intptr_t a1, int32_t a2);
void tcg_gen_umin_i32_arm(TCGContext* s, intptr_t ret, intptr_t a1, intptr_t a2);
void tcg_gen_movcond_i32_arm(TCGContext* s, int cond, intptr_t ret, intptr_t c1, intptr_t c2, intptr_t v1,
                             intptr_t v2);
void tcg_gen_movcond_i64_arm(TCGContext* s, int cond, intptr_t ret, intptr_t c1, intptr_t c2, intptr_t v1,
                             intptr_t v2);
void tcg_gen_ext8s_i32_arm(TCGContext* s, intptr_t ret, intptr_t a);
void tcg_gen_ext_i32_i64_arm(TCGContext* s, intptr_t ret, intptr_t a);
void tcg_gen_extu_i32_i64_arm(TCGContext* s, intptr_t ret, intptr_t a);
void tcg_gen_concat_i32_i64_arm(TCGContext* s, intptr_t ret, intptr_t lo, intptr_t hi);
void tcg_gen_extr_i64_i32_arm(TCGContext* s, intptr_t lo, intptr_t hi, intptr_t a);
void tcg_gen_extrl_i64_i32_arm(TCGContext* s, intptr_t ret, intptr_t a);
void tcg_gen_umin_i64_arm(TCGContext* s, intptr_t ret, intptr_t a1, intptr_t a2);
void tcg_gen_shli_i64_arm(TCGContext* s, intptr_t ret, intptr_t a1, int64_t a2);
void tcg_gen_shri_i64_arm(TCGContext* s, intptr_t ret, intptr_t a1, int64_t a2);
void tcg_gen_addi_i32_arm(TCGContext* s, intptr_t ret, intptr_t a1, int32_t a2);
void tcg_gen_shri_i32_arm(TCGContext* s, intptr_t ret, intptr_t a1, int32_t a2);
void tcg_gen_ori_i64_arm(TCGContext* s, intptr_t ret, intptr_t a1, int64_t a2);
void tcg_gen_op2_arm(TCGContext* s, int opc, uintptr_t a1, uintptr_t a2);
void tcg_gen_xori_i32_arm(TCGContext* s, intptr_t ret, intptr_t a1, int32_t a2);
void tcg_op_remove_arm(TCGContext* s, void* op);
void* tcg_op_insert_after_arm(TCGContext* s, void* op, int opc);  // a TCGOp*
void tcg_gen_andc_i32_arm(TCGContext* s, intptr_t ret, intptr_t a1, intptr_t a2);
void tcg_gen_sari_i32_arm(TCGContext* s, intptr_t ret, intptr_t a1, int32_t a2);
void tcg_gen_sextract_i32_arm(TCGContext* s, intptr_t ret, intptr_t a1, unsigned ofs, unsigned len);
void tcg_gen_smin_i32_arm(TCGContext* s, intptr_t ret, intptr_t a1, intptr_t a2);
void tcg_gen_smax_i32_arm(TCGContext* s, intptr_t ret, intptr_t a1, intptr_t a2);

// Host vectors (QEMU 5.0 tcg-op-vec.c; a TCGv_vec is a temp of TCG_TYPE_V128 made with
// tcg_temp_new_internal_arm): the x86 backend has 128-bit vectors only with AVX
// (tcg/i386/tcg-target.h, TCG_TARGET_HAS_v128 = have_avx1, set from CPUID at start).
extern bool have_avx1_arm;
void tcg_gen_ld_vec_arm(TCGContext* s, intptr_t r, intptr_t base, uintptr_t offset);
void tcg_gen_st_vec_arm(TCGContext* s, intptr_t r, intptr_t base, uintptr_t offset);
void tcg_gen_dupi_vec_arm(TCGContext* s, unsigned vece, intptr_t r, uint64_t a);
void tcg_gen_add_vec_arm(TCGContext* s, unsigned vece, intptr_t r, intptr_t a, intptr_t b);
void tcg_gen_sub_vec_arm(TCGContext* s, unsigned vece, intptr_t r, intptr_t a, intptr_t b);
void tcg_gen_mul_vec_arm(TCGContext* s, unsigned vece, intptr_t r, intptr_t a, intptr_t b);
void tcg_gen_and_vec_arm(TCGContext* s, unsigned vece, intptr_t r, intptr_t a, intptr_t b);
void tcg_gen_andc_vec_arm(TCGContext* s, unsigned vece, intptr_t r, intptr_t a, intptr_t b);
void tcg_gen_or_vec_arm(TCGContext* s, unsigned vece, intptr_t r, intptr_t a, intptr_t b);
void tcg_gen_dup_i64_vec_arm(TCGContext* s, unsigned vece, intptr_t r, intptr_t a);
void tcg_gen_shli_vec_arm(TCGContext* s, unsigned vece, intptr_t r, intptr_t a, int64_t i);
void tcg_gen_sari_vec_arm(TCGContext* s, unsigned vece, intptr_t r, intptr_t a, int64_t i);

TCGTemp* tcg_temp_new_internal_riscv32(TCGContext* s, int type, bool local);
void tcg_temp_free_internal_riscv32(TCGContext* s, TCGTemp* t);
intptr_t tcg_const_i64_riscv32(TCGContext* s, int64_t value);
intptr_t tcg_const_i32_riscv32(TCGContext* s, int32_t value);
void* tcg_emit_op_riscv32(TCGContext* s, int opc);
void tcg_gen_op1_riscv32(TCGContext* s, int opc, uintptr_t a1);
void tcg_gen_op3_riscv32(TCGContext* s, int opc, uintptr_t a1, uintptr_t a2, uintptr_t a3);
TCGLabel* gen_new_label_riscv32(TCGContext* s);
void tcg_gen_brcondi_i64_riscv32(TCGContext* s, int cond, intptr_t a1, int64_t a2, TCGLabel* l);
void tcg_gen_addi_i64_riscv32(TCGContext* s, intptr_t ret, intptr_t a1, int64_t a2);
void tcg_gen_andi_i64_riscv32(TCGContext* s, intptr_t ret, intptr_t a1, int64_t a2);
void tcg_op_remove_riscv32(TCGContext* s, void* op);
void* tcg_op_insert_after_riscv32(TCGContext* s, void* op, int opc);

}  // extern "C"
