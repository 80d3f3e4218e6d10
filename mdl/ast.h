/* The syntax tree of a description (.mdl), as the parser (parse.y) builds it and the checker (check*.c) reads it.
 *
 * Everything lives in the parse arena (struct mdl_pctx.arena), freed when mdl_load returns; names are interned
 * in the model's intern table, so they compare by pointer. Nothing here is resolved: names are names.
 * Lists are struct ast_vec (a growable array of pointers in the arena).
 */
#ifndef MDL_AST_H
#define MDL_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arena.h"
#include "intern.h"
#include "diag.h"
#include "model.h"

struct ast_vec { void **v; int n, cap; };

/* A token as the lexer hands it to the parser (lemon's %token_type). */
struct mdl_tok {
	const char *s;          /* IDENT: interned name; STRING: decoded text (NUL-terminated, arena) */
	int len;                /* STRING: decoded length in bytes */
	const int *cols;        /* STRING: source column of each decoded byte (len + 1 entries: the last is the
	                           closing quote), or NULL when the string has no escapes (col = loc.col + 1 + i) */
	uint64_t ival;          /* INT */
	double fval;            /* FLOAT */
	const char *text;       /* the token's source text, for "near '...'" (not NUL-terminated) */
	int textlen;
	struct mdl_loc loc;     /* position of the first character */
};

struct ast_name { const char *s; struct mdl_loc loc; };
/* A field's `print KIND` clause (docs/mdl.md "Fields"): the kind as written, checked by ast_field. */
struct ast_fprint { bool present; struct ast_name kind; };
/* (addition) A state's, regfile's or space's attributes (docs/mdl.md "Machine state"): `output` (tessera sim prints it
 * after a run) and `print KIND` (hex or float: how its 32-bit values are printed); checked by ast_state_attrs. */
struct ast_sattrs { bool output, print; struct mdl_loc output_loc; struct ast_name kind; };
struct ast_str { const char *s; int len; const int *cols; struct mdl_loc loc; };
/* (addition) An item of the `asm { ... }` block: KEY then names and strings (docs/asm.md "Declared syntax"). */
struct ast_asmarg { bool str; struct ast_name name; struct ast_str s; };
struct ast_asmitem { struct ast_name key; struct ast_vec args; };

/* ---- expressions and statements ---------------------------------------------------------------------- */
enum ast_ekind { AE_INT, AE_FLOAT, AE_NAME, AE_INDEX, AE_CALL, AE_UN, AE_BIN, AE_COND };
struct ast_expr {
	enum ast_ekind kind;
	int op;                     /* AE_UN: '-', '~', '!'; AE_BIN: as in model.h (MDL_OP_* for two-char ones) */
	const char *name;           /* AE_NAME, AE_INDEX, AE_CALL */
	uint64_t ival; double fval; /* AE_INT, AE_FLOAT */
	struct ast_expr *a[3];      /* operands; AE_INDEX: a[0] = index */
	struct ast_vec args;        /* AE_CALL: struct ast_expr * */
	struct mdl_loc loc;         /* operator position for AE_UN/AE_BIN/AE_COND, else the first token */
	int depth;                  /* levels of nesting (a leaf is 1); at most MDL_MAX_DEPTH */
	bool has_age;               /* (addition) X6: AE_NAME / AE_INDEX read `@age` (a forward) */
	int64_t age; struct mdl_loc age_loc;
};
#define MDL_MAX_DEPTH 256

enum ast_skind { AS_LET, AS_ASSIGN, AS_IF, AS_HOOK, AS_CALL, AS_BLOCK, AS_ABORT /* (addition) */ };
struct ast_stmt {
	enum ast_skind kind;
	struct ast_name name;       /* LET/ASSIGN target, HOOK/CALL callee */
	struct ast_expr *index;     /* ASSIGN: `name[index] = e` (NULL for `name = e`) */
	struct ast_expr *e;         /* LET/ASSIGN value, IF condition */
	struct ast_vec args;        /* HOOK/CALL arguments (struct ast_expr *) */
	struct ast_stmt *then, *els;
	struct ast_vec body;        /* BLOCK: struct ast_stmt * */
	struct mdl_loc loc;
	struct ast_expr *mask;      /* (addition) ASSIGN `... mask m`: the component mask (NULL: none) */
	struct ast_str msg;         /* (addition) ABORT: the message */
	bool has_ages;              /* (addition) X6: ASSIGN `... ages L..H` (a forward write's read window) */
	int64_t ages_lo, ages_hi; struct mdl_loc ages_loc;
};

/* ---- declarations -------------------------------------------------------------------------------------- */
struct ast_piece { int64_t hi, lo; bool inverted; struct mdl_loc loc; };
struct ast_range { int64_t lo, hi; struct mdl_loc loc; };
/* A table entry name: `ra{0..31}` has a range, `tmurs` and `"-"` do not. */
struct ast_tname { struct ast_str str; bool range; int64_t lo, hi; };
struct ast_tentry {
	bool numeric;               /* CODES => value */
	struct ast_vec names;       /* struct ast_tname *: NAME | NAME ... = code */
	struct ast_expr *code;      /* name entry: the (first) code */
	struct ast_vec codes;       /* numeric entry: struct ast_range * */
	struct ast_expr *value;     /* numeric entry: value expression in `code` */
	struct mdl_loc loc;
};
struct ast_default { struct ast_name field; struct ast_expr *e; struct mdl_loc loc; };
struct ast_tmpl;            /* template.c */
struct ast_alt {
	struct ast_str tmpl;
	struct ast_tmpl *parsed;    /* filled lazily by the checker (mdl_template_parse) */
	bool tmpl_done;
	struct ast_vec conds;       /* struct ast_expr * */
	struct ast_expr *read;      /* NULL if none */
	struct ast_expr *write;     /* place written: AE_NAME or AE_INDEX (NULL if none) */
	struct mdl_loc loc;
	struct ast_vec uses;        /* (addition) struct ast_use * */
	struct ast_expr *wmask;     /* (addition) `write PLACE mask e`: the component mask (NULL: none) */
};
enum ast_sekind { ASE_STATE, ASE_HOOK, ASE_NONE };
struct ast_sentry {
	struct ast_vec codes;       /* struct ast_range * */
	bool write;
	enum ast_sekind kind;
	struct ast_expr *place;     /* ASE_STATE: AE_NAME (scalar) or AE_INDEX (element) */
	struct ast_name hook;       /* ASE_HOOK */
	struct ast_expr *value;     /* write ASE_STATE: `= value` (NULL if absent) */
	struct ast_vec args;        /* ASE_HOOK */
	struct mdl_loc loc;
	struct ast_vec uses;        /* (addition) struct ast_use * */
};
/* (addition) Resources, events and rules (docs/mdl.md "Resources and hazards"). */
struct ast_use { struct ast_name res; struct ast_expr *value; struct mdl_loc loc; };   /* `R` or `R = value` */
enum ast_evkind { AEV_READ, AEV_WRITE, AEV_USE, AEV_OP, AEV_JUMP, AEV_HALT, AEV_START, AEV_NAMED, AEV_GROUP };
struct ast_evterm {
	enum ast_evkind kind;
	struct ast_name name;       /* READ/WRITE: state or space; USE: resource; OP: op; NAMED: event */
	bool has_codes; struct ast_vec codes;   /* READ/WRITE `[codes]`: struct ast_range * */
	struct ast_vec *group;      /* GROUP `( pattern )`: struct ast_evterm * */
	struct ast_vec slots;       /* `in SLOT, ...`: struct ast_name * (modifiers apply to every term of a group) */
	struct ast_vec conds;       /* `if (e)`: struct ast_expr * (several when modifiers repeat) */
	bool conditional;
	struct mdl_loc loc;
};
enum ast_rkind { ARK_LATENCY, ARK_WINDOW, ARK_BUNDLE, ARK_ORDER };

struct ast_isaitem { struct ast_name key; bool is_int; uint64_t ival; struct ast_name sval; struct mdl_loc loc; };

enum ast_dkind { AD_ISA, AD_FIELD, AD_TABLE, AD_FORMAT, AD_SLOT, AD_OPERAND, AD_OP, AD_STATE, AD_REGFILE,
                 AD_GUARD, AD_SPACE, AD_FUNC, AD_HOOK, AD_RESOURCE, AD_EVENT, AD_RULE,
                 AD_FORWARD /* (addition) X6: count (0 = scalar), ref = type, rlo..rhi = age window */ };
struct ast_decl {
	enum ast_dkind kind;
	struct ast_name name;
	struct mdl_loc loc;             /* the keyword */
	struct ast_vec items;           /* ISA: ast_isaitem*; TABLE: ast_tentry*; OPERAND: ast_alt*; SPACE: ast_sentry* */
	struct ast_vec pieces;          /* FIELD: ast_piece*; FORMAT: ignore ranges */
	bool is_signed;                 /* FIELD */
	int print;                      /* FIELD: enum mdl_print (MDL_PRINT_DEFAULT when not declared) */
	struct ast_expr *expr;          /* FORMAT selector (NULL = always); GUARD element; FUNC body */
	struct ast_vec names;           /* FORMAT: fields (ast_name*); OP: attributes */
	struct ast_vec slots;           /* FORMAT: slots (ast_name*) */
	struct ast_vec defaults;        /* FORMAT, OP: ast_default* */
	struct ast_vec sem, commit;     /* FORMAT, OP (sem), SLOT (commit): ast_stmt* */
	bool has_sem, has_commit;
	struct ast_vec conds;           /* OP: encode (ast_expr*) */
	struct ast_str syntax; bool has_syntax;   /* OP */
	struct ast_tmpl *parsed;        /* OP: parsed syntax template */
	struct ast_name ref;            /* SLOT default op; OP slot; STATE/REGFILE type; GUARD hook */
	struct ast_vec params;          /* OPERAND, FUNC, HOOK: ast_name* */
	uint64_t count;                 /* REGFILE, SPACE: element count */
	int64_t latency; bool has_latency;   /* REGFILE */
	bool returns;                   /* HOOK */
	bool output;                    /* (addition) STATE, REGFILE, SPACE: `output` */
	int sprint;                     /* (addition) STATE, REGFILE: `print KIND`, enum mdl_print (DEFAULT: none) */
	/* (addition) resources, events and rules; `uses` of formats and ops */
	struct ast_vec uses;            /* FORMAT, OP: struct ast_use * */
	struct ast_vec pats;            /* EVENT: one pattern; RULE: A, B (LATENCY, WINDOW) or all (BUNDLE); each a
	                                   struct ast_vec * of struct ast_evterm * */
	enum ast_rkind rkind;           /* RULE */
	bool same, has_max;             /* RULE (LATENCY) */
	int64_t rlo, rhi;               /* RULE: LATENCY min/max, WINDOW lo..hi; RESOURCE: count (rlo, -1 = none) */
	struct ast_str refstr; bool has_ref;   /* RESOURCE, RULE: `ref "..."` */
	/* (addition) X7 (docs/mdl.md "One op for several slots"): OP: every slot of `op NAME : S1 | S2 ...`
	 * (ast_name*; the checker makes one instance per slot, each with ref = its slot); SLOT: `with(ALIAS = FIELD,
	 * ...)` (struct ast_alias *), names an op instance for this slot and the slot's commit see as those fields. */
	struct ast_vec oslots;
	struct ast_vec aliases;
	/* (addition) X7 wide op: OP declared with `+` (oslots lists its slots, the first its home); the checker
	 * (ck_expand_ops) keeps one op for the home slot and adds a *span* op for each other slot: span_home is then
	 * the home op's declaration (a span op has no text, conditions, defaults, uses or sem of its own) */
	bool wide;
	struct ast_decl *span_home;
	/* (addition) X4: FIELD `field F = { G, H[3:0], ~K[5] }`: the constituents (struct ast_cpiece *), first most
	 * significant; empty for a field of word bits */
	struct ast_vec cpieces;
	bool indexed;                   /* (addition) X6 FORWARD: declared with `[N]` (count N), else a scalar */
};
/* One constituent of a composite field: a field, whole or sliced (hi..lo of its value bits), possibly inverted. */
struct ast_cpiece { struct ast_name field; bool slice; int64_t hi, lo; bool inverted; struct mdl_loc loc; };
/* `ALIAS = FIELD`, or `ALIAS = INT` (is_const: the slot's constant, e.g. which unit a shared op runs in) */
struct ast_alias { struct ast_name alias, field; bool is_const; int64_t val; };

/* ---- parse context --------------------------------------------------------------------------------------- */
/* Shared by lexer, parser, template parser and checker: where diagnostics go, where memory comes from. */
struct mdl_pctx {
	const char *file;               /* path as given (interned) */
	struct tsr_arena *arena;        /* AST memory */
	struct tsr_intern *intern;
	struct tsr_diag *diag;
	int errors;                     /* errors reported through mdl_error */
	uint64_t *seen; int nseen, capseen; /* hashes of the diagnostics reported (malloc'd), to drop repeats */
	/* parser state */
	bool syntax_error;              /* set by %syntax_error for the token just fed */
	bool overflow;                  /* parser stack overflow: stop */
	bool eof_reported;              /* a lexical error ran to the end of input (no syntax error there) */
	bool too_deep;                  /* an expression nested more than MDL_MAX_DEPTH levels was reported */
	bool accepted;
	struct ast_vec decls;           /* ast_decl*, in source order */
	struct ast_decl *cur;           /* the declaration whose items are being parsed */
	bool conds_mode;                /* parsing a template hole's conditions (TCONDS) */
	struct ast_vec *conds_out;      /* TCONDS mode: the parsed condition list */
	struct mdl_loc tok_loc;         /* position of the token being fed to the parser */
	const char *err_prefix;         /* (addition) X7: put before every message while an op instance of a
	                                   several-slot op is checked ("op 'add', instance for slot 'a1': "), or NULL */
	/* (addition) the `asm { ... }` blocks: how many, where the first is, their items (ast_asmitem*) in order */
	int nasm; struct mdl_loc asm_loc; struct ast_vec asm_items;
};

/* Reports an error at loc (file:line:col: error: ...), once: an identical diagnostic (same position and text)
 * reported again is dropped. Returns -1. */
int mdl_error(struct mdl_pctx *c, struct mdl_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void mdl_pctx_fini(struct mdl_pctx *c);

/* ---- AST construction (called from parse.y's actions) ------------------------------------------------------ */
void ast_push(struct tsr_arena *a, struct ast_vec *v, void *x);
struct ast_vec *ast_vec1(struct mdl_pctx *c, void *x);          /* new list holding x (x may be NULL: empty) */
struct ast_vec *ast_vadd(struct mdl_pctx *c, struct ast_vec *v, void *x);  /* appends, returns v */
struct ast_name *ast_pname(struct mdl_pctx *c, struct ast_name n);
struct ast_name ast_name(struct mdl_tok t);
struct ast_str ast_str(struct mdl_tok t);

struct ast_expr *ast_int(struct mdl_pctx *c, struct mdl_tok t);
struct ast_expr *ast_float(struct mdl_pctx *c, struct mdl_tok t);
struct ast_expr *ast_ename(struct mdl_pctx *c, struct ast_name n);
struct ast_expr *ast_index(struct mdl_pctx *c, struct ast_name n, struct ast_expr *i);
struct ast_expr *ast_call(struct mdl_pctx *c, struct ast_name n, struct ast_vec *args);
/* (addition) X4: `name[hi:lo]`, an AE_INDEX with a[0] = hi and a[1] = lo */
struct ast_expr *ast_slice(struct mdl_pctx *c, struct ast_name n, struct ast_expr *hi, struct ast_expr *lo);
struct ast_expr *ast_un(struct mdl_pctx *c, struct mdl_tok op, int opc, struct ast_expr *a);
struct ast_expr *ast_bin(struct mdl_pctx *c, struct mdl_tok op, int opc, struct ast_expr *a, struct ast_expr *b);
struct ast_expr *ast_cond(struct mdl_pctx *c, struct mdl_tok q, struct ast_expr *a, struct ast_expr *b,
                          struct ast_expr *d);

struct ast_stmt *ast_let(struct mdl_pctx *c, struct mdl_tok kw, struct ast_name n, struct ast_expr *e);
struct ast_stmt *ast_assign(struct mdl_pctx *c, struct ast_name n, struct ast_expr *idx, struct ast_expr *e);
struct ast_stmt *ast_if(struct mdl_pctx *c, struct mdl_tok kw, struct ast_expr *e, struct ast_stmt *t,
                        struct ast_stmt *el);
struct ast_stmt *ast_hookstmt(struct mdl_pctx *c, struct mdl_tok kw, struct ast_name n, struct ast_vec *args);
struct ast_stmt *ast_callstmt(struct mdl_pctx *c, struct ast_name n, struct ast_vec *args);
struct ast_stmt *ast_block(struct mdl_pctx *c, struct mdl_tok lb, struct ast_vec *body);
/* (addition) X11: sets the component mask of assignment s (returns s); `abort "message";`. */
struct ast_stmt *ast_mask(struct mdl_pctx *c, struct ast_stmt *s, struct ast_expr *m);
struct ast_stmt *ast_abort(struct mdl_pctx *c, struct mdl_tok kw, struct mdl_tok msg);
/* (addition) X6 forwards: `F@A` on a name or an element (returns e); `... ages L..H` of assignment s (returns s);
 * a declared name with its optional `[N]`; the declaration `forward names : TYPE age LO..HI;` (one AD_FORWARD per
 * name, count 0 for a scalar). */
struct ast_expr *ast_age(struct mdl_pctx *c, struct ast_expr *e, struct mdl_tok age);
struct ast_stmt *ast_ages(struct mdl_pctx *c, struct ast_stmt *s, struct mdl_tok lo, struct mdl_tok hi);
struct ast_fwdname { struct ast_name name; bool indexed; uint64_t count; struct mdl_loc count_loc; };
struct ast_fwdname *ast_fwdname(struct mdl_pctx *c, struct ast_name n, struct mdl_tok *count);
void ast_forward(struct mdl_pctx *c, struct mdl_tok kw, struct ast_vec *names, struct ast_name type, struct mdl_tok lo,
                 struct mdl_tok hi);

/* Declarations: each creates the node, appends it to c->decls and makes it c->cur (the target of the item
 * functions further down). */
struct ast_decl *ast_decl(struct mdl_pctx *c, enum ast_dkind k, struct mdl_tok kw, struct ast_name n);
void ast_field(struct mdl_pctx *c, struct mdl_tok kw, struct ast_name n, struct ast_vec *pieces, bool is_signed,
               const struct ast_fprint *print);
void ast_format(struct mdl_pctx *c, struct mdl_tok kw, struct ast_name n, struct ast_expr *selector);
void ast_slot(struct mdl_pctx *c, struct mdl_tok kw, struct ast_name n, struct ast_name dflt, struct ast_stmt *commit);
/* (addition) X7: `slot NAME with(ALIAS = FIELD, ...) ...`: aliases (struct ast_alias *) of the slot just declared;
 * `op NAME : S1 | S2 ...`: the slots (ast_name *) of the op just declared. */
void ast_slot_aliases(struct mdl_pctx *c, struct ast_vec *aliases);
struct ast_alias *ast_alias(struct mdl_pctx *c, struct ast_name alias, struct ast_name field);
struct ast_alias *ast_alias_const(struct mdl_pctx *c, struct ast_name alias, struct mdl_tok v);
void ast_op_slots(struct mdl_pctx *c, struct ast_name first, struct ast_vec *rest);
/* (addition) X7: the current op was declared `op NAME : S1 + S2 ...` (a wide op, docs/mdl.md "Wide ops") */
void ast_op_wide(struct mdl_pctx *c);
/* (addition) X4: the constituents of the composite field just declared; one constituent `[~]G[hi:lo]` (hi, lo
 * NULL: the whole field; lo NULL: one bit). */
void ast_field_composite(struct mdl_pctx *c, struct ast_vec *cpieces);
struct ast_cpiece *ast_cpiece(struct mdl_pctx *c, struct ast_name g, struct mdl_tok *hi, struct mdl_tok *lo, bool inv,
                              struct mdl_loc loc);
void ast_operand(struct mdl_pctx *c, struct mdl_tok kw, struct ast_name n, struct ast_vec *params);
void ast_op(struct mdl_pctx *c, struct mdl_tok kw, struct ast_name n, struct ast_name slot, struct ast_vec *attrs);
void ast_state(struct mdl_pctx *c, struct mdl_tok kw, struct ast_name n, struct ast_name type);
/* (addition) The attributes a of the state, regfile or space just declared; a repeated attribute, `print` on a
 * space or a kind other than hex and float is an error at its place. */
void ast_state_attrs(struct mdl_pctx *c, const struct ast_sattrs *a);
/* (addition) `asm {` (a second block is an error at its keyword), its items, an item's argument. */
void ast_asm(struct mdl_pctx *c, struct mdl_tok kw);
void ast_asm_item(struct mdl_pctx *c, struct ast_name key, struct ast_vec *args);
struct ast_asmarg *ast_asmarg(struct mdl_pctx *c, const struct ast_name *n, const struct mdl_tok *s);
struct ast_sattrs ast_sattrs_join(struct mdl_pctx *c, struct ast_sattrs a, struct ast_sattrs b);
void ast_regfile(struct mdl_pctx *c, struct mdl_tok kw, struct ast_name n, struct mdl_tok count, struct ast_name type,
                 struct ast_expr *latency);
void ast_guard(struct mdl_pctx *c, struct mdl_tok kw, struct ast_name n, struct ast_expr *elem, struct ast_name hook);
void ast_space(struct mdl_pctx *c, struct mdl_tok kw, struct ast_name n, struct mdl_tok count);
void ast_func(struct mdl_pctx *c, struct mdl_tok kw, struct ast_name n, struct ast_vec *params, struct ast_expr *body);
void ast_hookdecl(struct mdl_pctx *c, struct mdl_tok kw, struct ast_name n, struct ast_vec *params, bool returns);

/* (addition) Resources, events, rules and `uses` (docs/mdl.md "Resources and hazards"). */
void ast_resource(struct mdl_pctx *c, struct mdl_tok kw, struct ast_name n, struct mdl_tok *count, struct mdl_tok *ref);
void ast_event(struct mdl_pctx *c, struct mdl_tok kw, struct ast_name n, struct ast_vec *pat);
/* kind ARK_LATENCY: pats A, B, same, lo = min, hi = max (hi NULL: none); ARK_WINDOW: A, B, lo..hi; ARK_BUNDLE: pats. */
void ast_rule(struct mdl_pctx *c, struct mdl_tok kw, struct ast_name n, enum ast_rkind kind, struct ast_vec *pats,
              bool same, struct mdl_tok *lo, struct mdl_tok *hi, struct mdl_tok *ref);
struct ast_use *ast_use(struct mdl_pctx *c, struct ast_name res, struct ast_expr *value);
struct ast_evterm *ast_evterm(struct mdl_pctx *c, enum ast_evkind k, struct mdl_tok kw, struct ast_name *name,
                              struct ast_vec *codes, struct ast_vec *group);
/* Modifiers of a term: `in` slots (slots != NULL), `if (cond)` (cond != NULL), `conditional`. */
struct ast_evterm *ast_evmod(struct mdl_pctx *c, struct ast_evterm *t, struct ast_vec *slots, struct ast_expr *cond,
                             bool conditional);
/* `uses` of the current format or op (fitem/oitem). */
void ast_uses_item(struct mdl_pctx *c, struct ast_vec *uses);

/* Items of the current declaration (c->cur; ignored when it is NULL or of another kind after an error). */
void ast_isa_item(struct mdl_pctx *c, struct ast_name key, struct mdl_tok *ival, struct ast_name *sval);
struct ast_piece *ast_piece(struct mdl_pctx *c, struct mdl_tok hi, struct mdl_tok *lo, bool inv, struct mdl_loc loc);
struct ast_range *ast_range(struct mdl_pctx *c, struct mdl_tok lo, struct mdl_tok *hi);
struct ast_tname *ast_tname(struct mdl_pctx *c, struct mdl_tok s, struct mdl_tok *lo, struct mdl_tok *hi);
void ast_tentry_names(struct mdl_pctx *c, struct ast_vec *names, struct ast_expr *code);
void ast_tentry_num(struct mdl_pctx *c, struct ast_vec *codes, struct ast_expr *value);
/* (addition, X11) A generated table's item (table_gen.c): `NAME = HI[:LO]` (hi, lo; lo = hi for one bit) or
 * `blank "TEXT"` (is_blank, text). */
struct ast_gitem { struct ast_name name; bool is_blank; int64_t hi, lo; struct ast_str text; struct mdl_loc loc; };
struct ast_gitem *ast_gitem(struct mdl_pctx *c, struct ast_name n, struct mdl_tok *hi, struct mdl_tok *lo,
                            struct mdl_tok *text);
/* `table T swizzle(...)` / `table T mask(...)` (docs/mdl.md "Generated tables"): adds the generated name entries
 * to the table being declared, or reports `file:line:col: error: ...` at the item at fault. */
void ast_table_gen(struct mdl_pctx *c, struct ast_name kind, struct ast_vec *items);
void ast_format_item(struct mdl_pctx *c, int what, struct ast_vec *v);   /* what: 'f' fields, 'i' ignore, 's' slots */
void ast_default(struct mdl_pctx *c, struct ast_name f, struct ast_expr *e);
void ast_sem(struct mdl_pctx *c, bool commit, struct ast_vec *stmts, struct mdl_tok kw);
void ast_op_syntax(struct mdl_pctx *c, struct mdl_tok s);
void ast_op_encode(struct mdl_pctx *c, struct ast_vec *conds);
/* Operand alternative: template, conditions, `read e` (or NULL), `write place` (AE_NAME/AE_INDEX, or NULL). */
void ast_alt(struct mdl_pctx *c, struct mdl_tok s, struct ast_vec *conds, struct ast_expr *read,
             struct ast_expr *place);
/* (addition) `uses` of the alternative / space entry just added (uses may be NULL or empty). */
void ast_alt_uses(struct mdl_pctx *c, struct ast_vec *uses);
/* (addition) X11: the `mask e` of the alternative just added. */
void ast_alt_mask(struct mdl_pctx *c, struct ast_expr *m);
void ast_sentry_uses(struct mdl_pctx *c, struct ast_vec *uses);
/* Space entry: place (ASE_STATE: AE_NAME/AE_INDEX) with optional `= value`, or hook(args), or none. */
void ast_sentry(struct mdl_pctx *c, struct ast_vec *codes, bool write, enum ast_sekind k, struct ast_expr *place,
                struct ast_expr *value, struct ast_name *hook, struct ast_vec *args);

#endif
