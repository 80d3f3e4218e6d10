/* The bundle packer on Tegra's corpus (docs/pack.md; docs/targets/tegra.md "Packer"): each of grate's 14 vertex
 * programs (../shared/corpus/tegra/grate/vertex/<set>/<program>.hex, hand-written) is unbundled into single
 * operations (tsr_unbundle) and packed again (tsr_pack_text).  Per program the test prints grate's instruction
 * count, a lower bound, the operations and pinned bundles of the unbundled program, and ours.
 *
 * The lower bound is the slot bound: an instruction issues one vector and one scalar op, so a program needs at
 * least as many instructions as it has non-idle ops of either unit (idle: the `nop` attribute, docs/mdl.md X12).
 * It must hold for grate's own schedules (checked).  Every program must pack, to no more instructions than
 * grate's and at least the packer's own lower bound; the packed program must assemble, validate with no report,
 * and compute what grate's computes in the generated simulator: from the same random attributes, constants and
 * temporaries (8 states a program), both run to their end and leave the same exports and temporaries.
 * The corpus is read from the shared directory (tools/corpus.h corpus_shared_dir). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "corpus.h"
#include "pack/pack.h"
#include "registry.h"
#include "support_tegra.h"
#include "sim/sim.h"
#include "tsr.h"
#include "validate/validate.h"



static const struct tsr_target *tegra(void)
{
	const struct tsr_target *t = tsr_find_target("tegra");
	cr_assert_not_null(t);
	return t;
}

static struct tegra_prog *progs;   /* the corpus's vertex programs (support_tegra.h) */
static int nprogs;

static void load_all(void)
{
	progs = tegra_corpus(&nprogs);
}

static unsigned slot_index(const char *name)
{
	const struct tsr_target *t = tegra();
	for (unsigned s = 0; s < t->nslots; s++)
		if (!strcmp(t->slot_names[s], name))
			return s;
	cr_assert_fail("no slot %s", name);
	return 0;
}

/* Whether op is idle: the attribute nop (docs/mdl.md X12). */
static bool idle(unsigned op)
{
	const struct tsr_target *t = tegra();
	if (op >= t->nops)
		return true;
	for (unsigned a = 0; a < t->nattrs && a < 64; a++)
		if (!strcmp(t->attr_names[a], "nop"))
			return (t->op_attrs[op] >> a & 1) != 0;
	cr_assert_fail("tegra has no attribute nop");
	return false;
}

/* The slot bound of a program: max(non-idle vector ops, non-idle scalar ops), at least 1. */
static unsigned slot_bound(const struct tegra_prog *p)
{
	const struct tsr_target *t = tegra();
	unsigned vs = slot_index("vec"), ss = slot_index("sca"), nv = 0, ns = 0;
	void *in = calloc(1, t->inst_size);
	for (size_t i = 0; i < p->w.count; i++) {
		cr_assert_eq(t->decode(p->w.w + i * t->nwords, in), 0);
		nv += !idle(t->inst_op(in, vs));
		ns += !idle(t->inst_op(in, ss));
	}
	free(in);
	unsigned b = nv > ns ? nv : ns;
	return b ? b : 1;
}

/* The simulator's state index of the regfile or state called name. */
static int state_index(const struct tsr_sim_desc *D, const char *name)
{
	int s = tsr_sim_find_state(D, name, strlen(name));
	cr_assert_geq(s, 0, "tegra has no state %s", name);
	return s;
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Runs the n instructions w from pc 0 in S until the end of the program (at most 1000 steps); returns the last
 * code (TSR_SIM_HALTED when it ended). */
static int run_prog(const struct tsr_sim_desc *D, void *S, const uint32_t *w, size_t n)
{
	*D->state(S, state_index(D, "pc"), 0) = 0;
	for (int k = 0; k < 1000; k++) {
		int rc = D->step(S, w, n * 4);
		if (rc != TSR_SIM_OK)
			return rc;
	}
	return TSR_SIM_OK;
}

/* Runs grate's program a (na instructions) and ours b (nb) from the same random state (seed): both must end
 * and leave the same exports o[0..15] and temporaries r[0..31], bit for bit. */
static void same_results(const char *name, const uint32_t *a, size_t na, const uint32_t *b, size_t nb, uint64_t seed)
{
	const struct tsr_sim_desc *D = tegra()->sim;
	cr_assert_not_null(D);
	void *S[2];
	int rc[2];
	int sv = state_index(D, "v"), sc = state_index(D, "c"), sr = state_index(D, "r"), so = state_index(D, "o");
	for (int k = 0; k < 2; k++) {
		S[k] = calloc(1, D->sim_size);
		D->init(S[k]);
		uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
		for (int e = 0; e < 16; e++)
			for (int c = 0; c < 4; c++) {
				float f = (float)(int)(rnd(&x) % 2001 - 1000) / 125.0f;
				memcpy(&D->state(S[k], sv, e)[c], &f, 4);
			}
		for (int e = 0; e < 64; e++)
			for (int c = 0; c < 4; c++) {
				float f = (float)(int)(rnd(&x) % 2001 - 1000) / 125.0f;
				memcpy(&D->state(S[k], sc, e)[c], &f, 4);
			}
		for (int e = 0; e < 32; e++)
			for (int c = 0; c < 4; c++) {
				float f = (float)(int)(rnd(&x) % 2001 - 1000) / 125.0f;
				memcpy(&D->state(S[k], sr, e)[c], &f, 4);
			}
		rc[k] = k ? run_prog(D, S[k], b, nb) : run_prog(D, S[k], a, na);
	}
	cr_expect_eq(rc[0], TSR_SIM_HALTED, "%s: grate's program does not end (%d)", name, rc[0]);
	cr_expect_eq(rc[1], TSR_SIM_HALTED, "%s: the packed program does not end (%d)", name, rc[1]);
	for (int e = 0; e < 16; e++)
		cr_expect_arr_eq(D->state(S[0], so, e), D->state(S[1], so, e), 16, "%s seed %llu: export o[%d] differs",
		                 name, (unsigned long long)seed, e);
	for (int e = 0; e < 32; e++)
		cr_expect_arr_eq(D->state(S[0], sr, e), D->state(S[1], sr, e), 16, "%s seed %llu: r%d differs", name,
		                 (unsigned long long)seed, e);
	for (int k = 0; k < 2; k++) {
		D->fini(S[k]);
		free(S[k]);
	}
}

static unsigned count_lines(const char *s, size_t n)
{
	unsigned k = 0;
	for (size_t i = 0; i < n; i++)
		k += s[i] == '\n';
	return k;
}

Test(tegra_pack, counts_against_grate, .timeout = 600)
{
	load_all();
	const struct tsr_target *t = tegra();
	unsigned tot_grate = 0, tot_bound = 0, tot_ours = 0, packed = 0, tot_reports = 0;
	printf("tegra pack: program: grate's instructions, slot bound, operations (pinned bundles), ours\n");
	for (int k = 0; k < nprogs; k++) {
		const struct tegra_prog *p = &progs[k];
		unsigned n = (unsigned)p->w.count, bound = slot_bound(p);
		cr_expect_leq(bound, n, "%s: the slot bound %u exceeds grate's %u instructions", p->name, bound, n);
		struct tsr_buf ops = { 0 }, out = { 0 };
		struct tsr_diag d;
		tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
		unsigned pinned = 0;
		int rc = tsr_unbundle(t, p->name, p->w.w, NULL, p->w.count, 0, &ops, &pinned, &d);
		cr_expect_eq(rc, 0, "%s: unbundle failed", p->name);
		unsigned nops = ops.data ? count_lines(ops.data, ops.len) : 0;
		cr_expect_geq(nops, n, "%s: %u operations from %u instructions", p->name, nops, n);
		tsr_diag_fini(&d);
		tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
		struct tsr_pack_stats st;
		memset(&st, 0, sizeof st);
		rc = ops.data ? tsr_pack_text(t, p->name, ops.data, ops.len, &out, &st, &d) : -1;
		char ours[300];
		if (rc == 0) {
			unsigned nb = st.nbundles;
			cr_expect_leq(nb, n, "%s: %u instructions, grate's %u", p->name, nb, n);
			cr_expect_leq(st.lower, nb, "%s: the packer's bound %u exceeds its %u", p->name, st.lower, nb);
			cr_expect_geq(nb, bound, "%s: %u instructions, below the slot bound %u", p->name, nb, bound);
			/* the output assembles to nb instructions that validate and compute what grate's do */
			struct tsr_words pw;
			tsr_words_init(&pw, t->word_bits);
			struct tsr_diag ad;
			tsr_diag_init(&ad, TSR_DIAG_PRINT, stderr);
			cr_assert_eq(t->assemble(p->name, out.data, out.len, &pw, &ad), 0, "%s: the output does not assemble",
			             p->name);
			tsr_diag_fini(&ad);
			cr_expect_eq(pw.count, nb, "%s: %zu instructions assembled, %u packed", p->name, pw.count, nb);
			unsigned reports = (unsigned)tsr_validate(t->vdesc, pw.w, pw.count, 0, NULL, NULL);
			cr_expect_eq(reports, 0, "%s: the packed program breaks %u rules", p->name, reports);
			tot_reports += reports;
			for (uint64_t seed = 1; seed <= 8; seed++)
				same_results(p->name, p->w.w, p->w.count, pw.w, pw.count, seed);
			tsr_words_free(&pw);
			snprintf(ours, sizeof ours, "%u (packer's bound %u)", nb, st.lower);
			tot_ours += nb;
			packed++;
		} else {
			cr_expect_fail("%s: not packed: %s", p->name, d.count ? d.entries[0].message : "?");
			snprintf(ours, sizeof ours, "not packed: %s", d.count ? d.entries[0].message : "?");
		}
		printf("  %-60s %2u %2u %2u (%u) %s\n", p->name, n, bound, nops, pinned, ours);
		tot_grate += n;
		tot_bound += bound;
		tsr_pack_stats_free(&st);
		tsr_diag_fini(&d);
		tsr_buf_free(&ops);
		tsr_buf_free(&out);
	}
	printf("tegra pack: %d programs: grate %u instructions, slot bound %u; %u packed: %u instructions, %u validator "
	       "reports, 8 random states each computing grate's exports and temporaries\n", nprogs, tot_grate, tot_bound,
	       packed, tot_ours, tot_reports);
	cr_expect_eq(packed, (unsigned)nprogs);
	cr_expect_leq(tot_ours, tot_grate);
}

/* A bundle whose EXEC part saturates both ops' results and exports to an index relative to A0.x: the part reads
 * A0, so it is no pure modifier, and split off alone it took the saturation away from the ops (found by
 * fuzz/fuzz_repack.c: the unbundled and re-packed program left r3.z and r0.z unsaturated).  The unbundler must
 * keep such a bundle whole; whatever it writes must pack to a program that computes what the original computes. */
Test(tegra_pack, unbundle_keeps_an_exec_part_that_saturates)
{
	const struct tsr_target *t = tegra();
	static const char src[] =
		"EXEC(export[A0.x + 31]=scalar)(saturate)(cr=0)(p.xyzw) DP3v r3.**z*, r4.xyzw, c[3].xyzw "
		"RCPs r0.**z*, c[3].wwww;\n"
		"EXEC_END(export[0]=vector)(cr=0)(p.xyzw) MOVv r63.xy**, a[1].xyzw;\n";
	struct tsr_diag d;
	tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
	struct tsr_words ow, pw;
	tsr_words_init(&ow, t->word_bits);
	tsr_words_init(&pw, t->word_bits);
	cr_assert_eq(t->assemble("saturate.s", src, strlen(src), &ow, &d), 0);
	cr_assert_eq(ow.count, 2);
	struct tsr_buf ops = { 0 }, out = { 0 };
	unsigned pinned = 0;
	cr_assert_eq(tsr_unbundle(t, "saturate.s", ow.w, NULL, ow.count, 0, &ops, &pinned, &d), 0);
	cr_assert_eq(tsr_pack_text(t, "unbundled", ops.data, ops.len, &out, NULL, &d), 0, "not packed:\n%s", ops.data);
	cr_assert_eq(t->assemble("packed", out.data, out.len, &pw, &d), 0);
	for (uint64_t seed = 1; seed <= 8; seed++)
		same_results("saturate.s", ow.w, ow.count, pw.w, pw.count, seed);
	tsr_buf_free(&ops);
	tsr_buf_free(&out);
	tsr_words_free(&ow);
	tsr_words_free(&pw);
	tsr_diag_fini(&d);
}
