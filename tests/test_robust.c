/* Robustness of every `tessera` command against malformed input (issue 11, point 11).
 *
 * Each row of the table below is an input file that is wrong in one way (empty, a directory, truncated,
 * an odd size, garbage, numbers that overflow, megabyte lines, invalid UTF-8, NUL bytes, undefined and
 * duplicate labels, alias loops and blow-ups, deep nesting, 100 k lines, 100 k errors, CRLF line ends).
 * Every row is given to every command that reads a program (asm, dis, validate, pack, unbundle, sim) for
 * every target of the registry (runtime/registry.h: a new target joins the table by being built), by
 * running the tessera binary of this test's own build directory (build/ or build-san/) in a child
 * process, and must give:
 *   - exit status 1 (an error in the input; docs/tools.md "Exit status"), no signal, no sanitizer report;
 *   - a diagnostic naming the file: `FILE:LINE:COL: error:` for text (at the row's line when it has
 *     one), or `FILE: error:` where no position exists (a directory, a missing file, an empty program,
 *     binary data of the wrong size);
 *   - no hang: the run ends within run_time_limit() seconds (10; 30 under AddressSanitizer);
 *   - no output file when the command writes one (-o).
 * The option rows check the command line the same way: status 2 and `tessera: error: OPTION ...`.
 * Inputs are generated here into a temporary directory (nothing is read from the shared corpus). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fileout.h"
#include "registry.h"
#include "support_run.h"
#include "text/textcodec.h"

/* The commands that read a program, and whether each writes an output file with -o. */
static const struct command {
	const char *name;
	bool writes;
} commands[] = {
	{ "asm", true }, { "dis", true }, { "validate", false }, { "pack", true }, { "unbundle", true }, { "sim", false },
};
#define NCOMMANDS (sizeof commands / sizeof *commands)

enum kind { K_FILE, K_DIR, K_MISSING };
enum where { AT_FILE, AT_POS };   /* AT_FILE: `FILE: error:` accepted; AT_POS: `FILE:LINE:COL: error:` required */

struct row {
	const char *name;
	enum kind kind;
	enum where where;
	unsigned line;   /* the line of the first positioned error (0: any) */
	void (*make)(struct tsr_buf *b, const struct tsr_target *t);
};

/* ---- inputs ------------------------------------------------------------------------------------- */

static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

/* `.word V, V, ...` with one instruction's worth of values (the target's nwords), then tail. */
static void word_line(struct tsr_buf *b, const struct tsr_target *t, const char *v, const char *tail)
{
	tsr_buf_puts(b, ".word ");
	for (unsigned k = 0; k < t->nwords; k++)
		tsr_buf_printf(b, "%s%s", k ? ", " : "", v);
	tsr_buf_puts(b, tail);
}

static void mk_empty(struct tsr_buf *b, const struct tsr_target *t)
{
	(void)t;
	(void)b;
}
static void mk_comments_only(struct tsr_buf *b, const struct tsr_target *t)
{
	(void)t;
	tsr_buf_puts(b, "# nothing here\n// nor here\n\n");
}
static void mk_truncated_hex(struct tsr_buf *b, const struct tsr_target *t)
{
	(void)t;
	tsr_buf_puts(b, "0x00000040, 0x");
}
static void mk_truncated_asm(struct tsr_buf *b, const struct tsr_target *t)
{
	(void)t;
	tsr_buf_puts(b, ".word (1 +");
}
/* Binary data (control bytes: not text) 3 bytes short of two instructions. */
static void mk_truncated_bin(struct tsr_buf *b, const struct tsr_target *t)
{
	for (unsigned i = 0; i + 3 < 2 * t->word_bits / 8; i++) {
		unsigned char c = (unsigned char)(i * 7 % 32);
		tsr_buf_append(b, &c, 1);
	}
}
static void mk_garbage_bin(struct tsr_buf *b, const struct tsr_target *t)
{
	uint32_t s = 11;
	size_t n = 1000 * t->word_bits / 8 + 1;   /* never a whole number of instructions */
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)lcg(&s);
		tsr_buf_append(b, &c, 1);
	}
}
static void mk_garbage_text(struct tsr_buf *b, const struct tsr_target *t)
{
	(void)t;
	uint32_t s = 7;
	for (int l = 0; l < 50; l++) {
		tsr_buf_puts(b, "@");   /* no line starts a comment, a label or a directive */
		for (int i = 0, n = 1 + (int)(lcg(&s) % 70); i < n; i++) {
			char c = (char)(0x21 + lcg(&s) % 94);
			tsr_buf_append(b, &c, 1);
		}
		tsr_buf_puts(b, "\n");
	}
}
static void mk_overflow_asm(struct tsr_buf *b, const struct tsr_target *t)
{
	word_line(b, t, "0x1ffffffffffffffffffff", "\n");
}
static void mk_overflow_hex(struct tsr_buf *b, const struct tsr_target *t)
{
	for (unsigned k = 0; k < t->nwords; k++)
		tsr_buf_puts(b, k ? " 0x00000000," : "0x1ffffffff,");
	tsr_buf_puts(b, "\n");
}
static void mk_overflow_expr(struct tsr_buf *b, const struct tsr_target *t)
{
	word_line(b, t, "9223372036854775807 * 4", "\n");
}
static void fill(struct tsr_buf *b, char c, size_t n)
{
	char chunk[4096];
	memset(chunk, c, sizeof chunk);
	for (size_t i = 0; i < n; i += sizeof chunk)
		tsr_buf_append(b, chunk, n - i < sizeof chunk ? n - i : sizeof chunk);
}
static void mk_megabyte_line(struct tsr_buf *b, const struct tsr_target *t)
{
	(void)t;
	fill(b, 'x', 1u << 20);
	tsr_buf_puts(b, "\n");
}
static void mk_megabyte_number(struct tsr_buf *b, const struct tsr_target *t)
{
	(void)t;
	tsr_buf_puts(b, "0x");
	fill(b, '0', 1u << 20);
	tsr_buf_puts(b, "1\n");
}
/* A line comment in the target's source syntax: `#` by default, else the first one its `asm { comment ... }`
 * declares (docs/asm.md). */
static void mk_megabyte_comment(struct tsr_buf *b, const struct tsr_target *t)
{
	const struct tsr_tc_syntax *sx = t->text ? t->text->syntax : NULL;
	tsr_buf_printf(b, "%s ", sx && sx->ncomments ? sx->comments[0] : "#");
	fill(b, 'c', 1u << 20);
	tsr_buf_puts(b, "\n");
	word_line(b, t, "nowhere", "\n");
}
static void mk_invalid_utf8(struct tsr_buf *b, const struct tsr_target *t)
{
	word_line(b, t, "0", " \xff\xfe\xc3\n");
}
static void mk_nul_byte(struct tsr_buf *b, const struct tsr_target *t)
{
	word_line(b, t, "0", "");
	tsr_buf_append(b, "\0\n", 2);
}
static void mk_undefined_label(struct tsr_buf *b, const struct tsr_target *t)
{
	word_line(b, t, "nowhere", "\n");
}
static void mk_duplicate_label(struct tsr_buf *b, const struct tsr_target *t)
{
	tsr_buf_puts(b, "a:\n");
	word_line(b, t, "0", "\na:\n");
	word_line(b, t, "0", "\n");
}
static void mk_alias_loop(struct tsr_buf *b, const struct tsr_target *t)
{
	tsr_buf_puts(b, ".set a, b\n.set b, a\n");
	word_line(b, t, "a", "\n");
}
static void mk_alias_blowup(struct tsr_buf *b, const struct tsr_target *t)
{
	tsr_buf_puts(b, ".set a0, x\n");
	for (int i = 1; i <= 40; i++)
		tsr_buf_printf(b, ".set a%d, a%d a%d\n", i, i - 1, i - 1);
	word_line(b, t, "a40", "\n");
}
static void mk_deep_nesting(struct tsr_buf *b, const struct tsr_target *t)
{
	tsr_buf_puts(b, ".word ");
	fill(b, '(', 100000);
	tsr_buf_puts(b, "0");
	fill(b, ')', 100000);
	for (unsigned k = 1; k < t->nwords; k++)
		tsr_buf_puts(b, ", 0");
	tsr_buf_puts(b, "\n");
}
static void mk_lines_100k(struct tsr_buf *b, const struct tsr_target *t)
{
	for (int i = 0; i < 100000; i++)
		word_line(b, t, "0", "\n");
	word_line(b, t, "nowhere", "\n");
}
static void mk_errors_100k(struct tsr_buf *b, const struct tsr_target *t)
{
	for (int i = 0; i < 100000; i++)
		word_line(b, t, "nowhere", "\n");
}
static void mk_crlf(struct tsr_buf *b, const struct tsr_target *t)
{
	word_line(b, t, "0", "\r\n");
	word_line(b, t, "nowhere", "\r\n");
}
static void mk_crlf_hex(struct tsr_buf *b, const struct tsr_target *t)
{
	for (unsigned k = 0; k < t->nwords; k++)
		tsr_buf_puts(b, "0x00000000, ");
	tsr_buf_puts(b, "\r\n0xzz\r\n");
}

static const struct row rows[] = {
	{ "empty", K_FILE, AT_FILE, 0, mk_empty },
	{ "comments_only", K_FILE, AT_FILE, 0, mk_comments_only },
	{ "directory", K_DIR, AT_FILE, 0, NULL },
	{ "missing", K_MISSING, AT_FILE, 0, NULL },
	{ "truncated_hex", K_FILE, AT_POS, 1, mk_truncated_hex },
	{ "truncated_asm", K_FILE, AT_POS, 1, mk_truncated_asm },
	{ "truncated_bin", K_FILE, AT_FILE, 0, mk_truncated_bin },
	{ "garbage_bin", K_FILE, AT_FILE, 0, mk_garbage_bin },
	{ "garbage_text", K_FILE, AT_POS, 1, mk_garbage_text },
	{ "overflow_asm", K_FILE, AT_POS, 1, mk_overflow_asm },
	{ "overflow_hex", K_FILE, AT_POS, 1, mk_overflow_hex },
	{ "overflow_expr", K_FILE, AT_POS, 1, mk_overflow_expr },
	{ "megabyte_line", K_FILE, AT_POS, 1, mk_megabyte_line },
	{ "megabyte_number", K_FILE, AT_POS, 1, mk_megabyte_number },
	{ "megabyte_comment", K_FILE, AT_POS, 2, mk_megabyte_comment },
	{ "invalid_utf8", K_FILE, AT_POS, 1, mk_invalid_utf8 },
	{ "nul_byte", K_FILE, AT_POS, 1, mk_nul_byte },
	{ "undefined_label", K_FILE, AT_POS, 1, mk_undefined_label },
	{ "duplicate_label", K_FILE, AT_POS, 3, mk_duplicate_label },
	{ "alias_loop", K_FILE, AT_POS, 3, mk_alias_loop },
	{ "alias_blowup", K_FILE, AT_POS, 0, mk_alias_blowup },
	{ "deep_nesting", K_FILE, AT_POS, 1, mk_deep_nesting },
	{ "lines_100k", K_FILE, AT_POS, 100001, mk_lines_100k },
	{ "errors_100k", K_FILE, AT_POS, 1, mk_errors_100k },
	{ "crlf", K_FILE, AT_POS, 2, mk_crlf },
	{ "crlf_hex", K_FILE, AT_POS, 0, mk_crlf_hex },
};

/* ---- checks ------------------------------------------------------------------------------------- */

/* The first diagnostic `path:` + [LINE: [COL:]] + ` error:` in err: 1 with its line and column (0 when
 * absent), or 0 when there is none. */
static int find_diag(const char *err, const char *path, unsigned *line, unsigned *col)
{
	size_t n = strlen(path);
	for (const char *p = strstr(err, path); p; p = strstr(p + 1, path)) {
		const char *q = p + n;
		unsigned v[2] = { 0, 0 }, k = 0;
		while (*q == ':' && k < 2 && q[1] >= '0' && q[1] <= '9') {
			char *e;
			v[k++] = (unsigned)strtoul(q + 1, &e, 10);
			q = e;
		}
		if (!strncmp(q, ": error:", 8)) {
			*line = v[0];
			*col = v[1];
			return 1;
		}
	}
	return 0;
}

static bool exists(const char *path)
{
	struct stat s;
	return !lstat(path, &s);
}

/* Runs argv and checks the common expectations; the label names the case in failure messages. */
static void check_run(const char *label, const char *const *argv, int status, const char *out_file,
		      struct run_result *r)
{
	cr_assert_eq(run_tessera(argv, NULL, r), 0, "%s: cannot run %s", label, run_tessera_path());
	cr_expect(!r->timed_out, "%s: still running after %.0f s (killed)", label, run_time_limit());
	cr_expect_eq(r->signal, 0, "%s: killed by signal %d; stderr:\n%.2000s", label, r->signal, r->err);
	cr_expect(!strstr(r->err, "Sanitizer") && !strstr(r->err, "runtime error:"),
		  "%s: sanitizer report:\n%.4000s", label, r->err);
	cr_expect_eq(r->status, status, "%s: exit status %d, expected %d; stderr:\n%.2000s", label, r->status, status,
		     r->err);
	if (out_file)
		cr_expect(!exists(out_file), "%s: output file %s left behind", label, out_file);
}

static void run_row(const struct row *row)
{
	char *dir = run_mkdtemp();
	cr_assert_not_null(dir);
	for (size_t ti = 0; tsr_all_targets[ti]; ti++) {
		const struct tsr_target *t = tsr_all_targets[ti];
		char in[4200], out[4200];
		snprintf(in, sizeof in, "%s/%s.%s", dir, row->name, t->name);
		if (row->kind == K_DIR)
			cr_assert_eq(mkdir(in, 0777), 0);
		if (row->kind == K_FILE) {
			struct tsr_buf b = { 0 };
			row->make(&b, t);
			cr_assert_eq(run_write_file(in, b.data, b.len), 0);
			tsr_buf_free(&b);
		}
		for (size_t c = 0; c < NCOMMANDS; c++) {
			const struct command *cmd = &commands[c];
			char label[200];
			snprintf(label, sizeof label, "%s %s --target %s", row->name, cmd->name, t->name);
			snprintf(out, sizeof out, "%s/out.%s", dir, cmd->name);
			const char *argv[] = { cmd->name, "--target", t->name, in, "-o", out, NULL };
			if (!cmd->writes)
				argv[4] = NULL;
			struct run_result r;
			check_run(label, argv, 1, cmd->writes ? out : NULL, &r);
			unsigned line = 0, col = 0;
			int found = find_diag(r.err, in, &line, &col);
			cr_expect(found, "%s: no diagnostic `%s:...: error:`; stderr:\n%.2000s", label, in, r.err);
			if (found && row->where == AT_POS)
				cr_expect(line > 0 && col > 0, "%s: the first error has no line and column; stderr:\n%.2000s",
					  label, r.err);
			if (found && row->line && line)
				cr_expect_eq(line, row->line, "%s: first error at line %u, expected %u; stderr:\n%.2000s",
					     label, line, row->line, r.err);
			run_result_free(&r);
			if (cmd->writes)
				remove(out);
		}
	}
	run_rmtree(dir);
	free(dir);
}

#define ROW(i, id)                                   \
	Test(robust, id, .timeout = 600)             \
	{                                            \
		cr_assert_str_eq(rows[i].name, #id); \
		run_row(&rows[i]);                   \
	}

ROW(0, empty)
ROW(1, comments_only)
ROW(2, directory)
ROW(3, missing)
ROW(4, truncated_hex)
ROW(5, truncated_asm)
ROW(6, truncated_bin)
ROW(7, garbage_bin)
ROW(8, garbage_text)
ROW(9, overflow_asm)
ROW(10, overflow_hex)
ROW(11, overflow_expr)
ROW(12, megabyte_line)
ROW(13, megabyte_number)
ROW(14, megabyte_comment)
ROW(15, invalid_utf8)
ROW(16, nul_byte)
ROW(17, undefined_label)
ROW(18, duplicate_label)
ROW(19, alias_loop)
ROW(20, alias_blowup)
ROW(21, deep_nesting)
ROW(22, lines_100k)
ROW(23, errors_100k)
ROW(24, crlf)
ROW(25, crlf_hex)

Test(robust, every_row_has_a_test)
{
	cr_assert_eq(sizeof rows / sizeof *rows, 26, "a new row needs its ROW() line");
}

/* ---- the command line ----------------------------------------------------------------------------- */

/* Option values out of range, malformed, or given to a command that does not take them: status 2 and
 * `tessera: error: ...` naming the option; the input itself is a valid program. */
Test(robust, options, .timeout = 600)
{
	char *dir = run_mkdtemp();
	cr_assert_not_null(dir);
	for (size_t ti = 0; tsr_all_targets[ti]; ti++) {
		const struct tsr_target *t = tsr_all_targets[ti];
		char in[4200], out[4200];
		snprintf(in, sizeof in, "%s/ok.%s", dir, t->name);
		snprintf(out, sizeof out, "%s/out", dir);
		struct tsr_buf b = { 0 };
		word_line(&b, t, "0", "\n");
		cr_assert_eq(run_write_file(in, b.data, b.len), 0);
		tsr_buf_free(&b);
		const char *T = t->name;
		const struct {
			const char *argv[12];
			const char *option;   /* named in the message */
		} cases[] = {
			{ { "sim", "--target", T, in, "--max-steps", "-5" }, "--max-steps" },
			{ { "sim", "--target", T, in, "--max-steps", "18446744073709551616" }, "--max-steps" },
			{ { "sim", "--target", T, in, "--max-steps", "0" }, "--max-steps" },
			{ { "sim", "--target", T, in, "--max-steps", "1e3" }, "--max-steps" },
			{ { "sim", "--target", T, in, "--max-steps" }, "--max-steps" },
			{ { "sim", "--target", T, in, "--qpus", "4294967297" }, "--qpus" },
			{ { "sim", "--target", T, in, "--qpus", "0" }, "--qpus" },
			{ { "sim", "--target", T, in, "--uniforms", "1,,2" }, "--uniforms" },
			{ { "sim", "--target", T, in, "--uniforms", "0x1ffffffff" }, "--uniforms" },
			{ { "sim", "--target", T, in, "--uniforms", "1e39" }, "--uniforms" },
			{ { "sim", "--target", T, in, "--uniforms", "" }, "--uniforms" },
			{ { "sim", "--target", T, in, "--dump", "0x1000000,4" }, "--dump" },
			{ { "sim", "--target", T, in, "--dump", "0x2000,0x1000000" }, "--dump" },
			{ { "sim", "--target", T, in, "--base", "8" }, "--base" },
			{ { "pack", "--target", T, in, "--base", "8", "-o", out }, "--base" },
			{ { "asm", "--target", T, in, "--base", "99999999999999999999", "-o", out }, "--base" },
			{ { "asm", "--target", T, in, "--base", "0x100000000", "-o", out }, "--base" },
			{ { "dis", "--target", T, in, "--base", t->pc_step > 1 ? "1" : "0x100000000", "-o", out }, "--base" },
			{ { "asm", "--target", T, in, "--qpus", "2", "-o", out }, "--qpus" },
			{ { "validate", "--target", T, in, "-o", out }, "-o" },
			{ { "dis", "--target", T, in, "--input-format", "elf", "-o", out }, "--input-format" },
			{ { "asm", "--target", T, in, "--frobnicate", "-o", out }, "--frobnicate" },
			{ { "pack", "--target", T, in, "--effort", "max", "-o", out }, "--effort" },
			{ { "gpu-fft", "--log2n", "99" }, "--log2n" },
			{ { "gpu-fft", "--batch", "-1" }, "--batch" },
			{ { "gpu-fft", "--seed", "18446744073709551616" }, "--seed" },
		};
		for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
			char label[600] = "options: tessera";
			for (int a = 0; cases[k].argv[a]; a++)
				snprintf(label + strlen(label), sizeof label - strlen(label), " %s", cases[k].argv[a]);
			struct run_result r;
			check_run(label, cases[k].argv, 2, out, &r);
			cr_expect(strstr(r.err, "tessera: error: ") && strstr(r.err, cases[k].option),
				  "%s: no `tessera: error: ... %s` message; stderr:\n%.2000s", label, cases[k].option, r.err);
			run_result_free(&r);
		}
	}
	run_rmtree(dir);
	free(dir);
}

/* gpu-fft reads GPU_FFT's shaders from --hex-dir: a malformed one is reported with its position. */
Test(robust, gpu_fft_malformed_shader, .timeout = 600)
{
	char *dir = run_mkdtemp();
	cr_assert_not_null(dir);
	char in[4200];
	snprintf(in, sizeof in, "%s/shader_256.hex", dir);
	const char *text = "0x00000040, 0xe00217a7,\n0x009e7000, 0x\n";
	cr_assert_eq(run_write_file(in, text, strlen(text)), 0);
	const char *argv[] = { "gpu-fft", "--log2n", "8", "--hex-dir", dir, NULL };
	struct run_result r;
	check_run("gpu-fft --hex-dir (malformed shader_256.hex)", argv, 1, NULL, &r);
	unsigned line = 0, col = 0;
	cr_expect(find_diag(r.err, in, &line, &col) && line == 2 && col > 0, "no `%s:2:COL: error:`; stderr:\n%s", in,
		  r.err);
	run_result_free(&r);
	run_rmtree(dir);
	free(dir);
}

/* Standard input ('-') is named `<stdin>` in the diagnostics, with the position of the error. */
Test(robust, standard_input, .timeout = 600)
{
	char *dir = run_mkdtemp();
	cr_assert_not_null(dir);
	for (size_t ti = 0; tsr_all_targets[ti]; ti++) {
		const struct tsr_target *t = tsr_all_targets[ti];
		char in[4200];
		snprintf(in, sizeof in, "%s/stdin.%s", dir, t->name);
		struct tsr_buf b = { 0 };
		mk_crlf(&b, t);
		cr_assert_eq(run_write_file(in, b.data, b.len), 0);
		tsr_buf_free(&b);
		for (size_t c = 0; c < NCOMMANDS; c++) {
			const char *argv[] = { commands[c].name, "--target", t->name, "-", NULL };
			char label[200];
			snprintf(label, sizeof label, "standard input: %s --target %s -", commands[c].name, t->name);
			struct run_result r;
			cr_assert_eq(run_tessera(argv, in, &r), 0);
			cr_expect(!r.timed_out && r.signal == 0, "%s: signal %d / timeout", label, r.signal);
			cr_expect_eq(r.status, 1, "%s: exit status %d; stderr:\n%.2000s", label, r.status, r.err);
			unsigned line = 0, col = 0;
			cr_expect(find_diag(r.err, "<stdin>", &line, &col) && line == 2 && col > 0,
				  "%s: no `<stdin>:2:COL: error:`; stderr:\n%.2000s", label, r.err);
			run_result_free(&r);
		}
	}
	run_rmtree(dir);
	free(dir);
}
