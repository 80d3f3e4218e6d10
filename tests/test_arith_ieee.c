/* Unit tests of runtime/arith.h, second part: IEEE mode against the host's arithmetic, the special functions'
 * precision, small integer ops and the description language's float functions (the QPU hardware tables and the
 * named cases are in test_arith.c). */
#include <criterion/criterion.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arith.h"
#include "qpu_periph.h" /* QPU_SFU_BITS_DEFAULT: the precision of the QPU SFU model */
#include "support_arith.h"

/* ---- IEEE mode: differential against host arithmetic (x86-64/AArch64 are IEEE, RNE) ------- */

static uint32_t rnd_state = 1;

static uint32_t rnd(void)
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 17;
    rnd_state ^= rnd_state << 5;
    return rnd_state;
}

/* Random float bits: mostly values of moderate exponent, plus denormals, zeros, infinities. */
static uint32_t rnd_float(void)
{
    uint32_t r = rnd(), k = r & 15;
    uint32_t sign = r & 0x80000000u, fr = rnd() & 0x7fffffu;
    if (k == 0)
        return sign | fr; /* denormal or zero */
    if (k == 1)
        return sign | 0x7f800000u | (r & 16 ? fr : 0);
    if (k == 2)
        return sign | ((uint32_t)(1 + rnd() % 254) << 23) | fr;
    return sign | ((uint32_t)(110 + rnd() % 36) << 23) | fr;
}

static int same_or_both_nan(uint32_t a, uint32_t b)
{
    int an = (a & 0x7fffffff) > 0x7f800000, bn = (b & 0x7fffffff) > 0x7f800000;
    return an || bn ? an && bn : a == b;
}

Test(ieee, add_sub_mul_vs_host)
{
    for (int i = 0; i < 300000; i++) {
        uint32_t a = rnd_float(), b = rnd_float();
        float x = bf(a), y = bf(b);
        cr_assert(same_or_both_nan(tsr_fadd(a, b, IEEE), fb(x + y)), "add %08x %08x", a, b);
        cr_assert(same_or_both_nan(tsr_fsub(a, b, IEEE), fb(x - y)), "sub %08x %08x", a, b);
        cr_assert(same_or_both_nan(tsr_fmul(a, b, IEEE), fb(x * y)), "mul %08x %08x", a, b);
    }
}

/* The binary32 result of rounding the double v (exact) toward zero / down / up. */
static uint32_t directed(double v, unsigned round)
{
    float f = (float)v; /* RNE; v is finite */
    if (isinf(f) && !isinf(v)) {
        if (round == TSR_RTZ || (round == TSR_RDN && v > 0) || (round == TSR_RUP && v < 0))
            f = copysignf(FLT_MAX, f);
        return fb(f);
    }
    if ((double)f == v || round == TSR_RNE)
        return fb(f);
    int up = (double)f > v;
    if (round == TSR_RTZ && ((v > 0 && up) || (v < 0 && !up)))
        f = nextafterf(f, 0.0f);
    if (round == TSR_RDN && up)
        f = nextafterf(f, -INFINITY);
    if (round == TSR_RUP && !up)
        f = nextafterf(f, INFINITY);
    if (f == 0.0f && v < 0) /* keep the sign of a tiny negative result */
        f = -0.0f;
    return fb(f);
}

Test(ieee, directed_rounding_vs_exact)
{
    /* float * float and float + float with close exponents are exact in double. */
    for (int i = 0; i < 200000; i++) {
        uint32_t a = rnd_float(), b = rnd_float();
        if ((a & 0x7f800000) == 0x7f800000 || (b & 0x7f800000) == 0x7f800000)
            continue;
        double p = (double)bf(a) * (double)bf(b);
        for (unsigned r = 1; r < 4; r++) {
            if (p == 0.0)
                break;
            cr_assert_eq(tsr_fmul(a, b, mode(r, 0)), directed(p, r), "mul %08x %08x mode %u", a,
                         b, r);
        }
        int ea = (int)((a >> 23) & 0xff), eb = (int)((b >> 23) & 0xff);
        if (abs(ea - eb) > 25)
            continue;
        double s = (double)bf(a) + (double)bf(b);
        for (unsigned r = 1; r < 4; r++) {
            if (s == 0.0)
                break;
            cr_assert_eq(tsr_fadd(a, b, mode(r, 0)), directed(s, r), "add %08x %08x mode %u", a,
                         b, r);
        }
    }
    /* Exact zero sums: +0, except -0 in RDN. */
    cr_expect_eq(tsr_fsub(0x3f800000, 0x3f800000, IEEE), 0u);
    cr_expect_eq(tsr_fsub(0x3f800000, 0x3f800000, mode(TSR_RDN, 0)), 0x80000000u);
    cr_expect_eq(tsr_fadd(0x80000000, 0x80000000, IEEE), 0x80000000u);
    cr_expect_eq(tsr_fadd(0x80000000, 0x80000000, QPU), 0u);
}

Test(ieee, overflow_and_specials)
{
    cr_expect_eq(tsr_fmul(0x7f000000, 0x40000000, IEEE), 0x7f800000u);
    cr_expect_eq(tsr_fmul(0x7f000000, 0x40000000, mode(TSR_RTZ, 0)), 0x7f7fffffu);
    cr_expect_eq(tsr_fmul(0x7f000000, 0x40000000, QPU), 0x7f800000u); /* ovf_inf */
    cr_expect_eq(tsr_fmul(0xff000000, 0x40000000, mode(TSR_RUP, 0)), 0xff7fffffu);
    cr_expect_eq(tsr_fadd(0x7f800000, 0xff800000, IEEE), 0x7fc00000u);
    cr_expect_eq(tsr_fmul(0x7f800000, 0, IEEE), 0x7fc00000u);
    cr_expect_eq(tsr_fadd(0x7f800001, 0x3f800000, IEEE), 0x7fc00001u);  /* quieted payload */
    cr_expect_eq(tsr_fadd(0x3f800000, 0xffa00000, IEEE), 0xffe00000u);
    struct tsr_fpmode canon = IEEE;
    canon.nan = TSR_NAN_CANON;
    cr_expect_eq(tsr_fadd(0x7f800001, 0x3f800000, canon), 0x7fc00000u);
    cr_expect_eq(tsr_fmin(0x7fc00000, 0x3f800000, IEEE), 0x3f800000u);
    cr_expect_eq(tsr_fmax(0x40000000, 0x7fc00000, IEEE), 0x40000000u);
    cr_expect_eq(tsr_fminabs(0xc0000000, 0x3f800000, IEEE), 0x3f800000u);
    cr_expect_eq(tsr_fmaxabs(0xc0000000, 0x3f800000, IEEE), 0x40000000u);
    cr_expect_eq(tsr_fmin(1, 0x80000001, mode(TSR_RNE, 1)), 0x80000000u); /* flushed operands */
    cr_expect_eq(tsr_fabs(0xffc00000), 0x7fc00000u);
    cr_expect_eq(tsr_fneg(0x00000001), 0x80000001u);
    cr_expect_eq(tsr_fcmp(fb(1.0f), fb(2.0f), IEEE), TSR_FCMP_LT);
    cr_expect_eq(tsr_fcmp(fb(2.0f), fb(-2.0f), IEEE), TSR_FCMP_GT);
    cr_expect_eq(tsr_fcmp(0x7fc00000, 0x7fc00000, IEEE), TSR_FCMP_UN);
    cr_expect_eq(tsr_fcmp(0x7fc00000, 0x7f800000, QPU), TSR_FCMP_EQ); /* NaN-as-inf */
    cr_expect_eq(tsr_fcmp(1, 0x80000000, QPU), TSR_FCMP_EQ);          /* ftz_in */
    cr_expect_eq(tsr_fcmp(1, 0x80000000, IEEE), TSR_FCMP_GT);
}

Test(ieee, minmax_vs_host)
{
    for (int i = 0; i < 100000; i++) {
        uint32_t a = rnd_float(), b = rnd_float();
        float x = bf(a), y = bf(b);
        if (isnan(x) || isnan(y) || (x == 0 && y == 0))
            continue;
        cr_assert_eq(tsr_fmin(a, b, IEEE), fb(x < y ? x : y));
        cr_assert_eq(tsr_fmax(a, b, IEEE), fb(x > y ? x : y));
        /* the QPU order agrees with the numeric order except on denormals of either sign */
        if ((a & 0x7f800000) && (b & 0x7f800000) && x != y)
            cr_assert_eq(tsr_fmin(a, b, QPU), fb(x < y ? x : y));
    }
}

/* ---- special functions --------------------------------------------------------------------- */

static void check_sfu(const char *name, uint32_t (*f)(uint32_t, unsigned, struct tsr_fpmode),
                      double (*ref)(double), double lo, double hi, unsigned bits, unsigned round)
{
    struct tsr_fpmode m = mode(round, 0);
    for (int i = 0; i <= 4000; i++) {
        double t = lo + (hi - lo) * i / 4000.0;
        uint32_t x = fb((float)t);
        if (bf(x) == 0.0f)
            continue;
        double exact = ref((double)bf(x));
        uint32_t r = f(x, bits, m);
        double err = fabs((double)bf(r) - exact);
        double tol = ldexp(fabs(exact), -(int)bits) * (round == TSR_RNE ? 0.5 : 1.0);
        cr_assert(err <= tol * (1 + 1e-9) + 1e-300, "%s(%a) bits %u: %a vs %a", name,
                  (double)bf(x), bits, (double)bf(r), exact);
        if (bits < 23 && (r & 0x7f800000) && (r & 0x7f800000) != 0x7f800000)
            cr_assert_eq(r & ((1u << (23 - bits)) - 1), 0u, "%s: fraction bits beyond %u", name,
                         bits);
        if (round == TSR_RTZ)
            cr_assert(fabs((double)bf(r)) <= fabs(exact), "%s truncates", name);
    }
}

static double ref_recip(double x) { return 1.0 / x; }
static double ref_rsqrt(double x) { return 1.0 / sqrt(fabs(x)); }
static double ref_exp2(double x) { return exp2(x); }
static double ref_log2(double x) { return log2(fabs(x)); }

Test(sfu, precision_sweep)
{
    static const unsigned bits[] = {23, QPU_SFU_BITS_DEFAULT, 10, 4};
    for (size_t k = 0; k < N(bits); k++)
        for (unsigned r = 0; r < 2; r++) { /* RNE and RTZ */
            check_sfu("recip", tsr_recip, ref_recip, -100.0, 100.0, bits[k], r);
            check_sfu("recip", tsr_recip, ref_recip, 1e-30, 1e-20, bits[k], r);
            check_sfu("rsqrt", tsr_rsqrt, ref_rsqrt, 1e-6, 1e6, bits[k], r);
            check_sfu("exp2", tsr_exp2, ref_exp2, -120.0, 120.0, bits[k], r);
            check_sfu("log2", tsr_log2, ref_log2, 1e-3, 1e5, bits[k], r);
        }
}

Test(sfu, py_videocore_tolerance)
{
    /* Idein/py-videocore tests/test_sfu.py (hardware): rtol 1e-3 for x in (0, 1). */
    for (int i = 1; i < 1000; i++) {
        float x = (float)i / 1000.0f;
        uint32_t u = fb(x);
        double v = x;
        cr_assert(fabs(bf(tsr_recip(u, QPU_SFU_BITS_DEFAULT, QPU)) - 1 / v) <= 1e-3 / v);
        cr_assert(fabs(bf(tsr_rsqrt(u, QPU_SFU_BITS_DEFAULT, QPU)) - 1 / sqrt(v)) <= 1e-3 / sqrt(v));
        cr_assert(fabs(bf(tsr_exp2(u, QPU_SFU_BITS_DEFAULT, QPU)) - exp2(v)) <= 1e-3 * exp2(v));
        cr_assert(fabs(bf(tsr_log2(u, QPU_SFU_BITS_DEFAULT, QPU)) - log2(v)) <= 1e-3 * fabs(log2(v)));
    }
}

Test(sfu, special_values)
{
    unsigned b = QPU_SFU_BITS_DEFAULT;
    /* Idein/py-videocore APPENDIX.rst: RECIP(0) = RECIPSQRT(0) = inf, |x| for rsqrt and log. */
    cr_expect_eq(tsr_recip(0, b, QPU), 0x7f800000u);
    cr_expect_eq(tsr_recip(1, b, QPU), 0x7f800000u); /* denormal = 0 */
    cr_expect_eq(tsr_rsqrt(0, b, QPU), 0x7f800000u);
    cr_expect_eq(tsr_rsqrt(fb(-4.0f), b, QPU), fb(0.5f));
    cr_expect_eq(tsr_log2(fb(-8.0f), b, QPU), fb(3.0f));
    cr_expect_eq(tsr_log2(fb(-8.0f), 23, IEEE), 0x7fc00000u);
    cr_expect_eq(tsr_log2(0, b, QPU), 0xff800000u);
    cr_expect_eq(tsr_log2(fb(1.0f), b, QPU), 0u);
    cr_expect_eq(tsr_exp2(0, b, QPU), fb(1.0f));
    cr_expect_eq(tsr_exp2(fb(200.0f), b, QPU), 0x7f800000u);
    cr_expect_eq(tsr_exp2(fb(200.0f), 23, mode(TSR_RTZ, 0)), 0x7f7fffffu);
    cr_expect_eq(tsr_exp2(fb(-200.0f), b, QPU), 0u);
    cr_expect_eq(tsr_exp2(fb(-140.0f), 23, IEEE), fb(0x1p-140f)); /* denormal result */
    cr_expect_eq(tsr_exp2(0xff800000, b, QPU), 0u);
    cr_expect_eq(tsr_recip(fb(4.0f), b, QPU), fb(0.25f));
    cr_expect_eq(tsr_recip(fb(-0.0f), 23, IEEE), 0xff800000u);
    cr_expect_eq(tsr_recip(0x7f800000, 23, IEEE), 0u);
    cr_expect_eq(tsr_recip(fb(3.0f), 23, IEEE), fb(1.0f / 3.0f));
    cr_expect_eq(tsr_recip(fb(3.0f), 23, mode(TSR_RTZ, 0)), 0x3eaaaaaau); /* RNE: ...ab */
    cr_expect_eq(tsr_recip(fb(3.0f), 10, mode(TSR_RTZ, 0)), 0x3eaaa000u);
    cr_expect_eq(tsr_recip(0x7fc00001, 23, IEEE), 0x7fc00001u);
    cr_expect_eq(tsr_recip(0x7fffffff, b, QPU), 0u); /* NaN encoding = +inf */
}

Test(sfu, exact_recip_vs_host)
{
    /* recip is computed exactly, so with 23 bits and RNE it equals the host's 1.0f / x. */
    for (int i = 0; i < 100000; i++) {
        uint32_t a = rnd_float();
        float x = bf(a);
        if (isnan(x))
            continue;
        cr_assert_eq(tsr_recip(a, 23, IEEE), fb(1.0f / x), "recip %08x", a);
    }
}

/* ---- small integer ops ----------------------------------------------------------------------- */

Test(intops, named)
{
    cr_expect_eq(tsr_clz(0), 32u);
    cr_expect_eq(tsr_clz(1), 31u);
    cr_expect_eq(tsr_ror(0x12345678, 8), 0x78123456u);
    cr_expect_eq(tsr_ror(0x12345678, 40), 0x78123456u); /* count & 31 */
    cr_expect_eq(tsr_ror(0x12345678, 0), 0x12345678u);
    cr_expect_eq(tsr_asr(0x80000000, 31), 0xffffffffu);
    cr_expect_eq(tsr_asr(0xfffffff0, 2), 0xfffffffcu);
    cr_expect_eq(tsr_asr((uint32_t)-7, 1), (uint32_t)-4);
    cr_expect_eq(tsr_asr(0x40000000, 30), 1u);
    cr_expect_eq(tsr_shl(1, 32), 1u);
    cr_expect_eq(tsr_shr(0x80000000, 63), 1u);
    cr_expect_eq(tsr_mul24(0xff000003, 0xab000005), 15u); /* high bits ignored */
    cr_expect_eq(tsr_mul24(0x00800000, 0x00000200), 0x00000000u);
    cr_expect_eq(tsr_mul24(0x01ffffff, 2), 0x01fffffeu);
    cr_expect_eq(tsr_sext16(0x8000ffff, 0), 0xffffffffu);
    cr_expect_eq(tsr_sext16(0x8000ffff, 1), 0xffff8000u);
    cr_expect_eq(tsr_sat_s16(40000), 0x7fffu);
    cr_expect_eq(tsr_sat_s16((uint32_t)-40000), 0x8000u);
    cr_expect_eq(tsr_sat_u8(300), 255u);
    cr_expect_eq(tsr_ovf_add(0x7fffffff, 1), 1);
    cr_expect_eq(tsr_ovf_sub(0x80000000, 1), 1);
    cr_expect_eq(tsr_ovf_sub(0, 1), 0);
    cr_expect_eq(tsr_carry_shl(0x80000000, 0), 0);
    cr_expect_eq(tsr_carry_shr(1, 32), 0);
}

Test(intops, saturation_sweep)
{
    for (int i = 0; i < 200000; i++) {
        uint32_t a = rnd(), b = rnd();
        int64_t s = (int64_t)(int32_t)a + (int32_t)b, d = (int64_t)(int32_t)a - (int32_t)b;
        int64_t sc = s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s;
        int64_t dc = d > INT32_MAX ? INT32_MAX : d < INT32_MIN ? INT32_MIN : d;
        cr_assert_eq(tsr_adds32(a, b), (uint32_t)sc);
        cr_assert_eq(tsr_subs32(a, b), (uint32_t)dc);
        /* QPU sub: the wrong end exactly when the true result is out of range */
        uint32_t q = tsr_subs32_swapped(a, b);
        if (d == dc)
            cr_assert_eq(q, (uint32_t)d);
        else
            cr_assert_eq(q, d > 0 ? 0x80000000u : 0x7fffffffu);
        cr_assert_eq(tsr_carry_add(a, b), ((uint64_t)a + b) >> 32 != 0);
        cr_assert_eq(tsr_ovf_add(a, b), s != (int32_t)(a + b));
    }
}

Test(intops, bytes_vs_reference)
{
    for (int i = 0; i < 50000; i++) {
        uint32_t a = rnd(), b = rnd();
        uint32_t ad = tsr_v8adds(a, b), sb = tsr_v8subs(a, b), mn = tsr_v8min(a, b),
                 mx = tsr_v8max(a, b);
        for (unsigned k = 0; k < 4; k++) {
            uint32_t x = tsr_byte_get(a, k), y = tsr_byte_get(b, k);
            cr_assert_eq(tsr_byte_get(ad, k), x + y > 255 ? 255 : x + y);
            cr_assert_eq(tsr_byte_get(sb, k), x > y ? x - y : 0);
            cr_assert_eq(tsr_byte_get(mn, k), x < y ? x : y);
            cr_assert_eq(tsr_byte_get(mx, k), x > y ? x : y);
        }
    }
}

/* ---- the description language's float functions (addition; arith.h "float functions") -------------------- */

static int isnan_bits(uint32_t x) { return (x & 0x7fffffffu) > 0x7f800000u; }

/* floor, round (ties to even) and fma in IEEE mode are exact operations: the C library's floorf, nearbyintf (in
 * the default rounding mode, to nearest even) and fmaf are the reference, bit for bit (NaNs: any NaN), on random
 * bit patterns of every class, the special values and near-integers. */
Test(floatfn, ieee_matches_the_c_library)
{
    static const uint32_t special[] = {0, 0x80000000u, 0x3f000000u, 0xbf000000u, 0x3fc00000u, 0xbfc00000u,
                                       0x40200000u, 0x4b000000u, 0x4b7fffffu, 0xcb7fffffu, 0x4affffffu, 0x7f800000u,
                                       0xff800000u, 0x7fc00000u, 0x00000001u, 0x80000001u, 0x7f7fffffu, 0x3effffffu};
    uint64_t s = 0x243f6a8885a308d3u;
    size_t n = sizeof special / sizeof *special, bad = 0;
    for (size_t i = 0; i < 400000 + n * n * n && bad < 5; i++) {
        uint32_t a, b, c;
        if (i < n * n * n) {
            a = special[i % n];
            b = special[i / n % n];
            c = special[i / n / n % n];
        } else {
            s = s * 6364136223846793005u + 1442695040888963407u;
            a = (uint32_t)(s >> 32);
            b = (uint32_t)s ^ (uint32_t)(s >> 17);
            c = (uint32_t)(s >> 7);
            if (i & 1)   /* exponents near each other: cancellation in fma, fractions in floor/round */
                b = (b & 0x807fffffu) | ((a >> 23 & 0xffu) ^ 0x7fu) << 23, c = (c & 0x807fffffu) | (a & 0x7f800000u);
        }
        uint32_t f = tsr_floor(a, IEEE), r = tsr_round(a, IEEE), m = tsr_fma(a, b, c, IEEE);
        uint32_t wf = fb(floorf(bf(a))), wr = fb(nearbyintf(bf(a))), wm = fb(fmaf(bf(a), bf(b), bf(c)));
        if (!(f == wf || (isnan_bits(f) && isnan_bits(wf)))) {
            cr_log_error("floor(0x%08x) = 0x%08x, C 0x%08x", a, f, wf);
            bad++;
        }
        if (!(r == wr || (isnan_bits(r) && isnan_bits(wr)))) {
            cr_log_error("round(0x%08x) = 0x%08x, C 0x%08x", a, r, wr);
            bad++;
        }
        if (!(m == wm || (isnan_bits(m) && isnan_bits(wm)))) {
            cr_log_error("fma(0x%08x, 0x%08x, 0x%08x) = 0x%08x, C 0x%08x", a, b, c, m, wm);
            bad++;
        }
    }
    cr_assert_eq(bad, 0);
}

Test(floatfn, known_answers)
{
    cr_expect_eq(tsr_round(fb(2.5f), IEEE), fb(2.0f));
    cr_expect_eq(tsr_round(fb(-0.5f), IEEE), 0x80000000u);
    cr_expect_eq(tsr_floor(fb(-0.5f), IEEE), fb(-1.0f));
    cr_expect_eq(tsr_fract(fb(-1.25f), IEEE), fb(0.75f));
    cr_expect_eq(tsr_fract(fb(-0x1p-30f), IEEE), fb(1.0f));   /* 1 - 2^-30 rounds to 1 */
    cr_expect(isnan_bits(tsr_fract(0x7f800000u, IEEE)));
    cr_expect_eq(tsr_sin(0x80000000u, IEEE), 0x80000000u);
    cr_expect_eq(tsr_cos(0x80000000u, IEEE), fb(1.0f));
    cr_expect(isnan_bits(tsr_sin(0xff800000u, IEEE)));
    cr_expect_eq(tsr_sin(fb(1.0f), IEEE), fb((float)sin(1.0)));
    /* (1 + 2^-12)^2 - (1 + 2^-11) = 2^-24 exactly: one rounding keeps it */
    cr_expect_eq(tsr_fma(fb(1 + 0x1p-12f), fb(1 + 0x1p-12f), fb(-(1 + 0x1p-11f)), IEEE), fb(0x1p-24f));
    /* QPU mode: denormal operands read as zero, the result truncated */
    cr_expect_eq(tsr_floor(0x80000001u, QPU), 0u);
    cr_expect_eq(tsr_fma(fb(1.0f), fb(1.0f), fb(0x1p-30f), QPU), fb(1.0f));
    cr_expect_eq(tsr_fma(fb(1.0f), fb(1.0f), fb(-0x1p-30f), QPU), 0x3f7fffffu);
}
