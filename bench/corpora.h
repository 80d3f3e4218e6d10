/* The corpus of real programs each target's benchmarks run on (bench/bench_*.c include this header; it is not a
 * program itself): which hex files under $TESSERA_SHARED/corpus (else ../shared/corpus, relative to the
 * repository root where `ninja bench` runs) belong to a target, and a loader that reads them with the runtime's
 * hex reader in the target's word order (struct tsr_target.word_msw_first, docs/mdl.md X10).
 *
 * The table below is the one place the benchmarks choose inputs by target name: a target of the registry
 * (runtime/registry.h) that has no entry is reported as having no corpus and its corpus rows are skipped. */
#ifndef BENCH_CORPORA_H
#define BENCH_CORPORA_H
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsr.h"

/* One target's corpus: glob patterns relative to the corpus directory, expanded in order (each pattern's
 * matches sorted), and the number of instructions they hold (a check that the files are the ones measured). */
struct bench_corpus_src {
    const char *target;
    const char *what;             /* for the tables, e.g. "GPU_FFT" */
    size_t words;                 /* instructions in all the files */
    const char *patterns[17];     /* NULL-terminated */
};

static const struct bench_corpus_src bench_corpus_srcs[] = {
    /* the 16 GPU_FFT shaders in the order of size (the QPU figures of docs/PERFORMANCE.md use this order) */
    { "qpu", "GPU_FFT", 12112,
      { "qpu/gpu_fft_r3/hex/shader_256.hex", "qpu/gpu_fft_r3/hex/shader_512.hex", "qpu/gpu_fft_r3/hex/shader_1k.hex",
        "qpu/gpu_fft_r3/hex/shader_2k.hex", "qpu/gpu_fft_r3/hex/shader_4k.hex", "qpu/gpu_fft_r3/hex/shader_8k.hex",
        "qpu/gpu_fft_r3/hex/shader_16k.hex", "qpu/gpu_fft_r3/hex/shader_32k.hex", "qpu/gpu_fft_r3/hex/shader_64k.hex",
        "qpu/gpu_fft_r3/hex/shader_128k.hex", "qpu/gpu_fft_r3/hex/shader_256k.hex",
        "qpu/gpu_fft_r3/hex/shader_512k.hex", "qpu/gpu_fft_r3/hex/shader_1024k.hex",
        "qpu/gpu_fft_r3/hex/shader_2048k.hex", "qpu/gpu_fft_r3/hex/shader_4096k.hex",
        "qpu/gpu_fft_r3/hex/shader_trans.hex", NULL } },
    /* grate's and opentegra's vertex programs, assembled by grate (files list part3 .. part0) */
    { "tegra", "grate vertex", 61, { "tegra/grate/vertex/*/*.hex", NULL } },
    /* Mesa lima's compiler output for glmark2 and kmscube vertex shaders (memory order) */
    { "utgard", "lima_compiler", 971, { "utgard-gp/lima_compiler/*.hex", NULL } },
};

/* A target's corpus as read: one program per file. */
struct bench_corpus {
    const struct tsr_target *t;
    const char *what;             /* bench_corpus_src.what */
    size_t nprog;
    char **name;                  /* each file's name without directory and `.hex` */
    struct tsr_words *prog;
    size_t total;                 /* instructions in all programs */
};

/* The corpus directory: $TESSERA_SHARED/corpus, else ../shared/corpus. */
static inline void bench_corpus_dir(char *buf, size_t n)
{
    const char *shared = getenv("TESSERA_SHARED");
    snprintf(buf, n, "%s/corpus", shared && *shared ? shared : "../shared");
}

/* The table's entry of target t, or NULL. */
static inline const struct bench_corpus_src *bench_corpus_src_of(const struct tsr_target *t)
{
    for (size_t i = 0; i < sizeof bench_corpus_srcs / sizeof bench_corpus_srcs[0]; i++)
        if (!strcmp(bench_corpus_srcs[i].target, t->name))
            return &bench_corpus_srcs[i];
    return NULL;
}

static inline void bench_corpus_free(struct bench_corpus *c)
{
    for (size_t p = 0; p < c->nprog; p++) {
        tsr_words_free(&c->prog[p]);
        free(c->name[p]);
    }
    free(c->prog);
    free(c->name);
    memset(c, 0, sizeof *c);
}

/* Reads target t's corpus into *c (zeroed first).  Returns 0; 1 when the table has no corpus for t (nothing
 * read); -1 after a message on stderr (prefixed by `who`) when a file cannot be read, a pattern matches
 * nothing, or the instruction count is not the table's. */
static inline int bench_corpus_load(const struct tsr_target *t, struct bench_corpus *c, const char *who)
{
    memset(c, 0, sizeof *c);
    c->t = t;
    const struct bench_corpus_src *src = bench_corpus_src_of(t);
    if (!src)
        return 1;
    c->what = src->what;
    char dir[4096];
    bench_corpus_dir(dir, sizeof dir);
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
    int rc = 0;
    for (size_t k = 0; src->patterns[k] && !rc; k++) {
        char pat[8192];
        snprintf(pat, sizeof pat, "%s/%s", dir, src->patterns[k]);
        glob_t g;
        if (glob(pat, 0, NULL, &g) != 0 || g.gl_pathc == 0) {
            fprintf(stderr, "%s: %s: no such file (set TESSERA_SHARED to the directory holding corpus/)\n", who, pat);
            rc = -1;
            globfree(&g);
            break;
        }
        c->prog = realloc(c->prog, (c->nprog + g.gl_pathc) * sizeof *c->prog);
        c->name = realloc(c->name, (c->nprog + g.gl_pathc) * sizeof *c->name);
        if (!c->prog || !c->name)
            abort();
        for (size_t i = 0; i < g.gl_pathc && !rc; i++) {
            struct tsr_words *w = &c->prog[c->nprog];
            tsr_words_init(w, t->word_bits);
            w->msw_first = t->word_msw_first;
            const char *base = strrchr(g.gl_pathv[i], '/');
            base = base ? base + 1 : g.gl_pathv[i];
            c->name[c->nprog] = strdup(base);
            char *dot = strrchr(c->name[c->nprog], '.');
            if (dot)
                *dot = 0;
            c->nprog++;
            if (tsr_words_read(w, g.gl_pathv[i], TSR_WORDS_HEX, &d)) {
                fprintf(stderr, "%s: cannot read %s\n", who, g.gl_pathv[i]);
                rc = -1;
            }
            c->total += w->count;
        }
        globfree(&g);
    }
    if (!rc && c->total != src->words) {
        fprintf(stderr, "%s: the %s corpus has %zu instructions, expected %zu\n", who, t->name, c->total, src->words);
        rc = -1;
    }
    tsr_diag_fini(&d);
    if (rc)
        bench_corpus_free(c);
    return rc;
}
#endif
