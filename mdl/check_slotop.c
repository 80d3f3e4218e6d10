/* X7 (docs/mdl.md "One op for several slots, slot scopes"): `op NAME : S1 | S2 ... { ... }` declares one op per
 * listed slot, and `slot S with(ALIAS = FIELD, ...)` gives the names an op instance of S (its template, encode
 * conditions, defaults, uses and sem) and S's commit block see as fields, so one declaration of `add` serves two
 * adders whose sources are different fields.
 *
 * The instances are made before anything else is checked: each is a copy of the declaration with its slot
 * (ast_decl.ref) set, so the rest of the checker sees ordinary ops, in declaration order (an instance is tried in
 * its slot where the declaration stands); names resolve per instance through the scope's `aliases`
 * (ck_field_ref, check_expr.c).  A wide op `op NAME : S1 + S2 ...` is expanded alike, its instances for S2 ...
 * made span ops (ck_span_decl, check_wide.c).
 */
#include <string.h>
#include "check.h"

void ck_expand_ops(struct mdl_pctx *p)
{
	bool any = false;
	for (int i = 0; i < p->decls.n && !any; i++) {
		const struct ast_decl *d = p->decls.v[i];
		any = d->kind == AD_OP && d->oslots.n > 1;
	}
	if (!any)
		return;
	struct ast_vec out = { 0 };
	for (int i = 0; i < p->decls.n; i++) {
		struct ast_decl *d = p->decls.v[i];
		if (d->kind != AD_OP || d->oslots.n <= 1) {
			ast_push(p->arena, &out, d);
			continue;
		}
		struct ast_decl *home = NULL;   /* a wide op: its home op (the first instance) */
		for (int j = 0; j < d->oslots.n; j++) {
			const struct ast_name *sj = d->oslots.v[j];
			bool twice = false;
			for (int l = 0; l < j; l++)
				twice = twice || ((const struct ast_name *)d->oslots.v[l])->s == sj->s;
			if (twice) {
				mdl_error(p, sj->loc, "slot '%s' listed twice in op '%s'", sj->s, d->name.s);
				continue;
			}
			struct ast_decl *c = tsr_arena_alloc(p->arena, sizeof *c);
			*c = *d;
			c->ref = *sj;
			c->parsed = NULL;   /* each instance resolves its own template */
			if (d->wide && home)
				ck_span_decl(c, home);
			else if (d->wide)
				home = c;
			ast_push(p->arena, &out, c);
		}
	}
	p->decls = out;
}

const struct ast_vec *ck_slot_aliases(struct ck *k, int slot)
{
	if (slot < 0 || slot >= k->m->nslots || !k->slotdecl[slot])
		return NULL;
	const struct ast_decl *d = k->slotdecl[slot];
	return d->aliases.n ? &d->aliases : NULL;
}

bool ck_is_alias(struct ck *k, int slot, const char *name)
{
	const struct ast_vec *v = ck_slot_aliases(k, slot);
	for (int i = 0; v && i < v->n; i++)
		if (((const struct ast_alias *)v->v[i])->alias.s == name)
			return true;
	return false;
}

void ck_slot_alias_check(struct ck *k, int slot)
{
	const struct ast_vec *v = ck_slot_aliases(k, slot);
	const char *sn = k->m->slots[slot].name;
	for (int i = 0; v && i < v->n; i++) {
		const struct ast_alias *a = v->v[i];
		for (int j = 0; j < i; j++)
			if (((const struct ast_alias *)v->v[j])->alias.s == a->alias.s) {
				mdl_error(k->p, a->alias.loc, "alias '%s' declared twice in slot '%s'", a->alias.s, sn);
				break;
			}
		if (a->is_const)
			continue;
		struct ck_sym *y = ck_lookup(k, NS_VALUE, a->field.s);
		if (!y || y->kind != SYM_FIELD)
			mdl_error(k->p, a->field.loc, "alias '%s' of slot '%s': '%s' is not a field", a->alias.s, sn, a->field.s);
	}
}
