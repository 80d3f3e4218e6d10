/* Tegra's validator rules (targets/tegra/tegra.mdl "Resources and hazards", docs/targets/tegra.md "Validator
 * rules"), checked as tests/test_validate.c checks the QPU's:
 *  - every corpus program (../shared/corpus/tegra/grate/vertex/<set>/<program>.hex, 14 programs) has no report;
 *  - mutations of the corpus's instructions break each rule, and the validator names that rule, once, at the
 *    mutated instruction: a source register field (rA, rB, rC) set to 32-63 (src_reg, also in a source the op
 *    does not read: the hardware aborts "even if it's not used", seed 004), a destination field set to 32-62
 *    (dst_reg), an absolute export index set to 16-30 (export_index); the neighbouring valid codes (31, rD 63,
 *    export 0-15 and 31, a relative export) give no report;
 *  - the resources the packer relies on (one attribute index, one constant index, one A0 component per
 *    instruction) appear in an instruction's events with their values.
 * The corpus is read from the shared directory (tools/corpus.h corpus_shared_dir). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "corpus.h"
#include "registry.h"
#include "support_tegra.h"
#include "tsr.h"
#include "validate/validate.h"



static const struct tsr_target *tegra(void)
{
	const struct tsr_target *t = tsr_find_target("tegra");
	cr_assert_not_null(t);
	cr_assert_not_null(t->vdesc);
	return t;
}

static struct tegra_prog *progs;   /* the corpus's vertex programs (support_tegra.h) */
static int nprogs;

static void load_all(void)
{
	progs = tegra_corpus(&nprogs);
}

/* ---- validation ------------------------------------------------------------------------------------------ */
struct found { int n; char name[8][48]; size_t at[8]; char text[8][240]; };

static void collect(void *ctx, const struct tsr_vviol *v)
{
	struct found *f = ctx;
	if (f->n < 8) {
		snprintf(f->name[f->n], sizeof f->name[f->n], "%s", v->name);
		f->at[f->n] = v->at;
		snprintf(f->text[f->n], sizeof f->text[f->n], "%s", v->text);
	}
	f->n++;
}

static size_t run(const uint32_t *w, size_t n, struct found *f)
{
	memset(f, 0, sizeof *f);
	return tsr_validate(tegra()->vdesc, w, n, 0, collect, f);
}

static unsigned field_index(const char *name)
{
	const struct tsr_target *t = tegra();
	for (unsigned i = 0; i < t->nfields; i++)
		if (!strcmp(t->field_names[i], name))
			return i;
	cr_assert_fail("no field %s", name);
	return 0;
}

/* The words of instruction i of p with field `name` set to v, into w (a copy of the program). */
static void mutate(const struct tegra_prog *p, size_t i, const char *name, uint64_t v, uint32_t *w)
{
	const struct tsr_target *t = tegra();
	memcpy(w, p->w.w, p->w.count * t->nwords * sizeof *w);
	void *in = calloc(1, t->inst_size);
	cr_assert_eq(t->decode(w + i * t->nwords, in), 0);
	t->inst_set_field(in, field_index(name), v);
	cr_assert_eq(t->encode(in, w + i * t->nwords), 0);
	free(in);
}

Test(tegra_rules, corpus_passes)
{
	load_all();
	unsigned ninstr = 0;
	for (int k = 0; k < nprogs; k++) {
		struct found f;
		size_t n = run(progs[k].w.w, progs[k].w.count, &f);
		for (int i = 0; i < f.n && i < 8; i++)
			cr_log_error("%s: %zu %s: %s", progs[k].name, f.at[i], f.name[i], f.text[i]);
		cr_expect_eq(n, 0, "%s: %zu reports", progs[k].name, n);
		ninstr += (unsigned)progs[k].w.count;
	}
	cr_assert_eq(ninstr, 61);
	printf("tegra validate: %d programs, %u instructions, 0 reports\n", nprogs, ninstr);
}

/* Sets `field` of every corpus instruction in turn to each of codes[0..nc) and expects `rule` once at that
 * instruction (rule NULL: no report).  Returns the mutations made. */
static unsigned mutate_all(const char *field, const uint64_t *codes, int nc, const char *rule,
                           const char *only_if_field, uint64_t only_if_value)
{
	load_all();
	const struct tsr_target *t = tegra();
	unsigned made = 0;
	for (int k = 0; k < nprogs; k++) {
		const struct tegra_prog *p = &progs[k];
		uint32_t *w = malloc(p->w.count * t->nwords * sizeof *w);
		for (size_t i = 0; i < p->w.count; i++)
			for (int c = 0; c < nc; c++) {
				mutate(p, i, field, codes[c], w);
				if (only_if_field)
					mutate(&(struct tegra_prog){ .w = { .w = w, .count = p->w.count } }, i, only_if_field, only_if_value, w);
				struct found f;
				size_t n = run(w, p->w.count, &f);
				made++;
				if (!rule) {
					cr_expect_eq(n, 0, "%s: instruction %zu with %s = %llu: %zu reports (first %s: %s)", p->name, i,
					             field, (unsigned long long)codes[c], n, f.name[0], f.text[0]);
					continue;
				}
				cr_expect_eq(n, 1, "%s: instruction %zu with %s = %llu: %zu reports, not 1", p->name, i, field,
				             (unsigned long long)codes[c], n);
				if (n >= 1) {
					cr_expect_str_eq(f.name[0], rule, "%s: instruction %zu with %s = %llu", p->name, i, field,
					                 (unsigned long long)codes[c]);
					cr_expect_eq(f.at[0], i, "%s: %s = %llu at %zu reported at %zu", p->name, field,
					             (unsigned long long)codes[c], i, f.at[0]);
				}
			}
		free(w);
	}
	return made;
}

/* rA, rB, rC: 32-63 abort the program whatever the source type and whether the op reads it [SEED 004]. */
Test(tegra_rules, source_register_32_to_63)
{
	static const uint64_t bad[] = { 32, 40, 63 }, good[] = { 0, 31 };
	static const char *const fields[] = { "a_reg", "b_reg", "c_reg" };
	unsigned caught = 0, clean = 0;
	for (int f = 0; f < 3; f++) {
		caught += mutate_all(fields[f], bad, 3, "src_reg", NULL, 0);
		clean += mutate_all(fields[f], good, 2, NULL, NULL, 0);
	}
	cr_expect_eq(caught, 61 * 3 * 3);
	printf("tegra src_reg: %u mutations (rA/rB/rC = 32, 40, 63 in each corpus instruction) reported, %u valid codes quiet\n",
	       caught, clean);
}

/* rD (vector and scalar): 32-62 abort; 63 is "no register write" [SEED 004]. */
Test(tegra_rules, destination_register_32_to_62)
{
	static const uint64_t bad[] = { 32, 40, 62 }, good[] = { 0, 31, 63 };
	unsigned caught = mutate_all("dst_v", bad, 3, "dst_reg", NULL, 0) + mutate_all("dst_s", bad, 3, "dst_reg", NULL, 0);
	unsigned clean = mutate_all("dst_v", good, 3, NULL, NULL, 0) + mutate_all("dst_s", good, 3, NULL, NULL, 0);
	cr_expect_eq(caught, 61 * 2 * 3);
	printf("tegra dst_reg: %u mutations reported, %u valid codes quiet\n", caught, clean);
}

/* Export index: 16-30 abort; 0-15 and 31 (none) are valid; a relative index is known at run time only. */
Test(tegra_rules, export_index_16_to_30)
{
	uint64_t bad[15], good[17];
	for (int i = 0; i < 15; i++)
		bad[i] = 16 + (uint64_t)i;
	for (int i = 0; i < 16; i++)
		good[i] = (uint64_t)i;
	good[16] = 31;
	unsigned caught = mutate_all("exp_idx", bad, 15, "export_index", NULL, 0);
	unsigned clean = mutate_all("exp_idx", good, 17, NULL, NULL, 0);
	unsigned rel = mutate_all("exp_idx", bad, 15, NULL, "erel", 1);
	cr_expect_eq(caught, 61 * 15);
	printf("tegra export_index: %u mutations reported, %u valid (and %u relative) quiet\n", caught, clean, rel);
}

/* A program from text (one instruction a line), validated. */
static size_t run_text(const char *const *lines, int n, struct found *f)
{
	const struct tsr_target *t = tegra();
	uint32_t w[16 * 4];
	char err[256];
	cr_assert_leq(n, 16);
	for (int i = 0; i < n; i++)
		cr_assert_eq(t->assemble_one(lines[i], strlen(lines[i]), (uint64_t)i, w + 4 * i, err, sizeof err), 0,
		             "'%s': %s", lines[i], err);
	return run(w, (size_t)n, f);
}

Test(tegra_rules, written_programs)
{
	struct found f;
	static const char *const bad[] = {
		"EXEC(export[0]=vector)(cr=0)(p.xyzw); DP4v r63.x***, a[0].xyzw, c[0].xyzw",
		"EXEC; MOVv r1.xyzw, r40.xyzw",                       /* src_reg */
		"EXEC; MOVv r32.xyzw, r1.xyzw",                       /* dst_reg */
		"EXEC(export[20]=vector); MOVv r63.xyzw, r1.xyzw",   /* export_index */
		"EXEC; MOVv r1.xyzw, u40.xyzw",                       /* src_reg: an undefined source's field */
		"EXEC_END(export[A0.x + 20]=vector); MOVv r63.xyzw, r1.xyzw",   /* relative: not checked */
	};
	cr_expect_eq(run_text(bad, 6, &f), 4);
	static const char *const rule[] = { "src_reg", "dst_reg", "export_index", "src_reg" };
	for (int i = 0; i < 4 && i < f.n; i++) {
		cr_expect_str_eq(f.name[i], rule[i]);
		cr_expect_eq(f.at[i], (size_t)i + 1);
	}
}

/* ---- resources for the packer --------------------------------------------------------------------------- */
static struct tsr_vbundle *bundle_of(const char *text, uint64_t *f)
{
	static struct tsr_vbundle b;
	const struct tsr_target *t = tegra();
	uint32_t w[4];
	char err[256];
	cr_assert_eq(t->assemble_one(text, strlen(text), 0, w, err, sizeof err), 0, "'%s': %s", text, err);
	memset(&b, 0, sizeof b);
	b.f = f;
	t->vdesc->events(w, 0, &b);
	return &b;
}

/* The values of resource `name`'s uses in b, in event order; returns their number. */
static int use_values(const struct tsr_vbundle *b, const char *name, int64_t *v)
{
	const struct tsr_vdesc *vd = tegra()->vdesc;
	int r = -1, n = 0;
	for (int i = 0; i < vd->nres; i++)
		if (!strcmp(vd->res[i].name, name))
			r = i;
	cr_assert_geq(r, 0, "no resource %s", name);
	for (int i = 0; i < b->nev; i++)
		if (b->ev[i].kind == TSR_V_USE && b->ev[i].id == r)
			v[n++] = b->ev[i].val;
	return n;
}

Test(tegra_rules, shared_index_resources)
{
	uint64_t f[256];
	int64_t v[8];
	cr_assert_leq(tegra()->nfields, 256);
	struct tsr_vbundle *b = bundle_of("EXEC; MADv r1.xyzw, a[3].xyzw, c[7].xyzw, c[7].wwww", f);
	cr_expect_eq(use_values(b, "attr_index", v), 1);
	cr_expect_eq(v[0], 3);
	int n = use_values(b, "const_index", v);
	cr_expect(n >= 1);
	for (int i = 0; i < n; i++)
		cr_expect_eq(v[i], 7);     /* both constant sources: one value, one unit */
	cr_expect_eq(use_values(b, "a0_select", v), 0);
	b = bundle_of("EXEC; MOVv r1.xyzw, c[A0.y + 5].xyzw; RCPs r2.x***, c[A0.y + 5].xxxx", f);
	n = use_values(b, "const_index", v);
	cr_expect(n >= 1);
	for (int i = 0; i < n; i++)
		cr_expect_eq(v[i], 1024 + 5);   /* relative: another value than c[5] */
	cr_expect(use_values(b, "a0_select", v) >= 1);
	cr_expect_eq(v[0], 1);
	b = bundle_of("EXEC; MOVv r1.xyzw, a[A0.z + 2].xyzw", f);
	cr_expect_eq(use_values(b, "attr_index", v), 1);
	cr_expect_eq(v[0], 16 + 2);
	cr_expect_eq(use_values(b, "a0_select", v), 1);
	cr_expect_eq(v[0], 2);
	b = bundle_of("EXEC; MOVv r1.xyzw, r2.xyzw", f);
	cr_expect_eq(use_values(b, "attr_index", v), 0);
	cr_expect_eq(use_values(b, "const_index", v), 0);
}
