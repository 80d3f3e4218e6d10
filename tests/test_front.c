/* `tessera sim` on a target without a platform (tools/sim_generic.c, docs/tools.md "sim") on tests/desc/front.mdl,
 * a machine of 128-bit words and 4-lane values shaped like the Tegra vertex processor (an EXEC head with an export,
 * a vector and a scalar slot): initial values from --set, --mem and an --init file (comments, every assignment
 * form, a bad line reported as file:line:col with nothing run), the declared outputs printed after the run (a
 * regfile printed as floats, a scalar, a space), --dump NAME, a run cut short, and bad option values. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "front.h"
#include "tools.h"
#include "tsr.h"

/* Assembles text for the front machine (aborts the test on an error). */
static void assemble(const char *text, struct tsr_words *w)
{
	struct tsr_diag d;
	tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
	tsr_words_init(w, front_target.word_bits);
	cr_assert_eq(front_target.assemble("t.s", text, strlen(text), w, &d), 0, "does not assemble:\n%s", text);
	tsr_diag_fini(&d);
}

/* Runs w with o (its target set here) and returns the status; *out is what it printed (free it). */
static int run(struct tool_opts *o, const struct tsr_words *w, char **out)
{
	size_t n;
	FILE *f = open_memstream(out, &n);
	cr_assert(f);
	o->target = &front_target;
	cr_assert_eq(front_target.sim, &front_sim_desc);   /* (a strong reference links the simulator in) */
	if (!o->max_steps)
		o->max_steps = 1000;
	int rc = tool_sim_generic(o, "t.s", w, f);
	fclose(f);
	return rc;
}

static const char prog[] =
	"EXEC(export[0]=vector); ADDv r63, a[0], c[1]\n"
	"EXEC_END(export[1]=vector); MULv r2, a[0], r5; NEGs r3, c[1]\n";

/* a[0] = 1..8, c[1] = 0.5, r5 = 2: E[0] = a[0] + c[1], E[1] = a[0] * r5 */
static const char exports_after[] =
	"ended after 2 bundles\n"
	"E[0] = 1.5 2.5 3.5 4.5 5.5 6.5 7.5 8.5  (0x3fc00000 0x40200000 0x40600000 0x40900000 0x40b00000 0x40d00000 0x40f00000 0x41080000)\n"
	"E[1] = 2 4 6 8 10 12 14 16  (0x40000000 0x40800000 0x40c00000 0x41000000 0x41200000 0x41400000 0x41600000 0x41800000)\n"
	"E[2] = 0 0 0 0 0 0 0 0  (0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)\n"
	"E[3] = 0 0 0 0 0 0 0 0  (0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)\n"
	"E[4] = 0 0 0 0 0 0 0 0  (0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)\n"
	"E[5] = 0 0 0 0 0 0 0 0  (0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)\n"
	"E[6] = 0 0 0 0 0 0 0 0  (0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)\n"
	"E[7] = 0 0 0 0 0 0 0 0  (0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)\n"
	"steps = 0x00000002\n"
	"io:0 = 1.5 2.5 3.5 4.5 5.5 6.5 7.5 8.5\n"
	"io:1 = 2 4 6 8 10 12 14 16\n"
	"io:2 = 0x00000002 0x00000002 0x00000002 0x00000002 0x00000002 0x00000002 0x00000002 0x00000002\n";

/* --set for a regfile element (four lane values, and one for all lanes) and the outputs after the run. */
Test(front_sim, set_values_and_outputs_printed)
{
	struct tsr_words w;
	assemble(prog, &w);
	const char *sets[] = { "A[0]=1.0,2.0,3.0,4.0,5.0,6.0,7.0,8.0", "C[1] = 0.5", "R[5]=0x40000000" };
	struct tool_opts o = { .sets = sets, .nsets = 3, .dump = "R" };
	char *out;
	cr_assert_eq(run(&o, &w, &out), TOOL_EXIT_OK);
	cr_expect(!strncmp(out, exports_after, strlen(exports_after)), "got:\n%s", out);
	/* --dump R: every element, r2 = a[0] * r5, r3 = -c[1] */
	cr_expect(strstr(out, "\nR[2] = 2 4 6 8 10 12 14 16  (0x40000000"), "got:\n%s", out);
	cr_expect(strstr(out, "\nR[3] = -0.5 -0.5 -0.5 -0.5 -0.5 -0.5 -0.5 -0.5  (0xbf000000"), "got:\n%s", out);
	cr_expect(strstr(out, "\nR[5] = 2 2 2 2 2 2 2 2  ("), "got:\n%s", out);
	cr_expect(strstr(out, "\nR[31] = 0 0 0 0 0 0 0 0  ("), "got:\n%s", out);
	free(out);
	tsr_words_free(&w);
}

/* The same values from an --init file, with comments, blank lines, a component and a space write (--mem form). */
Test(front_sim, init_file)
{
	struct tsr_words w;
	assemble(prog, &w);
	char path[] = "/tmp/front_initXXXXXX";
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	const char text[] = "# initial values\n"
			    "A[0] = 1.0, 2.0, 3.0, 0, 5.0, 6.0, 7.0, 8.0   // lane 3 again below\n"
			    "\n"
			    "A[0].w = 4.0\n"
			    "  C[1]=0.5\n"
			    "R[5] = 2.0\n"
			    "io:1 = 9\n";   /* E[1], overwritten by the program */
	cr_assert_eq(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
	close(fd);
	struct tool_opts o = { .init = path };
	char *out;
	cr_assert_eq(run(&o, &w, &out), TOOL_EXIT_OK);
	cr_expect(!strcmp(out, exports_after), "got:\n%s", out);
	free(out);
	/* --mem writes through the space: io:0 is E[0], which this program (no EXEC export) keeps */
	struct tsr_words w2;
	assemble("EXEC_END; MOVv r1, a[0]\n", &w2);
	const char *mems[] = { "io:0=1.0,2.0,3.0,4.0,5.0,6.0,7.0,8.0" };
	struct tool_opts o2 = { .mems = mems, .nmems = 1 };
	cr_assert_eq(run(&o2, &w2, &out), TOOL_EXIT_OK);
	cr_expect(strstr(out, "\nE[0] = 1 2 3 4 5 6 7 8  (0x3f800000 0x40000000 0x40400000 0x40800000 0x40a00000 0x40c00000 0x40e00000 0x41000000)\n"), "got:\n%s", out);
	cr_expect(strstr(out, "\nio:0 = 1 2 3 4 5 6 7 8\n"), "got:\n%s", out);
	free(out);
	unlink(path);
	tsr_words_free(&w);
	tsr_words_free(&w2);
}

/* A bad line of the --init file: file:line:col: error, nothing run (no output), status 1; every bad line. */
Test(front_sim, init_file_bad_lines, .init = cr_redirect_stderr)
{
	struct tsr_words w;
	assemble(prog, &w);
	char path[] = "/tmp/front_badXXXXXX";
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	const char text[] = "A[0] = 1\n"
			    "Q[1] = 2\n"          /* no such state */
			    "C[64] = 1\n"         /* element out of range */
			    "A[0].q = 1\n"        /* no component q */
			    "steps = 1, 2\n"      /* a scalar takes one value */
			    "C[1] = 1.5.5\n"      /* not a number */
			    "io:9 = 1\n";         /* no such address */
	cr_assert_eq(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
	close(fd);
	struct tool_opts o = { .init = path };
	char *out;
	cr_assert_eq(run(&o, &w, &out), TOOL_EXIT_INPUT);
	cr_expect_str_empty(out);
	free(out);
	fflush(stderr);
	char want[2048];
	snprintf(want, sizeof want,
		 "%s:2:1: error: no state or regfile 'Q' in this description\n"
		 "%s:3:3: error: element '64' is not one of regfile 'C' (0..63)\n"
		 "%s:4:6: error: 'q' is not a component of 'A' (x, y, z, w or 0..7)\n"
		 "%s:5:12: error: too many values: one, or the 1 it holds\n"
		 "%s:6:8: error: value '1.5.5' is neither a 32-bit integer nor a float\n"
		 "%s:7:4: error: address '9' is not one of space 'io' (0..3)\n",
		 path, path, path, path, path, path);
	cr_expect_stderr_eq_str(want);
	unlink(path);
	tsr_words_free(&w);
}

/* A run cut short by max_steps: status 3, the outputs still printed; bad option values: status 2, nothing run. */
Test(front_sim, cut_short_and_bad_options, .init = cr_redirect_stderr)
{
	struct tsr_words w;
	assemble("loop:\nEXEC(export[2]=vector); MOVv r1, c[0]\nEXEC; ADDv r1, r1, c[0]\n", &w);
	struct tool_opts o = { .max_steps = 2 };
	char *out;
	cr_assert_eq(run(&o, &w, &out), TOOL_EXIT_CUT);
	cr_expect(!strncmp(out, "stopped (--max-steps) after 2 bundles\nE[0] =", 40), "got:\n%s", out);
	free(out);
	const char *bad[] = { "R[1]", "R=1", "R[32]=1", "steps[0]=1", "io:1=2", "C[1]=1,2,3", "C[1]=" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct tool_opts b = { .sets = &bad[i], .nsets = 1 };
		cr_expect_eq(run(&b, &w, &out), TOOL_EXIT_USAGE, "--set %s", bad[i]);
		cr_expect_str_empty(out, "--set %s", bad[i]);
		free(out);
	}
	const char *mem[] = { "R[1]=2" };
	struct tool_opts m = { .mems = mem, .nmems = 1 };
	cr_expect_eq(run(&m, &w, &out), TOOL_EXIT_USAGE);
	free(out);
	struct tool_opts dm = { .dump = "R,nothing" };
	cr_expect_eq(run(&dm, &w, &out), TOOL_EXIT_USAGE);
	free(out);
	fflush(stderr);
	cr_expect_stderr_eq_str(
		"t.s: error: run cut short by --max-steps 2 before the program ended\n"
		"tessera: error: --set 'R[1]': expected '=' (at column 5)\n"
		"tessera: error: --set 'R=1': regfile 'R' needs an element: R[0..31] (at column 2)\n"
		"tessera: error: --set 'R[32]=1': element '32' is not one of regfile 'R' (0..31) (at column 3)\n"
		"tessera: error: --set 'steps[0]=1': 'steps' is not a regfile (write steps = ...) (at column 7)\n"
		"tessera: error: --set 'io:1=2': 'io:' names a space: give it with --mem (at column 1)\n"
		"tessera: error: --set 'C[1]=1,2,3': 3 values: it takes one (for every lane and component) or 8 (at column 1)\n"
		"tessera: error: --set 'C[1]=': value '' is empty (at column 6)\n"
		"tessera: error: --mem 'R[1]=2': --mem takes SPACE:ADDR=VALUE, not 'R' (at column 1)\n"
		"tessera: error: --dump 'nothing': no state or regfile of that name in this description\n");
	tsr_words_free(&w);
}
