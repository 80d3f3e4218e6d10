/* Assembler and disassembler of the generated QPU backend (build/gen/qpu, libtessera-qpu.a).
 *
 *  - disassemble then assemble gives back every bit: each of the 12,112 GPU_FFT words alone, each
 *    whole program (labels and all), and 1,000,000 random 64-bit words; the disassembler's exactness proof
 *    agrees with the full check (TESSERA_DIS_VERIFY) on 300,000 random words;
 *  - known encodings from ../shared/isa/qpu.md assemble to the documented words;
 *  - source features (labels, `.set` constants and aliases, `.word`, comments, overrides including
 *    `format=` and `ignore[i]=`, constant expressions, optional groups) and the exact diagnostics for
 *    bad input, `file:line:col` (docs/asm.md);
 *  - a line's words shared across programs (the thread's memo) only where it can name no symbol of its program;
 *  - robustness: 100,000 nested parentheses or unary operators give one diagnostic (no stack overflow),
 *    integers are exact on -2^63 .. 2^64-1 and every overflow, bad shift count or field misfit is an
 *    error quoting the text, `.set` doubling is bounded, and a failing bundle is reported at the real
 *    cause (`mov interrupt, 1; nop`: 'interrupt');
 *  - speed of both directions on whole programs (printed, CPU time; the goal is 2 million lines/s).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include "corpus.h"
#include "qpu.h"
#include "tsr.h"
#include "support_san.h"

/* The corpus programs, one struct tsr_words each (tools/corpus.h); returns the count. */
static int read_corpus(struct tsr_words *progs, int max)
{
    char err[2600];
    int n = corpus_hex_read("corpus/qpu/gpu_fft_r3/hex", 64, progs, max, err, sizeof err);
    cr_assert(n > 0, "%s", n < 0 ? err : "no GPU_FFT programs");
    return n;
}

static uint64_t rng(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1DULL;
}

/* Disassembles w at pc and assembles the text back; true when the bits are the same. */
static bool roundtrip(const uint32_t *w, uint64_t pc, struct tsr_buf *b, int *kind)
{
    uint32_t back[2] = {0, 0};
    char err[256];
    tsr_buf_clear(b);
    qpu_disasm(w, pc, b);
    *kind = strncmp(b->data, ".word", 5) == 0 ? 2 : strchr(b->data, '{') ? 1 : 0;
    if (qpu_assemble_one(b->data, b->len, pc, back, err, sizeof err) < 0) {
        cr_log_error("0x%08x, 0x%08x: '%s' does not assemble: %s", w[0], w[1], b->data, err);
        return false;
    }
    if (back[0] != w[0] || back[1] != w[1]) {
        cr_log_error("0x%08x, 0x%08x: '%s' assembles to 0x%08x, 0x%08x", w[0], w[1], b->data, back[0], back[1]);
        return false;
    }
    return true;
}

Test(asm, corpus_words_roundtrip)
{
    static struct tsr_words progs[64];
    int n = read_corpus(progs, 64);
    size_t words = 0, exact = 0, plain = 0, over = 0, raw = 0;
    struct tsr_buf b = {0};
    for (int p = 0; p < n; p++)
        for (size_t i = 0; i < progs[p].count; i++) {
            int kind;
            words++;
            if (roundtrip(tsr_words_at(&progs[p], i), i * 8, &b, &kind))
                exact++;
            plain += kind == 0;
            over += kind == 1;
            raw += kind == 2;
        }
    fprintf(stderr, "asm corpus words: %zu words, %zu exact (%zu plain, %zu with overrides, %zu .word)\n", words,
            exact, plain, over, raw);
    cr_expect_eq(words, 12112);
    cr_expect_eq(exact, words);
    cr_expect_eq(plain, words, "every GPU_FFT word prints without overrides or .word");
    tsr_buf_free(&b);
    for (int p = 0; p < n; p++)
        tsr_words_free(&progs[p]);
}

Test(asm, corpus_programs_roundtrip)
{
    static struct tsr_words progs[64];
    int n = read_corpus(progs, 64);
    size_t words = 0, exact = 0, labels = 0;
    for (int p = 0; p < n; p++) {
        struct tsr_buf text = {0};
        qpu_disasm_program(progs[p].w, progs[p].count, 0, &text);
        for (const char *s = text.data; (s = strchr(s, '\n')); s++)
            labels += s[1] == 'L';
        struct tsr_words back;
        tsr_words_init(&back, 64);
        struct tsr_diag d;
        tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
        cr_expect_eq(qpu_assemble("corpus.s", text.data, text.len, &back, &d), 0);
        cr_expect_eq(back.count, progs[p].count);
        for (size_t i = 0; i < progs[p].count && i < back.count; i++) {
            words++;
            if (memcmp(tsr_words_at(&back, i), tsr_words_at(&progs[p], i), 8) == 0)
                exact++;
        }
        tsr_diag_fini(&d);
        tsr_words_free(&back);
        tsr_buf_free(&text);
        tsr_words_free(&progs[p]);
    }
    fprintf(stderr, "asm corpus programs: %d programs, %zu words, %zu exact, %zu label lines\n", n, words, exact,
            labels);
    cr_expect_eq(words, 12112);
    cr_expect_eq(exact, words);
    cr_expect_gt(labels, 0);
}

Test(asm, random_roundtrip)
{
    uint64_t s = 0x243f6a8885a308d3ULL;
    size_t n = test_random_count("asm random round trip", 1000000), exact = 0, plain = 0, over = 0, raw = 0;
    struct tsr_buf b = {0};
    for (size_t i = 0; i < n; i++) {
        uint64_t x = rng(&s);
        uint32_t w[2] = {(uint32_t)x, (uint32_t)(x >> 32)};
        int kind;
        if (roundtrip(w, (i % 4096) * 8, &b, &kind))
            exact++;
        else if (n - exact > 20)
            break;
        plain += kind == 0;
        over += kind == 1;
        raw += kind == 2;
    }
    fprintf(stderr, "asm random: %zu words, %zu exact (%zu plain, %zu with overrides, %zu .word)\n", n, exact, plain,
            over, raw);
    cr_expect_eq(exact, n);
    tsr_buf_free(&b);
}

/* The disassembler's exactness proof (runtime/text/dis_exact.c) against the full round trip check: with
 * TESSERA_DIS_VERIFY=1 every proven bundle is checked as well and the process aborts on a disagreement.
 * 300,000 random words (ALU signals weighted as in real code, every other signal too) in programs of 4,096,
 * each program's text assembled back to its words. */
Test(asm, exactness_proof_agrees_with_check)
{
    cr_assert_eq(setenv("TESSERA_DIS_VERIFY", "1", 1), 0);
    uint64_t s = 0x13198a2e03707344ULL;
    size_t n = 4096, progs = test_random_count("asm exactness proof programs", 75), exact = 0;
    uint32_t *w = malloc(n * 2 * sizeof *w);
    cr_assert(w);
    for (size_t p = 0; p < progs; p++) {
        for (size_t i = 0; i < n; i++) {
            uint64_t x = rng(&s);
            if (p % 2 == 0)   /* an ALU signal (1, 3, 13: small immediates) in most words */
                x = (x & ~((uint64_t)15 << 60)) | (uint64_t)(i % 3 == 0 ? 13 : i % 3 == 1 ? 1 : 3) << 60;
            w[2 * i] = (uint32_t)x, w[2 * i + 1] = (uint32_t)(x >> 32);
        }
        struct tsr_buf text = {0};
        qpu_disasm_program(w, n, 0, &text);
        struct tsr_words back;
        tsr_words_init(&back, 64);
        struct tsr_diag d;
        tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
        cr_expect_eq(qpu_assemble("random.s", text.data, text.len, &back, &d), 0);
        if (back.count == n && memcmp(back.w, w, n * 8) == 0)
            exact++;
        tsr_diag_fini(&d);
        tsr_words_free(&back);
        tsr_buf_free(&text);
    }
    cr_expect_eq(exact, progs, "every program's disassembly assembles back to its words");
    free(w);
}

/* Assembles src (expecting success) and returns the words. */
static void assemble_ok(const char *src, struct tsr_words *out)
{
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    tsr_words_init(out, 64);
    int r = qpu_assemble("t.s", src, strlen(src), out, &d);
    for (size_t i = 0; i < d.count; i++)
        cr_log_error("%s", d.entries[i].text);
    cr_assert_eq(r, 0);
    tsr_diag_fini(&d);
}

static void expect_word(const struct tsr_words *p, size_t i, uint32_t lo, uint32_t hi)
{
    cr_assert_lt(i, p->count);
    const uint32_t *w = tsr_words_at(p, i);
    cr_expect(w[0] == lo && w[1] == hi, "word %zu: 0x%08x, 0x%08x, expected 0x%08x, 0x%08x", i, w[0], w[1], lo, hi);
}

Test(asm, known_encodings)
{
    struct tsr_words p;
    assemble_ok("mov.setf -, [0,0,1,1,0,0,1,1,0,0,0,0,0,0,0,0]\n"
                "mov -, sacq(9)\n"
                "nop\n"
                "mov r0, unif\n"                              /* seed blob */
                "fadd r1, unif, r0; nop; sbwait\n"            /* seed blob */
                "nop; nop; thrend\n"
                "mov.ifz r0, r2; mov.ifnz r0, r1 >> 1\n",    /* GPU_FFT */
                &p);
    expect_word(&p, 0, 0x000000cc, 0xe20229e7);
    expect_word(&p, 1, 0x00000019, 0xe80009e7);
    expect_word(&p, 2, 0x009e7000, 0x100009e7);
    expect_word(&p, 3, 0x15827d80, 0x10020827);
    expect_word(&p, 4, 0x01827c00, 0x40020867);
    expect_word(&p, 5, 0x009e7000, 0x300009e7);
    expect_word(&p, 6, 0x959f1489, 0xd004c820);
    tsr_words_free(&p);
}

/* Print formats (docs/mdl.md "Fields", `print hex`): qpu.mdl declares imm32 `print hex`, so a 32-bit load
 * immediate prints in hex as Broadcom's GPU_FFT source writes its setup words and masks, 0-9 in decimal,
 * and the text assembles back to the same word. */
Test(asm, print_formats)
{
    static const struct { uint32_t lo, hi; const char *text; } cases[] = {
        { 0x88104000, 0xe0020727, "mov ra28, 0x88104000" },   /* GPU_FFT shader_256: vdw_setup_0(16, 16, ...) */
        { 0x00005555, 0xe0020767, "mov ra29, 0x5555" },       /* GPU_FFT: mov rx_0x5555, 0x5555 */
        { 0x00000003, 0xe0020827, "mov r0, 3" },
        { 0x0000000a, 0xe0020827, "mov r0, 0xa" },
        { 0xffffffff, 0xe0020827, "mov r0, 0xffffffff" },
    };
    struct tsr_buf b = {0};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint32_t w[2] = { cases[i].lo, cases[i].hi }, back[2];
        char err[256];
        tsr_buf_clear(&b);
        qpu_disasm(w, 0, &b);
        cr_expect_str_eq(b.data, cases[i].text);
        cr_assert_eq(qpu_assemble_one(b.data, b.len, 0, back, err, sizeof err), 0, "%s: %s", b.data, err);
        cr_expect(back[0] == w[0] && back[1] == w[1], "%s: 0x%08x, 0x%08x", b.data, back[0], back[1]);
    }
    /* a negative value still assembles to the same bits */
    uint32_t back[2];
    char err[256];
    cr_assert_eq(qpu_assemble_one("mov r0, -1", 10, 0, back, err, sizeof err), 0, "%s", err);
    cr_expect(back[0] == 0xffffffff && back[1] == 0xe0020827);
    tsr_buf_free(&b);
}

Test(asm, source_features)
{
    struct tsr_words p;
    assemble_ok("# GPU_FFT style\n"
                ".set STAGES, 10\n"
                ".set rb_0x40, rb27      // a register alias\n"
                ".set ra_link, ra0\n"
                "    mov rb_0x40, 0x40\n"
                "    mov r0, STAGES + (1 << 4)\n"
                "loop:\n"
                "    and.setf -, elem_num, (8>>1)\n"
                "    brr.anynz -, r:loop\n"
                "    brr ra_link, r:end\n"
                "    nop\n"
                ".word 0x009e7000, 0x100009e7\n"
                "end: nop {raddr_b=38}\n"
                "    mov r1, 2.0; fmul r0, r1, r2\n"
                "    mov r0, 5 {format=alu}\n"                /* a small immediate, not a load immediate */
                "    brr -, r:end {ignore[0]=5}\n",           /* bits 59:56 of a branch */
                &p);
    cr_assert_eq(p.count, 11);
    expect_word(&p, 0, 0x00000040, 0xe00216e7);   /* GPU_FFT: mov rb_0x40, 0x40 with rb_0x40 = rb27 */
    expect_word(&p, 1, 26, 0xe0020827);
    expect_word(&p, 6, 0x009e7000, 0x100009e7);   /* .word */
    expect_word(&p, 7, 0x009e6000, 0x100009e7);   /* nop {raddr_b=38}: raddr_b 39 -> 38 */
    /* branch offsets: relative to the branch + 32 bytes */
    struct qpu_inst in;
    qpu_decode(tsr_words_at(&p, 3), &in);
    cr_expect_eq((int32_t)in.f[QPU_F_IMM32], 2 * 8 - (3 * 8 + 32));
    cr_expect_eq(in.f[QPU_F_BR_COND], 3);
    qpu_decode(tsr_words_at(&p, 4), &in);
    cr_expect_eq((int32_t)in.f[QPU_F_IMM32], 7 * 8 - (4 * 8 + 32));
    cr_expect_eq(in.f[QPU_F_WADDR_ADD], 0);
    cr_expect_str_eq(p.comment[0], "mov rb_0x40, 0x40");
    qpu_decode(tsr_words_at(&p, 9), &in);
    cr_expect_str_eq(qpu_format_names[in.format], "alu");
    cr_expect_eq(in.f[QPU_F_SIG], 13);
    cr_expect_eq(in.f[QPU_F_RADDR_B], 5);
    qpu_decode(tsr_words_at(&p, 10), &in);
    cr_expect_str_eq(qpu_format_names[in.format], "branch");
    cr_expect_eq((tsr_words_at(&p, 10)[1] >> 24) & 0xf, 5);
    tsr_words_free(&p);
}

/* A small immediate followed by the mul rotation reads back as the disassembler prints it: `-12 >> 4` is the small
 * immediate -12 and a rotation by 4 (raddr_b 52, both at once [QPU Small immediates]), not the folded value -1,
 * which `(-12 >> 4)` still is (fuzz_repack found the disassembly assembling to another word). */
Test(asm, smallimm_rotation)
{
    struct tsr_words p;
    assemble_ok("    v8min r2, r3, -12 >> 4\n    v8min r2, r3, (-12 >> 4)\n    mov r1, r0; v8min r2, r3, 3 << 1\n", &p);
    cr_assert_eq(p.count, 3);
    struct qpu_inst in;
    qpu_decode(tsr_words_at(&p, 0), &in);
    cr_expect_eq(in.f[QPU_F_SIG], 13);
    cr_expect_eq(in.f[QPU_F_RADDR_B], 52);
    qpu_decode(tsr_words_at(&p, 1), &in);
    cr_expect_eq(in.f[QPU_F_RADDR_B], 31);
    qpu_decode(tsr_words_at(&p, 2), &in);
    cr_expect_eq(in.f[QPU_F_RADDR_B], 6);    /* 3 << 1: no rotating code gives 3 (codes 48-63 give -16..-1): 6 */
    tsr_words_free(&p);
}

/* Assembles src expecting failure; the diagnostics joined by '\n'. */
static char *assemble_err(const char *src)
{
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    struct tsr_words out;
    tsr_words_init(&out, 64);
    int r = qpu_assemble("bad.s", src, strlen(src), &out, &d);
    cr_expect_eq(r, -1);
    struct tsr_buf b = {0};
    for (size_t i = 0; i < d.count; i++)
        tsr_buf_printf(&b, "%s%s", i ? "\n" : "", d.entries[i].text);
    tsr_buf_puts(&b, "");
    tsr_diag_fini(&d);
    tsr_words_free(&out);
    return b.data;
}

Test(asm, diagnostics)
{
    char *e = assemble_err("fadd r0, r1, rb5; fmul r1, r2, rb6\n"
                           "fadd r0, r1, r9\n"
                           "fmadd r0, r1, r2\n"
                           "brr -, r:nowhere\n"
                           "mov r0, 1; nop; nop; nop; nop; nop\n"
                           "fadd r0, r1, 2; ldtmu0\n"
                           ".bogus 3\n"
                           ".word 1, 2, 3\n"
                           "nop {frob=1}\n"
                           "x: nop\nx: nop\n"
                           "fadd ra1, r0, r1; fmul ra2, r0, r1\n"
                           "fadd r0, r1, (2\n");
    cr_expect_str_eq(e,
        "bad.s:1:32: error: raddr_b is already used by 'rb5'; cannot also read 'rb6'\n"
        "bad.s:2:14: error: invalid operand 'r9'\n"
        "bad.s:3:1: error: unknown instruction 'fmadd'\n"
        "bad.s:4:10: error: undefined label 'nowhere'\n"
        "bad.s:5:21: error: too many parts: format 'alu' has only 3 slots\n"
        "bad.s:6:17: error: sig is already used by '2'; cannot also use it for 'ldtmu0'\n"
        "bad.s:7:1: error: unknown directive '.bogus'\n"
        "bad.s:8:7: error: '.word' needs a multiple of 2 values (one instruction is 64 bits), not 3\n"
        "bad.s:9:6: error: unknown field 'frob' in overrides\n"
        "bad.s:11:1: error: label 'x' is already defined (line 10)\n"
        "bad.s:12:24: error: ws is already used by 'ra1'; cannot also write 'ra2'\n"
        "bad.s:13:14: error: missing ')' after '(2'");
    free(e);
}

/* The line-at-a-time assembler (tsr_tc_asm_*) on lines that do not outlive the call (each copied into a buffer
 * scribbled over afterwards) gives tsr_tc_assemble's words, source texts, lines and diagnostics: labels used
 * before their definition, `.set` constants and aliases (of aliases), `.word`, and errors. */
struct emitted {
    struct tsr_words w;
};

static void collect_emit(void *ctx, const uint32_t *w, const char *comment, unsigned line)
{
    tsr_words_push(&((struct emitted *)ctx)->w, w, comment, line);
}

static void expect_lines_same(const char *text, const char *what)
{
    size_t len = strlen(text);
    char *m1 = NULL, *m2 = NULL;
    size_t l1 = 0, l2 = 0;
    FILE *f1 = open_memstream(&m1, &l1), *f2 = open_memstream(&m2, &l2);
    struct tsr_diag d1, d2;
    tsr_diag_init(&d1, TSR_DIAG_PRINT, f1);
    tsr_diag_init(&d2, TSR_DIAG_PRINT, f2);
    struct tsr_words whole;
    tsr_words_init(&whole, 64);
    int r1 = tsr_tc_assemble(&qpu_tc_isa, "x.s", text, len, &whole, &d1);
    struct emitted e;
    tsr_words_init(&e.w, 64);
    struct tsr_tc_asm *A = tsr_tc_asm_begin(&qpu_tc_isa, "x.s", 0, &d2);
    char *line = malloc(len + 1);
    for (int pass = 1; pass <= 2; pass++) {
        if (pass == 2)
            tsr_tc_asm_pass2(A, collect_emit, &e);
        for (const char *lb = text, *end = text + len; lb < end;) {
            const char *le = memchr(lb, '\n', (size_t)(end - lb));
            le = le ? le : end;
            memcpy(line, lb, (size_t)(le - lb));
            if (pass == 1)
                tsr_tc_asm_labels(A, line, line + (le - lb));
            else
                tsr_tc_asm_line(A, line, line + (le - lb));
            memset(line, '#', (size_t)(le - lb));   /* the line is gone */
            lb = le < end ? le + 1 : end;
        }
    }
    int r2 = tsr_tc_asm_end(A);
    fflush(f1);
    fflush(f2);
    cr_expect_eq(r2, r1, "%s", what);
    cr_expect_str_eq(m2, m1, "%s", what);
    cr_assert_eq(e.w.count, whole.count, "%s", what);
    for (size_t i = 0; i < whole.count; i++) {
        cr_assert_eq(tsr_words_get64(&e.w, i), tsr_words_get64(&whole, i), "%s: instruction %zu", what, i);
        cr_assert_eq(e.w.line[i], whole.line[i]);
        cr_assert_str_eq(e.w.comment[i], whole.comment[i]);
    }
    free(line);
    tsr_words_free(&whole);
    tsr_words_free(&e.w);
    tsr_diag_fini(&d1);
    tsr_diag_fini(&d2);
    fclose(f1);
    fclose(f2);
    free(m1);
    free(m2);
}

Test(asm, line_at_a_time_matches_whole_text)
{
    static struct tsr_words progs[64];
    int n = read_corpus(progs, 64);
    for (int p = 0; p < n; p++) {
        struct tsr_buf text = {0};
        qpu_disasm_program(progs[p].w, progs[p].count, 0, &text);
        expect_lines_same(text.data, "a GPU_FFT program");
        tsr_buf_free(&text);
        tsr_words_free(&progs[p]);
    }
    expect_lines_same("    brr -, later\n"
                      ".set k, 3\n"
                      ".set acc, r1\n"
                      ".set acc2, acc\n"
                      "start: nop\n"
                      "    mov acc2, k   # acc is r1\n"
                      "later: mov ra1, start + 8 // comment\n"
                      "    .word 0x1, 0x2\n"
                      "    .word later, start, 5\n"
                      "start: nop\n"
                      "    mov r9, 1\n"
                      "    .bogus\n"
                      "    mov acc, undefined_name\n"
                      "    nop",
                      "labels, .set, .word and errors");
}

/* src with "%s" replaced by n copies of `unit` and then `tail` (malloc'd). */
static char *repeat(const char *head, const char *unit, size_t n, const char *tail)
{
    size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
    char *s = malloc(hl + ul * n + tl + 1);
    cr_assert(s);
    memcpy(s, head, hl);
    for (size_t i = 0; i < n; i++)
        memcpy(s + hl + i * ul, unit, ul);
    memcpy(s + hl + ul * n, tail, tl + 1);
    return s;
}

/* 100,000 nested parentheses or unary operators: one diagnostic at the 257th, no stack overflow (the
 * expression parser is recursive; TSR_ASM_MAX_NEST bounds it).  256 levels still assemble. */
Test(asm, nesting_bounded)
{
    static const struct { const char *open, *col; } kinds[] = {{"(", "265"}, {"-", "265"}, {"~", "265"}, {"+", "265"}};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        char *open = repeat("mov r0, ", kinds[i].open, 100000, "1");
        char *src = malloc(strlen(open) + 100000 + 2);
        strcpy(src, open);
        if (kinds[i].open[0] == '(') {   /* close them all */
            memset(src + strlen(open), ')', 100000);
            src[strlen(open) + 100000] = 0;
        }
        strcat(src, "\n");
        char *e = assemble_err(src);
        char want[200];
        snprintf(want, sizeof want,
                 "bad.s:1:%s: error: expression nested too deeply (more than 256 parentheses and unary operators) "
                 "at '%s'", kinds[i].col, kinds[i].open);
        cr_expect_str_eq(e, want);
        free(e);
        free(src);
        free(open);
    }
    /* the same bound in .set, .word and overrides */
    char *a = repeat(".set K, ", "(", 100000, "1\n");
    char *b = repeat(".word ", "-", 100000, "1, 0\n");
    char *c = repeat("nop {raddr_b=", "~", 100000, "1}\n");
    size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
    char *all = malloc(la + lb + lc + 1);
    memcpy(all, a, la);
    memcpy(all + la, b, lb);
    memcpy(all + la + lb, c, lc + 1);
    char *e = assemble_err(all);
    cr_expect_str_eq(e,
        "bad.s:1:265: error: expression nested too deeply (more than 256 parentheses and unary operators) at '('\n"
        "bad.s:2:263: error: expression nested too deeply (more than 256 parentheses and unary operators) at '-'\n"
        "bad.s:3:270: error: expression nested too deeply (more than 256 parentheses and unary operators) at '~'");
    free(e);
    free(all);
    free(a);
    free(b);
    free(c);
    /* 256 levels are fine: 252 parentheses around 4 unary operators, and 256 unary minus signs */
    char *open = repeat("mov r0, ", "(", 252, "- - ~ ~ 7");
    char *src = repeat(open, ")", 252, "\nmov r1, ");
    char *src2 = repeat(src, "-", 256, "5\n");
    struct tsr_words p;
    assemble_ok(src2, &p);
    expect_word(&p, 0, 7, 0xe0020827);
    expect_word(&p, 1, 5, 0xe0020867);
    tsr_words_free(&p);
    free(open);
    free(src);
    free(src2);
}

/* Integer arithmetic is exact on -2^63 .. 2^64-1 (docs/asm.md "Constant expressions"). */
Test(asm, integer_range_values)
{
    struct tsr_words p;
    assemble_ok(".set BIG, 0xffffffffffffffff\n"
                "mov r0, (1 << 63) >> 62\n"                                   /* 2 */
                "mov r0, 0xffffffffffffffff - 0xfffffffffffffffe\n"           /* 1 */
                "mov r0, 18446744073709551615 / 0x100000000\n"                /* 0xffffffff */
                "mov r0, -0x8000000000000000 / -0x4000000000000000\n"         /* 2 */
                "mov r0, ~0 & 0xff\n"                                         /* 255 */
                "mov r0, -7 >> 1\n"                                           /* -4: arithmetic shift (floor) */
                "mov r0, -7 / 2\n"                                            /* -3: truncation, as in C */
                "mov r0, -7 % 2\n"                                            /* -1 */
                "mov r0, (-1 << 63) >> 63\n"                                  /* -1 */
                "mov r0, 0xffffffffffffffff ^ 0xfffffffffffffff0\n"           /* 15 */
                "mov r0, (-1 & BIG) >> 32\n"                                  /* 0xffffffff */
                "mov r0, BIG - (BIG - 3)\n"                                   /* 3 */
                "mov r0, 0b1111111111111111111111111111111111111111111111111111111111111111 >> 60\n", /* 15 */
                &p);
    static const uint32_t want[] = {2, 1, 0xffffffff, 2, 255, 0xfffffffc, 0xfffffffd, 0xffffffff, 0xffffffff, 15,
                                    0xffffffff, 3, 15};
    cr_assert_eq(p.count, sizeof want / sizeof *want);
    for (size_t i = 0; i < p.count; i++)
        expect_word(&p, i, want[i], 0xe0020827);
    tsr_words_free(&p);
}

/* Every literal or result outside -2^63 .. 2^64-1, every shift count outside 0..63 and every value that
 * does not fit its field is an error quoting the text as written (no wrapped value). */
Test(asm, integer_range_errors)
{
    char *e = assemble_err("mov r0, 18446744073709551616\n"
                           "mov r0, 0x1_0000_0000_0000_0000\n"
                           "mov r0, 0b10000000000000000000000000000000000000000000000000000000000000001\n"
                           "mov r0, 1 << 64\n"
                           "mov r0, 1 << -1\n"
                           "mov r0, 2 >> 64\n"
                           "mov r0, 3 << 63\n"
                           "mov r0, 0xffffffffffffffff + 1\n"
                           "mov r0, -0x8000000000000000 - 1\n"
                           "mov r0, 0x100000000 * 0x100000000\n"
                           "mov r0, -0xffffffffffffffff\n"
                           "mov r0, ~0xffffffffffffffff\n"
                           "mov r0, 0xffffffffffffffff\n"
                           "mov r0, 4294967296\n"
                           ".set K, 2 + (1 << 64)\n"
                           "nop {raddr_b=0x10000000000000000}\n"
                           ".word 18446744073709551617, 0\n"
                           "nop {raddr_b=0xffffffffffffffff}\n"
                           "mov r0, 1 / 0\n"
                           "mov r0, 18446744073709551617\n"
                           "mov r0, 0x10000000000000001\n");
    cr_expect_str_eq(e,
        "bad.s:1:9: error: integer '18446744073709551616' does not fit 64 bits\n"
        "bad.s:2:9: error: integer '0x1_0000_0000_0000_0000' does not fit 64 bits\n"
        "bad.s:3:9: error: integer '0b10000000000000000000000000000000000000000000000000000000000000001' does not "
        "fit 64 bits\n"
        "bad.s:4:9: error: shift count out of range 0..63 in '1 << 64'\n"
        "bad.s:5:9: error: shift count out of range 0..63 in '1 << -1'\n"
        "bad.s:6:9: error: shift count out of range 0..63 in '2 >> 64'\n"
        "bad.s:7:9: error: value of '3 << 63' does not fit 64 bits (integers are -2^63 .. 2^64-1)\n"
        "bad.s:8:9: error: value of '0xffffffffffffffff + 1' does not fit 64 bits (integers are -2^63 .. 2^64-1)\n"
        "bad.s:9:9: error: value of '-0x8000000000000000 - 1' does not fit 64 bits (integers are -2^63 .. 2^64-1)\n"
        "bad.s:10:9: error: value of '0x100000000 * 0x100000000' does not fit 64 bits (integers are -2^63 .. "
        "2^64-1)\n"
        "bad.s:11:9: error: value of '-0xffffffffffffffff' does not fit 64 bits (integers are -2^63 .. 2^64-1)\n"
        "bad.s:12:9: error: value of '~0xffffffffffffffff' does not fit 64 bits (integers are -2^63 .. 2^64-1)\n"
        "bad.s:13:9: error: value '0xffffffffffffffff' = 18446744073709551615 does not fit field imm32 (32 bits, "
        "signed)\n"
        "bad.s:14:9: error: value 4294967296 does not fit field imm32 (32 bits, signed)\n"
        "bad.s:15:14: error: shift count out of range 0..63 in '1 << 64'\n"
        "bad.s:16:14: error: integer '0x10000000000000000' does not fit 64 bits\n"
        "bad.s:17:7: error: integer '18446744073709551617' does not fit 64 bits\n"
        "bad.s:18:14: error: value '0xffffffffffffffff' does not fit field raddr_b (6 bits)\n"
        "bad.s:19:9: error: division by zero in '1 / 0'\n"
        "bad.s:20:9: error: integer '18446744073709551617' does not fit 64 bits\n"
        "bad.s:21:9: error: integer '0x10000000000000001' does not fit 64 bits");
    free(e);
}

/* `.set aN, aN-1 aN-1` doubles the text each line: 40 lines would stand for 2^40 bytes.  An alias (and
 * a line after substitution) is bounded to 65,536 bytes; the line that crosses it is reported. */
Test(asm, alias_blowup_bounded)
{
    struct tsr_buf src = {0};
    tsr_buf_puts(&src, ".set a0, r0\n");
    for (int i = 1; i <= 40; i++)
        tsr_buf_printf(&src, ".set a%d, a%d a%d\n", i, i - 1, i - 1);
    tsr_buf_puts(&src, ".set b0, ra1\n");
    for (int i = 1; i <= 13; i++)
        tsr_buf_printf(&src, ".set b%d, b%d b%d\n", i, i - 1, i - 1);
    tsr_buf_puts(&src, "mov r0, b13 b13 b13 b13\n");
    char *e = assemble_err(src.data);
    cr_expect_str_eq(e,
        "bad.s:16:15: error: '.set a15' would stand for more than 65536 characters (at alias 'a14')\n"
        "bad.s:31:15: error: '.set a30' would stand for more than 65536 characters (at alias 'a29')\n"
        "bad.s:56:13: error: line is longer than 65536 characters after alias substitution (at alias 'b13')");
    free(e);
    tsr_buf_free(&src);
}

/* When no format matches, the diagnostic names what no alternative accepts, even when a format the
 * fast search skipped (the load immediate has no slot for `nop`) would fail further right. */
Test(asm, diagnostics_real_cause)
{
    char *e = assemble_err("mov interrupt, 1; nop\n"
                           "mov interrupt, r1; nop\n"
                           "ldtmu0; frob\n"
                           "mov r0, 1; nop; nop\n"
                           "brr -, 0; nop\n"
                           "fadd r0, r1, r2; fmul r0, r1, r2; fadd r0, r1, r2\n"
                           "nop; nop; nop; nop\n");
    cr_expect_str_eq(e,
        "bad.s:1:5: error: invalid operand 'interrupt'\n"
        "bad.s:2:5: error: invalid operand 'interrupt'\n"
        "bad.s:3:9: error: unknown instruction 'frob'\n"
        "bad.s:4:17: error: no slot of format 'alu' left for 'nop'\n"
        "bad.s:5:10: error: too many parts: format 'branch' has only 1 slot\n"
        "bad.s:6:35: error: no slot of format 'alu' left for 'fadd'\n"
        "bad.s:7:15: error: too many parts: format 'alu' has only 3 slots");
    free(e);
    /* the one-instruction entry gives the same message */
    uint32_t w[2];
    char err[256];
    cr_expect_eq(qpu_assemble_one("mov interrupt, 1; nop", 21, 0, w, err, sizeof err), -1);
    cr_expect_str_eq(err, "invalid operand 'interrupt'");
}

/* The program level shares a line's words across programs (a per-thread memo) only when the line can name
 * none of its program's symbols: `mov r0, r1` moves the accumulator, but after `.set r1, 7` it loads 7 (the
 * expression path finds the constant).  Each order of the two programs in one thread gives the words a new
 * thread (empty memos) gives for the program alone. */
struct prog_words { const char *src[2]; uint32_t w[2][8]; size_t n[2]; int rc; };

static int assemble_in_order(void *arg)
{
    struct prog_words *pw = arg;
    for (int k = 0; k < 2 && pw->src[k]; k++) {
        struct tsr_diag d;
        tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
        struct tsr_words out;
        tsr_words_init(&out, 64);
        pw->rc |= qpu_assemble("t.s", pw->src[k], strlen(pw->src[k]), &out, &d);
        pw->n[k] = out.count;
        for (size_t i = 0; i < out.count && i < 4; i++)
            memcpy(pw->w[k] + 2 * i, tsr_words_at(&out, i), 8);
        tsr_words_free(&out);
        tsr_diag_fini(&d);
    }
    return 0;
}

/* Runs assemble_in_order on a new thread. */
static void in_new_thread(struct prog_words *pw)
{
    thrd_t th;
    int res;
    cr_assert_eq(thrd_create(&th, assemble_in_order, pw), thrd_success);
    cr_assert_eq(thrd_join(th, &res), thrd_success);
    cr_assert_eq(pw->rc, 0);
}

Test(asm, lines_shared_only_without_symbols)
{
    const char *plain = "    mov r0, r1\n    mov r0, ra1\n    nop\n    fadd r0, r1, 2.0\n";
    const char *named = ".set r1, 7\n    mov r0, r1\n    mov r0, ra1\nra1: nop\n    fadd r0, r1, 2.0\n";
    struct prog_words alone[2] = { { { plain, NULL }, { { 0 } }, { 0 }, 0 }, { { named, NULL }, { { 0 } }, { 0 }, 0 } };
    in_new_thread(&alone[0]);
    in_new_thread(&alone[1]);
    cr_assert_eq(alone[0].n[0], 4);
    cr_assert_eq(alone[1].n[0], 4);
    cr_expect_neq(alone[0].w[0][0], alone[1].w[0][0], "the constant changes what `mov r0, r1` means");
    cr_expect_eq(alone[1].w[0][0], 7);
    cr_expect_neq(alone[0].w[0][2], alone[1].w[0][2], "the label changes what `mov r0, ra1` means");
    struct prog_words both[2] = { { { plain, named }, { { 0 } }, { 0 }, 0 }, { { named, plain }, { { 0 } }, { 0 }, 0 } };
    for (int o = 0; o < 2; o++) {
        in_new_thread(&both[o]);
        for (int k = 0; k < 2; k++) {
            const struct prog_words *ref = &alone[(o + k) % 2];
            cr_expect_eq(both[o].n[k], 4);
            cr_expect(!memcmp(both[o].w[k], ref->w[0], sizeof ref->w[0]), "order %d, program %d: words differ from a new "
                      "thread's", o, k);
        }
    }
}
