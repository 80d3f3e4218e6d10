/* X7 wide ops (docs/mdl.md "Wide ops"): `op NAME : S1 + S2 ... { ... }` is one op that takes every listed slot.
 * ck_expand_ops (check_slotop.c) makes one instance per slot as for `|`; the first (home, S1) is the op itself,
 * the others are made *span* ops here: ops of their slot with the wide op's name and attributes and nothing else
 * (no template text, conditions, defaults, uses or sem), which stand in the decoded instruction for "this slot is
 * taken by the wide op in its home slot".  So every slot of a decoded bundle holds a real op index, and the
 * generated code and the runtime treat a span op where they must (emit_codec.c: never decoded from the slot's
 * bits, set after the home slot; the assembler: put in the taken slots instead of their defaults; the simulator,
 * the evaluator, the validator and the packer: nothing runs, the op's events are the home op's).
 */
#include <string.h>
#include "check.h"

void ck_span_decl(struct ast_decl *c, struct ast_decl *home)
{
	c->span_home = home;
	c->syntax = (struct ast_str){ .s = "", .len = 0, .cols = NULL, .loc = home->syntax.loc };
	c->has_syntax = true;
	c->conds = (struct ast_vec){ 0 };
	c->defaults = (struct ast_vec){ 0 };
	c->uses = (struct ast_vec){ 0 };
	c->sem = (struct ast_vec){ 0 };
	c->has_sem = true;
}

/* Is slot s one of format f's? */
static bool in_format(const struct mdl_format *f, int s)
{
	for (int i = 0; i < f->nslots; i++)
		if (f->slots[i] == s)
			return true;
	return false;
}

void ck_wide(struct ck *k)
{
	struct mdl_model *m = k->m;
	int nspan = 0;
	for (int i = 0; i < m->nops; i++) {
		const struct ast_decl *h = k->opdecl[i]->span_home;
		m->ops[i].span_of = -1;
		if (!h)
			continue;
		nspan++;
		for (int j = 0; j < i; j++)
			if (k->opdecl[j] == h) {
				m->ops[i].is_span = true;
				m->ops[i].span_of = j;
				m->ops[j].nspan++;
			}
	}
	if (!nspan)
		return;
	for (int i = 0; i < m->nops; i++) {
		struct mdl_op *w = &m->ops[i];
		if (!w->nspan)
			continue;
		w->span = tsr_arena_alloc(k->A, (size_t)w->nspan * sizeof *w->span);
		w->nspan = 0;
		for (int j = i + 1; j < m->nops; j++)
			if (m->ops[j].is_span && m->ops[j].span_of == i)
				w->span[w->nspan++] = j;
		bool one = false;
		for (int f = 0; f < m->nformats && !one; f++) {
			one = w->slot >= 0 && in_format(&m->formats[f], w->slot);
			for (int j = 0; j < w->nspan && one; j++)
				one = m->ops[w->span[j]].slot >= 0 && in_format(&m->formats[f], m->ops[w->span[j]].slot);
		}
		const struct ast_decl *d = k->opdecl[i];
		if (!one && w->slot >= 0)
			mdl_error(k->p, d->name.loc, "wide op '%s': no format has all of its slots", w->name);
		for (int j = 0; j < w->nspan; j++)   /* the assembler's tables keep a wide op's slots as a 64-bit mask */
			if (m->ops[w->span[j]].slot >= 64) {
				mdl_error(k->p, d->name.loc, "wide op '%s': its slots must be among the first 64 slots", w->name);
				break;
			}
	}
	for (int s = 0; s < m->nslots; s++) {
		int o = m->slots[s].default_op;
		if (o >= 0 && (m->ops[o].is_span || m->ops[o].nspan))
			mdl_error(k->p, k->slotdecl[s]->ref.loc, "the default op of slot '%s' cannot be the wide op '%s'",
			          m->slots[s].name, m->ops[o].name);
	}
}
