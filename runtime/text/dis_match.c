/* The exactness proof's text-only matcher (dis_px.h): the assembler's matcher (asm_engine.c) without fields,
 * asked whether a choice the assembler tries before the printed one can consume the rest of a bundle part
 * (dis_exact.c).  Fields only ever remove matches, so "cannot" here is a proof; "can" proves nothing. */
#include <string.h>

#include "asm_match.h"
#include "dis_px.h"

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
 * alternatives): *len and *code point at the answer. */
int tsr_dis_names_memo(struct px *P, const struct tsr_tc_part *p, uint32_t pos, const uint32_t **len,
                       const uint32_t **code)
{
    struct tsr_dis_exact *x = P->x;
    uint32_t key = (uint32_t)p->arg << 1 | p->bound;
    for (unsigned i = 0; i < x->nmemo; i++) {
        struct tsr_dis_names *m = &x->memo[i];
        if (m->key == key && m->pos == pos) {
            *len = m->len, *code = m->code;
            return m->n;
        }
    }
    struct tsr_dis_names *m = &x->memo[x->nmemo < TSR_DIS_NMEMO ? x->nmemo++ : (x->nmemo_next++ % TSR_DIS_NMEMO)];
    uint32_t l[MAX_NAMES], c[MAX_NAMES];
    int n = names_at(P, p, pos, l, c);
    m->key = key, m->pos = pos, m->n = n;
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
            for (int i = 0; i < nn; i++)
                if (tsr_dis_possible(P, p + 1, end, q + len[i], k, open))
                    return true;
            if (T->nnums) {
                struct tsr_asm_val v;
                size_t ee;
                if (tsr_dis_expr_at(P, q, &ee, &v) > 0)
                    for (uint32_t i = 0; i < T->nnums; i++)
                        if (tsr_dis_num_ok(&isa->nums[T->num_first + i], &v))
                            return tsr_dis_possible(P, p + 1, end, (uint32_t)ee, k, open);
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
            if (p->kind == TSR_TC_INT && !tsr_dis_int_value(&isa->fields[p->field], &v, &x))
                return false;
            if (p->kind == TSR_TC_LABEL && v.fl)
                return false;
            pos = (uint32_t)ee;   /* a label's range depends on the address: taken as possible */
            break;
        }
        case TSR_TC_OPT:
            if (lit(P, p->text, p->len, p->bound, q, &e) && tsr_dis_possible(P, p + 1, end, e, k, open))
                return true;
            break;   /* absent: pos unchanged, as in the assembler */
        case TSR_TC_OPND: {
            const struct tsr_tc_opnd *o = &isa->opnds[p->arg];
            struct tsr_dis_kont rest = {p + 1, end, k};
            for (uint32_t i = 0; i < o->nalt; i++) {
                const struct tsr_tc_alt *alt = &isa->alts[o->alt + i];
                if (tsr_dis_possible(P, isa->parts + alt->part, isa->parts + alt->part + alt->npart, q, &rest, open))
                    return true;
            }
            return false;
        }
        }
    }
    if (k)
        return tsr_dis_possible(P, k->p, k->end, pos, k->next, open);
    return open || ws(P, pos) == P->lim;
}
