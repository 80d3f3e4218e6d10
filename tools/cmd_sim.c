/* `tessera sim`: runs a program in the generated simulator of its target.  The machine around the
 * processors (memory, uniforms, several processors) is the target's platform; the QPU's is
 * targets/qpu/qpu_hooks.h (qpu_run over a qpu_machine).  Memory layout used here, in bus bytes:
 * uniform streams at TOOL_UNIF_BASE + 0x100 * qpu, everything else free for the program. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qpu_hooks.h"
#include "tools.h"

#define TOOL_MEM_BYTES (16u << 20)   /* simulated memory: 16 MiB */
#define TOOL_UNIF_BASE 0x00100000u   /* uniform streams */

/* Parses "1, 2.5, 0x10, -3" into 32-bit words (floats as binary32 bits).  Returns the count or -1. */
static int parse_uniforms(const char *s, uint32_t *out, int max)
{
	int n = 0;
	while (s && *s) {
		while (*s == ' ' || *s == ',')
			s++;
		if (!*s)
			break;
		if (n == max)
			return -1;
		char *end;
		errno = 0;
		long long v = strtoll(s, &end, 0);
		if (end != s && (*end == ',' || *end == 0 || *end == ' ') && !errno && v >= INT32_MIN && v <= UINT32_MAX) {
			out[n++] = (uint32_t)v;
		} else {
			float f = strtof(s, &end);
			if (end == s || (*end && *end != ',' && *end != ' '))
				return -1;
			memcpy(&out[n++], &f, 4);
		}
		s = end;
	}
	return n;
}

/* Runs program w (read from `path`, for diagnostics) on o->qpus QPUs; prints the outcome and o->dump.  A run
 * that fails is reported as `path:line: error: qpuN at 0x...: message`, line being the source line of the
 * instruction at that address (none when it has no line or lies outside the program). */
int tool_run_qpu(const struct tool_opts *o, const char *path, const struct tsr_words *w, const uint32_t *unif,
		 int nunif, struct qpu_machine **keep)
{
	if (o->qpus < 1 || o->qpus > QPU_MAX_QPUS) {
		fprintf(stderr, "tessera: error: --qpus takes 1..%d\n", QPU_MAX_QPUS);
		return 2;
	}
	struct qpu_machine *m = qpu_machine_new(TOOL_MEM_BYTES, o->qpus);
	uint32_t addrs[QPU_MAX_QPUS];
	uint8_t *mem = qpu_machine_mem(m);
	for (unsigned q = 0; q < o->qpus; q++) {
		addrs[q] = TOOL_UNIF_BASE + 0x100 * q;
		memcpy(mem + addrs[q], unif, (size_t)nunif * 4);
	}
	struct qpu_run_result res;
	int st = qpu_run_flags(m, w->w, w->count * 2, o->qpus, addrs, o->max_steps, o->rules ? TSR_SIM_F_RULES : 0u,
			       o->trace ? stdout : NULL, &res);
	uint64_t total = 0;
	for (unsigned q = 0; q < o->qpus; q++)
		total += res.issued[q];
	printf("%s after %llu rounds: %llu bundles issued on %u QPU%s\n",
	       st == TSR_SIM_HALTED ? "ended" : st == TSR_SIM_OK ? "stopped (--max-steps)" : "failed",
	       (unsigned long long)res.rounds, (unsigned long long)total, o->qpus, o->qpus > 1 ? "s" : "");
	if (st != TSR_SIM_HALTED && st != TSR_SIM_OK) {
		size_t i = res.pc / o->target->pc_step;
		unsigned line = w->line && i < w->count && res.pc % o->target->pc_step == 0 ? w->line[i] : 0;
		struct tsr_diag d;
		tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
		tsr_diag_error(&d, path, line, 0, "qpu%u at 0x%08x: %s", res.qpu, res.pc, res.msg);
		tsr_diag_fini(&d);
	}
	if (o->dump) {
		unsigned long addr, len;
		char *end;
		addr = strtoul(o->dump, &end, 0);
		len = *end == ',' ? strtoul(end + 1, &end, 0) : 64;
		if (*end || addr >= TOOL_MEM_BYTES || len > TOOL_MEM_BYTES - addr) {
			fprintf(stderr, "tessera: error: --dump takes ADDR,LEN inside %u bytes of memory\n", TOOL_MEM_BYTES);
			st = TSR_SIM_ERROR;
		} else {
			for (unsigned long i = 0; i + 4 <= len; i += 4) {
				uint32_t x;
				float f;
				memcpy(&x, mem + addr + i, 4);
				memcpy(&f, &x, 4);
				printf("%s0x%08lx: 0x%08x %-14.9g", i % 16 ? "  " : (i ? "\n" : ""), addr + i, x, f);
			}
			printf("\n");
		}
	}
	if (keep)
		*keep = m;
	else
		qpu_machine_free(m);
	return st == TSR_SIM_HALTED || st == TSR_SIM_OK ? 0 : 1;
}

int cmd_sim(struct tool_opts *o)
{
	if (o->nargs != 1) {
		fprintf(stderr, "tessera: error: 'sim' takes one program file\n");
		return 2;
	}
	if (strcmp(o->target->name, "qpu")) {
		fprintf(stderr, "tessera: error: no simulator platform for target '%s' yet\n", o->target->name);
		return 1;
	}
	uint32_t unif[1024];
	int nunif = parse_uniforms(o->uniforms, unif, 1024);
	if (nunif < 0) {
		fprintf(stderr, "tessera: error: --uniforms takes up to 1024 comma-separated numbers\n");
		return 2;
	}
	struct tsr_diag d;
	struct tsr_words w;
	tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
	tsr_words_init(&w, o->target->word_bits);
	const char *name = strcmp(o->args[0], "-") ? o->args[0] : "<stdin>";
	int rc = 1;
	if (!tool_load_program(o, o->args[0], &w, &d)) {
		if (w.count == 0)   /* a file with no instruction (empty, or comments and directives only) */
			tsr_diag_error(&d, name, 0, 0, "empty program: no instruction to run");
		else
			rc = tool_run_qpu(o, name, &w, unif, nunif, NULL);
	}
	tsr_words_free(&w);
	tsr_diag_fini(&d);
	return rc;
}
