/* Unit tests of runtime/arith.h (fp.c, intops.c): known answers and sweeps.
 *
 * "hw" tables: rows measured on a Raspberry Pi by doe300/VC4C (test/opcode_test.h,
 * test/opcode_pack_test.h, test/unpack_test.h: "auto generated from code run on the actual
 * hardware").  Operands and results are written as the signed decimals of those files so a row
 * can be compared with its source by eye; `c` is the C flag the file records (-1: not checked,
 * e.g. for the MUL ALU, whose recorded flags come from the ADD ALU).  The rows whose first
 * operand is 0x80000000 in the ASR and AND tables are corrupted in the source (results like
 * 338369632) and are not used.
 * Other hardware-derived facts come from Idein/py-videocore tests (hardware runs with random
 * inputs and tolerances); those tests are mirrored as sweeps with the same tolerances.
 */
#include <criterion/criterion.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arith.h"
#include "support_arith.h"
#include "qpu_periph.h" /* QPU_SFU_BITS_DEFAULT: the precision of the QPU SFU model */


/* A row of a two-operand hw table: a op b = r, C flag c. */
struct row {
    int64_t a, b, r;
    int c;
};


typedef uint32_t (*fop)(uint32_t, uint32_t, struct tsr_fpmode);
typedef int (*carryfn)(uint32_t a, uint32_t b, uint32_t r);

static void check_table(const char *name, fop f, const struct row *t, size_t n, carryfn carry)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t a = U(t[i].a), b = U(t[i].b), want = U(t[i].r);
        uint32_t got = f(a, b, QPU);
        cr_expect_eq(got, want, "%s row %zu: %08x, %08x -> %08x, hardware %08x", name, i, a, b, got,
                     want);
        if (carry && t[i].c >= 0)
            cr_expect_eq(carry(a, b, got), t[i].c, "%s row %zu: C flag of %08x, %08x", name, i, a, b);
    }
}

static int c_fres(uint32_t a, uint32_t b, uint32_t r)
{
    (void)a;
    (void)b;
    return tsr_fpositive(r);
}

static int c_fminmax(uint32_t a, uint32_t b, uint32_t r)
{
    (void)r;
    return tsr_fkey_gt(a, b);
}

static int c_fabs(uint32_t a, uint32_t b, uint32_t r)
{
    (void)r;
    return tsr_fabs_gt(a, b);
}

/* ---- QPU float ops against the hardware table (test/opcode_test.h) ------------------------- */

Test(hw_fp, fadd)
{
    static const struct row t[] = {
        {-2147483648, -2147483648, 0, 0},           /* -0 + -0 = +0 */
        {-2147483648, 2147483647, 2139095040, 1},   /* -0 + NaN = +inf */
        {-2147483648, -1, -8388608, 0},             /* -0 + -NaN = -inf */
        {-2147483648, 1, 0, 0},                     /* denormal read as 0 */
        {-2147483648, 1879048192, 1879048192, 1},
        {2147483647, -1, -8388608, 0},              /* +inf + -inf: second addend's sign */
        {-1, 2147483647, 2139095040, 1},
        {2147483647, 2147483647, 2139095040, 1},
        {0, -2147483521, 0, 0},
        {-1, 1879048192, -8388608, 0},
        {1, 1, 0, 0},
        {1, 1065353216, 1065353216, 1},
        {32767, 1065353216, 1065353216, 1},
        {-2147450881, -1082130432, -1082130432, 0},
        {1879048192, 1879048192, 1887436800, 1},
        {1879048192, -1879048192, 1879048191, 1},   /* 2^97 - 2^-95 truncated */
        {1879048192, -268435456, 0, 0},
        {1879048192, -1082130432, 1879048191, 1},
        {-1879048192, -1879048192, -1870659584, 0},
        {-1879048192, 1065353216, 1065353215, 1},   /* 1 - 2^-95 = 0x3f7fffff (RTZ) */
        {-1879048192, 1073741824, 1073741823, 1},
        {1065353216, 1065353216, 1073741824, 1},
        {1065353216, -1082130432, 0, 0},
        {1065353216, 1073741824, 1077936128, 1},
        {1065353216, -268435456, -268435457, 0},
        {-1082130432, -1082130432, -1073741824, 0},
        {-1082130432, 1073741824, 1065353216, 1},
        {1073741824, 1073741824, 1082130432, 1},
        {1073741824, -268435456, -268435457, 0},
        {-268435456, 1879048192, 0, 0},
        {-268435456, -268435456, -260046848, 0},
    };
    check_table("fadd", tsr_fadd, t, N(t), c_fres);
}

Test(hw_fp, fsub)
{
    static const struct row t[] = {
        {-2147483648, -2147483648, 0, 0},
        {-2147483648, 2147483647, -8388608, 0},
        {-2147483648, -1, 2139095040, 1},
        {-2147483648, 1879048192, -268435456, 0},
        {-2147483648, 1065353216, -1082130432, 0},
        {2147483647, 2147483647, -8388608, 0},
        {-1, -1, 2139095040, 1},
        {2147483647, -1082130432, 2139095040, 1},
        {0, 1, 0, 0},
        {1879048192, 1879048192, 0, 0},
        {1879048192, 1065353216, 1879048191, 1},
        {1879048192, 1073741824, 1879048191, 1},
        {1879048192, -268435456, 1887436800, 1},
        {-1879048192, -1082130432, 1065353215, 1},
        {-1879048192, -268435456, 1879048191, 1},
        {1065353216, 1879048192, -268435457, 0},
        {1065353216, -1082130432, 1073741824, 1},
        {1065353216, 1073741824, -1082130432, 0},
        {-1082130432, -1879048192, -1082130433, 0},
        {-1082130432, 1065353216, -1073741824, 0},
        {-1082130432, 1073741824, -1069547520, 0},
        {-1082130432, -268435456, 1879048191, 1},
        {1073741824, -1082130432, 1077936128, 1},
        {-268435456, 1879048192, -260046848, 0},
        {-268435456, -1879048192, -268435457, 0},
        {-268435456, -1082130432, -268435457, 0},
        {-268435456, -268435456, 0, 0},
        {-2147450881, -1082130432, 1065353216, 1},
    };
    check_table("fsub", tsr_fsub, t, N(t), c_fres);
}

Test(hw_fp, fmul)
{
    static const struct row t[] = {
        {-2147483648, 2147483647, 0, -1},           /* 0 * inf = +0 */
        {2147483647, 2147483647, 2139095040, -1},
        {2147483647, -1, -8388608, -1},
        {2147483647, 0, 0, -1},
        {2147483647, 1, 0, -1},                     /* inf * denormal(0) = +0 */
        {2147483647, 1065353216, 2139095040, -1},
        {2147483647, -1082130432, -8388608, -1},
        {-1, -1, 2139095040, -1},
        {-1, -1879048192, 2139095040, -1},
        {1879048192, 1879048192, 2139095040, -1},   /* overflow: +inf despite RTZ */
        {1879048192, -1879048192, -1065353216, -1}, /* 2^97 * -2^-95 = -4 */
        {1879048192, 1065353216, 1879048192, -1},
        {1879048192, -1082130432, -268435456, -1},
        {1879048192, 1073741824, 1887436800, -1},
        {1879048192, -268435456, -8388608, -1},
        {-1879048192, -1879048192, 0, -1},          /* underflow: +0 */
        {-1879048192, -1082130432, 268435456, -1},
        {-1879048192, 1073741824, -1870659584, -1},
        {-1879048192, -268435456, 1082130432, -1},
        {-1082130432, -1082130432, 1065353216, -1},
        {-1082130432, 1073741824, -1073741824, -1},
        {-1082130432, 0, 0, -1},                    /* -1 * 0 = +0 */
        {1073741824, 1073741824, 1082130432, -1},
        {-268435456, -268435456, 2139095040, -1},
        {32767, 1065353216, 0, -1},
        {-2147450881, -1082130432, 0, -1},
    };
    check_table("fmul", tsr_fmul, t, N(t), NULL);
}

Test(hw_fp, fmin)
{
    static const struct row t[] = {
        {-2147483648, -2147483648, -2147483648, 0},
        {-2147483648, 2147483647, -2147483648, 0},
        {-2147483648, 0, -2147483648, 0},           /* fmin(-0, +0) = -0 (first operand) */
        {0, -2147483648, 0, 0},                     /* fmin(+0, -0) = +0 */
        {-2147483648, -1, -1, 1},                   /* 0xffffffff below -inf */
        {-2147483648, 1, -2147483648, 0},           /* denormals kept, not flushed */
        {-2147483648, -2147450881, -2147483648, 0},
        {2147483647, -2147483648, -2147483648, 1},
        {2147483647, 0, 0, 1},
        {2147483647, -1, -1, 1},
        {2147483647, 2147483647, 2147483647, 0},
        {0, 1, 0, 0},
        {0, -2147450881, 0, 0},                     /* negative denormal compares positive */
        {1, 0, 0, 1},
        {1, -2147450881, 1, 0},
        {1, 1065353216, 1, 0},
        {32767, 32768, 32767, 0},
        {32768, 32767, 32767, 1},
        {-2147450881, -2147483648, -2147483648, 1},
        {-2147450881, 0, 0, 1},
        {-2147450881, 1, 1, 1},
        {-2147450881, -2147483521, -2147483521, 1},
        {-2147450881, 128, 128, 1},
        {-2147450881, 1065353216, -2147450881, 0},
        {-2147483521, -2147450881, -2147483521, 0},
        {1065353216, 1073741824, 1065353216, 0},
        {1073741824, 1065353216, 1065353216, 1},
        {-1082130432, -268435456, -268435456, 1},
        {-1879048192, 0, -1879048192, 0},
        {-268435456, -1, -1, 1},
    };
    check_table("fmin", tsr_fmin, t, N(t), c_fminmax);
}

Test(hw_fp, fmax)
{
    static const struct row t[] = {
        {-2147483648, -2147483648, -2147483648, 0},
        {-2147483648, 2147483647, 2147483647, 0},
        {-2147483648, 0, 0, 0},                     /* fmax(-0, +0) = +0 (second operand) */
        {0, -2147483648, -2147483648, 0},           /* fmax(+0, -0) = -0 */
        {-2147483648, -1, -2147483648, 1},
        {-2147483648, 1, 1, 0},
        {-2147483648, -2147450881, -2147450881, 0},
        {2147483647, -1, 2147483647, 1},
        {0, -1, 0, 1},
        {0, -2147450881, -2147450881, 0},
        {-1, 0, 0, 0},
        {-1, -1, -1, 0},
        {1, -2147483648, 1, 1},
        {32767, 32768, 32768, 0},
        {-2147450881, 32768, 32768, 0},
        {-2147450881, 128, -2147450881, 1},
        {-2147450881, -2147483521, -2147450881, 1},
        {-2147483521, -2147450881, -2147450881, 0},
        {128, -2147450881, -2147450881, 0},
        {128, -2147483521, 128, 1},
        {-1082130432, -2147483648, -2147483648, 0},
        {-1082130432, -1, -1082130432, 1},
        {-1879048192, -2147483648, -2147483648, 0},
        {1879048192, 2147483647, 2147483647, 0},
        {-268435456, -1082130432, -1082130432, 0},
    };
    check_table("fmax", tsr_fmax, t, N(t), c_fminmax);
}

Test(hw_fp, fminabs_fmaxabs)
{
    static const struct row tmin[] = {
        {-2147483648, 2147483647, 0, 0},
        {2147483647, -2147483648, 0, 1},
        {2147483647, -1, 2147483647, 0},
        {-1, 1, 1, 1},
        {-1879048192, 2147483647, 268435456, 0},
        {1879048192, -1879048192, 268435456, 1},
        {-2147450881, -2147483521, 127, 1},
        {-2147450881, 32768, 32767, 0},
        {-1082130432, 1065353216, 1065353216, 0},
        {-1082130432, -268435456, 1065353216, 0},
        {-268435456, 1879048192, 1879048192, 0},
        {1073741824, -1082130432, 1065353216, 1},
    };
    static const struct row tmax[] = {
        {-2147483648, -2147483648, 0, 0},
        {-2147483648, -1, 2147483647, 0},
        {-2147483648, -1879048192, 268435456, 0},
        {-2147483648, -2147450881, 32767, 0},
        {2147483647, -1, 2147483647, 0},
        {-1, 0, 2147483647, 1},
        {1879048192, -268435456, 1879048192, 0},
        {-1879048192, -2147483648, 268435456, 1},
        {-2147450881, -2147483521, 32767, 1},
        {-1082130432, -1879048192, 1065353216, 1},
        {-268435456, -268435456, 1879048192, 0},
        {1065353216, -1082130432, 1065353216, 0},
    };
    check_table("fminabs", tsr_fminabs, tmin, N(tmin), c_fabs);
    check_table("fmaxabs", tsr_fmaxabs, tmax, N(tmax), c_fabs);
}

/* Every hw operand of the float tables is one of these 17 values. */
static const uint32_t hw_operands[] = {
    0x80000000, 0x7fffffff, 0, 0xffffffff, 1, 0x70000000, 0x90000000, 0x7fff, 0x80007fff,
    0x8000, 0x7f, 0x8000007f, 0x80, 0x3f800000, 0xbf800000, 0x40000000, 0xf0000000,
};

Test(hw_fp, ftoi)
{
    /* test/opcode_test.h TEST_OP_FTOI, in hw_operands order; C is 0 in every row. */
    static const uint32_t want[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xffffffff, 2, 0};
    for (size_t i = 0; i < N(want); i++)
        cr_expect_eq(tsr_ftoi(hw_operands[i], QPU), want[i], "ftoi(%08x)", hw_operands[i]);
}

Test(hw_fp, itof)
{
    /* test/opcode_test.h TEST_OP_ITOF (C set exactly for positive results), hw_operands order. */
    static const int64_t want[] = {-822083584, 1325400063, 0, -1082130432, 1065353216, 1323302912,
                                   -824180736, 1191181824, -822083840, 1191182336, 1123942400,
                                   -822083585, 1124073472, 1316880384, -830406656, 1317011456,
                                   -847249408};
    static const int c[] = {0, 1, 0, 0, 1, 1, 0, 1, 0, 1, 1, 0, 1, 1, 0, 1, 0};
    for (size_t i = 0; i < N(want); i++) {
        uint32_t r = tsr_itof(hw_operands[i], QPU);
        cr_expect_eq(r, U(want[i]), "itof(%08x) = %08x", hw_operands[i], r);
        cr_expect_eq(tsr_fpositive(r), c[i], "itof C of %08x", hw_operands[i]);
    }
}

Test(hw_fp, f16_pack)
{
    /* test/opcode_pack_test.h, 16a float pack column (16b = same << 16) of FADD/FMAX results. */
    static const struct {
        int64_t in, half;
    } t[] = {
        {1065353216, 15360}, {1073741824, 16384}, {-1082130432, 48128}, {-268435456, 64512},
        {1879048192, 31744}, {2147483647, 31744}, {-1879048192, 0},     {268435456, 0},
        {-2147483648, 0},    {1, 0},              {127, 0},             {1065353215, 15360},
        {1073741823, 16384}, {-8388608, 64512},   {2139095040, 31744},  {1887436800, 31744},
        {1879048191, 31744},
    };
    for (size_t i = 0; i < N(t); i++) {
        uint32_t h = tsr_f32_to_f16(U(t[i].in), QCVT);
        cr_expect_eq(h, U(t[i].half), "f16 pack of %08x = %04x", U(t[i].in), h);
        cr_expect_eq(h << 16, U(t[i].half) << 16);
    }
}

Test(hw_fp, unpack_table)
{
    /* test/unpack_test.h: arg; 16a, 16b sign-extended; 8d replicated; bytes a-d zero-extended;
     * 16a, 16b as float; 8d replicated under a float op; bytes a-d as float. */
    static const int64_t t[][16] = {
        {-2147483648, 0, -32768, -2139062144, 0, 0, 0, 128, 0, -2147483648, -2139062144, 0, 0, 0,
         1056997504},
        {2147483647, -1, 32767, 2139062143, 255, 255, 255, 127, -8192, 2147475456, 2139062143,
         1065353216, 1065353216, 1065353216, 1056898814},
        {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {-1, -1, -1, -1, 255, 255, 255, 255, -8192, -8192, -1, 1065353216, 1065353216, 1065353216,
         1065353216},
        {1, 1, 0, 0, 1, 0, 0, 0, 8192, 0, 0, 998277248, 0, 0, 0},
        {1879048192, 0, 28672, 1886417008, 0, 0, 0, 112, 0, 1174405120, 1886417008, 0, 0, 0,
         1054925024},
        {-1879048192, 0, -28672, -1869574000, 0, 0, 0, 144, 0, -1174405120, -1869574000, 0, 0, 0,
         1058050192},
        {32767, 32767, 0, 0, 255, 127, 0, 0, 2147475456, 0, 0, 1065353216, 1056898814, 0, 0},
        {32768, -32768, 0, 0, 0, 128, 0, 0, -2147483648, 0, 0, 0, 1056997504, 0, 0},
        {127, 127, 0, 0, 127, 0, 0, 0, 1040384, 0, 0, 1056898814, 0, 0, 0},
        {128, 128, 0, 0, 128, 0, 0, 0, 1048576, 0, 0, 1056997504, 0, 0, 0},
        {1065353216, 0, 16256, 1061109567, 0, 0, 128, 63, 0, 1072693248, 1061109567, 0, 0,
         1056997504, 1048378620},
        {-1082130432, 0, -16512, -1077952577, 0, 0, 128, 191, 0, -1074790400, -1077952577, 0, 0,
         1056997504, 1061142463},
        {1073741824, 0, 16384, 1077952576, 0, 0, 0, 64, 0, 1073741824, 1077952576, 0, 0, 0,
         1048608896},
        {-268435456, 0, -4096, -252645136, 0, 0, 0, 240, 0, -973078528, -252645136, 0, 0, 0,
         1064366320},
    };
    for (size_t i = 0; i < N(t); i++) {
        uint32_t x = U(t[i][0]);
        cr_expect_eq(tsr_sext16(x, 0), U(t[i][1]), "16a of %08x", x);
        cr_expect_eq(tsr_sext16(x, 1), U(t[i][2]), "16b of %08x", x);
        cr_expect_eq(tsr_byte_rep(tsr_byte_get(x, 3)), U(t[i][3]), "8dr of %08x", x);
        for (unsigned k = 0; k < 4; k++) {
            cr_expect_eq(tsr_byte_get(x, k), U(t[i][4 + k]), "8%c of %08x", 'a' + k, x);
            cr_expect_eq(tsr_unorm8_to_f32(tsr_byte_get(x, k), QPU), U(t[i][11 + k]),
                         "8%c float of %08x", 'a' + k, x);
        }
        cr_expect_eq(tsr_f16_to_f32(x & 0xffff, QPU), U(t[i][8]), "16a float of %08x", x);
        cr_expect_eq(tsr_f16_to_f32(x >> 16, QPU), U(t[i][9]), "16b float of %08x", x);
        cr_expect_eq(tsr_byte_rep(tsr_byte_get(x, 3)), U(t[i][10]), "8dr float of %08x", x);
    }
}

/* ---- QPU integer ops against the hardware table ------------------------------------------ */

/* add and sub rows: a, b, wrapped result, 32s-pack result, C. */
struct srow {
    int64_t a, b, r, sat;
    int c;
};

Test(hw_int, add_carry_sat)
{
    static const struct srow t[] = {
        {-2147483648, -2147483648, 0, -2147483648, 1},
        {-2147483648, -1, 2147483647, -2147483648, 1},
        {2147483647, 2147483647, -2, 2147483647, 0},
        {2147483647, -1, 2147483646, 2147483646, 1},
        {2147483647, 1, -2147483648, 2147483647, 0},
        {-1, 1, 0, 0, 1},
        {-1, -1, -2, -2, 1},
        {0, -1, -1, -1, 0},
        {1879048192, 1879048192, -536870912, 2147483647, 0},
        {-1879048192, -1879048192, 536870912, -2147483648, 1},
        {-1082130432, -1082130432, 2130706432, -2147483648, 1},
        {1073741824, 1073741824, -2147483648, 2147483647, 0},
        {-268435456, -1879048192, -2147483648, -2147483648, 1},
    };
    for (size_t i = 0; i < N(t); i++) {
        uint32_t a = U(t[i].a), b = U(t[i].b);
        cr_expect_eq(tsr_add32(a, b), U(t[i].r), "add row %zu", i);
        cr_expect_eq(tsr_adds32(a, b), U(t[i].sat), "add 32s row %zu", i);
        cr_expect_eq(tsr_carry_add(a, b), t[i].c, "add C row %zu", i);
    }
}

Test(hw_int, sub_carry_sat)
{
    static const struct srow t[] = {
        {-2147483648, 2147483647, 1, 2147483647, 0},
        {-2147483648, -1, -2147483647, -2147483647, 1},
        {-2147483648, 1, 2147483647, 2147483647, 0},
        {2147483647, -2147483648, -1, -2147483648, 1},
        {2147483647, -1, -2147483648, -2147483648, 1},
        {0, -1, 1, 1, 1},
        {0, 1, -1, -1, 1},
        {-1, -2147483648, 2147483647, 2147483647, 0},
        {-1, 2147483647, -2147483648, -2147483648, 0},
        {1879048192, -1879048192, -536870912, -2147483648, 1},
        {-1879048192, 1879048192, 536870912, 2147483647, 0},
        {1, 2147483647, -2147483646, -2147483646, 1},
        {1073741824, -1082130432, -2139095040, -2147483648, 1},
        {-1082130432, 1073741824, 2139095040, 2147483647, 0},
        {32767, 32768, -1, -1, 1},
        {128, 127, 1, 1, 0},
    };
    for (size_t i = 0; i < N(t); i++) {
        uint32_t a = U(t[i].a), b = U(t[i].b);
        cr_expect_eq(tsr_sub32(a, b), U(t[i].r), "sub row %zu", i);
        cr_expect_eq(tsr_subs32_swapped(a, b), U(t[i].sat), "sub 32s row %zu", i);
        cr_expect_eq(tsr_borrow_sub(a, b), t[i].c, "sub C row %zu", i);
    }
    /* The mathematically correct saturation clamps the other way on overflow. */
    cr_expect_eq(tsr_subs32(0x7fffffff, 0xffffffff), 0x7fffffffu);
    cr_expect_eq(tsr_subs32(0x80000000, 1), 0x80000000u);
}

/* shift rows: x, count, result, C. */
Test(hw_int, shifts)
{
    static const struct row shl[] = {
        {-2147483648, 1, 0, 1},
        {2147483647, 2147483647, -2147483648, 1},
        {2147483647, 1, -2, 0},
        {1, 2147483647, -2147483648, 0},
        {1879048192, 2147483647, 0, 0},
        {1879048192, 1, -536870912, 0},
        {-1879048192, 1, 536870912, 1},
        {-1, 1, -2, 1},
        {32767, 2147483647, -2147483648, 1},
        {32768, 32768, 32768, 0},
        {-1082130432, 1, 2130706432, 1},
        {-268435456, 1, -536870912, 1},
        {127, 127, -2147483648, 1},
    };
    static const struct row shr[] = {
        {2147483647, 2147483647, 0, 1},
        {2147483647, 1, 1073741823, 1},
        {-1, 1, 2147483647, 1},
        {-1, 2147483647, 1, 1},
        {1, 1, 0, 1},
        {1, 2147483647, 0, 0},
        {1879048192, 2147483647, 0, 1},
        {1879048192, 1, 939524096, 0},
        {-1879048192, 2147483647, 1, 0},
        {127, 1, 63, 1},
        {128, 1, 64, 0},
        {32767, 1, 16383, 1},
        {-268435456, 2147483647, 1, 1},
        {-1082130432, 1, 1606418432, 0},
        {-2147483648, 1, 1073741824, 0},
    };
    static const struct row asr[] = {
        {2147483647, 2147483647, 0, 1},
        {2147483647, 1, 1073741823, 1},
        {-1, 2147483647, -1, 1},
        {-1, -2147483648, -1, 0},
        {1, 1, 0, 1},
        {-1879048192, 1, -939524096, 0},
        {-1879048192, 2147483647, -1, 0},
        {-1082130432, 1, -541065216, 0},
        {-268435456, 2147483647, -1, 1},
        {1073741824, 2147483647, 0, 1},
        {127, 1, 63, 1},
        {32767, 2147483647, 0, 0},
    };
    static const struct row ror[] = {
        {-2147483648, 2147483647, 1, 0},
        {-2147483648, 1, 1073741824, 0},
        {2147483647, 1, -1073741825, 0},
        {2147483647, 2147483647, -2, 0},
        {1, 1, -2147483648, 0},
        {1, 2147483647, 2, 0},
        {1879048192, 1, 939524096, 0},
        {-1879048192, 2147483647, 536870913, 0},
        {-1879048192, 1, 1207959552, 0},
        {32767, 1, -2147467265, 0},
        {127, 1, -2147483585, 0},
        {-1082130432, 1, 1606418432, 0},
        {-268435456, 2147483647, -536870911, 0},
        {-1082130432, 127, 2130706433, 0},
    };
    for (size_t i = 0; i < N(shl); i++) {
        uint32_t x = U(shl[i].a), n = U(shl[i].b);
        cr_expect_eq(tsr_shl(x, n), U(shl[i].r), "shl row %zu", i);
        cr_expect_eq(tsr_carry_shl(x, n), shl[i].c, "shl C row %zu", i);
    }
    for (size_t i = 0; i < N(shr); i++) {
        uint32_t x = U(shr[i].a), n = U(shr[i].b);
        cr_expect_eq(tsr_shr(x, n), U(shr[i].r), "shr row %zu", i);
        cr_expect_eq(tsr_carry_shr(x, n), shr[i].c, "shr C row %zu", i);
    }
    for (size_t i = 0; i < N(asr); i++) {
        uint32_t x = U(asr[i].a), n = U(asr[i].b);
        cr_expect_eq(tsr_asr(x, n), U(asr[i].r), "asr row %zu", i);
        cr_expect_eq(tsr_carry_shr(x, n), asr[i].c, "asr C row %zu", i);
    }
    for (size_t i = 0; i < N(ror); i++)
        cr_expect_eq(tsr_ror(U(ror[i].a), U(ror[i].b)), U(ror[i].r), "ror row %zu", i);
}

Test(hw_int, clz)
{
    /* TEST_OP_CLZ in hw_operands order (integer table: the same patterns). */
    static const uint32_t in[] = {0x80000000, 0x7fffffff, 0, 0xffffffff, 1, 0x70000000,
                                  0x90000000, 32767, 32768, 127, 128, 0x3f800000, 0xbf800000,
                                  0x40000000, 0xf0000000};
    static const uint32_t want[] = {0, 1, 32, 0, 31, 1, 0, 17, 16, 25, 24, 2, 0, 1, 0};
    for (size_t i = 0; i < N(in); i++)
        cr_expect_eq(tsr_clz(in[i]), want[i], "clz(%08x)", in[i]);
}

Test(hw_int, mul24)
{
    static const struct row t[] = {
        {2147483647, 2147483647, -33554431, -1}, /* 0xffffff^2 mod 2^32: unsigned */
        {2147483647, 1, 16777215, -1},
        {2147483647, 32767, -16809983, -1},
        {2147483647, 32768, -32768, -1},
        {2147483647, 127, 2130706305, -1},
        {-1, -1, -33554431, -1},
        {1, 1065353216, 8388608, -1},
        {32767, 32767, 1073676289, -1},
        {32768, 32768, 1073741824, -1},
        {127, 128, 16256, -1},
        {127, 1065353216, 1065353216, -1},
        {128, 1065353216, 1073741824, -1},
        {1065353216, 32767, -8388608, -1},
        {1879048192, 2147483647, 0, -1},         /* low 24 bits of 0x70000000 are 0 */
    };
    for (size_t i = 0; i < N(t); i++)
        cr_expect_eq(tsr_mul24(U(t[i].a), U(t[i].b)), U(t[i].r), "mul24 row %zu", i);
}

Test(hw_int, min_max)
{
    cr_expect_eq(tsr_smax(0, 0x80000000), 0u);
    cr_expect_eq(tsr_sgt(0, 0x80000000), 1);
    cr_expect_eq(tsr_smax(0xffffffff, 0x80000000), 0xffffffffu);
    cr_expect_eq(tsr_smin(0x7fffffff, 0), 0u);
    cr_expect_eq(tsr_sgt(0x7fffffff, 0), 1);
    cr_expect_eq(tsr_smin(0, 0xffffffff), 0xffffffffu);
    cr_expect_eq(tsr_smin(0xffffffff, 0), 0xffffffffu);
    cr_expect_eq(tsr_sgt(0xffffffff, 0), 0);
    cr_expect_eq(tsr_umin(0xffffffff, 0), 0u);
    cr_expect_eq(tsr_umax(0xffffffff, 0), 0xffffffffu);
}

Test(hw_int, v8_ops)
{
    static const struct row adds[] = {
        {-2147483648, -2147483648, -16777216, -1}, {2147483647, 2147483647, -16777217, -1},
        {32767, 32767, 65279, -1},                 {32768, 32768, 65280, -1},
        {128, 128, 255, -1},                       {1065353216, 1065353216, 2130640896, -1},
        {-1082130432, -1082130432, -65536, -1},    {1065353216, -1082130432, -16842752, -1},
    };
    static const struct row subs[] = {
        {-2147483648, 2147483647, 16777216, -1},  {2147483647, -2147483648, 16777215, -1},
        {32767, 32768, 255, -1},                  {32768, 32767, 256, -1},
        {128, 127, 1, -1},                        {127, 128, 0, -1},
        {-1879048192, 2147483647, 285212672, -1}, {1065353216, -2147483648, 8388608, -1},
        {-1082130432, 2147483647, 1073741824, -1},
    };
    static const struct row mins[] = {
        {-2147483648, 2147483647, 2130706432, -1}, {32767, 32768, 32512, -1},
        {1065353216, -2147483648, 1056964608, -1}, {-1082130432, -268435456, -1090519040, -1},
    };
    static const struct row maxs[] = {
        {-2147483648, 2147483647, -2130706433, -1}, {32767, 32768, 33023, -1},
        {2147483647, -1879048192, -1862270977, -1}, {1065353216, 1879048192, 1887436800, -1},
        {-1082130432, -268435456, -260046848, -1},
    };
    static const struct row muld[] = {
        {-2147483648, -2147483648, 1073741824, -1}, /* 0x80 * 0x80 -> 0x40 */
        {2147483647, 2147483647, 1073741823, -1},   /* 0xff * 0xff -> 0xff, 0x7f^2 -> 0x3f */
        {-1, 2147483647, 2147483647, -1},
        {1, 1, 0, -1},
        {1, -1, 1, -1},
        {1, 128, 1, -1},
        {1, 127, 0, -1},
        {127, 127, 63, -1},
        {127, 128, 64, -1},
        {128, 128, 64, -1},
        {1879048192, 1879048192, 822083584, -1},
        {1879048192, -1879048192, 1056964608, -1},
        {-1879048192, -1879048192, 1358954496, -1},
        {-1879048192, -268435456, -2013265920, -1},
        {1065353216, 1065353216, 272629760, -1},
        {-1082130432, -1082130432, -1891631104, -1},
        {2147483647, 1065353216, 528482304, -1},
        {-268435456, -268435456, -503316480, -1},
        {32767, 32767, 16383, -1},
        {32767, 32768, 16384, -1},
    };
    for (size_t i = 0; i < N(adds); i++)
        cr_expect_eq(tsr_v8adds(U(adds[i].a), U(adds[i].b)), U(adds[i].r), "v8adds row %zu", i);
    for (size_t i = 0; i < N(subs); i++)
        cr_expect_eq(tsr_v8subs(U(subs[i].a), U(subs[i].b)), U(subs[i].r), "v8subs row %zu", i);
    for (size_t i = 0; i < N(mins); i++)
        cr_expect_eq(tsr_v8min(U(mins[i].a), U(mins[i].b)), U(mins[i].r), "v8min row %zu", i);
    for (size_t i = 0; i < N(maxs); i++)
        cr_expect_eq(tsr_v8max(U(maxs[i].a), U(maxs[i].b)), U(maxs[i].r), "v8max row %zu", i);
    for (size_t i = 0; i < N(muld); i++)
        cr_expect_eq(tsr_v8muld(U(muld[i].a), U(muld[i].b)), U(muld[i].r), "v8muld row %zu", i);
}

Test(hw_int, v8muld_exhaustive)
{
    /* Idein/py-videocore tests/test_alu.py (hardware, random bytes): |int(a*b/255) - r| <= 1;
     * plus the brief's cases 0xff*0xff and 0x80*0x80. */
    for (uint32_t a = 0; a < 256; a++)
        for (uint32_t b = 0; b < 256; b++) {
            uint32_t r = tsr_v8muld(a | a << 24, b | b << 24);
            int64_t t = (int64_t)(a * b / 255.0);
            cr_assert(llabs(t - (int64_t)(r & 0xff)) <= 1, "v8muld %u %u", a, b);
            cr_assert_eq(r & 0xff, r >> 24);
            cr_assert_eq((r >> 8) & 0xffff, 0u);
        }
    cr_expect_eq(tsr_v8muld(0xff, 0xff), 0xffu);
    cr_expect_eq(tsr_v8muld(0x80, 0x80), 0x40u);
    cr_expect_eq(tsr_v8muld(0xffffffff, 0x80ff0100), 0x80ff0100u);
}

Test(hw_int, int_packs)
{
    /* test/opcode_pack_test.h (ASR rows): result -> 16a sat, 8a sat, 8888 sat. */
    static const int64_t t[][4] = {
        {-2147483648, 32768, 0, 0},          {-1, 65535, 0, 0},
        {2147483647, 32767, 255, -1},        {1, 1, 1, 16843009},
        {1879048192, 32767, 255, -1},        {32768, 32767, 255, -1},
        {16383, 16383, 255, -1},             {127, 127, 127, 2139062143},
        {128, 128, 128, -2139062144},        {-939524096, 32768, 0, 0},
    };
    for (size_t i = 0; i < N(t); i++) {
        uint32_t x = U(t[i][0]);
        cr_expect_eq(tsr_sat_s16(x), U(t[i][1]), "16a sat of %08x", x);
        cr_expect_eq(tsr_sat_u8(x), U(t[i][2]), "8a sat of %08x", x);
        cr_expect_eq(tsr_byte_rep(tsr_sat_u8(x)), U(t[i][3]), "8888 sat of %08x", x);
    }
    cr_expect_eq(tsr_byte_set(0x11223344, 2, 0x1ff), 0x11ff3344u);
    cr_expect_eq(tsr_byte_rep(0x1ab), 0xabababab);
}

/* ---- the brief's named cases --------------------------------------------------------------- */

Test(named, qpu_denormal_inputs)
{
    /* Denormal inputs read as zero: 2^-149 + 2^-149 = +0, 1.0 + denormal = 1.0 (VC4C hw table);
     * IEEE keeps them. */
    cr_expect_eq(tsr_fadd(1, 1, QPU), 0u);
    cr_expect_eq(tsr_fadd(0x3f800000, 0x7fff, QPU), 0x3f800000u);
    cr_expect_eq(tsr_fmul(0x00400000, 0x4b000000, QPU), 0u); /* 2^-127 * 2^23 */
    cr_expect_eq(tsr_fadd(1, 1, IEEE), 2u);
    cr_expect_eq(tsr_fmul(0x00400000, 0x4b000000, IEEE), 0x0b800000u); /* 2^-104 */
    /* Denormal results flush to +0 under QPU: 2^-126 * 0.5 */
    cr_expect_eq(tsr_fmul(0x00800000, 0x3f000000, QPU), 0u);
    cr_expect_eq(tsr_fmul(0x00800000, 0x3f000000, IEEE), 0x00400000u);
    cr_expect_eq(tsr_fmul(0x80800000, 0x3f000000, IEEE), 0x80400000u);
}

Test(named, fmin_signed_zero)
{
    cr_expect_eq(tsr_fmin(0x80000000, 0, QPU), 0x80000000u);
    cr_expect_eq(tsr_fmin(0, 0x80000000, QPU), 0u); /* hardware: tie keeps the first operand */
    cr_expect_eq(tsr_fmin(0, 0x80000000, IEEE), 0x80000000u);
    cr_expect_eq(tsr_fmin(0x80000000, 0, IEEE), 0x80000000u);
    cr_expect_eq(tsr_fmax(0x80000000, 0, IEEE), 0u);
    cr_expect_eq(tsr_fmax(0, 0x80000000, IEEE), 0u);
    cr_expect_eq(tsr_fcmp(0, 0x80000000, IEEE), TSR_FCMP_EQ);
}

Test(named, ftoi_cases)
{
    cr_expect_eq(tsr_ftoi(fb(3.7f), QPU), 3u);
    cr_expect_eq(tsr_ftoi(fb(-3.7f), QPU), (uint32_t)-3);
    cr_expect_eq(tsr_ftoi(fb(1e10f), QPU), 0u);
    cr_expect_eq(tsr_ftoi(fb(-1e10f), QPU), 0u);
    cr_expect_eq(tsr_ftoi(0x7fc00000, QPU), 0u);
    cr_expect_eq(tsr_ftoi(0x7f800000, QPU), 0u);
    cr_expect_eq(tsr_ftoi(fb(2147483520.0f), QPU), 2147483520u); /* largest in range */
    cr_expect_eq(tsr_ftoi(fb(-2147483648.0f), QPU), 0u);         /* |x| > INT32_MAX */
    cr_expect_eq(tsr_ftoi(fb(0.99999994f), QPU), 0u);
    /* Non-QPU: saturating, NaN -> 0. */
    cr_expect_eq(tsr_ftoi(fb(1e10f), IEEE), 0x7fffffffu);
    cr_expect_eq(tsr_ftoi(fb(-1e10f), IEEE), 0x80000000u);
    cr_expect_eq(tsr_ftoi(fb(-2147483648.0f), IEEE), 0x80000000u);
    cr_expect_eq(tsr_ftoi(0x7fc00000, IEEE), 0u);
    cr_expect_eq(tsr_ftoi(0xff800000, IEEE), 0x80000000u);
    /* Rounding variant. */
    cr_expect_eq(tsr_ftoi_r(fb(2.5f), IEEE), 2u);
    cr_expect_eq(tsr_ftoi_r(fb(3.5f), IEEE), 4u);
    cr_expect_eq(tsr_ftoi_r(fb(-2.5f), mode(TSR_RDN, 0)), (uint32_t)-3);
    cr_expect_eq(tsr_ftoi_r(fb(2.1f), mode(TSR_RUP, 0)), 3u);
    cr_expect_eq(tsr_ftoi_r(fb(-3.7f), mode(TSR_RTZ, 0)), (uint32_t)-3);
}

Test(named, ftoi_sweep)
{
    /* Idein/py-videocore tests/test_alu.py test_type_conv (hardware): ftoi == astype(int32)
     * (truncation) and itof(ftoi(x)) == float of that, for randn * 1000. */
    uint32_t s = 12345;
    for (int i = 0; i < 20000; i++) {
        s = s * 1103515245u + 12345u;
        float x = ((float)(s >> 8) / 16777216.0f - 0.5f) * 4000.0f;
        int32_t t = (int32_t)x;
        cr_assert_eq(tsr_ftoi(fb(x), QPU), (uint32_t)t, "ftoi(%a)", (double)x);
        cr_assert_eq(tsr_itof((uint32_t)t, QPU), fb((float)t));
    }
}

Test(named, itof_rounding)
{
    /* 2^24 + 1 is not representable: RNE ties to even (2^24), RTZ truncates, RUP goes up. */
    cr_expect_eq(tsr_itof(16777217, IEEE), 0x4b800000u);
    cr_expect_eq(tsr_itof(16777217, QPU), 0x4b800000u);
    cr_expect_eq(tsr_itof(16777219, IEEE), 0x4b800002u); /* tie to even upward */
    cr_expect_eq(tsr_itof(16777219, QPU), 0x4b800001u);
    cr_expect_eq(tsr_itof(16777217, mode(TSR_RUP, 0)), 0x4b800001u);
    cr_expect_eq(tsr_itof((uint32_t)-16777217, mode(TSR_RDN, 0)), 0xcb800001u);
    cr_expect_eq(tsr_itof(0x7fffffff, IEEE), 0x4f000000u);
    cr_expect_eq(tsr_itof(0x80000000, IEEE), 0xcf000000u);
    cr_expect_eq(tsr_utof(0xffffffff, IEEE), 0x4f800000u);
    cr_expect_eq(tsr_utof(0xffffffff, QPU), 0x4f7fffffu);
    cr_expect_eq(tsr_itof(0, IEEE), 0u);
}

Test(named, f16_patterns)
{
    /* half -> float, exact (IEEE): 1.0, -2.0, max, min normal, denormals, inf, NaN */
    cr_expect_eq(tsr_f16_to_f32(0x3c00, IEEE), 0x3f800000u);
    cr_expect_eq(tsr_f16_to_f32(0xc000, IEEE), 0xc0000000u);
    cr_expect_eq(tsr_f16_to_f32(0x7bff, IEEE), fb(65504.0f));
    cr_expect_eq(tsr_f16_to_f32(0x0400, IEEE), fb(0x1p-14f));
    cr_expect_eq(tsr_f16_to_f32(0x0001, IEEE), fb(0x1p-24f));
    cr_expect_eq(tsr_f16_to_f32(0x03ff, IEEE), fb(0x3ffp-24f));
    cr_expect_eq(tsr_f16_to_f32(0x8001, IEEE), fb(-0x1p-24f));
    cr_expect_eq(tsr_f16_to_f32(0x7c00, IEEE), 0x7f800000u);
    cr_expect_eq(tsr_f16_to_f32(0xfc00, IEEE), 0xff800000u);
    cr_expect_eq(tsr_f16_to_f32(0x7e01, IEEE), 0x7fc02000u);
    cr_expect_eq(tsr_f16_to_f32(0x7c01, IEEE), 0x7fc02000u); /* signalling -> quiet */
    cr_expect_eq(tsr_f16_to_f32(0xfc01, TSR_FPMODE_IEEE), 0xffc02000u);
    cr_expect_eq(tsr_f16_to_f32(0x0001, mode(TSR_RNE, 1)), 0u);
    cr_expect_eq(tsr_f16_to_f32(0x8000, IEEE), 0x80000000u);
    cr_expect_eq(tsr_f16_to_f32(0xffff3c00, IEEE), 0x3f800000u); /* high bits ignored */
    /* QPU field expansion (VC4C hw table): denormal stays a float denormal, inf stays inf. */
    cr_expect_eq(tsr_f16_to_f32(0x0001, QPU), 0x00002000u);
    cr_expect_eq(tsr_f16_to_f32(0x7c00, QPU), 0x7f800000u);
    cr_expect_eq(tsr_f16_to_f32(0x3c00, QPU), 0x3f800000u);
    /* float -> half */
    cr_expect_eq(tsr_f32_to_f16(fb(65504.0f), IEEE), 0x7bffu);
    cr_expect_eq(tsr_f32_to_f16(fb(65520.0f), IEEE), 0x7c00u); /* rounds up to inf */
    cr_expect_eq(tsr_f32_to_f16(fb(65520.0f), mode(TSR_RTZ, 0)), 0x7bffu);
    cr_expect_eq(tsr_f32_to_f16(fb(0x1p-24f), IEEE), 0x0001u);
    cr_expect_eq(tsr_f32_to_f16(fb(0x1p-25f), IEEE), 0x0000u);   /* tie to even: 0 */
    cr_expect_eq(tsr_f32_to_f16(fb(0x1.8p-24f), IEEE), 0x0002u); /* tie to even: 2 */
    cr_expect_eq(tsr_f32_to_f16(fb(0x1.000002p-25f), IEEE), 0x0001u);
    cr_expect_eq(tsr_f32_to_f16(fb(0x1p-24f), QCVT), 0x0000u); /* QPU: no denormal output */
    cr_expect_eq(tsr_f32_to_f16(fb(1.0f + 0x1p-11f), IEEE), 0x3c00u); /* tie to even down */
    cr_expect_eq(tsr_f32_to_f16(fb(1.0f + 0x3p-11f), IEEE), 0x3c02u); /* tie to even up */
    cr_expect_eq(tsr_f32_to_f16(0x7f800000, IEEE), 0x7c00u);
    cr_expect_eq(tsr_f32_to_f16(0xff800000, IEEE), 0xfc00u);
    cr_expect_eq(tsr_f32_to_f16(0x7fc02000, IEEE), 0x7e01u);
    cr_expect_eq(tsr_f32_to_f16(0x80000000, IEEE), 0x8000u);
    cr_expect_eq(tsr_f32_to_f16(0x7fc02000, QCVT), 0x7c00u);
    cr_expect_eq(tsr_f32_to_f16(0xffc02000, QCVT), 0xfc00u);
}

Test(named, f16_exhaustive_round_trip)
{
    /* Every non-NaN half converts to float exactly (value check against ldexp) and back. */
    for (uint32_t h = 0; h < 0x10000; h++) {
        uint32_t ex = (h >> 10) & 0x1f, fr = h & 0x3ff;
        if (ex == 31 && fr)
            continue;
        uint32_t f = tsr_f16_to_f32(h, IEEE);
        double v = ex == 31 ? INFINITY : ex ? ldexp(1024 + fr, (int)ex - 25) : ldexp(fr, -24);
        if (h & 0x8000)
            v = -v;
        cr_assert_eq(f, fb((float)v), "f16 %04x", h);
        cr_assert_eq(tsr_f32_to_f16(f, IEEE), h, "round trip %04x", h);
        cr_assert_eq(tsr_f32_to_f16(f, mode(TSR_RTZ, 0)), h);
        if (ex != 0) { /* QPU: same for normals and infinities */
            cr_assert_eq(tsr_f16_to_f32(h, QPU), f);
            if (!(h == 0x8000))
                cr_assert_eq(tsr_f32_to_f16(f, QCVT), h);
        }
    }
}

Test(named, f16_pack_sweep)
{
    /* Idein/py-videocore tests/test_packunpack.py (hardware): 16a/16b float pack and unpack
     * agree with numpy float16 to rtol 1e-3 for randn. */
    uint32_t s = 777;
    for (int i = 0; i < 20000; i++) {
        s = s * 1664525u + 1013904223u;
        float x = ((float)(s >> 8) / 16777216.0f - 0.5f) * 8.0f;
        uint32_t h = tsr_f32_to_f16(fb(x), QCVT);
        float back = bf(tsr_f16_to_f32(h, QPU));
        cr_assert(fabsf(back - x) <= 1e-3f * fabsf(x) + 1e-4f, "%a -> %04x -> %a", (double)x, h,
                  (double)back);
    }
}

Test(named, unorm8_round_trip)
{
    for (uint32_t b = 0; b < 256; b++) {
        uint32_t q = tsr_unorm8_to_f32(b, QPU), e = tsr_unorm8_to_f32(b, IEEE);
        /* RTZ: the largest float <= b/255; RNE: the nearest (no ties: b/255 is not dyadic). */
        double v = b / 255.0;
        cr_assert(bf(q) <= v && (double)nextafterf(bf(q), 2.0f) > v, "rtz %u", b);
        cr_assert_eq(e, fb((float)b / 255.0f), "rne %u", b);
        /* py-videocore tests/test_packunpack.py (hardware): rtol 1e-7 against b/255. */
        cr_assert(fabs(bf(q) - v) <= 1e-7 * v, "rtol %u", b);
        cr_assert_eq(tsr_f32_to_unorm8(q, QCVT), b, "QPU round trip %u", b);
        cr_assert_eq(tsr_f32_to_unorm8(e, IEEE), b, "IEEE round trip %u", b);
    }
    /* Saturation and special values (MUL pack). */
    cr_expect_eq(tsr_f32_to_unorm8(fb(1.5f), QCVT), 255u);
    cr_expect_eq(tsr_f32_to_unorm8(fb(-0.5f), QCVT), 0u);
    cr_expect_eq(tsr_f32_to_unorm8(0x80000000, QCVT), 0u);
    cr_expect_eq(tsr_f32_to_unorm8(0x7fffffff, QCVT), 255u); /* QPU: NaN encoding = +inf */
    cr_expect_eq(tsr_f32_to_unorm8(0xffffffff, QCVT), 0u);
    cr_expect_eq(tsr_f32_to_unorm8(0x7fc00000, IEEE), 0u);
    cr_expect_eq(tsr_f32_to_unorm8(fb(0.5f), QCVT), 128u);       /* 127.5 -> 128 */
    cr_expect_eq(tsr_f32_to_unorm8(fb(0.5f), mode(TSR_RTZ, 0)), 127u);
    cr_expect_eq(tsr_f32_to_unorm8(fb(0.0019f), QCVT), 0u);      /* 0.48 */
    cr_expect_eq(tsr_f32_to_unorm8(fb(0.0021f), QCVT), 1u);      /* 0.54 */
}

Test(named, mul_pack_sweep)
{
    /* Idein/py-videocore tests/test_packunpack.py test_pack_mul (hardware): every byte of the
     * MUL pack is within 1 of int(clip(x * 255, 0, 255)) for x = randn * 0.5 + 0.5. */
    uint32_t s = 99;
    for (int i = 0; i < 20000; i++) {
        s = s * 1664525u + 1013904223u;
        float x = ((float)(s >> 8) / 16777216.0f) * 3.0f - 1.0f;
        int32_t want = (int32_t)fminf(fmaxf(x * 255.0f, 0.0f), 255.0f);
        int32_t got = (int32_t)tsr_f32_to_unorm8(fb(x), QCVT);
        cr_assert(abs(got - want) <= 1, "%a", (double)x);
    }
}
