/* (addition) X12: the shapes of the attributes the packer relies on (docs/mdl.md X12).
 *   move         one source, and semantics that only copy it: assignments whose values read that source, fields
 *                and constants (a conversion or a field-selected negation may wrap it), nothing else.
 *   commutative  at least two sources; the last two are of one operand (same name, same value type) and the
 *                semantics read both, so that the packer may exchange them in the text.
 * A source is an operand hole bound to a name (`{x=src(...)}`) whose operand reads a value (an alternative with
 * `read`); destinations (`write`) and unnamed holes are not sources.  Ops made from one `op N : S1 | S2`
 * declaration share its location and are diagnosed once; span ops of a wide op (X7) are skipped.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "eval.h"

/* What an expression reads: each local (seen[nlocals]) and whether it reads anything but locals, fields and
 * constants (a state, a space, a forward, a table is fine: a function of fields). */
struct reads { bool *seen; int nlocals; bool other; };

static void expr_reads(const struct mdl_expr *e, struct reads *r)
{
	if (!e)
		return;
	switch (e->kind) {
	case MDL_E_LOCAL:
		if (e->index >= 0 && e->index < r->nlocals)
			r->seen[e->index] = true;
		break;
	case MDL_E_STATE: case MDL_E_SPACE: case MDL_E_FWD: case MDL_E_VALUE: case MDL_E_ATTR:
		r->other = true;
		break;
	default:
		break;
	}
	for (int i = 0; e->a && i < mdl_expr_arity(e); i++)
		expr_reads(e->a[i], r);
}

/* Statements of a move: only assignments (through blocks); their values read into r.  False on anything else
 * (a let, an if, a hook, a jump, a halt, an abort). */
static bool copy_stmts(struct mdl_stmt *const *s, int n, struct reads *r)
{
	for (int i = 0; i < n; i++) {
		if (!s[i])
			return false;
		if (s[i]->kind == MDL_S_BLOCK) {
			if (!copy_stmts(s[i]->body, s[i]->nbody, r))
				return false;
			continue;
		}
		if (s[i]->kind != MDL_S_ASSIGN && s[i]->kind != MDL_S_WRITE)
			return false;
		expr_reads(s[i]->e, r);
	}
	return true;
}

/* All locals any statement reads (conditions, values, indices), into r. */
static void stmt_reads(struct mdl_stmt *const *s, int n, struct reads *r)
{
	for (int i = 0; i < n; i++) {
		if (!s[i])
			continue;
		expr_reads(s[i]->e, r);
		expr_reads(s[i]->mask, r);
		if (s[i]->target && s[i]->target->kind != MDL_E_LOCAL && s[i]->target->a)
			for (int a = 0; a < mdl_expr_arity(s[i]->target); a++)
				expr_reads(s[i]->target->a[a], r);
		for (int a = 0; a < s[i]->nargs; a++)
			expr_reads(s[i]->args[a], r);
		stmt_reads(s[i]->body, s[i]->nbody, r);
		stmt_reads(s[i]->elseb, s[i]->nelse, r);
	}
}

/* The type of the value operand o reads (its first alternative with `read`). */
static enum mdl_type read_type(const struct mdl_opnd *o)
{
	for (int i = 0; i < o->nalt; i++)
		if (o->alt[i].read)
			return o->alt[i].read->type;
	return 0;
}

/* Where the attribute `name` is written on op i's declaration (the op's location if not found). */
static struct mdl_loc attr_loc(struct ck *k, int i, const char *name)
{
	const struct ast_decl *d = k->opdecl[i];
	for (int j = 0; d && j < d->names.n; j++) {
		const struct ast_name *a = d->names.v[j];
		if (!strcmp(a->s, name))
			return a->loc;
	}
	return k->m->ops[i].loc;
}

static bool same_loc(struct mdl_loc a, struct mdl_loc b)
{
	return a.line == b.line && a.col == b.col && (a.file == b.file || (a.file && b.file && !strcmp(a.file, b.file)));
}

#define MAXSRC 16

static void check_op(struct ck *k, int i, int move, int comm)
{
	struct mdl_model *m = k->m;
	const struct mdl_op *o = &m->ops[i];
	bool is_move = move >= 0 && (o->attrs >> move & 1), is_comm = comm >= 0 && (o->attrs >> comm & 1);
	/* the sources, in template order */
	int src[MAXSRC], nsrc = 0;
	for (int p = 0; p < o->tmpl.nparts; p++) {
		const struct mdl_tpart *t = &o->tmpl.parts[p];
		if (t->kind == MDL_TP_OPND && t->local >= 0 && t->opnd >= 0 && ck_opnd_readable(k, t->opnd) &&
		    !ck_opnd_writable(k, t->opnd) && nsrc < MAXSRC)
			src[nsrc++] = p;
	}
	bool *seen = calloc((size_t)o->nlocals + 1, sizeof *seen);
	if (!seen)
		return;
	struct reads r = { seen, o->nlocals, false };
	if (is_move) {
		struct mdl_loc loc = attr_loc(k, i, "move");
		if (nsrc != 1) {
			mdl_error(k->p, loc, "op '%s' is marked 'move' but has %d sources (a move copies one source: "
				  "docs/mdl.md X12)", o->name, nsrc);
		} else {
			int x = o->tmpl.parts[src[0]].local;
			bool only = copy_stmts(o->sem, o->nsem, &r);
			bool others = r.other;
			for (int l = 0; l < o->nlocals; l++)
				others |= seen[l] && l != x;
			if (!only || others || !seen[x])
				mdl_error(k->p, loc, "op '%s' is marked 'move' but its semantics is not a copy of its source "
					  "'%s' (assignments of it, fields and constants only: docs/mdl.md X12)", o->name,
					  o->local_names[x]);
		}
	}
	if (is_comm) {
		struct mdl_loc loc = attr_loc(k, i, "commutative");
		if (nsrc < 2) {
			mdl_error(k->p, loc, "op '%s' is marked 'commutative' but has %d source%s (it needs two "
				  "interchangeable sources: docs/mdl.md X12)", o->name, nsrc, nsrc == 1 ? "" : "s");
			free(seen);
			return;
		}
		const struct mdl_tpart *a = &o->tmpl.parts[src[nsrc - 2]], *b = &o->tmpl.parts[src[nsrc - 1]];
		const struct mdl_opnd *oa = &m->opnds[a->opnd], *ob = &m->opnds[b->opnd];
		if (strcmp(oa->name, ob->name) || read_type(oa) != read_type(ob)) {
			mdl_error(k->p, loc, "op '%s' is marked 'commutative' but its last two sources are not "
				  "interchangeable: '%s' is %s (%s), '%s' is %s (%s) (docs/mdl.md X12)", o->name,
				  o->local_names[a->local], oa->name, ck_type_name(read_type(oa)), o->local_names[b->local],
				  ob->name, ck_type_name(read_type(ob)));
			free(seen);
			return;
		}
		memset(seen, 0, ((size_t)o->nlocals + 1) * sizeof *seen);
		stmt_reads(o->sem, o->nsem, &r);
		if (!seen[a->local] || !seen[b->local])
			mdl_error(k->p, loc, "op '%s' is marked 'commutative' but its semantics does not read its source "
				  "'%s' (docs/mdl.md X12)", o->name, o->local_names[seen[a->local] ? b->local : a->local]);
	}
	free(seen);
}

void ck_op_shapes(struct ck *k)
{
	struct mdl_model *m = k->m;
	int move = -1, comm = -1;
	for (int a = 0; a < m->nattrs; a++) {
		if (!strcmp(m->attrs[a], "move"))
			move = a;
		else if (!strcmp(m->attrs[a], "commutative"))
			comm = a;
	}
	if (move < 0 && comm < 0)
		return;
	for (int i = 0; i < m->nops; i++) {
		if (m->ops[i].is_span)
			continue;
		bool again = false;
		for (int j = 0; j < i && !again; j++)
			again = !m->ops[j].is_span && same_loc(m->ops[j].loc, m->ops[i].loc);
		if (!again)
			check_op(k, i, move, comm);
	}
}
