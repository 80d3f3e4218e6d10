/* Atomic file output, whole-file input, directories, and the growable buffer (fileout.h). */
#include "fileout.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void reserve(struct tsr_buf *b, size_t extra)
{
    if (extra >= (size_t)-1 - b->len - 1)
        goto oom;
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap = cap > (size_t)-1 / 2 ? need : 2 * cap;
    char *p = realloc(b->data, cap);
    if (!p)
        goto oom;
    b->data = p;
    b->cap = cap;
    return;
oom:
    fputs("tessera: out of memory\n", stderr);
    abort();
}

void tsr_buf_reserve(struct tsr_buf *b, size_t n)
{
    reserve(b, n);
}

void tsr_buf_append(struct tsr_buf *b, const void *p, size_t n)
{
    reserve(b, n);
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void tsr_buf_puts(struct tsr_buf *b, const char *s)
{
    tsr_buf_append(b, s, strlen(s));
}

void tsr_buf_vprintf(struct tsr_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0) { /* bad format for the arguments: keep the format itself */
        tsr_buf_puts(b, fmt);
        return;
    }
    reserve(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void tsr_buf_printf(struct tsr_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tsr_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void tsr_buf_clear(struct tsr_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

void tsr_buf_free(struct tsr_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

/* True if the file at `path` holds exactly `len` bytes equal to `data`. */
static int same_content(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    char chunk[8192];
    size_t off = 0, n;
    int same = 1;
    while (same && (n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        same = off + n <= len && memcmp(chunk, (const char *)data + off, n) == 0;
        off += n;
    }
    same = same && !ferror(f) && off == len;
    fclose(f);
    return same;
}

/* An existing `path` that is neither a regular file nor a directory (a device such as /dev/null or
 * /dev/full, a FIFO, a socket) is written in place: renaming a temporary over it would replace the device
 * with a regular file. */
static bool write_in_place(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/* Writes len bytes of data to the existing special file path; 0, or -1 reported. */
static int write_special(const char *path, const void *data, size_t len, struct tsr_diag *d)
{
    FILE *f = fopen(path, "wb");
    errno = 0;
    int bad = !f || (len && fwrite(data, 1, len, f) != len);
    bad |= f && fflush(f) != 0;
    int err = errno;
    bad |= f && fclose(f) != 0;
    err = err ? err : errno;
    if (bad)
        return tsr_diag_error(d, path, 0, 0, "cannot write: %s", strerror(err ? err : EIO));
    return 0;
}

int tsr_file_commit(const char *path, const void *data, size_t len, struct tsr_diag *d)
{
    if (write_in_place(path))
        return write_special(path, data, len, d);
    if (same_content(path, data, len))
        return 0;
    struct tsr_buf tmp = {0};
    tsr_buf_printf(&tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp.data, "wb");
    if (!f) {
        tsr_diag_error(d, path, 0, 0, "cannot write: %s", strerror(errno));
        tsr_buf_free(&tmp);
        return -1;
    }
    errno = 0;
    int bad = len && fwrite(data, 1, len, f) != len;
    bad |= fflush(f) != 0;
    int err = errno;
    bad |= fclose(f) != 0;
    err = err ? err : errno;
    if (!bad && rename(tmp.data, path) != 0) {
        bad = 1;
        err = errno;
    }
    if (bad) {
        remove(tmp.data);
        tsr_diag_error(d, path, 0, 0, "cannot write: %s", strerror(err ? err : EIO));
        tsr_buf_free(&tmp);
        return -1;
    }
    tsr_buf_free(&tmp);
    return 0;
}

static char *xstrdup(const char *s)
{
    struct tsr_buf b = {0};
    tsr_buf_puts(&b, s);
    return b.data;
}

int tsr_fileout_open(struct tsr_fileout *o, const char *path, struct tsr_diag *d)
{
    struct tsr_buf tmp = {0};
    memset(o, 0, sizeof *o);
    if (write_in_place(path))   /* a device or FIFO: written as it comes, no temporary (o->tmp NULL) */
        tsr_buf_puts(&tmp, path);
    else
        tsr_buf_printf(&tmp, "%s.tmp.%ld", path, (long)getpid());
    o->f = fopen(tmp.data, "wb");
    if (!o->f) {
        o->err = errno ? errno : EIO;
        if (d)
            tsr_diag_error(d, path, 0, 0, "cannot write: %s", strerror(o->err));
        tsr_buf_free(&tmp);
        return -1;
    }
    o->path = xstrdup(path);
    o->tmp = strcmp(tmp.data, path) ? tmp.data : NULL;
    if (!o->tmp)
        tsr_buf_free(&tmp);
    return 0;
}

int tsr_fileout_write(struct tsr_fileout *o, const void *data, size_t n)
{
    if (!o->f || o->err)
        return -1;
    errno = 0;
    if (n && fwrite(data, 1, n, o->f) != n) {
        o->err = errno ? errno : EIO;
        return -1;
    }
    return 0;
}

/* True if the files a and b hold the same bytes. */
static int same_files(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fa ? fopen(b, "rb") : NULL;
    int same = fa && fb;
    char ca[8192], cb[8192];
    while (same) {
        size_t na = fread(ca, 1, sizeof ca, fa), nb = fread(cb, 1, sizeof cb, fb);
        same = na == nb && memcmp(ca, cb, na) == 0 && !ferror(fa) && !ferror(fb);
        if (na == 0)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

static void fileout_release(struct tsr_fileout *o)
{
    free(o->path);
    free(o->tmp);
    memset(o, 0, sizeof *o);
}

int tsr_fileout_commit(struct tsr_fileout *o, struct tsr_diag *d)
{
    if (!o->f)
        return -1;
    errno = 0;
    int err = o->err;
    int bad = err || fflush(o->f) != 0;
    err = err ? err : errno;
    bad |= fclose(o->f) != 0;
    err = err ? err : errno;
    o->f = NULL;
    if (!o->tmp) {   /* written in place */
        if (bad)
            tsr_diag_error(d, o->path, 0, 0, "cannot write: %s", strerror(err ? err : EIO));
        fileout_release(o);
        return bad ? -1 : 0;
    }
    if (!bad && same_files(o->tmp, o->path)) {   /* unchanged: keep the file and its timestamp */
        remove(o->tmp);
        fileout_release(o);
        return 0;
    }
    if (!bad && rename(o->tmp, o->path) != 0) {
        bad = 1;
        err = errno;
    }
    if (bad) {
        remove(o->tmp);
        tsr_diag_error(d, o->path, 0, 0, "cannot write: %s", strerror(err ? err : EIO));
        fileout_release(o);
        return -1;
    }
    fileout_release(o);
    return 0;
}

void tsr_fileout_abort(struct tsr_fileout *o)
{
    if (o->f) {
        fclose(o->f);
        if (o->tmp)
            remove(o->tmp);
    }
    fileout_release(o);
}

int tsr_lines_open(struct tsr_lines *r, const char *path, struct tsr_diag *d)
{
    memset(r, 0, sizeof *r);
    r->f = fopen(path, "rb");
    if (!r->f)
        return tsr_diag_error(d, path, 0, 0, "cannot read: %s", strerror(errno));
    r->cap = 65536;
    r->buf = malloc(r->cap);
    if (!r->buf) {
        fputs("tessera: out of memory\n", stderr);
        abort();
    }
    return 0;
}

int tsr_lines_next(struct tsr_lines *r, const char **b, const char **e)
{
    for (;;) {
        char *nl = memchr(r->buf + r->used, '\n', r->have - r->used);
        if (nl) {
            *b = r->buf + r->used;
            *e = nl;
            r->used = (size_t)(nl + 1 - r->buf);
            return 1;
        }
        /* keep the unfinished line at the start, then read more after it */
        memmove(r->buf, r->buf + r->used, r->have - r->used);
        r->have -= r->used;
        r->used = 0;
        if (r->have == r->cap) {
            if (r->cap > (size_t)-1 / 2)
                goto oom;
            char *q = realloc(r->buf, 2 * r->cap);
            if (!q)
                goto oom;
            r->buf = q;
            r->cap *= 2;
        }
        errno = 0;
        size_t n = r->err ? 0 : fread(r->buf + r->have, 1, r->cap - r->have, r->f);
        if (n == 0) {
            if (ferror(r->f) && !r->err)
                r->err = errno ? errno : EIO;
            if (r->have == 0 || r->err)
                return 0;
            *b = r->buf;   /* the last line, without '\n' */
            *e = r->buf + r->have;
            r->used = r->have;
            return 1;
        }
        r->have += n;
    }
oom:
    fputs("tessera: out of memory\n", stderr);
    abort();
}

int tsr_lines_rewind(struct tsr_lines *r)
{
    r->have = r->used = 0;
    if (fseek(r->f, 0, SEEK_SET) != 0) {
        r->err = errno ? errno : EIO;
        return -1;
    }
    clearerr(r->f);
    return 0;
}

void tsr_lines_close(struct tsr_lines *r)
{
    if (r->f)
        fclose(r->f);
    free(r->buf);
    memset(r, 0, sizeof *r);
}

int tsr_file_read(const char *path, struct tsr_buf *out, struct tsr_diag *d)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return tsr_diag_error(d, path, 0, 0, "cannot read: %s", strerror(errno));
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        tsr_buf_append(out, chunk, n);
    int bad = ferror(f);
    int err = errno;
    fclose(f);
    if (bad)
        return tsr_diag_error(d, path, 0, 0, "cannot read: %s", strerror(err ? err : EIO));
    if (!out->data)
        tsr_buf_append(out, "", 0);
    return 0;
}

int tsr_mkdir_p(const char *path, struct tsr_diag *d)
{
    if (!*path)
        return tsr_diag_error(d, NULL, 0, 0, "cannot create a directory with an empty name");
    struct tsr_buf p = {0};
    tsr_buf_puts(&p, path);
    int rc = 0;
    for (char *s = p.data + 1; rc == 0; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char c = *s;
        *s = '\0';
        struct stat st;
        if (mkdir(p.data, 0777) != 0) {
            int e = errno;
            if (e != EEXIST || stat(p.data, &st) != 0 || !S_ISDIR(st.st_mode))
                rc = tsr_diag_error(d, p.data, 0, 0, "cannot create directory: %s",
                                    strerror(e == EEXIST ? ENOTDIR : e));
        }
        *s = c;
        if (c == '\0')
            break;
    }
    tsr_buf_free(&p);
    return rc;
}
