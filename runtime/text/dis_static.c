/* Facts about a description that the disassembler's exactness proof rests on, decided once per isa
 * (dis_exact.h): whether a choice the assembler tries before the printed one can match any text the printed
 * one prints, whatever the field values.
 *
 * The question is asked of two template sequences side by side: J, read by the matcher (asm_engine.c), and
 * K, printed by the printer (dis_engine.c).  Both are walked in lockstep over their non-blank characters:
 *  - blanks are dropped on both sides (the matcher skips them before every part and a blank in a literal
 *    matches any run of them, so keeping them could only make more texts fail);
 *  - a literal character of J must equal the character K prints there;
 *  - a table name is spelled out character by character (J: every name of the table, as the trie matches
 *    them; K: every name the table prints); a name of J equal to one of K continues both after the hole;
 *  - a number hole of J (`{FIELD}`, `{label:...}`, a table's numeric entries) can only start with a
 *    character a constant expression starts with: a digit, `-`, `+`, `~`, `(`, `.`, or `L` (a label
 *    `L<hex>`; no other name resolves: the round trip check has no symbols); K prints numbers starting with
 *    a digit or `-`, labels with `L`;
 *  - where J's hole meets a K hole that prints numbers (or the reverse) nothing is decided (MAYBE);
 *  - optional text and operand alternatives branch: every way is followed (conditions are ignored on both
 *    sides, which only adds ways).
 * Every simplification adds texts that J may match, so NEVER is sound; the walk has a step budget, and a
 * question over budget is answered MAYBE.
 *
 * The questions (each answered on first use and kept for the isa's disassembler context):
 *  - op B against op A: a whole bundle part (formats, slots, ops tried first); also with one operand of A
 *    held to the alternative printed (tsr_dis_op_alts);
 *  - alternatives j and k of an operand in its place in an op's template, each followed by the rest of the
 *    template (tsr_dis_alt_ctx, tsr_dis_alt_maybe), also with one table hole of k held to the entry
 *    printed, the others free, for each of k's holes (tsr_dis_alt_hole, tsr_dis_alt_entry: `t1b` is in both
 *    write tables, `ra28` in one; the pack `16a` is a name of the regfile-A pack table only);
 *  - the same with the printed alternative's optional texts printed or not as they were (tsr_dis_alt_opts, asked
 *    when a plan is compiled: ` -` against `.setf -`);
 *  - a table name against the longer names of its table, followed by the rest (tsr_dis_longer);
 *  - places with the same rest of template share their answers (canon_init).
 * The round trip check has no symbols (tsr_asm_new without tsr_asm_use_syms): the facts assume none.
 */
#include <stdlib.h>
#include <string.h>

#include "asm_engine.h"
#include "dis_lockstep.h"
#include "xalloc.h"

/* Do two template parts print and match alike (fields and conditions aside)? */
static bool same_part(const struct tsr_tc_part *a, const struct tsr_tc_part *b)
{
    if (a->kind != b->kind || a->bound != b->bound)
        return false;
    switch (a->kind) {
    case TSR_TC_TEXT:
    case TSR_TC_OPT:
        return a->len == b->len && memcmp(a->text, b->text, a->len) == 0;
    case TSR_TC_TABLE:
    case TSR_TC_OPND:
        return a->arg == b->arg;
    default:
        return true;
    }
}

/* canon[i] for every part i of an op's template: the first part (in isa->parts order) whose rest of template,
 * itself included, is made of the same parts (same_part); questions about a place in a template depend on
 * nothing else, so ops that share their endings share the answers. */
static void canon_init(struct tsr_dis_static *st)
{
    const struct tsr_tc_isa *isa = st->isa;
    st->canon = tsr_xcalloc((st->nparts + 1) * sizeof *st->canon, 1);
    st->cend = tsr_xcalloc((st->nparts + 1) * sizeof *st->cend, 1);
    uint64_t *h = tsr_xcalloc((st->nparts + 1) * sizeof *h, 1);
    for (uint32_t i = 0; i < st->nparts; i++)
        st->canon[i] = UINT32_MAX;
    for (unsigned o = 0; o < isa->nops; o++) {
        const struct tsr_tc_op *op = &isa->ops[o];
        uint64_t x = 1469598103934665603u;
        for (uint32_t i = op->npart; i-- > 0;) {   /* hash of the rest of the template */
            const struct tsr_tc_part *p = &isa->parts[op->part + i];
            x = (x ^ ((uint64_t)p->kind << 32 | (uint64_t)p->arg << 8 | p->len | (uint64_t)p->bound << 40)) * 1099511628211u;
            for (uint16_t c = 0; (p->kind == TSR_TC_TEXT || p->kind == TSR_TC_OPT) && c < p->len; c++)
                x = (x ^ (unsigned char)p->text[c]) * 1099511628211u;
            h[op->part + i] = x;
            st->cend[op->part + i] = op->part + op->npart;
        }
    }
    for (unsigned o = 0; o < isa->nops; o++) {
        const struct tsr_tc_op *op = &isa->ops[o];
        for (uint32_t i = 0; i < op->npart; i++) {
            uint32_t at = op->part + i, n = op->npart - i;
            if (st->canon[at] != UINT32_MAX)
                continue;
            st->canon[at] = at;
            for (unsigned o2 = o + 1; o2 < isa->nops; o2++) {   /* the same ending in later ops */
                const struct tsr_tc_op *op2 = &isa->ops[o2];
                if (op2->npart < n)
                    continue;
                uint32_t at2 = op2->part + op2->npart - n;
                if (st->canon[at2] != UINT32_MAX || h[at2] != h[at])
                    continue;
                bool same = true;
                for (uint32_t k = 0; k < n && same; k++)
                    same = same_part(&isa->parts[at + k], &isa->parts[at2 + k]);
                if (same)
                    st->canon[at2] = at;
            }
        }
    }
    free(h);
}

/* The canonical place of op-template part p (ending at end), in *p and *end; others are left. */
static void canon(const struct tsr_dis_static *st, const struct tsr_tc_part **p, const struct tsr_tc_part **end)
{
    size_t at = (size_t)(*p - st->isa->parts);
    if (at < st->nparts && st->canon[at] != UINT32_MAX) {
        *p = st->isa->parts + st->canon[at];
        *end = st->isa->parts + st->cend[st->canon[at]];
    }
}

void tsr_dis_static_init(struct tsr_dis_static *st, const struct tsr_tc_isa *isa)
{
    memset(st, 0, sizeof *st);
    st->isa = isa;
    for (unsigned o = 0; o < isa->nopnds; o++) {
        const struct tsr_tc_opnd *O = &isa->opnds[o];
        if (O->alt + O->nalt > st->nalts)
            st->nalts = O->alt + O->nalt;
        if (O->nalt > st->maxalt)
            st->maxalt = O->nalt;
        for (uint32_t i = 0; i < O->nalt; i++)
            if (isa->alts[O->alt + i].part + isa->alts[O->alt + i].npart > st->nparts)
                st->nparts = isa->alts[O->alt + i].part + isa->alts[O->alt + i].npart;
    }
    for (unsigned i = 0; i < isa->nops; i++)
        if (isa->ops[i].part + isa->ops[i].npart > st->nparts)
            st->nparts = isa->ops[i].part + isa->ops[i].npart;
    st->alt_ctx = tsr_xcalloc((size_t)st->nparts * st->maxalt * st->maxalt, 1);
    st->alt_mask = tsr_xcalloc((size_t)st->nparts * st->maxalt * sizeof *st->alt_mask, 1);
    st->amap = tsr_xcalloc(TSR_DIS_AMAP * sizeof *st->amap, 1);
    canon_init(st);
    st->tpair = tsr_xcalloc((size_t)isa->ntables * isa->ntables * sizeof *st->tpair, 1);
    st->tflags = tsr_xcalloc(isa->ntables, 1);
    st->rowlen = tsr_xcalloc((isa->ntables + 1) * sizeof *st->rowlen, 1);
    for (unsigned t = 0; t < isa->ntables; t++) {
        const struct tsr_tc_table *T = &isa->tables[t];
        uint32_t n = T->nprint ? isa->prints[T->print_first + T->nprint - 1].code + 1 : 0;
        st->rowlen[t] = n <= 4096 ? n : 0;
    }
    st->name_rt = tsr_xcalloc((size_t)isa->ntables * sizeof *st->name_rt, 1);
    st->lkey = tsr_xcalloc(TSR_DIS_LMAP * sizeof *st->lkey, 1);
    /* per alternative, its top-level table holes that have rows (the table prints codes below 4096): the one
     * with the most entries first (it rules out the most), then the others in template order */
    st->hfirst = tsr_xcalloc((st->nalts + 2) * sizeof *st->hfirst, 1);
    size_t nh = 0;
    for (unsigned a = 0; a < st->nalts; a++)
        nh += isa->alts[a].npart;
    st->holes = tsr_xcalloc((nh + 1) * sizeof *st->holes, 1);
    for (uint32_t a = 0, n = 0; a < st->nalts; a++) {
        const struct tsr_tc_alt *al = &isa->alts[a];
        st->hfirst[a] = n;
        for (uint32_t i = 0; i < al->npart; i++) {
            const struct tsr_tc_part *h = &isa->parts[al->part + i];
            if (h->kind != TSR_TC_TABLE || !st->rowlen[h->arg])
                continue;
            uint32_t at = n++;
            if (at > st->hfirst[a] && isa->tables[h->arg].nprint > isa->tables[isa->parts[st->holes[st->hfirst[a]]].arg].nprint) {
                st->holes[at] = st->holes[st->hfirst[a]];   /* the largest so far moves to the front */
                at = st->hfirst[a];
            }
            st->holes[at] = al->part + i;
        }
        st->hfirst[a + 1] = n;
    }
    st->lrow = tsr_xcalloc(TSR_DIS_LMAP * sizeof *st->lrow, 1);
    for (unsigned t = 0; t < isa->ntables; t++) {
        const struct tsr_tc_table *T = &isa->tables[t];
        uint8_t f = T->nnums ? TF_NUMS : 0;
        for (uint32_t i = 0; i < T->nnames; i++) {
            const struct tsr_tc_name *n = &isa->names[T->name_first + i];
            if (!n->len)
                f |= TF_EMPTY;
            else if (tsr_dis_num_print_start((unsigned char)n->name[0]) || n->name[0] == 'L')
                f |= TF_NAME_NUM;
        }
        for (uint32_t i = 0; i < T->nprint; i++) {
            const struct tsr_tc_print *pr = &isa->prints[T->print_first + i];
            if (pr->kind != TSR_TC_PRINT_NAME)
                f |= TF_PNUM;
            else if (!pr->name[0])
                f |= TF_PEMPTY;
            else if (tsr_dis_expr_start((unsigned char)pr->name[0]))
                f |= TF_PNAME_EXPR;
        }
        st->tflags[t] = f;
    }
    tsr_dis_first_init(st);
    st->op_pair = tsr_xcalloc((size_t)isa->nops * isa->nops, 1);
    st->alt_pair = tsr_xcalloc((size_t)st->nalts * st->nalts, 1);
    st->fmt_never = tsr_xcalloc((size_t)isa->nops * isa->nformats, 1);
    st->slot_never = tsr_xcalloc((size_t)isa->nops * isa->nslots, 1);
    st->before_never = tsr_xcalloc(isa->nops, 1);
    st->sops = tsr_xcalloc((size_t)isa->nops * isa->nslots * sizeof *st->sops, 1);
}

void tsr_dis_static_free(struct tsr_dis_static *st)
{
    tsr_dis_num_free(st);
    free(st->op_pair);
    free(st->alt_pair);
    free(st->alt_ctx);
    free(st->alt_mask);
    free(st->amap);
    free(st->canon);
    free(st->cend);
    if (st->tpair)
        for (size_t i = 0; i < (size_t)st->isa->ntables * st->isa->ntables; i++)
            free(st->tpair[i].rem);
    free(st->tpair);
    free(st->tflags);
    tsr_dis_first_free(st);
    free(st->rowlen);
    for (size_t i = 0; st->name_rt && i < st->isa->ntables; i++)
        free(st->name_rt[i]);
    free(st->name_rt);
    for (size_t i = 0; st->lrow && i < TSR_DIS_LMAP; i++)
        free(st->lrow[i]);
    free(st->lrow);
    free(st->lkey);
    free(st->hfirst);
    free(st->holes);
    free(st->pfx);
    free(st->fmt_never);
    free(st->slot_never);
    free(st->before_never);
    for (size_t i = 0; st->sops && i < (size_t)st->isa->nops * st->isa->nslots; i++)
        free(st->sops[i]);
    free(st->sops);
    memset(st, 0, sizeof *st);
}

int tsr_dis_op_pair(struct tsr_dis_static *st, unsigned b, unsigned a)
{
    const struct tsr_tc_isa *isa = st->isa;
    uint8_t *r = &st->op_pair[(size_t)b * isa->nops + a];
    if (*r == TSR_DIS_UNKNOWN) {
        const struct tsr_tc_op *B = &isa->ops[b], *A = &isa->ops[a];
        *r = (uint8_t)tsr_dis_ask(st, isa->parts + B->part, B->npart, isa->parts + A->part, A->npart, NULL, NULL, false);
    }
    return *r;
}

int tsr_dis_alt_pair(struct tsr_dis_static *st, unsigned j, unsigned k)
{
    const struct tsr_tc_isa *isa = st->isa;
    uint8_t *r = &st->alt_pair[(size_t)j * st->nalts + k];
    if (*r == TSR_DIS_UNKNOWN) {
        const struct tsr_tc_alt *J = &isa->alts[j], *K = &isa->alts[k];
        *r = (uint8_t)tsr_dis_ask(st, isa->parts + J->part, J->npart, isa->parts + K->part, K->npart, NULL, NULL, true);
    }
    return *r;
}

int tsr_dis_alt_ctx(struct tsr_dis_static *st, const struct tsr_tc_part *p, const struct tsr_tc_part *end, unsigned j,
                    unsigned k)
{
    const struct tsr_tc_isa *isa = st->isa;
    canon(st, &p, &end);
    size_t at = (size_t)(p - isa->parts);
    if (at >= st->nparts || j >= st->maxalt || k >= st->maxalt)
        return TSR_DIS_MAYBE;
    uint8_t *r = &st->alt_ctx[(at * st->maxalt + j) * st->maxalt + k];
    if (*r == TSR_DIS_UNKNOWN) {
        const struct tsr_tc_opnd *o = &isa->opnds[p->arg];
        const struct tsr_tc_alt *J = &isa->alts[o->alt + j], *K = &isa->alts[o->alt + k];
        *r = (uint8_t)tsr_dis_ask(st, isa->parts + J->part, J->npart, isa->parts + K->part, K->npart, p + 1, end, false);
    }
    return *r;
}

int tsr_dis_alt_opts(struct tsr_dis_static *st, const struct tsr_tc_part *p, const struct tsr_tc_part *end, unsigned j,
                     unsigned k, const uint8_t *what)
{
    const struct tsr_tc_isa *isa = st->isa;
    const struct tsr_tc_opnd *o = &isa->opnds[p->arg];
    if (j >= o->nalt || k >= o->nalt)
        return TSR_DIS_MAYBE;
    const struct tsr_tc_alt *J = &isa->alts[o->alt + j], *K = &isa->alts[o->alt + k];
    return tsr_dis_ask_opts(st, isa->parts + J->part, J->npart, isa->parts + K->part, K->npart, p + 1, end, what);
}

/* Whether every op of slot s (those declared before op `before` only, when before < nops) is NEVER for a. */
static bool slot_ops_never(struct tsr_dis_static *st, unsigned a, unsigned s, unsigned before)
{
    const struct tsr_tc_isa *isa = st->isa;
    const struct tsr_tc_slot *S = &isa->slots[s];
    for (uint32_t i = 0; i < S->nop; i++) {
        unsigned b = isa->idx[S->op + i];
        if (b < before && isa->ops[b].slot == s && tsr_dis_op_pair(st, b, a) != TSR_DIS_NEVER)
            return false;
    }
    return true;
}

bool tsr_dis_slot_never(struct tsr_dis_static *st, unsigned a, unsigned s)
{
    uint8_t *r = &st->slot_never[(size_t)a * st->isa->nslots + s];
    if (*r == TSR_DIS_UNKNOWN)
        *r = slot_ops_never(st, a, s, st->isa->nops) ? TSR_DIS_NEVER : TSR_DIS_MAYBE;
    return *r == TSR_DIS_NEVER;
}

bool tsr_dis_before_never(struct tsr_dis_static *st, unsigned a)
{
    uint8_t *r = &st->before_never[a];
    if (*r == TSR_DIS_UNKNOWN)
        *r = slot_ops_never(st, a, st->isa->ops[a].slot, a) ? TSR_DIS_NEVER : TSR_DIS_MAYBE;
    return *r == TSR_DIS_NEVER;
}

const uint32_t *tsr_dis_slot_ops(struct tsr_dis_static *st, unsigned a, unsigned s, uint32_t *n)
{
    const struct tsr_tc_isa *isa = st->isa;
    uint32_t **r = &st->sops[(size_t)a * isa->nslots + s];
    if (!*r) {
        const struct tsr_tc_slot *S = &isa->slots[s];
        uint32_t *l = tsr_xcalloc((S->nop + 1) * sizeof *l, 1), c = 0;
        for (uint32_t i = 0; i < S->nop; i++) {
            unsigned b = isa->idx[S->op + i];
            if (b == a || tsr_dis_op_pair(st, b, a) != TSR_DIS_NEVER)
                l[1 + c++] = b;
        }
        l[0] = c;
        *r = l;
    }
    *n = (*r)[0];
    return *r + 1;
}

bool tsr_dis_fmt_never(struct tsr_dis_static *st, unsigned a, unsigned g)
{
    const struct tsr_tc_isa *isa = st->isa;
    uint8_t *r = &st->fmt_never[(size_t)a * isa->nformats + g];
    if (*r == TSR_DIS_UNKNOWN) {
        const struct tsr_tc_format *G = &isa->formats[g];
        bool never = true;
        for (uint32_t t = 0; t < G->nslot && never; t++)
            never = tsr_dis_slot_never(st, a, isa->idx[G->slot + t]);
        *r = never ? TSR_DIS_NEVER : TSR_DIS_MAYBE;
    }
    return *r == TSR_DIS_NEVER;
}

const struct tsr_tc_print *tsr_dis_print_of(const struct tsr_tc_isa *isa, unsigned t, uint64_t c)
{
    const struct tsr_tc_table *T = &isa->tables[t];
    const struct tsr_tc_print *pr = isa->prints + T->print_first;
    if (T->print_dense)
        return c < T->nprint ? &pr[c] : NULL;
    uint32_t lo = 0, hi = T->nprint;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (pr[mid].code == c)
            return &pr[mid];
        if (pr[mid].code < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* The cache byte of code c in a per-table or per-part row of maxcode(t) bytes (allocated on first use), or
 * NULL when c is beyond it. */
static uint8_t *row_byte(const struct tsr_dis_static *st, uint8_t **rows, size_t i, unsigned t, uint64_t c)
{
    uint32_t n = st->rowlen[t];
    if (c >= n)
        return NULL;
    if (!rows[i])
        rows[i] = tsr_xcalloc(n, 1);
    return &rows[i][c];
}

bool tsr_dis_name_ok(struct tsr_dis_static *st, unsigned t, uint64_t c)
{
    const struct tsr_tc_isa *isa = st->isa;
    uint8_t *r = row_byte(st, st->name_rt, t, t, c);
    if (!r)
        return false;
    if (*r == TSR_DIS_UNKNOWN) {
        const struct tsr_tc_print *pr = tsr_dis_print_of(isa, t, c);
        const struct tsr_tc_table *T = &isa->tables[t];
        bool ok = pr && pr->kind == TSR_TC_PRINT_NAME && T->nnames;
        const struct tsr_tc_trie *n = ok ? &isa->tries[T->trie] : NULL;
        for (const char *q = ok ? pr->name : ""; *q && n; q++) {
            const struct tsr_tc_trie *k = &isa->tries[n->kid], *next = NULL;
            for (uint32_t i = 0; i < n->nkid && !next; i++)
                if (k[i].ch == (uint8_t)*q)
                    next = &k[i];
            n = next;
        }
        ok = ok && n && n->term && n->code == c;
        *r = ok ? TSR_DIS_NEVER : TSR_DIS_MAYBE;
    }
    return *r == TSR_DIS_NEVER;
}

/* The row of a question's context in the map of answers by code (tsr_dis_longer: part and continuation;
 * tsr_dis_alt_entry: part and alternatives), allocated on first use; NULL when the map is full. */
static uint8_t **map_row(struct tsr_dis_static *st, uint64_t key)
{
    size_t cap = TSR_DIS_LMAP, h = (size_t)((key * 0x9e3779b97f4a7c15u) >> 52) % cap;
    for (size_t n = 0; n < cap; n++, h = (h + 1) % cap) {
        if (st->lkey[h] == key)
            return &st->lrow[h];
        if (!st->lkey[h]) {
            st->lkey[h] = key;
            return &st->lrow[h];
        }
    }
    return NULL;
}

/* The row of a table hole's place (tsr_dis_longer's arguments, canonical; tag: which question) in the map of
 * rows, or NULL. */
static uint8_t **place_row(struct tsr_dis_static *st, const struct tsr_tc_part **p, const struct tsr_tc_part **end,
                           const struct tsr_tc_part **cp, const struct tsr_tc_part **cend, uint64_t tag)
{
    if (*cp)
        canon(st, cp, cend);
    else
        canon(st, p, end);
    size_t at = (size_t)(*p - st->isa->parts), ci = *cp ? (size_t)(*cp - st->isa->parts) : st->nparts;
    return at < st->nparts && ci <= st->nparts ? map_row(st, tag | ((uint64_t)at * (st->nparts + 1) + ci + 1)) : NULL;
}

/* tsr_dis_prefixed for the name printed by entry pr (nl > 0 bytes) of table t, kept per (table, entry): the range
 * depends on nothing else. */
static void prefixed_of(struct tsr_dis_static *st, unsigned t, const struct tsr_tc_print *pr, uint32_t nl, uint32_t *lo,
                        uint32_t *hi)
{
    size_t e = (size_t)(pr - st->isa->prints);
    if (!st->pfx)
        st->pfx = tsr_xcalloc(((size_t)st->isa->ntables * st->nprints + 1) * sizeof *st->pfx, 1);
    uint64_t *r = &st->pfx[(size_t)t * st->nprints + e];
    if (!*r) {
        tsr_dis_prefixed(st, t, pr->name, nl, lo, hi);
        *r = (uint64_t)1 << 63 | (uint64_t)*lo << 32 | *hi;
        return;
    }
    *lo = (uint32_t)(*r >> 32) & 0x7fffffffu;
    *hi = (uint32_t)*r;
}

int tsr_dis_longer(struct tsr_dis_static *st, const struct tsr_tc_part *p, const struct tsr_tc_part *end,
                   const struct tsr_tc_part *cp, const struct tsr_tc_part *cend, uint64_t c)
{
    const struct tsr_tc_isa *isa = st->isa;
    uint8_t **row = place_row(st, &p, &end, &cp, &cend, 0);
    uint8_t *r = row ? row_byte(st, row, 0, p->arg, c) : NULL;
    if (!r)
        return TSR_DIS_MAYBE;
    if (*r == TSR_DIS_UNKNOWN) {
        const struct tsr_tc_print *pr = tsr_dis_print_of(isa, p->arg, c);
        const struct tsr_tc_table *T = &isa->tables[p->arg];
        bool maybe = !pr || pr->kind != TSR_TC_PRINT_NAME;
        size_t nl = maybe ? 0 : strlen(pr->name);
        struct q Q = {.st = st};
        struct cur R = {NULL, 0, cp, cend, NULL};
        /* the names longer than the printed one that start with it: when it is not empty, those of the range of
         * names with that prefix (tsr_dis_prefixed), in byte order.  Each is a question of its own (its own budget,
         * nothing kept from one to the next), and the answer is MAYBE when one of them is, so the order does not
         * change it. */
        uint32_t x0 = 0, x1 = T->nnames;
        if (nl)
            prefixed_of(st, p->arg, pr, (uint32_t)nl, &x0, &x1);
        for (uint32_t x = x0; x < x1 && !maybe; x++) {
            const struct tsr_tc_name *m = &isa->names[T->name_first + (nl ? st->jfirst[p->arg].sorted[x] : x)];
            if (m->len <= nl || memcmp(m->name, pr->name, nl) != 0)
                continue;
            struct cur J = {m->name + nl, (uint32_t)(m->len - nl), p + 1, end, cp ? &R : NULL};
            struct cur K = {NULL, 0, p + 1, end, cp ? &R : NULL};
            st->budget = TSR_DIS_QBUDGET;
            maybe = tsr_dis_ov(&Q, J, K);
        }
        *r = maybe ? TSR_DIS_MAYBE : TSR_DIS_NEVER;
    }
    return *r;
}

/* The map key of the row of alternative j against hole h of alternative k at op-template part `at`. */
static uint64_t hole_key(const struct tsr_dis_static *st, size_t at, unsigned j, unsigned k, unsigned h)
{
    return ((uint64_t)1 << 62) | ((((uint64_t)at * st->maxalt + j) * st->maxalt + k) << 8 | h);
}

int tsr_dis_alt_hole(struct tsr_dis_static *st, const struct tsr_tc_part *p, const struct tsr_tc_part *end, unsigned j,
                     unsigned k, unsigned h, uint64_t c)
{
    const struct tsr_tc_isa *isa = st->isa;
    canon(st, &p, &end);
    const struct tsr_tc_opnd *o = &isa->opnds[p->arg];
    size_t at = (size_t)(p - isa->parts);
    if (at >= st->nparts || j >= st->maxalt || k >= st->maxalt || h >= 256 ||
        h >= st->hfirst[o->alt + k + 1] - st->hfirst[o->alt + k])
        return TSR_DIS_MAYBE;
    const struct tsr_tc_part *hp = isa->parts + st->holes[st->hfirst[o->alt + k] + h];
    uint8_t **row = map_row(st, hole_key(st, at, j, k, h));
    uint8_t *r = row ? row_byte(st, row, 0, hp->arg, c) : NULL;
    if (!r)
        return TSR_DIS_MAYBE;
    if (*r == TSR_DIS_UNKNOWN) {
        const struct tsr_tc_print *pr = tsr_dis_print_of(isa, hp->arg, c);
        if (!pr) {
            *r = TSR_DIS_MAYBE;
        } else {
            const struct tsr_tc_alt *J = &isa->alts[o->alt + j], *K = &isa->alts[o->alt + k];
            struct cur R = {NULL, 0, p + 1, end, NULL};
            struct q Q = {.st = st, .kfix = hp, .knext = &R, .kpr = pr};
            struct cur Jc = {NULL, 0, isa->parts + J->part, isa->parts + J->part + J->npart, &R};
            struct cur Kc = {NULL, 0, isa->parts + K->part, isa->parts + K->part + K->npart, &R};
            st->budget = TSR_DIS_QBUDGET;
            *r = tsr_dis_ov(&Q, Jc, Kc) ? TSR_DIS_MAYBE : TSR_DIS_NEVER;
        }
    }
    return *r;
}

int tsr_dis_alt_entry(struct tsr_dis_static *st, const struct tsr_tc_part *p, const struct tsr_tc_part *end, unsigned j,
                      unsigned k, const uint64_t *f)
{
    const struct tsr_tc_isa *isa = st->isa;
    const struct tsr_tc_part *cp = p, *cend = end;
    canon(st, &cp, &cend);
    const struct tsr_tc_opnd *o = &isa->opnds[cp->arg];
    if ((size_t)(cp - isa->parts) >= st->nparts || k >= o->nalt)
        return TSR_DIS_MAYBE;
    uint32_t a = o->alt + k;
    for (uint32_t h = 0; h < st->hfirst[a + 1] - st->hfirst[a]; h++)
        if (tsr_dis_alt_hole(st, cp, cend, j, k, h, f[isa->parts[st->holes[st->hfirst[a] + h]].field]) == TSR_DIS_NEVER)
            return TSR_DIS_NEVER;
    return TSR_DIS_MAYBE;
}

#define NAME_TAG ((uint64_t)1 << 61)   /* place_row tag of tsr_dis_name_fast (tsr_dis_longer: 0) */

int tsr_dis_name_fast(struct tsr_dis_static *st, const struct tsr_tc_part *p, const struct tsr_tc_part *end,
                      const struct tsr_tc_part *cp, const struct tsr_tc_part *cend, uint64_t c)
{
    const struct tsr_tc_part *p0 = p, *e0 = end, *c0 = cp, *ce0 = cend;
    uint8_t **row = place_row(st, &p, &end, &cp, &cend, NAME_TAG);
    uint8_t *r = row ? row_byte(st, row, 0, p->arg, c) : NULL;
    if (r && *r != TSR_DIS_UNKNOWN)
        return *r;
    const struct tsr_tc_print *pr = tsr_dis_print_of(st->isa, p->arg, c);
    int v = pr && pr->kind == TSR_TC_PRINT_NAME && !tsr_asm_isblank((unsigned char)pr->name[0]) &&
                    tsr_dis_name_ok(st, p->arg, c) && tsr_dis_longer(st, p0, e0, c0, ce0, c) == TSR_DIS_NEVER
                ? TSR_DIS_NEVER
                : TSR_DIS_MAYBE;
    if (r)
        *r = (uint8_t)v;
    return v;
}

uint8_t *tsr_dis_name_row(struct tsr_dis_static *st, const struct tsr_tc_part *p, const struct tsr_tc_part *end,
                          const struct tsr_tc_part *cp, const struct tsr_tc_part *cend, uint32_t *len)
{
    uint8_t **row = place_row(st, &p, &end, &cp, &cend, NAME_TAG);
    *len = st->rowlen[p->arg];
    if (!row || !*len)
        return NULL;
    return row_byte(st, row, 0, p->arg, 0);
}

unsigned tsr_dis_alt_entry_rows(struct tsr_dis_static *st, const struct tsr_tc_part *p, const struct tsr_tc_part *end,
                                unsigned j, unsigned k, struct tsr_dis_erow *rows, unsigned max)
{
    const struct tsr_tc_isa *isa = st->isa;
    canon(st, &p, &end);
    const struct tsr_tc_opnd *o = &isa->opnds[p->arg];
    size_t at = (size_t)(p - isa->parts);
    if (at >= st->nparts || j >= st->maxalt || k >= st->maxalt || k >= o->nalt)
        return 0;
    uint32_t a = o->alt + k, n = 0;
    for (uint32_t h = 0; h < st->hfirst[a + 1] - st->hfirst[a] && h < 256 && n < max; h++) {
        const struct tsr_tc_part *hp = isa->parts + st->holes[st->hfirst[a] + h];
        uint8_t **row = map_row(st, hole_key(st, at, j, k, h));
        if (!row)
            break;   /* the map is full */
        rows[n++] = (struct tsr_dis_erow){.row = row_byte(st, row, 0, hp->arg, 0), .len = st->rowlen[hp->arg],
                                          .field = hp->field, .hole = h};
    }
    return n;
}

uint64_t tsr_dis_alt_maybe(struct tsr_dis_static *st, const struct tsr_tc_part *p, const struct tsr_tc_part *end,
                           unsigned k)
{
    const struct tsr_tc_isa *isa = st->isa;
    canon(st, &p, &end);
    size_t at = (size_t)(p - isa->parts);
    if (at >= st->nparts || k >= st->maxalt || k >= 63)
        return UINT64_MAX >> 1;
    uint64_t *m = &st->alt_mask[at * st->maxalt + k];
    if (!(*m >> 63)) {
        uint64_t x = (uint64_t)1 << 63;
        for (unsigned j = 0; j < k; j++)
            if (tsr_dis_alt_ctx(st, p, end, j, k) != TSR_DIS_NEVER)
                x |= (uint64_t)1 << j;
        *m = x;
    }
    return *m & (UINT64_MAX >> 1);
}

/* tsr_dis_op_pair with op a's operand part i printing its alternative alt only. */
static int op_alt1(struct tsr_dis_static *st, unsigned b, unsigned a, unsigned i, unsigned alt)
{
    const struct tsr_tc_isa *isa = st->isa;
    const struct tsr_tc_op *A = &isa->ops[a], *B = &isa->ops[b];
    uint64_t k1 = ((uint64_t)3 << 62) | b | (uint64_t)a << 16, k2 = (uint64_t)i << 8 | alt | (uint64_t)1 << 32;
    size_t cap = TSR_DIS_AMAP, h = (size_t)(((k1 ^ k2 * 0x2545f4914f6cdd1du) * 0x9e3779b97f4a7c15u) >> 40) % cap;
    for (size_t n = 0; n < cap; n++, h = (h + 1) % cap) {
        struct tsr_dis_akey *e = &st->amap[h];
        if (e->k1 == k1 && e->k2 == k2)
            return e->v;
        if (!e->k1) {
            uint8_t alts[TSR_DIS_LALT];
            memset(alts, 0xff, sizeof alts);
            alts[i] = (uint8_t)alt;
            struct q Q = {.st = st, .kbase = isa->parts + A->part, .nk = A->npart, .kalts = alts, .kept = true};
            struct cur J = {NULL, 0, isa->parts + B->part, isa->parts + B->part + B->npart, NULL};
            struct cur K = {NULL, 0, isa->parts + A->part, isa->parts + A->part + A->npart, NULL};
            st->budget = TSR_DIS_QBUDGET;
            e->k1 = k1, e->k2 = k2;
            e->v = tsr_dis_ov(&Q, J, K) ? TSR_DIS_MAYBE : TSR_DIS_NEVER;
            return e->v;
        }
    }
    return TSR_DIS_MAYBE;
}

int tsr_dis_op_alts(struct tsr_dis_static *st, unsigned b, unsigned a, const uint8_t *alts)
{
    const struct tsr_tc_op *A = &st->isa->ops[a];
    if (b >= 65536 || a >= 65536)
        return TSR_DIS_MAYBE;
    for (uint32_t i = 0; i < A->npart && i < TSR_DIS_LALT; i++)
        if (alts[i] != 0xff && op_alt1(st, b, a, i, alts[i]) == TSR_DIS_NEVER)
            return TSR_DIS_NEVER;
    return TSR_DIS_MAYBE;
}
