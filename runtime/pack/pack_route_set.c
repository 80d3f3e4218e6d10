/* The settings the packer for values routed through forwards tries (docs/pack.md "Values through forwards"): the
 * list, the subset a sanitizer build tries, and the portfolio run that keeps the shortest schedule of them
 * (tsr_route_schedule, pack_route.h).  One schedule is pack_route_bu.c's.  Nothing here names a target. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pack_route_bu.h"

/* The scheduler's settings tried, in order: the shortest schedule wins (the first among equals).  Each runs a whole
 * schedule (it stops only when it cannot beat the best), so the list holds the settings that reach the shortest
 * schedule of some program of the corpus of lima programs.  All move the values of the next bundle's last chance in
 * the slots left free (pre).  Of the 22 settings of 7c77fe0 (limits, critical path, lima's capacity and reservation,
 * perturbed orders, early spills), each with the last-chance moves before or after the operations (late 0, 1, 2) and
 * the optional values read directly with flip or not (direct 2, 0): the 11 a greedy pick on the corpus takes (1,059
 * instructions there, the best of the 117 measured), the 5 of them that reach the most programs at lima's count first
 * (a sanitizer build tries only those: 1,068, 9 at lima's count), then the 4 best alone of the others. */
static const struct tsr_route_cfg cfgs[] = {
    { 8, 4, false, false, -1, 0, 0, 0, true, 2, 2 }, { 0, 0, false, false, -1, 2, 0, 0, true, 1, 2 },
    { 0, 0, true, true, 0, 2, 2, 0, true, 2, 2 }, { 0, 0, true, false, 0, 2, 0, 0, true, 1, 2 },
    { 0, 0, false, false, 0, 2, 0, 0, true, 2, 2 }, { 8, 4, true, true, 0, 0, 0, 0, true, 2, 2 },
    { 0, 0, false, false, -1, 2, 0, 2, true, 0, 2 }, { 0, 0, true, true, 0, 2, 0, 0, true, 0, 2 },
    { 0, 0, false, false, -1, 2, 0, 0, true, 0, 0 }, { 8, 3, false, true, 0, 0, 0, 0, true, 2, 2 },
    { 8, 4, true, false, 0, 0, 0, 0, true, 1, 2 }, { 0, 0, false, false, -1, 2, 0, 0, true, 2, 2 },
    { 0, 0, false, false, -1, 2, 0, 0, true, 2, 0 }, { 0, 0, false, true, 0, 2, 0, 0, true, 0, 2 },
    { 0, 0, true, true, 0, 2, 2, 0, true, 0, 2 },
};

_Static_assert(sizeof cfgs / sizeof *cfgs == 15, "tsr_pack_route_settings names 15 settings");



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

/* (pack.h) */
const char *tsr_pack_route_settings(void)
{
#ifdef ROUTE_FEW
    return "5 of 15 scheduler settings (a build with AddressSanitizer): 0 to 4";
#else
    return "all 15 scheduler settings";
#endif
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
     * of choices, which reaches other programs; c >= ncfg: setting c - ncfg so) */
    int ncfg = (int)(sizeof cfgs / sizeof *cfgs);
    R->by_demand = false;
    bool again = false;
    for (int ci = 0; ci < NTRIED; ci += !again) {
        R->by_demand = again;
        again = false;
        int c = TRIED(ci) + (R->by_demand ? ncfg : 0);
        /* (from the input again: the moves of the last try gone) */
        while (R->n > n0) {
            free(R->o[R->n - 1].tmpl);
            free(R->o[R->n - 1].itext);
            R->n--;
        }
        struct route_bundle *B = NULL;
        int nb = 0, a = -1;
        char e[300] = "";
        int cap = best ? bestn : 16 * nl + 64;
        int r = tsr_route_bu_run(R, n0, live, nl, succ, &cfgs[c % ncfg], cap, &B, &nb, e, sizeof e, &a);
        if (r) {
            if (!e1[0]) {
                snprintf(e1, sizeof e1, "%s", e);
                a1 = a;
            }
            again = r == -1 && !R->by_demand;
            continue;
        }
        if (!best || nb < bestn) {
            free(best);
            best = B;
            bestn = nb;
            besti = c;
        } else {
            free(B);
        }
    }
    if (best) {
        /* (the placement of the best again: the operations' cyc, texts and words are the last run's) */
        while (R->n > n0) {
            free(R->o[R->n - 1].tmpl);
            free(R->o[R->n - 1].itext);
            R->n--;
        }
        free(best);
        R->by_demand = besti >= ncfg;
        rc = tsr_route_bu_run(R, n0, live, nl, succ, &cfgs[besti % ncfg], bestn + 1, out, nbp, err, errn, at);
    } else {
        snprintf(err, errn, "%s", e1);
        *at = a1;
    }
    return rc;
}
