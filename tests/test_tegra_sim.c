/* Tegra's semantics (targets/tegra/tegra.mdl, docs/targets/tegra.md "Semantics") in the generated simulator,
 * driven through the registry's descriptor (the four components x, y, z, w are its lanes), each bundle also run
 * from the same state in the independent evaluator (mdl/eval.h) and the two end states compared:
 *  - the corpus program opentegra vertex_common (../shared/corpus/tegra/grate/vertex/opentegra/vertex_common.hex,
 *    assembled by grate): attributes and constants in, the exports checked against the same math in C;
 *  - hand-built instructions: swizzle, negate, abs, write masks, ADD's rC, MAD, DP4/DPH/DST, the scalar ops
 *    (first component replicated; MOVs all four), the vector result's precedence on one rD, saturation, ARL/ARR/ARA
 *    and relative constant reads (out of range: 0 above 1023, c[1] below 0), attributes, relative exports,
 *    the condition register (cs + cwr) and the predicate (cc, lt/eq/gt, its swizzle);
 *  - control flow and the stack by stepping small programs: BRA, CAL/RET, PUSHA/POPA, end of program;
 *  - the aborts: invalid rA/rB/rC/rD, export index 16-30, stack overflow and underflow;
 *  - random bundles from random states, simulator against evaluator (mdl/diffsim.h).
 * Run from the repository root (or with TESSERA_ROOT set to it). */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diffsim.h"
#include "eval.h"
#include "registry.h"
#include "sim/sim.h"
#include "tsr.h"
#include "support_float.h"
#include "support_san.h"

/* the description's state order (targets/tegra/tegra.mdl: pc r v c o cr a0 stk sp) */
enum { S_PC, S_R, S_V, S_C, S_O, S_CR, S_A0, S_STK, S_SP };

/* the generated simulator's descriptor: named, so the static library links it (the target's .sim is weak) */
extern const struct tsr_sim_desc tegra_sim_desc;

static const struct tsr_target *T;
static const struct tsr_sim_desc *D;
static struct mdl_model *M;
static void *S;
static struct mdl_evstate EV;

static void setup(void)
{
    char path[4096];
    const char *root = getenv("TESSERA_ROOT");
    snprintf(path, sizeof path, "%s/targets/tegra/tegra.mdl", root && *root ? root : ".");
    T = tsr_find_target("tegra");
    cr_assert_not_null(T);
    D = &tegra_sim_desc;
    cr_assert_not_null(D);
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
    M = mdl_load(path, &d);
    tsr_diag_fini(&d);
    cr_assert_not_null(M, "cannot load %s", path);
    cr_assert_eq(mdl_evstate_init(&EV, M), 0);
    S = calloc(1, D->sim_size);
    D->init(S);
}

static void teardown(void)
{
    D->fini(S);
    free(S);
    mdl_evstate_fini(&EV);
    mdl_model_free(M);
}

TestSuite(tegra_sim, .init = setup, .fini = teardown);

static uint32_t *st(int s, int e) { return D->state(S, s, e); }

static void set4(int s, int e, float x, float y, float z, float w)
{
    uint32_t *p = st(s, e);
    p[0] = B(x), p[1] = B(y), p[2] = B(z), p[3] = B(w);
}

static void expect4(int s, int e, float x, float y, float z, float w)
{
    const float v[4] = {x, y, z, w};
    uint32_t *p = st(s, e);
    for (int c = 0; c < 4; c++)
        cr_expect_eq(p[c], B(v[c]), "%s[%d] component %d: %g (0x%08x), expected %g", D->state_names[s], e, c,
                     F(p[c]), p[c], v[c]);
}

/* ---- instructions from fields (bit positions: tegra.mdl, seed 004) ---- */
struct w128 { uint32_t w[4]; };   /* w[0] = bits 31..0 (the decoder's order: low word first) */

static void put(struct w128 *i, int lo, int hi, uint32_t v)
{
    for (int b = lo; b <= hi; b++) {
        uint32_t bit = (v >> (b - lo)) & 1;
        i->w[b / 32] = (i->w[b / 32] & ~(1u << (b % 32))) | bit << (b % 32);
    }
}

/* An instruction with no writes: no export (31), rD 63 in both units, swizzles .xyzw, NOP ops. */
static struct w128 ins(void)
{
    struct w128 i = {{0, 0, 0, 0}};
    put(&i, 2, 6, 31);
    put(&i, 7, 12, 63);
    put(&i, 111, 116, 63);
    put(&i, 29, 36, 0x1b);
    put(&i, 46, 53, 0x1b);
    put(&i, 63, 70, 0x1b);
    put(&i, 98, 105, 0x1b);
    return i;
}

enum { TEMP = 1, ATTR = 2, CONST = 3 };
#define SWZ(x, y, z, w) ((x) << 6 | (y) << 4 | (z) << 2 | (w))
#define WM(x, y, z, w) ((x) << 3 | (y) << 2 | (z) << 1 | (w))
/* source k (0 = rA, 1 = rB, 2 = rC): type, register, swizzle, negate, abs */
static void src(struct w128 *i, int k, unsigned type, unsigned reg, unsigned swz, unsigned neg, unsigned ab)
{
    static const int base[3] = {55, 38, 21};   /* type; reg +2; swizzle +8; negate +16 */
    put(i, base[k], base[k] + 1, type);
    put(i, base[k] + 2, base[k] + 7, reg);
    put(i, base[k] + 8, base[k] + 15, swz);
    put(i, base[k] + 16, base[k] + 16, neg);
    put(i, 117 + k, 117 + k, ab);
}
static void vop(struct w128 *i, unsigned op, unsigned rd, unsigned mask)
{
    put(i, 86, 90, op);
    put(i, 111, 116, rd);
    put(i, 13, 16, mask);
}
static void sop(struct w128 *i, unsigned op, unsigned rd, unsigned mask)
{
    put(i, 91, 95, op);
    put(i, 7, 12, rd);
    put(i, 17, 20, mask);
}
static void attr_index(struct w128 *i, unsigned n) { put(i, 72, 75, n); }
static void const_index(struct w128 *i, unsigned n) { put(i, 76, 85, n); }
static void export(struct w128 *i, unsigned n, unsigned vector) { put(i, 2, 6, n); put(i, 126, 126, vector); }

/* Runs one bundle at pc 0 in the simulator and, from the same state, in the evaluator; asserts both return the
 * same code and end in the same state (report included).  Returns the code. */
static int run(struct w128 i)
{
    *st(S_PC, 0) = 0;
    struct tsr_sim_ctl *ctl = D->ctl(S);
    ctl->status = 0;
    ctl->msg[0] = 0;
    EV.ctl.status = 0;
    EV.ctl.msg[0] = 0;
    mdl_evstate_from_sim(&EV, D, S);
    int format, ops[8];
    uint64_t fields[64];
    cr_assert_geq(D->decode(i.w, &format, ops, fields), 0);
    int re = mdl_eval_bundle(M, &EV, fields, format, ops);
    int rs = D->exec(S, format, ops, fields);
    cr_assert_eq(re, rs, "evaluator %d (%s), simulator %d (%s)", re, EV.ctl.msg, rs, ctl->msg);
    char diff[512];
    cr_assert_eq(mdl_evstate_compare_sim(&EV, D, S, diff, sizeof diff), 0, "%s", diff);
    return rs;
}

/* Steps a program (instructions in order) from pc 0 until it halts or aborts (at most 100 steps); each step
 * is cross-checked in the evaluator first.  Returns the last code. */
static int program(const struct w128 *p, int n)
{
    uint32_t words[64 * 4];
    memcpy(words, p, (size_t)n * 16);
    *st(S_PC, 0) = 0;
    for (int k = 0; k < 100; k++) {
        int rc = D->step(S, words, (size_t)n * 4);
        if (rc != TSR_SIM_OK)
            return rc;
    }
    return TSR_SIM_OK;
}

/* ---- the corpus program ---- */
static int load_hex(const char *path, struct w128 *p, int max)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s", path);
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f) && n < max) {
        unsigned a, b, c, d;
        if (sscanf(line, " 0x%x, 0x%x, 0x%x, 0x%x", &a, &b, &c, &d) != 4)
            continue;
        p[n].w[3] = a, p[n].w[2] = b, p[n].w[1] = c, p[n].w[0] = d;   /* the file: part3 .. part0 */
        n++;
    }
    fclose(f);
    return n;
}

static float dot3f(const float *a, const float *b)
{
    return (a[0] * b[0] + a[1] * b[1]) + a[2] * b[2];
}

Test(tegra_sim, corpus_vertex_common)
{
    char path[4096];
    const char *root = getenv("TESSERA_ROOT");
    snprintf(path, sizeof path, "%s/../shared/corpus/tegra/grate/vertex/opentegra/vertex_common.hex",
             root && *root ? root : ".");
    struct w128 p[16];
    int n = load_hex(path, p, 16);
    cr_assert_eq(n, 8);
    /* attributes: position, source and mask texture coordinates; constants: c[0].zw = (0, 1), two 3x4 transforms
       with a width/height in w (vertex_common.asm's .constants comments) */
    const float pos[4] = {12.5f, -3.25f, 7, 1}, st0[4] = {0.25f, 0.75f, 9, 9}, mt[4] = {-0.5f, 2.0f, 5, 5};
    const float k[5][4] = {{0, 0, 0, 1}, {1.5f, -0.5f, 3, 256}, {0.25f, 2, -1, 128}, {-2, 1, 0.5f, 64},
                           {3, 0.125f, 2, 3}};
    set4(S_V, 0, pos[0], pos[1], pos[2], pos[3]);
    set4(S_V, 1, st0[0], st0[1], st0[2], st0[3]);
    set4(S_V, 2, mt[0], mt[1], mt[2], mt[3]);
    for (int i = 0; i < 5; i++)
        set4(S_C, i, k[i][0], k[i][1], k[i][2], k[i][3]);
    cr_assert_eq(program(p, n), TSR_SIM_HALTED, "%s", D->ctl(S)->msg);
    /* the program by hand: r1 = (st.xy, c0.w, c0.z); r3.xy = r1 . c1/c2; r0.xy = 1/c1.w, 1/c2.w; r1.xy = mt.xy;
       r3.zw = r1 . c3/c4; r0.zw = 1/c3.w, 1/c4.w; export 0 = (pos.xy, c0.zw), export 1 = r3 * r0 */
    float r1[4] = {st0[0], st0[1], 1, 0}, r3[4], r0[4];
    r3[0] = dot3f(r1, k[1]), r3[1] = dot3f(r1, k[2]);
    r1[0] = mt[0], r1[1] = mt[1];
    r3[2] = dot3f(r1, k[3]), r3[3] = dot3f(r1, k[4]);
    for (int i = 0; i < 4; i++)
        r0[i] = 1.0f / k[i + 1][3];
    expect4(S_O, 0, pos[0], pos[1], 0, 1);
    expect4(S_O, 1, r3[0] * r0[0], r3[1] * r0[1], r3[2] * r0[2], r3[3] * r0[3]);
    expect4(S_R, 0, r0[0], r0[1], r0[2], r0[3]);
    expect4(S_R, 3, r3[0], r3[1], r3[2], r3[3]);
    expect4(S_R, 1, mt[0], mt[1], 1, 0);
    /* and the same program instruction by instruction in the evaluator */
    D->fini(S);   /* a simulator that stepped: free its decode cache first */
    D->init(S);
    set4(S_V, 0, pos[0], pos[1], pos[2], pos[3]);
    set4(S_V, 1, st0[0], st0[1], st0[2], st0[3]);
    set4(S_V, 2, mt[0], mt[1], mt[2], mt[3]);
    for (int i = 0; i < 5; i++)
        set4(S_C, i, k[i][0], k[i][1], k[i][2], k[i][3]);
    for (int i = 0; i < n; i++)
        cr_assert_eq(run(p[i]), i == n - 1 ? TSR_SIM_HALTED : TSR_SIM_OK, "instruction %d", i);
    expect4(S_O, 1, r3[0] * r0[0], r3[1] * r0[1], r3[2] * r0[2], r3[3] * r0[3]);
}

/* ---- vector ops, sources and masks ---- */
Test(tegra_sim, sources_masks_and_vector_ops)
{
    set4(S_R, 1, 1, -2, 3, -4);
    set4(S_R, 2, 10, 20, 30, 40);
    set4(S_R, 5, 7, 7, 7, 7);
    /* MOV r5.x*z* = -abs(r1.wzyx) */
    struct w128 i = ins();
    vop(&i, 1, 5, WM(1, 0, 1, 0));
    src(&i, 0, TEMP, 1, SWZ(3, 2, 1, 0), 1, 1);
    cr_assert_eq(run(i), TSR_SIM_OK);
    expect4(S_R, 5, -4, 7, -2, 7);
    /* ADD adds rA and rC (not rB) */
    i = ins();
    vop(&i, 3, 6, 15);
    src(&i, 0, TEMP, 1, 0x1b, 0, 0);
    src(&i, 1, TEMP, 5, 0x1b, 0, 0);
    src(&i, 2, TEMP, 2, 0x1b, 0, 0);
    cr_assert_eq(run(i), TSR_SIM_OK);
    expect4(S_R, 6, 11, 18, 33, 36);
    /* MAD r7 = r1 * r2.xxxx + -r2 */
    i = ins();
    vop(&i, 4, 7, 15);
    src(&i, 0, TEMP, 1, 0x1b, 0, 0);
    src(&i, 1, TEMP, 2, SWZ(0, 0, 0, 0), 0, 0);
    src(&i, 2, TEMP, 2, 0x1b, 1, 0);
    cr_assert_eq(run(i), TSR_SIM_OK);
    expect4(S_R, 7, 0, -40, 0, -80);
    /* DP4, DPH, DP3 replicate the sum; DST = (1, a.y * b.y, a.z, b.w) */
    static const struct { unsigned op; float e[4]; } dots[] = {
        {7, {-100, -100, -100, -100}}, {6, {100, 100, 100, 100}}, {5, {60, 60, 60, 60}}, {8, {1, -40, 3, 40}}};
    for (size_t k = 0; k < sizeof dots / sizeof *dots; k++) {
        i = ins();
        vop(&i, dots[k].op, 8, 15);
        src(&i, 0, TEMP, 1, 0x1b, 0, 0);
        src(&i, 1, TEMP, 2, 0x1b, 0, 0);
        cr_assert_eq(run(i), TSR_SIM_OK);
        expect4(S_R, 8, dots[k].e[0], dots[k].e[1], dots[k].e[2], dots[k].e[3]);
    }
    /* set-on ops, MIN/MAX, SSG, FRC/FLR, SFL/STR against r1 = (1, -2, 3, -4), r9 = (1, 0, 5, -4) */
    set4(S_R, 9, 1, 0, 5, -4);
    static const struct { unsigned op; float e[4]; } cmp[] = {
        {11, {0, 1, 1, 0}}, {12, {1, 0, 0, 1}}, {16, {1, 0, 0, 1}}, {18, {0, 0, 0, 0}}, {19, {1, 1, 1, 1}},
        {20, {0, 1, 1, 0}}, {9, {1, -2, 3, -4}}, {10, {1, 0, 5, -4}}, {17, {0, 0, 0, 0}}, {21, {1, 1, 1, 1}}};
    for (size_t k = 0; k < sizeof cmp / sizeof *cmp; k++) {
        i = ins();
        vop(&i, cmp[k].op, 10, 15);
        src(&i, 0, TEMP, 1, 0x1b, 0, 0);
        src(&i, 1, TEMP, 9, 0x1b, 0, 0);
        cr_assert_eq(run(i), TSR_SIM_OK);
        expect4(S_R, 10, cmp[k].e[0], cmp[k].e[1], cmp[k].e[2], cmp[k].e[3]);
    }
    set4(S_R, 11, -1.25f, 0, 2.5f, -0.0f);
    i = ins();
    vop(&i, 22, 12, 15);   /* SSG */
    src(&i, 0, TEMP, 11, 0x1b, 0, 0);
    cr_assert_eq(run(i), TSR_SIM_OK);
    expect4(S_R, 12, -1, 0, 1, 0);
    put(&i, 86, 90, 14);   /* FRC */
    cr_assert_eq(run(i), TSR_SIM_OK);
    expect4(S_R, 12, 0.75f, 0, 0.5f, 0);
    put(&i, 86, 90, 15);   /* FLR */
    cr_assert_eq(run(i), TSR_SIM_OK);
    expect4(S_R, 12, -2, 0, 2, -0.0f);
    /* saturate clamps the result to [0, 1] */
    put(&i, 86, 90, 1);
    put(&i, 122, 122, 1);
    cr_assert_eq(run(i), TSR_SIM_OK);
    expect4(S_R, 12, 0, 0, 1, 0);
}

/* ---- scalar ops ---- */
Test(tegra_sim, scalar_ops)
{
    set4(S_C, 3, 4, 16, 0.5f, -2);
    static const struct { unsigned op; float e[4]; } t[] = {
        {2, {0.25f, 0.25f, 0.25f, 0.25f}}, {4, {0.5f, 0.5f, 0.5f, 0.5f}}, {13, {2, 2, 2, 2}},
        {14, {16, 16, 16, 16}}, {1, {4, 16, 0.5f, -2}}, {5, {16, 0, 16, 1}}, {6, {2, 1, 2, 1}}, {3, {0.25f, 0.25f, 0.25f, 0.25f}}};
    for (size_t k = 0; k < sizeof t / sizeof *t; k++) {
        struct w128 i = ins();
        sop(&i, t[k].op, 4, 15);
        src(&i, 2, CONST, 0, 0x1b, 0, 0);
        const_index(&i, 3);
        cr_assert_eq(run(i), TSR_SIM_OK);
        expect4(S_R, 4, t[k].e[0], t[k].e[1], t[k].e[2], t[k].e[3]);
    }
    /* LIT of (x, y, -, w) = (2, 4, -, 0.5): (1, 2, 4^0.5, 1) */
    set4(S_C, 4, 2, 4, 99, 0.5f);
    struct w128 i = ins();
    sop(&i, 7, 4, 15);
    src(&i, 2, CONST, 0, 0x1b, 0, 0);
    const_index(&i, 4);
    cr_assert_eq(run(i), TSR_SIM_OK);
    expect4(S_R, 4, 1, 2, 2, 1);
    /* RCP of -0.5 through rC's swizzle (w first), masked .*y*w */
    set4(S_R, 4, 9, 9, 9, 9);
    i = ins();
    sop(&i, 2, 4, WM(0, 1, 0, 1));
    src(&i, 2, CONST, 0, SWZ(2, 0, 0, 0), 1, 0);
    const_index(&i, 3);
    cr_assert_eq(run(i), TSR_SIM_OK);
    expect4(S_R, 4, 9, -2, 9, -2);
    /* SIN/COS */
    set4(S_C, 5, 0, 0, 0, 0);
    i = ins();
    sop(&i, 16, 4, 15);
    src(&i, 2, CONST, 0, 0x1b, 0, 0);
    const_index(&i, 5);
    cr_assert_eq(run(i), TSR_SIM_OK);
    expect4(S_R, 4, 1, 1, 1, 1);
}

Test(tegra_sim, vector_result_takes_precedence_and_exports)
{
    set4(S_R, 1, 1, 2, 3, 4);
    set4(S_C, 0, 8, 8, 8, 8);
    set4(S_R, 3, 0, 0, 0, 0);
    /* MOVv r3.xy** = r1 and RCPs r3.*yz* = 1/c0.x: the vector op wins y */
    struct w128 i = ins();
    vop(&i, 1, 3, WM(1, 1, 0, 0));
    src(&i, 0, TEMP, 1, 0x1b, 0, 0);
    sop(&i, 2, 3, WM(0, 1, 1, 0));
    src(&i, 2, CONST, 0, 0x1b, 0, 0);
    cr_assert_eq(run(i), TSR_SIM_OK);
    expect4(S_R, 3, 1, 2, 0.125f, 0);
    /* export 5 takes the scalar result through the scalar mask (bit 126 clear) */
    set4(S_O, 5, -1, -1, -1, -1);
    export(&i, 5, 0);
    cr_assert_eq(run(i), TSR_SIM_OK);
    expect4(S_O, 5, -1, 0.125f, 0.125f, -1);
    /* the vector result, with rD 63 (export only); relative: A0.y + 2 */
    set4(S_O, 6, -1, -1, -1, -1);
    set4(S_R, 3, 0, 0, 0, 0);
    set4(S_A0, 0, 0, 4, 0, 0);
    i = ins();
    vop(&i, 1, 63, WM(1, 1, 1, 0));
    src(&i, 0, TEMP, 1, 0x1b, 0, 0);
    export(&i, 2, 1);
    put(&i, 124, 124, 1);
    put(&i, 96, 97, 1);
    cr_assert_eq(run(i), TSR_SIM_OK);
    expect4(S_O, 6, 1, 2, 3, -1);
    expect4(S_R, 3, 0, 0, 0, 0);
    /* bit 120 reads A0 as 0: export 2 */
    set4(S_O, 2, 0, 0, 0, 0);
    put(&i, 120, 120, 1);
    cr_assert_eq(run(i), TSR_SIM_OK);
    expect4(S_O, 2, 1, 2, 3, 0);
}

Test(tegra_sim, address_register_and_relative_reads)
{
    set4(S_R, 1, 2.75f, -1.5f, 1023.0f, 5.5f);
    for (int k = 0; k < 8; k++)
        set4(S_C, k, (float)k, (float)k, (float)k, (float)k);
    set4(S_C, 1023, 77, 77, 77, 77);
    set4(S_V, 6, 6, 6, 6, 6);
    /* ARL A0.xyz* = floor(r1) (rD even: 0) */
    struct w128 i = ins();
    vop(&i, 13, 0, WM(1, 1, 1, 0));
    src(&i, 0, TEMP, 1, 0x1b, 0, 0);
    set4(S_A0, 0, 0, 0, 0, 9);
    cr_assert_eq(run(i), TSR_SIM_OK);
    expect4(S_A0, 0, 2, -2, 1023, 9);
    /* an odd rD leaves A0 alone [SEED] */
    put(&i, 111, 116, 1);
    set4(S_R, 1, 0, 0, 0, 0);
    cr_assert_eq(run(i), TSR_SIM_OK);
    expect4(S_A0, 0, 2, -2, 1023, 9);
    /* MOV r2 = c[A0.x + 3] = c5; c[A0.y + 1] = c[-1] reads c[1]; c[A0.z + 1] = c[1024] reads 0 */
    static const struct { unsigned sel, idx; float e; } rel[] = {{0, 3, 5}, {1, 1, 1}, {2, 1, 0}, {2, 0, 77}};
    for (size_t k = 0; k < sizeof rel / sizeof *rel; k++) {
        i = ins();
        vop(&i, 1, 2, 15);
        src(&i, 0, CONST, 0, 0x1b, 0, 0);
        const_index(&i, rel[k].idx);
        put(&i, 1, 1, 1);
        put(&i, 96, 97, rel[k].sel);
        cr_assert_eq(run(i), TSR_SIM_OK);
        expect4(S_R, 2, rel[k].e, rel[k].e, rel[k].e, rel[k].e);
    }
    /* attribute a[A0.x + 4] = a[6] */
    i = ins();
    vop(&i, 1, 2, 15);
    src(&i, 0, ATTR, 0, 0x1b, 0, 0);
    attr_index(&i, 4);
    put(&i, 123, 123, 1);
    cr_assert_eq(run(i), TSR_SIM_OK);
    expect4(S_R, 2, 6, 6, 6, 6);
    /* ARR rounds to nearest (ties to even), ARA = (x + z, y + w, x + z, y + w) */
    set4(S_R, 1, 2.5f, -1.5f, 3.75f, 0.25f);
    i = ins();
    vop(&i, 23, 0, 15);
    src(&i, 0, TEMP, 1, 0x1b, 0, 0);
    cr_assert_eq(run(i), TSR_SIM_OK);
    expect4(S_A0, 0, 2, -2, 4, 0);
    i = ins();
    vop(&i, 24, 0, 15);
    cr_assert_eq(run(i), TSR_SIM_OK);
    expect4(S_A0, 0, 6, -2, 6, -2);
}

Test(tegra_sim, condition_register_and_predicate)
{
    set4(S_R, 1, -3, 0, 2, 0);
    /* MOVv r2 with cs + cwr into cr 1: (lt, eq, gt, eq) */
    struct w128 i = ins();
    vop(&i, 1, 2, 15);
    src(&i, 0, TEMP, 1, 0x1b, 0, 0);
    put(&i, 110, 110, 1);
    put(&i, 125, 125, 1);
    put(&i, 121, 121, 1);
    cr_assert_eq(run(i), TSR_SIM_OK);
    expect4(S_CR, 1, -1, 0, 1, 0);
    expect4(S_CR, 0, 0, 0, 0, 0);
    /* cs alone (no cwr) changes nothing */
    set4(S_R, 1, 5, 5, 5, 5);
    put(&i, 125, 125, 0);
    cr_assert_eq(run(i), TSR_SIM_OK);
    expect4(S_CR, 1, -1, 0, 1, 0);
    /* cc on cr 1: write only where the condition is gt or eq (p.xyzw), then through the swizzle p.zzzx */
    set4(S_R, 3, 0, 0, 0, 0);
    i = ins();
    vop(&i, 1, 3, 15);
    src(&i, 0, TEMP, 1, 0x1b, 0, 0);
    put(&i, 121, 121, 1);
    put(&i, 109, 109, 1);
    put(&i, 107, 108, 3);
    cr_assert_eq(run(i), TSR_SIM_OK);
    expect4(S_R, 3, 0, 5, 5, 5);
    set4(S_R, 3, 0, 0, 0, 0);
    put(&i, 98, 105, SWZ(2, 2, 2, 0));
    put(&i, 107, 108, 2);   /* gt only */
    cr_assert_eq(run(i), TSR_SIM_OK);
    expect4(S_R, 3, 5, 5, 5, 0);
}

/* ---- control flow and the stack, stepping programs ---- */
static struct w128 end_ins(void)
{
    struct w128 i = ins();
    put(&i, 0, 0, 1);
    return i;
}

static struct w128 mov_const(unsigned rd, unsigned k)
{
    struct w128 i = ins();
    vop(&i, 1, rd, 15);
    src(&i, 0, CONST, 0, 0x1b, 0, 0);
    const_index(&i, k);
    return i;
}

static struct w128 branch(unsigned op, unsigned target)
{
    struct w128 i = ins();
    sop(&i, op, 63, 0);
    put(&i, 29, 36, target);
    put(&i, 106, 108, 7);   /* lt eq gt: always, as the blob sets them */
    return i;
}

Test(tegra_sim, branch_call_return)
{
    set4(S_C, 1, 1, 1, 1, 1);
    set4(S_C, 2, 2, 2, 2, 2);
    set4(S_C, 3, 3, 3, 3, 3);
    /* 0: CAL 3; 1: MOV r2 = c2; 2: BRA 5; 3: MOV r1 = c1; 4: RET; 5: MOV r3 = c3, end */
    struct w128 p[6] = {branch(11, 3), mov_const(2, 2), branch(9, 5), mov_const(1, 1), branch(12, 0), mov_const(3, 3)};
    put(&p[5], 0, 0, 1);
    cr_assert_eq(program(p, 6), TSR_SIM_HALTED, "%s", D->ctl(S)->msg);
    expect4(S_R, 1, 1, 1, 1, 1);
    expect4(S_R, 2, 2, 2, 2, 2);
    expect4(S_R, 3, 3, 3, 3, 3);
    cr_expect_eq(*st(S_SP, 0), 0u);
    /* a branch whose predicate fails (no lt/eq/gt bit) falls through: 0: BRA 2 (never); 1: MOV r4 = c1, end */
    D->fini(S);   /* a simulator that stepped: free its decode cache first */
    D->init(S);
    set4(S_C, 1, 1, 1, 1, 1);
    struct w128 q[3] = {branch(9, 2), mov_const(4, 1), end_ins()};
    put(&q[0], 106, 108, 0);
    put(&q[1], 0, 0, 1);
    cr_assert_eq(program(q, 3), TSR_SIM_HALTED);
    expect4(S_R, 4, 1, 1, 1, 1);
}

Test(tegra_sim, pusha_popa)
{
    /* PUSHAs; ARL changes A0; POPAv restores it */
    set4(S_A0, 0, 1, 2, 3, 4);
    set4(S_R, 1, 9, 9, 9, 9);
    struct w128 i = ins();
    sop(&i, 19, 63, 0);
    cr_assert_eq(run(i), TSR_SIM_OK);
    cr_expect_eq(*st(S_SP, 0), 1u);
    i = ins();
    vop(&i, 13, 0, 15);
    src(&i, 0, TEMP, 1, 0x1b, 0, 0);
    cr_assert_eq(run(i), TSR_SIM_OK);
    expect4(S_A0, 0, 9, 9, 9, 9);
    i = ins();
    put(&i, 86, 90, 27);
    cr_assert_eq(run(i), TSR_SIM_OK);
    expect4(S_A0, 0, 1, 2, 3, 4);
    cr_expect_eq(*st(S_SP, 0), 0u);
    /* PUSHAv with PUSHAs: one push; PUSHAv with POPAs: nothing */
    i = ins();
    put(&i, 86, 90, 26);
    sop(&i, 19, 63, 0);
    cr_assert_eq(run(i), TSR_SIM_OK);
    cr_expect_eq(*st(S_SP, 0), 1u);
    put(&i, 91, 95, 20);
    cr_assert_eq(run(i), TSR_SIM_OK);
    cr_expect_eq(*st(S_SP, 0), 1u);
}

/* ---- aborts ---- */
static void expect_abort(struct w128 i, const char *msg)
{
    set4(S_R, 0, 5, 5, 5, 5);
    int rc = run(i);
    cr_expect_eq(rc, TSR_SIM_ABORT, "expected the abort '%s', got %d", msg, rc);
    char want[256];
    snprintf(want, sizeof want, "abort: %s", msg);
    cr_expect_str_eq(D->ctl(S)->msg, want);
}

Test(tegra_sim, aborts)
{
    struct w128 i = ins();
    put(&i, 57, 62, 40);   /* rA 40, unused by a NOP */
    expect_abort(i, "rA, rB or rC register index 32-63");
    i = ins();
    put(&i, 23, 28, 32);
    expect_abort(i, "rA, rB or rC register index 32-63");
    i = ins();
    vop(&i, 1, 40, 15);
    expect_abort(i, "rD register index 32-62");
    i = ins();
    sop(&i, 0, 62, 0);
    expect_abort(i, "rD register index 32-62");
    i = ins();
    export(&i, 20, 1);
    expect_abort(i, "export index 16-30");
    i = ins();
    vop(&i, 1, 0, 15);   /* an aborted bundle writes nothing */
    export(&i, 16, 1);
    set4(S_R, 0, 1, 1, 1, 1);
    expect_abort(i, "export index 16-30");
    expect4(S_R, 0, 5, 5, 5, 5);
    /* relative export outside 0-15 and 31 */
    i = ins();
    export(&i, 3, 1);
    put(&i, 124, 124, 1);
    set4(S_A0, 0, 20, 0, 0, 0);
    expect_abort(i, "relative export index outside 0-15 and 31");
    set4(S_A0, 0, 0, 0, 0, 0);
    /* the stack: nine pushes overflow, a pop from empty underflows; CAL overflows too, RET underflows */
    i = ins();
    sop(&i, 19, 63, 0);
    for (int k = 0; k < 8; k++)
        cr_assert_eq(run(i), TSR_SIM_OK);
    cr_expect_eq(*st(S_SP, 0), 8u);
    expect_abort(i, "call stack overflow (PUSHA, 8 deep)");
    expect_abort(branch(11, 0), "call stack overflow (CAL, 8 deep)");
    *st(S_SP, 0) = 0;
    i = ins();
    sop(&i, 20, 63, 0);
    expect_abort(i, "call stack underflow (POPA)");
    expect_abort(branch(12, 0), "call stack underflow (RET)");
    /* an op no source describes */
    i = ins();
    sop(&i, 17, 63, 0);
    expect_abort(i, "scalar opcode 17 is unknown");
}

/* ---- random bundles: simulator against evaluator ---- */
Test(tegra_sim, random_bundles_sim_vs_evaluator)
{
    static struct mdl_diffsim DS;
    cr_assert_eq(mdl_diffsim_init(&DS, M, T, D), 0, "%s", DS.report);
    uint64_t seed = 0x7e9a5eedull;
    unsigned char buf[512];
    const int n = (int)test_random_count("tegra random bundles", 20000);
    for (int k = 0; k < n; k++) {
        for (size_t b = 0; b < sizeof buf; b++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            buf[b] = (unsigned char)(seed >> 56);
        }
        int rc = mdl_diffsim_one(&DS, buf, sizeof buf);
        cr_assert_eq(rc, 0, "bundle %d: %s", k, DS.report);
    }
    cr_log_info("tegra random: %llu bundles: %llu ok, %llu halted, %llu errors or aborts", (unsigned long long)DS.runs,
                (unsigned long long)DS.ok, (unsigned long long)DS.halted, (unsigned long long)DS.errors);
    /* most random words abort (a register field of 32-63 is one chance in two per field): the valid ones next */
    mdl_diffsim_fini(&DS);
}

/* Random valid instructions (registers 0-31 or 63, exports 0-15 or 31, opcodes with known meanings) from random
 * states: the simulator against the evaluator, bundle by bundle (run()). */
static uint64_t rnd_state = 0x5eed7e9aull;
static uint32_t rnd(void)
{
    rnd_state = rnd_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rnd_state >> 32);
}
static float rndf(void)
{
    static const float special[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 2.0f, INFINITY, -INFINITY, NAN, 1e-40f, 3e38f};
    uint32_t k = rnd() % 16;
    if (k < sizeof special / sizeof *special)
        return special[k];
    return ((float)(int32_t)rnd()) / (float)(1u << (rnd() % 31));
}

Test(tegra_sim, random_valid_instructions_sim_vs_evaluator)
{
    static const unsigned vops[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
                                    23, 24, 26, 27};
    static const unsigned sops[] = {0, 1, 2, 3, 4, 5, 6, 7, 9, 11, 12, 13, 14, 15, 16, 19, 20};
    int ok = 0, aborted = 0;
    const int n = (int)test_random_count("tegra random valid instructions", 20000);
    for (int k = 0; k < n; k++) {
        if (k % 64 == 0) {   /* a new random state */
            D->fini(S);   /* a simulator that stepped: free its decode cache first */
    D->init(S);
            for (int e = 0; e < 32; e++)
                set4(S_R, e, rndf(), rndf(), rndf(), rndf());
            for (int e = 0; e < 16; e++)
                set4(S_V, e, rndf(), rndf(), rndf(), rndf());
            for (int e = 0; e < 1024; e += 1 + (int)(rnd() % 8))
                set4(S_C, e, rndf(), rndf(), rndf(), rndf());
        }
        if (k % 16 == 0) {
            set4(S_A0, 0, (float)((int)(rnd() % 40) - 20), (float)((int)(rnd() % 2100) - 1050),
                 (float)(rnd() % 16), (float)(rnd() % 32));
            for (int e = 0; e < 2; e++)
                set4(S_CR, e, (float)((int)(rnd() % 3) - 1), (float)((int)(rnd() % 3) - 1),
                     (float)((int)(rnd() % 3) - 1), (float)((int)(rnd() % 3) - 1));
            *st(S_SP, 0) = rnd() % 9;
        }
        struct w128 i;
        for (int w = 0; w < 4; w++)
            i.w[w] = rnd();
        put(&i, 0, 0, 0);
        uint32_t x = rnd();
        put(&i, 2, 6, x % 4 == 0 ? 31 : rnd() % 16);
        put(&i, 7, 12, x % 8 == 1 ? 63 : rnd() % 32);
        put(&i, 111, 116, x % 8 == 2 ? 63 : rnd() % 32);
        put(&i, 23, 28, rnd() % 32);
        put(&i, 40, 45, rnd() % 32);
        put(&i, 57, 62, rnd() % 32);
        put(&i, 86, 90, vops[rnd() % (sizeof vops / sizeof *vops)]);
        put(&i, 91, 95, sops[rnd() % (sizeof sops / sizeof *sops)]);
        int rc = run(i);
        ok += rc == TSR_SIM_OK;
        aborted += rc == TSR_SIM_ABORT;
    }
    cr_log_info("tegra random valid instructions: %d: %d ok, %d aborted (relative export, stack)", n, ok, aborted);
    cr_expect_gt(ok, n * 3 / 4);   /* 15,000 of 20,000 */
}
