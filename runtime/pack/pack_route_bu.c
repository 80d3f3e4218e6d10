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
 * the reads that cannot be.  Here: the placement of one op (its bundle and its readers' bundles formed again), the
 * set-up of a schedule, its loop over the bundles and the filler of the bundles left empty; the steps of one bundle
 * are in pack_route_step.c.  Nothing here names a target, a unit or a field. */
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
    bool as = U->tb.data && !tsr_pack_assemble_cached(R->t, U->tb.data, U->tb.len, aw);
    /* (placeholders no source mux takes together, `add ^c@1 ^c@1` for two complex results not fed yet: one of
     * them by another text of its forward, as the analysis does; its feeder, a move, is decided later) */
    unsigned ph = 0;
    for (int r = 0; r < x->nref; r++)
        ph |= (unsigned)(x->feed[r] == -1) << r;
    as = as || (ph && tsr_route_other_texts(R, x, texts, ph, sw, sw, &U->tb, aw));
    if (!as)
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
    /* (a bundle left empty so far holds a move when the schedule is done, fill_empty: here a move of a forward
     * element at age 1, which stores nothing; its words are not the empty bundle's zeros, which may decode to
     * stores) */
    uint32_t fw[TSR_PACK_MAX_NWORDS];
    bool fill = false;
    for (int k = 0; k <= p && !fill; k++)
        fill = !U->B[k].k;
    if (fill) {
        const struct route *R = U->R;
        struct tsr_buf fb = { 0 };
        fill = false;
        for (int i = 0; i < R->D->nfwdtexts && !fill; i++)
            for (int m = 0; m < R->nmv && !fill && R->D->fwdtexts[i].age == 1; m++) {
                tsr_route_fill_move(&fb, R->mv[m], R->D->fwdtexts[i].text);
                fill = !tsr_pack_assemble_cached(t, fb.data, fb.len, fw);
            }
        tsr_buf_free(&fb);
    }
    for (int k = 0; k <= p; k++) {
        w[k] = U->B[k].k || !fill ? U->B[k].w : fw;
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

/* (pack_route_bu.h) The index brought up to date first: the ops dropped since it looked off the lists, the ops from
 * there on added. */
int tsr_route_bu_inserted(const struct bu *U, int v, const int **ops)
{
    struct route *R = U->R;
    struct bu_readers *X = U->rx;
    int lw = R->lw < X->rl_n ? R->lw : X->rl_n;
    while (X->nrlog > 0 && X->rlog[X->nrlog - 1][0] >= lw)
        X->nrl[X->rlog[--X->nrlog][1]]--;
    for (int j = lw > U->n0 ? lw : U->n0; j < R->n; j++) {
        const struct rop *x = &R->o[j];
        for (int r = 0; r < x->nref; r++) {
            int w = x->ref[r];
            if (w < 0 || w >= U->n0 || (X->nrl[w] && X->rl[w][X->nrl[w] - 1] == j))
                continue;
            if (X->nrl[w] == X->caprl[w]) {
                X->caprl[w] = X->caprl[w] ? 2 * X->caprl[w] : 4;
                X->rl[w] = realloc(X->rl[w], (size_t)X->caprl[w] * sizeof **X->rl);
            }
            if (X->nrlog == X->caprlog) {
                X->caprlog = X->caprlog ? 2 * X->caprlog : 64;
                X->rlog = realloc(X->rlog, (size_t)X->caprlog * sizeof *X->rlog);
            }
            if (!X->rl[w] || !X->rlog)
                abort();
            X->rl[w][X->nrl[w]++] = j;
            X->rlog[X->nrlog][0] = j;
            X->rlog[X->nrlog++][1] = w;
        }
    }
    X->rl_n = R->n;
    R->lw = R->n;
    *ops = X->rl[v];
    return X->nrl[v];
}

/* (S, n, cap) gets op j's reads of v with no feeder yet, when j is placed. */
static int reads_of(const struct route *R, int j, int v, int (*S)[2], int n, int cap)
{
    const struct rop *x = &R->o[j];
    if (x->pos < 0 || x->dropped)
        return n;
    for (int r = 0; r < x->nref; r++)
        if (x->ref[r] == v && x->feed[r] == -1 && n < cap) {
            S[n][0] = j;
            S[n][1] = r;
            n++;
        }
    return n;
}

/* The outstanding reads of value v (an input op): placed ops that read it with no feeder yet, as (op, source
 * index) pairs into S (at most cap), in the order of the ops; their count.  The readers are the input's (U->rd)
 * and the inserted ops' (U->rx): not a pass over every op (a program of 1,852 operations spent 97 % of its time
 * there). */
int tsr_route_bu_outstanding(const struct bu *U, int v, int (*S)[2], int cap)
{
    const struct route *R = U->R;
    const int *ins;
    int ni = tsr_route_bu_inserted(U, v, &ins);
    int n = 0;
    for (int k = 0; k < U->nrd[v]; k++)
        if (k == 0 || U->rd[v][k - 1] != U->rd[v][k])
            n = reads_of(R, U->rd[v][k], v, S, n, cap);
    for (int k = 0; k < ni; k++)
        n = reads_of(R, ins[k], v, S, n, cap);
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
    /* (randomized: the fewest direct reads first) */
    bool up = ndv > 0 && bu_coin(U, BU_R_DIRECT);
    for (int cc = ndv; cc >= 0; cc--)
        for (unsigned m = 0; m < 1u << ndv; m++) {
            int c = up ? ndv - cc : cc;
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
    if (ok && U->resv > 0 && __builtin_popcountll(U->resv_mask & ~tsr_route_bu_slots(R->t, nb.w)) < U->resv)
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
    if (ok) {
        for (int r = 0; r < x->nref; r++) {
            int v = x->ref[r];
            if (v < U->n0 && (x->move || U->ins[v] < 0))
                U->ins[v] = U->nins++;
        }
        return true;
    }
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
 * the unit it had when none does (pack_route_bu.h). */
bool tsr_route_bu_place_any(struct bu *U, int f, int p, int (*S)[2], int ns)
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
    /* (randomized: a random unit first, the others after in their order) */
    if (n > 1 && bu_coin(U, BU_R_UNIT)) {
        int j = 1 + bu_rand(U, n - 1), v = ord[j];
        memmove(ord + 1, ord, (size_t)j * sizeof *ord);
        ord[0] = v;
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
bool tsr_route_bu_deps_ok(const struct bu *U, int i, int p)
{
    return tsr_route_bu_ready(U, i, p) && !tsr_route_spill_pending(U, i) && !tsr_route_spill_holds(U, i, p);
}

/* Must input op i be placed: not optional in this schedule, or some placed op reads its value with no feeder yet
 * (not directly), or a spill store of it waits? */
bool tsr_route_bu_wanted(const struct bu *U, int i)
{
    const struct route *R = U->R;
    if (!BU_OPT(U, i))
        return true;
    for (int j = 0; j < U->nrd[i]; j++) {
        const struct rop *x = &R->o[U->rd[i][j]];
        for (int r = 0; r < x->nref && x->pos >= 0; r++)
            if (x->ref[r] == i && x->feed[r] == -1)
                return true;
    }
    /* (a move or a spill store of it placed, or a spill store of it waiting: it stores the value) */
    const int *ins;
    int ni = tsr_route_bu_inserted(U, i, &ins);
    for (int k = 0; k < ni; k++) {
        int j = ins[k];
        if (R->o[j].ref[0] == i && ((R->o[j].pos >= 0 && R->o[j].feed[0] == -1) || (R->o[j].spill && R->o[j].pos < 0)))
            return true;
    }
    return false;
}

/* Is an optional op among live[0..nl) wanted and not placed? */
static bool opt_wanted(const struct bu *U, const int *live, int nl)
{
    for (int k = 0; k < nl; k++)
        if (BU_OPT(U, live[k]) && U->R->o[live[k]].pos < 0 && tsr_route_bu_wanted(U, live[k]))
            return true;
    return false;
}

/* The slots (the first 64) the ops of instance words w use (pack_route_bu.h). */
uint64_t tsr_route_bu_slots(const struct tsr_target *t, const uint32_t *w)
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
 * forward (pack_route_bu.h). */
int tsr_route_bu_new_move(struct bu *U, int v, int m)
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
        tsr_route_bu_drop_last(R);
        return -1;
    }
    return mi;
}

/* (pack_route_bu.h) */
void tsr_route_bu_drop_last(struct route *R)
{
    free(R->o[R->n - 1].tmpl);
    free(R->o[R->n - 1].itext);
    R->n--;
    if (R->n < R->lw)
        R->lw = R->n;
}

/* The set-up of schedule s of the input ops live[0..nl) of R with setting cf: every op unplaced, without feeders,
 * in the unit of the input; the readers of each value; the moves' reach and slots; the priority (depth, order,
 * target); the limits (cf->lim and cf->due, or with cf->fit from the moves' capacity); the scratch arrays. */
static void setup(struct bu_run *s, struct route *R, int n0, const int *live, int nl,
                  const struct tsr_pack_elist *succ, const struct tsr_route_cfg *cf, const int *order, char *err,
                  size_t errn, int *at)
{
    memset(s, 0, sizeof *s);
    struct bu *U = &s->U;
    s->cf = cf;
    s->live = live;
    s->nl = nl;
    s->n0 = n0;
    s->err = err;
    s->errn = errn;
    s->at = at;
    s->duelim = cf->due;
    s->limit = cf->lim;
    U->R = R;
    U->n0 = n0;
    U->succ = succ;
    U->direct = cf->direct > 0;
    U->flip = cf->direct > 1;
    U->rd = calloc((size_t)n0 + 1, sizeof *U->rd);
    U->nrd = calloc((size_t)n0 + 1, sizeof *U->nrd);
    U->rx = calloc(1, sizeof *U->rx);
    U->rx->rl = calloc((size_t)n0 + 1, sizeof *U->rx->rl);
    U->rx->nrl = calloc((size_t)n0 + 1, sizeof *U->rx->nrl);
    U->rx->caprl = calloc((size_t)n0 + 1, sizeof *U->rx->caprl);
    U->rx->rl_n = R->n;
    R->lw = R->n;
    for (int jj = 0; jj < nl; jj++) {
        int j = live[jj];
        for (int r = 0; r < R->o[j].nref; r++) {
            int v = R->o[j].ref[r];
            U->rd[v] = realloc(U->rd[v], ((size_t)U->nrd[v] + 1) * sizeof **U->rd);
            U->rd[v][U->nrd[v]++] = j;
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
        int mi = tsr_route_bu_new_move(U, n0 > 0 ? live[0] : 0, m);
        if (mi >= 0) {
            if (R->o[mi].hi > U->hmove)
                U->hmove = R->o[mi].hi;
            tsr_route_bu_drop_last(R);
        }
    }
    /* priority: the longest path from the program's start (values: the producer's first readable age;
     * pack_route_crit.c); cf->slack >= 0: an op whose latest position for a schedule of the critical path's length
     * + slack is p (or less) is placed before the others, the limits on waiting values aside */
    s->depth = calloc((size_t)n0 + 1, sizeof *s->depth);
    int cpl = tsr_route_crit_depth(R, live, nl, succ, U->direct, s->depth);
    s->target = cf->slack >= 0 ? cpl + cf->slack : -1;
    s->order = malloc(((size_t)nl + 1) * sizeof *s->order);
    if (order)
        memcpy(s->order, order, (size_t)nl * sizeof *order);
    else
        tsr_route_crit_order(live, nl, s->depth, cf->depth, cf->seed, s->order);
    s->is = calloc((size_t)n0 + 1, sizeof *s->is);
    U->ins = malloc(((size_t)n0 + 1) * sizeof *U->ins);
    for (int k = 0; k <= n0; k++)
        U->ins[k] = -1;
    s->dyn = malloc(((size_t)nl + 1) * sizeof *s->dyn);
    memcpy(s->dyn, s->order, (size_t)nl * sizeof *s->dyn);   /* (cf->fifo: sorted again in place at each round) */
    s->mand = malloc(((size_t)n0 + 1) * sizeof *s->mand);
    s->slot = calloc((size_t)n0 + 1, sizeof *s->slot);
    for (int k = 0; k < nl; k++)
        s->slot[live[k]] = tsr_route_bu_slots(R->t, R->o[live[k]].w);
    for (int m = 0; m < R->nmv && m < 64; m++) {
        int mi = tsr_route_bu_new_move(U, n0 > 0 ? live[0] : 0, m);
        if (mi >= 0) {
            s->mvslot[m] = tsr_route_bu_slots(R->t, R->o[mi].iw);
            s->mvhi[m] = R->o[mi].hi;
            tsr_route_bu_drop_last(R);
        }
    }
    /* cf->fit: the limits from what the moves' slots can carry (lima's bound on live values and on "max" ones) */
    for (int m = 0; m < R->nmv && m < 64; m++)
        s->mvall |= s->mvslot[m];
    /* (cf->late: the slots whose move reaches the farthest age, kept free for the values at their last chance) */
    s->late = cf->late > 0;
    for (int m = 0; m < R->nmv && m < 64; m++)
        if (s->mvhi[m] >= U->hmove)
            s->mvfar |= s->mvslot[m];
    if (cf->fit) {
        tsr_route_crit_capacity(s->mvslot, s->mvhi, R->nmv, U->hmove, &s->limit, &s->nfar);
        s->duelim = cf->fit == 2 ? s->limit : s->nfar;
    }
    s->nx = calloc((size_t)n0 + 1, sizeof *s->nx);
    s->dmark = calloc((size_t)n0 + 1, sizeof *s->dmark);
    s->scap = 4 * n0 + 1024;
    s->S = malloc(sizeof(int[2]) * (size_t)(2 * s->scap));   /* (twice: a subset goes after them) */
    /* (the optional ops are not left to place: one is placed only while it is wanted) */
    for (int k = 0; k < nl; k++)
        s->left += !BU_OPT(U, live[k]);
}

/* Frees what setup and the schedule allocated (not the bundles handed out). */
static void teardown(struct bu_run *s)
{
    for (int v = 0; v < s->n0; v++) {
        free(s->U.rd[v]);
        free(s->U.rx->rl[v]);
    }
    free(s->U.rd);
    free(s->U.nrd);
    free(s->U.rx->rl);
    free(s->U.rx->nrl);
    free(s->U.rx->caprl);
    free(s->U.rx->rlog);
    free(s->U.rx);
    free(s->U.B);
    free(s->depth);
    free(s->order);
    free(s->dyn);
    free(s->U.ins);
    free(s->is);
    free(s->nx);
    free(s->dmark);
    free(s->mand);
    free(s->slot);
    free(s->S);
    tsr_route_bu_trial_free(s);
    tsr_buf_free(&s->U.tb);
}

/* The filler of the bundles B[1..nb) (program order) left empty, a latency waited for: a move of a value the
 * bundle before produced, read by no one (a target may have no text for an idle bundle), else of a register
 * element nothing in the schedule writes; each filled bundle has one part, -1 (a part of no operation).  Returns
 * 0, or -1 (the message in err) when a bundle finds no such move. */
static int fill_empty(struct bu *U, struct route_bundle *B, int nb, char *err, size_t errn)
{
    const struct route *R = U->R;
    for (int c = 1; c < nb; c++) {
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
                tsr_route_fill_move(&U->tb, R->mv[m], src);
                if (!tsr_pack_assemble_cached(R->t, U->tb.data, U->tb.len, B[c].w)) {
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
        for (int k = 0; !done && (q = tsr_route_spill_quiet(U, k)); k++)
            for (int m = 0; m < R->nmv && !done; m++) {
                tsr_route_fill_move(&U->tb, R->mv[m], q);
                if (!tsr_pack_assemble_cached(R->t, U->tb.data, U->tb.len, B[c].w)) {
                    B[c].k = 1;
                    B[c].part[0] = -1;
                    done = true;
                }
            }
        if (!done) {
            snprintf(err, errn, "the packer left bundle %d empty and found no move to fill it", c);
            return -1;
        }
    }
    return 0;
}

/* (pack_route_bu.h) */
int tsr_route_bu_run(struct route *R, int n0, const int *live, int nl, const struct tsr_pack_elist *succ,
                     const struct tsr_route_cfg *cf, const int *order, int cap, struct route_bundle **out, int *nbp,
                     char *err, size_t errn, int *at, struct tsr_route_rnd *rnd)
{
    struct bu_run s;
    *at = -1;
    setup(&s, R, n0, live, nl, succ, cf, order, err, errn, at);
    struct bu *U = &s.U;
    if (rnd) {
        U->rprob = rnd->prob;
        U->rmask = rnd->mask;
        U->rng = 0x9e3779b97f4a7c15ull * ((unsigned long long)rnd->seed + 1);
        U->dflip = rnd->flip;
        U->fmask = rnd->fmask;
        U->nflip = rnd->nflip;
    }
    int rc = 0;
    /* bundle p (from the end) while an op is left to place (or an optional one is wanted) */
    for (int p = 0; (s.left > 0 || opt_wanted(U, live, nl)) && !rc; p++) {
        if (p >= cap || s.idle > 24) {
            snprintf(err, errn, "the packer could not place every operation");
            rc = p >= cap ? -2 : -1;
            break;
        }
        if (U->nb == U->capb) {
            U->capb = U->capb ? 2 * U->capb : 64;
            U->B = realloc(U->B, (size_t)U->capb * sizeof *U->B);
        }
        memset(&U->B[U->nb++], 0, sizeof *U->B);
        rc = tsr_route_bu_bundle(&s, p);
        /* (a randomized schedule stops as soon as it cannot finish within cap: an op not placed goes to p + 1 or
         * later, after at least its depth of bundles) */
        if (!rc && rnd && s.left > 0) {
            int md = 0;
            for (int k = 0; k < nl; k++)
                if (R->o[live[k]].pos < 0 && !BU_OPT(U, live[k]) && s.depth[live[k]] > md)
                    md = s.depth[live[k]];
            if (p + 2 + md > cap) {
                snprintf(err, errn, "the packer could not place every operation");
                rc = -2;
            }
        }
    }
    if (!rc && s.left > 0) {
        snprintf(err, errn, "the packer could not place every operation");
        rc = -1;
    }
    if (!rc) {
        /* program order: position p is bundle nb - 1 - p */
        int nb = U->nb;
        struct route_bundle *B = malloc(((size_t)nb + 1) * sizeof *B);
        for (int k = 0; k < nb; k++)
            B[k] = U->B[nb - 1 - k];
        for (int i = 0; i < R->n; i++)
            if (R->o[i].pos >= 0)
                R->o[i].cyc = nb - 1 - R->o[i].pos;
        rc = fill_empty(U, B, nb, err, errn);
        if (rc) {
            free(B);
            B = NULL;
        }
        *out = B;
        *nbp = nb;
    }
    if (rnd)
        rnd->ndec = U->dc;
    teardown(&s);
    return rc;
}

/* (pack_route_bu.h) */
int tsr_route_bu_again(struct route *R, int n0, const int *live, int nl, const struct tsr_pack_elist *succ,
                       const struct tsr_route_cfg *cf, const int *order, bool byd, int cap, struct tsr_route_rnd *rnd)
{
    while (R->n > n0)
        tsr_route_bu_drop_last(R);
    R->by_demand = byd;
    struct route_bundle *B = NULL;
    int nb = 0, a = -1;
    char e[300];
    int r = tsr_route_bu_run(R, n0, live, nl, succ, cf, order, cap, &B, &nb, e, sizeof e, &a, rnd);
    free(B);
    return r ? -1 : nb;
}
