/* Diagnostics: errors, warnings and notes in the form `file:line:col: severity: message`.
 *
 * Every Tessera function that can fail on bad input reports through a `struct tsr_diag` and
 * returns a negative int (docs/internals.md).  A diagnostic is printed as it arrives (mode
 * TSR_DIAG_PRINT) or kept for later (TSR_DIAG_STORE, used by tests and by tools that sort or
 * filter messages).  Positions are 1-based:
 *   line > 0, col > 0   ->  "file:line:col: error: message"
 *   line > 0, col == 0  ->  "file:line: error: message"      (no column)
 *   line == 0           ->  "file: error: message"           (whole file; col ignored)
 *   file == NULL        ->  "error: message"                 (no file at all)
 * After `max_errors` errors (default 50) one final line
 *   "error: too many errors (50), further diagnostics suppressed"
 * is emitted and every later diagnostic (error, warning or note) is counted but not shown.
 * Like the arena, this module aborts (with a message) only when malloc fails.
 */
#ifndef TSR_DIAG_H
#define TSR_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Default for `struct tsr_diag.max_errors`. */
#define TSR_DIAG_MAX_ERRORS 50

/* Severity of one diagnostic; the printed word is "error", "warning" or "note". */
enum tsr_severity { TSR_NOTE, TSR_WARNING, TSR_ERROR };

/* What happens to a diagnostic when it is reported. */
enum tsr_diag_mode {
    TSR_DIAG_PRINT, /* write it to `out` at once (and keep nothing) */
    TSR_DIAG_STORE  /* append it to `entries`; print later with tsr_diag_flush() */
};

/* One stored diagnostic (TSR_DIAG_STORE).  `file` is a copy (NULL if none was given);
 * `text` is the complete formatted line without the trailing newline, exactly as printed. */
struct tsr_diag_entry {
    enum tsr_severity severity;
    char *file;
    unsigned line, col;
    char *message; /* the message alone, without position or severity */
    char *text;    /* "file:line:col: error: message" */
};

/* A diagnostics sink.  Initialise with tsr_diag_init(); release with tsr_diag_fini().
 * Fields may be read directly; `max_errors` may be changed at any time (0 = no limit). */
struct tsr_diag {
    enum tsr_diag_mode mode;
    FILE *out;           /* destination in TSR_DIAG_PRINT mode; NULL means stderr */
    unsigned max_errors; /* errors shown before the "too many errors" line; 0 = unlimited */
    unsigned errors;     /* errors reported, including suppressed ones */
    unsigned warnings;   /* warnings reported, including suppressed ones */
    bool capped;         /* the error limit was reached; later diagnostics are suppressed */
    struct tsr_diag_entry *entries; /* TSR_DIAG_STORE: `count` entries in report order */
    size_t count, cap;
};

/* Initialises `d` in `mode`, printing to `out` (NULL = stderr), with max_errors = 50. */
void tsr_diag_init(struct tsr_diag *d, enum tsr_diag_mode mode, FILE *out);

/* Frees the stored entries.  `d` may be re-initialised afterwards. */
void tsr_diag_fini(struct tsr_diag *d);

/* Reports an error at file:line:col (see the header comment for 0 positions) with a printf
 * format.  Always returns -1, so callers can write `return tsr_diag_error(...)`. */
int tsr_diag_error(struct tsr_diag *d, const char *file, unsigned line, unsigned col,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Reports a warning; warnings never count towards the error limit. */
void tsr_diag_warning(struct tsr_diag *d, const char *file, unsigned line, unsigned col,
                      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Reports a note (extra information about the previous diagnostic). */
void tsr_diag_note(struct tsr_diag *d, const char *file, unsigned line, unsigned col,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* The va_list form of the three functions above.  Returns -1 for TSR_ERROR, 0 otherwise. */
int tsr_diag_vreport(struct tsr_diag *d, enum tsr_severity sev, const char *file, unsigned line,
                     unsigned col, const char *fmt, va_list ap);

/* Writes every stored entry (one line each) to `out` (NULL = stderr). */
void tsr_diag_flush(const struct tsr_diag *d, FILE *out);

/* True when no further error should be looked for: the error limit has been reached. */
bool tsr_diag_stop(const struct tsr_diag *d);

#endif
