/* Derived fields (X4: slices `G[4:2]` and composites `{~G, H}`) in the narrow struct <t>_inst: the decoder does
 * not store them (each is bits of the format's own fields, which it stores); readers compute them from those
 * fields with the accessors emitted here into <t>.h (<t>_field, <t>_set_field).  The text engine's <t>_tinst
 * keeps storing them (runtime/text reads f[] by index). */
#include "emit_derived.h"

#include <stdio.h>

#include "emit_util.h"

/* The bit of format F's own (not derived) fields that holds word bit b: *g the field, *gb the bit of its value,
 * *inv whether the word holds it inverted.  false when no field of F holds b. */
static bool holder(const struct mdl_model *m, const struct mdl_format *F, int b, int *g, int *gb, bool *inv)
{
    for (int j = 0; j < F->nfields; j++) {
        const struct mdl_field *G = &m->fields[F->fields[j]];
        if (G->derived)
            continue;
        int below = G->width;   /* value bits at and below the current piece's top (first piece most significant) */
        for (int q = 0; q < G->npieces; q++) {
            const struct mdl_piece *p = &G->pieces[q];
            below -= p->hi - p->lo + 1;
            if (b >= p->lo && b <= p->hi) {
                *g = F->fields[j];
                *gb = below + (b - p->lo);
                *inv = p->inverted;
                return true;
            }
        }
    }
    return false;
}

/* One run of derived field i's value bits vb..vb+n-1 held by field g's bits gb..gb+n-1 (inverted: x). */
struct run { int g, gb, vb, n; bool x; };

/* The runs of derived field i in format F, into r (at most 64); -1 when F does not hold every bit of i. */
static int runs(const struct mdl_model *m, const struct mdl_format *F, int i, struct run *r)
{
    const struct mdl_field *d = &m->fields[i];
    int n = 0, top = d->width;
    for (int p = 0; p < d->npieces; p++) {
        const struct mdl_piece *dp = &d->pieces[p];
        top -= dp->hi - dp->lo + 1;   /* the piece's lowest value bit */
        for (int b = dp->lo; b <= dp->hi; b++) {
            int g, gb;
            bool inv;
            if (!holder(m, F, b, &g, &gb, &inv))
                return -1;
            bool x = inv != dp->inverted;
            int vb = top + (b - dp->lo);
            if (n > 0 && r[n - 1].g == g && r[n - 1].x == x && r[n - 1].gb + r[n - 1].n == gb &&
                r[n - 1].vb + r[n - 1].n == vb) {
                r[n - 1].n++;
            } else {
                if (n == 64)
                    return -1;
                r[n++] = (struct run){g, gb, vb, 1, x};
            }
        }
    }
    return n;
}

static uint64_t mask(int n) { return n >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1; }

/* The value of a derived field whose bits the fields r[0..n) of the instruction pointed to by `in` hold, as a
 * uint64_t expression: `0`, then for each run `sep` and its bits shifted into place (an inverted part
 * complemented). */
static void runs_expr(const struct mdl_model *m, const struct run *r, int n, const char *in, const char *sep,
                      struct tsr_buf *out)
{
    tsr_buf_puts(out, "0");
    for (int k = 0; k < n; k++) {
        tsr_buf_printf(out, "%s(%s((uint64_t)%s->f[", sep, r[k].x ? "((" : "(", in);
        gen_field_enum(m, r[k].g, out);
        tsr_buf_printf(out, "] >> %d)%s & ", r[k].gb, r[k].x ? " ^ ~(uint64_t)0)" : "");
        gen_u64(out, mask(r[k].n));
        tsr_buf_printf(out, ") << %d)", r[k].vb);
    }
}

/* The body of %s_field's case for a format whose fields r[0..n) hold derived field's bits. */
static void get_case(const struct mdl_model *m, const struct run *r, int n, struct tsr_buf *out)
{
    tsr_buf_puts(out, "            return ");
    runs_expr(m, r, n, "in", " |\n                   ", out);
    tsr_buf_puts(out, ";\n");
}

/* The body of %s_set_field's case: each field of r[0..n) gets its bits of v (an inverted part complemented). */
static void set_case(const struct mdl_model *m, const struct run *r, int n, struct tsr_buf *out)
{
    const char *lo = gen_lower(m);
    for (int k = 0; k < n; k++) {
        tsr_buf_puts(out, "            in->f[");
        gen_field_enum(m, r[k].g, out);
        tsr_buf_printf(out, "] = (%s_field_t)((in->f[", lo);
        gen_field_enum(m, r[k].g, out);
        tsr_buf_puts(out, "] & ~(");
        gen_u64(out, mask(r[k].n));
        tsr_buf_printf(out, " << %d)) | ((v >> %d%s) & ", r[k].gb, r[k].vb, r[k].x ? " ^ ~(uint64_t)0" : "");
        gen_u64(out, mask(r[k].n));
        tsr_buf_printf(out, ") << %d);\n", r[k].gb);
    }
    tsr_buf_puts(out, "            return;\n");
}

/* A switch on the field index, for each derived field a switch on the format, each format that holds all its bits
 * a case whose body body() writes; other indices fall out of the switch, other formats return dflt. */
static void derived_switch(const struct mdl_model *m, struct tsr_buf *out,
                           void (*body)(const struct mdl_model *, const struct run *, int, struct tsr_buf *),
                           const char *dflt)
{
    struct run r[64];
    tsr_buf_puts(out, "    switch (i) {\n");
    for (int i = 0; i < m->nfields; i++) {
        if (!m->fields[i].derived)
            continue;
        tsr_buf_puts(out, "    case ");
        gen_field_enum(m, i, out);
        tsr_buf_puts(out, ":\n        switch (in->format) {\n");
        for (int fi = 0; fi < m->nformats; fi++) {
            int n = runs(m, &m->formats[fi], i, r);
            if (n < 0)
                continue;
            tsr_buf_puts(out, "        case ");
            gen_format_enum(m, fi, out);
            tsr_buf_puts(out, ":\n");
            body(m, r, n, out);
        }
        tsr_buf_printf(out, "        default:\n            return%s%s;\n        }\n", *dflt ? " " : "", dflt);
    }
    tsr_buf_puts(out, "    default:\n        break;\n    }\n");
}

void gen_derived_header(const struct mdl_model *m, struct tsr_buf *out)
{
    char lo[128], up[128];   /* gen_lower and gen_upper return one static buffer */
    snprintf(lo, sizeof lo, "%s", gen_lower(m));
    snprintf(up, sizeof up, "%s", gen_upper(m));
    bool any = false;
    for (int i = 0; i < m->nfields; i++)
        any = any || m->fields[i].derived;
    tsr_buf_printf(out,
        "/* Field i of *in: f[i], or for a derived field (a slice or a composite of other fields' bits, which\n"
        " * %s_decode does not store in struct %s_inst) its value computed from the format's fields that hold\n"
        " * its bits (0 when the format holds not all of them, or i >= %s_NFIELDS). */\n"
        "static inline uint64_t %s_field(const struct %s_inst *in, unsigned i)\n{\n",
        lo, lo, up, lo, lo);
    if (any)
        derived_switch(m, out, get_case, "0");
    tsr_buf_printf(out, "    return i < %s_NFIELDS ? in->f[i] : 0;\n}\n\n", up);

    tsr_buf_printf(out,
        "/* Sets field i of *in to v (v within the field's width; nothing when i >= %s_NFIELDS): f[i], or for a\n"
        " * derived field the bits of the format's fields that hold its bits (so that %s_encode writes them; nothing\n"
        " * when the format holds not all of them). */\n"
        "static inline void %s_set_field(struct %s_inst *in, unsigned i, uint64_t v)\n{\n",
        up, lo, lo, lo);
    if (any)
        derived_switch(m, out, set_case, "");
    tsr_buf_printf(out, "    if (i < %s_NFIELDS)\n        in->f[i] = (%s_field_t)v;\n}\n\n", up, lo);
}

/* Whether runs a[0..n) and b[0..n) are the same (member by member: struct run has padding). */
static bool same_runs(const struct run *a, const struct run *b, int n)
{
    for (int k = 0; k < n; k++)
        if (a[k].g != b[k].g || a[k].gb != b[k].gb || a[k].vb != b[k].vb || a[k].n != b[k].n || a[k].x != b[k].x)
            return false;
    return true;
}

void gen_derived_read(const struct mdl_model *m, int i, const char *in, struct tsr_buf *out)
{
    struct run r[64], r0[64];
    int n0 = -1;
    bool same = m->nformats > 0;   /* every format holds i by the same runs: no test of the format */
    for (int fi = 0; fi < m->nformats && same; fi++) {
        int n = runs(m, &m->formats[fi], i, fi == 0 ? r0 : r);
        if (fi == 0)
            n0 = n;
        else
            same = n == n0 && same_runs(r, r0, n);
        same = same && n >= 0;
    }
    tsr_buf_puts(out, "(");
    if (same) {
        runs_expr(m, r0, n0, in, " | ", out);
        tsr_buf_puts(out, ")");
        return;
    }
    for (int fi = 0; fi < m->nformats; fi++) {
        int n = runs(m, &m->formats[fi], i, r);
        if (n < 0)
            continue;
        tsr_buf_printf(out, "%s->format == ", in);
        gen_format_enum(m, fi, out);
        tsr_buf_puts(out, " ? (");
        runs_expr(m, r, n, in, " | ", out);
        tsr_buf_puts(out, ") : ");
    }
    tsr_buf_puts(out, "(uint64_t)0)");
}
