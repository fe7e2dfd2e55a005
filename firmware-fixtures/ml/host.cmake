# Host-native tinynet for the tests (included from tests/CMakeLists.txt):
#   tinynet_host        the kernels built for the host: the reference the firmware's
#                       output is compared with
#   tinynet_make_model  the model generator (the same source the cross project runs)
#   tinynet_model       builds ${CMAKE_BINARY_DIR}/ml/model.bin
set(TINYNET_DIR ${CMAKE_CURRENT_LIST_DIR})
set(TINYNET_MODEL_BIN ${CMAKE_BINARY_DIR}/ml/model.bin)

add_library(tinynet_host STATIC ${TINYNET_DIR}/src/tinynet.c)
target_include_directories(tinynet_host PUBLIC ${TINYNET_DIR}/include)
target_compile_options(tinynet_host PRIVATE ${FAULTLINE_WARNINGS})

add_executable(tinynet_make_model ${TINYNET_DIR}/tools/make_model.c)
target_link_libraries(tinynet_make_model PRIVATE tinynet_host)

add_custom_command(
  OUTPUT ${TINYNET_MODEL_BIN}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/ml
  COMMAND tinynet_make_model ${TINYNET_MODEL_BIN}
  DEPENDS tinynet_make_model
  COMMENT "Generating the tinynet model blob (host)")
add_custom_target(tinynet_model ALL DEPENDS ${TINYNET_MODEL_BIN})
