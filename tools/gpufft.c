/* GPU_FFT host harness (gpufft.h): layout, twiddles, uniforms, launch, reference and error.
 * Every fact about the library names the host source file it comes from (see gpufft.h for where
 * those files were read).  The instrumented re-run that localises a wrong result is in
 * gpufft_diag.c. */
#include "gpufft.h"
#include "gpufft_int.h"

#include <errno.h>
#include <fftw3.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "corpus.h"
#include "fileout.h"
#include "hexio.h"
#include "qpu_hooks.h"

int gpufft_fail(char *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err)
        vsnprintf(err, GPUFFT_ERRLEN, fmt, ap);
    va_end(ap);
    return -1;
}

static uint32_t align_up(uint64_t x, uint32_t a)
{
    return (uint32_t)((x + a - 1) / a * a);
}

/* ---- shapes and twiddles (gpu_fft_twiddles.c) ---------------------------------------------------
 * For each log2n the library lists: passes, shared and unique twiddle blocks, and a generator that
 * writes the shared blocks (one "base" table for the first pass's codelet, then one "step" table per
 * later pass: the rotation applied between codelets) followed by one unique "base" table per QPU
 * (angle offset q * 2pi/N).  Widths 16, 32, 64 are the codelet sizes; a width-w table is w/16
 * blocks.  The step angle of each later pass is (2pi/N) * mult.  The radix of pass 1 is the base
 * width, of pass p > 1 the width of step table p-1 (this agrees with the body_pass_16/32/64 each
 * ../shared/corpus/qpu/gpu_fft_r3/qasm/gpu_fft_<N>.qasm uses per pass). */
struct tw_step {
    unsigned char width;
    unsigned short mult;
};
static const struct tw_plan {
    unsigned char passes, shared, unique, base, uwidth;
    struct tw_step step[3];
} tw_plans[GPUFFT_MAX_LOG2N - GPUFFT_MIN_LOG2N + 1] = {
    /* 8 */ {2, 2, 1, 16, 16, {{16, GPUFFT_QPUS}}},
    /* 9 */ {2, 3, 1, 32, 16, {{16, GPUFFT_QPUS}}},
    /* 10 */ {2, 4, 2, 32, 32, {{32, GPUFFT_QPUS}}},
    /* 11 */ {2, 6, 2, 64, 32, {{32, GPUFFT_QPUS}}},
    /* 12 */ {3, 3, 1, 16, 16, {{16, 16}, {16, GPUFFT_QPUS}}},
    /* 13 */ {3, 4, 1, 32, 16, {{16, 16}, {16, GPUFFT_QPUS}}},
    /* 14 */ {3, 5, 1, 32, 16, {{32, 16}, {16, GPUFFT_QPUS}}},
    /* 15 */ {3, 6, 2, 32, 32, {{32, 32}, {32, GPUFFT_QPUS}}},
    /* 16 */ {3, 8, 2, 64, 32, {{32, 32}, {32, GPUFFT_QPUS}}},
    /* 17 */ {4, 5, 1, 32, 16, {{16, 256}, {16, 16}, {16, GPUFFT_QPUS}}},
    /* 18 */ {4, 6, 2, 32, 32, {{16, 512}, {16, 32}, {32, GPUFFT_QPUS}}},
    /* 19 */ {4, 7, 2, 32, 32, {{16, 1024}, {32, 32}, {32, GPUFFT_QPUS}}},
    /* 20 */ {4, 8, 2, 32, 32, {{32, 1024}, {32, 32}, {32, GPUFFT_QPUS}}},
    /* 21 */ {4, 10, 2, 64, 32, {{32, 1024}, {32, 32}, {32, GPUFFT_QPUS}}},
    /* 22 */ {4, 12, 2, 64, 32, {{64, 1024}, {32, 32}, {32, GPUFFT_QPUS}}},
};

int gpufft_shape(int log2n, struct gpufft_shape *s)
{
    if (log2n < GPUFFT_MIN_LOG2N || log2n > GPUFFT_MAX_LOG2N)
        return -1;
    const struct tw_plan *p = &tw_plans[log2n - GPUFFT_MIN_LOG2N];
    s->log2n = log2n;
    s->passes = p->passes;
    s->shared = p->shared;
    s->unique = p->unique;
    return 0;
}

int gpufft_radices(int log2n, int radix[4])
{
    if (log2n < GPUFFT_MIN_LOG2N || log2n > GPUFFT_MAX_LOG2N)
        return -1;
    const struct tw_plan *p = &tw_plans[log2n - GPUFFT_MIN_LOG2N];
    radix[0] = p->base;
    for (int i = 1; i < p->passes; i++)
        radix[i] = p->step[i - 1].width;
    return p->passes;
}

/* Writes one (re, im) pair. */
static float *put(float *out, double re, double im)
{
    *out++ = (float)re;
    *out++ = (float)im;
    return out;
}

/* The 16-entry codelet table: entry i of the radix-2 stage s it serves (i in [2^s, 2^(s+1)); the
 * entry 0 is unused) holds the rotation for butterfly m = i - 2^s of that stage, whose angle unit is
 * k = 8 >> s sixteenths of a turn, offset by theta * k (gpu_fft_twiddles.c twiddles_base_16 and
 * its tables k[] = {0,8,4,4,2,...}, m[] = {0,0,0,1,0,1,2,3,0..7}). */
static void stage16(int i, int *k, int *m)
{
    int s = 0;
    if (i == 0) {
        *k = *m = 0;
        return;
    }
    while ((2 << s) <= i)
        s++;
    *k = 8 >> s;
    *m = i - (1 << s);
}

static float *base_table(float *out, int width, double two_pi, double theta)
{
    if (width == 64) { /* twiddles_base_64: 32 entries of two_pi/64 * i, then the 32-table at 0 */
        for (int i = 0; i < 32; i++)
            out = put(out, cos(two_pi / 64 * i), sin(two_pi / 64 * i));
        return base_table(out, 32, two_pi, 0);
    }
    if (width == 32) { /* twiddles_base_32: 16 entries two_pi/32 * i + theta, then 16 at 2 theta */
        for (int i = 0; i < 16; i++)
            out = put(out, cos(two_pi / 32 * i + theta), sin(two_pi / 32 * i + theta));
        return base_table(out, 16, two_pi, 2 * theta);
    }
    for (int i = 0; i < 16; i++) {
        int k, m;
        stage16(i, &k, &m);
        double a = two_pi / 16 * k * m + theta * k;
        out = put(out, cos(a), sin(a));
    }
    return out;
}

/* A rotation by x stored as (alpha, beta) = (2 sin^2(x/2), sin x): the shaders' enhanced-precision
 * trig recurrence (gpu_fft_twiddles.c ALPHA / BETA and twiddles_step_*). */
static float *rot(float *out, double x)
{
    double s = sin(x / 2);
    return put(out, 2 * s * s, sin(x));
}

static float *step_table(float *out, int width, double theta)
{
    if (width >= 32) { /* twiddles_step_64/32: width/2 entries of theta, then the half-width at 2 theta */
        for (int i = 0; i < width / 2; i++)
            out = rot(out, theta);
        return step_table(out, width / 2, 2 * theta);
    }
    for (int i = 0; i < 16; i++) { /* twiddles_step_16: entry i rotates by theta * k[i] */
        int k, m;
        stage16(i, &k, &m);
        out = rot(out, theta * k);
    }
    return out;
}

void gpufft_twiddles(int log2n, int inverse, float *out)
{
    const struct tw_plan *p = &tw_plans[log2n - GPUFFT_MIN_LOG2N];
    /* gpu_fft_twiddle_data: two_pi = -2 pi for GPU_FFT_FWD, +2 pi for GPU_FFT_REV. */
    double two_pi = (inverse ? 2 : -2) * 3.14159265358979323846, n = (double)(1u << log2n);
    out = base_table(out, p->base, two_pi, 0);
    for (int i = 0; i + 1 < p->passes; i++)
        out = step_table(out, p->step[i].width, two_pi / n * p->step[i].mult);
    for (int q = 0; q < GPUFFT_QPUS; q++)
        out = base_table(out, p->uwidth, two_pi, two_pi / n * q);
}

/* ---- machine memory ----------------------------------------------------------------------------- */

int gpufft_mem_init(struct gpufft_mem *mm, uint64_t bytes, char *err)
{
    memset(mm, 0, sizeof *mm);
    if (bytes == 0 || bytes > (1u << 30))
        return gpufft_fail(err, "simulated memory of %" PRIu64 " bytes: must be 1 byte .. 1 GiB", bytes);
    mm->size = align_up(bytes, GPUFFT_PAGE);
    mm->m = qpu_machine_new(mm->size, GPUFFT_QPUS);
    if (!mm->m)
        return gpufft_fail(err, "cannot create a machine with %u bytes of memory", mm->size);
    mm->mem = qpu_machine_mem(mm->m);
    return 0;
}

void gpufft_mem_fini(struct gpufft_mem *mm)
{
    if (mm->m)
        qpu_machine_free(mm->m);
    memset(mm, 0, sizeof *mm);
}

static int mem_alloc(struct gpufft_mem *mm, uint64_t bytes, uint32_t *at, char *err)
{
    uint64_t n = align_up(bytes, GPUFFT_PAGE);
    if (n > mm->size - mm->used)
        return gpufft_fail(err, "simulated memory exhausted: %" PRIu64 " more bytes needed, %u of %u used", n,
                    mm->used, mm->size);
    *at = mm->used;
    mm->used += (uint32_t)n;
    return 0;
}

/* ---- shaders (gpu_fft_shaders.c, gpu_fft_trans.c) --------------------------------------------------- */

static const char *const shader_names[] = {"256", "512", "1k", "2k", "4k", "8k", "16k", "32k",
                                           "64k", "128k", "256k", "512k", "1024k", "2048k", "4096k"};

void gpufft_hex_dir(char *buf, size_t n)
{
    corpus_shared_dir(buf, n);
    size_t len = strlen(buf);
    snprintf(buf + len, n - len, "/corpus/qpu/gpu_fft_r3/hex");
}

/* c takes over the program w (malloc'd; freed by gpufft_code_free) under a copy of name. */
static void code_adopt(struct gpufft_code *c, struct tsr_words *w, const char *name)
{
    c->w = w->w;
    c->nwords = w->count * 2;
    c->comment = w->comment;
    c->name = strdup(name);
    c->priv = w;
}

int gpufft_code_load(struct gpufft_code *c, const char *dir, int log2n, char *err)
{
    char d[2048], path[2200], name[32];
    memset(c, 0, sizeof *c);
    if (log2n != 0 && (log2n < GPUFFT_MIN_LOG2N || log2n > GPUFFT_MAX_LOG2N))
        return gpufft_fail(err, "log2 N = %d: GPU_FFT has shaders for 8..22", log2n);
    if (!dir) {
        gpufft_hex_dir(d, sizeof d);
        dir = d;
    }
    snprintf(name, sizeof name, "shader_%s", log2n ? shader_names[log2n - GPUFFT_MIN_LOG2N] : "trans");
    snprintf(path, sizeof path, "%s/%s.hex", dir, name);
    struct tsr_words *w = malloc(sizeof *w);
    if (!w)
        return gpufft_fail(err, "out of memory");
    char *msg = NULL;
    size_t msglen = 0;
    FILE *ef = open_memstream(&msg, &msglen);
    struct tsr_diag dg;
    tsr_diag_init(&dg, TSR_DIAG_PRINT, ef ? ef : stderr);
    tsr_words_init(w, 64);
    int rc = tsr_words_read(w, path, TSR_WORDS_HEX, &dg);
    tsr_diag_fini(&dg);
    if (ef)
        fclose(ef);
    if (rc || w->count == 0) {
        gpufft_fail(err, "cannot load %s%s%.*s (set TESSERA_SHARED to the shared directory)", path, msg && *msg ? ": " : "",
             msg ? (int)strcspn(msg, "\n") : 0, msg ? msg : "");
        free(msg);
        tsr_words_free(w);
        free(w);
        return -1;
    }
    free(msg);
    code_adopt(c, w, name);
    return 0;
}

int gpufft_code_from_words(struct gpufft_code *c, const char *name, const uint32_t *w, size_t ninst,
                           const char *const *comment, char *err)
{
    memset(c, 0, sizeof *c);
    struct tsr_words *p = malloc(sizeof *p);
    if (!p)
        return gpufft_fail(err, "out of memory");
    tsr_words_init(p, 64);
    for (size_t i = 0; i < ninst; i++)
        tsr_words_push(p, w + 2 * i, comment ? comment[i] : NULL, 0);
    code_adopt(c, p, name);
    return 0;
}

void gpufft_code_free(struct gpufft_code *c)
{
    if (c->priv) {
        tsr_words_free(c->priv);
        free(c->priv);
    }
    free(c->name);
    memset(c, 0, sizeof *c);
}

/* ---- gpu_fft_prepare (gpu_fft.c) ------------------------------------------------------------------
 * One allocation, in this order:
 *   4096 bytes of header (the ARM-side struct GPU_FFT; unused here),
 *   the ping-pong data: 2 * jobs buffers of data_bytes = 1 + ((8 << log2n) | 4095) each (a guard of
 *     at least one byte, rounded to a 4 KiB multiple; GPU_FFT.step = data_bytes / 8 complex); job j's
 *     buffers are ping + j * data_bytes and pong = ping + jobs * data_bytes + j * data_bytes,
 *   the shader code (gpu_fft_shader_size bytes),
 *   the twiddles: 8 * 16 * (shared + GPU_FFT_QPUS * unique) bytes,
 *   the uniforms: per QPU q, 5 + 2 * jobs words:
 *     tw_shared = twiddles, tw_unique = twiddles + 8 * 16 * (shared + q * unique), q,
 *     then per job (ping_j, pong_j), then 0 (ends the job loop), then (q == 0) ("For mailbox: IRQ
 *     enable, master only": the shader's exit writes it to host_int),
 *   the mailbox message: per QPU (uniforms address, code address), the launch list of the mailbox
 *     call execute_qpu; gpu_fft_trans.c's shader reads the message to find a batch's buffers.
 *     gpu_fft.c writes it only when the batch is too long for the busy-wait path
 *     (jobs << log2n > GPU_FFT_BUSY_WAIT_LIMIT = 5 << 12); the simulation always writes it.
 * The result is in ping (in place) after an even number of passes, else in pong (gpu_fft.c "odd =>
 * out of place"; gpu_fft.txt "Data format"). */

static uint32_t data_bytes_of(int log2n)
{
    return 1u + ((8u << log2n) | 4095u);
}

static uint64_t twid_bytes_of(const struct gpufft_shape *s)
{
    return 8u * 16u * (uint64_t)(s->shared + GPUFFT_QPUS * s->unique);
}

uint64_t gpufft_prepare_bytes(int log2n, int jobs, const struct gpufft_code *code)
{
    struct gpufft_shape s;
    if (gpufft_shape(log2n, &s) || jobs < 1)
        return 0;
    uint64_t size = GPUFFT_PAGE + 2 * (uint64_t)jobs * data_bytes_of(log2n) + code->nwords * 4 +
                    twid_bytes_of(&s) + 4u * GPUFFT_QPUS * (5 + 2 * (uint64_t)jobs) + 4u * GPUFFT_QPUS * 2;
    return align_up(size, GPUFFT_PAGE);
}

int gpufft_prepare(struct gpufft *f, struct gpufft_mem *mm, const struct gpufft_code *code, int log2n,
                   int inverse, int jobs, char *err)
{
    memset(f, 0, sizeof *f);
    if (gpufft_shape(log2n, &f->shape))
        return gpufft_fail(err, "log2 N = %d not supported (8..22)", log2n);
    if (jobs < 1)
        return gpufft_fail(err, "batch of %d transforms: must be at least 1", jobs);
    uint64_t need = gpufft_prepare_bytes(log2n, jobs, code);
    if (need > (1u << 30))
        return gpufft_fail(err, "a batch of %d x 2^%d points needs %" PRIu64 " bytes (> 1 GiB)", jobs, log2n, need);
    if (mem_alloc(mm, need, &f->base, err))
        return -1;
    f->mm = mm;
    f->code = code;
    f->inverse = inverse;
    f->jobs = jobs;
    f->x = 1 << log2n;
    f->y = jobs;
    f->data_bytes = data_bytes_of(log2n);
    f->step = f->data_bytes / 8;
    uint32_t at = f->base + GPUFFT_PAGE;
    f->ping = at;
    f->pong = at + (uint32_t)jobs * f->data_bytes;
    f->in = f->ping;
    f->out = (f->shape.passes & 1) ? f->pong : f->ping;
    at += 2u * (uint32_t)jobs * f->data_bytes;
    f->code_at = at;
    memcpy(mm->mem + at, code->w, code->nwords * 4);
    at += (uint32_t)code->nwords * 4;
    f->tw_at = at;
    gpufft_twiddles(log2n, inverse, (float *)(void *)(mm->mem + at));
    at += (uint32_t)twid_bytes_of(&f->shape);
    for (unsigned q = 0; q < GPUFFT_QPUS; q++) {
        uint32_t u = at;
        f->unif_at[q] = u;
        gpufft_put32(mm, u, gpufft_bus(f->tw_at));
        gpufft_put32(mm, u + 4, gpufft_bus(f->tw_at + 8u * 16u * (uint32_t)(f->shape.shared + (int)q * f->shape.unique)));
        gpufft_put32(mm, u + 8, q);
        u += 12;
        for (int j = 0; j < jobs; j++, u += 8) {
            gpufft_put32(mm, u, gpufft_bus(f->ping + (uint32_t)j * f->data_bytes));
            gpufft_put32(mm, u + 4, gpufft_bus(f->pong + (uint32_t)j * f->data_bytes));
        }
        gpufft_put32(mm, u, 0);
        gpufft_put32(mm, u + 4, q == 0);
        at += 4u * (5u + 2u * (uint32_t)jobs);
    }
    f->msg_at = at;
    for (unsigned q = 0; q < GPUFFT_QPUS; q++) {
        gpufft_put32(mm, at + 8 * q, gpufft_bus(f->unif_at[q]));
        gpufft_put32(mm, at + 8 * q + 4, gpufft_bus(f->code_at));
    }
    return 0;
}

float *gpufft_in(const struct gpufft *f, int job)
{
    return (float *)(void *)(f->mm->mem + f->in + (uint32_t)job * f->data_bytes);
}

float *gpufft_out(const struct gpufft *f, int job)
{
    return (float *)(void *)(f->mm->mem + f->out + (uint32_t)job * f->data_bytes);
}

/* ---- gpu_fft_trans_prepare (gpu_fft_trans.c) ---------------------------------------------------------
 * Four 4 KiB pieces: header, code, uniforms, mailbox message.  Uniforms: src's mailbox message
 * address, the byte offset of src's output from its input (out - in), dst's message address, 0
 * (no offset: dst's input), src's and dst's GPU_FFT.step in bytes, then min(src.x, dst.y) and
 * min(src.y, dst.x) (the README's safe choice for rectangular arrays).  The shader
 * (gpu_fft_trans.qasm) reads word 0 of a message (QPU 0's uniforms) and word 3 of those uniforms
 * (job 0's ping buffer) through the TMU. */

uint64_t gpufft_trans_bytes(void)
{
    return 4 * GPUFFT_PAGE;
}

int gpufft_trans_prepare(struct gpufft_trans *t, struct gpufft_mem *mm, const struct gpufft_code *code,
                         const struct gpufft *src, const struct gpufft *dst, char *err)
{
    memset(t, 0, sizeof *t);
    if (code->nwords * 4 > GPUFFT_PAGE)
        return gpufft_fail(err, "%s is %zu bytes; gpu_fft_trans.c reserves 4096", code->name, code->nwords * 4);
    if (mem_alloc(mm, gpufft_trans_bytes(), &t->base, err))
        return -1;
    t->mm = mm;
    t->code = code;
    t->code_at = t->base + GPUFFT_PAGE;
    t->unif_at = t->base + 2 * GPUFFT_PAGE;
    t->msg_at = t->base + 3 * GPUFFT_PAGE;
    memcpy(mm->mem + t->code_at, code->w, code->nwords * 4);
    uint32_t u = t->unif_at;
    gpufft_put32(mm, u + 0, gpufft_bus(src->msg_at));
    gpufft_put32(mm, u + 4, src->out - src->in);
    gpufft_put32(mm, u + 8, gpufft_bus(dst->msg_at));
    gpufft_put32(mm, u + 12, 0);
    gpufft_put32(mm, u + 16, src->step * 8);
    gpufft_put32(mm, u + 20, dst->step * 8);
    gpufft_put32(mm, u + 24, (uint32_t)(src->x < dst->y ? src->x : dst->y));
    gpufft_put32(mm, u + 28, (uint32_t)(src->y < dst->x ? src->y : dst->x));
    gpufft_put32(mm, t->msg_at, gpufft_bus(t->unif_at));
    gpufft_put32(mm, t->msg_at + 4, gpufft_bus(t->code_at));
    return 0;
}

/* ---- running ------------------------------------------------------------------------------------ */

void gpufft_cost_add(struct gpufft_cost *a, const struct gpufft_cost *b)
{
    if (b->nqpus > a->nqpus)
        a->nqpus = b->nqpus;
    for (unsigned q = 0; q < QPU_MAX_QPUS; q++) {
        a->issued[q] += b->issued[q];
        a->stalls[q] += b->stalls[q];
    }
    a->total += b->total;
    a->rounds += b->rounds;
    if (b->warnings && !a->warnings)
        memcpy(a->warning, b->warning, sizeof a->warning);
    a->warnings += b->warnings;
    a->seconds += b->seconds;
    a->wall += b->wall;
}

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Text of the bundle at byte address pc of code: "0x0123: <disassembly>   // <source line>". */
void gpufft_bundle_text(const struct gpufft_code *c, uint32_t pc, char *buf, size_t n)
{
    if (pc % 8 || pc / 4 + 2 > c->nwords) {
        snprintf(buf, n, "0x%04" PRIx32 ": (outside %s)", pc, c->name);
        return;
    }
    struct tsr_buf t = {0};
    qpu_disasm(c->w + pc / 4, pc, &t);
    const char *src = c->comment ? c->comment[pc / 8] : NULL;
    snprintf(buf, n, "%s 0x%04" PRIx32 ": %.*s%s%s", c->name, pc, (int)t.len, t.data ? t.data : "",
             src ? "    // " : "", src ? src : "");
    tsr_buf_free(&t);
}

/* qpu_run on nqpus QPUs with the given uniform streams, then the end-of-run checks. */
static int run(struct gpufft_mem *mm, const struct gpufft_code *code, unsigned nqpus, const uint32_t *unif,
               unsigned irqs_expected, const struct gpufft_run_opts *o, struct gpufft_cost *cost, char *err)
{
    uint32_t addrs[QPU_MAX_QPUS];
    for (unsigned q = 0; q < nqpus; q++)
        addrs[q] = gpufft_bus(unif[q]);
    unsigned irq0 = qpu_machine_host_irqs(mm->m);
    qpu_machine_set_dma_latency(mm->m, o ? o->dma_latency : 0);
    struct qpu_run_result *res = calloc(1, sizeof *res);
    if (!res)
        return gpufft_fail(err, "out of memory");
    double t0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
    int st = qpu_run_flags(mm->m, code->w, code->nwords, nqpus, addrs,
                           o && o->max_rounds ? o->max_rounds : UINT64_MAX, o ? o->sim_flags : 0,
                           o ? o->trace : NULL, res);
    struct gpufft_cost c = {.nqpus = nqpus, .rounds = res->rounds, .seconds = clock_s(CLOCK_PROCESS_CPUTIME_ID) - t0,
                            .wall = clock_s(CLOCK_MONOTONIC) - w0};
    for (unsigned q = 0; q < nqpus; q++) {
        c.issued[q] = res->issued[q];
        c.stalls[q] = res->stalls[q];
        c.total += res->issued[q];
    }
    if (cost)
        gpufft_cost_add(cost, &c);
    for (unsigned q = 0; q < nqpus; q++) {
        const char *w = qpu_periph_warning(qpu_machine_qpu(mm->m, q));
        if (w && cost && !cost->warnings++)
            snprintf(cost->warning, sizeof cost->warning, "qpu%u: %s", q, w);
    }
    int rc = 0;
    if (st != TSR_SIM_HALTED) {
        char text[512];
        if (st == TSR_SIM_ERROR || st == TSR_SIM_HAZARD) {
            gpufft_bundle_text(code, res->pc, text, sizeof text);
            rc = gpufft_fail(err, "%s on qpu%u at bundle %s after %" PRIu64 " rounds: %s",
                      st == TSR_SIM_HAZARD ? "hazard" : "simulator error", res->qpu, text, res->rounds, res->msg);
        } else if (st == TSR_SIM_STALL) {
            rc = gpufft_fail(err, "%s: %s", code->name, res->msg);
        } else {
            gpufft_fail(err, "%s: stopped after %" PRIu64 " rounds (limit) before every QPU ended", code->name,
                        res->rounds);
            rc = GPUFFT_CUT;
        }
    } else if (qpu_machine_host_irqs(mm->m) - irq0 != irqs_expected) {
        rc = gpufft_fail(err, "%s: %u host interrupts raised, expected %u", code->name,
                  qpu_machine_host_irqs(mm->m) - irq0, irqs_expected);
    } else {
        for (unsigned s = 0; s < QPU_NUM_SEMAPHORES; s++)
            if (qpu_machine_semaphore(mm->m, s)) {
                rc = gpufft_fail(err, "%s: semaphore %u left at %u after the run", code->name, s,
                          qpu_machine_semaphore(mm->m, s));
                break;
            }
    }
    free(res);
    return rc;
}

int gpufft_execute(struct gpufft *f, const struct gpufft_run_opts *o, struct gpufft_cost *cost, char *err)
{
    return run(f->mm, f->code, GPUFFT_QPUS, f->unif_at, 1, o, cost, err);
}

int gpufft_trans_execute(struct gpufft_trans *t, const struct gpufft_run_opts *o, struct gpufft_cost *cost,
                         char *err)
{
    /* gpu_fft_trans.qasm ends with `mov interrupt, 1`. */
    return run(t->mm, t->code, 1, &t->unif_at, 1, o, cost, err);
}

/* ---- reference and error ---------------------------------------------------------------------------- */

int gpufft_run_random(const struct gpufft_code *code, int log2n, int inverse, uint64_t seed,
                      const struct gpufft_run_opts *o, double *ppm, struct gpufft_cost *cost, char *err)
{
    struct gpufft_mem mm;
    struct gpufft f;
    size_t n = (size_t)1 << log2n;
    *ppm = -1;
    if (gpufft_mem_init(&mm, gpufft_prepare_bytes(log2n, 1, code), err) ||
        gpufft_prepare(&f, &mm, code, log2n, inverse, 1, err)) {
        gpufft_mem_fini(&mm);
        return -1;
    }
    float *keep = malloc(2 * n * sizeof *keep);
    double *want = malloc(2 * n * sizeof *want);
    int rc = !keep || !want ? gpufft_fail(err, "out of memory") : 0;
    if (!rc) {
        gpufft_random(keep, n, seed);
        memcpy(gpufft_in(&f, 0), keep, 2 * n * sizeof *keep);
        rc = gpufft_execute(&f, o, cost, err);
    }
    if (!rc && gpufft_reference(keep, want, log2n, inverse))
        rc = gpufft_fail(err, "FFTW could not plan 2^%d points", log2n);
    if (!rc) {
        struct gpufft_err e = {0};
        gpufft_err_accumulate(&e, gpufft_out(&f, 0), want, n);
        *ppm = gpufft_err_value(&e) * 1e6;
    }
    free(keep);
    free(want);
    gpufft_mem_fini(&mm);
    return rc;
}

void gpufft_random(float *z, size_t n, uint64_t seed)
{
    uint64_t s = seed;
    for (size_t i = 0; i < 2 * n; i++) {
        /* splitmix64 */
        uint64_t x = (s += 0x9e3779b97f4a7c15u);
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
        x ^= x >> 31;
        z[i] = (float)((double)(x >> 40) * 0x1p-23 - 1.0);
    }
}

int gpufft_reference(const float *in, double *out, int log2n, int inverse)
{
    size_t n = (size_t)1 << log2n;
    fftw_complex *a = fftw_malloc(sizeof *a * n), *b = fftw_malloc(sizeof *b * n);
    if (!a || !b) {
        fftw_free(a);
        fftw_free(b);
        return -1;
    }
    /* FFTW_FORWARD is exp(-2 pi i nk/N), FFTW_BACKWARD exp(+...), both unnormalised, as GPU_FFT. */
    fftw_plan p = fftw_plan_dft_1d((int)n, a, b, inverse ? FFTW_BACKWARD : FFTW_FORWARD, FFTW_ESTIMATE);
    if (!p) {
        fftw_free(a);
        fftw_free(b);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        a[i][0] = in[2 * i];
        a[i][1] = in[2 * i + 1];
    }
    fftw_execute(p);
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = b[i][0];
        out[2 * i + 1] = b[i][1];
    }
    fftw_destroy_plan(p);
    fftw_free(a);
    fftw_free(b);
    return 0;
}

void gpufft_err_accumulate(struct gpufft_err *e, const float *got, const double *want, size_t n)
{
    for (size_t i = 0; i < 2 * n; i++) {
        double d = (double)got[i] - want[i];
        e->num += d * d;
        e->den += want[i] * want[i];
    }
}

double gpufft_err_value(const struct gpufft_err *e)
{
    if (e->den == 0)
        return e->num == 0 ? 0 : INFINITY;
    return sqrt(e->num / e->den);
}

double gpufft_published_ppm(int log2n)
{
    /* gpu_fft.txt "Accuracy": log2(N) 8..22. */
    static const double ppm[] = {0.33, 0.46, 0.52, 0.59, 0.78, 0.83, 0.92, 0.98,
                                 1.0,  1.3,  1.3,  1.4,  1.5,  1.5,  1.5};
    if (log2n < GPUFFT_MIN_LOG2N || log2n > GPUFFT_MAX_LOG2N)
        return NAN;
    return ppm[log2n - GPUFFT_MIN_LOG2N];
}
