/* GPU_FFT release 3.0 (Andrew Holme, BSD-3; ../shared/corpus/qpu/gpu_fft_r3): all 16 programs, 12,112
 * words of Broadcom-assembler output.  For every word: decode then encode is bit-identical; disassemble
 * then assemble is bit-identical (one word at a time and as a whole program with labels); and the
 * disassembly agrees with the source line in the word's `//` comment (tests/support_corpus.h).
 * The corpus is read from $TESSERA_SHARED/corpus, else ../shared/corpus (relative to the repository
 * root, where `ninja test` runs). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include "text/textcodec.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "registry.h"
#include "tsr.h"
#include "support_corpus.h"

#define NPROGRAMS 16
static const char *const programs[NPROGRAMS] = {
	"256", "512", "1k", "2k", "4k", "8k", "16k", "32k", "64k", "128k", "256k", "512k", "1024k", "2048k", "4096k", "trans",
};

static void corpus_dir(char *buf, size_t n, const char *sub)
{
	const char *shared = getenv("TESSERA_SHARED");
	snprintf(buf, n, "%s/corpus/qpu/gpu_fft_r3/%s", shared ? shared : "../shared", sub);
}

static void load_program(const char *name, struct tsr_words *w)
{
	char dir[512], path[600];
	struct tsr_diag d;
	corpus_dir(dir, sizeof dir, "hex");
	snprintf(path, sizeof path, "%s/shader_%s.hex", dir, name);
	tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
	tsr_words_init(w, 64);
	cr_assert_eq(tsr_words_read(w, path, TSR_WORDS_HEX, &d), 0, "cannot read %s", path);
	tsr_diag_fini(&d);
}

Test(corpus, codec_round_trip)
{
	const struct tsr_target *t = tsr_find_target("qpu");
	cr_assert(t);
	unsigned total = 0, exact = 0, no_format = 0;
	void *inst = malloc(t->inst_size);
	for (int p = 0; p < NPROGRAMS; p++) {
		struct tsr_words w;
		load_program(programs[p], &w);
		for (size_t i = 0; i < w.count; i++) {
			uint32_t back[2] = { 0, 0 };
			cr_assert_eq(t->decode(tsr_words_at(&w, i), inst), 0, "shader_%s word %zu: no format", programs[p], i);
			no_format += t->inst_format(inst) == TSR_NO_FORMAT;
			t->encode(inst, back);
			total++;
			exact += !memcmp(back, tsr_words_at(&w, i), 8);
			cr_expect_arr_eq(back, tsr_words_at(&w, i), 8, "shader_%s word %zu: %08x %08x re-encodes as %08x %08x",
					 programs[p], i, tsr_words_at(&w, i)[0], tsr_words_at(&w, i)[1], back[0], back[1]);
		}
		tsr_words_free(&w);
	}
	free(inst);
	printf("corpus codec: %u programs, %u words, %u decode->encode bit-identical\n", NPROGRAMS, total, exact);
	cr_assert_eq(total, 12112);
	cr_assert_eq(exact, total);
	cr_assert_eq(no_format, 0);
}

Test(corpus, text_round_trip)
{
	const struct tsr_target *t = tsr_find_target("qpu");
	cr_assert(t);
	unsigned total = 0, exact = 0, prog_exact = 0;
	struct tsr_buf text = { 0 };
	char err[256];
	for (int p = 0; p < NPROGRAMS; p++) {
		struct tsr_words w, back;
		struct tsr_diag d;
		load_program(programs[p], &w);
		for (size_t i = 0; i < w.count; i++) {
			uint32_t again[2] = { 0, 0 };
			tsr_buf_clear(&text);
			t->disasm(tsr_words_at(&w, i), i * 8, &text);
			int rc = t->assemble_one(text.data, text.len, i * 8, again, err, sizeof err);
			total++;
			exact += !rc && !memcmp(again, tsr_words_at(&w, i), 8);
			cr_expect(!rc && !memcmp(again, tsr_words_at(&w, i), 8), "shader_%s word %zu '%.*s': %s", programs[p], i,
				  (int)text.len, text.data, rc ? err : "different bits");
		}
		/* the whole program, with label lines, through the program assembler */
		tsr_buf_clear(&text);
		t->disasm_program(w.w, w.count, 0, &text);
		tsr_words_init(&back, 64);
		tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
		int rc = t->assemble("<disassembly>", text.data, text.len, &back, &d);
		int same = !rc && back.count == w.count && !memcmp(back.w, w.w, w.count * 8);
		prog_exact += same;
		cr_expect(same, "shader_%s: the disassembled program does not assemble back", programs[p]);
		tsr_diag_fini(&d);
		tsr_words_free(&back);
		tsr_words_free(&w);
	}
	tsr_buf_free(&text);
	printf("corpus text: %u words, %u disassemble->assemble bit-identical; %u/%d whole programs\n", total, exact,
	       prog_exact, NPROGRAMS);
	cr_assert_eq(exact, total);
	cr_assert_eq(prog_exact, NPROGRAMS);
}

/* tsr_tc_disasm_program_stream gives tsr_tc_disasm_program's text byte for byte, in pieces, on every GPU_FFT
 * program, on random words (labels anywhere, .word lines) and at another base; a sink that stops stops it. */
static int to_buf(void *ctx, const char *data, size_t len)
{
	struct tsr_buf *b = ctx;
	cr_assert_leq(len, 2 * 65536u, "a piece of %zu bytes", len);
	tsr_buf_append(b, data, len);
	return 0;
}

static int refuse(void *ctx, const char *data, size_t len)
{
	(void)data;
	(void)len;
	++*(int *)ctx;
	return -1;
}

static void expect_stream_text(const struct tsr_target *t, const uint32_t *w, size_t n, uint64_t base, const char *what)
{
	struct tsr_buf whole = { 0 }, pieces = { 0 };
	t->disasm_program(w, n, base, &whole);
	cr_assert_eq(tsr_tc_disasm_program_stream(t->text, w, n, base, to_buf, &pieces), 0);
	cr_assert_eq(pieces.len, whole.len, "%s: %zu bytes streamed, %zu whole", what, pieces.len, whole.len);
	cr_assert(!whole.len || !memcmp(pieces.data, whole.data, whole.len), "%s: the streamed text differs", what);
	tsr_buf_free(&whole);
	tsr_buf_free(&pieces);
}

Test(corpus, streamed_disassembly_is_identical)
{
	const struct tsr_target *t = tsr_find_target("qpu");
	cr_assert(t);
	for (int p = 0; p < NPROGRAMS; p++) {
		struct tsr_words w;
		load_program(programs[p], &w);
		expect_stream_text(t, w.w, w.count, 0, programs[p]);
		expect_stream_text(t, w.w, w.count, 0x1000, programs[p]);
		tsr_words_free(&w);
	}
	/* more distinct words than the memo keeps (TSR_TC_CACHE_MAX, 65,536): the label pass skips the words that
	 * cannot print a label, and the printing pass disassembles each word not kept */
	enum { N = 70000 };
	uint32_t *w = malloc(2 * N * sizeof *w);
	uint64_t x = 0x2545f4914f6cdd1du;
	for (int i = 0; i < 2 * N; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		w[i] = (uint32_t)(x >> 13);
	}
	for (int i = 0; i < N; i += 7)   /* branches: (sig 15) to random targets */
		w[2 * i + 1] = 0xf0000000u | (w[2 * i + 1] & 0x0fffffffu);
	for (int i = 3; i < N; i += 11) {   /* and branches into the program: labels */
		w[2 * i + 1] = 0xf0000000u | (w[2 * i + 1] & 0x0fffffffu);
		w[2 * i] = (uint32_t)(-8 * (i % 997));
	}
	expect_stream_text(t, w, N, 0, "random words");
	int calls = 0;
	cr_expect_eq(tsr_tc_disasm_program_stream(t->text, w, N, 0, refuse, &calls), -1);
	cr_expect_eq(calls, 1);
	free(w);
}

Test(corpus, disassembly_agrees_with_source_comments)
{
	const struct tsr_target *t = tsr_find_target("qpu");
	cr_assert(t);
	struct cc_stats st = { 0 };
	struct tsr_buf text = { 0 };
	char dir[512], why[256];
	corpus_dir(dir, sizeof dir, "qasm");
	unsigned shown = 0;
	for (int p = 0; p < NPROGRAMS; p++) {
		struct tsr_words w;
		struct cc_aliases a = { 0 };
		char src[64];
		snprintf(src, sizeof src, "gpu_fft_%s.qasm", programs[p]);
		cr_assert_eq(cc_aliases_load(&a, dir, src, 0), 0, "cannot read %s/%s", dir, src);
		load_program(programs[p], &w);
		for (size_t i = 0; i < w.count; i++) {
			cr_assert(w.comment[i], "shader_%s word %zu has no source comment", programs[p], i);
			tsr_buf_clear(&text);
			t->disasm(tsr_words_at(&w, i), i * 8, &text);
			tsr_buf_append(&text, "", 1);
			if (!cc_compare(text.data, w.comment[i], &a, &st, why, sizeof why) && shown++ < 20)
				printf("shader_%s line %u: '%s' vs source '%s': %s\n", programs[p], w.line[i], text.data,
				       w.comment[i], why);
		}
		tsr_words_free(&w);
		cc_aliases_free(&a);
	}
	tsr_buf_free(&text);
	printf("corpus comments: %u words: %u agree with every operand resolved, %u agree with some operands only "
	       "named through macro parameters, %u mismatches; %u operands, %u unresolved; %u words printed with "
	       "overrides\n",
	       st.words, st.fully_checked, st.partly_checked, st.mismatches, st.operands, st.unresolved_operands,
	       st.overrides);
	cr_assert_eq(st.words, 12112);
	cr_assert_eq(st.mismatches, 0);
	/* most operands must really be checked, not waved through */
	cr_assert_lt(st.unresolved_operands * 5, st.operands);
}

/* The comparison itself must be able to fail. */
Test(corpus, comparison_detects_differences)
{
	struct cc_aliases a = { 0 };
	struct cc_stats st = { 0 };
	char why[256];
	char dir[512];
	corpus_dir(dir, sizeof dir, "qasm");
	cr_assert_eq(cc_aliases_load(&a, dir, "gpu_fft_256.qasm", 0), 0);
	cr_assert(cc_compare("mov ra0, unif", "mov ra_link_1, unif", &a, &st, why, sizeof why));
	cr_assert(!cc_compare("mov ra1, unif", "mov ra_link_1, unif", &a, &st, why, sizeof why));
	cr_assert(!cc_compare("fadd r0, r1, r2", "fsub r0, r1, r2", &a, &st, why, sizeof why));
	cr_assert(cc_compare("mov r0, 1053184", "mov r0, vpm_setup(1, 1, v32( 0,0))", &a, &st, why, sizeof why));
	cr_assert(!cc_compare("mov r0, 1053185", "mov r0, vpm_setup(1, 1, v32( 0,0))", &a, &st, why, sizeof why));
	cr_assert(cc_compare("nop; mov r2, r0 >> 15", "nop; mov r2, r0 << 1", &a, &st, why, sizeof why));
	cr_assert(!cc_compare("nop; mov r2, r0 >> 14", "nop; mov r2, r0 << 1", &a, &st, why, sizeof why));
	cr_assert(!cc_compare("mov -, sacq(10)", "mov -, sacq(9)", &a, &st, why, sizeof why));
	cr_assert(!cc_compare("add r0, r1, r2; nop; thrend", "add r0, r1, r2", &a, &st, why, sizeof why));
	cc_aliases_free(&a);
}
