/* Initial values and printed results of `tessera sim` on any target (docs/tools.md "sim"), shared by the run on a
 * target's platform (tools/cmd_sim.c) and the run of one processor through the simulator descriptor alone
 * (tools/sim_generic.c).  Everything goes through struct tsr_sim_desc (runtime/sim/sim.h); `sim` is a simulator
 * state of that descriptor.
 *
 * Assignments (one per --set / --mem value, one per line of an --init file; blanks around tokens are free):
 *   NAME = V            a scalar state
 *   NAME[I] = V,...     a regfile element
 *   NAME[I].C = V,...   component C (x, y, z, w or its number) of an element of several components (vec4)
 *   SPACE:ADDR = V,...  written through the space's write entry for ADDR (--mem; a file line too)
 *   ADDR = V,...        (a platform's run) 32-bit words from byte address ADDR (a multiple of 4) of the platform's
 *                       memory, the bus memory its processors share (--mem; a file line too); no K: prefix
 *   K:ASSIGN            (several processors, a platform's) only processor K (0..processors-1); else every one
 * Values are tool_word32's.  An element takes one value (every lane and component gets it) or exactly as many as it
 * holds (lanes x components, lane by lane); a component one per lane.  The values of a run are applied in this
 * order: a program's declared sections (`.constants [0].z = 0.0;`, struct tsr_words.meta), --init's, the options'.
 */
#ifndef TOOLS_SIM_VALUES_H
#define TOOLS_SIM_VALUES_H
#include "sim/sim.h"
#include "tools.h"

#define TOOL_ASSIGN_MAXV 256   /* values of one assignment: lanes (<= 32) x components (<= 8) */

struct tool_assign {
	bool space;      /* SPACE:ADDR or a bus address (else a state) */
	bool bus;        /* ADDR: the platform's memory (elem the byte address; idx unused), not a processor's */
	int proc;        /* the processor it is for, -1: every one */
	int idx;         /* state or space index */
	int64_t elem;    /* regfile element, space address; -1 for a scalar state */
	int comp;        /* component, or -1 for all */
	const char *what;/* the name an error applying it is reported under (a file, "tessera") */
	uint32_t v[TOOL_ASSIGN_MAXV];
	size_t nv;
};

/* The initial values of a run: n assignments, applied in order. */
struct tool_values {
	struct tool_assign *a;
	size_t n;
};

/* Parses --set and --mem of o (nprocs: processors run, for the K: prefix; 0: no prefix taken; bus: bytes of the
 * platform's memory that a bare `ADDR = V,...` writes, 0: no platform, no such form) into v (appended).
 * Returns 0, or -1 with `tessera: error: --set 'TEXT': message (at column N)` on stderr (a usage error). */
int tool_values_options(const struct tool_opts *o, const struct tsr_sim_desc *D, unsigned nprocs, uint64_t bus,
			struct tool_values *v);
/* Parses the values of program w's declared sections (read from path) into v (appended), then, when they are all
 * good, o->init's lines (every line read first).  Returns 0, or -1 with `path:line: error: ...` /
 * `FILE:LINE:COL: error: ...` reported to d (an input error). */
int tool_values_sources(const struct tool_opts *o, const struct tsr_sim_desc *D, unsigned nprocs, uint64_t bus,
			const struct tsr_words *w, const char *path, struct tool_values *v, struct tsr_diag *d);
/* Puts the assignments of v for processor proc (those for every processor and those for proc) into sim, in order
 * (not the bus memory's: tool_values_bus).  Returns 0, or -1 at the first one the simulator refused
 * (`WHAT: error: message` on stderr). */
int tool_values_apply(const struct tsr_sim_desc *D, void *sim, const struct tool_values *v, unsigned proc);
/* Writes v's assignments to the platform's memory (mem, the bus bytes given when they were parsed) in order, each
 * value a little-endian 32-bit word from its address on. */
void tool_values_bus(const struct tool_values *v, uint8_t *mem);
void tool_values_free(struct tool_values *v);

/* One name of --dump NAME[,NAME...]: state st printed after the run, for processor proc (-1: every one). */
struct tool_dump {
	int st;
	int proc;
};
#define TOOL_MAX_DUMPS 64
/* Parses --dump's NAME[,NAME...] (each `K:NAME`, processor K only, when nprocs > 0) into out (TOOL_MAX_DUMPS at
 * most).  Returns the count, or -1 with `tessera: error: --dump 'NAME': ...` on stderr (a usage error). */
int tool_dump_names(const char *s, const struct tsr_sim_desc *D, unsigned nprocs, struct tool_dump *out);

/* Appends every element of state st to b, one line each: `NAME[e] = v ...` (NAME = ... for a scalar); float state
 * as binary32 with the words after it in parentheses.  prefix (may be "") starts every line. */
void tool_print_state(struct tsr_buf *b, const char *prefix, const struct tsr_sim_desc *D, void *sim, int st);
/* Appends the description's `output` state and spaces (docs/mdl.md "Machine state") of sim to b, as
 * tool_print_state and, for a space, `SPACE:ADDR = v ...` for every address whose read entry is a state element. */
void tool_print_outputs(struct tsr_buf *b, const char *prefix, const struct tsr_sim_desc *D, void *sim);
#endif
