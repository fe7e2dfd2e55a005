# tinynet: the int8 model, its kernels and a plain inference fixture for every board.
# Included by ../CMakeLists.txt (the cross project). See README.md in this directory.
#
# Provides, for other fixture groups (pitfalls/*/fixtures.cmake):
#   what generate.cmake provides (FX_ML_DIR, FX_ML_MAKE_MODEL, FX_ML_MODEL_BIN,
#   target ml_model, fx_ml_model_asm),
#   fx_ml_kernels(<board>)                 -> OBJECT library tinynet_<board> (kernels + console)
#   fx_ml_link(<target> <board> <name> <linker script> [extra link options...])
#                                          -> output <board>/<name>.elf (+ .map), nostdlib
include(${CMAKE_CURRENT_LIST_DIR}/generate.cmake)

function(fx_ml_kernels board)
  if(TARGET tinynet_${board})
    return()
  endif()
  add_library(tinynet_${board} OBJECT ${FX_ML_DIR}/src/tinynet.c ${FX_ML_DIR}/src/ml_console.c)
  target_include_directories(tinynet_${board} PUBLIC ${FX_ML_DIR}/include ${FX_COMMON_DIR})
  # No libc: keep loops as loops (no memset/memcpy calls).
  target_compile_options(tinynet_${board} PRIVATE ${FX_CPU_FLAGS_${board}} ${FX_COMMON_FLAGS}
                         -fno-tree-loop-distribute-patterns)
endfunction()

function(fx_ml_link target board name script)
  set(outdir ${CMAKE_CURRENT_BINARY_DIR}/${board})
  target_link_options(${target} PRIVATE
    ${FX_CPU_FLAGS_${board}} -mthumb -nostdlib -nostartfiles
    -L${FX_BOARDS_DIR} -L${FX_COMMON_DIR}
    -T${script} -Wl,--gc-sections -Wl,-Map=${outdir}/${name}.map ${ARGN})
  target_link_libraries(${target} PRIVATE gcc)
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME ${name} SUFFIX .elf RUNTIME_OUTPUT_DIRECTORY ${outdir}
    LINK_DEPENDS "${script}"
    ADDITIONAL_CLEAN_FILES ${outdir}/${name}.map)
endfunction()

# ml_inference: tinynet_run on every board with the common startup and linker script. On
# the M55 boards this is the vendor build (MVE on, hard float): tinynet's int8 dot products
# run as Helium (dot_s8).
fx_ml_model_asm(FX_ML_BLOB_ASM model ${FX_ML_MODEL_BIN})
foreach(board IN LISTS FX_BOARDS)
  fx_ml_kernels(${board})
  add_executable(${board}_ml_inference ${FX_ML_DIR}/src/ml_inference.c ${FX_ML_BLOB_ASM})
  target_compile_options(${board}_ml_inference PRIVATE ${FX_CPU_FLAGS_${board}} ${FX_COMMON_FLAGS})
  target_link_libraries(${board}_ml_inference PRIVATE fx_common_${board} tinynet_${board})
  add_dependencies(${board}_ml_inference ml_model)
  fx_ml_link(${board}_ml_inference ${board} ml_inference ${FX_BOARDS_DIR}/${board}.ld)
endforeach()

# npu_inference (issue 35): npunet on the CPU and on the board's Ethos-U, outputs compared.
# The blob's generator is a host C++ program built on the writers the Ethos-U model's tests
# use (tests/support/npu_vela.h, npu_weights.h).
find_program(FX_HOST_CXX NAMES c++ g++ REQUIRED NO_CMAKE_FIND_ROOT_PATH)
set(FX_NPU_SUPPORT ${FX_ML_DIR}/../../tests/support)
set(FX_MAKE_NPUNET ${FX_ML_GEN_DIR}/make_npunet)
add_custom_command(
  OUTPUT ${FX_MAKE_NPUNET}
  COMMAND ${FX_HOST_CXX} -std=c++20 -O2 -Wall -Wextra -I${FX_ML_DIR}/include -I${FX_NPU_SUPPORT}
          ${FX_ML_DIR}/tools/make_npunet.cc -o ${FX_MAKE_NPUNET}
  DEPENDS ${FX_ML_DIR}/tools/make_npunet.cc ${FX_ML_DIR}/include/npunet.h ${FX_NPU_SUPPORT}/npu_vela.h
          ${FX_NPU_SUPPORT}/npu_softmax.h ${FX_NPU_SUPPORT}/tflite_int8.h
          ${FX_NPU_SUPPORT}/npu_weights.h ${FX_NPU_SUPPORT}/npu_stream.h
  COMMENT "Building make_npunet (host)")
foreach(product u55 u65)
  set(bin ${FX_ML_GEN_DIR}/npunet_${product}.bin)
  add_custom_command(OUTPUT ${bin} COMMAND ${FX_MAKE_NPUNET} ${bin} ${product} DEPENDS ${FX_MAKE_NPUNET}
                     COMMENT "Generating npunet for the Ethos-${product}")
  add_custom_target(npunet_${product} ALL DEPENDS ${bin})
  fx_ml_model_asm(FX_NPUNET_ASM_${product} npunet_${product} ${bin} .npu_model)
endforeach()

# <board> <NPU base> <IRQ> <product code> <blob> <fixture name> <more defines, comma-separated>:
# the benchmark's CPU-only and NPU-only builds on mps3-an547, the pitfalls' builds on the Alif,
# the D-cache's on both M55 boards.
foreach(entry "mps3-an547;0x58102000;56;0;u55;npu_inference;NPUNET_ONLY=0"
              "alif-e8-hp;0x400E1000;55;0;u55;npu_inference;NPUNET_ONLY=0"
              "imx93-cm33;0x4A900000;178;1;u65;npu_inference;NPUNET_ONLY=0"
              "mps3-an547;0x58102000;56;0;u55;bench_npunet_cpu;NPUNET_ONLY=1"
              "mps3-an547;0x58102000;56;0;u55;bench_npunet_npu;NPUNET_ONLY=2"
              "alif-e8-hp;0x400E1000;55;0;u55;npu_arena_local;NPUNET_ARENA_DTCM=1"
              "alif-e8-hp;0x400E1000;55;0;u55;npu_arena_global;NPUNET_ARENA_DTCM=1,NPUNET_REMAP=1"
              "alif-e8-hp;0x400E1000;55;0;u55;npu_weights_ospi;NPUNET_WEIGHTS_AT=0xC0000000u"
              "mps3-an547;0x58102000;56;0;u55;npu_dcache_unmaintained;NPUNET_DCACHE=1"
              "mps3-an547;0x58102000;56;0;u55;npu_dcache_maintained;NPUNET_DCACHE=2"
              "mps3-an547;0x58102000;56;0;u55;npu_dcache_mpu_uncached;NPUNET_DCACHE=3"
              "alif-e8-hp;0x400E1000;55;0;u55;npu_dcache_unmaintained;NPUNET_DCACHE=1"
              "alif-e8-hp;0x400E1000;55;0;u55;npu_dcache_maintained;NPUNET_DCACHE=2")
  list(GET entry 0 board)
  list(GET entry 1 base)
  list(GET entry 2 irq)
  list(GET entry 3 product)
  list(GET entry 4 blob)
  list(GET entry 5 name)
  list(GET entry 6 defines)
  string(REPLACE "," ";" defines "${defines}")
  set(target ${board}_${name})
  add_executable(${target} ${FX_ML_DIR}/src/npu_inference.c ${FX_ML_DIR}/src/npunet.c ${FX_COMMON_DIR}/npu_driver.c
                 ${FX_NPUNET_ASM_${blob}})
  target_include_directories(${target} PRIVATE ${FX_ML_DIR}/include ${FX_COMMON_DIR})
  target_compile_options(${target} PRIVATE ${FX_CPU_FLAGS_${board}} ${FX_COMMON_FLAGS} -fno-tree-loop-distribute-patterns)
  target_compile_definitions(${target} PRIVATE NPU_BASE=${base}u NPU_IRQn=${irq} NPU_PRODUCT=${product} ${defines})
  target_link_libraries(${target} PRIVATE fx_common_${board})
  add_dependencies(${target} npunet_${blob})
  fx_ml_link(${target} ${board} ${name} ${FX_BOARDS_DIR}/${board}_npu.ld)
endforeach()
