/*
 * A vector table in RAM with room for a device's interrupts past the 16 that
 * common/startup.c's table has (IRQ 0-239): the system entries copied from the table in
 * use, handlers installed by IRQ number, VTOR pointed at it (Armv7-M ARM B3.2.5, its
 * alignment to the table's size rounded up to a power of two), the NVIC lines enabled.
 */
#ifndef FIXTURES_RAM_VECTORS_H
#define FIXTURES_RAM_VECTORS_H

#include <stdint.h>

#define RAM_VECTORS 256
static uint32_t ram_vectors[RAM_VECTORS] __attribute__((aligned(4 * RAM_VECTORS)));

/* Copies the table VTOR points at (its 16 system entries and 16 IRQs) and moves VTOR. */
static inline void ram_vectors_install(void)
{
    volatile uint32_t *vtor = (volatile uint32_t *)0xE000ED08u;
    const volatile uint32_t *vectors = (const volatile uint32_t *)(uintptr_t)*vtor;
    for (uint32_t i = 0; i < 16 + 16; i++) ram_vectors[i] = vectors[i];
    __asm__ volatile("dsb" ::: "memory");
    *vtor = (uint32_t)(uintptr_t)ram_vectors;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
}

/* IRQ `n`'s handler, and its NVIC line enabled (NVIC_ISERn). */
static inline void ram_vectors_enable(uint32_t n, void (*handler)(void))
{
    ram_vectors[16 + n] = (uint32_t)(uintptr_t)handler;
    __asm__ volatile("dsb" ::: "memory");
    *(volatile uint32_t *)(0xE000E100u + 4u * (n / 32u)) = 1u << (n % 32u);
}

#endif
