/* Syntax templates (docs/mdl.md "Syntax templates"): the string of an op's `syntax` or an operand alternative,
 * parsed into parts (mdl_template_parse) and resolved against the description (mdl_template_resolve).
 *
 * Holes: {TABLE:FIELD} {FIELD} {NAME=OPERAND} {NAME=OPERAND(F,...)} {OPERAND} {OPERAND(F,...)}
 * {?'text' COND, ...} {label:FIELD [pcrel N | pcrel next] [unit U]}; `{{` and `}}` are literal braces; a run of white
 * space is one SPACE part. Diagnostics point at the column inside the string (escapes accounted for).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "syntax.h"

enum tp { TP_TEXT, TP_SPACE, TP_TABLE, TP_NAME, TP_OPND, TP_OPT, TP_LABEL };
struct tpart {
	enum tp kind;
	const char *text;                    /* TEXT, SPACE, OPT */
	struct ast_name a, b;                /* TABLE a:b; NAME a; OPND a=b (a.s NULL if unnamed); LABEL b */
	struct ast_vec args;                 /* OPND: ast_name* */
	struct ast_vec *conds;               /* OPT */
	bool pcrel, pcnext; int64_t pcoff; uint32_t unit;   /* LABEL (pcnext: `pcrel next`, resolved with pc_step) */
	bool slice; int64_t shi, slo;        /* (addition) X4: TABLE/NAME field `F[hi:lo]` */
	struct mdl_loc loc;
};
struct ast_tmpl { int n, cap; struct tpart *parts; bool bad; };

struct tp_in {
	struct mdl_pctx *c;
	const struct ast_str *src;
	struct ast_tmpl *t;
	char *text; size_t ntext, captext;   /* literal being collected (malloc'd) */
	int text_start;
};

static int col(const struct tp_in *in, int i)
{
	if (in->src->cols)
		return in->src->cols[i < in->src->len ? i : in->src->len];
	return in->src->loc.col + 1 + i;
}

static struct mdl_loc loc(const struct tp_in *in, int i)
{
	return (struct mdl_loc){ in->src->loc.file, in->src->loc.line, col(in, i) };
}

static int err(struct tp_in *in, int i, const char *msg, const char *arg)
{
	if (arg)
		mdl_error(in->c, loc(in, i), msg, arg);
	else
		mdl_error(in->c, loc(in, i), "%s", msg);
	in->t->bad = true;
	return -1;
}

static struct tpart *add(struct tp_in *in, enum tp kind, int at)
{
	struct ast_tmpl *t = in->t;
	if (t->n == t->cap) {
		int cap = t->cap ? 2 * t->cap : 8;
		struct tpart *n = tsr_arena_alloc(in->c->arena, (size_t)cap * sizeof *n);
		if (t->n)
			memcpy(n, t->parts, (size_t)t->n * sizeof *n);
		t->parts = n;
		t->cap = cap;
	}
	struct tpart *p = &t->parts[t->n++];
	memset(p, 0, sizeof *p);
	p->kind = kind;
	p->loc = loc(in, at);
	return p;
}

static void flush(struct tp_in *in)
{
	if (!in->ntext)
		return;
	add(in, TP_TEXT, in->text_start)->text = tsr_arena_strndup(in->c->arena, in->text, in->ntext);
	in->ntext = 0;
}

static void addch(struct tp_in *in, char ch, int at)
{
	if (!in->ntext)
		in->text_start = at;
	if (in->ntext + 1 >= in->captext) {
		in->captext = in->captext ? 2 * in->captext : 64;
		char *n = realloc(in->text, in->captext);
		if (!n)
			abort();
		in->text = n;
	}
	in->text[in->ntext++] = ch;
}

static bool idstart(char ch) { return isalpha((unsigned char)ch) || ch == '_'; }
static bool idchar(char ch) { return isalnum((unsigned char)ch) || ch == '_'; }

/* An identifier at s[*i] (after blanks), up to end; NULL name after reporting when there is none. */
static struct ast_name ident(struct tp_in *in, int *i, int end)
{
	const char *s = in->src->s;
	while (*i < end && isspace((unsigned char)s[*i]))
		(*i)++;
	struct ast_name n = { NULL, loc(in, *i) };
	if (*i >= end || !idstart(s[*i])) {
		err(in, *i, "expected a name in template hole", NULL);
		return n;
	}
	int b = *i;
	while (*i < end && idchar(s[*i]))
		(*i)++;
	n.s = tsr_intern(in->c->intern, s + b, (size_t)(*i - b));
	while (*i < end && isspace((unsigned char)s[*i]))
		(*i)++;
	return n;
}

/* (addition) X4: an optional slice `[hi:lo]` or `[b]` after a hole's field name at s[*i]. */
static void slice_suffix(struct tp_in *in, struct tpart *p, int *i, int end)
{
	const char *s = in->src->s;
	if (*i >= end || s[*i] != '[')
		return;
	int b = *i;
	char *e;
	char buf[32];
	int n = end - (*i + 1) < 31 ? end - (*i + 1) : 31;
	memcpy(buf, s + *i + 1, (size_t)n);
	buf[n] = 0;
	long long hi = strtoll(buf, &e, 10), lo = hi;
	if (e == buf || !isdigit((unsigned char)buf[0])) {
		err(in, b, "expected a bit number after '[' in template hole", NULL);
		return;
	}
	if (*e == ':') {
		char *e2;
		lo = strtoll(e + 1, &e2, 10);
		if (e2 == e + 1 || !isdigit((unsigned char)e[1])) {
			err(in, b, "expected a bit number after ':' in template hole", NULL);
			return;
		}
		e = e2;
	}
	if (*e != ']') {
		err(in, b, "expected ']' after a slice in template hole", NULL);
		return;
	}
	p->slice = true;
	p->shi = hi > 1000000 ? 1000000 : hi;
	p->slo = lo > 1000000 ? 1000000 : lo;
	*i += 1 + (int)(e - buf) + 1;
	while (*i < end && isspace((unsigned char)s[*i]))
		(*i)++;
}

static void hole_end(struct tp_in *in, int i, int end)
{
	if (i < end)
		err(in, i, "unexpected text in template hole", NULL);
}

static void hole_opt(struct tp_in *in, int b, int i, int end)
{
	const char *s = in->src->s;
	while (i < end && isspace((unsigned char)s[i]))
		i++;
	if (i >= end || s[i] != '\'') {
		err(in, i, "expected 'text' after '{?' in template", NULL);
		return;
	}
	int t0 = ++i;
	while (i < end && s[i] != '\'')
		i++;
	if (i >= end) {
		err(in, t0 - 1, "unterminated 'text' in template hole", NULL);
		return;
	}
	struct tpart *p = add(in, TP_OPT, b);
	p->text = tsr_arena_strndup(in->c->arena, s + t0, (size_t)(i - t0));
	int c0 = ++i;
	while (i < end && isspace((unsigned char)s[i]))
		i++;
	if (i >= end) {
		err(in, b, "optional text needs a condition", NULL);
		return;
	}
	int len = end - c0;
	int *cols = tsr_arena_alloc(in->c->arena, (size_t)(len + 1) * sizeof *cols);
	for (int j = 0; j <= len; j++)
		cols[j] = col(in, c0 + j);
	char *text = tsr_arena_strndup(in->c->arena, s + c0, (size_t)len);
	p->conds = mdl_parse_conds(in->c, text, (size_t)len, in->src->loc.line, cols);
	if (!p->conds)
		in->t->bad = true;
}

/* Whether s[i..end) starts with the word w (not followed by an identifier character). */
static bool at_word(const char *s, int i, int end, const char *w)
{
	int n = (int)strlen(w);
	return end - i >= n && !strncmp(s + i, w, (size_t)n) && !(i + n < end && idchar(s[i + n]));
}

/* Reads an integer (decimal or 0x hex, optionally signed when neg_ok) at s[*i..end) into *v; false if none. */
static bool label_number(const char *s, int *i, int end, bool neg_ok, long long *v)
{
	bool neg = neg_ok && *i < end && s[*i] == '-';
	if (neg_ok && *i < end && (s[*i] == '-' || s[*i] == '+'))
		(*i)++;
	char buf[32], *e;
	int n = end - *i < 31 ? end - *i : 31;
	memcpy(buf, s + *i, (size_t)n);
	buf[n] = 0;
	if (!isdigit((unsigned char)buf[0]))
		return false;
	long long x = strtoll(buf, &e, 0);
	if (e == buf)
		return false;
	*v = neg ? -x : x;
	*i += (int)(e - buf);
	return true;
}

/* The rest of a label hole after its field: [pcrel N | pcrel next] [unit U] (docs/mdl.md "Syntax templates"). */
static void hole_label(struct tp_in *in, struct tpart *p, int i, int end)
{
	const char *s = in->src->s;
	p->unit = 1;
	if (i < end && at_word(s, i, end, "pcrel")) {
		for (i += 5; i < end && isspace((unsigned char)s[i]);)
			i++;
		long long v;
		if (at_word(s, i, end, "next")) {
			p->pcnext = true;
			p->pcoff = 0;
			i += 4;
		} else if (label_number(s, &i, end, true, &v)) {
			p->pcoff = v;
		} else {
			err(in, i, "expected a number or 'next' after 'pcrel'", NULL);
			return;
		}
		p->pcrel = true;
		while (i < end && isspace((unsigned char)s[i]))
			i++;
	}
	if (i < end && at_word(s, i, end, "unit")) {
		for (i += 4; i < end && isspace((unsigned char)s[i]);)
			i++;
		long long u = 0;
		int b = i;
		if (!label_number(s, &i, end, false, &u) || u < 1 || u > 65536) {
			err(in, b, "expected a unit from 1 to 65536 after 'unit'", NULL);
			return;
		}
		p->unit = (uint32_t)u;
		while (i < end && isspace((unsigned char)s[i]))
			i++;
	}
	if (i < end) {
		err(in, i, p->pcrel || p->unit != 1 ? "unexpected text in label hole"
		                                     : "expected 'pcrel', 'unit' or '}' in label hole", NULL);
		return;
	}
}

/* The hole s[b] == '{' .. s[end] == '}'. */
static void hole(struct tp_in *in, int b, int end)
{
	const char *s = in->src->s;
	int i = b + 1;
	while (i < end && isspace((unsigned char)s[i]))
		i++;
	if (i >= end) {
		err(in, b, "empty hole '{}' in template", NULL);
		return;
	}
	if (s[i] == '?') {
		hole_opt(in, b, i + 1, end);
		return;
	}
	struct ast_name a = ident(in, &i, end);
	if (!a.s)
		return;
	if (i < end && s[i] == ':') {
		i++;
		struct ast_name f = ident(in, &i, end);
		if (!f.s)
			return;
		bool label = !strcmp(a.s, "label");
		struct tpart *p = add(in, label ? TP_LABEL : TP_TABLE, b);
		p->a = a;
		p->b = f;
		if (label) {
			hole_label(in, p, i, end);
		} else {
			slice_suffix(in, p, &i, end);
			hole_end(in, i, end);
		}
		return;
	}
	struct ast_name name = { NULL, a.loc };
	if (i < end && s[i] == '=') {
		i++;
		name = a;
		a = ident(in, &i, end);
		if (!a.s)
			return;
	}
	struct tpart *p = add(in, TP_OPND, b);
	p->a = name;
	p->b = a;
	if (i < end && s[i] == '(') {
		i++;
		while (i < end && isspace((unsigned char)s[i]))
			i++;
		while (i < end && s[i] != ')') {
			struct ast_name f;
			while (i < end && isspace((unsigned char)s[i]))
				i++;
			if (i < end && (s[i] == '-' || isdigit((unsigned char)s[i]))) {
				/* (addition) X8: a constant argument, kept as its text (a name that starts with a digit or '-',
				 * which no field can have); ck_opnd_instance reads its value */
				int b0 = i++;
				while (i < end && (isalnum((unsigned char)s[i]) || s[i] == '_'))
					i++;
				f = (struct ast_name){ tsr_intern(in->c->intern, s + b0, (size_t)(i - b0)), loc(in, b0) };
				while (i < end && isspace((unsigned char)s[i]))
					i++;
			} else {
				f = ident(in, &i, end);
			}
			if (!f.s)
				return;
			struct ast_name *pf = tsr_arena_alloc(in->c->arena, sizeof *pf);
			*pf = f;
			ast_push(in->c->arena, &p->args, pf);
			if (i < end && s[i] == ',')
				i++;
			else if (i < end && s[i] != ')')
				return (void)err(in, i, "expected ',' or ')' in template hole", NULL);
		}
		if (i >= end)
			return (void)err(in, i, "expected ')' in template hole", NULL);
		i++;
		while (i < end && isspace((unsigned char)s[i]))
			i++;
	} else if (!name.s) {
		p->kind = TP_NAME;
		p->a = a;
		slice_suffix(in, p, &i, end);
	}
	hole_end(in, i, end);
}

struct ast_tmpl *mdl_template_parse(struct mdl_pctx *c, const struct ast_str *src)
{
	struct ast_tmpl *t = tsr_arena_alloc(c->arena, sizeof *t);
	struct tp_in in = { c, src, t, NULL, 0, 0, 0 };
	const char *s = src->s;
	int n = src->len;
	for (int i = 0; i < n;) {
		char ch = s[i];
		if (ch == '{' && i + 1 < n && s[i + 1] == '{') {
			addch(&in, '{', i);
			i += 2;
		} else if (ch == '}' && i + 1 < n && s[i + 1] == '}') {
			addch(&in, '}', i);
			i += 2;
		} else if (ch == '{') {
			int j = i + 1;
			while (j < n && s[j] != '}' && s[j] != '{') {
				if (s[j] == '\'')
					for (j++; j < n && s[j] != '\''; j++)
						;
				if (j < n)
					j++;
			}
			if (j >= n || s[j] != '}') {
				err(&in, i, "unbalanced '{' in template", NULL);
				i = j < n ? j : n;
				continue;
			}
			flush(&in);
			hole(&in, i, j);
			i = j + 1;
		} else if (ch == '}') {
			err(&in, i, "unbalanced '}' in template", NULL);
			i++;
		} else if (isspace((unsigned char)ch)) {
			flush(&in);
			add(&in, TP_SPACE, i)->text = " ";
			while (i < n && isspace((unsigned char)s[i]))
				i++;
		} else {
			addch(&in, ch, i);
			i++;
		}
	}
	flush(&in);
	free(in.text);
	return t;
}

/* ---- resolution ---- */
static int field_of(struct ck *k, struct ck_scope *s, const struct ast_name *n)
{
	int f = ck_field_ref(k, s, n->s, n->loc, false);
	if (f == -1)
		mdl_error(k->p, n->loc, "unknown field '%s' in template", n->s);
	return f;
}

static int bind(struct ck *k, struct ck_scope *s, const struct ast_name *n, int opnd)
{
	struct ck_locals *L = s->L;
	int l = ck_local_find(L, n->s);
	if (l >= 0 && L->kinds[l] == LK_OUTPUT && !L->provided[l]) {
		L->kinds[l] = LK_OPND;
		L->locs[l] = n->loc;
	} else {
		bool v4 = false;   /* (X11) an operand that reads a vec4 in some alternative gives a vec4 */
		for (int i = 0; opnd >= 0 && i < k->m->opnds[opnd].nalt; i++)
			v4 = v4 || (k->m->opnds[opnd].alt[i].read && k->m->opnds[opnd].alt[i].read->type == MDL_T_VEC4);
		l = ck_local_add(k, L, n->s, v4 ? MDL_T_VEC4 : MDL_T_U32, LK_OPND, n->loc);
		if (l < 0)
			return -1;
	}
	L->opnd[l] = opnd;
	L->provided[l] = true;
	return l;
}

int mdl_template_resolve(struct ck *k, struct ck_scope *s, const struct ast_str *src, const struct ast_tmpl *t,
                         bool allow_opnd, struct mdl_template *out)
{
	int bad = t->bad ? -1 : 0;
	struct ck_scope cs = *s;
	cs.allow = CX_FIELDS;
	cs.what = "a template condition";
	cs.L = NULL;
	out->src = ck_intern(k, src->s);
	out->loc = src->loc;
	out->nparts = t->n;
	out->parts = tsr_arena_alloc(k->A, (size_t)(t->n ? t->n : 1) * sizeof *out->parts);
	for (int i = 0; i < t->n; i++) {
		const struct tpart *p = &t->parts[i];
		struct mdl_tpart *q = &out->parts[i];
		q->loc = p->loc;
		q->table = q->field = q->opnd = q->local = -1;
		switch (p->kind) {
		case TP_TEXT: case TP_SPACE:
			q->kind = p->kind == TP_TEXT ? MDL_TP_TEXT : MDL_TP_SPACE;
			q->text = ck_intern(k, p->text);
			break;
		case TP_TABLE: {
			q->kind = MDL_TP_TABLE;
			struct ck_sym *y = ck_lookup(k, NS_TABLE, p->a.s);
			if (!y) {
				mdl_error(k->p, p->a.loc, "unknown table '%s' in template", p->a.s);
				bad = -1;
			} else {
				q->table = y->index;
			}
			q->field = field_of(k, s, &p->b);
			if (q->field >= 0 && p->slice)
				q->field = ck_slice_field(k, q->field, p->shi, p->slo, p->b.loc);
			if (q->field < 0)
				bad = -1;
			if (q->table >= 0 && q->field >= 0) {
				k->tuses = ck_grow(k, k->tuses, k->ntuses, &k->captuses, sizeof *k->tuses);
				k->tuses[k->ntuses++] = (struct ck_table_use){ q->table, q->field, p->a.loc };
			}
			break;
		}
		case TP_LABEL:
			q->kind = MDL_TP_LABEL;
			q->pcrel = p->pcrel;
			q->pcoff = p->pcnext ? k->m->pc_step : p->pcoff;   /* `pcrel next`: the following instruction */
			q->unit = p->unit;
			if ((q->field = field_of(k, s, &p->b)) < 0)
				bad = -1;
			break;
		case TP_OPT:
			q->kind = MDL_TP_OPT;
			q->text = ck_intern(k, p->text);
			if (!p->conds || (q->ncond = ck_conds(k, &cs, p->conds, &q->cond)) < 0) {
				q->ncond = 0;
				bad = -1;
			}
			break;
		case TP_NAME:
			q->kind = MDL_TP_INT;
			q->field = ck_field_ref(k, s, p->a.s, p->a.loc, false);
			if (q->field >= 0 && p->slice && (q->field = ck_slice_field(k, q->field, p->shi, p->slo, p->a.loc)) < 0)
				q->field = -2;
			if (q->field >= 0)
				break;
			if (q->field == -2) {
				bad = -1;
				break;
			}
			if (s->slot >= 0 && p->a.s == ck_intern(k, "slot") && !ck_lookup(k, NS_OPERAND, p->a.s)) {
				/* (addition) X7: `{slot}` is the name of the op instance's slot, literal text */
				q->kind = MDL_TP_TEXT;
				q->text = k->m->slots[s->slot].name;
				q->field = -1;
				break;
			}
			if (!ck_lookup(k, NS_OPERAND, p->a.s)) {
				mdl_error(k->p, p->a.loc, "unknown field or operand '%s' in template", p->a.s);
				bad = -1;
				break;
			}
			/* an unnamed operand */
			/* fall through */
		case TP_OPND:
			q->kind = MDL_TP_OPND;
			if (!allow_opnd) {
				mdl_error(k->p, p->b.loc, "operand hole '%s' in an operand's template (operands do not nest)", p->b.s);
				bad = -1;
				break;
			}
			if (!ck_lookup(k, NS_OPERAND, p->b.s)) {
				mdl_error(k->p, p->b.loc, "unknown operand '%s' in template", p->b.s);
				bad = -1;
				if (p->kind == TP_OPND && p->a.s)
					q->local = bind(k, s, &p->a, -1);
				break;
			}
			q->opnd = ck_opnd_instance(k, p->b.s, &p->args, s, p->b.loc);
			if (q->opnd < 0)
				bad = -1;   /* the name is still bound (to no operand): no "undefined name" cascade */
			if (p->kind == TP_OPND && p->a.s && (q->local = bind(k, s, &p->a, q->opnd)) < 0)
				bad = -1;
			break;
		}
	}
	/* adjacent literal parts (a `{slot}` beside text) become one, as the parser makes them */
	int n = 0;
	for (int i = 0; i < out->nparts; i++) {
		struct mdl_tpart *q = &out->parts[i];
		if (n && q->kind == MDL_TP_TEXT && out->parts[n - 1].kind == MDL_TP_TEXT) {
			struct mdl_tpart *pr = &out->parts[n - 1];
			size_t la = strlen(pr->text), lb = strlen(q->text);
			char *t = tsr_arena_alloc(k->A, la + lb + 1);
			memcpy(t, pr->text, la);
			memcpy(t + la, q->text, lb + 1);
			pr->text = ck_intern(k, t);
			continue;
		}
		out->parts[n++] = *q;
	}
	out->nparts = n;
	return bad;
}
