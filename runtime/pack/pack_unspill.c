/* The input's register spills undone (docs/pack.md "Values through forwards"): a compiler that routed its values
 * itself may have stored one to a register (with a move, `mov.c/$0.x %59`, or by the op that computes it,
 * `add.a0/$0.x %27 t[7].x`: lima's spill of a value threaded too long) and loaded it back later (`add.a1 $0.x %70`).
 * That is routing, which the packer decides: here each such load reads the value by its name instead
 * (`add.a1 %59 %70`), and the store goes when no load of it is left and a later write of its element in the block
 * keeps the element's final value the input's (or no one reads the register file after the program).  The packer
 * schedules the texts and keeps the shortest (pack_route_blocks.c).  The register file, its load texts, its
 * store-moves and its store operands are the spills' own (pack_spill.c): everything comes from the description;
 * nothing here names a target, a unit or a field. */
#include <ctype.h>
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

/* A store undone where its loads allow: op `op` writes element e (its part `part` of a group), a store-move (the
 * part goes) or the store operand of a computing op (its text goes, the op's value named). */
struct ust {
    int op, e, part;
    bool move;
    bool keep;                  /* one of its loads stays */
    bool again;                 /* its element is written again later in the block */
};

/* The state of one pass over the ops (struct rop, in program order) of R. */
struct unspill {
    const struct route *R;
    int rf, nel, n;
    int mspan, cspan;   /* tsr_route_unspill's */
    int *cur;       /* per element: the name of the value a store undone put there, 0: none */
    int *rec;       /* per element: that store (an index into st), -1: none */
    struct ust *st;
    int nst, cap;
    int *name;      /* per op: the name of its value in the new text (the input's, else a new one), 0: none */
    int *namepart;  /* per op: the part of its group that name is on */
    int next;       /* the next new name */
    char **line;    /* per op: its tmpl with the loads replaced (NULL: as it is) */
    int *lastrd;    /* per op: the last load replaced of a store of it in the first pass, -1: none */
    struct tsr_buf b;
};

/* The name of the value store-move text s (a part: no "; ") stores to element e (one of the spills' store templates
 * with a value as its source), 0 when s is none. */
static int stored_name(struct unspill *u, int e, const char *s, size_t len)
{
    int name = 0;
    char *p = strndup(s, len);
    if (names_in(p) != 1 || sscanf(strchr(p, '%') + 1, "%d", &name) != 1)
        name = 0;
    for (int k = 0; name; k++) {
        const char *st = tsr_route_spill_store(u->R, e, k);
        if (!st) {
            name = 0;
            break;
        }
        char nm[24];
        snprintf(nm, sizeof nm, "%%%d", name);
        tsr_route_fill_move(&u->b, st, nm);
        if (!strcmp(u->b.data, p))
            break;
    }
    free(p);
    return name;
}

/* The name a move part of s (p, len bytes; no "; ") reads: one op with the attribute `move`, its one source a name
 * (with a forward's text for it, it assembles to that op alone), 0 when it is not so. */
static int move_of_name(struct unspill *u, const char *p, size_t len)
{
    const struct route *R = u->R;
    char *q = strndup(p, len), *at = strchr(q, '%');
    int name = 0;
    if (R->move_attr >= 0 && names_in(q) == 1 && sscanf(at + 1, "%d", &name) == 1) {
        char nm[24];
        snprintf(nm, sizeof nm, "%%%d", name);
        bool mv = false;
        for (int f = 0; f < R->D->nfwdtexts && f < 8 && !mv; f++) {
            char *c = strdup(q);
            uint32_t w[TSR_PACK_MAX_NWORDS];
            unsigned op = 0;
            uint64_t attrs = 0;
            mv = tsr_pack_replace_tok(&c, nm, R->D->fwdtexts[f].text) == 1 &&
                 !tsr_pack_assemble_cached(R->t, c, strlen(c), w) &&
                 tsr_route_real_ops(R->t, w, &op, NULL, &attrs) == 1 && (attrs >> R->move_attr & 1);
            free(c);
        }
        name = mv ? name : 0;
    }
    free(q);
    return name;
}

/* The offset in s of the one store operand text of element e there (not followed by a name's character), -1 when
 * there is none or more than one; its length in *len. */
static long store_at(const struct unspill *u, int e, const char *s, size_t *len)
{
    long at = -1;
    for (int k = 0; k < 2; k++) {
        const char *x = tsr_route_spill_storetext(u->R, e, k);
        size_t xl = x ? strlen(x) : 0;
        for (const char *p = xl ? strstr(s, x) : NULL; p; p = strstr(p + 1, x)) {
            unsigned char c = (unsigned char)p[xl];
            if (isalnum(c) || c == '_' || c == '.')
                continue;
            if (at >= 0)
                return -1;
            at = p - s;
            *len = xl;
        }
    }
    return at;
}

/* The part of group text s (parts joined by "; ") that offset at lies in. */
static int part_of(const char *s, long at)
{
    int p = 0;
    for (const char *g = strstr(s, "; "); g && g - s < at; g = strstr(g + 2, "; "))
        p++;
    return p;
}

/* The start and length of part p of s. */
static const char *part_text(const char *s, int p, size_t *len)
{
    for (int k = 0; k < p && s; k++)
        if ((s = strstr(s, "; ")))
            s += 2;
    if (!s)
        return NULL;
    const char *e = strstr(s, "; ");
    *len = e ? (size_t)(e - s) : strlen(s);
    return s;
}

static void add_store(struct unspill *u, int i, int e, int part, bool move, int name)
{
    if (u->nst == u->cap) {
        u->cap = u->cap ? 2 * u->cap : 64;
        u->st = realloc(u->st, (size_t)u->cap * sizeof *u->st);
    }
    u->st[u->nst] = (struct ust){ .op = i, .e = e, .part = part, .move = move };
    u->cur[e] = name;
    u->rec[e] = u->nst++;
}

/* Does s hold a load text of element e? */
static bool has_load(const struct unspill *u, int e, const char *s)
{
    bool has = false;
    for (int a = 0; a < 2 && !has; a++) {
        const char *ld = tsr_route_spill_load(u->R, e, a);
        char *c = ld ? strdup(s) : NULL;
        has = c && tsr_pack_replace_tok(&c, ld, "") > 0;
        free(c);
    }
    return has;
}

/* An access of an element the events do not name (an indexed one): every store undone so far stays; after a write
 * (clear) no element's value is known. */
static void unknown_access(struct unspill *u, bool clear)
{
    for (int e = 0; e < u->nel; e++) {
        if (u->rec[e] >= 0)
            u->st[u->rec[e]].keep = true;
        if (clear) {
            u->cur[e] = 0;
            u->rec[e] = -1;
        }
    }
}

/* Op i's reads of the register file by the name a store undone stored (else that store stays), then its writes: a
 * store-move of a named value (unnamed, one write of one element, the text of a store template with the value as its
 * source; a group's part too), a move of a name that does more, or a computing op's store
 * operand, makes the element that value's (in pass 1, only a store whose op's loads the first pass found within its
 * kind's span: u->mspan for store-moves, u->cspan for the others).  Returns the loads replaced. */
static int undo_op(struct unspill *u, int i, int pass)
{
    const struct rop *x = &u->R->o[i];
    const struct tsr_vbundle *vb = x->ev.vb;
    char *s = strdup(x->tmpl);
    int nrep = 0;
    for (int k = 0; vb && k < vb->nev; k++) {
        const struct tsr_vev *v = &vb->ev[k];
        bool rd = v->kind == TSR_V_RSTATE || v->kind == TSR_V_RLATE || v->kind == TSR_V_RDEFER;
        if (rd && v->slot >= 0 && v->id == u->rf && (v->addr < 0 || v->addr >= u->nel))
            unknown_access(u, false);
        if (!rd || v->slot < 0 || v->id != u->rf || v->addr < 0 || v->addr >= u->nel)
            continue;
        int e = (int)v->addr, r = 0;
        if (u->cur[e] && !has_load(u, e, s))
            continue;   /* (a second read of the element: its loads are replaced already) */
        char nm[24];
        snprintf(nm, sizeof nm, "%%%d", u->cur[e]);
        char *s2 = strdup(s);
        for (int a = 0; a < 2 && u->cur[e]; a++) {
            const char *ld = tsr_route_spill_load(u->R, e, a);
            if (ld)
                r += tsr_pack_replace_tok(&s2, ld, nm);
        }
        if (r && names_in(s2) <= ROUTE_MAXREF) {
            free(s);
            s = s2;
            nrep += r;
            if (!pass && u->lastrd[u->st[u->rec[e]].op] < i)
                u->lastrd[u->st[u->rec[e]].op] = i;
        } else {
            free(s2);
            if (u->rec[e] >= 0)
                u->st[u->rec[e]].keep = true;
        }
    }
    for (int k = 0; vb && k < vb->nev; k++)
        if (vb->ev[k].kind == TSR_V_WSTATE && vb->ev[k].id == u->rf &&
            (vb->ev[k].addr < 0 || vb->ev[k].addr >= u->nel))
            unknown_access(u, true);
    bool in_m = u->mspan >= 0 && (!pass || u->mspan == 0 || u->lastrd[i] - i <= u->mspan);
    bool in_c = u->cspan >= 0 && (!pass || u->cspan == 0 || u->lastrd[i] - i <= u->cspan);
    for (int k = 0; vb && k < vb->nev; k++) {
        const struct tsr_vev *v = &vb->ev[k];
        if (v->kind != TSR_V_WSTATE || v->id != u->rf)
            continue;
        if (v->addr < 0 || v->addr >= u->nel)
            continue;   /* (an unknown element: above) */
        int e = (int)v->addr;
        if (u->rec[e] >= 0)
            u->st[u->rec[e]].again = true;
        u->cur[e] = 0;
        u->rec[e] = -1;
        size_t xl = 0;
        long at = in_m || in_c ? store_at(u, e, s, &xl) : -1;
        if (at < 0)
            continue;
        int p = part_of(s, at);
        size_t pl = 0;
        const char *pt = part_text(s, p, &pl);
        int name = pt && (!x->name || x->namepart != p) ? stored_name(u, e, pt, pl) : 0;
        if (name && !in_m)
            continue;
        if (name) {
            add_store(u, i, e, p, true, name);
            continue;
        }
        /* a move of a name that does more (`mov.c/$1.y/v2.z %5`): its source's value, its store text goes */
        if (!in_c)
            continue;
        if (pt && (!x->name || x->namepart != p) && (name = move_of_name(u, pt, pl))) {
            add_store(u, i, e, p, false, name);
            continue;
        }
        /* a computing op's store: its value by its name (a new one where it has none; a group names one part) */
        if (!u->name[i]) {
            u->name[i] = u->next++;
            u->namepart[i] = p;
        }
        if (u->name[i] && u->namepart[i] == p)
            add_store(u, i, e, p, false, u->name[i]);
    }
    if (strcmp(s, x->tmpl))
        u->line[i] = s;
    else
        free(s);
    return nrep;
}

/* Does group text s (parts joined by "; ") still exchange registers: a part loads an element another part writes,
 * or the group reads and writes another state?  Its writes: the events of op x less the stores in gone[]. */
static bool exchanges(const struct unspill *u, const struct rop *x, const char *s, const bool *gone)
{
    const struct tsr_vbundle *vb = x->ev.vb;
    for (int k = 0; vb && k < vb->nev; k++) {
        const struct tsr_vev *v = &vb->ev[k];
        if (v->kind != TSR_V_WSTATE)
            continue;
        if (v->id != u->rf || v->addr < 0 || v->addr >= u->nel) {
            for (int j = 0; j < vb->nev; j++) {
                const struct tsr_vev *r = &vb->ev[j];
                if ((r->kind == TSR_V_RSTATE || r->kind == TSR_V_RLATE || r->kind == TSR_V_RDEFER) && r->id == v->id)
                    return true;
            }
            continue;
        }
        if (!gone[v->addr] && has_load(u, (int)v->addr, s))
            return true;
    }
    return false;
}

/* Writes op i's new text (after indentation ind): the stores that go removed, its name on its part; a group that no
 * longer exchanges registers as one line per part. */
static void write_op(struct unspill *u, int i, const char *ind, size_t indl, const bool *drop, struct tsr_buf *out)
{
    const struct rop *x = &u->R->o[i];
    const char *s0 = u->line[i] ? u->line[i] : x->tmpl;
    int np = 1;
    for (const char *g = strstr(s0, "; "); g; g = strstr(g + 2, "; "))
        np++;
    char **part = malloc((size_t)np * sizeof *part);
    bool *del = calloc((size_t)np, sizeof *del);
    for (int k = 0; k < np; k++) {
        size_t pl = 0;
        const char *pt = part_text(s0, k, &pl);
        part[k] = strndup(pt, pl);
    }
    bool *gone = calloc((size_t)u->nel, sizeof *gone);
    for (int r = 0; r < u->nst; r++) {
        const struct ust *w = &u->st[r];
        if (w->op != i || !drop[r] || w->part >= np)
            continue;
        gone[w->e] = true;
        if (w->move) {
            del[w->part] = true;
            continue;
        }
        size_t xl = 0;
        long at = store_at(u, w->e, part[w->part], &xl);
        if (at >= 0)
            memmove(part[w->part] + at, part[w->part] + at + (long)xl, strlen(part[w->part] + at + xl) + 1);
    }
    struct tsr_buf j = { 0 };
    int left = 0;
    for (int p = 0; p < np; p++)
        if (!del[p]) {
            tsr_buf_printf(&j, "%s%s", left++ ? "; " : "", part[p]);
        }
    bool split = np > 1 && !exchanges(u, x, j.data ? j.data : "", gone);
    int name = u->name[i], npart = u->namepart[i];
    bool first = true;
    for (int p = 0; p < np; p++) {
        if (del[p])
            continue;
        if (!first)
            tsr_buf_puts(out, split ? "\n" : "; ");
        if (first || split)
            tsr_buf_append(out, ind, indl);
        first = false;
        if (name && p == npart)
            tsr_buf_printf(out, "%%%d: ", name);
        tsr_buf_puts(out, part[p]);
    }
    for (int p = 0; p < np; p++)
        free(part[p]);
    free(part);
    free(del);
    free(gone);
    tsr_buf_free(&j);
}

/* (pack_route.h) */
int tsr_route_unspill(const struct tsr_target *t, const char *path, const char *text, size_t len, int mspan,
                      int cspan, struct tsr_buf *out)
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
    struct unspill u = { .R = &R, .n = R.n, .mspan = mspan, .cspan = cspan };
    u.rf = tsr_route_spill_file(&R, &u.nel);
    if (u.rf < 0 || !u.nel) {
        tsr_route_spill_free(&R);
        tsr_route_read_free(&R);
        return 0;
    }
    int n = R.n, nrep = 0, maxname = 0;
    for (int i = 0; i < n; i++)
        maxname = R.o[i].name > maxname ? R.o[i].name : maxname;
    u.cur = malloc((size_t)u.nel * sizeof *u.cur);
    u.rec = malloc((size_t)u.nel * sizeof *u.rec);
    u.name = calloc((size_t)n + 1, sizeof *u.name);
    u.namepart = calloc((size_t)n + 1, sizeof *u.namepart);
    u.line = calloc((size_t)n + 1, sizeof *u.line);
    u.lastrd = malloc(((size_t)n + 1) * sizeof *u.lastrd);
    for (int i = 0; i < n; i++)
        u.lastrd[i] = -1;
    /* (span: a first pass undoes every store to find each one's last load, the second those within span) */
    for (int pass = mspan > 0 || cspan > 0 ? 0 : 1; pass < 2; pass++) {
        nrep = 0;
        u.nst = 0;
        u.next = maxname + 1;
        for (int e = 0; e < u.nel; e++) {
            u.cur[e] = 0;
            u.rec[e] = -1;
        }
        for (int i = 0; i < n; i++) {
            u.name[i] = R.o[i].name;
            u.namepart[i] = R.o[i].namepart;
            free(u.line[i]);
            u.line[i] = NULL;
        }
        for (int i = 0; i < n; i++)
            nrep += undo_op(&u, i, pass);
    }
    tsr_buf_free(&u.b);
    /* a register file not declared `output` where the simulator's description declares some state so: its values
     * after the program are no one's, so an element's last store goes too (fuzz/fuzz_repack.c leaves such an
     * element out) */
    bool dead_end = false, outputs = false;
    for (int k = 0; t->sim && k < t->sim->nstates; k++) {
        outputs |= t->sim->state_output[k];
        if (!strcmp(t->sim->state_names[k], R.D->state_names[u.rf]))
            dead_end = !t->sim->state_output[k];
    }
    dead_end = dead_end && outputs;
    /* which stores go: none of their loads left, and their element written again or dead after the program */
    bool *drop = calloc((size_t)u.nst + 1, sizeof *drop);
    bool *touched = calloc((size_t)n + 1, sizeof *touched);
    for (int r = 0; r < u.nst; r++) {
        drop[r] = !u.st[r].keep && (u.st[r].again || dead_end);
        touched[u.st[r].op] |= drop[r];
    }
    for (int i = 0; i < n; i++)
        touched[i] |= u.line[i] != NULL || u.name[i] != R.o[i].name;
    /* the text: each op's line as it was, or its new text (blank when all of it goes) */
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
            if (i < n && R.o[i].line == ln && touched[i]) {
                size_t c = R.o[i].col ? R.o[i].col - 1 : 0;
                write_op(&u, i, text + pos, c < end - pos ? c : end - pos, drop, out);
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
    free(drop);
    free(touched);
    free(u.line);
    free(u.cur);
    free(u.rec);
    free(u.st);
    free(u.name);
    free(u.namepart);
    free(u.lastrd);
    tsr_route_spill_free(&R);
    tsr_route_read_free(&R);
    return nrep;
}
