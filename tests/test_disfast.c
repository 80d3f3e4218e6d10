/* The exactness proof's fast form (runtime/text/dis_fast.c) on QPU bundles: it shows the bundles whose every
 * decision the facts settle (the full proof's plans with no step left to the text, early alternatives refuted
 * through a field another part pins), declines the ones the text must decide, and never shows one that the
 * full proof (runtime/text/dis_exact.c) does not.  Soundness against the assembler on many words is
 * tests/test_asm.c's exactness_proof_agrees_with_check (TESSERA_DIS_VERIFY runs the fast form, the full proof
 * and the round trip on every bundle).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "qpu.h"
#include "text/dis_exact.h"
#include "text/dis_print.h"
#include "tsr.h"
#include "support_san.h"

/* A printer, a prover's state set up by one full proof, and room for a decoded instruction. */
struct rig {
    struct tsr_tc_printer *G;
    struct tsr_dis_exact *x;
    unsigned char *inst;
    struct tsr_buf b;
};

static void rig_open(struct rig *r)
{
    const struct tsr_tc_isa *isa = &qpu_tc_isa;
    *r = (struct rig){.G = tsr_tc_printer_new(isa, true), .x = calloc(1, sizeof *r->x),
                      .inst = calloc(1, isa->inst_size + 16)};
    cr_assert(r->G && r->x && r->inst);
}

static void rig_close(struct rig *r)
{
    tsr_buf_free(&r->b);
    tsr_dis_exact_free(r->x);
    free(r->x);
    free(r->inst);
    tsr_tc_printer_free(r->G);
}

/* Prints word w as the disassembler does before its round-trip check; false when it cannot be printed. */
static bool rig_print(struct rig *r, const uint32_t *w)
{
    tsr_buf_clear(&r->b);
    if (tsr_tc_printer_print(r->G, w, 0, false, &r->b) != 0)
        return false;
    cr_assert_geq(qpu_tc_isa.decode(w, r->inst), 0);
    return true;
}

static bool rig_fast(struct rig *r)
{
    return tsr_dis_fast(&qpu_tc_isa, r->x, r->inst, r->b.data, r->b.len, tsr_tc_printer_path(r->G));
}

static bool rig_full(struct rig *r)
{
    return tsr_dis_exact(&qpu_tc_isa, r->x, r->inst, r->b.data, r->b.len, tsr_tc_printer_path(r->G));
}

/* Assembles t and prints it back (it must print as t). */
static void rig_text(struct rig *r, const char *t)
{
    uint32_t w[2];
    char err[256];
    cr_assert_eq(qpu_assemble_one(t, strlen(t), 0, w, err, sizeof err), 0, "'%s': %s", t, err);
    cr_assert(rig_print(r, w), "'%s' is not printed", t);
    cr_expect(r->b.len == strlen(t) && memcmp(r->b.data, t, r->b.len) == 0, "'%s' prints as '%.*s'", t,
              (int)r->b.len, r->b.data);
}

/* Opens r with its facts set up by one full proof, then, for each of the n texts t[i]: the full proof shows it,
 * and the fast form does exactly when fast says so.  The caller closes r. */
static void rig_each(struct rig *r, const char *const *t, size_t n, bool fast)
{
    rig_open(r);
    rig_text(r, "fadd.ifz t1b, r0, r3; v8min.ifcc ra28, r2, r1");
    cr_assert(rig_full(r));
    for (size_t i = 0; i < n; i++) {
        rig_text(r, t[i]);
        cr_expect(rig_fast(r) == fast, "%s by the fast form: '%s'", fast ? "not shown" : "shown", t[i]);
        cr_expect(rig_full(r), "not shown by the full proof: '%s'", t[i]);
    }
}

/* Assembles u (a text with overrides), which must print as `printed`; neither proof may show that text (the
 * assembler reads it back otherwise). */
static void rig_declines(struct rig *r, const char *u, const char *printed)
{
    uint32_t w[2];
    char err[256];
    cr_assert_eq(qpu_assemble_one(u, strlen(u), 0, w, err, sizeof err), 0, "'%s': %s", u, err);
    cr_assert(rig_print(r, w));
    cr_assert(r->b.len == strlen(printed) && memcmp(r->b.data, printed, r->b.len) == 0, "prints as '%.*s'",
              (int)r->b.len, r->b.data);
    cr_expect(!rig_fast(r), "shown by the fast form: '%s'", printed);
    cr_expect(!rig_full(r), "shown by the full proof: '%s'", printed);
}

static uint64_t rng = 0x2545f4914f6cdd1du;

static uint64_t next(void)   /* xorshift64* */
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 0x2545f4914f6cdd1du;
}

/* Prints the next random word, made canonical when canon (the word's text read back and printed again: bench_dis's
 * kind), and keeps the word printed last in kept when not NULL; false when it cannot be printed or read back. */
static bool rig_random(struct rig *r, bool canon, uint32_t *kept)
{
    uint64_t v = next();
    uint32_t w[2] = {(uint32_t)v, (uint32_t)(v >> 32)}, w2[2];
    char err[256];
    bool ok = rig_print(r, w) &&
              (!canon || (qpu_assemble_one(r->b.data, r->b.len, 0, w2, err, sizeof err) == 0 && rig_print(r, w2)));
    if (ok && kept)
        memcpy(kept, canon ? w2 : w, sizeof w);
    return ok;
}

/* On random words: every bundle the fast form shows, the full proof shows too; and it shows nearly all of them
 * (those the facts settle: 99.87 % here when this test was written). */
Test(disfast, fast_implies_full)
{
    struct rig r;
    rig_open(&r);
    unsigned long printed = 0, full = 0, fast = 0;
    bool first = true;
    const int n = (int)test_random_count("disfast fast implies full", 100000);
    for (int i = 0; i < n; i++) {
        if (!rig_random(&r, true, NULL))
            continue;
        printed++;
        if (first) {   /* the fast form answers false until the full proof has set up the facts */
            cr_expect(!rig_fast(&r));
            first = false;
        }
        bool f = rig_fast(&r), e = rig_full(&r);
        cr_expect(!f || e, "the fast form shows '%.*s', the full proof does not", (int)r.b.len, r.b.data);
        full += e;
        fast += f;
    }
    cr_log_info("disfast random: %lu printed, %lu shown by the full proof, %lu by the fast form\n", printed, full,
                fast);
    cr_expect_gt(printed, (unsigned long)n / 2);   /* 50,000 of 100,000 */
    cr_expect_gt(full, printed / 2);
    cr_expect_geq(fast * 1000, full * 995, "the fast form shows %lu of the full proof's %lu", fast, full);
    rig_close(&r);
}

/* The fast form splits a bundle's text at the part ends the printed path records (dis_fast.c semi_free): on random
 * words, every ';' of the text is at the end of a part other than the last, each such end is followed by "; ",
 * and the last part ends the text, as the assembler's split at every ';' (asm_engine.c) would find them. */
Test(disfast, part_ends_are_the_separators)
{
    struct rig r;
    rig_open(&r);
    unsigned long printed = 0, multi = 0;
    const int n = (int)test_random_count("disfast part ends", 50000);
    for (int i = 0; i < n; i++) {
        if (!rig_random(&r, false, NULL))
            continue;
        printed++;
        const struct tsr_dis_path *P = tsr_tc_printer_path(r.G);
        cr_assert(P->nsp > 0 && !P->over);
        multi += P->nsp > 1;
        size_t start = 0;
        for (size_t k = 0; k < P->nsp; k++) {
            const char *semi = memchr(r.b.data + start, ';', r.b.len - start);
            size_t lim = semi ? (size_t)(semi - r.b.data) : r.b.len;
            cr_assert_eq(P->sp[k].end, lim, "'%.*s': part %zu ends at %u, its text at %zu", (int)r.b.len, r.b.data, k,
                         P->sp[k].end, lim);
            cr_assert_eq(k + 1 < P->nsp, semi != NULL, "'%.*s': part %zu", (int)r.b.len, r.b.data, k);
            if (semi)
                cr_assert(lim + 1 < r.b.len && r.b.data[lim + 1] == ' ');
            start = lim + 1;
        }
    }
    cr_expect_gt(printed, (unsigned long)n * 2 / 5);   /* 20,000 of 50,000 */
    cr_expect_gt(multi, printed / 4);
    rig_close(&r);
}

/* The fast form's answer for a word does not depend on the words proven before it: what it keeps (per place and
 * per pair the codes whose verdict is settled, dis_spin.c's answers, the optional-text answers) answers as the
 * facts it was kept from.  On random words, a second pass over the same words with the prover warm, and a fresh
 * prover over them in the reverse order, give every word the answer of the first pass. */
Test(disfast, fast_answers_do_not_depend_on_history)
{
    enum { N = 20000 };
    uint32_t(*w)[2] = calloc(N, sizeof *w);
    signed char *ans = calloc(N, 1);
    cr_assert(w && ans);
    struct rig r;
    rig_open(&r);
    int n = 0, shown = 0;
    while (n < N) {
        if (!rig_random(&r, true, w[n]))
            continue;
        if (n == 0)
            cr_assert(rig_full(&r));   /* sets the facts up */
        ans[n] = rig_fast(&r);
        shown += ans[n++];
    }
    cr_expect_gt(shown, N / 2);
    for (int i = 0; i < N; i++) {
        cr_assert(rig_print(&r, w[i]));
        cr_expect_eq(rig_fast(&r), ans[i], "second pass, word %d: '%.*s'", i, (int)r.b.len, r.b.data);
    }
    rig_close(&r);
    rig_open(&r);
    for (int i = N - 1; i >= 0; i--) {
        cr_assert(rig_print(&r, w[i]));
        if (i == N - 1)
            cr_assert(rig_full(&r) || !ans[i]);
        cr_expect_eq(rig_fast(&r), ans[i], "reverse order, word %d: '%.*s'", i, (int)r.b.len, r.b.data);
    }
    rig_close(&r);
    free(w);
    free(ans);
}

/* On random words, as decoded (fields nothing printed may hold any value) and made canonical (the text read back):
 * the bundle-level tail kept per bundle shape (runtime/text/dis_fshape.c) answers as the same tail asked step by
 * step, on every shape met (a shape's entry is made on first sight of it, and asked again). */
Test(disfast, shape_tail_matches_steps)
{
    struct rig r;
    rig_open(&r);
    unsigned long printed = 0, shown = 0, raw = 0;
    bool first = true;
    const int n = (int)test_random_count("disfast shape tail", 80000);
    for (int i = 0; i < n; i++) {
        bool canon = i & 1;   /* every other word made canonical */
        if (!rig_random(&r, canon, NULL))
            continue;
        if (first) {
            (void)rig_full(&r);   /* sets the facts up, whatever it answers */
            first = false;
        }
        printed++;
        r.x->fast_steps = true;
        bool steps = rig_fast(&r);
        r.x->fast_steps = false;
        bool shape = rig_fast(&r);
        cr_expect_eq(shape, steps, "'%.*s': per shape %d, step by step %d", (int)r.b.len, r.b.data, shape, steps);
        shown += shape;
        raw += shape && !canon;
    }
    cr_log_info("disfast shapes: %lu printed, %lu shown (%lu as decoded)\n", printed, shown, raw);
    cr_expect_gt(printed, (unsigned long)n * 5 / 8);   /* 50,000 of 80,000 */
    cr_expect_gt(shown, printed / 4);
    cr_expect_gt(raw, 0);
    rig_close(&r);
}

/* Bundles the facts settle: plain ALU ops, an I/O name of both write tables whose early regfile-A reading is
 * refuted through ws (pinned by the other part's `ra28`), a load immediate, packs and unpacks; an early
 * alternative refuted through an anchored operand (`ra12.8d` can only be read with pm = 0, so the MUL pack `.8a`
 * fails) and through a leading table hole (`mutex` read from regfile A binds raddr_a = 51; the other part's
 * operands pin raddr_a otherwise); a small immediate before a rotation whose value an earlier code shares, that
 * code pinned by the rotation (dis_fpin.c tsr_dis_num_pinned); `.setf -`, whose `-` the earlier destination
 * alternatives cannot read with the optional text as printed (tsr_dis_alt_opts). */
Test(disfast, fast_shows_settled_bundles)
{
    static const char *const t[] = {
        "fadd.ifz t1b, r0, r3; v8min.ifcc ra28, r2, r1",
        "fmax.ifz ra19, r0, r0; v8subs.ifnz rb22.8d, rb63, r3",
        "mov.ifn rb27, 0x90829d82; mov.ifn x_coord.8888s, 0x90829d82",
        "shr.ifnz rb23, nop.8a, nop.8a",
        "xor.ifcc.setf ra31, r5, ra1; v8min rb20.8c, r2, r0; ldtmu1",
        "fmaxabs.setf rb15, ra12.8d, r2; v8min ra16.8a, r0, r3",
        "xor.ifnn y_coord, r1, mutex; v8adds.ifnn t0s.16b, vr_wait.8a, r3",
        "xor.ifcc rb27, r4, -11; v8subs ra24.16as, ra54.8d, r4 >> 5",
        "shr.setf -, r1, ra47; fmul.never rb3, r2, r3; loadam",
    };
    struct rig r;
    rig_open(&r);
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        rig_text(&r, t[i]);
        if (i == 0)
            cr_assert(rig_full(&r));   /* sets the facts up */
        cr_expect(rig_fast(&r), "not shown by the fast form: '%s'", t[i]);
        cr_expect(rig_full(&r), "not shown by the full proof: '%s'", t[i]);
    }
    rig_close(&r);
}

/* Bundles whose proof reads the text today: the full proof shows them, the fast form declines.  `itof`, `clz` and
 * `not` have a one- and a two-operand form, and a small immediate in first place leaves open on the facts where
 * the number ends (which form reads the part is asked on the text); a float small immediate shared the same way. */
Test(disfast, fast_declines_text_questions)
{
    static const char *const t[] = {
        "itof.ifn vr_setup.8d, 3, r0",
        "clz.never r0.8888s, 14, r1",
        "not ra26.8as, 6, r3",
        "ftoi.ifnz r2, 16.0, r3; v8muld.ifcc ra30, ra24, 16.0",
    };
    struct rig r;
    rig_each(&r, t, sizeof t / sizeof *t, false);
    rig_close(&r);
}

/* An early alternative refuted through a second field (dis_chain.c): `recip` is a name of both write tables, so
 * dst_add's regfile-A alternative (ws = 0) is tried before the printed regfile-B one; with ws = 0 the mul
 * destination's pack can only be the MUL pack (pm = 1), and an unpacked regfile-A read (`ra61.8d`, `x_coord.8c`)
 * can only be read with pm = 0.  Without such a read nothing pins pm: the assembler reads the text with ws = 0 and
 * the MUL pack, so neither proof may show the word printed with ws = 1 and the regfile-A pack. */
Test(disfast, fast_shows_chained_pins)
{
    static const char *const t[] = {
        "asr.ifcc.setf recip, ra61.8d, r2; v8adds.ifnz t1s.8c, r3, r4",
        "and.ifnn.setf recipsqrt, r1, r3; v8subs.ifz stencil.8a, r2, x_coord.8c",
        "or.ifc recipsqrt, r5, 6; v8muld.ifc r2.8a, ra30.8c, r0",
    };
    struct rig r;
    rig_each(&r, t, sizeof t / sizeof *t, true);
    /* the same bundle less the unpack, encoded with ws = 1 and the regfile-A pack (pm = 0) */
    rig_declines(&r, "asr.ifcc.setf recip, r1, r2; v8adds.ifnz t1s.8c, r3, r4 {ws=1, pm=0}",
                 "asr.ifcc.setf recip, r1, r2; v8adds.ifnz t1s.8c, r3, r4");
    rig_close(&r);
}

/* An early alternative refuted through a field the printed path has bound (dis_chain.c tsr_dis_bound_refuted):
 * `mutex` and `unif` are names of both regfile read tables, so the mul's second source is tried from regfile A
 * first, binding raddr_a to their code there; the first source, read from regfile A as printed (`vpm`, `mutex`),
 * has bound raddr_a to another value.  With the first source an accumulator nothing binds raddr_a: the assembler
 * reads `mutex` from regfile A, so neither proof may show the word that reads it from regfile B. */
Test(disfast, fast_shows_bound_conflicts)
{
    static const char *const t[] = {
        "max.ifcc r5quad, r2, r3; v8max.ifc vw_setup.8c, vpm, mutex; sbwait",
        "sub.ifz.setf exp, r4, r1; v8adds.ifnz host_int, mutex, unif",
    };
    struct rig r;
    rig_each(&r, t, sizeof t / sizeof *t, true);
    rig_declines(&r, "max.ifcc r5quad, r2, r3; v8max.ifc vw_setup.8c, r1, mutex; sbwait {mul_b=7, raddr_b=51}",
                 "max.ifcc r5quad, r2, r3; v8max.ifc vw_setup.8c, r1, mutex; sbwait");
    rig_close(&r);
}
