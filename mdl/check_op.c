/* Slots and operations (docs/mdl.md "Slots", "Operations"): op templates (which instantiate operands and bind
 * locals), encode conditions, defaults and semantics; each slot's commit block, its default op, and the check
 * that no two ops of a slot have exactly the same binding conditions and no others (they would decode the
 * same bits; sugar such as `mov` before `or` differs by an extra condition and is legitimate).
 */
#include <stdlib.h>
#include <string.h>
#include "check.h"

void ck_slots(struct ck *k)
{
	for (int i = 0; i < k->m->nslots; i++) {
		k->m->slots[i].default_op = -1;
		ck_slot_alias_check(k, i);
		ck_slot_prepass(k, i);
		k->slotinfo[i].opnd = tsr_arena_alloc(k->A, (size_t)(k->slotinfo[i].nloc + 1) * sizeof(int));
	}
}

static void defaults(struct ck *k, const struct ast_vec *in, int *n, struct mdl_default **out,
                     const struct ast_vec *aliases)
{
	struct ck_scope fs = { .slot = -1, .aliases = aliases };
	*n = in->n;
	*out = tsr_arena_alloc(k->A, (size_t)(in->n + 1) * sizeof **out);
	for (int j = 0; j < in->n; j++) {
		struct ast_default *df = in->v[j];
		struct ck_scope cs = { .what = "a default value", .slot = -1 };
		uint64_t v;
		enum mdl_type t;
		int f = ck_field_ref(k, &fs, df->field.s, df->field.loc, true);
		(*out)[j] = (struct mdl_default){ f, 0 };
		if (f < 0 || ck_const(k, &cs, df->e, &v, &t) || ck_field_width_fits(k, f, v, t, df->e->loc))
			continue;
		int w = k->m->fields[f].width;
		(*out)[j].val = v & (w >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1);
	}
}

static void op_body(struct ck *k, int i);

/* (addition) X7: the errors of an instance of `op N : S1 | S2` name the slot whose scope they arise in */
static void op(struct ck *k, int i)
{
	struct ast_decl *d = k->opdecl[i];
	char prefix[300];
	if (d->oslots.n > 1) {
		snprintf(prefix, sizeof prefix, "op '%s', instance for slot '%s': ", d->name.s, d->ref.s);
		k->p->err_prefix = prefix;
	}
	op_body(k, i);
	k->p->err_prefix = NULL;
}

static void op_body(struct ck *k, int i)
{
	struct mdl_model *m = k->m;
	struct ast_decl *d = k->opdecl[i];
	struct mdl_op *o = &m->ops[i];
	struct ck_sym *y = ck_lookup(k, NS_SLOT, d->ref.s);
	o->slot = y ? y->index : -1;
	if (!y)
		mdl_error(k->p, d->ref.loc, "undefined slot '%s'", d->ref.s);
	for (int j = 0; j < d->names.n; j++) {
		int a = ck_attr(k, ((struct ast_name *)d->names.v[j])->s, d->loc, true);
		if (a >= 0)
			o->attrs |= (uint64_t)1 << a;
	}
	struct ck_locals *L = tsr_arena_alloc(k->A, sizeof *L);
	struct ck_slotinfo *si = y ? &k->slotinfo[o->slot] : NULL;
	for (int j = 0; si && j < si->nloc; j++)
		ck_local_add(k, L, si->names[j], MDL_T_U32, LK_OUTPUT, si->locs[j]);
	const struct ast_vec *al = ck_slot_aliases(k, o->slot);
	struct ck_scope s = { .allow = CX_FIELDS | CX_STATE | CX_LOCALS | CX_ATTR, .what = "an op's semantics", .L = L,
	                      .slot = o->slot, .opname = o->name, .aliases = al };
	if (!d->has_syntax) {
		mdl_error(k->p, d->name.loc, "op '%s' has no syntax", o->name);
	} else {
		if (!d->parsed)
			d->parsed = mdl_template_parse(k->p, &d->syntax);
		mdl_template_resolve(k, &s, &d->syntax, d->parsed, true, &o->tmpl);
	}
	struct ck_scope cs = { .allow = CX_FIELDS, .what = "an encode condition", .slot = -1, .aliases = al };
	if ((o->ncond = ck_conds(k, &cs, &d->conds, &o->cond)) < 0)
		o->ncond = 0;
	defaults(k, &d->defaults, &o->ndef, &o->def, al);
	o->nuses = ck_uses(k, &cs, &d->uses, &o->uses);
	if (!d->has_sem)
		mdl_error(k->p, d->name.loc, "op '%s' has no semantics (sem)", o->name);
	o->nsem = d->sem.n;
	ck_stmts(k, &s, &d->sem, &o->sem);
	o->nlocals = L->n;
	o->local_names = L->names;
	for (int j = 0; si && j < si->nloc; j++) {
		if (!L->provided[j])
			continue;
		if (si->first_op[j] < 0) {
			si->first_op[j] = i;
			si->kinds[j] = L->kinds[j];
			si->opnd[j] = L->opnd[j];
		} else if (si->kinds[j] != L->kinds[j]) {
			int f = si->first_op[j];
			bool mine = L->kinds[j] == LK_OPND;
			mdl_error(k->p, d->name.loc, "'%s' is an operand in op '%s' but a value in op '%s' (same slot '%s')",
			          si->names[j], mine ? o->name : m->ops[f].name, mine ? m->ops[f].name : o->name,
			          m->slots[o->slot].name);
		}
	}
	if (si && L->n > si->maxlocals)
		si->maxlocals = L->n;
}

void ck_ops(struct ck *k)
{
	struct mdl_model *m = k->m;
	for (int i = 0; i < m->nops; i++)
		op(k, i);
	for (int i = 0; i < m->nops; i++)
		if (m->ops[i].slot >= 0)
			m->slots[m->ops[i].slot].nops++;
	for (int s = 0; s < m->nslots; s++) {
		m->slots[s].ops = tsr_arena_alloc(k->A, (size_t)(m->slots[s].nops + 1) * sizeof(int));
		m->slots[s].nops = 0;
	}
	for (int i = 0; i < m->nops; i++)
		if (m->ops[i].slot >= 0) {
			struct mdl_slot *s = &m->slots[m->ops[i].slot];
			s->ops[s->nops++] = i;
		}
	/* operands nothing uses are still checked (parameterised ones cannot be: their fields are unknown) */
	int n = m->nopnds;
	for (int i = 0; i < k->nodecl; i++) {
		struct ast_decl *d = k->odecl[i];
		struct ck_sym *y = ck_lookup(k, NS_OPERAND, d->name.s);
		if (d->params.n == 0 && y && y->decl == d && !ck_lookup(k, NS_INST, d->name.s)) {
			struct ast_vec none = { 0 };
			struct ck_scope s = { .slot = -1 };
			ck_opnd_instance(k, d->name.s, &none, &s, d->name.loc);
		}
	}
	m->nopnds = n;
}

static void commit(struct ck *k, int si_)
{
	struct mdl_model *m = k->m;
	struct mdl_slot *sl = &m->slots[si_];
	struct ck_slotinfo *si = &k->slotinfo[si_];
	struct ast_decl *d = k->slotdecl[si_];
	struct ck_locals *L = tsr_arena_alloc(k->A, sizeof *L);
	for (int j = 0; j < si->nloc; j++) {
		int l = ck_local_add(k, L, si->names[j], MDL_T_U32, si->kinds[j], si->locs[j]);
		if (l < 0)
			continue;
		L->opnd[l] = si->opnd[j];
		if (si->first_op[j] < 0)
			mdl_error(k->p, si->locs[j], "undefined name '%s'", si->names[j]);
	}
	int base = si->maxlocals > L->n ? si->maxlocals : L->n;
	const char *hidden = ck_intern(k, "");
	while (L->n < base) {
		ck_local_add(k, L, hidden, MDL_T_U32, LK_LET, d->name.loc);
		L->nvis--;
	}
	struct ck_scope s = { .allow = CX_FIELDS | CX_STATE | CX_LOCALS | CX_ATTR, .what = "a slot's commit", .L = L,
	                      .slot = si_, .aliases = ck_slot_aliases(k, si_), .commit = true };
	sl->ncommit = d->commit.n;
	ck_stmts(k, &s, &d->commit, &sl->commit);
	for (int j = 0; j < sl->nops; j++) {
		struct mdl_op *o = &m->ops[sl->ops[j]];
		const char **names = tsr_arena_alloc(k->A, (size_t)(L->n + 1) * sizeof *names);
		for (int l = 0; l < L->n; l++)
			names[l] = l < o->nlocals ? o->local_names[l] : l < base ? hidden : L->names[l];
		o->local_names = names;
		o->nlocals = L->n;
	}
}

void ck_commits(struct ck *k)
{
	struct mdl_model *m = k->m;
	for (int s = 0; s < m->nslots; s++) {
		struct mdl_slot *sl = &m->slots[s];
		struct ast_decl *d = k->slotdecl[s];
		struct ck_sym *y = ck_lookup(k, NS_SLOT, sl->name);
		if (!y || y->index != s)
			continue;   /* a redeclaration, already reported */
		commit(k, s);
		for (int j = 0; j < sl->nops && sl->default_op < 0; j++)
			if (m->ops[sl->ops[j]].name == d->ref.s)
				sl->default_op = sl->ops[j];
		if (sl->default_op < 0) {
			bool elsewhere = false;
			for (int i = 0; i < m->nops; i++)
				elsewhere = elsewhere || m->ops[i].name == d->ref.s;
			if (elsewhere)
				mdl_error(k->p, d->ref.loc, "op '%s' is not an op of slot '%s'", d->ref.s, sl->name);
			else
				mdl_error(k->p, d->ref.loc, "undefined op '%s'", d->ref.s);
		}
		bool used = false;
		for (int f = 0; f < m->nformats && !used; f++)
			for (int j = 0; j < m->formats[f].nslots; j++)
				used = used || m->formats[f].slots[j] == s;
		if (!used)
			mdl_error(k->p, sl->loc, "slot '%s' is not in any format", sl->name);
	}
}

/* ---- ops that decode the same bits ---- */
static bool only_bindings(const struct mdl_op *o)
{
	for (int i = 0; i < o->ncond; i++)
		if (!o->cond[i].binding)
			return false;
	return true;
}

static bool has_binding(const struct mdl_op *o, const struct mdl_cond *c)
{
	for (int i = 0; i < o->ncond; i++) {
		const struct mdl_cond *d = &o->cond[i];
		if (c->field2 >= 0 && d->field2 >= 0 &&
		    ((c->field == d->field && c->field2 == d->field2) || (c->field == d->field2 && c->field2 == d->field)))
			return true;
		if (c->field2 < 0 && d->field2 < 0 && c->field == d->field && c->val == d->val)
			return true;
	}
	return false;
}

static bool same_bindings(const struct mdl_op *a, const struct mdl_op *b)
{
	for (int i = 0; i < a->ncond; i++)
		if (!has_binding(b, &a->cond[i]))
			return false;
	for (int i = 0; i < b->ncond; i++)
		if (!has_binding(a, &b->cond[i]))
			return false;
	return true;
}

void ck_op_duplicates(struct ck *k)
{
	struct mdl_model *m = k->m;
	for (int s = 0; s < m->nslots; s++) {
		const struct mdl_slot *sl = &m->slots[s];
		for (int j = 0; j < sl->nops; j++) {
			const struct mdl_op *b = &m->ops[sl->ops[j]];
			if (b->is_span || !only_bindings(b) || k->opdecl[sl->ops[j]]->conds.n != b->ncond)
				continue;   /* a span op (X7 wide op) is never decoded from bits */
			for (int i = 0; i < j; i++) {
				const struct mdl_op *a = &m->ops[sl->ops[i]];
				if (!a->is_span && only_bindings(a) && same_bindings(a, b)) {
					mdl_error(k->p, b->loc, "ops '%s' and '%s' decode the same bits", a->name, b->name);
					break;
				}
			}
		}
	}
}
