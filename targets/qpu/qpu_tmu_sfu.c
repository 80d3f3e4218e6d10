/* VideoCore IV QPU peripherals: the TMU as a direct memory reader and the SFU. */
#include "qpu_periph_int.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* ---- TMU ---------------------------------------------------------------------------------- */

void qpu_tmu_reset(struct qpu_periph *p)
{
    memset(p->tmu, 0, sizeof p->tmu);
    p->noswap = 0;
}

/* QPUs 2 and 3 of each slice (of 4) use TMU1 for t0* / ldtmu0 and TMU0 for t1* / ldtmu1 unless
 * tmu_noswap is set (doe300/VC4C @ src/tools/Emulator.cpp TMUs::toRealTMU: "(qpu.ID % 4) >= 2 &&
 * !tmuNoSwap -> tmu ^ 1"; [QPUMD] Latencies 3).  Each QPU has its own request/response queues, so
 * the swap changes which unit serves a QPU, never which data it gets: GPU_FFT does not depend on
 * it (it never writes tmu_noswap - see gpu_fft.qinc and gpu_fft_trans.qasm - and its transpose
 * pairs every t1s with an ldtmu1). */
unsigned qpu_periph_tmu_phys(const struct qpu_periph *p, unsigned tmu)
{
    unsigned t = tmu & 1u;
    return (p->num % 4 >= 2 && !p->noswap) ? t ^ 1u : t;
}

unsigned qpu_periph_tmu_pending(const struct qpu_periph *p, unsigned tmu)
{
    return p->tmu[qpu_periph_tmu_phys(p, tmu)].count;
}

/* Writes to t0s..t1b (waddr 56..63, jonasarrow/mesa vc4_qpu_defines.h QPU_W_TMU0_S..TMU1_B).
 * Only the direct mode is modelled: "a lone s write is a direct 32-bit memory read at address s,
 * per element, and consumes no uniform" ([QPUMD] Latencies 3, from jonasarrow/mesa @
 * src/gallium/drivers/vc4/kernel/vc4_validate_shaders.c check_tmu_write: is_direct = s write with
 * no t/r/b written before it).  Writing t/r/b starts a texture lookup, which would consume one
 * uniform per register (same file) and needs the texture unit: not modelled, error.
 * Addresses are aligned down to 4 bytes as VC4C's emulator does (Memory::readWord "will be
 * truncated to align with word-boundaries").  The FIFO takes QPU_TMU_FIFO_DEPTH = 8 requests
 * ([ADD] "Section 4: TMU FIFO": "can hold up to 8 slots supposedly ... unreliable to use more
 * than 4"): the 9th is an error, the 5th..8th leave a warning.  Lanes whose write condition
 * failed still enqueue ([ADD] "the TMU/VPM fifo is triggered unconditional ... with undefined
 * data"): we read nothing for them and deliver 0. */
int qpu_tmu_write(struct qpu_periph *p, unsigned addr, const uint32_t v[QPU_LANES], uint16_t lanemask)
{
    unsigned tmu = (addr - 56) / 4, reg = (addr - 56) % 4;
    if (reg != 0) {
        static const char regs[4] = {'s', 't', 'r', 'b'};
        return qpu_err(p, "QPU %u: TMU texture lookup (write to t%u%c) not modelled: only direct "
                          "memory reads through t%us", p->num, tmu, regs[reg], tmu);
    }
    unsigned phys = qpu_periph_tmu_phys(p, tmu);
    struct qpu_tmu_fifo *f = &p->tmu[phys];
    if (f->count >= QPU_TMU_FIFO_DEPTH)
        return qpu_err(p, "QPU %u: TMU%u FIFO overflow: more than %u outstanding requests", p->num,
                       tmu, QPU_TMU_FIFO_DEPTH);
    uint32_t data[QPU_LANES];
    for (unsigned i = 0; i < QPU_LANES; i++) {
        data[i] = 0;
        if (!(lanemask & (1u << i)))
            continue;
        const uint8_t *src = qpu_bus_ptr(p->m, v[i] & ~3u, 4);
        if (!src)
            return qpu_err(p, "QPU %u: TMU%u read outside memory at 0x%08x (lane %u)", p->num,
                           tmu, v[i], i);
        data[i] = qpu_load32(src);
    }
    if (lanemask != 0xFFFFu)
        qpu_warn(p, "QPU %u: conditional write to t%us: lanes outside the condition get undefined "
                    "data (modelled as 0)", p->num, tmu);
    memcpy(f->data[(f->head + f->count) % QPU_TMU_FIFO_DEPTH], data, sizeof data);
    f->count++;
    if (f->count > QPU_TMU_FIFO_RELIABLE)
        qpu_warn(p, "QPU %u: %u outstanding TMU%u requests: more than %u is unreliable on hardware",
                 p->num, f->count, tmu, QPU_TMU_FIFO_RELIABLE);
    return QPU_IO_OK;
}

/* ldtmu0 / ldtmu1 (signals 10 / 11): pop the oldest response of that (logical) TMU into r4. */
int qpu_tmu_load(struct qpu_periph *p, unsigned tmu, uint32_t r4[QPU_LANES])
{
    struct qpu_tmu_fifo *f = &p->tmu[qpu_periph_tmu_phys(p, tmu)];
    if (f->count == 0)
        return qpu_err(p, "QPU %u: ldtmu%u with no outstanding TMU%u request", p->num, tmu, tmu);
    memcpy(r4, f->data[f->head], sizeof f->data[0]);
    f->head = (f->head + 1) % QPU_TMU_FIFO_DEPTH;
    f->count--;
    return QPU_IO_OK;
}

/* ---- SFU ---------------------------------------------------------------------------------- */

void qpu_sfu_reset(struct qpu_periph *p) { memset(p->sfu, 0, sizeof p->sfu); }

static float bits_to_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t float_to_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* One SFU operation on one lane; op = waddr 52 recip, 53 recipsqrt, 54 exp, 55 log.
 * Semantics from Idein/py-videocore @ APPENDIX.rst: "LOG and EXP are base 2", "RECIP(0) and
 * RECIPSQRT(0) become inf", "RECIPSQRT(x) is equal to 1/sqrt(abs(x))", "LOG(x) is equal to
 * log(abs(x))".  Denormal inputs count as zero and denormal results become zero ([ADD] "no inf,
 * nan, denormal support": "They are just truncated to 0").  The result is exact (double, rounded to
 * float) and then truncated to frac_bits fraction bits (see qpu_machine_set_sfu_bits).  NaN and
 * infinity propagate as the C library gives them: the hardware's handling is undocumented ([ADD]
 * says it "uses the binary representation of +-Inf"). */
uint32_t qpu_sfu_eval(unsigned op, uint32_t x, unsigned frac_bits)
{
    if ((x & 0x7F800000u) == 0)
        x &= 0x80000000u; /* flush denormal input to a signed zero */
    double d = bits_to_float(x), r;
    switch (op) {
    case 52: r = 1.0 / d; break;
    case 53: r = 1.0 / sqrt(fabs(d)); break;
    case 54: r = exp2(d); break;
    default: r = log2(fabs(d)); break;
    }
    /* keep the double -> float conversion in range (C11 6.3.1.5), rounding as IEEE would */
    if (fabs(r) >= 0x1.ffffffp+127)
        r = r > 0 ? INFINITY : -INFINITY;
    else if (fabs(r) > FLT_MAX)
        r = r > 0 ? FLT_MAX : -FLT_MAX;
    uint32_t u = float_to_bits((float)r);
    if ((u & 0x7F800000u) == 0)
        return u & 0x80000000u; /* flush denormal result */
    if ((u & 0x7F800000u) == 0x7F800000u)
        return u; /* inf / NaN untouched */
    if (frac_bits < 23)
        u &= ~((1u << (23 - frac_bits)) - 1u);
    return u;
}

/* Writing recip/recipsqrt/exp/log (waddr 52..55) at instruction N puts the result in r4 at the end
 * of N+2, readable from N+3 ([QPUMD] Latencies 2; doe300/VC4C @ src/tools/Emulator.cpp
 * SFU::startOperation "remainingCycles{2}").  Results queue in order; lanes whose condition failed
 * get a result computed from whatever value the simulator passed (undefined on hardware). */
int qpu_sfu_write(struct qpu_periph *p, unsigned addr, const uint32_t v[QPU_LANES], uint16_t lanemask)
{
    struct qpu_sfu_slot *slot = NULL;
    for (unsigned i = 0; i < QPU_SFU_LATENCY; i++)
        if (!p->sfu[i].valid) {
            slot = &p->sfu[i];
            break;
        }
    if (!slot)
        return qpu_err(p, "QPU %u: SFU pipeline full: more than %u SFU writes without qpu_io_step",
                       p->num, QPU_SFU_LATENCY);
    if (qpu_io_r4_busy(p))
        qpu_warn(p, "QPU %u: SFU write while an SFU result is in flight (r4 hazard)", p->num);
    if (lanemask != 0xFFFFu)
        qpu_warn(p, "QPU %u: conditional SFU write: lanes outside the condition get undefined "
                    "results", p->num);
    for (unsigned i = 0; i < QPU_LANES; i++)
        slot->v[i] = qpu_sfu_eval(addr, v[i], p->m->sfu_bits);
    slot->left = QPU_SFU_LATENCY;
    slot->valid = 1;
    return QPU_IO_OK;
}

void qpu_sfu_step(struct qpu_periph *p, uint32_t r4[QPU_LANES])
{
    /* Slots were filled at different instructions, so at most one lands per step (two SFU
     * writes in one instruction are a validator error; here the higher slot would win). */
    for (unsigned i = 0; i < QPU_SFU_LATENCY; i++) {
        struct qpu_sfu_slot *s = &p->sfu[i];
        if (s->valid && --s->left == 0) {
            memcpy(r4, s->v, sizeof s->v);
            s->valid = 0;
        }
    }
}
