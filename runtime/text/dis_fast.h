/* The state of the exactness proof's fast form (dis_exact.h tsr_dis_fast), shared by dis_fast.c (the bundle) and
 * dis_fxslow.c (what the generated checkers ask when their inline tests cannot decide); private to the two. */
#ifndef TSR_DIS_FAST_H
#define TSR_DIS_FAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "asm_match.h"
#include "dis_exact.h"
#include "dis_fshape.h"
#include "dis_fx.h"

/* What a bundle rarely or never runs is kept out of tsr_dis_fast's body (its code and its registers stay small). */
#if defined(__GNUC__) || defined(__clang__)
#define FAST_OUTLINE __attribute__((noinline))
#else
#define FAST_OUTLINE
#endif

_Static_assert(TSR_DIS_NEVER == TSR_FX_NEVER && TSR_DIS_UNKNOWN == TSR_FX_UNKNOWN, "row values (dis_fx.h)");
_Static_assert(TSR_DIS_LALT == TSR_FX_LALT, "alternatives recorded per part (dis_fx.h)");

/* An (operand part, alternative) pair's early alternatives: those the templates leave (tsr_dis_alt_maybe,
 * tsr_dis_alt_ctx) with their rows (tsr_dis_alt_entry_rows), as dis_plan.c compiles them for the plan. */
struct fpk {
    uint32_t nearly, k;
    uint32_t alt;               /* the operand's first alternative (isa->alts) */
    bool opts;                  /* the printed alternative has optional text (tsr_dis_alt_opts may rule more out) */
    uint8_t ncf, kf;            /* the fields on which every early alternative has a row, cf[0..ncf), and the one
                                   tsr_fx.pkf holds, cf[kf] */
    uint16_t cf[TSR_DIS_EHOLES];
    uint32_t settled[TSR_DIS_EHOLES];   /* times the rows on cf[m] alone ruled every early alternative out */
    struct fopt { uint8_t j, ans, what[14]; } om[8];   /* alt_opts_never's answers for early alternative j and the
                                   printed alternative's events what[0..its npart), nom of them (om[nom % 8] next) */
    uint32_t nom;
    uint8_t rule[16];           /* per early alternative j (the 16th: those from it on): the rule of fx_refuted that
                                   refuted it last */
    uint64_t bknown, bnever;    /* bit i: op i of the op's slot (before it) cannot match what the op prints with
                                   alternative k at this operand part, whatever its others (tsr_dis_op_alts with
                                   this one fixed); asked once bknown has bit i */
    struct tsr_dis_step step;   /* p, end: the operand's part and its op's template end (for the facts) */
    struct tsr_dis_early early[];
};

/* What the bundle-level tests ask of an op (or, for defaults, a format), looked up on first use. */
struct fop {
    bool init;
    int32_t lead;               /* dis_exact.c oplead: the template index of the leading operand, or -1 */
    bool c0known;
    uint64_t cands0;            /* dis_cand.c's set for its own slot before it, without alternatives (c0known) */
    uint64_t fknown;            /* bit g: tsr_dis_fmt_never for format g (g < 64) asked (the answers: fnever) */
    uint64_t snever, sknown;    /* bit s: tsr_dis_slot_never for slot s (s < 64), asked (sknown) */
    uint64_t *defmask;          /* the fields it has a default for (nw words), and per field the first default's
                                   value masked to the field (nfields values) */
    uint64_t *defval;
};

struct tsr_dis_fast {
    struct fop *op;             /* per op */
    struct fop *fd;             /* per format: its defaults only */
    /* per op, what every bundle part reads, apart from the larger records (16 bytes an op: 66 ops fit
     * in 17 cache lines, their records in 75; cachegrind: 5 % fewer first-level data misses, first sight) */
    struct fhot {
        uint64_t fnever;        /* bit g: tsr_dis_fmt_never for format g (g < 64), where fop.fknown has bit g */
        uint8_t bnever;         /* tsr_dis_before_never + 1 (0: not asked yet) */
    } *hot;
    struct tsr_fx_pl *pl;       /* per place (isa->fx->nplaces) */
    void **pk;                  /* per pair (isa->fx->npks): struct fpk, made on first use */
    uint16_t *pkf;              /* per pair: dis_fx.h tsr_fx.pkf, pkm */
    uint64_t *pkm;
    uint64_t *nm, *mm;          /* per place: dis_fx.h tsr_fx.nm, mm */
    uint16_t *opk;              /* per op, per template part j < TSR_FX_LALT: the pair of the operand there with its
                                   first alternative (dis_fx.h: pairs numbered op by op, operand part by operand part,
                                   alternative by alternative); TSR_FX_PK_NONE: not an operand, or one whose pairs
                                   fslot leaves out (of more than 255 alternatives, which lalt[] cannot tell apart,
                                   or numbered past 16 bits) */
    uint64_t *fmask;            /* per format: its fields, nw words each */
    size_t nw;
    uint64_t before[64];        /* per format g < 64: bit h for each format h < g */
    uint64_t few[MAX_PARTS + 1];   /* per count of parts: bit g for each format g < 64 of fewer slots */
    struct tsr_fx_shapes *sh;   /* the tail per bundle shape (dis_fshape.h), made on first use */
    bool semi_free;             /* no bundle part's text can hold ';' (semi_free()) */
    /* the checkers' state and the arrays it points to, their bundle-independent members set once */
    struct tsr_fx X;
    uint64_t bound[16];
    uint16_t eq[64];
    unsigned pop[MAX_PARTS];
    uint8_t pw[MAX_PARTS];
    size_t plead[MAX_PARTS];
    bool leads;                 /* pw[], plead[] hold the current bundle's (fx_leads) */
};

uint64_t tsr_fx_pk_bnever_slow(struct tsr_fx *X, uint32_t pk, unsigned a, const struct tsr_tc_slot *S, uint64_t m);

/* fpk.bnever for pair pk of op a (of slot S), decided for the ops of mask m (positions in S) not yet asked (kept
 * in the pair's fpk, made on first use). */
static inline uint64_t tsr_fx_pk_bnever(struct tsr_fx *X, uint32_t pk, unsigned a, const struct tsr_tc_slot *S,
                                        uint64_t m)
{
    const struct fpk *A = X->pk[pk];
    return A && !(m & ~A->bknown) ? A->bnever : tsr_fx_pk_bnever_slow(X, pk, a, S, m);
}

#endif
