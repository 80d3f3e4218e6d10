/* Programs of several basic blocks for the packer of values routed through forwards (docs/pack.md "Values through
 * forwards", "Basic blocks"): the labels, the blocks (a label starts one, an operation that branches or ends the
 * program ends one), each block packed alone by tsr_route_block (pack_route.c), and the check of the whole.
 * Nothing here names a target. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pack_route.h"
#include "diag.h"
#include "fileout.h"
#include "hexio.h"
#include "target.h"
#include "text/asm_engine.h"

/* ---- programs of several basic blocks ------------------------------------------------------------------------ */

/* Is the line s[0..n) (indentation skipped) a label: `name:` and nothing else? *nl gets the name's length. */
static bool label_line(const char *s, size_t n, size_t *nl)
{
    size_t a = 0;
    while (a < n && (s[a] == ' ' || s[a] == '\t'))
        a++;
    size_t z = n;
    while (z > a && (s[z - 1] == ' ' || s[z - 1] == '\t' || s[z - 1] == '\r'))
        z--;
    if (z <= a + 1 || s[z - 1] != ':' || s[a] == '%' || s[a] == '.')
        return false;
    for (size_t k = a; k + 1 < z; k++)
        if (!tsr_asm_isident(s[k]))
            return false;
    *nl = z - 1 - a;
    return true;
}

/* The label of a program: its name (in the input), its stand-in (`L` + hex of an address no token of the input
 * names), the line it stands on. */
struct rlabel { const char *name; size_t len; char stand[24]; unsigned line; };

/* Replaces in b every token (a run of identifier characters bounded by others) equal to one of the n labels' from
 * side (0: name, 1: stand-in) by its other side. */
static void swap_labels(struct tsr_buf *b, const struct rlabel *L, int n, int from)
{
    struct tsr_buf o = { 0 };
    const char *s = b->data ? b->data : "";
    size_t len = b->len;
    for (size_t i = 0; i < len;) {
        if (tsr_asm_isident(s[i]) && (i == 0 || !tsr_asm_isident(s[i - 1]))) {
            size_t e = i;
            while (e < len && tsr_asm_isident(s[e]))
                e++;
            int hit = -1;
            for (int k = 0; k < n && hit < 0; k++) {
                const char *f = from ? L[k].stand : L[k].name;
                size_t fl = from ? strlen(L[k].stand) : L[k].len;
                if (fl == e - i && !memcmp(s + i, f, fl))
                    hit = k;
            }
            if (hit >= 0) {
                if (from)
                    tsr_buf_append(&o, L[hit].name, L[hit].len);
                else
                    tsr_buf_puts(&o, L[hit].stand);
            } else {
                tsr_buf_append(&o, s + i, e - i);
            }
            i = e;
            continue;
        }
        tsr_buf_append(&o, s + i, 1);
        i++;
    }
    tsr_buf_clear(b);
    tsr_buf_append(b, o.data ? o.data : "", o.len);
    tsr_buf_free(&o);
}

/* How many times s[0..len) holds the token tok (bounded by non-identifier characters). */
static size_t count_token(const char *s, size_t len, const char *tok)
{
    size_t tl = strlen(tok), n = 0;
    for (size_t i = 0; i + tl <= len; i++)
        if (s[i] == tok[0] && !memcmp(s + i, tok, tl) && (i == 0 || !tsr_asm_isident(s[i - 1])) &&
            (i + tl == len || !tsr_asm_isident(s[i + tl])))
            n++;
    return n;
}

/* (pack_int.h) A program of several basic blocks: a label starts a block, an operation that branches or ends the
 * program ends one.  Each block is packed alone (tsr_route_block) and the labels stand before their blocks' bundles; a
 * value is routed within its block (lima's scheduler: a value register lives in one block, a register carries what
 * lives across blocks), so a read of a value named in another block is an error.  While the blocks are packed, a
 * label's name is replaced by a stand-in address that no token of the input names (`L` + hex, a multiple of the
 * pc step, which every label hole takes as a literal address: docs/asm.md), so each block assembles alone; the
 * output gets the names back, and the whole program is assembled and validated at the end. */
int tsr_pack_route(const struct tsr_target *t, const char *path, const char *text, size_t len, bool deep,
                   struct tsr_buf *out, struct tsr_pack_stats *st, struct tsr_diag *d)
{
    /* the labels, each with its stand-in */
    struct rlabel *L = NULL;
    int nlab = 0;
    unsigned nlines = 0;
    uint64_t addr = 0;
    for (size_t i = 0; i < len;) {
        const char *e = memchr(text + i, '\n', len - i);
        size_t n = e ? (size_t)(e - (text + i)) : len - i, nl = 0;
        nlines++;
        if (label_line(text + i, n, &nl)) {
            L = realloc(L, ((size_t)nlab + 1) * sizeof *L);
            if (!L)
                abort();
            const char *nm = text + i + strspn(text + i, " \t");
            L[nlab] = (struct rlabel){ nm, nl, "", nlines };
            do {
                addr += t->pc_step ? t->pc_step : 1;
                snprintf(L[nlab].stand, sizeof L[nlab].stand, "L%llx", (unsigned long long)addr);
            } while (count_token(text, len, L[nlab].stand));
            nlab++;
        }
        i += n + 1;
    }
    /* the program with the stand-ins and without the label lines (blank lines keep the numbers) */
    struct tsr_buf prog = { 0 };
    tsr_buf_append(&prog, text, len);
    swap_labels(&prog, L, nlab, 0);
    for (size_t i = 0; i < prog.len;) {
        char *e = memchr(prog.data + i, '\n', prog.len - i);
        size_t n = e ? (size_t)(e - (prog.data + i)) : prog.len - i, nl;
        if (label_line(prog.data + i, n, &nl))
            memset(prog.data + i, ' ', n);
        i += n + 1;
    }
    /* the blocks: the operations (their lines) read whole, then cut after each one that branches or ends */
    struct route R = { 0 };
    int rc = !t->vdesc || !t->vdesc->nfwdtexts ? 0
             : tsr_route_read(&R, t, path, prog.data ? prog.data : "", prog.len, 0, d);
    unsigned *cut = calloc((size_t)nlines + 2, sizeof *cut);   /* cut[l]: a block starts at line l (1-based) */
    int *blk = calloc((size_t)R.n + 1, sizeof *blk);
    bool multi = nlab > 0;
    for (int k = 0; k < nlab; k++)
        cut[L[k].line] = 1;
    for (int i = 0; i < R.n && !rc; i++)
        if (R.o[i].ev.ctl != TSR_PACK_CTL_NONE && i + 1 < R.n) {
            cut[R.o[i].line + 1] = 1;
            multi = true;
        }
    /* (each operation's block, and the reads across blocks) */
    for (int i = 0, b = 0, l = 1; i < R.n && !rc; i++) {
        for (; l <= (int)R.o[i].line; l++)
            b += cut[l] != 0;
        blk[i] = b;
        for (int r = 0; r < R.o[i].nref; r++)
            if (blk[R.o[i].ref[r]] != b) {
                rc = tsr_diag_error(d, path, R.o[i].line, R.o[i].col, "value '%%%d' is defined in another basic "
                                    "block (line %u): a value is routed within its block (one that lives across "
                                    "blocks goes through a register)", R.o[i].refname[r], R.o[R.o[i].ref[r]].line);
                break;
            }
    }
    tsr_route_read_free(&R);
    free(blk);
    /* the input's spills undone (pack_unspill.c): each variant of tsr_route_spans (the store-moves and the stores of
     * computing ops whose loads lie within a span each); each different text scheduled too, the shortest kept (the
     * input's own first among equals, then in that order; a build with AddressSanitizer tries the first only); the
     * input's diagnostic when none schedules */
    int nspans;
    const struct tsr_route_unsp *spans = tsr_route_spans(&nspans);
    struct tsr_buf var[ROUTE_MAXSPANS] = { { 0 } };
    int nvar = 0;
    for (int k = 0; !rc && !multi && k < nspans && k < ROUTE_MAXSPANS; k++) {
        bool fresh = tsr_route_unspill(t, path, text, len, spans[k].mspan, spans[k].cspan, &var[nvar]) > 0;
        for (int j = 0; j < nvar && fresh; j++)
            fresh = var[j].len != var[nvar].len || memcmp(var[j].data, var[nvar].data, var[j].len);
        if (fresh)
            nvar++;
        else
            tsr_buf_clear(&var[nvar]);
    }
    if (nvar) {
        struct tsr_buf ob = { 0 };
        struct tsr_pack_stats sb = { 0 };
        struct tsr_diag q;
        tsr_diag_init(&q, TSR_DIAG_STORE, NULL);
        int rb = tsr_route_block(t, path, text, len, 0, 0, deep, &ob, &sb, &q);
        for (int k = 0; k < nvar; k++) {
            struct tsr_buf o2 = { 0 };
            struct tsr_pack_stats s2 = { 0 };
            if (!tsr_route_block(t, path, var[k].data, var[k].len, 0, 0, deep, &o2, &s2, &q) &&
                (rb || s2.nbundles < sb.nbundles)) {
                tsr_buf_free(&ob);
                tsr_pack_stats_free(&sb);
                ob = o2;
                sb = s2;
                rb = 0;
            } else {
                tsr_buf_free(&o2);
                tsr_pack_stats_free(&s2);
            }
        }
        if (rb) {
            rc = tsr_route_block(t, path, text, len, 0, 0, deep, out, st, d);
        } else {
            tsr_buf_append(out, ob.data, ob.len);
            if (st) {
                *st = sb;
                memset(&sb, 0, sizeof sb);
            }
        }
        tsr_pack_stats_free(&sb);
        tsr_buf_free(&ob);
        tsr_diag_fini(&q);
    } else if (!rc && !multi) {
        rc = tsr_route_block(t, path, text, len, 0, 0, deep, out, st, d);
    } else if (!rc) {
        /* each block from its first line to the line before the next block's; its labels in front */
        struct tsr_buf o = { 0 };
        struct tsr_pack_stats sum = { 0 };
        size_t pos = 0;
        unsigned l = 1;
        int lk = 0;
        while (!rc && l <= nlines) {
            unsigned a = l;
            size_t pa = pos;
            do {
                const char *e = memchr(prog.data + pos, '\n', prog.len - pos);
                pos = e ? (size_t)(e - prog.data) + 1 : prog.len;
                l++;
            } while (l <= nlines && !cut[l]);
            for (; lk < nlab && L[lk].line < l; lk++)
                tsr_buf_printf(&o, "%s:\n", L[lk].stand);
            /* (a block of no operation: its labels alone) */
            bool ops = false;
            for (size_t q = pa; q < pos && !ops; q++)
                ops = prog.data[q] != ' ' && prog.data[q] != '\t' && prog.data[q] != '\n' && prog.data[q] != '\r';
            if (!ops)
                continue;
            struct tsr_pack_stats bs = { 0 };
            rc = tsr_route_block(t, path, prog.data + pa, pos - pa, a - 1, addr + (t->pc_step ? t->pc_step : 1), deep,
                                 &o, &bs, d);
            if (!rc) {
                sum.nops += bs.nops;
                sum.nbundles += bs.nbundles;
                sum.lower += bs.lower;
                sum.basic += bs.basic;
                sum.moves += bs.moves;
                sum.moveonly += bs.moveonly;
                sum.single += bs.single;
                sum.blocks = realloc(sum.blocks, ((size_t)sum.nblocks + bs.nblocks + 1) * sizeof *sum.blocks);
                if (!sum.blocks)
                    abort();
                memcpy(sum.blocks + sum.nblocks, bs.blocks, bs.nblocks * sizeof *bs.blocks);
                sum.nblocks += bs.nblocks;
            }
            tsr_pack_stats_free(&bs);
        }
        for (; !rc && lk < nlab; lk++)
            tsr_buf_printf(&o, "%s:\n", L[lk].stand);
        /* (each stand-in printed where the input names it, and once as its label: a label hole that prints another
         * address, one relative to the pc, is not supported here) */
        for (int k = 0; k < nlab && !rc; k++)
            if (count_token(o.data ? o.data : "", o.len, L[k].stand) !=
                count_token(prog.data, prog.len, L[k].stand) + 1)
                rc = tsr_diag_error(d, path, L[k].line, 1, "the packed program does not name label '%.*s' where the "
                                    "input does (a label hole relative to the pc is not supported with value names)",
                                    (int)L[k].len, L[k].name);
        /* the whole: the names back, then it assembles and the validator finds nothing across the blocks */
        if (!rc) {
            swap_labels(&o, L, nlab, 1);
            rc = tsr_route_check(t, path, o.data ? o.data : "", o.len, sum.nbundles, 0, d);
        }
        if (!rc) {
            tsr_buf_append(out, o.data ? o.data : "", o.len);
            if (st) {
                *st = sum;
                sum.blocks = NULL;
            }
        }
        free(sum.blocks);
        tsr_buf_free(&o);
    }
    free(cut);
    free(L);
    tsr_buf_free(&prog);
    for (int k = 0; k < ROUTE_MAXSPANS; k++)
        tsr_buf_free(&var[k]);
    return rc;
}
