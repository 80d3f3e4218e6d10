/* The Utgard GP's deferred reads in the validator (docs/validate.md "Deferred reads"; targets/utgard/utgard.mdl): the
 * reg0 load unit loads every instruction, used or not (`reg0_r[c] = R[reg0_addr * 4 + c]` in the format's sem), so a
 * load inside R's latency is a hazard only when the next instruction reads it (`^reg0@1`, codes 28-31).
 *  - the whole lima corpus (31 programs) validates with no report, and the stream check agrees in issue order;
 *  - the simulator with the rules on (TSR_SIM_F_RULES: the stream check in the real issue order) runs every program to
 *    its end with no report;
 *  - mutations of real programs that consume a stale load (lima's programs load registers 1 or 2 instructions after
 *    storing them, and never read those loads: the next instruction is made to read one, `^reg0@1`) are reported
 *    once, at the reader, naming the loader and the store; the stream check and the simulator report the same.
 * The mutations and the expected reports come from the instruction word's bits (../shared/isa/utgard-gp.md
 * "Instruction word", lima codegen.h), not from the description.  Run from the repository root (or with TESSERA_ROOT
 * set to it); the corpus is found as corpus.h says. */
#include <criterion/criterion.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "support_lima.h"
#include "registry.h"
#include "sim/sim.h"
#include "tsr.h"
#include "validate/validate.h"

extern const struct tsr_sim_desc utgard_sim_desc;


/* Reads corpus program `name` into w; false when it is kept aside (MANIFEST.md). */
static bool load(const char *name, struct tsr_words *w)
{
    char shared[512], path[800];
    corpus_shared_dir(shared, sizeof shared);
    snprintf(path, sizeof path, "%s/corpus/utgard-gp/lima_compiler/%s.hex", shared, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    fclose(f);
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
    tsr_words_init(w, 128);
    cr_assert_eq(tsr_words_read(w, path, TSR_WORDS_HEX, &d), 0, "cannot read %s", path);
    tsr_diag_fini(&d);
    return true;
}

/* ---- the instruction word (utgard-gp.md "Instruction word"): 128 bits, four little-endian words ---- */
static unsigned bits(const uint32_t *in, int hi, int lo)
{
    unsigned v = 0;
    for (int b = hi; b >= lo; b--)
        v = v << 1 | (in[b / 32] >> (b % 32) & 1);
    return v;
}

static void set_bits(uint32_t *in, int hi, int lo, unsigned v)
{
    for (int b = lo; b <= hi; b++) {
        in[b / 32] &= ~(1u << (b % 32));
        in[b / 32] |= (v >> (b - lo) & 1) << (b % 32);
    }
}

/* The register (0-15) whose component c instruction `in` stores, or -1: store0 takes x and y (sources 73:71,
 * 76:74; temporary bit 67, varying bit 94, address 93:90), store1 z and w (79:77, 82:80; 68, 99, 98:95); source 7
 * stores nothing. */
static int stored_reg(const uint32_t *in, int c)
{
    static const int src_lo[4] = { 71, 74, 77, 80 };
    int s1 = c >= 2;
    if (bits(in, src_lo[c] + 2, src_lo[c]) == 7 || bits(in, s1 ? 68 : 67, s1 ? 68 : 67) ||
        bits(in, s1 ? 99 : 94, s1 ? 99 : 94))
        return -1;
    return (int)(s1 ? bits(in, 98, 95) : bits(in, 93, 90));
}

static bool has_branch(const struct tsr_words *w)
{
    for (size_t i = 0; i < w->count; i++)
        if (bits(w->w + 4 * i, 69, 69))
            return true;
    return false;
}

/* ---- reports of the program check and of the stream check ---- */
#define MAXREP 16
struct reps { int n; uint32_t pc[MAXREP]; char text[MAXREP][300]; };

static void on_viol(void *ctx, const struct tsr_vviol *v)
{
    struct reps *r = ctx;
    if (r->n < MAXREP) {
        r->pc[r->n] = v->pc;
        snprintf(r->text[r->n], sizeof r->text[0], "%s %s: %s", tsr_vviol_kind(v), v->name, v->text);
    }
    r->n++;
}

static void check_program(const struct tsr_vdesc *D, const uint32_t *w, size_t n, struct reps *r)
{
    memset(r, 0, sizeof *r);
    tsr_validate(D, w, n, 0, on_viol, r);
}

/* The stream check over the bundles in program order (the issue order of a program without branches). */
static void check_stream(const struct tsr_vdesc *D, const uint32_t *w, size_t n, struct reps *r)
{
    memset(r, 0, sizeof *r);
    struct tsr_vstream *s = tsr_vstream_new(D);
    cr_assert_not_null(s);
    for (size_t i = 0; i < n; i++)
        tsr_vstream_step(s, w + 4 * i, (uint32_t)(16 * i), on_viol, r);
    tsr_vstream_free(s);
}

static void expect_same(const struct reps *a, const struct reps *b, const char *what)
{
    cr_expect_eq(a->n, b->n, "%s: %d reports, the stream %d", what, a->n, b->n);
    for (int i = 0; i < a->n && i < b->n && i < MAXREP; i++) {
        cr_expect_eq(a->pc[i], b->pc[i], "%s: report %d", what, i);
        cr_expect_str_eq(a->text[i], b->text[i], "%s: report %d", what, i);
    }
}

/* Runs the words m (as many as w has) in the simulator with the rules on, from zero inputs, to its end or its first
 * report (its text into msg, if not NULL); returns the last step's code. */
static int sim_rules(const struct tsr_words *w, const uint32_t *m, char *msg)
{
    const struct tsr_sim_desc *SD = &utgard_sim_desc;
    void *S = calloc(1, SD->sim_size);
    cr_assert_not_null(S);
    SD->init(S);
    SD->ctl(S)->flags |= TSR_SIM_F_RULES;
    int rc = TSR_SIM_OK;
    for (int i = 0; i < 10000 && (rc == TSR_SIM_OK || rc == TSR_SIM_STALL); i++)
        rc = SD->step(S, m, w->count * 4);
    if (msg)
        snprintf(msg, 400, "%s", SD->ctl(S)->msg);
    SD->fini(S);
    free(S);
    return rc;
}

Test(utgard_defer, corpus_validates_with_no_report)
{
    const struct tsr_target *T = tsr_find_target("utgard");
    cr_assert_not_null(T);
    int programs = 0, reports = 0, streamed = 0, simclean = 0;
    for (size_t k = 0; k < lima_nnames; k++) {
        struct tsr_words w;
        if (!load(lima_names[k], &w))
            continue;
        programs++;
        struct reps r, s;
        check_program(T->vdesc, w.w, w.count, &r);
        cr_expect_eq(r.n, 0, "%s: %d reports, the first at 0x%08" PRIx32 ": %s", lima_names[k], r.n, r.pc[0],
                     r.text[0]);
        reports += r.n;
        if (!has_branch(&w)) {
            check_stream(T->vdesc, w.w, w.count, &s);
            expect_same(&r, &s, lima_names[k]);
            streamed++;
        }
        int rc = sim_rules(&w, w.w, NULL);
        cr_expect_eq(rc, TSR_SIM_HALTED, "%s: the simulator with the rules: code %d", lima_names[k], rc);
        simclean += rc == TSR_SIM_HALTED;
        tsr_words_free(&w);
    }
    printf("utgard validate: %d corpus programs, %d reports (%d also as streams; %d run clean in the simulator with "
           "the rules)\n", programs, reports, streamed, simclean);
    cr_expect_eq(programs, 31);
    cr_expect_eq(simclean, programs);
    cr_expect_eq(reports, 0);
}

/* A load that lima leaves unread and that is stale: instruction j loads register a (reg0_addr 61:58, reg0_attr 62
 * clear), whose component c a store 1 or 2 instructions before j writes (s: the nearest).  The mutation makes the next
 * instruction read it: the first source of a unit that has one (acc0 26:22, acc1 36:32, pass 115:111; 21 is unused)
 * becomes ^reg0@1.c (code 28 + c), which changes no op. */
struct mutation { size_t j, s; int c, a, field_lo; };

static int find_mutations(const struct tsr_words *w, struct mutation *out, int max)
{
    static const int src_lo[3] = { 22, 32, 111 };
    size_t n = w->count;
    int found = 0;
    for (size_t j = 1; j + 1 < n && found < max; j++) {
        const uint32_t *in = w->w + 4 * j, *next = in + 4;
        if (bits(in, 62, 62))
            continue;
        int a = (int)bits(in, 61, 58), field = -1;
        for (int u = 0; u < 3 && field < 0; u++)
            if (bits(next, src_lo[u] + 4, src_lo[u]) != 21)
                field = src_lo[u];
        if (field < 0)
            continue;
        for (int c = 0; c < 4 && found < max; c++) {
            size_t s = SIZE_MAX;
            if (stored_reg(in - 4, c) == a)
                s = j - 1;
            else if (j >= 2 && stored_reg(in - 8, c) == a)
                s = j - 2;
            if (s == SIZE_MAX)
                continue;
            out[found++] = (struct mutation){ j, s, c, a, field };
            break;   /* one per load */
        }
    }
    return found;
}

Test(utgard_defer, a_consumed_stale_load_is_reported_once)
{
    const struct tsr_target *T = tsr_find_target("utgard");
    cr_assert_not_null(T);
    const struct tsr_vdesc *D = T->vdesc;
    int tried = 0, caught = 0, simmed = 0;
    char first[360] = "";
    for (size_t k = 0; k < lima_nnames; k++) {
        struct tsr_words w;
        if (!load(lima_names[k], &w))
            continue;
        if (has_branch(&w)) {   /* the mutation's paths and the stream's order are the program's order */
            tsr_words_free(&w);
            continue;
        }
        struct mutation mu[4];
        int nm = find_mutations(&w, mu, 4);
        size_t n = w.count;
        uint32_t *m = malloc(4 * w.count * sizeof *m);
        for (int q = 0; q < nm; q++) {
            const struct mutation *x = &mu[q];
            memcpy(m, w.w, 4 * w.count * sizeof *m);
            set_bits(m + 4 * (x->j + 1), x->field_lo + 4, x->field_lo, 28u + (unsigned)x->c);   /* ^reg0@1.c */
            struct reps r, s;
            check_program(D, m, n, &r);
            char want[300];
            snprintf(want, sizeof want, "rule R.latency: reads reg0_r[%d]@1, loaded at 0x%08zx from R[%d]; the "
                     "instruction %zu before it (0x%08zx) writes R[%d] (at least 3 apart)", x->c, 16 * x->j,
                     4 * x->a + x->c, x->j - x->s, 16 * x->s, 4 * x->a + x->c);
            if (!tried++)
                snprintf(first, sizeof first, "%s: %s", lima_names[k], r.n ? r.text[0] : "(none)");
            size_t at = 16 * (x->j + 1);
            cr_expect_eq(r.n, 1, "%s, reader 0x%zx: %d reports, the first: %s", lima_names[k], at, r.n, r.text[0]);
            if (r.n >= 1) {
                cr_expect_str_eq(r.text[0], want, "%s", lima_names[k]);
                cr_expect_eq(r.pc[0], at, "%s", lima_names[k]);
                caught += r.n == 1 && !strcmp(r.text[0], want) && r.pc[0] == at;
            }
            check_stream(D, m, n, &s);
            expect_same(&r, &s, lima_names[k]);
            if (q == 0) {   /* the simulator with the rules on stops at the same report */
                char wsim[400], got[400];
                snprintf(wsim, sizeof wsim, "hazard: rule R.latency at 0x%08zx: %s", at, want + strlen("rule R.latency: "));
                int rc = sim_rules(&w, m, got);
                cr_expect_eq(rc, TSR_SIM_HAZARD, "%s: %d", lima_names[k], rc);
                cr_expect_str_eq(got, wsim, "%s", lima_names[k]);
                simmed += rc == TSR_SIM_HAZARD && !strcmp(got, wsim);
            }
        }
        free(m);
        tsr_words_free(&w);
    }
    printf("utgard validate: %d of %d stale-load mutations reported once at the reader (%d in the simulator); the "
           "first: %s\n", caught, tried, simmed, first);
    cr_expect_geq(tried, 10);
    cr_expect_eq(caught, tried);
}
