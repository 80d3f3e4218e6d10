/* The packer (runtime/pack.h): known bundle counts for small programs, the packed output assembles,
 * exact diagnostics, unbundling. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "qpu.h"
#include "tsr.h"
#include "pack.h"

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

static unsigned count_lines(const char *s)
{
    unsigned n = 0;
    for (const char *p = s; (p = strstr(p, "\n    ")) || (s[0] == ' ' && p == NULL && n == 0 && (p = s));) {
        n++;
        p++;
    }
    return n;
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
    (void)count_lines;
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
