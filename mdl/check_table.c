/* Tables (docs/mdl.md "Tables"): name entries with their ranges expanded, numeric entries evaluated for every
 * code; no code twice per kind, no name twice, and (ck_table_ranges, once templates are resolved) codes that
 * fit every field the table is used with.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "check.h"

#define MAX_RANGE 65536

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

