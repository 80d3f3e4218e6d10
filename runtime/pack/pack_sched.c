/* The packer's scheduler (docs/pack.md "Algorithm").  Per basic block: a dependence graph from the
 * description's facts (pack_deps.c), then cycle-by-cycle list scheduling (three priorities, the shortest
 * schedule kept), where a unit joins the bundle being formed only if (1) the target's assembler can encode
 * the bundle with it (slots, read ports, small immediates, ws, the ALU a `mov` goes to), (2) the joined
 * bundle does what its parts do alone (pack_equiv.c) and (3) the generated validator finds no rule broken by
 * that bundle against the bundles before it (latencies, forbidden windows, one-bundle rules, resources).
 * The branch / thread end goes as late as its delay slots allow, so that independent operations fill them.
 * A block that control can fall into is scheduled against the end of the one before; the paths that enter
 * through a branch are checked afterwards by validating the whole program, and a nop is put before each
 * instruction that still breaks a rule (at the target of the branch). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pack_int.h"
#include "diag.h"
#include "fileout.h"
#include "hexio.h"
#include "target.h"
#include "text/textcodec.h"
#include "pack_sched.h"

#define PRIORITIES 3      /* list-scheduling priorities tried per block (struct sched.variant) */

/* The events of b's words, listed now if they were not. */
static const struct tsr_vbundle *events(const struct prog *P, struct obundle *b)
{
    if (!b->evok) {
        tsr_pack_ev_events(P->t, b->w, &b->ev);
        b->evok = true;
    }
    return b->ev.vb;
}

static const char *unit_text(const struct tsr_pack_unit *x)
{
    if ((x->ev.ctl == TSR_PACK_CTL_JUMP || x->ev.ctl == TSR_PACK_CTL_OPAQUE) && x->src)
        return x->src;
    return x->text ? x->text : x->full;
}

/* Can the ops of bundle b and of unit x go to distinct slots of one format, each to a slot that has an op of
 * its name?  An assembler places an op nowhere else, so when they cannot, the bundle is not tried (a quick
 * test before the assembler's; true when the slots are not known). */
static bool slots_fit(const struct prog *P, const struct obundle *b, const struct tsr_pack_unit *x)
{
    if (b->nitems < 0 || x->ncand < 0 || b->nitems + x->ncand > MAXITEMS)
        return true;
    uint64_t it[MAXITEMS];
    memcpy(it, b->items, (size_t)b->nitems * sizeof *it);
    memcpy(it + b->nitems, x->cand, (size_t)x->ncand * sizeof *it);
    int k = b->nitems + x->ncand;
    for (unsigned f = 0; f < P->nf; f++)
        if (__builtin_popcountll(P->fmask[f]) >= k && tsr_pack_match_slots(it, k, P->fmask[f]))
            return true;
    return false;
}

/* Records in b->pcand the part of unit x, which b->parts (b->k of them) now holds. */
static void note_part(struct obundle *b, const struct tsr_pack_unit *x)
{
    int pos = 0;
    while (pos < b->k - 1 && b->pw[pos] != x->w)
        pos++;
    memmove(b->pcand + pos + 1, b->pcand + pos, (size_t)(b->k - 1 - pos) * sizeof *b->pcand);
    b->pcand[pos] = x->ncand == 1 && !strchr(b->parts[pos], ';') ? x->cand[0] : 0;
}

/* Records unit x's ops among bundle b's (struct obundle.items). */
static void add_items(struct obundle *b, const struct tsr_pack_unit *x)
{
    if (b->nitems < 0 || x->ncand < 0 || b->nitems + x->ncand > MAXITEMS) {
        b->nitems = -1;
        return;
    }
    memcpy(b->items + b->nitems, x->cand, (size_t)x->ncand * sizeof *b->items);
    b->nitems += x->ncand;
}

/* ---- the validator as oracle ------------------------------------------------------------------------ */


/* The schedule being formed: the program so far (P), the block's own bundles (bs[0..nb), at P->n..),
 * and where the history known on this path starts (hstart: a global index). */
struct sched {
    struct prog *P;
    struct obundle *bs;
    int nb, cap;
    size_t hstart;
    bool ended;       /* the block's bundles are all there: its last (bs[nb - 1]) ends the block (TSR_V_END) */
    int variant;      /* priority of the list scheduler: 0 height, 1 program order, 2 height then successors */
    struct tsr_pack_elist *pred, *succ;   /* the block's dependence graph (built by variant 0, kept for the others) */
    int ngraph;
    int *order[PRIORITIES];   /* the block's priority order of each variant run so far (ngraph entries) */
};

static void free_graph(struct sched *S)
{
    for (int i = 0; i < S->ngraph; i++) {
        free(S->pred[i].e);
        free(S->succ[i].e);
    }
    free(S->pred);
    free(S->succ);
    for (int v = 0; v < PRIORITIES; v++) {
        free(S->order[v]);
        S->order[v] = NULL;
    }
    S->pred = S->succ = NULL;
    S->ngraph = 0;
}

static struct obundle *hist_at(const struct sched *S, size_t g)
{
    return g >= S->P->n ? &S->bs[g - S->P->n] : &S->P->b[g];
}

/* The events of the bundle k before global position g (tsr_pack_hist_check's history). */
struct hist_ctx { const struct sched *S; size_t g; };
static const struct tsr_vbundle *hist_events(void *ctx, int k)
{
    const struct hist_ctx *c = ctx;
    return events(c->S->P, hist_at(c->S, c->g - (size_t)k));
}

/* Violations completed by the bundle of words w placed at global position g (the bundles before it as they
 * stand).  Its events go into *cand when the verdict is not cached (then *filled: tsr_pack_hist_check). */
static size_t oracle(const struct sched *S, size_t g, const uint32_t *w, struct tsr_pack_ev *cand, bool *filled)
{
    const struct tsr_vdesc *D = S->P->D;
    const uint32_t *hw[TSR_V_MAXDIST + 1];
    hw[0] = w;
    int len = 1, lb = D->lookback < TSR_V_MAXDIST ? D->lookback : TSR_V_MAXDIST;
    for (int k = 1; k <= lb && g >= (size_t)k && g - (size_t)k >= S->hstart; k++)
        hw[len++] = hist_at(S, g - (size_t)k)->w;
    struct hist_ctx c = { S, g };
    unsigned at = (g == 0 ? TSR_PACK_AT_START : 0) |
                  (S->ended && g + 1 == S->P->n + (size_t)S->nb ? TSR_PACK_AT_END : 0);
    return tsr_pack_hist_check(S->P->t, cand, hist_events, &c, hw, len, at, filled);
}

static struct obundle *block_bundle(struct sched *S, int c)
{
    while (S->nb <= c) {
        if (S->nb == S->cap) {
            S->cap = S->cap ? 2 * S->cap : 16;
            S->bs = realloc(S->bs, (size_t)S->cap * sizeof *S->bs);
            if (!S->bs)
                abort();
        }
        struct obundle *b = &S->bs[S->nb++];
        memset(b, 0, sizeof *b);
        tsr_pack_set_words(S->P, b, S->P->nopw);
    }
    return &S->bs[c];
}

/* ---- one block ------------------------------------------------------------------------------------- */

/* Re-derives the events of bundles [from, nb) and checks each against its history.  Returns true if
 * none breaks a rule. */
static bool recheck(struct sched *S, int from)
{
    for (int c = from; c < S->nb; c++) {
        bool filled;   /* (its events are listed, from its words, only when the verdict is not cached) */
        size_t bad = oracle(S, S->P->n + (size_t)c, S->bs[c].w, &S->bs[c].ev, &filled);
        S->bs[c].evok |= filled;
        if (bad)
            return false;
    }
    return true;
}

static void copy_bundles(struct prog *P, struct obundle *dst, const struct obundle *src, int n)
{
    for (int i = 0; i < n; i++) {
        struct tsr_vbundle *vb = dst[i].ev.vb;   /* (dst keeps its own events' allocation) */
        size_t cap = dst[i].ev.cap;
        dst[i] = src[i];
        dst[i].ev.vb = vb;
        dst[i].ev.cap = cap;
        tsr_pack_set_words(P, &dst[i], src[i].w);
    }
}

/* The index of the block's branch or thread end (its last unit but its `.delay` units), or -1. */
static int block_ctl(const struct tsr_pack_unit *u, int n)
{
    int c = n - 1;
    while (c > 0 && u[c].dslot)
        c--;
    return n > 0 && (u[c].ev.ctl == TSR_PACK_CTL_JUMP || u[c].ev.ctl == TSR_PACK_CTL_END) ? c : -1;
}

static bool with_unit(const struct prog *P, const struct obundle *b, const struct tsr_pack_unit *x,
                      bool positional, const char **parts, const uint32_t **pw, uint32_t *w);
static void add_unit(struct prog *P, struct obundle *b, const struct tsr_pack_unit *x, const char **parts,
                     const uint32_t **pw, const uint32_t *w, struct tsr_pack_ev *ev);

/* Places the `.delay` units ctl+1..n-1 (written after the control unit, which is in bundle bpos) in its delay
 * slots, bundles bpos+1..bpos+delay, each at the first that its predecessors allow (the control unit among
 * them: they run after it has read its operands) and that takes it.  Returns -1 if all are placed, else the
 * first unit that is not (the bundles then hold the units placed before it). */
static int place_delay(struct sched *S, const struct tsr_pack_unit *u, int ctl, int n, int bpos, int *cyc,
                       const struct tsr_pack_elist *pred)
{
    struct prog *P = S->P;
    struct tsr_pack_ev cand = { 0 };
    int fail = -1;
    cyc[ctl] = bpos;
    for (int i = ctl + 1; i < n && fail < 0; i++) {
        int c0 = bpos + 1;
        for (int k = 0; k < pred[i].n; k++) {
            int p = pred[i].e[k].to;
            if (cyc[p] + pred[i].e[k].lat > c0)
                c0 = cyc[p] + pred[i].e[k].lat;
        }
        fail = i;
        for (int c = c0; c <= bpos + u[ctl].ev.delay && fail >= 0; c++) {
            struct obundle *b = &S->bs[c];
            const char *parts[MAXPARTS];
            const uint32_t *pw[MAXPARTS];
            uint32_t w[TSR_PACK_MAX_NWORDS];
            bool filled;
            if (b->k >= MAXPARTS || !with_unit(P, b, &u[i], true, parts, pw, w) ||
                oracle(S, P->n + (size_t)c, w, &cand, &filled))
                continue;
            add_unit(P, b, &u[i], parts, pw, w, filled ? &cand : NULL);
            if (!u[i].text)
                b->k = MAXPARTS;   /* a unit that cannot share keeps its bundle alone */
            cyc[i] = c;
            fail = -1;
        }
    }
    for (int c = 0; c < S->nb; c++)
        if (S->bs[c].k == MAXPARTS)
            S->bs[c].k = 1;
    tsr_pack_ev_free(&cand);
    return fail;
}

/* Places the control unit (index ctl) as late as its delay slots allow: merged into a bundle of the block
 * when it can share one, else in a bundle of its own; the block is padded to end after its delay slots, which
 * take its `.delay` units (ctl+1..n-1: place_delay).  Returns -1, or the first `.delay` unit that fits in no
 * delay slot. */
static int place_ctl_in(struct sched *S, const struct tsr_pack_unit *u, int ctl, int n, int *cyc,
                        const struct tsr_pack_elist *pred)
{
    struct prog *P = S->P;
    const struct tsr_pack_unit *x = &u[ctl];
    int delay = x->ev.delay, L = S->nb;
    int b0 = L - 1 - delay > 0 ? L - 1 - delay : 0;
    /* a snapshot to go back to: of bundles b0.. only, since every attempt below changes no bundle before its
     * position bpos >= b0 (those keep their words, and so their events) */
    int snap_n = S->nb, nsnap = snap_n - b0 > 0 ? snap_n - b0 : 0;
    struct obundle *snap = calloc((size_t)nsnap + 1, sizeof *snap);
    if (nsnap)   /* (S->bs may be NULL, with no bundle yet) */
        copy_bundles(P, snap, S->bs + b0, nsnap);
    for (int bpos = b0; bpos <= L + P->D->lookback + 2; bpos++) {
        for (int variant = 0; variant < 2; variant++) {
            bool merge = variant == 0;
            if (merge && (bpos >= S->nb || !x->text || x->ev.ctl != TSR_PACK_CTL_END))
                continue;
            /* every bundle of the block after the control one must be one of its delay slots */
            bool ok = merge ? bpos >= L - 1 - delay : bpos >= L - delay;
            for (int k = 0; k < pred[ctl].n && ok; k++) {
                int l = pred[ctl].e[k].lat;
                if (!merge && l < 1)
                    l = 1;
                ok = cyc[pred[ctl].e[k].to] + l <= bpos;
            }
            if (!ok)
                continue;
            if (merge) {
                struct obundle *b = &S->bs[bpos];
                uint32_t w[TSR_PACK_MAX_NWORDS];
                if (b->k >= MAXPARTS - 1 || !tsr_pack_try_merge(P->t, b->parts, b->pw, b->k, unit_text(x), x->w, w))
                    continue;
                add_items(b, x);
                b->k++;
                note_part(b, x);
                tsr_pack_set_words(P, b, w);
            } else {
                if (bpos >= S->nb) {
                    block_bundle(S, bpos);   /* nops up to it */
                } else {
                    block_bundle(S, S->nb);   /* room for one more */
                    struct obundle tmp = S->bs[S->nb - 1];
                    memmove(S->bs + bpos + 1, S->bs + bpos, (size_t)(S->nb - 1 - bpos) * sizeof *S->bs);
                    S->bs[bpos] = tmp;
                }
                struct obundle *b = &S->bs[bpos];
                b->nitems = 0;
                add_items(b, x);
                b->k = 1;
                b->parts[0] = unit_text(x);
                b->pw[0] = x->w;
                note_part(b, x);
                tsr_pack_set_words(P, b, x->w);
            }
            S->bs[bpos].ctl = x->ev.ctl;
            S->bs[bpos].delay = delay;
            block_bundle(S, bpos + delay);   /* pad to the end of the delay slots */
            int f = place_delay(S, u, ctl, n, bpos, cyc, pred);
            if (f < 0 && (recheck(S, bpos) || (bpos == L + P->D->lookback + 2 && !merge))) {
                for (int i = 0; i < nsnap; i++)
                    tsr_pack_ev_free(&snap[i].ev);
                free(snap);
                return -1;
            }
            /* undo */
            for (int i = snap_n; i < S->nb; i++)
                tsr_pack_ev_free(&S->bs[i].ev);
            S->nb = snap_n;
            if (nsnap)
                copy_bundles(P, S->bs + b0, snap, nsnap);
        }
    }
    for (int i = 0; i < nsnap; i++)
        tsr_pack_ev_free(&snap[i].ev);
    free(snap);
    /* no position satisfied the dependences within the bound (cannot happen with latencies below it): last */
    struct obundle *b = block_bundle(S, S->nb);
    add_items(b, x);
    b->k = 1;
    b->parts[0] = unit_text(x);
    b->pw[0] = x->w;
    note_part(b, x);
    tsr_pack_set_words(P, b, x->w);
    b->ctl = x->ev.ctl;
    b->delay = delay;
    block_bundle(S, S->nb - 1 + delay);
    return place_delay(S, u, ctl, n, S->nb - 1 - delay, cyc, pred);
}

/* place_ctl_in, with the block's last bundle (its control unit's last delay slot) seen as its end (TSR_V_END):
 * a rule about the end of a block (`write R -> end at 0..1`) moves the control unit later. */
static int place_ctl(struct sched *S, const struct tsr_pack_unit *u, int ctl, int n, int *cyc,
                     const struct tsr_pack_elist *pred)
{
    S->ended = true;
    int f = place_ctl_in(S, u, ctl, n, cyc, pred);
    S->ended = false;
    return f;
}

/* A block without a control unit ends with its last bundle (a label or the program's end follows): while that
 * bundle breaks a rule as the end of the block (TSR_V_END: `forbid ... -> end`), an empty bundle is added after
 * it, at most lookback + 1 times (then the window has passed what the block placed). */
static void pad_end(struct sched *S)
{
    S->ended = true;
    for (int k = 0; k <= S->P->D->lookback && k <= TSR_V_MAXDIST && S->nb > 0 && !recheck(S, S->nb - 1); k++)
        block_bundle(S, S->nb);
    S->ended = false;
}

/* Bundle b with unit x added: the parts, their words alone and the joined words into parts, pw and w
 * (MAXPARTS, MAXPARTS and 8 entries).  x joins as written, else with its sources swapped (a commutative
 * op), else, if `positional`, in its full positional form (`nop; mov r0.8d, r1`).  False if it cannot. */
static bool with_unit(const struct prog *P, const struct obundle *b, const struct tsr_pack_unit *x,
                      bool positional, const char **parts, const uint32_t **pw, uint32_t *w)
{
    const struct tsr_target *t = P->t;
    memcpy(parts, b->parts, sizeof b->parts);
    memcpy(pw, b->pw, sizeof b->pw);
    if (b->k == 0) {
        parts[0] = unit_text(x);
        pw[0] = x->w;
        memcpy(w, x->w, t->nwords * 4);
        return true;
    }
    if (!slots_fit(P, b, x) || b->k >= MAXPARTS - 1 || !x->text)
        return false;
    /* the positions where the parts' slots can follow each other in some format (the others cannot assemble) */
    uint64_t at = x->ncand == 1 ? tsr_pack_order_positions(t, b->pcand, b->k, x->cand[0]) : ~(uint64_t)0;
    return (!strchr(x->text, ';') ? at && tsr_pack_try_merge_at(t, parts, pw, b->k, x->text, x->w, w, at)
                                  : tsr_pack_try_merge(t, parts, pw, b->k, x->text, x->w, w)) ||
           (x->alt && at && tsr_pack_try_merge_at(t, parts, pw, b->k, x->alt, x->w, w, at)) ||
           (positional && x->full && tsr_pack_try_merge(t, parts, pw, b->k, x->full, x->w, w));
}

/* Makes b the bundle with_unit formed with unit x.  ev: the events of w already listed (exchanged with b's), or
 * NULL. */
static void add_unit(struct prog *P, struct obundle *b, const struct tsr_pack_unit *x, const char **parts,
                     const uint32_t **pw, const uint32_t *w, struct tsr_pack_ev *ev)
{
    add_items(b, x);
    memcpy(b->parts, parts, sizeof b->parts);
    memcpy(b->pw, pw, sizeof b->pw);
    b->k++;
    note_part(b, x);
    if (ev) {
        struct tsr_pack_ev tmp = b->ev;
        b->ev = *ev;
        *ev = tmp;
        memcpy(b->w, w, P->t->nwords * 4);
        b->evok = true;
    } else {
        tsr_pack_set_words(P, b, w);
    }
}

/* Builds the block's bundles from a schedule of the relaxation (pack_bound.c): unit i in bundle at[i] of
 * T, the control unit in the bundle its delay slots end the block after.  Returns true if every bundle
 * assembles with its units, does what they do, and breaks no rule against the bundles before it (the
 * relaxation knows pairs, not triples or every window, and not the previous block's last bundles). */
static bool realize(struct sched *S, const struct tsr_pack_unit *u, int n, int ctl, const int *at, int T)
{
    struct prog *P = S->P;
    S->nb = 0;
    block_bundle(S, T - 1);
    for (int i = 0; i < n; i++) {
        if (at[i] < 0 || at[i] >= T)
            return false;
        struct obundle *b = &S->bs[at[i]];
        const char *parts[MAXPARTS];
        const uint32_t *pw[MAXPARTS];
        uint32_t w[TSR_PACK_MAX_NWORDS];
        if (!with_unit(P, b, &u[i], true, parts, pw, w))
            return false;
        add_unit(P, b, &u[i], parts, pw, w, NULL);
        if (i == ctl) {
            if (at[i] != T - 1 - u[i].ev.delay)
                return false;
            b->ctl = u[i].ev.ctl;
            b->delay = u[i].ev.delay;
        }
    }
    S->ended = true;   /* (its last bundle ends the block) */
    bool ok = recheck(S, 0);
    S->ended = false;
    return ok;
}


/* The list scheduler's priority: larger key first; at equal key a unit only one slot can do before a
 * `mov` either ALU can do (flex); then program order. */
struct rank_ctx { const int *key; const bool *flex; };

static bool rank_before(const struct rank_ctx *c, int a, int b)
{
    if (c->key[a] != c->key[b])
        return c->key[a] > c->key[b];
    if (c->flex[a] != c->flex[b])
        return !c->flex[a];
    return a < b;
}

/* Sorts order[0..n) by rank_before (a merge sort: n log n on blocks of many thousand units). */
static void rank_sort(int *order, int n, const struct rank_ctx *c)
{
    int *tmp = malloc(((size_t)n + 1) * sizeof *tmp);
    for (int w = 1; w < n; w *= 2) {
        for (int lo = 0; lo < n; lo += 2 * w) {
            int mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n, i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = rank_before(c, order[j], order[i]) ? order[j++] : order[i++];
            while (i < mid)
                tmp[k++] = order[i++];
            while (j < hi)
                tmp[k++] = order[j++];
        }
        memcpy(order, tmp, (size_t)n * sizeof *order);
    }
    free(tmp);
}

/* Schedules units u[0..n) of one block (the last may be a control unit) into S->bs.  Returns 0, or -1 if
 * some unit could not be placed (reported through d), or 1 without scheduling when the variant's priority
 * order is an earlier variant's (the schedule is a function of the order: it would be that variant's). */
static int schedule_block(struct sched *S, struct tsr_pack_unit *u, int n, struct tsr_pack_block_stat *lb, const char *path,
                          struct tsr_diag *d)
{
    struct prog *P = S->P;
    if (n == 1 && u[0].ev.ctl == TSR_PACK_CTL_OPAQUE) {
        struct obundle *b = block_bundle(S, 0);
        add_items(b, &u[0]);
        b->k = 1;
        b->parts[0] = unit_text(&u[0]);
        b->pw[0] = u[0].w;
        note_part(b, &u[0]);
        tsr_pack_set_words(P, b, u[0].w);
        b->ctl = TSR_PACK_CTL_OPAQUE;
        b->delay = u[0].ev.delay;
        block_bundle(S, u[0].ev.delay);
        lb->lower = lb->basic = 1 + (unsigned)u[0].ev.delay;
        lb->exact = true;
        return 0;
    }
    int ctl = block_ctl(u, n);
    int nn = ctl >= 0 ? ctl : n;   /* units scheduled by the list scheduler (not the control, its `.delay` units) */
    if (!S->pred) {
        S->pred = calloc((size_t)n + 1, sizeof *S->pred);
        S->succ = calloc((size_t)n + 1, sizeof *S->succ);
        S->ngraph = n;
        tsr_pack_graph(P->D, &P->pairs, u, n, S->pred, S->succ);
    }
    const struct tsr_pack_elist *pred = S->pred, *succ = S->succ;
    int *h = calloc((size_t)n + 1, sizeof *h);
    for (int i = n - 1; i >= 0; i--) {
        h[i] = i == ctl ? 1 + u[i].ev.delay : 1;   /* what feeds a branch goes first: its delay slots follow */
        for (int k = 0; k < succ[i].n; k++)
            if (succ[i].e[k].lat + h[succ[i].e[k].to] > h[i])
                h[i] = succ[i].e[k].lat + h[succ[i].e[k].to];
    }

    int *cyc = malloc(((size_t)n + 1) * sizeof *cyc), *order = malloc(((size_t)n + 1) * sizeof *order);
    for (int i = 0; i < n; i++) {
        cyc[i] = -1;
        order[i] = i;
    }
    /* by height, then operations only one slot can do before those that either can (a `mov` should not take
     * the ALU a later `add` needs), then program order (insertion sort: stable) */
    bool *flex = calloc((size_t)n + 1, sizeof *flex);
    uint64_t *fixed = calloc((size_t)n + 1, sizeof *fixed);   /* a pinned group holds all its slots */
    for (int i = 0; i < nn; i++) {
        flex[i] = (u[i].slots & ~u[i].only) != 0;
        fixed[i] = u[i].slots & (u[i].slots - 1) ? u[i].slots : u[i].only;   /* (two or more bits) */
    }
    int *key = calloc((size_t)n + 1, sizeof *key);   /* larger first */
    for (int i = 0; i < nn; i++)
        key[i] = S->variant == 1 ? 0 : S->variant == 2 ? h[i] * 256 + (succ[i].n < 255 ? succ[i].n : 255) : h[i];
    struct rank_ctx rk = { key, flex };
    rank_sort(order, nn, &rk);
    /* the ready list: the units whose predecessors are all placed, by rank (their place in order);
     * earliest: the first cycle their latencies allow */
    int *rank = malloc(((size_t)n + 1) * sizeof *rank), *npred = malloc(((size_t)n + 1) * sizeof *npred);
    int *earliest = calloc((size_t)n + 1, sizeof *earliest), *ready = malloc(((size_t)n + 1) * sizeof *ready);
    int rc = 0;
    for (int v = 0; v < S->variant && v < PRIORITIES; v++)
        if (S->order[v] && !memcmp(S->order[v], order, (size_t)nn * sizeof *order)) {
            rc = 1;
            goto done;
        }
    if (S->variant < PRIORITIES && n <= S->ngraph) {
        S->order[S->variant] = malloc(((size_t)nn + 1) * sizeof *order);
        memcpy(S->order[S->variant], order, (size_t)nn * sizeof *order);
    }
    int nready = 0;
    for (int r = 0; r < nn; r++)
        rank[order[r]] = r;
    for (int i = 0; i < nn; i++) {
        npred[i] = 0;
        for (int k = 0; k < pred[i].n; k++)
            npred[i] += pred[i].e[k].to < nn;
    }
    for (int r = 0; r < nn; r++)
        if (!npred[order[r]])
            ready[nready++] = order[r];
    int left = nn, limit = n * (P->D->lookback + 2) + 16;
    struct tsr_pack_ev cand = { 0 };
    for (int cycle = 0; left > 0; cycle++) {
        if (cycle > limit) {
            for (int i = 0; i < nn; i++)
                if (cyc[i] < 0) {
                    rc = tsr_diag_error(d, path, u[i].line, u[i].col, "the packer could not place this operation "
                                        "(no bundle satisfies the rules)");
                    break;
                }
            break;
        }
        struct obundle *b = block_bundle(S, cycle);
        size_t g = P->n + (size_t)cycle;
        for (bool progress = true; progress;) {
            progress = false;
            for (int ri = 0; ri < nready; ri++) {
                int i = ready[ri];
                if (earliest[i] > cycle)
                    continue;
                const char *parts[MAXPARTS];
                const uint32_t *pw[MAXPARTS];
                uint32_t w[TSR_PACK_MAX_NWORDS];
                bool filled;
                if ((b->k && (fixed[i] & b->fixed)) || !with_unit(P, b, &u[i], false, parts, pw, w))
                    continue;   /* (two ops that only one slot can do never share a bundle) */
                if (oracle(S, g, w, &cand, &filled))
                    continue;
                add_unit(P, b, &u[i], parts, pw, w, filled ? &cand : NULL);
                b->fixed |= fixed[i];
                cyc[i] = cycle;
                left--;
                memmove(ready + ri, ready + ri + 1, (size_t)(nready - ri - 1) * sizeof *ready);
                nready--;
                for (int k = 0; k < succ[i].n; k++) {   /* successors whose last predecessor this was join */
                    int s = succ[i].e[k].to;
                    if (s >= nn)
                        continue;
                    if (cycle + succ[i].e[k].lat > earliest[s])
                        earliest[s] = cycle + succ[i].e[k].lat;
                    if (--npred[s] == 0) {
                        int at = nready;
                        while (at > 0 && rank[ready[at - 1]] > rank[s])
                            at--;
                        memmove(ready + at + 1, ready + at, (size_t)(nready - at) * sizeof *ready);
                        ready[at] = s;
                        nready++;
                    }
                }
                progress = !u[i].text ? false : true;   /* a unit that cannot share keeps its bundle alone */
                if (!u[i].text)
                    b->k = MAXPARTS;                       /* closed */
                break;
            }
        }
        if (b->k == MAXPARTS)
            b->k = 1;
    }
    tsr_pack_ev_free(&cand);
    if (!rc && ctl < 0)
        pad_end(S);
    if (!rc && ctl >= 0) {
        int f = place_ctl(S, u, ctl, n, cyc, pred);
        if (f >= 0)
            rc = tsr_diag_error(d, path, u[f].line, u[f].col, "this '.delay' operation does not fit in the %d delay "
                                "slots of its %s", u[ctl].ev.delay,
                                u[ctl].ev.ctl == TSR_PACK_CTL_JUMP ? "branch" : "thread end");
    }
done:
    free(h);
    free(cyc);
    free(order);
    free(flex);
    free(fixed);
    free(key);
    free(rank);
    free(npred);
    free(earliest);
    free(ready);
    return rc;
}

/* ---- the whole program ------------------------------------------------------------------------------- */

/* The best schedule of the block so far: its bundles (an array S->bs and it exchange), their number. */
struct best { struct obundle *b; int n, cap; };

/* Takes the block's bundles S->bs[0..nb) as the best schedule (the previous best's storage becomes S->bs,
 * empty). */
static void keep(struct sched *S, struct best *B)
{
    for (int c = 0; c < B->n; c++)
        tsr_pack_ev_free(&B->b[c].ev);
    struct obundle *b = B->b;
    int cap = B->cap;
    B->b = S->bs;
    B->cap = S->cap;
    B->n = S->nb;
    S->bs = b;
    S->cap = cap;
    S->nb = 0;
}

/* Empties the block's bundles. */
static void drop(struct sched *S)
{
    for (int c = 0; c < S->nb; c++)
        tsr_pack_ev_free(&S->bs[c].ev);
    S->nb = 0;
}

int tsr_pack_schedule(const struct tsr_target *t, struct tsr_pack_unit *u, size_t n, enum tsr_pack_effort effort,
                      struct tsr_buf *out, struct tsr_pack_stats *st, const char *path, struct tsr_diag *d)
{
    struct prog P = { t, t->vdesc, NULL, 0, 0, { 0 }, false, false, NULL, 0, { NULL, 0 } };
    uint32_t nw[TSR_PACK_MAX_NWORDS] = { 0 };
    const char *idle = tsr_pack_idle_bundle(t);   /* the empty bundle (pack_idle.c), e.g. `nop` */
    if (!idle || t->assemble_one(idle, strlen(idle), 0, nw, NULL, 0))
        return tsr_diag_error(d, path, 0, 0, "target '%s' has no idle instruction: no slot has an op with the "
                              "attribute 'nop' and a template without holes that assembles alone (docs/mdl.md X12)",
                              t->name);
    tsr_pack_pairs_init(&P.pairs, u, n);
    memcpy(P.nopw, nw, sizeof P.nopw);
    P.nf = t->text->nformats;
    P.fmask = calloc(P.nf + 1, sizeof *P.fmask);
    for (unsigned f = 0; f < P.nf; f++)
        for (uint32_t x = 0; x < t->text->formats[f].nslot; x++) {
            unsigned sl = t->text->idx[t->text->formats[f].slot + x];
            if (sl < 64)
                P.fmask[f] |= (uint64_t)1 << sl;
        }
    struct sched S = { &P, NULL, 0, 0, 0, false, 0, NULL, NULL, 0, { NULL } };
    unsigned capb = 0;
    struct tsr_pack_stats local;
    if (!st)
        st = &local;
    memset(st, 0, sizeof *st);
    st->nops = (unsigned)n;
    bool falls = true;
    int rc = 0;
    P.want_lower = st != &local;
    P.search = effort != TSR_PACK_LIST;
    for (size_t s = 0; s < n && !rc;) {
        size_t e = s + 1;
        if (u[s].ev.ctl == TSR_PACK_CTL_NONE)
            while (e < n && !u[e].nlabels && u[e].ev.ctl != TSR_PACK_CTL_OPAQUE) {
                e++;
                if (u[e - 1].ev.ctl != TSR_PACK_CTL_NONE)
                    break;
            }
        while (e < n && u[e].dslot)   /* a branch's `.delay` units (pack.c: only after a branch or thread end) */
            e++;
        S.hstart = falls ? 0 : P.n;
        struct tsr_pack_block_stat stat = { 0 };  /* this block's statistics */
        /* several priorities; the shortest schedule wins (the first on ties) */
        struct best best = { NULL, 0, 0 };
        bool have = false;
        /* (a block too large for the search gets the first priority only: each costs a list schedule) */
        int nprio = e - s > TSR_PACK_LARGE ? 1 : PRIORITIES;
        for (int v = 0; v < nprio && !rc; v++) {
            S.nb = 0;
            S.variant = v;
            struct tsr_pack_block_stat lv = { 0 };
            rc = schedule_block(&S, u + s, (int)(e - s), &lv, path, d);
            if (rc == 1) {   /* an earlier variant's order: the same schedule, which cannot be shorter */
                rc = 0;
                continue;
            }
            if (v == 0)
                stat = lv;
            if (!rc && (!have || S.nb < best.n)) {
                keep(&S, &best);
                have = true;
            }
            drop(&S);
        }
        /* the lower bound (statistics), and the search for a schedule shorter than the list scheduler's:
         * the relaxation's shortest, if it is shorter and the real bundles can be built from it */
        int nu = (int)(e - s), ctl = block_ctl(u + s, nu);
        /* with `.delay` units: the bound of the block without them (a schedule of the block, without them, is
         * one of the rest: a lower bound, not exact), and no search (the relaxation has no delay units); blocks
         * of more than TSR_PACK_LARGE units are list scheduled only */
        bool dsl = ctl >= 0 && ctl < nu - 1, search = P.search && !dsl && nu <= TSR_PACK_LARGE;
        if (!rc && S.pred && (P.want_lower || search)) {
            int nb = dsl ? ctl + 1 : nu;
            struct tsr_pack_found f;
            stat.lower = tsr_pack_lower_bound(t, u + s, nb, ctl >= 0 ? ctl : nb, S.pred, ctl, &stat.basic,
                                               &stat.exact, (unsigned)best.n, P.want_lower, search ? &f : NULL);
            stat.exact &= !dsl;
            for (int k = 0; search && k < f.count; k++) {   /* the shortest whose real bundles can be built */
                bool ok = realize(&S, u + s, nu, ctl, f.at + (size_t)k * (size_t)nu, (int)f.len[k]);
                if (ok) {
                    keep(&S, &best);
                    stat.searched = true;
                    st->searched++;
                }
                drop(&S);
                if (ok)
                    break;
            }
            if (search)
                tsr_pack_found_free(&f);
        }
        if (!rc) {   /* the best schedule's bundles become the block's (S.bs holds none after drop) */
            free(S.bs);
            S.bs = best.b;
            S.cap = best.cap;
            S.nb = best.n;
        } else {
            for (int c = 0; c < best.n; c++)
                tsr_pack_ev_free(&best.b[c].ev);
            free(best.b);
        }
        free_graph(&S);
        if (st->nblocks == capb) {
            capb = capb ? 2 * capb : 16;
            st->blocks = realloc(st->blocks, capb * sizeof *st->blocks);
        }
        int bi = (int)st->nblocks++;
        stat.line = u[s].line;
        stat.nops = (unsigned)(e - s);
        stat.bundles = (unsigned)S.nb;
        st->blocks[bi] = stat;
        st->nbundles += (unsigned)S.nb;
        st->lower += stat.lower;
        st->basic += stat.basic;
        if (P.n == 0 && S.nb > 0) {   /* the first block's array becomes the program's (one huge block: no copy) */
            free(P.b);
            P.b = S.bs;
            P.cap = (size_t)S.cap;
            S.bs = NULL;
            S.cap = 0;
        }
        for (int c = 0; c < S.nb; c++) {
            struct obundle *b = S.bs ? tsr_pack_prog_insert(&P, P.n) : &P.b[P.n++];
            if (S.bs)
                *b = S.bs[c];
            b->block = bi;
            if (c == 0) {
                b->labels = u[s].labels;
                b->nlabels = u[s].nlabels;
            }
        }
        const struct tsr_pack_unit *last = &u[ctl >= 0 ? s + (size_t)ctl : e - 1];
        falls = last->ev.ctl == TSR_PACK_CTL_NONE || last->ev.falls;
        s = e;
    }
    free(S.bs);
    if (!rc)
        rc = tsr_pack_mend(&P, out->data ? out->data : "", out->len, path, st, d);
    if (!rc)
        tsr_pack_emit(&P, out);
    for (size_t i = 0; i < P.n; i++)
        tsr_pack_ev_free(&P.b[i].ev);
    free(P.b);
    free(P.fmask);
    tsr_pack_pairs_fini(&P.pairs);
    if (rc || st == &local)
        tsr_pack_stats_free(st);
    return rc;
}
