/* A target's platform: the machine around its processors (memory, several processors running one program, the
 * peripherals its hooks reach, a stream of arguments per processor), which the target's hand-written files build
 * around its generated simulator.  `tessera sim` runs a program on it and `tessera demo` runs the target's bundled
 * example on it; a target without one runs one processor through its simulator descriptor alone
 * (tools/sim_generic.c).
 *
 * A target provides one as `const struct tsr_platform <t>_platform` in targets/<t>/<t>_platform.c; configure.py
 * registers every target that has that file, and tools find it with tsr_target_platform() (runtime/registry.h).
 * Nothing here names a target: what differs between platforms is in the struct.
 *
 * Memory is bytes at bus addresses 0..mem_bytes-1 (little-endian words), shared by the processors.  A processor's
 * argument stream ("uniforms") is a run of 32-bit words in that memory that the program reads in order; each
 * processor gets the address of its own.
 */
#ifndef TSR_PLATFORM_H
#define TSR_PLATFORM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim.h"

/* Outcome of a run (struct tsr_platform.run). */
struct tsr_platform_result {
    int status;       /* TSR_SIM_HALTED: every processor ended; TSR_SIM_OK: max_rounds rounds ran first; another
                         value: a processor failed (proc, pc, msg) or none could go on */
    unsigned proc;    /* the processor that failed */
    uint32_t pc;      /* its bundle's byte address */
    uint64_t rounds;  /* rounds run (in a round every processor still running steps once) */
    uint64_t issued;  /* bundles issued by all processors together */
    char msg[TSR_SIM_MSG + 64]; /* what went wrong (status other than HALTED and OK), NUL-terminated */
};

/* What a tool does to each processor's simulator state around a run (struct tsr_platform.run; docs/tools.md "sim":
 * initial values, printed outputs).  `sim` is processor proc's state as the target's struct tsr_sim_desc functions
 * take it (its hooks attached to the machine, so a space's hook entry reaches the platform's peripherals). */
struct tsr_platform_visit {
    /* After the processor was reset and attached, before any processor issues its first bundle.  Nonzero: the run
     * does not start (status TSR_SIM_ERROR, 0 rounds; the tool has said why). */
    int (*start)(void *ctx, unsigned proc, void *sim);
    /* After the run (whatever its status; not called when a start failed), before the state is freed. */
    void (*end)(void *ctx, unsigned proc, void *sim);
    void *ctx;
};

struct tsr_platform {
    /* What one processor is called in messages: `noun` after a count ("1 NOUN", "4 NOUNs"; "every NOUN ended"),
     * `prefix` before its number ("PREFIX0 at 0x...: message", as the trace names it). */
    const char *noun, *prefix;
    unsigned max_procs;  /* processors a machine has at most (1..max_procs may run) */
    /* The program `tessera demo` runs: a path below the repository root ($TESSERA_ROOT), or NULL for none.  Its
     * contract (tools/cmd_demo.c): it takes two arguments, a binary32 c and an address, and stores 1 / (i*i + c)
     * for every lane i there, as binary32 words. */
    const char *demo;

    /* A machine of mem_bytes of zeroed memory and procs processors (1..max_procs); NULL on bad arguments or out of
     * memory.  Freed by machine_free (NULL is allowed). */
    void *(*machine_new)(uint32_t mem_bytes, unsigned procs);
    void (*machine_free)(void *m);
    /* The machine's memory (mem_bytes bytes, bus address 0 first). */
    uint8_t *(*mem)(void *m);
    /* Runs procs processors of m (1..the machine's) on the same program (code: nwords 32-bit words, an
     * instruction's least significant word first, at byte address 0), processor i with its argument stream at
     * args_addr[i], in rounds until every one ended, one failed, or max_rounds rounds ran.  flags: TSR_SIM_F_* in
     * every processor's struct tsr_sim_ctl (TSR_SIM_F_RULES: each checks its issued bundles against the
     * description's rules).  trace (may be NULL): every issued bundle with its writes, prefixed by the
     * processor's name.  visit (may be NULL): called for every processor before and after the run.  Fills *res;
     * returns res->status. */
    int (*run)(void *m, const uint32_t *code, size_t nwords, unsigned procs, const uint32_t *args_addr,
               uint64_t max_rounds, unsigned flags, FILE *trace, const struct tsr_platform_visit *visit,
               struct tsr_platform_result *res);
};

#endif
