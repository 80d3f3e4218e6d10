/* The VLIW bundle packer (docs/pack.md): a program of single operations in program order, one per
 * line in the target's assembly syntax, becomes bundled assembly.  Target-independent: the legality of
 * a bundle is decided by the target's own assembler (the combined bundle text must assemble); the
 * dependency facts (what each operation reads and writes, with latencies) come from a per-target
 * effects model (struct tsr_pack_model; the QPU's is runtime/pack_qpu.c).
 *
 * Input semantics are sequential: a branch or thread end takes effect after the operation that
 * precedes it, and the packer fills its delay slots (docs/pack.md "Input").  Every error is reported
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

/* ---- per-target effects model ------------------------------------------------------------------ */
#define TSR_PACK_MAX_EFF 64

/* One resource read or written by an operation.  res: a target-defined number < model->nres.
 * lat (writes): bundles from the writer to the first bundle that may read the new value (1 = the next
 * bundle).  Ordering-only resources (FIFOs, peripherals) are written by every access. */
struct tsr_pack_eff { uint16_t res; uint8_t write; uint8_t lat; };

enum tsr_pack_ctl { TSR_PACK_CTL_NONE, TSR_PACK_CTL_JUMP, TSR_PACK_CTL_END, TSR_PACK_CTL_OPAQUE };

struct tsr_pack_info {
    int neff;
    struct tsr_pack_eff eff[TSR_PACK_MAX_EFF];
    uint32_t bundle_res;  /* resources of which a bundle holds at most one use (bit mask) */
    int ctl;              /* enum tsr_pack_ctl */
    int delay;            /* JUMP/END: delay slots */
    const char *error;    /* non-NULL: the operation can never be placed legally (the message) */
};

struct tsr_pack_model {
    const char *target;   /* target name */
    int nres;
    /* Fills *out for a decoded instruction (t->inst_size bytes) holding one operation (or a pinned
     * pair).  Returns 0. */
    int (*classify)(const struct tsr_target *t, const void *inst, struct tsr_pack_info *out);
};

/* The model of target t, or NULL if the packer does not know t. */
const struct tsr_pack_model *tsr_pack_model_for(const struct tsr_target *t);

/* ---- packing ------------------------------------------------------------------------------------ */
struct tsr_pack_block_stat {
    unsigned line;          /* source line of the block's first operation (0: none) */
    unsigned nops;          /* operations (input lines) */
    unsigned bundles;       /* bundles emitted */
    unsigned lower;         /* lower bound: max(slot-resource bound, latency-weighted critical path) */
};
struct tsr_pack_stats {
    unsigned nops, nbundles, lower, nblocks;
    struct tsr_pack_block_stat *blocks;   /* nblocks entries, malloc'd (free with tsr_pack_stats_free) */
};
void tsr_pack_stats_free(struct tsr_pack_stats *s);

/* Packs the program (len bytes of assembly text; path for diagnostics) for target t and appends the
 * bundled assembly to out.  st may be NULL.  Returns 0, or -1 after reporting every error through d
 * (unknown operations, operands that do not fit, operations that can never be placed). */
int tsr_pack_text(const struct tsr_target *t, const char *path, const char *text, size_t len,
                  struct tsr_buf *out, struct tsr_pack_stats *st, struct tsr_diag *d);

/* ---- unbundling --------------------------------------------------------------------------------- */
/* Splits a bundled program (n instructions of t->nwords words at w, first at byte address base) into
 * one operation per line, in an order with the same meaning under the packer's sequential input
 * semantics: branch and thread-end delay slots move before their control operation.  Bundles whose
 * parts cannot be separated (they exchange values, share a signal, or carry raw field overrides) stay
 * one line; *pinned counts them.  Returns 0, or -1 with a diagnostic (a delay slot that depends on
 * its branch, a label inside delay slots). */
int tsr_unbundle(const struct tsr_target *t, const uint32_t *w, size_t n, uint64_t base,
                 struct tsr_buf *out, unsigned *pinned, struct tsr_diag *d);

#endif
