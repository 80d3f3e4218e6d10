/* (addition) The assembly source's declared syntax (`asm { ... }`, docs/asm.md "Declared syntax"): what an
 * assembler front end reads around the bundles, for sources written in another tool's layout (a vertex
 * assembler's: a bundle over several lines ended by `;`, C comments, sections `.exports` ... before `.asm`).
 *   bundle_end "TEXT";                        a bundle runs over lines until TEXT (not in a template's text)
 *   comment "TEXT";                           a line comment (the first one replaces the default `#` and `//`)
 *   comment "OPEN" "CLOSE";                   a block comment, across lines
 *   section ".NAME" code;                     the bundles follow
 *   section ".NAME" names [R];                entries `[i] = "text";` naming element i of regfile R
 *   section ".NAME" values [R] [components "xyzw"];   entries `[i] = v;` / `[i].c = v;`: initial values of R[i]
 * (without R the entries are kept, of any index, and set nowhere: a description whose state is not written yet)
 * Each mistake is reported at its place; the model keeps the syntax only when the block had none.
 */
#include <string.h>
#include "check.h"

static bool blank_in(const char *s)
{
	for (; *s; s++)
		if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
			return true;
	return false;
}

/* A section name: '.' then an identifier. */
static bool section_name(const char *s)
{
	if (s[0] != '.' || !s[1])
		return false;
	for (const char *p = s + 1; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	return !(s[1] >= '0' && s[1] <= '9');
}

/* The text of string argument i of it, or NULL after an error. */
static const char *str_arg(struct ck *k, const struct ast_asmitem *it, int i, const char *what)
{
	const struct ast_asmarg *a = it->args.v[i];
	if (!a->str) {
		mdl_error(k->p, a->name.loc, "%s must be a string (\"...\")", what);
		return NULL;
	}
	if (!a->s.len || blank_in(a->s.s) || memchr(a->s.s, 0, (size_t)a->s.len)) {
		mdl_error(k->p, a->s.loc, "%s must be non-empty text without white space", what);
		return NULL;
	}
	return ck_intern(k, a->s.s);
}

static int nargs_error(struct ck *k, const struct ast_asmitem *it, const char *form)
{
	return mdl_error(k->p, it->key.loc, "'%s' takes %s", it->key.s, form);
}

static void section(struct ck *k, struct mdl_syntax *sx, const struct ast_asmitem *it, bool *bad)
{
	int n = it->args.n;
	const struct ast_asmarg *kind = n >= 2 ? it->args.v[1] : NULL;
	if (n < 2 || kind->str) {
		*bad = nargs_error(k, it, "a name and a kind: section \".NAME\" code | names [R] | values [R] [components \"xyzw\"]");
		return;
	}
	const char *name = str_arg(k, it, 0, "a section's name");
	if (!name) {
		*bad = true;
		return;
	}
	const struct ast_asmarg *a0 = it->args.v[0];
	if (!section_name(name)) {
		*bad = mdl_error(k->p, a0->s.loc, "section name '%s' must be '.' and an identifier", name);
		return;
	}
	for (int i = 0; i < sx->nsections; i++)
		if (!strcmp(sx->sections[i].name, name)) {
			*bad = mdl_error(k->p, a0->s.loc, "section '%s' is already declared (at %s:%d:%d)", name,
			                 sx->sections[i].loc.file, sx->sections[i].loc.line, sx->sections[i].loc.col);
			return;
		}
	if (!strcmp(name, ".set") || !strcmp(name, ".word")) {
		*bad = mdl_error(k->p, a0->s.loc, "'%s' is a directive, not a section name", name);
		return;
	}
	struct mdl_section s = { name, MDL_SEC_CODE, -1, "", a0->s.loc };
	const char *kn = kind->name.s;
	if (!strcmp(kn, "code")) {
		if (n != 2) {
			*bad = nargs_error(k, it, "nothing after 'code'");
			return;
		}
	} else if (!strcmp(kn, "names") || !strcmp(kn, "values")) {
		s.kind = kn[0] == 'n' ? MDL_SEC_NAMES : MDL_SEC_VALUES;
		/* the regfile may be left out (entries of any index, kept for the tools but set nowhere) */
		const struct ast_asmarg *r = n >= 3 ? it->args.v[2] : NULL;
		int at = 3;
		if (r && !r->str && !strcmp(r->name.s, "components")) {
			r = NULL;
			at = 2;
		} else if (r && r->str) {
			*bad = mdl_error(k->p, r->s.loc, "expected the regfile the entries are of, or nothing");
			return;
		}
		if (r) {
			struct ck_sym *y = ck_lookup(k, NS_VALUE, r->name.s);
			if (!y || y->kind != SYM_STATE || k->m->states[y->index].count == 0) {
				*bad = mdl_error(k->p, r->name.loc, y ? "'%s' is not a regfile" : "undefined name '%s'", r->name.s);
				return;
			}
			s.state = y->index;
		}
		if (n > at) {
			const struct ast_asmarg *c = it->args.v[at];
			if (s.kind != MDL_SEC_VALUES || c->str || strcmp(c->name.s, "components") || n != at + 2) {
				*bad = mdl_error(k->p, c->name.loc, s.kind == MDL_SEC_VALUES
				                 ? "expected 'components \"xyzw\"' (or nothing) after the regfile"
				                 : "a names section takes nothing after the regfile");
				return;
			}
			const char *cs = str_arg(k, it, at + 1, "the components' names");
			if (!cs) {
				*bad = true;
				return;
			}
			for (const char *p = cs; *p; p++)
				if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')) || strchr(p + 1, *p)) {
					*bad = mdl_error(k->p, ((const struct ast_asmarg *)it->args.v[at + 1])->s.loc,
					                 "components \"%s\": one distinct letter each", cs);
					return;
				}
			s.comps = cs;
		}
	} else {
		*bad = mdl_error(k->p, kind->name.loc, "unknown section kind '%s' (code, names or values)", kn);
		return;
	}
	sx->sections = ck_grow(k, sx->sections, sx->nsections, &(int){ sx->nsections }, sizeof *sx->sections);
	sx->sections[sx->nsections++] = s;
}

void ck_asm(struct ck *k)
{
	struct mdl_pctx *p = k->p;
	if (!p->nasm)
		return;
	struct mdl_syntax *sx = tsr_arena_alloc(k->A, sizeof *sx);
	memset(sx, 0, sizeof *sx);
	bool bad = false;
	for (int i = 0; i < p->asm_items.n; i++) {
		const struct ast_asmitem *it = p->asm_items.v[i];
		const char *key = it->key.s;
		int n = it->args.n;
		if (!strcmp(key, "bundle_end")) {
			if (n != 1) {
				bad = nargs_error(k, it, "one string: bundle_end \";\"");
				continue;
			}
			if (sx->bundle_end) {
				bad = mdl_error(p, it->key.loc, "'bundle_end' is already declared");
				continue;
			}
			const char *t = str_arg(k, it, 0, "a bundle's end");
			if (!t || (t[0] == '.' && t[1] == 0) || strchr(t, '{') || strchr(t, '}')) {
				if (t)
					mdl_error(p, ((const struct ast_asmarg *)it->args.v[0])->s.loc,
					          "a bundle's end may not be '.' nor hold '{' or '}'");
				bad = true;
				continue;
			}
			sx->bundle_end = t;
		} else if (!strcmp(key, "comment")) {
			if (n != 1 && n != 2) {
				bad = nargs_error(k, it, "one string (a line comment) or two (a block comment's open and close)");
				continue;
			}
			const char *a = str_arg(k, it, 0, "a comment's text"), *b = n == 2 ? str_arg(k, it, 1, "a comment's close") : NULL;
			if (!a || (n == 2 && !b)) {
				bad = true;
			} else if (n == 2) {
				if (sx->block_open)
					bad = mdl_error(p, it->key.loc, "a block comment is already declared");
				sx->block_open = a;
				sx->block_close = b;
			} else if (sx->ncomments == 4) {
				bad = mdl_error(p, it->key.loc, "at most 4 line comments");
			} else {
				sx->comments[sx->ncomments++] = a;
			}
		} else if (!strcmp(key, "section")) {
			section(k, sx, it, &bad);
		} else {
			bad = mdl_error(p, it->key.loc, "unknown asm item '%s' (bundle_end, comment or section)", key);
		}
	}
	if (!bad)
		k->m->syntax = sx;
}
