/* The assembler's and disassembler's text <-> bits memo (asm_engine.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm_engine.h"

#define XXH_INLINE_ALL   /* the hash of a short key without a call into the library */
#include <xxhash.h>

/* The key's hash: XXH3 (the project's hash, as in intern.c), inlined so that a one-word key (the
 * disassembler's) costs a few instructions and no call.  Never 0: 0 marks an empty entry. */
static uint64_t hash(const void *p, size_t n)
{
    return XXH3_64bits(p, n) | 1;
}

/* Whether the klen bytes at a and b are the same (a one-word key without a call). */
static bool same_key(const void *a, const void *b, size_t klen)
{
    if (klen == 8) {
        uint64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        return x == y;
    }
    return memcmp(a, b, klen) == 0;
}

/* The home slot of hash h in a table of cap (a power of two) entries.  Not h's low bits: `| 1` above makes
 * bit 0 always set, so they would reach only the odd slots (half the table, and long probe runs). */
static size_t home(uint64_t h, size_t cap)
{
    return (size_t)(h >> 1 ^ h >> 33) & (cap - 1);
}

const char *tsr_tc_cache_get(const struct tsr_tc_cache *c, const void *key, size_t klen, size_t *vlen)
{
    return tsr_tc_cache_get_hashed(c, key, klen, hash(key, klen), vlen);
}

/* The entry of the klen bytes at key (hash h), or NULL. */
static const struct tsr_tc_cache_ent *find(const struct tsr_tc_cache *c, const void *key, size_t klen, uint64_t h)
{
    if (!c->cap)
        return NULL;
    for (size_t i = home(h, c->cap);; i = (i + 1) & (c->cap - 1)) {
        const struct tsr_tc_cache_ent *e = &c->e[i];
        if (!e->h)
            return NULL;
        if (e->h == h && e->klen == klen && same_key(c->data + e->koff, key, klen))
            return e;
    }
}

const char *tsr_tc_cache_get_hashed(const struct tsr_tc_cache *c, const void *key, size_t klen, uint64_t h,
                                    size_t *vlen)
{
    const struct tsr_tc_cache_ent *e = find(c, key, klen, h);
    if (!e || e->vlen == TSR_TC_KEY_ONLY)
        return NULL;
    *vlen = e->vlen;
    return c->data + e->voff;
}

/* The gate's count of a lookup made: a key found (with its value or only its key) opens it (again). */
static void count(struct tsr_tc_cache *c, bool found)
{
    if (found) {
        c->misses = 0;
        c->stride = 0;
    } else if (++c->misses >= TSR_TC_GATE_WINDOW) {
        c->stride = TSR_TC_GATE_STRIDE;
    }
}

const char *tsr_tc_cache_get_gated(struct tsr_tc_cache *c, const void *key, size_t klen, uint64_t h, size_t *vlen)
{
    const struct tsr_tc_cache_ent *e = find(c, key, klen, h);
    count(c, e != NULL);
    if (!e || e->vlen == TSR_TC_KEY_ONLY)
        return NULL;
    *vlen = e->vlen;
    return c->data + e->voff;
}

uint64_t tsr_tc_cache_prefetch(const struct tsr_tc_cache *c, const void *key, size_t klen)
{
    uint64_t h = hash(key, klen);
#if defined(__GNUC__) || defined(__clang__)
    if (c->cap)
        __builtin_prefetch(&c->e[home(h, c->cap)]);
#else
    (void)c;
#endif
    return h;
}

static void grow_data(struct tsr_tc_cache *c, size_t n)
{
    if (c->len + n <= c->dcap)
        return;
    size_t cap = c->dcap ? c->dcap : 4096;
    while (cap < c->len + n)
        cap *= 2;
    char *d = realloc(c->data, cap);
    if (!d) {
        fputs("tessera: out of memory\n", stderr);
        abort();
    }
    c->data = d;
    c->dcap = cap;
}

void tsr_tc_cache_put(struct tsr_tc_cache *c, const void *key, size_t klen, const void *val, size_t vlen)
{
    tsr_tc_cache_put_hashed(c, key, klen, hash(key, klen), val, vlen);
}

void tsr_tc_cache_put_hashed(struct tsr_tc_cache *c, const void *key, size_t klen, uint64_t h, const void *val,
                             size_t vlen)
{
    if (klen > UINT32_MAX / 4 || vlen > UINT32_MAX / 4)
        return;
    if (c->cap) {   /* a key kept alone while the gate was closed gets its value */
        for (size_t i = home(h, c->cap); c->e[i].h; i = (i + 1) & (c->cap - 1)) {
            struct tsr_tc_cache_ent *e = &c->e[i];
            if (e->h == h && e->vlen == TSR_TC_KEY_ONLY && e->klen == klen && same_key(c->data + e->koff, key, klen)) {
                grow_data(c, vlen);
                e->voff = (uint32_t)c->len;
                e->vlen = (uint32_t)vlen;
                memcpy(c->data + c->len, val, vlen);
                c->len += vlen;
                return;
            }
        }
    }
    if (c->count >= TSR_TC_CACHE_MAX)
        return;
    if ((c->count + 1) * 2 > c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 1024;
        struct tsr_tc_cache_ent *e = calloc(cap, sizeof *e);
        if (!e) {
            fputs("tessera: out of memory\n", stderr);
            abort();
        }
        for (size_t i = 0; i < c->cap; i++)
            if (c->e[i].h) {
                size_t j = home(c->e[i].h, cap);
                while (e[j].h)
                    j = (j + 1) & (cap - 1);
                e[j] = c->e[i];
            }
        free(c->e);
        c->e = e;
        c->cap = cap;
    }
    size_t i = home(h, c->cap);
    while (c->e[i].h)
        i = (i + 1) & (c->cap - 1);
    bool key_only = c->stride != 0;   /* the gate is closed: the key alone, a sample to tell whether keys repeat */
    grow_data(c, klen + (key_only ? 0 : vlen));
    struct tsr_tc_cache_ent *e = &c->e[i];
    e->h = h;
    e->koff = (uint32_t)c->len;
    e->klen = (uint32_t)klen;
    if (klen == 8)   /* one word: without a call */
        memcpy(c->data + c->len, key, 8);
    else
        memcpy(c->data + c->len, key, klen);
    c->len += klen;
    if (key_only) {
        e->voff = 0;
        e->vlen = TSR_TC_KEY_ONLY;
    } else {
        e->voff = (uint32_t)c->len;
        e->vlen = (uint32_t)vlen;
        memcpy(c->data + c->len, val, vlen);
        c->len += vlen;
    }
    c->count++;
}

void tsr_tc_cache_free(struct tsr_tc_cache *c)
{
    free(c->e);
    free(c->data);
    memset(c, 0, sizeof *c);
}
