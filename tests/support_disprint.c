/* The two printers compared (tests/support_disprint.h). */
#include "support_disprint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t dp_rng(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1DULL;
}

bool dp_same(const struct tsr_tc_isa *isa, struct tsr_tc_printer *G, struct tsr_tc_printer *I, const uint32_t *w,
             uint64_t pc, bool all, struct dp_tally *t, char *why, size_t whylen)
{
    static struct tsr_buf a, b;
    tsr_buf_clear(&a);
    tsr_buf_clear(&b);
    int ra = tsr_tc_printer_print(G, w, pc, all, &a), rb = tsr_tc_printer_print(I, w, pc, all, &b);
    t->words++;
    if (ra != rb) {
        snprintf(why, whylen, "0x%08x, 0x%08x: generated %d, interpreted %d", w[0], w[1], ra, rb);
        return false;
    }
    if (ra < 0) {
        t->unprinted++;
        return true;
    }
    t->printed++;
    if (a.len != b.len || memcmp(a.data, b.data, a.len) != 0) {
        snprintf(why, whylen, "0x%08x, 0x%08x (all %d): generated '%s', interpreted '%s'", w[0], w[1], all, a.data,
                 b.data);
        return false;
    }
    size_t na, nb;
    const uint64_t *la = tsr_tc_printer_labels(G, &na), *lb = tsr_tc_printer_labels(I, &nb);
    if (na != nb || (na && memcmp(la, lb, na * sizeof *la) != 0)) {
        snprintf(why, whylen, "0x%08x, 0x%08x '%s': labels differ (%zu, %zu)", w[0], w[1], a.data, na, nb);
        return false;
    }
    t->labels += na;
    const struct tsr_dis_path *pa = tsr_tc_printer_path(G), *pb = tsr_tc_printer_path(I);
    if (pa->nev != pb->nev || pa->nsp != pb->nsp || pa->over != pb->over || pa->base != pb->base ||
        memcmp(pa->ev, pb->ev, pa->nev * sizeof *pa->ev) != 0 || memcmp(pa->sp, pb->sp, pa->nsp * sizeof *pa->sp) != 0) {
        snprintf(why, whylen, "0x%08x, 0x%08x '%s': path records differ (%zu / %zu events, %zu / %zu slots)", w[0], w[1],
                 a.data, pa->nev, pb->nev, pa->nsp, pb->nsp);
        return false;
    }
    t->events += pa->nev;
    t->slots += pa->nsp;
    /* the bounds mdlc gives each printed op: its events (the slot's run) and its text (the run's span) */
    unsigned char *in = calloc(1, isa->inst_size + 16);
    if (!in || isa->decode(w, in) < 0) {
        free(in);
        snprintf(why, whylen, "0x%08x, 0x%08x printed but does not decode", w[0], w[1]);
        return false;
    }
    const struct tsr_tc_format *F = &isa->formats[in[0]];
    const uint16_t *ops = (const uint16_t *)(const void *)(in + isa->off_op);
    bool ok = true;
    for (size_t k = 0; k < pa->nsp && ok; k++) {
        size_t e0 = pa->sp[k].first, e1 = k + 1 < pa->nsp ? pa->sp[k + 1].first : pa->nev;
        unsigned op = ops[isa->idx[F->slot + pa->sp[k].t]];
        const struct tsr_tc_pop *pp = &isa->pops[op];
        size_t len = e1 > e0 ? pa->ev[e1 - 1].end - pa->ev[e0].pos : 0;
        if (e1 - e0 > pp->maxev || len + TSR_TC_PSLACK > pp->maxlen) {
            snprintf(why, whylen, "0x%08x, 0x%08x: op %s prints %zu events, %zu bytes: over its bounds %u, %u", w[0],
                     w[1], isa->ops[op].name, e1 - e0, len, pp->maxev, pp->maxlen);
            ok = false;
        }
    }
    free(in);
    return ok;
}

size_t dp_check(const struct tsr_tc_isa *isa, struct tsr_tc_printer *G, struct tsr_tc_printer *I, const uint32_t *w,
                uint64_t pc, bool both, struct dp_tally *t)
{
    char why[512];
    size_t bad = 0;
    for (int all = 0; all < (both ? 2 : 1); all++)
        if (!dp_same(isa, G, I, w, pc, all, t, why, sizeof why)) {
            fprintf(stderr, "printers differ: %s\n", why);
            bad++;
        }
    return bad;
}

bool dp_program_same(const struct tsr_tc_isa *isa, const uint32_t *w, size_t n, struct tsr_buf *a, struct tsr_buf *b)
{
    tsr_buf_clear(a);
    tsr_buf_clear(b);
    unsetenv("TESSERA_DIS_PRINTER");
    tsr_tc_disasm_program(isa, w, n, 0, a);
    setenv("TESSERA_DIS_PRINTER", "interp", 1);
    tsr_tc_disasm_program(isa, w, n, 0, b);
    unsetenv("TESSERA_DIS_PRINTER");
    return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}
