/* The VLIW bundle packer (docs/pack.md): a program of single operations in program order, one per
 * line in the target's assembly syntax, becomes bundled assembly.  Target-independent and generated in
 * effect: every fact comes from the description through the target descriptor -- whether a bundle is
 * encodable (the target's assembler: slots, read ports, small immediates, ws), what each operation reads
 * and writes (the generated validator's events), latencies (`latency` rules), the order of FIFOs and
 * peripherals (`order` classes), hazards and resources (the validator itself, consulted for every bundle
 * the packer forms and run over the whole output).
 *
 * Input semantics are sequential: a branch or thread end takes effect after the operation that
 * precedes it, and the packer fills its delay slots; `.delay` operations written after it run in its delay
 * slots, after it has read its operands (docs/pack.md "Input").  Every error is reported
 * as `file:line:col: error: message`.
 */
#ifndef TSR_PACK_H
#define TSR_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tsr_target;
struct tsr_buf;
struct tsr_diag;

/* ---- packing ------------------------------------------------------------------------------------ */
struct tsr_pack_block_stat {
    unsigned line;          /* source line of the block's first operation (0: none) */
    unsigned nops;          /* operations (input lines) */
    unsigned bundles;       /* bundles emitted */
    unsigned lower;         /* lower bound on any schedule of the block (bundles): the larger of `basic` and
                               the shortest schedule of a relaxation (docs/pack.md "Lower bound") */
    unsigned basic;         /* max(slot-resource bound, latency-weighted critical path) */
    bool exact;             /* `lower` is the relaxation's shortest schedule (the search ended in its budget) */
    bool searched;          /* the bundles come from a schedule of the relaxation that the search found
                               (TSR_PACK_SEARCH: shorter than the list scheduler's; lower <= bundles) */
};
struct tsr_pack_stats {
    unsigned nops, nbundles, lower, basic, nblocks;
    unsigned searched;      /* blocks whose bundles come from the search (shorter than list scheduling's) */
    struct tsr_pack_block_stat *blocks;   /* nblocks entries, malloc'd (free with tsr_pack_stats_free) */
    /* (values routed through forwards only, docs/pack.md "Values through forwards"; 0 otherwise) where the
     * bundles go: moves the packer inserted (those filling an empty bundle included), bundles holding no
     * operation of the input (moves only), bundles holding exactly one */
    unsigned moves, moveonly, single;
};
void tsr_pack_stats_free(struct tsr_pack_stats *s);
/* How hard the packer works on each block (docs/pack.md "Algorithm"). */
enum tsr_pack_effort {
    TSR_PACK_SEARCH,        /* the default: list scheduling, then a search for shorter schedules of the
                               block's relaxation, from the list schedule's length less one downwards while
                               one is found within 2,000 bundles tried per length; the shortest whose real
                               bundles assemble and validate is kept */
    TSR_PACK_LIST,          /* list scheduling only: about twice as fast, about 1.1 % more bundles on
                               GPU_FFT (docs/PERFORMANCE.md "Packer speed on GPU_FFT") */
    TSR_PACK_DEEP,          /* as search, and for programs with value names (docs/pack.md "Values through
                               forwards") a search over the scheduler's decisions after its settings: about 15
                               times slower there */
};

/* The widest instruction the packer takes: TSR_PACK_MAX_NWORDS 32-bit words (256 bits).  A wider target is
 * an error at the call (tsr_pack_text, tsr_packer_run, tsr_unbundle: `target 'x' has N-bit instructions: the
 * packer takes at most 256`), never truncated.  Its caches of per-word answers hold instructions of up to 128
 * bits; wider ones are worked out each time. */
#define TSR_PACK_MAX_NWORDS 8

/* Packs the program (len bytes of assembly text; path for diagnostics) for target t and appends the
 * bundled assembly to out.  st may be NULL.  Returns 0, or -1 after reporting every error through d as
 * `path:line:col: error: ...` (unknown operations, operands that do not fit, an operation that breaks a
 * rule by itself, a target without a validator description); nothing is appended on error. */
int tsr_pack_text(const struct tsr_target *t, const char *path, const char *text, size_t len,
                  struct tsr_buf *out, struct tsr_pack_stats *st, struct tsr_diag *d);
/* The scheduler settings the packer of programs with value names tries per program (docs/pack.md "Values through
 * forwards"; each a limit on values waiting, depth or program order, producers of waiting values first; the
 * shortest schedule wins): all of them, or in a build with AddressSanitizer the few that win on the shared corpus
 * of lima programs (its tests then run in bounded time).  A text naming them, e.g. "all 22 scheduler settings". */
const char *tsr_pack_route_settings(void);
/* The same with the effort chosen (tsr_pack_text: TSR_PACK_SEARCH). */
int tsr_pack_text_effort(const struct tsr_target *t, const char *path, const char *text, size_t len,
                         enum tsr_pack_effort effort, struct tsr_buf *out, struct tsr_pack_stats *st,
                         struct tsr_diag *d);

/* ---- the operation-list API (for compilers) --------------------------------------------------------
 * Build a program one operation at a time, pack it, read the bundles back:
 *     struct tsr_packer *p = tsr_packer_new(&qpu_target);
 *     tsr_packer_label(p, "loop");
 *     tsr_packer_op(p, "fadd r0, r1, r2");  tsr_packer_op(p, "fmul r3, r1, r2");
 *     tsr_packer_op(p, "brr.anynz -, r:loop");  tsr_packer_op(p, "thrend");
 *     if (!tsr_packer_run(p, &diag)) use(tsr_packer_words(p), tsr_packer_count(p), tsr_packer_text(p));
 *     tsr_packer_free(p);
 * Operations are in the target's assembly syntax with the packer's sequential meaning (docs/pack.md
 * "Input"); diagnostics name the operation by its number: `<ops>:N:col: error: ...` (N = 1 for the
 * first operation or label added). */
struct tsr_packer;
/* A new, empty program for target t (NULL only if out of memory). */
struct tsr_packer *tsr_packer_new(const struct tsr_target *t);
void tsr_packer_free(struct tsr_packer *p);
/* How hard tsr_packer_run works (default TSR_PACK_SEARCH). */
void tsr_packer_effort(struct tsr_packer *p, enum tsr_pack_effort effort);
/* Appends one operation, or a pinned group (parts joined by "; ": kept in one bundle), or, written
 * `.delay OP`, an operation that runs in the delay slots of the branch or thread end added before it. */
void tsr_packer_op(struct tsr_packer *p, const char *text);
/* Appends a label (a branch target): the next operation starts a basic block. */
void tsr_packer_label(struct tsr_packer *p, const char *name);
/* Packs what was added.  Returns 0, or -1 after reporting every error through d (then the results are
 * empty).  May be called again after more operations are added (it packs the whole list again). */
int tsr_packer_run(struct tsr_packer *p, struct tsr_diag *d);
/* Results of the last successful run: the number of bundles, their words (t->nwords uint32_t each, low
 * word first; branch targets resolved for byte address 0), the bundled assembly text (with labels), and
 * the statistics. */
size_t tsr_packer_count(const struct tsr_packer *p);
const uint32_t *tsr_packer_words(const struct tsr_packer *p);
const char *tsr_packer_text(const struct tsr_packer *p);
const struct tsr_pack_stats *tsr_packer_stats(const struct tsr_packer *p);

/* ---- unbundling --------------------------------------------------------------------------------- */
/* Splits a bundled program (n instructions of t->nwords words at w, first at byte address base; line: the
 * source line of each, or NULL; path names the program in diagnostics) into one operation per line, in an
 * order with the same meaning under the packer's sequential input semantics: each operation of a branch or
 * thread-end delay slot moves before its control operation when it does not depend on it (nor on one that
 * stays); one that does (it sets the flags the branch tests) stays after it as a `.delay` operation
 * (docs/pack.md "Input").
 * Bundles whose parts cannot be separated (they exchange values, share a signal, or carry raw field
 * overrides) stay one line; *pinned counts them.  Returns 0, or -1 with `path:line:col: error: ...` (a label
 * inside delay slots, a branch or thread end in a delay slot). */
int tsr_unbundle(const struct tsr_target *t, const char *path, const uint32_t *w, const unsigned *line, size_t n,
                 uint64_t base, struct tsr_buf *out, unsigned *pinned, struct tsr_diag *d);

#endif
