/* The disassembler's exactness proof (runtime/text/dis_exact.c) on the QPU bundles it once gave up on: an
 * earlier operand alternative or table entry that matches the text but cannot complete, because its value of a
 * field disagrees with the value that another operand of the bundle pins (runtime/text/dis_pin.c).
 *
 * For each bundle: the text assembles to a word that the disassembler's printer prints back as the same text
 * (so the text reads back exactly), and the proof shows it from the printed path without assembling the text
 * again.  Before dis_pin.c the proof gave up on every one of them (the full round trip then ran).  Soundness
 * on many words is tests/test_asm.c's exactness_proof_agrees_with_check (TESSERA_DIS_VERIFY).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "qpu.h"
#include "text/dis_exact.h"
#include "text/dis_print.h"
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

Test(disexact, pinned_fields_proven)
{
    const struct tsr_tc_isa *isa = &qpu_tc_isa;
    struct tsr_tc_printer *G = tsr_tc_printer_new(isa, true);
    struct tsr_dis_exact *x = calloc(1, sizeof *x);
    unsigned char *inst = calloc(1, isa->inst_size + 16);
    cr_assert(G && x && inst);
    struct tsr_buf b = {0};
    for (size_t i = 0; i < sizeof pinned / sizeof *pinned; i++) {
        const char *t = pinned[i];
        uint32_t w[2];
        char err[256];
        cr_assert_eq(qpu_assemble_one(t, strlen(t), 0, w, err, sizeof err), 0, "'%s': %s", t, err);
        tsr_buf_clear(&b);
        cr_assert_eq(tsr_tc_printer_print(G, w, 0, false, &b), 0, "'%s' is not printed", t);
        cr_expect(b.len == strlen(t) && memcmp(b.data, t, b.len) == 0, "'%s' prints as '%.*s'", t, (int)b.len,
                  b.data);
        cr_assert_geq(isa->decode(w, inst), 0);
        cr_expect(tsr_dis_exact(isa, x, inst, b.data, b.len, tsr_tc_printer_path(G)), "not proven: '%s'", t);
    }
    tsr_buf_free(&b);
    tsr_dis_exact_free(x);
    free(x);
    free(inst);
    tsr_tc_printer_free(G);
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
