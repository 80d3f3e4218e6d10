/* Statements and locals (docs/mdl.md "Semantics").
 *
 * Locals of a scope (an op with its slot's commit, or a format) are numbered in order of declaration. A `let`
 * is visible from its statement to the end of its block and may not reuse the name of a visible local.
 * A slot's commit block declares the slot's outputs: the names it uses that are neither its own lets nor
 * global names (fields, states, spaces, funcs, built-ins). They are the first locals of every op of the slot,
 * with the same numbers, so the commit block can be checked once for all ops: an op provides each one by
 * assigning it in its `sem` (an output, such as `result`) or by binding an operand to it in its syntax
 * (`{d=dst_add}`), where an assignment then writes through the operand.
 */
#include <string.h>
#include "check.h"

int ck_local_find(const struct ck_locals *L, const char *name)
{
	for (int i = L->nvis - 1; i >= 0; i--)
		if (L->names[L->vis[i]] == name)
			return L->vis[i];
	return -1;
}

int ck_local_add(struct ck *k, struct ck_locals *L, const char *name, enum mdl_type t, enum ck_lkind kind,
                 struct mdl_loc loc)
{
	int prev = ck_local_find(L, name);
	if (prev >= 0) {
		mdl_error(k->p, loc, "'%s' redeclared (first declared at %s:%d:%d)", name, L->locs[prev].file,
		          L->locs[prev].line, L->locs[prev].col);
		return -1;
	}
	if (L->n == L->cap) {
		int cap = L->cap ? 2 * L->cap : 8;
		L->names = ck_resize(k, L->names, L->n, cap, sizeof *L->names);
		L->types = ck_resize(k, L->types, L->n, cap, sizeof *L->types);
		L->kinds = ck_resize(k, L->kinds, L->n, cap, sizeof *L->kinds);
		L->opnd = ck_resize(k, L->opnd, L->n, cap, sizeof *L->opnd);
		L->locs = ck_resize(k, L->locs, L->n, cap, sizeof *L->locs);
		L->provided = ck_resize(k, L->provided, L->n, cap, sizeof *L->provided);
		L->cap = cap;
	}
	int i = L->n++;
	L->names[i] = name;
	L->types[i] = t;
	L->kinds[i] = kind;
	L->opnd[i] = -1;
	L->locs[i] = loc;
	L->provided[i] = false;
	L->vis = ck_grow(k, L->vis, L->nvis, &L->capvis, sizeof *L->vis);
	L->vis[L->nvis++] = i;
	return i;
}

bool ck_is_global_value(struct ck *k, const char *name)
{
	if (ck_lookup(k, NS_VALUE, name))
		return true;
	return ck_builtin0(name) >= 0;
}

static struct mdl_stmt *mks(struct ck *k, enum mdl_skind kind, struct mdl_loc loc)
{
	struct mdl_stmt *s = tsr_arena_alloc(k->A, sizeof *s);
	s->kind = kind;
	s->loc = loc;
	s->local = s->hook = -1;
	return s;
}

static struct mdl_stmt *stmt(struct ck *k, struct ck_scope *s, const struct ast_stmt *a);

static int block(struct ck *k, struct ck_scope *s, const struct ast_vec *in, struct mdl_stmt ***out)
{
	int nvis = s->L->nvis, bad = 0;
	*out = tsr_arena_alloc(k->A, (size_t)(in->n ? in->n : 1) * sizeof **out);
	for (int i = 0; i < in->n; i++)
		if (!((*out)[i] = stmt(k, s, in->v[i])))
			bad = -1;
	s->L->nvis = nvis;
	return bad;
}

int ck_stmts(struct ck *k, struct ck_scope *s, const struct ast_vec *in, struct mdl_stmt ***out)
{
	return block(k, s, in, out);
}

/* `name[index] = e`: a regfile element or a space address. */
static struct mdl_stmt *assign_indexed(struct ck *k, struct ck_scope *s, const struct ast_stmt *a, struct mdl_expr *v)
{
	struct ck_sym *y = ck_lookup(k, NS_VALUE, a->name.s);
	if (!y) {
		mdl_error(k->p, a->name.loc, "undefined name '%s'", a->name.s);
		return NULL;
	}
	bool reg = y->kind == SYM_STATE && k->m->states[y->index].count > 0;
	if (!reg && y->kind != SYM_SPACE) {
		mdl_error(k->p, a->name.loc, "'%s' is not a regfile or space", a->name.s);
		return NULL;
	}
	if (!(s->allow & CX_STATE)) {
		mdl_error(k->p, a->name.loc, "'%s' cannot be written in %s", a->name.s, s->what);
		return NULL;
	}
	if (!reg) {
		const struct mdl_space *sp = &k->m->spaces[y->index];
		bool any = false;
		for (int j = 0; j < sp->nent; j++)
			any = any || sp->ent[j].write;
		if (!any) {
			mdl_error(k->p, a->name.loc, "space '%s' has no write entries", a->name.s);
			return NULL;
		}
	}
	struct mdl_expr *i = ck_int(k, s, a->index, reg ? "an element index" : "an address");
	if (!i)
		return NULL;
	uint64_t c;
	int limit = reg ? k->m->states[y->index].count : k->m->spaces[y->index].size;
	if (mdl_ceval(i, NULL, &c) == 0 && c >= (uint64_t)limit) {
		mdl_error(k->p, a->index->loc, "%s %llu outside %s '%s' (%d %s)", reg ? "element" : "address",
		          (unsigned long long)c, reg ? "regfile" : "space", a->name.s, limit, reg ? "elements" : "entries");
		return NULL;
	}
	bool v4 = reg && k->m->states[y->index].vec4;
	struct mdl_expr *mask = NULL;
	if (a->mask && !(mask = ck_int(k, s, a->mask, "a write mask")))
		return NULL;
	if (ck_vec4_place(k, v, mask, v4, reg ? "regfile" : "space", a->name.s, a->loc))
		return NULL;
	struct mdl_stmt *st = mks(k, MDL_S_ASSIGN, a->loc);
	st->target = ck_mk(k, reg ? MDL_E_STATE : MDL_E_SPACE, v4 ? MDL_T_VEC4 : MDL_T_U32, a->name.loc, 1);
	st->target->index = y->index;
	st->target->a[0] = i;
	st->e = v;
	st->mask = mask;
	return st;
}

static struct mdl_stmt *assign(struct ck *k, struct ck_scope *s, const struct ast_stmt *a)
{
	bool lit = false;
	if (!a->index && s->L && (s->allow & CX_LOCALS) && ck_local_find(s->L, a->name.s) >= 0)
		s->L->provided[ck_local_find(s->L, a->name.s)] = true;   /* even if e is bad: no cascade */
	struct mdl_expr *v = ck_expr(k, s, a->e, &lit);
	if (!v)
		return NULL;
	bool is_fwd;   /* (addition) X6: a forward write (check_fwd.c) */
	struct mdl_stmt *fw = ck_fwd_write(k, s, a, v, &is_fwd);
	if (is_fwd)
		return fw;
	if (a->index)
		return assign_indexed(k, s, a, v);
	const char *n = a->name.s;
	int l = s->L && (s->allow & CX_LOCALS) ? ck_local_find(s->L, n) : -1;
	struct mdl_expr *mask = NULL;
	if (a->mask && !(mask = ck_int(k, s, a->mask, "a write mask")))
		return NULL;
	if (l >= 0) {
		struct ck_locals *L = s->L;
		struct mdl_stmt *st = mks(k, MDL_S_ASSIGN, a->loc);
		st->e = v;
		if (L->kinds[l] == LK_OPND) {
			if (L->opnd[l] >= 0 && !ck_opnd_writable(k, L->opnd[l])) {
				mdl_error(k->p, a->name.loc, "operand '%s' bound to '%s' cannot be written",
				          k->m->opnds[L->opnd[l]].inst_name, n);
				return NULL;
			}
			/* (X11) a vec4 or masked write: every alternative that writes state writes a vec4 */
			bool v4 = L->opnd[l] >= 0;
			for (int j = 0; v4 && j < k->m->opnds[L->opnd[l]].nalt; j++) {
				const struct mdl_opnd_alt *al = &k->m->opnds[L->opnd[l]].alt[j];
				v4 = al->wspace < 0 && (al->wstate < 0 || k->m->states[al->wstate].vec4);
			}
			if (ck_vec4_place(k, v, mask, v4 || (!mask && v->type != MDL_T_VEC4), "operand",
			                  L->opnd[l] >= 0 ? k->m->opnds[L->opnd[l]].inst_name : n, a->loc))
				return NULL;
			st->kind = MDL_S_WRITE;
			st->local = l;
			st->mask = mask;
			L->provided[l] = true;
			return st;
		}
		if (mask) {
			mdl_error(k->p, mask->loc, "'mask' writes components of a vec4 state or operand, not of the local '%s'", n);
			return NULL;
		}
		if (L->kinds[l] == LK_LET) {
			enum mdl_type t = L->types[l];
			if (lit && v->type != t && (v->type == MDL_T_U32 || v->type == MDL_T_I32)) {
				uint64_t c;
				if (mdl_ceval(v, NULL, &c) == 0 && t == MDL_T_F32) {
					float f = v->type == MDL_T_I32 ? (float)(int64_t)c : (float)(uint32_t)c;
					memcpy(&c, &f, sizeof f);
					v = ck_mk(k, MDL_E_FLOAT, MDL_T_F32, v->loc, 0);
					v->ival = (uint32_t)c;
				} else if (mdl_ceval(v, NULL, &c) == 0 && (t == MDL_T_U32 || t == MDL_T_I32)) {
					v->type = t;
				}
				st->e = v;
			}
			bool ok = v->type == t || ((t == MDL_T_U32 || t == MDL_T_I32) &&
			                           (v->type == MDL_T_U32 || v->type == MDL_T_I32));
			if (!ok) {
				mdl_error(k->p, a->loc, "cannot assign %s to '%s' (%s)", ck_type_name(v->type), n, ck_type_name(t));
				return NULL;
			}
		}
		L->provided[l] = true;
		st->target = ck_mk(k, MDL_E_LOCAL, L->types[l], a->name.loc, 0);
		st->target->index = l;
		return st;
	}
	struct ck_sym *y = ck_lookup(k, NS_VALUE, n);
	if (!y) {
		mdl_error(k->p, a->name.loc, "undefined name '%s'", n);
		return NULL;
	}
	if (y->kind != SYM_STATE) {
		mdl_error(k->p, a->name.loc, "cannot assign to %s '%s'",
		          y->kind == SYM_FIELD ? "field" : y->kind == SYM_SPACE ? "space" : "func", n);
		return NULL;
	}
	if (k->m->states[y->index].count > 0) {
		mdl_error(k->p, a->name.loc, "regfile '%s' needs an element index", n);
		return NULL;
	}
	if (!(s->allow & CX_STATE)) {
		mdl_error(k->p, a->name.loc, "state '%s' cannot be written in %s", n, s->what);
		return NULL;
	}
	bool v4 = k->m->states[y->index].vec4;
	if (ck_vec4_place(k, v, mask, v4, "state", n, a->loc))
		return NULL;
	struct mdl_stmt *st = mks(k, MDL_S_ASSIGN, a->loc);
	st->target = ck_mk(k, MDL_E_STATE, v4 ? MDL_T_VEC4 : MDL_T_U32, a->name.loc, 0);
	st->target->index = y->index;
	st->e = v;
	st->mask = mask;
	return st;
}

static struct mdl_expr *const_arg(struct ck *k, struct ck_scope *s, const struct ast_expr *a, const char *what)
{
	uint64_t v;
	enum mdl_type t;
	if (ck_const(k, s, a, &v, &t))
		return NULL;
	if ((t != MDL_T_U32 && t != MDL_T_I32) || v > 1000) {
		mdl_error(k->p, a->loc, "%s must be an integer from 0 to 1000", what);
		return NULL;
	}
	struct mdl_expr *e = ck_mk(k, MDL_E_INT, MDL_T_U32, a->loc, 0);
	e->ival = v;
	return e;
}

static struct mdl_stmt *call(struct ck *k, struct ck_scope *s, const struct ast_stmt *a)
{
	const char *n = a->name.s;
	bool jump = !strcmp(n, "jump");
	if (!jump && strcmp(n, "halt")) {
		if (ck_lookup(k, NS_VALUE, n) || ck_reserved_name(n) || ck_lookup(k, NS_TABLE, n))
			mdl_error(k->p, a->loc, "'%s(...)' has no effect as a statement", n);
		else
			mdl_error(k->p, a->loc, "unknown function '%s'", n);
		return NULL;
	}
	if (a->args.n != (jump ? 2 : 1)) {
		mdl_error(k->p, a->loc, "'%s' takes %d argument%s, got %d", n, jump ? 2 : 1, jump ? "s" : "", a->args.n);
		return NULL;
	}
	struct mdl_stmt *st = mks(k, jump ? MDL_S_JUMP : MDL_S_HALT, a->loc);
	st->args = tsr_arena_alloc(k->A, sizeof *st->args);
	st->nargs = 1;
	if (jump) {
		bool lit = false;
		st->e = ck_expr(k, s, a->args.v[0], &lit);
		if (st->e && st->e->type != MDL_T_U32 && st->e->type != MDL_T_I32) {
			mdl_error(k->p, a->loc, "jump target must be an integer, not %s", ck_type_name(st->e->type));
			st->e = NULL;
		}
		if (!k->jump_used) {
			k->jump_used = true;
			k->jump_loc = a->loc;
		}
	}
	st->args[0] = const_arg(k, s, a->args.v[jump ? 1 : 0], "delay");
	return (jump && !st->e) || !st->args[0] ? NULL : st;
}

static struct mdl_stmt *stmt(struct ck *k, struct ck_scope *s, const struct ast_stmt *a)
{
	struct mdl_stmt *st;
	switch (a->kind) {
	case AS_LET: {
		bool lit = false;
		struct mdl_expr *v = ck_expr(k, s, a->e, &lit);
		if (!v)
			return NULL;
		int l = ck_local_add(k, s->L, a->name.s, v->type, LK_LET, a->name.loc);
		if (l < 0)
			return NULL;
		s->L->provided[l] = true;
		st = mks(k, MDL_S_LET, a->loc);
		st->local = l;
		st->e = v;
		return st;
	}
	case AS_ASSIGN:
		return assign(k, s, a);
	case AS_IF: {
		st = mks(k, MDL_S_IF, a->loc);
		st->e = ck_bool(k, s, a->e);
		struct ast_vec one = { (void **)&a->then, 1, 1 };
		int r = block(k, s, &one, &st->body);
		st->nbody = 1;
		if (a->els) {
			struct ast_vec two = { (void **)&a->els, 1, 1 };
			r |= block(k, s, &two, &st->elseb);
			st->nelse = 1;
		}
		return st->e && !r ? st : NULL;
	}
	case AS_HOOK: {
		st = mks(k, MDL_S_HOOK, a->loc);
		st->hook = ck_hook(k, a->name.s, a->args.n, HOOK_STMT, a->name.loc);
		st->nargs = a->args.n;
		st->args = tsr_arena_alloc(k->A, (size_t)(a->args.n ? a->args.n : 1) * sizeof *st->args);
		bool ok = st->hook >= 0;
		for (int i = 0; i < a->args.n; i++)
			ok = (st->args[i] = ck_value(k, s, a->args.v[i])) && ok;
		return ok ? st : NULL;
	}
	case AS_CALL:
		return call(k, s, a);
	case AS_ABORT: {   /* (addition) `abort "message";` */
		st = mks(k, MDL_S_ABORT, a->loc);
		char *msg = tsr_arena_alloc(k->A, (size_t)a->msg.len + 1);
		memcpy(msg, a->msg.s, (size_t)a->msg.len);
		msg[a->msg.len] = 0;
		st->msg = msg;
		return st;
	}
	case AS_BLOCK:
		st = mks(k, MDL_S_BLOCK, a->loc);
		st->nbody = a->body.n;
		return block(k, s, &a->body, &st->body) ? NULL : st;
	}
	return NULL;
}

/* ---- the slot prepass: outputs of a slot = free names of its commit block ---- */
struct fv { struct ck *k; struct ck_slotinfo *si; const char **lets; int nlets, cap; };

static bool let_visible(struct fv *f, const char *n)
{
	for (int i = 0; i < f->nlets; i++)
		if (f->lets[i] == n)
			return true;
	return false;
}

static void free_name(struct fv *f, const char *n, struct mdl_loc loc)
{
	if (let_visible(f, n) || ck_is_global_value(f->k, n))
		return;
	struct ck_slotinfo *si = f->si;
	for (int i = 0; i < si->nloc; i++)
		if (si->names[i] == n)
			return;
	si->names = ck_resize(f->k, si->names, si->nloc, si->nloc + 1, sizeof *si->names);
	si->locs = ck_resize(f->k, si->locs, si->nloc, si->nloc + 1, sizeof *si->locs);
	si->names[si->nloc] = n;
	si->locs[si->nloc] = loc;
	si->nloc++;
}

static void fv_expr(struct fv *f, const struct ast_expr *a)
{
	if (!a)
		return;
	if (a->kind == AE_NAME)
		free_name(f, a->name, a->loc);
	if (a->kind == AE_CALL && !strcmp(a->name, "attr"))
		return;
	for (int i = 0; i < 3; i++)
		fv_expr(f, a->a[i]);
	for (int i = 0; i < a->args.n; i++)
		fv_expr(f, a->args.v[i]);
}

static void fv_stmt(struct fv *f, const struct ast_stmt *a)
{
	int n = f->nlets;
	if (!a)
		return;
	switch (a->kind) {
	case AS_LET:
		fv_expr(f, a->e);
		f->lets = ck_grow(f->k, f->lets, f->nlets, &f->cap, sizeof *f->lets);
		f->lets[f->nlets++] = a->name.s;
		return;
	case AS_ASSIGN:
		if (!a->index)
			free_name(f, a->name.s, a->name.loc);
		fv_expr(f, a->index);
		fv_expr(f, a->e);
		fv_expr(f, a->mask);
		return;
	case AS_IF:
		fv_expr(f, a->e);
		fv_stmt(f, a->then);
		f->nlets = n;
		fv_stmt(f, a->els);
		f->nlets = n;
		return;
	case AS_HOOK: case AS_CALL:
		for (int i = 0; i < a->args.n; i++)
			fv_expr(f, a->args.v[i]);
		return;
	case AS_ABORT:
		return;
	case AS_BLOCK:
		for (int i = 0; i < a->body.n; i++)
			fv_stmt(f, a->body.v[i]);
		f->nlets = n;
		return;
	}
}

void ck_slot_prepass(struct ck *k, int slot)
{
	struct ck_slotinfo *si = &k->slotinfo[slot];
	struct ast_decl *d = k->slotdecl[slot];
	struct fv f = { k, si, NULL, 0, 0 };
	for (int i = 0; i < d->commit.n; i++)
		fv_stmt(&f, d->commit.v[i]);
	int kept = 0;   /* (addition) X7: the slot's aliases are fields, not outputs */
	for (int i = 0; i < si->nloc; i++)
		if (!ck_is_alias(k, slot, si->names[i])) {
			si->names[kept] = si->names[i];
			si->locs[kept++] = si->locs[i];
		}
	si->nloc = kept;
	si->kinds = tsr_arena_alloc(k->A, (size_t)(si->nloc + 1) * sizeof *si->kinds);
	si->first_op = tsr_arena_alloc(k->A, (size_t)(si->nloc + 1) * sizeof *si->first_op);
	si->provided = tsr_arena_alloc(k->A, (size_t)(si->nloc + 1) * sizeof *si->provided);
	for (int i = 0; i < si->nloc; i++) {
		si->kinds[i] = LK_OUTPUT;
		si->first_op[i] = -1;
	}
}
