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
