/* The packer (runtime/pack.h): known bundle counts for small programs, the packed output assembles,
 * exact diagnostics, unbundling. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "qpu.h"
#include "tsr.h"
#include "pack.h"
#include "validate.h"

static char *pack(const char *src, unsigned *nb, int *rc, struct tsr_diag *d)
{
    struct tsr_buf out = { 0 };
    struct tsr_pack_stats st;
    *rc = tsr_pack_text(&qpu_target, "t.s", src, strlen(src), &out, &st, d);
    *nb = *rc ? 0 : st.nbundles;
    if (!*rc)
        tsr_pack_stats_free(&st);
    return out.data ? out.data : strdup("");
}

/* Packs src, checks the bundle count and that the output assembles. */
static char *pack_ok(const char *src, unsigned want)
{
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    unsigned nb;
    int rc;
    char *out = pack(src, &nb, &rc, &d);
    cr_assert_eq(rc, 0, "pack failed");
    cr_expect_eq(nb, want, "bundles: %u, want %u:\n%s", nb, want, out);
    struct tsr_words w;
    tsr_words_init(&w, 64);
    cr_assert_eq(qpu_target.assemble("out.s", out, strlen(out), &w, &d), 0, "output does not assemble:\n%s", out);
    cr_expect_eq(w.count, want);
    tsr_words_free(&w);
    tsr_diag_fini(&d);
    return out;
}

Test(pack, independent_add_and_mul_share_a_bundle)
{
    char *o = pack_ok("fadd r0, r1, r2\nfmul r3, r1, r2\n", 1);
    cr_expect(strstr(o, "fadd r0, r1, r2; fmul r3, r1, r2"), "%s", o);
    free(o);
}

Test(pack, mov_goes_to_the_free_alu)
{
    free(pack_ok("mov r0, r1\nmov r2, r3\n", 1));
}

Test(pack, true_dependency_on_an_accumulator_is_one_bundle_apart)
{
    free(pack_ok("fadd r0, r1, r2\nfmul r3, r0, r2\n", 2));
}

Test(pack, regfile_write_needs_a_gap_before_the_read)
{
    /* ra1 written by bundle 0 is readable from bundle 2: one nop is forced */
    char *o = pack_ok("add ra1, r1, r2\nmov r3, ra1\n", 3);
    cr_expect(strstr(o, "    nop\n"), "%s", o);
    free(o);
}

Test(pack, anti_dependency_may_share_a_bundle)
{
    /* the mul reads the old r0 while the add overwrites it */
    free(pack_ok("fmul r3, r0, r2\nfadd r0, r1, r2\n", 1));
}

Test(pack, uniform_reads_keep_their_order)
{
    char *o = pack_ok("mov r0, unif\nmov r1, unif\n", 2);
    cr_expect(strstr(o, "mov r0, unif") < strstr(o, "mov r1, unif"), "%s", o);
    free(o);
}

Test(pack, sfu_result_is_read_three_bundles_later)
{
    free(pack_ok("mov recip, r0\nmov r1, r4\n", 4));
}

Test(pack, branch_delay_slots_are_filled)
{
    /* three independent ops fill the branch's delay slots: 4 bundles, not 7 */
    char *o = pack_ok("loop:\nfadd r0, r0, r1\nfadd r1, r1, r2\nfadd r2, r2, r3\nbrr -, r:loop\n", 4);
    cr_expect(!strncmp(strstr(o, "    "), "    brr -, r:loop", 17), "%s", o);
    free(o);
}

Test(pack, thread_end_has_two_delay_slots)
{
    free(pack_ok("fadd r0, r1, r2\nthrend\n", 3));
}

Test(pack, unknown_operation_is_reported_with_position)
{
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    unsigned nb;
    int rc;
    free(pack("fadd r0, r1, r2\n  fmadd r0, r1, r2\n", &nb, &rc, &d));
    cr_assert_eq(rc, -1);
    cr_assert_geq(d.errors, 1);
    cr_expect(strstr(d.entries[0].text, "t.s:2:3: error: unknown instruction 'fmadd'") != NULL, "%s",
              d.entries[0].text);
    tsr_diag_fini(&d);
}

/* An unbundling error names the file and the source line of the instruction that cannot move (here a
 * branch target inside the branch's own delay slots). */
Test(unbundle, error_names_file_and_line)
{
    struct tsr_words w;
    tsr_words_init(&w, 64);
    const char *src = "nop\nbrr -, r:y\nnop\ny: nop\nnop\nnop; nop; thrend\nnop\nnop\n";
    cr_assert_eq(qpu_target.assemble("u.s", src, strlen(src), &w, NULL), 0);
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    struct tsr_buf out = { 0 };
    unsigned pinned = 0;
    cr_assert_eq(tsr_unbundle_src(&qpu_target, w.w, w.count, 0, "u.s", w.line, &out, &pinned, &d), -1);
    cr_assert_eq(d.count, 1);
    cr_expect_str_eq(d.entries[0].text, "u.s:4: error: instruction 0x8: delay slot 0x18 cannot move before its branch");
    tsr_diag_fini(&d);
    tsr_buf_free(&out);
    tsr_words_free(&w);
}

Test(unbundle, pair_that_exchanges_values_stays_whole)
{
    struct tsr_words w;
    tsr_words_init(&w, 64);
    const char *src = "add r0, r1, r2; mov r1, r0\nfadd r0, r1, r2; fmul r3, r1, r2\n";
    cr_assert_eq(qpu_target.assemble("u.s", src, strlen(src), &w, NULL), 0);
    struct tsr_buf out = { 0 };
    unsigned pinned = 9;
    cr_assert_eq(tsr_unbundle(&qpu_target, w.w, w.count, 0, &out, &pinned, NULL), 0);
    cr_expect_eq(pinned, 1, "%s", out.data);
    cr_expect(strstr(out.data, "    fadd r0, r1, r2\n") || strstr(out.data, "    fmul r3, r1, r2\n    fadd r0, r1, r2\n"), "%s",
              out.data);
    tsr_buf_free(&out);
    tsr_words_free(&w);
}

/* Validates packed text: returns the number of rule violations (and the bundle count in *n). */
static size_t validate_text(const char *text, size_t *n)
{
    struct tsr_words w;
    tsr_words_init(&w, 64);
    cr_assert_eq(qpu_target.assemble("out.s", text, strlen(text), &w, NULL), 0, "does not assemble:\n%s", text);
    size_t v = tsr_validate(qpu_target.vdesc, w.w, w.count, 0, NULL, NULL);
    *n = w.count;
    tsr_words_free(&w);
    return v;
}

Test(pack, operation_that_breaks_a_rule_by_itself_is_reported_with_position)
{
    /* a conditional write to a peripheral (periph_cond) can never be placed legally */
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    unsigned nb;
    int rc;
    char *o = pack("fadd r0, r1, r2\n    mov.ifz t0s, r0\n", &nb, &rc, &d);
    cr_assert_eq(rc, -1);
    cr_assert_geq(d.errors, 1);
    cr_expect(strstr(d.entries[0].text, "t.s:2:5: error: this operation breaks a rule by itself: rule periph_cond") !=
                  NULL, "%s", d.entries[0].text);
    cr_expect_eq(o[0], 0, "output on error: %s", o);
    free(o);
    tsr_diag_fini(&d);
}

Test(pack, latency_carries_into_the_block_control_falls_into)
{
    /* ra1 written in the last bundle of the first block is read first thing in the second: one nop */
    char *o = pack_ok("add ra1, r1, r2\nnext:\nmov r3, ra1\n", 3);
    size_t n;
    cr_expect_eq(validate_text(o, &n), 0, "%s", o);
    free(o);
}

Test(pack, latency_around_a_loop_back_edge_is_mended_at_the_target)
{
    /* the loop's last operation writes ra5, which its first reads: the packer fills the delay slots, and a
     * nop after the label keeps the read two instructions after the write on the back edge */
    const char *src = "mov ra5, 0\nloop:\nfadd r0, ra5, r1\nfadd r1, r1, r2\nbrr.anynz -, r:loop\n"
                      "mov.setf ra5, r0\nthrend\n";
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    unsigned nb;
    int rc;
    char *o = pack(src, &nb, &rc, &d);
    cr_assert_eq(rc, 0, "%s", d.count ? d.entries[0].text : "");
    size_t n;
    cr_expect_eq(validate_text(o, &n), 0, "%s", o);
    cr_expect_eq(n, nb, "%s", o);
    tsr_diag_fini(&d);
    free(o);
}

Test(pack, operation_list_api)
{
    struct tsr_packer *p = tsr_packer_new(&qpu_target);
    tsr_packer_op(p, "mov r0, unif");
    tsr_packer_label(p, "loop");
    tsr_packer_op(p, "fadd r1, r0, r0");
    tsr_packer_op(p, "fmul r2, r0, r0");
    tsr_packer_op(p, "sub.setf r0, r0, 1");
    tsr_packer_op(p, "brr.anynz -, r:loop");
    tsr_packer_op(p, "thrend");
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    cr_assert_eq(tsr_packer_run(p, &d), 0, "%s", d.count ? d.entries[0].text : "");
    size_t n = tsr_packer_count(p);
    cr_expect_geq(n, 1 + 1 + 3 + 3);   /* unif, the loop's bundles + delay slots, thrend + 2 */
    cr_expect_eq(tsr_packer_stats(p)->nbundles, n);
    cr_expect_eq(tsr_validate(qpu_target.vdesc, tsr_packer_words(p), n, 0, NULL, NULL), 0, "%s", tsr_packer_text(p));
    cr_expect(strstr(tsr_packer_text(p), "loop:\n") != NULL, "%s", tsr_packer_text(p));
    /* errors name the operation by its number */
    tsr_packer_op(p, "frobnicate r0");
    cr_expect_eq(tsr_packer_run(p, &d), -1);
    cr_expect_eq(tsr_packer_count(p), 0);
    bool named = false;
    for (size_t i = 0; i < d.count; i++)
        named |= strstr(d.entries[i].text, "<ops>:8:1: error:") != NULL;
    cr_expect(named, "%s", d.count ? d.entries[0].text : "");
    tsr_diag_fini(&d);
    tsr_packer_free(p);
}

/* ---- GPU_FFT: every program unbundled, re-packed, validated, run ------------------------------------- */
#include "gpufft.h"

/* Unbundles and re-packs the GPU_FFT program for log2n (0: shader_trans); returns the packed words in *out
 * (malloc'd) and the bundle count, with the original count in *orig.  stats: also check the statistics and
 * that no block's lower bound exceeds its bundles (the bound's search costs time: once per program). */
static size_t repack(int log2n, uint32_t **out, size_t *orig, bool stats)
{
    char err[GPUFFT_ERRLEN];
    struct gpufft_code c;
    cr_assert_eq(gpufft_code_load(&c, NULL, log2n, err), 0, "%s", err);
    *orig = c.nwords / 2;
    struct tsr_buf ops = { 0 }, packed = { 0 };
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    unsigned pinned = 0;
    cr_assert_eq(tsr_unbundle(&qpu_target, c.w, *orig, 0, &ops, &pinned, &d), 0, "%s: %s", c.name,
                 d.count ? d.entries[0].text : "");
    struct tsr_pack_stats st = { 0 };
    cr_assert_eq(tsr_pack_text(&qpu_target, c.name, ops.data, ops.len, &packed, stats ? &st : NULL, &d), 0, "%s: %s",
                 c.name, d.count ? d.entries[0].text : "");
    struct tsr_words w;
    tsr_words_init(&w, 64);
    cr_assert_eq(qpu_target.assemble(c.name, packed.data, packed.len, &w, &d), 0, "%s", c.name);
    if (stats) {
        cr_expect_eq(w.count, st.nbundles, "%s: stats say %u bundles, the text has %zu", c.name, st.nbundles, w.count);
        cr_expect_leq(st.lower, st.nbundles, "%s", c.name);
        cr_expect_leq(st.basic, st.lower, "%s", c.name);
    }
    for (unsigned b = 0; b < st.nblocks; b++)
        cr_expect_leq(st.blocks[b].lower, st.blocks[b].bundles, "%s: block at line %u: lower bound %u > %u bundles",
                      c.name, st.blocks[b].line, st.blocks[b].lower, st.blocks[b].bundles);
    size_t v = tsr_validate(qpu_target.vdesc, w.w, w.count, 0, NULL, NULL);
    cr_expect_eq(v, 0, "%s: %zu rule violations after packing", c.name, v);
    size_t n = w.count;
    *out = malloc(n * 8);
    memcpy(*out, w.w, n * 8);
    tsr_words_free(&w);
    if (stats)
        tsr_pack_stats_free(&st);
    tsr_buf_free(&ops);
    tsr_buf_free(&packed);
    tsr_diag_fini(&d);
    gpufft_code_free(&c);
    return n;
}

/* Each GPU_FFT program re-packs into no more bundles than the hand-scheduled original, validates, and no
 * block's lower bound exceeds its bundles (one test per program: the bound's search is the slow part). */
static void repack_no_longer(int log2n)
{
    uint32_t *w;
    size_t orig, n = repack(log2n, &w, &orig, true);
    free(w);
    printf("pack: GPU_FFT log2n %d: %zu bundles re-packed, %zu hand-scheduled\n", log2n, n, orig);
    cr_expect_leq(n, orig, "log2n %d: %zu bundles re-packed, %zu hand-scheduled", log2n, n, orig);
}
#define NO_LONGER(n) \
    Test(pack, gpu_fft_repack_valid_and_no_longer_##n, .timeout = 120) { repack_no_longer(n); }
NO_LONGER(0)
NO_LONGER(8)
NO_LONGER(9)
NO_LONGER(10)
NO_LONGER(11)
NO_LONGER(12)
NO_LONGER(13)
NO_LONGER(14)
NO_LONGER(15)
NO_LONGER(16)
NO_LONGER(17)
NO_LONGER(18)
NO_LONGER(19)
NO_LONGER(20)
NO_LONGER(21)
NO_LONGER(22)

/* The re-packed shader computes the transform as accurately as the original (2x the published error). */
static void repacked_fft(int log2n, int inverse)
{
    char err[GPUFFT_ERRLEN];
    struct gpufft_code c = { 0 };
    size_t orig, n = repack(log2n, &c.w, &orig, false);
    c.nwords = 2 * n;
    c.name = NULL;
    size_t pts = (size_t)1 << log2n;
    struct gpufft_mem mm;
    struct gpufft f;
    cr_assert_eq(gpufft_mem_init(&mm, gpufft_prepare_bytes(log2n, 1, &c), err), 0, "%s", err);
    cr_assert_eq(gpufft_prepare(&f, &mm, &c, log2n, inverse, 1, err), 0, "%s", err);
    gpufft_random(gpufft_in(&f, 0), pts, 7);
    float *keep = malloc(2 * pts * sizeof *keep);
    double *want = malloc(2 * pts * sizeof *want);
    memcpy(keep, gpufft_in(&f, 0), 2 * pts * sizeof *keep);
    struct gpufft_cost cost = { 0 };
    cr_assert_eq(gpufft_execute(&f, NULL, &cost, err), 0, "2^%d: %s", log2n, err);
    cr_assert_eq(cost.warnings, 0, "2^%d: %s", log2n, cost.warning);
    cr_assert_eq(gpufft_reference(keep, want, log2n, inverse), 0);
    struct gpufft_err e = { 0 };
    gpufft_err_accumulate(&e, gpufft_out(&f, 0), want, pts);
    double ppm = gpufft_err_value(&e) * 1e6;
    cr_expect_lt(ppm, 2 * gpufft_published_ppm(log2n), "re-packed 2^%d %s: %.3f ppm", log2n,
                 inverse ? "inverse" : "forward", ppm);
    free(keep);
    free(want);
    gpufft_mem_fini(&mm);
    free(c.w);
}

#define REPACKED(n)                                                                                             \
    Test(pack, gpu_fft_repacked_forward_##n, .timeout = 120) { repacked_fft(n, 0); }                            \
    Test(pack, gpu_fft_repacked_inverse_##n, .timeout = 120) { repacked_fft(n, 1); }
REPACKED(8)
REPACKED(9)
REPACKED(10)
REPACKED(11)
REPACKED(12)
REPACKED(13)
REPACKED(14)

/* The search (TSR_PACK_SEARCH, the default) against list scheduling alone (TSR_PACK_LIST) on GPU_FFT's
 * 256-point shader: fewer bundles in total, no block longer, every block it rebuilt at its lower bound (the
 * relaxation's shortest schedule, so optimal), and the result validates. */
Test(pack_search, shorter_than_list_scheduling, .timeout = 120)
{
    struct gpufft_code c = { 0 };
    char err[GPUFFT_ERRLEN];
    cr_assert_eq(gpufft_code_load(&c, NULL, 8, err), 0, "%s", err);
    struct tsr_buf ops = { 0 }, out[2] = { { 0 }, { 0 } };
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    unsigned pinned;
    cr_assert_eq(tsr_unbundle(&qpu_target, c.w, c.nwords / 2, 0, &ops, &pinned, &d), 0);
    struct tsr_pack_stats st[2];
    enum tsr_pack_effort eff[2] = { TSR_PACK_LIST, TSR_PACK_SEARCH };
    for (int k = 0; k < 2; k++)
        cr_assert_eq(tsr_pack_text_effort(&qpu_target, "256", ops.data, ops.len, eff[k], &out[k], &st[k], &d), 0,
                     "%s", d.count ? d.entries[0].text : "");
    cr_assert_eq(st[0].nblocks, st[1].nblocks);
    cr_expect_eq(st[0].searched, 0);
    cr_expect_gt(st[1].searched, 0);
    cr_expect_lt(st[1].nbundles, st[0].nbundles, "search %u bundles, list %u", st[1].nbundles, st[0].nbundles);
    unsigned searched = 0;
    for (unsigned b = 0; b < st[1].nblocks; b++) {
        const struct tsr_pack_block_stat *l = &st[0].blocks[b], *s = &st[1].blocks[b];
        cr_expect_leq(s->bundles, l->bundles, "block at line %u", s->line);
        cr_expect_eq(s->lower, l->lower, "block at line %u: the bound does not depend on the effort", s->line);
        if (s->searched) {
            searched++;
            cr_expect_lt(s->bundles, l->bundles, "block at line %u", s->line);
            cr_expect(s->exact, "block at line %u", s->line);
            cr_expect_eq(s->bundles, s->lower, "block at line %u", s->line);
        }
    }
    cr_expect_eq(searched, st[1].searched);
    struct tsr_words w;
    tsr_words_init(&w, 64);
    cr_assert_eq(qpu_target.assemble("256", out[1].data, out[1].len, &w, &d), 0);
    cr_expect_eq(w.count, st[1].nbundles);
    cr_expect_eq(tsr_validate(qpu_target.vdesc, w.w, w.count, 0, NULL, NULL), 0);
    tsr_words_free(&w);
    for (int k = 0; k < 2; k++) {
        tsr_pack_stats_free(&st[k]);
        tsr_buf_free(&out[k]);
    }
    tsr_buf_free(&ops);
    tsr_diag_fini(&d);
    gpufft_code_free(&c);
}

/* A block of more than 512 units gets the basic bound only, and list scheduling (the search's pairs and
 * nodes grow with its size: docs/pack.md "Limits"). */
Test(pack_search, large_block_is_list_scheduled)
{
    struct tsr_buf src = { 0 }, out = { 0 };
    for (int i = 0; i < 520; i++)
        tsr_buf_printf(&src, "%s r%d, r%d, ra%d\n", i % 2 ? "fmul" : "fadd", i % 4, (i + 1) % 4, i % 32);
    struct tsr_pack_stats st;
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    cr_assert_eq(tsr_pack_text(&qpu_target, "big.s", src.data, src.len, &out, &st, &d), 0);
    cr_assert_eq(st.nblocks, 1);
    cr_expect_not(st.blocks[0].exact);
    cr_expect_not(st.blocks[0].searched);
    cr_expect_eq(st.blocks[0].lower, st.blocks[0].basic);
    cr_expect_leq(st.blocks[0].lower, st.nbundles);
    cr_expect_geq(st.nbundles, 260u);   /* one fadd and one fmul per bundle at best */
    tsr_pack_stats_free(&st);
    tsr_buf_free(&src);
    tsr_buf_free(&out);
    tsr_diag_fini(&d);
}

/* The lower bound of a one-block program (docs/pack.md "Lower bound"): basic and relaxation bounds. */
static struct tsr_pack_block_stat bound_of(const char *src, unsigned *bundles)
{
    struct tsr_buf out = { 0 };
    struct tsr_pack_stats st;
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    cr_assert_eq(tsr_pack_text(&qpu_target, "t.s", src, strlen(src), &out, &st, &d), 0, "pack failed");
    cr_assert_eq(st.nblocks, 1);
    struct tsr_pack_block_stat b = st.blocks[0];
    *bundles = st.nbundles;
    tsr_pack_stats_free(&st);
    tsr_buf_free(&out);
    tsr_diag_fini(&d);
    return b;
}

Test(pack_bound, read_ports_and_immediates_enter_the_relaxation)
{
    /* two different small immediates cannot share a bundle (one raddr_b); the critical path alone says 2 */
    unsigned nb;
    struct tsr_pack_block_stat b = bound_of("mov r0, 1\nmov r1, 2\nfadd r2, r0, r1\n", &nb);
    cr_expect_eq(b.basic, 2);
    cr_expect_eq(b.lower, 3);
    cr_expect(b.exact);
    cr_expect_eq(nb, 3);
    /* two regfile-A reads of different registers: one raddr_a per bundle */
    b = bound_of("fadd r0, ra1, r2\nfmul r1, ra3, r2\n", &nb);
    cr_expect_eq(b.basic, 1);
    cr_expect_eq(b.lower, 2);
    cr_expect_eq(nb, 2);
    /* the same register: one read serves both */
    b = bound_of("fadd r0, ra1, r2\nfmul r1, ra1, r2\n", &nb);
    cr_expect_eq(b.lower, 1);
    cr_expect_eq(nb, 1);
}

Test(pack_bound, uniform_reads_stay_out_of_thread_end_delay_slots)
{
    /* the seed blob's vertex shader (blob 3): six uniform reads in order, then the thread end, whose bundle
     * and two delay slots may read no uniform (forbid thrend_io): 6 + 1 + 2 bundles */
    unsigned nb;
    struct tsr_pack_block_stat b = bound_of("mov ra0.16a, unif\nmov ra0.16b, unif\nmov vw_setup, unif\n"
                                            "mov vpm, ra0\nmov r0, unif\nfadd vpm, unif, r0\nmov vpm, unif\n"
                                            "thrend\n", &nb);
    cr_expect_eq(b.basic, 6);
    cr_expect_eq(b.lower, 9);
    cr_expect(b.exact);
    cr_expect_eq(nb, 9);
}

Test(pack_bound, branch_takes_a_bundle_of_its_own)
{
    /* two semaphore ops (each a whole instruction) in order and a branch: the branch's bundle, then the two
     * ops in its delay slots and one nop */
    unsigned nb;
    struct tsr_pack_block_stat b = bound_of("mov -, srel(9)\nmov -, sacq(1)\nbra -, ra0\n", &nb);
    cr_expect_eq(b.lower, 4);
    cr_expect_eq(nb, 4);
}
