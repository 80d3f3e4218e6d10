/* The ops the exactness proof tries on a part's text, per slot, op and printed alternatives (dis_cand.h). */
#include <stdlib.h>
#include <string.h>

#include "dis_cand.h"
#include "dis_exact.h"

/* The set itself, from the facts (no text). */
static uint64_t compute(struct tsr_dis_static *st, unsigned slot, unsigned before, unsigned printed, bool alts,
                        const uint8_t *lalt)
{
    const struct tsr_tc_isa *isa = st->isa;
    const struct tsr_tc_slot *S = &isa->slots[slot];
    uint64_t m = 0;
    for (uint32_t i = 0; i < S->nop && i < 64; i++) {
        unsigned opi = isa->idx[S->op + i];
        /* tsr_dis_op_pair first: NEVER there is NEVER for every choice of alternatives, and it is one byte
         * per pair of ops, so tsr_dis_op_alts is asked only for the pairs it leaves open */
        if (opi < before && isa->ops[opi].slot == slot && tsr_dis_op_pair(st, opi, printed) != TSR_DIS_NEVER &&
            (!alts || tsr_dis_op_alts(st, opi, printed, lalt) != TSR_DIS_NEVER))
            m |= (uint64_t)1 << i;
    }
    return m;
}

uint64_t tsr_dis_cands(struct tsr_dis_cands *c, struct tsr_dis_static *st, unsigned slot, unsigned before,
                       unsigned printed, bool alts, const uint8_t *lalt)
{
    if (before > UINT16_MAX || printed >= UINT16_MAX)
        return compute(st, slot, before, printed, alts, lalt);
    uint64_t la[2] = {UINT64_MAX, UINT64_MAX};
    uint16_t pr = (uint16_t)printed;
    if (alts)   /* only tsr_dis_op_alts reads the printed alternatives */
        memcpy(la, lalt, sizeof la);
    uint64_t h = ((uint64_t)slot << 32 | (uint64_t)before << 16 | pr) * 0x9e3779b97f4a7c15u;
    h = (h ^ la[0]) * 0xff51afd7ed558ccdu;
    h = (h ^ la[1]) * 0xc4ceb9fe1a85ec53u;
    if (!c->e) {
        c->e = calloc(TSR_DIS_CAND, sizeof *c->e);
        if (!c->e)
            abort();
    }
    struct tsr_dis_cand *e = &c->e[(h >> 40) & (TSR_DIS_CAND - 1)];
    if (e->used && e->slot == slot && e->before == before && e->printed == pr && e->alts == alts &&
        e->lalt[0] == la[0] && e->lalt[1] == la[1])
        return e->mask;
    uint64_t m = compute(st, slot, before, printed, alts, lalt);
    *e = (struct tsr_dis_cand){{la[0], la[1]}, m, slot, (uint16_t)before, pr, alts, 1};
    return m;
}

void tsr_dis_cands_free(struct tsr_dis_cands *c)
{
    free(c->e);
    c->e = NULL;
}
