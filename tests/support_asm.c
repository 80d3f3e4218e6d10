/* Test support: assembling a test description's text (support_asm.h). */
#include "support_asm.h"

#include <criterion/criterion.h>
#include <string.h>

void test_assemble(const struct tsr_target *t, const char *text, struct tsr_words *w)
{
	struct tsr_diag d;
	tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
	tsr_words_init(w, t->word_bits);
	int rc = t->assemble("t.s", text, strlen(text), w, &d);
	cr_assert_eq(rc, 0, "%s: %u errors, the first: %s", text, d.errors, d.count ? d.entries[0].text : "");
	tsr_diag_fini(&d);
}
