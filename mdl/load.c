/* Loading a description (model.h): read, lex and parse (syntax.c), check and build (check.c).
 * The model, its arena and its intern table live in one allocation freed by mdl_model_free.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "syntax.h"

struct mdl_owner {
	struct mdl_model m;             /* first: mdl_model_free casts back */
	struct tsr_arena arena;
	struct tsr_intern intern;
};

void mdl_model_free(struct mdl_model *m)
{
	if (!m)
		return;
	struct mdl_owner *o = (struct mdl_owner *)m;
	tsr_arena_free_all(&o->arena);
	tsr_intern_free(&o->intern);
	free(o);
}

struct mdl_model *mdl_load_buffer(const char *path, const char *text, size_t len, struct tsr_diag *diag)
{
	struct mdl_owner *o = calloc(1, sizeof *o);
	char *buf = malloc(len + 1);
	if (!o || !buf)
		abort();
	memcpy(buf, text, len);
	buf[len] = 0;
	o->m.arena = &o->arena;
	struct tsr_arena ast = { 0 };
	struct mdl_pctx c = { 0 };
	c.file = tsr_intern_cstr(&o->intern, path ? path : "<input>");
	c.arena = &ast;
	c.intern = &o->intern;
	c.diag = diag;
	o->m.path = c.file;
	int r = mdl_parse(&c, buf, len);
	if (r == 0)
		r = mdl_check(&c, &o->m);
	free(buf);
	tsr_arena_free_all(&ast);
	mdl_pctx_fini(&c);
	if (r) {
		mdl_model_free(&o->m);
		return NULL;
	}
	return &o->m;
}

struct mdl_model *mdl_load(const char *path, struct tsr_diag *diag)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		tsr_diag_error(diag, path, 0, 0, "cannot open: %s", strerror(errno));
		return NULL;
	}
	size_t cap = 1 << 16, len = 0, n;
	char *buf = malloc(cap);
	if (!buf)
		abort();
	while ((n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap) {
			cap *= 2;
			char *b = realloc(buf, cap);
			if (!b)
				abort();
			buf = b;
		}
	}
	bool bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		tsr_diag_error(diag, path, 0, 0, "cannot read: %s", strerror(errno));
		return NULL;
	}
	struct mdl_model *m = mdl_load_buffer(path, buf, len, diag);
	free(buf);
	return m;
}
