/* The exactness proof's rule "a field pinned by the text" (dis_px.h tsr_dis_pinned, tsr_dis_alt_pinned): a
 * choice the assembler tries before the printed one, that matches the text, still fails when it binds
 * FIELD = v and some bundle part can only be read in ways that bind FIELD to another value.
 *
 * The assembler (asm_engine.c bind) fails a path at the first binding of a field that disagrees with the value
 * the path gave it before, whatever bound it: an alternative's or optional text's FIELD = value, a table
 * entry's code, a `{FIELD}` hole's number, an op's own conditions.  So when the text-only matcher (dis_match.c),
 * with the ways that bind FIELD to another value than v dropped (px.ban_field), finds no way through a bundle
 * part for any op the assembler can read it with there, every path that binds FIELD = v fails.  Examples:
 * `fmul.ifcc r3.8888, ra55.8c, r3` (the MUL pack `.8888`, pm = 1, is tried before the regfile-A pack; the
 * regfile-A unpack `ra55.8c` binds pm = 0); `add ra7, mutex, r0; fmul rb1, r4, ra23.8a` (`mutex` read from
 * regfile A, raddr_a = 51, is tried before regfile B; the other part reads raddr_a = 23); `v8muld ra14.8c,
 * -14, r4 >> 2` (small immediate -14: code 18 is tried before code 50; the rotation `>> 2` binds code 50).
 * This is the general form of dis_exact.c's `refuted` (which looks at a part's leading operand only, and is
 * asked first because it is cheaper); both are asked only for a choice that survives the facts and the text.
 */
#include <stdlib.h>

#include "asm_match.h"
#include "dis_px.h"

/* Can parts [p, end) bind field fd (a table or number hole of it, an optional text's or an operand alternative's
 * FIELD = value)?  Past a depth of 8 operands: taken as yes. */
static bool seq_binds(const struct tsr_tc_isa *isa, const struct tsr_tc_part *p, const struct tsr_tc_part *end,
                      unsigned fd, unsigned depth)
{
    for (; p < end; p++) {
        switch (p->kind) {
        case TSR_TC_TABLE:
        case TSR_TC_INT:
        case TSR_TC_LABEL:
            if (p->field == fd)
                return true;
            break;
        case TSR_TC_OPT:
            if (tsr_dis_binds_other(isa, p->cond, p->ncond, fd, UINT64_MAX))
                return true;
            break;
        case TSR_TC_OPND: {
            const struct tsr_tc_opnd *o = &isa->opnds[p->arg];
            if (depth >= 8)
                return true;
            for (uint32_t i = 0; i < o->nalt; i++) {
                const struct tsr_tc_alt *al = &isa->alts[o->alt + i];
                if (tsr_dis_binds_other(isa, al->cond, al->ncond, fd, UINT64_MAX) ||
                    seq_binds(isa, isa->parts + al->part, isa->parts + al->part + al->npart, fd, depth + 1))
                    return true;
            }
            break;
        }
        default:
            break;
        }
    }
    return false;
}

/* Can op b's template or conditions bind field fd?  A part whose printed op cannot bind the banned field is not
 * pinned by the ban (the printed op reads it), so it is not matched.  Decided once per isa, op and field. */
static bool op_binds(struct px *P, unsigned b, unsigned fd)
{
    const struct tsr_tc_isa *isa = P->isa;
    struct tsr_dis_exact *x = P->x;
    if (!x->opbinds && !(x->opbinds = calloc((size_t)isa->nops * isa->nfields + 1, 1)))
        abort();
    uint8_t *v = &x->opbinds[(size_t)b * isa->nfields + fd];
    if (!*v) {
        const struct tsr_tc_op *op = &isa->ops[b];
        bool any = tsr_dis_binds_other(isa, op->cond, op->ncond, fd, UINT64_MAX) ||
                   seq_binds(isa, isa->parts + op->part, isa->parts + op->part + op->npart, fd, 0);
        *v = any ? 1 : 2;
    }
    return *v == 1;
}

/* With P->ban_field set: does every op the assembler can read bundle part k with (tsr_dis_part_op_next) fail to
 * match it? */
static bool part_pins(struct px *P, size_t k)
{
    const struct tsr_tc_isa *isa = P->isa;
    unsigned a = P->pop[k], b;
    struct tsr_dis_opit it = {.t = k > P->cur ? P->sp[P->cur].t + 1 : 0};
    while (tsr_dis_part_op_next(P, k, &it, &b)) {
        const struct tsr_tc_op *op = &isa->ops[b];
        if (b == a && !op_binds(P, b, P->ban_field))
            return false;   /* the printed op reads the part without binding FIELD */
        if (tsr_dis_binds_other(isa, op->cond, op->ncond, P->ban_field, P->ban_val))
            continue;   /* its conditions, bound at the end of the part, bind FIELD to another value */
        if (tsr_dis_possible(P, isa->parts + op->part, isa->parts + op->part + op->npart, P->pi[k].q, NULL, false))
            return false;
    }
    return true;
}

bool tsr_dis_pinned(struct px *P, unsigned field, uint64_t v)
{
    if (P->ban_field != TSR_DIS_NOBAN)
        return false;   /* not nested */
    struct tsr_dis_exact *x = P->x;
    v &= tsr_bits_mask(P->isa->fields[field].width);
    if (v == P->f[field])
        return false;   /* the printed path reads every part, binding FIELD to the instruction's value only */
    /* the same question comes back for several alternatives, and from the walk after a plan */
    for (unsigned i = 0; i < TSR_DIS_NPIN; i++) {
        const struct tsr_dis_pinm *m = &x->pin[i];
        if (m->gen == x->mgen && m->field == field && m->v == v && m->cur == P->cur)
            return m->ok;
    }
    uint32_t lim = P->lim;
    P->ban_field = field;
    P->ban_val = v;
    bool ok = false;
    for (size_t k = 0; k < P->np && !ok; k++) {
        P->lim = P->pi[k].end;
        if (++x->fgen == 0) {   /* a new question for op_rest (dis_match.c); the generations wrapped: forget all */
            for (unsigned i = 0; i < TSR_DIS_NFAIL; i++)
                x->fail[i].gen = 0;
            x->fgen = 1;
        }
        ok = part_pins(P, k);
    }
    P->lim = lim;
    P->ban_field = TSR_DIS_NOBAN;
    x->pin[x->npin++ % TSR_DIS_NPIN] = (struct tsr_dis_pinm){x->mgen, field, (uint32_t)P->cur, ok, v};
    return ok;
}

bool tsr_dis_alt_pinned(struct px *P, const struct tsr_tc_alt *alt, uint32_t q)
{
    const struct tsr_tc_isa *isa = P->isa;
    for (uint32_t c = 0; c < alt->ncond; c++) {
        const struct tsr_tc_cond *bc = &isa->conds[alt->cond + c];
        if (bc->kind == TSR_TC_BIND && tsr_dis_pinned(P, bc->field, bc->val))
            return true;
    }
    /* the alternative's leading table hole (asm_engine.c table_hole at q, the operand's first non-blank): every
     * path binds its field to the code of one of the names that end along the text there, or of a numeric
     * entry of the value written there */
    const struct tsr_tc_part *p = isa->parts + alt->part;
    if (!alt->npart || p->kind != TSR_TC_TABLE)
        return false;
    const struct tsr_tc_table *T = &isa->tables[p->arg];
    const uint32_t *len, *code;
    int nn = tsr_dis_names_memo(P, p, q, &len, &code);
    if (nn < 0)
        return false;
    uint32_t codes[TSR_DIS_NNAMES + 8];
    unsigned nc = 0;
    for (int i = 0; i < nn; i++)
        codes[nc++] = code[i];
    if (T->nnums) {
        struct tsr_asm_val v;
        size_t ee;
        if (tsr_dis_expr_at(P, q, &ee, &v) > 0)
            for (uint32_t i = 0; i < T->nnums; i++) {
                const struct tsr_tc_num *nu = &isa->nums[T->num_first + i];
                if (!tsr_dis_num_ok(nu, &v))
                    continue;
                if (nc == sizeof codes / sizeof *codes)
                    return false;
                codes[nc++] = nu->code;
            }
    }
    for (unsigned i = 0; i < nc; i++)
        if (!tsr_dis_pinned(P, p->field, codes[i]))
            return false;
    return true;
}
