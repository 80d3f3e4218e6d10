/* Memory and time of `tessera validate`, `dis` and `asm` on a program of 1,000,000 instructions, as whole
 * processes, beside vc4asm's vc4dis and vc4asm when they are there (docs/PERFORMANCE.md "Streaming").
 *
 * The program: the 16 GPU_FFT hex files of $TESSERA_SHARED/corpus (else ../shared/corpus, relative to the
 * repository root where `ninja bench` runs), in name order, concatenated line by line until 10^6
 * instructions (the last copy is cut: some branches of it go past the end).  It is written to a fresh
 * directory under $TMPDIR (else /tmp), removed at the end; the bench fetches nothing.
 *
 * Rows (each command run TESSERA_BENCH_RUNS times, default 3; the least CPU time (user + system) and the
 * largest peak resident size of the runs, from wait4's rusage, and the wall time of the run with the least
 * CPU time):
 *  - tessera validate big.hex (0 violations expected: exit 0), peer `vc4dis -x -V` (its verifier);
 *  - tessera dis big.hex -o big.s, peer `vc4dis -x -o`;
 *  - tessera asm big.s -o big2.hex, whose words must be big.hex's; peer `vc4asm -o` on vc4dis's text of the
 *    first 82 whole copies (993,184 instructions: vc4asm rejects a branch past the end), beside
 *    `tessera asm` of the same copies, both binaries compared bit for bit with the copies.
 * The peers are found in $VC4ASM_DIR (the directory holding the vc4asm and vc4dis binaries), else
 * /work/peers/vc4asm/build; without them their rows are skipped.  `tessera` is build/tessera, or argv[1].
 * Exit status: 1 when a result is wrong (an exit status, words that differ), else 0: the figures are
 * recorded in docs/PERFORMANCE.md, never asserted. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "corpus.h"
#include "hexio.h"

#define TARGET_WORDS 1000000

struct run { int status; double cpu, wall; long rss_kb; };

/* Runs argv (stdout to out, or /dev/null when NULL; stderr to /dev/null) and measures it. */
static struct run run_once(char *const argv[], const char *out)
{
    struct run r = { -1, 0, 0, 0 };
    double t0 = clock_s(CLOCK_MONOTONIC);
    pid_t pid = fork();
    if (pid < 0)
        return r;
    if (pid == 0) {
        int fo = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open("/dev/null", O_WRONLY);
        if (fo < 0 || fe < 0)
            _exit(127);
        dup2(fo, 1);
        dup2(fe, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    int st;
    struct rusage ru;
    if (wait4(pid, &st, 0, &ru) < 0)
        return r;
    r.wall = clock_s(CLOCK_MONOTONIC) - t0;
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    r.cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
            ru.ru_stime.tv_usec * 1e-6;
    r.rss_kb = ru.ru_maxrss;
    return r;
}

static int runs;

/* Runs argv `runs` times and prints its row; returns the exit status of the last run. */
static int row(const char *name, size_t n, char *const argv[], const char *out)
{
    struct run best = { 0, 1e30, 0, 0 };
    long rss = 0;
    int status = 0;
    for (int i = 0; i < runs; i++) {
        struct run r = run_once(argv, out);
        status = r.status;
        if (r.cpu < best.cpu)
            best = r;
        rss = r.rss_kb > rss ? r.rss_kb : rss;
    }
    printf("%-44s %9zu %5d %9.3f %9.3f %10.1f %9.1f\n", name, n, status, best.cpu, best.wall, rss / 1024.0,
           best.cpu / (double)n * 1e9);
    fflush(stdout);
    return status;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Writes the program: lines of the corpus files in name order, again and again, until `words` instructions
 * (whole = true: whole copies only, as many as fit).  Returns the instructions written, 0 on error. */
static size_t write_program(const char *path, char **files, int nfiles, size_t words, bool whole)
{
    FILE *o = fopen(path, "w");
    if (!o)
        return 0;
    size_t n = 0, copy = 0;
    for (;;) {
        if (whole && copy && n + copy > words)
            break;
        size_t start = n;
        for (int k = 0; k < nfiles && n < words; k++) {
            FILE *f = fopen(files[k], "r");
            char line[4096];
            while (f && n < words && fgets(line, sizeof line, f)) {
                fputs(line, o);
                n += line[0] == '0';
            }
            if (f)
                fclose(f);
        }
        copy = n - start;
        if (n >= words || copy == 0)
            break;
    }
    fclose(o);
    return n;
}

/* Do the hex or binary files a and b hold the same words? */
static bool same_words(const char *a, const char *b)
{
    struct tsr_diag d;
    struct tsr_words x, y;
    tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
    tsr_words_init(&x, 64);
    tsr_words_init(&y, 64);
    x.lean = y.lean = true;
    enum tsr_wordfmt fa, fb;
    bool ok = tsr_words_detect_file(a, &fa, &d) == 0 && tsr_words_detect_file(b, &fb, &d) == 0 &&
              tsr_words_stream(&x, a, fa, &d) == 0 && tsr_words_stream(&y, b, fb, &d) == 0 && x.count == y.count &&
              !memcmp(x.w, y.w, x.count * 2 * sizeof *x.w);
    tsr_words_free(&x);
    tsr_words_free(&y);
    tsr_diag_fini(&d);
    return ok;
}

int main(int argc, char **argv)
{
    runs = (int)env_num("TESSERA_BENCH_RUNS", 3);
    char tessera[4096];
    snprintf(tessera, sizeof tessera, "%s", argc > 1 ? argv[1] : "build/tessera");
    char shared[4096], hexdir[4300];
    corpus_shared_dir(shared, sizeof shared);
    snprintf(hexdir, sizeof hexdir, "%s/corpus/qpu/gpu_fft_r3/hex", shared);
    DIR *dp = opendir(hexdir);
    if (!dp) {
        fprintf(stderr, "bench_stream: cannot open %s\n", hexdir);
        return 1;
    }
    char *files[64];
    int nfiles = 0;
    for (struct dirent *e; (e = readdir(dp)) && nfiles < 64;) {
        size_t l = strlen(e->d_name);
        if (l > 4 && !strcmp(e->d_name + l - 4, ".hex") && asprintf(&files[nfiles], "%s/%s", hexdir, e->d_name) > 0)
            nfiles++;
    }
    closedir(dp);
    qsort(files, (size_t)nfiles, sizeof *files, cmp_str);
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tsr_bench_stream_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!nfiles || !mkdtemp(dir)) {
        fprintf(stderr, "bench_stream: no corpus files in %s, or no temporary directory\n", hexdir);
        return 1;
    }
    char big[4400], bigs[4400], big2[4400], whole[4400], wholes[4400], whole2[4400], wv[4400], wvbin[4400];
    snprintf(big, sizeof big, "%s/big.hex", dir);
    snprintf(bigs, sizeof bigs, "%s/big.s", dir);
    snprintf(big2, sizeof big2, "%s/big2.hex", dir);
    snprintf(whole, sizeof whole, "%s/whole.hex", dir);
    snprintf(wholes, sizeof wholes, "%s/whole.s", dir);
    snprintf(whole2, sizeof whole2, "%s/whole2.bin", dir);
    snprintf(wv, sizeof wv, "%s/whole.vc4.s", dir);
    snprintf(wvbin, sizeof wvbin, "%s/whole.vc4.bin", dir);
    size_t n = write_program(big, files, nfiles, TARGET_WORDS, false);
    size_t nw = write_program(whole, files, nfiles, TARGET_WORDS, true);
    int bad = 0;
    printf("program: %zu instructions (GPU_FFT's %d hex files repeated); whole copies: %zu; %d runs per row\n", n,
           nfiles, nw, runs);
    printf("%-44s %9s %5s %9s %9s %10s %9s\n", "command", "instrs", "exit", "cpu s", "wall s", "peak MiB",
           "cpu ns/i");
    char *v[] = { tessera, "validate", big, NULL };
    bad |= row("tessera validate", n, v, NULL) != 0;
    char *ds[] = { tessera, "dis", big, "-o", bigs, NULL };
    bad |= row("tessera dis -o", n, ds, NULL) != 0;
    char *as[] = { tessera, "asm", bigs, "-o", big2, NULL };
    bad |= row("tessera asm -o (dis output)", n, as, NULL) != 0;
    if (!same_words(big, big2)) {
        printf("WRONG: tessera asm of the disassembly does not give the program's words back\n");
        bad = 1;
    }
    const char *pd = getenv("VC4ASM_DIR");
    char vdis[4200], vasm[4200];
    snprintf(vdis, sizeof vdis, "%s/vc4dis", pd && *pd ? pd : "/work/peers/vc4asm/build");
    snprintf(vasm, sizeof vasm, "%s/vc4asm", pd && *pd ? pd : "/work/peers/vc4asm/build");
    bool peers = access(vdis, X_OK) == 0 && access(vasm, X_OK) == 0;
    if (peers) {
        char *pv[] = { vdis, "-x", "-V", "-o", "/dev/null", big, NULL };
        row("vc4dis -x -V (verifier)", n, pv, NULL);
        char *pds[] = { vdis, "-x", "-o", "/dev/null", big, NULL };
        row("vc4dis -x -o", n, pds, NULL);
    } else {
        printf("(vc4dis, vc4asm not found in %s: peer rows skipped; set VC4ASM_DIR)\n", pd && *pd ? pd :
               "/work/peers/vc4asm/build");
    }
    char *dw[] = { tessera, "dis", whole, "-o", wholes, NULL };
    bad |= run_once(dw, NULL).status != 0;
    char *aw[] = { tessera, "asm", wholes, "--output-format", "bin", "-o", whole2, NULL };
    bad |= row("tessera asm -o, whole copies", nw, aw, NULL) != 0;
    if (!same_words(whole, whole2)) {
        printf("WRONG: tessera asm of the whole copies does not give their words back\n");
        bad = 1;
    }
    if (peers) {
        char *pdw[] = { vdis, "-x", "-o", wv, whole, NULL };
        if (run_once(pdw, NULL).status != 0) {
            printf("vc4dis failed on the whole copies\n");
        } else {
            char *paw[] = { vasm, "-o", wvbin, wv, NULL };
            int st = row("vc4asm -o, whole copies (vc4dis text)", nw, paw, NULL);
            if (st || !same_words(whole, wvbin))
                printf("note: vc4asm's binary differs from the copies (exit %d)\n", st);
        }
    }
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_stream: could not remove %s\n", dir);
    for (int k = 0; k < nfiles; k++)
        free(files[k]);
    return bad;
}
