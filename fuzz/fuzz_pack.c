/* Fuzzer: the bundle packer (runtime/pack/pack.h, docs/pack.md) against sequential execution (issue 4 item 5).
 *
 * From the input bytes it generates a random straight-line QPU program of single operations in the
 * packer's input syntax (one operation per line, sequential semantics) and checks:
 *   1. the reference: the same operations one per bundle, each followed by 3 nops (more than every latency
 *      rule of qpu.md needs: regfile 2, SFU 3, rotation 2, unif_addr 3), forward branches followed by 3 nop
 *      delay slots, and `nop; nop; thrend` with 2 nop delay slots, assembles (qpu_target.assemble) and the
 *      generated validator (tsr_validate) reports nothing.  A failure here is a bug of this generator;
 *   2. tsr_pack_text accepts the input (every operation was checked alone with qpu_target.assemble_one);
 *   3. the packed output assembles and tsr_validate reports nothing on it;
 *   4. both programs run to their thread end in the generated simulator (one QPU of a qpu_machine, the
 *      simulator's own regfile-latency and r4 checks on) from the same initial state (random accumulators
 *      r0-r5, regfiles A and B, flags Z/N/C, uniform stream), and the final states agree: r0-r5, ra0-ra31,
 *      rb0-rb31, Z, N, C (all 16 lanes) and the number of uniforms consumed.  SFU results still in flight at
 *      the thread end are landed in r4 first (3 more peripheral steps), since the packer may legitimately
 *      put an SFU write into the thread end's delay slots; nothing else is excused.
 * Any failure is first minimised here (operations removed one at a time while the failure keeps its kind)
 * and then aborts with a readable dump: the minimised input program, its packed output and the first
 * difference (or the packer's / validator's / simulator's message), then the same for the original input.
 *
 * Input bytes: [0..1] feature mask (little endian; 0 = all features; see enum feat: libFuzzer can keep
 * exploring the other features when one of them makes the packer fail at once), [2..5] seed of the initial
 * state and uniforms, then one group of bytes per operation (at most GEN_MAX_ITEMS items).
 *
 * Operations generated (each valid alone, else skipped): add ALU (fadd fsub fmin fmax fminabs fmaxabs ftoi
 * itof add sub shr asr ror shl min max and or xor not clz v8adds v8subs mov), mul ALU (fmul mul24 v8muld
 * v8min v8max v8adds v8subs, rotated mov), write conditions and .setf, regfile-A pack and unpack, MUL pack,
 * r4 unpack, small immediates, rotations by an immediate or r5, 32-bit and per-element load immediates,
 * uniform reads (either side), elem_num / qpu_num, SFU writes (recip, recipsqrt, exp, log) and r4 reads,
 * r5quad / r5rep writes, pinned pairs (`a; b`), labels and forward branches (conditional or not, no link).
 * No TMU, VPM, DMA, semaphores, mutex or unif_addr (they need memory set-up or several QPUs).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qpu.h"
#include "qpu_hooks.h"
#include "qpu_periph.h"
#include "tsr.h"
#include "pack/pack.h"
#include "validate/validate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- generator ------------------------------------------------------------------------------------ */

enum feat {
    F_FADD = 1 << 0,    /* float add-ALU operations */
    F_IADD = 1 << 1,    /* integer add-ALU operations */
    F_MUL = 1 << 2,     /* mul-ALU operations */
    F_RA = 1 << 3,      /* regfile A sources and destinations */
    F_RB = 1 << 4,      /* regfile B sources and destinations */
    F_COND = 1 << 5,    /* write conditions */
    F_SETF = 1 << 6,    /* .setf */
    F_UNIF = 1 << 7,    /* unif, elem_num, qpu_num sources */
    F_LDI = 1 << 8,     /* load immediates */
    F_SFU = 1 << 9,     /* SFU writes, r4 reads */
    F_R5 = 1 << 10,     /* r5quad / r5rep writes, r5 reads */
    F_ROT = 1 << 11,    /* mul rotations */
    F_PACK = 1 << 12,   /* regfile-A and MUL packs */
    F_UNPACK = 1 << 13, /* regfile-A and r4 unpacks */
    F_BRANCH = 1 << 14, /* labels and forward branches */
    F_PIN = 1 << 15,    /* pinned pairs and small immediates */
};

#define GEN_MAX_ITEMS 40
#define ITEM_LEN 112

enum item_kind { IT_OP, IT_BRANCH, IT_LABEL };
struct item { int kind; char text[ITEM_LEN]; };

struct gen {
    const uint8_t *p;
    size_t n, i;
    unsigned feat;
    int nlab_placed, nlab_ref;
    int no_periph;   /* no SFU destinations (pinned pairs: one peripheral access per bundle) */
};

/* Next input byte reduced modulo k (0 when the input is exhausted). */
static unsigned take(struct gen *g, unsigned k)
{
    unsigned b = g->i < g->n ? g->p[g->i] : 0;
    g->i++;
    return k ? b % k : 0;
}
/* Is feature f (enum feat) enabled? */
static int has(const struct gen *g, unsigned f) { return (g->feat & f) != 0; }

static const unsigned REGS[8] = { 0, 1, 2, 3, 4, 5, 6, 14 };
static const char *const UNPACKS[] = { ".16a", ".16b", ".8dr", ".8a", ".8b", ".8c", ".8d" };
static const char *const APACKS[] = { ".16a", ".16b", ".8888", ".8a", ".8b", ".8c", ".8d", ".32s",
                                      ".16as", ".16bs", ".8888s", ".8as", ".8bs", ".8cs", ".8ds" };
static const char *const MPACKS[] = { ".8888", ".8a", ".8b", ".8c", ".8d" };
static const char *const CONDS[] = { ".never", ".ifz", ".ifnz", ".ifn", ".ifnn", ".ifc", ".ifcc" };
static const char *const BCONDS[] = { "", ".allz", ".allnz", ".anyz", ".anynz", ".alln", ".allnn", ".anyn",
                                      ".anynn", ".allc", ".allnc", ".anyc", ".anync" };
static const char *const SFUS[] = { "recip", "recipsqrt", "exp", "log" };
static const char *const FIMM[] = { "1.0", "2.0", "4.0", "8.0", "16.0", "32.0", "64.0", "128.0",
                                    "0.00390625", "0.0078125", "0.015625", "0.03125", "0.0625", "0.125",
                                    "0.25", "0.5" };
static const char *const LDIMM[] = { "0", "1", "-1", "0x80000000", "0x7fffffff", "1.0", "-1.5", "0x3f800000",
                                     "0x7f800000", "0xff800000", "0x00400000", "0x12345678", "255", "65535",
                                     "-32768", "0x01010101" };

struct opdef { const char *name; unsigned feat; int unary, fl; };
static const struct opdef ADD_OPS[] = {
    { "fadd", F_FADD, 0, 1 }, { "fsub", F_FADD, 0, 1 }, { "fmin", F_FADD, 0, 1 }, { "fmax", F_FADD, 0, 1 },
    { "fminabs", F_FADD, 0, 1 }, { "fmaxabs", F_FADD, 0, 1 }, { "ftoi", F_FADD, 1, 1 }, { "itof", F_FADD, 1, 0 },
    { "add", F_IADD, 0, 0 }, { "sub", F_IADD, 0, 0 }, { "shr", F_IADD, 0, 0 }, { "asr", F_IADD, 0, 0 },
    { "ror", F_IADD, 0, 0 }, { "shl", F_IADD, 0, 0 }, { "min", F_IADD, 0, 0 }, { "max", F_IADD, 0, 0 },
    { "and", F_IADD, 0, 0 }, { "or", F_IADD, 0, 0 }, { "xor", F_IADD, 0, 0 }, { "not", F_IADD, 1, 0 },
    { "clz", F_IADD, 1, 0 }, { "v8adds", F_IADD, 0, 0 }, { "v8subs", F_IADD, 0, 0 }, { "mov", F_IADD, 1, 0 },
};
static const struct opdef MUL_OPS[] = {
    { "fmul", F_MUL, 0, 1 }, { "mul24", F_MUL, 0, 0 }, { "v8muld", F_MUL, 0, 0 }, { "v8min", F_MUL, 0, 0 },
    { "v8max", F_MUL, 0, 0 }, { "mov", F_MUL, 1, 0 },
};

/* A source operand into out (fl: the operation takes floats, so small immediates are mostly floats). */
static void gen_src(struct gen *g, char *out, size_t n, int fl)
{
    unsigned k = take(g, 16);
    unsigned r = take(g, 8), u = take(g, 16);
    if (k < 6 || (k < 8 && !has(g, F_RA)) || (k < 10 && !has(g, F_RB))) {
        if (k >= 6 || r >= 4) {
            snprintf(out, n, "r%u", r & 3);
        } else if (r == 3 && has(g, F_SFU)) {
            snprintf(out, n, "r4%s", has(g, F_UNPACK) && u < 7 ? UNPACKS[u] : "");
        } else if (r == 2 && has(g, F_R5)) {
            snprintf(out, n, "r5");
        } else {
            snprintf(out, n, "r%u", r & 3);
        }
    } else if (k < 8) {
        snprintf(out, n, "ra%u%s", REGS[r], has(g, F_UNPACK) && u < 7 ? UNPACKS[u] : "");
    } else if (k < 10) {
        snprintf(out, n, "rb%u", REGS[r]);
    } else if (k < 13 && has(g, F_PIN)) {
        if (fl ? u < 12 : u < 2)
            snprintf(out, n, "%s", FIMM[u & 15]);
        else
            snprintf(out, n, "%d", (int)((u * 5 + r) % 32) - 16);
    } else if (k < 16 && has(g, F_UNIF)) {
        snprintf(out, n, "%s", r < 5 ? "unif" : r < 6 ? "elem_num" : r < 7 ? "qpu_num" : "unif");
    } else {
        snprintf(out, n, "r%u", r & 3);
    }
}

/* A destination (sfu_ok: SFU registers allowed; *periph set when an SFU register was chosen). */
static void gen_dst(struct gen *g, char *out, size_t n, int sfu_ok, int *periph)
{
    unsigned k = take(g, 16), r = take(g, 8);
    *periph = 0;
    if (k < 6 || (k < 9 && !has(g, F_RA)) || (k < 12 && !has(g, F_RB)))
        snprintf(out, n, "r%u", r & 3);
    else if (k < 9)
        snprintf(out, n, "ra%u", REGS[r]);
    else if (k < 12)
        snprintf(out, n, "rb%u", REGS[r]);
    else if (k < 13 && has(g, F_R5))
        snprintf(out, n, "%s", r & 1 ? "r5rep" : "r5quad");
    else if (k < 14 && has(g, F_SFU) && sfu_ok && !g->no_periph) {
        snprintf(out, n, "%s", SFUS[r & 3]);
        *periph = 1;
    } else if (k < 15)
        snprintf(out, n, "-");
    else
        snprintf(out, n, "r%u", r & 3);
}

/* Condition and .setf suffixes (none for a peripheral destination's condition). */
static void gen_suffix(struct gen *g, char *out, size_t n, int periph)
{
    unsigned c = take(g, 16), s = take(g, 4);
    snprintf(out, n, "%s%s", has(g, F_COND) && !periph && c < 7 ? CONDS[c] : "",
             has(g, F_SETF) && s == 0 ? ".setf" : "");
}

/* Whether ALU operations a and b (as gen_alu writes them) name the same destination register (not `-`):
 * both ALUs writing one register in a bundle is forbidden (rule dual_write; accumulators are allowed under
 * inverse conditions, which the generator does not seek). */
static bool same_dst(const char *a, const char *b)
{
    const char *da = strchr(a, ' '), *db = strchr(b, ' ');
    if (!da || !db)
        return false;
    size_t na = strcspn(++da, ".,"), nb = strcspn(++db, ".,");
    return na == nb && strncmp(da, db, na) == 0 && strncmp(da, "-", na) != 0;
}

/* Whether ALU operation a (as gen_alu writes it) reads a regfile-A unpack (`ra6.8d` after its destination). */
static bool reads_ra_unpack(const char *a)
{
    const char *s = strchr(a, ',');
    for (; s && (s = strstr(s, "ra")); s += 2) {
        const char *d = s + 2;
        if (*d < '0' || *d > '9' || (s[-1] != ' ' && s[-1] != ','))
            continue;
        while (*d >= '0' && *d <= '9')
            d++;
        if (*d == '.')
            return true;
    }
    return false;
}

/* Whether ALU operation a (as gen_alu writes it) packs its destination or unpacks a source (`r2.8a`, `r4.8dr`). */
static bool packs_or_unpacks(const char *a)
{
    const char *d = strchr(a, ' ');
    return d && strchr(d, '.');
}

/* One ALU operation (mul: 0 add ALU, 1 mul ALU) into out. */
static void gen_alu(struct gen *g, char *out, size_t n, int mul)
{
    const struct opdef *ops = mul ? MUL_OPS : ADD_OPS;
    size_t nops = mul ? sizeof MUL_OPS / sizeof *MUL_OPS : sizeof ADD_OPS / sizeof *ADD_OPS;
    const struct opdef *op = &ops[take(g, (unsigned)nops)];
    if (!mul && !has(g, op->feat))   /* the other add class, or mov */
        op = &ADD_OPS[has(g, F_FADD) ? take(g, 8) : 8 + take(g, 16)];
    char dst[24], a[24], b[24], suf[24], pk[12] = "", rot[12] = "";
    int periph;
    gen_dst(g, dst, sizeof dst, 1, &periph);
    gen_suffix(g, suf, sizeof suf, periph);
    gen_src(g, a, sizeof a, op->fl);
    gen_src(g, b, sizeof b, op->fl);
    unsigned p = take(g, 32);
    /* No pack on an accumulator that would be a regfile-A pack, which the validator forbids there (rule
     * apack_acc): `mov` (the add ALU's matches the text first, with a regfile-A pack) and any op reading a
     * regfile-A unpack (one pm bit selects regfile-A pack and unpack, or MUL pack and r4 unpack) */
    bool acc = strncmp(dst, "ra", 2) != 0;
    bool a_unpack = (!strncmp(a, "ra", 2) && strchr(a, '.')) || (!strncmp(b, "ra", 2) && strchr(b, '.'));
    if (has(g, F_PACK) && !periph && p < 15 && !(acc && (!strcmp(op->name, "mov") || a_unpack))) {
        if (mul && p < 5)
            snprintf(pk, sizeof pk, "%s", MPACKS[p]);
        else if (!strncmp(dst, "ra", 2))
            snprintf(pk, sizeof pk, "%s", APACKS[p]);
    }
    unsigned rr = take(g, 32);
    if (mul && has(g, F_ROT) && rr < 16) {
        if (rr == 0 && has(g, F_R5))
            snprintf(rot, sizeof rot, " >> r5");
        else
            snprintf(rot, sizeof rot, " %s %u", rr & 1 ? "<<" : ">>", rr / 2 + 1);
    }
    if (op->unary)
        snprintf(out, n, "%s%s %s%s, %s%s", op->name, suf, dst, pk, a, rot);
    else
        snprintf(out, n, "%s%s %s%s, %s, %s%s", op->name, suf, dst, pk, a, b, rot);
}

/* One load immediate into out. */
static void gen_ldi(struct gen *g, char *out, size_t n)
{
    char dst[24], suf[24];
    int periph;
    gen_dst(g, dst, sizeof dst, 1, &periph);
    gen_suffix(g, suf, sizeof suf, periph);
    unsigned k = take(g, 8);
    if (k < 5) {
        snprintf(out, n, "mov%s %s, %s", suf, dst, LDIMM[take(g, 16)]);
    } else if (k < 7) {
        uint32_t v = take(g, 256) | take(g, 256) << 8 | take(g, 256) << 16 | take(g, 256) << 24;
        snprintf(out, n, "mov%s %s, 0x%08x", suf, dst, v);
    } else {
        int u = (int)take(g, 2);
        int len = snprintf(out, n, "mov%s %s, %s[", suf, dst, u ? "u" : "");
        for (int i = 0; i < 16 && len > 0 && (size_t)len < n; i++)
            len += snprintf(out + len, n - (size_t)len, "%s%d", i ? ", " : "", (int)take(g, 4) - (u ? 0 : 2));
        if (len > 0 && (size_t)len < n)
            snprintf(out + len, n - (size_t)len, "]");
    }
}

/* Is text one bundle that assembles alone? */
static int valid_alone(const char *text)
{
    uint32_t w[QPU_NWORDS];
    char err[160];
    return qpu_target.assemble_one(text, strlen(text), 0, w, err, sizeof err) == 0;
}

/* Generates the items (operations, branches, labels) from the input; returns their count. */
static int gen_program(struct gen *g, struct item *it)
{
    int n = 0;
    while (n < GEN_MAX_ITEMS && g->i < g->n) {
        struct item *x = &it[n];
        x->kind = IT_OP;
        unsigned k = take(g, 32);
        if (k < 12) {
            gen_alu(g, x->text, sizeof x->text, 0);
        } else if (k < 18 && has(g, F_MUL)) {
            gen_alu(g, x->text, sizeof x->text, 1);
        } else if (k < 21 && has(g, F_LDI)) {
            gen_ldi(g, x->text, sizeof x->text);
        } else if (k < 24 && has(g, F_SFU)) {
            char a[24];
            gen_src(g, a, sizeof a, 1);
            snprintf(x->text, sizeof x->text, "mov %s, %s", SFUS[take(g, 4)], a);
        } else if (k < 26 && has(g, F_PIN)) {
            char a[ITEM_LEN / 2 - 2], b[ITEM_LEN / 2 - 2];
            if (take(g, 4) == 0 && has(g, F_LDI)) {   /* one ldi, two destinations */
                unsigned r = REGS[take(g, 8)];
                snprintf(x->text, sizeof x->text, "mov ra%u, %s; mov rb%u, %s", r, LDIMM[r & 15], REGS[take(g, 8)],
                         LDIMM[r & 15]);
            } else {
                g->no_periph = 1;
                gen_alu(g, a, sizeof a, 0);
                gen_alu(g, b, sizeof b, 1);
                g->no_periph = 0;
                /* both ALUs writing one register: rule dual_write; both reading a regfile-A unpack, which may
                 * be of different kinds (a float and an integer reading): rule unpack_mixed; a regfile-A unpack
                 * in one and a pack in the other (one pm bit: the MUL pack becomes a regfile-A pack, on an
                 * accumulator: rule apack_acc) */
                if (same_dst(a, b) || (reads_ra_unpack(a) && reads_ra_unpack(b)) ||
                    ((reads_ra_unpack(a) || reads_ra_unpack(b)) && packs_or_unpacks(a) && packs_or_unpacks(b)))
                    snprintf(x->text, sizeof x->text, "%s", a);
                else
                    snprintf(x->text, sizeof x->text, "%s; %s", a, b);
            }
        } else if (k < 28 && has(g, F_BRANCH)) {
            x->kind = IT_BRANCH;
            int t = g->nlab_placed + (int)take(g, 3);
            if (t + 1 > g->nlab_ref)
                g->nlab_ref = t + 1;
            unsigned c = take(g, 16);
            snprintf(x->text, sizeof x->text, "brr%s -, r:blk%d", c < 13 ? BCONDS[c] : "", t);
        } else if (k < 30 && has(g, F_BRANCH)) {
            x->kind = IT_LABEL;
            snprintf(x->text, sizeof x->text, "blk%d:", g->nlab_placed++);
        } else {
            gen_alu(g, x->text, sizeof x->text, k & 1 && has(g, F_MUL));
        }
        if (x->kind != IT_OP || valid_alone(x->text))   /* branches: valid by construction (labels) */
            n++;
    }
    while (g->nlab_placed < g->nlab_ref && n < GEN_MAX_ITEMS + 3) {
        it[n].kind = IT_LABEL;
        snprintf(it[n].text, sizeof it[n].text, "blk%d:", g->nlab_placed++);
        n++;
    }
    return n;
}

/* The packer's input: one item per line, then the thread end. */
static void input_text(const struct item *it, int n, struct tsr_buf *out)
{
    for (int i = 0; i < n; i++)
        tsr_buf_printf(out, "%s%s\n", it[i].kind == IT_LABEL ? "" : "    ", it[i].text);
    tsr_buf_puts(out, "    thrend\n");
}

/* The reference: one item per bundle, 3 nops after each operation or branch, the thread end with its
 * 2 delay slots. */
static void reference_text(const struct item *it, int n, struct tsr_buf *out)
{
    for (int i = 0; i < n; i++) {
        if (it[i].kind == IT_LABEL)
            tsr_buf_printf(out, "%s\n", it[i].text);
        else
            tsr_buf_printf(out, "    %s\n    nop\n    nop\n    nop\n", it[i].text);
    }
    tsr_buf_puts(out, "    nop; nop; thrend\n    nop\n    nop\n");
}

/* ---- initial state, simulation, comparison ---------------------------------------------------------- */

#define MEM_BYTES 0x10000u
#define UNIF_ADDR 0x1000u
#define NUNIF 256
#define MAX_STEPS 100000

/* The registers and flags the fuzzer sets before a run and compares after it (16 lanes each). */
struct regs { uint32_t acc[6][16], ra[32][16], rb[32][16], z[16], n[16], c[16]; };
struct init { struct regs r; uint32_t unif[NUNIF]; };

/* xorshift32: the initial state and uniforms come from the 4 seed bytes. */
static uint32_t rng_next(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* A value biased to the interesting ones: 0, 1, -1, small integers, float edge cases, random bits. */
static uint32_t rng_value(uint32_t *s)
{
    static const uint32_t special[] = { 0, 1, 0xffffffffu, 2, 0x80000000u, 0x7fffffffu, 0x3f800000u, 0xbf800000u,
                                        0x40490fdbu, 0x7f800000u, 0xff800000u, 0x00400000u, 0x3effffffu,
                                        0x4b000000u, 0xcf000000u, 0x000000ffu };
    uint32_t r = rng_next(s);
    switch (r & 3) {
    case 0: return special[(r >> 2) & 15];
    case 1: return (r >> 8) & 0x3f;
    default: return rng_next(s);
    }
}

static void make_init(struct init *in, uint32_t seed)
{
    uint32_t s = seed ? seed : 0x9e3779b9u;
    for (int r = 0; r < 6; r++)
        for (int l = 0; l < 16; l++)
            in->r.acc[r][l] = rng_value(&s);
    for (int r = 0; r < 32; r++)
        for (int l = 0; l < 16; l++) {
            in->r.ra[r][l] = rng_value(&s);
            in->r.rb[r][l] = rng_value(&s);
        }
    for (int l = 0; l < 16; l++) {
        uint32_t f = rng_next(&s);
        in->r.z[l] = f & 1;
        in->r.n[l] = f >> 1 & 1;
        in->r.c[l] = f >> 2 & 1;
    }
    for (int i = 0; i < NUNIF; i++)
        in->unif[i] = rng_value(&s);
}

struct final { struct regs r; uint32_t unif_used; uint64_t bundles; };

/* The fields of struct regs, the same names in struct qpu_sim: loaded before a run, saved after it. */
#define REGS_FIELDS X(acc) X(ra) X(rb) X(z) X(n) X(c)
static void regs_load(struct qpu_sim *sim, const struct regs *r)
{
#define X(f) memcpy(sim->f, r->f, sizeof r->f);
    REGS_FIELDS
#undef X
}
static void regs_save(const struct qpu_sim *sim, struct regs *r)
{
#define X(f) memcpy(r->f, sim->f, sizeof r->f);
    REGS_FIELDS
#undef X
}

/* Runs the program (n bundles at w) on one simulated QPU from *in; fills *out.  Returns 0, or -1 with a
 * message in msg. */
static int simulate(const uint32_t *w, size_t n, const struct init *in, struct final *out, char *msg, size_t mlen)
{
    static struct qpu_sim *sim;
    if (!sim && !(sim = malloc(sizeof *sim)))
        abort();
    struct qpu_machine *m = qpu_machine_new(MEM_BYTES, 1);
    if (!m)
        abort();
    memcpy(qpu_machine_mem(m) + UNIF_ADDR, in->unif, sizeof in->unif);
    struct qpu_hooks_ctx ctx;
    qpu_sim_init(sim);
    qpu_hooks_attach(sim, &ctx, m, 0, UNIF_ADDR);
    regs_load(sim, &in->r);
    int rc = TSR_SIM_OK, ret = 0;
    uint64_t steps = 0, issued = 0;
    while (steps++ < MAX_STEPS && (rc == TSR_SIM_OK || rc == TSR_SIM_STALL)) {
        rc = qpu_sim_step(sim, w, n * QPU_NWORDS);
        issued += rc == TSR_SIM_OK || rc == TSR_SIM_HALTED;
        if (rc == TSR_SIM_HALTED)
            break;
    }
    if (rc != TSR_SIM_HALTED) {
        snprintf(msg, mlen, "%s", rc < 0 ? sim->core.msg : "did not reach its thread end");
        ret = -1;
    } else {
        struct qpu_periph *p = qpu_machine_qpu(m, 0);
        for (int i = 0; i < QPU_SFU_LATENCY; i++)   /* land SFU results still in flight */
            qpu_io_step(p, sim->acc[4]);
        regs_save(sim, &out->r);
        out->unif_used = (qpu_periph_unif_addr(p) - UNIF_ADDR) / 4;
        out->bundles = issued;
    }
    qpu_sim_fini(sim);
    qpu_machine_free(m);
    return ret;
}

/* The differences between two final states into msg (the first few; "" when they agree) and the name of the
 * first differing state into first ("r3", "ra5", "z0" for the Z flags, "unif"); returns 1 if they differ. */
static int compare_final(const struct final *a, const struct final *b, char *msg, size_t mlen, char first[16])
{
    static const char *const fl[3] = { "z", "n", "c" };
    *msg = 0;
    *first = 0;
    int len = 0, ndiff = 0;
#define DIFF(name, idx, x, y)                                                                                    \
    do {                                                                                                         \
        for (int l_ = 0; l_ < 16; l_++)                                                                          \
            if ((x)[l_] != (y)[l_]) {                                                                            \
                if (!ndiff)                                                                                      \
                    snprintf(first, 16, "%s%d", name, idx);                                                      \
                if (ndiff++ < 6 && len >= 0 && (size_t)len < mlen)                                               \
                    len += snprintf(msg + len, mlen - (size_t)len,                                               \
                                    "%s%s%d lane %d: reference 0x%08x, packed 0x%08x%s", ndiff > 1 ? "; " : "",  \
                                    name, idx, l_, (x)[l_], (y)[l_], ndiff == 6 ? "; ..." : "");                  \
                break;                                                                                           \
            }                                                                                                    \
    } while (0)
    for (int r = 0; r < 6; r++)
        DIFF("r", r, a->r.acc[r], b->r.acc[r]);
    for (int r = 0; r < 32; r++)
        DIFF("ra", r, a->r.ra[r], b->r.ra[r]);
    for (int r = 0; r < 32; r++)
        DIFF("rb", r, a->r.rb[r], b->r.rb[r]);
    const uint32_t *fa[3] = { a->r.z, a->r.n, a->r.c }, *fb[3] = { b->r.z, b->r.n, b->r.c };
    for (int f = 0; f < 3; f++)
        DIFF(fl[f], 0, fa[f], fb[f]);
#undef DIFF
    if (a->unif_used != b->unif_used && len >= 0 && (size_t)len < mlen) {
        if (!ndiff++)
            snprintf(first, 16, "unif");
        snprintf(msg + len, mlen - (size_t)len, "%suniforms consumed: reference %u, packed %u", len ? "; " : "",
                 a->unif_used, b->unif_used);
    }
    return ndiff != 0;
}

/* ---- one check ------------------------------------------------------------------------------------ */

enum fail { OK, REF_ASM, REF_VALIDATE, REF_SIM, PACK_ERROR, PACK_ASM, PACK_VALIDATE, PACK_SIM, MISMATCH };
static const char *const FAIL_NAMES[] = {
    "ok", "generator bug: the reference does not assemble", "generator bug: the validator rejects the reference",
    "generator bug: the reference does not simulate", "the packer rejects a valid program",
    "the packed program does not assemble", "the validator rejects the packed program",
    "the packed program fails in the simulator", "final states differ",
};

struct result {
    int fail;              /* enum fail */
    char sig[64];          /* the failure's kind, for minimisation: the enum and the first rule broken */
    char rule[48];         /* the first validator rule broken, or the first state that differs ("" if none) */
    char msg[1024];        /* what happened */
    struct tsr_buf in, ref, packed;
};

struct vctx { struct result *r; int count; };
static void on_violation(void *ctx, const struct tsr_vviol *v)
{
    struct vctx *c = ctx;
    size_t len = strlen(c->r->msg);
    if (c->count++ == 0)
        snprintf(c->r->rule, sizeof c->r->rule, "%s", v->name);
    if (c->count <= 4 && len < sizeof c->r->msg)
        snprintf(c->r->msg + len, sizeof c->r->msg - len, "%s0x%08x: rule %s: %s", len ? "\n" : "", v->pc,
                 v->name, v->text);
}

/* Assembles text into w; on failure records the diagnostics in r->msg.  Returns 0 or -1. */
static int assemble(const char *path, const struct tsr_buf *text, struct tsr_words *w, struct result *r)
{
    struct tsr_diag d;
    tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
    int rc = qpu_target.assemble(path, text->data ? text->data : "", text->len, w, &d);
    for (size_t i = 0; rc && i < d.count && i < 4; i++) {
        size_t len = strlen(r->msg);
        snprintf(r->msg + len, sizeof r->msg - len, "%s%s", len ? "\n" : "", d.entries[i].text);
    }
    tsr_diag_fini(&d);
    return rc ? -1 : 0;
}

/* tsr_validate on w; the first violations go to r->msg, the first rule's name to r->rule.  Returns the count. */
static size_t validate(const struct tsr_words *w, struct result *r)
{
    struct vctx c = { r, 0 };
    return tsr_validate(qpu_target.vdesc, w->w, w->count, 0, on_violation, &c);
}

/* Runs every check on the items from initial state *in; r gets the texts and the outcome.  Returns
 * r->fail. */
static int check(const struct item *it, int n, const struct init *in, struct result *r)
{
    tsr_buf_clear(&r->in);
    tsr_buf_clear(&r->ref);
    tsr_buf_clear(&r->packed);
    r->msg[0] = 0;
    r->rule[0] = 0;
    input_text(it, n, &r->in);
    reference_text(it, n, &r->ref);
    struct tsr_words wr, wp;
    tsr_words_init(&wr, qpu_target.word_bits);
    tsr_words_init(&wp, qpu_target.word_bits);
    static struct final fr, fp;
    int fail = OK;
    if (assemble("reference.s", &r->ref, &wr, r))
        fail = REF_ASM;
    else if (validate(&wr, r))
        fail = REF_VALIDATE;
    else if (simulate(wr.w, wr.count, in, &fr, r->msg, sizeof r->msg))
        fail = REF_SIM;
    if (fail == OK) {
        struct tsr_diag d;
        tsr_diag_init(&d, TSR_DIAG_STORE, NULL);
        if (tsr_pack_text(&qpu_target, "input.s", r->in.data, r->in.len, &r->packed, NULL, &d)) {
            fail = PACK_ERROR;
            for (size_t i = 0; i < d.count && i < 4; i++) {
                size_t len = strlen(r->msg);
                snprintf(r->msg + len, sizeof r->msg - len, "%s%s", len ? "\n" : "", d.entries[i].text);
            }
        }
        tsr_diag_fini(&d);
    }
    if (fail == OK && assemble("packed.s", &r->packed, &wp, r))
        fail = PACK_ASM;
    if (fail == OK && validate(&wp, r))
        fail = PACK_VALIDATE;
    if (fail == OK && simulate(wp.w, wp.count, in, &fp, r->msg, sizeof r->msg))
        fail = PACK_SIM;
    if (fail == OK && compare_final(&fr, &fp, r->msg, sizeof r->msg, r->rule))
        fail = MISMATCH;
    int named = fail == PACK_VALIDATE || fail == REF_VALIDATE || fail == MISMATCH;
    snprintf(r->sig, sizeof r->sig, "%d:%s", fail, named ? r->rule : "");
    tsr_words_free(&wr);
    tsr_words_free(&wp);
    return r->fail = fail;
}

/* Removes items one at a time (last first) while the failure keeps its signature; returns the new count. */
static int minimise(struct item *it, int n, const struct init *in, const char *sig)
{
    static struct result r;
    static struct item tmp[GEN_MAX_ITEMS + 4];
    for (int changed = 1; changed;) {
        changed = 0;
        for (int i = n - 1; i >= 0; i--) {
            memcpy(tmp, it, sizeof *it * (size_t)i);
            memcpy(tmp + i, it + i + 1, sizeof *it * (size_t)(n - i - 1));
            if (check(tmp, n - 1, in, &r) != OK && !strcmp(r.sig, sig)) {
                memcpy(it, tmp, sizeof *it * (size_t)(n - 1));
                n--;
                changed = 1;
            }
        }
    }
    tsr_buf_free(&r.in);
    tsr_buf_free(&r.ref);
    tsr_buf_free(&r.packed);
    return n;
}

/* Prints a failure: its kind, message, the input and the packed (or reference) program. */
static void dump(const char *title, const struct result *r)
{
    fprintf(stderr, "==== %s: %s\n%s\n---- input (one operation per line):\n%.*s", title, FAIL_NAMES[r->fail], r->msg,
            (int)r->in.len, r->in.data ? r->in.data : "");
    if (r->fail >= PACK_ASM)
        fprintf(stderr, "---- packed:\n%.*s", (int)r->packed.len, r->packed.data ? r->packed.data : "");
    else if (r->fail < PACK_ERROR)
        fprintf(stderr, "---- reference:\n%.*s", (int)r->ref.len, r->ref.data ? r->ref.data : "");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 7)
        return 0;
    static struct item items[GEN_MAX_ITEMS + 4];
    static struct init in;
    static struct result r;
    struct gen g = { .p = data + 6, .n = size - 6, .feat = (unsigned)(data[0] | data[1] << 8) };
    if (!g.feat)
        g.feat = 0xffff;
    int n = gen_program(&g, items);
    make_init(&in, (uint32_t)data[2] | (uint32_t)data[3] << 8 | (uint32_t)data[4] << 16 | (uint32_t)data[5] << 24);
    if (check(items, n, &in, &r) == OK)
        return 0;
    static struct result orig;
    orig.fail = r.fail;
    memcpy(orig.msg, r.msg, sizeof r.msg);
    memcpy(orig.sig, r.sig, sizeof r.sig);
    tsr_buf_clear(&orig.in);
    tsr_buf_clear(&orig.packed);
    tsr_buf_clear(&orig.ref);
    tsr_buf_append(&orig.in, r.in.data, r.in.len);
    tsr_buf_append(&orig.packed, r.packed.data ? r.packed.data : "", r.packed.len);
    tsr_buf_append(&orig.ref, r.ref.data ? r.ref.data : "", r.ref.len);
    int m = minimise(items, n, &in, orig.sig);
    check(items, m, &in, &r);
    fprintf(stderr, "fuzz_pack: failure %s; feature mask 0x%04x, state seed 0x%02x%02x%02x%02x; %d of %d items after "
            "minimising\n", orig.sig, g.feat, data[5], data[4], data[3], data[2], m, n);
    dump("minimised", &r);
    dump("original", &orig);
    abort();
}
