/* Fuzzer: disassemble -> assemble, for every built target.  The input's first byte picks the
 * target; the rest is taken as instruction words.  Each word is disassembled on its own and as
 * part of a whole program (with labels), and the text must assemble back to exactly the same
 * words (docs/mdl.md "Round trips").  The fuzzer also feeds the raw input to the assembler as
 * text: any input must give diagnostics or words, never a crash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "registry.h"
#include "tsr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t ntargets = 0;
	while (tsr_all_targets[ntargets])
		ntargets++;
	if (!ntargets || size < 1)
		return 0;
	const struct tsr_target *t = tsr_all_targets[data[0] % ntargets];
	data++, size--;
	size_t wbytes = t->nwords * 4, n = size / wbytes;
	if (t->nwords > 8)
		return 0;
	struct tsr_buf text = { 0 };
	char err[256];
	uint32_t w[8], w2[8];
	for (size_t i = 0; i < n; i++) {
		memcpy(w, data + i * wbytes, wbytes);
		tsr_buf_clear(&text);
		t->disasm(w, 4096 + i * t->pc_step, &text);
		memset(w2, 0, sizeof w2);
		if (t->assemble_one(text.data, text.len, 4096 + i * t->pc_step, w2, err, sizeof err) ||
		    memcmp(w, w2, wbytes)) {
			fprintf(stderr, "%s: '%.*s' does not assemble back to %08x %08x (%s)\n", t->name, (int)text.len,
				text.data, w[0], t->nwords > 1 ? w[1] : 0, err);
			abort();
		}
	}
	/* the whole program, with label lines */
	struct tsr_words prog, back;
	struct tsr_diag d;
	tsr_words_init(&prog, t->word_bits);
	tsr_words_init(&back, t->word_bits);
	tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
	for (size_t i = 0; i < n; i++) {
		memcpy(w, data + i * wbytes, wbytes);
		tsr_words_push(&prog, w, NULL, 0);
	}
	tsr_buf_clear(&text);
	t->disasm_program(prog.w, prog.count, 0, &text);
	if (t->assemble("<fuzz>", text.data ? text.data : "", text.len, &back, &d) || back.count != prog.count ||
	    (n && memcmp(back.w, prog.w, n * wbytes))) {
		fprintf(stderr, "%s: program does not assemble back:\n%.*s\n", t->name, (int)text.len, text.data);
		tsr_diag_flush(&d, stderr);
		abort();
	}
	tsr_diag_fini(&d);
	tsr_words_free(&back);
	/* arbitrary text */
	tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
	tsr_words_free(&prog);
	t->assemble("<fuzz-text>", (const char *)data, size, &prog, &d);
	tsr_diag_fini(&d);
	tsr_words_free(&prog);
	tsr_buf_free(&text);
	return 0;
}
