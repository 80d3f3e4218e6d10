/* GPU_FFT diagnosis (gpufft.h gpufft_diagnose, gpufft_trans_audit): an instrumented re-run that
 * localises a wrong result to the first pass whose output does not match the pass model, and the
 * audit of every issued bundle against the hardware rules GPU_FFT relies on. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpufft.h"
#include "fileout.h"
#include "gpufft_int.h"
#include "qpu_hooks.h"

/* ---- Diagnosis ----------------------------------------------------------------------------------
 * Pass model.  The shaders compute a decimation-in-time FFT: pass 1 reads the input in bit-reversed
 * order and every pass applies one codelet of radix R_p (gpufft_radices) to every group of points.
 * With M_p = R_1 * ... * R_p, the values present after pass p are the length-M_p transforms of the
 * N/M_p decimated subsequences,
 *     A_p[j][k] = sum_{n < M_p} x[n * N/M_p + j] * w^(n k / M_p),   j < N/M_p, k < M_p,
 * (w = exp(-2 pi i) forward, exp(+2 pi i) inverse), which follow from pass p-1 by
 *     A_p[j][k + M_{p-1} m] = sum_{i < R_p} w^(i k / M_p) A_{p-1}[j + i N/M_p][k] w^(i m / R_p).
 * Where the shaders put each value in memory (the "bit-rotated" writes of gpu_fft.qinc) is not
 * modelled: a pass is correct when every element of its output buffer was stored during the pass and
 * is, to within DIAG_TOL of the rms magnitude, an A_p value not matched by another element (rounding
 * errors are ~1e-6 of the rms; with random input the values are distinct, and the nearest unmatched
 * value is taken when two lie closer than the tolerance).  A_P is the transform itself, in natural
 * order.  Every pass of every shader (log2 N = 8..22) matches this model in a correct run.
 *
 * Instrumentation: the run loop is qpu_run's (round-robin, one bundle per QPU per round), but every
 * hook call of the generated simulator goes through the generic hook interface (runtime/sim/sim.h
 * struct tsr_sim_hooks) to `diag_hook`, which forwards it to the QPU's own hooks (qpu_hooks.c) and
 * records VPM setups and writes (which QPU, bundle and round wrote each VPM word) and VDW DMAs
 * (which memory words came from which VPM words), and feeds every issued bundle to the rule audit.
 * A pass of job 0 ends when a VDW goes to another buffer than the pass's (only the master stores,
 * after every slave has synchronised with it); its buffer is then checked against A_p. */

#define DIAG_TOL 3e-5          /* match tolerance, relative to the rms of the pass's values */
#define DIAG_UNKNOWN 0u        /* provenance id 0: not known */

/* Hook indices of the generated simulator: the order of the `hook` declarations in
 * targets/qpu/qpu.mdl ("Hooks"), as its hk_* functions pass them. */
enum { HK_IO_READ, HK_IO_WRITE, HK_SIGNAL, HK_SIGNAL_R4, HK_SEMAPHORE, HK_R4_BUSY, HK_COUNT };

/* Rules of the audit (see "rule audit" below; the enum is in gpufft.h). */
static const char *const audit_names[GPUFFT_AUDIT_RULES] = {
    "rotation right after a write to the rotated accumulator",
    "vr_setup/vw_setup together or with a VPM access",
    "uniform read within 2 instructions of a unif_addr write",
    "branch within 2 instructions of a branch",
    "TMU write within 3 instructions of a tmu_noswap write",
    "uniform/VPM access or regfile write in a thread end's slots",
    "r4 written within 2 instructions of an SFU write",
    "more than one TMU/TLB/SFU/mutex/semaphore access in one instruction",
};

struct diag_event { /* one VPM write or one VDW */
    uint64_t round;
    uint32_t pc;
    uint16_t qpu;
    uint16_t pass;  /* VDW: the pass of job 0 it belongs to (0: none) */
};

struct diag_prov { /* per 32-bit memory word of job 0's two buffers */
    uint32_t vdw, vpmw; /* event ids (1-based), DIAG_UNKNOWN if none */
};

struct diag;
struct diag_qpu {
    struct diag *d;
    struct qpu_sim *sim;
    struct qpu_hooks_ctx hctx;
    unsigned q;
    const struct qpu_inst *inst; /* the bundle being issued (for qpu_hook_ready / retire) */
    struct tsr_sim_hooks fns;
    struct qpu_vpm_generic wr;   /* generic write setup, as the peripheral decoded it */
    int wr_set;
    uint32_t vdw_setup, vdw_stride;
    int vdw_set;
    char name[16];
    uint32_t pc;                 /* address of the bundle being issued */
    struct gpufft_audit audit;
};

struct diag {
    struct gpufft *f;             /* the batch whose job 0 is checked pass by pass; NULL: audit only */
    struct gpufft_mem *mm;
    const struct gpufft_code *code;
    unsigned nqpus;
    FILE *out;
    uint64_t round;
    size_t n;                     /* points */
    int radix[4], passes, inverse;
    struct diag_event *vpmw, *vdw; /* logs, index 0 unused */
    size_t nvpmw, capvpmw, nvdw, capvdw;
    uint32_t vpm_prov[QPU_VPM_ROWS * QPU_VPM_ROW_WORDS];
    struct diag_prov *prov;       /* 2 buffers x 2n words: ping job 0, then pong job 0 */
    int cur_buf, pass, first_bad, oom, wrong_buf;
    double *a_prev, *a_cur;       /* A_{p-1}, A_p: n complex each */
    int a_pass;                   /* pass A_prev belongs to */
    struct qpu_inst *dc;          /* decoded program, per 64-bit instruction */
    uint8_t *dc_ok;
    uint64_t audit_count[GPUFFT_AUDIT_RULES]; /* rule audit: violations, and the first of each */
    struct diag_event audit_first[GPUFFT_AUDIT_RULES];
    struct diag_qpu qpu[GPUFFT_QPUS];
};

static uint32_t log_event(struct diag *d, int vdw, unsigned q, uint32_t pc)
{
    struct diag_event **log = vdw ? &d->vdw : &d->vpmw;
    size_t *n = vdw ? &d->nvdw : &d->nvpmw, *cap = vdw ? &d->capvdw : &d->capvpmw;
    if (*n + 1 >= *cap) {
        size_t nc = *cap ? 2 * *cap : 4096;
        struct diag_event *p = realloc(*log, nc * sizeof *p);
        if (!p) {
            d->oom = 1;
            return DIAG_UNKNOWN;
        }
        *log = p;
        *cap = nc;
        if (*n == 0)
            *n = 1; /* id 0 is DIAG_UNKNOWN */
    }
    struct diag_event *e = &(*log)[*n];
    e->round = d->round;
    e->pc = pc;
    e->qpu = (uint16_t)q;
    e->pass = (uint16_t)(d->pass > 0 ? d->pass : 0);
    return (uint32_t)(*n)++;
}

/* A generic 32-bit VPM write of the vector at ADDR (qpu_periph.h struct qpu_vpm_generic; the lane
 * layout of qpu_vpm.c vpm_lane_loc for SIZE 2): horizontal = row ADDR[5:0], lane i in word i;
 * vertical = column ADDR[3:0] of rows ADDR[5:4]*16 + i. */
static void diag_vpm_write(struct diag_qpu *dq, uint16_t lanemask)
{
    struct diag *d = dq->d;
    uint32_t id = log_event(d, 0, dq->q, dq->sim->pc);
    unsigned a = dq->wr.addr;
    for (unsigned i = 0; i < QPU_LANES; i++) {
        if (!(lanemask & (1u << i)))
            continue;
        unsigned row, word;
        if (dq->wr.horiz) {
            row = a & 63u;
            word = i;
        } else {
            row = ((a >> 4) & 3u) * 16u + i;
            word = a & 15u;
        }
        d->vpm_prov[row * QPU_VPM_ROW_WORDS + word] = dq->wr.size == 2 ? id : DIAG_UNKNOWN;
    }
    dq->wr.addr = (a + dq->wr.stride) & 0xFFu;
}

static int diag_check_pass(struct diag *d, int buf);

/* Which of job 0's buffers holds bus address a: 0 ping, 1 pong, -1 neither. */
static int diag_buffer(const struct diag *d, uint32_t a, uint32_t *word)
{
    if (!d->f)
        return -1;
    uint32_t phys = a & ~GPUFFT_BUS_ALIAS, bytes = (uint32_t)(8 * d->n);
    if (phys >= d->f->ping && phys - d->f->ping < bytes) {
        *word = (phys - d->f->ping) / 4;
        return 0;
    }
    if (phys >= d->f->pong && phys - d->f->pong < bytes) {
        *word = (phys - d->f->pong) / 4;
        return 1;
    }
    return -1;
}

/* A VDW of 32-bit horizontal rows (qpu_vdma.c qpu_vdw_start, BLOCKMODE 0): memory row u of DEPTH
 * words at addr + u * (4 DEPTH + STRIDE) comes from VPM row Y + u, words X.. */
static void diag_vdw(struct diag_qpu *dq, uint32_t addr)
{
    struct diag *d = dq->d;
    uint32_t w0;
    int buf = diag_buffer(d, addr, &w0);
    if (buf != d->cur_buf) { /* the master moved on: the previous pass is complete */
        if (d->cur_buf >= 0 && d->first_bad == 0)
            diag_check_pass(d, d->cur_buf);
        if (buf >= 0 && d->cur_buf != -1) {
            d->pass++;
            if (buf != (d->pass & 1) && !d->wrong_buf)
                d->wrong_buf = d->pass;
        }
        d->cur_buf = buf == -1 || d->cur_buf == -1 ? -1 : buf;
    }
    uint32_t id = log_event(d, 1, dq->q, dq->sim->pc);
    if (!dq->vdw_set)
        return;
    struct qpu_vdw_setup s;
    qpu_vpm_decode_vdw(dq->vdw_setup, &s);
    int simple = s.horiz && s.width == 4 && !qpu_vdw_blockmode(dq->vdw_stride);
    uint64_t step = (uint64_t)s.depth * s.width + qpu_vdw_stride(dq->vdw_stride);
    for (unsigned u = 0; u < s.units; u++)
        for (unsigned e = 0; e < s.depth; e++) {
            uint32_t w;
            int b = diag_buffer(d, (uint32_t)(addr + u * step + 4u * e), &w);
            if (b < 0)
                continue;
            struct diag_prov *pv = &d->prov[(size_t)b * 2 * d->n + w];
            pv->vdw = id;
            pv->vpmw = simple && s.y + u < QPU_VPM_ROWS && s.x + e < QPU_VPM_ROW_WORDS
                           ? d->vpm_prov[(s.y + u) * QPU_VPM_ROW_WORDS + s.x + e]
                           : DIAG_UNKNOWN;
        }
}

/* ---- rule audit -------------------------------------------------------------------------------
 * A second opinion on rules of ../shared/isa/qpu.md that the simulator does not report (a tiny
 * program breaking each of them runs without a report), checked on every bundle each QPU issues,
 * in issue order, from the raw instruction bits (qpu.md "Encoding facts" field layout), independently
 * of targets/qpu/qpu.mdl. */
static unsigned bits(uint64_t w, unsigned hi, unsigned lo)
{
    return (unsigned)((w >> lo) & ((1ull << (hi - lo + 1)) - 1));
}

/* What one raw bundle does, for the audit. */
struct raw_use {
    int branch, thrend, alu, sema, ldtmu, loads_r4;
    unsigned wr[2], wside[2];   /* addresses written by the add / mul half (64 = none), regfile side */
    int reads_unif, reads_vpm, mutex, rotate;  /* rotate: 0 none, 1..15 by n, 16 by r5 */
    unsigned rot_mux[2];        /* mul operand muxes of a rotation */
};

static void raw_decode(uint64_t w, struct raw_use *u)
{
    memset(u, 0, sizeof *u);
    unsigned sig = bits(w, 63, 60), ws = bits(w, 44, 44);
    u->wr[0] = u->wr[1] = 64;
    if (sig == 15) {
        u->branch = 1;
        return;
    }
    /* both halves write (condition != never): add to A (ws 0) / B; mul to B (ws 0) / A */
    if (bits(w, 51, 49))
        u->wr[0] = bits(w, 43, 38);
    if (bits(w, 48, 46))
        u->wr[1] = bits(w, 37, 32);
    u->wside[0] = ws;
    u->wside[1] = !ws;
    if (sig == 14) {
        u->sema = bits(w, 59, 57) == 4;
        return;
    }
    u->alu = 1;
    u->thrend = sig == 3;
    u->ldtmu = sig == 10 || sig == 11;
    u->loads_r4 = (sig >= 7 && sig <= 12); /* loadcv, loadc, ldcend, ldtmu0/1, loadam: r4 */
    unsigned op_add = bits(w, 28, 24), op_mul = bits(w, 31, 29), ra = bits(w, 23, 18), rb = bits(w, 17, 12);
    unsigned mux[4] = {bits(w, 11, 9), bits(w, 8, 6), bits(w, 5, 3), bits(w, 2, 0)};
    int used_a = 0, used_b = 0;
    for (int i = 0; i < 4; i++) {
        if ((i < 2 ? op_add : op_mul) == 0)
            continue;
        used_a |= mux[i] == 6;
        used_b |= mux[i] == 7;
    }
    if (sig == 13)
        used_b = 0; /* small immediate: no regfile-B read */
    u->reads_unif = (used_a && ra == 32) || (used_b && rb == 32);
    u->reads_vpm = (used_a && ra == 48) || (used_b && rb == 48);
    u->mutex = (used_a && ra == 51) || (used_b && rb == 51);
    if (sig == 13 && rb >= 48 && op_mul != 0) {
        u->rotate = rb == 48 ? 16 : (int)(rb - 48);
        u->rot_mux[0] = mux[2];
        u->rot_mux[1] = mux[3];
    }
}

/* Does the bundle write I/O address a (either half, either side)? */
static int writes(const struct raw_use *u, unsigned a)
{
    return u->wr[0] == a || u->wr[1] == a;
}

unsigned gpufft_audit_bundle(struct gpufft_audit *a, uint64_t w)
{
    unsigned hit = 0;
    struct raw_use u, p[2];
    raw_decode(w, &u);
    int n = a->issued < 2 ? (int)a->issued : 2; /* every rule looks at most 2 bundles back */
    for (int i = 0; i < n; i++)
        raw_decode(a->hist[i], &p[i]);
    if (u.rotate && n >= 1) {
        for (int k = 0; k < 2; k++)
            if (u.rot_mux[k] < 4 && writes(&p[0], 32 + u.rot_mux[k]))
                hit |= 1u << GPUFFT_AUDIT_ROTATE;
        if (u.rotate == 16 && writes(&p[0], 37))
            hit |= 1u << GPUFFT_AUDIT_ROTATE;
    }
    int vr = 0, vw = 0, vpm_w = writes(&u, 48);
    for (int h = 0; h < 2; h++)
        if (u.wr[h] == 49)
            *(u.wside[h] ? &vw : &vr) = 1;
    if ((vr && vw) || ((vr || vw) && (vpm_w || u.reads_vpm)))
        hit |= 1u << GPUFFT_AUDIT_VPM;
    for (int i = 0; i < n; i++)
        if (u.reads_unif && writes(&p[i], 40))
            hit |= 1u << GPUFFT_AUDIT_UNIF;
    for (int i = 0; i < n; i++)
        if (u.branch && p[i].branch)
            hit |= 1u << GPUFFT_AUDIT_BRANCH;
    int tmu_w = 0;
    for (int h = 0; h < 2; h++)
        tmu_w += u.wr[h] >= 56 && u.wr[h] <= 63;
    for (int i = 0; i < n; i++) /* written at N, a TMU write may issue from N+3 */
        if (tmu_w && writes(&p[i], 36))
            hit |= 1u << GPUFFT_AUDIT_NOSWAP;
    int slot = u.thrend || (n >= 1 && p[0].thrend) || (n >= 2 && p[1].thrend);
    if (slot && (u.reads_unif || u.reads_vpm || vpm_w || vr || vw))
        hit |= 1u << GPUFFT_AUDIT_THREND;
    if (u.thrend && (u.wr[0] < 32 || u.wr[1] < 32))
        hit |= 1u << GPUFFT_AUDIT_THREND;
    int sfu_w = 0;
    for (int h = 0; h < 2; h++)
        sfu_w += u.wr[h] >= 52 && u.wr[h] <= 55;
    for (int i = 0; i < n; i++) {
        int prev_sfu = 0;
        for (int h = 0; h < 2; h++)
            prev_sfu += p[i].wr[h] >= 52 && p[i].wr[h] <= 55;
        if (prev_sfu && (sfu_w || u.loads_r4))
            hit |= 1u << GPUFFT_AUDIT_SFU;
    }
    int other = u.sema + u.ldtmu + u.mutex + writes(&u, 51); /* semaphore, TMU load, mutex */
    for (int h = 0; h < 2; h++)
        other += u.wr[h] >= 43 && u.wr[h] <= 47; /* TLB */
    if (tmu_w + sfu_w + other > 1)
        hit |= 1u << GPUFFT_AUDIT_ONE_UNIT;
    a->hist[1] = a->hist[0];
    a->hist[0] = w;
    a->issued++;
    return hit;
}

const char *gpufft_audit_rule(int rule)
{
    return rule >= 0 && rule < GPUFFT_AUDIT_RULES ? audit_names[rule] : NULL;
}

static void audit_issue(struct diag_qpu *dq, uint64_t w)
{
    struct diag *d = dq->d;
    unsigned hit = gpufft_audit_bundle(&dq->audit, w);
    for (int r = 0; r < GPUFFT_AUDIT_RULES; r++)
        if ((hit >> r) & 1 && !d->audit_count[r]++)
            d->audit_first[r] = (struct diag_event){.round = d->round, .pc = dq->pc, .qpu = (uint16_t)dq->q};
}

static int diag_hook(void *ctx, int hook, enum tsr_hook_kind kind, const uint32_t *args, int nargs, uint32_t *v,
                     uint32_t lanemask)
{
    struct diag_qpu *dq = ctx;
    struct qpu_sim *S = dq->sim;
    uint32_t sc[QPU_LANES] = {0};
    (void)kind;
    (void)nargs;
    switch (hook) {
    case TSR_HOOK_READY:
        if (S->pc % 8 || S->pc / 4 + 2 > dq->d->code->nwords)
            return 0; /* the simulator reports the bad fetch itself */
        struct diag *d = dq->d;
        if (!d->dc_ok[S->pc / 8]) {
            qpu_decode(d->code->w + S->pc / 4, &d->dc[S->pc / 8]);
            d->dc_ok[S->pc / 8] = 1;
        }
        dq->inst = &d->dc[S->pc / 8];
        dq->pc = S->pc;
        return qpu_hook_ready(S, dq->inst);
    case TSR_HOOK_RETIRE: {
        const uint32_t *w = dq->d->code->w + dq->pc / 4;
        audit_issue(dq, (uint64_t)w[0] | (uint64_t)w[1] << 32);
        return qpu_hook_retire(S, dq->inst);
    }
    case HK_IO_READ:
        return qpu_hook_io_read(S, args[0], args[1], v ? v : sc, lanemask);
    case HK_IO_WRITE: {
        int rc = qpu_hook_io_write(S, args[0], args[1], v ? v : sc, lanemask);
        if (rc == 0 && v) {
            unsigned file = args[0], addr = args[1];
            if (addr == 48) {
                if (dq->wr_set)
                    diag_vpm_write(dq, (uint16_t)lanemask);
            } else if (addr == 49 && file == 1) {
                int k = qpu_vpm_setup_kind(v[0], 0);
                if (k == QPU_SETUP_GENERIC) {
                    qpu_vpm_decode_generic(v[0], 0, &dq->wr);
                    dq->wr_set = 1;
                } else if (k == QPU_SETUP_DMA) {
                    dq->vdw_setup = v[0];
                    dq->vdw_set = 1;
                } else if (k == QPU_SETUP_STRIDE) {
                    dq->vdw_stride = v[0];
                }
            } else if (addr == 50 && file == 1) {
                diag_vdw(dq, v[0]);
            }
        }
        return rc;
    }
    case HK_SIGNAL:
        return qpu_hook_signal(S, args[0], lanemask);
    case HK_SIGNAL_R4:
        return qpu_hook_signal_r4(S, args[0], v ? v : sc, lanemask);
    case HK_SEMAPHORE:
        return qpu_hook_semaphore(S, args[0], args[1], lanemask);
    case HK_R4_BUSY:
        return qpu_hook_r4_busy(S, lanemask);
    default:
        return tsr_sim_error(&S->core, S->pc, "gpufft diagnosis: unknown hook %d", hook);
    }
}

/* A_{pass} from A_{pass-1} (see "Pass model"); A_0 is the input. */
static int diag_next_a(struct diag *d)
{
    size_t n = d->n, mprev = 1;
    for (int p = 0; p < d->a_pass; p++)
        mprev *= (size_t)d->radix[p];
    size_t r = (size_t)d->radix[d->a_pass], m = mprev * r, groups = n / m;
    double sign = d->inverse ? 1 : -1, *tw = malloc(2 * m * sizeof *tw), *rt = malloc(2 * r * sizeof *rt);
    double *t = malloc(2 * r * sizeof *t);
    if (!tw || !rt || !t) {
        free(tw);
        free(rt);
        free(t);
        return -1;
    }
    for (size_t i = 0; i < m; i++) {
        double a = sign * 2 * 3.14159265358979323846 * (double)i / (double)m;
        tw[2 * i] = cos(a);
        tw[2 * i + 1] = sin(a);
    }
    for (size_t i = 0; i < r; i++) {
        rt[2 * i] = tw[2 * i * mprev];
        rt[2 * i + 1] = tw[2 * i * mprev + 1];
    }
    for (size_t j = 0; j < groups; j++)
        for (size_t k = 0; k < mprev; k++) {
            for (size_t i = 0; i < r; i++) {
                const double *x = &d->a_prev[2 * ((j + i * groups) * mprev + k)], *w = &tw[2 * i * k];
                t[2 * i] = x[0] * w[0] - x[1] * w[1];
                t[2 * i + 1] = x[0] * w[1] + x[1] * w[0];
            }
            for (size_t mm = 0; mm < r; mm++) {
                double re = 0, im = 0;
                for (size_t i = 0; i < r; i++) {
                    const double *w = &rt[2 * ((i * mm) % r)];
                    re += t[2 * i] * w[0] - t[2 * i + 1] * w[1];
                    im += t[2 * i] * w[1] + t[2 * i + 1] * w[0];
                }
                double *y = &d->a_cur[2 * (j * m + k + mprev * mm)];
                y[0] = re;
                y[1] = im;
            }
        }
    free(tw);
    free(rt);
    free(t);
    double *sw = d->a_prev;
    d->a_prev = d->a_cur;
    d->a_cur = sw;
    d->a_pass++;
    return 0;
}

static void diag_event_text(const struct diag *d, const struct diag_event *e, const char *what)
{
    char text[600];
    gpufft_bundle_text(d->code, e->pc, text, sizeof text);
    fprintf(d->out, "      %s qpu%u in round %" PRIu64 ": %s\n", what, e->qpu, e->round, text);
}

/* The expected values of a pass, indexed for "which expected value is within tol of this one":
 * a hash of grid cells of side tol (a value's match is in its cell or one of the 8 around it). */
struct value_index {
    const double *a; /* n complex */
    double tol;
    size_t mask;     /* hash size - 1 */
    int32_t *head, *next;
};

static size_t vi_hash(const struct value_index *x, int64_t cx, int64_t cy)
{
    return (size_t)(((uint64_t)cx * 0x9e3779b97f4a7c15u) ^ ((uint64_t)cy * 0xc2b2ae3d27d4eb4fu)) & x->mask;
}

static int64_t vi_cell(const struct value_index *x, double v)
{
    return (int64_t)floor(v / x->tol);
}

static int vi_build(struct value_index *x, const double *a, size_t n, double tol)
{
    size_t hsize = 1;
    while (hsize < 2 * n)
        hsize <<= 1;
    x->a = a;
    x->tol = tol;
    x->mask = hsize - 1;
    x->head = malloc(hsize * sizeof *x->head);
    x->next = malloc(n * sizeof *x->next);
    if (!x->head || !x->next)
        return -1;
    memset(x->head, 0xff, hsize * sizeof *x->head);
    for (size_t i = 0; i < n; i++) {
        size_t h = vi_hash(x, vi_cell(x, a[2 * i]), vi_cell(x, a[2 * i + 1]));
        x->next[i] = x->head[h];
        x->head[h] = (int32_t)i;
    }
    return 0;
}

/* Index of the expected value nearest to (re, im) among those within tol that are not yet `used`,
 * -1 if there is none; *taken is set when only used ones are within tol. */
static int32_t vi_find(const struct value_index *x, double re, double im, const uint8_t *used, int *taken,
                       double *dist)
{
    int32_t bi = -1;
    double best = INFINITY;
    *taken = 0;
    if (!isfinite(re) || !isfinite(im))
        return -1;
    int64_t cx = vi_cell(x, re), cy = vi_cell(x, im);
    for (int dx = -1; dx <= 1; dx++)
        for (int dy = -1; dy <= 1; dy++)
            for (int32_t k = x->head[vi_hash(x, cx + dx, cy + dy)]; k >= 0; k = x->next[k]) {
                double e = hypot(x->a[2 * k] - re, x->a[2 * k + 1] - im);
                if (e > x->tol)
                    continue;
                if (used[k]) {
                    *taken = 1;
                    continue;
                }
                if (e < best) {
                    best = e;
                    bi = k;
                }
            }
    *dist = best;
    return bi;
}

static void vi_free(struct value_index *x)
{
    free(x->head);
    free(x->next);
}

/* Prints where element i (re and im words, provenance pv[0..1]) came from. */
static void diag_show(const struct diag *d, const char *label, size_t i, const float *got,
                      const struct diag_prov *pv)
{
    fprintf(d->out, "    %s: element %zu = (%.9g, %.9g)\n", label, i, got[2 * i], got[2 * i + 1]);
    for (int c = 0; c < 2; c++) {
        char what[64];
        const char *part = c ? "im" : "re";
        if (pv[c].vpmw != DIAG_UNKNOWN) {
            snprintf(what, sizeof what, "%s produced (VPM write) by", part);
            diag_event_text(d, &d->vpmw[pv[c].vpmw], what);
        }
        if (pv[c].vdw != DIAG_UNKNOWN) {
            snprintf(what, sizeof what, "%s stored (VDW, pass %u) by", part, d->vdw[pv[c].vdw].pass);
            diag_event_text(d, &d->vdw[pv[c].vdw], what);
        } else {
            fprintf(d->out, "      %s never stored by a VDW in this run\n", part);
        }
    }
}

/* Checks buffer buf (0 ping, 1 pong) of job 0 against A_{d->pass}; reports; sets first_bad.  An
 * element is wrong when no VDW of this pass wrote it ("stale"), when no expected value is within
 * tol of it, or when its expected value was already matched by an earlier element ("repeat"). */
static int diag_check_pass(struct diag *d, int buf)
{
    int p = d->pass;
    FILE *o = d->out;
    if (p < 1 || p > d->passes) {
        fprintf(o, "  pass %d: the shader runs more passes than gpu_fft_twiddles.c lists (%d)\n", p, d->passes);
        d->first_bad = p;
        return -1;
    }
    while (d->a_pass < p)
        if (diag_next_a(d)) {
            d->oom = 1;
            return -1;
        }
    size_t n = d->n;
    double ss = 0;
    for (size_t i = 0; i < 2 * n; i++)
        ss += d->a_prev[i] * d->a_prev[i];
    double rms = sqrt(ss / (double)n);
    struct value_index vi;
    uint8_t *used = calloc(n, 1);
    if (vi_build(&vi, d->a_prev, n, DIAG_TOL * rms) || !used) {
        vi_free(&vi);
        free(used);
        d->oom = 1;
        return -1;
    }
    const float *got = (const float *)(const void *)(d->f->mm->mem + (buf ? d->f->pong : d->f->ping));
    const struct diag_prov *prov = &d->prov[(size_t)buf * 2 * n];
    size_t nomatch = 0, dup = 0, stale = 0, noprov = 0, first = SIZE_MAX, early = SIZE_MAX;
    uint64_t early_round = UINT64_MAX, byqpu[GPUFFT_QPUS + 1] = {0};
    double maxdev = 0;
    for (size_t i = 0; i < n; i++) {
        const struct diag_prov *pv = &prov[2 * i];
        double dist;
        int taken;
        int32_t k = vi_find(&vi, got[2 * i], got[2 * i + 1], used, &taken, &dist);
        if (pv[0].vpmw == DIAG_UNKNOWN || pv[1].vpmw == DIAG_UNKNOWN)
            noprov++;
        if (pv->vdw == DIAG_UNKNOWN || d->vdw[pv->vdw].pass != p)
            stale++;
        else if (k < 0 && taken)
            dup++;
        else if (k < 0)
            nomatch++;
        else {
            used[k] = 1;
            maxdev = dist / rms > maxdev ? dist / rms : maxdev;
            continue;
        }
        if (first == SIZE_MAX)
            first = i;
        uint32_t src = pv[0].vpmw != DIAG_UNKNOWN ? pv[0].vpmw : pv[1].vpmw;
        byqpu[src != DIAG_UNKNOWN ? d->vpmw[src].qpu : GPUFFT_QPUS]++;
        if (src != DIAG_UNKNOWN && d->vpmw[src].round < early_round) {
            early_round = d->vpmw[src].round;
            early = i;
        }
    }
    vi_free(&vi);
    free(used);
    size_t bad = nomatch + dup + stale;
    fprintf(o, "  pass %d (radix %d, %s buffer): ", p, d->radix[p - 1], buf ? "pong" : "ping");
    if (!bad) {
        fprintf(o, "ok: all %zu elements are the expected partial transforms (largest deviation %.2g of rms)", n,
                maxdev);
        if (noprov)
            fprintf(o, "; %zu without a known VPM write", noprov);
        fprintf(o, "\n");
        return 0;
    }
    d->first_bad = p;
    fprintf(o, "WRONG: %zu of %zu elements: %zu match no expected value, %zu repeat one, %zu not stored in this "
               "pass (%zu without a known VPM write)\n",
            bad, n, nomatch, dup, stale, noprov);
    fprintf(o, "    wrong elements by the QPU whose VPM write produced them:");
    for (unsigned q = 0; q <= GPUFFT_QPUS; q++)
        if (byqpu[q])
            fprintf(o, " %s%u: %" PRIu64, q < GPUFFT_QPUS ? "qpu" : "unknown", q < GPUFFT_QPUS ? q : 0, byqpu[q]);
    fprintf(o, "\n");
    if (early != SIZE_MAX)
        diag_show(d, "first wrong in time", early, got, &prov[2 * early]);
    if (first != early)
        diag_show(d, "first wrong in memory order", first, got, &prov[2 * first]);
    return -1;
}

static void diag_trace_text(void *ctx, uint32_t pc, const uint32_t *words, char *buf, size_t n)
{
    (void)ctx;
    struct tsr_buf t = {0};
    qpu_disasm(words, pc, &t);
    snprintf(buf, n, "%.*s", (int)t.len, t.data ? t.data : "");
    tsr_buf_free(&t);
}

/* The instrumented loop: qpu_run's round-robin over d->nqpus QPUs of d->mm with their uniform
 * streams at unif_at[] (physical), every hook call going through diag_hook.  Returns the status
 * (TSR_SIM_HALTED when every QPU ended) and reports a failure, naming job 0's pass when known. */
static int diag_loop(struct diag *d, const uint32_t *unif_at, FILE *trace)
{
    struct qpu_sim *sims = calloc(d->nqpus, sizeof *sims);
    if (!sims) {
        d->oom = 1;
        return TSR_SIM_ERROR;
    }
    for (unsigned q = 0; q < d->nqpus; q++) {
        struct diag_qpu *dq = &d->qpu[q];
        qpu_sim_init(&sims[q]);
        qpu_hooks_attach(&sims[q], &dq->hctx, d->mm->m, q, gpufft_bus(unif_at[q]));
        dq->d = d;
        dq->sim = &sims[q];
        dq->q = q;
        dq->fns.call = diag_hook;
        dq->fns.ctx = dq;
        sims[q].hookfns = &dq->fns;
        snprintf(dq->name, sizeof dq->name, "qpu%u", q);
        sims[q].core.trace = trace;
        sims[q].core.trace_name = dq->name;
        sims[q].core.trace_text = diag_trace_text;
    }
    int ended[GPUFFT_QPUS] = {0}, status = TSR_SIM_OK;
    unsigned active = d->nqpus, failq = 0;
    uint64_t idle = 0;
    while (active > 0 && status == TSR_SIM_OK && !d->oom) {
        int progress = 0;
        d->round++;
        for (unsigned q = 0; q < d->nqpus && status == TSR_SIM_OK; q++) {
            if (ended[q])
                continue;
            int rc = qpu_sim_step(&sims[q], d->code->w, d->code->nwords);
            if (rc == TSR_SIM_OK || rc == TSR_SIM_HALTED) {
                progress = 1;
                if (rc == TSR_SIM_HALTED) {
                    ended[q] = 1;
                    active--;
                }
            } else if (rc != TSR_SIM_STALL) {
                status = rc;
                failq = q;
            }
        }
        idle = progress ? 0 : idle + 1;
        if (idle >= QPU_RUN_IDLE_LIMIT)
            status = TSR_SIM_STALL;
    }
    if (status == TSR_SIM_OK && active == 0)
        status = TSR_SIM_HALTED;
    char text[600];
    if (status == TSR_SIM_STALL) {
        fprintf(d->out, "  deadlock after %" PRIu64 " rounds; waiting:\n", d->round);
        for (unsigned q = 0; q < d->nqpus; q++)
            if (!ended[q]) {
                gpufft_bundle_text(d->code, sims[q].pc, text, sizeof text);
                fprintf(d->out, "      qpu%u at %s\n", q, text);
            }
    } else if (status != TSR_SIM_HALTED && !d->oom) {
        gpufft_bundle_text(d->code, sims[failq].core.err_pc, text, sizeof text);
        fprintf(d->out, "  %s on qpu%u in round %" PRIu64 ", bundle %s:\n    %s\n",
                status == TSR_SIM_HAZARD ? "hazard" : "error", failq, d->round, text, sims[failq].core.msg);
    }
    if (status != TSR_SIM_HALTED && d->f) {
        if (d->nvdw > 1)
            fprintf(d->out, "  job 0's last store before it: pass %d's VDW in round %" PRIu64 " (so the failure is "
                            "in pass %d or, if that pass was complete, the next)\n",
                    d->pass, d->vdw[d->nvdw - 1].round, d->pass);
        else
            fprintf(d->out, "  job 0 had stored nothing yet: the failure is in pass 1\n");
    }
    for (unsigned q = 0; q < d->nqpus; q++)
        qpu_sim_fini(&sims[q]);
    free(sims);
    return status;
}

/* Prints the rule audit's findings; returns the number of rules broken. */
static int diag_audit_report(const struct diag *d)
{
    uint64_t audited = 0;
    int broken = 0;
    for (unsigned q = 0; q < d->nqpus; q++)
        audited += d->qpu[q].audit.issued;
    for (int r = 0; r < GPUFFT_AUDIT_RULES; r++)
        broken += d->audit_count[r] != 0;
    fprintf(d->out, "  rule audit of the %" PRIu64 " bundles issued (rules of ../shared/isa/qpu.md the simulator "
                    "does not report): %s\n",
            audited, broken ? "BROKEN:" : "none broken");
    for (int r = 0; r < GPUFFT_AUDIT_RULES; r++)
        if (d->audit_count[r]) {
            char what[160];
            snprintf(what, sizeof what, "%s: %" PRIu64 " times, first", audit_names[r], d->audit_count[r]);
            diag_event_text(d, &d->audit_first[r], what);
        }
    return broken;
}

static struct diag *diag_new(struct gpufft_mem *mm, const struct gpufft_code *code, unsigned nqpus, size_t n,
                             FILE *out)
{
    struct diag *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->mm = mm;
    d->code = code;
    d->nqpus = nqpus;
    d->out = out;
    d->n = n;
    d->cur_buf = -2;
    d->dc = calloc(code->nwords / 2 + 1, sizeof *d->dc);
    d->dc_ok = calloc(code->nwords / 2 + 1, 1);
    if (n) {
        d->prov = calloc(4 * n, sizeof *d->prov);
        d->a_prev = malloc(2 * n * sizeof *d->a_prev);
        d->a_cur = malloc(2 * n * sizeof *d->a_cur);
    }
    if (!d->dc || !d->dc_ok || (n && (!d->prov || !d->a_prev || !d->a_cur)))
        d->oom = 1;
    return d;
}

static void diag_free(struct diag *d)
{
    if (!d)
        return;
    free(d->vpmw);
    free(d->vdw);
    free(d->prov);
    free(d->a_prev);
    free(d->a_cur);
    free(d->dc);
    free(d->dc_ok);
    free(d);
}

int gpufft_diagnose(struct gpufft *f, uint64_t seed, FILE *out, FILE *trace, char *err)
{
    size_t n = (size_t)1 << f->shape.log2n;
    struct diag *d = diag_new(f->mm, f->code, GPUFFT_QPUS, n, out);
    if (!d || d->oom) {
        diag_free(d);
        return gpufft_fail(err, "out of memory for the diagnosis of 2^%d points", f->shape.log2n);
    }
    d->f = f;
    d->passes = gpufft_radices(f->shape.log2n, d->radix);
    d->inverse = f->inverse;
    /* job 0 only: its input, and uniform streams that end after it (words 5 and 6 of each stream
     * are job 1's buffers when jobs > 1; they are put back afterwards) */
    float *in = gpufft_in(f, 0);
    gpufft_random(in, n, seed);
    for (size_t i = 0; i < 2 * n; i++)
        d->a_prev[i] = in[i];
    uint32_t saved[GPUFFT_QPUS][2];
    for (unsigned q = 0; q < GPUFFT_QPUS; q++) {
        memcpy(saved[q], f->mm->mem + f->unif_at[q] + 20, 8);
        gpufft_put32(f->mm, f->unif_at[q] + 20, 0);
        gpufft_put32(f->mm, f->unif_at[q] + 24, q == 0);
    }
    fprintf(out, "  job 0 re-run on random input (seed %" PRIu64 ") with every VPM write and VDW recorded; "
                 "expected after each pass: the partial transforms of a decimation-in-time FFT with radices",
            seed);
    for (int p = 0; p < d->passes; p++)
        fprintf(out, " %d", d->radix[p]);
    fprintf(out, "\n");
    int status = diag_loop(d, f->unif_at, trace), rc = 0;
    if (d->oom) {
        rc = gpufft_fail(err, "out of memory during the diagnosis");
    } else if (status != TSR_SIM_HALTED) {
        rc = d->pass > 0 ? d->pass : 1;
    } else {
        if (d->cur_buf >= 0 && d->first_bad == 0)
            diag_check_pass(d, d->cur_buf);
        if (d->oom)
            rc = gpufft_fail(err, "out of memory during the diagnosis");
        else if (d->first_bad)
            rc = d->first_bad;
        else if (d->wrong_buf) {
            fprintf(out, "  pass %d wrote the wrong ping-pong buffer\n", d->wrong_buf);
            rc = d->wrong_buf;
        } else if (d->pass != d->passes) {
            fprintf(out, "  job 0 ran %d passes, gpu_fft_twiddles.c lists %d\n", d->pass, d->passes);
            rc = d->pass + 1;
        } else {
            fprintf(out, "  every pass matched (%zu VPM writes, %zu VDWs recorded)\n", d->nvpmw ? d->nvpmw - 1 : 0,
                    d->nvdw ? d->nvdw - 1 : 0);
        }
    }
    if (!d->oom)
        diag_audit_report(d);
    for (unsigned q = 0; q < GPUFFT_QPUS; q++)
        memcpy(f->mm->mem + f->unif_at[q] + 20, saved[q], 8);
    diag_free(d);
    return rc;
}

int gpufft_trans_audit(struct gpufft_trans *t, FILE *out, FILE *trace, char *err)
{
    struct diag *d = diag_new(t->mm, t->code, 1, 0, out);
    if (!d || d->oom) {
        diag_free(d);
        return gpufft_fail(err, "out of memory for the audit of %s", t->code->name);
    }
    fprintf(out, "  %s re-run on 1 QPU with the rule audit\n", t->code->name);
    int status = diag_loop(d, &t->unif_at, trace);
    int rc = d->oom ? gpufft_fail(err, "out of memory during the audit") : status != TSR_SIM_HALTED ? 1 : 0;
    if (!d->oom && diag_audit_report(d))
        rc = 1;
    diag_free(d);
    return rc;
}
