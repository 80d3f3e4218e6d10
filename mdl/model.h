/* The checked machine model: what mdl/ builds from a description and every emitter in gen/ reads.
 *
 * Invariants, established by mdl_check() before any emitter runs (emitters may rely on them):
 *  - every name is resolved: expressions hold indices into the model's arrays, never names to look up;
 *  - user `func`s are inlined, parameterised operands are instantiated per use (struct mdl_opnd);
 *  - every expression carries its type;
 *  - within each format, the listed fields and ignore ranges cover each word bit exactly once;
 *  - every op has a slot that belongs to at least one format, and sem statements;
 *  - arrays are in declaration order (the disassembler's and the decoder's priority order).
 * All memory belongs to the model's arena (mdl_model_free releases it). Strings are interned.
 */
#ifndef MDL_MODEL_H
#define MDL_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include "arena.h"

struct mdl_loc { const char *file; int line, col; };   /* 1-based line and column */

/* ---- expressions ---------------------------------------------------------------------------------- */
enum mdl_type { MDL_T_VOID, MDL_T_U32, MDL_T_I32, MDL_T_F32, MDL_T_F16, MDL_T_BOOL,
                MDL_T_VEC4 /* (addition, X11) four 32-bit components, 0 = x; operators take them as f32 */ };
/* The float domain of an operator: f32 and vec4 operands (docs/mdl.md "Component values"). */
static inline bool mdl_type_float(enum mdl_type t) { return t == MDL_T_F32 || t == MDL_T_VEC4; }

enum mdl_ekind {
	MDL_E_INT,      /* ival (uint64_t; i32 values sign-extended) */
	MDL_E_FLOAT,    /* ival holds the binary32 bits */
	MDL_E_FIELD,    /* index = field; the decoded field value (sign-extended if the field is signed) */
	MDL_E_LOCAL,    /* index = local slot in the enclosing op/slot/format scope (let, op outputs, operand values) */
	MDL_E_STATE,    /* index = state; a scalar state or a regfile element: a[0] = element index (NULL for scalars) */
	MDL_E_SPACE,    /* index = space (read); a[0] = address */
	MDL_E_CODE,     /* `code` inside a table entry / `addr` inside a space entry */
	MDL_E_VALUE,    /* `value` inside a space write entry: the value being written */
	MDL_E_UN,       /* op = '-', '~', '!'; a[0] */
	MDL_E_BIN,      /* op = '+','-','*','/','%','&','|','^', MDL_OP_SHL.. (below); a[0], a[1] */
	MDL_E_COND,     /* a[0] ? a[1] : a[2] */
	MDL_E_CALL,     /* index = enum mdl_builtin; a[0..n-1] */
	MDL_E_ATTR,     /* index = attribute id: 1 if the executing op has it */
	MDL_E_CAST,     /* type = target type; a[0]; conversion rules in docs/mdl.md "Semantics" */
	MDL_E_TABLE,    /* (addition) index = table; a[0] = code: the code's numeric value (tentry.vals), 0 if the code
	                   has no numeric entry. Written `TABLE(code)` (e.g. `smallimm(raddr_b)`); type f32 if every
	                   numeric entry of the table is a float, else u32 (the 32-bit pattern). */
	MDL_E_FWD,      /* (addition, X6) index = forward; a[0] = element index (NULL for a scalar forward); ival = the age A
	                   of `F@A` (a constant within the forward's window; 0 only in commit blocks) */
};
enum { MDL_OP_SHL = 256, MDL_OP_SHR, MDL_OP_EQ, MDL_OP_NE, MDL_OP_LT, MDL_OP_LE, MDL_OP_GT, MDL_OP_GE,
       MDL_OP_LAND, MDL_OP_LOR };

/* Built-in functions of the semantics language; each maps to one function of runtime/arith.h. */
enum mdl_builtin {
	MDL_B_FADD, MDL_B_FSUB, MDL_B_FMUL, MDL_B_FMIN, MDL_B_FMAX, MDL_B_FMINABS, MDL_B_FMAXABS, MDL_B_FABS,
	MDL_B_FNEG, MDL_B_FTOI, MDL_B_ITOF, MDL_B_FGT, MDL_B_FEQ, MDL_B_F16TOF32, MDL_B_F32TOF16,
	MDL_B_UNORM8TOF, MDL_B_F2UNORM8,
	MDL_B_CLZ, MDL_B_MUL24, MDL_B_SHL, MDL_B_SHR, MDL_B_ASR, MDL_B_ROR, MDL_B_MIN, MDL_B_MAX,
	MDL_B_SADD_SAT, MDL_B_SSUB_SAT,
	MDL_B_V8ADDS, MDL_B_V8SUBS, MDL_B_V8MIN, MDL_B_V8MAX, MDL_B_V8MULD, MDL_B_BYTE, MDL_B_BYTES,
	MDL_B_ELEM, MDL_B_LANE, MDL_B_ROTATE, MDL_B_ROTATE_QUAD, MDL_B_QUAD_BCAST, MDL_B_ALL, MDL_B_ANY,
	/* (addition) float functions (runtime/sem.h, precision in docs/sim.md) and X11 component values */
	MDL_B_FLOOR, MDL_B_ROUND, MDL_B_FRACT, MDL_B_RSQRT, MDL_B_RCP, MDL_B_EXP2, MDL_B_LOG2, MDL_B_SIN, MDL_B_COS,
	MDL_B_FMA, MDL_B_COMP, MDL_B_VEC4, MDL_B_SPLAT, MDL_B_SWIZZLE,
	MDL_B_COUNT
};

struct mdl_expr {
	enum mdl_ekind kind;
	enum mdl_type type;      /* set by the checker */
	int op;                  /* MDL_E_UN / MDL_E_BIN operator */
	int index;               /* field, local, state, space, builtin or attribute index */
	int nargs;
	uint64_t ival;
	struct mdl_expr **a;
	struct mdl_loc loc;
};

/* ---- statements ----------------------------------------------------------------------------------- */
enum mdl_skind {
	MDL_S_LET,      /* local = e */
	MDL_S_ASSIGN,   /* target: MDL_E_LOCAL, MDL_E_STATE (element) or MDL_E_SPACE (write through a space) = e */
	MDL_S_WRITE,    /* write through a destination operand: opnd local `local` = e */
	MDL_S_IF,       /* if (e) body else elseb; a lane-wise condition masks the writes inside */
	MDL_S_HOOK,     /* hook call: hook index, args */
	MDL_S_JUMP,     /* jump(e = target in bytes, delay = args[0] constant) */
	MDL_S_HALT,     /* halt(delay = args[0] constant) */
	MDL_S_BLOCK,
	MDL_S_ABORT,    /* (addition) `abort "msg";`: the program stops with an abort report (runtime/sim/sim.h) */
};
struct mdl_stmt {
	enum mdl_skind kind;
	int local;                   /* MDL_S_LET / MDL_S_WRITE */
	int hook;                    /* MDL_S_HOOK */
	struct mdl_expr *target, *e; /* MDL_S_ASSIGN target; value or condition */
	struct mdl_expr **args; int nargs;
	struct mdl_stmt **body; int nbody;   /* MDL_S_IF then-part, MDL_S_BLOCK */
	struct mdl_stmt **elseb; int nelse;
	struct mdl_loc loc;
	struct mdl_expr *mask;       /* (addition) MDL_S_ASSIGN / MDL_S_WRITE `... mask m`: an integer whose bit i lets
	                                component i be written (NULL: every component); the place is vec4 */
	const char *msg;             /* (addition) MDL_S_ABORT: the message */
	int ages_lo, ages_hi;        /* (addition, X6) MDL_S_ASSIGN to a forward (target MDL_E_FWD): the ages the value may
	                                be read at (`ages L..H`, else the forward's window) */
};

/* ---- encoding --------------------------------------------------------------------------------------- */
struct mdl_piece { int hi, lo; bool inverted; };      /* word bits hi..lo, bit 0 = LSB of the word */
/* How a `{FIELD}` hole prints the field's value (docs/mdl.md "Fields", `print KIND`): DEFAULT is decimal,
 * sign-extended when the field is signed; SIGNED / UNSIGNED decimal sign- / zero-extended; HEX `0x` + lower-case
 * hex digits of the raw code (values 0-9 in decimal, which read the same); FLOAT the 32-bit field's binary32
 * value in the shortest form that reads back exactly (hex when it is not finite). */
enum mdl_print { MDL_PRINT_DEFAULT, MDL_PRINT_SIGNED, MDL_PRINT_UNSIGNED, MDL_PRINT_HEX, MDL_PRINT_FLOAT };
struct mdl_field {
	const char *name; struct mdl_loc loc;
	int width;                   /* total bits, 1..64 */
	int npieces; struct mdl_piece *pieces;   /* first piece most significant */
	bool is_signed;
	int print;                   /* enum mdl_print */
	bool derived;                /* (addition) X4: a composite `field F = {G, H[3:0]}` or a slice `G[4:2]`: its pieces
	                                are bits of other fields; no format lists it; the decoder computes it from the
	                                word, the assembler routes a value bound to it into the fields that hold its bits
	                                (conflicts per bit) */
};

struct mdl_tentry {
	uint32_t code_lo, code_hi;   /* inclusive code range */
	const char *name;            /* MDL_TE_NAME: the exact text for code_lo (ranges are expanded by the checker) */
	bool canonical;              /* the name the disassembler prints for this code */
	bool is_num, is_float;       /* numeric entry: value(code) computed by the checker into vals[] */
	uint32_t *vals;              /* numeric: one value per code, code_lo..code_hi (i32 or f32 bits) */
	struct mdl_loc loc;
};
struct mdl_table { const char *name; struct mdl_loc loc; int nent; struct mdl_tentry *ent; };

/* Condition of a `when` / `encode` list. binding: FIELD == const (val) or FIELD == FIELD2 (field2 >= 0). */
struct mdl_cond {
	struct mdl_expr *e;          /* the whole condition, always usable as a check */
	bool binding; int field, field2; uint64_t val;
	struct mdl_loc loc;
};

enum mdl_tkind { MDL_TP_TEXT, MDL_TP_SPACE, MDL_TP_TABLE, MDL_TP_INT, MDL_TP_OPND, MDL_TP_OPT, MDL_TP_LABEL };
struct mdl_tpart {
	enum mdl_tkind kind;
	const char *text;            /* TEXT, OPT: literal text */
	int table, field;            /* TABLE: table + field; INT, LABEL: field */
	int opnd;                    /* OPND: index into model->opnds (instantiated operand) */
	int local;                   /* OPND: the local slot the operand's value/target is bound to (-1 if unnamed) */
	bool pcrel; int64_t pcoff;   /* LABEL: field = target - (pc + pcoff) when pcrel (`pcrel next`: pcoff = pc_step) */
	uint32_t unit;               /* LABEL (X9): the field counts units of this many pc units (1 to 65536; 1 by default) */
	int ncond; struct mdl_cond *cond;   /* OPT: conditions */
	struct mdl_loc loc;
};
struct mdl_template { const char *src; int nparts; struct mdl_tpart *parts; struct mdl_loc loc; };

/* A resource use (addition; docs/mdl.md "Resources and hazards"): `uses R` or `uses R = value` on a space entry,
 * an operand alternative, an op or a format.  Plain uses take one unit of resource R each (uses from the same
 * declaration, and for a space entry the same address, count once); valued uses share one unit when their
 * values are equal.  value: an expression over fields (space entries: over `addr`), NULL for a plain use. */
struct mdl_use { int resource; struct mdl_expr *value; struct mdl_loc loc; };

/* An instantiated operand (one per distinct use operand(field args)). */
struct mdl_opnd_alt {
	struct mdl_template tmpl;
	int ncond; struct mdl_cond *cond;
	struct mdl_expr *read;       /* value read (NULL if the alternative has none) */
	int wspace; struct mdl_expr *waddr;  /* write: through space wspace (>= 0) at address waddr, or */
	int wstate; struct mdl_expr *windex; /*        directly to state wstate (>= 0) element windex */
	struct mdl_loc loc;
	int nuses; struct mdl_use *uses;     /* (addition) `uses R [= value]` of the alternative: docs/mdl.md "Resources" */
	struct mdl_expr *wmask;      /* (addition) `write PLACE mask e`: component mask over fields (NULL: all) */
};
struct mdl_opnd { const char *name; const char *inst_name; /* e.g. "src(add_a)" */ int nalt; struct mdl_opnd_alt *alt; };

/* ---- issue structure ------------------------------------------------------------------------------ */
struct mdl_default { int field; uint64_t val; };

struct mdl_op {
	const char *name; struct mdl_loc loc;
	int slot;
	uint64_t attrs;              /* bit i = attribute i (model->attrs[i]) */
	struct mdl_template tmpl;
	int ncond; struct mdl_cond *cond;     /* encode */
	int ndef; struct mdl_default *def;
	int nsem; struct mdl_stmt **sem;
	int nlocals;                 /* locals used by sem (including operand bindings and outputs) */
	const char **local_names;    /* for diagnostics and emitted C */
	/* Numbering (mdl/check_stmt.c): locals 0..k-1 are the slot's outputs, the free names of its commit block
	 * (`d`, `result`, `carry`), the same in every op of the slot; then the op's own operand bindings and lets;
	 * then the commit block's lets. So nlocals also covers the commit, and every op of a slot has the same
	 * nlocals. Names may repeat (lets are block-scoped) and indices an op does not use are named "". */
	int nuses; struct mdl_use *uses;     /* (addition) `uses` items: resources taken whenever the op is issued */
	int jump_delay, halt_delay;  /* (addition) the constant delay of the op's `jump`/`halt` statements (its delay
	                                slots, e.g. 3 after a branch), -1 if it has none */
	/* (addition) X7 wide op (docs/mdl.md "Wide ops"): `op W : S1 + S2 ...` is an op of its home slot S1 with nspan
	 * span ops (span[]: their op indices, in the order of S2 ...), one in each other slot; a span op (is_span) marks
	 * its slot taken by the wide op span_of: same name and attributes, no template text, conditions, defaults, uses
	 * or sem; the decoder gives it to the slot when the home slot holds span_of, never from the slot's bits, and
	 * the assembler likewise; the simulator, the evaluator and the slot's commit run nothing for it. */
	int nspan; int *span;
	bool is_span; int span_of;
};
struct mdl_slot {
	const char *name; struct mdl_loc loc;
	int default_op;              /* op index */
	int nops; int *ops;          /* ops of this slot, declaration order */
	int ncommit; struct mdl_stmt **commit;   /* runs in the scope of the slot's op (its locals are visible) */
};
struct mdl_format {
	const char *name; struct mdl_loc loc;
	struct mdl_expr *selector;
	int nfields; int *fields;
	int nignore; struct mdl_piece *ignore;
	int nslots; int *slots;
	int ndef; struct mdl_default *def;
	int nsem; struct mdl_stmt **sem;     /* before the slots' compute stage */
	int ncommit; struct mdl_stmt **commit;   /* after the slots' commit stage */
	int nlocals; const char **local_names;
	int nuses; struct mdl_use *uses;     /* (addition) `uses` items: resources taken by every bundle of the format */
};

/* ---- machine state ------------------------------------------------------------------------------- */
struct mdl_state {
	const char *name; struct mdl_loc loc;
	int count;                   /* 0 = scalar state, else regfile elements */
	bool vec;                    /* per lane (vec) or one value (u32) */
	int latency;                 /* regfile: reads before `latency` instructions after a write are hazards */
	int guard_elem, guard_hook;  /* `guard R[elem] : hook` (-1 if none) */
	bool vec4;                   /* (addition, X11) type vec4: four components (then also `vec`: the simulator
	                                stores the components as its lanes, docs/sim.md) */
	bool output;                 /* (addition) `output`: `tessera sim` prints it after a run (docs/tools.md) */
	int print;                   /* (addition) `print KIND`: enum mdl_print, MDL_PRINT_FLOAT or MDL_PRINT_HEX (DEFAULT) */
	int latency_rule;            /* (addition) regfile with a latency: the `latency` rule that states it (plain
	                                `write R -> read R same min L`), or -1 (the validator then applies the latency
	                                as an implicit rule named "R.latency") */
};
/* (addition, X6) `forward F[n] : T age LO..HI;` (docs/mdl.md "Forwards"): a value with an age, no storage of its own
 * beyond HI instructions; the simulator keeps per element the values of the last HI+1 instructions. */
#define MDL_FWD_MAX_AGE 8             /* = TSR_SIM_FWD_MAX_AGE (runtime/sim/sim.h) */
struct mdl_fwd {
	const char *name; struct mdl_loc loc;
	int count;                   /* 0 = scalar, else elements */
	bool vec, vec4;              /* as struct mdl_state: per lane (vec), four components (vec4, also vec) */
	int lo, hi;                  /* the ages it may be read at: 0 <= lo <= hi <= 8 */
};
enum mdl_sekind { MDL_SE_STATE, MDL_SE_HOOK, MDL_SE_NONE };
struct mdl_sentry {
	uint32_t lo, hi; bool write;
	enum mdl_sekind kind;
	int state; struct mdl_expr *index;     /* MDL_SE_STATE: element index expression in `addr` */
	struct mdl_expr *value;                /* write: value stored (NULL = `value` unchanged) */
	int hook; int nargs; struct mdl_expr **args;   /* MDL_SE_HOOK */
	struct mdl_loc loc;
	int nuses; struct mdl_use *uses;     /* (addition) resources taken by an access through this entry */
};
struct mdl_space { const char *name; struct mdl_loc loc; int size; int nent; struct mdl_sentry *ent;
                   bool output;   /* (addition) `output`: tessera sim prints its state-backed read entries */ };
/* returns_value: used in a space `read` entry (or declared `returns`): produces the lanes' values (out).
 * takes_value (addition): used in a space `write` entry: receives the lanes' values being written after its args.
 * Neither: a statement `hook h(...);` or a `guard` (the return code is the answer). Never both. */
struct mdl_hook { const char *name; struct mdl_loc loc; int nargs; bool returns_value; bool takes_value; };

/* ---- resources, events and rules (addition; docs/mdl.md "Resources and hazards") ---------------------------
 * What the hazard validator (gen/emit_validate.c) checks and the bundle packer schedules by.  Every bundle has a
 * set of *events*, derived from the description (mdl_evterm below says which); a rule constrains events of one
 * bundle (MDL_R_BUNDLE) or of two bundles at a distance (the later one is d instructions after the earlier). */
struct mdl_resource {
	const char *name; struct mdl_loc loc;
	int count;                   /* units per instruction (1..64) */
	const char *ref;             /* the hardware reference (`ref "..."`) */
};

/* One event class.  Events of a bundle (the validator's extraction, in compute-stage order):
 *  MDL_EV_READ / MDL_EV_WRITE: a read/write of a state element or a space address (space accesses also give the
 *      state event of the entry they reach); reads are those of the compute stage (operands the op binds, op and
 *      format `sem`), writes those of any stage;
 *  MDL_EV_USE: a resource use; MDL_EV_OP: an op issued in a slot; MDL_EV_JUMP / MDL_EV_HALT: an op whose `sem`
 *      may jump / halt (with the delay of that statement); MDL_EV_START: the first instruction of a program;
 *  MDL_EV_END: the last instruction of a basic block (set by the validator from the control flow, not by the
 *      bundle: a jump's or halt's last delay slot, the instruction before a branch target, the program's last).
 * An event is *conditional* when it happens only under a condition on the machine state (flags, lanes). */
enum mdl_evkind { MDL_EV_READ, MDL_EV_WRITE, MDL_EV_USE, MDL_EV_OP, MDL_EV_JUMP, MDL_EV_HALT, MDL_EV_START,
                  MDL_EV_END };
struct mdl_evterm {
	enum mdl_evkind kind;
	int state, space;            /* READ/WRITE: the state or the space (one of them >= 0, the other -1) */
	int fwd;                     /* (addition, X6) READ/WRITE of a forward (then state and space are -1), else -1 */
	int ncodes; uint32_t *lo, *hi;   /* READ/WRITE: element or address ranges (0 ranges = any) */
	int resource;                /* USE */
	int nops; int *ops;          /* OP: every op of that name */
	int nslots; int *slots;      /* `in SLOT, ...`: only events of these slots (0 = any slot, also none) */
	struct mdl_expr *cond;       /* `if (e)`: e over the fields of the event's bundle; NULL = none */
	bool conditional;            /* `conditional`: only conditional events */
	struct mdl_loc loc;
};
/* A pattern: the union of its terms (named events and groups are expanded by the checker). */
struct mdl_pattern { int nterms; struct mdl_evterm *terms; };
struct mdl_event { const char *name; struct mdl_loc loc; struct mdl_pattern pat; };

enum mdl_rkind {
	MDL_R_LATENCY,   /* `latency N: A -> B [same] min L [max H]`: a B reads what the nearest earlier A produced;
	                    that A must be at least min (and at most max) instructions earlier */
	MDL_R_WINDOW,    /* `forbid N: A -> B at LO..HI`: no B LO..HI instructions after an A (0: the same bundle);
	                    `at LO..` (hi = -1): LO or more, on any path from the program's start */
	MDL_R_BUNDLE,    /* `forbid N: P & Q & ...`: no bundle with an event of each pattern (distinct events) */
	MDL_R_ORDER,     /* `order N: P`: the events of P keep their program order (a FIFO, a peripheral); not a
	                    validator rule: it tells the packer what it may not reorder (docs/mdl.md) */
};
struct mdl_rule {
	const char *name; struct mdl_loc loc;
	enum mdl_rkind kind;
	int npat; struct mdl_pattern *pat;   /* LATENCY/WINDOW: pat[0] = A (earlier), pat[1] = B; BUNDLE: 1..8 */
	bool same;                   /* LATENCY: A and B touch the same element of the same state or space */
	int lo, hi;                  /* LATENCY: min, max (-1: none); WINDOW: LO, HI (-1: open) */
	const char *ref;
};

/* ---- (addition) the assembly source's declared syntax (`asm { ... }`, docs/asm.md "Declared syntax") ---------- */
enum mdl_seckind { MDL_SEC_CODE, MDL_SEC_NAMES, MDL_SEC_VALUES };
struct mdl_section {
	const char *name;            /* as written, with its leading '.' (".constants") */
	enum mdl_seckind kind;       /* CODE: the bundles follow; NAMES: `[i] = "name";`; VALUES: `[i] = v;`, `[i].c = v;` */
	int state;                   /* NAMES, VALUES: the regfile whose elements the entries name (-1: none) */
	const char *comps;           /* VALUES: the components' one-letter names, in order ("xyzw"), or "" */
	struct mdl_loc loc;
};
struct mdl_syntax {
	const char *bundle_end;      /* a bundle runs over lines until this text (NULL: one bundle a line) */
	int ncomments; const char *comments[4];   /* line comments (default "#" and "//") */
	const char *block_open, *block_close;     /* a block comment (NULL: none) */
	int nsections; struct mdl_section *sections;
};

/* ---- the model ---------------------------------------------------------------------------------- */
struct mdl_model {
	const char *path, *name;     /* description file; isa name (C prefix of the generated code) */
	struct mdl_loc name_loc;     /* where the isa name is written */
	int word_bits, lanes, pc_step;
	bool little_endian;
	bool word_msw_first;         /* isa item `word_order msw_first` (X10): files list 32-bit words high first */
	bool fall_off_halt;          /* isa item `fall_off halt`: control reaching the instruction after the program's
	                              * last ends the program (the simulator's step returns TSR_SIM_HALTED) instead of
	                              * being an error (`fall_off error`, the default) */
	int nfields; struct mdl_field *fields;
	int ntables; struct mdl_table *tables;
	int nformats; struct mdl_format *formats;
	int nslots; struct mdl_slot *slots;
	int nops; struct mdl_op *ops;
	int nopnds; struct mdl_opnd *opnds;
	int nstates; struct mdl_state *states;
	int nspaces; struct mdl_space *spaces;
	int nhooks; struct mdl_hook *hooks;
	int nattrs; const char **attrs;
	int pc_state;                /* index of the `pc` state (-1 if the description has none; required by `jump`) */
	int float_mode;              /* float built-ins' rounding/denormal/NaN rules: enum tsr_float_mode (runtime/sem.h),
	                                isa item `float NAME;` with NAME ieee (0, the default) or ftz_rtz (1). Added for the
	                                simulator and evaluator (gen/emit_sim.c, mdl/eval.c). */
	struct tsr_arena *arena;
	bool vec4;                   /* (addition, X11) the description has vec4 values: it has lanes 1, and the
	                                simulator and evaluator run the 4 components as their lanes (mdl_sim_lanes) */
	/* (addition) resources, named events and rules, in declaration order (docs/mdl.md "Resources and hazards") */
	int nresources; struct mdl_resource *resources;
	int nevents; struct mdl_event *events;
	int nrules; struct mdl_rule *rules;
	const struct mdl_syntax *syntax; /* (addition) `asm { ... }`, or NULL: the default syntax (docs/asm.md) */
	int nfwds; struct mdl_fwd *fwds; /* (addition, X6) forwards, in declaration order */
};

/* (addition, X11) Lanes of the simulator and the evaluator: 4 (the components x, y, z, w) in a description
 * with vec4 values, else the isa's lanes (docs/sim.md "Component values"). */
static inline int mdl_sim_lanes(const struct mdl_model *m) { return m->vec4 ? 4 : m->lanes; }

struct tsr_diag;
/* Parse and check the description at path. Returns the model, or NULL after reporting every error found
 * through diag (file:line:col: error: ...). Never exits, never crashes on bad input. */
struct mdl_model *mdl_load(const char *path, struct tsr_diag *diag);
/* Same, from a buffer (len bytes, need not be NUL-terminated); `path` is used in diagnostics. */
struct mdl_model *mdl_load_buffer(const char *path, const char *text, size_t len, struct tsr_diag *diag);
void mdl_model_free(struct mdl_model *m);

/* Constant evaluation helper for emitters and checks: value of a constant expression (no fields/state).
 * Returns 0 and sets *out, or -1 if e is not constant. */
int mdl_const_eval(const struct mdl_expr *e, uint64_t *out);

#endif
