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
#include "progmeta.h"
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
	"EXEC(export[0]=vector) ADDv r63, a[0], c[1];\n"
	"EXEC_END(export[1]=vector) MULv r2, a[0], r5 NEGs r3, c[1];\n";

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
	assemble("EXEC_END MOVv r1, a[0];\n", &w2);
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
	assemble("loop:\nEXEC(export[2]=vector) MOVv r1, c[0];\nEXEC ADDv r1, r1, c[0];\n", &w);
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

static int sink(void *ctx, const char *data, size_t len)
{
	tsr_buf_append(ctx, data, len);
	return 0;
}

/* ---- the assembler's front end for a declared syntax (runtime/text/asm_front.c, docs/asm.md "Declared syntax") */

/* grate's layout: sections before `.asm`, C comments, a bundle over lines ended by `;`, one on a line, one whose
 * scalar op is left out (its slot's default), labels; each gives the words of the same bundle in the default
 * syntax (parts separated by ';', the engine's own: assemble_one), at the bundle's first line. */
static const char grate_src[] =
	"/*\n"
	" * a vertex shader in grate's layout\n"
	" */\n"
	"\n"
	".exports\n"
	"\t[0] = \"position\";\n"
	"\t[1] = \"texcoords\";   // a comment after an entry\n"
	"\n"
	".attributes\n"
	"\t[0] = \"position\"; [2] = \"a \\\"quoted\\\" name\";\n"
	".uniforms\n"
	"\t// [0] = \"mvp\";\n"
	".constants\n"
	"\t[0].z = 0.0;\n"
	"\t[0].w = 1.0;\n"
	"\t[3] = 0x3f000000;\n"
	"\n"
	".asm\n"
	"EXEC(export[0]=vector)\n"                 /* line 19 */
	"\tMOVv r63, a[0]\n"
	"\tMOVs r1, c[0]   /* a comment */\n"
	";\n"
	"\n"
	"start: EXEC MULv r3, r1, a[0];\n"         /* line 24 */
	"EXEC ADDv r4, r3, c[3] NEGs r5, c[3]; EXEC_END(export[1]=vector)\n"   /* lines 25, 25-27 */
	"\tMOVv r63, r4 /* no scalar op:\n"
	"   its default */ ;\n";

static const char *const grate_native[] = {
	"EXEC(export[0]=vector); MOVv r63, a[0]; MOVs r1, c[0]",
	"EXEC; MULv r3, r1, a[0]",
	"EXEC; ADDv r4, r3, c[3]; NEGs r5, c[3]",
	"EXEC_END(export[1]=vector); MOVv r63, r4",
};
static const unsigned grate_lines[] = { 19, 24, 25, 25 };

Test(front_asm, multi_line_bundles_and_sections)
{
	struct tsr_words w;
	assemble(grate_src, &w);
	cr_assert_eq(w.count, 4);
	for (size_t i = 0; i < 4; i++) {
		uint32_t want[4];
		char err[256];
		cr_assert_eq(front_target.assemble_one(grate_native[i], strlen(grate_native[i]), i * 16, want, err, sizeof err),
			     0, "%s: %s", grate_native[i], err);
		cr_expect_arr_eq(w.w + 4 * i, want, sizeof want, "bundle %zu (%s)", i, grate_native[i]);
		cr_expect_eq(w.line[i], grate_lines[i], "bundle %zu at line %u", i, w.line[i]);
		cr_expect_str_eq(w.comment[i], grate_native[i]);
	}
	/* the sections' entries, in source order */
	const struct tsr_progmeta *m = w.meta;
	cr_assert(m);
	cr_assert_eq(m->n, 7);
	struct { const char *sec, *st; uint32_t i; int comp; bool val; const char *name; uint32_t v; unsigned line; } want[] = {
		{ ".exports", "E", 0, -1, false, "position", 0, 6 },
		{ ".exports", "E", 1, -1, false, "texcoords", 0, 7 },
		{ ".attributes", "A", 0, -1, false, "position", 0, 10 },
		{ ".attributes", "A", 2, -1, false, "a \"quoted\" name", 0, 10 },
		{ ".constants", "C", 0, 2, true, NULL, 0x00000000u, 14 },
		{ ".constants", "C", 0, 3, true, NULL, 0x3f800000u, 15 },
		{ ".constants", "C", 3, -1, true, NULL, 0x3f000000u, 16 },
	};
	for (size_t i = 0; i < 7; i++) {
		const struct tsr_progmeta_ent *e = &m->e[i];
		cr_expect_str_eq(e->section, want[i].sec, "entry %zu", i);
		cr_expect_str_eq(e->state, want[i].st, "entry %zu", i);
		cr_expect_eq(e->index, want[i].i, "entry %zu", i);
		cr_expect_eq(e->comp, want[i].comp, "entry %zu", i);
		cr_expect_eq(e->is_value, want[i].val, "entry %zu", i);
		cr_expect_eq(e->line, want[i].line, "entry %zu: line %u", i, e->line);
		if (want[i].val)
			cr_expect_eq(e->value, want[i].v, "entry %zu: 0x%08x", i, e->value);
		else
			cr_expect_str_eq(e->name, want[i].name, "entry %zu", i);
	}
	tsr_words_free(&w);
}

/* The constants' entries are the simulator's initial values (before --init and --set); a component entry sets that
 * component (here a lane) alone. */
Test(front_asm, constants_are_initial_values)
{
	struct tsr_words w;
	assemble(".constants\n  [1] = 0.5;\n  [1].y = 2.0;\n  [2].w = 3.0;\n.asm\n"
		 "EXEC(export[0]=vector) MOVv r63, c[1];\nEXEC_END(export[1]=vector) MOVv r63, c[2];\n", &w);
	struct tool_opts o = { 0 };
	char *out;
	cr_assert_eq(run(&o, &w, &out), TOOL_EXIT_OK);
	cr_expect(strstr(out, "\nE[0] = 0.5 2 0.5 0.5 0.5 0.5 0.5 0.5  ("), "got:\n%s", out);
	cr_expect(strstr(out, "\nE[1] = 0 0 0 3 0 0 0 0  ("), "got:\n%s", out);
	free(out);
	const char *sets[] = { "C[2]=1.0" };   /* the command line wins */
	struct tool_opts o2 = { .sets = sets, .nsets = 1 };
	cr_assert_eq(run(&o2, &w, &out), TOOL_EXIT_OK);
	cr_expect(strstr(out, "\nE[0] = 0.5 2 0.5 0.5 0.5 0.5 0.5 0.5  ("), "got:\n%s", out);
	cr_expect(strstr(out, "\nE[1] = 1 1 1 1 1 1 1 1  ("), "got:\n%s", out);
	free(out);
	tsr_words_free(&w);
}

/* A section without a regfile: its entries are kept whatever their index, and the simulator sets nothing from them. */
Test(front_asm, section_without_regfile)
{
	struct tsr_words w;
	assemble(".notes\n  [100000] = \"anything\";\n.asm\nEXEC_END(export[0]=vector) MOVv r63, a[0];\n", &w);
	cr_assert(w.meta);
	cr_assert_eq(w.meta->n, 1);
	cr_expect_null(w.meta->e[0].state);
	cr_expect_eq(w.meta->e[0].index, 100000);
	cr_expect_str_eq(w.meta->e[0].name, "anything");
	struct tool_opts o = { 0 };
	char *out;
	cr_expect_eq(run(&o, &w, &out), TOOL_EXIT_OK);
	free(out);
	tsr_words_free(&w);
}

/* The program printers write the declared syntax (a bundle over lines, ended by ';'), which assembles back to the
 * same words; the sections print back (tsr_tc_meta_print) and read back to the same entries. */
Test(front_asm, disassembly_reads_back)
{
	struct tsr_words w, w2;
	assemble(grate_src, &w);
	struct tsr_buf text = { 0 };
	tsr_tc_meta_print(front_target.text, w.meta, &text);
	size_t head = text.len;
	cr_assert_eq(front_target.disasm_program(w.w, w.count, 0, &text), 0);
	cr_expect(strstr(text.data, ".exports\n    [0] = \"position\";\n    [1] = \"texcoords\";\n\n.attributes\n"),
		  "got:\n%s", text.data);
	cr_expect(strstr(text.data, "\n.constants\n    [0].z = 0.0;\n    [0].w = 1.0;\n    [3] = 0x3f000000;\n\n.asm\n"),
		  "got:\n%s", text.data);
	cr_expect(strstr(text.data + head, "    EXEC(export[0]=vector)\n        MOVv r63, a[0]\n        MOVs r1, c[0]\n    ;\n"),
		  "got:\n%s", text.data + head);
	assemble(text.data, &w2);
	cr_assert_eq(w2.count, w.count);
	cr_expect_arr_eq(w2.w, w.w, w.count * 16);
	cr_assert(w2.meta);
	cr_assert_eq(w2.meta->n, w.meta->n);
	for (size_t i = 0; i < w.meta->n; i++) {
		cr_expect_eq(w2.meta->e[i].value, w.meta->e[i].value);
		cr_expect_eq(w2.meta->e[i].comp, w.meta->e[i].comp);
		cr_expect(!w.meta->e[i].name || !strcmp(w2.meta->e[i].name, w.meta->e[i].name));
	}
	/* the streaming printer gives the same text */
	struct tsr_buf s = { 0 };
	cr_assert_eq(tsr_tc_disasm_program_stream(front_target.text, w.w, w.count, 0, sink, &s), 0);
	cr_expect_eq(s.len, text.len - head);
	cr_expect(!memcmp(s.data, text.data + head, s.len));
	tsr_buf_free(&s);
	tsr_buf_free(&text);
	tsr_words_free(&w);
	tsr_words_free(&w2);
}

/* Errors, each file:line:col: a bundle not ended at the end of the file (at its start), an unknown section, bad
 * entries, a bad operand inside a bundle over lines (at its own line and column), a block comment not closed. */
Test(front_asm, errors_at_their_place, .init = cr_redirect_stderr)
{
	static const char src[] =
		".exports\n"
		"  [0] = \"position\";\n"
		".outputs\n"                                 /* 3: unknown section */
		".constants\n"
		"  [0].q = 1.0;\n"                           /* 5: no component q */
		"  [64] = 1.0;\n"                            /* 6: no element 64 */
		"  [1] = \"name\";\n"                        /* 7: a value expected */
		"  [2] = 1.0\n"                              /* 8: no ';' */
		".asm\n"
		"EXEC(export[0]=vector)\n"
		"    MOVv r63, a[0]\n"
		"    MOVs r99, c[0]\n"                       /* 12: no such register */
		";\n"
		"EXEC\n"                                     /* 14: not ended */
		"    MOVv r1, a[0]\n";
	struct tsr_diag d;
	struct tsr_words w;
	tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
	tsr_words_init(&w, front_target.word_bits);
	cr_expect_eq(front_target.assemble("t.s", src, sizeof src - 1, &w, &d), -1);
	tsr_diag_fini(&d);
	tsr_words_free(&w);
	struct tsr_words w2;
	tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
	tsr_words_init(&w2, front_target.word_bits);
	static const char src2[] = "EXEC MOVv r1, a[0]; /* not closed\n\n";
	cr_expect_eq(front_target.assemble("u.s", src2, sizeof src2 - 1, &w2, &d), -1);
	tsr_diag_fini(&d);
	tsr_words_free(&w2);
	fflush(stderr);
	cr_expect_stderr_eq_str(
		"t.s:3:1: error: unknown section '.outputs' (sections: .exports, .attributes, .uniforms, .constants, .asm, .notes)\n"
		"t.s:5:7: error: 'q' is not a component of section '.constants' (one of \"xyzw\")\n"
		"t.s:6:4: error: '64' is not an element of C (0..63)\n"
		"t.s:7:9: error: expected a value (an integer or a float) in section '.constants'\n"
		"t.s:8:12: error: expected ';' after the entry\n"
		"t.s:12:11: error: value 99 does not fit field sd (6 bits)\n"
		"t.s:14:1: error: bundle not ended by ';' at the end of the file\n"
		"u.s:1:21: error: comment '/*' not closed at the end of the file\n");
}
