/* Do two encodings of one operation mean the same?  The unbundler asks when it prints a bundle's part in
 * its short form (alone, the assembler may put an op in another slot, where the same text can encode
 * another operation: a `mov` with a pack suffix is one pack in one ALU slot and another in the other).  Answered by the generated
 * simulator (t->sim): both instructions run from the same pseudo-random states, with hooks that answer
 * reads from the arguments and log every call; the final states and the hook logs must be equal.  Several
 * states are tried; the answer is "no" when there is no simulator. */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include "pack_int.h"
#include "tls.h"
#include "sim/sim.h"
#include "target.h"

#define LOGMAX 64

struct hlog {
    uint64_t h[LOGMAX];   /* a hash of each call: hook, kind, arguments, values, lanes */
    int n;
    uint64_t seed;
};

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

static int hook_call(void *ctx, int hook, enum tsr_hook_kind kind, const uint32_t *args, int nargs, uint32_t *v,
                     uint32_t lanemask)
{
    struct hlog *L = ctx;
    if (hook < 0)   /* ready / retire: the bundle's words differ by construction */
        return 0;
    /* A call is known by its hook and its last argument (the address: a read hook such as io_read(file, addr)
     * may reach one register through either regfile side, and the assembler keeps the side where the names differ). */
    uint64_t h = mix(L->seed ^ (uint64_t)(hook + 1) * 0x9e3779b97f4a7c15ull ^ (uint64_t)kind << 56);
    if (nargs > 0)
        h = mix(h ^ args[nargs - 1]);
    if (v && kind == TSR_HOOK_READ) {
        for (int l = 0; l < TSR_SIM_MAX_LANES; l++)
            v[l] = (uint32_t)mix(h + (uint64_t)l);
    } else if (v && kind == TSR_HOOK_STMT) {
        for (int l = 0; l < TSR_SIM_MAX_LANES; l++)
            v[l] = (uint32_t)mix(h + 77 + (uint64_t)l);
    } else if (v) {
        for (int l = 0; l < TSR_SIM_MAX_LANES; l++)
            h = mix(h ^ ((lanemask >> (l & 31) & 1) ? v[l] : 0));
    }
    if (kind == TSR_HOOK_GUARD)
        return 0;
    if (L->n < LOGMAX)
        L->h[L->n++] = mix(h ^ lanemask);
    return 0;
}

/* The mixed seeds: per element, a pseudo-random half of its lanes hold 0/1 and the others full values.  With
 * only full values a flag is never 1 (a write under a condition on it never happens); with only 0/1 a data
 * value looks the same through most unpacks: a merge that lost a regfile-A unpack under `.ifn` (the other
 * part's override set pm) passed both kinds (fuzz_pack).  Mixed, some lane has a flag at 1 beside a full
 * value. */
#define SEED_MIXED_A 0x4d49584544000000ull
#define SEED_MIXED_B 0x4d49584544000002ull

/* The value of lane l of element e of state s in the pseudo-random state `seed`.  Seeds alternate between
 * full 32-bit values and 0/1 (flags are 0 or 1 in a description, and a write under a condition on them
 * must be seen to happen); the mixed seeds have both (above). */
static uint32_t fill(uint64_t seed, int s, int e, int l)
{
    uint32_t v = (uint32_t)mix(seed ^ (uint64_t)s << 40 ^ (uint64_t)e << 20 ^ (uint64_t)l);
    if (seed == SEED_MIXED_A || seed == SEED_MIXED_B) {
        uint64_t bits = mix(seed ^ 0x6c616e6573ull ^ (uint64_t)s << 40 ^ (uint64_t)e << 20);
        return bits >> (l & 63) & 1 ? v & 1 : v;
    }
    return seed & 1 ? v & 1 : v;
}

/* The i-th seed (1-based) of the merge checks: 0/1, full, 0/1, then the two mixed seeds. */
static uint64_t merge_seed(uint64_t i)
{
    if (i > 3)
        return i == 4 ? SEED_MIXED_A : SEED_MIXED_B;
    return (i * 0x9e3779b97f4a7c15ull & ~(uint64_t)1) | (i & 1);
}

/* The i-th seed (1-based) of the single-instruction checks: 0/1 and full alternately, then the mixed ones. */
static uint64_t same_seed(uint64_t i)
{
    if (i > 4)
        return i == 5 ? SEED_MIXED_A : SEED_MIXED_B;
    return i * 0x1234566ull + i;
}

/* A flat copy of the machine state (every element's lanes) and the hook log, in call order, of one run. */
struct snap {
    uint32_t *v;
    uint64_t log[LOGMAX];
    int nlog;
    int rc;
};

/* The number of values in a snapshot of S's state. */
static size_t state_size(const struct tsr_sim_desc *S)
{
    size_t n = 0;
    int lanes = S->lanes > 0 ? S->lanes : 1;
    for (int s = 0; s < S->nstates; s++)
        n += (size_t)(S->state_count[s] ? S->state_count[s] : 1) * (size_t)(S->state_vec[s] ? lanes : 1);
    return n;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The state of `seed` (fill; the pc 0) as a flat array in snapshot order (state_size values).  Computed once
 * per simulator and seed (the checks use nine seeds; the hashes were most of a run's time) and kept for the
 * life of the thread. */
static const uint32_t *initial(const struct tsr_sim_desc *S, uint64_t seed)
{
    static _Thread_local struct { const struct tsr_sim_desc *S; uint64_t seed; uint32_t *v; } memo[16];
    static _Thread_local int next;
    for (int i = 0; i < 16; i++)
        if (memo[i].v && memo[i].S == S && memo[i].seed == seed)
            return memo[i].v;
    int at = next++ % 16;
    free(memo[at].v);
    uint32_t *v = malloc((state_size(S) + 1) * sizeof *v);
    if (!v)
        abort();
    int lanes = S->lanes > 0 ? S->lanes : 1;
    size_t k = 0;
    for (int s = 0; s < S->nstates; s++) {
        int cnt = S->state_count[s] ? S->state_count[s] : 1;
        bool pc = !strcmp(S->state_names[s], "pc");
        for (int e = 0; e < cnt; e++)
            for (int l = 0; l < (S->state_vec[s] ? lanes : 1); l++)
                v[k++] = pc ? 0 : fill(seed, s, e, l);
    }
    memo[at].S = S;
    memo[at].seed = seed;
    memo[at].v = v;
    return v;
}

/* Runs w (or nothing, w == NULL) from the state of `seed` (the pc at 0) into *o (o->v: state_size values). */
static void run_snap(const struct tsr_target *t, const uint32_t *w, uint64_t seed, struct snap *o)
{
    const struct tsr_sim_desc *S = t->sim;
    void *sim = calloc(1, S->sim_size);
    if (!sim)
        abort();
    S->init(sim);
    struct hlog L;
    memset(&L, 0, sizeof L);
    L.seed = seed;
    struct tsr_sim_hooks hk = { hook_call, &L };
    S->set_hooks(sim, &hk);
    S->ctl(sim)->flags |= TSR_SIM_F_HAZARD_WARN;
    int lanes = S->lanes > 0 ? S->lanes : 1;
    const uint32_t *init = initial(S, seed);
    size_t k = 0;
    for (int s = 0; s < S->nstates; s++) {
        int cnt = S->state_count[s] ? S->state_count[s] : 1;
        for (int e = 0; e < cnt; e++) {
            uint32_t *v = S->state(sim, s, e);
            int n = S->state_vec[s] ? lanes : 1;
            if (v)
                memcpy(v, init + k, (size_t)n * sizeof *v);
            k += (size_t)n;
        }
    }
    o->rc = w ? S->step(sim, w, t->nwords) : 0;
    k = 0;
    for (int s = 0; s < S->nstates; s++) {
        int cnt = S->state_count[s] ? S->state_count[s] : 1;
        for (int e = 0; e < cnt; e++) {
            uint32_t *v = S->state(sim, s, e);
            int n = S->state_vec[s] ? lanes : 1;
            for (int l = 0; l < n; l++)
                o->v[k++] = v ? v[l] : 0;
        }
    }
    memcpy(o->log, L.h, sizeof L.h);
    o->nlog = L.n;
    S->fini(sim);
    free(sim);
}

/* ---- merged bundles ------------------------------------------------------------------------------------ */

/* Verdicts already reached: a direct-mapped cache per thread (tls.h, 1.5 MB, allocated on first use) keyed by a
 * 128-bit XXH3 hash of the words (merged and parts; merge_key), as pack_bound.c keys its pair cache, so that two
 * merges never share a verdict in practice (one 64-bit hash, 16 bits of it the index, left 2^-48 per lookup).  GPU_FFT's shaders ask about some 20,000 distinct merges a pass: at
 * 4,096 entries they evicted each other and a warm pass ran the simulator again for a fifth of its time. */
#define MCACHE 65536
struct mverdict { uint64_t key, key2; int8_t verdict; };
static _Thread_local struct mverdict *mcache;
static void *mcache_first;   /* the first thread's, freed at exit */

static void mcache_free(void)
{
    free(mcache_first);
    mcache_first = NULL;
}

static struct mverdict *mverdict_at(uint64_t key)
{
    static atomic_flag registered = ATOMIC_FLAG_INIT;
    if (!mcache)
        mcache = tsr_thread_table(MCACHE, sizeof *mcache, &registered, &mcache_first, mcache_free);
    return &mcache[key % MCACHE];
}

/* The key of the merge of parts[0..k) into m: XXH3-128, seeded with the target, of k, m's words and the parts'
 * words; its low half never 0 (an empty entry). */
static XXH128_hash_t merge_key(const struct tsr_target *t, const uint32_t *m, const uint32_t *const *parts, int k)
{
    uint32_t small[64], *buf = small;
    size_t nw = (size_t)(k + 1) * t->nwords + 1;
    if (nw > sizeof small / sizeof *small && !(buf = malloc(nw * sizeof *buf)))
        abort();
    buf[0] = (uint32_t)k;
    memcpy(buf + 1, m, t->nwords * sizeof *buf);
    for (int p = 0; p < k; p++)
        memcpy(buf + 1 + (size_t)(p + 1) * t->nwords, parts[p], t->nwords * sizeof *buf);
    XXH128_hash_t h = XXH3_128bits_withSeed(buf, nw * sizeof *buf, (XXH64_hash_t)(uintptr_t)t);
    if (buf != small)
        free(buf);
    if (!h.low64)
        h.low64 = 1;
    return h;
}

/* Remembers the verdict same for (key, key2). */
static void mverdict_put(uint64_t key, uint64_t key2, bool same)
{
    struct mverdict *mv = mverdict_at(key);
    mv->key = key;
    mv->key2 = key2;
    mv->verdict = same ? 1 : -1;
}

/* tsr_pack_merge_same without the run cache (instructions of more than 8 words); key: its verdict's. */
static bool merge_same_runs(const struct tsr_target *t, const uint32_t *m, const uint32_t *const *parts, int k,
                            uint64_t key, uint64_t key2)
{
    size_t n = state_size(t->sim);
    struct snap base, mm, *ps = calloc((size_t)k, sizeof *ps);
    base.v = calloc(n, sizeof *base.v);
    mm.v = calloc(n, sizeof *mm.v);
    for (int p = 0; p < k; p++)
        ps[p].v = calloc(n, sizeof *ps[p].v);
    bool same = true;
    for (uint64_t seed = 1; seed <= 5 && same; seed++) {
        uint64_t sd = merge_seed(seed);   /* 0/1, full, 0/1, mixed, mixed */
        run_snap(t, NULL, sd, &base);
        run_snap(t, m, sd, &mm);
        for (int p = 0; p < k; p++)
            run_snap(t, parts[p], sd, &ps[p]);
        /* every element: the value the one part that changed it gave (parts that change one element all
         * agree: the pc), or unchanged */
        for (size_t x = 0; x < n && same; x++) {
            bool changed = false;
            uint32_t want = base.v[x];
            for (int p = 0; p < k && same; p++)
                if (ps[p].v[x] != base.v[x]) {
                    if (changed && ps[p].v[x] != want)
                        same = false;
                    changed = true;
                    want = ps[p].v[x];
                }
            same = same && mm.v[x] == want;
        }
        /* the peripheral accesses: the parts' together, in any order */
        uint64_t all[LOGMAX];
        int na = 0;
        for (int p = 0; p < k; p++)
            for (int i = 0; i < ps[p].nlog && na < LOGMAX; i++)
                all[na++] = ps[p].log[i];
        qsort(all, (size_t)na, sizeof *all, cmp_u64);
        qsort(mm.log, (size_t)mm.nlog, sizeof *mm.log, cmp_u64);
        same = same && na == mm.nlog && !memcmp(all, mm.log, (size_t)na * sizeof *all);
        for (int p = 0; p < k && same; p++)
            same = ps[p].rc == TSR_SIM_OK || ps[p].rc == mm.rc;
    }
    free(base.v);
    free(mm.v);
    for (int p = 0; p < k; p++)
        free(ps[p].v);
    free(ps);
    mverdict_put(key, key2, same);
    return same;
}

/* What one instruction (or none: w NULL) does from the state of one seed, kept for the next check: a part is
 * tried against many bundles, and every check of a seed starts from the same state.  The run's result code,
 * its hook log, and the elements it leaves changed (index into the snapshot, value), sorted by index.
 * Direct-mapped, keyed exactly by the simulator, the seed and the words (at most 8); 8,192 entries (about 0.8 MB
 * a thread): at 1,024 a warm pass over GPU_FFT ran 4 % more instructions. */
#define RCACHE 8192
struct run {
    const struct tsr_sim_desc *S;
    uint64_t seed;
    uint32_t w[TSR_PACK_MAX_NWORDS];
    bool used;
    int rc, nlog;
    uint64_t *log;            /* nlog hashes (malloc'd, like idx and val) */
    size_t ndiff;
    uint32_t *idx, *val;
};
static _Thread_local struct run *rcache;   /* RCACHE entries (tls.h, allocated on first use) */
static void *rcache_first;                 /* the first thread's, freed at exit with what its entries hold */

static void rcache_free(void)
{
    struct run *r = rcache_first;
    for (size_t i = 0; r && i < RCACHE; i++) {
        free(r[i].log);
        free(r[i].idx);
        free(r[i].val);
    }
    free(rcache_first);
    rcache_first = NULL;
}
static _Thread_local struct { const struct tsr_sim_desc *S; uint64_t seed; uint32_t *v; } rbase[16];
static _Thread_local int rbase_next;

/* The state seed sd leaves unchanged, as run_snap of nothing gives it (n values; the checks use nine seeds;
 * kept for the thread's life). */
static const uint32_t *base_state(const struct tsr_target *t, uint64_t sd, size_t n)
{
    for (int i = 0; i < 16; i++)
        if (rbase[i].v && rbase[i].S == t->sim && rbase[i].seed == sd)
            return rbase[i].v;
    int at = rbase_next++ % 16;
    struct snap o;
    o.v = calloc(n + 1, sizeof *o.v);
    if (!o.v)
        abort();
    run_snap(t, NULL, sd, &o);
    free(rbase[at].v);
    rbase[at].S = t->sim;
    rbase[at].seed = sd;
    rbase[at].v = o.v;
    return o.v;
}

/* The run of w (t->nwords words, at most 8) from seed sd against base (n values), through the cache. */
static const struct run *part_run(const struct tsr_target *t, const uint32_t *w, uint64_t sd, const uint32_t *base,
                                  size_t n, uint32_t *scratch)
{
    uint64_t key = mix(sd ^ (uint64_t)(uintptr_t)t->sim);
    for (unsigned i = 0; i < t->nwords; i++)
        key = mix(key ^ w[i] ^ (uint64_t)(i + 1) << 36);
    static atomic_flag registered = ATOMIC_FLAG_INIT;
    if (!rcache)
        rcache = tsr_thread_table(RCACHE, sizeof *rcache, &registered, &rcache_first, rcache_free);
    struct run *r = &rcache[key % RCACHE];
    if (r->used && r->S == t->sim && r->seed == sd && !memcmp(r->w, w, t->nwords * 4))
        return r;
    struct snap o;
    o.v = scratch;
    run_snap(t, w, sd, &o);
    /* the changed elements, skipping unchanged runs of 16 values at a time (an instruction changes few) */
    static _Thread_local uint32_t *di, *dv;
    static _Thread_local size_t ndi;
    if (ndi < n) {
        free(di);
        free(dv);
        di = malloc((n + 1) * sizeof *di);
        dv = malloc((n + 1) * sizeof *dv);
        if (!di || !dv)
            abort();
        ndi = n;
    }
    size_t nd = 0;
    for (size_t x = 0; x < n;) {
        if (x + 16 <= n && !memcmp(o.v + x, base + x, 16 * sizeof *base)) {
            x += 16;
            continue;
        }
        for (size_t end = x + 16 < n ? x + 16 : n; x < end; x++)
            if (o.v[x] != base[x]) {
                di[nd] = (uint32_t)x;
                dv[nd++] = o.v[x];
            }
    }
    free(r->idx);
    free(r->val);
    free(r->log);
    r->idx = malloc((nd + 1) * sizeof *r->idx);
    r->val = malloc((nd + 1) * sizeof *r->val);
    r->log = malloc(((size_t)o.nlog + 1) * sizeof *r->log);
    if (!r->idx || !r->val || !r->log)
        abort();
    memcpy(r->idx, di, nd * sizeof *di);
    memcpy(r->val, dv, nd * sizeof *dv);
    r->ndiff = nd;
    r->S = t->sim;
    r->seed = sd;
    memcpy(r->w, w, t->nwords * 4);
    r->used = true;
    r->rc = o.rc;
    r->nlog = o.nlog;
    memcpy(r->log, o.log, (size_t)o.nlog * sizeof *r->log);
    return r;
}

bool tsr_pack_merge_same(const struct tsr_target *t, const uint32_t *m, const uint32_t *const *parts, int k)
{
    if (k <= 1)
        return k == 0 || tsr_pack_same_meaning(t, m, parts[0]);
    if (!t->sim)
        return true;   /* nothing to check with: the assembler's word stands */
    XXH128_hash_t mk = merge_key(t, m, parts, k);
    uint64_t key = mk.low64, key2 = mk.high64;
    const struct mverdict *mv = mverdict_at(key);
    if (mv->key == key && mv->key2 == key2)
        return mv->verdict > 0;
    if (t->nwords > TSR_PACK_MAX_NWORDS)
        return merge_same_runs(t, m, parts, k, key, key2);
    size_t n = state_size(t->sim);
    struct snap mm;
    mm.v = calloc(n + 1, sizeof *mm.v);
    uint32_t *want = malloc((n + 1) * sizeof *want), *scratch = malloc((n + 1) * sizeof *scratch);
    uint8_t *by = calloc(n + 1, 1);   /* element x changed by a part already (then want[x] is its value) */
    if (!mm.v || !want || !scratch || !by)
        abort();
    bool same = true;
    for (uint64_t seed = 1; seed <= 5 && same; seed++) {
        uint64_t sd = merge_seed(seed);   /* 0/1, full, 0/1, mixed, mixed */
        const uint32_t *base = base_state(t, sd, n);
        run_snap(t, m, sd, &mm);
        /* every element: the value the one part that changed it gave (parts that change one element all
         * agree: the pc), or unchanged */
        memcpy(want, base, n * sizeof *want);
        uint64_t all[LOGMAX];
        int na = 0;
        for (int p = 0; p < k && same; p++) {
            const struct run *r = part_run(t, parts[p], sd, base, n, scratch);
            for (size_t d = 0; d < r->ndiff && same; d++) {
                uint32_t x = r->idx[d];
                if (by[x] && want[x] != r->val[d])
                    same = false;
                by[x] = 1;
                want[x] = r->val[d];
            }
            for (int i = 0; i < r->nlog && na < LOGMAX; i++)
                all[na++] = r->log[i];
            same = same && (r->rc == TSR_SIM_OK || r->rc == mm.rc);
        }
        for (int p = 0; p < k; p++) {   /* (by back to all 0) */
            const struct run *r = part_run(t, parts[p], sd, base, n, scratch);
            for (size_t d = 0; d < r->ndiff; d++)
                by[r->idx[d]] = 0;
        }
        same = same && !memcmp(mm.v, want, n * sizeof *want);
        /* the peripheral accesses: the parts' together, in any order */
        qsort(all, (size_t)na, sizeof *all, cmp_u64);
        qsort(mm.log, (size_t)mm.nlog, sizeof *mm.log, cmp_u64);
        same = same && na == mm.nlog && !memcmp(all, mm.log, (size_t)na * sizeof *all);
    }
    free(mm.v);
    free(want);
    free(scratch);
    free(by);
    mverdict_put(key, key2, same);
    return same;
}

/* tsr_pack_same_meaning by running both instructions (no run cache: wider instructions, or both in one slot). */
static bool same_meaning_runs(const struct tsr_target *t, const uint32_t *a, const uint32_t *b, size_t n)
{
    struct snap sa, sb;
    sa.v = calloc(n + 1, sizeof *sa.v);
    sb.v = calloc(n + 1, sizeof *sb.v);
    bool same = true;
    for (uint64_t seed = 1; seed <= 6 && same; seed++) {
        uint64_t sd = same_seed(seed);   /* odd and even: 0/1 and full values, then mixed */
        run_snap(t, a, sd, &sa);
        run_snap(t, b, sd, &sb);
        same = sa.rc == sb.rc && !memcmp(sa.v, sb.v, n * sizeof *sa.v) && sa.nlog == sb.nlog &&
               !memcmp(sa.log, sb.log, (size_t)sa.nlog * sizeof *sa.log);
    }
    free(sa.v);
    free(sb.v);
    return same;
}

bool tsr_pack_same_meaning(const struct tsr_target *t, const uint32_t *a, const uint32_t *b)
{
    if (!memcmp(a, b, t->nwords * 4))
        return true;
    if (!t->sim)
        return false;
    size_t n = state_size(t->sim);
    if (t->nwords > TSR_PACK_MAX_NWORDS)
        return same_meaning_runs(t, a, b, n);
    uint32_t *scratch = malloc((n + 1) * sizeof *scratch);
    if (!scratch)
        abort();
    bool same = true;
    for (uint64_t seed = 1; seed <= 6 && same; seed++) {
        uint64_t sd = same_seed(seed);   /* odd and even: 0/1 and full values, then mixed */
        /* the same final state from the same start: the same changed elements */
        const uint32_t *base = base_state(t, sd, n);
        const struct run *ra = part_run(t, a, sd, base, n, scratch);
        const struct run *rb = part_run(t, b, sd, base, n, scratch);
        if (rb == ra) {   /* both in one cache slot: a's entry is gone, compare whole runs */
            free(scratch);
            return same_meaning_runs(t, a, b, n);
        }
        same = ra->rc == rb->rc && ra->ndiff == rb->ndiff && ra->nlog == rb->nlog &&
               !memcmp(ra->log, rb->log, (size_t)ra->nlog * sizeof *ra->log) &&
               !memcmp(ra->idx, rb->idx, ra->ndiff * sizeof *ra->idx) &&
               !memcmp(ra->val, rb->val, ra->ndiff * sizeof *ra->val);
    }
    free(scratch);
    return same;
}
