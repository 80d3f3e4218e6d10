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
 * Memory: the caller guarantees room for the op's bounds (struct tsr_tc_pop): maxlen bytes at b + o (the text
 * plus TSR_TC_PSLACK bytes a fixed-size copy may write past its end), maxlab entries at lab + nlab and
 * maxev at ev.  Nothing is allocated; a given-up alternative only moves the offset, the event pointer and the
 * label count back.  Positions are offsets from the bundle's first byte, as the path's events are.
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

/* The labels one op's printer records: the targets printed so far (lab[0 .. nlab-1]). */
struct tsr_tc_pctx {
    uint64_t *lab;
    size_t nlab;
};

/* What a printer returns: the end of its text (an offset from the bundle's first byte, like o) and the end of its
 * events; ev NULL: it cannot be printed (a table code with no text in every alternative that holds). */
struct tsr_tc_pres { size_t o; struct tsr_dis_ev *ev; };

/* Prints the op's template for the raw field codes f (struct <t>_tinst.f) of an instruction at byte address pc:
 * its text at b + o, where b is the first byte of the bundle's text (the path's events count from it), its events
 * (dis_path.h) from ev on, the label targets it prints appended to x.  On failure the bytes past b + o, the events
 * from ev and the labels past x's count are garbage. */
typedef struct tsr_tc_pres (*tsr_tc_print_fn)(const uint64_t *f, uint64_t pc, char *b, size_t o, struct tsr_dis_ev *ev,
                                              struct tsr_tc_pctx *x);

/* An operand's printer inlined into the shape functions of the generated printer (ops printing the same
 * template after their names share one function): one call less per operand of most bundles.  The other
 * printers call one copy of it (PNOINLINE: not a copy per caller). */
#if defined(__GNUC__) || defined(__clang__)
#define TSR_TC_PINLINE static inline __attribute__((always_inline))
#define TSR_TC_PNOINLINE static __attribute__((noinline))
#else
#define TSR_TC_PINLINE static inline
#define TSR_TC_PNOINLINE static
#endif

/* One op's printer and its bounds, computed by mdlc from the template. */
struct tsr_tc_pop {
    tsr_tc_print_fn fn;
    uint32_t maxlen;           /* bytes written at most, TSR_TC_PSLACK included */
    uint32_t maxev;            /* events added at most */
    uint32_t maxlab;           /* labels added at most */
};

/* A format's printer: print_bundle for a bundle of that format (dis_engine.c), its op numbers op (struct <t>_tinst.op,
 * per slot of the description) and fields f: the format's slots in issue order up to the last whose op is not the
 * slot's default (all: every slot), "; " between, a slot whose op prints no text left out; the text at b, the path's
 * events and slot records in P (started by the caller, with room for the format's bounds), the labels appended to x.
 * *partial: slots were left out that way.  Returns the text's length, or TSR_TC_PFAIL when an op number is not an
 * op or an op cannot be printed (then the text, P and x are garbage and *partial may be unset). */
#define TSR_TC_PFAIL ((size_t)-1)
typedef size_t (*tsr_tc_pfmt_fn)(const uint16_t *op, const uint64_t *f, uint64_t pc, bool all, char *b,
                                 struct tsr_dis_path *P, struct tsr_tc_pctx *x, bool *partial);
struct tsr_tc_pfmt { tsr_tc_pfmt_fn fn; };   /* fn NULL: the engine's loop over pops (a format without slots) */

/* A table code's text for the generated printer: names up to 15 bytes are stored inline (copied as one
 * 16-byte block); ok is false for a code the table gives no text (docs/mdl.md "Tables"); kind is the
 * enum tsr_tc_pkind of the entry (the path's TABLE event). */
struct tsr_tc_ptext16 { _Alignas(32) char s[16]; uint8_t len, kind, ok; };   /* 32 bytes: indexed by a shift */
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

/* Decimal digits of v, after a '-' when neg.  Returns the end (at most 21 bytes).  One digit (most small fields:
 * a 2-bit per-element value, a semaphore number) without the digit loop and its copy. */
static inline char *tsr_tc_fmt_dec(char *p, uint64_t v, bool neg)
{
    if (v < 10) {
        if (neg)
            *p++ = '-';
        *p = (char)('0' + v);
        return p + 1;
    }
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
