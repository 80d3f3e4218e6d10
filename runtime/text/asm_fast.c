/* Per-isa tables and helpers that keep the bundle assembler (asm_engine.c) from work that cannot change its
 * outcome (docs/asm.md "Speed"): which operand alternatives can be refuted by their own conditions before
 * their text is matched (am_alt_refuted, asm_match.h), the ops a part's leading identifier can name (kept per
 * identifier across bundles), and the trie walk that finds the names of a table at a position. */
#include <stdlib.h>
#include <string.h>

#include "asm_match.h"

/* Does the template parts[first .. first+n) hold an expression (a number hole or a table with numbers) or an
 * operand?  Matching such a template may set env or bind through an inner alternative's conditions. */
static bool has_expr_or_opnd(const struct tsr_tc_isa *isa, uint32_t first, uint32_t n)
{
    for (uint32_t i = first; i < first + n; i++) {
        const struct tsr_tc_part *p = &isa->parts[i];
        if (p->kind == TSR_TC_INT || p->kind == TSR_TC_LABEL || p->kind == TSR_TC_OPND ||
            (p->kind == TSR_TC_TABLE && isa->tables[p->arg].nnums))
            return true;
    }
    return false;
}

void am_fast_init(struct tsr_asm *a)
{
    const struct tsr_tc_isa *isa = a->isa;
    uint32_t nalt = 0;
    for (unsigned o = 0; o < isa->nopnds; o++)
        if (isa->opnds[o].alt + isa->opnds[o].nalt > nalt)
            nalt = isa->opnds[o].alt + isa->opnds[o].nalt;
    a->alt_pure = am_xrealloc(NULL, nalt + 1);
    memset(a->alt_pure, 0, nalt + 1);
    for (uint32_t i = 0; i < nalt; i++) {
        const struct tsr_tc_alt *al = &isa->alts[i];
        bool binds = false;
        for (uint32_t c = 0; c < al->ncond; c++)
            binds |= isa->conds[al->cond + c].kind == TSR_TC_BIND;
        a->alt_pure[i] = binds && !has_expr_or_opnd(isa, al->part, al->npart);
    }
    a->kbuf = am_xrealloc(NULL, (isa->nops + 1) * sizeof *a->kbuf);
    for (unsigned c = 0; c < 128; c++)
        a->chbit[c][c / 64] = (uint64_t)1 << (c % 64);
    a->slotfmt = am_xrealloc(NULL, (isa->nslots + 1) * sizeof *a->slotfmt);
    memset(a->slotfmt, 0, (isa->nslots + 1) * sizeof *a->slotfmt);
    for (unsigned f = 0; f < isa->nformats && f < 64; f++)
        for (uint32_t t = 0; t < isa->formats[f].nslot; t++)
            a->slotfmt[isa->idx[isa->formats[f].slot + t]] |= (uint64_t)1 << f;
}

void am_fast_free(struct tsr_asm *a)
{
    free(a->alt_pure);
    free(a->kbuf);
    free(a->slotfmt);
    a->slotfmt = NULL;
    a->alt_pure = NULL;
    a->kbuf = NULL;
}

unsigned am_table_names(const struct tsr_asm *a, unsigned t, uint32_t pos, unsigned maxl, uint32_t cl[72],
                        uint32_t cc[72])
{
    const struct tsr_tc_isa *isa = a->isa;
    const char *s = a->s;
    unsigned nc = 0;
    const struct tsr_tc_trie *n = &isa->tries[isa->tables[t].trie];
    if (n->term)
        cl[nc] = 0, cc[nc++] = n->code;
    unsigned L = 0;
    if (maxl && n->nkid && (unsigned char)s[pos] < 128) {   /* the first character: the root's index */
        uint32_t r = a->root[t * 128u + (unsigned char)s[pos]];
        if (!r) {
            n = NULL;
        } else {
            n = &isa->tries[r];
            L = 1;
            if (n->term)
                cl[nc] = 1, cc[nc++] = n->code;
        }
    }
    for (; n && L < maxl && n->nkid; L++) {
        unsigned char ch = (unsigned char)s[pos + L];
        const struct tsr_tc_trie *k = &isa->tries[n->kid];
        unsigned lo = 0, hi = n->nkid;
        while (hi - lo > 4) {   /* binary search, then a short scan */
            unsigned mid = (lo + hi) / 2;
            if (k[mid].ch <= ch)
                lo = mid;
            else
                hi = mid;
        }
        while (lo < hi && k[lo].ch < ch)
            lo++;
        if (lo == hi || k[lo].ch != ch)
            break;
        n = &k[lo];
        if (n->term) {
            if (nc == 72)
                nc--;   /* names over 70 characters: keep the longest */
            cl[nc] = L + 1, cc[nc++] = n->code;
        }
    }
    return nc;
}


const uint16_t *am_key_ops_memo(struct tsr_asm *a, const char *id, uint32_t run, unsigned c, uint32_t *n)
{
    /* without an identifier (run 0) only the keyless ops fit, whatever c is: one entry, the empty key */
    uint32_t h = 2166136261u;
    for (uint32_t i = 0; i < run && i < KM_LEN; i++)
        h = (h ^ (unsigned char)id[i]) * 16777619u;
    if (run <= KM_LEN) {
        struct keymemo *m = &a->kmemo[(h ^ h >> 16) & (KM_SLOTS - 1)];
        if (m->used && m->len == run && memcmp(m->id, id, run) == 0) {
            *n = m->n;
            return m->ops;
        }
        uint32_t k = am_key_ops(a, id, run, run ? c : 0, a->kbuf);
        if (k <= KM_OPS) {
            m->used = 1;
            m->len = (uint8_t)run;
            m->n = (uint8_t)k;
            memcpy(m->id, id, run);
            memcpy(m->ops, a->kbuf, k * sizeof *m->ops);
        }
        *n = k;
        return a->kbuf;
    }
    *n = am_key_ops(a, id, run, c, a->kbuf);
    return a->kbuf;
}
