/* Test support: compares our disassembly of a corpus word with the source line in its `//` comment
 * (GPU_FFT's hex files keep the Broadcom-assembler source of every word).
 *
 * Agreement rules (the "mnemonic, operands, signal and condition, allowing for the register
 * aliases the qasm sources define with .set"):
 *  - the bundle's parts (`;`-separated) agree in number and order once `nop` parts are dropped, and
 *    each part's mnemonic with its suffixes (`fadd.ifz`, `and.setf`, `brr.allz`, signals) is equal;
 *  - each operand agrees: equal text; or the source names an alias (`.set NAME, ra5`, possibly
 *    `NAME+K`) that resolves to our register; or both are constants of equal 32-bit value (the source's
 *    expressions are evaluated with the `.set` constants and the Broadcom setup-word functions
 *    vpm_setup, v32, dma_h32, vdw_setup_0/1); rotations compare base operand and amount mod 16
 *    (`x << n` = `x >> 16-n`); `sacq(e)`/`srel(e)` compare the evaluated argument;
 *  - an operand the source states through a macro parameter or loop variable (`arg`, `i+9`) cannot be
 *    resolved: it is counted as unresolved, not as agreement or mismatch; `r:Lxxx` branch targets are
 *    labels on both sides and are counted as unresolved too.
 * Overrides (`{field=value}`) we print are counted and ignored for the comparison. */
#ifndef TESTS_SUPPORT_CORPUS_H
#define TESTS_SUPPORT_CORPUS_H
#include <stddef.h>
#include <stdint.h>

struct cc_aliases { size_t n, cap; char **name, **value; };   /* `.set` definitions, in file order */
struct cc_stats {
	unsigned words, mismatches, fully_checked, partly_checked, overrides;
	unsigned operands, unresolved_operands;
};

/* Loads the `.set` lines of dir/file and the files it `.include`s (recursively). 0 or -1. */
int cc_aliases_load(struct cc_aliases *a, const char *dir, const char *file, int depth);
void cc_aliases_free(struct cc_aliases *a);
/* Evaluates a constant expression s[0..n) with the aliases. 0 and *out, or -1. */
int cc_eval(const char *s, size_t n, const struct cc_aliases *a, int64_t *out);
/* Compares our text with the comment; updates st; 1 agree, 0 mismatch (why says how). */
int cc_compare(const char *ours, const char *comment, const struct cc_aliases *a, struct cc_stats *st, char *why,
	       size_t whylen);
#endif
