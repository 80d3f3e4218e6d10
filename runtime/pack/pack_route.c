/* The packer for values routed through forwards (docs/pack.md "Values through forwards"; docs/mdl.md X6
 * "Packer"): the input names values (`%12: mul.m0 t[0].x a0.x`, read as `add.a0 %12 t[5].x`), and the packer
 * decides how each value reaches its readers.  This file reads the input, makes each operation's instance for the
 * analysis, drops the input's plain moves of a named value (a move op with nothing else: no store; their readers
 * read the source, so that the packer routes every value itself), finds the move templates (the description's
 * `move` ops, docs/mdl.md X12, and the input's), the other dependences (tsr_pack_dep: registers with their
 * latency, order) and the lower bound, and checks the whole output; the bottom-up scheduler that places each
 * operation and inserts the moves is pack_route_bu.c.  Each basic block alone (tsr_pack_route, below).  The
 * assembler decides what fits one bundle (shared fields, load units), the simulator that a joined bundle does what
 * its parts do, and the validator checks the whole output.  Nothing here names a target, a unit or a field. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pack_route.h"
#include "diag.h"
#include "fileout.h"
#include "hexio.h"
#include "target.h"
#include "text/textcodec.h"


static int attr_index(const struct tsr_target *t, const char *name)
{
    for (unsigned a = 0; t->attr_names && a < t->nattrs && a < 64; a++)
        if (!strcmp(t->attr_names[a], name))
            return (int)a;
    return -1;
}

bool tsr_pack_has_names(const char *text, size_t len)
{
    for (size_t i = 0; i < len;) {
        size_t e = i;
        while (e < len && text[e] != '\n')
            e++;
        size_t p = i;
        while (p < e && (text[p] == ' ' || text[p] == '\t'))
            p++;
        if (p + 2 < e && text[p] == '%' && text[p + 1] >= '0' && text[p + 1] <= '9') {
            size_t q = p + 1;
            while (q < e && text[q] >= '0' && text[q] <= '9')
                q++;
            if (q < e && text[q] == ':')
                return true;
        }
        i = e + 1;
    }
    return false;
}

/* (pack_route.h) */
int tsr_route_real_ops(const struct tsr_target *t, const uint32_t *w, unsigned *op, unsigned *slot, uint64_t *attrs)
{
    void *inst = calloc(1, t->inst_size);
    if (!inst)
        abort();
    int k = 0;
    if (attrs)
        *attrs = 0;
    if (!t->decode(w, inst))
        for (unsigned s = 0; s < t->nslots; s++) {
            unsigned x = t->inst_op(inst, s);
            if (tsr_pack_op_idle(t, x))
                continue;
            k++;
            *op = x;
            if (slot)
                *slot = s;
            if (attrs && t->op_attrs)
                *attrs |= t->op_attrs[x];
        }
    free(inst);
    return k;
}

/* ---- move templates: from the description's ops with the attribute `move` ---------------------------- */

/* The text of op `op` with its stores and optional parts left out and "%" for its one source, or NULL when its
 * template has holes other than operands (an operand with an empty alternative is left empty; exactly one other
 * operand: the source). */
static char *move_template(const struct tsr_target *t, unsigned op)
{
    const struct tsr_tc_isa *I = t->text;
    const struct tsr_tc_op *O = &I->ops[op];
    struct tsr_buf b = { 0 };
    int src = 0;
    for (uint32_t p = 0; p < O->npart; p++) {
        const struct tsr_tc_part *P = &I->parts[O->part + p];
        if (P->kind == TSR_TC_TEXT) {
            tsr_buf_append(&b, P->text, P->len);
        } else if (P->kind == TSR_TC_SPACE) {
            tsr_buf_puts(&b, " ");
        } else if (P->kind == TSR_TC_OPT) {
            continue;
        } else if (P->kind == TSR_TC_OPND) {
            const struct tsr_tc_opnd *N = &I->opnds[P->arg];
            bool empty = false;
            for (uint32_t a = 0; a < N->nalt && !empty; a++) {
                const struct tsr_tc_alt *A = &I->alts[N->alt + a];
                empty = A->npart == 0 || (A->npart == 1 && I->parts[A->part].kind == TSR_TC_TEXT &&
                                          I->parts[A->part].len == 0);
            }
            if (!empty) {
                tsr_buf_puts(&b, "%");
                src++;
            }
        } else {
            src = 99;
        }
    }
    char *r = src == 1 && b.data ? strdup(b.data) : NULL;
    tsr_buf_free(&b);
    return r;
}

/* Replaces the first "%" of tmpl by src into b (cleared first). */
void tsr_route_fill_move(struct tsr_buf *b, const char *tmpl, const char *src)
{
    tsr_buf_clear(b);
    const char *p = strchr(tmpl, '%');
    tsr_buf_append(b, tmpl, (size_t)(p - tmpl));
    tsr_buf_puts(b, src);
    tsr_buf_puts(b, p + 1);
}

/* (pack_route.h) */
void tsr_route_moves(struct route *R)
{
    const struct tsr_target *t = R->t;
    if (R->move_attr < 0 || !t->text)
        return;
    R->mv = calloc(t->nops + 1, sizeof *R->mv);
    for (unsigned op = 0; op < t->nops; op++) {
        if (!(t->op_attrs[op] >> R->move_attr & 1))
            continue;
        char *m = move_template(t, op);
        if (!m)
            continue;
        /* it must assemble with a forwarded source and write one forward element, nothing else (no store) */
        bool ok = false;
        for (int f = 0; f < R->D->nfwdtexts && !ok; f++) {
            struct tsr_buf b = { 0 };
            tsr_route_fill_move(&b, m, R->D->fwdtexts[f].text);
            uint32_t w[TSR_PACK_MAX_NWORDS];
            if (!t->assemble_one(b.data, b.len, 0, w, NULL, 0)) {
                struct tsr_pack_ev e = { 0 };
                tsr_pack_ev_events(t, w, &e);
                int nw = 0, bad = 0;
                for (int k = 0; e.vb && k < e.vb->nev; k++) {
                    int kd = e.vb->ev[k].kind;
                    bad += kd == TSR_V_WSTATE || kd == TSR_V_WSPACE || kd == TSR_V_JUMP || kd == TSR_V_HALT;
                    nw += kd == TSR_V_WFWD && e.vb->ev[k].slot >= 0;   /* (not the format's own: every
                                                                          instruction's) */
                }
                ok = e.vb && nw == 1 && !bad;
                tsr_pack_ev_free(&e);
            }
            tsr_buf_free(&b);
        }
        bool dup = false;
        for (int k = 0; k < R->nmv && ok; k++)
            dup |= !strcmp(R->mv[k], m);
        if (ok && !dup)
            R->mv[R->nmv++] = m;
        else
            free(m);
    }
}

/* ---- the input --------------------------------------------------------------------------------------- */

/* A new operation at the end of R->o.  While scheduling (R->fixed) the array does not move (bundles point into
 * it): NULL when it is full. */
/* (pack_route.h) */
struct rop *tsr_route_new_op(struct route *R)
{
    if (R->n == R->cap) {
        R->cap = R->cap ? 2 * R->cap : 64;
        R->o = realloc(R->o, (size_t)R->cap * sizeof *R->o);
        if (!R->o)
            abort();
    }
    struct rop *x = &R->o[R->n++];
    memset(x, 0, sizeof *x);
    x->fwd = -1;
    x->pos = -1;
    x->cyc = -1;
    for (int r = 0; r < ROUTE_MAXREF; r++)
        x->feed[r] = -1;
    return x;
}

static int find_name(const struct route *R, int name, int before)
{
    for (int i = before - 1; i >= 0; i--)
        if (R->o[i].name == name)
            return i;
    return -1;
}

/* Reads the program into R->o: one operation per line, `%K: ` in front of a named value. */
static int parse(struct route *R, const char *path, const char *text, size_t len, unsigned line0, struct tsr_diag *d)
{
    int rc = 0;
    unsigned line = line0;
    for (size_t i = 0; i < len;) {
        size_t e = i;
        while (e < len && text[e] != '\n')
            e++;
        line++;
        char *s = strndup(text + i, e - i);
        i = e + 1;
        char *c = strstr(s, "//");
        if (c)
            *c = 0;
        size_t a = strspn(s, " \t"), z = strlen(s);
        while (z > a && (s[z - 1] == ' ' || s[z - 1] == '\t' || s[z - 1] == '\r'))
            z--;
        s[z] = 0;
        if (a == z) {
            free(s);
            continue;
        }
        unsigned col = (unsigned)a + 1;
        char *p = s + a;
        int name = 0;
        if (p[0] == '%' && p[1] >= '0' && p[1] <= '9') {
            char *q = p + 1;
            long v = strtol(q, &q, 10);
            if (*q == ':') {
                name = (int)v;
                if (name <= 0 || find_name(R, name, R->n) >= 0) {
                    rc = tsr_diag_error(d, path, line, col, "value name '%%%d' %s", name,
                                        name <= 0 ? "must be a positive number" : "is defined twice");
                    free(s);
                    continue;
                }
                p = q + 1 + strspn(q + 1, " \t");
            }
        }
        /* a group's line may name a later part's value: `a; %K: b` */
        int namepart = 0;
        for (char *g = strstr(p, "; %"); g && !rc; g = strstr(g + 2, "; %")) {
            char *q = g + 3;
            long v = strtol(q, &q, 10);
            if (q == g + 3 || *q != ':')
                continue;
            if (name || v <= 0 || find_name(R, (int)v, R->n) >= 0) {
                rc = tsr_diag_error(d, path, line, col, "%s",
                                    name ? "a group of operations names at most one value"
                                    : v <= 0 ? "a value name must be a positive number"
                                             : "a value name is defined twice");
                break;
            }
            name = (int)v;
            for (char *c2 = p; c2 < g; c2++)
                namepart += c2[0] == ';' && c2[1] == ' ';
            namepart++;
            q++;
            q += strspn(q, " \t");
            memmove(g + 2, q, strlen(q) + 1);
        }
        if (rc) {
            free(s);
            continue;
        }
        if (p[0] == '.' || (strchr(p, ':') && !strchr(p, ' '))) {
            rc = tsr_diag_error(d, path, line, col, "a program with value names is straight-line code: labels "
                                "and directives are not supported ('%s')", p);
            free(s);
            continue;
        }
        struct rop *x = tsr_route_new_op(R);
        x->tmpl = strdup(p);
        x->line = line;
        x->col = col;
        x->name = name;
        x->namepart = namepart;
        /* its references */
        for (size_t k = 0; x->tmpl[k]; k++) {
            if (x->tmpl[k] != '%' || !tsr_pack_tok_before(x->tmpl, k))
                continue;
            char *q = x->tmpl + k + 1;
            long v = strtol(q, &q, 10);
            if (q == x->tmpl + k + 1 || !tsr_pack_tok_after(x->tmpl, (size_t)(q - x->tmpl)))
                continue;
            int prod = find_name(R, (int)v, R->n - 1);
            if (prod < 0) {
                rc = tsr_diag_error(d, path, line, col + (unsigned)(p - s - (long)a) + (unsigned)k,
                                    "value '%%%ld' is not defined before this operation", v);
                continue;
            }
            bool have = false;
            for (int r = 0; r < x->nref; r++)
                have |= x->refname[r] == (int)v;
            if (have)
                continue;
            if (x->nref == ROUTE_MAXREF) {
                rc = tsr_diag_error(d, path, line, col, "an operation reads at most %d values", ROUTE_MAXREF);
                break;
            }
            x->refname[x->nref] = (int)v;
            x->ref[x->nref++] = prod;
        }
        free(s);
    }
    return rc;
}

/* tmpl with each `%K` (K = names[r]) replaced by texts[r] into b (cleared first); swap: its last two
 * blank-separated sources exchanged (a commutative op). */
void tsr_route_instantiate(struct tsr_buf *b, const char *tmpl, int n, const int *names, const char *const *texts,
                           bool swap)
{
    tsr_buf_clear(b);
    for (size_t k = 0; tmpl[k];) {
        if (tmpl[k] == '%' && tsr_pack_tok_before(tmpl, k)) {
            char *q;
            long v = strtol(tmpl + k + 1, &q, 10);
            int r = -1;
            for (int j = 0; j < n && q != tmpl + k + 1; j++)
                if (names[j] == (int)v)
                    r = j;
            if (r >= 0 && tsr_pack_tok_after(tmpl, (size_t)(q - tmpl))) {
                tsr_buf_puts(b, texts[r]);
                k = (size_t)(q - tmpl);
                continue;
            }
        }
        tsr_buf_append(b, tmpl + k, 1);
        k++;
    }
    if (!swap || !b->data)
        return;
    char *s = b->data;
    char *l2 = strrchr(s, ' ');
    if (!l2)
        return;
    *l2 = 0;
    char *l1 = strrchr(s, ' ');
    *l2 = ' ';
    if (!l1 || strchr(l1 + 1, ',') || strchr(l2 + 1, ','))
        return;
    struct tsr_buf o = { 0 };
    tsr_buf_append(&o, s, (size_t)(l1 - s) + 1);
    tsr_buf_puts(&o, l2 + 1);
    tsr_buf_puts(&o, " ");
    tsr_buf_append(&o, l1 + 1, (size_t)(l2 - l1 - 1));
    tsr_buf_clear(b);
    tsr_buf_puts(b, o.data);
    tsr_buf_free(&o);
}

/* The forward element an instance's op writes to be read later (ages from 1), from its events: *fwd -1 if none. */
void tsr_route_written(const struct tsr_pack_ev *e, int *fwd, int *elem, int *lo, int *hi)
{
    *fwd = -1;
    for (int k = 0; e->vb && k < e->vb->nev; k++) {
        const struct tsr_vev *v = &e->vb->ev[k];
        if (v->kind != TSR_V_WFWD || v->addr < 0 || v->slot < 0)   /* (an op's value, not the format's) */
            continue;
        int l = (int)(v->val & 0xff), h = (int)(v->val >> 8 & 0xff);
        if (h < 1)
            continue;
        *fwd = v->id;
        *elem = (int)v->addr;
        *lo = l < 1 ? 1 : l;
        *hi = h;
        return;
    }
}


/* Is event v one every move has: its op, a forward it writes, or the format's own reads (what every instruction
 * does: a load unit that loads whether used or not)? */
static bool move_event(const struct tsr_vev *v)
{
    int kd = v->kind;
    return kd == TSR_V_OP || kd == TSR_V_WFWD ||
           ((kd == TSR_V_RFWD || kd == TSR_V_RSTATE || kd == TSR_V_RDEFER) && v->slot < 0);
}

/* Does input operation x (one op with the attribute `move`) have no effect but its forward write: no write of
 * state (a store), no control, exactly one forward written?  The format's own reads and forward writes (what every
 * instruction does: a load unit that loads whether used or not) do not count; with load, neither do the op's reads
 * of state (its source a load) and its uses of resources (the load unit's fields). */
static bool plain_move(const struct rop *x, bool load)
{
    bool plain = true;
    int nw = 0;
    for (int e = 0; x->ev.vb && e < x->ev.vb->nev && plain; e++) {
        const struct tsr_vev *v = &x->ev.vb->ev[e];
        int kd = v->kind;
        bool rd = kd == TSR_V_RSTATE || kd == TSR_V_RDEFER || kd == TSR_V_RLATE;
        plain = move_event(v) || (kd == TSR_V_RFWD && v->val >= 1) || (load && (rd || kd == TSR_V_USE));
        nw += kd == TSR_V_WFWD && v->slot >= 0;
    }
    return x->ev.vb && plain && nw == 1;
}

/* Is input operation x (one op with the attribute `move`, its source a text) a copy of a state element into itself:
 * beside move_event's, one read of an element by its source and one unconditional write of all of that element,
 * nothing else (lima's reload and store again of a spilled register, `mov.c/$0.x $0.x`)?  Its value unnamed, the
 * program's state in sequential order is as it was without it. */
static bool self_copy(const struct rop *x)
{
    int nr = 0, nw = 0, rid = -1, rad = -1, wid = -2, wad = -2;
    for (int e = 0; x->ev.vb && e < x->ev.vb->nev; e++) {
        const struct tsr_vev *v = &x->ev.vb->ev[e];
        int kd = v->kind;
        if (move_event(v))
            continue;
        if (kd == TSR_V_RSTATE || kd == TSR_V_RDEFER) {
            nr++;
            rid = v->id;
            rad = (int)v->addr;
        } else if (kd == TSR_V_WSTATE && !v->cond && v->val == TSR_V_NOVAL) {
            nw++;
            wid = v->id;
            wad = (int)v->addr;
        } else {
            return false;
        }
    }
    return nr == 1 && nw == 1 && rid == wid && rad == wad && rad >= 0;
}

/* The source text of optional move x (its text is a move template's, R->mv, with the text in place of "%"): a
 * copy, or NULL when no template's literal parts surround it. */
static char *source_text(const struct route *R, const struct rop *x)
{
    size_t n = strlen(x->tmpl);
    for (int m = 0; m < R->nmv; m++) {
        const char *h = strchr(R->mv[m], '%');
        size_t a = (size_t)(h - R->mv[m]), z = strlen(h + 1);
        if (a + z < n && !strncmp(x->tmpl, R->mv[m], a) && !strcmp(x->tmpl + n - z, h + 1))
            return strndup(x->tmpl + a, n - a - z);
    }
    return NULL;
}

/* The first violation the check of the output finds, and their number. */
struct first_viol { size_t n; char text[400]; };
static void note_viol(void *ctx, const struct tsr_vviol *v)
{
    struct first_viol *f = ctx;
    if (!f->n++)
        snprintf(f->text, sizeof f->text, "at 0x%08x: %s %s: %s", v->pc, tsr_vviol_kind(v), v->name, v->text);
}

/* (pack_route.h) */
int tsr_route_check(const struct tsr_target *t, const char *path, const char *text, size_t len, unsigned nb,
                    uint64_t vbase, struct tsr_diag *d)
{
    int rc = 0;
    struct tsr_words ow;
    tsr_words_init(&ow, t->word_bits);
    if (t->assemble(path, text, len, &ow, d) || ow.count != nb) {
        rc = tsr_diag_error(d, path, 0, 0, "internal error: the packer's output does not assemble to its %u bundles",
                            nb);
    } else {
        struct first_viol fv = { 0, "" };
        if (tsr_validate(t->vdesc, ow.w, ow.count, vbase, note_viol, &fv))
            rc = tsr_diag_error(d, path, 0, 0, "internal error: the packer's output breaks %zu rule(s): %s", fv.n,
                                fv.text);
    }
    tsr_words_free(&ow);
    return rc;
}


/* (pack_route.h) */
bool tsr_route_other_texts(const struct route *R, const struct rop *x, const char **texts, unsigned mask, int sw0,
                           int sw1, struct tsr_buf *b, uint32_t *w)
{
    for (int r = x->nref - 1; r >= 0; r--) {
        int fwd = R->o[x->ref[r]].fwd;
        if (!(mask >> r & 1) || fwd < 0)
            continue;
        const char *keep = texts[r];
        for (int f = 0; f < R->D->nfwdtexts; f++) {
            if (R->D->fwdtexts[f].fwd != fwd || !strcmp(R->D->fwdtexts[f].text, keep))
                continue;
            texts[r] = R->D->fwdtexts[f].text;
            for (int sw = sw0; sw <= sw1; sw++) {
                tsr_route_instantiate(b, x->tmpl, x->nref, x->refname, texts, sw == 1);
                if (b->data && !tsr_pack_assemble_cached(R->t, b->data, b->len, w))
                    return true;
            }
        }
        texts[r] = keep;
    }
    return false;
}

/* Each operation's instance for the analysis (its values read at their producers' first readable age), its events,
 * the value it writes, its alternatives, and whether it is a plain move of the input to drop (or optional).
 * Returns 0, or -1 with a diagnostic at the operation. */
static int instances(struct route *R, const char *path, struct tsr_diag *d)
{
    const struct tsr_target *t = R->t;
    int n0 = R->n, rc = 0;
    struct tsr_buf tb = { 0 };
    /* each operation's instance for the analysis: its values at their first readable age */
    for (int i = 0; i < n0 && !rc; i++) {
        struct rop *x = &R->o[i];
        const char *texts[ROUTE_MAXREF];
        bool ok = true;
        for (int r = 0; r < x->nref && ok; r++) {
            const struct rop *p = &R->o[x->ref[r]];
            texts[r] = p->fwd >= 0 ? tsr_pack_fwd_text(R->D, p->fwd, p->elem, p->lo) : NULL;
            if (!texts[r])
                ok = false;
        }
        if (!ok) {
            rc = tsr_diag_error(d, path, x->line, x->col, "this operation reads a value that is not forwarded (its "
                                "producer writes no forward element with a source text)");
            break;
        }
        char err[256] = "";
        bool as = false;
        for (int sw = 0; sw < 2 && !as; sw++) {
            tsr_route_instantiate(&tb, x->tmpl, x->nref, x->refname, texts, sw == 1);
            as = tb.data && !t->assemble_one(tb.data, tb.len, 0, x->w, sw ? NULL : err, sizeof err);
        }
        /* (two values whose first readable texts no source mux takes together, `add ^c@1 ^c@1` where the complex
         * unit is no adder's second source: the analysis reads one of them by another text of its forward; the
         * schedule routes it, a move or a spill) */
        as = as || tsr_route_other_texts(R, x, texts, ~0u, 0, 1, &tb, x->w);
        if (!as) {
            rc = tsr_diag_error(d, path, x->line, x->col, "%s", err[0] ? err : "does not assemble");
            break;
        }
        tsr_pack_ev_unit(t, x->w, &x->ev);
        tsr_route_written(&x->ev, &x->fwd, &x->elem, &x->lo, &x->hi);
        unsigned op = 0;
        uint64_t attrs = 0;
        int k = tsr_route_real_ops(t, x->w, &op, NULL, &attrs);
        x->comm = k == 1 && R->comm_attr >= 0 && (attrs >> R->comm_attr & 1);
        if (x->name && strstr(tb.data, "; ")) {
            /* (a group the unbundler kept whole, its parts reading what each other writes: its value is the forward
             * its named part writes, assembled alone; the group is placed as one) */
            const char *q = tb.data;
            for (int k2 = 0; k2 < x->namepart && q; k2++)
                if ((q = strstr(q, "; ")))
                    q += 2;
            const char *e2 = q ? strstr(q, "; ") : NULL;
            uint32_t pw[TSR_PACK_MAX_NWORDS];
            x->fwd = -1;
            if (q && !t->assemble_one(q, e2 ? (size_t)(e2 - q) : strlen(q), 0, pw, NULL, 0)) {
                struct tsr_pack_ev pe = { 0 };
                tsr_pack_ev_events(t, pw, &pe);
                tsr_route_written(&pe, &x->fwd, &x->elem, &x->lo, &x->hi);
                tsr_pack_ev_free(&pe);
            }
            if (x->fwd < 0) {
                rc = tsr_diag_error(d, path, x->line, x->col, "the named part of this group writes no forwarded "
                                    "value (or does not assemble alone)");
                break;
            }
        }
        tsr_route_alternatives(R, x);
        /* a plain move of a named value (one op with the attribute `move`, no other effect): dropped; one of a
         * source text (a load), named, a plain copy: optional if it has no other dependence (below) */
        if (k == 1 && R->move_attr >= 0 && (attrs >> R->move_attr & 1) && x->nref <= 1 && x->fwd >= 0) {
            if (x->nref == 1)
                x->dropped = plain_move(x, false);
            else
                x->opt = x->name && plain_move(x, true) && tsr_route_plain_copy(t, op, x->w);
        }
        /* a copy of a state element into itself, its value unnamed (self_copy): dropped */
        if (k == 1 && R->move_attr >= 0 && (attrs >> R->move_attr & 1) && x->nref == 0 && !x->name && self_copy(x))
            x->dropped = true;
        /* (a reader of a dropped move reads its source: the root value) */
        for (int r = 0; r < x->nref; r++)
            while (R->o[x->ref[r]].dropped)
                x->ref[r] = R->o[x->ref[r]].ref[0];
        /* its reads of forwards all through names */
        for (int e = 0; x->ev.vb && e < x->ev.vb->nev && !rc; e++) {
            const struct tsr_vev *v = &x->ev.vb->ev[e];
            if (v->kind == TSR_V_RFWD && v->val >= 1 && (int)v->val > 0) {
                bool named = false;
                for (int r = 0; r < x->nref; r++) {
                    const struct rop *p = &R->o[x->ref[r]];
                    named |= p->fwd == v->id;
                }
                if (!named)
                    rc = tsr_diag_error(d, path, x->line, x->col, "this operation reads a forwarded value by its age "
                                        "(%s@%d), not by its name", R->D->fwd_names[v->id], (int)v->val);
            }
        }
    }
    tsr_buf_free(&tb);
    return rc;
}

/* (pack_route.h) */
int tsr_route_block(const struct tsr_target *t, const char *path, const char *text, size_t len, unsigned line0,
                    uint64_t vbase, bool deep, struct tsr_buf *out, struct tsr_pack_stats *st, struct tsr_diag *d)
{
    if (!t->vdesc || !t->vdesc->nfwdtexts)
        return tsr_diag_error(d, path, 0, 0, "target '%s' has no forwarded values with a literal source text: value "
                              "names need them (docs/pack.md \"Values through forwards\")", t->name);
    struct route R;
    int rc = tsr_route_read(&R, t, path, text, len, line0, d);
    R.deep = deep;
    int n0 = R.n;
    tsr_route_moves(&R);
    /* and the moves the input writes: a dropped move's text with "%" for its source */
    for (int i = 0; i < n0 && !rc; i++) {
        const struct rop *x = &R.o[i];
        if (!x->dropped)
            continue;
        char nm[32];
        snprintf(nm, sizeof nm, "%%%d", x->refname[0]);
        const char *p = strstr(x->tmpl, nm);
        if (!p || strstr(p + 1, nm))
            continue;
        struct tsr_buf mb = { 0 };
        tsr_buf_append(&mb, x->tmpl, (size_t)(p - x->tmpl) + 1);
        tsr_buf_puts(&mb, p + strlen(nm));
        bool dup = false;
        for (int k = 0; k < R.nmv; k++)
            dup |= !strcmp(R.mv[k], mb.data);
        if (!dup) {
            R.mv = realloc(R.mv, ((size_t)R.nmv + 1) * sizeof *R.mv);
            R.mv[R.nmv++] = strdup(mb.data);
        }
        tsr_buf_free(&mb);
    }
    /* (an optional move's source text) */
    for (int i = 0; i < n0 && !rc; i++)
        if (R.o[i].opt && !(R.o[i].dtext = source_text(&R, &R.o[i])))
            R.o[i].opt = false;
    if (!rc)
        tsr_route_spill_init(&R);
    if (!rc && !R.nmv)
        rc = tsr_diag_error(d, path, 0, 0, "target '%s' has no op with the attribute 'move' that copies a forwarded "
                            "value (docs/mdl.md X12)", t->name);
    /* the live operations (not dropped), their dependences other than values: the description's (tsr_pack_dep:
     * registers, latencies, order; forwards are not state), succ[i] (j, lat): j at least lat bundles after i */
    int *live = calloc((size_t)n0 + 1, sizeof *live), nl = 0;
    for (int i = 0; i < n0; i++)
        if (!R.o[i].dropped)
            live[nl++] = i;
    struct tsr_pack_elist *succ = calloc((size_t)n0 + 1, sizeof *succ);
    /* (each operation's events without the format's deferred reads: what a load unit loads whether used or not
     * matters only to a reader of that load at an age, which the input does not have: such reads are not named
     * and refused above) */
    struct tsr_pack_ev *dv = calloc((size_t)n0 + 1, sizeof *dv);
    for (int ii = 0; ii < nl && !rc; ii++) {
        struct tsr_pack_ev *e = &dv[live[ii]];
        tsr_pack_ev_init(t, R.o[live[ii]].w, e);
        tsr_pack_ev_drop_format_deferred(e);
    }
    for (int jj = 0; jj < nl && !rc; jj++) {
        int j = live[jj];
        for (int ii = 0; ii < jj; ii++) {
            int i = live[ii];
            int lat = tsr_pack_dep(R.D, &dv[i], &dv[j]);
            if (lat >= 0)
                tsr_pack_push_edge(&succ[i], j, lat);
        }
    }
    /* (an operation that branches or ends the program, the last of its block (tsr_pack_route cuts blocks so): every
     * other one at or before its bundle) */
    for (int jj = 0; jj < nl && !rc; jj++) {
        int j = live[jj];
        if (dv[j].ctl == TSR_PACK_CTL_NONE)
            continue;
        for (int ii = 0; ii < nl; ii++) {
            int i = live[ii];
            if (i != j)
                tsr_pack_push_edge(&succ[i], j, 0);
        }
    }
    /* (an optional move with a dependence is a real operation: a load of an element the program writes keeps its
     * order) */
    for (int i = 0; i < n0 && !rc; i++)
        for (int k = 0; k < succ[i].n; k++)
            R.o[i].opt = R.o[succ[i].e[k].to].opt = false;
    /* the lower bound: the critical path through values (each reader at least its producer's first readable age
     * later), which any schedule of these operations keeps, with moves or without (the other dependences of
     * tsr_pack_dep count two masked writes of one element as a write after write), and per slot the operations
     * that need it; an optional operation counts in neither (its readers may read its source text: it may vanish) */
    unsigned crit = 0, slotb = 0;
    {
        int *dep = calloc((size_t)n0 + 1, sizeof *dep);
        for (int jj = 0; jj < nl; jj++) {
            int j = live[jj];
            dep[j] = 1;
            for (int r = 0; r < R.o[j].nref; r++)
                if (!R.o[R.o[j].ref[r]].opt && dep[R.o[j].ref[r]] + R.o[R.o[j].ref[r]].lo > dep[j])
                    dep[j] = dep[R.o[j].ref[r]] + R.o[R.o[j].ref[r]].lo;
            crit = (unsigned)dep[j] > crit ? (unsigned)dep[j] : crit;
        }
        free(dep);
        /* (an operation with alternatives, pack_route_alt.c, takes one of its slots: for each set M of slots, one
         * slot alone or an operation's alternatives, the uses M must hold, those of the operations whose slots
         * lie in M, over the |M| a bundle has) */
        uint64_t *used = calloc((size_t)nl + 1, sizeof *used);
        uint64_t cand[128];
        int ncand = 0;
        for (int s = 0; s < 64; s++)
            cand[ncand++] = (uint64_t)1 << s;
        for (int jj = 0; jj < nl; jj++) {
            const struct rop *x = &R.o[live[jj]];
            const struct tsr_pack_ev *e = &x->ev;
            if (x->opt)
                continue;   /* (an optional op's slot may vanish) */
            for (int k = 0; e->vb && k < e->vb->nev; k++)
                if (e->vb->ev[k].kind == TSR_V_OP && e->vb->ev[k].slot >= 0 && e->vb->ev[k].slot < 64 &&
                    !tsr_pack_op_idle(t, (unsigned)e->vb->ev[k].id))
                    used[jj] |= (uint64_t)1 << e->vb->ev[k].slot;
            bool have = false;
            for (int c = 0; c < ncand && x->nalt > 1; c++)
                have |= cand[c] == x->altslots;
            if (x->nalt > 1 && !have && ncand < 128)
                cand[ncand++] = x->altslots;
        }
        for (int c = 0; c < ncand; c++) {
            unsigned need = 0;
            for (int jj = 0; jj < nl; jj++) {
                const struct rop *x = &R.o[live[jj]];
                if (x->opt)
                    continue;
                if (x->nalt > 1)
                    need += (x->altslots & ~cand[c]) == 0;
                else
                    need += (unsigned)__builtin_popcountll(used[jj] & cand[c]);
            }
            unsigned k = (unsigned)__builtin_popcountll(cand[c]);
            unsigned b = (need + k - 1) / k;
            slotb = b > slotb ? b : slotb;
        }
        free(used);
    }
    struct route_bundle *B = NULL;
    int nb = 0;
    if (!rc) {
        char err[300] = "";
        int at = -1;
        if (tsr_route_schedule(&R, n0, live, nl, succ, &B, &nb, err, sizeof err, &at))
            rc = tsr_diag_error(d, path, at >= 0 ? R.o[at].line : 0, at >= 0 ? R.o[at].col : 0, "%s", err);
    }
    /* the output, then the check of the whole: it assembles to these words and the validator finds nothing */
    size_t out0 = out->len;
    if (!rc) {
        const char *idle = tsr_pack_idle_bundle(t);
        for (int c = 0; c < nb; c++) {
            tsr_buf_puts(out, "    ");
            if (B[c].k)
                t->disasm(B[c].w, (uint64_t)c * t->pc_step, out);
            else
                tsr_buf_puts(out, idle ? idle : "");
            tsr_buf_puts(out, "\n");
        }
        rc = tsr_route_check(t, path, out->data ? out->data + out0 : "", out->len - out0, (unsigned)nb, vbase, d);
        if (rc)
            out->len = out0;
    }
    if (!rc) {
        if (st) {
            memset(st, 0, sizeof *st);
            st->nops = (unsigned)nl;
            st->nbundles = (unsigned)nb;
            st->basic = st->lower = crit > slotb ? crit : slotb;
            st->nblocks = 1;
            st->blocks = calloc(1, sizeof *st->blocks);
            st->blocks[0] = (struct tsr_pack_block_stat){ nl ? R.o[live[0]].line : 0, (unsigned)nl, (unsigned)nb,
                                                          st->lower, st->basic, false, false };
            for (int c = 0; c < nb; c++) {
                int in = 0;
                for (int k = 0; k < B[c].k; k++) {
                    bool mv = B[c].part[k] < 0 || R.o[B[c].part[k]].move;
                    st->moves += mv;
                    in += !mv;
                }
                st->moveonly += in == 0;
                st->single += in == 1;
            }
        }
    }
    for (int i = 0; i < n0; i++) {
        free(succ[i].e);
        tsr_pack_ev_free(&dv[i]);
    }
    free(dv);
    tsr_route_spill_free(&R);
    tsr_route_read_free(&R);
    free(B);
    free(succ);
    free(live);
    return rc;
}

/* (pack_route.h) */
int tsr_route_read(struct route *R, const struct tsr_target *t, const char *path, const char *text, size_t len,
                   unsigned line0, struct tsr_diag *d)
{
    memset(R, 0, sizeof *R);
    R->t = t;
    R->D = t->vdesc;
    R->move_attr = attr_index(t, "move");
    R->comm_attr = attr_index(t, "commutative");
    int rc = parse(R, path, text, len, line0, d);
    return rc ? rc : instances(R, path, d);
}

/* (pack_route.h) */
void tsr_route_read_free(struct route *R)
{
    for (int i = 0; i < R->n; i++) {
        free(R->o[i].tmpl);
        free(R->o[i].itext);
        free(R->o[i].dtext);
        tsr_pack_ev_free(&R->o[i].ev);
        for (int a = 0; a < R->o[i].nalt; a++)
            free(R->o[i].alt[a]);
    }
    free(R->o);
    R->o = NULL;
    R->n = 0;
    for (int m = 0; m < R->nmv; m++)
        free(R->mv[m]);
    free(R->mv);
    R->mv = NULL;
    R->nmv = 0;
}
