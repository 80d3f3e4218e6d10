/* Expressions: name resolution, func inlining and typing (docs/mdl.md "Semantics", "Types").
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

enum { P_F = 'F', P_I = 'I', P_A = 'A', P_B = 'B', P_L = 'L' };   /* argument kinds, see check_arg */
static const struct builtin {
	const char *name; int id, nargs; char kind; enum mdl_type ret;   /* ret VOID: the first argument's type */
} builtins[] = {
	{ "fadd", MDL_B_FADD, 2, P_F, MDL_T_F32 }, { "fsub", MDL_B_FSUB, 2, P_F, MDL_T_F32 },
	{ "fmul", MDL_B_FMUL, 2, P_F, MDL_T_F32 }, { "fmin", MDL_B_FMIN, 2, P_F, MDL_T_F32 },
	{ "fmax", MDL_B_FMAX, 2, P_F, MDL_T_F32 }, { "fminabs", MDL_B_FMINABS, 2, P_F, MDL_T_F32 },
	{ "fmaxabs", MDL_B_FMAXABS, 2, P_F, MDL_T_F32 }, { "fabs", MDL_B_FABS, 1, P_F, MDL_T_F32 },
	{ "fneg", MDL_B_FNEG, 1, P_F, MDL_T_F32 }, { "ftoi", MDL_B_FTOI, 1, P_F, MDL_T_I32 },
	{ "itof", MDL_B_ITOF, 1, P_I, MDL_T_F32 }, { "fgt", MDL_B_FGT, 2, P_F, MDL_T_BOOL },
	{ "feq", MDL_B_FEQ, 2, P_F, MDL_T_BOOL }, { "f16tof32", MDL_B_F16TOF32, 1, P_A, MDL_T_F32 },
	{ "f32tof16", MDL_B_F32TOF16, 1, P_F, MDL_T_U32 }, { "unorm8tof", MDL_B_UNORM8TOF, 1, P_I, MDL_T_F32 },
	{ "f2unorm8", MDL_B_F2UNORM8, 1, P_F, MDL_T_U32 }, { "clz", MDL_B_CLZ, 1, P_I, MDL_T_U32 },
	{ "mul24", MDL_B_MUL24, 2, P_I, MDL_T_U32 }, { "shl", MDL_B_SHL, 2, P_I, MDL_T_U32 },
	{ "shr", MDL_B_SHR, 2, P_I, MDL_T_U32 }, { "asr", MDL_B_ASR, 2, P_I, MDL_T_I32 },
	{ "ror", MDL_B_ROR, 2, P_I, MDL_T_U32 }, { "min", MDL_B_MIN, 2, P_I, MDL_T_I32 },
	{ "max", MDL_B_MAX, 2, P_I, MDL_T_I32 }, { "sadd_sat", MDL_B_SADD_SAT, 2, P_I, MDL_T_I32 },
	{ "ssub_sat", MDL_B_SSUB_SAT, 2, P_I, MDL_T_I32 }, { "v8adds", MDL_B_V8ADDS, 2, P_I, MDL_T_U32 },
	{ "v8subs", MDL_B_V8SUBS, 2, P_I, MDL_T_U32 }, { "v8min", MDL_B_V8MIN, 2, P_I, MDL_T_U32 },
	{ "v8max", MDL_B_V8MAX, 2, P_I, MDL_T_U32 }, { "v8muld", MDL_B_V8MULD, 2, P_I, MDL_T_U32 },
	{ "byte", MDL_B_BYTE, 2, P_I, MDL_T_U32 }, { "bytes", MDL_B_BYTES, 4, P_I, MDL_T_U32 },
	{ "elem", MDL_B_ELEM, 0, P_I, MDL_T_U32 }, { "lane", MDL_B_LANE, 2, P_L, MDL_T_VOID },
	{ "rotate", MDL_B_ROTATE, 2, P_L, MDL_T_VOID }, { "rotate_quad", MDL_B_ROTATE_QUAD, 2, P_L, MDL_T_VOID },
	{ "quad_bcast", MDL_B_QUAD_BCAST, 1, P_A, MDL_T_VOID }, { "all", MDL_B_ALL, 1, P_B, MDL_T_BOOL },
	{ "any", MDL_B_ANY, 1, P_B, MDL_T_BOOL },
};

static const struct builtin *find_builtin(const char *name)
{
	for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
		if (!strcmp(builtins[i].name, name))
			return &builtins[i];
	return NULL;
}

/* Names a description may not declare: built-ins, casts, and the special forms. */
bool ck_reserved_name(const char *name)
{
	static const char *const special[] = { "attr", "u32", "i32", "f32", "f16", "bool", "float", "jump", "halt" };
	for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
		if (!strcmp(special[i], name))
			return true;
	return find_builtin(name) != NULL;
}

const char *ck_type_name(enum mdl_type t)
{
	static const char *const n[] = { "void", "u32", "i32", "f32", "f16", "bool" };
	return (unsigned)t < 6 ? n[t] : "?";
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

static bool is_int(enum mdl_type t) { return t == MDL_T_U32 || t == MDL_T_I32; }

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
static struct mdl_expr *adapt(struct ck *k, struct mdl_expr *e, bool lit, enum mdl_type t)
{
	uint64_t v;
	if (!lit || e->type == t || mdl_ceval(e, NULL, &v))
		return e;
	if (t == MDL_T_F32 && is_int(e->type))
		return lit_float(k, e->type == MDL_T_I32 ? (float)(int64_t)v : (float)(uint32_t)v, e->loc);
	if (is_int(t) && is_int(e->type))
		return lit_int(k, v, t, e->loc);
	if (t == MDL_T_BOOL && is_int(e->type) && v <= 1)
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

/* Field named `name` in scope s (operand parameters first), or -1 (reported if `report`). */
int ck_field_ref(struct ck *k, struct ck_scope *s, const char *name, struct mdl_loc loc, bool report)
{
	for (int i = 0; s && i < s->nparams; i++)
		if (s->pnames[i] == name)
			return s->pfields[i];
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

static struct mdl_expr *not_allowed(struct ck *k, struct ck_scope *s, const char *what, const char *name,
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
		if (s->pnames[i] == n)
			return field_expr(k, s->pfields[i], a->loc);
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
				return not_allowed(k, s, "field", n, a->loc);
			return field_expr(k, y->index, a->loc);
		case SYM_STATE: {
			if (!(s->allow & CX_STATE))
				return not_allowed(k, s, "state", n, a->loc);
			if (k->m->states[y->index].count > 0) {
				mdl_error(k->p, a->loc, "regfile '%s' needs an element index", n);
				return NULL;
			}
			struct mdl_expr *e = ck_mk(k, MDL_E_STATE, MDL_T_U32, a->loc, 0);
			e->index = y->index;
			return e;
		}
		case SYM_SPACE:
			mdl_error(k->p, a->loc, "space '%s' needs an address", n);
			return NULL;
		default:
			mdl_error(k->p, a->loc, "func '%s' needs arguments", n);
			return NULL;
		}
	}
	const struct builtin *b = find_builtin(n);
	if (b && b->nargs == 0) {
		struct mdl_expr *e = ck_mk(k, MDL_E_CALL, b->ret, a->loc, 0);
		e->index = b->id;
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
	e = adapt(k, e, lit, MDL_T_U32);
	if (!is_int(e->type)) {
		mdl_error(k->p, a->loc, "%s must be an integer, not %s", what, ck_type_name(e->type));
		return NULL;
	}
	return e;
}

static struct mdl_expr *conv_index(struct ck *k, struct ck_scope *s, const struct ast_expr *a)
{
	struct ck_sym *y = ck_lookup(k, NS_VALUE, a->name);
	bool local = s->L && (s->allow & CX_LOCALS) && ck_local_find(s->L, a->name) >= 0;
	if (!y && !local) {
		mdl_error(k->p, a->loc, "undefined name '%s'", a->name);
		return NULL;
	}
	if (local || (y->kind != SYM_STATE && y->kind != SYM_SPACE) ||
	    (y->kind == SYM_STATE && k->m->states[y->index].count == 0)) {
		mdl_error(k->p, a->loc, "'%s' is not a regfile or space", a->name);
		return NULL;
	}
	if (!(s->allow & CX_STATE))
		return not_allowed(k, s, y->kind == SYM_STATE ? "regfile" : "space", a->name, a->loc);
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
	struct mdl_expr *e = ck_mk(k, y->kind == SYM_STATE ? MDL_E_STATE : MDL_E_SPACE, MDL_T_U32, a->loc, 1);
	e->index = y->index;
	e->a[0] = i;
	return e;
}

/* Argument i of a built-in: F any 32-bit value (bits; int literals become floats), I integer, A any 32-bit
 * value, B a condition (bool or integer). */
static struct mdl_expr *check_arg(struct ck *k, const struct builtin *b, int i, struct mdl_expr *e, bool lit,
                                  struct mdl_loc loc)
{
	char kind = b->kind == P_L ? (i == 0 ? P_A : P_I) : b->kind;
	if (kind == P_F)
		e = adapt(k, e, lit, MDL_T_F32);
	else if (kind == P_I)
		e = adapt(k, e, lit, MDL_T_U32);
	if (kind == P_B) {
		if (e->type == MDL_T_BOOL || is_int(e->type))
			return e;
	} else if (kind == P_I ? is_int(e->type) : e->type != MDL_T_BOOL && e->type != MDL_T_VOID) {
		return e;
	}
	mdl_error(k->p, loc, "argument %d of '%s' must be %s, not %s", i + 1, b->name,
	          kind == P_B ? "bool or an integer" : kind == P_I ? "an integer" : "a 32-bit value",
	          ck_type_name(e->type));
	return NULL;
}

static struct mdl_expr *conv_func(struct ck *k, struct ck_scope *s, const struct ast_expr *a, struct ck_sym *y,
                                  bool *lit)
{
	struct ast_decl *d = y->decl;
	int n = a->args.n;
	if (n != d->params.n) {
		mdl_error(k->p, a->loc, "func '%s' takes %d argument%s, got %d", a->name, d->params.n,
		          d->params.n == 1 ? "" : "s", n);
		return NULL;
	}
	if (k->func_busy[y->index]) {
		mdl_error(k->p, a->loc, "func '%s' calls itself", a->name);
		return NULL;
	}
	struct ck_scope fs = *s;
	fs.allow = s->allow & ~(unsigned)(CX_LOCALS | CX_CODE | CX_ADDR | CX_VALUE);
	fs.nparams = 0;
	fs.nfargs = n;
	fs.fnames = tsr_arena_alloc(k->A, (size_t)(n ? n : 1) * sizeof *fs.fnames);
	fs.fargs = tsr_arena_alloc(k->A, (size_t)(n ? n : 1) * sizeof *fs.fargs);
	fs.flits = tsr_arena_alloc(k->A, (size_t)(n ? n : 1) * sizeof *fs.flits);
	for (int i = 0; i < n; i++) {
		fs.fnames[i] = ((struct ast_name *)d->params.v[i])->s;
		fs.fargs[i] = conv(k, s, a->args.v[i], &fs.flits[i]);
		if (!fs.fargs[i])
			return NULL;
	}
	k->func_busy[y->index] = 1;
	k->func_used[y->index] = 1;
	struct mdl_expr *e = conv(k, &fs, d->expr, lit);
	k->func_busy[y->index] = 0;
	return e;
}

static struct mdl_expr *conv_cast(struct ck *k, struct ck_scope *s, const struct ast_expr *a, enum mdl_type t)
{
	if (a->args.n != 1) {
		mdl_error(k->p, a->loc, "'%s' takes 1 argument, got %d", a->name, a->args.n);
		return NULL;
	}
	bool lit = false;
	struct mdl_expr *x = conv(k, s, a->args.v[0], &lit);
	if (!x)
		return NULL;
	if ((t == MDL_T_F32 && x->type == MDL_T_BOOL) || (t == MDL_T_F16 && x->type == MDL_T_F32) ||
	    (t == MDL_T_F32 && x->type == MDL_T_F16)) {
		mdl_error(k->p, a->loc, "'%s' cannot take a %s (%s)", a->name, ck_type_name(x->type),
		          x->type == MDL_T_BOOL ? "use a ? 1.0 : 0.0" : "use f16tof32 or f32tof16");
		return NULL;
	}
	if (x->type == t)
		return x;
	struct mdl_expr *e = ck_mk(k, MDL_E_CAST, t, a->loc, 1);
	e->a[0] = x;
	return e;
}

static struct mdl_expr *conv_call(struct ck *k, struct ck_scope *s, const struct ast_expr *a, bool *lit)
{
	static const struct { const char *n; enum mdl_type t; } casts[] = {
		{ "u32", MDL_T_U32 }, { "i32", MDL_T_I32 }, { "f32", MDL_T_F32 }, { "f16", MDL_T_F16 }, { "bool", MDL_T_BOOL },
	};
	const char *n = a->name;
	if (!strcmp(n, "attr")) {
		const struct ast_expr *x = a->args.n == 1 ? a->args.v[0] : NULL;
		if (!x || x->kind != AE_NAME) {
			mdl_error(k->p, a->loc, "'attr' takes one attribute name");
			return NULL;
		}
		if (!(s->allow & CX_ATTR))
			return not_allowed(k, s, "attribute test", x->name, a->loc);
		int id = ck_attr(k, x->name, x->loc, false);
		if (id < 0)
			return NULL;
		struct mdl_expr *e = ck_mk(k, MDL_E_ATTR, MDL_T_BOOL, a->loc, 0);
		e->index = id;
		return e;
	}
	for (size_t i = 0; i < sizeof casts / sizeof casts[0]; i++)
		if (!strcmp(n, casts[i].n))
			return conv_cast(k, s, a, casts[i].t);
	if (!strcmp(n, "jump") || !strcmp(n, "halt")) {
		mdl_error(k->p, a->loc, "'%s' is a statement, not a value", n);
		return NULL;
	}
	struct ck_sym *y = ck_lookup(k, NS_VALUE, n);
	if (y && y->kind == SYM_FUNC)
		return conv_func(k, s, a, y, lit);
	if (y) {
		mdl_error(k->p, a->loc, "'%s' is not a function", n);
		return NULL;
	}
	const struct builtin *b = !strcmp(n, "float") ? find_builtin("itof") : find_builtin(n);
	struct ck_sym *t = b ? NULL : ck_lookup(k, NS_TABLE, n);   /* built-ins first: `table rotate` is fine */
	if (t) {
		const struct mdl_table *tb = &k->m->tables[t->index];
		int nnum = 0, nfl = 0;
		for (int i = 0; i < tb->nent; i++) {
			nnum += tb->ent[i].is_num;
			nfl += tb->ent[i].is_num && tb->ent[i].is_float;
		}
		if (a->args.n != 1 || nnum == 0) {
			mdl_error(k->p, a->loc, a->args.n != 1 ? "table '%s' takes 1 argument (a code)"
			                                       : "table '%s' has no numeric entries", n);
			return NULL;
		}
		struct mdl_expr *c = ck_int(k, s, a->args.v[0], "a table code");
		if (!c)
			return NULL;
		struct mdl_expr *e = ck_mk(k, MDL_E_TABLE, nfl == nnum ? MDL_T_F32 : MDL_T_U32, a->loc, 1);
		e->index = t->index;
		e->a[0] = c;
		return e;
	}
	if (!b) {
		mdl_error(k->p, a->loc, "unknown function '%s'", n);
		return NULL;
	}
	if (a->args.n != b->nargs) {
		mdl_error(k->p, a->loc, "'%s' takes %d argument%s, got %d", n, b->nargs, b->nargs == 1 ? "" : "s", a->args.n);
		return NULL;
	}
	struct mdl_expr *e = ck_mk(k, MDL_E_CALL, b->ret, a->loc, b->nargs);
	e->index = b->id;
	bool ok = true;
	for (int i = 0; i < b->nargs; i++) {
		bool l = false;
		struct mdl_expr *x = conv(k, s, a->args.v[i], &l);
		if (x)
			x = check_arg(k, b, i, x, l, ((struct ast_expr *)a->args.v[i])->loc);
		ok = ok && x;
		e->a[i] = x;
	}
	if (!ok)
		return NULL;
	if (b->ret == MDL_T_VOID)
		e->type = e->a[0]->type;
	return e;
}

/* Both operands of a binary operator to one type; the result's kind in *t. */
static int unify(struct ck *k, struct mdl_expr **a, bool la, struct mdl_expr **b, bool lb, int op, struct mdl_loc loc)
{
	if (la && !lb)
		*a = adapt(k, *a, la, (*b)->type);
	else if (lb && !la)
		*b = adapt(k, *b, lb, (*a)->type);
	else if (la && lb && ((*a)->type == MDL_T_F32 || (*b)->type == MDL_T_F32)) {
		*a = adapt(k, *a, la, MDL_T_F32);
		*b = adapt(k, *b, lb, MDL_T_F32);
	}
	enum mdl_type ta = (*a)->type, tb = (*b)->type;
	if (ta == tb || (is_int(ta) && is_int(tb)))
		return 0;
	if (ta == MDL_T_F32 || tb == MDL_T_F32 || ta == MDL_T_F16 || tb == MDL_T_F16)
		mdl_error(k->p, loc, "operator '%s' cannot mix %s and %s (convert with f32(), u32(), itof() or ftoi())",
		          op_name(op), ck_type_name(ta), ck_type_name(tb));
	else
		mdl_error(k->p, loc, "operator '%s' cannot mix %s and %s", op_name(op), ck_type_name(ta), ck_type_name(tb));
	return -1;
}

static enum mdl_type join(enum mdl_type a, enum mdl_type b)
{
	return a == b ? a : MDL_T_I32;   /* only u32/i32 reach here mixed */
}

static struct mdl_expr *fold(struct ck *k, struct mdl_expr *e, bool *lit)
{
	uint64_t v;
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
		x = adapt(k, x, la, MDL_T_BOOL);
		y = adapt(k, y, lb, MDL_T_BOOL);
		for (int i = 0; i < 2; i++) {
			enum mdl_type t = (i ? y : x)->type;
			if (t != MDL_T_BOOL && !is_int(t)) {
				mdl_error(k->p, a->loc, "operator '%s' needs bool or integer operands, not %s", op_name(op),
				          ck_type_name(t));
				return NULL;
			}
		}
		e->type = MDL_T_BOOL;
	} else if (op == MDL_OP_SHL || op == MDL_OP_SHR) {
		if (la && !lb)
			x = adapt(k, x, la, MDL_T_U32);
		y = adapt(k, y, lb, MDL_T_U32);
		if (!is_int(x->type) || !is_int(y->type)) {
			mdl_error(k->p, a->loc, "operator '%s' needs integer operands, not %s", op_name(op),
			          ck_type_name(is_int(x->type) ? y->type : x->type));
			return NULL;
		}
		e->type = x->type;
	} else {
		if (unify(k, &x, la, &y, lb, op, a->loc))
			return NULL;
		enum mdl_type t = join(x->type, y->type);
		bool cmp = op >= MDL_OP_EQ && op <= MDL_OP_GE;
		bool eq = op == MDL_OP_EQ || op == MDL_OP_NE;
		bool ok = is_int(t) || (t == MDL_T_F32 && (cmp || strchr("+-*/%", op))) || (t == MDL_T_BOOL && eq);
		if (!ok) {
			mdl_error(k->p, a->loc, "operator '%s' cannot take %s operands", op_name(op), ck_type_name(t));
			return NULL;
		}
		e->type = cmp ? MDL_T_BOOL : t;
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
		if (x->type != MDL_T_BOOL && !is_int(x->type)) {
			mdl_error(k->p, a->loc, "operator '!' needs a bool or integer operand, not %s", ck_type_name(x->type));
			return NULL;
		}
		e->type = MDL_T_BOOL;
		return e;
	}
	if (!is_int(x->type) && !(a->op == '-' && x->type == MDL_T_F32)) {
		mdl_error(k->p, a->loc, "operator '%c' cannot take a %s operand", a->op, ck_type_name(x->type));
		return NULL;
	}
	if (l && a->op == '-' && x->type == MDL_T_U32 && x->kind == MDL_E_INT)
		e->type = x->type = MDL_T_I32;   /* -16 is an i32 literal */
	return l ? fold(k, e, lit) : e;
}

static struct mdl_expr *conv_cond(struct ck *k, struct ck_scope *s, const struct ast_expr *a)
{
	bool lc = false, la = false, lb = false;
	struct mdl_expr *c = conv(k, s, a->a[0], &lc), *x = conv(k, s, a->a[1], &la), *y = conv(k, s, a->a[2], &lb);
	if (!c || !x || !y)
		return NULL;
	if (c->type != MDL_T_BOOL && !is_int(c->type)) {
		mdl_error(k->p, a->a[0]->loc, "condition must be bool or an integer, not %s", ck_type_name(c->type));
		return NULL;
	}
	if (unify(k, &x, la, &y, lb, '?', a->loc))
		return NULL;
	struct mdl_expr *e = ck_mk(k, MDL_E_COND, join(x->type, y->type), a->loc, 3);
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
	case AE_NAME: return conv_name(k, s, a, lit);
	case AE_INDEX: return conv_index(k, s, a);
	case AE_CALL: return conv_call(k, s, a, lit);
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
	e = adapt(k, e, lit, MDL_T_BOOL);
	if (e->type != MDL_T_BOOL && !is_int(e->type)) {
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
