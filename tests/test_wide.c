/* tests/desc/wide.mdl, a second instruction set shaped as the Tegra vertex processor and the Utgard GP are and the
 * QPU is not: a 128-bit word, a pc counting instructions (pc_step 1), idle ops that are not called `nop`.  Its
 * generated backend, built -Werror like a target's, through the same descriptor (runtime/target.h):
 *  - the simulator fetches instruction pc / pc_step (nwords words each), whatever the word size and pc_step;
 *  - decode then encode gives back every bit of random words; assemble then disassemble reads back. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsr.h"
#include "wide.h"

extern const struct tsr_target wide_target;

/* Assembles text with the generated assembler into *w (128-bit words); asserts it assembles. */
static void assemble(const char *text, struct tsr_words *w)
{
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    tsr_words_init(w, 128);
    int rc = wide_target.assemble("t.s", text, strlen(text), w, &d);
    cr_assert_eq(rc, 0, "%s: %u errors, the first: %s", text, d.errors, d.count ? d.entries[0].text : "");
    tsr_diag_fini(&d);
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
