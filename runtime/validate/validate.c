/* The hazard validator's engine (validate.h): the checks of resources and rules over the events the generated
 * code lists, for one bundle and the history of bundles before it, and the check of bundles in issue order
 * (streams).  Whole programs (control flow, paths back from each bundle, open windows): validate_prog.c. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "sim/sim.h"
#include "validate/validate.h"
#include "validate_int.h"

void *vld_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) {
        fputs("tessera: out of memory\n", stderr);
        abort();
    }
    return p;
}

void *vld_xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
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
    case TSR_V_RDEFER:
    case TSR_V_WSTATE: {
        const char *verb = e->kind == TSR_V_RSTATE ? "reads" : e->kind == TSR_V_RLATE ? "reads at commit"
                         : e->kind == TSR_V_RDEFER ? "reads (deferred)" : "writes";
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
    case TSR_V_END:
        snprintf(buf, n, "ends a block");
        return;
    case TSR_V_RFWD:   /* (X6) "reads mul0_r@2", "writes vf[1]" */
    case TSR_V_WFWD: {
        const char *nm = e->id >= 0 && e->id < D->nfwds ? D->fwd_names[e->id] : "?";
        char el[32] = "";
        if (e->id >= 0 && e->id < D->nfwds && D->fwd_count[e->id] > 0) {
            if (e->addr < 0)
                snprintf(el, sizeof el, "[?]");
            else
                snprintf(el, sizeof el, "[%" PRId64 "]", e->addr);
        }
        if (e->kind == TSR_V_RFWD)
            snprintf(buf, n, "reads %s%s@%" PRId64 "%s", nm, el, e->val, cond);
        else
            snprintf(buf, n, "writes %s%s%s", nm, el, cond);
        return;
    }
    }
    snprintf(buf, n, "?");
}

/* ---- one bundle and its history ---------------------------------------------------------------------- */
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

/* Reports a violation completed by h->b[0] whose earlier instruction is `other` (index), at pc other_pc, dist
 * instructions back on the path considered. */
static void vreport(struct ctx *c, const struct hist *h, int rule, size_t other, uint32_t other_pc, int dist,
                    const char *fmt, va_list ap)
{
    if (seen(c, rule, other))
        return;
    struct tsr_vviol v;
    memset(&v, 0, sizeof v);
    v.rule = rule;
    if (rule == TSR_VVIOL_EVENTS) {
        v.name = "events";
        v.ref = "runtime/validate/validate.h TSR_V_MAXEV";
    } else if (rule >= 0) {
        v.name = c->D->rules[rule].name;
        v.ref = c->D->rules[rule].ref;
    } else {
        v.name = c->D->res[-1 - rule].name;
        v.ref = c->D->res[-1 - rule].ref;
    }
    v.at = h->idx[0];
    v.pc = h->b[0]->pc;
    v.other = other;
    v.other_pc = other_pc;
    v.dist = dist;
    vsnprintf(v.text, sizeof v.text, fmt, ap);
    c->count++;
    if (c->fn)
        c->fn(c->fctx, &v);
}

/* The earlier instruction is h->b[k]. */
void vld_report(struct ctx *c, const struct hist *h, int rule, int k, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void vld_report(struct ctx *c, const struct hist *h, int rule, int k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(c, h, rule, h->idx[k], h->b[k]->pc, k, fmt, ap);
    va_end(ap);
}

/* The earlier instruction is given by index and pc (open windows: beyond the history). */
void vld_report_far(struct ctx *c, const struct hist *h, int rule, size_t other, uint32_t other_pc, int dist,
                       const char *fmt, ...) __attribute__((format(printf, 7, 8)));
void vld_report_far(struct ctx *c, const struct hist *h, int rule, size_t other, uint32_t other_pc, int dist,
                       const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(c, h, rule, other, other_pc, dist, fmt, ap);
    va_end(ap);
}

/* Resources and one-bundle rules of h->b[0]. */
void vld_check_bundle(struct ctx *c, const struct hist *h)
{
    const struct tsr_vdesc *D = c->D;
    const struct tsr_vbundle *b = h->b[0];
    char t1[96], t2[96];
    if (b->overflow)   /* events were dropped: say so rather than check what is left */
        vld_report(c, h, TSR_VVIOL_EVENTS, 0, "more than %d events in one instruction: the validator keeps %d, so "
                   "its rules are not checked here", TSR_V_MAXEV, TSR_V_MAXEV);
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
            vld_report(c, h, -1 - r, 0, "%d uses in one instruction (at most %d): %s, %s%s", n, D->res[r].count, t1, t2,
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
            vld_report(c, h, r, 0, "%s", t1);
        } else {
            tsr_vev_text(D, &b->ev[pick[1]], t2, sizeof t2);
            vld_report(c, h, r, 0, "%s and %s in one instruction", t1, t2);
        }
    }
}

/* "1..2 instructions apart", "1 or more instructions apart" */
void vld_window_text(const struct tsr_vrule *R, char *buf, size_t n)
{
    if (R->hi == TSR_V_OPEN)
        snprintf(buf, n, "%d or more instructions apart", R->lo);
    else
        snprintf(buf, n, "%d..%d instructions apart", R->lo, R->hi);
}

/* The first event of b matching p other than b->ev[not] (-1: any), or -1. */
int vld_first_match(const struct tsr_vbundle *b, tsr_vmatch_fn p, int not)
{
    for (int j = 0; j < b->nev; j++)
        if (j != not && p(&b->ev[j], b->f))
            return j;
    return -1;
}

/* (X6) "R[0]" for the state read e (its text without the verb). */
static void state_text(const struct tsr_vdesc *D, const struct tsr_vev *e, char *buf, size_t n)
{
    struct tsr_vev x = *e;
    x.kind = TSR_V_RSTATE;
    x.cond = 0;
    char t[96];
    tsr_vev_text(D, &x, t, sizeof t);
    snprintf(buf, n, "%s", strncmp(t, "reads ", 6) ? t : t + 6);
}

/* (X6) Does the deferred read at index i of bundle a belong to the value that a read of forward element eb takes, with
 * k the read's age?  Its write is the first write of its forward after it (the generated code lists a value's reads,
 * then its write); the value read is that of the bundle's last write of the element that the read can see (at age 0:
 * of the compute stage), or of a conditional write after the last unconditional one. */
static bool deferred_taken(const struct tsr_vbundle *a, int i, const struct tsr_vev *eb, int k)
{
    const struct tsr_vev *d = &a->ev[i];
    if (d->origin != eb->id || (d->val >= 0 && eb->addr >= 0 && d->val != eb->addr))
        return false;
    int cut = 0, own = -1;
    for (int j = 0; j < a->nev; j++) {
        const struct tsr_vev *w = &a->ev[j];
        if (w->kind != TSR_V_WFWD || w->id != eb->id)
            continue;
        if (own < 0 && j > i)
            own = j;
        if (!tsr_vev_same(w, eb) || (k == 0 && (w->val >> 16 & 1)))
            continue;   /* another element; a commit block's value, which age 0 does not see */
        if (!w->cond && w->addr == eb->addr && eb->addr >= 0)
            cut = j;    /* it replaces every earlier write of the element */
    }
    if (own < 0 || own < cut)
        return false;
    const struct tsr_vev *w = &a->ev[own];
    return tsr_vev_same(w, eb) && !(k == 0 && (w->val >> 16 & 1));
}

/* (X6) The deferred reads of the value that the read eb of h->b[0] (F@k, whose age rule holds) takes from h->b[k]:
 * each is checked against the latency rules and the finite windows whose second pattern it would match as a plain read,
 * on this path, counting from the writer h->b[k]; a violation is reported at the reader, naming both. */
static void check_deferred(struct ctx *c, const struct hist *h, const struct tsr_vev *eb, int k)
{
    const struct tsr_vdesc *D = c->D;
    const struct tsr_vbundle *a = h->b[k];
    char tb[96], ts[96], ta[96], range[64];
    for (int i = 0; i < a->nev; i++) {
        if (a->ev[i].kind != TSR_V_RDEFER || !deferred_taken(a, i, eb, k))
            continue;
        struct tsr_vev x = a->ev[i];   /* the read as a plain read, for the rules' second patterns */
        x.kind = TSR_V_RSTATE;
        x.origin = -1;
        x.val = TSR_V_NOVAL;
        for (int r = 0; r < D->nrules; r++) {
            const struct tsr_vrule *R = &D->rules[r];
            bool lat = R->kind == TSR_VR_LATENCY, win = R->kind == TSR_VR_WINDOW && R->hi != TSR_V_OPEN;
            if (R->npat != 2 || (!lat && !win) || !R->pat[1](&x, a->f))
                continue;
            int lo = lat ? 1 : R->lo, far = lat ? (R->hi >= 0 ? TSR_V_MAXDIST : R->lo - 1) : R->hi;
            for (int kk = lo; kk <= far && k + kk < h->len; kk++) {
                const struct tsr_vbundle *p = h->b[k + kk];
                int j = 0;
                for (; j < p->nev; j++)
                    if (!(kk == 0 && j == i) && R->pat[0](&p->ev[j], p->f) &&
                        (!lat || !R->same || tsr_vev_same(&p->ev[j], &x)))
                        break;
                if (j == p->nev)
                    continue;
                if (lat && kk >= R->lo && (R->hi < 0 || kk <= R->hi))
                    break;   /* the nearest producer is far enough */
                tsr_vev_text(D, eb, tb, sizeof tb);
                state_text(D, &x, ts, sizeof ts);
                tsr_vev_text(D, &p->ev[j], ta, sizeof ta);
                if (lat)
                    snprintf(range, sizeof range, kk < R->lo ? "at least %d apart" : "at most %d apart",
                             kk < R->lo ? R->lo : R->hi);
                else {
                    char w[40];
                    vld_window_text(R, w, sizeof w);
                    snprintf(range, sizeof range, "forbidden %s", w);
                }
                if (kk == 0)
                    vld_report(c, h, r, k, "%s, loaded at 0x%08" PRIx32 " from %s; that instruction %s too (%s)", tb,
                               a->pc, ts, ta, range);
                else
                    vld_report(c, h, r, k + kk, "%s, loaded at 0x%08" PRIx32 " from %s; the instruction %d before it "
                               "(0x%08" PRIx32 ") %s (%s)", tb, a->pc, ts, kk, p->pc, ta, range);
                break;
            }
        }
    }
}

/* (X6) The age rule r for the read event eb of h->b[0] (a forward read F@A) on this path: the instruction A back
 * must write the element with A in its window (A = 0: this bundle, from its compute stage). */
static void check_age(struct ctx *c, const struct hist *h, int r, const struct tsr_vev *eb)
{
    const struct tsr_vdesc *D = c->D;
    const struct tsr_vrule *R = &D->rules[r];
    int64_t age = eb->val;
    const char *nm = eb->id >= 0 && eb->id < D->nfwds ? D->fwd_names[eb->id] : "?";
    char tb[96];
    if (age < 0 || age > TSR_V_MAXDIST)
        return;
    int k = (int)age;
    if (k >= h->len) {
        /* the path back is shorter: a hazard when it reached the program's start; else it ends at an instruction
         * without known predecessors (after a return through a register, dead code): nothing is known, no report */
        if (h->idx[h->len - 1] == 0) {
            tsr_vev_text(D, eb, tb, sizeof tb);
            vld_report(c, h, r, 0, "%s; there is no instruction %d before it (the program's start)", tb, k);
        }
        return;
    }
    const struct tsr_vbundle *a = h->b[k];
    bool writes = false;
    int lo = -1, hi = -1;
    for (int j = 0; j < a->nev; j++) {
        const struct tsr_vev *w = &a->ev[j];
        if (!R->pat[0](w, a->f) || !tsr_vev_same(w, eb))
            continue;
        bool commit = (w->val >> 16 & 1) != 0;
        if (k == 0 && commit)
            continue;   /* a commit block's value is read from the next instruction on */
        writes = true;
        lo = (int)(w->val & 0xff);
        hi = (int)(w->val >> 8 & 0xff);
        if (lo <= k && k <= hi) {
            check_deferred(c, h, eb, k);   /* the value is there: were its own reads too soon? */
            return;
        }
    }
    tsr_vev_text(D, eb, tb, sizeof tb);
    if (k == 0 && writes)
        vld_report(c, h, r, 0, "%s; this instruction writes %s for ages %d..%d", tb, nm, lo, hi);
    else if (k == 0)
        vld_report(c, h, r, 0, "%s; this instruction's compute stage does not write %s", tb, nm);
    else if (writes)
        vld_report(c, h, r, k, "%s; the instruction %d before (0x%08" PRIx32 ") writes %s for ages %d..%d", tb, k,
                   a->pc, nm, lo, hi);
    else
        vld_report(c, h, r, k, "%s; the instruction %d before (0x%08" PRIx32 ") does not write %s", tb, k, a->pc, nm);
}

/* Rule r (a window, a latency or a forward's age) for event i of h->b[0], which its second pattern matches, on
 * this path. */
static void check_event(struct ctx *c, const struct hist *h, int r, int i)
{
    const struct tsr_vdesc *D = c->D;
    const struct tsr_vrule *R = &D->rules[r];
    const struct tsr_vbundle *b = h->b[0];
    const struct tsr_vev *eb = &b->ev[i];
    char ta[96], tb[96];
    if (R->kind == TSR_VR_AGE) {
        check_age(c, h, r, eb);
        return;
    }
    if (R->kind == TSR_VR_WINDOW) {
        char range[48];
        vld_window_text(R, range, sizeof range);
        for (int k = R->lo; k <= R->hi && k < h->len; k++) {
            const struct tsr_vbundle *a = h->b[k];
            for (int j = 0; j < a->nev; j++) {
                if ((k == 0 && j == i) || !R->pat[0](&a->ev[j], a->f))
                    continue;
                tsr_vev_text(D, &a->ev[j], ta, sizeof ta);
                tsr_vev_text(D, eb, tb, sizeof tb);
                if (k == 0)
                    vld_report(c, h, r, 0, "%s and %s in one instruction (forbidden %s)", ta, tb, range);
                else
                    vld_report(c, h, r, k, "%s; the instruction %d before (0x%08" PRIx32 ") %s (forbidden %s)", tb, k,
                           a->pc, ta, range);
                break;
            }
        }
        return;
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
                vld_report(c, h, r, k, "%s; the instruction %d before (0x%08" PRIx32 ") %s (at least %d apart)",
                       tb, k, a->pc, ta, R->lo);
            else
                vld_report(c, h, r, k, "%s; the instruction %d before (0x%08" PRIx32 ") %s (at most %d apart)",
                       tb, k, a->pc, ta, R->hi);
        }
        break;
    }
}

/* Rules between h->b[0] and the bundles before it on this path.  With c->match (the program check's memo of
 * h->b[0]), only the (rule, event) pairs it lists: those whose second pattern matches, in this order. */
void vld_check_path(struct ctx *c, const struct hist *h)
{
    const struct tsr_vdesc *D = c->D;
    const struct tsr_vbundle *b = h->b[0];
    if (c->match) {
        for (int k = 0; k < c->nmatch; k++) {
            const struct tsr_vrule *R = &D->rules[c->match[k].rule];
            if (!(R->kind == TSR_VR_WINDOW && R->hi == TSR_V_OPEN && !c->hist))
                check_event(c, h, c->match[k].rule, c->match[k].ev);
        }
        return;
    }
    for (int r = 0; r < D->nrules; r++) {
        const struct tsr_vrule *R = &D->rules[r];
        if (R->kind == TSR_VR_BUNDLE || R->npat != 2)
            continue;
        if (R->kind == TSR_VR_WINDOW && R->hi == TSR_V_OPEN && !c->hist)
            continue;   /* beyond the history: open_check / stream_open */
        for (int i = 0; i < b->nev; i++)
            if (R->pat[1](&b->ev[i], b->f))
                check_event(c, h, r, i);
    }
}

void vld_open_report(struct ctx *c, const struct hist *h, int r, const struct vld_far *far)
{
    const struct tsr_vdesc *D = c->D;
    const struct tsr_vrule *R = &D->rules[r];
    const struct tsr_vbundle *b = h->b[0];
    char ta[96], tb[96], range[48];
    vld_window_text(R, range, sizeof range);
    for (int i = 0; i < b->nev; i++) {
        if (!R->pat[1](&b->ev[i], b->f))
            continue;
        tsr_vev_text(D, &b->ev[i], tb, sizeof tb);
        int a = R->lo == 0 ? vld_first_match(b, R->pat[0], i) : -1;
        if (a >= 0) {
            tsr_vev_text(D, &b->ev[a], ta, sizeof ta);
            vld_report(c, h, r, 0, "%s and %s in one instruction (forbidden %s)", ta, tb, range);
        } else if (far) {
            tsr_vev_text(D, far->e, ta, sizeof ta);
            vld_report_far(c, h, r, far->other, far->pc, far->d > INT32_MAX ? INT32_MAX : (int)far->d,
                       "%s; the instruction %zu before (0x%08" PRIx32 ") %s (forbidden %s)", tb, far->d, far->pc, ta,
                       range);
        }
    }
}

/* ---- streams ------------------------------------------------------------------------------------------- */
struct tsr_vstream {
    const struct tsr_vdesc *D;
    size_t steps;
    int nring;                      /* valid entries */
    int head;                       /* index of the newest */
    struct tsr_vbundle ring[TSR_V_MAXDIST + 1];
    uint64_t *fields;
    uint64_t ends;                  /* bit k: the bundle k steps after the next one stepped ends a block (the last
                                       delay slot of a jump or halt stepped before) */
    struct ctx c;
    /* by rule: the first A of an open window since the reset (the farthest back any later B can look) */
    struct first { bool have; size_t step; uint32_t pc; struct tsr_vev ev; } *first;
};

struct tsr_vstream *tsr_vstream_new(const struct tsr_vdesc *D)
{
    struct tsr_vstream *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    unsigned nf = D->nfields ? D->nfields : 1;
    s->fields = calloc((size_t)(TSR_V_MAXDIST + 1) * nf, sizeof *s->fields);
    s->first = calloc((size_t)(D->nrules > 0 ? D->nrules : 1), sizeof *s->first);
    if (!s->fields || !s->first) {
        free(s->fields);
        free(s->first);
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
    free(s->first);
    free(s->c.seen);
    free(s);
}

void tsr_vstream_reset(struct tsr_vstream *s)
{
    s->steps = 0;
    s->nring = 0;
    s->ends = 0;
    for (int r = 0; r < s->D->nrules; r++)
        s->first[r].have = false;
}

/* Open windows in issue order: a B against the first A since the reset (the farthest back), then h->b[0]'s
 * own A becomes that first A if there was none. */
static void stream_open(struct tsr_vstream *s, const struct hist *h)
{
    const struct tsr_vdesc *D = s->D;
    const struct tsr_vbundle *b = h->b[0];
    for (int r = 0; r < D->nrules; r++) {
        const struct tsr_vrule *R = &D->rules[r];
        if (R->kind != TSR_VR_WINDOW || R->npat != 2 || R->hi != TSR_V_OPEN)
            continue;
        struct first *o = &s->first[r];
        struct vld_far far = { &o->ev, o->step, o->pc, s->steps - o->step };
        vld_open_report(&s->c, h, r, o->have && far.d >= (size_t)R->lo ? &far : NULL);
        int a = o->have ? -1 : vld_first_match(b, R->pat[0], -1);
        if (a >= 0) {
            o->have = true;
            o->step = s->steps;
            o->pc = b->pc;
            o->ev = b->ev[a];
        }
    }
}

size_t tsr_vstream_step(struct tsr_vstream *s, const uint32_t *w, uint32_t pc, tsr_vreport_fn fn, void *fctx)
{
    return tsr_vstream_step_last(s, w, pc, false, fn, fctx);
}

size_t tsr_vstream_step_last(struct tsr_vstream *s, const uint32_t *w, uint32_t pc, bool last, tsr_vreport_fn fn,
                             void *fctx)
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
    /* the end of a block, as far as issue order shows it: the last delay slot of a jump or halt (taken or
     * not: its block ends there), and the program's last instruction when the caller says so; not the
     * instruction before a branch target (a stream does not know the program) */
    for (int k = 0; k < b->nev; k++)
        if ((b->ev[k].kind == TSR_V_JUMP || b->ev[k].kind == TSR_V_HALT) && b->ev[k].delay >= 0 &&
            b->ev[k].delay < 64)
            s->ends |= (uint64_t)1 << b->ev[k].delay;
    if ((s->ends & 1) || last)
        tsr_vb_add(b, TSR_V_END, -1, 1, 0, 0);
    s->ends >>= 1;
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
    vld_check_bundle(&s->c, &h);
    vld_check_path(&s->c, &h);
    stream_open(s, &h);
    s->steps++;
    return s->c.count;
}

struct simctx { struct tsr_sim_ctl *ctl; int rc; };

static void to_sim(void *p, const struct tsr_vviol *v)
{
    struct simctx *x = p;
    int rc = tsr_sim_hazard(x->ctl, v->pc, "%s %s at 0x%08" PRIx32 ": %s", tsr_vviol_kind(v), v->name,
                            v->pc, v->text);
    if (rc < 0 && x->rc == 0)
        x->rc = rc;
}

int tsr_vstream_sim(struct tsr_vstream *s, struct tsr_sim_ctl *ctl, const uint32_t *w, uint32_t pc, bool last)
{
    struct simctx x = { ctl, 0 };
    tsr_vstream_step_last(s, w, pc, last, to_sim, &x);
    return x.rc;
}

size_t tsr_validate_hist(const struct tsr_vdesc *D, const struct tsr_vbundle *const *b, int len, tsr_vreport_fn fn,
                         void *fctx)
{
    struct ctx c = { D, fn, fctx, 0, NULL, 0, 0, NULL, 0, true };
    struct hist h;
    h.len = len < 1 ? 1 : len > TSR_V_MAXDIST + 1 ? TSR_V_MAXDIST + 1 : len;
    for (int k = 0; k < h.len; k++) {
        h.b[k] = b[k];
        h.idx[k] = (size_t)k;
    }
    vld_check_bundle(&c, &h);
    vld_check_path(&c, &h);
    free(c.seen);
    return c.count;
}
