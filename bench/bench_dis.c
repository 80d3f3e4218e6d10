/* Disassembly of words not seen before ("first sight"), QPU, against vc4asm's disassembler vc4dis.
 *
 * Input: WORDS distinct valid instruction words that no memo has seen, made here from a fixed seed and
 * written to a temporary binary file (little-endian, low 32-bit word first, as both tools read it):
 * xorshift64* words whose signal (bits 63:60) is drawn from the ALU signals (70 %), load immediate (15 %)
 * and any other non-branch value (15 %); each is disassembled, its overrides `{...}` dropped, `.word`
 * lines skipped, and the text assembled again, which gives the word an assembler makes for that text
 * (unused fields at their defaults).  Duplicates are removed and the order shuffled.  Branches are left
 * out: vc4dis crashes on some random branch targets, and on a small immediate with the 32s pack
 * (those are changed to pack 0).
 *
 * Measurements (best and median of TESSERA_BENCH_RUNS runs, default 3; CPU time = user + system):
 *  - `t->disasm_program` on all the words, in a freshly forked child (its thread CPU time): the engine;
 *  - `build/tessera dis FILE` as a whole process (from the repository root), output to a temporary file;
 *  - vc4dis FILE as a whole process, output to /dev/null, when it is found: $VC4DIS (the program), else
 *    $VC4ASM_DIR/build/vc4dis, else /work/peers/vc4asm/build/vc4dis; skipped with a note when it is not
 *    executable or fails.  Nothing is fetched or built here.
 * Checked: the engine's text and the tool's output assemble back to exactly the input words (else exit 1).
 * Figures are recorded in docs/PERFORMANCE.md, never asserted. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "registry.h"
#include "tsr.h"

#define WORDS 200000

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t next(void)   /* xorshift64* */
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717u;
}

/* A random non-branch QPU word (high half: bits 63:32). */
static uint64_t random_word(void)
{
    static const unsigned alu_sig[] = { 1, 1, 1, 1, 3, 4, 5, 10, 11, 13 };
    uint64_t w = next(), r = next() % 100, sig;
    if (r < 70)
        sig = alu_sig[next() % (sizeof alu_sig / sizeof alu_sig[0])];
    else if (r < 85)
        sig = 14;
    else
        sig = next() % 15;
    w = (w & ~((uint64_t)15 << 60)) | sig << 60;
    /* vc4dis (80ab48de) crashes on a small immediate with the regfile-A pack 32s (pm 0, pack 8): none such */
    if (sig == 13 && !(w >> 56 & 1) && (w >> 52 & 15) == 8)
        w &= ~((uint64_t)15 << 52);
    return w;
}

/* The input words: see the top of the file.  Returns 0 or -1. */
static int make_words(const struct tsr_target *t, struct tsr_words *out)
{
    struct tsr_words raw;
    struct tsr_buf text = {0}, clean = {0};
    tsr_words_init(&raw, t->word_bits);
    for (size_t i = 0; i < WORDS + WORDS / 2; i++) {
        uint64_t w = random_word();
        uint32_t v[2] = { (uint32_t)w, (uint32_t)(w >> 32) };
        tsr_words_push(&raw, v, NULL, 0);
    }
    t->disasm_program(raw.w, raw.count, 0, &text);
    for (const char *s = text.data, *end = s + text.len; s < end;) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
        if (n > 4 && !memcmp(s, "    ", 4) && strncmp(s + 4, ".word", 5) != 0) {
            const char *o = memchr(s, '{', n);
            size_t m = o ? (size_t)(o - s) : n;
            while (m > 0 && s[m - 1] == ' ')
                m--;
            tsr_buf_append(&clean, s, m);
            tsr_buf_append(&clean, "\n", 1);
        }
        s += n + 1;
    }
    struct tsr_words as;
    struct tsr_diag d;
    tsr_words_init(&as, t->word_bits);
    tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
    int rc = t->assemble("<random>", clean.data, clean.len, &as, &d);
    tsr_diag_fini(&d);
    /* distinct words, first occurrence kept (open addressing on the 64-bit word) */
    size_t cap = 1;
    while (cap < as.count * 2)
        cap *= 2;
    uint64_t *set = calloc(cap, sizeof *set);
    uint64_t *keep = malloc((as.count + 1) * sizeof *keep);
    size_t nk = 0;
    for (size_t i = 0; !rc && set && keep && i < as.count && nk < WORDS; i++) {
        uint64_t w = tsr_words_get64(&as, i), k = w + 1;   /* 0 marks an empty slot */
        size_t h = (size_t)((k * 0x9e3779b97f4a7c15u) >> 20) & (cap - 1);
        while (set[h] && set[h] != k)
            h = (h + 1) & (cap - 1);
        if (!set[h]) {
            set[h] = k;
            keep[nk++] = w;
        }
    }
    for (size_t i = nk; i > 1; i--) {   /* Fisher-Yates */
        size_t j = (size_t)(next() % i);
        uint64_t x = keep[i - 1];
        keep[i - 1] = keep[j];
        keep[j] = x;
    }
    for (size_t i = 0; i < nk; i++) {
        uint32_t v[2] = { (uint32_t)keep[i], (uint32_t)(keep[i] >> 32) };
        tsr_words_push(out, v, NULL, 0);
    }
    free(set);
    free(keep);
    tsr_words_free(&as);
    tsr_words_free(&raw);
    tsr_buf_free(&text);
    tsr_buf_free(&clean);
    return rc || nk == 0 ? -1 : 0;
}

/* Does the listing assemble back to exactly w? */
static int assembles_back(const struct tsr_target *t, const char *s, size_t n, const struct tsr_words *w)
{
    struct tsr_words back;
    struct tsr_diag d;
    tsr_words_init(&back, t->word_bits);
    tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
    int rc = t->assemble("<disassembly>", s, n, &back, &d);
    int same = !rc && back.count == w->count && !memcmp(back.w, w->w, w->count * t->nwords * 4);
    tsr_diag_fini(&d);
    tsr_words_free(&back);
    return same;
}

/* The engine in a fresh child: CPU seconds of t->disasm_program on all words (its text checked when
 * check is set).  Returns 0 or -1. */
static int engine_pass(const struct tsr_target *t, const struct tsr_words *w, int check, double *cpu)
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
        struct tsr_buf out = {0};
        double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
        t->disasm_program(w->w, w->count, 0, &out);
        double r = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
        if (check && !assembles_back(t, out.data, out.len, w))
            r = -1;
        ssize_t n = write(fd[1], &r, sizeof r);
        _exit(n == (ssize_t)sizeof r ? 0 : 1);
    }
    close(fd[1]);
    return child_collect(pid, fd[0], cpu, sizeof *cpu) == 0 && *cpu >= 0 ? 0 : -1;
}

/* Runs argv with standard output to `out` (standard error discarded): the child's CPU time (user +
 * system) in *cpu.  Returns its exit status, or -1 when it could not run or died of a signal. */
static int run_process(char *const argv[], const char *out, double *cpu)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (!freopen(out, "w", stdout) || !freopen("/dev/null", "w", stderr))
            _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    int st = 0;
    struct rusage u0, u1;
    getrusage(RUSAGE_CHILDREN, &u0);   /* the children reaped so far (engine passes, earlier runs) */
    if (waitpid(pid, &st, 0) != pid)
        return -1;
    getrusage(RUSAGE_CHILDREN, &u1);
    *cpu = tv_s(u1.ru_utime) - tv_s(u0.ru_utime) + tv_s(u1.ru_stime) - tv_s(u0.ru_stime);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The whole file at path (NUL-terminated, length in *n), or NULL. */
static char *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 20, len = 0;
    char *s = malloc(cap);
    for (size_t k; s && (k = fread(s + len, 1, cap - len - 1, f)) > 0;) {
        len += k;
        if (cap - len < 2) {
            char *t2 = realloc(s, cap *= 2);
            if (!t2)
                free(s);
            s = t2;
        }
    }
    fclose(f);
    if (s)
        s[len] = 0;
    *n = len;
    return s;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static void row(const char *name, size_t n, double *cpu, int runs)
{
    qsort(cpu, (size_t)runs, sizeof *cpu, cmp_double);
    double best = cpu[0], med = cpu[runs / 2];
    printf("%-40s %8zu %9.3f %9.3f %9.3f %9.2f M\n", name, n, best, med, best / (double)n * 1e6,
           (double)n / best / 1e6);
}

/* The vc4dis program to compare with, or NULL. */
static const char *find_vc4dis(char *buf, size_t len)
{
    const char *p = getenv("VC4DIS");
    if (p && *p)
        return access(p, X_OK) == 0 ? p : NULL;
    const char *dir = getenv("VC4ASM_DIR");
    snprintf(buf, len, "%s/build/vc4dis", dir && *dir ? dir : "/work/peers/vc4asm");
    return access(buf, X_OK) == 0 ? buf : NULL;
}

int main(void)
{
    const struct tsr_target *t = tsr_find_target("qpu");
    if (!t) {
        fprintf(stderr, "bench_dis: no qpu target in this build\n");
        return 1;
    }
    int runs = (int)env_num("TESSERA_BENCH_RUNS", 3);
    if (runs > 64)
        runs = 64;
    struct tsr_words w;
    tsr_words_init(&w, t->word_bits);
    if (make_words(t, &w)) {
        fprintf(stderr, "bench_dis: could not make the input words\n");
        return 1;
    }
    char in[] = "/tmp/bench_dis_in_XXXXXX", out[] = "/tmp/bench_dis_out_XXXXXX";
    int fi = mkstemp(in), fo = mkstemp(out);
    FILE *f = fi >= 0 ? fdopen(fi, "wb") : NULL;
    if (!f || fo < 0) {
        fprintf(stderr, "bench_dis: cannot create temporary files\n");
        return 1;
    }
    close(fo);
    for (size_t i = 0; i < w.count; i++) {
        const uint32_t *x = tsr_words_at(&w, i);
        unsigned char b[8];
        for (int k = 0; k < 8; k++)
            b[k] = (unsigned char)(x[k / 4] >> (8 * (k % 4)));
        fwrite(b, 1, 8, f);
    }
    int bad = fclose(f) != 0;

    printf("first-sight disassembly: %zu distinct valid words (seed fixed), best and median of %d runs\n",
           w.count, runs);
    printf("%-40s %8s %9s %9s %9s %11s\n", "measurement", "words", "best cpu", "median", "us/word", "words/s");
    double cpu[64];
    int r;
    for (r = 0; r < runs && !bad; r++)
        if (engine_pass(t, &w, r == 0, &cpu[r])) {
            fprintf(stderr, "bench_dis: the engine's text does not assemble back to the words\n");
            bad = 1;
        }
    if (!bad)
        row("t->disasm_program (engine, cold)", w.count, cpu, runs);

    char *tess[] = { "build/tessera", "dis", in, NULL };
    for (r = 0; r < runs && !bad; r++)
        if (run_process(tess, out, &cpu[r]) != 0) {
            fprintf(stderr, "bench_dis: `build/tessera dis` failed (run from the repository root)\n");
            bad = 1;
        }
    if (!bad) {
        size_t n = 0;
        char *s = read_all(out, &n);
        if (!s || !assembles_back(t, s, n, &w)) {
            fprintf(stderr, "bench_dis: the output of `tessera dis` does not assemble back to the words\n");
            bad = 1;
        }
        free(s);
    }
    double ours = 0;
    if (!bad) {
        row("tessera dis (whole process)", w.count, cpu, runs);
        ours = cpu[runs / 2];
    }

    char buf[1024];
    const char *vc = find_vc4dis(buf, sizeof buf);
    if (!bad && !vc)
        printf("vc4dis: not found ($VC4DIS, $VC4ASM_DIR/build/vc4dis); no comparison\n");
    if (!bad && vc) {
        char *v[] = { (char *)vc, in, NULL };
        int ok = 1;
        for (r = 0; r < runs && ok; r++)
            ok = run_process(v, "/dev/null", &cpu[r]) == 0;
        if (ok) {
            row("vc4dis (whole process)", w.count, cpu, runs);
            printf("tessera dis / vc4dis CPU time (medians): %.2f\n", ours / cpu[runs / 2]);
        } else {
            printf("vc4dis: %s failed on the input; no comparison\n", vc);
        }
    }
    unlink(in);
    unlink(out);
    tsr_words_free(&w);
    return bad;
}
