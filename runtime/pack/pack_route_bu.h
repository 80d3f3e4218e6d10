/* The bottom-up scheduler's state and steps (pack_route_bu.c), shared with the register spills (pack_spill.c).
 * Private to runtime/pack/. */
#ifndef TSR_PACK_ROUTE_BU_H
#define TSR_PACK_ROUTE_BU_H
#include "pack_route.h"
#include "pack_route_cfg.h"

struct bu {
    struct route *R;
    int n0;
    const struct tsr_pack_elist *succ;
    int **rd;                   /* per input op: the input ops that read its value */
    int *nrd;
    struct route_bundle *B;     /* by position from the end */
    int nb, capb;
    int hmove;                  /* the largest readable age of a move */
    bool direct;                /* a reader of an optional value (struct rop.opt) reads its source text where its
                                   bundle forms so (tsr_route_bu_place) */
    bool flip;                  /* direct: when an op does not fit a bundle, the direct reads of the bundle's other ops
                                   from their values instead where that lets it in (each direct again where the bundle
                                   still forms) */
    int demand[64];             /* per slot: the operations ready at the bundle being filled that need it */
    uint64_t resv_mask;         /* a placement keeps at least resv of these slots free in its bundle */
    int resv;
    int *ins;                   /* per input op: when its value joined the values waiting (cfg.fifo; -1: not yet):
                                   a count of such events, a move of it counting again (it waits anew) */
    int nins;
    struct tsr_buf tb;
    struct bu_readers *rx;      /* the inserted ops that read each value (pack_route_bu.c tsr_route_bu_inserted) */
    int rprob;                  /* struct tsr_route_rnd prob: a decision point in rmask departs from the greedy
                                   choice with probability rprob / 1000 (0: never, the generator untouched) */
    unsigned rmask;
    unsigned long long rng;     /* the generator's state (seeded by struct tsr_route_rnd seed) */
    unsigned fmask;             /* struct tsr_route_rnd fmask, flip: the consultations that depart */
    const int *dflip;
    int nflip, fi, dc;          /* fi: the first of flip[] not passed; dc: the consultations so far */
};

/* Departures from the greedy choices of a schedule (tsr_route_bu_run; pack_route_deep.c): each decision point
 * enabled in mask takes another choice than the greedy one with probability prob / 1000, drawn from a fixed
 * generator seeded by seed (deterministic); and those numbered in flip (below). */
struct tsr_route_rnd {
    int prob;
    unsigned mask, seed;
    unsigned fmask;             /* the decision points whose consultations are counted (from 0): those numbered in
                                   flip[0..nflip) (ascending) depart from the choice they would take */
    const int *flip;
    int nflip;
    int ndec;                   /* (out) the consultations of enabled decision points in the schedule */
};

/* The decision points a randomized schedule may perturb (struct tsr_route_rnd mask bits). */
enum {
    BU_R_UNIT = 1,              /* an op with alternatives tries a random unit first */
    BU_R_MVSLOT = 2,            /* a move tries its templates from a random one on */
    BU_R_DEFER = 4,             /* a ready op that could go in waits (step 2) */
    BU_R_LIMIT = 8,             /* an op the limits would hold back goes in */
    BU_R_PRESS = 16,            /* the value spilled to make room is a random one of those eligible */
    BU_R_NEXT = 32,             /* a move of a next-bundle value is not placed (step 3) */
    BU_R_SPILL = 64,            /* a value at its last chance goes through a register before a move is tried */
    BU_R_DIRECT = 128,          /* an op's reads of optional values try fewer direct reads first */
};

/* A departure from the greedy choice at decision point bit (the schedule's decisions are taken in a fixed order,
 * so one's number is the same in every run up to the first departure): when bit is in U->fmask, the consultation is
 * numbered and departs if its number is in U->dflip; when bit is in U->rmask with U->rprob, the generator advances
 * and reverses that with probability rprob / 1000.  Without a struct tsr_route_rnd (both masks 0) it is always
 * false: the greedy schedule. */
static inline bool bu_coin(struct bu *U, unsigned bit)
{
    bool d = false;
    if (U->fmask & bit) {
        int c = U->dc++;
        while (U->fi < U->nflip && U->dflip[U->fi] < c)
            U->fi++;
        d = U->fi < U->nflip && U->dflip[U->fi] == c;
    }
    if (U->rprob > 0 && (U->rmask & bit)) {
        U->rng = U->rng * 6364136223846793005ull + 1442695040888963407ull;
        d ^= (int)((U->rng >> 33) % 1000) < U->rprob;
    }
    return d;
}

/* A number in [0, n) from the generator (n > 0). */
static inline int bu_rand(struct bu *U, int n)
{
    U->rng = U->rng * 6364136223846793005ull + 1442695040888963407ull;
    return (int)((U->rng >> 33) % (unsigned)n);
}

/* The inserted ops (moves, spills: R->o[n0..]) that read each input op's value, in index order (rl[v][0..nrl[v])),
 * a cache brought up to date when asked (tsr_route_bu_inserted): rl_n ops looked at, rlog[0..nrlog) the (op, value)
 * pairs added, in order, so that the ops dropped since (R->lw) come off the ends of the lists. */
struct bu_readers {
    int **rl, *nrl, *caprl;
    int (*rlog)[2];
    int nrlog, caprlog, rl_n;
};

/* One schedule's state that the steps of its bundles share (tsr_route_bu_run, pack_route_bu.c: filled once by its
 * set-up; the steps: pack_route_step.c).  Positions count bundles from the end; arrays "per input op" are indexed
 * by op (0..n0), those "per move template" by template (the first 64). */
struct bu_run {
    struct bu U;
    const struct tsr_route_cfg *cf;
    const int *live;            /* the input ops to place, live[0..nl), in program order */
    int nl, n0;
    int *depth;                 /* per input op: the longest path to it from the start (tsr_route_crit_depth) */
    int target;                 /* cf->slack >= 0: the critical path's length + slack, else -1 */
    int *order;                 /* live[] by the scheduler's priority (tsr_route_crit_order) */
    int *dyn;                   /* cf->fifo: order by depth, then by U.ins (step 2; kept sorted from round to round) */
    uint64_t *slot;             /* per input op: the slots (the first 64) of its instance in the input */
    uint64_t mvslot[64];        /* per move template: the slots it may go to */
    int mvhi[64];               /* per move template: the largest age its result is readable at */
    uint64_t mvall;             /* the slots of every move template */
    uint64_t mvfar;             /* the slots whose move reaches age U.hmove (cf->late keeps them for values due) */
    int nfar;                   /* cf->fit: the values the far slots serve (tsr_route_crit_capacity), else 0 */
    bool late;                  /* cf->late > 0 */
    int limit, duelim;          /* the limits on values waiting and on those due at one bundle; each raised by one
                                   after every 4 bundles in a row that received nothing */
    int left;                   /* the live ops not placed yet, the optional ones aside (BU_OPT) */
    int idle;                   /* bundles in a row that received nothing */
    bool placed_any;            /* the bundle being filled received something (an op, a move, a spill) */
    /* scratch, its contents valid within one bundle's steps: */
    bool *is;                   /* per input op: its value waits for its producer (live_count) */
    bool *nx;                   /* per input op: its value needs a feeder at p or p + 1 (live_count) */
    bool *dmark;                /* per input op, cf->late: its value is due at p without a feeder yet; all false
                                   outside step 2 */
    int *mand, nmand;           /* the values at their last chance at p (step 1) */
    int mvorder[64], nmo;       /* the move templates, the least needed slots first (step 1) */
    int (*S)[2];                /* reads ((op, source) pairs), room for 2 * scap: a subset goes after them */
    struct bu_trial *trial;     /* cf->score: the state a placement on trial restores (pack_route_step.c), or NULL */
    int scap;
    char *err;                  /* a failure's message (errn bytes) and the op it concerns (*at) */
    size_t errn;
    int *at;
};

/* Is input op i optional in this schedule (struct rop.opt, and its readers may read its source text)? */
#define BU_OPT(U, i) ((U)->direct && (U)->R->o[i].opt)

/* Op i's instance with its current sources (sw: its last two sources swapped) into its itext / iw: false when it
 * does not assemble or a source has no text. */
bool tsr_route_bu_inst(struct bu *U, int i, bool sw);
/* Forms bundle b of the k ops part[] with their current sources: true if the assembler takes them together. */
bool tsr_route_bu_build(struct bu *U, struct route_bundle *b, const int *part, int k);
/* Places op f at position p serving the reads S[0..ns) ((op, source) pairs); false (and nothing changed) when a
 * bundle does not form, an age or a spill's latency is not met, or an end-of-block rule breaks.  With U->direct,
 * f's reads of optional values read their source texts where the bundle forms so (feed ROUTE_DIRECT); with
 * U->flip, the direct reads of the bundle's other ops may read their values instead to let f in. */
bool tsr_route_bu_place(struct bu *U, int f, int p, int (*S)[2], int ns);
/* tsr_route_bu_place with f in the first of its units (its alternatives, pack_route_alt.c) where it fits, the unit
 * it has first, then those the ready operations need least (U->demand); f keeps the unit it had when none does. */
bool tsr_route_bu_place_any(struct bu *U, int f, int p, int (*S)[2], int ns);
/* May input op i go to position p: ready there (tsr_route_bu_ready), no spill store of its value waiting (it reads
 * the value), and no spill holding a register element it accesses? */
bool tsr_route_bu_deps_ok(const struct bu *U, int i, int p);
/* Must input op i be placed: not optional in this schedule, or some placed op reads its value with no feeder yet
 * (not directly), or a move or a spill store of it is placed without a feeder, or a spill store of it waits? */
bool tsr_route_bu_wanted(const struct bu *U, int i);
/* The slots (the first 64, a mask) the ops of instance words w use, idle ops aside. */
uint64_t tsr_route_bu_slots(const struct tsr_target *t, const uint32_t *w);
/* A new move of value v (move template m) appended to R: its index (R->n - 1), or -1 (nothing added) when its
 * instance does not assemble or writes no forward. */
int tsr_route_bu_new_move(struct bu *U, int v, int m);
/* Removes the last op of R (a move not placed). */
void tsr_route_bu_drop_last(struct route *R);
/* pack_route_step.c: fills bundle p (U.B[p], just appended empty) of schedule s: step 1, the values at their last
 * chance, their producers, their moves; the spill stores; step 2, the ready operations by priority; step 3
 * (cf->pre), moves of the next bundle's values; a spill when nothing went in.  Returns 0, or -1 (the message in
 * s->err, the value in *s->at) when a value at its last chance gets no feeder. */
int tsr_route_bu_bundle(struct bu_run *s, int p);
/* pack_route_step.c: frees s->trial (cf->score's saved state), if any. */
void tsr_route_bu_trial_free(struct bu_run *s);

/* The outstanding reads of value v (placed ops that read it with no feeder yet) into S (at most cap); their
 * count. */
int tsr_route_bu_outstanding(const struct bu *U, int v, int (*S)[2], int cap);
/* pack_route_bu.c: the inserted ops that read value v (an input op), in index order: their count, the list in *ops
 * (valid until the next op is made or dropped). */
int tsr_route_bu_inserted(const struct bu *U, int v, const int **ops);

/* May input op i go to position p as far as its other dependences and readers go: every op that depends on it
 * placed at least the latency after it, every reader of its value placed (a spill store of it aside)? */
bool tsr_route_bu_ready(const struct bu *U, int i, int p);

/* pack_spill.c: spills value v, whose outstanding reads S[0..ns) no feeder can reach from position p: a free
 * element of the register file, each read reading it through a load text (its bundle formed again), and a store
 * of v to it left to place (tsr_route_spill_place) at least the register file's latency before the first of
 * them.  False (nothing changed) when no element serves every read. */
bool tsr_route_spill(struct bu *U, int v, int p, int (*S)[2], int ns);
/* pack_spill.c: spills one value waiting for its producer (the first in program order whose producer is not
 * ready at p), when bundle p received nothing (the limits on values waiting hold every operation back); S is
 * scratch for cap reads.  True if one was spilled. */
bool tsr_route_spill_waiting(struct bu *U, int p, int (*S)[2], int cap);
/* pack_spill.c: spills value v, waiting for its producer, at p (cf->press): its outstanding reads (S: scratch for
 * cap) load an element of the register file the input does not use, and a store of it is left to place; true if
 * done (false, nothing changed, when no such element serves every read). */
bool tsr_route_spill_value(struct bu *U, int v, int p, int (*S)[2], int cap);
/* pack_spill.c: places at position p the spill stores waiting that may go there: their loads' latency met, and
 * their value's producer ready to follow (tsr_route_bu_ready one position further: a register holds the value
 * meanwhile, no forward); true if one was placed. */
bool tsr_route_spill_place(struct bu *U, int p);
/* pack_spill.c: must input op i wait before it goes to position p: it accesses the register element of a spill
 * taken where the input's value of it is dead, whose store is not placed yet or is less than tsr_pack_dep's
 * distance below p (the input's accesses before that stretch go before the store)? */
bool tsr_route_spill_holds(const struct bu *U, int i, int p);
/* pack_spill.c: does value v have a spill store not placed yet (its producer must wait for it)? */
bool tsr_route_spill_pending(const struct bu *U, int v);
/* pack_spill.c: the k-th source text (k from 0) that loads a register element nothing in the schedule writes (the
 * input accesses it nowhere, no spill takes it): a read of it meets no latency; NULL past the last (or no register
 * file).  The filler of a bundle left empty reads one when no forwarded value is readable there. */
const char *tsr_route_spill_quiet(const struct bu *U, int k);

/* pack_route_crit.c: the depth of each live op (live[0..nl), in program order) into depth (zeroed by the caller,
 * indexed by op): the longest path to it from the program's start, a read of a value counting its producer's first
 * readable age (R->o[v].lo) and another dependence its latency (succ), in bundles; skip_opt: a read of an optional
 * value (struct rop.opt) counts nothing (it may be read as its source text).  Returns the critical path's length in
 * bundles (the largest depth + 1): no schedule is shorter. */
int tsr_route_crit_depth(const struct route *R, const int *live, int nl, const struct tsr_pack_elist *succ,
                         bool skip_opt, int *depth);
/* pack_route_crit.c: the live ops by the scheduler's priority into order[0..nl): later in program order first; with
 * by_depth, the deepest first (stable among equals; seed non-zero: equal depths in the order of a fixed hash of
 * (seed, op) instead, a perturbed order for another setting). */
void tsr_route_crit_order(const int *live, int nl, const int *depth, bool by_depth, unsigned seed, int *order);
/* pack_route_crit.c: the moves' capacity, from each move template m < nmv (at most 64): the slots it may go to
 * (mvslot[m], a mask of the first 64) and the largest age its result is readable at (mvhi[m]).  *total: the values
 * the moves of the hmove bundles before one can carry to it (per slot, the largest age of a move there, summed:
 * lima's 11 live values); *far: the slots whose move reaches age hmove (those that can serve a value whose
 * farthest read is hmove bundles on: lima's 5 for its "max" values). */
void tsr_route_crit_capacity(const uint64_t *mvslot, const int *mvhi, int nmv, int hmove, int *total, int *far);


/* pack_route_bu.c: one bottom-up schedule of the input operations live[0..nl) of R with setting cf, at most cap
 * bundles (tsr_route_schedule's contract otherwise); order: the live ops by priority (nl of them, copied) instead of
 * the setting's own (tsr_route_crit_order), or NULL; rnd: a randomized schedule (it stops as soon as it cannot
 * finish within cap), or NULL.  Returns 0, or -1 (the message in err, the operation it
 * concerns in *at), or -2 when cap was reached. */
int tsr_route_bu_run(struct route *R, int n0, const int *live, int nl, const struct tsr_pack_elist *succ,
                     const struct tsr_route_cfg *cf, const int *order, int cap, struct route_bundle **out, int *nbp,
                     char *err, size_t errn, int *at, struct tsr_route_rnd *rnd);

/* pack_route_bu.c: one schedule again from the input (the inserted ops of the last dropped; R->by_demand byd), its
 * bundles discarded, R keeping its placement: tsr_route_bu_run's length, or -1 when it did not finish (within cap,
 * or for another reason). */
int tsr_route_bu_again(struct route *R, int n0, const int *live, int nl, const struct tsr_pack_elist *succ,
                       const struct tsr_route_cfg *cf, const int *order, bool byd, int cap, struct tsr_route_rnd *rnd);

/* pack_route_deep.c: the search over the decisions of the best schedule (setting cf, priority order (NULL: cf's
 * own), R->by_demand byd, *bestn bundles): single flips of its decisions, then randomized runs; each schedule
 * shorter than the best replaces it.  True when one was found: *bestn its length, *res the departures that give it
 * again with tsr_route_bu_run (res->flip, when not NULL, is the caller's to free).  R keeps the last run's moves. */
bool tsr_route_deep(struct route *R, int n0, const int *live, int nl, const struct tsr_pack_elist *succ,
                    const struct tsr_route_cfg *cf, const int *order, bool byd, int *bestn,
                    struct tsr_route_rnd *res);

#endif
