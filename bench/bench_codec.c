/* Codec throughput of every target of the registry (runtime/registry.h; the generated build/gen/<t>/<t>_decode.c,
 * <t>_encode.c) through the target descriptor (runtime/target.h: t->decode, t->encode), on one core, in
 * instructions per second, per target:
 *  - over its corpus of real programs (bench/corpora.h: the QPU's 12,112 words of the 16 GPU_FFT programs,
 *    Tegra's 61 grate vertex instructions, Utgard's 971 lima_compiler instructions; $TESSERA_SHARED/corpus,
 *    else ../shared/corpus, relative to the repository root where `ninja bench` runs), concatenated and
 *    repeated (a target without a corpus gets the random rows only);
 *  - over 65,536 pseudo-random instructions (xorshift64*, fixed seed; on the QPU ~1/16 have sig 15 = branch,
 *    1/16 sig 14 = ldi/sema, the rest ALU; some decode to no operation or no format);
 *  - encode only: over the first 1,024 of them, repeated ("small random"): their decoded input (1,024 structs,
 *    at most 0.2 MB) stays in the core's 1 MiB L2, where the 65,536 (7-13 MB) come from the L3 or memory, so
 *    this row measures the encoder and the 65,536 row the encoder plus the memory traffic of its input.
 * decode writes into a ring of 64 decoded instructions (the consumer of a decoder uses each one at
 * once); encode reads the whole decoded input (one struct <t>_inst per instruction) and writes words.
 * TESSERA_BENCH_TARGET=NAME measures that target only; TESSERA_BENCH_PASSES=N makes each run N passes (bench.h:
 * for callgrind, e.g. `valgrind --tool=callgrind --toggle-collect=decode_pass`: instructions per decoded
 * instruction = the count / ((TESSERA_BENCH_RUNS x N + 1) x the input's instructions)).
 *
 * Each measurement repeats its input enough to run >= TESSERA_BENCH_SECONDS (default 1) and keeps the
 * best of TESSERA_BENCH_RUNS (default 3) runs, timed with clock_gettime(CLOCK_MONOTONIC).  Beside it:
 * `core`, the thread's CPU time over the wall time of that run (below 100%: other processes took the
 * core), and `cpu rate`, the best rate of all runs by the thread's CPU time (the one-core figure when the
 * machine is busy; on an idle machine it equals the rate).  The work is checked after timing: every
 * word decodes (corpus: to a format) and encodes back bit for bit, and the timed runs' checksums and
 * outputs match; a wrong result exits 1.  Goals (docs/PERFORMANCE.md) are reported, never enforced. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "corpora.h"
#include "registry.h"
#include "tsr.h"

#define GOAL 50e6     /* instructions/s, each of decode and encode */
#define NRANDOM 65536
#define NSMALL 1024  /* random instructions encoded repeatedly, the decoded input cache-resident */
#define RING 64


/* One measurement: the job runs `reps` passes over its input per timed run. */
struct job {
    const char *name;
    const struct tsr_target *t;
    const uint32_t *words; /* input words (decode) / expected output (encode) */
    unsigned char *insts;  /* decoded input (encode) or ring (decode) */
    uint32_t *out;         /* encode output */
    size_t n;              /* instructions per pass */
    uint64_t sum;          /* decode checksum of the current run */
    uint64_t best_sum;     /* ... and of the best run */
    int (*pass)(struct job *j);
};

static int decode_pass(struct job *j)
{
    const struct tsr_target *t = j->t;
    uint64_t sum = 0;
    unsigned nw = t->nwords;
    for (size_t i = 0; i < j->n; i++) {
        void *inst = j->insts + (i % RING) * t->inst_size;
        int rc = t->decode(j->words + i * nw, inst);
        sum += (uint64_t)(rc + 2) * 1000 + t->inst_format(inst);
    }
    j->sum += sum;
    return 0;
}

static int encode_pass(struct job *j)
{
    const struct tsr_target *t = j->t;
    unsigned nw = t->nwords;
    for (size_t i = 0; i < j->n; i++)
        t->encode(j->insts + i * t->inst_size, j->out + i * nw);
    return 0;
}

struct result {
    double wall, cpu; /* seconds of the best run (by wall-clock rate): wall clock, this thread's CPU time */
    uint64_t passes;  /* passes over the input in that run */
    uint64_t count;   /* instructions in that run */
    double crate;     /* the best CPU-time rate of all runs (instructions per CPU second) */
};

/* Best of `runs` runs; each run repeats passes until >= min_s of wall time has gone by. */
static struct result measure(struct job *j, double min_s, int runs)
{
    struct result best = { 1e30, 0, 0, 0, 0 };
    const unsigned long fixed = fixed_passes();
    j->pass(j); /* warm up (caches, page faults) */
    for (int r = 0; r < runs; r++) {
        uint64_t passes = 0;
        j->sum = 0;
        double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC), w;
        do {
            j->pass(j);
            passes++;
            w = clock_s(CLOCK_MONOTONIC) - w0;
        } while (fixed ? passes < fixed : w < min_s);
        double c = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
        if (c > 0 && (double)(passes * j->n) / c > best.crate)
            best.crate = (double)(passes * j->n) / c;
        if (w / (double)passes < best.wall / (double)(best.passes ? best.passes : 1) || !best.passes) {
            best.wall = w;
            best.cpu = c;
            best.passes = passes;
            best.count = passes * j->n;
            j->best_sum = j->sum;
        }
    }
    return best;
}

/* name, count and wall seconds of the best run, the share of a core it got (CPU time / wall time),
 * rate = count / wall, cpu rate = the best count / CPU time of all runs, goal, verdict (on the wall
 * rate; "met on cpu time" when only the CPU-time rate reaches the goal: the machine was busy). */
static void header(void)
{
    printf("%-42s %12s %7s %6s %10s %10s %8s  %s\n", "measurement", "count", "wall s", "core", "rate", "cpu rate",
           "goal", "goal");
}

static void row(const char *name, const struct result *r, double goal)
{
    double rate = (double)r->count / r->wall;
    printf("%-42s %12llu %7.3f %5.0f%% %8.2f M %8.2f M %6.0f M  %s\n", name, (unsigned long long)r->count, r->wall,
           100 * r->cpu / r->wall, rate / 1e6, r->crate / 1e6, goal / 1e6,
           rate >= goal ? "met" : r->crate >= goal ? "met on cpu time (machine busy)" : "NOT MET");
}

/* decode then encode every word: 0 if all round-trip (and, when need_format, all have a format). */
static int check_round_trip(const struct tsr_target *t, const uint32_t *w, size_t n, int need_format,
                            const char *what)
{
    void *inst = malloc(t->inst_size);
    uint32_t *back = malloc(t->nwords * 4);
    int bad = 0;
    for (size_t i = 0; i < n && bad < 5; i++) {
        const uint32_t *wi = w + i * t->nwords;
        int rc = t->decode(wi, inst);
        t->encode(inst, back);
        if ((need_format && (rc || t->inst_format(inst) == TSR_NO_FORMAT)) || memcmp(back, wi, t->nwords * 4)) {
            fprintf(stderr, "bench_codec: %s: %s word %zu (low 32 bits 0x%08x): decode %d, encodes back as 0x%08x\n",
                    t->name, what, i, wi[0], rc, back[0]);
            bad++;
        }
    }
    free(back);
    free(inst);
    return bad;
}

/* Expected decode checksum of one pass (computed the same way, untimed). */
static uint64_t decode_sum(const struct tsr_target *t, const uint32_t *w, size_t n)
{
    void *inst = malloc(t->inst_size);
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        int rc = t->decode(w + i * t->nwords, inst);
        sum += (uint64_t)(rc + 2) * 1000 + t->inst_format(inst);
    }
    free(inst);
    return sum;
}

/* Measures t->decode over the n words at w; 0, or 1 when the timed run's checksum is wrong. */
static int bench_decode(const struct tsr_target *t, const char *name, const uint32_t *w, size_t n,
                        unsigned char *ring, double min_s, int runs)
{
    struct job dj = { "decode", t, w, ring, NULL, n, 0, 0, decode_pass };
    struct result r = measure(&dj, min_s, runs);
    uint64_t want = decode_sum(t, w, n) * r.passes;
    if (dj.best_sum != want) {
        fprintf(stderr, "bench_codec: decode checksum of the timed run differs (%llu, expected %llu)\n",
                (unsigned long long)dj.best_sum, (unsigned long long)want);
        return 1;
    }
    row(name, &r, GOAL);
    return 0;
}

/* Measures t->encode of the n words at w, decoded beforehand; 0, or 1 when the output differs. */
static int bench_encode(const struct tsr_target *t, const char *name, const uint32_t *w, size_t n, double min_s,
                        int runs)
{
    unsigned nw = t->nwords;
    unsigned char *insts = malloc(n * t->inst_size);
    uint32_t *out = calloc(n * nw, 4);
    for (size_t i = 0; i < n; i++)
        t->decode(w + i * nw, insts + i * t->inst_size);
    struct job ej = { "encode", t, w, insts, out, n, 0, 0, encode_pass };
    struct result r = measure(&ej, min_s, runs);
    int bad = memcmp(out, w, n * nw * 4) != 0;
    if (bad)
        fprintf(stderr, "bench_codec: the timed encode did not give back the input words\n");
    else
        row(name, &r, GOAL);
    free(insts);
    free(out);
    return bad;
}

/* Checks then measures target t (corpus c, or none when c->nprog == 0).  Returns 0, or 1 on a wrong result. */
static int bench_target(const struct tsr_target *t, const struct bench_corpus *c, double min_s, int runs)
{
    unsigned nw = t->nwords;
    /* the corpus, all programs concatenated */
    struct tsr_words corpus;
    tsr_words_init(&corpus, t->word_bits);
    for (size_t p = 0; p < c->nprog; p++)
        for (size_t i = 0; i < c->prog[p].count; i++)
            tsr_words_push(&corpus, tsr_words_at(&c->prog[p], i), NULL, 0);
    /* random words */
    uint32_t *rnd = malloc(NRANDOM * nw * 4);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < NRANDOM * nw; i++) {
        x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
        rnd[i] = (uint32_t)((x * 0x2545f4914f6cdd1dull) >> 32);
    }

    int bad = check_round_trip(t, corpus.w, corpus.count, 1, "corpus") + check_round_trip(t, rnd, NRANDOM, 0, "random");
    if (bad) {
        fprintf(stderr, "bench_codec: %s: round trip FAILED\n", t->name);
        free(rnd);
        tsr_words_free(&corpus);
        return 1;
    }

    printf("\n%s codec throughput (instructions/s), one core; best of %d runs of >= %.1f s each, CLOCK_MONOTONIC;\n"
           "core = CPU time / wall time of the best run (below 100%%: the machine was busy); cpu rate = best "
           "instructions per second of CPU time\n", t->name, runs, min_s);
    header();

    char cname[80], rname[80], sname[80];
    snprintf(cname, sizeof cname, "corpus (%s, %zu words)", c->what ? c->what : "", corpus.count);
    snprintf(rname, sizeof rname, "random (%d words)", NRANDOM);
    snprintf(sname, sizeof sname, "small random (%d words, in cache)", NSMALL);
    struct {
        const char *name;
        const uint32_t *w;
        size_t n;
        int decode;   /* also measured by decode (the small set: encode only) */
    } inputs[3] = {
        { cname, corpus.w, corpus.count, 1 },
        { rname, rnd, NRANDOM, 1 },
        { sname, rnd, NSMALL, 0 },
    };
    unsigned char *ring = malloc(RING * t->inst_size);
    for (int k = 0; k < 3 && !bad; k++) {
        char name[120];
        if (!inputs[k].n)
            continue;
        snprintf(name, sizeof name, "%s decode %s", t->name, inputs[k].name);
        bad = inputs[k].decode && selected(name) &&
              bench_decode(t, name + strlen(t->name) + 1, inputs[k].w, inputs[k].n, ring, min_s, runs);
        snprintf(name, sizeof name, "%s encode %s", t->name, inputs[k].name);
        bad = bad || (selected(name) && bench_encode(t, name + strlen(t->name) + 1, inputs[k].w, inputs[k].n, min_s, runs));
    }
    if (!bad)
        printf("(decode: t->decode into a ring of %d decoded instructions; encode: t->encode of every decoded "
               "instruction, %zu bytes each%s)\n", RING, t->inst_size, c->nprog ? "" : "; no corpus for this target");
    free(ring);
    free(rnd);
    tsr_words_free(&corpus);
    return bad;
}

int main(void)
{
    const double min_s = env_num("TESSERA_BENCH_SECONDS", 1.0);
    const int runs = (int)env_num("TESSERA_BENCH_RUNS", 3);
    const char *only = getenv("TESSERA_BENCH_TARGET");
    int bad = 0, any = 0;
    for (size_t i = 0; tsr_all_targets[i] && !bad; i++) {
        const struct tsr_target *t = tsr_all_targets[i];
        if (only && *only && strcmp(only, t->name))
            continue;
        any = 1;
        struct bench_corpus c;
        if (bench_corpus_load(t, &c, "bench_codec") < 0)
            return 1;
        bad = bench_target(t, &c, min_s, runs);
        bench_corpus_free(&c);
    }
    if (!any) {
        fprintf(stderr, "bench_codec: no target %s in this build\n", only ? only : "");
        return 1;
    }
    return bad;
}
