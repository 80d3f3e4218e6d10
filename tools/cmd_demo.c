/* `tessera demo`: the main job on the bundled default.  Assembles examples/qpu/demo.qasm with the
 * QPU backend generated from targets/qpu/qpu.mdl, prints its words and their disassembly, runs it in
 * the generated simulator and prints what it computed next to the expected values. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qpu_hooks.h"
#include "registry.h"
#include "tools.h"

int tool_run_qpu(const struct tool_opts *o, const char *path, const struct tsr_words *w, const uint32_t *unif,
		 size_t nunif, struct qpu_machine **keep);

#define DEMO_OUT 0x2000u   /* where the demo stores its 16 results (bus bytes) */

int cmd_demo(struct tool_opts *o)
{
	const struct tsr_target *t = tsr_find_target("qpu");
	if (!t) {
		fprintf(stderr, "tessera: error: the demo needs the qpu target\n");
		return 1;
	}
	char path[4096];
	const char *root = getenv("TESSERA_ROOT");
	snprintf(path, sizeof path, "%s%sexamples/qpu/demo.qasm", root ? root : "", root ? "/" : "");
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
		printf("%04zx: 0x%08x, 0x%08x  %.*s\n", i * t->pc_step, tsr_words_at(&w, i)[0], tsr_words_at(&w, i)[1],
		       (int)text.len, text.data);
	}
	float c = 1.0f;
	uint32_t unif[2];
	memcpy(&unif[0], &c, 4);
	unif[1] = DEMO_OUT;
	printf("== simulating on 1 QPU with uniforms c = %g, out = 0x%x\n", c, DEMO_OUT);
	struct tool_opts so = *o;
	so.target = t;
	so.qpus = 1;
	so.dump = NULL;
	struct qpu_machine *m = NULL;
	rc = tool_run_qpu(&so, path, &w, unif, 2, &m);
	if (rc == TOOL_EXIT_CUT)
		fprintf(stderr, "%s: error: run cut short by --max-steps %llu before the QPU ended\n", path,
			(unsigned long long)so.max_steps);
	if (!rc) {
		printf("== computed y[i] = 1/(i*i + c), read back from memory at 0x%x:\n", DEMO_OUT);
		const uint8_t *mem = qpu_machine_mem(m);
		int bad = 0;
		for (int i = 0; i < 16; i++) {
			float y, want = 1.0f / ((float)i * (float)i + c);
			memcpy(&y, mem + DEMO_OUT + 4 * i, 4);
			/* the SFU keeps 13 fraction bits (docs/targets/qpu-arith.md) */
			int ok = fabsf(y - want) <= fabsf(want) * 0x1p-12f;
			bad += !ok;
			printf("  lane %2d: %-12.7g (exact %-12.7g)%s\n", i, y, want, ok ? "" : "  <-- wrong");
		}
		rc = bad ? 1 : 0;
	}
	if (m)
		qpu_machine_free(m);
	tsr_buf_free(&src);
	tsr_buf_free(&text);
	tsr_words_free(&w);
	tsr_diag_fini(&d);
	return rc;
}
