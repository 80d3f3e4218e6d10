/* tests/desc/blockend.mdl: the rule pattern term `end`, the last instruction of a basic block (docs/mdl.md "Event
 * patterns and `event`", docs/validate.md "Control flow"), through the description's rule
 * `st_end: write r -> end at 0..1` (no register store in a block's last two instructions, as utgard.mdl's
 * reg_store_end):
 *  - tsr_validate: a store in straight-line code, before a label, before a branch without delay slots (and in its
 *    bundle), in the delay slots of a branch with two and of one with one, before and in a halt's bundle, in a
 *    halt's delay slot, at the program's end: each violation is reported once, at the block's last instruction,
 *    naming the store; the valid placements (two or more before the end, a store before a branch's delay slots)
 *    are silent;
 *  - the stream check sees the delay-slot and halt ends, the program's end only when told (the simulator tells
 *    it), and not the end before a label (a stream does not know the program);
 *  - the packer keeps stores out of its blocks' last two bundles (a block without a branch gets empty bundles
 *    after it, a branch moves later), so its output validates. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blockend.h"
#include "pack/pack.h"
#include "support_asm.h"
#include "tsr.h"

extern const struct tsr_target blockend_target;

/* Assembles text into *w (support_asm.h); asserts it assembles. */
static void assemble(const char *text, struct tsr_words *w)
{
    test_assemble(&blockend_target, text, w);
}

/* The violations, as "AT<OTHER" (instruction indices: pc_step is 1) separated by blanks, in report order; every
 * one must be st_end's.  text: the first violation's text. */
struct found { char list[256]; char text[300]; int n; bool other_rule; };

static void collect(void *ctx, const struct tsr_vviol *v)
{
    struct found *f = ctx;
    size_t len = strlen(f->list);
    snprintf(f->list + len, sizeof f->list - len, "%s%u<%u", len ? " " : "", (unsigned)v->pc, (unsigned)v->other_pc);
    if (!f->n++)
        snprintf(f->text, sizeof f->text, "%s", v->text);
    f->other_rule |= strcmp(v->name, "st_end") != 0;
}

/* The program check of text: its violations (asserts they are all st_end's). */
static void check(const char *text, const char *want)
{
    struct tsr_words w;
    assemble(text, &w);
    struct found f = { "", "", 0, false };
    size_t n = tsr_validate(&blockend_vdesc, w.w, w.count, 0, collect, &f);
    cr_expect_eq(n, (size_t)f.n);
    cr_expect(!f.other_rule, "%s", f.list);
    cr_expect_str_eq(f.list, want, "%s", text);
    tsr_words_free(&w);
}

Test(blockend, straight_line)
{
    /* the program's last instruction ends its only block */
    check("    mov r1\n    st r2\n    inc\n    inc\n", "");            /* 2 before the end */
    check("    mov r1\n    inc\n    st r2\n    inc\n", "3<2");         /* 1 before */
    check("    mov r1\n    inc\n    inc\n    st r2\n", "3<3");         /* the last */
    check("    st r2\n", "0<0");                                        /* a program of one store */
}

Test(blockend, report_text)
{
    struct tsr_words w;
    assemble("    mov r1\n    st r2\n    inc\n", &w);
    struct found f = { "", "", 0, false };
    cr_expect_eq(tsr_validate(&blockend_vdesc, w.w, w.count, 0, collect, &f), 1u);
    cr_expect_str_eq(f.text, "ends a block; the instruction 1 before (0x00000001) writes r[2] (forbidden 0..1 "
                     "instructions apart)");
    tsr_words_free(&w);
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    assemble("    mov r1\n    st r2\n", &w);
    cr_expect_eq(blockend_target.validate(w.w, w.count, 0, &d, "t.s"), -1);
    cr_assert_eq(d.errors, 1u);
    cr_expect(strstr(d.entries[0].text, "0x00000001: rule st_end: writes r[2] and ends a block in one instruction"),
              "%s", d.entries[0].text);
    tsr_diag_fini(&d);
    tsr_words_free(&w);
}

Test(blockend, before_a_label)
{
    /* 3 is a branch target: 2 ends a block, and so does the branch 6 */
    check("    mov r1\n    st r2\n    inc\nL:  inc\n    inc\n    inc\n    bz L\n    inc\n    inc\n    inc\n", "2<1");
    check("    st r2\n    mov r1\n    inc\nL:  inc\n    inc\n    inc\n    bz L\n    inc\n    inc\n    inc\n", "");
    /* a label no branch names is no block boundary for the validator */
    check("    mov r1\n    st r2\n    inc\nL:  inc\n    inc\n    inc\n", "");
}

Test(blockend, before_a_branch_without_delay_slots)
{
    /* jmp ends its block; a store beside bz (conditional, no delay slot) is in the block's last instruction */
    check("L:  mov r1\n    inc\n    st r2\n    jmp L\n    inc\n    st r3; bz L\n    inc\n    inc\n    inc\n",
          "3<2 5<5");
    check("L:  mov r1\n    st r2\n    inc\n    jmp L\n", "");
    /* a block of one instruction after it (a branch target, the program's last): the store beside the jmp is also
     * 1 before that block's end on the path through the branch, so it is reported there too (docs/mdl.md) */
    check("    mov r1\n    st r2; jmp L\nL:  inc\n", "1<1 2<1");
}

Test(blockend, in_delay_slots)
{
    /* jd (2 delay slots) ends its block at its second delay slot, bzd (1) at its first; the branch itself does
     * not end it: a store before jd is 3 before the end */
    check("L:  mov r1\n"
          "    st r2\n"          /* 1: silent */
          "    jd L\n"
          "    inc\n"
          "    inc\n"            /* 4: end */
          "    st r3\n"          /* 5: silent (2 before 7) */
          "    bzd L\n"
          "    inc\n"            /* 7: end */
          "    jd L\n"
          "    st r4\n"          /* 9: 1 before the end 10 */
          "    inc\n"            /* 10: end */
          "    inc\n"
          "    bzd L\n"
          "    st r5\n"          /* 13: the end */
          "    inc\n"
          "    inc\n",           /* 15: the program's end */
          "10<9 13<13");
}

Test(blockend, halts)
{
    check("    mov r1\n    st r2\n    stop\n", "2<1");
    check("    mov r1\n    st r2; stop\n", "1<1");
    check("    st r2\n    inc\n    stop\n", "");
    check("    mov r1\n    stopd\n    st r2\n", "2<2");      /* its delay slot ends the program */
    check("    st r2\n    stopd\n    inc\n", "");
}

/* ---- the stream check, in issue order -------------------------------------------------------------------- */

/* Steps the instructions of text (in their order) into a stream, the last one marked the program's last when
 * last is set. */
static void stream(const char *text, bool last, const char *want)
{
    struct tsr_words w;
    assemble(text, &w);
    struct found f = { "", "", 0, false };
    struct tsr_vstream *s = tsr_vstream_new(&blockend_vdesc);
    cr_assert(s);
    for (size_t i = 0; i < w.count; i++)
        tsr_vstream_step_last(s, w.w + i, (uint32_t)i, last && i + 1 == w.count, collect, &f);
    cr_expect_str_eq(f.list, want, "%s", text);
    tsr_vstream_free(s);
    tsr_words_free(&w);
}

Test(blockend, stream_sees_delay_slots_halts_and_the_end_it_is_told)
{
    stream("    jd 0\n    st r4\n    inc\n", false, "2<1");
    stream("    bzd 0\n    st r4\n    inc\n", false, "1<1");
    stream("    mov r1\n    st r2; jmp 0\n", false, "1<1");
    stream("    mov r1\n    st r2\n    stop\n", false, "2<1");
    stream("    mov r1\n    st r2\n", false, "");          /* the program's end, not told */
    stream("    mov r1\n    st r2\n", true, "1<1");
    stream("    mov r1\n    st r2\nL:  inc\n    bz L\n", false, "");   /* not before a label */
}

Test(blockend, simulator_checks_the_program_end)
{
    struct tsr_words w;
    assemble("    mov r1\n    inc\n    st r2\n", &w);   /* runs off its end: fall_off halt */
    struct blockend_sim S;
    blockend_sim_init(&S);
    S.core.flags |= TSR_SIM_F_RULES | TSR_SIM_F_HAZARD_WARN;
    cr_expect_eq(blockend_sim_run(&S, w.w, w.count, 100), TSR_SIM_HALTED, "%s", S.core.msg);
    cr_expect_eq(S.core.nhazards, 1u);
    cr_expect(strstr(S.core.msg, "rule st_end at 0x00000002"), "%s", S.core.msg);
    blockend_sim_fini(&S);
    tsr_words_free(&w);
    assemble("    mov r1\n    st r2\n    inc\n    inc\n", &w);
    blockend_sim_init(&S);
    S.core.flags |= TSR_SIM_F_RULES | TSR_SIM_F_HAZARD_WARN;
    cr_expect_eq(blockend_sim_run(&S, w.w, w.count, 100), TSR_SIM_HALTED, "%s", S.core.msg);
    cr_expect_eq(S.core.nhazards, 0u, "%s", S.core.msg);
    blockend_sim_fini(&S);
    tsr_words_free(&w);
}

/* ---- the packer ------------------------------------------------------------------------------------------ */

/* Packs src; asserts it packs, and that its output validates; returns the number of bundles. */
static unsigned pack(const char *src, char **text)
{
    struct tsr_buf out = { 0 };
    struct tsr_pack_stats st;
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    int rc = tsr_pack_text(&blockend_target, "ops.s", src, strlen(src), &out, &st, &d);
    cr_assert_eq(rc, 0, "%u errors, the first: %s", d.errors, d.count ? d.entries[0].text : "");
    tsr_diag_fini(&d);
    unsigned nb = st.nbundles;
    tsr_pack_stats_free(&st);
    struct tsr_words w;
    assemble(out.data, &w);
    cr_expect_eq(w.count, nb, "%s", out.data);
    struct found f = { "", "", 0, false };
    cr_expect_eq(tsr_validate(&blockend_vdesc, w.w, w.count, 0, collect, &f), 0u, "%s: %s", f.list, out.data);
    tsr_words_free(&w);
    *text = out.data;
    return nb;
}

Test(blockend, packer_keeps_stores_out_of_block_ends)
{
    char *out;
    /* mov feeds st: st is the last bundle the list scheduler forms, so two empty ones follow */
    cr_expect_eq(pack("    mov r1\n    st r2\n", &out), 4u, "%s", out);
    struct tsr_words a, b;
    assemble("    mov r1\n    st r2\n", &a);
    assemble(out, &b);
    struct blockend_sim x, y;
    blockend_sim_init(&x);
    blockend_sim_init(&y);
    for (int i = 0; i < 8; i++)
        x.r[i] = y.r[i] = 5u * (unsigned)i + 2u;
    cr_expect_eq(blockend_sim_run(&x, a.w, a.count, 100), TSR_SIM_HALTED);
    cr_expect_eq(blockend_sim_run(&y, b.w, b.count, 100), TSR_SIM_HALTED);
    cr_expect_eq(memcmp(x.r, y.r, sizeof x.r), 0, "%s", out);
    cr_expect_eq(y.r[2], 7u);
    blockend_sim_fini(&x);
    blockend_sim_fini(&y);
    tsr_words_free(&a);
    tsr_words_free(&b);
    free(out);
    /* the branch (no delay slot) goes 2 after the store, not beside it */
    cr_expect_eq(pack("L:  mov r1\n    st r2\n    bz L\n", &out), 4u, "%s", out);
    free(out);
    /* a branch with 2 delay slots (in a bundle of its own, docs/pack.md) goes after the store, not before it: the
     * store would be in its first delay slot, 1 before the end (mov; st; jd L; inc; an empty bundle) */
    cr_expect_eq(pack("L:  mov r1\n    st r2\n    inc\n    jd L\n", &out), 5u, "%s", out);
    cr_expect(strstr(out, "st r2\n    jd L\n"), "%s", out);
    free(out);
    /* a block that falls into a label, and a halt */
    pack("    mov r1\n    st r2\nL:  inc\n    st r3\n    bz L\n    mov r4\n    st r5\n    stop\n", &out);
    free(out);
}
