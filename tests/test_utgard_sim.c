/* The Mali Utgard GP's semantics (targets/utgard/utgard.mdl, docs/targets/utgard.md "Semantics") in the generated
 * simulator, driven through the registry's descriptor:
 *  - a corpus program (glmark2 depth.vert compiled by lima: gl_Position = MVP * position, one varying) against the
 *    same math in C, from random attributes and uniforms (lima's layout: the matrix in t[0..3], column-major, then
 *    the viewport scale and offset in t[4], t[5]);
 *  - every corpus program runs to its end from random inputs with no hazard, abort or error (lima's schedules
 *    respect the forwarding windows and latencies that the description declares);
 *  - small programs assembled from text: each ALU, the complex unit and its recipe, the forwarding ages (1 and 2,
 *    the complex FIFO, complex1's age 2), the register latency, the stale reg0 load, stores, the branch, and the
 *    reports for values that no longer (or never) existed;
 *  - random bundles from random states, simulator against the independent evaluator (mdl/diffsim.h).
 * Run from the repository root (or with TESSERA_ROOT set to it). */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "diffsim.h"
#include "eval.h"
#include "registry.h"
#include "sim/sim.h"
#include "tsr.h"
#include "support_float.h"
#include "support_lima.h"

/* the generated simulator's descriptor: named, so the static library links it */
extern const struct tsr_sim_desc utgard_sim_desc;

static const struct tsr_target *T;
static const struct tsr_sim_desc *D;
static struct mdl_model *M;
static void *S;
static int S_R, S_A, S_U, S_V;

static int state_index(const char *name)
{
    int s = tsr_sim_find_state(D, name, strlen(name));
    cr_assert_geq(s, 0, "no state '%s' in the utgard simulator", name);
    return s;
}

static void setup(void)
{
    char path[4096];
    const char *root = getenv("TESSERA_ROOT");
    snprintf(path, sizeof path, "%s/targets/utgard/utgard.mdl", root && *root ? root : ".");
    T = tsr_find_target("utgard");
    cr_assert_not_null(T);
    D = &utgard_sim_desc;
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
    M = mdl_load(path, &d);
    tsr_diag_fini(&d);
    cr_assert_not_null(M, "cannot load %s", path);
    S = calloc(1, D->sim_size);
    D->init(S);
    S_R = state_index("R"), S_A = state_index("A"), S_U = state_index("U"), S_V = state_index("V");
}

static void teardown(void)
{
    D->fini(S);
    free(S);
    mdl_model_free(M);
}

TestSuite(utgard_sim, .init = setup, .fini = teardown);

static uint64_t seed = 0x5eed6a7du;

static uint32_t rnd(void)
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(seed >> 33);
}

static float rndf(void) { return (float)((int)(rnd() % 2001) - 1000) / 250.0f; }   /* -4 .. 4 */

static uint32_t *st(int s, int e) { return D->state(S, s, e); }

static void set4(int s, int e, float x, float y, float z, float w)
{
    uint32_t *p = st(s, e);
    p[0] = B(x), p[1] = B(y), p[2] = B(z), p[3] = B(w);
}

static void reset(void)
{
    D->fini(S);
    D->init(S);
}

/* Assembles a program (one bundle a line, ops separated by ';') into w; fails the test on an error. */
static void assemble(const char *src, struct tsr_words *w)
{
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
    tsr_words_init(w, 128);
    int rc = T->assemble("<test>", src, strlen(src), w, &d);
    tsr_diag_fini(&d);
    cr_assert_eq(rc, 0, "cannot assemble:\n%s", src);
}

/* Steps the program until it ends (or fails, or max bundles); returns the last step's code. */
static int run_words(const struct tsr_words *w, int max)
{
    int rc = TSR_SIM_OK;
    for (int i = 0; i < max && (rc == TSR_SIM_OK || rc == TSR_SIM_STALL); i++)
        rc = D->step(S, w->w, w->count * 4);
    return rc;
}

static int run(const char *src)
{
    struct tsr_words w;
    assemble(src, &w);
    int rc = run_words(&w, 1000);
    tsr_words_free(&w);
    return rc;
}

static const char *msg(void) { return D->ctl(S)->msg; }

static void expect_v(int e, int c, float want)
{
    uint32_t got = st(S_V, e)[c];
    cr_expect_eq(got, B(want), "v%d.%c = %g (0x%08x), expected %g", e, "xyzw"[c], F(got), got, want);
}

/* ---- a corpus program against C ---- */

static void corpus_path(char *out, size_t n, const char *name)
{
    char shared[512];
    corpus_shared_dir(shared, sizeof shared);
    snprintf(out, n, "%s/corpus/utgard-gp/lima_compiler/%s", shared, name);
}

static void load_hex(const char *path, struct tsr_words *w)
{
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
    tsr_words_init(w, 128);
    cr_assert_eq(tsr_words_read(w, path, TSR_WORDS_HEX, &d), 0, "cannot read %s", path);
    tsr_diag_fini(&d);
}

static int close_to(float got, double want)
{
    return fabs(got - want) <= 1e-5 * fmax(1.0, fabs(want));
}

Test(utgard_sim, corpus_depth_shader_against_c)
{
    char path[700];
    corpus_path(path, sizeof path, "glmark2_depth.hex");
    struct tsr_words w;
    load_hex(path, &w);
    for (int k = 0; k < 16; k++) {
        reset();
        float m[4][4], p[3], nrm[3], sc[3], off[3];
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++)
                m[i][j] = rndf();
        m[3][3] += 20.0f;   /* keep w away from 0 */
        for (int i = 0; i < 3; i++)
            p[i] = rndf(), nrm[i] = rndf(), sc[i] = rndf(), off[i] = rndf();
        for (int i = 0; i < 4; i++)   /* column i of the matrix in t[i] */
            set4(S_U, i, m[i][0], m[i][1], m[i][2], m[i][3]);
        set4(S_U, 4, sc[0], sc[1], sc[2], 0);
        set4(S_U, 5, off[0], off[1], off[2], 0);
        set4(S_A, 0, p[0], p[1], p[2], 1);
        set4(S_A, 1, nrm[0], nrm[1], nrm[2], 0);
        int rc = run_words(&w, 100);
        cr_assert_eq(rc, TSR_SIM_HALTED, "input %d: %d %s", k, rc, msg());
        cr_expect_eq(D->ctl(S)->icount, w.count);
        double clip[4];
        for (int r = 0; r < 4; r++)
            clip[r] = (double)m[0][r] * p[0] + (double)m[1][r] * p[1] + (double)m[2][r] * p[2] + m[3][r];
        double rw = 1.0 / clip[3];
        double want[4] = {clip[0] * rw * sc[0] + off[0], clip[1] * rw * sc[1] + off[1], clip[2] * rw * sc[2] + off[2], rw};
        for (int c = 0; c < 4; c++) {
            float got = F(st(S_V, 0)[c]);
            cr_expect(close_to(got, want[c]), "input %d: v0.%c = %.9g, expected %.9g", k, "xyzw"[c], got, want[c]);
        }
        for (int c = 0; c < 3; c++)
            expect_v(1, c, nrm[c]);
    }
    tsr_words_free(&w);
}

Test(utgard_sim, every_corpus_program_runs_clean)
{
    char dir[700];
    corpus_path(dir, sizeof dir, "");
    int programs = 0, clean = 0;
    unsigned long bundles = 0;
    for (size_t n = 0; n < lima_nnames; n++) {
        char path[800];
        snprintf(path, sizeof path, "%s%s.hex", dir, lima_names[n]);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;   /* programs kept aside (MANIFEST.md) */
        fclose(f);
        struct tsr_words w;
        load_hex(path, &w);
        programs++;
        int ok = 1;
        for (int k = 0; k < 4 && ok; k++) {
            reset();
            for (int e = 0; e < 16; e++)
                set4(S_A, e, rndf(), rndf(), rndf(), rndf());
            for (int e = 0; e < 64; e++)
                set4(S_U, e, rndf(), rndf(), rndf(), rndf() + 20.0f);
            int rc = run_words(&w, 10000);
            cr_expect_eq(rc, TSR_SIM_HALTED, "%s, input %d: code %d at bundle %llu: %s", lima_names[n], k, rc,
                         (unsigned long long)D->ctl(S)->icount, msg());
            ok = rc == TSR_SIM_HALTED;
            bundles += D->ctl(S)->icount;
        }
        clean += ok;
        tsr_words_free(&w);
    }
    printf("utgard sim: %d of %d corpus programs run to their end with no report (%lu bundles)\n", clean, programs,
           bundles);
    cr_expect_eq(programs, 31);
    cr_expect_eq(clean, programs);
}

/* ---- small programs ---- */

Test(utgard_sim, forwarding_ages_of_every_unit)
{
    set4(S_A, 0, 3.0f, -2.5f, 0.75f, 10.0f);
    set4(S_U, 0, 0.25f, 4.0f, -8.0f, 1.0f);
    /* each unit's result at age 1 and 2 (the complex unit's at 1), and at age 0 through the stores */
    cr_assert_eq(run("add.a0 a0.x -a0.y; add.a1 a0.z t[0].x; mul.m0 a0.x a0.y; mul.m1 a0.x -t[0].y; mov.p a0.w\n"
                     "mov.a0/v0.x ^m0@1; mov.a1/v0.y ^m1@1; mov.m0/v1.z ^a0@1; mov.m1/v1.w ^a1@1; mov.p ^p@1\n"
                     "mov.a0/v2.x ^a0@2; mov.a1/v2.y ^m1@2; mov.m0/v3.z ^m0@2; mov.m1/v3.w ^a1@2; mov.c ^p@1\n"
                     "mov.a0/v4.x ^p@2; mov.a1/v4.y ^c@1\n"),
                 TSR_SIM_HALTED, "%s", msg());
    expect_v(0, 0, -7.5f), expect_v(0, 1, -12.0f), expect_v(1, 2, 5.5f), expect_v(1, 3, 1.0f);
    expect_v(2, 0, 5.5f), expect_v(2, 1, -12.0f), expect_v(3, 2, -7.5f), expect_v(3, 3, 1.0f);
    expect_v(4, 0, 10.0f), expect_v(4, 1, 10.0f);
    cr_expect_eq(D->ctl(S)->icount, 4);
}

Test(utgard_sim, acc_ops)
{
    set4(S_A, 0, 2.75f, -1.5f, 0.0f, -2.75f);
    /* the two adders share acc_op: one kind a bundle besides mov */
    cr_assert_eq(run("floor.a0 a0.x\n"
                     "mov.a0/v0.x ^a0@1; sign.a1 a0.y\n"
                     "ge.a0 a0.x a0.y; mov.a1/v0.y ^a1@1\n"
                     "mov.a0/v0.z ^a0@1; lt.a1 a0.x a0.y\n"
                     "min.a0 a0.x a0.w; mov.a1/v0.w ^a1@1\n"
                     "mov.a0/v1.x ^a0@1; max.a1 a0.x -a0.x\n"
                     "sign.a0 a0.z; mov.a1/v1.y ^a1@1\n"
                     "mov.a0/v1.z ^a0@1\n"),
                 TSR_SIM_HALTED, "%s", msg());
    expect_v(0, 0, 2.0f), expect_v(0, 1, -1.0f), expect_v(0, 2, 1.0f), expect_v(0, 3, 0.0f);
    expect_v(1, 0, -2.75f), expect_v(1, 1, 2.75f), expect_v(1, 2, 0.0f);
}

Test(utgard_sim, complex_unit_pass_unit_and_select)
{
    set4(S_A, 0, 4.0f, 16.0f, 3.0f, 8.0f);
    set4(S_U, 0, -1.0f, 2.0f, 0.0f, 1.0f);
    cr_assert_eq(run("rcp.c a0.x\n"
                     "mov.a0/v0.x ^c@1; rsqrt.c a0.y\n"
                     "mov.a0/v0.y ^c@1; exp2.c a0.z\n"
                     "mov.a0/v1.x ^c@1; log2.c a0.w\n"
                     "mov.a0/v1.y ^c@1; clamp.p a0.z t[0].x t[0].y\n"
                     "mov.a0/v2.x ^p@1; sel.m01 t[0].w a0.x a0.y\n"
                     "mov.a0/v2.y ^m0@1; sel.m01 t[0].z a0.x a0.y\n"
                     "mov.a0/v3.x ^m0@1\n"),
                 TSR_SIM_HALTED, "%s", msg());
    expect_v(0, 0, 0.25f), expect_v(0, 1, 0.25f), expect_v(1, 0, 8.0f), expect_v(1, 1, 3.0f);
    expect_v(2, 0, 2.0f), expect_v(2, 1, 16.0f), expect_v(3, 0, 4.0f);
}

/* lima's recipe rcp(x) = complex1(rcp_impl(x), complex2(x), rcp_impl(x), x), read at age 2 (lower.c, codegen.c) */
Test(utgard_sim, complex1_recipe_and_its_age)
{
    set4(S_A, 0, 8.0f, 0, 0, 0);
    const char *recipe = "complex2.m0 a0.x a0.x; rcp.c a0.x\n"
                         "complex1.m01 ^c@1 ^m0@1 ^c@1 a0.x\n";
    char src[512];
    snprintf(src, sizeof src, "%smov.a1 a0.x\nmov.a0/v0.x ^m0@2\n", recipe);
    cr_assert_eq(run(src), TSR_SIM_HALTED, "%s", msg());
    expect_v(0, 0, 0.125f);
    reset();
    set4(S_A, 0, 8.0f, 0, 0, 0);
    snprintf(src, sizeof src, "%smov.a0/v0.x ^m0@1\n", recipe);   /* complex1 takes two cycles: no age 1 */
    cr_assert_eq(run(src), TSR_SIM_HAZARD);
    cr_expect(strstr(msg(), "res"), "%s", msg());
    reset();
    snprintf(src, sizeof src, "complex2.m0 a0.x a0.x; rcp.c a0.x\ncomplex1.m01/v0.x ^c@1 ^m0@1 ^c@1 a0.x\n");
    cr_assert_eq(run(src), TSR_SIM_HAZARD, "a store of complex1's own result: %s", msg());
}

Test(utgard_sim, values_that_do_not_exist_are_reported)
{
    set4(S_A, 0, 1.0f, 2.0f, 0, 0);
    cr_assert_eq(run("mul.m0 a0.x a0.y\nmov.a0/v0.x ^m1@1\n"), TSR_SIM_HAZARD);   /* m1 was idle */
    cr_expect(strstr(msg(), "res"), "%s", msg());
    reset();
    cr_assert_eq(run("mul.m0 a0.x a0.y\nmov.a0 a0.x\nmov.a1 a0.x\nmov.a0/v0.x ^m0@2\n"), TSR_SIM_HAZARD);   /* age 3 */
    reset();
    cr_assert_eq(run("rcp.c a0.x\nmov.a0 a0.x\nmov.a0/v0.x ^p@2\n"), TSR_SIM_HAZARD);   /* the pass unit was idle */
    reset();
    cr_assert_eq(run("mov.a0/v0.x ^a0@1\n"), TSR_SIM_HAZARD);   /* before the first instruction */
}

Test(utgard_sim, register_latency_and_the_stale_reg0_load)
{
    set4(S_A, 0, 5.0f, 6.0f, 0, 0);
    /* a store to $0, read by reg1 three instructions later: fine; two: a hazard */
    cr_assert_eq(run("mov.a0/$0.x a0.x\nmov.a1 a0.y\nmov.a1 a0.y\nmov.a0/v0.x $0.x\n"), TSR_SIM_HALTED, "%s", msg());
    expect_v(0, 0, 5.0f);
    reset();
    set4(S_A, 0, 5.0f, 6.0f, 0, 0);
    cr_assert_eq(run("mov.a0/$0.x a0.x\nmov.a1 a0.y\nmov.a0/v0.x $0.x\n"), TSR_SIM_HAZARD);
    cr_expect(strstr(msg(), "R"), "%s", msg());
    /* reg0 loads r0 in every instruction (its address field is 0): stale right after the store, reported only
     * when read through code 28-31 */
    reset();
    set4(S_A, 0, 5.0f, 6.0f, 0, 0);
    set4(S_A, 1, 9.0f, 0, 0, 0);
    cr_assert_eq(run("mov.a0/$0.x a1.x\nmov.a1 t[0].x\nmov.a1 t[0].x\nmov.a1 t[0].x\nmov.a0/v0.x ^reg0@1.x\n"),
                 TSR_SIM_HALTED, "%s", msg());
    expect_v(0, 0, 9.0f);
    reset();
    cr_assert_eq(run("mov.a0/$0.x a1.x\nmov.a1 t[0].x\nmov.a0/v0.x ^reg0@1.x\n"), TSR_SIM_HAZARD);
    cr_expect(strstr(msg(), "reg0_r"), "%s", msg());
}

Test(utgard_sim, branch_on_the_pass_result)
{
    set4(S_A, 0, 7.0f, 0, 0, 0);
    set4(S_U, 0, 1.0f, 0.0f, 0, 0);
    /* (the target by a label: instruction 3; `L30` would name it too, the byte address in hex) */
    const char *prog = "mov.p t[0].%c; branch ^p@0 last\nmov.a0/v0.x a0.x\nmov.a0/v0.y a0.x\nlast:\nmov.a0/v0.z a0.x\n";
    char src[256];
    snprintf(src, sizeof src, prog, 'x');   /* 1.0: taken */
    cr_assert_eq(run(src), TSR_SIM_HALTED, "%s", msg());
    expect_v(0, 0, 0.0f), expect_v(0, 1, 0.0f), expect_v(0, 2, 7.0f);
    cr_expect_eq(D->ctl(S)->icount, 2);
    reset();
    set4(S_A, 0, 7.0f, 0, 0, 0);
    set4(S_U, 0, 1.0f, 0.0f, 0, 0);
    snprintf(src, sizeof src, prog, 'y');   /* 0.0: not taken */
    cr_assert_eq(run(src), TSR_SIM_HALTED, "%s", msg());
    expect_v(0, 0, 7.0f), expect_v(0, 1, 7.0f), expect_v(0, 2, 7.0f);
    cr_expect_eq(D->ctl(S)->icount, 4);
}

Test(utgard_sim, random_bundles_sim_vs_evaluator)
{
    static struct mdl_diffsim DS;
    cr_assert_eq(mdl_diffsim_init(&DS, M, T, D), 0, "%s", DS.report);
    unsigned char buf[512];
    for (int k = 0; k < 20000; k++) {
        for (size_t b = 0; b < sizeof buf; b++)
            buf[b] = (unsigned char)rnd();
        int rc = mdl_diffsim_one(&DS, buf, sizeof buf);
        cr_assert_eq(rc, 0, "bundle %d: %s", k, DS.report);
    }
    printf("utgard random: %llu bundles: %llu ok, %llu halted, %llu errors, aborts or hazards\n",
           (unsigned long long)DS.runs, (unsigned long long)DS.ok, (unsigned long long)DS.halted,
           (unsigned long long)DS.errors);
    mdl_diffsim_fini(&DS);
}
