/* tsr_unbundle's count of bundles kept whole ("pinned", printed by `tessera unbundle`) is the number of lines of its
 * output that hold a whole bundle's operations (several parts joined by "; "), for every program of the shared
 * corpus of the targets whose unbundled text has one bundle a line: the Mali Utgard GP's 31 lima programs, where the
 * value naming (pack_names.c) writes a group of masked stores one part a line, so such a group is no longer counted
 * (glmark2_depth: its last two instructions' stores were counted as 2 pinned bundles while no line kept them), and
 * the 16 GPU_FFT programs (QPU), where the groups stay whole. */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "corpus.h"
#include "pack/pack.h"
#include "registry.h"
#include "tsr.h"

/* Lines of s (len bytes) holding "; " (a group of parts on one line). */
static unsigned group_lines(const char *s, size_t len)
{
    unsigned k = 0;
    for (size_t i = 0; i < len;) {
        const char *e = memchr(s + i, '\n', len - i);
        size_t l = e ? (size_t)(e - (s + i)) : len - i;
        for (size_t j = 0; j + 1 < l; j++)
            if (s[i + j] == ';' && s[i + j + 1] == ' ') {
                k++;
                break;
            }
        i += l + 1;
    }
    return k;
}

/* Lines of s (len bytes) with field overrides (` {f=v}`) but no store (`/`, a Utgard store's destination): the
 * overrides of a store unit's fields on a line that stores nothing.  The decoder keeps every bit of a word, and the
 * disassembler prints the fields no op of the bundle owns as overrides (lima leaves a store unit's address set when
 * the unit stores nothing); a part needs only those that change what it does, so these must not be written. */
static unsigned stray_override_lines(const char *s, size_t len)
{
    unsigned k = 0;
    for (size_t i = 0; i < len;) {
        const char *e = memchr(s + i, '\n', len - i);
        size_t l = e ? (size_t)(e - (s + i)) : len - i;
        bool ov = false;
        for (size_t j = 0; j + 1 < l && !ov; j++)
            ov = s[i + j] == ' ' && s[i + j + 1] == '{';
        if (ov && !memchr(s + i, '/', l))
            k++;
        i += l + 1;
    }
    return k;
}

/* Unbundles every .hex program of the shared directory's rel for target `target`, checking each program's count
 * against its group lines; returns the total count.  The unbundled text of the program named want (if any) goes to
 * *text_of (the caller frees it). */
static unsigned check_dir(const char *target, const char *rel, const char *want, char **text_of, unsigned *stray)
{
    const struct tsr_target *t = tsr_find_target(target);
    cr_assert_not_null(t, "no target %s", target);
    char shared[512], dir[1100];
    corpus_shared_dir(shared, sizeof shared);
    snprintf(dir, sizeof dir, "%s/%s", shared, rel);
    char *names[256], err[1200];
    int nn = corpus_hex_names(dir, names, 256, err, sizeof err);
    cr_assert_gt(nn, 0, "no programs in %s: %s", dir, nn < 0 ? err : "none");
    unsigned total = 0;
    for (int k = 0; k < nn; k++) {
        char path[1400];
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        struct tsr_words w;
        tsr_words_init(&w, t->word_bits);
        w.msw_first = t->word_msw_first;
        struct tsr_diag d;
        tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
        cr_assert_eq(tsr_words_read(&w, path, TSR_WORDS_HEX, &d), 0, "cannot read %s", path);
        struct tsr_buf out = { 0 };
        unsigned pinned = 12345;
        cr_assert_eq(tsr_unbundle(t, names[k], w.w, NULL, w.count, 0, &out, &pinned, &d), 0, "%s: %s", names[k],
                     d.count ? d.entries[0].text : "?");
        unsigned g = group_lines(out.data ? out.data : "", out.len);
        cr_expect_eq(pinned, g, "%s: %u bundles counted as kept whole, %u lines keep one", names[k], pinned, g);
        total += pinned;
        if (stray)
            *stray += stray_override_lines(out.data ? out.data : "", out.len);
        if (want && text_of && !strcmp(names[k], want))
            *text_of = strdup(out.data ? out.data : "");
        tsr_diag_fini(&d);
        tsr_buf_free(&out);
        tsr_words_free(&w);
        free(names[k]);
    }
    return total;
}

Test(unbundle_pinned, utgard_counts_what_stays_whole)
{
    char *depth = NULL;
    unsigned stray = 0;
    unsigned total = check_dir("utgard", "corpus/utgard-gp/lima_compiler", "glmark2_depth.hex", &depth, &stray);
    cr_log_info("utgard: %u bundles kept whole over the corpus", total);
    /* 277 lines carried a store unit's address (`{store0_addr=2}`) on operations that store nothing (50 more on
     * stores, which needed none either) */
    cr_expect_eq(stray, 0u, "%u lines carry overrides and store nothing", stray);
    cr_assert_not_null(depth, "no glmark2_depth.hex in the corpus");
    /* its last instructions' masked stores to v1 and v0, one a line */
    cr_expect(strstr(depth, "\n    mov.a1/v1.x a1.x\n") && strstr(depth, "\n    mov.p/v1.y a1.y\n"), "%s", depth);
    free(depth);
}

Test(unbundle_pinned, qpu_counts_what_stays_whole)
{
    unsigned total = check_dir("qpu", "corpus/qpu/gpu_fft_r3/hex", NULL, NULL, NULL);
    cr_expect_gt(total, 0u, "GPU_FFT keeps some bundles whole (they exchange values)");
}

/* A branch bundle with other parts (every bit set: ALU ops, a branch and field overrides) stays one line: counted. */
Test(unbundle_pinned, branch_bundle_kept_whole_is_counted)
{
    const struct tsr_target *t = tsr_find_target("utgard");
    cr_assert_not_null(t);
    uint32_t w[4] = { 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu };
    struct tsr_buf out = { 0 };
    unsigned pinned = 12345;
    cr_assert_eq(tsr_unbundle(t, "ones.hex", w, NULL, 1, 0, &out, &pinned, NULL), 0);
    cr_assert_not_null(out.data);
    cr_expect(strstr(out.data, "branch "), "%s", out.data);
    cr_expect_eq(pinned, group_lines(out.data, out.len), "%u counted: %s", pinned, out.data);
    cr_expect_eq(pinned, 1u, "%s", out.data);
    tsr_buf_free(&out);
}
