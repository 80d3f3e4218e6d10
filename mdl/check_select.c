/* Format selectors (docs/mdl.md "Formats"): a format that can never be selected, two formats that can both
 * match one word. Decided by trying every value of the word bits the selectors read, when those are at most 16
 * (and within a total budget of evaluations); wider selectors are not checked.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "check.h"

static void sel_fields(const struct mdl_expr *e, bool *used)
{
	if (!e)
		return;
	if (e->kind == MDL_E_FIELD)
		used[e->index] = true;
	for (int i = 0; i < (e->nargs > 0 ? e->nargs : 1); i++)
		sel_fields(e->a[i], used);
}

/* The word bits the fields in `used` occupy (at most 16, else -1), into bits[]. */
static int sel_bits(const struct mdl_model *m, const bool *used, int *bits)
{
	int n = 0;
	bool *seen = NULL;
	bool local[1024] = { false };
	seen = local;
	for (int f = 0; f < m->nfields; f++) {
		if (!used[f])
			continue;
		for (int q = 0; q < m->fields[f].npieces; q++)
			for (int b = m->fields[f].pieces[q].lo; b <= m->fields[f].pieces[q].hi && b < 1024; b++) {
				if (seen[b])
					continue;
				if (n == 16)
					return -1;
				seen[b] = true;
				bits[n++] = b;
			}
	}
	return n;
}

/* Field values for assignment x of the bits (bit i of x is word bit bits[i]). */
static void sel_values(const struct mdl_model *m, const bool *used, const int *bits, int nb, unsigned x, uint64_t *vals)
{
	for (int f = 0; f < m->nfields; f++) {
		if (!used[f])
			continue;
		const struct mdl_field *fd = &m->fields[f];
		uint64_t v = 0;
		for (int q = 0; q < fd->npieces; q++)
			for (int b = fd->pieces[q].hi; b >= fd->pieces[q].lo; b--) {
				int bit = 0;
				for (int i = 0; i < nb; i++)
					if (bits[i] == b)
						bit = (x >> i) & 1;
				v = v << 1 | (uint64_t)(bit ^ fd->pieces[q].inverted);
			}
		if (fd->is_signed && fd->width < 64 && (v >> (fd->width - 1)) & 1)
			v |= ~(uint64_t)0 << fd->width;
		vals[f] = v;
	}
}

/* 1 if some word makes selector a (and b, if not NULL) hold, 0 if none, -1 if undecided; witness in vals. */
static int sel_search(struct ck *k, const struct mdl_expr *a, const struct mdl_expr *b, uint64_t *vals, bool *used)
{
	const struct mdl_model *m = k->m;
	int bits[16];
	memset(used, 0, (size_t)m->nfields * sizeof *used);
	sel_fields(a, used);
	sel_fields(b, used);
	for (int f = 0; f < m->nfields; f++)
		if (used[f] && k->field_bad[f])
			return -1;
	int nb = sel_bits(m, used, bits);
	if (nb < 0)
		return -1;
	int nused = 0;
	for (int f = 0; f < m->nfields; f++)
		nused += used[f];
	k->sel_budget -= (long)(1u << nb) * (nused + 1);
	if (k->sel_budget < 0)
		return -1;   /* too much work in all: the remaining selectors are not checked */
	for (unsigned x = 0; x < 1u << nb; x++) {
		struct mdl_cenv env = { .fields = vals, .m = m };
		uint64_t ra, rb = 1;
		sel_values(m, used, bits, nb, x, vals);
		if (mdl_ceval(a, &env, &ra) || (b && mdl_ceval(b, &env, &rb)))
			return -1;
		if (ra && rb)
			return 1;
	}
	return 0;
}

void ck_selectors(struct ck *k)
{
	struct mdl_model *m = k->m;
	uint64_t *vals = tsr_arena_alloc(k->p->arena, (size_t)(m->nfields + 1) * sizeof *vals);
	bool *used = tsr_arena_alloc(k->p->arena, (size_t)(m->nfields + 1) * sizeof *used);
	bool *dead = tsr_arena_alloc(k->p->arena, (size_t)(m->nformats + 1) * sizeof *dead);
	k->sel_budget = 1L << 24;
	for (int i = 0; i < m->nformats; i++) {
		if (!m->formats[i].selector) {
			dead[i] = true;
			continue;
		}
		if (sel_search(k, m->formats[i].selector, NULL, vals, used) == 0) {
			mdl_error(k->p, m->formats[i].loc, "format '%s' can never be selected", m->formats[i].name);
			dead[i] = true;
		}
	}
	for (int j = 0; j < m->nformats; j++)
		for (int i = 0; i < j; i++) {
			if (dead[i] || dead[j] || sel_search(k, m->formats[i].selector, m->formats[j].selector, vals, used) != 1)
				continue;
			char w[256] = "";
			size_t o = 0;
			for (int f = 0; f < m->nfields && o < sizeof w - 1; f++)
				if (used[f])
					o += (size_t)snprintf(w + o, sizeof w - o, "%s%s = %" PRId64, o ? ", " : "", m->fields[f].name,
					                      (int64_t)vals[f]);
			mdl_error(k->p, m->formats[j].loc, "formats '%s' and '%s' can both match the same word (%s)",
			          m->formats[i].name, m->formats[j].name, o ? w : "any word");
			break;
		}
}
