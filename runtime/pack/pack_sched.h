/* The scheduler's program being formed (runtime/pack/pack_sched.c, pack_emit.c): private to runtime/pack/. */
#ifndef TSR_PACK_SCHED_H
#define TSR_PACK_SCHED_H
#include <stdlib.h>
#include <string.h>
#include "pack_int.h"
#include "target.h"

#define MAXPARTS TSR_PACK_MAXPARTS
#define MAXITEMS 32       /* ops of one bundle whose slots struct obundle keeps */

/* One bundle of the output. */
struct obundle {
    const char *parts[MAXPARTS];
    const uint32_t *pw[MAXPARTS]; /* the words of each part alone */
    int k;
    const char *const *labels;    /* printed before it */
    int nlabels;
    uint32_t w[TSR_PACK_MAX_NWORDS]; /* its words (branches: as assembled alone; the target does not matter) */
    struct tsr_pack_ev ev;        /* events of w when evok (listed when the validator needs them: events()) */
    bool evok;
    int block;                    /* index into the stats' blocks */
    int ctl, delay;               /* holds a jump / thread end (enum tsr_pack_ctl) and its delay slots */
    uint64_t fixed;               /* slots its units must use (a quick test before the assembler's) */
    uint64_t items[MAXITEMS];     /* per op of its units, the slots that have an op of its name */
    int nitems;                   /* -1: not known (then the assembler alone decides) */
    uint64_t pcand[MAXPARTS];     /* per part, in text order: the slots its op may go to; 0: not known (a part of
                                     several ops) */
};

struct prog {
    const struct tsr_target *t;
    const struct tsr_vdesc *D;
    struct obundle *b;
    size_t n, cap;
    uint32_t nopw[TSR_PACK_MAX_NWORDS]; /* an empty bundle */
    bool want_lower;              /* the caller wants statistics: compute each block's lower bound */
    bool search;                  /* search the relaxation for schedules shorter than the list scheduler's */
    uint64_t *fmask;              /* per format of the target's text tables: its slots (the first 64) */
    unsigned nf;
    struct tsr_pack_pairs pairs;  /* the dependences of its units' pairs, by their words (pack_int.h) */
};

/* A new empty bundle at index at of the program (those from at on move up one). */
static inline struct obundle *tsr_pack_prog_insert(struct prog *P, size_t at)
{
    if (P->n == P->cap) {
        P->cap = P->cap ? 2 * P->cap : 64;
        P->b = realloc(P->b, P->cap * sizeof *P->b);
        if (!P->b)
            abort();
    }
    memmove(P->b + at + 1, P->b + at, (P->n - at) * sizeof *P->b);
    P->n++;
    memset(&P->b[at], 0, sizeof P->b[at]);
    return &P->b[at];
}

/* b's words become w (t->nwords words); its events are listed when needed. */
static inline void tsr_pack_set_words(struct prog *P, struct obundle *b, const uint32_t *w)
{
    memcpy(b->w, w, P->t->nwords * 4);
    b->evok = false;
}

/* pack_emit.c: the program's text into out, each bundle after its labels: a branch or thread end as its parts'
 * text (which names its label), every other bundle as its disassembly at address 0. */
void tsr_pack_emit(const struct prog *P, struct tsr_buf *out);
/* pack_emit.c: validates the whole program (prefix: the directives before it, plen bytes) and puts a nop before
 * each instruction that still breaks a rule on some path (in practice: at a branch target, reached from the end
 * of another block), counting it in st's block.  Returns 0, or -1 with a diagnostic if a violation cannot be
 * mended by a nop. */
int tsr_pack_mend(struct prog *P, const char *prefix, size_t plen, const char *path, struct tsr_pack_stats *st,
                  struct tsr_diag *d);

#endif
