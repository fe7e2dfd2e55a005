# STM32 pitfalls (issue 6, pitfalls 8-12). Included by ../../CMakeLists.txt after
# ml/fixtures.cmake (tinynet kernels, the model blob, fx_ml_link).
#   stm32h747-cm7/h7_sdram_activations         FMC SDRAM brought up before the SDRAM pool is used (8, fixed)
#   stm32h747-cm7/h7_sdram_activations_early   the pool used before the display path inits the SDRAM (8, broken)
#   stm32h747-cm7/h7_camera_app                camera buffers in SDRAM, H747 AXIRAM size (9, fixed)
#   stm32h747-cm7/h7_camera_app_wrong_axiram   camera buffers in AXIRAM, linked for a 1 MiB AXIRAM (9, broken)
#   stm32h747-cm7/h7_camera_dma                the crop copied by DMA2 into the SDRAM input buffer (issue 36)
#   stm32h747-cm7/h7_camera_dma_dtcm           ... into an input buffer in DTCM, which DMA2 cannot reach
#   stm32h747-cm7/h7_camera_dma_dcache         ... with the D-cache on and the SDRAM cacheable, maintained
#   stm32h747-cm7/h7_camera_dma_dirty          ... not maintained: DMA2 reads under the CPU's dirty lines
#   stm32h747-cm7/h7_camera_dma_stale          ... the input cleared first, not invalidated: stale input
#   stm32n657/n6_npu_app                       AXISRAM5 enabled, XSPI2 memory-mapped (10-12, fixed)
#   stm32n657/n6_npu_app_no_axisram5           AXISRAM5 left shut down (10, broken)
#   stm32n657/n6_npu_app_no_xspi_mmap          XSPI2 left in indirect mode (11, broken)
#   stm32n657/n6_npu_app_xspi_not_enabled      XSPI2 memory-mapped but not enabled (11, broken)
#   stm32n657/n6_dma_weights                   the weights copied to AXISRAM5 by HPDMA1 (issue 36)
#   stm32n657/n6_dma_weights_no_xspi_mmap      the same with XSPI2 in indirect mode: the DMA's bus error
#   stm32n657/n6_dma_weights_stale             the D-cache on, the copy's destination read before: stale weights
#   stm32n657/n6_dma_weights_cache_fixed       ... and SCB_CleanInvalidateDCache_by_Addr after the copy (seed 004)
#   stm32n657/n6_dma_input(_dirty)             the CPU's input copied into the pool by HPDMA1, cleaned first (or not)
if(NOT COMMAND fx_ml_link)
  return()
endif()
set(FX_STM32_DIR ${CMAKE_CURRENT_LIST_DIR})

# fx_stm32_pitfall(<board> <name> <script> SOURCES <src...> [DEFS <defs...>] [MODEL])
function(fx_stm32_pitfall board name script)
  cmake_parse_arguments(P "MODEL" "" "SOURCES;DEFS" ${ARGN})
  set(target ${board}_${name})
  set(sources ${P_SOURCES})
  if(P_MODEL)
    list(APPEND sources ${FX_ML_BLOB_ASM})
  endif()
  add_executable(${target} ${sources})
  target_include_directories(${target} PRIVATE ${FX_STM32_DIR})
  target_compile_options(${target} PRIVATE ${FX_CPU_FLAGS_${board}} ${FX_COMMON_FLAGS})
  target_compile_definitions(${target} PRIVATE ${P_DEFS})
  target_link_libraries(${target} PRIVATE fx_common_${board} tinynet_${board})
  add_dependencies(${target} ml_model)
  fx_ml_link(${target} ${board} ${name} ${script} -L${FX_STM32_DIR})
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS
               ${FX_STM32_DIR}/h747_modelzoo_sections.ld ${FX_STM32_DIR}/h747_modelzoo.memory.ld
               ${FX_STM32_DIR}/h747_wrong_axiram.memory.ld)
endfunction()

fx_ml_kernels(stm32h747-cm7)
set(H7 ${FX_STM32_DIR}/h7_board.c)
fx_stm32_pitfall(stm32h747-cm7 h7_sdram_activations ${FX_STM32_DIR}/h747_modelzoo.ld MODEL
                 SOURCES ${FX_STM32_DIR}/h7_sdram_activations.c ${H7})
fx_stm32_pitfall(stm32h747-cm7 h7_sdram_activations_early ${FX_STM32_DIR}/h747_modelzoo.ld MODEL
                 SOURCES ${FX_STM32_DIR}/h7_sdram_activations.c ${H7} DEFS SDRAM_INIT_WITH_DISPLAY)
fx_stm32_pitfall(stm32h747-cm7 h7_camera_app ${FX_STM32_DIR}/h747_modelzoo.ld MODEL
                 SOURCES ${FX_STM32_DIR}/h7_camera_app.c ${H7})
fx_stm32_pitfall(stm32h747-cm7 h7_camera_app_wrong_axiram ${FX_STM32_DIR}/h747_wrong_axiram.ld MODEL
                 SOURCES ${FX_STM32_DIR}/h7_camera_app.c ${H7} DEFS CAMERA_BUFFERS_AXIRAM)
fx_stm32_pitfall(stm32h747-cm7 h7_camera_dma ${FX_STM32_DIR}/h747_modelzoo.ld MODEL
                 SOURCES ${FX_STM32_DIR}/h7_camera_app.c ${H7} DEFS RESIZE_DMA)
fx_stm32_pitfall(stm32h747-cm7 h7_camera_dma_dtcm ${FX_STM32_DIR}/h747_modelzoo.ld MODEL
                 SOURCES ${FX_STM32_DIR}/h7_camera_app.c ${H7} DEFS RESIZE_DMA RESCALED_IN_DTCM)
fx_stm32_pitfall(stm32h747-cm7 h7_camera_dma_dcache ${FX_STM32_DIR}/h747_modelzoo.ld MODEL
                 SOURCES ${FX_STM32_DIR}/h7_camera_app.c ${H7} DEFS RESIZE_DMA CAMERA_DCACHE=1)
fx_stm32_pitfall(stm32h747-cm7 h7_camera_dma_dirty ${FX_STM32_DIR}/h747_modelzoo.ld MODEL
                 SOURCES ${FX_STM32_DIR}/h7_camera_app.c ${H7} DEFS RESIZE_DMA CAMERA_DCACHE=2)
fx_stm32_pitfall(stm32h747-cm7 h7_camera_dma_stale ${FX_STM32_DIR}/h747_modelzoo.ld MODEL
                 SOURCES ${FX_STM32_DIR}/h7_camera_app.c ${H7} DEFS RESIZE_DMA CAMERA_DCACHE=3)

fx_ml_kernels(stm32n657)
set(N6 ${FX_STM32_DIR}/n6_npu_app.c)
fx_stm32_pitfall(stm32n657 n6_npu_app ${FX_STM32_DIR}/n6_npu.ld SOURCES ${N6})
fx_stm32_pitfall(stm32n657 n6_npu_app_no_axisram5 ${FX_STM32_DIR}/n6_npu.ld SOURCES ${N6}
                 DEFS SKIP_AXISRAM5_ENABLE)
fx_stm32_pitfall(stm32n657 n6_npu_app_no_xspi_mmap ${FX_STM32_DIR}/n6_npu.ld SOURCES ${N6}
                 DEFS SKIP_XSPI_MEMORY_MAPPED)
fx_stm32_pitfall(stm32n657 n6_npu_app_xspi_not_enabled ${FX_STM32_DIR}/n6_npu.ld SOURCES ${N6}
                 DEFS SKIP_XSPI_ENABLE)
fx_stm32_pitfall(stm32n657 n6_dma_weights ${FX_STM32_DIR}/n6_npu.ld SOURCES ${N6} DEFS DMA_WEIGHTS)
fx_stm32_pitfall(stm32n657 n6_dma_input ${FX_STM32_DIR}/n6_npu.ld SOURCES ${N6} DEFS DMA_INPUT=1)
fx_stm32_pitfall(stm32n657 n6_dma_input_dirty ${FX_STM32_DIR}/n6_npu.ld SOURCES ${N6} DEFS DMA_INPUT=2)
fx_stm32_pitfall(stm32n657 n6_dma_weights_no_xspi_mmap ${FX_STM32_DIR}/n6_npu.ld SOURCES ${N6}
                 DEFS DMA_WEIGHTS SKIP_XSPI_MEMORY_MAPPED)
fx_stm32_pitfall(stm32n657 n6_dma_weights_stale ${FX_STM32_DIR}/n6_npu.ld SOURCES ${N6} DEFS DMA_WEIGHTS DMA_DCACHE=1)
fx_stm32_pitfall(stm32n657 n6_dma_weights_cache_fixed ${FX_STM32_DIR}/n6_npu.ld SOURCES ${N6}
                 DEFS DMA_WEIGHTS DMA_DCACHE=2)
