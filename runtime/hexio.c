/* Reading and writing instruction words as corpus hex text or raw binary (see hexio.h). */
#include "hexio.h"
#include "progmeta.h"
#include "xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_PER 4 /* uint32_t per instruction at the widest supported width (128 bits) */

void tsr_words_init(struct tsr_words *p, unsigned width)
{
    memset(p, 0, sizeof *p);
    p->width = width;
}

void tsr_words_free(struct tsr_words *p)
{
    free(p->w);
    free(p->comment);
    free(p->line);
    tsr_arena_free_all(&p->arena);
    tsr_progmeta_free(p->meta);
    bool lean = p->lean, msw = p->msw_first;
    tsr_words_init(p, p->width);
    p->lean = lean;
    p->msw_first = msw;
}

/* Makes the arrays hold cap instructions (cap > p->cap).  Invariant: line[i] is 0 for i in [count, cap), so that
 * binary input (line 0 throughout) never writes its lines: a new array comes from calloc (a large one as
 * zero pages the kernel maps on first touch, never touched when nothing reads it), a grown one has its new
 * part zeroed. */
static void words_grow(struct tsr_words *p, size_t cap)
{
    unsigned per = tsr_words_per(p);
    if (cap > (size_t)-1 / (MAX_PER * sizeof *p->w)) {
        fputs("tessera: out of memory\n", stderr);
        abort();
    }
    p->w = tsr_xrealloc(p->w, cap * per * sizeof *p->w);
    if (!p->lean)
        p->comment = tsr_xrealloc(p->comment, cap * sizeof *p->comment);
    if (p->line) {
        p->line = tsr_xrealloc(p->line, cap * sizeof *p->line);
        memset(p->line + p->cap, 0, (cap - p->cap) * sizeof *p->line);
    } else {
        p->line = tsr_xcalloc(cap, sizeof *p->line);
    }
    p->cap = cap;
}

/* The capacity after doubling for at least n instructions in all. */
static size_t doubled(const struct tsr_words *p, size_t n)
{
    size_t cap = p->cap ? p->cap : 256;
    while (cap < n)
        cap *= 2;
    return cap;
}

/* Makes the k instructions at w, as read from a file (raw little-endian binary), host words in place. */
static void words_from_le(uint32_t *w, size_t k, unsigned per)
{
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    (void)w, (void)k, (void)per;   /* the file's byte order is the host's */
#else
    const unsigned char *b = (const unsigned char *)w;
    for (size_t i = 0; i < k * per; i++, b += 4)
        w[i] = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
#endif
}

/* Reverses the order of the 32-bit values of each of the k instructions at w when msw (a file's order, most
 * significant first, to memory's least significant first, or back). */
static void words_reorder(uint32_t *w, size_t k, unsigned per, bool msw)
{
    if (!msw || per < 2)
        return;
    for (size_t i = 0; i < k; i++, w += per)
        for (unsigned a = 0, b = per - 1; a < b; a++, b--) {
            uint32_t t = w[a];
            w[a] = w[b];
            w[b] = t;
        }
}

/* Appends the n instructions of raw little-endian binary at b (n * width/8 bytes) at once: one capacity
 * check, no comments, line 0 (what n tsr_words_push calls would give). */
static void push_bin(struct tsr_words *p, const unsigned char *b, size_t n)
{
    unsigned per = tsr_words_per(p);
    if (!n)
        return;
    if (p->count + n > p->cap)
        words_grow(p, doubled(p, p->count + n));
    memcpy(p->w + p->count * per, b, n * per * sizeof *p->w);
    words_from_le(p->w + p->count * per, n, per);
    words_reorder(p->w + p->count * per, n, per, p->msw_first);
    if (!p->lean)
        memset(p->comment + p->count, 0, n * sizeof *p->comment);
    p->count += n;
}

void tsr_words_push(struct tsr_words *p, const uint32_t *word, const char *comment, unsigned line)
{
    unsigned per = tsr_words_per(p);
    if (p->count == p->cap)
        words_grow(p, p->cap ? 2 * p->cap : 256);
    memcpy(p->w + p->count * per, word, per * sizeof *word);
    if (!p->lean)
        p->comment[p->count] = comment ? tsr_arena_strdup(&p->arena, comment) : NULL;
    p->line[p->count] = line;
    p->count++;
}

static int check_width(const struct tsr_words *p, const char *file, struct tsr_diag *d)
{
    if (p->width == 32 || p->width == 64 || p->width == 128)
        return 0;
    return tsr_diag_error(d, file, 0, 0, "unsupported instruction width %u bits (32, 64 or 128)",
                          p->width);
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Describes the character at s (or the end of the line) for a diagnostic. */
static const char *describe(const char *s, const char *end, char buf[16])
{
    if (s == end)
        return "end of line";
    unsigned char c = (unsigned char)*s;
    if (c >= 0x21 && c < 0x7f)
        snprintf(buf, 16, "'%c'", c);
    else
        snprintf(buf, 16, "byte 0x%02x", c);
    return buf;
}

/* True at the end of the line or at the start of a `//` comment. */
static int at_end(const char *s, const char *end)
{
    return s == end || (end - s >= 2 && s[0] == '/' && s[1] == '/');
}

/* Parses one line [s, end).  Returns 1 if it held an instruction (pushed), 0 if it was blank
 * or only a comment, -1 after reporting an error. */
static int parse_line(struct tsr_words *p, const char *s, const char *end, const char *file,
                      unsigned lineno, struct tsr_diag *d)
{
    const char *start = s;
    unsigned per = tsr_words_per(p), n = 0, first_col = 0;
    uint32_t word[MAX_PER] = {0};
    char what[16];
#define COL(q) ((unsigned)((q) - start) + 1)
    while (s < end && is_blank(*s))
        s++;
    if (at_end(s, end))
        return 0;
    for (;;) {
        if (!(end - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')))
            return tsr_diag_error(d, file, lineno, COL(s), "expected a hexadecimal value '0x...', found %s",
                                  describe(s, end, what));
        const char *v = s;
        uint64_t value = 0;
        unsigned digits = 0;
        for (s += 2; s < end && hex_digit(*s) >= 0; s++, digits++)
            if (digits < 16)
                value = value << 4 | (unsigned)hex_digit(*s);
        if (digits == 0)
            return tsr_diag_error(d, file, lineno, COL(s), "expected hexadecimal digits after '0x', found %s",
                                  describe(s, end, what));
        if (digits > 16 || value > 0xffffffffu)
            return tsr_diag_error(d, file, lineno, COL(v), "value %.*s does not fit in 32 bits",
                                  (int)(s - v), v);
        if (n == per)
            return tsr_diag_error(d, file, lineno, COL(v),
                                  "too many values: a %u-bit instruction is %u 32-bit value%s",
                                  p->width, per, per == 1 ? "" : "s");
        if (n == 0)
            first_col = COL(v);
        word[n++] = (uint32_t)value;
        while (s < end && is_blank(*s))
            s++;
        if (at_end(s, end))
            break;
        if (*s != ',')
            return tsr_diag_error(d, file, lineno, COL(s), "expected ',' or '//' after a value, found %s",
                                  describe(s, end, what));
        for (s++; s < end && is_blank(*s); s++)
            ;
        if (at_end(s, end))
            break;
    }
    if (n < per)
        return tsr_diag_error(d, file, lineno, first_col,
                              "too few values: a %u-bit instruction is %u 32-bit values, found %u",
                              p->width, per, n);
    words_reorder(word, 1, per, p->msw_first);
    tsr_words_push(p, word, NULL, lineno);
    if (s < end && !p->lean) { /* the comment after "//", blanks trimmed */
        const char *c = s + 2, *ce = end;
        while (c < ce && is_blank(*c))
            c++;
        while (ce > c && is_blank(ce[-1]))
            ce--;
        p->comment[p->count - 1] = tsr_arena_strndup(&p->arena, c, (size_t)(ce - c));
    }
    return 1;
#undef COL
}

int tsr_hex_parse(struct tsr_words *p, const char *text, size_t len, const char *file,
                  struct tsr_diag *d)
{
    if (check_width(p, file, d))
        return -1;
    if (len == 0) /* text may be NULL then */
        return 0;
    int rc = 0;
    unsigned lineno = 0;
    const char *s = text, *end = text + len;
    while (s < end && !tsr_diag_stop(d)) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *le = nl ? nl : end;
        if (parse_line(p, s, le, file, ++lineno, d) < 0)
            rc = -1;
        s = nl ? nl + 1 : end;
    }
    return rc;
}

int tsr_bin_parse(struct tsr_words *p, const void *data, size_t len, const char *file,
                  struct tsr_diag *d)
{
    if (check_width(p, file, d))
        return -1;
    unsigned bytes = p->width / 8;
    if (len % bytes)
        return tsr_diag_error(d, file, 0, 0, "binary size %zu is not a multiple of %u bytes (%u-bit words)",
                              len, bytes, p->width);
    push_bin(p, data, len / bytes);   /* data may be NULL when len is 0 */
    return 0;
}

/* Length of the well-formed UTF-8 sequence of 2..4 bytes at s[0..n), else 0 (a sequence cut off by
 * the end of the examined bytes counts as well-formed: the cut is ours). */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    size_t len = s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : s[0] >= 0xe0 && s[0] <= 0xef ? 3
                 : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;
    for (size_t k = 1; k < len; k++)
        if (k == n)
            return k;
        else if ((s[k] & 0xc0) != 0x80)
            return 0;
    return len;
}

int tsr_data_is_text(const void *data, size_t len)
{
    const unsigned char *s = data;
    size_t n = len < TSR_DETECT_BYTES ? len : TSR_DETECT_BYTES, odd = 0;
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        size_t u;
        if ((c >= 0x20 && c < 0x7f) || (c >= '\t' && c <= '\r'))
            i++;
        else if (c >= 0x80 && (u = utf8_seq(s + i, n - i)))
            i += u;
        else {
            odd++;
            i++;
        }
    }
    return 3 * odd <= n;
}

enum tsr_wordfmt tsr_words_detect(const void *data, size_t len)
{
    if (!tsr_data_is_text(data, len))
        return TSR_WORDS_BIN;
    if (!len)
        return TSR_WORDS_HEX;   /* empty (data may be NULL: no pointer arithmetic on it) */
    const char *s = data, *end = s + len;
    while (s < end) {   /* the first line that is neither blank nor a `//` comment */
        while (s < end && (is_blank(*s) || *s == '\n'))
            s++;
        if (end - s >= 2 && s[0] == '/' && s[1] == '/') {
            const char *nl = memchr(s, '\n', (size_t)(end - s));
            s = nl ? nl + 1 : end;
            continue;
        }
        break;
    }
    if (s == end || (end - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')))
        return TSR_WORDS_HEX;
    return TSR_WORDS_ASM;
}

int tsr_words_read(struct tsr_words *p, const char *path, enum tsr_wordfmt fmt, struct tsr_diag *d)
{
    struct tsr_buf b = {0};
    int rc = tsr_file_read(path, &b, d);
    if (rc == 0) {
        if (fmt == TSR_WORDS_AUTO)
            fmt = tsr_words_detect(b.data, b.len);
        rc = fmt == TSR_WORDS_BIN ? tsr_bin_parse(p, b.data, b.len, path, d)
                                  : tsr_hex_parse(p, b.data, b.len, path, d);
    }
    tsr_buf_free(&b);
    return rc;
}

void tsr_hex_format_one(const uint32_t *w, unsigned per, bool msw_first, const char *comment, struct tsr_buf *out)
{
    static const char digits[] = "0123456789abcdef";
    for (unsigned k = 0; k < per; k++) {   /* "0x%08x," (" 0x%08x," after the first) */
        char v[13], *q = v;
        uint32_t x = w[msw_first ? per - 1 - k : k];
        if (k)
            *q++ = ' ';
        *q++ = '0';
        *q++ = 'x';
        for (int sh = 28; sh >= 0; sh -= 4)
            *q++ = digits[x >> sh & 15];
        *q++ = ',';
        tsr_buf_append(out, v, (size_t)(q - v));
    }
    if (comment && comment[0]) {
        tsr_buf_append(out, " // ", 4);
        tsr_buf_puts(out, comment);
    }
    tsr_buf_append(out, "\n", 1);
}

void tsr_bin_format_one(const uint32_t *w, unsigned per, bool msw_first, struct tsr_buf *out)
{
    for (unsigned i = 0; i < per; i++) {
        uint32_t v = w[msw_first ? per - 1 - i : i];
        unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                              (unsigned char)(v >> 24)};
        tsr_buf_append(out, b, 4);
    }
}

void tsr_hex_format(const struct tsr_words *p, struct tsr_buf *out)
{
    for (size_t i = 0; i < p->count; i++)
        tsr_hex_format_one(tsr_words_at(p, i), tsr_words_per(p), p->msw_first, p->comment ? p->comment[i] : NULL,
                           out);
}

void tsr_bin_format(const struct tsr_words *p, struct tsr_buf *out)
{
    for (size_t i = 0; i < p->count; i++)
        tsr_bin_format_one(tsr_words_at(p, i), tsr_words_per(p), p->msw_first, out);
}

int tsr_words_write(const struct tsr_words *p, const char *path, enum tsr_wordfmt fmt,
                    struct tsr_diag *d)
{
    if (check_width(p, path, d))
        return -1;
    struct tsr_buf b = {0};
    if (fmt == TSR_WORDS_BIN)
        tsr_bin_format(p, &b);
    else
        tsr_hex_format(p, &b);
    int rc = tsr_file_commit(path, b.data ? b.data : "", b.len, d);
    tsr_buf_free(&b);
    return rc;
}

/* ---- reading in chunks ---------------------------------------------------------------------------- */
#define CHUNK 65536

static int cannot_read(const char *path, int err, struct tsr_diag *d)
{
    return tsr_diag_error(d, path, 0, 0, "cannot read: %s", strerror(err ? err : EIO));
}

static int bad_size(const struct tsr_words *p, const char *path, size_t size, struct tsr_diag *d)
{
    return tsr_diag_error(d, path, 0, 0, "binary size %zu is not a multiple of %u bytes (%u-bit words)", size,
                          p->width / 8, p->width);
}

/* Reads the rest of the binary file f into p, straight into the instruction array (no buffer in between, no
 * copy).  size: the file's size when it is a regular file (the array is then allocated once, of the right
 * size), else 0 (the array grows by doubling; so it does if the file grows while it is read).  Returns 0, or
 * -1 reported. */
static int stream_bin(struct tsr_words *p, FILE *f, size_t size, const char *path, struct tsr_diag *d)
{
    unsigned bytes = p->width / 8, per = tsr_words_per(p);
    size_t pend = 0, total = 0;   /* pend: bytes read past the last whole instruction, kept in place */
    if (size / bytes > p->cap - p->count)
        words_grow(p, p->count + size / bytes);
    for (;;) {
        size_t room = (p->cap - p->count) * bytes - pend;
        if (!room) {   /* full (pend is 0): the end of the file (as its size said), or more than the array holds */
            int c = getc(f);
            if (c == EOF)
                break;
            words_grow(p, doubled(p, p->count + 1));
            *(unsigned char *)(p->w + p->count * per) = (unsigned char)c;
            total++;
            pend = 1;
            room = (p->cap - p->count) * bytes - pend;
        }
        size_t n = fread((unsigned char *)(p->w + p->count * per) + pend, 1, room, f);
        total += n;
        pend += n;
        size_t k = pend / bytes;
        words_from_le(p->w + p->count * per, k, per);
        words_reorder(p->w + p->count * per, k, per, p->msw_first);
        if (!p->lean)
            memset(p->comment + p->count, 0, k * sizeof *p->comment);
        p->count += k;
        pend -= k * bytes;   /* (a read that ends mid-instruction leaves its bytes where they belong) */
        if (!n)
            break;
    }
    if (ferror(f))
        return cannot_read(path, errno, d);
    return pend ? bad_size(p, path, total, d) : 0;
}

int tsr_words_stream(struct tsr_words *p, const char *path, enum tsr_wordfmt fmt, struct tsr_diag *d)
{
    if (check_width(p, path, d))
        return -1;
    FILE *f = fopen(path, "rb");
    if (!f)
        return cannot_read(path, errno, d);
    unsigned bytes = p->width / 8, lineno = 0;
    int rc = 0;
    if (fmt == TSR_WORDS_BIN) {
        struct stat st;   /* a binary file of a wrong size: reported before any word, as tsr_bin_parse does */
        bool known = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 0;
        size_t size = known ? (size_t)st.st_size : 0;
        rc = size % bytes ? bad_size(p, path, size, d) : stream_bin(p, f, size, path, d);
        fclose(f);
        return rc;
    }
    /* buf holds the unfinished line before the chunk read after it */
    char *buf = malloc(2 * CHUNK);
    size_t cap = 2 * CHUNK, have = 0, n;
    if (!buf)
        abort();
    while (rc >= 0 && (n = fread(buf + have, 1, cap - have, f)) > 0) {
        have += n;
        size_t used = 0;
        const char *nl;
        while (!tsr_diag_stop(d) && (nl = memchr(buf + used, '\n', have - used)) != NULL) {
            if (parse_line(p, buf + used, nl, path, ++lineno, d) < 0)
                rc = 1;   /* reported; go on with the next line */
            used = (size_t)(nl + 1 - buf);
        }
        if (tsr_diag_stop(d))
            break;
        if (used == 0 && have == cap) {   /* a line longer than the buffer: grow it */
            if (cap > (size_t)-1 / 2)
                abort();
            cap *= 2;
            char *q = realloc(buf, cap);
            if (!q)
                abort();
            buf = q;
        }
        memmove(buf, buf + used, have - used);
        have -= used;
    }
    int err = errno;
    if (ferror(f))
        rc = cannot_read(path, err, d);
    else if (have && !tsr_diag_stop(d) && parse_line(p, buf, buf + have, path, ++lineno, d) < 0)
        rc = -1;
    fclose(f);
    free(buf);
    return rc ? -1 : 0;
}

/* Whether tsr_words_detect() on a prefix [s, s+n) of a file already says what it says of the whole file:
 * the text test has seen its TSR_DETECT_BYTES, and the first line that is neither blank nor a `//`
 * comment has two bytes in the prefix (or the prefix shows that the data is binary). */
static bool detect_settled(const char *s, size_t n)
{
    if (n < TSR_DETECT_BYTES)
        return false;
    if (!tsr_data_is_text(s, n))
        return true;
    const char *end = s + n;
    while (s < end) {
        while (s < end && (is_blank(*s) || *s == '\n'))
            s++;
        if (end - s >= 2 && s[0] == '/' && s[1] == '/') {
            const char *nl = memchr(s, '\n', (size_t)(end - s));
            if (!nl)
                return false;   /* the comment goes on past the prefix */
            s = nl + 1;
            continue;
        }
        return end - s >= 2;
    }
    return false;
}

int tsr_words_detect_file(const char *path, enum tsr_wordfmt *fmt, struct tsr_diag *d)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return cannot_read(path, errno, d);
    /* read until the answer is settled: usually one chunk; more only for a long run of comments (a chunk, not
     * just TSR_DETECT_BYTES: what a FIFO loses to the detection stays as it was) */
    struct tsr_buf b = {0};
    size_t n;
    do {
        tsr_buf_reserve(&b, CHUNK);
        n = fread(b.data + b.len, 1, CHUNK, f);
        b.len += n;
        b.data[b.len] = '\0';
    } while (n > 0 && !detect_settled(b.data, b.len));
    int err = errno, bad = ferror(f);
    fclose(f);
    if (!bad)
        *fmt = tsr_words_detect(b.data, b.len);
    tsr_buf_free(&b);
    return bad ? cannot_read(path, err, d) : 0;
}

void tsr_hex_comments_open(struct tsr_hex_comments *c, const char *path)
{
    memset(c, 0, sizeof *c);
    c->f = fopen(path, "rb");
}

const char *tsr_hex_comments_at(struct tsr_hex_comments *c, unsigned line)
{
    if (!c->f || line == 0 || line < c->line)
        return NULL;
    while (c->line < line) {   /* read on to `line`; the last line read stays in c->text */
        tsr_buf_clear(&c->text);
        tsr_buf_append(&c->text, "", 0);
        int ch;
        while ((ch = getc(c->f)) != EOF && ch != '\n') {
            char b = (char)ch;
            tsr_buf_append(&c->text, &b, 1);
        }
        c->line++;
        if (ch == EOF && c->line < line)
            return NULL;
    }
    /* a line that parsed holds only 0x values, commas and blanks before its comment */
    const char *s = strstr(c->text.data, "//");
    if (!s)
        return NULL;
    const char *b = s + 2, *e = c->text.data + c->text.len;
    while (b < e && is_blank(*b))
        b++;
    while (e > b && is_blank(e[-1]))
        e--;
    tsr_buf_clear(&c->out);
    tsr_buf_append(&c->out, b, (size_t)(e - b));
    return c->out.data;
}

void tsr_hex_comments_close(struct tsr_hex_comments *c)
{
    if (c->f)
        fclose(c->f);
    tsr_buf_free(&c->text);
    tsr_buf_free(&c->out);
    memset(c, 0, sizeof *c);
}
