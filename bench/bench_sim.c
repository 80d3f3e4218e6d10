/* Simulation speed of the generated QPU simulator (build/gen/qpu/qpu_sim.c) with the hand-written
 * peripherals (targets/qpu/), on one core: bundles per second and lane operations per second.
 *
 *  (a) alu loop, qpu_run: the ALU-heavy loop below (assembled from its text with the QPU assembler,
 *      t->assemble), run by qpu_run on 1 QPU of a qpu_machine.  Its loop body is 14 bundles: 13 ALU
 *      bundles with both the add and the mul ALU busy (integer, float, 8-bit SIMD, conditional writes,
 *      flags) and the loop branch, whose 3 delay slots are 3 of those ALU bundles.  The iteration count
 *      is chosen so that one run takes >= TESSERA_BENCH_SECONDS (default 1).  At the end the program
 *      stores r0, r1, r2 (16 lanes each) through the VPM and a VDW DMA; the values are checked against
 *      the same computation in C.
 *  (b) demo, qpu_run: examples/qpu/demo.qasm (the `tessera demo` program, 15 bundles: uniforms, SFU
 *      reciprocal, VPM, DMA, thread end) run again and again by qpu_run on 1 QPU; every run's 16 results
 *      are checked (1/(i*i + c) within the SFU's precision, and equal to the first run's).
 *  (c) alu loop, t->sim->exec: the program of (a) decoded once with t->sim->decode, then executed bundle
 *      by bundle with t->sim->exec (the descriptor's path: no fetch, no decode cache, no ready/retire
 *      hooks; the peripherals are attached for the I/O of the prologue and epilogue).
 *  (d) for comparison, without a goal: the independent evaluator (mdl/eval.c, the reference the
 *      differential fuzzer checks the simulator against) on the loop body, a fixed 20,000 bundles
 *      (skipped when BENCH_NOEVAL is set).
 *
 * Counts: bundles = bundles issued (qpu_run's issued[], or exec calls that returned OK/HALTED). Lane
 * operations (per second: at the CPU-time rate) = 16 x the add- and mul-ALU operations of the issued
 * ALU-format bundles that are not `nop`, whatever their write condition (a conditional operation computes
 * all 16 lanes and masks the write); load-immediate, semaphore and branch bundles count 0.  They are
 * counted by an untimed profiling run (qpu_sim_step, bundle by bundle, counting each address) whose
 * bundle total must equal the timed run's.
 *
 * TESSERA_BENCH_RULES=1 runs (a), (b) and the profiling runs with TSR_SIM_F_RULES (the description's
 * hazard rules checked on every issued bundle, docs/sim.md "Rules"): the cost of the rule checks; a rule
 * report fails the run.  (c) is unaffected (t->sim->exec checks no rules).
 *
 * Each measurement keeps the best of TESSERA_BENCH_RUNS (default 3) runs, timed with
 * clock_gettime(CLOCK_MONOTONIC); `core` and `cpu rate` as in bench_codec.c.  A wrong result
 * (a run that fails, a wrong value) exits 1; the goal (docs/PERFORMANCE.md) is reported, never enforced. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eval.h"
#include "qpu_hooks.h"
#include "bench.h"
#include "registry.h"
#include "tsr.h"

#define GOAL 10e6 /* bundles/s */
#define MEM_BYTES (1u << 20)
#define UNIF_ADDR 0x1000u
#define OUT_ADDR 0x2000u
#define MAX_ITERS 4000000u /* the float chain of the loop stays exact below 2^23 iterations */

static unsigned sim_flags; /* TSR_SIM_F_RULES with TESSERA_BENCH_RULES=1, else 0 */

/* Per lane i: a = i, x = 0, f = (float)i; N times the body below (mirrored by alu_loop_reference);
 * then rows a, x, f (float bits) to memory at the second uniform.  Regfile reads are >= 2 bundles
 * after their writes (regfile latency 2). */
static const char alu_loop[] =
    "# bench_sim: ALU-heavy loop; uniforms: iterations N, output address\n"
    "    mov ra3, unif                   # loop counter N\n"
    "    mov ra1, unif                   # output address\n"
    "    mov r0, elem_num                # a = i\n"
    "    itof r2, elem_num               # f = i\n"
    "    mov r1, 0                       # x = 0\n"
    "    mov ra11, 2.0\n"
    "loop:\n"
    "    add r0, r0, 3; mul24 ra2, r0, r0            # t = mul24(a, a); a += 3\n"
    "    xor r1, r1, r0; fmul rb2, r2, 2.0           # x ^= a; g = 2f\n"
    "    add r1, r1, ra2; v8adds r3, r1, r0          # u = v8adds(x, a); x += t\n"
    "    fsub r2, rb2, r2; v8min ra6, r3, r1         # f = g - f (= f); m = v8min(u, x)\n"
    "    and.setf -, r0, 4; v8max r3, r3, r0         # Z = !(a & 4); u = v8max(u, a)\n"
    "    fadd r2, r2, 1.0; mul24 rb7, r3, r0         # f += 1; w = mul24(u, a)\n"
    "    fadd.ifz r2, r2, 1.0; v8subs.ifnz r3, r3, ra6   # Z: f += 1; !Z: u = v8subs(u, m)\n"
    "    ftoi ra8, r2; v8adds r1, r1, r3             # k = (int)f; x = v8adds(x, u)\n"
    "    xor r1, r1, rb7; fmul r3, r2, ra11          # x ^= w; s = 2f\n"
    "    sub.setf ra3, ra3, 1; v8max rb9, r1, r0     # N -= 1; v = v8max(x, a)\n"
    "    brr.anynz -, r:loop\n"
    "    fsub r2, r3, r2; mul24 r3, r1, r0           # f = s - f (= f); s = mul24(x, a)\n"
    "    xor r1, r1, ra8; v8subs r3, r3, rb9         # x ^= k; s = v8subs(s, v)\n"
    "    add r1, r1, r3; v8min r3, r3, r1            # x += s; s = v8min(s, x)\n"
    "    mov vw_setup, 0x00001a00        # VPM write: horizontal, 32-bit, row 0, stride 1\n"
    "    mov vpm, r0\n"
    "    mov vpm, r1\n"
    "    mov vpm, r2\n"
    "    mov vw_setup, 0x81904000        # VDW: 3 rows of 16 32-bit words from VPM row 0\n"
    "    mov vw_addr, ra1\n"
    "    mov -, vw_wait\n"
    "    nop; nop; thrend\n"
    "    nop\n"
    "    nop\n";

static uint32_t bytewise(uint32_t a, uint32_t b, int op)
{
    uint32_t r = 0;
    for (int k = 0; k < 32; k += 8) {
        int x = (int)(a >> k & 255), y = (int)(b >> k & 255), z;
        switch (op) {
        case 0: z = x + y > 255 ? 255 : x + y; break; /* v8adds */
        case 1: z = x > y ? x - y : 0; break;         /* v8subs */
        case 2: z = x < y ? x : y; break;             /* v8min */
        default: z = x > y ? x : y; break;            /* v8max */
        }
        r |= (uint32_t)z << k;
    }
    return r;
}
static uint32_t mul24(uint32_t a, uint32_t b) { return (a & 0xffffff) * (b & 0xffffff); }

/* The loop in C, per lane (every float value is an integer below 2^24: exact in any rounding). */
static void alu_loop_reference(uint32_t n, uint32_t out[3][16])
{
    for (uint32_t i = 0; i < 16; i++) {
        uint32_t a = i, x = 0, t, u, m, w, k, v, s;
        float f = (float)i;
        for (uint32_t it = 0; it < n; it++) {
            t = mul24(a, a), a += 3;
            x ^= a;
            u = bytewise(x, a, 0), x += t;
            m = bytewise(u, x, 2);
            int z = !(a & 4);
            u = bytewise(u, a, 3);
            f += 1.0f, w = mul24(u, a);
            if (z)
                f += 1.0f;
            else
                u = bytewise(u, m, 1);
            k = (uint32_t)(int32_t)f, x = bytewise(x, u, 0);
            x ^= w;
            v = bytewise(x, a, 3);
            s = mul24(x, a);
            x ^= k, s = bytewise(s, v, 1);
            x += s;
        }
        out[0][i] = a;
        out[1][i] = x;
        memcpy(&out[2][i], &f, 4);
    }
}

/* ALU operations (not nop) of each bundle of program w: the add and mul slots of the ALU format,
 * found by name through the target descriptor. */
static unsigned *alu_ops_per_bundle(const struct tsr_target *t, const struct tsr_words *w)
{
    unsigned *ops = calloc(w->count, sizeof *ops);
    void *inst = malloc(t->inst_size);
    for (size_t i = 0; i < w->count; i++) {
        t->decode(tsr_words_at(w, i), inst);
        unsigned f = t->inst_format(inst);
        if (f == TSR_NO_FORMAT || strcmp(t->format_names[f], "alu"))
            continue;
        for (unsigned s = 0; s < t->nslots; s++) {
            unsigned op = t->inst_op(inst, s);
            if (op != TSR_NO_OP && (!strcmp(t->slot_names[s], "add") || !strcmp(t->slot_names[s], "mul")) &&
                strcmp(t->op_names[op], "nop"))
                ops[i]++;
        }
    }
    free(inst);
    return ops;
}

/* Untimed profiling run of w on QPU 0 of m (uniforms at UNIF_ADDR): bundles issued and lane ops.
 * Returns 0, or -1 if the program does not end cleanly. */
static int profile(struct qpu_machine *m, const struct tsr_words *w, const unsigned *ops, uint64_t *bundles,
                   uint64_t *laneops)
{
    struct qpu_sim *sim = malloc(sizeof *sim);
    struct qpu_hooks_ctx ctx;
    qpu_sim_init(sim);
    qpu_hooks_attach(sim, &ctx, m, 0, UNIF_ADDR);
    sim->core.flags = sim_flags;
    *bundles = *laneops = 0;
    int rc;
    for (;;) {
        uint32_t pc = sim->pc;
        rc = qpu_sim_step(sim, w->w, w->count * 2);
        if (rc == TSR_SIM_OK || rc == TSR_SIM_HALTED) {
            ++*bundles;
            *laneops += 16u * (pc / 8 < w->count ? ops[pc / 8] : 0);
        }
        if (rc == TSR_SIM_HALTED || rc < 0)
            break;
    }
    if (rc < 0)
        fprintf(stderr, "bench_sim: profiling run failed at 0x%08x: %s\n", sim->core.err_pc, sim->core.msg);
    qpu_sim_fini(sim);
    free(sim);
    return rc == TSR_SIM_HALTED ? 0 : -1;
}

static void set_uniforms(struct qpu_machine *m, uint32_t u0, uint32_t u1)
{
    uint8_t *mem = qpu_machine_mem(m);
    memcpy(mem + UNIF_ADDR, &u0, 4);
    memcpy(mem + UNIF_ADDR + 4, &u1, 4);
}

/* qpu_run of w on 1 QPU; returns bundles issued, or 0 after reporting a failure. */
static uint64_t run_once(struct qpu_machine *m, const struct tsr_words *w)
{
    struct qpu_run_result res;
    uint32_t ua = UNIF_ADDR;
    int st = qpu_run_flags(m, w->w, w->count * 2, 1, &ua, UINT64_MAX, sim_flags, NULL, &res);
    if (st != TSR_SIM_HALTED) {
        fprintf(stderr, "bench_sim: qpu_run: status %d, qpu%u at 0x%08x: %s\n", st, res.qpu, res.pc, res.msg);
        return 0;
    }
    return res.issued[0];
}

/* The ALU loop's output rows, compared with the reference: 0 if equal. */
static int check_loop_output(struct qpu_machine *m, uint32_t n, const char *what)
{
    static uint32_t want[3][16];
    static uint32_t want_n = UINT32_MAX;
    if (want_n != n) {
        alu_loop_reference(n, want);
        want_n = n;
    }
    const uint8_t *mem = qpu_machine_mem(m);
    for (int r = 0; r < 3; r++)
        for (int i = 0; i < 16; i++) {
            uint32_t got;
            memcpy(&got, mem + OUT_ADDR + 64 * r + 4 * i, 4);
            if (got != want[r][i]) {
                fprintf(stderr, "bench_sim: %s, %u iterations: row %d (%s) lane %d is 0x%08x, expected 0x%08x\n", what,
                        n, r, r == 0 ? "a" : r == 1 ? "x" : "f", i, got, want[r][i]);
                return -1;
            }
        }
    return 0;
}

struct result {
    double wall, cpu;         /* the best run (by wall-clock rate): wall time, this thread's CPU time */
    uint64_t bundles, laneops;
    double crate;             /* the best CPU-time rate of all runs (bundles per CPU second) */
};

/* Keeps the run (wall, cpu, bundles, laneops) in *best if it is faster by wall time; crate from all runs. */
static void keep_best(struct result *best, double wall, double cpu, uint64_t bundles, uint64_t laneops)
{
    double crate = cpu > 0 ? (double)bundles / cpu : 0;
    if (crate < best->crate)
        crate = best->crate;
    if (!best->bundles || wall / (double)bundles < best->wall / (double)best->bundles)
        *best = (struct result){ wall, cpu, bundles, laneops, 0 };
    best->crate = crate;
}

/* Columns as in bench_codec: core = CPU time / wall time of the best run, cpu rate = the best of all
 * runs; lane-ops/s at the CPU-time rate. */
static void header(void)
{
    printf("%-36s %11s %7s %6s %9s %9s %10s %6s  %s\n", "measurement", "bundles", "wall s", "core", "rate",
           "cpu rate", "lane-ops/s", "goal", "goal");
}

static void row(const char *name, const struct result *r, double goal)
{
    double rate = (double)r->bundles / r->wall;
    printf("%-36s %11llu %7.3f %5.0f%% %7.2f M %7.2f M %8.1f M ", name, (unsigned long long)r->bundles, r->wall,
           100 * r->cpu / r->wall, rate / 1e6, r->crate / 1e6,
           r->crate * ((double)r->laneops / (double)r->bundles) / 1e6);
    if (goal > 0)
        printf("%4.0f M  %s\n", goal / 1e6,
               rate >= goal ? "met" : r->crate >= goal ? "met on cpu time (machine busy)" : "NOT MET");
    else
        printf("%6s  %s\n", "-", "(comparison)");
}

/* (c): the program decoded by t->sim->decode, run by t->sim->exec.  Returns bundles (0: failure). */
static uint64_t exec_run(const struct tsr_target *t, struct qpu_machine *m, const struct tsr_words *w,
                         const int *fmt, const int *ops, const uint64_t *fields)
{
    const struct tsr_sim_desc *sd = t->sim;
    void *sim = malloc(sd->sim_size);
    struct qpu_hooks_ctx ctx;
    sd->init(sim);
    qpu_hooks_attach(sim, &ctx, m, 0, UNIF_ADDR);
    const uint32_t *pcp = sd->state(sim, 0, 0); /* state 0 is pc (checked in main) */
    uint64_t issued = 0;
    int rc;
    for (;;) {
        uint32_t i = *pcp / sd->pc_step;
        if (i >= w->count) {
            fprintf(stderr, "bench_sim: exec: pc 0x%08x outside the program\n", *pcp);
            rc = TSR_SIM_ERROR;
            break;
        }
        rc = sd->exec(sim, fmt[i], ops + (size_t)i * sd->nslots, fields + (size_t)i * sd->nfields);
        if (rc == TSR_SIM_OK || rc == TSR_SIM_HALTED)
            issued++;
        if (rc == TSR_SIM_HALTED || rc < 0)
            break;
    }
    if (rc < 0)
        fprintf(stderr, "bench_sim: exec stopped at 0x%08x: %s\n", sd->ctl(sim)->err_pc, sd->ctl(sim)->msg);
    sd->fini(sim);
    free(sim);
    return rc == TSR_SIM_HALTED ? issued : 0;
}

/* (d): the evaluator on the loop body (pc set to the loop, no I/O there), n bundles. */
static int eval_compare(const struct tsr_words *w, uint32_t loop_pc, uint64_t n, struct result *r)
{
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
    struct mdl_model *model = mdl_load("targets/qpu/qpu.mdl", &d);
    tsr_diag_fini(&d);
    if (!model)
        return -1;
    struct mdl_evstate st;
    mdl_evstate_init(&st, model);
    int pcs = model->pc_state, rc = 0;
    mdl_evstate_elem(&st, pcs, 0)[0] = loop_pc;
    double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
    for (uint64_t i = 0; i < n; i++) {
        uint32_t pc = mdl_evstate_elem(&st, pcs, 0)[0];
        struct qpu_tinst inst;   /* the fields as uint64_t, as the evaluator reads them */
        int ops[QPU_NSLOTS];
        qpu_tdecode(w->w + pc / 4, &inst);
        for (int k = 0; k < QPU_NSLOTS; k++)
            ops[k] = inst.op[k] == QPU_NO_OP ? -1 : inst.op[k];
        if (mdl_eval_bundle(model, &st, inst.f, inst.format, ops) < 0) {
            fprintf(stderr, "bench_sim: evaluator stopped: %s\n", st.ctl.msg);
            rc = -1;
            break;
        }
    }
    r->wall = clock_s(CLOCK_MONOTONIC) - w0;
    r->cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
    r->bundles = n;
    r->crate = r->cpu > 0 ? (double)n / r->cpu : 0;
    mdl_evstate_fini(&st);
    mdl_model_free(model);
    return rc;
}

/* (a): the ALU loop, n iterations, by qpu_run.  Returns 0, or 1 on a wrong result. */
static int bench_loop_run(const struct tsr_target *t, struct qpu_machine *m, const struct tsr_words *loop,
                          const unsigned *loop_ops, uint32_t n, int runs)
{
    uint64_t bundles, laneops;
    (void)t;
    set_uniforms(m, n, OUT_ADDR);
    if (profile(m, loop, loop_ops, &bundles, &laneops) || check_loop_output(m, n, "alu loop (profile)"))
        return 1;
    struct result best = { 0, 0, 0, 0, 0 };
    for (int r = 0; r < runs; r++) {
        memset(qpu_machine_mem(m) + OUT_ADDR, 0, 3 * 64);
        double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
        uint64_t b = run_once(m, loop);
        double wall = clock_s(CLOCK_MONOTONIC) - w0, cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
        if (!b || check_loop_output(m, n, "alu loop (qpu_run)"))
            return 1;
        if (b != bundles) {
            fprintf(stderr, "bench_sim: qpu_run issued %llu bundles, the profiling run %llu\n",
                    (unsigned long long)b, (unsigned long long)bundles);
            return 1;
        }
        keep_best(&best, wall, cpu, b, laneops);
    }
    char name[80];
    snprintf(name, sizeof name, "(a) alu loop x%u, qpu_run 1 QPU", n);
    row(name, &best, GOAL);
    return 0;
}

/* (b): the demo program again and again by qpu_run, for >= min_s per run.  0, or 1 on a wrong result. */
static int bench_demo(struct qpu_machine *m, const struct tsr_words *demo, const unsigned *demo_ops, double min_s,
                      int runs)
{
    uint64_t bundles, laneops;
    float c = 1.0f;
    uint32_t cbits, ref[16];
    memcpy(&cbits, &c, 4);
    set_uniforms(m, cbits, OUT_ADDR);
    if (profile(m, demo, demo_ops, &bundles, &laneops))
        return 1;
    memcpy(ref, qpu_machine_mem(m) + OUT_ADDR, 64);
    for (int i = 0; i < 16; i++) {
        float y, want_y = 1.0f / ((float)i * (float)i + c);
        memcpy(&y, &ref[i], 4);
        /* the SFU keeps 13 fraction bits (docs/targets/qpu-arith.md) */
        if (!(fabsf(y - want_y) <= fabsf(want_y) * 0x1p-12f)) {
            fprintf(stderr, "bench_sim: demo lane %d: %g, expected %g\n", i, y, want_y);
            return 1;
        }
    }
    struct result best = { 0, 0, 0, 0, 0 };
    uint64_t demo_runs = 0;
    for (int r = 0; r < runs; r++) {
        uint64_t b = 0, k = 0;
        double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC), wall;
        do {
            memset(qpu_machine_mem(m) + OUT_ADDR, 0, 64);
            uint64_t bi = run_once(m, demo);
            if (bi != bundles || memcmp(qpu_machine_mem(m) + OUT_ADDR, ref, 64)) {
                fprintf(stderr, "bench_sim: demo run %llu: %llu bundles (expected %llu) or other results\n",
                        (unsigned long long)k, (unsigned long long)bi, (unsigned long long)bundles);
                return 1;
            }
            b += bi;
            k++;
        } while ((wall = clock_s(CLOCK_MONOTONIC) - w0) < min_s);
        double cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
        if (!best.bundles || wall / (double)b < best.wall / (double)best.bundles)
            demo_runs = k;
        keep_best(&best, wall, cpu, b, laneops * k);
    }
    char name[80];
    snprintf(name, sizeof name, "(b) demo.qasm x%llu, qpu_run 1 QPU", (unsigned long long)demo_runs);
    row(name, &best, GOAL);
    return 0;
}

/* (c): the ALU loop, n iterations, through t->sim->decode / t->sim->exec.  0, or 1 on a wrong result. */
static int bench_loop_exec(const struct tsr_target *t, struct qpu_machine *m, const struct tsr_words *loop,
                           const unsigned *loop_ops, uint32_t n, int runs)
{
    const struct tsr_sim_desc *sd = t->sim;
    uint64_t bundles, laneops;
    if (sd->nstates < 1 || strcmp(sd->state_names[0], "pc")) {
        fprintf(stderr, "bench_sim: state 0 of the simulator is not pc\n");
        return 1;
    }
    int *fmt = malloc(loop->count * sizeof *fmt), *ops = malloc(loop->count * sd->nslots * sizeof *ops);
    uint64_t *fields = malloc(loop->count * sd->nfields * sizeof *fields);
    for (size_t i = 0; i < loop->count; i++)
        sd->decode(tsr_words_at(loop, i), &fmt[i], ops + i * sd->nslots, fields + i * sd->nfields);
    set_uniforms(m, n, OUT_ADDR);
    int bad = profile(m, loop, loop_ops, &bundles, &laneops);
    struct result best = { 0, 0, 0, 0, 0 };
    for (int r = 0; r < runs && !bad; r++) {
        memset(qpu_machine_mem(m) + OUT_ADDR, 0, 3 * 64);
        double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
        uint64_t b = exec_run(t, m, loop, fmt, ops, fields);
        double wall = clock_s(CLOCK_MONOTONIC) - w0, cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
        if (!b || check_loop_output(m, n, "alu loop (t->sim->exec)")) {
            bad = 1;
        } else if (b != bundles) {
            fprintf(stderr, "bench_sim: exec issued %llu bundles, the profiling run %llu\n", (unsigned long long)b,
                    (unsigned long long)bundles);
            bad = 1;
        } else {
            keep_best(&best, wall, cpu, b, laneops);
        }
    }
    if (!bad) {
        char name[80];
        snprintf(name, sizeof name, "(c) alu loop x%u, t->sim->exec", n);
        row(name, &best, GOAL);
    }
    free(fmt);
    free(ops);
    free(fields);
    return bad;
}

int main(void)
{
    const struct tsr_target *t = tsr_find_target("qpu");
    if (!t || !t->sim) {
        fprintf(stderr, "bench_sim: no qpu target with a simulator in this build\n");
        return 1;
    }
    const double min_s = env_num("TESSERA_BENCH_SECONDS", 1.0);
    const int runs = (int)env_num("TESSERA_BENCH_RUNS", 3);
    sim_flags = env_num("TESSERA_BENCH_RULES", 0) != 0 ? TSR_SIM_F_RULES : 0u;
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);

    /* the programs */
    struct tsr_words loop, demo;
    struct tsr_buf src = { 0 };
    char path[4096];
    const char *root = getenv("TESSERA_ROOT");
    snprintf(path, sizeof path, "%s%sexamples/qpu/demo.qasm", root ? root : "", root ? "/" : "");
    tsr_words_init(&loop, t->word_bits);
    tsr_words_init(&demo, t->word_bits);
    if (t->assemble("bench_sim.qasm", alu_loop, strlen(alu_loop), &loop, &d) || tsr_file_read(path, &src, &d) ||
        t->assemble(path, src.data ? src.data : "", src.len, &demo, &d)) {
        fprintf(stderr, "bench_sim: cannot assemble the programs\n");
        return 1;
    }
    unsigned *loop_ops = alu_ops_per_bundle(t, &loop), *demo_ops = alu_ops_per_bundle(t, &demo);
    struct qpu_machine *m = qpu_machine_new(MEM_BYTES, 1);

    /* calibrate the iteration count for >= min_s per run: a short run, then one of about min_s, each
     * timed by CPU time (what the simulator itself takes) */
    uint32_t n = 20000;
    for (int k = 0; k < 2; k++) {
        set_uniforms(m, n, OUT_ADDR);
        double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
        uint64_t b = run_once(m, &loop);
        double per_iter = (clock_s(CLOCK_THREAD_CPUTIME_ID) - c0) / n;
        if (!b || check_loop_output(m, n, "alu loop (calibration)"))
            return 1;
        double want = min_s * (k ? 1.1 : 1.0) / (per_iter > 0 ? per_iter : 1e-9);
        n = want > MAX_ITERS ? MAX_ITERS : want < 1000 ? 1000 : (uint32_t)want;
    }

    printf("QPU simulator speed, one core; best of %d runs, CLOCK_MONOTONIC; core = CPU time / wall time of the best "
           "run;\ncpu rate = best bundles per second of CPU time; lane-ops = 16 x non-nop add/mul ALU operations "
           "issued, at the cpu rate\n", runs);
    if (sim_flags & TSR_SIM_F_RULES)
        printf("TESSERA_BENCH_RULES: (a) and (b) check the description's rules on every bundle (TSR_SIM_F_RULES)\n");
    header();
    if ((selected("(a) alu loop, qpu_run") && bench_loop_run(t, m, &loop, loop_ops, n, runs)) ||
        (selected("(b) demo, qpu_run") && bench_demo(m, &demo, demo_ops, min_s, runs)) ||
        (selected("(c) alu loop, t->sim->exec") && bench_loop_exec(t, m, &loop, loop_ops, n, runs)))
        return 1;
    if (selected("(d) evaluator") && !getenv("BENCH_NOEVAL")) {
        struct result r;
        uint64_t bundles, laneops;
        set_uniforms(m, n, OUT_ADDR);
        if (profile(m, &loop, loop_ops, &bundles, &laneops))
            return 1;
        uint32_t loop_pc = 6 * 8; /* the label `loop` follows the 6 prologue bundles */
        if (eval_compare(&loop, loop_pc, 20000, &r) == 0) {
            r.laneops = (uint64_t)((double)laneops / (double)bundles * (double)r.bundles);
            row("(d) evaluator (mdl/eval.c), loop body", &r, 0);
        }
    }
    unsigned body_ops = 0, demo_total = 0;
    for (size_t i = 6; i < 6 + 14 && i < loop.count; i++) /* the loop body: bundles 6..19 */
        body_ops += loop_ops[i];
    for (size_t i = 0; i < demo.count; i++)
        demo_total += demo_ops[i];
    printf("(alu loop body: 14 bundles, %u ALU ops; demo: %zu bundles, %u ALU ops)\n", body_ops, demo.count,
           demo_total);

    free(loop_ops);
    free(demo_ops);
    qpu_machine_free(m);
    tsr_words_free(&loop);
    tsr_words_free(&demo);
    tsr_buf_free(&src);
    tsr_diag_fini(&d);
    return 0;
}
