/* The printer mdlc generates per op against the interpreted one (tests/support_disprint.h) on
 * tests/desc/dprint.mdl, a description made for it: the template features the QPU does not use (a sparse
 * table, names longer than 15 bytes, float table entries with an infinite one, fields printed float, hex on
 * 64 bits, signed and unsigned, absolute and pc-relative labels in operand alternatives, alternatives that give
 * up on a code with no text, an empty template).
 *
 *  - 1,000,000 random words (biased towards each format and towards the alternatives' conditions): the same
 *    result, text, labels and path record from both printers, up to the last non-default slot and every slot,
 *    within the bounds mdlc gives each op; and that each feature was printed at least once;
 *  - 100,000 random words as a program, a fifth of them jumps into it (labels, round-trip overrides, `.word`):
 *    the same text. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dprint.h"
#include "support_disprint.h"
#include "tsr.h"
#include "support_san.h"

/* A random word, its fields pushed towards the cases the description distinguishes. */
static uint64_t word(uint64_t *s)
{
    uint64_t x = dp_rng(s), r = dp_rng(s);
    switch (r % 8) {
    case 0:   /* c = 0: no tail */
        return x & ~UINT64_C(0xffff00000000);
    case 1:   /* c = 1 or 2: a label */
        return (x & ~UINT64_C(0xffff00000000)) | (r >> 8) % 4 << 32;
    case 2:   /* b = 0 */
        return x & ~UINT64_C(0x003f000000000000);
    case 3:   /* a sparse table's codes */
        return (x & ~UINT64_C(0xffff00000000)) | (uint64_t)((r >> 8) % 2 ? 1000 : 60000) << 32;
    case 5:   /* c = 50: the op whose table has no entries */
        return (x & ~UINT64_C(0xffff00000000)) | UINT64_C(50) << 32;
    case 4:   /* the float format, small a */
        return (x & ~(UINT64_C(0xff) << 56)) | UINT64_C(4) << 60 | ((r >> 8) % 16) << 54;
    default:
        return x;
    }
}

/* How many printed texts contain s. */
static size_t seen(const char *text, const char *s)
{
    size_t k = 0;
    for (const char *p = text; (p = strstr(p, s)); p++)
        k++;
    return k;
}

Test(dprint, random_words)
{
    const struct tsr_tc_isa *isa = &dprint_tc_isa;
    struct tsr_tc_printer *G = tsr_tc_printer_new(isa, true), *I = tsr_tc_printer_new(isa, false);
    uint64_t s = 0x452821e638d01377ULL;
    struct dp_tally t = {0};
    struct tsr_buf text = {0};
    size_t bad = 0, n = test_random_count("dprint random words", 1000000);
    for (size_t i = 0; i < n && bad < 10; i++) {
        uint64_t x = word(&s);
        uint32_t w[2] = {(uint32_t)x, (uint32_t)(x >> 32)};
        uint64_t pc = (dp_rng(&s) & 0xffffff) * 8;
        bad += dp_check(isa, G, I, w, pc, i % 4 == 0, &t);
        if (i < 200000 && tsr_tc_printer_print(G, w, pc, false, &text) == 0)
            tsr_buf_puts(&text, "\n");
    }
    fprintf(stderr, "dprint random: %zu prints (%zu printed, %zu not), %zu events, %zu labels\n", t.words, t.printed,
            t.unprinted, t.events, t.labels);
    cr_expect_eq(bad, 0);
    cr_expect_gt(t.unprinted, 0);
    cr_expect_gt(t.labels, 0);
    /* each feature printed at least once (in the first 200,000 words) */
    static const char *const feature[] = {
        "verylongregistername", "a_register_name_of_more_than_forty_eight_characters_here", ", big", ", huge", "stackptr" /* never: the synonym */, "fo -1.5", "fo 0x7f",
        "raw 0x", "ho -", "add.x", "add.y", "i:-", ", c=", "fo 0.1,", "[inf", ", L", " lk", "go big, 0x", "!", "; nul",
    };
    for (size_t k = 0; k < sizeof feature / sizeof *feature; k++) {
        size_t c = seen(text.data, feature[k]);
        if (!strcmp(feature[k], "stackptr") || !strncmp(feature[k], "[inf", 4) || !strcmp(feature[k], "; nul"))
            cr_expect_eq(c, 0, "'%s' printed %zu times", feature[k], c);
        else
            cr_expect_gt(c, 0, "'%s' never printed", feature[k]);
    }
    tsr_buf_free(&text);
    tsr_tc_printer_free(G);
    tsr_tc_printer_free(I);
}

Test(dprint, program)
{
    size_t nw = test_random_count("dprint program words", 100000);
    uint32_t *w = malloc(nw * 8);
    cr_assert(w);
    uint64_t s = 0xbe5466cf34e90c6cULL;
    for (size_t i = 0; i < nw; i++) {
        uint64_t x = word(&s);
        if (i % 5 == 0)   /* jmp into the program: target = pc + 8 + imm */
            x = (x & ~(UINT64_C(0xf) << 60) & ~UINT64_C(0xffffffff)) | UINT64_C(2) << 60 |
                (uint64_t)(uint32_t)((dp_rng(&s) % nw) * 8 - i * 8 - 8);
        w[2 * i] = (uint32_t)x;
        w[2 * i + 1] = (uint32_t)(x >> 32);
    }
    struct tsr_buf a = {0}, b = {0};
    cr_expect(dp_program_same(&dprint_tc_isa, w, nw, &a, &b), "the printers differ");
    fprintf(stderr, "dprint program: %zu words, %zu bytes of text, %zu label lines, %zu .word\n", nw, a.len,
            seen(a.data, "\nL"), seen(a.data, ".word"));
    cr_expect_gt(seen(a.data, "\nL"), 100);
    free(w);
    tsr_buf_free(&a);
    tsr_buf_free(&b);
}
