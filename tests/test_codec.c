/* Encoder/decoder of the generated QPU backend (build/gen/qpu, libtessera-qpu.a).
 *
 *  - decode then encode gives back every bit: all 12,112 words of the 16 GPU_FFT programs
 *    (../shared/corpus/qpu/gpu_fft_r3/hex/ *.hex, Broadcom's assembler output; TESSERA_SHARED
 *    overrides ../shared) and 1,000,000 random 64-bit words;
 *  - known encodings from ../shared/isa/qpu.md decode to the documented instruction;
 *  - the seed's blob listings (../shared/seeds/003_d3a94b40d2ad3247.txt, "('shader code'" blocks)
 *    decode to the listed operations and disassemble to the listed text (overrides aside);
 *  - decode and encode speed (printed; the goal is 50 million instructions/s each).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "qpu.h"
#include "tsr.h"

/* Reads every corpus program into one list of words (tools/corpus.h: the directory's .hex files in name order);
 * returns the number of files. */
static int read_corpus(struct tsr_words *all)
{
    char shared[4096], dir[4200], err[4400];
    corpus_shared_dir(shared, sizeof shared);
    snprintf(dir, sizeof dir, "%s/corpus/qpu/gpu_fft_r3/hex", shared);
    char *names[64];
    int n = corpus_hex_names(dir, names, 64, err, sizeof err);
    cr_assert_geq(n, 0, "%s (set TESSERA_SHARED to the shared directory)", err);
    struct tsr_diag dg;
    tsr_diag_init(&dg, TSR_DIAG_PRINT, stderr);
    tsr_words_init(all, 64);
    for (int i = 0; i < n; i++) {
        char path[8400];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        cr_assert_eq(tsr_words_read(all, path, TSR_WORDS_HEX, &dg), 0, "cannot read %s", path);
        free(names[i]);
    }
    tsr_diag_fini(&dg);
    return n;
}

static uint64_t rng(uint64_t *s)
{
    uint64_t x = *s;   /* xorshift64* */
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1DULL;
}

Test(codec, corpus_roundtrip)
{
    struct tsr_words all;
    int files = read_corpus(&all);
    size_t exact = 0, nofmt = 0, noop = 0;
    for (size_t i = 0; i < all.count; i++) {
        const uint32_t *w = tsr_words_at(&all, i);
        struct qpu_inst in;
        uint32_t back[2];
        if (qpu_decode(w, &in) < 0)
            nofmt++;
        for (int s = 0; s < QPU_NSLOTS; s++)
            for (unsigned f = 0; f < qpu_tc_isa.formats[in.format].nslot && in.format < QPU_NFORMATS; f++)
                if (qpu_tc_isa.idx[qpu_tc_isa.formats[in.format].slot + f] == s && in.op[s] == QPU_NO_OP)
                    noop++;
        qpu_encode(&in, back);
        if (back[0] == w[0] && back[1] == w[1])
            exact++;
        else
            cr_log_error("word %zu: 0x%08x, 0x%08x re-encodes as 0x%08x, 0x%08x", i, w[0], w[1], back[0], back[1]);
    }
    fprintf(stderr, "codec corpus: %d files, %zu words, %zu exact, %zu without format, %zu slots without op\n", files,
            all.count, exact, nofmt, noop);
    cr_expect_eq(files, 16);
    cr_expect_eq(all.count, 12112);
    cr_expect_eq(exact, all.count);
    cr_expect_eq(nofmt, 0);
    cr_expect_eq(noop, 0, "every corpus slot decodes to an operation");
    tsr_words_free(&all);
}

Test(codec, random_roundtrip)
{
    uint64_t s = 0x9e3779b97f4a7c15ULL;
    size_t exact = 0, n = 1000000;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = rng(&s);
        uint32_t w[2] = {(uint32_t)x, (uint32_t)(x >> 32)}, back[2];
        struct qpu_inst in;
        qpu_decode(w, &in);
        qpu_encode(&in, back);
        if (back[0] == w[0] && back[1] == w[1])
            exact++;
        else if (n - exact < 10)
            cr_log_error("0x%08x, 0x%08x re-encodes as 0x%08x, 0x%08x", w[0], w[1], back[0], back[1]);
    }
    fprintf(stderr, "codec random: %zu words, %zu exact\n", n, exact);
    cr_expect_eq(exact, n);
}

/* qpu_decode_next, given the struct of the word before, and qpu_decode_format agree with qpu_decode on every
 * member: 1,000,000 random words (the high bits kept for runs of 1 to 8 words, so runs of alu, ldi and the
 * rarer formats occur), about 3 % of them after a word of another format. */
Test(codec, decode_next_and_format)
{
    uint64_t s = 0x2545f4914f6cdd1dULL, x = 0;
    size_t n = 1000000, same = 0, changed = 0, bad = 0;
    struct qpu_inst next, full;
    memset(&next, 0, sizeof next);
    next.format = QPU_NO_FORMAT;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rng(&s);
        x = i % (1 + (r >> 61)) ? (x & 0xffff000000000000u) | (r & 0xffffffffffffu) : r;
        uint32_t w[2] = {(uint32_t)x, (uint32_t)(x >> 32)};
        int prev = next.format;
        memset(&full, 0x5a, sizeof full);
        int rc1 = qpu_decode(w, &full), rc2 = qpu_decode_next(w, &next);
        prev == full.format ? same++ : changed++;
        if (rc1 != rc2 || full.format != next.format || memcmp(full.op, next.op, sizeof full.op) ||
            memcmp(full.ignored, next.ignored, sizeof full.ignored) || memcmp(full.f, next.f, sizeof full.f) ||
            qpu_decode_format(w) != full.format) {
            if (bad++ < 10)
                cr_log_error("0x%08x, 0x%08x (after format %d): decode_next or decode_format differs", w[0], w[1],
                             prev);
        }
    }
    fprintf(stderr, "codec decode_next: %zu words, %zu after the same format, %zu after another\n", n, same, changed);
    cr_expect_eq(bad, 0);
    cr_expect_gt(same, n / 2);
    cr_expect_gt(changed, n / 100);
}

/* The text of one word. */
static char *dis(uint32_t lo, uint32_t hi)
{
    uint32_t w[2] = {lo, hi};
    struct tsr_buf b = {0};
    qpu_disasm(w, 0, &b);
    return b.data;
}

Test(codec, known_encodings)
{
    struct qpu_inst in;
    /* per-element signed ldi (qpu.md "ldi", mode 1): element i = {imm[16+i], imm[i]} */
    uint32_t pe[2] = {0x000000cc, 0xe20229e7};
    cr_assert_eq(qpu_decode(pe, &in), 0);
    cr_expect_str_eq(qpu_format_names[in.format], "ldi_pe");
    cr_expect_eq(in.f[QPU_F_SIG], 14);
    cr_expect_eq(in.f[QPU_F_LDI_MODE], 1);
    cr_expect_eq(in.f[QPU_F_SF], 1);
    cr_expect_eq(in.f[QPU_F_PE2], 1);
    cr_expect_eq(in.f[QPU_F_PE4], 0);
    char *t = dis(pe[0], pe[1]);
    cr_expect_str_eq(t, "mov.setf -, [0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0]");
    free(t);
    /* semaphore acquire 9 (qpu.md "ldi" mode 4) */
    uint32_t sa[2] = {0x00000019, 0xe80009e7};
    cr_assert_eq(qpu_decode(sa, &in), 0);
    cr_expect_str_eq(qpu_format_names[in.format], "sema");
    cr_expect_eq(in.f[QPU_F_SEM_ACQ], 1);
    cr_expect_eq(in.f[QPU_F_SEM_NUM], 9);
    t = dis(sa[0], sa[1]);
    cr_expect_str_eq(t, "mov -, sacq(9)");
    free(t);
    /* Broadcom's nop: 0x009e7000, 0x100009e7 */
    t = dis(0x009e7000, 0x100009e7);
    cr_expect_str_eq(t, "nop");
    free(t);
    /* GPU_FFT: `mov.ifz r0, r2; mov.ifnz r0, r1 >> 1` */
    t = dis(0x959f1489, 0xd004c820);
    cr_expect_str_eq(t, "mov.ifz r0, r2; mov.ifnz r0, r1 >> 1");
    free(t);
    /* GPU_FFT: `mov r1, r1; mov.ifz r1, r2 << 1` (mul rotation left) */
    t = dis(0x959ff252, 0xd0068861);
    cr_expect(strstr(t, "<< 1") != NULL, "rotation printed as '<< 1': %s", t);
    free(t);
}

/* First identifier of s (the mnemonic), or "" */
static void mnemonic(const char *s, char *out, size_t n)
{
    size_t k = 0;
    while (*s == ' ' || *s == '\t')
        s++;
    while ((*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')) &&
           k + 1 < n)
        out[k++] = *s++;
    out[k] = 0;
}

Test(codec, seed_blob_listings)
{
    char shared[4096], path[4200];
    corpus_shared_dir(shared, sizeof shared);
    snprintf(path, sizeof path, "%s/%s", shared, CORPUS_BLOB_SEED);
    FILE *f = fopen(path, "r");
    cr_assert(f, "cannot open %s", path);
    char line[512];
    bool in_block = false;
    int words = 0, ok = 0, textok = 0, overrides = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "('shader code'", 14) == 0) {
            in_block = true;
            continue;
        }
        unsigned addr, lo, hi;
        int used = 0;
        if (!in_block || sscanf(line, "%x: %x %x %n", &addr, &lo, &hi, &used) != 3 || !used) {
            if (in_block && line[0] != '0')
                in_block = false;
            continue;
        }
        char *text = line + used;
        text[strcspn(text, "\r\n")] = 0;
        char listed[512];
        snprintf(listed, sizeof listed, "%s", text);
        words++;
        /* the listed mnemonics, part by part, against the decoded ops of the format's slots */
        struct qpu_inst in;
        uint32_t w[2] = {lo, hi};
        cr_assert_eq(qpu_decode(w, &in), 0);
        const struct tsr_tc_format *F = &qpu_tc_isa.formats[in.format];
        char *save = NULL, *part = strtok_r(text, ";", &save);
        bool match = true;
        unsigned t = 0;
        char want[64];
        for (; part; part = strtok_r(NULL, ";", &save), t++) {
            mnemonic(part, want, sizeof want);
            cr_assert_lt(t, F->nslot, "'%s': more parts than slots", line);
            unsigned slot = qpu_tc_isa.idx[F->slot + t];
            if (in.op[slot] == QPU_NO_OP || strcmp(qpu_op_names[in.op[slot]], want) != 0) {
                cr_log_error("%08x %08x: slot %s decodes to %s, listing says %s", lo, hi, qpu_slot_names[slot],
                             in.op[slot] == QPU_NO_OP ? "(none)" : qpu_op_names[in.op[slot]], want);
                match = false;
            }
        }
        ok += match;
        /* and the whole text: the same as the listing, but for overrides of bits the text leaves open */
        char *t2 = dis(lo, hi);
        char *brace = strstr(t2, " {");
        if (brace) {
            overrides++;
            *brace = 0;
        }
        if (strcmp(t2, listed) == 0)
            textok++;
        else
            cr_log_error("%08x %08x: listed '%s', disassembled '%s'", lo, hi, listed, t2);
        free(t2);
    }
    fclose(f);
    fprintf(stderr, "codec seed: %d listed words, %d with the listed operations, %d with the listed text "
            "(%d of them with overrides)\n", words, ok, textok, overrides);
    cr_expect_eq(words, 33);
    cr_expect_eq(ok, words);
    cr_expect_eq(textok, words);
}
