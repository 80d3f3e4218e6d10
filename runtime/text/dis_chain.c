/* Two rules of the exactness proof that refute an operand alternative tried before the printed one through fields,
 * from the facts, without the text: a field the path has already bound (dis_px.h tsr_dis_bound_refuted, at the end
 * of this file), and a field pinned through a second field (tsr_dis_chain_refuted).
 *
 * The assembler tries an operand alternative j before the printed one; j binds FIELD = v and matches the text,
 * and no bundle part pins FIELD to another value by itself (dis_spin.c).  The path through j still fails when a
 * later part, read with FIELD = v, must bind another field G = w, and some part can only be read binding G to
 * another value: `asr recip, ra61.8d, r2; v8adds t1s.8c, r3, r4` prints dst_add's regfile-B alternative
 * (ws = 1); `recip` is a name of both write tables, so the regfile-A alternative (ws = 0) is tried first.  With
 * ws = 0 the mul destination `t1s.8c` can only be read by the MUL pack alternative (pm = 1: the regfile-A pack
 * needs ws = 1, the others print no pack), and `ra61.8d` can only be read by the regfile-A unpack (pm = 0).
 *
 * Why it is sound.  Every path through j binds FIELD = v (asm_engine.c bind fails at the first disagreeing
 * binding, whatever made it).  Part k (after the current one) is read on such a path by some op of the slots the
 * assembler may take for it (dis_px.h tsr_dis_part_op_next); for each:
 *  - its printed op a begins with literal text and an operand (the leading one), so that operand's text starts
 *    where the printed one does, and it reads there one of its alternatives: the printed one, pw, binds FIELD to
 *    another value (required here), so it is not on the path; an alternative i that binds FIELD to another value
 *    is not either; an alternative that cannot match what pw prints there followed by the rest of a's template
 *    (tsr_dis_alt_ctx, whatever the entries, or tsr_dis_alt_entry for the entries printed) is not read; every
 *    other one binds G = w by its conditions (required here);
 *  - another op b is shown not to match what a prints (tsr_dis_op_alts with pw at the leading operand), or
 *    begins with literal text and an operand every alternative of which binds FIELD to another value or G = w.
 * So every path through j that reads part k binds G = w as well; and tsr_dis_pinned_facts shows that some part
 * can only be read binding G to another value (the same question as for an alternative that binds G = w itself:
 * dis_fpin.c), so no path through j completes.  Only conditions count (an alternative's table holes bind too, but
 * a binding left out only leaves a path open); the op's own conditions are not used (they only remove paths).
 * false proves nothing.
 */
#include "dis_px.h"

/* Do the conditions of alternative al bind g, and only to w? */
static bool binds_to(const struct tsr_tc_isa *isa, const struct tsr_tc_alt *al, uint32_t g, uint64_t w)
{
    bool any = false;
    for (uint32_t d = 0; d < al->ncond; d++) {
        const struct tsr_tc_cond *c = &isa->conds[al->cond + d];
        if (c->kind == TSR_TC_BIND && c->field == g) {
            if ((c->val & tsr_bits_mask(isa->fields[g].width)) != w)
                return false;
            any = true;
        }
    }
    return any;
}

/* The bindings G = w (G != field) that every alternative of op a's leading operand at template index li binds
 * when it is read where alternative pw printed (for the fields f) on a path that binds field = v, as the top
 * comment says: into g[], w[] (at most max), their count; 0 when that is not shown. */
static unsigned forced_binds(struct tsr_dis_static *st, unsigned a, int li, unsigned pw, unsigned field, uint64_t v,
                             const uint64_t *f, uint32_t *g, uint64_t *w, unsigned max)
{
    const struct tsr_tc_isa *isa = st->isa;
    const struct tsr_tc_op *A = &isa->ops[a];
    if (li < 0 || (uint32_t)li >= A->npart)
        return 0;
    const struct tsr_tc_part *p = isa->parts + A->part + li, *end = isa->parts + A->part + A->npart;
    if (p->kind != TSR_TC_OPND)
        return 0;
    const struct tsr_tc_opnd *o = &isa->opnds[p->arg];
    if (pw >= o->nalt)
        return 0;
    const struct tsr_tc_alt *pa = &isa->alts[o->alt + pw];
    if (!tsr_dis_binds_other(isa, pa->cond, pa->ncond, field, v))
        return 0;   /* the printed alternative may be read: it binds the instruction's own values */
    unsigned n = 0;
    bool first = true;
    for (uint32_t i = 0; i < o->nalt; i++) {
        const struct tsr_tc_alt *al = &isa->alts[o->alt + i];
        if (i == pw || tsr_dis_binds_other(isa, al->cond, al->ncond, field, v) ||
            tsr_dis_alt_ctx(st, p, end, i, pw) == TSR_DIS_NEVER ||
            tsr_dis_alt_entry(st, p, end, i, pw, f) == TSR_DIS_NEVER)
            continue;
        if (first) {   /* the first one read: its bindings of other fields are the candidates */
            first = false;
            for (uint32_t d = 0; d < al->ncond && n < max; d++) {
                const struct tsr_tc_cond *c = &isa->conds[al->cond + d];
                if (c->kind == TSR_TC_BIND && c->field != field) {
                    g[n] = c->field;
                    w[n++] = c->val & tsr_bits_mask(isa->fields[c->field].width);
                }
            }
            continue;
        }
        /* keep the candidates this one binds too */
        unsigned m = 0;
        for (unsigned e = 0; e < n; e++)
            if (binds_to(isa, al, g[e], w[e])) {
                g[m] = g[e];
                w[m++] = w[e];
            }
        n = m;
        if (!n)
            return 0;
    }
    return first ? 0 : n;   /* none read at all: part k cannot be read by a with field = v (not used here) */
}

/* Does every alternative of op b's leading operand bind field to another value than v, or g = w? */
static bool lead_binds(const struct tsr_tc_isa *isa, int li, unsigned b, unsigned field, uint64_t v, uint32_t g,
                       uint64_t w)
{
    if (li < 0)
        return false;
    const struct tsr_tc_part *p = isa->parts + isa->ops[b].part + li;
    if (p->kind != TSR_TC_OPND)
        return false;
    const struct tsr_tc_opnd *o = &isa->opnds[p->arg];
    for (uint32_t i = 0; i < o->nalt; i++) {
        const struct tsr_tc_alt *al = &isa->alts[o->alt + i];
        if (!tsr_dis_binds_other(isa, al->cond, al->ncond, field, v) && !binds_to(isa, al, g, w))
            return false;
    }
    return o->nalt > 0;
}

bool tsr_dis_chain_refuted(struct px *P, const struct tsr_tc_alt *alt)
{
    const struct tsr_tc_isa *isa = P->isa;
    struct tsr_dis_exact *x = P->x;
    if (!x->oplead)
        return false;
    uint8_t pw[TSR_DIS_MAXPARTS];
    tsr_dis_lead_alts(P, pw);
    for (uint32_t c = 0; c < alt->ncond; c++) {
        const struct tsr_tc_cond *bc = &isa->conds[alt->cond + c];
        if (bc->kind != TSR_TC_BIND)
            continue;
        unsigned field = bc->field;
        uint64_t v = bc->val & tsr_bits_mask(isa->fields[field].width);
        if (v == (P->f[field] & tsr_bits_mask(isa->fields[field].width)))
            continue;   /* the printed parts read with the instruction's value: nothing forced elsewhere */
        for (size_t k = P->cur + 1; k < P->np; k++) {
            unsigned a = P->pop[k];
            int li = x->oplead[a];
            uint32_t g[8];
            uint64_t w[8];
            unsigned n = forced_binds(&x->st, a, li, pw[k], field, v, P->f, g, w, 8);
            if (!n || li >= TSR_DIS_LALT)
                continue;
            uint8_t lalt[TSR_DIS_LALT];
            for (unsigned i = 0; i < TSR_DIS_LALT; i++)
                lalt[i] = 0xff;
            lalt[li] = pw[k];
            /* the other ops that may read part k: not matching what a prints, or bound the same way */
            struct tsr_dis_opit it = {.t = P->sp[P->cur].t + 1};
            unsigned b;
            while (n && tsr_dis_part_op_next(P, k, &it, &b)) {
                if (b == a || tsr_dis_op_alts(&x->st, b, a, lalt) == TSR_DIS_NEVER)
                    continue;
                unsigned m = 0;
                for (unsigned e = 0; e < n; e++)
                    if (lead_binds(isa, x->oplead[b], b, field, v, g[e], w[e]))
                        g[m] = g[e], w[m++] = w[e];
                n = m;
            }
            for (unsigned e = 0; e < n; e++)
                if (tsr_dis_pinned_facts(P, g[e], &w[e], 1))
                    return true;
        }
    }
    return false;
}

bool tsr_dis_bound_refuted(const struct tsr_tc_isa *isa, const struct tsr_tc_alt *alt, const struct tsr_tc_alt *pa,
                           const uint64_t *f, const uint8_t *bound8, const uint64_t *bound64)
{
#define BOUND(fd) (bound8 ? bound8[fd] != 0 : (bound64[(fd) >> 6] >> ((fd) & 63) & 1) != 0)
    for (uint32_t d = 0; d < alt->ncond; d++) {
        const struct tsr_tc_cond *c = &isa->conds[alt->cond + d];
        uint64_t m = c->kind == TSR_TC_BIND ? tsr_bits_mask(isa->fields[c->field].width) : 0;
        if (c->kind == TSR_TC_BIND && BOUND(c->field) && (c->val & m) != (f[c->field] & m))
            return true;
    }
    /* alt's leading table hole (tsr_dis_lead_codes answers 0 without one): its field must be bound, which is asked
     * first (cheaper than the codes) */
    if (!pa || !alt->npart || isa->parts[alt->part].kind != TSR_TC_TABLE || !BOUND(isa->parts[alt->part].field))
        return false;
    uint64_t codes[8];
    unsigned n = tsr_dis_lead_codes(isa, alt, pa, f, codes, 8);
    if (!n)
        return false;
    unsigned fd = isa->parts[alt->part].field;
    uint64_t own = f[fd] & tsr_bits_mask(isa->fields[fd].width);
    for (unsigned i = 0; i < n; i++)
        if (codes[i] == own)
            return false;
    return true;
#undef BOUND
}
