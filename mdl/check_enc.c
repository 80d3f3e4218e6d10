/* Encoding: fields, tables and formats (docs/mdl.md "Fields", "Tables", "Formats").
 * Checks: bits inside the word, no bit twice in a field, width <= 64; table ranges expanded, numeric entries
 * evaluated for every code, no code twice per kind, no name twice, codes that fit the fields the table is used
 * with; per format: no two fields on one bit, every bit covered, a selector that can hold and that excludes
 * every other format's (decided by enumeration when the selectors' fields span at most 16 bits).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "check.h"

#define MAX_RANGE 65536

void ck_fields(struct ck *k)
{
	struct mdl_model *m = k->m;
	int word = m->word_bits ? m->word_bits : 1024;
	bool *seen = tsr_arena_alloc(k->p->arena, (size_t)word);
	for (int i = 0; i < m->nfields; i++) {
		struct ast_decl *d = k->fdecl[i];
		struct mdl_field *f = &m->fields[i];
		memset(seen, 0, (size_t)word);
		f->is_signed = d->is_signed;
		f->npieces = d->pieces.n;
		f->pieces = tsr_arena_alloc(k->A, (size_t)(d->pieces.n + 1) * sizeof *f->pieces);
		int64_t width = 0;
		bool ok = true;
		for (int j = 0; j < d->pieces.n; j++) {
			struct ast_piece *p = d->pieces.v[j];
			if (p->hi < p->lo) {
				mdl_error(k->p, p->loc, "bit range %" PRId64 ":%" PRId64 " is backwards (write %" PRId64 ":%" PRId64 ")",
				          p->hi, p->lo, p->lo, p->hi);
				ok = false;
				continue;
			}
			if (p->hi >= word) {
				mdl_error(k->p, p->loc, "bit %" PRId64 " is outside the %d-bit word", p->hi, word);
				ok = false;
				continue;
			}
			for (int64_t b = p->lo; b <= p->hi; b++) {
				if (seen[b]) {
					mdl_error(k->p, p->loc, "bit %" PRId64 " is listed twice in field '%s'", b, f->name);
					ok = false;
					break;
				}
				seen[b] = true;
			}
			f->pieces[j] = (struct mdl_piece){ (int)p->hi, (int)p->lo, p->inverted };
			width += p->hi - p->lo + 1;
		}
		if (width > 64)
			mdl_error(k->p, d->name.loc, "field '%s' is %" PRId64 " bits wide (at most 64)", f->name, width);
		f->width = ok && width <= 64 ? (int)width : 1;
		k->field_bad[i] = !ok || width > 64;
	}
}

/* ---- tables ---- */
#define MAX_TABLE_CODES (1 << 20)   /* codes of all tables together (names expanded): bounds time and memory */

/* Which entry first gave a code a name (kind 0) or a value (kind 1): open addressing on code * 2 + kind. */
struct codemap { uint64_t *key; int *val; int cap, n; };

static int cm_find(const struct codemap *m, uint64_t key)
{
	if (!m->cap)
		return -1;
	for (int i = (int)((key * 0x9e3779b97f4a7c15u) >> 40) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (!m->key[i])
			return -1;
		if (m->key[i] == key + 1)
			return m->val[i];
	}
}

static void cm_put(struct tsr_arena *a, struct codemap *m, uint64_t key, int val)
{
	if (2 * (m->n + 1) > m->cap) {
		struct codemap n = { 0, 0, m->cap ? 2 * m->cap : 256, 0 };
		n.key = tsr_arena_alloc(a, (size_t)n.cap * sizeof *n.key);
		n.val = tsr_arena_alloc(a, (size_t)n.cap * sizeof *n.val);
		for (int i = 0; i < m->cap; i++)
			if (m->key[i])
				cm_put(a, &n, m->key[i] - 1, m->val[i]);
		*m = n;
	}
	int i = (int)((key * 0x9e3779b97f4a7c15u) >> 40) & (m->cap - 1);
	while (m->key[i])
		i = (i + 1) & (m->cap - 1);
	m->key[i] = key + 1;
	m->val[i] = val;
	m->n++;
}

struct tb {
	struct ck *k;
	struct mdl_table *t;
	int cap;
	struct ast_decl *d;
	int ns;                         /* namespace of this table's names */
	struct codemap codes;
};

static struct mdl_tentry *tb_add(struct tb *b)
{
	b->t->ent = ck_grow(b->k, b->t->ent, b->t->nent, &b->cap, sizeof *b->t->ent);
	struct mdl_tentry *e = &b->t->ent[b->t->nent++];
	memset(e, 0, sizeof *e);
	return e;
}

/* Counts n more codes against MAX_TABLE_CODES; false (reported once) when over. */
static bool tb_budget(struct tb *b, int64_t n, struct mdl_loc loc)
{
	b->k->table_codes += n;
	if (b->k->table_codes <= MAX_TABLE_CODES)
		return true;
	if (b->k->table_codes - n <= MAX_TABLE_CODES)
		mdl_error(b->k->p, loc, "tables have too many codes (more than %d in all)", MAX_TABLE_CODES);
	return false;
}

static void tb_names(struct tb *b, struct ast_tentry *te)
{
	struct ck *k = b->k;
	struct ck_scope s = { .what = "a table code", .slot = -1 };
	uint64_t code;
	enum mdl_type ty;
	if (ck_const(k, &s, te->code, &code, &ty))
		return;
	int64_t count = -1;
	for (int j = 0; j < te->names.n; j++) {
		struct ast_tname *n = te->names.v[j];
		int64_t c = n->range ? n->hi - n->lo + 1 : 1;
		if (n->range && (n->hi < n->lo || c > MAX_RANGE)) {
			mdl_error(k->p, n->str.loc, "bad name range %" PRId64 "..%" PRId64 " (at most %d names, low first)", n->lo,
			          n->hi, MAX_RANGE);
			return;
		}
		if (count >= 0 && c != count) {
			mdl_error(k->p, n->str.loc, "synonyms must stand for the same number of codes");
			return;
		}
		count = c;
	}
	if ((ty != MDL_T_U32 && ty != MDL_T_I32) || code + (uint64_t)count - 1 > 0xffffffffu) {
		mdl_error(k->p, te->code->loc, "table codes must be integers from 0 to 0xffffffff");
		return;
	}
	if (!tb_budget(b, count * te->names.n, te->loc))
		return;
	for (int64_t i = 0; i < count; i++) {
		uint32_t c = (uint32_t)(code + (uint64_t)i);
		int di = cm_find(&b->codes, (uint64_t)c * 2);
		const struct mdl_tentry *dup = di >= 0 ? &b->t->ent[di] : NULL;
		if (dup) {
			mdl_error(k->p, te->loc, "code %" PRIu32 " of table '%s' already has a name (at %s:%d:%d)", c, b->t->name,
			          dup->loc.file, dup->loc.line, dup->loc.col);
			return;
		}
		for (int j = 0; j < te->names.n; j++) {
			struct ast_tname *n = te->names.v[j];
			char buf[32];
			const char *text = n->str.s;
			if (n->range) {
				size_t len = strlen(n->str.s) + 24;
				char *t = tsr_arena_alloc(k->p->arena, len);
				snprintf(buf, sizeof buf, "%" PRId64, n->lo + i);
				snprintf(t, len, "%s%s", n->str.s, buf);
				text = t;
			}
			text = ck_intern(k, text);
			struct ck_sym *y = ck_lookup(k, b->ns, text);
			if (y) {
				mdl_error(k->p, n->str.loc, "name '%s' appears twice in table '%s' (first at %s:%d:%d)", text,
				          b->t->name, y->loc.file, y->loc.line, y->loc.col);
				return;
			}
			ck_declare(k, b->ns, SYM_TABLE, text, b->t->nent, n->str.loc, NULL);
			if (j == 0)
				cm_put(k->p->arena, &b->codes, (uint64_t)c * 2, b->t->nent);
			struct mdl_tentry *e = tb_add(b);
			e->code_lo = e->code_hi = c;
			e->name = text;
			e->canonical = j == 0;
			e->loc = n->str.loc;
		}
	}
}

static void tb_num(struct tb *b, struct ast_tentry *te)
{
	struct ck *k = b->k;
	struct ck_scope s = { .allow = CX_CODE, .what = "a table entry", .slot = -1 };
	struct mdl_expr *v = ck_value(k, &s, te->value);
	if (!v)
		return;
	if (v->type == MDL_T_BOOL || v->type == MDL_T_F16) {
		mdl_error(k->p, te->value->loc, "a table value must be an integer or an f32, not %s", ck_type_name(v->type));
		return;
	}
	for (int j = 0; j < te->codes.n; j++) {
		struct ast_range *r = te->codes.v[j];
		if (r->hi < r->lo || r->hi - r->lo >= MAX_RANGE || r->hi > 0xffffffff) {
			mdl_error(k->p, r->loc, "bad code range %" PRId64 "..%" PRId64 " (at most %d codes, low first, below 2^32)",
			          r->lo, r->hi, MAX_RANGE);
			continue;
		}
		if (!tb_budget(b, r->hi - r->lo + 1, r->loc))
			return;
		uint32_t dc = 0;
		const struct mdl_tentry *dup = NULL;
		for (int64_t c = r->lo; c <= r->hi && !dup; c++) {
			int di = cm_find(&b->codes, (uint64_t)c * 2 + 1);
			if (di >= 0) {
				dup = &b->t->ent[di];
				dc = (uint32_t)c;
			}
		}
		if (dup) {
			mdl_error(k->p, r->loc, "code %" PRIu32 " of table '%s' already has a value (at %s:%d:%d)", dc, b->t->name,
			          dup->loc.file, dup->loc.line, dup->loc.col);
			continue;
		}
		for (int64_t c = r->lo; c <= r->hi; c++)
			cm_put(k->p->arena, &b->codes, (uint64_t)c * 2 + 1, b->t->nent);
		struct mdl_tentry *e = tb_add(b);
		e->code_lo = (uint32_t)r->lo;
		e->code_hi = (uint32_t)r->hi;
		e->is_num = true;
		e->is_float = v->type == MDL_T_F32;
		e->loc = r->loc;
		e->vals = tsr_arena_alloc(k->A, (size_t)(r->hi - r->lo + 1) * sizeof *e->vals);
		for (int64_t c = r->lo; c <= r->hi; c++) {
			struct mdl_cenv env = { .has_code = true, .code = (uint64_t)c };
			uint64_t x;
			int rc = mdl_ceval(v, &env, &x);
			if (rc) {
				mdl_error(k->p, te->value->loc, rc == -2 ? "division by zero for code %" PRId64
				                                         : "value is not a constant for code %" PRId64, c);
				break;
			}
			e->vals[c - r->lo] = (uint32_t)x;
		}
	}
}

void ck_tables(struct ck *k)
{
	for (int i = 0; i < k->m->ntables; i++) {
		struct tb b = { k, &k->m->tables[i], 0, k->tdecl[i], 1000 + i, { 0 } };
		for (int j = 0; j < b.d->items.n; j++) {
			struct ast_tentry *te = b.d->items.v[j];
			if (te->numeric)
				tb_num(&b, te);
			else
				tb_names(&b, te);
		}
	}
}

void ck_table_ranges(struct ck *k)
{
	for (int u = 0; u < k->ntuses; u++) {
		const struct ck_table_use *use = &k->tuses[u];
		bool done = false;
		for (int v = 0; v < u && !done; v++)
			done = k->tuses[v].table == use->table && k->tuses[v].field == use->field;
		const struct mdl_table *t = &k->m->tables[use->table];
		const struct mdl_field *f = &k->m->fields[use->field];
		if (done || f->width >= 32)
			continue;
		for (int i = 0; i < t->nent; i++)
			if (t->ent[i].code_hi >> f->width) {
				uint32_t c = t->ent[i].code_lo >> f->width ? t->ent[i].code_lo : (uint32_t)1 << f->width;
				mdl_error(k->p, t->ent[i].loc, "code %" PRIu32 " of table '%s' does not fit field '%s' (%d bit%s)", c,
				          t->name, f->name, f->width, f->width == 1 ? "" : "s");
				break;
			}
	}
}

/* ---- formats ---- */
void ck_formats(struct ck *k)
{
	struct mdl_model *m = k->m;
	for (int i = 0; i < m->nformats; i++) {
		struct ast_decl *d = k->formdecl[i];
		struct mdl_format *f = &m->formats[i];
		struct ck_scope sel = { .allow = CX_FIELDS, .what = "a format selector", .slot = -1 };
		if (d->expr) {
			f->selector = ck_bool(k, &sel, d->expr);
		} else {
			f->selector = ck_mk(k, MDL_E_INT, MDL_T_BOOL, d->name.loc, 0);
			f->selector->ival = 1;
		}
		f->nfields = d->names.n;
		f->fields = tsr_arena_alloc(k->A, (size_t)(d->names.n + 1) * sizeof *f->fields);
		for (int j = 0; j < d->names.n; j++) {
			struct ast_name *n = d->names.v[j];
			f->fields[j] = ck_field_ref(k, NULL, n->s, n->loc, true);
			for (int l = 0; l < j && f->fields[j] >= 0; l++)
				if (f->fields[l] == f->fields[j])
					mdl_error(k->p, n->loc, "field '%s' listed twice in format '%s'", n->s, f->name);
		}
		f->nignore = d->pieces.n;
		f->ignore = tsr_arena_alloc(k->A, (size_t)(d->pieces.n + 1) * sizeof *f->ignore);
		for (int j = 0; j < d->pieces.n; j++) {
			struct ast_piece *p = d->pieces.v[j];
			if (p->inverted)
				mdl_error(k->p, p->loc, "'~' has no meaning in 'ignore'");
			if (p->hi < p->lo || (m->word_bits && p->hi >= m->word_bits)) {
				mdl_error(k->p, p->loc, p->hi < p->lo ? "bit range is backwards" : "bit %" PRId64 " is outside the %d-bit word",
				          p->hi, m->word_bits);
				f->ignore[j] = (struct mdl_piece){ -1, 0, false };
				continue;
			}
			f->ignore[j] = (struct mdl_piece){ (int)p->hi, (int)p->lo, false };
		}
		f->nslots = d->slots.n;
		f->slots = tsr_arena_alloc(k->A, (size_t)(d->slots.n + 1) * sizeof *f->slots);
		for (int j = 0; j < d->slots.n; j++) {
			struct ast_name *n = d->slots.v[j];
			struct ck_sym *y = ck_lookup(k, NS_SLOT, n->s);
			f->slots[j] = y ? y->index : -1;
			if (!y)
				mdl_error(k->p, n->loc, "undefined slot '%s'", n->s);
			for (int l = 0; l < j && y; l++)
				if (f->slots[l] == f->slots[j])
					mdl_error(k->p, n->loc, "slot '%s' listed twice in format '%s'", n->s, f->name);
		}
		f->ndef = d->defaults.n;
		f->def = tsr_arena_alloc(k->A, (size_t)(d->defaults.n + 1) * sizeof *f->def);
		for (int j = 0; j < d->defaults.n; j++) {
			struct ast_default *df = d->defaults.v[j];
			struct ck_scope cs = { .what = "a default value", .slot = -1 };
			uint64_t v;
			enum mdl_type t;
			int fi = ck_field_ref(k, NULL, df->field.s, df->field.loc, true);
			f->def[j] = (struct mdl_default){ fi, 0 };
			if (fi < 0 || ck_const(k, &cs, df->e, &v, &t) || ck_field_width_fits(k, fi, v, t, df->e->loc))
				continue;
			f->def[j].val = v & (m->fields[fi].width >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << m->fields[fi].width) - 1);
		}
		struct ck_locals *L = tsr_arena_alloc(k->A, sizeof *L);
		struct ck_scope ss = { .allow = CX_FIELDS | CX_STATE | CX_LOCALS | CX_ATTR, .what = "a format's semantics",
		                       .L = L, .slot = -1 };
		f->nsem = d->sem.n;
		ck_stmts(k, &ss, &d->sem, &f->sem);
		f->ncommit = d->commit.n;
		ck_stmts(k, &ss, &d->commit, &f->commit);
		f->nlocals = L->n;
		f->local_names = L->names;
	}
}

static void overlap(struct ck *k, const struct mdl_format *f, const bool *a, const bool *b, bool *both,
                    const char *na, const char *nb, struct mdl_loc at)
{
	int word = k->m->word_bits;
	bool any = false;
	for (int i = 0; i < word; i++)
		any |= both[i] = a[i] && b[i];
	if (!any)
		return;
	const char *bits = ck_fmt_bits(k, both, word);
	if (na && nb)
		mdl_error(k->p, at, "fields '%s' and '%s' overlap in format '%s' (bit%s %s)", na, nb, f->name,
		          strpbrk(bits, ":,") ? "s" : "", bits);
	else if (na || nb)
		mdl_error(k->p, at, "field '%s' overlaps ignored bits in format '%s' (bit%s %s)", na ? na : nb, f->name,
		          strpbrk(bits, ":,") ? "s" : "", bits);
	else
		mdl_error(k->p, at, "ignore ranges overlap in format '%s' (bit%s %s)", f->name, strpbrk(bits, ":,") ? "s" : "",
		          bits);
}

void ck_format_layout(struct ck *k)
{
	struct mdl_model *m = k->m;
	int word = m->word_bits;
	if (!word)
		return;
	for (int i = 0; i < m->nformats; i++) {
		const struct mdl_format *f = &m->formats[i];
		const struct ast_decl *d = k->formdecl[i];
		int n = f->nfields + f->nignore;
		bool skip = false;
		for (int j = 0; j < f->nfields; j++)
			skip = skip || f->fields[j] < 0 || k->field_bad[f->fields[j]];
		for (int j = 0; j < f->nignore; j++)
			skip = skip || f->ignore[j].hi < 0;
		if (skip)
			continue;   /* a bad field or range, already reported */
		bool *cover = tsr_arena_alloc(k->p->arena, (size_t)(n + 2) * (size_t)word);
		bool *both = cover + (size_t)n * (size_t)word, *any = both + word;
		for (int j = 0; j < n; j++) {
			bool *mine = cover + (size_t)j * (size_t)word;
			const struct mdl_piece *p;
			int np;
			if (j < f->nfields) {
				p = m->fields[f->fields[j]].pieces;
				np = m->fields[f->fields[j]].npieces;
			} else {
				p = &f->ignore[j - f->nfields];
				np = 1;
			}
			for (int q = 0; q < np; q++)
				for (int b = p[q].lo; b <= p[q].hi && b < word; b++)
					mine[b] = any[b] = true;
			const char *nj = j < f->nfields ? m->fields[f->fields[j]].name : NULL;
			struct mdl_loc at = j < f->nfields ? ((struct ast_name *)d->names.v[j])->loc
			                                   : ((struct ast_piece *)d->pieces.v[j - f->nfields])->loc;
			for (int l = 0; l < j; l++) {
				overlap(k, f, cover + (size_t)l * (size_t)word, mine, both,
				        l < f->nfields ? m->fields[f->fields[l]].name : NULL, nj, at);
			}
		}
		bool missing = false;
		for (int b = 0; b < word; b++)
			missing |= both[b] = !any[b];
		if (missing) {
			const char *bits = ck_fmt_bits(k, both, word);
			mdl_error(k->p, f->loc, "format '%s' leaves bit%s %s uncovered", f->name, strpbrk(bits, ":,") ? "s" : "", bits);
		}
	}
}

/* ---- selectors ---- */
static void sel_fields(const struct mdl_expr *e, bool *used)
{
	if (!e)
		return;
	if (e->kind == MDL_E_FIELD)
		used[e->index] = true;
	for (int i = 0; i < (e->nargs > 0 ? e->nargs : 1); i++)
		sel_fields(e->a[i], used);
}

/* The word bits the fields in `used` occupy (at most 16, else -1), into bits[]. */
static int sel_bits(const struct mdl_model *m, const bool *used, int *bits)
{
	int n = 0;
	bool *seen = NULL;
	bool local[1024] = { false };
	seen = local;
	for (int f = 0; f < m->nfields; f++) {
		if (!used[f])
			continue;
		for (int q = 0; q < m->fields[f].npieces; q++)
			for (int b = m->fields[f].pieces[q].lo; b <= m->fields[f].pieces[q].hi && b < 1024; b++) {
				if (seen[b])
					continue;
				if (n == 16)
					return -1;
				seen[b] = true;
				bits[n++] = b;
			}
	}
	return n;
}

/* Field values for assignment x of the bits (bit i of x is word bit bits[i]). */
static void sel_values(const struct mdl_model *m, const bool *used, const int *bits, int nb, unsigned x, uint64_t *vals)
{
	for (int f = 0; f < m->nfields; f++) {
		if (!used[f])
			continue;
		const struct mdl_field *fd = &m->fields[f];
		uint64_t v = 0;
		for (int q = 0; q < fd->npieces; q++)
			for (int b = fd->pieces[q].hi; b >= fd->pieces[q].lo; b--) {
				int bit = 0;
				for (int i = 0; i < nb; i++)
					if (bits[i] == b)
						bit = (x >> i) & 1;
				v = v << 1 | (uint64_t)(bit ^ fd->pieces[q].inverted);
			}
		if (fd->is_signed && fd->width < 64 && (v >> (fd->width - 1)) & 1)
			v |= ~(uint64_t)0 << fd->width;
		vals[f] = v;
	}
}

/* 1 if some word makes selector a (and b, if not NULL) hold, 0 if none, -1 if undecided; witness in vals. */
static int sel_search(struct ck *k, const struct mdl_expr *a, const struct mdl_expr *b, uint64_t *vals, bool *used)
{
	const struct mdl_model *m = k->m;
	int bits[16];
	memset(used, 0, (size_t)m->nfields * sizeof *used);
	sel_fields(a, used);
	sel_fields(b, used);
	for (int f = 0; f < m->nfields; f++)
		if (used[f] && k->field_bad[f])
			return -1;
	int nb = sel_bits(m, used, bits);
	if (nb < 0)
		return -1;
	for (unsigned x = 0; x < 1u << nb; x++) {
		struct mdl_cenv env = { .fields = vals, .m = m };
		uint64_t ra, rb = 1;
		sel_values(m, used, bits, nb, x, vals);
		if (mdl_ceval(a, &env, &ra) || (b && mdl_ceval(b, &env, &rb)))
			return -1;
		if (ra && rb)
			return 1;
	}
	return 0;
}

void ck_selectors(struct ck *k)
{
	struct mdl_model *m = k->m;
	uint64_t *vals = tsr_arena_alloc(k->p->arena, (size_t)(m->nfields + 1) * sizeof *vals);
	bool *used = tsr_arena_alloc(k->p->arena, (size_t)(m->nfields + 1) * sizeof *used);
	bool *dead = tsr_arena_alloc(k->p->arena, (size_t)(m->nformats + 1) * sizeof *dead);
	for (int i = 0; i < m->nformats; i++) {
		if (!m->formats[i].selector) {
			dead[i] = true;
			continue;
		}
		if (sel_search(k, m->formats[i].selector, NULL, vals, used) == 0) {
			mdl_error(k->p, m->formats[i].loc, "format '%s' can never be selected", m->formats[i].name);
			dead[i] = true;
		}
	}
	for (int j = 0; j < m->nformats; j++)
		for (int i = 0; i < j; i++) {
			if (dead[i] || dead[j] || sel_search(k, m->formats[i].selector, m->formats[j].selector, vals, used) != 1)
				continue;
			char w[256] = "";
			size_t o = 0;
			for (int f = 0; f < m->nfields && o < sizeof w - 1; f++)
				if (used[f])
					o += (size_t)snprintf(w + o, sizeof w - o, "%s%s = %" PRId64, o ? ", " : "", m->fields[f].name,
					                      (int64_t)vals[f]);
			mdl_error(k->p, m->formats[j].loc, "formats '%s' and '%s' can both match the same word (%s)",
			          m->formats[i].name, m->formats[j].name, o ? w : "any word");
			break;
		}
}
