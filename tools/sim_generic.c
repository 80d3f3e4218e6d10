/* `tessera sim` on a target without a platform of its own (docs/tools.md "sim"): one processor of the target's
 * generated simulator, reached only through its descriptor (runtime/sim/sim.h struct tsr_sim_desc), any word size
 * and pc_step.  Initial values of declared state and of address spaces come from the command line (--set, --mem)
 * and from a text file (--init); after the run the description's `output` state and spaces are printed (docs/mdl.md
 * "Machine state"), and --dump NAME prints any other.
 *
 * The assignments' syntax and the printing are tools/sim_values.c's, shared with a platform's run (tools/cmd_sim.c).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim/sim.h"
#include "sim_values.h"

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
	struct tool_values src = { 0 }, opt = { 0 };
	struct tool_dump dumps[TOOL_MAX_DUMPS];
	int ndump = 0;
	if (tool_values_options(o, D, 0, 0, &opt) || (ndump = tool_dump_names(o->dump, D, 0, dumps)) < 0) {
		tool_values_free(&opt);
		return TOOL_EXIT_USAGE;
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
	if (tool_values_sources(o, D, 0, 0, w, path, &src, &d) || tool_values_apply(D, sim, &src, 0) ||
	    tool_values_apply(D, sim, &opt, 0))
		rc = TOOL_EXIT_INPUT;
	tool_values_free(&src);
	tool_values_free(&opt);
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
			struct tsr_buf b = { 0 };
			tool_print_outputs(&b, "", D, sim);
			for (int k = 0; k < ndump; k++)
				tool_print_state(&b, "", D, sim, dumps[k].st);
			if (b.len)
				fwrite(b.data, 1, b.len, out);
			tsr_buf_free(&b);
		}
	}
	tsr_buf_free(&tc.b);
	D->fini(sim);
	free(sim);
	tsr_diag_fini(&d);
	return rc;
}
