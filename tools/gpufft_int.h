/* Internals shared by the GPU_FFT host harness (gpufft.c) and its diagnosis (gpufft_diag.c); not a
 * public header. */
#ifndef GPUFFT_INT_H
#define GPUFFT_INT_H

#include <stdint.h>
#include <string.h>

#include "gpufft.h"

/* Formats a message into err (GPUFFT_ERRLEN bytes, when err is not NULL); returns -1. */
int gpufft_fail(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The VideoCore bus address of a physical address (the alias GPU_FFT's host code uses). */
static inline uint32_t gpufft_bus(uint32_t phys)
{
    return GPUFFT_BUS_ALIAS | phys;
}

/* Stores a 32-bit word at byte offset `at` of the simulated memory (host byte order = little-endian). */
static inline void gpufft_put32(struct gpufft_mem *mm, uint32_t at, uint32_t v)
{
    memcpy(mm->mem + at, &v, 4);
}

#endif
