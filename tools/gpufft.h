/* GPU_FFT host harness: what the ARM side of GPU_FFT release 3.0 (Andrew Holme, BSD-3) does, done
 * against the simulated VideoCore IV of targets/qpu (qpu_periph.h, qpu_hooks.h), so the library's
 * own Broadcom-assembled shaders (../shared/corpus/qpu/gpu_fft_r3/hex/shader_*.hex) compute real
 * transforms in our simulator.
 *
 * Facts about the library come from its host sources in raspberrypi/userland,
 * host_applications/linux/apps/hello_pi/hello_fft/ (named below by file name only: gpu_fft.c,
 * gpu_fft_base.c, gpu_fft_twiddles.c, gpu_fft_shaders.c, gpu_fft_trans.c, gpu_fft.h, hello_fft.c,
 * hello_fft_2d.c; read through the search tool from copies of that directory, since the index holds
 * no copy under raspberrypi/userland itself: ED6E0F17/userland @ 2489c147 for gpu_fft.c, gpu_fft.h,
 * gpu_fft_base.c, gpu_fft_shaders.c, gpu_fft_trans.c; develone/userland for hello_fft_2d.c; the
 * release-3.0 gpu_fft_twiddles.c from the index's file id 178098074).  The code is ours; only facts
 * were taken.
 *
 * Memory: one `struct gpufft_mem` owns a qpu_machine with GPUFFT_QPUS QPUs and hands out 4 KiB
 * aligned blocks (gpu_fft_base.c allocates with mem_alloc(..., ARM_PAGE_SIZE, ...)).  A block at
 * physical offset P has the bus address GPUFFT_BUS_ALIAS | P: the "direct" (uncached) alias that
 * gpu_fft_base.c's BUS_TO_PHYS strips with & ~0xC0000000 (GPU_FFT_USE_VC4_L2_CACHE = 0); the simulated
 * bus clears bits 31:30 the same way (qpu_periph.h), so every address the shaders see is a genuine
 * bus address.  Data are `float re, im` pairs (gpu_fft.h struct GPU_FFT_COMPLEX), little-endian.
 *
 * Errors: functions return 0, or -1 with a one-line message in the `err` buffer they take
 * (GPUFFT_ERRLEN bytes); nothing aborts or exits. */
#ifndef TOOLS_GPUFFT_H
#define TOOLS_GPUFFT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "qpu_periph.h"

#define GPUFFT_QPUS 8                  /* gpu_fft.h GPU_FFT_QPUS: QPUs one transform batch runs on */
#define GPUFFT_MIN_LOG2N 8             /* gpu_fft_twiddles.c gpu_fft_twiddle_size: 8..22 */
#define GPUFFT_MAX_LOG2N 22
#define GPUFFT_BUS_ALIAS 0xC0000000u   /* gpu_fft_base.c BUS_TO_PHYS mask (see above) */
#define GPUFFT_PAGE 4096u              /* gpu_fft_base.c: ARM_PAGE_SIZE alignment of allocations */
#define GPUFFT_ERRLEN 512

/* Shape of the transform of 2^log2n points, from gpu_fft_twiddles.c (table `shaders[]`): the
 * number of passes (ping-pong buffer swaps), the shared twiddle blocks (read by every QPU) and the
 * unique blocks per QPU, a block being 16 complex floats.  Returns 0, -1 for log2n outside 8..22. */
struct gpufft_shape {
    int log2n, passes, shared, unique;
};
int gpufft_shape(int log2n, struct gpufft_shape *s);

/* Writes the twiddle table of gpu_fft_twiddle_data(log2n, direction): (shared + GPUFFT_QPUS *
 * unique) * 16 complex = 2 floats each, at `out`.  inverse 0 = GPU_FFT_FWD (angles scaled by -2*pi),
 * 1 = GPU_FFT_REV (+2*pi).  log2n must be valid (gpufft_shape). */
void gpufft_twiddles(int log2n, int inverse, float *out);

/* The simulated machine and a bump allocator over its memory. */
struct gpufft_mem {
    struct qpu_machine *m;
    uint8_t *mem;   /* qpu_machine_mem(m) */
    uint32_t size;  /* bytes */
    uint32_t used;  /* bytes handed out (a multiple of GPUFFT_PAGE) */
};
/* New machine of `bytes` (rounded up to GPUFFT_PAGE; at most 1 GiB) with GPUFFT_QPUS QPUs. */
int gpufft_mem_init(struct gpufft_mem *mm, uint64_t bytes, char *err);
void gpufft_mem_fini(struct gpufft_mem *mm);

/* A loaded shader: `nwords` 32-bit words, low word of each 64-bit instruction first. */
struct gpufft_code {
    uint32_t *w;
    size_t nwords;
    const char **comment; /* per instruction: the source line from the hex file's comment, or NULL */
    char *name;           /* e.g. "shader_4k" */
    void *priv;
};
/* Directory of the GPU_FFT hex programs: $TESSERA_SHARED/corpus/qpu/gpu_fft_r3/hex if set, else
 * ../shared/... relative to $TESSERA_ROOT (if set) or to the working directory. */
void gpufft_hex_dir(char *buf, size_t n);
/* Loads the shader for log2n (gpu_fft_shaders.c: shader_256 ... shader_4096k, indexed log2n-8), or
 * the transpose shader (gpu_fft_trans.c: shader_trans) for log2n == 0, from `dir` (NULL: see
 * gpufft_hex_dir). */
int gpufft_code_load(struct gpufft_code *c, const char *dir, int log2n, char *err);
void gpufft_code_free(struct gpufft_code *c);

/* One prepared batch, the counterpart of gpu_fft_prepare's `struct GPU_FFT` (gpu_fft.c): `jobs`
 * transforms of 2^log2n points.  Offsets are physical byte offsets into the machine memory; the
 * shaders see GPUFFT_BUS_ALIAS | offset. */
struct gpufft {
    struct gpufft_mem *mm;
    const struct gpufft_code *code;
    struct gpufft_shape shape;
    int inverse, jobs;
    uint32_t base;            /* the whole allocation */
    uint32_t in, out;         /* job 0's input and output buffers (out == in after an even pass count) */
    uint32_t step;            /* complex elements from one job's buffer to the next (GPU_FFT.step) */
    uint32_t data_bytes;      /* bytes per job buffer, guard included */
    uint32_t ping, pong;      /* the two ping-pong areas: jobs buffers each */
    uint32_t code_at, tw_at;  /* shader copy, twiddle table */
    uint32_t unif_at[GPUFFT_QPUS]; /* each QPU's uniform stream (bus address = alias | offset) */
    uint32_t msg_at;          /* the mailbox message: per QPU {uniforms, code} bus addresses */
    int x, y;                 /* for the transpose (gpu_fft.c): x = 2^log2n, y = jobs */
};
/* Bytes gpufft_prepare takes from the allocator (page-aligned), for sizing the machine. */
uint64_t gpufft_prepare_bytes(int log2n, int jobs, const struct gpufft_code *code);
/* Lays out buffers, shader copy, twiddles, uniforms and mailbox message in mm as gpu_fft_prepare
 * does (see gpufft.c for the layout and its sources).  `code` must stay loaded while f is used. */
int gpufft_prepare(struct gpufft *f, struct gpufft_mem *mm, const struct gpufft_code *code, int log2n,
                   int inverse, int jobs, char *err);
/* Host pointers to job j's input / output buffer (2^log2n complex = 2 floats each). */
float *gpufft_in(const struct gpufft *f, int job);
float *gpufft_out(const struct gpufft *f, int job);

/* The transpose of gpu_fft_trans.c: copies src's output (src->x by src->y complex, one row per
 * job) transposed into dst's input. */
struct gpufft_trans {
    struct gpufft_mem *mm;
    const struct gpufft_code *code;
    uint32_t base, code_at, unif_at, msg_at;
};
uint64_t gpufft_trans_bytes(void);
int gpufft_trans_prepare(struct gpufft_trans *t, struct gpufft_mem *mm, const struct gpufft_code *code,
                         const struct gpufft *src, const struct gpufft *dst, char *err);

/* What a run cost.  Time model: the round-robin loop issues at most one bundle per QPU per round;
 * a QPU that cannot issue (stalled on VPM/DMA/semaphore) uses its round too. */
struct gpufft_cost {
    unsigned nqpus;
    uint64_t issued[QPU_MAX_QPUS], stalls[QPU_MAX_QPUS];
    uint64_t total;     /* bundles issued by all QPUs */
    uint64_t rounds;    /* rounds of the loop = the busiest QPU's issued + stalled bundles */
    double seconds;     /* wall-clock time spent simulating */
};
/* Adds b to a (per-QPU counts, totals, rounds and seconds). */
void gpufft_cost_add(struct gpufft_cost *a, const struct gpufft_cost *b);

/* How to run. */
struct gpufft_run_opts {
    FILE *trace;         /* every issued bundle (qpu_run's trace), or NULL */
    uint64_t max_rounds; /* 0: unlimited */
};
/* Runs the batch on GPUFFT_QPUS QPUs (gpu_fft_execute -> gpu_fft_base_exec(..., GPU_FFT_QPUS)) with
 * qpu_run, then checks that every QPU ended, that the master raised exactly one host interrupt
 * (its last uniform is 1, the others' 0: gpu_fft.c "IRQ enable, master only") and that no
 * semaphore is left non-zero.  Returns 0, or -1 with the simulator's report (QPU, pc, bundle text
 * and source line, message) in err. */
int gpufft_execute(struct gpufft *f, const struct gpufft_run_opts *o, struct gpufft_cost *cost, char *err);
/* Runs the transpose on one QPU (gpu_fft_trans_execute -> gpu_fft_base_exec(..., 1)). */
int gpufft_trans_execute(struct gpufft_trans *t, const struct gpufft_run_opts *o, struct gpufft_cost *cost,
                         char *err);

/* ---- reference and error ------------------------------------------------------------------- */

/* Fills n complex values (2n floats) with uniform random numbers in [-1, 1), deterministic in seed. */
void gpufft_random(float *z, size_t n, uint64_t seed);
/* The double-precision reference: FFTW's unnormalised transform of n = 2^log2n points with the
 * library's sign convention (gpu_fft_twiddle_data: forward exp(-2 pi i nk/N), inverse +).  Returns
 * 0 or -1 (FFTW could not plan). */
int gpufft_reference(const float *in, double *out, int log2n, int inverse);
/* Relative rms error as hello_fft.c prints it (rel_rms_err = sqrt(tsq[1]/tsq[0])): the sum over
 * every point of |got - want|^2 divided by the sum of |want|^2, square-rooted.  Sums are
 * accumulated by the caller over a batch with gpufft_err_accumulate, then gpufft_err_value. */
struct gpufft_err {
    double num, den;
};
void gpufft_err_accumulate(struct gpufft_err *e, const float *got, const double *want, size_t n);
double gpufft_err_value(const struct gpufft_err *e);

/* The rms error GPU_FFT's README (gpu_fft.txt, "Accuracy") publishes for log2n, in ppm. */
double gpufft_published_ppm(int log2n);

/* ---- diagnosis ---------------------------------------------------------------------------- */

/* Re-runs job 0 of f (whose input must be loaded again by the caller) on an instrumented copy of
 * the run loop that records every VPM write and every VDW DMA (who, where, which bundle), takes a
 * copy of each pass's output buffer when the master moves on to the next, and compares each pass
 * with the partial transforms the harness expects after it (a decimation-in-time FFT with the
 * shader's radices: gpufft.c "Pass model").  Writes a report to out: for every pass, whether its
 * output holds exactly the expected values, and for the first pass that does not, the first wrong
 * element with the VDW (QPU, bundle) that stored it and the VPM write (QPU, bundle) that produced
 * it.  Returns the 1-based number of the first divergent pass, 0 when every pass matched, -1 on
 * error (message in err). */
int gpufft_diagnose(struct gpufft *f, const float *input, FILE *out, char *err);

#endif
