/* The `tessera` command line (docs/tools.md "Exit status", "Options", "Files"), run as a child process
 * (tests/support_run.h): exit status 3 for a run cut short, --base in asm and dis, --uniforms values, and
 * the input kind chosen by content, never by size.  Malformed input: tests/test_robust.c. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "registry.h"
#include "support_run.h"

/* examples/qpu/demo.qasm, from the repository root ($TESSERA_ROOT, else the working directory). */
static void demo_path(char *buf, size_t n)
{
	const char *root = getenv("TESSERA_ROOT");
	snprintf(buf, n, "%s%sexamples/qpu/demo.qasm", root ? root : "", root ? "/" : "");
}

static void run_ok(const char *const *argv, int status, struct run_result *r)
{
	cr_assert_eq(run_tessera(argv, NULL, r), 0);
	cr_assert(!r->timed_out && r->signal == 0, "%s: signal %d / timeout; stderr:\n%.2000s", argv[0], r->signal,
		  r->err);
	cr_assert_eq(r->status, status, "tessera %s: exit status %d, expected %d; stderr:\n%.2000s", argv[0], r->status,
		     status, r->err);
}

Test(cli, max_steps_cuts_the_run_short_with_status_3)
{
	char demo[4200];
	demo_path(demo, sizeof demo);
	struct run_result r;
	const char *cut[] = { "sim", demo, "--uniforms", "1.0,0x2000", "--max-steps", "3", NULL };
	run_ok(cut, 3, &r);
	cr_expect(strstr(r.out, "stopped (--max-steps) after 3 rounds"), "stdout:\n%s", r.out);
	cr_expect(strstr(r.err, demo) && strstr(r.err, ": error: run cut short by --max-steps 3"), "stderr:\n%s", r.err);
	run_result_free(&r);
	const char *whole[] = { "sim", demo, "--uniforms", "1.0,0x2000", NULL };
	run_ok(whole, 0, &r);
	cr_expect(strstr(r.out, "ended after"), "stdout:\n%s", r.out);
	run_result_free(&r);
	const char *demo_cut[] = { "demo", "--max-steps", "2", NULL };
	run_ok(demo_cut, 3, &r);
	run_result_free(&r);
}

/* `-o -` is standard output (as an input `-` is standard input): the same text as no -o, and no file named `-`. */
Test(cli, dash_o_is_standard_output)
{
	char demo[4200];
	demo_path(demo, sizeof demo);
	cr_assert_neq(access("-", F_OK), 0, "a file named '-' exists in the working directory already");
	struct run_result plain, dash;
	const char *a0[] = { "asm", demo, NULL }, *a1[] = { "asm", demo, "-o", "-", NULL };
	run_ok(a0, 0, &plain);
	run_ok(a1, 0, &dash);
	cr_expect(plain.out[0] != 0 && strcmp(plain.out, dash.out) == 0, "asm -o -:\n%.500s\nwithout -o:\n%.500s",
		  dash.out, plain.out);
	cr_expect_neq(access("-", F_OK), 0, "asm -o - wrote a file named '-'");
	run_result_free(&plain);
	run_result_free(&dash);
}

/* gpu-fft --max-rounds: a launch stopped by the limit is status 3 too (GPU_FFT's shaders from the shared
 * corpus, as `tessera gpu-fft` finds them). */
Test(cli, gpu_fft_max_rounds_is_status_3)
{
	struct run_result r;
	const char *argv[] = { "gpu-fft", "--log2n", "8", "--max-rounds", "100", NULL };
	run_ok(argv, 3, &r);
	cr_expect(strstr(r.out, "stopped after 100 rounds (limit)"), "stdout:\n%.2000s", r.out);
	run_result_free(&r);
}

/* Each entry becomes one 32-bit word of the uniform stream (QPU 0's at 0x100000, docs/tools.md). */
Test(cli, uniforms_every_entry_a_word)
{
	char demo[4200];
	demo_path(demo, sizeof demo);
	struct run_result r;
	const char *argv[] = { "sim", demo, "--uniforms", "-1, 0xffffffff,1.5, -2e3,inf,4294967295",
			       "--max-steps", "1", "--dump", "0x100000,24", NULL };
	run_ok(argv, 3, &r);
	const char *want[] = { "0x00100000: 0xffffffff", "0x00100004: 0xffffffff", "0x00100008: 0x3fc00000",
			       "0x0010000c: 0xc4fa0000", "0x00100010: 0x7f800000", "0x00100014: 0xffffffff" };
	for (int i = 0; i < 6; i++)
		cr_expect(strstr(r.out, want[i]), "no `%s` in:\n%s", want[i], r.out);
	run_result_free(&r);
}

/* asm --base: labels are absolute from ADDR (an absolute branch moves, a relative one does not), and
 * dis --base output assembles back to the same words with asm --base. */
Test(cli, base_for_asm_and_dis)
{
	char *dir = run_mkdtemp();
	char src[4200], h0[4200], h1[4200], s1[4200], h2[4200];
	snprintf(src, sizeof src, "%s/b.qasm", dir);
	snprintf(h0, sizeof h0, "%s/b0.hex", dir);
	snprintf(h1, sizeof h1, "%s/b1.hex", dir);
	snprintf(s1, sizeof s1, "%s/b1.s", dir);
	snprintf(h2, sizeof h2, "%s/b2.hex", dir);
	const char *text = "start:\n nop\nloop:\n bra -, loop\n nop\n nop\n nop\n brr -, r:loop\n nop\n nop\n nop\n"
			   " nop; thrend\n nop\n nop\n";
	cr_assert_eq(run_write_file(src, text, strlen(text)), 0);
	struct run_result r;
	const char *a0[] = { "asm", src, "-o", h0, NULL }, *a1[] = { "asm", "--base", "0x1000", src, "-o", h1, NULL };
	const char *d1[] = { "dis", "--base", "0x1000", h1, "-o", s1, NULL };
	const char *a2[] = { "asm", "--base", "0x1000", s1, "-o", h2, NULL };
	const char *dis0[] = { "dis", h0, NULL }, *dis1[] = { "dis", "--base", "4096", h1, NULL },
		   *dis2[] = { "dis", "--base", "4096", h2, NULL };
	run_ok(a0, 0, &r);
	run_result_free(&r);
	run_ok(a1, 0, &r);
	run_result_free(&r);
	run_ok(d1, 0, &r);
	run_result_free(&r);
	run_ok(a2, 0, &r);
	run_result_free(&r);
	struct run_result x0, x1, x2;
	run_ok(dis0, 0, &x0);
	run_ok(dis1, 0, &x1);
	run_ok(dis2, 0, &x2);
	cr_expect(strstr(x0.out, "bra -, L8\n"), "asm at 0:\n%s", x0.out);
	cr_expect(strstr(x1.out, "L1008:\n") && strstr(x1.out, "bra -, L1008\n") && strstr(x1.out, "brr -, r:L1008\n"),
		  "asm --base 0x1000:\n%s", x1.out);
	cr_expect_str_eq(x2.out, x1.out, "dis --base | asm --base is not the identity");
	run_result_free(&x0);
	run_result_free(&x1);
	run_result_free(&x2);
	run_rmtree(dir);
	free(dir);
}

/* Eight bytes of assembly text are text, not one binary instruction; --input-format bin reads them so. */
Test(cli, input_kind_by_content_never_by_size)
{
	char *dir = run_mkdtemp();
	char path[4200];
	snprintf(path, sizeof path, "%s/two", dir);
	cr_assert_eq(run_write_file(path, "nop\nnop\n", 8), 0);
	struct run_result r;
	const char *dis[] = { "dis", path, NULL };
	run_ok(dis, 0, &r);
	cr_expect_str_eq(r.out, "    nop\n    nop\n");
	run_result_free(&r);
	const char *bin[] = { "dis", "--input-format", "bin", path, NULL };
	run_ok(bin, 0, &r);
	cr_expect_eq(strchr(r.out, '\n') - r.out + 1, (long)strlen(r.out), "one instruction expected:\n%s", r.out);
	run_result_free(&r);
	/* hex words after a `//` comment line are hex; after a `#` line, assembly */
	cr_assert_eq(run_write_file(path, "// c\n0x009e7000, 0x100009e7\n", 28), 0);
	run_ok(dis, 0, &r);
	cr_expect_str_eq(r.out, "    nop\n");
	run_result_free(&r);
	run_rmtree(dir);
	free(dir);
}

Test(cli, usage_errors_are_status_2)
{
	struct run_result r;
	const char *none[] = { NULL }, *unknown[] = { "frobnicate", NULL }, *targets[] = { "targets", NULL };
	run_ok(none, 2, &r);
	run_result_free(&r);
	run_ok(unknown, 2, &r);
	cr_expect(strstr(r.err, "tessera: error: unknown command 'frobnicate'"), "%s", r.err);
	run_result_free(&r);
	run_ok(targets, 0, &r);
	for (size_t i = 0; tsr_all_targets[i]; i++)
		cr_expect(strstr(r.out, tsr_all_targets[i]->name), "%s not listed:\n%s", tsr_all_targets[i]->name, r.out);
	run_result_free(&r);
}

/* mdlc --name T (configure.py passes the target's directory name): a description whose isa has another name is an
 * error at the isa's name, with nothing written; the right name generates as before. */
Test(cli, mdlc_name_must_match)
{
	char mdlc[4200], src[4200], mdl[4300], out[4300];
	snprintf(mdlc, sizeof mdlc, "%s", run_tessera_path());
	char *slash = strrchr(mdlc, '/');
	cr_assert(slash);
	snprintf(slash + 1, sizeof mdlc - (size_t)(slash + 1 - mdlc), "mdlc");
	const char *root = getenv("TESSERA_ROOT");
	snprintf(src, sizeof src, "%s%stargets/qpu/qpu.mdl", root ? root : "", root ? "/" : "");
	FILE *in = fopen(src, "rb");
	cr_assert(in, "%s", src);
	static char text[1 << 20];
	size_t n = fread(text, 1, sizeof text, in);
	fclose(in);
	char *dir = run_mkdtemp();
	cr_assert(dir);
	snprintf(mdl, sizeof mdl, "%s/other.mdl", dir);
	snprintf(out, sizeof out, "%s/out", dir);
	cr_assert_eq(run_write_file(mdl, text, n), 0);
	struct run_result r;
	const char *bad[] = { "--name", "other", "-o", out, mdl, NULL };
	cr_assert_eq(run_program(mdlc, bad, NULL, &r), 0);
	cr_expect_eq(r.status, 1, "stderr:\n%s", r.err);
	cr_expect(strstr(r.err, "other.mdl:") && strstr(r.err, ": error: isa 'qpu' is not named 'other'"), "stderr:\n%s",
		  r.err);
	cr_expect_neq(access(out, F_OK), 0, "mdlc wrote %s", out);
	run_result_free(&r);
	const char *good[] = { "--name", "qpu", "-o", out, mdl, NULL };
	cr_assert_eq(run_program(mdlc, good, NULL, &r), 0);
	cr_expect_eq(r.status, 0, "stderr:\n%s", r.err);
	char h[4400];
	snprintf(h, sizeof h, "%s/qpu.h", out);
	cr_expect_eq(access(h, F_OK), 0, "no %s", h);
	run_result_free(&r);
	run_rmtree(dir);
	free(dir);
}

/* The default target is a fact of the registry (configure.py --default-target, qpu unless told otherwise), not the
 * first directory of targets/: configure.py run on a copy of itself in a tree with a target named before qpu
 * (targets/aaa) still passes -DTSR_DEFAULT_TARGET=qpu; --default-target picks another; a name that is no target is
 * an error, and no ninja file is written. */
static void configure_in(const char *dir, const char *defarg, struct run_result *r)
{
	char cfg[4300], out[4300];
	snprintf(cfg, sizeof cfg, "%s/configure.py", dir);
	snprintf(out, sizeof out, "%s/t.ninja", dir);
	const char *with[] = { cfg, "--out", out, "--default-target", defarg, NULL };
	const char *without[] = { cfg, "--out", out, NULL };
	cr_assert_eq(run_program("/usr/bin/python3", defarg ? with : without, NULL, r), 0);
	cr_assert(!r->timed_out && r->signal == 0, "configure.py: signal %d / timeout; stderr:\n%.2000s", r->signal,
		  r->err);
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	static char buf[1 << 20];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	return buf;
}

Test(cli, default_target_is_a_registry_fact, .timeout = 120)
{
	const char *root = getenv("TESSERA_ROOT");
	char src[4200];
	snprintf(src, sizeof src, "%s%sconfigure.py", root ? root : "", root ? "/" : "");
	FILE *in = fopen(src, "rb");
	cr_assert(in, "%s", src);
	static char text[1 << 20];
	size_t n = fread(text, 1, sizeof text, in);
	fclose(in);
	char *dir = run_mkdtemp();
	cr_assert(dir);
	char p[4400], ninja[4400];
	const char *mkdirs[] = { "targets", "targets/aaa", "targets/qpu", "gen", "mdl", "runtime", "tools" };
	for (size_t i = 0; i < sizeof mkdirs / sizeof *mkdirs; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, mkdirs[i]);
		cr_assert_eq(mkdir(p, 0777), 0, "%s", p);
	}
	const char *files[] = { "configure.py", "targets/aaa/aaa.mdl", "targets/qpu/qpu.mdl", "gen/mdlc.c", "mdl/ast.c",
				"tools/tessera.c" };
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, files[i]);
		cr_assert_eq(run_write_file(p, i ? "" : text, i ? 0 : n), 0, "%s", p);
	}
	snprintf(ninja, sizeof ninja, "%s/t.ninja", dir);
	struct run_result r;
	configure_in(dir, NULL, &r);
	cr_assert_eq(r.status, 0, "stderr:\n%.2000s", r.err);
	const char *s = read_all(ninja);
	cr_assert(s, "no %s", ninja);
	cr_expect(strstr(s, "'-DTSR_TARGETS=X(aaa) X(qpu)'"), "both targets are registered, in directory order");
	cr_expect(strstr(s, "-DTSR_DEFAULT_TARGET=qpu") && !strstr(s, "-DTSR_DEFAULT_TARGET=aaa"),
		  "the default stays qpu when a target named before it is added");
	run_result_free(&r);
	configure_in(dir, "aaa", &r);
	cr_assert_eq(r.status, 0, "stderr:\n%.2000s", r.err);
	s = read_all(ninja);
	cr_assert(s);
	cr_expect(strstr(s, "-DTSR_DEFAULT_TARGET=aaa") && !strstr(s, "-DTSR_DEFAULT_TARGET=qpu"));
	run_result_free(&r);
	cr_assert_eq(unlink(ninja), 0);
	configure_in(dir, "nosuch", &r);
	cr_expect_eq(r.status, 1, "stderr:\n%.2000s", r.err);
	cr_expect(strstr(r.err, "--default-target 'nosuch' is not a target"), "stderr:\n%.2000s", r.err);
	cr_expect_neq(access(ninja, F_OK), 0, "configure.py wrote %s", ninja);
	run_result_free(&r);
	run_rmtree(dir);
	free(dir);
}

/* The driver's default is the registry's: the usage text and `tessera targets` name tsr_default_target(). */
Test(cli, driver_default_is_the_registrys)
{
	const struct tsr_target *t = tsr_default_target();
	cr_assert(t, "this build has no default target");
	cr_expect_eq(tsr_find_target(t->name), t);
	struct run_result r;
	const char *targets[] = { "targets", NULL };
	run_ok(targets, 0, &r);
	char want[256];
	snprintf(want, sizeof want, "%s\t%u-bit words, %u lanes (default)\n", t->name, t->word_bits, t->lanes);
	cr_expect(strstr(r.out, want), "tessera targets:\n%s", r.out);
	run_result_free(&r);
	const char *help[] = { "--help", NULL };
	run_ok(help, 0, &r);
	snprintf(want, sizeof want, "instruction set (default: %s)", t->name);
	cr_expect(strstr(r.out, want), "tessera --help:\n%s", r.out);
	run_result_free(&r);
}

/* `tessera sim` initial values on every target of the build (docs/tools.md "sim"), a target with a platform of its
 * own (the QPU's) as any other: an --init file with a bad line is file:line:col, status 1, nothing run; a --set naming
 * no state and a --mem naming no space are status 2.  (tests/test_front.c runs the generic path in full; the
 * platform's: sim_values_on_a_platform below.) */
Test(cli, sim_initial_values_every_target)
{
	char *dir = run_mkdtemp();
	cr_assert(dir);
	char prog[4200], init[4200], bad[4300];
	snprintf(prog, sizeof prog, "%s/prog.bin", dir);
	snprintf(init, sizeof init, "%s/init.txt", dir);
	const char text[] = "# initial values\nno_such_state_xyz = 1\n";
	cr_assert_eq(run_write_file(init, text, sizeof text - 1), 0);
	for (size_t i = 0; tsr_all_targets[i]; i++) {
		const struct tsr_target *t = tsr_all_targets[i];
		static const uint32_t zero[64];
		cr_assert_eq(run_write_file(prog, zero, t->nwords * 4), 0);
		struct run_result r;
		const char *a[] = { "sim", "--target", t->name, "--input-format", "bin", prog, "--init", init, NULL };
		run_ok(a, 1, &r);
		snprintf(bad, sizeof bad, "%s:2:1: error: no state or regfile 'no_such_state_xyz' in this description", init);
		cr_expect(strstr(r.err, bad), "%s: %s", t->name, r.err);
		cr_expect_str_empty(r.out, "%s: ran: %s", t->name, r.out);
		run_result_free(&r);
		const char *s[] = { "sim", "--target", t->name, "--input-format", "bin", prog, "--set", "no_such_state_xyz=1",
				    NULL };
		run_ok(s, 2, &r);
		cr_expect(strstr(r.err, "tessera: error: --set 'no_such_state_xyz=1': no state"), "%s: %s", t->name, r.err);
		run_result_free(&r);
		const char *m[] = { "sim", "--target", t->name, "--input-format", "bin", prog, "--mem", "nospace:0=1", NULL };
		run_ok(m, 2, &r);
		run_result_free(&r);
	}
	run_rmtree(dir);
	free(dir);
}

/* Initial values on a platform's processors (the QPU's; docs/tools.md "sim"): a program that stores ra5 (16 lanes)
 * through the VPM to the address in ra0, both given only by --set / --init, stores exactly those values; `K:` sets
 * one processor; bad values are a clear error, nothing run. */
static const char qset_prog[] =
	"        mov vw_setup, 0x00001a00\n"
	"        nop\n"
	"        mov vpm, ra5\n"
	"        mov vw_setup, 0x80904000\n"
	"        mov vw_addr, ra0\n"
	"        mov -, vw_wait\n"
	"        nop; nop; thrend\n"
	"        nop\n"
	"        nop\n";

Test(cli, sim_values_on_a_platform)
{
	char *dir = run_mkdtemp();
	cr_assert(dir);
	char prog[4200], init[4200], want[4400];
	snprintf(prog, sizeof prog, "%s/store.qasm", dir);
	snprintf(init, sizeof init, "%s/init.txt", dir);
	cr_assert_eq(run_write_file(prog, qset_prog, sizeof qset_prog - 1), 0);
	struct run_result r;
	/* one value for every lane, and one per lane */
	const char *one[] = { "sim", prog, "--set", "ra[0]=0x2000", "--set", "ra[5] = 1.5", "--dump", "0x2000,64", NULL };
	run_ok(one, 0, &r);
	cr_expect(strstr(r.out, "ended after ") && strstr(r.out, " on 1 QPU\n"), "%s", r.out);
	cr_expect(strstr(r.out, "0x00002000: 0x3fc00000 1.5 ") && strstr(r.out, "0x0000203c: 0x3fc00000 1.5"), "%s",
		  r.out);
	run_result_free(&r);
	const char *lanes[] = { "sim", prog, "--set", "ra[0]=0x3000", "--set",
				"ra[5]=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,0xdeadbeef", "--dump", "0x3000,64", NULL };
	run_ok(lanes, 0, &r);
	cr_expect(strstr(r.out, "0x00003000: 0x00000000") && strstr(r.out, "0x00003004: 0x00000001") &&
		  strstr(r.out, "0x00003038: 0x0000000e") && strstr(r.out, "0x0000303c: 0xdeadbeef"), "%s", r.out);
	run_result_free(&r);
	/* --init, then --set over it; processor 1 alone stores elsewhere */
	const char text[] = "# where and what\nra[0] = 0x2000   // every QPU\nra[5] = 2.5\n1: ra[0] = 0x2100\n";
	cr_assert_eq(run_write_file(init, text, sizeof text - 1), 0);
	const char *file[] = { "sim", prog, "--qpus", "2", "--init", init, "--set", "0:ra[5]=-4.0", "--set", "1:ra[5]=-4.0",
			       "--dump", "0x2000,0x104", NULL };
	run_ok(file, 0, &r);
	cr_expect(strstr(r.out, "on 2 QPUs"), "%s", r.out);
	cr_expect(strstr(r.out, "0x00002000: 0xc0800000 -4 ") && strstr(r.out, "0x00002100: 0xc0800000 -4 "), "%s",
		  r.out);
	cr_expect(strstr(r.out, "0x00002040: 0x00000000 0 "), "only 0x2000 and 0x2100 written:\n%s", r.out);
	run_result_free(&r);
	const char *nofile[] = { "sim", prog, "--init", init, "--dump", "0x2000,16", NULL };
	run_ok(nofile, 1, &r);   /* "1:" names a processor that does not run */
	snprintf(want, sizeof want, "%s:4:1: error: processor '1' is not one of the 1 run (0..0)", init);
	cr_expect(strstr(r.err, want), "%s", r.err);
	cr_expect_str_empty(r.out, "ran: %s", r.out);
	run_result_free(&r);
	/* --mem through a space's write entry: wr_a 0..31 write ra[addr]; a read-only address is refused */
	const char *mem[] = { "sim", prog, "--mem", "wr_a:0=0x2000", "--mem", "wr_a:5=-0.5", "--dump", "0x2000,16", NULL };
	run_ok(mem, 0, &r);
	cr_expect(strstr(r.out, "0x00002000: 0xbf000000 -0.5 ") && strstr(r.out, "0x0000200c: 0xbf000000 -0.5"), "%s",
		  r.out);
	run_result_free(&r);
	const char *ro[] = { "sim", prog, "--mem", "rd_a:1=2.5", NULL };
	run_ok(ro, 1, &r);
	cr_expect(strstr(r.err, "tessera: error: space rd_a has no write entry for address 1"), "%s", r.err);
	cr_expect_str_empty(r.out, "ran: %s", r.out);
	run_result_free(&r);
	/* bad values: usage errors, nothing run */
	static const char *const bad[][2] = {
		{ "nosuch[3]=1", "--set 'nosuch[3]=1': no state or regfile 'nosuch' in this description (at column 1)" },
		{ "ra[32]=1", "--set 'ra[32]=1': element '32' is not one of regfile 'ra' (0..31) (at column 4)" },
		{ "ra[3]=1.5x", "--set 'ra[3]=1.5x': value '1.5x' " },
		{ "ra[3]=1,2", "--set 'ra[3]=1,2': 2 values: it takes one (for every lane and component) or 16" },
		{ "2:ra[3]=1", "--set '2:ra[3]=1': processor '2' is not one of the 2 run (0..1) (at column 1)" },
		{ "ra=1", "--set 'ra=1': regfile 'ra' needs an element: ra[0..31]" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *a[] = { "sim", prog, "--qpus", "2", "--set", bad[i][0], NULL };
		run_ok(a, 2, &r);
		snprintf(want, sizeof want, "tessera: error: %s", bad[i][1]);
		cr_expect(strstr(r.err, want), "--set %s: %s", bad[i][0], r.err);
		cr_expect_str_empty(r.out, "--set %s ran: %s", bad[i][0], r.out);
		run_result_free(&r);
	}
	run_rmtree(dir);
	free(dir);
}

/* The platform's memory and state after the run (docs/tools.md "sim"): `--mem ADDR=V,...` writes words of the
 * memory the QPUs share (here the uniform stream the program reads, and words no program touches), in --init too;
 * `--dump NAME` prints a regfile of every QPU, `K:NAME` of QPU K alone; bad ones are usage errors, nothing run. */
static const char qmem_prog[] =
	"        mov ra5, unif\n"
	"        mov vw_setup, 0x00001a00\n"
	"        nop\n"
	"        mov vpm, ra5\n"
	"        mov vw_setup, 0x80904000\n"
	"        mov vw_addr, ra0\n"
	"        mov -, vw_wait\n"
	"        nop; nop; thrend\n"
	"        nop\n"
	"        nop\n";

Test(cli, sim_memory_and_dump_on_a_platform)
{
	char *dir = run_mkdtemp();
	cr_assert(dir);
	char prog[4200], init[4200], want[4400];
	snprintf(prog, sizeof prog, "%s/unif.qasm", dir);
	snprintf(init, sizeof init, "%s/init.txt", dir);
	cr_assert_eq(run_write_file(prog, qmem_prog, sizeof qmem_prog - 1), 0);
	struct run_result r;
	/* QPU 0's uniform stream is at 0x100000 (tools/cmd_sim.c): the program stores its first uniform at ra0 */
	const char *unif[] = { "sim", prog, "--set", "ra[0]=0x2000", "--mem", "0x100000=2.5", "--mem", "0x3000=1,2,0x30",
			       "--dump", "0x2000,16", NULL };
	run_ok(unif, 0, &r);
	cr_expect(strstr(r.out, "0x00002000: 0x40200000 2.5 ") && strstr(r.out, "0x0000200c: 0x40200000 2.5"), "%s",
		  r.out);
	run_result_free(&r);
	const char *words[] = { "sim", prog, "--set", "ra[0]=0x2000", "--mem", "0x3000 = 1, 2, 0x30", "--dump",
				"0x3000,16", NULL };
	run_ok(words, 0, &r);
	cr_expect(strstr(r.out, "0x00003000: 0x00000001 ") && strstr(r.out, "0x00003004: 0x00000002 ") &&
		  strstr(r.out, "0x00003008: 0x00000030 ") && strstr(r.out, "0x0000300c: 0x00000000 "), "%s", r.out);
	run_result_free(&r);
	/* in --init, after the uniforms --uniforms gave (so it wins over them) */
	const char text[] = "ra[0] = 0x2000\n0x100000 = -1.0   // the first uniform\n";
	cr_assert_eq(run_write_file(init, text, sizeof text - 1), 0);
	const char *file[] = { "sim", prog, "--uniforms", "7", "--init", init, "--dump", "0x2000,4", NULL };
	run_ok(file, 0, &r);
	cr_expect(strstr(r.out, "0x00002000: 0xbf800000 -1 "), "%s", r.out);
	run_result_free(&r);
	/* --dump NAME: every QPU's ra, prefixed when several ran; K:NAME one QPU's */
	const char *one[] = { "sim", prog, "--set", "ra[0]=0x2000", "--uniforms", "3", "--dump", "ra", NULL };
	run_ok(one, 0, &r);
	cr_expect(strstr(r.out, "\nra[0] = 0x00002000 0x00002000 ") && strstr(r.out, "\nra[5] = 0x00000003 "), "%s",
		  r.out);
	run_result_free(&r);
	const char *two[] = { "sim", prog, "--qpus", "2", "--set", "ra[0]=0x2000", "--set", "1:ra[0]=0x2100", "--dump",
			      "1:ra", NULL };
	run_ok(two, 0, &r);
	cr_expect(strstr(r.out, "\nqpu1: ra[0] = 0x00002100 ") && !strstr(r.out, "qpu0: ra"), "%s", r.out);
	run_result_free(&r);
	/* bad ones */
	static const char *const bad[][3] = {
		{ "--mem", "0x2002=1", "--mem '0x2002=1': address '0x2002' is not a word of the memory (a multiple of 4, "
				       "0..16777212) (at column 1)" },
		{ "--mem", "0xfffffc=1,2", "--mem '0xfffffc=1,2': 2 words from 0xfffffc pass the end of the memory "
					   "(16777216 bytes)" },
		{ "--mem", "1:0x2000=1", "--mem '1:0x2000=1': --mem takes SPACE:ADDR=VALUE or ADDR=VALUE (the memory), "
					 "not '0x2000'" },
		{ "--dump", "nosuch", "--dump 'nosuch': no state or regfile of that name in this description" },
		{ "--dump", "2:ra", "--dump '2:ra': processor '2' is not one of the 2 run (0..1)" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *a[] = { "sim", prog, "--qpus", "2", bad[i][0], bad[i][1], NULL };
		run_ok(a, 2, &r);
		snprintf(want, sizeof want, "tessera: error: %s", bad[i][2]);
		cr_expect(strstr(r.err, want), "%s %s: %s", bad[i][0], bad[i][1], r.err);
		cr_expect_str_empty(r.out, "%s %s ran: %s", bad[i][0], bad[i][1], r.out);
		run_result_free(&r);
	}
	run_rmtree(dir);
	free(dir);
}
