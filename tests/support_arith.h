/* Helpers shared by the arithmetic tests (test_arith.c, test_arith_ieee.c): float bits, rounding modes. */
#ifndef TESTS_SUPPORT_ARITH_H
#define TESTS_SUPPORT_ARITH_H
#include <stdint.h>
#include <string.h>

#include "arith.h"

#define QPU TSR_FPMODE_FTZ_RTZ
#define QCVT TSR_FPMODE_FTZ_RNE
#define IEEE TSR_FPMODE_IEEE

#define N(t) (sizeof(t) / sizeof((t)[0]))
#define U(x) ((uint32_t)(int64_t)(x))

static inline uint32_t fb(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float bf(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* A mode rounding by `round` (TSR_RNE, TSR_RTZ, ...), flushing denormal inputs and outputs when ftz. */
static inline struct tsr_fpmode mode(unsigned round, int ftz)
{
    struct tsr_fpmode m = {0};
    m.round = round & 3;
    m.ftz_in = ftz;
    m.ftz_out = ftz;
    return m;
}
#endif
