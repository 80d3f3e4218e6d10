/* Unit tests of runtime/hexio.c: hex and binary words read and written, streamed reads, diagnostics.  Run from the
 * repository root (ninja test does); the shared corpus is found at $TESSERA_SHARED/corpus if that is set, else at
 * ../shared/corpus relative to $TESSERA_ROOT (or to the current directory when TESSERA_ROOT is unset). */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support_capture.h"
#include "tsr.h"

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
