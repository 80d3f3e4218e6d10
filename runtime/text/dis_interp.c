/* The interpreted printer (docs/mdl.md "Syntax templates"): an op's template walked part by part, for a
 * description without generated printers and for the printer benchmark's comparison (text/dis_print.h
 * tsr_tc_printer_new with generated = false).  The generated printers (gen/emit_disprint.c) print the same text
 * and record the same path (tests/test_disprint.c compares the two). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bits.h"
#include "dis_engine.h"

/* The shortest %g form that reads back as the same binary32, with a '.' or exponent (dis_print.c). */
static bool put_float(struct tsr_buf *out, uint32_t bits)
{
    char b[48];
    int n = tsr_tc_float_text(bits, b);
    if (n < 0)
        return false;
    put(out, b, (size_t)n);
    return true;
}

/* Decimal digits of v (and a leading '-' when neg). */
static void put_dec(struct tsr_buf *out, uint64_t v, bool neg)
{
    char b[24];
    int i = sizeof b;
    do
        b[--i] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    if (neg)
        b[--i] = '-';
    put(out, b + i, sizeof b - (size_t)i);
}

/* `0x` + lower-case hex digits of v; 0-9 in decimal (the same digits). */
static void put_hex(struct tsr_buf *out, uint64_t v)
{
    if (v < 10) {
        put_dec(out, v, false);
        return;
    }
    char b[24];
    int i = sizeof b;
    do
        b[--i] = "0123456789abcdef"[v & 15];
    while ((v >>= 4) != 0);
    b[--i] = 'x';
    b[--i] = '0';
    put(out, b + i, sizeof b - (size_t)i);
}

/* A `{FIELD}` hole: the field's raw code v printed as its print format says (textcodec.h). */
static void put_field(struct tsr_buf *out, const struct tsr_tc_field *fd, uint64_t v)
{
    switch (fd->print) {
    case TSR_TC_FP_HEX:
        put_hex(out, v);
        return;
    case TSR_TC_FP_FLOAT:
        if (fd->width != 32 || !put_float(out, (uint32_t)v))
            put_hex(out, v);
        return;
    case TSR_TC_FP_UNSIGNED:
        put_dec(out, v, false);
        return;
    case TSR_TC_FP_SIGNED:
    default:
        if (fd->print == TSR_TC_FP_SIGNED || fd->is_signed) {
            int64_t x = tsr_bits_sext(v, fd->width);
            put_dec(out, x < 0 ? 0 - (uint64_t)x : (uint64_t)x, x < 0);
        } else {
            put_dec(out, v, false);
        }
        return;
    }
}


static bool print_seq(struct dis *d, uint32_t first, uint32_t n, const uint64_t *f, uint64_t pc, struct tsr_buf *out)
{
    const struct tsr_tc_isa *isa = d->isa;
    char b[48];
    for (uint32_t i = 0; i < n; i++) {
        const struct tsr_tc_part *p = &isa->parts[first + i];
        size_t ev = tsr_dis_path_open(&d->path, out->len, 0);
        switch (p->kind) {
        case TSR_TC_TEXT:
            put(out, p->text, p->len);
            break;
        case TSR_TC_SPACE:
            put(out, " ", 1);
            break;
        case TSR_TC_TABLE: {
            const struct tsr_tc_table *T = &isa->tables[p->arg];
            uint64_t code = f[p->field];
            const struct tsr_tc_print *pr = NULL;
            if (T->print_dense) {
                if (code < T->nprint)
                    pr = &isa->prints[T->print_first + code];
            } else {
                uint32_t lo = 0, hi = T->nprint;
                while (lo < hi) {
                    uint32_t mid = (lo + hi) / 2;
                    const struct tsr_tc_print *x = &isa->prints[T->print_first + mid];
                    if (x->code == code) {
                        pr = x;
                        break;
                    }
                    if (x->code < code)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
            }
            if (!pr)
                return false;
            d->path.ev[ev].what = pr->kind;
            if (pr->kind == TSR_TC_PRINT_NAME) {
                tsr_buf_puts(out, pr->name);
            } else if (pr->kind == TSR_TC_PRINT_INT) {
                int32_t v = (int32_t)pr->val;
                put_dec(out, v < 0 ? 0 - (uint64_t)(int64_t)v : (uint64_t)v, v < 0);
            } else if (!put_float(out, pr->val)) {
                return false;
            }
            break;
        }
        case TSR_TC_INT:
            put_field(out, &isa->fields[p->field], f[p->field]);
            break;
        case TSR_TC_LABEL: {
            const struct tsr_tc_field *fd = &isa->fields[p->field];
            uint64_t t;
            if (p->pcrel) {
                unsigned w = fd->width < 32 ? 32 : fd->width;
                t = (pc + (uint64_t)p->pcoff + (uint64_t)tsr_bits_sext(f[p->field], fd->width) * p->unit) &
                    tsr_bits_mask(w);
            } else {
                t = (fd->is_signed ? (uint64_t)tsr_bits_sext(f[p->field], fd->width) : f[p->field]) * p->unit;
            }
            int l = snprintf(b, sizeof b, "L%" PRIx64, t);
            put(out, b, (size_t)l);
            add_label(d, t);
            break;
        }
        case TSR_TC_OPT:
            if (cond_holds(isa, p->cond, p->ncond, f)) {
                put(out, p->text, p->len);
                d->path.ev[ev].what = 1;
            }
            break;
        case TSR_TC_OPND: {
            const struct tsr_tc_opnd *o = &isa->opnds[p->arg];
            bool done = false;
            for (uint32_t j = 0; j < o->nalt && !done; j++) {
                const struct tsr_tc_alt *alt = &isa->alts[o->alt + j];
                if (!cond_holds(isa, alt->cond, alt->ncond, f))
                    continue;
                size_t mark = out->len, lmark = d->nlabels, emark = d->path.nev;
                d->path.ev[ev].what = j;
                if (print_seq(d, alt->part, alt->npart, f, pc, out))
                    done = true;
                else {
                    truncate_to(out, mark);
                    d->nlabels = lmark;
                    d->path.nev = emark;
                }
            }
            if (!done)
                return false;
            break;
        }
        }
        tsr_dis_path_close(&d->path, ev, out->len);
    }
    return true;
}

bool tsr_dis_print_op(struct dis *d, unsigned opi, const uint64_t *f, uint64_t pc, struct tsr_buf *out)
{
    return print_seq(d, d->isa->ops[opi].part, d->isa->ops[opi].npart, f, pc, out);
}
