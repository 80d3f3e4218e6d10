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

/* Replaces in *s every token equal to tok (bounded as a source: tsr_pack_tok_before/after) by rep; the count. */
static int replace_tok(char **s, const char *tok, const char *rep)
{
    int n = 0;
    size_t tl = strlen(tok), rl = strlen(rep);
    for (char *p = strstr(*s, tok); p; p = strstr(p, tok)) {
        size_t at = (size_t)(p - *s);
        if (!tsr_pack_tok_before(*s, at) || !tsr_pack_tok_after(*s, at + tl)) {
            p += tl;
            continue;
        }
        size_t len = strlen(*s);
        char *q = malloc(len - tl + rl + 1);
        memcpy(q, *s, at);
        memcpy(q + at, rep, rl);
        memcpy(q + at + rl, *s + at + tl, len - at - tl + 1);
        free(*s);
        *s = q;
        p = q + at + rl;
        n++;
    }
    return n;
}

/* The count of value names (`%K`) in s. */
static int names_in(const char *s)
{
    int n = 0;
    for (const char *p = strchr(s, '%'); p; p = strchr(p + 1, '%'))
        n += p[1] >= '0' && p[1] <= '9';
    return n;
}

/* (pack_route.h) */
int tsr_route_unspill(const struct tsr_target *t, const char *path, const char *text, size_t len,
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
    int nel = 0, rf = tsr_route_spill_file(&R, &nel), n = R.n, nrep = 0;
    if (rf < 0 || !nel) {
        tsr_route_spill_free(&R);
        tsr_route_read_free(&R);
        return 0;
    }
    int *cur = malloc((size_t)nel * sizeof *cur);    /* per element: the name its last store-move stored, 0: none */
    int *sop = malloc((size_t)nel * sizeof *sop);    /* per element: the op that wrote it last, -1: none */
    bool *keep = calloc((size_t)n + 1, sizeof *keep);
    int *smove = calloc((size_t)n + 1, sizeof *smove);  /* 1: a store-move; 2: one whose element is written again */
    char **line = calloc((size_t)n + 1, sizeof *line);  /* per op: its tmpl with the loads replaced (NULL: as is) */
    /* a register file not declared `output` (the simulator's description): its values after the program are no
     * one's, so an element's last store-move goes too (fuzz/fuzz_repack.c leaves such an element out) */
    bool dead_end = false;
    for (int k = 0; t->sim && k < t->sim->nstates; k++)
        if (!strcmp(t->sim->state_names[k], R.D->state_names[rf]))
            dead_end = !t->sim->state_output[k];
    for (int e = 0; e < nel; e++) {
        cur[e] = 0;
        sop[e] = -1;
    }
    struct tsr_buf b = { 0 };
    for (int i = 0; i < n; i++) {
        const struct rop *x = &R.o[i];
        const struct tsr_vbundle *vb = x->ev.vb;
        char *s = strdup(x->tmpl);
        bool group = strstr(s, "; ") != NULL;   /* (a group kept whole: as it is) */
        /* its reads of the register file: by the name when a store-move wrote the element, else the store stays */
        for (int k = 0; vb && k < vb->nev; k++) {
            const struct tsr_vev *v = &vb->ev[k];
            bool rd = v->kind == TSR_V_RSTATE || v->kind == TSR_V_RLATE || v->kind == TSR_V_RDEFER;
            if (!rd || v->slot < 0 || v->id != rf || v->addr < 0 || v->addr >= nel)
                continue;
            int e = (int)v->addr, r = 0;
            char nm[24];
            snprintf(nm, sizeof nm, "%%%d", cur[e]);
            char *s2 = strdup(s);
            for (int a = 0; a < 2 && cur[e]; a++) {
                const char *ld = tsr_route_spill_load(&R, e, a);
                if (ld)
                    r += replace_tok(&s2, ld, nm);
            }
            if (r && !group && names_in(s2) <= ROUTE_MAXREF) {
                free(s);
                s = s2;
                nrep += r;
            } else {
                free(s2);
                if (sop[e] >= 0)
                    keep[sop[e]] = true;
            }
        }
        /* its writes: a store-move of a named value (unnamed, one write of one element, the text of a store
         * template with the value as its source) makes the element that value's */
        int nw = 0, we = -1;
        for (int k = 0; vb && k < vb->nev; k++)
            if (vb->ev[k].kind == TSR_V_WSTATE && vb->ev[k].id == rf) {
                nw++;
                we = (int)vb->ev[k].addr;
            }
        if (nw && we >= 0 && we < nel) {
            int name = 0;
            if (nw == 1 && !x->name && !group && names_in(s) == 1 && sscanf(strchr(s, '%') + 1, "%d", &name) == 1)
                for (int k = 0; name > 0; k++) {
                    const char *st = tsr_route_spill_store(&R, we, k);
                    if (!st) {
                        name = 0;
                        break;
                    }
                    char nm[24];
                    snprintf(nm, sizeof nm, "%%%d", name);
                    tsr_route_fill_move(&b, st, nm);
                    if (!strcmp(b.data, s))
                        break;
                }
            for (int k = 0; vb && k < vb->nev; k++)
                if (vb->ev[k].kind == TSR_V_WSTATE && vb->ev[k].id == rf && vb->ev[k].addr >= 0 &&
                    vb->ev[k].addr < nel) {
                    int e = (int)vb->ev[k].addr;
                    if (sop[e] >= 0 && smove[sop[e]])
                        smove[sop[e]] = 2;      /* (written again: it may go) */
                    cur[e] = name;
                    sop[e] = i;
                }
            smove[i] = name > 0;
        }
        if (strcmp(s, x->tmpl))
            line[i] = s;
        else
            free(s);
    }
    tsr_buf_free(&b);
    /* which store-moves go: none of their loads left, and their element written again or dead after the program */
    for (int i = 0; i < n; i++)
        smove[i] = smove[i] && !keep[i] && (smove[i] == 2 || dead_end);
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
            if (i < n && R.o[i].line == ln && (line[i] || smove[i])) {
                const struct rop *x = &R.o[i];
                if (!smove[i]) {
                    /* the line up to its op (indentation and name), then the op's new text */
                    size_t c = x->col ? x->col - 1 : 0;
                    tsr_buf_append(out, text + pos, c < end - pos ? c : end - pos);
                    if (x->name)
                        tsr_buf_printf(out, "%%%d: ", x->name);
                    tsr_buf_puts(out, line[i]);
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
        free(line[i]);
    free(line);
    free(cur);
    free(sop);
    free(keep);
    free(smove);
    tsr_route_spill_free(&R);
    tsr_route_read_free(&R);
    return nrep;
}
