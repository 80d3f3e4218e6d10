/* The checker's driver (mdl_check): declares every name, then checks and builds the model section by section
 * (check_enc.c, check_state.c, check_op.c, ...), then the whole-description checks. Every error is reported;
 * the model is valid only if none was.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

/* ---- small helpers ---- */
const char *ck_intern(struct ck *k, const char *s)
{
	return tsr_intern_cstr(k->p->intern, s);
}

void *ck_resize(struct ck *k, void *arr, int n, int cap, size_t elem)
{
	void *a = tsr_arena_alloc(k->A, (size_t)cap * elem);
	if (n > 0)
		memcpy(a, arr, (size_t)n * elem);
	return a;
}

void *ck_grow(struct ck *k, void *arr, int n, int *cap, size_t elem)
{
	if (arr && n < *cap)
		return arr;
	int c = *cap > n ? *cap : n;
	c = c ? 2 * c : 8;
	*cap = c;
	return ck_resize(k, arr, n, c, elem);
}

char *ck_fmt_bits(struct ck *k, const bool *bits, int nbits)
{
	size_t cap = (size_t)nbits * 9 + 1, o = 0;
	char *s = tsr_arena_alloc(k->p->arena, cap);
	for (int hi = nbits - 1; hi >= 0; hi--) {
		if (!bits[hi])
			continue;
		int lo = hi;
		while (lo > 0 && bits[lo - 1])
			lo--;
		if (lo == hi)
			o += (size_t)snprintf(s + o, cap - o, "%s%d", o ? ", " : "", hi);
		else
			o += (size_t)snprintf(s + o, cap - o, "%s%d:%d", o ? ", " : "", hi, lo);
		hi = lo;
	}
	return s;
}

/* ---- symbols: open addressing on (name pointer, namespace) ---- */
static size_t hash(const char *name, int ns)
{
	uint64_t h = (uint64_t)(uintptr_t)name * 0x9e3779b97f4a7c15u + (uint64_t)ns * 0xbf58476d1ce4e5b9u;
	return (size_t)(h ^ (h >> 29));
}

struct ck_sym *ck_lookup(struct ck *k, int ns, const char *name)
{
	if (!k->symcap || !name)
		return NULL;
	for (size_t i = hash(name, ns) & (k->symcap - 1);; i = (i + 1) & (k->symcap - 1)) {
		struct ck_sym *y = &k->syms[i];
		if (!y->name)
			return NULL;
		if (y->name == name && y->ns == ns)
			return y;
	}
}

struct ck_sym *ck_declare(struct ck *k, int ns, int kind, const char *name, int index, struct mdl_loc loc,
                          struct ast_decl *d)
{
	struct ck_sym *old = ck_lookup(k, ns, name);
	if (old) {
		mdl_error(k->p, loc, "'%s' redeclared (first declared at %s:%d:%d)", name, old->loc.file, old->loc.line,
		          old->loc.col);
		return NULL;
	}
	if (2 * (k->nsyms + 1) > k->symcap) {
		size_t cap = k->symcap ? 2 * k->symcap : 256;
		struct ck_sym *n = calloc(cap, sizeof *n), *o = k->syms;
		if (!n)
			abort();
		size_t ocap = k->symcap;
		k->syms = n;
		k->symcap = cap;
		k->nsyms = 0;
		for (size_t i = 0; i < ocap; i++)
			if (o[i].name) {
				size_t j = hash(o[i].name, o[i].ns) & (cap - 1);
				while (n[j].name)
					j = (j + 1) & (cap - 1);
				n[j] = o[i];
				k->nsyms++;
			}
		free(o);
	}
	size_t j = hash(name, ns) & (k->symcap - 1);
	while (k->syms[j].name)
		j = (j + 1) & (k->symcap - 1);
	k->syms[j] = (struct ck_sym){ name, ns, kind, index, loc, d };
	k->nsyms++;
	return &k->syms[j];
}

/* ---- attributes and hooks ---- */
int ck_attr(struct ck *k, const char *name, struct mdl_loc loc, bool declare)
{
	struct mdl_model *m = k->m;
	for (int i = 0; i < m->nattrs; i++)
		if (m->attrs[i] == name)
			return i;
	if (!declare) {
		mdl_error(k->p, loc, "undefined attribute '%s'", name);
		return -1;
	}
	if (m->nattrs == 64) {
		mdl_error(k->p, loc, "more than 64 attributes");
		return -1;
	}
	m->attrs = ck_grow(k, m->attrs, m->nattrs, &k->nattr_cap, sizeof *m->attrs);
	m->attrs[m->nattrs] = name;
	return m->nattrs++;
}

int ck_hook(struct ck *k, const char *name, int nargs, int use, struct mdl_loc loc)
{
	struct mdl_model *m = k->m;
	struct ck_sym *y = ck_lookup(k, NS_HOOK, name);
	if (!y) {
		if (m->nhooks == k->nhook_cap) {
			int cap = k->nhook_cap ? 2 * k->nhook_cap : 8;
			m->hooks = ck_resize(k, m->hooks, m->nhooks, cap, sizeof *m->hooks);
			k->hook_explicit = ck_resize(k, k->hook_explicit, m->nhooks, cap, sizeof *k->hook_explicit);
			k->nhook_cap = cap;
		}
		int i = m->nhooks++;
		m->hooks[i] = (struct mdl_hook){ name, loc, nargs, use == HOOK_READ, use == HOOK_WRITE };
		k->hook_explicit[i] = false;
		ck_declare(k, NS_HOOK, SYM_HOOK, name, i, loc, NULL);
		return i;
	}
	struct mdl_hook *h = &m->hooks[y->index];
	const char *how = k->hook_explicit[y->index] ? "declared" : "first used";
	if (h->nargs != nargs) {
		mdl_error(k->p, loc, "hook '%s' takes %d argument%s (%s at %s:%d:%d)", name, h->nargs, h->nargs == 1 ? "" : "s",
		          how, h->loc.file, h->loc.line, h->loc.col);
		return -1;
	}
	if (use == HOOK_READ && k->hook_explicit[y->index] && !h->returns_value) {
		mdl_error(k->p, loc, "hook '%s' does not return a value (declared at %s:%d:%d without 'returns')", name,
		          h->loc.file, h->loc.line, h->loc.col);
		return -1;
	}
	if ((use == HOOK_READ && h->takes_value) || (use == HOOK_WRITE && h->returns_value)) {
		mdl_error(k->p, loc, "hook '%s' is used both to read and to write (%s at %s:%d:%d)", name, how, h->loc.file,
		          h->loc.line, h->loc.col);
		return -1;
	}
	h->returns_value |= use == HOOK_READ;
	h->takes_value |= use == HOOK_WRITE;
	return y->index;
}

static void hook_decls(struct ck *k)
{
	for (int i = 0; i < k->p->decls.n; i++) {
		struct ast_decl *d = k->p->decls.v[i];
		if (d->kind != AD_HOOK)
			continue;
		if (ck_lookup(k, NS_HOOK, d->name.s)) {
			struct ck_sym *y = ck_lookup(k, NS_HOOK, d->name.s);
			mdl_error(k->p, d->name.loc, "'%s' redeclared (first declared at %s:%d:%d)", d->name.s, y->loc.file,
			          y->loc.line, y->loc.col);
			continue;
		}
		for (int j = 0; j < d->params.n; j++)
			for (int l = 0; l < j; l++)
				if (((struct ast_name *)d->params.v[j])->s == ((struct ast_name *)d->params.v[l])->s)
					mdl_error(k->p, ((struct ast_name *)d->params.v[j])->loc, "parameter '%s' declared twice",
					          ((struct ast_name *)d->params.v[j])->s);
		int h = ck_hook(k, d->name.s, d->params.n, d->returns ? HOOK_READ : HOOK_STMT, d->name.loc);
		k->hook_explicit[h] = true;
	}
}

/* ---- declarations ---- */
static void collect(struct ck *k)
{
	struct mdl_model *m = k->m;
	int n[AD_FORWARD + 1] = { 0 };
	for (int i = 0; i < k->p->decls.n; i++)
		n[((struct ast_decl *)k->p->decls.v[i])->kind]++;
	m->nfields = n[AD_FIELD];
	m->ntables = n[AD_TABLE];
	m->nformats = n[AD_FORMAT];
	m->nslots = n[AD_SLOT];
	m->nops = n[AD_OP];
	m->nstates = n[AD_STATE] + n[AD_REGFILE];
	m->nspaces = n[AD_SPACE];
	k->nodecl = n[AD_OPERAND];
	k->nfunc = n[AD_FUNC];
#define ARR(p, c) (p = tsr_arena_alloc(k->A, (size_t)((c) + 1) * sizeof *(p)))
	ARR(m->fields, m->nfields);
	ARR(m->tables, m->ntables);
	ARR(m->formats, m->nformats);
	ARR(m->slots, m->nslots);
	ARR(m->ops, m->nops);
	ARR(m->states, m->nstates);
	ARR(m->spaces, m->nspaces);
	ARR(k->fdecl, m->nfields);
	ARR(k->field_bad, m->nfields);
	ARR(k->tdecl, m->ntables);
	ARR(k->formdecl, m->nformats);
	ARR(k->slotdecl, m->nslots);
	ARR(k->opdecl, m->nops);
	ARR(k->sdecl, m->nstates);
	ARR(k->spdecl, m->nspaces);
	ARR(k->odecl, k->nodecl);
	ARR(k->funcdecl, k->nfunc);
	ARR(k->func_busy, k->nfunc);
	ARR(k->func_used, k->nfunc);
	ARR(k->slotinfo, m->nslots);
	m->nfwds = n[AD_FORWARD];   /* (addition) X6 */
	ARR(m->fwds, m->nfwds);
	ARR(k->fwdecl, m->nfwds);
	ARR(k->fwd_read, m->nfwds);
	ARR(k->fwd_written, m->nfwds);
#undef ARR
	int c[AD_FORWARD + 1] = { 0 };
	for (int i = 0; i < k->p->decls.n; i++) {
		struct ast_decl *d = k->p->decls.v[i];
		int idx = c[d->kind]++;
		const char *nm = d->name.s;
		struct mdl_loc l = d->name.loc;
		switch (d->kind) {
		case AD_FIELD:
			k->fdecl[idx] = d;
			m->fields[idx].name = nm;
			m->fields[idx].loc = l;
			ck_declare(k, NS_VALUE, SYM_FIELD, nm, idx, l, d);
			break;
		case AD_STATE: case AD_REGFILE:
			idx = c[AD_STATE] + c[AD_REGFILE] - 1;
			k->sdecl[idx] = d;
			m->states[idx].name = nm;
			m->states[idx].loc = l;
			ck_declare(k, NS_VALUE, SYM_STATE, nm, idx, l, d);
			break;
		case AD_SPACE:
			k->spdecl[idx] = d;
			m->spaces[idx].name = nm;
			m->spaces[idx].loc = l;
			ck_declare(k, NS_VALUE, SYM_SPACE, nm, idx, l, d);
			break;
		case AD_FUNC:
			k->funcdecl[idx] = d;
			ck_declare(k, NS_VALUE, SYM_FUNC, nm, idx, l, d);
			break;
		case AD_TABLE:
			k->tdecl[idx] = d;
			m->tables[idx].name = nm;
			m->tables[idx].loc = l;
			ck_declare(k, NS_TABLE, SYM_TABLE, nm, idx, l, d);
			break;
		case AD_FORMAT:
			k->formdecl[idx] = d;
			m->formats[idx].name = nm;
			m->formats[idx].loc = l;
			ck_declare(k, NS_FORMAT, SYM_FORMAT, nm, idx, l, d);
			break;
		case AD_SLOT:
			k->slotdecl[idx] = d;
			m->slots[idx].name = nm;
			m->slots[idx].loc = l;
			ck_declare(k, NS_SLOT, SYM_SLOT, nm, idx, l, d);
			break;
		case AD_OPERAND:
			k->odecl[idx] = d;
			ck_declare(k, NS_OPERAND, SYM_OPERAND, nm, idx, l, d);
			break;
		case AD_OP:
			k->opdecl[idx] = d;
			m->ops[idx].name = nm;
			m->ops[idx].loc = l;
			break;
		case AD_FORWARD:
			k->fwdecl[idx] = d;
			m->fwds[idx].name = nm;
			m->fwds[idx].loc = l;
			ck_declare(k, NS_VALUE, SYM_FORWARD, nm, idx, l, d);
			break;
		default:
			break;
		}
		if ((d->kind == AD_FIELD || d->kind == AD_STATE || d->kind == AD_REGFILE || d->kind == AD_SPACE ||
		     d->kind == AD_FUNC || d->kind == AD_FORWARD) && ck_reserved_name(nm))
			mdl_error(k->p, l, "'%s' is the name of a built-in function", nm);
	}
}

static void isa(struct ck *k)
{
	struct mdl_model *m = k->m;
	struct ast_decl *d = NULL;
	for (int i = 0; i < k->p->decls.n; i++) {
		struct ast_decl *x = k->p->decls.v[i];
		if (x->kind != AD_ISA)
			continue;
		if (d) {
			mdl_error(k->p, x->loc, "second 'isa' block (first at %s:%d:%d)", d->loc.file, d->loc.line, d->loc.col);
			continue;
		}
		d = x;
	}
	m->lanes = 1;
	m->little_endian = true;
	if (!d) {
		mdl_error(k->p, (struct mdl_loc){ k->p->file, 0, 0 }, "no 'isa' block");
		return;
	}
	m->name = d->name.s;
	m->name_loc = d->name.loc;
	bool has_word = false;
	for (int i = 0; i < d->items.n; i++) {
		struct ast_isaitem *it = d->items.v[i];
		const char *key = it->key.s;
		bool num = !strcmp(key, "word") || !strcmp(key, "lanes") || !strcmp(key, "pc_step");
		bool named = !strcmp(key, "endian") || !strcmp(key, "float") || !strcmp(key, "word_order") ||
		             !strcmp(key, "fall_off");
		if (num != it->is_int || (!num && !named)) {
			if (!num && !named)
				mdl_error(k->p, it->loc,
				          "unknown isa item '%s' (expected word, lanes, endian, word_order, pc_step, float or fall_off)",
				          key);
			else
				mdl_error(k->p, it->loc, "isa item '%s' needs %s", key, num ? "a number" : "a name");
			continue;
		}
		uint64_t v = it->ival;
		if (!strcmp(key, "word")) {
			has_word = true;
			if (v < 32 || v > 1024 || v % 32)
				mdl_error(k->p, it->loc, "word must be a multiple of 32 bits from 32 to 1024");
			else
				m->word_bits = (int)v;
		} else if (!strcmp(key, "lanes")) {
			if (v < 1 || v > 64)
				mdl_error(k->p, it->loc, "lanes must be from 1 to 64");
			else
				m->lanes = (int)v;
		} else if (!strcmp(key, "pc_step")) {
			if (v < 1 || v > 1024)
				mdl_error(k->p, it->loc, "pc_step must be from 1 to 1024");
			else
				m->pc_step = (int)v;
		} else if (!strcmp(key, "endian")) {
			if (!strcmp(it->sval.s, "little") || !strcmp(it->sval.s, "big"))
				m->little_endian = !strcmp(it->sval.s, "little");
			else
				mdl_error(k->p, it->sval.loc, "endian must be little or big");
		} else if (!strcmp(key, "word_order")) {   /* X10: the order of an instruction's 32-bit words in files */
			if (!strcmp(it->sval.s, "lsw_first") || !strcmp(it->sval.s, "msw_first"))
				m->word_msw_first = !strcmp(it->sval.s, "msw_first");
			else
				mdl_error(k->p, it->sval.loc, "word_order must be lsw_first or msw_first");
		} else if (!strcmp(key, "fall_off")) {   /* what running past the last instruction does */
			if (!strcmp(it->sval.s, "error") || !strcmp(it->sval.s, "halt"))
				m->fall_off_halt = !strcmp(it->sval.s, "halt");
			else
				mdl_error(k->p, it->sval.loc, "fall_off must be error or halt");
		} else {
			if (!strcmp(it->sval.s, "ieee") || !strcmp(it->sval.s, "ftz_rtz"))
				m->float_mode = !strcmp(it->sval.s, "ftz_rtz");
			else
				mdl_error(k->p, it->sval.loc, "float must be ieee or ftz_rtz");
		}
	}
	if (!has_word)
		mdl_error(k->p, d->name.loc, "isa '%s' needs 'word'", d->name.s);
	if (!m->pc_step)
		m->pc_step = m->word_bits / 8;
}

/* Funcs that nothing calls are not typed (their argument types are unknown) but their names must resolve. */
static void func_names(struct ck *k, const struct ast_decl *d, const struct ast_expr *a)
{
	if (!a)
		return;
	if (a->kind == AE_NAME || a->kind == AE_INDEX) {
		bool param = false;
		for (int j = 0; j < d->params.n; j++)
			param = param || ((struct ast_name *)d->params.v[j])->s == a->name;
		if (!param && !ck_is_global_value(k, a->name))
			mdl_error(k->p, a->loc, "undefined name '%s'", a->name);
	}
	if (a->kind == AE_CALL) {
		if (!strcmp(a->name, "attr"))
			return;
		if (!ck_lookup(k, NS_VALUE, a->name) && !ck_lookup(k, NS_TABLE, a->name) && !ck_reserved_name(a->name))
			mdl_error(k->p, a->loc, "unknown function '%s'", a->name);
	}
	for (int i = 0; i < 3; i++)
		func_names(k, d, a->a[i]);
	for (int i = 0; i < a->args.n; i++)
		func_names(k, d, a->args.v[i]);
}

static void unused_funcs(struct ck *k)
{
	for (int i = 0; i < k->nfunc; i++) {
		struct ast_decl *d = k->funcdecl[i];
		for (int j = 0; j < d->params.n; j++)
			for (int l = 0; l < j; l++)
				if (((struct ast_name *)d->params.v[j])->s == ((struct ast_name *)d->params.v[l])->s)
					mdl_error(k->p, ((struct ast_name *)d->params.v[j])->loc, "parameter '%s' declared twice",
					          ((struct ast_name *)d->params.v[j])->s);
		if (!k->func_used[i])
			func_names(k, d, d->expr);
	}
}

int mdl_check(struct mdl_pctx *p, struct mdl_model *m)
{
	struct ck k = { 0 };
	k.p = p;
	k.m = m;
	k.A = m->arena;
	k.budget = 2000000;
	m->pc_state = -1;
	ck_expand_ops(p);
	collect(&k);
	isa(&k);
	ck_resources(&k);
	ck_fields(&k);
	ck_composites(&k);
	ck_tables(&k);
	hook_decls(&k);
	ck_states(&k);
	ck_forwards(&k);   /* (addition) X6 */
	ck_spaces(&k);
	ck_asm(&k);   /* (addition) the assembly source's declared syntax (check_asm.c) */
	for (int i = 0; i < m->nops; i++)
		for (int j = 0; j < k.opdecl[i]->names.n; j++) {
			struct ast_name *a = k.opdecl[i]->names.v[j];
			ck_attr(&k, a->s, a->loc, true);
		}
	ck_slots(&k);
	ck_formats(&k);
	ck_ops(&k);
	ck_commits(&k);
	unused_funcs(&k);
	ck_format_layout(&k);
	ck_selectors(&k);
	ck_wide(&k);   /* (addition) X7 wide ops (check_wide.c) */
	ck_op_shapes(&k);   /* (addition) X12 `move` and `commutative` (check_attrs.c) */
	ck_op_duplicates(&k);
	ck_table_ranges(&k);
	ck_rules(&k);
	ck_vec4_final(&k);
	ck_fwd_final(&k);
	struct ck_sym *pc = ck_lookup(&k, NS_VALUE, ck_intern(&k, "pc"));
	if (pc && pc->kind == SYM_STATE && m->states[pc->index].count == 0)
		m->pc_state = pc->index;
	if (k.jump_used && m->pc_state < 0)
		mdl_error(p, k.jump_loc, "'jump' needs a scalar state named 'pc'");
	free(k.syms);
	return p->errors ? -1 : 0;
}
