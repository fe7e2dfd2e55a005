/*
 * h7_sdram_activations: pitfall 8 (seed 003, model-zoo image classification on the
 * STM32H747I-DISCO). The generator (external_memory_mgt.py update_activation_c_code)
 * assigns each activation pool to AXIRAM while it fits, else to SDRAM; this model's
 * second pool went to `.NN_Activation_Buffer_SDRAM`, which the linker script puts in
 * `.sdram_section` at 0xD0000000. The network input lives in that pool
 * (AI_NETWORK_INPUTS_IN_ACTIVATIONS).
 *
 * In the model-zoo app the SDRAM is brought up by the display path (BSP_LCD_Init ->
 * BSP_SDRAM_Init: the LCD frame buffer `.Lcd_Display` is in SDRAM too). Built with
 * SDRAM_INIT_WITH_DISPLAY, the app runs the network before the display is initialised,
 * as an app whose display code was removed or moved after inference does: the first
 * store of the input into the SDRAM pool meets an FMC that was never set up.
 *
 * Prints the scores and their FNV-1a (ml_console.h); exits 0, or 10 + tinynet error.
 */
#include <stdint.h>

#include "h7_board.h"
#include "ml_console.h"
#include "semihost.h"
#include "tinynet.h"

extern const uint8_t tinynet_model[];

/* Pool 1 (heap_overlay_pool): the part of the activations that fitted AXIRAM. */
#define AI_ACTIVATION_1_SIZE_BYTES (420u * 1024u)
/* Pool 2: what no longer fitted, in SDRAM; tinynet's planned arena plus the input. */
#define AI_ACTIVATION_2_SIZE_BYTES (20u * 1024u + 32u * 32u * 3u)

__attribute__((section(".NN_Activation_Buffer_AXIRAM"))) __attribute__((aligned(32)))
static uint8_t NN_Activation_Buffer_AXIRAM[AI_ACTIVATION_1_SIZE_BYTES];
__attribute__((section(".NN_Activation_Buffer_SDRAM"))) __attribute__((aligned(32)))
static uint8_t NN_Activation_Buffer_SDRAM[AI_ACTIVATION_2_SIZE_BYTES];

static int8_t scores[10];

static void Display_Init(void)
{
    BSP_SDRAM_Init();  /* BSP_LCD_Init needs the frame buffer in SDRAM */
    sh_write0("display ready\n");
}

/* Writes the (fixed test) camera image into the network input tensor. */
__attribute__((noinline)) static void preprocess_input(int8_t *input, uint32_t n)
{
    tinynet_make_input(input, n, TINYNET_TEST_SEED);
}

int main(void)
{
    int8_t *input = (int8_t *)NN_Activation_Buffer_SDRAM;
    int8_t *arena = (int8_t *)NN_Activation_Buffer_SDRAM + 32u * 32u * 3u;
    const tinynet_header_t *h = (const tinynet_header_t *)tinynet_model;
    uint32_t n = h->input_h * h->input_w * h->input_c;

#ifndef SDRAM_INIT_WITH_DISPLAY
    Display_Init();
#endif
    (void)NN_Activation_Buffer_AXIRAM;
    sh_write0("ai init: activations AXIRAM + SDRAM\n");
    int rc = tinynet_check(tinynet_model);
    if (rc != TINYNET_OK) return 10 + rc;
    preprocess_input(input, n);
    rc = tinynet_run(tinynet_model, input, arena, 20u * 1024u, scores);
    if (rc != TINYNET_OK) return 10 + rc;
    ml_print_scores(scores, h->num_classes);
#ifdef SDRAM_INIT_WITH_DISPLAY
    Display_Init();
#endif
    return 0;
}
