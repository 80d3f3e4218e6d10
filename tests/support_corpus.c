/* Comparison of our QPU disassembly with the source line Broadcom's assembler left in each corpus
 * word's `//` comment (../shared/corpus/qpu/gpu_fft_r3/hex), allowing for the register aliases and
 * constants the qasm sources define with `.set`.  See corpus_cmp.h. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "support_corpus.h"
#include "fileout.h"

/* ---- aliases from the qasm sources ----------------------------------------------------------------- */

static void add_alias(struct cc_aliases *a, const char *name, size_t nlen, const char *val, size_t vlen)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 256;
		a->name = realloc(a->name, a->cap * sizeof *a->name);
		a->value = realloc(a->value, a->cap * sizeof *a->value);
		if (!a->name || !a->value)
			abort();
	}
	a->name[a->n] = strndup(name, nlen);
	a->value[a->n] = strndup(val, vlen);
	a->n++;
}

int cc_aliases_load(struct cc_aliases *a, const char *dir, const char *file, int depth)
{
	char path[1024];
	struct tsr_buf b = { 0 };
	snprintf(path, sizeof path, "%s/%s", dir, file);
	if (depth > 8 || tsr_file_read(path, &b, NULL))
		return -1;
	tsr_buf_append(&b, "", 1);
	for (char *line = b.data; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		char *p = line;
		while (isspace((unsigned char)*p))
			p++;
		if (!strncmp(p, ".set", 4) && isspace((unsigned char)p[4])) {
			p += 4;
			while (isspace((unsigned char)*p))
				p++;
			char *name = p;
			while (*p && *p != ',' && !isspace((unsigned char)*p))
				p++;
			size_t nlen = (size_t)(p - name);
			while (*p == ',' || isspace((unsigned char)*p))
				p++;
			size_t vlen = strlen(p);
			while (vlen && isspace((unsigned char)p[vlen - 1]))
				vlen--;
			if (nlen && vlen)
				add_alias(a, name, nlen, p, vlen);
		} else if (!strncmp(p, ".include", 8)) {
			char *q1 = strchr(p, '"'), *q2 = q1 ? strchr(q1 + 1, '"') : NULL;
			if (q2) {
				*q2 = 0;
				cc_aliases_load(a, dir, q1 + 1, depth + 1);
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	tsr_buf_free(&b);
	return 0;
}

void cc_aliases_free(struct cc_aliases *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->name[i]), free(a->value[i]);
	free(a->name);
	free(a->value);
	memset(a, 0, sizeof *a);
}

/* ---- constant expressions ------------------------------------------------------------------------ */
/* Broadcom assembler functions used by GPU_FFT, as the VPM/VDW setup words are laid out (facts from
 * targets/qpu/qpu_vpm.c, which cites the reference guide's tables 32-37 and vc4asm's vc4.qinc). */

struct ev { const char *p; const struct cc_aliases *a; int depth; int err; };
static int64_t ev_expr(struct ev *e, int prec);

static void ev_ws(struct ev *e)
{
	while (isspace((unsigned char)*e->p))
		e->p++;
}

static int64_t ev_call(struct ev *e, const char *name, size_t n)
{
	int64_t args[4] = { 0 };
	int na = 0;
	e->p++; /* ( */
	for (;;) {
		ev_ws(e);
		if (*e->p == ')') {
			e->p++;
			break;
		}
		if (na == 4) {
			e->err = 1;
			return 0;
		}
		args[na++] = ev_expr(e, 0);
		ev_ws(e);
		if (*e->p == ',')
			e->p++;
		else if (*e->p != ')') {
			e->err = 1;
			return 0;
		}
	}
#define IS(s, k) (n == sizeof s - 1 && !strncmp(name, s, n) && na == k)
	if (IS("vpm_setup", 3))
		return (args[0] & 0xf) << 20 | (args[1] & 0x3f) << 12 | args[2];
	if (IS("v32", 2))
		return 0x200 | args[0] | args[1];
	if (IS("h32", 1))
		return 0xa00 | args[0];
	if (IS("dma_h32", 2))
		return 0x4000 | args[0] << 7 | args[1] << 3;
	if (IS("dma_v32", 2))
		return args[0] << 7 | args[1] << 3;
	if (IS("vdw_setup_0", 3))
		return (int64_t)0x80000000u | args[0] << 23 | args[1] << 16 | args[2];
	if (IS("vdw_setup_1", 1))
		return (int64_t)0xc0000000u | args[0];
#undef IS
	e->err = 1;
	return 0;
}

static int64_t ev_name(struct ev *e, const char *name, size_t n)
{
	if (e->depth > 16) {
		e->err = 1;
		return 0;
	}
	/* the latest definition that evaluates */
	for (size_t i = e->a->n; i-- > 0;) {
		if (strlen(e->a->name[i]) != n || strncmp(e->a->name[i], name, n))
			continue;
		struct ev sub = { e->a->value[i], e->a, e->depth + 1, 0 };
		int64_t v = ev_expr(&sub, 0);
		ev_ws(&sub);
		if (!sub.err && !*sub.p)
			return v;
	}
	e->err = 1;
	return 0;
}

static int64_t ev_primary(struct ev *e)
{
	ev_ws(e);
	const char *s = e->p;
	if (*s == '(') {
		e->p++;
		int64_t v = ev_expr(e, 0);
		ev_ws(e);
		if (*e->p != ')')
			e->err = 1;
		else
			e->p++;
		return v;
	}
	if (*s == '-' || *s == '~' || *s == '+') {
		e->p++;
		int64_t v = ev_primary(e);
		return *s == '-' ? -v : *s == '~' ? ~v : v;
	}
	if (isdigit((unsigned char)*s)) {
		char *end;
		int64_t v = (int64_t)strtoull(s, &end, 0);
		if (*end == '.') {  /* a float: not compared as an integer */
			e->err = 1;
			return 0;
		}
		e->p = end;
		return v;
	}
	if (isalpha((unsigned char)*s) || *s == '_') {
		while (isalnum((unsigned char)*e->p) || *e->p == '_')
			e->p++;
		size_t n = (size_t)(e->p - s);
		ev_ws(e);
		return *e->p == '(' ? ev_call(e, s, n) : ev_name(e, s, n);
	}
	e->err = 1;
	return 0;
}

static int ev_binop(const char *p, int *len)
{
	static const struct { const char *op; int prec; } ops[] = {
		{ "<<", 5 }, { ">>", 5 }, { "|", 1 }, { "^", 2 }, { "&", 3 }, { "+", 4 }, { "-", 4 },
		{ "*", 6 }, { "/", 6 }, { "%", 6 },
	};
	for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
		if (!strncmp(p, ops[i].op, strlen(ops[i].op))) {
			*len = (int)strlen(ops[i].op);
			return ops[i].prec;
		}
	return -1;
}

static int64_t ev_expr(struct ev *e, int prec)
{
	int64_t v = ev_primary(e);
	for (;;) {
		ev_ws(e);
		int len, p = ev_binop(e->p, &len);
		if (p < 0 || p < prec)
			return v;
		char op = *e->p;
		e->p += len;
		int64_t r = ev_expr(e, p + 1);
		switch (op) {
		case '<': v = r >= 0 && r < 64 ? (int64_t)((uint64_t)v << r) : 0; break;
		case '>': v = r >= 0 && r < 64 ? v >> r : 0; break;
		case '|': v |= r; break;
		case '^': v ^= r; break;
		case '&': v &= r; break;
		case '+': v += r; break;
		case '-': v -= r; break;
		case '*': v *= r; break;
		case '/': if (r) v /= r; else e->err = 1; break;
		case '%': if (r) v %= r; else e->err = 1; break;
		}
	}
}

int cc_eval(const char *s, size_t n, const struct cc_aliases *a, int64_t *out)
{
	char buf[512];
	if (n >= sizeof buf)
		return -1;
	memcpy(buf, s, n);
	buf[n] = 0;
	struct ev e = { buf, a, 0, 0 };
	int64_t v = ev_expr(&e, 0);
	ev_ws(&e);
	if (e.err || *e.p)
		return -1;
	*out = v;
	return 0;
}

/* ---- registers -------------------------------------------------------------------------------- */

static int is_ident(const char *s, size_t n)
{
	if (!n || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return 0;
	return 1;
}

/* Does the source operand text c (an alias, possibly `alias+K`) name our register o? 1 yes, 0 no,
 * -1 cannot tell (a macro parameter). */
static int reg_matches(const char *c, size_t cn, const char *o, size_t on, const struct cc_aliases *a, int depth)
{
	if (cn == on && !strncmp(c, o, cn))
		return 1;
	if (depth > 16)
		return -1;
	/* NAME+K / NAME-K: a register alias plus an offset (GPU_FFT `ra_tw_re+dst`, `ra_64+1`) */
	const char *plus = memchr(c, '+', cn);
	int64_t k = 0;
	size_t base_n = cn;
	if (plus) {
		if (cc_eval(plus + 1, cn - (size_t)(plus + 1 - c), a, &k))
			return -1;
		base_n = (size_t)(plus - c);
		while (base_n && isspace((unsigned char)c[base_n - 1]))
			base_n--;
	}
	if (!is_ident(c, base_n))
		return 0;
	if (k) {
		/* our register must be the base's register number + k */
		char want[32];
		int known = 0;
		for (size_t i = a->n; i-- > 0;) {
			if (strlen(a->name[i]) != base_n || strncmp(a->name[i], c, base_n))
				continue;
			known = 1;
			const char *v = a->value[i];
			if ((v[0] == 'r' && (v[1] == 'a' || v[1] == 'b')) && isdigit((unsigned char)v[2])) {
				snprintf(want, sizeof want, "r%c%ld", v[1], atol(v + 2) + (long)k);
				if (strlen(want) == on && !strncmp(want, o, on))
					return 1;
			}
		}
		return known ? 0 : -1;   /* an unknown base is a macro parameter */
	}
	int found = 0;
	for (size_t i = a->n; i-- > 0;) {
		if (strlen(a->name[i]) != base_n || strncmp(a->name[i], c, base_n))
			continue;
		found = 1;
		const char *v = a->value[i];
		if (reg_matches(v, strlen(v), o, on, a, depth + 1) == 1)
			return 1;
	}
	return found ? 0 : -1;
}

/* Does c (an identifier) name a register, directly or through aliases? */
static int names_register(const char *c, size_t cn, const struct cc_aliases *a, int depth)
{
	if (cn >= 2 && c[0] == 'r' && (isdigit((unsigned char)c[1]) || c[1] == 'a' || c[1] == 'b'))
		return cn == 2 || isdigit((unsigned char)c[2]);
	if (depth > 16 || !is_ident(c, cn))
		return 0;
	for (size_t i = a->n; i-- > 0;)
		if (strlen(a->name[i]) == cn && !strncmp(a->name[i], c, cn) &&
		    names_register(a->value[i], strlen(a->value[i]), a, depth + 1))
			return 1;
	return 0;
}

/* ---- one operand, one word --------------------------------------------------------------------- */

static void trim(const char **s, size_t *n)
{
	while (*n && isspace((unsigned char)**s))
		(*s)++, (*n)--;
	while (*n && isspace((unsigned char)(*s)[*n - 1]))
		(*n)--;
}

/* Splits s[0..n) at top-level occurrences of sep (outside (), []). Returns the count (max 8). */
static int split(const char *s, size_t n, char sep, const char **part, size_t *plen)
{
	int k = 0, depth = 0;
	size_t start = 0;
	for (size_t i = 0; i <= n; i++) {
		char ch = i < n ? s[i] : sep;
		if (ch == '(' || ch == '[')
			depth++;
		else if (ch == ')' || ch == ']')
			depth--;
		else if (ch == sep && depth == 0) {
			if (k == 8)
				return 8;
			part[k] = s + start;
			plen[k] = i - start;
			trim(&part[k], &plen[k]);
			k++;
			start = i + 1;
		}
	}
	return k;
}

/* Position of a top-level rotation `<<` / `>>` in an operand (not inside parentheses), or NULL. */
static const char *find_rot(const char *s, size_t n)
{
	int depth = 0;
	for (size_t i = 0; i + 1 < n; i++) {
		if (s[i] == '(')
			depth++;
		else if (s[i] == ')')
			depth--;
		else if (!depth && ((s[i] == '<' && s[i + 1] == '<') || (s[i] == '>' && s[i + 1] == '>')))
			return s + i;
	}
	return NULL;
}

/* 1 agree, 0 disagree, -1 the source text cannot be resolved (macro parameter / loop variable). */
static int operand_agrees(const char *o, size_t on, const char *c, size_t cn, const struct cc_aliases *a)
{
	if (on == cn && !strncmp(o, c, on))
		return 1;
	const char *ro = find_rot(o, on), *rc = find_rot(c, cn);
	if (ro || rc) {
		if (!ro || !rc)
			return 0;
		int base = operand_agrees(o, (size_t)(ro - o), c, (size_t)(rc - c), a);
		int64_t no, nc;
		/* `x >> n` rotates right by n, `x << n` by 16 - n (../shared/isa/qpu.md "Rotation") */
		if (cc_eval(ro + 2, on - (size_t)(ro + 2 - o), a, &no) || cc_eval(rc + 2, cn - (size_t)(rc + 2 - c), a, &nc))
			return base == 0 ? 0 : -1;
		no = ro[0] == '>' ? no : 16 - no;
		nc = rc[0] == '>' ? nc : 16 - nc;
		return base == 0 ? 0 : ((no - nc) % 16 == 0 ? base : 0);
	}
	/* sacq(n) / srel(n) */
	const char *po = memchr(o, '(', on), *pc = memchr(c, '(', cn);
	if (po && pc && po - o == pc - c && !strncmp(o, c, (size_t)(po - o)) && is_ident(o, (size_t)(po - o)) &&
	    strncmp(o, "vpm_setup", 9) && strncmp(c, "vdw_setup", 9)) {
		int64_t vo, vc;
		if (cc_eval(po + 1, on - (size_t)(po + 1 - o) - 1, a, &vo))
			return 0;
		return cc_eval(pc + 1, cn - (size_t)(pc + 1 - c) - 1, a, &vc) ? -1 : vo == vc;
	}
	/* constants: both evaluate (ldi immediates, small immediates, Broadcom setup-word functions) */
	int64_t vo, vc;
	if (!cc_eval(o, on, a, &vo)) {
		if (cc_eval(c, cn, a, &vc)) {
			/* a register (alias) where we print a constant is a mismatch; anything else that does
			 * not evaluate names a macro parameter or loop variable */
			return names_register(c, cn, a, 0) ? 0 : -1;
		}
		return (uint32_t)vo == (uint32_t)vc;
	}
	/* per-element ldi vectors [a, b, ...]: compare element by element */
	if (o[0] == '[' && c[0] == '[') {
		char so[256], sc[256];
		size_t ko = 0, kc = 0;
		for (size_t i = 0; i < on && ko < 255; i++)
			if (!isspace((unsigned char)o[i]))
				so[ko++] = o[i];
		for (size_t i = 0; i < cn && kc < 255; i++)
			if (!isspace((unsigned char)c[i]))
				sc[kc++] = c[i];
		return ko == kc && !memcmp(so, sc, ko);
	}
	/* registers through aliases; `r:label` / `label` branch targets are labels on both sides */
	if (on > 2 && !strncmp(o, "r:", 2))
		return -1;
	return reg_matches(c, cn, o, on, a, 0);
}

int cc_compare(const char *ours, const char *comment, const struct cc_aliases *a, struct cc_stats *st, char *why,
	       size_t whylen)
{
	const char *po[8], *pc[8];
	size_t lo[8], lc[8];
	size_t on = strlen(ours), cn = strlen(comment);
	const char *brace = memchr(ours, '{', on);
	if (brace) {
		st->overrides++;
		on = (size_t)(brace - ours);
	}
	int no = split(ours, on, ';', po, lo), nc = split(comment, cn, ';', pc, lc);
	/* `nop` parts carry nothing (Broadcom's source writes them or leaves them out) */
	int ko = 0, kc = 0;
	for (int i = 0; i < no; i++)
		if (!(lo[i] == 3 && !strncmp(po[i], "nop", 3)) && lo[i])
			po[ko] = po[i], lo[ko++] = lo[i];
	for (int i = 0; i < nc; i++)
		if (!(lc[i] == 3 && !strncmp(pc[i], "nop", 3)) && lc[i])
			pc[kc] = pc[i], lc[kc++] = lc[i];
	st->words++;
	if (ko != kc) {
		snprintf(why, whylen, "%d parts, source has %d", ko, kc);
		st->mismatches++;
		return 0;
	}
	int unresolved = 0;
	for (int i = 0; i < ko; i++) {
		size_t mo = strcspn(po[i], " \t"), mc = strcspn(pc[i], " \t");
		if (mo > lo[i])
			mo = lo[i];
		if (mc > lc[i])
			mc = lc[i];
		if (mo != mc || strncmp(po[i], pc[i], mo)) {
			snprintf(why, whylen, "mnemonic '%.*s', source '%.*s'", (int)mo, po[i], (int)mc, pc[i]);
			st->mismatches++;
			return 0;
		}
		const char *ao[8], *ac[8];
		size_t alo[8], alc[8];
		int nao = split(po[i] + mo, lo[i] - mo, ',', ao, alo), nac = split(pc[i] + mc, lc[i] - mc, ',', ac, alc);
		if (nao == 1 && !alo[0])
			nao = 0;
		if (nac == 1 && !alc[0])
			nac = 0;
		if (nao != nac) {
			snprintf(why, whylen, "'%.*s': %d operands, source has %d", (int)mo, po[i], nao, nac);
			st->mismatches++;
			return 0;
		}
		for (int j = 0; j < nao; j++) {
			st->operands++;
			int r = operand_agrees(ao[j], alo[j], ac[j], alc[j], a);
			if (r == 0) {
				snprintf(why, whylen, "operand %d of '%.*s': '%.*s', source '%.*s'", j + 1, (int)mo, po[i],
					 (int)alo[j], ao[j], (int)alc[j], ac[j]);
				st->mismatches++;
				return 0;
			}
			if (r < 0) {
				st->unresolved_operands++;
				unresolved = 1;
			}
		}
	}
	if (unresolved)
		st->partly_checked++;
	else
		st->fully_checked++;
	return 1;
}
