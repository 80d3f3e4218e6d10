/* The disassembler's exactness proof (runtime/text/dis_exact.c) on the QPU bundles it once gave up on: an
 * earlier operand alternative or table entry that matches the text but cannot complete, because its value of a
 * field disagrees with the value that another operand of the bundle pins (runtime/text/dis_pin.c); and that
 * rule for a part's leading operand decided from the facts alone (runtime/text/dis_spin.c).
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

/* A printer, a prover and a decoded instruction, and the text printed. */
struct rig {
    const struct tsr_tc_isa *isa;
    struct tsr_tc_printer *G;
    struct tsr_dis_exact *x;
    unsigned char *inst;
    struct tsr_buf b;
};

static void rig_open(struct rig *r)
{
    *r = (struct rig){.isa = &qpu_tc_isa};
    r->G = tsr_tc_printer_new(r->isa, true);
    r->x = calloc(1, sizeof *r->x);
    r->inst = calloc(1, r->isa->inst_size + 16);
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

/* Assembles t, prints the word into r->b (it must print as t) and decodes it into r->inst. */
static void rig_print(struct rig *r, const char *t)
{
    uint32_t w[2];
    char err[256];
    cr_assert_eq(qpu_assemble_one(t, strlen(t), 0, w, err, sizeof err), 0, "'%s': %s", t, err);
    tsr_buf_clear(&r->b);
    cr_assert_eq(tsr_tc_printer_print(r->G, w, 0, false, &r->b), 0, "'%s' is not printed", t);
    cr_expect(r->b.len == strlen(t) && memcmp(r->b.data, t, r->b.len) == 0, "'%s' prints as '%.*s'", t,
              (int)r->b.len, r->b.data);
    cr_assert_geq(r->isa->decode(w, r->inst), 0);
}

Test(disexact, pinned_fields_proven)
{
    struct rig r;
    rig_open(&r);
    for (size_t i = 0; i < sizeof pinned / sizeof *pinned; i++) {
        rig_print(&r, pinned[i]);
        cr_expect(tsr_dis_exact(r.isa, r.x, r.inst, r.b.data, r.b.len, tsr_tc_printer_path(r.G)), "not proven: '%s'",
                  pinned[i]);
    }
    rig_close(&r);
}

/* The field index of `name` in the isa (the test fails when it is missing). */
static unsigned field_of(const struct tsr_tc_isa *isa, const char *name)
{
    for (unsigned i = 0; i < isa->nfields; i++)
        if (strcmp(isa->fields[i].name, name) == 0)
            return i;
    cr_assert_fail("no field %s", name);
    return 0;
}

/* tsr_dis_spin on bundle part k of text t, printed as t: does it pin field `field` to a value other than v,
 * the part read by its printed op (self) or, after part 0, by any op of the later slots? */
static int spin_of(const char *t, size_t k, bool self, const char *field, uint64_t v)
{
    struct rig r;
    rig_open(&r);
    rig_print(&r, t);
    const struct tsr_tc_isa *isa = r.isa;
    const struct tsr_dis_path *path = tsr_tc_printer_path(r.G);
    cr_assert_gt(path->nsp, k);
    unsigned fmt = r.inst[0];
    const uint16_t *ops = (const uint16_t *)(const void *)(r.inst + isa->off_op);
    const uint64_t *f = (const uint64_t *)(const void *)(r.inst + isa->off_f);
    unsigned a = ops[isa->idx[isa->formats[fmt].slot + path->sp[k].t]];
    /* the leading operand: the first template part after the literal text (none: 0xff) */
    const struct tsr_tc_op *op = &isa->ops[a];
    uint32_t li = 0;
    while (li < op->npart && isa->parts[op->part + li].kind != TSR_TC_OPND)
        li++;
    unsigned pw = li < op->npart ? path->ev[path->sp[k].first + li].what : 0xff;
    uint32_t t0 = self ? TSR_DIS_SPIN_SELF : path->sp[0].t + 1;
    int ans = tsr_dis_spin(isa, r.x, fmt, a, t0, pw, field_of(isa, field), v, f);
    /* asked again: the same answer from the table */
    cr_assert_eq(tsr_dis_spin(isa, r.x, fmt, a, t0, pw, field_of(isa, field), v, f), ans);
    rig_close(&r);
    return ans;
}

/* A field pinned by a bundle part, from the facts alone (dis_spin.c): `ra28` is a name of the regfile-A write
 * table only, so every way to read the mul destination binds ws = 1; an I/O register (`recip`, `tmu_noswap`) is
 * a name of both tables, read with ws = 0 by the regfile-B alternative, so nothing is shown. */
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
