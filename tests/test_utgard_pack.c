/* The packer on the Mali Utgard GP's corpus (docs/pack.md "Values through forwards"; docs/targets/utgard.md
 * "Packer"): each of the 31 glmark2 vertex programs compiled by Mesa's lima (../shared/corpus/utgard-gp/
 * lima_compiler/<name>.hex) is unbundled into single operations with value names (tsr_unbundle: a source that
 * reads a forwarded result names its producer, `%12`) and packed again (tsr_pack_text routes every value: ages,
 * moves).  Per program the test prints lima's instruction count, the packer's lower bound, the operations and
 * ours, then the totals, and which scheduler settings ran (all of them; a build with AddressSanitizer tries a few,
 * tsr_pack_route_settings).  Every program must unbundle with value names, pack (moves, register spills), assemble,
 * validate with no report, and compute lima's varyings in the generated simulator from the same random attributes
 * and uniforms (6 inputs a program, bit for bit).  The corpus is read from the shared directory (tools/corpus.h
 * corpus_shared_dir). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "corpus.h"
#include "pack/pack.h"
#include "pack/pack_route_cfg.h"
#include "registry.h"
#include "sim/sim.h"
#include "tsr.h"
#include "validate/validate.h"

static const struct tsr_target *utgard(void)
{
    const struct tsr_target *t = tsr_find_target("utgard");
    cr_assert_not_null(t);
    return t;
}

/* The simulator's state index of the regfile or state called name. */
static int state_index(const struct tsr_sim_desc *D, const char *name)
{
    int s = tsr_sim_find_state(D, name, strlen(name));
    cr_assert_geq(s, 0, "utgard has no state %s", name);
    return s;
}

static uint64_t rnd(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void set_rand(const struct tsr_sim_desc *D, void *S, int s, int n, uint64_t *x, float bias)
{
    for (int e = 0; e < n; e++)
        for (int c = 0; c < 4; c++) {
            float f = (float)(int)(rnd(x) % 2001 - 1000) / 250.0f + (c == 3 ? bias : 0.0f);
            memcpy(&D->state(S, s, e)[c], &f, 4);
        }
}

/* Runs the program a and ours b from the same random attributes and uniforms (seed; the w lanes of the uniforms
 * shifted by ubias, U[0] = u0 when not NULL): both must end with no report and leave the same varyings, bit for
 * bit. */
static void same_run(const char *name, const struct tsr_words *a, const struct tsr_words *b, const float *u0,
                     float ubias, uint64_t seed)
{
    const struct tsr_sim_desc *D = utgard()->sim;
    cr_assert_not_null(D);
    int sa = state_index(D, "A"), su = state_index(D, "U"), sv = state_index(D, "V");
    void *S[2];
    int rc[2];
    for (int k = 0; k < 2; k++) {
        S[k] = calloc(1, D->sim_size);
        D->init(S[k]);
        uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
        set_rand(D, S[k], sa, 16, &x, 0.0f);
        set_rand(D, S[k], su, 64, &x, ubias);
        if (u0)
            memcpy(D->state(S[k], su, 0), u0, 16);
        const struct tsr_words *w = k ? b : a;
        rc[k] = TSR_SIM_OK;
        for (int i = 0; i < 10000 && (rc[k] == TSR_SIM_OK || rc[k] == TSR_SIM_STALL); i++)
            rc[k] = D->step(S[k], w->w, w->count * 4);
        if (rc[k] != TSR_SIM_HALTED)
            cr_expect_fail("%s seed %llu: %s program: code %d: %s", name, (unsigned long long)seed,
                           k ? "our" : "the original", rc[k], D->ctl(S[k])->msg);
    }
    for (int e = 0; e < 16; e++)
        cr_expect_arr_eq(D->state(S[0], sv, e), D->state(S[1], sv, e), 16, "%s seed %llu: varying v%d differs", name,
                         (unsigned long long)seed, e);
    for (int k = 0; k < 2; k++) {
        D->fini(S[k]);
        free(S[k]);
    }
}

/* lima's program a and ours b (same_run; the w lanes of the uniforms away from 0: lima divides by them) */
static void same_results(const char *name, const struct tsr_words *a, const struct tsr_words *b, uint64_t seed)
{
    same_run(name, a, b, NULL, 20.0f, seed);
}

static unsigned count_ops(const char *s, size_t n)
{
    unsigned k = 0;
    for (size_t i = 0; i < n; i++)
        k += s[i] == '\n';
    return k;
}

Test(utgard_pack, corpus_against_lima, .timeout = 1200)
{
    const struct tsr_target *t = utgard();
    char shared[512], dir[700];
    corpus_shared_dir(shared, sizeof shared);
    snprintf(dir, sizeof dir, "%s/corpus/utgard-gp/lima_compiler", shared);
    char *names[256], err[800];
    int nn = corpus_hex_names(dir, names, 256, err, sizeof err);
    cr_assert_geq(nn, 0, "%s", err);
    unsigned tot_lima = 0, tot_bound = 0, tot_ours = 0, tot_ops = 0, packed = 0, reports_all = 0, le = 0, lt = 0;
    unsigned tot_lima_packed = 0, tot_moves = 0, tot_moveonly = 0, tot_single = 0;
    printf("utgard pack (%s): program: lima's instructions, lower bound, operations, ours (moves inserted, bundles "
           "of moves only, bundles of one operation)\n", tsr_pack_route_settings());
    for (int k = 0; k < nn; k++) {
        char path[1000];
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        struct tsr_words lw;
        tsr_words_init(&lw, 128);
        struct tsr_diag d;
        tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
        cr_assert_eq(tsr_words_read(&lw, path, TSR_WORDS_HEX, &d), 0, "cannot read %s", path);
        struct tsr_buf ops = { 0 }, out = { 0 };
        unsigned pinned = 0;
        int rc = tsr_unbundle(t, names[k], lw.w, NULL, lw.count, 0, &ops, &pinned, &d);
        cr_expect_eq(rc, 0, "%s: unbundle failed: %s", names[k], d.count ? d.entries[0].message : "?");
        cr_expect(ops.data && strchr(ops.data, '%'), "%s: the unbundled program names no value", names[k]);
        tsr_diag_fini(&d);
        tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
        struct tsr_pack_stats st;
        memset(&st, 0, sizeof st);
        rc = ops.data ? tsr_pack_text(t, names[k], ops.data, ops.len, &out, &st, &d) : -1;
        unsigned n = (unsigned)lw.count;
        char ours[400];
        if (rc == 0) {
            unsigned nb = st.nbundles;
            cr_expect_leq(st.lower, nb, "%s: the bound %u exceeds our %u", names[k], st.lower, nb);
            cr_expect_leq(st.lower, n, "%s: the bound %u exceeds lima's %u", names[k], st.lower, n);
            struct tsr_words pw;
            tsr_words_init(&pw, t->word_bits);
            struct tsr_diag ad;
            tsr_diag_init(&ad, TSR_DIAG_PRINT, stderr);
            cr_assert_eq(t->assemble(names[k], out.data, out.len, &pw, &ad), 0, "%s: the output does not assemble",
                         names[k]);
            tsr_diag_fini(&ad);
            cr_expect_eq(pw.count, nb, "%s: %zu instructions assembled, %u packed", names[k], pw.count, nb);
            unsigned reports = (unsigned)tsr_validate(t->vdesc, pw.w, pw.count, 0, NULL, NULL);
            cr_expect_eq(reports, 0, "%s: the packed program breaks %u rules", names[k], reports);
            reports_all += reports;
            for (uint64_t seed = 1; seed <= 6; seed++)
                same_results(names[k], &lw, &pw, seed);
            tsr_words_free(&pw);
            snprintf(ours, sizeof ours, "%u (%u moves, %u of moves only, %u of one operation)", nb, st.moves,
                     st.moveonly, st.single);
            tot_moves += st.moves;
            tot_lima_packed += n;
            tot_moveonly += st.moveonly;
            tot_single += st.single;
            tot_ours += nb;
            tot_bound += st.lower;
            tot_ops += st.nops;
            le += nb <= n;
            lt += nb < n;
            packed++;
        } else {
            snprintf(ours, sizeof ours, "not packed: %.200s", d.count ? d.entries[0].message : "?");
            cr_expect_fail("%s: %s", names[k], ours);
        }
        printf("  %-40s %3u %3u %3u %s\n", names[k], n, rc ? 0 : st.lower, ops.data ? count_ops(ops.data, ops.len) : 0,
               ours);
        tot_lima += n;
        tsr_pack_stats_free(&st);
        tsr_diag_fini(&d);
        tsr_buf_free(&ops);
        tsr_buf_free(&out);
        tsr_words_free(&lw);
        free(names[k]);
    }
    printf("utgard pack: %d programs, %u packed: lima %u instructions (%u for those packed), lower bound %u, ours %u "
           "(%u operations after dropping moves); %u programs at or below lima's count (%u below), %u validator "
           "reports; %u moves inserted, %u bundles of moves only, %u of one operation\n", nn, packed, tot_lima,
           tot_lima_packed, tot_bound, tot_ours, tot_ops, le, lt, reports_all, tot_moves, tot_moveonly, tot_single);
    cr_expect_eq(nn, 31);
    /* every program packs (docs/targets/utgard.md "Packer": the bottom-up scheduler, register spills, the units of
     * an op's declaration and of every move, lanes on masked stores), validates and computes lima's varyings */
    cr_expect_eq(packed, 31u);
    cr_expect_eq(reports_all, 0u);
    /* (the units an op may take, the lanes a store writes, the critical path, the moves' capacity, the moves of the
     * next bundle's values in free slots and after the operations, lima's moves of a load optional, its self copies
     * dropped, spills to make room, moves of the next bundle's values serving only the reads after them, lima's
     * order of the ready list (cfg.fifo), the producers of values at their last chance in that order (cfg.mpri), the
     * squeaky wheel, lima's order of its moves of loads (cfg.optfirst) and its score of loads (cfg.score), the
     * input's spills undone (pack_unspill.c): 26 programs at or below lima's count with every scheduler setting,
     * 968 instructions, docs/PERFORMANCE.md "Utgard GP packer quality"; a sanitizer build tries the first 5 settings,
     * 2 rounds and one variant of the spills undone, whose shortest schedules are longer on some programs: 1,003 and
     * 20 there, at least 18 asserted) */
    bool few = strstr(tsr_pack_route_settings(), "AddressSanitizer") != NULL;
    cr_expect_geq(le, few ? 18u : 26u);
}

/* The units of an op's declaration and the lanes of masked stores (docs/pack.md "Values through forwards"): two
 * multiplies both written on m0 and two adds both on a0 storing lanes x and y of one varying pack into 2
 * instructions (one multiplier and one adder each moved to the other unit; the stores of disjoint lanes in one
 * instruction), which validate and compute what the 4 operations one an instruction compute. */
/* Assembles the input program seq and its packed form, expects the packed one to validate with no report and to
 * compute seq's results from 3 random states; returns the packed program's instructions. */
static size_t check_packed(const char *name, const struct tsr_target *t, const char *seq, const struct tsr_buf *out)
{
    struct tsr_words a, b;
    tsr_words_init(&a, t->word_bits);
    tsr_words_init(&b, t->word_bits);
    struct tsr_diag ad;
    tsr_diag_init(&ad, TSR_DIAG_PRINT, stderr);
    cr_assert_eq(t->assemble("seq", seq, strlen(seq), &a, &ad), 0);
    cr_assert_eq(t->assemble("packed", out->data, out->len, &b, &ad), 0);
    unsigned reports = (unsigned)tsr_validate(t->vdesc, b.w, b.count, 0, NULL, NULL);
    cr_expect_eq(reports, 0u, "%s: %u validator reports", name, reports);
    for (uint64_t seed = 1; seed <= 3; seed++)
        same_results(name, &a, &b, seed);
    size_t n = b.count;
    tsr_diag_fini(&ad);
    tsr_words_free(&a);
    tsr_words_free(&b);
    return n;
}

Test(utgard_pack, units_and_lanes)
{
    const struct tsr_target *t = utgard();
    const char *src = "%1: mul.m0 a0.x t[0].x\n%2: mul.m0 a0.y t[0].y\nadd.a0/v0.x %1 t[1].x\nadd.a0/v0.y %2 t[1].y\n";
    const char *seq = "mul.m0 a0.x t[0].x\nmul.m0 a0.y t[0].y\nadd.a0/v0.x ^m0@2 t[1].x\nadd.a0/v0.y ^m0@2 t[1].y\n";
    struct tsr_buf out = { 0 };
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    struct tsr_pack_stats st;
    memset(&st, 0, sizeof st);
    int rc = tsr_pack_text(t, "units.ops", src, strlen(src), &out, &st, &d);
    cr_assert_eq(rc, 0, "%s", d.count ? d.entries[0].message : "?");
    cr_expect_eq(st.nbundles, 2u, "packed into %u instructions:\n%s", st.nbundles, out.data);
    cr_expect_eq(st.lower, 2u);
    cr_expect(strstr(out.data, "mul.m1") && strstr(out.data, "add.a1"), "no op moved to another unit:\n%s", out.data);
    check_packed("units_and_lanes", t, seq, &out);
    tsr_pack_stats_free(&st);
    tsr_diag_fini(&d);
    tsr_buf_free(&out);
}

/* A move of a load (`%1: mov.a0 t[1].z`, named, no other dependence) is optional: its reader reads the load itself
 * when its instruction's load units allow, and the move vanishes; else (one op reading two uniform addresses) the
 * value is moved as before; a load of a register the program stores keeps its move (it keeps its order). */
Test(utgard_pack, optional_moves)
{
    const struct tsr_target *t = utgard();
    const char *src[3] = {
        "%1: mov.a0 t[1].z\n%2: mul.m0 %1 a0.y\nmov.m0/v0.x %2\n",
        "%1: mov.a0 t[1].z\n%2: mul.m0 %1 t[2].x\nmov.m0/v0.x %2\n",
        "%1: mul.m0 a0.x a0.y\nmov.a0/$1.x %1\n%3: mov.a1 $1.x\nmov.m0/v0.x %3\n",
    };
    const char *seq[3] = {
        "mov.a0 t[1].z\nmul.m0 ^a0@1 a0.y\nmov.m0/v0.x ^m0@1\n",
        "mov.a0 t[1].z\nmul.m0 ^a0@1 t[2].x\nmov.m0/v0.x ^m0@1\n",
        "mul.m0 a0.x a0.y\nmov.a0/$1.x ^m0@1\nmov.a0 ^a0@1\nmov.a0 ^a0@1\nmov.a1 $1.x\nmov.m0/v0.x ^a1@1\n",
    };
    for (int k = 0; k < 3; k++) {
        struct tsr_buf out = { 0 };
        struct tsr_diag d;
        tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
        struct tsr_pack_stats st;
        memset(&st, 0, sizeof st);
        int rc = tsr_pack_text(t, "opt.ops", src[k], strlen(src[k]), &out, &st, &d);
        cr_assert_eq(rc, 0, "%d: %s", k, d.count ? d.entries[0].message : "?");
        cr_expect_leq(st.lower, st.nbundles, "%d: the bound %u exceeds %u", k, st.lower, st.nbundles);
        if (k == 0) {
            cr_expect(strstr(out.data, "t[1].z a0.y") || strstr(out.data, "a0.y t[1].z"), "not read directly:\n%s",
                      out.data);
            cr_expect_eq(st.nbundles, 2u, "packed into %u instructions:\n%s", st.nbundles, out.data);
            cr_expect_eq(st.lower, 2u, "the bound counts the optional move");
        } else if (k == 1) {
            cr_expect_eq(st.nbundles, 3u, "packed into %u instructions:\n%s", st.nbundles, out.data);
        } else {
            cr_expect(strstr(out.data, "mov.m0/v0.x ^") != NULL, "the register's load not kept:\n%s", out.data);
        }
        check_packed("optional_moves", t, seq[k], &out);
        tsr_pack_stats_free(&st);
        tsr_diag_fini(&d);
        tsr_buf_free(&out);
    }
}

/* A copy of a register element into itself with no reader (lima reloads a spilled register and stores it again:
 * `mov.c/$0.x $0.x`, 78 in the corpus) leaves the state as it was in sequential order: dropped, so the packed
 * program holds no access of that element, and still computes what the input does. */
Test(utgard_pack, self_copy_dropped)
{
    const struct tsr_target *t = utgard();
    const char *src = "%1: mul.m0 a0.x a0.y\nmov.a0/$1.x %1\n%2: add.a0 %1 t[0].x\nmov.c/$2.y $2.y\n"
                      "mov.m0/v0.x %2\n";
    const char *seq = "mul.m0 a0.x a0.y\nmov.a0/$1.x ^m0@1\nadd.a0 ^m0@2 t[0].x\nmov.c/$2.y $2.y\n"
                      "mov.m0/v0.x ^a0@2\n";
    struct tsr_buf out = { 0 };
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    int rc = tsr_pack_text(t, "self.ops", src, strlen(src), &out, NULL, &d);
    cr_assert_eq(rc, 0, "%s", d.count ? d.entries[0].message : "?");
    cr_expect(strstr(out.data, "$2.y") == NULL, "the self copy is kept:\n%s", out.data);
    cr_expect(strstr(out.data, "/$1.x") != NULL, "the store of another value is gone:\n%s", out.data);
    check_packed("self_copy_dropped", t, seq, &out);
    tsr_diag_fini(&d);
    tsr_buf_free(&out);
}

/* Packs text (a program with value names); returns the packer's code, the output in *out, the first message in
 * msg. */
static int pack_names(const char *text, struct tsr_buf *out, char *msg, size_t n)
{
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    int rc = tsr_pack_text(utgard(), "t.s", text, strlen(text), out, NULL, &d);
    snprintf(msg, n, "%s", d.count ? d.entries[0].message : "");
    tsr_diag_fini(&d);
    return rc;
}

/* The input's spill through a move undone (runtime/pack/pack_unspill.c): a value stored to a register by a move and
 * loaded back 3 instructions later is read by its name instead, the store goes (the register file is not `output`),
 * and the program packs into 3 instructions instead of the 6 the register's latency needs; it computes what the
 * input does. */
Test(utgard_pack, spill_undone)
{
    const char *src = "%1: mul.m0 a0.x a0.y\nmov.a0/$1.x %1\n%3: add.a0 $1.x t[0].x\nmov.m0/v0.x %3\n";
    const char *seq = "mul.m0 a0.x a0.y\nmov.a0/$1.x ^m0@1\nmov.a0 ^a0@1\nmov.a0 ^a0@1\nadd.a0 $1.x t[0].x\n"
                      "mov.m0/v0.x ^a0@1\n";
    struct tsr_buf out = { 0 };
    char msg[300];
    cr_assert_eq(pack_names(src, &out, msg, sizeof msg), 0, "%s", msg);
    cr_expect(strstr(out.data, "$1.x") == NULL, "the spill is kept:\n%s", out.data);
    size_t n = check_packed("spill_undone", utgard(), seq, &out);
    cr_expect_eq(n, 3u, "packed into %zu instructions:\n%s", n, out.data);
    tsr_buf_free(&out);
}

/* The input's stores of computing ops undone too, and a group of parts that exchange registers split once its loads
 * read values by name (pack_unspill.c, cspan): an add stores its result to $1.x, a multiply loads it back 3
 * instructions later; two moves store %1 and %2 to $0.x and $0.y, then a group exchanges them while an add stores
 * to one.  Undone, no register is left (no store, no load) and the program packs shorter than its sequence; it
 * validates and computes what the sequence computes. */
Test(utgard_pack, store_undone)
{
    const char *src = "%1: mul.m0 a0.x a0.y\nadd.a0/$1.x %1 t[0].x\n%3: mul.m1 $1.x t[0].y\nmov.m0/v0.x %3\n"
                      "%5: mul.m0 a0.z a0.w\n%6: mul.m1 a1.x a1.y\nmov.a0/$0.x %5\nmov.a1/$0.y %6\n"
                      "add.a1/$0.x $0.x $0.y; mov.c/$0.y $0.x\n%8: add.a0 $0.x $0.y\nmov.m0/v1.x %8\n";
    const char *seq = "mul.m0 a0.x a0.y\nadd.a0/$1.x ^m0@1 t[0].x\nmov.a0 ^a0@1\nmov.a0 ^a0@1\nmul.m1 $1.x t[0].y\n"
                      "mov.m0/v0.x ^m1@1\nmul.m0 a0.z a0.w\nmul.m1 a1.x a1.y\nmov.a0/$0.x ^m0@2; mov.a1/$0.y ^m1@1\n"
                      "mov.a0 ^a0@1\nmov.a0 ^a0@1\nadd.a1/$0.x $0.x $0.y; mov.c/$0.y $0.x\nmov.a0 ^a1@1\n"
                      "mov.a0 ^a0@1\nadd.a0 $0.x $0.y\nmov.m0/v1.x ^a0@1\n";
    struct tsr_buf out = { 0 };
    char msg[300];
    cr_assert_eq(pack_names(src, &out, msg, sizeof msg), 0, "%s", msg);
    cr_expect(strstr(out.data, "$") == NULL && strstr(out.data, " r0.") == NULL && strstr(out.data, " r1.") == NULL,
              "a store or load of a register is kept:\n%s", out.data);
    size_t n = check_packed("store_undone", utgard(), seq, &out);
    cr_expect_leq(n, 5u, "packed into %zu instructions (the sequence: 16):\n%s", n, out.data);
    tsr_buf_free(&out);
}

/* Two complex results read by one add (the complex unit is no adder's second source, so `add.a0 ^c@1 ^c@1` is no
 * instruction): the analysis and the scheduler's placeholders read one of them by another text of its forward, and
 * the schedule moves it (4 instructions); the packed program computes what the input does.  Before, the input was
 * refused (`invalid operand`), then not scheduled. */
Test(utgard_pack, complex_pair)
{
    const char *src = "%1: rcp.c a0.x\n%2: rcp.c a0.y\n%3: add.a0 %1 %2\nmov.m0/v0.x %3\n";
    const char *seq = "rcp.c a0.x\nmov.a0 ^c@1; rcp.c a0.y\nadd.a0 ^c@1 ^a0@1\nmov.m0/v0.x ^a0@1\n";
    struct tsr_buf out = { 0 };
    char msg[300];
    cr_assert_eq(pack_names(src, &out, msg, sizeof msg), 0, "%s", msg);
    size_t n = check_packed("complex_pair", utgard(), seq, &out);
    cr_expect_eq(n, 4u, "packed into %zu instructions:\n%s", n, out.data);
    tsr_buf_free(&out);
}

/* A group kept whole names the value of one part: the first (`%K: a; b`) or a later one (`a; %K: b`), whose forward
 * its readers then read; two names in one group are refused. */
Test(utgard_pack, group_named_part)
{
    struct tsr_buf out = { 0 };
    char msg[400];
    cr_assert_eq(pack_names("    %1: mov.a0 t[0].x\n    %2: mov.a1 t[0].y\n    mov.a0/$1.x %1; %3: mov.m0 %2\n"
                            "    add.a0/v0.x %3 %3\n", &out, msg, sizeof msg), 0, "%s", msg);
    /* (the group, its sources the loads %1 and %2 move, read in its own instruction: those moves are optional, and
     * the add reading mov.m0's value: at an age, or through a move) */
    cr_expect(strstr(out.data, "mov.a0/$1.x t[0].x; mov.m0 t[0].y") != NULL, "%s", out.data);
    cr_expect(strstr(out.data, "^m0@") != NULL, "%s", out.data);
    tsr_buf_free(&out);
    cr_expect_neq(pack_names("    %1: mov.a0 t[0].x\n    %2: mov.a1/$1.x %1; %4: mov.m0 %1\n    add.a0/v0.x %2 %2\n",
                             &out, msg, sizeof msg), 0);
    cr_expect(strstr(msg, "a group of operations names at most one value") != NULL, "%s", msg);
    tsr_buf_free(&out);
}

/* A program that names no value (no source reads a forwarded value) is packed by the router too: the Utgard GP has
 * no idle bundle, which the other packer needs (runtime/pack/pack.c; fuzz_repack found it refused).  Three
 * independent operations go into one instruction, which validates and computes what they compute one an
 * instruction; a line that does not assemble is reported at its line, before any packing. */
Test(utgard_pack, no_value_named)
{
    const struct tsr_target *t = utgard();
    const char *src = "mov.a0 a1.x\nmov.a1 t[2].x\nmul.m1 a1.z t[2].x\n";
    struct tsr_buf out = { 0 };
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    int rc = tsr_pack_text(t, "plain.s", src, strlen(src), &out, NULL, &d);
    cr_assert_eq(rc, 0, "%s", d.count ? d.entries[0].message : "?");
    size_t n = check_packed("no_value_named", t, src, &out);
    cr_expect_eq(n, 1u, "packed into %zu instructions:\n%s", n, out.data);
    const char *bad = "mov.a0 a1.x\nmov.a1 t[2].x\nnot an op\n";
    tsr_buf_clear(&out);
    tsr_diag_fini(&d);
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    cr_expect_neq(tsr_pack_text(t, "bad.s", bad, strlen(bad), &out, NULL, &d), 0);
    cr_expect(d.count && d.entries[0].line == 3, "first error: %s", d.count ? d.entries[0].text : "none");
    tsr_diag_fini(&d);
    tsr_buf_free(&out);
}

/* Bundles of the corpus program name (lima_compiler/NAME.hex, unbundled) packed with the settings list[0..n)
 * (fallback: the packer's fallback settings after them; improve: the squeaky wheel rounds on the best of them;
 * tsr_route_settings_use); -1 when it is not packed.  A
 * packed program must validate with no report and compute lima's varyings. */
static enum tsr_pack_effort corpus_effort = TSR_PACK_SEARCH;   /* (deep_effort sets it for its programs) */
static int pack_corpus_with(const char *name, const struct tsr_route_cfg *list, int n, bool fallback, bool improve)
{
    const struct tsr_target *t = utgard();
    char shared[512], path[900];
    corpus_shared_dir(shared, sizeof shared);
    snprintf(path, sizeof path, "%s/corpus/utgard-gp/lima_compiler/%s.hex", shared, name);
    struct tsr_words lw, pw;
    tsr_words_init(&lw, 128);
    tsr_words_init(&pw, t->word_bits);
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    cr_assert_eq(tsr_words_read(&lw, path, TSR_WORDS_HEX, &d), 0, "cannot read %s", path);
    struct tsr_buf ops = { 0 }, out = { 0 };
    unsigned pinned = 0;
    cr_assert_eq(tsr_unbundle(t, name, lw.w, NULL, lw.count, 0, &ops, &pinned, &d), 0);
    struct tsr_pack_stats st = { 0 };
    cr_assert_eq(tsr_route_settings_use(list, n, fallback, improve), 0);
    int rc = tsr_pack_text_effort(t, name, ops.data, ops.len, corpus_effort, &out, &st, &d);
    tsr_route_settings_use(NULL, 0, false, false);
    int nb = rc ? -1 : (int)st.nbundles;
    if (!rc) {
        struct tsr_diag ad;
        tsr_diag_init(&ad, TSR_DIAG_PRINT, stderr);
        cr_assert_eq(t->assemble(name, out.data, out.len, &pw, &ad), 0, "%s: the output does not assemble", name);
        tsr_diag_fini(&ad);
        cr_expect_eq(tsr_validate(t->vdesc, pw.w, pw.count, 0, NULL, NULL), 0u, "%s: the output breaks rules", name);
        for (uint64_t seed = 1; seed <= 3; seed++)
            same_results(name, &lw, &pw, seed);
    }
    tsr_pack_stats_free(&st);
    tsr_diag_fini(&d);
    tsr_buf_free(&ops);
    tsr_buf_free(&out);
    tsr_words_free(&lw);
    tsr_words_free(&pw);
    return nb;
}

/* Packs each of progs[0..n) with setting on alone and with off alone (no fallback, no rounds): on packs each
 * shorter than off, or off does not pack it (what: the field's name, for the messages). */
static void expect_shorter(const char *what, const struct tsr_route_cfg *on, const struct tsr_route_cfg *off,
                           const char *const *progs, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        int a = pack_corpus_with(progs[k], on, 1, false, false);
        int b = pack_corpus_with(progs[k], off, 1, false, false);
        printf("%s: %s: %d bundles with it, %d without (-1: not packed)\n", what, progs[k], a, b);
        cr_expect(a > 0 && (b < 0 || a < b), "%s: %s: %d bundles with it, %d without", what, progs[k], a, b);
    }
}

/* cf->press (docs/pack.md "Values through forwards"): with the limits on values waiting holding an op back, a value
 * waiting goes through a register.  With it the packer's first setting packs these programs of the corpus, shorter
 * than without it, where without it they pack at all (buffer-wireframe 84 and bump-height 54 with it, neither packs
 * without; ideas-logo-flat 23 against 24), each packed program valid and computing lima's varyings. */
/* (no .timeout here or below: with them, libcriterion leaks 48 bytes that LeakSanitizer reports when this file runs
 * with --jobs 2, which fails the sanitizer pass; each test takes seconds) */
/* (the packer's first setting at 5fa3c01, the base of press_spill and squeaky_wheel) */
static const struct tsr_route_cfg first_5fa3c01 = { 0, 0, false, false, -1, 2, 0, 0, true, 2, 2, 1, 0, 0, false, 0, 0 };

Test(utgard_pack, press_spill)
{
    struct tsr_route_cfg on = first_5fa3c01, off = first_5fa3c01;
    on.press = 1;
    off.press = 0;
    static const char *const progs[] = { "glmark2_buffer-wireframe", "glmark2_bump-height", "glmark2_ideas-logo-flat" };
    expect_shorter("press_spill", &on, &off, progs, sizeof progs / sizeof *progs);
}

/* Effort deep (docs/pack.md "Search over the decisions"): after the packer's own settings and rounds, single flips
 * of the best schedule's decisions and randomized runs.  light-phong, 36 instructions at the default effort (lima's
 * count), packs in 35; the output valid and computing lima's varyings.  (One program: the search takes about 10 s
 * of CPU on it.) */
Test(utgard_pack, deep_effort)
{
    int a = pack_corpus_with("glmark2_light-phong", NULL, 0, false, false);
    corpus_effort = TSR_PACK_DEEP;
    int b = pack_corpus_with("glmark2_light-phong", NULL, 0, false, false);
    corpus_effort = TSR_PACK_SEARCH;
    printf("deep_effort: glmark2_light-phong: %d bundles at the default effort, %d deep\n", a, b);
    /* (a build with AddressSanitizer tries fewer settings and rounds: there only no worse than its default) */
    bool few = strstr(tsr_pack_route_settings(), "AddressSanitizer") != NULL;
    cr_expect(a > 0 && b > 0 && b <= a && (few || b < a), "glmark2_light-phong: %d bundles deep, %d by default", b, a);
}

/* cf->fifo (docs/pack.md "Values through forwards"): the ready operations by depth, then in the order their values
 * began to wait, as lima's ready list keeps them.  With it this setting packs glmark2_function in lima's 32
 * instructions; without it the same setting needs more. */
Test(utgard_pack, fifo_order)
{
    const struct tsr_route_cfg on = { 0, 0, true, true, 2, 2, 173, 4, true, 1, 1, 0, 1, 0, false, 0, 0 };
    struct tsr_route_cfg off = on;
    off.fifo = 0;
    int a = pack_corpus_with("glmark2_function", &on, 1, false, false);
    int b = pack_corpus_with("glmark2_function", &off, 1, false, false);
    printf("fifo_order: glmark2_function: %d bundles with fifo, %d without\n", a, b);
    cr_expect(a > 0 && a <= 32, "glmark2_function: %d bundles with fifo, lima has 32", a);
    cr_expect(b < 0 || b > a, "glmark2_function: %d bundles without fifo, %d with", b, a);
}

/* cf->mpri (docs/pack.md "Values through forwards"): the producers of values at their last chance take their turn
 * in the priority order instead of going first, as lima's "max" nodes do (a move then serves those not placed).
 * With it this setting packs bump-poly and pulsar-light in lima's counts (23, 27) and light-phong shorter; without
 * it each takes more.  (ideas-lamp-unlit, the first here before, packs in 24 with or without it since the stores of
 * computing ops are undone too.) */
Test(utgard_pack, mpri_order)
{
    const struct tsr_route_cfg on = { 0, 0, false, false, -1, 2, 0, 0, true, 2, 2, 1, 0, 1, false, 0, 0 };
    struct tsr_route_cfg off = on;
    off.mpri = 0;
    static const char *const progs[] = { "glmark2_bump-poly", "glmark2_pulsar-light", "glmark2_light-phong" };
    static const int lima[] = { 23, 27, 36 };
    for (size_t k = 0; k < sizeof progs / sizeof *progs; k++) {
        int a = pack_corpus_with(progs[k], &on, 1, false, false);
        int b = pack_corpus_with(progs[k], &off, 1, false, false);
        printf("mpri_order: %s: %d bundles with mpri, %d without (lima %d)\n", progs[k], a, b, lima[k]);
        cr_expect(a > 0 && (b < 0 || a < b), "%s: %d bundles with mpri, %d without", progs[k], a, b);
        cr_expect(k == 2 || a <= lima[k], "%s: %d bundles with mpri, lima has %d", progs[k], a, lima[k]);
    }
}

/* cf->optfirst (docs/pack.md "Values through forwards"): step 3's moves go to the optional values (moves of loads)
 * first, as lima's moves of its "next max" nodes reach the moves of loads first.  With it the packer's twelfth
 * setting packs ideas-logo-flat and ideas-logo-shadow shorter than without it (the second setting), each packed
 * program valid and computing lima's varyings. */
Test(utgard_pack, optfirst_order)
{
    const struct tsr_route_cfg on = { 0, 0, false, false, -1, 2, 0, 0, true, 2, 2, 1, 0, 1, true, 0, 0 };
    struct tsr_route_cfg off = on;
    off.optfirst = false;
    static const char *const progs[] = { "glmark2_ideas-logo-flat", "glmark2_ideas-logo-shadow" };
    expect_shorter("optfirst", &on, &off, progs, sizeof progs / sizeof *progs);
}

/* cf->score (docs/pack.md "Values through forwards"): step 2 places the ops that fit on trial and keeps the one
 * that leaves the fewest optional values to be moved, lima's score of loads.  With it (score 2) the packer's
 * thirteenth setting packs jellyfish and light-refract shorter than without it (its twelfth), each packed program
 * valid and computing lima's varyings. */
Test(utgard_pack, score_loads)
{
    const struct tsr_route_cfg on = { 0, 0, false, false, -1, 2, 0, 0, true, 2, 2, 1, 0, 1, true, 2, 0 };
    struct tsr_route_cfg off = on;
    off.score = 0;
    static const char *const progs[] = { "glmark2_jellyfish", "glmark2_light-refract" };
    expect_shorter("score", &on, &off, progs, sizeof progs / sizeof *progs);
}

/* cf->plc (docs/pack.md "Values through forwards"): a value readable at fewer ages than a move reaches (the complex
 * unit's, at age 1 only) is placed at its producer's last chance before a move must take over.  With it the
 * packer's sixteenth setting (the thirteenth with it) packs bump-normals-tangent shorter than without it, the
 * seventeenth (the fifteenth with it) bump-height, each packed program valid and computing lima's varyings. */
Test(utgard_pack, producer_last_chance)
{
    const struct tsr_route_cfg on[2] = { { 0, 0, false, false, -1, 2, 0, 0, true, 2, 2, 1, 0, 1, true, 2, 1 },
                                         { 0, 0, false, false, -1, 2, 0, 0, true, 2, 2, 1, 0, 0, false, 2, 1 } };
    static const char *const progs[2] = { "glmark2_bump-normals-tangent", "glmark2_bump-height" };
    for (int k = 0; k < 2; k++) {
        struct tsr_route_cfg off = on[k];
        off.plc = 0;
        expect_shorter("plc", &on[k], &off, &progs[k], 1);
    }
}

/* The squeaky wheel rounds (docs/pack.md "Values through forwards"): the ops placed too high for a schedule one
 * bundle shorter move up in the priority order and the best setting runs again.  On glmark2_ideas-paper they find a
 * shorter schedule than the setting's own (41 instructions against 43 with 8 rounds; 2 with AddressSanitizer).
 * (light-basic-texgen, the program here before, packs in 56 with or without them since the stores of computing ops
 * are undone too.) */
Test(utgard_pack, squeaky_wheel)
{
    int a = pack_corpus_with("glmark2_ideas-paper", &first_5fa3c01, 1, false, true);
    int b = pack_corpus_with("glmark2_ideas-paper", &first_5fa3c01, 1, false, false);
    printf("squeaky_wheel: glmark2_ideas-paper: %d bundles with the rounds, %d without\n", a, b);
    cr_expect(a > 0 && b > 0 && a < b, "glmark2_ideas-paper: %d bundles with the rounds, %d without", a, b);
}

/* A program that no setting of the list schedules gets the packer's fallback settings (tsr_route_settings_use:
 * fallback); without them it is not packed.  The setting here alone does not schedule bump-height, with the input's
 * spills kept or undone (light-phong, which it did not schedule before either existed, it schedules undone). */
Test(utgard_pack, fallback_settings)
{
    const struct tsr_route_cfg weak = { 0, 0, true, false, 0, 2, 0, 0, true, 1, 2, 0, 0, 0, false, 0, 0 };
    int a = pack_corpus_with("glmark2_bump-height", &weak, 1, false, false);
    int b = pack_corpus_with("glmark2_bump-height", &weak, 1, true, false);
    cr_expect_eq(a, -1, "the setting alone packs bump-height (%d bundles): the test needs another", a);
    cr_expect_gt(b, 0, "with the fallback settings bump-height is not packed");
}

/* The original program src, unbundled (tsr_unbundle: value names, labels) and packed again: the packed program
 * validates, and from each state of u0s[0..nu) and 4 seeds computes the original's varyings.  Returns its
 * instructions; *out gets its text. */
static size_t repack(const char *name, const char *src, const float (*u0s)[4], int nu, struct tsr_buf *out)
{
    const struct tsr_target *t = utgard();
    struct tsr_words a, b;
    tsr_words_init(&a, t->word_bits);
    tsr_words_init(&b, t->word_bits);
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    cr_assert_eq(t->assemble(name, src, strlen(src), &a, &d), 0, "%s", d.count ? d.entries[0].message : "?");
    cr_assert_eq(tsr_validate(t->vdesc, a.w, a.count, 0, NULL, NULL), 0u, "%s: the original breaks a rule", name);
    struct tsr_buf ub = { 0 };
    unsigned pinned = 0;
    cr_assert_eq(tsr_unbundle(t, name, a.w, NULL, a.count, 0, &ub, &pinned, &d), 0, "%s",
                 d.count ? d.entries[0].message : "?");
    int rc = tsr_pack_text(t, name, ub.data, ub.len, out, NULL, &d);
    cr_assert_eq(rc, 0, "%s: %s\n%s", name, d.count ? d.entries[0].message : "?", ub.data);
    cr_assert_eq(t->assemble(name, out->data, out->len, &b, &d), 0);
    unsigned reports = (unsigned)tsr_validate(t->vdesc, b.w, b.count, 0, NULL, NULL);
    cr_expect_eq(reports, 0u, "%s: %u validator reports:\n%s", name, reports, out->data);
    for (int k = 0; k < nu; k++)
        for (uint64_t seed = 1; seed <= 4; seed++)
            same_run(name, &a, &b, u0s[k], 0.0f, seed);
    size_t n = b.count;
    tsr_diag_fini(&d);
    tsr_buf_free(&ub);
    tsr_words_free(&a);
    tsr_words_free(&b);
    return n;
}

/* A program with control flow (lima's code has a branch when a loop or an `if` is not flattened: a conditional
 * branch on the pass unit's result of its own instruction, gpir codegen.c): the unbundler keeps the pass and the
 * branch on one line (the branch reads the pass at age 0) and writes the target as a label; the packer packs each
 * basic block alone, the branch in its block's last instruction with every other operation of the block at or
 * before it, and puts the labels back before their blocks.  A forward branch, taken and not taken (U[0].x >= U[0].y
 * or not): the four independent multiplies become two instructions, so the target moves, and the varying v2 stored
 * before the branch is stored before it still. */
Test(utgard_pack, forward_branch)
{
    const char *src = "    mul.m0 t[0].x a0.x; mul.m1 t[0].y a0.y\n"
                      "    add.a0 ^m0@1 ^m1@1\n"
                      "    add.a1/v2.x ^a0@1 t[0].z\n"
                      "    ge.a0 t[0].x t[0].y\n"
                      "    mov.p ^a0@1; branch ^p@0 skip\n"
                      "    mul.m0 t[1].z a0.x\n"
                      "    mul.m1 t[1].x a0.y\n"
                      "    add.a0/v0.y ^m0@2 t[1].w\n"
                      "    add.a1/v0.z ^m1@2 t[1].y\n"
                      "skip:\n"
                      "    mul.m0 t[2].x a0.z\n"
                      "    add.a0/v1.x ^m0@1 t[2].y\n";
    const float u0[2][4] = { { 2.0f, 1.0f, 3.0f, 4.0f }, { 1.0f, 2.0f, 3.0f, 4.0f } };
    struct tsr_buf out = { 0 };
    size_t n = repack("forward_branch", src, u0, 2, &out);
    cr_expect_lt(n, 11u, "%zu instructions:\n%s", n, out.data);
    /* (the unbundled program names the label by the original's address, instruction 9: L90) */
    cr_expect(strstr(out.data, "L90:\n") && strstr(out.data, "branch ^p@0 L90"), "%s", out.data);
    tsr_buf_free(&out);
}

/* A loop, its counter and sum in registers (lima's registers carry what lives across blocks): no register store
 * in a block's last two instructions (the packer's block ends, and the program's: filler moves where nothing else
 * can go), and the back edge to the label of the loop's first instruction.  U[0] = (count, step, start, add). */
Test(utgard_pack, loop)
{
    const char *src = "    mov.a0/$0.x t[0].x\n"
                      "    mov.a0/$0.y t[0].z\n"
                      "    mov.m0 a0.x\n"
                      "    mov.m0 a0.x\n"
                      "loop:\n"
                      "    add.a0/$0.x $0.x -t[0].y\n"
                      "    add.a1/$0.y $0.y t[0].w; mov.m0 ^a0@1\n"
                      "    mov.m1 a0.x\n"
                      "    mov.p ^m0@2; branch ^p@0 loop\n"
                      "    mov.a0/$1.x t[1].x\n"
                      "    mov.a0/v0.x $0.y\n"
                      "    mov.a0/v0.y a0.x\n";
    const float u0[2][4] = { { 3.0f, 1.0f, 0.5f, 2.0f }, { 5.0f, 1.0f, -1.0f, 0.25f } };
    struct tsr_buf out = { 0 };
    size_t n = repack("loop", src, u0, 2, &out);
    cr_expect_leq(n, 10u, "%zu instructions:\n%s", n, out.data);
    tsr_buf_free(&out);
}

/* A value read in another basic block than its producer's is refused at the reader, not routed across the block's
 * end (after a branch taken, an age names the branch's instruction); so is a label in the middle of a value's
 * reads. */
Test(utgard_pack, value_across_blocks)
{
    struct tsr_buf out = { 0 };
    char msg[400];
    cr_expect_neq(pack_names("    %1: mul.m0 t[0].x a0.x\n    mov.p t[1].x; branch ^p@0 L30\n"
                             "    add.a0/v0.x %1 t[0].y\nL30:\n    add.a0/v1.x t[0].z t[0].w\n", &out, msg, sizeof msg),
                  0);
    cr_expect(strstr(msg, "value '%1' is defined in another basic block (line 1)") != NULL, "%s", msg);
    tsr_buf_free(&out);
}

/* Labels keep their names in the packed program (the unbundler's `L90`, or a name of the input's), each before its
 * block's first instruction; a label no branch names is kept too. */
Test(utgard_pack, label_names_kept)
{
    struct tsr_buf out = { 0 };
    char msg[400];
    cr_assert_eq(pack_names("top:\n    %1: mul.m0 t[0].x a0.x\n    %2: mul.m1 t[0].y a0.y\n    %3: add.a0 %1 %2\n"
                            "    mov.p %3; branch ^p@0 done\n    add.a0/v0.x t[1].x a0.z\n    add.a1/v0.y t[1].y a0.w\n"
                            "done:\n    add.a0/v1.x t[2].x a0.x\n", &out, msg, sizeof msg), 0, "%s", msg);
    const char *top = strstr(out.data, "top:\n"), *done = strstr(out.data, "done:\n");
    cr_expect(top == out.data, "%s", out.data);
    cr_expect(done && strstr(out.data, "branch ^p@0 done") && strstr(out.data, "branch ^p@0 done") < done, "%s",
              out.data);
    cr_expect(done && strstr(done, "add.a0/v1.x"), "%s", out.data);
    tsr_buf_free(&out);
}
