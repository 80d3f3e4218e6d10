/* `tessera asm` and `tessera dis`, and the program loading both share with `sim`. */
#include <stdio.h>
#include <string.h>
#include "textcodec.h"
#include "tools.h"

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

/* Assembly source by name; otherwise by content (text that tsr_words_detect() does not take for hex). */
static bool is_assembly(const char *path, const struct tsr_buf *b)
{
	if (ends_with(path, ".qasm") || ends_with(path, ".s") || ends_with(path, ".asm"))
		return true;
	if (ends_with(path, ".hex") || ends_with(path, ".bin"))
		return false;
	if (tsr_words_detect(b->data, b->len) != TSR_WORDS_HEX)
		return false;   /* binary */
	/* hex text starts with 0x or //; anything else that is text is assembly */
	const char *p = b->data, *e = p + b->len;
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	return p < e && !(p + 1 < e && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) && !(p + 1 < e && p[0] == '/');
}

static int read_input(const char *path, struct tsr_buf *b, struct tsr_diag *d)
{
	if (strcmp(path, "-"))
		return tsr_file_read(path, b, d);
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0)
		tsr_buf_append(b, chunk, n);
	return ferror(stdin) ? tsr_diag_error(d, "<stdin>", 0, 0, "cannot read standard input") : 0;
}

int tool_load_program(const struct tool_opts *o, const char *path, struct tsr_words *out, struct tsr_diag *d)
{
	struct tsr_buf b = { 0 };
	const char *name = strcmp(path, "-") ? path : "<stdin>";
	int rc = read_input(path, &b, d);
	if (!rc) {
		if (o->infmt == TSR_WORDS_AUTO && is_assembly(path, &b))
			rc = o->target->assemble(name, b.data ? b.data : "", b.len, out, d);
		else if ((o->infmt == TSR_WORDS_AUTO ? tsr_words_detect(b.data, b.len) : o->infmt) == TSR_WORDS_HEX)
			rc = tsr_hex_parse(out, b.data ? b.data : "", b.len, name, d);
		else
			rc = tsr_bin_parse(out, b.data ? b.data : "", b.len, name, d);
	}
	tsr_buf_free(&b);
	return rc;
}

int tool_load_words(const struct tool_opts *o, const char *path, bool asm, struct tsr_words *out,
		    enum tsr_wordfmt *fmt, struct tsr_diag *d)
{
	*fmt = TSR_WORDS_AUTO;
	if (asm && (!strcmp(path, "-") || (o->infmt == TSR_WORDS_AUTO && (ends_with(path, ".qasm") ||
									 ends_with(path, ".s") || ends_with(path, ".asm")))))
		return tool_load_program(o, path, out, d);
	if (!strcmp(path, "-")) {   /* words from standard input, read whole */
		struct tsr_buf src = { 0 };
		int rc = read_input(path, &src, d);
		if (!rc) {
			enum tsr_wordfmt f = o->infmt == TSR_WORDS_AUTO ? tsr_words_detect(src.data, src.len) : o->infmt;
			rc = f == TSR_WORDS_HEX ? tsr_hex_parse(out, src.data ? src.data : "", src.len, "<stdin>", d)
						: tsr_bin_parse(out, src.data ? src.data : "", src.len, "<stdin>", d);
		}
		tsr_buf_free(&src);
		return rc;
	}
	enum tsr_wordfmt f = o->infmt;
	char lead[2];
	if (f == TSR_WORDS_AUTO) {
		if (tsr_words_detect_file(path, &f, lead, d) < 0)
			return -1;
		/* is_assembly() on the whole text: hex-looking text not led by 0x or / */
		if (asm && f == TSR_WORDS_HEX && !ends_with(path, ".hex") && !ends_with(path, ".bin") && lead[0] &&
		    !(lead[0] == '0' && (lead[1] == 'x' || lead[1] == 'X')) && lead[0] != '/')
			return tool_load_program(o, path, out, d);
	}
	out->lean = true;
	*fmt = f;
	return tsr_words_stream(out, path, f, d);
}

int tool_write_output(const struct tool_opts *o, const struct tsr_buf *buf, struct tsr_diag *d)
{
	if (o->output)
		return tsr_file_commit(o->output, buf->data ? buf->data : "", buf->len, d);
	if (buf->len && fwrite(buf->data, 1, buf->len, stdout) != buf->len)
		return tsr_diag_error(d, "<stdout>", 0, 0, "write failed");
	return fflush(stdout) ? tsr_diag_error(d, "<stdout>", 0, 0, "write failed") : 0;
}

static int need_one_file(const struct tool_opts *o, const char *cmd)
{
	if (o->nargs == 1)
		return 0;
	fprintf(stderr, "tessera: error: '%s' takes one input file ('-' for standard input)\n", cmd);
	return 2;
}

int cmd_asm(struct tool_opts *o)
{
	int rc = need_one_file(o, "asm");
	if (rc)
		return rc;
	struct tsr_diag d;
	struct tsr_words w;
	struct tsr_buf out = { 0 };
	tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
	tsr_words_init(&w, o->target->word_bits);
	struct tsr_buf src = { 0 };
	const char *name = strcmp(o->args[0], "-") ? o->args[0] : "<stdin>";
	rc = read_input(o->args[0], &src, &d);
	if (!rc)
		rc = o->target->assemble(name, src.data ? src.data : "", src.len, &w, &d);
	if (!rc) {
		if (o->outfmt == TSR_WORDS_BIN)
			tsr_bin_format(&w, &out);
		else
			tsr_hex_format(&w, &out);
		rc = tool_write_output(o, &out, &d);
	}
	tsr_buf_free(&src);
	tsr_buf_free(&out);
	tsr_words_free(&w);
	tsr_diag_fini(&d);
	return rc ? 1 : 0;
}

/* Where `dis` puts its text as it is printed: the -o file (atomically) or standard output. */
struct dis_out {
	struct tsr_fileout fo;
	bool file;
};

static int dis_write(void *ctx, const char *data, size_t len)
{
	struct dis_out *x = ctx;
	if (x->file)
		return tsr_fileout_write(&x->fo, data, len);
	return len && fwrite(data, 1, len, stdout) != len ? -1 : 0;
}

int cmd_dis(struct tool_opts *o)
{
	int rc = need_one_file(o, "dis");
	if (rc)
		return rc;
	struct tsr_diag d;
	struct tsr_words w;
	enum tsr_wordfmt f;
	tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
	tsr_words_init(&w, o->target->word_bits);
	rc = tool_load_words(o, o->args[0], false, &w, &f, &d);
	if (!rc && !o->target->text) {
		struct tsr_buf out = { 0 };
		o->target->disasm_program(w.w, w.count, o->base, &out);
		rc = tool_write_output(o, &out, &d);
		tsr_buf_free(&out);
	} else if (!rc) {   /* printed and written in pieces: memory does not grow with the program's text */
		struct dis_out x = { .file = o->output != NULL };
		if (x.file && tsr_fileout_open(&x.fo, o->output, &d) < 0) {
			rc = -1;
		} else {
			rc = tsr_tc_disasm_program_stream(o->target->text, w.w, w.count, o->base, dis_write, &x);
			if (x.file && rc && !x.fo.err)
				tsr_fileout_abort(&x.fo);
			else if (x.file)
				rc = tsr_fileout_commit(&x.fo, &d);   /* reports a failed write, removing the temporary */
			else if (rc || fflush(stdout))
				rc = tsr_diag_error(&d, "<stdout>", 0, 0, "write failed");
		}
	}
	tsr_words_free(&w);
	tsr_diag_fini(&d);
	return rc ? 1 : 0;
}
