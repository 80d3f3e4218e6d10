/* Helpers shared by the benchmarks (bench/bench_*.c include this header; it is not a program itself):
 * clocks and the TESSERA_BENCH_* environment of bench/README.md. */
#ifndef BENCH_BENCH_H
#define BENCH_BENCH_H
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The clock `id` (CLOCK_MONOTONIC for wall time, CLOCK_THREAD_CPUTIME_ID for this thread's CPU time) in
 * seconds. */
static inline double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The environment variable `name` as a positive number (e.g. TESSERA_BENCH_SECONDS), else dflt (unset,
 * not a number, zero or negative). */
static inline double env_num(const char *name, double dflt)
{
    const char *s = getenv(name);
    double v = s ? strtod(s, NULL) : 0;
    return v > 0 ? v : dflt;
}

/* TESSERA_BENCH_ONLY=TEXT runs only the measurements whose name contains TEXT (for profiling): 1 when
 * `name` is selected (always, without the variable). */
static inline int selected(const char *name)
{
    const char *only = getenv("TESSERA_BENCH_ONLY");
    return !only || strstr(name, only) != NULL;
}
#endif
