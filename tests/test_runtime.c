/* Unit tests of the runtime basics: diag, arena, intern, bits, hexio, fileout.
 * Run from the repository root (ninja test does); the shared corpus is found at
 * $TESSERA_SHARED/corpus if that is set, else at ../shared/corpus relative to $TESSERA_ROOT
 * (or to the current directory when TESSERA_ROOT is unset). */
#include <criterion/criterion.h>

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tsr.h"
#include "text/asm_engine.h"

/* ---- helpers ---------------------------------------------------------------------------- */

static char path_buf[4096];

/* The path of `rel` inside the shared directory (../shared beside the repository). */
static const char *shared_path(const char *rel)
{
    const char *shared = getenv("TESSERA_SHARED");
    const char *root = getenv("TESSERA_ROOT");
    if (shared && *shared)
        snprintf(path_buf, sizeof path_buf, "%s/%s", shared, rel);
    else
        snprintf(path_buf, sizeof path_buf, "%s/../shared/%s", root && *root ? root : ".", rel);
    return path_buf;
}

/* Diagnostics printed in TSR_DIAG_PRINT mode, captured in memory. */
struct capture {
    char *text;
    size_t len;
    FILE *f;
    struct tsr_diag d;
};

static void capture_start(struct capture *c)
{
    c->text = NULL;
    c->len = 0;
    c->f = open_memstream(&c->text, &c->len);
    cr_assert_not_null(c->f);
    tsr_diag_init(&c->d, TSR_DIAG_PRINT, c->f);
}

static const char *capture_text(struct capture *c)
{
    fflush(c->f);
    return c->text;
}

static void capture_end(struct capture *c)
{
    fclose(c->f);
    free(c->text);
    tsr_diag_fini(&c->d);
}

/* A fresh empty directory under /tmp (removed by rmtree()). */
static char *make_tmpdir(void)
{
    char *dir = strdup("/tmp/tsr_test_XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    return dir;
}

/* Number of entries in `dir` whose name contains `needle` ("" counts every entry). */
static int count_entries(const char *dir, const char *needle)
{
    DIR *dp = opendir(dir);
    cr_assert_not_null(dp);
    int n = 0;
    for (struct dirent *e; (e = readdir(dp));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strstr(e->d_name, needle))
            n++;
    closedir(dp);
    return n;
}

static void rmtree(char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
    free(dir);
}

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

/* ---- hexio ------------------------------------------------------------------------------ */

Test(hexio, reads_real_corpus_file_and_writes_it_back_identically)
{
    const char *path = shared_path("corpus/qpu/gpu_fft_r3/hex/shader_256.hex");
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_PRINT, NULL);
    struct tsr_words p;
    tsr_words_init(&p, 64);
    cr_assert_eq(tsr_words_read(&p, path, TSR_WORDS_AUTO, &d), 0, "cannot read %s", path);
    cr_assert_eq(d.errors, 0);
    cr_assert_eq(p.count, 359);
    cr_assert_eq(tsr_words_at(&p, 0)[0], 0x00000040u);
    cr_assert_eq(tsr_words_at(&p, 0)[1], 0xe00217a7u);
    cr_assert_eq(tsr_words_get64(&p, 0), 0xe00217a700000040u);
    cr_assert_str_eq(p.comment[0], "mov rb_0x40,    0x40");
    cr_assert_eq(p.line[0], 1);
    /* line 14: 0x409c5017, 0x100049e2, // nop; mul24 r2, r2, in_inst */
    cr_assert_eq(tsr_words_get64(&p, 13), 0x100049e2409c5017u);
    cr_assert_str_eq(p.comment[13], "nop; mul24 r2, r2, in_inst");
    cr_assert_str_eq(p.comment[358], "nop");

    struct tsr_buf orig = {0}, out = {0};
    cr_assert_eq(tsr_file_read(path, &orig, &d), 0);
    tsr_hex_format(&p, &out);
    cr_assert_eq(out.len, orig.len);
    cr_assert_eq(memcmp(out.data, orig.data, out.len), 0, "hex output differs from %s", path);
    tsr_buf_free(&orig);
    tsr_buf_free(&out);
    tsr_words_free(&p);
    tsr_diag_fini(&d);
}

Test(hexio, binary_round_trip_and_detection)
{
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_PRINT, NULL);
    struct tsr_words p, q;
    tsr_words_init(&p, 64);
    tsr_words_init(&q, 64);
    const char *text = "0x00000040, 0xe00217a7, // mov rb_0x40, 0x40\n0x009e7000, 0x100009e7, // nop\n";
    cr_assert_eq(tsr_words_detect(text, strlen(text)), TSR_WORDS_HEX);
    cr_assert_eq(tsr_hex_parse(&p, text, strlen(text), "t.hex", &d), 0);
    struct tsr_buf bin = {0};
    tsr_bin_format(&p, &bin);
    cr_assert_eq(bin.len, 16);
    const unsigned char want[16] = {0x40, 0, 0, 0, 0xa7, 0x17, 0x02, 0xe0,
                                    0x00, 0x70, 0x9e, 0x00, 0xe7, 0x09, 0x00, 0x10};
    cr_assert_eq(memcmp(bin.data, want, 16), 0);
    cr_assert_eq(tsr_words_detect(bin.data, bin.len), TSR_WORDS_BIN);
    cr_assert_eq(tsr_bin_parse(&q, bin.data, bin.len, "t.bin", &d), 0);
    cr_assert_eq(q.count, 2);
    cr_assert_eq(memcmp(p.w, q.w, 16), 0);
    cr_assert_null(q.comment[0]);
    cr_assert_eq(tsr_words_detect("", 0), TSR_WORDS_HEX);
    cr_assert_eq(tsr_words_detect("  // x\n", 7), TSR_WORDS_HEX);
    cr_assert_eq(tsr_words_detect("mov r0", 6), TSR_WORDS_ASM);
    /* by content, never by size: 8 bytes of assembly text are not one binary instruction */
    cr_assert_eq(tsr_words_detect("nop\nnop\n", 8), TSR_WORDS_ASM);
    cr_assert_eq(tsr_words_detect("// c\n# a\nnop\n", 13), TSR_WORDS_ASM);
    cr_assert_eq(tsr_words_detect("// c\n\n  0x1, 0x2\n", 17), TSR_WORDS_HEX);
    /* text with a stray NUL or invalid UTF-8 stays text (the parser reports the byte); UTF-8 is text */
    cr_assert_eq(tsr_words_detect("nop\0nop\n", 8), TSR_WORDS_ASM);
    cr_assert_eq(tsr_words_detect("0x1, 0x2 // \xff\xfe\n", 15), TSR_WORDS_HEX);
    cr_assert(tsr_data_is_text("nop # \xc3\xa9t\xc3\xa9\n", 12));
    cr_assert(!tsr_data_is_text("\x80\x81\x82\x83" "a", 5));
    tsr_buf_free(&bin);
    tsr_words_free(&p);
    tsr_words_free(&q);
    tsr_diag_fini(&d);
}

Test(hexio, skips_blank_and_comment_lines_and_accepts_variants)
{
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_PRINT, NULL);
    struct tsr_words p;
    tsr_words_init(&p, 64);
    const char *text = "// header\r\n\r\n   \n\t0X1,0xABCDEF01\r\n0x2 , 0x3   //  trailing  \n0x4, 0x5";
    cr_assert_eq(tsr_hex_parse(&p, text, strlen(text), "v.hex", &d), 0);
    cr_assert_eq(p.count, 3);
    cr_assert_eq(tsr_words_get64(&p, 0), 0xabcdef0100000001u);
    cr_assert_null(p.comment[0]);
    cr_assert_eq(p.line[0], 4);
    cr_assert_str_eq(p.comment[1], "trailing");
    cr_assert_eq(tsr_words_get64(&p, 2), 0x0000000500000004u);
    cr_assert_eq(p.line[2], 6);
    struct tsr_buf out = {0};
    tsr_hex_format(&p, &out);
    cr_assert_str_eq(out.data, "0x00000001, 0xabcdef01,\n0x00000002, 0x00000003, // trailing\n"
                               "0x00000004, 0x00000005,\n");
    tsr_buf_free(&out);
    tsr_words_free(&p);
    tsr_diag_fini(&d);
}

Test(hexio, other_widths)
{
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    struct tsr_words p;
    tsr_words_init(&p, 128);
    const char *t128 = "0x1, 0x2, 0x3, 0x4, // four\n";
    cr_assert_eq(tsr_hex_parse(&p, t128, strlen(t128), "w.hex", &d), 0);
    cr_assert_eq(p.count, 1);
    cr_assert_eq(tsr_words_at(&p, 0)[3], 4);
    struct tsr_buf out = {0};
    tsr_hex_format(&p, &out);
    cr_assert_str_eq(out.data, "0x00000001, 0x00000002, 0x00000003, 0x00000004, // four\n");
    tsr_buf_free(&out);
    tsr_words_free(&p);
    tsr_words_init(&p, 32);
    const char *t32 = "0xdeadbeef\n0x1, // c\n";
    cr_assert_eq(tsr_hex_parse(&p, t32, strlen(t32), "n.hex", &d), 0);
    cr_assert_eq(p.count, 2);
    cr_assert_eq(p.w[0], 0xdeadbeefu);
    tsr_words_free(&p);
    tsr_words_init(&p, 48);
    cr_assert_eq(tsr_hex_parse(&p, "0x1\n", 4, "b.hex", &d), -1);
    cr_assert_str_eq(d.entries[0].text, "b.hex: error: unsupported instruction width 48 bits (32, 64 or 128)");
    tsr_words_free(&p);
    tsr_diag_fini(&d);
}

Test(hexio, malformed_lines_report_file_line_col)
{
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    struct tsr_words p;
    tsr_words_init(&p, 64);
    const char *text = "0x00000001, 0x00000002, // fine\n"
                       "0x12345678 0x1\n"
                       "  0xzz, 0x1\n"
                       "0x1,\n"
                       "0x123456789, 0x0\n"
                       "0x1, 0x2, 0x3\n"
                       "mov r0, r1\n"
                       "0x1, 0x2 /* c */\n"
                       "0x1,, 0x2\n"
                       "0x3, 0x4\n";
    cr_assert_eq(tsr_hex_parse(&p, text, strlen(text), "bad.hex", &d), -1);
    const char *want[] = {
        "bad.hex:2:12: error: expected ',' or '//' after a value, found '0'",
        "bad.hex:3:5: error: expected hexadecimal digits after '0x', found 'z'",
        "bad.hex:4:1: error: too few values: a 64-bit instruction is 2 32-bit values, found 1",
        "bad.hex:5:1: error: value 0x123456789 does not fit in 32 bits",
        "bad.hex:6:11: error: too many values: a 64-bit instruction is 2 32-bit values",
        "bad.hex:7:1: error: expected a hexadecimal value '0x...', found 'm'",
        "bad.hex:8:10: error: expected ',' or '//' after a value, found '/'",
        "bad.hex:9:5: error: expected a hexadecimal value '0x...', found ','",
    };
    size_t n = sizeof want / sizeof want[0];
    cr_assert_eq(d.count, n);
    for (size_t i = 0; i < n; i++)
        cr_assert_str_eq(d.entries[i].text, want[i]);
    cr_assert_eq(p.count, 2); /* the good lines 1 and 10 */
    cr_assert_eq(p.line[1], 10);
    tsr_words_free(&p);

    tsr_words_init(&p, 64);
    tsr_diag_fini(&d);
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    cr_assert_eq(tsr_bin_parse(&p, "0123456789abc", 13, "odd.bin", &d), -1);
    cr_assert_str_eq(d.entries[0].text, "odd.bin: error: binary size 13 is not a multiple of 8 bytes (64-bit words)");
    cr_assert_eq(tsr_words_read(&p, "/nonexistent/x.hex", TSR_WORDS_AUTO, &d), -1);
    cr_assert_str_eq(d.entries[1].text, "/nonexistent/x.hex: error: cannot read: No such file or directory");
    tsr_words_free(&p);
    tsr_diag_fini(&d);
}

Test(hexio, write_both_formats_to_files)
{
    char *dir = make_tmpdir();
    char hex[4200], bin[4200];
    snprintf(hex, sizeof hex, "%s/p.hex", dir);
    snprintf(bin, sizeof bin, "%s/p.bin", dir);
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_PRINT, NULL);
    struct tsr_words p, q, r;
    tsr_words_init(&p, 64);
    tsr_words_init(&q, 64);
    tsr_words_init(&r, 64);
    uint32_t w[2] = {0x15827d80, 0x10020227};
    tsr_words_push(&p, w, "mov rx_tw_shared, unif", 0);
    cr_assert_eq(tsr_words_write(&p, hex, TSR_WORDS_HEX, &d), 0);
    cr_assert_eq(tsr_words_write(&p, bin, TSR_WORDS_BIN, &d), 0);
    cr_assert_eq(tsr_words_read(&q, hex, TSR_WORDS_AUTO, &d), 0);
    cr_assert_eq(tsr_words_read(&r, bin, TSR_WORDS_AUTO, &d), 0);
    cr_assert_eq(q.count, 1);
    cr_assert_eq(r.count, 1);
    cr_assert_eq(tsr_words_get64(&q, 0), 0x1002022715827d80u);
    cr_assert_eq(tsr_words_get64(&r, 0), 0x1002022715827d80u);
    cr_assert_str_eq(q.comment[0], "mov rx_tw_shared, unif");
    struct tsr_buf b = {0};
    cr_assert_eq(tsr_file_read(hex, &b, &d), 0);
    cr_assert_str_eq(b.data, "0x15827d80, 0x10020227, // mov rx_tw_shared, unif\n");
    tsr_buf_free(&b);
    tsr_words_free(&p);
    tsr_words_free(&q);
    tsr_words_free(&r);
    tsr_diag_fini(&d);
    rmtree(dir);
}

/* Reads `path` whole (tsr_words_read) and in chunks (tsr_words_stream, with and without lean) and expects the
 * same words, lines, comments (tsr_hex_comments_at for the lean read) and diagnostics. */
static void expect_stream_same(const char *path, enum tsr_wordfmt fmt)
{
    struct capture c1, c2, c3;
    capture_start(&c1);
    capture_start(&c2);
    capture_start(&c3);
    struct tsr_words a, b, l;
    tsr_words_init(&a, 64);
    tsr_words_init(&b, 64);
    tsr_words_init(&l, 64);
    l.lean = true;
    int ra = tsr_words_read(&a, path, fmt, &c1.d);
    cr_expect_eq(tsr_words_stream(&b, path, fmt, &c2.d), ra, "%s", path);
    cr_expect_eq(tsr_words_stream(&l, path, fmt, &c3.d), ra, "%s", path);
    cr_expect_str_eq(capture_text(&c2), capture_text(&c1), "%s", path);
    cr_expect_str_eq(capture_text(&c3), capture_text(&c1), "%s", path);
    cr_assert_eq(b.count, a.count, "%s", path);
    cr_assert_eq(l.count, a.count, "%s", path);
    cr_expect_null(l.comment);
    struct tsr_hex_comments hc;
    tsr_hex_comments_open(&hc, path);
    for (size_t i = 0; i < a.count; i++) {
        cr_assert_eq(tsr_words_get64(&b, i), tsr_words_get64(&a, i), "%s: instruction %zu", path, i);
        cr_assert_eq(tsr_words_get64(&l, i), tsr_words_get64(&a, i), "%s: instruction %zu", path, i);
        cr_assert_eq(b.line[i], a.line[i]);
        cr_assert_eq(l.line[i], a.line[i]);
        const char *ca = a.comment[i], *cb = b.comment[i];
        cr_assert((ca == NULL) == (cb == NULL) && (!ca || !strcmp(ca, cb)), "%s: comment %zu", path, i);
        if (fmt == TSR_WORDS_HEX) {
            for (int twice = 0; twice < 2; twice++) {   /* asked again for the same line: the same text */
                const char *cl = tsr_hex_comments_at(&hc, l.line[i]);
                cr_assert((ca == NULL) == (cl == NULL) && (!ca || !strcmp(ca, cl)), "%s: comment %zu: '%s' '%s'",
                          path, i, ca ? ca : "(none)", cl ? cl : "(none)");
            }
        }
    }
    tsr_hex_comments_close(&hc);
    tsr_words_free(&a);
    tsr_words_free(&b);
    tsr_words_free(&l);
    capture_end(&c1);
    capture_end(&c2);
    capture_end(&c3);
}

Test(hexio, streamed_reads_match_whole_reads)
{
    static const char *const corpus[] = {"shader_256.hex", "shader_4k.hex", "shader_4096k.hex", "shader_trans.hex"};
    for (size_t k = 0; k < sizeof corpus / sizeof *corpus; k++) {
        char rel[256];
        snprintf(rel, sizeof rel, "corpus/qpu/gpu_fft_r3/hex/%s", corpus[k]);
        const char *path = shared_path(rel);
        enum tsr_wordfmt f;
        struct tsr_diag d;
        tsr_diag_init(&d, TSR_DIAG_PRINT, NULL);
        cr_assert_eq(tsr_words_detect_file(path, &f, &d), 0);
        cr_expect_eq(f, TSR_WORDS_HEX);
        tsr_diag_fini(&d);
        expect_stream_same(path, TSR_WORDS_HEX);
    }
    /* lines across the 64 KiB chunks, a line longer than two chunks, CRLF, bad lines, no final newline */
    char *dir = make_tmpdir();
    char path[4200];
    snprintf(path, sizeof path, "%s/p.hex", dir);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    for (int i = 0; i < 20000; i++) {
        if (i % 997 == 5)
            fprintf(f, "0x%x, 0xzz // bad %d\n", i, i);
        else if (i % 1499 == 7)
            fprintf(f, "0x%x, 0x%x,%s\r\n", i, 3 * i, i % 2 ? " //  crlf  " : "");
        else
            fprintf(f, "  0x%08x, 0x%x, // line %d\n", i, i ^ 0x55, i);
        if (i == 12345) {
            fputs("0x1, 0x2, //", f);
            for (int k = 0; k < 150000; k++)
                fputc('a' + k % 26, f);
            fputs("\n// only a comment\n\n", f);
        }
    }
    fputs("0x1, 0x2 // last", f);
    fclose(f);
    expect_stream_same(path, TSR_WORDS_HEX);
    /* binary, of a whole number of words and not */
    snprintf(path, sizeof path, "%s/p.bin", dir);
    f = fopen(path, "wb");
    for (int i = 0; i < 100003; i++)
        fputc(i * 7 % 251, f);
    fclose(f);
    expect_stream_same(path, TSR_WORDS_BIN);
    enum tsr_wordfmt fmt;
    struct capture c;
    capture_start(&c);
    cr_assert_eq(tsr_words_detect_file(path, &fmt, &c.d), 0);
    cr_expect_eq(fmt, TSR_WORDS_BIN);
    cr_assert_eq(tsr_words_detect_file("/nonexistent/x.hex", &fmt, &c.d), -1);
    cr_expect_str_eq(capture_text(&c), "/nonexistent/x.hex: error: cannot read: No such file or directory\n");
    capture_end(&c);
    f = fopen(path, "wb");
    for (int i = 0; i < 8 * 20001; i++)
        fputc(i * 7 % 251, f);
    fclose(f);
    expect_stream_same(path, TSR_WORDS_BIN);
    rmtree(dir);
}

/* Writes the n bytes at b into the FIFO `path` from a child process, in pieces of 1 to 4999 bytes (reads that
 * end within an instruction).  Returns the child's pid. */
static pid_t feed_fifo(const char *path, const unsigned char *b, size_t n)
{
    pid_t pid = fork();
    if (pid == 0) {
        FILE *f = fopen(path, "wb");
        size_t at = 0, piece = 1;
        while (f && at < n) {
            size_t k = piece < n - at ? piece : n - at;
            if (fwrite(b + at, 1, k, f) != k || fflush(f))
                _exit(1);
            at += k;
            piece = piece * 7 % 4999 + 1;
        }
        _exit(f && !fclose(f) ? 0 : 1);
    }
    return pid;
}

/* Binary input whose size is not known before it is read (a FIFO: the instruction array grows as it is read;
 * a regular file's is allocated once, of its size): the same words, lines (0) and diagnostics as a regular
 * file of the same bytes. */
Test(hexio, streamed_binary_of_unknown_size, .timeout = 30)
{
    char *dir = make_tmpdir();
    char fifo[4200], file[4200];
    snprintf(fifo, sizeof fifo, "%s/pipe", dir);
    snprintf(file, sizeof file, "%s/p.bin", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    static unsigned char b[8 * 70001 + 5];
    for (size_t i = 0; i < sizeof b; i++)
        b[i] = (unsigned char)(i * 13 % 253);
    size_t sizes[] = {8 * 70001, 8 * 70001 + 5, 8, 3, 0};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        FILE *f = fopen(file, "wb");
        cr_assert_not_null(f);
        cr_assert_eq(fwrite(b, 1, sizes[k], f), sizes[k]);
        fclose(f);
        struct capture c1, c2;
        capture_start(&c1);
        capture_start(&c2);
        struct tsr_words r, s;
        tsr_words_init(&r, 64);
        tsr_words_init(&s, 64);
        s.lean = true;
        int rr = tsr_words_stream(&r, file, TSR_WORDS_BIN, &c1.d);
        pid_t pid = feed_fifo(fifo, b, sizes[k]);
        cr_assert_gt(pid, 0);
        int rs = tsr_words_stream(&s, fifo, TSR_WORDS_BIN, &c2.d);
        int st = 0;
        cr_assert_eq(waitpid(pid, &st, 0), pid);
        cr_expect_eq(rs, rr, "size %zu", sizes[k]);
        cr_expect_eq(rr, sizes[k] % 8 ? -1 : 0, "size %zu", sizes[k]);
        const char *t1 = capture_text(&c1), *t2 = capture_text(&c2);
        if (rr) {   /* the paths differ */
            cr_assert(!strncmp(t1, file, strlen(file)) && !strncmp(t2, fifo, strlen(fifo)), "%s%s", t1, t2);
            cr_expect_str_eq(t2 + strlen(fifo), t1 + strlen(file), "size %zu", sizes[k]);
        } else {
            cr_expect_str_eq(t1, "");
            cr_expect_str_eq(t2, "");
        }
        if (!rr) {
            cr_assert_eq(r.count, sizes[k] / 8);
            cr_assert_eq(s.count, r.count);
            for (size_t i = 0; i < r.count; i++) {
                uint64_t want = 0;
                for (int j = 7; j >= 0; j--)
                    want = want << 8 | b[8 * i + (size_t)j];   /* little-endian, low word first */
                cr_assert_eq(tsr_words_get64(&r, i), want, "instruction %zu", i);
                cr_assert_eq(tsr_words_get64(&s, i), want, "instruction %zu", i);
                cr_assert_eq(r.line[i], 0);
                cr_assert_eq(s.line[i], 0);
                cr_assert_null(r.comment[i]);
            }
        }
        tsr_words_free(&r);
        tsr_words_free(&s);
        capture_end(&c1);
        capture_end(&c2);
    }
    remove(fifo);
    rmtree(dir);
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

/* ---- fileout ---------------------------------------------------------------------------- */

Test(fileout, buffer_grows_and_stays_terminated)
{
    struct tsr_buf b = {0};
    tsr_buf_puts(&b, "");
    cr_assert_not_null(b.data);
    cr_assert_str_eq(b.data, "");
    for (int i = 0; i < 1000; i++)
        tsr_buf_printf(&b, "%d,", i % 10);
    cr_assert_eq(b.len, 2000);
    cr_assert_eq(b.data[2000], '\0');
    cr_assert_eq(strncmp(b.data, "0,1,2,", 6), 0);
    tsr_buf_append(&b, "x\0y", 3);
    cr_assert_eq(b.len, 2003);
    cr_assert_eq(b.data[2002], 'y');
    tsr_buf_clear(&b);
    cr_assert_eq(b.len, 0);
    cr_assert_str_eq(b.data, "");
    tsr_buf_free(&b);
    cr_assert_null(b.data);
}

Test(fileout, commit_writes_atomically_and_leaves_no_temporary)
{
    char *dir = make_tmpdir();
    char path[4200];
    snprintf(path, sizeof path, "%s/sub/out.c", dir);
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    char sub[4200];
    snprintf(sub, sizeof sub, "%s/sub/deeper", dir);
    cr_assert_eq(tsr_mkdir_p(sub, &d), 0);
    cr_assert_eq(tsr_mkdir_p(sub, &d), 0); /* existing: fine */
    cr_assert_eq(tsr_file_commit(path, "hello\n", 6, &d), 0);
    struct tsr_buf b = {0};
    cr_assert_eq(tsr_file_read(path, &b, &d), 0);
    cr_assert_str_eq(b.data, "hello\n");
    /* identical content: not rewritten, timestamp kept */
    struct timeval old[2] = {{1000000000, 0}, {1000000000, 0}};
    cr_assert_eq(utimes(path, old), 0);
    cr_assert_eq(tsr_file_commit(path, "hello\n", 6, &d), 0);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    cr_assert_eq(st.st_mtime, 1000000000);
    /* different content replaces it */
    cr_assert_eq(tsr_file_commit(path, "bye\n", 4, &d), 0);
    tsr_buf_clear(&b);
    cr_assert_eq(tsr_file_read(path, &b, &d), 0);
    cr_assert_str_eq(b.data, "bye\n");
    char subdir[4200];
    snprintf(subdir, sizeof subdir, "%s/sub", dir);
    cr_assert_eq(count_entries(subdir, ".tmp."), 0);
    cr_assert_eq(count_entries(subdir, ""), 2); /* out.c and deeper */
    cr_assert_eq(d.count, 0);
    tsr_buf_free(&b);
    tsr_diag_fini(&d);
    rmtree(dir);
}

/* The streaming writer: nothing at the path before the commit, the whole text after it, no temporary left;
 * unchanged bytes keep the file and its timestamp; an abort or a failed rename leaves the old file alone. */
Test(fileout, streamed_output_commits_atomically)
{
    char *dir = make_tmpdir();
    char path[4200];
    snprintf(path, sizeof path, "%s/out.s", dir);
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    struct tsr_fileout o;
    struct tsr_buf want = {0}, got = {0};
    cr_assert_eq(tsr_fileout_open(&o, path, &d), 0);
    for (int i = 0; i < 100000; i++) {
        char line[64];
        int n = snprintf(line, sizeof line, "line %d\n", i);
        tsr_buf_append(&want, line, (size_t)n);
        cr_assert_eq(tsr_fileout_write(&o, line, (size_t)n), 0);
    }
    cr_assert_eq(access(path, F_OK), -1, "the path exists before the commit");
    cr_assert_eq(count_entries(dir, ".tmp."), 1);
    cr_assert_eq(tsr_fileout_commit(&o, &d), 0);
    cr_assert_eq(tsr_file_read(path, &got, &d), 0);
    cr_assert_eq(got.len, want.len);
    cr_assert_eq(memcmp(got.data, want.data, want.len), 0);
    cr_assert_eq(count_entries(dir, ".tmp."), 0);
    /* the same bytes again: not rewritten */
    struct timeval old[2] = {{1000000000, 0}, {1000000000, 0}};
    cr_assert_eq(utimes(path, old), 0);
    cr_assert_eq(tsr_fileout_open(&o, path, &d), 0);
    cr_assert_eq(tsr_fileout_write(&o, want.data, want.len), 0);
    cr_assert_eq(tsr_fileout_commit(&o, &d), 0);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    cr_assert_eq(st.st_mtime, 1000000000);
    /* a prefix of them: rewritten */
    cr_assert_eq(tsr_fileout_open(&o, path, &d), 0);
    cr_assert_eq(tsr_fileout_write(&o, want.data, 10), 0);
    cr_assert_eq(tsr_fileout_commit(&o, &d), 0);
    tsr_buf_clear(&got);
    cr_assert_eq(tsr_file_read(path, &got, &d), 0);
    cr_assert_eq(got.len, 10);
    /* aborted: the old file stays, no temporary */
    cr_assert_eq(tsr_fileout_open(&o, path, &d), 0);
    cr_assert_eq(tsr_fileout_write(&o, "x", 1), 0);
    tsr_fileout_abort(&o);
    tsr_buf_clear(&got);
    cr_assert_eq(tsr_file_read(path, &got, &d), 0);
    cr_assert_eq(got.len, 10);
    cr_assert_eq(count_entries(dir, ""), 1);
    cr_assert_eq(d.count, 0);
    /* over a directory: the rename fails, reported, the temporary removed; a missing directory: no open */
    char target[4200], want_msg[4400];
    snprintf(target, sizeof target, "%s/isdir", dir);
    cr_assert_eq(mkdir(target, 0777), 0);
    cr_assert_eq(tsr_fileout_open(&o, target, &d), 0);
    cr_assert_eq(tsr_fileout_write(&o, "data", 4), 0);
    cr_assert_eq(tsr_fileout_commit(&o, &d), -1);
    snprintf(want_msg, sizeof want_msg, "%s: error: cannot write: Is a directory", target);
    cr_assert_str_eq(d.entries[0].text, want_msg);
    snprintf(target, sizeof target, "%s/no/such.s", dir);
    cr_assert_eq(tsr_fileout_open(&o, target, &d), -1);
    snprintf(want_msg, sizeof want_msg, "%s: error: cannot write: No such file or directory", target);
    cr_assert_str_eq(d.entries[1].text, want_msg);
    cr_assert_eq(count_entries(dir, ""), 2);   /* out.s and isdir */
    tsr_buf_free(&want);
    tsr_buf_free(&got);
    tsr_diag_fini(&d);
    rmtree(dir);
}

/* tsr_lines: every line of a file with lines across chunks, one longer than three chunks, CRLF kept, NULs, no
 * final newline; the same lines again after a rewind; a missing file reported. */
Test(fileout, lines_read_in_chunks)
{
    char *dir = make_tmpdir();
    char path[4200];
    snprintf(path, sizeof path, "%s/t.s", dir);
    struct tsr_buf want = {0};
    for (int i = 0; i < 30000; i++) {
        tsr_buf_printf(&want, "line %d%s\n", i, i % 3 ? "" : "\r");
        if (i == 777) {
            for (int k = 0; k < 200000; k++) {   /* a NUL every 1000 bytes */
                char c = k % 1000 ? 'x' : '\0';
                tsr_buf_append(&want, &c, 1);
            }
            tsr_buf_append(&want, "\n\n", 2);
        }
    }
    tsr_buf_append(&want, "a\0b", 3);   /* a NUL inside the last line, which has no '\n' */
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    cr_assert_eq(tsr_file_commit(path, want.data, want.len, &d), 0);
    struct tsr_lines r;
    cr_assert_eq(tsr_lines_open(&r, path, &d), 0);
    for (int round = 0; round < 2; round++) {
        struct tsr_buf got = {0};
        const char *b, *e;
        size_t lines = 0;
        while (tsr_lines_next(&r, &b, &e)) {
            tsr_buf_append(&got, b, (size_t)(e - b));
            tsr_buf_append(&got, "\n", 1);
            lines++;
        }
        cr_assert_eq(r.err, 0);
        cr_assert_eq(lines, 30000u + 2u + 1u);
        cr_assert_eq(got.len, want.len + 1);   /* the last line gets its '\n' back here */
        cr_assert_eq(memcmp(got.data, want.data, want.len), 0, "round %d", round);
        tsr_buf_free(&got);
        cr_assert_eq(tsr_lines_rewind(&r), 0);
    }
    tsr_lines_close(&r);
    cr_assert_eq(tsr_lines_open(&r, "/nonexistent/t.s", &d), -1);
    cr_assert_str_eq(d.entries[0].text, "/nonexistent/t.s: error: cannot read: No such file or directory");
    tsr_buf_free(&want);
    tsr_diag_fini(&d);
    rmtree(dir);
}

/* Reads everything from the FIFO path in a child process; returns its pid (the byte count is its exit
 * status, capped at 255). */
static pid_t drain_fifo(const char *path)
{
    pid_t pid = fork();
    if (pid == 0) {
        FILE *f = fopen(path, "rb");
        size_t n = 0;
        while (f && fgetc(f) != EOF)
            n++;
        _exit(n > 255 ? 255 : (int)n);
    }
    return pid;
}

/* A device or FIFO given as the output is written in place (a rename over it would replace it with a regular
 * file, as `tessera dis -o /dev/full` once did), by tsr_file_commit and by the streamed writer. */
Test(fileout, special_files_written_in_place, .timeout = 30)
{
    char *dir = make_tmpdir();
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    char fifo[4200];
    snprintf(fifo, sizeof fifo, "%s/pipe", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    for (int streamed = 0; streamed < 2; streamed++) {
        pid_t pid = drain_fifo(fifo);
        cr_assert_gt(pid, 0);
        if (streamed) {
            struct tsr_fileout o;
            cr_assert_eq(tsr_fileout_open(&o, fifo, &d), 0);
            cr_assert_eq(tsr_fileout_write(&o, "0123456789", 10), 0);
            cr_assert_eq(tsr_fileout_commit(&o, &d), 0);
        } else {
            cr_assert_eq(tsr_file_commit(fifo, "abcdefg", 7, &d), 0);
        }
        int st = 0;
        cr_assert_eq(waitpid(pid, &st, 0), pid);
        cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == (streamed ? 10 : 7));
        struct stat sb;
        cr_assert_eq(stat(fifo, &sb), 0);
        cr_expect(S_ISFIFO(sb.st_mode), "the FIFO was replaced");
        cr_expect_eq(count_entries(dir, ""), 1);   /* no temporary left */
    }
    cr_expect_eq(d.count, 0);
    tsr_diag_fini(&d);
    remove(fifo);
    rmtree(dir);
}

Test(fileout, failed_commit_leaves_no_file)
{
    char *dir = make_tmpdir();
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    /* The target is a directory: the temporary is written, the rename fails, and the
     * temporary must be gone afterwards. */
    char target[4200], want[4400];
    snprintf(target, sizeof target, "%s/isdir", dir);
    cr_assert_eq(mkdir(target, 0777), 0);
    cr_assert_eq(tsr_file_commit(target, "data", 4, &d), -1);
    cr_assert_eq(count_entries(dir, ""), 1); /* only isdir itself */
    snprintf(want, sizeof want, "%s: error: cannot write: Is a directory", target);
    cr_assert_str_eq(d.entries[0].text, want);
    /* A missing parent directory: nothing is created. */
    char missing[4200];
    snprintf(missing, sizeof missing, "%s/no/such/file.c", dir);
    cr_assert_eq(tsr_file_commit(missing, "data", 4, &d), -1);
    cr_assert_eq(count_entries(dir, ""), 1);
    snprintf(want, sizeof want, "%s: error: cannot write: No such file or directory", missing);
    cr_assert_str_eq(d.entries[1].text, want);
    /* mkdir -p through a regular file fails with a diagnostic */
    char file[4200], through[4300];
    snprintf(file, sizeof file, "%s/plain", dir);
    cr_assert_eq(tsr_file_commit(file, "", 0, &d), 0);
    snprintf(through, sizeof through, "%s/x", file);
    cr_assert_eq(tsr_mkdir_p(through, &d), -1);
    snprintf(want, sizeof want, "%s: error: cannot create directory: Not a directory", file);
    cr_assert_str_eq(d.entries[2].text, want);
    tsr_diag_fini(&d);
    rmtree(dir);
}
