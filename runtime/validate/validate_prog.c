/* The hazard validator over a whole program (validate.h tsr_validate): control flow, the paths back from each
 * bundle, open windows by a data flow, in memory bounded by the rule window rather than the program. */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL   /* the memo's hash of a bundle's few words, without a call */
#include <xxhash.h>

#include "diag.h"
#include "tls.h"
#include "validate/validate.h"
#include "validate_int.h"

/* ---- whole programs ------------------------------------------------------------------------------------ */
/* The program check keeps no per-bundle events (unless it has at most ALL bundles: then the first pass's are kept
 * and none is decoded twice): a first pass lists the control flow (a fall-through bit per
 * bundle and the taken edges, a few per branch), then each bundle is checked against the paths back from it
 * with the bundles decoded again on demand: those of the last RING instructions from a ring, the others (the
 * sources of taken edges and what precedes them) into one scratch bundle per path depth, with a memo of
 * MEMO bundles (below) for the rule checks.  Memory besides the words: 3n / 8 bytes (fall-through, edge-target
 * and block-end bits), 24 bytes per taken edge, RING + lookback + 2 bundles and the memo (about 3 MB for the
 * largest description, of which only the entries used are touched: a small program does not pay for zeroing it),
 * and 10 bytes per instruction for each open window's data flow (4 more while it runs). */
#define MAX_PATHS 4096                 /* paths checked back from one bundle */
#define RING 128                       /* decoded bundles kept behind the one checked (> TSR_V_MAXDIST + 1) */
#define ALL 2048                       /* a program of at most ALL bundles keeps them all, decoded once (5 MB) */

struct tedge { size_t from, to, seq; };
struct prog {
    const struct tsr_vdesc *D;
    const uint32_t *w;
    size_t n;
    uint64_t base;
    unsigned nf;
    unsigned char *ft;                 /* bit i: i falls through to i + 1 */
    unsigned char *tgt;                /* bit i: some taken edge goes to i */
    unsigned char *endb;               /* bit i: i ends a basic block (TSR_V_END); NULL while the control-flow pass
                                          runs, which finds them */
    struct tedge *E;                   /* taken edges by target (then by their order in the program) */
    size_t nedge;
    struct tsr_vbundle *ring;          /* bundle i at ring[i % RING] while i is among the last RING checked; with
                                          all, every bundle i at ring[i], decoded by the control-flow pass */
    struct tsr_vbundle *scratch;       /* one per path depth, for bundles outside the ring */
    uint64_t *fields;
    bool all;
};

/* A memo of what a bundle's content decides, for bundles whose words come back (a program repeats many):
 * whether its resources and one-bundle rules pass, and the (rule, event) pairs whose second pattern matches.
 * An entry serves a bundle with the same words, events and fields (the patterns see nothing else), so a
 * bundle whose events depend on its address (a relative branch) just misses. */
#define MEMO 1024                      /* entries, direct-mapped by the words' hash */
#define MEMO_PAIRS 64
struct memo {
    size_t src;                        /* the bundle it was made from; SIZE_MAX: empty */
    uint32_t *w;                       /* its words (the key) */
    bool clean;
    int nev, format, npair;
    bool overflow;
    struct tsr_vev ev[TSR_V_MAXEV];
    uint64_t *f;
    struct vpair pair[MEMO_PAIRS];
};

/* The memo stays with the thread from one tsr_validate to the next for the same description (an entry holds
 * everything its verdict depends on: the packer validates each program it packs, and programs share most of
 * their bundles), allocated on first use; the first thread's is freed at exit (tls.h).  A tsr_validate called
 * from a report callback while another runs on the thread uses a memo of its own. */
struct vmemo {
    const struct tsr_vdesc *D;
    struct memo *M;
    uint64_t *mf, *mused;
    uint32_t *mw;
    struct tsr_vbundle *ring;   /* cring bundles (the ring or all, then the scratch ones), their fields at fields */
    uint64_t *fields;
    size_t cring;
    bool busy;
};
static _Thread_local struct vmemo *vmemo;
static void *vmemo_first;   /* the first thread's */

static void vmemo_fini(struct vmemo *v)
{
    free(v->M);
    free(v->mf);
    free(v->mused);
    free(v->mw);
    free(v->ring);
    free(v->fields);
    memset(v, 0, sizeof *v);
}

static void vmemo_free(void)
{
    if (vmemo_first) {
        vmemo_fini(vmemo_first);
        free(vmemo_first);
        vmemo_first = NULL;
    }
}

/* The memo and the ring for D (nf fields per bundle, nring bundles in the ring): the thread's (busy while the
 * caller runs), or v (a private one) when the thread's is busy. */
static struct vmemo *memo_for(const struct tsr_vdesc *D, unsigned nf, size_t nring, struct vmemo *v)
{
    static atomic_flag registered = ATOMIC_FLAG_INIT;
    if (!vmemo)
        vmemo = tsr_thread_table(1, sizeof *vmemo, &registered, &vmemo_first, vmemo_free);
    if (!vmemo->busy) {
        if (vmemo->D != D)
            vmemo_fini(vmemo);
        v = vmemo;
    }
    if (!v->D) {
        v->D = D;
        v->M = vld_xmalloc(MEMO * sizeof *v->M);
        v->mf = vld_xmalloc((size_t)MEMO * nf * sizeof *v->mf);
        v->mw = vld_xmalloc((size_t)MEMO * D->nwords * sizeof *v->mw);
        v->mused = vld_xcalloc(MEMO / 64 + 1, sizeof *v->mused);
    }
    if (v->cring < nring) {
        free(v->ring);
        free(v->fields);
        v->ring = vld_xcalloc(nring, sizeof *v->ring);
        v->fields = vld_xcalloc(nring * nf, sizeof *v->fields);
        for (size_t k = 0; k < nring; k++)
            v->ring[k].f = v->fields + k * nf;
        v->cring = nring;
    }
    v->busy = true;
    return v;
}

static bool same_ev(const struct tsr_vev *a, const struct tsr_vev *b)
{
    return a->kind == b->kind && a->cond == b->cond && a->slot == b->slot && a->delay == b->delay &&
           a->link == b->link && a->id == b->id && a->origin == b->origin && a->op == b->op && a->addr == b->addr &&
           a->val == b->val;
}

/* m: an entry that was filled (else its contents are not read). */
static bool memo_serves(const struct prog *P, const struct memo *m, size_t j, const struct tsr_vbundle *b)
{
    unsigned nw = P->D->nwords;
    if (m->src == SIZE_MAX || memcmp(m->w, P->w + j * nw, nw * sizeof *P->w) ||
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
    if (P->endb && P->endb[i / 8] >> (i % 8) & 1)
        tsr_vb_add(b, TSR_V_END, -1, 1, 0, 0);
}

static bool falls(const struct prog *P, size_t i)
{
    return P->ft[i / 8] >> (i % 8) & 1;
}

/* Bundle i for path depth `depth`, while j is the bundle checked (ring[j - RING + 1 .. j] are decoded, or all). */
static const struct tsr_vbundle *bundle_at(const struct prog *P, size_t j, size_t i, int depth)
{
    if (P->all)
        return &P->ring[i];
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
    if (!(P->tgt[t / 8] >> (t % 8) & 1))
        return P->nedge;   /* most instructions: no search */
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
            vld_check_path(c, h);
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

/* The data flow of open window r into F (dist[i] already 0 where bundle i has an A, else -1). */
static void open_flow(const struct prog *P, int r, struct flow *F)
{
    const struct tsr_vrule *R = &P->D->rules[r];
    size_t n = P->n, head = 0, count = 0;
    int lo = R->lo > INT16_MAX - 1 ? INT16_MAX - 1 : R->lo;
    uint32_t *queue = vld_xcalloc(n, sizeof *queue);
    unsigned char *inq = vld_xcalloc(n / 8 + 1, 1);
    const struct tedge **from = vld_xcalloc(P->nedge + 1, sizeof *from);   /* taken edges by source */
    for (size_t q = 0; q < P->nedge; q++)
        from[q] = &P->E[q];
    if (P->nedge)
        qsort(from, P->nedge, sizeof *from, cmp_from);
    for (size_t i = 0; i < n; i++) {   /* dist[i]: 0 where i has an A (set by the control-flow pass), else -1 */
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
    struct vld_far far = { NULL, 0, 0, 0 };
    if (dist >= 0 && dist + 1 >= R->lo) {
        const struct tsr_vbundle *ab = bundle_at(P, j, F->src[best], 0);
        int a = vld_first_match(ab, R->pat[0], -1);
        far = (struct vld_far){ &ab->ev[a < 0 ? 0 : a], F->src[best], ab->pc, (size_t)F->len[best] + 1 };
    }
    vld_open_report(c, h, r, far.e ? &far : NULL);
}

size_t tsr_validate(const struct tsr_vdesc *D, const uint32_t *w, size_t n, uint64_t base, tsr_vreport_fn fn,
                    void *fctx)
{
    struct ctx c = { D, fn, fctx, 0, NULL, 0, 0, NULL, 0, false };
    if (!n)
        return 0;
    struct prog P = { D, w, n, base, D->nfields ? D->nfields : 1, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL,
                      false };
    int depths = (D->lookback < TSR_V_MAXDIST ? D->lookback : TSR_V_MAXDIST) + 2;
    /* the memo's entries are initialised when first used (mused: their bits); a bundle of the ring is read only
     * after it is decoded (decode sets what the rules read) */
    P.all = n <= ALL;
    size_t nring = P.all ? n : RING;
    struct vmemo own = { 0 }, *vm = memo_for(D, P.nf, nring + (size_t)depths, &own);
    P.ring = vm->ring;
    P.scratch = P.ring + nring;
    P.fields = vm->fields;
    /* control flow: i -> i + 1 unless an always-taken branch or a halt ends at i (its last delay slot);
     * last delay slot -> target for branches to a constant address inside the program */
    P.ft = vld_xcalloc(n / 8 + 1, 1);
    for (size_t i = 0; i + 1 < n; i++)
        P.ft[i / 8] |= (unsigned char)(1u << (i % 8));
    P.tgt = vld_xcalloc(n / 8 + 1, 1);
    /* the ends of basic blocks: a jump's or halt's last delay slot (whether it may be taken or not), the
     * instruction before a taken edge's target, the program's last */
    unsigned char *endb = vld_xcalloc(n / 8 + 1, 1);
    endb[(n - 1) / 8] |= (unsigned char)(1u << ((n - 1) % 8));
    size_t capedge = 0;
    struct tsr_vbundle *b = &P.scratch[0];   /* (with all: ring[i]) */
    int nopen = 0;   /* open windows (openr: their rules): which bundles hold an A of each (its flow's start) */
    int *openr = vld_xcalloc((size_t)D->nrules + 1, sizeof *openr);
    for (int r = 0; r < D->nrules; r++)
        if (is_open(&D->rules[r]))
            openr[nopen++] = r;
    struct flow *F = vld_xcalloc((size_t)nopen + 1, sizeof *F);
    for (int k = 0; k < nopen; k++) {
        F[k].dist = vld_xcalloc(n, sizeof *F[k].dist);
        F[k].src = vld_xcalloc(n, sizeof *F[k].src);
        F[k].len = vld_xcalloc(n, sizeof *F[k].len);
    }
    for (size_t i = 0; i < n; i++) {
        if (P.all)
            b = &P.ring[i];
        decode(&P, i, b);
        for (int k = 0; k < nopen; k++)
            F[k].dist[i] = vld_first_match(b, D->rules[openr[k]].pat[0], -1) >= 0 ? 0 : -1;
        for (int k = 0; k < b->nev; k++) {
            const struct tsr_vev *e = &b->ev[k];
            if (e->kind != TSR_V_JUMP && e->kind != TSR_V_HALT)
                continue;
            size_t last = i + (size_t)(e->delay > 0 ? e->delay : 0);
            if (last >= n)
                continue;
            endb[last / 8] |= (unsigned char)(1u << (last % 8));
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
            P.tgt[P.E[P.nedge].to / 8] |= (unsigned char)(1u << (P.E[P.nedge].to % 8));
            P.E[P.nedge].seq = P.nedge;
            P.nedge++;
        }
    }
    if (P.nedge)
        qsort(P.E, P.nedge, sizeof *P.E, cmp_tedge);
    for (size_t q = 0; q < P.nedge; q++)
        if (P.E[q].to > 0)
            endb[(P.E[q].to - 1) / 8] |= (unsigned char)(1u << ((P.E[q].to - 1) % 8));
    P.endb = endb;   /* decode adds END from now on; the bundles the pass kept (all) and the open windows' starts
                        (A patterns that may match END) are brought up to date */
    for (size_t i = 0; i < n; i++) {
        if (!(endb[i / 8] >> (i % 8) & 1))
            continue;
        if (P.all)
            tsr_vb_add(&P.ring[i], TSR_V_END, -1, 1, 0, 0);
        if (!nopen)
            continue;
        const struct tsr_vbundle *eb = P.all ? &P.ring[i] : &P.scratch[0];
        if (!P.all)
            decode(&P, i, &P.scratch[0]);
        for (int k = 0; k < nopen; k++)
            F[k].dist[i] = vld_first_match(eb, D->rules[openr[k]].pat[0], -1) >= 0 ? 0 : -1;
    }
    struct memo *M = vm->M;
    uint64_t *mf = vm->mf, *mused = vm->mused;
    /* open windows: one data flow per rule, from the A bundles the control-flow pass found */
    for (int k = 0; k < nopen; k++)
        open_flow(&P, openr[k], &F[k]);
    for (size_t j = 0; j < n; j++) {
        struct hist h;
        const struct tsr_vbundle *b = &P.ring[P.all ? j : j % RING];
        if (!P.all)
            decode(&P, j, &P.ring[j % RING]);
        h.b[0] = b;
        h.idx[0] = j;
        h.len = 1;
        c.nseen = 0;
        uint64_t hash = XXH3_64bits(w + j * D->nwords, D->nwords * sizeof *w);   /* the memo's slot (memo_serves
                                                                                  compares the words) */
        size_t mk = (size_t)(hash % MEMO);
        struct memo *m = &M[mk];
        if (!(mused[mk / 64] >> (mk % 64) & 1)) {
            mused[mk / 64] |= (uint64_t)1 << (mk % 64);
            m->src = SIZE_MAX;
            m->f = mf + mk * P.nf;
            m->w = vm->mw + mk * D->nwords;
        }
        if (memo_serves(&P, m, j, b)) {
            if (!m->clean)
                vld_check_bundle(&c, &h);
        } else {
            size_t before = c.count;
            vld_check_bundle(&c, &h);
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
                memcpy(m->w, w + j * D->nwords, D->nwords * sizeof *w);
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
        for (int k = 0; k < nopen; k++)
            open_check(&c, &h, &P, openr[k], &F[k]);
    }
    for (int k = 0; k < nopen; k++)
        open_free(&F[k]);
    free(F);
    if (vm == &own)
        vmemo_fini(&own);
    else
        vm->busy = false;
    free(P.E);
    free(P.ft);
    free(P.tgt);
    free(endb);
    free(openr);

    free(c.seen);
    return c.count;
}

struct diagctx { struct tsr_diag *d; const char *path; };

static void to_diag(void *p, const struct tsr_vviol *v)
{
    struct diagctx *x = p;
    tsr_diag_error(x->d, x->path, 0, 0, "0x%08" PRIx32 ": %s %s: %s (ref: %s)", v->pc,
                   tsr_vviol_kind(v), v->name, v->text, v->ref ? v->ref : "none");
}

int tsr_validate_diag(const struct tsr_vdesc *D, const uint32_t *w, size_t n, uint64_t base, struct tsr_diag *d,
                      const char *path)
{
    struct diagctx x = { d, path };
    return tsr_validate(D, w, n, base, to_diag, &x) ? -1 : 0;
}
