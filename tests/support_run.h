/* Running the `tessera` driver of the test's own build in a child process, with a time limit, for the
 * command-line tests (tests/test_robust.c, tests/test_cli.c). */
#ifndef TESTS_SUPPORT_RUN_H
#define TESTS_SUPPORT_RUN_H
#include <stdbool.h>
#include <stddef.h>

/* The outcome of one run. */
struct run_result {
	int status;      /* exit status, or -1 when the child did not exit normally */
	int signal;      /* the signal that ended it (0: none; SIGKILL after a timeout) */
	bool timed_out;  /* still running at the time limit (then killed) */
	double seconds;  /* wall-clock time */
	char *out, *err; /* standard output and error, NUL-terminated (the first 1 MiB of each) */
	size_t out_len, err_len;
};

/* The tessera binary beside the running test binary: <dir of /proc/self/exe>/../tessera, so a test of
 * build-san/ runs build-san/tessera.  Returns a static string. */
const char *run_tessera_path(void);

/* Seconds after which a run counts as hung: 10, or 30 when built with AddressSanitizer. */
double run_time_limit(void);

/* Runs `tessera argv[0] argv[1] ...` (argv NULL-terminated, without the program name) with standard
 * input from stdin_path (NULL: /dev/null), killing it after run_time_limit() seconds.  Returns 0, or -1
 * when the child could not be started.  Free the result with run_result_free. */
int run_tessera(const char *const *argv, const char *stdin_path, struct run_result *r);
void run_result_free(struct run_result *r);
/* The same for the program at path prog (e.g. the build's mdlc: run_tessera_path()'s directory + "/mdlc"). */
int run_program(const char *prog, const char *const *argv, const char *stdin_path, struct run_result *r);

/* A fresh directory under $TMPDIR (or /tmp); removed with everything in it by run_rmtree. */
char *run_mkdtemp(void);
void run_rmtree(const char *dir);

/* Writes n bytes to path (created or truncated).  Returns 0 or -1. */
int run_write_file(const char *path, const void *data, size_t n);
#endif
