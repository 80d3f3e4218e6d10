/* X11 component values and the float built-ins (docs/mdl.md "Component values", docs/sim.md "Component
 * values", "Float built-ins") on tests/desc/vec.mdl, a description made for them, in the generated simulator
 * (build/gen/vec/vec_sim.c) and in the independent evaluator (mdl/eval.h):
 *  - known answers, each bundle run in both and their states compared: per-component operators with a scalar
 *    splatted, comp / vec4 / splat / swizzle (indices from fields and from expressions), masked writes in
 *    statements and in an operand alternative, a vec4 condition, relative addressing through a component, the
 *    float built-ins (exact for the IEEE-exact ones; the C library's double function rounded once for the
 *    others, which is what the result is compared with), and the abort statement's report;
 *  - the state accessors of the descriptor (the four components as the lanes);
 *  - random bundles from random states, simulator against evaluator (mdl/diffsim.h).
 * Run from the repository root (or with TESSERA_ROOT set to it). */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diffsim.h"
#include "eval.h"
#include "tsr.h"
#include "vec.h"
#include "support_float.h"
#include "support_diffsim.h"
#include "support_san.h"

static struct mdl_model *M;
static struct vec_sim S;
static struct mdl_evstate EV;

static void setup(void)
{
    char path[4096];
    const char *root = getenv("TESSERA_ROOT");
    snprintf(path, sizeof path, "%s/tests/desc/vec.mdl", root && *root ? root : ".");
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
    M = mdl_load(path, &d);
    tsr_diag_fini(&d);
    cr_assert_not_null(M, "cannot load %s", path);
    cr_assert_eq(mdl_evstate_init(&EV, M), 0);
    vec_sim_init(&S);
}

static void teardown(void)
{
    vec_sim_fini(&S);
    mdl_evstate_fini(&EV);
    mdl_model_free(M);
}

TestSuite(vec, .init = setup, .fini = teardown);

static void setr(int r, float x, float y, float z, float w)
{
    S.r[r][0] = B(x);
    S.r[r][1] = B(y);
    S.r[r][2] = B(z);
    S.r[r][3] = B(w);
}

/* One instruction word from its fields (tests/desc/vec.mdl). */
struct ins { unsigned opc, d, a, b, c, wm, swz, k, imm; };
static uint64_t word(struct ins i)
{
    return (uint64_t)i.opc << 58 | (uint64_t)i.d << 54 | (uint64_t)i.a << 50 | (uint64_t)i.b << 46 |
           (uint64_t)i.c << 42 | (uint64_t)i.wm << 38 | (uint64_t)i.swz << 30 | (uint64_t)i.k << 28 | i.imm;
}

/* Runs one bundle at pc 0 in the simulator and, from the same state, in the evaluator (both from its decoded
 * fields: the codec's path is diffsim's, below); asserts that both
 * return the same code and end in the same state (report included).  Returns the code. */
static int run(struct ins in)
{
    uint64_t w = word(in);
    uint32_t words[2] = {(uint32_t)w, (uint32_t)(w >> 32)};
    S.pc = 0;
    S.core.status = 0;   /* a fresh report for every bundle */
    S.core.msg[0] = 0;
    EV.ctl.status = 0;   /* mdl_evstate_from_sim copies the control state, not the report */
    EV.ctl.msg[0] = 0;
    mdl_evstate_from_sim(&EV, &vec_sim_desc, &S);
    int format, ops[4];
    uint64_t fields[16];
    cr_assert_geq(vec_sim_desc.decode(words, &format, ops, fields), 0);
    int re = mdl_eval_bundle(M, &EV, fields, format, ops);
    int rs = vec_sim_desc.exec(&S, format, ops, fields);   /* step would keep its decode cache: words on the stack */
    cr_assert_eq(re, rs, "opcode %u: evaluator %d (%s), simulator %d (%s)", in.opc, re, EV.ctl.msg, rs, S.core.msg);
    char diff[512];
    cr_assert_eq(mdl_evstate_compare_sim(&EV, &vec_sim_desc, &S, diff, sizeof diff), 0, "opcode %u: %s", in.opc, diff);
    return rs;
}

static void expect4(int r, uint32_t x, uint32_t y, uint32_t z, uint32_t w)
{
    uint32_t e[4] = {x, y, z, w};
    for (int c = 0; c < 4; c++)
        cr_expect_eq(S.r[r][c], e[c], "r%d component %d: 0x%08x (%g), expected 0x%08x (%g)", r, c, S.r[r][c],
                     F(S.r[r][c]), e[c], F(e[c]));
}

static void expectf(int r, float x, float y, float z, float w)
{
    expect4(r, B(x), B(y), B(z), B(w));
}

Test(vec, descriptor_shows_the_components_as_lanes)
{
    cr_assert_eq(vec_sim_desc.lanes, 4);
    cr_assert_eq(vec_sim_desc.comps, 4);
    cr_assert_eq(vec_sim_desc.state_vec[VEC_SIM_S_R], true);
    cr_assert_eq(vec_sim_desc.state_vec[VEC_SIM_S_S], false);
    cr_assert_eq(vec_sim_desc.state_count[VEC_SIM_S_R], 16);
    setr(5, 1, 2, 3, 4);
    uint32_t *p = vec_sim_desc.state(&S, VEC_SIM_S_R, 5);
    cr_assert_eq(p[0], B(1));
    cr_assert_eq(p[3], B(4));
    cr_assert_eq(mdl_evstate_width(&EV, VEC_SIM_S_R), 4);
    cr_assert_eq(mdl_evstate_width(&EV, VEC_SIM_S_S), 1);
}

Test(vec, per_component_operators_and_masked_writes)
{
    setr(1, 1, 2, 3, 4);
    setr(2, 10, 20, 30, 40);
    setr(3, -1, -1, -1, -1);
    cr_assert_eq(run((struct ins){.opc = 2, .d = 3, .a = 1, .b = 2, .wm = 0x5}), TSR_SIM_OK);   /* add, mask x z */
    expectf(3, 11, -1, 33, -1);
    cr_assert_eq(run((struct ins){.opc = 3, .d = 3, .a = 1, .b = 2, .k = 2, .wm = 0xf}), TSR_SIM_OK);   /* r1 * r2.z */
    expectf(3, 30, 60, 90, 120);
    cr_assert_eq(run((struct ins){.opc = 2, .d = 3, .a = 1, .b = 2, .wm = 0}), TSR_SIM_OK);   /* no component */
    expectf(3, 30, 60, 90, 120);
    cr_assert_eq(run((struct ins){.opc = 25, .d = 4, .a = 1, .wm = 0xf}), TSR_SIM_OK);   /* -|x| */
    expectf(4, -1, -2, -3, -4);
    setr(5, -1, 0, 5, -7);
    cr_assert_eq(run((struct ins){.opc = 20, .d = 6, .a = 5, .b = 1, .wm = 0xf}), TSR_SIM_OK);   /* slt */
    expectf(6, 1, 1, 0, 1);
    cr_assert_eq(run((struct ins){.opc = 21, .d = 7, .a = 1, .b = 2}), TSR_SIM_OK);   /* sel: 1 > 0 */
    expectf(7, 10, 20, 30, 40);
    cr_assert_eq(run((struct ins){.opc = 21, .d = 7, .a = 5, .b = 2}), TSR_SIM_OK);   /* sel: -1 > 0 fails */
    expectf(7, -1, -1, -1, -1);
    cr_assert_eq(run((struct ins){.opc = 27, .a = 1}), TSR_SIM_OK);   /* any(r1 < 0) */
    cr_expect_eq(S.s, 0u);
    cr_assert_eq(run((struct ins){.opc = 27, .a = 5}), TSR_SIM_OK);
    cr_expect_eq(S.s, 1u);
    cr_assert_eq(run((struct ins){.opc = 16, .d = 8, .a = 1, .b = 2, .wm = 0xe}), TSR_SIM_OK);   /* dp4, mask yzw */
    cr_expect_eq(S.r[8][0], 0u);
    cr_expect_eq(S.r[8][1], B(300));
    cr_expect_eq(S.r[8][3], B(300));
}

Test(vec, components_swizzles_and_relative_addressing)
{
    setr(1, 1, 2, 3, 4);
    setr(2, 10, 20, 30, 40);
    setr(4, -9, -9, -9, -9);
    /* mov through the operand's masked write, swizzled by the field: (w, z, y, x), mask y w */
    cr_assert_eq(run((struct ins){.opc = 1, .d = 4, .a = 1, .wm = 0xa, .swz = 3 << 6 | 2 << 4 | 1 << 2 | 0}),
                 TSR_SIM_OK);
    expectf(4, -9, 3, -9, 1);
    /* swizzle indices from expressions: (k, 3 - k, k ^ 1, 0) with k = 1 */
    cr_assert_eq(run((struct ins){.opc = 22, .d = 9, .a = 2, .k = 1}), TSR_SIM_OK);
    expectf(9, 20, 30, 10, 10);
    /* dbl: (r1 swizzled (x, x, y, y)) * 2 + the same */
    cr_assert_eq(run((struct ins){.opc = 26, .d = 10, .a = 1, .wm = 0xf, .swz = 0 << 6 | 0 << 4 | 1 << 2 | 1}),
                 TSR_SIM_OK);
    expectf(10, 4, 4, 8, 8);
    /* pack: vec4(r1.w, r2[k], f32(imm << 4), 2) */
    cr_assert_eq(run((struct ins){.opc = 17, .d = 11, .a = 1, .b = 2, .k = 3, .imm = B(0.75f) >> 4}), TSR_SIM_OK);
    expectf(11, 4, 40, 0.75f, 2);
    /* li with a mask: vec4(f32(imm << 4), -2.5, 0.5, 3), x and w */
    setr(12, 7, 7, 7, 7);
    cr_assert_eq(run((struct ins){.opc = 24, .d = 12, .wm = 0x9, .imm = B(-6.0f) >> 4}), TSR_SIM_OK);
    expectf(12, -6, 7, 7, 3);
    /* sca: s = the bits of r2.y */
    cr_assert_eq(run((struct ins){.opc = 23, .a = 2, .k = 1}), TSR_SIM_OK);
    cr_expect_eq(S.s, B(20));
    /* arl: a0 = floor(r13), masked x y; then rel: r[int(a0[k]) + a & 15] */
    setr(13, 2.75f, -1.5f, 9, 9);
    S.a0[2] = B(77);
    cr_assert_eq(run((struct ins){.opc = 18, .a = 13, .wm = 0x3}), TSR_SIM_OK);
    cr_expect_eq(S.a0[0], B(2));
    cr_expect_eq(S.a0[1], B(-2));
    cr_expect_eq(S.a0[2], B(77));
    cr_assert_eq(run((struct ins){.opc = 19, .d = 14, .a = 10, .k = 1}), TSR_SIM_OK);   /* r[-2 + 10] = r8 */
    cr_assert_eq(memcmp(S.r[14], S.r[8], sizeof S.r[8]), 0);
    cr_assert_eq(run((struct ins){.opc = 19, .d = 14, .a = 0, .k = 0}), TSR_SIM_OK);   /* r[2] */
    expectf(14, 10, 20, 30, 40);
}

Test(vec, abort_statement)
{
    setr(1, 1, 2, 3, 4);
    cr_assert_eq(run((struct ins){.opc = 22, .d = 12, .a = 1}), TSR_SIM_ABORT);
    cr_expect_str_eq(S.core.msg, "abort: register index above 11 (\"chk\")");
    cr_expect_eq(S.core.err_pc, 0u);
    cr_expect_eq(S.core.status, TSR_SIM_ABORT);
    cr_expect_eq(S.r[12][0], 0u, "an aborted bundle writes nothing");
    cr_assert_eq(run((struct ins){.opc = 22, .d = 11, .a = 1}), TSR_SIM_OK);
}

/* The IEEE-exact built-ins: exact answers. */
Test(vec, exact_float_builtins)
{
    setr(1, -1.5f, 2.5f, 3.5f, -0.5f);
    cr_assert_eq(run((struct ins){.opc = 5, .d = 2, .a = 1, .wm = 0xf}), TSR_SIM_OK);   /* floor */
    expectf(2, -2, 2, 3, -1);
    cr_assert_eq(run((struct ins){.opc = 6, .d = 2, .a = 1, .wm = 0xf}), TSR_SIM_OK);   /* round: ties to even */
    expect4(2, B(-2), B(2), B(4), 0x80000000u);
    setr(1, -1.25f, 0x1p-30f * -1, 7.75f, -0.0f);
    cr_assert_eq(run((struct ins){.opc = 7, .d = 2, .a = 1, .wm = 0xf}), TSR_SIM_OK);   /* fract */
    expect4(2, B(0.75f), B(1.0f), B(0.75f), 0);   /* -2^-30 - (-1) rounds to 1; -0 - -0 = +0 */
    /* fma rounds once: (1 + 2^-12)^2 - (1 + 2^-11) = 2^-24, which a multiply then an add loses */
    float x = 1 + 0x1p-12f;
    setr(1, x, 2, 0, 1e30f);
    setr(3, x, 3, 0, 1e30f);
    setr(4, -(1 + 0x1p-11f), 1, -0.0f, -1e30f * 1e30f);
    cr_assert_eq(run((struct ins){.opc = 4, .d = 2, .a = 1, .b = 3, .c = 4, .wm = 0xf}), TSR_SIM_OK);
    expect4(2, B(0x1p-24f), B(7), 0, 0xff800000u);   /* 0 * 0 + -0 = +0; 1e60 overflows in neither: -inf wins */
    /* rcp is exact then rounded once; rsqrt uses |x| */
    setr(1, 3, -4, 0, 0.25f);
    cr_assert_eq(run((struct ins){.opc = 9, .d = 2, .a = 1, .k = 0, .wm = 0xf}), TSR_SIM_OK);   /* rcp(r1.x) */
    expect4(2, 0x3eaaaaabu, 0x3eaaaaabu, 0x3eaaaaabu, 0x3eaaaaabu);
    cr_assert_eq(run((struct ins){.opc = 9, .d = 2, .a = 1, .k = 2, .wm = 0xf}), TSR_SIM_OK);   /* rcp(+0) */
    expect4(2, 0x7f800000u, 0x7f800000u, 0x7f800000u, 0x7f800000u);
    cr_assert_eq(run((struct ins){.opc = 8, .d = 2, .a = 1, .k = 1, .wm = 0x1}), TSR_SIM_OK);   /* rsqrt(|-4|) */
    cr_expect_eq(S.r[2][0], B(0.5f));
    /* min and max of f32 are fmin / fmax (IEEE minNum: a NaN operand is ignored) */
    setr(1, 1, -2, NAN, 0);
    setr(3, 0.5f, 3, 1, -0.0f);
    cr_assert_eq(run((struct ins){.opc = 14, .d = 2, .a = 1, .b = 3, .wm = 0xf}), TSR_SIM_OK);
    expect4(2, B(0.5f), B(-2), B(1), 0x80000000u);
    cr_assert_eq(run((struct ins){.opc = 15, .d = 2, .a = 1, .b = 3, .wm = 0xf}), TSR_SIM_OK);   /* max(r1, r3.y) */
    expectf(2, 3, 3, 3, 3);
    /* exp2 and log2 of exact powers */
    setr(1, -1, 3, 0, 10);
    cr_assert_eq(run((struct ins){.opc = 10, .d = 2, .a = 1, .wm = 0xf}), TSR_SIM_OK);
    expectf(2, 0.5f, 8, 1, 1024);
    setr(1, 8, 0.125f, 0, 1);
    cr_assert_eq(run((struct ins){.opc = 11, .d = 2, .a = 1, .wm = 0xf}), TSR_SIM_OK);
    expect4(2, B(3), B(-3), 0xff800000u, 0);
}

/* The C library's functions in double, rounded once to binary32: compared with that reference on many operands
 * (exact by construction: the comparison shows the plumbing and the special cases, not libm's accuracy). */
Test(vec, libm_float_builtins)
{
    uint64_t s = 0x9e3779b97f4a7c15u;
    int n = 0;
    for (int i = 0; i < 2000; i++) {
        float v[4];
        for (int c = 0; c < 4; c++) {
            s = s * 6364136223846793005u + 1442695040888963407u;
            v[c] = ldexpf((float)(s >> 40) / (float)(1 << 24), (int)(s >> 33 & 15) - 7) * ((s >> 32 & 1) ? -1 : 1);
        }
        setr(1, v[0], v[1], v[2], v[3]);
        cr_assert_eq(run((struct ins){.opc = 12, .d = 2, .a = 1, .wm = 0xf}), TSR_SIM_OK);   /* sin */
        cr_assert_eq(run((struct ins){.opc = 13, .d = 3, .a = 1, .wm = 0xf}), TSR_SIM_OK);   /* cos */
        cr_assert_eq(run((struct ins){.opc = 10, .d = 4, .a = 1, .wm = 0xf}), TSR_SIM_OK);   /* exp2 */
        cr_assert_eq(run((struct ins){.opc = 11, .d = 5, .a = 1, .wm = 0xf}), TSR_SIM_OK);   /* log2 */
        for (int c = 0; c < 4; c++) {
            double x = v[c];
            cr_assert_eq(S.r[2][c], B((float)sin(x)), "sin(%a)", x);
            cr_assert_eq(S.r[3][c], B((float)cos(x)), "cos(%a)", x);
            cr_assert_eq(S.r[4][c], B((float)exp2(x)), "exp2(%a)", x);
            if (x > 0)
                cr_assert_eq(S.r[5][c], B((float)log2(x)), "log2(%a)", x);
            else if (x < 0)
                cr_assert_eq(S.r[5][c], 0x7fc00000u, "log2(%a) is NaN", x);
            n++;
        }
        cr_assert_eq(run((struct ins){.opc = 8, .d = 6, .a = 1, .k = 1, .wm = 0xf}), TSR_SIM_OK);   /* rsqrt(y) */
        if (v[1] != 0)
            cr_assert_eq(S.r[6][0], B((float)(1.0 / sqrt(fabs((double)v[1])))), "rsqrt(%a)", (double)v[1]);
    }
    cr_assert_eq(n, 8000);
}

/* Random bundles from random states: the simulator against the evaluator (the core of fuzz_sim). */
Test(vec, random_bundles_agree)
{
    static struct mdl_diffsim DS;
    cr_assert_eq(mdl_diffsim_init(&DS, M, &vec_target, &vec_sim_desc), 0, "%s", DS.report);
    diffsim_random(&DS, 1, test_random_count("vec random bundles", 100000));
    cr_log_info("vec random: %llu bundles: %llu ok, %llu halted, %llu errors or aborts", (unsigned long long)DS.runs,
                (unsigned long long)DS.ok, (unsigned long long)DS.halted, (unsigned long long)DS.errors);
    cr_expect_gt(DS.ok, DS.runs / 4);
    cr_expect_gt(DS.halted, 10u);
    cr_expect_gt(DS.errors, 10u);
    mdl_diffsim_fini(&DS);
}
