/* The packer (runtime/pack/pack.h): known bundle counts for small programs, the packed output assembles,
 * exact diagnostics, unbundling. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "qpu.h"
#include "tsr.h"
#include "pack/pack.h"
#include "validate/validate.h"

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

/* A fragment shader's end with `discard` (Mesa's vc4: the flags from the discard value, then the TLB Z write
 * under .ifz): the conditional Z write breaks no rule, so it packs, and the output validates. */
Test(pack, discard_fragment_end_packs_and_validates)
{
    char *o = pack_ok("mov r0, elem_num\nmov.setf -, r0\nsbwait\nmov r1, 0x3f800000\nmov.ifz tlbz, rb15\n"
                      "mov tlbc, r1\nsbdone\nthrend\n", 6);
    cr_expect(strstr(o, "mov.ifz tlbz, rb15") != NULL, "%s", o);
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    struct tsr_words w;
    tsr_words_init(&w, 64);
    cr_assert_eq(qpu_target.assemble("out.s", o, strlen(o), &w, &d), 0);
    cr_expect_eq(qpu_target.validate(w.w, w.count, 0, &d, "out.s"), 0, "%s", o);
    for (size_t i = 0; i < d.count; i++)
        cr_log_error("%s", d.entries[i].text);
    tsr_words_free(&w);
    tsr_diag_fini(&d);
    free(o);
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

Test(unbundle, pair_that_exchanges_values_stays_whole)
{
    struct tsr_words w;
    tsr_words_init(&w, 64);
    const char *src = "add r0, r1, r2; mov r1, r0\nfadd r0, r1, r2; fmul r3, r1, r2\n";
    cr_assert_eq(qpu_target.assemble("u.s", src, strlen(src), &w, NULL), 0);
    struct tsr_buf out = { 0 };
    unsigned pinned = 9;
    cr_assert_eq(tsr_unbundle(&qpu_target, "u.s", w.w, w.line, w.count, 0, &out, &pinned, NULL), 0);
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
    cr_assert_eq(tsr_unbundle(&qpu_target, c.name, c.w, NULL, *orig, 0, &ops, &pinned, &d), 0, "%s: %s", c.name,
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
 * 256-point shader: fewer bundles in total, no block longer, every block it rebuilt shorter than list
 * scheduling's and not below its lower bound, the same text whether statistics are asked for or not, and the
 * result validates. */
Test(pack_search, shorter_than_list_scheduling, .timeout = 120)
{
    struct gpufft_code c = { 0 };
    char err[GPUFFT_ERRLEN];
    cr_assert_eq(gpufft_code_load(&c, NULL, 8, err), 0, "%s", err);
    struct tsr_buf ops = { 0 }, out[2] = { { 0 }, { 0 } };
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    unsigned pinned;
    cr_assert_eq(tsr_unbundle(&qpu_target, c.name, c.w, NULL, c.nwords / 2, 0, &ops, &pinned, &d), 0);
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
            cr_expect_geq(s->bundles, s->lower, "block at line %u", s->line);
        }
    }
    cr_expect_eq(searched, st[1].searched);
    struct tsr_buf plain = { 0 };   /* without statistics (no proof of the bound): the same text */
    cr_assert_eq(tsr_pack_text_effort(&qpu_target, "256", ops.data, ops.len, TSR_PACK_SEARCH, &plain, NULL, &d), 0);
    cr_expect(plain.len == out[1].len && !memcmp(plain.data, out[1].data, plain.len),
              "the packed text depends on whether statistics are asked for");
    tsr_buf_free(&plain);
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

/* ---- delay slots that must stay after their branch ----------------------------------------------------- */
#include "support_qpusim.h"

/* The final registers and flags of program w (n instructions) run from the simulator's reset state. */
struct sim_end { uint32_t acc[6][16], ra[32][16], rb[32][16], z[16], n[16], c[16]; };
static void run_to_end(const uint32_t *w, size_t n, struct sim_end *e)
{
    qs_setup();
    int rc = qpu_sim_run(qs_sim, w, n * 2, 10000);
    cr_assert_eq(rc, TSR_SIM_HALTED, "%s", qs_sim->core.msg);
    memcpy(e->acc, qs_sim->acc, sizeof e->acc);
    memcpy(e->ra, qs_sim->ra, sizeof e->ra);
    memcpy(e->rb, qs_sim->rb, sizeof e->rb);
    memcpy(e->z, qs_sim->z, sizeof e->z);
    memcpy(e->n, qs_sim->n, sizeof e->n);
    memcpy(e->c, qs_sim->c, sizeof e->c);
    qs_teardown();
}

/* The GPU_FFT release 1 and 2 pattern: the first delay slot of a branch sets the flags the branch tests, the
 * second reads them.  Those two operations stay after the branch (`.delay`), in their order; the others,
 * independent of them, move before it, and the packer puts one back into a free delay slot.  The packed
 * program validates and computes what the original does (a flag operation moved before the branch would
 * change the loop's trip count or r2: the test can fail). */
Test(unbundle, delay_slot_that_sets_the_branch_flags_stays_after_it)
{
    const char *src = "    mov r1, 4\n    mov r2, 0\n    mov r3, 1\n"
                      "loop:\n"
                      "    sub.setf r1, r1, 1\n"
                      "    brr.anynz -, r:loop\n"
                      "    and.setf -, elem_num, 8\n"               /* sets the flags brr.anynz tests */
                      "    add.ifnz r2, r2, 1; fmul r0, r2, r2\n"   /* reads them; fmul reads r2 first */
                      "    add r3, r3, r3\n"                        /* independent of all of it */
                      "    mov ra2, r2\n    nop; nop; thrend\n    nop\n    nop\n";
    struct tsr_words w;
    tsr_words_init(&w, 64);
    cr_assert_eq(qpu_target.assemble("d.s", src, strlen(src), &w, NULL), 0);
    cr_assert_eq(tsr_validate(qpu_target.vdesc, w.w, w.count, 0, NULL, NULL), 0, "the original must validate");
    struct tsr_buf ops = { 0 }, packed = { 0 };
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    unsigned pinned = 9;
    cr_assert_eq(tsr_unbundle(&qpu_target, "d.s", w.w, w.line, w.count, 0, &ops, &pinned, &d), 0, "%s",
                 d.count ? d.entries[0].text : "");
    cr_expect_eq(pinned, 0);
    /* after the branch: the flag setter, then the operation that reads the flags; the rest of the slots before
     * it (fmul reads r2 before add.ifnz writes it: it may go first) */
    const char *br = strstr(ops.data, "brr.anynz");
    cr_assert_not_null(br, "%s", ops.data);
    cr_expect(strstr(br, "\n    .delay and.setf -, elem_num, 8\n    .delay add.ifnz r2, r2, 1\n    mov ra2, r2\n") ==
                  strchr(br, '\n'), "%s", ops.data);
    const char *a3 = strstr(ops.data, "    add r3, r3, r3\n"), *fm = strstr(ops.data, "    fmul r0, r2, r2\n");
    cr_expect(a3 && a3 < br && fm && fm < br, "the independent operations move before the branch:\n%s", ops.data);
    struct tsr_pack_stats st;
    cr_assert_eq(tsr_pack_text(&qpu_target, "ops.s", ops.data, ops.len, &packed, &st, &d), 0, "%s\n%s",
                 d.count ? d.entries[0].text : "", ops.data);
    /* the delay slots: the pinned operations in order, and a slot filled with add r3 from before the branch */
    const char *pb = strstr(packed.data, "brr.anynz");
    cr_assert_not_null(pb, "%s", packed.data);
    const char *slot[3];
    slot[0] = strchr(pb, '\n') + 1;
    for (int k = 1; k < 3; k++)
        slot[k] = strchr(slot[k - 1], '\n') + 1;
    const char *end = strchr(slot[2], '\n');
    const char *as = strstr(slot[0], "and.setf"), *ai = strstr(slot[0], "add.ifnz"), *a = strstr(slot[0], "add r3");
    cr_expect(as && as < end && ai && ai < end && as < ai && strchr(as, '\n') < ai,
              "and.setf, then add.ifnz in a later delay slot:\n%s", packed.data);
    cr_expect(a && a < end, "add r3 fills a delay slot:\n%s", packed.data);
    const char *f = strstr(packed.data, "fmul r0, r2, r2");
    cr_expect(f && f < strstr(packed.data, "add.ifnz"), "fmul reads r2 before add.ifnz writes it:\n%s", packed.data);
    for (unsigned b = 0; b < st.nblocks; b++)
        cr_expect_leq(st.blocks[b].lower, st.blocks[b].bundles, "block at line %u", st.blocks[b].line);
    tsr_pack_stats_free(&st);
    struct tsr_words pw;
    tsr_words_init(&pw, 64);
    cr_assert_eq(qpu_target.assemble("packed.s", packed.data, packed.len, &pw, &d), 0, "%s", packed.data);
    cr_expect_eq(tsr_validate(qpu_target.vdesc, pw.w, pw.count, 0, NULL, NULL), 0, "%s", packed.data);
    cr_expect_lt(pw.count, w.count, "%s", packed.data);
    struct sim_end *e = calloc(2, sizeof *e);
    run_to_end(w.w, w.count, &e[0]);
    run_to_end(pw.w, pw.count, &e[1]);
    cr_expect_eq(e[0].acc[2][8], 4u, "the loop runs 4 times; r2 counts in lanes 8..15 (elem_num & 8)");
    cr_expect_eq(e[0].acc[2][0], 0u);
    cr_expect_eq(memcmp(&e[0], &e[1], sizeof *e), 0, "the packed program computes something else:\n%s",
                 packed.data);
    free(e);
    tsr_words_free(&pw);
    tsr_words_free(&w);
    tsr_buf_free(&ops);
    tsr_buf_free(&packed);
    tsr_diag_fini(&d);
}

/* `.delay` misuse and what cannot be unbundled: `file:line:col: error: ...`, nothing written. */
static void pack_fails(const char *src, const char *want)
{
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    unsigned nb;
    int rc;
    char *o = pack(src, &nb, &rc, &d);
    cr_expect_eq(rc, -1, "%s", src);
    bool found = false;
    for (size_t i = 0; i < d.count; i++)
        found |= strstr(d.entries[i].text, want) != NULL;
    cr_expect(found, "want '%s', got '%s'", want, d.count ? d.entries[0].text : "(nothing)");
    cr_expect_eq(o[0], 0, "output on error: %s", o);
    free(o);
    tsr_diag_fini(&d);
}

Test(pack, delay_operations_are_checked)
{
    pack_fails("fadd r0, r1, r2\n  .delay fadd r3, r1, r2\n",
               "t.s:2:3: error: a '.delay' operation must follow a branch or thread end");
    pack_fails("x:\nbrr -, r:x\n  .delay\n", "t.s:3:3: error: '.delay' needs an operation after it");
    pack_fails("x:\nbrr -, r:x\ny:\n.delay fadd r3, r1, r2\n", "t.s:4:1: error: a label cannot point into delay slots");
    pack_fails("x:\nbrr -, r:x\n.delay brr -, r:x\n", "t.s:3:1: error: a branch or thread end cannot be in delay slots");
    /* four uniform reads keep their order: one per bundle, three delay slots */
    pack_fails("x:\nbrr -, r:x\n.delay mov r0, unif\n.delay mov r1, unif\n.delay mov r2, unif\n.delay mov r3, unif\n",
               "t.s:6:1: error: this '.delay' operation does not fit in the 3 delay slots of its branch");
}

Test(unbundle, label_inside_delay_slots_is_reported_with_the_file)
{
    const char *src = "x:\n    brr -, r:y\n    nop\ny:\n    nop\n    nop\n    nop; nop; thrend\n    nop\n    nop\n";
    struct tsr_words w;
    tsr_words_init(&w, 64);
    cr_assert_eq(qpu_target.assemble("u.s", src, strlen(src), &w, NULL), 0);
    struct tsr_buf out = { 0 };
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    unsigned pinned;
    cr_expect_eq(tsr_unbundle(&qpu_target, "u.s", w.w, w.line, w.count, 0, &out, &pinned, &d), -1);
    cr_assert_geq(d.count, 1);
    cr_expect(strstr(d.entries[0].text, "u.s:5:1: error: instruction 0x0: delay slot 0x10 is a branch target") != NULL,
              "%s", d.entries[0].text);
    tsr_buf_free(&out);
    tsr_words_free(&w);
    tsr_diag_fini(&d);
}

/* An empty or comment-only program packs to nothing (UBSan: no offset applied to a null word array). */
Test(pack, empty_program_packs_to_nothing)
{
    free(pack_ok("", 0));
    free(pack_ok("# only a comment\n\n", 0));
}

/* The operation-list API takes `.delay` operations as text too (runtime/pack/pack.h tsr_packer_op). */
Test(pack, operation_list_api_delay_operation)
{
    struct tsr_packer *p = tsr_packer_new(&qpu_target);
    tsr_packer_op(p, "mov r1, 3");
    tsr_packer_label(p, "loop");
    tsr_packer_op(p, "sub.setf r1, r1, 1");
    tsr_packer_op(p, "brr.anynz -, r:loop");
    tsr_packer_op(p, ".delay and.setf -, elem_num, 8");
    tsr_packer_op(p, "thrend");
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    cr_assert_eq(tsr_packer_run(p, &d), 0, "%s", d.count ? d.entries[0].text : "");
    const char *txt = tsr_packer_text(p), *br = strstr(txt, "brr.anynz"), *as = strstr(txt, "and.setf");
    cr_expect(br && as && br < as && as < strstr(txt, "thrend"), "and.setf in a delay slot of the branch:\n%s", txt);
    cr_expect_eq(tsr_validate(qpu_target.vdesc, tsr_packer_words(p), tsr_packer_count(p), 0, NULL, NULL), 0, "%s", txt);
    tsr_diag_fini(&d);
    tsr_packer_free(p);
}
