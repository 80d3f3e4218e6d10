/* Internals of the packer's lower bound shared by part 1 (pack_bound.c: the bounds, pairs, cliques, twins)
 * and part 2 (pack_search.c: the exact search on the relaxation); private to runtime/pack/.  The method is
 * described at the top of pack_bound.c and in docs/pack.md "Lower bound". */
#ifndef TSR_PACK_BOUND_H
#define TSR_PACK_BOUND_H

#include <stdbool.h>
#include <stdint.h>

#include "pack_int.h"

#define HTSTARTS 64         /* distinct starts the heads-and-tails bound considers in a large block */
#define MAXSETS 16           /* distinct slot sets the resource bound combines */
#define MAXITEMS 24          /* ops in one bundle of the relaxation (slots of the widest format, in practice) */
#define MAXCLIQUES 8         /* sets of units that pairwise cannot share a bundle, kept for the search */
#define NODE_BUDGET 10000    /* bundles the proof of the bound may try per block (all lengths together) */
#define FIND_BUDGET 2000     /* bundles the search for schedules may try per length (above the 1,955 that the
                                longest successful length needed on GPU_FFT) */
#define FIND_GROWTH 4        /* ... and at most this many times what the length before took, */
#define FIND_SLACK 500       /* plus this many (GPU_FFT: 449 then 1,955 in a 67-operation block) */
#define MAXSEARCH TSR_PACK_LARGE /* larger blocks get part 1 only: the pairs cost n^2 assembler calls, each search
                                   node O(n) (a block of 500 GPU_FFT operations: 1.6 s; of 1,753: 25 s) */

/* The block as the bound sees it. */
struct bound {
    const struct tsr_target *t;
    const struct tsr_pack_unit *u;
    const struct tsr_pack_elist *pred;
    int n, nn, ctl, delay;
    bool jump;                /* the control unit takes a bundle of its own */
    bool *solo;               /* the unit pairs with no other unit of the block */
    uint64_t *compat;         /* row i (W words): bit j set if units i and j can share a bundle (can_pair) */
    uint64_t *inb;            /* per bundle c < T: the units in it while it is formed (W words each, 0 after) */
    int *skip;                /* per bundle c < T: the units left out of it while it is formed (n each) */
    uint8_t *rdy;             /* per bundle c < T and unit (n each), from hopeful: RDY_NO, RDY_YES or RDY_ASK */
    int *cand_at, *ncand_at;  /* per bundle c < T: the units not RDY_NO there, in index order (n each), and
                                 how many */
    int W;
    int ncliques, *clique[MAXCLIQUES], csize[MAXCLIQUES];   /* units that pairwise cannot share a bundle */
    uint64_t *cmask;          /* per clique: its members as a set (W words each) */
    uint64_t *free;           /* the units not placed (W words) */
    int lsolo, lcnt[MAXSETS]; /* of those: the ones that take a bundle alone; ops per slot set (setof) */
    int *cq, *cbucket;        /* scratch of cliques_fail: per estimate 0..T, least tail and count (T + 2) */
    int *est, *q;             /* earliest bundle; bundles from it to the end, its own included */
    /* ops (items) of the units that share bundles: op k of unit owner[k], its slots cand[k] */
    int nitems, *owner, *first, *count;
    uint64_t *cand;
    uint64_t *fmask;          /* per format: its slots (the first 64) */
    int *fpop;                /* per format: how many of them */
    unsigned nf;
    int nsets, *setof;        /* distinct candidate sets, and item k's */
    /* per subset `sub` of those sets (bit q: set q; 1 << nsets of them): the union of its sets' slots, d =
     * the most of them one format has, and which sets lie within that union (bit q) */
    uint64_t *umask;
    int *ud;
    uint32_t *within;
    uint64_t sets[MAXSETS];
    /* the search */
    int T, *cyc, *best;       /* best: where a schedule found is written (NULL: nowhere) */
    long nodes, budget;       /* bundles tried, and how many may be (more: gave_up) */
    bool gave_up;
    int *maxlat;              /* per unit: the largest latency of an edge from it (-1: none) */
    int *twin;                /* per unit: the previous unit it is interchangeable with (-1: none) */
    uint8_t *key;             /* a state being hashed: n bytes */
    struct seen { uint64_t lo, hi; int r; } *seen;   /* states that fail, the most bundles left they failed with
                                                        (-1: an empty entry) */
    size_t nseen, capseen;    /* (open addressing; capseen a power of two) */
};

/* Latency of edge k of unit i as a bound may use (a branch in a bundle of its own: after what feeds it). */
int bnd_edge_lat(const struct bound *B, int i, int k);
/* Whether some clique's unplaced members (units that pairwise cannot share a bundle) need more than the T
 * bundles (pack_bound.c). */
bool bnd_cliques_fail(struct bound *B);
/* Whether ops with slot sets it[0..k) fit distinct slots of one format. */
bool bnd_fits(const struct bound *B, const uint64_t *it, int k);
/* The search from bundle c with `left` units still to place: true if they all fit in the T bundles (the
 * schedule then goes to B->best when it is set); false if not, or when the node budget ran out (gave_up). */
bool bnd_search(struct bound *B, int c, int left);
/* The proof (pack_search.c): lengths from lb upwards, below limit (0: none), until one has a schedule or the
 * budget (NODE_BUDGET for all lengths together) runs out.  Returns that length (limit if every shorter one was
 * ruled out); *exact: the search ended in its budget. */
int bnd_prove(struct bound *B, int lb, int limit, bool *exact);
/* The search for schedules (pack_search.c): lengths from limit - 1 downwards, down to floor, while schedules
 * are found within their budgets (FIND_BUDGET, FIND_GROWTH, FIND_SLACK); each one found goes to f. */
void bnd_find(struct bound *B, int floor, int limit, struct tsr_pack_found *f);

#endif
