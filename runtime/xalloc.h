/* Allocation that does not fail: out of memory, the process says so on stderr and aborts (no caller of these can
 * go on without the memory, and none leaves output half-written: files are written through fileout.h). */
#ifndef TSR_XALLOC_H
#define TSR_XALLOC_H

#include <stdio.h>
#include <stdlib.h>

/* realloc(p, n), n == 0 taken as 1 byte; never NULL. */
static inline void *tsr_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fputs("tessera: out of memory\n", stderr);
        abort();
    }
    return q;
}

/* calloc(n, size), n == 0 taken as 1; never NULL. */
static inline void *tsr_xcalloc(size_t n, size_t size)
{
    void *q = calloc(n ? n : 1, size ? size : 1);
    if (!q) {
        fputs("tessera: out of memory\n", stderr);
        abort();
    }
    return q;
}

#endif
