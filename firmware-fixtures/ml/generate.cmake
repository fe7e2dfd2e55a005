# tinynet's generated inputs for a cross project: the model blob and the test image, made
# by host programs. Included by fixtures.cmake (Arm) and ../riscv/CMakeLists.txt (RV32);
# each project makes its own copy under its binary directory, from the same sources.
#
# Provides:
#   FX_ML_DIR, FX_ML_GEN_DIR (<binary dir>/ml), FX_ML_MAKE_MODEL (host generator),
#   FX_ML_MODEL_BIN (the blob), target ml_model (builds the blob),
#   FX_ML_MAKE_INPUT (host program: make_input OUT.bin writes the test image),
#   fx_ml_model_asm(<out var> <name> <bin> [<section>])
#                                          -> an assembly source that .incbin's <bin>
set(FX_ML_DIR ${CMAKE_CURRENT_LIST_DIR})
set(FX_ML_GEN_DIR ${CMAKE_BINARY_DIR}/ml)
file(MAKE_DIRECTORY ${FX_ML_GEN_DIR})

# The generator and the input writer are HOST programs: the cross toolchain cannot build
# them, so they are compiled here with the host C compiler. The top-level project builds
# the same sources (ml/host.cmake) for the tests; both produce the same bytes (integer-only).
find_program(FX_HOST_CC NAMES cc gcc REQUIRED NO_CMAKE_FIND_ROOT_PATH)

# fx_ml_host_tool(<var> <name>): tools/<name>.c with the kernels, built for the host; its
# path in <var>.
function(fx_ml_host_tool var name)
  set(exe ${FX_ML_GEN_DIR}/${name})
  add_custom_command(
    OUTPUT ${exe}
    COMMAND ${FX_HOST_CC} -O2 -Wall -Wextra -I${FX_ML_DIR}/include
            ${FX_ML_DIR}/tools/${name}.c ${FX_ML_DIR}/src/tinynet.c -o ${exe}
    DEPENDS ${FX_ML_DIR}/tools/${name}.c ${FX_ML_DIR}/src/tinynet.c ${FX_ML_DIR}/include/tinynet.h
    COMMENT "Building tinynet's ${name} (host)")
  set(${var} ${exe} PARENT_SCOPE)
endfunction()

fx_ml_host_tool(FX_ML_MAKE_MODEL make_model)
set(FX_ML_MODEL_BIN ${FX_ML_GEN_DIR}/model.bin)
add_custom_command(
  OUTPUT ${FX_ML_MODEL_BIN}
  COMMAND ${FX_ML_MAKE_MODEL} ${FX_ML_MODEL_BIN}
  DEPENDS ${FX_ML_MAKE_MODEL}
  COMMENT "Generating the tinynet model blob")
add_custom_target(ml_model ALL DEPENDS ${FX_ML_MODEL_BIN})

# The fixed test image (tinynet_make_input, TINYNET_TEST_SEED) as a file, for firmware
# that reads its input from memory the host writes (a scenario's load: step).
fx_ml_host_tool(FX_ML_MAKE_INPUT make_input)

# Writes ${FX_ML_GEN_DIR}/<name>_blob.S, which .incbin's <bin> into <section>.
function(fx_ml_model_asm out name bin)
  set(section .rodata.tinynet_model)
  if(ARGC GREATER 3)
    set(section ${ARGV3})
  endif()
  set(asm ${FX_ML_GEN_DIR}/${name}_blob.S)
  file(CONFIGURE OUTPUT ${asm} CONTENT
"#define MODEL_BIN \"${bin}\"\n#define MODEL_SECTION ${section}\n#include \"${FX_ML_DIR}/src/model_blob.S\"\n")
  set_source_files_properties(${asm} PROPERTIES OBJECT_DEPENDS "${bin};${FX_ML_DIR}/src/model_blob.S")
  set(${out} ${asm} PARENT_SCOPE)
endfunction()
