/* The assembler's front end for a declared source syntax (asm_front.h; docs/asm.md "Declared syntax").
 *
 * A physical line is first cleaned: its comments (the declared line comments, a block comment that may span lines)
 * become blanks, so columns stay those of the source.  Then, by where the source is:
 *  - a line starting with `.NAME` outside a bundle: a declared section starts there (nothing may follow it on the
 *    line), or a directive (`.set`, `.word`) is passed on whole; any other is `unknown section '.NAME'`;
 *  - in a names or values section: entries `[INDEX] = "text";`, `[INDEX] = VALUE;` or `[INDEX].C = VALUE;`, one
 *    or more a line, each ended by `;`, kept as program metadata;
 *  - in code (before any section, or in a code section): labels `name:` at a bundle's start go on as a line of
 *    their own; the bundle's text runs, over lines, until the declared bundle end (outside `{ }`); every line of
 *    it is a part, and so is the text from an op's mnemonic after white space at the top level (not after a `,`):
 *    `EXEC(export[0]=vector) DP4v r63.x***, a[0].xyzw, c[0].xyzw;` has two parts.  The parts are handed on
 *    joined by "; ", the default syntax's part separator, with a map back to their source lines and columns.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm_engine.h"
#include "asm_front.h"
#include "fileout.h"
#include "xalloc.h"

struct tsr_asm_front {
    const struct tsr_tc_isa *isa;
    const struct tsr_tc_syntax *sx;
    const char **keys;          /* the ops' mnemonic prefixes (distinct), keylen[i] bytes, exact or a prefix */
    uint16_t *keylen;
    bool *exact;
    size_t nkeys;
    /* the pass */
    tsr_front_logical out;
    tsr_front_error err;
    void *ctx;
    struct tsr_progmeta **meta;
    unsigned line;
    bool in_block;              /* inside a block comment */
    unsigned block_line, block_col;
    int section;                /* current section (index), or -1: code before any section */
    bool in_bundle;
    unsigned bundle_line, bundle_col;
    struct tsr_buf text;        /* the bundle's logical text */
    struct tsr_front_seg *seg;
    size_t nseg, cseg;
    char *clean;                /* the cleaned line */
    size_t cclean;
};

struct tsr_asm_front *tsr_asm_front_new(const struct tsr_tc_isa *isa)
{
    struct tsr_asm_front *F = tsr_xrealloc(NULL, sizeof *F);
    memset(F, 0, sizeof *F);
    F->isa = isa;
    F->sx = isa->syntax;
    F->keys = tsr_xrealloc(NULL, (isa->nops + 1) * sizeof *F->keys);
    F->keylen = tsr_xrealloc(NULL, (isa->nops + 1) * sizeof *F->keylen);
    F->exact = tsr_xrealloc(NULL, (isa->nops + 1) * sizeof *F->exact);
    for (unsigned i = 0; i < isa->nops; i++) {
        const struct tsr_tc_op *op = &isa->ops[i];
        if (!op->keylen)
            continue;
        size_t k = 0;
        while (k < F->nkeys && !(F->keylen[k] == op->keylen && F->exact[k] == op->key_exact &&
                                 !memcmp(F->keys[k], op->key, op->keylen)))
            k++;
        if (k == F->nkeys) {
            F->keys[k] = op->key;
            F->keylen[k] = op->keylen;
            F->exact[k] = op->key_exact;
            F->nkeys++;
        }
    }
    return F;
}

void tsr_asm_front_free(struct tsr_asm_front *F)
{
    if (!F)
        return;
    free(F->keys);
    free(F->keylen);
    free(F->exact);
    tsr_buf_free(&F->text);
    free(F->seg);
    free(F->clean);
    free(F);
}

void tsr_asm_front_pass(struct tsr_asm_front *F, tsr_front_logical out, tsr_front_error err, void *ctx,
                        struct tsr_progmeta **meta)
{
    F->out = out;
    F->err = err;
    F->ctx = ctx;
    F->meta = meta;
    F->line = 0;
    F->in_block = F->in_bundle = false;
    F->section = -1;
    tsr_buf_clear(&F->text);
    F->nseg = 0;
}

void tsr_front_map(const struct tsr_front_seg *seg, size_t nseg, size_t x, unsigned *line, unsigned *col)
{
    size_t i = 0;
    while (i + 1 < nseg && seg[i + 1].off <= x)
        i++;
    *line = nseg ? seg[i].line : 0;
    *col = nseg ? seg[i].col + (unsigned)(x - seg[i].off) : (unsigned)x + 1;
}

static void ferr(struct tsr_asm_front *F, unsigned line, size_t col0, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void ferr(struct tsr_asm_front *F, unsigned line, size_t col0, const char *fmt, ...)
{
    if (!F->err)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    F->err(F->ctx, line, (unsigned)col0 + 1, msg);
}

static bool isblank_(char c)
{
    return tsr_asm_isblank(c);
}

/* The line [lb, le) with its comments blanked, into F->clean (same length). */
static void clean_line(struct tsr_asm_front *F, const char *lb, size_t n)
{
    const struct tsr_tc_syntax *sx = F->sx;
    if (F->cclean < n + 1) {
        F->cclean = n + 64;
        F->clean = tsr_xrealloc(F->clean, F->cclean);
    }
    char *c = F->clean;
    memcpy(c, lb, n);
    c[n] = 0;
    size_t ol = sx->block_open ? strlen(sx->block_open) : 0, cl = sx->block_close ? strlen(sx->block_close) : 0;
    bool str = false;   /* inside a "..." of a section entry: comments do not start there */
    for (size_t i = 0; i < n;) {
        if (F->in_block) {
            if (n - i >= cl && !memcmp(c + i, sx->block_close, cl)) {
                memset(c + i, ' ', cl);
                i += cl;
                F->in_block = false;
            } else {
                c[i++] = ' ';
            }
            continue;
        }
        if (c[i] == '"' && F->section >= 0)
            str = !str;
        else if (c[i] == '\\' && str && i + 1 < n)
            i++;
        if (!str) {
            if (ol && n - i >= ol && !memcmp(c + i, sx->block_open, ol)) {
                F->in_block = true;
                F->block_line = F->line;
                F->block_col = (unsigned)i + 1;
                memset(c + i, ' ', ol);
                i += ol;
                continue;
            }
            bool line_comment = false;
            if (sx->ncomments) {
                for (unsigned k = 0; k < sx->ncomments && !line_comment; k++) {
                    size_t l = strlen(sx->comments[k]);
                    line_comment = n - i >= l && !memcmp(c + i, sx->comments[k], l);
                }
            } else {
                line_comment = c[i] == '#' || (c[i] == '/' && i + 1 < n && c[i + 1] == '/');
            }
            if (line_comment) {
                memset(c + i, ' ', n - i);
                break;
            }
        }
        i++;
    }
}

static void add_seg(struct tsr_asm_front *F, unsigned line, unsigned col)
{
    if (F->nseg == F->cseg) {
        F->cseg = F->cseg ? 2 * F->cseg : 16;
        F->seg = tsr_xrealloc(F->seg, F->cseg * sizeof *F->seg);
    }
    F->seg[F->nseg++] = (struct tsr_front_seg){ (uint32_t)F->text.len, line, col };
}

/* Does an op's mnemonic start at c[i]? */
static bool mnemonic_at(const struct tsr_asm_front *F, const char *c, size_t i, size_t n)
{
    size_t e = i;
    while (e < n && tsr_asm_isident(c[e]))
        e++;
    if (e == i)
        return false;
    for (size_t k = 0; k < F->nkeys; k++)
        if (F->keylen[k] <= e - i && !memcmp(c + i, F->keys[k], F->keylen[k]) && (!F->exact[k] || F->keylen[k] == e - i))
            return true;
    return false;
}

/* Appends the bundle text c[b, e) of the current line: a part at its start and at every op mnemonic after blanks
 * at the top level that no ',' precedes. */
static void add_text(struct tsr_asm_front *F, const char *c, size_t b, size_t e)
{
    while (b < e && isblank_(c[b]))
        b++;
    while (e > b && isblank_(c[e - 1]))
        e--;
    if (b == e)
        return;
    int depth = 0;
    size_t start = b;
    for (size_t i = b; i <= e; i++) {
        bool cut = i == e;
        if (!cut) {
            char ch = c[i];
            if (ch == '(' || ch == '[' || ch == '{')
                depth++;
            else if ((ch == ')' || ch == ']' || ch == '}') && depth > 0)
                depth--;
            if (!isblank_(ch) || depth || i == b)
                continue;
            size_t j = i;
            while (j < e && isblank_(c[j]))
                j++;
            size_t p = i;
            while (p > start && isblank_(c[p - 1]))
                p--;
            if (j == e || p == start || c[p - 1] == ',' || !mnemonic_at(F, c, j, e)) {
                i = j - 1;
                continue;
            }
            cut = true;
        }
        size_t pe = i;
        while (pe > start && isblank_(c[pe - 1]))
            pe--;
        if (F->text.len)
            tsr_buf_append(&F->text, "; ", 2);
        add_seg(F, F->line, (unsigned)start + 1);
        tsr_buf_append(&F->text, c + start, pe - start);
        while (i < e && isblank_(c[i]))
            i++;
        start = i;
        if (i < e)
            i--;
    }
}

static void emit_bundle(struct tsr_asm_front *F, size_t endcol)
{
    if (!F->text.len) {
        ferr(F, F->line, endcol, "empty bundle before '%s'", F->sx->bundle_end);
    } else if (F->out) {
        tsr_buf_append(&F->text, "", 0);
        F->out(F->ctx, F->text.data, F->text.len, F->bundle_line, F->seg, F->nseg);
    }
    tsr_buf_clear(&F->text);
    F->nseg = 0;
    F->in_bundle = false;
}

/* Labels `name:` at c[p..): passed on as a line of their own; returns the position after them. */
static size_t labels(struct tsr_asm_front *F, const char *c, size_t p, size_t n)
{
    size_t q = p, last = p;
    for (;;) {
        size_t i = q;
        if (i >= n || !tsr_asm_isident(c[i]) || (c[i] >= '0' && c[i] <= '9'))
            break;
        while (i < n && tsr_asm_isident(c[i]))
            i++;
        if (i >= n || c[i] != ':' || (i + 1 < n && c[i + 1] == ':'))
            break;
        last = q = i + 1;
        while (q < n && isblank_(c[q]))
            q++;
    }
    if (last > p && F->out) {
        struct tsr_front_seg s = { 0, F->line, (unsigned)p + 1 };
        F->out(F->ctx, c + p, last - p, F->line, &s, 1);
    }
    return last > p ? q : p;
}

/* One entry list of a names/values section on the cleaned line c[p, n). */
static void entries(struct tsr_asm_front *F, const char *c, size_t p, size_t n)
{
    const struct tsr_tc_section *S = &F->sx->sections[F->section];
    for (;;) {
        while (p < n && isblank_(c[p]))
            p++;
        if (p >= n)
            return;
        if (c[p] != '[') {
            ferr(F, F->line, p, "expected '[' to start an entry of section '%s'", S->name);
            return;
        }
        size_t q = p + 1, end, ep, el;
        struct tsr_asm_val v;
        const char *em;
        int r = tsr_asm_expr(c, q, n, NULL, &end, &v, &em, &ep, &el);
        if (r <= 0 || !tsr_asm_int_in(&v, 0, S->state ? (int64_t)S->count - 1 : (int64_t)UINT32_MAX)) {
            if (r < 0)
                ferr(F, F->line, ep, em, (int)el, c + ep);
            else if (S->state)
                ferr(F, F->line, q, "'%.*s' is not an element of %s (0..%u)", (int)((r ? end : q + 1) - q), c + q,
                     S->state, S->count - 1);
            else
                ferr(F, F->line, q, "'%.*s' is not an index (0..4294967295)", (int)((r ? end : q + 1) - q), c + q);
            return;
        }
        struct tsr_progmeta_ent e = { S->name, S->state, (uint32_t)v.i, -1, 0, S->kind == TSR_TC_SEC_VALUES, false, 0,
                                      NULL, F->line };
        q = end;
        while (q < n && isblank_(c[q]))
            q++;
        if (q >= n || c[q] != ']') {
            ferr(F, F->line, q, "expected ']'");
            return;
        }
        q++;
        if (q < n && c[q] == '.') {   /* a component */
            size_t b = ++q;
            while (q < n && tsr_asm_isident(c[q]))
                q++;
            const char *at = q == b + 1 && S->comps ? strchr(S->comps, c[b]) : NULL;
            if (!at || !*at) {
                if (S->comps && *S->comps)
                    ferr(F, F->line, b, "'%.*s' is not a component of section '%s' (one of \"%s\")", (int)(q - b), c + b,
                         S->name, S->comps);
                else
                    ferr(F, F->line, b - 1, "the entries of section '%s' have no components", S->name);
                return;
            }
            e.comp = (int)(at - S->comps);
            e.compname = *at;
        }
        while (q < n && isblank_(c[q]))
            q++;
        if (q >= n || c[q] != '=') {
            ferr(F, F->line, q, "expected '=' in an entry of section '%s'", S->name);
            return;
        }
        q++;
        while (q < n && isblank_(c[q]))
            q++;
        char name[1024];
        if (S->kind == TSR_TC_SEC_NAMES) {
            size_t k = 0;
            if (q >= n || c[q] != '"') {
                ferr(F, F->line, q, "expected a name in quotes (\"...\") in section '%s'", S->name);
                return;
            }
            for (q++; q < n && c[q] != '"'; q++) {
                if (c[q] == '\\' && q + 1 < n)
                    q++;
                if (k + 1 < sizeof name)
                    name[k++] = c[q];
            }
            if (q >= n) {
                ferr(F, F->line, n, "the name's '\"' is not closed on its line");
                return;
            }
            name[k] = 0;
            e.name = name;
            q++;
        } else {
            r = tsr_asm_expr(c, q, n, NULL, &end, &v, &em, &ep, &el);
            if (r <= 0) {
                if (r < 0)
                    ferr(F, F->line, ep, em, (int)el, c + ep);
                else
                    ferr(F, F->line, q, "expected a value (an integer or a float) in section '%s'", S->name);
                return;
            }
            if (v.fl) {
                float f = (float)v.d;
                memcpy(&e.value, &f, 4);
                e.fl = true;
            } else if (tsr_asm_int_in(&v, INT32_MIN, (int64_t)UINT32_MAX)) {
                e.value = (uint32_t)v.i;
            } else {
                ferr(F, F->line, q, "value '%.*s' does not fit 32 bits", (int)(end - q), c + q);
                return;
            }
            q = end;
        }
        while (q < n && isblank_(c[q]))
            q++;
        if (q >= n || c[q] != ';') {
            ferr(F, F->line, q, "expected ';' after the entry");
            return;
        }
        if (F->meta)
            tsr_progmeta_add(F->meta, &e);
        p = q + 1;
    }
}

void tsr_asm_front_line(struct tsr_asm_front *F, const char *lb, const char *le)
{
    const struct tsr_tc_syntax *sx = F->sx;
    size_t n = (size_t)(le - lb);
    F->line++;
    clean_line(F, lb, n);
    const char *c = F->clean;
    size_t p = 0;
    while (p < n && isblank_(c[p]))
        p++;
    if (p == n)
        return;
    if (!F->in_bundle && c[p] == '.') {   /* a section or a directive */
        size_t q = p + 1;
        while (q < n && tsr_asm_isident(c[q]))
            q++;
        for (unsigned i = 0; i < sx->nsections; i++)
            if (strlen(sx->sections[i].name) == q - p && !memcmp(sx->sections[i].name, c + p, q - p)) {
                F->section = sx->sections[i].kind == TSR_TC_SEC_CODE ? -1 : (int)i;
                while (q < n && isblank_(c[q]))
                    q++;
                if (q < n)
                    ferr(F, F->line, q, "unexpected text after section '%s'", sx->sections[i].name);
                return;
            }
        if ((q - p == 4 && !memcmp(c + p, ".set", 4)) || (q - p == 5 && !memcmp(c + p, ".word", 5))) {
            struct tsr_front_seg s = { 0, F->line, (unsigned)p + 1 };
            if (F->out)
                F->out(F->ctx, c + p, n - p, F->line, &s, 1);
            return;
        }
        char list[256];
        size_t k = 0;
        list[0] = 0;
        for (unsigned i = 0; i < sx->nsections && k < sizeof list; i++)
            k += (size_t)snprintf(list + k, sizeof list - k, "%s%s", i ? ", " : "", sx->sections[i].name);
        ferr(F, F->line, p, "unknown section '%.*s' (sections: %s)", (int)(q - p), c + p, sx->nsections ? list : "none");
        return;
    }
    if (F->section >= 0) {
        entries(F, c, p, n);
        return;
    }
    if (!sx->bundle_end) {   /* one bundle a line, with the declared comments and sections */
        struct tsr_front_seg s = { 0, F->line, (unsigned)p + 1 };
        if (F->out)
            F->out(F->ctx, c + p, n - p, F->line, &s, 1);
        return;
    }
    size_t bl = strlen(sx->bundle_end);
    while (p < n) {
        if (!F->in_bundle) {
            while (p < n && isblank_(c[p]))
                p++;
            if (p == n)
                return;
            p = labels(F, c, p, n);
            if (p == n)
                return;
            F->in_bundle = true;
            F->bundle_line = F->line;
            F->bundle_col = (unsigned)p + 1;
        }
        /* the bundle's end, outside an override group */
        size_t q = p;
        int depth = 0;
        while (q < n && !(depth == 0 && n - q >= bl && !memcmp(c + q, sx->bundle_end, bl))) {
            depth += c[q] == '{' ? 1 : c[q] == '}' && depth ? -1 : 0;
            q++;
        }
        add_text(F, c, p, q);
        if (q == n)
            return;
        emit_bundle(F, q);
        p = q + bl;
    }
}

void tsr_asm_front_finish(struct tsr_asm_front *F)
{
    if (F->in_bundle)
        ferr(F, F->bundle_line, F->bundle_col - 1, "bundle not ended by '%s' at the end of the file", F->sx->bundle_end);
    if (F->in_block)
        ferr(F, F->block_line, F->block_col - 1, "comment '%s' not closed at the end of the file", F->sx->block_open);
    F->in_bundle = F->in_block = false;
    tsr_buf_clear(&F->text);
    F->nseg = 0;
}
