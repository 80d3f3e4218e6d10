/* Shared by the validator's emitters: gen/emit_validate.c (the events of a bundle, the driver) and
 * gen/emit_validate_rules.c (pattern matchers, the rule and resource tables, the descriptor). */
#ifndef GEN_EMIT_VALIDATE_H
#define GEN_EMIT_VALIDATE_H
#include <stdbool.h>

#include "diag.h"
#include "fileout.h"
#include "model.h"

#define TSR_V_MAXDIST_GEN 64   /* TSR_V_MAXDIST of runtime/validate/validate.h */

struct vg {
    const struct mdl_model *m;
    struct tsr_buf *out;
    struct tsr_diag *d;
    int ind;
    int gate;          /* the current gate variable: g<gate> */
    int ngate;         /* gate variables used in the current function */
    int op;            /* the op whose code is emitted (-1: a format's semantics) */
    bool match;        /* emitting a pattern matcher: attr() tests the event's op (e->op) at run time */
    bool attr_used;    /* ... and needs the table v_op_attrs */
    int slot;          /* its slot (-1: format) */
    bool commit;       /* in a commit block: reads are not events */
    bool *tab_used;    /* by table: a lookup function is needed */
    int site;          /* counter of use sites (origins) */
    const char *addr;  /* the C name of `addr` (space entry expressions), or NULL */
    int err;
    /* locals of the current op (or format) assigned exactly once, at the top level of its `sem`: their value
     * stands for them in conditions (a branch's `taken`) */
    const struct mdl_expr **def;
    int ndef;
    int depth;         /* expansion depth of such definitions */
};

/* One line of C at the current indentation (printf format), and an empty line. */
void vg_line(struct vg *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void vg_blank(struct vg *g);
/* Whether e is known from the bundle's fields (and the pc, the executing op's attributes, `addr`), and its value
 * as a C expression (uint64_t; u32 values 0..2^32-1, i32 sign-extended, bools 0/1). */
bool vg_known(const struct vg *g, const struct mdl_expr *e);
void vg_kexpr(struct vg *g, const struct mdl_expr *e, struct tsr_buf *o);
/* A C expression (int) for the three-valued truth of e: 0 false, 1 true, 2 depends on machine state
 * (emit_validate_known.c). */
void vg_truth(struct vg *g, const struct mdl_expr *e, struct tsr_buf *o);
/* The rule matchers, the rule and resource tables, the name tables, `const struct tsr_vdesc <t>_vdesc` and
 * `<t>_validate` (emit_validate_rules.c); then the table lookups the known values used (after the body). */
void vg_rules(struct vg *g, const char *lo);
void vg_tables(struct vg *g);
#endif
