/*
 * h7_camera_app: pitfall 9 (seed 003: the model-zoo places CapturedImage_Buffer and
 * RescaledImage_Buffer in AXIRAM if they fit after the activations, else in SDRAM).
 *
 * The generator's `available_AXIRAM` and the linker script's AXIRAM must describe the
 * H747's 512 KiB. Built with CAMERA_BUFFERS_AXIRAM and linked with h747_wrong_axiram.ld
 * (a MEMORY block from an STM32H7A3/B3 project: AXIRAM 1 MiB), the QVGA capture buffer
 * is placed after 420 KiB of activations, past 0x24080000, and the link succeeds. The
 * fixed build puts both camera buffers in SDRAM (.sdram_section), as the generator does
 * when they do not fit, and brings the SDRAM up first.
 *
 * RESIZE_DMA: the crop is a DMA2 memory-to-memory copy, as ST's examples move camera
 * frames (issue 36). With RESCALED_IN_DTCM the network input buffer is placed in DTCM
 * (.dtcm_section), the fast memory a layout hand-tuned for speed picks, which the H7's
 * DMA1/DMA2 cannot reach: the stream stops with a transfer error (TEIF0).
 *
 * CAMERA_DCACHE (with RESIZE_DMA, issue 36): the caches on as SystemInit leaves them and
 * the SDRAM cacheable as ST's H7 examples' MPU_Config marks the FMC SDRAM (TEX 1, C, B:
 * Normal write-back, read- and write-allocate; the model zoo's own MPU set-up was not
 * read): the frame the CPU read out of the DCMI is in dirty D-cache lines when DMA2
 * copies the crop. CAMERA_DCACHE=1 cleans the crop before the copy and invalidates the
 * input after it (SCB_CleanDCache_by_Addr, SCB_InvalidateDCache_by_Addr); =2 leaves
 * both out: DMA2 copies SDRAM's old bytes and the network sees garbage; =3 cleans the crop
 * but clears the input buffer first (a memset before each frame) and never invalidates
 * it: the network reads the CPU's cached zeros, not what DMA2 wrote.
 *
 * The camera: DCMI in snapshot mode read out by the CPU (DCMI->DR, 4 bytes per read),
 * standing in for the sensor; the frame's first bytes are the fixed test image, so the
 * crop to the network input gives the same scores as the host reference.
 */
#include <stdint.h>

#include "h7_board.h"
#include "ml_console.h"
#include "semihost.h"
#include "tinynet.h"

extern const uint8_t tinynet_model[];

#define QVGA_RES_WIDTH  320u
#define QVGA_RES_HEIGHT 240u
#define RGB565_BPP      2u
#define CAM_FRAME_BYTES (QVGA_RES_WIDTH * QVGA_RES_HEIGHT * RGB565_BPP) /* 153600 */
#define NN_INPUT_BYTES  (32u * 32u * 3u)

#ifdef CAMERA_BUFFERS_AXIRAM
#define CAPTURED_SECTION ".CapturedImage_Buffer_AXIRAM"
#define RESCALED_SECTION ".RescaledImage_Buffer_AXIRAM"
#elif defined(RESCALED_IN_DTCM)
#define CAPTURED_SECTION ".CapturedImage_Buffer_SDRAM"
#define RESCALED_SECTION ".RescaledImage_Buffer_DTCM"
#else
#define CAPTURED_SECTION ".CapturedImage_Buffer_SDRAM"
#define RESCALED_SECTION ".RescaledImage_Buffer_SDRAM"
#endif

__attribute__((section(".NN_Activation_Buffer_AXIRAM"))) __attribute__((aligned(32)))
static uint8_t NN_Activation_Buffer_AXIRAM[420u * 1024u];
__attribute__((section(CAPTURED_SECTION))) __attribute__((aligned(32)))
static uint32_t CapturedImage_Buffer[CAM_FRAME_BYTES / 4];
__attribute__((section(RESCALED_SECTION))) __attribute__((aligned(32)))
static int8_t RescaledImage_Buffer[NN_INPUT_BYTES];

static int8_t scores[10];

/* One frame: the test image, then a gradient for the rest of the sensor's pixels. */
__attribute__((noinline)) static void DCMI_ReadFrame(uint32_t *frame, uint32_t words)
{
    static int8_t head[NN_INPUT_BYTES] __attribute__((aligned(4)));
    tinynet_make_input(head, NN_INPUT_BYTES, TINYNET_TEST_SEED);
    const uint32_t *h = (const uint32_t *)head;
    for (uint32_t i = 0; i < words; i++) {
        uint32_t dr = i < NN_INPUT_BYTES / 4 ? h[i] : i * 0x00010001u; /* DCMI->DR */
        frame[i] = dr;
    }
}

#ifndef RESIZE_DMA
/* Crop (aspect_ratio "crop"): the network input is the frame's first bytes. */
__attribute__((noinline)) static void ImageResize(const uint32_t *frame, int8_t *out, uint32_t n)
{
    const int8_t *src = (const int8_t *)frame;
    for (uint32_t i = 0; i < n; i++) out[i] = src[i];
}
#endif

#ifdef CAMERA_DCACHE
#include "dcache.h"
#include "mpu_v7.h"
#endif

int main(void)
{
    BSP_SDRAM_Init();
#ifdef CAMERA_DCACHE
    mpu_v7_region0(0xD0000000u, 25 /* 32 MiB */, MPU7_NORMAL_WBWA, 1);
    dcache_enable();
#endif
    sh_write0("camera: capture QVGA RGB565\n");
    DCMI_ReadFrame(CapturedImage_Buffer, CAM_FRAME_BYTES / 4);
    sh_write0("camera: frame done\n");
#ifdef RESIZE_DMA
#if CAMERA_DCACHE == 3
    for (uint32_t i = 0; i < NN_INPUT_BYTES; i++) RescaledImage_Buffer[i] = 0; /* the input cleared */
#endif
#if CAMERA_DCACHE == 1 || CAMERA_DCACHE == 3
    dcache_clean(CapturedImage_Buffer, NN_INPUT_BYTES);
#endif
    if (DMA2_Stream0_Copy(CapturedImage_Buffer, RescaledImage_Buffer, NN_INPUT_BYTES) != 0) {
        sh_write0("camera: DMA2 transfer error\n");
        return 3;
    }
#if CAMERA_DCACHE == 1
    dcache_invalidate(RescaledImage_Buffer, NN_INPUT_BYTES);
#endif
    sh_write0("camera: input copied by DMA2\n");
#else
    ImageResize(CapturedImage_Buffer, RescaledImage_Buffer, NN_INPUT_BYTES);
#endif

    int rc = tinynet_check(tinynet_model);
    if (rc != TINYNET_OK) return 10 + rc;
    rc = tinynet_run(tinynet_model, RescaledImage_Buffer, (int8_t *)NN_Activation_Buffer_AXIRAM,
                     sizeof NN_Activation_Buffer_AXIRAM, scores);
    if (rc != TINYNET_OK) return 10 + rc;
    ml_print_scores(scores, 10);
    return 0;
}
