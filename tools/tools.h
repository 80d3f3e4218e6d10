/* The `tessera` driver: one command per file (cmd_*.c), every target through its
 * `struct tsr_target` descriptor (tools/registry.h). */
#ifndef TOOLS_TOOLS_H
#define TOOLS_TOOLS_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "target.h"
#include "hexio.h"
#include "diag.h"
#include "fileout.h"

/* Exit status of every command (docs/tools.md "Exit status"). */
enum {
	TOOL_EXIT_OK = 0,     /* success */
	TOOL_EXIT_INPUT = 1,  /* an error in the input, or the program failed (diagnostics printed) */
	TOOL_EXIT_USAGE = 2,  /* a bad command line: unknown command or option, a value out of range */
	TOOL_EXIT_CUT = 3     /* the run was cut short by a limit (sim --max-steps, gpu-fft --max-rounds) */
};

/* Options shared by the commands (parsed in tessera.c; each is taken only by the commands that use it). */
struct tool_opts {
	const struct tsr_target *target; /* --target NAME (default: the first built target) */
	const char *output;              /* -o FILE (NULL: standard output) */
	enum tsr_wordfmt infmt, outfmt;  /* --input-format / --output-format hex|bin (|auto) */
	uint64_t base;                   /* --base ADDR: byte address of the first instruction (asm, dis,
	                                    validate, unbundle; a multiple of pc_step below 2^32) */
	bool trace;                      /* --trace: print every bundle executed with its writes */
	const char *qpus_text;           /* --qpus N as given (sim checks 1..its platform's processors) */
	unsigned qpus;                   /* processors to run (sim: from qpus_text, default 1) */
	uint64_t max_steps;              /* --max-steps N (1..2^64-1) */
	const char *uniforms;            /* --uniforms v,v,... (numbers or floats) */
	const char *dump;                /* --dump ADDR,LEN: memory to print after a run (a platform's processors);
	                                    --dump [K:]NAME[,...]: declared state to print (any target) */
	const char **sets;               /* --set NAME[=...] (sim, repeatable): initial values of state */
	int nsets;
	const char **mems;               /* --mem SPACE:ADDR=V,... (sim, repeatable): initial values through a space;
	                                    ADDR=V,...: words of a platform's memory */
	int nmems;
	const char *init;                /* --init FILE (sim): initial values, one assignment a line */
	bool fast;                       /* --effort list: pack by list scheduling only (TSR_PACK_LIST) */
	bool deep;                       /* --effort deep: also search the router's decisions (TSR_PACK_DEEP) */
	bool rules;                      /* --rules / --no-rules: sim checks every issued bundle against the
	                                    description's hazard rules (TSR_SIM_F_RULES; default TOOL_SIM_RULES) */
	int nargs;
	char **args;                     /* positional arguments */
};

/* Whether `tessera sim` (and `demo`) check the description's rules when neither --rules nor --no-rules
 * is given (docs/PERFORMANCE.md "Rule checks" measures the cost). */
#define TOOL_SIM_RULES true

struct tsr_platform;   /* runtime/sim/platform.h */
struct tool_values;    /* tools/sim_values.h */

/* Processors `tessera sim --qpus N` runs at most, whatever the platform allows (its uniform streams lie 0x100 bytes
 * apart from 0x00100000, tools/cmd_sim.c). */
#define TOOL_MAX_PROCS 64u

/* Runs program w (read from `path`, for diagnostics) on o->qpus processors (1..p->max_procs, at most
 * TOOL_MAX_PROCS) of a new machine of target o->target's platform p, each with the nunif words at unif as its
 * uniforms; prints the outcome (`ended after N rounds: M bundles issued on K NOUNs`) and o->dump (ADDR[,LEN] or
 * [K:]NAME,..., checked by the caller).  vals (NULL: none; else NULL-terminated): initial values put into every
 * processor after the platform reset it, before the first bundle (tool_values_apply), and into the memory after the
 * uniforms (tool_values_bus); after a run that did not fail, the declared outputs of every processor and the state
 * --dump names are printed after the outcome (prefixed `PREFIXn: ` when several ran).  A processor
 * that fails is reported as `path:line: error: PREFIXn at 0x...: message`,
 * line being the source line of the instruction at that address (left out when it has none or lies outside the
 * program).  *keep (when keep is not NULL) gets the machine, for the caller to read and free with
 * p->machine_free; else it is freed here.  Returns TOOL_EXIT_OK when every processor ended, TOOL_EXIT_CUT when
 * o->max_steps rounds ran first, TOOL_EXIT_INPUT when one failed or no machine could be made. */
int tool_run_platform(const struct tool_opts *o, const struct tsr_platform *p, const char *path,
		      const struct tsr_words *w, const uint32_t *unif, size_t nunif,
		      const struct tool_values *const *vals, void **keep);

/* `tessera sim` on a target without a platform of its own (tools/sim_generic.c, docs/tools.md "sim"): one
 * processor from the target's simulator descriptor, initial values from o->sets, o->mems and o->init, program w
 * (read from path) run from address 0 until it halts, fails or o->max_steps bundles ran; prints the outcome and
 * the declared outputs (and o->dump's state) to out, diagnostics to stderr.  Returns TOOL_EXIT_*. */
int tool_sim_generic(const struct tool_opts *o, const char *path, const struct tsr_words *w, FILE *out);
/* A 32-bit value as the sim options take it, [s, s+n): an integer -2^31..2^32-1 (decimal or 0x-hex; negative
 * as two's complement) or a decimal float (binary32 bits; `1.5`, `-2e3`, `inf`, `nan`).  Returns 0, or -1 with
 * *why (not a number, too large). */
int tool_word32(const char *s, size_t n, uint32_t *out, const char **why);

/* Each command returns the process exit status (TOOL_EXIT_*). */
int cmd_asm(struct tool_opts *o);
int cmd_dis(struct tool_opts *o);
int cmd_sim(struct tool_opts *o);
int cmd_demo(struct tool_opts *o);
/* `tessera validate FILE...` (tools/cmd_validate.c): the target's hazard rules; 0 when every program passes. */
int cmd_validate(struct tool_opts *o);
/* `tessera pack` / `tessera unbundle` (tools/cmd_pack.c, tools/cmd_unbundle.c; docs/pack.md). */
int cmd_pack(struct tool_opts *o);
int cmd_unbundle(struct tool_opts *o);
/* `tessera gpu-fft ...`: parses its own arguments (those after the command name); tools/cmd_gpufft.c. */
int cmd_gpufft(int argc, char **argv);

/* Initialises w for o->target's programs: its word width and its files' word order (tsr_words.msw_first from
 * the target's word_msw_first, docs/mdl.md X10). */
void tool_words_init(const struct tool_opts *o, struct tsr_words *w);

/* Reads a program for o->target from path ("-" = standard input) in o->infmt; TSR_WORDS_AUTO: by
 * content (tsr_words_detect: binary, hex words or assembly; never by name or size).  Assembly is
 * assembled with its first instruction at o->base.  An empty program, or one that would pass 2^32 from
 * o->base, is an error.  Returns 0, or -1 after printing diagnostics (`file:line:col: error: ...`). */
int tool_load_program(const struct tool_opts *o, const char *path, struct tsr_words *out, struct tsr_diag *d);
/* Reads the whole of path ("-" = standard input, named `<stdin>` in diagnostics) into b.  Returns 0 or -1
 * (reported). */
int tool_read_input(const char *path, struct tsr_buf *b, struct tsr_diag *d);
/* The same for programs of any size: a named hex or binary file is read in chunks into out with out->lean
 * set (words and lines, no comments; about 12 bytes per 64-bit instruction) and *fmt is set to its format
 * (TSR_WORDS_HEX: comments can be read back with tsr_hex_comments_*); assembly and standard input are
 * read as tool_load_program does (*fmt = TSR_WORDS_AUTO, comments kept).  Identical words, lines and
 * diagnostics.  Returns 0 or -1. */
int tool_load_words(const struct tool_opts *o, const char *path, struct tsr_words *out, enum tsr_wordfmt *fmt,
		    struct tsr_diag *d);
/* Writes buf to o->output atomically, or to standard output. Returns 0 or -1 (reported). */
int tool_write_output(const struct tool_opts *o, const struct tsr_buf *buf, struct tsr_diag *d);

/* Option values (tools/opts.c).  Numbers are decimal, or 0x and hex digits; nothing else (no sign, blank
 * or suffix).  Each function prints `tessera: error: OPTION 'VALUE': ...` on a bad value and returns -1
 * (the command then exits with TOOL_EXIT_USAGE), else stores the value and returns 0. */
/* The number in text (NUL-terminated), in lo..hi. */
int tool_opt_u64(const char *opt, const char *text, uint64_t lo, uint64_t hi, uint64_t *v);
/* The same over [s, s+n). */
int tool_opt_number(const char *opt, const char *s, size_t n, uint64_t lo, uint64_t hi, uint64_t *v);
/* A comma-separated list of 32-bit words (--uniforms): each entry, blanks around it ignored, is an
 * integer -2^31..2^32-1 (negative ones as two's complement; decimal or 0x-hex) or a decimal float
 * (binary32 bits; `1.5`, `-2e3`, `inf`, `nan`; too large for binary32 is an error).  An empty entry
 * is an error; at most max entries.  Stores them in out[0..*count). */
int tool_opt_words32(const char *opt, const char *text, uint32_t *out, size_t max, size_t *count);
#endif
