/* The packer's scheduler (docs/pack.md "Algorithm"): per basic block, a dependency graph from the
 * units' effects, cycle-by-cycle list scheduling by latency-weighted height where the target's assembler
 * decides whether a bundle may take one more unit, the branch / thread end placed as late as its delay
 * slots allow, and latencies drained at the block's end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pack_int.h"
#include "fileout.h"
#include "target.h"

struct edge { int to, lat; };
struct elist { struct edge *e; int n, cap; };

static void add_edge(struct elist *l, int to, int lat)
{
    for (int i = 0; i < l->n; i++)
        if (l->e[i].to == to) {
            if (lat > l->e[i].lat)
                l->e[i].lat = lat;
            return;
        }
    if (l->n == l->cap)
        l->e = realloc(l->e, (size_t)(l->cap = l->cap ? 2 * l->cap : 8) * sizeof *l->e);
    l->e[l->n++] = (struct edge){ to, lat };
}

struct ilist { int *v; int n, cap; };
static void ipush(struct ilist *l, int x)
{
    if (l->n == l->cap)
        l->v = realloc(l->v, (size_t)(l->cap = l->cap ? 2 * l->cap : 8) * sizeof *l->v);
    l->v[l->n++] = x;
}

/* Tries to add text `add` to the bundle parts (k of them), at any position; on success rewrites parts
 * (inserting it) and returns 1. */
static int try_merge(const struct tsr_target *t, const char **parts, int k, const char *add)
{
    struct tsr_buf b = { 0 };
    uint32_t w[8];
    for (int pos = 0; pos <= k; pos++) {
        tsr_buf_clear(&b);
        for (int i = 0, j = 0; i <= k; i++) {
            const char *s = i == pos ? add : parts[j++];
            if (i)
                tsr_buf_puts(&b, "; ");
            tsr_buf_puts(&b, s);
        }
        if (!t->assemble_one(b.data, b.len, 0, w, NULL, 0)) {
            memmove(parts + pos + 1, parts + pos, (size_t)(k - pos) * sizeof *parts);
            parts[pos] = add;
            tsr_buf_free(&b);
            return 1;
        }
    }
    tsr_buf_free(&b);
    return 0;
}

#define MAXPARTS 8

struct bundle { const char *parts[MAXPARTS]; int k; uint32_t res; };

/* Slot occupancy of a unit's solo instruction, for the resource bound. */
static void slot_use(const struct tsr_target *t, const uint32_t *w, int *use, bool *fixed)
{
    void *inst = calloc(1, t->inst_size);
    t->decode(w, inst);
    unsigned f = t->inst_format(inst);
    for (unsigned s = 0; s < t->nslots; s++) {
        use[s] = 0;
        fixed[s] = false;
    }
    if (f != TSR_NO_FORMAT)
        for (unsigned s = 0; s < t->nslots; s++) {
            unsigned op = t->inst_op(inst, s);
            if (op == TSR_NO_OP || !strcmp(t->op_names[op], "nop") || !strcmp(t->op_names[op], "none") ||
                !strcmp(t->op_names[op], "idle"))
                continue;
            use[s] = 1;
            fixed[s] = true;
            for (unsigned o = 0; o < t->nops; o++)
                if (t->op_slot[o] != s && !strcmp(t->op_names[o], t->op_names[op]))
                    fixed[s] = false;
        }
    free(inst);
}

static void emit_bundle(struct tsr_buf *out, const struct bundle *b)
{
    tsr_buf_puts(out, "    ");
    if (!b->k)
        tsr_buf_puts(out, "nop");
    for (int i = 0; i < b->k; i++) {
        if (i)
            tsr_buf_puts(out, "; ");
        tsr_buf_puts(out, b->parts[i]);
    }
    tsr_buf_puts(out, "\n");
}

static const char *unit_text(const struct tsr_pack_unit *x)
{
    if (x->info.ctl == TSR_PACK_CTL_JUMP && x->src)
        return x->src;
    return x->text ? x->text : x->full;
}

/* Schedules block u[0..n) (the last may be a control unit); appends its bundles.  Returns the count. */
static unsigned schedule_block(const struct tsr_target *t, const struct tsr_pack_model *m, struct tsr_pack_unit *u,
                               int n, struct tsr_buf *out, unsigned *lower)
{
    for (int i = 0; i < n && i < 1; i++)
        for (int l = 0; l < u[i].nlabels; l++)
            tsr_buf_printf(out, "%s:\n", u[i].labels[l]);
    if (n == 1 && u[0].info.ctl == TSR_PACK_CTL_OPAQUE) {
        tsr_buf_printf(out, "    %s\n", u[0].src ? u[0].src : u[0].full);
        *lower = 1;
        return 1;
    }
    int ctl = n > 0 && (u[n - 1].info.ctl == TSR_PACK_CTL_JUMP || u[n - 1].info.ctl == TSR_PACK_CTL_END) ? n - 1 : -1;
    int nn = ctl >= 0 ? n - 1 : n;   /* schedulable units */
    struct elist *pred = calloc((size_t)n + 1, sizeof *pred), *succ = calloc((size_t)n + 1, sizeof *succ);
    int *lastw = malloc((size_t)m->nres * sizeof *lastw);
    struct ilist *readers = calloc((size_t)m->nres, sizeof *readers);
    for (int r = 0; r < m->nres; r++)
        lastw[r] = -1;
    for (int j = 0; j < n; j++) {
        const struct tsr_pack_info *b = &u[j].info;
        for (int k = 0; k < b->neff; k++) {
            int r = b->eff[k].res;
            int wr = lastw[r];
            if (wr >= 0) {
                int l = tsr_pack_edge(&u[wr].info, b);
                if (l >= 0)
                    add_edge(&pred[j], wr, l);
            }
            if (b->eff[k].write)
                for (int q = 0; q < readers[r].n; q++)
                    if (readers[r].v[q] != j)
                        add_edge(&pred[j], readers[r].v[q], 0);
        }
        for (int k = 0; k < b->neff; k++) {
            int r = b->eff[k].res;
            if (b->eff[k].write) {
                lastw[r] = j;
                readers[r].n = 0;
            } else {
                ipush(&readers[r], j);
            }
        }
    }
    for (int j = 0; j < n; j++)
        for (int k = 0; k < pred[j].n; k++)
            add_edge(&succ[pred[j].e[k].to], j, pred[j].e[k].lat);
    /* heights and earliest starts (critical path) */
    int *h = calloc((size_t)n + 1, sizeof *h), *est = calloc((size_t)n + 1, sizeof *est);
    for (int i = n - 1; i >= 0; i--) {
        h[i] = 1;
        for (int k = 0; k < succ[i].n; k++)
            if (succ[i].e[k].lat + h[succ[i].e[k].to] > h[i])
                h[i] = succ[i].e[k].lat + h[succ[i].e[k].to];
    }
    int cp = 0;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < pred[i].n; k++) {
            int l = pred[i].e[k].lat;
            if (i == ctl && l < 1)
                l = 1;
            if (est[pred[i].e[k].to] + l > est[i])
                est[i] = est[pred[i].e[k].to] + l;
        }
        int end = i == ctl ? est[i] + 1 + u[i].info.delay : est[i] + 1;
        if (end > cp)
            cp = end;
    }
    /* resource bound */
    int cnt[64] = { 0 }, fixedcnt[64] = { 0 }, total = 0;
    int maxslots = 1;
    const struct tsr_tc_isa *isa = t->text;
    (void)isa;
    for (int i = 0; i < nn; i++) {
        int use[64];
        bool fx[64];
        slot_use(t, u[i].w, use, fx);
        for (unsigned s = 0; s < t->nslots && s < 64; s++) {
            cnt[s] += use[s];
            fixedcnt[s] += fx[s];
            total += use[s];
        }
    }
    for (unsigned s = 0; s < t->nslots && s < 64; s++)
        if (cnt[s] > 0 && cnt[s] != fixedcnt[s])
            maxslots++;
    int rb = (total + maxslots - 1) / (maxslots > 1 ? maxslots - 0 : 1);
    rb = maxslots > 1 ? (total + maxslots - 1) / maxslots : total;
    for (unsigned s = 0; s < t->nslots && s < 64; s++)
        if (fixedcnt[s] > rb)
            rb = fixedcnt[s];
    if (ctl >= 0)
        rb += 1;
    *lower = (unsigned)(rb > cp ? rb : cp);
    if (*lower < 1 && n > 0)
        *lower = 1;

    /* list scheduling of units 0..nn-1 */
    int *cyc = malloc((size_t)n * sizeof *cyc + 1);
    int *order = malloc((size_t)n * sizeof *order + 1);
    for (int i = 0; i < n; i++) {
        cyc[i] = -1;
        order[i] = i;
    }
    for (int i = 1; i < nn; i++)   /* insertion sort: height desc, program order */
        for (int j = i; j > 0 && h[order[j]] > h[order[j - 1]]; j--) {
            int x = order[j]; order[j] = order[j - 1]; order[j - 1] = x;
        }
    int nb = 0, capb = 16;
    struct bundle *bs = calloc((size_t)capb, sizeof *bs);
    int left = nn;
    for (int cycle = 0; left > 0; cycle++) {
        if (nb == capb)
            bs = realloc(bs, (size_t)(capb *= 2) * sizeof *bs);
        struct bundle *b = &bs[nb++];
        memset(b, 0, sizeof *b);
        bool solo = false;
        for (bool progress = true; progress && !solo;) {
            progress = false;
            for (int oi = 0; oi < nn; oi++) {
                int i = order[oi];
                if (cyc[i] >= 0)
                    continue;
                bool ready = true;
                for (int k = 0; k < pred[i].n && ready; k++) {
                    int p = pred[i].e[k].to;
                    if (cyc[p] < 0 || cyc[p] + pred[i].e[k].lat > cycle)
                        ready = false;
                }
                if (!ready || (b->res & u[i].info.bundle_res))
                    continue;
                const char *txt = unit_text(&u[i]);
                if (b->k == 0) {
                    b->parts[b->k++] = txt;
                    solo = !u[i].text;
                } else if (!u[i].text || b->k >= MAXPARTS - 1 || !try_merge(t, b->parts, b->k, txt)) {
                    continue;
                } else {
                    b->k++;
                }
                b->res |= u[i].info.bundle_res;
                cyc[i] = cycle;
                left--;
                progress = true;
                break;
            }
        }
    }
    int L = nb;
    int len = L;
    int bpos = -1;
    if (ctl >= 0) {
        int delay = u[ctl].info.delay;
        int b0 = L - delay > 0 ? L - delay : 0;
        for (int k = 0; k < pred[ctl].n; k++) {
            int p = pred[ctl].e[k].to, l = pred[ctl].e[k].lat < 1 ? 1 : pred[ctl].e[k].lat;
            if (cyc[p] + l > b0)
                b0 = cyc[p] + l;
        }
        for (bpos = b0;; bpos++) {
            bool ok = true;
            for (int i = 0; i < nn && ok; i++)
                if (cyc[i] >= bpos && cyc[i] + 1 + tsr_pack_maxlat(&u[i].info) > bpos + 1 + delay)
                    ok = false;
            if (ok)
                break;
        }
        len = bpos + 1 + delay;
    } else {
        for (int i = 0; i < nn; i++)
            if (cyc[i] + tsr_pack_maxlat(&u[i].info) > len)
                len = cyc[i] + tsr_pack_maxlat(&u[i].info);
    }
    struct bundle empty = { { 0 }, 0, 0 };
    for (int pos = 0, c = 0; pos < len; pos++) {
        if (pos == bpos) {
            struct bundle cb = { { unit_text(&u[ctl]) }, 1, 0 };
            emit_bundle(out, &cb);
            continue;
        }
        emit_bundle(out, c < nb ? &bs[c] : &empty);
        c++;
    }
    for (int i = 0; i < n; i++) {
        free(pred[i].e);
        free(succ[i].e);
    }
    for (int r = 0; r < m->nres; r++)
        free(readers[r].v);
    free(readers);
    free(lastw);
    free(pred);
    free(succ);
    free(h);
    free(est);
    free(cyc);
    free(order);
    free(bs);
    return (unsigned)len;
}

int tsr_pack_schedule(const struct tsr_target *t, struct tsr_pack_unit *u, size_t n, struct tsr_buf *out,
                      struct tsr_pack_stats *st)
{
    const struct tsr_pack_model *m = tsr_pack_model_for(t);
    size_t s = 0;
    unsigned capb = 0;
    if (st) {
        memset(st, 0, sizeof *st);
        st->nops = (unsigned)n;
    }
    while (s < n) {
        size_t e = s + 1;
        if (u[s].info.ctl == TSR_PACK_CTL_NONE)
            while (e < n && !u[e].nlabels && u[e].info.ctl != TSR_PACK_CTL_OPAQUE) {
                e++;
                if (u[e - 1].info.ctl != TSR_PACK_CTL_NONE)
                    break;
            }
        unsigned lower = 0;
        unsigned nbund = schedule_block(t, m, u + s, (int)(e - s), out, &lower);
        if (st) {
            if (st->nblocks == capb)
                st->blocks = realloc(st->blocks, (capb = capb ? 2 * capb : 16) * sizeof *st->blocks);
            st->blocks[st->nblocks++] = (struct tsr_pack_block_stat){ u[s].line, (unsigned)(e - s), nbund, lower };
            st->nbundles += nbund;
            st->lower += lower;
        }
        s = e;
    }
    return 0;
}
