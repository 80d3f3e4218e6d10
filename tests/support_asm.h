/* Test support: a test description's text assembled by its generated assembler (tests/test_fwd.c, test_twin.c,
 * test_blockend.c, test_wide.c). */
#ifndef TESTS_SUPPORT_ASM_H
#define TESTS_SUPPORT_ASM_H
#include "tsr.h"

/* Assembles text with target t's assembler into *w (initialised here, t->word_bits a word; the caller frees it); a
 * text that does not assemble fails the calling test with its first error. */
void test_assemble(const struct tsr_target *t, const char *text, struct tsr_words *w);
#endif
