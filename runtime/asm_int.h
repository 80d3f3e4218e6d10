/* Internal to the bundle assembler (asm_engine.c: entry points, overrides and the reference matcher
 * with its diagnostics; asm_fast.c: the fast matcher).  Not an interface. */
#ifndef TSR_ASM_INT_H
#define TSR_ASM_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "asm_engine.h"

#define MAX_PARTS 64
#define STEP_LIMIT 1000000   /* matcher steps per bundle before giving up (pathological templates) */

enum { ST_UNSET, ST_BOUND, ST_DEFAULT };

/* Failure kinds in increasing priority (for failures at the same position). */
enum { F_NONE, F_UNKNOWN, F_EXPECTED, F_UNEXPECTED, F_OPERAND, F_EXPR, F_UNDEF, F_FIT, F_PARTS, F_CHECK,
       F_CONFLICT, F_OVERRIDE, F_AMBIG };

struct span { const char *p; uint32_t n; };

struct setrec {        /* 16 bytes */
    const char *byp;   /* text that bound it (a span: byp, byn) */
    uint32_t byn;
    uint8_t st;        /* ST_* */
    uint8_t verb;      /* verb of the binder */
};
struct trail { uint64_t old; struct setrec rec; uint32_t field; };
struct chk { uint32_t cond; struct span by; };
struct eqc { uint16_t a, b; uint8_t verb; struct span by; };
struct mark { size_t ntrail, nchk, neq; };

struct failrec {
    int kind;
    uint32_t rank, pos;
    unsigned field;
    uint8_t verb;
    struct span a, b;
    uint32_t cond;
    int64_t val;
    const char *text;        /* literal expected, expression error format, format name */
    uint32_t tpos, tlen;     /* span for the expression error */
};

struct ovr { int kind; unsigned idx; uint64_t val; };   /* kind 0 field, 1 ignore range */

/* A state of the fast matcher (asm_fast.c): that of the search, or the scratch one its operand
 * enumeration uses.  A field is 0 while unset, so undoing a binding is clearing it: the trail holds
 * the fields set, in order. */
struct fmemo { uint64_t key; uint32_t gen; };
struct oact { uint8_t kind; uint16_t field; uint32_t first, n; uint64_t val; };   /* asm_fast.c */
struct tsr_fast {
    uint64_t *f;                     /* field values */
    uint8_t *set;                    /* per field: set (bound, defaulted or propagated) */
    uint16_t *tr;                    /* fields set, in order */
    size_t ntr, ctr;
    uint32_t *chk;                   /* check conditions collected (isa->conds indices) */
    size_t nchk, cchk;
    struct feq { uint16_t a, b; } *eq;   /* pending FIELD == FIELD bindings */
    size_t neq, ceq;
    struct oact *act;                /* the enumeration's log of what the path did */
    size_t nact, cact;
    unsigned long steps;
    unsigned long nconflict, naltdone, nopdone;   /* telling a textual failure from the others */
    bool aborted;
};

/* The operand parses already enumerated (asm_fast.c), kept from bundle to bundle. */
struct tsr_ocache {
    unsigned char *data;             /* entries, 8-byte aligned */
    size_t len, cap;
    uint32_t *head;                  /* hash -> first entry offset + 1 (0: none) */
    uint32_t nhead, count;
};

struct tsr_asm {
    const struct tsr_tc_isa *isa;
    uint64_t *f;
    uint64_t *mask;                  /* per field: its width's mask */
    struct setrec *set;
    uint16_t *op;
    struct trail *trail;
    size_t ntrail, ctrail;
    struct chk *chk;
    size_t nchk, cchk;
    struct eqc *eq;
    size_t neq, ceq;
    const char *s;                   /* bundle text */
    uint32_t n;                      /* its length (overrides excluded) */
    uint32_t pstart[MAX_PARTS], pend[MAX_PARTS];
    uint64_t have[MAX_PARTS][2];     /* characters (0..127) present in each part */
    int nparts;
    uint32_t lim;                    /* end of the part being matched */
    unsigned fmt;
    uint8_t verb;
    uint64_t pc;
    unsigned long steps;
    bool aborted;
    struct failrec fail;
    const struct tsr_asm_syms *syms;
    struct ovr *ovr;
    size_t novr, covr;
    /* Operand alternatives known not to match the text at a position (whatever the bindings): a
     * direct-mapped set of alt << 12 | pos, valid while gen equals the bundle's generation. */
    struct { uint32_t key, gen; } memo[1024];
    uint32_t gen;
    unsigned long nconflict, naltdone;   /* counters telling a textual failure from the others */
    bool env;                        /* the result depends on pc or on symbols, not only on the text */
    /* Mnemonic index: the ops whose key starts with character c (c < 128), then those with no key,
     * each run in declaration order: byfirst[byoff[c] .. byoff[c+1]-1]; c = 128 for keyless ops. */
    uint32_t byoff[130];
    uint16_t *byfirst;
    uint8_t *fmt_slot;               /* fmt_slot[f * nslots + s]: slot s is in format f */
    uint32_t *root;                  /* root[t * 128 + c]: trie node of table t's names starting with c, or 0 */
    /* Candidate ops of each bundle part (mnemonic and required characters pass), declaration order. */
    uint16_t *cand;                  /* MAX_PARTS rows of nops entries */
    uint32_t ncand[MAX_PARTS];
    uint64_t *opfmt;                 /* per op: the formats (bit f, f < 64) having its slot */
    uint64_t pfmt[MAX_PARTS];        /* per part: the formats some candidate op of it belongs to */
    /* the fast matcher */
    struct tsr_fast fs, es;          /* the search's state, the enumeration's */
    struct tsr_fast *x;              /* the one in use */
    struct fmemo memo2[512];         /* rests failing textually: sid << 32 | pos, for generation gen2 */
    uint32_t gen2;
    struct tsr_ocache oc;
    /* what the enumeration of an operand looked at: the text before thi, lim (tlim), names (tname:
     * their positions, up to 4), the pc (tpc) */
    uint32_t thi;
    bool tlim, tname, tpc, logging;
    uint32_t nnames, namepos[4], namelen[4];
    bool tfound;
    struct oparse { uint16_t alt, end, act, nact; bool env; } *ep;   /* an enumeration's parses */
    size_t nep, cep;
    struct oact *eacts;              /* and their logs */
    size_t neacts, ceacts;
    char msg[512];
    size_t msgpos;
};

void *tsr_asm_xrealloc(void *p, size_t n);
#define PUSH(arr, n, cap) \
    do { if ((n) == (cap)) { (cap) = (cap) ? (cap) * 2 : 32; (arr) = tsr_asm_xrealloc((arr), (cap) * sizeof *(arr)); } } while (0)

/* Does s[from..to) name a symbol (a letter or '_' outside a number)? */
bool tsr_asm_has_name(const char *s, size_t from, size_t to);
/* Does v fit the field (docs/asm.md: -2^(w-1) .. 2^w-1)? */
static inline bool tsr_asm_fits(const struct tsr_tc_field *fd, int64_t v)
{
    if (fd->width >= 64)
        return true;
    return v >= -((int64_t)1 << (fd->width - 1)) && v <= (int64_t)(((uint64_t)1 << fd->width) - 1);
}

/* The fast matcher (asm_fast.c): the same search as the reference matcher of asm_engine.c over the
 * bundle a->s (parts, candidates and overrides already parsed), with the same first match, but
 * without keeping what is needed for diagnostics.  Returns true with the format in a->fmt, the ops
 * in a->op and the fields in a->fs.f (0 when unset); false when nothing matched or the search gave
 * up (then the reference matcher runs to find the diagnostic). */
bool tsr_asm_fast(struct tsr_asm *a, int pin);
/* Clears the fields the last successful tsr_asm_fast set. */
void tsr_asm_fast_reset(struct tsr_asm *a);
void tsr_asm_fast_init(struct tsr_asm *a);
void tsr_asm_fast_free(struct tsr_asm *a);

#endif

