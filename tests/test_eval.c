/* The independent evaluator (mdl/eval.h) against the generated QPU simulator (build/gen/qpu/qpu_sim.c):
 * the core of the encoder-versus-simulator fuzzer (mdl/diffsim.h), run here on fixed seeds, on every word
 * of the GPU_FFT corpus (../shared/corpus/qpu/gpu_fft_r3/hex) and on known answers.
 * Run from the repository root (or with TESSERA_ROOT set to it). */
#include <criterion/criterion.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diffsim.h"
#include "eval.h"
#include "qpu.h"
#include "support_san.h"
#include "tsr.h"

static struct mdl_model *M;
static struct mdl_diffsim DS;

static void path_of(char *buf, size_t n, const char *rel)
{
    const char *root = getenv("TESSERA_ROOT");
    snprintf(buf, n, "%s/%s", root && *root ? root : ".", rel);
}

static void setup(void)
{
    char path[4096];
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
    path_of(path, sizeof path, "targets/qpu/qpu.mdl");
    M = mdl_load(path, &d);
    tsr_diag_fini(&d);
    cr_assert_not_null(M, "cannot load %s", path);
    cr_assert_eq(mdl_diffsim_init(&DS, M, &qpu_target, &qpu_sim_desc), 0, "%s", DS.report);
}

static void teardown(void)
{
    mdl_diffsim_fini(&DS);
    mdl_model_free(M);
}

TestSuite(eval, .init = setup, .fini = teardown);

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

static void fill(uint8_t *buf, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i += 8) {
        uint64_t x = mix(seed * 1000003u + i);
        for (size_t j = 0; j < 8 && i + j < n; j++)
            buf[i + j] = (uint8_t)(x >> (8 * j));
    }
}

/* Random bundles (random words: every format, most ops, random operands and states). */
Test(eval, random_bundles_agree)
{
    uint8_t buf[64];
    const uint64_t n = test_random_count("eval random bundles", 200000);
    for (uint64_t i = 0; i < n; i++) {
        fill(buf, sizeof buf, i);
        int rc = mdl_diffsim_one(&DS, buf, sizeof buf);
        cr_assert_eq(rc, 0, "run %llu: %s", (unsigned long long)i, DS.report);
    }
    cr_log_info("random: %llu bundles: %llu ok, %llu halted, %llu stalled, %llu hazards, %llu errors",
                (unsigned long long)DS.runs, (unsigned long long)DS.ok, (unsigned long long)DS.halted,
                (unsigned long long)DS.stalled, (unsigned long long)DS.hazards, (unsigned long long)DS.errors);
    /* the harness must exercise the interesting outcomes, not only errors */
    cr_expect_gt(DS.ok, DS.runs / 4);
    cr_expect_gt(DS.hazards, 100u);
    cr_expect_gt(DS.stalled, 100u);
    cr_expect_gt(DS.halted, 10u);
}

/* Real instructions: every word of GPU_FFT (Broadcom's assembler output), each from several random
 * machine states, so the common encodings are covered with realistic operand combinations. */
Test(eval, corpus_bundles_agree)
{
    char dir[4200];
    const char *shared = getenv("TESSERA_SHARED");
    if (shared && *shared)
        snprintf(dir, sizeof dir, "%s/corpus/qpu/gpu_fft_r3/hex", shared);
    else
        path_of(dir, sizeof dir, "../shared/corpus/qpu/gpu_fft_r3/hex");
    DIR *dp = opendir(dir);
    cr_assert(dp, "cannot open %s (set TESSERA_SHARED)", dir);
    struct dirent *de;
    size_t words = 0;
    while ((de = readdir(dp))) {
        if (!strstr(de->d_name, ".hex"))
            continue;
        char path[8400];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        struct tsr_words w;
        struct tsr_diag d;
        tsr_words_init(&w, 64);
        tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
        cr_assert_eq(tsr_words_read(&w, path, TSR_WORDS_HEX, &d), 0, "%s", path);
        for (size_t i = 0; i < w.count; i++) {
            for (uint64_t k = 0; k < 4; k++) {
                uint8_t buf[17];
                fill(buf, 9, i * 4 + k + 77);
                buf[0] &= 0xfc; /* one bundle */
                const uint32_t *x = tsr_words_at(&w, i);
                for (int j = 0; j < 4; j++) {
                    buf[9 + j] = (uint8_t)(x[0] >> (8 * j));
                    buf[13 + j] = (uint8_t)(x[1] >> (8 * j));
                }
                int rc = mdl_diffsim_one(&DS, buf, sizeof buf);
                cr_assert_eq(rc, 0, "%s line %u: %s", de->d_name, w.line[i], DS.report);
            }
            words++;
        }
        tsr_words_free(&w);
        tsr_diag_fini(&d);
    }
    closedir(dp);
    cr_assert_gt(words, 10000u, "only %zu corpus words", words);
    cr_log_info("corpus: %zu words, %llu runs: %llu ok, %llu hazards, %llu stalled, %llu errors", words,
                (unsigned long long)DS.runs, (unsigned long long)DS.ok, (unsigned long long)DS.hazards,
                (unsigned long long)DS.stalled, (unsigned long long)DS.errors);
}

/* ---- the evaluator on its own: known answers ------------------------------------------------------- */

static int state_index(const char *name)
{
    for (int s = 0; s < M->nstates; s++)
        if (strcmp(M->states[s].name, name) == 0)
            return s;
    cr_assert_fail("no state %s", name);
    return -1;
}

static void splat(struct mdl_evstate *st, const char *name, int elem, uint32_t v)
{
    uint32_t *p = mdl_evstate_elem(st, state_index(name), elem);
    for (int l = 0; l < mdl_evstate_width(st, state_index(name)); l++)
        p[l] = v;
}

/* Assembles one bundle and evaluates it on st. */
static int eval_asm(struct mdl_evstate *st, const char *text)
{
    uint32_t w[2];
    char err[256];
    cr_assert_eq(qpu_assemble_one(text, strlen(text), 0, w, err, sizeof err), 0, "%s: %s", text, err);
    struct qpu_tinst inst;   /* the fields as uint64_t, as the evaluator reads them */
    qpu_tdecode(w, &inst);
    int ops[QPU_NSLOTS];
    for (int k = 0; k < QPU_NSLOTS; k++)
        ops[k] = inst.op[k] == QPU_NO_OP ? -1 : inst.op[k];
    return mdl_eval_bundle(M, st, inst.f, inst.format == QPU_NO_FORMAT ? -1 : inst.format, ops);
}

Test(eval, known_answers)
{
    struct mdl_evstate st;
    cr_assert_eq(mdl_evstate_init(&st, M), 0);
    splat(&st, "acc", 1, 0x3fc00000u); /* 1.5 */
    splat(&st, "acc", 2, 0x40100000u); /* 2.25 */
    cr_assert_eq(eval_asm(&st, "fadd r0, r1, r2; mul24 r3, r1, r1"), TSR_SIM_OK, "%s", st.ctl.msg);
    cr_expect_eq(mdl_evstate_elem(&st, state_index("acc"), 0)[7], 0x40700000u); /* 3.75 */
    cr_expect_eq(mdl_evstate_elem(&st, state_index("acc"), 3)[0], 0u);          /* 0xc00000^2 mod 2^32 */
    cr_expect_eq(mdl_evstate_elem(&st, state_index("pc"), 0)[0], 8u);
    cr_expect_eq(st.ctl.icount, 1u);
    /* the two-stage order: the mul reads r0 as it was before the add wrote it */
    splat(&st, "acc", 0, 5);
    cr_assert_eq(eval_asm(&st, "add r0, r0, r0; mov r1, r0"), TSR_SIM_OK, "%s", st.ctl.msg);
    cr_expect_eq(mdl_evstate_elem(&st, state_index("acc"), 0)[3], 10u);
    cr_expect_eq(mdl_evstate_elem(&st, state_index("acc"), 1)[3], 5u);
    /* flags and a conditional write */
    cr_assert_eq(eval_asm(&st, "sub.setf -, elem_num, 4"), TSR_SIM_ERROR); /* no hooks: elem_num is I/O */
    mdl_evstate_fini(&st);
}

/* ---- the shortcuts of runtime/sem.h and of the generated code against runtime/arith.h ---------------- */

#include "sem.h"

/* Operands near the interesting edges: exponents at both ends, the exponent differences 27..30 of the
 * fadd shortcut, results near overflow and underflow, zeros, denormals, infinities, NaN encodings. */
static uint32_t edge_float(uint64_t r)
{
    uint32_t sign = (uint32_t)(r >> 63) << 31, mant = (uint32_t)(r >> 8) & 0x7fffffu;
    uint32_t e;
    switch (r & 7) {
    case 0: e = (uint32_t)(r >> 40) % 256; break;
    case 1: e = 1 + (uint32_t)(r >> 40) % 8; break;
    case 2: e = 246 + (uint32_t)(r >> 40) % 10; break;
    case 3: e = 127 + (uint32_t)((r >> 40) % 61) - 30; break;
    case 4: e = 0; break;
    default: e = 64 + (uint32_t)(r >> 40) % 128; break;
    }
    if ((r >> 48 & 15) == 0)
        mant = (r >> 52 & 1) ? 0x7fffffu : 0;
    return sign | e << 23 | mant;
}

Test(sem, float_shortcuts_are_bit_exact)
{
    const uint64_t n = test_random_count("sem float shortcuts", 3000000);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r1 = mix(i * 2 + 1), r2 = mix(i * 2 + 2);
        uint32_t a = edge_float(r1), b = edge_float(r2);
        if (r2 & 0x100) /* exponent differences around the fadd shortcut's limit */
            b = (b & 0x807fffffu) | ((((a >> 23) & 0xffu) + (uint32_t)(r2 >> 20) % 63 - 31) & 0xffu) << 23;
        for (int fm = 0; fm < 2; fm++) {
            struct tsr_fpmode md = tsr_sem_fpmode(fm, 0);
            cr_assert_eq(tsr_sem_fadd(a, b, fm), tsr_fadd(a, b, md), "fadd %08x %08x mode %d", a, b, fm);
            cr_assert_eq(tsr_sem_fsub(a, b, fm), tsr_fsub(a, b, md), "fsub %08x %08x mode %d", a, b, fm);
            cr_assert_eq(tsr_sem_fmul(a, b, fm), tsr_fmul(a, b, md), "fmul %08x %08x mode %d", a, b, fm);
            cr_assert_eq(tsr_sem_ftoi(a, fm), tsr_ftoi(a, md), "ftoi %08x mode %d", a, fm);
            uint32_t k = (uint32_t)(r2 >> 32) >> ((r1 >> 58) & 31); /* integers of every magnitude */
            if (r1 & 1)
                k = 0u - k;
            cr_assert_eq(tsr_sem_itof(k, fm), tsr_itof(k, md), "itof %08x mode %d", k, fm);
            /* the comparisons' shortcut (zero or normal operands) against tsr_fcmp */
            int c = tsr_fcmp(a, b, md);
            const uint32_t want[6] = { c == TSR_FCMP_LT, c == TSR_FCMP_LT || c == TSR_FCMP_EQ, c == TSR_FCMP_GT,
                                       c == TSR_FCMP_GT || c == TSR_FCMP_EQ, c == TSR_FCMP_EQ, c != TSR_FCMP_EQ };
            for (int op = 0; op < 6; op++)
                cr_assert_eq(tsr_sem_cmp(a, b, op, TSR_DOM_F, fm), want[op], "cmp %d %08x %08x mode %d", op, a, b, fm);
        }
    }
}

/* Zero operands, which the shortcuts of fadd and fsub take: every pair of zeros and every zero with normals of
 * both signs, in both modes. */
Test(sem, float_zero_shortcuts_are_bit_exact)
{
    const uint32_t zeros[2] = { 0, 0x80000000u };
    const uint64_t n = test_random_count("sem float zero shortcuts", 200000);
    for (uint64_t i = 0; i < n; i++) {
        uint32_t x = edge_float(mix(i + 12345));
        for (int z = 0; z < 2; z++)
            for (int fm = 0; fm < 2; fm++) {
                struct tsr_fpmode md = tsr_sem_fpmode(fm, 0);
                uint32_t y = i < 4 ? zeros[i & 1] : x;
                cr_assert_eq(tsr_sem_fadd(zeros[z], y, fm), tsr_fadd(zeros[z], y, md), "fadd %08x %08x mode %d", zeros[z], y, fm);
                cr_assert_eq(tsr_sem_fadd(y, zeros[z], fm), tsr_fadd(y, zeros[z], md), "fadd %08x %08x mode %d", y, zeros[z], fm);
                cr_assert_eq(tsr_sem_fsub(zeros[z], y, fm), tsr_fsub(zeros[z], y, md), "fsub %08x %08x mode %d", zeros[z], y, fm);
                cr_assert_eq(tsr_sem_fsub(y, zeros[z], fm), tsr_fsub(y, zeros[z], md), "fsub %08x %08x mode %d", y, zeros[z], fm);
            }
    }
}

/* ---- index ranges (mdl_index_bound) and the reads they make pure ---- */

static struct mdl_expr *ex(enum mdl_ekind k, int op, int index, uint64_t ival, struct mdl_expr *a, struct mdl_expr *b,
                           struct mdl_expr *c)
{
    static struct mdl_expr pool[64];
    static struct mdl_expr *args[64][3];
    static int n;
    cr_assert_lt(n, 64);
    struct mdl_expr *e = &pool[n];
    *e = (struct mdl_expr){.kind = k, .type = MDL_T_U32, .op = op, .index = index, .ival = ival, .a = args[n]};
    args[n][0] = a, args[n][1] = b, args[n][2] = c;
    n++;
    return e;
}

Test(sem, index_bounds_make_regfile_reads_pure)
{
    struct mdl_field f[3] = {{.name = "a", .width = 1}, {.name = "b", .width = 5}, {.name = "s", .width = 2, .is_signed = true}};
    struct mdl_state st[3] = {{.name = "cr", .count = 2, .guard_elem = -1, .guard_hook = -1},
                              {.name = "lr", .count = 32, .latency = 2, .guard_elem = -1, .guard_hook = -1},
                              {.name = "gr", .count = 32, .guard_elem = 0, .guard_hook = -1}};
    struct mdl_model m = {.nfields = 3, .fields = f, .nstates = 3, .states = st};
    struct mdl_expr *fa = ex(MDL_E_FIELD, 0, 0, 0, NULL, NULL, NULL), *fb = ex(MDL_E_FIELD, 0, 1, 0, NULL, NULL, NULL);
    struct mdl_expr *fs = ex(MDL_E_FIELD, 0, 2, 0, NULL, NULL, NULL), *k1 = ex(MDL_E_INT, 0, 0, 1, NULL, NULL, NULL);
    struct mdl_expr *k3 = ex(MDL_E_INT, 0, 0, 3, NULL, NULL, NULL), *k40 = ex(MDL_E_INT, 0, 0, 40, NULL, NULL, NULL);
    uint64_t max = 0;
    cr_expect(mdl_index_bound(&m, fa, &max) && max == 1);
    cr_expect(mdl_index_bound(&m, fb, &max) && max == 31);
    cr_expect(!mdl_index_bound(&m, fs, &max), "a signed field can be negative");
    cr_expect(mdl_index_bound(&m, ex(MDL_E_BIN, '&', 0, 0, fb, k3, NULL), &max) && max == 3);
    cr_expect(mdl_index_bound(&m, ex(MDL_E_BIN, '&', 0, 0, fs, k3, NULL), &max) && max == 3, "one bounded side of &");
    cr_expect(mdl_index_bound(&m, ex(MDL_E_BIN, '|', 0, 0, fa, k3, NULL), &max) && max == 3);
    cr_expect(mdl_index_bound(&m, ex(MDL_E_BIN, '+', 0, 0, fb, k1, NULL), &max) && max == 32);
    cr_expect(!mdl_index_bound(&m, ex(MDL_E_BIN, '-', 0, 0, fb, k1, NULL), &max), "b - 1 wraps at b = 0");
    cr_expect(mdl_index_bound(&m, ex(MDL_E_COND, 0, 0, 0, fa, fb, k40), &max) && max == 40);
    /* reads: cr[a] cannot leave cr[2]; cr[b] can; a regfile with a latency or a guard keeps its effect */
    cr_expect(!mdl_expr_has_effects(&m, ex(MDL_E_STATE, 0, 0, 0, fa, NULL, NULL)));
    cr_expect(!mdl_expr_has_effects(&m, ex(MDL_E_STATE, 0, 0, 0, ex(MDL_E_BIN, '&', 0, 0, fb, k1, NULL), NULL, NULL)));
    cr_expect(mdl_expr_has_effects(&m, ex(MDL_E_STATE, 0, 0, 0, fb, NULL, NULL)));
    cr_expect(mdl_expr_has_effects(&m, ex(MDL_E_STATE, 0, 0, 0, fs, NULL, NULL)));
    cr_expect(mdl_expr_has_effects(&m, ex(MDL_E_STATE, 0, 1, 0, fa, NULL, NULL)));
    cr_expect(mdl_expr_has_effects(&m, ex(MDL_E_STATE, 0, 2, 0, fa, NULL, NULL)));
}
