/* The checker's internals, shared by check*.c and template.c: symbols, scopes, conversion of syntax trees into
 * the model (model.h). Not a public interface: emitters read the model only.
 */
#ifndef MDL_CHECK_H
#define MDL_CHECK_H

#include "ast.h"
#include "model.h"

/* Namespaces: fields, states, regfiles, spaces and funcs share one (they all appear in expressions). */
enum ck_ns { NS_VALUE, NS_TABLE, NS_FORMAT, NS_SLOT, NS_OPERAND, NS_HOOK, NS_INST,
             NS_RULE /* (addition) resources, events and rules share one */ };
enum ck_symkind { SYM_FIELD, SYM_STATE, SYM_SPACE, SYM_FUNC, SYM_TABLE, SYM_FORMAT, SYM_SLOT, SYM_OPERAND, SYM_HOOK,
                  SYM_INST, SYM_RESOURCE, SYM_EVENT, SYM_RULE, SYM_FORWARD /* (addition) X6 */ };
struct ck_sym { const char *name; int ns; int kind; int index; struct mdl_loc loc; struct ast_decl *decl; };

/* Locals of one op/slot/format scope. */
enum ck_lkind { LK_LET, LK_OUTPUT, LK_OPND };
struct ck_locals {
	int n, cap;
	const char **names; enum mdl_type *types; enum ck_lkind *kinds; int *opnd; struct mdl_loc *locs;
	bool *provided;                 /* slot locals: assigned or bound by this op */
	int *vis; int nvis, capvis;     /* indices of the locals visible here (block scoping) */
};

/* What the names of an expression may refer to. */
enum { CX_FIELDS = 1, CX_STATE = 2, CX_LOCALS = 4, CX_ATTR = 8, CX_CODE = 16, CX_ADDR = 32, CX_VALUE = 64 };
struct ck_scope {
	unsigned allow;
	const char *what;               /* "a condition", "a table entry", ... (diagnostics) */
	int nparams; const char **pnames; int *pfields;       /* operand parameters -> fields */
	const int64_t *pconsts;         /* (addition) X8: pfields[i] < 0: parameter i is this constant (pconsts[i]) */
	const struct ast_vec *aliases;  /* (addition) X7: the slot's `with(ALIAS = FIELD)` (struct ast_alias *), or NULL */
	int nfargs; const char **fnames; struct mdl_expr **fargs; bool *flits;   /* func parameters -> arguments */
	struct ck_locals *L;
	int slot;                       /* slot of the op or commit being checked (-1 if none) */
	const char *opname;             /* op being checked (diagnostics), or NULL */
	bool commit;                    /* (addition) X6: a commit block (slot or format `commit`): forwards read at age 0 */
};

struct ck_table_use { int table, field; struct mdl_loc loc; };
struct ck_slotinfo {
	int nloc; const char **names; struct mdl_loc *locs;   /* slot locals: free names of the commit block */
	enum ck_lkind *kinds; int *first_op; int *opnd; bool *provided;   /* as the first op providing each */
	int maxlocals;
};

struct ck {
	struct mdl_pctx *p;
	struct mdl_model *m;
	struct tsr_arena *A;            /* the model's arena */
	struct ck_sym *syms; size_t symcap, nsyms;
	struct ast_decl **fdecl, **tdecl, **formdecl, **slotdecl, **opdecl, **sdecl, **spdecl, **odecl;
	int nodecl;                     /* operand declarations */
	bool *field_bad;                /* by field: its declaration had errors */
	int *func_busy;                 /* by func decl index: being inlined (recursion) */
	int *func_used;                 /* by func decl index: called at least once */
	struct ast_decl **funcdecl; int nfunc;
	int nopnd_cap, nhook_cap, nattr_cap;
	struct mdl_loc *hook_first;     /* where each hook was declared or first used */
	bool *hook_explicit;
	struct ck_table_use *tuses; int ntuses, captuses;
	struct ck_slotinfo *slotinfo;
	long budget;                    /* expression nodes left (func inlining cannot blow up) */
	int depth;                      /* expression conversion depth */
	int64_t table_codes;            /* codes of all tables so far (bounded) */
	long sel_budget;                /* selector evaluations left */
	int64_t space_codes;            /* entries of all spaces so far (bounded) */
	bool jump_used; struct mdl_loc jump_loc;
	/* (addition, X11) the first vec4 value and the first cross-lane built-in (elem, lane, rotate, ...): a
	   description cannot have both (mdl_check) */
	bool vec4_used; struct mdl_loc vec4_loc;
	bool lanefn_used; struct mdl_loc lanefn_loc; const char *lanefn_name;
	/* (addition) X6: the forwards' declarations; whether each is read, written (warnings) */
	struct ast_decl **fwdecl; bool *fwd_read, *fwd_written;
};

/* check.c */
struct ck_sym *ck_lookup(struct ck *k, int ns, const char *name);
struct ck_sym *ck_declare(struct ck *k, int ns, int kind, const char *name, int index, struct mdl_loc loc,
                          struct ast_decl *d);
const char *ck_intern(struct ck *k, const char *s);
void *ck_grow(struct ck *k, void *arr, int n, int *cap, size_t elem);   /* arena array with room for n + 1 */
void *ck_resize(struct ck *k, void *arr, int n, int cap, size_t elem);  /* new arena array of cap, n copied */
int ck_attr(struct ck *k, const char *name, struct mdl_loc loc, bool declare);
int ck_hook(struct ck *k, const char *name, int nargs, int use, struct mdl_loc loc);   /* use: HOOK_* */
enum { HOOK_STMT, HOOK_READ, HOOK_WRITE, HOOK_GUARD };
int ck_field_width_fits(struct ck *k, int field, uint64_t v, enum mdl_type t, struct mdl_loc loc);
char *ck_fmt_bits(struct ck *k, const bool *bits, int nbits);         /* "63:60, 3" (scratch memory) */

/* check_expr.c */
struct mdl_expr *ck_expr(struct ck *k, struct ck_scope *s, const struct ast_expr *a, bool *lit);
struct mdl_expr *ck_bool(struct ck *k, struct ck_scope *s, const struct ast_expr *a);       /* a condition */
struct mdl_expr *ck_value(struct ck *k, struct ck_scope *s, const struct ast_expr *a);      /* any 32-bit value */
struct mdl_expr *ck_int(struct ck *k, struct ck_scope *s, const struct ast_expr *a, const char *what);  /* integer */
int ck_const(struct ck *k, struct ck_scope *s, const struct ast_expr *a, uint64_t *v, enum mdl_type *t);
struct mdl_expr *ck_mk(struct ck *k, enum mdl_ekind kind, enum mdl_type t, struct mdl_loc loc, int nargs);
/* Field named `name` in scope s: operand parameters, then the slot's aliases (X7), then fields. -1 if none (reported
 * when `report`); -2 when name is an operand parameter given a constant (X8), always reported. */
int ck_field_ref(struct ck *k, struct ck_scope *s, const char *name, struct mdl_loc loc, bool report);
const char *ck_type_name(enum mdl_type t);
struct mdl_expr *ck_adapt(struct ck *k, struct mdl_expr *e, bool lit, enum mdl_type t);   /* literal to type t */
struct mdl_expr *ck_not_allowed(struct ck *k, struct ck_scope *s, const char *what, const char *name,
                                struct mdl_loc loc);
bool ck_is_int(enum mdl_type t);

/* check_vec4.c (addition, X11): notes of vec4 values and cross-lane built-ins; the checks of a description with
 * vec4 values (lanes 1, no `vec` state, no cross-lane built-in, no hook returning a value) */
void ck_note_vec4(struct ck *k, struct mdl_loc loc);
void ck_note_lanefn(struct ck *k, const char *name, struct mdl_loc loc);
void ck_vec4_final(struct ck *k);
/* Place checks of a write (X11): a vec4 value v or a `mask` needs a vec4 place, named kind 'name' in the
 * diagnostics ("regfile", "acc").  0 or -1 (reported). */
int ck_vec4_place(struct ck *k, const struct mdl_expr *v, const struct mdl_expr *mask, bool place_vec4,
                  const char *kind, const char *name, struct mdl_loc loc);

/* check_call.c */
struct mdl_expr *ck_call(struct ck *k, struct ck_scope *s, const struct ast_expr *a, bool *lit);
int ck_builtin0(const char *name);           /* a built-in without arguments (elem): its id, else -1 */
bool ck_reserved_name(const char *name);     /* built-in functions, casts, attr, jump, halt */

/* check_stmt.c */
int ck_stmts(struct ck *k, struct ck_scope *s, const struct ast_vec *in, struct mdl_stmt ***out);
int ck_local_add(struct ck *k, struct ck_locals *L, const char *name, enum mdl_type t, enum ck_lkind kind,
                 struct mdl_loc loc);
int ck_local_find(const struct ck_locals *L, const char *name);      /* visible local, or -1 */
void ck_slot_prepass(struct ck *k, int slot);
bool ck_is_global_value(struct ck *k, const char *name);

/* check_cond.c */
int ck_conds(struct ck *k, struct ck_scope *s, const struct ast_vec *in, struct mdl_cond **out);

/* check_slotop.c (addition): X7, one op for several slots and slot scopes */
void ck_expand_ops(struct mdl_pctx *p);          /* `op N : S1 | S2` -> one op declaration per slot (before collect) */
const struct ast_vec *ck_slot_aliases(struct ck *k, int slot);   /* the slot's aliases (NULL if none / no slot) */
bool ck_is_alias(struct ck *k, int slot, const char *name);
const struct ast_alias *ck_alias_const(const struct ck_scope *s, const char *name);   /* check_expr.c; NULL if none */
void ck_slot_alias_check(struct ck *k, int slot); /* aliases name fields, once each */

/* check_composite.c (addition): X4, composite fields and slices */
void ck_composites(struct ck *k);                /* after ck_fields: the pieces of every `field F = { ... }` */
/* The derived field of bits hi..lo of field `field`'s value (made on first use, named "G__hi_lo"); -1 after
 * reporting when the slice is not within the field. */
int ck_slice_field(struct ck *k, int field, int64_t hi, int64_t lo, struct mdl_loc loc);

/* check_opnd.c */
int ck_opnd_instance(struct ck *k, const char *name, const struct ast_vec *args, struct ck_scope *s,
                     struct mdl_loc loc);
bool ck_opnd_readable(struct ck *k, int opnd);
bool ck_opnd_writable(struct ck *k, int opnd);

/* template.c */
struct ast_tmpl;
struct ast_tmpl *mdl_template_parse(struct mdl_pctx *c, const struct ast_str *s);
/* Resolves a parsed template in scope s; in an op (s->L set and allow_opnd) operand holes bind locals. */
int mdl_template_resolve(struct ck *k, struct ck_scope *s, const struct ast_str *src, const struct ast_tmpl *t,
                         bool allow_opnd, struct mdl_template *out);

/* check_enc.c */
void ck_fields(struct ck *k);
void ck_tables(struct ck *k);
void ck_table_ranges(struct ck *k);
void ck_formats(struct ck *k);
void ck_format_layout(struct ck *k);
void ck_selectors(struct ck *k);

/* check_rules.c (addition): resources, `uses`, events and rules (docs/mdl.md "Resources and hazards") */
void ck_resources(struct ck *k);                 /* declares the resources (before anything that says `uses`) */
/* Converts a `uses` list in scope s (reporting every error); returns the number of uses kept (*out non-NULL). */
int ck_uses(struct ck *k, struct ck_scope *s, const struct ast_vec *uses, struct mdl_use **out);
void ck_rules(struct ck *k);                     /* events and rules, ops' delays, regfile latencies (last) */

/* check_attrs.c (addition, X12): the shapes of ops marked `move` (one source, copied) and `commutative` (two
 * sources of one operand, both read); after ck_wide */
void ck_op_shapes(struct ck *k);

/* check_fwd.c (addition, X6): forwards (docs/mdl.md "Forwards") */
void ck_forwards(struct ck *k);                  /* types, element counts, age windows */
/* `F@A` / `F[i]@A` (a->has_age) in scope s: the read, or NULL after reporting. */
struct mdl_expr *ck_fwd_read(struct ck *k, struct ck_scope *s, const struct ast_expr *a);
/* `F = v [ages L..H];` / `F[i] = v ...` when a->name is a forward (*is_fwd set): the write, or NULL after reporting
 * (*is_fwd false: not a forward, nothing reported). */
struct mdl_stmt *ck_fwd_write(struct ck *k, struct ck_scope *s, const struct ast_stmt *a, struct mdl_expr *v,
                              bool *is_fwd);
void ck_fwd_final(struct ck *k);                 /* warnings: a forward never read, never written */
int mdl_warning(struct mdl_pctx *c, struct mdl_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* check_state.c */
void ck_states(struct ck *k);
void ck_spaces(struct ck *k);
/* (addition) check_asm.c: `asm { ... }` into m->syntax */
void ck_asm(struct ck *k);

/* check_op.c */
void ck_slots(struct ck *k);
void ck_ops(struct ck *k);
void ck_commits(struct ck *k);
void ck_op_duplicates(struct ck *k);
/* (addition) X7 wide ops (check_wide.c, docs/mdl.md "Wide ops"): makes the copy c of a wide op's declaration its
 * span op for c->ref (no text, conditions, defaults, uses or sem; home: the home op's declaration). */
void ck_span_decl(struct ast_decl *c, struct ast_decl *home);
/* After ck_commits: links each wide op to its span ops (mdl_op nspan/span, is_span/span_of) and reports a wide op
 * whose slots no one format lists, a span op named as a slot's default. */
void ck_wide(struct ck *k);

/* consteval.c: evaluation at check time with field values (fields[i] = raw code of field i) and `code`/`value`. */
struct mdl_cenv { const uint64_t *fields; bool has_code; uint64_t code; bool has_value; uint64_t value;
                  const struct mdl_model *m; };
/* 0; -1 not constant; -2 invalid (division by zero) */
int mdl_ceval(const struct mdl_expr *e, const struct mdl_cenv *env, uint64_t *out);
uint64_t mdl_cnorm(uint64_t v, enum mdl_type t);

/* check.c: the whole check (called by load.c). Returns the model or NULL after errors. */
int mdl_check(struct mdl_pctx *p, struct mdl_model *m);

#endif
