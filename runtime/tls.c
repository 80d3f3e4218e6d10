/* Per-thread tables (tls.h). */
#include "tls.h"

#include <stdio.h>
#include <stdlib.h>

void *tsr_thread_table(size_t n, size_t size, atomic_flag *registered, void **first, void (*fini)(void))
{
    void *tbl = calloc(n, size);
    if (!tbl) {
        fputs("tessera: out of memory\n", stderr);
        abort();
    }
    if (!atomic_flag_test_and_set(registered)) {
        *first = tbl;
        atexit(fini);
    }
    return tbl;
}
