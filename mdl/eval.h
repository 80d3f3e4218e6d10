/* The independent evaluator: executes one bundle by walking the checked model's semantic trees over a
 * generic machine state, without any generated code.  The differential fuzzer runs the same bundle
 * through it and through the generated simulator (<t>_sim.c, gen/emit_sim.c) and compares the
 * states (tests/support_diffsim.h).
 *
 * Semantics (docs/mdl.md "Semantics"; operators, conversions and built-ins: runtime/sem.h):
 *  - A bundle at address pc (the `pc` state) runs in two stages: the format's `sem`, then every slot's
 *    operation (operands bound first, in template order, then its `sem`), in the format's slot order;
 *    then every slot's `commit` (in the scope of its operation), then the format's `commit`.
 *  - Every read sees the state before the bundle: state writes are logged and applied, in order, after
 *    the last commit (a later write of the same element wins), each stamping its element's write time
 *    when the state has a latency.  Hooks are called when reached.
 *  - Locals start at 0 in every lane; an operand local holds the value its first matching alternative
 *    reads (an error if none matches).
 *  - `if (c)` runs its branch under the lanes of the current mask where c holds, the else branch under
 *    the others, each only if that set is not empty.  Writes change only the lanes of the mask; a
 *    u32 (scalar) state is written when the mask is not empty.
 *  - Lazy evaluation, only for operands with effects (mdl_expr_has_effects: reads through spaces, of
 *    regfiles with a latency or guard, or at a computed index that may be out of range): in `c ? a : b`, `a && b`, `a || b`
 *    such an operand is evaluated iff some lane of the current mask selects it, under the mask of
 *    those lanes; otherwise its value is 0.  Pure operands are always evaluated.
 *  - Reading the same space element twice in one bundle calls its hook once (the first value is
 *    reused); reads of storage through a space are plain reads.
 *  - Regfile indices, space addresses, hook arguments, jump targets and values written to scalar
 *    state are taken from lane 0 (mdlc rejects descriptions where they can vary between lanes).
 *  - all(e)/any(e) look at every lane (not only the masked ones); attr(NAME) is the executing op's
 *    attribute, and in a format's sem/commit, whether any op of the bundle has it.
 *  - Latency and guard checks apply to reads in the compute stage (format sem, operand binding, op sem),
 *    where an instruction reads its inputs; reads in commit blocks (write conditions, the old value a partial
 *    write merges with) are the machine's own write-back and are not checked.
 *  - (X6) Forwards (docs/mdl.md "Forwards"): a read F@A takes the value the instruction executed A before wrote
 *    (age 0 in a commit block: this bundle's compute stage); writes are staged and enter the history when the
 *    bundle completes; a regfile read inside its latency by a value written into a forward is not reported but
 *    marks the entry stale, reported when read (mdl/eval_fwd.c, runtime/sim/fwd.c).
 *  - Hazards and errors are reported through st->ctl exactly as the generated simulator does
 *    (runtime/sim/sim.h), and the return codes are the same (TSR_SIM_*).
 */
#ifndef MDL_EVAL_H
#define MDL_EVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "sim/sim.h"

/* The evaluator's machine state: one array per model state.
 *   vec regfile  count * lanes values (element e at e * lanes)   vec scalar  lanes values
 *   u32 regfile  count values                                     u32 scalar  1 value
 * wtime[s] is NULL unless state s has a latency (then count write times, TSR_SIM_NEVER at first). */
struct mdl_evstate {
    const struct mdl_model *m;
    int lanes;
    uint32_t **val;
    int64_t **wtime;
    struct tsr_sim_ctl ctl;
    const struct tsr_sim_hooks *hooks; /* NULL: any hook call is an error */
    /* (addition, X6) per forward f: its elements' rings (count * (hi + 1) entries, element e at e * (hi + 1);
     * runtime/sim/sim.h "forwards") and the bundle's staging entries c0, c1 (count each); NULL without forwards */
    struct tsr_fwd_ent **fring, **fc0, **fc1;
};

/* Allocates a zeroed state for model m (pc 0, nothing written).  Returns 0, or -1 if the model has
 * more than TSR_SIM_MAX_LANES lanes or allocation fails. */
int mdl_evstate_init(struct mdl_evstate *st, const struct mdl_model *m);
void mdl_evstate_fini(struct mdl_evstate *st);

/* Values of state s element elem (elem ignored for scalars): lanes values for vec, 1 for u32.
 * NULL if out of range. */
uint32_t *mdl_evstate_elem(struct mdl_evstate *st, int s, int elem);
/* Number of uint32_t per element (lanes or 1) and elements (1 for scalars). */
int mdl_evstate_width(const struct mdl_evstate *st, int s);
int mdl_evstate_elems(const struct mdl_evstate *st, int s);

/* (addition, X6) The ring (hi + 1 entries) of forward f element elem (ignored for scalars), NULL if out of range. */
struct tsr_fwd_ent *mdl_evstate_fwd(struct mdl_evstate *st, int f, int elem);
/* Copies every forward ring between an evaluator state and a simulator (its descriptor's fwd_ring), and compares
 * them (0 equal, else 1 and the first difference in report, "mul0_r age slot 2: ..."). */
void mdl_evstate_fwd_to_sim(const struct mdl_evstate *st, const struct tsr_sim_desc *d, void *sim);
void mdl_evstate_fwd_from_sim(struct mdl_evstate *st, const struct tsr_sim_desc *d, void *sim);
int mdl_evstate_fwd_compare_sim(const struct mdl_evstate *st, const struct tsr_sim_desc *d, void *sim, char *report,
                                size_t n);
/* The same between two evaluator states of one model: every element's ring entries (writer, presence, value, age
 * window, stale bit) are compared ("a"/"b" in the report, e.g. "alu[0] ring entry 1: a vs b: ages 1..2 vs 2..2"). */
int mdl_evstate_fwd_compare(const struct mdl_evstate *a, const struct mdl_evstate *b, char *report, size_t n);

/* Executes one bundle: format index, ops[] indexed by the model's slot index (negative or
 * 0xffff = none), fields[] by field index (raw codes, zero-extended).  Returns TSR_SIM_OK,
 * TSR_SIM_HALTED, TSR_SIM_STALL (a hook asked to retry: state unchanged except for the hooks' own
 * effects), or a negative error/hazard (st->ctl.msg, st->ctl.err_pc). */
int mdl_eval_bundle(const struct mdl_model *m, struct mdl_evstate *st, const uint64_t *fields, int format,
                    const int *ops);

/* True if evaluating e can have an effect (a hook call, a hazard or a range error): see above.
 * Shared with the simulator emitter so both apply the same lazy-evaluation rule.  A regfile read (no latency,
 * no guard) at a computed index is not an effect when mdl_index_bound proves the index within the regfile. */
bool mdl_expr_has_effects(const struct mdl_model *m, const struct mdl_expr *e);
/* True and *max if the u32 value of index expression e is at most *max whenever every field it reads holds a
 * value within its width (as decoding gives; fields[] of mdl_eval_bundle and of a simulator's exec are such):
 * constants, unsigned fields narrower than 32 bits (2^width - 1), integer & (either side bounded), | ^ + (both),
 * and c ? a : b (both arms) of pure operands.  False when no bound is found. */
bool mdl_index_bound(const struct mdl_model *m, const struct mdl_expr *e, uint64_t *max);
/* The value of index expression e when it is a constant (an integer literal or a constant expression,
 * mdl_const_eval) into *v: true; false when it is not constant. (evpure.c) */
bool mdl_const_index(const struct mdl_expr *e, uint64_t *v);
/* Number of operands e->a[] of an expression (by kind; CALL: nargs; STATE/SPACE: the index if any). */
int mdl_expr_arity(const struct mdl_expr *e);
/* One lane of a unary / binary operator node (MDL_E_UN, MDL_E_BIN), with the domain chosen from the operand
 * types as runtime/sem.h says: the evaluator and the simulator emitter's constant folding use these. */
uint32_t mdl_sem_unop(const struct mdl_expr *e, uint32_t x);
uint32_t mdl_sem_binop(const struct mdl_model *m, const struct mdl_expr *e, uint32_t x, uint32_t y);
/* The value of table t at code c (MDL_E_TABLE): its numeric entry's value, 0 if none. */
uint32_t mdl_table_value(const struct mdl_table *t, uint32_t c);

/* ---- comparisons and copies ------------------------------------------------------------------ */

/* Copies every state value, write time and the control state (icount, pending jumps/halts, halted)
 * between an evaluator state and a generated simulator (through its descriptor).  The simulator
 * must be for the same model (same states, in order). */
void mdl_evstate_to_sim(const struct mdl_evstate *st, const struct tsr_sim_desc *d, void *sim);
void mdl_evstate_from_sim(struct mdl_evstate *st, const struct tsr_sim_desc *d, void *sim);

/* Compares everything mdl_evstate_to_sim copies, plus the report status, address and message.
 * Returns 0 if equal; else 1 and a readable first difference in report (n bytes), e.g.
 * "ra5 lane 3: evaluator 0x00000001, simulator 0x00000002". */
int mdl_evstate_compare_sim(const struct mdl_evstate *st, const struct tsr_sim_desc *d, void *sim,
                            char *report, size_t n);
/* The same between two evaluator states of one model ("a"/"b" in the report), forwards included. */
int mdl_evstate_compare(const struct mdl_evstate *a, const struct mdl_evstate *b, char *report, size_t n);

#endif
