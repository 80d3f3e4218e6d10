/* Internals of the simulator emitter (gen/emit_sim.c drives, gen/emit_sim_sem.c compiles semantics).
 * Not a public interface.
 *
 * Compilation model (see docs/sim.md): every value of the semantics language is compiled to a C
 * expression text that is either uniform (one uint32_t for all lanes) or varying: an expression in the
 * lane index `l` (evaluated inside `for (int l = 0; l < LANES; l++)` loops, one per statement) and, when
 * the operations allow, also a vector expression (`vt`, type sim_v: 4 lanes, GNU vector extension) in the
 * chunk index `q`, which is what gets emitted then.  Anything with an effect (hook calls, hazard and range
 * checks) or that needs whole vectors (cross-lane built-ins) is emitted as statements before the value is
 * used ("pre-statements"), in evaluation order, nested inside C `if`s where the language evaluates lazily
 * (mdl/eval.h gives the rules; the evaluator is the reference).  Uniform conditions become C `if`s,
 * lane-wise ones lane masks (uint32_t, bit i = lane i).
 */
#ifndef GEN_EMIT_SIM_H
#define GEN_EMIT_SIM_H

#include <stdbool.h>

#include "arena.h"
#include "diag.h"
#include "fileout.h"
#include "model.h"

/* A compiled value. */
struct sv {
    const char *t;   /* C text: uniform scalar, or per-lane expression in `l` */
    const char *vec; /* if not NULL: C expression of an array holding the lanes (t is vec[l]) */
    bool vary;
    bool stable;     /* vec lives as long as the statement (state, locals, `value`): may be pointed to */
    const char *spbuf; /* a space read's result: vec points to the state, a memo entry, or this buffer */
    const char *vt;  /* if not NULL: the same value as a whole-vector expression (GNU vector extension, sim_v) */
};

struct sg {
    const struct mdl_model *m;
    struct tsr_buf *o;
    struct tsr_diag *d;
    struct tsr_arena ar;
    const char *P;      /* isa name: C prefix */
    const char *UP;     /* the same in upper case (macros) */
    int L;              /* lanes */
    const char *all;    /* all-lanes mask literal */
    bool vec_ok;        /* lanes a multiple of 4: vector forms (sim_v, 4 lanes) are emitted */
    int ntmp;
    int ind;
    int err;
    /* scope */
    const struct mdl_op *op;  /* NULL: format scope */
    int slot;                 /* global slot index of the op (op scope) */
    bool *vary;               /* per local: varying */
    int nloc;
    const char *lv, *lu;      /* C arrays of the scope's varying / uniform locals */
    const char *lp;           /* C array of pointers: locals only bound to an operand point to its lanes */
    bool *ptrloc;             /* per local: represented by lp[i] (NULL: none) */
    const struct mdl_expr **inl; /* per local: a cheap pure definition compiled where the local is read instead
                                    of being stored (NULL: none) */
    const struct sg_guard *gd; /* per local: its definition's guard (NULL: none) */
    const char *altv;         /* C array of the chosen operand alternative per local */
    const char *jparm, *jarg; /* ", const struct sim_fj *J" and ", J" in a description with forwards, else "" */
    const bool *zero_lu;      /* compute stage of a slot: per local, some op of the slot keeps it uniform (lu[i])
                                 and the commit reads it: an op that keeps it elsewhere (varying in lv, an
                                 operand's lanes in lp, inlined where read) zeroes lu[i] too, so that no path
                                 through the two switches reads it unset (gcc -Wmaybe-uninitialized cannot tell
                                 that both switch on the same op); NULL: none */
    const bool *zero_lp;      /* compute stage of a slot: per local, the slot's commit reads an op's operand lanes
                                 through lp[i]: the ops that do not point lp[i] to an operand set it to NULL (the
                                 reason of zero_lu); NULL: none */
    const char *mask;         /* current lane mask variable; NULL = all lanes */
    const char *chk;          /* C condition: latency and guard checks apply (compute stage: "1", commit: "0",
                                 space functions: their `chk` parameter) */
    const char *code;         /* `addr` in a space entry (uniform C text) */
    const char *value;        /* `value` in a space write entry (C array) */
    bool *fidx;               /* per field: read in a regfile index that is not checked (its range keeps it in
                                 bounds): the descriptor's exec masks it to its width */
    bool *fread;              /* per field: the simulator reads it from struct <t>_inst (a derived field: the
                                 fields that hold its bits); the descriptor's exec copies only these */
    bool *known;              /* per field: value known in this scope (format selector, op encoding) */
    uint64_t *kval;
    /* repeated pure subexpressions of the statement being compiled: kept in a temporary of the block where
     * first computed (lazily), reused while that block is open */
    int ncse, capcse;
    struct sg_cse { const struct mdl_expr *e; uint64_t h; struct sv v; bool bound; int count, blkid; } *cse;
    int blk[256], nblk, blkseq;  /* open C blocks (ids), innermost last */
    /* operand functions sim_opnd_N: (instantiated operand, attributes of the binding op) */
    int nopfn, capopfn;
    struct sg_opfn { int opnd; uint64_t attrs; } *opfn;
    struct tsr_buf *parts;    /* the op bodies of <isa>_sim_exec as functions sim_part_N (sg_part), written
                                 before it */
    int nparts;
    const char *defer;        /* (addition, X6) compiling a value written into a forward: the C name of its struct
                                 tsr_fwd_stale, where latency hazards are recorded instead of reported (NULL: none) */
};

/* ---- small helpers ---- */
/* Compiled values: uniform; varying (lane text, optional array); varying in an array that lives as long as the
 * statement; varying with a vector form. */
static inline struct sv U(const char *t) { return (struct sv){t, NULL, false, false, NULL, NULL}; }
static inline struct sv V(const char *t, const char *vec) { return (struct sv){t, vec, true, false, NULL, NULL}; }
static inline struct sv VS(const char *t, const char *vec) { return (struct sv){t, vec, true, true, NULL, NULL}; }
static inline struct sv VV(const char *t, const char *vt) { return (struct sv){t, NULL, true, false, NULL, vt}; }
/* Emitted loops over the lanes (`l`) and the 4-lane chunks (`q`): sg_line(g, LOOP "...", g->L, ...). */
#define LOOP "for (int l = 0; l < %d; l++) "
#define QLOOP "for (int q = 0; q < %d; q++) "

/* ---- emit_sim_util.c ---- */
char *sg_fmt(struct sg *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One line at the current indentation; tracks the C blocks it opens ('{' last) and closes ('}' first). */
void sg_line(struct sg *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int sg_error(struct sg *g, struct mdl_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *sg_tmp(struct sg *g, const char *prefix);
static inline const char *M(struct sg *g) { return g->mask ? g->mask : g->all; } /* the current lane mask */
static inline void sg_open(struct sg *g) { sg_line(g, "{"); g->ind++; }
static inline void sg_close(struct sg *g) { g->ind--; sg_line(g, "}"); }
/* An error exit of the emitted code: { rc = CALL; goto out; } */
static inline void fail(struct sg *g, const char *call) { sg_line(g, "{ rc = %s; goto out; }", call); }
/* One op's case body (`body`: emit_op's text, ending in its `break;` at indentation `ind`) as a function
 * `sim_part_N` written to g->parts, `what` its comment; returns N and sets *args to the call's arguments after
 * `S, I, pc` (the format's locals the body names).  docs/sim.md "How the simulator is generated". */
int sg_part(struct sg *g, const struct tsr_buf *body, int ind, const char *what, const char **args);
/* The vector form of v (sim_v over chunk q; uniform values broadcast, arrays load), or NULL. */
const char *sg_vt(struct sg *g, struct sv v);
/* Stores v into array dst (the lanes of mask when not NULL), as vectors when it can. */
void sg_store(struct sg *g, const char *dst, struct sv v, const char *mask);
const char *sg_vec(struct sg *g, struct sv v);   /* an array holding v (materialised if needed) */
const char *sg_uni(struct sg *g, struct sv v);   /* v's uniform value: lane 0 if it varies */
const char *sg_mask(struct sg *g, struct sv v);  /* a mask variable: lanes of the current mask where v != 0 */
bool sg_simple_text(const char *t);
struct sv sg_hoist(struct sg *g, struct sv v);   /* a uniform value used in a loop, into a scalar first */
bool sg_cheap(const struct mdl_expr *e);         /* no out-of-line calls, tables or space reads */
bool sg_const_index(const struct mdl_expr *e, uint64_t *v);
bool sg_vary(const struct sg *g, const struct mdl_expr *e, const bool *vary, int nloc);
/* True and *v if e has one value in every lane whenever the scope runs (constants, known fields, attr). */
bool sg_fold(struct sg *g, const struct mdl_expr *e, uint32_t *v);

/* ---- emit_sim_acc.c ---- */
void sg_hook_call(struct sg *g, int h, const char *kind, const char **args, int nargs, const char *v,
                  const char *guard_state, const char *guard_elem);
struct sv sg_read_state(struct sg *g, int s, const struct mdl_expr *index);
struct sv sg_space_read(struct sg *g, int sp_i, const char *addr);
void sg_state_write(struct sg *g, int s, const char *idx, struct sv v);
void sg_space_write(struct sg *g, int sp_i, const char *addr, const char *val);

/* ---- emit_sim_sem.c ---- */
void sg_cse_begin(struct sg *g, const struct mdl_expr *const *es, int n);
void sg_cse_end(struct sg *g);
/* The shared subexpression entry of e (same node or an equal expression used twice or more), or NULL. */
struct sg_cse *sg_cse_entry(struct sg *g, const struct mdl_expr *e);

/* Varying analysis of a scope's locals: vary[0..nloc-1] (for an op: with its slot's commit). */
void sg_analyse_op(struct sg *g, const struct mdl_op *op, const struct mdl_slot *sl, bool *vary, int nloc);
void sg_analyse_format(struct sg *g, const struct mdl_format *f, bool *vary, int nloc);
/* Locals that may be read before they are assigned in every lane (need zeroing): need[0..nloc-1]. */
void sg_need_init_op(struct sg *g, const struct mdl_op *op, const struct mdl_slot *sl, bool *need, int nloc);
void sg_need_init_format(struct sg *g, const struct mdl_format *f, bool *need, int nloc);
/* The op's locals whose only assignment is a cheap, pure, unmasked definition in its sem (inl[i] = that
 * expression): they are computed where they are read (e.g. a carry only the flag update reads). */
void sg_inline_locals(struct sg *g, const struct mdl_op *op, const struct mdl_slot *sl, const bool *ptrloc,
                      const struct mdl_expr **inl, int nloc);
/* A local whose definition (let, a statement of the op's sem) is pure and read only where cond holds (pol) or
 * fails (!pol), cond being a condition on fields and constants (the same value at the definition and at every
 * read): the definition is computed only under that condition (its value elsewhere is never observed, and a
 * pure expression reports nothing).  let NULL: none. */
struct sg_guard { const struct mdl_stmt *let; const struct mdl_expr *cond; bool pol; };
void sg_guard_locals(struct sg *g, const struct mdl_op *op, const struct mdl_slot *sl, const bool *ptrloc,
                     const struct mdl_expr **inl, struct sg_guard *gd, int nloc);
/* Structural equality of two expressions (kinds, types, operators, indices, values, operands). */
bool sg_expr_eq(const struct mdl_expr *a, const struct mdl_expr *b);
/* Locals of op `op` (with its slot's commit). */
int sg_op_nloc(const struct mdl_op *op, const struct mdl_slot *sl);
/* Known fields for an op's code (g->known, g->kval): the format's, and the op's binding encode conditions. */
void sg_op_known(struct sg *g, const struct mdl_op *op, const bool *fknown, const uint64_t *fkval);
/* Per local of slot sl's ops: some op keeps it uniform and the slot's commit reads it (g->zero_lu), or NULL when
 * no local is so (fknown, fkval: the format's known fields). */
const bool *sg_commit_uniform_reads(struct sg *g, const struct mdl_slot *sl, const bool *fknown, const uint64_t *fkval);
/* Marks the locals that statements assign (let or assignment). */
void sg_assigned_locals(struct mdl_stmt **s, int n, bool *assigned, int nloc);
/* Highest local index used by statements (-1 if none). */
int sg_max_local(struct mdl_stmt **s, int n);
/* Writes (log entries) a statement list can make at most; space reads it can make at most. */
int sg_count_writes(struct mdl_stmt **s, int n);

/* Compiles statements of the current scope (emit_sim_stmt.c). */
void sg_stmts(struct sg *g, struct mdl_stmt **s, int n);
int sg_opnd_fn(struct sg *g, int opnd, uint64_t attrs);
void sg_opnd_body(struct sg *g, int fn);
/* Binds the current op's operands (template order): chooses alternatives, reads values. */
void sg_bind_operands(struct sg *g);
/* Compiles an expression (pre-statements are emitted to g->o). */
struct sv sg_expr(struct sg *g, const struct mdl_expr *e);
/* Field i is read from struct <t>_inst by the code being emitted: g->fread (a derived field: the fields that
 * share a word bit with it). */
void sg_mark_field_read(struct sg *g, int i);
/* The bodies of a space's read / write function (static int sim_rd_N / sim_wr_N, see emit_sim.c). */
void sg_space_read_body(struct sg *g, int space);
void sg_space_write_body(struct sg *g, int space);
/* (emit_sim_io.c) The descriptor's outputs, print formats and spaces (tables; d_space_read / d_space_write, after
 * the space functions and sim_bit), and the descriptor members that name them. */
void sg_emit_io_tables(struct sg *g);
void sg_emit_io_funcs(struct sg *g);
const char *sg_io_desc_members(struct sg *g);
/* ---- emit_sim_header.c: gen_sim_header and what gen_sim shares with it ---- */
/* 0, or -1 with an error in d: a state named like a C keyword or a member of struct <t>_sim, no scalar `pc`, lanes
 * outside 1..32, or words that are not whole 32-bit words. */
int sg_check_names(const struct mdl_model *m, struct tsr_diag *d);
void sg_upper(char *dst, const char *src, size_t n);   /* src in upper case into dst[n], truncated */
/* 1: hook h's typed prototype has a vector parameter; *in / *out: written / read by it. */
bool sg_hook_vec(const struct mdl_model *m, int h, bool *in, bool *out);
/* ---- emit_sim_support.c ---- */
/* <t>_sim.c's support: state tables, vector helpers, init/fini/reset, state accessors, tables' values, write log,
 * memo, <t>_sim_write, hook wrappers. */
void sg_emit_support(struct sg *g);
/* ---- emit_sim_fwd.c (addition, X6): forwards; nothing for a description without them ---- */
void sg_fwd_members(const struct mdl_model *m, struct tsr_buf *o);   /* struct <t>_sim's rings and staging entries */
void sg_fwd_support(struct sg *g);            /* sim_fwd_init, sim_fwd_begin, sim_fwd_end */
struct sv sg_fwd_read(struct sg *g, const struct mdl_expr *e);       /* MDL_E_FWD */
void sg_fwd_write(struct sg *g, const struct mdl_stmt *s);           /* MDL_S_ASSIGN to a forward */
void sg_fwd_desc_tables(struct sg *g);        /* sim_fwds, d_fwd_ring */
const char *sg_fwd_desc_members(struct sg *g);
/* Known field values of a scope from conditions `FIELD == constant` (&&-conjuncts of e). */
void sg_learn_fields(struct sg *g, const struct mdl_expr *e);

#endif
