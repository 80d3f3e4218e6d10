/* `tessera gpu-fft`: runs GPU_FFT release 3.0's own shaders (../shared/corpus/qpu/gpu_fft_r3/hex) in
 * the simulator through the host harness of tools/gpufft.h, and compares the result with FFTW's
 * double-precision transform.  Options (parsed here, not by tessera.c's common parser):
 *   --log2n N        transform length 2^N, N = 8..22 (default 12; with --2d, 9 as hello_fft_2d.c)
 *   --inverse        GPU_FFT_REV instead of GPU_FFT_FWD
 *   --batch B        B transforms in one launch (gpu_fft_prepare's `jobs`, default 1)
 *   --input random|tone   random complex numbers, uniform in [-1, 1) from --seed (default), or
 *                    hello_fft.c's test input (job j: a cosine of frequency (j+1) & (N/2-1))
 *   --seed S         seed of the random input (default 1)
 *   --2d             hello_fft_2d.c's 2-D transform: N rows of 2^N points, transpose
 *                    (shader_trans), N rows again; checked against FFTW's 2-D transform
 *   --diagnose       always run the pass-by-pass diagnosis (gpufft_diagnose; it runs anyway after a wrong
 *                    result or a simulator report)
 *   --trace          print every bundle the QPUs issue to standard output: qpu_run's trace of the run;
 *                    with --diagnose, the instrumented re-run's instead (bundles disassembled, pass
 *                    verdicts at the point where each pass ends)
 *   --max-rounds R   stop a launch after R >= 1 rounds of the QPU loop (exit status 3 when it does)
 *   --dma-latency D  VPM DMA latency in instructions (qpu_machine_set_dma_latency; default 0)
 *   --hex-dir DIR    directory of shader_*.hex (default: see gpufft_hex_dir)
 *   --fault-twiddle Q  self-test of the diagnosis: corrupt entry 3 of QPU Q's unique twiddles
 *   --rules / --no-rules  check every issued bundle against the description's hazard rules
 *                    (TSR_SIM_F_RULES; a violation fails the run), or not (the default: GPU_FFT_RULES_DEFAULT)
 * Exit status: 0 when the error is at most twice GPU_FFT's published figure (gpu_fft.txt) and the
 * simulator reported nothing (no error, hazard, deadlock or peripheral warning), 1 otherwise, 2 for a
 * usage error (every number range-checked: tools/opts.c), 3 when --max-rounds cut a launch short. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3.h>

#include "gpufft.h"
#include "sim/sim.h"
#include "tools.h"

/* Clock of the V3D block on the Raspberry Pi 1 (250 MHz) and the QPU's issue rate: "a 4-way SIMD
 * processor multiplexed 4x over four cycles" (Broadcom, VideoCore IV 3D Architecture Reference
 * Guide, as quoted at en.wikipedia.org/wiki/VideoCore and pkoenig10.github.io/pimd: "an instruction
 * cycle time of four system clocks"). */
#define CLOCKS_PER_BUNDLE 4
#define V3D_MHZ 250.0

/* --rules unless --no-rules (docs/PERFORMANCE.md "Rule checks": what they cost). */
#define GPU_FFT_RULES_DEFAULT 0

struct opts {
    int log2n, log2n_set, inverse, batch, tone, two_d, diagnose, trace, fault_qpu, rules;
    uint64_t seed, max_rounds, dma_latency;
    const char *hex_dir;
};

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "tessera: error: gpu-fft: %s%s%s\n", msg, arg ? " " : "", arg ? arg : "");
    fprintf(stderr, "usage: tessera gpu-fft [--log2n N] [--inverse] [--batch B] [--input random|tone] [--seed S]\n"
                    "         [--2d] [--diagnose] [--trace] [--max-rounds R] [--dma-latency D] [--hex-dir DIR]\n"
                    "         [--fault-twiddle Q] [--rules|--no-rules]      (tessera gpu-fft --help)\n");
    return 2;
}

static int parse(int argc, char **argv, struct opts *o)
{
    *o = (struct opts){.log2n = 12, .batch = 1, .seed = 1, .fault_qpu = -1, .rules = GPU_FFT_RULES_DEFAULT};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t n;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: tessera gpu-fft [options]\n"
                   "Runs GPU_FFT 3.0's own shader for 2^N points on 8 simulated QPUs and compares the result with\n"
                   "FFTW's double-precision transform (relative rms error as hello_fft.c, in ppm).\n"
                   "  --log2n N          N = 8..22 (default 12; 9 with --2d)\n"
                   "  --inverse          inverse transform (GPU_FFT_REV)\n"
                   "  --batch B          B transforms in one launch (default 1)\n"
                   "  --input random|tone   random complex input (default) or hello_fft.c's cosine\n"
                   "  --seed S           seed of the random input (default 1)\n"
                   "  --2d               hello_fft_2d.c: rows, transpose (shader_trans), rows\n"
                   "  --diagnose         check every pass against the harness's pass model\n"
                   "  --trace            print every bundle issued (with --diagnose: disassembled)\n"
                   "  --max-rounds R     stop a launch after R rounds (exit status 3)\n"
                   "  --dma-latency D    VPM DMA latency in instructions (default 0)\n"
                   "  --hex-dir DIR      directory of shader_*.hex\n"
                   "  --fault-twiddle Q  corrupt QPU Q's unique twiddles (a self-test of --diagnose)\n"
                   "  --rules            check every bundle issued against the description's hazard rules%s\n"
                   "  --no-rules         do not%s\n",
                   GPU_FFT_RULES_DEFAULT ? " (default)" : "", GPU_FFT_RULES_DEFAULT ? "" : " (default)");
            return 3;
        } else if (!strcmp(a, "--inverse"))
            o->inverse = 1;
        else if (!strcmp(a, "--2d"))
            o->two_d = 1;
        else if (!strcmp(a, "--diagnose"))
            o->diagnose = 1;
        else if (!strcmp(a, "--trace"))
            o->trace = 1;
        else if (!strcmp(a, "--rules") || !strcmp(a, "--no-rules"))
            o->rules = a[2] == 'r';
        else if (!strcmp(a, "--log2n") || !strcmp(a, "--batch") || !strcmp(a, "--seed") ||
                 !strcmp(a, "--max-rounds") || !strcmp(a, "--dma-latency")) {
            /* ranges: GPU_FFT's lengths; a batch and a latency that fit the 1 GiB arena and an int */
            uint64_t lo = a[2] == 'l' ? GPUFFT_MIN_LOG2N : a[2] == 'b' || a[2] == 'm' ? 1 : 0;
            uint64_t hi = a[2] == 'l' ? GPUFFT_MAX_LOG2N : a[2] == 'b' ? 65536 : a[2] == 'd' ? 100000 : UINT64_MAX;
            if (!val)
                return usage_error(a, "needs a value");
            if (tool_opt_u64(a, val, lo, hi, &n))
                return 2;
            i++;
            if (a[2] == 'l') {
                o->log2n = (int)n;
                o->log2n_set = 1;
            } else if (a[2] == 'b') {
                o->batch = (int)n;
            } else if (a[2] == 's') {
                o->seed = n;
            } else if (a[2] == 'd') {
                o->dma_latency = n;
            } else {
                o->max_rounds = n;
            }
        } else if (!strcmp(a, "--input")) {
            if (!val || (strcmp(val, "random") && strcmp(val, "tone")))
                return usage_error("--input takes random or tone", NULL);
            o->tone = !strcmp(val, "tone");
            i++;
        } else if (!strcmp(a, "--fault-twiddle")) {
            if (!val)
                return usage_error(a, "needs a value");
            if (tool_opt_u64(a, val, 0, GPUFFT_QPUS - 1, &n))
                return 2;
            o->fault_qpu = (int)n;
            i++;
        } else if (!strcmp(a, "--hex-dir")) {
            if (!val)
                return usage_error("--hex-dir needs a directory", NULL);
            o->hex_dir = val;
            i++;
        } else {
            return usage_error("unknown argument", a);
        }
    }
    if (o->two_d && !o->log2n_set)
        o->log2n = 9;
    return 0;
}

/* hello_fft.c's input for job j: zero except re[f] = re[N - f] = 0.5, f = (j + 1) & (N/2 - 1). */
static void tone_input(float *z, int log2n, int job)
{
    size_t n = (size_t)1 << log2n, f = (size_t)(job + 1) & (n / 2 - 1);
    memset(z, 0, 2 * n * sizeof *z);
    z[2 * f] += 0.5f;
    z[2 * ((n - f) & (n - 1))] += 0.5f;
}

static void print_cost(const struct gpufft_cost *c)
{
    printf("simulated cost:\n  bundles issued per QPU:");
    for (unsigned q = 0; q < c->nqpus; q++)
        printf(" %" PRIu64, c->issued[q]);
    printf("\n  stalled rounds per QPU:");
    for (unsigned q = 0; q < c->nqpus; q++)
        printf(" %" PRIu64, c->stalls[q]);
    double cycles = (double)c->rounds * CLOCKS_PER_BUNDLE;
    printf("\n  total %" PRIu64 " bundles; %" PRIu64 " rounds of the QPU loop (the busiest QPU's issued + stalled "
           "bundles)\n",
           c->total, c->rounds);
    printf("  estimated %.0f cycles = rounds x %d clocks per bundle (a QPU issues one bundle every 4 clocks; the QPUs "
           "run in parallel; TMU, VPM and DMA latencies are not modelled, so this is a lower bound): %.3f ms at %.0f "
           "MHz\n",
           cycles, CLOCKS_PER_BUNDLE, cycles / (V3D_MHZ * 1e3), V3D_MHZ);
    if (c->warnings)
        printf("  PERIPHERAL WARNINGS on %u QPUs, first: %s\n", c->warnings, c->warning);
    printf("simulator speed: %.2f M bundles/s (%.3f s of CPU time; %.3f s wall)\n",
           c->seconds > 0 ? (double)c->total / c->seconds / 1e6 : 0.0, c->seconds, c->wall);
}

/* Diagnoses job 0 (after a wrong result, or on request). */
static void diagnose(struct gpufft *f, const struct opts *o)
{
    char err[GPUFFT_ERRLEN];
    printf("diagnosis (instrumented re-run):\n");
    if (gpufft_diagnose(f, o->seed, stdout, o->trace ? stdout : NULL, err) < 0)
        printf("  diagnosis failed: %s\n", err);
}

static int run_1d(const struct opts *o, const struct gpufft_code *code)
{
    char err[GPUFFT_ERRLEN];
    size_t n = (size_t)1 << o->log2n;
    struct gpufft_mem mm;
    struct gpufft f;
    uint64_t bytes = gpufft_prepare_bytes(o->log2n, o->batch, code);
    if (bytes == 0 || bytes > (1u << 30)) {
        fprintf(stderr, "tessera: error: gpu-fft: batch of %d x 2^%d points does not fit in 1 GiB\n", o->batch,
                o->log2n);
        return 1;
    }
    if (gpufft_mem_init(&mm, bytes, err) || gpufft_prepare(&f, &mm, code, o->log2n, o->inverse, o->batch, err)) {
        fprintf(stderr, "tessera: error: gpu-fft: %s\n", err);
        gpufft_mem_fini(&mm);
        return 1;
    }
    int radix[4], np = gpufft_radices(o->log2n, radix);
    printf("gpu-fft: %s transform of 2^%d = %zu points, batch %d: %s on %d QPUs, %d passes (radix",
           o->inverse ? "inverse" : "forward", o->log2n, n, o->batch, code->name, GPUFFT_QPUS, np);
    for (int p = 0; p < np; p++)
        printf(" %d", radix[p]);
    printf("), result %s\n", f.out == f.in ? "in place" : "out of place");
    float *keep = malloc(2 * n * sizeof *keep);
    double *want = malloc(2 * n * sizeof *want);
    if (!keep || !want) {
        free(keep);
        free(want);
        gpufft_mem_fini(&mm);
        fprintf(stderr, "tessera: error: gpu-fft: out of memory\n");
        return 1;
    }
    for (int j = 0; j < o->batch; j++) {
        if (o->tone)
            tone_input(gpufft_in(&f, j), o->log2n, j);
        else
            gpufft_random(gpufft_in(&f, j), n, o->seed + (uint64_t)j);
    }
    if (o->fault_qpu >= 0) {
        float *tw = (float *)(void *)(mm.mem + f.tw_at);
        tw[2 * 16 * (f.shape.shared + o->fault_qpu * f.shape.unique) + 2 * 3] += 0.25f;
        printf("fault injected: entry 3 of QPU %d's unique twiddles += 0.25\n", o->fault_qpu);
    }
    if (o->tone)
        printf("input: hello_fft.c's, job j: re[f] = re[N-f] = 0.5 with f = (j+1) & (N/2-1)\n");
    else
        printf("input: random complex, re and im uniform in [-1, 1), seed %" PRIu64 " (+ job)\n", o->seed);
    struct gpufft_run_opts ro = {.trace = o->trace && !o->diagnose ? stdout : NULL, .max_rounds = o->max_rounds,
                                  .dma_latency = (unsigned)o->dma_latency,
                                  .sim_flags = o->rules ? TSR_SIM_F_RULES : 0u};
    struct gpufft_cost cost = {0};
    int rc = gpufft_execute(&f, &ro, &cost, err), cut = rc == GPUFFT_CUT;
    if (rc) {
        printf("FAILED: %s\n", err);
    } else {
        struct gpufft_err e = {0};
        for (int j = 0; j < o->batch; j++) {
            if (o->tone)
                tone_input(keep, o->log2n, j);
            else
                gpufft_random(keep, n, o->seed + (uint64_t)j);
            if (gpufft_reference(keep, want, o->log2n, o->inverse)) {
                fprintf(stderr, "tessera: error: gpu-fft: FFTW could not plan 2^%d points\n", o->log2n);
                rc = 1;
                break;
            }
            gpufft_err_accumulate(&e, gpufft_out(&f, j), want, n);
        }
        double ppm = gpufft_err_value(&e) * 1e6, pub = gpufft_published_ppm(o->log2n);
        printf("relative rms error against FFTW (double): %.3f ppm  [hello_fft.c's rel_rms_err: sqrt(sum |out - ref|^2 "
               "/ sum |ref|^2) over all points and jobs]\n",
               ppm);
        printf("GPU_FFT's published figure (gpu_fft.txt): %.2f ppm; limit 2x = %.2f ppm: %s\n", pub, 2 * pub,
               ppm <= 2 * pub ? "ok" : "TOO LARGE");
        if (!rc && !(ppm <= 2 * pub))
            rc = 1;
    }
    print_cost(&cost);
    if (cost.warnings)
        rc = 1; /* behaviour the sources call unreliable or undefined: not a trustworthy result */
    if (rc || o->diagnose)
        diagnose(&f, o);
    free(keep);
    free(want);
    gpufft_mem_fini(&mm);
    return cut ? 3 : rc ? 1 : 0;
}

/* hello_fft_2d.c: an N x N array (N = 2^log2n), FFT of every row, transpose, FFT of every row;
 * the result is the 2-D transform, transposed. */
static int run_2d(const struct opts *o, const struct gpufft_code *code, const struct gpufft_code *trans)
{
    char err[GPUFFT_ERRLEN];
    int n = 1 << o->log2n;
    struct gpufft_mem mm;
    struct gpufft f1, f2;
    struct gpufft_trans t;
    uint64_t bytes = 2 * gpufft_prepare_bytes(o->log2n, n, code) + gpufft_trans_bytes();
    if (bytes > (1u << 30)) {
        fprintf(stderr, "tessera: error: gpu-fft: a 2^%d x 2^%d array does not fit in 1 GiB\n", o->log2n, o->log2n);
        return 1;
    }
    if (gpufft_mem_init(&mm, bytes, err) || gpufft_prepare(&f1, &mm, code, o->log2n, o->inverse, n, err) ||
        gpufft_prepare(&f2, &mm, code, o->log2n, o->inverse, n, err) ||
        gpufft_trans_prepare(&t, &mm, trans, &f1, &f2, err)) {
        fprintf(stderr, "tessera: error: gpu-fft: %s\n", err);
        gpufft_mem_fini(&mm);
        return 1;
    }
    printf("gpu-fft --2d: %s 2-D transform of %d x %d points: %s over %d rows, %s, %s again\n",
           o->inverse ? "inverse" : "forward", n, n, code->name, n, trans->name, code->name);
    size_t nn = (size_t)n * (size_t)n;
    fftw_complex *a = fftw_malloc(sizeof *a * nn), *b = fftw_malloc(sizeof *b * nn);
    int rc = !a || !b;
    if (rc)
        fprintf(stderr, "tessera: error: gpu-fft: out of memory\n");
    for (int y = 0; !rc && y < n; y++) {
        gpufft_random(gpufft_in(&f1, y), (size_t)n, o->seed + (uint64_t)y);
        for (int x = 0; x < n; x++) {
            a[(size_t)y * n + x][0] = gpufft_in(&f1, y)[2 * x];
            a[(size_t)y * n + x][1] = gpufft_in(&f1, y)[2 * x + 1];
        }
    }
    struct gpufft_run_opts ro = {.trace = o->trace ? stdout : NULL, .max_rounds = o->max_rounds,
                                  .dma_latency = (unsigned)o->dma_latency,
                                  .sim_flags = o->rules ? TSR_SIM_F_RULES : 0u};
    struct gpufft_cost c1 = {0}, ct = {0}, c2 = {0};
    int st = 0;
    if (!rc && ((st = gpufft_execute(&f1, &ro, &c1, err)) || (st = gpufft_trans_execute(&t, &ro, &ct, err)))) {
        printf("FAILED: %s\n", err);
        rc = 1;
    }
    long bad = 0;
    for (int y = 0; !rc && y < n; y++) /* the transpose is a copy: bit-exact */
        for (int x = 0; x < n; x++)
            bad += memcmp(gpufft_in(&f2, x) + 2 * y, gpufft_out(&f1, y) + 2 * x, 8) != 0;
    if (!rc)
        printf("transpose: %ld of %zu elements differ from the 1st pass output transposed: %s\n", bad, nn,
               bad ? "WRONG" : "ok");
    rc |= bad != 0;
    if (!rc && o->diagnose) {
        printf("diagnosis of the transpose:\n");
        if (gpufft_trans_audit(&t, stdout, o->trace ? stdout : NULL, err) < 0)
            printf("  audit failed: %s\n", err);
    }
    if (!rc && (st = gpufft_execute(&f2, &ro, &c2, err))) {
        printf("FAILED: %s\n", err);
        rc = 1;
    }
    if (!rc) {
        fftw_plan p = fftw_plan_dft_2d(n, n, a, b, o->inverse ? FFTW_BACKWARD : FFTW_FORWARD, FFTW_ESTIMATE);
        fftw_execute(p);
        fftw_destroy_plan(p);
        double num = 0, den = 0;
        for (int y = 0; y < n; y++) /* row y of the result is column y of the 2-D transform */
            for (int x = 0; x < n; x++)
                for (int k = 0; k < 2; k++) {
                    double w = b[(size_t)x * n + y][k], d = gpufft_out(&f2, y)[2 * x + k] - w;
                    num += d * d;
                    den += w * w;
                }
        double ppm = sqrt(num / den) * 1e6;
        /* an N x N transform does the butterflies of an N^2-point one: compare with that figure */
        int l2 = 2 * o->log2n < GPUFFT_MAX_LOG2N ? 2 * o->log2n : GPUFFT_MAX_LOG2N;
        double lim = 2 * gpufft_published_ppm(l2);
        printf("relative rms error against FFTW's 2-D transform: %.3f ppm (limit: twice the published figure for "
               "2^%d points, %.2f ppm)\n",
               ppm, l2, lim);
        rc = !(ppm <= lim) || c1.warnings || ct.warnings || c2.warnings;
    }
    printf("1st pass: ");
    print_cost(&c1);
    printf("transpose: ");
    print_cost(&ct);
    printf("2nd pass: ");
    print_cost(&c2);
    fftw_free(a);
    fftw_free(b);
    gpufft_mem_fini(&mm);
    return st == GPUFFT_CUT ? 3 : rc;
}

int cmd_gpufft(int argc, char **argv)
{
    struct opts o;
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc == 3 ? 0 : rc;
    char err[GPUFFT_ERRLEN];
    struct gpufft_code code, trans = {0};
    if (gpufft_code_load(&code, o.hex_dir, o.log2n, err) ||
        (o.two_d && gpufft_code_load(&trans, o.hex_dir, 0, err))) {
        fprintf(stderr, "tessera: error: gpu-fft: %s\n", err);
        gpufft_code_free(&code);
        return 1;
    }
    rc = o.two_d ? run_2d(&o, &code, &trans) : run_1d(&o, &code);
    gpufft_code_free(&code);
    gpufft_code_free(&trans);
    return rc;
}
