/* Do two encodings of one operation mean the same?  The unbundler asks when it prints a bundle's part in
 * its short form (alone, the assembler may put an op in another slot: the QPU's `mov r0.8a, r0` alone is
 * the add ALU with the regfile-A pack, in the mul slot the colour pack).  Answered by the generated
 * simulator (t->sim): both instructions run from the same pseudo-random states, with hooks that answer
 * reads from the arguments and log every call; the final states and the hook logs must be equal.  Several
 * states are tried; the answer is "no" when there is no simulator. */
#include <stdlib.h>
#include <string.h>
#include "pack_int.h"
#include "sim.h"
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
    uint64_t h = mix(L->seed ^ (uint64_t)(hook + 1) * 0x9e3779b97f4a7c15ull ^ (uint64_t)kind << 56);
    for (int i = 0; i < nargs; i++)
        h = mix(h ^ args[i]);
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

/* Runs w once from the state of `seed`; the hash of the final state and the hook log into *out. */
static int run(const struct tsr_target *t, const uint32_t *w, uint64_t seed, uint64_t *out, struct hlog *L)
{
    const struct tsr_sim_desc *S = t->sim;
    void *sim = calloc(1, S->sim_size);
    if (!sim)
        abort();
    S->init(sim);
    memset(L, 0, sizeof *L);
    L->seed = seed;
    struct tsr_sim_hooks hk = { hook_call, L };
    S->set_hooks(sim, &hk);
    S->ctl(sim)->flags |= TSR_SIM_F_HAZARD_WARN;
    int lanes = S->lanes > 0 ? S->lanes : 1;
    for (int s = 0; s < S->nstates; s++) {
        int cnt = S->state_count[s] ? S->state_count[s] : 1;
        for (int e = 0; e < cnt; e++) {
            uint32_t *v = S->state(sim, s, e);
            int n = S->state_vec[s] ? lanes : 1;
            for (int l = 0; v && l < n; l++)
                v[l] = (uint32_t)mix(seed ^ (uint64_t)s << 40 ^ (uint64_t)e << 20 ^ (uint64_t)l);
            if (!strcmp(S->state_names[s], "pc") && v)
                v[0] = 0;
        }
    }
    /* flags and other one-bit states hold 0/1 in the QPU description; values beyond are harmless: both runs
     * see the same */
    int rc = S->step(sim, w, t->nwords);
    uint64_t h = mix((uint64_t)rc + 1);
    for (int s = 0; s < S->nstates; s++) {
        int cnt = S->state_count[s] ? S->state_count[s] : 1;
        for (int e = 0; e < cnt; e++) {
            uint32_t *v = S->state(sim, s, e);
            int n = S->state_vec[s] ? lanes : 1;
            for (int l = 0; v && l < n; l++)
                h = mix(h ^ v[l] ^ (uint64_t)s << 48);
        }
    }
    for (int i = 0; i < L->n; i++)
        h = mix(h ^ L->h[i]);
    *out = h;
    S->fini(sim);
    free(sim);
    return rc;
}

bool tsr_pack_same_meaning(const struct tsr_target *t, const uint32_t *a, const uint32_t *b)
{
    if (!memcmp(a, b, t->nwords * 4))
        return true;
    if (!t->sim)
        return false;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        struct hlog la, lb;
        uint64_t ha, hb;
        int ra = run(t, a, seed * 0x1234567ull, &ha, &la), rb = run(t, b, seed * 0x1234567ull, &hb, &lb);
        if (ra != rb || ha != hb)
            return false;
    }
    return true;
}
