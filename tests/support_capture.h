/* Test support for the runtime's unit tests (tests/test_runtime.c, test_hexio.c, test_fileout.c): diagnostics
 * printed in TSR_DIAG_PRINT mode captured in memory, temporary directories, and the path of a file of the shared
 * directory (tools/corpus.h corpus_shared_dir). */
#ifndef TESTS_SUPPORT_CAPTURE_H
#define TESTS_SUPPORT_CAPTURE_H
#include <stdio.h>
#include "tsr.h"

/* Diagnostics printed in TSR_DIAG_PRINT mode (d), captured in memory. */
struct capture {
	char *text;
	size_t len;
	FILE *f;
	struct tsr_diag d;
};

/* Starts a capture (a failure to open the memory stream fails the calling test). */
void capture_start(struct capture *c);
/* What d printed so far, NUL-terminated (owned by c). */
const char *capture_text(struct capture *c);
void capture_end(struct capture *c);

/* A fresh empty directory under /tmp, malloc'd; removed with everything in it and freed by rmtree(). */
char *make_tmpdir(void);
void rmtree(char *dir);
/* Number of entries in `dir` whose name contains `needle` ("" counts every entry). */
int count_entries(const char *dir, const char *needle);

/* The path of `rel` inside the shared directory (corpus_shared_dir), in a static buffer (the next call reuses it). */
const char *shared_path(const char *rel);
#endif
