/* The hazard validator's engine (validate.h): control flow of a program, paths back from each bundle, and
 * the checks of resources and rules over the events the generated code lists. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "sim/sim.h"
#include "validate/validate.h"

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) {
        fputs("tessera: out of memory\n", stderr);
        abort();
    }
    return p;
}

void tsr_vev_text(const struct tsr_vdesc *D, const struct tsr_vev *e, char *buf, size_t n)
{
    const char *cond = e->cond ? " (conditionally)" : "";
    switch (e->kind) {
    case TSR_V_RSTATE:
    case TSR_V_RLATE:
    case TSR_V_WSTATE: {
        const char *verb = e->kind == TSR_V_RSTATE ? "reads" : e->kind == TSR_V_RLATE ? "reads at commit" : "writes";
        const char *nm = e->id >= 0 && e->id < D->nstates ? D->state_names[e->id] : "?";
        if (e->id >= 0 && e->id < D->nstates && D->state_count[e->id] == 0)
            snprintf(buf, n, "%s %s%s", verb, nm, cond);
        else if (e->addr < 0)
            snprintf(buf, n, "%s %s[?]%s", verb, nm, cond);
        else
            snprintf(buf, n, "%s %s[%" PRId64 "]%s", verb, nm, e->addr, cond);
        return;
    }
    case TSR_V_RSPACE:
    case TSR_V_WSPACE: {
        const char *verb = e->kind == TSR_V_RSPACE ? "reads" : "writes";
        const char *nm = e->id >= 0 && e->id < D->nspaces ? D->space_names[e->id] : "?";
        if (e->addr < 0)
            snprintf(buf, n, "%s %s[?]%s", verb, nm, cond);
        else
            snprintf(buf, n, "%s %s[%" PRId64 "]%s", verb, nm, e->addr, cond);
        return;
    }
    case TSR_V_USE:
        if (e->val == TSR_V_NOVAL)
            snprintf(buf, n, "uses %s%s", e->id >= 0 && e->id < D->nres ? D->res[e->id].name : "?", cond);
        else
            snprintf(buf, n, "uses %s = %" PRId64 "%s", e->id >= 0 && e->id < D->nres ? D->res[e->id].name : "?",
                     e->val, cond);
        return;
    case TSR_V_OP:
        snprintf(buf, n, "issues %s", e->id >= 0 && e->id < D->nops ? D->op_names[e->id] : "?");
        return;
    case TSR_V_JUMP:
        if (e->val >= 0)
            snprintf(buf, n, "branches to 0x%08" PRIx64 "%s", (uint64_t)e->val, e->cond ? " (conditional)" : "");
        else
            snprintf(buf, n, "branches%s", e->cond ? " (conditional)" : "");
        return;
    case TSR_V_HALT:
        snprintf(buf, n, "ends the thread");
        return;
    case TSR_V_START:
        snprintf(buf, n, "starts the program");
        return;
    }
    snprintf(buf, n, "?");
}

/* ---- one bundle and its history ---------------------------------------------------------------------- */
struct ctx {
    const struct tsr_vdesc *D;
    tsr_vreport_fn fn;
    void *fctx;
    size_t count;
    /* reports of the current bundle, to drop repeats from other paths: (rule, other) */
    struct { int rule; size_t other; } *seen;
    int nseen, capseen;
    /* the program check: the (rule, event) pairs of the bundle checked whose second pattern matches */
    const struct vpair { uint16_t rule, ev; } *match;
    int nmatch;
    bool hist;   /* tsr_validate_hist: open windows are checked over the history (else by open_flow/stream) */
};

struct hist {
    const struct tsr_vbundle *b[TSR_V_MAXDIST + 1];   /* b[0] = the bundle checked, b[k] = k back */
    size_t idx[TSR_V_MAXDIST + 1];
    int len;
};

static bool seen(struct ctx *c, int rule, size_t other)
{
    for (int i = 0; i < c->nseen; i++)
        if (c->seen[i].rule == rule && c->seen[i].other == other)
            return true;
    if (c->nseen == c->capseen) {
        c->capseen = c->capseen ? 2 * c->capseen : 16;
        void *p = realloc(c->seen, (size_t)c->capseen * sizeof *c->seen);
        if (!p) {
            fputs("tessera: out of memory\n", stderr);
            abort();
        }
        c->seen = p;
    }
    c->seen[c->nseen].rule = rule;
    c->seen[c->nseen++].other = other;
    return false;
}

/* Reports a violation completed by h->b[0] whose earlier instruction is `other` (index), at pc other_pc, dist
 * instructions back on the path considered. */
static void vreport(struct ctx *c, const struct hist *h, int rule, size_t other, uint32_t other_pc, int dist,
                    const char *fmt, va_list ap)
{
    if (seen(c, rule, other))
        return;
    struct tsr_vviol v;
    memset(&v, 0, sizeof v);
    v.rule = rule;
    if (rule >= 0) {
        v.name = c->D->rules[rule].name;
        v.ref = c->D->rules[rule].ref;
    } else {
        v.name = c->D->res[-1 - rule].name;
        v.ref = c->D->res[-1 - rule].ref;
    }
    v.at = h->idx[0];
    v.pc = h->b[0]->pc;
    v.other = other;
    v.other_pc = other_pc;
    v.dist = dist;
    vsnprintf(v.text, sizeof v.text, fmt, ap);
    c->count++;
    if (c->fn)
        c->fn(c->fctx, &v);
}

/* The earlier instruction is h->b[k]. */
static void report(struct ctx *c, const struct hist *h, int rule, int k, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void report(struct ctx *c, const struct hist *h, int rule, int k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(c, h, rule, h->idx[k], h->b[k]->pc, k, fmt, ap);
    va_end(ap);
}

/* The earlier instruction is given by index and pc (open windows: beyond the history). */
static void report_far(struct ctx *c, const struct hist *h, int rule, size_t other, uint32_t other_pc, int dist,
                       const char *fmt, ...) __attribute__((format(printf, 7, 8)));
static void report_far(struct ctx *c, const struct hist *h, int rule, size_t other, uint32_t other_pc, int dist,
                       const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(c, h, rule, other, other_pc, dist, fmt, ap);
    va_end(ap);
}

bool tsr_vev_same(const struct tsr_vev *a, const struct tsr_vev *b)
{
    bool sa = a->kind == TSR_V_RSTATE || a->kind == TSR_V_WSTATE || a->kind == TSR_V_RLATE;
    bool sb = b->kind == TSR_V_RSTATE || b->kind == TSR_V_WSTATE || b->kind == TSR_V_RLATE;
    bool pa = a->kind == TSR_V_RSPACE || a->kind == TSR_V_WSPACE;
    bool pb = b->kind == TSR_V_RSPACE || b->kind == TSR_V_WSPACE;
    if (!((sa && sb) || (pa && pb)) || a->id != b->id)
        return false;
    return a->addr < 0 || b->addr < 0 || a->addr == b->addr;   /* an unknown element may be any */
}

/* Resources and one-bundle rules of h->b[0]. */
static void check_bundle(struct ctx *c, const struct hist *h)
{
    const struct tsr_vdesc *D = c->D;
    const struct tsr_vbundle *b = h->b[0];
    char t1[96], t2[96];
    for (int r = 0; r < D->nres; r++) {
        int n = 0, first = -1, second = -1;
        for (int i = 0; i < b->nev; i++) {
            const struct tsr_vev *e = &b->ev[i];
            if (e->kind != TSR_V_USE || e->id != r)
                continue;
            bool dup = false;
            for (int j = 0; j < i && !dup; j++) {
                const struct tsr_vev *x = &b->ev[j];
                if (x->kind != TSR_V_USE || x->id != r)
                    continue;
                if (e->val == TSR_V_NOVAL)
                    dup = x->val == TSR_V_NOVAL && x->origin == e->origin && x->addr == e->addr;
                else
                    dup = x->val == e->val;
            }
            if (dup)
                continue;
            if (n == 0)
                first = i;
            else if (n == 1)
                second = i;
            n++;
        }
        if (n > D->res[r].count) {
            /* describe the accesses behind the first two uses */
            const struct tsr_vev *e1 = &b->ev[first], *e2 = &b->ev[second];
            e1 = e1->link >= 0 && e1->link < b->nev ? &b->ev[e1->link] : e1;
            e2 = e2->link >= 0 && e2->link < b->nev ? &b->ev[e2->link] : e2;
            tsr_vev_text(D, e1, t1, sizeof t1);
            tsr_vev_text(D, e2, t2, sizeof t2);
            report(c, h, -1 - r, 0, "%d uses in one instruction (at most %d): %s, %s%s", n, D->res[r].count, t1, t2,
                   n > 2 ? ", ..." : "");
        }
    }
    for (int r = 0; r < D->nrules; r++) {
        const struct tsr_vrule *R = &D->rules[r];
        if (R->kind != TSR_VR_BUNDLE || R->npat < 1 || R->npat > 8)
            continue;
        /* backtracking: a distinct event for each pattern */
        int pick[8], p = 0;
        pick[0] = -1;
        while (p >= 0) {
            int i = pick[p] + 1;
            for (; i < b->nev; i++) {
                bool used = false;
                for (int q = 0; q < p && !used; q++)
                    used = pick[q] == i;
                if (!used && R->pat[p](&b->ev[i], b->f))
                    break;
            }
            if (i >= b->nev) {
                p--;
                continue;
            }
            pick[p] = i;
            if (p + 1 == R->npat)
                break;
            pick[++p] = -1;
        }
        if (p < 0)
            continue;
        tsr_vev_text(D, &b->ev[pick[0]], t1, sizeof t1);
        if (R->npat == 1) {
            report(c, h, r, 0, "%s", t1);
        } else {
            tsr_vev_text(D, &b->ev[pick[1]], t2, sizeof t2);
            report(c, h, r, 0, "%s and %s in one instruction", t1, t2);
        }
    }
}

/* "1..2 instructions apart", "1 or more instructions apart" */
static void window_text(const struct tsr_vrule *R, char *buf, size_t n)
{
    if (R->hi == TSR_V_OPEN)
        snprintf(buf, n, "%d or more instructions apart", R->lo);
    else
        snprintf(buf, n, "%d..%d instructions apart", R->lo, R->hi);
}

/* The first event of b matching p other than b->ev[not] (-1: any), or -1. */
static int first_match(const struct tsr_vbundle *b, tsr_vmatch_fn p, int not)
{
    for (int j = 0; j < b->nev; j++)
        if (j != not && p(&b->ev[j], b->f))
            return j;
    return -1;
}

/* Rule r (a window or a latency) for event i of h->b[0], which its second pattern matches, on this path. */
static void check_event(struct ctx *c, const struct hist *h, int r, int i)
{
    const struct tsr_vdesc *D = c->D;
    const struct tsr_vrule *R = &D->rules[r];
    const struct tsr_vbundle *b = h->b[0];
    const struct tsr_vev *eb = &b->ev[i];
    char ta[96], tb[96];
    if (R->kind == TSR_VR_WINDOW) {
        char range[48];
        window_text(R, range, sizeof range);
        for (int k = R->lo; k <= R->hi && k < h->len; k++) {
            const struct tsr_vbundle *a = h->b[k];
            for (int j = 0; j < a->nev; j++) {
                if ((k == 0 && j == i) || !R->pat[0](&a->ev[j], a->f))
                    continue;
                tsr_vev_text(D, &a->ev[j], ta, sizeof ta);
                tsr_vev_text(D, eb, tb, sizeof tb);
                if (k == 0)
                    report(c, h, r, 0, "%s and %s in one instruction (forbidden %s)", ta, tb, range);
                else
                    report(c, h, r, k, "%s; the instruction %d before (0x%08" PRIx32 ") %s (forbidden %s)", tb, k,
                           a->pc, ta, range);
                break;
            }
        }
        return;
    }
    /* latency: the nearest earlier A (with a max, as far back as the paths go) */
    int far = R->hi >= 0 ? TSR_V_MAXDIST : R->lo - 1;
    for (int k = 1; k <= far && k < h->len; k++) {
        const struct tsr_vbundle *a = h->b[k];
        int j = 0;
        for (; j < a->nev; j++)
            if (R->pat[0](&a->ev[j], a->f) && (!R->same || tsr_vev_same(&a->ev[j], eb)))
                break;
        if (j == a->nev)
            continue;
        if (k < R->lo || (R->hi >= 0 && k > R->hi)) {
            tsr_vev_text(D, &a->ev[j], ta, sizeof ta);
            tsr_vev_text(D, eb, tb, sizeof tb);
            if (k < R->lo)
                report(c, h, r, k, "%s; the instruction %d before (0x%08" PRIx32 ") %s (at least %d apart)",
                       tb, k, a->pc, ta, R->lo);
            else
                report(c, h, r, k, "%s; the instruction %d before (0x%08" PRIx32 ") %s (at most %d apart)",
                       tb, k, a->pc, ta, R->hi);
        }
        break;
    }
}

/* Rules between h->b[0] and the bundles before it on this path.  With c->match (the program check's memo of
 * h->b[0]), only the (rule, event) pairs it lists: those whose second pattern matches, in this order. */
static void check_path(struct ctx *c, const struct hist *h)
{
    const struct tsr_vdesc *D = c->D;
    const struct tsr_vbundle *b = h->b[0];
    if (c->match) {
        for (int k = 0; k < c->nmatch; k++) {
            const struct tsr_vrule *R = &D->rules[c->match[k].rule];
            if (!(R->kind == TSR_VR_WINDOW && R->hi == TSR_V_OPEN && !c->hist))
                check_event(c, h, c->match[k].rule, c->match[k].ev);
        }
        return;
    }
    for (int r = 0; r < D->nrules; r++) {
        const struct tsr_vrule *R = &D->rules[r];
        if (R->kind == TSR_VR_BUNDLE || R->npat != 2)
            continue;
        if (R->kind == TSR_VR_WINDOW && R->hi == TSR_V_OPEN && !c->hist)
            continue;   /* beyond the history: open_check / stream_open */
        for (int i = 0; i < b->nev; i++)
            if (R->pat[1](&b->ev[i], b->f))
                check_event(c, h, r, i);
    }
}

/* ---- whole programs ------------------------------------------------------------------------------------ */
/* The program check keeps no per-bundle events: a first pass lists the control flow (a fall-through bit per
 * bundle and the taken edges, a few per branch), then each bundle is checked against the paths back from it
 * with the bundles decoded again on demand: those of the last RING instructions from a ring, the others (the
 * sources of taken edges and what precedes them) into one scratch bundle per path depth, with a memo of
 * MEMO bundles (below) for the rule checks.  Memory besides the words: n / 8 bytes, 24 bytes per taken edge,
 * RING + lookback + 2 bundles and the memo (about 3 MB for the QPU), whatever n is. */
#define MAX_PATHS 4096                 /* paths checked back from one bundle */
#define RING 128                       /* decoded bundles kept behind the one checked (> TSR_V_MAXDIST + 1) */

struct tedge { size_t from, to, seq; };
struct prog {
    const struct tsr_vdesc *D;
    const uint32_t *w;
    size_t n;
    uint64_t base;
    unsigned nf;
    unsigned char *ft;                 /* bit i: i falls through to i + 1 */
    struct tedge *E;                   /* taken edges by target (then by their order in the program) */
    size_t nedge;
    struct tsr_vbundle *ring;          /* bundle i at ring[i % RING] while i is among the last RING checked */
    struct tsr_vbundle *scratch;       /* one per path depth, for bundles outside the ring */
    uint64_t *fields;
};

/* A memo of what a bundle's content decides, for bundles whose words come back (a program repeats many):
 * whether its resources and one-bundle rules pass, and the (rule, event) pairs whose second pattern matches.
 * An entry serves a bundle with the same words, events and fields (the patterns see nothing else), so a
 * bundle whose events depend on its address (a relative branch) just misses. */
#define MEMO 1024                      /* entries, direct-mapped by the words' hash */
#define MEMO_PAIRS 64
struct memo {
    size_t src;                        /* the bundle it was made from (its words are the key); SIZE_MAX: empty */
    bool clean;
    int nev, format, npair;
    bool overflow;
    struct tsr_vev ev[TSR_V_MAXEV];
    uint64_t *f;
    struct vpair pair[MEMO_PAIRS];
};

static bool same_ev(const struct tsr_vev *a, const struct tsr_vev *b)
{
    return a->kind == b->kind && a->cond == b->cond && a->slot == b->slot && a->delay == b->delay &&
           a->link == b->link && a->id == b->id && a->origin == b->origin && a->op == b->op && a->addr == b->addr &&
           a->val == b->val;
}

static bool memo_serves(const struct prog *P, const struct memo *m, size_t j, const struct tsr_vbundle *b)
{
    unsigned nw = P->D->nwords;
    if (m->src == SIZE_MAX || memcmp(P->w + m->src * nw, P->w + j * nw, nw * sizeof *P->w) ||
        m->nev != b->nev || m->format != b->format || m->overflow != b->overflow ||
        memcmp(m->f, b->f, P->nf * sizeof *b->f))
        return false;
    for (int k = 0; k < b->nev; k++)
        if (!same_ev(&m->ev[k], &b->ev[k]))
            return false;
    return true;
}

static void decode(const struct prog *P, size_t i, struct tsr_vbundle *b)
{
    b->nev = 0;   /* not the whole struct: the events array is 2.5 KB */
    b->overflow = false;
    b->format = -1;
    b->pc = (uint32_t)(P->base + i * P->D->pc_step);
    P->D->events(P->w + i * P->D->nwords, (uint32_t)(P->base + i * P->D->pc_step), b);
    if (i == 0)
        tsr_vb_add(b, TSR_V_START, -1, 1, 0, 0);
}

static bool falls(const struct prog *P, size_t i)
{
    return P->ft[i / 8] >> (i % 8) & 1;
}

/* Bundle i for path depth `depth`, while j is the bundle checked (ring[j - RING + 1 .. j] are decoded). */
static const struct tsr_vbundle *bundle_at(const struct prog *P, size_t j, size_t i, int depth)
{
    if (i <= j && j - i < RING)
        return &P->ring[i % RING];
    decode(P, i, &P->scratch[depth]);
    return &P->scratch[depth];
}

static int cmp_tedge(const void *x, const void *y)
{
    const struct tedge *a = x, *b = y;
    return a->to != b->to ? (a->to < b->to ? -1 : 1) : a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The first taken edge to t (P->nedge if none). */
static size_t first_edge(const struct prog *P, size_t t)
{
    size_t lo = 0, hi = P->nedge;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (P->E[mid].to < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void paths(struct ctx *c, const struct prog *P, struct hist *h, int depth, int *budget)
{
    size_t i = h->idx[depth - 1], j = h->idx[0];
    /* predecessors of i: the taken edges to it (duplicates dropped), then the fall-through from i - 1 */
    size_t s = first_edge(P, i), e = s;
    while (e < P->nedge && P->E[e].to == i)
        e++;
    bool ft = i > 0 && falls(P, i - 1);
    for (size_t p = s; p < e && ft; p++)
        ft = P->E[p].from != i - 1;
    if (depth > c->D->lookback || depth > TSR_V_MAXDIST || (s == e && !ft)) {
        if (*budget > 0) {
            (*budget)--;
            h->len = depth;
            check_path(c, h);
        }
        return;
    }
    for (size_t p = s; p <= e && *budget > 0; p++) {
        size_t from;
        if (p < e) {
            from = P->E[p].from;
            bool dup = false;
            for (size_t q = s; q < p && !dup; q++)
                dup = P->E[q].from == from;
            if (dup)
                continue;
        } else if (ft) {
            from = i - 1;
        } else {
            break;
        }
        h->b[depth] = bundle_at(P, j, from, depth);
        h->idx[depth] = from;
        paths(c, P, h, depth + 1, budget);
    }
}

/* ---- open windows over a whole program ---------------------------------------------------------------- */
/* `forbid A -> B at LO..` looks back along every path to the program's start, beyond any history: a forward
 * data flow over the control flow gives each bundle i the longest distance dist[i] (capped at LO; -1: none)
 * from an A on a path ending at i (0: an A of its own), with that A (src) and the length of the path (len).
 * Each value only grows and is at most LO, so the worklist ends after O((n + edges) * (LO + 1)) steps.
 * Memory: 10 bytes per bundle and rule, the work list (4 bytes per bundle and a bit) and the edges by source;
 * a bundle's A is found by decoding it again. */
struct flow { int16_t *dist; uint32_t *src, *len; };

static bool is_open(const struct tsr_vrule *R)
{
    return R->kind == TSR_VR_WINDOW && R->npat == 2 && R->hi == TSR_V_OPEN;
}

static void open_free(struct flow *F)
{
    free(F->dist);
    free(F->src);
    free(F->len);
}

static int cmp_from(const void *x, const void *y)
{
    const struct tedge *a = *(const struct tedge *const *)x, *b = *(const struct tedge *const *)y;
    return a->from != b->from ? (a->from < b->from ? -1 : 1) : a->seq < b->seq ? -1 : a->seq > b->seq;
}

static void open_flow(const struct prog *P, int r, struct flow *F)
{
    const struct tsr_vrule *R = &P->D->rules[r];
    size_t n = P->n, head = 0, count = 0;
    int lo = R->lo > INT16_MAX - 1 ? INT16_MAX - 1 : R->lo;
    F->dist = xcalloc(n, sizeof *F->dist);
    F->src = xcalloc(n, sizeof *F->src);
    F->len = xcalloc(n, sizeof *F->len);
    uint32_t *queue = xcalloc(n, sizeof *queue);
    unsigned char *inq = xcalloc(n / 8 + 1, 1);
    const struct tedge **from = xcalloc(P->nedge + 1, sizeof *from);   /* taken edges by source */
    for (size_t q = 0; q < P->nedge; q++)
        from[q] = &P->E[q];
    if (P->nedge)
        qsort(from, P->nedge, sizeof *from, cmp_from);
    struct tsr_vbundle *b = &P->scratch[0];
    for (size_t i = 0; i < n; i++) {
        decode(P, i, b);
        F->dist[i] = first_match(b, R->pat[0], -1) >= 0 ? 0 : -1;
        F->src[i] = (uint32_t)i;
        if (F->dist[i] >= 0) {
            inq[i / 8] |= (unsigned char)(1u << (i % 8));
            queue[(head + count++) % n] = (uint32_t)i;
        }
    }
    while (count) {
        size_t i = queue[head];
        head = (head + 1) % n;
        count--;
        inq[i / 8] &= (unsigned char)~(1u << (i % 8));
        int16_t v = (int16_t)(F->dist[i] + 1 > lo ? lo : F->dist[i] + 1);
        /* successors: i + 1 when i falls through, then the taken edges from i */
        size_t q = 0, hi_e = P->nedge;
        while (q < hi_e) {
            size_t mid = q + (hi_e - q) / 2;
            if (from[mid]->from < i)
                q = mid + 1;
            else
                hi_e = mid;
        }
        for (bool ft = falls(P, i) && i + 1 < n;; ft = false) {
            size_t t;
            if (ft)
                t = i + 1;
            else if (q < P->nedge && from[q]->from == i)
                t = from[q++]->to;
            else
                break;
            if (v <= F->dist[t])
                continue;
            F->dist[t] = v;
            F->src[t] = F->src[i];
            F->len[t] = F->len[i] + 1;
            if (!(inq[t / 8] >> (t % 8) & 1)) {
                inq[t / 8] |= (unsigned char)(1u << (t % 8));
                queue[(head + count++) % n] = (uint32_t)t;
            }
        }
    }
    free(from);
    free(inq);
    free(queue);
}

/* Open window r at h->b[0]: each B against an A of the same bundle (LO 0) or, if far, against the A `far`
 * (event e of instruction `other` at other_pc, d instructions back on a path; d >= LO). */
struct far_a { const struct tsr_vev *e; size_t other; uint32_t pc; size_t d; };

static void open_report(struct ctx *c, const struct hist *h, int r, const struct far_a *far)
{
    const struct tsr_vdesc *D = c->D;
    const struct tsr_vrule *R = &D->rules[r];
    const struct tsr_vbundle *b = h->b[0];
    char ta[96], tb[96], range[48];
    window_text(R, range, sizeof range);
    for (int i = 0; i < b->nev; i++) {
        if (!R->pat[1](&b->ev[i], b->f))
            continue;
        tsr_vev_text(D, &b->ev[i], tb, sizeof tb);
        int a = R->lo == 0 ? first_match(b, R->pat[0], i) : -1;
        if (a >= 0) {
            tsr_vev_text(D, &b->ev[a], ta, sizeof ta);
            report(c, h, r, 0, "%s and %s in one instruction (forbidden %s)", ta, tb, range);
        } else if (far) {
            tsr_vev_text(D, far->e, ta, sizeof ta);
            report_far(c, h, r, far->other, far->pc, far->d > INT32_MAX ? INT32_MAX : (int)far->d,
                       "%s; the instruction %zu before (0x%08" PRIx32 ") %s (forbidden %s)", tb, far->d, far->pc, ta,
                       range);
        }
    }
}

/* Open window r at h->b[0], bundle j of P: the farthest A over its predecessors (the data flow F). */
static void open_check(struct ctx *c, const struct hist *h, const struct prog *P, int r, const struct flow *F)
{
    const struct tsr_vrule *R = &c->D->rules[r];
    size_t j = h->idx[0], best = 0;
    int dist = -1;
    if (j > 0 && falls(P, j - 1) && F->dist[j - 1] > dist) {
        best = j - 1;
        dist = F->dist[best];
    }
    for (size_t q = first_edge(P, j); q < P->nedge && P->E[q].to == j; q++)
        if (F->dist[P->E[q].from] > dist) {
            best = P->E[q].from;
            dist = F->dist[best];
        }
    struct far_a far = { NULL, 0, 0, 0 };
    if (dist >= 0 && dist + 1 >= R->lo) {
        const struct tsr_vbundle *ab = bundle_at(P, j, F->src[best], 0);
        int a = first_match(ab, R->pat[0], -1);
        far = (struct far_a){ &ab->ev[a < 0 ? 0 : a], F->src[best], ab->pc, (size_t)F->len[best] + 1 };
    }
    open_report(c, h, r, far.e ? &far : NULL);
}

size_t tsr_validate(const struct tsr_vdesc *D, const uint32_t *w, size_t n, uint64_t base, tsr_vreport_fn fn,
                    void *fctx)
{
    struct ctx c = { D, fn, fctx, 0, NULL, 0, 0, NULL, 0, false };
    if (!n)
        return 0;
    struct prog P = { D, w, n, base, D->nfields ? D->nfields : 1, NULL, NULL, 0, NULL, NULL, NULL };
    int depths = (D->lookback < TSR_V_MAXDIST ? D->lookback : TSR_V_MAXDIST) + 2;
    P.ring = xcalloc(RING + (size_t)depths, sizeof *P.ring);
    P.scratch = P.ring + RING;
    P.fields = xcalloc((RING + (size_t)depths) * P.nf, sizeof *P.fields);
    for (size_t k = 0; k < RING + (size_t)depths; k++)
        P.ring[k].f = P.fields + k * P.nf;
    /* control flow: i -> i + 1 unless an always-taken branch or a halt ends at i (its last delay slot);
     * last delay slot -> target for branches to a constant address inside the program */
    P.ft = xcalloc(n / 8 + 1, 1);
    for (size_t i = 0; i + 1 < n; i++)
        P.ft[i / 8] |= (unsigned char)(1u << (i % 8));
    size_t capedge = 0;
    struct tsr_vbundle *b = &P.scratch[0];
    for (size_t i = 0; i < n; i++) {
        decode(&P, i, b);
        for (int k = 0; k < b->nev; k++) {
            const struct tsr_vev *e = &b->ev[k];
            if (e->kind != TSR_V_JUMP && e->kind != TSR_V_HALT)
                continue;
            size_t last = i + (size_t)(e->delay > 0 ? e->delay : 0);
            if (last >= n)
                continue;
            if (!e->cond)
                P.ft[last / 8] &= (unsigned char)~(1u << (last % 8));
            if (e->kind != TSR_V_JUMP || e->val < 0 || (uint64_t)e->val < base ||
                ((uint64_t)e->val - base) % D->pc_step || ((uint64_t)e->val - base) / D->pc_step >= n)
                continue;
            if (P.nedge == capedge) {
                capedge = capedge ? 2 * capedge : 256;
                P.E = realloc(P.E, capedge * sizeof *P.E);
                if (!P.E) {
                    fputs("tessera: out of memory\n", stderr);
                    abort();
                }
            }
            P.E[P.nedge].from = last;
            P.E[P.nedge].to = (size_t)(((uint64_t)e->val - base) / D->pc_step);
            P.E[P.nedge].seq = P.nedge;
            P.nedge++;
        }
    }
    if (P.nedge)
        qsort(P.E, P.nedge, sizeof *P.E, cmp_tedge);
    struct memo *M = xcalloc(MEMO, sizeof *M);
    uint64_t *mf = xcalloc((size_t)MEMO * P.nf, sizeof *mf);
    for (size_t k = 0; k < MEMO; k++) {
        M[k].src = SIZE_MAX;
        M[k].f = mf + k * P.nf;
    }
    /* open windows: one data flow per rule */
    int nopen = 0;
    for (int r = 0; r < D->nrules; r++)
        nopen += is_open(&D->rules[r]);
    struct flow *F = xcalloc((size_t)nopen + 1, sizeof *F);
    for (int r = 0, k = 0; r < D->nrules; r++)
        if (is_open(&D->rules[r]))
            open_flow(&P, r, &F[k++]);
    for (size_t j = 0; j < n; j++) {
        struct hist h;
        const struct tsr_vbundle *b = &P.ring[j % RING];
        decode(&P, j, &P.ring[j % RING]);
        h.b[0] = b;
        h.idx[0] = j;
        h.len = 1;
        c.nseen = 0;
        uint64_t hash = 1469598103934665603u;   /* FNV-1a over the words */
        for (unsigned k = 0; k < D->nwords; k++)
            hash = (hash ^ w[j * D->nwords + k]) * 1099511628211u;
        struct memo *m = &M[(hash ^ hash >> 29) % MEMO];
        if (memo_serves(&P, m, j, b)) {
            if (!m->clean)
                check_bundle(&c, &h);
        } else {
            size_t before = c.count;
            check_bundle(&c, &h);
            /* the pairs, in check_path's order; a bundle with more is not kept */
            int np = 0;
            for (int r = 0; r < D->nrules && np <= MEMO_PAIRS; r++) {
                const struct tsr_vrule *R = &D->rules[r];
                if (R->kind == TSR_VR_BUNDLE || R->npat != 2)
                    continue;
                for (int i = 0; i < b->nev && np <= MEMO_PAIRS; i++)
                    if (R->pat[1](&b->ev[i], b->f)) {
                        if (np < MEMO_PAIRS)
                            m->pair[np] = (struct vpair){ (uint16_t)r, (uint16_t)i };
                        np++;
                    }
            }
            m->src = SIZE_MAX;
            if (np <= MEMO_PAIRS && D->nrules <= UINT16_MAX) {
                m->src = j;
                m->clean = c.count == before;
                m->nev = b->nev;
                m->format = b->format;
                m->overflow = b->overflow;
                memcpy(m->ev, b->ev, (size_t)b->nev * sizeof *b->ev);
                memcpy(m->f, b->f, P.nf * sizeof *b->f);
                m->npair = np;
            }
        }
        c.match = m->src != SIZE_MAX ? m->pair : NULL;
        c.nmatch = m->src != SIZE_MAX ? m->npair : 0;
        int budget = MAX_PATHS;
        paths(&c, &P, &h, 1, &budget);
        for (int r = 0, k = 0; r < D->nrules; r++)
            if (is_open(&D->rules[r]))
                open_check(&c, &h, &P, r, &F[k++]);
    }
    for (int k = 0; k < nopen; k++)
        open_free(&F[k]);
    free(F);
    free(mf);
    free(M);
    free(P.E);
    free(P.ft);
    free(P.fields);
    free(P.ring);
    free(c.seen);
    return c.count;
}

struct diagctx { struct tsr_diag *d; const char *path; };

static void to_diag(void *p, const struct tsr_vviol *v)
{
    struct diagctx *x = p;
    tsr_diag_error(x->d, x->path, 0, 0, "0x%08" PRIx32 ": %s %s: %s (ref: %s)", v->pc,
                   v->rule >= 0 ? "rule" : "resource", v->name, v->text, v->ref ? v->ref : "none");
}

int tsr_validate_diag(const struct tsr_vdesc *D, const uint32_t *w, size_t n, uint64_t base, struct tsr_diag *d,
                      const char *path)
{
    struct diagctx x = { d, path };
    return tsr_validate(D, w, n, base, to_diag, &x) ? -1 : 0;
}

/* ---- streams ------------------------------------------------------------------------------------------- */
struct tsr_vstream {
    const struct tsr_vdesc *D;
    size_t steps;
    int nring;                      /* valid entries */
    int head;                       /* index of the newest */
    struct tsr_vbundle ring[TSR_V_MAXDIST + 1];
    uint64_t *fields;
    struct ctx c;
    /* by rule: the first A of an open window since the reset (the farthest back any later B can look) */
    struct first { bool have; size_t step; uint32_t pc; struct tsr_vev ev; } *first;
};

struct tsr_vstream *tsr_vstream_new(const struct tsr_vdesc *D)
{
    struct tsr_vstream *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    unsigned nf = D->nfields ? D->nfields : 1;
    s->fields = calloc((size_t)(TSR_V_MAXDIST + 1) * nf, sizeof *s->fields);
    s->first = calloc((size_t)(D->nrules > 0 ? D->nrules : 1), sizeof *s->first);
    if (!s->fields || !s->first) {
        free(s->fields);
        free(s->first);
        free(s);
        return NULL;
    }
    s->D = D;
    for (int i = 0; i <= TSR_V_MAXDIST; i++)
        s->ring[i].f = s->fields + (size_t)i * nf;
    s->c.D = D;
    return s;
}

void tsr_vstream_free(struct tsr_vstream *s)
{
    if (!s)
        return;
    free(s->fields);
    free(s->first);
    free(s->c.seen);
    free(s);
}

void tsr_vstream_reset(struct tsr_vstream *s)
{
    s->steps = 0;
    s->nring = 0;
    for (int r = 0; r < s->D->nrules; r++)
        s->first[r].have = false;
}

/* Open windows in issue order: a B against the first A since the reset (the farthest back), then h->b[0]'s
 * own A becomes that first A if there was none. */
static void stream_open(struct tsr_vstream *s, const struct hist *h)
{
    const struct tsr_vdesc *D = s->D;
    const struct tsr_vbundle *b = h->b[0];
    for (int r = 0; r < D->nrules; r++) {
        const struct tsr_vrule *R = &D->rules[r];
        if (R->kind != TSR_VR_WINDOW || R->npat != 2 || R->hi != TSR_V_OPEN)
            continue;
        struct first *o = &s->first[r];
        struct far_a far = { &o->ev, o->step, o->pc, s->steps - o->step };
        open_report(&s->c, h, r, o->have && far.d >= (size_t)R->lo ? &far : NULL);
        int a = o->have ? -1 : first_match(b, R->pat[0], -1);
        if (a >= 0) {
            o->have = true;
            o->step = s->steps;
            o->pc = b->pc;
            o->ev = b->ev[a];
        }
    }
}

size_t tsr_vstream_step(struct tsr_vstream *s, const uint32_t *w, uint32_t pc, tsr_vreport_fn fn, void *fctx)
{
    const struct tsr_vdesc *D = s->D;
    int keep = D->lookback + 1 < TSR_V_MAXDIST + 1 ? D->lookback + 1 : TSR_V_MAXDIST + 1;
    s->head = (s->head + 1) % (TSR_V_MAXDIST + 1);
    struct tsr_vbundle *b = &s->ring[s->head];
    uint64_t *f = b->f;
    memset(b, 0, sizeof *b);
    b->f = f;
    D->events(w, pc, b);
    if (s->steps == 0)
        tsr_vb_add(b, TSR_V_START, -1, 1, 0, 0);
    if (s->nring < keep)
        s->nring++;
    struct hist h;
    for (int k = 0; k < s->nring; k++) {
        h.b[k] = &s->ring[(s->head - k + TSR_V_MAXDIST + 1) % (TSR_V_MAXDIST + 1)];
        h.idx[k] = s->steps - (size_t)k;
    }
    h.len = s->nring;
    s->c.fn = fn;
    s->c.fctx = fctx;
    s->c.count = 0;
    s->c.nseen = 0;
    check_bundle(&s->c, &h);
    check_path(&s->c, &h);
    stream_open(s, &h);
    s->steps++;
    return s->c.count;
}

struct simctx { struct tsr_sim_ctl *ctl; int rc; };

static void to_sim(void *p, const struct tsr_vviol *v)
{
    struct simctx *x = p;
    int rc = tsr_sim_hazard(x->ctl, v->pc, "%s %s at 0x%08" PRIx32 ": %s", v->rule >= 0 ? "rule" : "resource", v->name,
                            v->pc, v->text);
    if (rc < 0 && x->rc == 0)
        x->rc = rc;
}

int tsr_vstream_sim(struct tsr_vstream *s, struct tsr_sim_ctl *ctl, const uint32_t *w, uint32_t pc)
{
    struct simctx x = { ctl, 0 };
    tsr_vstream_step(s, w, pc, to_sim, &x);
    return x.rc;
}

size_t tsr_validate_hist(const struct tsr_vdesc *D, const struct tsr_vbundle *const *b, int len, tsr_vreport_fn fn,
                         void *fctx)
{
    struct ctx c = { D, fn, fctx, 0, NULL, 0, 0, NULL, 0, true };
    struct hist h;
    h.len = len < 1 ? 1 : len > TSR_V_MAXDIST + 1 ? TSR_V_MAXDIST + 1 : len;
    for (int k = 0; k < h.len; k++) {
        h.b[k] = b[k];
        h.idx[k] = (size_t)k;
    }
    check_bundle(&c, &h);
    check_path(&c, &h);
    free(c.seen);
    return c.count;
}
