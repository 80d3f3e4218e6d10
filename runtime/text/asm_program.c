/* The generic assembler's program level: lines, labels, comments, directives and register aliases
 * around the bundle matcher of asm_engine.c.  Source format: docs/asm.md.
 *
 * Two passes: the first finds every label (`name:` at the start of a line) and its byte address,
 * so bundles may refer to labels defined later; the second assembles each line in order, defining
 * `.set` symbols as it meets them.  Every error is reported with its line and column and assembly
 * goes on with the next line (an erroneous bundle still occupies its address).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "asm_engine.h"
#include "asm_front.h"
#include "diag.h"
#include "fileout.h"
#include "hexio.h"
#include "progmeta.h"
#include "tls.h"

struct seg { uint32_t nb, ne, ob; bool sub; };   /* substituted text [nb,ne) came from orig ob.. */

struct prog {
    const struct tsr_tc_isa *isa;
    struct tsr_tc_cache cache;   /* bundle text -> words, for bundles that use no symbol and no pc */
    const char *path;
    struct tsr_diag *d;
    struct tsr_asm_syms syms;
    struct tsr_arena arena;
    struct tsr_buf sub;        /* the line after alias substitution */
    struct seg *segs;
    size_t nsegs, csegs;
    int rc;
    /* the line-by-line interface (tsr_tc_asm_*): where both passes are */
    uint64_t base, addr;       /* the first instruction's byte address; the current one */
    unsigned line;
    struct tsr_asm *a;         /* pass 2: the bundle matcher */
    void *inst;
    uint32_t *w;
    struct tsr_buf comment;
    tsr_tc_emit emit;
    void *ectx;
    /* the symbols' names as far as lines_may_name needs them: bit l of lens for each length l < 64 (long: one of
     * 64 or more), bit c of last for each last character c */
    uint64_t lens, last[4];
    bool long_name;
    /* (addition) a declared source syntax (isa->syntax): the front end that turns the source's lines into the
     * lines read here (asm_front.h), the map of the logical line being read back to the source (NULL: the line
     * is the source's), and the sections' entries (pass 2) */
    struct tsr_asm_front *front;
    const struct tsr_front_seg *fseg;
    size_t nfseg;
    struct tsr_progmeta *meta;
};

/* One-bundle calls reuse a per-thread matcher and memo (text -> struct <t>_tinst of the bundles whose
 * result depends on the text alone) for the last isa (tsr_thread_table: the first thread's context is
 * freed at exit).  The program level shares lines (text -> words) across programs: those that name no symbol
 * of their program (lines_may_name) and whose result used no address. */
struct one_ctx {
    const struct tsr_tc_isa *isa;
    struct tsr_asm *a;
    struct tsr_tc_cache cache;
    struct tsr_tc_cache lines;
    struct tsr_asm *spare;     /* a program-level matcher for the next program (its tables are built once) */
};
static struct one_ctx *one_for(const struct tsr_tc_isa *isa);

static void err(struct prog *P, unsigned line, size_t col0, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void err(struct prog *P, unsigned line, size_t col0, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    unsigned col = (unsigned)col0 + 1;
    if (P->fseg)   /* a logical line of the front end: the source's line and column */
        tsr_front_map(P->fseg, P->nfseg, col0, &line, &col);
    tsr_diag_vreport(P->d, TSR_ERROR, P->path, line, col, fmt, ap);
    va_end(ap);
    P->rc = -1;
}

/* [b, e) of the line without its comment (`#` or `//` to the end of the line). */
static const char *strip_comment(const char *b, const char *e)
{
    for (const char *p = b; p < e; p++)
        if (*p == '#' || (*p == '/' && p + 1 < e && p[1] == '/'))
            return p;
    return e;
}

static const char *skip_blank(const char *p, const char *e)
{
    while (p < e && tsr_asm_isblank(*p))
        p++;
    return p;
}

static const char *trim_end(const char *b, const char *e)
{
    while (e > b && tsr_asm_isblank(e[-1]))
        e--;
    return e;
}

/* A label definition `ident:` at p?  Returns the end of the identifier or NULL. */
static const char *label_at(const char *p, const char *e)
{
    const char *q = p;
    if (q >= e || !tsr_asm_isident(*q) || (*q >= '0' && *q <= '9'))
        return NULL;
    while (q < e && tsr_asm_isident(*q))
        q++;
    return q < e && *q == ':' && !(q + 1 < e && q[1] == ':') ? q : NULL;
}

/* Number of top-level comma-separated items in [p, e). */
static size_t count_items(const char *p, const char *e)
{
    p = skip_blank(p, e);
    if (p == trim_end(p, e))
        return 0;
    size_t n = 1;
    int depth = 0;
    for (; p < e; p++) {
        if (*p == '(')
            depth++;
        else if (*p == ')')
            depth--;
        else if (*p == ',' && depth == 0)
            n++;
    }
    return n;
}

static bool is_directive(const char *p, const char *e, const char *name)
{
    size_t n = strlen(name);
    return (size_t)(e - p) >= n && memcmp(p, name, n) == 0 && (p + n == e || !tsr_asm_isident(p[n]));
}

/* The end of the identifier at p (before e). */
static const char *ident_end(const char *p, const char *e)
{
    while (p < e && tsr_asm_isident(*p))
        p++;
    return p;
}

/* Longest text an alias may stand for, and longest line after alias substitution, in bytes: each `.set`
 * may double the text (`.set a2, a1 a1`), so without a bound 40 lines ask for 2^40 bytes. */
#define MAX_EXPANSION 65536
#define MAX_EXPANSION_TEXT "65536"

/* Replaces aliases in [b, e) (whole identifiers) into P->sub, recording where each byte came from.
 * Returns NULL, or the alias whose text makes the result longer than MAX_EXPANSION (then P->sub is
 * incomplete). */
static const char *substitute(struct prog *P, const char *b, const char *e)
{
    tsr_buf_clear(&P->sub);
    P->nsegs = 0;
    const char *p = b, *copy = b;
    while (p < e) {
        if (!tsr_asm_isident(*p)) {
            p++;
            continue;
        }
        const char *q = p;
        while (q < e && tsr_asm_isident(*q))
            q++;
        const struct tsr_asm_sym *s = (*p >= '0' && *p <= '9') ? NULL : tsr_asm_sym_find(&P->syms, p, (size_t)(q - p));
        if (s && s->kind == TSR_SYM_ALIAS) {
            if (P->sub.len + (size_t)(p - copy) + s->tlen > MAX_EXPANSION)
                return p;
            for (int i = 0; i < 2; i++) {
                if (P->nsegs == P->csegs) {
                    P->csegs = P->csegs ? P->csegs * 2 : 16;
                    P->segs = realloc(P->segs, P->csegs * sizeof *P->segs);
                    if (!P->segs)
                        abort();
                }
                struct seg *g = &P->segs[P->nsegs++];
                g->nb = (uint32_t)P->sub.len;
                if (i == 0) {
                    tsr_buf_append(&P->sub, copy, (size_t)(p - copy));
                    g->ob = (uint32_t)(copy - b);
                    g->sub = false;
                } else {
                    tsr_buf_append(&P->sub, s->text, s->tlen);
                    g->ob = (uint32_t)(p - b);
                    g->sub = true;
                }
                g->ne = (uint32_t)P->sub.len;
            }
            copy = q;
        }
        p = q;
    }
    if (P->nsegs == P->csegs) {
        P->csegs = P->csegs ? P->csegs * 2 : 16;
        P->segs = realloc(P->segs, P->csegs * sizeof *P->segs);
        if (!P->segs)
            abort();
    }
    struct seg *g = &P->segs[P->nsegs++];
    g->nb = (uint32_t)P->sub.len;
    tsr_buf_append(&P->sub, copy, (size_t)(e - copy));
    g->ob = (uint32_t)(copy - b);
    g->sub = false;
    g->ne = (uint32_t)P->sub.len;
    return NULL;
}

/* Offset in the original text of offset x of the substituted text. */
static size_t map_back(const struct prog *P, size_t x)
{
    for (size_t i = 0; i < P->nsegs; i++) {
        const struct seg *g = &P->segs[i];
        if (x < g->ne || i + 1 == P->nsegs)
            return g->sub ? g->ob : g->ob + (x - g->nb);
    }
    return x;
}

static bool is_aliasing(const struct prog *P, const char *b, const char *e)
{
    if (!P->syms.nalias)
        return false;
    for (const char *p = b; p < e;) {
        if (!tsr_asm_isident(*p)) {
            p++;
            continue;
        }
        const char *q = p;
        while (q < e && tsr_asm_isident(*q))
            q++;
        const struct tsr_asm_sym *s = tsr_asm_sym_find(&P->syms, p, (size_t)(q - p));
        if (s && s->kind == TSR_SYM_ALIAS)
            return true;
        p = q;
    }
    return false;
}

/* Records a new symbol's name for lines_may_name. */
static void note_name(struct prog *P, const char *name, size_t n)
{
    if (n >= 64)
        P->long_name = true;
    else
        P->lens |= (uint64_t)1 << n;
    if (n) {
        unsigned char c = (unsigned char)name[n - 1];
        P->last[c / 64] |= (uint64_t)1 << (c % 64);
    }
}

/* Could the assembler find one of the program's symbols in the bundle text [b, b + n)?  An expression looks a
 * name up from where it starts to the end of the identifier characters there (asm_expr.c), and it starts at
 * a character that is not a digit, at the start of an identifier or, after a template's literal text, inside
 * one: every name it can ask for is a suffix, not starting with a digit, of a run of identifier characters.
 * When no such suffix is a symbol, every lookup misses as it would with no symbols at all, so the bundle
 * assembles as it does alone (tsr_tc_assemble_inst, whose memo of results that used no address the program's
 * lines may then share).  Only suffixes of the symbols' lengths ending in a last character of theirs are
 * looked up. */
static bool lines_may_name(const struct prog *P, const char *b, size_t n)
{
    if (!P->syms.count)
        return false;
    for (size_t i = 0; i < n;) {
        if (!tsr_asm_isident(b[i])) {
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && tsr_asm_isident(b[j]))
            j++;
        unsigned char c = (unsigned char)b[j - 1];
        if (P->last[c / 64] >> (c % 64) & 1) {
            for (size_t l = 1; l <= j - i; l++) {
                if (l < 64 ? !(P->lens >> l & 1) : !P->long_name)
                    continue;
                const char *s = b + j - l;
                if (!(*s >= '0' && *s <= '9') && tsr_asm_sym_find(&P->syms, s, l))
                    return true;
            }
        }
        i = j;
    }
    return false;
}

static void do_set(struct prog *P, const char *lb, const char *p, const char *e, unsigned line)
{
    p = skip_blank(p, e);
    const char *q = p;
    while (q < e && tsr_asm_isident(*q))
        q++;
    if (q == p || (*p >= '0' && *p <= '9')) {
        err(P, line, (size_t)(p - lb), "expected a name after '.set'");
        return;
    }
    const char *name = p;
    size_t nlen = (size_t)(q - p);
    q = skip_blank(q, e);
    if (q >= e || *q != ',') {
        err(P, line, (size_t)(q - lb), "expected ',' after '.set %.*s'", (int)nlen, name);
        return;
    }
    const char *vb = skip_blank(q + 1, e), *ve = trim_end(vb, e);
    if (vb == ve) {
        err(P, line, (size_t)(vb - lb), "expected a value after '.set %.*s,'", (int)nlen, name);
        return;
    }
    bool created;
    struct tsr_asm_sym *s = tsr_asm_sym_find(&P->syms, name, nlen);
    if (s && s->kind == TSR_SYM_LABEL) {
        err(P, line, (size_t)(name - lb), "'%.*s' is already a label (line %u)", (int)nlen, name, s->line);
        return;
    }
    /* the value, with earlier aliases replaced */
    const char *tb = vb;
    size_t tl = (size_t)(ve - vb);
    if (is_aliasing(P, vb, ve)) {
        const char *big = substitute(P, vb, ve);
        if (big) {
            err(P, line, (size_t)(big - lb), "'.set %.*s' would stand for more than " MAX_EXPANSION_TEXT
                " characters (at alias '%.*s')", (int)nlen, name, (int)(ident_end(big, ve) - big), big);
            return;
        }
        char *c = tsr_arena_strndup(&P->arena, P->sub.data, P->sub.len);
        tb = c;
        tl = P->sub.len;
    }
    struct tsr_asm_val v;
    size_t end, ep, el;
    const char *em;
    int r = tsr_asm_expr(tb, 0, tl, &P->syms, &end, &v, &em, &ep, &el);
    bool konst = r > 0 && end == tl;
    if (!konst && r < 0 && strncmp(em, "undefined", 9) != 0) {
        err(P, line, (size_t)(vb - lb) + (tb == vb ? ep : map_back(P, ep)), em, (int)el, tb + ep);
        return;
    }
    s = tsr_asm_sym_add(&P->syms, name, nlen, &created);
    if (created) {   /* names and texts are kept: the source is read a line at a time (tsr_tc_asm_line) */
        s->name = tsr_arena_strndup(&P->arena, name, nlen);
        note_name(P, name, nlen);
    }
    if (!konst && tb == vb)
        tb = tsr_arena_strndup(&P->arena, vb, tl);
    if (s->kind == TSR_SYM_ALIAS)
        P->syms.nalias--;
    s->line = line;
    if (konst) {
        s->kind = TSR_SYM_CONST;
        s->v = v;
    } else {
        s->kind = TSR_SYM_ALIAS;
        s->text = tb;
        s->tlen = (uint32_t)tl;
        P->syms.nalias++;
    }
}

static void do_word(struct prog *P, const char *lb, const char *p, const char *e, unsigned line, size_t *count,
                    uint32_t *w, const char *comment)
{
    unsigned nw = P->isa->nwords, k = 0;
    size_t n = count_items(p, e);
    if (n == 0 || n % nw) {
        err(P, line, (size_t)(skip_blank(p, e) - lb), "'.word' needs a multiple of %u values (one instruction is %u bits), not %zu",
            nw, P->isa->word_bits, n);
        return;
    }
    size_t pos = (size_t)(p - lb), lim = (size_t)(e - lb);
    for (size_t i = 0; i < n; i++) {
        struct tsr_asm_val v;
        size_t end, ep, el;
        const char *em;
        int r = tsr_asm_expr(lb, pos, lim, &P->syms, &end, &v, &em, &ep, &el);
        if (r < 0) {
            err(P, line, ep, em, (int)el, lb + ep);
            return;
        }
        while (pos < lim && tsr_asm_isblank(lb[pos]))
            pos++;
        if (r == 0 || !tsr_asm_int_in(&v, INT32_MIN, (int64_t)UINT32_MAX)) {
            size_t q = pos;
            while (q < lim && lb[q] != ',')
                q++;
            err(P, line, pos, "'.word' value '%.*s' is not a 32-bit integer", (int)(trim_end(lb + pos, lb + q) - (lb + pos)),
                lb + pos);
            return;
        }
        pos = end;
        while (pos < lim && tsr_asm_isblank(lb[pos]))
            pos++;
        if (i + 1 < n) {
            if (pos >= lim || lb[pos] != ',') {
                err(P, line, pos, "expected ',' in '.word'");
                return;
            }
            pos++;
        } else if (pos < lim) {
            err(P, line, pos, "unexpected '%c' after '.word' values", lb[pos]);
            return;
        }
        w[k++] = (uint32_t)v.i;
        if (k == nw) {
            P->emit(P->ectx, w, comment, line);
            ++*count;
            k = 0;
        }
    }
}

/* (inlined into the public line functions: a source in the default syntax pays one test a line for the front end) */
static inline __attribute__((always_inline)) void labels_line(struct prog *P, const char *lb, const char *le);
static inline __attribute__((always_inline)) void asm_line(struct prog *P, const char *lb, const char *le);

/* The front end's logical lines (asm_front.h): read as the source's own, their positions mapped back. */
static void front_labels(void *ctx, const char *text, size_t len, unsigned line, const struct tsr_front_seg *seg,
                         size_t nseg)
{
    struct prog *P = ctx;
    (void)seg, (void)nseg;
    P->line = line - 1;
    labels_line(P, text, text + len);
}

static void front_asm(void *ctx, const char *text, size_t len, unsigned line, const struct tsr_front_seg *seg,
                      size_t nseg)
{
    struct prog *P = ctx;
    P->line = line - 1;
    P->fseg = seg;
    P->nfseg = nseg;
    asm_line(P, text, text + len);
    P->fseg = NULL;
}

static void front_err(void *ctx, unsigned line, unsigned col, const char *msg)
{
    struct prog *P = ctx;
    tsr_diag_error(P->d, P->path, line, col, "%s", msg);
    P->rc = -1;
}

struct tsr_tc_asm *tsr_tc_asm_begin(const struct tsr_tc_isa *isa, const char *path, uint64_t base,
                                    struct tsr_diag *d)
{
    struct prog *P = calloc(1, sizeof *P);
    if (!P)
        abort();
    P->isa = isa;
    P->path = path;
    P->d = d;
    P->base = P->addr = base;
    if (isa->syntax) {
        P->front = tsr_asm_front_new(isa);
        tsr_asm_front_pass(P->front, front_labels, NULL, P, NULL);
    }
    return (struct tsr_tc_asm *)P;
}

/* pass 1: the labels of the line [lb, le) and the address after it */
static inline void labels_line(struct prog *P, const char *lb, const char *le)
{
    const struct tsr_tc_isa *isa = P->isa;
    P->line++;
    const char *e = strip_comment(lb, le), *p = skip_blank(lb, e), *q;
    while ((q = label_at(p, e))) {
        bool created;
        struct tsr_asm_sym *s = tsr_asm_sym_add(&P->syms, p, (size_t)(q - p), &created);
        if (created) {   /* a second definition is reported in pass 2, in line order */
            s->name = tsr_arena_strndup(&P->arena, p, (size_t)(q - p));   /* the line does not stay */
            note_name(P, p, (size_t)(q - p));
            s->kind = TSR_SYM_LABEL;
            s->v.i = (int64_t)P->addr;
            s->line = P->line;
        }
        p = skip_blank(q + 1, e);
    }
    e = trim_end(p, e);
    if (p < e) {
        if (is_directive(p, e, ".word"))
            P->addr += (count_items(p + 5, e) + isa->nwords - 1) / isa->nwords * isa->pc_step;
        else if (*p != '.')
            P->addr += isa->pc_step;
    }
}

void tsr_tc_asm_labels(struct tsr_tc_asm *A, const char *lb, const char *le)
{
    struct prog *P = (struct prog *)A;
    if (P->front)
        tsr_asm_front_line(P->front, lb, le);
    else
        labels_line(P, lb, le);
}

void tsr_tc_asm_pass2(struct tsr_tc_asm *A, tsr_tc_emit emit, void *ctx)
{
    struct prog *P = (struct prog *)A;
    if (P->front) {
        tsr_asm_front_finish(P->front);
        tsr_asm_front_pass(P->front, front_asm, front_err, P, &P->meta);
    }
    struct one_ctx *c = one_for(P->isa);
    P->a = c->spare ? c->spare : tsr_asm_new(P->isa);   /* (a matcher keeps nothing from bundle to bundle) */
    c->spare = NULL;
    tsr_asm_use_syms(P->a, &P->syms);
    P->inst = calloc(1, P->isa->inst_size + 16);
    P->w = calloc(P->isa->nwords, sizeof *P->w);
    if (!P->inst || !P->w)
        abort();
    P->emit = emit;
    P->ectx = ctx;
    P->addr = P->base;
    P->line = 0;
}

/* pass 2: the line [lb, le) */
static inline void asm_line(struct prog *P, const char *lb, const char *le)
{
    const struct tsr_tc_isa *isa = P->isa;
    uint32_t *w = P->w;
    unsigned line = ++P->line;
    const char *L0 = lb;
    const char *e = strip_comment(lb, le), *p = skip_blank(lb, e), *q;
    while ((q = label_at(p, e))) {
        const struct tsr_asm_sym *s = tsr_asm_sym_find(&P->syms, p, (size_t)(q - p));
        if (s && s->kind == TSR_SYM_LABEL && s->line != line)
            err(P, line, (size_t)(p - L0), "label '%.*s' is already defined (line %u)", (int)(q - p), p, s->line);
        p = skip_blank(q + 1, e);
    }
    e = trim_end(p, e);
    if (p == e)
        return;
    struct tsr_buf *comment = &P->comment;
    tsr_buf_clear(comment);
    tsr_buf_append(comment, p, (size_t)(e - p));
    for (size_t i = 0; i < comment->len; i++)
        if (comment->data[i] == '\t' || comment->data[i] == '\r')
            comment->data[i] = ' ';
    if (*p == '.') {
        if (is_directive(p, e, ".set")) {
            do_set(P, L0, p + 4, e, line);
        } else if (is_directive(p, e, ".word")) {
            size_t count = 0;
            do_word(P, L0, p + 5, e, line, &count, w, comment->data);
            size_t want = (count_items(p + 5, e) + isa->nwords - 1) / isa->nwords;
            memset(w, 0, isa->nwords * sizeof *w);
            for (; count < want; count++)
                P->emit(P->ectx, w, comment->data, line);
            P->addr += want * isa->pc_step;
        } else {
            const char *q2 = p + 1;
            while (q2 < e && tsr_asm_isident(*q2))
                q2++;
            err(P, line, (size_t)(p - L0), "unknown directive '%.*s'", (int)(q2 - p), p);
        }
        return;
    }
    const char *bb = p;
    size_t bn = (size_t)(e - p);
    bool subst = is_aliasing(P, p, e);
    if (subst) {
        const char *big = substitute(P, p, e);
        if (big) {
            err(P, line, (size_t)(big - L0), "line is longer than " MAX_EXPANSION_TEXT
                " characters after alias substitution (at alias '%.*s')", (int)(ident_end(big, e) - big), big);
            memset(w, 0, isa->nwords * sizeof *w);
            P->emit(P->ectx, w, comment->data, line);
            P->addr += isa->pc_step;
            return;
        }
        bb = P->sub.data;
        bn = P->sub.len;
    }
    size_t vlen, wlen = isa->nwords * sizeof *w;
    const char *hit = tsr_tc_cache_get(&P->cache, bb, bn, &vlen);
    bool shared = false;   /* (the thread's memo of lines that name no symbol, across programs) */
    if (!(hit && vlen == wlen) && !lines_may_name(P, bb, bn)) {
        shared = true;
        hit = tsr_tc_cache_get(&one_for(isa)->lines, bb, bn, &vlen);
        if (hit && vlen == wlen)
            tsr_tc_cache_put(&P->cache, bb, bn, hit, wlen);
    }
    if (hit && vlen == wlen) {
        memcpy(w, hit, vlen);
    } else if (tsr_asm_bundle(P->a, bb, bn, P->addr, -1, P->inst) < 0) {
        size_t off;
        const char *m = tsr_asm_message(P->a, &off);
        if (subst)
            off = map_back(P, off);
        err(P, line, (size_t)(p - L0) + off, "%s", m);
        memset(w, 0, isa->nwords * sizeof *w);
    } else {
        isa->encode(P->inst, w);
        if (!tsr_asm_env_used(P->a)) {
            tsr_tc_cache_put(&P->cache, bb, bn, w, wlen);
            if (shared)
                tsr_tc_cache_put(&one_for(isa)->lines, bb, bn, w, wlen);
        }
    }
    P->emit(P->ectx, w, comment->data, line);
    P->addr += isa->pc_step;
}

void tsr_tc_asm_line(struct tsr_tc_asm *A, const char *lb, const char *le)
{
    struct prog *P = (struct prog *)A;
    if (P->front)
        tsr_asm_front_line(P->front, lb, le);
    else
        asm_line(P, lb, le);
}

void tsr_tc_asm_skip(struct tsr_tc_asm *A, size_t n)
{
    struct prog *P = (struct prog *)A;
    P->line += (unsigned)n;
    P->addr += n * P->isa->pc_step;
}

struct tsr_progmeta *tsr_tc_asm_take_meta(struct tsr_tc_asm *A)
{
    struct prog *P = (struct prog *)A;
    struct tsr_progmeta *m = P->meta;
    P->meta = NULL;
    return m;
}

int tsr_tc_asm_end(struct tsr_tc_asm *A)
{
    struct prog *P = (struct prog *)A;
    if (P->front && P->a)   /* (pass 2 ran: the end of the source) */
        tsr_asm_front_finish(P->front);
    tsr_asm_front_free(P->front);
    tsr_progmeta_free(P->meta);
    int rc = P->rc;
    tsr_buf_free(&P->comment);
    free(P->inst);
    free(P->w);
    struct one_ctx *c = P->a ? one_for(P->isa) : NULL;
    if (c && !c->spare) {
        tsr_asm_use_syms(P->a, NULL);
        c->spare = P->a;
    } else {
        tsr_asm_free(P->a);
    }
    tsr_asm_syms_free(&P->syms);
    tsr_tc_cache_free(&P->cache);
    tsr_arena_free_all(&P->arena);
    tsr_buf_free(&P->sub);
    free(P->segs);
    free(P);
    return rc;
}

static void push_word(void *ctx, const uint32_t *w, const char *comment, unsigned line)
{
    tsr_words_push(ctx, w, comment, line);
}

int tsr_tc_assemble(const struct tsr_tc_isa *isa, const char *path, const char *text, size_t len,
                    struct tsr_words *out, struct tsr_diag *d)
{
    return tsr_tc_assemble_at(isa, path, text, len, 0, out, d);
}

int tsr_tc_assemble_at(const struct tsr_tc_isa *isa, const char *path, const char *text, size_t len, uint64_t base,
                       struct tsr_words *out, struct tsr_diag *d)
{
    if (out->width == 0)
        tsr_words_init(out, isa->word_bits);
    if (out->width != isa->word_bits) {
        tsr_diag_error(d, path, 0, 0, "output holds %u-bit words, but %s instructions are %u bits", out->width,
                       isa->name, isa->word_bits);
        return -1;
    }
    struct tsr_tc_asm *A = tsr_tc_asm_begin(isa, path, base, d);
    const char *end = text + len;
    for (int pass = 1; pass <= 2; pass++) {
        if (pass == 2)
            tsr_tc_asm_pass2(A, push_word, out);
        for (const char *lb = text; lb < end;) {
            const char *le = memchr(lb, '\n', (size_t)(end - lb));
            if (!le)
                le = end;
            if (pass == 1)
                tsr_tc_asm_labels(A, lb, le);
            else
                tsr_tc_asm_line(A, lb, le);
            lb = le < end ? le + 1 : end;
        }
    }
    tsr_progmeta_free(out->meta);
    out->meta = tsr_tc_asm_take_meta(A);
    return tsr_tc_asm_end(A);
}

/* `.word v, ...` (exactly nwords values) as one instruction: decoded into inst. */
static int word_inst(const struct tsr_tc_isa *isa, const char *text, size_t len, const char *p, void *inst,
                     char *errbuf, size_t errlen)
{
    uint32_t w[64] = {0};
    size_t pos = (size_t)(p - text) + 5;
    unsigned k = 0;
    for (;;) {
        struct tsr_asm_val v;
        size_t end, ep, el;
        const char *em;
        int r = tsr_asm_expr(text, pos, len, NULL, &end, &v, &em, &ep, &el);
        if (r <= 0 || !tsr_asm_int_in(&v, INT32_MIN, (int64_t)UINT32_MAX) || k >= isa->nwords || k >= 64) {
            if (errbuf && errlen)
                snprintf(errbuf, errlen, "'.word' needs %u 32-bit values", isa->nwords);
            return -1;
        }
        w[k++] = (uint32_t)v.i;
        pos = end;
        while (pos < len && tsr_asm_isblank(text[pos]))
            pos++;
        if (pos < len && text[pos] == ',') {
            pos++;
            continue;
        }
        if (pos < len || k != isa->nwords) {
            if (errbuf && errlen)
                snprintf(errbuf, errlen, "'.word' needs %u 32-bit values", isa->nwords);
            return -1;
        }
        break;
    }
    isa->decode(w, inst);
    return 0;
}

/* (struct one_ctx: above) */
static _Thread_local struct one_ctx *one;
static void *first_one;   /* the first thread's */

static void one_fini(struct one_ctx *c)
{
    tsr_asm_free(c->a);
    tsr_tc_cache_free(&c->cache);
    tsr_tc_cache_free(&c->lines);
    tsr_asm_free(c->spare);
}

static void free_first_one(void)
{
    if (first_one) {
        one_fini(first_one);
        free(first_one);
        first_one = NULL;
    }
}

static struct one_ctx *one_for(const struct tsr_tc_isa *isa)
{
    static atomic_flag registered = ATOMIC_FLAG_INIT;
    struct one_ctx *c = one;
    if (c && c->isa == isa)
        return c;
    if (c) {
        one_fini(c);
        memset(c, 0, sizeof *c);
    } else {
        c = one = tsr_thread_table(1, sizeof *c, &registered, &first_one, free_first_one);
    }
    c->isa = isa;
    c->a = tsr_asm_new(isa);
    return c;
}

int tsr_tc_assemble_inst(const struct tsr_tc_isa *isa, const char *text, size_t len, uint64_t pc, void *inst,
                         char *errbuf, size_t errlen)
{
    const char *p = skip_blank(text, text + len);
    if (is_directive(p, text + len, ".word"))
        return word_inst(isa, text, len, p, inst, errbuf, errlen);
    struct one_ctx *c = one_for(isa);
    size_t vlen;
    const char *hit = tsr_tc_cache_get(&c->cache, text, len, &vlen);
    if (hit && vlen == isa->inst_size) {
        memcpy(inst, hit, vlen);
        return 0;
    }
    int r = tsr_asm_bundle(c->a, text, len, pc, -1, inst);
    if (r < 0 && errbuf && errlen)
        snprintf(errbuf, errlen, "%s", tsr_asm_message(c->a, NULL));
    if (r == 0 && !tsr_asm_env_used(c->a))
        tsr_tc_cache_put(&c->cache, text, len, inst, isa->inst_size);
    return r;
}

int tsr_tc_assemble_one(const struct tsr_tc_isa *isa, const char *text, size_t len, uint64_t pc, uint32_t *w,
                        char *errbuf, size_t errlen)
{
    uint64_t small[128];   /* struct <t>_tinst, aligned for its uint64_t members */
    void *inst = isa->inst_size <= sizeof small ? (void *)small : calloc(1, isa->inst_size + 16);
    if (!inst)
        abort();
    int r = tsr_tc_assemble_inst(isa, text, len, pc, inst, errbuf, errlen);
    if (r == 0)
        isa->encode(inst, w);
    if (inst != (void *)small)
        free(inst);
    return r;
}
