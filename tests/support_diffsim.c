/* Test support: random bundles through the differential simulator (support_diffsim.h). */
#include "support_diffsim.h"

#include <criterion/criterion.h>

void diffsim_random(struct mdl_diffsim *DS, uint64_t seed, unsigned long n)
{
	uint8_t buf[48];
	uint64_t x = seed;
	for (unsigned long i = 0; i < n; i++) {
		for (size_t j = 0; j < sizeof buf; j++) {
			x = x * 6364136223846793005u + 1442695040888963407u;
			buf[j] = (uint8_t)(x >> 56);
		}
		int rc = mdl_diffsim_one(DS, buf, sizeof buf);
		cr_assert_eq(rc, 0, "run %lu: %s", i, DS->report);
	}
}
