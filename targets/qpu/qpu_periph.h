/* VideoCore IV QPU peripherals: the hand-written hooks the generated QPU simulator calls for
 * everything behind the register-mapped I/O addresses 32..63 and the signals.
 *
 * Model in one paragraph: a `struct qpu_machine` owns the memory (bus addresses 0..size-1, little
 * endian), the VPM (128 rows x 16 32-bit words), the 16 four-bit semaphores, the mutex and the host
 * interrupt counter; it holds 1..12 `struct qpu_periph`, one per QPU, each with its uniform stream,
 * two TMU FIFOs, an SFU pipeline, its VPM generic read/write setups, its VCD DMA setups, the
 * tmu_noswap flag and the thread-end flag.  DMA completes at once (memory is updated when vr_addr /
 * vw_addr is written) but vr_wait / vw_wait stall for qpu_machine_set_dma_latency() instructions
 * (default 0) so the wait semantics can be exercised.  Errors never abort: every entry point returns
 * QPU_IO_ERROR and leaves a message for qpu_periph_error().  Not thread-safe: the QPUs of one
 * machine share state and must be stepped from one thread.
 *
 * Register map (regfile A / regfile B), from maazl/vc4asm @ doc/expressions.html and
 * jonasarrow/mesa @ src/gallium/drivers/vc4/vc4_qpu_defines.h (enum qpu_raddr / qpu_waddr):
 *   read : 32 unif | 35 vary | 38 elem_num / qpu_num | 39 nop | 41 x_coord / y_coord |
 *          42 ms_mask / rev_flag | 48 vpm | 49 vr_busy / vw_busy | 50 vr_wait / vw_wait | 51 mutex
 *          (acquire); every other address in 32..63 is reserved for reads.
 *   write: 32-35 r0-r3 and 37 r5 (the simulator's) | 36 tmu_noswap | 38 host_int | 39 nop |
 *          40 unif_addr / unif_addr_rel | 41 x_coord / y_coord | 42 ms_mask / rev_flag |
 *          43 tlb_stencil | 44 tlb_z | 45 tlb_color_ms | 46 tlb_color_all | 47 tlb_alpha_mask |
 *          48 vpm | 49 vr_setup / vw_setup | 50 vr_addr / vw_addr | 51 mutex release |
 *          52 recip | 53 recipsqrt | 54 exp | 55 log | 56-59 t0s t0t t0r t0b | 60-63 t1s t1t t1r t1b.
 *
 * Every hardware fact is cited where it is used (in the .c files); the main sources are
 *   [VC4C]   doe300/VC4C @ src/tools/Emulator.cpp and src/periphery/VPM.h (quotes the Broadcom
 *            "VideoCore IV 3D Architecture Reference Guide" tables 32-37 and pp.22/33/37),
 *   [ADD]    maazl/vc4asm @ doc/VideoCoreIV-addendum.html (behaviour checked on hardware),
 *   [QINC]   maazl/vc4asm @ share/vc4.qinc (vpm_setup / vdw_setup_0/1 / dma_h32 / v32 encodings),
 *   [PYVC]   Idein/py-videocore @ APPENDIX.rst, tests/test_sfu.py,
 *   [QPUMD]  ../shared/isa/qpu.md,
 *   [FFT]    ../shared/corpus/qpu/gpu_fft_r3 (GPU_FFT 3.0 qasm + Broadcom-assembled hex).
 */
#ifndef QPU_PERIPH_H
#define QPU_PERIPH_H

#include <stdint.h>

#define QPU_LANES 16

/* Shape constants. */
#define QPU_MAX_QPUS 12          /* 3 slices x 4 QPUs (BCM2835); QPU i sits at slice i/4, place i%4 */
#define QPU_NUM_SEMAPHORES 16    /* 4-bit counters 0..15 [QPUMD "Other rules"] */
#define QPU_VPM_ROWS 128         /* rows reachable by the VCD DMA (Y is 7 bits, [VC4C] VPM.h) */
#define QPU_VPM_QPU_ROWS 64      /* rows reachable by QPU generic access (Y is 6 bits, table 32) */
#define QPU_VPM_ROW_WORDS 16     /* one row = 16 x 32-bit words = 64 bytes */
#define QPU_TMU_FIFO_DEPTH 8     /* TMU request FIFO slots [ADD] "Section 4: TMU FIFO" */
#define QPU_TMU_FIFO_RELIABLE 4  /* more than 4 outstanding requests is unreliable [ADD] */
#define QPU_SFU_LATENCY 3        /* SFU written at N -> r4 readable at N+3 [QPUMD Latencies 2] */
#define QPU_SFU_BITS_DEFAULT 13  /* fraction bits kept by the SFU model, see qpu_machine_set_sfu_bits */

struct qpu_machine; /* shared by all QPUs: memory, VPM, 16 semaphores, mutex, host interrupts */
struct qpu_periph;  /* one QPU: uniforms, TMU FIFOs, SFU pipeline, VPM/VCD setups, noswap, done */

/* Return codes of every qpu_io_* call. */
enum { QPU_IO_OK = 0, QPU_IO_STALL = 1, QPU_IO_ERROR = -1 };

/* Bits of qpu_io_hazards(). */
enum {
    QPU_HAZ_R4 = 1u << 0,         /* an SFU result is in flight: r4 must not be read [QPUMD Lat. 2] */
    QPU_HAZ_UNIF = 1u << 1,       /* unif_addr written < 3 instructions ago: no unif read [QPUMD Lat. 4] */
    QPU_HAZ_TMU_NOSWAP = 1u << 2, /* tmu_noswap written < 3 instructions ago: no TMU write [QPUMD Lat. 3] */
};

/* ---- machine ---------------------------------------------------------------------------- */

/* New machine with mem_bytes of zeroed memory (1..2^30 bytes: the VideoCore bus aliases every
 * address modulo 2^30, see qpu_machine_mem) and nqpus QPUs (1..12), every QPU reset with uniform
 * address 0.  Returns NULL on bad arguments or out of memory. */
struct qpu_machine *qpu_machine_new(uint32_t mem_bytes, unsigned nqpus);
void qpu_machine_free(struct qpu_machine *m);

/* Memory, bus addresses 0..mem_bytes-1, little-endian.  Every access by a QPU (uniforms, TMU, DMA)
 * first clears address bits 31:30, the cache-alias bits of the VideoCore bus (GPU_FFT's host code
 * maps bus to physical with x & ~0xC0000000: maazl/vc4asm @ sample/hello_fft/gpu_fft_base.c,
 * the same file as raspberrypi/userland hello_fft), so GPU_FFT's uniforms can be used unchanged. */
uint8_t *qpu_machine_mem(struct qpu_machine *m);
uint32_t qpu_machine_mem_size(const struct qpu_machine *m);
unsigned qpu_machine_nqpus(const struct qpu_machine *m);
/* QPU i (0..nqpus-1), NULL if out of range. */
struct qpu_periph *qpu_machine_qpu(struct qpu_machine *m, unsigned i);
/* Count of host_int writes so far (only non-zero values raise an interrupt [ADD] "Host Interrupt"). */
unsigned qpu_machine_host_irqs(const struct qpu_machine *m);
/* The VPM: QPU_VPM_ROWS x 16 words, row-major (word (y, x) at index y*16 + x). */
uint32_t *qpu_machine_vpm(struct qpu_machine *m);
/* Semaphore count 0..15 (0 for num > 15) and mutex holder (QPU index, or -1 when free). */
unsigned qpu_machine_semaphore(const struct qpu_machine *m, unsigned num);
int qpu_machine_mutex_owner(const struct qpu_machine *m);

/* SFU precision model: results are computed exactly (double, then rounded to float) and then the
 * float's 23 fraction bits are truncated to frac_bits (1..23; 23 = full single precision).  Default
 * QPU_SFU_BITS_DEFAULT = 13, the model of doe300/VC4C @ src/tools/Emulator.cpp (addSFUError masks
 * the result with 0xFFFFFC00: "accuracy is better than half-float (10 bits) but less than full 23
 * bits ... the error was somewhere between 512 and 1024 ULP"), which also meets the hardware test
 * tolerance rtol=1e-3 of Idein/py-videocore @ tests/test_sfu.py.  Values outside 1..23 are clamped. */
void qpu_machine_set_sfu_bits(struct qpu_machine *m, unsigned frac_bits);
/* VPM DMA latency in instructions of the issuing QPU (default 0).  The transfer itself is done at
 * once; vr_wait / vw_wait / vr_busy / vw_busy and a second vr_addr / vw_addr see it pending for
 * `steps` calls of qpu_io_step. */
void qpu_machine_set_dma_latency(struct qpu_machine *m, unsigned steps);

/* ---- one QPU -------------------------------------------------------------------------------- */

/* Clear every per-QPU state (TMU FIFOs, SFU pipeline, VPM setups and read FIFO, DMA setups,
 * tmu_noswap, done flag, hazards, error and warning) and start the uniform stream at
 * uniforms_bus_addr.  Shared state (memory, VPM, semaphores, mutex, interrupts) is untouched. */
void qpu_periph_reset(struct qpu_periph *p, uint32_t uniforms_bus_addr);

/* Can this access proceed now?  1 yes, 0 stall; no side effects.  file: 0 = regfile A side,
 * 1 = B side; addr 32..63; write 0 = read, 1 = write.  Stalls: vpm read with the read FIFO empty,
 * vr_wait / vw_wait (and vr_addr / vw_addr writes) while this QPU's DMA is pending, mutex read while
 * another QPU holds it.  Anything else (including invalid addresses) is "ready": the access itself
 * then reports the error. */
int qpu_io_ready(const struct qpu_periph *p, int file, unsigned addr, int write);

/* Read I/O register addr (32..63) on side `file` into out[16].  Popping reads (unif, vpm, mutex)
 * pop once per call.  Returns QPU_IO_OK, QPU_IO_STALL (nothing changed, out untouched) or
 * QPU_IO_ERROR (reserved address, `vary`, uniform outside memory, double mutex acquire). */
int qpu_io_read(struct qpu_periph *p, int file, unsigned addr, uint32_t out[QPU_LANES]);

/* Write v[16] to I/O register addr (32..63) on side `file`; lanemask bit i set = lane i's write
 * condition passed.  Registers that use only element 0 (tmu_noswap, host_int, unif_addr(_rel),
 * vr/vw_setup, vr/vw_addr, mutex) fail with QPU_IO_ERROR when lane 0 is masked (the hardware would
 * use undefined data [ADD] "No conditional write to peripheral registers").  FIFO registers (vpm,
 * t0s/t1s) are triggered as in hardware; masked lanes keep the old VPM word / read as 0 and a
 * warning is left.  r0-r3 and r5 (32-35, 37) are the simulator's: QPU_IO_ERROR here. */
int qpu_io_write(struct qpu_periph *p, int file, unsigned addr, const uint32_t v[QPU_LANES],
                 uint16_t lanemask);

/* Signal codes 0..12 (jonasarrow/mesa vc4_qpu_defines.h enum qpu_sig_bits): 1 none, 3 thrend (marks
 * done), 4 sbwait and 5 sbdone (no-ops: no tile buffer), 10 ldtmu0 / 11 ldtmu1 (pop 16 words of the
 * TMU FIFO into r4; error if empty).  0 bkpt, 2 thrsw, 6 lthrsw, 7 loadcv, 8 loadc, 9 ldcend and
 * 12 loadam return QPU_IO_ERROR "not modelled"; 13..15 are not signals (error). */
int qpu_io_signal(struct qpu_periph *p, unsigned sig, uint32_t r4[QPU_LANES]);

/* Semaphore instruction (ldi mode 4): acquire (decrement) stalls at 0, release (increment) stalls at
 * 15 (doe300/VC4C @ src/tools/Emulator.cpp Semaphores::increment/decrement; [QPUMD]).  num > 15 is
 * an error.  The value the instruction writes to its destinations is the simulator's. */
int qpu_io_semaphore(struct qpu_periph *p, unsigned num, int acquire);
int qpu_io_semaphore_ready(const struct qpu_periph *p, unsigned num, int acquire);

/* Once per issued instruction, after its writes: advances the SFU pipeline (a result written at
 * instruction N lands in r4 at the end of N+2, i.e. readable from N+3), the DMA latency counters
 * and the hazard windows. */
void qpu_io_step(struct qpu_periph *p, uint32_t r4[QPU_LANES]);
/* Nonzero while an SFU result is in flight (reading r4 now is a hazard). */
int qpu_io_r4_busy(const struct qpu_periph *p);
/* QPU_HAZ_* bits that apply to the next instruction. */
unsigned qpu_io_hazards(const struct qpu_periph *p);

int qpu_periph_done(const struct qpu_periph *p);
/* Last error message (e.g. "TMU0 FIFO overflow ...", "VDW DMA outside memory at 0x..."), NULL if
 * none since the last reset. */
const char *qpu_periph_error(const struct qpu_periph *p);
/* Last non-fatal warning (behaviour the sources call unreliable or undefined), NULL if none. */
const char *qpu_periph_warning(const struct qpu_periph *p);
/* Introspection for simulators, tests and deadlock reports. */
unsigned qpu_periph_num(const struct qpu_periph *p);
uint32_t qpu_periph_unif_addr(const struct qpu_periph *p);
/* Outstanding requests of logical TMU `tmu` (0/1, after the swap) and VPM reads still owed. */
unsigned qpu_periph_tmu_pending(const struct qpu_periph *p, unsigned tmu);
unsigned qpu_periph_vpm_read_pending(const struct qpu_periph *p);
/* Physical TMU used for logical TMU `tmu`: QPUs 2 and 3 of each slice swap TMU0 and TMU1 unless
 * tmu_noswap was written non-zero (doe300/VC4C @ src/tools/Emulator.cpp TMUs::toRealTMU; [ADD]). */
unsigned qpu_periph_tmu_phys(const struct qpu_periph *p, unsigned tmu);
/* Last value written to TLB register addr (43..47) and how many writes it had; NULL if addr is
 * not a TLB register.  The tile buffer itself is not modelled. */
const uint32_t *qpu_periph_tlb(const struct qpu_periph *p, unsigned addr, unsigned *count);

/* Name of I/O register addr (32..63) as read (write 0) or written (write 1) on side `file`, in
 * vc4asm / Broadcom spelling ("unif", "vw_setup", "t0s", ...); NULL for reserved addresses. */
const char *qpu_io_reg_name(int file, unsigned addr, int write);

/* ---- setup words, decoded field by field (see qpu_vpm.c for bit positions and sources) -------- */

enum qpu_vpm_setup_kind {
    QPU_SETUP_GENERIC = 0, /* VPM generic block read (vr_setup) / write (vw_setup), tables 32/33 */
    QPU_SETUP_DMA = 1,     /* VDR basic (vr_setup, table 36) / VDW basic (vw_setup, table 34) */
    QPU_SETUP_STRIDE = 2,  /* VDR extended pitch (table 37) / VDW stride (table 35) */
    QPU_SETUP_INVALID = -1
};
/* Which register a setup word written to vr_setup (is_read 1) or vw_setup (is_read 0) programs. */
int qpu_vpm_setup_kind(uint32_t word, int is_read);

struct qpu_vpm_generic { /* tables 32/33 */
    unsigned num;    /* vectors to read, 1..16 (read setup only; 0 in the word means 16) */
    unsigned stride; /* added to addr after each vector, 1..64 (0 in the word means 64) */
    unsigned horiz;  /* 1 horizontal, 0 vertical */
    unsigned laned;  /* 1 laned, 0 packed (ignored for 32-bit) */
    unsigned size;   /* 0 8-bit, 1 16-bit, 2 32-bit, 3 reserved */
    unsigned addr;   /* 8-bit vector address */
};
struct qpu_vdw_setup { /* table 34 (basic) + table 35 (stride) */
    unsigned units;  /* rows of the 2D block in memory, 1..128 */
    unsigned depth;  /* row length in memory, in elements, 1..128 */
    unsigned laned;  /* "write as 0" */
    unsigned horiz;  /* 1 horizontal, 0 vertical */
    unsigned y, x;   /* VPM start: row 0..127, column 0..15 */
    unsigned width;  /* bytes per element: 4, 2 or 1 (MODEW 1 = unused -> 0) */
    unsigned sel;    /* half-word (16-bit) or byte (8-bit) select from MODEW */
};
struct qpu_vdr_setup { /* table 36 */
    unsigned width;  /* 4, 2 or 1 bytes */
    unsigned sel;    /* half-word / byte select */
    unsigned mpitch; /* memory row pitch code: 0 = use the extended pitch, else 8 << mpitch bytes */
    unsigned rowlen; /* elements per row 1..16 */
    unsigned nrows;  /* rows 1..16 */
    unsigned vpitch; /* VPM row-to-row pitch 1..16 */
    unsigned vert;   /* 1 vertical, 0 horizontal */
    unsigned y, x;   /* VPM start: row 0..127, column 0..15 */
};
void qpu_vpm_decode_generic(uint32_t word, int is_read, struct qpu_vpm_generic *g);
void qpu_vpm_decode_vdw(uint32_t word, struct qpu_vdw_setup *s);
void qpu_vpm_decode_vdr(uint32_t word, struct qpu_vdr_setup *s);
/* Table 35 STRIDE (16 bits per [ADD]) and BLOCKMODE; table 37 MPITCHB (13 bits). */
unsigned qpu_vdw_stride(uint32_t word);
unsigned qpu_vdw_blockmode(uint32_t word);
unsigned qpu_vdr_pitch(uint32_t word);

#endif
