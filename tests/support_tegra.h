/* Test support: the Tegra vertex programs of the shared corpus (corpus/tegra/grate/vertex/{grate_examples,
 * opentegra,opentegra_history}/NAME.hex, grate's words in its upload order: bits 127..96 first; MANIFEST.md there),
 * read once for the tests that need them (test_tegra, test_tegra_rules, test_tegra_pack). */
#ifndef TESTS_SUPPORT_TEGRA_H
#define TESTS_SUPPORT_TEGRA_H
#include "hexio.h"

#define TEGRA_NPROGS 14   /* MANIFEST.md "Counts": the vertex programs */

struct tegra_prog {
	char path[700];   /* the file's path without `.hex` (its .bin, .dis and .asm are beside it) */
	char name[300];   /* SET/FILE.hex, for messages */
	struct tsr_words w;   /* its instructions, in memory order (least significant word first) */
};

/* The programs, read on the first call and kept (the test binary's lifetime), in path order; *n is their count
 * (TEGRA_NPROGS, asserted).  A missing directory or an unreadable file fails the calling test. */
struct tegra_prog *tegra_corpus(int *n);
#endif
