/* Unit tests of the runtime basics: diag, arena, intern, bits and the text <-> bits memo's gate (hexio:
 * tests/test_hexio.c; fileout: tests/test_fileout.c). */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "support_capture.h"
#include "text/asm_engine.h"
#include "tsr.h"

/* ---- diag ------------------------------------------------------------------------------- */

Test(diag, formats_positions_exactly)
{
    struct capture c;
    capture_start(&c);
    cr_assert_eq(c.d.max_errors, 50);
    cr_assert_eq(tsr_diag_error(&c.d, "a.mdl", 3, 7, "unknown field '%s'", "sig"), -1);
    tsr_diag_warning(&c.d, "a.mdl", 4, 0, "unused value %d", 12);
    tsr_diag_note(&c.d, "a.mdl", 0, 9, "declared here");
    tsr_diag_error(&c.d, NULL, 0, 0, "no input");
    cr_assert_str_eq(capture_text(&c), "a.mdl:3:7: error: unknown field 'sig'\n"
                                       "a.mdl:4: warning: unused value 12\n"
                                       "a.mdl: note: declared here\n"
                                       "error: no input\n");
    cr_assert_eq(c.d.errors, 2);
    cr_assert_eq(c.d.warnings, 1);
    cr_assert_not(tsr_diag_stop(&c.d));
    capture_end(&c);
}

Test(diag, caps_errors_with_final_line)
{
    struct capture c;
    capture_start(&c);
    c.d.max_errors = 3;
    for (int i = 1; i <= 6; i++)
        tsr_diag_error(&c.d, "x.hex", (unsigned)i, 1, "bad %d", i);
    tsr_diag_warning(&c.d, "x.hex", 9, 1, "suppressed too");
    cr_assert_str_eq(capture_text(&c), "x.hex:1:1: error: bad 1\n"
                                       "x.hex:2:1: error: bad 2\n"
                                       "x.hex:3:1: error: bad 3\n"
                                       "error: too many errors (3), further diagnostics suppressed\n");
    cr_assert_eq(c.d.errors, 6);
    cr_assert_eq(c.d.warnings, 1);
    cr_assert(tsr_diag_stop(&c.d));
    capture_end(&c);
}

Test(diag, default_cap_is_fifty)
{
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    for (int i = 0; i < 60; i++)
        tsr_diag_error(&d, "f", 1, 1, "e%d", i);
    cr_assert_eq(d.count, 51);
    cr_assert_str_eq(d.entries[49].text, "f:1:1: error: e49");
    cr_assert_str_eq(d.entries[50].text, "error: too many errors (50), further diagnostics suppressed");
    cr_assert_eq(d.errors, 60);
    tsr_diag_fini(&d);
}

Test(diag, store_mode_keeps_fields_and_flushes)
{
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    tsr_diag_error(&d, "t.mdl", 12, 5, "value %u does not fit in %u bits", 300u, 8u);
    tsr_diag_note(&d, "t.mdl", 2, 1, "field declared here");
    cr_assert_eq(d.count, 2);
    cr_assert_eq(d.entries[0].severity, TSR_ERROR);
    cr_assert_str_eq(d.entries[0].file, "t.mdl");
    cr_assert_eq(d.entries[0].line, 12);
    cr_assert_eq(d.entries[0].col, 5);
    cr_assert_str_eq(d.entries[0].message, "value 300 does not fit in 8 bits");
    cr_assert_str_eq(d.entries[1].text, "t.mdl:2:1: note: field declared here");
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    tsr_diag_flush(&d, f);
    fclose(f);
    cr_assert_str_eq(text, "t.mdl:12:5: error: value 300 does not fit in 8 bits\n"
                           "t.mdl:2:1: note: field declared here\n");
    free(text);
    tsr_diag_fini(&d);
    cr_assert_eq(d.count, 0);
}

/* ---- arena ------------------------------------------------------------------------------ */

Test(arena, aligned_zeroed_distinct)
{
    struct tsr_arena a = {0};
    unsigned char *prev = NULL;
    for (size_t size = 0; size < 3000; size += 7) {
        unsigned char *p = tsr_arena_alloc(&a, size);
        cr_assert_not_null(p);
        cr_assert_eq((uintptr_t)p % 16, 0, "size %zu not 16-byte aligned", size);
        for (size_t i = 0; i < size; i++)
            cr_assert_eq(p[i], 0);
        memset(p, 0xab, size);
        cr_assert_neq(p, prev);
        prev = p;
    }
    /* larger than a block */
    unsigned char *big = tsr_arena_alloc(&a, 3 * TSR_ARENA_BLOCK + 1);
    cr_assert_eq((uintptr_t)big % 16, 0);
    cr_assert_eq(big[3 * TSR_ARENA_BLOCK], 0);
    memset(big, 1, 3 * TSR_ARENA_BLOCK + 1);
    unsigned char *after = tsr_arena_alloc(&a, 16);
    cr_assert_eq(after[0], 0);
    tsr_arena_free_all(&a);
    cr_assert_null(a.head);
    cr_assert_eq(a.bytes, 0);
    int *q = tsr_arena_alloc(&a, sizeof *q);
    cr_assert_eq(*q, 0);
    tsr_arena_free_all(&a);
}

Test(arena, strdup_and_strndup)
{
    struct tsr_arena a = {0};
    char *s = tsr_arena_strdup(&a, "raddr_a");
    cr_assert_str_eq(s, "raddr_a");
    char *t = tsr_arena_strndup(&a, "abcdef", 3);
    cr_assert_str_eq(t, "abc");
    char *e = tsr_arena_strndup(&a, NULL, 0);
    cr_assert_str_eq(e, "");
    cr_assert_eq(a.bytes, 48);
    tsr_arena_free_all(&a);
}

/* ---- intern ----------------------------------------------------------------------------- */

Test(intern, pointer_equality_across_100k_strings_with_growth)
{
    enum { N = 100000 };
    struct tsr_intern t = {0};
    const char **first = malloc(N * sizeof *first);
    char buf[32];
    for (int i = 0; i < N; i++) {
        int len = snprintf(buf, sizeof buf, "sym_%d", i);
        first[i] = tsr_intern(&t, buf, (size_t)len);
        cr_assert_str_eq(first[i], buf);
    }
    cr_assert_eq(t.count, N);
    cr_assert_geq(t.cap, N + N / 3); /* grew from 64, load factor <= 3/4 */
    for (int i = N - 1; i >= 0; i--) {
        snprintf(buf, sizeof buf, "sym_%d", i);
        const char *again = tsr_intern_cstr(&t, buf);
        if (again != first[i])
            cr_assert_fail("sym_%d interned twice", i);
        if (i > 0 && first[i] == first[i - 1])
            cr_assert_fail("sym_%d and sym_%d share a pointer", i, i - 1);
    }
    cr_assert_eq(t.count, N);
    cr_assert_eq(tsr_intern_lookup(&t, "sym_77", 6), first[77]);
    cr_assert_null(tsr_intern_lookup(&t, "sym_100000", 10));
    free(first);
    tsr_intern_free(&t);
    cr_assert_eq(t.count, 0);
}

Test(intern, lengths_prefixes_nuls_and_empty)
{
    struct tsr_intern t = {0};
    cr_assert_null(tsr_intern_lookup(&t, "x", 1));
    const char *ab = tsr_intern(&t, "abc", 2);
    cr_assert_str_eq(ab, "ab");
    cr_assert_eq(tsr_intern_cstr(&t, "ab"), ab);
    cr_assert_neq(tsr_intern_cstr(&t, "abc"), ab);
    const char *n1 = tsr_intern(&t, "a\0b", 3);
    const char *n2 = tsr_intern(&t, "a\0c", 3);
    cr_assert_neq(n1, n2);
    cr_assert_eq(memcmp(n1, "a\0b", 4), 0);
    const char *e = tsr_intern(&t, NULL, 0);
    cr_assert_str_eq(e, "");
    cr_assert_eq(tsr_intern_cstr(&t, ""), e);
    cr_assert_eq(t.count, 5);
    tsr_intern_free(&t);
}

/* ---- bits ------------------------------------------------------------------------------- */

Test(bits, mask_extract_insert)
{
    cr_assert_eq(tsr_bits_mask(0), 0);
    cr_assert_eq(tsr_bits_mask(1), 1);
    cr_assert_eq(tsr_bits_mask(63), 0x7fffffffffffffffu);
    cr_assert_eq(tsr_bits_mask(64), ~(uint64_t)0);
    uint64_t w = 0xe00217a700000040u; /* QPU "mov rb_0x40, 0x40": load-immediate signal 0xe */
    cr_assert_eq(tsr_bits_extract(w, 63, 60), 0xe);
    cr_assert_eq(tsr_bits_extract(w, 31, 0), 0x40);
    cr_assert_eq(tsr_bits_extract(w, 63, 0), w); /* 64-bit wide field */
    cr_assert_eq(tsr_bits_extract(w, 63, 63), 1);
    cr_assert_eq(tsr_bits_extract(w, 0, 0), 0);
    cr_assert_eq(tsr_bits_extract(w, 6, 6), 1);
    cr_assert_eq(tsr_bits_insert(w, 63, 60, 0xd), 0xd00217a700000040u);
    cr_assert_eq(tsr_bits_insert(w, 63, 0, 0x123), 0x123);
    cr_assert_eq(tsr_bits_insert(0, 63, 63, 1), 0x8000000000000000u);
    cr_assert_eq(tsr_bits_insert(0, 3, 0, 0xff), 0xf); /* excess value bits dropped */
    cr_assert_eq(tsr_bits_insert(~(uint64_t)0, 7, 4, 0), 0xffffffffffffff0fu);
}

Test(bits, sign_extend_and_fits)
{
    cr_assert_eq(tsr_bits_sext(0x1f, 5), -1);
    cr_assert_eq(tsr_bits_sext(0x0f, 5), 15);
    cr_assert_eq(tsr_bits_sext(0x10, 5), -16);
    cr_assert_eq(tsr_bits_sext(0xfff0, 5), -16); /* bits above the field ignored */
    cr_assert_eq(tsr_bits_sext(1, 1), -1);
    cr_assert_eq(tsr_bits_sext(0, 1), 0);
    cr_assert_eq(tsr_bits_sext(7, 0), 0);
    cr_assert_eq(tsr_bits_sext(0x8000000000000000u, 64), INT64_MIN);
    cr_assert_eq(tsr_bits_sext(0x7fffffffffffffffu, 64), INT64_MAX);
    cr_assert_eq(tsr_bits_sext(0x80000000u, 32), INT32_MIN);
    cr_assert(tsr_bits_fits_unsigned(255, 8));
    cr_assert_not(tsr_bits_fits_unsigned(256, 8));
    cr_assert(tsr_bits_fits_unsigned(~(uint64_t)0, 64));
    cr_assert(tsr_bits_fits_unsigned(0, 0));
    cr_assert_not(tsr_bits_fits_unsigned(1, 0));
    cr_assert(tsr_bits_fits_signed(-16, 5));
    cr_assert_not(tsr_bits_fits_signed(-17, 5));
    cr_assert(tsr_bits_fits_signed(15, 5));
    cr_assert_not(tsr_bits_fits_signed(16, 5));
    cr_assert(tsr_bits_fits_signed(INT64_MIN, 64));
    cr_assert_not(tsr_bits_fits_signed(0, 0));
}

Test(bits, popcount_and_reverse)
{
    cr_assert_eq(tsr_bits_popcount(0), 0);
    cr_assert_eq(tsr_bits_popcount(~(uint64_t)0), 64);
    cr_assert_eq(tsr_bits_popcount(0x8000000000000001u), 2);
    cr_assert_eq(tsr_bits_reverse64(1), 0x8000000000000000u);
    cr_assert_eq(tsr_bits_reverse64(0x00000000000000f1u), 0x8f00000000000000u);
    cr_assert_eq(tsr_bits_reverse(1, 9), 0x100);
    cr_assert_eq(tsr_bits_reverse(0x3, 4), 0xc);
    cr_assert_eq(tsr_bits_reverse(0xf0, 4), 0); /* bits above the width ignored */
    cr_assert_eq(tsr_bits_reverse(0x1234, 0), 0);
    cr_assert_eq(tsr_bits_reverse(0x1, 1), 1);
    uint64_t v = 0x0123456789abcdefu;
    cr_assert_eq(tsr_bits_reverse(v, 64), tsr_bits_reverse64(v));
    cr_assert_eq(tsr_bits_reverse64(tsr_bits_reverse64(v)), v);
}

Test(bits, wide_fields_across_words)
{
    uint32_t w[4] = {0x03020100, 0x07060504, 0x0b0a0908, 0x0f0e0d0c}; /* 128-bit, low word first */
    cr_assert_eq(tsr_wide_extract(w, 7, 0), 0x00);
    cr_assert_eq(tsr_wide_extract(w, 39, 24), 0x0403);      /* crosses w[0] / w[1] */
    cr_assert_eq(tsr_wide_extract(w, 95, 32), 0x0b0a090807060504u); /* 64 bits, word aligned */
    cr_assert_eq(tsr_wide_extract(w, 127, 64), 0x0f0e0d0c0b0a0908u);
    cr_assert_eq(tsr_wide_extract(w, 99, 36), 0xc0b0a09080706050u); /* 64 bits, unaligned */
    cr_assert_eq(tsr_wide_extract(w, 127, 127), 0);
    cr_assert_eq(tsr_wide_extract(w, 122, 122), 1);
    uint32_t x[4] = {0, 0, 0, 0};
    tsr_wide_insert(x, 99, 36, ~(uint64_t)0);
    cr_assert_eq(x[0], 0);
    cr_assert_eq(x[1], 0xfffffff0u);
    cr_assert_eq(x[2], 0xffffffffu);
    cr_assert_eq(x[3], 0x0000000fu);
    tsr_wide_insert(x, 47, 40, 0x5a);
    cr_assert_eq(x[1], 0xffff5af0u);
    tsr_wide_insert(w, 127, 64, 0x1122334455667788u);
    cr_assert_eq(w[2], 0x55667788u);
    cr_assert_eq(w[3], 0x11223344u);
    cr_assert_eq(w[1], 0x07060504u);
}


/* ---- the text <-> bits memo's gate (tc_cache.c) ---------------------------------------------------------- */

/* While the gate is closed a sample keeps its key alone; found again, it opens the gate and then gets its value. */
Test(memo, closed_gate_keeps_keys_alone)
{
    struct tsr_tc_cache c = {0};
    size_t vlen;
    for (uint64_t k = 1; k <= TSR_TC_GATE_WINDOW; k++) {   /* lookups that find nothing close the gate */
        cr_assert(tsr_tc_cache_ask(&c, 1));
        uint64_t h = tsr_tc_cache_prefetch(&c, &k, 8);
        cr_assert_null(tsr_tc_cache_get_gated(&c, &k, 8, h, &vlen));
        tsr_tc_cache_put_hashed(&c, &k, 8, h, "text", 4);
    }
    cr_assert(!tsr_tc_cache_ask(&c, 1));
    cr_assert(tsr_tc_cache_ask(&c, TSR_TC_GATE_STRIDE));
    uint64_t key = (uint64_t)1 << 40, h = tsr_tc_cache_prefetch(&c, &key, 8);
    cr_assert_null(tsr_tc_cache_get_gated(&c, &key, 8, h, &vlen));
    size_t len = c.len, count = c.count;
    tsr_tc_cache_put_hashed(&c, &key, 8, h, "sample", 6);
    cr_expect_eq(c.len, len + 8);   /* the key, not its value */
    cr_expect_eq(c.count, count + 1);
    cr_expect_null(tsr_tc_cache_get(&c, &key, 8, &vlen));
    cr_expect_null(tsr_tc_cache_get_gated(&c, &key, 8, h, &vlen));   /* found: the gate opens, no value yet */
    cr_assert(tsr_tc_cache_ask(&c, 1));
    tsr_tc_cache_put_hashed(&c, &key, 8, h, "sample", 6);
    cr_expect_eq(c.count, count + 1);   /* the same entry */
    const char *v = tsr_tc_cache_get(&c, &key, 8, &vlen);
    cr_assert(v && vlen == 6 && !memcmp(v, "sample", 6));
    uint64_t k5 = 5;   /* stored while the gate was open: with its value */
    v = tsr_tc_cache_get(&c, &k5, 8, &vlen);
    cr_assert(v && vlen == 4 && !memcmp(v, "text", 4));
    tsr_tc_cache_free(&c);
}
