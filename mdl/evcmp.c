/* Copies and comparisons between evaluator states (mdl/eval.h) and generated simulators (through their
 * struct tsr_sim_desc): the differential fuzzer's view of "the same machine state". */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "eval.h"

static void copy_ctl(struct tsr_sim_ctl *to, const struct tsr_sim_ctl *from)
{
    to->icount = from->icount;
    to->stalls = from->stalls;
    to->halted = from->halted;
    to->flags = from->flags;
    to->npend = from->npend;
    memcpy(to->pend, from->pend, sizeof to->pend);
}

void mdl_evstate_to_sim(const struct mdl_evstate *st, const struct tsr_sim_desc *d, void *sim)
{
    struct mdl_evstate *s = (struct mdl_evstate *)st;
    for (int i = 0; i < st->m->nstates && i < d->nstates; i++) {
        int n = mdl_evstate_elems(st, i), w = mdl_evstate_width(st, i);
        for (int e = 0; e < n; e++) {
            uint32_t *p = d->state(sim, i, e);
            int64_t *t = d->wtime(sim, i, e);
            memcpy(p, mdl_evstate_elem(s, i, e), (size_t)w * sizeof *p);
            if (t && st->wtime[i])
                *t = st->wtime[i][e];
        }
    }
    copy_ctl(d->ctl(sim), &st->ctl);
    mdl_evstate_fwd_to_sim(st, d, sim);   /* (X6) */
}

void mdl_evstate_from_sim(struct mdl_evstate *st, const struct tsr_sim_desc *d, void *sim)
{
    for (int i = 0; i < st->m->nstates && i < d->nstates; i++) {
        int n = mdl_evstate_elems(st, i), w = mdl_evstate_width(st, i);
        for (int e = 0; e < n; e++) {
            const uint32_t *p = d->state(sim, i, e);
            const int64_t *t = d->wtime(sim, i, e);
            memcpy(mdl_evstate_elem(st, i, e), p, (size_t)w * sizeof *p);
            if (t && st->wtime[i])
                st->wtime[i][e] = *t;
        }
    }
    copy_ctl(&st->ctl, d->ctl(sim));
    mdl_evstate_fwd_from_sim(st, d, sim);   /* (X6) */
}

static void elem_name(char *buf, size_t n, const struct mdl_model *m, int s, int e)
{
    if (m->states[s].count > 0)
        snprintf(buf, n, "%s%d", m->states[s].name, e);
    else
        snprintf(buf, n, "%s", m->states[s].name);
}

/* Compares the control parts; 0 if equal. */
static int cmp_ctl(const struct tsr_sim_ctl *a, const struct tsr_sim_ctl *b, const char *na, const char *nb,
                   char *r, size_t n)
{
    if (a->icount != b->icount)
        return snprintf(r, n, "icount: %s %" PRIu64 ", %s %" PRIu64, na, a->icount, nb, b->icount), 1;
    if (a->stalls != b->stalls)
        return snprintf(r, n, "stalls: %s %" PRIu64 ", %s %" PRIu64, na, a->stalls, nb, b->stalls), 1;
    if (a->halted != b->halted)
        return snprintf(r, n, "halted: %s %d, %s %d", na, a->halted, nb, b->halted), 1;
    if (a->npend != b->npend)
        return snprintf(r, n, "pending jumps/halts: %s %d, %s %d", na, a->npend, nb, b->npend), 1;
    for (int i = 0; i < a->npend; i++)
        if (a->pend[i].kind != b->pend[i].kind || a->pend[i].left != b->pend[i].left ||
            a->pend[i].target != b->pend[i].target)
            return snprintf(r, n, "pending %d: %s %s 0x%08" PRIx32 " in %d, %s %s 0x%08" PRIx32 " in %d", i, na,
                            a->pend[i].kind ? "halt" : "jump", a->pend[i].target, a->pend[i].left, nb,
                            b->pend[i].kind ? "halt" : "jump", b->pend[i].target, b->pend[i].left), 1;
    if ((a->status < 0) != (b->status < 0) || (a->status < 0 && a->status != b->status))
        return snprintf(r, n, "status: %s %d (%s), %s %d (%s)", na, a->status, a->msg, nb, b->status, b->msg), 1;
    if (a->status < 0 && (a->err_pc != b->err_pc || strcmp(a->msg, b->msg) != 0))
        return snprintf(r, n, "report: %s \"%s\" at 0x%08" PRIx32 ", %s \"%s\" at 0x%08" PRIx32, na, a->msg,
                        a->err_pc, nb, b->msg, b->err_pc), 1;
    if (a->nhazards != b->nhazards)
        return snprintf(r, n, "hazards: %s %" PRIu64 ", %s %" PRIu64, na, a->nhazards, nb, b->nhazards), 1;
    return 0;
}

/* Element-wise comparison through two accessors. */
typedef const uint32_t *(*valfn)(const void *ctx, int s, int e);
typedef const int64_t *(*timefn)(const void *ctx, int s, int e);

struct side { const void *ctx; valfn val; timefn time; const char *name; };

static int cmp_states(const struct mdl_model *m, int lanes, const struct side *A, const struct side *B, char *r,
                      size_t n)
{
    char name[64];
    for (int s = 0; s < m->nstates; s++) {
        int ne = m->states[s].count > 0 ? m->states[s].count : 1, w = m->states[s].vec ? lanes : 1;
        for (int e = 0; e < ne; e++) {
            const uint32_t *x = A->val(A->ctx, s, e), *y = B->val(B->ctx, s, e);
            for (int l = 0; l < w; l++) {
                if (x[l] != y[l]) {
                    elem_name(name, sizeof name, m, s, e);
                    if (w > 1)
                        snprintf(r, n, "%s %s %d: %s 0x%08" PRIx32 ", %s 0x%08" PRIx32, name,
                                 m->states[s].vec4 ? "component" : "lane", l, A->name, x[l], B->name, y[l]);
                    else
                        snprintf(r, n, "%s: %s 0x%08" PRIx32 ", %s 0x%08" PRIx32, name, A->name, x[l], B->name, y[l]);
                    return 1;
                }
            }
            const int64_t *tx = A->time(A->ctx, s, e), *ty = B->time(B->ctx, s, e);
            if (tx && ty && *tx != *ty) {
                elem_name(name, sizeof name, m, s, e);
                snprintf(r, n, "%s write time: %s %" PRId64 ", %s %" PRId64, name, A->name, *tx, B->name, *ty);
                return 1;
            }
        }
    }
    return 0;
}

static const uint32_t *ev_val(const void *ctx, int s, int e)
{
    return mdl_evstate_elem((struct mdl_evstate *)ctx, s, e);
}

static const int64_t *ev_time(const void *ctx, int s, int e)
{
    const struct mdl_evstate *st = ctx;
    return st->wtime[s] ? &st->wtime[s][st->m->states[s].count > 0 ? e : 0] : NULL;
}

struct simctx { const struct tsr_sim_desc *d; void *sim; };

static const uint32_t *sim_val(const void *ctx, int s, int e)
{
    const struct simctx *c = ctx;
    return c->d->state(c->sim, s, e);
}

static const int64_t *sim_time(const void *ctx, int s, int e)
{
    const struct simctx *c = ctx;
    return c->d->wtime(c->sim, s, e);
}

int mdl_evstate_compare_sim(const struct mdl_evstate *st, const struct tsr_sim_desc *d, void *sim, char *report,
                            size_t n)
{
    char dummy[8];
    if (!report || n == 0)
        report = dummy, n = sizeof dummy;
    report[0] = 0;
    if (d->nstates != st->m->nstates || d->lanes != st->lanes)
        return snprintf(report, n, "the simulator is not for this model (%d states, %d lanes; model %d, %d)",
                        d->nstates, d->lanes, st->m->nstates, st->lanes), 1;
    struct simctx c = {d, sim};
    struct side A = {st, ev_val, ev_time, "evaluator"}, B = {&c, sim_val, sim_time, "simulator"};
    if (cmp_ctl(&st->ctl, d->ctl(sim), "evaluator", "simulator", report, n))
        return 1;
    if (cmp_states(st->m, st->lanes, &A, &B, report, n))
        return 1;
    return mdl_evstate_fwd_compare_sim(st, d, sim, report, n);   /* (X6) */
}

int mdl_evstate_compare(const struct mdl_evstate *a, const struct mdl_evstate *b, char *report, size_t n)
{
    char dummy[8];
    if (!report || n == 0)
        report = dummy, n = sizeof dummy;
    report[0] = 0;
    if (a->m != b->m)
        return snprintf(report, n, "states of different models"), 1;
    struct side A = {a, ev_val, ev_time, "a"}, B = {b, ev_val, ev_time, "b"};
    if (cmp_ctl(&a->ctl, &b->ctl, "a", "b", report, n))
        return 1;
    if (cmp_states(a->m, a->lanes, &A, &B, report, n))
        return 1;
    return mdl_evstate_fwd_compare(a, b, report, n);   /* (X6) */
}
