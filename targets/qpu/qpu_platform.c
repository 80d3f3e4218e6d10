/* The QPU's platform (runtime/sim/platform.h): a struct qpu_machine (memory, VPM, semaphores; qpu_periph.h) of
 * up to QPU_MAX_QPUS QPUs run round-robin by qpu_run_flags (qpu_hooks.h), each reading its uniforms from its own
 * stream.  `tessera sim` and `tessera demo` reach it through the registry (tsr_target_platform). */
#include <string.h>

#include "sim/platform.h"
#include "qpu_hooks.h"

static void *machine_new(uint32_t mem_bytes, unsigned procs)
{
    return qpu_machine_new(mem_bytes, procs);
}

static void machine_free(void *m)
{
    qpu_machine_free(m);
}

static uint8_t *machine_mem(void *m)
{
    return qpu_machine_mem(m);
}

static int run(void *m, const uint32_t *code, size_t nwords, unsigned procs, const uint32_t *args_addr,
               uint64_t max_rounds, unsigned flags, FILE *trace, const struct tsr_platform_visit *visit,
               struct tsr_platform_result *res)
{
    struct qpu_run_result r;
    int st = qpu_run_visit(m, code, nwords, procs, args_addr, max_rounds, flags, trace, visit, &r);
    memset(res, 0, sizeof *res);
    res->status = st;
    res->proc = r.qpu;
    res->pc = r.pc;
    res->rounds = r.rounds;
    for (unsigned q = 0; q < procs && q < QPU_MAX_QPUS; q++)
        res->issued += r.issued[q];
    _Static_assert(sizeof res->msg == sizeof r.msg, "the run's message fits the platform's");
    memcpy(res->msg, r.msg, sizeof res->msg);
    return st;
}

const struct tsr_platform qpu_platform = {
    .noun = "QPU",
    .prefix = "qpu",
    .max_procs = QPU_MAX_QPUS,
    .demo = "examples/qpu/demo.qasm",
    .machine_new = machine_new,
    .machine_free = machine_free,
    .mem = machine_mem,
    .run = run,
};
