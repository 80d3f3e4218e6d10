/* X4 (docs/mdl.md "Composite fields and slices"): `field F = { G, H[3:0], ~K[5] }` is one value whose bits are
 * bits of other fields (the first constituent most significant, `~` inverting its bits), and `G[hi:lo]` in a
 * template hole or a condition is the field of bits hi..lo of G's value (named `G__hi_lo`). Both become fields of the model whose
 * pieces are word bits, like any split field, marked `derived`: no format lists them (their constituents cover
 * those bits), the decoder computes them from the word and the assembler routes a value bound to one into the
 * fields that hold its bits (runtime/text/asm_derived.c).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "check.h"

/* Word bit (and inversion) of value bit b of field f (bit 0 = least significant). */
static void value_bit(const struct mdl_field *f, int b, int *word, bool *inv)
{
	int rest = b;
	for (int j = f->npieces - 1; j >= 0; j--) {   /* the last piece holds the low bits */
		const struct mdl_piece *p = &f->pieces[j];
		int w = p->hi - p->lo + 1;
		if (rest < w) {
			*word = p->lo + rest;
			*inv = p->inverted;
			return;
		}
		rest -= w;
	}
	*word = -1;
	*inv = false;
}

/* Pieces from word bits listed most significant first (merging runs of consecutive bits of one inversion). */
static int make_pieces(struct ck *k, const int *bits, const bool *inv, int n, struct mdl_piece **out)
{
	struct mdl_piece *p = tsr_arena_alloc(k->A, (size_t)(n + 1) * sizeof *p);
	int np = 0;
	for (int i = 0; i < n; i++) {
		if (np && p[np - 1].lo == bits[i] + 1 && p[np - 1].inverted == inv[i]) {
			p[np - 1].lo = bits[i];
			continue;
		}
		p[np++] = (struct mdl_piece){ bits[i], bits[i], inv[i] };
	}
	*out = p;
	return np;
}

void ck_composites(struct ck *k)
{
	struct mdl_model *m = k->m;
	int word = m->word_bits ? m->word_bits : 1024;
	bool *seen = tsr_arena_alloc(k->p->arena, (size_t)word);
	for (int i = 0; i < m->nfields; i++) {
		struct ast_decl *d = k->fdecl[i];
		if (!d || !d->cpieces.n)
			continue;
		struct mdl_field *f = &m->fields[i];
		f->derived = true;
		memset(seen, 0, (size_t)word);
		int bits[64];
		bool inv[64];
		int n = 0;
		bool ok = true;
		for (int j = 0; j < d->cpieces.n; j++) {
			const struct ast_cpiece *c = d->cpieces.v[j];
			struct ck_sym *y = ck_lookup(k, NS_VALUE, c->field.s);
			if (!y || y->kind != SYM_FIELD) {
				mdl_error(k->p, c->loc, "'%s' in composite field '%s' is not a field", c->field.s, f->name);
				ok = false;
				continue;
			}
			const struct mdl_field *g = &m->fields[y->index];
			if (k->fdecl[y->index] && k->fdecl[y->index]->cpieces.n) {
				mdl_error(k->p, c->loc, "'%s' in composite field '%s' is itself composite (name its fields)",
				          g->name, f->name);
				ok = false;
				continue;
			}
			if (k->field_bad[y->index]) {
				ok = false;
				continue;
			}
			int64_t hi = c->slice ? c->hi : g->width - 1, lo = c->slice ? c->lo : 0;
			if (hi < lo || hi >= g->width) {
				mdl_error(k->p, c->loc, "slice %s[%" PRId64 ":%" PRId64 "] is not within the field (%d bits)", g->name,
				          hi, lo, g->width);
				ok = false;
				continue;
			}
			for (int64_t b = hi; b >= lo && ok; b--) {
				int wb;
				bool wi;
				value_bit(g, (int)b, &wb, &wi);
				if (wb < 0 || seen[wb]) {
					mdl_error(k->p, c->loc, "bit %d is used twice in composite field '%s'", wb, f->name);
					ok = false;
					break;
				}
				if (n == 64) {
					mdl_error(k->p, d->name.loc, "composite field '%s' is more than 64 bits wide", f->name);
					ok = false;
					break;
				}
				seen[wb] = true;
				bits[n] = wb;
				inv[n++] = wi != c->inverted;
			}
		}
		if (!ok || !n) {
			k->field_bad[i] = true;
			f->width = 1;
			continue;
		}
		f->npieces = make_pieces(k, bits, inv, n, &f->pieces);
		f->width = n;
		if (f->print == MDL_PRINT_FLOAT && n != 32)
			mdl_error(k->p, d->name.loc, "field '%s' is %d bits wide: 'print float' needs 32 bits (binary32)", f->name,
			          n);
	}
}

int ck_slice_field(struct ck *k, int field, int64_t hi, int64_t lo, struct mdl_loc loc)
{
	struct mdl_model *m = k->m;
	const struct mdl_field *g = &m->fields[field];
	if (hi < lo || hi >= g->width || lo < 0) {
		mdl_error(k->p, loc, "slice %s[%" PRId64 ":%" PRId64 "] is not within the field (%d bits)", g->name, hi, lo,
		          g->width);
		return -1;
	}
	/* named G__HI_LO, a C identifier (the generated code names fields), which says G[HI:LO] */
	char name[160];
	snprintf(name, sizeof name, "%s__%" PRId64 "_%" PRId64, g->name, hi, lo);
	const char *nm = ck_intern(k, name);
	struct ck_sym *y = ck_lookup(k, NS_VALUE, nm);
	if (y && y->kind == SYM_FIELD && !y->decl && m->fields[y->index].derived)
		return y->index;
	if (y) {
		mdl_error(k->p, loc, "the slice %s[%" PRId64 ":%" PRId64 "] would be named '%s', which is declared already",
		          g->name, hi, lo, nm);
		return -1;
	}
	int bits[64];
	bool inv[64];
	int n = 0;
	for (int64_t b = hi; b >= lo; b--) {
		value_bit(g, (int)b, &bits[n], &inv[n]);
		n++;
	}
	int idx = m->nfields;
	m->fields = ck_resize(k, m->fields, m->nfields, m->nfields + 2, sizeof *m->fields);
	k->fdecl = ck_resize(k, k->fdecl, m->nfields, m->nfields + 2, sizeof *k->fdecl);
	k->field_bad = ck_resize(k, k->field_bad, m->nfields, m->nfields + 2, sizeof *k->field_bad);
	struct mdl_field *f = &m->fields[idx];
	memset(f, 0, sizeof *f);
	f->name = nm;
	f->loc = loc;
	f->derived = true;
	f->width = n;
	f->npieces = make_pieces(k, bits, inv, n, &f->pieces);
	f->print = MDL_PRINT_DEFAULT;
	k->fdecl[idx] = NULL;
	k->field_bad[idx] = false;
	m->nfields++;
	ck_declare(k, NS_VALUE, SYM_FIELD, nm, idx, loc, NULL);
	return idx;
}
