/* GPU_FFT release 3.0 (Andrew Holme, BSD-3; ../shared/corpus/qpu/gpu_fft_r3) runs in the simulator:
 * the library's own Broadcom-assembled shaders, on 8 simulated QPUs, launched by our host harness
 * (tools/gpufft.h), must compute correct transforms with no simulator report (hazard, error,
 * deadlock, peripheral warning), raise the master's host interrupt and leave no semaphore set.
 *   - forward and inverse, log2 N = 8..14, random complex input: relative rms error against FFTW
 *     (double) within twice the figure GPU_FFT publishes (gpu_fft.txt "Accuracy");
 *   - hello_fft.c's own input (a cosine): the published figure itself, to its two significant
 *     digits - the simulator's float arithmetic rounds as the hardware that produced those figures;
 *   - a batch of several jobs in one launch (the shaders' job loop);
 *   - hello_fft_2d.c's 2-D transform: 512 rows of 512 points, shader_trans (bit-exact copy, and no
 *     rule of the audit broken), 512 rows again;
 *   - with a VPM DMA latency of 40 instructions the results are bit-identical;
 *   - the diagnosis: passes check against the harness's pass model, a fault injected into one
 *     QPU's twiddles is named by pass and QPU, a simulator report by QPU, bundle and pass, and the
 *     rule audit finds each of its rules broken in a tiny sequence.
 * Sizes 15..22 are in bench/bench_gpufft.c.  The corpus is read from $TESSERA_SHARED/corpus, else
 * ../shared/corpus from the repository root (where `ninja test` runs). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3.h>

/* The harness (tools/gpufft.c) comes from libtools.a. */
#include "gpufft.h"
#include "qpu.h"

static void put32(struct gpufft_mem *mm, uint32_t at, uint32_t v)
{
    memcpy(mm->mem + at, &v, 4);
}

/* One batch of `jobs` random transforms (job j from seed + j); returns the error in ppm. */
static double run_batch(int log2n, int inverse, int jobs, int tone, struct gpufft_cost *cost)
{
    char err[GPUFFT_ERRLEN];
    struct gpufft_code code;
    struct gpufft_mem mm;
    struct gpufft f;
    size_t n = (size_t)1 << log2n;
    cr_assert_eq(gpufft_code_load(&code, NULL, log2n, err), 0, "%s", err);
    cr_assert_eq(gpufft_mem_init(&mm, gpufft_prepare_bytes(log2n, jobs, &code), err), 0, "%s", err);
    cr_assert_eq(gpufft_prepare(&f, &mm, &code, log2n, inverse, jobs, err), 0, "%s", err);
    double *want = malloc(2 * n * sizeof *want);
    cr_assert(want);
    for (int j = 0; j < jobs; j++) {
        if (tone) { /* hello_fft.c: re[f] = re[N - f] = 0.5, f = (j + 1) & (N/2 - 1) */
            size_t fr = (size_t)(j + 1) & (n / 2 - 1);
            memset(gpufft_in(&f, j), 0, 2 * n * sizeof(float));
            gpufft_in(&f, j)[2 * fr] += 0.5f;
            gpufft_in(&f, j)[2 * ((n - fr) & (n - 1))] += 0.5f;
        } else {
            gpufft_random(gpufft_in(&f, j), n, 100 + (uint64_t)j);
        }
    }
    /* the inputs are overwritten by the ping-pong passes: keep copies for the reference */
    float *keep = malloc(2 * n * sizeof *keep * (size_t)jobs);
    cr_assert(keep);
    for (int j = 0; j < jobs; j++)
        memcpy(keep + 2 * n * (size_t)j, gpufft_in(&f, j), 2 * n * sizeof *keep);
    int rc = gpufft_execute(&f, NULL, cost, err);
    cr_assert_eq(rc, 0, "2^%d %s: %s", log2n, inverse ? "inverse" : "forward", err);
    cr_assert_eq(cost->warnings, 0, "2^%d: peripheral warning: %s", log2n, cost->warning);
    struct gpufft_err e = {0};
    for (int j = 0; j < jobs; j++) {
        cr_assert_eq(gpufft_reference(keep + 2 * n * (size_t)j, want, log2n, inverse), 0);
        struct gpufft_err ej = {0};
        gpufft_err_accumulate(&ej, gpufft_out(&f, j), want, n);
        cr_expect_lt(gpufft_err_value(&ej) * 1e6, 2 * gpufft_published_ppm(log2n), "2^%d job %d of %d: %.3f ppm",
                     log2n, j, jobs, gpufft_err_value(&ej) * 1e6);
        gpufft_err_accumulate(&e, gpufft_out(&f, j), want, n);
    }
    free(want);
    free(keep);
    gpufft_mem_fini(&mm);
    gpufft_code_free(&code);
    return gpufft_err_value(&e) * 1e6;
}

static void accuracy(int log2n, int inverse)
{
    struct gpufft_cost cost = {0};
    double ppm = run_batch(log2n, inverse, 1, 0, &cost), pub = gpufft_published_ppm(log2n);
    printf("gpufft 2^%-2d %-7s random input: %.3f ppm (published %.2f, limit %.2f), %llu bundles, %llu rounds\n",
           log2n, inverse ? "inverse" : "forward", ppm, pub, 2 * pub, (unsigned long long)cost.total,
           (unsigned long long)cost.rounds);
    cr_assert_leq(ppm, 2 * pub, "2^%d %s: %.3f ppm, more than twice the published %.2f ppm", log2n,
                  inverse ? "inverse" : "forward", ppm, pub);
    cr_assert_gt(ppm, 0.05, "2^%d: %.3f ppm is implausibly exact for single precision", log2n, ppm);
}

#define ACCURACY(n)                                                                                                \
    Test(gpufft, forward_##n) { accuracy(n, 0); }                                                                  \
    Test(gpufft, inverse_##n) { accuracy(n, 1); }
ACCURACY(8)
ACCURACY(9)
ACCURACY(10)
ACCURACY(11)
ACCURACY(12)
ACCURACY(13)
ACCURACY(14)

/* hello_fft.c's input reproduces gpu_fft.txt's table (0.33 ppm at 8 ... 0.92 at 14), which the
 * library's author measured on hardware with that input and that error formula. */
Test(gpufft, published_figures_with_hello_fft_input)
{
    for (int log2n = 8; log2n <= 14; log2n++) {
        struct gpufft_cost cost = {0};
        double ppm = run_batch(log2n, 1, 1, 1, &cost), pub = gpufft_published_ppm(log2n);
        printf("gpufft 2^%-2d hello_fft input (GPU_FFT_REV): %.3f ppm, published %.2f\n", log2n, ppm, pub);
        cr_expect_leq(fabs(ppm - pub), 0.0051, "2^%d: %.3f ppm does not round to the published %.2f ppm", log2n, ppm,
                      pub);
    }
}

/* Several jobs in one launch: the uniform list (ping, pong) per job, GPU_FFT.step apart. */
Test(gpufft, batch)
{
    struct gpufft_cost c1 = {0}, c3 = {0};
    run_batch(10, 0, 1, 0, &c1);
    double ppm = run_batch(10, 0, 3, 0, &c3);
    cr_assert_leq(ppm, 2 * gpufft_published_ppm(10));
    cr_assert_gt(c3.total, 2 * c1.total, "3 jobs cost %llu bundles, 1 job %llu", (unsigned long long)c3.total,
                 (unsigned long long)c1.total);
    /* an odd pass count (2^12: 3 passes) leaves the results out of place */
    ppm = run_batch(12, 1, 2, 0, &c3);
    cr_assert_leq(ppm, 2 * gpufft_published_ppm(12));
}

/* hello_fft_2d.c: 512 x 512, GPU_FFT_REV, FFT of the rows, transpose, FFT of the rows. */
Test(gpufft, transpose_2d, .timeout = 300)
{
    enum { LOG2N = 9, N = 1 << LOG2N };
    char err[GPUFFT_ERRLEN];
    struct gpufft_code code, trans;
    struct gpufft_mem mm;
    struct gpufft f1, f2;
    struct gpufft_trans t;
    cr_assert_eq(gpufft_code_load(&code, NULL, LOG2N, err), 0, "%s", err);
    cr_assert_eq(gpufft_code_load(&trans, NULL, 0, err), 0, "%s", err);
    cr_assert_eq(gpufft_mem_init(&mm, 2 * gpufft_prepare_bytes(LOG2N, N, &code) + gpufft_trans_bytes(), err), 0, "%s",
                 err);
    cr_assert_eq(gpufft_prepare(&f1, &mm, &code, LOG2N, 1, N, err), 0, "%s", err);
    cr_assert_eq(gpufft_prepare(&f2, &mm, &code, LOG2N, 1, N, err), 0, "%s", err);
    cr_assert_eq(gpufft_trans_prepare(&t, &mm, &trans, &f1, &f2, err), 0, "%s", err);
    fftw_complex *a = fftw_malloc(sizeof *a * N * N), *b = fftw_malloc(sizeof *b * N * N);
    cr_assert(a && b);
    for (int y = 0; y < N; y++) {
        gpufft_random(gpufft_in(&f1, y), N, 7000 + (uint64_t)y);
        for (int x = 0; x < N; x++) {
            a[y * N + x][0] = gpufft_in(&f1, y)[2 * x];
            a[y * N + x][1] = gpufft_in(&f1, y)[2 * x + 1];
        }
    }
    struct gpufft_cost c1 = {0}, ct = {0}, c2 = {0};
    cr_assert_eq(gpufft_execute(&f1, NULL, &c1, err), 0, "1st pass: %s", err);
    cr_assert_eq(gpufft_trans_execute(&t, NULL, &ct, err), 0, "transpose: %s", err);
    cr_assert_eq(c1.warnings + ct.warnings, 0, "peripheral warning: %s%s", c1.warning, ct.warning);
    long bad = 0;
    for (int y = 0; y < N; y++) /* a copy: bit-exact */
        for (int x = 0; x < N; x++)
            bad += memcmp(gpufft_in(&f2, x) + 2 * y, gpufft_out(&f1, y) + 2 * x, 8) != 0;
    cr_assert_eq(bad, 0, "%ld of %d elements not transposed", bad, N * N);
    static char rep[4096];
    FILE *o = fmemopen(rep, sizeof rep, "w");
    cr_assert(o);
    int rc = gpufft_trans_audit(&t, o, NULL, err); /* runs it again: the same copy */
    fclose(o);
    cr_assert_eq(rc, 0, "transpose audit: %s\n%s", err, rep);
    cr_assert_eq(gpufft_execute(&f2, NULL, &c2, err), 0, "2nd pass: %s", err);
    cr_assert_eq(c2.warnings, 0, "peripheral warning: %s", c2.warning);
    fftw_plan p = fftw_plan_dft_2d(N, N, a, b, FFTW_BACKWARD, FFTW_ESTIMATE);
    fftw_execute(p);
    fftw_destroy_plan(p);
    double num = 0, den = 0;
    for (int y = 0; y < N; y++) /* row y of the result is column y of the 2-D transform */
        for (int x = 0; x < N; x++)
            for (int k = 0; k < 2; k++) {
                double w = b[x * N + y][k], d = gpufft_out(&f2, y)[2 * x + k] - w;
                num += d * d;
                den += w * w;
            }
    double ppm = sqrt(num / den) * 1e6;
    printf("gpufft 2-D 512 x 512 (hello_fft_2d): %.3f ppm; %llu + %llu + %llu bundles\n", ppm,
           (unsigned long long)c1.total, (unsigned long long)ct.total, (unsigned long long)c2.total);
    /* a 512 x 512 transform does the butterflies of a 2^18-point one: twice that published figure */
    cr_assert_leq(ppm, 2 * gpufft_published_ppm(2 * LOG2N), "2-D: %.3f ppm", ppm);
    fftw_free(a);
    fftw_free(b);
    gpufft_mem_fini(&mm);
    gpufft_code_free(&code);
    gpufft_code_free(&trans);
}

/* The diagnosis on a correct run: every pass of the 3-pass 2^12 shader holds the values the pass
 * model expects.  With a fault: the unique twiddles of QPU 5 (used only in the last pass, by QPU 5:
 * gpu_fft.c's uniform tw_unique) or the shared base twiddles (every codelet of pass 1). */
static int diagnose(int log2n, int fault, char *report, size_t len)
{
    char err[GPUFFT_ERRLEN];
    struct gpufft_code code;
    struct gpufft_mem mm;
    struct gpufft f;
    cr_assert_eq(gpufft_code_load(&code, NULL, log2n, err), 0, "%s", err);
    cr_assert_eq(gpufft_mem_init(&mm, gpufft_prepare_bytes(log2n, 1, &code), err), 0, "%s", err);
    cr_assert_eq(gpufft_prepare(&f, &mm, &code, log2n, 0, 1, err), 0, "%s", err);
    float *tw = (float *)(void *)(mm.mem + f.tw_at);
    if (fault == 1) /* QPU 5's unique block: entry 3 */
        tw[2 * 16 * (f.shape.shared + 5 * f.shape.unique) + 2 * 3] += 0.25f;
    else if (fault == 2) /* shared base table, entry 9 */
        tw[2 * 9 + 1] = -tw[2 * 9 + 1];
    FILE *o = fmemopen(report, len, "w");
    cr_assert(o);
    int rc = gpufft_diagnose(&f, 5, o, NULL, err);
    fclose(o);
    cr_assert_geq(rc, 0, "%s", err);
    gpufft_mem_fini(&mm);
    gpufft_code_free(&code);
    return rc;
}

Test(gpufft, diagnosis)
{
    static char rep[16384];
    int rc = diagnose(12, 0, rep, sizeof rep);
    cr_assert_eq(rc, 0, "correct run reported pass %d:\n%s", rc, rep);
    cr_assert(strstr(rep, "pass 3 (radix 16") && strstr(rep, "every pass matched"), "%s", rep);

    rc = diagnose(8, 1, rep, sizeof rep);
    cr_assert_eq(rc, 2, "fault in QPU 5's unique twiddles: pass %d reported:\n%s", rc, rep);
    cr_assert(strstr(rep, "pass 1 (radix 16, pong buffer): ok"), "%s", rep);
    const char *by = strstr(rep, "produced them: qpu5: ");
    cr_assert(by, "not attributed to qpu5:\n%s", rep);
    by += strlen("produced them: qpu5: ");
    by += strspn(by, "0123456789");
    cr_assert_eq(*by, '\n', "not attributed to qpu5 alone:\n%s", rep);
    cr_assert(strstr(rep, "produced (VPM write) by qpu5"), "%s", rep);
    cr_assert(strstr(rep, "stored (VDW, pass 2) by qpu0"), "%s", rep);

    rc = diagnose(12, 2, rep, sizeof rep);
    cr_assert_eq(rc, 1, "fault in the shared base twiddles: pass %d reported:\n%s", rc, rep);
}

Test(gpufft, twiddle_table_shape)
{
    /* gpu_fft_twiddles.c: shared + 8 unique blocks of 16 complex; entry 0 of a base table is 1 */
    for (int log2n = GPUFFT_MIN_LOG2N; log2n <= GPUFFT_MAX_LOG2N; log2n++) {
        struct gpufft_shape s;
        int radix[4], prod = 1;
        cr_assert_eq(gpufft_shape(log2n, &s), 0);
        int np = gpufft_radices(log2n, radix);
        cr_assert_eq(np, s.passes);
        for (int p = 0; p < np; p++)
            prod *= radix[p];
        cr_assert_eq(prod, 1 << log2n, "2^%d: radices multiply to %d", log2n, prod);
        size_t nf = 2 * 16 * (size_t)(s.shared + GPUFFT_QPUS * s.unique);
        float *tw = malloc((nf + 8) * sizeof *tw);
        cr_assert(tw);
        for (size_t i = 0; i < nf + 8; i++)
            tw[i] = 12345.0f; /* guard */
        gpufft_twiddles(log2n, 0, tw);
        for (size_t i = nf; i < nf + 8; i++)
            cr_assert_eq(tw[i], 12345.0f, "2^%d: twiddle table overruns its %zu floats", log2n, nf);
        cr_assert_eq(tw[0], 1.0f);
        cr_assert_eq(tw[1], 0.0f);
        free(tw);
    }
    cr_assert_neq(gpufft_shape(7, &(struct gpufft_shape){0}), 0);
    cr_assert_neq(gpufft_shape(23, &(struct gpufft_shape){0}), 0);
}

/* With the VPM DMA taking time (vw_wait / vr_wait stall for 40 instructions; qpu_periph.h
 * qpu_machine_set_dma_latency) the shaders' waits keep every result bit-identical. */
Test(gpufft, dma_latency)
{
    for (int log2n = 9; log2n <= 12; log2n += 3) {
        char err[GPUFFT_ERRLEN];
        struct gpufft_code code;
        struct gpufft_mem mm;
        struct gpufft f;
        size_t n = (size_t)1 << log2n;
        cr_assert_eq(gpufft_code_load(&code, NULL, log2n, err), 0, "%s", err);
        cr_assert_eq(gpufft_mem_init(&mm, gpufft_prepare_bytes(log2n, 1, &code), err), 0, "%s", err);
        cr_assert_eq(gpufft_prepare(&f, &mm, &code, log2n, 0, 1, err), 0, "%s", err);
        float *ref = malloc(2 * n * sizeof *ref);
        cr_assert(ref);
        struct gpufft_cost c0 = {0}, c1 = {0};
        struct gpufft_run_opts slow = {.dma_latency = 40};
        gpufft_random(gpufft_in(&f, 0), n, 77);
        cr_assert_eq(gpufft_execute(&f, NULL, &c0, err), 0, "%s", err);
        memcpy(ref, gpufft_out(&f, 0), 2 * n * sizeof *ref);
        gpufft_random(gpufft_in(&f, 0), n, 77);
        cr_assert_eq(gpufft_execute(&f, &slow, &c1, err), 0, "2^%d with DMA latency 40: %s", log2n, err);
        cr_assert_eq(memcmp(ref, gpufft_out(&f, 0), 2 * n * sizeof *ref), 0, "2^%d: DMA latency changed the result",
                     log2n);
        cr_assert_gt(c1.rounds, c0.rounds);
        printf("gpufft 2^%d DMA latency 0 / 40: %llu / %llu rounds, %llu / %llu stalled rounds on qpu0\n", log2n,
               (unsigned long long)c0.rounds, (unsigned long long)c1.rounds, (unsigned long long)c0.stalls[0],
               (unsigned long long)c1.stalls[0]);
        free(ref);
        gpufft_mem_fini(&mm);
        gpufft_code_free(&code);
    }
}

/* A simulator report names the QPU and the bundle (disassembly and source line), and the diagnosis
 * the pass: here QPU 0's (the master's) output pointer lies outside memory, so its first VDW fails. */
Test(gpufft, report_names_qpu_bundle_and_pass)
{
    char err[GPUFFT_ERRLEN];
    static char rep[8192];
    struct gpufft_code code;
    struct gpufft_mem mm;
    struct gpufft f;
    cr_assert_eq(gpufft_code_load(&code, NULL, 8, err), 0, "%s", err);
    cr_assert_eq(gpufft_mem_init(&mm, gpufft_prepare_bytes(8, 1, &code), err), 0, "%s", err);
    cr_assert_eq(gpufft_prepare(&f, &mm, &code, 8, 0, 1, err), 0, "%s", err);
    put32(&mm, f.unif_at[0] + 16, GPUFFT_BUS_ALIAS | (mm.size + 0x10000)); /* job 0's pong, QPU 0's stream */
    gpufft_random(gpufft_in(&f, 0), 256, 1);
    struct gpufft_cost c = {0};
    cr_assert_neq(gpufft_execute(&f, NULL, &c, err), 0);
    cr_assert(strstr(err, "on qpu0 at bundle shader_256 0x") && strstr(err, "vw_addr") && strstr(err, "VDW"), "%s",
              err);
    FILE *o = fmemopen(rep, sizeof rep, "w");
    cr_assert(o);
    int rc = gpufft_diagnose(&f, 1, o, NULL, err);
    fclose(o);
    cr_assert_eq(rc, 1, "diagnosis returned %d:\n%s", rc, rep);
    cr_assert(strstr(rep, "error on qpu0") && strstr(rep, "failure is in pass 1"), "%s", rep);
    gpufft_mem_fini(&mm);
    gpufft_code_free(&code);
}

/* The rule audit of the diagnosis finds each rule broken in a tiny sequence (the last bundle
 * breaks it) and passes the same sequence spaced out as the rule asks. */
static unsigned audit_seq(const char *const *text, int n)
{
    struct gpufft_audit a = {0};
    unsigned hit = 0;
    for (int i = 0; i < n; i++) {
        uint32_t w[2];
        char msg[256];
        cr_assert_eq(qpu_assemble_one(text[i], strlen(text[i]), 8u * (unsigned)i, w, msg, sizeof msg), 0, "%s: %s",
                     text[i], msg);
        hit = gpufft_audit_bundle(&a, (uint64_t)w[0] | (uint64_t)w[1] << 32);
    }
    return hit;
}

Test(gpufft, rule_audit)
{
    static const struct {
        int rule;
        const char *bad[4], *good[4];
    } cases[] = {
        {GPUFFT_AUDIT_ROTATE, {"mov r0, 1", "nop; mov r2, r0 << 1"}, {"mov r0, 1", "nop", "nop; mov r2, r0 << 1"}},
        {GPUFFT_AUDIT_VPM, {"nop", "mov vw_setup, ra1; mov vr_setup, ra1"}, {"mov vw_setup, ra1", "mov vr_setup, ra1"}},
        {GPUFFT_AUDIT_UNIF, {"mov unif_addr, r0", "nop", "mov r1, unif"}, {"mov unif_addr, r0", "nop", "nop", "mov r1, unif"}},
        {GPUFFT_AUDIT_BRANCH, {"brr -, 0x40", "nop", "brr -, 0x40"}, {"brr -, 0x40", "nop", "nop", "brr -, 0x40"}},
        {GPUFFT_AUDIT_NOSWAP, {"mov tmu_noswap, r0", "nop", "mov t0s, r1"}, {"mov tmu_noswap, r0", "nop", "nop", "mov t0s, r1"}},
        {GPUFFT_AUDIT_THREND, {"nop; nop; thrend", "nop", "mov r1, unif"}, {"nop; nop; thrend", "nop", "nop", "mov r1, unif"}},
        {GPUFFT_AUDIT_SFU, {"mov recip, r0", "nop; nop; ldtmu0"}, {"mov recip, r0", "nop", "nop", "nop; nop; ldtmu0"}},
        {GPUFFT_AUDIT_ONE_UNIT, {"nop", "mov recip, r0; mov t0s, r1"}, {"mov recip, r0", "nop", "nop", "mov t0s, r1"}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int nb = 0, ng = 0;
        while (nb < 4 && cases[i].bad[nb])
            nb++;
        while (ng < 4 && cases[i].good[ng])
            ng++;
        unsigned bad = audit_seq(cases[i].bad, nb), good = audit_seq(cases[i].good, ng);
        cr_expect_eq(bad, 1u << cases[i].rule, "rule %d (%s): broken sequence gives mask 0x%x", cases[i].rule,
                     gpufft_audit_rule(cases[i].rule), bad);
        cr_expect_eq(good, 0u, "rule %d (%s): spaced sequence gives mask 0x%x", cases[i].rule,
                     gpufft_audit_rule(cases[i].rule), good);
    }
}
