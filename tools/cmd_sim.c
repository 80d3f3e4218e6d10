/* `tessera sim`: runs a program in the generated simulator of its target.  The machine around the
 * processors (memory, uniforms, several processors) is the target's platform (runtime/sim/platform.h, found in
 * the registry); a target without one runs on tools/sim_generic.c.  Either way initial values (--set, --mem, --init,
 * a program's declared sections) and the printed outputs are tools/sim_values.c's: on a platform they are put into
 * each processor between its reset and its first bundle (struct tsr_platform_visit).  Memory layout used here, in
 * bus bytes: uniform streams at TOOL_UNIF_BASE + 0x100 * processor, everything else free for the program. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "registry.h"
#include "sim/platform.h"
#include "sim_values.h"
#include "tools.h"

#define TOOL_MEM_BYTES (16u << 20)   /* simulated memory: 16 MiB */
#define TOOL_UNIF_BASE 0x00100000u   /* uniform streams */

/* Whether --dump's text s is ADDR[,LEN] (a number first, no `K:`), else NAME[,NAME...] (tool_dump_names). */
static bool dump_addr(const char *s)
{
	return s[0] >= '0' && s[0] <= '9' && !strchr(s, ':');
}

/* --dump ADDR[,LEN] inside the simulated memory.  Returns 0, or -1 (printed). */
static int parse_dump(const char *s, uint64_t *addr, uint64_t *len)
{
	const char *c = strchr(s, ',');
	*len = 64;
	if (tool_opt_number("--dump", s, c ? (size_t)(c - s) : strlen(s), 0, TOOL_MEM_BYTES - 1, addr))
		return -1;
	return c ? tool_opt_u64("--dump", c + 1, 0, TOOL_MEM_BYTES - *addr, len) : 0;
}

/* What tool_run_platform does to each processor (struct tsr_platform_visit). */
struct visit_ctx {
	const struct tsr_platform *p;
	const struct tsr_sim_desc *D;
	const struct tool_values *const *vals;   /* NULL-terminated: applied in order */
	const struct tool_dump *dumps;           /* --dump NAME,...: printed after the outputs */
	int ndump;
	unsigned procs;
	bool refused;         /* a processor refused a value (said on stderr): nothing ran */
	struct tsr_buf out;   /* the processors' outputs, printed after the outcome */
};

static int visit_start(void *ctx, unsigned proc, void *sim)
{
	struct visit_ctx *v = ctx;
	for (size_t i = 0; v->vals[i]; i++)
		if (tool_values_apply(v->D, sim, v->vals[i], proc)) {
			v->refused = true;
			return -1;
		}
	return 0;
}

static void visit_end(void *ctx, unsigned proc, void *sim)
{
	struct visit_ctx *v = ctx;
	char prefix[64] = "";
	if (v->procs > 1)
		snprintf(prefix, sizeof prefix, "%s%u: ", v->p->prefix, proc);
	tool_print_outputs(&v->out, prefix, v->D, sim);
	for (int k = 0; k < v->ndump; k++)
		if (v->dumps[k].proc < 0 || (unsigned)v->dumps[k].proc == proc)
			tool_print_state(&v->out, prefix, v->D, sim, v->dumps[k].st);
}

int tool_run_platform(const struct tool_opts *o, const struct tsr_platform *p, const char *path,
		      const struct tsr_words *w, const uint32_t *unif, size_t nunif,
		      const struct tool_values *const *vals, void **keep)
{
	void *m = o->qpus >= 1 && o->qpus <= TOOL_MAX_PROCS && o->qpus <= p->max_procs
			  ? p->machine_new(TOOL_MEM_BYTES, o->qpus) : NULL;
	if (keep)
		*keep = NULL;
	if (!m) {
		fprintf(stderr, "tessera: error: cannot make a machine of %u %s%s\n", o->qpus, p->noun, o->qpus > 1 ? "s" : "");
		return TOOL_EXIT_INPUT;
	}
	uint32_t addrs[TOOL_MAX_PROCS];
	uint8_t *mem = p->mem(m);
	for (unsigned q = 0; q < o->qpus; q++) {
		addrs[q] = TOOL_UNIF_BASE + 0x100 * q;
		memcpy(mem + addrs[q], unif, nunif * 4);
	}
	static const struct tool_values *const none[] = { NULL };
	for (size_t i = 0; vals && vals[i]; i++)   /* ADDR = V,...: the memory, after the argument streams */
		tool_values_bus(vals[i], mem);
	struct tool_dump dumps[TOOL_MAX_DUMPS];
	int ndump = o->dump && !dump_addr(o->dump) && o->target->sim ? tool_dump_names(o->dump, o->target->sim, o->qpus,
											  dumps) : 0;
	struct visit_ctx vc = { p, o->target->sim, vals ? vals : none, dumps, ndump < 0 ? 0 : ndump, o->qpus, false,
				{ 0 } };
	struct tsr_platform_visit visit = { visit_start, visit_end, &vc };
	struct tsr_platform_result res;
	int st = p->run(m, w->w, w->count * o->target->nwords, o->qpus, addrs, o->max_steps,
			o->rules ? TSR_SIM_F_RULES : 0u, o->trace ? stdout : NULL, vc.D ? &visit : NULL, &res);
	if (vc.refused) {
		p->machine_free(m);
		return TOOL_EXIT_INPUT;
	}
	printf("%s after %llu rounds: %llu bundles issued on %u %s%s\n",
	       st == TSR_SIM_HALTED ? "ended" : st == TSR_SIM_OK ? "stopped (--max-steps)" : "failed",
	       (unsigned long long)res.rounds, (unsigned long long)res.issued, o->qpus, p->noun, o->qpus > 1 ? "s" : "");
	if (st != TSR_SIM_HALTED && st != TSR_SIM_OK) {
		size_t i = res.pc / o->target->pc_step;
		unsigned line = w->line && i < w->count && res.pc % o->target->pc_step == 0 ? w->line[i] : 0;
		struct tsr_diag d;
		tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
		tsr_diag_error(&d, path, line, 0, "%s%u at 0x%08x: %s", p->prefix, res.proc, res.pc, res.msg);
		tsr_diag_fini(&d);
	} else if (vc.out.len) {
		fwrite(vc.out.data, 1, vc.out.len, stdout);
	}
	tsr_buf_free(&vc.out);
	uint64_t addr, len;
	if (o->dump && dump_addr(o->dump) && !parse_dump(o->dump, &addr, &len)) {
		for (uint64_t i = 0; i + 4 <= len; i += 4) {
			uint32_t x;
			float f;
			memcpy(&x, mem + addr + i, 4);
			memcpy(&f, &x, 4);
			printf("%s0x%08" PRIx64 ": 0x%08x %-14.9g", i % 16 ? "  " : (i ? "\n" : ""), addr + i, x, f);
		}
		printf("\n");
	}
	if (keep)
		*keep = m;
	else
		p->machine_free(m);
	return st == TSR_SIM_HALTED ? TOOL_EXIT_OK : st == TSR_SIM_OK ? TOOL_EXIT_CUT : TOOL_EXIT_INPUT;
}

/* `tessera sim` through the target's simulator descriptor alone (tool_sim_generic). */
static int sim_generic(struct tool_opts *o)
{
	if (o->qpus_text || o->uniforms) {
		fprintf(stderr, "tessera: error: 'sim' on target '%s' does not take %s: it runs one processor with the "
			"initial values of --set, --mem and --init\n", o->target->name, o->qpus_text ? "--qpus" : "--uniforms");
		return TOOL_EXIT_USAGE;
	}
	struct tsr_diag d;
	struct tsr_words w;
	tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
	tool_words_init(o, &w);
	const char *name = strcmp(o->args[0], "-") ? o->args[0] : "<stdin>";
	int rc = tool_load_program(o, o->args[0], &w, &d) ? TOOL_EXIT_INPUT : tool_sim_generic(o, name, &w, stdout);
	tsr_words_free(&w);
	tsr_diag_fini(&d);
	return rc;
}

int cmd_sim(struct tool_opts *o)
{
	if (o->nargs != 1) {
		fprintf(stderr, "tessera: error: 'sim' takes one program file\n");
		return 2;
	}
	const struct tsr_platform *p = tsr_target_platform(o->target);
	if (!p)   /* a target without a platform of its own: tools/sim_generic.c */
		return sim_generic(o);
	uint32_t unif[1024];
	size_t nunif = 0;
	uint64_t addr, len, qpus = 1;
	if ((o->qpus_text && tool_opt_u64("--qpus", o->qpus_text, 1, p->max_procs < TOOL_MAX_PROCS ? p->max_procs
									     : TOOL_MAX_PROCS, &qpus)) ||
	    (o->uniforms && tool_opt_words32("--uniforms", o->uniforms, unif, 1024, &nunif)) ||
	    (o->dump && dump_addr(o->dump) && parse_dump(o->dump, &addr, &len)))
		return TOOL_EXIT_USAGE;
	o->qpus = (unsigned)qpus;
	const struct tsr_sim_desc *D = o->target->sim;
	struct tool_values src = { 0 }, opt = { 0 };
	const struct tool_values *vals[] = { &src, &opt, NULL };
	bool names = o->dump && !dump_addr(o->dump);
	if ((o->nsets || o->nmems || o->init || names) && !D) {
		fprintf(stderr, "tessera: error: target '%s' was built without a simulator\n", o->target->name);
		return TOOL_EXIT_USAGE;
	}
	struct tool_dump dumps[TOOL_MAX_DUMPS];
	if (names && tool_dump_names(o->dump, D, o->qpus, dumps) < 0)
		return TOOL_EXIT_USAGE;
	if (D && tool_values_options(o, D, o->qpus, TOOL_MEM_BYTES, &opt)) {   /* a bad one runs nothing */
		tool_values_free(&opt);
		return TOOL_EXIT_USAGE;
	}
	struct tsr_diag d;
	struct tsr_words w;
	tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
	tool_words_init(o, &w);
	const char *name = strcmp(o->args[0], "-") ? o->args[0] : "<stdin>";
	int rc = tool_load_program(o, o->args[0], &w, &d) ? TOOL_EXIT_INPUT : TOOL_EXIT_OK;
	if (!rc && D && tool_values_sources(o, D, o->qpus, TOOL_MEM_BYTES, &w, name, &src, &d))
		rc = TOOL_EXIT_INPUT;
	if (!rc)
		rc = tool_run_platform(o, p, name, &w, unif, nunif, vals, NULL);
	tool_values_free(&src);
	tool_values_free(&opt);
	if (rc == TOOL_EXIT_CUT)
		fprintf(stderr, "%s: error: run cut short by --max-steps %" PRIu64 " before every %s ended\n", name,
			o->max_steps, p->noun);
	tsr_words_free(&w);
	tsr_diag_fini(&d);
	return rc;
}
