/* tessera: the command-line driver.  `tessera COMMAND [options] [FILE]`; see usage() and
 * docs/tools.md.  Exit status (TOOL_EXIT_*): 0 success, 1 an error in the input (diagnostics printed),
 * 2 a usage error, 3 a run cut short by --max-steps. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "registry.h"
#include "tools.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tessera COMMAND [options] [FILE]\n"
		"commands:\n"
		"  asm FILE       assemble FILE (assembly text) to instruction words\n"
		"  dis FILE       disassemble FILE (hex words `0xLOW, 0xHIGH, // ...` or raw binary)\n"
		"  sim FILE       run FILE (assembly, hex or binary) in the generated simulator\n"
		"  validate FILE  check FILE (assembly, hex or binary) against the target's hazard rules\n"
		"  demo           assemble, disassemble and simulate the bundled example program\n"
		"  gpu-fft        run GPU_FFT's shaders in the simulator against FFTW (gpu-fft --help)\n"
		"  pack FILE      bundle FILE (one operation per line) into VLIW bundles (docs/pack.md)\n"
		"  unbundle FILE  split a bundled program into one operation per line (docs/pack.md)\n"
		"  targets        list the targets this build knows\n"
		"options (each taken only by the commands named; numbers are decimal or 0x-hex):\n"
		"  --target NAME            instruction set (default: %s)\n"
		"  -o FILE                  asm, dis, pack, unbundle: write the output to FILE (atomically)\n"
		"  --input-format auto|hex|bin|asm   dis, sim, validate, unbundle: the input's kind (default\n"
		"                           auto: by content, never by name or size)\n"
		"  --output-format hex|bin  asm: words on output (default hex)\n"
		"  --base ADDR              asm, dis, validate, unbundle: byte address of the first instruction\n"
		"                           (default 0; a multiple of the instruction size, below 2^32)\n"
		"  --qpus N                 sim: processors to run the program on (default 1)\n"
		"  --uniforms V,V,...       sim: uniform stream (32-bit integers, 0x..., or floats like 1.5)\n"
		"  --max-steps N            sim, demo: stop after N rounds (default 10000000; exit status 3)\n"
		"  --dump ADDR[,LEN]        sim: print LEN bytes (default 64) of memory at ADDR after the run\n"
		"  --dump NAME[,NAME...]    sim: print that declared state after the run (K:NAME: processor K's)\n"
		"  --set NAME[I]=V,...      sim: initial value of a state or regfile element (repeatable; also\n"
		"                           NAME=V for a scalar, NAME[I].C=V for one component)\n"
		"  --mem SPACE:ADDR=V,...   sim: initial value written through an address space (repeatable)\n"
		"  --mem ADDR=V,...         sim (a platform's): 32-bit words of its memory from byte address ADDR\n"
		"  --init FILE              sim: initial values, one assignment a line (# and // comments)\n"
		"  --effort list|search|deep  pack: list scheduling only, or also a bounded search per block for\n"
		"                           a shorter schedule (default search; list is about 10x faster); deep:\n"
		"                           also a search over the router's decisions (values named, about 15x slower)\n"
		"  --trace                  sim, demo: print every bundle executed and what it wrote; validate:\n"
		"                           every instruction's events; pack: each block's schedule\n"
		"  --rules, --no-rules      sim, demo: check every bundle issued against the description's hazard\n"
		"                           rules, in issue order (a violation stops the run; default: %s)\n"
		"exit status: 0 success, 1 an error in the input, 2 a usage error, 3 a run cut short by --max-steps\n",
		tsr_default_target() ? tsr_default_target()->name : "(none built)", TOOL_SIM_RULES ? "on" : "off");
}

/* The commands the common parser serves (gpu-fft parses its own options), as bits for the option table. */
enum { C_ASM = 1, C_DIS = 2, C_SIM = 4, C_VALIDATE = 8, C_PACK = 16, C_UNBUNDLE = 32, C_DEMO = 64, C_TARGETS = 128 };

static const struct command {
	const char *name;
	unsigned bit;
	int (*run)(struct tool_opts *o);   /* NULL: `targets` */
} commands[] = {
	{ "asm", C_ASM, cmd_asm },	   { "dis", C_DIS, cmd_dis },		{ "sim", C_SIM, cmd_sim },
	{ "validate", C_VALIDATE, cmd_validate }, { "pack", C_PACK, cmd_pack }, { "unbundle", C_UNBUNDLE, cmd_unbundle },
	{ "demo", C_DEMO, cmd_demo },	   { "targets", C_TARGETS, NULL },
};

#define C_PROGRAM (C_ASM | C_DIS | C_SIM | C_VALIDATE | C_PACK | C_UNBUNDLE)

/* Every option and the commands that take it; any other command rejects it (an option a command would
 * ignore is an error, not a silent no-op). */
static const struct option {
	const char *name;
	bool value;      /* takes a value (the next argument) */
	unsigned cmds;   /* C_* of the commands that take it */
} options[] = {
	{ "--target", true, C_PROGRAM },
	{ "-o", true, C_ASM | C_DIS | C_PACK | C_UNBUNDLE },
	{ "--input-format", true, C_DIS | C_SIM | C_VALIDATE | C_UNBUNDLE },
	{ "--output-format", true, C_ASM },
	{ "--base", true, C_ASM | C_DIS | C_VALIDATE | C_UNBUNDLE },
	{ "--qpus", true, C_SIM },
	{ "--uniforms", true, C_SIM },
	{ "--max-steps", true, C_SIM | C_DEMO },
	{ "--dump", true, C_SIM },
	{ "--set", true, C_SIM },
	{ "--mem", true, C_SIM },
	{ "--init", true, C_SIM },
	{ "--effort", true, C_PACK },
	{ "--trace", false, C_SIM | C_VALIDATE | C_PACK | C_DEMO },
	{ "--rules", false, C_SIM | C_DEMO },
	{ "--no-rules", false, C_SIM | C_DEMO },
};

/* Why command cmd does not take option opt, where there is more to say than that (docs/tools.md
 * "Options"); NULL otherwise. */
static const char *not_taken_why(const char *opt, unsigned cmd)
{
	if (!strcmp(opt, "--base") && cmd == C_SIM)
		return "the simulated processors run the program from address 0 (their instruction memory is apart "
		       "from the simulated memory)";
	if (!strcmp(opt, "--base") && cmd == C_PACK)
		return "pack reads and writes assembly text, whose labels need no address (give --base to asm when "
		       "assembling its output)";
	if (!strcmp(opt, "-o") && (cmd & (C_SIM | C_VALIDATE | C_DEMO)))
		return "it prints its results on standard output";
	if (!strcmp(opt, "--input-format") && (cmd & (C_ASM | C_PACK)))
		return "it reads assembly text only";
	return NULL;
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "tessera: error: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	return TOOL_EXIT_USAGE;
}

/* Sets one option of o from its value (NULL for a flag).  Returns 0 or TOOL_EXIT_USAGE (printed). */
static int set_option(struct tool_opts *o, const char *a, const char *val)
{
	if (!strcmp(a, "--target")) {
		if (!(o->target = tsr_find_target(val)))
			return usage_error("unknown target '%s' (try 'tessera targets')", val);
	} else if (!strcmp(a, "-o")) {
		o->output = strcmp(val, "-") ? val : NULL;   /* `-o -`: standard output, as `-` is standard input */
	} else if (!strcmp(a, "--input-format") || !strcmp(a, "--output-format")) {
		bool in = a[2] == 'i';
		enum tsr_wordfmt f = !strcmp(val, "hex") ? TSR_WORDS_HEX
				     : !strcmp(val, "bin") ? TSR_WORDS_BIN
				     : in && !strcmp(val, "asm") ? TSR_WORDS_ASM
				     : in && !strcmp(val, "auto") ? TSR_WORDS_AUTO : (enum tsr_wordfmt)-1;
		if ((int)f < 0)
			return usage_error("%s takes %s", a, in ? "auto, hex, bin or asm" : "hex or bin");
		*(in ? &o->infmt : &o->outfmt) = f;
	} else if (!strcmp(a, "--base")) {
		if (tool_opt_u64(a, val, 0, UINT32_MAX, &o->base))
			return TOOL_EXIT_USAGE;
	} else if (!strcmp(a, "--qpus")) {
		o->qpus_text = val;
	} else if (!strcmp(a, "--max-steps")) {
		if (tool_opt_u64(a, val, 1, UINT64_MAX, &o->max_steps))
			return TOOL_EXIT_USAGE;
	} else if (!strcmp(a, "--uniforms")) {
		o->uniforms = val;
	} else if (!strcmp(a, "--dump")) {
		o->dump = val;
	} else if (!strcmp(a, "--set") || !strcmp(a, "--mem")) {   /* repeatable: kept in order */
		bool set = a[2] == 's';
		const char ***v = set ? &o->sets : &o->mems;
		int *n = set ? &o->nsets : &o->nmems;
		const char **grown = realloc((void *)*v, (size_t)(*n + 1) * sizeof **v);
		if (!grown)
			return usage_error("out of memory");
		grown[(*n)++] = val;
		*v = grown;
	} else if (!strcmp(a, "--init")) {
		o->init = val;
	} else if (!strcmp(a, "--effort")) {
		if (strcmp(val, "list") && strcmp(val, "search") && strcmp(val, "deep"))
			return usage_error("--effort takes 'list', 'search' or 'deep', not '%s'", val);
		o->fast = !strcmp(val, "list");
		o->deep = !strcmp(val, "deep");
	} else if (!strcmp(a, "--trace")) {
		o->trace = true;
	} else {
		o->rules = !strcmp(a, "--rules");
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct tool_opts o = { .target = tsr_default_target(), .infmt = TSR_WORDS_AUTO, .outfmt = TSR_WORDS_HEX,
			       .qpus = 1, .max_steps = 10000000, .rules = TOOL_SIM_RULES };
	if (argc < 2) {
		usage(stderr);
		return TOOL_EXIT_USAGE;
	}
	const char *name = argv[1];
	if (!strcmp(name, "-h") || !strcmp(name, "--help") || !strcmp(name, "help")) {
		usage(stdout);
		return TOOL_EXIT_OK;
	}
	if (!strcmp(name, "gpu-fft")) /* own options: tools/cmd_gpufft.c */
		return cmd_gpufft(argc - 2, argv + 2);
	const struct command *cmd = NULL;
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
		if (!strcmp(commands[i].name, name))
			cmd = &commands[i];
	if (!cmd) {
		fprintf(stderr, "tessera: error: unknown command '%s'\n", name);
		usage(stderr);
		return TOOL_EXIT_USAGE;
	}
	char **pos = calloc((size_t)argc, sizeof *pos);
	if (!pos)
		return TOOL_EXIT_INPUT;
	o.args = pos;
	int rc = TOOL_EXIT_OK;
	for (int i = 2; i < argc && !rc; i++) {
		const char *a = argv[i];
		const struct option *opt = NULL;
		for (size_t k = 0; k < sizeof options / sizeof *options; k++)
			if (!strcmp(options[k].name, a))
				opt = &options[k];
		if (!opt && a[0] == '-' && a[1]) {
			rc = usage_error("unknown option '%s'", a);
		} else if (!opt) {
			o.args[o.nargs++] = argv[i];
		} else if (!(opt->cmds & cmd->bit)) {
			const char *why = not_taken_why(a, cmd->bit);
			rc = usage_error("'%s' does not take %s%s%s", cmd->name, a, why ? ": " : "", why ? why : "");
		} else if (opt->value && i + 1 >= argc) {
			rc = usage_error("%s needs a value", a);
		} else {
			rc = set_option(&o, a, opt->value ? argv[++i] : NULL);
		}
	}
	if (!rc && (cmd->bit & (C_DEMO | C_TARGETS)) && o.nargs) {
		fprintf(stderr, "tessera: error: '%s' takes no file (got '%s')\n", cmd->name, o.args[0]);
		rc = TOOL_EXIT_USAGE;
	}
	if (!rc && o.target && o.base % o.target->pc_step) {
		fprintf(stderr, "tessera: error: --base 0x%" PRIx64 ": not a multiple of %u (the size of a %s instruction)\n",
			o.base, o.target->pc_step, o.target->name);
		rc = TOOL_EXIT_USAGE;
	}
	if (rc) {
	} else if (!cmd->run) {
		for (size_t i = 0; tsr_all_targets[i]; i++)
			printf("%s\t%u-bit words, %u lanes%s\n", tsr_all_targets[i]->name, tsr_all_targets[i]->word_bits,
			       tsr_all_targets[i]->lanes, tsr_all_targets[i] == tsr_default_target() ? " (default)" : "");
	} else if (!o.target) {
		fprintf(stderr, "tessera: error: this build has no targets\n");
		rc = TOOL_EXIT_INPUT;
	} else {
		rc = cmd->run(&o);
	}
	free(pos);
	free((void *)o.sets);
	free((void *)o.mems);
	return rc;
}
