/* The lockstep walk's memo (dis_lockstep.h): what a branch of the walk (J or K at an optional part or an operand,
 * every way followed) answered, and in how many steps, kept for the isa's disassembler context and shared by all
 * its questions.  dis_lockstep.c asks it at J's operands in the questions that set q.kept (where it pays).
 *
 * Why it gives the same answers, in the same steps.  A walk from a place depends only on the place and the
 * question's context: the two cursors (literal characters left, parts, continuations, by value), the question's
 * fixed choices (struct q: open ends, the hole of one known entry, the alternatives and optional texts printed as
 * known) and, for a continuation, whether it is the very one the question names (q.knext, q.konext are compared by
 * address).  The key is all of these.  Running out of budget only ever answers true, and true goes up to the
 * question's answer at once (every caller of the walk ORs it in), so:
 *  - a branch that answered false took every step of its walk, s of them; from the same place with b steps left
 *    the walk answers false with b - s left when b >= s, and runs out (true, 0 left) when b < s.  The memo
 *    answers exactly that.
 *  - a branch that answered true with steps left found a way (not the budget); it answers true again, and the
 *    question ends there.  A true with no step left may be the budget's: not kept.
 * So each question takes the same steps and answers the same as without the memo; only the work of walks
 * repeated (the same rest of template reached through different alternatives, or asked again by another
 * question) is saved. */
#include <stdlib.h>
#include <string.h>

#include "dis_lockstep.h"
#include "xalloc.h"

#define WM_LEVELS 8    /* cursor levels (a cursor and its continuations) a key holds; deeper: not kept */
#define WM_WORDS (2 + 2 * 4 * WM_LEVELS)

enum { WM_EMPTY, WM_PENDING, WM_FALSE, WM_TRUE, WM_CTX };

struct wm_entry {
    uint64_t h;
    uint32_t off, len;   /* the key: words arena[off .. off + len) */
    uint32_t val;        /* steps of a false answer; a context's number */
    uint8_t state;
};

struct tsr_dis_wmemo {
    struct wm_entry *e;
    size_t cap, n;
    uint64_t *arena;
    size_t alen, acap;
    uint32_t nctx;
};

static uint64_t wm_hash(const uint64_t *k, uint32_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15u ^ n;
    for (uint32_t i = 0; i < n; i++)
        h = (h ^ k[i]) * 0xff51afd7ed558ccdu, h ^= h >> 32;
    return h ? h : 1;
}

static void wm_grow(struct tsr_dis_wmemo *M)
{
    size_t cap = M->cap ? M->cap * 2 : 4096;
    struct wm_entry *e = tsr_xcalloc(cap, sizeof *e);
    for (size_t i = 0; i < M->cap; i++) {
        if (!M->e[i].h)
            continue;
        size_t j = M->e[i].h & (cap - 1);
        while (e[j].h)
            j = (j + 1) & (cap - 1);
        e[j] = M->e[i];
    }
    free(M->e);
    M->e = e;
    M->cap = cap;
}

/* The entry of key k[0..n), added (state WM_EMPTY, key stored) when missing. */
static struct wm_entry *wm_find(struct tsr_dis_wmemo *M, const uint64_t *k, uint32_t n)
{
    if ((M->n + 1) * 2 > M->cap)
        wm_grow(M);
    uint64_t h = wm_hash(k, n);
    size_t j = h & (M->cap - 1);
    for (; M->e[j].h; j = (j + 1) & (M->cap - 1))
        if (M->e[j].h == h && M->e[j].len == n && !memcmp(M->arena + M->e[j].off, k, n * sizeof *k))
            return &M->e[j];
    if (M->alen + n > M->acap) {
        M->acap = (M->alen + n) * 2 + 4096;
        M->arena = tsr_xrealloc(M->arena, M->acap * sizeof *M->arena);
    }
    memcpy(M->arena + M->alen, k, n * sizeof *k);
    M->e[j] = (struct wm_entry){.h = h, .off = (uint32_t)M->alen, .len = n};
    M->alen += n;
    M->n++;
    return &M->e[j];
}

/* The number of Q's context (its fixed choices; 1, 2, ...), given on first use; nofix: without the alternatives K
 * prints as known (kalts, kbase, nk), the same walks once K's op level is past every part they fix. */
static uint32_t wm_ctx(struct tsr_dis_wmemo *M, struct q *Q, bool nofix)
{
    uint32_t *r = nofix ? &Q->wctx0 : &Q->wctx;
    if (*r)
        return *r;
    uint64_t k[8 + 2 * 64];
    uint32_t n = 0;
    k[n++] = 0x5c0e7ull << 40 | (uint64_t)Q->jopen << 1 | Q->kopen;
    k[n++] = (uint64_t)(uintptr_t)Q->kfix;
    k[n++] = (uint64_t)(uintptr_t)Q->kpr;
    k[n++] = nofix ? 0 : (uint64_t)(uintptr_t)Q->kbase;
    k[n++] = (uint64_t)(uintptr_t)Q->kobase;
    k[n++] = (uint64_t)(nofix ? 0 : Q->nk) << 32 | (Q->kopt ? Q->nko : UINT32_MAX);
    uint32_t nk = Q->kalts && !nofix ? Q->nk : 0, no = Q->kopt ? Q->nko : 0;
    if (nk > 64 * 8 || no > 64 * 8 || (nk + 7) / 8 + (no + 7) / 8 > 2 * 64)
        return *r = UINT32_MAX;   /* too long to key: never kept */
    for (uint32_t i = 0; i < nk; i += 8) {
        uint64_t w = 0;
        for (uint32_t b = 0; b < 8 && i + b < nk; b++)
            w |= (uint64_t)Q->kalts[i + b] << (8 * b);
        k[n++] = w;
    }
    for (uint32_t i = 0; i < no; i += 8) {
        uint64_t w = 0;
        for (uint32_t b = 0; b < 8 && i + b < no; b++)
            w |= (uint64_t)(Q->kopt[i + b] != 0) << (8 * b);
        k[n++] = w;
    }
    struct wm_entry *e = wm_find(M, k, n);
    if (e->state != WM_CTX) {
        e->state = WM_CTX;
        e->val = ++M->nctx;
    }
    return *r = e->val;
}

/* Is K's op level (its last cursor) past every op-level part Q->kalts fixes?  branch reads kalts only where K's op
 * level is at such a part, and the op level only moves on. */
static bool past_fixed(const struct q *Q, const struct cur *K)
{
    if (!Q->kalts)
        return false;
    while (K->next)
        K = K->next;
    uint32_t i = Q->nk;
    while (i > 0 && Q->kalts[i - 1] == 0xff)
        i--;
    return K->p >= Q->kbase + i && K->p <= Q->kbase + Q->nk;
}

/* Cursor c and its continuations as key words at k (4 a level); their number, or 0 when over WM_LEVELS. */
static uint32_t wm_cur(const struct q *Q, const struct cur *c, uint64_t *k)
{
    uint32_t n = 0;
    for (uint32_t l = 0; c; l++, c = c->next) {
        if (l == WM_LEVELS)
            return 0;
        k[n++] = c->slen ? (uint64_t)(uintptr_t)c->str : 0;   /* str is not read when slen is 0 */
        k[n++] = (uint64_t)c->slen << 8 | (uint64_t)(c->next && c->next == Q->knext) << 1 |
                 (uint64_t)(c->next && c->next == Q->konext) << 2 | (c->next != NULL);
        k[n++] = (uint64_t)(uintptr_t)c->p;
        k[n++] = (uint64_t)(uintptr_t)c->end;
    }
    return n;
}

int tsr_dis_wm_look(struct q *Q, const struct cur *J, const struct cur *K, bool onj, struct tsr_dis_wslot *slot)
{
    struct tsr_dis_static *st = Q->st;
    slot->h = 0;
    if (!st->wmemo) {
        st->wmemo = tsr_xcalloc(1, sizeof *st->wmemo);
    }
    struct tsr_dis_wmemo *M = st->wmemo;
    uint32_t ctx = wm_ctx(M, Q, past_fixed(Q, K));
    if (ctx == UINT32_MAX)
        return -1;
    uint64_t k[WM_WORDS];
    uint32_t nj = wm_cur(Q, J, k + 1);
    uint32_t nk = nj ? wm_cur(Q, K, k + 1 + nj) : 0;
    if (!nk)
        return -1;
    k[0] = (uint64_t)ctx << 16 | (uint64_t)nj << 1 | onj;
    struct wm_entry *e = wm_find(M, k, 1 + nj + nk);
    if (e->state == WM_FALSE) {
        if (st->budget < e->val) {
            st->budget = 0;
            return 1;
        }
        st->budget -= e->val;
        return 0;
    }
    if (e->state == WM_TRUE)
        return 1;
    e->state = WM_PENDING;
    *slot = (struct tsr_dis_wslot){e->h, e->off};   /* the entry moves when the table grows; its key does not */
    return -1;
}

void tsr_dis_wm_put(struct q *Q, const struct tsr_dis_wslot *slot, bool v, unsigned long steps)
{
    struct tsr_dis_static *st = Q->st;
    struct tsr_dis_wmemo *M = st->wmemo;
    if (!slot->h || !M || (v && !st->budget) || steps > UINT32_MAX)
        return;   /* a true with no step left may be the budget's */
    size_t j = slot->h & (M->cap - 1);
    for (; M->e[j].h; j = (j + 1) & (M->cap - 1))
        if (M->e[j].off == slot->off) {
            M->e[j].state = v ? WM_TRUE : WM_FALSE;
            M->e[j].val = (uint32_t)steps;
            return;
        }
}

void tsr_dis_wm_free(struct tsr_dis_static *st)
{
    if (!st->wmemo)
        return;
    free(st->wmemo->e);
    free(st->wmemo->arena);
    free(st->wmemo);
    st->wmemo = NULL;
}
