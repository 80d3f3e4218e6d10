/* The disassembler's exactness proof (runtime/text/dis_exact.c) on the QPU bundles it once gave up on: an
 * earlier operand alternative or table entry that matches the text but cannot complete, because its value of a
 * field disagrees with the value that another operand of the bundle pins (runtime/text/dis_pin.c), that rule
 * for a part's leading operand decided from the facts alone (runtime/text/dis_spin.c).  And the
 * numbers it decides from the template without reading them back (runtime/text/dis_num.c): the printed
 * number of every print kind reads back as the code, and the plans of load immediates and per-element lists
 * take those steps.
 *
 * For each bundle: the text assembles to a word that the disassembler's printer prints back as the same text
 * (so the text reads back exactly), and the proof shows it from the printed path without assembling the text
 * again.  Before dis_pin.c the proof gave up on every one of them (the full round trip then ran).  Soundness
 * on many words is tests/test_asm.c's exactness_proof_agrees_with_check (TESSERA_DIS_VERIFY).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qpu.h"
#include "text/dis_exact.h"
#include "text/dis_print.h"
#include "text/dis_px.h"
#include "tsr.h"

static const char *const pinned[] = {
    /* `.8a` is a MUL pack (pm = 1) tried before the regfile-A pack; `ra28.8dr` unpacks regfile A: pm = 0 */
    "nop; v8min rb15, ra28.8dr, r3",
    "nop; fmul.ifc.setf tlbz.8a, r5, ra19",
    "nop; fmul.ifcc r3.8888, ra55.8c, r3",
    "v8adds.ifnz.setf rb20, r0, ra37.8d; fmul.ifz ra3.8b, ra37.8d, r4",
    "not.ifnn t1b, r0, rb12; v8subs.ifcc tmu_noswap.8b, ra13, ra13",
    /* `mutex`, `unif` read from regfile A first (raddr_a); the other part reads another regfile-A address */
    "add.ifcc ra7.8a, mutex, r0; fmul rb1, r4, ra23.8a; ldtmu1",
    "fmin.ifnn mutex, unif, r0; v8min.ifz ra14, r2, ra59",
    /* a small immediate: -14 is code 18 and code 50; the rotation `>> 2` binds code 50 */
    "nop; v8muld.ifz ra14.8c, -14, r4 >> 2",
    "asr.ifz ra7.8bs, r4, -6; fmul.ifcc t1t, r0, r3 << 6",
    /* I/O registers of both write tables */
    "mov.ifc rb11, sacq(10); mov.ifz r1, sacq(10)",
    "mov.ifz recipsqrt, 0x4a7becb5; mov.ifnz rb5, 0x4a7becb5",
    "v8adds.ifcc x_coord, r4, r2; v8adds.ifz rb28, r4, r0",
};

/* Assembles t into w, prints it into b (it must print as t) and decodes it into inst. */
static void print_as(struct tsr_tc_printer *G, const char *t, uint32_t *w, struct tsr_buf *b, unsigned char *inst)
{
    char err[256];
    cr_assert_eq(qpu_assemble_one(t, strlen(t), 0, w, err, sizeof err), 0, "'%s': %s", t, err);
    tsr_buf_clear(b);
    cr_assert_eq(tsr_tc_printer_print(G, w, 0, false, b), 0, "'%s' is not printed", t);
    cr_expect(b->len == strlen(t) && memcmp(b->data, t, b->len) == 0, "'%s' prints as '%.*s'", t, (int)b->len,
              b->data);
    cr_assert_geq(qpu_tc_isa.decode(w, inst), 0);
}

/* Each text of t[0..n): it assembles to a word that the generated printer prints back as the same text, and
 * the proof (state x, kept for the caller) shows it from the printed path. */
static void prove_all(struct tsr_dis_exact *x, const char *const *t, size_t n)
{
    const struct tsr_tc_isa *isa = &qpu_tc_isa;
    struct tsr_tc_printer *G = tsr_tc_printer_new(isa, true);
    unsigned char *inst = calloc(1, isa->inst_size + 16);
    cr_assert(G && inst);
    struct tsr_buf b = {0};
    for (size_t i = 0; i < n; i++) {
        uint32_t w[2];
        print_as(G, t[i], w, &b, inst);
        cr_expect(tsr_dis_exact(isa, x, inst, b.data, b.len, tsr_tc_printer_path(G)), "not proven: '%s'", t[i]);
    }
    tsr_buf_free(&b);
    free(inst);
    tsr_tc_printer_free(G);
}

/* Did the proof of the last bundle read no text: no step of the text-only matcher, no table's names looked up
 * in the bundle's memo? */
static bool read_no_text(const struct tsr_dis_exact *x)
{
    for (unsigned i = 0; x->memo && i < TSR_DIS_NMEMO; i++)
        if (x->memo[i].gen == x->mgen)
            return false;
    return x->steps == 0;
}

static unsigned plan_steps(const struct tsr_dis_exact *x, uint8_t kind, uint32_t t);

/* Each text of t[0..n) is proven (prove_all) by a fresh prover without reading the text; with plan_tab (a table
 * index, else UINT32_MAX), its plans also hold an S_TAB step of that table. */
static void proven_without_text(const char *const *t, size_t n, uint32_t plan_tab)
{
    struct tsr_dis_exact *x = calloc(1, sizeof *x);
    cr_assert(x);
    for (size_t i = 0; i < n; i++) {
        prove_all(x, &t[i], 1);
        cr_expect(read_no_text(x), "'%s': the text was read", t[i]);
        if (plan_tab != UINT32_MAX)
            cr_expect_geq(plan_steps(x, TSR_DIS_S_TAB, plan_tab), 1, "'%s'", t[i]);
        tsr_dis_exact_free(x);
    }
    free(x);
}

/* ---- facts per table hole of the printed alternative (dis_static.c tsr_dis_alt_hole) ------------------- */

/* The operand part named opnd in op's template (its end in *end), and the index in isa->tables of table. */
static const struct tsr_tc_part *opnd_part(const struct tsr_tc_isa *isa, const char *op, const char *opnd,
                                           const struct tsr_tc_part **end)
{
    for (unsigned a = 0; a < isa->nops; a++) {
        const struct tsr_tc_op *O = &isa->ops[a];
        if (strcmp(O->name, op) != 0)
            continue;
        for (uint32_t i = 0; i < O->npart; i++) {
            const struct tsr_tc_part *p = &isa->parts[O->part + i];
            if (p->kind == TSR_TC_OPND && strcmp(isa->opnds[p->arg].name, opnd) == 0) {
                *end = isa->parts + O->part + O->npart;
                return p;
            }
        }
    }
    return NULL;
}

/* The index within the operand of its first alternative (from `from` on) with a table hole of table `tab`
 * (or, tab NULL, with no table hole and a literal text t), or -1. */
static int alt_with(const struct tsr_tc_isa *isa, const struct tsr_tc_opnd *o, unsigned from, const char *tab,
                    const char *t)
{
    for (unsigned k = from; k < o->nalt; k++) {
        const struct tsr_tc_alt *al = &isa->alts[o->alt + k];
        for (uint32_t i = 0; i < al->npart; i++) {
            const struct tsr_tc_part *h = &isa->parts[al->part + i];
            if (tab ? h->kind == TSR_TC_TABLE && strcmp(isa->tables[h->arg].name, tab) == 0
                    : h->kind == TSR_TC_TEXT && h->len == strlen(t) && memcmp(h->text, t, h->len) == 0)
                return (int)k;
        }
    }
    return -1;
}

/* The hole of alternative k (an index into its holes, dis_exact.h) of table tab, and the code whose entry
 * prints name in *code; -1 when there is none. */
static int hole_of(const struct tsr_dis_static *st, const struct tsr_tc_opnd *o, unsigned k, const char *tab,
                   const char *name, uint64_t *code)
{
    const struct tsr_tc_isa *isa = st->isa;
    unsigned a = o->alt + k;
    for (uint32_t h = 0; h < st->hfirst[a + 1] - st->hfirst[a]; h++) {
        const struct tsr_tc_part *hp = isa->parts + st->holes[st->hfirst[a] + h];
        const struct tsr_tc_table *T = &isa->tables[hp->arg];
        if (strcmp(T->name, tab) != 0)
            continue;
        for (uint32_t i = 0; i < T->nprint; i++) {
            const struct tsr_tc_print *pr = &isa->prints[T->print_first + i];
            if (pr->kind == TSR_TC_PRINT_NAME && strcmp(pr->name, name) == 0) {
                *code = pr->code;
                return (int)h;
            }
        }
    }
    return -1;
}

/* `{cond:cond_mul}... {wa_a:waddr_mul}.{packa:pack}` printing the regfile-A pack `16a`: the alternatives with a MUL
 * pack (`.{packm:pack}`) tried first cannot read it (`16a` is no MUL pack name), whatever the register; the
 * register alone (the hole with the most entries) does not rule them out. */
Test(disexact, alt_hole_rules_out_by_any_hole)
{
    const struct tsr_tc_isa *isa = &qpu_tc_isa;
    struct tsr_dis_static st;
    tsr_dis_static_init(&st, isa);
    const struct tsr_tc_part *end, *p = opnd_part(isa, "fmul", "dst_mul", &end);
    cr_assert(p);
    const struct tsr_tc_opnd *o = &isa->opnds[p->arg];
    int k = alt_with(isa, o, 0, "packa", NULL);
    cr_assert_geq(k, 1);
    uint64_t pack, reg;
    int hp = hole_of(&st, o, (unsigned)k, "packa", "16a", &pack), hr = hole_of(&st, o, (unsigned)k, "wa_a", "ra5", &reg);
    cr_assert(hp >= 0 && hr >= 0);
    uint64_t *f = calloc(isa->nfields + 1, sizeof *f);
    cr_assert(f);
    f[isa->parts[st.holes[st.hfirst[o->alt + k] + hp]].field] = pack;
    f[isa->parts[st.holes[st.hfirst[o->alt + k] + hr]].field] = reg;
    int n = 0, nra = 0;
    for (int j = alt_with(isa, o, 0, "packm", NULL); j >= 0 && j < k; j = alt_with(isa, o, (unsigned)j + 1, "packm", NULL)) {
        n++;
        cr_expect_eq(tsr_dis_alt_hole(&st, p, end, (unsigned)j, (unsigned)k, (unsigned)hp, pack), TSR_DIS_NEVER,
                     "alternative %d can read pack 16a", j);
        uint64_t dummy;
        if (hole_of(&st, o, (unsigned)j, "wa_a", "ra5", &dummy) >= 0) {   /* `{wa_a:waddr_mul}.{packm:pack}` */
            cr_expect_eq(tsr_dis_alt_hole(&st, p, end, (unsigned)j, (unsigned)k, (unsigned)hr, reg), TSR_DIS_MAYBE,
                         "alternative %d: ra5 alone rules it out", j);
            nra++;
        }
        cr_expect_eq(tsr_dis_alt_entry(&st, p, end, (unsigned)j, (unsigned)k, f), TSR_DIS_NEVER);
        /* the plan's rows: one per hole, answered the same */
        struct tsr_dis_erow r[TSR_DIS_EHOLES];
        unsigned nr = tsr_dis_alt_entry_rows(&st, p, end, (unsigned)j, (unsigned)k, r, TSR_DIS_EHOLES);
        bool seen = false;
        for (unsigned i = 0; i < nr; i++)
            if (r[i].hole == (unsigned)hp) {
                cr_assert_lt(pack, r[i].len);
                cr_expect_eq(r[i].row[pack], TSR_DIS_NEVER);
                seen = true;
            }
        cr_expect(seen, "no row for the pack hole");
    }
    cr_expect_geq(n, 2);
    cr_expect_geq(nra, 1);
    free(f);
    tsr_dis_static_free(&st);
}

/* ` -` (cond_add 0, no `.setf`) against `{cond:cond_add}{?'.setf' sf == 1} {wa_a:waddr_add}`: ruled out by the
 * condition's hole for every code printing a condition, not for code 0 (it prints nothing). */
Test(disexact, alt_hole_condition)
{
    const struct tsr_tc_isa *isa = &qpu_tc_isa;
    struct tsr_dis_static st;
    tsr_dis_static_init(&st, isa);
    const struct tsr_tc_part *end, *p = opnd_part(isa, "fadd", "dst_add", &end);
    cr_assert(p);
    const struct tsr_tc_opnd *o = &isa->opnds[p->arg];
    uint64_t ifz, never, pack;
    int j = alt_with(isa, o, 0, NULL, "-"), k = alt_with(isa, o, 0, "wa_a", NULL);
    while (k >= 0 && hole_of(&st, o, (unsigned)k, "packa", "16a", &pack) >= 0)   /* the one without a pack */
        k = alt_with(isa, o, (unsigned)k + 1, "wa_a", NULL);
    cr_assert(j >= 0 && k > j);
    int h = hole_of(&st, o, (unsigned)k, "cond", ".ifz", &ifz);
    cr_assert_geq(h, 0);
    cr_assert_geq(hole_of(&st, o, (unsigned)k, "cond", "", &never), 0);
    cr_expect_eq(tsr_dis_alt_hole(&st, p, end, (unsigned)j, (unsigned)k, (unsigned)h, ifz), TSR_DIS_NEVER);
    cr_expect_eq(tsr_dis_alt_hole(&st, p, end, (unsigned)j, (unsigned)k, (unsigned)h, never), TSR_DIS_MAYBE);
    tsr_dis_static_free(&st);
}

Test(disexact, pinned_fields_proven)
{
    struct tsr_dis_exact *x = calloc(1, sizeof *x);
    cr_assert(x);
    prove_all(x, pinned, sizeof pinned / sizeof *pinned);
    tsr_dis_exact_free(x);
    free(x);
}

/* dis_num.c (b): a `{FIELD}` hole of every print kind but float, printed by the generated printer's formatters
 * for codes of every width at the edges of its range (and a few others), followed by text that stops an
 * expression, reads back through the assembler's expression reader and number_hole's test (tsr_dis_int_value)
 * as exactly that code, ending where the number ends. */
Test(disexact, field_numbers_read_back)
{
    static const uint8_t kinds[] = {TSR_TC_FP_DEFAULT, TSR_TC_FP_SIGNED, TSR_TC_FP_UNSIGNED, TSR_TC_FP_HEX};
    uint64_t rng = 0x9e3779b97f4a7c15u;
    unsigned checked = 0;
    for (unsigned w = 1; w <= 64; w++) {
        uint64_t m = w == 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1, h = (uint64_t)1 << (w - 1);
        uint64_t vals[16] = {0, 1, 9, 10, h - 1, h, h + 1, m - 1, m, 0x7fffffff, 0x80000000, 0xffffffff};
        for (unsigned i = 12; i < 16; i++) {
            rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
            vals[i] = rng * 0x2545f4914f6cdd1du;
        }
        for (unsigned i = 0; i < 16; i++)
            vals[i] &= m;
        for (unsigned ki = 0; ki < sizeof kinds; ki++) {
            for (unsigned signd = 0; signd < 2; signd++) {
                struct tsr_tc_field fd = {.name = "f", .width = (uint8_t)w, .is_signed = signd, .print = kinds[ki]};
                for (unsigned i = 0; i < 16; i++) {
                    char b[64];
                    char *e = fd.print == TSR_TC_FP_HEX ? tsr_tc_fmt_hex(b, vals[i])
                              : fd.print == TSR_TC_FP_UNSIGNED || (fd.print == TSR_TC_FP_DEFAULT && !signd)
                                  ? tsr_tc_fmt_dec(b, vals[i], false)
                                  : tsr_tc_fmt_sdec(b, vals[i], w);
                    size_t n = (size_t)(e - b), end, ep, el;
                    memcpy(e, " ], r0", 7);
                    struct tsr_asm_val v;
                    const char *err;
                    int64_t x;
                    cr_assert_gt(tsr_asm_expr(b, 0, strlen(b), NULL, &end, &v, &err, &ep, &el), 0, "'%s'", b);
                    cr_assert_eq(end, n, "'%s' read to %zu, not %zu", b, end, n);
                    cr_assert(tsr_dis_int_value(&fd, &v, &x), "'%s' does not fit %u bits", b, w);
                    cr_assert_eq((uint64_t)x & m, vals[i], "'%s' reads back as %#llx, not %#llx", b,
                                 (unsigned long long)((uint64_t)x & m), (unsigned long long)vals[i]);
                    checked++;
                }
            }
        }
    }
    cr_expect_eq(checked, 64u * 4 * 2 * 16);
}

/* The proof's steps of kind kind in the thread's plans (dis_plan.c) at holes of table t (any table:
 * UINT32_MAX). */
static unsigned plan_steps(const struct tsr_dis_exact *x, uint8_t kind, uint32_t t)
{
    unsigned n = 0;
    for (size_t i = 0; x->plans && i < (size_t)x->st.nparts * x->st.maxalt; i++)
        for (const struct tsr_dis_plan *pl = x->plans[i]; pl; pl = pl->next)
            for (uint32_t j = 0; j < pl->nstep; j++)
                n += pl->step[j].kind == kind && (t == UINT32_MAX || pl->step[j].p->arg == t);
    return n;
}

static uint32_t table_named(const struct tsr_tc_isa *isa, const char *name)
{
    for (uint32_t t = 0; t < isa->ntables; t++)
        if (!strcmp(isa->tables[t].name, name))
            return t;
    cr_assert_fail("no table %s", name);
    return 0;
}

static const char *const numbers[] = {
    /* load immediates: `{imm32}` (signed, print hex) ends the op's template */
    "mov ra5, 0", "mov ra5, 9", "mov ra5, 0xa", "mov ra5, 0x7fffffff", "mov ra5, 0x80000000", "mov ra5, 0xffffffff",
    "mov.ifz -, 3; mov.ifnz rb5, 3",
    /* per-element lists: table pe_s (numbers only) and `{peN}` holes, each followed by `, ` or `]` */
    "mov r0, [0, -1, 1, -2, 0, 0, 1, 1, -1, -1, -2, -2, 0, 1, -1, -2]",
    "mov ra1, u[0, 3, 2, 1, 0, 0, 0, 0, 3, 3, 3, 3, 1, 2, 1, 2]",
    "mov -, sacq(9)",
    /* small immediates of the add ALU end the template; the mul ALU's are followed by a rotation (`>> 2`
     * would extend the number: those keep the text check) */
    "add r0, r1, 5", "add r0, r1, -14", "fadd r0, r1, 2.0", "fadd r0, r1, 0.00390625",
    "nop; v8muld.ifz ra14.8c, -14, r4 >> 2", "nop; fmul r0, r1, 1.0",
};

Test(disexact, numbers_from_template)
{
    const struct tsr_tc_isa *isa = &qpu_tc_isa;
    struct tsr_dis_exact *x = calloc(1, sizeof *x);
    cr_assert(x);
    prove_all(x, numbers, sizeof numbers / sizeof *numbers);
    /* every op-level `{imm32}` (the load immediates) is decided from the template */
    unsigned nimm = 0;
    for (uint32_t a = 0; a < isa->nops; a++) {
        const struct tsr_tc_part *p0 = isa->parts + isa->ops[a].part, *end = p0 + isa->ops[a].npart;
        for (const struct tsr_tc_part *p = p0; p < end; p++)
            if (p->kind == TSR_TC_INT && !strcmp(isa->fields[p->field].name, "imm32")) {
                cr_expect_eq(tsr_dis_num_opkind(&x->st, p, end), TSR_DIS_S_FIXINT, "op %s", isa->ops[a].name);
                nimm++;
            }
    }
    cr_expect_geq(nimm, 3);
    /* the per-element lists' entries and holes, the add ALU's small immediates: no text; the mul ALU's small
     * immediates (a rotation may follow): the text */
    uint32_t pe = table_named(isa, "pe_s"), si = table_named(isa, "smallimm");
    cr_expect_geq(plan_steps(x, TSR_DIS_S_NUMROW, pe), 16);
    cr_expect_eq(plan_steps(x, TSR_DIS_S_TAB, pe), 0);
    cr_expect_geq(plan_steps(x, TSR_DIS_S_FIXINT, UINT32_MAX), 16);
    cr_expect_geq(plan_steps(x, TSR_DIS_S_NUMROW, si), 1);
    cr_expect_geq(plan_steps(x, TSR_DIS_S_TAB, si), 1);
    /* the rows: -14 is code 18 (read first) and code 50 (an earlier entry of the same value: not decided);
     * 1.0 is code 32, 2^-8 code 40; every pe_s code prints its own value */
    cr_expect_eq(tsr_dis_num_entry(&x->st, si, 18), TSR_DIS_NEVER);
    cr_expect_eq(tsr_dis_num_entry(&x->st, si, 50), TSR_DIS_MAYBE);
    cr_expect_eq(tsr_dis_num_entry(&x->st, si, 32), TSR_DIS_NEVER);
    cr_expect_eq(tsr_dis_num_entry(&x->st, si, 40), TSR_DIS_NEVER);
    for (uint64_t c = 0; c < 4; c++)
        cr_expect_eq(tsr_dis_num_entry(&x->st, pe, c), TSR_DIS_NEVER, "pe_s code %llu", (unsigned long long)c);
    tsr_dis_exact_free(x);
    free(x);
}

/* ---- a field pinned by a bundle part, from the facts (dis_spin.c tsr_dis_spin) --------------------------- */

/* The field index of `name` in the isa (the test fails when it is missing). */
static unsigned field_of(const struct tsr_tc_isa *isa, const char *name)
{
    for (unsigned i = 0; i < isa->nfields; i++)
        if (strcmp(isa->fields[i].name, name) == 0)
            return i;
    cr_assert_fail("no field %s", name);
    return 0;
}

/* A bundle printed for the questions of tsr_dis_spin: the printer, a prover's state, the decoded instruction
 * (format, ops of its slots, fields) and the printed path. */
struct printed {
    struct tsr_tc_printer *G;
    struct tsr_dis_exact *x;
    unsigned char *inst;
    struct tsr_buf b;
    const struct tsr_dis_path *path;
    unsigned fmt;
    const uint16_t *ops;
    const uint64_t *f;
};

/* Prints t (it must print as t) into *q. */
static void printed_open(struct printed *q, const char *t)
{
    const struct tsr_tc_isa *isa = &qpu_tc_isa;
    uint32_t w[2];
    *q = (struct printed){.G = tsr_tc_printer_new(isa, true), .x = calloc(1, sizeof *q->x),
                          .inst = calloc(1, isa->inst_size + 16)};
    cr_assert(q->G && q->x && q->inst);
    print_as(q->G, t, w, &q->b, q->inst);
    q->path = tsr_tc_printer_path(q->G);
    q->fmt = q->inst[0];
    q->ops = (const uint16_t *)(const void *)(q->inst + isa->off_op);
    q->f = (const uint64_t *)(const void *)(q->inst + isa->off_f);
}

static void printed_close(struct printed *q)
{
    tsr_buf_free(&q->b);
    tsr_dis_exact_free(q->x);
    free(q->x);
    free(q->inst);
    tsr_tc_printer_free(q->G);
}

/* The op printed at bundle part k of q. */
static unsigned printed_op(const struct printed *q, size_t k)
{
    const struct tsr_tc_isa *isa = &qpu_tc_isa;
    cr_assert_gt(q->path->nsp, k);
    return q->ops[isa->idx[isa->formats[q->fmt].slot + q->path->sp[k].t]];
}

/* tsr_dis_spin on bundle part k of text t, printed as t, for field `field` and value v: the part read by its
 * printed op (self) or, as a part after part 0, by any op of the later slots. */
static int spin_of(const char *t, size_t k, bool self, const char *field, uint64_t v)
{
    const struct tsr_tc_isa *isa = &qpu_tc_isa;
    struct printed q;
    printed_open(&q, t);
    unsigned a = printed_op(&q, k);
    /* the leading operand: the first template part after the literal text (none: 0xff) */
    const struct tsr_tc_op *op = &isa->ops[a];
    uint32_t li = 0;
    while (li < op->npart && isa->parts[op->part + li].kind != TSR_TC_OPND)
        li++;
    unsigned pw = li < op->npart ? q.path->ev[q.path->sp[k].first + li].what : 0xff;
    uint32_t t0 = self ? TSR_DIS_SPIN_SELF : q.path->sp[0].t + 1;
    int ans = tsr_dis_spin(isa, q.x, q.fmt, a, t0, pw, field_of(isa, field), v, q.f);
    /* asked again: the same answer from the table */
    cr_assert_eq(tsr_dis_spin(isa, q.x, q.fmt, a, t0, pw, field_of(isa, field), v, q.f), ans);
    printed_close(&q);
    return ans;
}

/* `ra28` is a name of the regfile-A write table only, so every way to read the mul destination binds ws = 1;
 * an I/O register (`recip`, `tmu_noswap`) is a name of both tables, read with the other ws by the other
 * table's alternative, so nothing is shown; a pack name of the regfile-A pack table only (`.8bs`) rules the
 * MUL pack alternatives out after an I/O name (a hole other than the largest). */
Test(disexact, spin_pins_from_facts)
{
    const int PINS = TSR_DIS_SPIN_PINS, OPEN = TSR_DIS_SPIN_OPEN, FREE = TSR_DIS_SPIN_FREE;
    cr_expect_eq(spin_of("nop; fmul ra28, r0, r1", 1, true, "ws", 0), PINS);
    cr_expect_eq(spin_of("nop; fmul ra28, r0, r1", 1, false, "ws", 0), PINS);
    cr_expect_eq(spin_of("nop; fmul ra28, r0, r1", 1, true, "ws", 1), FREE, "the printed value is not another one");
    cr_expect_eq(spin_of("nop; fmul recip, r0, r1", 1, true, "ws", 1), OPEN, "an I/O name of both tables");
    cr_expect_eq(spin_of("nop; fmul ra28, r0, r1", 0, true, "ws", 0), FREE, "nop has no operand");
    cr_expect_eq(spin_of("fadd rb3, r0, r1; fmul ra28, r0, r1", 0, true, "ws", 0), PINS);
    cr_expect_eq(spin_of("fadd tmu_noswap, r0, r1; fmul ra28, r0, r1", 0, true, "ws", 0), OPEN);
    /* a load immediate's mul half: the slot's idle op has the same template (dis_spin.c twin) */
    cr_expect_eq(spin_of("mov r0, 0x12345678; mov ra15, 0x12345678", 1, false, "ws", 0), PINS);
    cr_expect_eq(spin_of("mov r0, 0x12345678; mov tmu_noswap, 0x12345678", 1, false, "ws", 1), OPEN);
}

/* tsr_dis_spin_alt on bundle t for the first alternative of part 0's dst_add with a regfile-A name (it binds
 * ws = 0), as the assembler would try it before the printed one; *open as it returns it. */
static bool spin_alt_of(const char *t, uint64_t *open)
{
    const struct tsr_tc_isa *isa = &qpu_tc_isa;
    struct printed q;
    printed_open(&q, t);
    unsigned pop[2];
    uint8_t pw[2];
    cr_assert_eq(q.path->nsp, 2);
    for (size_t k = 0; k < 2; k++) {   /* fadd and fmul: the destination right after the mnemonic */
        pop[k] = printed_op(&q, k);
        cr_assert_eq(isa->parts[isa->ops[pop[k]].part + 1].kind, TSR_TC_OPND);
        pw[k] = (uint8_t)q.path->ev[q.path->sp[k].first + 1].what;
    }
    const struct tsr_tc_part *end, *p = opnd_part(isa, "fadd", "dst_add", &end);
    cr_assert(p);
    const struct tsr_tc_opnd *o = &isa->opnds[p->arg];
    int j = alt_with(isa, o, 0, "wa_a", NULL);
    cr_assert(j >= 0 && (unsigned)j < pw[0], "dst_add %d is tried before the printed %u", j, pw[0]);
    bool r = tsr_dis_spin_alt(isa, q.x, q.fmt, 2, pop, q.path->sp, pw, 0, true, &isa->alts[o->alt + (unsigned)j], q.f,
                              open);
    printed_close(&q);
    return r;
}

/* The early regfile-A alternative of `t1b` (ws = 0) fails through the mul part's `ra28` (ws = 1) by the facts;
 * with `tmu_noswap` there (written from regfile A: ws = 1) the facts leave the (ws, mul part) pair to the text;
 * with ws = 0 printed the mul part does not pin ws = 1 at all. */
Test(disexact, spin_refutes_early_alternative)
{
    uint64_t open = 0;
    cr_expect(spin_alt_of("fadd t1b, r0, r1; fmul ra28, r0, r1", &open));
    cr_expect(!spin_alt_of("fadd rb3, r0, r1; fmul tmu_noswap, r0, r1", &open));
    cr_expect(open >> 1 & 1, "the pair (ws, part 1) is left open: %#llx", (unsigned long long)open);
    cr_expect(!spin_alt_of("fadd t1b, r0, r1; fmul tmu_noswap, r0, r1", &open));
    cr_expect(!(open >> 1 & 1), "the pair (ws, part 1) is shown not to pin: %#llx", (unsigned long long)open);
}

/* ---- the ops tried on a part's text before the printed one (dis_cand.c) ---------------------------------- */

/* The op named `name` whose template has npart parts (-1 when there is none). */
static int op_named(const struct tsr_tc_isa *isa, const char *name, uint32_t npart)
{
    for (unsigned a = 0; a < isa->nops; a++)
        if (strcmp(isa->ops[a].name, name) == 0 && isa->ops[a].npart == npart)
            return (int)a;
    return -1;
}

/* The two-operand form of `itof` (add_b != add_a) comes after the one-operand form in the add slot; of the
 * slot's earlier ops only that twin can match what it prints (tsr_dis_op_pair), and only when the first
 * source prints a small immediate (a number the pairs' lockstep walk cannot see the end of), so a fresh
 * prover shows `itof rb2, r5, rb11` without the text-only matcher. */
Test(disexact, cands_from_op_pairs)
{
    const struct tsr_tc_isa *isa = &qpu_tc_isa;
    int two = op_named(isa, "itof", 8), one = op_named(isa, "itof", 5);
    cr_assert(two >= 0 && one >= 0 && one < two);
    unsigned slot = isa->ops[two].slot, i1 = UINT32_MAX;
    const struct tsr_tc_slot *S = &isa->slots[slot];
    cr_assert_leq(S->nop, 64);
    for (uint32_t i = 0; i < S->nop; i++)
        if (isa->idx[S->op + i] == (unsigned)one)
            i1 = i;
    cr_assert_neq(i1, UINT32_MAX);
    struct tsr_dis_exact *x = calloc(1, sizeof *x);
    cr_assert(x);
    tsr_dis_static_init(&x->st, isa);
    uint8_t lalt[TSR_DIS_LALT];
    memset(lalt, 0xff, sizeof lalt);
    /* without the printed alternatives: the twin only (the slot has earlier ops, other mnemonics) */
    uint64_t m = tsr_dis_cands(&x->cands, &x->st, slot, (unsigned)two, (unsigned)two, false, lalt);
    cr_expect_eq(m, (uint64_t)1 << i1, "%#llx", (unsigned long long)m);
    /* with them: none for an accumulator as the first source, the twin for a small immediate */
    const struct tsr_tc_part *p0 = isa->parts + isa->ops[two].part, *p = p0;
    while (p < p0 + isa->ops[two].npart && !(p->kind == TSR_TC_OPND && !strcmp(isa->opnds[p->arg].name, "src(add_a)")))
        p++;
    cr_assert(p < p0 + isa->ops[two].npart && p - p0 < TSR_DIS_LALT);
    const struct tsr_tc_opnd *o = &isa->opnds[p->arg];
    int acc = alt_with(isa, o, 0, "accs", NULL), imm = alt_with(isa, o, 0, "smallimm", NULL);
    cr_assert(acc >= 0 && imm >= 0);
    lalt[p - p0] = (uint8_t)acc;
    cr_expect_eq(tsr_dis_cands(&x->cands, &x->st, slot, (unsigned)two, (unsigned)two, true, lalt), 0);
    lalt[p - p0] = (uint8_t)imm;
    cr_expect_eq(tsr_dis_cands(&x->cands, &x->st, slot, (unsigned)two, (unsigned)two, true, lalt), (uint64_t)1 << i1);
    tsr_dis_exact_free(x);
    free(x);
    static const char *const twins[] = {"itof rb2, r5, rb11", "clz.setf ra24, r4.8a, ra9", "not.ifc r1, r3, r5"};
    proven_without_text(twins, sizeof twins / sizeof *twins, UINT32_MAX);
}

/* ---- a field pinned by an operand other than the leading one (dis_spin.c tsr_dis_spin_at, tsr_dis_spin_ops) -- */

/* The index in op a's template of its operand named opnd (-1: none). */
static int opnd_index(const struct tsr_tc_isa *isa, unsigned a, const char *opnd)
{
    const struct tsr_tc_op *op = &isa->ops[a];
    for (uint32_t i = 0; i < op->npart; i++) {
        const struct tsr_tc_part *p = &isa->parts[op->part + i];
        if (p->kind == TSR_TC_OPND && strcmp(isa->opnds[p->arg].name, opnd) == 0)
            return (int)i;
    }
    return -1;
}

/* tsr_dis_spin_at on part k of t (printed as t, read by its printed op) through its operand opnd. */
static int spin_at_of(const char *t, size_t k, const char *opnd, const char *field, uint64_t v)
{
    const struct tsr_tc_isa *isa = &qpu_tc_isa;
    struct printed q;
    printed_open(&q, t);
    unsigned a = printed_op(&q, k);
    int li = opnd_index(isa, a, opnd);
    cr_assert(li >= 0 && li < TSR_DIS_LALT, "%s in %s", opnd, isa->ops[a].name);
    /* the alternative printed there: the events of the template's parts before it, an operand's with its own */
    size_t ie = q.path->sp[k].first;
    for (int i = 0; i < li; i++) {
        const struct tsr_tc_part *p = isa->parts + isa->ops[a].part + i;
        size_t n = 1;
        if (p->kind == TSR_TC_OPND)
            n += isa->alts[isa->opnds[p->arg].alt + q.path->ev[ie].what].npart;
        ie += n;
    }
    unsigned pw = q.path->ev[ie].what;
    int ans =
        tsr_dis_spin_at(isa, q.x, q.fmt, a, (unsigned)li, TSR_DIS_SPIN_SELF, pw, 0xff, field_of(isa, field), v, q.f);
    cr_assert_eq(
        tsr_dis_spin_at(isa, q.x, q.fmt, a, (unsigned)li, TSR_DIS_SPIN_SELF, pw, 0xff, field_of(isa, field), v, q.f),
        ans);
    printed_close(&q);
    return ans;
}

/* `ra12.8d` as a source can only be read by the regfile-A unpack alternative (pm = 0): the source, anchored by
 * the template's `,` (no destination name or pack holds one), pins pm; `ra12` alone does not (its alternative
 * leaves pm free), nor does a source of a part read by other ops than its printed one.  The mul destination's MUL
 * pack `.8a` (pm = 1), tried before the regfile-A pack `.8a`, then fails without the text, whether the unpack is
 * in an earlier part or after the destination in the same part. */
Test(disexact, spin_through_other_operands)
{
    const int PINS = TSR_DIS_SPIN_PINS, FREE = TSR_DIS_SPIN_FREE;
    cr_expect_eq(spin_at_of("fmaxabs.setf rb15, ra12.8d, r2; v8min ra16.8a, r0, r3", 0, "src(add_a)", "pm", 1), PINS);
    cr_expect_eq(spin_at_of("fmaxabs.setf rb15, ra12, r2; v8min ra16.8a, r0, r3", 0, "src(add_a)", "pm", 1), FREE);
    cr_expect_eq(spin_at_of("nop; fmul.ifz ra17.8888, r4, ra11.16a", 1, "src(mul_b)", "pm", 1), PINS);
    cr_expect_eq(spin_at_of("nop; fmul.ifz ra17.8888, r4, ra11.16a", 1, "src(mul_b)", "pm", 0), FREE);
    static const char *const pins[] = {"fmaxabs.setf rb15, ra12.8d, r2; v8min ra16.8a, r0, r3",
                                       "nop; fmul.ifz ra17.8888, r4, ra11.16a",
                                       "add.ifnz r1, r4, ra16.8a; v8max.ifn ra4.8b, ra16.8a, rb31"};
    proven_without_text(pins, sizeof pins / sizeof *pins, UINT32_MAX);
}

/* ---- a number printed last in its bundle part (dis_exact.c run_step, S_TAB) ------------------------------- */

/* The mul ALU's small immediate may be followed by a rotation (`-14 >> 2`: the number would be extended), so its
 * step is S_TAB; printed last in its part, the reader stops at the part's end and the code's row decides, with
 * no text read. */
Test(disexact, number_last_in_part)
{
    static const char *const last[] = {"nop; fmul rb20, ra7.8c, 14", "nop; v8max.setf ra7.16a, 12, 12",
                                       "nop; v8subs.ifz rb11, r2, -11", "nop; fmul r0, r1, 1.0"};
    proven_without_text(last, sizeof last / sizeof *last, table_named(&qpu_tc_isa, "smallimm"));
}

/* The code of table t's last (or first) numeric entry that accepts the integer value (the test fails when none). */
static uint64_t name_code_num(const struct tsr_tc_isa *isa, uint32_t t, int64_t value, bool last)
{
    const struct tsr_tc_table *T = &isa->tables[t];
    struct tsr_asm_val v = {0};
    char b[32];
    int n = snprintf(b, sizeof b, "%lld", (long long)value);
    size_t e, ep, el;
    const char *err;
    cr_assert(tsr_asm_expr(b, 0, (size_t)n, NULL, &e, &v, &err, &ep, &el) > 0);
    int64_t found = -1;
    for (uint32_t i = 0; i < T->nnums; i++)
        if (tsr_dis_num_ok(&isa->nums[T->num_first + i], &v) && (last || found < 0))
            found = isa->nums[T->num_first + i].code;
    cr_assert_geq(found, 0, "no entry of %s accepts %lld", T->name, (long long)value);
    return (uint64_t)found;
}

/* -14 is small-immediate code 18 and code 50 (which also rotates the mul result): printed for code 50, the
 * assembler reads code 18 first, and the path fails because the rotation `>> 2`, anchored after the last source
 * (whose alternatives that can be read there hold no `>`), can only be read as raddr_b = 50 (dis_spin.c
 * anchored_after, the numeric entries of rotr for the value 2), in the same part or a later one; the row of code
 * 50 alone says no (an earlier entry has its value). */
Test(disexact, number_after_pinned_entries)
{
    const struct tsr_tc_isa *isa = &qpu_tc_isa;
    static const char *const rot[] = {"nop; v8muld.ifz ra14.8c, -14, r4 >> 2",
                                      "shl.ifz.setf ra8, -14, r1; v8muld.ifn rb24.8c, r2, r2 >> 2",
                                      "nop; mul24.ifn rb29, -3, ra3.8d << 3"};
    proven_without_text(rot, sizeof rot / sizeof *rot, UINT32_MAX);
    struct tsr_dis_exact *x = calloc(1, sizeof *x);
    cr_assert(x);
    tsr_dis_static_init(&x->st, isa);
    uint32_t si = table_named(isa, "smallimm");
    cr_expect_eq(tsr_dis_num_entry(&x->st, si, name_code_num(isa, si, -14, true)), TSR_DIS_MAYBE);
    tsr_dis_exact_free(x);
    free(x);
}

/* ---- a field pinned through a table hole's entry (dis_spin.c tsr_dis_lead_codes) ---------------------------- */

/* The code of the name `name` of table tab (the test fails when it is missing). */
static uint64_t name_code(const struct tsr_tc_isa *isa, const char *tab, const char *name)
{
    const struct tsr_tc_table *T = &isa->tables[table_named(isa, tab)];
    for (uint32_t i = 0; i < T->nnames; i++)
        if (!strcmp(isa->names[T->name_first + i].name, name))
            return isa->names[T->name_first + i].code;
    cr_assert_fail("no name %s in %s", name, tab);
    return 0;
}

/* The codes the regfile-A source alternative binds where the printed alternative (fields f, printed through
 * tsr_dis_lead_codes) wrote its first name; n of them. */
static unsigned lead_codes_of(const char *t, const char *printed_tab, uint64_t *codes)
{
    const struct tsr_tc_isa *isa = &qpu_tc_isa;
    struct printed q;
    printed_open(&q, t);
    const struct tsr_tc_part *end, *p = opnd_part(isa, "ror", "src(add_a)", &end);
    cr_assert(p);
    const struct tsr_tc_opnd *o = &isa->opnds[p->arg];
    int ja = alt_with(isa, o, 0, "rd_a", NULL), jp = alt_with(isa, o, 0, printed_tab, NULL);
    while (ja >= 0 && isa->alts[o->alt + (unsigned)ja].npart != 1)   /* `{rd_a:raddr_a}` alone, no unpack */
        ja = alt_with(isa, o, (unsigned)ja + 1, "rd_a", NULL);
    while (jp >= 0 && isa->alts[o->alt + (unsigned)jp].npart != 1)
        jp = alt_with(isa, o, (unsigned)jp + 1, printed_tab, NULL);
    cr_assert(ja >= 0 && jp >= 0);
    unsigned n = tsr_dis_lead_codes(isa, &isa->alts[o->alt + (unsigned)ja], &isa->alts[o->alt + (unsigned)jp], q.f,
                                    codes, 8);
    printed_close(&q);
    return n;
}

static bool has_code(const uint64_t *codes, unsigned n, uint64_t c)
{
    for (unsigned i = 0; i < n; i++)
        if (codes[i] == c)
            return true;
    return false;
}

/* `vpm` is a name of both regfile read tables: read from regfile A it binds raddr_a to vpm's code there, or to
 * that of a longer name that `vpm` starts (`vpm_ld_busy`: a superset, as the text after it is not looked at); `ra20` read from regfile A binds 20 or, `ra2` being a prefix of it, 2.
 * So an earlier regfile-A reading of `vpm` fails when another source can only be read from regfile A with
 * another address: in the same part after it, or in a later part (read by its printed op only). */
Test(disexact, spin_through_entries)
{
    const struct tsr_tc_isa *isa = &qpu_tc_isa;
    uint64_t codes[8];
    unsigned n = lead_codes_of("ror ra16, vpm, ra20", "rd_b", codes);
    cr_expect(has_code(codes, n, name_code(isa, "rd_a", "vpm")));
    cr_expect(has_code(codes, n, name_code(isa, "rd_a", "vpm_ld_busy")), "names that `vpm` starts count too");
    cr_expect(!has_code(codes, n, name_code(isa, "rd_a", "ra20")) && !has_code(codes, n, name_code(isa, "rd_a", "ra2")));
    n = lead_codes_of("ror ra16, ra20, rb20", "rd_a", codes);
    cr_expect_eq(n, 2);
    cr_expect(has_code(codes, n, name_code(isa, "rd_a", "ra20")) && has_code(codes, n, name_code(isa, "rd_a", "ra2")));
    static const char *const pins[] = {"ror ra16, vpm, ra20",
                                       "xor.ifnn y_coord, r1, mutex; v8adds.ifnn t0s.16b, vr_wait.8a, r3",
                                       "fmax t1b, vary, r5; v8muld.ifz r0.8d, r1, ra53",
                                       "sub.ifz t0s, r3, ra2; v8muld.never ra27.8b, ra2, unif"};
    proven_without_text(pins, sizeof pins / sizeof *pins, UINT32_MAX);
}

/* ---- optional text printed (dis_static.c tsr_dis_alt_opts) --------------------------------------------- */

/* ` -` (the add destination written nowhere without `.setf`) is tried before `{cond}{?'.setf' sf == 1} {wa_a}`, which
 * prints ` -` too for waddr 39 without `.setf`: the templates and the rows per entry cannot rule it out, but with
 * `.setf` printed it cannot match; a plan compiled for that choice drops it, and the bundle reads no text. */
Test(disexact, alt_opts_printed)
{
    const struct tsr_tc_isa *isa = &qpu_tc_isa;
    struct tsr_dis_exact *x = calloc(1, sizeof *x);
    cr_assert(x);
    tsr_dis_static_init(&x->st, isa);
    const struct tsr_tc_part *end, *p = opnd_part(isa, "xor", "dst_add", &end);
    cr_assert(p);
    const struct tsr_tc_opnd *o = &isa->opnds[p->arg];
    int j = alt_with(isa, o, 0, NULL, " -"), k = alt_with(isa, o, 0, "wa_a", NULL);
    if (j < 0)
        j = alt_with(isa, o, 0, NULL, "-");
    while (k >= 0 && alt_with(isa, o, (unsigned)k, "packa", NULL) == k)   /* the register alone, no pack */
        k = alt_with(isa, o, (unsigned)k + 1, "wa_a", NULL);
    cr_assert(j >= 0 && k > j, "%d %d", j, k);
    const struct tsr_tc_alt *K = &isa->alts[o->alt + (unsigned)k];
    uint8_t what[TSR_DIS_LALT] = {0};
    int opt = -1;
    for (uint32_t i = 0; i < K->npart && i < TSR_DIS_LALT; i++)
        if (isa->parts[K->part + i].kind == TSR_TC_OPT)
            opt = (int)i;
    cr_assert(opt >= 0);
    cr_expect_eq(tsr_dis_alt_ctx(&x->st, p, end, (unsigned)j, (unsigned)k), TSR_DIS_MAYBE);
    cr_expect_eq(tsr_dis_alt_opts(&x->st, p, end, (unsigned)j, (unsigned)k, what), TSR_DIS_MAYBE, "`.setf` not printed");
    what[opt] = 1;
    cr_expect_eq(tsr_dis_alt_opts(&x->st, p, end, (unsigned)j, (unsigned)k, what), TSR_DIS_NEVER, "`.setf` printed");
    tsr_dis_exact_free(x);
    free(x);
    static const char *const setf[] = {"xor.setf -, r2, r3; v8max.ifn rb31, r1, r4.8d", "clz.setf -, r1"};
    proven_without_text(setf, sizeof setf / sizeof *setf, UINT32_MAX);
}

/* The fact the fast form's shapes (runtime/text/dis_fshape.c) rest on when they skip a format's selector checks:
 * on every word the decoder gives a format marked sel_decoded, each of the format's conditions holds on the
 * fields it stored.  Every format with a selector (all the QPU's read only their own fields) is marked; the words
 * are random and each format's words are counted, so the test reaches them all. */
Test(disexact, decoded_formats_meet_their_selector)
{
    const struct tsr_tc_isa *isa = &qpu_tc_isa;
    struct qpu_tinst inst;   /* the isa's form (its conditions read f[] as uint64_t) */
    unsigned seen[8] = {0};
    cr_assert_leq(isa->nformats, 8u);
    for (unsigned g = 0; g < isa->nformats; g++)
        cr_expect_eq(isa->formats[g].sel_decoded, isa->formats[g].ncond > 0, "format %s", isa->formats[g].name);
    uint64_t s = 0x9e3779b97f4a7c15u;
    for (unsigned n = 0; n < 200000; n++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        /* the top bits (sig, ldi_mode) drawn often from the few codes of the non-ALU formats */
        uint64_t d = n & 1 ? s : (s & ~(UINT64_C(0xf) << 60)) | (uint64_t)(0xe + (n >> 1 & 1)) << 60;
        const uint32_t w[2] = {(uint32_t)d, (uint32_t)(d >> 32)};
        if (qpu_tdecode(w, &inst) < 0)
            continue;
        unsigned g = inst.format;
        cr_assert_lt(g, isa->nformats);
        seen[g]++;
        const struct tsr_tc_format *F = &isa->formats[g];
        const uint64_t *f = inst.f;
        for (uint32_t i = 0; F->sel_decoded && i < F->ncond; i++) {
            const struct tsr_tc_cond *c = &isa->conds[F->cond + i];
            bool ok = c->kind == TSR_TC_BIND ? f[c->field] == c->val
                    : c->kind == TSR_TC_BIND2 ? f[c->field] == f[c->field2]
                    : isa->check(c->id, f);
            cr_assert(ok, "format %s, word %016llx: %s", F->name, (unsigned long long)d, c->text);
        }
    }
    for (unsigned g = 0; g < isa->nformats; g++)
        cr_expect_gt(seen[g], 0u, "format %s", isa->formats[g].name);
}
