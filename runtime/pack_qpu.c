/* The packer's effects model of the QPU (struct tsr_pack_model): what one decoded operation reads and
 * writes, with latencies.  Reached only through the target descriptor (field and format names are looked
 * up by name), so it needs no generated header.
 *
 * This is the conservative internal model of ../shared/isa/qpu.md "Latencies and hazards" that stands in
 * until the description itself declares hazards (docs/pack.md "Limits"):
 *   regfile A/B: a write is readable 2 bundles later [QPU Lat. 1]; accumulators and flags: 1;
 *   SFU (recip, recipsqrt, exp, log): r4 readable 3 bundles later [QPU Lat. 2]; ldtmu/load signals: 1 [QPU Lat. 3];
 *   unif_addr: uniforms readable 3 bundles later [QPU Lat. 4]; tmu_noswap: 3 bundles before a TMU write;
 *   every access to a FIFO or peripheral (uniforms, VPM, TMU, SFU, TLB, ...) is ordered against the others of
 *   its class; semaphores, mutex, thread switches, host interrupts and unknown I/O order against all I/O;
 *   at most one TMU/TLB/SFU/mutex/semaphore access per bundle [QPU Lat. 7].
 */
#include <string.h>
#include "pack.h"
#include "target.h"

enum {
    R_RA = 0, R_RB = 32, R_ACC = 64, R_FLAGS = 70,
    R_UNIF = 71, R_VPM, R_TMU, R_SFU, R_TLB, R_MISC, R_MEM, R_SYNC, R_NRES,
};
#define B_PERIPH 1u

struct qf {
    const struct tsr_target *t;
    int sig, unpack, pm, pack, cond_add, cond_mul, sf, ws, waddr_add, waddr_mul, op_mul, op_add, raddr_a, raddr_b,
        add_a, add_b, mul_a, mul_b, ldi_mode, br_cond, br_reg, br_raddr_a;
    int f_alu, f_ldi, f_pe, f_sema, f_branch;
    int s_add, s_mul, s_signal;
};

static int field_ix(const struct tsr_target *t, const char *n)
{
    for (unsigned i = 0; i < t->nfields; i++)
        if (!strcmp(t->field_names[i], n))
            return (int)i;
    return -1;
}
static int fmt_ix(const struct tsr_target *t, const char *n)
{
    for (unsigned i = 0; i < t->nformats; i++)
        if (!strcmp(t->format_names[i], n))
            return (int)i;
    return -1;
}
static int slot_ix(const struct tsr_target *t, const char *n)
{
    for (unsigned i = 0; i < t->nslots; i++)
        if (!strcmp(t->slot_names[i], n))
            return (int)i;
    return -1;
}

static void qf_init(struct qf *q, const struct tsr_target *t)
{
    q->t = t;
#define F(x) q->x = field_ix(t, #x)
    F(sig); F(unpack); F(pm); F(pack); F(cond_add); F(cond_mul); F(sf); F(ws); F(waddr_add); F(waddr_mul);
    F(op_mul); F(op_add); F(raddr_a); F(raddr_b); F(add_a); F(add_b); F(mul_a); F(mul_b); F(ldi_mode);
    F(br_cond); F(br_reg); F(br_raddr_a);
#undef F
    q->f_alu = fmt_ix(t, "alu"); q->f_ldi = fmt_ix(t, "ldi"); q->f_pe = fmt_ix(t, "ldi_pe");
    q->f_sema = fmt_ix(t, "sema"); q->f_branch = fmt_ix(t, "branch");
    q->s_add = slot_ix(t, "add"); q->s_mul = slot_ix(t, "mul"); q->s_signal = slot_ix(t, "signal");
}

static unsigned fv(const struct qf *q, const void *inst, int f)
{
    return f < 0 ? 0 : (unsigned)q->t->inst_field(inst, (unsigned)f);
}

static void eff(struct tsr_pack_info *o, int res, int write, int lat)
{
    for (int i = 0; i < o->neff; i++)
        if (o->eff[i].res == res && o->eff[i].write == write) {
            if (lat > o->eff[i].lat)
                o->eff[i].lat = (uint8_t)lat;
            return;
        }
    if (o->neff < TSR_PACK_MAX_EFF)
        o->eff[o->neff++] = (struct tsr_pack_eff){ (uint16_t)res, (uint8_t)write, (uint8_t)lat };
}

static void barrier(struct tsr_pack_info *o)
{
    for (int r = R_UNIF; r < R_NRES; r++)
        eff(o, r, 1, 1);
}

/* An I/O read of register code c (32..63) from side (0 A, 1 B). */
static void io_read(struct tsr_pack_info *o, int side, unsigned c)
{
    (void)side;
    switch (c) {
    case 32: eff(o, R_UNIF, 1, 1); break;                   /* unif: pops the stream */
    case 38: case 39: break;                                /* elem_num / qpu_num, nop: pure */
    case 35: case 41: case 42: eff(o, R_MISC, 1, 1); break; /* vary, coordinates, ms_flags / rev_flag */
    case 48: eff(o, R_VPM, 1, 1); break;                    /* vpm read */
    case 49: case 50: eff(o, R_VPM, 1, 1); eff(o, R_MEM, 1, 1); break; /* busy / wait: DMA completion */
    default: barrier(o); o->bundle_res |= B_PERIPH; break;  /* mutex acquire and unknown registers */
    }
}

static void write_addr(struct tsr_pack_info *o, int side, unsigned w)
{
    if (w < 32) {
        eff(o, (side ? R_RB : R_RA) + (int)w, 1, 2);
        return;
    }
    switch (w) {
    case 32: case 33: case 34: case 35: eff(o, R_ACC + (int)w - 32, 1, 1); break;
    case 37: eff(o, R_ACC + 5, 1, 1); eff(o, R_ACC + 5, 0, 0); break;   /* r5quad/r5rep */
    case 39: break;
    case 36: eff(o, R_TMU, 1, 3); eff(o, R_UNIF, 1, 1); break;           /* tmu_noswap: 3 before a TMU write */
    case 40: eff(o, R_UNIF, 1, 3); break;                               /* unif_addr: 2 bundles before unif */
    case 41: case 42: eff(o, R_MISC, 1, 1); break;
    case 43: case 44: case 45: case 46: case 47: eff(o, R_TLB, 1, 1); o->bundle_res |= B_PERIPH; break;
    case 48: case 49: eff(o, R_VPM, 1, 1); break;
    case 50: eff(o, R_VPM, 1, 1); eff(o, R_MEM, 1, 1); break;           /* vr_addr / vw_addr: start a DMA */
    case 52: case 53: case 54: case 55:                                 /* SFU: r4 three bundles later */
        eff(o, R_ACC + 4, 1, 3); eff(o, R_SFU, 1, 1); o->bundle_res |= B_PERIPH; break;
    default:
        if (w >= 56) {                                                  /* TMU: t0s..t1b */
            eff(o, R_TMU, 1, 1); eff(o, R_UNIF, 1, 1); eff(o, R_MEM, 0, 0); o->bundle_res |= B_PERIPH;
        } else {
            barrier(o);                                                 /* host_int, mutex release */
            o->bundle_res |= B_PERIPH;
        }
    }
}

static void mux_read(const struct qf *q, const void *inst, struct tsr_pack_info *o, unsigned mux, bool is_mul)
{
    (void)is_mul;
    if (mux <= 5) {
        eff(o, R_ACC + (int)mux, 0, 0);
    } else if (mux == 6) {
        unsigned a = fv(q, inst, q->raddr_a);
        if (a < 32) eff(o, R_RA + (int)a, 0, 0); else io_read(o, 0, a);
    } else if (fv(q, inst, q->sig) != 13) {
        unsigned b = fv(q, inst, q->raddr_b);
        if (b < 32) eff(o, R_RB + (int)b, 0, 0); else io_read(o, 1, b);
    }
}

static void alu_write(const struct qf *q, const void *inst, struct tsr_pack_info *o, bool mul)
{
    unsigned cond = fv(q, inst, mul ? q->cond_mul : q->cond_add);
    unsigned w = fv(q, inst, mul ? q->waddr_mul : q->waddr_add);
    unsigned ws = fv(q, inst, q->ws);
    int side = mul ? !ws : (int)ws;   /* 0 = A */
    if (cond >= 2)
        eff(o, R_FLAGS, 0, 0);
    if (cond != 0)
        write_addr(o, side, w);
    if (cond != 0 && w < 32 && fv(q, inst, q->pack) != 0)   /* a pack writes only some bytes */
        eff(o, (side ? R_RB : R_RA) + (int)w, 0, 0);
}

static int qpu_classify(const struct tsr_target *t, const void *inst, struct tsr_pack_info *o)
{
    struct qf q;
    qf_init(&q, t);
    memset(o, 0, sizeof *o);
    unsigned fmt = t->inst_format(inst);
    if (fmt == (unsigned)q.f_branch) {
        o->ctl = TSR_PACK_CTL_JUMP;
        o->delay = 3;
        if (fv(&q, inst, q.br_cond) != 15)
            eff(o, R_FLAGS, 0, 0);
        if (fv(&q, inst, q.br_reg))
            eff(o, R_RA + (int)fv(&q, inst, q.br_raddr_a), 0, 0);
        unsigned ws = fv(&q, inst, q.ws);
        write_addr(o, (int)ws, fv(&q, inst, q.waddr_add));
        write_addr(o, !ws, fv(&q, inst, q.waddr_mul));
        if (fv(&q, inst, q.br_raddr_a) & 1)
            eff(o, R_FLAGS, 1, 1);
        return 0;
    }
    if (fmt == (unsigned)q.f_ldi || fmt == (unsigned)q.f_pe || fmt == (unsigned)q.f_sema) {
        alu_write(&q, inst, o, false);
        alu_write(&q, inst, o, true);
        if (fv(&q, inst, q.sf))
            eff(o, R_FLAGS, 1, 1);
        if (fmt == (unsigned)q.f_sema) {
            barrier(o);
            o->bundle_res |= B_PERIPH;
        }
        return 0;
    }
    if (fmt != (unsigned)q.f_alu) {
        o->ctl = TSR_PACK_CTL_OPAQUE;
        barrier(o);
        return 0;
    }
    unsigned op_add = fv(&q, inst, q.op_add), op_mul = fv(&q, inst, q.op_mul), sig = fv(&q, inst, q.sig);
    if (op_add) {
        mux_read(&q, inst, o, fv(&q, inst, q.add_a), false);
        mux_read(&q, inst, o, fv(&q, inst, q.add_b), false);
        alu_write(&q, inst, o, false);
    }
    if (op_mul) {
        mux_read(&q, inst, o, fv(&q, inst, q.mul_a), true);
        mux_read(&q, inst, o, fv(&q, inst, q.mul_b), true);
        if (sig == 13 && fv(&q, inst, q.raddr_b) == 48)
            eff(o, R_ACC + 5, 0, 0);                       /* rotation by r5 */
        alu_write(&q, inst, o, true);
    }
    if (fv(&q, inst, q.sf) && (op_add || op_mul))
        eff(o, R_FLAGS, 1, 1);
    switch (sig) {
    case 1: case 13: break;
    case 3: o->ctl = TSR_PACK_CTL_END; o->delay = 2; barrier(o);   /* thread end [QPU Lat. 6] */
        eff(o, R_RA + 14, 1, 1); eff(o, R_RB + 14, 1, 1);
        for (int i = 0; i < o->neff; i++)
            if (o->eff[i].write && o->eff[i].res < R_ACC && !(o->eff[i].res == R_RA + 14 || o->eff[i].res == R_RB + 14))
                o->error = "a thread end may not write a register file in its own bundle";
        break;
    case 9: o->ctl = TSR_PACK_CTL_END; o->delay = 2; barrier(o); eff(o, R_ACC + 4, 1, 1); break;
    case 7: case 8: case 12: eff(o, R_TLB, 1, 1); eff(o, R_ACC + 4, 1, 1); break;
    case 10: case 11: eff(o, R_TMU, 1, 1); eff(o, R_ACC + 4, 1, 1); break;
    default: barrier(o); break;                               /* bkpt, thrsw, sbwait, sbdone, lthrsw */
    }
    return 0;
}

static const struct tsr_pack_model qpu_model = { "qpu", R_NRES, qpu_classify };

const struct tsr_pack_model *tsr_pack_model_for(const struct tsr_target *t)
{
    if (t && !strcmp(t->name, "qpu"))
        return &qpu_model;
    return NULL;
}
