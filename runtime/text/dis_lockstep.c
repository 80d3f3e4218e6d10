/* The lockstep walk of two template sequences (dis_lockstep.h) that decides the facts of dis_static.c: J, read
 * by the matcher, against K, printed by the printer, over their non-blank characters; the rules and why a
 * NEVER is sound are at the top of dis_static.c. */
#include <stdlib.h>
#include <string.h>

#include "asm_engine.h"
#include "dis_lockstep.h"

/* Moves c to its next atom: a non-blank literal character, a part that is not literal, or the end. */
static int norm(struct cur *c)
{
    for (;;) {
        while (c->slen && tsr_asm_isblank((unsigned char)c->str[0]))
            c->str++, c->slen--;
        if (c->slen)
            return A_CHAR;
        if (c->p < c->end) {
            if (c->p->kind == TSR_TC_TEXT) {
                c->str = c->p->text;
                c->slen = c->p->len;
                c->p++;
                continue;
            }
            if (c->p->kind == TSR_TC_SPACE) {
                c->p++;
                continue;
            }
            return A_PART;
        }
        if (!c->next)
            return A_END;
        *c = *c->next;
    }
}

/* norm, its common case inline: c already at a non-blank literal character. */
static inline int norm_at(struct cur *c)
{
    if (c->slen && !tsr_asm_isblank((unsigned char)c->str[0]))
        return A_CHAR;
    return norm(c);
}

/* The walk from J, K when its first step answers false: norm (which takes no step) brings both to literal
 * characters, and they differ.  Takes that step from the budget and returns true when so and the budget holds it;
 * false, taking nothing, otherwise (then the walk must run). */
static inline bool one_step_miss(struct q *Q, struct cur J, struct cur K)
{
    if (!Q->st->budget || norm_at(&J) != A_CHAR || norm_at(&K) != A_CHAR || J.str[0] == K.str[0])
        return false;
    Q->st->budget--;
    return true;
}

/* The walk from J, K (tsr_dis_ov), its first step taken here when that is all it does (asked where that pays: a
 * remainder of two table names against what follows the other hole, which most often differs at once). */
static inline bool ov(struct q *Q, struct cur J, struct cur K)
{
    return !one_step_miss(Q, J, K) && tsr_dis_ov(Q, J, K);
}

bool tsr_dis_expr_start(unsigned char c)
{
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '~' || c == '(' || c == '.' || c == 'L';
}

bool tsr_dis_expr_char(unsigned char c)
{
    /* asm_expr.c reads identifiers and digits (with `_`, `0x`, exponents), `.`, `(` `)`, the unary `-` `+` `~`,
     * the binary `| ^ & << >> + - * / %` and blanks between them; anything past ASCII is taken as possible */
    return c >= 128 || tsr_asm_isident(c) || tsr_asm_isblank(c) || (c && strchr(".()+-~|^&<>*/%", c));
}

bool tsr_dis_num_print_start(unsigned char c)
{
    return (c >= '0' && c <= '9') || c == '-';
}

static const struct tsr_tc_name *jnames(const struct tsr_tc_isa *isa, const struct tsr_tc_part *p, uint32_t *n)
{
    const struct tsr_tc_table *T = &isa->tables[p->arg];
    *n = T->nnames;
    return isa->names + T->name_first;
}

/* Is K at its hole of one known entry? */
static bool at_fix(const struct q *Q, const struct cur *K)
{
    return Q->kfix && K->p == Q->kfix && K->next == Q->knext;
}

static const struct tsr_tc_print *kprints(const struct q *Q, const struct cur *K, uint32_t *n)
{
    const struct tsr_tc_isa *isa = Q->st->isa;
    const struct tsr_tc_part *p = K->p;
    if (at_fix(Q, K)) {
        *n = 1;
        return Q->kpr;
    }
    const struct tsr_tc_table *T = &isa->tables[p->arg];
    *n = T->nprint;
    return isa->prints + T->print_first;
}

/* The part past a hole (the cursor after its part). */
static struct cur past(struct cur c)
{
    c.p++;
    return c;
}

static struct cur with_str(struct cur c, const char *s, uint32_t n)
{
    c.p++;
    c.str = s;
    c.slen = n;
    return c;
}

/* J is at an optional part or an operand: any way of it. */
static bool branch(struct q *Q, struct cur J, struct cur K, bool onj)
{
    struct cur *c = onj ? &J : &K;
    const struct tsr_tc_isa *isa = Q->st->isa;
    const struct tsr_tc_part *p = c->p;
    if (p->kind == TSR_TC_OPT) {
        struct cur with = with_str(*c, p->text, p->len), without = past(*c);
        if (!onj && Q->kopt && p >= Q->kobase && p < Q->kobase + Q->nko && c->next == Q->konext)
            return tsr_dis_ov(Q, J, Q->kopt[p - Q->kobase] ? with : without);   /* printed as known */
        struct cur a = onj ? with : J, b = onj ? K : with;
        if (tsr_dis_ov(Q, a, b))
            return true;
        a = onj ? without : J, b = onj ? K : without;
        return tsr_dis_ov(Q, a, b);
    }
    const struct tsr_tc_opnd *o = &isa->opnds[p->arg];
    struct cur rest = past(*c);
    uint32_t first = 0, last = o->nalt;
    if (!onj && !c->next && Q->kalts && p >= Q->kbase && p < Q->kbase + Q->nk && Q->kalts[p - Q->kbase] < o->nalt)
        first = Q->kalts[p - Q->kbase], last = first + 1;   /* K's operand at op level: the alternative printed */
    for (uint32_t i = first; i < last; i++) {
        const struct tsr_tc_alt *alt = &isa->alts[o->alt + i];
        struct cur in = {NULL, 0, isa->parts + alt->part, isa->parts + alt->part + alt->npart, &rest};
        if (onj ? tsr_dis_ov(Q, in, K) : tsr_dis_ov(Q, J, in))
            return true;
    }
    return false;
}

/* branch through the memo (dis_walkmemo.c: the same answer in the same steps). */
static bool branch_kept(struct q *Q, struct cur J, struct cur K, bool onj)
{
    struct tsr_dis_wslot slot;
    int m = tsr_dis_wm_look(Q, &J, &K, onj, &slot);
    if (m >= 0)
        return m;
    unsigned long b0 = Q->st->budget;
    bool v = branch(Q, J, K, onj);
    tsr_dis_wm_put(Q, &slot, v, b0 - Q->st->budget);
    return v;
}

/* The walk of two cursors at equal literal characters, a[0] == b[0] (non-blank), whose texts go on with different
 * non-blank characters a[1] != b[1]: its first step passes the equal characters, its second finds the others differ
 * and answers false.  Takes those two steps from the budget and returns true when that is the walk (and the budget
 * lets it take them: at least 2 left); false when the walk must run. */
static inline bool two_step_miss(struct q *Q, const char *a, uint32_t al, const char *b, uint32_t bl)
{
    if (al < 2 || bl < 2 || a[1] == b[1] || tsr_asm_isblank((unsigned char)a[1]) || tsr_asm_isblank((unsigned char)b[1]) ||
        Q->st->budget < 2)
        return false;
    Q->st->budget -= 2;
    return true;
}

/* J at a hole, K at the literal character c. */
static bool jhole_char(struct q *Q, struct cur J, struct cur K)
{
    const struct tsr_tc_isa *isa = Q->st->isa;
    const struct tsr_tc_part *p = J.p;
    unsigned char c = (unsigned char)K.str[0];
    if (p->kind != TSR_TC_TABLE)
        return tsr_dis_expr_start(c);
    uint32_t n;
    const struct tsr_tc_name *nm = jnames(isa, p, &n);
    if (isa->tables[p->arg].nnums && tsr_dis_expr_start(c))
        return true;
    if (!(Q->st->tflags[p->arg] & TF_EMPTY)) {
        /* no empty name: the loop below walks exactly the names starting with c, in table order */
        const struct tsr_dis_first *F = &Q->st->jfirst[p->arg];
        for (uint32_t x = F->off[c]; x < F->off[c + 1]; x++) {
            const struct tsr_tc_name *m = &nm[F->idx[x]];
            if (!two_step_miss(Q, m->name, m->len, K.str, K.slen) && tsr_dis_ov(Q, with_str(J, m->name, m->len), K))
                return true;
        }
        return false;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (nm[i].len == 0) {
            if (tsr_dis_ov(Q, past(J), K))
                return true;
        } else if ((unsigned char)nm[i].name[0] == c && tsr_dis_ov(Q, with_str(J, nm[i].name, nm[i].len), K)) {
            return true;
        }
    }
    return false;
}

/* K at a hole, J at the literal character c. */
static bool khole_char(struct q *Q, struct cur J, struct cur K)
{
    const struct tsr_tc_part *p = K.p;
    unsigned char c = (unsigned char)J.str[0];
    if (p->kind == TSR_TC_INT)
        return tsr_dis_num_print_start(c);
    if (p->kind == TSR_TC_LABEL)
        return c == 'L';
    uint32_t n;
    const struct tsr_tc_print *pr = kprints(Q, &K, &n);
    uint8_t kf = Q->st->tflags[p->arg];
    if (!at_fix(Q, &K) && (!(kf & TF_PNUM) || !tsr_dis_num_print_start(c))) {
        /* no numeric entry that c could start: the loop below walks exactly the names starting with c, in table
         * order, then past the hole when some entry prints "" */
        const struct tsr_dis_first *F = &Q->st->kfirst[p->arg];
        for (uint32_t x = F->off[c]; x < F->off[c + 1]; x++) {
            const char *s = pr[F->idx[x]].name;
            uint32_t sl = (uint32_t)strlen(s);
            if (!two_step_miss(Q, J.str, J.slen, s, sl) && tsr_dis_ov(Q, J, with_str(K, s, sl)))
                return true;
        }
        return (kf & TF_PEMPTY) && tsr_dis_ov(Q, J, past(K));
    }
    bool empty = false;
    for (uint32_t i = 0; i < n; i++) {
        if (pr[i].kind != TSR_TC_PRINT_NAME) {
            if (tsr_dis_num_print_start(c))
                return true;
            continue;
        }
        if (!pr[i].name[0]) {
            empty = true;
            continue;
        }
        if ((unsigned char)pr[i].name[0] == c && tsr_dis_ov(Q, J, with_str(K, pr[i].name, (uint32_t)strlen(pr[i].name))))
            return true;
    }
    return empty && tsr_dis_ov(Q, J, past(K));
}

/* Table J's names against table K's printed names (dis_exact.h struct tsr_dis_tpair), computed once. */
static const struct tsr_dis_tpair *tpair(struct tsr_dis_static *st, unsigned jt, unsigned kt)
{
    const struct tsr_tc_isa *isa = st->isa;
    struct tsr_dis_tpair *t = &st->tpair[(size_t)jt * isa->ntables + kt];
    if (t->done)
        return t;
    t->done = true;
    const struct tsr_tc_table *TJ = &isa->tables[jt], *TK = &isa->tables[kt];
    const struct tsr_tc_name *nm = isa->names + TJ->name_first;
    const struct tsr_tc_print *pr = isa->prints + TK->print_first;
    size_t cap = 0;
    for (uint32_t i = 0; i < TK->nprint; i++) {
        if (pr[i].kind != TSR_TC_PRINT_NAME || !pr[i].name[0])
            continue;
        const char *kn = pr[i].name;
        uint32_t kl = (uint32_t)strlen(kn);
        for (uint32_t j = 0; j < TJ->nnames; j++) {
            uint32_t jl = nm[j].len;
            if (!jl || nm[j].name[0] != kn[0])
                continue;
            uint32_t l = jl < kl ? jl : kl;
            if (memcmp(nm[j].name, kn, l) != 0)
                continue;
            if (jl == kl) {
                t->eq = true;
                continue;
            }
            struct tsr_dis_rem r = jl < kl ? (struct tsr_dis_rem){true, kn + jl, kl - jl}
                                           : (struct tsr_dis_rem){false, nm[j].name + kl, jl - kl};
            bool seen = false;   /* the same remainder on the same side leads to the same question */
            for (uint32_t x = 0; x < t->nrem && !seen; x++)
                seen = t->rem[x].kside == r.kside && t->rem[x].len == r.len && !memcmp(t->rem[x].s, r.s, r.len);
            if (seen)
                continue;
            if (t->nrem == cap) {
                cap = cap ? cap * 2 : 8;
                t->rem = realloc(t->rem, cap * sizeof *t->rem);
                if (!t->rem)
                    abort();
            }
            t->rem[t->nrem++] = r;
        }
    }
    return t;
}

/* The names of J's table t that the loop of hole_fixed walks from for the printed name entry e (non-empty): those
 * that are a prefix of e's name or start with it, in table order, their count first; worked out on first use. */
static const uint32_t *fix_names(struct tsr_dis_static *st, unsigned t, const struct tsr_tc_print *e, uint32_t kl)
{
    const struct tsr_tc_isa *isa = st->isa;
    uint32_t **slot = &st->fixm[(size_t)t * st->nprints + (size_t)(e - isa->prints)];
    if (*slot)
        return *slot;
    const struct tsr_tc_table *T = &isa->tables[t];
    const struct tsr_dis_first *F = &st->jfirst[t];
    unsigned char e0 = (unsigned char)e->name[0];
    uint32_t *L = malloc((F->off[e0 + 1] - F->off[e0] + 1) * sizeof *L);
    if (!L)
        abort();
    L[0] = 0;
    for (uint32_t x = F->off[e0]; x < F->off[e0 + 1]; x++) {   /* the names starting as e does, in table order */
        const struct tsr_tc_name *m = &isa->names[T->name_first + F->idx[x]];
        uint32_t jl = m->len, l = jl < kl ? jl : kl;
        if (jl && memcmp(m->name, e->name, l) == 0)
            L[++L[0]] = F->idx[x];
    }
    return *slot = L;
}

/* J at a hole, K at its hole of one known entry (Q->kpr). */
static bool hole_fixed(struct q *Q, struct cur J, struct cur K)
{
    const struct tsr_tc_isa *isa = Q->st->isa;
    const struct tsr_tc_part *jp = J.p;
    const struct tsr_tc_print *e = Q->kpr;
    bool jtab = jp->kind == TSR_TC_TABLE;
    uint8_t jf = jtab ? Q->st->tflags[jp->arg] : 0;
    bool jnum = !jtab || (jf & TF_NUMS);
    if ((jf & TF_EMPTY) && tsr_dis_ov(Q, past(J), K))
        return true;
    if (e->kind != TSR_TC_PRINT_NAME)
        return jnum || (jf & TF_NAME_NUM);
    if (!e->name[0])
        return tsr_dis_ov(Q, J, past(K));
    if (jnum && tsr_dis_expr_start((unsigned char)e->name[0]))
        return true;
    if (!jtab)
        return false;
    const struct tsr_tc_table *T = &isa->tables[jp->arg];
    uint32_t kl = (uint32_t)strlen(e->name);
    bool eq = false;
    const uint32_t *L = fix_names(Q->st, jp->arg, e, kl);   /* the names e's name and they can both go on from */
    for (uint32_t x = 1; x <= L[0]; x++) {
        const struct tsr_tc_name *m = &isa->names[T->name_first + L[x]];
        uint32_t jl = m->len;
        if (jl == kl)
            eq = true;
        else if (jl < kl ? tsr_dis_ov(Q, past(J), with_str(K, e->name + jl, kl - jl))
                         : tsr_dis_ov(Q, with_str(J, m->name + kl, jl - kl), past(K)))
            return true;
    }
    return eq && tsr_dis_ov(Q, past(J), past(K));
}

/* Both at holes. */
static bool hole_hole(struct q *Q, struct cur J, struct cur K)
{
    struct tsr_dis_static *st = Q->st;
    if (at_fix(Q, &K))
        return hole_fixed(Q, J, K);
    const struct tsr_tc_part *jp = J.p, *kp = K.p;
    bool jtab = jp->kind == TSR_TC_TABLE, ktab = kp->kind == TSR_TC_TABLE;
    const uint8_t jf = jtab ? st->tflags[jp->arg] : 0, kf = ktab ? st->tflags[kp->arg] : 0;
    bool jnum = !jtab || (jf & TF_NUMS);      /* J reads numbers */
    bool knum = !ktab || (kf & TF_PNUM);      /* K prints numbers */
    if (knum && (jnum || (jf & TF_NAME_NUM)))
        return true;
    if (jnum && (kf & TF_PNAME_EXPR))
        return true;
    /* empty names: one side passes its hole without text */
    if ((jf & TF_EMPTY) && tsr_dis_ov(Q, past(J), K))
        return true;
    if ((kf & TF_PEMPTY) && tsr_dis_ov(Q, J, past(K)))
        return true;
    if (!jtab || !ktab)
        return false;
    const struct tsr_dis_tpair *t = tpair(st, jp->arg, kp->arg);
    /* the side past its hole, normalised once (norm takes no step, and the walk normalises first): a remainder
     * starting with a non-blank character other than the literal character there is refuted at the first step */
    struct cur pj = past(J), pk = past(K);
    int pjk = norm_at(&pj), pkk = norm_at(&pk);
    for (uint32_t i = 0; i < t->nrem; i++) {
        const struct tsr_dis_rem *r = &t->rem[i];
        const struct cur *o = r->kside ? &pj : &pk;
        unsigned char c0 = (unsigned char)r->s[0];
        if ((r->kside ? pjk : pkk) == A_CHAR && r->len && !tsr_asm_isblank(c0) && (unsigned char)o->str[0] != c0 &&
            st->budget) {
            st->budget--;   /* one_step_miss's step */
        } else if (r->kside ? ov(Q, pj, with_str(K, r->s, r->len)) : ov(Q, with_str(J, r->s, r->len), pk)) {
            return true;
        }
        if (!st->budget)
            return true;
    }
    return t->eq && tsr_dis_ov(Q, past(J), past(K));
}

bool tsr_dis_ov(struct q *Q, struct cur J, struct cur K)
{
    for (;;) {
        if (!Q->st->budget)
            return true;
        Q->st->budget--;
        int jk = norm_at(&J), kk = norm_at(&K);
        if (jk == A_PART && (J.p->kind == TSR_TC_OPT || J.p->kind == TSR_TC_OPND))
            /* kept where it pays: at J's operands (the same rest reached through many alternatives; at optional
             * texts and on K's side few branches repeat) */
            return Q->kept && J.p->kind == TSR_TC_OPND ? branch_kept(Q, J, K, true) : branch(Q, J, K, true);
        if (kk == A_PART && (K.p->kind == TSR_TC_OPT || K.p->kind == TSR_TC_OPND))
            return branch(Q, J, K, false);
        if (jk == A_END) {
            if (Q->jopen || kk == A_END)
                return true;
            if (kk == A_CHAR)
                return false;
            /* K's hole must print nothing */
            if (K.p->kind != TSR_TC_TABLE)
                return false;
            uint32_t n;
            const struct tsr_tc_print *pr = kprints(Q, &K, &n);
            bool empty = false;
            for (uint32_t i = 0; i < n && !empty; i++)
                empty = pr[i].kind == TSR_TC_PRINT_NAME && !pr[i].name[0];
            if (!empty)
                return false;
            K = past(K);
            continue;
        }
        if (kk == A_END) {
            if (Q->kopen)
                return true;
            if (jk == A_CHAR)
                return false;
            /* J's hole must match nothing: a table with an empty name */
            if (J.p->kind != TSR_TC_TABLE)
                return false;
            uint32_t n;
            const struct tsr_tc_name *nm = jnames(Q->st->isa, J.p, &n);
            bool empty = false;
            for (uint32_t i = 0; i < n && !empty; i++)
                empty = nm[i].len == 0;
            if (!empty)
                return false;
            J = past(J);
            continue;
        }
        if (jk == A_CHAR && kk == A_CHAR) {
            if (J.str[0] != K.str[0])
                return false;
            J.str++, J.slen--;
            K.str++, K.slen--;
            continue;
        }
        if (jk == A_PART && kk == A_CHAR)
            return jhole_char(Q, J, K);
        if (jk == A_CHAR)
            return khole_char(Q, J, K);
        return hole_hole(Q, J, K);
    }
}

int tsr_dis_ask(struct tsr_dis_static *st, const struct tsr_tc_part *jp, uint32_t jn, const struct tsr_tc_part *kp,
                uint32_t kn, const struct tsr_tc_part *rest, const struct tsr_tc_part *rend, bool open)
{
    struct q Q = {.st = st, .jopen = open, .kopen = open, .kept = true};
    struct cur R = {NULL, 0, rest, rend, NULL};
    struct cur J = {NULL, 0, jp, jp + jn, rest ? &R : NULL}, K = {NULL, 0, kp, kp + kn, rest ? &R : NULL};
    st->budget = TSR_DIS_QBUDGET;
    return tsr_dis_ov(&Q, J, K) ? TSR_DIS_MAYBE : TSR_DIS_NEVER;
}

int tsr_dis_ask_opts(struct tsr_dis_static *st, const struct tsr_tc_part *jp, uint32_t jn, const struct tsr_tc_part *kp,
                     uint32_t kn, const struct tsr_tc_part *rest, const struct tsr_tc_part *rend, const uint8_t *kopt)
{
    struct cur R = {NULL, 0, rest, rend, NULL};
    struct cur J = {NULL, 0, jp, jp + jn, rest ? &R : NULL}, K = {NULL, 0, kp, kp + kn, rest ? &R : NULL};
    struct q Q = {.st = st, .kobase = kp, .nko = kn, .kopt = kopt, .konext = K.next};
    st->budget = TSR_DIS_QBUDGET;
    return tsr_dis_ov(&Q, J, K) ? TSR_DIS_MAYBE : TSR_DIS_NEVER;
}

/* One table's names of n, of which name(i) is the i-th (NULL: none to index), by first byte. */
static void first_index(struct tsr_dis_first *F, uint32_t n, const char *(*name)(const void *, uint32_t), const void *arg)
{
    memset(F->off, 0, sizeof F->off);
    for (uint32_t i = 0; i < n; i++) {
        const char *s = name(arg, i);
        if (s && s[0])
            F->off[(unsigned char)s[0] + 1]++;
    }
    for (unsigned c = 0; c < 256; c++)
        F->off[c + 1] += F->off[c];
    F->idx = malloc((F->off[256] + 1) * sizeof *F->idx);
    if (!F->idx)
        abort();
    uint32_t fill[256];
    memcpy(fill, F->off, sizeof fill);
    for (uint32_t i = 0; i < n; i++) {   /* in table order within each byte */
        const char *s = name(arg, i);
        if (s && s[0])
            F->idx[fill[(unsigned char)s[0]]++] = i;
    }
}

/* Byte order of two names (memcmp, then the shorter first). */
static int name_cmp(const char *a, uint32_t al, const char *b, uint32_t bl)
{
    int r = memcmp(a, b, al < bl ? al : bl);
    return r ? r : (al > bl) - (al < bl);
}

/* F->sorted: the non-empty names of nm[0..n) by name (an insertion sort: a table has at most a few hundred). */
static void sort_names(struct tsr_dis_first *F, const struct tsr_tc_name *nm, uint32_t n)
{
    F->sorted = malloc((n + 1) * sizeof *F->sorted);
    if (!F->sorted)
        abort();
    F->nsorted = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!nm[i].len)
            continue;
        uint32_t k = F->nsorted++;
        while (k > 0 && name_cmp(nm[F->sorted[k - 1]].name, nm[F->sorted[k - 1]].len, nm[i].name, nm[i].len) > 0) {
            F->sorted[k] = F->sorted[k - 1];
            k--;
        }
        F->sorted[k] = i;
    }
}

void tsr_dis_prefixed(const struct tsr_dis_static *st, unsigned t, const char *s, uint32_t n, uint32_t *lo, uint32_t *hi)
{
    const struct tsr_dis_first *F = &st->jfirst[t];
    const struct tsr_tc_name *nm = st->isa->names + st->isa->tables[t].name_first;
    uint32_t a = 0, b = F->nsorted;
    while (a < b) {   /* the first name not below s */
        uint32_t m = a + (b - a) / 2;
        if (name_cmp(nm[F->sorted[m]].name, nm[F->sorted[m]].len, s, n) < 0)
            a = m + 1;
        else
            b = m;
    }
    *lo = a;
    while (a < F->nsorted && nm[F->sorted[a]].len >= n && !memcmp(nm[F->sorted[a]].name, s, n))
        a++;   /* the names from s on that start with it are consecutive */
    *hi = a;
}

static const char *jname_at(const void *arg, uint32_t i)
{
    const struct tsr_tc_name *nm = arg;
    return nm[i].len ? nm[i].name : NULL;
}

static const char *kname_at(const void *arg, uint32_t i)
{
    const struct tsr_tc_print *pr = arg;
    return pr[i].kind == TSR_TC_PRINT_NAME ? pr[i].name : NULL;
}

void tsr_dis_first_init(struct tsr_dis_static *st)
{
    const struct tsr_tc_isa *isa = st->isa;
    st->jfirst = calloc(isa->ntables + 1, sizeof *st->jfirst);
    st->kfirst = calloc(isa->ntables + 1, sizeof *st->kfirst);
    if (!st->jfirst || !st->kfirst)
        abort();
    for (unsigned t = 0; t < isa->ntables; t++)
        if (isa->tables[t].print_first + isa->tables[t].nprint > st->nprints)
            st->nprints = isa->tables[t].print_first + isa->tables[t].nprint;
    st->fixm = calloc((size_t)isa->ntables * st->nprints + 1, sizeof *st->fixm);
    if (!st->fixm)
        abort();
    for (unsigned t = 0; t < isa->ntables; t++) {
        const struct tsr_tc_table *T = &isa->tables[t];
        first_index(&st->jfirst[t], T->nnames, jname_at, isa->names + T->name_first);
        sort_names(&st->jfirst[t], isa->names + T->name_first, T->nnames);
        first_index(&st->kfirst[t], T->nprint, kname_at, isa->prints + T->print_first);
    }
}

void tsr_dis_first_free(struct tsr_dis_static *st)
{
    for (unsigned t = 0; st->jfirst && t < st->isa->ntables; t++) {
        free(st->jfirst[t].idx);
        free(st->jfirst[t].sorted);
    }
    for (unsigned t = 0; st->kfirst && t < st->isa->ntables; t++)
        free(st->kfirst[t].idx);
    for (size_t i = 0; st->fixm && i < (size_t)st->isa->ntables * st->nprints; i++)
        free(st->fixm[i]);
    free(st->fixm);
    tsr_dis_wm_free(st);
    free(st->jfirst);
    free(st->kfirst);
    st->jfirst = st->kfirst = NULL;
    st->fixm = NULL;
}
