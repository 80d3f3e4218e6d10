/* Test support: the names of the Utgard GP programs of the shared corpus (corpus/utgard-gp/lima_compiler/NAME.hex,
 * compiled by Mesa's lima; MANIFEST.md there), for the tests that go through all of them (test_utgard_defer.c,
 * test_utgard_sim.c).  Part of the corpus is kept aside (MANIFEST.md): a named program may be absent. */
#ifndef TESTS_SUPPORT_LIMA_H
#define TESTS_SUPPORT_LIMA_H
#include <stddef.h>

extern const char *const lima_names[];   /* MANIFEST.md's programs, in its order */
extern const size_t lima_nnames;
#endif
