/* Diagnostics sink: formatting, printing or storing, and the error limit (see diag.h). */
#include "diag.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

static const char *const severity_word[] = {"note", "warning", "error"};

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(tsr_xrealloc(NULL, n), s, n);
}

/* printf into a fresh malloc'd string. */
static char *vformat(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return xstrdup(fmt); /* invalid format for the arguments: show it raw */
    char *s = tsr_xrealloc(NULL, (size_t)n + 1);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

static char *format(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = vformat(fmt, ap);
    va_end(ap);
    return s;
}

void tsr_diag_init(struct tsr_diag *d, enum tsr_diag_mode mode, FILE *out)
{
    memset(d, 0, sizeof *d);
    d->mode = mode;
    d->out = out;
    d->max_errors = TSR_DIAG_MAX_ERRORS;
}

void tsr_diag_fini(struct tsr_diag *d)
{
    for (size_t i = 0; i < d->count; i++) {
        free(d->entries[i].file);
        free(d->entries[i].message);
        free(d->entries[i].text);
    }
    free(d->entries);
    d->entries = NULL;
    d->count = d->cap = 0;
}

/* Prints or stores one formatted diagnostic; takes ownership of `message`. */
static void emit(struct tsr_diag *d, enum tsr_severity sev, const char *file, unsigned line,
                 unsigned col, char *message)
{
    const char *word = severity_word[sev];
    char *text;
    if (!file)
        text = format("%s: %s", word, message);
    else if (line == 0)
        text = format("%s: %s: %s", file, word, message);
    else if (col == 0)
        text = format("%s:%u: %s: %s", file, line, word, message);
    else
        text = format("%s:%u:%u: %s: %s", file, line, col, word, message);
    if (d->mode == TSR_DIAG_PRINT) {
        FILE *out = d->out ? d->out : stderr;
        fprintf(out, "%s\n", text);
        fflush(out);
        free(text);
        free(message);
        return;
    }
    if (d->count == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 16;
        d->entries = tsr_xrealloc(d->entries, d->cap * sizeof *d->entries);
    }
    d->entries[d->count++] = (struct tsr_diag_entry){
        .severity = sev, .file = file ? xstrdup(file) : NULL, .line = line,
        .col = line ? col : 0, .message = message, .text = text,
    };
}

int tsr_diag_vreport(struct tsr_diag *d, enum tsr_severity sev, const char *file, unsigned line,
                     unsigned col, const char *fmt, va_list ap)
{
    if (sev == TSR_ERROR)
        d->errors++;
    else if (sev == TSR_WARNING)
        d->warnings++;
    if (d->capped)
        return sev == TSR_ERROR ? -1 : 0;
    if (sev == TSR_ERROR && d->max_errors && d->errors > d->max_errors) {
        d->capped = true;
        emit(d, TSR_ERROR, NULL, 0, 0,
             format("too many errors (%u), further diagnostics suppressed", d->max_errors));
        return -1;
    }
    emit(d, sev, file, line, col, vformat(fmt, ap));
    return sev == TSR_ERROR ? -1 : 0;
}

int tsr_diag_error(struct tsr_diag *d, const char *file, unsigned line, unsigned col,
                   const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tsr_diag_vreport(d, TSR_ERROR, file, line, col, fmt, ap);
    va_end(ap);
    return -1;
}

void tsr_diag_warning(struct tsr_diag *d, const char *file, unsigned line, unsigned col,
                      const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tsr_diag_vreport(d, TSR_WARNING, file, line, col, fmt, ap);
    va_end(ap);
}

void tsr_diag_note(struct tsr_diag *d, const char *file, unsigned line, unsigned col,
                   const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tsr_diag_vreport(d, TSR_NOTE, file, line, col, fmt, ap);
    va_end(ap);
}

void tsr_diag_flush(const struct tsr_diag *d, FILE *out)
{
    if (!out)
        out = stderr;
    for (size_t i = 0; i < d->count; i++)
        fprintf(out, "%s\n", d->entries[i].text);
    fflush(out);
}

bool tsr_diag_stop(const struct tsr_diag *d)
{
    return d->capped;
}
