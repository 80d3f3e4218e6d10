/* Internals of the bundle assembler shared by the matcher (asm_engine.c) and its entry points and field
 * overrides (asm_bundle.c): private to runtime/text/.  The search itself is described in asm_engine.c. */
#ifndef TSR_ASM_MATCH_H
#define TSR_ASM_MATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "asm_engine.h"

#define MAX_PARTS 64
#define KM_SLOTS 256                 /* the memo of am_key_ops_memo: leading identifiers ... */
#define KM_LEN 24                    /* ... of at most KM_LEN bytes ... */
#define KM_OPS 32                    /* ... that at most KM_OPS ops fit */
#define STEP_LIMIT 1000000   /* matcher steps per bundle before giving up (pathological templates) */

enum { ST_UNSET, ST_BOUND, ST_DEFAULT };
enum { K_SEQ, K_ALT, K_OP };

/* Failure kinds in increasing priority (for failures at the same position). */
enum { F_NONE, F_UNKNOWN, F_SLOT, F_TAKEN, F_EXPECTED, F_UNEXPECTED, F_OPERAND, F_EXPR, F_UNDEF, F_FIT, F_PARTS, F_CHECK,
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
    bool valu, rel, huge;    /* F_FIT: val is read as uint64_t; a pc-relative offset; one below -2^63 */
    const char *text;        /* literal expected, expression error format, format name */
    uint32_t tpos, tlen;     /* span for the expression error */
};

struct frame {
    uint8_t kind;
    uint8_t verb;                    /* K_ALT: the enclosing context's verb */
    uint32_t start;                  /* K_ALT: where the alternative's text began */
    const struct tsr_tc_part *p, *end;   /* K_SEQ */
    const struct tsr_tc_alt *alt;    /* K_ALT */
    unsigned op;                     /* K_OP */
    int k, t;                        /* K_OP: bundle part, slot position */
    const struct frame *next;
};

struct ovr { int kind; unsigned idx; uint64_t val; };   /* kind 0 field, 1 ignore range */
struct keymemo { uint8_t used, len, n; char id[KM_LEN]; uint16_t ops[KM_OPS]; };

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
    int pin;                         /* the bundle's format pin (tsr_asm_bundle) */
    bool pending;                    /* the last bundle failed; its message is not worked out yet */
    bool too_many;                   /* matching only the first nparts parts of a longer bundle */
    bool diagnose;                   /* the diagnosing search: no pruning (tsr_asm_message) */
    /* Record the furthest failure and try every operand alternative: the diagnosing search, and the fast
     * search run again when the diagnosing one gives up (its failure is then the message).  Otherwise
     * failures are not recorded (nothing reads them) and an alternative whose own conditions bind a field
     * already set to another value is not tried (am_alt_refuted). */
    bool exact;
    /* Per operand alternative: 1 when matching its text cannot change anything but the fields (no
     * expression hole, so it cannot set env; no operand inside) and one of its conditions binds a field
     * to a constant: then that binding can be tested before its text is matched (am_alt_refuted). */
    uint8_t *alt_pure;
    /* Per leading identifier of a bundle part, the ops whose mnemonic key fits it (am_key_ops), kept for the
     * next bundles (the key ops depend on the identifier alone). */
    struct keymemo kmemo[KM_SLOTS];
    uint16_t *kbuf;                  /* nops entries: am_key_ops_memo's answer when it is not kept */
    uint32_t *root;                  /* root[t * 128 + c]: trie node of table t's names starting with c, or 0 */
    /* Candidate ops of each bundle part (mnemonic and required characters pass), declaration order. */
    uint16_t *cand;                  /* MAX_PARTS rows of nops entries */
    uint32_t ncand[MAX_PARTS];
    uint64_t candfmt[MAX_PARTS];     /* per part, the formats (bit f, f < 64) with a slot of a candidate */
    uint64_t *slotfmt;               /* per slot, the formats (bit f, f < 64) it is a slot of */
    uint64_t chbit[256][2];          /* character c as a bit of `have` (none from 128 up) */
    char msg[512];
    size_t msgpos;
    /* Called instead of the final defaults and checks when every part is matched (NULL: none): the
     * enumeration of a part's matches (asm_paths.c), which returns false to go on searching. */
    bool (*collect)(struct tsr_asm *a);
    void *collect_ctx;
};

/* Grows arr (n used, cap allocated) so that one more element fits. */
#define PUSH(arr, n, cap) \
    do { if ((n) == (cap)) { (cap) = (cap) ? (cap) * 2 : 32; (arr) = am_xrealloc((arr), (cap) * sizeof *(arr)); } } while (0)

/* The first position at or after pos (below a->lim) that is not a blank. */
static inline uint32_t skip_ws(const struct tsr_asm *a, uint32_t pos)
{
    while (pos < a->lim && tsr_asm_isblank(a->s[pos]))
        pos++;
    return pos;
}

/* Field `field`'s width mask. */
static inline uint64_t fmask(const struct tsr_asm *a, unsigned field)
{
    return a->mask[field];
}

/* Would operand alternative `alt` fail at its conditions whatever its text binds?  (A field it binds to a
 * constant already holds another value: binding never changes a set field.)  Only when !a->exact and the
 * alternative is pure (alt_pure): then skipping it changes nothing but the recorded failure and the step
 * count. */
static inline bool am_alt_refuted(const struct tsr_asm *a, uint32_t alt)
{
    if (a->exact || !a->alt_pure[alt])
        return false;
    const struct tsr_tc_alt *al = &a->isa->alts[alt];
    const struct tsr_tc_cond *c = a->isa->conds + al->cond;
    for (uint32_t i = 0; i < al->ncond; i++, c++)
        if (c->kind == TSR_TC_BIND && a->set[c->field].st != ST_UNSET &&
            a->f[c->field] != (c->val & a->mask[c->field]))
            return true;
    return false;
}

/* The ops whose mnemonic key fits the part's leading identifier id[0 .. run) (c: its first character, or the
 * part's first character when run is 0), in declaration order, with the keyless ones (asm_engine.c). */
uint32_t am_key_ops(const struct tsr_asm *a, const char *id, uint32_t run, unsigned c, uint16_t *out);
/* am_key_ops through a memo (asm_fast.c): *n ops at the pointer returned (valid until the next call). */
const uint16_t *am_key_ops_memo(struct tsr_asm *a, const char *id, uint32_t run, unsigned c, uint32_t *n);

/* The per-isa tables of asm_fast.c (alt_pure, slotfmt, chbit, and kbuf), made by tsr_asm_new; freed by
 * am_fast_free. */
void am_fast_init(struct tsr_asm *a);
void am_fast_free(struct tsr_asm *a);
/* The names of table t that the text at pos starts with, reading at most maxl bytes (the trie walk of the
 * table's names, docs/asm.md "Speed"): their lengths in cl[] and codes in cc[], shortest first (at most
 * 72: for names over 70 characters the longest is kept); returns how many. */
unsigned am_table_names(const struct tsr_asm *a, unsigned t, uint32_t pos, unsigned maxl, uint32_t cl[72],
                        uint32_t cc[72]);

/* realloc that aborts when memory runs out. */
void *am_xrealloc(void *p, size_t n);
/* The candidate ops of bundle part k (mnemonic and required characters pass), into a->cand / a->ncand. */
void am_candidates(struct tsr_asm *a, int k);
/* Whether v (read as uint64_t when u) fits field fd. */
bool am_fits(const struct tsr_tc_field *fd, int64_t v, bool u);
/* Whether s[from, to) holds a name (an identifier that is not a number). */
bool am_has_name(const char *s, size_t from, size_t to);
/* Undoes the bindings made since mark m. */
void am_restore(struct tsr_asm *a, struct mark m);
/* Matches the bundle a->s against every format; diagnose: without pruning (the furthest failure). */
bool am_search(struct tsr_asm *a, bool diagnose);
/* Writes the furthest failure's message into a->msg and a->msgpos. */
void am_format_fail(struct tsr_asm *a);

#endif
