/* Packer speed on large straight-line blocks (runtime/pack/pack.h, docs/pack.md; issue 11 point 6): one block of
 * N operations made by bench/packgen.h (seed 1), packed by tsr_pack_text_effort at effort `list` and at
 * effort `search`; reported: bundles, the basic lower bound, CPU seconds of the process (CLOCK_PROCESS_CPUTIME_ID: the machine is shared; one run: the large
 * sizes take seconds), operations per second, and the process's peak resident memory after the run
 * (getrusage ru_maxrss; it only grows, so the sizes run smallest first).  The packed output is assembled and
 * validated (tsr_validate): a violation is reported in the table.
 *
 * Usage: bench_packbig [--effort list|search] [N ...]   (default: 1000 8000 64000, both efforts).
 * TESSERA_BENCH_ONLY=TEXT runs only the rows whose name ("list 8000") contains TEXT.  Exit status 0 when the
 * measurement completed; 1 when a block could not be packed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench.h"
#include "packgen.h"
#include "pack/pack.h"
#include "qpu.h"
#include "tsr.h"
#include "validate/validate.h"

static void count_viol(void *p, const struct tsr_vviol *v)
{
    (void)v;
    ++*(size_t *)p;
}

/* Packs one generated block of n operations at effort e and prints its row.  Returns 0, or 1 on error. */
static int row(unsigned n, enum tsr_pack_effort e)
{
    char name[64];
    snprintf(name, sizeof name, "%s %u", e == TSR_PACK_LIST ? "list" : "search", n);
    if (!selected(name))
        return 0;
    struct tsr_buf src = { 0 }, out = { 0 };
    packgen(n, 1, &src);
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    struct tsr_pack_stats st;
    double t0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    int rc = tsr_pack_text_effort(&qpu_target, "gen.s", src.data, src.len, e, &out, &st, &d);
    double dt = clock_s(CLOCK_PROCESS_CPUTIME_ID) - t0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    if (rc) {
        printf("| %-12s | pack error: %s |\n", name, d.count ? d.entries[0].text : "?");
        tsr_diag_fini(&d);
        tsr_buf_free(&src);
        return 1;
    }
    struct tsr_words w;
    tsr_words_init(&w, qpu_target.word_bits);
    size_t viol = 0;
    if (qpu_target.assemble("packed.s", out.data, out.len, &w, &d))
        viol = (size_t)-1;
    else
        tsr_validate(qpu_target.vdesc, tsr_words_at(&w, 0), w.count, 0, count_viol, &viol);
    printf("| %-12s | %6u | %7u | %7u | %8.3f | %9.0f | %7ld | %s |\n", name, n, st.nbundles, st.basic, dt,
           n / dt, ru.ru_maxrss / 1024, viol == (size_t)-1 ? "does not assemble" : viol ? "VIOLATIONS" : "0");
    fflush(stdout);
    tsr_words_free(&w);
    tsr_pack_stats_free(&st);
    tsr_diag_fini(&d);
    tsr_buf_free(&src);
    tsr_buf_free(&out);
    return 0;
}

int main(int argc, char **argv)
{
    unsigned sizes[16] = { 1000, 8000, 64000 };
    int ns = 0, efforts = 3;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--effort") && i + 1 < argc) {
            i++;
            efforts = !strcmp(argv[i], "list") ? 1 : !strcmp(argv[i], "search") ? 2 : 3;
        } else if (ns < 16 && atoi(argv[i]) > 0) {
            sizes[ns++] = (unsigned)atoi(argv[i]);
        }
    }
    if (!ns)
        ns = 3;
    printf("| block | ops | bundles | basic bound | seconds | ops/s | peak MB | violations |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    int rc = 0;
    for (int e = 0; e < 2; e++)
        for (int i = 0; i < ns; i++)
            if (efforts >> e & 1)
                rc |= row(sizes[i], e ? TSR_PACK_SEARCH : TSR_PACK_LIST);
    return rc;
}
