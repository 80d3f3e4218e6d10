/* Machine state (docs/mdl.md "Machine state", "Address spaces"): states, regfiles, guards and spaces.
 * Space entries are checked for every code: codes inside the space, one entry per code and direction,
 * regfile elements in range.
 */
#include <inttypes.h>
#include <string.h>
#include "check.h"

#define MAX_ELEMS 65536

void ck_states(struct ck *k)
{
	struct mdl_model *m = k->m;
	for (int i = 0; i < m->nstates; i++) {
		struct ast_decl *d = k->sdecl[i];
		struct mdl_state *s = &m->states[i];
		s->guard_elem = s->guard_hook = -1;
		if (!strcmp(d->ref.s, "vec"))
			s->vec = true;
		else if (!strcmp(d->ref.s, "vec4")) {   /* (addition, X11): stored as the simulator's 4 lanes */
			s->vec = s->vec4 = true;
			ck_note_vec4(k, d->ref.loc);
		} else if (strcmp(d->ref.s, "u32"))
			mdl_error(k->p, d->ref.loc, "unknown state type '%s' (expected u32 or vec)", d->ref.s);
		s->output = d->output;   /* (addition) tessera sim's outputs and their print format */
		s->print = d->sprint;
		if (d->kind == AD_REGFILE) {
			if (d->count < 1 || d->count > MAX_ELEMS)
				mdl_error(k->p, d->name.loc, "regfile '%s' must have 1 to %d elements", s->name, MAX_ELEMS);
			else
				s->count = (int)d->count;
			if (d->has_latency && d->latency > 1000)
				mdl_error(k->p, d->name.loc, "latency of '%s' must be from 0 to 1000", s->name);
			else if (d->has_latency)
				s->latency = (int)d->latency;
		}
	}
	for (int i = 0; i < k->p->decls.n; i++) {
		struct ast_decl *d = k->p->decls.v[i];
		if (d->kind != AD_GUARD)
			continue;
		struct ck_sym *y = ck_lookup(k, NS_VALUE, d->name.s);
		if (!y || y->kind != SYM_STATE || m->states[y->index].count == 0) {
			mdl_error(k->p, d->name.loc, y ? "'%s' is not a regfile" : "undefined name '%s'", d->name.s);
			continue;
		}
		struct mdl_state *s = &m->states[y->index];
		struct ck_scope cs = { .what = "a guard", .slot = -1 };
		uint64_t v;
		enum mdl_type t;
		if (ck_const(k, &cs, d->expr, &v, &t))
			continue;
		if (v >= (uint64_t)s->count || (t != MDL_T_U32 && t != MDL_T_I32)) {
			mdl_error(k->p, d->expr->loc, "element %" PRIu64 " outside regfile '%s' (%d elements)", v, s->name, s->count);
			continue;
		}
		if (s->guard_hook >= 0) {
			mdl_error(k->p, d->loc, "regfile '%s' already has a guard", s->name);
			continue;
		}
		int h = ck_hook(k, d->ref.s, 0, HOOK_GUARD, d->ref.loc);
		if (h >= 0) {
			s->guard_elem = (int)v;
			s->guard_hook = h;
		}
	}
}

/* Checks the element index of a state entry for every code of [lo, hi]. */
static void entry_elems(struct ck *k, const struct mdl_state *st, const struct mdl_expr *idx, int64_t lo, int64_t hi,
                        struct mdl_loc loc)
{
	for (int64_t c = lo; c <= hi; c++) {
		struct mdl_cenv env = { .has_code = true, .code = (uint64_t)c };
		uint64_t v;
		if (mdl_ceval(idx, &env, &v) == 0 && v >= (uint64_t)st->count) {
			mdl_error(k->p, loc, "element %" PRIu64 " (for address %" PRId64 ") outside regfile '%s' (%d elements)", v, c,
			          st->name, st->count);
			return;
		}
	}
}

/* Converts one entry (all its code ranges share it) into *out; 0 or -1. */
static int entry(struct ck *k, struct ast_sentry *se, struct mdl_sentry *out)
{
	struct ck_scope s = { .allow = CX_ADDR, .what = "a space entry", .slot = -1 };
	memset(out, 0, sizeof *out);
	out->write = se->write;
	out->loc = se->loc;
	out->state = out->hook = -1;
	struct ck_scope us = { .allow = CX_ADDR, .what = "a resource use of a space entry", .slot = -1 };
	out->nuses = ck_uses(k, &us, &se->uses, &out->uses);
	if (se->kind == ASE_NONE) {
		out->kind = MDL_SE_NONE;
		return 0;
	}
	if (se->kind == ASE_HOOK) {
		out->kind = MDL_SE_HOOK;
		out->nargs = se->args.n;
		out->args = tsr_arena_alloc(k->A, (size_t)(se->args.n + 1) * sizeof *out->args);
		int bad = 0;
		for (int i = 0; i < se->args.n; i++)
			if (!(out->args[i] = ck_value(k, &s, se->args.v[i])))
				bad = -1;
		out->hook = ck_hook(k, se->hook.s, se->args.n, se->write ? HOOK_WRITE : HOOK_READ, se->hook.loc);
		return out->hook < 0 ? -1 : bad;
	}
	out->kind = MDL_SE_STATE;
	const struct ast_expr *p = se->place;
	struct ck_sym *y = ck_lookup(k, NS_VALUE, p->name);
	if (!y || y->kind != SYM_STATE) {
		mdl_error(k->p, p->loc, y ? "'%s' is not a state or regfile" : "undefined name '%s'", p->name);
		return -1;
	}
	const struct mdl_state *st = &k->m->states[y->index];
	if (st->vec4) {   /* (X11) a space's values are u32: a vec4 is read and written by name */
		mdl_error(k->p, p->loc, "a space entry cannot reach vec4 state '%s' (read and write it by name)", p->name);
		return -1;
	}
	if ((st->count > 0) != (p->kind == AE_INDEX)) {
		mdl_error(k->p, p->loc, st->count ? "regfile '%s' needs an element index" : "state '%s' is not a regfile",
		          p->name);
		return -1;
	}
	out->state = y->index;
	if (p->kind == AE_INDEX && !(out->index = ck_int(k, &s, p->a[0], "an element index")))
		return -1;
	if (se->value) {
		s.allow |= CX_VALUE;
		if (!(out->value = ck_value(k, &s, se->value)))
			return -1;
	}
	return 0;
}

void ck_spaces(struct ck *k)
{
	struct mdl_model *m = k->m;
	for (int i = 0; i < m->nspaces; i++) {
		struct ast_decl *d = k->spdecl[i];
		struct mdl_space *sp = &m->spaces[i];
		if (d->count < 1 || d->count > MAX_ELEMS) {
			mdl_error(k->p, d->name.loc, "space '%s' must have 1 to %d entries", sp->name, MAX_ELEMS);
			continue;
		}
		k->space_codes += (int64_t)d->count;
		if (k->space_codes > 16 * MAX_ELEMS) {
			mdl_error(k->p, d->name.loc, "spaces have too many entries (more than %d in all)", 16 * MAX_ELEMS);
			return;
		}
		sp->size = (int)d->count;
		int nent = 0;
		for (int j = 0; j < d->items.n; j++)
			nent += ((struct ast_sentry *)d->items.v[j])->codes.n;
		sp->ent = tsr_arena_alloc(k->A, (size_t)(nent + 1) * sizeof *sp->ent);
		struct mdl_loc **owner = tsr_arena_alloc(k->p->arena, 2 * (size_t)sp->size * sizeof *owner);
		for (int j = 0; j < d->items.n; j++) {
			struct ast_sentry *se = d->items.v[j];
			struct mdl_sentry e;
			bool ok = entry(k, se, &e) == 0;
			for (int r = 0; r < se->codes.n; r++) {
				struct ast_range *rg = se->codes.v[r];
				if (rg->hi < rg->lo || rg->hi >= sp->size) {
					mdl_error(k->p, rg->loc, rg->hi < rg->lo ? "bad code range (low first)"
					                                         : "code %" PRId64 " outside space '%s' (%d entries)",
					          rg->hi, sp->name, sp->size);
					continue;
				}
				struct mdl_loc **own = owner + (se->write ? sp->size : 0);
				bool dup = false;
				for (int64_t c = rg->lo; c <= rg->hi && !dup; c++)
					if (own[c]) {
						mdl_error(k->p, rg->loc, "code %" PRId64 " of space '%s' already has a %s entry (at %s:%d:%d)", c,
						          sp->name, se->write ? "write" : "read", own[c]->file, own[c]->line, own[c]->col);
						dup = true;
					}
				if (dup)
					continue;
				for (int64_t c = rg->lo; c <= rg->hi; c++)
					own[c] = &rg->loc;
				if (!ok)
					continue;
				if (e.kind == MDL_SE_STATE && e.index)
					entry_elems(k, &m->states[e.state], e.index, rg->lo, rg->hi, se->place->a[0]->loc);
				struct mdl_sentry *x = &sp->ent[sp->nent++];
				*x = e;
				x->lo = (uint32_t)rg->lo;
				x->hi = (uint32_t)rg->hi;
				x->loc = rg->loc;
				/* (addition) an output is printed after a run by reading it: a read through a hook would act */
				if (d->output && !se->write && e.kind == MDL_SE_HOOK)
					mdl_error(k->p, rg->loc, "output space '%s' reads address %" PRId64 " through hook '%s': "
					          "only state and none entries can be printed", sp->name, rg->lo, m->hooks[e.hook].name);
			}
		}
		sp->output = d->output;
	}
}
