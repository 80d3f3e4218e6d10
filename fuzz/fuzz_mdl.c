/* Fuzzer: the description front end (mdl_load_buffer) on arbitrary text.  Any input must give a
 * model or diagnostics: no crash, no leak, no sanitizer report.  Seeds (fuzz/README.md): fuzz/corpus/mdl
 * (small inputs the generated ones miss) and build/fuzz/seeds/mdl (each target's description and cut-down
 * variants of it, from fuzz/seedgen.c); the negative tests in tests/neg make good extra seeds:
 * `build/fuzz/fuzz_mdl fuzz/corpus/mdl build/fuzz/seeds/mdl tests/neg`. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "diag.h"
#include "model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tsr_diag d;
	tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
	d.max_errors = 0;
	struct mdl_model *m = mdl_load_buffer("fuzz.mdl", (const char *)data, size, &d);
	if (m) {
		uint64_t v;
		for (int i = 0; i < m->nformats; i++)
			(void)mdl_const_eval(m->formats[i].selector, &v);
	}
	mdl_model_free(m);
	tsr_diag_fini(&d);
	return 0;
}
