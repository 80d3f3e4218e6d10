/* The disassembler's generated printer: one C function per operation that mdlc writes into
 * build/gen/<t>/<t>_disasm.c (gen/emit_disprint.c), and the small formatters it calls.
 *
 * A printer function prints one op's syntax template for the decoded fields, with exactly the rules of the
 * interpreted printer (runtime/text/dis_engine.c print_seq; docs/mdl.md "Syntax templates"): literal text as
 * written, a blank for white space, `{TABLE:FIELD}` the code's precomputed text (no text: the op cannot be
 * printed this way), `{FIELD}` as the field's print format says, `{label:FIELD}` `L` + lower-case hex of the
 * target (recorded in lab), `{?'text' conds}` the text iff the conditions hold, and an operand the first
 * alternative whose conditions hold and whose parts can all be printed.  Conditions are compiled to direct
 * comparisons on the raw field codes; nothing is interpreted.
 *
 * Memory: the caller guarantees room for the op's bounds (struct tsr_tc_pop): maxlen bytes at p (the text
 * plus TSR_TC_PSLACK bytes a fixed-size copy may write past its end), maxlab entries at lab + nlab and
 * maxev at ev + nev.  Nothing is allocated; a given-up alternative only moves the pointers back.
 */
#ifndef TSR_DIS_PRINT_H
#define TSR_DIS_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "text/dis_path.h"

/* Bytes a generated printer may write past the end of its text: table names up to 15 bytes are copied
 * as 16-byte blocks. */
#define TSR_TC_PSLACK 16

/* The state one op's printer works on: where event offsets count from, the events and labels so far. */
struct tsr_tc_pctx {
    const char *base;          /* first byte of the bundle's text (events are offsets from it) */
    struct tsr_dis_ev *ev;     /* the path's events (dis_path.h), nev used */
    size_t nev;
    uint64_t *lab;             /* label targets printed, nlab used */
    size_t nlab;
};

/* Prints the op's template at p for the raw field codes f (struct <t>_inst.f) of an instruction at byte
 * address pc.  Returns the end of the text, or NULL when the op cannot be printed (a table code with no
 * text in every alternative that holds); then p[0..] and the events and labels past the caller's counts
 * are garbage. */
typedef char *(*tsr_tc_print_fn)(const uint64_t *f, uint64_t pc, char *p, struct tsr_tc_pctx *x);

/* What a generated operand printer returns: the end of its text and of its events (p NULL: not printed). */
struct tsr_tc_pres { char *p; struct tsr_dis_ev *ev; };

/* One op's printer and its bounds, computed by mdlc from the template. */
struct tsr_tc_pop {
    tsr_tc_print_fn fn;
    uint32_t maxlen;           /* bytes written at most, TSR_TC_PSLACK included */
    uint32_t maxev;            /* events added at most */
    uint32_t maxlab;           /* labels added at most */
};

/* A table code's text for the generated printer: names up to 15 bytes are stored inline (copied as one
 * 16-byte block); ok is false for a code the table gives no text (docs/mdl.md "Tables"); kind is the
 * enum tsr_tc_pkind of the entry (the path's TABLE event). */
struct tsr_tc_ptext16 { char s[16]; uint8_t len, kind, ok; };
struct tsr_tc_ptext { const char *s; uint32_t len; uint8_t kind, ok; };
/* The same for a sparse table: sorted by code, found by binary search (tsr_tc_ptext_find). */
struct tsr_tc_ptextc { uint32_t code; struct tsr_tc_ptext t; };

/* The entry for code in a[0 .. n-1] (sorted by code), or NULL. */
static inline const struct tsr_tc_ptext *tsr_tc_ptext_find(const struct tsr_tc_ptextc *a, size_t n, uint64_t code)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid].code == code)
            return &a[mid].t;
        if (a[mid].code < code)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* Decimal digits of v, after a '-' when neg.  Returns the end (at most 21 bytes). */
static inline char *tsr_tc_fmt_dec(char *p, uint64_t v, bool neg)
{
    char b[20];
    int i = 20;
    do
        b[--i] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    if (neg)
        *p++ = '-';
    memcpy(p, b + i, (size_t)(20 - i));
    return p + 20 - i;
}

/* v as a signed decimal number of a `width`-bit two's-complement field (width 1..64). */
static inline char *tsr_tc_fmt_sdec(char *p, uint64_t v, unsigned width)
{
    uint64_t sign = (uint64_t)1 << ((width - 1) & 63);
    uint64_t m = width >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << width) - 1;
    uint64_t x = ((v & m) ^ sign) - sign;   /* the sign-extended value, modulo 2^64 */
    return (x >> 63) ? tsr_tc_fmt_dec(p, 0 - x, true) : tsr_tc_fmt_dec(p, x, false);
}

/* Lower-case hex digits of v, no prefix (at most 16 bytes). */
static inline char *tsr_tc_fmt_xdigits(char *p, uint64_t v)
{
    char b[16];
    int i = 16;
    do
        b[--i] = "0123456789abcdef"[v & 15];
    while ((v >>= 4) != 0);
    memcpy(p, b + i, (size_t)(16 - i));
    return p + 16 - i;
}

/* `0x` + lower-case hex of v; 0-9 in decimal (they read the same).  At most 18 bytes. */
static inline char *tsr_tc_fmt_hex(char *p, uint64_t v)
{
    if (v < 10) {
        *p = (char)('0' + v);
        return p + 1;
    }
    p[0] = '0';
    p[1] = 'x';
    return tsr_tc_fmt_xdigits(p + 2, v);
}

/* A label: `L` + lower-case hex of the target address (at most 17 bytes). */
static inline char *tsr_tc_fmt_label(char *p, uint64_t t)
{
    *p = 'L';
    return tsr_tc_fmt_xdigits(p + 1, t);
}

/* The binary32 value of bits in the shortest `%g` form that reads back as the same bits, with a '.' or an
 * exponent ("1.5", "-2.0000153", "16.0"), NUL-terminated in b.  Returns its length, or -1 for a NaN or an
 * infinity (which have no such form).  Shared by both printers and by mdlc (table floats are printed at
 * generation time), so all agree byte for byte. */
int tsr_tc_float_text(uint32_t bits, char b[48]);

/* A `{FIELD}` hole of a 32-bit field printed `float`: tsr_tc_float_text, or `0x` + hex when the value is a
 * NaN or an infinity.  At most TSR_TC_FLOAT_MAX bytes. */
#define TSR_TC_FLOAT_MAX 24
char *tsr_tc_fmt_float(char *p, uint64_t v);

/* ---- the printers alone, without the round-trip check (tests and benchmarks; runtime/text/dis_engine.c) ---- */
struct tsr_tc_isa;
struct tsr_buf;
struct tsr_tc_printer;

/* A printer for isa: the generated one (generated, when isa->pops is set) or the interpreted one (print_seq).
 * Aborts when memory runs out.  One printer per thread. */
struct tsr_tc_printer *tsr_tc_printer_new(const struct tsr_tc_isa *isa, bool generated);
/* Decodes the instruction at w (isa->nwords values) and appends the text the disassembler prints for it at
 * byte address pc before its round-trip check (all: every slot, else up to the last slot with a non-default
 * op), with no overrides.  Returns 0, or -1 when it does not decode or cannot be printed this way (out is then
 * unchanged: the disassembler would print `.word`).  The path record and the labels of the call are kept
 * until the next call (tsr_tc_printer_path, tsr_tc_printer_labels). */
int tsr_tc_printer_print(struct tsr_tc_printer *P, const uint32_t *w, uint64_t pc, bool all, struct tsr_buf *out);
const struct tsr_dis_path *tsr_tc_printer_path(const struct tsr_tc_printer *P);
const uint64_t *tsr_tc_printer_labels(const struct tsr_tc_printer *P, size_t *n);
void tsr_tc_printer_free(struct tsr_tc_printer *P);

#endif
