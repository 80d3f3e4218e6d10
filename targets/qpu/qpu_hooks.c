/* QPU hooks: the generated simulator's qpu_hook_* calls mapped to the peripheral model, and the
 * multi-QPU round-robin run loop (qpu_hooks.h). */
#include "qpu_hooks.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fileout.h"

static struct qpu_periph *periph(struct qpu_sim *sim)
{
    struct qpu_hooks_ctx *c = sim->hooks;
    return c ? c->p : NULL;
}

/* Maps a peripheral result to a hook result; an error keeps the peripheral's message. */
static int io_rc(struct qpu_sim *sim, struct qpu_periph *p, int rc, const char *hook)
{
    if (rc == QPU_IO_OK)
        return 0;
    if (rc == QPU_IO_STALL)
        return 1;
    const char *e = p ? qpu_periph_error(p) : NULL;
    tsr_sim_error(&sim->core, sim->pc, "%s at 0x%08" PRIx32 ": %s", hook, sim->pc,
                  e ? e : "no peripherals attached (sim->hooks is NULL)");
    return -1;
}

int qpu_hooks_attach(struct qpu_sim *sim, struct qpu_hooks_ctx *ctx, struct qpu_machine *m, unsigned qpu,
                     uint32_t uniforms_bus_addr)
{
    struct qpu_periph *p = qpu_machine_qpu(m, qpu);
    if (!p)
        return -1;
    qpu_periph_reset(p, uniforms_bus_addr);
    ctx->m = m;
    ctx->p = p;
    ctx->num = qpu;
    sim->hooks = ctx;
    return 0;
}

/* ---- the hooks named in qpu.mdl --------------------------------------------------------------------- */

int qpu_hook_io_read(struct qpu_sim *sim, uint32_t file, uint32_t addr, uint32_t out[16], uint32_t lanemask)
{
    (void)lanemask;
    struct qpu_periph *p = periph(sim);
    return io_rc(sim, p, p ? qpu_io_read(p, (int)file, addr, out) : QPU_IO_ERROR, "io_read");
}

int qpu_hook_io_write(struct qpu_sim *sim, uint32_t file, uint32_t addr, const uint32_t value[16],
                      uint32_t lanemask)
{
    struct qpu_periph *p = periph(sim);
    return io_rc(sim, p, p ? qpu_io_write(p, (int)file, addr, value, (uint16_t)lanemask) : QPU_IO_ERROR,
                 "io_write");
}

int qpu_hook_signal(struct qpu_sim *sim, uint32_t sig, uint32_t lanemask)
{
    (void)lanemask;
    struct qpu_periph *p = periph(sim);
    uint32_t r4[QPU_LANES] = {0};
    return io_rc(sim, p, p ? qpu_io_signal(p, sig, r4) : QPU_IO_ERROR, "signal");
}

int qpu_hook_signal_r4(struct qpu_sim *sim, uint32_t sig, uint32_t out[16], uint32_t lanemask)
{
    (void)lanemask;
    struct qpu_periph *p = periph(sim);
    return io_rc(sim, p, p ? qpu_io_signal(p, sig, out) : QPU_IO_ERROR, "signal");
}

int qpu_hook_semaphore(struct qpu_sim *sim, uint32_t num, uint32_t acquire, uint32_t lanemask)
{
    (void)lanemask;
    struct qpu_periph *p = periph(sim);
    return io_rc(sim, p, p ? qpu_io_semaphore(p, num, acquire != 0) : QPU_IO_ERROR, "semaphore");
}

int qpu_hook_r4_busy(struct qpu_sim *sim, uint32_t lanemask)
{
    (void)lanemask;
    struct qpu_periph *p = periph(sim);
    return p && qpu_io_r4_busy(p) ? 1 : 0;
}

/* ---- ready / retire ----------------------------------------------------------------------------------- */

/* Can the I/O access at addr (file 0 = A side, 1 = B side) proceed now? */
static int io_ready(struct qpu_periph *p, int file, uint64_t addr, int write)
{
    return addr < 32 || addr > 63 || qpu_io_ready(p, file, (unsigned)addr, write);
}

/* Reads of a mux through regfile A (6) or B (7). */
static int mux_reads(uint64_t mux, int file)
{
    return mux == (uint64_t)(6 + file);
}

/* Every I/O access the bundle may make (an over-approximation: reads through any mux that selects
 * the regfile of an operation that is not nop, writes whose condition is not `never`). */
/* Could access I/O register addr stall (qpu_io_ready: vpm, vr/vw_wait, mutex reads; vr/vw_addr writes)? */
static int may_stall(uint64_t addr)
{
    return addr >= 48 && addr <= 51;
}

static int bundle_ready(struct qpu_periph *p, const struct qpu_inst *I)
{
    const qpu_field_t *f = I->f;
    int ws = (int)(f[QPU_F_WS] & 1);
    /* most bundles touch no register that can stall */
    if (I->format == QPU_FMT_ALU && !may_stall(f[QPU_F_RADDR_A]) && !may_stall(f[QPU_F_RADDR_B]) &&
        f[QPU_F_WADDR_ADD] != 50 && f[QPU_F_WADDR_MUL] != 50)
        return 1;
    switch (I->format) {
    case QPU_FMT_ALU: {
        int add = I->op[QPU_SLOT_ADD] != QPU_NO_OP && f[QPU_F_OP_ADD] != 0;
        int mul = I->op[QPU_SLOT_MUL] != QPU_NO_OP && f[QPU_F_OP_MUL] != 0;
        for (int file = 0; file < 2; file++) {
            int reads = (add && (mux_reads(f[QPU_F_ADD_A], file) || mux_reads(f[QPU_F_ADD_B], file))) ||
                        (mul && (mux_reads(f[QPU_F_MUL_A], file) || mux_reads(f[QPU_F_MUL_B], file)));
            if (file == 1 && f[QPU_F_SIG] == 13)
                reads = 0; /* small immediate: no regfile-B read */
            if (reads && !io_ready(p, file, file ? f[QPU_F_RADDR_B] : f[QPU_F_RADDR_A], 0))
                return 0;
        }
        if (add && f[QPU_F_COND_ADD] != 0 && !io_ready(p, ws, f[QPU_F_WADDR_ADD], 1))
            return 0;
        if (mul && f[QPU_F_COND_MUL] != 0 && !io_ready(p, !ws, f[QPU_F_WADDR_MUL], 1))
            return 0;
        return 1;
    }
    case QPU_FMT_SEMA: /* the semaphore instruction also writes like a load immediate */
    case QPU_FMT_LDI:
    case QPU_FMT_LDI_PE:
        if (I->format == QPU_FMT_SEMA &&
            !qpu_io_semaphore_ready(p, (unsigned)f[QPU_F_SEM_NUM], (int)f[QPU_F_SEM_ACQ]))
            return 0;
        if (f[QPU_F_COND_ADD] != 0 && !io_ready(p, ws, f[QPU_F_WADDR_ADD], 1))
            return 0;
        if (f[QPU_F_COND_MUL] != 0 && !io_ready(p, !ws, f[QPU_F_WADDR_MUL], 1))
            return 0;
        return 1;
    default:
        return 1;
    }
}

int qpu_hook_ready(struct qpu_sim *sim, const struct qpu_inst *I)
{
    struct qpu_periph *p = periph(sim);
    if (!p || bundle_ready(p, I))
        return 0;
    qpu_io_step(p, sim->acc[4]); /* a stalled cycle: DMA and SFU make progress */
    return 1;
}

int qpu_hook_retire(struct qpu_sim *sim, const struct qpu_inst *I)
{
    (void)I;
    struct qpu_periph *p = periph(sim);
    if (!p)
        return 0;
    qpu_io_step(p, sim->acc[4]); /* an SFU result landing now is readable by the next instruction */
    if (sim->core.trace) {
        const char *w = qpu_periph_warning(p);
        if (w)
            tsr_sim_trace_note(&sim->core, "warning: %s", w);
    }
    return 0;
}

int qpu_hooks_dispatch(struct qpu_sim *sim, const struct qpu_inst *inst, int hook, const uint32_t *args, int nargs,
                       uint32_t *v, uint32_t lanemask)
{
    uint32_t scratch[QPU_LANES] = {0};
    struct qpu_inst dec;
    if (!v)
        v = scratch;
    if ((hook == TSR_HOOK_READY || hook == TSR_HOOK_RETIRE) && !inst) {
        if (!args || nargs != QPU_NWORDS)
            return -1;
        qpu_decode(args, &dec); /* the generic interface passes the bundle's words */
        inst = &dec;
    }
    switch (hook) {
    case TSR_HOOK_READY: return qpu_hook_ready(sim, inst);
    case TSR_HOOK_RETIRE: return qpu_hook_retire(sim, inst);
    case QPU_SIM_HOOK_IO_READ: return nargs == 2 ? qpu_hook_io_read(sim, args[0], args[1], v, lanemask) : -1;
    case QPU_SIM_HOOK_IO_WRITE: return nargs == 2 ? qpu_hook_io_write(sim, args[0], args[1], v, lanemask) : -1;
    case QPU_SIM_HOOK_SIGNAL: return nargs == 1 ? qpu_hook_signal(sim, args[0], lanemask) : -1;
    case QPU_SIM_HOOK_SIGNAL_R4: return nargs == 1 ? qpu_hook_signal_r4(sim, args[0], v, lanemask) : -1;
    case QPU_SIM_HOOK_SEMAPHORE: return nargs == 2 ? qpu_hook_semaphore(sim, args[0], args[1], lanemask) : -1;
    case QPU_SIM_HOOK_R4_BUSY: return nargs == 0 ? qpu_hook_r4_busy(sim, lanemask) : -1;
    default: return -1;
    }
}

void qpu_trace_text(void *ctx, uint32_t pc, const uint32_t *words, char *buf, size_t n)
{
    (void)ctx;
    struct tsr_buf b = {0};
    qpu_disasm(words, pc, &b);
    snprintf(buf, n, "%s", b.data ? b.data : "");
    tsr_buf_free(&b);
}

/* ---- the multi-QPU loop --------------------------------------------------------------------------------- */

int qpu_run(struct qpu_machine *m, const uint32_t *code, size_t nwords, unsigned nqpus,
            const uint32_t *uniform_addrs, uint64_t max_steps, FILE *trace, struct qpu_run_result *res)
{
    return qpu_run_flags(m, code, nwords, nqpus, uniform_addrs, max_steps, 0, trace, res);
}

int qpu_run_flags(struct qpu_machine *m, const uint32_t *code, size_t nwords, unsigned nqpus,
                  const uint32_t *uniform_addrs, uint64_t max_steps, unsigned flags, FILE *trace,
                  struct qpu_run_result *res)
{
    return qpu_run_visit(m, code, nwords, nqpus, uniform_addrs, max_steps, flags, trace, NULL, res);
}

int qpu_run_visit(struct qpu_machine *m, const uint32_t *code, size_t nwords, unsigned nqpus,
                  const uint32_t *uniform_addrs, uint64_t max_steps, unsigned flags, FILE *trace,
                  const struct tsr_platform_visit *visit, struct qpu_run_result *res)
{
    memset(res, 0, sizeof *res);
    if (nwords == 0) {
        res->status = TSR_SIM_ERROR;
        snprintf(res->msg, sizeof res->msg, "qpu_run: empty program (no instruction)");
        return res->status;
    }
    if (!m || nqpus == 0 || nqpus > qpu_machine_nqpus(m) || !code || !uniform_addrs) {
        res->status = TSR_SIM_ERROR;
        snprintf(res->msg, sizeof res->msg, "qpu_run: bad arguments (nqpus %u, machine has %u)", nqpus,
                 m ? qpu_machine_nqpus(m) : 0);
        return res->status;
    }
    struct qpu_sim *sims = calloc(nqpus, sizeof *sims);
    struct qpu_hooks_ctx ctx[QPU_MAX_QPUS];
    char names[QPU_MAX_QPUS][16];
    int ended[QPU_MAX_QPUS] = {0};
    if (!sims) {
        res->status = TSR_SIM_ERROR;
        snprintf(res->msg, sizeof res->msg, "qpu_run: out of memory");
        return res->status;
    }
    for (unsigned q = 0; q < nqpus; q++) {
        qpu_sim_init(&sims[q]);
        qpu_hooks_attach(&sims[q], &ctx[q], m, q, uniform_addrs[q]);
        snprintf(names[q], sizeof names[q], "qpu%u", q);
        sims[q].core.trace = trace;
        sims[q].core.trace_name = names[q];
        sims[q].core.trace_text = qpu_trace_text;
        sims[q].core.flags = flags;
    }
    unsigned active = nqpus;
    uint64_t idle = 0;
    res->status = TSR_SIM_OK;
    for (unsigned q = 0; q < nqpus && visit && visit->start; q++)
        if (visit->start(visit->ctx, q, &sims[q])) {
            res->status = TSR_SIM_ERROR;
            res->qpu = q;
            snprintf(res->msg, sizeof res->msg, "qpu%u: its initial values were refused", q);
            visit = NULL;   /* no end either */
            break;
        }
    while (res->status == TSR_SIM_OK && active > 0 && res->rounds < max_steps) {
        int progress = 0;
        res->rounds++;
        for (unsigned q = 0; q < nqpus && res->status == TSR_SIM_OK; q++) {
            if (ended[q])
                continue;
            int rc = qpu_sim_step(&sims[q], code, nwords);
            if (rc == TSR_SIM_OK || rc == TSR_SIM_HALTED) {
                progress = 1;
                res->issued[q]++;
                if (rc == TSR_SIM_HALTED) {
                    ended[q] = 1;
                    active--;
                }
            } else if (rc == TSR_SIM_STALL) {
                res->stalls[q]++;
            } else {
                res->status = rc;
                res->qpu = q;
                res->pc = sims[q].core.err_pc;
                snprintf(res->msg, sizeof res->msg, "qpu%u: %s", q, sims[q].core.msg);
            }
        }
        if (res->status != TSR_SIM_OK)
            break;
        idle = progress ? 0 : idle + 1;
        if (idle >= QPU_RUN_IDLE_LIMIT) {
            res->status = TSR_SIM_STALL;
            int n = snprintf(res->msg, sizeof res->msg, "deadlock: no QPU issued for %u rounds;", QPU_RUN_IDLE_LIMIT);
            for (unsigned q = 0; q < nqpus && n > 0 && (size_t)n < sizeof res->msg; q++)
                if (!ended[q])
                    n += snprintf(res->msg + n, sizeof res->msg - (size_t)n, " qpu%u waits at 0x%08" PRIx32, q,
                                  sims[q].pc);
            break;
        }
    }
    if (res->status == TSR_SIM_OK && active == 0)
        res->status = TSR_SIM_HALTED;
    for (unsigned q = 0; q < nqpus; q++) {
        if (visit && visit->end)
            visit->end(visit->ctx, q, &sims[q]);
        if ((flags & TSR_SIM_F_HAZARD_WARN) && sims[q].core.nhazards) {
            if (!res->hazards)
                snprintf(res->hazard, sizeof res->hazard, "qpu%u: %s", q, sims[q].core.msg);
            res->hazards += sims[q].core.nhazards;
        }
        qpu_sim_fini(&sims[q]);
    }
    free(sims);
    return res->status;
}
