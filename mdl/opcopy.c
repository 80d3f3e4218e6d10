/* (addition) X12: a `move` op that copies its source unchanged (a plain copy) against one that converts it
 * (docs/mdl.md X12).  mdlc's checks (mdl/check_attrs.c) hold a move to assignments whose values read its one source,
 * fields and constants; this tells the copies apart for the target descriptor (struct tsr_target.op_copy), so
 * that the packer moves only a plain copy to another move op's unit (runtime/pack/pack_route_alt.c). */
#include <stdlib.h>

#include "opcopy.h"

#define UNKNOWN INT64_MIN

/* e's value when it is a constant given the known fields fv (UNKNOWN elsewhere): integers, fields, comparisons and
 * the logical and bitwise operators, which is what field conditions are written with. */
static int64_t fold(const struct mdl_expr *e, const int64_t *fv, int nfields)
{
	if (!e)
		return UNKNOWN;
	if (e->kind == MDL_E_INT)
		return (int64_t)e->ival;
	if (e->kind == MDL_E_FIELD)
		return e->index >= 0 && e->index < nfields ? fv[e->index] : UNKNOWN;
	if (e->kind == MDL_E_UN && e->op == '!') {
		int64_t a = fold(e->a[0], fv, nfields);
		return a == UNKNOWN ? UNKNOWN : !a;
	}
	if (e->kind != MDL_E_BIN)
		return UNKNOWN;
	int64_t a = fold(e->a[0], fv, nfields), b = fold(e->a[1], fv, nfields);
	if (e->op == MDL_OP_LAND && (a == 0 || b == 0))
		return 0;
	if (e->op == MDL_OP_LOR && ((a != UNKNOWN && a) || (b != UNKNOWN && b)))
		return 1;
	if (a == UNKNOWN || b == UNKNOWN)
		return UNKNOWN;
	switch (e->op) {
	case MDL_OP_EQ: return a == b;
	case MDL_OP_NE: return a != b;
	case MDL_OP_LAND: return a && b;
	case MDL_OP_LOR: return a || b;
	case '&': return a & b;
	case '|': return a | b;
	default: return UNKNOWN;
	}
}

static bool word_type(enum mdl_type t) { return t == MDL_T_U32 || t == MDL_T_I32 || t == MDL_T_F32; }

/* Is e local x unchanged: x itself, a cast between the 32-bit types of it (casts reinterpret the bits: docs/mdl.md
 * "Semantics"), or a conditional whose condition the known fields decide for such an arm, or both of whose arms
 * are such? */
static bool copies(const struct mdl_expr *e, int x, const int64_t *fv, int nfields)
{
	if (!e)
		return false;
	if (e->kind == MDL_E_LOCAL)
		return e->index == x;
	if (e->kind == MDL_E_CAST)
		return word_type(e->type) && e->a[0] && word_type(e->a[0]->type) && copies(e->a[0], x, fv, nfields);
	if (e->kind == MDL_E_COND) {
		int64_t c = fold(e->a[0], fv, nfields);
		if (c != UNKNOWN)
			return copies(e->a[c ? 1 : 2], x, fv, nfields);
		return copies(e->a[1], x, fv, nfields) && copies(e->a[2], x, fv, nfields);
	}
	return false;
}

/* Every assignment of the statements (through blocks) writes x unchanged, unmasked. */
static bool copy_stmts(struct mdl_stmt *const *s, int n, int x, const int64_t *fv, int nfields)
{
	for (int i = 0; i < n; i++) {
		if (!s[i])
			return false;
		if (s[i]->kind == MDL_S_BLOCK) {
			if (!copy_stmts(s[i]->body, s[i]->nbody, x, fv, nfields))
				return false;
			continue;
		}
		if ((s[i]->kind != MDL_S_ASSIGN && s[i]->kind != MDL_S_WRITE) || s[i]->mask ||
		    !copies(s[i]->e, x, fv, nfields))
			return false;
	}
	return true;
}

bool mdl_op_plain_copy(const struct mdl_model *m, int op, int move_attr)
{
	if (move_attr < 0 || op < 0 || op >= m->nops)
		return false;
	const struct mdl_op *o = &m->ops[op];
	if (!(o->attrs >> move_attr & 1) || o->is_span || !o->nsem)
		return false;
	/* its source: the one hole bound to a name whose operand reads and does not write */
	int x = -1, nsrc = 0;
	for (int p = 0; p < o->tmpl.nparts; p++) {
		const struct mdl_tpart *t = &o->tmpl.parts[p];
		if (t->kind != MDL_TP_OPND || t->local < 0 || t->opnd < 0 || t->opnd >= m->nopnds)
			continue;
		const struct mdl_opnd *d = &m->opnds[t->opnd];
		bool rd = false, wr = false;
		for (int a = 0; a < d->nalt; a++) {
			rd |= d->alt[a].read != NULL;
			wr |= d->alt[a].wstate >= 0 || d->alt[a].wspace >= 0;
		}
		if (rd && !wr) {
			x = t->local;
			nsrc++;
		}
	}
	if (nsrc != 1)
		return false;
	/* the known fields: those the encode conditions bind, and those of an optional part that sets one 1-bit
	 * field, at the value they have when the part's text is absent */
	int64_t *fv = malloc(((size_t)m->nfields + 1) * sizeof *fv);
	if (!fv)
		return false;
	for (int f = 0; f < m->nfields; f++)
		fv[f] = UNKNOWN;
	for (int c = 0; c < o->ncond; c++)
		if (o->cond[c].binding && o->cond[c].field >= 0 && o->cond[c].field < m->nfields && o->cond[c].field2 < 0)
			fv[o->cond[c].field] = (int64_t)o->cond[c].val;
	for (int p = 0; p < o->tmpl.nparts; p++) {
		const struct mdl_tpart *t = &o->tmpl.parts[p];
		if (t->kind != MDL_TP_OPT || t->ncond != 1 || !t->cond[0].binding || t->cond[0].field2 >= 0)
			continue;
		int f = t->cond[0].field;
		if (f >= 0 && f < m->nfields && m->fields[f].width == 1 && t->cond[0].val <= 1)
			fv[f] = 1 - (int64_t)t->cond[0].val;
	}
	bool r = copy_stmts(o->sem, o->nsem, x, fv, m->nfields);
	free(fv);
	return r;
}
