/* The packer on a large straight-line block (issue 11 point 6; docs/pack.md "Dependences", "Limits"): a
 * block of 8,000 generated operations (bench/packgen.h, the block bench/bench_packbig.c times) packed at
 * effort `list` assembles, breaks no rule of the description (tsr_validate) and computes what its operations
 * one per bundle compute (the generated simulator, from the same pseudo-random registers). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "qpu.h"
#include "qpu_hooks.h"
#include "qpu_periph.h"
#include "tsr.h"
#include "pack/pack.h"
#include "validate/validate.h"
#include "../bench/packgen.h"

#define MEM_BYTES 0x10000u
#define UNIF_ADDR 0x1000u

/* The registers the generated operations read and write (16 lanes each). */
struct regs { uint32_t acc[6][16], ra[32][16], rb[32][16]; };

/* Runs the program text on one simulated QPU from the registers *in to its thread end; the registers after
 * it into *out. */
static void run(const char *text, const struct regs *in, struct regs *out)
{
    struct tsr_words w;
    tsr_words_init(&w, 64);
    cr_assert_eq(qpu_target.assemble("run.s", text, strlen(text), &w, NULL), 0, "does not assemble");
    struct qpu_sim *sim = malloc(sizeof *sim);
    struct qpu_machine *m = qpu_machine_new(MEM_BYTES, 1);
    cr_assert(sim && m);
    struct qpu_hooks_ctx ctx;
    qpu_sim_init(sim);
    qpu_hooks_attach(sim, &ctx, m, 0, UNIF_ADDR);
    memcpy(sim->acc, in->acc, sizeof in->acc);
    memcpy(sim->ra, in->ra, sizeof in->ra);
    memcpy(sim->rb, in->rb, sizeof in->rb);
    int rc = TSR_SIM_OK;
    for (size_t steps = 0; steps < 4 * w.count + 16 && (rc == TSR_SIM_OK || rc == TSR_SIM_STALL); steps++)
        rc = qpu_sim_step(sim, w.w, w.count * QPU_NWORDS);
    cr_assert_eq(rc, TSR_SIM_HALTED, "did not reach its thread end: %s", rc < 0 ? sim->core.msg : "");
    memcpy(out->acc, sim->acc, sizeof out->acc);
    memcpy(out->ra, sim->ra, sizeof out->ra);
    memcpy(out->rb, sim->rb, sizeof out->rb);
    qpu_sim_fini(sim);
    qpu_machine_free(m);
    free(sim);
    tsr_words_free(&w);
}

Test(pack_big, list_scheduled_block_of_8000_operations_validates_and_means_the_same, .timeout = 300)
{
    struct tsr_buf ops = { 0 }, src = { 0 }, ref = { 0 }, out = { 0 };
    packgen(8000, 1, &ops);
    /* the packer's input: the operations and a thread end; the reference: each operation alone in a bundle
     * followed by 3 nops (more than any latency of the description), then the thread end and its 2 delay
     * slots */
    tsr_buf_append(&src, ops.data, ops.len);
    tsr_buf_puts(&src, "    thrend\n");
    for (const char *p = ops.data; *p;) {
        const char *e = strchr(p, '\n');
        tsr_buf_append(&ref, p, (size_t)(e - p));
        tsr_buf_puts(&ref, "\n    nop\n    nop\n    nop\n");
        p = e + 1;
    }
    tsr_buf_puts(&ref, "    nop; nop; thrend\n    nop\n    nop\n");

    struct tsr_pack_stats st;
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    cr_assert_eq(tsr_pack_text_effort(&qpu_target, "big.s", src.data, src.len, TSR_PACK_LIST, &out, &st, &d), 0,
                 "%s", d.count ? d.entries[0].text : "");
    cr_expect_eq(st.nblocks, 1);
    cr_expect_eq(st.nops, 8001);
    cr_expect_leq(st.blocks[0].basic, st.nbundles);
    cr_expect_lt(st.nbundles, 8001u, "no operation shared a bundle");

    struct tsr_words w;
    tsr_words_init(&w, 64);
    cr_assert_eq(qpu_target.assemble("out.s", out.data, out.len, &w, NULL), 0);
    cr_expect_eq(w.count, st.nbundles);
    cr_expect_eq(tsr_validate(qpu_target.vdesc, w.w, w.count, 0, NULL, NULL), 0, "the packed block breaks a rule");

    struct regs *in = malloc(sizeof *in), *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    uint64_t s = 12345;
    for (size_t i = 0; i < sizeof *in / 4; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        ((uint32_t *)in)[i] = (uint32_t)(s >> 32);
    }
    run(ref.data, in, a);
    run(out.data, in, b);
    for (int r = 0; r < 6; r++)
        cr_expect_arr_eq(a->acc[r], b->acc[r], sizeof a->acc[r], "r%d differs", r);
    for (int r = 0; r < 32; r++) {
        cr_expect_arr_eq(a->ra[r], b->ra[r], sizeof a->ra[r], "ra%d differs", r);
        cr_expect_arr_eq(a->rb[r], b->rb[r], sizeof a->rb[r], "rb%d differs", r);
    }
    /* the check can fail: the block changes registers (the initial state is not a fixed point) */
    cr_expect(memcmp(in, a, sizeof *in) != 0);
    free(in);
    free(a);
    free(b);
    tsr_words_free(&w);
    tsr_pack_stats_free(&st);
    tsr_diag_fini(&d);
    tsr_buf_free(&ops);
    tsr_buf_free(&src);
    tsr_buf_free(&ref);
    tsr_buf_free(&out);
}
