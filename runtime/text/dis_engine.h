/* The disassembler's state and the small helpers its files share (runtime/text: dis_engine.c, the disassembler;
 * dis_interp.c, the interpreted printer).  Private to runtime/text. */
#ifndef TSR_DIS_ENGINE_H
#define TSR_DIS_ENGINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "asm_engine.h"
#include "dis_exact.h"
#include "dis_path.h"
#include "fileout.h"
#include "text/dis_print.h"
#include "text/textcodec.h"
#include "xalloc.h"


struct dis {
    const struct tsr_tc_isa *isa;
    struct tsr_asm *a;
    void *inst, *inst2;
    uint64_t *labels;          /* label targets printed (current program) */
    size_t nlabels, clabels;
    struct tsr_tc_cache cache; /* disasm_program: word -> text of the words that print no label */
    uint8_t *op_label;         /* per op: its template can print a label (LBL_YES), computed by dis_init */
    uint8_t *opnd_label;       /* per operand: the same (LBL_*), scratch of dis_init */
    bool *fmt_label;           /* per format: one of its slots has an op that can print a label */
    struct tsr_dis_path path;  /* what print_bundle printed (dis_path.h) */
    bool gen;                  /* print with the generated printer (isa->pops), else interpret the templates */
    struct fmax { size_t len, ev, lab; } *fmax;   /* gen: per format, the bounds of a bundle (sum over its slots) */
    tsr_tc_pfmt_fn *pfn;       /* per format, its generated bundle printer, or NULL (not gen, or no slots: the loops) */
    struct tsr_dis_exact *exact;  /* the exactness proof's state (dis_exact.h): the thread's (prover_for) */
    bool verify;               /* TESSERA_DIS_VERIFY set (not "0"): also check the proven bundles, abort on a
                                  difference */
};

enum { LBL_UNKNOWN, LBL_VISITING, LBL_NO, LBL_YES };

/* Keeps a path out of its caller, so that the per-bundle path stays short: NOINLINE a path of its own (a
 * description without generated printers), COLD one rarely taken (laid out of the hot code); INLINE a step of
 * the per-bundle path, into its one caller (no frame of its own). */
#if defined(__GNUC__) || defined(__clang__)
#define TSR_DIS_NOINLINE __attribute__((noinline))
#define TSR_DIS_COLD __attribute__((noinline, cold))
#define TSR_DIS_INLINE static inline __attribute__((always_inline))
#else
#define TSR_DIS_INLINE static inline
#define TSR_DIS_NOINLINE
#define TSR_DIS_COLD
#endif

static inline const uint64_t *fields_of(const struct tsr_tc_isa *isa, const void *inst)
{
    return (const uint64_t *)(const void *)((const unsigned char *)inst + isa->off_f);
}

static inline const uint16_t *ops_of(const struct tsr_tc_isa *isa, const void *inst)
{
    return (const uint16_t *)(const void *)((const unsigned char *)inst + isa->off_op);
}

static inline const uint32_t *ign_of(const struct tsr_tc_isa *isa, const void *inst)
{
    return (const uint32_t *)(const void *)((const unsigned char *)inst + isa->off_ignored);
}

static inline bool cond_holds(const struct tsr_tc_isa *isa, uint32_t first, uint32_t n, const uint64_t *f)
{
    for (uint32_t i = 0; i < n; i++) {
        const struct tsr_tc_cond *c = &isa->conds[first + i];
        bool ok = c->kind == TSR_TC_BIND ? f[c->field] == c->val
                : c->kind == TSR_TC_BIND2 ? f[c->field] == f[c->field2]
                : isa->check(c->id, f);
        if (!ok)
            return false;
    }
    return true;
}

static inline void put(struct tsr_buf *out, const char *s, size_t n)
{
    tsr_buf_append(out, s, n);
}

static inline void truncate_to(struct tsr_buf *out, size_t len)
{
    out->len = len;
    if (out->data)
        out->data[len] = 0;
}

static inline void add_label(struct dis *d, uint64_t t)
{
    if (d->nlabels == d->clabels) {
        d->clabels = d->clabels ? d->clabels * 2 : 64;
        d->labels = tsr_xrealloc(d->labels, d->clabels * sizeof *d->labels);
    }
    d->labels[d->nlabels++] = t;
}

/* Prints op number opi (its template) at the end of out with the interpreted printer (dis_interp.c), recording
 * its events in d->path and the labels it prints in d->labels; false when the template cannot print these
 * fields (then the caller gives the whole bundle up). */
bool tsr_dis_print_op(struct dis *d, unsigned opi, const uint64_t *f, uint64_t pc, struct tsr_buf *out);

#endif
