/* The independent evaluator's state (struct mdl_evstate, eval.h): one value array per declared state element,
 * lanes wide for vector state, with the write times of registers that have a latency and the forwards (X6,
 * eval_fwd.c). */
#include "eval.h"

#include <stdlib.h>
#include <string.h>

#include "eval_fwd.h"

#define ML TSR_SIM_MAX_LANES

int mdl_evstate_width(const struct mdl_evstate *st, int s)
{
    return st->m->states[s].vec ? st->lanes : 1;
}

int mdl_evstate_elems(const struct mdl_evstate *st, int s)
{
    return st->m->states[s].count > 0 ? st->m->states[s].count : 1;
}

int mdl_evstate_init(struct mdl_evstate *st, const struct mdl_model *m)
{
    memset(st, 0, sizeof *st);
    if (mdl_sim_lanes(m) < 1 || mdl_sim_lanes(m) > ML || m->nstates < 0)
        return -1;
    st->m = m;
    st->lanes = mdl_sim_lanes(m); /* a description with vec4 values: its 4 components (X11) */
    tsr_sim_ctl_init(&st->ctl);
    st->val = calloc((size_t)m->nstates + 1, sizeof *st->val);
    st->wtime = calloc((size_t)m->nstates + 1, sizeof *st->wtime);
    if (!st->val || !st->wtime) {
        mdl_evstate_fini(st);
        return -1;
    }
    for (int s = 0; s < m->nstates; s++) {
        int n = mdl_evstate_elems(st, s);
        st->val[s] = calloc((size_t)n * (size_t)mdl_evstate_width(st, s), sizeof(uint32_t));
        if (!st->val[s]) {
            mdl_evstate_fini(st);
            return -1;
        }
        if (m->states[s].latency > 0) {
            st->wtime[s] = malloc((size_t)n * sizeof(int64_t));
            if (!st->wtime[s]) {
                mdl_evstate_fini(st);
                return -1;
            }
            for (int i = 0; i < n; i++)
                st->wtime[s][i] = TSR_SIM_NEVER;
        }
    }
    if (mdl_evfwd_init(st)) {   /* (X6) */
        mdl_evstate_fini(st);
        return -1;
    }
    return 0;
}

void mdl_evstate_fini(struct mdl_evstate *st)
{
    if (st->m) {
        for (int s = 0; s < st->m->nstates; s++) {
            if (st->val)
                free(st->val[s]);
            if (st->wtime)
                free(st->wtime[s]);
        }
    }
    mdl_evfwd_fini(st);
    free(st->val);
    free(st->wtime);
    st->val = NULL;
    st->wtime = NULL;
}

uint32_t *mdl_evstate_elem(struct mdl_evstate *st, int s, int elem)
{
    if (s < 0 || s >= st->m->nstates)
        return NULL;
    if (st->m->states[s].count == 0)
        elem = 0;
    if (elem < 0 || elem >= mdl_evstate_elems(st, s))
        return NULL;
    return st->val[s] + (size_t)elem * (size_t)mdl_evstate_width(st, s);
}

/* ---- helpers ---------------------------------------------------------------------------------- */
