/* The Tegra 2/3 vertex processor (targets/tegra/tegra.mdl) on grate's reference encodings
 * (../shared/corpus/tegra/grate/vertex/<set>/<program>.{asm,hex,bin,dis}: 14 programs, 61 instructions, assembled
 * by grate's assembler @0d9208a, MANIFEST.md there).  For every instruction: the .hex words (listed most
 * significant first, docs/mdl.md X10) and the .bin words are the same; decode then encode gives the words back;
 * disassemble then assemble gives them back; our disassembly names the same operations and operands as grate's
 * .dis (docs/targets/tegra.md "Differences from grate's text"); and the .asm source, each `EXEC ... ;` written on
 * one line with `;` between its parts, assembles to grate's words.  Random 128-bit words round-trip both ways.
 * The corpus is read from the shared directory (tools/corpus.h corpus_shared_dir). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "corpus.h"
#include "support_run.h"
#include "registry.h"
#include "support_tegra.h"
#include "tsr.h"

#define NINSTR 61   /* MANIFEST.md "Counts": the vertex programs' instructions */


static struct tegra_prog *progs;   /* the corpus's vertex programs (support_tegra.h) */
static int nprogs;

static void load_all(void)
{
	progs = tegra_corpus(&nprogs);
}

static unsigned total_instructions(void)
{
	unsigned n = 0;
	for (int i = 0; i < nprogs; i++)
		n += (unsigned)progs[i].w.count;
	return n;
}

Test(tegra, hex_and_bin_agree)
{
	load_all();
	const struct tsr_target *t = tsr_find_target("tegra");
	cr_assert(t->word_msw_first, "tegra lists its words most significant first");
	cr_assert_eq(nprogs, 14);
	cr_assert_eq(total_instructions(), NINSTR);
	/* the first word of grate_cube2_vs as grate prints it: 0x401f806c (bits 127..96) first */
	cr_assert_eq(progs[0].w.w[3], 0x401f806cu, "bits 127..96 are the first value of a .hex line");
	cr_assert_eq(progs[0].w.w[0], 0x60010000u);
	for (int i = 0; i < nprogs; i++) {
		struct tsr_words b;
		struct tsr_diag d;
		char path[720];
		tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
		tsr_words_init(&b, t->word_bits);
		b.msw_first = true;
		snprintf(path, sizeof path, "%.700s.bin", progs[i].path);
		cr_assert_eq(tsr_words_read(&b, path, TSR_WORDS_BIN, &d), 0, "cannot read %s", path);
		cr_assert_eq(b.count, progs[i].w.count, "%s: .bin and .hex differ in length", path);
		cr_expect_arr_eq(b.w, progs[i].w.w, b.count * 16, "%s: .bin and .hex differ", path);
		/* written back: the .bin's bytes and the .hex's values, in the file's order */
		struct tsr_buf out = { 0 }, file = { 0 };
		tsr_bin_format(&b, &out);
		cr_assert_eq(tsr_file_read(path, &file, &d), 0);
		cr_expect(out.len == file.len && !memcmp(out.data, file.data, out.len), "%s: written back differently", path);
		tsr_buf_clear(&out);
		tsr_hex_format_one(tsr_words_at(&b, 0), 4, true, NULL, &out);
		char first[64];
		snprintf(first, sizeof first, "0x%08x, 0x%08x, 0x%08x, 0x%08x,\n", b.w[3], b.w[2], b.w[1], b.w[0]);
		cr_expect_str_eq(out.data, first);
		tsr_buf_free(&out);
		tsr_buf_free(&file);
		tsr_words_free(&b);
		tsr_diag_fini(&d);
	}
}

Test(tegra, codec_round_trip)
{
	load_all();
	const struct tsr_target *t = tsr_find_target("tegra");
	void *inst = malloc(t->inst_size);
	unsigned exact = 0;
	for (int p = 0; p < nprogs; p++)
		for (size_t i = 0; i < progs[p].w.count; i++) {
			const uint32_t *w = tsr_words_at(&progs[p].w, i);
			uint32_t back[4] = { 0 };
			cr_assert_eq(t->decode(w, inst), 0, "%s instruction %zu: no format", progs[p].path, i);
			t->encode(inst, back);
			exact += !memcmp(back, w, 16);
			cr_expect_arr_eq(back, w, 16, "%s instruction %zu re-encodes differently", progs[p].path, i);
		}
	free(inst);
	printf("tegra corpus: %u of %u instructions decode and re-encode bit-exact\n", exact, total_instructions());
	cr_expect_eq(exact, NINSTR);
}

Test(tegra, disasm_asm_round_trip)
{
	load_all();
	const struct tsr_target *t = tsr_find_target("tegra");
	unsigned exact = 0, overrides = 0;
	for (int p = 0; p < nprogs; p++)
		for (size_t i = 0; i < progs[p].w.count; i++) {
			const uint32_t *w = tsr_words_at(&progs[p].w, i);
			struct tsr_buf text = { 0 };
			char err[256];
			uint32_t back[4] = { 0 };
			t->disasm(w, i, &text);
			overrides += strchr(text.data, '{') != NULL;
			int rc = t->assemble_one(text.data, text.len, i, back, err, sizeof err);
			cr_expect_eq(rc, 0, "%s %zu: '%s' does not assemble: %s", progs[p].path, i, text.data, err);
			exact += rc == 0 && !memcmp(back, w, 16);
			cr_expect(rc || !memcmp(back, w, 16), "%s %zu: '%s' assembles to other words", progs[p].path, i, text.data);
			tsr_buf_free(&text);
		}
	printf("tegra corpus: %u of %u instructions disassemble and assemble back bit-exact (%u with overrides)\n",
	       exact, total_instructions(), overrides);
	cr_expect_eq(exact, NINSTR);
	cr_expect_eq(overrides, 0, "grate's words need no field overrides");
}

/* Trims blanks at both ends of s in place. */
static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = 0;
	return s;
}

/* Our text split at ';' into at most 3 parts (EXEC, vector op, scalar op); a part left out is the slot's
 * default, which grate prints as NOPv / NOPs. */
static void our_parts(char *text, char *parts[3])
{
	static char nopv[] = "NOPv", nops[] = "NOPs";
	parts[1] = nopv;
	parts[2] = nops;
	char *s = text;
	for (int k = 0; k < 3 && s; k++) {
		char *semi = strchr(s, ';');
		if (semi)
			*semi = 0;
		parts[k] = trim(s);
		s = semi ? semi + 1 : NULL;
	}
}

Test(tegra, disasm_names_grates_operations)
{
	load_all();
	const struct tsr_target *t = tsr_find_target("tegra");
	unsigned agree = 0, parts_agree = 0;
	for (int p = 0; p < nprogs; p++) {
		char path[720];
		struct tsr_buf dis = { 0 };
		struct tsr_diag d;
		tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
		snprintf(path, sizeof path, "%.700s.dis", progs[p].path);
		cr_assert_eq(tsr_file_read(path, &dis, &d), 0);
		tsr_diag_fini(&d);
		/* grate's .dis: per instruction "\n\n" + "EXEC...\n\tVEC\n\tSCA\n;" (MANIFEST.md) */
		char *s = dis.data;
		for (size_t i = 0; i < progs[p].w.count; i++) {
			char *b = strstr(s, "EXEC");
			cr_assert_not_null(b, "%s: instruction %zu missing", path, i);
			char *e = strchr(b, ';');
			cr_assert_not_null(e);
			*e = 0;
			s = e + 1;
			char *g[3] = { NULL, NULL, NULL }, *q = b;
			for (int k = 0; k < 3; k++) {   /* the three lines */
				char *nl = strchr(q, '\n');
				if (nl)
					*nl = 0;
				g[k] = trim(q);
				q = nl ? nl + 1 : q + strlen(q);
			}
			struct tsr_buf text = { 0 };
			t->disasm(tsr_words_at(&progs[p].w, i), i, &text);
			char *o[3];
			our_parts(text.data, o);
			int same = 0;
			for (int k = 0; k < 3; k++) {
				same += !strcmp(o[k], g[k]);
				cr_expect_str_eq(o[k], g[k], "%s %zu part %d", path, i, k);
			}
			parts_agree += (unsigned)same;
			agree += same == 3;
			tsr_buf_free(&text);
		}
		tsr_buf_free(&dis);
	}
	printf("tegra corpus: %u of %u instructions print as grate's .dis (%u of %u parts)\n", agree,
	       total_instructions(), parts_agree, 3 * total_instructions());
	cr_expect_eq(agree, NINSTR);
}

/* grate's sources as written (comments, sections, instructions over several lines ended by ';': the description's
 * `asm { ... }` block) assemble through the target's whole-program assembler to grate's words.  Where a source
 * has no EXEC_END, grate-asm.c and the driver set end_of_program (bit 0) on the last instruction when they
 * upload the program (../shared/corpus/tegra/grate/MANIFEST.md); the assembler does not, so the test applies
 * that upload rule and counts the programs that needed it. */
Test(tegra, grate_source_assembles_to_grates_words)
{
	load_all();
	const struct tsr_target *t = tsr_find_target("tegra");
	unsigned exact = 0, forced = 0;
	for (int p = 0; p < nprogs; p++) {
		char path[720];
		struct tsr_buf src = { 0 };
		struct tsr_diag d;
		tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
		snprintf(path, sizeof path, "%.700s.asm", progs[p].path);
		cr_assert_eq(tsr_file_read(path, &src, &d), 0);
		struct tsr_words w;
		tsr_words_init(&w, 128);
		cr_assert_eq(t->assemble(path, src.data, src.len, &w, &d), 0, "%s does not assemble", path);
		tsr_diag_fini(&d);
		size_t n = w.count;
		cr_assert_eq(n, progs[p].w.count, "%s: %zu instructions, the .hex has %zu", path, n, progs[p].w.count);
		uint32_t *last = (uint32_t *)tsr_words_at(&w, n - 1);
		if (!(last[0] & 1)) {   /* no EXEC_END: the upload sets end_of_program on the last instruction */
			last[0] |= 1;
			forced++;
		}
		for (size_t i = 0; i < n; i++) {
			exact += !memcmp(tsr_words_at(&w, i), tsr_words_at(&progs[p].w, i), 16);
			cr_expect_arr_eq(tsr_words_at(&w, i), tsr_words_at(&progs[p].w, i), 16, "%s instruction %zu", path, i);
		}
		tsr_words_free(&w);
		tsr_buf_free(&src);
	}
	printf("tegra corpus: %u of %u instructions of grate's sources, assembled as written, are grate's words "
	       "(%u programs without EXEC_END get the upload's end bit)\n", exact, total_instructions(), forced);
	cr_expect_eq(exact, NINSTR);
}

/* grate's option order is free: these read as grate's own print order does (vs_predicate.txt's spelling). */
Test(tegra, options_in_any_order)
{
	const struct tsr_target *t = tsr_find_target("tegra");
	static const char *const pairs[][2] = {
		{ "EXEC(export[31]=vector)(cs)(cwr)(cr=1); SLTv r63.xyzw, r0.xyzw, c[2].xyzw",
		  "EXEC(export[31]=vector)(cr=1)(cs)(cwr)(p.xyzw); SLTv r63.xyzw, r0.xyzw, c[2].xyzw" },
		{ "EXEC(cc)(gt)(cr=1)(p.xyzw)(export[7]=vector); MOVv r63.xyzw, c[2].zzzz",
		  "EXEC(export[7]=vector)(cr=1)(cc)(gt)(p.xyzw); MOVv r63.xyzw, c[2].zzzz" },
	};
	for (size_t k = 0; k < sizeof pairs / sizeof *pairs; k++) {
		uint32_t a[4], b[4];
		char err[256];
		cr_assert_eq(t->assemble_one(pairs[k][0], strlen(pairs[k][0]), 0, a, err, sizeof err), 0, "%s", err);
		cr_assert_eq(t->assemble_one(pairs[k][1], strlen(pairs[k][1]), 0, b, err, sizeof err), 0, "%s", err);
		cr_expect_arr_eq(a, b, 16, "'%s' and '%s' differ", pairs[k][0], pairs[k][1]);
		struct tsr_buf text = { 0 };
		t->disasm(a, 0, &text);
		cr_expect_str_eq(text.data, pairs[k][1]);
		tsr_buf_free(&text);
	}
	/* bad text: an error, not a crash */
	static const char *const bad[] = {
		"EXEC(cr=2); NOPv", "EXEC; MOVv r63.xyzw, c[1].xyzw; MOVs r1.xyzw, c[2].xyzw", "EXEC; BRAs nowhere",
		"EXEC(export[0]=vector)(export[1]=vector); NOPv", "EXEC; MULv r0.xyzw, a[1].xyzw, a[2].xyzw",
	};
	for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
		uint32_t w[4];
		char err[256] = "";
		cr_expect_neq(t->assemble_one(bad[k], strlen(bad[k]), 0, w, err, sizeof err), 0, "'%s' assembled", bad[k]);
		cr_expect_neq(err[0], 0, "'%s': no message", bad[k]);
	}
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

Test(tegra, random_words_round_trip, .timeout = 600)
{
	const struct tsr_target *t = tsr_find_target("tegra");
	void *inst = malloc(t->inst_size);
	uint64_t seed = 0x9e3779b97f4a7c15u;
	unsigned n = 20000, codec = 0, text = 0, raw = 0;
	for (unsigned k = 0; k < n; k++) {
		uint32_t w[4], back[4] = { 0 };
		for (int j = 0; j < 4; j++)
			w[j] = (uint32_t)(rnd(&seed) >> 16);
		if (k % 2)   /* half of them with valid registers, exports and opcodes grate names, as programs have */
			w[3] &= ~0x80000000u;
		t->decode(w, inst);
		t->encode(inst, back);
		codec += !memcmp(back, w, 16);
		cr_expect_arr_eq(back, w, 16, "word %u re-encodes differently", k);
		struct tsr_buf s = { 0 };
		char err[256];
		t->disasm(w, 0, &s);
		raw += !strncmp(s.data, ".word", 5);
		memset(back, 0, sizeof back);
		int rc = t->assemble_one(s.data, s.len, 0, back, err, sizeof err);
		text += rc == 0 && !memcmp(back, w, 16);
		cr_expect(rc == 0 && !memcmp(back, w, 16), "word %08x %08x %08x %08x: '%s' does not assemble back (%s)", w[3],
			  w[2], w[1], w[0], s.data, rc ? err : "other words");
		tsr_buf_free(&s);
	}
	free(inst);
	printf("tegra random words: %u of %u decode/encode, %u of %u disassemble/assemble bit-exact (%u printed raw)\n",
	       codec, n, text, n, raw);
	cr_expect_eq(codec, n);
	cr_expect_eq(text, n);
	cr_expect_eq(raw, 0, "every word has a text");
}

/* The command line reads and writes grate's files as they are: `tessera dis` of every .hex and .bin, then
 * `tessera asm` of that text to hex and to binary, gives grate's words in grate's order (the .hex lines without
 * their comments, the .bin byte for byte). */
Test(tegra, command_line_files, .timeout = 600)
{
	load_all();
	char *dir = run_mkdtemp();
	cr_assert_not_null(dir);
	unsigned same = 0;
	for (int p = 0; p < nprogs; p++) {
		char hex[720], bin[720], s[800], outhex[800], outbin[800];
		snprintf(hex, sizeof hex, "%.700s.hex", progs[p].path);
		snprintf(bin, sizeof bin, "%.700s.bin", progs[p].path);
		snprintf(s, sizeof s, "%s/p.s", dir);
		snprintf(outhex, sizeof outhex, "%s/p.hex", dir);
		snprintf(outbin, sizeof outbin, "%s/p.bin", dir);
		const char *from[2] = { hex, bin };
		for (int k = 0; k < 2; k++) {
			struct run_result r;
			const char *dis[] = { "dis", "--target", "tegra", from[k], "-o", s, NULL };
			cr_assert_eq(run_tessera(dis, NULL, &r), 0);
			cr_expect_eq(r.status, 0, "dis %s: %s", from[k], r.err);
			run_result_free(&r);
			const char *ah[] = { "asm", "--target", "tegra", s, "-o", outhex, NULL };
			cr_assert_eq(run_tessera(ah, NULL, &r), 0);
			cr_expect_eq(r.status, 0, "asm: %s", r.err);
			run_result_free(&r);
			const char *ab[] = { "asm", "--target", "tegra", s, "--output-format", "bin", "-o", outbin, NULL };
			cr_assert_eq(run_tessera(ab, NULL, &r), 0);
			cr_expect_eq(r.status, 0, "asm -> bin: %s", r.err);
			run_result_free(&r);
			struct tsr_buf a = { 0 }, b = { 0 }, c = { 0 }, e = { 0 };
			struct tsr_diag d;
			tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
			cr_assert_eq(tsr_file_read(outhex, &a, &d), 0);
			cr_assert_eq(tsr_file_read(hex, &b, &d), 0);
			cr_assert_eq(tsr_file_read(outbin, &c, &d), 0);
			cr_assert_eq(tsr_file_read(bin, &e, &d), 0);
			/* the words of each line, comments dropped */
			struct tsr_buf wa = { 0 }, wb = { 0 };
			const struct tsr_buf *src[2] = { &a, &b };
			struct tsr_buf *dst[2] = { &wa, &wb };
			for (int j = 0; j < 2; j++)
				for (const char *q = src[j]->data; q && *q;) {
					const char *nl = strchr(q, '\n'), *end = nl ? nl : q + strlen(q);
					const char *cm = strstr(q, "//");
					if (cm && cm < end)
						end = cm;
					while (end > q && (end[-1] == ' ' || end[-1] == '\t'))
						end--;
					if (end > q) {
						tsr_buf_append(dst[j], q, (size_t)(end - q));
						tsr_buf_puts(dst[j], "\n");
					}
					q = nl ? nl + 1 : q + strlen(q);
				}
			bool ok = wa.len == wb.len && !memcmp(wa.data, wb.data, wa.len) && c.len == e.len &&
				  !memcmp(c.data, e.data, c.len);
			same += ok;
			cr_expect(ok, "%s: tessera's hex or bin differs from grate's", from[k]);
			tsr_buf_free(&a);
			tsr_buf_free(&b);
			tsr_buf_free(&c);
			tsr_buf_free(&e);
			tsr_buf_free(&wa);
			tsr_buf_free(&wb);
			tsr_diag_fini(&d);
		}
	}
	printf("tegra command line: %u of %d .hex/.bin files disassemble and assemble back to grate's files\n", same,
	       2 * nprogs);
	cr_expect_eq(same, 2u * (unsigned)nprogs);
	run_rmtree(dir);
	free(dir);
}
