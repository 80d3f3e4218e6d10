/* Resources, `uses`, named events and rules (docs/mdl.md "Resources and hazards"), and what the checker derives
 * from them and from the semantics: each op's delay slots (the constant delay of its `jump`/`halt`) and the
 * agreement of regfile latencies with the latency rules that restate them.
 *
 * Patterns are flattened here: named events and `( ... )` groups are expanded, their modifiers (`in`, `if`,
 * `conditional`) pushed down to every term, so the model holds plain unions of event classes (model.h).
 */
#include <inttypes.h>
#include <string.h>
#include "check.h"

#define MAX_COUNT 64     /* units of a resource */
#define MAX_DIST 64      /* distances in rules */
#define MAX_BUNDLE 8     /* patterns of a bundle rule */

static const char *need_ref(struct ck *k, const struct ast_decl *d, const char *what)
{
	if (!d->has_ref) {
		mdl_error(k->p, d->name.loc, "%s '%s' needs a reference: ref \"...\" naming the hardware source", what,
		          d->name.s);
		return NULL;
	}
	if (!d->refstr.s || !d->refstr.s[0]) {
		mdl_error(k->p, d->refstr.loc, "empty reference for %s '%s'", what, d->name.s);
		return NULL;
	}
	return ck_intern(k, d->refstr.s);
}

void ck_resources(struct ck *k)
{
	struct mdl_model *m = k->m;
	int n = 0;
	for (int i = 0; i < k->p->decls.n; i++)
		n += ((struct ast_decl *)k->p->decls.v[i])->kind == AD_RESOURCE;
	m->resources = tsr_arena_alloc(k->A, (size_t)(n + 1) * sizeof *m->resources);
	for (int i = 0; i < k->p->decls.n; i++) {
		struct ast_decl *d = k->p->decls.v[i];
		if (d->kind != AD_RESOURCE)
			continue;
		struct mdl_resource *r = &m->resources[m->nresources];
		r->name = d->name.s;
		r->loc = d->name.loc;
		r->count = 1;
		if (d->rlo >= 0 && (d->rlo < 1 || d->rlo > MAX_COUNT))
			mdl_error(k->p, d->name.loc, "resource '%s' must have a count from 1 to %d", r->name, MAX_COUNT);
		else if (d->rlo >= 0)
			r->count = (int)d->rlo;
		r->ref = need_ref(k, d, "resource");
		if (ck_declare(k, NS_RULE, SYM_RESOURCE, r->name, m->nresources, r->loc, d))
			m->nresources++;
	}
}

int ck_uses(struct ck *k, struct ck_scope *s, const struct ast_vec *uses, struct mdl_use **out)
{
	int n = 0;
	*out = tsr_arena_alloc(k->A, (size_t)(uses->n + 1) * sizeof **out);
	for (int i = 0; i < uses->n; i++) {
		const struct ast_use *u = uses->v[i];
		struct ck_sym *y = ck_lookup(k, NS_RULE, u->res.s);
		if (!y || y->kind != SYM_RESOURCE) {
			mdl_error(k->p, u->loc, y ? "'%s' is not a resource" : "undefined resource '%s'", u->res.s);
			continue;
		}
		bool dup = false;
		for (int j = 0; j < n && !dup; j++)
			dup = (*out)[j].resource == y->index;
		if (dup) {
			mdl_error(k->p, u->loc, "resource '%s' used twice in one 'uses'", u->res.s);
			continue;
		}
		struct mdl_use *o = &(*out)[n];
		o->resource = y->index;
		o->loc = u->loc;
		if (u->value && !(o->value = ck_int(k, s, u->value, "a resource value")))
			continue;
		n++;
	}
	return n;
}

/* ---- patterns ---- */
struct mods {
	int nslots; int *slots;          /* NULL: any slot */
	struct mdl_expr *cond;
	bool conditional;
};
struct terms { int n, cap; struct mdl_evterm *t; };

struct rctx {
	struct ck *k;
	struct ast_decl **evdecl;        /* by event index */
	int *evstate;                    /* 0 not converted, 1 converting, 2 done */
};

static void push_term(struct ck *k, struct terms *v, const struct mdl_evterm *t)
{
	v->t = ck_grow(k, v->t, v->n, &v->cap, sizeof *v->t);
	v->t[v->n++] = *t;
}

static struct mdl_expr *and_expr(struct ck *k, struct mdl_expr *a, struct mdl_expr *b)
{
	if (!a || !b)
		return a ? a : b;
	struct mdl_expr *e = ck_mk(k, MDL_E_BIN, MDL_T_BOOL, a->loc, 2);
	e->op = MDL_OP_LAND;
	e->a[0] = a;
	e->a[1] = b;
	return e;
}

/* The modifiers of term t on top of the inherited ones m (slots intersect, conditions conjoin). */
static bool add_mods(struct ck *k, const struct ast_evterm *t, const struct mods *m, struct mods *out)
{
	*out = *m;
	out->conditional |= t->conditional;
	bool ok = true;
	if (t->slots.n) {
		int *sl = tsr_arena_alloc(k->A, (size_t)t->slots.n * sizeof *sl);
		int n = 0;
		for (int i = 0; i < t->slots.n; i++) {
			const struct ast_name *nm = t->slots.v[i];
			struct ck_sym *y = ck_lookup(k, NS_SLOT, nm->s);
			if (!y) {
				mdl_error(k->p, nm->loc, "undefined slot '%s'", nm->s);
				ok = false;
				continue;
			}
			bool keep = !m->slots;
			for (int j = 0; m->slots && j < m->nslots; j++)
				keep |= m->slots[j] == y->index;
			if (keep)
				sl[n++] = y->index;
		}
		out->slots = sl;
		out->nslots = n;
	}
	for (int i = 0; i < t->conds.n; i++) {
		/* attr(NAME): the op behind the event has the attribute (false for a format's own events) */
		struct ck_scope s = { .allow = CX_FIELDS | CX_ATTR, .what = "a rule condition", .slot = -1 };
		struct mdl_expr *e = ck_bool(k, &s, t->conds.v[i]);
		if (!e)
			ok = false;
		out->cond = and_expr(k, out->cond, e);
	}
	return ok;
}

static void convert_event(struct rctx *r, int ev);

static bool conv_terms(struct rctx *r, const struct ast_vec *in, const struct mods *m, struct terms *out);

static bool conv_codes(struct ck *k, const struct ast_evterm *t, int limit, const char *what, const char *name,
                       struct mdl_evterm *o)
{
	if (!t->has_codes)
		return true;
	o->lo = tsr_arena_alloc(k->A, (size_t)t->codes.n * sizeof *o->lo);
	o->hi = tsr_arena_alloc(k->A, (size_t)t->codes.n * sizeof *o->hi);
	bool ok = true;
	for (int i = 0; i < t->codes.n; i++) {
		const struct ast_range *rg = t->codes.v[i];
		if (rg->hi < rg->lo) {
			mdl_error(k->p, rg->loc, "bad code range (low first)");
			ok = false;
		} else if (rg->hi >= limit) {
			mdl_error(k->p, rg->loc, "%s %" PRId64 " outside %s '%s' (%d %s)", strcmp(what, "space") ? "element" : "code",
			          rg->hi, what, name, limit, strcmp(what, "space") ? "elements" : "entries");
			ok = false;
		} else {
			o->lo[o->ncodes] = (uint32_t)rg->lo;
			o->hi[o->ncodes++] = (uint32_t)rg->hi;
		}
	}
	return ok;
}

/* One term (possibly expanding into several). */
static bool conv_term(struct rctx *r, const struct ast_evterm *t, const struct mods *inherited, struct terms *out)
{
	struct ck *k = r->k;
	struct mdl_model *m = k->m;
	struct mods md;
	bool ok = add_mods(k, t, inherited, &md);
	struct mdl_evterm o = { .state = -1, .space = -1, .resource = -1, .fwd = -1, .loc = t->loc };
	o.nslots = md.slots ? md.nslots : 0;
	o.slots = md.slots;
	o.cond = md.cond;
	o.conditional = md.conditional;
	if (md.slots && md.nslots == 0)
		return ok;                   /* `in` slots that exclude each other: the term matches nothing */
	switch (t->kind) {
	case AEV_READ:
	case AEV_WRITE: {
		o.kind = t->kind == AEV_READ ? MDL_EV_READ : MDL_EV_WRITE;
		struct ck_sym *y = ck_lookup(k, NS_VALUE, t->name.s);
		if (!y || (y->kind != SYM_STATE && y->kind != SYM_SPACE && y->kind != SYM_FORWARD)) {
			mdl_error(k->p, t->name.loc, y ? "'%s' is not a state, regfile, space or forward" : "undefined name '%s'",
			          t->name.s);
			return false;
		}
		if (y->kind == SYM_FORWARD) {   /* (addition) X6: `read F`, `write F[codes]` */
			const struct mdl_fwd *fw = &m->fwds[y->index];
			o.fwd = y->index;
			if (fw->count == 0 && t->has_codes) {
				mdl_error(k->p, t->name.loc, "forward '%s' has no elements", fw->name);
				return false;
			}
			if (!conv_codes(k, t, fw->count, "forward", fw->name, &o))
				return false;
		} else if (y->kind == SYM_STATE) {
			const struct mdl_state *st = &m->states[y->index];
			o.state = y->index;
			if (st->count == 0 && t->has_codes) {
				mdl_error(k->p, t->name.loc, "state '%s' is not a regfile (it has no elements)", st->name);
				return false;
			}
			if (!conv_codes(k, t, st->count, "regfile", st->name, &o))
				return false;
		} else {
			const struct mdl_space *sp = &m->spaces[y->index];
			o.space = y->index;
			bool dir = false;
			for (int i = 0; i < sp->nent && !dir; i++)
				dir = sp->ent[i].write == (t->kind == AEV_WRITE);
			if (!dir) {
				mdl_error(k->p, t->name.loc, "space '%s' has no %s entries", sp->name,
				          t->kind == AEV_WRITE ? "write" : "read");
				return false;
			}
			if (!conv_codes(k, t, sp->size, "space", sp->name, &o))
				return false;
		}
		break;
	}
	case AEV_USE: {
		o.kind = MDL_EV_USE;
		struct ck_sym *y = ck_lookup(k, NS_RULE, t->name.s);
		if (!y || y->kind != SYM_RESOURCE) {
			mdl_error(k->p, t->name.loc, y ? "'%s' is not a resource" : "undefined resource '%s'", t->name.s);
			return false;
		}
		o.resource = y->index;
		break;
	}
	case AEV_OP: {
		o.kind = MDL_EV_OP;
		o.ops = tsr_arena_alloc(k->A, (size_t)(m->nops + 1) * sizeof *o.ops);
		for (int i = 0; i < m->nops; i++)
			if (m->ops[i].name == t->name.s)
				o.ops[o.nops++] = i;
		if (!o.nops) {
			mdl_error(k->p, t->name.loc, "undefined op '%s'", t->name.s);
			return false;
		}
		break;
	}
	case AEV_JUMP: o.kind = MDL_EV_JUMP; break;
	case AEV_HALT: o.kind = MDL_EV_HALT; break;
	case AEV_START: o.kind = MDL_EV_START; break;
	case AEV_NAMED: {
		if (!strcmp(t->name.s, "end")) {   /* the built-in term `end` (not a keyword: a field may be named end) */
			o.kind = MDL_EV_END;
			break;
		}
		struct ck_sym *y = ck_lookup(k, NS_RULE, t->name.s);
		if (!y || y->kind != SYM_EVENT) {
			if (y && y->kind == SYM_RESOURCE)
				mdl_error(k->p, t->name.loc, "'%s' is a resource, not an event (write 'use %s')", t->name.s, t->name.s);
			else
				mdl_error(k->p, t->name.loc, y ? "'%s' is not an event" : "undefined event '%s'", t->name.s);
			return false;
		}
		if (r->evstate[y->index] == 1) {
			mdl_error(k->p, t->name.loc, "event '%s' refers to itself", t->name.s);
			return false;
		}
		convert_event(r, y->index);
		const struct mdl_pattern *p = &m->events[y->index].pat;
		for (int i = 0; i < p->nterms; i++) {
			struct mdl_evterm e = p->terms[i];
			/* the reference's modifiers on top of the event's own */
			if (md.slots) {
				int *sl = tsr_arena_alloc(k->A, (size_t)md.nslots * sizeof *sl), n = 0;
				for (int j = 0; j < md.nslots; j++) {
					bool keep = !e.nslots;
					for (int l = 0; l < e.nslots; l++)
						keep |= e.slots[l] == md.slots[j];
					if (keep)
						sl[n++] = md.slots[j];
				}
				if (!n)
					continue;
				e.slots = sl;
				e.nslots = n;
			}
			e.cond = and_expr(k, e.cond, md.cond);
			e.conditional |= md.conditional;
			push_term(k, out, &e);
		}
		return ok;
	}
	case AEV_GROUP:
		return conv_terms(r, t->group, &md, out) && ok;
	}
	if (ok)
		push_term(k, out, &o);
	return ok;
}

static bool conv_terms(struct rctx *r, const struct ast_vec *in, const struct mods *m, struct terms *out)
{
	bool ok = true;
	for (int i = 0; in && i < in->n; i++)
		ok &= conv_term(r, in->v[i], m, out);
	return ok;
}

static bool conv_pattern(struct rctx *r, const struct ast_vec *in, struct mdl_pattern *out)
{
	struct terms v = { 0 };
	struct mods m = { 0 };
	bool ok = conv_terms(r, in, &m, &v);
	out->nterms = v.n;
	out->terms = v.t ? v.t : tsr_arena_alloc(r->k->A, sizeof *out->terms);
	return ok;
}

static void convert_event(struct rctx *r, int ev)
{
	if (r->evstate[ev])
		return;
	r->evstate[ev] = 1;
	struct ast_decl *d = r->evdecl[ev];
	conv_pattern(r, d->pats.v[0], &r->k->m->events[ev].pat);
	r->evstate[ev] = 2;
}

/* ---- rules ---- */
static bool has_element(const struct mdl_pattern *p, struct ck *k, const char *rule)
{
	for (int i = 0; i < p->nterms; i++)
		if (p->terms[i].kind != MDL_EV_READ && p->terms[i].kind != MDL_EV_WRITE) {
			mdl_error(k->p, p->terms[i].loc, "rule '%s': 'same' needs read and write events on both sides", rule);
			return false;
		}
	return true;
}

static void rule(struct rctx *r, struct ast_decl *d, struct mdl_rule *o)
{
	struct ck *k = r->k;
	o->name = d->name.s;
	o->loc = d->name.loc;
	o->ref = need_ref(k, d, "rule");
	o->npat = d->pats.n;
	o->pat = tsr_arena_alloc(k->A, (size_t)(d->pats.n + 1) * sizeof *o->pat);
	bool ok = true;
	for (int i = 0; i < d->pats.n; i++)
		ok &= conv_pattern(r, d->pats.v[i], &o->pat[i]);
	o->same = d->same;
	o->lo = (int)(d->rlo > MAX_DIST ? MAX_DIST + 1 : d->rlo);
	o->hi = (int)(d->rhi > MAX_DIST ? MAX_DIST + 1 : d->rhi);
	switch (d->rkind) {
	case ARK_LATENCY:
		o->kind = MDL_R_LATENCY;
		if (d->rlo < 1 || d->rlo > MAX_DIST)
			mdl_error(k->p, d->name.loc, "rule '%s': min must be from 1 to %d", o->name, MAX_DIST);
		else if (d->has_max && (d->rhi < d->rlo || d->rhi > MAX_DIST))
			mdl_error(k->p, d->name.loc, "rule '%s': max must be from min (%d) to %d", o->name, o->lo, MAX_DIST);
		if (ok && d->same)
			(void)(has_element(&o->pat[0], k, o->name) && has_element(&o->pat[1], k, o->name));
		break;
	case ARK_WINDOW:
		o->kind = MDL_R_WINDOW;
		if (!d->has_max && d->rlo > MAX_DIST)   /* open: `at LO..` */
			mdl_error(k->p, d->name.loc, "rule '%s': the open window LO.. needs 0 <= LO <= %d", o->name, MAX_DIST);
		else if (d->has_max && (d->rhi < d->rlo || d->rhi > MAX_DIST))
			mdl_error(k->p, d->name.loc, "rule '%s': the window must be LO..HI with 0 <= LO <= HI <= %d", o->name,
			          MAX_DIST);
		break;
	case ARK_ORDER:
		o->kind = MDL_R_ORDER;
		break;
	case ARK_BUNDLE:
		o->kind = MDL_R_BUNDLE;
		if (d->pats.n > MAX_BUNDLE)
			mdl_error(k->p, d->name.loc, "rule '%s': at most %d patterns joined by '&'", o->name, MAX_BUNDLE);
		break;
	}
}

/* Constant delay of the jump/halt statements in a statement list (the largest), or -1. */
static int stmt_delay(const struct mdl_stmt *const *s, int n, enum mdl_skind kind)
{
	int d = -1;
	for (int i = 0; i < n; i++) {
		const struct mdl_stmt *x = s[i];
		if (!x)
			continue;
		if (x->kind == kind && x->nargs > 0 && x->args[0] && x->args[0]->kind == MDL_E_INT && (int)x->args[0]->ival > d)
			d = (int)x->args[0]->ival;
		int a = stmt_delay((const struct mdl_stmt *const *)x->body, x->nbody, kind);
		int b = stmt_delay((const struct mdl_stmt *const *)x->elseb, x->nelse, kind);
		d = a > d ? a : d;
		d = b > d ? b : d;
	}
	return d;
}

/* A term `write R` / `read R` on the whole regfile R, without modifiers. */
static bool plain(const struct mdl_evterm *t, enum mdl_evkind kind, int state)
{
	return t->kind == kind && t->state == state && !t->ncodes && !t->nslots && !t->cond && !t->conditional;
}

static void regfile_latencies(struct ck *k)
{
	struct mdl_model *m = k->m;
	for (int s = 0; s < m->nstates; s++) {
		struct mdl_state *st = &m->states[s];
		st->latency_rule = -1;
		for (int i = 0; i < m->nrules; i++) {
			const struct mdl_rule *ru = &m->rules[i];
			if (ru->kind != MDL_R_LATENCY || !ru->same || ru->npat != 2 || ru->lo < 1 || ru->lo > MAX_DIST)
				continue;
			bool w = false, rd = false;
			for (int j = 0; j < ru->pat[0].nterms; j++)
				w |= plain(&ru->pat[0].terms[j], MDL_EV_WRITE, s);
			for (int j = 0; j < ru->pat[1].nterms; j++)
				rd |= plain(&ru->pat[1].terms[j], MDL_EV_READ, s);
			if (!w || !rd)
				continue;
			/* latency 0 and 1 both mean "readable by the next instruction" */
			int have = st->latency > 1 ? st->latency : 1;
			if (have != ru->lo)
				mdl_error(k->p, ru->loc, "rule '%s' gives '%s' a latency of %d, but %s '%s' is declared with latency %d",
				          ru->name, st->name, ru->lo, st->count ? "regfile" : "state", st->name, st->latency);
			else if (st->latency_rule < 0)
				st->latency_rule = i;
		}
	}
}

void ck_rules(struct ck *k)
{
	struct mdl_model *m = k->m;
	for (int i = 0; i < m->nops; i++) {
		struct mdl_op *o = &m->ops[i];
		o->jump_delay = stmt_delay((const struct mdl_stmt *const *)o->sem, o->nsem, MDL_S_JUMP);
		o->halt_delay = stmt_delay((const struct mdl_stmt *const *)o->sem, o->nsem, MDL_S_HALT);
	}
	int nev = 0, nrule = 0;
	for (int i = 0; i < k->p->decls.n; i++) {
		struct ast_decl *d = k->p->decls.v[i];
		nev += d->kind == AD_EVENT;
		nrule += d->kind == AD_RULE;
	}
	struct rctx r = { k, NULL, NULL };
	r.evdecl = tsr_arena_alloc(k->p->arena, (size_t)(nev + 1) * sizeof *r.evdecl);
	r.evstate = tsr_arena_alloc(k->p->arena, (size_t)(nev + 1) * sizeof *r.evstate);
	m->events = tsr_arena_alloc(k->A, (size_t)(nev + 1) * sizeof *m->events);
	m->rules = tsr_arena_alloc(k->A, (size_t)(nrule + 1) * sizeof *m->rules);
	struct ast_decl **rdecl = tsr_arena_alloc(k->p->arena, (size_t)(nrule + 1) * sizeof *rdecl);
	for (int i = 0; i < k->p->decls.n; i++) {
		struct ast_decl *d = k->p->decls.v[i];
		if (d->kind == AD_EVENT && !strcmp(d->name.s, "end")) {   /* a pattern's `end` is the built-in term */
			mdl_error(k->p, d->name.loc, "'end' is the built-in event of a basic block's last instruction: "
			          "name the event otherwise");
			continue;
		}
		if (d->kind == AD_EVENT && ck_declare(k, NS_RULE, SYM_EVENT, d->name.s, m->nevents, d->name.loc, d)) {
			r.evdecl[m->nevents] = d;
			m->events[m->nevents].name = d->name.s;
			m->events[m->nevents++].loc = d->name.loc;
		} else if (d->kind == AD_RULE && ck_declare(k, NS_RULE, SYM_RULE, d->name.s, m->nrules, d->name.loc, d)) {
			rdecl[m->nrules++] = d;
		}
	}
	for (int i = 0; i < m->nevents; i++)
		convert_event(&r, i);
	for (int i = 0; i < m->nrules; i++)
		rule(&r, rdecl[i], &m->rules[i]);
	regfile_latencies(k);
}
