/* Do two encodings of one operation mean the same?  The unbundler asks when it prints a bundle's part in
 * its short form (alone, the assembler may put an op in another slot: the QPU's `mov r0.8a, r0` alone is
 * the add ALU with the regfile-A pack, in the mul slot the colour pack).  Answered by the generated
 * simulator (t->sim): both instructions run from the same pseudo-random states, with hooks that answer
 * reads from the arguments and log every call; the final states and the hook logs must be equal.  Several
 * states are tried; the answer is "no" when there is no simulator. */
#include <stdlib.h>
#include <string.h>
#include "pack_int.h"
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
    /* A call is known by its hook and its last argument (the address: the QPU's io_read(file, addr) reads
     * `unif` through either regfile side, and the assembler keeps the side where the names differ). */
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

/* The value of lane l of element e of state s in the pseudo-random state `seed`.  Seeds alternate between
 * full 32-bit values and 0/1 (flags are 0 or 1 in a description, and a write under a condition on them
 * must be seen to happen). */
static uint32_t fill(uint64_t seed, int s, int e, int l)
{
    uint32_t v = (uint32_t)mix(seed ^ (uint64_t)s << 40 ^ (uint64_t)e << 20 ^ (uint64_t)l);
    return seed & 1 ? v & 1 : v;
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
    for (int s = 0; s < S->nstates; s++) {
        int cnt = S->state_count[s] ? S->state_count[s] : 1;
        for (int e = 0; e < cnt; e++) {
            uint32_t *v = S->state(sim, s, e);
            int n = S->state_vec[s] ? lanes : 1;
            for (int l = 0; v && l < n; l++)
                v[l] = !strcmp(S->state_names[s], "pc") ? 0 : fill(seed, s, e, l);
        }
    }
    o->rc = w ? S->step(sim, w, t->nwords) : 0;
    size_t k = 0;
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

bool tsr_pack_same_meaning(const struct tsr_target *t, const uint32_t *a, const uint32_t *b)
{
    if (!memcmp(a, b, t->nwords * 4))
        return true;
    if (!t->sim)
        return false;
    size_t n = state_size(t->sim);
    struct snap sa, sb;
    sa.v = calloc(n + 1, sizeof *sa.v);
    sb.v = calloc(n + 1, sizeof *sb.v);
    bool same = true;
    for (uint64_t seed = 1; seed <= 4 && same; seed++) {
        uint64_t sd = seed * 0x1234566ull + seed;   /* odd and even: 0/1 and full values */
        run_snap(t, a, sd, &sa);
        run_snap(t, b, sd, &sb);
        same = sa.rc == sb.rc && !memcmp(sa.v, sb.v, n * sizeof *sa.v) && sa.nlog == sb.nlog &&
               !memcmp(sa.log, sb.log, (size_t)sa.nlog * sizeof *sa.log);
    }
    free(sa.v);
    free(sb.v);
    return same;
}

/* ---- merged bundles ------------------------------------------------------------------------------------ */

/* Verdicts already reached: a small direct-mapped cache keyed by a hash of the words (merged and parts). */
#define MCACHE 4096
static _Thread_local struct { uint64_t key; int8_t verdict; } mcache[MCACHE];

bool tsr_pack_merge_same(const struct tsr_target *t, const uint32_t *m, const uint32_t *const *parts, int k)
{
    if (k <= 1)
        return k == 0 || tsr_pack_same_meaning(t, m, parts[0]);
    if (!t->sim)
        return true;   /* nothing to check with: the assembler's word stands */
    uint64_t key = mix(0x51ed27 ^ (uint64_t)(uintptr_t)t);
    for (unsigned i = 0; i < t->nwords; i++)
        key = mix(key ^ m[i]);
    for (int p = 0; p < k; p++)
        for (unsigned i = 0; i < t->nwords; i++)
            key = mix(key ^ parts[p][i] ^ (uint64_t)(p + 1) << 40);
    if (!key)
        key = 1;
    if (mcache[key % MCACHE].key == key)
        return mcache[key % MCACHE].verdict > 0;
    size_t n = state_size(t->sim);
    struct snap base, mm, *ps = calloc((size_t)k, sizeof *ps);
    base.v = calloc(n, sizeof *base.v);
    mm.v = calloc(n, sizeof *mm.v);
    for (int p = 0; p < k; p++)
        ps[p].v = calloc(n, sizeof *ps[p].v);
    bool same = true;
    for (uint64_t seed = 1; seed <= 3 && same; seed++) {
        uint64_t sd = (seed * 0x9e3779b97f4a7c15ull & ~(uint64_t)1) | (seed & 1);   /* 0/1, full, 0/1 */
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
    mcache[key % MCACHE].key = key;
    mcache[key % MCACHE].verdict = same ? 1 : -1;
    return same;
}
