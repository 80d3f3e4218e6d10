/* Arena allocator (see arena.h). */
#include "arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Block header; the payload starts right after it, 16-byte aligned. */
struct tsr_arena_block {
    alignas(TSR_ARENA_ALIGN) struct tsr_arena_block *next;
    size_t used, size; /* bytes of payload used / available */
};

_Static_assert(sizeof(struct tsr_arena_block) % TSR_ARENA_ALIGN == 0, "block header alignment");

static _Noreturn void out_of_memory(void)
{
    fputs("tessera: out of memory\n", stderr);
    abort();
}

static unsigned char *payload(struct tsr_arena_block *b)
{
    return (unsigned char *)(b + 1);
}

void *tsr_arena_alloc(struct tsr_arena *a, size_t size)
{
    if (size > SIZE_MAX - 2 * TSR_ARENA_ALIGN - sizeof(struct tsr_arena_block))
        out_of_memory();
    size_t need = size ? (size + TSR_ARENA_ALIGN - 1) & ~(size_t)(TSR_ARENA_ALIGN - 1) : TSR_ARENA_ALIGN;
    struct tsr_arena_block *b = a->head;
    if (!b || b->size - b->used < need) {
        size_t cap = need > TSR_ARENA_BLOCK / 4 ? need : TSR_ARENA_BLOCK - sizeof *b;
        /* calloc: the arena never reuses memory, so every allocation is zero. */
        struct tsr_arena_block *nb = calloc(1, sizeof *nb + cap);
        if (!nb)
            out_of_memory();
        nb->size = cap;
        if (b && cap == need && b->size - b->used >= TSR_ARENA_ALIGN) {
            /* A big dedicated block goes behind the current one, which keeps its free space. */
            nb->next = b->next;
            b->next = nb;
        } else {
            nb->next = b;
            a->head = nb;
        }
        b = nb;
    }
    void *p = payload(b) + b->used;
    b->used += need;
    a->bytes += need;
    return p;
}

char *tsr_arena_strndup(struct tsr_arena *a, const char *s, size_t n)
{
    if (n == SIZE_MAX)
        out_of_memory();
    char *p = tsr_arena_alloc(a, n + 1);
    if (n)
        memcpy(p, s, n); /* the terminating NUL is already there (zeroed memory) */
    return p;
}

char *tsr_arena_strdup(struct tsr_arena *a, const char *s)
{
    return tsr_arena_strndup(a, s, strlen(s));
}

void tsr_arena_free_all(struct tsr_arena *a)
{
    for (struct tsr_arena_block *b = a->head, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    a->head = NULL;
    a->bytes = 0;
}
