/* Arena (bump) allocator: many small allocations, freed all at once.
 *
 * Used for AST nodes, interned strings and other data that lives as long as one compilation.
 * Memory comes from malloc'd blocks of TSR_ARENA_BLOCK bytes (larger requests get a block of
 * their own); pointers stay valid until tsr_arena_free_all().  Every allocation is zeroed and
 * aligned to 16 bytes (enough for any C11 object on the supported hosts: max_align_t is 16 on
 * x86-64 and AArch64).
 *
 * Errors: there is no error return.  When malloc fails, or a size overflows size_t, the arena
 * prints "tessera: out of memory" to stderr and calls abort(): running out of memory is not a
 * property of the input, so the no-abort rule for bad input (docs/internals.md) does not apply.
 */
#ifndef TSR_ARENA_H
#define TSR_ARENA_H

#include <stddef.h>

/* Usual block size in bytes; a request larger than a quarter of it gets its own block. */
#define TSR_ARENA_BLOCK (64 * 1024)

/* Alignment of every pointer returned by tsr_arena_alloc(), in bytes. */
#define TSR_ARENA_ALIGN 16

struct tsr_arena_block;

/* An arena.  A zero-initialised struct (`struct tsr_arena a = {0};`) is an empty arena;
 * `bytes` counts the bytes handed out (after rounding each request up to 16). */
struct tsr_arena {
    struct tsr_arena_block *head; /* newest block first */
    size_t bytes;
};

/* Returns `size` zeroed bytes aligned to 16.  size 0 gives a distinct 16-byte allocation. */
void *tsr_arena_alloc(struct tsr_arena *a, size_t size);

/* Copies the NUL-terminated string `s` into the arena. */
char *tsr_arena_strdup(struct tsr_arena *a, const char *s);

/* Copies `n` bytes of `s` into the arena and appends a NUL (s may contain NULs). */
char *tsr_arena_strndup(struct tsr_arena *a, const char *s, size_t n);

/* Frees every block; all pointers from `a` become invalid and `a` is empty (reusable). */
void tsr_arena_free_all(struct tsr_arena *a);

#endif
