/* Text throughput of every target of the registry that has a corpus (bench/corpora.h: the QPU's 12,112 words of the
 * 16 GPU_FFT programs, Tegra's 61 grate vertex instructions, Utgard's 971 lima_compiler instructions;
 * $TESSERA_SHARED/corpus, else ../shared/corpus, relative to the repository root where `ninja bench` runs), on
 * one core, in lines per second, over the corpus and over its distinct words (the QPU's 1,002: no word repeats,
 * so no memo helps); TESSERA_BENCH_TARGET=NAME measures that target only:
 *  - disasm: t->disasm of every word, one call per word (each call prints the bundle, assembles its own
 *    text back and compares the fields: the round-trip check of runtime/text/dis_engine.c);
 *  - disasm_program: t->disasm_program on each whole program (with its label lines);
 *  - assemble: t->assemble on each disassembled whole program;
 *  - assemble_one: t->assemble_one on the text of every word, one call per line.
 * A line is one instruction (label lines `Lxx:` of the program forms are not counted; the count of them
 * is printed).  For comparison, when GNU `as` is on the PATH: `as --64` on a generated x86-64 file of a
 * million typical lines (the whole process, startup included).
 *
 * Cold passes: the text engines may memoise (a per-call memo serves the words and bundle texts that
 * repeat within a program; a per-thread memo may serve the words seen before), so that passes repeated in
 * one process would time memo hits.  Each timed pass therefore runs in a freshly forked child of a parent
 * that has not used that engine yet: every pass does the work a program does on first meeting the corpus
 * (repeats within the pass still hit the memos, as they would there).  The child times itself (wall and
 * thread CPU time) and reports through a pipe.  Rows marked "warm" repeat passes in one process, for
 * comparison, without a goal.
 *
 * Each measurement repeats passes for >= TESSERA_BENCH_SECONDS (default 1) of summed pass time and keeps
 * the best of TESSERA_BENCH_RUNS (default 3) runs, timed with clock_gettime(CLOCK_MONOTONIC); `core` and
 * `cpu rate` as in bench_codec.c (from the passes' own CPU time).  The work is checked: the first pass of
 * every run verifies that its text assembles back to the corpus words bit for bit (per line for disasm,
 * per program for disasm_program) and that its text is the same as every other pass's (a hash); assemble
 * and assemble_one compare every word they produce with the corpus.  A wrong result exits 1.  Goals
 * (docs/PERFORMANCE.md) are reported, never enforced. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <errno.h>

#include "bench.h"
#include "corpora.h"
#include "registry.h"
#include "tsr.h"

#define GOAL 2e6 /* lines/s, each of disassembly and assembly */
#define AS_LINES 1000000

/* Everything the passes work on. */
struct corpus {
    const struct tsr_target *t;
    size_t nprog;                      /* programs */
    char **name;                       /* for messages: the file name without `.hex` */
    struct tsr_words *prog;            /* nprog programs */
    size_t total;                      /* instructions */
    /* texts for the assembler passes, made by the parent after the disassembler measurements */
    struct tsr_buf lines;              /* t->disasm of every word, each followed by '\n' */
    size_t *line_off;                  /* total + 1 offsets into lines */
    struct tsr_buf *listing;           /* t->disasm_program of each program (nprog) */
    /* outputs of the pass */
    struct tsr_buf out;                /* disasm / disasm_program output */
    size_t *out_off;                   /* disasm_program: where each program's listing starts (nprog + 1) */
    uint32_t *words;                   /* assemble_one output, total * nwords */
    int bad;                           /* a pass found a wrong result */
};

static void pass_disasm(struct corpus *c)
{
    const struct tsr_target *t = c->t;
    tsr_buf_clear(&c->out);
    for (size_t p = 0; p < c->nprog; p++) {
        const struct tsr_words *w = &c->prog[p];
        for (size_t i = 0; i < w->count; i++) {
            t->disasm(tsr_words_at(w, i), i * t->pc_step, &c->out);
            tsr_buf_append(&c->out, "\n", 1);
        }
    }
}

static void pass_disasm_program(struct corpus *c)
{
    tsr_buf_clear(&c->out);
    for (size_t p = 0; p < c->nprog; p++) {
        c->out_off[p] = c->out.len;
        c->t->disasm_program(c->prog[p].w, c->prog[p].count, 0, &c->out);
    }
    c->out_off[c->nprog] = c->out.len;
}

static void pass_assemble(struct corpus *c)
{
    const struct tsr_target *t = c->t;
    for (size_t p = 0; p < c->nprog; p++) {
        struct tsr_words back;
        struct tsr_diag d;
        tsr_words_init(&back, t->word_bits);
        tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
        int rc = t->assemble("<disassembly>", c->listing[p].data, c->listing[p].len, &back, &d);
        if (rc || back.count != c->prog[p].count || memcmp(back.w, c->prog[p].w, back.count * t->nwords * 4)) {
            if (!c->bad)
                fprintf(stderr, "bench_text: %s: the disassembled program does not assemble back\n",
                        c->name[p]);
            c->bad = 1;
        }
        tsr_diag_fini(&d);
        tsr_words_free(&back);
    }
}

static void pass_assemble_one(struct corpus *c)
{
    const struct tsr_target *t = c->t;
    char err[256];
    size_t k = 0;
    for (size_t p = 0; p < c->nprog; p++)
        for (size_t i = 0; i < c->prog[p].count; i++, k++) {
            const char *s = c->lines.data + c->line_off[k];
            size_t len = c->line_off[k + 1] - c->line_off[k] - 1;
            if (t->assemble_one(s, len, i * t->pc_step, c->words + k * t->nwords, err, sizeof err)) {
                if (!c->bad)
                    fprintf(stderr, "bench_text: '%.*s' does not assemble: %s\n", (int)len, s, err);
                c->bad = 1;
            }
        }
}

/* qsort of instruction pointers by their words (cmp_nwords: 32-bit words per instruction) */
static unsigned cmp_nwords;
static int cmp_inst(const void *x, const void *y)
{
    return memcmp(*(const uint32_t *const *)x, *(const uint32_t *const *)y, cmp_nwords * 4);
}

/* ---- checks (run after a timed pass; 0 = right) ---- */

static uint64_t hash_out(const struct corpus *c)
{
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < c->out.len; i++)
        h = (h ^ (unsigned char)c->out.data[i]) * 1099511628211u;
    return h;
}

/* pass_disasm's text: one line per word, each assembling back to the word. */
static int check_disasm(struct corpus *c)
{
    const struct tsr_target *t = c->t;
    const char *s = c->out.data, *end = s + c->out.len;
    char err[256];
    for (size_t p = 0; p < c->nprog; p++)
        for (size_t i = 0; i < c->prog[p].count; i++) {
            const char *nl = memchr(s, '\n', (size_t)(end - s));
            uint32_t w[8] = { 0 }; /* up to 256-bit instructions */
            if (!nl || t->nwords > 8 ||
                t->assemble_one(s, (size_t)(nl - s), i * t->pc_step, w, err, sizeof err) ||
                memcmp(w, tsr_words_at(&c->prog[p], i), t->nwords * 4)) {
                fprintf(stderr, "bench_text: %s word %zu: '%.*s' does not assemble back\n", c->name[p], i,
                        nl ? (int)(nl - s) : 0, s);
                return -1;
            }
            s = nl + 1;
        }
    return s == end ? 0 : -1;
}

/* pass_disasm_program's listings: each assembles back to its program. */
static int check_disasm_program(struct corpus *c)
{
    const struct tsr_target *t = c->t;
    for (size_t p = 0; p < c->nprog; p++) {
        struct tsr_words back;
        struct tsr_diag d;
        tsr_words_init(&back, t->word_bits);
        tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
        size_t len = c->out_off[p + 1] - c->out_off[p];
        int rc = t->assemble("<disassembly>", c->out.data + c->out_off[p], len, &back, &d);
        int same = !rc && back.count == c->prog[p].count && !memcmp(back.w, c->prog[p].w, back.count * t->nwords * 4);
        tsr_diag_fini(&d);
        tsr_words_free(&back);
        if (!same) {
            fprintf(stderr, "bench_text: %s: the program listing does not assemble back\n", c->name[p]);
            return -1;
        }
    }
    return 0;
}

static int check_assemble(struct corpus *c)
{
    return c->bad ? -1 : 0;
}

static int check_assemble_one(struct corpus *c)
{
    const struct tsr_target *t = c->t;
    for (size_t p = 0, base = 0; p < c->nprog; base += c->prog[p].count, p++)
        if (memcmp(c->words + base * t->nwords, c->prog[p].w, c->prog[p].count * t->nwords * 4)) {
            fprintf(stderr, "bench_text: %s: assemble_one gives other words\n", c->name[p]);
            return -1;
        }
    return c->bad ? -1 : 0;
}

/* ---- timing ---- */

struct result {
    double wall, cpu;      /* the best run (by wall-clock rate): wall time and CPU time of its passes */
    uint64_t passes, count;
    double crate;          /* the best CPU-time rate of all runs (lines per CPU second) */
};

/* What a child reports about its pass. */
struct child_report {
    double wall, cpu;
    uint64_t hash; /* of the pass's text output (disasm forms) */
    int ok;        /* the pass's own check passed (or was not asked for) */
};

/* Runs one pass in a forked child (cold: the parent has not used the engine); with full_check the
 * child also runs `check` on its output.  Returns 0, or -1 if the child failed or its check did. */
static int child_pass(struct corpus *c, void (*pass)(struct corpus *), int (*check)(struct corpus *), int full_check,
                      struct child_report *rep)
{
    int fd[2];
    if (pipe(fd))
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        close(fd[0]);
        struct child_report r;
        double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
        pass(c);
        r.wall = clock_s(CLOCK_MONOTONIC) - w0;
        r.cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
        r.hash = hash_out(c);
        r.ok = c->bad ? 0 : full_check ? check(c) == 0 : 1;
        ssize_t n = write(fd[1], &r, sizeof r);
        _exit(n == (ssize_t)sizeof r ? 0 : 1);
    }
    close(fd[1]);
    return child_collect(pid, fd[0], rep, sizeof *rep) == 0 && rep->ok ? 0 : -1;
}

/* Cold measurement: best of `runs` runs, each of child passes until >= min_s of summed pass time; the
 * first pass of each run is checked in full, and every pass's output hash must agree.  Returns 0 or -1. */
static int measure_cold(struct corpus *c, void (*pass)(struct corpus *), int (*check)(struct corpus *), double min_s,
                        int runs, struct result *best, uint64_t *hash)
{
    *best = (struct result){ 0, 0, 0, 0, 0 };
    for (int r = 0; r < runs; r++) {
        double wall = 0, cpu = 0;
        uint64_t passes = 0;
        do {
            struct child_report rep;
            if (child_pass(c, pass, check, passes == 0, &rep))
                return -1;
            if ((r || passes) && rep.hash != *hash) {
                fprintf(stderr, "bench_text: two passes gave different text\n");
                return -1;
            }
            *hash = rep.hash;
            wall += rep.wall;
            cpu += rep.cpu;
            passes++;
        } while (wall < min_s);
        double crate = cpu > 0 ? (double)(passes * c->total) / cpu : 0;
        if (crate < best->crate)
            crate = best->crate;
        if (!best->passes || wall / (double)passes < best->wall / (double)best->passes)
            *best = (struct result){ wall, cpu, passes, passes * c->total, 0 };
        best->crate = crate;
    }
    return 0;
}

/* Warm measurement: passes repeated in this process until >= min_s, best of `runs`. */
static struct result measure_warm(struct corpus *c, void (*pass)(struct corpus *), double min_s, int runs)
{
    struct result best = { 0, 0, 0, 0, 0 };
    pass(c);
    for (int r = 0; r < runs; r++) {
        uint64_t passes = 0;
        double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC), w;
        do {
            pass(c);
            passes++;
        } while ((w = clock_s(CLOCK_MONOTONIC) - w0) < min_s);
        double cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
        double crate = cpu > 0 ? (double)(passes * c->total) / cpu : 0;
        if (crate < best.crate)
            crate = best.crate;
        if (!best.passes || w / (double)passes < best.wall / (double)best.passes)
            best = (struct result){ w, cpu, passes, passes * c->total, 0 };
        best.crate = crate;
    }
    return best;
}

/* Columns as in bench_codec: core = CPU time / wall time of the best run, cpu rate = the best of all runs. */
static void header(void)
{
    printf("%-44s %10s %7s %6s %10s %10s %8s  %s\n", "measurement", "lines", "wall s", "core", "rate", "cpu rate",
           "goal", "goal");
}

/* goal <= 0: a comparison point, no goal. */
static void row(const char *name, const struct result *r, double goal)
{
    double rate = (double)r->count / r->wall;
    printf("%-44s %10llu %7.3f %5.0f%% %8.2f M %8.2f M ", name, (unsigned long long)r->count, r->wall,
           100 * r->cpu / r->wall, rate / 1e6, r->crate / 1e6);
    if (goal > 0)
        printf("%6.0f M  %s\n", goal / 1e6,
               rate >= goal ? "met" : r->crate >= goal ? "met on cpu time (machine busy)" : "NOT MET");
    else
        printf("%8s  %s\n", "-", "(comparison)");
}

/* Writes n lines of typical x86-64 code (AT&T syntax) to f. */
static void write_x86(FILE *f, size_t n)
{
    static const char *const regs[] = { "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11" };
    static const char *const regs32[] = { "eax", "ebx", "ecx", "edx", "esi", "edi", "r8d", "r9d", "r10d", "r11d" };
    static const char *const ops[] = { "addq", "subq", "andq", "orq", "xorq", "cmpq", "movq", "imulq" };
    fputs("\t.text\n", f);
    for (size_t i = 0; i < n; i++) {
        const char *a = regs[i % 10], *b = regs[(i / 10) % 10];
        switch (i % 8) {
        case 0: fprintf(f, "\t%s\t%%%s, %%%s\n", ops[(i / 8) % 8], a, b); break;
        case 1: fprintf(f, "\tmovq\t%zu(%%rsp), %%%s\n", (i % 64) * 8, a); break;
        case 2: fprintf(f, "\taddq\t$%zu, %%%s\n", i % 1000, b); break;
        case 3: fprintf(f, "\tleaq\t8(%%%s,%%%s,4), %%%s\n", a, b, a); break;
        case 4: fprintf(f, "\tvaddps\t%%ymm%zu, %%ymm%zu, %%ymm%zu\n", i % 16, (i / 16) % 16, (i / 3) % 16); break;
        case 5: fprintf(f, "\tmovl\t%%%s, -%zu(%%rbp)\n", regs32[i % 10], 4 + (i % 32) * 4); break;
        case 6: fprintf(f, ".L%zu:\ttestq\t%%%s, %%%s\n", i, a, a); break;
        default: fprintf(f, "\tjne\t.L%zu\n", i - 1); break;
        }
    }
}

/* Times `as --64 -o /dev/null FILE` (the whole process); best of runs.  Returns 0, or -1 when as is
 * not available or fails. */
static int time_gnu_as(int runs, double *wall, double *cpu)
{
    if (system("command -v as >/dev/null 2>&1") != 0)
        return -1;
    char path[] = "/tmp/bench_text_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    FILE *f = fdopen(fd, "w");
    write_x86(f, AS_LINES);
    fclose(f);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "as --64 -o /dev/null %s", path);
    int rc = 0;
    *wall = 1e30;
    for (int r = 0; r < runs && !rc; r++) {
        struct rusage u0, u1;
        getrusage(RUSAGE_CHILDREN, &u0);
        double w0 = clock_s(CLOCK_MONOTONIC);
        int st = system(cmd);
        double w = clock_s(CLOCK_MONOTONIC) - w0;
        getrusage(RUSAGE_CHILDREN, &u1);
        if (st != 0) {
            fprintf(stderr, "bench_text: note: `%s` failed; no comparison\n", cmd);
            rc = -1;
        } else if (w < *wall) {
            *wall = w;
            *cpu = tv_s(u1.ru_utime) - tv_s(u0.ru_utime) + tv_s(u1.ru_stime) - tv_s(u0.ru_stime);
        }
    }
    unlink(path);
    return rc;
}

/* The parent's texts for the assembler passes: every word's disassembly (lines) and every program's
 * listing.  Returns the number of label lines in the listings. */
static size_t make_texts(struct corpus *c)
{
    const struct tsr_target *t = c->t;
    c->line_off = malloc((c->total + 1) * sizeof *c->line_off);
    c->words = calloc(c->total * t->nwords, 4);
    size_t k = 0, labels = 0;
    tsr_buf_puts(&c->lines, "");
    for (size_t p = 0; p < c->nprog; p++) {
        const struct tsr_words *w = &c->prog[p];
        for (size_t i = 0; i < w->count; i++, k++) {
            c->line_off[k] = c->lines.len;
            t->disasm(tsr_words_at(w, i), i * t->pc_step, &c->lines);
            tsr_buf_append(&c->lines, "\n", 1);
        }
        tsr_buf_puts(&c->listing[p], "");
        t->disasm_program(w->w, w->count, 0, &c->listing[p]);
        for (size_t i = 0; i < c->listing[p].len; i++)
            labels += c->listing[p].data[i] == ':' && (i + 1 == c->listing[p].len || c->listing[p].data[i + 1] == '\n');
    }
    c->line_off[k] = c->lines.len;
    return labels;
}

static void corpus_free(struct corpus *c)
{
    for (size_t p = 0; p < c->nprog; p++)
        tsr_buf_free(&c->listing[p]);
    free(c->listing);
    free(c->out_off);
    tsr_buf_free(&c->lines);
    tsr_buf_free(&c->out);
    free(c->line_off);
    free(c->words);
}

/* The pass state of nprog programs (the words are the caller's). */
static void corpus_init(struct corpus *c, const struct tsr_target *t, size_t nprog, char **name, struct tsr_words *prog)
{
    memset(c, 0, sizeof *c);
    c->t = t;
    c->nprog = nprog;
    c->name = name;
    c->prog = prog;
    for (size_t p = 0; p < nprog; p++)
        c->total += prog[p].count;
    c->listing = calloc(nprog, sizeof *c->listing);
    c->out_off = calloc(nprog + 1, sizeof *c->out_off);
    if (!c->listing || !c->out_off)
        abort();
}

/* Checks then measures target t on its corpus bc.  Returns 0, or 1 on a wrong result. */
static int bench_target(const struct tsr_target *t, struct bench_corpus *bc, double min_s, int runs)
{
    static struct corpus c, u; /* the corpus; its distinct words as one program */
    static char dname[] = "(distinct words)";
    static char *uname[1] = { dname };
    struct tsr_words uw;
    unsigned nw = t->nwords;
    corpus_init(&c, t, bc->nprog, bc->name, bc->prog);
    size_t distinct = 0;
    for (size_t p = 0; p < c.nprog; p++)
        for (size_t i = 0; i < c.prog[p].count; i++) {
            int seen = 0;
            for (size_t j = 0; j < i && !seen; j++)
                seen = !memcmp(tsr_words_at(&c.prog[p], j), tsr_words_at(&c.prog[p], i), nw * 4);
            distinct += !seen;
        }

    const uint32_t **all = malloc(c.total * sizeof *all);
    size_t na = 0, distinct_all = 0;
    for (size_t p = 0; p < c.nprog; p++)
        for (size_t i = 0; i < c.prog[p].count; i++)
            all[na++] = tsr_words_at(&c.prog[p], i);
    cmp_nwords = nw;
    qsort(all, na, sizeof *all, cmp_inst);
    tsr_words_init(&uw, t->word_bits);
    for (size_t i = 0; i < na; i++)
        if (i == 0 || memcmp(all[i], all[i - 1], nw * 4)) {
            tsr_words_push(&uw, all[i], NULL, 0);
            distinct_all++;
        }
    free(all);
    corpus_init(&u, t, 1, uname, &uw);

    printf("\n%s text throughput (lines/s), one core, over the %zu %s instructions (%zu distinct within their "
           "programs, %zu in the whole corpus);\ncold passes (each in a fresh child process), best of %d runs of "
           ">= %.1f s each, CLOCK_MONOTONIC;\ncore = CPU time / wall time of the best run; cpu rate = best lines "
           "per second of CPU time\n",
           t->name, c.total, bc->what, distinct, distinct_all, runs, min_s);
    header();
    struct result r;
    uint64_t h_disasm = 0, h_program = 0, h;
    int bad = 0;
    char name[120];
#define NAME(text) (snprintf(name, sizeof name, "%s %s", t->name, text), name)
#define SHOW (name + strlen(t->name) + 1)

    /* the disassembler, cold: the parent has not disassembled anything yet */
    if (selected(NAME("disassemble, t->disasm per word"))) {
        if ((bad = measure_cold(&c, pass_disasm, check_disasm, min_s, runs, &r, &h_disasm)) != 0)
            goto out;
        row(SHOW, &r, GOAL);
    }
    if (selected(NAME("disassemble, t->disasm per distinct word"))) {
        if ((bad = measure_cold(&u, pass_disasm, check_disasm, min_s, runs, &r, &(uint64_t){ 0 })) != 0)
            goto out;
        row(SHOW, &r, GOAL);
    }
    if (selected(NAME("disassemble, t->disasm_program"))) {
        if ((bad = measure_cold(&c, pass_disasm_program, check_disasm_program, min_s, runs, &r, &h_program)) != 0)
            goto out;
        row(SHOW, &r, GOAL);
    }

    /* the texts for the assembler (the parent disassembles now), checked against the children's */
    size_t labels = make_texts(&c);
    make_texts(&u);
    tsr_buf_clear(&c.out);
    tsr_buf_append(&c.out, c.lines.data, c.lines.len);
    h = hash_out(&c);
    if (h_disasm && h != h_disasm) {
        fprintf(stderr, "bench_text: %s: the disassembly differs between a fresh process and this one\n", t->name);
        bad = -1;
        goto out;
    }
    tsr_buf_clear(&c.out);
    for (size_t p = 0; p < c.nprog; p++)
        tsr_buf_append(&c.out, c.listing[p].data, c.listing[p].len);
    h = hash_out(&c);
    if (h_program && h != h_program) {
        fprintf(stderr, "bench_text: %s: the program disassembly differs between a fresh process and this one\n",
                t->name);
        bad = -1;
        goto out;
    }

    /* the assembler, cold: the parent has not assembled anything yet */
    char what[80];
    snprintf(what, sizeof what, "assemble, t->assemble (%zu programs)", c.nprog);
    if (selected(NAME(what))) {
        if ((bad = measure_cold(&c, pass_assemble, check_assemble, min_s, runs, &r, &(uint64_t){ 0 })) != 0)
            goto out;
        row(SHOW, &r, GOAL);
    }
    if (selected(NAME("assemble, t->assemble_one per line"))) {
        if ((bad = measure_cold(&c, pass_assemble_one, check_assemble_one, min_s, runs, &r, &(uint64_t){ 0 })) != 0)
            goto out;
        row(SHOW, &r, GOAL);
    }
    if (selected(NAME("assemble, t->assemble_one per distinct line"))) {
        if ((bad = measure_cold(&u, pass_assemble_one, check_assemble_one, min_s, runs, &r, &(uint64_t){ 0 })) != 0)
            goto out;
        row(SHOW, &r, GOAL);
    }

    /* warm: the same passes repeated in this process (memos of earlier passes may serve them) */
    if (selected(NAME("warm: t->disasm per word, repeated"))) {
        r = measure_warm(&c, pass_disasm, min_s, runs);
        if ((bad = check_disasm(&c)) != 0)
            goto out;
        row(SHOW, &r, 0);
    }
    if (selected(NAME("warm: t->assemble_one per line, repeated"))) {
        memset(c.words, 0, c.total * nw * 4);
        r = measure_warm(&c, pass_assemble_one, min_s, runs);
        if ((bad = check_assemble_one(&c)) != 0)
            goto out;
        row(SHOW, &r, 0);
    }
    printf("(lines are instructions; the %zu label lines of the program listings are not counted)\n", labels);
#undef NAME
#undef SHOW
out:
    corpus_free(&c);
    corpus_free(&u);
    tsr_words_free(&uw);
    return bad ? 1 : 0;
}

int main(void)
{
    const double min_s = env_num("TESSERA_BENCH_SECONDS", 1.0);
    const int runs = (int)env_num("TESSERA_BENCH_RUNS", 3);
    const char *only = getenv("TESSERA_BENCH_TARGET");
    int any = 0;
    for (size_t i = 0; tsr_all_targets[i]; i++) {
        const struct tsr_target *t = tsr_all_targets[i];
        if (only && *only && strcmp(only, t->name))
            continue;
        any = 1;
        struct bench_corpus bc;
        int rc = bench_corpus_load(t, &bc, "bench_text");
        if (rc < 0)
            return 1;
        if (rc > 0) {
            printf("\n%s: no corpus in bench/corpora.h: no text figures\n", t->name);
            continue;
        }
        rc = bench_target(t, &bc, min_s, runs);
        bench_corpus_free(&bc);
        if (rc)
            return 1;
    }
    if (!any) {
        fprintf(stderr, "bench_text: no target %s in this build\n", only ? only : "");
        return 1;
    }

    const char *name = "GNU as --64, x86-64 (whole process)";
    double aw = 0, ac = 0;
    if (!selected(name))
        ;
    else if (time_gnu_as(runs, &aw, &ac) == 0) {
        printf("\nfor comparison:\n");
        header();
        row(name, &(struct result){ aw, ac, 1, AS_LINES, ac > 0 ? AS_LINES / ac : 0 }, 0);
    } else
        printf("(GNU as not available: no comparison)\n");
    return 0;
}
