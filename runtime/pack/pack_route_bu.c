/* The bottom-up scheduler of the packer for values routed through forwards (docs/pack.md "Values through
 * forwards"; the method of Mesa lima's gpir scheduler, in our own form): bundles are filled from the program's
 * end towards its start, so that when a value's producer is placed all its readers are placed already.  A
 * value read at position q (counted from the end) must be produced at a position p with p - q within the
 * producer's readable ages (its write event: [lo, hi]); each source's text is then the description's text for
 * that element and age.  A value whose readers are spread wider than its producer's window, or whose producer
 * cannot be placed in time, is threaded: a `move` op (docs/mdl.md X12; its own window from its events) placed
 * while the outstanding readers are still within its reach copies it for them, and becomes a reader of the value
 * itself.  Such moves are placed first in each bundle (before any other operation), so a value never misses its
 * last chance while slots remain.  The number of values waiting for their producers is limited, so that the
 * moves never fill the bundles.  A value whose move finds no slot in time, or one waiting while a bundle receives
 * nothing, goes through a register instead (pack_spill.c: its reads load it, a store placed when its producer can
 * follow).  Every bundle is formed by the assembler and the same-meaning check
 * (tsr_pack_try_merge), again whenever a source's text changes (its feeder placed).  An optional value (the input's
 * move of a load, struct rop.opt) is read as its load text where the reader's bundle forms so, and placed only for
 * the reads that cannot be.  Nothing here names a target, a unit or a field. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pack_route_bu.h"
#include "target.h"



/* The text op x reads value r from: its feeder's element at the age between them (a spill's store: the load text
 * of its register element that x->lalt picks), or (feeder not known yet) the root's element at its first readable
 * age, a placeholder of the same shape. */
static const char *ref_text(const struct route *R, const struct rop *x, int r)
{
    if (x->feed[r] == ROUTE_DIRECT)
        return R->o[x->ref[r]].dtext;
    if (x->feed[r] >= 0) {
        const struct rop *f = &R->o[x->feed[r]];
        if (f->spill)
            return tsr_route_spill_load(R, f->spill - 1, (int)(x->lalt >> r & 1));
        return tsr_pack_fwd_text(R->D, f->fwd, f->elem, f->pos - x->pos);
    }
    const struct rop *p = &R->o[x->ref[r]];
    return tsr_pack_fwd_text(R->D, p->fwd, p->elem, p->lo);
}

/* Op i's instance with its current sources (sw: its last two sources swapped) into itext / iw. */
bool tsr_route_bu_inst(struct bu *U, int i, bool sw)
{
    struct route *R = U->R;
    struct rop *x = &R->o[i];
    const char *texts[ROUTE_MAXREF];
    for (int r = 0; r < x->nref; r++)
        if (!(texts[r] = ref_text(R, x, r)))
            return false;
    tsr_route_instantiate(&U->tb, x->tmpl, x->nref, x->refname, texts, sw);
    uint32_t aw[TSR_PACK_MAX_NWORDS];
    if (!U->tb.data || tsr_pack_assemble_cached(R->t, U->tb.data, U->tb.len, aw))
        return false;
    free(x->itext);
    x->itext = strdup(U->tb.data);
    memcpy(x->iw, aw, sizeof aw);
    return true;
}

/* Forms bundle b of the k ops part[] with their current sources: true if the assembler takes them together. */
bool tsr_route_bu_build(struct bu *U, struct route_bundle *b, const int *part, int k)
{
    struct route *R = U->R;
    const char *parts[ROUTE_MAXB];
    const uint32_t *pw[ROUTE_MAXB];
    uint32_t w[TSR_PACK_MAX_NWORDS] = { 0 };
    int m = 0;
    for (int a = 0; a < k; a++) {
        int i = part[a];
        bool ok = false;
        /* (each spilled source through either load text: the bundle's load units decide) */
        struct rop *x = &R->o[i];
        int sr[ROUTE_MAXREF], nsr = 0;
        for (int r = 0; r < x->nref; r++)
            if (x->feed[r] >= 0 && R->o[x->feed[r]].spill && nsr < 4)
                sr[nsr++] = r;
        int nsw = x->comm ? 2 : 1;
        for (int v = 0; v < nsw << nsr && !ok; v++) {
            int sw = v % nsw;
            x->lalt = 0;
            for (int k2 = 0; k2 < nsr; k2++)
                x->lalt |= (unsigned)(v / nsw >> k2 & 1) << sr[k2];
            if (!tsr_route_bu_inst(U, i, sw == 1))
                continue;
            if (m == 0) {
                parts[0] = R->o[i].itext;
                pw[0] = R->o[i].iw;
                memcpy(w, R->o[i].iw, sizeof w);
                ok = true;
            } else if (m < ROUTE_MAXB - 1) {
                ok = tsr_pack_try_merge(R->t, parts, pw, m, x->itext, x->iw, w) != 0;
            }
        }
        if (!ok)
            return false;
        m++;
    }
    memmove(b->part, part, (size_t)k * sizeof *part);
    b->k = k;
    memcpy(b->w, w, sizeof w);
    return true;
}

/* The events of bundle k back from the end, for tsr_pack_hist_check (ctx: the events of bundles 0..). */
static const struct tsr_vbundle *tail_ev(void *ctx, int k)
{
    return ((struct tsr_pack_ev *)ctx)[k].vb;
}

/* Does bundle p, with the bundles after it (p - 1 .. 0), break a rule that holds at a block's end (one the
 * validator reports only with the END event: a register store in the last instructions of a program)? */
static bool breaks_end_rule(struct bu *U, int p)
{
    if (p >= TSR_V_MAXDIST)
        return false;
    const struct tsr_target *t = U->R->t;
    struct tsr_pack_ev ev[TSR_V_MAXDIST + 1];
    const uint32_t *w[TSR_V_MAXDIST + 1];
    memset(ev, 0, sizeof ev);
    for (int k = 0; k <= p; k++) {
        w[k] = U->B[k].w;
        tsr_pack_ev_events(t, w[k], &ev[k]);
    }
    struct tsr_pack_ev c0 = { 0 }, c1 = { 0 };
    bool f0, f1;
    size_t with = tsr_pack_hist_check(t, &c0, tail_ev, ev, w, p + 1, TSR_PACK_AT_END, &f0);
    size_t without = tsr_pack_hist_check(t, &c1, tail_ev, ev, w, p + 1, 0, &f1);
    tsr_pack_ev_free(&c0);
    tsr_pack_ev_free(&c1);
    for (int k = 0; k <= p; k++)
        tsr_pack_ev_free(&ev[k]);
    return with > without;
}

static uint64_t slots_of(const struct tsr_target *t, const uint32_t *w);

/* The outstanding reads of value v (an input op): placed ops that read it with no feeder yet, as (op, source
 * index) pairs into S (at most cap); their count. */
int tsr_route_bu_outstanding(const struct bu *U, int v, int (*S)[2], int cap)
{
    const struct route *R = U->R;
    int n = 0;
    for (int i = 0; i < R->n; i++) {
        const struct rop *x = &R->o[i];
        if (x->pos < 0 || x->dropped)
            continue;
        for (int r = 0; r < x->nref; r++)
            if (x->ref[r] == v && x->feed[r] == -1 && n < cap) {
                S[n][0] = i;
                S[n][1] = r;
                n++;
            }
    }
    return n;
}

/* Forms bundle nb of the k ops part[] (the last one f, placed last) with f's reads of optional values (U->direct)
 * each as the value's source text where the bundle forms so, the more the better, else from the value (which must
 * then be placed): true if it forms. */
static bool form_direct(struct bu *U, int f, struct route_bundle *nb, const int *part, int k)
{
    struct route *R = U->R;
    struct rop *x = &R->o[f];
    int dv[ROUTE_MAXREF], ndv = 0;
    for (int r = 0; r < x->nref && U->direct; r++) {
        bool dup = false;
        for (int j = 0; j < ndv; j++)
            dup |= dv[j] == x->ref[r];
        if (R->o[x->ref[r]].opt && x->feed[r] == -1 && !dup && ndv < 4)
            dv[ndv++] = x->ref[r];
    }
    for (int c = ndv; c >= 0; c--)
        for (unsigned m = 0; m < 1u << ndv; m++) {
            if (__builtin_popcount(m) != c)
                continue;
            for (int r = 0; r < x->nref; r++)
                for (int j = 0; j < ndv; j++)
                    if (x->ref[r] == dv[j])
                        x->feed[r] = m >> j & 1 ? ROUTE_DIRECT : -1;
            if (tsr_route_bu_build(U, nb, part, k))
                return true;
        }
    return false;
}

/* Places op f at position p, serving the reads S[0..ns) (each then reads f at its age): f joins bundle p and every
 * reader's bundle is formed again with the new source texts.  Undone (false) when a bundle does not form, an age
 * is outside f's window or has no text, or an end-of-block rule breaks. */
bool tsr_route_bu_place(struct bu *U, int f, int p, int (*S)[2], int ns)
{
    struct route *R = U->R;
    struct rop *x = &R->o[f];
    if (x->spill && p < x->minpos)
        return false;
    for (int s = 0; s < ns && !x->spill; s++) {
        int d = p - R->o[S[s][0]].pos;
        if (x->fwd < 0 || d < x->lo || d > x->hi || !tsr_pack_fwd_text(R->D, x->fwd, x->elem, d))
            return false;
    }
    struct route_bundle *b = &U->B[p];
    if (b->k >= ROUTE_MAXB - 1)
        return false;
    int part[ROUTE_MAXB];
    memcpy(part, b->part, (size_t)b->k * sizeof *part);
    part[b->k] = f;
    x->pos = p;
    struct route_bundle nb;
    bool ok = form_direct(U, f, &nb, part, b->k + 1);
    /* (U->flip: when f does not fit, the direct reads of the bundle's other ops from their values instead, then
     * each direct again where the bundle still forms) */
    int fl[ROUTE_MAXB * ROUTE_MAXREF][2], nfl = 0;
    if (!ok && U->flip) {
        for (int a = 0; a < b->k; a++)
            for (int r = 0; b->part[a] >= 0 && r < R->o[b->part[a]].nref; r++)
                if (R->o[b->part[a]].feed[r] == ROUTE_DIRECT) {
                    R->o[b->part[a]].feed[r] = -1;
                    fl[nfl][0] = b->part[a];
                    fl[nfl++][1] = r;
                }
        ok = nfl && form_direct(U, f, &nb, part, b->k + 1);
        for (int k = 0; k < nfl; k++) {
            struct route_bundle n2;
            R->o[fl[k][0]].feed[fl[k][1]] = ROUTE_DIRECT;
            if (ok && tsr_route_bu_build(U, &n2, part, b->k + 1))
                nb = n2;
            else if (ok)
                R->o[fl[k][0]].feed[fl[k][1]] = -1;
        }
    }
    /* (U->resv: the bundle keeps at least resv of the slots U->resv_mask free, cfg.late) */
    if (ok && U->resv > 0 && __builtin_popcountll(U->resv_mask & ~slots_of(R->t, nb.w)) < U->resv)
        ok = false;
    /* the readers' bundles with f's texts */
    int done[64], nd = 0;
    if (ok) {
        for (int s = 0; s < ns; s++)
            R->o[S[s][0]].feed[S[s][1]] = f;
        for (int s = 0; s < ns && ok; s++) {
            int q = R->o[S[s][0]].pos;
            bool seen = false;
            for (int k = 0; k < nd; k++)
                seen |= done[k] == q;
            if (seen || nd == 64)
                continue;
            struct route_bundle rb;
            ok = tsr_route_bu_build(U, &rb, U->B[q].part, U->B[q].k);
            done[nd++] = q;
            if (ok)
                U->B[q] = rb;
        }
    }
    struct route_bundle old = *b;
    if (ok) {
        *b = nb;
        if (breaks_end_rule(U, p))
            ok = false;
    }
    if (ok)
        return true;
    /* undo: f out, the readers back to no feeder, their bundles as they were (formed again: the same texts
     * give the same bundle) */
    *b = old;
    x->pos = -1;
    for (int r = 0; r < x->nref; r++)
        if (x->feed[r] == ROUTE_DIRECT)
            x->feed[r] = -1;
    for (int k = 0; k < nfl; k++)
        R->o[fl[k][0]].feed[fl[k][1]] = ROUTE_DIRECT;
    for (int s = 0; s < ns; s++)
        if (R->o[S[s][0]].feed[S[s][1]] == f)
            R->o[S[s][0]].feed[S[s][1]] = -1;
    for (int k = 0; k < nd; k++) {
        struct route_bundle rb;
        if (tsr_route_bu_build(U, &rb, U->B[done[k]].part, U->B[done[k]].k))
            U->B[done[k]] = rb;
    }
    return false;
}

/* tsr_route_bu_place with f in the first of its units (its alternatives, pack_route_alt.c) where it fits; f keeps
 * the unit it had when none does. */
static bool place(struct bu *U, int f, int p, int (*S)[2], int ns)
{
    struct rop *x = &U->R->o[f];
    if (x->nalt <= 1)
        return tsr_route_bu_place(U, f, p, S, ns);
    int was = 0;
    for (int a = 0; a < x->nalt; a++)
        if (x->fwd == x->altfwd[a] && x->elem == x->altelem[a])
            was = a;
    /* (the unit it has first, then those the ready operations need least; by_demand: all by that need) */
    int ord[ROUTE_MAXALT], dem[ROUTE_MAXALT], n = 0, keep = U->R->by_demand ? 0 : 1;
    for (int a = 0; a < x->nalt; a++) {
        int v = (was + a) % x->nalt, b = n++;
        int dv = a < keep || x->altslot[v] < 0 || x->altslot[v] >= 64 ? -1 : U->demand[x->altslot[v]];
        while (b > keep && dem[b - 1] > dv) {
            ord[b] = ord[b - 1];
            dem[b] = dem[b - 1];
            b--;
        }
        ord[b] = v;
        dem[b] = dv;
    }
    for (int a = 0; a < n; a++) {
        tsr_route_take_alt(x, ord[a]);
        if (tsr_route_bu_place(U, f, p, S, ns))
            return true;
    }
    tsr_route_take_alt(x, was);
    return false;
}

/* (pack_route_bu.h) */
bool tsr_route_bu_ready(const struct bu *U, int i, int p)
{
    const struct route *R = U->R;
    for (int k = 0; k < U->succ[i].n; k++) {
        const struct rop *y = &R->o[U->succ[i].e[k].to];
        if (y->pos < 0 || p - y->pos < U->succ[i].e[k].lat)
            return false;
    }
    for (int k = 0; k < U->nrd[i]; k++)
        if (R->o[U->rd[i][k]].pos < 0)
            return false;
    return true;
}

/* May input op i go to position p: ready there, no spill store of its value waiting (it reads the value), and no
 * spill holding a register element it accesses. */
static bool deps_ok(const struct bu *U, int i, int p)
{
    return tsr_route_bu_ready(U, i, p) && !tsr_route_spill_pending(U, i) && !tsr_route_spill_holds(U, i, p);
}

/* Is input op i optional in this schedule (struct rop.opt, and its readers may read its source text)? */
#define OPT(U, i) ((U)->direct && (U)->R->o[i].opt)

/* Must input op i be placed: not optional in this schedule, or some placed op reads its value with no feeder yet
 * (not directly), or a spill store of it waits? */
static bool wanted(const struct bu *U, int i)
{
    const struct route *R = U->R;
    if (!OPT(U, i))
        return true;
    for (int j = 0; j < U->nrd[i]; j++) {
        const struct rop *x = &R->o[U->rd[i][j]];
        for (int r = 0; r < x->nref && x->pos >= 0; r++)
            if (x->ref[r] == i && x->feed[r] == -1)
                return true;
    }
    /* (a move or a spill store of it placed, or a spill store of it waiting: it stores the value) */
    for (int j = U->n0; j < R->n; j++)
        if (R->o[j].ref[0] == i && ((R->o[j].pos >= 0 && R->o[j].feed[0] == -1) || (R->o[j].spill && R->o[j].pos < 0)))
            return true;
    return false;
}

/* Is an optional op among live[0..nl) wanted and not placed? */
static bool opt_wanted(const struct bu *U, const int *live, int nl)
{
    for (int k = 0; k < nl; k++)
        if (OPT(U, live[k]) && U->R->o[live[k]].pos < 0 && wanted(U, live[k]))
            return true;
    return false;
}

/* Values waiting for their producer: input values with outstanding reads and the producer not placed (is[v]);
 * *due gets those whose farthest outstanding read is at p (each needs a feeder within reach of p), and nx[v] (when
 * not NULL) marks those whose farthest read is hmove - 1 bundles after p: they need a feeder at p or p + 1 (lima's
 * "next max" values), *nnx their count. */
static int live_count(const struct bu *U, bool *is, int p, int *due, bool *nx, int *nnx)
{
    const struct route *R = U->R;
    int n = 0;
    int *qmin = calloc((size_t)U->n0 + 1, sizeof *qmin);
    for (int v = 0; v < U->n0; v++) {
        is[v] = false;
        qmin[v] = -1;
    }
    for (int i = 0; i < R->n; i++) {
        const struct rop *x = &R->o[i];
        if (x->pos < 0 || x->dropped)
            continue;
        for (int r = 0; r < x->nref; r++) {
            int v = x->ref[r];
            if (x->feed[r] != -1 || R->o[v].pos >= 0)
                continue;
            if (!is[v] || x->pos < qmin[v])
                qmin[v] = x->pos;
            is[v] = true;
        }
    }
    *due = 0;
    if (nnx)
        *nnx = 0;
    for (int v = 0; v < U->n0; v++) {
        n += is[v];
        *due += is[v] && qmin[v] == p;
        if (nx) {
            nx[v] = is[v] && qmin[v] == p + 1 - U->hmove;
            *nnx += nx[v];
        }
    }
    free(qmin);
    return n;
}

/* The slots (the first 64) the ops of instance words w use. */
static uint64_t slots_of(const struct tsr_target *t, const uint32_t *w)
{
    struct tsr_pack_ev e = { 0 };
    uint64_t m = 0;
    tsr_pack_ev_events(t, w, &e);
    for (int k = 0; e.vb && k < e.vb->nev; k++)
        if (e.vb->ev[k].kind == TSR_V_OP && e.vb->ev[k].slot >= 0 && e.vb->ev[k].slot < 64 &&
            !tsr_pack_op_idle(t, (unsigned)e.vb->ev[k].id))
            m |= (uint64_t)1 << e.vb->ev[k].slot;
    tsr_pack_ev_free(&e);
    return m;
}

/* A new move of value v (template m): its index, or -1 when its instance does not assemble or writes no
 * forward. */
static int new_move(struct bu *U, int v, int m)
{
    struct route *R = U->R;
    struct rop *mv = tsr_route_new_op(R);
    int mi = R->n - 1;
    tsr_route_fill_move(&U->tb, R->mv[m], "%1");
    mv->tmpl = strdup(U->tb.data);
    mv->nref = 1;
    mv->ref[0] = v;
    mv->refname[0] = 1;
    mv->line = R->o[v].line;
    mv->col = R->o[v].col;
    mv->move = true;
    if (tsr_route_bu_inst(U, mi, false)) {
        struct tsr_pack_ev e = { 0 };
        tsr_pack_ev_events(R->t, R->o[mi].iw, &e);
        tsr_route_written(&e, &R->o[mi].fwd, &R->o[mi].elem, &R->o[mi].lo, &R->o[mi].hi);
        tsr_pack_ev_free(&e);
    }
    if (R->o[mi].fwd < 0) {
        free(R->o[mi].tmpl);
        free(R->o[mi].itext);
        R->n--;
        return -1;
    }
    return mi;
}

static void drop_last(struct route *R)
{
    free(R->o[R->n - 1].tmpl);
    free(R->o[R->n - 1].itext);
    R->n--;
}

/* Step 1 of tsr_route_bu_run at position p: a feeder for each value mand[0..nmand) at its last chance (no feeder
 * could reach its farthest outstanding read from p + 1) whose producer is not placed: a move (templates in mvorder[0..nmo),
 * the least needed slots first) in bundle p or, when p has no slot left for one, in a bundle after it that the
 * farthest read is still after; or (cf->thr, or no move in time) a register spill.  S is scratch for 2 * scap
 * reads.  Returns 0, or -1 with the message in err and the value in *at when a value gets no feeder. */
static int feed_due(struct bu *U, const struct tsr_route_cfg *cf, const int *mand, int nmand, int p, int (*S)[2],
                    int scap, const int *mvorder, int nmo, bool *placed_any, char *err, size_t errn, int *at)
{
    struct route *R = U->R;
    for (int k = 0; k < nmand; k++) {
        int v = mand[k];
        if (R->o[v].pos >= 0)
            continue;
        int ns = tsr_route_bu_outstanding(U, v, S, scap);
        if (!ns)
            continue;
        /* a move serves the reads before its bundle (one placed at p itself, a reader placed by this
         * loop, waits); when bundle p has no slot left for one, a bundle after it that the farthest read
         * is still after (the reads before that bundle served there, the others wait) */
        bool done = false;
        /* (cf->thr: a value threaded by moves for more than thr bundles since its first read placed goes
         * through a register instead of another move) */
        if (cf->thr > 0) {
            int q0 = p;
            for (int k2 = 0; k2 < U->nrd[v]; k2++)
                if (R->o[U->rd[v][k2]].pos >= 0 && R->o[U->rd[v][k2]].pos < q0)
                    q0 = R->o[U->rd[v][k2]].pos;
            if (p - q0 > cf->thr && tsr_route_spill(U, v, p, S, ns)) {
                done = true;
                *placed_any = true;
            }
        }
        int (*T)[2] = S + ns;
        for (int pp = p; pp > p - U->hmove && pp > 0 && !done; pp--) {
            int nt = 0, qm = pp;
            for (int s2 = 0; s2 < ns; s2++)
                if (R->o[S[s2][0]].pos < pp) {
                    T[nt][0] = S[s2][0];
                    T[nt][1] = S[s2][1];
                    qm = R->o[S[s2][0]].pos < qm ? R->o[S[s2][0]].pos : qm;
                    nt++;
                }
            if (!nt || qm + U->hmove < p)
                continue;
            for (int mm = 0; mm < nmo && !done; mm++) {
                int mi = new_move(U, v, mvorder[mm]);
                if (mi < 0)
                    continue;
                if (place(U, mi, pp, T, nt))
                    done = true;
                else
                    drop_last(R);
            }
        }
        /* no move in time: the value through a register (its reads load it; its store waits) */
        if (!done && tsr_route_spill(U, v, p, S, ns)) {
            done = true;
            *placed_any = true;
        }
        if (!done) {
            snprintf(err, errn, "the packer found no move for this value at %d bundles from the end (its "
                     "readers could not be reached)", p);
            *at = v;
            return -1;
        }
    }
    return 0;
}

/* cf->press: spills a value waiting (is[v]) to make room for op i at p: the lowest in the priority order first,
 * not one i reads, not an optional one (a load: its spill would only add a store and loads), none with a spill
 * store pending; each read of it then loads a register element the input does not use (pack_spill.c).  True if
 * one was spilled. */
static bool press_spill(struct bu *U, int i, int p, const int *order, int nl, const bool *is, int (*S)[2], int scap)
{
    const struct rop *x = &U->R->o[i];
    for (int k = nl - 1; k >= 0; k--) {
        int v = order[k];
        bool read = false;
        for (int r = 0; r < x->nref; r++)
            read |= x->ref[r] == v;
        if (is[v] && !read && !OPT(U, v) && !tsr_route_spill_pending(U, v) && tsr_route_spill_value(U, v, p, S, scap))
            return true;
    }
    return false;
}

/* (pack_route_bu.h) */
int tsr_route_bu_run(struct route *R, int n0, const int *live, int nl, const struct tsr_pack_elist *succ,
                     const struct tsr_route_cfg *cf, int cap, struct route_bundle **out, int *nbp, char *err, size_t errn, int *at)
{
    int duelim = cf->due, limit = cf->lim;
    bool by_depth = cf->depth, live_first = cf->live;
    struct bu U = { 0 };
    U.R = R;
    U.n0 = n0;
    U.succ = succ;
    U.direct = cf->direct > 0;
    U.flip = cf->direct > 1;
    *at = -1;
    int rc = 0;
    U.rd = calloc((size_t)n0 + 1, sizeof *U.rd);
    U.nrd = calloc((size_t)n0 + 1, sizeof *U.nrd);
    for (int jj = 0; jj < nl; jj++) {
        int j = live[jj];
        for (int r = 0; r < R->o[j].nref; r++) {
            int v = R->o[j].ref[r];
            U.rd[v] = realloc(U.rd[v], ((size_t)U.nrd[v] + 1) * sizeof **U.rd);
            U.rd[v][U.nrd[v]++] = j;
        }
    }
    for (int i = 0; i < R->n; i++) {
        R->o[i].pos = -1;
        for (int r = 0; r < ROUTE_MAXREF; r++)
            R->o[i].feed[r] = -1;
        tsr_route_take_alt(&R->o[i], 0);   /* (the unit of the input first) */
    }
    /* the moves' reach: the largest age a move's result is readable at */
    for (int m = 0; m < R->nmv; m++) {
        int mi = new_move(&U, n0 > 0 ? live[0] : 0, m);
        if (mi >= 0) {
            if (R->o[mi].hi > U.hmove)
                U.hmove = R->o[mi].hi;
            drop_last(R);
        }
    }
    /* priority: the longest path from the program's start (values: the producer's first readable age;
     * pack_route_crit.c); cf->slack >= 0: an op whose latest position for a schedule of the critical path's length
     * + slack is p (or less) is placed before the others, the limits on waiting values aside */
    int *depth = calloc((size_t)n0 + 1, sizeof *depth);
    int cpl = tsr_route_crit_depth(R, live, nl, succ, U.direct, depth);
    int target = cf->slack >= 0 ? cpl + cf->slack : -1;
    int *order = malloc(((size_t)nl + 1) * sizeof *order);
    tsr_route_crit_order(live, nl, depth, by_depth, cf->seed, order);
    bool *is = calloc((size_t)n0 + 1, sizeof *is);
    int *mand = malloc(((size_t)n0 + 1) * sizeof *mand);
    uint64_t *slot = calloc((size_t)n0 + 1, sizeof *slot);
    for (int k = 0; k < nl; k++)
        slot[live[k]] = slots_of(R->t, R->o[live[k]].w);
    uint64_t mvslot[64] = { 0 };
    int mvdem[64] = { 0 }, mvhi[64] = { 0 };
    for (int m = 0; m < R->nmv && m < 64; m++) {
        int mi = new_move(&U, n0 > 0 ? live[0] : 0, m);
        if (mi >= 0) {
            mvslot[m] = slots_of(R->t, R->o[mi].iw);
            mvhi[m] = R->o[mi].hi;
            drop_last(R);
        }
    }
    /* cf->fit: the limits from what the moves' slots can carry (lima's bound on live values and on "max" ones) */
    int nfar = 0;
    uint64_t mvall = 0;
    for (int m = 0; m < R->nmv && m < 64; m++)
        mvall |= mvslot[m];
    /* (cf->late: the slots whose move reaches the farthest age, kept free for the values at their last chance) */
    bool late = cf->late > 0;
    uint64_t mvfar = 0;
    for (int m = 0; m < R->nmv && m < 64; m++)
        if (mvhi[m] >= U.hmove)
            mvfar |= mvslot[m];
    if (cf->fit) {
        tsr_route_crit_capacity(mvslot, mvhi, R->nmv, U.hmove, &limit, &nfar);
        duelim = cf->fit == 2 ? limit : nfar;
    }
    bool *nx = calloc((size_t)n0 + 1, sizeof *nx);
    bool *dmark = calloc((size_t)n0 + 1, sizeof *dmark);
    int scap = 4 * n0 + 1024;
    int (*S)[2] = malloc(sizeof(int[2]) * (size_t)(2 * scap));   /* (twice: a subset goes after them) */
    /* (the optional ops are not left to place: one is placed only while it is wanted) */
    int left = 0, idle = 0;
    for (int k = 0; k < nl; k++)
        left += !OPT(&U, live[k]);
    int p;
    for (p = 0; (left > 0 || opt_wanted(&U, live, nl)) && !rc; p++) {
        if (p >= cap || idle > 24) {
            snprintf(err, errn, "the packer could not place every operation");
            rc = p >= cap ? -2 : -1;
            break;
        }
        if (U.nb == U.capb) {
            U.capb = U.capb ? 2 * U.capb : 64;
            U.B = realloc(U.B, (size_t)U.capb * sizeof *U.B);
        }
        memset(&U.B[U.nb++], 0, sizeof *U.B);
        /* 1. values at their last chance: no feeder could reach their farthest outstanding read from p + 1; their
         * producers first, then moves, each in the slot the operations ready now need least */
        int nmand = 0;
        bool placed_any = false;
        for (int v = 0; v < n0; v++) {
            if (R->o[v].pos >= 0 || R->o[v].dropped)
                continue;
            int ns = tsr_route_bu_outstanding(&U, v, S, scap);
            if (!ns)
                continue;
            int qmin = p;
            for (int s = 0; s < ns; s++)
                if (R->o[S[s][0]].pos < qmin)
                    qmin = R->o[S[s][0]].pos;
            int reach = U.hmove > R->o[v].hi ? U.hmove : R->o[v].hi;
            if (p - qmin + 1 > reach)
                mand[nmand++] = v;
        }
        int demand[64] = { 0 };
        for (int k = 0; k < nl; k++) {
            int i = live[k];
            if (R->o[i].pos < 0 && deps_ok(&U, i, p) && wanted(&U, i))
                for (uint64_t m = slot[i]; m; m &= m - 1)
                    demand[__builtin_ctzll(m)]++;
        }
        memcpy(U.demand, demand, sizeof demand);
        int mvorder[64], nmo = 0;
        for (int m = 0; m < R->nmv && m < 64; m++) {
            int dm = 0;
            for (uint64_t b = mvslot[m]; b; b &= b - 1)
                dm += demand[__builtin_ctzll(b)];
            int b = nmo++;
            while (b > 0 && mvdem[mvorder[b - 1]] > dm) {
                mvorder[b] = mvorder[b - 1];
                b--;
            }
            mvorder[b] = m;
            mvdem[m] = dm;
        }
        /* (the producers first, then, before the operations or with cf->late after them, moves) */
        for (int k = 0; k < nmand && !rc; k++) {
            int v = mand[k];
            if (R->o[v].pos >= 0)
                continue;
            int ns = tsr_route_bu_outstanding(&U, v, S, scap);
            if (ns && deps_ok(&U, v, p) && place(&U, v, p, S, ns)) {
                left -= !OPT(&U, v);
                placed_any = true;
            }
        }
        if (!late && !rc)
            rc = feed_due(&U, cf, mand, nmand, p, S, scap, mvorder, nmo, &placed_any, err, errn, at);
        /* (the spill stores whose loads are far enough behind) */
        if (!rc && tsr_route_spill_place(&U, p))
            placed_any = true;
        /* 2. the operations whose readers are all placed, by priority, while the values waiting stay few */
        for (bool again = true; again && !rc;) {
            again = false;
            int due = 0, nnx = 0, nlive = live_count(&U, is, p, &due, cf->fit == 2 ? nx : NULL, &nnx);
            uint64_t used = U.B[p].k ? slots_of(R->t, U.B[p].w) : 0;
            /* (cf->late: the values at their last chance still without a feeder, each needing a far slot; dmark[v]:
             * v is one of them) */
            int mall = 0;
            for (int k2 = 0; k2 < nmand && late; k2++) {
                int v = mand[k2];
                dmark[v] = R->o[v].pos < 0 && tsr_route_bu_outstanding(&U, v, S, scap) > 0;
                mall += dmark[v];
            }
            for (int k = 0; k < 3 * nl && !rc && !again; k++) {
                /* (first the ops at their latest position for the target length, then the producers of values
                 * waiting, when asked: each placed ends a thread of moves, then the others) */
                int i = order[k % nl], stage = k / nl;
                bool urgent = target >= 0 && p + depth[i] >= target - 1;
                if ((stage == 0) != urgent || (!urgent && (stage == 1) != (live_first && is[i])) ||
                    R->o[i].pos >= 0 || !deps_ok(&U, i, p) || !wanted(&U, i))
                    continue;
                int add = 0;
                for (int r = 0; r < R->o[i].nref; r++) {
                    int v = R->o[i].ref[r];
                    bool dup = false;
                    for (int r2 = 0; r2 < r; r2++)
                        dup |= R->o[i].ref[r2] == v;
                    add += !dup && R->o[v].pos < 0 && !is[v] && !OPT(&U, v);
                }
                if (add && nlive > 0 && !urgent && (nlive - (is[i] ? 1 : 0) + add > limit || due + add > duelim)) {
                    /* (cf->press: a value waiting goes through a register to make room, and the round starts
                     * again with the counts of values waiting that leaves) */
                    if (cf->press && press_spill(&U, i, p, order, nl, is, S, scap)) {
                        placed_any = again = true;
                        break;
                    }
                    continue;
                }
                /* (fit 2: the "next max" values beyond the far slots of p + 1 keep move slots free in p) */
                if (cf->fit == 2 && nnx - nx[i] > nfar &&
                    __builtin_popcountll(mvall & ~(used | slot[i])) < nnx - nx[i] - nfar)
                    continue;
                if (late) {
                    int mleft = mall - dmark[i];
                    /* (late 1: judged by the op's unit of the input; 2: by the bundle it forms) */
                    if (cf->late == 1 && mleft && __builtin_popcountll(mvfar & ~(used | slot[i])) < mleft)
                        continue;
                    U.resv = cf->late == 2 ? mleft : 0;
                    U.resv_mask = mvfar;
                }
                int ns = tsr_route_bu_outstanding(&U, i, S, scap);
                bool okp = place(&U, i, p, S, ns);
                U.resv = 0;
                if (okp) {
                    left -= !OPT(&U, i);
                    placed_any = again = true;
                }
            }
        }
        for (int k = 0; k < nmand; k++)
            dmark[mand[k]] = false;
        if (late && !rc)
            rc = feed_due(&U, cf, mand, nmand, p, S, scap, mvorder, nmo, &placed_any, err, errn, at);
        /* 3. (cf->pre) the move slots left free carry values that would be at their last chance at p + 1 (lima's
         * "next max" values), the least urgent first: bundle p + 1 then keeps its slots for operations */
        if (cf->pre && !rc) {
            int due2 = 0, nnx2 = 0;
            live_count(&U, is, p, &due2, nx, &nnx2);
            for (int k = nl - 1; k >= 0 && !rc && nnx2 > 0; k--) {
                int v = order[k];
                if (!nx[v] || R->o[v].pos >= 0)
                    continue;
                int ns = tsr_route_bu_outstanding(&U, v, S, scap);
                if (!ns)
                    continue;
                /* (not a value whose producer may follow at p + 1 and reach its reads from there: complex1's, read
                 * at age 2 only, would be moved again at each bundle) */
                int qlo = p, qhi = -1;
                for (int s2 = 0; s2 < ns; s2++) {
                    int q = R->o[S[s2][0]].pos;
                    qlo = q < qlo ? q : qlo;
                    qhi = q > qhi ? q : qhi;
                }
                if (R->o[v].lo >= 2 && deps_ok(&U, v, p + 1) && p + 1 - qhi >= R->o[v].lo &&
                    p + 1 - qlo <= R->o[v].hi)
                    continue;
                for (int mm = 0; mm < nmo; mm++) {
                    int mi = new_move(&U, v, mvorder[mm]);
                    if (mi < 0)
                        continue;
                    if (place(&U, mi, p, S, ns))
                        break;
                    drop_last(R);
                }
            }
        }
        /* (a schedule stuck on the limit: every waiting value's producer waits for readers that would add more;
         * one of them, whose producer cannot come yet, goes through a register: one value fewer waiting) */
        if (!placed_any && !rc && tsr_route_spill_waiting(&U, p, S, scap))
            placed_any = true;
        idle = placed_any ? 0 : idle + 1;
        if (idle && idle % 4 == 0) {
            limit++;
            duelim++;
        }
    }
    if (!rc && left > 0) {
        snprintf(err, errn, "the packer could not place every operation");
        rc = -1;
    }
    if (!rc) {
        /* program order: position p is bundle nb - 1 - p */
        int nb = U.nb;
        struct route_bundle *B = malloc(((size_t)nb + 1) * sizeof *B);
        for (int k = 0; k < nb; k++)
            B[k] = U.B[nb - 1 - k];
        for (int i = 0; i < R->n; i++)
            if (R->o[i].pos >= 0)
                R->o[i].cyc = nb - 1 - R->o[i].pos;
        /* a bundle left empty (a latency waited for) gets a move of a value the bundle before produced, read by
         * no one: a target may have no text for an idle bundle */
        for (int c = 1; c < nb && !rc; c++) {
            if (B[c].k)
                continue;
            bool done = false;
            struct tsr_pack_ev e = { 0 };
            tsr_pack_ev_events(R->t, B[c - 1].w, &e);
            for (int k = 0; e.vb && k < e.vb->nev && !done; k++) {
                const struct tsr_vev *v = &e.vb->ev[k];
                int lo = (int)(v->val & 0xff), hi = (int)(v->val >> 8 & 0xff);
                if (v->kind != TSR_V_WFWD || v->addr < 0 || v->slot < 0 || lo > 1 || hi < 1)
                    continue;
                const char *src = tsr_pack_fwd_text(R->D, v->id, (int)v->addr, 1);
                for (int m = 0; m < R->nmv && src && !done; m++) {
                    tsr_route_fill_move(&U.tb, R->mv[m], src);
                    if (!tsr_pack_assemble_cached(R->t, U.tb.data, U.tb.len, B[c].w)) {
                        B[c].k = 1;      /* (a part of no operation) */
                        B[c].part[0] = -1;
                        done = true;
                    }
                }
            }
            tsr_pack_ev_free(&e);
            /* (none readable at age 1, e.g. after a bundle whose values are readable at age 2 only, complex1's: a
             * move of a register element nothing in the schedule writes) */
            const char *q;
            for (int k = 0; !done && (q = tsr_route_spill_quiet(&U, k)); k++)
                for (int m = 0; m < R->nmv && !done; m++) {
                    tsr_route_fill_move(&U.tb, R->mv[m], q);
                    if (!tsr_pack_assemble_cached(R->t, U.tb.data, U.tb.len, B[c].w)) {
                        B[c].k = 1;
                        B[c].part[0] = -1;
                        done = true;
                    }
                }
            if (!done) {
                snprintf(err, errn, "the packer left bundle %d empty and found no move to fill it", c);
                rc = -1;
            }
        }
        if (rc) {
            free(B);
            B = NULL;
        }
        *out = B;
        *nbp = nb;
    }
    for (int v = 0; v < n0; v++)
        free(U.rd[v]);
    free(U.rd);
    free(U.nrd);
    free(U.B);
    free(depth);
    free(order);
    free(is);
    free(nx);
    free(dmark);
    free(mand);
    free(slot);
    free(S);
    tsr_buf_free(&U.tb);
    return rc;
}
