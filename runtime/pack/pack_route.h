/* Shared by the packer of values routed through forwards (docs/pack.md "Values through forwards"): the input and
 * its analysis (pack_route.c) and the bottom-up scheduler (pack_route_bu.c).  Private to runtime/pack/. */
#ifndef TSR_PACK_ROUTE_H
#define TSR_PACK_ROUTE_H
#include "pack_int.h"

#define ROUTE_MAXREF 8          /* values one operation reads */
#define ROUTE_MAXB 8            /* parts of a bundle */
#define ROUTE_DIRECT (-2)       /* a feed: the optional root's source text read directly (struct rop.opt) */
#define ROUTE_MAXALT 8          /* units an operation may go to (its declaration's slots; a move's: every move op's) */

/* One operation: of the input, or a move the scheduler inserted. */
struct rop {
    char *tmpl;                 /* its text, values written `%K` (K: a value's name) */
    unsigned line, col;
    int name;                   /* K of `%K:` (0: none) */
    int namepart;               /* a group's line (parts joined by "; "): the part whose value K names (0: the
                                   first; `a; %K: b` names b's) */
    int nref;
    int ref[ROUTE_MAXREF];      /* the values it reads: the root operation of each (an input operation) */
    int refname[ROUTE_MAXREF];  /* the name each is written with in tmpl */
    int feed[ROUTE_MAXREF];     /* scheduling: the operation each value is read from (its root or a move of it);
                                   -1: not decided yet; ROUTE_DIRECT: its root is optional and read as its source
                                   text (dtext) */
    bool dropped;               /* a plain move of the input, dropped (its readers read its source) */
    bool opt;                   /* optional: a plain move of the input whose source is a text (a load), named, with
                                   no dependence on or of any other operation; a reader may read dtext instead, and
                                   it is placed only when some read of its value is not so */
    char *dtext;                /* (opt) its source text */
    bool comm;                  /* its op is `commutative`: the last two sources may be swapped */
    bool move;                  /* a move the scheduler inserted */
    int fwd, elem, lo, hi;      /* the forward element it writes and the ages it is readable at (from 1); fwd
                                   -1: none */
    uint32_t w[TSR_PACK_MAX_NWORDS];   /* an instance's words (for the dependences and slots) */
    struct tsr_pack_ev ev;
    int pos;                    /* scheduling: its bundle counted from the program's end (0: the last), -1: not
                                   placed */
    int cyc;                    /* its bundle from the start, once scheduled */
    uint32_t iw[TSR_PACK_MAX_NWORDS];  /* the words of its instance as placed */
    char *itext;                /* its text as placed */
    /* (input operations) the same op in each slot of its declaration (target.h op_decl; pack_route_alt.c): alt[0]
     * its own text, each with the forward element it writes; tmpl, fwd and elem are one of them */
    int nalt;
    char *alt[ROUTE_MAXALT];
    int altfwd[ROUTE_MAXALT], altelem[ROUTE_MAXALT], altslot[ROUTE_MAXALT];
    uint64_t altslots;          /* nalt > 1: the slots of its alternatives (the first 64), one of which it takes */
    int spill;                  /* a register spill's store (pack_spill.c): 1 + the register element it writes;
                                   0: none.  Its readers read that element through a load text */
    int minpos;                 /* a spill's store: the least position it may take (its loads + the latency) */
    unsigned lalt;              /* bit r: source r reads its spilled value through the second load text */
};

struct route {
    const struct tsr_target *t;
    const struct tsr_vdesc *D;
    struct rop *o;              /* the operations: input ones first (n0 of them), then inserted moves */
    int n, cap;
    char **mv;                  /* move templates: a move op's text with "%" for its source */
    int nmv;
    int move_attr, comm_attr;
    bool by_demand;             /* scheduling: an operation with alternatives tries its units by the ready operations'
                                   need of them alone (else its unit of the input first) */
    struct route_spill *sp;     /* the description's texts for register spills (pack_spill.c), or NULL */
    bool deep;                  /* search over the scheduler's decisions after the settings (pack_route_deep.c;
                                   effort TSR_PACK_DEEP) */
    int lw;                     /* the least n since the scheduler's index of readers looked (struct bu rl: an op
                                   dropped, another made at its index) */
};

/* A bundle of the schedule: its parts (indices into R->o) and words. */
struct route_bundle {
    int k;
    int part[ROUTE_MAXB];
    uint32_t w[TSR_PACK_MAX_NWORDS];
};

/* pack_route.c: packs one basic block (text: its lines, the first being line line0 + 1 of path; no label) and
 * appends its bundles to out; st (may be NULL) gets the block's statistics (one block).  The check of the output
 * validates the bundles at byte address vbase (past the stand-in addresses of the labels a branch of the block
 * names: pack_route_blocks.c); deep: the search over the scheduler's decisions too (R->deep).  Returns 0, or -1
 * with `path:line:col: error: ...` through d. */
int tsr_route_block(const struct tsr_target *t, const char *path, const char *text, size_t len, unsigned line0,
                    uint64_t vbase, bool deep, struct tsr_buf *out, struct tsr_pack_stats *st, struct tsr_diag *d);
/* pack_route.c: the check of packed output text[0..len) (nb bundles): it assembles to nb bundles and the validator
 * finds nothing with the first at byte address vbase.  Returns 0, or -1 with an "internal error" diagnostic (the
 * packer's own fault: its output is never half-written, the caller drops it). */
int tsr_route_check(const struct tsr_target *t, const char *path, const char *text, size_t len, unsigned nb,
                    uint64_t vbase, struct tsr_diag *d);
/* pack_route.c: reads a program's operations (no label; the first line is line line0 + 1 of path) into *R, each with
 * its instance, events and value, as the packer does before scheduling (nothing dropped yet from the scheduling's
 * point of view).  Returns 0, or -1 with a diagnostic; free with tsr_route_read_free either way. */
int tsr_route_read(struct route *R, const struct tsr_target *t, const char *path, const char *text, size_t len,
                   unsigned line0, struct tsr_diag *d);
void tsr_route_read_free(struct route *R);
/* pack_route.c: R->mv, the description's move templates (ops with the attribute `move` that copy a forwarded value
 * and write one forward element, "%" for the source); tsr_route_read_free frees them. */
void tsr_route_moves(struct route *R);
/* pack_route.c: a new operation at the end of R->o (which may move), cleared, fwd and pos -1, feeds -1. */
struct rop *tsr_route_new_op(struct route *R);
/* pack_route.c: tmpl with each `%K` (K = names[r]) replaced by texts[r] into b (cleared first); swap: its last two
 * blank-separated sources exchanged (a commutative op). */
void tsr_route_instantiate(struct tsr_buf *b, const char *tmpl, int n, const int *names, const char *const *texts,
                           bool swap);
/* pack_route.c: x's template instantiated into b (words w) with texts[0..x->nref), one source r of mask (bit r; the
 * last first) read by another text of its value's forward instead (any element, any age: a placeholder of the
 * analysis, whose feeder the schedule decides), its last two sources swapped with sw from sw0 to sw1: true when one
 * assembles, texts[] then holding it; false with texts[] as they were. */
bool tsr_route_other_texts(const struct route *R, const struct rop *x, const char **texts, unsigned mask, int sw0,
                           int sw1, struct tsr_buf *b, uint32_t *w);
/* pack_route.c: the forward element an instance's op writes to be read later (ages from 1), from its events: *fwd
 * -1 if none. */
void tsr_route_written(const struct tsr_pack_ev *e, int *fwd, int *elem, int *lo, int *hi);
/* pack_route.c: the ops of decoded instance words w that are not idle: their count; the last one in *op and its
 * slot in *slot (slot may be NULL); *attrs (may be NULL) ORs their attributes.  0 when w does not decode. */
int tsr_route_real_ops(const struct tsr_target *t, const uint32_t *w, unsigned *op, unsigned *slot, uint64_t *attrs);
/* pack_route.c: tmpl (a move template) with its "%" replaced by src into b (cleared first). */
void tsr_route_fill_move(struct tsr_buf *b, const char *tmpl, const char *src);

/* pack_route_alt.c: the texts of input operation x (its instance x->w assembled, x->fwd set) in the other slots of
 * its op's declaration, into x->alt[] (alt[0] its own); an operation of several ops, or one whose text in another
 * slot does not assemble to that slot's op, has only its own. */
void tsr_route_alternatives(struct route *R, struct rop *x);
/* pack_route_alt.c: is instance w of op `op` a plain copy (t->op_copy, its optional parts that set a 1-bit field
 * absent)?  A converting move, or a copy with its negation written, is not. */
bool tsr_route_plain_copy(const struct tsr_target *t, unsigned op, const uint32_t *w);
/* pack_route_alt.c: x takes its alternative a (tmpl, fwd, elem). */
void tsr_route_take_alt(struct rop *x, int a);
/* pack_spill.c: finds in the description the texts of register spills (R->sp; left NULL when it has none): per
 * element of a register file, move ops that store to it and source texts that load it.  Free with
 * tsr_route_spill_free. */
void tsr_route_spill_init(struct route *R);
void tsr_route_spill_free(struct route *R);
/* pack_spill.c: the source text that reads register element e (alt: 0 or 1, the first or second load text), or
 * NULL. */
const char *tsr_route_spill_load(const struct route *R, int e, int alt);
/* pack_spill.c: the register file spills use (a state index of the validator's description; -1: none) and its
 * elements in *nel. */
int tsr_route_spill_file(const struct route *R, int *nel);
/* pack_spill.c: the k-th move template that stores to register element e ("%" for its source), or NULL. */
const char *tsr_route_spill_store(const struct route *R, int e, int k);
/* pack_spill.c: the k-th text (0 or 1) of a store operand that writes register element e (an operand of a move op
 * that may print nothing, `/$0.x`; any op with that operand prints it so), or NULL. */
const char *tsr_route_spill_storetext(const struct route *R, int e, int k);
/* pack_route_set.c: the variants pack_route_blocks.c tries of the input's spills undone (tsr_route_unspill), *n of
 * them: each the span of the store-moves undone and that of the stores of computing ops (-1: none; 0: all; else
 * operations); the first alone in a build with AddressSanitizer, whose tests then run in bounded time. */
struct tsr_route_unsp {
    int mspan, cspan;
};
#define ROUTE_MAXSPANS 3
const struct tsr_route_unsp *tsr_route_spans(int *n);
/* pack_unspill.c: the input's register spills undone (docs/pack.md "Values through forwards"): text (one basic
 * block, lines from 1 of path) into out with each load of a register element (spill file) that a store undone wrote
 * before it in the block replaced by the stored value's name, and each such store whose loads are all replaced and
 * whose element is written again later in the block or whose register file is not `output` removed.  mspan: the
 * store-moves of named values (blanked, line numbers kept; a group's part dropped); cspan: the store operands of
 * computing ops (`/$0.x` removed, the op named `%K:` with a new K where it has none) and of moves that do more.  A
 * group that no longer exchanges registers is written one line per part.  A span: -1 none, 0 all, else only the
 * stores whose loads all lie within that many operations after them.  Returns the number of loads replaced (out is
 * then the new text), 0 when there is none or the text does not read (the packer's own reading reports that). */
int tsr_route_unspill(const struct tsr_target *t, const char *path, const char *text, size_t len, int mspan,
                      int cspan, struct tsr_buf *out);

/* pack_route_bu.c: schedules the input operations live[0..nl) of R (input operations are R->o[0..n0)) bottom-up,
 * inserting moves (R->mv) where a value's readers are spread wider than its producer's window; succ[i] lists the
 * other dependences of input operation i, (j, lat): j at least lat bundles after i.  On success returns 0 with the
 * bundles in program order in *out (*nb of them; free with free()) and each placed operation's cyc, itext and iw
 * set; else -1 with the message in err and the operation it concerns in *at (-1: none). */
int tsr_route_schedule(struct route *R, int n0, const int *live, int nl, const struct tsr_pack_elist *succ,
                       struct route_bundle **out, int *nb, char *err, size_t errn, int *at);

#endif
