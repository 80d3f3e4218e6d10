/* The ops the exactness proof must try on a bundle part's text when it shows that the assembler takes no op
 * before the printed one (dis_exact.c slot_possible), kept per thread (dis_cand.c).  Private to runtime/text/:
 * used by dis_exact.c only.
 *
 * For a slot, the op the assembler's candidate list stops at (`before`), the printed op and the alternatives
 * printed at its template's operand parts (dis_exact.h lalt), the answer is the set of the slot's ops that the
 * description alone does not rule out: those of lower index than `before` whose slot is this one, for which
 * tsr_dis_op_pair (with the printed op) is not NEVER and, when asked (`alts`), tsr_dis_op_alts is not NEVER.
 * It depends on nothing else (the facts are those of dis_static.c, decided once per isa), so it is computed
 * once per key; the text-only matcher then runs on these ops alone.  A direct-mapped table of TSR_DIS_CAND entries, allocated on first use.
 */
#ifndef TSR_DIS_CAND_H
#define TSR_DIS_CAND_H

#include <stdbool.h>
#include <stdint.h>

#define TSR_DIS_CAND 8192   /* entries (a power of two), 40 bytes each */

struct tsr_dis_cand {
    uint64_t lalt[2];   /* the printed alternatives (all 0xff when alts is false) */
    uint64_t mask;      /* bit i: op isa->idx[slot's op + i] is to be tried on the text */
    uint32_t slot;
    uint16_t before, printed;
    uint8_t alts, used;
};

struct tsr_dis_cands { struct tsr_dis_cand *e; };

struct tsr_dis_static;

/* The set above for slot `slot` (its op count at most 64), as a mask over the slot's ops in order.  before:
 * an op index, or TSR_TC_NO_OP (all of them); lalt: TSR_DIS_LALT bytes.  Aborts when memory runs out. */
uint64_t tsr_dis_cands(struct tsr_dis_cands *c, struct tsr_dis_static *st, unsigned slot, unsigned before,
                       unsigned printed, bool alts, const uint8_t *lalt);
void tsr_dis_cands_free(struct tsr_dis_cands *c);

#endif
