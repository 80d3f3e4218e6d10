/* `tessera sim` on a target without a platform of its own (docs/tools.md "sim"): one processor of the target's
 * generated simulator, reached only through its descriptor (runtime/sim/sim.h struct tsr_sim_desc), any word size
 * and pc_step.  Initial values of declared state and of address spaces come from the command line (--set, --mem)
 * and from a text file (--init); after the run the description's `output` state and spaces are printed (docs/mdl.md
 * "Machine state"), and --dump NAME prints any other.
 *
 * Assignments (one per --set / --mem value, one per line of an --init file; blanks around tokens are free):
 *   NAME = V            a scalar state
 *   NAME[I] = V,...     a regfile element
 *   NAME[I].C = V,...   component C (x, y, z, w or its number) of an element of several components (vec4)
 *   SPACE:ADDR = V,...  written through the space's write entry for ADDR (--mem; a file line too)
 * Values are tool_word32's.  A program assembled from a source in a declared syntax brings the values of its
 * sections (`.constants [0].z = 0.0;`, struct tsr_words.meta): they are set first, then --init's, then the options'.  An element takes one value (every lane and component gets it) or exactly as many
 * as it holds (lanes x components, lane by lane); a component one per lane.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "progmeta.h"
#include "sim/sim.h"
#include "text/textcodec.h"
#include "tools.h"

#define MAXV 256   /* values of one assignment: lanes (<= 32) x components (<= 8) */

struct assign {
	bool space;    /* SPACE:ADDR (else a state) */
	int idx;       /* state or space index */
	int64_t elem;  /* regfile element, space address; -1 for a scalar state */
	int comp;      /* component, or -1 for all */
	uint32_t v[MAXV];
	size_t nv;
};

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

/* Parses the assignment [s, s+n) (allow: 1 state, 2 space, 3 either).  Returns 0, or -1 with the message in msg
 * and the byte offset of the error in *at. */
static int parse_assign(const struct tsr_sim_desc *D, const char *s, size_t n, int allow, struct assign *a,
			size_t *at, char *msg, size_t msglen)
{
	memset(a, 0, sizeof *a);
	a->elem = -1;
	a->comp = -1;
	size_t i = blanks(s, 0, n), b = i;
	while (i < n && isid(s[i]))
		i++;
	if (i == b) {
		*at = b;
		snprintf(msg, msglen, "expected a state or space name");
		return -1;
	}
	size_t nb = b, ne = i;
	i = blanks(s, i, n);
	if (i < n && s[i] == ':') {   /* SPACE:ADDR */
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
	size_t want = a->space ? (size_t)D->lanes
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
		if (a->nv == MAXV || a->nv == want || t == q || tool_word32(s + q, t - q, &a->v[a->nv], &why)) {
			*at = q;
			if (a->nv == MAXV || a->nv == want)
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
	if (a->nv != 1 && a->nv != want) {
		*at = blanks(s, 0, n);
		snprintf(msg, msglen, "%zu values: it takes one (for every lane and component) or %zu", a->nv, want);
		return -1;
	}
	return 0;
}

/* Applies a (0, or -1 with a message on stderr naming what). */
static int apply(const struct tsr_sim_desc *D, void *sim, const struct assign *a, const char *what)
{
	if (a->space) {
		uint32_t v[TSR_SIM_MAX_LANES];
		for (int l = 0; l < D->lanes; l++)
			v[l] = a->v[a->nv == 1 ? 0 : l];
		int r = D->space_write(sim, a->idx, (uint32_t)a->elem, v);
		if (r) {
			fprintf(stderr, "%s: error: %s\n", what, D->ctl(sim)->msg);
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

/* The initial values a program's source gave in its declared sections (struct tsr_words.meta: `.constants
 * [0].z = 0.0;`), as assignments: each entry's element, or its component (as --set's `.C`).  Returns 0, or -1 with
 * `path:line: error: ...` for an entry the simulator has no place for. */
static int apply_meta(const struct tsr_sim_desc *D, void *sim, const struct tsr_progmeta *m, const char *path,
		      struct tsr_diag *d)
{
	int rc = 0;
	for (size_t i = 0; i < m->n; i++) {
		const struct tsr_progmeta_ent *e = &m->e[i];
		if (!e->is_value || !e->state)
			continue;
		struct assign a = { .idx = tsr_sim_find_state(D, e->state, strlen(e->state)), .elem = e->index, .comp = e->comp,
				    .nv = 1, .v = { e->value } };
		int nc = a.idx < 0 ? 0 : D->state_ncomp[a.idx] > 1 ? D->state_ncomp[a.idx] : D->state_vec[a.idx] ? D->lanes : 1;
		if (a.idx < 0 || (int64_t)e->index >= D->state_count[a.idx] || e->comp >= nc) {
			tsr_diag_error(d, path, e->line, 0, "%s entry [%u]%s%c: the simulator has no such element of '%s'",
				       e->section, e->index, e->comp >= 0 ? "." : "", e->comp >= 0 ? e->compname : ' ', e->state);
			rc = -1;
			continue;
		}
		apply(D, sim, &a, path);
	}
	return rc;
}

/* The --init file: every line parsed first (a bad line is file:line:col: error: ..., nothing is set), then set. */
static int init_file(const struct tool_opts *o, const struct tsr_sim_desc *D, void *sim, struct tsr_diag *d)
{
	struct tsr_buf b = { 0 };
	if (tool_read_input(o->init, &b, d)) {
		tsr_buf_free(&b);
		return -1;
	}
	const char *name = strcmp(o->init, "-") ? o->init : "<stdin>";
	struct assign *as = NULL;
	size_t na = 0;
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
		struct assign *g = realloc(as, (na + 1) * sizeof *as);
		if (!g)
			abort();
		as = g;
		char msg[256];
		size_t at = 0;
		if (parse_assign(D, lb, e, 3, &as[na], &at, msg, sizeof msg)) {
			tsr_diag_error(d, name, line, (unsigned)at + 1, "%s", msg);
			rc = -1;
		} else {
			na++;
		}
	}
	for (size_t i = 0; i < na && !rc; i++)
		rc = apply(D, sim, &as[i], name);
	free(as);
	tsr_buf_free(&b);
	return rc;
}

/* The values of element e of state st: `NAME[e] = v ...` (NAME = ... for a scalar); float state as binary32 with
 * the words after it in parentheses. */
static void print_state(FILE *out, const struct tsr_sim_desc *D, void *sim, int st, int e)
{
	const uint32_t *p = D->state(sim, st, e);
	size_t n = elem_values(D, st);
	if (D->state_count[st])
		fprintf(out, "%s[%d] =", D->state_names[st], e);
	else
		fprintf(out, "%s =", D->state_names[st]);
	if (D->state_float[st]) {
		for (size_t k = 0; k < n; k++) {
			float f;
			memcpy(&f, &p[k], 4);
			fprintf(out, " %.9g", (double)f);
		}
		fprintf(out, "  (");
		for (size_t k = 0; k < n; k++)
			fprintf(out, "%s0x%08" PRIx32, k ? " " : "", p[k]);
		fprintf(out, ")\n");
	} else {
		for (size_t k = 0; k < n; k++)
			fprintf(out, " 0x%08" PRIx32, p[k]);
		fprintf(out, "\n");
	}
}

static void print_whole(FILE *out, const struct tsr_sim_desc *D, void *sim, int st)
{
	int count = D->state_count[st];
	for (int e = 0; e < (count ? count : 1); e++)
		print_state(out, D, sim, st, e);
}

/* An output space: every address whose read entry is a state element, as `SPACE:ADDR = v ...`. */
static void print_space(FILE *out, const struct tsr_sim_desc *D, void *sim, int sp)
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
			fprintf(out, "%s:%" PRIu64 " =", S->name, a);
			for (int l = 0; l < D->lanes; l++) {
				float f;
				memcpy(&f, &v[l], 4);
				if (D->state_float[en->state])
					fprintf(out, " %.9g", (double)f);
				else
					fprintf(out, " 0x%08" PRIx32, v[l]);
			}
			fprintf(out, "\n");
		}
	}
}

/* A hook with no platform behind it: the run fails at the bundle that calls it. */
static int no_hook(void *ctx, int hook, enum tsr_hook_kind kind, const uint32_t *args, int nargs, uint32_t *v,
		   uint32_t lanemask)
{
	(void)kind, (void)args, (void)nargs, (void)v, (void)lanemask;
	if (hook < 0)   /* ready, retire: nothing to wait for */
		return 0;
	(void)ctx;
	return -1;   /* the simulator reports "hook NAME failed at 0x..." */
}

struct trace_ctx { const struct tsr_target *t; struct tsr_buf b; };
static void trace_text(void *ctx, uint32_t pc, const uint32_t *words, char *buf, size_t n)
{
	struct trace_ctx *c = ctx;
	tsr_buf_clear(&c->b);
	c->t->disasm(words, pc, &c->b);
	snprintf(buf, n, "%.*s", (int)c->b.len, c->b.data ? c->b.data : "");
}

int tool_sim_generic(const struct tool_opts *o, const char *path, const struct tsr_words *w, FILE *out)
{
	const struct tsr_target *t = o->target;
	const struct tsr_sim_desc *D = t->sim;
	if (!D) {
		fprintf(stderr, "tessera: error: target '%s' was built without a simulator\n", t->name);
		return TOOL_EXIT_USAGE;
	}
	/* the options first: a bad one runs nothing */
	struct assign *as = calloc((size_t)(o->nsets + o->nmems) + 1, sizeof *as);
	int dumps[64], ndump = 0;
	if (!as)
		abort();
	for (int i = 0; i < o->nsets + o->nmems; i++) {
		bool set = i < o->nsets;
		const char *s = set ? o->sets[i] : o->mems[i - o->nsets];
		char msg[256];
		size_t at;
		if (parse_assign(D, s, strlen(s), set ? 1 : 2, &as[i], &at, msg, sizeof msg)) {
			fprintf(stderr, "tessera: error: %s '%s': %s (at column %zu)\n", set ? "--set" : "--mem", s, msg, at + 1);
			free(as);
			return TOOL_EXIT_USAGE;
		}
	}
	for (const char *p = o->dump; p && *p;) {
		const char *c = strchr(p, ','), *e = c ? c : p + strlen(p);
		int st = tsr_sim_find_state(D, p, (size_t)(e - p));
		if (st < 0 || ndump == 64) {
			fprintf(stderr, "tessera: error: --dump '%.*s': %s\n", (int)(e - p), p,
				st < 0 ? "no state or regfile of that name in this description" : "more than 64 names");
			free(as);
			return TOOL_EXIT_USAGE;
		}
		dumps[ndump++] = st;
		p = c ? c + 1 : e;
	}
	void *sim = calloc(1, D->sim_size);
	if (!sim)
		abort();
	D->init(sim);
	struct tsr_sim_ctl *c = D->ctl(sim);
	struct tsr_sim_hooks hooks = { no_hook, c };
	D->set_hooks(sim, &hooks);
	struct tsr_diag d;
	tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
	int rc = TOOL_EXIT_OK;
	if (w->meta && apply_meta(D, sim, w->meta, path, &d))
		rc = TOOL_EXIT_INPUT;
	if (!rc && o->init && init_file(o, D, sim, &d))
		rc = TOOL_EXIT_INPUT;
	for (int i = 0; i < o->nsets + o->nmems && !rc; i++)
		if (apply(D, sim, &as[i], "tessera"))
			rc = TOOL_EXIT_INPUT;
	free(as);
	struct trace_ctx tc = { t, { 0 } };
	if (!rc) {
		if (o->rules)
			c->flags |= TSR_SIM_F_RULES;
		if (o->trace) {
			c->trace = out;
			c->trace_text = trace_text;
			c->trace_ctx = &tc;
		}
		size_t nwords = w->count * t->nwords;
		int st = TSR_SIM_OK;
		for (uint64_t steps = 0; steps < o->max_steps; steps++)   /* a stall counts: nothing can end it here */
			if ((st = D->step(sim, w->w, nwords)) != TSR_SIM_OK && st != TSR_SIM_STALL)
				break;
		fprintf(out, "%s after %" PRIu64 " bundles\n",
			st == TSR_SIM_HALTED ? "ended" : st >= 0 ? "stopped (--max-steps)" : "failed", c->icount);
		if (st < 0) {
			uint32_t pc = c->err_pc;
			size_t i = pc / t->pc_step;
			unsigned line = w->line && i < w->count && pc % t->pc_step == 0 ? w->line[i] : 0;
			tsr_diag_error(&d, path, line, 0, "at 0x%08" PRIx32 ": %s", pc, c->msg);
			rc = TOOL_EXIT_INPUT;
		} else {
			if (st != TSR_SIM_HALTED) {
				fprintf(stderr, "%s: error: run cut short by --max-steps %" PRIu64 " before the program ended\n",
					path, o->max_steps);
				rc = TOOL_EXIT_CUT;
			}
			for (int s = 0; s < D->nstates; s++)
				if (D->state_output[s])
					print_whole(out, D, sim, s);
			for (int s = 0; s < D->nspaces; s++)
				if (D->spaces[s].output)
					print_space(out, D, sim, s);
			for (int k = 0; k < ndump; k++)
				print_whole(out, D, sim, dumps[k]);
		}
	}
	tsr_buf_free(&tc.b);
	D->fini(sim);
	free(sim);
	tsr_diag_fini(&d);
	return rc;
}
