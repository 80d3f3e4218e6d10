/* Output files and text buffers.
 *
 * tsr_file_commit() is the only way Tessera writes an output file (docs/internals.md): the
 * data goes to `<path>.tmp.<pid>` in the same directory, which is then renamed over `path`, so
 * a reader never sees a half-written file and a failed write leaves the old file (or no file)
 * in place.  An existing path that is a device or a FIFO (`-o /dev/null`, `/dev/full`) is written in
 * place instead: renaming over it would replace the device with a regular file.  `struct tsr_buf` is
 * the growable string the emitters and the disassembler print into before committing.
 * Errors: file functions return 0 or -1 and report `path: error: <what>: <strerror>` through
 * the given diag.  Buffer functions cannot fail except by running out of memory, which aborts
 * (see arena.h).
 */
#ifndef TSR_FILEOUT_H
#define TSR_FILEOUT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "diag.h"

/* A growable byte buffer.  A zero-initialised struct is empty.  After any append `data` is
 * non-NULL and NUL-terminated at data[len] (the NUL is not counted in len). */
struct tsr_buf {
    char *data;
    size_t len, cap;
};

/* Appends `n` bytes (which may include NULs). */
void tsr_buf_append(struct tsr_buf *b, const void *p, size_t n);

/* Makes room for `n` more bytes (and the NUL) without changing the contents: data[len .. len+n] may be
 * written, then len moved forward (and data[len] set to NUL) by the caller. */
void tsr_buf_reserve(struct tsr_buf *b, size_t n);

/* tsr_buf_reserve's check inline: the call only when the room is not there yet (hot loops that write
 * straight into data). */
static inline void tsr_buf_room(struct tsr_buf *b, size_t n)
{
    if (n >= b->cap - b->len)   /* also when cap is 0 (data NULL) */
        tsr_buf_reserve(b, n);
}

/* Appends a NUL-terminated string. */
void tsr_buf_puts(struct tsr_buf *b, const char *s);

/* Appends printf-formatted text. */
void tsr_buf_printf(struct tsr_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* va_list form of tsr_buf_printf(). */
void tsr_buf_vprintf(struct tsr_buf *b, const char *fmt, va_list ap);

/* Empties the buffer but keeps its memory. */
void tsr_buf_clear(struct tsr_buf *b);

/* Frees the memory; the buffer is empty (reusable) afterwards. */
void tsr_buf_free(struct tsr_buf *b);

/* Atomically replaces `path` with `len` bytes of `data`: writes `<path>.tmp.<pid>`, then
 * renames it to `path`.  If `path` already holds exactly these bytes nothing is written and
 * its timestamp is kept (so ninja's restat skips rebuilding dependants).  On failure the
 * temporary is removed, `path` is untouched, an error is reported and -1 returned. */
int tsr_file_commit(const char *path, const void *data, size_t len, struct tsr_diag *d);

/* An output file written as it is produced, with tsr_file_commit's guarantees: the bytes go to
 * `<path>.tmp.<pid>`, renamed over `path` by tsr_fileout_commit (not at all if `path` already holds
 * exactly these bytes); tsr_fileout_abort, or a failed write or commit, removes the temporary and leaves
 * `path` untouched.  Memory: stdio's buffer, whatever the size of the output. */
struct tsr_fileout {
    FILE *f;           /* NULL once committed or aborted */
    char *path, *tmp;
    int err;           /* the first errno of a failed write, 0 */
};
/* Creates the temporary.  Returns 0, or -1 with `path: error: cannot write: <reason>` (d NULL: not
 * reported; o->err holds the errno). */
int tsr_fileout_open(struct tsr_fileout *o, const char *path, struct tsr_diag *d);
/* Appends n bytes (a failure is remembered and reported by the commit).  Returns 0 or -1. */
int tsr_fileout_write(struct tsr_fileout *o, const void *data, size_t n);
/* Flushes, closes and renames the temporary over the path.  Returns 0, or -1 with
 * `path: error: cannot write: <reason>` (the temporary removed). */
int tsr_fileout_commit(struct tsr_fileout *o, struct tsr_diag *d);
/* Closes and removes the temporary (nothing written to path).  Harmless after a commit. */
void tsr_fileout_abort(struct tsr_fileout *o);

/* A text file read line by line in 64 KiB chunks (a line may be longer: the buffer grows to hold it).
 * Memory: the chunk and the longest line, whatever the size of the file. */
struct tsr_lines {
    FILE *f;
    char *buf;
    size_t cap, have, used;   /* buf[used, have): read, not yet given */
    int err;                  /* errno of a failed read, 0 */
};
/* Opens `path`.  Returns 0, or -1 with `path: error: cannot read: <reason>`. */
int tsr_lines_open(struct tsr_lines *r, const char *path, struct tsr_diag *d);
/* The next line as [*b, *e) without its '\n' (the last line may lack one; valid until the next call).
 * Returns 1, or 0 at the end of the file or on a read error (r->err set). */
int tsr_lines_next(struct tsr_lines *r, const char **b, const char **e);
/* Starts again at the first line.  Returns 0 or -1 (r->err set). */
int tsr_lines_rewind(struct tsr_lines *r);
void tsr_lines_close(struct tsr_lines *r);

/* Reads the whole file `path` into `out` (appending; out->data is NUL-terminated).
 * Returns 0, or -1 with `path: error: cannot read: <reason>`. */
int tsr_file_read(const char *path, struct tsr_buf *out, struct tsr_diag *d);

/* Creates directory `path` and its missing parents (mode 0777 before umask), like mkdir -p.
 * Returns 0 (also when it exists), or -1 with `path: error: cannot create directory: ...`. */
int tsr_mkdir_p(const char *path, struct tsr_diag *d);

#endif
