/* GPU_FFT host harness: what the ARM side of GPU_FFT release 3.0 (Andrew Holme, BSD-3) does, done
 * against the simulated VideoCore IV of targets/qpu (qpu_periph.h, qpu_hooks.h), so the library's
 * own Broadcom-assembled shaders (../shared/corpus/qpu/gpu_fft_r3/hex/shader_*.hex) compute real
 * transforms in our simulator.
 *
 * Facts about the library come from its host sources in raspberrypi/userland,
 * host_applications/linux/apps/hello_pi/hello_fft/ (named below by file name only: gpu_fft.c,
 * gpu_fft_base.c, gpu_fft_twiddles.c, gpu_fft_shaders.c, gpu_fft_trans.c, gpu_fft.h, hello_fft.c,
 * hello_fft_2d.c), read through the search tool: hello_fft.c from raspberrypi/userland @ 7956781f;
 * the others from copies of that directory, as the index holds no other file of it under
 * raspberrypi/userland: ED6E0F17/userland @ 2489c147 (gpu_fft.c, gpu_fft.h, gpu_fft_base.c,
 * gpu_fft_shaders.c, gpu_fft_trans.c; all "release 3.0" but for gpu_fft_trans.c, "release 2.0" as in
 * the corpus's gpu_fft_trans.qasm), develone/userland (hello_fft_2d.c, and gpu_fft.c @ e60711e9,
 * identical in what is used here, with upstream's GPU_FFT_BUSY_WAIT_LIMIT), and a release-3.0
 * gpu_fft_twiddles.c (search-index file id 178098074).  gpu_fft_trans.h was not available; nothing
 * here needs it.  The code is ours; only facts were taken.
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
/* The radix of each pass, first pass first (16, 32 or 64; their product is 2^log2n): pass 1 uses
 * the codelet of the shared "base" table's width, pass p > 1 that of its "step" table (see gpufft.c).
 * Returns the number of passes, -1 for log2n outside 8..22. */
int gpufft_radices(int log2n, int radix[4]);

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
/* A shader from instructions already in memory (e.g. a re-packed program): copies ninst 64-bit
 * instructions (2 * ninst uint32_t at w, low word first) and, when comment is not NULL, their comments
 * (ninst entries, each may be NULL; shown by gpufft_bundle_text) under `name` (e.g. "shader_4k
 * (packed)").  Free with gpufft_code_free.  Returns 0, or -1 (out of memory) with the message in err. */
int gpufft_code_from_words(struct gpufft_code *c, const char *name, const uint32_t *w, size_t ninst,
                           const char *const *comment, char *err);

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
    double seconds;     /* CPU time spent simulating (the process's; the simulation is single-threaded) */
    double wall;        /* wall-clock time spent simulating */
    unsigned warnings;  /* QPUs whose peripherals left a warning (qpu_periph_warning: behaviour the
                           sources call unreliable or undefined), and the first one: */
    char warning[256];
};
/* Adds b to a (per-QPU counts, totals, rounds and seconds). */
void gpufft_cost_add(struct gpufft_cost *a, const struct gpufft_cost *b);

/* How to run. */
struct gpufft_run_opts {
    FILE *trace;         /* every issued bundle (qpu_run's trace), or NULL */
    uint64_t max_rounds; /* 0: unlimited */
    unsigned dma_latency; /* qpu_machine_set_dma_latency for this run (0: DMA done at once) */
    unsigned sim_flags;  /* TSR_SIM_F_* for every QPU (qpu_run_flags): TSR_SIM_F_RULES checks the
                            description's rules on every issued bundle (a violation fails the run) */
};
/* "shader_4k 0x0120: <disassembly>    // <source line of the hex file>" for the bundle at byte
 * address pc of c (the address the simulator reports; the program runs from address 0). */
void gpufft_bundle_text(const struct gpufft_code *c, uint32_t pc, char *buf, size_t n);

/* Runs the batch on GPUFFT_QPUS QPUs (gpu_fft_execute -> gpu_fft_base_exec(..., GPU_FFT_QPUS)) with
 * qpu_run, then checks that every QPU ended, that the master raised exactly one host interrupt
 * (its last uniform is 1, the others' 0: gpu_fft.c "IRQ enable, master only") and that no
 * semaphore is left non-zero.  Returns 0, or -1 with the simulator's report (QPU, pc, bundle text
 * and source line, message) in err, or GPUFFT_CUT (message in err) when o->max_rounds rounds ran
 * before every QPU ended. */
#define GPUFFT_CUT (-2)
int gpufft_execute(struct gpufft *f, const struct gpufft_run_opts *o, struct gpufft_cost *cost, char *err);
/* Runs the transpose on one QPU (gpu_fft_trans_execute -> gpu_fft_base_exec(..., 1)). */
int gpufft_trans_execute(struct gpufft_trans *t, const struct gpufft_run_opts *o, struct gpufft_cost *cost,
                         char *err);

/* One transform of 2^log2n points of random input (gpufft_random from seed) with `code` on a machine of
 * its own: gpufft_prepare, gpufft_execute with o (may be NULL: no trace, no round limit), then the
 * relative rms error against FFTW (double) in ppm into *ppm (as hello_fft.c's rel_rms_err; -1 when
 * there is no result).  cost (may be NULL) gets the run's cost added, including its peripheral
 * warnings, which the caller must check: a run with a warning is not trustworthy.  Returns 0, or -1
 * with the message in err (allocation, a simulator report, the round limit, FFTW could not plan). */
int gpufft_run_random(const struct gpufft_code *code, int log2n, int inverse, uint64_t seed,
                      const struct gpufft_run_opts *o, double *ppm, struct gpufft_cost *cost, char *err);

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

/* Re-runs job 0 of f on random input from `seed` (written into job 0's input buffer; the uniform
 * streams are cut to job 0 for the run and restored after it) on an instrumented copy of qpu_run's
 * loop that records every VPM write and VDW DMA (which QPU, bundle and round), and checks the
 * output buffer of each pass, when the master moves on to the next, against the partial transforms
 * the harness expects after it (gpufft.c "Pass model").  Writes to out, per pass, whether it holds
 * exactly the expected values; for the first that does not, how many elements are wrong and by
 * which QPU they were produced, and for the first wrong element (in time and in memory order) the
 * VPM write (QPU, bundle) that produced it and the VDW (QPU, bundle) that stored it.  A simulator
 * error, hazard or deadlock is reported with the pass it happened in.  trace (may be NULL): every
 * bundle issued, disassembled.  Returns the 1-based number of the first divergent pass, 0 when
 * every pass matched, -1 on error (message in err). */
int gpufft_diagnose(struct gpufft *f, uint64_t seed, FILE *out, FILE *trace, char *err);
/* Re-runs the transpose on the instrumented loop with the rule audit (below) and reports to out.
 * Returns 0 when it ended with no report and no rule broken, 1 otherwise, -1 on error (err). */
int gpufft_trans_audit(struct gpufft_trans *t, FILE *out, FILE *trace, char *err);

/* Rule audit: an independent check, on the raw instruction bits (field layout of
 * ../shared/isa/qpu.md "Encoding facts"), of rules of ../shared/isa/qpu.md "Latencies and hazards"
 * and "Rotation" that the simulator does not report.  Feed one QPU's bundles in issue order;
 * gpufft_diagnose runs it on every QPU and reports the first bundle breaking each rule. */
enum {
    GPUFFT_AUDIT_ROTATE,   /* "Rotation": not right after a write to the rotated accumulator (or to r5) */
    GPUFFT_AUDIT_VPM,      /* Lat. 5: vr_setup and vw_setup not in one instruction, nor with a VPM access */
    GPUFFT_AUDIT_UNIF,     /* Lat. 4: no uniform read for 2 instructions after a unif_addr write */
    GPUFFT_AUDIT_BRANCH,   /* "Branch": at least 2 other instructions between two branches */
    GPUFFT_AUDIT_NOSWAP,   /* Lat. 3: tmu_noswap written at least 3 instructions before a TMU write */
    GPUFFT_AUDIT_THREND,   /* Lat. 6: thread end + 2 slots: no uniform/VPM access; thrend writes no regfile */
    GPUFFT_AUDIT_SFU,      /* Lat. 2: nothing else writes r4 in the 2 instructions after an SFU write */
    GPUFFT_AUDIT_ONE_UNIT, /* Lat. 7: at most one TMU/TLB/SFU/mutex/semaphore access per instruction */
    GPUFFT_AUDIT_RULES
};
struct gpufft_audit {
    uint64_t hist[2]; /* the last two bundles, newest first */
    uint64_t issued;
};
/* Audits bundle w (low word in bits 31:0) issued after those in *a; returns the rules it breaks as a
 * bit mask (bit GPUFFT_AUDIT_*) and records it in *a (zero-initialise *a for a new QPU). */
unsigned gpufft_audit_bundle(struct gpufft_audit *a, uint64_t w);
/* One-line description of rule r, NULL if r is out of range. */
const char *gpufft_audit_rule(int rule);

#endif
