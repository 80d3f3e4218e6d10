/* Simulation speed of the generated QPU simulator (build/gen/qpu/qpu_sim.c): bundles per second on one
 * core, for a loop of typical ALU bundles (float add/mul with flags and conditional writes, integer ops,
 * small immediates, a rotation, a regfile round trip) and a branch with its 3 delay slots, run through
 * qpu_sim_step with the peripherals attached; and for the independent evaluator (mdl/eval.h) on the same
 * bundles, for comparison.  Prints one line per measurement. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eval.h"
#include "qpu.h"
#include "qpu_hooks.h"
#include "tsr.h"

static const char program[] =
    "    mov r0, 0\n"
    "    mov r1, 1.0\n"
    "    mov ra1, 3\n"
    "    mov rb2, 7\n"
    "loop:\n"
    "    fadd r0, r0, r1; fmul r2, r1, r1\n"
    "    add.setf r3, r3, r2; mov r2, r0 >> 1\n"
    "    fsub.ifz r1, r1, r0; fmul.ifnz r2, r2, r1\n"
    "    and r3, r3, 15; v8adds rb3, r2, r1\n"
    "    add ra4, ra1, rb2; mul24 r2, r3, r3\n"
    "    fmax r0, r0, r1; fmul rb5, r0, r0\n"
    "    itof r1, r3; nop\n"
    "    ftoi r3, r1; v8min r2, r2, r3\n"
    "    brr -, r:loop\n"
    "    xor r3, r3, r0; nop\n"
    "    shl r1, r1, 1; nop\n"
    "    or r2, r2, r3; nop\n";

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* CPU time: other processes do not count */
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(void)
{
    struct tsr_words w;
    struct tsr_diag d;
    tsr_words_init(&w, 64);
    tsr_diag_init(&d, TSR_DIAG_PRINT, stderr);
    if (qpu_assemble("bench_sim.qasm", program, strlen(program), &w, &d) != 0) {
        fprintf(stderr, "bench_sim: the program does not assemble\n");
        return 1;
    }
    struct qpu_machine *m = qpu_machine_new(1u << 16, 1);
    struct qpu_sim *sim = malloc(sizeof *sim);
    struct qpu_hooks_ctx ctx;
    qpu_sim_init(sim);
    qpu_hooks_attach(sim, &ctx, m, 0, 0);
    const uint64_t n = getenv("BENCH_N") ? strtoull(getenv("BENCH_N"), NULL, 10) : 20000000;
    double t0 = now();
    int rc = qpu_sim_run(sim, w.w, w.count * 2, n);
    double t = now() - t0;
    if (rc != TSR_SIM_OK) {
        fprintf(stderr, "bench_sim: stopped with %d: %s\n", rc, sim->core.msg);
        return 1;
    }
    printf("qpu simulator: %.1f million bundles/s (%llu bundles in %.3f s, qpu_sim_step with peripherals)\n",
           (double)sim->core.icount / t / 1e6, (unsigned long long)sim->core.icount, t);

    /* the evaluator on the same loop (decoded once, stepped by hand) */
    struct mdl_model *model = getenv("BENCH_NOEVAL") ? NULL : mdl_load("targets/qpu/qpu.mdl", &d);
    if (model) {
        struct mdl_evstate st;
        mdl_evstate_init(&st, model);
        const uint64_t ne = 200000;
        int pc_state = model->pc_state;
        t0 = now();
        for (uint64_t i = 0; i < ne; i++) {
            uint32_t pc = mdl_evstate_elem(&st, pc_state, 0)[0];
            struct qpu_inst inst;
            qpu_decode(w.w + pc / 4, &inst);
            int ops[QPU_NSLOTS];
            for (int k = 0; k < QPU_NSLOTS; k++)
                ops[k] = inst.op[k] == QPU_NO_OP ? -1 : inst.op[k];
            if (mdl_eval_bundle(model, &st, inst.f, inst.format, ops) < 0) {
                fprintf(stderr, "bench_sim: evaluator stopped: %s\n", st.ctl.msg);
                break;
            }
        }
        t = now() - t0;
        printf("evaluator: %.2f million bundles/s (%llu bundles in %.3f s)\n", (double)ne / t / 1e6,
               (unsigned long long)ne, t);
        mdl_evstate_fini(&st);
        mdl_model_free(model);
    }
    qpu_sim_fini(sim);
    free(sim);
    qpu_machine_free(m);
    tsr_words_free(&w);
    tsr_diag_fini(&d);
    return 0;
}
