/* Syntax-tree construction (ast.h): the functions parse.y's actions call, and the error reporter. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ast.h"

#include <xxhash.h>

/* The hash of the whole diagnostic (position and text): XXH3, the project's hash; never 0 (an empty slot). */
static uint64_t diag_hash(const char *s)
{
	uint64_t h = XXH3_64bits(s, strlen(s));
	return h ? h : 1;
}

int mdl_error(struct mdl_pctx *c, struct mdl_loc loc, const char *fmt, ...)
{
	char msg[512], key[640];
	va_list ap;
	va_start(ap, fmt);
	size_t pre = c->err_prefix ? (size_t)snprintf(msg, sizeof msg, "%s", c->err_prefix) : 0;
	vsnprintf(msg + (pre < sizeof msg ? pre : sizeof msg - 1), sizeof msg - (pre < sizeof msg ? pre : sizeof msg - 1),
	          fmt, ap);
	va_end(ap);
	snprintf(key, sizeof key, "%s:%d:%d:%s", loc.file ? loc.file : "", loc.line, loc.col, msg);
	uint64_t h = diag_hash(key);
	if (2 * (c->nseen + 1) > c->capseen) {       /* open addressing, at most half full */
		int cap = c->capseen ? 2 * c->capseen : 64;
		uint64_t *n = calloc((size_t)cap, sizeof *n);
		if (!n)
			abort();
		for (int i = 0; i < c->capseen; i++)
			if (c->seen[i]) {
				int j = (int)(c->seen[i] & (uint64_t)(cap - 1));
				while (n[j])
					j = (j + 1) & (cap - 1);
				n[j] = c->seen[i];
			}
		free(c->seen);
		c->seen = n;
		c->capseen = cap;
	}
	int j = (int)(h & (uint64_t)(c->capseen - 1));
	for (; c->seen[j]; j = (j + 1) & (c->capseen - 1))
		if (c->seen[j] == h)
			return -1;                       /* the same diagnostic again (an operand used twice, ...) */
	c->seen[j] = h;
	c->nseen++;
	c->errors++;
	tsr_diag_error(c->diag, loc.file, (unsigned)(loc.line > 0 ? loc.line : 0), (unsigned)(loc.col > 0 ? loc.col : 0),
	               "%s", msg);
	return -1;
}

void mdl_pctx_fini(struct mdl_pctx *c)
{
	free(c->seen);
	c->seen = NULL;
	c->nseen = c->capseen = 0;
}

/* ---- lists and names ---- */
void ast_push(struct tsr_arena *a, struct ast_vec *v, void *x)
{
	if (v->n == v->cap) {
		int cap = v->cap ? 2 * v->cap : 4;
		void **n = tsr_arena_alloc(a, (size_t)cap * sizeof *n);
		if (v->n)
			memcpy(n, v->v, (size_t)v->n * sizeof *n);
		v->v = n;
		v->cap = cap;
	}
	v->v[v->n++] = x;
}

struct ast_vec *ast_vec1(struct mdl_pctx *c, void *x)
{
	struct ast_vec *v = tsr_arena_alloc(c->arena, sizeof *v);
	if (x)
		ast_push(c->arena, v, x);
	return v;
}

struct ast_vec *ast_vadd(struct mdl_pctx *c, struct ast_vec *v, void *x)
{
	ast_push(c->arena, v, x);
	return v;
}

struct ast_name ast_name(struct mdl_tok t)
{
	return (struct ast_name){ t.s, t.loc };
}

struct ast_name *ast_pname(struct mdl_pctx *c, struct ast_name n)
{
	struct ast_name *p = tsr_arena_alloc(c->arena, sizeof *p);
	*p = n;
	return p;
}

struct ast_str ast_str(struct mdl_tok t)
{
	return (struct ast_str){ t.s ? t.s : "", t.s ? (t.len ? t.len : (int)strlen(t.s)) : 0, t.cols, t.loc };
}

/* ---- expressions ---- */
static struct ast_expr *enew(struct mdl_pctx *c, enum ast_ekind k, struct mdl_loc loc)
{
	struct ast_expr *e = tsr_arena_alloc(c->arena, sizeof *e);
	e->kind = k;
	e->loc = loc;
	e->depth = 1;
	return e;
}

/* Sets e's depth from its operands. Left-associative chains (1+1+1...) do not grow the parser's stack, so the
 * depth of the tree is bounded here: the checker and the emitters walk expressions recursively. */
static struct ast_expr *deep(struct mdl_pctx *c, struct ast_expr *e)
{
	int d = 0;
	for (int i = 0; i < 3; i++)
		if (e->a[i] && e->a[i]->depth > d)
			d = e->a[i]->depth;
	for (int i = 0; i < e->args.n; i++)
		if (((struct ast_expr *)e->args.v[i])->depth > d)
			d = ((struct ast_expr *)e->args.v[i])->depth;
	e->depth = d + 1;
	if (e->depth > MDL_MAX_DEPTH) {
		if (!c->too_deep)
			mdl_error(c, e->loc, "expression nested too deeply (more than %d levels)", MDL_MAX_DEPTH);
		c->too_deep = true;
		c->errors++;             /* every later one counts too, though reported once */
		e->depth = 1;
		e->a[0] = e->a[1] = e->a[2] = NULL;
		e->args.n = 0;
		e->kind = AE_INT;
	}
	return e;
}

struct ast_expr *ast_int(struct mdl_pctx *c, struct mdl_tok t)
{
	struct ast_expr *e = enew(c, AE_INT, t.loc);
	e->ival = t.ival;
	return e;
}

struct ast_expr *ast_float(struct mdl_pctx *c, struct mdl_tok t)
{
	struct ast_expr *e = enew(c, AE_FLOAT, t.loc);
	e->fval = t.fval;
	return e;
}

struct ast_expr *ast_ename(struct mdl_pctx *c, struct ast_name n)
{
	struct ast_expr *e = enew(c, AE_NAME, n.loc);
	e->name = n.s;
	return e;
}

struct ast_expr *ast_index(struct mdl_pctx *c, struct ast_name n, struct ast_expr *i)
{
	struct ast_expr *e = enew(c, AE_INDEX, n.loc);
	e->name = n.s;
	e->a[0] = i;
	return deep(c, e);
}

struct ast_expr *ast_slice(struct mdl_pctx *c, struct ast_name n, struct ast_expr *hi, struct ast_expr *lo)
{
	struct ast_expr *e = enew(c, AE_INDEX, n.loc);
	e->name = n.s;
	e->a[0] = hi;
	e->a[1] = lo;
	return deep(c, e);
}

struct ast_expr *ast_call(struct mdl_pctx *c, struct ast_name n, struct ast_vec *args)
{
	struct ast_expr *e = enew(c, AE_CALL, n.loc);
	e->name = n.s;
	e->args = *args;
	return deep(c, e);
}

struct ast_expr *ast_un(struct mdl_pctx *c, struct mdl_tok op, int opc, struct ast_expr *a)
{
	struct ast_expr *e = enew(c, AE_UN, op.loc);
	e->op = opc;
	e->a[0] = a;
	return deep(c, e);
}

struct ast_expr *ast_bin(struct mdl_pctx *c, struct mdl_tok op, int opc, struct ast_expr *a, struct ast_expr *b)
{
	struct ast_expr *e = enew(c, AE_BIN, op.loc);
	e->op = opc;
	e->a[0] = a;
	e->a[1] = b;
	return deep(c, e);
}

struct ast_expr *ast_cond(struct mdl_pctx *c, struct mdl_tok q, struct ast_expr *a, struct ast_expr *b,
                          struct ast_expr *d)
{
	struct ast_expr *e = enew(c, AE_COND, q.loc);
	e->a[0] = a;
	e->a[1] = b;
	e->a[2] = d;
	return deep(c, e);
}

/* ---- statements ---- */
static struct ast_stmt *snew(struct mdl_pctx *c, enum ast_skind k, struct mdl_loc loc)
{
	struct ast_stmt *s = tsr_arena_alloc(c->arena, sizeof *s);
	s->kind = k;
	s->loc = loc;
	return s;
}

struct ast_stmt *ast_let(struct mdl_pctx *c, struct mdl_tok kw, struct ast_name n, struct ast_expr *e)
{
	struct ast_stmt *s = snew(c, AS_LET, kw.loc);
	s->name = n;
	s->e = e;
	return s;
}

struct ast_stmt *ast_assign(struct mdl_pctx *c, struct ast_name n, struct ast_expr *idx, struct ast_expr *e)
{
	struct ast_stmt *s = snew(c, AS_ASSIGN, n.loc);
	s->name = n;
	s->index = idx;
	s->e = e;
	return s;
}

struct ast_stmt *ast_mask(struct mdl_pctx *c, struct ast_stmt *s, struct ast_expr *m)
{
	(void)c;
	if (s)
		s->mask = m;
	return s;
}

struct ast_stmt *ast_abort(struct mdl_pctx *c, struct mdl_tok kw, struct mdl_tok msg)
{
	struct ast_stmt *s = snew(c, AS_ABORT, kw.loc);
	s->msg = ast_str(msg);
	return s;
}

struct ast_stmt *ast_if(struct mdl_pctx *c, struct mdl_tok kw, struct ast_expr *e, struct ast_stmt *t,
                        struct ast_stmt *el)
{
	struct ast_stmt *s = snew(c, AS_IF, kw.loc);
	s->e = e;
	s->then = t;
	s->els = el;
	return s;
}

struct ast_stmt *ast_hookstmt(struct mdl_pctx *c, struct mdl_tok kw, struct ast_name n, struct ast_vec *args)
{
	struct ast_stmt *s = snew(c, AS_HOOK, kw.loc);
	s->name = n;
	s->args = *args;
	return s;
}

struct ast_stmt *ast_callstmt(struct mdl_pctx *c, struct ast_name n, struct ast_vec *args)
{
	struct ast_stmt *s = snew(c, AS_CALL, n.loc);
	s->name = n;
	s->args = *args;
	return s;
}

struct ast_stmt *ast_block(struct mdl_pctx *c, struct mdl_tok lb, struct ast_vec *body)
{
	struct ast_stmt *s = snew(c, AS_BLOCK, lb.loc);
	s->body = *body;
	return s;
}

/* ---- declarations ---- */
struct ast_decl *ast_decl(struct mdl_pctx *c, enum ast_dkind k, struct mdl_tok kw, struct ast_name n)
{
	struct ast_decl *d = tsr_arena_alloc(c->arena, sizeof *d);
	d->kind = k;
	d->name = n;
	d->loc = kw.loc;
	ast_push(c->arena, &c->decls, d);
	c->cur = d;
	return d;
}

static struct ast_decl *cur(struct mdl_pctx *c, enum ast_dkind k)
{
	return c->cur && c->cur->kind == k ? c->cur : NULL;
}

void ast_field(struct mdl_pctx *c, struct mdl_tok kw, struct ast_name n, struct ast_vec *pieces, bool is_signed,
               const struct ast_fprint *print)
{
	static const struct { const char *s; int kind; } kinds[] = {
		{ "hex", MDL_PRINT_HEX }, { "signed", MDL_PRINT_SIGNED }, { "unsigned", MDL_PRINT_UNSIGNED },
		{ "float", MDL_PRINT_FLOAT },
	};
	struct ast_decl *d = ast_decl(c, AD_FIELD, kw, n);
	d->pieces = *pieces;
	d->is_signed = is_signed;
	d->print = MDL_PRINT_DEFAULT;
	if (!print->present)
		return;
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (strcmp(print->kind.s, kinds[i].s) == 0) {
			d->print = kinds[i].kind;
			return;
		}
	mdl_error(c, print->kind.loc, "unknown print format '%s' for field '%s' (hex, signed, unsigned or float)",
	          print->kind.s, n.s);
}

void ast_format(struct mdl_pctx *c, struct mdl_tok kw, struct ast_name n, struct ast_expr *selector)
{
	ast_decl(c, AD_FORMAT, kw, n)->expr = selector;
}

void ast_slot(struct mdl_pctx *c, struct mdl_tok kw, struct ast_name n, struct ast_name dflt, struct ast_stmt *commit)
{
	struct ast_decl *d = ast_decl(c, AD_SLOT, kw, n);
	d->ref = dflt;
	if (commit) {
		d->has_commit = true;
		d->commit = commit->body;
	}
}

void ast_slot_aliases(struct mdl_pctx *c, struct ast_vec *aliases)
{
	struct ast_decl *d = cur(c, AD_SLOT);
	if (d && aliases)
		d->aliases = *aliases;
}

struct ast_alias *ast_alias(struct mdl_pctx *c, struct ast_name alias, struct ast_name field)
{
	struct ast_alias *a = tsr_arena_alloc(c->arena, sizeof *a);
	a->alias = alias;
	a->field = field;
	return a;
}

struct ast_alias *ast_alias_const(struct mdl_pctx *c, struct ast_name alias, struct mdl_tok v)
{
	struct ast_alias *a = tsr_arena_alloc(c->arena, sizeof *a);
	a->alias = alias;
	a->field = (struct ast_name){ NULL, v.loc };
	a->is_const = true;
	if (v.ival > 0xffffffffu)
		mdl_error(c, v.loc, "alias '%s' = %llu does not fit 32 bits", alias.s, (unsigned long long)v.ival);
	a->val = (int64_t)v.ival;
	return a;
}

void ast_field_composite(struct mdl_pctx *c, struct ast_vec *cpieces)
{
	struct ast_decl *d = cur(c, AD_FIELD);
	if (d && cpieces)
		d->cpieces = *cpieces;
}

struct ast_cpiece *ast_cpiece(struct mdl_pctx *c, struct ast_name g, struct mdl_tok *hi, struct mdl_tok *lo, bool inv,
                              struct mdl_loc loc)
{
	struct ast_cpiece *p = tsr_arena_alloc(c->arena, sizeof *p);
	p->field = g;
	p->inverted = inv;
	p->loc = loc;
	if (hi) {
		p->slice = true;
		p->hi = hi->ival > 1000000 ? 1000000 : (int64_t)hi->ival;
		p->lo = lo ? (lo->ival > 1000000 ? 1000000 : (int64_t)lo->ival) : p->hi;
	}
	return p;
}

void ast_op_slots(struct mdl_pctx *c, struct ast_name first, struct ast_vec *rest)
{
	struct ast_decl *d = cur(c, AD_OP);
	if (!d)
		return;
	ast_push(c->arena, &d->oslots, ast_pname(c, first));
	for (int i = 0; rest && i < rest->n; i++)
		ast_push(c->arena, &d->oslots, rest->v[i]);
}

void ast_op_wide(struct mdl_pctx *c)
{
	struct ast_decl *d = cur(c, AD_OP);
	if (d)
		d->wide = true;
}

void ast_operand(struct mdl_pctx *c, struct mdl_tok kw, struct ast_name n, struct ast_vec *params)
{
	ast_decl(c, AD_OPERAND, kw, n)->params = *params;
}

void ast_op(struct mdl_pctx *c, struct mdl_tok kw, struct ast_name n, struct ast_name slot, struct ast_vec *attrs)
{
	struct ast_decl *d = ast_decl(c, AD_OP, kw, n);
	d->ref = slot;
	d->names = *attrs;
}

void ast_state(struct mdl_pctx *c, struct mdl_tok kw, struct ast_name n, struct ast_name type)
{
	ast_decl(c, AD_STATE, kw, n)->ref = type;
}

void ast_asm(struct mdl_pctx *c, struct mdl_tok kw)
{
	if (c->nasm++)
		mdl_error(c, kw.loc, "a second 'asm' block (the first is at %s:%d:%d)", c->asm_loc.file, c->asm_loc.line,
		          c->asm_loc.col);
	else
		c->asm_loc = kw.loc;
	c->cur = NULL;
}

void ast_asm_item(struct mdl_pctx *c, struct ast_name key, struct ast_vec *args)
{
	struct ast_asmitem *it = tsr_arena_alloc(c->arena, sizeof *it);
	it->key = key;
	it->args = *args;
	ast_push(c->arena, &c->asm_items, it);
}

struct ast_asmarg *ast_asmarg(struct mdl_pctx *c, const struct ast_name *n, const struct mdl_tok *s)
{
	struct ast_asmarg *a = tsr_arena_alloc(c->arena, sizeof *a);
	memset(a, 0, sizeof *a);
	if (n) {
		a->name = *n;
	} else {
		a->str = true;
		a->s = ast_str(*s);
		a->name.loc = s->loc;
	}
	return a;
}

struct ast_sattrs ast_sattrs_join(struct mdl_pctx *c, struct ast_sattrs a, struct ast_sattrs b)
{
	if (b.output) {
		if (a.output)
			mdl_error(c, b.output_loc, "'output' given twice");
		a.output = true;
		a.output_loc = b.output_loc;
	}
	if (b.print) {
		if (a.print)
			mdl_error(c, b.kind.loc, "'print' given twice");
		a.print = true;
		a.kind = b.kind;
	}
	return a;
}

void ast_state_attrs(struct mdl_pctx *c, const struct ast_sattrs *a)
{
	struct ast_decl *d = c->cur;
	if (!d || (d->kind != AD_STATE && d->kind != AD_REGFILE && d->kind != AD_SPACE))
		return;
	d->output = a->output;
	d->sprint = MDL_PRINT_DEFAULT;
	if (!a->print)
		return;
	if (d->kind == AD_SPACE)
		mdl_error(c, a->kind.loc, "'print' is not an attribute of a space (its values are its targets')");
	else if (!strcmp(a->kind.s, "hex"))
		d->sprint = MDL_PRINT_HEX;
	else if (!strcmp(a->kind.s, "float"))
		d->sprint = MDL_PRINT_FLOAT;
	else
		mdl_error(c, a->kind.loc, "unknown print format '%s' for '%s' (hex or float)", a->kind.s, d->name.s);
}

static int64_t clamp(uint64_t v)
{
	return v > (uint64_t)1 << 40 ? (int64_t)1 << 40 : (int64_t)v;
}

void ast_regfile(struct mdl_pctx *c, struct mdl_tok kw, struct ast_name n, struct mdl_tok count, struct ast_name type,
                 struct ast_expr *latency)
{
	struct ast_decl *d = ast_decl(c, AD_REGFILE, kw, n);
	d->count = count.ival;
	d->ref = type;
	if (latency) {
		d->has_latency = true;
		d->latency = clamp(latency->ival);
	}
}

void ast_guard(struct mdl_pctx *c, struct mdl_tok kw, struct ast_name n, struct ast_expr *elem, struct ast_name hook)
{
	struct ast_decl *d = ast_decl(c, AD_GUARD, kw, n);
	d->expr = elem;
	d->ref = hook;
}

void ast_space(struct mdl_pctx *c, struct mdl_tok kw, struct ast_name n, struct mdl_tok count)
{
	ast_decl(c, AD_SPACE, kw, n)->count = count.ival;
}

void ast_func(struct mdl_pctx *c, struct mdl_tok kw, struct ast_name n, struct ast_vec *params, struct ast_expr *body)
{
	struct ast_decl *d = ast_decl(c, AD_FUNC, kw, n);
	d->params = *params;
	d->expr = body;
}

void ast_hookdecl(struct mdl_pctx *c, struct mdl_tok kw, struct ast_name n, struct ast_vec *params, bool returns)
{
	struct ast_decl *d = ast_decl(c, AD_HOOK, kw, n);
	d->params = *params;
	d->returns = returns;
}

/* ---- items ---- */
void ast_isa_item(struct mdl_pctx *c, struct ast_name key, struct mdl_tok *ival, struct ast_name *sval)
{
	struct ast_decl *d = cur(c, AD_ISA);
	if (!d)
		return;
	struct ast_isaitem *it = tsr_arena_alloc(c->arena, sizeof *it);
	it->key = key;
	it->loc = key.loc;
	if (ival) {
		it->is_int = true;
		it->ival = ival->ival;
	} else {
		it->sval = *sval;
	}
	ast_push(c->arena, &d->items, it);
}

struct ast_piece *ast_piece(struct mdl_pctx *c, struct mdl_tok hi, struct mdl_tok *lo, bool inv, struct mdl_loc loc)
{
	struct ast_piece *p = tsr_arena_alloc(c->arena, sizeof *p);
	p->hi = clamp(hi.ival);
	p->lo = lo ? clamp(lo->ival) : p->hi;
	p->inverted = inv;
	p->loc = loc;
	return p;
}

struct ast_range *ast_range(struct mdl_pctx *c, struct mdl_tok lo, struct mdl_tok *hi)
{
	struct ast_range *r = tsr_arena_alloc(c->arena, sizeof *r);
	r->lo = clamp(lo.ival);
	r->hi = hi ? clamp(hi->ival) : r->lo;
	r->loc = lo.loc;
	return r;
}

struct ast_tname *ast_tname(struct mdl_pctx *c, struct mdl_tok s, struct mdl_tok *lo, struct mdl_tok *hi)
{
	struct ast_tname *n = tsr_arena_alloc(c->arena, sizeof *n);
	n->str = ast_str(s);
	if (lo) {
		n->range = true;
		n->lo = clamp(lo->ival);
		n->hi = clamp(hi->ival);
	}
	return n;
}

void ast_tentry_names(struct mdl_pctx *c, struct ast_vec *names, struct ast_expr *code)
{
	struct ast_decl *d = cur(c, AD_TABLE);
	if (!d)
		return;
	struct ast_tentry *e = tsr_arena_alloc(c->arena, sizeof *e);
	e->names = *names;
	e->code = code;
	e->loc = ((struct ast_tname *)names->v[0])->str.loc;
	ast_push(c->arena, &d->items, e);
}

void ast_tentry_num(struct mdl_pctx *c, struct ast_vec *codes, struct ast_expr *value)
{
	struct ast_decl *d = cur(c, AD_TABLE);
	if (!d)
		return;
	struct ast_tentry *e = tsr_arena_alloc(c->arena, sizeof *e);
	e->numeric = true;
	e->codes = *codes;
	e->value = value;
	e->loc = ((struct ast_range *)codes->v[0])->loc;
	ast_push(c->arena, &d->items, e);
}

void ast_format_item(struct mdl_pctx *c, int what, struct ast_vec *v)
{
	struct ast_decl *d = cur(c, AD_FORMAT);
	if (!d)
		return;
	struct ast_vec *to = what == 'f' ? &d->names : what == 'i' ? &d->pieces : &d->slots;
	for (int i = 0; i < v->n; i++)
		ast_push(c->arena, to, v->v[i]);
}

void ast_default(struct mdl_pctx *c, struct ast_name f, struct ast_expr *e)
{
	struct ast_decl *d = c->cur && (c->cur->kind == AD_FORMAT || c->cur->kind == AD_OP) ? c->cur : NULL;
	if (!d)
		return;
	struct ast_default *df = tsr_arena_alloc(c->arena, sizeof *df);
	df->field = f;
	df->e = e;
	df->loc = f.loc;
	ast_push(c->arena, &d->defaults, df);
}

void ast_sem(struct mdl_pctx *c, bool commit, struct ast_vec *stmts, struct mdl_tok kw)
{
	struct ast_decl *d = c->cur && (c->cur->kind == AD_FORMAT || c->cur->kind == AD_OP) ? c->cur : NULL;
	if (!d)
		return;
	if (commit ? d->has_commit : d->has_sem)
		mdl_error(c, kw.loc, "second '%s' in %s '%s'", commit ? "commit" : "sem",
		          d->kind == AD_OP ? "op" : "format", d->name.s);
	struct ast_vec *to = commit ? &d->commit : &d->sem;
	for (int i = 0; i < stmts->n; i++)
		ast_push(c->arena, to, stmts->v[i]);
	if (commit)
		d->has_commit = true;
	else
		d->has_sem = true;
}

void ast_op_syntax(struct mdl_pctx *c, struct mdl_tok s)
{
	struct ast_decl *d = cur(c, AD_OP);
	if (!d)
		return;
	if (d->has_syntax)
		mdl_error(c, s.loc, "second 'syntax' in op '%s'", d->name.s);
	d->has_syntax = true;
	d->syntax = ast_str(s);
}

void ast_op_encode(struct mdl_pctx *c, struct ast_vec *conds)
{
	struct ast_decl *d = cur(c, AD_OP);
	if (!d)
		return;
	for (int i = 0; i < conds->n; i++)
		ast_push(c->arena, &d->conds, conds->v[i]);
}

void ast_alt(struct mdl_pctx *c, struct mdl_tok s, struct ast_vec *conds, struct ast_expr *read, struct ast_expr *place)
{
	struct ast_decl *d = cur(c, AD_OPERAND);
	if (!d)
		return;
	struct ast_alt *a = tsr_arena_alloc(c->arena, sizeof *a);
	a->tmpl = ast_str(s);
	a->conds = *conds;
	a->read = read;
	a->write = place;
	a->loc = s.loc;
	ast_push(c->arena, &d->items, a);
}

void ast_sentry(struct mdl_pctx *c, struct ast_vec *codes, bool write, enum ast_sekind k, struct ast_expr *place,
                struct ast_expr *value, struct ast_name *hook, struct ast_vec *args)
{
	struct ast_decl *d = cur(c, AD_SPACE);
	if (!d)
		return;
	struct ast_sentry *e = tsr_arena_alloc(c->arena, sizeof *e);
	e->codes = *codes;
	e->write = write;
	e->kind = k;
	e->place = place;
	e->value = value;
	if (hook)
		e->hook = *hook;
	if (args)
		e->args = *args;
	e->loc = ((struct ast_range *)codes->v[0])->loc;
	ast_push(c->arena, &d->items, e);
}

/* ---- resources, events, rules and uses (docs/mdl.md "Resources and hazards") ---- */
void ast_resource(struct mdl_pctx *c, struct mdl_tok kw, struct ast_name n, struct mdl_tok *count, struct mdl_tok *ref)
{
	struct ast_decl *d = ast_decl(c, AD_RESOURCE, kw, n);
	d->rlo = count ? clamp(count->ival) : -1;   /* -1: no `count` (1 unit) */
	if (ref) {
		d->has_ref = true;
		d->refstr = ast_str(*ref);
	}
}

void ast_event(struct mdl_pctx *c, struct mdl_tok kw, struct ast_name n, struct ast_vec *pat)
{
	struct ast_decl *d = ast_decl(c, AD_EVENT, kw, n);
	ast_push(c->arena, &d->pats, pat);
}

void ast_rule(struct mdl_pctx *c, struct mdl_tok kw, struct ast_name n, enum ast_rkind kind, struct ast_vec *pats,
              bool same, struct mdl_tok *lo, struct mdl_tok *hi, struct mdl_tok *ref)
{
	struct ast_decl *d = ast_decl(c, AD_RULE, kw, n);
	d->rkind = kind;
	d->pats = *pats;
	d->same = same;
	d->rlo = lo ? clamp(lo->ival) : 0;
	d->has_max = hi != NULL;
	d->rhi = hi ? clamp(hi->ival) : -1;
	if (ref) {
		d->has_ref = true;
		d->refstr = ast_str(*ref);
	}
}

struct ast_use *ast_use(struct mdl_pctx *c, struct ast_name res, struct ast_expr *value)
{
	struct ast_use *u = tsr_arena_alloc(c->arena, sizeof *u);
	u->res = res;
	u->value = value;
	u->loc = res.loc;
	return u;
}

struct ast_evterm *ast_evterm(struct mdl_pctx *c, enum ast_evkind k, struct mdl_tok kw, struct ast_name *name,
                              struct ast_vec *codes, struct ast_vec *group)
{
	struct ast_evterm *t = tsr_arena_alloc(c->arena, sizeof *t);
	t->kind = k;
	t->loc = name && k == AEV_NAMED ? name->loc : kw.loc;
	if (name)
		t->name = *name;
	if (codes) {
		t->has_codes = true;
		t->codes = *codes;
	}
	t->group = group;
	return t;
}

struct ast_evterm *ast_evmod(struct mdl_pctx *c, struct ast_evterm *t, struct ast_vec *slots, struct ast_expr *cond,
                             bool conditional)
{
	for (int i = 0; slots && i < slots->n; i++)
		ast_push(c->arena, &t->slots, slots->v[i]);
	if (cond)
		ast_push(c->arena, &t->conds, cond);
	t->conditional |= conditional;
	return t;
}

void ast_uses_item(struct mdl_pctx *c, struct ast_vec *uses)
{
	struct ast_decl *d = c->cur && (c->cur->kind == AD_FORMAT || c->cur->kind == AD_OP) ? c->cur : NULL;
	if (!d)
		return;
	for (int i = 0; i < uses->n; i++)
		ast_push(c->arena, &d->uses, uses->v[i]);
}

void ast_alt_mask(struct mdl_pctx *c, struct ast_expr *m)
{
	struct ast_decl *d = cur(c, AD_OPERAND);
	if (!d || !d->items.n)
		return;
	((struct ast_alt *)d->items.v[d->items.n - 1])->wmask = m;
}

void ast_alt_uses(struct mdl_pctx *c, struct ast_vec *uses)
{
	struct ast_decl *d = cur(c, AD_OPERAND);
	if (!d || !uses || !d->items.n)
		return;
	struct ast_alt *a = d->items.v[d->items.n - 1];
	for (int i = 0; i < uses->n; i++)
		ast_push(c->arena, &a->uses, uses->v[i]);
}

void ast_sentry_uses(struct mdl_pctx *c, struct ast_vec *uses)
{
	struct ast_decl *d = cur(c, AD_SPACE);
	if (!d || !uses || !d->items.n)
		return;
	struct ast_sentry *e = d->items.v[d->items.n - 1];
	for (int i = 0; i < uses->n; i++)
		ast_push(c->arena, &e->uses, uses->v[i]);
}

/* ---- (addition) X6 forwards ---- */
struct ast_expr *ast_age(struct mdl_pctx *c, struct ast_expr *e, struct mdl_tok age)
{
	(void)c;
	if (e) {
		e->has_age = true;
		e->age = age.ival > 1000000 ? 1000000 : (int64_t)age.ival;
		e->age_loc = age.loc;
	}
	return e;
}

struct ast_stmt *ast_ages(struct mdl_pctx *c, struct ast_stmt *s, struct mdl_tok lo, struct mdl_tok hi)
{
	(void)c;
	if (s) {
		s->has_ages = true;
		s->ages_lo = lo.ival > 1000000 ? 1000000 : (int64_t)lo.ival;
		s->ages_hi = hi.ival > 1000000 ? 1000000 : (int64_t)hi.ival;
		s->ages_loc = lo.loc;
	}
	return s;
}

struct ast_fwdname *ast_fwdname(struct mdl_pctx *c, struct ast_name n, struct mdl_tok *count)
{
	struct ast_fwdname *f = tsr_arena_alloc(c->arena, sizeof *f);
	f->name = n;
	if (count) {
		f->indexed = true;
		f->count = count->ival;
		f->count_loc = count->loc;
	}
	return f;
}

void ast_forward(struct mdl_pctx *c, struct mdl_tok kw, struct ast_vec *names, struct ast_name type, struct mdl_tok lo,
                 struct mdl_tok hi)
{
	for (int i = 0; i < names->n; i++) {
		const struct ast_fwdname *f = names->v[i];
		struct ast_decl *d = ast_decl(c, AD_FORWARD, kw, f->name);
		d->count = f->indexed ? f->count : 0;
		d->indexed = f->indexed;
		d->ref = type;
		d->rlo = lo.ival > 1000000 ? 1000000 : (int64_t)lo.ival;
		d->rhi = hi.ival > 1000000 ? 1000000 : (int64_t)hi.ival;
	}
	c->cur = NULL;
}
