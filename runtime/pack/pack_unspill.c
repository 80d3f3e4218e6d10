/* The input's register spills through moves, undone (docs/pack.md "Values through forwards"): a compiler that
 * routed its values itself may have stored one to a register with a move (`mov.c/$0.x %59`, lima's spill of a value
 * threaded too long) and loaded it back later (`add.a1 $0.x %70`).  That is routing, which the packer decides: here
 * each such load reads the value by its name instead (`add.a1 %59 %70`), and the store-move goes when no load of it
 * is left and a later write of its element in the block keeps the element's final value the input's.  The packer
 * schedules both texts and keeps the shorter (pack_route_blocks.c).  The register file, its load texts and its
 * store-moves are the spills' own (pack_spill.c): everything comes from the description; nothing here names a
 * target, a unit or a field. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pack_route.h"
#include "pack_int.h"
#include "sim/sim.h"
#include "target.h"

/* The count of value names (`%K`) in s. */
static int names_in(const char *s)
{
    int n = 0;
    for (const char *p = strchr(s, '%'); p; p = strchr(p + 1, '%'))
        n += p[1] >= '0' && p[1] <= '9';
    return n;
}

/* The state of one pass over the ops (struct rop, in program order) of R. */
struct unspill {
    const struct route *R;
    int rf, nel, n;
    int *cur;       /* per element: the name its last store-move stored, 0: none */
    int *sop;       /* per element: the op that wrote it last, -1: none */
    bool *keep;     /* per op: a store-move one of whose loads stays */
    int *smove;     /* per op: 1 a store-move, 2 one whose element is written again */
    char **line;    /* per op: its tmpl with the loads replaced (NULL: as it is) */
    int *lastrd;    /* per store-move: its last load replaced in the first pass, -1: none */
    struct tsr_buf b;
};

/* The name of the value store-move text s stores to element e (one of the spills' store templates with a value as
 * its source), 0 when s is none. */
static int stored_name(struct unspill *u, int e, const char *s)
{
    int name = 0;
    if (names_in(s) != 1 || sscanf(strchr(s, '%') + 1, "%d", &name) != 1)
        return 0;
    for (int k = 0;; k++) {
        const char *st = tsr_route_spill_store(u->R, e, k);
        if (!st)
            return 0;
        char nm[24];
        snprintf(nm, sizeof nm, "%%%d", name);
        tsr_route_fill_move(&u->b, st, nm);
        if (!strcmp(u->b.data, s))
            return name;
    }
}

/* Op i's reads of the register file by the name a store-move stored (else that store stays), then its writes: a
 * store-move of a named value (unnamed, one write of one element, the text of a store template with the value as its
 * source; in pass 1 with span > 0, one whose loads the first pass found within span ops) makes the element that
 * value's.  Returns the loads replaced. */
static int undo_op(struct unspill *u, int i, int pass, int span)
{
    const struct rop *x = &u->R->o[i];
    const struct tsr_vbundle *vb = x->ev.vb;
    char *s = strdup(x->tmpl);
    bool group = strstr(s, "; ") != NULL;   /* (a group kept whole: as it is) */
    int nrep = 0;
    for (int k = 0; vb && k < vb->nev; k++) {
        const struct tsr_vev *v = &vb->ev[k];
        bool rd = v->kind == TSR_V_RSTATE || v->kind == TSR_V_RLATE || v->kind == TSR_V_RDEFER;
        if (!rd || v->slot < 0 || v->id != u->rf || v->addr < 0 || v->addr >= u->nel)
            continue;
        int e = (int)v->addr, r = 0;
        char nm[24];
        snprintf(nm, sizeof nm, "%%%d", u->cur[e]);
        char *s2 = strdup(s);
        for (int a = 0; a < 2 && u->cur[e]; a++) {
            const char *ld = tsr_route_spill_load(u->R, e, a);
            if (ld)
                r += tsr_pack_replace_tok(&s2, ld, nm);
        }
        if (r && !group && names_in(s2) <= ROUTE_MAXREF) {
            free(s);
            s = s2;
            nrep += r;
            if (!pass)
                u->lastrd[u->sop[e]] = i;
        } else {
            free(s2);
            if (u->sop[e] >= 0)
                u->keep[u->sop[e]] = true;
        }
    }
    int nw = 0, we = -1;
    for (int k = 0; vb && k < vb->nev; k++)
        if (vb->ev[k].kind == TSR_V_WSTATE && vb->ev[k].id == u->rf) {
            nw++;
            we = (int)vb->ev[k].addr;
        }
    if (nw && we >= 0 && we < u->nel) {
        bool in_span = !pass || span <= 0 || u->lastrd[i] - i <= span;
        int name = nw == 1 && !x->name && !group && in_span ? stored_name(u, we, s) : 0;
        for (int k = 0; vb && k < vb->nev; k++)
            if (vb->ev[k].kind == TSR_V_WSTATE && vb->ev[k].id == u->rf && vb->ev[k].addr >= 0 &&
                vb->ev[k].addr < u->nel) {
                int e = (int)vb->ev[k].addr;
                if (u->sop[e] >= 0 && u->smove[u->sop[e]])
                    u->smove[u->sop[e]] = 2;      /* (written again: it may go) */
                u->cur[e] = name;
                u->sop[e] = i;
            }
        u->smove[i] = name > 0;
    }
    if (strcmp(s, x->tmpl))
        u->line[i] = s;
    else
        free(s);
    return nrep;
}

/* (pack_route.h) */
int tsr_route_unspill(const struct tsr_target *t, const char *path, const char *text, size_t len, int span,
                      struct tsr_buf *out)
{
    struct tsr_diag dq;
    tsr_diag_init(&dq, TSR_DIAG_STORE, NULL);
    struct route R;
    int rc = tsr_route_read(&R, t, path, text, len, 0, &dq);
    tsr_diag_fini(&dq);
    if (rc) {
        tsr_route_read_free(&R);
        return 0;
    }
    tsr_route_moves(&R);
    tsr_route_spill_init(&R);
    struct unspill u = { .R = &R, .n = R.n };
    u.rf = tsr_route_spill_file(&R, &u.nel);
    if (u.rf < 0 || !u.nel) {
        tsr_route_spill_free(&R);
        tsr_route_read_free(&R);
        return 0;
    }
    int n = R.n, nrep = 0;
    u.cur = malloc((size_t)u.nel * sizeof *u.cur);
    u.sop = malloc((size_t)u.nel * sizeof *u.sop);
    u.keep = calloc((size_t)n + 1, sizeof *u.keep);
    u.smove = calloc((size_t)n + 1, sizeof *u.smove);
    u.line = calloc((size_t)n + 1, sizeof *u.line);
    u.lastrd = malloc(((size_t)n + 1) * sizeof *u.lastrd);
    for (int i = 0; i < n; i++)
        u.lastrd[i] = -1;
    /* (span: a first pass undoes every store-move to find each one's last load, the second those within span) */
    for (int pass = span > 0 ? 0 : 1; pass < 2; pass++) {
        nrep = 0;
        for (int e = 0; e < u.nel; e++) {
            u.cur[e] = 0;
            u.sop[e] = -1;
        }
        for (int i = 0; i < n; i++) {
            u.keep[i] = false;
            u.smove[i] = 0;
            free(u.line[i]);
            u.line[i] = NULL;
        }
        for (int i = 0; i < n; i++)
            nrep += undo_op(&u, i, pass, span);
    }
    tsr_buf_free(&u.b);
    /* a register file not declared `output` (the simulator's description): its values after the program are no
     * one's, so an element's last store-move goes too (fuzz/fuzz_repack.c leaves such an element out) */
    bool dead_end = false;
    for (int k = 0; t->sim && k < t->sim->nstates; k++)
        if (!strcmp(t->sim->state_names[k], R.D->state_names[u.rf]))
            dead_end = !t->sim->state_output[k];
    /* which store-moves go: none of their loads left, and their element written again or dead after the program */
    for (int i = 0; i < n; i++)
        u.smove[i] = u.smove[i] && !u.keep[i] && (u.smove[i] == 2 || dead_end);
    /* the text: each op's line as it was, its loads replaced, or blank for a store-move that goes */
    if (nrep) {
        tsr_buf_clear(out);
        size_t pos = 0;
        unsigned ln = 1;
        int i = 0;
        while (pos < len) {
            const char *e = memchr(text + pos, '\n', len - pos);
            size_t end = e ? (size_t)(e - text) : len;
            while (i < n && R.o[i].line < ln)
                i++;
            if (i < n && R.o[i].line == ln && (u.line[i] || u.smove[i])) {
                const struct rop *x = &R.o[i];
                if (!u.smove[i]) {
                    /* the line up to its op (indentation and name), then the op's new text */
                    size_t c = x->col ? x->col - 1 : 0;
                    tsr_buf_append(out, text + pos, c < end - pos ? c : end - pos);
                    if (x->name)
                        tsr_buf_printf(out, "%%%d: ", x->name);
                    tsr_buf_puts(out, u.line[i]);
                }
            } else {
                tsr_buf_append(out, text + pos, end - pos);
            }
            if (e)
                tsr_buf_puts(out, "\n");
            pos = end + 1;
            ln++;
        }
    }
    for (int i = 0; i < n; i++)
        free(u.line[i]);
    free(u.line);
    free(u.cur);
    free(u.sop);
    free(u.keep);
    free(u.smove);
    free(u.lastrd);
    tsr_route_spill_free(&R);
    tsr_route_read_free(&R);
    return nrep;
}
