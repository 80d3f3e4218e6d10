/* Text throughput of the QPU backend, on one core, in lines per second, over the 12,112 words of the
 * 16 GPU_FFT programs ($TESSERA_SHARED/corpus, else ../shared/corpus, relative to the repository root
 * where `ninja bench` runs):
 *  - disasm: t->disasm of every word, one call per word (each call prints the bundle, assembles its
 *    own text back and compares the fields: the round-trip check of runtime/dis_engine.c);
 *  - disasm_program: t->disasm_program on each whole program (labels; a per-call memo serves the
 *    repeated words of a program);
 *  - assemble: t->assemble on each disassembled whole program (labels and all; a per-call memo
 *    serves the repeated bundle texts of a program);
 *  - assemble_one: t->assemble_one on the text of every word, one call per line.
 * A line is one instruction (label lines `Lxx:` of the program forms are not counted; the count of
 * them is printed).  For comparison, when GNU `as` is on the PATH: `as --64` on a generated x86-64
 * file of about a million typical lines (wall time of the whole process, startup included).
 *
 * Each measurement repeats passes over the corpus for >= TESSERA_BENCH_SECONDS (default 1) and keeps
 * the best of TESSERA_BENCH_RUNS (default 3) runs, timed with clock_gettime(CLOCK_MONOTONIC); the
 * thread's CPU time of that run is printed beside it.  The work is checked: the text of the timed
 * runs equals the reference text, and that text assembles back to the corpus words, bit for bit,
 * one line at a time and as whole programs; a wrong result exits 1.  Goals (docs/PERFORMANCE.md)
 * are reported, never enforced. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "registry.h"
#include "tsr.h"

#define GOAL 2e6 /* lines/s, each of disassembly and assembly */
#define AS_LINES 1000000

static const char *const programs[] = {
    "256", "512", "1k", "2k", "4k", "8k", "16k", "32k", "64k", "128k", "256k", "512k", "1024k", "2048k", "4096k", "trans",
};
#define NPROGRAMS (sizeof programs / sizeof programs[0])
#define CORPUS_WORDS 12112

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double env_num(const char *name, double dflt)
{
    const char *s = getenv(name);
    double v = s ? strtod(s, NULL) : 0;
    return v > 0 ? v : dflt;
}

/* Everything the passes work on. */
struct corpus {
    const struct tsr_target *t;
    struct tsr_words prog[NPROGRAMS];
    size_t total;                 /* instructions */
    /* reference texts, made once (untimed) */
    struct tsr_buf lines;         /* t->disasm of every word, each followed by '\n' */
    size_t *line_off;             /* total + 1 offsets into lines */
    struct tsr_buf listing[NPROGRAMS]; /* t->disasm_program of each program */
    /* outputs of the timed passes */
    struct tsr_buf out;           /* disasm / disasm_program output of the current pass */
    uint32_t *words;              /* assemble_one output, total * nwords */
    int bad;                      /* a pass found a wrong result */
};

static void pass_disasm(struct corpus *c)
{
    const struct tsr_target *t = c->t;
    tsr_buf_clear(&c->out);
    for (size_t p = 0; p < NPROGRAMS; p++) {
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
    for (size_t p = 0; p < NPROGRAMS; p++)
        c->t->disasm_program(c->prog[p].w, c->prog[p].count, 0, &c->out);
}

static void pass_assemble(struct corpus *c)
{
    const struct tsr_target *t = c->t;
    for (size_t p = 0; p < NPROGRAMS; p++) {
        struct tsr_words back;
        struct tsr_diag d;
        tsr_words_init(&back, t->word_bits);
        tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
        int rc = t->assemble("<disassembly>", c->listing[p].data, c->listing[p].len, &back, &d);
        if (rc || back.count != c->prog[p].count || memcmp(back.w, c->prog[p].w, back.count * t->nwords * 4)) {
            if (!c->bad)
                fprintf(stderr, "bench_text: shader_%s: the disassembled program does not assemble back\n",
                        programs[p]);
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
    for (size_t p = 0; p < NPROGRAMS; p++)
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

struct result {
    double wall, cpu;
    uint64_t passes, count;
};

/* Best of `runs` runs; each run repeats passes until >= min_s of wall time has gone by. */
static struct result measure(struct corpus *c, void (*pass)(struct corpus *), double min_s, int runs)
{
    struct result best = { 0, 0, 0, 0 };
    pass(c); /* warm up */
    for (int r = 0; r < runs; r++) {
        uint64_t passes = 0;
        double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC), w;
        do {
            pass(c);
            passes++;
        } while ((w = clock_s(CLOCK_MONOTONIC) - w0) < min_s);
        double cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
        if (!best.passes || w / (double)passes < best.wall / (double)best.passes)
            best = (struct result){ w, cpu, passes, passes * c->total };
    }
    return best;
}

static void header(void)
{
    printf("%-40s %10s %7s %7s %10s %10s %8s  %s\n", "measurement", "lines", "wall s", "cpu s", "rate", "cpu rate",
           "goal", "goal");
}

/* goal <= 0: a comparison point, no goal. */
static void row(const char *name, uint64_t count, double wall, double cpu, double goal)
{
    double rate = (double)count / wall, crate = cpu > 0 ? (double)count / cpu : 0;
    printf("%-40s %10llu %7.3f %7.3f %8.2f M %8.2f M ", name, (unsigned long long)count, wall, cpu, rate / 1e6,
           crate / 1e6);
    if (goal > 0)
        printf("%6.0f M  %s\n", goal / 1e6,
               rate >= goal ? "met" : crate >= goal ? "met on cpu time (machine busy)" : "NOT MET");
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
            *cpu = (double)(u1.ru_utime.tv_sec - u0.ru_utime.tv_sec) + (double)(u1.ru_utime.tv_usec - u0.ru_utime.tv_usec) * 1e-6 +
                   (double)(u1.ru_stime.tv_sec - u0.ru_stime.tv_sec) + (double)(u1.ru_stime.tv_usec - u0.ru_stime.tv_usec) * 1e-6;
        }
    }
    unlink(path);
    return rc;
}

int main(void)
{
    static struct corpus c;
    const struct tsr_target *t = c.t = tsr_find_target("qpu");
    if (!t) {
        fprintf(stderr, "bench_text: no qpu target in this build\n");
        return 1;
    }
    const double min_s = env_num("TESSERA_BENCH_SECONDS", 1.0);
    const int runs = (int)env_num("TESSERA_BENCH_RUNS", 3);
    const char *shared = getenv("TESSERA_SHARED");
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
    for (size_t p = 0; p < NPROGRAMS; p++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/corpus/qpu/gpu_fft_r3/hex/shader_%s.hex", shared ? shared : "../shared",
                 programs[p]);
        tsr_words_init(&c.prog[p], t->word_bits);
        if (tsr_words_read(&c.prog[p], path, TSR_WORDS_HEX, &d)) {
            fprintf(stderr, "bench_text: cannot read %s (set TESSERA_SHARED to the directory holding corpus/)\n",
                    path);
            return 1;
        }
        c.total += c.prog[p].count;
    }
    if (c.total != CORPUS_WORDS) {
        fprintf(stderr, "bench_text: the corpus has %zu words, expected %d\n", c.total, CORPUS_WORDS);
        return 1;
    }

    /* reference texts and their checks (untimed) */
    c.line_off = malloc((c.total + 1) * sizeof *c.line_off);
    c.words = calloc(c.total * t->nwords, 4);
    size_t k = 0, labels = 0, distinct = 0;
    tsr_buf_puts(&c.lines, "");
    for (size_t p = 0; p < NPROGRAMS; p++) {
        const struct tsr_words *w = &c.prog[p];
        for (size_t i = 0; i < w->count; i++, k++) {
            c.line_off[k] = c.lines.len;
            t->disasm(tsr_words_at(w, i), i * t->pc_step, &c.lines);
            tsr_buf_append(&c.lines, "\n", 1);
            int seen = 0;
            for (size_t j = 0; j < i && !seen; j++)
                seen = !memcmp(tsr_words_at(w, j), tsr_words_at(w, i), t->nwords * 4);
            distinct += !seen;
        }
        tsr_buf_puts(&c.listing[p], "");
        t->disasm_program(w->w, w->count, 0, &c.listing[p]);
        for (size_t i = 0; i < c.listing[p].len; i++)
            labels += c.listing[p].data[i] == ':' && (i + 1 == c.listing[p].len || c.listing[p].data[i + 1] == '\n');
    }
    c.line_off[k] = c.lines.len;
    pass_assemble_one(&c);
    pass_assemble(&c);
    if (c.bad)
        return 1;
    for (size_t p = 0, base = 0; p < NPROGRAMS; base += c.prog[p].count, p++)
        if (memcmp(c.words + base * t->nwords, c.prog[p].w, c.prog[p].count * t->nwords * 4)) {
            fprintf(stderr, "bench_text: shader_%s: disassemble -> assemble_one gives other words\n", programs[p]);
            return 1;
        }

    printf("QPU text throughput (lines/s), one core, over the %zu GPU_FFT words (%zu distinct within their "
           "programs; %zu label lines in the program listings, not counted);\n"
           "best of %d runs of >= %.1f s each, CLOCK_MONOTONIC; cpu = this thread's CPU time in that run\n",
           c.total, distinct, labels, runs, min_s);
    header();

    struct result r = measure(&c, pass_disasm, min_s, runs);
    if (c.out.len != c.lines.len || memcmp(c.out.data, c.lines.data, c.lines.len)) {
        fprintf(stderr, "bench_text: the timed disassembly differs from the reference\n");
        return 1;
    }
    row("disassemble, t->disasm per word", r.count, r.wall, r.cpu, GOAL);

    r = measure(&c, pass_disasm_program, min_s, runs);
    size_t off = 0;
    for (size_t p = 0; p < NPROGRAMS; p++) {
        if (off + c.listing[p].len > c.out.len || memcmp(c.out.data + off, c.listing[p].data, c.listing[p].len)) {
            fprintf(stderr, "bench_text: the timed program disassembly differs from the reference\n");
            return 1;
        }
        off += c.listing[p].len;
    }
    row("disassemble, t->disasm_program", r.count, r.wall, r.cpu, GOAL);

    r = measure(&c, pass_assemble, min_s, runs);
    if (c.bad)
        return 1;
    row("assemble, t->assemble (16 programs)", r.count, r.wall, r.cpu, GOAL);

    memset(c.words, 0, c.total * t->nwords * 4);
    r = measure(&c, pass_assemble_one, min_s, runs);
    for (size_t p = 0, base = 0; p < NPROGRAMS; base += c.prog[p].count, p++)
        if (c.bad || memcmp(c.words + base * t->nwords, c.prog[p].w, c.prog[p].count * t->nwords * 4)) {
            fprintf(stderr, "bench_text: the timed assemble_one gives other words\n");
            return 1;
        }
    row("assemble, t->assemble_one per line", r.count, r.wall, r.cpu, GOAL);

    double aw, ac;
    if (time_gnu_as(runs, &aw, &ac) == 0)
        row("GNU as --64, x86-64 (whole process)", AS_LINES, aw, ac, 0);
    else
        printf("(GNU as not available: no comparison)\n");

    for (size_t p = 0; p < NPROGRAMS; p++) {
        tsr_words_free(&c.prog[p]);
        tsr_buf_free(&c.listing[p]);
    }
    tsr_buf_free(&c.lines);
    tsr_buf_free(&c.out);
    free(c.line_off);
    free(c.words);
    tsr_diag_fini(&d);
    return 0;
}
