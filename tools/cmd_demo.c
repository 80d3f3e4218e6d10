/* `tessera demo`: the main job on the bundled default.  Assembles the default target's bundled example (its
 * platform's `demo`, runtime/sim/platform.h) with the backend generated from its description, prints its words and
 * their disassembly, runs it on the target's platform and prints what it computed next to the expected values. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "registry.h"
#include "sim/platform.h"
#include "tools.h"

#define DEMO_OUT 0x2000u   /* where the demo stores its results (bus bytes) */

int cmd_demo(struct tool_opts *o)
{
	const struct tsr_target *t = tsr_default_target();
	const struct tsr_platform *p = t ? tsr_target_platform(t) : NULL;
	if (!p || !p->demo) {
		fprintf(stderr, "tessera: error: the demo needs a default target with a platform and a bundled example; "
			"'%s' has none (configure.py --default-target)\n", t ? t->name : "(none built)");
		return 1;
	}
	char path[4096];
	const char *root = getenv("TESSERA_ROOT");
	snprintf(path, sizeof path, "%s%s%s", root ? root : "", root ? "/" : "", p->demo);
	struct tsr_diag d;
	struct tsr_words w;
	struct tsr_buf src = { 0 }, text = { 0 };
	tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
	tsr_words_init(&w, t->word_bits);
	int rc = tsr_file_read(path, &src, &d) || t->assemble(path, src.data ? src.data : "", src.len, &w, &d);
	if (rc) {
		tsr_diag_fini(&d);
		tsr_buf_free(&src);
		return 1;
	}
	printf("== assembled %s: %zu instructions\n", path, w.count);
	for (size_t i = 0; i < w.count; i++) {
		tsr_buf_clear(&text);
		t->disasm(tsr_words_at(&w, i), i * t->pc_step, &text);
		printf("%04zx:", i * t->pc_step);
		for (unsigned k = 0; k < t->nwords; k++)
			printf(" 0x%08x%s", tsr_words_at(&w, i)[k], k + 1 < t->nwords ? "," : "");
		printf("  %.*s\n", (int)text.len, text.data);
	}
	float c = 1.0f;
	uint32_t unif[2];
	memcpy(&unif[0], &c, 4);
	unif[1] = DEMO_OUT;
	printf("== simulating on 1 %s with uniforms c = %g, out = 0x%x\n", p->noun, c, DEMO_OUT);
	struct tool_opts so = *o;
	so.target = t;
	so.qpus = 1;
	so.dump = NULL;
	void *m = NULL;
	rc = tool_run_platform(&so, p, path, &w, unif, 2, NULL, &m);
	if (rc == TOOL_EXIT_CUT)
		fprintf(stderr, "%s: error: run cut short by --max-steps %llu before the %s ended\n", path,
			(unsigned long long)so.max_steps, p->noun);
	if (!rc) {
		printf("== computed y[i] = 1/(i*i + c), read back from memory at 0x%x:\n", DEMO_OUT);
		const uint8_t *mem = p->mem(m);
		int bad = 0;
		for (unsigned i = 0; i < t->lanes; i++) {
			float y, want = 1.0f / ((float)i * (float)i + c);
			memcpy(&y, mem + DEMO_OUT + 4 * i, 4);
			/* 12 bits asked of the result: a reciprocal unit may keep fewer than binary32's 23 fraction bits */
			int ok = fabsf(y - want) <= fabsf(want) * 0x1p-12f;
			bad += !ok;
			printf("  lane %2u: %-12.7g (exact %-12.7g)%s\n", i, y, want, ok ? "" : "  <-- wrong");
		}
		rc = bad ? 1 : 0;
	}
	if (m)
		p->machine_free(m);
	tsr_buf_free(&src);
	tsr_buf_free(&text);
	tsr_words_free(&w);
	tsr_diag_fini(&d);
	return rc;
}
