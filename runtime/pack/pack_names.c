/* Value names (docs/pack.md "Values through forwards"): an operation whose source reads a forwarded value by its
 * age (`^m0@1`: what the unit produced one instruction ago) is written, unbundled, with the producing operation's
 * name instead (`%12`), and the producer with the name in front (`%12: mul.m0 t[0].x a0.x`).  The texts of the
 * reads are the description's (struct tsr_vdesc.fwdtexts: operand alternatives with a literal template); which
 * element an operation writes and reads, at which age, are its events alone.  Nothing here names a target. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pack_int.h"
#include "fileout.h"
#include "target.h"

const char *tsr_pack_fwd_text(const struct tsr_vdesc *D, int fwd, int elem, int age)
{
    for (int i = 0; i < D->nfwdtexts; i++)
        if (D->fwdtexts[i].fwd == fwd && D->fwdtexts[i].elem == elem && D->fwdtexts[i].age == age)
            return D->fwdtexts[i].text;
    return NULL;
}

bool tsr_pack_tok_before(const char *s, size_t at)
{
    return at == 0 || strchr(" \t,-([|", s[at - 1]) != NULL;
}

bool tsr_pack_tok_after(const char *s, size_t at)
{
    return s[at] == 0 || strchr(" \t,;)]}\n", s[at]) != NULL;
}

/* One operation line of the unbundled output. */
struct nline {
    size_t instr;           /* its instruction */
    char *text;             /* the operation (no indentation, no newline); NULL: a label or other line, kept */
    char *raw;              /* a kept line as it was (with its newline) */
    bool delay;             /* written `.delay` */
    int name;               /* its value name (1 + its index among the operations), 0: none given */
    int part;               /* a group's line (parts joined by "; "): the part whose value is named, -1: none */
    struct tsr_pack_ev ev;  /* its events alone (vb NULL: it does not assemble alone) */
};

/* (pack_int.h) */
int tsr_pack_replace_tok(char **text, const char *from, const char *to)
{
    size_t fl = strlen(from);
    struct tsr_buf b = { 0 };
    int any = 0;
    const char *s = *text;
    for (size_t i = 0; s[i];) {
        if (!strncmp(s + i, from, fl) && tsr_pack_tok_before(s, i) && tsr_pack_tok_after(s, i + fl)) {
            tsr_buf_puts(&b, to);
            i += fl;
            any++;
        } else {
            tsr_buf_append(&b, s + i, 1);
            i++;
        }
    }
    if (any) {
        free(*text);
        *text = strdup(b.data);
    }
    tsr_buf_free(&b);
    return any;
}

/* Does an op of b read (a source: an op's read, not the format's, e.g. the merge of a masked store) a state
 * element that a writes? */
static bool writes_read(const struct tsr_pack_ev *a, const struct tsr_pack_ev *b)
{
    for (int i = 0; a->vb && i < a->vb->nev; i++) {
        const struct tsr_vev *x = &a->vb->ev[i];
        /* (a forward written for age 0, read at age 0 by the other part, its op's or the format's semantics under
         * a field the part sets: a branch on the result of a unit of its own instruction) */
        if (x->kind == TSR_V_WFWD && (x->val & 0xff) == 0)
            for (int j = 0; b->vb && j < b->vb->nev; j++) {
                const struct tsr_vev *y = &b->vb->ev[j];
                if (y->kind == TSR_V_RFWD && y->val == 0 && y->id == x->id && (y->addr == x->addr || y->addr < 0))
                    return true;
            }
        if (x->kind != TSR_V_WSTATE && x->kind != TSR_V_WSPACE)
            continue;
        for (int j = 0; b->vb && j < b->vb->nev; j++) {
            const struct tsr_vev *y = &b->vb->ev[j];
            bool rd = (y->kind == TSR_V_RSTATE || y->kind == TSR_V_RLATE || y->kind == TSR_V_RDEFER ||
                       y->kind == TSR_V_RSPACE) && y->slot >= 0;
            if (rd && tsr_vev_same(x, y))
                return true;
        }
    }
    return false;
}

/* The part of a group's text (parts joined by "; "; a single operation: part 0) whose op writes element addr of
 * forward fwd, assembled alone: its index, 0 when text is not a group, -1 when no part alone writes it. */
static int group_part(const struct tsr_target *t, const char *text, int fwd, int64_t addr)
{
    if (!strstr(text, "; "))
        return 0;
    int k = 0;
    for (const char *q = text; q; k++) {
        const char *e = strstr(q, "; ");
        size_t pl = e ? (size_t)(e - q) : strlen(q);
        uint32_t w[TSR_PACK_MAX_NWORDS];
        bool hit = false;
        if (!t->assemble_one(q, pl, 0, w, NULL, 0)) {
            struct tsr_pack_ev ev = { 0 };
            tsr_pack_ev_events(t, w, &ev);
            for (int m = 0; ev.vb && m < ev.vb->nev; m++) {
                const struct tsr_vev *f = &ev.vb->ev[m];
                hit |= f->kind == TSR_V_WFWD && f->id == fwd && f->addr == addr && f->slot >= 0;
            }
            tsr_pack_ev_free(&ev);
        }
        if (hit)
            return k;
        q = e ? e + 2 : NULL;
    }
    return -1;
}

unsigned tsr_pack_name_values(const struct tsr_target *t, struct tsr_buf *ib, size_t n, struct tsr_buf *out)
{
    unsigned nsplit = 0;
    const struct tsr_vdesc *D = t->vdesc;
    struct nline *L = NULL;
    size_t nl = 0, cap = 0;
    size_t *first = calloc(n + 2, sizeof *first);   /* instruction i's lines: first[i] .. first[i + 1] - 1 */
    bool *label = calloc(n + 1, sizeof *label);     /* instruction i starts with a label (a block starts there) */
    for (size_t i = 0; i < n; i++) {
        first[i] = nl;
        const char *p = ib[i].data ? ib[i].data : "";
        while (*p) {
            const char *e = strchr(p, '\n');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            if (nl == cap) {
                cap = cap ? 2 * cap : 64;
                L = realloc(L, cap * sizeof *L);
                if (!L)
                    abort();
            }
            struct nline *x = &L[nl++];
            memset(x, 0, sizeof *x);
            x->part = -1;
            x->instr = i;
            if (len > 4 && !memcmp(p, "    ", 4)) {
                const char *op = p + 4;
                size_t ol = len - 4;
                if (ol > 7 && !memcmp(op, ".delay ", 7)) {
                    x->delay = true;
                    op += 7;
                    ol -= 7;
                }
                x->text = strndup(op, ol);
                /* a group kept whole (its parts write lanes of one element: masked stores) holds one value per
                 * part: its parts are written one a line when each assembles alone, so that each has a name.  One a
                 * line means in sequence, so the parts a source of which reads what another part writes (a group
                 * that exchanges two registers) stay together, on one line */
                char *sep = x->delay ? NULL : strstr(x->text, "; ");
                bool split = sep && !strchr(x->text, '{');
                struct tsr_pack_ev pe[8];
                char *pt[8];
                int np = 0;
                memset(pe, 0, sizeof pe);
                for (char *q = x->text; split && q;) {
                    char *e2 = strstr(q, "; ");
                    size_t pl = e2 ? (size_t)(e2 - q) : strlen(q);
                    uint32_t pw[TSR_PACK_MAX_NWORDS];
                    split = !t->assemble_one(q, pl, 0, pw, NULL, 0) && np < 8;
                    if (split) {
                        pt[np] = strndup(q, pl);
                        tsr_pack_ev_init(t, pw, &pe[np]);
                        tsr_pack_ev_drop_format_deferred(&pe[np++]);
                    }
                    q = e2 ? e2 + 2 : NULL;
                }
                bool inv[8] = { false };
                int ninv = 0;
                for (int a = 0; split && a < np; a++)
                    for (int b = 0; b < np; b++)
                        if (a != b && writes_read(&pe[a], &pe[b]))
                            inv[a] = inv[b] = true;
                for (int a = 0; a < np; a++) {
                    ninv += inv[a];
                    tsr_pack_ev_free(&pe[a]);
                }
                split &= ninv < np;
                if (split) {
                    free(x->text);
                    nl--;
                    /* the parts alone, then the group (no part alone reads or writes what another part does) */
                    struct tsr_buf gb = { 0 };
                    for (int a = 0; a <= np; a++) {
                        char *piece = NULL;
                        if (a < np && !inv[a]) {
                            piece = pt[a];
                        } else if (a < np) {
                            if (gb.len)
                                tsr_buf_puts(&gb, "; ");
                            tsr_buf_puts(&gb, pt[a]);
                            free(pt[a]);
                            continue;
                        } else if (gb.len) {
                            piece = strdup(gb.data);
                        } else {
                            continue;
                        }
                        if (nl == cap) {
                            cap = 2 * cap;
                            L = realloc(L, cap * sizeof *L);
                            if (!L)
                                abort();
                        }
                        struct nline *y = &L[nl++];
                        memset(y, 0, sizeof *y);
                        y->part = -1;
                        y->instr = i;
                        y->text = piece;
                        uint32_t pw[TSR_PACK_MAX_NWORDS];
                        if (!t->assemble_one(y->text, strlen(piece), 0, pw, NULL, 0))
                            tsr_pack_ev_events(t, pw, &y->ev);
                    }
                    nsplit += !gb.len;   /* a group line left holds parts pinned together */
                    tsr_buf_free(&gb);
                    p = e ? e + 1 : p + len;
                    continue;
                }
                for (int a = 0; a < np; a++)
                    free(pt[a]);
                uint32_t w[TSR_PACK_MAX_NWORDS];
                if (!t->assemble_one(x->text, ol, 0, w, NULL, 0))
                    tsr_pack_ev_events(t, w, &x->ev);
            } else {
                x->raw = strndup(p, len + (e ? 1 : 0));
                label[i] = true;
            }
            p = e ? e + 1 : p + len;
        }
    }
    first[n] = nl;
    /* each read of a forwarded value at age A >= 1, in straight-line code (no label between), names the operation
     * of the instruction A back that writes the element */
    for (size_t j = 0; j < nl; j++) {
        struct nline *x = &L[j];
        if (!x->text || !x->ev.vb)
            continue;
        for (int k = 0; k < x->ev.vb->nev; k++) {
            const struct tsr_vev *e = &x->ev.vb->ev[k];
            if (e->kind != TSR_V_RFWD || e->val < 1 || e->addr < 0 || (size_t)e->val > x->instr)
                continue;
            size_t p = x->instr - (size_t)e->val;
            bool cut = false;
            for (size_t q = p + 1; q <= x->instr; q++)
                cut |= label[q];
            const char *txt = tsr_pack_fwd_text(D, e->id, (int)e->addr, (int)e->val);
            if (cut || !txt)
                continue;
            size_t prod = (size_t)-1;
            for (size_t q = first[p]; q < first[p + 1]; q++) {
                const struct nline *y = &L[q];
                for (int m = 0; y->text && y->ev.vb && m < y->ev.vb->nev; m++) {
                    const struct tsr_vev *f = &y->ev.vb->ev[m];
                    if (f->kind == TSR_V_WFWD && f->id == e->id && f->addr == e->addr && f->slot >= 0)
                        prod = q;
                }
            }
            if (prod == (size_t)-1)
                continue;
            /* (a group's line names the value of one part: reads of another part's stay by age, which the packer
             * refuses) */
            int part = group_part(t, L[prod].text, e->id, e->addr);
            if (L[prod].part >= 0 ? L[prod].part != part : part < 0)
                continue;
            L[prod].part = part;
            char nm[32];
            snprintf(nm, sizeof nm, "%%%zu", prod + 1);
            if (tsr_pack_replace_tok(&x->text, txt, nm))
                L[prod].name = (int)prod + 1;
        }
    }
    for (size_t j = 0; j < nl; j++) {
        struct nline *x = &L[j];
        if (!x->text) {
            tsr_buf_puts(out, x->raw);
        } else {
            tsr_buf_puts(out, "    ");
            if (x->delay)
                tsr_buf_puts(out, ".delay ");
            /* (a group's named part other than its first: the name before that part) */
            char *at = x->text;
            for (int k = 0; x->name && k < x->part && at; k++)
                if ((at = strstr(at, "; ")))
                    at += 2;
            if (x->name && at && at != x->text) {
                tsr_buf_append(out, x->text, (size_t)(at - x->text));
                tsr_buf_printf(out, "%%%d: %s\n", x->name, at);
            } else {
                if (x->name)
                    tsr_buf_printf(out, "%%%d: ", x->name);
                tsr_buf_printf(out, "%s\n", x->text);
            }
        }
        free(x->text);
        free(x->raw);
        tsr_pack_ev_free(&x->ev);
    }
    free(L);
    free(first);
    free(label);
    return nsplit;
}
