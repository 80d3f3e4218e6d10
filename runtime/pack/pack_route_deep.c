/* Search over the bottom-up scheduler's decisions (docs/pack.md "Values through forwards", "Search over the
 * decisions"): after the settings and the squeaky wheel rounds (pack_route_set.c), the best schedule's setting runs
 * again with some of its per-bundle greedy choices changed (pack_route_bu.h bu_coin: the unit an op takes, the move
 * template tried first, an op deferred, a limit passed, the value spilled to make room, a move of a next-bundle value
 * left out, a spill before a move, fewer direct reads).  Two phases from the greedy schedule, each keeping a schedule
 * only when it is shorter than the best so far:
 *  1. single flips (limited discrepancy search of depth 1, iterated): the decisions of the schedule are numbered in
 *     the order they are taken; decision k departs alone (on top of the flips kept), in turn for k from the last
 *     flip kept on; a flip that shortens the schedule is kept.  Decisions before k are taken as before, so the
 *     schedule is the kept one up to decision k;
 *  2. randomized runs: each run's choices depart with a probability from a fixed generator (seeded by the run's
 *     number: deterministic), at a subset of the decision points; such a run replaces the flips' result only when
 *     shorter (on the corpus the two reach different programs).
 * Every run is capped at one bundle less than the best and stops as soon as an op not placed cannot finish in time
 * (tsr_route_bu_run with a struct tsr_route_rnd), so most runs stop early.  Nothing here names a target. */
#include <stdlib.h>
#include "pack_route_bu.h"

/* The effort of each phase: the flips phase 1 tries at most and the decision points it counts (all); the runs of
 * phase 2, the probabilities (per mille) they cycle through and the decision points they perturb (BU_R_NEXT: a move
 * of a next-bundle value left out, the one that shortens most schedules of the corpus alone). */
#define DEEP_RUNS 100
#define DEEP_FLIPS 3000
#define DEEP_RMASK BU_R_NEXT
#define DEEP_FMASK 255u
static const int deep_prob[] = { 10, 20, 50, 100, 200 };

/* (pack_route_bu.h) */
bool tsr_route_deep(struct route *R, int n0, const int *live, int nl, const struct tsr_pack_elist *succ,
                    const struct tsr_route_cfg *cf, const int *order, bool byd, int *bestn,
                    struct tsr_route_rnd *res)
{
    bool found = false;
    int *dp = calloc((size_t)n0 + 1, sizeof *dp);
    int cpl = tsr_route_crit_depth(R, live, nl, succ, cf->direct > 0, dp);   /* (no schedule is shorter) */
    free(dp);
    struct tsr_route_rnd cur = { 0, 0, 1, 0, NULL, 0, 0 };
    /* 1. single flips of the greedy schedule's decisions, in their order, each kept that shortens the schedule */
    int *F = NULL, nF = 0, D = 0, tried = 0;
    if (*bestn > cpl) {
        F = malloc(((size_t)DEEP_FLIPS + 1) * sizeof *F);
        cur.fmask = DEEP_FMASK;
        cur.flip = F;
        tsr_route_bu_again(R, n0, live, nl, succ, cf, order, byd, *bestn + 1, &cur);
        D = cur.ndec;
        for (int k = 0; k < D && tried < DEEP_FLIPS && *bestn > cpl; k++) {
            F[nF] = k;
            cur.nflip = nF + 1;
            tried++;
            int nb = tsr_route_bu_again(R, n0, live, nl, succ, cf, order, byd, *bestn - 1, &cur);
            if (nb > 0 && nb < *bestn) {
                *bestn = nb;
                nF++;
                D = cur.ndec;
                found = true;
            }
        }
        cur.nflip = nF;
        if (nF)
            *res = cur;
        else
            free(F);
    }
    /* 2. randomized runs of the greedy schedule (no flips), each kept that is shorter than the best so far */
    for (int r = 0; r < DEEP_RUNS && *bestn > cpl; r++) {
        int np = (int)(sizeof deep_prob / sizeof *deep_prob);
        struct tsr_route_rnd c = { deep_prob[(r * 7 + 3) % np], DEEP_RMASK, (unsigned)r + 1, 0, NULL, 0, 0 };
        int nb = tsr_route_bu_again(R, n0, live, nl, succ, cf, order, byd, *bestn - 1, &c);
        if (nb > 0 && nb < *bestn) {
            *bestn = nb;
            if (found && res->flip)
                free((void *)res->flip);
            *res = c;
            found = true;
        }
    }
    return found;
}
