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
 * the slots left free (pre).  Picked by bench/bench_routepick.c --grid: of 126 candidates (the 11 settings of
 * 7ef2bc6, each with each value of cf->press, and 96 of a fixed pseudo-random sequence over the fields' values), each
 * measured alone on the corpus, first the 5 that reach the most programs at or below lima's count (a sanitizer build
 * tries only those: 1,041 instructions, 13 at lima's count), then while the total falls the one that lowers it most:
 * 9 in all, 1,033 instructions, 13 at lima's count (7ef2bc6's 11: 1,038, 10; 2ad91a6's 15: 1,058, 10).  The first
 * packs every program of the corpus alone. */
static const struct tsr_route_cfg cfgs[] = {
    { 0, 0, false, false, -1, 2, 0, 0, true, 2, 2, 1 },   { 0, 0, true, false, 0, 2, 0, 0, true, 1, 2, 2 },
    { 8, 4, true, true, -1, 1, 827, 2, true, 1, 1, 0 },   { 8, 4, false, true, 1, 1, 191, 0, true, 0, 2, 0 },
    { 0, 0, true, true, 0, 2, 2, 0, true, 2, 2, 0 },      { 8, 4, true, false, 0, 0, 0, 0, true, 1, 2, 0 },
    { 8, 3, true, true, 2, 1, 981, 2, true, 2, 2, 0 },    { 0, 0, true, true, 2, 2, 173, 4, true, 1, 1, 0 },
    { 0, 0, true, true, 1, 2, 711, 4, true, 2, 1, 2 },
};

_Static_assert(sizeof cfgs / sizeof *cfgs == 9, "tsr_pack_route_settings names 9 settings");

/* Tried only when no setting of the list schedules the program (none does on the corpus): two settings of 2ad91a6,
 * the plainest first (limits 8 and 4, no reservation; then the moves' capacity with every optional move kept as an
 * operation, direct 0).  There each scheduled every program of the corpus alone; since the moves of the next
 * bundle's values serve only the reads after them (5fa3c01) each fails on one (bump-height, buffer-wireframe) that
 * the other schedules. */
static const struct tsr_route_cfg fallback[] = {
    { 8, 4, false, false, -1, 0, 0, 0, true, 2, 2, 0 }, { 0, 0, false, false, -1, 2, 0, 0, true, 0, 0, 0 },
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
static bool use_fallback;

/* (pack_route_cfg.h) */
int tsr_route_settings_use(const struct tsr_route_cfg *list, int n, bool fallback)
{
    if (n < 0 || n > TSR_ROUTE_MAXCFG || (n && !list))
        return -1;
    if (n)
        memcpy(use_list, list, (size_t)n * sizeof *list);
    use_n = n;
    use_fallback = fallback;
    return 0;
}

/* (pack_route_cfg.h) */
const struct tsr_route_cfg *tsr_route_settings_own(int *n)
{
    *n = (int)(sizeof cfgs / sizeof *cfgs);
    return cfgs;
}

/* (pack.h) */
const char *tsr_pack_route_settings(void)
{
#ifdef ROUTE_FEW
    return "5 of 9 scheduler settings (a build with AddressSanitizer): 0 to 4";
#else
    return "all 9 scheduler settings";
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
     * of choices, which reaches other programs) */
    /* (tr: the settings tried, in order; when none schedules the program, the fallback ones are appended) */
    const struct tsr_route_cfg *tr[TSR_ROUTE_MAXCFG + sizeof fallback / sizeof *fallback];
    int ntried = 0;
    for (int k = 0; k < (use_n ? use_n : NTRIED); k++)
        tr[ntried++] = use_n ? &use_list[k] : &cfgs[TRIED(k)];
    bool fell = false, bestd = false;
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
        int r = tsr_route_bu_run(R, n0, live, nl, succ, tr[ci], cap, &B, &nb, e, sizeof e, &a);
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
        } else {
            free(B);
        }
    }
    if (best) {
        /* (the placement of the best again: the operations' cyc, texts and words are the last run's) */
        while (R->n > n0)
            tsr_route_bu_drop_last(R);
        free(best);
        R->by_demand = bestd;
        rc = tsr_route_bu_run(R, n0, live, nl, succ, tr[besti], bestn + 1, out, nbp, err, errn, at);
    } else {
        snprintf(err, errn, "%s", e1);
        *at = a1;
    }
    return rc;
}
