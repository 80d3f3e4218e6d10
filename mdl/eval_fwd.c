/* (addition, X6) The evaluator's forwards: storage, reads, writes, the bundle's end, and the copies and comparisons
 * with a generated simulator (mdl/eval.h; the history itself: runtime/sim/sim.h "forwards", runtime/sim/fwd.c). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval.h"
#include "eval_fwd.h"

static int nelem(const struct mdl_fwd *f) { return f->count > 0 ? f->count : 1; }

int mdl_evfwd_init(struct mdl_evstate *st)
{
    const struct mdl_model *m = st->m;
    if (m->nfwds == 0)
        return 0;
    st->fring = calloc((size_t)m->nfwds, sizeof *st->fring);
    st->fc0 = calloc((size_t)m->nfwds, sizeof *st->fc0);
    st->fc1 = calloc((size_t)m->nfwds, sizeof *st->fc1);
    if (!st->fring || !st->fc0 || !st->fc1)
        return -1;
    for (int i = 0; i < m->nfwds; i++) {
        const struct mdl_fwd *f = &m->fwds[i];
        size_t n = (size_t)nelem(f), r = n * (size_t)(f->hi + 1);
        st->fring[i] = calloc(r, sizeof **st->fring);
        st->fc0[i] = calloc(n, sizeof **st->fc0);
        st->fc1[i] = calloc(n, sizeof **st->fc1);
        if (!st->fring[i] || !st->fc0[i] || !st->fc1[i])
            return -1;
        for (size_t j = 0; j < r; j++)
            st->fring[i][j].serial = TSR_SIM_NEVER;
        for (size_t j = 0; j < n; j++)
            st->fc0[i][j].serial = st->fc1[i][j].serial = TSR_SIM_NEVER;
    }
    return 0;
}

void mdl_evfwd_fini(struct mdl_evstate *st)
{
    for (int i = 0; st->m && i < st->m->nfwds; i++) {
        if (st->fring)
            free(st->fring[i]);
        if (st->fc0)
            free(st->fc0[i]);
        if (st->fc1)
            free(st->fc1[i]);
    }
    free(st->fring);
    free(st->fc0);
    free(st->fc1);
    st->fring = st->fc0 = st->fc1 = NULL;
}

struct tsr_fwd_ent *mdl_evstate_fwd(struct mdl_evstate *st, int f, int elem)
{
    if (f < 0 || f >= st->m->nfwds || !st->fring)
        return NULL;
    const struct mdl_fwd *fw = &st->m->fwds[f];
    if (fw->count == 0)
        elem = 0;
    if (elem < 0 || elem >= nelem(fw))
        return NULL;
    return st->fring[f] + (size_t)elem * (size_t)(fw->hi + 1);
}

void mdl_evfwd_begin(struct mdl_evstate *st)
{
    for (int i = 0; i < st->m->nfwds; i++)
        for (int e = 0; e < nelem(&st->m->fwds[i]); e++)
            st->fc0[i][e].serial = st->fc1[i][e].serial = TSR_SIM_NEVER;
}

void mdl_evfwd_end(struct mdl_evstate *st, uint32_t pc)
{
    for (int i = 0; i < st->m->nfwds; i++) {
        const struct mdl_fwd *f = &st->m->fwds[i];
        for (int e = 0; e < nelem(f); e++)
            tsr_sim_fwd_end(&st->ctl, mdl_evstate_fwd(st, i, e), f->hi + 1, &st->fc1[i][e], pc, f->vec ? st->lanes : 1);
    }
}

void mdl_evfwd_fail(struct mdl_evstate *st, uint32_t pc)
{
    const int64_t now = (int64_t)st->ctl.icount;
    for (int i = 0; i < st->m->nfwds; i++) {
        const struct mdl_fwd *f = &st->m->fwds[i];
        for (int e = 0; e < nelem(f); e++)
            tsr_sim_fwd_absent(&mdl_evstate_fwd(st, i, e)[now % (f->hi + 1)], pc, now);
    }
}

static int range_error(struct mdl_evstate *st, const struct mdl_fwd *f, uint32_t elem, uint32_t pc)
{
    return tsr_sim_error(&st->ctl, pc, "%s index %" PRIu32 " out of range (%d elements) at 0x%08" PRIx32, f->name,
                         elem, f->count, pc);
}

int mdl_evfwd_read(struct mdl_evstate *st, int f, uint32_t elem, int age, uint32_t pc, int lanes, uint32_t *out)
{
    const struct mdl_fwd *fw = &st->m->fwds[f];
    if (fw->count > 0 && elem >= (uint32_t)fw->count)
        return range_error(st, fw, elem, pc);
    if (fw->count == 0)
        elem = 0;
    int rc = 0;
    const uint32_t *v = tsr_sim_fwd_read(&st->ctl, pc, fw->name, fw->count > 0 ? (int)elem : -1,
                                         mdl_evstate_fwd(st, f, (int)elem), fw->hi + 1, &st->fc0[f][elem], age, &rc);
    for (int l = 0; l < lanes; l++)
        out[l] = fw->vec ? v[l] : v[0];
    return rc;
}

int mdl_evfwd_write(struct mdl_evstate *st, int f, uint32_t elem, bool commit, uint32_t pc, const uint32_t *v,
                    int lanes, uint32_t mask, int lo, int hi, const struct tsr_fwd_stale *stale)
{
    const struct mdl_fwd *fw = &st->m->fwds[f];
    if (fw->count > 0 && elem >= (uint32_t)fw->count)
        return range_error(st, fw, elem, pc);
    if (fw->count == 0)
        elem = 0;
    int w = fw->vec ? lanes : 1;
    uint32_t mk = fw->vec ? mask : (mask ? 1u : 0u);
    const struct tsr_fwd_stale *sp = stale && stale->state ? stale : NULL;
    if (!commit)
        tsr_sim_fwd_write(&st->ctl, &st->fc0[f][elem], pc, v, w, mk, lo, hi, sp);
    tsr_sim_fwd_write(&st->ctl, &st->fc1[f][elem], pc, v, w, mk, lo, hi, sp);
    return 0;
}

/* ---- copies and comparisons with a simulator ---- */

void mdl_evstate_fwd_to_sim(const struct mdl_evstate *st, const struct tsr_sim_desc *d, void *sim)
{
    for (int i = 0; i < st->m->nfwds && i < d->nfwds; i++)
        for (int e = 0; e < nelem(&st->m->fwds[i]); e++)
            memcpy(d->fwd_ring(sim, i, e), mdl_evstate_fwd((struct mdl_evstate *)st, i, e),
                   (size_t)(st->m->fwds[i].hi + 1) * sizeof(struct tsr_fwd_ent));
}

void mdl_evstate_fwd_from_sim(struct mdl_evstate *st, const struct tsr_sim_desc *d, void *sim)
{
    for (int i = 0; i < st->m->nfwds && i < d->nfwds; i++)
        for (int e = 0; e < nelem(&st->m->fwds[i]); e++)
            memcpy(mdl_evstate_fwd(st, i, e), d->fwd_ring(sim, i, e),
                   (size_t)(st->m->fwds[i].hi + 1) * sizeof(struct tsr_fwd_ent));
}

/* 0 if entries a and b of a forward with w values per entry mean the same. */
static int ent_diff(const struct tsr_fwd_ent *a, const struct tsr_fwd_ent *b, int w, char *what, size_t n)
{
    if (a->serial != b->serial)
        return snprintf(what, n, "serial %" PRId64 " vs %" PRId64, a->serial, b->serial), 1;
    if (a->present != b->present || a->pc != b->pc)
        return snprintf(what, n, "present %d at 0x%08" PRIx32 " vs %d at 0x%08" PRIx32, a->present, a->pc,
                        b->present, b->pc), 1;
    if (!a->present)
        return 0;
    if (a->lo != b->lo || a->hi != b->hi)
        return snprintf(what, n, "ages %d..%d vs %d..%d", a->lo, a->hi, b->lo, b->hi), 1;
    for (int l = 0; l < w; l++)
        if (a->v[l] != b->v[l])
            return snprintf(what, n, "lane %d 0x%08" PRIx32 " vs 0x%08" PRIx32, l, a->v[l], b->v[l]), 1;
    bool sa = a->stale.state != NULL, sb = b->stale.state != NULL;
    if (sa != sb || (sa && (strcmp(a->stale.state, b->stale.state) || a->stale.elem != b->stale.elem ||
                            a->stale.dist != b->stale.dist || a->stale.latency != b->stale.latency)))
        return snprintf(what, n, "stale %s vs %s", sa ? a->stale.state : "no", sb ? b->stale.state : "no"), 1;
    return 0;
}

/* Ring of forward f element e of one side of a comparison. */
typedef const struct tsr_fwd_ent *(*ringfn)(const void *ctx, int f, int e);

static const struct tsr_fwd_ent *ev_ring(const void *ctx, int f, int e)
{
    return mdl_evstate_fwd((struct mdl_evstate *)ctx, f, e);
}

struct simside { const struct tsr_sim_desc *d; void *sim; };

static const struct tsr_fwd_ent *sim_ring(const void *ctx, int f, int e)
{
    const struct simside *c = ctx;
    return c->d->fwd_ring(c->sim, f, e);
}

/* Every entry of every forward element's ring of two sides (named na, nb): 0 equal, else 1 and the first
 * difference in report. */
static int cmp_rings(const struct mdl_model *m, int lanes, const void *a, ringfn ra, const char *na, const void *b,
                     ringfn rb, const char *nb, char *report, size_t n)
{
    for (int i = 0; i < m->nfwds; i++) {
        const struct mdl_fwd *f = &m->fwds[i];
        for (int e = 0; e < nelem(f); e++) {
            const struct tsr_fwd_ent *x = ra(a, i, e), *y = rb(b, i, e);
            for (int j = 0; j <= f->hi; j++) {
                char what[160];
                if (ent_diff(&x[j], &y[j], f->vec ? lanes : 1, what, sizeof what)) {
                    snprintf(report, n, "%s[%d] ring entry %d: %s vs %s: %s", f->name, e, j, na, nb, what);
                    return 1;
                }
            }
        }
    }
    return 0;
}

int mdl_evstate_fwd_compare_sim(const struct mdl_evstate *st, const struct tsr_sim_desc *d, void *sim, char *report,
                                size_t n)
{
    const struct mdl_model *m = st->m;
    if (d->nfwds != m->nfwds)
        return snprintf(report, n, "forwards: model %d, simulator %d", m->nfwds, d->nfwds), 1;
    struct simside c = {d, sim};
    return cmp_rings(m, st->lanes, st, ev_ring, "evaluator", &c, sim_ring, "simulator", report, n);
}

int mdl_evstate_fwd_compare(const struct mdl_evstate *a, const struct mdl_evstate *b, char *report, size_t n)
{
    return cmp_rings(a->m, a->lanes, a, ev_ring, "a", b, ev_ring, "b", report, n);
}
