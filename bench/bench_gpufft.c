/* GPU_FFT release 3.0 in the simulator, every size: for log2 N = 8..22, forward and inverse, one
 * transform of random complex input (the same harness and checks as tests/test_gpufft.c, which runs
 * 8..14), the relative rms error against FFTW (double) next to GPU_FFT's published figure
 * (gpu_fft.txt), the simulated cost (bundles per QPU and in total, rounds of the QPU loop, cycles
 * estimated as rounds x 4 clocks since a QPU issues one bundle every 4 clocks, and that time at
 * 250 MHz next to the published runtime for a batch of 1) and the simulator's speed (bundles per
 * second of CPU time; wall time is also shown, it includes other processes' time on a busy machine).
 * Exit status 1 only for wrong work (bench/README.md): a simulator report, a peripheral warning, or
 * an error outside twice the published figure.
 * Environment: TESSERA_GPUFFT_MAX_LOG2N (default 22) stops earlier; TESSERA_BENCH_RULES=1 runs with
 * TSR_SIM_F_RULES (every issued bundle checked against the description's hazard rules; a report fails the
 * run); TESSERA_SHARED as for the tests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The harness (tools/gpufft.c) comes from libtools.a. */
#include "gpufft.h"
#include "sim/sim.h"

static struct gpufft_run_opts run_opts; /* sim_flags: TSR_SIM_F_RULES with TESSERA_BENCH_RULES=1 */

/* gpu_fft.txt "Throughput", batch size 1, milliseconds (log2 N = 8..22). */
static const double published_ms[] = {0.033, 0.049, 0.070, 0.12, 0.25, 0.61, 1.2, 3.5,
                                      7.0,   17,    43,    97,   194,  388,  786};

static int one(const struct gpufft_code *code, int log2n, int inverse, struct gpufft_cost *all)
{
    char err[GPUFFT_ERRLEN];
    struct gpufft_cost c = {0};
    double ppm, pub = gpufft_published_ppm(log2n);
    int rc = gpufft_run_random(code, log2n, inverse, 1000 + (uint64_t)log2n, &run_opts, &ppm, &c, err);
    double cycles = 4.0 * (double)c.rounds;
    printf("%2d  %-7s  %7.3f  %5.2f  %-4s  %10llu  %8llu  %8llu  %9llu  %10.0f  %8.3f  %7.3f  %7.2f  %7.2f  %6.2f\n",
           log2n,
           inverse ? "inverse" : "forward", ppm, pub, rc ? "FAIL" : ppm <= 2 * pub && ppm >= 0 ? "ok" : "HIGH",
           (unsigned long long)c.total, (unsigned long long)c.issued[0], (unsigned long long)c.issued[1],
           (unsigned long long)c.rounds, cycles, cycles / 250e3, published_ms[log2n - GPUFFT_MIN_LOG2N], c.wall,
           c.seconds, c.seconds > 0 ? (double)c.total / c.seconds / 1e6 : 0);
    if (rc)
        printf("    %s\n", err);
    if (c.warnings)
        printf("    peripheral warnings on %u QPUs, first: %s\n", c.warnings, c.warning);
    gpufft_cost_add(all, &c);
    return rc || c.warnings || !(ppm >= 0 && ppm <= 2 * pub);
}

int main(void)
{
    const char *e = getenv("TESSERA_GPUFFT_MAX_LOG2N");
    int max = e && *e ? atoi(e) : GPUFFT_MAX_LOG2N;
    if (max < GPUFFT_MIN_LOG2N || max > GPUFFT_MAX_LOG2N)
        max = GPUFFT_MAX_LOG2N;
    const char *rules = getenv("TESSERA_BENCH_RULES");
    run_opts.sim_flags = rules && *rules && strcmp(rules, "0") ? TSR_SIM_F_RULES : 0u;
    printf("GPU_FFT 3.0 on the simulated QPUs (8 QPUs; random complex input; error = hello_fft.c's rel_rms_err "
           "against FFTW double, in ppm)%s\n", run_opts.sim_flags ? "; rule checks on (TESSERA_BENCH_RULES)" : "");
    printf("%2s  %-7s  %7s  %5s  %-4s  %10s  %8s  %8s  %9s  %10s  %8s  %7s  %7s  %7s  %6s\n", "lg", "dir", "ppm", "pub",
           "ok", "bundles", "qpu0", "qpu1", "rounds", "cycles~", "est ms", "pub ms", "wall s", "cpu s", "Mb/s");
    struct gpufft_cost all = {0};
    int bad = 0;
    for (int log2n = GPUFFT_MIN_LOG2N; log2n <= max; log2n++) {
        char err[GPUFFT_ERRLEN];
        struct gpufft_code code;
        if (gpufft_code_load(&code, NULL, log2n, err)) {
            printf("%s\n", err);
            return 1;
        }
        for (int inverse = 0; inverse < 2; inverse++)
            bad += one(&code, log2n, inverse, &all);
        gpufft_code_free(&code);
        fflush(stdout);
    }
    printf("total: %llu bundles simulated in %.1f s of CPU time (%.1f s wall): %.2f M bundles/s; %d failed\n",
           (unsigned long long)all.total, all.seconds, all.wall,
           all.seconds > 0 ? (double)all.total / all.seconds / 1e6 : 0, bad);
    printf("(bundles: all 8 QPUs; qpu0: the master, which also stores every pass; qpu1..7: each slave;\n"
           " cycles~ = rounds x 4 clocks: the QPUs run in parallel and each issues one bundle per 4 clocks; memory,\n"
           " TMU and DMA latencies are not modelled, so est ms at 250 MHz is a lower bound of the published runtime)\n");
    return bad ? 1 : 0;
}
