/* Packer speed of every target of the registry on its corpus (bench/corpora.h), on one core, in operations per
 * second: each program is unbundled (tsr_unbundle: one operation per line, bundles that cannot be split stay
 * whole) and packed again with tsr_pack_text_effort (runtime/pack/pack.h) at effort `search` (the default) and
 * `list`.  bench_pack.c measures the QPU's packer quality and its GPU_FFT runs; this file only asks, per target,
 * whether the packer works on the corpus and how fast.
 *
 * The packer "works" on a target when every program of its corpus unbundles and packs without an error, and the
 * packed text assembles (t->assemble) to as many instructions as it has bundles and passes the target's
 * validator (t->validate: no rule broken).  Then its speed is measured; otherwise the first error is printed and
 * the target gets no figure (so a target's packer is picked up here, without a change to this file, on the day
 * it starts to work).  Operations = the packer's input lines (struct tsr_pack_stats.nops) over all programs.
 *
 * Each measurement repeats passes over all programs for >= TESSERA_BENCH_SECONDS (default 1) and keeps the best
 * of TESSERA_BENCH_RUNS (default 3) runs after a warm-up pass, timed with clock_gettime(CLOCK_MONOTONIC); `core`
 * and `cpu rate` as in bench_codec.c.  Every timed pass must give the warm-up pass's text (a difference exits
 * 1).  TESSERA_BENCH_TARGET=NAME measures that target only.  No goal: the figures are recorded in
 * docs/PERFORMANCE.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "corpora.h"
#include "pack/pack.h"
#include "registry.h"
#include "tsr.h"

struct prog {
    const char *name;
    struct tsr_buf input;  /* tsr_unbundle's output */
    struct tsr_buf packed; /* the warm-up pass's output at the effort measured */
    unsigned nops;
};

/* The first stored diagnostic of d, or a placeholder. */
static const char *first_error(const struct tsr_diag *d)
{
    return d->count ? d->entries[0].text : "(no message)";
}

/* Unbundles and packs every program once (untimed) and checks the result.  Returns 0 when the packer works on
 * all of them; else -1 with the first reason in why (n bytes). */
static int prepare(const struct tsr_target *t, const struct bench_corpus *c, struct prog *ps, char *why, size_t n)
{
    int rc = 0;
    for (size_t i = 0; i < c->nprog && !rc; i++) {
        struct prog *p = &ps[i];
        struct tsr_diag d;
        struct tsr_pack_stats st = { 0 };
        unsigned pinned = 0;
        p->name = c->name[i];
        tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
        if (tsr_unbundle(t, p->name, c->prog[i].w, NULL, c->prog[i].count, 0, &p->input, &pinned, &d)) {
            snprintf(why, n, "unbundle: %s", first_error(&d));
            rc = -1;
        } else if (tsr_pack_text(t, p->name, p->input.data ? p->input.data : "", p->input.len, &p->packed, &st, &d)) {
            snprintf(why, n, "pack: %s", first_error(&d));
            rc = -1;
        } else {
            struct tsr_words w;
            tsr_words_init(&w, t->word_bits);
            p->nops = st.nops;
            if (t->assemble("<packed>", p->packed.data ? p->packed.data : "", p->packed.len, &w, &d) ||
                w.count != st.nbundles) {
                snprintf(why, n, "%s: the packed text does not assemble to its %u bundles: %s", p->name, st.nbundles,
                         first_error(&d));
                rc = -1;
            } else if (t->validate(w.w, w.count, 0, &d, p->name)) {
                snprintf(why, n, "%s: the packed program breaks a rule: %s", p->name, first_error(&d));
                rc = -1;
            }
            tsr_words_free(&w);
        }
        tsr_pack_stats_free(&st);
        tsr_diag_fini(&d);
    }
    return rc;
}

/* Measures one effort over the n programs; 0, or 1 when a pass gives another text. */
static int speed(const struct tsr_target *t, struct prog *ps, size_t n, enum tsr_pack_effort effort, double min_s,
                 int runs)
{
    double best_wall = 0, best_cpu = 0, best_crate = 0;
    uint64_t best_ops = 0;
    struct tsr_buf out = { 0 }, *first = calloc(n, sizeof *first);
    if (!first)
        abort();
    int bad = 0;
    for (int r = 0; r <= runs && !bad; r++) { /* run 0 warms up and keeps each program's text */
        uint64_t ops = 0;
        double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC), w = 0;
        do {
            for (size_t i = 0; i < n && !bad; i++) {
                struct tsr_diag d;
                tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
                tsr_buf_clear(&out);
                if (tsr_pack_text_effort(t, ps[i].name, ps[i].input.data ? ps[i].input.data : "", ps[i].input.len,
                                         effort, &out, NULL, &d) ||
                    (r > 0 && (out.len != first[i].len || memcmp(out.data, first[i].data, out.len)))) {
                    fprintf(stderr, "bench_packrate: %s: %s: a timed pass gave another result\n", t->name, ps[i].name);
                    bad = 1;
                } else if (r == 0 && !first[i].len) {
                    tsr_buf_append(&first[i], out.data ? out.data : "", out.len);
                }
                ops += ps[i].nops;
                tsr_diag_fini(&d);
            }
            w = clock_s(CLOCK_MONOTONIC) - w0;
        } while (!bad && r > 0 && w < min_s);
        double c = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
        if (bad || r == 0)
            continue;
        if (c > 0 && (double)ops / c > best_crate)
            best_crate = (double)ops / c;
        if (!best_ops || (double)ops / w > (double)best_ops / best_wall)
            best_ops = ops, best_wall = w, best_cpu = c;
    }
    if (!bad)
        printf("%-32s %12llu %7.3f %5.0f%% %8.1f k %8.1f k\n",
               effort == TSR_PACK_SEARCH ? "search (default)" : "list only", (unsigned long long)best_ops, best_wall,
               100 * best_cpu / best_wall, (double)best_ops / best_wall / 1e3, best_crate / 1e3);
    for (size_t i = 0; i < n; i++)
        tsr_buf_free(&first[i]);
    free(first);
    tsr_buf_free(&out);
    return bad;
}

int main(void)
{
    const double min_s = env_num("TESSERA_BENCH_SECONDS", 1.0);
    const int runs = (int)env_num("TESSERA_BENCH_RUNS", 3);
    const char *only = getenv("TESSERA_BENCH_TARGET");
    int any = 0, bad = 0;
    for (size_t k = 0; tsr_all_targets[k] && !bad; k++) {
        const struct tsr_target *t = tsr_all_targets[k];
        if (only && *only && strcmp(only, t->name))
            continue;
        any = 1;
        struct bench_corpus c;
        int rc = bench_corpus_load(t, &c, "bench_packrate");
        if (rc < 0)
            return 1;
        if (rc > 0) {
            printf("\n%s: no corpus in bench/corpora.h: no packer figure\n", t->name);
            continue;
        }
        struct prog *ps = calloc(c.nprog, sizeof *ps);
        char why[1024];
        if (!ps)
            abort();
        if (prepare(t, &c, ps, why, sizeof why)) {
            printf("\n%s packer: does not work on the %s corpus yet, no figure (%s)\n", t->name, c.what, why);
        } else {
            unsigned nops = 0;
            for (size_t i = 0; i < c.nprog; i++)
                nops += ps[i].nops;
            printf("\n%s packer speed (operations/s), one core, over the %zu %s programs unbundled (%u operations; "
                   "packed, assembled and validated once before timing);\nbest of %d runs of >= %.1f s each, "
                   "CLOCK_MONOTONIC; core = CPU time / wall time of the best run; cpu rate = best operations per "
                   "second of CPU time\n",
                   t->name, c.nprog, c.what, nops, runs, min_s);
            printf("%-32s %12s %7s %6s %10s %10s\n", "effort", "operations", "wall s", "core", "rate", "cpu rate");
            char name[120];
            snprintf(name, sizeof name, "%s search", t->name);
            if (selected(name))
                bad = speed(t, ps, c.nprog, TSR_PACK_SEARCH, min_s, runs);
            snprintf(name, sizeof name, "%s list", t->name);
            if (!bad && selected(name))
                bad = speed(t, ps, c.nprog, TSR_PACK_LIST, min_s, runs);
        }
        for (size_t i = 0; i < c.nprog; i++) {
            tsr_buf_free(&ps[i].input);
            tsr_buf_free(&ps[i].packed);
        }
        free(ps);
        bench_corpus_free(&c);
    }
    if (!any) {
        fprintf(stderr, "bench_packrate: no target %s in this build\n", only ? only : "");
        return 1;
    }
    return bad;
}
