/* The packer's dependence facts, taken from the description alone (docs/pack.md "Dependences"): the events
 * of each instruction as the generated validator lists them (struct tsr_vdesc, runtime/validate/validate.h), the
 * `latency` rules and the `order` classes.  Nothing here knows the target. */
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pack_int.h"
#include "tls.h"
#include "target.h"

/* A deferred read (TSR_V_RDEFER, X6) orders like a read at commit (TSR_V_RLATE): after the element's last write. */
static bool is_state(const struct tsr_vev *e)
{
    return e->kind == TSR_V_RSTATE || e->kind == TSR_V_WSTATE || e->kind == TSR_V_RLATE || e->kind == TSR_V_RDEFER;
}
static bool is_read(const struct tsr_vev *e)
{
    return e->kind == TSR_V_RSTATE || e->kind == TSR_V_RSPACE || e->kind == TSR_V_RLATE || e->kind == TSR_V_RDEFER;
}
static bool is_write(const struct tsr_vev *e) { return e->kind == TSR_V_WSTATE; }

/* Two writes of one element that touch no component in common (each with its known components, validate.h
 * TSR_V_WSTATE val: masked stores of lanes of one vector): neither orders the other. */
static bool lanes_apart(const struct tsr_vev *x, const struct tsr_vev *y)
{
    return x->kind == TSR_V_WSTATE && y->kind == TSR_V_WSTATE && x->val != TSR_V_NOVAL && y->val != TSR_V_NOVAL &&
           !(x->val & y->val);
}

/* The bit of struct tsr_pack_ev.elems for state event x: tsr_vev_same(x, y) implies elem_bit(x) &
 * elem_bit(y) (the same element and index, or an unknown index: all bits). */
static uint64_t elem_bit(const struct tsr_vev *x)
{
    if (x->addr < 0)
        return ~(uint64_t)0;
    uint64_t h = ((uint64_t)(uint32_t)x->id * 0x9E3779B97F4A7C15u) ^ ((uint64_t)x->addr * 0xC2B2AE3D27D4EB4Fu);
    return (uint64_t)1 << (h >> 58);
}

/* Per description, the rules tsr_pack_dep looks at (a `latency` rule of two patterns, an `order` class) and
 * those of two patterns (rules 0..63; one description at a time per thread). */
static void rule_masks(const struct tsr_vdesc *D, uint64_t *useful, uint64_t *two)
{
    static _Thread_local const struct tsr_vdesc *md;
    static _Thread_local uint64_t mu, mt;
    if (md != D) {
        mu = mt = 0;
        for (int r = 0; r < D->nrules && r < 64; r++) {
            const struct tsr_vrule *R = &D->rules[r];
            if ((R->kind == TSR_VR_LATENCY && R->npat == 2) || (R->kind == TSR_VR_ORDER && R->npat == 1))
                mu |= (uint64_t)1 << r;
            if (R->npat > 1)
                mt |= (uint64_t)1 << r;
        }
        md = D;
    }
    *useful = mu;
    *two = mt;
}

/* Fills *e: events only (pats 0), with the rule filter pat (1), and with the event masks evm (2). */
/* The like of elem_bit for any event: tsr_vev_same(x, y) implies any_bit(x) & any_bit(y) (events of neither
 * a state nor a space are never the same element: 0). */
static uint64_t any_bit(const struct tsr_vev *x)
{
    if (is_state(x))
        return elem_bit(x);
    if (x->kind != TSR_V_RSPACE && x->kind != TSR_V_WSPACE)
        return 0;
    if (x->addr < 0)
        return ~(uint64_t)0;
    uint64_t h = ((uint64_t)(uint32_t)x->id * 0xC2B2AE3D27D4EB4Fu) ^ ((uint64_t)x->addr * 0x9E3779B97F4A7C15u) ^
                 0x165667B19E3779F9u;
    return (uint64_t)1 << (h >> 58);
}

static int ev_fill(const struct tsr_target *t, const uint32_t *w, struct tsr_pack_ev *e, int pats)
{
    const struct tsr_vdesc *D = t->vdesc;
    if (!D)
        return -1;
    /* the events into a whole struct, then only what they use into e->vb (the full 2 KB per unit and bundle
     * was most of a large block's memory) */
    static _Thread_local struct tsr_vbundle full;
    static _Thread_local uint64_t *ff;
    static _Thread_local size_t nff;
    size_t nf = D->nfields ? D->nfields : 1;
    if (nff < nf) {
        free(ff);
        ff = calloc(nf, sizeof *ff);
        if (!ff)
            abort();
        nff = nf;
    }
    memset(&full, 0, offsetof(struct tsr_vbundle, ev));   /* (tsr_vb_add sets every field of an event) */
    memset(ff, 0, nf * sizeof *ff);
    full.f = ff;
    D->events(w, 0, &full);
    size_t evb = offsetof(struct tsr_vbundle, ev) + (size_t)full.nev * sizeof full.ev[0];
    evb = (evb + 7) & ~(size_t)7;
    size_t need = evb + nf * sizeof *ff;
    /* the event masks: one per pattern that some event matches, so first the rule filter (with the masks: of
     * the rules tsr_pack_dep looks at alone) */
    uint64_t pat[2] = { D->nrules > 64 || !pats ? ~(uint64_t)0 : 0, D->nrules > 64 || !pats ? ~(uint64_t)0 : 0 };
    bool masks = pats == 2 && D->nrules <= 64 && !full.overflow;
    uint64_t useful = ~(uint64_t)0, two;
    if (masks)
        rule_masks(D, &useful, &two);
    for (int r = 0; r < D->nrules && r < 64 && pats; r++)
        for (int p = 0; p < 2 && p < D->rules[r].npat && (useful >> r & 1); p++)
            for (int i = 0; i < full.nev; i++)
                if (D->rules[r].pat[p](&full.ev[i], ff)) {
                    pat[p] |= (uint64_t)1 << r;
                    break;
                }
    int nm = masks ? 2 + 2 * (__builtin_popcountll(pat[0]) + __builtin_popcountll(pat[1])) : 0;
    need += (size_t)nm * sizeof(uint64_t);
    if (e->cap < need) {
        free(e->vb);
        e->vb = malloc(need);
        if (!e->vb)
            abort();
        e->cap = need;
    }
    memcpy(e->vb, &full, evb < sizeof full ? evb : sizeof full);
    e->vb->f = (uint64_t *)((char *)e->vb + evb);
    memcpy(e->vb->f, ff, nf * sizeof *ff);
    const struct tsr_vbundle *vb = e->vb;
    e->ctl = TSR_PACK_CTL_NONE;
    e->delay = 0;
    e->falls = true;
    e->pat[0] = pat[0];
    e->pat[1] = pat[1];
    e->evm = NULL;
    if (masks) {
        uint64_t *m = e->evm = vb->f + nf;
        m[0] = m[1] = 0;
        for (int i = 0; i < vb->nev; i++) {
            m[0] |= (uint64_t)is_read(&vb->ev[i]) << i;
            m[1] |= (uint64_t)is_state(&vb->ev[i]) << i;
        }
        int k = 2;
        for (int p = 0; p < 2; p++)
            for (uint64_t rs = pat[p]; rs; rs &= rs - 1) {
                const struct tsr_vrule *R = &D->rules[__builtin_ctzll(rs)];
                m[k] = m[k + 1] = 0;
                for (int i = 0; i < vb->nev; i++)
                    if (R->pat[p](&vb->ev[i], vb->f)) {
                        m[k] |= (uint64_t)1 << i;
                        m[k + 1] |= any_bit(&vb->ev[i]);
                    }
                k += 2;
            }
    }
    e->elems = 0;
    for (int i = 0; i < vb->nev; i++) {
        const struct tsr_vev *x = &vb->ev[i];
        if (is_state(x))
            e->elems |= elem_bit(x);
        if (x->kind != TSR_V_JUMP && x->kind != TSR_V_HALT)
            continue;
        e->ctl = x->kind == TSR_V_JUMP ? TSR_PACK_CTL_JUMP : TSR_PACK_CTL_END;
        e->delay = x->delay > e->delay ? x->delay : e->delay;
        e->falls = x->cond;
    }
    return 0;
}

int tsr_pack_ev_init(const struct tsr_target *t, const uint32_t *w, struct tsr_pack_ev *e)
{
    return ev_fill(t, w, e, 1);
}

int tsr_pack_ev_unit(const struct tsr_target *t, const uint32_t *w, struct tsr_pack_ev *e)
{
    return ev_fill(t, w, e, 2);
}

int tsr_pack_ev_events(const struct tsr_target *t, const uint32_t *w, struct tsr_pack_ev *e)
{
    return ev_fill(t, w, e, 0);
}

void tsr_pack_ev_copy(struct tsr_pack_ev *dst, const struct tsr_pack_ev *src)
{
    tsr_pack_ev_free(dst);
    *dst = *src;
    if (!src->vb)
        return;
    dst->vb = malloc(src->cap);
    if (!dst->vb)
        abort();
    memcpy(dst->vb, src->vb, src->cap);
    /* (the field values and the masks live in the same allocation: the same offsets in the copy) */
    dst->vb->f = (uint64_t *)((char *)dst->vb + ((char *)src->vb->f - (char *)src->vb));
    if (src->evm)
        dst->evm = (uint64_t *)((char *)dst->vb + ((char *)src->evm - (char *)src->vb));
}

void tsr_pack_ev_free(struct tsr_pack_ev *e)
{
    free(e->vb);
    e->vb = NULL;
    e->cap = 0;
}


/* The first event of b matching pattern p (and touching the element of `like`, if given), or NULL. */
static const struct tsr_vev *find(const struct tsr_vbundle *b, tsr_vmatch_fn p, const struct tsr_vev *like)
{
    for (int i = 0; i < b->nev; i++)
        if (p(&b->ev[i], b->f) && (!like || tsr_vev_same(&b->ev[i], like)))
            return &b->ev[i];
    return NULL;
}

/* Does some event of a matching pattern p touch the element of some event of b matching q? */
static bool pair(const struct tsr_vbundle *a, tsr_vmatch_fn p, const struct tsr_vbundle *b, tsr_vmatch_fn q,
                 bool same)
{
    for (int j = 0; j < b->nev; j++)
        if (q(&b->ev[j], b->f) && find(a, p, same ? &b->ev[j] : NULL))
            return true;
    return false;
}

/* The set bits of x (without a call to a library routine where the machine has no instruction for it). */
static inline int ones(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555u);
    x = (x & 0x3333333333333333u) + ((x >> 2) & 0x3333333333333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fu;
    return (int)((x * 0x0101010101010101u) >> 56);
}

/* The mask of the events of x matching pattern p of rule r (bit r set in x->pat[p]; x->evm known), followed by
 * their elements' bits (any_bit). */
static const uint64_t *evmask(const struct tsr_pack_ev *x, int p, int r)
{
    int k = (p ? ones(x->pat[0]) : 0) + ones(x->pat[p] & (((uint64_t)1 << r) - 1));
    return x->evm + 2 + 2 * k;
}

/* pair() on the event masks: does an event of a matching pattern p of rule r touch the element of an event
 * of b matching its pattern q (any element unless `same`)? */
static bool pair_m(const struct tsr_pack_ev *a, int p, const struct tsr_pack_ev *b, int q, int r, bool same)
{
    uint64_t bit = (uint64_t)1 << r;
    if (!(a->pat[p] & bit) || !(b->pat[q] & bit))
        return false;
    if (!same)
        return true;
    const uint64_t *xa = evmask(a, p, r), *xb = evmask(b, q, r);
    if (!(xa[1] & xb[1]))
        return false;   /* no element in common */
    uint64_t ma = xa[0];
    for (uint64_t mb = xb[0]; mb; mb &= mb - 1) {
        const struct tsr_vev *y = &b->vb->ev[__builtin_ctzll(mb)];
        for (uint64_t m = ma; m; m &= m - 1)
            if (tsr_vev_same(&a->vb->ev[__builtin_ctzll(m)], y))
                return true;
    }
    return false;
}

/* tsr_pack_dep on the event masks of both (tsr_pack_ev_unit): the same answer, by the same steps, visiting
 * only the events and rules that can take part. */
static int dep_masks(const struct tsr_vdesc *D, const struct tsr_pack_ev *ea, const struct tsr_pack_ev *eb,
                     uint64_t useful, uint64_t two)
{
    const struct tsr_vbundle *a = ea->vb, *b = eb->vb;
    int lat = -1;
    if (ea->elems & eb->elems)
        for (uint64_t ma = ea->evm[1]; ma; ma &= ma - 1) {
            const struct tsr_vev *x = &a->ev[__builtin_ctzll(ma)];
            for (uint64_t mb = eb->evm[1]; mb; mb &= mb - 1) {
                const struct tsr_vev *y = &b->ev[__builtin_ctzll(mb)];
                if (!tsr_vev_same(x, y) || lanes_apart(x, y))
                    continue;
                int l = is_write(x) ? 1 : is_write(y) ? 0 : -1;
                lat = l > lat ? l : lat;
            }
        }
    uint64_t rs = ((ea->pat[0] & ((eb->pat[1] & two) | (eb->pat[0] & ~two))) | (ea->pat[1] & eb->pat[0])) & useful;
    for (; rs; rs &= rs - 1) {
        int r = __builtin_ctzll(rs);
        const struct tsr_vrule *R = &D->rules[r];
        if (R->kind == TSR_VR_LATENCY) {
            if (R->lo > lat && pair_m(ea, 0, eb, 1, r, R->same))
                lat = R->lo;
            else if (lat < 0 && pair_m(ea, 1, eb, 0, r, R->same))
                lat = 0;
        } else if (lat < 1 && (ea->pat[0] >> r & 1) && (eb->pat[0] >> r & 1)) {
            /* an order class: 0 when every access of a is a read and none of b's is, else 1 */
            uint64_t mx = evmask(ea, 0, r)[0], my = evmask(eb, 0, r)[0];
            int l = (mx & ~ea->evm[0]) || (my & eb->evm[0]) ? 1 : 0;
            lat = l > lat ? l : lat;
        }
    }
    return lat;
}

int tsr_pack_dep(const struct tsr_vdesc *D, const struct tsr_pack_ev *ea, const struct tsr_pack_ev *eb)
{
    if (ea->evm && eb->evm) {
        uint64_t useful, two;
        rule_masks(D, &useful, &two);
        return dep_masks(D, ea, eb, useful, two);
    }
    const struct tsr_vbundle *a = ea->vb, *b = eb->vb;
    int lat = -1;
    /* state elements (space accesses that reach no state, i.e. hooks, are ordered only by `order` classes) */
    for (int i = 0; i < a->nev && (ea->elems & eb->elems); i++) {
        const struct tsr_vev *x = &a->ev[i];
        if (!is_state(x))
            continue;
        for (int j = 0; j < b->nev; j++) {
            const struct tsr_vev *y = &b->ev[j];
            if (!is_state(y) || !tsr_vev_same(x, y) || lanes_apart(x, y))
                continue;
            int l = is_write(x) ? 1 : is_write(y) ? 0 : -1;
            lat = l > lat ? l : lat;
        }
    }
    for (int r = 0; r < D->nrules; r++) {
        const struct tsr_vrule *R = &D->rules[r];
        uint64_t bit = r < 64 ? (uint64_t)1 << r : 0;
        if (bit && !(ea->pat[0] & eb->pat[R->npat > 1 ? 1 : 0] & bit) && !(ea->pat[1] & eb->pat[0] & bit))
            continue;   /* neither direction can match */
        if (R->kind == TSR_VR_LATENCY && R->npat == 2) {
            if (R->lo > lat && pair(a, R->pat[0], b, R->pat[1], R->same))
                lat = R->lo;
            else if (lat < 0 && pair(a, R->pat[1], b, R->pat[0], R->same))
                lat = 0;   /* a reads what b produces: b not before a */
        } else if (R->kind == TSR_VR_ORDER && R->npat == 1 && lat < 1) {
            for (int i = 0; i < a->nev && lat < 1; i++) {
                if (!R->pat[0](&a->ev[i], a->f))
                    continue;
                for (int j = 0; j < b->nev; j++)
                    if (R->pat[0](&b->ev[j], b->f)) {
                        int l = is_read(&a->ev[i]) && !is_read(&b->ev[j]) ? 0 : 1;
                        lat = l > lat ? l : lat;
                    }
            }
        }
    }
    return lat;
}

struct first { char *msg; size_t n; };
static void first_msg(void *p, const struct tsr_vviol *v)
{
    struct first *f = p;
    if (f->n && !f->msg[0])
        snprintf(f->msg, f->n, "rule %s: %s (ref: %s)", v->name, v->text, v->ref);
}

size_t tsr_pack_solo_check(const struct tsr_vdesc *D, const struct tsr_vbundle *b, char *msg, size_t n)
{
    struct first f = { msg, n };
    if (n)
        msg[0] = 0;
    return tsr_validate_hist(D, &b, 1, first_msg, &f);
}


/* ---- the dependence graph of a block ---------------------------------------------------------------- */

/* tsr_pack_dep's answers by the two units' words (all it depends on: the events are listed from the words): a
 * direct-mapped memo per thread, allocated on first use.  A program repeats its operations, so a block's pairs
 * repeat too: GPU_FFT's 16 shaders ask about 400,000 pairs of 28,558 distinct word pairs. */
#define DMEMO 65536
struct dmemo { const struct tsr_vdesc *D; uint32_t w[8]; int lat; };
static _Thread_local struct dmemo *dmemo;
static void *dmemo_first;   /* the first thread's (tsr_thread_table), freed at exit */

static void dmemo_free(void)
{
    free(dmemo_first);
    dmemo_first = NULL;
}

/* (pack_int.h) */
void tsr_pack_pairs_init(struct tsr_pack_pairs *M, const struct tsr_pack_unit *u, size_t n)
{
    M->lat = NULL;
    M->nw = 0;
    uint32_t maxw = 0;
    for (size_t i = 0; i < n; i++) {
        if (!u[i].wid)
            return;
        if (u[i].wid > maxw)
            maxw = u[i].wid;
    }
    if (maxw > TSR_PACK_PAIRS_MAX || maxw < 2)
        return;
    if (!(M->lat = calloc((size_t)maxw * maxw, sizeof *M->lat)))
        abort();
    M->nw = maxw;
}

void tsr_pack_pairs_fini(struct tsr_pack_pairs *M)
{
    free(M->lat);
    M->lat = NULL;
}

static int dep_memo(const struct tsr_vdesc *D, const struct tsr_pack_unit *a, const struct tsr_pack_unit *b,
                    int (*dep)(const struct tsr_vdesc *, const struct tsr_pack_ev *, const struct tsr_pack_ev *));

/* The entry of the pair (a, b) in the program's matrix M, or NULL when M has none for them. */
static uint16_t *pair_slot(const struct tsr_pack_pairs *M, const struct tsr_pack_unit *a, const struct tsr_pack_unit *b)
{
    if (!M || !M->lat || !a->wid || !b->wid || a->wid > M->nw || b->wid > M->nw)
        return NULL;
    return &M->lat[(size_t)(a->wid - 1) * M->nw + (b->wid - 1)];
}

/* tsr_pack_dep(D, a's events, b's events) through the program's matrix M (if it has one), then the memo. */
static int dep_units(const struct tsr_vdesc *D, const struct tsr_pack_pairs *M, const struct tsr_pack_unit *a,
                     const struct tsr_pack_unit *b,
                     int (*dep)(const struct tsr_vdesc *, const struct tsr_pack_ev *, const struct tsr_pack_ev *))
{
    uint16_t *m = pair_slot(M, a, b);
    if (!m)
        return dep_memo(D, a, b, dep);
    if (!*m) {
        int l = dep_memo(D, a, b, dep);
        if (l < -1 || l > UINT16_MAX - 2)
            return l;
        *m = (uint16_t)(l + 2);
    }
    return (int)*m - 2;
}

/* tsr_pack_dep(D, a's events, b's events) through the memo (units of at most 4 words: struct tsr_pack_unit.w,
 * whose words past the target's are 0). */
/* The memo's slot for the pair (a, b), its key (the two units' words) into key. */
static struct dmemo *memo_slot(const struct tsr_pack_unit *a, const struct tsr_pack_unit *b, uint32_t key[8])
{
    static atomic_flag registered = ATOMIC_FLAG_INIT;
    if (!dmemo)
        dmemo = tsr_thread_table(DMEMO, sizeof *dmemo, &registered, &dmemo_first, dmemo_free);
    memcpy(key, a->w, 4 * sizeof *key);
    memcpy(key + 4, b->w, 4 * sizeof *key);
    uint64_t h = (((uint64_t)key[0] << 32 | key[1]) * 0x9E3779B97F4A7C15u) ^
                 (((uint64_t)key[2] << 32 | key[3]) * 0xC2B2AE3D27D4EB4Fu) ^
                 (((uint64_t)key[4] << 32 | key[5]) * 0x165667B19E3779F9u) ^
                 (((uint64_t)key[6] << 32 | key[7]) * 0xff51afd7ed558ccdu);
    /* (a product carries a key bit only upwards: the high bits are folded down, or keys that differ only in
     * their words' high bits would all share a slot) */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdu;
    h ^= h >> 33;
    return &dmemo[h % DMEMO];
}

/* Starts loading what dep_units(D, M, a, b, ...) will read: the memo's slot, unless the program's matrix has
 * the answer (the memo is larger than the core's caches; a unit's candidates are prefetched together, so their
 * loads overlap). */
static void dep_prefetch(const struct tsr_vdesc *D, const struct tsr_pack_pairs *M, const struct tsr_pack_unit *a,
                         const struct tsr_pack_unit *b)
{
    if (D->nwords > 4)
        return;
    const uint16_t *m = pair_slot(M, a, b);
    if (m && *m)
        return;
    uint32_t key[8];
    __builtin_prefetch(memo_slot(a, b, key));
}

static int dep_memo(const struct tsr_vdesc *D, const struct tsr_pack_unit *a, const struct tsr_pack_unit *b,
                    int (*dep)(const struct tsr_vdesc *, const struct tsr_pack_ev *, const struct tsr_pack_ev *))
{
    unsigned nw = D->nwords;
    if (nw > 4)
        return dep(D, &a->ev, &b->ev);
    uint32_t key[8];
    struct dmemo *m = memo_slot(a, b, key);
    if (m->D == D && !memcmp(m->w, key, sizeof key))
        return m->lat;
    m->D = D;
    memcpy(m->w, key, sizeof key);
    m->lat = dep(D, &a->ev, &b->ev);
    return m->lat;
}

/* (pack_int.h) */
void tsr_pack_push_edge(struct tsr_pack_elist *l, int to, int lat)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 8;
        l->e = realloc(l->e, (size_t)l->cap * sizeof *l->e);
        if (!l->e)
            abort();
    }
    l->e[l->n++] = (struct tsr_pack_edge){ to, lat };
}

static bool is_space(const struct tsr_vev *e) { return e->kind == TSR_V_RSPACE || e->kind == TSR_V_WSPACE; }

/* The accesses to one element (a state element or a space address) so far: its last writer and the units
 * that read it since (-1 / none). */
struct elem {
    uint64_t key;            /* 0: empty slot */
    int last_w;
    int *rd, nrd, caprd;
};

static uint64_t elem_key(const struct tsr_vev *e)
{
    uint64_t k = (uint64_t)(is_space(e) ? 2 : 1) << 62 ^ (uint64_t)(uint32_t)e->id << 32 ^ (uint64_t)e->addr;
    return k ? k : 1;
}

static struct elem *elem_get(struct elem *tab, size_t mask, uint64_t key)
{
    size_t h = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & mask;
    while (tab[h].key && tab[h].key != key)
        h = (h + 1) & mask;
    if (!tab[h].key) {
        tab[h].key = key;
        tab[h].last_w = -1;
    }
    return &tab[h];
}

#define RECENT 16   /* the producers of a latency rule between different elements a unit is linked to */

/* The graph of a large block from the accesses that can matter (see tsr_pack_graph); false if the block has
 * an access of unknown element or the description more than 64 rules (then every pair is derived). */
static bool graph_near(const struct tsr_vdesc *D, const struct tsr_pack_pairs *M, const struct tsr_pack_unit *u, int n,
                       struct tsr_pack_elist *pred, struct tsr_pack_elist *succ)
{
    if (D->nrules > 64)
        return false;
    size_t nev = 0;
    for (int j = 0; j < n; j++)
        for (int k = 0; k < u[j].ev.vb->nev; k++) {
            const struct tsr_vev *e = &u[j].ev.vb->ev[k];
            if ((is_state(e) || is_space(e)) && e->addr < 0)
                return false;
            nev++;
        }
    size_t cap = 16;
    while (cap < 2 * nev + 16)
        cap *= 2;
    struct elem *tab = calloc(cap, sizeof *tab);
    int *mark = malloc((size_t)n * sizeof *mark), *cand = malloc(((size_t)n + 1) * sizeof *cand);
    /* per rule: order classes, the last member; latency rules between different elements, the last RECENT
     * units matching the first pattern and the units matching the second since the last of the first */
    int (*recent)[RECENT] = malloc(64 * sizeof *recent), nrecent[64] = { 0 };
    int **since = calloc(64, sizeof *since), nsince[64] = { 0 }, capsince[64] = { 0 };
    if (!tab || !mark || !cand || !recent || !since)
        abort();
    for (int j = 0; j < n; j++)
        mark[j] = -1;
    for (int j = 0; j < n; j++) {
        const struct tsr_pack_ev *ej = &u[j].ev;
        int nc = 0;
#define CAND(i) do { int i_ = (i); if (i_ >= 0 && mark[i_] != j) { mark[i_] = j; cand[nc++] = i_; } } while (0)
        for (int k = 0; k < ej->vb->nev; k++) {
            const struct tsr_vev *e = &ej->vb->ev[k];
            if (!is_state(e) && !is_space(e))
                continue;
            struct elem *x = elem_get(tab, cap - 1, elem_key(e));
            CAND(x->last_w);
            if (e->kind == TSR_V_WSTATE || e->kind == TSR_V_WSPACE)
                for (int r = 0; r < x->nrd; r++)
                    CAND(x->rd[r]);
        }
        for (int r = 0; r < D->nrules; r++) {
            const struct tsr_vrule *R = &D->rules[r];
            uint64_t bit = (uint64_t)1 << r;
            if (R->kind == TSR_VR_ORDER && (ej->pat[0] & bit)) {
                for (int q = 0; q < nrecent[r]; q++)
                    CAND(recent[r][q]);
            } else if (R->kind == TSR_VR_LATENCY && R->npat == 2 && !R->same) {
                if (ej->pat[1] & bit)
                    for (int q = 0; q < nrecent[r] && q < RECENT; q++)
                        CAND(recent[r][q]);
                if (ej->pat[0] & bit)
                    for (int q = 0; q < nsince[r]; q++)
                        CAND(since[r][q]);
            }
        }
#undef CAND
        /* in program order, as the derivation of every pair would add them */
        for (int a = 1; a < nc; a++)
            for (int b = a; b > 0 && cand[b] < cand[b - 1]; b--) {
                int tmp = cand[b];
                cand[b] = cand[b - 1];
                cand[b - 1] = tmp;
            }
        for (int c = 0; c < nc; c++) {
            int l = dep_units(D, M, &u[cand[c]], &u[j], tsr_pack_dep);
            if (l >= 0) {
                tsr_pack_push_edge(&pred[j], cand[c], l);
                tsr_pack_push_edge(&succ[cand[c]], j, l);
            }
        }
        /* j's own accesses, for the units after it */
        for (int k = 0; k < ej->vb->nev; k++) {
            const struct tsr_vev *e = &ej->vb->ev[k];
            if (!is_state(e) && !is_space(e))
                continue;
            struct elem *x = elem_get(tab, cap - 1, elem_key(e));
            if (e->kind == TSR_V_WSTATE || e->kind == TSR_V_WSPACE) {
                x->last_w = j;
                x->nrd = 0;
            } else if (!x->nrd || x->rd[x->nrd - 1] != j) {
                if (x->nrd == x->caprd) {
                    x->caprd = x->caprd ? 2 * x->caprd : 4;
                    x->rd = realloc(x->rd, (size_t)x->caprd * sizeof *x->rd);
                    if (!x->rd)
                        abort();
                }
                x->rd[x->nrd++] = j;
            }
        }
        for (int r = 0; r < D->nrules; r++) {
            const struct tsr_vrule *R = &D->rules[r];
            uint64_t bit = (uint64_t)1 << r;
            if (R->kind == TSR_VR_ORDER && (ej->pat[0] & bit)) {
                recent[r][0] = j;
                nrecent[r] = 1;
            } else if (R->kind == TSR_VR_LATENCY && R->npat == 2 && !R->same) {
                if (ej->pat[0] & bit) {
                    memmove(recent[r] + 1, recent[r], (RECENT - 1) * sizeof **recent);
                    recent[r][0] = j;
                    nrecent[r] += nrecent[r] < RECENT;
                    nsince[r] = 0;
                }
                if (ej->pat[1] & bit) {
                    if (nsince[r] == capsince[r]) {
                        capsince[r] = capsince[r] ? 2 * capsince[r] : 8;
                        since[r] = realloc(since[r], (size_t)capsince[r] * sizeof **since);
                        if (!since[r])
                            abort();
                    }
                    since[r][nsince[r]++] = j;
                }
            }
        }
    }
    for (size_t i = 0; i < cap; i++)
        free(tab[i].rd);
    for (int r = 0; r < 64; r++)
        free(since[r]);
    free(tab);
    free(mark);
    free(cand);
    free(recent);
    free(since);
    return true;
}

/* Every pair of the block with a dependence, from the event masks of its units (tsr_pack_ev_unit): per unit j,
 * only the units i < j that share a bit of the state elements with it or match a pattern of a rule whose
 * other pattern j matches (tsr_pack_dep is -1 for every other pair: it compares elements only when the bits
 * meet, and rules only in that case) are asked, in program order, from bitsets over the units.  False if a
 * unit has no masks. */
static bool graph_bits(const struct tsr_vdesc *D, const struct tsr_pack_pairs *M, const struct tsr_pack_unit *u, int n,
                       struct tsr_pack_elist *pred, struct tsr_pack_elist *succ)
{
    for (int j = 0; j < n; j++)
        if (!u[j].ev.evm)
            return false;
    size_t nw = ((size_t)n + 63) / 64;
    /* 64 element bits, then rules' pattern 0, then their pattern 1: each a set of units */
    uint64_t *bits = calloc(192 * nw, sizeof *bits), *c = malloc(nw * sizeof *c);
    if (!bits || !c)
        abort();
    uint64_t *pe = bits, *p0 = bits + 64 * nw, *p1 = bits + 128 * nw;
    uint64_t useful, two;
    rule_masks(D, &useful, &two);
    for (int j = 0; j < n; j++) {
        const struct tsr_pack_ev *b = &u[j].ev;
        size_t top = (size_t)j / 64 + 1;
        memset(c, 0, top * sizeof *c);
        for (uint64_t m = b->elems; m; m &= m - 1)
            for (size_t k = 0; k < top; k++)
                c[k] |= pe[(size_t)__builtin_ctzll(m) * nw + k];
        /* a before b: a's pattern 0 meets b's pattern 1 (0 for one-pattern rules), or a's 1 meets b's 0 */
        for (uint64_t m = ((b->pat[1] & two) | (b->pat[0] & ~two)) & useful; m; m &= m - 1)
            for (size_t k = 0; k < top; k++)
                c[k] |= p0[(size_t)__builtin_ctzll(m) * nw + k];
        for (uint64_t m = b->pat[0] & useful; m; m &= m - 1)
            for (size_t k = 0; k < top; k++)
                c[k] |= p1[(size_t)__builtin_ctzll(m) * nw + k];
        int nc = 0;
        for (size_t k = 0; k < top; k++)
            nc += ones(c[k]);
        if (nc) {   /* j's predecessors: at most its candidates */
            pred[j].e = malloc((size_t)nc * sizeof *pred[j].e);
            if (!pred[j].e)
                abort();
            pred[j].cap = nc;
        }
        for (size_t k = 0; k < top; k++)
            for (uint64_t m = c[k]; m; m &= m - 1) {
                int i = (int)(k * 64) + __builtin_ctzll(m);
                if (i < j)
                    dep_prefetch(D, M, &u[i], &u[j]);
            }
        for (size_t k = 0; k < top; k++)
            for (uint64_t m = c[k]; m; m &= m - 1) {
                int i = (int)(k * 64) + __builtin_ctzll(m);
                int l = i < j ? dep_units(D, M, &u[i], &u[j], tsr_pack_dep) : -1;
                if (l >= 0) {
                    pred[j].e[pred[j].n++] = (struct tsr_pack_edge){ i, l };
                    succ[i].cap++;   /* (counted here, filled below) */
                }
            }
        uint64_t jb = (uint64_t)1 << (j % 64);
        for (uint64_t m = b->elems; m; m &= m - 1)
            pe[(size_t)__builtin_ctzll(m) * nw + (size_t)j / 64] |= jb;
        for (uint64_t m = b->pat[0]; m; m &= m - 1)
            p0[(size_t)__builtin_ctzll(m) * nw + (size_t)j / 64] |= jb;
        for (uint64_t m = b->pat[1]; m; m &= m - 1)
            p1[(size_t)__builtin_ctzll(m) * nw + (size_t)j / 64] |= jb;
    }
    /* the successor lists from the predecessor lists, each in the order of j as the pairs were found */
    for (int i = 0; i < n; i++) {
        if (succ[i].cap && !(succ[i].e = malloc((size_t)succ[i].cap * sizeof *succ[i].e)))
            abort();
    }
    for (int j = 0; j < n; j++)
        for (int k = 0; k < pred[j].n; k++) {
            struct tsr_pack_elist *l = &succ[pred[j].e[k].to];
            l->e[l->n++] = (struct tsr_pack_edge){ j, pred[j].e[k].lat };
        }
    free(bits);
    free(c);
    return true;
}

void tsr_pack_graph(const struct tsr_vdesc *D, const struct tsr_pack_pairs *M, const struct tsr_pack_unit *u, int n,
                    struct tsr_pack_elist *pred, struct tsr_pack_elist *succ)
{
    if (n > TSR_PACK_LARGE && graph_near(D, M, u, n, pred, succ))
        return;
    if (n <= TSR_PACK_LARGE && D->nrules <= 64 && graph_bits(D, M, u, n, pred, succ))
        return;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < j; i++) {
            int l = dep_units(D, M, &u[i], &u[j], tsr_pack_dep);
            if (l >= 0) {
                tsr_pack_push_edge(&pred[j], i, l);
                tsr_pack_push_edge(&succ[i], j, l);
            }
        }
}

/* (pack_int.h) */
void tsr_pack_ev_drop_format_deferred(struct tsr_pack_ev *e)
{
    if (!e->vb)
        return;
    int k = 0;
    for (int q = 0; q < e->vb->nev; q++)
        if (!(e->vb->ev[q].kind == TSR_V_RDEFER && e->vb->ev[q].slot < 0))
            e->vb->ev[k++] = e->vb->ev[q];
    e->vb->nev = k;
}
