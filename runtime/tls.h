/* Per-thread tables: the runtime's caches (the packer's memos, the single-bundle assembler's memo) each keep
 * a table in a _Thread_local pointer, allocated on the thread's first use, so that threads never share one.
 *
 * Ownership: the first thread to allocate a table of a kind frees it at exit (through the kind's `fini`,
 * which frees *first), so a one-threaded process ends with nothing allocated (the sanitizers' leak check);
 * other threads' tables stay until the process ends (C11 gives no portable per-thread destructor).
 *
 * Errors: none returned.  When calloc fails the process aborts: running out of memory is not a property of
 * the input (docs/internals.md), as in arena.h.
 */
#ifndef TSR_TLS_H
#define TSR_TLS_H

#include <stdatomic.h>
#include <stddef.h>

/* A thread's table of n entries of `size` bytes, zeroed.  registered: the kind's flag (static, initialised
 * with ATOMIC_FLAG_INIT); the first caller of the kind stores the table in *first and has fini run at exit. */
void *tsr_thread_table(size_t n, size_t size, atomic_flag *registered, void **first, void (*fini)(void));

#endif
