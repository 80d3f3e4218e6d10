/* Register spills of the packer for values routed through forwards (docs/pack.md "Values through forwards"; the
 * method of Mesa lima's gpir scheduler, in our own form): a value whose readers no move can reach in time is
 * stored to an element of a register file that the program does not touch, and each of its outstanding reads
 * loads that element in its own bundle; the store, a `move` op of the description with a store, goes at least the
 * register file's latency before the first load.  Everything comes from the description: the move ops that store
 * to a register (the alternatives of their operands that may be left out, with each hole's values, assembled and
 * read back as events: exactly one write of one element of one state), the source texts that load one (the
 * alternatives of a move's source: exactly one read), the register file (the state with the most elements that
 * have both), and the latency (tsr_pack_dep from such a store to such a load).  Nothing here names a target, a
 * unit or a field. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pack_route_bu.h"
#include "target.h"
#include "text/textcodec.h"

#define SPILL_MAXST 8           /* store templates kept per element (one per move op, in slot order) */
#define SPILL_MAXALT 256        /* texts enumerated per operand alternative at most (its holes' values) */

struct route_spill {
    int rf;                     /* the register file: a state index of the validator's description */
    int nel;                    /* its elements */
    int lat;                    /* store to load: the least distance (instructions) */
    char *(*st)[SPILL_MAXST];   /* per element: move templates that store to it ("%" for the source) */
    int *nst;
    char *(*ld)[2];             /* per element: source texts that load it */
    bool *used;                 /* elements the input touches (never spilled to) */
};

/* Candidates over every state while the texts are found: index base[id] + element. */
struct cands {
    int nall, *base, *cnt;
    char *(*st)[SPILL_MAXST];
    int *nst;
    char *(*ld)[2];
    int *nld;
};

/* ---- the texts of an operand alternative ------------------------------------------------------------ */

/* The number of texts alternative A's parts make (each INT hole its values up to 64, each TABLE hole its names),
 * or -1 when a part is of another kind (nested operands, optional parts, labels). */
static long alt_count(const struct tsr_tc_isa *I, const struct tsr_tc_alt *A)
{
    long n = 1;
    for (uint32_t k = 0; k < A->npart && n <= SPILL_MAXALT; k++) {
        const struct tsr_tc_part *P = &I->parts[A->part + k];
        if (P->kind == TSR_TC_INT) {
            int w = P->field < I->nfields ? I->fields[P->field].width : 6;
            n *= w >= 6 ? 64 : 1L << w;
        } else if (P->kind == TSR_TC_TABLE) {
            n *= P->arg < I->ntables ? (long)I->tables[P->arg].nnames : 0;
        } else if (P->kind != TSR_TC_TEXT && P->kind != TSR_TC_SPACE) {
            return -1;
        }
    }
    return n;
}

typedef void (*text_fn)(void *ctx, const char *text);

/* Calls fn with every text of alternative A from part k on, b holding the text before it. */
static void alt_texts(const struct tsr_tc_isa *I, const struct tsr_tc_alt *A, uint32_t k, struct tsr_buf *b,
                      text_fn fn, void *ctx)
{
    if (k == A->npart) {
        fn(ctx, b->data ? b->data : "");
        return;
    }
    const struct tsr_tc_part *P = &I->parts[A->part + k];
    size_t len = b->len;
    if (P->kind == TSR_TC_TEXT || P->kind == TSR_TC_SPACE) {
        tsr_buf_append(b, P->kind == TSR_TC_TEXT ? P->text : " ", P->kind == TSR_TC_TEXT ? P->len : 1);
        alt_texts(I, A, k + 1, b, fn, ctx);
    } else if (P->kind == TSR_TC_INT) {
        int w = P->field < I->nfields ? I->fields[P->field].width : 6;
        for (int v = 0; v < (w >= 6 ? 64 : 1 << w); v++) {
            b->len = len;
            tsr_buf_printf(b, "%d", v);
            alt_texts(I, A, k + 1, b, fn, ctx);
        }
    } else if (P->kind == TSR_TC_TABLE) {
        const struct tsr_tc_table *T = &I->tables[P->arg];
        for (uint32_t m = 0; m < T->nnames; m++) {
            b->len = len;
            const struct tsr_tc_name *N = &I->names[T->name_first + m];
            tsr_buf_append(b, N->name, N->len);
            alt_texts(I, A, k + 1, b, fn, ctx);
        }
    }
    b->len = len;
    if (b->data)
        b->data[len] = 0;
}

/* Does operand N have an alternative that prints nothing (a part an op may leave out)? */
static bool opnd_empty(const struct tsr_tc_isa *I, const struct tsr_tc_opnd *N)
{
    for (uint32_t a = 0; a < N->nalt; a++) {
        const struct tsr_tc_alt *A = &I->alts[N->alt + a];
        if (A->npart == 0 || (A->npart == 1 && I->parts[A->part].kind == TSR_TC_TEXT && I->parts[A->part].len == 0))
            return true;
    }
    return false;
}

/* The text of op `op` with the j-th of its operands that may print nothing written as ins (j -1: none), the
 * others and the optional parts left out, and "%" for its one other operand (its index into *src); NULL when the
 * template has other holes or not exactly one other operand. */
static char *op_text(const struct tsr_tc_isa *I, unsigned op, int j, const char *ins, uint32_t *src)
{
    const struct tsr_tc_op *O = &I->ops[op];
    struct tsr_buf b = { 0 };
    int nsrc = 0, je = 0;
    for (uint32_t p = 0; p < O->npart && nsrc < 2; p++) {
        const struct tsr_tc_part *P = &I->parts[O->part + p];
        if (P->kind == TSR_TC_TEXT) {
            tsr_buf_append(&b, P->text, P->len);
        } else if (P->kind == TSR_TC_SPACE) {
            tsr_buf_puts(&b, " ");
        } else if (P->kind == TSR_TC_OPND) {
            if (opnd_empty(I, &I->opnds[P->arg])) {
                if (je++ == j)
                    tsr_buf_puts(&b, ins);
            } else {
                tsr_buf_puts(&b, "%");
                *src = P->arg;
                nsrc++;
            }
        } else if (P->kind != TSR_TC_OPT) {
            nsrc = 2;
        }
    }
    char *r = nsrc == 1 && b.data ? strdup(b.data) : NULL;
    tsr_buf_free(&b);
    return r;
}

/* ---- finding the loads and stores ------------------------------------------------------------------- */

struct walk {
    struct route *R;
    struct cands *C;
    unsigned op;
    const char *base;           /* the move's text, "%" for its source */
    int j;                      /* the operand that may print nothing, written (stores) */
    struct tsr_buf b;
};

/* A source text: a load if the move reading it reads exactly one element of one state (its op's read). */
static void try_load(void *ctx, const char *text)
{
    struct walk *W = ctx;
    const struct tsr_target *t = W->R->t;
    tsr_route_fill_move(&W->b, W->base, text);
    uint32_t w[TSR_PACK_MAX_NWORDS];
    if (tsr_pack_assemble_cached(t, W->b.data, W->b.len, w))
        return;
    struct tsr_pack_ev e = { 0 };
    tsr_pack_ev_events(t, w, &e);
    int n = 0, id = -1;
    int64_t addr = -1;
    for (int k = 0; e.vb && k < e.vb->nev; k++) {
        const struct tsr_vev *v = &e.vb->ev[k];
        if (v->slot < 0 || (v->kind != TSR_V_RSTATE && v->kind != TSR_V_RSPACE && v->kind != TSR_V_RFWD &&
                            v->kind != TSR_V_RDEFER && v->kind != TSR_V_RLATE))
            continue;
        n++;
        if (v->kind == TSR_V_RSTATE) {
            id = v->id;
            addr = v->addr;
        }
    }
    tsr_pack_ev_free(&e);
    struct cands *C = W->C;
    if (n != 1 || id < 0 || addr < 0 || addr >= C->cnt[id])
        return;
    int c = C->base[id] + (int)addr;
    for (int k = 0; k < C->nld[c]; k++)
        if (!strcmp(C->ld[c][k], text))
            return;
    if (C->nld[c] < 2)
        C->ld[c][C->nld[c]++] = strdup(text);
}

/* The text of an operand that may print nothing: a store if the move with it writes exactly one element of one
 * state (and no space, no control). */
static void try_store(void *ctx, const char *text)
{
    struct walk *W = ctx;
    struct route *R = W->R;
    const struct tsr_target *t = R->t;
    uint32_t src;
    char *m = op_text(t->text, W->op, W->j, text, &src);
    if (!m)
        return;
    bool ok = false;
    int id = -1;
    int64_t addr = -1;
    for (int f = 0; f < R->D->nfwdtexts && f < 8 && !ok; f++) {
        tsr_route_fill_move(&W->b, m, R->D->fwdtexts[f].text);
        uint32_t w[TSR_PACK_MAX_NWORDS];
        if (tsr_pack_assemble_cached(t, W->b.data, W->b.len, w))
            continue;
        struct tsr_pack_ev e = { 0 };
        tsr_pack_ev_events(t, w, &e);
        int n = 0, bad = 0;
        for (int k = 0; e.vb && k < e.vb->nev; k++) {
            const struct tsr_vev *v = &e.vb->ev[k];
            bad += v->kind == TSR_V_WSPACE || v->kind == TSR_V_JUMP || v->kind == TSR_V_HALT;
            if (v->kind == TSR_V_WSTATE) {
                n++;
                id = v->id;
                addr = v->addr;
            }
        }
        ok = e.vb && n == 1 && !bad;
        tsr_pack_ev_free(&e);
    }
    struct cands *C = W->C;
    if (ok && id >= 0 && addr >= 0 && addr < C->cnt[id] && C->nst[C->base[id] + addr] < SPILL_MAXST) {
        int c = C->base[id] + (int)addr;
        C->st[c][C->nst[c]++] = m;
        return;
    }
    free(m);
}

/* (pack_route.h) */
void tsr_route_spill_init(struct route *R)
{
    const struct tsr_target *t = R->t;
    const struct tsr_tc_isa *I = t->text;
    const struct tsr_vdesc *D = R->D;
    R->sp = NULL;
    if (!I || R->move_attr < 0 || !D->nstates)
        return;
    struct cands C = { 0 };
    C.base = calloc((size_t)D->nstates, sizeof *C.base);
    C.cnt = calloc((size_t)D->nstates, sizeof *C.cnt);
    for (int s = 0; s < D->nstates; s++) {
        C.base[s] = C.nall;
        C.cnt[s] = D->state_count[s] > 0 ? D->state_count[s] : 1;
        C.nall += C.cnt[s];
    }
    C.st = calloc((size_t)C.nall, sizeof *C.st);
    C.nst = calloc((size_t)C.nall, sizeof *C.nst);
    C.ld = calloc((size_t)C.nall, sizeof *C.ld);
    C.nld = calloc((size_t)C.nall, sizeof *C.nld);
    struct walk W = { R, &C, 0, NULL, -1, { 0 } };
    struct tsr_buf tb = { 0 };
    for (unsigned op = 0; op < t->nops && op < I->nops; op++) {
        if (!(t->op_attrs[op] >> R->move_attr & 1))
            continue;
        uint32_t src = 0;
        char *base = op_text(I, op, -1, NULL, &src);
        if (!base)
            continue;
        W.op = op;
        W.base = base;
        const struct tsr_tc_opnd *N = &I->opnds[src];
        for (uint32_t a = 0; a < N->nalt; a++) {
            const struct tsr_tc_alt *A = &I->alts[N->alt + a];
            long n = alt_count(I, A);
            tsr_buf_clear(&tb);
            if (n > 0 && n <= SPILL_MAXALT)
                alt_texts(I, A, 0, &tb, try_load, &W);
        }
        /* its operands that may print nothing, each alternative that prints something */
        const struct tsr_tc_op *O = &I->ops[op];
        int je = 0;
        for (uint32_t p = 0; p < O->npart; p++) {
            const struct tsr_tc_part *P = &I->parts[O->part + p];
            if (P->kind != TSR_TC_OPND || !opnd_empty(I, &I->opnds[P->arg]))
                continue;
            W.j = je++;
            const struct tsr_tc_opnd *E = &I->opnds[P->arg];
            for (uint32_t a = 0; a < E->nalt; a++) {
                const struct tsr_tc_alt *A = &I->alts[E->alt + a];
                long n = alt_count(I, A);
                tsr_buf_clear(&tb);
                if (n > 0 && n <= SPILL_MAXALT)
                    alt_texts(I, A, 0, &tb, try_store, &W);
            }
        }
        free(base);
    }
    tsr_buf_free(&tb);
    /* the register file: the state with the most elements both stored and loaded */
    int best = -1, bestn = 0;
    for (int s = 0; s < D->nstates; s++) {
        int n = 0;
        for (int e = 0; e < C.cnt[s]; e++)
            n += C.nst[C.base[s] + e] && C.nld[C.base[s] + e];
        if (n > bestn) {
            best = s;
            bestn = n;
        }
    }
    struct route_spill *sp = NULL;
    if (best >= 0) {
        sp = calloc(1, sizeof *sp);
        sp->rf = best;
        sp->nel = C.cnt[best];
        sp->st = calloc((size_t)sp->nel, sizeof *sp->st);
        sp->nst = calloc((size_t)sp->nel, sizeof *sp->nst);
        sp->ld = calloc((size_t)sp->nel, sizeof *sp->ld);
        sp->used = calloc((size_t)sp->nel, sizeof *sp->used);
        sp->lat = -1;
        for (int e = 0; e < sp->nel; e++) {
            int c = C.base[best] + e;
            if (!C.nst[c] || !C.nld[c]) {
                sp->used[e] = true;      /* (not both: never a spill's) */
                continue;
            }
            memcpy(sp->st[e], C.st[c], sizeof sp->st[e]);
            sp->nst[e] = C.nst[c];
            memcpy(sp->ld[e], C.ld[c], sizeof sp->ld[e]);
            C.nst[c] = C.nld[c] = 0;
            if (sp->lat >= 0)
                continue;
            /* the latency: tsr_pack_dep from a store of the element to a load of it */
            struct tsr_pack_ev es = { 0 }, el = { 0 };
            uint32_t ws[TSR_PACK_MAX_NWORDS], wl[TSR_PACK_MAX_NWORDS];
            bool ok = false;
            for (int f = 0; f < D->nfwdtexts && f < 8 && !ok; f++) {
                tsr_route_fill_move(&W.b, sp->st[e][0], D->fwdtexts[f].text);
                ok = !tsr_pack_assemble_cached(t, W.b.data, W.b.len, ws);
            }
            for (int m = 0; m < R->nmv && ok; m++) {
                tsr_route_fill_move(&W.b, R->mv[m], sp->ld[e][0]);
                if (!tsr_pack_assemble_cached(t, W.b.data, W.b.len, wl)) {
                    tsr_pack_ev_init(t, ws, &es);
                    tsr_pack_ev_init(t, wl, &el);
                    tsr_pack_ev_drop_format_deferred(&es);
                    tsr_pack_ev_drop_format_deferred(&el);
                    int d = tsr_pack_dep(D, &es, &el);
                    sp->lat = d < 1 ? 1 : d;
                    tsr_pack_ev_free(&es);
                    tsr_pack_ev_free(&el);
                    break;
                }
            }
        }
        if (sp->lat < 0) {
            R->sp = sp;
            tsr_route_spill_free(R);
            sp = NULL;
        }
    }
    for (int c = 0; c < C.nall; c++) {
        for (int k = 0; k < C.nst[c]; k++)
            free(C.st[c][k]);
        for (int k = 0; k < C.nld[c]; k++)
            free(C.ld[c][k]);
    }
    free(C.base);
    free(C.cnt);
    free(C.st);
    free(C.nst);
    free(C.ld);
    free(C.nld);
    tsr_buf_free(&W.b);
    R->sp = sp;
    if (!sp)
        return;
    /* the elements the input touches (its ops' reads and every write; the format's own loads do not count: what
     * they load is read only at an age, by no input source) */
    for (int i = 0; i < R->n; i++) {
        const struct tsr_pack_ev *e = &R->o[i].ev;
        for (int k = 0; e->vb && k < e->vb->nev; k++) {
            const struct tsr_vev *v = &e->vb->ev[k];
            bool rd = v->kind == TSR_V_RSTATE || v->kind == TSR_V_RLATE || v->kind == TSR_V_RDEFER;
            if (v->id != sp->rf || !(v->kind == TSR_V_WSTATE || (rd && v->slot >= 0)))
                continue;
            if (v->addr < 0 || v->addr >= sp->nel)
                memset(sp->used, 1, (size_t)sp->nel * sizeof *sp->used);
            else
                sp->used[v->addr] = true;
        }
    }
}

/* (pack_route.h) */
void tsr_route_spill_free(struct route *R)
{
    struct route_spill *sp = R->sp;
    if (!sp)
        return;
    for (int e = 0; e < sp->nel; e++) {
        for (int k = 0; k < sp->nst[e]; k++)
            free(sp->st[e][k]);
        for (int k = 0; k < 2; k++)
            free(sp->ld[e][k]);
    }
    free(sp->st);
    free(sp->nst);
    free(sp->ld);
    free(sp->used);
    free(sp);
    R->sp = NULL;
}

/* (pack_route.h) */
const char *tsr_route_spill_load(const struct route *R, int e, int alt)
{
    if (!R->sp || e < 0 || e >= R->sp->nel || alt < 0 || alt > 1)
        return NULL;
    return R->sp->ld[e][alt];
}

/* ---- the scheduler's side -------------------------------------------------------------------------- */

/* (pack_route_bu.h) */
bool tsr_route_spill_pending(const struct bu *U, int v)
{
    const struct route *R = U->R;
    for (int i = U->n0; i < R->n; i++)
        if (R->o[i].spill && R->o[i].pos < 0 && R->o[i].ref[0] == v)
            return true;
    return false;
}

/* May element e hold a value loaded at positions qmin.. (and stored later, higher)?  Not the input's, and every
 * other spill's store to it placed below the first of those loads (their lives do not meet). */
static bool elem_free(const struct bu *U, int e, int qmin, int self)
{
    const struct route *R = U->R;
    if (R->sp->used[e] || !R->sp->nst[e])
        return false;
    for (int i = U->n0; i < R->n; i++)
        if (i != self && R->o[i].spill == e + 1 && (R->o[i].pos < 0 || R->o[i].pos >= qmin))
            return false;
    return true;
}

/* Forms again the bundles of the distinct readers S[0..ns) (their feeds as they are now): false at the first that
 * does not form (those before it are formed with the new texts: the caller undoes them). */
static bool reform(struct bu *U, int (*S)[2], int ns)
{
    for (int s = 0; s < ns; s++) {
        int q = U->R->o[S[s][0]].pos;
        bool seen = false;
        for (int k = 0; k < s; k++)
            seen |= U->R->o[S[k][0]].pos == q;
        if (seen)
            continue;
        struct route_bundle rb;
        if (!tsr_route_bu_build(U, &rb, U->B[q].part, U->B[q].k))
            return false;
        U->B[q] = rb;
    }
    return true;
}

/* (pack_route_bu.h) */
bool tsr_route_spill(struct bu *U, int v, int p, int (*S)[2], int ns)
{
    struct route *R = U->R;
    struct route_spill *sp = R->sp;
    (void)p;
    if (!sp || ns <= 0)
        return false;
    int qmin = R->o[S[0][0]].pos, qmax = qmin;
    for (int s = 1; s < ns; s++) {
        int q = R->o[S[s][0]].pos;
        qmin = q < qmin ? q : qmin;
        qmax = q > qmax ? q : qmax;
    }
    struct rop *x = tsr_route_new_op(R);
    int si = R->n - 1;
    x->nref = 1;
    x->ref[0] = v;
    x->refname[0] = 1;
    x->line = R->o[v].line;
    x->col = R->o[v].col;
    x->move = true;
    x->minpos = qmax + sp->lat;
    for (int e = 0; e < sp->nel; e++) {
        if (!elem_free(U, e, qmin, si))
            continue;
        R->o[si].spill = e + 1;
        for (int s = 0; s < ns; s++)
            R->o[S[s][0]].feed[S[s][1]] = si;
        if (reform(U, S, ns)) {
            tsr_route_fill_move(&U->tb, sp->st[e][0], "%1");
            R->o[si].tmpl = strdup(U->tb.data);
            return true;
        }
        /* undo: the readers as they were (the same texts form the same bundles) */
        for (int s = 0; s < ns; s++)
            R->o[S[s][0]].feed[S[s][1]] = -1;
        R->o[si].spill = 0;
        reform(U, S, ns);
    }
    R->n--;
    return false;
}

/* (pack_route_bu.h) */
bool tsr_route_spill_waiting(struct bu *U, int p, int (*S)[2], int cap)
{
    struct route *R = U->R;
    for (int v = 0; v < U->n0; v++) {
        if (R->o[v].pos >= 0 || R->o[v].dropped || tsr_route_bu_ready(U, v, p))
            continue;
        int ns = tsr_route_bu_outstanding(U, v, S, cap);
        if (ns && tsr_route_spill(U, v, p, S, ns))
            return true;
    }
    return false;
}

/* (pack_route_bu.h) */
bool tsr_route_spill_place(struct bu *U, int p)
{
    struct route *R = U->R;
    bool any = false;
    for (int i = U->n0; i < R->n; i++) {
        struct rop *x = &R->o[i];
        if (!x->spill || x->pos >= 0 || p < x->minpos || !tsr_route_bu_ready(U, x->ref[0], p + R->o[x->ref[0]].lo))
            continue;
        int e = x->spill - 1;
        /* each of the element's stores (one per move op: the slots differ) */
        for (int k = 0; k < R->sp->nst[e] && x->pos < 0; k++) {
            tsr_route_fill_move(&U->tb, R->sp->st[e][k], "%1");
            free(x->tmpl);
            x->tmpl = strdup(U->tb.data);
            if (tsr_route_bu_place(U, i, p, NULL, 0))
                any = true;
            x = &R->o[i];
        }
    }
    return any;
}
