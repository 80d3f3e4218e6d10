/* Reading and writing instruction words as corpus hex text or raw binary (see hexio.h). */
#include "hexio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    tsr_words_init(p, p->width);
}

static void *xrealloc(void *q, size_t n)
{
    void *r = realloc(q, n);
    if (!r) {
        fputs("tessera: out of memory\n", stderr);
        abort();
    }
    return r;
}

void tsr_words_push(struct tsr_words *p, const uint32_t *word, const char *comment, unsigned line)
{
    unsigned per = tsr_words_per(p);
    if (p->count == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 256;
        p->w = xrealloc(p->w, p->cap * per * sizeof *p->w);
        p->comment = xrealloc(p->comment, p->cap * sizeof *p->comment);
        p->line = xrealloc(p->line, p->cap * sizeof *p->line);
    }
    memcpy(p->w + p->count * per, word, per * sizeof *word);
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
    tsr_words_push(p, word, NULL, lineno);
    if (s < end) { /* the comment after "//", blanks trimmed */
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
    unsigned per = tsr_words_per(p), bytes = p->width / 8;
    if (len % bytes)
        return tsr_diag_error(d, file, 0, 0, "binary size %zu is not a multiple of %u bytes (%u-bit words)",
                              len, bytes, p->width);
    const unsigned char *b = data;
    for (size_t i = 0; i < len; i += bytes) {
        uint32_t word[MAX_PER];
        for (unsigned k = 0; k < per; k++) {
            const unsigned char *q = b + i + 4 * k;
            word[k] = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
        }
        tsr_words_push(p, word, NULL, 0);
    }
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

void tsr_hex_format(const struct tsr_words *p, struct tsr_buf *out)
{
    unsigned per = tsr_words_per(p);
    for (size_t i = 0; i < p->count; i++) {
        const uint32_t *w = tsr_words_at(p, i);
        for (unsigned k = 0; k < per; k++)
            tsr_buf_printf(out, k ? " 0x%08x," : "0x%08x,", (unsigned)w[k]);
        if (p->comment[i] && p->comment[i][0])
            tsr_buf_printf(out, " // %s", p->comment[i]);
        tsr_buf_append(out, "\n", 1);
    }
}

void tsr_bin_format(const struct tsr_words *p, struct tsr_buf *out)
{
    size_t n = p->count * tsr_words_per(p);
    for (size_t i = 0; i < n; i++) {
        uint32_t v = p->w[i];
        unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                              (unsigned char)(v >> 24)};
        tsr_buf_append(out, b, 4);
    }
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
