/* `tessera validate FILE...`: checks programs against their target's resources, latencies and hazards
 * (the description's rules; docs/mdl.md "Resources and hazards", runtime/validate/validate.h).  Every violation is
 * an error at the instruction that completes it,
 *   file:line: error: 0x00000018: rule sfu_r4: ... (ref: ...)
 * (line: the instruction's line in hex or assembly input, else none), followed by a note with the
 * instruction's disassembly.  Exit status 0 when every program passes, 1 otherwise. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tools.h"
#include "validate/validate.h"

struct vctx {
	const struct tool_opts *o;
	const struct tsr_words *w;
	const char *path;
	struct tsr_diag *d;
	struct tsr_hex_comments *hc;   /* a lean hex program's comments, else NULL */
};

static void report(void *p, const struct tsr_vviol *v)
{
	struct vctx *c = p;
	unsigned line = c->w->line && v->at < c->w->count ? c->w->line[v->at] : 0;
	tsr_diag_error(c->d, c->path, line, 0, "0x%08" PRIx32 ": %s %s: %s (ref: %s)", v->pc,
		       tsr_vviol_kind(v), v->name, v->text, v->ref ? v->ref : "none");
	const struct tsr_target *t = c->o->target;
	struct tsr_buf text = { 0 };
	t->disasm(c->w->w + v->at * t->nwords, v->pc, &text);
	const char *src = c->hc ? tsr_hex_comments_at(c->hc, line)
		: c->w->comment && c->w->comment[v->at] ? c->w->comment[v->at] : NULL;
	tsr_diag_note(c->d, c->path, line, 0, "%s%s%s", text.data ? text.data : "", src ? "    // " : "", src ? src : "");
	tsr_buf_free(&text);
}

/* --trace: every instruction's events, as the rules see them (one line each). */
static void trace_events(const struct tool_opts *o, const struct tsr_words *w)
{
	const struct tsr_vdesc *D = o->target->vdesc;
	uint64_t *f = calloc(D->nfields ? D->nfields : 1, sizeof *f);
	struct tsr_vbundle *b = calloc(1, sizeof *b);
	for (size_t i = 0; i < w->count; i++) {
		uint32_t pc = (uint32_t)(o->base + i * D->pc_step);
		memset(b, 0, sizeof *b);
		b->f = f;
		D->events(w->w + i * D->nwords, pc, b);
		printf("0x%08" PRIx32 ":", pc);
		for (int k = 0; k < b->nev; k++) {
			char t[96];
			tsr_vev_text(D, &b->ev[k], t, sizeof t);
			printf("%s %s%s", k ? ";" : "", t, b->ev[k].cond ? " (conditional)" : "");
		}
		printf("\n");
	}
	free(b);
	free(f);
}

int cmd_validate(struct tool_opts *o)
{
	if (o->nargs < 1) {
		fprintf(stderr, "tessera: error: 'validate' takes one or more input files ('-' for standard input)\n");
		return 2;
	}
	if (!o->target->vdesc) {
		fprintf(stderr, "tessera: error: target '%s' has no validator\n", o->target->name);
		return 1;
	}
	int rc = 0;
	for (int i = 0; i < o->nargs; i++) {
		struct tsr_diag d;
		struct tsr_words w;
		tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
		d.max_errors = 0;
		tool_words_init(o, &w);
		const char *path = strcmp(o->args[i], "-") ? o->args[i] : "<stdin>";
		enum tsr_wordfmt f;
		if (tool_load_words(o, o->args[i], &w, &f, &d) < 0) {
			rc = 1;
		} else {
			if (o->trace)
				trace_events(o, &w);
			struct tsr_hex_comments hc;
			if (f == TSR_WORDS_HEX)
				tsr_hex_comments_open(&hc, o->args[i]);
			struct vctx c = { o, &w, path, &d, f == TSR_WORDS_HEX ? &hc : NULL };
			size_t n = tsr_validate(o->target->vdesc, w.w, w.count, o->base, report, &c);
			if (f == TSR_WORDS_HEX)
				tsr_hex_comments_close(&hc);
			if (n)
				rc = 1;
			fprintf(stderr, "%s: %zu instruction%s, %zu violation%s\n", path, w.count, w.count == 1 ? "" : "s", n,
				n == 1 ? "" : "s");
		}
		tsr_words_free(&w);
		tsr_diag_fini(&d);
	}
	return rc;
}
