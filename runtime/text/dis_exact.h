/* The disassembler's proof that a printed bundle reads back exactly (dis_exact.c), and the facts about the
 * description it rests on, decided once per isa (dis_static.c).  Private to runtime/text/: used by
 * dis_engine.c only.
 *
 * The printer records the path it printed (dis_path.h); the prover shows from that record, the decoded
 * fields and the text that the assembler (asm_engine.c) would read the text back to the same format,
 * fields and ignored bits with no override.  Where it cannot, the disassembler runs the full round trip
 * check as before, so the output never depends on the proof (TESSERA_DIS_VERIFY=1 runs both and aborts on
 * a disagreement).
 */
#ifndef TSR_DIS_EXACT_H
#define TSR_DIS_EXACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "asm_engine.h"
#include "bits.h"
#include "dis_cand.h"
#include "dis_path.h"
#include "text/textcodec.h"

/* ---- facts decided once per isa (dis_static.c) ------------------------------------------------------- */

/* "Can the matcher's choice J match any text that the printer's choice K prints?", answered from the
 * templates' literals, the tables' names and the number syntaxes alone, whatever the field values.
 * NEVER is a proof that it cannot; MAYBE is no proof (the per-word text-only matcher then decides). */
enum { TSR_DIS_UNKNOWN, TSR_DIS_NEVER, TSR_DIS_MAYBE };

/* A name of one table that is a proper prefix of a name another table prints (kside: the printed one is
 * longer; s[0..len) is what is left of the longer one). */
struct tsr_dis_rem { bool kside; const char *s; uint32_t len; };
/* Table J's names (the matcher's) against table K's printed names: eq when some name is in both. */
struct tsr_dis_tpair { bool done, eq; uint32_t nrem; struct tsr_dis_rem *rem; };

/* A table's names (the matcher's side) or printed names (the printer's side) by first byte: the indices (into the
 * table's names, or its prints) of the non-empty ones starting with byte c are idx[off[c] .. off[c + 1]), in table
 * order; and all of them sorted by name (dis_lockstep.c tsr_dis_first_init, tsr_dis_prefixed). */
struct tsr_dis_first {
    uint32_t off[257];
    uint32_t *idx;
    uint32_t *sorted, nsorted;   /* the same indices in byte order of their names (a prefix's names are a range) */
};

#define TSR_DIS_LMAP 8192   /* contexts of tsr_dis_longer, tsr_dis_alt_hole and tsr_dis_name_fast */
#define TSR_DIS_AMAP 8192   /* answers of tsr_dis_op_alts */
struct tsr_dis_akey { uint64_t k1, k2; uint8_t v; };

struct tsr_dis_static {
    const struct tsr_tc_isa *isa;
    unsigned nalts;           /* operand alternatives in isa->alts */
    unsigned nparts, maxalt;  /* template parts in isa->parts; most alternatives of an operand */
    uint32_t *canon, *cend;   /* per op-template part: the first part with the same rest of template, and the end
                                 of that template (dis_static.c canon_init; UINT32_MAX: not in an op's template) */
    uint8_t *op_pair;         /* [B * nops + A]: can op B's template match a whole bundle part op A prints? */
    uint8_t *alt_pair;        /* [j * nalts + k]: can alternative j match a prefix of what alternative k prints
                                 and what follows it? */
    uint8_t *alt_ctx;         /* [(part * maxalt + j) * maxalt + k]: the same for alternatives j and k of the operand
                                 at an op template's part, each followed by the rest of that template */
    uint8_t *fmt_never;       /* [A * nformats + G]: TSR_DIS_NEVER when no op of format G's slots can match a
                                 part op A prints (then a bundle with that part is never read as format G) */
    uint8_t *slot_never;      /* [A * nslots + s]: the same for the ops of slot s */
    uint8_t *before_never;    /* [A]: the same for the ops of A's slot declared before A */
    struct tsr_dis_tpair *tpair;   /* [J table * ntables + K table], computed on first use */
    uint8_t *tflags;          /* per table: TF_* of dis_static.c */
    struct tsr_dis_first *jfirst, *kfirst;   /* per table: its names, its printed names, by first byte */
    uint32_t nprints;         /* print entries in isa->prints */
    uint32_t **fixm;          /* [J table * nprints + entry]: the names of J's table that are a prefix of the entry's
                                 name or start with it, count first, in table order (dis_lockstep.c hole_fixed) */
    uint64_t *pfx;            /* [table * nprints + entry]: tsr_dis_prefixed of the entry's name, bit 63 | lo << 32 | hi
                                 (0: not yet; dis_static.c tsr_dis_longer), made on first use */
    uint32_t *rowlen;         /* per table: its largest printed code + 1 (0: over 4096), the rows' length */
    struct tsr_dis_akey *amap;   /* tsr_dis_op_alts's answers by (ops, alternatives printed) */
    uint64_t *alt_mask;       /* [part * maxalt + k]: tsr_dis_alt_maybe, bit 63 set once computed */
    uint8_t **name_rt;        /* [table][code]: tsr_dis_name_ok, computed on first use */
    uint64_t *lkey;           /* tsr_dis_longer's answers: a map (part, continuation) -> row [code] */
    uint8_t **lrow;
    uint32_t **sops;          /* [a * nslots + s]: tsr_dis_slot_ops, its count first (NULL: not yet) */
    uint32_t *hfirst, *holes; /* alternative a's top-level table holes whose table prints codes below 4096 (part
                                 indices): holes[hfirst[a], hfirst[a + 1]), the one with the most entries first */
    uint8_t **num_rt;         /* [table][code]: tsr_dis_num_entry, computed on first use (dis_num.c) */
    uint8_t *numop;           /* per op-level part: tsr_dis_num_opkind + 1 (0: not yet) */
    unsigned long budget;     /* steps left for the current question (exceeded: MAYBE) */
    struct tsr_dis_wmemo *wmemo;   /* the lockstep walk's branches decided (dis_walkmemo.c), made on first use */
};

void tsr_dis_static_init(struct tsr_dis_static *st, const struct tsr_tc_isa *isa);
void tsr_dis_static_free(struct tsr_dis_static *st);
/* TSR_DIS_NEVER or TSR_DIS_MAYBE for ops B (matcher) and A (printer); computed on first use. */
int tsr_dis_op_pair(struct tsr_dis_static *st, unsigned b, unsigned a);
/* The same for alternatives j (matcher, open: it may end anywhere) and k (printer), indices into isa->alts. */
int tsr_dis_alt_pair(struct tsr_dis_static *st, unsigned j, unsigned k);
/* The same for alternatives j and k (indices within the operand) of the operand part p of an op's template
 * whose parts end at end: each followed by parts [p + 1, end), then by the end of the bundle part. */
int tsr_dis_alt_ctx(struct tsr_dis_static *st, const struct tsr_tc_part *p, const struct tsr_tc_part *end, unsigned j,
                    unsigned k);
/* tsr_dis_alt_ctx with table hole h of alternative k (h: an index into its holes, st->holes[st->hfirst[alt] + h])
 * printing the entry of code c, k's other holes free: NEVER when j cannot match what k prints so (`16a` is a
 * name of the regfile-A pack table only; ` -` is not what `{cond:cond_add} ...` prints for a condition code
 * other than 0).  MAYBE also when the table has no entry c, h is past k's holes, or the map of rows is full.
 * Computed on first use per code, kept in a row (tsr_dis_alt_entry_rows). */
int tsr_dis_alt_hole(struct tsr_dis_static *st, const struct tsr_tc_part *p, const struct tsr_tc_part *end, unsigned j,
                     unsigned k, unsigned h, uint64_t c);
/* tsr_dis_alt_ctx with k's optional texts printed or not as they were: what[i] for k's part i (0: not printed;
 * the entries of its other parts are ignored), k's npart of them: NEVER when j cannot match what k prints so
 * (` -` is not what `{cond:cond_add}{?'.setf' sf == 1} {wa_a:waddr_add}` prints with `.setf`).  Not kept: asked
 * when a plan is compiled (dis_plan.c). */
int tsr_dis_alt_opts(struct tsr_dis_static *st, const struct tsr_tc_part *p, const struct tsr_tc_part *end, unsigned j,
                     unsigned k, const uint8_t *what);
/* For the printed instruction (fields f): NEVER when tsr_dis_alt_hole is NEVER for some hole of k printing the
 * code it prints for f (each hole's field holds its code). */
int tsr_dis_alt_entry(struct tsr_dis_static *st, const struct tsr_tc_part *p, const struct tsr_tc_part *end, unsigned j,
                      unsigned k, const uint64_t *f);
/* The alternatives j < k of the operand part p of an op's template (ending at end) that tsr_dis_alt_ctx does not
 * answer NEVER for: bit j set.  Computed on first use. */
uint64_t tsr_dis_alt_maybe(struct tsr_dis_static *st, const struct tsr_tc_part *p, const struct tsr_tc_part *end,
                           unsigned k);
/* tsr_dis_op_pair for op a printed with the alternatives alts[i] at its template's operand parts i (0xff
 * elsewhere; a->npart entries, at most TSR_DIS_LALT): NEVER when it is NEVER with one of them fixed (the others
 * free), each computed on first use. */
int tsr_dis_op_alts(struct tsr_dis_static *st, unsigned b, unsigned a, const uint8_t *alts);
/* The ops of slot s in its list's order that can match a part op a prints: a itself and those tsr_dis_op_pair
 * does not answer NEVER for; *n of them (computed on first use). */
const uint32_t *tsr_dis_slot_ops(struct tsr_dis_static *st, unsigned a, unsigned s, uint32_t *n);
/* Whether no op of format g / slot s / of A's slot before A can match a part op a prints (computed on first use). */
bool tsr_dis_fmt_never(struct tsr_dis_static *st, unsigned a, unsigned g);
bool tsr_dis_slot_never(struct tsr_dis_static *st, unsigned a, unsigned s);
bool tsr_dis_before_never(struct tsr_dis_static *st, unsigned a);

/* The print entry of code c in table t (isa->prints), or NULL. */
const struct tsr_tc_print *tsr_dis_print_of(const struct tsr_tc_isa *isa, unsigned t, uint64_t c);
/* Whether code c of table t prints a name that the table's trie reads back as c. */
bool tsr_dis_name_ok(struct tsr_dis_static *st, unsigned t, uint64_t c);
/* NEVER when no name of the table of part p longer than the one code c prints, followed by parts [p + 1, end),
 * then [cp, cend) (none: cp NULL) and the end of the bundle part, can match a text that the printed name and
 * those parts print (the longer names are tried first).  p is a table hole of an op's template ending at end
 * (cp NULL), or of an operand alternative ending at end whose operand is followed by [cp, cend) in an op's
 * template. */
int tsr_dis_longer(struct tsr_dis_static *st, const struct tsr_tc_part *p, const struct tsr_tc_part *end,
                   const struct tsr_tc_part *cp, const struct tsr_tc_part *cend, uint64_t c);
/* NEVER when the walk's short way holds for code c at that table hole (same arguments as tsr_dis_longer):
 * code c prints a name (not starting with a blank) that reads back as c (tsr_dis_name_ok) and no longer
 * name can match instead (tsr_dis_longer NEVER); MAYBE otherwise.  Computed on first use per code. */
int tsr_dis_name_fast(struct tsr_dis_static *st, const struct tsr_tc_part *p, const struct tsr_tc_part *end,
                      const struct tsr_tc_part *cp, const struct tsr_tc_part *cend, uint64_t c);
/* The row behind tsr_dis_name_fast for one place (indexed by the code; 0: not yet computed, else the answer),
 * allocated here so that a plan (dis_plan.c) reads it without a search; NULL when there is none (the table
 * prints no code below 4096, the map of rows is full).  *len: the row's length (codes at or past it: ask the
 * function). */
uint8_t *tsr_dis_name_row(struct tsr_dis_static *st, const struct tsr_tc_part *p, const struct tsr_tc_part *end,
                          const struct tsr_tc_part *cp, const struct tsr_tc_part *cend, uint32_t *len);
/* A row of tsr_dis_alt_hole answers (j against hole `hole` of k) by code: row[c] for c < len (0: not yet
 * computed), the code being f[field]. */
struct tsr_dis_erow { uint8_t *row; uint32_t len, field, hole; };
/* The rows behind tsr_dis_alt_entry for early alternative j against printed alternative k at operand part p
 * (of an op's template ending at end): one per hole of k, in the order of st->holes, at most max of them, in
 * rows[0..n); returns n (0: k has no such hole; fewer: the map of rows is full). */
unsigned tsr_dis_alt_entry_rows(struct tsr_dis_static *st, const struct tsr_tc_part *p, const struct tsr_tc_part *end,
                                unsigned j, unsigned k, struct tsr_dis_erow *rows, unsigned max);

/* ---- the per-word proof (dis_exact.c) ---------------------------------------------------------------- */

/* A table's names found at a place of the current bundle (dis_match.c tsr_dis_names_memo).  The memo is
 * open-addressed by (table, place), an entry is never replaced within a bundle (callers hold its arrays while
 * the matcher looks up more), and a bundle that would need more entries than it finds free on the way proves
 * nothing. */
#define TSR_DIS_NMEMO 256    /* a power of two */
#define TSR_DIS_NPROBE 16    /* slots tried for a place */
#define TSR_DIS_NNAMES 8
struct tsr_dis_names {
    uint32_t key, pos;    /* table index << 1 | bound; byte offset */
    uint32_t gen;         /* the bundle it belongs to (tsr_dis_exact.mgen) */
    int n;                /* names found (len, code), or -1: more than TSR_DIS_NNAMES */
    uint32_t len[TSR_DIS_NNAMES], code[TSR_DIS_NNAMES];
};

/* An answer of tsr_dis_pinned (dis_pin.c) for the current bundle: the field, the value, the part being walked. */
#define TSR_DIS_NPIN 8
struct tsr_dis_pinm { uint32_t gen, field, cur; bool ok; uint64_t v; };

/* A place of an op's template where the text-only matcher, under a ban (dis_pin.c), found no way on to the end
 * of the bundle part: parts [p, end) of isa->parts at byte pos, in the question of generation gen. */
#define TSR_DIS_NFAIL 64     /* a power of two */
struct tsr_dis_failm { uint32_t gen, p, end, pos; };

#define TSR_DIS_LALT 16    /* template parts of an op whose printed alternatives are recorded */
/* Bundles a thread prints, with the full check, before it proves (dis_engine.c attempt).  The rule of renting
 * before buying: the thread proves once its checks have cost about what deciding the facts costs.  Measured
 * (callgrind, `tessera dis` on the first N of bench_dis's words, with the proof's plans): the facts a thread
 * decides cost about 25 M instructions, a check about 25,000, so about 1,000 checks. */
#define TSR_DIS_WARMUP 1024
/* The warm-up is skipped for a program of many different words (dis_engine.c many_words): more than TSR_DIS_EAGER
 * different words among its first TSR_DIS_ESCAN, counted on a bitmap of 2^TSR_DIS_EBITS_LOG2 bits (TSR_DIS_ECOUNT
 * bits set: 32768 (1 - e^(-4096 / 32768)), the bits that 4,096 different words set on average).  The thread then
 * proves from the program's first bundle (the facts it would decide after the warm-up anyway cost less than the
 * warm-up's checks).  Measured (callgrind, `tessera dis` on the first N of bench_dis's words, every word new, with
 * the fast form): proving from the first bundle costs as much as the warm-up at N = 2,048, 14 M instructions less
 * at 8,192 (128 M against 142 M), 51 M more at 1,000; TSR_DIS_EAGER is twice that break-even.  A program of fewer
 * different words keeps the warm-up, however long (1,000 words repeated 5 times: 23 M with the warm-up, 74 M
 * proving from the start), and so does one of at most TSR_DIS_EAGER words (the GPU_FFT shaders have 126 to
 * 1,523). */
#define TSR_DIS_EAGER 4096
#define TSR_DIS_EBITS_LOG2 15
#define TSR_DIS_ECOUNT 3850
#define TSR_DIS_ESCAN 8192
#define TSR_DIS_MAXPARTS 64   /* bundle parts (asm_match.h MAX_PARTS) */

/* ---- plans of the walk (dis_plan.c) ------------------------------------------------------------------- */

/* What follows a place in a template: parts [p, end), then *next (NULL: the end of the bundle part). */
struct tsr_dis_kont { const struct tsr_tc_part *p, *end; const struct tsr_dis_kont *next; };

/* A plan is what dis_walk.c's walk does along one operand of an op's template printed with one alternative
 * (and, within it, one choice of optional texts and table entry kinds: the events' `what` in dis_path.h),
 * compiled on first sight of that (template place, choices) into the steps whose outcome the template alone
 * does not settle (dis_plan.c).  The steps, in the walk's order (each `ev` an event offset from the
 * operand's event): */
enum {
    TSR_DIS_S_LIT,     /* a literal ending in an identifier character: the bound rule (the next character) */
    TSR_DIS_S_NAME,    /* a table hole printed as a name: the code's row (tsr_dis_name_fast), the bound rule;
                          a code without the short way: as S_TAB */
    TSR_DIS_S_TAB,     /* a table hole otherwise: the names and numbers the assembler finds there, on the text;
                          a number printed last in its bundle part: as S_NUMROW (row and field set) */
    TSR_DIS_S_INT,     /* a `{FIELD}` hole: the number read back into the field */
    TSR_DIS_S_FIXINT,  /* a `{FIELD}` hole whose printed number reads back as the field's code for every code
                          and whose continuation cannot extend it (dis_num.c): the field is bound, no text */
    TSR_DIS_S_NUMROW,  /* a table hole printed as a number that the continuation cannot extend: the code's row
                          (tsr_dis_num_entry) says whether it reads back as that code; a code without: as S_TAB */
    TSR_DIS_S_OPT0,    /* optional text not printed: it must not match there */
    TSR_DIS_S_CONDS,   /* the conditions cc[a, a + n) of an alternative or printed optional text */
    TSR_DIS_S_OPND,    /* the operand: its alternatives tried first, early[a, a + n), must fail */
};

struct tsr_dis_step {
    const struct tsr_tc_part *p, *end;   /* the template part and the end of its sequence */
    const struct tsr_dis_kont *k;        /* what follows the sequence */
    uint8_t *row;                        /* S_NAME: tsr_dis_name_row (NULL: ask tsr_dis_name_fast);
                                            S_NUMROW: tsr_dis_num_row (NULL: ask tsr_dis_num_entry) */
    uint32_t len, field;                 /* its length; the field holding the code */
    uint32_t a;                          /* S_CONDS, S_OPND: see above (with n) */
    uint16_t ev, n;
    uint8_t kind;
};

/* An alternative tried before the printed one (index alt within the operand) that the templates do not rule
 * out; r[0..nrow): tsr_dis_alt_entry_rows for it (the printed alternative's first TSR_DIS_EHOLES holes, the
 * largest first; later holes are asked by the walk's tsr_dis_alt_entry only). */
#define TSR_DIS_EHOLES 4
struct tsr_dis_early { uint32_t alt, nrow; struct tsr_dis_erow r[TSR_DIS_EHOLES]; };

/* Whether the facts alone show that early alternative y of the operand at step s (an S_OPND step; printed
 * alternative k, the instruction's fields f) cannot match what the printed one prints there: some hole's row
 * of tsr_dis_alt_hole answers NEVER for the code it prints, each computed on first use per code (the holes
 * in order, up to the first NEVER).  false: not shown (the text, or a field pinned elsewhere, decides). */
static inline bool tsr_dis_early_never(struct tsr_dis_static *st, const struct tsr_dis_step *s,
                                       const struct tsr_dis_early *y, unsigned k, const uint64_t *f)
{
    for (uint32_t i = 0; i < y->nrow; i++) {
        const struct tsr_dis_erow *r = &y->r[i];
        uint64_t c = f[r->field];
        if (c >= r->len)
            continue;
        int v = r->row[c];
        if (v == TSR_DIS_UNKNOWN)
            v = tsr_dis_alt_hole(st, s->p, s->end, y->alt, k, r->hole, c);
        if (v == TSR_DIS_NEVER)
            return true;
    }
    return false;
}

/* Early alternative y's row on field fd (NULL: none). */
static inline const struct tsr_dis_erow *tsr_dis_early_row(const struct tsr_dis_early *y, uint32_t fd)
{
    for (uint32_t i = 0; i < y->nrow; i++)
        if (y->r[i].field == fd)
            return &y->r[i];
    return NULL;
}

/* Adds to fd[0 .. *n) (at most max) the fields below 65536 that every early alternative of y[0 .. ny) has a row on
 * (so that one code of such a field can rule them all out), in the order of y[0]'s rows, each once. */
static inline void tsr_dis_early_fields(const struct tsr_dis_early *y, unsigned ny, uint16_t *fd, uint8_t *n,
                                        unsigned max)
{
    for (uint32_t i = 0; ny && i < y[0].nrow && *n < max; i++) {
        uint32_t c = y[0].r[i].field;
        bool all = c <= UINT16_MAX;
        for (unsigned j = 1; j < ny && all; j++)
            all = tsr_dis_early_row(&y[j], c) != NULL;
        for (unsigned m = 0; m < *n && all; m++)
            all = fd[m] != c;
        if (all)
            fd[(*n)++] = (uint16_t)c;
    }
}

/* What both proofs (tsr_dis_exact, tsr_dis_fast) first ask of a printed bundle of format F, with ignored bits ign
 * (struct <t>_tinst ignored[]) and text[0..len): the assembler leaves ignored bits 0, so they must be; and a
 * trailing `}` would be read as overrides (asm_engine.c tsr_asm_bundle), so the text must not end in one. */
static inline bool tsr_dis_plain(const struct tsr_tc_isa *isa, const struct tsr_tc_format *F, const uint32_t *ign,
                                 const char *text, size_t len)
{
    for (uint32_t i = 0; i < F->nign; i++)
        if (tsr_wide_extract(ign, isa->ranges[F->ign + i].hi, isa->ranges[F->ign + i].lo))
            return false;
    size_t e = len;
    while (e > 0 && tsr_asm_isblank(text[e - 1]))
        e--;
    return !(e > 0 && text[e - 1] == '}');
}

/* A condition of the path compiled (S_CONDS): TSR_TC_BIND: f[field] must be val (masked to the field), which
 * binds it; TSR_TC_BIND2: f[field] == f[field2], a pair; otherwise isa->check(id, f). */
struct tsr_dis_cc { uint64_t val; uint32_t id; uint16_t field, field2; uint8_t kind; };

struct tsr_dis_plan {
    struct tsr_dis_plan *next;    /* the next plan of the same place and alternative */
    uint32_t part;                /* the operand's part in isa->parts (an op's template) */
    uint32_t nev;                 /* its events: the operand's and one per part of the alternative */
    bool walk;                    /* no plan: the walk decides (a path it rejects, or a case plans leave out) */
    struct tsr_dis_kont rest;     /* what follows the operand in the op's template */
    uint32_t nstep;
    struct tsr_dis_step *step;
    struct tsr_dis_early *early;
    struct tsr_dis_cc *cc;
    uint8_t *what;                /* the key with part: what[0..nev) */
};

struct tsr_dis_exact;

#define TSR_DIS_PLANS 8192   /* plans a thread keeps at most (then no new ones) */

/* The plan for the operand at part p of an op's template ending at end, printed with the events ev[0..avail)
 * (its own first; created on first use, kept in x), or NULL (the events cannot key a plan, or the table is
 * full). */
const struct tsr_dis_plan *tsr_dis_plan_get(struct tsr_dis_exact *x, const struct tsr_tc_isa *isa,
                                            const struct tsr_tc_part *p, const struct tsr_tc_part *end,
                                            const struct tsr_dis_ev *ev, size_t avail);
void tsr_dis_plan_free(struct tsr_dis_exact *x);

/* ---- a field pinned by a bundle part, from the facts (dis_spin.c) -------------------------------------- */

/* "Does bundle part k pin FIELD to a value other than v?" (dis_walk.c forces, the text-reading form) asked of
 * the facts alone: every op the assembler can read part k with is its printed op a, or an op that
 * tsr_dis_op_alts shows cannot match what a prints; a begins with literal text and an operand (the leading
 * operand); the alternative pw printed there binds FIELD to another value; and every other alternative of it
 * either binds FIELD to another value or cannot match what pw prints there (tsr_dis_alt_ctx, else the rows of
 * tsr_dis_alt_hole by the codes pw's holes print, as tsr_dis_early_never asks them).  The part of the answer
 * that depends only on (format, slot set, a, pw, FIELD, v) is kept in a table of TSR_DIS_SPIN entries: the
 * alternatives still open and their rows; a question is then a hash, a compare and a row byte or two per open
 * alternative, or one bit once a code of one field has been seen to rule them all out (km). */
#define TSR_DIS_SPIN 4096        /* entries, a power of two (open addressing: keys are never replaced) */
#define TSR_DIS_SPIN_PROBE 8     /* entries tried for a key (all taken: the answer is computed, not kept) */
#define TSR_DIS_SPIN_REQ 6       /* open alternatives an answer keeps (more: not shown) */
#define TSR_DIS_SPIN_SELF UINT32_MAX   /* t0 of a part read by its printed op only */
struct tsr_dis_spine {
    uint64_t v;
    uint32_t field, t0;
    uint16_t fmt, a;
    uint8_t li;                   /* the operand's index in a's template (tsr_dis_spin_at) */
    uint8_t hole;                 /* pw binds FIELD through its leading table hole only: per entry printed */
    uint8_t pw, state, nreq;      /* state: 0 empty, else 1 + the answer (PINS: when every open one's rows say NEVER) */
    uint8_t nkf;                  /* PINS without hole: the fields kf[0..nkf) every open alternative has a row on */
    uint16_t kf[TSR_DIS_EHOLES];
    uint32_t req;                 /* its open alternatives: req[req, req + nreq) of struct tsr_dis_spins, each with
                                     its rows as a plan's early alternative (tsr_dis_early_never) */
    uint64_t km[TSR_DIS_EHOLES];  /* bit c of km[m]: code c (< 64) of field kf[m] is known to rule every open
                                     alternative out by its row on that field (the answer is PINS whatever the
                                     other fields) */
    const struct tsr_tc_part *p, *end;   /* a's leading operand and the end of a's template */
};
/* An answer of dis_spin.c's questions about an alternative's leading table hole where another printed an entry
 * (hole_codes, tsr_dis_lead_codes), kept by everything it depends on: kind (1 hole_codes, 2 lead codes; 0 empty),
 * the two alternatives (indices into isa->alts), FIELD and last (hole_codes), and the code c printed. */
#define TSR_DIS_HMEMO 1024       /* entries, a power of two (direct-mapped: a new key replaces the old one) */
struct tsr_dis_hmemo {
    uint64_t c, v;
    uint32_t al, pa, field;
    uint8_t kind, last, ans, n;
    uint64_t codes[8];            /* kind 2: the codes, n of them (0: not shown); kind 1: codes[0] their mask (ans 1),
                                     ans 0 not shown, ans 2 a code of 64 or more (not kept) */
};
struct tsr_dis_spins {
    struct tsr_dis_spine *e;      /* TSR_DIS_SPIN entries (NULL: not yet) */
    uint8_t *anch;                /* per op-level template part: 1 + whether an operand there is anchored
                                     (tsr_dis_spin_at; 0: not yet known) */
    uint64_t *achars;             /* per operand alternative: the characters a text it matches can hold (2 words,
                                     bit c of ASCII c; dis_spin.c chars_of), computed when achared[j] is set */
    uint8_t *achared;
    struct tsr_dis_hmemo *hm;     /* TSR_DIS_HMEMO entries (NULL: not yet) */
    uint64_t *abind;              /* per operand alternative: the fields it may bind through a condition or its
                                     leading table hole, bit fd for fd < 63, bit 63 for all others (dis_spin.c
                                     may_bind; NULL: not yet) */
    int32_t *lead;                /* per op: 1 + the template index of its leading operand, 0: none (NULL: not yet) */
    struct tsr_dis_early *req;    /* the open alternatives of the entries, nreq of creq */
    size_t nreq, creq;
};

/* tsr_dis_spin's answers.  FREE: the part's printed op has no leading operand, or the alternative printed there
 * does not bind FIELD to another value than v, so the part is not pinned this way (forces() answers false
 * too: the printed op reads the part so); PINS: every way the assembler can read the part binds FIELD to a
 * value other than v; OPEN: not shown (the text may show it). */
enum { TSR_DIS_SPIN_OPEN, TSR_DIS_SPIN_PINS, TSR_DIS_SPIN_FREE };
/* The answer for a bundle part whose fields are f (struct <t>_tinst f[]), printed in format fmt, asked for field
 * `field` and value v (masked to the field).  The part: printed by op a with alternative pw (0xff: none known)
 * at a's leading operand.  t0: the slot position (within the format) after that of the part being decided when
 * this part comes later in the bundle (the assembler may read it with any op of the slots from t0 on), or
 * TSR_DIS_SPIN_SELF when it comes at or before that part (read by its printed op).  Aborts when memory runs
 * out. */
int tsr_dis_spin(const struct tsr_tc_isa *isa, struct tsr_dis_exact *x, unsigned fmt, unsigned a, uint32_t t0,
                 unsigned pw, unsigned field, uint64_t v, const uint64_t *f);
/* tsr_dis_spin through the operand at index li of op a's template (li < TSR_DIS_LALT) instead of the leading one,
 * pw the alternative printed there.  An operand other than the leading one counts only when it is anchored: a
 * separator character c (`,` in `add{d}, {a}, {b}`) occurs in the literal text after the template's last
 * non-literal part before it, and no hole or operand before it can match a text holding c (table names, numbers:
 * tsr_dis_expr_char; literals and optional texts of their alternatives).  Every way the assembler reads the
 * part with op a then matches the template's literal c's at the part's first c's, in order, and the operand's
 * text starts where the printed one does, so the facts of the leading operand hold there too.  An op of a later
 * slot (t0 other than TSR_DIS_SPIN_SELF) other than a must be shown not to match the part (tsr_dis_op_alts with pw
 * printed there) or be a's twin from the leading operand on (the same template, so the same anchored operand);
 * OPEN otherwise, as for an operand that is not anchored.  An operand right after another operand (pwx: the
 * alternative printed there, 0xff: unknown) is anchored also when its alternatives begin with literal characters
 * that nothing the operand before it can read there holds (`{b=src(mul_b)}{rot=mrot}`: ` >> 2` after `r2`;
 * dis_spin.c anchored_after).  The printed alternative binds FIELD by its conditions, or by its first table hole
 * after literal text (the codes its table can read where the entry was printed, none of them v: names the
 * printed one starts or that start it; the numeric entries of a number's value when the number ends the part),
 * and so must every other alternative that the facts do not show unable to match there. */
int tsr_dis_spin_at(const struct tsr_tc_isa *isa, struct tsr_dis_exact *x, unsigned fmt, unsigned a, unsigned li,
                    uint32_t t0, unsigned pw, unsigned pwx, unsigned field, uint64_t v, const uint64_t *f);
/* Does operand alternative alt, tried by the assembler before the printed one at bundle part cur, fail through a
 * field pinned by an operand other than the leading one (tsr_dis_spin_at): for one of alt's FIELD = value
 * conditions, some part k < np printed by op pop[k] at slot position sp[k].t, with lalt[k][i] the alternative
 * printed at its template's operand part i (0xff: not asked), has an anchored operand that pins FIELD to another
 * value?  A part after cur may be read by the ops of the later slots (tsr_dis_spin_at, t0); the caller leaves out
 * (0xff) the operand being decided.  (The leading operands are tsr_dis_spin_alt's.)  `fadd.ifz ra3.16a, ra12.8d, r2; v8min ra16.8a, r0, r3`: `ra12.8d` can only be read
 * by the regfile-A unpack alternative, which binds pm = 0, so the mul destination's MUL pack `.8a` (pm = 1),
 * tried before the regfile-A pack `.8a`, fails.  false proves nothing. */
bool tsr_dis_spin_ops(const struct tsr_tc_isa *isa, struct tsr_dis_exact *x, unsigned fmt, size_t np,
                      const unsigned *pop, const struct tsr_dis_slotp *sp, size_t cur,
                      const uint8_t (*lalt)[TSR_DIS_LALT], const struct tsr_tc_alt *alt, const uint64_t *f);
/* tsr_dis_spin_ops for one binding FIELD = v (masked to the field) instead of an alternative's conditions. */
bool tsr_dis_spin_ops_field(const struct tsr_tc_isa *isa, struct tsr_dis_exact *x, unsigned fmt, size_t np,
                            const unsigned *pop, const struct tsr_dis_slotp *sp, size_t cur,
                            const uint8_t (*lalt)[TSR_DIS_LALT], unsigned field, uint64_t v, const uint64_t *f);
/* The values an operand alternative al binds through its leading table hole (al begins with a hole of table T on
 * FIELD) when it is read where the alternative pa of the same operand printed a text that begins with a name N
 * (pa's leading table hole, the entry of the decoded fields f): the codes (masked to FIELD) of T's names that are
 * a prefix of N or of which N is a prefix.  Every name the assembler accepts there is a prefix of the text, so
 * of N or longer than N and starting with it.  Their count in codes[0..max), or 0 when that is not shown: al or pa
 * does not begin with a table hole, pa prints a number or an empty name there, T has an empty name (it matches
 * anywhere) or numeric entries and N can start a number, or more than max codes. */
unsigned tsr_dis_lead_codes(const struct tsr_tc_isa *isa, const struct tsr_tc_alt *al, const struct tsr_tc_alt *pa,
                            const uint64_t *f, uint64_t *codes, unsigned max);
/* tsr_dis_lead_codes, its answers kept in x (struct tsr_dis_hmemo; max at most 8).  Aborts when memory runs out. */
unsigned tsr_dis_lead_codes_kept(struct tsr_dis_exact *x, const struct tsr_tc_alt *al, const struct tsr_tc_alt *pa,
                                 const uint64_t *f, uint64_t *codes, unsigned max);
/* Does operand alternative alt, tried by the assembler before the printed one at bundle part cur, fail through a
 * field by the facts: for one of its FIELD = value conditions, some part k pins FIELD to another value
 * (tsr_dis_spin; part cur itself is left out when alt is an alternative of its leading operand: lead)?  Every
 * path through alt makes both bindings, so none completes.  The bundle: np parts printed in format fmt, part k
 * by op pop[k] at slot position sp[k].t (the printed path's records), with alternative pw[k] at the op's
 * leading operand (0xff: none).  When false and open is not NULL, *open has bit i set for the i-th (condition,
 * part) pair asked in that order, k == cur counted, that the facts leave open (bit 63: all from the 63rd on);
 * for the others the facts show that the part does not pin FIELD through its leading operand. */
static inline bool tsr_dis_spin_alt(const struct tsr_tc_isa *isa, struct tsr_dis_exact *x, unsigned fmt, size_t np,
                                    const unsigned *pop, const struct tsr_dis_slotp *sp, const uint8_t *pw, size_t cur,
                                    bool lead, const struct tsr_tc_alt *alt, const uint64_t *f, uint64_t *open)
{
    uint64_t m = 0;
    for (uint32_t c = 0, i = 0; c < alt->ncond; c++) {
        const struct tsr_tc_cond *bc = &isa->conds[alt->cond + c];
        if (bc->kind != TSR_TC_BIND)
            continue;
        for (size_t k = 0; k < np; k++, i++) {
            if (k == cur && lead)
                continue;   /* the operand being decided */
            /* a part after the current one takes a later slot; the others are read as printed */
            uint32_t t0 = k > cur ? sp[cur].t + 1 : TSR_DIS_SPIN_SELF;
            int r = tsr_dis_spin(isa, x, fmt, pop[k], t0, pw[k], bc->field, bc->val, f);
            if (r == TSR_DIS_SPIN_PINS)
                return true;
            if (r == TSR_DIS_SPIN_OPEN || i >= 64)
                m |= (uint64_t)1 << (i < 64 ? i : 63);
        }
    }
    if (open)
        *open = m;
    return false;
}

/* A bundle part of the text being proven (dis_exact.c): bytes [start, end), the first non-blank at q; once
 * have_set (when an op is first tried on its text), run is the length of the identifier at q and have the
 * ASCII characters present (bit c of have[c >> 6]). */
struct tsr_dis_partinfo { uint32_t start, end, q, run; bool have_set; uint64_t have[2]; };

/* State of the prover (zeroed, then reused; tsr_dis_exact_free releases it). */
struct tsr_dis_exact {
    struct tsr_dis_partinfo pi[TSR_DIS_MAXPARTS];
    uint8_t lalt[TSR_DIS_MAXPARTS][TSR_DIS_LALT];   /* per part: the alternative printed at each operand part of
                                                       its op's template (0xff: not an operand) */
    struct tsr_dis_static st;
    struct tsr_dis_names *memo;   /* TSR_DIS_NMEMO entries (allocated with the prover's arrays: dis_exact.c) */
    uint32_t mgen;        /* the current bundle's generation of memo entries (0: none yet) */
    struct tsr_dis_pinm pin[TSR_DIS_NPIN];   /* tsr_dis_pinned's answers (entries of generation mgen) */
    unsigned npin;        /* the next entry to replace */
    struct tsr_dis_failm fail[TSR_DIS_NFAIL];   /* places that fail under the current ban (generation fgen) */
    uint32_t fgen;
    uint8_t *opbinds;     /* [op * nfields + field]: 1 when the op's template can bind the field, 2 when not
                             (dis_pin.c; 0: not yet known) */
    uint8_t *bound;       /* per field: set by the text or a binding condition */
    uint32_t *root;       /* per table and ASCII character: the trie node of the root's child, or 0 */
    int32_t *oplead;      /* per op: the template index of its leading operand part, or -1 (dis_exact.c) */
    uint16_t *eq;         /* FIELD == FIELD pairs met on the way (2 entries each) */
    size_t neq, ceq;
    unsigned steps;       /* budget of the text-only matcher for one bundle */
    unsigned long nprinted;   /* bundles printed by the thread, up to TSR_DIS_WARMUP, or TSR_DIS_WARMUP once a program
                                 skipped the warm-up (dis_engine.c warmup_for) */
    struct tsr_dis_plan **plans;   /* [part * maxalt + alternative]: the plans of that place (dis_plan.c) */
    unsigned nplans;
    void *pbuf;                    /* dis_plan.c: a plan being compiled, pcap bytes */
    size_t pcap;
    struct tsr_dis_cands cands;   /* the ops slot_possible tries on the text (dis_cand.h) */
    struct tsr_dis_spins spin;    /* tsr_dis_spin's answers (dis_spin.c) */
    struct tsr_dis_fast *fast;    /* the facts per template place of tsr_dis_fast (dis_fast.c) */
    bool fast_steps;              /* tests: tsr_dis_fast asks its bundle-level tail step by step, not per bundle
                                     shape (dis_fshape.h); the answers are the same */
};

/* ---- numbers decided from the template (dis_num.c) ------------------------------------------------------ */

/* The step a `{FIELD}` hole, or a table hole printed as a number, at part p of a sequence ending at end and
 * followed by k (NULL: the end of the bundle part) compiles to: TSR_DIS_S_FIXINT / TSR_DIS_S_NUMROW when the
 * continuation cannot extend the printed number (and, for a `{FIELD}` hole, its print kind reads back as the
 * code for every code), else TSR_DIS_S_INT / TSR_DIS_S_TAB (the text decides).  Why that is sound: dis_num.c. */
uint8_t tsr_dis_num_kind(struct tsr_dis_static *st, const struct tsr_tc_part *p, const struct tsr_tc_part *end,
                         const struct tsr_dis_kont *k);
uint8_t tsr_dis_num_opkind_slow(struct tsr_dis_static *st, const struct tsr_tc_part *p, const struct tsr_tc_part *end);
/* tsr_dis_num_kind for a part p of an op's template (ending at end; nothing follows but the end of the bundle
 * part), kept per part. */
static inline uint8_t tsr_dis_num_opkind(struct tsr_dis_static *st, const struct tsr_tc_part *p,
                                         const struct tsr_tc_part *end)
{
    size_t i = (size_t)(p - st->isa->parts);
    if (st->numop && i < st->nparts && st->numop[i])
        return (uint8_t)(st->numop[i] - 1);
    return tsr_dis_num_opkind_slow(st, p, end);
}
/* TSR_DIS_NEVER when code c of table t prints a number that no name of the table can start, that reads back
 * whole, and whose value no numeric entry before c's own accepts; else TSR_DIS_MAYBE.  Computed on first use
 * per code. */
int tsr_dis_num_entry(struct tsr_dis_static *st, unsigned t, uint64_t c);
/* The row of tsr_dis_num_entry's answers for table t (0: not yet computed), *len long (codes at or past it:
 * ask the function); NULL when the table prints no code below 4096. */
uint8_t *tsr_dis_num_row(struct tsr_dis_static *st, unsigned t, uint32_t *len);
void tsr_dis_num_free(struct tsr_dis_static *st);
/* The text both printers print for a numeric entry pr (gen/emit_disprint.c entry_text, dis_engine.c print_seq),
 * NUL-terminated in b; its length, or -1 (a name, or a float with no such text). */
int tsr_dis_num_text(const struct tsr_tc_print *pr, char b[48]);

/* Whether the assembler, given text[0..len) (the bundle printed from inst, a decoded struct <t>_tinst, along
 * the path recorded in path), returns inst's format and ignored bits and exactly the format's fields (those
 * the round-trip check compares); false when
 * that is not certain.  Never reads outside text[0..len). */
bool tsr_dis_exact(const struct tsr_tc_isa *isa, struct tsr_dis_exact *x, const void *inst, const char *text,
                   size_t len, const struct tsr_dis_path *path);

void tsr_dis_exact_free(struct tsr_dis_exact *x);

/* ---- the fast form (dis_fast.c) ------------------------------------------------------------------------ */

/* The same question as tsr_dis_exact, answered from the facts alone with what they need kept per template
 * place: true only where tsr_dis_exact answers true too without reading the text (its plans' steps settled by
 * the facts, early alternatives refuted through dis_spin.c); false otherwise (then tsr_dis_exact decides).
 * Answers false until tsr_dis_exact has run once on x (it sets up the facts).  inst must be what isa->decode or
 * isa->decode_next stored: a format's selector is not tested again where the decoder is known to have tested it
 * (tsr_tc_format.sel_decoded).  Aborts when memory runs out. */
bool tsr_dis_fast(const struct tsr_tc_isa *isa, struct tsr_dis_exact *x, const void *inst, const char *text,
                  size_t len, const struct tsr_dis_path *path);
void tsr_dis_fast_free(struct tsr_dis_exact *x);

#endif
