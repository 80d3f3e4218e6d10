/* tessera: the command-line driver.  `tessera COMMAND [options] [FILE]`; see usage() and
 * docs/tools.md.  Exit status: 0 success, 1 bad input (diagnostics printed), 2 usage error. */
#include <errno.h>
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
		"options:\n"
		"  --target NAME            instruction set (default: %s)\n"
		"  -o FILE                  write the output to FILE (atomically) instead of stdout\n"
		"  --input-format auto|hex|bin   words on input (default auto)\n"
		"  --output-format hex|bin  words on output (default hex)\n"
		"  --base ADDR              byte address of the first instruction (default 0)\n"
		"  --qpus N                 sim: processors to run the program on (default 1)\n"
		"  --uniforms V,V,...       sim: uniform stream (integers, 0x..., or floats like 1.5)\n"
		"  --max-steps N            sim: stop after N bundles per processor (default 10000000)\n"
		"  --dump ADDR,LEN          sim: print LEN bytes of memory at ADDR after the run\n"
		"  --effort list|search     pack: list scheduling only, or also a bounded search per block for\n"
		"                           a shorter schedule (default search; list is about 10x faster)\n"
		"  --trace                  sim: print every bundle executed and what it wrote\n"
		"  --rules, --no-rules      sim: check every bundle issued against the description's hazard\n"
		"                           rules, in issue order (a violation stops the run; default: %s)\n",
		tsr_all_targets[0] ? tsr_all_targets[0]->name : "(none built)", TOOL_SIM_RULES ? "on" : "off");
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		return -1;
	*v = x;
	return 0;
}

int main(int argc, char **argv)
{
	struct tool_opts o = { .target = tsr_all_targets[0], .infmt = TSR_WORDS_AUTO, .outfmt = TSR_WORDS_HEX,
			       .qpus = 1, .max_steps = 10000000, .rules = TOOL_SIM_RULES };
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "gpu-fft")) /* own options: tools/cmd_gpufft.c */
		return cmd_gpufft(argc - 2, argv + 2);
	char **pos = calloc((size_t)argc, sizeof *pos);
	if (!pos)
		return 1;
	o.args = pos;
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		bool takes = true;
		uint64_t n;
		if (!strcmp(a, "--target")) {
			if (val && !(o.target = tsr_find_target(val))) {
				fprintf(stderr, "tessera: error: unknown target '%s' (try 'tessera targets')\n", val);
				free(pos);
				return 2;
			}
		} else if (!strcmp(a, "-o")) {
			o.output = val;
		} else if (!strcmp(a, "--input-format") || !strcmp(a, "--output-format")) {
			enum tsr_wordfmt f = val && !strcmp(val, "hex") ? TSR_WORDS_HEX
					     : val && !strcmp(val, "bin") ? TSR_WORDS_BIN
					     : val && !strcmp(val, "auto") && a[2] == 'i' ? TSR_WORDS_AUTO : (enum tsr_wordfmt)-1;
			if ((int)f < 0) {
				fprintf(stderr, "tessera: error: %s takes hex or bin%s\n", a, a[2] == 'i' ? " or auto" : "");
				free(pos);
				return 2;
			}
			*(a[2] == 'i' ? &o.infmt : &o.outfmt) = f;
		} else if (!strcmp(a, "--base") || !strcmp(a, "--qpus") || !strcmp(a, "--max-steps")) {
			if (!val || parse_u64(val, &n)) {
				fprintf(stderr, "tessera: error: %s takes a number\n", a);
				free(pos);
				return 2;
			}
			if (a[2] == 'b')
				o.base = n;
			else if (a[2] == 'q')
				o.qpus = (unsigned)n;
			else
				o.max_steps = n;
		} else if (!strcmp(a, "--uniforms")) {
			o.uniforms = val;
		} else if (!strcmp(a, "--dump")) {
			o.dump = val;
		} else if (!strcmp(a, "--effort")) {
			if (!val || (strcmp(val, "list") && strcmp(val, "search"))) {
				fprintf(stderr, "tessera: error: --effort takes 'list' or 'search'\n");
				free(pos);
				return 2;
			}
			o.fast = !strcmp(val, "list");
		} else if (!strcmp(a, "--trace")) {
			o.trace = true;
			takes = false;
		} else if (!strcmp(a, "--rules") || !strcmp(a, "--no-rules")) {
			o.rules = a[2] == 'r';
			takes = false;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "tessera: error: unknown option '%s'\n", a);
			free(pos);
			return 2;
		} else {
			o.args[o.nargs++] = argv[i];
			takes = false;
		}
		if (takes) {
			if (!val) {
				fprintf(stderr, "tessera: error: %s needs a value\n", a);
				free(pos);
				return 2;
			}
			i++;
		}
	}
	int rc;
	if (!o.target && strcmp(cmd, "targets")) {
		fprintf(stderr, "tessera: error: this build has no targets\n");
		rc = 1;
	} else if (!strcmp(cmd, "targets")) {
		for (size_t i = 0; tsr_all_targets[i]; i++)
			printf("%s\t%u-bit words, %u lanes\n", tsr_all_targets[i]->name, tsr_all_targets[i]->word_bits,
			       tsr_all_targets[i]->lanes);
		rc = 0;
	} else if (!strcmp(cmd, "asm")) {
		rc = cmd_asm(&o);
	} else if (!strcmp(cmd, "dis")) {
		rc = cmd_dis(&o);
	} else if (!strcmp(cmd, "sim")) {
		rc = cmd_sim(&o);
	} else if (!strcmp(cmd, "demo")) {
		rc = cmd_demo(&o);
	} else if (!strcmp(cmd, "validate")) {
		rc = cmd_validate(&o);
	} else if (!strcmp(cmd, "pack")) {
		rc = cmd_pack(&o);
	} else if (!strcmp(cmd, "unbundle")) {
		rc = cmd_unbundle(&o);
	} else {
		fprintf(stderr, "tessera: error: unknown command '%s'\n", cmd);
		usage(stderr);
		rc = 2;
	}
	free(pos);
	return rc;
}
