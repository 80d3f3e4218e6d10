/* The fast form of the disassembler's exactness proof, generated per op (gen/emit_discheck.c, appended to
 * build/gen/<t>/<t>_disasm.c) and run by runtime/text/dis_fast.c: the interface between the two.
 *
 * A generated checker walks one bundle part printed by its op along the printed path (dis_path.h) and makes,
 * with the template compiled in, the tests the full proof's plans make there (dis_walk.c run_plan, run_step;
 * dis_plan.c), each from the facts alone: a literal ending in an identifier character is not followed by one
 * (tsr_fx_lit); a printed name has the short way by its code's row (tsr_fx_table); a number reads back by the
 * template (tsr_fx_table, tsr_fx_int: dis_num.c); optional text not printed does not match where the
 * assembler tries it (tsr_fx_opt0); an operand's early alternatives are ruled out by the rows of the codes
 * printed or refuted through a field another part's leading operand pins (tsr_fx_early: dis_spin.c); the
 * conditions hold (compiled: a binding compares the field with a constant and marks it bound).  Any test
 * that fails, or that the facts cannot settle, makes the checker answer false, and the full proof decides.
 *
 * Places: mdlc numbers every template place the checkers test: each part of each op's template, and each
 * part of each alternative of an operand at an op's template part (per operand part, one block per
 * alternative).  The facts asked at a place (the name row, the number's kind and row) depend on the part
 * and what follows it in the op's template, which `places` gives; they are looked up on first use and kept
 * per place in the prover (struct tsr_fx_pl).  Likewise each (operand part, alternative) pair has an index
 * (`pks`) under which its early alternatives are kept: the pairs are numbered op by op, within an op by its
 * operand parts in template order, within an operand part by alternative (dis_fast.c finds an op's pairs so).
 */
#ifndef TSR_DIS_FX_H
#define TSR_DIS_FX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "text/asm_engine.h"
#include "text/dis_path.h"
#include "text/textcodec.h"

struct tsr_fx;

/* The checkers' small tests are inlined into every place that makes them (gcc and clang would otherwise keep
 * one out-of-line copy for hundreds of call sites).  Their slow halves are declared cold: the compiler then lays
 * the code that calls them out of the checkers' hot path (in gcc's .text.unlikely), which keeps the code a
 * bundle runs through smaller (first sight, bench_dis: 2 % less CPU time in paired runs; cachegrind: 1.6 % fewer
 * instructions, 3 % fewer instruction-cache misses; docs/PERFORMANCE.md). */
#if defined(__GNUC__) || defined(__clang__)
#define TSR_FX_INLINE static inline __attribute__((always_inline))
#define TSR_FX_COLD __attribute__((cold))
#define TSR_FX_NOINLINE __attribute__((noinline))
#else
#define TSR_FX_INLINE static inline
#define TSR_FX_COLD
#define TSR_FX_NOINLINE
#endif

/* A row entry: not yet decided, shown (dis_exact.h TSR_DIS_UNKNOWN, TSR_DIS_NEVER). */
#define TSR_FX_UNKNOWN 0
#define TSR_FX_NEVER 1
/* Operand parts of an op's template whose printed alternative is recorded (dis_exact.h TSR_DIS_LALT). */
#define TSR_FX_LALT 16

/* tsr_fx.pkf of a pair without early alternatives: no field (dis_fast.c keeps isas of at most 1024 fields). */
#define TSR_FX_PK_NONE 0xffffu

/* The checker of an op: the bundle part's events from ev (avail of them); true when every test holds, with
 * *used the events the op's template took and X->end the end of its last op-level part's event. */
typedef bool (*tsr_fx_fn)(struct tsr_fx *X, const struct tsr_dis_ev *ev, size_t avail, size_t *used);

/* A place: template part `part` (an index into isa->parts) of a sequence ending at `end`, followed by parts
 * [cpart, cend) of the op's template (an operand alternative's part; cpart == UINT32_MAX: an op's own part,
 * followed by nothing). */
struct tsr_fx_pinfo { uint32_t part, end, cpart, cend; };
/* An (operand part, alternative) pair: the operand's part in an op's template ending at `end`, alternative k. */
struct tsr_fx_pk { uint32_t part, end, k; };

/* What mdlc generates for an isa (tsr_tc_isa.fx). */
struct tsr_fx_desc {
    const tsr_fx_fn *op;                  /* per op */
    const struct tsr_fx_pinfo *places;
    uint32_t nplaces;
    const struct tsr_fx_pk *pks;
    uint32_t npks;
};

/* The facts kept per place, looked up on first use (dis_fxslow.c place_init).  nlen is 0 until then. */
struct tsr_fx_pl {
    uint8_t init;           /* looked up */
    uint8_t mkind;          /* a number printed here: TSR_DIS_S_FIXINT, _S_NUMROW, or another (not shown) */
    uint8_t tabnum;         /* a table hole of a table with numeric entries */
    uint32_t nlen, mlen;    /* the rows' lengths (0: no row; ask the function) */
    const uint8_t *nrow;    /* tsr_dis_name_row: per code, TSR_DIS_NEVER when the short way holds */
    const uint8_t *mrow;    /* tsr_dis_num_row (S_NUMROW) */
};

/* The checkers' state over one bundle (dis_fast.c sets it up). */
struct tsr_fx {
    const struct tsr_tc_isa *isa;
    struct tsr_dis_exact *x;    /* the prover: its facts */
    const char *s;              /* the bundle's text; the current part ends at lim */
    uint32_t lim;
    const uint64_t *f;          /* the instruction's fields */
    uint64_t *bound;            /* one bit per field: bound by the path */
    uint16_t *eq;               /* FIELD == FIELD pairs met, 2 entries each: neq of ceq */
    uint32_t neq, ceq;
    struct tsr_fx_pl *pl;       /* per place */
    void **pk;                  /* per (operand part, alternative): its early alternatives (dis_fxslow.c), made on
                                   first use */
    uint16_t *pkf;              /* per pair: TSR_FX_PK_NONE when it has no early alternative; else a field every
                                   early alternative has a row on (the code of one of the printed alternative's
                                   holes; dis_fxslow.c keep_rows chooses it), 0 until known */
    uint64_t *pkm;              /* per pair: bit c set once code c (< 64) of field pkf is known to rule every early
                                   alternative out by its row on that field (0 until the pair is known) */
    uint64_t *nm;               /* per place: bit c set once code c (< 64) is known to print a name with the short
                                   way there (its name row says TSR_FX_NEVER): one word per place, so that the
                                   checkers' most frequent test reads a small array */
    uint64_t *mm;               /* per place: bit c set once code c (< 64) printed as a number there is known to
                                   read back with nothing but a non-empty print in the part to ask (tsr_fx_num_slow:
                                   S_FIXINT, or S_NUMROW whose row says TSR_FX_NEVER for c) */
    uint8_t *lalt;              /* the current part's alternatives per operand part (dis_exact.h lalt) */
    uint32_t end;               /* out: the end of the op's last part's event */
    /* for dis_spin.c: the bundle's parts, their ops and the alternatives at their leading operands; the path's
     * events */
    const struct tsr_dis_ev *ev0;
    size_t nev;
    const size_t *plead;        /* per part: the event of its op's leading operand (SIZE_MAX: none) */
    const struct tsr_dis_ev *top;   /* the event of the op-level operand being checked (set by its checker) */
    unsigned fmt;
    size_t np, cur;
    const unsigned *pop;
    const struct tsr_dis_slotp *sp;
    const uint8_t *pw;
};

/* The slow halves (dis_fxslow.c). */
TSR_FX_COLD int tsr_fx_name_slow(struct tsr_fx *X, uint32_t place, uint64_t c);
TSR_FX_COLD bool tsr_fx_num_slow(struct tsr_fx *X, uint32_t place, unsigned field, const struct tsr_dis_ev *ev);
TSR_FX_COLD bool tsr_fx_early_slow(struct tsr_fx *X, uint32_t pk, bool lead, const struct tsr_dis_ev *ev);

/* The early alternatives of operand part and alternative `pk` (the alternatives the assembler tries before
 * the printed one that the templates do not rule out), the operand printed at event ev: each ruled out by the
 * rows of the codes printed, or refuted through a field (false: one is not).  lead: the operand is its op's
 * leading operand. */
TSR_FX_INLINE bool tsr_fx_early(struct tsr_fx *X, uint32_t pk, bool lead, const struct tsr_dis_ev *ev)
{
    unsigned fd = X->pkf[pk];
    uint64_t c;
    return fd == TSR_FX_PK_NONE || ((c = X->f[fd]) < 64 && (X->pkm[pk] >> c & 1)) ||
           tsr_fx_early_slow(X, pk, lead, ev);
}

TSR_FX_INLINE void tsr_fx_bind(struct tsr_fx *X, unsigned field)
{
    X->bound[field >> 6] |= (uint64_t)1 << (field & 63);
}

/* The event lies within the part (every step of run_step first tests it).  The checkers do not test it: the
 * printers make every event of a bundle part start before it ends (their offsets only grow) and end by the
 * part's recorded end (dis_path.h tsr_dis_slotp.end, recorded after the part's events), and tsr_dis_fast takes
 * that end as the part's (or declines the part when its text ends before it), so every event the checkers read
 * lies within the part.  The slow halves still test it. */
TSR_FX_INLINE bool tsr_fx_in(const struct tsr_fx *X, const struct tsr_dis_ev *ev)
{
    return ev->pos <= ev->end && ev->end <= X->lim;
}

/* A literal ending in an identifier character (bound): no identifier character follows (S_LIT).  mdlc asks it
 * only where what follows in the template may start with one (gen/emit_discheck.c starts_nonident). */
TSR_FX_INLINE bool tsr_fx_lit(const struct tsr_fx *X, const struct tsr_dis_ev *ev)
{
    return !(ev->end < X->lim && tsr_asm_isident(X->s[ev->end]));
}

TSR_FX_COLD bool tsr_fx_table_slow(struct tsr_fx *X, uint32_t pl, unsigned field, bool bound,
                                   const struct tsr_dis_ev *ev);

/* What mdlc knows of every entry a table prints (gen/emit_discheck.c), for tsr_fx_table's `what` argument:
 * every entry is a name (so the event's kind, the kind of the entry printed, is TSR_TC_PRINT_NAME); no name
 * begins with a blank. */
#define TSR_FX_T_NAMES 1u
#define TSR_FX_T_NOBLANK 2u
/* And of the hole's field: at most 6 bits wide, so its code is below 64 (the decoder extracts width bits). */
#define TSR_FX_T_SMALL 4u

/* A `{TABLE:FIELD}` hole at place pl (bound: the part's bound rule, false where what follows in the template
 * cannot continue an identifier; what: TSR_FX_T_* of the table and field, a constant): a name with the short way (S_NAME),
 * or a number the template shows to read back (S_NUMROW).  The caller binds the field.  The usual cases here (a
 * code below 64 whose verdict at pl is kept as a bit: a name whose row is decided, not cut by the bound rule, the
 * empty name included; a number whose row is decided, not empty), the rest in tsr_fx_table_slow (the same tests,
 * in the same order). */
TSR_FX_INLINE bool tsr_fx_table(struct tsr_fx *X, uint32_t pl, unsigned field, bool bound, unsigned what,
                                const struct tsr_dis_ev *ev)
{
    uint64_t c = X->f[field];
    if ((what & TSR_FX_T_SMALL) || c < 64) {
        if ((what & TSR_FX_T_NAMES) || ev->what == TSR_TC_PRINT_NAME
                ? (X->nm[pl] >> c & 1) &&
                      (ev->pos == ev->end ||
                       (((what & TSR_FX_T_NOBLANK) || !tsr_asm_isblank(X->s[ev->pos])) &&
                        !(bound && ev->end < X->lim && tsr_asm_isident(X->s[ev->end]) &&
                          tsr_asm_isident(X->s[ev->end - 1]))))
                : (X->mm[pl] >> c & 1) && ev->pos < ev->end)
            return true;
    }
    return tsr_fx_table_slow(X, pl, field, bound, ev);
}

/* A `{FIELD}` hole at place pl: S_FIXINT (the printed number reads back as the code, nothing extends it).  A
 * code below 64 whose verdict at pl is kept as a bit here (mm), the rest in tsr_fx_num_slow.  The caller binds
 * the field. */
TSR_FX_INLINE bool tsr_fx_int(struct tsr_fx *X, uint32_t pl, unsigned field, const struct tsr_dis_ev *ev)
{
    uint64_t c = X->f[field];
    if (c < 64 && (X->mm[pl] >> c & 1) && ev->pos < ev->end)
        return true;
    return tsr_fx_in(X, ev) && tsr_fx_num_slow(X, pl, field, ev);
}

/* Optional text (literal t, len bytes, bound rule) not printed at ev: its literal fails where the assembler
 * tries it (S_OPT0; one that matches would need the text-only matcher: not shown). */
TSR_FX_INLINE bool tsr_fx_opt0(const struct tsr_fx *X, const struct tsr_dis_ev *ev, const char *t, unsigned len,
                               bool bound)
{
    uint32_t q = ev->pos, e;
    if (ev->end != ev->pos)
        return false;
    while (q < X->lim && tsr_asm_isblank(X->s[q]))
        q++;
    return !tsr_asm_lit(X->s, X->lim, t, len, bound, q, &e);
}

/* A FIELD == FIELD condition the printer has shown to hold (the alternative it printed): recorded for the end of
 * the bundle. */
TSR_FX_INLINE bool tsr_fx_eq(struct tsr_fx *X, unsigned a, unsigned b)
{
    if (X->neq + 2 > X->ceq)
        return false;
    X->eq[X->neq++] = (uint16_t)a;
    X->eq[X->neq++] = (uint16_t)b;
    return true;
}

/* A FIELD == FIELD condition (the fields are equal): recorded for the end of the bundle. */
TSR_FX_INLINE bool tsr_fx_pair(struct tsr_fx *X, unsigned a, unsigned b)
{
    if (X->f[a] != X->f[b] || X->neq + 2 > X->ceq)
        return false;
    X->eq[X->neq++] = (uint16_t)a;
    X->eq[X->neq++] = (uint16_t)b;
    return true;
}

#endif
