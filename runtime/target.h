/* The one descriptor every target registers (QBE's `Target` style): the tools, tests and fuzzers
 * reach any generated backend through `const struct tsr_target <t>_target` (emitted by mdlc into
 * build/gen/<t>/<t>_target.c) and never need the target's own header.
 *
 * Instructions ("bundles") come in two shapes:
 *  - words: `nwords` uint32_t per instruction (word_bits / 32), least significant 32-bit word first
 *    (the layout of runtime/hexio.h); a program of n instructions is n * nwords uint32_t;
 *  - decoded: a `struct <t>_inst` of `inst_size` bytes (see the generated <t>.h), which tools treat
 *    as opaque and inspect through the accessors below.  Its field values are the raw field codes,
 *    zero-extended (a signed field's value is sign-extended only where it is used as a number), stored in
 *    <t>_field_t, the narrowest unsigned type that holds the widest field (the text engine's own form, struct
 *    <t>_tinst behind `text`, stores them as uint64_t).
 * Addresses (pc, label targets) are byte addresses; instruction i of a program starting at `base`
 * is at base + i * pc_step.
 *
 * Text syntax (assembler and disassembler): docs/mdl.md "Syntax templates" and "Round trips";
 * the assembly source format (labels, comments, directives): docs/asm.md.
 */
#ifndef TSR_TARGET_H
#define TSR_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tsr_buf;       /* runtime/fileout.h */
struct tsr_words;     /* runtime/hexio.h */
struct tsr_diag;      /* runtime/diag.h */
struct tsr_tc_isa;    /* runtime/text/textcodec.h: the tables the generic assembler/disassembler read */
struct tsr_sim_desc;  /* runtime/sim/sim.h: the generated simulator's descriptor (owned by gen/emit_sim.c) */
struct tsr_vdesc;     /* runtime/validate/validate.h: the generated hazard validator's events and rules */

/* "no operation decoded in this slot" (the slot is not part of the format, or no op's encode
 * conditions hold) and "no format's selector holds" (the word is kept raw; encode gives it back). */
#define TSR_NO_OP 0xffffu
#define TSR_NO_FORMAT 0xffu

struct tsr_target {
    const char *name;    /* isa name (the description's `isa NAME`) */
    unsigned word_bits;  /* bits per instruction word (a multiple of 32) */
    unsigned nwords;     /* uint32_t per instruction: word_bits / 32 */
    unsigned lanes;      /* SIMD lanes of a vector value */
    unsigned pc_step;    /* bytes from one instruction to the next */
    bool word_msw_first; /* `word_order msw_first` (docs/mdl.md X10): hex and binary files list an instruction's
                            32-bit words most significant first (set struct tsr_words.msw_first from it before
                            reading or writing a file); in memory words are least significant first regardless */
    size_t inst_size;    /* sizeof(struct <t>_inst) */

    /* Decodes the nwords at w into *inst (a struct <t>_inst).  Returns 0, or -1 when no format's
     * selector holds (inst->format = TSR_NO_FORMAT and the word is kept, so encode still gives it
     * back).  Slots whose bits match no operation get TSR_NO_OP; their fields are still kept. */
    int (*decode)(const uint32_t *w, void *inst);
    /* Encodes *inst into nwords at w (every bit written).  Exact inverse of decode: for any w,
     * decode then encode gives back w bit for bit.  Returns 0. */
    int (*encode)(const void *inst, uint32_t *w);

    /* Appends the text of one instruction at byte address pc to out (no newline).  Never fails:
     * the text always assembles back to exactly these bits (with `{field=value}` overrides or a
     * `.word` line where needed; docs/mdl.md "Round trips").  Returns 0. */
    int (*disasm)(const uint32_t *w, uint64_t pc, struct tsr_buf *out);
    /* Appends a whole program of n instructions starting at byte address base: one line per
     * instruction, indented by four spaces, and a line `L<hex>:` before each instruction that a
     * printed label refers to.  The text assembles back to the same words.  Returns 0. */
    int (*disasm_program)(const uint32_t *w, size_t n, uint64_t base, struct tsr_buf *out);
    /* Assembles a whole program (len bytes of text, need not be NUL-terminated; path is used in
     * diagnostics), appending one instruction per bundle to out (out->width must be word_bits or
     * 0; the source text of each bundle becomes the instruction's comment).  Every error is
     * reported as `path:line:col: error: ...` and assembly goes on with the next line.  Returns 0,
     * or -1 after reporting at least one error. */
    int (*assemble)(const char *path, const char *text, size_t len, struct tsr_words *out,
                    struct tsr_diag *d);
    /* Assembles one bundle (no labels or directives; names `L<hex>` stand for that address) at
     * byte address pc into nwords at w.  Returns 0, or -1 with a one-line message (no position)
     * in err (errlen bytes, NUL-terminated; err may be NULL). */
    int (*assemble_one)(const char *text, size_t len, uint64_t pc, uint32_t *w, char *err, size_t errlen);

    /* Names, in the model's declaration order (the indices used everywhere below). */
    unsigned nformats, nslots, nops, nfields;
    const char *const *format_names;
    const char *const *slot_names;
    const char *const *op_names;     /* several ops may share a name (aliases) */
    const unsigned short *op_slot;   /* slot of each op */
    const unsigned short *op_decl;   /* (X7) the first op of each op's declaration: the instances of one `op NAME :
                                        S1 | S2 ...` share it (one op, the same in each slot but for what the slot's
                                        aliases name: its fields, the forward element it writes), any other op is its
                                        own; the packer may place an instance in any of them (docs/pack.md "Values
                                        through forwards") */
    const unsigned char *op_copy;    /* (X12) 1: a plain copy, a `move` op that writes its source unchanged when its
                                        template's optional parts are absent (mdl/opcopy.c); 0: any other op, a
                                        converting move among them.  NULL: none.  The packer moves only a plain copy
                                        to another move op's unit */
    const uint64_t *op_attrs;        /* attributes of each op: bit i = attr_names[i] (the first 64) */
    unsigned nattrs;
    const char *const *attr_names;   /* `op NAME : slot ATTR ...` in the description, e.g. "commutative" */
    const char *const *field_names;
    const unsigned char *field_width;

    /* Accessors of a decoded struct <t>_inst. */
    unsigned (*inst_format)(const void *inst);                /* format index or TSR_NO_FORMAT */
    unsigned (*inst_op)(const void *inst, unsigned slot);     /* op index or TSR_NO_OP */
    uint64_t (*inst_field)(const void *inst, unsigned field); /* raw code; 0 if not in the format */
    void (*inst_set_field)(void *inst, unsigned field, uint64_t v); /* masked to the field width */

    const struct tsr_tc_isa *text;      /* the assembler/disassembler tables (runtime/text/textcodec.h) */
    /* The simulator descriptor, defined in <t>_sim.c by the simulator emitter (gen/emit_sim.c);
     * NULL when the backend was built without one. */
    const struct tsr_sim_desc *sim;

    /* Hazard validator (<t>_validate.c, gen/emit_validate.c; docs/mdl.md "Resources and hazards").
     * Checks a program of n instructions (n * nwords uint32_t at w, the first at byte address base)
     * against the description's resources and rules and reports every violation as
     * `path: error: 0x00000018: rule NAME: what happened (ref: hardware reference)` (path may be NULL).
     * Returns 0, or -1 when at least one rule is broken. */
    int (*validate)(const uint32_t *w, size_t n, uint64_t base, struct tsr_diag *d, const char *path);
    /* The same rules and the events of each bundle, for tools, the packer and the simulator
     * (runtime/validate/validate.h: tsr_validate() with a callback, tsr_vstream_* for issued bundles). */
    const struct tsr_vdesc *vdesc;
};

#endif
