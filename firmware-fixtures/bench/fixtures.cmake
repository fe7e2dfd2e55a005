# Benchmark fixtures (issue 9, bench/): the kernels of bench_kernels.c as firmware,
# sized for a few hundred million instructions each. Not used by the tests.
#   mps2-an505/bench_alu.elf, bench_mem.elf, bench_tinynet.elf   (Cortex-M33; QEMU runs them too)
#   mps3-an547/bench_tinynet_m55.elf   the same inference built with -mcpu=cortex-m55
#                                      (Armv8.1-M: low-overhead loops)
#   mps2-an505/bench_tinynet_m33s.elf  and its M33 twin at the same size
#   mps3-an547/bench_tinynet_mve.elf   the M55 build with MVE, hard float, -O3
#   stm32h747-cm7/bench_{alu,mem,tinynet}_dcache.elf  the first three with the D-cache on
#   <board>/bench_dsp.elf              the DSP-intrinsic int8 layers (issue 19) on the M3
#                                      (C fallback), M4, M7, M33 and M55; bench_dsp_mve on
#                                      the M55 with MVE; dsp_check.elf: the same, small,
#                                      for the tests (host reference in the test)
#   mps2-an386/bench_simd.elf          the parallel add/subtract loops (dsp_simd.c) on
#                                      the M4; simd_check.elf the same, small
#   <board>/bench_kws.elf              the keyword-spotting network (kws_kernels.c, issue 38):
#                                      plain C on the M3, DSP on the M4, M7, M33 and M55,
#                                      Helium on the M55 (bench_kws_mve); kws_check*: one
#                                      inference, for the tests
# Sizes (BENCH_N) must match the host builds in bench/CMakeLists.txt.
set(FX_BENCH_DIR ${CMAKE_CURRENT_LIST_DIR})

# fx_bench(<board> <name> <kernel 1-5> <n> <cpu flags...>)
function(fx_bench board name kernel n)
  set(flags ${ARGN})
  set(objs ${board}_${name}_objs)
  add_library(${objs} OBJECT ${FX_BENCH_DIR}/bench_kernels.c ${FX_BENCH_DIR}/dsp_kernels.c ${FX_BENCH_DIR}/dsp_simd.c
                             ${FX_BENCH_DIR}/kws_kernels.c ${FX_ML_DIR}/src/tinynet.c)
  target_include_directories(${objs} PRIVATE ${FX_BENCH_DIR} ${FX_ML_DIR}/include)
  # No libc: keep loops as loops (no memset/memcpy calls).
  # The caller's flags last: -O3 there overrides the common -O2.
  target_compile_options(${objs} PRIVATE ${FX_COMMON_FLAGS} ${flags} -fno-tree-loop-distribute-patterns)
  set(target ${board}_${name})
  add_executable(${target} ${FX_BENCH_DIR}/bench_main.c $<TARGET_OBJECTS:${objs}>)
  fx_startup(${target} ${board} link_flags ${flags})
  if(kernel EQUAL 3)
    target_sources(${target} PRIVATE ${FX_ML_BLOB_ASM})
    add_dependencies(${target} ml_model)
  endif()
  target_include_directories(${target} PRIVATE ${FX_BENCH_DIR} ${FX_COMMON_DIR})
  target_compile_definitions(${target} PRIVATE BENCH_KERNEL=${kernel} BENCH_N=${n})
  target_compile_options(${target} PRIVATE ${FX_COMMON_FLAGS} ${flags})
  fx_ml_link(${target} ${board} ${name} ${FX_BOARDS_DIR}/${board}.ld ${link_flags})
endfunction()

fx_bench(mps2-an505 bench_alu 1 20000000 ${FX_CPU_FLAGS_mps2-an505})
fx_bench(mps2-an505 bench_mem 2 200 ${FX_CPU_FLAGS_mps2-an505})
fx_bench(mps2-an505 bench_tinynet 3 29 ${FX_CPU_FLAGS_mps2-an505})
# M33 against M55 on the same kernel (0.4 of the size: a throughput comparison).
fx_bench(mps2-an505 bench_tinynet_m33s 3 12 ${FX_CPU_FLAGS_mps2-an505})
fx_bench(mps3-an547 bench_tinynet_m55 3 12 -mcpu=cortex-m55 -mfloat-abi=soft)
# The same with MVE and the hard-float ABI at -O3, as vendor M55 builds are: GCC 12
# auto-vectorises the kernels into Helium (issue 15, bench `helium`).
fx_bench(mps3-an547 bench_tinynet_mve 3 12 -mcpu=cortex-m55 -mfloat-abi=hard -O3)

# The data cache's cost (issue 36 item 5): the first three kernels on the Cortex-M7 with
# SCB_EnableDCache first, their data in the H747's AXI SRAM (write-back); the bench runs
# each with the cache model on and off (FAULTLINE_DCACHE=off).
fx_bench(stm32h747-cm7 bench_alu_dcache 1 20000000 ${FX_CPU_FLAGS_stm32h747-cm7} -DBENCH_DCACHE=1)
fx_bench(stm32h747-cm7 bench_mem_dcache 2 200 ${FX_CPU_FLAGS_stm32h747-cm7} -DBENCH_DCACHE=1)
fx_bench(stm32h747-cm7 bench_tinynet_dcache 3 29 ${FX_CPU_FLAGS_stm32h747-cm7} -DBENCH_DCACHE=1)

# DSP-extension kernels (issue 19): the same C on every core, its checksum the host's.
set(FX_DSP_BENCH_N 40)
set(FX_DSP_CHECK_N 2)
# The M55 row is the no-MVE build (DSP + low-overhead loops), soft float; *_mve beside it.
set(FX_DSP_FLAGS_mps3-an547 -mcpu=cortex-m55 -mfloat-abi=soft)
foreach(board mps2-an385 mps2-an386 mps2-an500 mps2-an505)
  set(FX_DSP_FLAGS_${board} ${FX_CPU_FLAGS_${board}})
endforeach()
foreach(board mps2-an385 mps2-an386 mps2-an500 mps2-an505 mps3-an547)
  fx_bench(${board} bench_dsp 4 ${FX_DSP_BENCH_N} ${FX_DSP_FLAGS_${board}})
  fx_bench(${board} dsp_check 4 ${FX_DSP_CHECK_N} ${FX_DSP_FLAGS_${board}})
endforeach()
fx_bench(mps3-an547 bench_dsp_mve 4 ${FX_DSP_BENCH_N} -mcpu=cortex-m55 -mfloat-abi=hard -O3)
fx_bench(mps3-an547 dsp_check_mve 4 ${FX_DSP_CHECK_N} -mcpu=cortex-m55 -mfloat-abi=hard -O3)
# The parallel add/subtract loops (dsp_simd.c) on the Cortex-M4: bench_simd, simd_check.
set(FX_SIMD_BENCH_N 900)
set(FX_SIMD_CHECK_N 2)
fx_bench(mps2-an386 bench_simd 5 ${FX_SIMD_BENCH_N} ${FX_CPU_FLAGS_mps2-an386})
fx_bench(mps2-an386 simd_check 5 ${FX_SIMD_CHECK_N} ${FX_CPU_FLAGS_mps2-an386})

# The keyword-spotting network (issue 38): plain C, DSP, and Helium as CMSIS-NN builds it.
set(FX_KWS_BENCH_N 12)
set(FX_KWS_CHECK_N 1)
foreach(board mps2-an385 mps2-an386 mps2-an500 mps2-an505 mps3-an547)
  fx_bench(${board} bench_kws 6 ${FX_KWS_BENCH_N} ${FX_DSP_FLAGS_${board}})
  fx_bench(${board} kws_check 6 ${FX_KWS_CHECK_N} ${FX_DSP_FLAGS_${board}})
endforeach()
fx_bench(mps3-an547 bench_kws_mve 6 ${FX_KWS_BENCH_N} -mcpu=cortex-m55 -mfloat-abi=hard -O3)
fx_bench(mps3-an547 kws_check_mve 6 ${FX_KWS_CHECK_N} -mcpu=cortex-m55 -mfloat-abi=hard -O3)

# A legitimate run of more than 1e9 instructions (bench_alu, ~10 a step): a plain `run`
# must finish it, with no instruction budget by default (issue 19; tests/integration).
fx_bench(mps2-an505 long_alu 1 110000000 ${FX_CPU_FLAGS_mps2-an505})
