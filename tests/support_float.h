/* Test support: a binary32 value and its 32-bit word (tests of the simulators: test_tegra_sim.c, test_vec.c,
 * test_utgard_sim.c).  Static functions: each test binary that includes this has its own copy. */
#ifndef TESTS_SUPPORT_FLOAT_H
#define TESTS_SUPPORT_FLOAT_H
#include <stdint.h>
#include <string.h>

/* The word of binary32 f (its bits). */
static inline uint32_t B(float f)
{
	uint32_t x;
	memcpy(&x, &f, 4);
	return x;
}

/* The binary32 value of word x. */
static inline float F(uint32_t x)
{
	float f;
	memcpy(&f, &x, 4);
	return f;
}
#endif
