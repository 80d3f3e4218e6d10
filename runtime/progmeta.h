/* Program metadata: what an assembly source says besides its instructions, in the sections a description declares
 * (mdl `asm { section ... }`, docs/asm.md "Declared syntax"): names given to elements of a regfile (grate's
 * `.exports [0] = "position";`) and initial values of elements or of one component (`.constants [0].z = 0.0;`).
 * The assembler fills it (struct tsr_words.meta, runtime/hexio.h); `tessera sim` sets the values before a run and
 * `tessera dis` prints the sections back. */
#ifndef TSR_PROGMETA_H
#define TSR_PROGMETA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"

struct tsr_progmeta_ent {
    const char *section;   /* the section's name, ".constants" (static: the isa's declaration) */
    const char *state;     /* the regfile the entry is of (static), or NULL */
    uint32_t index;        /* its element */
    int comp;              /* a component's index (its letter's place in the declared names), or -1: all */
    char compname;         /* that letter, or 0 */
    bool is_value;         /* a value (else a name) */
    bool fl;               /* the value was written as a float (binary32 bits) */
    uint32_t value;        /* is_value: 32 bits */
    const char *name;      /* !is_value: the text, NUL-terminated (owned by the arena) */
    unsigned line;         /* the source line */
};
struct tsr_progmeta {
    size_t n, cap;
    struct tsr_progmeta_ent *e;
    struct tsr_arena arena;
};

/* Appends a copy of *e (its name copied too) to m, created when *m is NULL. */
void tsr_progmeta_add(struct tsr_progmeta **m, const struct tsr_progmeta_ent *e);
/* Frees m and everything in it (m may be NULL). */
void tsr_progmeta_free(struct tsr_progmeta *m);

#endif
