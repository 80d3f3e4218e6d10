/* Packed field stores for the decoder (gen_decode_pack_plan, gen_decode_pack_emit; used by gen/emit_codec.c).
 *
 * The decoded struct keeps its fields in f[] of the narrow type <t>_field_t (F = 8, 16 or 32 bits).  Storing each
 * field on its own costs about four x86-64 instructions (copy, shift, mask, store).  A run of fields adjacent in
 * f[] whose bits lie in one 64-bit chunk of the word can often be placed in the lanes of one 64-bit value by a
 * multiplication: x = (d >> base) & mask(span) holds the run's bits; x * M with M = sum of 2^s_j puts a copy of x
 * at each s_j, and when the copies do not overlap the product is their OR (no carry), so lane j (bits F*j..) reads
 * field j after a right shift by R and a mask K.  Then one store writes the whole run: about six instructions for
 * two to four fields.  A run is split into groups where an estimate of x86-64 instructions says so (dynamic
 * programming over the run); a field the slots' code reads on every path (gen_decode_slot's `always`: a table's key
 * and the fields of its mask conditions) is extracted on its own anyway, so only its store counts as saved, while
 * fields read only where a key's table leaves the choice to a switch count in full.
 * A group of 3 fields (or 5 to 7 of 8 bits) writes the next fields' lanes too, as 0, when their own stores follow
 * (the groups are stored after the selector fields, before any other): one store instead of two and a shift.
 * Measured: docs/PERFORMANCE.md "Per target" (about a third fewer instructions per decoded word with 16-bit fields;
 * with 32-bit fields no group pays).
 * The text engine's struct (uint64_t fields) has one field per lane: nothing is packed there. */
#include <stdlib.h>

#include "emit_decode.h"
#include "emit_util.h"

static uint64_t lowmask(int w)
{
    return w >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1;
}

/* Field i as one piece of word bits in one chunk, not inverted: its low and high bits, else false. */
static bool simple_field(const struct mdl_model *m, int i, int *lo, int *hi)
{
    const struct mdl_field *f = &m->fields[i];
    if (f->npieces != 1 || f->pieces[0].inverted || f->pieces[0].lo / 64 != f->pieces[0].hi / 64)
        return false;
    *lo = f->pieces[0].lo;
    *hi = f->pieces[0].hi;
    return true;
}

/* Cost (instructions, x86-64 estimate) of a 64-bit constant as an immediate operand: 1 within a sign-extended
 * imm32, 2 with a movabs. */
static int imm_cost(uint64_t v)
{
    return v < 0x80000000u ? 1 : 2;
}

/* Whether fields ids[0..k) (adjacent in f[], lanes of F bits) can be packed; fills *p. */
static bool pack_fit(const struct mdl_model *m, const int *ids, int k, int F, struct gen_pack *p)
{
    int lo[8], hi[8], base = 64, top = -1, chunk = -1;
    if (k < 2 || k * F > 64 || k > 8)
        return false;
    for (int j = 0; j < k; j++) {
        if (!simple_field(m, ids[j], &lo[j], &hi[j]) || hi[j] - lo[j] + 1 > F)
            return false;
        if (chunk >= 0 && lo[j] / 64 != chunk)
            return false;
        chunk = lo[j] / 64;
        lo[j] %= 64;
        hi[j] %= 64;
        base = lo[j] < base ? lo[j] : base;
        top = hi[j] > top ? hi[j] : top;
    }
    int span = top - base + 1, R = 0, s[8];
    for (int j = 0; j < k; j++) {   /* copy j must put bit lo_j of the word at lane j's bit 0 (plus R) */
        int t = F * j - (lo[j] - base);
        R = -t > R ? -t : R;
    }
    uint64_t M = 0, K = 0;
    for (int j = 0; j < k; j++) {
        s[j] = F * j - (lo[j] - base) + R;
        if (s[j] > 63 || F * j + R + (hi[j] - lo[j] + 1) > 64)
            return false;
        for (int i = 0; i < j; i++)   /* copies [s, s + span) pairwise disjoint: the product is their OR */
            if (s[i] < s[j] + span && s[j] < s[i] + span)
                return false;
        M |= (uint64_t)1 << s[j];
        K |= lowmask(hi[j] - lo[j] + 1) << (F * j);
    }
    *p = (struct gen_pack){ids[0], k, k, chunk, base, span, R, M, K};
    return true;
}

/* The lanes one store writes: k rounded up to a power of two when the fields after the group may be written (0
 * in their lanes) before their own stores (nfields, sel: not the selector's, stored first), else k. */
static int store_lanes(const struct mdl_model *m, const struct gen_pack *p, const bool *sel)
{
    int n = 1;
    while (n < p->k)
        n *= 2;
    for (int j = p->k; j < n; j++)
        if (p->first + j >= m->nfields || sel[p->first + j])
            return p->k;
    return n;
}

static int pack_cost(const struct gen_pack *p, int F)
{
    int x = (p->base ? 2 : 0) + (p->base + p->span < 64 ? 1 : 0);   /* copy + shift, mask */
    int bytes = p->lanes * F / 8, st = 0;
    for (int b = 8; b >= 1; b /= 2)   /* the stores memcpy becomes, and a shift between two */
        st += bytes & b ? (st ? 2 : 1) : 0;
    return x + 2 + (p->R ? 1 : 0) + imm_cost(p->K) + st;   /* the multiplier is always in a register (dec_put) */
}

/* Cost of storing field i on its own: the store, and its extraction when nothing else needs its value. */
static int single_cost(const struct mdl_model *m, int i, const bool *needed)
{
    int lo, hi;
    if (needed[i])
        return 1;
    if (!simple_field(m, i, &lo, &hi))
        return 5;
    return 1 + (lo % 64 ? 2 : 0) + (hi % 64 < 63 ? 1 : 0);
}

int gen_decode_pack_plan(const struct mdl_model *m, const bool *store, const bool *needed, const bool *sel, int F,
                         struct gen_pack *out, int max, bool *packed)
{
    int n = 0, nf = m->nfields;
    int *cost = calloc((size_t)nf + 1, sizeof *cost), *from = calloc((size_t)nf + 1, sizeof *from);
    if (!cost || !from)
        abort();
    for (int i = 0; i < nf; i++)
        packed[i] = false;
    /* runs of fields to store adjacent in f[]: the cheapest split into groups (dynamic programming over the
     * run; cost[e]: the fields a..e-1 of the run, from[e]: where the last group starts) */
    for (int a = 0; a < nf;) {
        if (!store[a]) {
            a++;
            continue;
        }
        int b = a;
        while (b < nf && store[b])
            b++;
        cost[a] = 0;
        for (int e = a + 1; e <= b; e++) {
            cost[e] = cost[e - 1] + single_cost(m, e - 1, needed);
            from[e] = e - 1;
            int ids[8];
            for (int st = e - 2; st >= a && e - st <= 8; st--) {
                struct gen_pack p;
                int k = e - st, naive = 0;
                for (int j = 0; j < k; j++) {
                    ids[j] = st + j;
                    naive += single_cost(m, st + j, needed);
                }
                if (!pack_fit(m, ids, k, F, &p))
                    continue;
                p.lanes = store_lanes(m, &p, sel);
                if (pack_cost(&p, F) < naive && cost[st] + pack_cost(&p, F) < cost[e]) {
                    cost[e] = cost[st] + pack_cost(&p, F);
                    from[e] = st;
                }
            }
        }
        for (int e = b; e > a; e = from[e]) {
            int st = from[e];
            struct gen_pack p;
            int ids[8];
            for (int j = 0; j < e - st; j++)
                ids[j] = st + j;
            if (e - st >= 2 && n < max && pack_fit(m, ids, e - st, F, &p)) {
                p.lanes = store_lanes(m, &p, sel);
                out[n++] = p;
                for (int j = st; j < e; j++)
                    packed[j] = true;
            }
        }
        a = b;
    }
    free(cost);
    free(from);
    for (int i = 1; i < n; i++)   /* by first field: a group's 0 lanes are written before the next group's store */
        for (int j = i; j > 0 && out[j - 1].first > out[j].first; j--) {
            struct gen_pack t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

void gen_decode_pack_emit(const struct mdl_model *m, const struct gen_pack *p, struct tsr_buf *out)
{
    tsr_buf_puts(out, "        dec_put(inst->f + ");
    gen_field_enum(m, p->first, out);
    tsr_buf_puts(out, ", ");
    if (p->base)
        tsr_buf_printf(out, "(d%d >> %d)", p->chunk, p->base);
    else
        tsr_buf_printf(out, "d%d", p->chunk);
    if (p->base + p->span < 64) {
        tsr_buf_puts(out, " & ");
        gen_u64(out, lowmask(p->span));
    }
    tsr_buf_puts(out, ", ");
    gen_u64(out, p->M);
    tsr_buf_printf(out, ", %d, ", p->R);
    gen_u64(out, p->K);
    tsr_buf_printf(out, ", %d);   /*", p->lanes);
    for (int j = 0; j < p->k; j++)
        tsr_buf_printf(out, " %s", m->fields[p->first + j].name);
    if (p->lanes > p->k)
        tsr_buf_printf(out, "; 0 in the next %d, stored below", p->lanes - p->k);
    tsr_buf_puts(out, " */\n");
}

void gen_decode_pack_helper(const struct mdl_model *m, struct tsr_buf *out)
{
    const char *lo = gen_lower(m);
    tsr_buf_printf(out,
        "/* Stores n fields at f[0..n-1]: field j is bits j x %d.. of ((x * mul) >> r) & mask (the copies of x that mul\n"
        " * places do not overlap: gen/emit_decode_pack.c), with one store on a little-endian host.  The empty asm\n"
        " * hides mul from gcc, which would otherwise build the product from shifts and adds (two instructions per copy\n"
        " * of x where one multiplication does). */\n"
        "static inline void dec_put(%s_field_t *f, uint64_t x, uint64_t mul, int r, uint64_t mask, int n)\n{\n"
        "#if defined(__GNUC__) && !defined(__clang__)\n"
        "    __asm__(\"\" : \"+r\"(mul));\n"
        "#endif\n"
        "    const uint64_t p = (x * mul) >> r & mask;\n"
        "#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__\n"
        "    memcpy(f, &p, (size_t)n * sizeof *f);\n"
        "#else\n"
        "    for (int j = 0; j < n; j++)\n"
        "        f[j] = (%s_field_t)(p >> (j * %d));\n"
        "#endif\n}\n\n",
        gen_field_bits(m), lo, lo, gen_field_bits(m));
}
