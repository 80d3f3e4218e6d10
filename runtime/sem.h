/* Meaning of the semantics language's operators, conversions and built-ins, lane by lane: the one
 * definition both the generated simulators (gen/emit_sim.c emits calls of these inline functions
 * with constant selectors, which the C compiler folds) and the independent evaluator (mdl/eval.c,
 * which calls them with run-time selectors) use, so the two can only disagree through the code
 * that walks the description, which is what the differential fuzzer tests.
 *
 * Values are 32-bit patterns per lane (docs/mdl.md "Semantics"): u32/i32 two's complement, f32 as
 * binary32 bits, f16 as binary16 in the low 16 bits, bool as 0/1.
 *
 * Operator domains (enum tsr_dom), chosen from the operand types (the checker makes both operands
 * of one kind: both f32, or integers; mdl/check_expr.c):
 *   float    when both operands are f32;
 *   signed   otherwise when either operand is i32 (u32 and i32 mixed give i32);
 *   unsigned otherwise (u32, bool, fields).
 * `x >> n` is arithmetic only for an i32 x.  Integer +, -, * wrap; / and % by 0 give 0, INT_MIN / -1 gives INT_MIN (and % 0);
 * shifts by 32 or more give 0 (>> of an i32: the sign in every bit).  Float +, -, * use the
 * description's float mode (arith.h), float / and % are IEEE binary32 (round to nearest).
 * Float comparisons: unordered (NaN) is false except for !=.
 *
 * Conversions (MDL_E_CAST: u32() i32() f32() f16() bool()) reinterpret the bits (f16 keeps the low 16),
 * except bool(x), which is x != 0 (mdl/check_expr.c, mdl/consteval.c); value conversions are the
 * built-ins itof/ftoi (`float(x)` is itof).
 *
 * Float modes of descriptions (`isa { float NAME; }`, model.h `float_mode`): which struct
 * tsr_fpmode each float built-in uses.  TSR_FLOAT_IEEE: everything TSR_FPMODE_IEEE.
 * TSR_FLOAT_FTZ_RTZ: TSR_FPMODE_FTZ_RTZ, except f32tof16 and f2unorm8 (converting packs), which
 * round to nearest (TSR_FPMODE_FTZ_RNE); see arith.h for the sources.
 */
#ifndef TSR_SEM_H
#define TSR_SEM_H

#include <stdint.h>
#include <string.h>

#include "arith.h"

/* Small helpers the generated simulators call in every lane of many bundles (tsr_sem_cmp, tsr_sem_swizzle and the
 * float classifiers) are always inlined, so that tsr_sem_cmp's constant selectors (comparison, domain, float mode)
 * fold at each call: gcc otherwise keeps one out-of-line copy for a large <t>_sim_exec (about 12 instructions a
 * call).  A vertex program of the corpus through D->step: 17.2 M -> 13.8 M instructions for 1,000 runs; compiling
 * tegra_sim.c takes about 80 % more CPU time with gcc -O2 (17.6 -> 31.9 s).  Not in AddressSanitizer builds
 * (the sanitizer build and the fuzzers check behaviour, not speed): there clang took twice as long on
 * tegra_sim.c with it (202 -> 408 s), so they keep the compiler's choice (docs/PERFORMANCE.md "Per target"). */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TSR_SEM_NO_FORCED_INLINE 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define TSR_SEM_NO_FORCED_INLINE 1
#endif
#if defined(__GNUC__) && !defined(TSR_SEM_NO_FORCED_INLINE)
#define TSR_SEM_HOT static inline __attribute__((always_inline))
#else
#define TSR_SEM_HOT static inline
#endif

enum tsr_float_mode { TSR_FLOAT_IEEE = 0, TSR_FLOAT_FTZ_RTZ = 1 };
enum tsr_dom { TSR_DOM_U = 0, TSR_DOM_I = 1, TSR_DOM_F = 2 };

/* The arith.h mode of float built-ins (cvt = 0) and of converting packs (cvt = 1). */
static inline struct tsr_fpmode tsr_sem_fpmode(int fm, int cvt)
{
    if (fm == TSR_FLOAT_FTZ_RTZ)
        return cvt ? TSR_FPMODE_FTZ_RNE : TSR_FPMODE_FTZ_RTZ;
    return TSR_FPMODE_IEEE;
}

TSR_SEM_HOT float tsr_sem_f(uint32_t x)
{
    float f;
    memcpy(&f, &x, 4);
    return f;
}
TSR_SEM_HOT uint32_t tsr_sem_bits(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    return x;
}
/* x is +0 or -0 / a normal number / either (the binary32 classes every float mode reads alike: the shortcuts
 * below take only these). */
TSR_SEM_HOT int tsr_sem_zero(uint32_t x) { return (x & 0x7fffffffu) == 0; }
TSR_SEM_HOT int tsr_sem_normal(uint32_t x) { return ((x >> 23) & 0xffu) - 1u < 254u; }
TSR_SEM_HOT int tsr_sem_zero_or_normal(uint32_t x) { return tsr_sem_zero(x) || tsr_sem_normal(x); }

/* ---- operators ---------------------------------------------------------------------------- */

static inline uint32_t tsr_sem_div(uint32_t a, uint32_t b, int dom)
{
    if (dom == TSR_DOM_F)
        return tsr_sem_bits(tsr_sem_f(a) / tsr_sem_f(b));
    if (b == 0)
        return 0;
    if (dom == TSR_DOM_I) {
        if (a == 0x80000000u && b == 0xffffffffu)
            return a;
        return (uint32_t)((int32_t)a / (int32_t)b);
    }
    return a / b;
}

static inline uint32_t tsr_sem_rem(uint32_t a, uint32_t b, int dom)
{
    if (dom == TSR_DOM_F) {
        /* IEEE remainder with truncated quotient (C fmodf), computed exactly in double */
        float x = tsr_sem_f(a), y = tsr_sem_f(b);
        if (x != x || y != y || y == 0.0f || x - x != 0.0f)
            return 0x7fc00000u;
        if (y - y != 0.0f)
            return a;
        double q = (double)x / (double)y;
        q = q < 0 ? -__builtin_floor(-q) : __builtin_floor(q);
        return tsr_sem_bits((float)((double)x - q * (double)y));
    }
    if (b == 0)
        return 0;
    if (dom == TSR_DOM_I) {
        if (a == 0x80000000u && b == 0xffffffffu)
            return 0;
        return (uint32_t)((int32_t)a % (int32_t)b);
    }
    return a % b;
}

static inline uint32_t tsr_sem_shl(uint32_t a, uint32_t n) { return n >= 32 ? 0 : a << n; }
static inline uint32_t tsr_sem_shr(uint32_t a, uint32_t n, int dom)
{
    if (dom == TSR_DOM_I)
        return n >= 32 ? ((a >> 31) ? 0xffffffffu : 0) : tsr_asr(a, n);
    return n >= 32 ? 0 : a >> n;
}

/* a OP b for OP in <, <=, >, >=, ==, != (op: 0 lt, 1 le, 2 gt, 3 ge, 4 eq, 5 ne); 0 or 1. */
TSR_SEM_HOT uint32_t tsr_sem_cmp(uint32_t a, uint32_t b, int op, int dom, int fm)
{
    int c; /* -1, 0, 1, or 2 unordered */
    /* float operands that are both zero or normal (no NaN, infinity or denormal, whose reading depends on the
       mode) compare as the host's floats do, -0 equal to +0 as in arith.h's tsr_fcmp in every mode */
    if (dom == TSR_DOM_F && tsr_sem_zero_or_normal(a) && tsr_sem_zero_or_normal(b))
        c = tsr_sem_f(a) < tsr_sem_f(b) ? -1 : tsr_sem_f(a) > tsr_sem_f(b);
    else if (dom == TSR_DOM_F)
        c = tsr_fcmp(a, b, tsr_sem_fpmode(fm, 0));
    else if (dom == TSR_DOM_I)
        c = (int32_t)a < (int32_t)b ? -1 : (int32_t)a > (int32_t)b;
    else
        c = a < b ? -1 : a > b;
    if (c == 2)
        return op == 5;
    switch (op) {
    case 0: return c < 0;
    case 1: return c <= 0;
    case 2: return c > 0;
    case 3: return c >= 0;
    case 4: return c == 0;
    default: return c != 0;
    }
}

/* ---- conversions (MDL_E_CAST); types are enum mdl_type values: 1 u32 2 i32 3 f32 4 f16 5 bool ---- */
static inline uint32_t tsr_sem_cast(uint32_t x, int from, int to)
{
    (void)from;
    if (to == 5)
        return x != 0;
    if (to == 4)
        return x & 0xffffu;
    return x;
}

/* ---- per-lane built-ins (enum mdl_builtin); fm is the description's float mode ------------- */

/* Fast paths of fadd/fsub/fmul for the common case, bit-identical to arith.h (tests/test_eval.c compares them
 * on millions of operands): both operands normal, the exact result computed in double (exact: a product of
 * two 24-bit significands, or a sum whose exponents differ by at most 28), and a normal, non-zero result;
 * then rounding once is truncation (TSR_FLOAT_FTZ_RTZ) or the host's float conversion (IEEE: RNE).  Anything else
 * (denormals, infinities, NaNs, overflow, underflow) goes to arith.h, except zero operands of fadd and fsub:
 * x + ±0 and x - ±0 are x, ±0 + x is x and ±0 - x is -x for a normal x (exact, so no rounding); a zero and a
 * zero give a zero whose sign the mode says (TSR_FLOAT_FTZ_RTZ: +0, arith.h's zero_pos; TSR_FLOAT_IEEE round to
 * nearest: -0 only for -0 + -0 and -0 - +0).  Needs IEEE double arithmetic without excess precision (x86-64
 * SSE2, AArch64). */
/* The exact double d rounded to a normal binary32, or 0 when that is not a normal number. */
static inline uint32_t tsr_sem_round_normal(double d, int fm)
{
    uint64_t b;
    if (fm == TSR_FLOAT_FTZ_RTZ) {
        memcpy(&b, &d, 8);
        uint32_t fe = (uint32_t)((b >> 52) & 0x7ffu) - 896u; /* 1023 - 127 */
        if (fe - 1u >= 254u)
            return 0;
        return ((uint32_t)(b >> 32) & 0x80000000u) | fe << 23 | ((uint32_t)(b >> 29) & 0x7fffffu);
    }
    uint32_t r = tsr_sem_bits((float)d);
    return tsr_sem_normal(r) ? r : 0;
}

/* a + b where one or both are zeros and the other zero or normal (see above); fm is TSR_FLOAT_FTZ_RTZ or TSR_FLOAT_IEEE. */
static inline uint32_t tsr_sem_fadd_zero(uint32_t a, uint32_t b, int fm)
{
    if (!tsr_sem_zero(a))
        return a;
    if (!tsr_sem_zero(b))
        return b;
    return fm == TSR_FLOAT_FTZ_RTZ ? 0 : a & b;
}
static inline uint32_t tsr_sem_fadd(uint32_t a, uint32_t b, int fm)
{
    if ((fm == TSR_FLOAT_FTZ_RTZ || fm == TSR_FLOAT_IEEE) && tsr_sem_normal(a) && tsr_sem_normal(b)) {
        int d = (int)((a >> 23) & 0xffu) - (int)((b >> 23) & 0xffu);
        if (d <= 28 && d >= -28) {
            uint32_t r = tsr_sem_round_normal((double)tsr_sem_f(a) + (double)tsr_sem_f(b), fm);
            if (r)
                return r;
        }
    } else if ((fm == TSR_FLOAT_FTZ_RTZ || fm == TSR_FLOAT_IEEE) && (tsr_sem_zero(a) || tsr_sem_zero(b)) &&
               tsr_sem_zero_or_normal(a) && tsr_sem_zero_or_normal(b)) {
        return tsr_sem_fadd_zero(a, b, fm);
    }
    return tsr_fadd(a, b, tsr_sem_fpmode(fm, 0));
}
static inline uint32_t tsr_sem_fsub(uint32_t a, uint32_t b, int fm)
{
    if ((fm == TSR_FLOAT_FTZ_RTZ || fm == TSR_FLOAT_IEEE) && tsr_sem_normal(a) && tsr_sem_normal(b)) {
        int d = (int)((a >> 23) & 0xffu) - (int)((b >> 23) & 0xffu);
        if (d <= 28 && d >= -28) {
            uint32_t r = tsr_sem_round_normal((double)tsr_sem_f(a) - (double)tsr_sem_f(b), fm);
            if (r)
                return r;
        }
    } else if ((fm == TSR_FLOAT_FTZ_RTZ || fm == TSR_FLOAT_IEEE) && (tsr_sem_zero(a) || tsr_sem_zero(b)) &&
               tsr_sem_zero_or_normal(a) && tsr_sem_zero_or_normal(b)) {
        return tsr_sem_fadd_zero(a, b ^ 0x80000000u, fm);
    }
    return tsr_fsub(a, b, tsr_sem_fpmode(fm, 0));
}
static inline uint32_t tsr_sem_fmul(uint32_t a, uint32_t b, int fm)
{
    if ((fm == TSR_FLOAT_FTZ_RTZ || fm == TSR_FLOAT_IEEE) && tsr_sem_normal(a) && tsr_sem_normal(b)) {
        uint32_t r = tsr_sem_round_normal((double)tsr_sem_f(a) * (double)tsr_sem_f(b), fm);
        if (r)
            return r;
    }
    return tsr_fmul(a, b, tsr_sem_fpmode(fm, 0));
}
static inline uint32_t tsr_sem_fmin(uint32_t a, uint32_t b, int fm) { return tsr_fmin(a, b, tsr_sem_fpmode(fm, 0)); }
static inline uint32_t tsr_sem_fmax(uint32_t a, uint32_t b, int fm) { return tsr_fmax(a, b, tsr_sem_fpmode(fm, 0)); }
static inline uint32_t tsr_sem_fminabs(uint32_t a, uint32_t b, int fm) { return tsr_fminabs(a, b, tsr_sem_fpmode(fm, 0)); }
static inline uint32_t tsr_sem_fmaxabs(uint32_t a, uint32_t b, int fm) { return tsr_fmaxabs(a, b, tsr_sem_fpmode(fm, 0)); }
static inline uint32_t tsr_sem_fabs(uint32_t a) { return tsr_fabs(a); }
static inline uint32_t tsr_sem_fneg(uint32_t a) { return tsr_fneg(a); }
/* ftoi: |x| < 2^31 (exponent below 158, zeros and denormals included: they truncate to 0 in every mode)
 * converts exactly with C's truncating cast; itof: |x| <= 2^24 converts exactly (0 to +0). */
static inline uint32_t tsr_sem_ftoi(uint32_t a, int fm)
{
    if (((a >> 23) & 0xffu) < 158u && (fm == TSR_FLOAT_FTZ_RTZ || fm == TSR_FLOAT_IEEE))
        return (uint32_t)(int32_t)tsr_sem_f(a);
    return tsr_ftoi(a, tsr_sem_fpmode(fm, 0));
}
static inline uint32_t tsr_sem_itof(uint32_t a, int fm)
{
    if (a + 0x1000000u <= 0x2000000u && (fm == TSR_FLOAT_FTZ_RTZ || fm == TSR_FLOAT_IEEE))
        return a ? tsr_sem_bits((float)(int32_t)a) : 0; /* 0 is +0 in every mode */
    return tsr_itof(a, tsr_sem_fpmode(fm, 0));
}
static inline uint32_t tsr_sem_fgt(uint32_t a, uint32_t b, int fm) { return tsr_fcmp(a, b, tsr_sem_fpmode(fm, 0)) == TSR_FCMP_GT; }
static inline uint32_t tsr_sem_feq(uint32_t a, uint32_t b, int fm) { return tsr_fcmp(a, b, tsr_sem_fpmode(fm, 0)) == TSR_FCMP_EQ; }
static inline uint32_t tsr_sem_f16tof32(uint32_t a, int fm) { return tsr_f16_to_f32(a, tsr_sem_fpmode(fm, 0)); }
static inline uint32_t tsr_sem_f32tof16(uint32_t a, int fm) { return tsr_f32_to_f16(a, tsr_sem_fpmode(fm, 1)); }
static inline uint32_t tsr_sem_unorm8tof(uint32_t a, int fm) { return tsr_unorm8_to_f32(a, tsr_sem_fpmode(fm, 0)); }
static inline uint32_t tsr_sem_f2unorm8(uint32_t a, int fm) { return tsr_f32_to_unorm8(a, tsr_sem_fpmode(fm, 1)); }
static inline uint32_t tsr_sem_clz(uint32_t a) { return tsr_clz(a); }
static inline uint32_t tsr_sem_mul24(uint32_t a, uint32_t b) { return tsr_mul24(a, b); }
static inline uint32_t tsr_sem_shlb(uint32_t a, uint32_t b) { return tsr_shl(a, b); }
static inline uint32_t tsr_sem_shrb(uint32_t a, uint32_t b) { return tsr_shr(a, b); }
static inline uint32_t tsr_sem_asr(uint32_t a, uint32_t b) { return tsr_asr(a, b); }
static inline uint32_t tsr_sem_ror(uint32_t a, uint32_t b) { return tsr_ror(a, b); }
static inline uint32_t tsr_sem_min(uint32_t a, uint32_t b) { return tsr_smin(a, b); }
static inline uint32_t tsr_sem_max(uint32_t a, uint32_t b) { return tsr_smax(a, b); }
static inline uint32_t tsr_sem_sadd_sat(uint32_t a, uint32_t b) { return tsr_adds32(a, b); }
static inline uint32_t tsr_sem_ssub_sat(uint32_t a, uint32_t b) { return tsr_subs32(a, b); }
static inline uint32_t tsr_sem_v8adds(uint32_t a, uint32_t b) { return tsr_v8adds(a, b); }
static inline uint32_t tsr_sem_v8subs(uint32_t a, uint32_t b) { return tsr_v8subs(a, b); }
static inline uint32_t tsr_sem_v8min(uint32_t a, uint32_t b) { return tsr_v8min(a, b); }
static inline uint32_t tsr_sem_v8max(uint32_t a, uint32_t b) { return tsr_v8max(a, b); }
static inline uint32_t tsr_sem_v8muld(uint32_t a, uint32_t b) { return tsr_v8muld(a, b); }
static inline uint32_t tsr_sem_byte(uint32_t x, uint32_t i) { return tsr_byte_get(x, i); }
static inline uint32_t tsr_sem_bytes(uint32_t b3, uint32_t b2, uint32_t b1, uint32_t b0)
{
    return (b3 & 0xffu) << 24 | (b2 & 0xffu) << 16 | (b1 & 0xffu) << 8 | (b0 & 0xffu);
}

/* (addition) the float functions (arith.h "float functions of the description language") */
static inline uint32_t tsr_sem_floor(uint32_t a, int fm) { return tsr_floor(a, tsr_sem_fpmode(fm, 0)); }
static inline uint32_t tsr_sem_round(uint32_t a, int fm) { return tsr_round(a, tsr_sem_fpmode(fm, 0)); }
static inline uint32_t tsr_sem_fract(uint32_t a, int fm) { return tsr_fract(a, tsr_sem_fpmode(fm, 0)); }
static inline uint32_t tsr_sem_rsqrt(uint32_t a, int fm) { return tsr_rsqrt(a, 23, tsr_sem_fpmode(fm, 0)); }
static inline uint32_t tsr_sem_rcp(uint32_t a, int fm) { return tsr_recip(a, 23, tsr_sem_fpmode(fm, 0)); }
static inline uint32_t tsr_sem_exp2(uint32_t a, int fm) { return tsr_exp2(a, 23, tsr_sem_fpmode(fm, 0)); }
static inline uint32_t tsr_sem_log2(uint32_t a, int fm) { return tsr_log2(a, 23, tsr_sem_fpmode(fm, 0)); }
static inline uint32_t tsr_sem_sin(uint32_t a, int fm) { return tsr_sin(a, tsr_sem_fpmode(fm, 0)); }
static inline uint32_t tsr_sem_cos(uint32_t a, int fm) { return tsr_cos(a, tsr_sem_fpmode(fm, 0)); }
static inline uint32_t tsr_sem_fma(uint32_t a, uint32_t b, uint32_t c, int fm)
{
    return tsr_fma(a, b, c, tsr_sem_fpmode(fm, 0));
}

/* ---- component values (addition, X11): a vec4 is the 4 lanes of a description with vec4 values ---- */
/* comp(v, i): v[i & 3] (a run-time index is taken modulo 4; constants are checked by mdlc) */
static inline uint32_t tsr_sem_comp(const uint32_t *v, uint32_t i) { return v[i & 3]; }
/* swizzle(v, i0, i1, i2, i3): out[c] = v[ic & 3] */
TSR_SEM_HOT void tsr_sem_swizzle(uint32_t *out, const uint32_t *v, uint32_t i0, uint32_t i1, uint32_t i2,
                                 uint32_t i3)
{
    uint32_t x = v[i0 & 3], y = v[i1 & 3], z = v[i2 & 3], w = v[i3 & 3];
    out[0] = x;
    out[1] = y;
    out[2] = z;
    out[3] = w;
}

/* ---- cross-lane built-ins (vectors of n lanes) ---------------------------------------------- */
/* rotate(x, k): out[i] = x[(i - k) mod n]: lane i takes the value k lanes below it, wrapping */
static inline void tsr_sem_rotate(uint32_t *out, const uint32_t *x, uint32_t k, int n)
{
    unsigned s = k % (unsigned)n;
    for (int i = 0; i < n; i++)
        out[i] = x[((unsigned)i + (unsigned)n - s) % (unsigned)n];
}
/* rotate_quad(x, k): the same inside each group of 4 lanes, by k mod 4 */
static inline void tsr_sem_rotate_quad(uint32_t *out, const uint32_t *x, uint32_t k, int n)
{
    unsigned s = k & 3;
    for (int i = 0; i < n; i++)
        out[i] = x[(i & ~3) + (int)(((unsigned)i + 4 - s) & 3)];
}
/* quad_bcast(x): out[i] = x[i & ~3] (lanes 0, 4, 8, 12 across their quads) */
static inline void tsr_sem_quad_bcast(uint32_t *out, const uint32_t *x, int n)
{
    for (int i = 0; i < n; i++)
        out[i] = x[i & ~3];
}
/* lane(x, i): x[i mod n] */
static inline uint32_t tsr_sem_lane(const uint32_t *x, uint32_t i, int n) { return x[i % (unsigned)n]; }

#endif
