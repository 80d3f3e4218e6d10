/* The QPU's hand-written hooks: glue from the hook calls of the generated simulator (qpu_hook_* in the
 * generated qpu.h, named by targets/qpu/qpu.mdl "Hooks") to the peripheral model (qpu_periph.h), and the
 * multi-QPU run loop.
 *
 * Each simulated QPU is a `struct qpu_sim` whose `hooks` member points to a `struct qpu_hooks_ctx`
 * naming its `struct qpu_periph` (one QPU of a shared `struct qpu_machine`).  Time: the peripherals
 * advance once per issued instruction (qpu_hook_retire calls qpu_io_step after the bundle's writes, so
 * an SFU result written by instruction N lands in r4 at the end of N+2 and is readable from N+3,
 * ../shared/isa/qpu.md "Latencies and hazards" 2) and once per stalled cycle (qpu_hook_ready), so that
 * DMA waits and SFU results make progress while a QPU waits.
 *
 * Stalls are decided before a bundle issues (qpu_hook_ready asks qpu_io_ready for every I/O access the
 * bundle can make, and qpu_io_semaphore_ready for a semaphore instruction), so a bundle never stalls
 * half-way after popping a uniform.
 */
#ifndef QPU_HOOKS_H
#define QPU_HOOKS_H

#include <stdint.h>
#include <stdio.h>

#include "qpu.h"
#include "qpu_periph.h"
#include "sim/platform.h"

/* The hooks' view of one QPU (struct qpu_sim.hooks). */
struct qpu_hooks_ctx {
    struct qpu_machine *m;
    struct qpu_periph *p;
    unsigned num;
};

/* Prepares sim (after qpu_sim_init) to run as QPU `qpu` of machine m with its uniform stream at
 * uniforms_bus_addr: resets that QPU's peripherals and points sim->hooks at ctx.  Returns 0, or -1 if
 * qpu is out of range. */
int qpu_hooks_attach(struct qpu_sim *sim, struct qpu_hooks_ctx *ctx, struct qpu_machine *m, unsigned qpu,
                     uint32_t uniforms_bus_addr);

/* Calls the typed hook `hook` (QPU_SIM_HOOK_*, or TSR_HOOK_READY / TSR_HOOK_RETIRE with inst, or inst NULL
 * and args = the bundle's QPU_NWORDS words as the generic interface passes them) with the
 * arguments of the generic interface (struct tsr_sim_hooks): for wrappers that watch or alter the traffic
 * between the simulator and the peripherals and pass it on.  Returns the hook's result, -1 for an unknown
 * hook or a wrong argument count. */
int qpu_hooks_dispatch(struct qpu_sim *sim, const struct qpu_inst *inst, int hook, const uint32_t *args, int nargs,
                       uint32_t *v, uint32_t lanemask);

/* A struct tsr_sim_ctl trace_text callback: the bundle's disassembly (qpu_disasm).  ctx unused. */
void qpu_trace_text(void *ctx, uint32_t pc, const uint32_t *words, char *buf, size_t n);

/* Outcome of qpu_run. */
struct qpu_run_result {
    int status;        /* TSR_SIM_HALTED: every QPU ended; TSR_SIM_OK: max_steps rounds ran first;
                          TSR_SIM_ERROR / TSR_SIM_HAZARD: a QPU failed (qpu, pc, msg); TSR_SIM_STALL: deadlock
                          (no QPU could issue for QPU_RUN_IDLE_LIMIT rounds; msg says where each waits) */
    unsigned qpu;      /* the QPU that failed */
    uint32_t pc;       /* its bundle address */
    uint64_t rounds;   /* round-robin rounds run */
    uint64_t issued[QPU_MAX_QPUS], stalls[QPU_MAX_QPUS];
    char msg[TSR_SIM_MSG + 64];
    /* with TSR_SIM_F_HAZARD_WARN: hazards counted on all QPUs (latency, guard and, with TSR_SIM_F_RULES,
     * rule reports), and the first one of the lowest-numbered QPU that had any ("qpuN: hazard: ...";
     * empty if none).  Without it a hazard stops the run (status TSR_SIM_HAZARD, msg). */
    uint64_t hazards;
    char hazard[TSR_SIM_MSG + 64];
};

#define QPU_RUN_IDLE_LIMIT 100000u

/* Runs nqpus QPUs (1..qpu_machine_nqpus(m)) of machine m on the same program (code: nwords 32-bit words,
 * low word first, loaded at byte address 0), QPU i starting at pc 0 with its uniforms at
 * uniform_addrs[i] (bus address).  Round-robin: in each round every QPU that has not ended steps one
 * bundle (a stalled QPU retries in the next round), until all have ended (thread end and its 2 delay
 * slots), one fails, no QPU can issue for QPU_RUN_IDLE_LIMIT rounds, or max_steps rounds.  trace (may be
 * NULL): every issued bundle with the registers it wrote, prefixed by "qpuN".  Returns res->status. */
int qpu_run(struct qpu_machine *m, const uint32_t *code, size_t nwords, unsigned nqpus,
            const uint32_t *uniform_addrs, uint64_t max_steps, FILE *trace, struct qpu_run_result *res);
/* The same with `flags` (TSR_SIM_F_*, runtime/sim/sim.h) in every QPU's struct tsr_sim_ctl:
 * TSR_SIM_F_RULES checks each QPU's issued bundles, in its own issue order, against the description's
 * rules (one rule checker per QPU, started afresh with the QPU's program; a bundle that stalls and is
 * retried is checked once); TSR_SIM_F_HAZARD_WARN counts hazards in res->hazards and keeps running.
 * qpu_run is qpu_run_flags with flags 0. */
int qpu_run_flags(struct qpu_machine *m, const uint32_t *code, size_t nwords, unsigned nqpus,
                  const uint32_t *uniform_addrs, uint64_t max_steps, unsigned flags, FILE *trace,
                  struct qpu_run_result *res);
/* The same with visit (may be NULL; runtime/sim/platform.h): visit->start(ctx, q, &sim of QPU q) for every QPU
 * after it was reset and attached, before the first round (a nonzero return: status TSR_SIM_ERROR, qpu q, msg
 * "qpuN: its initial values were refused", nothing run), visit->end for every QPU after the run (unless a start
 * failed).  qpu_run_flags is qpu_run_visit with visit NULL. */
int qpu_run_visit(struct qpu_machine *m, const uint32_t *code, size_t nwords, unsigned nqpus,
                  const uint32_t *uniform_addrs, uint64_t max_steps, unsigned flags, FILE *trace,
                  const struct tsr_platform_visit *visit, struct qpu_run_result *res);

#endif
