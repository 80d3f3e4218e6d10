/* String interning: one stable copy per distinct string, so names compare by pointer.
 *
 * Hashing is XXH3_64bits from xxHash (Debian libxxhash-dev, <xxhash.h>, link -lxxhash).
 * The table is open-addressed with linear probing and doubles when 3/4 full; the strings
 * themselves live in an arena, so a returned pointer never moves while the table grows and
 * stays valid until tsr_intern_free().
 * Errors: none reported; allocation failure aborts (see arena.h).
 */
#ifndef TSR_INTERN_H
#define TSR_INTERN_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"

/* One table slot; `str == NULL` marks an empty slot. */
struct tsr_intern_slot {
    const char *str;
    size_t len;
    uint64_t hash;
};

/* An interning table.  A zero-initialised struct is an empty table. */
struct tsr_intern {
    struct tsr_arena arena;        /* owns the string copies */
    struct tsr_intern_slot *slots; /* `cap` slots, cap a power of two (or 0) */
    size_t cap, count;
};

/* Returns the interned copy of the `len` bytes at `str` (which may contain NULs; the copy is
 * NUL-terminated).  Equal byte strings give the same pointer; different ones different
 * pointers.  `str` may be NULL when len is 0. */
const char *tsr_intern(struct tsr_intern *t, const char *str, size_t len);

/* tsr_intern() of a NUL-terminated string. */
const char *tsr_intern_cstr(struct tsr_intern *t, const char *str);

/* Returns the interned copy of `str` if present, else NULL (never inserts). */
const char *tsr_intern_lookup(const struct tsr_intern *t, const char *str, size_t len);

/* Frees the table and every interned string; `t` is empty (reusable) afterwards. */
void tsr_intern_free(struct tsr_intern *t);

#endif
