/* The fast bundle matcher: the search of the reference matcher (asm_engine.c, docs/asm.md "Matching a
 * bundle") without what diagnostics need (spans, verbs, failure records), so that a bundle that
 * assembles costs little.  The search is the same, choice for choice and in the same order, and so
 * is its first match.  What it adds only skips work whose outcome is known:
 *
 *  - Operands.  The textual parses of an operand at a position (each way one of its alternatives
 *    matches the text there, in search order: alternative, then longest name first, numeric codes in
 *    order, optional text present first) do not depend on the bindings made before: these only
 *    decide, by conflicts, which of the parses go on.  So an operand is enumerated once, in a scratch
 *    state with nothing bound, recording for each parse where it ends and what it did (the bindings of
 *    its holes, the conditions of its optional texts); the search then replays the parses in order,
 *    binding as the reference matcher does, and continues after each that binds without conflict.
 *    The enumeration notes what it looked at (the bytes from the position on, whether it looked for
 *    more at the end of the bundle part, the names it looked up as symbols, the pc), so its result is
 *    kept from bundle to bundle (struct tsr_ocache) and serves any text with the same bytes there.
 *  - Alternatives whose first character (tsr_tc_alt.first) is not the one at the position.
 *  - Template rests already seen to fail at a position "textually", i.e. without reaching their end
 *    and without a binding conflict: with other bindings a choice can only fail sooner, so they are
 *    remembered for the bundle under the rest's suffix id (tsr_tc_part.sid, shared by identical rests
 *    of different operations and formats) and the position: the rest of an op template after an
 *    operand, and whole op templates (their end is the end of the bundle part).
 *
 * A bundle it cannot match (or on which it gives up after STEP_LIMIT steps) goes to the reference
 * matcher, which finds the diagnostic (tsr_asm_bundle).
 */
#include <stdlib.h>
#include <string.h>

#include "asm_int.h"
#include "bits.h"

enum { K_SEQ, K_ALT, K_OP, K_REC };
enum { A_BIND, A_CONDS };

#define ENUM_STEPS 20000        /* enumeration steps per operand before the plain search is used */
#define OC_MAX (1u << 20)       /* bytes of kept operand parses before they are all forgotten */
#define OC_HEADS 4096

struct fk {
    uint8_t kind;
    uint16_t op;                         /* K_OP */
    uint16_t ai;                         /* K_REC: the alternative's index in its operand */
    int k, t;                            /* K_OP: bundle part, slot position */
    const struct tsr_tc_part *p, *end;   /* K_SEQ */
    const struct tsr_tc_alt *alt;        /* K_ALT */
    const struct fk *next;
};

struct fmark { size_t ntr, nchk, neq, nact; };

static inline struct fmark fmark(const struct tsr_fast *x)
{
    return (struct fmark){x->ntr, x->nchk, x->neq, x->nact};
}

static inline void frestore(struct tsr_fast *x, struct fmark m)
{
    while (x->ntr > m.ntr) {
        unsigned fd = x->tr[--x->ntr];
        x->f[fd] = 0;
        x->set[fd] = 0;
    }
    x->nchk = m.nchk;
    x->neq = m.neq;
    x->nact = m.nact;
}

static inline void fset(struct tsr_fast *x, unsigned field, uint64_t v)
{
    PUSH(x->tr, x->ntr, x->ctr);
    x->tr[x->ntr++] = (uint16_t)field;
    x->f[field] = v;
    x->set[field] = 1;
}

static inline bool fbind(struct tsr_asm *a, unsigned field, uint64_t v)
{
    struct tsr_fast *x = a->x;
    v &= a->mask[field];
    if (x->set[field]) {
        if (x->f[field] == v)
            return true;
        x->nconflict++;
        return false;
    }
    fset(x, field, v);
    return true;
}

static bool fbind_conds(struct tsr_asm *a, uint32_t first, uint32_t n)
{
    struct tsr_fast *x = a->x;
    const struct tsr_tc_cond *c = a->isa->conds + first;
    for (uint32_t i = 0; i < n; i++, c++) {
        switch (c->kind) {
        case TSR_TC_BIND:
            if (!fbind(a, c->field, c->val))
                return false;
            break;
        case TSR_TC_BIND2: {
            bool sa = x->set[c->field], sb = x->set[c->field2];
            if (sa && !fbind(a, c->field2, x->f[c->field]))
                return false;
            if (!sa && sb && !fbind(a, c->field, x->f[c->field2]))
                return false;
            if (!sa && !sb) {
                PUSH(x->eq, x->neq, x->ceq);
                x->eq[x->neq++] = (struct feq){c->field, c->field2};
            }
            break;
        }
        default:
            PUSH(x->chk, x->nchk, x->cchk);
            x->chk[x->nchk++] = (uint32_t)(c - a->isa->conds);
            break;
        }
    }
    return true;
}

/* The enumeration's log (replayed by the search, in order). */
static inline void log_act(struct tsr_fast *x, int kind, unsigned field, uint64_t val, uint32_t first, uint32_t n)
{
    PUSH(x->act, x->nact, x->cact);
    x->act[x->nact++] = (struct oact){(uint8_t)kind, (uint16_t)field, first, n, val};
}

/* A hole's binding (logged while enumerating). */
static inline bool fbind_hole(struct tsr_asm *a, unsigned field, uint64_t v)
{
    if (!fbind(a, field, v))
        return false;
    if (a->logging)
        log_act(a->x, A_BIND, field, v & a->mask[field], 0, 0);
    return true;
}

/* Copies values along the pending FIELD == FIELD equalities until nothing changes. */
static bool fpropagate(struct tsr_asm *a)
{
    struct tsr_fast *x = a->x;
    bool changed = true;
    while (changed) {
        changed = false;
        for (size_t i = 0; i < x->neq; i++) {
            const struct feq *e = &x->eq[i];
            bool sa = x->set[e->a], sb = x->set[e->b];
            if (sa == sb) {
                if (sa && ((x->f[e->a] ^ x->f[e->b]) & a->mask[e->a] & a->mask[e->b])) {
                    x->nconflict++;
                    return false;
                }
                continue;
            }
            unsigned from = sa ? e->a : e->b, to = sa ? e->b : e->a;
            fset(x, to, x->f[from] & a->mask[to]);
            changed = true;
        }
    }
    return true;
}

/* ---- memo of textual failures ------------------------------------------------------------------ */

static inline struct fmemo *memo_slot(struct tsr_asm *a, uint64_t key)
{
    return &a->memo2[(uint32_t)((key * 0x9e3779b97f4a7c15u) >> 55) & (sizeof a->memo2 / sizeof *a->memo2 - 1)];
}

static inline bool memo_has(struct tsr_asm *a, uint64_t key)
{
    const struct fmemo *m = memo_slot(a, key);
    return m->gen == a->gen2 && m->key == key;
}

static inline void memo_put(struct tsr_asm *a, uint64_t key)
{
    struct fmemo *m = memo_slot(a, key);
    m->key = key;
    m->gen = a->gen2;
}

static inline uint64_t memo_key(uint32_t sid, uint32_t pos)
{
    return (uint64_t)sid << 32 | pos;
}

/* ---- looking at the text ------------------------------------------------------------------------ *
 * Every look goes through lt (is i inside the part?  then i is looked at) and a read of a byte that lt
 * allowed (or that was consumed before), so that an enumeration knows what it depended on. */

static inline bool lt(struct tsr_asm *a, uint32_t i)
{
    if (i < a->lim) {
        if (i >= a->thi)
            a->thi = i + 1;
        return true;
    }
    a->tlim = true;
    return false;
}

static inline uint32_t fskip(struct tsr_asm *a, uint32_t pos)
{
    while (lt(a, pos) && tsr_asm_isblank(a->s[pos]))
        pos++;
    return pos;
}

/* Two identifier characters meet at pos (a blank is needed there)? */
static inline bool glued(struct tsr_asm *a, uint32_t pos)
{
    return pos > 0 && lt(a, pos) && tsr_asm_isident(a->s[pos - 1]) && tsr_asm_isident(a->s[pos]);
}

/* Literal text at pos (asm_engine.c lit_match). */
static inline bool flit(struct tsr_asm *a, const char *text, unsigned len, bool bound, uint32_t pos, uint32_t *end)
{
    const char *s = a->s;
    for (unsigned i = 0; i < len; i++) {
        if (text[i] == ' ') {
            uint32_t q = fskip(a, pos);
            if (q == pos && glued(a, pos))
                return false;
            pos = q;
            continue;
        }
        if (!lt(a, pos) || s[pos] != text[i])
            return false;
        pos++;
    }
    if (bound && len && tsr_asm_isident(text[len - 1]) && lt(a, pos) && tsr_asm_isident(s[pos]))
        return false;
    *end = pos;
    return true;
}

/* What an enumeration learns from an expression parse. */
static void expr_dep(struct tsr_asm *a, const struct tsr_asm_dep *d)
{
    if (d->hi > a->thi)
        a->thi = (uint32_t)d->hi;
    a->tlim |= d->atlim;
    a->tfound |= d->found;
    for (unsigned i = 0; i < d->nnames; i++) {
        if (i >= 4 || a->nnames >= 4) {
            a->tfound = true;   /* too many to check later: not kept */
            break;
        }
        a->namepos[a->nnames] = (uint32_t)d->namepos[i];
        a->namelen[a->nnames++] = (uint32_t)d->namelen[i];
    }
}

/* ---- the matcher ------------------------------------------------------------------------------- */

static bool fmatch(struct tsr_asm *a, const struct tsr_tc_part *p, const struct tsr_tc_part *end, uint32_t pos,
                   const struct fk *k);
static bool fpart(struct tsr_asm *a, int k, int s);
static bool finalize(struct tsr_asm *a);

static void rec_parse(struct tsr_asm *a, unsigned ai, uint32_t pos, uint32_t q0)
{
    struct tsr_fast *x = a->x;
    PUSH(a->ep, a->nep, a->cep);
    struct oparse *pp = &a->ep[a->nep++];
    pp->alt = (uint16_t)ai;
    pp->end = (uint16_t)(pos - q0);
    pp->act = (uint16_t)a->neacts;
    pp->nact = (uint16_t)x->nact;
    pp->env = a->env;
    for (size_t i = 0; i < x->nact; i++) {
        PUSH(a->eacts, a->neacts, a->ceacts);
        a->eacts[a->neacts++] = x->act[i];
    }
}

static bool fcont(struct tsr_asm *a, uint32_t pos, const struct fk *k)
{
    struct tsr_fast *x = a->x;
    switch (k->kind) {
    case K_SEQ: {
        if (k->p == k->end)
            return fcont(a, pos, k->next);
        uint64_t key = memo_key(k->p->sid, pos);
        if (memo_has(a, key))
            return false;
        unsigned long c0 = x->nconflict, o0 = x->nopdone;
        if (fmatch(a, k->p, k->end, pos, k->next))
            return true;
        if (!x->aborted && x->nconflict == c0 && x->nopdone == o0)
            memo_put(a, key);
        return false;
    }
    case K_ALT: {
        struct fmark m = fmark(x);
        x->naltdone++;
        if (fbind_conds(a, k->alt->cond, k->alt->ncond) && fcont(a, pos, k->next))
            return true;
        frestore(x, m);
        return false;
    }
    case K_REC:
        rec_parse(a, k->ai, pos, k->t);
        return false;
    default: {
        uint32_t q = fskip(a, pos);
        if (q != a->lim)
            return false;
        x->nopdone++;
        const struct tsr_tc_op *op = &a->isa->ops[k->op];
        struct fmark m = fmark(x);
        uint32_t lim = a->lim;
        if (fbind_conds(a, op->cond, op->ncond) && fpart(a, k->k + 1, k->t + 1))
            return true;
        a->lim = lim;
        frestore(x, m);
        return false;
    }
    }
}

static bool ftable(struct tsr_asm *a, const struct tsr_tc_part *p, const struct tsr_tc_part *end, uint32_t pos,
                   const struct fk *k)
{
    const struct tsr_tc_isa *isa = a->isa;
    struct tsr_fast *x = a->x;
    const struct tsr_tc_table *T = &isa->tables[p->arg];
    const char *s = a->s;
    if (T->nnames) {
        /* walk the trie along the text, collecting the names that end on the way */
        uint32_t cl[72], cc[72];
        unsigned nc = 0;
        const struct tsr_tc_trie *n = &isa->tries[T->trie];
        if (n->term)
            cl[nc] = 0, cc[nc++] = n->code;
        unsigned L = 0;
        if (n->nkid && T->maxlen && lt(a, pos) && (unsigned char)s[pos] < 128) {
            uint32_t r = a->root[p->arg * 128u + (unsigned char)s[pos]];
            if (!r) {
                n = NULL;
            } else {
                n = &isa->tries[r];
                L = 1;
                if (n->term)
                    cl[nc] = 1, cc[nc++] = n->code;
            }
        }
        for (; n && n->nkid; L++) {
            if (L >= T->maxlen || !lt(a, pos + L))
                break;
            unsigned char ch = (unsigned char)s[pos + L];
            const struct tsr_tc_trie *kd = &isa->tries[n->kid];
            unsigned lo = 0, hi = n->nkid;
            while (hi - lo > 4) {
                unsigned mid = (lo + hi) / 2;
                if (kd[mid].ch <= ch)
                    lo = mid;
                else
                    hi = mid;
            }
            while (lo < hi && kd[lo].ch < ch)
                lo++;
            if (lo == hi || kd[lo].ch != ch)
                break;
            n = &kd[lo];
            if (n->term) {
                if (nc == sizeof cl / sizeof *cl)
                    nc--;
                cl[nc] = L + 1, cc[nc++] = n->code;
            }
        }
        while (nc--) {   /* longest first */
            unsigned len = cl[nc];
            if (p->bound && len && tsr_asm_isident(s[pos + len - 1]) && lt(a, pos + len) &&
                tsr_asm_isident(s[pos + len]))
                continue;
            struct fmark m = fmark(x);
            if (fbind_hole(a, p->field, cc[nc]) && fmatch(a, p + 1, end, pos + len, k))
                return true;
            frestore(x, m);
            if (x->aborted)
                return false;
        }
    }
    if (T->nnums) {
        struct tsr_asm_val v;
        struct tsr_asm_dep dep;
        size_t e, ep, el;
        const char *err;
        int r = tsr_asm_expr_dep(s, pos, a->lim, a->syms, &e, &v, &err, &ep, &el, &dep);
        if (a->logging)
            expr_dep(a, &dep);
        if (r > 0 && tsr_asm_has_name(s, pos, e))
            a->env = true;
        if (r > 0) {
            const struct tsr_tc_num *nu = isa->nums + T->num_first;
            uint32_t bits = 0;
            if (v.fl) {
                float fv = (float)v.d;
                memcpy(&bits, &fv, 4);
            }
            bool iok = !v.fl && v.i >= INT32_MIN && v.i <= (int64_t)UINT32_MAX;
            for (uint32_t i = 0; i < T->nnums; i++) {
                if (nu[i].is_float ? !(v.fl && bits == nu[i].val) : !(iok && (uint32_t)v.i == nu[i].val))
                    continue;
                struct fmark m = fmark(x);
                if (fbind_hole(a, p->field, nu[i].code) && fmatch(a, p + 1, end, (uint32_t)e, k))
                    return true;
                frestore(x, m);
                if (x->aborted)
                    return false;
            }
        }
    }
    return false;
}

static bool fnumber(struct tsr_asm *a, const struct tsr_tc_part *p, const struct tsr_tc_part *end, uint32_t pos,
                    const struct fk *k)
{
    struct tsr_fast *x = a->x;
    const struct tsr_tc_field *fd = &a->isa->fields[p->field];
    struct tsr_asm_val v;
    struct tsr_asm_dep dep;
    size_t e, ep, el;
    const char *err;
    int r = tsr_asm_expr_dep(a->s, pos, a->lim, a->syms, &e, &v, &err, &ep, &el, &dep);
    if (a->logging)
        expr_dep(a, &dep);
    if (r <= 0)
        return false;
    if (p->kind == TSR_TC_LABEL && p->pcrel)
        a->tpc = true;
    if (tsr_asm_has_name(a->s, pos, e) || (p->kind == TSR_TC_LABEL && p->pcrel))
        a->env = true;
    int64_t val;
    if (v.fl) {
        if (fd->width < 32 || p->kind == TSR_TC_LABEL)
            return false;
        float fv = (float)v.d;
        uint32_t bits;
        memcpy(&bits, &fv, 4);
        val = bits;
    } else {
        val = v.i;
    }
    if (p->kind == TSR_TC_LABEL && p->pcrel)
        val = (int64_t)((uint64_t)val - (a->pc + (uint64_t)p->pcoff));
    if (!tsr_asm_fits(fd, val))
        return false;
    struct fmark m = fmark(x);
    if (fbind_hole(a, p->field, (uint64_t)val) && fmatch(a, p + 1, end, (uint32_t)e, k))
        return true;
    frestore(x, m);
    return false;
}

/* ---- operand parses ---------------------------------------------------------------------------- */

/* A kept enumeration: struct oent, then its parses, its logs and the bytes it looked at (window). */
struct oent {
    uint32_t next;           /* next entry of the hash chain: offset + 1 (0: none) */
    uint32_t hash;
    uint16_t opnd;
    uint8_t prev;            /* an identifier character precedes the position */
    uint8_t env;             /* the enumeration as a whole used a name (a->env) */
    uint16_t wlen;           /* bytes looked at from the position on */
    int16_t limoff;          /* the part ends this far from the position (-1: after the window) */
    uint16_t nparse, nact;
    uint16_t nnames;
    uint16_t namepos[4], namelen[4];   /* names looked up as symbols (offsets from the position) */
};

#define OENT_PARSES(e) ((const struct oparse *)(const void *)((const unsigned char *)(e) + sizeof(struct oent)))
#define OENT_ACTS(e) ((const struct oact *)(const void *)(OENT_PARSES(e) + (e)->nparse))
#define OENT_WIN(e) ((const char *)(OENT_ACTS(e) + (e)->nact))

static inline const struct oent *oent_at(const struct tsr_asm *a, uint32_t off)
{
    return (const struct oent *)(const void *)(a->oc.data + off);
}

static uint32_t ohash(unsigned opnd, bool prev, const char *s, uint32_t n)
{
    uint32_t h = 2166136261u ^ opnd ^ (prev ? 0x80000000u : 0);
    for (uint32_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static bool syms_empty(const struct tsr_asm *a)
{
    return !a->syms || !a->syms->count;
}

/* Does the kept entry e serve operand opnd at q? */
static bool oent_fits(const struct tsr_asm *a, const struct oent *e, unsigned opnd, bool prev, uint32_t q)
{
    if (e->opnd != opnd || e->prev != prev)
        return false;
    if (e->limoff >= 0 ? a->lim - q != (uint32_t)e->limoff : a->lim - q < e->wlen)
        return false;
    if (memcmp(a->s + q, OENT_WIN(e), e->wlen) != 0)
        return false;
    if (e->nnames && !syms_empty(a))
        for (unsigned i = 0; i < e->nnames; i++) {
            const struct tsr_asm_sym *y = tsr_asm_sym_find(a->syms, a->s + q + e->namepos[i], e->namelen[i]);
            if (y && y->kind != TSR_SYM_ALIAS)
                return false;
        }
    return true;
}

static void *oc_alloc(struct tsr_ocache *c, size_t n, uint32_t *off)
{
    n = (n + 7) & ~(size_t)7;
    if (c->len + n > c->cap) {
        size_t cap = c->cap ? c->cap : 16384;
        while (cap < c->len + n)
            cap *= 2;
        c->data = tsr_asm_xrealloc(c->data, cap);
        c->cap = cap;
    }
    *off = (uint32_t)c->len;
    c->len += n;
    return c->data + *off;
}

/* Enumerates the parses of operand opnd at q into a->ep / a->eacts.  False when it gave up. */
static bool enumerate(struct tsr_asm *a, unsigned opnd, uint32_t q, bool *env_all)
{
    const struct tsr_tc_isa *isa = a->isa;
    const struct tsr_tc_opnd *o = &isa->opnds[opnd];
    struct tsr_fast *save = a->x, *x = &a->es;
    bool env0 = a->env;
    a->x = x;
    x->steps = 0;
    x->aborted = false;
    a->logging = true;
    a->thi = q;
    a->tlim = a->tpc = a->tfound = false;
    a->nnames = 0;
    a->env = false;
    a->nep = a->neacts = 0;
    unsigned c = lt(a, q) ? (unsigned char)a->s[q] : 256;
    for (uint32_t i = 0; i < o->nalt && !x->aborted; i++) {
        const struct tsr_tc_alt *alt = &isa->alts[o->alt + i];
        if (!alt->first_any && (c >= 128 || !((alt->first[c >> 6] >> (c & 63)) & 1)))
            continue;
        struct fk kr = {.kind = K_REC, .ai = (uint16_t)i, .t = (int)q};
        const struct tsr_tc_part *ap = isa->parts + alt->part;
        fmatch(a, ap, ap + alt->npart, q, &kr);
    }
    frestore(x, (struct fmark){0, 0, 0, 0});
    bool ok = !x->aborted && a->nep < 65536 && a->neacts < 65536 && a->thi - q < 32768 && a->lim - q < 32768;
    *env_all = a->env;
    a->env = env0;
    a->logging = false;
    a->x = save;
    return ok;
}

/* The parses of operand opnd at q: a kept entry, or a new one.  Returns its offset + 1, or 0 when the
 * enumeration gave up (the plain search then runs). */
static uint32_t opnd_parses(struct tsr_asm *a, unsigned opnd, uint32_t q)
{
    struct tsr_ocache *c = &a->oc;
    bool prev = q > 0 && tsr_asm_isident(a->s[q - 1]);
    uint32_t run = 0;
    if (q < a->lim) {
        run = 1;
        if (tsr_asm_isident(a->s[q]))
            while (q + run < a->lim && run < 32 && tsr_asm_isident(a->s[q + run]))
                run++;
    }
    uint32_t h = ohash(opnd, prev, a->s + q, run);
    if (c->head)
        for (uint32_t off = c->head[h & (OC_HEADS - 1)]; off; off = oent_at(a, off - 1)->next) {
            const struct oent *e = oent_at(a, off - 1);
            if (e->hash == h && oent_fits(a, e, opnd, prev, q))
                return off;
        }
    bool env_all;
    if (!enumerate(a, opnd, q, &env_all))
        return 0;
    uint32_t wlen = a->thi > q ? a->thi - q : 0, off;
    size_t size = sizeof(struct oent) + a->nep * sizeof(struct oparse) + a->neacts * sizeof(struct oact) + wlen;
    struct oent *e = oc_alloc(c, size, &off);
    memset(e, 0, sizeof *e);
    e->hash = h;
    e->opnd = (uint16_t)opnd;
    e->prev = prev;
    e->env = env_all;
    e->wlen = (uint16_t)wlen;
    e->limoff = a->tlim ? (int16_t)(a->lim - q) : -1;
    e->nparse = (uint16_t)a->nep;
    e->nact = (uint16_t)a->neacts;
    e->nnames = (uint16_t)a->nnames;
    for (unsigned i = 0; i < a->nnames; i++) {
        e->namepos[i] = (uint16_t)(a->namepos[i] - q);
        e->namelen[i] = (uint16_t)a->namelen[i];
    }
    memcpy((void *)OENT_PARSES(e), a->ep, a->nep * sizeof *a->ep);
    memcpy((void *)OENT_ACTS(e), a->eacts, a->neacts * sizeof *a->eacts);
    memcpy((void *)OENT_WIN(e), a->s + q, wlen);
    /* kept when it depends on nothing but the text it looked at (and on names not being symbols) */
    if (!a->tpc && !a->tfound && opnd < 65536) {
        if (!c->head) {
            c->head = tsr_asm_xrealloc(NULL, OC_HEADS * sizeof *c->head);
            memset(c->head, 0, OC_HEADS * sizeof *c->head);
        }
        e->next = c->head[h & (OC_HEADS - 1)];
        c->head[h & (OC_HEADS - 1)] = off + 1;
        c->count++;
    }
    return off + 1;
}

/* Operand o at pos: its parses replayed in order, each going on with the rest of the template. */
static bool fopnd(struct tsr_asm *a, const struct tsr_tc_part *p, const struct tsr_tc_part *end, uint32_t pos,
                  const struct fk *k)
{
    const struct tsr_tc_isa *isa = a->isa;
    struct tsr_fast *x = a->x;
    const struct tsr_tc_opnd *o = &isa->opnds[p->arg];
    struct fk rest = {.kind = K_SEQ, .p = p + 1, .end = end, .next = k};
    uint32_t q = fskip(a, pos);
    uint32_t eoff = opnd_parses(a, p->arg, q);
    if (eoff) {
        unsigned np = oent_at(a, eoff - 1)->nparse;
        for (unsigned i = 0; i < np; i++) {
            const struct oent *e = oent_at(a, eoff - 1);   /* the cache may have moved */
            const struct oparse pp = OENT_PARSES(e)[i];
            if (pp.env)
                a->env = true;
            struct fmark m = fmark(x);
            bool ok = true;
            for (unsigned j = 0; j < pp.nact && ok; j++) {
                const struct oact *ac = &OENT_ACTS(e)[pp.act + j];
                ok = ac->kind == A_BIND ? fbind(a, ac->field, ac->val) : fbind_conds(a, ac->first, ac->n);
            }
            if (ok) {
                const struct tsr_tc_alt *alt = &isa->alts[o->alt + pp.alt];
                x->naltdone++;
                if (fbind_conds(a, alt->cond, alt->ncond) && fcont(a, q + pp.end, &rest))
                    return true;
            }
            frestore(x, m);
            if (x->aborted)
                return false;
        }
        if (oent_at(a, eoff - 1)->env)
            a->env = true;
        return false;
    }
    /* the plain search */
    unsigned c = lt(a, q) ? (unsigned char)a->s[q] : 256;
    for (uint32_t i = 0; i < o->nalt; i++) {
        const struct tsr_tc_alt *alt = &isa->alts[o->alt + i];
        if (!alt->first_any && (c >= 128 || !((alt->first[c >> 6] >> (c & 63)) & 1)))
            continue;
        const struct tsr_tc_part *ap = isa->parts + alt->part;
        uint64_t key = alt->npart ? memo_key(ap->sid, q) : 0;
        if (key && memo_has(a, key))
            continue;
        struct fk fa = {.kind = K_ALT, .alt = alt, .next = &rest};
        unsigned long c0 = x->nconflict, d0 = x->naltdone;
        if (fmatch(a, ap, ap + alt->npart, q, &fa))
            return true;
        if (x->aborted)
            return false;
        if (key && x->nconflict == c0 && x->naltdone == d0)
            memo_put(a, key);
    }
    return false;
}

static bool fmatch(struct tsr_asm *a, const struct tsr_tc_part *p, const struct tsr_tc_part *end, uint32_t pos,
                   const struct fk *k)
{
    struct tsr_fast *x = a->x;
    if (++x->steps > (a->logging ? ENUM_STEPS : STEP_LIMIT)) {
        x->aborted = true;
        return false;
    }
    for (; p < end; p++) {
        switch (p->kind) {
        case TSR_TC_TEXT: {
            uint32_t q = fskip(a, pos);
            if (!flit(a, p->text, p->len, p->bound, q, &pos))
                return false;
            break;
        }
        case TSR_TC_SPACE: {
            uint32_t q = fskip(a, pos);
            if (q == pos && glued(a, pos))
                return false;
            pos = q;
            break;
        }
        case TSR_TC_TABLE:
            return ftable(a, p, end, fskip(a, pos), k);
        case TSR_TC_INT:
        case TSR_TC_LABEL:
            return fnumber(a, p, end, fskip(a, pos), k);
        case TSR_TC_OPT: {
            uint32_t q = fskip(a, pos), e;
            if (flit(a, p->text, p->len, p->bound, q, &e)) {
                struct fmark m = fmark(x);
                if (fbind_conds(a, p->cond, p->ncond)) {
                    if (a->logging)
                        log_act(x, A_CONDS, 0, 0, p->cond, p->ncond);
                    if (fmatch(a, p + 1, end, e, k))
                        return true;
                }
                frestore(x, m);
                if (x->aborted)
                    return false;
            }
            break;   /* absent */
        }
        case TSR_TC_OPND:
            return fopnd(a, p, end, pos, k);
        }
    }
    return fcont(a, pos, k);
}

static bool finalize(struct tsr_asm *a)
{
    const struct tsr_tc_isa *isa = a->isa;
    struct tsr_fast *x = a->x;
    const struct tsr_tc_format *F = &isa->formats[a->fmt];
    struct fmark m = fmark(x);
    unsigned filled[MAX_PARTS + 64], nfilled = 0;
    for (uint32_t t = 0; t < F->nslot; t++) {
        unsigned slot = isa->idx[F->slot + t];
        if (a->op[slot] != TSR_TC_NO_OP)
            continue;
        const struct tsr_tc_op *op = &isa->ops[isa->slots[slot].default_op];
        a->op[slot] = isa->slots[slot].default_op;
        if (nfilled < sizeof filled / sizeof *filled)
            filled[nfilled++] = slot;
        if (!fbind_conds(a, op->cond, op->ncond))
            goto fail;
    }
    if (!fpropagate(a))
        goto fail;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t t = 0; t < (pass ? 1 : F->nslot); t++) {
            const struct tsr_tc_default *d;
            uint32_t nd;
            if (pass == 0) {
                const struct tsr_tc_op *op = &isa->ops[a->op[isa->idx[F->slot + t]]];
                d = isa->defs + op->def;
                nd = op->ndef;
            } else {
                d = isa->defs + F->def;
                nd = F->ndef;
            }
            for (uint32_t i = 0; i < nd; i++) {
                if (x->set[d[i].field])
                    continue;
                fset(x, d[i].field, d[i].val & a->mask[d[i].field]);
                if (x->neq && !fpropagate(a))
                    goto fail;
            }
        }
    }
    for (size_t i = 0; i < x->nchk; i++) {
        const struct tsr_tc_cond *c = &isa->conds[x->chk[i]];
        bool ok = c->kind == TSR_TC_BIND ? x->f[c->field] == c->val
                : c->kind == TSR_TC_BIND2 ? x->f[c->field] == x->f[c->field2]
                : isa->check(c->id, x->f);
        if (!ok)
            goto fail;
    }
    return true;
fail:
    for (unsigned i = 0; i < nfilled; i++)
        a->op[filled[i]] = TSR_TC_NO_OP;
    frestore(x, m);
    return false;
}

static bool fpart(struct tsr_asm *a, int k, int s)
{
    const struct tsr_tc_isa *isa = a->isa;
    struct tsr_fast *x = a->x;
    const struct tsr_tc_format *F = &isa->formats[a->fmt];
    if (k == a->nparts)
        return finalize(a);
    int left = a->nparts - k;
    a->lim = a->pend[k];
    uint32_t q = fskip(a, a->pstart[k]);
    const uint16_t *cand = a->cand + (size_t)k * isa->nops;
    for (int t = s; t + left <= (int)F->nslot; t++) {
        unsigned slot = isa->idx[F->slot + t];
        for (uint32_t i = 0; i < a->ncand[k]; i++) {
            unsigned opi = cand[i];
            const struct tsr_tc_op *op = &isa->ops[opi];
            if (op->slot != slot)
                continue;
            const struct tsr_tc_part *tp = isa->parts + op->part;
            uint64_t key = op->npart ? memo_key(tp->sid, q) : 0;
            if (key && memo_has(a, key))
                continue;
            struct fk kop = {.kind = K_OP, .op = (uint16_t)opi, .k = k, .t = t};
            unsigned long c0 = x->nconflict, o0 = x->nopdone;
            a->op[slot] = (uint16_t)opi;
            a->lim = a->pend[k];
            if (fmatch(a, tp, tp + op->npart, q, &kop))
                return true;
            a->op[slot] = TSR_TC_NO_OP;
            if (x->aborted)
                return false;
            if (key && x->nconflict == c0 && x->nopdone == o0)
                memo_put(a, key);
        }
    }
    return false;
}

static bool ftry_format(struct tsr_asm *a, unsigned fi)
{
    const struct tsr_tc_isa *isa = a->isa;
    const struct tsr_tc_format *F = &isa->formats[fi];
    if ((uint32_t)a->nparts > F->nslot)
        return false;
    for (int k = 0; k < a->nparts; k++)
        if (!((a->pfmt[k] >> (fi & 63)) & 1))
            return false;
    frestore(a->x, (struct fmark){0, 0, 0, 0});
    for (unsigned i = 0; i < isa->nslots; i++)
        a->op[i] = TSR_TC_NO_OP;
    a->fmt = fi;
    a->lim = a->n;
    if (!fbind_conds(a, F->cond, F->ncond))
        return false;
    return fpart(a, 0, 0);
}

bool tsr_asm_fast(struct tsr_asm *a, int pin)
{
    const struct tsr_tc_isa *isa = a->isa;
    struct tsr_fast *x = a->x = &a->fs;
    if (++a->gen2 == 0) {   /* wrapped: forget every entry */
        memset(a->memo2, 0, sizeof a->memo2);
        a->gen2 = 1;
    }
    if (a->oc.len > OC_MAX) {   /* forget the kept operand parses */
        a->oc.len = 0;
        a->oc.count = 0;
        if (a->oc.head)
            memset(a->oc.head, 0, OC_HEADS * sizeof *a->oc.head);
    }
    x->steps = 0;
    x->aborted = false;
    for (unsigned fi = 0; fi < isa->nformats; fi++) {
        if (pin >= 0 && (unsigned)pin != fi)
            continue;
        if (ftry_format(a, fi))
            return true;
        if (x->aborted)
            break;
    }
    frestore(x, (struct fmark){0, 0, 0, 0});
    return false;
}

void tsr_asm_fast_reset(struct tsr_asm *a)
{
    frestore(&a->fs, (struct fmark){0, 0, 0, 0});
}

static void state_init(struct tsr_fast *x, unsigned nfields)
{
    memset(x, 0, sizeof *x);
    x->f = tsr_asm_xrealloc(NULL, (nfields + 1) * sizeof *x->f);
    x->set = tsr_asm_xrealloc(NULL, nfields + 1);
    memset(x->f, 0, (nfields + 1) * sizeof *x->f);
    memset(x->set, 0, nfields + 1);
}

static void state_free(struct tsr_fast *x)
{
    free(x->f);
    free(x->set);
    free(x->tr);
    free(x->chk);
    free(x->eq);
    free(x->act);
}

void tsr_asm_fast_init(struct tsr_asm *a)
{
    state_init(&a->fs, a->isa->nfields);
    state_init(&a->es, a->isa->nfields);
    a->x = &a->fs;
}

void tsr_asm_fast_free(struct tsr_asm *a)
{
    state_free(&a->fs);
    state_free(&a->es);
    free(a->oc.data);
    free(a->oc.head);
    free(a->ep);
    free(a->eacts);
}
