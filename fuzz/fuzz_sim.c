/* Fuzzer: encoder versus simulator (ARCHITECTURE.md "Verification" 2).  For every built target, the
 * input's first byte picks the target and the rest drives mdl_diffsim_one (mdl/diffsim.h): a random
 * machine state and 1-4 random bundles; (a) encoded to words, decoded and executed by the generated
 * simulator, (b) evaluated directly from the description's semantic trees by the independent evaluator
 * (mdl/eval.c), both with the same deterministic fake peripherals.  Any difference in state, control,
 * reports or peripheral traffic aborts with the first difference.  The description is loaded from
 * targets/<t>/<t>.mdl (under $TESSERA_ROOT when set; `ninja test` runs from the repository root). */
#include <stdio.h>
#include <stdlib.h>
#include "diffsim.h"
#include "registry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define X(t) extern const struct tsr_sim_desc t##_sim_desc;
TSR_TARGETS
#undef X

static const struct { const struct tsr_target *t; const struct tsr_sim_desc *d; const char *mdl; } fuzz_targets[] = {
#define X(t) { &t##_target, &t##_sim_desc, "targets/" #t "/" #t ".mdl" },
	TSR_TARGETS
#undef X
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = sizeof fuzz_targets / sizeof *fuzz_targets;
	if (!n || size < 1)
		return 0;
	size_t k = data[0] % n;
	int rc = mdl_diffsim_fuzz_one(fuzz_targets[k].t, fuzz_targets[k].d, fuzz_targets[k].mdl, data + 1, size - 1);
	if (rc)
		abort();   /* mdl_diffsim_fuzz_one printed the difference or the setup failure */
	return 0;
}
