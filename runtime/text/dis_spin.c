/* The exactness proof's rule "a field pinned by a bundle part" (dis_exact.h tsr_dis_spin) decided from the
 * facts, without the text.
 *
 * The assembler tries an operand alternative j that binds FIELD = v before the printed one; j matches the text
 * (an I/O register is a name of both write tables: `t1b` read by dst_add's regfile-A alternative binds
 * ws = 0).  The path through j still fails when another bundle part can only be read binding FIELD to another
 * value (asm_engine.c bind fails at the first disagreeing binding, whatever made it): `fmul ra28, r0, r1`
 * prints dst_mul's regfile-A alternative (ws = 1), and ra28 is a name of the A table only, so no
 * alternative that binds ws = 0 (regfile B, `-`) can read it.  dis_exact.c forces() shows that on the text
 * (the ops' literals, then the text-only matcher per alternative); here it is shown from what the printer
 * chose and the facts of dis_static.c, which the text printed by that choice satisfies:
 *  - the ops the assembler can read the part with (dis_px.h tsr_dis_part_op_next): its printed op a, and, for
 *    a part after the one being decided, the ops of the later slots that tsr_dis_slot_ops keeps; each other
 *    than a must be shown by tsr_dis_op_alts (a printed with pw at its leading operand) not to match the part
 *    at all, or begin with an operand of which every alternative binds FIELD to another value;
 *  - a begins with literal text and an operand, so that operand's text starts where the printed one does;
 *    the printed alternative pw binds FIELD to another value, and every other alternative i does too, or
 *    cannot match what pw prints there followed by the rest of a's template: tsr_dis_alt_ctx (whatever the
 *    entries), else tsr_dis_alt_hole for the entries printed (the rows of pw's holes by their codes, as a
 *    plan's early alternative: tsr_dis_early_never).
 * Everything but the last row look-ups depends on (format, slot set, a, pw, FIELD, v) only, and is kept per
 * thread in an open-addressed table (x->spin): the alternatives left open (at most TSR_DIS_SPIN_REQ) with their
 * rows.  Keys are few (about 1,200 on 400,000 random QPU words) and never replaced.  An answer other than PINS
 * proves nothing (forces, then dis_pin.c, ask the text).
 */
#include <stdlib.h>
#include <string.h>

#include "dis_lockstep.h"
#include "dis_px.h"

/* The template index of op b's leading operand (after literal text and blanks only), or -1. */
static int lead_of(const struct tsr_tc_isa *isa, unsigned b)
{
    const struct tsr_tc_op *op = &isa->ops[b];
    uint32_t i = 0;
    while (i < op->npart &&
           (isa->parts[op->part + i].kind == TSR_TC_TEXT || isa->parts[op->part + i].kind == TSR_TC_SPACE))
        i++;
    return i < op->npart && isa->parts[op->part + i].kind == TSR_TC_OPND ? (int)i : -1;
}

/* Is op b, up to the end of its leading operand's template, op a's twin: the same literal text before it, and
 * the same rest of template from it on (dis_static.c canon)?  Then its leading operand starts where a's does
 * and every question about its alternatives is the one asked for a's (ops of one slot that differ only in
 * their conditions, as an idle op and the op it stands for). */
static bool twin(const struct tsr_dis_static *st, unsigned b, unsigned a, int la)
{
    const struct tsr_tc_isa *isa = st->isa;
    const struct tsr_tc_part *pa = isa->parts + isa->ops[a].part, *pb = isa->parts + isa->ops[b].part;
    if (lead_of(isa, b) != la)
        return false;
    for (int i = 0; i < la; i++)
        if (pa[i].kind != pb[i].kind || (pa[i].kind == TSR_TC_TEXT &&
                                          (pa[i].len != pb[i].len || pa[i].bound != pb[i].bound ||
                                           memcmp(pa[i].text, pb[i].text, pa[i].len) != 0)))
            return false;
    size_t ia = (size_t)(pa + la - isa->parts), ib = (size_t)(pb + la - isa->parts);
    return ia < st->nparts && ib < st->nparts && st->canon[ia] != UINT32_MAX && st->canon[ia] == st->canon[ib];
}

/* Does every alternative of op b's leading operand bind FIELD to another value than v (then whatever b reads
 * there binds it so)? */
static bool all_bind_other(const struct tsr_tc_isa *isa, unsigned b, unsigned field, uint64_t v)
{
    int li = lead_of(isa, b);
    if (li < 0)
        return false;
    const struct tsr_tc_opnd *o = &isa->opnds[isa->parts[isa->ops[b].part + (uint32_t)li].arg];
    for (uint32_t i = 0; i < o->nalt; i++) {
        const struct tsr_tc_alt *al = &isa->alts[o->alt + i];
        if (!tsr_dis_binds_other(isa, al->cond, al->ncond, field, v))
            return false;
    }
    return o->nalt > 0;
}

/* Can a text that parts [p, end) match hold the non-blank character c?  A literal or optional text holding c, a
 * table name holding it, a number (a table's numeric entries, `{FIELD}`, a label: tsr_dis_expr_char), an operand
 * alternative that can; past a depth of 8 operands: taken as yes. */
static bool may_hold(const struct tsr_tc_isa *isa, const struct tsr_tc_part *p, const struct tsr_tc_part *end,
                     unsigned char c, unsigned depth)
{
    for (; p < end; p++) {
        switch (p->kind) {
        case TSR_TC_SPACE:
            break;   /* blanks only */
        case TSR_TC_TEXT:
        case TSR_TC_OPT:
            if (memchr(p->text, c, p->len))
                return true;
            break;
        case TSR_TC_TABLE: {
            const struct tsr_tc_table *T = &isa->tables[p->arg];
            if (T->nnums && tsr_dis_expr_char(c))
                return true;
            for (uint32_t i = 0; i < T->nnames; i++)
                if (memchr(isa->names[T->name_first + i].name, c, isa->names[T->name_first + i].len))
                    return true;
            break;
        }
        case TSR_TC_OPND: {
            const struct tsr_tc_opnd *o = &isa->opnds[p->arg];
            if (depth >= 8)
                return true;
            for (uint32_t i = 0; i < o->nalt; i++) {
                const struct tsr_tc_alt *al = &isa->alts[o->alt + i];
                if (may_hold(isa, isa->parts + al->part, isa->parts + al->part + al->npart, c, depth + 1))
                    return true;
            }
            break;
        }
        default:   /* `{FIELD}`, a label: an expression */
            if (tsr_dis_expr_char(c))
                return true;
            break;
        }
    }
    return false;
}

/* Is the operand at index li of op a's template anchored (dis_exact.h tsr_dis_spin_at)?  Some non-blank
 * character of the literal text after the last non-literal part before it that none of the non-literal parts
 * before it can match.  (The literal c's before the operand are then matched at the part's first c's: no
 * other part can take a c, so the n-th literal c is the text's n-th c; the literal text and blanks after it
 * are read the same way on every path.) */
static bool anchored_slow(const struct tsr_tc_isa *isa, unsigned a, unsigned li)
{
    const struct tsr_tc_part *p0 = isa->parts + isa->ops[a].part;
    int m = -1;
    for (unsigned i = 0; i < li; i++)
        if (p0[i].kind != TSR_TC_TEXT && p0[i].kind != TSR_TC_SPACE)
            m = (int)i;
    if (m < 0)
        return true;   /* literal text only before it: it starts at the part's first non-blank after that text */
    for (unsigned i = (unsigned)m + 1; i < li; i++) {
        if (p0[i].kind != TSR_TC_TEXT)
            continue;
        for (uint32_t j = 0; j < p0[i].len; j++) {
            unsigned char c = (unsigned char)p0[i].text[j];
            if (tsr_asm_isblank(c))
                continue;
            bool held = false;
            for (unsigned h = 0; h < li && !held; h++)
                if (p0[h].kind != TSR_TC_TEXT && p0[h].kind != TSR_TC_SPACE)
                    held = may_hold(isa, p0 + h, p0 + h + 1, c, 0);
            if (!held)
                return true;
        }
    }
    return false;
}

/* anchored_slow, kept per op-level part. */
static bool anchored(const struct tsr_dis_static *st, struct tsr_dis_spins *S, unsigned a, unsigned li)
{
    const struct tsr_tc_isa *isa = st->isa;
    size_t i = isa->ops[a].part + (size_t)li;
    if (i >= st->nparts)
        return anchored_slow(isa, a, li);
    if (!S->anch && !(S->anch = calloc((size_t)st->nparts + 1, 1)))
        abort();
    if (!S->anch[i])
        S->anch[i] = (uint8_t)(1 + anchored_slow(isa, a, li));
    return S->anch[i] == 2;
}

/* Does alternative al begin with a table hole of FIELD?  Its table, or -1. */
static int lead_table(const struct tsr_tc_isa *isa, const struct tsr_tc_alt *al, unsigned field)
{
    const struct tsr_tc_part *h = isa->parts + al->part;
    return al->npart && h->kind == TSR_TC_TABLE && h->field == field ? (int)h->arg : -1;
}

unsigned tsr_dis_lead_codes(const struct tsr_tc_isa *isa, const struct tsr_tc_alt *al, const struct tsr_tc_alt *pa,
                            const uint64_t *f, uint64_t *codes, unsigned max)
{
    if (!al->npart || !pa->npart || isa->parts[al->part].kind != TSR_TC_TABLE)
        return 0;
    const struct tsr_tc_part *h = isa->parts + al->part, *ph = isa->parts + pa->part;
    if (ph->kind != TSR_TC_TABLE)
        return 0;
    /* what pa prints first: the name of its hole's entry for the decoded code */
    const struct tsr_tc_print *pr = tsr_dis_print_of(isa, ph->arg, f[ph->field]);
    if (!pr || pr->kind != TSR_TC_PRINT_NAME || !pr->name[0] || tsr_asm_isblank((unsigned char)pr->name[0]))
        return 0;
    const char *s = pr->name;
    const struct tsr_tc_table *T = &isa->tables[h->arg];
    if (T->nnums && tsr_dis_expr_start((unsigned char)s[0]))
        return 0;   /* a number may be read there */
    size_t sl = strlen(s);
    uint64_t m = tsr_bits_mask(isa->fields[h->field].width);
    unsigned n = 0;
    for (uint32_t i = 0; i < T->nnames; i++) {
        const struct tsr_tc_name *nm = &isa->names[T->name_first + i];
        if (!nm->len)
            return 0;   /* the empty name matches anywhere */
        size_t l = nm->len < sl ? nm->len : sl;
        if (memcmp(nm->name, s, l) != 0)
            continue;
        uint64_t c = nm->code & m;
        bool seen = false;
        for (unsigned j = 0; j < n && !seen; j++)
            seen = codes[j] == c;
        if (seen)
            continue;
        if (n == max)
            return 0;
        codes[n++] = c;
    }
    return n;
}

/* Does every reading of alternative al, at the start of what alternative pa prints for the fields f, bind FIELD
 * to another value than v through al's leading table hole (tsr_dis_lead_codes, none of them v)? */
static bool hole_other(const struct tsr_tc_isa *isa, const struct tsr_tc_alt *al, const struct tsr_tc_alt *pa,
                       unsigned field, uint64_t v, const uint64_t *f)
{
    uint64_t codes[16];
    if (lead_table(isa, al, field) < 0)
        return false;
    unsigned n = tsr_dis_lead_codes(isa, al, pa, f, codes, 16);
    for (unsigned i = 0; i < n; i++)
        if (codes[i] == v)
            return false;
    return n > 0;
}

/* The answer from the facts for e's key (e->p, e->end set here): FREE, OPEN, or PINS when none of the open
 * alternatives, req[0, *nreq), matches the entries printed (their rows by the codes); e->hole set when the
 * printed alternative binds FIELD through its leading table hole only (then the entry printed decides). */
static int compute(struct tsr_dis_static *st, struct tsr_dis_spine *e, struct tsr_dis_early *req, unsigned *nreq)
{
    const struct tsr_tc_isa *isa = st->isa;
    const struct tsr_tc_format *F = &isa->formats[e->fmt];
    unsigned a = e->a, field = e->field;
    uint64_t v = e->v;
    *nreq = 0;
    int li = e->li == 0xff ? lead_of(isa, a) : e->li;
    if (li < 0)
        return TSR_DIS_SPIN_FREE;
    const struct tsr_tc_op *A = &isa->ops[a];
    if ((uint32_t)li >= A->npart || isa->parts[A->part + (uint32_t)li].kind != TSR_TC_OPND)
        return TSR_DIS_SPIN_OPEN;
    const struct tsr_tc_part *p = isa->parts + A->part + li, *end = isa->parts + A->part + A->npart;
    const struct tsr_tc_opnd *o = &isa->opnds[p->arg];
    e->p = p, e->end = end;
    if (e->pw >= o->nalt || (uint32_t)li >= TSR_DIS_LALT)
        return TSR_DIS_SPIN_OPEN;
    /* the printed op reads the part through the printed alternative: by its conditions, or by its leading table
     * hole's entry (decided per entry printed: open_ones) */
    const struct tsr_tc_alt *pa = &isa->alts[o->alt + e->pw];
    e->hole = 0;
    if (!tsr_dis_binds_other(isa, pa->cond, pa->ncond, field, v)) {
        if (lead_table(isa, pa, field) < 0)
            return TSR_DIS_SPIN_FREE;
        e->hole = 1;
    }
    /* the other ops of the later slots: shown not to match the part (pw printed at the operand), or a's twin from
     * its leading operand on (the same template from there: the operand anchored the same way, with the same
     * alternatives), or, asked through the leading operand, one whose leading operand binds FIELD to another value
     * whatever it reads */
    if (e->t0 != TSR_DIS_SPIN_SELF) {
        uint8_t lalt[TSR_DIS_LALT];
        int la = lead_of(isa, a);
        for (unsigned i = 0; i < TSR_DIS_LALT; i++)
            lalt[i] = 0xff;
        lalt[li] = e->pw;
        for (uint32_t t = e->t0; t < F->nslot; t++) {
            uint32_t n;
            const uint32_t *bs = tsr_dis_slot_ops(st, a, isa->idx[F->slot + t], &n);
            for (uint32_t i = 0; i < n; i++)
                if (bs[i] != a && (la < 0 || !twin(st, bs[i], a, la)) &&
                    tsr_dis_op_alts(st, bs[i], a, lalt) != TSR_DIS_NEVER &&
                    (e->li != 0xff || !all_bind_other(isa, bs[i], field, v)))
                    return TSR_DIS_SPIN_OPEN;
        }
    }
    /* the printed op's other alternatives there (those binding FIELD through a leading table hole: per entry) */
    for (uint32_t i = 0; i < o->nalt; i++) {
        const struct tsr_tc_alt *al = &isa->alts[o->alt + i];
        if (i == e->pw || tsr_dis_binds_other(isa, al->cond, al->ncond, field, v) ||
            tsr_dis_alt_ctx(st, p, end, i, e->pw) == TSR_DIS_NEVER)
            continue;
        if (*nreq == TSR_DIS_SPIN_REQ)
            return TSR_DIS_SPIN_OPEN;
        struct tsr_dis_early *y = &req[*nreq];
        y->alt = i;
        y->nrow = tsr_dis_alt_entry_rows(st, p, end, i, e->pw, y->r, TSR_DIS_EHOLES);
        if (!y->nrow)
            return TSR_DIS_SPIN_OPEN;   /* no row: nothing shown per code */
        ++*nreq;
    }
    return TSR_DIS_SPIN_PINS;
}

/* PINS when the printed alternative binds FIELD to another value than e->v for the entries printed (fields f;
 * e->hole: through its leading table hole) and each of the open alternatives req[0, n) of the operand at e->p
 * either does not match those entries (its rows) or binds FIELD to another value through its leading table
 * hole; FREE when the printed one may bind v; else OPEN. */
static int open_ones(struct tsr_dis_static *st, const struct tsr_dis_spine *e, const struct tsr_dis_early *req,
                     unsigned n, const uint64_t *f)
{
    const struct tsr_tc_isa *isa = st->isa;
    const struct tsr_tc_opnd *o = &isa->opnds[e->p->arg];
    const struct tsr_tc_alt *pa = &isa->alts[o->alt + e->pw];
    if (e->hole && !hole_other(isa, pa, pa, e->field, e->v, f))
        return TSR_DIS_SPIN_FREE;
    const struct tsr_dis_step s = {.p = e->p, .end = e->end};
    for (unsigned i = 0; i < n; i++)
        if (!tsr_dis_early_never(st, &s, &req[i], e->pw, f) &&
            !hole_other(isa, &isa->alts[o->alt + req[i].alt], pa, e->field, e->v, f))
            return TSR_DIS_SPIN_OPEN;
    return TSR_DIS_SPIN_PINS;
}

int tsr_dis_spin(const struct tsr_tc_isa *isa, struct tsr_dis_exact *x, unsigned fmt, unsigned a, uint32_t t0,
                 unsigned pw, unsigned field, uint64_t v, const uint64_t *f)
{
    return tsr_dis_spin_at(isa, x, fmt, a, 0xff, t0, pw, field, v, f);
}

/* li 0xff: the leading operand (tsr_dis_spin), else an anchored one, asked for a part read as printed only */
int tsr_dis_spin_at(const struct tsr_tc_isa *isa, struct tsr_dis_exact *x, unsigned fmt, unsigned a, unsigned li,
                    uint32_t t0, unsigned pw, unsigned field, uint64_t v, const uint64_t *f)
{
    if (fmt >= isa->nformats || a >= isa->nops || field >= isa->nfields || fmt > UINT16_MAX || a > UINT16_MAX)
        return TSR_DIS_SPIN_OPEN;
    if (li != 0xff && (int)li == lead_of(isa, a))
        li = 0xff;   /* the leading operand: one key, whichever way it is asked */
    if (!x->st.isa)
        tsr_dis_static_init(&x->st, isa);
    if (li != 0xff && (li >= TSR_DIS_LALT || li >= isa->ops[a].npart ||
                       isa->parts[isa->ops[a].part + li].kind != TSR_TC_OPND || !anchored(&x->st, &x->spin, a, li)))
        return TSR_DIS_SPIN_OPEN;
    if (pw > 0xff)
        pw = 0xff;
    if (!x->st.isa)
        tsr_dis_static_init(&x->st, isa);
    struct tsr_dis_spins *S = &x->spin;
    if (!S->e && !(S->e = calloc(TSR_DIS_SPIN, sizeof *S->e)))
        abort();
    v &= tsr_bits_mask(isa->fields[field].width);
    uint64_t h = ((uint64_t)fmt << 48 | (uint64_t)a << 32 | (uint64_t)pw << 24 | (uint64_t)li << 16 | field) *
                 0x9e3779b97f4a7c15u;
    h = (h ^ v ^ (uint64_t)t0 << 40) * 0xff51afd7ed558ccdu;
    struct tsr_dis_spine k = {.v = v, .field = field, .t0 = t0, .fmt = (uint16_t)fmt, .a = (uint16_t)a,
                              .li = (uint8_t)li, .pw = (uint8_t)pw};
    struct tsr_dis_spine *e = NULL;
    for (unsigned j = 0; j < TSR_DIS_SPIN_PROBE && !e; j++) {
        struct tsr_dis_spine *c = &S->e[((h >> 40) + j) & (TSR_DIS_SPIN - 1)];
        if (c->state && c->v == v && c->field == field && c->t0 == t0 && c->fmt == fmt && c->a == a && c->li == li &&
            c->pw == pw) {
            int r = c->state - 1;
            return r == TSR_DIS_SPIN_PINS ? open_ones(&x->st, c, c->nreq ? S->req + c->req : NULL, c->nreq, f) : r;
        }
        if (!c->state)
            e = c;   /* a new key: its answer is kept here */
    }
    struct tsr_dis_early req[TSR_DIS_SPIN_REQ];
    unsigned n;
    int r = compute(&x->st, &k, req, &n);
    if (e) {   /* else the entries for this hash are taken: the answer is not kept */
        if (S->nreq + n > S->creq) {
            S->creq = S->creq ? S->creq * 2 : 256;
            if (!(S->req = realloc(S->req, S->creq * sizeof *S->req)))
                abort();
        }
        for (unsigned i = 0; i < n; i++)
            S->req[S->nreq + i] = req[i];
        k.req = (uint32_t)S->nreq, k.nreq = (uint8_t)n;
        S->nreq += n;
        k.state = (uint8_t)(r + 1);
        *e = k;
    }
    return r == TSR_DIS_SPIN_PINS ? open_ones(&x->st, &k, req, n, f) : r;
}

bool tsr_dis_spin_ops_field(const struct tsr_tc_isa *isa, struct tsr_dis_exact *x, unsigned fmt, size_t np,
                            const unsigned *pop, const struct tsr_dis_slotp *sp, size_t cur,
                            const uint8_t (*lalt)[TSR_DIS_LALT], unsigned field, uint64_t v, const uint64_t *f)
{
    for (size_t k = 0; k < np; k++) {
        unsigned a = pop[k];
        if (a >= isa->nops)
            continue;
        int lead = lead_of(isa, a);
        uint32_t n = isa->ops[a].npart < TSR_DIS_LALT ? isa->ops[a].npart : TSR_DIS_LALT;
        /* a part after the current one takes a later slot; the others are read as printed */
        uint32_t t0 = k > cur ? sp[cur].t + 1 : TSR_DIS_SPIN_SELF;
        for (uint32_t i = 0; i < n; i++)
            if ((int)i != lead && lalt[k][i] != 0xff &&
                tsr_dis_spin_at(isa, x, fmt, a, i, t0, lalt[k][i], field, v, f) == TSR_DIS_SPIN_PINS)
                return true;
    }
    return false;
}

bool tsr_dis_spin_ops(const struct tsr_tc_isa *isa, struct tsr_dis_exact *x, unsigned fmt, size_t np,
                      const unsigned *pop, const struct tsr_dis_slotp *sp, size_t cur,
                      const uint8_t (*lalt)[TSR_DIS_LALT], const struct tsr_tc_alt *alt, const uint64_t *f)
{
    for (uint32_t c = 0; c < alt->ncond; c++) {
        const struct tsr_tc_cond *bc = &isa->conds[alt->cond + c];
        if (bc->kind == TSR_TC_BIND &&
            tsr_dis_spin_ops_field(isa, x, fmt, np, pop, sp, cur, lalt, bc->field, bc->val, f))
            return true;
    }
    return false;
}
