/* The packer's lower bound, part 2 (pack_bound.c has the method and part 1): an exact search on the relaxation
 * of a block for a schedule of a given length, bundle by bundle, with a memo of states that failed and a node
 * budget; and the lengths it is run at: upwards from the bound for its proof (statistics), downwards from the
 * list schedule's for schedules (docs/pack.md "Algorithm" step 4). */
#include <stdlib.h>
#include <string.h>
#include "pack_bound.h"
#include "pack_int.h"
#include <xxhash.h>

/* ---- part 2: the search ------------------------------------------------------------------------------ */

/* (pack_int.h) */
bool tsr_pack_match_slots(const uint64_t *it, int k, uint64_t free_slots)
{
    if (k == 0)
        return true;
    for (uint64_t m = it[0] & free_slots; m; m &= m - 1)
        if (tsr_pack_match_slots(it + 1, k - 1, free_slots & ~(m & -m)))
            return true;
    return false;
}
bool bnd_fits(const struct bound *B, const uint64_t *it, int k)
{
    for (unsigned f = 0; f < B->nf; f++)
        if (B->fpop[f] >= k && tsr_pack_match_slots(it, k, B->fmask[f]))
            return true;
    return false;
}

/* Is unit i ready at bundle c (what it depends on placed early enough; in bundle c only with latency 0)? */
static bool ready(const struct bound *B, int i, int c)
{
    for (int k = 0; k < B->pred[i].n; k++) {
        int p = B->pred[i].e[k].to;
        if (B->cyc[p] < 0 || B->cyc[p] + bnd_edge_lat(B, i, k) > c)
            return false;
    }
    return true;
}

/* Whether an unplaced unit is ready while bundle c is formed, as hopeful finds it from the units placed
 * before: not (a unit it depends on is placed too late for c, or has no estimate early enough: it cannot
 * join bundle c either); yes (all it depends on placed early enough); ask ready() (the rest are unplaced
 * with estimate c: they may join bundle c first). */
enum { RDY_NO, RDY_YES, RDY_ASK };

/* Can the units left still be placed in bundles c..T-1?  Earliest starts given what is placed, with their
 * tails; the slot sets' op counts against the bundles left. */
static bool hopeful(struct bound *B, int c)
{
    int ncand = 0, *cand = B->cand_at + (size_t)c * (size_t)B->n, *est = B->est;
    const int *cyc = B->cyc, *q = B->q;
    uint8_t *rdy = B->rdy + (size_t)c * (size_t)B->n;
    for (int w = 0; w < B->W; w++)
        for (uint64_t bits = B->free[w]; bits; bits &= bits - 1) {   /* the unplaced units, in index order */
            int i = w * 64 + __builtin_ctzll(bits), e = c;
            bool placed = true;
            const struct tsr_pack_edge *pe = B->pred[i].e;
            if (i == B->ctl && B->jump)   /* (bnd_edge_lat) */
                for (int k = 0; k < B->pred[i].n; k++) {
                    int s = est[pe[k].to] + (pe[k].lat < 1 ? 1 : pe[k].lat);
                    e = s > e ? s : e;
                    placed &= cyc[pe[k].to] >= 0;
                }
            else
                for (int k = 0; k < B->pred[i].n; k++) {
                    int s = est[pe[k].to] + pe[k].lat;   /* (est of a placed unit: its bundle) */
                    e = s > e ? s : e;
                    placed &= cyc[pe[k].to] >= 0;
                }
            est[i] = e;   /* (in program order: what i depends on has its estimate already) */
            rdy[i] = e > c ? RDY_NO : placed ? RDY_YES : RDY_ASK;
            if (e <= c)
                cand[ncand++] = i;
            if (e + q[i] > B->T)
                return false;
        }
    B->ncand_at[c] = ncand;
    int left = B->T - c - B->lsolo;
    for (uint32_t sub = 1; sub < (1u << B->nsets); sub++) {
        int count = 0, d = B->ud[sub];
        for (uint32_t w = B->within[sub]; w; w &= w - 1)
            count += B->lcnt[__builtin_ctz(w)];
        if (d > 0 && (count + d - 1) / d > left)
            return false;
    }
    return !bnd_cliques_fail(B);   /* (the costliest test last) */
}

/* Unit i goes to bundle c, or (c < 0) back out: its bundle (cyc), its estimate (est: the bundle while it is
 * placed, so that hopeful reads one array), the unplaced set (free). */
static void place(struct bound *B, int i, int c)
{
    int d = c >= 0 ? -1 : 1;   /* (what is left: one unit less, or more) */
    B->cyc[i] = c;
    if (c >= 0) {
        B->est[i] = c;
        B->free[i / 64] &= ~((uint64_t)1 << (i % 64));
    } else {
        B->free[i / 64] |= (uint64_t)1 << (i % 64);
    }
    B->lsolo += d * (B->solo[i] || (i == B->ctl && B->jump));
    for (int k = B->first[i]; k < B->first[i] + B->count[i]; k++)
        if (B->setof[k] >= 0)
            B->lcnt[B->setof[k]] += d;
}

/* Can unit x join the bundle being formed (units inb, ops it[0..k))?  Pairwise with each unit in it, and
 * its ops in free slots of one format.  (Leaves x's ops at it[k..].) */
static bool joins(const struct bound *B, const uint64_t *inb, int x, uint64_t *it, int k)
{
    const uint64_t *row = B->compat + (size_t)x * B->W;
    for (int w = 0; w < B->W; w++)
        if (inb[w] & ~row[w])
            return false;
    if (k + B->count[x] > MAXITEMS)
        return false;
    if (B->count[x])
        memcpy(it + k, B->cand + B->first[x], (size_t)B->count[x] * sizeof *it);
    return bnd_fits(B, it, k + B->count[x]);
}

/* The state at the start of bundle c as the rest of the search sees it: per unit, not placed; placed and
 * its bundle's distance back from c, up to the latency past which no constraint remains.  Whether the rest
 * can be placed depends on the state and the bundles left, T - c, only (every test is relative to c and T,
 * the control unit's bundle too); the same state with fewer bundles left fails if it failed once: at a later
 * c, or at a shorter length T (the search for schedules keeps what failed from one length to the next). */
static XXH128_hash_t state_key(struct bound *B, int c)
{
    const int *cyc = B->cyc, *maxlat = B->maxlat;
    uint8_t *key = B->key;
    for (int i = 0; i < B->n; i++) {
        int d = c - cyc[i];
        d = d > maxlat[i] ? 254 : d;
        key[i] = (uint8_t)(cyc[i] < 0 ? 255 : d);
    }
    return XXH3_128bits(B->key, (size_t)B->n);
}
static struct seen *seen_slot(struct bound *B, XXH128_hash_t h)
{
    size_t m = B->capseen - 1, at = (size_t)h.low64 & m;
    while (B->seen[at].r >= 0 && (B->seen[at].lo != h.low64 || B->seen[at].hi != h.high64))
        at = (at + 1) & m;
    return &B->seen[at];
}
static void seen_add(struct bound *B, XXH128_hash_t h, int r)
{
    if (2 * (B->nseen + 1) > B->capseen) {
        struct seen *old = B->seen;
        size_t oc = B->capseen;
        B->capseen = oc ? 2 * oc : 1024;
        B->seen = malloc(B->capseen * sizeof *B->seen);
        if (!B->seen)
            abort();
        for (size_t i = 0; i < B->capseen; i++)
            B->seen[i].r = -1;
        for (size_t i = 0; i < oc; i++)
            if (old[i].r >= 0)
                *seen_slot(B, (XXH128_hash_t){ old[i].lo, old[i].hi }) = old[i];
        free(old);
    }
    struct seen *e = seen_slot(B, h);
    if (e->r < 0)
        B->nseen++;
    if (e->r < 0 || r > e->r)
        *e = (struct seen){ h.low64, h.high64, r };
}

/* Forms bundle c from the units that may be ready for it (hopeful's list for c) from position pos on (those
 * before decided: the ones in it in B->inb's row c, their ops it[0..k), the ready ones left out
 * skipped[0..ns)), then goes on to bundle c + 1.  Only maximal bundles are formed: moving an op other than the
 * control unit to an earlier bundle where it is ready and fits keeps a schedule of the relaxation valid, so
 * some shortest schedule has every bundle maximal.  A thread end that shares bundles goes in bundle
 * T - 1 - delay and no other (it is the last unit: decided after the others). */
static bool form(struct bound *B, int c, int left, int pos, uint64_t *it, int k, int *skipped, int ns)
{
    uint64_t *inb = B->inb + (size_t)c * (size_t)B->W;
    const uint8_t *rdy = B->rdy + (size_t)c * (size_t)B->n;
    const int *cand = B->cand_at + (size_t)c * (size_t)B->n, ncand = B->ncand_at[c];
    int i = -1;
    for (; pos < ncand; pos++) {   /* (the list is in index order; a twin after its previous twin: that one is
                                    * left out, and the bundle not maximal) */
        i = cand[pos];
        if (!(B->cyc[i] >= 0 || (i == B->ctl && (B->jump || c != B->T - 1 - B->delay)) ||
              (B->twin[i] >= 0 && B->cyc[B->twin[i]] < 0) || (rdy[i] == RDY_ASK && !ready(B, i, c))))
            break;
    }
    if (pos == ncand) {
        if (B->ctl >= 0 && !B->jump && B->cyc[B->ctl] < 0 && c == B->T - 1 - B->delay)
            return false;   /* the thread end belongs in this bundle, and is not ready */
        for (int s = 0; s < ns; s++)   /* a unit left out that would fit: not maximal */
            if (joins(B, inb, skipped[s], it, k))
                return false;
        return bnd_search(B, c + 1, left);
    }
    bool fits = joins(B, inb, i, it, k);
    if (fits) {   /* with it */
        place(B, i, c);
        inb[i / 64] |= (uint64_t)1 << (i % 64);
        bool ok = form(B, c, left - 1, pos + 1, it, k + B->count[i], skipped, ns);
        inb[i / 64] &= ~((uint64_t)1 << (i % 64));
        place(B, i, -1);
        if (ok || B->gave_up)
            return ok;
    }
    if (i == B->ctl)
        return false;   /* the thread end belongs in this bundle (it is the last unit): never left out */
    /* without it; a unit that does not fit now never fits this bundle (it only grows: more partners to
     * agree with, more slots taken), so only one left out by choice is asked again at the end */
    if (fits)
        skipped[ns++] = i;
    return form(B, c, left, pos + 1, it, k, skipped, ns);
}

bool bnd_search(struct bound *B, int c, int left)
{
    if (left == 0) {
        if (B->best)
            memcpy(B->best, B->cyc, (size_t)B->n * sizeof *B->cyc);
        return true;
    }
    if (c >= B->T || (B->ctl >= 0 && B->cyc[B->ctl] < 0 && c > B->T - 1 - B->delay))
        return false;
    XXH128_hash_t h = state_key(B, c);   /* (a state that failed before: no need to ask hopeful) */
    if (B->capseen) {
        struct seen *e = seen_slot(B, h);
        if (e->r >= 0 && e->r >= B->T - c)
            return false;
    }
    if (!hopeful(B, c))
        return false;
    if (++B->nodes > B->budget) {
        B->gave_up = true;
        return false;
    }
    /* the branch in bundle T - 1 - delay, of its own */
    int x = B->ctl;
    if (x >= 0 && B->jump && c == B->T - 1 - B->delay) {
        if (!ready(B, x, c))
            return false;
        place(B, x, c);
        bool ok = bnd_search(B, c + 1, left - 1);
        place(B, x, -1);
        if (!ok && !B->gave_up)
            seen_add(B, h, B->T - c);
        return ok;
    }
    uint64_t it[MAXITEMS + 8];
    bool ok = form(B, c, left, 0, it, 0, B->skip + (size_t)c * (size_t)B->n, 0);
    if (!ok && !B->gave_up)
        seen_add(B, h, B->T - c);
    return ok;
}

/* ---- the lengths tried ---------------------------------------------------------------------------- */

/* Readies the search of length T: nothing placed, scratch for T bundles, a fresh budget of `budget` nodes,
 * the schedule it finds (if any) to `best`; the failed states known are forgotten unless keep_seen. */
static void search_init(struct bound *B, int T, long budget, int *best, bool keep_seen)
{
    int n = B->n;
    B->T = T;
    for (int i = 0; i < n; i++)
        B->cyc[i] = -1;
    for (int w = 0; w < B->W; w++)
        B->free[w] = ~(uint64_t)0 >> (w == B->W - 1 && n % 64 ? 64 - n % 64 : 0);
    B->lsolo = 0;
    memset(B->lcnt, 0, sizeof B->lcnt);
    for (int i = 0; i < n; i++) {
        B->lsolo += B->solo[i] || (i == B->ctl && B->jump);
        for (int k = B->first[i]; k < B->first[i] + B->count[i]; k++)
            if (B->setof[k] >= 0)
                B->lcnt[B->setof[k]]++;
    }
    B->inb = realloc(B->inb, ((size_t)T * (size_t)B->W + 1) * sizeof *B->inb);
    B->skip = realloc(B->skip, ((size_t)T * (size_t)n + 1) * sizeof *B->skip);
    B->rdy = realloc(B->rdy, (size_t)T * (size_t)n + 1);
    B->cand_at = realloc(B->cand_at, ((size_t)T * (size_t)n + 1) * sizeof *B->cand_at);
    B->ncand_at = realloc(B->ncand_at, ((size_t)T + 1) * sizeof *B->ncand_at);
    B->cbucket = realloc(B->cbucket, ((size_t)T + 2) * sizeof *B->cbucket);
    B->cq = realloc(B->cq, ((size_t)T + 2) * sizeof *B->cq);
    if (!B->inb || !B->skip || !B->rdy || !B->cand_at || !B->ncand_at || !B->cbucket || !B->cq)
        abort();
    memset(B->cbucket, 0, ((size_t)T + 2) * sizeof *B->cbucket);
    memset(B->inb, 0, (size_t)T * (size_t)B->W * sizeof *B->inb);
    B->gave_up = false;
    for (size_t i = 0; i < B->capseen && !keep_seen; i++)
        B->seen[i].r = -1;
    if (!keep_seen)
        B->nseen = 0;
    B->nodes = 0;
    B->budget = budget;
    B->best = best;
}

/* The proof: lengths from lb upwards, below limit (0: none), until one has a schedule or the budget
 * (NODE_BUDGET for all lengths together) runs out.  Returns that length (limit if every shorter one was
 * ruled out); *exact: the search ended in its budget. */
int bnd_prove(struct bound *B, int lb, int limit, bool *exact)
{
    long spent = 0;
    int T = lb > 0 ? lb : 1;
    for (;; T++) {
        if (limit && T >= limit)
            break;   /* the caller's schedule is that long: the bound is exact */
        search_init(B, T, NODE_BUDGET - spent, NULL, false);
        bool found = bnd_search(B, 0, B->n);
        spent += B->nodes;
        if (found || B->gave_up)
            break;
    }
    *exact = !B->gave_up;
    return T;
}

/* Looks for schedules, not proofs: lengths from limit - 1 downwards, down to floor, stopping at the first
 * length where none is found within its budget: FIND_BUDGET nodes for the first, and for each next one at
 * most FIND_GROWTH times what the length before took plus FIND_SLACK (a length one shorter that takes far
 * more is where the proofs begin).  Each schedule found goes to f (its length: T, or for a block without a
 * control unit the bundles it fills, the next length tried below that). */
void bnd_find(struct bound *B, int floor, int limit, struct tsr_pack_found *f)
{
    int n = B->n, cap = 0;
    long budget = FIND_BUDGET;
    for (int T = limit - 1; T >= floor && T >= 1;) {
        if (f->count == cap) {
            cap = cap ? 2 * cap : 4;
            f->len = realloc(f->len, (size_t)cap * sizeof *f->len);
            f->at = realloc(f->at, (size_t)cap * (size_t)n * sizeof *f->at);
            if (!f->len || !f->at)
                abort();
        }
        search_init(B, T, budget, f->at + (size_t)f->count * (size_t)n, f->count > 0);
        if (!bnd_search(B, 0, n))
            break;
        budget = FIND_GROWTH * B->nodes + FIND_SLACK;
        budget = budget < FIND_BUDGET ? budget : FIND_BUDGET;
        int len = 0;
        for (int i = 0; i < n; i++)
            len = B->best[i] + 1 > len ? B->best[i] + 1 : len;
        len = B->ctl >= 0 ? T : len;   /* (the control unit's delay slots end the block) */
        f->len[f->count++] = (unsigned)len;
        T = len - 1;
    }
    /* shortest first */
    for (int a = 0, b = f->count - 1; a < b; a++, b--) {
        unsigned l = f->len[a];
        f->len[a] = f->len[b];
        f->len[b] = l;
        for (int i = 0; i < n; i++) {
            int x = f->at[(size_t)a * (size_t)n + (size_t)i];
            f->at[(size_t)a * (size_t)n + (size_t)i] = f->at[(size_t)b * (size_t)n + (size_t)i];
            f->at[(size_t)b * (size_t)n + (size_t)i] = x;
        }
    }
}

void tsr_pack_found_free(struct tsr_pack_found *f)
{
    free(f->len);
    free(f->at);
    f->len = NULL;
    f->at = NULL;
    f->count = 0;
}
