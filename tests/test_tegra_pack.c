/* The bundle packer on Tegra's corpus (docs/pack.md; docs/targets/tegra.md "Packer"): each of grate's 14 vertex
 * programs (../shared/corpus/tegra/grate/vertex/<set>/<program>.hex, hand-written) is unbundled into single
 * operations (tsr_unbundle) and packed again (tsr_pack_text).  Per program the test prints grate's instruction
 * count, a lower bound, the operations and pinned bundles of the unbundled program, and ours.
 *
 * The lower bound is the slot bound: an instruction issues one vector and one scalar op, so a program needs at
 * least as many instructions as it has non-idle ops of either unit (idle: the `nop` attribute, docs/mdl.md X12).
 * It must hold for grate's own schedules (checked).  Ours, when the packer packs the program, must be no more
 * than grate's and at least the packer's own lower bound; when it cannot, the reason is a diagnostic (printed),
 * never a crash.  docs/targets/tegra.md "Packer" says why Tegra cannot be packed yet.
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
#include "tsr.h"



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
	unsigned tot_grate = 0, tot_bound = 0, tot_ours = 0, packed = 0;
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
			snprintf(ours, sizeof ours, "%u (packer's bound %u)", nb, st.lower);
			tot_ours += nb;
			packed++;
		} else {
			/* a refusal is a diagnostic and leaves no output */
			cr_expect_gt(d.errors, 0, "%s: pack failed without a diagnostic", p->name);
			cr_expect(out.len == 0, "%s: output written on error", p->name);
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
	printf("tegra pack: %d programs: grate %u instructions, slot bound %u; %u packed (%u instructions)\n", nprogs,
	       tot_grate, tot_bound, packed, tot_ours);
}
