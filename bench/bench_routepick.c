/* The settings of the packer of programs with value names (docs/pack.md "Values through forwards";
 * runtime/pack/pack_route_set.c), measured on a target's corpus (bench/corpora.h): each corpus program is unbundled
 * (tsr_unbundle) and packed again (tsr_pack_text) with one setting alone (tsr_route_settings_use, without the
 * squeaky wheel rounds), and its bundles are counted against the original's instructions.  Quality, not speed: no
 * timing.
 *
 *   bench_routepick [TARGET]           each of the packer's own settings alone, then all of them (the portfolio)
 *   bench_routepick --grid [TARGET]    also the candidates of a grid (each own setting with each other cf->press,
 *                                      each with cf->fifo flipped, each with cf->late with cf->mpri flipped,
 *                                      and 96 of a fixed pseudo-random sequence over the fields' values),
 *                                      then a greedy pick: first the FEW settings that reach the most programs at or
 *                                      below the original's count (then the fewest bundles), then, while the total
 *                                      falls, the setting that lowers it most, at most MAXPICK in all; the pick is
 *                                      printed as C initialisers for pack_route_set.c
 *
 * TARGET defaults to every target whose corpus packs through the routing packer (its programs name values when
 * unbundled); a program the setting cannot pack counts as unpacked (the pick then needs another setting for it).
 * Output: one line per setting, `name: total bundles, programs at or below the original, unpacked`, and per
 * program the bundles of the pick's best against the original's.  The run takes minutes (--grid: about 130
 * settings over the corpus). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "corpora.h"
#include "pack/pack.h"
#include "pack/pack_route_cfg.h"
#include "registry.h"
#include "tsr.h"

#define FEW 5
#define MAXPICK 16
#define NRAND 96

struct prog {
    const char *name;
    struct tsr_buf input;
    unsigned orig;          /* the original's instructions */
};

/* Bundles of each program packed with the settings list[0..n) (-1: not packed) into out. */
static void measure(struct prog *ps, size_t np, const struct tsr_target *t, const struct tsr_route_cfg *list, int n,
                    int *out)
{
    tsr_route_settings_use(list, n, false, false);
    for (size_t i = 0; i < np; i++) {
        struct tsr_diag d;
        struct tsr_buf o = { 0 };
        struct tsr_pack_stats st = { 0 };
        tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
        int rc = tsr_pack_text(t, ps[i].name, ps[i].input.data ? ps[i].input.data : "", ps[i].input.len, &o, &st, &d);
        out[i] = rc ? -1 : (int)st.nbundles;
        tsr_buf_free(&o);
        tsr_pack_stats_free(&st);
        tsr_diag_fini(&d);
    }
    tsr_route_settings_use(NULL, 0, false, false);
}

static void cfg_text(const struct tsr_route_cfg *c, char *b, size_t n)
{
    snprintf(b, n, "{ %d, %d, %s, %s, %d, %d, %u, %d, %s, %d, %d, %d, %d, %d, %s, %d, %d }", c->lim, c->due,
             c->depth ? "true" : "false", c->live ? "true" : "false", c->slack, c->fit, c->seed, c->thr,
             c->pre ? "true" : "false", c->late, c->direct, c->press, c->fifo, c->mpri,
             c->optfirst ? "true" : "false", c->score, c->plc);
}

/* The fewest bundles of program i over the chosen settings (r: per setting, np results each); -1: none packs it. */
static int best_of(const int *r, size_t np, const int *chosen, int nc, size_t i)
{
    int b = -1;
    for (int k = 0; k < nc; k++) {
        int x = r[(size_t)chosen[k] * np + i];
        if (x >= 0 && (b < 0 || x < b))
            b = x;
    }
    return b;
}

/* Totals of the best per program over the chosen settings. */
static void score(const int *r, size_t np, const int *chosen, int nc, const struct prog *ps, long *tot, int *at,
                  int *unp)
{
    *tot = 0;
    *at = *unp = 0;
    for (size_t i = 0; i < np; i++) {
        int b = best_of(r, np, chosen, nc, i);
        if (b < 0) {
            (*unp)++;
            continue;
        }
        *tot += b;
        *at += (unsigned)b <= ps[i].orig;
    }
}

/* Better: fewer unpacked, then (by_at) more at or below the original then fewer bundles, else fewer bundles then
 * more at or below. */
static bool better(long t1, int a1, int u1, long t2, int a2, int u2, bool by_at)
{
    if (u1 != u2)
        return u1 < u2;
    if (by_at)
        return a1 != a2 ? a1 > a2 : t1 < t2;
    return t1 != t2 ? t1 < t2 : a1 > a2;
}

static int run_target(const struct tsr_target *t, bool grid)
{
    struct bench_corpus c;
    if (bench_corpus_load(t, &c, "bench_routepick") < 0)
        return 1;
    struct prog *ps = calloc(c.nprog + 1, sizeof *ps);
    size_t np = 0;
    bool named = false;
    for (size_t i = 0; i < c.nprog; i++) {
        struct tsr_diag d;
        unsigned pinned = 0;
        tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
        struct prog *p = &ps[np];
        p->name = c.name[i];
        p->orig = (unsigned)c.prog[i].count;
        if (!tsr_unbundle(t, p->name, c.prog[i].w, NULL, c.prog[i].count, 0, &p->input, &pinned, &d)) {
            named |= p->input.data && strstr(p->input.data, "%1:") != NULL;
            np++;
        } else {
            tsr_buf_free(&p->input);
        }
        tsr_diag_fini(&d);
    }
    if (!named) {
        printf("%s: its unbundled programs name no value: not the routing packer's, skipped\n", t->name);
        for (size_t i = 0; i < np; i++)
            tsr_buf_free(&ps[i].input);
        free(ps);
        bench_corpus_free(&c);
        return 0;
    }
    int nown = 0;
    const struct tsr_route_cfg *own = tsr_route_settings_own(&nown);
    int ncand = nown;
    struct tsr_route_cfg *cand = calloc((size_t)(5 * nown + NRAND + 1), sizeof *cand);
    memcpy(cand, own, (size_t)nown * sizeof *cand);
    if (grid) {
        for (int k = 0; k < nown; k++)
            for (int pr = 0; pr < 3; pr++)
                if (pr != own[k].press) {
                    cand[ncand] = own[k];
                    cand[ncand++].press = pr;
                }
        for (int k = 0; k < nown; k++) {
            cand[ncand] = own[k];
            cand[ncand++].fifo = !own[k].fifo;
        }
        for (int k = 0; k < nown; k++)
            if (own[k].late) {
                cand[ncand] = own[k];
                cand[ncand++].mpri = !own[k].mpri;
            }
        unsigned x = 12345;
#define RN(n) ((x = x * 1103515245u + 12345u), (int)((x >> 16) % (unsigned)(n)))
        for (int k = 0; k < NRAND; k++) {
            struct tsr_route_cfg *q = &cand[ncand++];
            int l = RN(3);
            q->lim = l ? 8 : 0;
            q->due = l == 1 ? 4 : l == 2 ? 3 : 0;
            q->depth = RN(2);
            q->live = RN(2);
            q->slack = RN(4) - 1;
            q->fit = RN(3);
            q->seed = (unsigned)RN(1000);
            q->thr = RN(3) * 2;
            q->pre = true;
            q->late = RN(3);
            q->direct = RN(3);
            q->press = RN(3);
            q->fifo = RN(2);
            q->mpri = q->late ? RN(2) : 0;
        }
#undef RN
    }
    int *r = malloc(sizeof *r * (size_t)ncand * np);
    printf("%s (%s, %zu programs, %u instructions in the originals): each setting alone\n", t->name, c.what, np,
           (unsigned)c.total);
    for (int k = 0; k < ncand; k++) {
        measure(ps, np, t, &cand[k], 1, &r[(size_t)k * np]);
        long tot;
        int at, unp;
        score(r, np, &k, 1, ps, &tot, &at, &unp);
        char b[160];
        cfg_text(&cand[k], b, sizeof b);
        printf("  %s %3d %s: %ld bundles, %d at or below the original, %d unpacked\n", k < nown ? "own " : "cand", k,
               b, tot, at, unp);
        fflush(stdout);
    }
    int *chosen = calloc(MAXPICK + (size_t)nown + 1, sizeof *chosen), nc = 0;
    if (!grid) {
        for (int k = 0; k < nown; k++)
            chosen[nc++] = k;
    } else {
        long bt = 0;
        int ba = 0, bu = (int)np + 1;
        while (nc < MAXPICK) {
            int pick = -1;
            long pt = 0;
            int pa = 0, pu = 0;
            for (int k = 0; k < ncand; k++) {
                chosen[nc] = k;
                long tt;
                int aa, uu;
                score(r, np, chosen, nc + 1, ps, &tt, &aa, &uu);
                if (pick < 0 || better(tt, aa, uu, pt, pa, pu, nc < FEW)) {
                    pick = k;
                    pt = tt;
                    pa = aa;
                    pu = uu;
                }
            }
            if (nc >= FEW && !better(pt, pa, pu, bt, ba, bu, false))
                break;
            chosen[nc++] = pick;
            bt = pt;
            ba = pa;
            bu = pu;
        }
        printf("the pick (%d settings; the first %d for a build with AddressSanitizer):\n", nc, nc < FEW ? nc : FEW);
        for (int k = 0; k < nc; k++) {
            char b[160];
            cfg_text(&cand[chosen[k]], b, sizeof b);
            printf("    %s,\n", b);
        }
    }
    long tot;
    int at, unp;
    score(r, np, chosen, nc < FEW ? nc : FEW, ps, &tot, &at, &unp);
    printf("%s: the first %d: %ld bundles, %d at or below the original, %d unpacked\n", grid ? "the pick" : "own",
           nc < FEW ? nc : FEW, tot, at, unp);
    score(r, np, chosen, nc, ps, &tot, &at, &unp);
    printf("%s: all %d: %ld bundles against %u, %d of %zu at or below the original, %d unpacked\n",
           grid ? "the pick" : "own", nc, tot, (unsigned)c.total, at, np, unp);
    for (size_t i = 0; i < np; i++)
        printf("  %-32s %4d  original %4u\n", ps[i].name, best_of(r, np, chosen, nc, i), ps[i].orig);
    free(chosen);
    free(r);
    free(cand);
    for (size_t i = 0; i < np; i++)
        tsr_buf_free(&ps[i].input);
    free(ps);
    bench_corpus_free(&c);
    return 0;
}

int main(int argc, char **argv)
{
    bool grid = false;
    const char *only = NULL;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--grid"))
            grid = true;
        else if (argv[a][0] != '-' && !only)
            only = argv[a];
        else {
            fprintf(stderr, "usage: bench_routepick [--grid] [TARGET]\n");
            return 2;
        }
    }
    int rc = 0, seen = 0;
    for (size_t i = 0; tsr_all_targets[i]; i++) {
        const struct tsr_target *t = tsr_all_targets[i];
        if ((only && strcmp(only, t->name)) || !bench_corpus_src_of(t))
            continue;
        seen++;
        rc |= run_target(t, grid);
    }
    if (only && !seen) {
        fprintf(stderr, "bench_routepick: no target '%s' with a corpus\n", only);
        return 2;
    }
    return rc;
}
