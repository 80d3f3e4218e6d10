/* Test support: the volume of random inputs in the sanitizer build (`ninja test-san`, clang with ASan and UBSan,
 * configure.py; README.md "Testing").  A test that loops over a large random set runs 1/TEST_SAN_SHARE of it there
 * (test_random_count): the sanitizers make every input several times slower, and what they look for (a bad access,
 * undefined behaviour) the first inputs reach as the later ones do; the gcc build runs the whole set.  Only the
 * number of random inputs changes: every assertion stays, and a threshold on a count of outcomes is taken from
 * the inputs run.  Static functions only: each test binary that includes this has its own copy. */
#ifndef TESTS_SUPPORT_SAN_H
#define TESTS_SUPPORT_SAN_H
#include <stdio.h>

#if defined(__SANITIZE_ADDRESS__)
#define TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_SANITIZED 1
#endif
#endif
#ifndef TEST_SANITIZED
#define TEST_SANITIZED 0
#endif

#define TEST_SAN_SHARE 8   /* the sanitizer build runs one random input in TEST_SAN_SHARE */

/* The number of random inputs to run of a set of n: n, or n / TEST_SAN_SHARE (at least 1) in the sanitizer build.
 * Prints `WHAT: N random inputs (of M: sanitizer build)` (or `WHAT: N random inputs`) on standard output. */
static inline unsigned long test_random_count(const char *what, unsigned long n)
{
	unsigned long k = TEST_SANITIZED ? (n / TEST_SAN_SHARE ? n / TEST_SAN_SHARE : 1) : n;
	if (k != n)
		printf("%s: %lu random inputs (of %lu: sanitizer build)\n", what, k, n);
	else
		printf("%s: %lu random inputs\n", what, k);
	fflush(stdout);
	return k;
}
#endif
