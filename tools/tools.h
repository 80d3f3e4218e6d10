/* The `tessera` driver: one command per file (cmd_*.c), every target through its
 * `struct tsr_target` descriptor (tools/registry.h). */
#ifndef TOOLS_TOOLS_H
#define TOOLS_TOOLS_H
#include <stdbool.h>
#include <stdint.h>
#include "target.h"
#include "hexio.h"
#include "diag.h"
#include "fileout.h"

/* Options shared by the commands (parsed in tessera.c). */
struct tool_opts {
	const struct tsr_target *target; /* --target NAME (default: the first built target) */
	const char *output;              /* -o FILE (NULL: standard output) */
	enum tsr_wordfmt infmt, outfmt;  /* --input-format / --output-format hex|bin (|auto) */
	uint64_t base;                   /* --base ADDR: byte address of the first instruction */
	bool trace;                      /* --trace: print every bundle executed with its writes */
	unsigned qpus;                   /* --qpus N */
	uint64_t max_steps;              /* --max-steps N */
	const char *uniforms;            /* --uniforms v,v,... (numbers or floats) */
	const char *dump;                /* --dump ADDR,LEN: memory to print after a run */
	bool fast;                       /* --effort list: pack by list scheduling only (TSR_PACK_LIST) */
	bool rules;                      /* --rules / --no-rules: sim checks every issued bundle against the
	                                    description's hazard rules (TSR_SIM_F_RULES; default TOOL_SIM_RULES) */
	int nargs;
	char **args;                     /* positional arguments */
};

/* Whether `tessera sim` (and `demo`) check the description's rules when neither --rules nor --no-rules
 * is given (docs/PERFORMANCE.md "Rule checks" measures the cost). */
#define TOOL_SIM_RULES true

/* Each command returns the process exit status (0 ok, 1 bad input, 2 usage). */
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

/* Reads a program for `t` from path ("-" = standard input): assembly text when the file name ends
 * in .qasm/.s/.asm (or the text does not look like hex words), else hex or binary words per
 * o->infmt.  Returns 0, or -1 after printing diagnostics. */
int tool_load_program(const struct tool_opts *o, const char *path, struct tsr_words *out, struct tsr_diag *d);
/* The same for programs of any size: a named hex or binary file is read in chunks into out with out->lean
 * set (words and lines, no comments; about 12 bytes per 64-bit instruction) and *fmt is set to its format
 * (TSR_WORDS_HEX: comments can be read back with tsr_hex_comments_*); assembly and standard input are
 * read as tool_load_program does (*fmt = TSR_WORDS_AUTO, comments kept).  Identical words, lines and
 * diagnostics.  When asm is false, assembly is not taken (words only, as `dis` reads).  Returns 0 or -1. */
int tool_load_words(const struct tool_opts *o, const char *path, bool asm, struct tsr_words *out,
		    enum tsr_wordfmt *fmt, struct tsr_diag *d);
/* Writes buf to o->output atomically, or to standard output. Returns 0 or -1 (reported). */
int tool_write_output(const struct tool_opts *o, const struct tsr_buf *buf, struct tsr_diag *d);
#endif
