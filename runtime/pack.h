/* The VLIW bundle packer (docs/pack.md): a program of single operations in program order, one per
 * line in the target's assembly syntax, becomes bundled assembly.  Target-independent and generated in
 * effect: every fact comes from the description through the target descriptor -- whether a bundle is
 * encodable (the target's assembler: slots, read ports, small immediates, ws), what each operation reads
 * and writes (the generated validator's events), latencies (`latency` rules), the order of FIFOs and
 * peripherals (`order` classes), hazards and resources (the validator itself, consulted for every bundle
 * the packer forms and run over the whole output).
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
 * bundled assembly to out.  st may be NULL.  Returns 0, or -1 after reporting every error through d as
 * `path:line:col: error: ...` (unknown operations, operands that do not fit, an operation that breaks a
 * rule by itself, a target without a validator description); nothing is appended on error. */
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
