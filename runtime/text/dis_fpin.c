/* The exactness proof's questions "is a field pinned by a bundle part?" asked of the facts (dis_spin.c) from the
 * walk of one bundle (dis_exact.c): which alternatives the parts printed (from the printed path's events, for the
 * parts the walk has not reached yet), whether a value is pinned by every part's leading or anchored operands, an
 * early alternative's leading table hole refuted so, and a number printed after entries of the same value shown to
 * read back because those entries are pinned (dis_px.h). */
#include <stdlib.h>
#include <string.h>

#include "asm_match.h"
#include "dis_px.h"

/* The number of events the printed path gives template part p, its event at ie, within [ie, iend) (0: they run
 * past it, or nest too deep): one, and for an operand those of its printed alternative's parts. */
static size_t ev_span(const struct px *P, const struct tsr_tc_part *p, size_t ie, size_t iend, unsigned depth)
{
    if (ie >= iend)
        return 0;
    if (p->kind != TSR_TC_OPND)
        return 1;
    const struct tsr_tc_opnd *o = &P->isa->opnds[p->arg];
    if (depth >= 8 || P->ev[ie].what >= o->nalt)
        return 0;
    const struct tsr_tc_alt *al = &P->isa->alts[o->alt + P->ev[ie].what];
    size_t n = 1;
    for (uint32_t i = 0; i < al->npart; i++) {
        const struct tsr_tc_part *q = P->isa->parts + al->part + i;
        size_t m = q->kind != TSR_TC_OPND ? ie + n < iend : ev_span(P, q, ie + n, iend, depth + 1);   /* as ev_span */
        if (!m)
            return 0;
        n += m;
    }
    return n;
}

/* The alternatives printed at the op-level operands of bundle part k (lalt[i] for template part i; 0xff: not an
 * operand, or the one whose event is skip), from its events (a part whose events do not fit its template: all
 * 0xff; the walk fails on it, which proves nothing).  Whether an operand's event was skip. */
static bool part_alts(const struct px *P, size_t k, size_t skip, uint8_t *lalt)
{
    const struct tsr_tc_isa *isa = P->isa;
    const struct tsr_tc_op *op = &isa->ops[P->pop[k]];
    size_t ie = P->sp[k].first, iend = k + 1 < P->np ? P->sp[k + 1].first : P->nev;
    bool seen = false;
    memset(lalt, 0xff, TSR_DIS_LALT);
    for (uint32_t i = 0; i < op->npart; i++) {
        const struct tsr_tc_part *p = isa->parts + op->part + i;
        size_t n = p->kind != TSR_TC_OPND ? ie < iend : ev_span(P, p, ie, iend, 0);   /* as ev_span */
        if (!n) {
            memset(lalt, 0xff, TSR_DIS_LALT);
            return false;
        }
        if (p->kind == TSR_TC_OPND && ie == skip)
            seen = true;   /* the operand being decided: left out */
        else if (p->kind == TSR_TC_OPND && i < TSR_DIS_LALT)
            lalt[i] = (uint8_t)P->ev[ie].what;
        ie += n;
    }
    return seen;
}

/* The alternatives tsr_dis_spin_ops asks for an alternative of the op-level operand of the current part whose
 * event is P->top, into lalt (P->np rows): the parts before it as recorded (P->lalt), the current part and the
 * later ones from their events (the walk has not reached them yet), the operand being decided left out (when its
 * event is not P->top, the current part is left out entirely). */
void tsr_dis_ops_lalt(struct px *P, uint8_t (*lalt)[TSR_DIS_LALT])
{
    size_t cur = P->cur;
    memcpy(lalt, P->lalt, cur * sizeof *lalt);
    if (P->top == SIZE_MAX || !part_alts(P, cur, P->top, lalt[cur]))
        memset(lalt[cur], 0xff, TSR_DIS_LALT);
    for (size_t k = cur + 1; k < P->np; k++)
        part_alts(P, k, SIZE_MAX, lalt[k]);
}

void tsr_dis_lead_alts(const struct px *P, uint8_t *pw)
{
    for (size_t k = 0; k < P->np; k++)
        pw[k] = P->plead[k] != SIZE_MAX && P->ev[P->plead[k]].what < 0xff ? (uint8_t)P->ev[P->plead[k]].what : 0xff;
}

/* Is FIELD pinned to values other than each of codes[0..n) by the facts: for each, some part's leading operand
 * (tsr_dis_spin, as tsr_dis_spin_alt asks it) or anchored operand (tsr_dis_spin_ops_field) can only be read
 * binding another value?  The choice being decided lies in the op-level operand of the current part whose event
 * is P->top (SIZE_MAX: none; then the current part is not asked), which is left out. */
bool tsr_dis_pinned_facts(struct px *P, unsigned field, const uint64_t *codes, unsigned n)
{
    const struct tsr_tc_isa *isa = P->isa;
    uint64_t own = P->f[field] & tsr_bits_mask(isa->fields[field].width);
    uint8_t pw[MAX_PARTS], mine[MAX_PARTS][TSR_DIS_LALT];
    const uint8_t (*lalt)[TSR_DIS_LALT] = P->olalt;   /* NULL: worked out when first needed (below) */
    tsr_dis_lead_alts(P, pw);
    bool lead = P->plead[P->cur] == P->top;
    for (unsigned i = 0; i < n; i++) {
        if (codes[i] == own)
            return false;   /* the printed parts read the instruction's value */
        bool pinned = false;
        for (size_t k = 0; k < P->np && !pinned; k++) {
            if (k == P->cur && (lead || P->top == SIZE_MAX))
                continue;   /* the operand being decided (or, not known, the whole part) */
            uint32_t t0 = k > P->cur ? P->sp[P->cur].t + 1 : TSR_DIS_SPIN_SELF;
            pinned = tsr_dis_spin(isa, P->x, P->fmt, P->pop[k], t0, pw[k], field, codes[i], P->f) == TSR_DIS_SPIN_PINS;
        }
        if (pinned)
            continue;
        if (!lalt) {
            tsr_dis_ops_lalt(P, mine);
            lalt = (const uint8_t (*)[TSR_DIS_LALT])mine;
        }
        if (!tsr_dis_spin_ops_field(isa, P->x, P->fmt, P->np, P->pop, P->sp, P->cur, lalt, field, codes[i], P->f))
            return false;
    }
    return true;
}

/* refuted() through the leading table hole of alt, an alternative of the op-level operand being decided (its
 * printed alternative pa; NULL: nested, not asked): every reading of alt there binds the hole's field to one of the
 * codes tsr_dis_lead_codes gives (what pa printed begins with a name), and for each of them some part is read only
 * with another value, by the facts (the parts' leading operands: tsr_dis_spin, as tsr_dis_spin_alt asks them; their
 * anchored operands: tsr_dis_spin_ops_field).  `ror ra16, vpm, ra20`: `vpm` is a name of both regfile tables; read
 * from regfile A it binds raddr_a = 48, but the anchored `ra20` can only be read from regfile A with raddr_a = 20
 * (or 2, `ra2` being a prefix of it). */
bool tsr_dis_hole_refuted(struct px *P, const struct tsr_tc_alt *alt, const struct tsr_tc_alt *pa)
{
    uint64_t codes[8];
    unsigned n = pa ? tsr_dis_lead_codes_kept(P->x, alt, pa, P->f, codes, 8) : 0;
    return n && tsr_dis_pinned_facts(P, P->isa->parts[alt->part].field, codes, n);
}

/* A table hole printed as a number that the reader reads alone (step st of kind S_NUMROW, or S_TAB printed last in
 * its part), whose code's row says no only because numeric entries before it accept the same value (-14: small
 * immediate code 18 before the printed code 50): as num_run (dis_num.c (b): no name can start the number, which
 * reads back whole), and every entry before the printed one that accepts its value is pinned to another value by
 * the facts (pinned_by_facts: the rotation `>> 2` binds raddr_b = 50), so the assembler's paths through them fail
 * and it backtracks to the printed one.  P->top: as for table_hole.  Binds the field when it shows that. */
bool tsr_dis_num_pinned(struct px *P, const struct tsr_dis_step *st, const struct tsr_dis_ev *ev)
{
    const struct tsr_tc_isa *isa = P->isa;
    const struct tsr_tc_table *T = &isa->tables[st->p->arg];
    uint64_t c = P->f[st->field];
    unsigned w = isa->fields[st->field].width;
    const struct tsr_tc_print *pr = tsr_dis_print_of(isa, st->p->arg, c);
    char b[48];
    int n = pr && ev->pos < ev->end && !(w < 64 && c >> w) ? tsr_dis_num_text(pr, b) : -1;
    if (n <= 0)
        return false;
    if (T->nnames) {   /* names_at finds a name only along a child of the root, or the empty name */
        const struct tsr_tc_trie *r = &isa->tries[T->trie];
        if (r->term)
            return false;
        for (uint32_t i = 0; i < r->nkid; i++)
            if (isa->tries[r->kid + i].ch == (uint8_t)b[0])
                return false;
    }
    struct tsr_asm_val v;
    size_t e, ep, el;
    const char *err;
    if (tsr_asm_expr(b, 0, (size_t)n, NULL, &e, &v, &err, &ep, &el) <= 0 || e != (size_t)n)
        return false;
    uint64_t before[8];
    unsigned nb = 0;
    for (uint32_t i = 0; i < T->nnums; i++) {
        const struct tsr_tc_num *nu = &isa->nums[T->num_first + i];
        if (!tsr_dis_num_ok(nu, &v))
            continue;
        if (nu->code == c) {
            if (!nb || !tsr_dis_pinned_facts(P, st->field, before, nb))
                return false;
            P->x->bound[st->field] = 1;
            return true;
        }
        if (nb == sizeof before / sizeof *before)
            return false;
        before[nb++] = nu->code & tsr_bits_mask(w);
    }
    return false;
}

