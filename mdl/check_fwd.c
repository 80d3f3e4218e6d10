/* (addition, X6) Forwards: values with an age (docs/mdl.md "Forwards").
 *   forward NAME ['[' N ']'] {, NAME ['[' N ']']} : u32|vec|vec4 age LO..HI;     0 <= LO <= HI <= 8
 *   reads  NAME@A, NAME[i]@A  (A a constant in LO..HI; 0 only in commit blocks)
 *   writes NAME = e [ages L..H];  NAME[i] = e [ages L..H];   (LO <= L <= H <= HI; in sem and commit blocks)
 * Without stages (X5) a bundle has two: a value written in the compute stage (format or op `sem`) is read at age 0
 * by the same bundle's commit blocks; one written in a commit block is read from the next instruction on.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#define MAX_ELEMS 65536

int mdl_warning(struct mdl_pctx *c, struct mdl_loc loc, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	tsr_diag_warning(c->diag, loc.file, (unsigned)loc.line, (unsigned)loc.col, "%s", msg);
	return 0;
}

void ck_forwards(struct ck *k)
{
	struct mdl_model *m = k->m;
	for (int i = 0; i < m->nfwds; i++) {
		const struct ast_decl *d = k->fwdecl[i];
		struct mdl_fwd *f = &m->fwds[i];
		if (!strcmp(d->ref.s, "vec"))
			f->vec = true;
		else if (!strcmp(d->ref.s, "vec4")) {   /* X11: its components are the simulator's 4 lanes */
			f->vec = f->vec4 = true;
			ck_note_vec4(k, d->ref.loc);
		} else if (strcmp(d->ref.s, "u32"))
			mdl_error(k->p, d->ref.loc, "unknown forward type '%s' (expected u32, vec or vec4)", d->ref.s);
		if (d->indexed) {
			if (d->count < 1 || d->count > MAX_ELEMS)
				mdl_error(k->p, d->name.loc, "forward '%s' must have 1 to %d elements", f->name, MAX_ELEMS);
			else
				f->count = (int)d->count;
		}
		if (d->rlo > d->rhi || d->rhi > MDL_FWD_MAX_AGE)
			mdl_error(k->p, d->name.loc, "ages %" PRId64 "..%" PRId64 " of forward '%s': need 0 <= LO <= HI <= %d",
			          d->rlo, d->rhi, f->name, MDL_FWD_MAX_AGE);
		else {
			f->lo = (int)d->rlo;
			f->hi = (int)d->rhi;
		}
	}
}

/* The element index of `F[i]` (a->a[0]) for forward f, or `F` (no index); *idx NULL for a scalar.  0 or -1. */
static int fwd_index(struct ck *k, struct ck_scope *s, const struct mdl_fwd *f, const struct ast_expr *index,
                     struct mdl_loc loc, struct mdl_expr **idx)
{
	*idx = NULL;
	if (!index) {
		if (f->count > 0)
			return mdl_error(k->p, loc, "forward '%s' needs an element index", f->name);
		return 0;
	}
	if (f->count == 0)
		return mdl_error(k->p, loc, "forward '%s' has no elements to index", f->name);
	struct mdl_expr *i = ck_int(k, s, index, "an element index");
	if (!i)
		return -1;
	uint64_t v;
	if (mdl_ceval(i, NULL, &v) == 0 && v >= (uint64_t)f->count)
		return mdl_error(k->p, index->loc, "element %" PRIu64 " outside forward '%s' (%d elements)", v, f->name,
		                 f->count);
	*idx = i;
	return 0;
}

struct mdl_expr *ck_fwd_read(struct ck *k, struct ck_scope *s, const struct ast_expr *a)
{
	struct ck_sym *y = ck_lookup(k, NS_VALUE, a->name);
	if (!y || y->kind != SYM_FORWARD) {
		mdl_error(k->p, a->age_loc, "'%s' is not a forward: only a forward is read at an age (@)", a->name);
		return NULL;
	}
	const struct mdl_fwd *f = &k->m->fwds[y->index];
	if (!(s->allow & CX_STATE))
		return ck_not_allowed(k, s, "forward", a->name, a->loc);
	if (a->kind == AE_INDEX && a->a[1]) {
		mdl_error(k->p, a->loc, "'%s' is not a field: only a field has slices [hi:lo]", a->name);
		return NULL;
	}
	struct mdl_expr *idx;
	if (fwd_index(k, s, f, a->kind == AE_INDEX ? a->a[0] : NULL, a->loc, &idx))
		return NULL;
	if (a->age < f->lo || a->age > f->hi) {
		mdl_error(k->p, a->age_loc, "age %" PRId64 " outside the ages %d..%d of forward '%s'", a->age, f->lo, f->hi,
		          f->name);
		return NULL;
	}
	if (a->age == 0 && !s->commit) {
		mdl_error(k->p, a->age_loc, "'%s@0' is this instruction's own value, written in its compute stage: only a "
		          "commit block reads it", f->name);
		return NULL;
	}
	k->fwd_read[y->index] = true;
	struct mdl_expr *e = ck_mk(k, MDL_E_FWD, f->vec4 ? MDL_T_VEC4 : MDL_T_U32, a->loc, 1);
	e->index = y->index;
	e->a[0] = idx;
	e->ival = (uint64_t)a->age;
	return e;
}

struct mdl_stmt *ck_fwd_write(struct ck *k, struct ck_scope *s, const struct ast_stmt *a, struct mdl_expr *v,
                              bool *is_fwd)
{
	struct ck_sym *y = ck_lookup(k, NS_VALUE, a->name.s);
	bool local = !a->index && s->L && (s->allow & CX_LOCALS) && ck_local_find(s->L, a->name.s) >= 0;
	*is_fwd = y && y->kind == SYM_FORWARD && !local;
	if (!*is_fwd) {
		if (a->has_ages)
			mdl_error(k->p, a->ages_loc, "'ages' is given only in a write of a forward, and '%s' is not one",
			          a->name.s);
		*is_fwd = a->has_ages;
		return NULL;
	}
	const struct mdl_fwd *f = &k->m->fwds[y->index];
	k->fwd_written[y->index] = true;
	if (!(s->allow & CX_STATE)) {
		mdl_error(k->p, a->name.loc, "forward '%s' cannot be written in %s", a->name.s, s->what);
		return NULL;
	}
	struct mdl_expr *idx;
	if (fwd_index(k, s, f, a->index, a->name.loc, &idx))
		return NULL;
	int lo = f->lo, hi = f->hi;
	if (a->has_ages) {
		if (a->ages_lo > a->ages_hi || a->ages_lo < f->lo || a->ages_hi > f->hi) {
			mdl_error(k->p, a->ages_loc, "ages %" PRId64 "..%" PRId64 " outside the ages %d..%d of forward '%s'",
			          a->ages_lo, a->ages_hi, f->lo, f->hi, f->name);
			return NULL;
		}
		lo = (int)a->ages_lo;
		hi = (int)a->ages_hi;
	}
	struct mdl_expr *mask = NULL;
	if (a->mask && !(mask = ck_int(k, s, a->mask, "a write mask")))
		return NULL;
	if (ck_vec4_place(k, v, mask, f->vec4, "forward", f->name, a->loc))
		return NULL;
	struct mdl_stmt *st = tsr_arena_alloc(k->A, sizeof *st);
	st->kind = MDL_S_ASSIGN;
	st->loc = a->loc;
	st->local = st->hook = -1;
	st->target = ck_mk(k, MDL_E_FWD, f->vec4 ? MDL_T_VEC4 : MDL_T_U32, a->name.loc, 1);
	st->target->index = y->index;
	st->target->a[0] = idx;
	st->e = v;
	st->mask = mask;
	st->ages_lo = lo;
	st->ages_hi = hi;
	return st;
}

void ck_fwd_final(struct ck *k)
{
	if (k->p->errors)
		return;
	for (int i = 0; i < k->m->nfwds; i++) {
		const struct mdl_fwd *f = &k->m->fwds[i];
		if (!k->fwd_written[i])
			mdl_warning(k->p, f->loc, "forward '%s' is never written (every read of it is a hazard)", f->name);
		else if (!k->fwd_read[i])
			mdl_warning(k->p, f->loc, "forward '%s' is never read", f->name);
	}
}
