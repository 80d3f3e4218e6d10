/* Integer and byte-lane primitives that are not inline in arith.h: the per-byte v8* operations
 * and the 32-bit saturating sub with swapped clamps.  Facts and sources are documented in arith.h. */
#include "arith.h"

/* Applies op to each of the four byte lanes of a and b. */
#define BYTEWISE(a, b, expr)                                                                    \
    do {                                                                                        \
        uint32_t r_ = 0;                                                                        \
        for (unsigned i_ = 0; i_ < 4; i_++) {                                                   \
            uint32_t x = tsr_byte_get((a), i_), y = tsr_byte_get((b), i_);                      \
            r_ |= ((uint32_t)(expr) & 0xffu) << (i_ * 8);                                       \
        }                                                                                       \
        return r_;                                                                              \
    } while (0)

uint32_t tsr_v8adds(uint32_t a, uint32_t b)
{
    BYTEWISE(a, b, x + y > 255 ? 255 : x + y);
}

uint32_t tsr_v8subs(uint32_t a, uint32_t b)
{
    BYTEWISE(a, b, x > y ? x - y : 0);
}

uint32_t tsr_v8min(uint32_t a, uint32_t b)
{
    BYTEWISE(a, b, x < y ? x : y);
}

uint32_t tsr_v8max(uint32_t a, uint32_t b)
{
    BYTEWISE(a, b, x > y ? x : y);
}

uint32_t tsr_v8muld(uint32_t a, uint32_t b)
{
    BYTEWISE(a, b, (x * y + 127) / 255);
}

uint32_t tsr_subs32_swapped(uint32_t a, uint32_t b)
{
    uint32_t r = a - b;
    if (!tsr_ovf_sub(a, b))
        return r;
    /* Overflow: the exact result has a's sign (a positive means it is above INT32_MAX); the
     * hardware clamps to the opposite end (vc4asm extensions.html, VC4C hw table SUB). */
    return (a >> 31) ? 0x7fffffffu : 0x80000000u;
}
