/* Calls in expressions (docs/mdl.md "Semantics"): built-in functions (arity and argument kinds), casts,
 * `attr(NAME)`, table lookups `TABLE(code)`, and user funcs, which are inlined: the body is converted again at
 * every call with the parameters standing for (copies of) the argument expressions.
 */
#include <string.h>
#include "check.h"

enum { P_F = 'F', P_I = 'I', P_A = 'A', P_B = 'B', P_L = 'L', P_V = 'V', P_S = 'S' };   /* argument kinds, see check_arg */
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
	/* (addition) float functions (runtime/sem.h; precision: docs/sim.md "Float built-ins") */
	{ "floor", MDL_B_FLOOR, 1, P_F, MDL_T_F32 }, { "round", MDL_B_ROUND, 1, P_F, MDL_T_F32 },
	{ "fract", MDL_B_FRACT, 1, P_F, MDL_T_F32 }, { "rsqrt", MDL_B_RSQRT, 1, P_F, MDL_T_F32 },
	{ "rcp", MDL_B_RCP, 1, P_F, MDL_T_F32 }, { "exp2", MDL_B_EXP2, 1, P_F, MDL_T_F32 },
	{ "log2", MDL_B_LOG2, 1, P_F, MDL_T_F32 }, { "sin", MDL_B_SIN, 1, P_F, MDL_T_F32 },
	{ "cos", MDL_B_COS, 1, P_F, MDL_T_F32 }, { "fma", MDL_B_FMA, 3, P_F, MDL_T_F32 },
	/* (addition) X11 component values: comp(v, i), vec4(a, b, c, d), splat(x), swizzle(v, i0, i1, i2, i3) */
	{ "comp", MDL_B_COMP, 2, P_V, MDL_T_F32 }, { "vec4", MDL_B_VEC4, 4, P_S, MDL_T_VEC4 },
	{ "splat", MDL_B_SPLAT, 1, P_S, MDL_T_VEC4 }, { "swizzle", MDL_B_SWIZZLE, 5, P_V, MDL_T_VEC4 },
};

/* (addition, X11) What a built-in call e (arguments checked) becomes with vec4 arguments: a built-in of f32 or
 * bits (F, A) with a vec4 argument gives a vec4 (per component) (min and max with an f32 or vec4 argument are
 * fmin and fmax: ck_call); comp and swizzle indices that are constants must lie in 0..3; the component
 * built-ins note a vec4 value, the cross-lane ones (lane, rotate, rotate_quad, quad_bcast) their use. */
static struct mdl_expr *ck_call_vec4(struct ck *k, int id, struct mdl_expr *e)
{
	bool v4 = false;
	for (int i = 0; i < e->nargs; i++)
		v4 = v4 || e->a[i]->type == MDL_T_VEC4;
	switch (id) {
	case MDL_B_COMP: case MDL_B_SWIZZLE:
		for (int i = 1; i < e->nargs; i++) {
			uint64_t c;
			if (mdl_ceval(e->a[i], NULL, &c) == 0 && mdl_cnorm(c, MDL_T_U32) > 3) {
				mdl_error(k->p, e->a[i]->loc, "component index %llu outside 0..3",
				          (unsigned long long)mdl_cnorm(c, MDL_T_U32));
				return NULL;
			}
		}
		ck_note_vec4(k, e->loc);
		return e;
	case MDL_B_VEC4: case MDL_B_SPLAT:
		ck_note_vec4(k, e->loc);
		return e;
	case MDL_B_LANE: case MDL_B_ROTATE: case MDL_B_ROTATE_QUAD: case MDL_B_QUAD_BCAST:
		ck_note_lanefn(k, id == MDL_B_LANE ? "lane" : id == MDL_B_ROTATE ? "rotate" : id == MDL_B_ROTATE_QUAD
		               ? "rotate_quad" : "quad_bcast", e->loc);
		return e;
	case MDL_B_ALL: case MDL_B_ANY:
		return e;
	default:
		if (v4)
			e->type = MDL_T_VEC4;
		return e;
	}
}

static const struct builtin *find_builtin(const char *name)
{
	for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
		if (!strcmp(builtins[i].name, name))
			return &builtins[i];
	return NULL;
}

int ck_builtin0(const char *name)
{
	const struct builtin *b = find_builtin(name);
	return b && b->nargs == 0 ? b->id : -1;
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

/* Argument i of a built-in: F any 32-bit value or a vec4 (bits; int literals become floats), I integer, A any
 * 32-bit value or a vec4, B a condition (bool, integer or vec4), S one 32-bit value (a component: int literals
 * become floats); L (lane, rotate) and V (comp, swizzle) take a value first (V: a vec4), then integers. */
static struct mdl_expr *check_arg(struct ck *k, const struct builtin *b, int i, struct mdl_expr *e, bool lit,
                                  struct mdl_loc loc)
{
	char kind = b->kind == P_L ? (i == 0 ? P_A : P_I) : b->kind == P_V ? (i == 0 ? P_V : P_I) : b->kind;
	if (kind == P_V) {
		if (e->type == MDL_T_VEC4)
			return e;
		mdl_error(k->p, loc, "argument 1 of '%s' must be a vec4, not %s", b->name, ck_type_name(e->type));
		return NULL;
	}
	if (kind == P_S) {
		e = ck_adapt(k, e, lit, MDL_T_F32);
		if (e->type != MDL_T_BOOL && e->type != MDL_T_VOID && e->type != MDL_T_VEC4)
			return e;
		mdl_error(k->p, loc, "argument %d of '%s' must be one 32-bit value, not %s", i + 1, b->name,
		          ck_type_name(e->type));
		return NULL;
	}
	if (kind == P_F)
		e = ck_adapt(k, e, lit, MDL_T_F32);
	else if (kind == P_I)
		e = ck_adapt(k, e, lit, MDL_T_U32);
	if (kind == P_B) {
		if (e->type == MDL_T_BOOL || ck_is_int(e->type) || e->type == MDL_T_VEC4)
			return e;
	} else if (kind == P_I ? ck_is_int(e->type) : e->type != MDL_T_BOOL && e->type != MDL_T_VOID) {
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
		fs.fargs[i] = ck_expr(k, s, a->args.v[i], &fs.flits[i]);
		if (!fs.fargs[i])
			return NULL;
	}
	k->func_busy[y->index] = 1;
	k->func_used[y->index] = 1;
	struct mdl_expr *e = ck_expr(k, &fs, d->expr, lit);
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
	struct mdl_expr *x = ck_expr(k, s, a->args.v[0], &lit);
	if (!x)
		return NULL;
	if (x->type == MDL_T_VEC4) {
		mdl_error(k->p, a->loc, "'%s' cannot take a vec4 (take a component: comp(v, i))", a->name);
		return NULL;
	}
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

struct mdl_expr *ck_call(struct ck *k, struct ck_scope *s, const struct ast_expr *a, bool *lit)
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
			return ck_not_allowed(k, s, "attribute test", x->name, a->loc);
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
	bool ok = true, lits[5] = { false };
	for (int i = 0; i < b->nargs; i++) {
		e->a[i] = ck_expr(k, s, a->args.v[i], &lits[i]);
		ok = ok && e->a[i];
	}
	if (ok && (b->id == MDL_B_MIN || b->id == MDL_B_MAX))   /* (addition) of f32 or vec4: fmin, fmax */
		for (int i = 0; i < b->nargs; i++)
			if (mdl_type_float(e->a[i]->type)) {
				b = find_builtin(b->id == MDL_B_MIN ? "fmin" : "fmax");
				e->type = b->ret;
				break;
			}
	e->index = b->id;
	for (int i = 0; ok && i < b->nargs; i++) {
		e->a[i] = check_arg(k, b, i, e->a[i], lits[i], ((struct ast_expr *)a->args.v[i])->loc);
		ok = ok && e->a[i];
	}
	if (!ok)
		return NULL;
	if (b->ret == MDL_T_VOID)
		e->type = e->a[0]->type;
	return ck_call_vec4(k, b->id, e);
}

