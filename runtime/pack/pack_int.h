/* Internals shared by the files of runtime/pack/ (private to this folder: nothing outside it includes this header). */
#ifndef TSR_PACK_INT_H
#define TSR_PACK_INT_H
#include "pack/pack.h"
#include "fileout.h"
#include "validate/validate.h"

#define TSR_PACK_MAX_LABELS 8
#define TSR_PACK_MAXPARTS 8

/* What an operation is for control flow, from its events (TSR_V_JUMP / TSR_V_HALT). */
enum tsr_pack_ctl {
    TSR_PACK_CTL_NONE,
    TSR_PACK_CTL_JUMP,    /* a branch written with its target label: ends its block, delay slots filled */
    TSR_PACK_CTL_END,     /* a thread end: ends its block, delay slots filled */
    TSR_PACK_CTL_OPAQUE,  /* a jump the packer cannot move (several parts, no label text): a block of its own */
};

/* The events of one instruction as the validator sees them (runtime/validate/validate.h), with their own field
 * storage, and what the packer derives from them. */
struct tsr_pack_ev {
    struct tsr_vbundle *vb;     /* its events, in one allocation with vb->f (desc->nfields values after the
                                   events): only vb->nev of the TSR_V_MAXEV events are there (a bundle of two
                                   ALU ops has a dozen; the whole struct is 2 KB); NULL before the first fill */
    size_t cap;                 /* bytes allocated at vb */
    int ctl;                    /* enum tsr_pack_ctl */
    int delay;                  /* JUMP/END: delay slots (instructions) */
    bool falls;                 /* control may continue with the next instruction (not an always-taken jump
                                   or an unconditional halt) */
    uint64_t pat[2];            /* bit r: some event matches rule r's pattern 0 / 1 (rules 0..63; a filter
                                   for tsr_pack_dep: all ones when there are more rules; with evm, only the
                                   rules tsr_pack_dep looks at: `latency` of two patterns, `order`) */
    uint64_t elems;             /* the state elements its events touch, one bit each by hash of (element, index);
                                   all ones with an unknown index: two events that touch one element share a
                                   bit (tsr_pack_dep skips its element comparison when no bit is shared) */
    uint64_t *evm;              /* tsr_pack_ev_unit: event masks in vb's allocation (bit i: vb->ev[i]), else
                                   NULL: [0] the reads, [1] the state accesses, then per bit r of pat[0], in
                                   order, the events matching rule r's pattern 0 and their elements' bits (as
                                   elems, of state and space events), then likewise for pat[1] */
};

/* One input line: an operation, or a pinned group written as one bundle. */
struct tsr_pack_unit {
    uint32_t w[TSR_PACK_MAX_NWORDS]; /* its words assembled alone (0 past the target's t->nwords) */
    unsigned line, col;         /* source position */
    char *text;                 /* canonical text (parts joined by "; "), NULL: cannot share a bundle */
    char *full;                 /* full disassembly */
    const char *src;            /* source text of the line (branches are printed with it: labels; pack.c's) */
    char *alt;                  /* a commutative op with its sources swapped (same meaning), or NULL */
    bool shared;                /* text, full and alt are an earlier unit's (same words; pack.c frees them once) */
    uint64_t slots;             /* the slots its ops use alone (bit = slot index, the first 64) */
    uint64_t only;              /* those of them whose op no other slot has (a `mov` either ALU can do: not) */
    uint64_t cand[TSR_PACK_MAXPARTS]; /* per op of the unit alone: the slots that have an op of its name (the
                                   first 64); an assembler puts an op only in such a slot */
    int ncand;                  /* its ops; -1: not known (no format decoded, more than TSR_PACK_MAXPARTS ops or
                                   64 slots) */
    const char *labels[TSR_PACK_MAX_LABELS];
    int nlabels;
    bool dslot;                 /* written `.delay`: runs in the delay slots of the control unit before it */
    uint32_t wid;               /* 1 + the index of its words among the program's distinct words (units of the
                                   same words share it); 0: not known */
    struct tsr_pack_ev ev;
};

/* pack_words.c: appends the one-line text s (n bytes; parts joined by "; ", the default syntax) to out in the
 * target's declared source syntax (docs/asm.md "Declared syntax"): with a declared bundle end, the parts joined by
 * a blank (the front end starts a part at an op's mnemonic) and the bundle end after them; else as it is. */
void tsr_pack_decl_text(const struct tsr_target *t, const char *s, size_t n, struct tsr_buf *out);
/* pack_words.c: the text of a bundle of the k + 1 parts parts[0..k) with `add` inserted at position pos (0..k)
 * into b (cleared first): the parts joined by "; ", their field overrides (`{ws=1}`, which may only end a
 * bundle's text) gathered into one group at the end; ov is scratch. */
void tsr_pack_join_text(struct tsr_buf *b, struct tsr_buf *ov, const char *const *parts, int k, const char *add,
                        int pos);

/* pack_umemo.c: what a unit's words decide (x->ev with its masks, text, full, alt, slots, only, cand, ncand and
 * whether it breaks a rule alone), remembered per thread across programs: all are functions of the target and
 * the words alone.  get fills x (whose w is set and whose other fields are empty) and *solo and returns true
 * if x's words are remembered, else returns false and leaves both untouched; put remembers x's (filled, before
 * any change for its place in the program).  Targets of more than 4 words are not remembered. */
bool tsr_pack_umemo_get(const struct tsr_target *t, struct tsr_pack_unit *x, bool *solo);
void tsr_pack_umemo_put(const struct tsr_target *t, const struct tsr_pack_unit *x, bool solo);

/* pack_deps.c */
/* Fills *e with the events of the instruction at w (t->nwords words) and its control kind.  Returns 0, or
 * -1 if the target has no validator description (t->vdesc == NULL). */
int tsr_pack_ev_init(const struct tsr_target *t, const uint32_t *w, struct tsr_pack_ev *e);
/* The same with the event masks (evm) that spare tsr_pack_dep the pattern tests: for the units of a block. */
int tsr_pack_ev_unit(const struct tsr_target *t, const uint32_t *w, struct tsr_pack_ev *e);
/* The same without the rule filter (pat all ones), for bundles the validator checks but tsr_pack_dep never
 * compares (the pattern tests were a third of the events' cost). */
int tsr_pack_ev_events(const struct tsr_target *t, const uint32_t *w, struct tsr_pack_ev *e);
void tsr_pack_ev_free(struct tsr_pack_ev *e);
/* Removes from e (filled by tsr_pack_ev_init or tsr_pack_ev_events: no event masks) the format's own deferred reads
 * (TSR_V_RDEFER of no slot: what a load unit loads whether used or not, read only by a later instruction's source
 * at an age, docs/mdl.md X6), for dependences between the parts of one instruction or between operations no
 * source of which reads such a load. */
void tsr_pack_ev_drop_format_deferred(struct tsr_pack_ev *e);
/* dst (freed first: empty or filled) becomes a copy of src with its own allocation. */
void tsr_pack_ev_copy(struct tsr_pack_ev *dst, const struct tsr_pack_ev *src);
/* The dependence of b on a, a earlier in program order: -1 none, else the least number of instructions
 * from a's bundle to b's (0: they may share a bundle; reads see the state before the bundle).  From the
 * description alone: state elements (read after write: 1 or the larger `latency` rule that matches; write
 * after write: 1; write after read: 0), `latency` rules (A then B: min; B then A: 0), `order` classes (two
 * accesses of one class: 1, or 0 when the earlier is a read and the later a write). */
int tsr_pack_dep(const struct tsr_vdesc *D, const struct tsr_pack_ev *a, const struct tsr_pack_ev *b);
/* The violations of the description's rules by instruction e alone (no history), 0 if none; the first
 * one's text into msg. */
size_t tsr_pack_solo_check(const struct tsr_vdesc *D, const struct tsr_vbundle *b, char *msg, size_t n);

/* pack_equiv.c: do the instructions at a and b (t->nwords words each) do the same thing?  Equal words, or
 * the same final state and peripheral accesses from several pseudo-random states in the generated
 * simulator (false without one). */
bool tsr_pack_same_meaning(const struct tsr_target *t, const uint32_t *a, const uint32_t *b);

/* pack_equiv.c: does the bundle at m do what its k parts (each assembled alone at parts[i]) do, side by
 * side?  Each element of the state the value the part that writes it gives, or unchanged; the peripheral
 * accesses those of the parts.  Checked in the generated simulator from pseudo-random states (true without
 * one); verdicts are cached.  Catches an assembler that encodes a part differently once joined (a pack that
 * changes meaning with the ALU it lands on, a `mov.setf` immediate that becomes an `or` and clears C). */
bool tsr_pack_merge_same(const struct tsr_target *t, const uint32_t *m, const uint32_t *const *parts, int k);

/* pack_idle.c: 0 when the packer can take target t (a hazard description, instructions of at most
 * TSR_PACK_MAX_NWORDS words), else -1 with `path: error: ...` through d. */
int tsr_pack_target_ok(const struct tsr_target *t, const char *path, struct tsr_diag *d);
/* pack_idle.c: is op (an index of t's ops, or TSR_NO_OP) a slot's idle op: none decoded, or an op with the
 * attribute `nop` (docs/mdl.md X12; in a description without that attribute, its slot's default op)? */
bool tsr_pack_op_idle(const struct tsr_target *t, unsigned op);
/* pack_idle.c: is s[0..n) the text of an idle op (its literal template; n > 0)? */
bool tsr_pack_idle_text(const struct tsr_target *t, const char *s, size_t n);
/* pack_idle.c: the text of the idle bundle (the first idle op's literal text, in format and slot order, that
 * assembles alone to a bundle of idle ops, e.g. `nop`), or NULL when the target has none. */
const char *tsr_pack_idle_bundle(const struct tsr_target *t);
/* pack_idle.c: the text that keeps bundle position pos idle in a bundle of format `format` (a literal idle op of
 * that slot; else of that position in another format; else the idle bundle's text; NULL: none). */
const char *tsr_pack_idle_at(const struct tsr_target *t, unsigned format, unsigned pos);

/* The dependence graph of a block: pred[j] lists (i, lat), i < j: j goes at least lat bundles after i. */
struct tsr_pack_edge { int to, lat; };
struct tsr_pack_elist { struct tsr_pack_edge *e; int n, cap; };
/* pack_deps.c: appends (to, lat) to l, growing it (no check for a duplicate: callers derive each pair once);
 * aborts when out of memory. */
void tsr_pack_push_edge(struct tsr_pack_elist *l, int to, int lat);

/* pack_deps.c: the answers of tsr_pack_dep for one program's pairs of units, by their distinct words (struct
 * tsr_pack_unit.wid): lat[(a->wid - 1) * nw + b->wid - 1] is 0 (not asked yet) or the latency + 2.  In front of
 * the thread's memo of pairs (3 MB, answered from outside the core's caches): GPU_FFT's shaders ask each pair of
 * distinct words about 14 times; a program's matrix (at most TSR_PACK_PAIRS_MAX distinct words, 2 bytes an
 * entry) stays in the cache.  lat NULL: no matrix (units of unknown wid, or too many distinct words). */
#define TSR_PACK_PAIRS_MAX 724
struct tsr_pack_pairs { uint16_t *lat; uint32_t nw; };
void tsr_pack_pairs_init(struct tsr_pack_pairs *M, const struct tsr_pack_unit *u, size_t n);
void tsr_pack_pairs_fini(struct tsr_pack_pairs *M);

/* pack_deps.c: the dependence graph of the block u[0..n) into pred and succ (n empty lists each; succ[i]
 * lists (j, lat), j > i).  Blocks of up to TSR_PACK_LARGE units: every pair i < j with tsr_pack_dep(i, j)
 * >= 0, in program order.  Larger blocks (docs/pack.md "Dependences"): the pairs that can matter, each with
 * its tsr_pack_dep latency: per state element or space address, the last unit that wrote it before j and (j
 * writes it) the units that read it since; per `order` class, the last unit of the class; per `latency` rule
 * between different elements, the last 16 units matching its first pattern and (j matches it) those matching
 * the second since.  Every pair left out is implied by a chain of kept ones with at least its latency (a
 * write after write costs 1, a class's chain at least 1); time and edges near linear in the block.  With an
 * access to an unknown element or more than 64 rules, every pair. */
/* Blocks of more units are large: the graph from the accesses that can matter (above), one list-scheduling
 * priority instead of three, no search (pack_bound.c; docs/pack.md "Limits"). */
#define TSR_PACK_LARGE 512
void tsr_pack_graph(const struct tsr_vdesc *D, const struct tsr_pack_pairs *M, const struct tsr_pack_unit *u, int n,
                    struct tsr_pack_elist *pred, struct tsr_pack_elist *succ);

/* pack_words.c: tries to add text `add` (its words alone: addw) to the bundle parts (k of them, their words
 * alone in pw), at any position; the joined bundle must assemble (t->assemble_one) and do what its parts do
 * (tsr_pack_merge_same).  On success rewrites parts and pw (inserting it), puts the words in w (t->nwords
 * words) and returns 1; else 0. */
int tsr_pack_try_merge(const struct tsr_target *t, const char **parts, const uint32_t **pw, int k, const char *add,
                       const uint32_t *addw, uint32_t *w);
/* The same, trying only the positions pos (0..k) whose bit is set in at. */
int tsr_pack_try_merge_at(const struct tsr_target *t, const char **parts, const uint32_t **pw, int k, const char *add,
                          const uint32_t *addw, uint32_t *w, uint64_t at);
/* pack_legal.c: may the bundle of texts parts[0..k) and add assemble at all?  False only when the assembler
 * would refuse it at every position: no choice of one match per part (runtime/text/asm_paths.h) has one
 * format, distinct slots and no field bound to two values.  True when that is not known (a part with `;`, an
 * override group, a directive, too many matches; no text tables).  The matches of each text are listed once
 * per thread (a table of 4,096 texts). */
bool tsr_pack_legal_may(const struct tsr_target *t, const char *const *parts, int k, const char *add);
/* Whether TESSERA_PACK_VERIFY is set (not "0"): then tsr_pack_try_merge_at asks the assembler about every
 * bundle the pre-test refuses and aborts if it accepts one (a check of the pre-test's soundness). */
bool tsr_pack_legal_verify(void);
/* pack_words.c: the positions pos (bit pos, 0..k) at which an op that may go to the slots add (a mask of slot
 * indices, the first 64) can join a bundle text whose k parts, in text order, are ops that may go to the slots
 * cand[0..k): those where some format has slots, in its issue order, one after another for the parts in text
 * order (an assembler gives each part of a bundle a slot after the previous part's: a necessary condition).
 * All ones when a cand[i] is 0 (not known) or there are 63 parts or more. */
uint64_t tsr_pack_order_positions(const struct tsr_target *t, const uint64_t *cand, int k, uint64_t add);

/* Schedules of a block's relaxation that tsr_pack_lower_bound found (docs/pack.md "Algorithm", step 4),
 * shortest first: schedule k puts unit i in bundle at[k * n + i] of len[k]. */
struct tsr_pack_found {
    int n, count;
    unsigned *len;
    int *at;
};
void tsr_pack_found_free(struct tsr_pack_found *f);

/* pack_bound.c: a lower bound, in bundles, on any schedule of the block u[0..n) (dependence graph pred; ctl:
 * index of its branch / thread end, the last unit, or -1; nn: units before it); *basic gets the larger of
 * the slot-resource bound and the critical path alone, *exact whether the bound is the shortest schedule of
 * the relaxation (docs/pack.md "Lower bound").  limit: the length of a schedule the caller has (0: none).
 * want_bound: prove the bound, lengths from the basic one upwards and below limit ruled out by the search
 * (limit is returned, exact, if no shorter one exists); else the returned bound is the part that needs no
 * search.  found (or NULL): the search for schedules shorter than limit, from limit - 1 downwards while
 * they are found within a small budget per length (its result does not depend on want_bound); free it with
 * tsr_pack_found_free. */
unsigned tsr_pack_lower_bound(const struct tsr_target *t, const struct tsr_pack_unit *u, int n, int nn,
                              const struct tsr_pack_elist *pred, int ctl, unsigned *basic, bool *exact,
                              unsigned limit, bool want_bound, struct tsr_pack_found *found);
/* pack_bound.c: can the ops it[0..k) (each the mask of the slots it may go to) go to distinct slots of
 * free_slots, each to one of its own? */
bool tsr_pack_match_slots(const uint64_t *it, int k, uint64_t free_slots);
/* pack_vcache.c: the violations of the description's rules completed by the bundle at w[0] (t->nwords words)
 * after the len - 1 bundles before it (k bundles back: words w[k], events hist(ctx, k)) (at: TSR_PACK_AT_START
 * when w[0] is the program's first, TSR_PACK_AT_END when it is the last of a basic block, which gives it the
 * events START and END), as tsr_validate_hist counts them; verdicts are cached.  Events are needed only when
 * the verdict is not cached: then hist is called, the bundle's own events are listed into *cand
 * (tsr_pack_ev_events) and *filled is set; else *cand is left as it was. */
typedef const struct tsr_vbundle *(*tsr_pack_hist_fn)(void *ctx, int k);
#define TSR_PACK_AT_START 1u
#define TSR_PACK_AT_END 2u
size_t tsr_pack_hist_check(const struct tsr_target *t, struct tsr_pack_ev *cand, tsr_pack_hist_fn hist, void *ctx,
                           const uint32_t *const *w, int len, unsigned at, bool *filled);
/* pack_words.c: t->assemble_one(text, len) at address 0 into w (t->nwords words), through a cache of the
 * answers (keyed by a 128-bit hash of the target and the text). */
int tsr_pack_assemble_cached(const struct tsr_target *t, const char *text, size_t len, uint32_t *w);

/* pack_rt.c: bundles whose printed text is known to mean their words, for the check of the whole output
 * (pack_emit.c), which then needs no assembly of their text.  A bundle that is not a branch or thread end is
 * printed as its disassembly at address 0 (tsr_pack_emit); when that text assembles alone back to its words
 * and names none of the program's labels, the program's assembler makes those words of it too (a line that
 * uses no symbol reads the same wherever it stands; the output has no directives then: the caller's check). */
struct tsr_pack_rtw { bool used; uint32_t w[4]; };
struct tsr_pack_rt {
    const struct tsr_target *t;
    uint64_t *names;            /* the labels: an open-addressing set (hash | 1, 0: empty) of ncap entries */
    size_t *nlen;
    const char **nstr;
    size_t ncap;
    struct tsr_pack_rtw *seen;  /* the words found to round-trip: an open-addressing set of cseen entries */
    size_t nseen, cseen;
    struct tsr_buf text;        /* scratch: a disassembly */
};
/* r for target t and the program's labels (nlabels names, kept by the caller while r is used). */
void tsr_pack_rt_init(struct tsr_pack_rt *r, const struct tsr_target *t, const char *const *labels, size_t nlabels);
void tsr_pack_rt_fini(struct tsr_pack_rt *r);
/* Does the disassembly of the t->nwords words at w round-trip as above?  (Remembered in r; false for targets
 * of more than 4 words.) */
bool tsr_pack_rt_known(struct tsr_pack_rt *r, const uint32_t *w);

/* pack_names.c (docs/pack.md "Values through forwards"): the literal source text that reads element elem of
 * forward fwd at age age (the description's fwdtexts), or NULL. */
const char *tsr_pack_fwd_text(const struct tsr_vdesc *D, int fwd, int elem, int age);
/* May a source token start at s[at] / end before s[at] (what stands before and after it)? */
bool tsr_pack_tok_before(const char *s, size_t at);
bool tsr_pack_tok_after(const char *s, size_t at);
/* pack_names.c: replaces in *text (malloc'd; replaced when any is found) every token equal to from (bounded as a
 * source: tsr_pack_tok_before/after) by to; the number replaced. */
int tsr_pack_replace_tok(char **text, const char *from, const char *to);
/* pack_names.c: appends to out the unbundled program whose instruction i's lines (labels, `    op` lines) are
 * ib[i], with value names: each source that reads a forwarded value at age A >= 1 becomes `%K`, the name of the
 * operation of the instruction A back that writes the element (no label in between), and that operation is
 * written `%K: op`.  Reads of elements the description gives no literal text for stay as they are. */
/* A line holding a group kept whole (several parts joined by "; ", each assembling alone: masked stores to lanes
 * of one element) is written one part a line, so that each part has a name, but for the parts that exchange
 * registers, which stay together on one line; the number of groups written entirely one part a line is returned
 * (no line pins them any more: tsr_unbundle does not count them as pinned). */
unsigned tsr_pack_name_values(const struct tsr_target *t, struct tsr_buf *ib, size_t n, struct tsr_buf *out);
/* pack_route.c: does the program text (len bytes) define a value name (a line `%K: op`)? */
bool tsr_pack_has_names(const char *text, size_t len);
/* pack_route.c: packs a program with value names, block by block (docs/pack.md "Values through forwards"): routes
 * each value to its readers through the forwards' ages, inserting `move` ops where a reader must be later, and
 * appends the bundled text to out; deep: the search over the scheduler's decisions too (TSR_PACK_DEEP).  Returns 0,
 * or -1 with `path:line:col: error: ...` through d. */
int tsr_pack_route(const struct tsr_target *t, const char *path, const char *text, size_t len, bool deep,
                   struct tsr_buf *out, struct tsr_pack_stats *st, struct tsr_diag *d);

/* pack.c */
char *tsr_pack_canon(const struct tsr_target *t, const uint32_t *w, char **full);

/* pack_sched.c: schedules units u[0..n) (whole program) with the effort given and appends the bundled
 * text to out. */
int tsr_pack_schedule(const struct tsr_target *t, struct tsr_pack_unit *u, size_t n, enum tsr_pack_effort effort,
                      struct tsr_buf *out, struct tsr_pack_stats *st, const char *path, struct tsr_diag *d);
/* The slots (the first 64) that have an op named as op: where an op of that name may go (pack.c). */
uint64_t tsr_pack_name_slots(const struct tsr_target *t, unsigned op);

#endif
