/* Helpers shared by the benchmarks (bench/bench_*.c include this header; it is not a program itself):
 * clocks and the TESSERA_BENCH_* environment of bench/README.md. */
#ifndef BENCH_BENCH_H
#define BENCH_BENCH_H
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The clock `id` (CLOCK_MONOTONIC for wall time, CLOCK_THREAD_CPUTIME_ID for this thread's CPU time) in
 * seconds. */
static inline double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A struct timeval (getrusage) in seconds. */
static inline double tv_s(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

/* The parent's side of a timed pass run in a forked child that writes an n-byte report to a pipe: reads
 * the report from fd (the pipe's read end, closed here) and reaps the child.  Returns 0 when all n bytes
 * came and the child exited with status 0, else -1. */
static inline int child_collect(pid_t pid, int fd, void *rep, size_t n)
{
    ssize_t got;
    do
        got = read(fd, rep, n);
    while (got < 0 && errno == EINTR);
    close(fd);
    int st = 0;
    waitpid(pid, &st, 0);
    return got == (ssize_t)n && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* The environment variable `name` as a positive number (e.g. TESSERA_BENCH_SECONDS), else dflt (unset,
 * not a number, zero or negative). */
static inline double env_num(const char *name, double dflt)
{
    const char *s = getenv(name);
    double v = s ? strtod(s, NULL) : 0;
    return v > 0 ? v : dflt;
}

/* TESSERA_BENCH_PASSES=N: a timed run is exactly N passes over its input instead of as many as fill
 * TESSERA_BENCH_SECONDS (for instruction counts under callgrind, where time means nothing: the count of a pass
 * function divided by the passes made, warm-up included, and the instructions per pass); 0 when unset.  Only
 * the benchmarks whose header comment names it read it. */
static inline unsigned long fixed_passes(void)
{
    return (unsigned long)env_num("TESSERA_BENCH_PASSES", 0);
}

/* TESSERA_BENCH_ONLY=TEXT runs only the measurements whose name contains TEXT (for profiling): 1 when
 * `name` is selected (always, without the variable). */
static inline int selected(const char *name)
{
    const char *only = getenv("TESSERA_BENCH_ONLY");
    return !only || strstr(name, only) != NULL;
}
#endif
