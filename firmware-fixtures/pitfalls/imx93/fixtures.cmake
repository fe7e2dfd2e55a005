# NXP i.MX93 Cortex-M33 pitfalls (issue 6, pitfalls 6-7): the ExecuTorch runner of seed
# 002 with the model in DDR, loaded by the host. Included by ../../CMakeLists.txt after
# ml/fixtures.cmake (tinynet kernels, fx_ml_link).
#   imx93-cm33/et_runner             pools big enough (method 32 KiB, temp 8 KiB)
#   imx93-cm33/et_runner_small_pools the seed's pools (method 16 KiB, temp 8 KiB)
if(NOT COMMAND fx_ml_link)
  return()
endif()
set(FX_IMX93_DIR ${CMAKE_CURRENT_LIST_DIR})
fx_ml_kernels(imx93-cm33)
foreach(variant IN ITEMS et_runner et_runner_small_pools)
  set(target imx93-cm33_${variant})
  add_executable(${target} ${FX_IMX93_DIR}/et_runner.c)
  target_compile_options(${target} PRIVATE ${FX_CPU_FLAGS_imx93-cm33} ${FX_COMMON_FLAGS})
  target_link_libraries(${target} PRIVATE fx_common_imx93-cm33 tinynet_imx93-cm33)
  fx_ml_link(${target} imx93-cm33 ${variant} ${FX_BOARDS_DIR}/imx93-cm33.ld)
endforeach()
# The seed's CMakeLists.txt: ET_ARM_BAREMETAL_METHOD_ALLOCATOR_POOL_SIZE=0x4000 (16KB),
# ET_ARM_BAREMETAL_SCRATCH_TEMP_ALLOCATOR_POOL_SIZE=0x2000 (8KB).
target_compile_definitions(imx93-cm33_et_runner_small_pools PRIVATE
  ET_ARM_BAREMETAL_METHOD_ALLOCATOR_POOL_SIZE=0x4000
  ET_ARM_BAREMETAL_SCRATCH_TEMP_ALLOCATOR_POOL_SIZE=0x2000)
