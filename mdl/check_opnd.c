/* Operands (docs/mdl.md "Operands"): one instance (struct mdl_opnd) per distinct use OPERAND(FIELD, ...), with
 * the parameters replaced by the fields; instances are created as op templates are resolved, in that order.
 * (addition) X8: an argument may be an integer constant (`src(acc0_src1, 1)`); the conditions it makes constant
 * are folded and the alternatives they make false are dropped from that instance.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

bool ck_opnd_readable(struct ck *k, int opnd)
{
	const struct mdl_opnd *o = &k->m->opnds[opnd];
	for (int i = 0; i < o->nalt; i++)
		if (o->alt[i].read)
			return true;
	return false;
}

bool ck_opnd_writable(struct ck *k, int opnd)
{
	const struct mdl_opnd *o = &k->m->opnds[opnd];
	for (int i = 0; i < o->nalt; i++)
		if (o->alt[i].wspace >= 0 || o->alt[i].wstate >= 0)
			return true;
	return false;
}

/* `write PLACE` of an alternative: a regfile element, a scalar state or a space address. */
static int write_place(struct ck *k, struct ck_scope *s, const struct ast_expr *p, struct mdl_opnd_alt *alt)
{
	struct ck_sym *y = ck_lookup(k, NS_VALUE, p->name);
	if (!y) {
		mdl_error(k->p, p->loc, "undefined name '%s'", p->name);
		return -1;
	}
	bool indexed = p->kind == AE_INDEX;
	if (y->kind == SYM_STATE) {
		bool reg = k->m->states[y->index].count > 0;
		if (reg != indexed) {
			mdl_error(k->p, p->loc, reg ? "regfile '%s' needs an element index" : "state '%s' is not a regfile",
			          p->name);
			return -1;
		}
		alt->wstate = y->index;
		if (!reg)
			return 0;
	} else if (y->kind == SYM_SPACE && indexed) {
		const struct mdl_space *sp = &k->m->spaces[y->index];
		bool any = false;
		for (int j = 0; j < sp->nent; j++)
			any = any || sp->ent[j].write;
		if (!any) {
			mdl_error(k->p, p->loc, "space '%s' has no write entries", p->name);
			return -1;
		}
		alt->wspace = y->index;
	} else {
		mdl_error(k->p, p->loc, "%s '%s' cannot be written", y->kind == SYM_FIELD ? "field" :
		          y->kind == SYM_SPACE ? "space (without an address)" : "func", p->name);
		return -1;
	}
	struct mdl_expr *i = ck_int(k, s, p->a[0], y->kind == SYM_STATE ? "an element index" : "an address");
	if (!i)
		return -1;
	uint64_t v;
	int limit = y->kind == SYM_STATE ? k->m->states[y->index].count : k->m->spaces[y->index].size;
	if (mdl_ceval(i, NULL, &v) == 0 && v >= (uint64_t)limit) {
		mdl_error(k->p, p->a[0]->loc, "%s %llu outside %s '%s' (%d %s)", y->kind == SYM_STATE ? "element" : "address",
		          (unsigned long long)v, y->kind == SYM_STATE ? "regfile" : "space", p->name, limit,
		          y->kind == SYM_STATE ? "elements" : "entries");
		return -1;
	}
	if (y->kind == SYM_STATE)
		alt->windex = i;
	else
		alt->waddr = i;
	return 0;
}

static int alternative(struct ck *k, struct ck_scope *ps, struct ast_alt *a, struct mdl_opnd_alt *alt)
{
	int bad = 0;
	struct ck_scope cs = *ps, rs = *ps;
	cs.allow = CX_FIELDS;
	cs.what = "an operand condition";
	rs.allow = CX_FIELDS | CX_STATE | CX_ATTR;
	rs.what = "an operand";
	alt->loc = a->loc;
	alt->wspace = alt->wstate = -1;
	if (!a->tmpl_done) {
		a->parsed = mdl_template_parse(k->p, &a->tmpl);
		a->tmpl_done = true;
	}
	if (mdl_template_resolve(k, &cs, &a->tmpl, a->parsed, false, &alt->tmpl))
		bad = -1;
	if ((alt->ncond = ck_conds(k, &cs, &a->conds, &alt->cond)) < 0) {
		alt->ncond = 0;
		bad = -1;
	}
	if (a->read && !(alt->read = ck_value(k, &rs, a->read)))
		bad = -1;
	if (a->write && write_place(k, &rs, a->write, alt))
		bad = -1;
	else if (a->write && a->wmask) {   /* (addition, X11) `write PLACE mask e`: e over fields, the place vec4 */
		struct ck_scope ms = *ps;
		ms.allow = CX_FIELDS;
		ms.what = "a write mask";
		if (!(alt->wmask = ck_int(k, &ms, a->wmask, "a write mask")))
			bad = -1;
		else if (ck_vec4_place(k, NULL, alt->wmask, alt->wstate >= 0 && k->m->states[alt->wstate].vec4,
		                       alt->wstate < 0 ? "space" : k->m->states[alt->wstate].count ? "regfile" : "state",
		                       a->write->name, a->write->loc))
			bad = -1;
	}
	cs.what = "a resource use";
	alt->nuses = ck_uses(k, &cs, &a->uses, &alt->uses);
	if (bad)
		return bad;
	/* X8: conditions made constant by constant arguments are folded: a false one drops the alternative (1), a
	 * true one is left out */
	int kept = 0;
	for (int i = 0; i < alt->ncond; i++) {
		uint64_t v;
		if (mdl_ceval(alt->cond[i].e, NULL, &v) == 0) {
			if (!v)
				return 1;
			continue;
		}
		alt->cond[kept++] = alt->cond[i];
	}
	alt->ncond = kept;
	return 0;
}

int ck_opnd_instance(struct ck *k, const char *name, const struct ast_vec *args, struct ck_scope *s,
                     struct mdl_loc loc)
{
	struct ck_sym *y = ck_lookup(k, NS_OPERAND, name);
	struct ast_decl *d = y->decl;
	if (args->n != d->params.n) {
		mdl_error(k->p, loc, "operand '%s' takes %d field argument%s, got %d", name, d->params.n,
		          d->params.n == 1 ? "" : "s", args->n);
		return -1;
	}
	int n = args->n;
	int *fields = tsr_arena_alloc(k->A, (size_t)(n ? n : 1) * sizeof *fields);
	int64_t *consts = tsr_arena_alloc(k->A, (size_t)(n ? n : 1) * sizeof *consts);
	const char **pnames = tsr_arena_alloc(k->A, (size_t)(n ? n : 1) * sizeof *pnames);
	const char **anames = tsr_arena_alloc(k->A, (size_t)(n ? n : 1) * sizeof *anames);
	size_t len = strlen(name) + 3;
	for (int i = 0; i < n; i++) {
		const struct ast_name *f = args->v[i];
		pnames[i] = ((struct ast_name *)d->params.v[i])->s;
		const struct ast_alias *ca = ck_alias_const(s, f->s);
		if (ca) {   /* X7/X8: the slot's constant */
			fields[i] = -1;
			consts[i] = ca->val;
			char buf[24];
			snprintf(buf, sizeof buf, "%lld", (long long)ca->val);
			anames[i] = ck_intern(k, buf);
		} else if (f->s[0] == '-' || isdigit((unsigned char)f->s[0])) {
			/* X8: a constant argument (docs/mdl.md "Constant operand arguments") */
			char *e;
			errno = 0;
			const char *digits = f->s + (f->s[0] == '-');
			bool hex = digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X');
			long long v = strtoll(f->s, &e, hex ? 16 : 10);   /* decimal or 0x hex, as the docs say (no octal) */
			if (*e || errno || v < INT32_MIN || v > (long long)UINT32_MAX) {
				mdl_error(k->p, f->loc, "operand argument '%s' is neither a field nor a 32-bit integer", f->s);
				return -1;
			}
			fields[i] = -1;
			consts[i] = v;
			char buf[24];
			snprintf(buf, sizeof buf, "%lld", v);
			anames[i] = ck_intern(k, buf);
		} else {
			fields[i] = ck_field_ref(k, s, f->s, f->loc, false);
			if (fields[i] == -1)
				mdl_error(k->p, f->loc, "unknown field '%s' in template", f->s);
			if (fields[i] < 0)
				return -1;
			anames[i] = k->m->fields[fields[i]].name;
		}
		len += strlen(anames[i]) + 1;
	}
	char *inst = tsr_arena_alloc(k->A, len);
	size_t o = (size_t)snprintf(inst, len, "%s", name);
	for (int i = 0; i < n; i++)
		o += (size_t)snprintf(inst + o, len - o, "%s%s", i ? "," : "(", anames[i]);
	if (n)
		snprintf(inst + o, len - o, ")");
	const char *key = ck_intern(k, inst);
	struct ck_sym *have = ck_lookup(k, NS_INST, key);
	if (have)
		return have->index;

	struct mdl_opnd op = { ck_intern(k, name), key, d->items.n, NULL };
	op.alt = tsr_arena_alloc(k->A, (size_t)(d->items.n ? d->items.n : 1) * sizeof *op.alt);
	struct ck_scope ps = { 0 };
	ps.nparams = n;
	ps.pnames = pnames;
	ps.pfields = fields;
	ps.pconsts = consts;
	ps.slot = -1;
	int bad = 0;
	op.nalt = 0;
	for (int i = 0; i < d->items.n; i++) {
		int r = alternative(k, &ps, d->items.v[i], &op.alt[op.nalt]);
		if (r < 0)
			bad = -1;
		else if (r == 0)
			op.nalt++;
	}
	if (bad)
		return -1;
	if (d->items.n == 0) {
		mdl_error(k->p, d->name.loc, "operand '%s' has no alternatives", name);
		return -1;
	}
	if (op.nalt == 0) {
		mdl_error(k->p, loc, "operand '%s' has no alternative whose conditions can hold for %s", name, key);
		return -1;
	}
	k->m->opnds = ck_grow(k, k->m->opnds, k->m->nopnds, &k->nopnd_cap, sizeof *k->m->opnds);
	int idx = k->m->nopnds++;
	k->m->opnds[idx] = op;
	ck_declare(k, NS_INST, SYM_INST, key, idx, loc, d);
	return idx;
}
