/* tests/desc/wide.mdl, a second instruction set shaped as the Tegra vertex processor and the Utgard GP are and the
 * QPU is not: a 128-bit word, a pc counting instructions (pc_step 1), idle ops that are not called `nop`.  Its
 * generated backend, built -Werror like a target's, through the same descriptor (runtime/target.h):
 *  - the simulator fetches instruction pc / pc_step (nwords words each), whatever the word size and pc_step;
 *  - the semantics that made a second target's generated simulator fail -Werror (issue 12: && and || of 1-bit
 *    fields and comparisons, float compares of lets in a lane loop, operands reading registers at a field's index,
 *    a slot output kept uniform by some ops and varying or inlined by others) compute what the description says;
 *  - decode then encode gives back every bit of random words; a program's disassembly assembles back to it. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pack/pack.h"
#include "support_asm.h"
#include "tsr.h"
#include "wide.h"

extern const struct tsr_target wide_target;

/* Assembles text into *w (support_asm.h); asserts it assembles. */
static void assemble(const char *text, struct tsr_words *w)
{
    test_assemble(&wide_target, text, w);
}

/* A program whose pc counts instructions: the simulator runs instruction pc (words 4 * pc ..), not the words at
 * byte pc / 4, and a jump to instruction 4 skips instruction 3. */
Test(wide, sim_fetches_by_pc_step)
{
    cr_assert_eq(wide_target.pc_step, 1u);
    cr_assert_eq(wide_target.nwords, 4u);
    struct tsr_words w;
    assemble("    li r1, 5\n"
             "    li r2, 7; mv r3, r1\n"
             "    jmp there\n"
             "    li r1, 100\n"
             "there:\n"
             "    add r4, r1, r2\n"
             "    stop\n", &w);
    cr_assert_eq(w.count, 6u);
    struct wide_sim S;
    wide_sim_init(&S);
    int rc = wide_sim_run(&S, w.w, w.count * 4, 100);
    cr_expect_eq(rc, TSR_SIM_HALTED, "rc %d: %s", rc, S.core.msg);
    cr_expect_eq(S.r[1], 5u);
    cr_expect_eq(S.r[2], 7u);
    cr_expect_eq(S.r[3], 5u);
    cr_expect_eq(S.r[4], 12u);
    cr_expect_eq(S.pc, 6u, "stop (instruction 5) ends the run with pc at the next instruction: pc %u", S.pc);
    /* a jump past the program's end is reported with the pc, in instructions */
    wide_sim_reset(&S);
    tsr_words_free(&w);
    assemble("    jmp 9\n    pass\n", &w);
    rc = wide_sim_run(&S, w.w, w.count * 4, 100);
    cr_expect_eq(rc, TSR_SIM_ERROR);
    cr_expect(strstr(S.core.msg, "pc 0x00000009 is outside the program (8 words)"), "%s", S.core.msg);
    wide_sim_fini(&S);
    tsr_words_free(&w);
}

/* A small program through both slots and the vector ops: the slot commits (r[d] = result, flag = carry), an
 * output varying in one op (vsum: lane 0 reaches r[d]) and uniform in the others, && and || in the semantics. */
Test(wide, sim_computes_the_semantics)
{
    const char *src = "    li r1, 5\n"
                      "    li r2, 7; mv r3, r1\n"
                      "    add r4, r1, r2\n"
                      "    setf.p r1, r2\n"          /* carry = 5 < 7 && p: flag = 1 */
                      "    sel r5, r1, r2\n"         /* flag != 0: r5 = r1 */
                      "    vmax v1, i:3, i:3\n"      /* v1 = 3 + lane */
                      "    vsum r6, v1\n"            /* r6 = lane 0 of v1 + elem = 3 */
                      "    vany r7, v1; mvc.p r2, r4\n"   /* r7 = any(v1 != 0 && vf == 0) = 1; r2 = r4 */
                      "    pick.n r1, r4\n"          /* n: x = r4 + 1 = 13, r1 = x + flag = 14 */
                      "    stop\n";
    struct tsr_words w;
    assemble(src, &w);
    struct wide_sim S;
    wide_sim_init(&S);
    int rc = wide_sim_run(&S, w.w, w.count * 4, 100);
    cr_assert_eq(rc, TSR_SIM_HALTED, "rc %d: %s", rc, S.core.msg);
    const uint32_t want[8] = { 0, 14, 12, 5, 12, 5, 3, 1 };
    for (int i = 0; i < 8; i++)
        cr_expect_eq(S.r[i], want[i], "r%d = %u, expected %u", i, S.r[i], want[i]);
    cr_expect_eq(S.flag, 1u);
    for (int l = 0; l < 4; l++)
        cr_expect_eq(S.v[1][l], 3u + (uint32_t)l, "v1 lane %d", l);
    /* the disassembly assembles back to the same words */
    struct tsr_buf text = { 0 };
    cr_assert_eq(wide_target.disasm_program(w.w, w.count, 0, &text), 0);
    struct tsr_words back;
    assemble(text.data, &back);
    cr_expect_eq(back.count, w.count);
    cr_expect_eq(memcmp(back.w, w.w, w.count * 16), 0, "disassembly:\n%s", text.data);
    tsr_buf_free(&text);
    tsr_words_free(&back);
    wide_sim_fini(&S);
    tsr_words_free(&w);
}

/* Decode then encode gives back all 128 bits of 100,000 random words (every format, raw words included). */
Test(wide, decode_encode_round_trip)
{
    uint64_t x = 0x9e3779b97f4a7c15u;
    unsigned char inst[4096];
    cr_assert(wide_target.inst_size <= sizeof inst);
    unsigned formats[3] = { 0 };
    for (int k = 0; k < 100000; k++) {
        uint32_t w[4], back[4];
        for (int i = 0; i < 4; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            w[i] = (uint32_t)(x >> 11);
        }
        int rc = wide_target.decode(w, inst);
        unsigned f = wide_target.inst_format(inst);
        formats[f < 2 ? f : 2]++;
        cr_assert(rc == 0 || f == TSR_NO_FORMAT);
        memset(back, 0xa5, sizeof back);
        cr_assert_eq(wide_target.encode(inst, back), 0);
        cr_assert_eq(memcmp(w, back, sizeof w), 0, "word %d: %08x %08x %08x %08x -> %08x %08x %08x %08x", k, w[3], w[2],
                     w[1], w[0], back[3], back[2], back[1], back[0]);
    }
    cr_expect(formats[0] > 0 && formats[1] > 0, "formats decoded: %u %u", formats[0], formats[1]);
}

/* A number hole followed by `.` and a character that is neither a digit nor a name's (`v{d}.{wm:msk}` printing
 * `v2.****`): the reader takes `2` and leaves `.` to the template (issue 12: it read the float `2.`), so the
 * assembler reads it and every mask's disassembly reads back without field overrides. */
Test(wide, number_hole_then_dot)
{
    struct tsr_words w;
    assemble("    vmsk v2.****, v1\n    vmsk v3.x*z*, v1\n    vmsk v7.xyzw, v1\n", &w);
    cr_assert_eq(w.count, 3u);
    unsigned char inst[4096];
    const unsigned want_d[3] = { 2, 3, 7 }, want_m[3] = { 0, 10, 15 };
    unsigned fd = ~0u, fm = ~0u;
    for (unsigned f = 0; f < wide_target.nfields; f++) {
        if (!strcmp(wide_target.field_names[f], "d"))
            fd = f;
        if (!strcmp(wide_target.field_names[f], "msk"))
            fm = f;
    }
    cr_assert(fd != ~0u && fm != ~0u);
    for (unsigned i = 0; i < 3; i++) {
        cr_assert_eq(wide_target.decode(w.w + 4 * i, inst), 0);
        cr_expect_eq(wide_target.inst_field(inst, fd), want_d[i], "instruction %u: d", i);
        cr_expect_eq(wide_target.inst_field(inst, fm), want_m[i], "instruction %u: msk", i);
    }
    for (unsigned m = 0; m < 16; m++) {
        cr_assert_eq(wide_target.inst_set_field == NULL, false);
        wide_target.inst_set_field(inst, fm, m);
        uint32_t ww[4];
        cr_assert_eq(wide_target.encode(inst, ww), 0);
        struct tsr_buf text = { 0 };
        wide_target.disasm(ww, 0, &text);
        cr_expect(!strchr(text.data, '{') && strncmp(text.data, ".word", 5), "mask %u: %s", m, text.data);
        struct tsr_words back;
        assemble(text.data, &back);
        cr_expect_eq(memcmp(back.w, ww, sizeof ww), 0, "mask %u: %s", m, text.data);
        tsr_words_free(&back);
        tsr_buf_free(&text);
    }
    tsr_words_free(&w);
}

/* An instruction with more events than the validator keeps (72 register reads, TSR_V_MAXEV 64) is reported as the
 * violation "limit events", never checked on what is left in silence; one with fewer is not. */
Test(wide, validator_reports_dropped_events)
{
    struct tsr_words w;
    assemble("    add r1, r2, r3\n    sum72 r1\n    stop\n", &w);
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    int rc = wide_target.validate(w.w, w.count, 0, &d, "t.s");
    cr_expect_eq(rc, -1);
    cr_assert_eq(d.errors, 1u, "%u errors", d.errors);
    cr_expect(strstr(d.entries[0].text, "t.s: error: 0x00000001: limit events: more than 64 events in one "
                                        "instruction"), "%s", d.entries[0].text);
    tsr_diag_fini(&d);
    tsr_words_free(&w);
    assemble("    add r1, r2, r3\n    stop\n", &w);
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    cr_expect_eq(wide_target.validate(w.w, w.count, 0, &d, "t.s"), 0);
    cr_expect_eq(d.errors, 0u);
    tsr_diag_fini(&d);
    tsr_words_free(&w);
}

/* The packer on a target whose idle ops are not called `nop` (wide's `pass` and `hold` carry the attribute `nop`,
 * docs/mdl.md X12): single operations are joined into bundles of both slots, the output assembles and computes
 * what the input computes, and its unbundled form packs again to as many bundles. */
Test(wide, packer_idle_ops_from_the_description)
{
    const char *src = "    li r1, 5\n"
                      "    li r2, 7\n"
                      "    mv r3, r1\n"
                      "    add r4, r1, r2\n"
                      "    mvc.p r5, r2\n"
                      "    stop\n";
    struct tsr_buf out = { 0 };
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    int rc = tsr_pack_text(&wide_target, "ops.s", src, strlen(src), &out, NULL, &d);
    cr_assert_eq(rc, 0, "%u errors, the first: %s", d.errors, d.count ? d.entries[0].text : "");
    tsr_diag_fini(&d);
    struct tsr_words in, packed;
    assemble(src, &in);
    assemble(out.data, &packed);
    cr_expect_lt(packed.count, in.count, "packed:\n%s", out.data);
    cr_expect(strstr(out.data, "; mv r3, r1") || strstr(out.data, "; mvc.p r5, r2"), "no bundle of both slots:\n%s",
              out.data);
    struct wide_sim a, b;
    wide_sim_init(&a);
    wide_sim_init(&b);
    cr_assert_eq(wide_sim_run(&a, in.w, in.count * 4, 100), TSR_SIM_HALTED, "%s", a.core.msg);
    cr_assert_eq(wide_sim_run(&b, packed.w, packed.count * 4, 100), TSR_SIM_HALTED, "%s\n%s", b.core.msg, out.data);
    cr_expect_eq(memcmp(a.r, b.r, sizeof a.r), 0, "registers differ; packed:\n%s", out.data);
    cr_expect_eq(b.r[3], 5u);
    cr_expect_eq(b.r[5], 7u);
    /* unbundled again: one operation per line, which packs to as many bundles */
    struct tsr_buf ops = { 0 }, again = { 0 };
    unsigned pinned = 0;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    cr_assert_eq(tsr_unbundle(&wide_target, "p.s", packed.w, NULL, packed.count, 0, &ops, &pinned, &d), 0,
                 "%s", d.count ? d.entries[0].text : "");
    cr_assert_eq(tsr_pack_text(&wide_target, "ops2.s", ops.data, ops.len, &again, NULL, &d), 0, "%s",
                 d.count ? d.entries[0].text : "");
    tsr_diag_fini(&d);
    struct tsr_words w2;
    assemble(again.data, &w2);
    cr_expect_eq(w2.count, packed.count, "unbundled:\n%s\nrepacked:\n%s", ops.data, again.data);
    wide_sim_fini(&a);
    wide_sim_fini(&b);
    tsr_words_free(&in);
    tsr_words_free(&packed);
    tsr_words_free(&w2);
    tsr_buf_free(&out);
    tsr_buf_free(&ops);
    tsr_buf_free(&again);
}

/* Instructions wider than the packer takes (TSR_PACK_MAX_NWORDS words: 256 bits) are an error at the call, never
 * truncated: wide's descriptor with its word claimed to be 288 bits. */
Test(wide, packer_word_limit_is_an_error)
{
    struct tsr_target big = wide_target;
    big.word_bits = 32 * (TSR_PACK_MAX_NWORDS + 1);
    big.nwords = TSR_PACK_MAX_NWORDS + 1;
    const char *src = "    li r1, 5\n    stop\n";
    struct tsr_buf out = { 0 };
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    cr_expect_eq(tsr_pack_text(&big, "ops.s", src, strlen(src), &out, NULL, &d), -1);
    cr_expect_eq(out.len, 0u, "nothing appended on error");
    uint32_t w[2 * (TSR_PACK_MAX_NWORDS + 1)] = { 0 };
    unsigned pinned = 0;
    cr_expect_eq(tsr_unbundle(&big, "p.hex", w, NULL, 2, 0, &out, &pinned, &d), -1);
    cr_assert_eq(d.count, 2u);
    for (int i = 0; i < 2; i++)
        cr_expect(strstr(d.entries[i].text, ": error: target 'wide' has 288-bit instructions: the packer takes at most "
                                            "256"), "%s", d.entries[i].text);
    tsr_diag_fini(&d);
    tsr_buf_free(&out);
}
