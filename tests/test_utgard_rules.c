/* The Mali Utgard GP's validator rules (targets/utgard/utgard.mdl; docs/targets/utgard.md "Validator rules"):
 *  - every corpus program (../shared/corpus/utgard-gp/lima_compiler, every .hex: 31 programs) validates with no report;
 *  - mutations of the corpus's sources and register addresses, each checked against the simulator as oracle:
 *    the validator reports a rule at the mutated instruction exactly when the simulator, running the mutated
 *    program (straight-line code: the same path), stops there with the matching hazard (a forwarded value that
 *    does not exist at that age: `res.age`; a register read inside its latency: `R.latency`; its first report is
 *    that one, at that instruction), and nothing otherwise.
 * The corpus is read from the shared directory (tools/corpus.h corpus_shared_dir). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "registry.h"
#include "sim/sim.h"
#include "tsr.h"
#include "validate/validate.h"

extern const struct tsr_sim_desc utgard_sim_desc;

static const struct tsr_target *utgard(void)
{
    const struct tsr_target *t = tsr_find_target("utgard");
    cr_assert_not_null(t);
    cr_assert_not_null(t->vdesc);
    return t;
}

struct prog { char name[96]; struct tsr_words w; };

static int cmp_name(const void *a, const void *b) { return strcmp(((const struct prog *)a)->name, ((const struct prog *)b)->name); }

/* The corpus programs, sorted by name. */
static struct prog *load_all(int *n)
{
    char shared[512], dir[600];
    corpus_shared_dir(shared, sizeof shared);
    snprintf(dir, sizeof dir, "%s/corpus/utgard-gp/lima_compiler", shared);
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "cannot open %s", dir);
    struct prog *p = calloc(64, sizeof *p);
    int k = 0;
    for (struct dirent *e; (e = readdir(d)) && k < 64;) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".hex"))
            continue;
        char path[800];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        snprintf(p[k].name, sizeof p[k].name, "%.*s", (int)(l - 4), e->d_name);
        struct tsr_diag dg;
        tsr_diag_init(&dg, TSR_DIAG_PRINT, stderr);
        tsr_words_init(&p[k].w, 128);
        cr_assert_eq(tsr_words_read(&p[k].w, path, TSR_WORDS_HEX, &dg), 0, "cannot read %s", path);
        tsr_diag_fini(&dg);
        k++;
    }
    closedir(d);
    qsort(p, (size_t)k, sizeof *p, cmp_name);
    *n = k;
    return p;
}

struct found { int n; char name[4][48]; size_t at[4]; char text[4][240]; };

static void collect(void *ctx, const struct tsr_vviol *v)
{
    struct found *f = ctx;
    if (f->n < 4) {
        snprintf(f->name[f->n], sizeof f->name[f->n], "%s", v->name);
        f->at[f->n] = v->at;
        snprintf(f->text[f->n], sizeof f->text[f->n], "%s", v->text);
    }
    f->n++;
}

static size_t validate(const uint32_t *w, size_t n, struct found *f)
{
    memset(f, 0, sizeof *f);
    return tsr_validate(utgard()->vdesc, w, n, 0, collect, f);
}

Test(utgard_rules, corpus_passes)
{
    int np;
    struct prog *p = load_all(&np);
    unsigned ninstr = 0;
    size_t total = 0;
    for (int k = 0; k < np; k++) {
        struct found f;
        size_t n = validate(p[k].w.w, p[k].w.count, &f);
        for (int i = 0; i < f.n && i < 4; i++)
            cr_log_error("%s: instruction %zu %s: %s", p[k].name, f.at[i], f.name[i], f.text[i]);
        cr_expect_eq(n, 0, "%s: %zu reports", p[k].name, n);
        total += n;
        ninstr += (unsigned)p[k].w.count;
        tsr_words_free(&p[k].w);
    }
    free(p);
    cr_expect_eq(np, 31);
    cr_expect_eq(ninstr, 971);
    printf("utgard validate: %d programs, %u instructions, %zu reports\n", np, ninstr, total);
}

/* ---- mutations, the simulator as oracle ---- */

static unsigned field_index(const char *name)
{
    const struct tsr_target *t = utgard();
    for (unsigned i = 0; i < t->nfields; i++)
        if (!strcmp(t->field_names[i], name))
            return i;
    cr_assert_fail("no field %s", name);
    return 0;
}

static uint64_t get_field(const uint32_t *w, const char *name)
{
    const struct tsr_target *t = utgard();
    void *in = calloc(1, t->inst_size);
    cr_assert_eq(t->decode(w, in), 0);
    uint64_t v = t->inst_field(in, field_index(name));
    free(in);
    return v;
}

static void set_field(uint32_t *w, const char *name, uint64_t v)
{
    const struct tsr_target *t = utgard();
    void *in = calloc(1, t->inst_size);
    cr_assert_eq(t->decode(w, in), 0);
    t->inst_set_field(in, field_index(name), v);
    cr_assert_eq(t->encode(in, w), 0);
    free(in);
}

/* Runs w in the simulator from a fixed state; returns the instruction of the first report (or -1 if the program
 * ends clean) and its message in msg. */
static long simulate(const uint32_t *w, size_t n, char *msg, size_t cap)
{
    const struct tsr_sim_desc *D = &utgard_sim_desc;
    void *S = calloc(1, D->sim_size);
    D->init(S);
    int rc = TSR_SIM_OK;
    for (size_t i = 0; i < 4 * n + 8 && (rc == TSR_SIM_OK || rc == TSR_SIM_STALL); i++)
        rc = D->step(S, w, n * 4);
    long at = -1;
    msg[0] = 0;
    if (rc < 0) {
        struct tsr_sim_ctl *c = D->ctl(S);
        at = (long)(c->err_pc / 16);
        snprintf(msg, cap, "%s", c->msg);
    }
    D->fini(S);
    free(S);
    return at;
}

/* The rule the validator names for a simulator's hazard message, or NULL (not a hazard this test classifies). */
static const char *rule_of(const char *msg)
{
    if (!strncmp(msg, "hazard: res", 11))
        return "res.age";
    if (!strncmp(msg, "hazard: R", 9))
        return "R.latency";
    return NULL;
}

struct tally { unsigned made, reported, clean; };

/* One mutated program: the validator must agree with the simulator. */
static void check(const struct prog *p, const uint32_t *w, size_t at, const char *what, struct tally *t)
{
    char msg[256];
    long sat = simulate(w, p->w.count, msg, sizeof msg);
    const char *want = sat >= 0 ? rule_of(msg) : NULL;
    if (sat >= 0 && !want)
        return;   /* the mutation made something else happen (an abort): not this test's */
    struct found f;
    size_t n = validate(w, p->w.count, &f);
    t->made++;
    if (!want) {
        t->clean++;
        cr_expect_eq(n, 0, "%s: instruction %zu %s: the simulator runs clean, the validator says %s: %s", p->name, at,
                     what, f.name[0], f.text[0]);
        return;
    }
    t->reported++;
    /* at least the simulator's report: the validator also reports the other reads of that instruction that the
     * mutation made wrong (the simulator stops at its first) */
    cr_expect_geq(n, 1, "%s: instruction %zu %s: no report (simulator at %ld: %s)", p->name, at, what, sat, msg);
    if (n >= 1) {
        cr_expect_str_eq(f.name[0], want, "%s: instruction %zu %s (simulator: %s)", p->name, at, what, msg);
        cr_expect_eq((long)f.at[0], sat, "%s: %s at %zu: the validator reports at %zu, the simulator at %ld (%s)",
                     p->name, what, at, f.at[0], sat, msg);
    }
}

/* Every forwarded source (mux codes 16-20, 23-27) of every corpus instruction, set to three other unit/age codes. */
Test(utgard_rules, forwarded_sources_agree_with_the_simulator)
{
    static const char *const src[] = {"mul0_src0", "mul0_src1", "mul1_src0", "mul1_src1", "acc0_src0",
                                      "acc0_src1", "acc1_src0", "acc1_src1", "complex_src", "pass_src"};
    static const uint64_t fwd[] = {16, 17, 18, 19, 20, 23, 24, 25, 26, 27};
    int np;
    struct prog *p = load_all(&np);
    struct tally t = {0};
    for (int k = 0; k < np; k++) {
        size_t n = p[k].w.count;
        uint32_t *w = malloc(n * 16);
        for (size_t i = 0; i < n; i++)
            for (size_t s = 0; s < sizeof src / sizeof *src; s++) {
                uint64_t code = get_field(p[k].w.w + 4 * i, src[s]);
                if (code < 16 || code > 27 || code == 21 || code == 22)
                    continue;
                for (int m = 1; m <= 3; m++) {
                    uint64_t to = fwd[(code + (uint64_t)m * 3 + i) % 10];
                    if (to == code)
                        continue;
                    memcpy(w, p[k].w.w, n * 16);
                    set_field(w + 4 * i, src[s], to);
                    char what[64];
                    snprintf(what, sizeof what, "%s %llu -> %llu", src[s], (unsigned long long)code,
                             (unsigned long long)to);
                    check(&p[k], w, i, what, &t);
                }
            }
        free(w);
        tsr_words_free(&p[k].w);
    }
    free(p);
    printf("utgard rules, forwarded sources: %u mutations: %u reported as the simulator does, %u clean in both\n",
           t.made, t.reported, t.clean);
    cr_expect_gt(t.reported, 100);
    cr_expect_gt(t.clean, 100);
}

/* Every register read through reg1 (`$n.c`, codes 4-7) pointed at the register an instruction 1 or 2 before
 * stores (inside its latency 3), and at one stored 3 or more before. */
Test(utgard_rules, register_reads_agree_with_the_simulator)
{
    static const char *const src[] = {"mul0_src0", "mul0_src1", "mul1_src0", "mul1_src1", "acc0_src0",
                                      "acc0_src1", "acc1_src0", "acc1_src1", "complex_src", "pass_src"};
    int np;
    struct prog *p = load_all(&np);
    struct tally t = {0};
    for (int k = 0; k < np; k++) {
        size_t n = p[k].w.count;
        uint32_t *w = malloc(n * 16);
        for (size_t i = 1; i < n; i++)
            for (size_t s = 0; s < sizeof src / sizeof *src; s++) {
                uint64_t code = get_field(p[k].w.w + 4 * i, src[s]);
                if (code < 4 || code > 7)
                    continue;
                for (size_t back = 1; back <= 3 && back <= i; back++) {
                    const uint32_t *sw = p[k].w.w + 4 * (i - back);
                    if (get_field(sw, "store0_varying") || get_field(sw, "store0_temp") ||
                        get_field(sw, "store0_src_x") == 7)
                        continue;   /* no register store of x in store0 there */
                    memcpy(w, p[k].w.w, n * 16);
                    set_field(w + 4 * i, "reg1_addr", get_field(sw, "store0_addr"));
                    set_field(w + 4 * i, src[s], 4);   /* $n.x */
                    char what[64];
                    snprintf(what, sizeof what, "%s reads the $n.x stored %zu before", src[s], back);
                    check(&p[k], w, i, what, &t);
                }
            }
        free(w);
        tsr_words_free(&p[k].w);
    }
    free(p);
    printf("utgard rules, register reads: %u mutations: %u reported as the simulator does, %u clean in both\n",
           t.made, t.reported, t.clean);
    cr_expect_gt(t.reported, 10);
}
