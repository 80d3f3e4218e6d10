/* A deterministic generator of large straight-line QPU blocks for the packer (bench/bench_packbig.c and
 * tests/test_pack.c; docs/PERFORMANCE.md "Packer speed on large blocks").  Not a program itself.
 *
 * packgen(n, seed, out) appends n operations, one per line, with no label or branch: one basic block.  A
 * linear congruential generator (seed) picks each operation among add-ALU ops (integer and float), mul-ALU
 * ops, moves and 32-bit load immediates; destinations among the accumulators r0..r3 and the physical
 * registers ra0..ra31 / rb0..rb31; sources among r0..r5, one regfile-A and one regfile-B register at most per
 * operation (one read port each, VideoCore IV Reference Guide, "Register file": each regfile has one read
 * port), or a small immediate in place of the regfile-B read.  About half of the sources are the
 * destination of one of the last 8 operations (dependent chains, regfile read-after-write distances), the
 * rest any register (independent work).  r4 is written only by the SFU, which is left out (its latency is
 * covered by tests/test_pack.c); ra/rb 32.. are peripherals, left out too. */
#ifndef BENCH_PACKGEN_H
#define BENCH_PACKGEN_H
#include <stdint.h>
#include <stdio.h>
#include "tsr.h"

struct packgen { uint64_t s; int recent[8]; int nrecent; };

static inline unsigned packgen_next(struct packgen *g, unsigned n)
{
    g->s = g->s * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(g->s >> 33) % n;
}

/* Register numbers: 0..3 r0..r3, 4..35 ra0..ra31, 36..67 rb0..rb31, 68 r4, 69 r5 (sources only). */
static inline void packgen_reg(int r, char *buf)   /* buf: 16 bytes */
{
    if (r < 4)
        snprintf(buf, 16, "r%d", r);
    else if (r < 36)
        snprintf(buf, 16, "ra%d", r - 4);
    else if (r < 68)
        snprintf(buf, 16, "rb%d", r - 36);
    else
        snprintf(buf, 16, "r%d", r - 64);
}

/* A source register: a recent destination about half the time, else any; *a / *b: the regfile A / B
 * register already read by this operation (-1: none), which a second source must reuse. */
static inline int packgen_src(struct packgen *g, int *a, int *b)
{
    int r;
    if (g->nrecent && packgen_next(g, 2))
        r = g->recent[packgen_next(g, (unsigned)g->nrecent)];
    else
        r = (int)packgen_next(g, 70);
    if (r >= 4 && r < 36) {
        if (*a >= 0 && *a != r)
            r = (int)packgen_next(g, 4);
        else
            *a = r;
    } else if (r >= 36 && r < 68) {
        if (*b >= 0 && *b != r)
            r = (int)packgen_next(g, 4);
        else
            *b = r;
    }
    return r;
}

static inline void packgen(unsigned n, uint64_t seed, struct tsr_buf *out)
{
    static const char *const addops[] = { "add", "sub", "fadd", "fsub", "fmin", "fmax", "and", "or", "xor",
                                          "shl", "shr", "asr", "min", "max", "v8adds", "v8subs" };
    static const char *const mulops[] = { "fmul", "mul24", "v8muld", "v8min", "v8max", "v8adds" };
    struct packgen g = { seed * 2 + 1, { 0 }, 0 };
    char d[16], s1[16], s2[16];
    for (unsigned i = 0; i < n; i++) {
        int dst = (int)packgen_next(&g, 68), a = -1, b = -1;
        packgen_reg(dst, d);
        unsigned kind = packgen_next(&g, 16);
        if (kind < 2) {
            tsr_buf_printf(out, "    mov %s, 0x%08x\n", d, (unsigned)(g.s >> 17));
        } else {
            packgen_reg(packgen_src(&g, &a, &b), s1);
            if (kind < 4) {
                tsr_buf_printf(out, "    mov %s, %s\n", d, s1);
            } else {
                if (b < 0 && packgen_next(&g, 8) == 0)
                    snprintf(s2, sizeof s2, "%u", packgen_next(&g, 16));
                else
                    packgen_reg(packgen_src(&g, &a, &b), s2);
                if (kind < 11)
                    tsr_buf_printf(out, "    %s %s, %s, %s\n", addops[packgen_next(&g, 16)], d, s1, s2);
                else
                    tsr_buf_printf(out, "    %s %s, %s, %s\n", mulops[packgen_next(&g, 6)], d, s1, s2);
            }
        }
        g.recent[g.nrecent < 8 ? g.nrecent++ : (int)packgen_next(&g, 8)] = dst;
    }
}
#endif
