/* Simulation speed of every target's generated simulator through its descriptor (runtime/sim/sim.h struct
 * tsr_sim_desc, reached as t->sim from the registry): no platform, no hooks, the path of `tessera sim` on a target
 * without a platform of its own (tools/sim_generic.c).  On one core, in bundles per second.  Per target, one corpus
 * program (bench/simprogs.h; read with the runtime's hex reader in the target's word order) run again and again,
 * as a vertex processor runs its program once per vertex: before run k the program's inputs for vertex k are set
 * (the attributes), the pc is set back to 0 and the halt cleared; after it its results are kept (the exports).
 *  (a) D->step: fetch from the program's words (the simulator's decode cache), execute, retire;
 *  (b) D->exec: the program decoded once with D->decode, executed bundle by bundle from the format, ops and
 *      fields (the QPU's bench_sim (c)).
 * Bundles = bundles issued (the ctl's icount for (a), exec calls that returned OK/HALTED for (b)).  A run ends
 * with the halt, or (a description with `fall_off halt`, as Utgard's) when the pc leaves the program.
 *
 * Checks, before and after timing (a wrong result exits 1): run 0 is also run bundle by bundle in the independent
 * evaluator (mdl/eval.c, on targets/<t>/<t>.mdl) from the same state, and the two end states must be equal
 * (mdl_evstate_compare_sim); every timed run's results are compared with the program's reference (simprogs.h:
 * the same math in C), and every run issues as many bundles as the first.
 *
 * A description none of whose ops or formats has a `sem` statement other than an empty block (`sem { }`: "no
 * semantics yet") still runs: its program is stepped to its end (straight through; the run ends when the pc
 * leaves the program) and the row is marked "no semantics yet": the figure is fetch, decode and retire of empty
 * bundles, not a simulation rate, and gets no verdict.  A target without an entry in simprogs.h, or built
 * without a simulator, is named and skipped.
 *
 * Each measurement repeats runs for >= TESSERA_BENCH_SECONDS (default 1) and keeps the best of TESSERA_BENCH_RUNS
 * (default 3) measurements, timed with clock_gettime(CLOCK_MONOTONIC); `core` and `cpu rate` as in
 * bench_codec.c.  TESSERA_BENCH_TARGET=NAME measures that target only; TESSERA_BENCH_PASSES=N makes each
 * measurement N runs of the program (bench.h; for callgrind: --toggle-collect=timed_step or timed_exec).  The
 * goal (docs/PERFORMANCE.md) is reported, never enforced. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "corpora.h"
#include "eval.h"
#include "registry.h"
#include "simprogs.h"
#include "tsr.h"

#define GOAL 10e6     /* bundles/s */
#define NVERT 4096    /* distinct vertices (inputs) the runs cycle through */
#define MAX_BUNDLES 1000000u /* one run of a program longer than this is an error */

/* A program ready to run on a simulator. */
struct job {
    const struct tsr_target *t;
    const struct tsr_sim_desc *D;
    const struct simprog *sp;
    struct tsr_words prog;
    void *sim;
    uint32_t *pcp;            /* state 0, the pc */
    bool sem;                 /* the description has semantics */
    bool fall_off;            /* it says `fall_off halt`: the program ends when the pc leaves it */
    /* the program decoded for D->exec */
    int *fmt, *ops;
    uint64_t *fields;
    uint64_t per_run;         /* bundles of one run (the first) */
    uint32_t *out;            /* NVERT x SP_MAXOUT results of the last runs */
    int bad;
};

/* Back to the start of the program: pc 0, not halted, no pending control, no report. */
static void restart(struct job *j)
{
    struct tsr_sim_ctl *c = j->D->ctl(j->sim);
    *j->pcp = 0;
    c->halted = false;
    c->npend = 0;
    c->status = 0;
}

/* One run through D->step; returns the bundles issued, 0 after a message on failure. */
static uint64_t run_step(struct job *j, unsigned k)
{
    const struct tsr_sim_desc *D = j->D;
    struct tsr_sim_ctl *c = D->ctl(j->sim);
    size_t nwords = j->prog.count * j->t->nwords;
    if (j->sp->inputs)
        j->sp->inputs(D, j->sim, k);
    restart(j);
    uint64_t i0 = c->icount;
    int rc = TSR_SIM_OK;
    for (unsigned n = 0; n < MAX_BUNDLES && rc == TSR_SIM_OK; n++)
        rc = D->step(j->sim, j->prog.w, nwords);
    uint64_t issued = c->icount - i0;
    if (!j->sem && rc < 0 && *j->pcp / D->pc_step >= j->prog.count)
        rc = TSR_SIM_HALTED; /* no semantics: the run ends where the program does */
    if (rc != TSR_SIM_HALTED) {
        fprintf(stderr, "bench_simdesc: %s: run %u: %s at 0x%08x: %s\n", j->t->name, k,
                rc == TSR_SIM_OK ? "no end" : "failed", c->err_pc, c->msg);
        j->bad = 1;
        return 0;
    }
    if (j->sp->outputs)
        j->sp->outputs(D, j->sim, j->out + (size_t)(k % NVERT) * SP_MAXOUT);
    return issued;
}

/* One run through D->exec of the pre-decoded program; returns the bundles issued, 0 after a message. */
static uint64_t run_exec(struct job *j, unsigned k)
{
    const struct tsr_sim_desc *D = j->D;
    if (j->sp->inputs)
        j->sp->inputs(D, j->sim, k);
    restart(j);
    uint64_t issued = 0;
    int rc = TSR_SIM_OK;
    while (rc == TSR_SIM_OK && issued < MAX_BUNDLES) {
        uint32_t i = *j->pcp / D->pc_step;
        if (i >= j->prog.count) {
            if (!j->sem || j->fall_off)
                rc = TSR_SIM_HALTED;
            else
                tsr_sim_error(D->ctl(j->sim), *j->pcp, "pc 0x%08x outside the program", *j->pcp);
            break;
        }
        rc = D->exec(j->sim, j->fmt[i], j->ops + (size_t)i * D->nslots, j->fields + (size_t)i * D->nfields);
        if (rc == TSR_SIM_OK || rc == TSR_SIM_HALTED)
            issued++;
    }
    if (rc != TSR_SIM_HALTED) {
        fprintf(stderr, "bench_simdesc: %s: exec run %u failed at 0x%08x: %s\n", j->t->name, k,
                D->ctl(j->sim)->err_pc, D->ctl(j->sim)->msg);
        j->bad = 1;
        return 0;
    }
    if (j->sp->outputs)
        j->sp->outputs(D, j->sim, j->out + (size_t)(k % NVERT) * SP_MAXOUT);
    return issued;
}

/* The timed loops (named for callgrind's --toggle-collect): runs from *k on until >= min_s (or `fixed` runs);
 * returns the bundles issued, 0 on a failure. */
static __attribute__((noinline)) uint64_t timed_step(struct job *j, unsigned *k, double min_s, unsigned long fixed,
                                                     double *wall)
{
    uint64_t b = 0, runs = 0;
    double w0 = clock_s(CLOCK_MONOTONIC);
    do {
        uint64_t r = run_step(j, (*k)++);
        if (r != j->per_run)
            return 0;
        b += r;
        runs++;
        *wall = clock_s(CLOCK_MONOTONIC) - w0;
    } while (fixed ? runs < fixed : *wall < min_s);
    return b;
}

static __attribute__((noinline)) uint64_t timed_exec(struct job *j, unsigned *k, double min_s, unsigned long fixed,
                                                     double *wall)
{
    uint64_t b = 0, runs = 0;
    double w0 = clock_s(CLOCK_MONOTONIC);
    do {
        uint64_t r = run_exec(j, (*k)++);
        if (r != j->per_run)
            return 0;
        b += r;
        runs++;
        *wall = clock_s(CLOCK_MONOTONIC) - w0;
    } while (fixed ? runs < fixed : *wall < min_s);
    return b;
}

/* Every kept result (the last run of each vertex slot, runs k0..k1-1) against the reference: 0 or -1. */
static int check_outputs(struct job *j, unsigned k0, unsigned k1)
{
    char msg[256];
    if (!j->sp->check)
        return 0;
    unsigned from = k1 - k0 > NVERT ? k1 - NVERT : k0;
    for (unsigned k = from; k < k1; k++)
        if (j->sp->check(k, j->out + (size_t)(k % NVERT) * SP_MAXOUT, msg, sizeof msg)) {
            fprintf(stderr, "bench_simdesc: %s: %s\n", j->t->name, msg);
            return -1;
        }
    return 0;
}

/* The model of t (targets/<t>/<t>.mdl under $TESSERA_ROOT, else the current directory), or NULL. */
static struct mdl_model *load_model(const struct tsr_target *t)
{
    char path[4096];
    const char *root = getenv("TESSERA_ROOT");
    snprintf(path, sizeof path, "%s/targets/%s/%s.mdl", root && *root ? root : ".", t->name, t->name);
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
    struct mdl_model *m = mdl_load(path, &d);
    tsr_diag_fini(&d);
    if (!m)
        fprintf(stderr, "bench_simdesc: cannot load %s (run from the repository root or set TESSERA_ROOT)\n", path);
    return m;
}

/* Whether the n statements at s do anything (a statement other than an empty block). */
static bool does_something(struct mdl_stmt *const *s, int n)
{
    for (int i = 0; i < n; i++)
        if (s[i]->kind != MDL_S_BLOCK || does_something(s[i]->body, s[i]->nbody))
            return true;
    return false;
}

/* Whether any op or format of m has semantics (a `sem` statement that is not an empty block). */
static bool has_semantics(const struct mdl_model *m)
{
    for (int i = 0; i < m->nops; i++)
        if (does_something(m->ops[i].sem, m->ops[i].nsem))
            return true;
    for (int i = 0; i < m->nformats; i++)
        if (does_something(m->formats[i].sem, m->formats[i].nsem))
            return true;
    return false;
}

/* Run 0 in the simulator (by D->step, from the state j->sim is in) and bundle by bundle in the evaluator from
 * the same state; the end states must agree.  Returns 0 or -1. */
static int check_with_evaluator(struct job *j, const struct mdl_model *m)
{
    const struct tsr_sim_desc *D = j->D;
    struct mdl_evstate ev;
    if (mdl_evstate_init(&ev, m))
        return -1;
    if (j->sp->inputs)
        j->sp->inputs(D, j->sim, 0);
    restart(j);
    mdl_evstate_from_sim(&ev, D, j->sim);
    int rc = TSR_SIM_OK, format, *ops = malloc((size_t)D->nslots * sizeof *ops);
    uint64_t *fields = malloc((size_t)D->nfields * sizeof *fields);
    for (unsigned n = 0; n < MAX_BUNDLES && rc == TSR_SIM_OK; n++) {
        uint32_t pc = mdl_evstate_elem(&ev, m->pc_state, 0)[0], i = pc / D->pc_step;
        if (i >= j->prog.count) {
            rc = j->sem && !j->fall_off ? TSR_SIM_ERROR : TSR_SIM_HALTED;
            if (j->sem && j->fall_off)
                ev.ctl.halted = true;   /* as the simulator's step does (`fall_off halt`) */
            break;
        }
        D->decode(tsr_words_at(&j->prog, i), &format, ops, fields);
        rc = mdl_eval_bundle(m, &ev, fields, format, ops);
    }
    uint64_t got = run_step(j, 0);
    char diff[512] = "";
    int bad = rc != TSR_SIM_HALTED || !got;
    if (rc != TSR_SIM_HALTED)
        fprintf(stderr, "bench_simdesc: %s: the evaluator did not end the program: %s\n", j->t->name, ev.ctl.msg);
    else if (j->sem && mdl_evstate_compare_sim(&ev, D, j->sim, diff, sizeof diff)) {
        /* (without semantics the simulator's failed fetch past the end leaves a report the evaluator has not) */
        fprintf(stderr, "bench_simdesc: %s: simulator and evaluator differ after run 0: %s\n", j->t->name, diff);
        bad = 1;
    }
    free(ops);
    free(fields);
    mdl_evstate_fini(&ev);
    return bad ? -1 : 0;
}

struct result {
    double wall, cpu; /* the best measurement (by wall-clock rate) */
    uint64_t bundles;
    double crate;     /* the best CPU-time rate of all measurements */
};

static void header(void)
{
    printf("%-44s %11s %7s %6s %9s %9s %6s  %s\n", "measurement", "bundles", "wall s", "core", "rate", "cpu rate",
           "goal", "goal");
}

static void row(const char *name, const struct result *r, bool sem)
{
    double rate = (double)r->bundles / r->wall;
    printf("%-44s %11llu %7.3f %5.0f%% %7.2f M %7.2f M ", name, (unsigned long long)r->bundles, r->wall,
           100 * r->cpu / r->wall, rate / 1e6, r->crate / 1e6);
    if (!sem)
        printf("%6s  %s\n", "-", "no semantics yet: empty bundles, not a simulation rate");
    else
        printf("%4.0f M  %s\n", GOAL / 1e6,
               rate >= GOAL ? "met" : r->crate >= GOAL ? "met on cpu time (machine busy)" : "NOT MET");
}

/* Measures one path; returns 0, or 1 on a wrong result. */
static int measure(struct job *j, uint64_t (*timed)(struct job *, unsigned *, double, unsigned long, double *),
                   const char *name, double min_s, int runs)
{
    struct result best = { 0, 0, 0, 0 };
    unsigned k = 0;
    const unsigned long fixed = fixed_passes();
    for (int r = 0; r < runs; r++) {
        unsigned k0 = k;
        double wall = 0, c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
        uint64_t b = timed(j, &k, min_s, fixed, &wall);
        double cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
        if (!b || j->bad || check_outputs(j, k0, k)) {
            if (!j->bad && !b)
                fprintf(stderr, "bench_simdesc: %s: a timed run issued other than %llu bundles\n", j->t->name,
                        (unsigned long long)j->per_run);
            return 1;
        }
        double crate = cpu > 0 ? (double)b / cpu : 0;
        if (crate < best.crate)
            crate = best.crate;
        if (!best.bundles || wall / (double)b < best.wall / (double)best.bundles)
            best = (struct result){ wall, cpu, b, 0 };
        best.crate = crate;
    }
    row(name, &best, j->sem);
    return 0;
}

/* Checks then measures target t on program sp.  Returns 0, or 1 on a wrong result or an unreadable input. */
static int bench_target(const struct tsr_target *t, const struct simprog *sp, double min_s, int runs)
{
    struct job j = { .t = t, .D = t->sim, .sp = sp };
    const struct tsr_sim_desc *D = j.D;
    char dir[4096], path[8192], msg[256];
    bench_corpus_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/%s", dir, sp->path);
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
    tsr_words_init(&j.prog, t->word_bits);
    j.prog.msw_first = t->word_msw_first;
    int rc = tsr_words_read(&j.prog, path, TSR_WORDS_HEX, &d);
    tsr_diag_fini(&d);
    struct mdl_model *m = rc ? NULL : load_model(t);
    if (rc || !m || D->nstates < 1 || strcmp(D->state_names[0], "pc")) {
        fprintf(stderr, "bench_simdesc: %s: %s\n", t->name,
                rc ? "cannot read the program (set TESSERA_SHARED to the directory holding corpus/)"
                   : !m ? "no model" : "state 0 of the simulator is not pc");
        tsr_words_free(&j.prog);
        mdl_model_free(m);
        return 1;
    }
    j.sem = has_semantics(m);
    j.fall_off = m->fall_off_halt;
    j.sim = calloc(1, D->sim_size);
    j.out = calloc((size_t)NVERT * SP_MAXOUT, sizeof *j.out);
    j.fmt = malloc(j.prog.count * sizeof *j.fmt);
    j.ops = malloc(j.prog.count * (size_t)D->nslots * sizeof *j.ops);
    j.fields = malloc(j.prog.count * (size_t)D->nfields * sizeof *j.fields);
    if (!j.sim || !j.out || !j.fmt || !j.ops || !j.fields)
        abort();
    D->init(j.sim);
    j.pcp = D->state(j.sim, 0, 0);
    for (size_t i = 0; i < j.prog.count; i++)
        D->decode(tsr_words_at(&j.prog, i), &j.fmt[i], j.ops + i * (size_t)D->nslots, j.fields + i * (size_t)D->nfields);

    int bad = 0;
    if (sp->setup && sp->setup(D, j.sim, msg, sizeof msg)) {
        fprintf(stderr, "bench_simdesc: %s: %s\n", t->name, msg);
        bad = 1;
    }
    /* the first run: its bundle count, the evaluator's agreement and the reference */
    if (!bad) {
        j.per_run = run_step(&j, 0);
        bad = !j.per_run || check_with_evaluator(&j, m) || check_outputs(&j, 0, 1);
    }
    if (!bad) {
        printf("\n%s simulator speed through its descriptor (no platform), one core; %s (%zu instructions, %llu "
               "issued per run), %u vertices' inputs in turn;\nbest of %d runs of >= %.1f s each, CLOCK_MONOTONIC; "
               "core = CPU time / wall time of the best run; cpu rate = best bundles per second of CPU time\n",
               t->name, sp->what, j.prog.count, (unsigned long long)j.per_run, sp->inputs ? NVERT : 1, runs, min_s);
        header();
        char name[120];
        snprintf(name, sizeof name, "%s (a) D->step", t->name);
        if (selected(name))
            bad = measure(&j, timed_step, name + strlen(t->name) + 1, min_s, runs);
        snprintf(name, sizeof name, "%s (b) D->exec, pre-decoded", t->name);
        if (!bad && selected(name))
            bad = measure(&j, timed_exec, name + strlen(t->name) + 1, min_s, runs);
        if (!bad)
            printf("(results checked: %s)\n",
                   !j.sem ? "none (no semantics): each run steps the whole program once"
                   : sp->check ? "every run's exports against the same math in C; run 0's end state against the "
                                 "evaluator"
                               : "run 0's end state against the evaluator");
    }
    D->fini(j.sim);
    free(j.sim);
    free(j.out);
    free(j.fmt);
    free(j.ops);
    free(j.fields);
    tsr_words_free(&j.prog);
    mdl_model_free(m);
    return bad;
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
        const struct simprog *sp = NULL;
        for (size_t k = 0; k < sizeof simprogs / sizeof simprogs[0]; k++)
            if (!strcmp(simprogs[k].target, t->name))
                sp = &simprogs[k];
        if (!t->sim || !sp) {
            printf("\n%s: %s: no figure here%s\n", t->name,
                   !t->sim ? "built without a simulator" : "no program in bench/simprogs.h",
                   t->sim ? " (a target with a platform of its own has its own benchmark, e.g. bench_sim)" : "");
            continue;
        }
        if (bench_target(t, sp, min_s, runs))
            return 1;
    }
    if (!any) {
        fprintf(stderr, "bench_simdesc: no target %s in this build\n", only ? only : "");
        return 1;
    }
    return 0;
}
