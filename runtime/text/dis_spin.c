/* The exactness proof's rule "a field pinned by a bundle part" (dis_exact.h tsr_dis_spin) decided from the
 * facts, without the text.
 *
 * The assembler tries an operand alternative j that binds FIELD = v before the printed one; j matches the text
 * (an I/O register is a name of both write tables: `t1b` read by dst_add's regfile-A alternative binds
 * ws = 0).  The path through j still fails when another bundle part can only be read binding FIELD to another
 * value (asm_engine.c bind fails at the first disagreeing binding, whatever made it): `fmul ra28, r0, r1`
 * prints dst_mul's regfile-A alternative (ws = 1), and ra28 is a name of the A table only, so no
 * alternative that binds ws = 0 (regfile B, `-`) can read it.  dis_walk.c forces() shows that on the text
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
 * rows, and the codes of a field whose rows were seen to rule them all out (open_kept).  Keys are few (about 1,200 on 400,000 random words of the largest description) and never replaced.  An answer other than PINS
 * proves nothing (forces, then dis_pin.c, ask the text).
 */
#include <stdlib.h>
#include <string.h>

#include "dis_lockstep.h"
#include "dis_px.h"
#include "xalloc.h"

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

/* Adds to m (bit c of m[c >> 6], ASCII) every non-blank character a text that parts [p, end) match can hold, as
 * may_hold answers it for each; anything past ASCII is taken as possible (bit 127). */
static void chars_of(const struct tsr_tc_isa *isa, const struct tsr_tc_part *p, const struct tsr_tc_part *end,
                     uint64_t *m, unsigned depth)
{
    for (; p < end; p++) {
        switch (p->kind) {
        case TSR_TC_SPACE:
            break;
        case TSR_TC_TEXT:
        case TSR_TC_OPT:
            for (uint32_t i = 0; i < p->len; i++) {
                unsigned char c = (unsigned char)p->text[i];
                c = c < 128 ? c : 127;
                m[c >> 6] |= (uint64_t)1 << (c & 63);
            }
            break;
        case TSR_TC_TABLE: {
            const struct tsr_tc_table *T = &isa->tables[p->arg];
            for (unsigned c = 1; T->nnums && c < 128; c++)
                if (tsr_dis_expr_char((unsigned char)c))
                    m[c >> 6] |= (uint64_t)1 << (c & 63);
            for (uint32_t i = 0; i < T->nnames; i++)
                for (uint32_t j = 0; j < isa->names[T->name_first + i].len; j++) {
                    unsigned char c = (unsigned char)isa->names[T->name_first + i].name[j];
                    c = c < 128 ? c : 127;
                    m[c >> 6] |= (uint64_t)1 << (c & 63);
                }
            break;
        }
        case TSR_TC_OPND: {
            const struct tsr_tc_opnd *o = &isa->opnds[p->arg];
            if (depth >= 8) {
                m[0] = m[1] = UINT64_MAX;
                return;
            }
            for (uint32_t i = 0; i < o->nalt; i++) {
                const struct tsr_tc_alt *al = &isa->alts[o->alt + i];
                chars_of(isa, isa->parts + al->part, isa->parts + al->part + al->npart, m, depth + 1);
            }
            break;
        }
        default:   /* `{FIELD}`, a label: an expression */
            for (unsigned c = 1; c < 128; c++)
                if (tsr_dis_expr_char((unsigned char)c))
                    m[c >> 6] |= (uint64_t)1 << (c & 63);
            break;
        }
    }
}

/* chars_of alternative j (an index into isa->alts), kept per thread: S->achars[2 * j], [2 * j + 1]. */
static const uint64_t *alt_chars(const struct tsr_dis_static *st, struct tsr_dis_spins *S, unsigned j)
{
    const struct tsr_tc_isa *isa = st->isa;
    if (!S->achars && !(S->achars = calloc((size_t)st->nalts * 2 + 2, sizeof *S->achars)))
        abort();
    if (!S->achared && !(S->achared = calloc((size_t)st->nalts + 1, 1)))
        abort();
    if (!S->achared[j]) {
        const struct tsr_tc_alt *al = &isa->alts[j];
        chars_of(isa, isa->parts + al->part, isa->parts + al->part + al->npart, S->achars + 2 * (size_t)j, 0);
        S->achared[j] = 1;
    }
    return S->achars + 2 * (size_t)j;
}

/* Is the operand Y at index li of op a's template anchored after the operand X right before it (anchored itself),
 * for the alternatives printed there (pwx at X, pw at Y) and the fields f?  Every alternative of Y is empty (Y
 * then ends the template) or begins with literal text, its first non-blank character in a set D; pw is not
 * empty; and no alternative of X that can be read where pwx printed (pwx itself, and those tsr_dis_alt_ctx and
 * the rows by the codes printed do not rule out) can match a text holding a character of D.  Then every reading
 * of the part by op a reads X from its anchored start up to before the first D character after it, which is
 * the first character pw printed (pwx's print holds none): an empty Y would leave it unread, a non-empty one must
 * start on it.  So Y starts where the printed one does (blanks aside), as the facts of tsr_dis_spin_at need. */
static bool anchored_after(struct tsr_dis_static *st, struct tsr_dis_spins *S, unsigned a, unsigned li, unsigned pwx,
                           unsigned pw, const uint64_t *f)
{
    const struct tsr_tc_isa *isa = st->isa;
    const struct tsr_tc_op *A = &isa->ops[a];
    const struct tsr_tc_part *p0 = isa->parts + A->part, *end = p0 + A->npart;
    if (li < 1 || li >= A->npart || p0[li - 1].kind != TSR_TC_OPND || !anchored(st, S, a, li - 1))
        return false;
    const struct tsr_tc_opnd *ox = &isa->opnds[p0[li - 1].arg], *oy = &isa->opnds[p0[li].arg];
    if (pwx >= ox->nalt || pw >= oy->nalt || !isa->alts[oy->alt + pw].npart)
        return false;
    unsigned char d[16];
    unsigned nd = 0;
    for (uint32_t i = 0; i < oy->nalt; i++) {
        const struct tsr_tc_alt *al = &isa->alts[oy->alt + i];
        if (!al->npart) {
            if (li + 1 != A->npart)
                return false;   /* an empty Y followed by more of the template */
            continue;
        }
        const struct tsr_tc_part *h = isa->parts + al->part;
        int c = -1;
        for (; h < isa->parts + al->part + al->npart && c < 0 && (h->kind == TSR_TC_TEXT || h->kind == TSR_TC_SPACE); h++)
            for (uint32_t j = 0; h->kind == TSR_TC_TEXT && j < h->len && c < 0; j++)
                if (!tsr_asm_isblank((unsigned char)h->text[j]))
                    c = (unsigned char)h->text[j];
        if (c < 0)
            return false;   /* a hole before any literal character */
        bool seen = false;
        for (unsigned j = 0; j < nd && !seen; j++)
            seen = d[j] == c;
        if (!seen) {
            if (nd == sizeof d)
                return false;
            d[nd++] = (unsigned char)c;
        }
    }
    for (uint32_t i = 0; i < ox->nalt; i++) {
        if (i != pwx && (tsr_dis_alt_ctx(st, p0 + li - 1, end, i, pwx) == TSR_DIS_NEVER ||
                         tsr_dis_alt_entry(st, p0 + li - 1, end, i, pwx, f) == TSR_DIS_NEVER))
            continue;   /* cannot be read there */
        const uint64_t *m = alt_chars(st, S, ox->alt + i);
        for (unsigned j = 0; j < nd; j++)
            if (m[d[j] >> 6] >> (d[j] & 63) & 1)
                return false;
    }
    return true;
}

/* The first part of alternative al that is not literal text or blanks (NULL: none). */
static const struct tsr_tc_part *first_hole(const struct tsr_tc_isa *isa, const struct tsr_tc_alt *al)
{
    for (uint32_t i = 0; i < al->npart; i++) {
        const struct tsr_tc_part *h = isa->parts + al->part + i;
        if (h->kind != TSR_TC_TEXT && h->kind != TSR_TC_SPACE)
            return h;
    }
    return NULL;
}

/* Does alternative al begin, after literal text only, with a table hole of FIELD?  Its table, or -1. */
static int lead_table(const struct tsr_tc_isa *isa, const struct tsr_tc_alt *al, unsigned field)
{
    const struct tsr_tc_part *h = first_hole(isa, al);
    return h && h->kind == TSR_TC_TABLE && h->field == field ? (int)h->arg : -1;
}

/* The masks behind may_bind, made for every alternative at once. */
static void abind_fill(const struct tsr_dis_static *st, struct tsr_dis_spins *S)
{
    const struct tsr_tc_isa *isa = st->isa;
    if (!(S->abind = calloc((size_t)st->nalts + 1, sizeof *S->abind)))
        abort();
    for (size_t i = 0; i < st->nalts; i++) {
        const struct tsr_tc_alt *al = &isa->alts[i];
        uint64_t m = 0;
        for (uint32_t c = 0; c < al->ncond; c++) {
            const struct tsr_tc_cond *bc = &isa->conds[al->cond + c];
            if (bc->kind == TSR_TC_BIND)
                m |= (uint64_t)1 << (bc->field < 63 ? bc->field : 63);
        }
        const struct tsr_tc_part *h = first_hole(isa, al);
        if (h && h->kind == TSR_TC_TABLE)
            m |= (uint64_t)1 << (h->field < 63 ? h->field : 63);
        S->abind[i] = m;
    }
}

/* Can alternative j (an index into isa->alts) bind FIELD through one of its conditions or its leading table hole
 * (lead_table)?  compute() answers FREE for a printed alternative that cannot: the masks of all alternatives are
 * made on first use and kept per thread (S->abind). */
static inline bool may_bind(const struct tsr_dis_static *st, struct tsr_dis_spins *S, unsigned j, unsigned field)
{
    if (!S->abind)
        abind_fill(st, S);
    return j >= st->nalts || (S->abind[j] >> (field < 63 ? field : 63) & 1);
}

/* lead_of, kept per thread for every op: S->lead[a] is 1 + lead_of(a) (made for every op at once). */
static inline int lead_kept(const struct tsr_tc_isa *isa, struct tsr_dis_spins *S, unsigned a)
{
    if (!S->lead) {
        if (!(S->lead = calloc((size_t)isa->nops + 1, sizeof *S->lead)))
            abort();
        for (unsigned b = 0; b < isa->nops; b++)
            S->lead[b] = (int32_t)(1 + lead_of(isa, b));
    }
    return S->lead[a] - 1;
}

/* Do the literal texts before alternatives al's and pa's first holes (ha, hp) hold the same non-blank characters,
 * in order?  (The matcher skips blanks before every part and a blank in a literal matches any run of them, so
 * both holes then start at the same place of a text that matches either prefix.) */
static bool same_prefix(const struct tsr_tc_isa *isa, const struct tsr_tc_alt *al, const struct tsr_tc_part *ha,
                        const struct tsr_tc_alt *pa, const struct tsr_tc_part *hp)
{
    const struct tsr_tc_part *x = isa->parts + al->part, *y = isa->parts + pa->part;
    uint32_t i = 0, j = 0;
    for (;;) {
        while (x < ha && (x->kind == TSR_TC_SPACE || i >= x->len || tsr_asm_isblank((unsigned char)x->text[i]))) {
            if (x->kind != TSR_TC_SPACE && i < x->len)
                i++;
            else
                x++, i = 0;
        }
        while (y < hp && (y->kind == TSR_TC_SPACE || j >= y->len || tsr_asm_isblank((unsigned char)y->text[j]))) {
            if (y->kind != TSR_TC_SPACE && j < y->len)
                j++;
            else
                y++, j = 0;
        }
        if (x == ha || y == hp)
            return x == ha && y == hp;
        if (x->text[i] != y->text[j])
            return false;
        i++, j++;
    }
}

/* The codes hole h of table T (on a field of width w) can bind where the printed entry pr was written and, with
 * last, nothing follows it in the bundle part: the names of T that are a prefix of the printed name or that it is a
 * prefix of; for a number printed last, the names it starts with... none may (no empty name, no name starting with
 * its first character) and the numeric entries of T that accept its value, all of them (the assembler takes the
 * next on a failure).  Their count in codes[0..max), or -1 when that is not shown. */
static int entry_codes(const struct tsr_tc_isa *isa, unsigned t, unsigned w, const struct tsr_tc_print *pr, bool last,
                       uint64_t *codes, int max)
{
    const struct tsr_tc_table *T = &isa->tables[t];
    uint64_t m = tsr_bits_mask(w);
    int n = 0;
    char b[48];
    const char *s = pr->name;
    if (pr->kind != TSR_TC_PRINT_NAME) {
        /* a number: read alone (the part ends after it), as dis_num.c reads an entry's text */
        int len = last ? tsr_dis_num_text(pr, b) : -1;
        struct tsr_asm_val v;
        size_t e, ep, el;
        const char *err;
        if (len <= 0 || tsr_asm_expr(b, 0, (size_t)len, NULL, &e, &v, &err, &ep, &el) <= 0 || e != (size_t)len)
            return -1;
        for (uint32_t i = 0; i < T->nnames; i++)
            if (!isa->names[T->name_first + i].len || isa->names[T->name_first + i].name[0] == b[0])
                return -1;   /* a name may be read there */
        for (uint32_t i = 0; i < T->nnums; i++) {
            const struct tsr_tc_num *nu = &isa->nums[T->num_first + i];
            if (!tsr_dis_num_ok(nu, &v))
                continue;
            if (n == max)
                return -1;
            codes[n++] = nu->code & m;
        }
        return n;
    }
    if (!s[0] || tsr_asm_isblank((unsigned char)s[0]) || (T->nnums && tsr_dis_expr_start((unsigned char)s[0])))
        return -1;   /* nothing printed, or a number may be read there */
    size_t sl = strlen(s);
    for (uint32_t i = 0; i < T->nnames; i++) {
        const struct tsr_tc_name *nm = &isa->names[T->name_first + i];
        if (!nm->len)
            return -1;   /* the empty name matches anywhere */
        size_t l = nm->len < sl ? nm->len : sl;
        if (memcmp(nm->name, s, l) != 0)
            continue;
        uint64_t c = nm->code & m;
        bool seen = false;
        for (int j = 0; j < n && !seen; j++)
            seen = codes[j] == c;
        if (seen)
            continue;
        if (n == max)
            return -1;
        codes[n++] = c;
    }
    return n;
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

/* The codes alternative al's first table hole (on FIELD) can bind where alternative pa printed for the fields f
 * (last: and nothing follows pa's print in the bundle part), in codes[0..16): their count, or -1 when that is not
 * shown.  Both begin with literal text of the same non-blank characters and a table hole (al's on FIELD), so al's
 * hole starts where pa's entry was printed; entry_codes gives what it can bind there (none: al cannot be read so).
 * Of the fields it reads only the code of pa's first hole. */
static int hole_codes(const struct tsr_tc_isa *isa, const struct tsr_tc_alt *al, const struct tsr_tc_alt *pa,
                      unsigned field, const uint64_t *f, bool last, uint64_t *codes)
{
    const struct tsr_tc_part *ha = first_hole(isa, al), *hp = first_hole(isa, pa);
    if (lead_table(isa, al, field) < 0 || !hp || hp->kind != TSR_TC_TABLE || !same_prefix(isa, al, ha, pa, hp))
        return -1;
    const struct tsr_tc_print *pr = tsr_dis_print_of(isa, hp->arg, f[hp->field]);
    /* a number is read alone only when pa's hole ends pa (and the operand ends the part: last) */
    return pr ? entry_codes(isa, ha->arg, isa->fields[field].width, pr,
                            last && hp == isa->parts + pa->part + pa->npart - 1, codes, 16)
              : -1;
}

/* Does every reading of alternative al, where alternative pa printed for the fields f (last: and nothing follows
 * pa's print in the bundle part), bind FIELD to another value than v through al's first table hole (hole_codes)? */
static bool hole_other(const struct tsr_tc_isa *isa, const struct tsr_tc_alt *al, const struct tsr_tc_alt *pa,
                       unsigned field, uint64_t v, const uint64_t *f, bool last)
{
    uint64_t codes[16];
    int n = hole_codes(isa, al, pa, field, f, last, codes);
    for (int i = 0; i < n; i++)
        if (codes[i] == v)
            return false;
    return n >= 0;
}

/* The entry of S->hm for a key (kind, al, pa, field, v, c, last), and whether it holds that key. */
static struct tsr_dis_hmemo *hmemo(struct tsr_dis_spins *S, unsigned kind, uint32_t al, uint32_t pa, uint32_t field,
                                   uint64_t v, uint64_t c, bool last, bool *hit)
{
    if (!S->hm && !(S->hm = calloc(TSR_DIS_HMEMO, sizeof *S->hm)))
        abort();
    uint64_t h = ((uint64_t)al << 40 ^ (uint64_t)pa << 20 ^ (uint64_t)field << 2 ^ kind ^ (uint64_t)last << 1) *
                 0x9e3779b97f4a7c15u;
    h = (h ^ v ^ c << 32 ^ c >> 32) * 0xff51afd7ed558ccdu;
    struct tsr_dis_hmemo *m = &S->hm[(h >> 40) & (TSR_DIS_HMEMO - 1)];
    *hit = m->kind == kind && m->al == al && m->pa == pa && m->field == field && m->v == v && m->c == c &&
           m->last == last;
    return m;
}

/* hole_other kept: hole_codes depends on al, pa, FIELD, last and, of the fields, only on the code c of pa's first
 * hole (the entry printed there), which the key holds; the codes are kept as a mask (ans 1) when all are below 64,
 * else (ans 2) hole_other is asked each time; ans 0: not shown. */
static bool hole_other_kept(struct tsr_dis_spins *S, const struct tsr_tc_isa *isa, const struct tsr_tc_alt *al,
                            const struct tsr_tc_alt *pa, unsigned field, uint64_t v, const uint64_t *f, bool last)
{
    const struct tsr_tc_part *hp = first_hole(isa, pa);
    if (!hp)
        return hole_other(isa, al, pa, field, v, f, last);
    bool hit;
    uint64_t c = f[hp->field];
    uint32_t ja = (uint32_t)(al - isa->alts), jp = (uint32_t)(pa - isa->alts);
    struct tsr_dis_hmemo *m = hmemo(S, 1, ja, jp, field, 0, c, last, &hit);
    if (!hit) {
        uint64_t codes[16], mask = 0;
        int n = hole_codes(isa, al, pa, field, f, last, codes);
        uint8_t ans = n >= 0;
        for (int i = 0; i < n; i++) {
            if (codes[i] >= 64)
                ans = 2;
            else
                mask |= (uint64_t)1 << codes[i];
        }
        *m = (struct tsr_dis_hmemo){.kind = 1, .al = ja, .pa = jp, .field = field, .c = c, .last = last, .ans = ans};
        m->codes[0] = mask;
    }
    if (m->ans == 2)
        return hole_other(isa, al, pa, field, v, f, last);
    return m->ans == 1 && !(v < 64 && (m->codes[0] >> v & 1));
}

unsigned tsr_dis_lead_codes_kept(struct tsr_dis_exact *x, const struct tsr_tc_alt *al, const struct tsr_tc_alt *pa,
                                 const uint64_t *f, uint64_t *codes, unsigned max)
{
    const struct tsr_tc_isa *isa = x->st.isa;
    if (!isa || max > 8 || !pa->npart)
        return isa ? tsr_dis_lead_codes(isa, al, pa, f, codes, max) : 0;
    /* tsr_dis_lead_codes reads of the fields only the code of pa's first part (a table hole; else it answers 0) */
    bool hit;
    uint64_t c = f[isa->parts[pa->part].field];
    struct tsr_dis_hmemo *m = hmemo(&x->spin, 2, (uint32_t)(al - isa->alts), (uint32_t)(pa - isa->alts), 0, 0, c,
                                    false, &hit);
    if (!hit) {
        *m = (struct tsr_dis_hmemo){.kind = 2, .al = (uint32_t)(al - isa->alts), .pa = (uint32_t)(pa - isa->alts),
                                    .c = c};
        m->n = (uint8_t)tsr_dis_lead_codes(isa, al, pa, f, m->codes, 8);
    }
    if (m->n > max)
        return 0;   /* more than max codes: not shown */
    memcpy(codes, m->codes, m->n * sizeof *codes);
    return m->n;
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
static int open_ones(struct tsr_dis_static *st, struct tsr_dis_spins *S, const struct tsr_dis_spine *e,
                     const struct tsr_dis_early *req, unsigned n, const uint64_t *f)
{
    const struct tsr_tc_isa *isa = st->isa;
    const struct tsr_tc_opnd *o = &isa->opnds[e->p->arg];
    const struct tsr_tc_alt *pa = &isa->alts[o->alt + e->pw];
    bool last = e->p + 1 == e->end;   /* the operand ends its op's template, so its print ends the part */
    if (e->hole && !hole_other_kept(S, isa, pa, pa, e->field, e->v, f, last))
        return TSR_DIS_SPIN_FREE;
    const struct tsr_dis_step s = {.p = e->p, .end = e->end};
    for (unsigned i = 0; i < n; i++)
        if (!tsr_dis_early_never(st, &s, &req[i], e->pw, f) &&
            !hole_other_kept(S, isa, &isa->alts[o->alt + req[i].alt], pa, e->field, e->v, f, last))
            return TSR_DIS_SPIN_OPEN;
    return TSR_DIS_SPIN_PINS;
}

/* The table hole a kept PINS answer can be settled on through hole_other_kept: the printed alternative's first
 * hole, when it is a table hole (NULL: none). */
static const struct tsr_tc_part *kept_hole(const struct tsr_tc_isa *isa, const struct tsr_dis_spine *e)
{
    const struct tsr_tc_part *hp = first_hole(isa, &isa->alts[isa->opnds[e->p->arg].alt + e->pw]);
    return hp && hp->kind == TSR_TC_TABLE ? hp : NULL;
}

/* The fields a kept answer r can be settled on by one code (struct tsr_dis_spine kf), for PINS only: the field of
 * kept_hole first (the only one with a hole: e->hole), then those every open alternative has a row on. */
static void spin_kf(const struct tsr_tc_isa *isa, struct tsr_dis_spine *e, const struct tsr_dis_early *req, int r)
{
    e->nkf = 0;
    if (r != TSR_DIS_SPIN_PINS)
        return;
    const struct tsr_tc_part *hp = kept_hole(isa, e);
    if (hp)
        e->kf[e->nkf++] = (uint16_t)hp->field;
    if (e->hole || !e->nreq)
        return;
    tsr_dis_early_fields(req, e->nreq, e->kf, &e->nkf, TSR_DIS_EHOLES);
}

/* The question's slow halves, kept out of line so that a kept answer costs the look-up and a bit or two (cold: the
 * compiler lays them out of the hot path). */
#if defined(__GNUC__) || defined(__clang__)
#define SPIN_SLOW __attribute__((noinline, cold))
#else
#define SPIN_SLOW
#endif

/* open_ones for a kept entry e, its PINS answer settled by the code of one field kept as bit c of km[m].  Sound:
 * open_ones answers PINS when the printed alternative's hole question holds (e->hole: hole_other_kept) and every
 * open alternative is ruled out by its rows (tsr_dis_early_never returns at the first NEVER of its rows) or by
 * hole_other_kept.  A row entry depends on the operand part, its template end, the two alternatives, the hole and
 * the code only, and once decided never changes; hole_other_kept depends, of the fields, on the code of the
 * printed alternative's first hole only (hole_codes), its other inputs being e's key; a kept entry's key and open
 * alternatives are never replaced.  So when code c of field kf[m] gives each of those answers by itself (a row on
 * kf[m] says NEVER at c, or kf[m] is that first hole's field and hole_other_kept holds; with e->hole, kf[m] is
 * that field), the answer is PINS in every bundle that asks e's key with that code (open_kept). */
static SPIN_SLOW int open_learn(struct tsr_dis_static *st, struct tsr_dis_spins *S, struct tsr_dis_spine *e,
                                const uint64_t *f)
{
    const struct tsr_tc_isa *isa = st->isa;
    const struct tsr_dis_early *req = e->nreq ? S->req + e->req : NULL;   /* none kept: S->req may be NULL */
    int r = open_ones(st, S, e, req, e->nreq, f);
    if (r != TSR_DIS_SPIN_PINS || !e->nkf)
        return r;
    const struct tsr_tc_part *hp = kept_hole(isa, e);
    const struct tsr_tc_opnd *o = &isa->opnds[e->p->arg];
    const struct tsr_tc_alt *pa = &isa->alts[o->alt + e->pw];
    bool last = e->p + 1 == e->end;
    for (unsigned m = 0; m < e->nkf; m++) {
        uint64_t c = f[e->kf[m]];
        bool byhole = hp && hp->field == e->kf[m];
        bool all = c < 64 && (byhole || !e->hole);
        for (unsigned i = 0; i < e->nreq && all; i++) {
            const struct tsr_dis_erow *w = tsr_dis_early_row(&req[i], e->kf[m]);
            all = (w && c < w->len && w->row[c] == TSR_DIS_NEVER) ||
                  (byhole && hole_other_kept(S, isa, &isa->alts[o->alt + req[i].alt], pa, e->field, e->v, f, last));
        }
        if (all)
            e->km[m] |= (uint64_t)1 << c;
    }
    return r;
}

/* open_ones for a kept entry e: first by the codes kept (km), else open_learn. */
static inline int open_kept(struct tsr_dis_static *st, struct tsr_dis_spins *S, struct tsr_dis_spine *e,
                            const uint64_t *f)
{
    if (!e->hole && !e->nreq)
        return TSR_DIS_SPIN_PINS;
    for (unsigned m = 0; m < e->nkf; m++) {   /* open_learn */
        uint64_t c = f[e->kf[m]];
        if (c < 64 && (e->km[m] >> c & 1))
            return TSR_DIS_SPIN_PINS;
    }
    return open_learn(st, S, e, f);
}

/* The answer for a key not kept (k, its fields set): computed, and kept in entry e (NULL: the entries for its hash
 * are taken, so it is not kept). */
static SPIN_SLOW int spin_new(struct tsr_dis_exact *x, struct tsr_dis_spine *e, struct tsr_dis_spine k,
                              const uint64_t *f)
{
    struct tsr_dis_spins *S = &x->spin;
    struct tsr_dis_early req[TSR_DIS_SPIN_REQ];
    unsigned n;
    int r = compute(&x->st, &k, req, &n);
    if (e) {
        if (S->nreq + n > S->creq) {
            S->creq = S->creq ? S->creq * 2 : 256;
            S->req = tsr_xrealloc(S->req, S->creq * sizeof *S->req);
        }
        for (unsigned i = 0; i < n; i++)
            S->req[S->nreq + i] = req[i];
        k.req = (uint32_t)S->nreq, k.nreq = (uint8_t)n;
        S->nreq += n;
        k.state = (uint8_t)(r + 1);
        spin_kf(x->st.isa, &k, req, r);
        *e = k;
        return r == TSR_DIS_SPIN_PINS ? open_kept(&x->st, S, e, f) : r;
    }
    return r == TSR_DIS_SPIN_PINS ? open_ones(&x->st, S, &k, req, n, f) : r;
}

int tsr_dis_spin(const struct tsr_tc_isa *isa, struct tsr_dis_exact *x, unsigned fmt, unsigned a, uint32_t t0,
                 unsigned pw, unsigned field, uint64_t v, const uint64_t *f)
{
    return tsr_dis_spin_at(isa, x, fmt, a, 0xff, t0, pw, 0xff, field, v, f);
}

/* li 0xff: the leading operand (tsr_dis_spin), else an anchored one, asked for a part read as printed only */
int tsr_dis_spin_at(const struct tsr_tc_isa *isa, struct tsr_dis_exact *x, unsigned fmt, unsigned a, unsigned li,
                    uint32_t t0, unsigned pw, unsigned pwx, unsigned field, uint64_t v, const uint64_t *f)
{
    if (fmt >= isa->nformats || a >= isa->nops || field >= isa->nfields || fmt > UINT16_MAX || a > UINT16_MAX)
        return TSR_DIS_SPIN_OPEN;
    if (li != 0xff && (int)li == lead_kept(isa, &x->spin, a))
        li = 0xff;   /* the leading operand: one key, whichever way it is asked */
    if (!x->st.isa)
        tsr_dis_static_init(&x->st, isa);
    if (li != 0xff && (li >= TSR_DIS_LALT || li >= isa->ops[a].npart ||
                       isa->parts[isa->ops[a].part + li].kind != TSR_TC_OPND ||
                       (!anchored(&x->st, &x->spin, a, li) && !anchored_after(&x->st, &x->spin, a, li, pwx, pw, f))))
        return TSR_DIS_SPIN_OPEN;
    if (pw > 0xff)
        pw = 0xff;
    struct tsr_dis_spins *S = &x->spin;
    if (li == 0xff) {   /* compute()'s first answers, without the table: no leading operand, or FREE by may_bind */
        int l0 = lead_kept(isa, S, a);
        if (l0 < 0)
            return TSR_DIS_SPIN_FREE;
        const struct tsr_tc_part *p = isa->parts + isa->ops[a].part + l0;
        if (p->kind == TSR_TC_OPND && pw < isa->opnds[p->arg].nalt && l0 < TSR_DIS_LALT &&
            !may_bind(&x->st, S, isa->opnds[p->arg].alt + pw, field))
            return TSR_DIS_SPIN_FREE;
    }
    if (!S->e && !(S->e = calloc(TSR_DIS_SPIN, sizeof *S->e)))
        abort();
    v &= tsr_bits_mask(isa->fields[field].width);
    uint64_t h = ((uint64_t)fmt << 48 | (uint64_t)a << 32 | (uint64_t)pw << 24 | (uint64_t)li << 16 | field) *
                 0x9e3779b97f4a7c15u;
    h = (h ^ v ^ (uint64_t)t0 << 40) * 0xff51afd7ed558ccdu;
    struct tsr_dis_spine *e = NULL;
    for (unsigned j = 0; j < TSR_DIS_SPIN_PROBE && !e; j++) {
        struct tsr_dis_spine *c = &S->e[((h >> 40) + j) & (TSR_DIS_SPIN - 1)];
        if (c->state && c->v == v && c->field == field && c->t0 == t0 && c->fmt == fmt && c->a == a && c->li == li &&
            c->pw == pw) {
            int r = c->state - 1;
            return r == TSR_DIS_SPIN_PINS ? open_kept(&x->st, S, c, f) : r;
        }
        if (!c->state)
            e = c;   /* a new key: its answer is kept here */
    }
    struct tsr_dis_spine k = {.v = v, .field = field, .t0 = t0, .fmt = (uint16_t)fmt, .a = (uint16_t)a,
                              .li = (uint8_t)li, .pw = (uint8_t)pw};   /* a new key */
    return spin_new(x, e, k, f);
}

bool tsr_dis_spin_ops_field(const struct tsr_tc_isa *isa, struct tsr_dis_exact *x, unsigned fmt, size_t np,
                            const unsigned *pop, const struct tsr_dis_slotp *sp, size_t cur,
                            const uint8_t (*lalt)[TSR_DIS_LALT], unsigned field, uint64_t v, const uint64_t *f)
{
    for (size_t k = 0; k < np; k++) {
        unsigned a = pop[k];
        if (a >= isa->nops)
            continue;
        int lead = lead_kept(isa, &x->spin, a);
        uint32_t n = isa->ops[a].npart < TSR_DIS_LALT ? isa->ops[a].npart : TSR_DIS_LALT;
        /* a part after the current one takes a later slot; the others are read as printed */
        uint32_t t0 = k > cur ? sp[cur].t + 1 : TSR_DIS_SPIN_SELF;
        for (uint32_t i = 0; i < n; i++) {
            if ((int)i == lead || lalt[k][i] == 0xff)
                continue;
            /* an operand whose printed alternative cannot bind FIELD: compute() answers FREE (or OPEN before it),
             * never PINS */
            const struct tsr_tc_part *p = isa->parts + isa->ops[a].part + i;
            if (x->st.isa && p->kind == TSR_TC_OPND && lalt[k][i] < isa->opnds[p->arg].nalt &&
                !may_bind(&x->st, &x->spin, isa->opnds[p->arg].alt + lalt[k][i], field))
                continue;
            if (tsr_dis_spin_at(isa, x, fmt, a, i, t0, lalt[k][i], i ? lalt[k][i - 1] : 0xff, field, v, f) ==
                TSR_DIS_SPIN_PINS)
                return true;
        }
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
