/* (addition, X6) The evaluator's forwards (mdl/eval_fwd.c), used by mdl/eval.c only. */
#ifndef MDL_EVAL_FWD_H
#define MDL_EVAL_FWD_H

#include <stdbool.h>
#include <stdint.h>

#include "eval.h"

/* Storage of st's forwards (rings with every entry absent): 0, or -1 out of memory (mdl_evfwd_fini frees). */
int mdl_evfwd_init(struct mdl_evstate *st);
void mdl_evfwd_fini(struct mdl_evstate *st);
/* A bundle starts (its staging entries are empty) / completed at pc (its entries go into the rings). */
void mdl_evfwd_begin(struct mdl_evstate *st);
void mdl_evfwd_end(struct mdl_evstate *st, uint32_t pc);
/* The bundle at pc did not complete (an error, a hazard, a stall; its icount is not counted): its ring entries are
 * absent, as the generated simulators leave them (runtime/sim/sim.h "forwards"). */
void mdl_evfwd_fail(struct mdl_evstate *st, uint32_t pc);
/* Reads forward f element elem at age `age` by the bundle at pc into out[lanes] (a scalar forward's value in every
 * lane); 0, or the TSR_SIM_* code of an index out of range or a hazard (runtime/sim/sim.h tsr_sim_fwd_read). */
int mdl_evfwd_read(struct mdl_evstate *st, int f, uint32_t elem, int age, uint32_t pc, int lanes, uint32_t *out);
/* Writes v (lanes of mask) to forward f element elem, from the compute stage (also readable at age 0 by the commit
 * blocks) or a commit block, readable at ages lo..hi, with the value's deferred latency hazard (state NULL: none). */
int mdl_evfwd_write(struct mdl_evstate *st, int f, uint32_t elem, bool commit, uint32_t pc, const uint32_t *v,
                    int lanes, uint32_t mask, int lo, int hi, const struct tsr_fwd_stale *stale);

#endif
