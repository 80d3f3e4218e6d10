/* The packer's lower bound per block, and its search for a schedule (docs/pack.md "Lower bound", and
 * "Algorithm" step 4): no schedule of the block, by this packer or any other, has fewer bundles.  Two parts:
 *   1. the larger of the latency-weighted critical path and a slot-resource bound (with heads and tails);
 *   2. an exact search on a relaxation of the block: the same dependences and latencies, each op in a slot
 *      that has an op of its name (one format per bundle), two units in one bundle only if the assembler
 *      and the one-bundle rules accept the pair, units that pair with no other alone, the branch or thread
 *      end its delay slots before the block's end (a branch in a bundle of its own) -- but not triples,
 *      windows between ordinary operations, or the previous block.  Every real schedule is a schedule of
 *      the relaxation, so the relaxation's shortest is a lower bound.  The proof (statistics only) tries
 *      lengths from part 1's bound upwards, below the caller's schedule, and stops at the first it cannot
 *      rule out within a node budget (that length is then still a bound: all shorter ones failed).  The
 *      search for schedules tries lengths from the caller's less one downwards while they are found cheaply;
 *      the schedules it finds are returned: the packer builds real bundles from them (pack_sched.c realize).
 * Part 2 is in pack_search.c; the shared state (struct bound) in pack_bound.h.  Nothing here knows the
 * target: slots, formats and op names come from its descriptor. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "pack_bound.h"
#include "pack_int.h"
#include "fileout.h"
#include "target.h"
#include "tls.h"
#include "text/textcodec.h"
#include <xxhash.h>

/* A bound in bundles: a block with units needs at least one. */
static unsigned bundles(int lb, int n)
{
    return (unsigned)(lb < 1 && n > 0 ? 1 : lb);
}

/* latency of edge k of unit i as a bound may use (a branch in a bundle of its own: after what feeds it) */
int bnd_edge_lat(const struct bound *B, int i, int k)
{
    int l = B->pred[i].e[k].lat;
    return i == B->ctl && B->jump && l < 1 ? 1 : l;
}

/* Can units a and b share a bundle: does the assembler encode them together (either written with its
 * sources swapped, if commutative), doing what they do alone, without breaking a rule of the description
 * within that bundle (resources, `forbid` at distance 0)?  (A bundle holding more units has their events
 * too: what a pair breaks, a larger bundle with the pair breaks.) */
/* Is form x of a unit's forms (text, alt, full) written as an earlier one? */
static bool same_text(const char *const *forms, int x)
{
    for (int e = 0; e < x; e++)
        if (forms[e] && !strcmp(forms[e], forms[x]))
            return true;
    return false;
}

static bool pair_assembles(const struct tsr_target *t, const struct tsr_pack_unit *a, const struct tsr_pack_unit *b)
{
    const char *as[3] = { a->text, a->alt, a->full }, *bs[3] = { b->text, b->alt, b->full };
    for (int x = 0; x < 3; x++)
        for (int y = 0; y < 3; y++) {
            if (!as[x] || !bs[y] || same_text(as, x) || same_text(bs, y))
                continue;   /* (a form written as an earlier one: tried already) */
            const char *parts[TSR_PACK_MAXPARTS] = { as[x] };
            const uint32_t *pw[TSR_PACK_MAXPARTS] = { a->w };
            uint32_t w[TSR_PACK_MAX_NWORDS];
            if (!tsr_pack_try_merge(t, parts, pw, 1, bs[y], b->w, w))
                continue;
            struct tsr_pack_ev ev = { 0 };   /* and the pair breaks no rule within one bundle */
            tsr_pack_ev_init(t, w, &ev);
            size_t bad = tsr_pack_solo_check(t->vdesc, ev.vb, NULL, 0);
            tsr_pack_ev_free(&ev);
            if (!bad)
                return true;
        }
    return false;
}

/* The verdicts of pair_assembles already reached: a direct-mapped cache keyed by a 128-bit XXH3 hash of the
 * target and both units' words and texts (all the verdict depends on).  GPU_FFT's blocks pair the same
 * operations again and again (the butterflies of every shader): most of the pairs a block asks about were
 * asked before.  An entry is the key's high 64 bits with the verdict in bit 0 (0: empty), in one of the PWAYS
 * entries of the set its low bits name (a full set loses the entry its new key's bits pick): 77 bits of the
 * key checked, in 8 bytes, so that the 18,517 distinct pairs all of GPU_FFT asks about (39,467 assembled in one
 * pass when the cache was direct-mapped, 16,384 entries of 32 bytes) fit its 512 KB. */
#define PSETS 16384
#define PWAYS 4
static _Thread_local uint64_t (*pcache)[PWAYS];   /* PSETS sets, allocated on first use (tls.h: not in every
                                                     * thread's static TLS block); the first thread's freed at exit */
static void *pcache_first;

static void pcache_free(void)
{
    free(pcache_first);
    pcache_first = NULL;
}

/* A unit as the pair cache knows it: a 128-bit XXH3 hash of its words and its three forms (all a pair's
 * verdict depends on, with the other unit's). */
static XXH128_hash_t key_unit(const struct tsr_pack_unit *x)
{
    struct tsr_buf k = { 0 };
    tsr_buf_append(&k, (const char *)x->w, sizeof x->w);
    const char *s[3] = { x->text, x->alt, x->full };
    for (int i = 0; i < 3; i++)   /* each string with its NUL; an absent one as a lone 0xff byte */
        tsr_buf_append(&k, s[i] ? s[i] : "\xff", s[i] ? strlen(s[i]) + 1 : 1);
    XXH128_hash_t h = XXH3_128bits(k.data, k.len);
    tsr_buf_free(&k);
    return h;
}

/* can_pair: first the slots (an assembler puts an op only in a slot that has an op of its name: when the two
 * units' ops cannot go to distinct slots of one format, no encoding of the pair exists), then the cache
 * (ka, kb: the units' key_unit). */
static bool can_pair(const struct bound *B, const struct tsr_pack_unit *a, const struct tsr_pack_unit *b,
                     XXH128_hash_t ka, XXH128_hash_t kb)
{
    const struct tsr_target *t = B->t;
    if (!a->text || !b->text)
        return false;
    if (a->ncand >= 0 && b->ncand >= 0 && a->ncand + b->ncand <= MAXITEMS) {
        uint64_t it[MAXITEMS];
        memcpy(it, a->cand, (size_t)a->ncand * sizeof *it);
        memcpy(it + a->ncand, b->cand, (size_t)b->ncand * sizeof *it);
        if (!bnd_fits(B, it, a->ncand + b->ncand))
            return false;
    }
    XXH128_hash_t both[2] = { ka, kb };
    XXH128_hash_t k = XXH3_128bits_withSeed(both, sizeof both, (XXH64_hash_t)(uintptr_t)t);
    uint64_t tag = k.high64 & ~(uint64_t)1 ? k.high64 & ~(uint64_t)1 : 2;
    static atomic_flag registered = ATOMIC_FLAG_INIT;
    if (!pcache)
        pcache = tsr_thread_table(PSETS, sizeof *pcache, &registered, &pcache_first, pcache_free);
    uint64_t *set = pcache[k.low64 % PSETS];
    int w = 0;
    while (w < PWAYS && set[w] && (set[w] & ~(uint64_t)1) != tag)
        w++;
    if (w < PWAYS && set[w])
        return set[w] & 1;
    bool ok = pair_assembles(t, a, b);
    set[w < PWAYS ? w : (int)((tag >> 1) % PWAYS)] = tag | ok;   /* (the way from the unsigned tag: a negative
                                                                  * index wrote before the set, at set 0 past pcache) */
    return ok;
}

/* Which units can share a bundle, pair by pair; units that cannot share a bundle with any other unit of the
 * block (the assembler cannot encode the pair: a load immediate of a value no other needs).  horizon (0:
 * none): only schedules of at most that many bundles matter, so two units whose windows in such a schedule
 * (unit i in est[i] .. horizon - q[i]) do not meet never share a bundle and are not assembled either. */
static void pairs_init(struct bound *B, int horizon)
{
    const struct tsr_pack_unit *u = B->u;
    int n = B->n, last = B->jump ? B->nn : n;   /* a thread end that can share a bundle has partners too */
    B->compat = calloc((size_t)n * (size_t)B->W + 1, sizeof *B->compat);
    /* pairs that never share a bundle whatever the encoding: an edge of latency 1 or more between them, or
     * both need a slot no other slot can stand in for (not assembled: the assembler is the slow part) */
    uint64_t *apart = calloc((size_t)n * (size_t)B->W + 1, sizeof *apart);
    XXH128_hash_t *key = malloc(((size_t)last + 1) * sizeof *key);
    for (int i = 0; i < last; i++)
        key[i] = key_unit(&u[i]);
    for (int j = 0; j < n; j++)
        for (int k = 0; k < B->pred[j].n; k++)
            if (B->pred[j].e[k].lat >= 1) {
                int i = B->pred[j].e[k].to;
                apart[(size_t)j * B->W + i / 64] |= (uint64_t)1 << (i % 64);
            }
    for (int i = 0; i < last; i++)
        for (int j = i + 1; j < last; j++) {
            int lo = B->est[i] > B->est[j] ? B->est[i] : B->est[j];
            int hi = horizon - (B->q[i] > B->q[j] ? B->q[i] : B->q[j]);
            if (!(apart[(size_t)j * B->W + i / 64] >> (i % 64) & 1) && !(u[i].only & u[j].only) &&
                (!horizon || lo <= hi) && can_pair(B, &u[i], &u[j], key[i], key[j])) {
                B->compat[(size_t)i * B->W + j / 64] |= (uint64_t)1 << (j % 64);
                B->compat[(size_t)j * B->W + i / 64] |= (uint64_t)1 << (i % 64);
            }
        }
    for (int i = 0; i < last; i++) {
        bool pairs = false;   /* some unit of the block it can share an instruction with, edges aside */
        for (int w = 0; w < B->W && !pairs; w++)
            pairs = B->compat[(size_t)i * B->W + w] != 0;
        for (int j = 0; j < last && !pairs; j++) {
            int a = i < j ? i : j, b = i < j ? j : i;
            pairs = a != b && (apart[(size_t)b * B->W + a / 64] >> (a % 64) & 1) && !(u[a].only & u[b].only) &&
                    can_pair(B, &u[a], &u[b], key[a], key[b]);
        }
        B->solo[i] = !pairs && B->n > 1;
    }
    free(key);
    free(apart);
}

/* The items (ops) of the units that can share bundles (not B->solo), with the slots they may use: those
 * of every op of the same name, in any format; the distinct slot sets, and per union of them its slots
 * per format and the sets within it.  (Called again after pairs_init: it frees what it made before.) */
static void items_init(struct bound *B)
{
    const struct tsr_target *t = B->t;
    const struct tsr_pack_unit *u = B->u;
    int n = B->n, last = B->jump ? B->nn : n, cap = 0;
    free(B->first);
    free(B->count);
    free(B->cand);
    free(B->owner);
    free(B->fmask);
    free(B->fpop);
    free(B->setof);
    free(B->umask);
    free(B->ud);
    free(B->within);
    B->cand = NULL;
    B->owner = NULL;
    B->nitems = B->nsets = 0;
    B->first = calloc((size_t)n + 1, sizeof *B->first);
    B->count = calloc((size_t)n + 1, sizeof *B->count);
    for (int i = 0; i < last; i++) {
        B->first[i] = B->nitems;
        if (B->solo[i])
            continue;
        void *inst = calloc(1, t->inst_size);
        t->decode(u[i].w, inst);
        if (t->inst_format(inst) != TSR_NO_FORMAT)
            for (unsigned sl = 0; sl < t->nslots && sl < 64; sl++) {
                unsigned op = t->inst_op(inst, sl);
                if (tsr_pack_op_idle(t, op))
                    continue;
                uint64_t m = tsr_pack_name_slots(t, op);
                if (B->nitems == cap) {
                    cap = cap ? 2 * cap : 32;
                    B->cand = realloc(B->cand, (size_t)cap * sizeof *B->cand);
                    B->owner = realloc(B->owner, (size_t)cap * sizeof *B->owner);
                }
                B->owner[B->nitems] = i;
                B->cand[B->nitems++] = m;
            }
        free(inst);
        B->count[i] = B->nitems - B->first[i];
    }
    const struct tsr_tc_isa *isa = t->text;
    B->nf = isa->nformats;
    B->fmask = calloc(B->nf + 1, sizeof *B->fmask);
    for (unsigned f = 0; f < isa->nformats; f++)
        for (uint32_t x = 0; x < isa->formats[f].nslot; x++) {
            unsigned sl = isa->idx[isa->formats[f].slot + x];
            if (sl < 64)
                B->fmask[f] |= (uint64_t)1 << sl;
        }
    B->fpop = calloc(B->nf + 1, sizeof *B->fpop);
    for (unsigned f = 0; f < B->nf; f++)
        B->fpop[f] = __builtin_popcountll(B->fmask[f]);
    B->setof = calloc((size_t)B->nitems + 1, sizeof *B->setof);
    for (int k = 0; k < B->nitems; k++) {
        int q = 0;
        while (q < B->nsets && B->sets[q] != B->cand[k])
            q++;
        if (q == B->nsets && B->nsets < MAXSETS)
            B->sets[B->nsets++] = B->cand[k];
        B->setof[k] = q < MAXSETS ? q : -1;
    }
    size_t nsub = (size_t)1 << B->nsets;
    B->umask = calloc(nsub, sizeof *B->umask);
    B->ud = calloc(nsub, sizeof *B->ud);
    B->within = calloc(nsub, sizeof *B->within);
    for (size_t sub = 1; sub < nsub; sub++) {
        for (int q = 0; q < B->nsets; q++)
            if (sub >> q & 1)
                B->umask[sub] |= B->sets[q];
        for (int q = 0; q < B->nsets; q++)
            if ((B->sets[q] & ~B->umask[sub]) == 0)
                B->within[sub] |= 1u << q;
        for (unsigned f = 0; f < B->nf; f++) {   /* (a bundle has one format) */
            int in = __builtin_popcountll(B->fmask[f] & B->umask[sub]);
            B->ud[sub] = in > B->ud[sub] ? in : B->ud[sub];
        }
    }
}

/* Cliques of the conflict graph (units that pairwise cannot share a bundle: each needs a bundle of its own),
 * grown greedily from every unit, those with the fewest partners first; the MAXCLIQUES largest of at least
 * three units are kept.  (A branch in a bundle of its own conflicts with every unit.) */
static void cliques_init(struct bound *B)
{
    int n = B->n, W = B->W, *deg = calloc((size_t)n + 1, sizeof *deg), *by = malloc(((size_t)n + 1) * sizeof *by);
    int *cur = malloc(((size_t)n + 1) * sizeof *cur);
    /* open: the units incompatible with every member so far; members: the clique as a set; kept: per clique
     * kept, its members as a set */
    uint64_t *open = malloc(((size_t)W + 1) * sizeof *open), *members = malloc(((size_t)W + 1) * sizeof *members);
    uint64_t *kept = calloc((size_t)MAXCLIQUES * (size_t)W + 1, sizeof *kept);
    B->cmask = kept;
    for (int i = 0; i < n; i++) {
        by[i] = i;
        for (int w = 0; w < W; w++)
            deg[i] += __builtin_popcountll(B->compat[(size_t)i * W + w]);
    }
    for (int i = 1; i < n; i++)   /* fewest partners first (insertion sort: stable) */
        for (int j = i; j > 0 && deg[by[j]] < deg[by[j - 1]]; j--) {
            int x = by[j];
            by[j] = by[j - 1];
            by[j - 1] = x;
        }
    for (int s = 0; s < n; s++) {
        int m = 0;
        cur[m++] = s;
        for (int w = 0; w < W; w++) {
            open[w] = ~B->compat[(size_t)s * W + w];
            members[w] = 0;
        }
        members[s / 64] |= (uint64_t)1 << (s % 64);
        for (int a = 0; a < n; a++) {   /* each unit, in that order, joins if it conflicts with all so far */
            int x = by[a];
            if (x == s || !(open[x / 64] >> (x % 64) & 1))
                continue;
            cur[m++] = x;
            members[x / 64] |= (uint64_t)1 << (x % 64);
            for (int w = 0; w < W; w++)
                open[w] &= ~B->compat[(size_t)x * W + w];
        }
        if (m < 3)
            continue;
        bool dup = false;   /* the same set again (members in another order) */
        for (int q = 0; q < B->ncliques && !dup; q++)
            dup = B->csize[q] == m && !memcmp(kept + (size_t)q * W, members, (size_t)W * sizeof *members);
        if (dup)
            continue;
        int at = B->ncliques < MAXCLIQUES ? B->ncliques++ : -1;
        if (at < 0) {   /* replace the smallest if this one is larger */
            for (int q = 0; q < MAXCLIQUES; q++)
                if (B->csize[q] < m && (at < 0 || B->csize[q] < B->csize[at]))
                    at = q;
            if (at < 0)
                continue;
            free(B->clique[at]);
        }
        B->clique[at] = malloc((size_t)m * sizeof *cur);
        memcpy(B->clique[at], cur, (size_t)m * sizeof *cur);
        B->csize[at] = m;
        memcpy(kept + (size_t)at * W, members, (size_t)W * sizeof *members);
    }
    free(deg);
    free(by);
    free(cur);
    free(open);
    free(members);
}

/* Does some clique's unplaced members need more than the T bundles: those with estimates >= e (k of them)
 * take k distinct bundles from e on, and the last of them has at least the smallest tail among them.  Per
 * clique, the members are counted per estimate (with their least tail) and the estimates scanned from the
 * largest down; only the largest k of a run of equal estimates need testing (same e, the most members, the
 * least tail).  cbucket and cq: per estimate 0..T, the count (all 0 between calls) and the least tail. */
bool bnd_cliques_fail(struct bound *B)
{
    int T = B->T, *cnt = B->cbucket, *mq = B->cq;
    for (int q = 0; q < B->ncliques; q++) {
        int lo = T + 1, hi = -1;
        const uint64_t *mask = B->cmask + (size_t)q * (size_t)B->W;
        for (int w = 0; w < B->W; w++)
            for (uint64_t bits = mask[w] & B->free[w]; bits; bits &= bits - 1) {   /* its unplaced members */
                int x = w * 64 + __builtin_ctzll(bits), e = B->est[x];
                if (e > T) {
                    for (int f = lo; f <= hi; f++)
                        cnt[f] = 0;
                    return true;
                }
                if (cnt[e]++ == 0 || B->q[x] < mq[e])
                    mq[e] = B->q[x];
                lo = e < lo ? e : lo;
                hi = e > hi ? e : hi;
            }
        bool fail = false;
        for (int e = hi, k = 0, minq = 1 << 30; e >= lo; e--) {
            if (!cnt[e])
                continue;
            k += cnt[e];
            minq = mq[e] < minq ? mq[e] : minq;
            fail |= e + k + minq - 1 > T;
            cnt[e] = 0;
        }
        if (fail)
            return true;
    }
    return false;
}

/* Each unit's earliest bundle (est) and bundles from it to the block's end, its own included (q); returns
 * the latency-weighted critical path (a control unit adds its own instruction and its delay slots). */
static int paths(struct bound *B)
{
    const struct tsr_pack_unit *u = B->u;
    int n = B->n, ctl = B->ctl, cp = 0;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < B->pred[i].n; k++) {
            int l = bnd_edge_lat(B, i, k), p = B->pred[i].e[k].to;
            if (B->est[p] + l > B->est[i])
                B->est[i] = B->est[p] + l;
        }
        int end = i == ctl ? B->est[i] + 1 + u[i].ev.delay : B->est[i] + 1;
        cp = end > cp ? end : cp;
    }
    for (int i = n - 1; i >= 0; i--) {
        if (B->q[i] < (i == ctl ? 1 + u[i].ev.delay : 1))
            B->q[i] = i == ctl ? 1 + u[i].ev.delay : 1;
        for (int k = 0; k < B->pred[i].n; k++) {
            int p = B->pred[i].e[k].to, l = bnd_edge_lat(B, i, k);
            if (l + B->q[i] > B->q[p])
                B->q[p] = l + B->q[i];
        }
    }
    return cp;
}

/* Part 1: the larger of the critical path cp and the slot-resource bound, from the units' est and q. */
static int classic(struct bound *B, int cp)
{
    int ctl = B->ctl, alone = 0;
    for (int i = 0; i < B->nn; i++)
        alone += B->solo[i];
    /* op k can go to the slots cand[k].  For a set T of slots, the ops whose candidates lie in T need at least
     * ceil(count / d) bundles, d the most slots of T one format has.  T ranges over the unions of the sets. */
    int m0 = B->nitems;
    int *E = malloc(((size_t)m0 + 1) * sizeof *E), *Q = malloc(((size_t)m0 + 1) * sizeof *Q);
    int hbt = 0, rb = 0;
    for (uint32_t sub = 1; sub < (1u << B->nsets); sub++) {
        uint64_t T = B->umask[sub];
        int count = 0, d = B->ud[sub];
        for (int k = 0; k < m0; k++)
            count += (B->cand[k] & ~T) == 0;
        if (d > 0 && (count + d - 1) / d > rb)
            rb = (count + d - 1) / d;
        /* with heads and tails: those that start no earlier than e, the k of them with the longest tails
         * (at least qk bundles to the end, theirs included): e + ceil(k / d) + qk - 1 bundles */
        int m = 0;
        for (int k = 0; k < m0; k++)
            if ((B->cand[k] & ~T) == 0) {
                E[m] = B->est[B->owner[k]];
                Q[m++] = B->q[B->owner[k]];
            }
        /* (per distinct e once; the tails counted by value, longest first: for each value only the
         * largest k with that tail matters, ceil(k / d) growing with k) */
        int maxe = 0, maxq = 0;
        for (int c = 0; c < m; c++) {
            maxe = E[c] > maxe ? E[c] : maxe;
            maxq = Q[c] > maxq ? Q[c] : maxq;
        }
        /* (a block larger than MAXSEARCH has up to thousands of distinct starts, each a pass over the items:
         * there every stride-th of them in increasing order is taken, HTSTARTS in all, a weaker bound but
         * still one) */
        int *rank = calloc((size_t)maxe + 1, sizeof *rank), distinct = 0;
        for (int c = 0; c < m; c++)
            rank[E[c]] = 1;
        for (int e = 0; e <= maxe; e++)
            rank[e] = rank[e] ? distinct++ : -1;
        int stride = B->n > MAXSEARCH && distinct > HTSTARTS ? (distinct + HTSTARTS - 1) / HTSTARTS : 1;
        bool *done = calloc((size_t)maxe + 1, sizeof *done);
        int *L = calloc((size_t)maxq + 1, sizeof *L);
        for (int a = 0; a < m && d > 0; a++) {
            int e = E[a], k = 0;
            if (done[e] || rank[e] % stride)
                continue;
            done[e] = true;
            memset(L, 0, ((size_t)maxq + 1) * sizeof *L);
            for (int c = 0; c < m; c++)
                if (E[c] >= e)
                    L[Q[c]]++;
            for (int q = maxq; q >= 0; q--) {
                if (!L[q])
                    continue;
                k += L[q];
                /* a branch in a bundle of its own lies inside that span when it can start by e and the
                 * tail is within its delay slots: one more */
                int br = B->jump && e <= B->est[ctl] && q <= 1 + B->delay;
                if (e + (k + d - 1) / d + q - 1 + br > hbt)
                    hbt = e + (k + d - 1) / d + q - 1 + br;
            }
        }
        free(done);
        free(rank);
        free(L);
    }
    free(E);
    free(Q);
    rb += alone;
    if (ctl >= 0) {   /* a branch takes a bundle of its own (a thread end may share one); then its delay slots */
        rb += B->jump ? 1 : 0;
        rb = rb > 1 + B->delay ? rb : 1 + B->delay;
    }
    rb = hbt > rb ? hbt : rb;   /* (the tails already hold the branch and its delay slots) */
    return rb > cp ? rb : cp;
}

/* A `forbid A -> B at LO..HI` whose A is the block's branch / thread end and whose window covers its delay
 * slots (LO <= 1, HI >= delay) keeps every B of the block before it: an edge B -> control unit of latency
 * 1 - LO.  (The positions after a control unit within its block are its delay slots.)  Returns the graph
 * with these edges (a copy of the control unit's row; the other rows shared), or pred itself if none. */
static const struct tsr_pack_elist *window_edges(const struct bound *B, struct tsr_pack_elist **own)
{
    const struct tsr_vdesc *D = B->t->vdesc;
    int x = B->ctl;
    *own = NULL;
    if (x < 0)
        return B->pred;
    const struct tsr_vbundle *cv = B->u[x].ev.vb;
    for (int r = 0; r < D->nrules; r++) {
        const struct tsr_vrule *R = &D->rules[r];
        if (R->kind != TSR_VR_WINDOW || R->npat != 2 || R->lo > 1 || R->hi < B->delay)
            continue;
        bool a = false;
        for (int e = 0; e < cv->nev && !a; e++)
            a = R->pat[0](&cv->ev[e], cv->f);
        for (int b = 0; b < x && a; b++) {
            const struct tsr_vbundle *bv = B->u[b].ev.vb;
            bool m = false;
            for (int e = 0; e < bv->nev && !m; e++)
                m = R->pat[1](&bv->ev[e], bv->f);
            if (!m)
                continue;
            if (!*own) {
                *own = malloc(((size_t)B->n + 1) * sizeof **own);
                memcpy(*own, B->pred, (size_t)B->n * sizeof **own);
                struct tsr_pack_elist *row = &(*own)[x];
                struct tsr_pack_edge *e = malloc(((size_t)row->n + (size_t)x + 1) * sizeof *e);
                if (row->n)
                    memcpy(e, row->e, (size_t)row->n * sizeof *e);
                row->e = e;
                row->cap = row->n + x + 1;
            }
            struct tsr_pack_elist *row = &(*own)[x];
            int k = 0, lat = 1 - R->lo;
            while (k < row->n && row->e[k].to != b)
                k++;
            if (k == row->n)
                row->e[row->n++] = (struct tsr_pack_edge){ b, lat };
            else if (row->e[k].lat < lat)
                row->e[k].lat = lat;
        }
    }
    return *own ? *own : B->pred;
}

/* Units i < j are twins when swapping them in any schedule of the relaxation gives another: the same
 * partners (compat rows equal but for i and j), the same ops and slots, the same edges in and out with
 * the same latencies, neither the control unit.  The search then places twins in index order (a twin
 * only in or after its previous twin's bundle): of two schedules that differ by swapping twins it tries
 * one.  (Quadratic in the block: blocks of up to MAXSEARCH units come here.) */
static int edge_cmp(const void *a, const void *b)
{
    const struct tsr_pack_edge *x = a, *y = b;
    return x->to != y->to ? (x->to > y->to) - (x->to < y->to) : (x->lat > y->lat) - (x->lat < y->lat);
}
static bool same_edges(const struct tsr_pack_elist *a, const struct tsr_pack_elist *b)
{
    if (a->n != b->n)
        return false;
    for (int k = 0; k < a->n; k++)
        if (a->e[k].to != b->e[k].to || a->e[k].lat != b->e[k].lat)
            return false;
    return true;
}
static void twins_init(struct bound *B)
{
    int n = B->n;
    B->twin = malloc(((size_t)n + 1) * sizeof *B->twin);
    for (int i = 0; i < n; i++)
        B->twin[i] = -1;
    struct tsr_pack_elist *in = calloc((size_t)n + 1, sizeof *in), *out = calloc((size_t)n + 1, sizeof *out);
    for (int i = 0; i < n; i++)   /* sorted copies of the edges in, and the edges out */
        for (int k = 0; k < B->pred[i].n; k++) {
            struct tsr_pack_edge e = { B->pred[i].e[k].to, bnd_edge_lat(B, i, k) };
            struct tsr_pack_elist *l[2] = { &in[i], &out[e.to] };
            struct tsr_pack_edge v[2] = { e, { i, e.lat } };
            for (int s = 0; s < 2; s++) {
                if (l[s]->n == l[s]->cap) {
                    l[s]->cap = l[s]->cap ? 2 * l[s]->cap : 4;
                    l[s]->e = realloc(l[s]->e, (size_t)l[s]->cap * sizeof *l[s]->e);
                }
                l[s]->e[l[s]->n++] = v[s];
            }
        }
    for (int i = 0; i < n; i++) {
        if (in[i].n)
            qsort(in[i].e, (size_t)in[i].n, sizeof *in[i].e, edge_cmp);
        if (out[i].n)
            qsort(out[i].e, (size_t)out[i].n, sizeof *out[i].e, edge_cmp);
    }
    for (int j = 1; j < n; j++)
        for (int i = j - 1; i >= 0 && B->twin[j] < 0; i--) {
            if (i == B->ctl || j == B->ctl || B->solo[i] != B->solo[j] || B->count[i] != B->count[j] ||
                (B->count[i] && memcmp(B->cand + B->first[i], B->cand + B->first[j],
                                       (size_t)B->count[i] * sizeof *B->cand)) ||
                !same_edges(&in[i], &in[j]) || !same_edges(&out[i], &out[j]))
                continue;
            const uint64_t *ri = B->compat + (size_t)i * B->W, *rj = B->compat + (size_t)j * B->W;
            bool same = true;
            for (int w = 0; w < B->W && same; w++) {
                uint64_t mask = ~(uint64_t)0;
                if (i / 64 == w)
                    mask &= ~((uint64_t)1 << (i % 64));
                if (j / 64 == w)
                    mask &= ~((uint64_t)1 << (j % 64));
                same = ((ri[w] ^ rj[w]) & mask) == 0;
            }
            if (same)
                B->twin[j] = i;
        }
    for (int i = 0; i < n; i++) {
        free(in[i].e);
        free(out[i].e);
    }
    free(in);
    free(out);
}

/* The graph without the edges that two others imply: p -> i of latency l is dropped when some k has
 * p -> k and k -> i of latencies adding up to l or more (each dropped edge is implied by edges of shorter
 * span, kept or implied in turn, so every schedule of the reduced graph keeps the full one).  Estimates,
 * readiness and the state key then look at far fewer edges: the dependence graphs are nearly transitively
 * closed.  (An n x n latency table: blocks of up to MAXSEARCH units come here.)  NULL: nothing to reduce. */
static struct tsr_pack_elist *reduce(const struct bound *B)
{
    int n = B->n;
    if (n < 3)
        return NULL;
    int16_t *lat = malloc((size_t)n * (size_t)n * sizeof *lat);   /* lat[p * n + i]: edge p -> i, -1 none */
    struct tsr_pack_elist *r = calloc((size_t)n, sizeof *r);
    if (!lat || !r)
        abort();
    for (size_t x = 0; x < (size_t)n * (size_t)n; x++)
        lat[x] = -1;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < B->pred[i].n; k++) {
            int l = bnd_edge_lat(B, i, k);
            lat[(size_t)B->pred[i].e[k].to * (size_t)n + (size_t)i] = (int16_t)(l > 32767 ? 32767 : l);
        }
    for (int i = 0; i < n; i++) {
        const struct tsr_pack_elist *P = &B->pred[i];
        r[i].e = malloc(((size_t)P->n + 1) * sizeof *r[i].e);
        r[i].cap = P->n + 1;
        for (int a = 0; a < P->n; a++) {
            int p = P->e[a].to, l = lat[(size_t)p * (size_t)n + (size_t)i];
            bool implied = false;
            for (int b = 0; b < P->n && !implied; b++) {
                int k = P->e[b].to, l1 = lat[(size_t)p * (size_t)n + (size_t)k];
                implied = k != p && l1 >= 0 && l1 + lat[(size_t)k * (size_t)n + (size_t)i] >= l;
            }
            if (!implied)
                r[i].e[r[i].n++] = (struct tsr_pack_edge){ p, P->e[a].lat };
        }
    }
    free(lat);
    return r;
}

static void bound_free(struct bound *B)
{
    free(B->seen);
    free(B->key);
    free(B->maxlat);
    free(B->twin);
    free(B->est);
    free(B->q);
    free(B->cyc);
    free(B->solo);
    free(B->first);
    free(B->count);
    free(B->cand);
    free(B->owner);
    free(B->fmask);
    free(B->fpop);
    free(B->compat);
    for (int q = 0; q < B->ncliques; q++)
        free(B->clique[q]);
    free(B->cmask);
    free(B->free);
    free(B->cbucket);
    free(B->cq);
    free(B->inb);
    free(B->skip);
    free(B->rdy);
    free(B->cand_at);
    free(B->ncand_at);
    free(B->setof);
    free(B->umask);
    free(B->ud);
    free(B->within);
}

unsigned tsr_pack_lower_bound(const struct tsr_target *t, const struct tsr_pack_unit *u, int n, int nn,
                              const struct tsr_pack_elist *pred, int ctl, unsigned *basic, bool *exact,
                              unsigned limit, bool want_bound, struct tsr_pack_found *found)
{
    struct bound B = { .t = t, .u = u, .pred = pred, .n = n, .nn = nn, .ctl = ctl };
    if (found)
        *found = (struct tsr_pack_found){ .n = n };
    B.jump = ctl >= 0 && (u[ctl].ev.ctl == TSR_PACK_CTL_JUMP || !u[ctl].text);
    B.delay = ctl >= 0 ? u[ctl].ev.delay : 0;
    B.est = calloc((size_t)n + 1, sizeof *B.est);
    B.q = calloc((size_t)n + 1, sizeof *B.q);
    B.cyc = malloc(((size_t)n + 1) * sizeof *B.cyc);
    B.key = malloc((size_t)n + 1);
    B.maxlat = malloc(((size_t)n + 1) * sizeof *B.maxlat);
    for (int i = 0; i < n; i++)
        B.maxlat[i] = -1;
    B.W = (n + 63) / 64;
    B.solo = calloc((size_t)n + 1, sizeof *B.solo);
    B.free = calloc((size_t)B.W + 1, sizeof *B.free);
    int cp = paths(&B);
    items_init(&B);   /* first without the pairs (the assembler is slow): a list schedule may meet this */
    int lb = classic(&B, cp);
    *basic = bundles(lb, n);
    *exact = false;
    if ((limit && lb >= (int)limit) || n > MAXSEARCH || (!want_bound && !found)) {
        *exact = limit && lb >= (int)limit;   /* (lb == limit: both bound a schedule that long) */
        bound_free(&B);
        return bundles(lb, n);
    }
    pairs_init(&B, limit ? (int)limit - 1 : 0);   /* (no length from limit on is searched) */
    items_init(&B);   /* again, without the units that share no bundle: they count as whole bundles */
    cliques_init(&B);
    int lb2 = classic(&B, cp);
    if (limit && lb2 > (int)limit)
        lb2 = (int)limit;   /* (with the pairs of shorter schedules only: none is shorter than limit) */
    lb = lb2 > lb ? lb2 : lb;
    struct tsr_pack_elist *own;
    B.pred = window_edges(&B, &own);
    for (int i = n - 1; i >= 0 && own; i--)   /* the tails again, with those edges */
        for (int k = 0; k < B.pred[i].n; k++) {
            int p = B.pred[i].e[k].to, l = bnd_edge_lat(&B, i, k);
            if (l + B.q[i] > B.q[p])
                B.q[p] = l + B.q[i];
        }
    struct tsr_pack_elist *reduced = reduce(&B);
    if (reduced)
        B.pred = reduced;
    for (int j = 0; j < n; j++)
        for (int k = 0; k < B.pred[j].n; k++) {
            int l = bnd_edge_lat(&B, j, k), p = B.pred[j].e[k].to;
            B.maxlat[p] = l > B.maxlat[p] ? l : B.maxlat[p];
        }
    twins_init(&B);
    if (want_bound)
        lb = bnd_prove(&B, lb, (int)limit, exact);
    else
        *exact = limit && lb >= (int)limit;
    /* every length below lb is ruled out (by part 1, or by the proof): the search for schedules, which stops
     * at the first length it finds none at, would stop there too, so the output does not depend on whether
     * the bound was asked for */
    if (found && limit)
        bnd_find(&B, lb, (int)limit, found);
    for (int i = 0; i < n && reduced; i++)
        free(reduced[i].e);
    free(reduced);
    if (own) {
        free(own[ctl].e);
        free(own);
    }
    bound_free(&B);
    return bundles(lb, n);
}
