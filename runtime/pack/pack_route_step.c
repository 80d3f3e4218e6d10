/* The steps of one bundle of the bottom-up scheduler (tsr_route_bu_run, pack_route_bu.c; docs/pack.md "Values
 * through forwards"): bundle p (positions from the end) first serves the values at their last chance (step 1:
 * their producers, then moves or register spills), then places the spill stores that may go there, then the
 * operations whose readers are all placed, by priority, while the values waiting stay few (step 2), then, with
 * cf->pre, moves of the values that would be at their last chance at p + 1 (step 3).  The state they share is a
 * struct bu_run (pack_route_bu.h).  Nothing here names a target, a unit or a field. */
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include "pack_route_bu.h"

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

/* The reads S[0..ns) ((op, source) pairs) placed before position pp (later in the program: a feeder at pp reaches
 * them, a read in bundle pp itself it does not) into T; their count, and in *qm (when not NULL) the least position
 * among them (pp when none). */
static int reads_before(const struct route *R, int (*S)[2], int ns, int pp, int (*T)[2], int *qm)
{
    int nt = 0, q = pp;
    for (int k = 0; k < ns; k++)
        if (R->o[S[k][0]].pos < pp) {
            T[nt][0] = S[k][0];
            T[nt][1] = S[k][1];
            q = R->o[S[k][0]].pos < q ? R->o[S[k][0]].pos : q;
            nt++;
        }
    if (qm)
        *qm = q;
    return nt;
}

/* Step 1's feeders, at position p: a feeder for each value s->mand[0..nmand) at its last chance (no feeder could
 * reach its farthest outstanding read from p + 1) whose producer is not placed: a move (templates in
 * s->mvorder[0..nmo), the least needed slots first) in bundle p or, when p has no slot left for one, in a bundle
 * after it that the farthest read is still after; or (cf->thr, or no move in time) a register spill.  Called
 * before step 2, or with cf->late after it.  Returns 0, or -1 with the message in s->err and the value in *s->at
 * when a value gets no feeder. */
static int feed_due(struct bu_run *s, int p)
{
    struct bu *U = &s->U;
    struct route *R = U->R;
    const struct tsr_route_cfg *cf = s->cf;
    int (*S)[2] = s->S;
    for (int k = 0; k < s->nmand; k++) {
        int v = s->mand[k];
        if (R->o[v].pos >= 0)
            continue;
        int ns = tsr_route_bu_outstanding(U, v, S, s->scap);
        if (!ns)
            continue;
        /* a move serves the reads before its bundle (one placed at p itself, a reader placed by this
         * loop, waits); when bundle p has no slot left for one, a bundle after it that the farthest read
         * is still after (the reads before that bundle served there, the others wait) */
        bool done = false;
        /* (randomized: the value through a register before a move is tried) */
        if (bu_coin(U, BU_R_SPILL) && tsr_route_spill(U, v, p, S, ns)) {
            done = true;
            s->placed_any = true;
        }
        int m0 = s->nmo > 1 && bu_coin(U, BU_R_MVSLOT) ? bu_rand(U, s->nmo) : 0;
        /* (cf->thr: a value threaded by moves for more than thr bundles since its first read placed goes
         * through a register instead of another move) */
        if (cf->thr > 0 && !done) {
            int q0 = p;
            for (int k2 = 0; k2 < U->nrd[v]; k2++)
                if (R->o[U->rd[v][k2]].pos >= 0 && R->o[U->rd[v][k2]].pos < q0)
                    q0 = R->o[U->rd[v][k2]].pos;
            if (p - q0 > cf->thr && tsr_route_spill(U, v, p, S, ns)) {
                done = true;
                s->placed_any = true;
            }
        }
        int (*T)[2] = S + ns;
        for (int pp = p; pp > p - U->hmove && pp > 0 && !done; pp--) {
            int qm, nt = reads_before(R, S, ns, pp, T, &qm);
            if (!nt || qm + U->hmove < p)
                continue;
            for (int mm = 0; mm < s->nmo && !done; mm++) {
                int mi = tsr_route_bu_new_move(U, v, s->mvorder[(mm + m0) % s->nmo]);
                if (mi < 0)
                    continue;
                if (tsr_route_bu_place_any(U, mi, pp, T, nt))
                    done = true;
                else
                    tsr_route_bu_drop_last(R);
            }
        }
        /* no move in time: the value through a register (its reads load it; its store waits) */
        if (!done && tsr_route_spill(U, v, p, S, ns)) {
            done = true;
            s->placed_any = true;
        }
        if (!done) {
            snprintf(s->err, s->errn, "the packer found no move for this value at %d bundles from the end (its "
                     "readers could not be reached)", p);
            *s->at = v;
            return -1;
        }
    }
    return 0;
}

/* cf->press: spills value v, waiting, at p to make room for op x, unless x reads it, it is optional (a load: its
 * spill would only add a store and loads) or a spill store of it is pending; true if spilled. */
static bool press_one(struct bu_run *s, const struct rop *x, int v, int p)
{
    struct bu *U = &s->U;
    for (int r = 0; r < x->nref; r++)
        if (x->ref[r] == v)
            return false;
    return !BU_OPT(U, v) && !tsr_route_spill_pending(U, v) && tsr_route_spill_value(U, v, p, s->S, s->scap);
}

/* cf->press: spills a value waiting (s->is[v]) to make room for op i at p: with press 2 first the values at their
 * last chance (s->mand, lima's "max" nodes, which its try_spill_nodes spills first: a spill instead of the move each
 * would take), then the lowest in the priority order; not one i reads, not an optional one (a load: its spill would
 * only add a store and loads), none with a spill store pending; each read of it then loads a register element the
 * input does not use (pack_spill.c).  True if one was spilled. */
static bool press_spill(struct bu_run *s, int i, int p)
{
    const struct rop *x = &s->U.R->o[i];
    for (int k = 0; k < s->nmand && s->cf->press > 1; k++)
        if (s->U.R->o[s->mand[k]].pos < 0 && press_one(s, x, s->mand[k], p))
            return true;
    /* (randomized: the scan starts at a random place of the order) */
    int k0 = bu_coin(&s->U, BU_R_PRESS) ? bu_rand(&s->U, s->nl) : 0;
    for (int kk = s->nl - 1; kk >= 0; kk--) {
        int k = (kk + k0) % s->nl;
        if (s->is[s->order[k]] && press_one(s, x, s->order[k], p))
            return true;
    }
    return false;
}

/* Step 1 at position p, up to the moves: the values at their last chance (no feeder could reach their farthest
 * outstanding read from p + 1) into s->mand; the slots the operations ready at p need (U.demand) and the move
 * templates by that need, the least needed first (s->mvorder); then the producers of those values that can go to
 * p.  Their moves follow (feed_due), before the operations or with cf->late after them. */
static void last_chance(struct bu_run *s, int p)
{
    struct bu *U = &s->U;
    struct route *R = U->R;
    int (*S)[2] = s->S;
    int nmand = 0;
    for (int v = 0; v < s->n0; v++) {
        if (R->o[v].pos >= 0 || R->o[v].dropped)
            continue;
        int ns = tsr_route_bu_outstanding(U, v, S, s->scap);
        if (!ns)
            continue;
        int qmin = p;
        for (int k = 0; k < ns; k++)
            if (R->o[S[k][0]].pos < qmin)
                qmin = R->o[S[k][0]].pos;
        int reach = U->hmove > R->o[v].hi ? U->hmove : R->o[v].hi;
        if (p - qmin + 1 > reach)
            s->mand[nmand++] = v;
    }
    s->nmand = nmand;
    int demand[64] = { 0 };
    for (int k = 0; k < s->nl; k++) {
        int i = s->live[k];
        if (R->o[i].pos < 0 && tsr_route_bu_deps_ok(U, i, p) && tsr_route_bu_wanted(U, i))
            for (uint64_t m = s->slot[i]; m; m &= m - 1)
                demand[__builtin_ctzll(m)]++;
    }
    memcpy(U->demand, demand, sizeof demand);
    int mvdem[64] = { 0 }, nmo = 0;
    for (int m = 0; m < R->nmv && m < 64; m++) {
        int dm = 0;
        for (uint64_t b = s->mvslot[m]; b; b &= b - 1)
            dm += demand[__builtin_ctzll(b)];
        int b = nmo++;
        while (b > 0 && mvdem[s->mvorder[b - 1]] > dm) {
            s->mvorder[b] = s->mvorder[b - 1];
            b--;
        }
        s->mvorder[b] = m;
        mvdem[m] = dm;
    }
    s->nmo = nmo;
    /* (the producers first, then, before the operations or with cf->late after them, moves) */
    for (int k = 0; k < nmand && !(s->late && s->cf->mpri); k++) {
        int v = s->mand[k];
        if (R->o[v].pos >= 0)
            continue;
        int ns = tsr_route_bu_outstanding(U, v, S, s->scap);
        if (ns && tsr_route_bu_deps_ok(U, v, p) && tsr_route_bu_place_any(U, v, p, S, ns)) {
            s->left -= !BU_OPT(U, v);
            s->placed_any = true;
        }
    }
    /* (cf->plc: a value readable at fewer ages than a move reaches, a complex unit's at age 1 only: p is its
     * producer's last chance before a move must take over, so it goes here when it can) */
    for (int v = 0; v < s->n0 && s->cf->plc; v++) {
        if (R->o[v].pos >= 0 || R->o[v].dropped || R->o[v].hi >= U->hmove)
            continue;
        int ns = tsr_route_bu_outstanding(U, v, S, s->scap);
        int qmin = p;
        for (int k = 0; k < ns; k++)
            qmin = R->o[S[k][0]].pos < qmin ? R->o[S[k][0]].pos : qmin;
        if (ns && p - qmin == R->o[v].hi && tsr_route_bu_deps_ok(U, v, p) &&
            tsr_route_bu_place_any(U, v, p, S, ns)) {
            s->left -= !BU_OPT(U, v);
            s->placed_any = true;
        }
    }
}

/* cf->score: the state a placement on trial changes, saved for every op and bundle (a placement forms again its
 * bundle and its readers', may flip the direct reads of its bundle's others, take another unit and mark values as
 * waiting: U.ins), so that restoring it leaves the schedule as it was.  The ops' texts as placed (itext, iw) are
 * not restored: every bundle formed instantiates its ops again, and the bundles' words are the schedule's. */
struct bu_trial {
    int (*feed)[ROUTE_MAXREF];
    unsigned *lalt;
    int *ins, nins;
    struct route_bundle *B;
    int capn, capb;
    int n, nb, alt;
};

/* (pack_route_bu.h) */
void tsr_route_bu_trial_free(struct bu_run *s)
{
    if (!s->trial)
        return;
    free(s->trial->feed);
    free(s->trial->lalt);
    free(s->trial->ins);
    free(s->trial->B);
    free(s->trial);
    s->trial = NULL;
}

/* Saves the state a placement of op i changes (struct bu_trial). */
static void trial_save(struct bu_run *s, int i)
{
    struct bu *U = &s->U;
    const struct route *R = U->R;
    if (!s->trial && !(s->trial = calloc(1, sizeof *s->trial)))
        abort();
    struct bu_trial *T = s->trial;
    if (R->n > T->capn) {
        T->capn = 2 * R->n;
        T->feed = realloc(T->feed, (size_t)T->capn * sizeof *T->feed);
        T->lalt = realloc(T->lalt, (size_t)T->capn * sizeof *T->lalt);
    }
    if (U->nb > T->capb) {
        T->capb = 2 * U->nb;
        T->B = realloc(T->B, (size_t)T->capb * sizeof *T->B);
    }
    if (!T->ins)
        T->ins = malloc(((size_t)s->n0 + 1) * sizeof *T->ins);
    if (!T->feed || !T->lalt || !T->B || !T->ins)
        abort();
    T->n = R->n;
    T->nb = U->nb;
    for (int k = 0; k < R->n; k++) {
        memcpy(T->feed[k], R->o[k].feed, sizeof T->feed[k]);
        T->lalt[k] = R->o[k].lalt;
    }
    memcpy(T->B, U->B, (size_t)U->nb * sizeof *T->B);
    memcpy(T->ins, U->ins, ((size_t)s->n0 + 1) * sizeof *T->ins);
    T->nins = U->nins;
    const struct rop *x = &R->o[i];
    T->alt = 0;
    for (int a = 0; a < x->nalt; a++)
        if (x->fwd == x->altfwd[a] && x->elem == x->altelem[a])
            T->alt = a;
}

/* Undoes the placement of op i since trial_save. */
static void trial_restore(struct bu_run *s, int i)
{
    struct bu *U = &s->U;
    struct route *R = U->R;
    const struct bu_trial *T = s->trial;
    for (int k = 0; k < T->n; k++) {
        memcpy(R->o[k].feed, T->feed[k], sizeof T->feed[k]);
        R->o[k].lalt = T->lalt[k];
    }
    memcpy(U->B, T->B, (size_t)T->nb * sizeof *T->B);
    memcpy(U->ins, T->ins, ((size_t)s->n0 + 1) * sizeof *T->ins);
    U->nins = T->nins;
    R->o[i].pos = -1;
    tsr_route_take_alt(&R->o[i], T->alt);
}

/* The optional values (struct rop.opt) op i reads that are not read directly (each then needs its move): the
 * distinct ones, as placed (cf->score); before a placement, those it reads at all. */
static int opt_misses(const struct bu *U, int i)
{
    const struct rop *x = &U->R->o[i];
    int n = 0;
    for (int r = 0; r < x->nref; r++) {
        bool dup = false;
        for (int r2 = 0; r2 < r; r2++)
            dup |= x->ref[r2] == x->ref[r] && x->feed[r2] == -1;
        n += !dup && BU_OPT(U, x->ref[r]) && x->feed[r] == -1;
    }
    return n;
}

/* Step 2's placement of op i at p, past the limits on values waiting: with cf->fit 2 the "next max" values beyond
 * the far slots of p + 1 keep move slots free at p (nnx of them; used: p's slots taken), with cf->late the values
 * at their last chance without a feeder yet (mall) keep far slots free.  True if placed. */
static bool place_op(struct bu_run *s, int i, int p, uint64_t used, int nnx, int mall)
{
    struct bu *U = &s->U;
    const struct tsr_route_cfg *cf = s->cf;
    if (cf->fit == 2 && nnx - s->nx[i] > s->nfar &&
        __builtin_popcountll(s->mvall & ~(used | s->slot[i])) < nnx - s->nx[i] - s->nfar)
        return false;
    if (s->late) {
        int mleft = mall - s->dmark[i];
        /* (late 1: judged by the op's unit of the input; 2: by the bundle it forms) */
        if (cf->late == 1 && mleft && __builtin_popcountll(s->mvfar & ~(used | s->slot[i])) < mleft)
            return false;
        U->resv = cf->late == 2 ? mleft : 0;
        U->resv_mask = s->mvfar;
    }
    int ns = tsr_route_bu_outstanding(U, i, s->S, s->scap);
    bool okp = tsr_route_bu_place_any(U, i, p, s->S, ns);
    U->resv = 0;
    return okp;
}

/* Step 2 at position p: the operations whose readers are all placed, by priority, while the values waiting stay
 * few: rounds over s->order, each ending when an op is placed (or, cf->press, a value spilled to make room), until
 * a round places nothing.  An op that adds values waiting beyond s->limit, or due values beyond s->duelim, waits
 * (unless urgent: at its latest position for s->target); cf->fit 2 and cf->late keep move slots free.  cf->score:
 * the first op that fits reading an optional value whose load does not join its bundle is placed on trial only,
 * and the ops after it of the same stage and depth too, until one leaves none: the one that leaves the fewest is
 * placed (Mesa's gpir scheduler's score: -1 per load that cannot go in its reader's instruction). */
static void place_ready(struct bu_run *s, int p)
{
    struct bu *U = &s->U;
    struct route *R = U->R;
    const struct tsr_route_cfg *cf = s->cf;
    int (*S)[2] = s->S;
    int nl = s->nl;
    bool *is = s->is, *nx = s->nx, *dmark = s->dmark;
    const int *order = s->order;
    for (bool again = true; again;) {
        again = false;
        if (cf->fifo) {
            /* (lima's ready list: by depth, then in the order the values began to wait, the ops whose values do not
             * wait yet in s->order's order.  Sorted stably from the last round's order: the keys only grow (a value
             * starts to wait, or waits anew after a move), so the array is nearly sorted, and the result is the one
             * a sort of s->order gives, every key being distinct but those of the ops not waiting) */
            for (int a = 1; a < nl; a++) {
                int v = s->dyn[a], b = a;
                int kv = U->ins[v] < 0 ? INT_MAX : U->ins[v];
                while (b > 0) {
                    int w = s->dyn[b - 1], kw = U->ins[w] < 0 ? INT_MAX : U->ins[w];
                    if (s->depth[w] > s->depth[v] || (s->depth[w] == s->depth[v] && kw <= kv))
                        break;
                    s->dyn[b] = w;
                    b--;
                }
                s->dyn[b] = v;
            }
            order = s->dyn;
        }
        int due = 0, nnx = 0, nlive = live_count(U, is, p, &due, cf->fit == 2 ? nx : NULL, &nnx);
        uint64_t used = U->B[p].k ? tsr_route_bu_slots(R->t, U->B[p].w) : 0;
        /* (cf->late: the values at their last chance still without a feeder, each needing a far slot; dmark[v]:
         * v is one of them) */
        int mall = 0;
        for (int k2 = 0; k2 < s->nmand && s->late; k2++) {
            int v = s->mand[k2];
            dmark[v] = R->o[v].pos < 0 && tsr_route_bu_outstanding(U, v, S, s->scap) > 0;
            mall += dmark[v];
        }
        int best = -1, bestm = 0, bstage = 0;   /* (cf->score: the best op on trial so far, its misses) */
        for (int k = 0; k < 3 * nl && !again; k++) {
            /* (first the ops at their latest position for the target length, then the producers of values
             * waiting, when asked: each placed ends a thread of moves, then the others) */
            int i = order[k % nl], stage = k / nl;
            bool urgent = s->target >= 0 && p + s->depth[i] >= s->target - 1;
            if ((stage == 0) != urgent || (!urgent && (stage == 1) != (cf->live && is[i])) ||
                R->o[i].pos >= 0 || !tsr_route_bu_deps_ok(U, i, p) || !tsr_route_bu_wanted(U, i))
                continue;
            if (best >= 0 && (stage != bstage || (cf->score == 1 && s->depth[i] != s->depth[best])))
                break;
            int add = 0;
            for (int r = 0; r < R->o[i].nref; r++) {
                int v = R->o[i].ref[r];
                bool dup = false;
                for (int r2 = 0; r2 < r; r2++)
                    dup |= R->o[i].ref[r2] == v;
                add += !dup && R->o[v].pos < 0 && !is[v] && !BU_OPT(U, v);
            }
            if (add && nlive > 0 && !urgent &&
                (nlive - (is[i] ? 1 : 0) + add > s->limit || due + add > s->duelim) && !bu_coin(U, BU_R_LIMIT)) {
                /* (cf->press: a value waiting goes through a register to make room, and the round starts
                 * again with the counts of values waiting that leaves) */
                if (best < 0 && cf->press && press_spill(s, i, p)) {
                    s->placed_any = again = true;
                    break;
                }
                continue;
            }
            /* (the deep effort's decision: the op waits for a later round or bundle) */
            if (bu_coin(U, BU_R_DEFER))
                continue;
            /* (cf->score: an op reading optional values is placed on trial, kept when every load joins) */
            bool trial = cf->score && opt_misses(U, i) > 0;
            if (trial)
                trial_save(s, i);
            if (place_op(s, i, p, used, nnx, mall)) {
                int m = trial ? opt_misses(U, i) : 0;
                if (!m) {
                    s->left -= !BU_OPT(U, i);
                    s->placed_any = again = true;
                    break;
                }
                trial_restore(s, i);
                if (best < 0 || m < bestm) {
                    best = i;
                    bestm = m;
                    bstage = stage;
                }
            }
        }
        if (!again && best >= 0 && place_op(s, best, p, used, nnx, mall)) {
            s->left -= !BU_OPT(U, best);
            s->placed_any = again = true;
        }
    }
    for (int k = 0; k < s->nmand; k++)
        dmark[s->mand[k]] = false;
}

/* Step 3 (cf->pre) at position p: the move slots left free carry values that would be at their last chance at
 * p + 1 (lima's "next max" values), the least urgent first (cf->optfirst: the optional values first, then the others,
 * each group so): bundle p + 1 then keeps its slots for operations. */
static void fill_next(struct bu_run *s, int p)
{
    struct bu *U = &s->U;
    struct route *R = U->R;
    int (*S)[2] = s->S;
    int due2 = 0, nnx2 = 0;
    live_count(U, s->is, p, &due2, s->nx, &nnx2);
    /* (grp: with cf->optfirst, pass 0 the optional values, pass 1 the others; else pass 1 all of them) */
    for (int grp = s->cf->optfirst ? 0 : 1, k = s->nl - 1; grp < 2 && nnx2 > 0; k--) {
        if (k < 0) {
            grp++;
            k = s->nl;
            continue;
        }
        int v = s->order[k];
        if (!s->nx[v] || R->o[v].pos >= 0 || (s->cf->optfirst && BU_OPT(U, v) != (grp == 0)))
            continue;
        int ns = tsr_route_bu_outstanding(U, v, S, s->scap);
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
        if (R->o[v].lo >= 2 && tsr_route_bu_deps_ok(U, v, p + 1) && p + 1 - qhi >= R->o[v].lo &&
            p + 1 - qlo <= R->o[v].hi)
            continue;
        /* (as in feed_due, the move serves the reads before its bundle, after S; a read in bundle p itself stays
         * for the producer: complex1's, read at age 2 only, then goes two bundles up, where its move in the bundle
         * of its readers is lima's, and not three) */
        int nr = reads_before(R, S, ns, p, S + ns, NULL);
        if (bu_coin(U, BU_R_NEXT))
            continue;
        int m0 = s->nmo > 1 && bu_coin(U, BU_R_MVSLOT) ? bu_rand(U, s->nmo) : 0;
        for (int mm = 0; mm < s->nmo && nr > 0; mm++) {
            int mi = tsr_route_bu_new_move(U, v, s->mvorder[(mm + m0) % s->nmo]);
            if (mi < 0)
                continue;
            if (tsr_route_bu_place_any(U, mi, p, S + ns, nr))
                break;
            tsr_route_bu_drop_last(R);
        }
    }
}

/* (pack_route_bu.h) */
int tsr_route_bu_bundle(struct bu_run *s, int p)
{
    s->placed_any = false;
    /* 1. values at their last chance: no feeder could reach their farthest outstanding read from p + 1; their
     * producers first, then moves, each in the slot the operations ready now need least */
    last_chance(s, p);
    int rc = s->late ? 0 : feed_due(s, p);
    /* (the spill stores whose loads are far enough behind) */
    if (!rc && tsr_route_spill_place(&s->U, p))
        s->placed_any = true;
    /* 2. the operations whose readers are all placed, by priority, while the values waiting stay few */
    if (!rc)
        place_ready(s, p);
    if (s->late && !rc)
        rc = feed_due(s, p);
    /* 3. (cf->pre) moves of the values at their last chance at p + 1 */
    if (s->cf->pre && !rc)
        fill_next(s, p);
    /* (a schedule stuck on the limit: every waiting value's producer waits for readers that would add more;
     * one of them, whose producer cannot come yet, goes through a register: one value fewer waiting) */
    if (!s->placed_any && !rc && tsr_route_spill_waiting(&s->U, p, s->S, s->scap))
        s->placed_any = true;
    s->idle = s->placed_any ? 0 : s->idle + 1;
    if (s->idle && s->idle % 4 == 0) {
        s->limit++;
        s->duelim++;
    }
    return rc;
}
