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
