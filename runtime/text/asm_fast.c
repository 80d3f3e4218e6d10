/* Per-isa tables and memos that keep the bundle assembler (asm_engine.c) from work that cannot change its
 * outcome (docs/asm.md "Speed"): the operand memo (struct oment, asm_match.h: an operand's matches over
 * the text window its alternatives read, enumerated once and replayed in every later bundle), which operand
 * alternatives can be refuted by their own conditions before their text is matched (am_alt_refuted), the ops
 * a part's leading identifier can name (kept per identifier across bundles), and the trie walk that finds the
 * names of a table at a position. */
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

static void add_chars(struct tsr_asm *a, unsigned o, const char *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)t[i];
        if (c < 128)
            a->ocls[(size_t)o * 256 + c] = 1;
        else   /* any character from 128 up */
            memset(a->ocls + (size_t)o * 256 + 128, 1, 128);
    }
}

/* Per operand: whether its matches may be kept (no operand inside) and the characters of its window: every
 * character of its literals and of its tables' names, blanks, and those of constant expressions when it has a
 * number (asm_expr.c: numbers, names, operators, parentheses). */
static void om_init(struct tsr_asm *a)
{
    static const char blanks[] = " \t\r\f\v", expr[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.+-*/%<>&^|~()";
    const struct tsr_tc_isa *isa = a->isa;
    a->opnd_ok = am_xrealloc(NULL, isa->nopnds + 1);
    a->ocls = am_xrealloc(NULL, ((size_t)isa->nopnds + 1) * 256);
    memset(a->ocls, 0, ((size_t)isa->nopnds + 1) * 256);
    for (unsigned o = 0; o < isa->nopnds; o++) {
        const struct tsr_tc_opnd *op = &isa->opnds[o];
        bool ok = op->nalt > 0;
        add_chars(a, o, blanks, sizeof blanks - 1);
        for (uint32_t i = 0; i < op->nalt; i++) {
            const struct tsr_tc_alt *al = &isa->alts[op->alt + i];
            for (uint32_t j = 0; j < al->npart; j++) {
                const struct tsr_tc_part *p = &isa->parts[al->part + j];
                switch (p->kind) {
                case TSR_TC_TEXT:
                case TSR_TC_OPT:
                    add_chars(a, o, p->text, p->len);
                    break;
                case TSR_TC_TABLE: {
                    const struct tsr_tc_table *T = &isa->tables[p->arg];
                    for (uint32_t k = 0; k < T->nnames; k++)
                        add_chars(a, o, isa->names[T->name_first + k].name, isa->names[T->name_first + k].len);
                    if (T->nnums)
                        add_chars(a, o, expr, sizeof expr - 1);
                    break;
                }
                case TSR_TC_INT:
                case TSR_TC_LABEL:
                    add_chars(a, o, expr, sizeof expr - 1);
                    break;
                case TSR_TC_OPND:
                    ok = false;
                    break;
                default:
                    break;
                }
            }
        }
        a->opnd_ok[o] = ok;
    }
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
    om_init(a);
}

void am_fast_free(struct tsr_asm *a)
{
    free(a->alt_pure);
    free(a->kbuf);
    a->alt_pure = NULL;
    a->kbuf = NULL;
    free(a->opnd_ok);
    free(a->ocls);
    free(a->omtab);
    free(a->omlist);
    free(a->omkeys);
    free(a->omouts);
    free(a->omacts);
    free(a->ract);
}

/* The trie walk: the names of table t at pos, shortest first. */
static unsigned walk(const struct tsr_asm *a, unsigned t, uint32_t pos, unsigned maxl, uint32_t cl[72],
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

unsigned am_table_names(const struct tsr_asm *a, unsigned t, uint32_t pos, unsigned maxl, uint32_t cl[72],
                        uint32_t cc[72])
{
    return walk(a, t, pos, maxl, cl, cc);
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

/* Is memo entry e the window of opnd at q: key bytes prev, the window w[0 .. n), then more (a character
 * follows: la) or the part's end? */
static bool om_same(const struct tsr_asm *a, const struct oment *e, unsigned opnd, char prev, const char *w,
                    uint32_t n, char more, char la)
{
    if (e->opnd != opnd || e->klen != n + 3)
        return false;
    const char *k = a->omkeys + e->key;
    if (k[0] != prev || k[n + 1] != more || k[n + 2] != la)
        return false;
    for (uint32_t i = 0; i < n; i++)
        if (k[i + 1] != w[i])
            return false;
    return true;
}

struct oment *am_om_find(struct tsr_asm *a, unsigned opnd, uint32_t q, bool *fresh)
{
    if (a->exact || !a->opnd_ok[opnd] || (a->syms && a->syms->count))
        return NULL;
    /* the same operand at the same place in this search: the same entry */
    struct omrecent *r = &a->omrecent[(q * 31u + opnd) & (OM_RECENT - 1)];
    if (r->gen == a->gen && r->q == q && r->opnd == opnd && r->lim == a->lim) {
        *fresh = false;
        return &a->omlist[r->idx];
    }
    /* the window: q up to the first character not of the operand's, then that character (or the end); the
     * character before q matters only as an identifier character or none (the blank rule) */
    const uint8_t *cs = &a->ocls[(size_t)opnd * 256];
    const char *s = a->s;
    char prev = (char)(q == 0 ? 0 : tsr_asm_isident(s[q - 1]) ? 1 : 2);
    uint64_t h = (1469598103934665603u ^ opnd ^ (uint64_t)(unsigned char)prev << 32) * 1099511628211u;
    uint32_t x = q;
    for (; x < a->lim && cs[(unsigned char)s[x]]; x++)
        h = (h ^ (unsigned char)s[x]) * 1099511628211u;   /* FNV-1a */
    uint32_t n = x - q;
    char more = (char)(x < a->lim), la = x < a->lim ? s[x] : 0;
    h = ((h ^ (unsigned char)more) * 1099511628211u ^ (unsigned char)la) * 1099511628211u;
    h ^= h >> 29;
    if (n > 4096)
        return NULL;
    if (!a->omtab) {
        a->omtab = am_xrealloc(NULL, 2 * OM_ENTRIES * sizeof *a->omtab);
        memset(a->omtab, 0, 2 * OM_ENTRIES * sizeof *a->omtab);
        a->omlist = am_xrealloc(NULL, OM_ENTRIES * sizeof *a->omlist);
    }
    uint32_t slot = (uint32_t)h & (2 * OM_ENTRIES - 1);
    for (; a->omtab[slot]; slot = (slot + 1) & (2 * OM_ENTRIES - 1)) {
        struct oment *e = &a->omlist[a->omtab[slot] - 1];
        if (e->h == h && om_same(a, e, opnd, prev, s + q, n, more, la)) {
            *fresh = false;
            *r = (struct omrecent){a->gen, q, opnd, a->lim, a->omtab[slot] - 1};
            return e;
        }
    }
    size_t klen = (size_t)n + 3;
    if (a->nom >= OM_ENTRIES || a->nomkeys + klen > OM_POOL || a->nomouts * sizeof *a->omouts > OM_POOL ||
        a->nomacts * sizeof *a->omacts > OM_POOL)
        return NULL;
    while (a->nomkeys + klen > a->comkeys) {
        a->comkeys = a->comkeys ? 2 * a->comkeys : 65536;
        a->omkeys = am_xrealloc(a->omkeys, a->comkeys);
    }
    char *k = a->omkeys + a->nomkeys;
    k[0] = prev;
    memcpy(k + 1, s + q, n);
    k[n + 1] = more;
    k[n + 2] = la;
    struct oment *e = &a->omlist[a->nom++];
    *e = (struct oment){.h = h, .opnd = opnd, .klen = (uint32_t)klen, .key = (uint32_t)a->nomkeys,
                        .out = (uint32_t)a->nomouts};
    a->nomkeys += klen;
    a->omtab[slot] = a->nom;
    *r = (struct omrecent){a->gen, q, opnd, a->lim, a->nom - 1};
    *fresh = true;
    return e;
}

void am_om_act(struct tsr_asm *a, struct omact x)
{
    PUSH(a->ract, a->nract, a->cract);
    a->ract[a->nract++] = x;
}

void am_om_out(struct tsr_asm *a, uint32_t end, uint32_t alt, size_t from)
{
    size_t n = a->nract - from;
    PUSH(a->omouts, a->nomouts, a->comouts);
    a->omouts[a->nomouts++] = (struct omout){end, alt, (uint32_t)a->nomacts, (uint32_t)n};
    while (a->nomacts + n > a->comacts) {
        a->comacts = a->comacts ? 2 * a->comacts : 1024;
        a->omacts = am_xrealloc(a->omacts, a->comacts * sizeof *a->omacts);
    }
    memcpy(a->omacts + a->nomacts, a->ract + from, n * sizeof *a->omacts);
    a->nomacts += n;
}

void am_om_done(struct tsr_asm *a, struct oment *e, size_t first_out, size_t first_act, bool live)
{
    e->out = (uint32_t)first_out;
    e->nout = (uint32_t)(a->nomouts - first_out);
    if (live || e->nout > OM_OUTS) {   /* not kept: matched as before from now on */
        e->live = true;
        e->nout = 0;
        a->nomouts = first_out;
        a->nomacts = first_act;
    }
}
