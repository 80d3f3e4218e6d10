/* Test support: random bundles run by the generated simulator and by the evaluator of the description side by side
 * (mdl/diffsim.h, the core of fuzz_sim), for the test descriptions' simulators (tests/test_fwd.c, test_vec.c). */
#ifndef TESTS_SUPPORT_DIFFSIM_H
#define TESTS_SUPPORT_DIFFSIM_H
#include <stdint.h>
#include "diffsim.h"

/* Runs n inputs of 48 pseudo-random bytes (a linear congruential generator from seed) through DS
 * (mdl_diffsim_one: a bundle and a machine state each); a disagreement fails the calling test with its report.
 * DS's counters (runs, ok, halted, hazards, errors) count them. */
void diffsim_random(struct mdl_diffsim *DS, uint64_t seed, unsigned long n);
#endif
