/* `tessera asm` and `tessera dis`, and the program loading both share with `sim`. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "text/textcodec.h"
#include "tools.h"

void tool_words_init(const struct tool_opts *o, struct tsr_words *w)
{
	tsr_words_init(w, o->target->word_bits);
	w->msw_first = o->target->word_msw_first;
}

int tool_read_input(const char *path, struct tsr_buf *b, struct tsr_diag *d)
{
	if (strcmp(path, "-"))
		return tsr_file_read(path, b, d);
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0)
		tsr_buf_append(b, chunk, n);
	return ferror(stdin) ? tsr_diag_error(d, "<stdin>", 0, 0, "cannot read standard input") : 0;
}

/* Assembles [text, text+len) with its first instruction at o->base. */
static int assemble(const struct tool_opts *o, const char *name, const char *text, size_t len, struct tsr_words *out,
		    struct tsr_diag *d)
{
	if (!o->base)
		return o->target->assemble(name, text, len, out, d);
	return tsr_tc_assemble_at(o->target->text, name, text, len, o->base, out, d);
}

/* A program has at least one instruction and fits below 2^32 from o->base (the addresses --base allows;
 * pcs are 32-bit). */
static int check_end(const struct tool_opts *o, const char *name, size_t count, struct tsr_diag *d)
{
	if (count == 0)
		return tsr_diag_error(d, name, 0, 0, "no instructions (an empty program)");
	if (count <= ((uint64_t)1 << 32) / o->target->pc_step - o->base / o->target->pc_step)
		return 0;
	return tsr_diag_error(d, name, 0, 0, "%zu instructions from --base 0x%" PRIx64 " pass address 2^32", count,
			      o->base);
}

int tool_load_program(const struct tool_opts *o, const char *path, struct tsr_words *out, struct tsr_diag *d)
{
	struct tsr_buf b = { 0 };
	const char *name = strcmp(path, "-") ? path : "<stdin>";
	int rc = tool_read_input(path, &b, d);
	if (!rc) {
		const char *text = b.data ? b.data : "";
		enum tsr_wordfmt f = o->infmt == TSR_WORDS_AUTO ? tsr_words_detect(text, b.len) : o->infmt;
		rc = f == TSR_WORDS_ASM   ? assemble(o, name, text, b.len, out, d)
		     : f == TSR_WORDS_HEX ? tsr_hex_parse(out, text, b.len, name, d)
					  : tsr_bin_parse(out, text, b.len, name, d);
	}
	if (!rc)
		rc = check_end(o, name, out->count, d);
	tsr_buf_free(&b);
	return rc;
}

int tool_load_words(const struct tool_opts *o, const char *path, struct tsr_words *out, enum tsr_wordfmt *fmt,
		    struct tsr_diag *d)
{
	*fmt = TSR_WORDS_AUTO;
	if (!strcmp(path, "-"))   /* standard input cannot be read twice: whole */
		return tool_load_program(o, path, out, d);
	enum tsr_wordfmt f = o->infmt;
	if (f == TSR_WORDS_AUTO && tsr_words_detect_file(path, &f, d) < 0)
		return -1;
	if (f == TSR_WORDS_ASM)   /* assembly is read whole (the assembler's output, not the source, is kept) */
		return tool_load_program(o, path, out, d);
	out->lean = true;
	*fmt = f;
	int rc = tsr_words_stream(out, path, f, d);
	return rc ? rc : check_end(o, path, out->count, d);
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


/* ---- output written as it is produced ---------------------------------------------------------------- */
/* -o FILE through tsr_fileout (atomic); standard output directly, or held in a temporary file until the end
 * (`hold`: nothing is printed when the command fails late, as when the output was built in memory). */
struct tool_out {
	struct tsr_fileout fo;
	FILE *held;                /* standard output held back (tmpfile), or NULL */
	struct tsr_buf buf, mem;   /* buf: the piece not yet written; mem: held in memory when tmpfile fails */
	const char *path;          /* -o FILE */
	bool file, hold, opened, failed;
};

static void out_open(const struct tool_opts *o, struct tool_out *x, bool hold)
{
	memset(x, 0, sizeof *x);
	x->file = o->output != NULL;
	x->path = o->output;
	x->hold = hold && !x->file;
	if (x->hold)
		x->held = tmpfile();
}

/* Writes [data, data+len) where the output goes. */
static void out_write(struct tool_out *x, const char *data, size_t len)
{
	if (x->file && !x->opened && !x->failed) {   /* the file is created with the first piece (or at the end) */
		x->opened = true;
		x->failed = tsr_fileout_open(&x->fo, x->path, NULL) < 0;
	}
	if (!len || x->failed)
		return;
	if (x->file)
		x->failed = tsr_fileout_write(&x->fo, data, len) < 0;
	else if (x->hold && x->held)
		x->failed = fwrite(data, 1, len, x->held) != len;
	else if (x->hold)
		tsr_buf_append(&x->mem, data, len);
	else
		x->failed = fwrite(data, 1, len, stdout) != len;
}

static void out_flush(struct tool_out *x)
{
	out_write(x, x->buf.data, x->buf.len);
	tsr_buf_clear(&x->buf);
}

static void out_put(struct tool_out *x, const char *data, size_t len)
{
	if (!x->buf.len && len >= 65536) {   /* a whole piece (the disassembler's): written as it is, not copied */
		out_write(x, data, len);
		return;
	}
	tsr_buf_append(&x->buf, data, len);
	if (x->buf.len >= 65536)
		out_flush(x);
}

/* Ends the output: ok, it is committed (held text copied to standard output); else dropped.  Returns 0, or
 * -1 with `FILE: error: cannot write: ...` or `<stdout>: error: write failed`. */
static int out_close(struct tool_out *x, bool ok, struct tsr_diag *d)
{
	int rc = 0;
	if (ok)
		out_flush(x);
	if (x->file) {
		if (ok && !x->fo.f)   /* the temporary could not be created */
			rc = tsr_diag_error(d, x->path, 0, 0, "cannot write: %s", strerror(x->fo.err ? x->fo.err : EIO));
		else if (ok)
			rc = tsr_fileout_commit(&x->fo, d);   /* reports a failed write, removing the temporary */
		else
			tsr_fileout_abort(&x->fo);
	} else if (ok) {
		if (x->held && !x->failed && !fflush(x->held) && !fseek(x->held, 0, SEEK_SET)) {
			char chunk[65536];
			size_t n;
			while (!x->failed && (n = fread(chunk, 1, sizeof chunk, x->held)) > 0)
				x->failed = fwrite(chunk, 1, n, stdout) != n;
			x->failed |= ferror(x->held) != 0;
		} else if (x->held) {
			x->failed = true;
		} else if (x->mem.len) {
			x->failed = fwrite(x->mem.data, 1, x->mem.len, stdout) != x->mem.len;
		}
		if (x->failed || fflush(stdout))
			rc = tsr_diag_error(d, "<stdout>", 0, 0, "write failed");
	}
	if (x->held)
		fclose(x->held);
	tsr_buf_free(&x->buf);
	tsr_buf_free(&x->mem);
	return ok ? rc : -1;
}

static int dis_write(void *ctx, const char *data, size_t len)
{
	struct tool_out *x = ctx;
	out_put(x, data, len);
	return x->failed ? -1 : 0;
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
	tool_words_init(o, &w);
	rc = tool_load_words(o, o->args[0], &w, &f, &d);
	if (!rc && !o->target->text) {
		struct tsr_buf out = { 0 };
		o->target->disasm_program(w.w, w.count, o->base, &out);
		rc = tool_write_output(o, &out, &d);
		tsr_buf_free(&out);
	} else if (!rc) {   /* printed and written in pieces: memory does not grow with the program's text */
		struct tool_out x;
		out_open(o, &x, false);
		tsr_tc_meta_sink(o->target->text, w.meta, dis_write, &x);   /* a declared syntax's sections, first */
		tsr_tc_disasm_program_stream(o->target->text, w.w, w.count, o->base, dis_write, &x);
		rc = out_close(&x, true, &d);
	}
	tsr_words_free(&w);
	tsr_diag_fini(&d);
	return rc ? 1 : 0;
}

/* asm's input is text (tsr_data_is_text): anything else is reported as binary data. Returns -1. */
static int not_text(const char *name, struct tsr_diag *d)
{
	return tsr_diag_error(d, name, 0, 0, "binary data, not assembly text (more than a third of the first %u bytes "
			      "are not text)", TSR_DETECT_BYTES);
}

/* asm's instructions, formatted as they come (hex lines with their source text, or binary). */
struct asm_emit {
	struct tool_out *x;
	unsigned per;
	bool bin, msw_first;
	struct tsr_buf line;
	size_t count;   /* instructions so far */
};

static void asm_emit(void *ctx, const uint32_t *w, const char *comment, unsigned line)
{
	struct asm_emit *e = ctx;
	(void)line;
	e->count++;
	tsr_buf_clear(&e->line);
	if (e->bin)
		tsr_bin_format_one(w, e->per, e->msw_first, &e->line);
	else
		tsr_hex_format_one(w, e->per, e->msw_first, comment, &e->line);
	out_put(e->x, e->line.data, e->line.len);
}

int cmd_asm(struct tool_opts *o)
{
	int rc = need_one_file(o, "asm");
	if (rc)
		return rc;
	struct tsr_diag d;
	tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
	const struct tsr_tc_isa *isa = o->target->text;
	const char *name = strcmp(o->args[0], "-") ? o->args[0] : "<stdin>";
	if (!strcmp(o->args[0], "-") || !isa) {   /* read whole: standard input cannot be read twice */
		struct tsr_words w;
		struct tsr_buf out = { 0 }, src = { 0 };
		tool_words_init(o, &w);
		rc = tool_read_input(o->args[0], &src, &d);
		if (!rc && !tsr_data_is_text(src.data, src.len))   /* by content, as the other commands (docs/tools.md) */
			rc = not_text(name, &d);
		if (!rc)
			rc = assemble(o, name, src.data ? src.data : "", src.len, &w, &d);
		if (!rc)
			rc = check_end(o, name, w.count, &d);
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
	enum tsr_wordfmt f;
	if (tsr_words_detect_file(name, &f, &d) < 0 || (f == TSR_WORDS_BIN && not_text(name, &d) < 0)) {
		tsr_diag_fini(&d);
		return 1;
	}
	/* the source read twice in pieces (labels, then instructions), the output written as it comes */
	struct tsr_lines in;
	struct tool_out x;
	rc = tsr_lines_open(&in, o->args[0], &d);
	if (!rc) {
		out_open(o, &x, true);
		struct asm_emit e = { &x, o->target->word_bits / 32, o->outfmt == TSR_WORDS_BIN, o->target->word_msw_first, { 0 }, 0 };
		struct tsr_tc_asm *A = tsr_tc_asm_begin(isa, o->args[0], o->base, &d);
		const char *b, *end;
		while (tsr_lines_next(&in, &b, &end))
			tsr_tc_asm_labels(A, b, end);
		if (!in.err)
			tsr_lines_rewind(&in);
		tsr_tc_asm_pass2(A, asm_emit, &e);
		while (!in.err && tsr_lines_next(&in, &b, &end))
			tsr_tc_asm_line(A, b, end);
		rc = tsr_tc_asm_end(A);
		if (in.err)
			rc = tsr_diag_error(&d, o->args[0], 0, 0, "cannot read: %s", strerror(in.err));
		if (!rc)
			rc = check_end(o, name, e.count, &d);
		rc = out_close(&x, rc == 0, &d);
		tsr_buf_free(&e.line);
		tsr_lines_close(&in);
	}
	tsr_diag_fini(&d);
	return rc ? 1 : 0;
}
