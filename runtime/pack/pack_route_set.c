/* The settings the packer for values routed through forwards tries (docs/pack.md "Values through forwards"): the
 * list, the subset a sanitizer build tries, and the portfolio run that keeps the shortest schedule of them
 * (tsr_route_schedule, pack_route.h).  One schedule is pack_route_bu.c's.  Nothing here names a target. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pack_route_bu.h"

/* The scheduler's settings tried, in order: the shortest schedule wins (the first among equals), and the squeaky
 * wheel rounds (swo, below) then try to shorten it.  Each runs a whole schedule (it stops only when it cannot beat
 * the best), so the list holds the settings that reach the shortest schedule of some program of the corpus of lima
 * programs.  All move the values of the next bundle's last chance in the slots left free (pre).  Picked by
 * bench/bench_routepick.c --grid: of 154 candidates (the 12 settings of the previous pick, each with each other value
 * of cf->press, each with cf->fifo flipped, those with cf->late each with cf->mpri flipped, and 96 of a fixed
 * pseudo-random sequence over the fields' values), each measured alone on the corpus, first the 5 that reach the most
 * programs at or below lima's count (a sanitizer build tries only those: 1,025 instructions, 18 at or below lima's
 * count), then while the total falls the one that lowers it most: 11 in all, 1,014 instructions, 19 at or below
 * lima's count (the previous 12: 1,028, 15; 5fa3c01's 9: 1,033, 13); with the rounds 1,009, 21.  The first and the
 * eighth (5fa3c01's first) each pack every program of the corpus alone.  The twelfth is the second with the optional
 * values' moves first in step 3 (cf->optfirst, lima's order of its moves of loads): alone 1,062 instructions, 16 at or
 * below lima's count (the second: 1,063, 14); the list without rounds 1,014 -> 1,012, 19 -> 21 (ideas-logo-flat and
 * ideas-logo-shadow at lima's 21).  The thirteenth is the twelfth choosing each op of step 2 by its loads (cf->score 2,
 * Mesa's gpir scheduler's score of a node by the loads that join its instruction): the list without rounds 1,012 ->
 * 1,008 (jellyfish 116 -> 114, light-phong 37 -> 36, light-refract 53 -> 52), with them 1,007 -> 1,002, 23 -> 24 at
 * or below lima's count.  The fourteenth is the third with cf->score 1 (light-basic-texgen 56 -> 55), the fifteenth
 * the eighth with cf->score 2 (buffer-wireframe 83 -> 82): with the rounds 1,002 -> 1,000.  The three are the picks
 * of the greedy choice above among the 13 settings each with cf->score 1 and with 2, measured alone, but one (the
 * seventh with cf->score 2: light-basic 29 -> 28, already below lima's count).  The sixteenth and seventeenth are the
 * thirteenth and fifteenth placing a value readable at fewer ages than a move reaches at its producer's last chance
 * (cf->plc; picked among the 15 each with it, alone with their rounds: bump-normals-tangent 52 -> 49, lima's count,
 * bump-height 53 -> 51): with the input's spills undone as a second schedule (pack_unspill.c), 991 -> 988, 24 -> 25
 * at or below lima's count. */
static const struct tsr_route_cfg cfgs[] = {
    { 8, 4, false, true, 0, 2, 244, 4, true, 0, 1, 2, 1, 0, false, 0, 0 },
    { 0, 0, false, false, -1, 2, 0, 0, true, 2, 2, 1, 0, 1, false, 0, 0 },
    { 0, 0, true, true, 0, 2, 2, 0, true, 2, 2, 1, 0, 1, false, 0, 0 },
    { 0, 0, false, true, 1, 2, 420, 2, true, 1, 2, 1, 0, 0, false, 0, 0 },
    { 0, 0, true, true, 0, 2, 2, 0, true, 2, 2, 1, 0, 0, false, 0, 0 },
    { 8, 4, true, false, 0, 0, 0, 0, true, 1, 2, 0, 0, 0, false, 0, 0 },
    { 0, 0, false, false, -1, 2, 0, 0, true, 2, 2, 1, 1, 1, false, 0, 0 },
    { 0, 0, false, false, -1, 2, 0, 0, true, 2, 2, 1, 0, 0, false, 0, 0 },
    { 0, 0, true, false, 0, 2, 0, 0, true, 1, 2, 2, 0, 0, false, 0, 0 },
    { 8, 4, true, false, 0, 0, 0, 0, true, 1, 2, 0, 0, 1, false, 0, 0 },
    { 8, 4, false, true, 0, 1, 236, 4, true, 1, 0, 0, 1, 1, false, 0, 0 },
    { 0, 0, false, false, -1, 2, 0, 0, true, 2, 2, 1, 0, 1, true, 0, 0 },
    { 0, 0, false, false, -1, 2, 0, 0, true, 2, 2, 1, 0, 1, true, 2, 0 },
    { 0, 0, true, true, 0, 2, 2, 0, true, 2, 2, 1, 0, 1, false, 1, 0 },
    { 0, 0, false, false, -1, 2, 0, 0, true, 2, 2, 1, 0, 0, false, 2, 0 },
    { 0, 0, false, false, -1, 2, 0, 0, true, 2, 2, 1, 0, 1, true, 2, 1 },
    { 0, 0, false, false, -1, 2, 0, 0, true, 2, 2, 1, 0, 0, false, 2, 1 },
};

_Static_assert(sizeof cfgs / sizeof *cfgs == 17, "tsr_pack_route_settings names 17 settings");

/* Tried only when no setting of the list schedules the program (none does on the corpus): two settings of 2ad91a6,
 * the plainest first (limits 8 and 4, no reservation; then the moves' capacity with every optional move kept as an
 * operation, direct 0).  There each scheduled every program of the corpus alone; since the moves of the next
 * bundle's values serve only the reads after them (5fa3c01) each fails on one (bump-height, buffer-wireframe) that
 * the other schedules. */
static const struct tsr_route_cfg fallback[] = {
    { 8, 4, false, false, -1, 0, 0, 0, true, 2, 2, 0, 0, 0, false, 0, 0 },
    { 0, 0, false, false, -1, 2, 0, 0, true, 0, 0, 0, 0, 0, false, 0, 0 },
};



/* A build with AddressSanitizer (gcc defines __SANITIZE_ADDRESS__, clang answers __has_feature) tries only these
 * settings (indices into cfgs: those whose schedule is the shortest on the shared corpus of lima programs), so that
 * its tests run in bounded time; other builds try them all. */
#if defined(__SANITIZE_ADDRESS__)
#define ROUTE_FEW 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ROUTE_FEW 1
#endif
#endif
#ifdef ROUTE_FEW
static const int tried[] = { 0, 1, 2, 3, 4 };
#define NTRIED ((int)(sizeof tried / sizeof *tried))
#define TRIED(c) tried[c]
#else
#define NTRIED ((int)(sizeof cfgs / sizeof *cfgs))
#define TRIED(c) (c)
#endif

/* (pack_route_cfg.h) the list tsr_route_settings_use put in place, if any */
static struct tsr_route_cfg use_list[TSR_ROUTE_MAXCFG];
static int use_n;
static bool use_fallback, use_improve;

/* (pack_route_cfg.h) */
int tsr_route_settings_use(const struct tsr_route_cfg *list, int n, bool fallback, bool improve)
{
    if (n < 0 || n > TSR_ROUTE_MAXCFG || (n && !list))
        return -1;
    if (n)
        memcpy(use_list, list, (size_t)n * sizeof *list);
    use_n = n;
    use_fallback = fallback;
    use_improve = improve;
    return 0;
}

/* (pack_route_cfg.h) */
const struct tsr_route_cfg *tsr_route_settings_own(int *n)
{
    *n = (int)(sizeof cfgs / sizeof *cfgs);
    return cfgs;
}

/* (pack_route.h) */
const struct tsr_route_unsp *tsr_route_spans(int *n)
{
    static const struct tsr_route_unsp spans[] = { { 50, 12 }, { 25, 12 }, { 100, 100 } };
    _Static_assert(sizeof spans / sizeof *spans == ROUTE_MAXSPANS, "ROUTE_MAXSPANS counts the spans");
#ifdef ROUTE_FEW
    *n = 1;
#else
    *n = (int)(sizeof spans / sizeof *spans);
#endif
    return spans;
}

/* (pack.h) */
const char *tsr_pack_route_settings(void)
{
#ifdef ROUTE_FEW
    return "5 of 17 scheduler settings (a build with AddressSanitizer): 0 to 4";
#else
    return "all 17 scheduler settings";
#endif
}

/* Squeaky wheel optimisation (Joslin and Clements, JAIR 10, 1999) on the best setting's schedule: an op placed
 * higher (farther from the end) than a schedule one bundle shorter allows, its depth counted from the start, moves
 * up in the priority order by SWO_W per bundle too high; a little noise (a fixed sequence: the result is
 * deterministic) keeps the order from cycling; the setting runs again with the new order, at most as long as the
 * best.  SWO_ITERS rounds, each learning from the last one's placement, finished or not (an op not placed counts
 * as one bundle past the end).  pos0: the best schedule's positions (per input op, from the end; -1: not placed);
 * byd: R->by_demand of that schedule.  Returns the order of a shorter schedule (its length in *bestn; the caller
 * frees it), or NULL when none was found. */
#ifdef ROUTE_FEW
#define SWO_ITERS 2
#else
#define SWO_ITERS 8
#endif
#define SWO_W 3.0
#define SWO_NOISE 4.0
static int *swo(struct route *R, int n0, const int *live, int nl, const struct tsr_pack_elist *succ,
                const struct tsr_route_cfg *cf, bool byd, const int *pos0, int *bestn)
{
    if (nl < 2)
        return NULL;
    int *depth = calloc((size_t)n0 + 1, sizeof *depth);
    int *ord = malloc((size_t)nl * sizeof *ord), *res = NULL;
    double *key = calloc((size_t)n0 + 1, sizeof *key);
    int *pos = malloc(((size_t)n0 + 1) * sizeof *pos);
    unsigned long long rng = 12345;
    memcpy(pos, pos0, (size_t)n0 * sizeof *pos);
    tsr_route_crit_depth(R, live, nl, succ, cf->direct > 0, depth);
    tsr_route_crit_order(live, nl, depth, cf->depth, cf->seed, ord);
    for (int k = 0; k < nl; k++)
        key[ord[k]] = k;
    int last = *bestn;   /* (the last round's length, or the cap when it did not finish) */
    for (int it = 0; it < SWO_ITERS; it++) {
        /* (the latest position from the end of op i in a schedule of *bestn - 1 bundles: *bestn - 2 - depth) */
        bool any = false;
        for (int k = 0; k < nl; k++) {
            int i = live[k], lat = *bestn - 2 - depth[i], p = pos[i] < 0 ? last + 1 : pos[i];
            if (p > lat) {
                key[i] -= SWO_W * (p - lat);
                any = true;
            }
        }
        if (!any)
            break;
        for (int k = 0; k < nl; k++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            key[live[k]] += SWO_NOISE * (double)(rng >> 40) / (double)(1ull << 24);
        }
        /* (stable insertion sort by key; the keys then become the ranks) */
        for (int a = 1; a < nl; a++) {
            int v = ord[a], b = a;
            while (b > 0 && key[ord[b - 1]] > key[v]) {
                ord[b] = ord[b - 1];
                b--;
            }
            ord[b] = v;
        }
        for (int k = 0; k < nl; k++)
            key[ord[k]] = k;
        int nb = tsr_route_bu_again(R, n0, live, nl, succ, cf, ord, byd, *bestn, NULL);
        for (int k = 0; k < n0; k++)
            pos[k] = R->o[k].pos;
        last = nb < 0 ? *bestn : nb;
        if (nb > 0 && nb < *bestn) {
            *bestn = nb;
            if (!res)
                res = malloc((size_t)nl * sizeof *res);
            memcpy(res, ord, (size_t)nl * sizeof *res);
        }
    }
    free(depth);
    free(ord);
    free(key);
    free(pos);
    return res;
}

/* (pack_route.h) */
int tsr_route_schedule(struct route *R, int n0, const int *live, int nl, const struct tsr_pack_elist *succ,
                       struct route_bundle **out, int *nbp, char *err, size_t errn, int *at)
{
    struct route_bundle *best = NULL;
    int bestn = 0, besti = -1;
    int rc = -1;
    char e1[300] = "";
    int a1 = -1;
    /* (a setting that cannot schedule the program with each operation in its unit of the input first, for another
     * reason than the best's length, runs again with the units tried by the ready operations' need: another order
     * of choices, which reaches other programs) */
    /* (tr: the settings tried, in order; when none schedules the program, the fallback ones are appended) */
    const struct tsr_route_cfg *tr[TSR_ROUTE_MAXCFG + sizeof fallback / sizeof *fallback];
    int ntried = 0;
    for (int k = 0; k < (use_n ? use_n : NTRIED); k++)
        tr[ntried++] = use_n ? &use_list[k] : &cfgs[TRIED(k)];
    bool fell = false, bestd = false;
    int *bpos = malloc(((size_t)n0 + 1) * sizeof *bpos);
    int *bord = NULL;
    R->by_demand = false;
    bool again = false;
    for (int ci = 0; ci < ntried; ci += !again) {
        R->by_demand = again;
        again = false;
        /* (from the input again: the moves of the last try gone) */
        while (R->n > n0)
            tsr_route_bu_drop_last(R);
        struct route_bundle *B = NULL;
        int nb = 0, a = -1;
        char e[300] = "";
        int cap = best ? bestn : 16 * nl + 64;
        int r = tsr_route_bu_run(R, n0, live, nl, succ, tr[ci], NULL, cap, &B, &nb, e, sizeof e, &a, NULL);
        if (r) {
            if (!e1[0]) {
                snprintf(e1, sizeof e1, "%s", e);
                a1 = a;
            }
            again = r == -1 && !R->by_demand;
            if (!again && ci + 1 == ntried && !best && !fell && (!use_n || use_fallback)) {
                fell = true;
                for (size_t k = 0; k < sizeof fallback / sizeof *fallback; k++)
                    tr[ntried++] = &fallback[k];
            }
            continue;
        }
        if (!best || nb < bestn) {
            free(best);
            best = B;
            bestn = nb;
            besti = ci;
            bestd = R->by_demand;
            for (int k = 0; k < n0; k++)
                bpos[k] = R->o[k].pos;
        } else {
            free(B);
        }
    }
    if (best) {
        if (!use_n || use_improve)
            bord = swo(R, n0, live, nl, succ, tr[besti], bestd, bpos, &bestn);
        struct tsr_route_rnd rbest, *fr = NULL;
        /* (deep: the search over the best schedule's decisions, pack_route_deep.c) */
        if (R->deep && tsr_route_deep(R, n0, live, nl, succ, tr[besti], bord, bestd, &bestn, &rbest))
            fr = &rbest;
        /* (the placement of the best again: the operations' cyc, texts and words are the last run's) */
        while (R->n > n0)
            tsr_route_bu_drop_last(R);
        free(best);
        R->by_demand = bestd;
        rc = tsr_route_bu_run(R, n0, live, nl, succ, tr[besti], bord, bestn + 1, out, nbp, err, errn, at, fr);
        if (fr)
            free((void *)fr->flip);
    } else {
        snprintf(err, errn, "%s", e1);
        *at = a1;
    }
    free(bpos);
    free(bord);
    return rc;
}
