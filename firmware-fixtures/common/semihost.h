/*
 * Minimal Arm semihosting layer for the faultline fixtures.
 *
 * Every call is a `bkpt 0xAB` (Thumb / M-profile) with r0 = operation number
 * and r1 = argument (a value or a pointer to a parameter block), result in r0.
 * See the Arm "Semihosting for AArch32 and AArch64" specification.
 */
#ifndef FAULTLINE_SEMIHOST_H
#define FAULTLINE_SEMIHOST_H

#include <stddef.h>
#include <stdint.h>

#define SH_SYS_OPEN           0x01u
#define SH_SYS_WRITEC         0x03u
#define SH_SYS_WRITE0         0x04u
#define SH_SYS_WRITE          0x05u
#define SH_SYS_READC          0x07u
#define SH_SYS_CLOCK          0x10u
#define SH_SYS_TIME           0x11u
#define SH_SYS_ERRNO          0x13u
#define SH_SYS_HEAPINFO       0x16u
#define SH_SYS_EXIT           0x18u
#define SH_SYS_EXIT_EXTENDED  0x20u

/* Reason codes for SYS_EXIT / SYS_EXIT_EXTENDED. */
#define ADP_Stopped_RunTimeError       0x20023u
#define ADP_Stopped_ApplicationExit    0x20026u

/* Raw call: r0 = op, r1 = arg; returns r0. */
uint32_t sh_call(uint32_t op, uintptr_t arg);

void     sh_writec(char c);                               /* SYS_WRITEC  */
void     sh_write0(const char *s);                        /* SYS_WRITE0  */
/* SYS_WRITE to fd 1 (stdout) or 2 (stderr), via ":tt" handles opened with
 * SYS_OPEN (mode 4 = "w" -> stdout, mode 8 = "a" -> stderr), like newlib.
 * Returns the number of bytes NOT written (0 on success), or -1. */
int32_t  sh_write(int fd, const void *buf, size_t len);
int32_t  sh_readc(void);                                  /* SYS_READC   */
int32_t  sh_clock(void);                                  /* SYS_CLOCK (centiseconds) */
uint32_t sh_time(void);                                   /* SYS_TIME (s since epoch) */
int32_t  sh_errno(void);                                  /* SYS_ERRNO   */
/* SYS_HEAPINFO: block[0..3] = heap base, heap limit, stack base, stack limit */
void     sh_heapinfo(uint32_t block[4]);

/* SYS_EXIT_EXTENDED {ADP_Stopped_ApplicationExit, status}. */
__attribute__((noreturn)) void sh_exit(int status);
/* Plain SYS_EXIT with r1 = reason code (QEMU: 0x20026 -> exit 0, else 1). */
__attribute__((noreturn)) void sh_exit_reason(uint32_t reason);

/* Helpers (SYS_WRITE0 based). */
void sh_puthex32(uint32_t v);                /* "0x%08x" */
void sh_puts_hex(const char *prefix, uint32_t v); /* prefix, "0x%08x", "\n" */

#endif
