/* Target-independent simulator support: control flow with delay slots, reports, trace.
 * See sim.h for the model of time and control. */
#include "sim/sim.h"

#include <inttypes.h>
#include <string.h>

#include "validate/validate.h"

void tsr_sim_ctl_init(struct tsr_sim_ctl *c)
{
    memset(c, 0, sizeof *c);
}

int tsr_sim_verror(struct tsr_sim_ctl *c, uint32_t pc, const char *fmt, va_list ap)
{
    if (c->status >= 0) {
        c->status = TSR_SIM_ERROR;
        c->err_pc = pc;
        vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    }
    return TSR_SIM_ERROR;
}

int tsr_sim_error(struct tsr_sim_ctl *c, uint32_t pc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tsr_sim_verror(c, pc, fmt, ap);
    va_end(ap);
    return TSR_SIM_ERROR;
}

int tsr_sim_abort(struct tsr_sim_ctl *c, uint32_t pc, const char *msg)
{
    if (c->status >= 0) {
        c->status = TSR_SIM_ABORT;
        c->err_pc = pc;
        snprintf(c->msg, sizeof c->msg, "abort: %s", msg ? msg : "");
    }
    return TSR_SIM_ABORT;
}

int tsr_sim_hazard(struct tsr_sim_ctl *c, uint32_t pc, const char *fmt, ...)
{
    c->nhazards++;
    bool warn = (c->flags & TSR_SIM_F_HAZARD_WARN) != 0;
    if (c->status >= 0 && (!warn || c->nhazards == 1)) {
        if (!warn)
            c->status = TSR_SIM_HAZARD;
        c->err_pc = pc;
        int n = snprintf(c->msg, sizeof c->msg, "hazard: ");
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->msg + n, sizeof c->msg - (size_t)n, fmt, ap);
        va_end(ap);
    }
    if (c->trace)
        fprintf(c->trace, "    !! hazard #%" PRIu64 " at 0x%08" PRIx32 "\n", c->nhazards, pc);
    return warn ? 0 : TSR_SIM_HAZARD;
}

int tsr_sim_rules_step(struct tsr_sim_ctl *c, const uint32_t *words, uint32_t pc, bool last)
{
    if (!(c->flags & TSR_SIM_F_RULES) || c->rules_next == c->icount + 1)
        return 0;
    if (!c->rules) {
        if (!c->rules_desc)
            return tsr_sim_error(c, pc, "TSR_SIM_F_RULES: this simulator has no rules (no validator)");
        c->rules = tsr_vstream_new(c->rules_desc);
        if (!c->rules)
            return tsr_sim_error(c, pc, "out of memory (rule checker)");
    }
    c->rules_next = c->icount + 1;
    return tsr_vstream_sim(c->rules, c, words, pc, last);
}

void tsr_sim_rules_reset(struct tsr_sim_ctl *c)
{
    if (c->rules)
        tsr_vstream_reset(c->rules);
    c->rules_next = 0;
}

void tsr_sim_rules_free(struct tsr_sim_ctl *c)
{
    tsr_vstream_free(c->rules);
    c->rules = NULL;
    c->rules_next = 0;
}

static void elem_name(char *buf, size_t n, const char *state, int elem)
{
    if (elem < 0)
        snprintf(buf, n, "%s", state);
    else
        snprintf(buf, n, "%s%d", state, elem);
}

int tsr_sim_latency_hazard(struct tsr_sim_ctl *c, uint32_t pc, const char *state, int elem, int64_t dist,
                           int latency)
{
    char name[64];
    elem_name(name, sizeof name, state, elem);
    if (dist <= 0)
        return tsr_sim_hazard(c, pc, "%s read at 0x%08" PRIx32 ": written by the same instruction "
                              "(regfile latency %d)", name, pc, latency);
    if (dist == 1)
        return tsr_sim_hazard(c, pc, "%s read at 0x%08" PRIx32 ": written by the previous instruction "
                              "(regfile latency %d)", name, pc, latency);
    return tsr_sim_hazard(c, pc, "%s read at 0x%08" PRIx32 ": written %" PRId64 " instructions before "
                          "(regfile latency %d)", name, pc, dist, latency);
}

int tsr_sim_guard_hazard(struct tsr_sim_ctl *c, uint32_t pc, const char *state, int elem, const char *hook)
{
    char name[64];
    elem_name(name, sizeof name, state, elem);
    return tsr_sim_hazard(c, pc, "%s read at 0x%08" PRIx32 ": %s (guard)", name, pc, hook);
}

int tsr_sim_request_jump(struct tsr_sim_ctl *c, uint32_t pc, uint32_t target, int64_t delay)
{
    if (c->req_jump)
        return tsr_sim_error(c, pc, "two jumps in one bundle at 0x%08" PRIx32, pc);
    if (delay < 0 || delay > 1000)
        return tsr_sim_error(c, pc, "jump delay %" PRId64 " out of range at 0x%08" PRIx32, delay, pc);
    c->req_jump = 1;
    c->req_target = target;
    c->req_jump_delay = (int)delay;
    return TSR_SIM_OK;
}

int tsr_sim_request_halt(struct tsr_sim_ctl *c, uint32_t pc, int64_t delay)
{
    if (c->req_halt)
        return tsr_sim_error(c, pc, "two halts in one bundle at 0x%08" PRIx32, pc);
    if (delay < 0 || delay > 1000)
        return tsr_sim_error(c, pc, "halt delay %" PRId64 " out of range at 0x%08" PRIx32, delay, pc);
    c->req_halt = 1;
    c->req_halt_delay = (int)delay;
    return TSR_SIM_OK;
}

static int push(struct tsr_sim_ctl *c, uint32_t bundle_pc, int kind, int left, uint32_t target)
{
    if (c->npend == TSR_SIM_MAX_PENDING)
        return tsr_sim_error(c, bundle_pc, "more than %d jumps/halts pending at 0x%08" PRIx32,
                             TSR_SIM_MAX_PENDING, bundle_pc);
    c->pend[c->npend].kind = kind;
    c->pend[c->npend].left = left;
    c->pend[c->npend].target = target;
    c->npend++;
    return TSR_SIM_OK;
}

int tsr_sim_bundle_end(struct tsr_sim_ctl *c, uint32_t *pc, uint32_t bundle_pc, uint32_t pc_step,
                       bool pc_written)
{
    uint32_t next = pc_written ? *pc : bundle_pc + pc_step;
    bool halt = false;
    c->icount++;
    /* earlier requests: one more bundle of their delay has issued */
    int k = 0;
    for (int i = 0; i < c->npend; i++) {
        struct tsr_sim_pending p = c->pend[i];
        if (--p.left > 0) {
            c->pend[k++] = p;
            continue;
        }
        if (p.kind == 0)
            next = p.target;
        else
            halt = true;
    }
    c->npend = k;
    /* this bundle's requests */
    if (c->req_jump) {
        if (c->req_jump_delay == 0)
            next = c->req_target;
        else if (push(c, bundle_pc, 0, c->req_jump_delay, c->req_target) < 0)
            return TSR_SIM_ERROR;
        if (c->trace)
            tsr_sim_trace_note(c, "-> jump 0x%08" PRIx32 " after %d", c->req_target, c->req_jump_delay);
    }
    if (c->req_halt) {
        if (c->req_halt_delay == 0)
            halt = true;
        else if (push(c, bundle_pc, 1, c->req_halt_delay, 0) < 0)
            return TSR_SIM_ERROR;
        if (c->trace)
            tsr_sim_trace_note(c, "-> halt after %d", c->req_halt_delay);
    }
    c->req_jump = c->req_halt = 0;
    *pc = next;
    if (halt) {
        c->halted = true;
        c->npend = 0;
        if (c->trace)
            tsr_sim_trace_note(c, "-> halted");
        return TSR_SIM_HALTED;
    }
    return TSR_SIM_OK;
}

/* ---- trace ---------------------------------------------------------------------------------- */

void tsr_sim_trace_bundle(struct tsr_sim_ctl *c, uint32_t pc, const uint32_t *words)
{
    if (!c->trace)
        return;
    if (c->trace_name)
        fprintf(c->trace, "[%s] ", c->trace_name);
    fprintf(c->trace, "0x%08" PRIx32 ":", pc);
    for (int i = 0; words && i < c->trace_nwords; i++)
        fprintf(c->trace, " %08" PRIx32, words[i]);
    if (c->trace_text && words) {
        char buf[256];
        buf[0] = 0;
        c->trace_text(c->trace_ctx, pc, words, buf, sizeof buf);
        fprintf(c->trace, "  %s", buf);
    }
    fputc('\n', c->trace);
}

void tsr_sim_trace_write(struct tsr_sim_ctl *c, const char *state, int elem, const uint32_t *v, int lanes,
                         uint32_t mask)
{
    if (!c->trace)
        return;
    char name[64];
    elem_name(name, sizeof name, state, elem);
    fprintf(c->trace, "    %s =", name);
    uint32_t all = tsr_sim_all_lanes(lanes);
    bool same = (mask & all) == all;
    for (int l = 1; same && l < lanes; l++)
        same = v[l] == v[0];
    if (same)
        fprintf(c->trace, " 0x%08" PRIx32 "%s\n", v[0], lanes > 1 ? " (all lanes)" : "");
    else {
        for (int l = 0; l < lanes; l++) {
            if (mask >> l & 1)
                fprintf(c->trace, " %" PRIx32, v[l]);
            else
                fputs(" -", c->trace);
        }
        fputc('\n', c->trace);
    }
}

void tsr_sim_trace_hook(struct tsr_sim_ctl *c, const char *hook, const uint32_t *args, int nargs,
                        const uint32_t *v, int lanes, uint32_t mask)
{
    if (!c->trace)
        return;
    fprintf(c->trace, "    hook %s(", hook);
    for (int i = 0; i < nargs; i++)
        fprintf(c->trace, "%s%" PRIu32, i ? ", " : "", args[i]);
    fputc(')', c->trace);
    if (v) {
        fputs(" value", c->trace);
        for (int l = 0; l < lanes; l++) {
            if (mask >> l & 1)
                fprintf(c->trace, " %" PRIx32, v[l]);
            else
                fputs(" -", c->trace);
        }
    }
    fputc('\n', c->trace);
}

void tsr_sim_trace_note(struct tsr_sim_ctl *c, const char *fmt, ...)
{
    if (!c->trace)
        return;
    fputs("    ", c->trace);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(c->trace, fmt, ap);
    va_end(ap);
    fputc('\n', c->trace);
}

int tsr_sim_find_state(const struct tsr_sim_desc *D, const char *name, size_t n)
{
    for (int i = 0; i < D->nstates; i++)
        if (strlen(D->state_names[i]) == n && !memcmp(D->state_names[i], name, n))
            return i;
    return -1;
}
