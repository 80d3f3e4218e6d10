/* Binary32/binary16 primitives of runtime/arith.h: add, sub, mul, the min/max family,
 * comparison, conversions and the approximate special functions.
 *
 * Every result is computed in integers: the exact value (-1)^s * m * 2^e of the operation (or,
 * for add, an exact value with the bits below bit 0 folded into a sticky bit) goes through
 * round_pack(), which rounds once by the mode and encodes.  So results never depend on the
 * host's floating-point unit or environment.  Only rsqrt, exp2 and log2 use the C library
 * (double precision), documented at their prototypes.  Facts and sources: arith.h.
 */
#include "arith.h"

#include <math.h>
#include <string.h>

/* An IEEE binary interchange format: p fraction bits, exponent bias, all-ones exponent field,
 * sign bit position. */
struct fmt {
    int p, bias;
    uint32_t expmax;
    int sbit;
};

static const struct fmt F32 = {23, 127, 255, 31};
static const struct fmt F16 = {10, 15, 31, 15};

#define QNAN32 0x7fc00000u /* default / canonical quiet NaN */
#define QNAN16 0x7e00u

enum cls { ZERO, FINITE, INF, NAN_ };

/* An unpacked binary32 operand: (-1)^s * m * 2^e when c == FINITE (m != 0). */
struct unp {
    uint32_t s;
    int32_t e;
    uint64_t m;
    enum cls c;
};

static int clz64(uint64_t v)
{
    return v ? __builtin_clzll(v) : 64;
}

/* Reads x under mode md: ftz_in turns denormals into zeros, TSR_NAN_AS_INF turns every
 * exponent-255 encoding into an infinity. */
static struct unp unpack32(uint32_t x, struct tsr_fpmode md)
{
    struct unp u = {x >> 31, 0, 0, FINITE};
    uint32_t ex = (x >> 23) & 0xffu, fr = x & 0x7fffffu;
    if (ex == 255) {
        u.c = (fr && md.nan != TSR_NAN_AS_INF) ? NAN_ : INF;
    } else if (ex == 0) {
        if (fr == 0 || md.ftz_in) {
            u.c = ZERO;
        } else {
            u.m = fr;
            u.e = -149;
        }
    } else {
        u.m = fr | 0x800000u;
        u.e = (int32_t)ex - 150;
    }
    return u;
}

static uint32_t zero(const struct fmt *f, uint32_t s, struct tsr_fpmode md)
{
    return md.zero_pos ? 0 : s << f->sbit;
}

static uint32_t inf(const struct fmt *f, uint32_t s)
{
    return (s << f->sbit) | (f->expmax << f->p);
}

/* The result of an overflow of sign s: infinity or the largest finite number, per mode. */
static uint32_t overflow(const struct fmt *f, uint32_t s, struct tsr_fpmode md)
{
    int to_inf;
    switch (md.round) {
    case TSR_RNE: to_inf = 1; break;
    case TSR_RTZ: to_inf = 0; break;
    case TSR_RDN: to_inf = (int)s; break;
    default: to_inf = !s; break;
    }
    if (to_inf || md.ovf_inf)
        return inf(f, s);
    return (s << f->sbit) | ((f->expmax - 1) << f->p) | ((1u << f->p) - 1);
}

/* A NaN result from NaN operands (a_nan / b_nan say which are NaN; b is ignored for one-operand
 * functions by passing b_nan = 0). */
static uint32_t nan_result(uint32_t a, uint32_t b, int a_nan, int b_nan, struct tsr_fpmode md)
{
    if (md.nan == TSR_NAN_IEEE) {
        if (a_nan)
            return a | 0x400000u;
        if (b_nan)
            return b | 0x400000u;
    }
    return QNAN32;
}

/* Rounds (-1)^s * (m + sticky * tiny) * 2^e, m != 0, to format f keeping at most `keep`
 * fraction bits (keep <= f->p), by md.round; handles overflow, denormals and ftz_out. */
static uint32_t round_pack(const struct fmt *f, unsigned keep, uint32_t s, int32_t e, uint64_t m,
                           int sticky, struct tsr_fpmode md)
{
    if (m == 0)
        return zero(f, s, md);
    int lz = clz64(m);
    m <<= lz;
    e -= lz;
    int32_t E = e + 63; /* exponent of the leading bit */
    int32_t emin = 1 - f->bias;
    int32_t shift = 63 - (int32_t)keep;            /* drop all but 1 + keep bits ... */
    int32_t dshift = 63 - f->p + (emin - E);       /* ... or round on the denormal grid */
    if (dshift > shift)
        shift = dshift;
    uint64_t kept;
    int guard, rest;
    if (shift >= 65) {
        kept = 0;
        guard = 0;
        rest = 1;
    } else if (shift == 64) {
        kept = 0;
        guard = (int)(m >> 63);
        rest = (m << 1) != 0;
    } else {
        kept = m >> shift;
        guard = (int)((m >> (shift - 1)) & 1);
        rest = (m & (((uint64_t)1 << (shift - 1)) - 1)) != 0;
    }
    rest |= sticky;
    switch (md.round) {
    case TSR_RNE: kept += guard && (rest || (kept & 1)); break;
    case TSR_RTZ: break;
    case TSR_RDN: kept += s && (guard || rest); break;
    default: kept += !s && (guard || rest); break;
    }
    if (kept == 0)
        return zero(f, s, md);
    int32_t eu = E - 63 + shift; /* exponent of kept's least significant bit */
    int lead = 63 - clz64(kept);
    int32_t er = eu + lead; /* exponent of the result's leading bit */
    if (er > f->bias)
        return overflow(f, s, md);
    uint32_t sbits = s << f->sbit;
    if (er < emin) { /* denormal: kept lies on the 2^(emin - p) grid */
        if (md.ftz_out)
            return zero(f, s, md);
        return sbits | (uint32_t)(kept << (eu - (emin - f->p)));
    }
    uint64_t frac = lead >= f->p ? kept >> (lead - f->p) : kept << (f->p - lead);
    return sbits | ((uint32_t)(er + f->bias) << f->p) | ((uint32_t)frac & ((1u << f->p) - 1));
}

/* ---- add, sub, mul ------------------------------------------------------------------------ */

/* The sum of two finite non-zero values x + y (mantissas of at most 61 bits), rounded once. */
static uint32_t add_finite(struct unp x, struct unp y, struct tsr_fpmode md)
{
    /* Leading bits to bit 61 (room for the carry), larger magnitude first. */
    int lx = clz64(x.m) - 2, ly = clz64(y.m) - 2;
    x.m <<= lx;
    x.e -= lx;
    y.m <<= ly;
    y.e -= ly;
    if (x.e < y.e || (x.e == y.e && x.m < y.m)) {
        struct unp t = x;
        x = y;
        y = t;
    }
    uint32_t d = (uint32_t)(x.e - y.e);
    uint64_t ym;
    if (d >= 64) {
        ym = 1; /* only a sticky bit is left of y */
    } else {
        ym = y.m >> d;
        if (y.m & (((uint64_t)1 << d) - 1))
            ym |= 1; /* jam the lost bits: bit 0 is far below any rounding position */
    }
    uint64_t r = x.s == y.s ? x.m + ym : x.m - ym;
    if (r == 0)
        return zero(&F32, md.round == TSR_RDN, md);
    return round_pack(&F32, 23, x.s, x.e, r, 0, md);
}

static uint32_t add_core(uint32_t a, uint32_t b, uint32_t negate_b, struct tsr_fpmode md)
{
    struct unp x = unpack32(a, md), y = unpack32(b, md);
    y.s ^= negate_b;
    if (x.c == NAN_ || y.c == NAN_)
        return nan_result(a, b, x.c == NAN_, y.c == NAN_, md);
    if (x.c == INF || y.c == INF) {
        if (x.c == INF && y.c == INF && x.s != y.s) /* TSR_NAN_AS_INF: the second addend wins */
            return md.nan == TSR_NAN_AS_INF ? inf(&F32, y.s) : QNAN32;
        return inf(&F32, x.c == INF ? x.s : y.s);
    }
    if (x.c == ZERO && y.c == ZERO)
        return zero(&F32, x.s == y.s ? x.s : md.round == TSR_RDN, md);
    if (x.c == ZERO)
        return round_pack(&F32, 23, y.s, y.e, y.m, 0, md);
    if (y.c == ZERO)
        return round_pack(&F32, 23, x.s, x.e, x.m, 0, md);
    return add_finite(x, y, md);
}

uint32_t tsr_fadd(uint32_t a, uint32_t b, struct tsr_fpmode m)
{
    return add_core(a, b, 0, m);
}

uint32_t tsr_fsub(uint32_t a, uint32_t b, struct tsr_fpmode m)
{
    return add_core(a, b, 1, m);
}

uint32_t tsr_fmul(uint32_t a, uint32_t b, struct tsr_fpmode md)
{
    struct unp x = unpack32(a, md), y = unpack32(b, md);
    uint32_t s = x.s ^ y.s;
    if (x.c == NAN_ || y.c == NAN_)
        return nan_result(a, b, x.c == NAN_, y.c == NAN_, md);
    if (x.c == INF || y.c == INF) {
        if (x.c == ZERO || y.c == ZERO) /* TSR_NAN_AS_INF: 0 * inf = +0 (VC4C hw table FMUL) */
            return md.nan == TSR_NAN_AS_INF ? zero(&F32, s, md) : QNAN32;
        return inf(&F32, s);
    }
    if (x.c == ZERO || y.c == ZERO)
        return zero(&F32, s, md);
    return round_pack(&F32, 23, s, x.e + y.e, x.m * y.m, 0, md);
}

/* ---- min / max / compare ------------------------------------------------------------------ */

/* The raw-bit min/max order of TSR_NAN_AS_INF (arith.h, tsr_fmin()). */
static int32_t raw_key(uint32_t x)
{
    int32_t mag = (int32_t)(x & 0x7fffffffu);
    if ((x & 0x7f800000u) == 0)
        return mag;
    return (x >> 31) ? -mag : mag;
}

int tsr_fkey_gt(uint32_t a, uint32_t b)
{
    return raw_key(a) > raw_key(b);
}

static int is_nan32(uint32_t x)
{
    return (x & 0x7fffffffu) > 0x7f800000u;
}

/* Total order of non-NaN binary32 bit patterns with -0 < +0. */
static int32_t ieee_key(uint32_t x)
{
    int32_t mag = (int32_t)(x & 0x7fffffffu);
    return (x >> 31) ? -mag - 1 : mag;
}

static uint32_t minmax(uint32_t a, uint32_t b, int want_max, int absolute, struct tsr_fpmode md)
{
    if (md.nan == TSR_NAN_AS_INF) {
        if (absolute) {
            a &= 0x7fffffffu;
            b &= 0x7fffffffu;
            return (a > b) == want_max ? a : b;
        }
        return (raw_key(a) > raw_key(b)) == want_max ? a : b;
    }
    if (md.ftz_in) {
        if ((a & 0x7f800000u) == 0)
            a &= 0x80000000u;
        if ((b & 0x7f800000u) == 0)
            b &= 0x80000000u;
    }
    if (absolute) {
        a &= 0x7fffffffu;
        b &= 0x7fffffffu;
    }
    int an = is_nan32(a), bn = is_nan32(b);
    if (an && bn)
        return nan_result(a, b, 1, 1, md);
    if (an)
        return b;
    if (bn)
        return a;
    int32_t ka = ieee_key(a), kb = ieee_key(b);
    if (want_max)
        return ka >= kb ? a : b;
    return ka <= kb ? a : b;
}

uint32_t tsr_fmin(uint32_t a, uint32_t b, struct tsr_fpmode m)
{
    return minmax(a, b, 0, 0, m);
}

uint32_t tsr_fmax(uint32_t a, uint32_t b, struct tsr_fpmode m)
{
    return minmax(a, b, 1, 0, m);
}

uint32_t tsr_fminabs(uint32_t a, uint32_t b, struct tsr_fpmode m)
{
    return minmax(a, b, 0, 1, m);
}

uint32_t tsr_fmaxabs(uint32_t a, uint32_t b, struct tsr_fpmode m)
{
    return minmax(a, b, 1, 1, m);
}

/* x as a canonical pattern for comparison: flushed zeros +0, NaN encodings infinities under TSR_NAN_AS_INF. */
static int64_t cmp_key(uint32_t x, struct unp u)
{
    uint32_t bits = u.c == ZERO ? 0 : u.c == INF ? inf(&F32, u.s) : x;
    int64_t mag = bits & 0x7fffffffu;
    return (bits >> 31) ? -mag : mag;
}

int tsr_fcmp(uint32_t a, uint32_t b, struct tsr_fpmode md)
{
    struct unp x = unpack32(a, md), y = unpack32(b, md);
    if (x.c == NAN_ || y.c == NAN_)
        return TSR_FCMP_UN;
    int64_t ka = cmp_key(a, x), kb = cmp_key(b, y);
    return ka < kb ? TSR_FCMP_LT : ka > kb ? TSR_FCMP_GT : TSR_FCMP_EQ;
}

/* ---- integer conversions ------------------------------------------------------------------ */

static uint32_t ftoi_core(uint32_t x, unsigned round, struct tsr_fpmode md)
{
    struct unp u = unpack32(x, md);
    int asinf = md.nan == TSR_NAN_AS_INF;
    uint32_t out = asinf ? 0 : (u.s ? 0x80000000u : 0x7fffffffu);
    if (u.c == NAN_ || u.c == ZERO)
        return 0;
    if (u.c == INF || u.e > 40)
        return out;
    uint64_t mag;
    if (u.e >= 0) {
        mag = u.m << u.e;
    } else {
        int32_t sh = -u.e;
        int guard, rest;
        if (sh >= 64) {
            mag = 0;
            guard = 0;
            rest = 1;
        } else {
            mag = u.m >> sh;
            guard = (int)((u.m >> (sh - 1)) & 1);
            rest = (u.m & (((uint64_t)1 << (sh - 1)) - 1)) != 0;
        }
        switch (round) {
        case TSR_RNE: mag += guard && (rest || (mag & 1)); break;
        case TSR_RTZ: break;
        case TSR_RDN: mag += u.s && (guard || rest); break;
        default: mag += !u.s && (guard || rest); break;
        }
    }
    if (mag > 0x7fffffffu && !(mag == 0x80000000u && u.s && !asinf))
        return out;
    return u.s ? (uint32_t)(0u - (uint32_t)mag) : (uint32_t)mag;
}

uint32_t tsr_ftoi(uint32_t x, struct tsr_fpmode m)
{
    return ftoi_core(x, TSR_RTZ, m);
}

uint32_t tsr_ftoi_r(uint32_t x, struct tsr_fpmode m)
{
    return ftoi_core(x, m.round, m);
}

uint32_t tsr_itof(uint32_t x, struct tsr_fpmode m)
{
    uint32_t s = x >> 31;
    uint64_t mag = s ? (uint64_t)(0u - x) : x;
    return round_pack(&F32, 23, s, 0, mag, 0, m);
}

uint32_t tsr_utof(uint32_t x, struct tsr_fpmode m)
{
    return round_pack(&F32, 23, 0, 0, x, 0, m);
}

/* ---- binary16 and unorm8 ------------------------------------------------------------------ */

uint32_t tsr_f16_to_f32(uint32_t h, struct tsr_fpmode md)
{
    uint32_t s = (h >> 15) & 1, ex = (h >> 10) & 0x1fu, fr = h & 0x3ffu;
    if (md.nan == TSR_NAN_AS_INF) { /* field expansion (VC4C hw table unpack_test.h) */
        uint32_t e32 = ex == 0 ? 0 : ex == 31 ? 255 : ex + 112;
        return (s << 31) | (e32 << 23) | (fr << 13);
    }
    if (ex == 31) {
        if (fr == 0)
            return inf(&F32, s);
        return md.nan == TSR_NAN_IEEE ? (s << 31) | QNAN32 | (fr << 13) : QNAN32;
    }
    if (ex == 0) {
        if (fr == 0 || md.ftz_in)
            return s << 31;
        return round_pack(&F32, 23, s, -24, fr, 0, md); /* exact: a normal binary32 */
    }
    return (s << 31) | ((ex + 112) << 23) | (fr << 13);
}

uint32_t tsr_f32_to_f16(uint32_t x, struct tsr_fpmode md)
{
    struct unp u = unpack32(x, md);
    switch (u.c) {
    case NAN_:
        return md.nan == TSR_NAN_IEEE ? (u.s << 15) | QNAN16 | ((x >> 13) & 0x3ffu) : QNAN16;
    case INF:
        return inf(&F16, u.s);
    case ZERO:
        return zero(&F16, u.s, md);
    default:
        return round_pack(&F16, 10, u.s, u.e, u.m, 0, md);
    }
}

uint32_t tsr_unorm8_to_f32(uint32_t b, struct tsr_fpmode m)
{
    uint64_t n = (uint64_t)(b & 0xffu) << 40;
    if (n == 0)
        return 0;
    return round_pack(&F32, 23, 0, -40, n / 255, n % 255 != 0, m);
}

uint32_t tsr_f32_to_unorm8(uint32_t x, struct tsr_fpmode md)
{
    struct unp u = unpack32(x, md);
    if (u.c == NAN_ || u.c == ZERO || u.s)
        return 0;
    if (u.c == INF || u.e >= 0)
        return 255;
    uint64_t v = u.m * 255; /* x * 255 = v * 2^e, v < 2^32 */
    int32_t sh = -u.e;
    uint64_t ip;
    int guard, rest;
    if (sh >= 64) {
        ip = 0;
        guard = 0;
        rest = 1;
    } else {
        ip = v >> sh;
        guard = (int)((v >> (sh - 1)) & 1);
        rest = (v & (((uint64_t)1 << (sh - 1)) - 1)) != 0;
    }
    switch (md.round) {
    case TSR_RNE: ip += guard && (rest || (ip & 1)); break;
    case TSR_RUP: ip += guard || rest; break;
    default: break; /* RTZ and RDN truncate a positive value */
    }
    return ip > 255 ? 255 : (uint32_t)ip;
}

/* ---- special functions -------------------------------------------------------------------- */

static unsigned clamp_bits(unsigned bits)
{
    return bits < 1 ? 1 : bits > 23 ? 23 : bits;
}

/* Rounds the double v to binary32 with `bits` fraction bits per mode. */
static uint32_t from_double(double v, unsigned bits, struct tsr_fpmode md)
{
    uint64_t d;
    memcpy(&d, &v, sizeof d);
    uint32_t s = (uint32_t)(d >> 63), ex = (uint32_t)(d >> 52) & 0x7ffu;
    uint64_t fr = d & (((uint64_t)1 << 52) - 1);
    if (ex == 0x7ff)
        return fr ? QNAN32 : overflow(&F32, s, md);
    if (ex == 0)
        return fr ? round_pack(&F32, bits, s, -1074, fr, 0, md) : zero(&F32, s, md);
    return round_pack(&F32, bits, s, (int32_t)ex - 1075, fr | ((uint64_t)1 << 52), 0, md);
}

uint32_t tsr_recip(uint32_t x, unsigned bits, struct tsr_fpmode md)
{
    struct unp u = unpack32(x, md);
    switch (u.c) {
    case NAN_: return nan_result(x, 0, 1, 0, md);
    case ZERO: return inf(&F32, u.s);
    case INF: return zero(&F32, u.s, md);
    default: break;
    }
    uint64_t num = (uint64_t)1 << 62; /* 1/x = (2^62 / m) * 2^(-62 - e), remainder sticky */
    return round_pack(&F32, clamp_bits(bits), u.s, -62 - u.e, num / u.m, num % u.m != 0, md);
}

uint32_t tsr_rsqrt(uint32_t x, unsigned bits, struct tsr_fpmode md)
{
    struct unp u = unpack32(x, md);
    switch (u.c) {
    case NAN_: return nan_result(x, 0, 1, 0, md);
    case ZERO: return inf(&F32, 0);
    case INF: return zero(&F32, 0, md);
    default: break;
    }
    return from_double(1.0 / sqrt(ldexp((double)u.m, u.e)), clamp_bits(bits), md);
}

uint32_t tsr_exp2(uint32_t x, unsigned bits, struct tsr_fpmode md)
{
    struct unp u = unpack32(x, md);
    switch (u.c) {
    case NAN_: return nan_result(x, 0, 1, 0, md);
    case ZERO: return 0x3f800000u;
    case INF: return u.s ? zero(&F32, 0, md) : inf(&F32, 0);
    default: break;
    }
    double v = ldexp((double)u.m, u.e);
    return from_double(exp2(u.s ? -v : v), clamp_bits(bits), md);
}

uint32_t tsr_log2(uint32_t x, unsigned bits, struct tsr_fpmode md)
{
    struct unp u = unpack32(x, md);
    if (u.c == NAN_)
        return nan_result(x, 0, 1, 0, md);
    if (u.c == ZERO)
        return inf(&F32, 1);
    if (u.s && md.nan != TSR_NAN_AS_INF)
        return QNAN32;
    if (u.c == INF)
        return inf(&F32, 0);
    return from_double(log2(ldexp((double)u.m, u.e)), clamp_bits(bits), md);
}

/* ---- the language's float functions (addition; arith.h "float functions") ----------------------- */

/* floor (away = 0, even = 0), round to nearest even (even = 1) of a finite non-zero u, exactly. */
static uint32_t to_integral(uint32_t x, struct unp u, int even, struct tsr_fpmode md)
{
    if (u.e >= 0)
        return round_pack(&F32, 23, u.s, u.e, u.m, 0, md); /* already an integer (x itself, flushed) */
    uint32_t sh = (uint32_t)-u.e;
    uint64_t ip = sh >= 64 ? 0 : u.m >> sh;
    uint64_t frac = sh >= 64 ? u.m : u.m & (((uint64_t)1 << sh) - 1);
    uint64_t half = sh >= 65 ? 0 : (uint64_t)1 << (sh - 1);   /* u.m < 2^24: sh >= 25 means |x| < 1/2 */
    (void)x;
    if (even) {
        if (sh <= 64 && (frac > half || (frac == half && (ip & 1))))
            ip++;
    } else if (u.s && frac) {
        ip++;   /* floor of a negative non-integer: one further from zero */
    }
    if (ip == 0)
        return zero(&F32, u.s, md);
    return round_pack(&F32, 23, u.s, 0, ip, 0, md);
}

uint32_t tsr_floor(uint32_t x, struct tsr_fpmode md)
{
    struct unp u = unpack32(x, md);
    switch (u.c) {
    case NAN_: return nan_result(x, 0, 1, 0, md);
    case INF: return inf(&F32, u.s);
    case ZERO: return zero(&F32, u.s, md);
    default: return to_integral(x, u, 0, md);
    }
}

uint32_t tsr_round(uint32_t x, struct tsr_fpmode md)
{
    struct unp u = unpack32(x, md);
    switch (u.c) {
    case NAN_: return nan_result(x, 0, 1, 0, md);
    case INF: return inf(&F32, u.s);
    case ZERO: return zero(&F32, u.s, md);
    default: return to_integral(x, u, 1, md);
    }
}

uint32_t tsr_fract(uint32_t x, struct tsr_fpmode md)
{
    return add_core(x, tsr_floor(x, md), 1, md);
}

/* sin / cos of a finite non-zero value: the C library in double, rounded once. */
uint32_t tsr_sin(uint32_t x, struct tsr_fpmode md)
{
    struct unp u = unpack32(x, md);
    switch (u.c) {
    case NAN_: return nan_result(x, 0, 1, 0, md);
    case INF: return QNAN32;
    case ZERO: return zero(&F32, u.s, md);
    default: break;
    }
    double v = ldexp((double)u.m, u.e);
    return from_double(sin(u.s ? -v : v), 23, md);
}

uint32_t tsr_cos(uint32_t x, struct tsr_fpmode md)
{
    struct unp u = unpack32(x, md);
    switch (u.c) {
    case NAN_: return nan_result(x, 0, 1, 0, md);
    case INF: return QNAN32;
    case ZERO: return 0x3f800000u;
    default: break;
    }
    return from_double(cos(ldexp((double)u.m, u.e)), 23, md);
}

uint32_t tsr_fma(uint32_t a, uint32_t b, uint32_t c, struct tsr_fpmode md)
{
    struct unp x = unpack32(a, md), y = unpack32(b, md), z = unpack32(c, md);
    if (x.c == NAN_ || y.c == NAN_)
        return nan_result(a, b, x.c == NAN_, y.c == NAN_, md);
    if (z.c == NAN_)
        return nan_result(c, 0, 1, 0, md);
    if (x.c != FINITE || y.c != FINITE)   /* a zero or infinite product is exact: as a multiply, then an add */
        return add_core(tsr_fmul(a, b, md), c, 0, md);
    if (z.c == INF)
        return inf(&F32, z.s);
    struct unp p = {x.s ^ y.s, x.e + y.e, x.m * y.m, FINITE};   /* exact: at most 48 bits */
    if (z.c == ZERO)
        return round_pack(&F32, 23, p.s, p.e, p.m, 0, md);
    return add_finite(p, z, md);
}
