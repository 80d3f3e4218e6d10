/* String interning with xxHash and open addressing (see intern.h). */
#include "intern.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

static const char empty[1];

static uint64_t hash_bytes(const char *s, size_t len)
{
    return XXH3_64bits(len ? s : empty, len);
}

/* Index of the slot holding (s, len, h), or of the empty slot where it belongs. */
static size_t find(const struct tsr_intern_slot *slots, size_t cap, const char *s, size_t len,
                   uint64_t h)
{
    size_t mask = cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        const struct tsr_intern_slot *e = &slots[i];
        if (!e->str || (e->hash == h && e->len == len && (len == 0 || memcmp(e->str, s, len) == 0)))
            return i;
    }
}

static void grow(struct tsr_intern *t)
{
    size_t cap = t->cap ? 2 * t->cap : 64;
    struct tsr_intern_slot *slots = calloc(cap, sizeof *slots);
    if (!slots) {
        fputs("tessera: out of memory\n", stderr);
        abort();
    }
    for (size_t i = 0; i < t->cap; i++) {
        const struct tsr_intern_slot *e = &t->slots[i];
        if (e->str)
            slots[find(slots, cap, e->str, e->len, e->hash)] = *e;
    }
    free(t->slots);
    t->slots = slots;
    t->cap = cap;
}

const char *tsr_intern_lookup(const struct tsr_intern *t, const char *str, size_t len)
{
    if (!t->cap)
        return NULL;
    return t->slots[find(t->slots, t->cap, str, len, hash_bytes(str, len))].str;
}

const char *tsr_intern(struct tsr_intern *t, const char *str, size_t len)
{
    if (4 * (t->count + 1) > 3 * t->cap)
        grow(t);
    uint64_t h = hash_bytes(str, len);
    struct tsr_intern_slot *e = &t->slots[find(t->slots, t->cap, str, len, h)];
    if (!e->str) {
        e->str = tsr_arena_strndup(&t->arena, len ? str : empty, len);
        e->len = len;
        e->hash = h;
        t->count++;
    }
    return e->str;
}

const char *tsr_intern_cstr(struct tsr_intern *t, const char *str)
{
    return tsr_intern(t, str, strlen(str));
}

void tsr_intern_free(struct tsr_intern *t)
{
    free(t->slots);
    tsr_arena_free_all(&t->arena);
    t->slots = NULL;
    t->cap = t->count = 0;
}
