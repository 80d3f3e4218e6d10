/* tests/desc/twin.mdl: a wide op (docs/mdl.md "Wide ops", X7) `mac : a + b` that takes two ALU slots, through every
 * part of its generated backend and the runtime:
 *  - the decoder gives slot b mac's span op when slot a holds mac, whatever b's bits say (opb 15 decodes to no op of
 *    b alone); decode then encode gives the word back;
 *  - the assembler puts the span op in b (not b's default `nopb`, whose opb 0 would contradict mac's 15), refuses
 *    an op of b beside mac, and the disassembly prints mac once and assembles back;
 *  - the simulator and the evaluator run nothing for b (not b's commit, which would write r[db]);
 *  - the validator sees mac's op event in b (the description's rule mac_jump names `op mac in b`);
 *  - the packer never puts an op of a or b beside mac, and its output computes what its input does. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval.h"
#include "model.h"
#include "pack/pack.h"
#include "support_asm.h"
#include "tsr.h"
#include "twin.h"

extern const struct tsr_target twin_target;

/* Assembles text into *w (support_asm.h); asserts it assembles. */
static void assemble(const char *text, struct tsr_words *w)
{
    test_assemble(&twin_target, text, w);
}

/* The index of the op named name in slot slot (asserts there is one). */
static unsigned op_in(const char *name, const char *slot)
{
    for (unsigned i = 0; i < twin_target.nops; i++)
        if (!strcmp(twin_target.op_names[i], name) && !strcmp(twin_target.slot_names[twin_target.op_slot[i]], slot))
            return i;
    cr_assert_fail("no op %s in slot %s", name, slot);
    return 0;
}

Test(twin, decode_marks_the_other_slot_taken)
{
    struct tsr_words w;
    assemble("    mac r1, r2, r3, r4\n", &w);
    cr_assert_eq(w.count, 1u);
    /* opa 2, da 1, sa 2, opb 15, db 3, sb 4, opc 0 */
    cr_expect_eq(w.w[0], 0x212f3400u, "0x%08x", w.w[0]);
    struct twin_inst in;
    cr_assert_eq(twin_decode(w.w, &in), 0);
    cr_expect_eq(in.op[TWIN_SLOT_A], op_in("mac", "a"));
    cr_expect_eq(in.op[TWIN_SLOT_B], op_in("mac", "b"), "slot b: %s", twin_target.op_names[in.op[TWIN_SLOT_B]]);
    cr_expect_eq(in.op[TWIN_SLOT_C], op_in("nopc", "c"));
    uint32_t back;
    twin_encode(&in, &back);
    cr_expect_eq(back, w.w[0]);
    /* the same bits of b without mac in a: no op of b has opb 15 */
    uint32_t x = (w.w[0] & 0x0fffffffu) | 0x10000000u;   /* opa 1: inc */
    cr_assert_eq(twin_decode(&x, &in), 0);
    cr_expect_eq(in.op[TWIN_SLOT_A], op_in("inc", "a"));
    cr_expect_eq(in.op[TWIN_SLOT_B], TWIN_NO_OP);
    /* every word: decode then encode is exact, and b holds mac's span op exactly when a holds mac */
    for (uint32_t i = 0; i < 200000; i++) {
        uint32_t v = i * 2654435761u;
        cr_assert_eq(twin_decode(&v, &in), 0);
        twin_encode(&in, &back);
        cr_assert_eq(back, v, "0x%08x", v);
        cr_assert_eq(in.op[TWIN_SLOT_A] == op_in("mac", "a"), in.op[TWIN_SLOT_B] == op_in("mac", "b"), "0x%08x", v);
    }
    tsr_words_free(&w);
}

Test(twin, assembler_and_disassembler)
{
    char err[256];
    uint32_t w;
    cr_expect_eq(twin_target.assemble_one("mac r1, r2, r3, r4; stop", 24, 0, &w, err, sizeof err), 0, "%s", err);
    cr_expect_eq(w, 0x212f3480u, "0x%08x", w);
    const char *bad = "mac r1, r2, r3, r4; mov r5, r6";
    cr_expect_eq(twin_target.assemble_one(bad, strlen(bad), 0, &w, err, sizeof err), -1);
    cr_expect(strstr(err, "slot 'b' is taken by the wide op 'mac'"), "%s", err);
    const char *ok = "inc r5, r6; mov r7, r8";
    cr_expect_eq(twin_target.assemble_one(ok, strlen(ok), 0, &w, err, sizeof err), 0, "%s", err);
    /* the disassembly prints mac once and reads back */
    struct tsr_words p;
    assemble("    mac r1, r2, r3, r4; stop\n    inc r1, r1; dbl r2, r3\n    mac r15, r0, r7, r9\n", &p);
    struct tsr_buf out = { 0 };
    cr_assert_eq(twin_target.disasm_program(p.w, p.count, 0, &out), 0);
    cr_expect(strstr(out.data, "    mac r1, r2, r3, r4; stop\n    inc r1, r1; dbl r2, r3\n    mac r15, r0, r7, r9\n"),
              "%s", out.data);
    struct tsr_words q;
    assemble(out.data, &q);
    cr_expect_eq(q.count, p.count);
    cr_expect_eq(memcmp(q.w, p.w, p.count * sizeof *p.w), 0, "%s", out.data);
    free(out.data);
    tsr_words_free(&p);
    tsr_words_free(&q);
}

/* mac computes r[da] = r[sa] * r[db] + r[sb]; slot b's commit (r[db] = out when opb != 0) does not run. */
Test(twin, simulator_and_evaluator_run_nothing_in_the_taken_slot)
{
    struct tsr_words w;
    assemble("    mac r1, r2, r3, r4\n    inc r5, r1; dbl r6, r3\n    stop\n", &w);
    struct twin_sim S;
    twin_sim_init(&S);
    S.r[2] = 3;
    S.r[3] = 5;
    S.r[4] = 7;
    cr_assert_eq(twin_sim_run(&S, w.w, w.count, 100), TSR_SIM_HALTED, "%s", S.core.msg);
    cr_expect_eq(S.r[1], 22u);
    cr_expect_eq(S.r[3], 5u, "slot b's commit ran for the wide op: r3 = %u", S.r[3]);
    cr_expect_eq(S.r[5], 23u);
    cr_expect_eq(S.r[6], 10u);
    twin_sim_fini(&S);

    /* the evaluator walks the model: the same */
    char path[4200];
    const char *root = getenv("TESSERA_ROOT");
    snprintf(path, sizeof path, "%s/tests/desc/twin.mdl", root && *root ? root : ".");
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    struct mdl_model *m = mdl_load(path, &d);
    cr_assert(m, "%s", d.count ? d.entries[0].text : path);
    tsr_diag_fini(&d);
    struct mdl_evstate st;
    cr_assert_eq(mdl_evstate_init(&st, m), 0);
    int r = -1;
    for (int i = 0; i < m->nstates; i++)
        if (!strcmp(m->states[i].name, "r"))
            r = i;
    cr_assert_geq(r, 0);
    mdl_evstate_elem(&st, r, 2)[0] = 3;
    mdl_evstate_elem(&st, r, 3)[0] = 5;
    mdl_evstate_elem(&st, r, 4)[0] = 7;
    struct twin_inst in;
    cr_assert_eq(twin_decode(&w.w[0], &in), 0);
    uint64_t f[TWIN_NFIELDS];
    int ops[TWIN_NSLOTS];
    for (int i = 0; i < TWIN_NFIELDS; i++)
        f[i] = in.f[i];
    for (int i = 0; i < TWIN_NSLOTS; i++)
        ops[i] = in.op[i] == TWIN_NO_OP ? -1 : (int)in.op[i];
    cr_expect_eq(mdl_eval_bundle(m, &st, f, in.format, ops), TSR_SIM_OK, "%s", st.ctl.msg);
    cr_expect_eq(mdl_evstate_elem(&st, r, 1)[0], 22u);
    cr_expect_eq(mdl_evstate_elem(&st, r, 3)[0], 5u);
    mdl_evstate_fini(&st);
    mdl_model_free(m);
    tsr_words_free(&w);
}

/* The rule mac_jump (`op mac in b -> jump at 1..1`) sees mac in the slot it takes. */
Test(twin, validator_sees_the_op_in_every_slot_it_takes)
{
    struct tsr_words w;
    assemble("    mac r1, r2, r3, r4\n    jmp 0\n", &w);
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    cr_expect_eq(twin_target.validate(w.w, w.count, 0, &d, "t.s"), -1);
    cr_assert_eq(d.errors, 1u, "%u errors", d.errors);
    cr_expect(strstr(d.entries[0].text, "rule mac_jump"), "%s", d.entries[0].text);
    tsr_diag_fini(&d);
    tsr_words_free(&w);
    assemble("    inc r1, r2; mov r3, r4\n    jmp 0\n", &w);
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    cr_expect_eq(twin_target.validate(w.w, w.count, 0, &d, "t.s"), 0, "%s", d.count ? d.entries[0].text : "");
    tsr_diag_fini(&d);
    tsr_words_free(&w);
}

/* Three ops of b and one of a beside mac: mac needs a and b alone, so 4 bundles at least (b's ops one a bundle,
 * mac's own); the packer's lower bound says so, no bundle has mac beside another ALU op, and the result computes
 * what the input does. */
Test(twin, packer_gives_the_wide_op_all_its_slots)
{
    const char *src = "    mac r1, r2, r3, r4\n"
                      "    inc r5, r6\n"
                      "    mov r7, r8\n"
                      "    dbl r9, r10\n"
                      "    mov r11, r12\n"
                      "    stop\n";
    struct tsr_buf out = { 0 };
    struct tsr_pack_stats st;
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    int rc = tsr_pack_text(&twin_target, "ops.s", src, strlen(src), &out, &st, &d);
    cr_assert_eq(rc, 0, "%u errors, the first: %s", d.errors, d.count ? d.entries[0].text : "");
    tsr_diag_fini(&d);
    cr_expect_eq(st.lower, 4u, "lower bound %u\n%s", st.lower, out.data);
    cr_expect_eq(st.nbundles, 4u, "%s", out.data);
    for (const char *l = out.data; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        const char *e = strchr(l, '\n');
        size_t n = e ? (size_t)(e - l) : strlen(l);
        char line[200];
        snprintf(line, sizeof line, "%.*s", (int)(n < 199 ? n : 199), l);
        if (strstr(line, "mac"))
            cr_expect(!strstr(line, "inc") && !strstr(line, "mov") && !strstr(line, "dbl"), "%s", out.data);
    }
    tsr_pack_stats_free(&st);
    struct tsr_words in, packed;
    assemble(src, &in);
    assemble(out.data, &packed);
    struct twin_sim a, b;
    twin_sim_init(&a);
    twin_sim_init(&b);
    for (int i = 0; i < 16; i++)
        a.r[i] = b.r[i] = 3u * (unsigned)i + 1u;
    cr_assert_eq(twin_sim_run(&a, in.w, in.count, 100), TSR_SIM_HALTED, "%s", a.core.msg);
    cr_assert_eq(twin_sim_run(&b, packed.w, packed.count, 100), TSR_SIM_HALTED, "%s\n%s", b.core.msg, out.data);
    cr_expect_eq(memcmp(a.r, b.r, sizeof a.r), 0, "registers differ; packed:\n%s", out.data);
    twin_sim_fini(&a);
    twin_sim_fini(&b);
    free(out.data);
    tsr_words_free(&in);
    tsr_words_free(&packed);
}
