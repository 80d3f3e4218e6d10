/* Fields and formats (docs/mdl.md "Fields", "Formats"): bits inside the word, no bit twice in a field, width
 * <= 64; per format: its fields, ignore ranges, slots, defaults and semantics, no two items on one bit, every
 * bit covered. Tables: check_table.c; selectors: check_select.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "check.h"

void ck_fields(struct ck *k)
{
	struct mdl_model *m = k->m;
	int word = m->word_bits ? m->word_bits : 1024;
	bool *seen = tsr_arena_alloc(k->p->arena, (size_t)word);
	for (int i = 0; i < m->nfields; i++) {
		struct ast_decl *d = k->fdecl[i];
		struct mdl_field *f = &m->fields[i];
		if (d->cpieces.n) {   /* (addition) X4: a composite field, resolved by ck_composites */
			f->is_signed = d->is_signed;
			f->print = d->print;
			f->width = 1;
			continue;
		}
		memset(seen, 0, (size_t)word);
		f->is_signed = d->is_signed;
		f->npieces = d->pieces.n;
		f->pieces = tsr_arena_alloc(k->A, (size_t)(d->pieces.n + 1) * sizeof *f->pieces);
		int64_t width = 0;
		bool ok = true;
		for (int j = 0; j < d->pieces.n; j++) {
			struct ast_piece *p = d->pieces.v[j];
			if (p->hi < p->lo) {
				mdl_error(k->p, p->loc, "bit range %" PRId64 ":%" PRId64 " is backwards (write %" PRId64 ":%" PRId64 ")",
				          p->hi, p->lo, p->lo, p->hi);
				ok = false;
				continue;
			}
			if (p->hi >= word) {
				mdl_error(k->p, p->loc, "bit %" PRId64 " is outside the %d-bit word", p->hi, word);
				ok = false;
				continue;
			}
			for (int64_t b = p->lo; b <= p->hi; b++) {
				if (seen[b]) {
					mdl_error(k->p, p->loc, "bit %" PRId64 " is listed twice in field '%s'", b, f->name);
					ok = false;
					break;
				}
				seen[b] = true;
			}
			f->pieces[j] = (struct mdl_piece){ (int)p->hi, (int)p->lo, p->inverted };
			width += p->hi - p->lo + 1;
		}
		if (width > 64)
			mdl_error(k->p, d->name.loc, "field '%s' is %" PRId64 " bits wide (at most 64)", f->name, width);
		f->width = ok && width <= 64 ? (int)width : 1;
		k->field_bad[i] = !ok || width > 64;
		f->print = d->print;
		if (f->print == MDL_PRINT_FLOAT && !k->field_bad[i] && width != 32)
			mdl_error(k->p, d->name.loc, "field '%s' is %" PRId64 " bits wide: 'print float' needs 32 bits (binary32)",
			          f->name, width);
	}
}

/* ---- formats ---- */
void ck_formats(struct ck *k)
{
	struct mdl_model *m = k->m;
	for (int i = 0; i < m->nformats; i++) {
		struct ast_decl *d = k->formdecl[i];
		struct mdl_format *f = &m->formats[i];
		struct ck_scope sel = { .allow = CX_FIELDS, .what = "a format selector", .slot = -1 };
		if (d->expr) {
			f->selector = ck_bool(k, &sel, d->expr);
		} else {
			f->selector = ck_mk(k, MDL_E_INT, MDL_T_BOOL, d->name.loc, 0);
			f->selector->ival = 1;
		}
		f->nfields = d->names.n;
		f->fields = tsr_arena_alloc(k->A, (size_t)(d->names.n + 1) * sizeof *f->fields);
		for (int j = 0; j < d->names.n; j++) {
			struct ast_name *n = d->names.v[j];
			f->fields[j] = ck_field_ref(k, NULL, n->s, n->loc, true);
			if (f->fields[j] >= 0 && m->fields[f->fields[j]].derived) {   /* (addition) X4 */
				mdl_error(k->p, n->loc, "field '%s' is made of other fields' bits: format '%s' lists those fields",
				          n->s, f->name);
				f->fields[j] = -1;   /* as an unknown name: no overlap reports follow */
			}
			for (int l = 0; l < j && f->fields[j] >= 0; l++)
				if (f->fields[l] == f->fields[j])
					mdl_error(k->p, n->loc, "field '%s' listed twice in format '%s'", n->s, f->name);
		}
		f->nignore = d->pieces.n;
		f->ignore = tsr_arena_alloc(k->A, (size_t)(d->pieces.n + 1) * sizeof *f->ignore);
		for (int j = 0; j < d->pieces.n; j++) {
			struct ast_piece *p = d->pieces.v[j];
			if (p->inverted)
				mdl_error(k->p, p->loc, "'~' has no meaning in 'ignore'");
			if (p->hi < p->lo || (m->word_bits && p->hi >= m->word_bits)) {
				mdl_error(k->p, p->loc, p->hi < p->lo ? "bit range is backwards" : "bit %" PRId64 " is outside the %d-bit word",
				          p->hi, m->word_bits);
				f->ignore[j] = (struct mdl_piece){ -1, 0, false };
				continue;
			}
			f->ignore[j] = (struct mdl_piece){ (int)p->hi, (int)p->lo, false };
		}
		f->nslots = d->slots.n;
		f->slots = tsr_arena_alloc(k->A, (size_t)(d->slots.n + 1) * sizeof *f->slots);
		for (int j = 0; j < d->slots.n; j++) {
			struct ast_name *n = d->slots.v[j];
			struct ck_sym *y = ck_lookup(k, NS_SLOT, n->s);
			f->slots[j] = y ? y->index : -1;
			if (!y)
				mdl_error(k->p, n->loc, "undefined slot '%s'", n->s);
			for (int l = 0; l < j && y; l++)
				if (f->slots[l] == f->slots[j])
					mdl_error(k->p, n->loc, "slot '%s' listed twice in format '%s'", n->s, f->name);
		}
		f->ndef = d->defaults.n;
		f->def = tsr_arena_alloc(k->A, (size_t)(d->defaults.n + 1) * sizeof *f->def);
		for (int j = 0; j < d->defaults.n; j++) {
			struct ast_default *df = d->defaults.v[j];
			struct ck_scope cs = { .what = "a default value", .slot = -1 };
			uint64_t v;
			enum mdl_type t;
			int fi = ck_field_ref(k, NULL, df->field.s, df->field.loc, true);
			f->def[j] = (struct mdl_default){ fi, 0 };
			if (fi < 0 || ck_const(k, &cs, df->e, &v, &t) || ck_field_width_fits(k, fi, v, t, df->e->loc))
				continue;
			f->def[j].val = v & (m->fields[fi].width >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << m->fields[fi].width) - 1);
		}
		struct ck_scope us = { .allow = CX_FIELDS, .what = "a resource use", .slot = -1 };
		f->nuses = ck_uses(k, &us, &d->uses, &f->uses);
		struct ck_locals *L = tsr_arena_alloc(k->A, sizeof *L);
		struct ck_scope ss = { .allow = CX_FIELDS | CX_STATE | CX_LOCALS | CX_ATTR, .what = "a format's semantics",
		                       .L = L, .slot = -1 };
		f->nsem = d->sem.n;
		ck_stmts(k, &ss, &d->sem, &f->sem);
		f->ncommit = d->commit.n;
		ss.commit = true;   /* (addition) X6: forwards at age 0 */
		ck_stmts(k, &ss, &d->commit, &f->commit);
		f->nlocals = L->n;
		f->local_names = L->names;
	}
}

/* Items of a format's layout: listed fields, then ignore ranges. */
static const char *item_name(const struct mdl_model *m, const struct mdl_format *f, int j)
{
	return j < f->nfields ? m->fields[f->fields[j]].name : NULL;
}

static void overlap(struct ck *k, const struct mdl_format *f, int l, int j, const bool *bits, struct mdl_loc at)
{
	const char *na = item_name(k->m, f, l), *nb = item_name(k->m, f, j);
	const char *s = ck_fmt_bits(k, bits, k->m->word_bits), *pl = strpbrk(s, ":,") ? "s" : "";
	if (na && nb)
		mdl_error(k->p, at, "fields '%s' and '%s' overlap in format '%s' (bit%s %s)", na, nb, f->name, pl, s);
	else if (na || nb)
		mdl_error(k->p, at, "field '%s' overlaps ignored bits in format '%s' (bit%s %s)", na ? na : nb, f->name, pl,
		          s);
	else
		mdl_error(k->p, at, "ignore ranges overlap in format '%s' (bit%s %s)", f->name, pl, s);
}

/* Every bit covered once: each bit remembers the first item covering it; an item that finds bits taken reports
 * one overlap per earlier item (linear in the items times the word). */
void ck_format_layout(struct ck *k)
{
	struct mdl_model *m = k->m;
	int word = m->word_bits;
	if (!word)
		return;
	int *owner = tsr_arena_alloc(k->p->arena, (size_t)word * sizeof *owner);
	bool *bits = tsr_arena_alloc(k->p->arena, (size_t)word);
	for (int i = 0; i < m->nformats; i++) {
		const struct mdl_format *f = &m->formats[i];
		const struct ast_decl *d = k->formdecl[i];
		bool skip = false;
		for (int j = 0; j < f->nfields; j++)
			skip = skip || f->fields[j] < 0 || k->field_bad[f->fields[j]];
		for (int j = 0; j < f->nignore; j++)
			skip = skip || f->ignore[j].hi < 0;
		if (skip)
			continue;   /* a bad field or range, already reported */
		for (int b = 0; b < word; b++)
			owner[b] = -1;
		for (int j = 0; j < f->nfields + f->nignore; j++) {
			bool dup = false;
			for (int l = 0; l < j && l < f->nfields && j < f->nfields && !dup; l++)
				dup = f->fields[l] == f->fields[j];
			if (dup)
				continue;   /* listed twice: reported */
			const struct mdl_piece *p = j < f->nfields ? m->fields[f->fields[j]].pieces : &f->ignore[j - f->nfields];
			int np = j < f->nfields ? m->fields[f->fields[j]].npieces : 1;
			struct mdl_loc at = j < f->nfields ? ((struct ast_name *)d->names.v[j])->loc
			                                   : ((struct ast_piece *)d->pieces.v[j - f->nfields])->loc;
			int first = -1;   /* lowest-numbered earlier item met, then the next ones */
			for (;;) {
				int next = -1;
				for (int q = 0; q < np; q++)
					for (int b = p[q].lo; b <= p[q].hi; b++)
						if (owner[b] > first && (next < 0 || owner[b] < next))
							next = owner[b];
				if (next < 0)
					break;
				memset(bits, 0, (size_t)word);
				for (int q = 0; q < np; q++)
					for (int b = p[q].lo; b <= p[q].hi; b++)
						bits[b] = owner[b] == next;
				overlap(k, f, next, j, bits, at);
				first = next;
			}
			for (int q = 0; q < np; q++)
				for (int b = p[q].lo; b <= p[q].hi; b++)
					if (owner[b] < 0)
						owner[b] = j;
		}
		bool missing = false;
		for (int b = 0; b < word; b++)
			missing |= bits[b] = owner[b] < 0;
		if (missing) {
			const char *s = ck_fmt_bits(k, bits, word);
			mdl_error(k->p, f->loc, "format '%s' leaves bit%s %s uncovered", f->name, strpbrk(s, ":,") ? "s" : "", s);
		}
	}
}

