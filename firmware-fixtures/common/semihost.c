#include "semihost.h"

uint32_t sh_call(uint32_t op, uintptr_t arg)
{
    register uint32_t r0 __asm__("r0") = op;
    register uintptr_t r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

void sh_writec(char c)
{
    sh_call(SH_SYS_WRITEC, (uintptr_t)&c);
}

void sh_write0(const char *s)
{
    sh_call(SH_SYS_WRITE0, (uintptr_t)s);
}

static size_t sh_strlen(const char *s)
{
    size_t n = 0;
    while (s[n] != '\0')
        n++;
    return n;
}

static int32_t sh_open(const char *name, uint32_t mode)
{
    uint32_t block[3];
    block[0] = (uint32_t)(uintptr_t)name;
    block[1] = mode;
    block[2] = (uint32_t)sh_strlen(name);
    return (int32_t)sh_call(SH_SYS_OPEN, (uintptr_t)block);
}

/* Handles for fd 0/1/2; opened lazily in the same order as newlib does. */
static int32_t sh_handles[3];
static int sh_handles_open;

static void sh_open_std(void)
{
    if (sh_handles_open)
        return;
    sh_handles_open = 1;
    sh_handles[0] = sh_open(":tt", 0); /* "r"  -> stdin  */
    sh_handles[1] = sh_open(":tt", 4); /* "w"  -> stdout */
    sh_handles[2] = sh_open(":tt", 8); /* "a"  -> stderr */
}

int32_t sh_write(int fd, const void *buf, size_t len)
{
    uint32_t block[3];
    if (fd < 0 || fd > 2)
        return -1;
    sh_open_std();
    if (sh_handles[fd] == -1)
        return -1;
    block[0] = (uint32_t)sh_handles[fd];
    block[1] = (uint32_t)(uintptr_t)buf;
    block[2] = (uint32_t)len;
    return (int32_t)sh_call(SH_SYS_WRITE, (uintptr_t)block);
}

int32_t sh_readc(void)
{
    return (int32_t)sh_call(SH_SYS_READC, 0);
}

int32_t sh_clock(void)
{
    return (int32_t)sh_call(SH_SYS_CLOCK, 0);
}

uint32_t sh_time(void)
{
    return sh_call(SH_SYS_TIME, 0);
}

int32_t sh_errno(void)
{
    return (int32_t)sh_call(SH_SYS_ERRNO, 0);
}

void sh_heapinfo(uint32_t block[4])
{
    /* r1 points at a word that holds the address of the 4-word block. */
    uint32_t *ptr = block;
    sh_call(SH_SYS_HEAPINFO, (uintptr_t)&ptr);
}

void sh_exit(int status)
{
    uint32_t block[2];
    block[0] = ADP_Stopped_ApplicationExit;
    block[1] = (uint32_t)status;
    sh_call(SH_SYS_EXIT_EXTENDED, (uintptr_t)block);
    for (;;)
        __asm__ volatile("" ::: "memory");
}

void sh_exit_reason(uint32_t reason)
{
    sh_call(SH_SYS_EXIT, reason);
    for (;;)
        __asm__ volatile("" ::: "memory");
}

void sh_puthex32(uint32_t v)
{
    static const char digits[] = "0123456789abcdef";
    char buf[11];
    buf[0] = '0';
    buf[1] = 'x';
    for (int i = 0; i < 8; i++)
        buf[2 + i] = digits[(v >> (28 - 4 * i)) & 0xfu];
    buf[10] = '\0';
    sh_write0(buf);
}

void sh_puts_hex(const char *prefix, uint32_t v)
{
    sh_write0(prefix);
    sh_puthex32(v);
    sh_write0("\n");
}
