/* Numbers the exactness proof decides from the template and the number syntax, without reading them back
 * (dis_exact.h "numbers decided from the template"): a `{FIELD}` hole (TSR_DIS_S_FIXINT) and a table hole
 * printed as a number (TSR_DIS_S_NUMROW), where the walk (dis_exact.c) would parse the printed number with the
 * assembler's expression reader (asm_expr.c) and check what the assembler does with the value.
 *
 * That parse is implied by the template when two things hold.
 *
 * (a) What follows the number cannot extend the expression (`stops`).  The printer prints the number, then
 *     the continuation (the rest of the template: literals, blanks, holes, then the end of the bundle part).
 *     The reader's number() scans digits, `_`, hex digits after `0x`, a `.` and an exponent; it stops at a
 *     blank or at any other character, and fails ("malformed number") when an identifier character follows.
 *     Then expr() skips blanks and takes a binary operator (`| ^ & << >> + - * / %`) with another operand;
 *     when no operand follows it backs off, but an operand that fails (`>> r5`: an undefined symbol) fails the
 *     whole expression.  So when the first non-blank character the continuation can print is the end of the
 *     bundle part or one of `, ; : ) ] }` (no identifier character, no `.`, no operator; `(` and `~` are left
 *     out too, though the reader takes neither after an operand), the reader stops exactly at the end of the
 *     printed number, on the same value it reads from the number alone.  Optional text and operand
 *     alternatives in the continuation are followed every way (conditions ignored); a table or number hole
 *     there, or an operand nested deeper than a few levels, counts as "may extend".
 *
 * (b) The number alone reads back as what the walk needs.
 *   - `{FIELD}` (dis_print.h formatters; print kinds of docs/mdl.md "Fields"), the field's raw code c below
 *     2^w, w = 1..64, for every c:
 *       hex:      `0x` + lower-case hex digits (at most 16: no overflow), or one decimal digit below 10: the
 *                 value c;
 *       unsigned: decimal digits of c (at most 2^64 - 1: no overflow): the value c;
 *       signed:   `-` and the decimal magnitude of the sign-extended value s, or the digits of s >= 0; the
 *                 reader negates the magnitude exactly (down to -2^63, asm_expr.c to_sm / from_sm): the value s.
 *     number_hole (asm_engine.c) stores it when am_fits: w = 64 always; else -2^(w-1) <= value <= 2^w - 1 and
 *     not `u` (the value is below 2^63), true of c and of s.  The field then gets value & mask(w) = c.  So the
 *     step only binds the field (and checks that the decoded code is below 2^w).  `float` (a 32-bit field's
 *     binary32 value in its shortest form) is not taken: the reader's strtod and the cast to float round twice,
 *     and whether that can land on another binary32 than the printer's strtof is not proven here; those keep
 *     the text check (TSR_DIS_S_INT).
 *   - a table hole printed as a number: per code (tsr_dis_num_entry, a row per table like the names' rows):
 *     the printed text (the int32 in decimal, or the float's text, as both printers print it) is one that no
 *     name of the table can start (no empty name, no name with its first character: names_at finds none),
 *     the reader reads it whole, and the first numeric entry that accepts the value (dis_match.c
 *     tsr_dis_num_ok, asm_engine.c table_hole's test) is that code's own.  The reader runs here on the
 *     number alone, so floats are decided exactly as the assembler reads them.  A code tried later than an
 *     entry of the same value (small immediate -14: code 18 first, code 50 printed) is not: the step then
 *     runs as TSR_DIS_S_TAB (dis_pin.c decides it on the text).
 */
#include <stdlib.h>
#include <string.h>

#include "asm_engine.h"
#include "dis_px.h"
#include "text/dis_print.h"

/* Operands nested within the continuation that stops() follows before it answers "may extend". */
#define NUM_DEPTH 4

/* Can the reader, having read a whole number, not go on at c (the first non-blank character after it)? */
static bool stop_char(unsigned char c)
{
    return c == ',' || c == ';' || c == ':' || c == ')' || c == ']' || c == '}';
}

/* The first non-blank character of text[0..len) (-1: all blanks). */
static int first_char(const char *text, uint32_t len)
{
    for (uint32_t i = 0; i < len; i++)
        if (!tsr_asm_isblank((unsigned char)text[i]))
            return (unsigned char)text[i];
    return -1;
}

/* Can every text that parts [p, end), then k's sequences, then the end of the bundle part print begin (after
 * blanks) with the end of the part or a stop_char?  (a) of the top comment. */
static bool stops(const struct tsr_tc_isa *isa, const struct tsr_tc_part *p, const struct tsr_tc_part *end,
                  const struct tsr_dis_kont *k, unsigned depth)
{
    for (;;) {
        for (; p < end; p++) {
            int c;
            switch (p->kind) {
            case TSR_TC_SPACE:
                continue;
            case TSR_TC_TEXT:
                if ((c = first_char(p->text, p->len)) < 0)
                    continue;
                return stop_char((unsigned char)c);
            case TSR_TC_OPT:   /* printed: its text first; not printed: what follows */
                if ((c = first_char(p->text, p->len)) >= 0 && !stop_char((unsigned char)c))
                    return false;
                continue;
            case TSR_TC_OPND: {
                if (!depth)
                    return false;
                const struct tsr_tc_opnd *o = &isa->opnds[p->arg];
                struct tsr_dis_kont rest = {p + 1, end, k};
                for (uint32_t i = 0; i < o->nalt; i++) {
                    const struct tsr_tc_alt *al = &isa->alts[o->alt + i];
                    const struct tsr_tc_part *ap = isa->parts + al->part;
                    if (!stops(isa, ap, ap + al->npart, &rest, depth - 1))
                        return false;
                }
                return true;
            }
            default:   /* a table name, a number or a label: may start with anything */
                return false;
            }
        }
        if (!k)
            return true;   /* the end of the bundle part */
        p = k->p, end = k->end, k = k->next;
    }
}

/* Does a `{FIELD}` hole of field fd print, for every code, a number that reads back as that code?  (b) of the
 * top comment. */
static bool int_fixed(const struct tsr_tc_field *fd)
{
    if (fd->width < 1 || fd->width > 64)
        return false;
    switch (fd->print) {
    case TSR_TC_FP_DEFAULT:
    case TSR_TC_FP_SIGNED:
    case TSR_TC_FP_UNSIGNED:
    case TSR_TC_FP_HEX:
        return true;
    case TSR_TC_FP_FLOAT:
        return fd->width != 32;   /* printed in hex */
    default:
        return false;
    }
}

uint8_t tsr_dis_num_kind(struct tsr_dis_static *st, const struct tsr_tc_part *p, const struct tsr_tc_part *end,
                         const struct tsr_dis_kont *k)
{
    const struct tsr_tc_isa *isa = st->isa;
    if (p->kind == TSR_TC_INT)
        return int_fixed(&isa->fields[p->field]) && stops(isa, p + 1, end, k, NUM_DEPTH) ? TSR_DIS_S_FIXINT
                                                                                      : TSR_DIS_S_INT;
    if (p->kind == TSR_TC_TABLE)
        return isa->tables[p->arg].nnums && stops(isa, p + 1, end, k, NUM_DEPTH) ? TSR_DIS_S_NUMROW : TSR_DIS_S_TAB;
    return TSR_DIS_S_TAB;
}

uint8_t tsr_dis_num_opkind_slow(struct tsr_dis_static *st, const struct tsr_tc_part *p, const struct tsr_tc_part *end)
{
    size_t i = (size_t)(p - st->isa->parts);
    uint8_t kind = tsr_dis_num_kind(st, p, end, NULL);
    if (i >= st->nparts)
        return kind;
    if (!st->numop) {
        st->numop = calloc(st->nparts, 1);
        if (!st->numop)
            abort();
    }
    st->numop[i] = (uint8_t)(kind + 1);
    return kind;
}

int tsr_dis_num_text(const struct tsr_tc_print *pr, char b[48])
{
    if (pr->kind == TSR_TC_PRINT_INT) {
        int32_t v = (int32_t)pr->val;
        char *e = tsr_tc_fmt_dec(b, v < 0 ? 0 - (uint64_t)(int64_t)v : (uint64_t)v, v < 0);
        *e = 0;
        return (int)(e - b);
    }
    if (pr->kind == TSR_TC_PRINT_FLOAT)
        return tsr_tc_float_text(pr->val, b);
    return -1;
}

/* (b) of the top comment for code c of table t: TSR_DIS_NEVER when it holds, else TSR_DIS_MAYBE. */
static int entry_fixed(const struct tsr_tc_isa *isa, unsigned t, uint64_t c)
{
    const struct tsr_tc_table *T = &isa->tables[t];
    const struct tsr_tc_print *pr = tsr_dis_print_of(isa, t, c);
    char b[48];
    int n = pr ? tsr_dis_num_text(pr, b) : -1;
    if (n <= 0)
        return TSR_DIS_MAYBE;
    if (T->nnames) {   /* names_at finds a name only along a child of the root, or the empty name */
        const struct tsr_tc_trie *r = &isa->tries[T->trie];
        if (r->term)
            return TSR_DIS_MAYBE;
        for (uint32_t i = 0; i < r->nkid; i++)
            if (isa->tries[r->kid + i].ch == (uint8_t)b[0])
                return TSR_DIS_MAYBE;
    }
    struct tsr_asm_val v;
    size_t e, ep, el;
    const char *err;
    if (tsr_asm_expr(b, 0, (size_t)n, NULL, &e, &v, &err, &ep, &el) <= 0 || e != (size_t)n)
        return TSR_DIS_MAYBE;
    for (uint32_t i = 0; i < T->nnums; i++) {
        const struct tsr_tc_num *nu = &isa->nums[T->num_first + i];
        if (tsr_dis_num_ok(nu, &v))
            return nu->code == c ? TSR_DIS_NEVER : TSR_DIS_MAYBE;
    }
    return TSR_DIS_MAYBE;
}

uint8_t *tsr_dis_num_row(struct tsr_dis_static *st, unsigned t, uint32_t *len)
{
    *len = st->rowlen[t];
    if (!*len)
        return NULL;
    if (!st->num_rt) {
        st->num_rt = calloc(st->isa->ntables, sizeof *st->num_rt);
        if (!st->num_rt)
            abort();
    }
    if (!st->num_rt[t]) {
        st->num_rt[t] = calloc(*len, 1);
        if (!st->num_rt[t])
            abort();
    }
    return st->num_rt[t];
}

int tsr_dis_num_entry(struct tsr_dis_static *st, unsigned t, uint64_t c)
{
    uint32_t len;
    uint8_t *row = tsr_dis_num_row(st, t, &len);
    if (!row || c >= len)
        return entry_fixed(st->isa, t, c);
    if (row[c] == TSR_DIS_UNKNOWN)
        row[c] = (uint8_t)entry_fixed(st->isa, t, c);
    return row[c];
}

void tsr_dis_num_free(struct tsr_dis_static *st)
{
    for (size_t i = 0; st->num_rt && i < st->isa->ntables; i++)
        free(st->num_rt[i]);
    free(st->num_rt);
    free(st->numop);
    st->num_rt = NULL;
    st->numop = NULL;
}
