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
