/* The program printers in a declared source syntax, and the sections printed back (dis_front.h, textcodec.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dis_front.h"
#include "progmeta.h"

static void line_out(const struct tsr_tc_syntax *sx, const char *l, size_t n, struct tsr_buf *out)
{
    if (n < 4 || memcmp(l, "    ", 4) || (n >= 9 && !memcmp(l + 4, ".word", 5))) {
        tsr_buf_append(out, l, n);
        return;
    }
    /* the parts: the printers join them with "; " (no template text, table name or number holds a ';') */
    const char *p = l + 4, *e = l + n;
    for (bool first = true;; first = false) {
        const char *q = p;
        while (q + 1 < e && !(q[0] == ';' && q[1] == ' '))
            q++;
        if (q + 1 >= e)
            q = e;
        tsr_buf_append(out, first ? "    " : "        ", first ? 4 : 8);
        tsr_buf_append(out, p, (size_t)(q - p));
        tsr_buf_append(out, "\n", 1);
        if (q == e)
            break;
        p = q + 2;
    }
    tsr_buf_append(out, "    ", 4);
    tsr_buf_puts(out, sx->bundle_end);
}

void tsr_dis_front_rewrite(const struct tsr_tc_syntax *sx, const char *in, size_t n, struct tsr_buf *out)
{
    for (size_t i = 0; i < n;) {
        const char *nl = memchr(in + i, '\n', n - i);
        size_t e = nl ? (size_t)(nl - in) : n;
        line_out(sx, in + i, e - i, out);
        if (nl)
            tsr_buf_append(out, "\n", 1);
        i = e + 1;
    }
}

int tsr_dis_front_put(void *ctx, const char *data, size_t len)
{
    struct tsr_dis_front_sink *s = ctx;
    const char *last = NULL;
    for (size_t i = len; i > 0 && !last; i--)
        if (data[i - 1] == '\n')
            last = data + i - 1;
    if (!last) {
        tsr_buf_append(&s->pend, data, len);
        return 0;
    }
    tsr_buf_clear(&s->out);
    size_t head = (size_t)(last - data) + 1;
    if (s->pend.len) {
        tsr_buf_append(&s->pend, data, head);
        tsr_dis_front_rewrite(s->sx, s->pend.data, s->pend.len, &s->out);
        tsr_buf_clear(&s->pend);
    } else {
        tsr_dis_front_rewrite(s->sx, data, head, &s->out);
    }
    tsr_buf_append(&s->pend, data + head, len - head);
    return s->out.len ? s->sink(s->ctx, s->out.data, s->out.len) : 0;
}

int tsr_dis_front_flush(struct tsr_dis_front_sink *s)
{
    int r = 0;
    if (s->pend.len) {
        tsr_buf_clear(&s->out);
        tsr_dis_front_rewrite(s->sx, s->pend.data, s->pend.len, &s->out);
        r = s->sink(s->ctx, s->out.data, s->out.len);
    }
    tsr_buf_free(&s->pend);
    tsr_buf_free(&s->out);
    return r;
}

void tsr_tc_meta_print(const struct tsr_tc_isa *isa, const struct tsr_progmeta *m, struct tsr_buf *out)
{
    const struct tsr_tc_syntax *sx = isa->syntax;
    if (!sx || !m || !m->n)
        return;
    const char *code = NULL;
    for (unsigned s = 0; s < sx->nsections; s++) {
        const struct tsr_tc_section *S = &sx->sections[s];
        if (S->kind == TSR_TC_SEC_CODE) {
            if (!code)
                code = S->name;
            continue;
        }
        bool any = false;
        for (size_t i = 0; i < m->n; i++) {
            const struct tsr_progmeta_ent *e = &m->e[i];
            if (strcmp(e->section, S->name))
                continue;
            if (!any)
                tsr_buf_printf(out, "%s\n", S->name);
            any = true;
            tsr_buf_printf(out, "    [%" PRIu32 "]", e->index);
            if (e->comp >= 0)
                tsr_buf_printf(out, ".%c", e->compname);
            if (!e->is_value) {
                tsr_buf_puts(out, " = \"");
                for (const char *p = e->name; *p; p++)
                    tsr_buf_printf(out, *p == '"' || *p == '\\' ? "\\%c" : "%c", *p);
                tsr_buf_puts(out, "\";\n");
            } else if (e->fl) {
                float f;
                memcpy(&f, &e->value, 4);
                char t[48];
                snprintf(t, sizeof t, "%.9g", (double)f);
                bool dot = strpbrk(t, ".einn") != NULL;   /* written as a float: read back as one */
                tsr_buf_printf(out, " = %s%s;\n", t, dot ? "" : ".0");
            } else {
                tsr_buf_printf(out, " = 0x%08" PRIx32 ";\n", e->value);
            }
        }
        if (any)
            tsr_buf_puts(out, "\n");
    }
    if (code)
        tsr_buf_printf(out, "%s\n", code);
}

int tsr_tc_meta_sink(const struct tsr_tc_isa *isa, const struct tsr_progmeta *m, tsr_tc_sink sink, void *ctx)
{
    struct tsr_buf b = {0};
    tsr_tc_meta_print(isa, m, &b);
    int r = b.len ? sink(ctx, b.data, b.len) : 0;
    tsr_buf_free(&b);
    return r;
}
