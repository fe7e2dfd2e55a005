# Fixtures for `faultline check` (issue 7): one program, linker-script variants that each
# break one rule. Built for alif-e8-hp (Armv8-M mainline flags, see the board file).
set(FX_CHECK_DIR ${CMAKE_CURRENT_LIST_DIR})
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/check)
add_library(fx_check_pic OBJECT ${FX_CHECK_DIR}/pic.c)
target_compile_options(fx_check_pic PRIVATE ${FX_CPU_FLAGS_alif-e8-hp} ${FX_COMMON_FLAGS} -fPIC)

# check_variant(NAME DEFINES...): build/firmware-fixtures/alif-e8-hp/NAME.elf
function(check_variant name)
  set(ld ${CMAKE_CURRENT_BINARY_DIR}/check/${name}.ld)
  add_custom_command(OUTPUT ${ld}
    COMMAND ${CMAKE_C_COMPILER} -E -P -x c ${ARGN} ${FX_CHECK_DIR}/layout.ld.in -o ${ld}
    DEPENDS ${FX_CHECK_DIR}/layout.ld.in VERBATIM)
  set(target alif-e8-hp_${name})
  add_executable(${target} ${FX_CHECK_DIR}/layout.c $<TARGET_OBJECTS:fx_check_pic> ${ld})
  target_link_libraries(${target} PRIVATE fx_common_alif-e8-hp)
  target_compile_options(${target} PRIVATE ${FX_CPU_FLAGS_alif-e8-hp} ${FX_COMMON_FLAGS})
  target_link_options(${target} PRIVATE ${FX_CPU_FLAGS_alif-e8-hp} -mthumb -nostdlib -nostartfiles
    -T${ld} -Wl,--gc-sections -Wl,-Map=${CMAKE_CURRENT_BINARY_DIR}/alif-e8-hp/${name}.map)
  target_link_libraries(${target} PRIVATE gcc)
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ${name} SUFFIX .elf
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/alif-e8-hp LINK_DEPENDS ${ld})
endfunction()

check_variant(check_ok -DGOT_COPIED=1 -DSRAM1_ZEROED=1 -DSRAM0_WILDCARD=1)
check_variant(check_got_not_copied -DGOT_COPIED=0 -DSRAM1_ZEROED=1 -DSRAM0_WILDCARD=1)
check_variant(check_sram1_not_zeroed -DGOT_COPIED=1 -DSRAM1_ZEROED=0 -DSRAM0_WILDCARD=1)
check_variant(check_pool_misplaced -DGOT_COPIED=1 -DSRAM1_ZEROED=1 -DSRAM0_WILDCARD=0)
check_variant(check_linked_at_slot -DGOT_COPIED=1 -DSRAM1_ZEROED=1 -DSRAM0_WILDCARD=1 -DMRAM_ORIGIN=0x80200000)

# Public-layout fixtures (issue 20 item 8): the cases where `check` gave a false result.
#   mps3-an547/cmsis_crt0        CMSIS 5 ARMCM55 template (gcc_arm.ld.in; common/startup.c
#                                handing over to newlib's crt0 as __cmsis_start does):
#                                .bss left to crt0, the GOT inside .data: clean
#   mps3-an547/cmsis_no_crt0     the same layout, but the startup calls main itself: nothing
#                                zeroes .bss (a true zero-table warning)
#   mps3-an547/cmsis_got_orphan  the template as shipped (no *(.got*)): the -fPIC object's
#                                .got is an orphan in DTCM whose load image is in ITCM
#   alif-e8-hp/alif_reset_in_itcm the Alif MRAM template with its startup built with
#                                -ffunction-sections: Reset_Handler leaves *startup*(.text)
#                                and runs from ITCM, which only the copy table fills
set(FX_CMSIS_FLAGS ${FX_CPU_FLAGS_mps3-an547} ${FX_COMMON_FLAGS} -fno-tree-loop-distribute-patterns)
add_library(fx_check_pic_an547 OBJECT ${FX_CHECK_DIR}/pic.c)
target_compile_options(fx_check_pic_an547 PRIVATE ${FX_CPU_FLAGS_mps3-an547} ${FX_COMMON_FLAGS} -fPIC)

# cmsis_variant(NAME START_MAIN|CRT0 DEFINES...): build/firmware-fixtures/mps3-an547/NAME.elf
function(cmsis_variant name start)
  set(ld ${CMAKE_CURRENT_BINARY_DIR}/check/${name}.ld)
  add_custom_command(OUTPUT ${ld}
    COMMAND ${CMAKE_C_COMPILER} -E -P -x c ${ARGN} ${FX_CHECK_DIR}/gcc_arm.ld.in -o ${ld}
    DEPENDS ${FX_CHECK_DIR}/gcc_arm.ld.in VERBATIM)
  set(target mps3-an547_${name})
  add_executable(${target} ${FX_COMMON_DIR}/startup.c ${FX_CHECK_DIR}/crt0_app.c
    ${FX_COMMON_DIR}/semihost.c $<TARGET_OBJECTS:fx_check_pic_an547> ${ld})
  target_include_directories(${target} PRIVATE ${FX_COMMON_DIR})
  target_compile_options(${target} PRIVATE ${FX_CMSIS_FLAGS})
  if(start STREQUAL "START_MAIN")
    target_link_options(${target} PRIVATE -nostdlib -nostartfiles)
    target_link_libraries(${target} PRIVATE gcc)
  else()
    # newlib's crt0 (_start) and libc: what CMSIS 5's __cmsis_start hands over to.
    target_compile_definitions(${target} PRIVATE FX_START_CRT0)
    if(start STREQUAL "CRT0_RDIMON")
      target_link_options(${target} PRIVATE --specs=nano.specs --specs=rdimon.specs)
    else()
      target_link_options(${target} PRIVATE --specs=nano.specs --specs=nosys.specs)
    endif()
  endif()
  target_link_options(${target} PRIVATE ${FX_CPU_FLAGS_mps3-an547} -mthumb -T${ld} -Wl,--gc-sections
    -Wl,-Map=${CMAKE_CURRENT_BINARY_DIR}/mps3-an547/${name}.map)
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ${name} SUFFIX .elf
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/mps3-an547 LINK_DEPENDS ${ld})
endfunction()

cmsis_variant(cmsis_crt0 CRT0 -DGOT_IN_DATA=1)
cmsis_variant(cmsis_no_crt0 START_MAIN -DGOT_IN_DATA=1)
cmsis_variant(cmsis_got_orphan CRT0 -DGOT_IN_DATA=0)

set(FX_ALIF_TEMPLATE_DIR ${FX_CHECK_DIR}/../pitfalls/alif)
set(ld ${CMAKE_CURRENT_BINARY_DIR}/check/alif_reset_in_itcm.ld)
add_custom_command(OUTPUT ${ld}
  COMMAND ${CMAKE_C_COMPILER} -E -P -x c -I${FX_ALIF_TEMPLATE_DIR} -DFIX_GOT -DFIX_SRAM1_ZERO -DFIX_SRAM0_WILDCARD
          ${FX_ALIF_TEMPLATE_DIR}/linker_mram.ld.src -o ${ld}
  DEPENDS ${FX_ALIF_TEMPLATE_DIR}/linker_mram.ld.src ${FX_ALIF_TEMPLATE_DIR}/app_mem_regions.h VERBATIM)
add_executable(alif-e8-hp_alif_reset_in_itcm ${FX_ALIF_TEMPLATE_DIR}/startup_M55_HP.c ${FX_CHECK_DIR}/layout.c
  ${FX_COMMON_DIR}/semihost.c $<TARGET_OBJECTS:fx_check_pic> ${ld})
target_include_directories(alif-e8-hp_alif_reset_in_itcm PRIVATE ${FX_COMMON_DIR})
# FX_COMMON_FLAGS has -ffunction-sections: the startup's code goes to .text.Reset_Handler.
target_compile_options(alif-e8-hp_alif_reset_in_itcm PRIVATE ${FX_CPU_FLAGS_alif-e8-hp} ${FX_COMMON_FLAGS}
  -fno-tree-loop-distribute-patterns)
target_link_options(alif-e8-hp_alif_reset_in_itcm PRIVATE ${FX_CPU_FLAGS_alif-e8-hp} -mthumb -nostdlib
  -nostartfiles -T${ld} -Wl,--gc-sections -Wl,-Map=${CMAKE_CURRENT_BINARY_DIR}/alif-e8-hp/alif_reset_in_itcm.map)
target_link_libraries(alif-e8-hp_alif_reset_in_itcm PRIVATE gcc)
set_target_properties(alif-e8-hp_alif_reset_in_itcm PROPERTIES OUTPUT_NAME alif_reset_in_itcm SUFFIX .elf
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/alif-e8-hp LINK_DEPENDS ${ld})
# The template as QEMU users build it: semihosting's crt0 (rdimon: its _start sets up the
# heap and arguments before zeroing .bss, so its literal pool is 200 bytes in) and
# -ffunction-sections: .bss left to crt0, still clean (issue 37 item 6).
cmsis_variant(cmsis_crt0_rdimon CRT0_RDIMON -DGOT_IN_DATA=1)
target_compile_options(mps3-an547_cmsis_crt0_rdimon PRIVATE -ffunction-sections -fdata-sections)
# The same with a .bss that collects *(.bss) only, as FreeRTOS's MPS2 demo's does: the
# -fdata-sections .bss.NAME sections become orphans past __bss_end__, zeroed by nobody.
cmsis_variant(cmsis_bss_orphans CRT0_RDIMON -DGOT_IN_DATA=1 -DBSS_PLAIN=1)
target_compile_options(mps3-an547_cmsis_bss_orphans PRIVATE -ffunction-sections -fdata-sections)
