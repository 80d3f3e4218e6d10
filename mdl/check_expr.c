/* Expressions: name resolution and typing (calls: check_call.c) (docs/mdl.md "Semantics", "Types").
 *
 * Types: u32, i32, f32, f16, bool. Integer literals adapt to the type of the other operand (to f32 by value:
 * `x + 1` with x an f32 is `x + 1.0`); float literals never become integers. Arithmetic and comparisons need
 * both operands of one kind: u32/i32 mix (to i32, as runtime/sem.h's signed domain), f32 and integers do
 * not (an error: convert with f32(), u32(), itof() or ftoi()). Casts u32() i32() f32() f16() reinterpret
 * the bits, bool() tests for non-zero; float(x) is itof(x). Built-ins check their arity and argument kinds.
 */
#include <math.h>
#include <string.h>
#include "check.h"

const char *ck_type_name(enum mdl_type t)
{
	static const char *const n[] = { "void", "u32", "i32", "f32", "f16", "bool", "vec4" };
	return (unsigned)t < 7 ? n[t] : "?";
}

static const char *op_name(int op)
{
	static char b[2];
	switch (op) {
	case MDL_OP_SHL: return "<<";
	case MDL_OP_SHR: return ">>";
	case MDL_OP_EQ: return "==";
	case MDL_OP_NE: return "!=";
	case MDL_OP_LT: return "<";
	case MDL_OP_LE: return "<=";
	case MDL_OP_GT: return ">";
	case MDL_OP_GE: return ">=";
	case MDL_OP_LAND: return "&&";
	case MDL_OP_LOR: return "||";
	default: b[0] = (char)op; b[1] = 0; return b;
	}
}

bool ck_is_int(enum mdl_type t) { return t == MDL_T_U32 || t == MDL_T_I32; }

struct mdl_expr *ck_mk(struct ck *k, enum mdl_ekind kind, enum mdl_type t, struct mdl_loc loc, int nargs)
{
	struct mdl_expr *e = tsr_arena_alloc(k->A, sizeof *e);
	e->kind = kind;
	e->type = t;
	e->loc = loc;
	e->nargs = nargs;
	e->a = tsr_arena_alloc(k->A, (size_t)(nargs > 0 ? nargs : 1) * sizeof *e->a);
	k->budget--;
	return e;
}

static struct mdl_expr *lit_int(struct ck *k, uint64_t v, enum mdl_type t, struct mdl_loc loc)
{
	struct mdl_expr *e = ck_mk(k, MDL_E_INT, t, loc, 0);
	e->ival = mdl_cnorm(v, t);
	return e;
}

static struct mdl_expr *lit_float(struct ck *k, float f, struct mdl_loc loc)
{
	struct mdl_expr *e = ck_mk(k, MDL_E_FLOAT, MDL_T_F32, loc, 0);
	uint32_t b;
	memcpy(&b, &f, sizeof b);
	e->ival = b;
	return e;
}

/* A literal (constant built from literals only) takes type t where it can. */
struct mdl_expr *ck_adapt(struct ck *k, struct mdl_expr *e, bool lit, enum mdl_type t)
{
	uint64_t v;
	if (t == MDL_T_VEC4)
		t = MDL_T_F32;   /* a literal beside a vec4 is a float (splatted) */
	if (!lit || e->type == t || mdl_ceval(e, NULL, &v))
		return e;
	if (t == MDL_T_F32 && ck_is_int(e->type))
		return lit_float(k, e->type == MDL_T_I32 ? (float)(int64_t)v : (float)(uint32_t)v, e->loc);
	if (ck_is_int(t) && ck_is_int(e->type))
		return lit_int(k, v, t, e->loc);
	if (t == MDL_T_BOOL && ck_is_int(e->type) && v <= 1)
		return lit_int(k, v, t, e->loc);
	return e;
}

static struct mdl_expr *copy_expr(struct ck *k, const struct mdl_expr *e)
{
	if (!e)
		return NULL;
	struct mdl_expr *c = ck_mk(k, e->kind, e->type, e->loc, e->nargs);
	struct mdl_expr **a = c->a;
	*c = *e;
	c->a = a;
	for (int i = 0; i < (e->nargs > 0 ? e->nargs : 1); i++)
		c->a[i] = copy_expr(k, e->a[i]);
	return c;
}

const struct ast_alias *ck_alias_const(const struct ck_scope *s, const char *name)
{
	for (int i = 0; s && s->aliases && i < s->aliases->n; i++) {
		const struct ast_alias *a = s->aliases->v[i];
		if (a->alias.s == name)
			return a->is_const ? a : NULL;
	}
	return NULL;
}

static int alias_field(struct ck *k, const struct ck_scope *s, const char *name)
{
	for (int i = 0; s && s->aliases && i < s->aliases->n; i++) {
		const struct ast_alias *a = s->aliases->v[i];
		if (a->alias.s == name && a->is_const)
			return -3;
		if (a->alias.s == name) {
			struct ck_sym *y = ck_lookup(k, NS_VALUE, a->field.s);
			return y && y->kind == SYM_FIELD ? y->index : -2;   /* -2: reported by ck_slot_alias_check */
		}
	}
	return -1;
}

int ck_field_ref(struct ck *k, struct ck_scope *s, const char *name, struct mdl_loc loc, bool report)
{
	for (int i = 0; s && i < s->nparams; i++)
		if (s->pnames[i] == name) {
			if (s->pfields[i] >= 0)
				return s->pfields[i];
			mdl_error(k->p, loc, "operand parameter '%s' is the constant %lld here: it cannot be printed or bound "
			          "as a field", name, (long long)s->pconsts[i]);
			return -2;
		}
	int af = alias_field(k, s, name);
	if (af == -3) {
		mdl_error(k->p, loc, "'%s' is the constant %lld of slot '%s': it cannot be printed or bound as a field", name,
		          (long long)ck_alias_const(s, name)->val, s->slot >= 0 ? k->m->slots[s->slot].name : "?");
		return -2;
	}
	if (af != -1)
		return af;
	struct ck_sym *y = ck_lookup(k, NS_VALUE, name);
	if (y && y->kind == SYM_FIELD)
		return y->index;
	if (report) {
		if (y)
			mdl_error(k->p, loc, "'%s' is not a field", name);
		else
			mdl_error(k->p, loc, "undefined name '%s'", name);
	}
	return -1;
}

static struct mdl_expr *field_expr(struct ck *k, int f, struct mdl_loc loc)
{
	struct mdl_expr *e = ck_mk(k, MDL_E_FIELD, k->m->fields[f].is_signed ? MDL_T_I32 : MDL_T_U32, loc, 0);
	e->index = f;
	return e;
}

struct mdl_expr *ck_not_allowed(struct ck *k, struct ck_scope *s, const char *what, const char *name,
                                struct mdl_loc loc)
{
	mdl_error(k->p, loc, "%s '%s' cannot be used in %s", what, name, s->what);
	return NULL;
}

static struct mdl_expr *conv(struct ck *k, struct ck_scope *s, const struct ast_expr *a, bool *lit);

static struct mdl_expr *conv_name(struct ck *k, struct ck_scope *s, const struct ast_expr *a, bool *lit)
{
	const char *n = a->name;
	for (int i = 0; i < s->nfargs; i++)
		if (s->fnames[i] == n) {
			*lit = s->flits[i];
			return copy_expr(k, s->fargs[i]);
		}
	for (int i = 0; i < s->nparams; i++)
		if (s->pnames[i] == n) {
			if (s->pfields[i] >= 0)
				return field_expr(k, s->pfields[i], a->loc);
			int64_t v = s->pconsts[i];   /* X8: a constant argument, a literal of the type of its sign */
			struct mdl_expr *e = ck_mk(k, MDL_E_INT, v < 0 ? MDL_T_I32 : MDL_T_U32, a->loc, 0);
			e->ival = (uint64_t)v;
			*lit = true;
			return e;
		}
	{
		const struct ast_alias *ca = ck_alias_const(s, n);
		if (ca) {
			struct mdl_expr *e = ck_mk(k, MDL_E_INT, MDL_T_U32, a->loc, 0);
			e->ival = (uint64_t)ca->val;
			*lit = true;
			return e;
		}
		int af = alias_field(k, s, n);
		if (af >= 0) {
			if (!(s->allow & CX_FIELDS))
				return ck_not_allowed(k, s, "field", n, a->loc);
			return field_expr(k, af, a->loc);
		}
		if (af == -2)
			return NULL;
	}
	if (s->L && (s->allow & CX_LOCALS)) {
		int l = ck_local_find(s->L, n);
		if (l >= 0) {
			if (s->L->kinds[l] == LK_OPND && s->L->opnd[l] >= 0 && !ck_opnd_readable(k, s->L->opnd[l])) {
				mdl_error(k->p, a->loc, "operand '%s' bound to '%s' has no value to read",
				          k->m->opnds[s->L->opnd[l]].inst_name, n);
				return NULL;
			}
			struct mdl_expr *e = ck_mk(k, MDL_E_LOCAL, s->L->types[l], a->loc, 0);
			e->index = l;
			return e;
		}
	}
	if ((s->allow & CX_CODE) && !strcmp(n, "code"))
		return ck_mk(k, MDL_E_CODE, MDL_T_I32, a->loc, 0);
	if ((s->allow & CX_ADDR) && !strcmp(n, "addr"))
		return ck_mk(k, MDL_E_CODE, MDL_T_U32, a->loc, 0);
	if ((s->allow & CX_VALUE) && !strcmp(n, "value"))
		return ck_mk(k, MDL_E_VALUE, MDL_T_U32, a->loc, 0);
	struct ck_sym *y = ck_lookup(k, NS_VALUE, n);
	if (y) {
		switch (y->kind) {
		case SYM_FIELD:
			if (!(s->allow & CX_FIELDS))
				return ck_not_allowed(k, s, "field", n, a->loc);
			return field_expr(k, y->index, a->loc);
		case SYM_STATE: {
			if (!(s->allow & CX_STATE))
				return ck_not_allowed(k, s, "state", n, a->loc);
			if (k->m->states[y->index].count > 0) {
				mdl_error(k->p, a->loc, "regfile '%s' needs an element index", n);
				return NULL;
			}
			struct mdl_expr *e = ck_mk(k, MDL_E_STATE, k->m->states[y->index].vec4 ? MDL_T_VEC4 : MDL_T_U32, a->loc, 0);
			e->index = y->index;
			return e;
		}
		case SYM_SPACE:
			mdl_error(k->p, a->loc, "space '%s' needs an address", n);
			return NULL;
		case SYM_FORWARD:   /* (addition) X6 */
			mdl_error(k->p, a->loc, "forward '%s' is read at an age: %s@A", n, n);
			return NULL;
		default:
			mdl_error(k->p, a->loc, "func '%s' needs arguments", n);
			return NULL;
		}
	}
	int b = ck_builtin0(n);
	if (b >= 0) {
		ck_note_lanefn(k, n, a->loc);
		struct mdl_expr *e = ck_mk(k, MDL_E_CALL, MDL_T_U32, a->loc, 0);
		e->index = b;
		return e;
	}
	mdl_error(k->p, a->loc, "undefined name '%s'", n);
	return NULL;
}

/* An integer operand (index, address, shift count): literals become u32; f32 and bool are errors. */
struct mdl_expr *ck_int(struct ck *k, struct ck_scope *s, const struct ast_expr *a, const char *what)
{
	bool lit = false;
	struct mdl_expr *e = conv(k, s, a, &lit);
	if (!e)
		return NULL;
	e = ck_adapt(k, e, lit, MDL_T_U32);
	if (!ck_is_int(e->type)) {
		mdl_error(k->p, a->loc, "%s must be an integer, not %s", what, ck_type_name(e->type));
		return NULL;
	}
	return e;
}

/* (addition) X4: `G[b]` or `G[hi:lo]` (a->a[1] set) of a field G (or an operand parameter or alias naming one): the
 * slice, a derived field; NULL after reporting, or (not a field) *tried = false. */
static struct mdl_expr *conv_slice(struct ck *k, struct ck_scope *s, const struct ast_expr *a, bool *tried)
{
	*tried = false;
	bool param = false;
	for (int i = 0; s && i < s->nparams; i++)
		param = param || s->pnames[i] == a->name;
	bool local = s->L && (s->allow & CX_LOCALS) && ck_local_find(s->L, a->name) >= 0;
	if (local && !param)
		return NULL;
	int f = ck_field_ref(k, s, a->name, a->loc, false);
	if (f == -1)
		return NULL;
	*tried = true;
	if (f < 0)
		return NULL;
	uint64_t hi, lo;
	enum mdl_type t;
	if (ck_const(k, s, a->a[0], &hi, &t) || (a->a[1] && ck_const(k, s, a->a[1], &lo, &t)))
		return NULL;
	if (!a->a[1])
		lo = hi;
	if (!(s->allow & CX_FIELDS))
		return ck_not_allowed(k, s, "field", a->name, a->loc);
	hi = hi > 1000000 ? 1000000 : hi;   /* numbers far outside any field stay outside it, reported as written */
	lo = lo > 1000000 ? 1000000 : lo;
	int d = ck_slice_field(k, f, (int64_t)hi, (int64_t)lo, a->loc);
	return d < 0 ? NULL : field_expr(k, d, a->loc);
}

static struct mdl_expr *conv_index(struct ck *k, struct ck_scope *s, const struct ast_expr *a)
{
	bool tried;
	struct mdl_expr *sl = conv_slice(k, s, a, &tried);
	if (tried || sl)
		return sl;
	if (a->a[1]) {
		mdl_error(k->p, a->loc, "'%s' is not a field: only a field has slices [hi:lo]", a->name);
		return NULL;
	}
	struct ck_sym *y = ck_lookup(k, NS_VALUE, a->name);
	bool local = s->L && (s->allow & CX_LOCALS) && ck_local_find(s->L, a->name) >= 0;
	if (!y && !local) {
		mdl_error(k->p, a->loc, "undefined name '%s'", a->name);
		return NULL;
	}
	if (!local && y->kind == SYM_FORWARD) {   /* (addition) X6 */
		mdl_error(k->p, a->loc, "forward '%s' is read at an age: %s[i]@A", a->name, a->name);
		return NULL;
	}
	if (local || (y->kind != SYM_STATE && y->kind != SYM_SPACE) ||
	    (y->kind == SYM_STATE && k->m->states[y->index].count == 0)) {
		mdl_error(k->p, a->loc, "'%s' is not a regfile or space", a->name);
		return NULL;
	}
	if (!(s->allow & CX_STATE))
		return ck_not_allowed(k, s, y->kind == SYM_STATE ? "regfile" : "space", a->name, a->loc);
	struct mdl_expr *i = ck_int(k, s, a->a[0], y->kind == SYM_STATE ? "an element index" : "an address");
	if (!i)
		return NULL;
	uint64_t v;
	int limit = y->kind == SYM_STATE ? k->m->states[y->index].count : k->m->spaces[y->index].size;
	if (mdl_ceval(i, NULL, &v) == 0 && v >= (uint64_t)limit) {
		mdl_error(k->p, a->a[0]->loc, "%s %llu outside %s '%s' (%d %s)", y->kind == SYM_STATE ? "element" : "address",
		          (unsigned long long)v, y->kind == SYM_STATE ? "regfile" : "space", a->name, limit,
		          y->kind == SYM_STATE ? "elements" : "entries");
		return NULL;
	}
	if (y->kind == SYM_SPACE) {
		const struct mdl_space *sp = &k->m->spaces[y->index];
		bool any = false;
		for (int j = 0; j < sp->nent; j++)
			any = any || !sp->ent[j].write;
		if (!any) {
			mdl_error(k->p, a->loc, "space '%s' has no read entries", a->name);
			return NULL;
		}
	}
	bool v4 = y->kind == SYM_STATE && k->m->states[y->index].vec4;
	struct mdl_expr *e = ck_mk(k, y->kind == SYM_STATE ? MDL_E_STATE : MDL_E_SPACE, v4 ? MDL_T_VEC4 : MDL_T_U32, a->loc, 1);
	e->index = y->index;
	e->a[0] = i;
	return e;
}

/* Both operands of a binary operator to one type; the result's kind in *t. */
static int unify(struct ck *k, struct mdl_expr **a, bool la, struct mdl_expr **b, bool lb, int op, struct mdl_loc loc)
{
	if (la && !lb)
		*a = ck_adapt(k, *a, la, (*b)->type);
	else if (lb && !la)
		*b = ck_adapt(k, *b, lb, (*a)->type);
	else if (la && lb && ((*a)->type == MDL_T_F32 || (*b)->type == MDL_T_F32)) {
		*a = ck_adapt(k, *a, la, MDL_T_F32);
		*b = ck_adapt(k, *b, lb, MDL_T_F32);
	}
	enum mdl_type ta = (*a)->type, tb = (*b)->type;
	if (ta == tb || (ck_is_int(ta) && ck_is_int(tb)))
		return 0;
	if ((ta == MDL_T_VEC4 && tb == MDL_T_F32) || (ta == MDL_T_F32 && tb == MDL_T_VEC4))
		return 0;   /* the f32 is splatted (X11) */
	if (ta == MDL_T_VEC4 || tb == MDL_T_VEC4) {
		mdl_error(k->p, loc, "operator '%s' cannot mix %s and %s (vec4 components are f32: convert with f32() or "
		          "itof())", op_name(op), ck_type_name(ta), ck_type_name(tb));
		return -1;
	}
	if (ta == MDL_T_F32 || tb == MDL_T_F32 || ta == MDL_T_F16 || tb == MDL_T_F16)
		mdl_error(k->p, loc, "operator '%s' cannot mix %s and %s (convert with f32(), u32(), itof() or ftoi())",
		          op_name(op), ck_type_name(ta), ck_type_name(tb));
	else
		mdl_error(k->p, loc, "operator '%s' cannot mix %s and %s", op_name(op), ck_type_name(ta), ck_type_name(tb));
	return -1;
}

static enum mdl_type join(enum mdl_type a, enum mdl_type b)
{
	if (a == MDL_T_VEC4 || b == MDL_T_VEC4)
		return MDL_T_VEC4;           /* vec4 with a splatted f32 */
	return a == b ? a : MDL_T_I32;   /* only u32/i32 reach here mixed */
}

/* The exact value of an integer literal node (u32 zero-extended, i32 sign-extended). */
static int64_t lit_exact(const struct mdl_expr *x)
{
	return x->type == MDL_T_I32 ? (int64_t)(int32_t)(uint32_t)x->ival : (int64_t)(uint32_t)x->ival;
}

/* A constant integer operation on literals must not wrap (docs/mdl.md "Lexical structure"): its exact result
 * must fit its type (u32 0 .. 2^32-1, i32 -2^31 .. 2^31-1); conv_bin checks shift counts.  Operands are 32-bit,
 * so + - * are exact in 64 bits (|x * y| < 2^64 as a magnitude).  Reports and returns -1, else 0. */
static int fold_range(struct ck *k, const struct mdl_expr *e)
{
	if (e->type != MDL_T_U32 && e->type != MDL_T_I32)
		return 0;
	bool sg = e->type == MDL_T_I32;
	int64_t lo = sg ? INT32_MIN : 0, hi = sg ? INT32_MAX : (int64_t)UINT32_MAX;
	const char *tn = sg ? "i32" : "u32";
	if (e->kind != MDL_E_BIN || e->a[0]->kind != MDL_E_INT || e->a[1]->kind != MDL_E_INT)
		return 0;
	int64_t x = lit_exact(e->a[0]), y = lit_exact(e->a[1]), r;
	uint64_t m;
	switch (e->op) {
	case '+': r = x + y; break;
	case '-': r = x - y; break;
	case '*':
		m = (uint64_t)(x < 0 ? -x : x) * (uint64_t)(y < 0 ? -y : y);
		if (m > (uint64_t)INT64_MAX) {
			r = INT64_MAX;   /* beyond any 32-bit type */
			break;
		}
		r = (x < 0) != (y < 0) ? -(int64_t)m : (int64_t)m;
		break;
	case '/': r = y ? x / y : 0; break;
	case MDL_OP_SHL:
		if (y < 0 || y > 31)
			return 0;   /* reported by conv_bin */
		r = x * ((int64_t)1 << y);
		break;
	default: return 0;
	}
	if (r < lo || r > hi) {
		mdl_error(k->p, e->loc, "value of %lld %s %lld does not fit %s", (long long)x, op_name(e->op), (long long)y, tn);
		return -1;
	}
	return 0;
}

static struct mdl_expr *fold(struct ck *k, struct mdl_expr *e, bool *lit)
{
	uint64_t v;
	if (fold_range(k, e))
		return NULL;
	int r = mdl_ceval(e, NULL, &v);
	if (r == -2) {
		mdl_error(k->p, e->loc, "division by zero");
		return NULL;
	}
	if (r)
		return e;
	*lit = true;
	struct mdl_expr *l = ck_mk(k, e->type == MDL_T_F32 ? MDL_E_FLOAT : MDL_E_INT, e->type, e->loc, 0);
	l->ival = v;
	return l;
}

static struct mdl_expr *conv_bin(struct ck *k, struct ck_scope *s, const struct ast_expr *a, bool *lit)
{
	bool la = false, lb = false;
	struct mdl_expr *x = conv(k, s, a->a[0], &la), *y = conv(k, s, a->a[1], &lb);
	if (!x || !y)
		return NULL;
	int op = a->op;
	struct mdl_expr *e = ck_mk(k, MDL_E_BIN, MDL_T_U32, a->loc, 2);
	e->op = op;
	if (op == MDL_OP_LAND || op == MDL_OP_LOR) {
		x = ck_adapt(k, x, la, MDL_T_BOOL);
		y = ck_adapt(k, y, lb, MDL_T_BOOL);
		for (int i = 0; i < 2; i++) {
			enum mdl_type t = (i ? y : x)->type;
			if (t != MDL_T_BOOL && !ck_is_int(t)) {
				mdl_error(k->p, a->loc, "operator '%s' needs bool or integer operands, not %s", op_name(op),
				          ck_type_name(t));
				return NULL;
			}
		}
		e->type = MDL_T_BOOL;
	} else if (op == MDL_OP_SHL || op == MDL_OP_SHR) {
		if (la && lb && y->kind == MDL_E_INT && ck_is_int(y->type) && (lit_exact(y) < 0 || lit_exact(y) > 31)) {
			/* a constant shift by 32 or more (or a negative count) would give 0 (fold_range) */
			mdl_error(k->p, a->loc, "shift count %lld out of range 0..31", (long long)lit_exact(y));
			return NULL;
		}
		if (la && !lb)
			x = ck_adapt(k, x, la, MDL_T_U32);
		y = ck_adapt(k, y, lb, MDL_T_U32);
		if (!ck_is_int(x->type) || !ck_is_int(y->type)) {
			mdl_error(k->p, a->loc, "operator '%s' needs integer operands, not %s", op_name(op),
			          ck_type_name(ck_is_int(x->type) ? y->type : x->type));
			return NULL;
		}
		e->type = x->type;
	} else {
		if (unify(k, &x, la, &y, lb, op, a->loc))
			return NULL;
		enum mdl_type t = join(x->type, y->type);
		bool cmp = op >= MDL_OP_EQ && op <= MDL_OP_GE;
		bool eq = op == MDL_OP_EQ || op == MDL_OP_NE;
		bool ok = ck_is_int(t) || (mdl_type_float(t) && (cmp || strchr("+-*/%", op))) || (t == MDL_T_BOOL && eq);
		if (!ok) {
			mdl_error(k->p, a->loc, "operator '%s' cannot take %s operands", op_name(op), ck_type_name(t));
			return NULL;
		}
		e->type = cmp && t != MDL_T_VEC4 ? MDL_T_BOOL : t;   /* a vec4 comparison: 0 or 1 per component */
	}
	e->a[0] = x;
	e->a[1] = y;
	if (la && lb && e->type != MDL_T_BOOL)
		return fold(k, e, lit);
	return e;
}

static struct mdl_expr *conv_un(struct ck *k, struct ck_scope *s, const struct ast_expr *a, bool *lit)
{
	bool l = false;
	struct mdl_expr *x = conv(k, s, a->a[0], &l);
	if (!x)
		return NULL;
	struct mdl_expr *e = ck_mk(k, MDL_E_UN, x->type, a->loc, 1);
	e->op = a->op;
	e->a[0] = x;
	if (a->op == '!') {
		if (x->type != MDL_T_BOOL && !ck_is_int(x->type)) {
			mdl_error(k->p, a->loc, "operator '!' needs a bool or integer operand, not %s", ck_type_name(x->type));
			return NULL;
		}
		e->type = MDL_T_BOOL;
		return e;
	}
	if (!ck_is_int(x->type) && !(a->op == '-' && mdl_type_float(x->type))) {
		mdl_error(k->p, a->loc, "operator '%c' cannot take a %s operand", a->op, ck_type_name(x->type));
		return NULL;
	}
	if (l && a->op == '-' && x->type == MDL_T_U32 && x->kind == MDL_E_INT) {
		if ((uint32_t)x->ival > 0x80000000u) {   /* -2147483649 would wrap to 2147483647 */
			mdl_error(k->p, a->loc, "value of -%llu does not fit i32", (unsigned long long)(uint32_t)x->ival);
			return NULL;
		}
		e->type = x->type = MDL_T_I32;   /* -16 is an i32 literal */
	}
	return l ? fold(k, e, lit) : e;
}

static struct mdl_expr *conv_cond(struct ck *k, struct ck_scope *s, const struct ast_expr *a)
{
	bool lc = false, la = false, lb = false;
	struct mdl_expr *c = conv(k, s, a->a[0], &lc), *x = conv(k, s, a->a[1], &la), *y = conv(k, s, a->a[2], &lb);
	if (!c || !x || !y)
		return NULL;
	if (c->type != MDL_T_BOOL && !ck_is_int(c->type) && c->type != MDL_T_VEC4) {
		mdl_error(k->p, a->a[0]->loc, "condition must be bool or an integer, not %s", ck_type_name(c->type));
		return NULL;
	}
	if (c->type == MDL_T_VEC4) {   /* per component (X11): the arms are f32 or vec4 */
		x = ck_adapt(k, x, la, MDL_T_F32);
		y = ck_adapt(k, y, lb, MDL_T_F32);
		la = lb = false;
	}
	if (unify(k, &x, la, &y, lb, '?', a->loc))
		return NULL;
	if (c->type == MDL_T_VEC4 && (!mdl_type_float(x->type) || !mdl_type_float(y->type))) {
		mdl_error(k->p, a->loc, "a vec4 condition selects f32 or vec4 values, not %s", ck_type_name(x->type));
		return NULL;
	}
	struct mdl_expr *e = ck_mk(k, MDL_E_COND, c->type == MDL_T_VEC4 ? MDL_T_VEC4 : join(x->type, y->type), a->loc, 3);
	e->a[0] = c;
	e->a[1] = x;
	e->a[2] = y;
	return e;
}

static struct mdl_expr *conv1(struct ck *k, struct ck_scope *s, const struct ast_expr *a, bool *lit);

/* Conversion depth is bounded: funcs inline their bodies into each other's. */
static struct mdl_expr *conv(struct ck *k, struct ck_scope *s, const struct ast_expr *a, bool *lit)
{
	*lit = false;
	if (k->depth >= 4 * MDL_MAX_DEPTH) {
		mdl_error(k->p, a->loc, "expression nested too deeply after inlining funcs (more than %d levels)",
		          4 * MDL_MAX_DEPTH);
		return NULL;
	}
	k->depth++;
	struct mdl_expr *e = conv1(k, s, a, lit);
	k->depth--;
	return e;
}

static struct mdl_expr *conv1(struct ck *k, struct ck_scope *s, const struct ast_expr *a, bool *lit)
{
	if (k->budget <= 0) {
		if (k->budget == 0)
			mdl_error(k->p, a->loc, "expressions too large (funcs inline to over %d nodes)", 2000000);
		k->budget = -1;
		return NULL;
	}
	switch (a->kind) {
	case AE_INT:
		if (a->ival > 0xffffffffu) {
			mdl_error(k->p, a->loc, "integer %llu does not fit 32 bits", (unsigned long long)a->ival);
			return NULL;
		}
		*lit = true;
		return lit_int(k, a->ival, MDL_T_U32, a->loc);
	case AE_FLOAT:
		*lit = true;
		return lit_float(k, (float)a->fval, a->loc);
	case AE_NAME: return a->has_age ? ck_fwd_read(k, s, a) : conv_name(k, s, a, lit);
	case AE_INDEX: return a->has_age ? ck_fwd_read(k, s, a) : conv_index(k, s, a);
	case AE_CALL: return ck_call(k, s, a, lit);
	case AE_UN: return conv_un(k, s, a, lit);
	case AE_BIN: return conv_bin(k, s, a, lit);
	case AE_COND: return conv_cond(k, s, a);
	}
	return NULL;
}

struct mdl_expr *ck_expr(struct ck *k, struct ck_scope *s, const struct ast_expr *a, bool *lit)
{
	bool l;
	return conv(k, s, a, lit ? lit : &l);
}

struct mdl_expr *ck_bool(struct ck *k, struct ck_scope *s, const struct ast_expr *a)
{
	bool lit = false;
	struct mdl_expr *e = conv(k, s, a, &lit);
	if (!e)
		return NULL;
	e = ck_adapt(k, e, lit, MDL_T_BOOL);
	if (e->type != MDL_T_BOOL && !ck_is_int(e->type)) {
		mdl_error(k->p, a->loc, "condition must be bool or an integer, not %s", ck_type_name(e->type));
		return NULL;
	}
	return e;
}

struct mdl_expr *ck_value(struct ck *k, struct ck_scope *s, const struct ast_expr *a)
{
	bool lit = false;
	struct mdl_expr *e = conv(k, s, a, &lit);
	if (e && e->type == MDL_T_VOID) {
		mdl_error(k->p, a->loc, "expression has no value");
		return NULL;
	}
	return e;
}

int ck_const(struct ck *k, struct ck_scope *s, const struct ast_expr *a, uint64_t *v, enum mdl_type *t)
{
	struct mdl_expr *e = ck_value(k, s, a);
	if (!e)
		return -1;
	int r = mdl_ceval(e, NULL, v);
	if (r) {
		if (r == -2)
			mdl_error(k->p, a->loc, "division by zero");
		else
			mdl_error(k->p, a->loc, "value must be a constant");
		return -1;
	}
	if (t)
		*t = e->type;
	return 0;
}
