/* `tessera asm` and `tessera dis`, and the program loading both share with `sim`. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "text/textcodec.h"
#include "tools.h"

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
static int check_end(const struct tool_opts *o, const char *name, const struct tsr_words *w, struct tsr_diag *d)
{
	if (w->count == 0)
		return tsr_diag_error(d, name, 0, 0, "no instructions (an empty program)");
	if (w->count <= ((uint64_t)1 << 32) / o->target->pc_step - o->base / o->target->pc_step)
		return 0;
	return tsr_diag_error(d, name, 0, 0, "%zu instructions from --base 0x%" PRIx64 " pass address 2^32", w->count,
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
		rc = check_end(o, name, out, d);
	tsr_buf_free(&b);
	return rc;
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
	rc = tool_read_input(o->args[0], &src, &d);
	if (!rc && !tsr_data_is_text(src.data, src.len))   /* by content, as the other commands (docs/tools.md) */
		rc = tsr_diag_error(&d, name, 0, 0, "binary data, not assembly text (more than a third of the first "
				    "%u bytes are not text)", TSR_DETECT_BYTES);
	if (!rc)
		rc = assemble(o, name, src.data ? src.data : "", src.len, &w, &d);
	if (!rc)
		rc = check_end(o, name, &w, &d);
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

int cmd_dis(struct tool_opts *o)
{
	int rc = need_one_file(o, "dis");
	if (rc)
		return rc;
	struct tsr_diag d;
	struct tsr_words w;
	struct tsr_buf out = { 0 };
	tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
	tsr_words_init(&w, o->target->word_bits);
	rc = tool_load_program(o, o->args[0], &w, &d);
	if (!rc) {
		o->target->disasm_program(w.w, w.count, o->base, &out);
		rc = tool_write_output(o, &out, &d);
	}
	tsr_buf_free(&out);
	tsr_words_free(&w);
	tsr_diag_fini(&d);
	return rc ? 1 : 0;
}
