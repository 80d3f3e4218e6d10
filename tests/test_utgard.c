/* Mali Utgard GP (targets/utgard/utgard.mdl) on the shared corpus ../shared/corpus/utgard-gp/lima_compiler: 31
 * vertex shaders compiled by Mesa's lima compiler, 971 instructions, each `.hex` line four 32-bit words in memory
 * order (word0 = bits 31..0) with lima's disassembly of the instruction as its `//` comment.
 *
 * For every word: decode then encode is bit-identical; disassemble then assemble is bit-identical (one word at a
 * time, and each program whole); and our disassembly names the same operations and sources as lima's, by the
 * mapping of docs/targets/utgard.md "Lima's names" (agrees and same_src below). Random 128-bit words round-trip too.
 * The corpus is read from $TESSERA_SHARED/corpus, else ../shared/corpus (tools/corpus.c corpus_shared_dir). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "registry.h"
#include "tsr.h"
#include "text/textcodec.h"
#include "corpus.h"

#define NPROGRAMS 31
#define NWORDS 971

static const struct tsr_target *target(void)
{
	const struct tsr_target *t = tsr_find_target("utgard");
	cr_assert(t, "no utgard target in this build");
	cr_assert_eq(t->word_bits, 128);
	return t;
}

/* The programs' paths, sorted; returns how many (at most max). */
static int programs(char paths[][600], int max)
{
	char shared[512], dir[560];
	corpus_shared_dir(shared, sizeof shared);
	snprintf(dir, sizeof dir, "%s/corpus/utgard-gp/lima_compiler", shared);
	char *names[64], err[700];
	int n = corpus_hex_names(dir, names, 64, err, sizeof err);
	cr_assert(n >= 0, "%s", err);
	int k = 0;
	for (int i = 0; i < n; i++) {
		if (k < max)
			snprintf(paths[k++], 600, "%s/%s", dir, names[i]);
		free(names[i]);
	}
	return k;
}

static void load(const char *path, struct tsr_words *w)
{
	struct tsr_diag d;
	tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
	tsr_words_init(w, 128);
	cr_assert_eq(tsr_words_read(w, path, TSR_WORDS_HEX, &d), 0, "cannot read %s", path);
	tsr_diag_fini(&d);
}

Test(utgard, codec_round_trip)
{
	const struct tsr_target *t = target();
	static char paths[64][600];
	int np = programs(paths, 64);
	unsigned total = 0, exact = 0;
	void *inst = malloc(t->inst_size);
	for (int p = 0; p < np; p++) {
		struct tsr_words w;
		load(paths[p], &w);
		for (size_t i = 0; i < w.count; i++) {
			uint32_t back[4] = { 0 };
			cr_assert_eq(t->decode(tsr_words_at(&w, i), inst), 0, "%s word %zu: no format", paths[p], i);
			t->encode(inst, back);
			total++;
			exact += !memcmp(back, tsr_words_at(&w, i), 16);
			cr_expect_arr_eq(back, tsr_words_at(&w, i), 16, "%s word %zu re-encodes differently", paths[p], i);
		}
		tsr_words_free(&w);
	}
	free(inst);
	printf("utgard codec: %d programs, %u words, %u decode->encode bit-identical\n", np, total, exact);
	cr_assert_eq(np, NPROGRAMS);
	cr_assert_eq(total, NWORDS);
	cr_assert_eq(exact, total);
}

Test(utgard, text_round_trip)
{
	const struct tsr_target *t = target();
	static char paths[64][600];
	int np = programs(paths, 64);
	unsigned total = 0, exact = 0, overrides = 0, prog_exact = 0;
	struct tsr_buf text = { 0 };
	char err[256];
	for (int p = 0; p < np; p++) {
		struct tsr_words w, back;
		struct tsr_diag d;
		load(paths[p], &w);
		for (size_t i = 0; i < w.count; i++) {
			uint32_t again[4] = { 0 };
			tsr_buf_clear(&text);
			t->disasm(tsr_words_at(&w, i), i * 16, &text);
			overrides += memchr(text.data, '{', text.len) != NULL;
			int rc = t->assemble_one(text.data, text.len, i * 16, again, err, sizeof err);
			total++;
			exact += !rc && !memcmp(again, tsr_words_at(&w, i), 16);
			cr_expect(!rc && !memcmp(again, tsr_words_at(&w, i), 16), "%s word %zu '%.*s': %s", paths[p], i,
				  (int)text.len, text.data, rc ? err : "different bits");
		}
		tsr_buf_clear(&text);
		t->disasm_program(w.w, w.count, 0, &text);
		tsr_words_init(&back, 128);
		tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
		int rc = t->assemble("<disassembly>", text.data, text.len, &back, &d);
		int same = !rc && back.count == w.count && !memcmp(back.w, w.w, w.count * 16);
		prog_exact += same;
		cr_expect(same, "%s: the disassembled program does not assemble back", paths[p]);
		tsr_diag_fini(&d);
		tsr_words_free(&back);
		tsr_words_free(&w);
	}
	tsr_buf_free(&text);
	printf("utgard text: %u words, %u disassemble->assemble bit-identical (%u with overrides); %u/%d whole programs\n",
	       total, exact, overrides, prog_exact, np);
	cr_assert_eq(total, NWORDS);
	cr_assert_eq(exact, total);
	cr_assert_eq(prog_exact, (unsigned)np);
}

/* Random 128-bit words round-trip: decode then encode, and disassemble then assemble. */
Test(utgard, random_words_round_trip)
{
	const struct tsr_target *t = target();
	void *inst = malloc(t->inst_size);
	struct tsr_buf text = { 0 };
	char err[256];
	uint64_t x = 0x9e3779b97f4a7c15u;
	unsigned n = 0, codec = 0, textok = 0;
	for (int i = 0; i < 20000; i++) {
		uint32_t w[4], back[4] = { 0 }, again[4] = { 0 };
		for (int j = 0; j < 4; j++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			w[j] = (uint32_t)(x >> 17);
		}
		t->decode(w, inst);
		t->encode(inst, back);
		codec += !memcmp(w, back, 16);
		tsr_buf_clear(&text);
		t->disasm(w, (uint64_t)i * 16, &text);
		int rc = t->assemble_one(text.data, text.len, (uint64_t)i * 16, again, err, sizeof err);
		textok += !rc && !memcmp(w, again, 16);
		cr_expect(!rc && !memcmp(w, again, 16), "%08x %08x %08x %08x '%.*s': %s", w[0], w[1], w[2], w[3],
			  (int)text.len, text.data, rc ? err : "different bits");
		n++;
	}
	printf("utgard random: %u words, %u decode->encode exact, %u disassemble->assemble exact\n", n, codec, textok);
	cr_assert_eq(codec, n);
	cr_assert_eq(textok, n);
	tsr_buf_free(&text);
	free(inst);
}

/* ---- lima's names (docs/targets/utgard.md "Lima's names") ----
 * Lima prints one line per unit: `NAME.UNIT DEST SRC...`, DEST = `^N` (the value number 6 * instruction + unit,
 * units a0 a1 m0 m1 p c) followed by the stores of that unit (`/v1.x`, `/$0.w`, `/t[addr0]`, `/addr1`). Ours:
 * `NAME.UNIT` with the stores attached and no value number, sources by unit and age. A lima source maps so:
 *   ^N          -> ^U@A with U = N mod 6, A = this instruction - N div 6 (1 or 2)
 *   $N.c        -> $N.c (the register load unit reg1) or rN.c (reg0 loading a register; lima prints both as $)
 *   aN.c, $N.c that are reg0 of the previous instruction (codes 28-31) -> ^reg0@1.c
 *   t[N+addrK].c -> t[addrK+N].c; `branch ^N T` -> `branch ^p@0 LX` (the label of instruction T: X = 16 T in hex,
 *   the byte address); `nop` -> nothing
 * everything else (0, 1, unused, unknownK, aN.c, t[N].c, unknown_1 K) is equal. */
struct toks { char *v[64]; int n; };

static void split(char *s, const char *sep, struct toks *t)
{
	t->n = 0;
	for (char *save = NULL, *p = strtok_r(s, sep, &save); p && t->n < 64; p = strtok_r(NULL, sep, &save))
		t->v[t->n++] = p;
}

static const char *const unit_names[6] = { "a0", "a1", "m0", "m1", "p", "c" };

/* Whether our source `o` is what lima's `l` names in instruction i (prev: lima's text of the previous
 * instruction's reg0 load, "a3" or "$3", or NULL). */
static bool same_src(const char *o, const char *l, int i, const char *prev)
{
	char buf[64];
	bool neg = l[0] == '-';
	if (neg != (o[0] == '-'))
		return false;
	o += neg;
	l += neg;
	if (l[0] == '^') {
		int v = atoi(l + 1), age = i - v / 6;
		snprintf(buf, sizeof buf, "^%s@%d", unit_names[v % 6], age);
		return !strcmp(o, buf);
	}
	if (!strcmp(o, l))
		return true;
	const char *dot = strrchr(l, '.');
	if (prev && dot && !strncmp(o, "^reg0@1.", 8) && !strcmp(o + 7, dot) && strlen(prev) == (size_t)(dot - l) &&
	    !strncmp(prev, l, (size_t)(dot - l)))
		return true;
	if (l[0] == '$' && o[0] == 'r' && !strcmp(o + 1, l + 1))
		return true;
	const char *plus = strchr(l, '+');
	if (l[0] == 't' && plus) {   /* t[N+addrK].c -> t[addrK+N].c */
		const char *rb = strchr(plus, ']');
		if (!rb)
			return false;
		snprintf(buf, sizeof buf, "t[%.*s+%.*s%s", (int)(rb - plus - 1), plus + 1, (int)(plus - l - 2), l + 2, rb);
		return !strcmp(o, buf);
	}
	return false;
}

/* 1 when our text agrees with lima's comment for instruction i, else 0 with why. */
static int agrees(const char *ours, const char *lima, int i, const char *prev, char *why, size_t whylen)
{
	char o[2048], l[2048];
	snprintf(o, sizeof o, "%s", ours);
	snprintf(l, sizeof l, "%s", lima);
	char *brace = strchr(o, '{');
	if (brace)
		*brace = 0;
	struct toks op, lp;
	split(o, ";", &op);
	split(l, "|", &lp);
	if (lp.n == 1) {   /* lima prints `nop` for an instruction where no unit is printed */
		char *s = lp.v[0];
		s += strspn(s, " \t");
		if (!strncmp(s, "nop", 3) && (s[3] == 0 || s[3] == ' '))
			lp.n = 0;
	}
	int nonempty = 0;
	for (int k = 0; k < op.n; k++) {
		char *s = op.v[k];
		while (*s == ' ')
			s++;
		if (*s)
			op.v[nonempty++] = s;
	}
	op.n = nonempty;
	if (op.n != lp.n) {
		snprintf(why, whylen, "%d parts, lima %d", op.n, lp.n);
		return 0;
	}
	for (int k = 0; k < op.n; k++) {
		struct toks ot, lt;
		split(op.v[k], " ", &ot);
		split(lp.v[k], " \t", &lt);
		if (lt.n >= 1 && !strcmp(lt.v[0], "branch")) {
			if (ot.n != 3 || strcmp(ot.v[0], "branch") || strcmp(ot.v[1], "^p@0") || lt.n != 3 ||
			    ot.v[2][0] != 'L' || strtol(ot.v[2] + 1, NULL, 16) != 16 * strtol(lt.v[2], NULL, 10)) {
				snprintf(why, whylen, "branch '%s' vs '%s'", op.v[k], lp.v[k]);
				return 0;
			}
			continue;
		}
		if (lt.n >= 1 && !strcmp(lt.v[0], "unknown_1")) {
			if (ot.n != 2 || strcmp(ot.v[0], "unknown_1") || lt.n != 2 || strcmp(ot.v[1], lt.v[1])) {
				snprintf(why, whylen, "'%s' vs '%s'", op.v[k], lp.v[k]);
				return 0;
			}
			continue;
		}
		if (lt.n < 2 || ot.n != lt.n - 1) {
			snprintf(why, whylen, "part %d: '%s' vs lima '%s'", k, op.v[k], lp.v[k]);
			return 0;
		}
		char name[128];
		const char *dest = lt.v[1] + 1 + strspn(lt.v[1] + 1, "0123456789");   /* stores after ^N */
		snprintf(name, sizeof name, "%s%s", lt.v[0], dest);
		if (strcmp(ot.v[0], name)) {
			snprintf(why, whylen, "part %d: op '%s', lima '%s'", k, ot.v[0], name);
			return 0;
		}
		for (int s = 1; s < ot.n; s++)
			if (!same_src(ot.v[s], lt.v[s + 1], i, prev)) {
				snprintf(why, whylen, "part %d source %d: '%s', lima '%s'", k, s, ot.v[s], lt.v[s + 1]);
				return 0;
			}
	}
	return 1;
}

static unsigned field_index(const struct tsr_target *t, const char *name)
{
	for (unsigned f = 0; f < t->nfields; f++)
		if (!strcmp(t->field_names[f], name))
			return f;
	cr_assert_fail("no field %s", name);
	return 0;
}

Test(utgard, disassembly_names_limas_operations_and_sources)
{
	const struct tsr_target *t = target();
	static char paths[64][600];
	int np = programs(paths, 64);
	unsigned total = 0, agree = 0, shown = 0;
	struct tsr_buf text = { 0 };
	void *inst = malloc(t->inst_size);
	unsigned f_attr = field_index(t, "reg0_attr"), f_addr = field_index(t, "reg0_addr");
	char why[256];
	for (int p = 0; p < np; p++) {
		struct tsr_words w;
		load(paths[p], &w);
		char prev[16] = "";
		for (size_t i = 0; i < w.count; i++) {
			cr_assert(w.comment[i], "%s word %zu has no lima comment", paths[p], i);
			const char *c = w.comment[i];
			const char *colon = strchr(c, ':');   /* "007:\tadd.a0 ..." */
			cr_assert(colon, "%s word %zu: comment '%s'", paths[p], i, c);
			tsr_buf_clear(&text);
			t->disasm(tsr_words_at(&w, i), i * 16, &text);
			tsr_buf_append(&text, "", 1);
			int ok = agrees(text.data, colon + 1, (int)i, i ? prev : NULL, why, sizeof why);
			agree += ok;
			total++;
			if (!ok && shown++ < 20)
				printf("%s word %zu: '%s' vs lima '%s': %s\n", paths[p], i, text.data, c, why);
			t->decode(tsr_words_at(&w, i), inst);
			snprintf(prev, sizeof prev, "%c%u", t->inst_field(inst, f_attr) ? 'a' : '$',
				 (unsigned)t->inst_field(inst, f_addr));
		}
		tsr_words_free(&w);
	}
	free(inst);
	tsr_buf_free(&text);
	printf("utgard lima names: %u words, %u name the same operations and sources as lima's disassembly\n", total,
	       agree);
	cr_assert_eq(total, NWORDS);
	cr_assert_eq(agree, total);
}

/* The corpus has no branch (lima flattens its programs' control flow): the comparison's branch case on a word
 * assembled here, against the line lima prints for it (disasm.c: `branch ^N T`, T the target instruction in
 * decimal, 3 digits), and a label: the assembler puts the label's instruction, not its byte address, in the field. */
Test(utgard, branch_target_names_limas_instruction)
{
	const struct tsr_target *t = target();
	const char *src = "    mov.p t[0].x\n    mov.p t[1].x; branch ^p@0 there\n    mov.a0/v0.x a0.x\nthere:\n"
			  "    mov.a0/v0.y a0.x\n";
	struct tsr_words words;
	struct tsr_diag d;
	tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
	tsr_words_init(&words, 128);
	cr_assert_eq(t->assemble("b.s", src, strlen(src), &words, &d), 0);
	tsr_diag_fini(&d);
	cr_assert_eq(words.count, 4u);
	const uint32_t *w = tsr_words_at(&words, 1);
	cr_expect_eq(w[3] >> 24, 3u, "branch_target %u, want instruction 3", w[3] >> 24);
	struct tsr_buf text = { 0 };
	t->disasm(w, 16, &text);
	tsr_buf_append(&text, "", 1);
	cr_expect(strstr(text.data, "branch ^p@0 L30"), "%s", text.data);
	char why[256] = "";
	cr_expect(agrees(text.data, "\tmov.p ^10 t[1].x |\tbranch ^10 003", 1, "a0", why, sizeof why), "%s: %s",
		  text.data, why);
	cr_expect(!agrees(text.data, "\tmov.p ^10 t[1].x |\tbranch ^10 004", 1, "a0", why, sizeof why), "%s",
		  text.data);
	tsr_words_free(&words);
	tsr_buf_free(&text);
}

/* ---- the rule reg_store_end (utgard.mdl "Resources and hazards"; docs/mdl.md "Event patterns": `end`) ---- */

/* The reg_store_end reports of tsr_validate, as "AT<OTHER" (instruction indices) separated by blanks; other rules'
 * reports are left out. */
struct store_end { char list[512]; int n; };
static void store_end_collect(void *ctx, const struct tsr_vviol *v)
{
	struct store_end *s = ctx;
	if (strcmp(v->name, "reg_store_end"))
		return;
	size_t len = strlen(s->list);
	snprintf(s->list + len, sizeof s->list - len, "%s%zu<%zu", len ? " " : "", v->at, v->other);
	s->n++;
}

/* Mesa's lima keeps register stores out of a block's last two instructions: no report on the corpus (straight-line
 * programs: their one block ends with the program, after which the GP stops, `fall_off halt`). */
Test(utgard, reg_store_end_corpus_passes)
{
	const struct tsr_target *t = target();
	static char paths[64][600];
	int np = programs(paths, 64);
	int reports = 0;
	for (int p = 0; p < np; p++) {
		struct tsr_words w;
		load(paths[p], &w);
		struct store_end s = { "", 0 };
		tsr_validate(t->vdesc, w.w, w.count, 0, store_end_collect, &s);
		cr_expect_eq(s.n, 0, "%s: %s", paths[p], s.list);
		reports += s.n;
		tsr_words_free(&w);
	}
	printf("utgard reg_store_end: %d programs, %d reports\n", np, reports);
	cr_assert_eq(np, NPROGRAMS);
}

/* Store0's x component made a register store ($1.x, R[4]) in one instruction of a corpus program: in either of the
 * last two it is found once, at the program's last instruction; three from the end it is silent. */
Test(utgard, reg_store_end_finds_a_store_in_the_last_two)
{
	const struct tsr_target *t = target();
	static char paths[64][600];
	cr_assert_eq(programs(paths, 64), NPROGRAMS);
	struct tsr_words w;
	load(paths[0], &w);
	cr_assert_geq(w.count, 4u);
	void *inst = malloc(t->inst_size);
	for (size_t back = 0; back < 3; back++) {
		size_t i = w.count - 1 - back;
		uint32_t save[4];
		memcpy(save, tsr_words_at(&w, i), sizeof save);
		cr_assert_eq(t->decode(save, inst), 0);
		t->inst_set_field(inst, field_index(t, "store0_src_x"), 0);   /* acc0's result */
		t->inst_set_field(inst, field_index(t, "store0_varying"), 0);
		t->inst_set_field(inst, field_index(t, "store0_temp"), 0);
		t->inst_set_field(inst, field_index(t, "store0_addr"), 1);
		cr_assert_eq(t->encode(inst, w.w + i * 4), 0);
		struct store_end s = { "", 0 };
		tsr_validate(t->vdesc, w.w, w.count, 0, store_end_collect, &s);
		char want[32] = "";
		if (back < 2)
			snprintf(want, sizeof want, "%zu<%zu", w.count - 1, i);
		cr_expect_str_eq(s.list, want, "a store %zu before the end", back);
		memcpy(w.w + i * 4, save, sizeof save);
	}
	free(inst);
	tsr_words_free(&w);
}
