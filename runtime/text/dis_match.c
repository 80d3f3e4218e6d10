/* The exactness proof's text-only matcher (dis_px.h): the assembler's matcher (asm_engine.c) without fields,
 * asked whether a choice the assembler tries before the printed one can consume the rest of a bundle part
 * (dis_exact.c).  Fields only ever remove matches, so "cannot" here is a proof; "can" proves nothing. */
#include <string.h>

#include "asm_match.h"
#include "dis_px.h"

_Static_assert(TSR_DIS_NMEMO == 256 && TSR_DIS_NFAIL == 64, "tsr_dis_names_memo hashes to 8 bits, op_rest to 6");

#define MAX_NAMES 72         /* names of a table that can end along the text (asm_engine.c table_hole) */

/* The names of table T that the assembler accepts at pos (asm_engine.c table_hole): their lengths and codes.
 * Returns the count, or -1 when there are more than MAX_NAMES (the assembler then drops some). */
static int names_at(const struct px *P, const struct tsr_tc_part *p, uint32_t pos, uint32_t *len, uint32_t *code)
{
    const struct tsr_tc_isa *isa = P->isa;
    const struct tsr_tc_table *T = &isa->tables[p->arg];
    if (!T->nnames)
        return 0;
    uint32_t avail = P->lim - pos;
    unsigned maxl = T->maxlen < avail ? T->maxlen : avail, nc = 0;
    const struct tsr_tc_trie *n = &isa->tries[T->trie];
    for (unsigned L = 0;; L++) {
        if (n->term) {
            bool cut = p->bound && L && tsr_asm_isident(P->s[pos + L - 1]) && pos + L < P->lim &&
                       tsr_asm_isident(P->s[pos + L]);
            if (!cut) {
                if (nc == MAX_NAMES)
                    return -1;
                len[nc] = L, code[nc++] = n->code;
            }
        }
        if (L >= maxl || !n->nkid)
            break;
        unsigned char ch = (unsigned char)P->s[pos + L];
        if (L == 0 && ch < 128) {   /* the root's children by first character */
            uint32_t r = P->x->root[p->arg * 128u + ch];
            if (!r)
                break;
            n = &isa->tries[r];
            continue;
        }
        const struct tsr_tc_trie *k = &isa->tries[n->kid];
        unsigned lo = 0, hi = n->nkid;
        while (lo < hi) {
            unsigned mid = (lo + hi) / 2;
            if (k[mid].ch < ch)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == n->nkid || k[lo].ch != ch)
            break;
        n = &k[lo];
    }
    return (int)nc;
}

/* names_at through the bundle's memo (the same table is looked up at the same place by several operand
 * alternatives): *len and *code point at the answer, which stays there for the rest of the bundle. */
int tsr_dis_names_memo(struct px *P, const struct tsr_tc_part *p, uint32_t pos, const uint32_t **len,
                       const uint32_t **code)
{
    struct tsr_dis_exact *x = P->x;
    uint32_t key = (uint32_t)p->arg << 1 | p->bound;
    uint32_t h = (key * 0x9e3779b1u ^ pos * 0x85ebca6bu) >> 24;   /* 8 bits: TSR_DIS_NMEMO */
    struct tsr_dis_names *m = NULL;
    for (unsigned i = 0; i < TSR_DIS_NPROBE; i++) {
        struct tsr_dis_names *e = &x->memo[(h + i) & (TSR_DIS_NMEMO - 1)];
        if (e->gen != x->mgen) {
            m = e;   /* free: the place is not in the memo */
            break;
        }
        if (e->key == key && e->pos == pos) {
            *len = e->len, *code = e->code;
            return e->n;
        }
    }
    if (!m)
        return -1;   /* no free entry near: unknown (the callers then prove nothing) */
    uint32_t l[MAX_NAMES], c[MAX_NAMES];
    int n = names_at(P, p, pos, l, c);
    m->key = key, m->pos = pos, m->gen = x->mgen, m->n = n;
    if (n > TSR_DIS_NNAMES)
        m->n = n = -1;   /* not kept: taken as unknown (the callers then prove nothing) */
    if (n > 0) {
        memcpy(m->len, l, (size_t)n * sizeof *l);
        memcpy(m->code, c, (size_t)n * sizeof *c);
    }
    *len = m->len, *code = m->code;
    return n;
}

/* asm_engine.c table_hole: does numeric entry nu accept the value v? */
bool tsr_dis_num_ok(const struct tsr_tc_num *nu, const struct tsr_asm_val *v)
{
    if (nu->is_float) {
        float fv = (float)(v->fl ? v->d : 0.0);
        uint32_t bits;
        memcpy(&bits, &fv, 4);
        return v->fl && bits == nu->val;
    }
    return tsr_asm_int_in(v, INT32_MIN, (int64_t)UINT32_MAX) && (uint32_t)v->i == nu->val;
}

int tsr_dis_expr_at(const struct px *P, uint32_t pos, size_t *e, struct tsr_asm_val *v)
{
    size_t ep, el;
    const char *err;
    return tsr_asm_expr(P->s, pos, P->lim, NULL, e, v, &err, &ep, &el);
}

/* asm_engine.c number_hole for a `{FIELD}` hole: the value stored, or false when the hole fails. */
bool tsr_dis_int_value(const struct tsr_tc_field *fd, const struct tsr_asm_val *v, int64_t *x)
{
    bool u = false;
    if (v->fl) {
        if (fd->width < 32)
            return false;
        float fv = (float)v->d;
        uint32_t bits;
        memcpy(&bits, &fv, 4);
        *x = bits;
    } else {
        *x = v->i;
        u = v->u;
    }
    return am_fits(fd, *x, u);
}

/* Under a ban (dis_pin.c), the rest [p, end) of an op's template from pos, after one of its operands: the
 * places that fail are remembered for the question (x->fgen), so the rest of the template is matched once per
 * place, not once per way of reading the operands before it.  (Without a ban the matcher stops at the first way
 * through; with one it must try them all.) */
static bool op_rest(struct px *P, const struct tsr_tc_part *p, const struct tsr_tc_part *end, uint32_t pos)
{
    struct tsr_dis_exact *x = P->x;
    uint32_t pi = (uint32_t)(p - P->isa->parts), ei = (uint32_t)(end - P->isa->parts);
    struct tsr_dis_failm *m = &x->fail[((pi * 0x9e3779b1u) ^ (pos * 0x85ebca6bu)) >> 26];   /* 6 bits: TSR_DIS_NFAIL */
    if (m->gen == x->fgen && m->p == pi && m->end == ei && m->pos == pos)
        return false;
    if (tsr_dis_possible(P, p, end, pos, NULL, false))
        return true;
    *m = (struct tsr_dis_failm){x->fgen, pi, ei, pos};
    return false;
}

/* Can parts [p, end) followed by the continuation k match the text from pos to the end of the part, fields
 * aside?  true also when the step budget is spent (then nothing is proven). */
bool tsr_dis_possible(struct px *P, const struct tsr_tc_part *p, const struct tsr_tc_part *end, uint32_t pos,
                      const struct tsr_dis_kont *k, bool open)
{
    const struct tsr_tc_isa *isa = P->isa;
    if (++P->x->steps > TSR_DIS_BUDGET)
        return true;
    for (; p < end; p++) {
        uint32_t q = ws(P, pos), e;
        switch (p->kind) {
        case TSR_TC_TEXT:
            if (!lit(P, p->text, p->len, p->bound, q, &e))
                return false;
            pos = e;
            break;
        case TSR_TC_SPACE:
            if (!space_ok(P, pos, q))
                return false;
            pos = q;
            break;
        case TSR_TC_TABLE: {
            const struct tsr_tc_table *T = &isa->tables[p->arg];
            const uint32_t *len, *code;
            int nn = tsr_dis_names_memo(P, p, q, &len, &code);
            if (nn < 0)
                return true;
            bool ban = p->field == P->ban_field;
            uint64_t bm = ban ? tsr_bits_mask(isa->fields[p->field].width) : 0;   /* asm_engine.c bind masks */
            for (int i = 0; i < nn; i++)
                if ((!ban || (code[i] & bm) == P->ban_val) && tsr_dis_possible(P, p + 1, end, q + len[i], k, open))
                    return true;
            if (T->nnums) {
                struct tsr_asm_val v;
                size_t ee;
                if (tsr_dis_expr_at(P, q, &ee, &v) > 0)
                    for (uint32_t i = 0; i < T->nnums; i++) {
                        const struct tsr_tc_num *nu = &isa->nums[T->num_first + i];
                        if ((!ban || (nu->code & bm) == P->ban_val) && tsr_dis_num_ok(nu, &v))
                            return tsr_dis_possible(P, p + 1, end, (uint32_t)ee, k, open);
                    }
            }
            return false;
        }
        case TSR_TC_INT:
        case TSR_TC_LABEL: {
            struct tsr_asm_val v;
            size_t ee;
            int64_t x;
            if (tsr_dis_expr_at(P, q, &ee, &v) <= 0)
                return false;
            if (p->kind == TSR_TC_INT && (!tsr_dis_int_value(&isa->fields[p->field], &v, &x) ||
                                          (p->field == P->ban_field &&
                                           ((uint64_t)x & tsr_bits_mask(isa->fields[p->field].width)) != P->ban_val)))
                return false;
            if (p->kind == TSR_TC_LABEL && v.fl)
                return false;
            pos = (uint32_t)ee;   /* a label's range depends on the address: taken as possible */
            break;
        }
        case TSR_TC_OPT:
            if (lit(P, p->text, p->len, p->bound, q, &e) &&
                !(P->ban_field != TSR_DIS_NOBAN && tsr_dis_binds_other(isa, p->cond, p->ncond, P->ban_field, P->ban_val)) &&
                tsr_dis_possible(P, p + 1, end, e, k, open))
                return true;
            break;   /* absent: pos unchanged, as in the assembler */
        case TSR_TC_OPND: {
            const struct tsr_tc_opnd *o = &isa->opnds[p->arg];
            struct tsr_dis_kont rest = {p + 1, end, k};
            for (uint32_t i = 0; i < o->nalt; i++) {
                const struct tsr_tc_alt *alt = &isa->alts[o->alt + i];
                if (P->ban_field != TSR_DIS_NOBAN &&
                    tsr_dis_binds_other(isa, alt->cond, alt->ncond, P->ban_field, P->ban_val))
                    continue;
                if (tsr_dis_possible(P, isa->parts + alt->part, isa->parts + alt->part + alt->npart, q, &rest, open))
                    return true;
            }
            return false;
        }
        }
    }
    if (k) {
        if (P->ban_field != TSR_DIS_NOBAN && !k->next && !open)
            return op_rest(P, k->p, k->end, pos);
        return tsr_dis_possible(P, k->p, k->end, pos, k->next, open);
    }
    return open || ws(P, pos) == P->lim;
}
