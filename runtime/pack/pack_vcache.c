/* The validator's verdicts on short histories, cached for the scheduler (docs/pack.md "Algorithm"): the list
 * scheduler asks whether a candidate bundle breaks a rule against the `lookback` bundles before it once per
 * candidate, per priority, per block, and GPU_FFT's blocks repeat the same bundles (the butterflies of every
 * shader), so most questions were asked before.  Nothing here knows the target. */
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include "pack_int.h"
#include "target.h"
#include "tls.h"

/* A direct-mapped cache keyed by a 128-bit XXH3 hash of the description, the history's length, whether it
 * starts the program or ends a block, and the words of its bundles: all the verdict depends on (the events of a
 * bundle are a function of its words: tsr_pack_ev_*, which list them at address 0). */
#define VCACHE 16384
struct vent { XXH128_hash_t key; size_t nviol; };
/* The thread's VCACHE entries (tls.h: allocated on first use, not in every thread's static TLS block, which
 * every process and thread would zero at its start whether it packs or not); the first thread's is freed at
 * exit. */
static _Thread_local struct vent *vcache;
static void *vcache_first;

static void vcache_free(void)
{
    free(vcache_first);
    vcache_first = NULL;
}

/* (pack_int.h) */
size_t tsr_pack_hist_check(const struct tsr_target *t, struct tsr_pack_ev *cand, tsr_pack_hist_fn hist, void *ctx,
                           const uint32_t *const *w, int len, unsigned where, bool *filled)
{
    const struct tsr_vdesc *D = t->vdesc;
    unsigned nwords = t->nwords;
    *filled = false;
    uint32_t buf[2 + (TSR_V_MAXDIST + 1) * 4];
    bool cached = nwords <= 4 && len <= TSR_V_MAXDIST + 1;
    XXH128_hash_t k = { 0, 0 };
    size_t at = 0;
    if (cached) {
        buf[0] = (uint32_t)len;
        buf[1] = where;
        for (int i = 0; i < len; i++)
            memcpy(buf + 2 + (size_t)i * nwords, w[i], nwords * sizeof *buf);
        k = XXH3_128bits_withSeed(buf, (2 + (size_t)len * nwords) * sizeof *buf, (XXH64_hash_t)(uintptr_t)D);
        if (!k.low64 && !k.high64)
            k.low64 = 1;   /* (the empty entry's key) */
        static atomic_flag registered = ATOMIC_FLAG_INIT;
        if (!vcache)
            vcache = tsr_thread_table(VCACHE, sizeof *vcache, &registered, &vcache_first, vcache_free);
        at = (size_t)(k.low64 % VCACHE);
        if (XXH128_isEqual(vcache[at].key, k))
            return vcache[at].nviol;
    }
    const struct tsr_vbundle *hh[TSR_V_MAXDIST + 1];
    struct tsr_vbundle first;
    int n = len < TSR_V_MAXDIST + 1 ? len : TSR_V_MAXDIST + 1;
    tsr_pack_ev_events(t, w[0], cand);
    *filled = true;
    hh[0] = cand->vb;
    for (int i = 1; i < n; i++)
        hh[i] = hist(ctx, i);
    if (where & (TSR_PACK_AT_START | TSR_PACK_AT_END)) {   /* the program's first instruction, a block's last:
                                                             its events and TSR_V_START, TSR_V_END */
        memcpy(&first, hh[0], offsetof(struct tsr_vbundle, ev) + (size_t)hh[0]->nev * sizeof hh[0]->ev[0]);
        if (where & TSR_PACK_AT_START)
            tsr_vb_add(&first, TSR_V_START, -1, 1, 0, 0);
        if (where & TSR_PACK_AT_END)
            tsr_vb_add(&first, TSR_V_END, -1, 1, 0, 0);
        hh[0] = &first;
    }
    size_t nviol = tsr_validate_hist(D, hh, n, NULL, NULL);
    if (cached) {
        vcache[at].key = k;
        vcache[at].nviol = nviol;
    }
    return nviol;
}
