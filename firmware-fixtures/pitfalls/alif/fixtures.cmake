# Alif Ensemble E8 HP pitfalls (docs/pitfalls.md §1-5): an ExecuTorch-style deployment
# of tinynet, built like the Arm learning path's alif-image-classification project:
#   startup_M55_HP.c   CMSIS-style startup, no -fPIC, stays in MRAM
#   runtime/           the "precompiled" runtime: C++ with virtual operators, -fPIC (GOT)
#   app_main.c         the runner: pools in .bss.at_sram0.* / .bss.at_sram1, not PIC
#   linker_mram.ld.src the template's layout; one preprocessed script per variant
# Output: <binary dir>/alif-e8-hp/alif_<variant>.elf (+ .map, + .ld next to it).
# Needs ml/fixtures.cmake (included before this file by ../../CMakeLists.txt).
if(NOT COMMAND fx_ml_link)
  message(FATAL_ERROR "pitfalls/alif needs ml/fixtures.cmake")
endif()

enable_language(CXX)
foreach(cfg DEBUG RELEASE RELWITHDEBINFO MINSIZEREL)
  set(CMAKE_CXX_FLAGS_${cfg} "")
endforeach()

set(ALIF_DIR ${CMAKE_CURRENT_LIST_DIR})
set(ALIF_BOARD alif-e8-hp)
set(ALIF_OUT ${CMAKE_CURRENT_BINARY_DIR}/${ALIF_BOARD})
set(ALIF_CPU ${FX_CPU_FLAGS_${ALIF_BOARD}} -mthumb)

# The runtime library, position-independent like the precompiled ExecuTorch libraries:
# its globals and vtable addresses are reached through the GOT. tinynet's kernels are
# part of it (the operator library).
add_library(alif_runtime STATIC ${ALIF_DIR}/runtime/runtime.cc ${FX_ML_DIR}/src/tinynet.c)
target_include_directories(alif_runtime PUBLIC ${ALIF_DIR}/runtime ${FX_ML_DIR}/include)
target_compile_options(alif_runtime PRIVATE ${ALIF_CPU} -O2 -g -fPIC
  -ffunction-sections -fdata-sections -ffreestanding -fno-tree-loop-distribute-patterns -Wall -Wextra
  $<$<COMPILE_LANGUAGE:CXX>:-std=c++17 -fno-exceptions -fno-rtti -fno-threadsafe-statics -fno-use-cxa-atexit>)

# Startup: no -fPIC and no -ffunction-sections, so that its code is in `.text` of an
# object named *startup* and the linker script keeps it in MRAM.
add_library(alif_startup OBJECT ${ALIF_DIR}/startup_M55_HP.c)
target_include_directories(alif_startup PRIVATE ${FX_COMMON_DIR})
target_compile_options(alif_startup PRIVATE ${ALIF_CPU} -O2 -g -ffreestanding
  -fno-tree-loop-distribute-patterns -Wall -Wextra)

# The application (not PIC) and the board support it brings.
add_library(alif_app OBJECT ${ALIF_DIR}/app_main.c ${ALIF_DIR}/runtime_port.c
  ${FX_COMMON_DIR}/semihost.c ${FX_ML_DIR}/src/ml_console.c)
target_include_directories(alif_app PRIVATE ${FX_COMMON_DIR} ${ALIF_DIR}/runtime ${FX_ML_DIR}/include)
target_compile_options(alif_app PRIVATE ${ALIF_CPU} ${FX_COMMON_FLAGS} -fno-tree-loop-distribute-patterns)

# A model large enough to cross the template's 2 MiB slot (pitfall 3).
set(ALIF_LARGE_MODEL ${FX_ML_GEN_DIR}/model_2560k.bin)
add_custom_command(
  OUTPUT ${ALIF_LARGE_MODEL}
  COMMAND ${FX_ML_MAKE_MODEL} ${ALIF_LARGE_MODEL} 0x280000
  DEPENDS ${FX_ML_MAKE_MODEL}
  COMMENT "Generating a 2.5 MiB tinynet model blob")
add_custom_target(alif_large_model DEPENDS ${ALIF_LARGE_MODEL})
fx_ml_model_asm(ALIF_MODEL_ASM alif_model ${FX_ML_MODEL_BIN})
fx_ml_model_asm(ALIF_LARGE_MODEL_ASM alif_large_model ${ALIF_LARGE_MODEL})

# alif_variant(<name> [LARGE_MODEL] DEFS <-D...>...)
function(alif_variant name)
  cmake_parse_arguments(V "LARGE_MODEL" "" "DEFS" ${ARGN})
  set(script ${ALIF_OUT}/alif_${name}.ld)
  add_custom_command(
    OUTPUT ${script}
    COMMAND ${CMAKE_C_COMPILER} -E -P -x c -I${ALIF_DIR} ${V_DEFS}
            ${ALIF_DIR}/linker_mram.ld.src -o ${script}
    DEPENDS ${ALIF_DIR}/linker_mram.ld.src ${ALIF_DIR}/app_mem_regions.h
    COMMENT "Preprocessing the linker script for alif_${name}")
  add_custom_target(alif_${name}_ld DEPENDS ${script})
  set(target ${ALIF_BOARD}_alif_${name})
  if(V_LARGE_MODEL)
    set(model_asm ${ALIF_LARGE_MODEL_ASM})
    set(model_target alif_large_model)
  else()
    set(model_asm ${ALIF_MODEL_ASM})
    set(model_target ml_model)
  endif()
  add_executable(${target} ${model_asm} $<TARGET_OBJECTS:alif_startup> $<TARGET_OBJECTS:alif_app>)
  target_compile_options(${target} PRIVATE ${ALIF_CPU})
  target_link_libraries(${target} PRIVATE alif_runtime)
  add_dependencies(${target} alif_${name}_ld ${model_target})
  fx_ml_link(${target} ${ALIF_BOARD} alif_${name} ${script})
endfunction()

set(ALIF_ALL_FIXES -DFIX_GOT -DFIX_SRAM1_ZERO -DFIX_SRAM0_WILDCARD)

# The learning path's working configuration: every fix, HP image at 0x80000000.
alif_variant(fixed DEFS ${ALIF_ALL_FIXES})
# 1. .got / .got.plt not in the .data.at_dtcm copy.
alif_variant(got_broken DEFS -DFIX_SRAM1_ZERO -DFIX_SRAM0_WILDCARD)
# 2. SRAM1 missing from the zero table.
alif_variant(sram1_zero_broken DEFS -DFIX_GOT -DFIX_SRAM0_WILDCARD)
# 3. Linked for the template's HP slot 0x80200000 (2 MiB); the boot address is 0x80000000.
alif_variant(mram_base_broken DEFS ${ALIF_ALL_FIXES}
  -DAPP_MRAM_HP_BASE=0x80200000 -DAPP_MRAM_HP_SIZE=0x00200000)
#    A 2.5 MiB image at 0x80000000: crosses into the template's slot at 0x80200000.
alif_variant(large_model DEFS ${ALIF_ALL_FIXES} LARGE_MODEL)
# 4. The template's 8 KiB stack / 16 KiB heap (stack_heap_template: the heap runs out), 8 KiB
#    with a 64 KiB heap (stack_overflow: MSPLIM catches the overflow), and the fix.

alif_variant(stack_heap_template DEFS ${ALIF_ALL_FIXES} -DSTACK_AT_DTCM_BASE
  -DAPP_HP_STACK_SIZE=0x2000 -DAPP_HP_HEAP_SIZE=0x4000)
# The stack where the template puts it (top of DTCM, above the heap): the startup's MSPLIM
# catches the overflow.
alif_variant(stack_overflow DEFS ${ALIF_ALL_FIXES}
  -DAPP_HP_STACK_SIZE=0x2000 -DAPP_HP_HEAP_SIZE=0x10000)
alif_variant(stack_heap_fixed DEFS ${ALIF_ALL_FIXES} -DSTACK_AT_DTCM_BASE
  -DAPP_HP_STACK_SIZE=0x4000 -DAPP_HP_HEAP_SIZE=0x10000)
# 5. *(.bss.at_sram0.*) missing: the named pools fall into .bss (DTCM).
alif_variant(sram0_wildcard_broken DEFS -DFIX_GOT -DFIX_SRAM1_ZERO)
