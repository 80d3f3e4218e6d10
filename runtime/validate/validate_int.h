/* Internals shared by the files of runtime/validate/ (private to this folder): the checks of one bundle and its
 * history (validate.c), used by the whole-program check (validate_prog.c) and the stream (validate.c). */
#ifndef TSR_VALIDATE_INT_H
#define TSR_VALIDATE_INT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "validate/validate.h"

struct ctx {
    const struct tsr_vdesc *D;
    tsr_vreport_fn fn;
    void *fctx;
    size_t count;
    /* reports of the current bundle, to drop repeats from other paths: (rule, other) */
    struct { int rule; size_t other; } *seen;
    int nseen, capseen;
    /* the program check: the (rule, event) pairs of the bundle checked whose second pattern matches */
    const struct vpair { uint16_t rule, ev; } *match;
    int nmatch;
    bool hist;   /* tsr_validate_hist: open windows are checked over the history (else by open_flow/stream) */
};

struct hist {
    const struct tsr_vbundle *b[TSR_V_MAXDIST + 1];   /* b[0] = the bundle checked, b[k] = k back */
    size_t idx[TSR_V_MAXDIST + 1];
    int len;
};

/* calloc that aborts with a message when memory runs out (n or size 0: one byte). */
void *vld_xcalloc(size_t n, size_t size);
/* malloc that aborts with a message when memory runs out (contents undefined). */
void *vld_xmalloc(size_t size);

/* Reports a violation completed by h->b[0]; the earlier instruction is h->b[k]. */
void vld_report(struct ctx *c, const struct hist *h, int rule, int k, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* The same with the earlier instruction given by index and pc (open windows: beyond the history), dist
 * instructions back on the path considered. */
void vld_report_far(struct ctx *c, const struct hist *h, int rule, size_t other, uint32_t other_pc, int dist,
                    const char *fmt, ...) __attribute__((format(printf, 7, 8)));
/* Resources and one-bundle rules of h->b[0]. */
void vld_check_bundle(struct ctx *c, const struct hist *h);
/* Rules between h->b[0] and the bundles before it on the path h (open windows only when c->hist). */
void vld_check_path(struct ctx *c, const struct hist *h);
/* "1..2 instructions apart", "1 or more instructions apart" into buf (n bytes). */
void vld_window_text(const struct tsr_vrule *R, char *buf, size_t n);
/* The first event of b matching p other than b->ev[not] (-1: any), or -1. */
int vld_first_match(const struct tsr_vbundle *b, tsr_vmatch_fn p, int not);

/* An A of an open window far back on a path: event e of instruction `other` at pc, d instructions back. */
struct vld_far { const struct tsr_vev *e; size_t other; uint32_t pc; size_t d; };
/* Open window r at h->b[0]: each B against an A of the same bundle (LO 0) or, if far is not NULL, against
 * the A far (d >= LO). */
void vld_open_report(struct ctx *c, const struct hist *h, int r, const struct vld_far *far);

#endif
