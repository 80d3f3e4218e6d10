/* Initial values and printed results of `tessera sim` (tools/sim_values.h: the assignments' syntax; docs/tools.md
 * "sim"), through the target's simulator descriptor alone, for a platform's processors and for the lone processor
 * of tools/sim_generic.c alike. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "progmeta.h"
#include "sim_values.h"

static bool isid(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static size_t blanks(const char *s, size_t i, size_t n)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
		i++;
	return i;
}

static int find_space(const struct tsr_sim_desc *D, const char *s, size_t n)
{
	for (int i = 0; i < D->nspaces; i++)
		if (strlen(D->spaces[i].name) == n && !memcmp(D->spaces[i].name, s, n))
			return i;
	return -1;
}

/* 32-bit values one element of state st holds. */
static size_t elem_values(const struct tsr_sim_desc *D, int st)
{
	return (size_t)(D->state_vec[st] ? D->lanes : 1) * D->state_ncomp[st];
}

/* Parses the assignment [s, s+n) (allow: 1 state, 2 space, 3 either; nprocs:
 * tool_values_options).  Returns 0, or -1 with the message in msg
 * and the byte offset of the error in *at. */
static int parse_assign(const struct tsr_sim_desc *D, const char *s, size_t n, int allow, unsigned nprocs,
			uint64_t bus, struct tool_assign *a, size_t *at, char *msg, size_t msglen)
{
	memset(a, 0, sizeof *a);
	a->elem = -1;
	a->comp = -1;
	a->proc = -1;
	size_t i = blanks(s, 0, n), b = i;
	if ((allow & 2) && bus && i < n && s[i] >= '0' && s[i] <= '9') {   /* ADDR = V,...: the platform's memory */
		size_t e = i;
		while (e < n && isid(s[e]))
			e++;
		size_t q = blanks(s, e, n);
		if (q < n && s[q] == '=') {
			uint32_t addr;
			const char *why;
			if (tool_word32(s + i, e - i, &addr, &why) || addr % 4 || addr >= bus) {
				*at = i;
				snprintf(msg, msglen, "address '%.*s' is not a word of the memory (a multiple of 4, 0..%" PRIu64 ")",
					 (int)(e - i), s + i, bus - 4);
				return -1;
			}
			a->space = a->bus = true;
			a->elem = addr;
			i = q;
		}
	}
	while (!a->bus && nprocs && i < n && s[i] >= '0' && s[i] <= '9')   /* K: (a name never starts with a digit) */
		i++;
	if (i > b && !a->bus) {
		size_t e = i;
		uint32_t k;
		const char *why;
		i = blanks(s, i, n);
		if (i >= n || s[i] != ':' || tool_word32(s + b, e - b, &k, &why) || k >= nprocs) {
			*at = b;
			if (i < n && s[i] == ':')
				snprintf(msg, msglen, "processor '%.*s' is not one of the %u run (0..%u)", (int)(e - b), s + b,
					 nprocs, nprocs - 1);
			else
				snprintf(msg, msglen, "expected a state or space name");
			return -1;
		}
		a->proc = (int)k;
		b = i = blanks(s, i + 1, n);
	}
	while (!a->bus && i < n && isid(s[i]))
		i++;
	if (i == b && !a->bus) {
		*at = b;
		snprintf(msg, msglen, "expected a state or space name");
		return -1;
	}
	size_t nb = b, ne = i;
	i = blanks(s, i, n);
	if (a->bus) {
		/* the address, read above */
	} else if (i < n && s[i] == ':') {   /* SPACE:ADDR */
		a->space = true;
		if (!(allow & 2) || (a->idx = find_space(D, s + nb, ne - nb)) < 0) {
			*at = nb;
			snprintf(msg, msglen, (allow & 2) ? "no space '%.*s' in this description" : "'%.*s:' names a space: "
				 "give it with --mem", (int)(ne - nb), s + nb);
			return -1;
		}
		size_t q = i = blanks(s, i + 1, n);
		while (i < n && isid(s[i]))
			i++;
		uint32_t addr;
		const char *why;
		if (tool_word32(s + q, i - q, &addr, &why) || s[q] == '-' || addr >= D->spaces[a->idx].size) {
			*at = q;
			snprintf(msg, msglen, "address '%.*s' is not one of space '%s' (0..%" PRIu32 ")", (int)(i - q), s + q,
				 D->spaces[a->idx].name, D->spaces[a->idx].size - 1);
			return -1;
		}
		a->elem = addr;
		i = blanks(s, i, n);
	} else {
		if (!(allow & 1) || (a->idx = tsr_sim_find_state(D, s + nb, ne - nb)) < 0) {
			*at = nb;
			snprintf(msg, msglen, (allow & 1) ? "no state or regfile '%.*s' in this description"
					      : bus ? "--mem takes SPACE:ADDR=VALUE or ADDR=VALUE (the memory), not '%.*s'"
						    : "--mem takes SPACE:ADDR=VALUE, not '%.*s'", (int)(ne - nb), s + nb);
			return -1;
		}
		int count = D->state_count[a->idx];
		if (i < n && s[i] == '[') {
			size_t q = i = blanks(s, i + 1, n);
			while (i < n && isid(s[i]))
				i++;
			uint32_t e;
			const char *why;
			if (!count || tool_word32(s + q, i - q, &e, &why) || s[q] == '-' || e >= (uint32_t)count) {
				*at = q;
				if (!count)
					snprintf(msg, msglen, "'%s' is not a regfile (write %s = ...)", D->state_names[a->idx],
						 D->state_names[a->idx]);
				else
					snprintf(msg, msglen, "element '%.*s' is not one of regfile '%s' (0..%d)", (int)(i - q), s + q,
						 D->state_names[a->idx], count - 1);
				return -1;
			}
			i = blanks(s, i, n);
			if (i >= n || s[i] != ']') {
				*at = i;
				snprintf(msg, msglen, "expected ']'");
				return -1;
			}
			a->elem = e;
			i = blanks(s, i + 1, n);
		} else if (count) {
			*at = i;
			snprintf(msg, msglen, "regfile '%s' needs an element: %s[0..%d]", D->state_names[a->idx],
				 D->state_names[a->idx], count - 1);
			return -1;
		}
		if (i < n && s[i] == '.') {   /* a component: x y z w, or its number; of a vec of one value a lane, the
						         lanes being its components */
			size_t q = i = blanks(s, i + 1, n);
			while (i < n && isid(s[i]))
				i++;
			int nc = D->state_ncomp[a->idx] > 1 ? D->state_ncomp[a->idx] : D->state_vec[a->idx] ? D->lanes : 1, c = -1;
			uint32_t num;
			const char *why;
			if (i > q && s[q] >= '0' && s[q] <= '9' && !tool_word32(s + q, i - q, &num, &why))
				c = num < 256 ? (int)num : 256;
			else if (i == q + 1 && strchr("xyzw", s[q]))
				c = (int)(strchr("xyzw", s[q]) - "xyzw");
			if (c < 0 || c >= nc) {
				*at = q;
				snprintf(msg, msglen, nc > 1 ? "'%.*s' is not a component of '%s' (x, y, z, w or 0..%d)"
							     : "'%.*s' is not a component: '%s' holds one value per lane%.0d",
					 (int)(i - q), s + q, D->state_names[a->idx], nc - 1);
				return -1;
			}
			a->comp = c;
			i = blanks(s, i, n);
		}
	}
	if (i >= n || s[i] != '=') {
		*at = i;
		snprintf(msg, msglen, "expected '='");
		return -1;
	}
	size_t want = a->bus ? TOOL_ASSIGN_MAXV : a->space ? (size_t)D->lanes
		      : a->comp >= 0 && D->state_ncomp[a->idx] > 1 ? (size_t)(D->state_vec[a->idx] ? D->lanes : 1)
		      : a->comp >= 0 ? 1 : elem_values(D, a->idx);
	for (i++;;) {
		size_t q = i = blanks(s, i, n), e = q;
		while (e < n && s[e] != ',')
			e++;
		size_t t = e;
		while (t > q && (s[t - 1] == ' ' || s[t - 1] == '\t' || s[t - 1] == '\r'))
			t--;
		const char *why = "is empty";
		if (a->nv == TOOL_ASSIGN_MAXV || a->nv == want || t == q || tool_word32(s + q, t - q, &a->v[a->nv], &why)) {
			*at = q;
			if (a->bus && a->nv == TOOL_ASSIGN_MAXV)
				snprintf(msg, msglen, "too many values: %d words at most", TOOL_ASSIGN_MAXV);
			else if (a->nv == TOOL_ASSIGN_MAXV || a->nv == want)
				snprintf(msg, msglen, "too many values: one, or the %zu it holds", want);
			else
				snprintf(msg, msglen, "value '%.*s' %s", (int)(t - q), s + q, why);
			return -1;
		}
		a->nv++;
		if (e == n)
			break;
		i = e + 1;
	}
	if (a->bus && a->elem + 4 * (uint64_t)a->nv > bus) {
		*at = blanks(s, 0, n);
		snprintf(msg, msglen, "%zu words from 0x%" PRIx64 " pass the end of the memory (%" PRIu64 " bytes)", a->nv,
			 (uint64_t)a->elem, bus);
		return -1;
	}
	if (!a->bus && a->nv != 1 && a->nv != want) {
		*at = blanks(s, 0, n);
		snprintf(msg, msglen, "%zu values: it takes one (for every lane and component) or %zu", a->nv, want);
		return -1;
	}
	return 0;
}

/* Applies a (0, or -1 with a message on stderr naming a->what). */
static int apply(const struct tsr_sim_desc *D, void *sim, const struct tool_assign *a)
{
	if (a->space) {
		uint32_t v[TSR_SIM_MAX_LANES];
		for (int l = 0; l < D->lanes; l++)
			v[l] = a->v[a->nv == 1 ? 0 : l];
		int r = D->space_write(sim, a->idx, (uint32_t)a->elem, v);
		if (r) {
			fprintf(stderr, "%s: error: %s\n", a->what, D->ctl(sim)->msg);
			return -1;
		}
		return 0;
	}
	uint32_t *p = D->state(sim, a->idx, a->elem < 0 ? 0 : (int)a->elem);
	size_t nc = D->state_ncomp[a->idx] > 1 ? D->state_ncomp[a->idx] : elem_values(D, a->idx), n = elem_values(D, a->idx);
	for (size_t k = 0, j = 0; k < n; k++)
		if (a->comp < 0 || k % nc == (size_t)a->comp) {
			p[k] = a->v[a->nv == 1 ? 0 : j];
			j++;
		}
	return 0;
}

/* The values of element e of state st: `NAME[e] = v ...` (NAME = ... for a scalar); float state as binary32 with
 * the words after it in parentheses. */
static void print_state(struct tsr_buf *b, const char *prefix, const struct tsr_sim_desc *D, void *sim, int st, int e)
{
	const uint32_t *p = D->state(sim, st, e);
	size_t n = elem_values(D, st);
	if (D->state_count[st])
		tsr_buf_printf(b, "%s%s[%d] =", prefix, D->state_names[st], e);
	else
		tsr_buf_printf(b, "%s%s =", prefix, D->state_names[st]);
	if (D->state_float[st]) {
		for (size_t k = 0; k < n; k++) {
			float f;
			memcpy(&f, &p[k], 4);
			tsr_buf_printf(b, " %.9g", (double)f);
		}
		tsr_buf_printf(b, "  (");
		for (size_t k = 0; k < n; k++)
			tsr_buf_printf(b, "%s0x%08" PRIx32, k ? " " : "", p[k]);
		tsr_buf_printf(b, ")\n");
	} else {
		for (size_t k = 0; k < n; k++)
			tsr_buf_printf(b, " 0x%08" PRIx32, p[k]);
		tsr_buf_printf(b, "\n");
	}
}

void tool_print_state(struct tsr_buf *b, const char *prefix, const struct tsr_sim_desc *D, void *sim, int st)
{
	int count = D->state_count[st];
	for (int e = 0; e < (count ? count : 1); e++)
		print_state(b, prefix, D, sim, st, e);
}

/* An output space: every address whose read entry is a state element, as `SPACE:ADDR = v ...`. */
static void print_space(struct tsr_buf *b, const char *prefix, const struct tsr_sim_desc *D, void *sim, int sp)
{
	const struct tsr_sim_space *S = &D->spaces[sp];
	for (int k = 0; k < S->nent; k++) {
		const struct tsr_sim_sentry *en = &S->ent[k];
		if (en->write || en->kind != TSR_SIM_SE_STATE)
			continue;
		for (uint64_t a = en->lo; a <= en->hi; a++) {
			uint32_t v[TSR_SIM_MAX_LANES];
			if (D->space_read(sim, sp, (uint32_t)a, v))
				continue;
			tsr_buf_printf(b, "%s%s:%" PRIu64 " =", prefix, S->name, a);
			for (int l = 0; l < D->lanes; l++) {
				float f;
				memcpy(&f, &v[l], 4);
				if (D->state_float[en->state])
					tsr_buf_printf(b, " %.9g", (double)f);
				else
					tsr_buf_printf(b, " 0x%08" PRIx32, v[l]);
			}
			tsr_buf_printf(b, "\n");
		}
	}
}

void tool_print_outputs(struct tsr_buf *b, const char *prefix, const struct tsr_sim_desc *D, void *sim)
{
	for (int s = 0; s < D->nstates; s++)
		if (D->state_output[s])
			tool_print_state(b, prefix, D, sim, s);
	for (int s = 0; s < D->nspaces; s++)
		if (D->spaces[s].output)
			print_space(b, prefix, D, sim, s);
}

/* A new last assignment of v (zeroed). */
static struct tool_assign *values_add(struct tool_values *v)
{
	struct tool_assign *g = realloc(v->a, (v->n + 1) * sizeof *g);
	if (!g)
		abort();
	v->a = g;
	memset(&g[v->n], 0, sizeof *g);
	return &g[v->n++];
}

int tool_values_options(const struct tool_opts *o, const struct tsr_sim_desc *D, unsigned nprocs, uint64_t bus,
			struct tool_values *v)
{
	for (int i = 0; i < o->nsets + o->nmems; i++) {
		bool set = i < o->nsets;
		const char *s = set ? o->sets[i] : o->mems[i - o->nsets];
		char msg[256];
		size_t at;
		struct tool_assign *a = values_add(v);
		if (parse_assign(D, s, strlen(s), set ? 1 : 2, nprocs, bus, a, &at, msg, sizeof msg)) {
			fprintf(stderr, "tessera: error: %s '%s': %s (at column %zu)\n", set ? "--set" : "--mem", s, msg, at + 1);
			v->n--;
			return -1;
		}
		a->what = "tessera";
	}
	return 0;
}

/* The initial values a program's source gave in its declared sections (struct tsr_words.meta: `.constants
 * [0].z = 0.0;`), as assignments: each entry's element, or its component (as --set's `.C`).  Returns 0, or -1 with
 * `path:line: error: ...` for an entry the simulator has no place for. */
static int meta_values(const struct tsr_sim_desc *D, const struct tsr_progmeta *m, const char *path,
		       struct tool_values *v, struct tsr_diag *d)
{
	int rc = 0;
	for (size_t i = 0; i < m->n; i++) {
		const struct tsr_progmeta_ent *e = &m->e[i];
		if (!e->is_value || !e->state)
			continue;
		struct tool_assign a = { .idx = tsr_sim_find_state(D, e->state, strlen(e->state)), .elem = e->index,
					 .comp = e->comp, .proc = -1, .what = path, .nv = 1, .v = { e->value } };
		int nc = a.idx < 0 ? 0 : D->state_ncomp[a.idx] > 1 ? D->state_ncomp[a.idx] : D->state_vec[a.idx] ? D->lanes : 1;
		if (a.idx < 0 || (int64_t)e->index >= D->state_count[a.idx] || e->comp >= nc) {
			tsr_diag_error(d, path, e->line, 0, "%s entry [%u]%s%c: the simulator has no such element of '%s'",
				       e->section, e->index, e->comp >= 0 ? "." : "", e->comp >= 0 ? e->compname : ' ', e->state);
			rc = -1;
			continue;
		}
		*values_add(v) = a;
	}
	return rc;
}

/* The --init file: every line parsed (a bad line is file:line:col: error: ...); returns 0 or -1. */
static int init_values(const struct tool_opts *o, const struct tsr_sim_desc *D, unsigned nprocs, uint64_t bus,
		       struct tool_values *v, struct tsr_diag *d)
{
	struct tsr_buf b = { 0 };
	if (tool_read_input(o->init, &b, d)) {
		tsr_buf_free(&b);
		return -1;
	}
	const char *name = strcmp(o->init, "-") ? o->init : "<stdin>";
	int rc = 0;
	unsigned line = 0;
	for (size_t p = 0; p < b.len;) {
		const char *lb = b.data + p, *nl = memchr(lb, '\n', b.len - p);
		size_t n = nl ? (size_t)(nl - lb) : b.len - p;
		p += n + 1;
		line++;
		size_t e = 0;
		while (e < n && lb[e] != '#' && !(lb[e] == '/' && e + 1 < n && lb[e + 1] == '/'))
			e++;
		if (blanks(lb, 0, e) == e)
			continue;
		if (memchr(lb, 0, n)) {
			tsr_diag_error(d, name, line, (unsigned)((const char *)memchr(lb, 0, n) - lb) + 1, "NUL byte in the line");
			rc = -1;
			continue;
		}
		char msg[256];
		size_t at = 0;
		struct tool_assign *a = values_add(v);
		if (parse_assign(D, lb, e, 3, nprocs, bus, a, &at, msg, sizeof msg)) {
			tsr_diag_error(d, name, line, (unsigned)at + 1, "%s", msg);
			v->n--;
			rc = -1;
		} else {
			a->what = name;   /* o->init or a literal: lives as long as the run */
		}
	}
	tsr_buf_free(&b);
	return rc;
}

int tool_values_sources(const struct tool_opts *o, const struct tsr_sim_desc *D, unsigned nprocs, uint64_t bus,
			const struct tsr_words *w, const char *path, struct tool_values *v, struct tsr_diag *d)
{
	if (w->meta && meta_values(D, w->meta, path, v, d))
		return -1;
	return o->init ? init_values(o, D, nprocs, bus, v, d) : 0;
}

int tool_values_apply(const struct tsr_sim_desc *D, void *sim, const struct tool_values *v, unsigned proc)
{
	for (size_t i = 0; i < v->n; i++)
		if (!v->a[i].bus && (v->a[i].proc < 0 || (unsigned)v->a[i].proc == proc) && apply(D, sim, &v->a[i]))
			return -1;
	return 0;
}

void tool_values_bus(const struct tool_values *v, uint8_t *mem)
{
	for (size_t i = 0; i < v->n; i++)
		for (size_t k = 0; v->a[i].bus && k < v->a[i].nv; k++) {
			uint32_t x = v->a[i].v[k];
			uint8_t *p = mem + v->a[i].elem + 4 * k;
			p[0] = (uint8_t)x, p[1] = (uint8_t)(x >> 8), p[2] = (uint8_t)(x >> 16), p[3] = (uint8_t)(x >> 24);
		}
}

int tool_dump_names(const char *s, const struct tsr_sim_desc *D, unsigned nprocs, struct tool_dump *out)
{
	int n = 0;
	for (const char *p = s; p && *p;) {
		const char *c = strchr(p, ','), *e = c ? c : p + strlen(p), *name = p;
		int proc = -1;
		const char *colon = memchr(p, ':', (size_t)(e - p));
		if (colon) {   /* K:NAME */
			uint32_t k;
			const char *why;
			if (!nprocs || tool_word32(p, (size_t)(colon - p), &k, &why) || k >= nprocs) {
				if (nprocs)
					fprintf(stderr, "tessera: error: --dump '%.*s': processor '%.*s' is not one of the %u run "
						"(0..%u)\n", (int)(e - p), p, (int)(colon - p), p, nprocs, nprocs - 1);
				else
					fprintf(stderr, "tessera: error: --dump '%.*s': no state or regfile of that name in this "
						"description\n", (int)(e - p), p);
				return -1;
			}
			proc = (int)k;
			name = colon + 1;
		}
		int st = tsr_sim_find_state(D, name, (size_t)(e - name));
		if (st < 0 || n == TOOL_MAX_DUMPS) {
			fprintf(stderr, "tessera: error: --dump '%.*s': %s\n", (int)(e - p), p,
				st < 0 ? "no state or regfile of that name in this description" : "more than 64 names");
			return -1;
		}
		out[n].st = st;
		out[n++].proc = proc;
		p = c ? c + 1 : e;
	}
	return n;
}

void tool_values_free(struct tool_values *v)
{
	free(v->a);
	v->a = NULL;
	v->n = 0;
}
