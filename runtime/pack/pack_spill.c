/* Register spills of the packer for values routed through forwards (docs/pack.md "Values through forwards"; the
 * method of Mesa lima's gpir scheduler, in our own form): a value whose readers no move can reach in time is
 * stored to an element of a register file where the program's value of it is dead over the spill's life (an
 * element the program does not touch, or one whose next access after the spill is a write: input_dead), and each
 * of its outstanding reads loads that element in its own bundle; the store, a `move` op of the description with a
 * store, goes at least the register file's latency before the first load.  Everything comes from the
 * description: the move ops that store to a register (the alternatives of their operands that may be left out,
 * with each hole's values, assembled and read back as events: exactly one write of one element of one state), the
 * source texts that load one (the alternatives of a move's source: exactly one read), the register file (the
 * state with the most elements that have both), and the latency (tsr_pack_dep from such a store to such a load).
 * Nothing here names a target, a unit or a field. */
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
    char *(*sx)[2];             /* per element: the texts of the store operand that write it (`/$0.x`) */
    bool *used;                 /* elements never spilled to: no texts, or an input access of an unknown element */
    int **acc;                  /* per element: the input operations that access it (an op's read or any write), in
                                   program order: a spill takes it only where the input's value is dead (input_dead) */
    int *nacc;
    bool taken;                 /* a spill has taken an element the input accesses (tsr_route_spill_holds looks) */
};

/* Candidates over every state while the texts are found: index base[id] + element. */
struct cands {
    int nall, *base, *cnt;
    char *(*st)[SPILL_MAXST];
    int *nst;
    char *(*ld)[2];
    int *nld;
    char *(*sx)[2];
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
        for (int k = 0; k < 2; k++)
            if (!C->sx[c][k] || !strcmp(C->sx[c][k], text)) {
                if (!C->sx[c][k])
                    C->sx[c][k] = strdup(text);
                break;
            }
        return;
    }
    free(m);
}

/* The events of a store (the move template st with a forwarded value for its source) and of a load (a move of
 * R->mv reading the source text ld), each without the format's own deferred reads: false (es and el maybe
 * filled: free both) when either does not assemble. */
static bool store_load_events(const struct route *R, const char *st, const char *ld, struct tsr_buf *b,
                              struct tsr_pack_ev *es, struct tsr_pack_ev *el)
{
    const struct tsr_target *t = R->t;
    uint32_t ws[TSR_PACK_MAX_NWORDS], wl[TSR_PACK_MAX_NWORDS];
    bool ok = false;
    for (int f = 0; f < R->D->nfwdtexts && f < 8 && !ok; f++) {
        tsr_route_fill_move(b, st, R->D->fwdtexts[f].text);
        ok = !tsr_pack_assemble_cached(t, b->data, b->len, ws);
    }
    for (int m = 0; m < R->nmv && ok; m++) {
        tsr_route_fill_move(b, R->mv[m], ld);
        if (!tsr_pack_assemble_cached(t, b->data, b->len, wl)) {
            tsr_pack_ev_init(t, ws, es);
            tsr_pack_ev_init(t, wl, el);
            tsr_pack_ev_drop_format_deferred(es);
            tsr_pack_ev_drop_format_deferred(el);
            return true;
        }
    }
    return false;
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
    C.sx = calloc((size_t)C.nall, sizeof *C.sx);
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
        sp->sx = calloc((size_t)sp->nel, sizeof *sp->sx);
        sp->used = calloc((size_t)sp->nel, sizeof *sp->used);
        sp->acc = calloc((size_t)sp->nel, sizeof *sp->acc);
        sp->nacc = calloc((size_t)sp->nel, sizeof *sp->nacc);
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
            memcpy(sp->sx[e], C.sx[c], sizeof sp->sx[e]);
            C.nst[c] = C.nld[c] = 0;
            C.sx[c][0] = C.sx[c][1] = NULL;
            if (sp->lat >= 0)
                continue;
            /* the latency: tsr_pack_dep from a store of the element to a load of it */
            struct tsr_pack_ev es = { 0 }, el = { 0 };
            if (store_load_events(R, sp->st[e][0], sp->ld[e][0], &W.b, &es, &el)) {
                int d = tsr_pack_dep(D, &es, &el);
                sp->lat = d < 1 ? 1 : d;
            }
            tsr_pack_ev_free(&es);
            tsr_pack_ev_free(&el);
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
        free(C.sx[c][0]);
        free(C.sx[c][1]);
    }
    free(C.base);
    free(C.cnt);
    free(C.st);
    free(C.nst);
    free(C.ld);
    free(C.nld);
    free(C.sx);
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
            if (v->addr < 0 || v->addr >= sp->nel) {
                memset(sp->used, 1, (size_t)sp->nel * sizeof *sp->used);
                continue;
            }
            int a = (int)v->addr;
            if (sp->nacc[a] && sp->acc[a][sp->nacc[a] - 1] == i)
                continue;
            sp->acc[a] = realloc(sp->acc[a], ((size_t)sp->nacc[a] + 1) * sizeof **sp->acc);
            sp->acc[a][sp->nacc[a]++] = i;
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
        for (int k = 0; k < 2; k++) {
            free(sp->ld[e][k]);
            free(sp->sx[e][k]);
        }
        if (sp->acc)
            free(sp->acc[e]);
    }
    free(sp->acc);
    free(sp->nacc);
    free(sp->st);
    free(sp->nst);
    free(sp->ld);
    free(sp->sx);
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

/* (pack_route.h) */
int tsr_route_spill_file(const struct route *R, int *nel)
{
    *nel = R->sp ? R->sp->nel : 0;
    return R->sp ? R->sp->rf : -1;
}

/* (pack_route.h) */
const char *tsr_route_spill_store(const struct route *R, int e, int k)
{
    if (!R->sp || e < 0 || e >= R->sp->nel || k < 0 || k >= R->sp->nst[e])
        return NULL;
    return R->sp->st[e][k];
}

/* (pack_route.h) */
const char *tsr_route_spill_storetext(const struct route *R, int e, int k)
{
    if (!R->sp || e < 0 || e >= R->sp->nel || k < 0 || k > 1)
        return NULL;
    return R->sp->sx[e][k];
}

/* ---- the scheduler's side -------------------------------------------------------------------------- */

/* (pack_route_bu.h) */
bool tsr_route_spill_pending(const struct bu *U, int v)
{
    const struct route *R = U->R;
    const int *ins;
    int ni = tsr_route_bu_inserted(U, v, &ins);
    for (int k = 0; k < ni; k++)
        if (R->o[ins[k]].spill && R->o[ins[k]].pos < 0 && R->o[ins[k]].ref[0] == v)
            return true;
    return false;
}

/* The input operations that depend on input operation v, directly or not (its value's readers, tsr_pack_dep's
 * successors): dep[i] set (dep cleared by the caller). */
static void dependents(const struct bu *U, int v, bool *dep)
{
    for (int k = 0; k < U->nrd[v]; k++)
        if (!dep[U->rd[v][k]]) {
            dep[U->rd[v][k]] = true;
            dependents(U, U->rd[v][k], dep);
        }
    for (int k = 0; k < U->succ[v].n; k++)
        if (!dep[U->succ[v].e[k].to]) {
            dep[U->succ[v].e[k].to] = true;
            dependents(U, U->succ[v].e[k].to, dep);
        }
}

/* Does input operation i wait for spill store x: it is the store's value, or it accesses the store's element and
 * is not placed (tsr_route_spill_holds keeps it above the store)? */
static bool waits_for(const struct route *R, int i, const struct rop *x)
{
    if (i == x->ref[0])
        return true;
    if (R->o[i].pos >= 0)
        return false;
    const struct route_spill *sp = R->sp;
    for (int k = 0; k < sp->nacc[x->spill - 1]; k++)
        if (sp->acc[x->spill - 1][k] == i)
            return true;
    return false;
}

#define SPILL_MAXWAIT 32        /* spill stores waiting at once that the cycle check follows (more: refused) */

/* Can every spill store waiting for its place (R->o[U->n0..R->n) with a spill and no position) still be placed?
 * A store waits for every dependent of its value to be placed (tsr_route_bu_ready); an operation waits for a
 * store (waits_for).  Store y follows store x when an operation waiting for x depends on y's value: false when
 * that relation has a cycle (the schedule would never place them). */
static bool stores_can_go(const struct bu *U)
{
    const struct route *R = U->R;
    int w[SPILL_MAXWAIT], nw = 0;
    for (int i = U->n0; i < R->n; i++)
        if (R->o[i].spill && R->o[i].pos < 0) {
            if (nw == SPILL_MAXWAIT)
                return false;
            w[nw++] = i;
        }
    bool *dep = calloc((size_t)U->n0 + 1, sizeof *dep);
    uint64_t after[SPILL_MAXWAIT] = { 0 };   /* bit x of after[y]: store y waits for an operation waiting for x */
    for (int y = 0; y < nw; y++) {
        memset(dep, 0, (size_t)U->n0 * sizeof *dep);
        dependents(U, R->o[w[y]].ref[0], dep);
        for (int x = 0; x < nw; x++)
            for (int i = 0; i < U->n0 && !(after[y] >> x & 1); i++)
                if (dep[i] && waits_for(R, i, &R->o[w[x]]))
                    after[y] |= (uint64_t)1 << x;
    }
    free(dep);
    /* a cycle: remove the stores that wait for no other until none is left or none can go */
    uint64_t left = nw == 64 ? ~(uint64_t)0 : ((uint64_t)1 << nw) - 1;
    for (bool gone = true; left && gone;) {
        gone = false;
        for (int y = 0; y < nw; y++)
            if ((left >> y & 1) && !(after[y] & left)) {
                left &= ~((uint64_t)1 << y);
                gone = true;
            }
    }
    return !left;
}

/* Is the input's value of element e dead from a spill's store (at position qmax + the latency or higher) through
 * its loads (qmin..qmax) to the next write of the input, which must come (e keeps the input's final value)?  The
 * input operations that access e (an op's read or any write) and are placed are all below qmin (later), the first
 * of them (the highest position) writes e unconditionally and no op there reads it, at least tsr_pack_dep's
 * distance after a load and a store of e (at the nearest positions the spill's may take).  Those not placed yet
 * will go above the store (tsr_route_spill_holds), so they must not wait for what waits for the store
 * (stores_can_go, checked by the caller with the spill's store in place). */
static bool input_dead(struct bu *U, int e, int qmin, int qmax)
{
    const struct route *R = U->R;
    const struct route_spill *sp = R->sp;
    int top = -1;
    for (int k = 0; k < sp->nacc[e]; k++) {
        int q = R->o[sp->acc[e][k]].pos;
        if (q >= qmin)
            return false;
        top = q > top ? q : top;
    }
    if (top < 0)
        return false;   /* (no write after it: the final value would be the spill's) */
    bool kill = false;
    for (int k = 0; k < sp->nacc[e]; k++) {
        const struct tsr_pack_ev *x = &R->o[sp->acc[e][k]].ev;
        if (R->o[sp->acc[e][k]].pos != top)
            continue;
        for (int j = 0; x->vb && j < x->vb->nev; j++) {
            const struct tsr_vev *v = &x->vb->ev[j];
            if (v->id != sp->rf || v->addr != e)
                continue;
            if (v->slot >= 0 && (v->kind == TSR_V_RSTATE || v->kind == TSR_V_RLATE || v->kind == TSR_V_RDEFER))
                return false;
            kill |= v->kind == TSR_V_WSTATE && !v->cond && v->val == TSR_V_NOVAL;
        }
    }
    if (!kill)
        return false;
    struct tsr_pack_ev es = { 0 }, el = { 0 }, ew = { 0 };
    bool ok = store_load_events(R, sp->st[e][0], sp->ld[e][0], &U->tb, &es, &el);
    for (int k = 0; k < sp->nacc[e] && ok; k++) {
        const struct rop *x = &R->o[sp->acc[e][k]];
        if (x->pos != top)
            continue;
        tsr_pack_ev_init(R->t, x->w, &ew);
        tsr_pack_ev_drop_format_deferred(&ew);
        ok = tsr_pack_dep(R->D, &el, &ew) <= qmin - top && tsr_pack_dep(R->D, &es, &ew) <= qmax + sp->lat - top;
    }
    tsr_pack_ev_free(&es);
    tsr_pack_ev_free(&el);
    tsr_pack_ev_free(&ew);
    return ok;
}

/* May element e hold a value loaded at positions qmin..qmax (and stored later, higher)?  It has store texts, the
 * input's value of it is dead there (input_dead; with touched false, the input does not access it at all), and
 * every other spill's store to it is placed below the first of those loads (their lives do not meet). */
static bool elem_free(struct bu *U, int e, int qmin, int qmax, int self, bool touched)
{
    const struct route *R = U->R;
    if (R->sp->used[e] || !R->sp->nst[e] || (R->sp->nacc[e] > 0) != touched)
        return false;
    for (int i = U->n0; i < R->n; i++)
        if (i != self && R->o[i].spill == e + 1 && (R->o[i].pos < 0 || R->o[i].pos >= qmin))
            return false;
    return !touched || input_dead(U, e, qmin, qmax);
}

/* (pack_route_bu.h) */
bool tsr_route_spill_holds(const struct bu *U, int i, int p)
{
    const struct route *R = U->R;
    const struct route_spill *sp = R->sp;
    if (!sp || !sp->taken || i >= U->n0)
        return false;
    bool held = false;
    for (int s = U->n0; s < R->n && !held; s++) {
        const struct rop *x = &R->o[s];
        if (!x->spill || !sp->nacc[x->spill - 1] || !waits_for(R, i, x))
            continue;
        if (x->pos < 0)
            return true;
        /* placed (at p or below): at least the dependence's distance */
        struct tsr_pack_ev ei = { 0 }, ex = { 0 };
        tsr_pack_ev_init(R->t, R->o[i].w, &ei);
        tsr_pack_ev_init(R->t, x->iw, &ex);
        tsr_pack_ev_drop_format_deferred(&ei);
        tsr_pack_ev_drop_format_deferred(&ex);
        held = tsr_pack_dep(R->D, &ei, &ex) > p - x->pos;
        tsr_pack_ev_free(&ei);
        tsr_pack_ev_free(&ex);
    }
    return held;
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

/* tsr_route_spill; lives: an element the input uses may be taken where its value is dead (after every element the
 * input does not use).  Only a spill without which the schedule fails takes one: a setting that schedules without
 * it schedules as it did. */
static bool spill(struct bu *U, int v, int p, int (*S)[2], int ns, bool lives)
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
    /* the elements the input does not access first, then those where its value is dead */
    for (int k = 0; k < (lives ? 2 : 1) * sp->nel; k++) {
        int e = k % sp->nel;
        if (!elem_free(U, e, qmin, qmax, si, k >= sp->nel))
            continue;
        R->o[si].spill = e + 1;
        if (k >= sp->nel && !stores_can_go(U)) {
            R->o[si].spill = 0;
            continue;
        }
        for (int s = 0; s < ns; s++)
            R->o[S[s][0]].feed[S[s][1]] = si;
        if (reform(U, S, ns)) {
            sp->taken |= k >= sp->nel;
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
    tsr_route_bu_drop_last(R);
    return false;
}

/* (pack_route_bu.h) */
bool tsr_route_spill(struct bu *U, int v, int p, int (*S)[2], int ns)
{
    return spill(U, v, p, S, ns, true);
}

/* (pack_route_bu.h) */
bool tsr_route_spill_value(struct bu *U, int v, int p, int (*S)[2], int cap)
{
    int ns = tsr_route_bu_outstanding(U, v, S, cap);
    return ns > 0 && spill(U, v, p, S, ns, false);
}

/* (pack_route_bu.h) */
bool tsr_route_spill_waiting(struct bu *U, int p, int (*S)[2], int cap)
{
    struct route *R = U->R;
    for (int v = 0; v < U->n0; v++) {
        if (R->o[v].pos < 0 && !R->o[v].dropped && !tsr_route_bu_ready(U, v, p) &&
            tsr_route_spill_value(U, v, p, S, cap))
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

/* (pack_route_bu.h) */
const char *tsr_route_spill_quiet(const struct bu *U, int k)
{
    const struct route *R = U->R;
    if (!R->sp)
        return NULL;
    for (int e = 0; e < R->sp->nel; e++) {
        bool written = R->sp->used[e] || R->sp->nacc[e] > 0;
        for (int i = U->n0; i < R->n && !written; i++)
            written = R->o[i].spill == e + 1;
        for (int alt = 0; alt < 2 && !written; alt++)
            if (R->sp->ld[e][alt] && k-- == 0)
                return R->sp->ld[e][alt];
    }
    return NULL;
}
