/* (addition, X6) Forwards: the history of values with an age, shared by the generated simulators and the
 * independent evaluator (runtime/sim/sim.h "forwards"; docs/mdl.md "Forwards"; docs/sim.md). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sim/sim.h"

static const uint32_t zeros[TSR_SIM_MAX_LANES];

/* "mul0_r" or "mul0_r[3]" */
static void fwd_name(char *buf, size_t n, const char *name, int elem)
{
    if (elem < 0)
        snprintf(buf, n, "%s", name);
    else
        snprintf(buf, n, "%s[%d]", name, elem);
}

const uint32_t *tsr_sim_fwd_read_report(struct tsr_sim_ctl *c, uint32_t pc, const char *name, int elem,
                                        const struct tsr_fwd_ent *e, int64_t want, int age, int *rc)
{
    char nm[80];
    fwd_name(nm, sizeof nm, name, elem);
    int r;
    if (!e || e->serial != want) {
        if (age == 0)
            r = tsr_sim_hazard(c, pc, "%s@0 at 0x%08" PRIx32 ": the instruction at 0x%08" PRIx32 " produced no %s value",
                               nm, pc, pc, nm);
        else
            r = tsr_sim_hazard(c, pc, "%s@%d at 0x%08" PRIx32 ": no instruction %d before it is known", nm, age, pc,
                               age);
        *rc = r;
        return zeros;
    }
    if (!e->present) {
        r = tsr_sim_hazard(c, pc, "%s@%d at 0x%08" PRIx32 ": the instruction at 0x%08" PRIx32 " produced no %s value",
                           nm, age, pc, e->pc, nm);
        *rc = r;
        return zeros;
    }
    if (age < e->lo || age > e->hi) {
        r = tsr_sim_hazard(c, pc, "%s@%d at 0x%08" PRIx32 ": written at 0x%08" PRIx32 " for ages %d..%d, read at age %d",
                           nm, age, pc, e->pc, e->lo, e->hi, age);
        *rc = r;
        return e->v;
    }
    /* the deferred latency hazard: named as the regfile read's own, at the writer, then the forward's read */
    char rn[80];
    if (e->stale.elem < 0)
        snprintf(rn, sizeof rn, "%s", e->stale.state);
    else
        snprintf(rn, sizeof rn, "%s%d", e->stale.state, (int)e->stale.elem);
    char when[64];
    if (e->stale.dist <= 0)
        snprintf(when, sizeof when, "by the same instruction");
    else if (e->stale.dist == 1)
        snprintf(when, sizeof when, "by the previous instruction");
    else
        snprintf(when, sizeof when, "%" PRId64 " instructions before", e->stale.dist);
    r = tsr_sim_hazard(c, pc, "%s read at 0x%08" PRIx32 ": written %s (regfile latency %d); the value reached %s, "
                       "read as %s@%d at 0x%08" PRIx32, rn, e->pc, when, (int)e->stale.latency, nm, nm, age, pc);
    *rc = r;
    return e->v;
}
