/* Bundle assembler: the part of the generic assembler (asm_engine.c) that the disassembler
 * (dis_engine.c) also uses for its round-trip check.  Not a public interface: tools use
 * runtime/text/textcodec.h or the target descriptor (runtime/target.h).
 *
 * One `struct tsr_asm` holds the scratch state of the backtracking matcher for one isa; it is
 * reused from bundle to bundle and must not be shared between threads.
 */
#ifndef TSR_ASM_ENGINE_H
#define TSR_ASM_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "text/textcodec.h"

struct tsr_asm;

/* ---- constant expressions and symbols (asm_expr.c) ---------------------------------------------
 * Expressions: integers (decimal, 0x hex, 0b binary, `_` between digits), floats (`2.0`, `1e-3`,
 * `.5`; binary32 when stored), symbols, parentheses, unary - + ~, and binary * / % + - << >> & ^ |
 * with C precedence.  Integer arithmetic is exact: every literal and every result must lie in
 * -2^63 .. 2^64-1 (the union of int64_t and uint64_t), shift counts in 0..63, else it is an error that
 * quotes the text as written (docs/asm.md "Constant expressions").  An operation with a float operand
 * is done in double (bitwise operators and % reject floats).  At most TSR_ASM_MAX_NEST parentheses
 * and unary operators may enclose any point of an expression (the parser is recursive). */
struct tsr_asm_val {
    bool fl;       /* float (d) or integer (i, u) */
    bool u;        /* integer 2^63 .. 2^64-1: its value is (uint64_t)i */
    int64_t i;
    double d;
};

#define TSR_ASM_MAX_NEST 256
#define TSR_ASM_MAX_NEST_TEXT "256"

/* Is v an integer in lo .. hi? */
static inline bool tsr_asm_int_in(const struct tsr_asm_val *v, int64_t lo, int64_t hi)
{
    return !v->fl && !v->u && v->i >= lo && v->i <= hi;
}

enum tsr_asm_symkind { TSR_SYM_LABEL, TSR_SYM_CONST, TSR_SYM_ALIAS };
struct tsr_asm_sym {
    const char *name;      /* not NUL-terminated: len bytes (points into the source text) */
    uint32_t len;
    uint8_t kind;          /* enum tsr_asm_symkind */
    struct tsr_asm_val v;  /* LABEL (byte address) and CONST */
    const char *text;      /* ALIAS: replacement text, tlen bytes */
    uint32_t tlen;
    unsigned line;         /* where defined (1-based) */
};
/* An open-addressed symbol table; a zeroed struct is empty. */
struct tsr_asm_syms {
    struct tsr_asm_sym *e;
    size_t cap, count, nalias;
};
/* The symbol named by len bytes at name, or NULL. */
struct tsr_asm_sym *tsr_asm_sym_find(const struct tsr_asm_syms *t, const char *name, size_t len);
/* The symbol with that name, created (kind LABEL, value 0, *created = true) if absent.  The name
 * is not copied: it must outlive the table. */
struct tsr_asm_sym *tsr_asm_sym_add(struct tsr_asm_syms *t, const char *name, size_t len, bool *created);
void tsr_asm_syms_free(struct tsr_asm_syms *t);

/* Parses a constant expression in s[pos..lim).  Names resolve to CONST and LABEL symbols of syms
 * (may be NULL), then `L<hex digits>` to that address.  Returns 1 with *v and *end (the first byte
 * not consumed), 0 when no expression starts at pos (after blanks), or -1 with *err (a message
 * with one %.*s for the text at *errpos, length *errlen) for an undefined name, a division by zero,
 * a float in a bitwise operation, a missing `)`, a value outside -2^63 .. 2^64-1, a shift count outside
 * 0..63 or nesting deeper than TSR_ASM_MAX_NEST. */
int tsr_asm_expr(const char *s, size_t pos, size_t lim, const struct tsr_asm_syms *syms, size_t *end,
                 struct tsr_asm_val *v, const char **err, size_t *errpos, size_t *errlen);

/* Parses one term of a constant expression in s[pos..lim) (a number, a name, a parenthesised expression, with
 * unary operators), no binary operator after it: 1 with *v and *end, else 0 (no term there or an error, which
 * tsr_asm_expr reports).  The matcher tries it before a whole expression where a template's own text may follow a
 * number (`-12 >> 4`: a small immediate and a rotation, not -1). */
int tsr_asm_term(const char *s, size_t pos, size_t lim, const struct tsr_asm_syms *syms, size_t *end,
                 struct tsr_asm_val *v);

/* Identifier characters and blanks, as the matcher sees them. */
static inline bool tsr_asm_isident(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
static inline bool tsr_asm_isblank(int c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* Literal text at s[pos..lim) as the matcher reads it: a blank in the literal matches any run of white space
 * (none only where it does not separate two identifier characters); bound: a literal ending in an identifier
 * character must not be followed by another one.  Sets *end past the match. */
static inline bool tsr_asm_lit(const char *s, uint32_t lim, const char *text, unsigned len, bool bound, uint32_t pos,
                               uint32_t *end)
{
    for (unsigned i = 0; i < len; i++) {
        if (text[i] == ' ') {
            uint32_t q = pos;
            while (q < lim && tsr_asm_isblank(s[q]))
                q++;
            if (q == pos && pos > 0 && pos < lim && tsr_asm_isident(s[pos - 1]) && tsr_asm_isident(s[pos]))
                return false;
            pos = q;
            continue;
        }
        if (pos >= lim || s[pos] != text[i])
            return false;
        pos++;
    }
    if (bound && len && tsr_asm_isident(text[len - 1]) && pos < lim && tsr_asm_isident(s[pos]))
        return false;
    *end = pos;
    return true;
}

/* ---- bundles (asm_engine.c) ------------------------------------------------------------------ */

/* Symbols (labels, constants) that expressions in later bundles may use; NULL for none.  The
 * table must outlive its use. */
void tsr_asm_use_syms(struct tsr_asm *a, const struct tsr_asm_syms *syms);

/* Allocates the scratch state for isa (aborts only when malloc fails). */
struct tsr_asm *tsr_asm_new(const struct tsr_tc_isa *isa);
void tsr_asm_free(struct tsr_asm *a);

/* Assembles one bundle: `n` bytes at `s` (parts separated by ';', optionally followed by one
 * override group `{field=value, ...}`), at byte address pc, into *inst (a struct <t>_tinst).
 * pin >= 0 restricts the search to that format (the override `format=NAME` does the same).
 * Returns 0, or -1; then tsr_asm_message() describes the closest failure. */
int tsr_asm_bundle(struct tsr_asm *a, const char *s, size_t n, uint64_t pc, int pin, void *inst);

/* Whether the last bundle's result depended on its address or on symbols (a label, a pc-relative
 * hole, a named constant), rather than on its text alone (callers may cache text -> bits). */
bool tsr_asm_env_used(const struct tsr_asm *a);

/* The message of the last failure (no position, no "error:") and its byte offset in the text
 * given to tsr_asm_bundle. */
const char *tsr_asm_message(struct tsr_asm *a, size_t *offset);

/* ---- text <-> bits memo (tc_cache.c) ------------------------------------------------------------
 * Real programs repeat bundles (nops, moves): the program-level assembler and disassembler remember
 * the result for a bundle text / word whose result depends on nothing else (tsr_asm_env_used; no
 * label printed), so each distinct one is matched once per program (a line that can name none of its program's
 * symbols once per thread: asm_program.c lines_may_name).  At most TSR_TC_CACHE_MAX
 * entries; later ones are simply not remembered. */
#define TSR_TC_CACHE_MAX 65536
/* An entry: the key's hash (0: empty), the key at data + koff (klen bytes), the value at data + voff (vlen bytes,
 * or vlen TSR_TC_KEY_ONLY: the key was kept without its value while the gate was closed, below). */
struct tsr_tc_cache_ent { uint64_t h; uint32_t koff, klen, voff, vlen; };
#define TSR_TC_KEY_ONLY UINT32_MAX
struct tsr_tc_cache {
    struct tsr_tc_cache_ent *e;
    size_t cap, count;
    char *data;
    size_t len, dcap;
    uint32_t misses;         /* the gate (tsr_tc_cache_ask): lookups in a row that found nothing */
    uint32_t stride;         /* the gate: ask for every stride-th key (0: every key) */
};
/* The value stored for the klen bytes at key (vlen set), or NULL (none, or only the key kept). */
const char *tsr_tc_cache_get(const struct tsr_tc_cache *c, const void *key, size_t klen, size_t *vlen);
/* Asks the processor to load the entry a lookup of the klen bytes at key reads first (a hint, no effect on
 * results), and returns the key's hash for tsr_tc_cache_get_hashed.  The table is megabytes at
 * TSR_TC_CACHE_MAX entries and that first read is a cache miss per lookup (about a tenth of `tessera dis`'s
 * CPU time on words not seen before): a caller going through words in order asks for the next word's entry
 * before working on the current one, then looks it up with the hash (not computed twice). */
uint64_t tsr_tc_cache_prefetch(const struct tsr_tc_cache *c, const void *key, size_t klen);
/* tsr_tc_cache_get with h, the hash tsr_tc_cache_prefetch returned for the same key (the table may have
 * grown since). */
const char *tsr_tc_cache_get_hashed(const struct tsr_tc_cache *c, const void *key, size_t klen, uint64_t h,
                                    size_t *vlen);
/* Stores val for the key (absent, or kept without its value: it gets val); while the gate is closed, a new key
 * is kept without its value. */
void tsr_tc_cache_put(struct tsr_tc_cache *c, const void *key, size_t klen, const void *val, size_t vlen);
/* tsr_tc_cache_put with h, the hash tsr_tc_cache_prefetch returned for the same key (not computed again). */
void tsr_tc_cache_put_hashed(struct tsr_tc_cache *c, const void *key, size_t klen, uint64_t h, const void *val,
                             size_t vlen);
void tsr_tc_cache_free(struct tsr_tc_cache *c);

/* The gate, for a caller going through many keys in order (the disassembler's words): a memo that has not
 * found a single key in its last TSR_TC_GATE_WINDOW lookups is asked, and filled, for every
 * TSR_TC_GATE_STRIDE-th key only (a sample; a power of two), until a sample is found again.  Words no memo has
 * seen then skip the lookup, its prefetch and the insert (≈ 150 instructions a word while the memo fills);
 * input whose words repeat keeps the memo open (GPU_FFT: most lookups hit).  Results never depend on it.
 * A sample is kept as its key alone (no value: memory, and pages touched, for 8 bytes a word instead of its
 * text), which suffices to open the gate: the value is stored when the key comes again (tsr_tc_cache_put).
 * tsr_tc_cache_ask: whether to ask for (and insert) key number i; tsr_tc_cache_get_gated: the lookup of such
 * a key (hash h from tsr_tc_cache_prefetch), tsr_tc_cache_get_hashed's result, its finding (value or key
 * alone) counted by the gate. */
#define TSR_TC_GATE_WINDOW 1024
#define TSR_TC_GATE_STRIDE 16
static inline bool tsr_tc_cache_ask(const struct tsr_tc_cache *c, size_t i)
{
    return c->stride == 0 || (i & (c->stride - 1)) == 0;
}
const char *tsr_tc_cache_get_gated(struct tsr_tc_cache *c, const void *key, size_t klen, uint64_t h, size_t *vlen);

#endif
