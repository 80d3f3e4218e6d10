/* Text codec: the generic assembler (asm_engine.c) and disassembler (dis_engine.c) every target
 * shares, and the tables mdlc generates for them (build/gen/<t>/<t>_tables.c, _asm.c, _disasm.c).
 *
 * The tables are a flattened copy of the description's syntax: fields, tables (names and numbers),
 * syntax templates (parts), operand alternatives, conditions, operations, slots and formats
 * (docs/mdl.md).  Conditions that are not simple bindings are compiled by mdlc into one C function,
 * `check(id, f)`; everything else is data.  The engines work on the target's decoded instruction
 * (`struct <t>_tinst`, whose layout the offsets below describe) and call the generated decoder and
 * encoder for the bits.  Field values are raw codes, zero-extended (runtime/target.h).
 *
 * All index fields refer to the arrays of the same `struct tsr_tc_isa`; `first, n` pairs name a
 * run of n consecutive entries.  Nothing here is ever written: the tables are `const` and the
 * engines allocate their own scratch, so one isa may be used from several threads.
 */
#ifndef TSR_TEXTCODEC_H
#define TSR_TEXTCODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tsr_buf;
struct tsr_words;
struct tsr_diag;
struct tsr_tc_pop;   /* text/dis_print.h: the printer mdlc generates per op */

#define TSR_TC_NO_OP 0xffffu      /* no op in this slot (runtime/target.h TSR_NO_OP) */
#define TSR_TC_NO_FORMAT 0xffu    /* no format (runtime/target.h TSR_NO_FORMAT) */

/* How a `{FIELD}` hole prints (the description's `print KIND`, docs/mdl.md "Fields"). */
enum tsr_tc_fprint {
    TSR_TC_FP_DEFAULT,    /* decimal, sign-extended when is_signed */
    TSR_TC_FP_SIGNED,     /* decimal, sign-extended */
    TSR_TC_FP_UNSIGNED,   /* decimal, zero-extended */
    TSR_TC_FP_HEX,        /* 0x + lower-case hex of the raw code; 0-9 in decimal (they read the same) */
    TSR_TC_FP_FLOAT,      /* a 32-bit field's binary32 value, shortest exact form; hex when not finite */
};
struct tsr_tc_field {
    const char *name;
    uint8_t width;        /* 1..64 bits */
    bool is_signed;       /* two's complement: printed (`{FIELD}` holes, by default) and computed sign-extended */
    uint8_t print;        /* enum tsr_tc_fprint */
};

/* A name of a table: text -> code.  A table's names are sorted by strcmp (binary search). */
struct tsr_tc_name {
    const char *name;
    uint32_t code;
    uint16_t len;         /* strlen(name) */
};

/* A numeric entry of a table for one code: value is an int32 or binary32 bit pattern. */
struct tsr_tc_num {
    uint32_t code;
    uint32_t val;
    bool is_float;
};

/* What the disassembler prints for one code of a table (sorted by code). */
enum tsr_tc_pkind { TSR_TC_PRINT_NAME, TSR_TC_PRINT_INT, TSR_TC_PRINT_FLOAT };
struct tsr_tc_print {
    uint32_t code;
    uint8_t kind;         /* enum tsr_tc_pkind */
    uint32_t val;         /* INT: int32 value; FLOAT: binary32 bits */
    const char *name;     /* NAME */
};

/* A node of a table's name trie: the names that continue with character ch.  The children of a node
 * are consecutive (kid .. kid+nkid-1) and sorted by ch; `term` when a name ends here (with `code`). */
struct tsr_tc_trie {
    uint8_t ch;
    bool term;
    uint16_t nkid;
    uint32_t kid;
    uint32_t code;
};

struct tsr_tc_table {
    const char *name;
    uint32_t name_first, nnames;   /* isa->names, sorted by name */
    uint16_t minlen, maxlen;       /* shortest and longest name */
    uint32_t trie;                 /* isa->tries: the root node of the names' trie */
    uint32_t num_first, nnums;     /* isa->nums, in code order */
    uint32_t print_first, nprint;  /* isa->prints, sorted by code */
    bool print_dense;              /* prints[print_first + c].code == c for every c < nprint */
};

/* Template parts (docs/mdl.md "Syntax templates"). */
enum tsr_tc_partkind {
    TSR_TC_TEXT,    /* literal text (a blank in it matches any white space) */
    TSR_TC_SPACE,   /* white space: prints one blank, matches any (possibly none) */
    TSR_TC_TABLE,   /* {TABLE:FIELD} */
    TSR_TC_INT,     /* {FIELD}: constant expression, printed as the field's print format says */
    TSR_TC_OPND,    /* {NAME=OPERAND}: one of the operand's alternatives */
    TSR_TC_OPT,     /* {?'text' conds}: optional text */
    TSR_TC_LABEL,   /* {label:FIELD [pcrel N | pcrel next] [unit U]} */
};
struct tsr_tc_part {
    uint8_t kind;          /* enum tsr_tc_partkind */
    bool bound;            /* TEXT/TABLE/OPT: a match ending in an identifier character must not be
                              followed by another one (`mov` does not match `movx`) */
    bool pcrel;            /* LABEL: the field holds target - (pc + pcoff) */
    uint16_t len;          /* TEXT/OPT: strlen(text) */
    uint16_t field;        /* TABLE, INT, LABEL */
    uint16_t arg;          /* TABLE: table index; OPND: operand index */
    uint32_t cond, ncond;  /* OPT: conditions */
    uint32_t unit;         /* LABEL: the field holds (target - base) / unit (docs/mdl.md X9; 1 = addresses) */
    int64_t pcoff;         /* LABEL */
    const char *text;      /* TEXT/OPT */
};

/* A condition (`when`, `encode`, optional group, format selector conjunct). */
enum tsr_tc_condkind {
    TSR_TC_BIND,    /* field == val: the assembler sets the field */
    TSR_TC_BIND2,   /* field == field2: binds in both directions */
    TSR_TC_CHECK,   /* anything else: isa->check(id, f), tested after defaults */
};
struct tsr_tc_cond {
    uint8_t kind;          /* enum tsr_tc_condkind */
    uint16_t field, field2;
    uint32_t id;           /* CHECK: argument of isa->check */
    uint64_t val;          /* BIND: raw field code */
    const char *text;      /* the condition as written (diagnostics) */
};

enum tsr_tc_verb { TSR_TC_USE, TSR_TC_READ, TSR_TC_WRITE };  /* what an operand alternative does */
struct tsr_tc_alt {
    uint32_t part, npart;
    uint32_t cond, ncond;
    uint8_t verb;          /* enum tsr_tc_verb: words the diagnostics use ("cannot also read 'rb6'") */
};
struct tsr_tc_opnd { const char *name; uint32_t alt, nalt; };

struct tsr_tc_default { uint16_t field; uint64_t val; };

struct tsr_tc_op {
    const char *name;
    uint16_t slot;
    uint32_t part, npart;  /* syntax template */
    uint32_t cond, ncond;  /* encode conditions */
    uint32_t def, ndef;    /* op defaults */
    /* Mnemonic prefilter: the template's leading identifier characters.  A bundle part can only
     * match if its leading identifier equals key (key_exact) or starts with it. */
    const char *key;
    uint16_t keylen;
    bool key_exact;
    /* Characters (ASCII, bit c of req[c / 64]) every matching text contains: a part lacking one of
     * them cannot be this op (the literals of the template and of every alternative of its operands). */
    uint64_t req[2];
};

struct tsr_tc_slot {
    const char *name;
    uint16_t default_op;
    uint32_t op, nop;      /* isa->idx[op .. op+nop-1]: the slot's ops in declaration order */
};

struct tsr_tc_range { uint16_t hi, lo; };   /* word bits hi..lo (at most 64 bits) */

struct tsr_tc_format {
    const char *name;
    uint32_t slot, nslot;    /* isa->idx: slots in issue order */
    uint32_t field, nfield;  /* isa->idx: fields of the format, declaration order */
    uint32_t cond, ncond;    /* selector, split at top-level && (bindings and checks) */
    uint32_t def, ndef;      /* format defaults */
    uint32_t ign, nign;      /* isa->ranges: ignore ranges */
    /* 1 when the generated decoder picks this format only if its selector holds on the fields it stores: mdlc
     * (gen/emit_tables.c sel_decoded) sets it when the selector reads only the format's own fields (and
     * constants), which <t>_decode and <t>_decode_next test on the codes they then store in f[] unchanged
     * (gen/emit_codec.c); so on a decoded bundle of this format every check of cond[] holds */
    uint32_t sel_decoded;
};

/* (addition) The assembly source's declared syntax (mdl `asm { ... }`, docs/asm.md "Declared syntax"), read by the
 * program-level assembler's front end (asm_front.c) and the program printers (dis_front.c); the isa's `syntax` is
 * NULL for the default (one bundle a line, `#` and `//` comments, no sections). */
enum tsr_tc_seckind { TSR_TC_SEC_CODE, TSR_TC_SEC_NAMES, TSR_TC_SEC_VALUES };
struct tsr_tc_section {
    const char *name;       /* ".constants" */
    int kind;               /* enum tsr_tc_seckind: the bundles follow; `[i] = "text";`; `[i] = v;` / `[i].c = v;` */
    const char *state;      /* NAMES, VALUES: the regfile the entries are of, or NULL (any index, set nowhere) */
    uint32_t count;         /* its elements: an entry's index is below (state NULL: 0, no bound) */
    const char *comps;      /* VALUES: the components' one-letter names ("xyzw"), or "" (no `.c`) */
};
struct tsr_tc_syntax {
    const char *bundle_end;                  /* a bundle runs over lines until this text (NULL: one bundle a line) */
    unsigned ncomments; const char *comments[4];   /* line comments (0: the default `#` and `//`) */
    const char *block_open, *block_close;    /* a block comment (NULL: none) */
    unsigned nsections; const struct tsr_tc_section *sections;
};

struct tsr_tc_isa {
    const char *name;
    unsigned word_bits, nwords, pc_step;
    /* layout of the decoded instruction decode, decode_next and encode below work on, struct <t>_tinst (the
     * text engine's; the target descriptor's struct <t>_inst has the same members with a narrower f[]):
     * uint8_t format; uint16_t op[nslots]; uint32_t ignored[nwords]; uint64_t f[nfields] */
    size_t inst_size, off_op, off_ignored, off_f;

    unsigned nfields;  const struct tsr_tc_field *fields;
    unsigned ntables;  const struct tsr_tc_table *tables;
    unsigned nformats; const struct tsr_tc_format *formats;
    unsigned nslots;   const struct tsr_tc_slot *slots;
    unsigned nops;     const struct tsr_tc_op *ops;
    unsigned nopnds;   const struct tsr_tc_opnd *opnds;
    const struct tsr_tc_alt *alts;
    const struct tsr_tc_part *parts;
    const struct tsr_tc_cond *conds;
    const struct tsr_tc_default *defs;
    const uint16_t *idx;
    const struct tsr_tc_range *ranges;
    const struct tsr_tc_name *names;
    const struct tsr_tc_trie *tries;
    const struct tsr_tc_num *nums;
    const struct tsr_tc_print *prints;
    /* Per op, the generated printer and its bounds (text/dis_print.h), or NULL: then the engine interprets
     * the templates (print_seq).  Both print the same text and path record. */
    const struct tsr_tc_pop *pops;
    const struct tsr_tc_pfmt *pfmts;   /* per format, its generated bundle printer (with pops) */
    /* The fast form of the disassembler's exactness proof generated per op (text/dis_fx.h), or NULL: then the
     * full proof decides every bundle. */
    const struct tsr_fx_desc *fx;

    bool (*check)(unsigned id, const uint64_t *f);     /* TSR_TC_CHECK conditions */
    int (*decode)(const uint32_t *w, void *inst);
    int (*encode)(const void *inst, uint32_t *w);
    /* The format decode would pick for the words (its index), or TSR_TC_NO_FORMAT; nothing else is decoded. */
    int (*decode_format)(const uint32_t *w);
    /* decode's result, into an inst that holds an earlier decode or decode_next result (of any words) or whose
     * format byte is TSR_TC_NO_FORMAT; only what differs from it for the words' format is written (the
     * fields and slots outside a format are 0 and TSR_TC_NO_OP in both). */
    int (*decode_next)(const uint32_t *w, void *inst);
    /* (addition) X4 composite fields and slices (docs/mdl.md "Composite fields and slices"), NULL when the
     * description has none: fderived[f] is 1 for a derived field (no format lists it; its bits are bits of the
     * format's fields); field f's word bits are fpieces[fpiece_first[f] .. fpiece_first[f + 1] - 1], the first
     * most significant.  The assembler checks a derived field's bits against every overlapping field set in the
     * bundle, bit by bit, and routes its value into the format's fields before the checks (asm_derived.c). */
    const uint8_t *fderived;
    const uint32_t *fpiece_first;
    const struct tsr_tc_fpiece *fpieces;
    const struct tsr_tc_syntax *syntax;      /* (addition) the declared source syntax, or NULL (above) */
    /* (addition) X7 wide ops (docs/mdl.md "Wide ops"), NULL when the description has none.  span_of[op]: for a
     * span op (the mark of a slot taken by a wide op, no text) the wide op's index, else TSR_TC_NO_OP; span_mask[op]:
     * for a wide op the slots (bit i = slot i, slots below 64) its span ops take, else 0.  The assembler never
     * matches a span op from text: it puts one in each slot a wide op of the bundle takes, refusing a bundle that
     * also puts an op there (`slot 'S' is taken by the wide op 'W'`); the disassembler prints nothing for one. */
    const uint16_t *span_of;
    const uint64_t *span_mask;
};
struct tsr_tc_fpiece { uint16_t hi, lo; uint8_t inverted; };

/* ---- engines --------------------------------------------------------------------------------- */

/* Disassembles one instruction at byte address pc, appending its text to out (no newline).
 * Always succeeds (see runtime/target.h `disasm`).  Returns 0. */
int tsr_tc_disasm(const struct tsr_tc_isa *isa, const uint32_t *w, uint64_t pc, struct tsr_buf *out);

/* Receives the text of tsr_tc_disasm_program_stream in pieces (at most about 64 KiB each).  Returns 0 to go
 * on, or -1 to stop (the stream function then returns -1). */
typedef int (*tsr_tc_sink)(void *ctx, const char *data, size_t len);
/* tsr_tc_disasm_program's text, byte for byte, given to sink as it is printed: a first pass finds the labels
 * (disassembling every word, the memo keeping those without one), the second prints.  Memory: the labels, the
 * memo (at most TSR_TC_CACHE_MAX entries) and one piece of text, not the program's text.  Returns 0 or -1. */
int tsr_tc_disasm_program_stream(const struct tsr_tc_isa *isa, const uint32_t *w, size_t n, uint64_t base,
                                 tsr_tc_sink sink, void *ctx);
/* Disassembles n instructions starting at byte address base (runtime/target.h `disasm_program`). */
int tsr_tc_disasm_program(const struct tsr_tc_isa *isa, const uint32_t *w, size_t n, uint64_t base,
                          struct tsr_buf *out);

/* Assembles a whole program (runtime/target.h `assemble`; source format in docs/asm.md). */
int tsr_tc_assemble(const struct tsr_tc_isa *isa, const char *path, const char *text, size_t len,
                    struct tsr_words *out, struct tsr_diag *d);

/* The same with the first instruction at byte address base instead of 0 (labels are base + their
 * offset, and each bundle is matched at its address; `tessera asm --base`). */
int tsr_tc_assemble_at(const struct tsr_tc_isa *isa, const char *path, const char *text, size_t len, uint64_t base,
                       struct tsr_words *out, struct tsr_diag *d);

/* The same one line at a time, for sources read in pieces (tsr_tc_assemble is built on it):
 *   A = tsr_tc_asm_begin(isa, path, base, d);                (base: the first instruction's byte address)
 *   every line, in order: tsr_tc_asm_labels(A, lb, le);      (pass 1: labels and addresses)
 *   tsr_tc_asm_pass2(A, emit, ctx);
 *   every line again:     tsr_tc_asm_line(A, lb, le);        (pass 2: emit gets each instruction)
 *   rc = tsr_tc_asm_end(A);                                   (0, or -1 after reporting an error)
 * A line [lb, le) excludes its newline.  emit receives the instruction's nwords values, its source text (the
 * bundle's comment, valid during the call) and its line, in order.  Memory: the symbols and the memo, not the
 * source or the output. */
struct tsr_tc_asm;
typedef void (*tsr_tc_emit)(void *ctx, const uint32_t *w, const char *comment, unsigned line);
struct tsr_tc_asm *tsr_tc_asm_begin(const struct tsr_tc_isa *isa, const char *path, uint64_t base,
                                    struct tsr_diag *d);
void tsr_tc_asm_labels(struct tsr_tc_asm *A, const char *lb, const char *le);
void tsr_tc_asm_pass2(struct tsr_tc_asm *A, tsr_tc_emit emit, void *ctx);
void tsr_tc_asm_line(struct tsr_tc_asm *A, const char *lb, const char *le);
/* In place of n lines of one instruction each whose words the caller knows (in both passes alike): the address
 * and the line number advance as those lines would advance them; nothing is emitted.  The packer's check of its
 * output (runtime/pack/pack_emit.c) gives only the lines whose words it does not know. */
void tsr_tc_asm_skip(struct tsr_tc_asm *A, size_t n);
int tsr_tc_asm_end(struct tsr_tc_asm *A);
/* (addition) The sections' entries of a source in a declared syntax (runtime/progmeta.h; docs/asm.md "Declared
 * syntax"), read in pass 2; the caller owns them (tsr_progmeta_free).  NULL when there were none.  Call before
 * tsr_tc_asm_end. */
struct tsr_progmeta;
struct tsr_progmeta *tsr_tc_asm_take_meta(struct tsr_tc_asm *A);
/* (addition) Appends the sections' entries m (NULL: nothing) in the isa's declared syntax: each section with
 * entries, `    [i] = "text";` / `    [i].c = v;`, then the first code section's name, so that the program
 * printed after it assembles back with the same metadata (dis_front.c).  Nothing without a declared syntax. */
void tsr_tc_meta_print(const struct tsr_tc_isa *isa, const struct tsr_progmeta *m, struct tsr_buf *out);
/* The same text given to sink (nothing when there is none).  Returns the sink's answer, or 0. */
int tsr_tc_meta_sink(const struct tsr_tc_isa *isa, const struct tsr_progmeta *m, tsr_tc_sink sink, void *ctx);

/* Assembles one bundle into a struct <t>_tinst (inst, isa->inst_size bytes).  Returns 0, or -1
 * with a message in err (may be NULL). */
int tsr_tc_assemble_inst(const struct tsr_tc_isa *isa, const char *text, size_t len, uint64_t pc,
                         void *inst, char *err, size_t errlen);

/* Same, encoded into isa->nwords at w (runtime/target.h `assemble_one`). */
int tsr_tc_assemble_one(const struct tsr_tc_isa *isa, const char *text, size_t len, uint64_t pc,
                        uint32_t *w, char *err, size_t errlen);

#endif
