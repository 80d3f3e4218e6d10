/* The hazard validator's engine (validate.h): control flow of a program, paths back from each bundle, and
 * the checks of resources and rules over the events the generated code lists. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "sim/sim.h"
#include "validate/validate.h"

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) {
        fputs("tessera: out of memory\n", stderr);
        abort();
    }
    return p;
}

void tsr_vev_text(const struct tsr_vdesc *D, const struct tsr_vev *e, char *buf, size_t n)
{
    const char *cond = e->cond ? " (conditionally)" : "";
    switch (e->kind) {
    case TSR_V_RSTATE:
    case TSR_V_RLATE:
    case TSR_V_WSTATE: {
        const char *verb = e->kind == TSR_V_RSTATE ? "reads" : e->kind == TSR_V_RLATE ? "reads at commit" : "writes";
        const char *nm = e->id >= 0 && e->id < D->nstates ? D->state_names[e->id] : "?";
        if (e->id >= 0 && e->id < D->nstates && D->state_count[e->id] == 0)
            snprintf(buf, n, "%s %s%s", verb, nm, cond);
        else if (e->addr < 0)
            snprintf(buf, n, "%s %s[?]%s", verb, nm, cond);
        else
            snprintf(buf, n, "%s %s[%" PRId64 "]%s", verb, nm, e->addr, cond);
        return;
    }
    case TSR_V_RSPACE:
    case TSR_V_WSPACE: {
        const char *verb = e->kind == TSR_V_RSPACE ? "reads" : "writes";
        const char *nm = e->id >= 0 && e->id < D->nspaces ? D->space_names[e->id] : "?";
        if (e->addr < 0)
            snprintf(buf, n, "%s %s[?]%s", verb, nm, cond);
        else
            snprintf(buf, n, "%s %s[%" PRId64 "]%s", verb, nm, e->addr, cond);
        return;
    }
    case TSR_V_USE:
        if (e->val == TSR_V_NOVAL)
            snprintf(buf, n, "uses %s%s", e->id >= 0 && e->id < D->nres ? D->res[e->id].name : "?", cond);
        else
            snprintf(buf, n, "uses %s = %" PRId64 "%s", e->id >= 0 && e->id < D->nres ? D->res[e->id].name : "?",
                     e->val, cond);
        return;
    case TSR_V_OP:
        snprintf(buf, n, "issues %s", e->id >= 0 && e->id < D->nops ? D->op_names[e->id] : "?");
        return;
    case TSR_V_JUMP:
        if (e->val >= 0)
            snprintf(buf, n, "branches to 0x%08" PRIx64 "%s", (uint64_t)e->val, e->cond ? " (conditional)" : "");
        else
            snprintf(buf, n, "branches%s", e->cond ? " (conditional)" : "");
        return;
    case TSR_V_HALT:
        snprintf(buf, n, "ends the thread");
        return;
    case TSR_V_START:
        snprintf(buf, n, "starts the program");
        return;
    }
    snprintf(buf, n, "?");
}

/* ---- one bundle and its history ---------------------------------------------------------------------- */
struct ctx {
    const struct tsr_vdesc *D;
    tsr_vreport_fn fn;
    void *fctx;
    size_t count;
    /* reports of the current bundle, to drop repeats from other paths: (rule, other) */
    struct { int rule; size_t other; } *seen;
    int nseen, capseen;
};

struct hist {
    const struct tsr_vbundle *b[TSR_V_MAXDIST + 1];   /* b[0] = the bundle checked, b[k] = k back */
    size_t idx[TSR_V_MAXDIST + 1];
    int len;
};

static bool seen(struct ctx *c, int rule, size_t other)
{
    for (int i = 0; i < c->nseen; i++)
        if (c->seen[i].rule == rule && c->seen[i].other == other)
            return true;
    if (c->nseen == c->capseen) {
        c->capseen = c->capseen ? 2 * c->capseen : 16;
        void *p = realloc(c->seen, (size_t)c->capseen * sizeof *c->seen);
        if (!p) {
            fputs("tessera: out of memory\n", stderr);
            abort();
        }
        c->seen = p;
    }
    c->seen[c->nseen].rule = rule;
    c->seen[c->nseen++].other = other;
    return false;
}

static void report(struct ctx *c, const struct hist *h, int rule, int k, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void report(struct ctx *c, const struct hist *h, int rule, int k, const char *fmt, ...)
{
    if (seen(c, rule, h->idx[k]))
        return;
    struct tsr_vviol v;
    memset(&v, 0, sizeof v);
    v.rule = rule;
    if (rule >= 0) {
        v.name = c->D->rules[rule].name;
        v.ref = c->D->rules[rule].ref;
    } else {
        v.name = c->D->res[-1 - rule].name;
        v.ref = c->D->res[-1 - rule].ref;
    }
    v.at = h->idx[0];
    v.pc = h->b[0]->pc;
    v.other = h->idx[k];
    v.other_pc = h->b[k]->pc;
    v.dist = k;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v.text, sizeof v.text, fmt, ap);
    va_end(ap);
    c->count++;
    if (c->fn)
        c->fn(c->fctx, &v);
}

bool tsr_vev_same(const struct tsr_vev *a, const struct tsr_vev *b)
{
    bool sa = a->kind == TSR_V_RSTATE || a->kind == TSR_V_WSTATE || a->kind == TSR_V_RLATE;
    bool sb = b->kind == TSR_V_RSTATE || b->kind == TSR_V_WSTATE || b->kind == TSR_V_RLATE;
    bool pa = a->kind == TSR_V_RSPACE || a->kind == TSR_V_WSPACE;
    bool pb = b->kind == TSR_V_RSPACE || b->kind == TSR_V_WSPACE;
    if (!((sa && sb) || (pa && pb)) || a->id != b->id)
        return false;
    return a->addr < 0 || b->addr < 0 || a->addr == b->addr;   /* an unknown element may be any */
}

/* Resources and one-bundle rules of h->b[0]. */
static void check_bundle(struct ctx *c, const struct hist *h)
{
    const struct tsr_vdesc *D = c->D;
    const struct tsr_vbundle *b = h->b[0];
    char t1[96], t2[96];
    for (int r = 0; r < D->nres; r++) {
        int n = 0, first = -1, second = -1;
        for (int i = 0; i < b->nev; i++) {
            const struct tsr_vev *e = &b->ev[i];
            if (e->kind != TSR_V_USE || e->id != r)
                continue;
            bool dup = false;
            for (int j = 0; j < i && !dup; j++) {
                const struct tsr_vev *x = &b->ev[j];
                if (x->kind != TSR_V_USE || x->id != r)
                    continue;
                if (e->val == TSR_V_NOVAL)
                    dup = x->val == TSR_V_NOVAL && x->origin == e->origin && x->addr == e->addr;
                else
                    dup = x->val == e->val;
            }
            if (dup)
                continue;
            if (n == 0)
                first = i;
            else if (n == 1)
                second = i;
            n++;
        }
        if (n > D->res[r].count) {
            /* describe the accesses behind the first two uses */
            const struct tsr_vev *e1 = &b->ev[first], *e2 = &b->ev[second];
            e1 = e1->link >= 0 && e1->link < b->nev ? &b->ev[e1->link] : e1;
            e2 = e2->link >= 0 && e2->link < b->nev ? &b->ev[e2->link] : e2;
            tsr_vev_text(D, e1, t1, sizeof t1);
            tsr_vev_text(D, e2, t2, sizeof t2);
            report(c, h, -1 - r, 0, "%d uses in one instruction (at most %d): %s, %s%s", n, D->res[r].count, t1, t2,
                   n > 2 ? ", ..." : "");
        }
    }
    for (int r = 0; r < D->nrules; r++) {
        const struct tsr_vrule *R = &D->rules[r];
        if (R->kind != TSR_VR_BUNDLE || R->npat < 1 || R->npat > 8)
            continue;
        /* backtracking: a distinct event for each pattern */
        int pick[8], p = 0;
        pick[0] = -1;
        while (p >= 0) {
            int i = pick[p] + 1;
            for (; i < b->nev; i++) {
                bool used = false;
                for (int q = 0; q < p && !used; q++)
                    used = pick[q] == i;
                if (!used && R->pat[p](&b->ev[i], b->f))
                    break;
            }
            if (i >= b->nev) {
                p--;
                continue;
            }
            pick[p] = i;
            if (p + 1 == R->npat)
                break;
            pick[++p] = -1;
        }
        if (p < 0)
            continue;
        tsr_vev_text(D, &b->ev[pick[0]], t1, sizeof t1);
        if (R->npat == 1) {
            report(c, h, r, 0, "%s", t1);
        } else {
            tsr_vev_text(D, &b->ev[pick[1]], t2, sizeof t2);
            report(c, h, r, 0, "%s and %s in one instruction", t1, t2);
        }
    }
}

/* Rules between h->b[0] and the bundles before it on this path. */
static void check_path(struct ctx *c, const struct hist *h)
{
    const struct tsr_vdesc *D = c->D;
    const struct tsr_vbundle *b = h->b[0];
    char ta[96], tb[96];
    for (int r = 0; r < D->nrules; r++) {
        const struct tsr_vrule *R = &D->rules[r];
        if (R->kind == TSR_VR_BUNDLE || R->npat != 2)
            continue;
        for (int i = 0; i < b->nev; i++) {
            const struct tsr_vev *eb = &b->ev[i];
            if (!R->pat[1](eb, b->f))
                continue;
            if (R->kind == TSR_VR_WINDOW) {
                for (int k = R->lo; k <= R->hi && k < h->len; k++) {
                    const struct tsr_vbundle *a = h->b[k];
                    for (int j = 0; j < a->nev; j++) {
                        if ((k == 0 && j == i) || !R->pat[0](&a->ev[j], a->f))
                            continue;
                        tsr_vev_text(D, &a->ev[j], ta, sizeof ta);
                        tsr_vev_text(D, eb, tb, sizeof tb);
                        if (k == 0)
                            report(c, h, r, 0, "%s and %s in one instruction (forbidden %d..%d instructions apart)",
                                   ta, tb, R->lo, R->hi);
                        else
                            report(c, h, r, k, "%s; the instruction %d before (0x%08" PRIx32 ") %s (forbidden %d..%d "
                                   "instructions apart)", tb, k, a->pc, ta, R->lo, R->hi);
                        break;
                    }
                }
                continue;
            }
            /* latency: the nearest earlier A (with a max, as far back as the paths go) */
            int far = R->hi >= 0 ? TSR_V_MAXDIST : R->lo - 1;
            for (int k = 1; k <= far && k < h->len; k++) {
                const struct tsr_vbundle *a = h->b[k];
                int j = 0;
                for (; j < a->nev; j++)
                    if (R->pat[0](&a->ev[j], a->f) && (!R->same || tsr_vev_same(&a->ev[j], eb)))
                        break;
                if (j == a->nev)
                    continue;
                if (k < R->lo || (R->hi >= 0 && k > R->hi)) {
                    tsr_vev_text(D, &a->ev[j], ta, sizeof ta);
                    tsr_vev_text(D, eb, tb, sizeof tb);
                    if (k < R->lo)
                        report(c, h, r, k, "%s; the instruction %d before (0x%08" PRIx32 ") %s (at least %d apart)",
                               tb, k, a->pc, ta, R->lo);
                    else
                        report(c, h, r, k, "%s; the instruction %d before (0x%08" PRIx32 ") %s (at most %d apart)",
                               tb, k, a->pc, ta, R->hi);
                }
                break;
            }
        }
    }
}

/* ---- whole programs ------------------------------------------------------------------------------------ */
struct prog {
    size_t n;
    struct tsr_vbundle *b;
    size_t *pstart, *pcount, *preds;   /* predecessors of i: preds[pstart[i] .. pstart[i] + pcount[i]) */
};
#define MAX_PATHS 4096                 /* paths checked back from one bundle */

static void paths(struct ctx *c, const struct prog *P, struct hist *h, int depth, int *budget)
{
    size_t i = h->idx[depth - 1];
    size_t s = P->pstart[i], e = s + P->pcount[i];
    if (depth > c->D->lookback || depth > TSR_V_MAXDIST || s == e) {
        if (*budget > 0) {
            (*budget)--;
            h->len = depth;
            check_path(c, h);
        }
        return;
    }
    for (size_t p = s; p < e && *budget > 0; p++) {
        h->b[depth] = &P->b[P->preds[p]];
        h->idx[depth] = P->preds[p];
        paths(c, P, h, depth + 1, budget);
    }
}

size_t tsr_validate(const struct tsr_vdesc *D, const uint32_t *w, size_t n, uint64_t base, tsr_vreport_fn fn,
                    void *fctx)
{
    struct ctx c = { D, fn, fctx, 0, NULL, 0, 0 };
    struct prog P = { n, NULL, NULL, NULL, NULL };
    if (!n)
        return 0;
    P.b = xcalloc(n, sizeof *P.b);
    uint64_t *fields = xcalloc(n * (D->nfields ? D->nfields : 1), sizeof *fields);
    for (size_t i = 0; i < n; i++) {
        P.b[i].f = fields + i * (D->nfields ? D->nfields : 1);
        D->events(w + i * D->nwords, (uint32_t)(base + i * D->pc_step), &P.b[i]);
    }
    tsr_vb_add(&P.b[0], TSR_V_START, -1, 1, 0, 0);
    /* control flow: i -> i + 1 unless an always-taken branch or a halt ends at i (its last delay slot);
     * last delay slot -> target for branches to a constant address inside the program */
    struct edge { size_t from, to; } *E = xcalloc(2 * n, sizeof *E);
    size_t nedge = 0, capedge = 2 * n;
    bool *ft = xcalloc(n, sizeof *ft);
    for (size_t i = 0; i + 1 < n; i++)
        ft[i] = true;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < P.b[i].nev; k++) {
            const struct tsr_vev *e = &P.b[i].ev[k];
            if (e->kind != TSR_V_JUMP && e->kind != TSR_V_HALT)
                continue;
            size_t last = i + (size_t)(e->delay > 0 ? e->delay : 0);
            if (last >= n)
                continue;
            if (!e->cond)
                ft[last] = false;
            if (e->kind != TSR_V_JUMP || e->val < 0 || (uint64_t)e->val < base ||
                ((uint64_t)e->val - base) % D->pc_step || ((uint64_t)e->val - base) / D->pc_step >= n)
                continue;
            if (nedge == capedge) {
                capedge *= 2;
                E = realloc(E, capedge * sizeof *E);
                if (!E) {
                    fputs("tessera: out of memory\n", stderr);
                    abort();
                }
            }
            E[nedge].from = last;
            E[nedge++].to = (size_t)(((uint64_t)e->val - base) / D->pc_step);
        }
    for (size_t i = 0; i + 1 < n; i++) {
        if (!ft[i])
            continue;
        if (nedge == capedge) {
            capedge *= 2;
            E = realloc(E, capedge * sizeof *E);
            if (!E) {
                fputs("tessera: out of memory\n", stderr);
                abort();
            }
        }
        E[nedge].from = i;
        E[nedge++].to = i + 1;
    }
    P.pstart = xcalloc(n + 1, sizeof *P.pstart);
    for (size_t k = 0; k < nedge; k++)
        P.pstart[E[k].to + 1]++;
    for (size_t i = 0; i < n; i++)
        P.pstart[i + 1] += P.pstart[i];
    P.preds = xcalloc(nedge + 1, sizeof *P.preds);
    size_t *fill = xcalloc(n, sizeof *fill);
    for (size_t k = 0; k < nedge; k++) {
        size_t t = E[k].to, q = P.pstart[t];
        bool dup = false;      /* a taken edge that is also the fall-through, or two branches alike */
        for (size_t x = q; x < q + fill[t] && !dup; x++)
            dup = P.preds[x] == E[k].from;
        if (!dup)
            P.preds[q + fill[t]++] = E[k].from;
    }
    /* pstart[i] .. pstart[i] + fill[i] are used: keep the counts in a second array */
    P.pcount = fill;
    for (size_t j = 0; j < n; j++) {
        struct hist h;
        h.b[0] = &P.b[j];
        h.idx[0] = j;
        h.len = 1;
        c.nseen = 0;
        check_bundle(&c, &h);
        int budget = MAX_PATHS;
        paths(&c, &P, &h, 1, &budget);
    }
    free(fill);
    free(E);
    free(ft);
    free(P.pstart);
    free(P.preds);
    free(fields);
    free(P.b);
    free(c.seen);
    return c.count;
}

struct diagctx { struct tsr_diag *d; const char *path; };

static void to_diag(void *p, const struct tsr_vviol *v)
{
    struct diagctx *x = p;
    tsr_diag_error(x->d, x->path, 0, 0, "0x%08" PRIx32 ": %s %s: %s (ref: %s)", v->pc,
                   v->rule >= 0 ? "rule" : "resource", v->name, v->text, v->ref ? v->ref : "none");
}

int tsr_validate_diag(const struct tsr_vdesc *D, const uint32_t *w, size_t n, uint64_t base, struct tsr_diag *d,
                      const char *path)
{
    struct diagctx x = { d, path };
    return tsr_validate(D, w, n, base, to_diag, &x) ? -1 : 0;
}

/* ---- streams ------------------------------------------------------------------------------------------- */
struct tsr_vstream {
    const struct tsr_vdesc *D;
    size_t steps;
    int nring;                      /* valid entries */
    int head;                       /* index of the newest */
    struct tsr_vbundle ring[TSR_V_MAXDIST + 1];
    uint64_t *fields;
    struct ctx c;
};

struct tsr_vstream *tsr_vstream_new(const struct tsr_vdesc *D)
{
    struct tsr_vstream *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    unsigned nf = D->nfields ? D->nfields : 1;
    s->fields = calloc((size_t)(TSR_V_MAXDIST + 1) * nf, sizeof *s->fields);
    if (!s->fields) {
        free(s);
        return NULL;
    }
    s->D = D;
    for (int i = 0; i <= TSR_V_MAXDIST; i++)
        s->ring[i].f = s->fields + (size_t)i * nf;
    s->c.D = D;
    return s;
}

void tsr_vstream_free(struct tsr_vstream *s)
{
    if (!s)
        return;
    free(s->fields);
    free(s->c.seen);
    free(s);
}

void tsr_vstream_reset(struct tsr_vstream *s)
{
    s->steps = 0;
    s->nring = 0;
}

size_t tsr_vstream_step(struct tsr_vstream *s, const uint32_t *w, uint32_t pc, tsr_vreport_fn fn, void *fctx)
{
    const struct tsr_vdesc *D = s->D;
    int keep = D->lookback + 1 < TSR_V_MAXDIST + 1 ? D->lookback + 1 : TSR_V_MAXDIST + 1;
    s->head = (s->head + 1) % (TSR_V_MAXDIST + 1);
    struct tsr_vbundle *b = &s->ring[s->head];
    uint64_t *f = b->f;
    memset(b, 0, sizeof *b);
    b->f = f;
    D->events(w, pc, b);
    if (s->steps == 0)
        tsr_vb_add(b, TSR_V_START, -1, 1, 0, 0);
    if (s->nring < keep)
        s->nring++;
    struct hist h;
    for (int k = 0; k < s->nring; k++) {
        h.b[k] = &s->ring[(s->head - k + TSR_V_MAXDIST + 1) % (TSR_V_MAXDIST + 1)];
        h.idx[k] = s->steps - (size_t)k;
    }
    h.len = s->nring;
    s->c.fn = fn;
    s->c.fctx = fctx;
    s->c.count = 0;
    s->c.nseen = 0;
    check_bundle(&s->c, &h);
    check_path(&s->c, &h);
    s->steps++;
    return s->c.count;
}

struct simctx { struct tsr_sim_ctl *ctl; int rc; };

static void to_sim(void *p, const struct tsr_vviol *v)
{
    struct simctx *x = p;
    int rc = tsr_sim_hazard(x->ctl, v->pc, "%s %s at 0x%08" PRIx32 ": %s", v->rule >= 0 ? "rule" : "resource", v->name,
                            v->pc, v->text);
    if (rc < 0 && x->rc == 0)
        x->rc = rc;
}

int tsr_vstream_sim(struct tsr_vstream *s, struct tsr_sim_ctl *ctl, const uint32_t *w, uint32_t pc)
{
    struct simctx x = { ctl, 0 };
    tsr_vstream_step(s, w, pc, to_sim, &x);
    return x.rc;
}

size_t tsr_validate_hist(const struct tsr_vdesc *D, const struct tsr_vbundle *const *b, int len, tsr_vreport_fn fn,
                         void *fctx)
{
    struct ctx c = { D, fn, fctx, 0, NULL, 0, 0 };
    struct hist h;
    h.len = len < 1 ? 1 : len > TSR_V_MAXDIST + 1 ? TSR_V_MAXDIST + 1 : len;
    for (int k = 0; k < h.len; k++) {
        h.b[k] = b[k];
        h.idx[k] = (size_t)k;
    }
    check_bundle(&c, &h);
    check_path(&c, &h);
    free(c.seen);
    return c.count;
}
