/* Condition lists (`when`, `encode`, `{?'text' ...}`): each is a bool expression over fields; `FIELD == constant`
 * and `FIELD == FIELD` are binding (docs/mdl.md "Operands"), and a bound constant must fit its field.
 */
#include <inttypes.h>
#include "check.h"

int ck_field_width_fits(struct ck *k, int field, uint64_t v, enum mdl_type t, struct mdl_loc loc)
{
	const struct mdl_field *f = &k->m->fields[field];
	int w = f->width;
	bool fits;
	if (w >= 64)
		fits = true;
	else if (f->is_signed)
		fits = (int64_t)v >= -((int64_t)1 << (w - 1)) && (int64_t)v < ((int64_t)1 << (w - 1));
	else
		fits = v < ((uint64_t)1 << w);
	if (fits)
		return 0;
	if (t == MDL_T_I32 && (int64_t)v < 0)
		mdl_error(k->p, loc, "value %" PRId64 " does not fit field '%s' (%d bit%s%s)", (int64_t)v, f->name, w,
		          w == 1 ? "" : "s", f->is_signed ? ", signed" : "");
	else
		mdl_error(k->p, loc, "value %" PRIu64 " does not fit field '%s' (%d bit%s%s)", v, f->name, w, w == 1 ? "" : "s",
		          f->is_signed ? ", signed" : "");
	return -1;
}

static uint64_t mask(int w)
{
	return w >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1;
}

int ck_conds(struct ck *k, struct ck_scope *s, const struct ast_vec *in, struct mdl_cond **out)
{
	int bad = 0;
	*out = tsr_arena_alloc(k->A, (size_t)(in->n ? in->n : 1) * sizeof **out);
	for (int i = 0; i < in->n; i++) {
		const struct ast_expr *a = in->v[i];
		struct mdl_cond *c = &(*out)[i];
		c->loc = a->loc;
		c->field = c->field2 = -1;
		c->e = ck_bool(k, s, a);
		if (!c->e) {
			bad = -1;
			continue;
		}
		const struct mdl_expr *e = c->e;
		if (e->kind != MDL_E_BIN || e->op != MDL_OP_EQ)
			continue;
		const struct mdl_expr *x = e->a[0], *y = e->a[1];
		uint64_t v;
		if (x->kind == MDL_E_FIELD && y->kind == MDL_E_FIELD) {
			c->binding = true;
			c->field = x->index;
			c->field2 = y->index;
		} else if ((x->kind == MDL_E_FIELD && mdl_ceval(y, NULL, &v) == 0) ||
		           (y->kind == MDL_E_FIELD && mdl_ceval(x, NULL, &v) == 0)) {
			const struct mdl_expr *f = x->kind == MDL_E_FIELD ? x : y, *val = f == x ? y : x;
			if (ck_field_width_fits(k, f->index, v, val->type, val->loc)) {
				bad = -1;
				continue;
			}
			c->binding = true;
			c->field = f->index;
			c->val = v & mask(k->m->fields[f->index].width);
		}
	}
	return bad ? -1 : in->n;
}
