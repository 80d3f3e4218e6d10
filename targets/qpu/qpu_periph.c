/* VideoCore IV QPU peripherals: the machine, the I/O register dispatch, the uniform stream,
 * semaphores, mutex, host interrupt and thread end.  TMU and SFU live in qpu_tmu_sfu.c, the VPM in
 * qpu_vpm.c, its DMA in qpu_vdma.c.  See qpu_periph.h for the model and the register map. */
#include "qpu_periph_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- diagnostics and bus helpers ---------------------------------------------------------- */

int qpu_err(struct qpu_periph *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err, sizeof p->err, fmt, ap);
    va_end(ap);
    p->has_err = 1;
    return QPU_IO_ERROR;
}

void qpu_warn(struct qpu_periph *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->warn, sizeof p->warn, fmt, ap);
    va_end(ap);
    p->has_warn = 1;
}

uint8_t *qpu_bus_ptr(struct qpu_machine *m, uint32_t bus, uint64_t len)
{
    uint64_t a = bus & QPU_BUS_MASK;
    if (a > m->mem_size || len > (uint64_t)m->mem_size - a)
        return NULL;
    return m->mem + a;
}

uint32_t qpu_load32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void qpu_store32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* ---- machine ------------------------------------------------------------------------------ */

struct qpu_machine *qpu_machine_new(uint32_t mem_bytes, unsigned nqpus)
{
    if (mem_bytes == 0 || mem_bytes > QPU_BUS_MASK + 1u || nqpus == 0 || nqpus > QPU_MAX_QPUS)
        return NULL;
    struct qpu_machine *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->mem = calloc(mem_bytes, 1);
    if (!m->mem) {
        free(m);
        return NULL;
    }
    m->mem_size = mem_bytes;
    m->nqpus = nqpus;
    m->mutex_owner = -1;
    m->sfu_bits = QPU_SFU_BITS_DEFAULT;
    for (unsigned i = 0; i < nqpus; i++) {
        m->qpu[i].m = m;
        m->qpu[i].num = i;
        qpu_periph_reset(&m->qpu[i], 0);
    }
    return m;
}

void qpu_machine_free(struct qpu_machine *m)
{
    if (!m)
        return;
    free(m->mem);
    free(m);
}

uint8_t *qpu_machine_mem(struct qpu_machine *m) { return m->mem; }
uint32_t qpu_machine_mem_size(const struct qpu_machine *m) { return m->mem_size; }
unsigned qpu_machine_nqpus(const struct qpu_machine *m) { return m->nqpus; }
unsigned qpu_machine_host_irqs(const struct qpu_machine *m) { return m->host_irqs; }
uint32_t *qpu_machine_vpm(struct qpu_machine *m) { return m->vpm; }
int qpu_machine_mutex_owner(const struct qpu_machine *m) { return m->mutex_owner; }

struct qpu_periph *qpu_machine_qpu(struct qpu_machine *m, unsigned i)
{
    return i < m->nqpus ? &m->qpu[i] : NULL;
}

unsigned qpu_machine_semaphore(const struct qpu_machine *m, unsigned num)
{
    return num < QPU_NUM_SEMAPHORES ? m->sem[num] : 0;
}

void qpu_machine_set_sfu_bits(struct qpu_machine *m, unsigned frac_bits)
{
    m->sfu_bits = frac_bits < 1 ? 1 : frac_bits > 23 ? 23 : frac_bits;
}

void qpu_machine_set_dma_latency(struct qpu_machine *m, unsigned steps) { m->dma_latency = steps; }

/* ---- one QPU ------------------------------------------------------------------------------ */

void qpu_periph_reset(struct qpu_periph *p, uint32_t uniforms_bus_addr)
{
    struct qpu_machine *m = p->m;
    unsigned num = p->num;
    memset(p, 0, sizeof *p);
    p->m = m;
    p->num = num;
    p->unif_ptr = uniforms_bus_addr;
    qpu_tmu_reset(p);
    qpu_sfu_reset(p);
    qpu_vpm_reset(p);
}

int qpu_periph_done(const struct qpu_periph *p) { return p->done; }
const char *qpu_periph_error(const struct qpu_periph *p) { return p->has_err ? p->err : NULL; }
const char *qpu_periph_warning(const struct qpu_periph *p) { return p->has_warn ? p->warn : NULL; }
unsigned qpu_periph_num(const struct qpu_periph *p) { return p->num; }
uint32_t qpu_periph_unif_addr(const struct qpu_periph *p) { return p->unif_ptr; }

const uint32_t *qpu_periph_tlb(const struct qpu_periph *p, unsigned addr, unsigned *count)
{
    if (addr < 43 || addr > 47)
        return NULL;
    if (count)
        *count = p->tlb_count[addr - 43];
    return p->tlb[addr - 43];
}

/* ---- uniforms ----------------------------------------------------------------------------- */

/* Reading raddr 32 pops the next 32-bit word of the stream; the same value goes to every lane
 * (doe300/VC4C @ src/tools/Emulator.cpp UniformCache::readUniform; [QPUMD] Latencies 4). */
static int unif_read(struct qpu_periph *p, uint32_t out[QPU_LANES])
{
    const uint8_t *src = qpu_bus_ptr(p->m, p->unif_ptr, 4);
    if (!src)
        return qpu_err(p, "QPU %u: uniform read outside memory at 0x%08x", p->num, p->unif_ptr);
    uint32_t v = qpu_load32(src);
    for (unsigned i = 0; i < QPU_LANES; i++)
        out[i] = v;
    p->unif_ptr += 4;
    return QPU_IO_OK;
}

/* unif_addr (A side): the stream restarts at element 0's value ("see Broadcom specification,
 * page 22", doe300/VC4C @ src/tools/Emulator.cpp UniformCache::setUniformAddress).
 * unif_addr_rel (B side, name from maazl/vc4asm @ doc/expressions.html): element 0 is a signed
 * count of uniforms added to the current pointer.  Inferred from Broadcom's own VG shader source
 * (search corpus, file id 1639480487): "mov vr_addr, unif ; mov unif_addr_rel, -1 # read unif but
 * don't advance pointer" - the pop of the same instruction happens first, -1 steps back over it.
 * Either write opens the 2-instruction "no unif read" window of [QPUMD] Latencies 4. */
static void unif_write(struct qpu_periph *p, int file, uint32_t v0)
{
    if (file == 0)
        p->unif_ptr = v0;
    else
        p->unif_ptr += v0 * 4u; /* signed count, two's complement wrap */
    p->unif_hazard = 3;
}

/* ---- semaphores and mutex ----------------------------------------------------------------- */

int qpu_io_semaphore_ready(const struct qpu_periph *p, unsigned num, int acquire)
{
    if (num >= QPU_NUM_SEMAPHORES)
        return 1; /* the call reports the error */
    return acquire ? p->m->sem[num] > 0 : p->m->sem[num] < 15;
}

/* 16 four-bit counting semaphores: acquire stalls at 0, release stalls at 15
 * (doe300/VC4C @ src/tools/Emulator.cpp Semaphores::increment "if(cnt == 15) ... blocked QPU";
 * [QPUMD] "Other rules").  Encoding (ldi mode 4, bit 4 = acquire, bits 3:0 = number) is decoded by
 * the simulator. */
int qpu_io_semaphore(struct qpu_periph *p, unsigned num, int acquire)
{
    if (num >= QPU_NUM_SEMAPHORES)
        return qpu_err(p, "QPU %u: semaphore %u does not exist (0..15)", p->num, num);
    if (!qpu_io_semaphore_ready(p, num, acquire))
        return QPU_IO_STALL;
    if (acquire)
        p->m->sem[num]--;
    else
        p->m->sem[num]++;
    return QPU_IO_OK;
}

/* Mutex: reading raddr 51 acquires (stalls while another QPU holds it), writing waddr 51 releases
 * (jonasarrow/mesa vc4_qpu_defines.h QPU_R_MUTEX_ACQUIRE / QPU_W_MUTEX_RELEASE).  Acquiring twice or
 * releasing a mutex this QPU does not hold is reported as an error, as doe300/VC4C @
 * src/tools/Emulator.cpp Mutex::lock/unlock does.  The value read is not documented; we return 0. */
static int mutex_acquire(struct qpu_periph *p, uint32_t out[QPU_LANES])
{
    struct qpu_machine *m = p->m;
    if (m->mutex_owner == (int)p->num)
        return qpu_err(p, "QPU %u: mutex acquired twice", p->num);
    if (m->mutex_owner >= 0)
        return QPU_IO_STALL;
    m->mutex_owner = (int)p->num;
    memset(out, 0, QPU_LANES * sizeof *out);
    return QPU_IO_OK;
}

static int mutex_release(struct qpu_periph *p)
{
    struct qpu_machine *m = p->m;
    if (m->mutex_owner != (int)p->num) {
        if (m->mutex_owner < 0)
            return qpu_err(p, "QPU %u: mutex released but not held", p->num);
        return qpu_err(p, "QPU %u: mutex released but held by QPU %d", p->num, m->mutex_owner);
    }
    m->mutex_owner = -1;
    return QPU_IO_OK;
}

/* ---- dispatch ----------------------------------------------------------------------------- */

static const char *read_name(int file, unsigned addr)
{
    switch (addr) {
    case 32: return "unif";
    case 35: return "vary";
    case 38: return file ? "qpu_num" : "elem_num";
    case 39: return "nop";
    case 41: return file ? "y_coord" : "x_coord";
    case 42: return file ? "rev_flag" : "ms_mask";
    case 48: return "vpm";
    case 49: return file ? "vw_busy" : "vr_busy";
    case 50: return file ? "vw_wait" : "vr_wait";
    case 51: return "mutex";
    default: return NULL;
    }
}

static const char *write_name(int file, unsigned addr)
{
    static const char *const names[32] = {
        "r0", "r1", "r2", "r3", "tmu_noswap", "r5", "host_int", "nop",
        NULL, NULL, NULL, "tlb_stencil", "tlb_z", "tlb_color_ms", "tlb_color_all", "tlb_alpha_mask",
        "vpm", NULL, NULL, "mutex", "recip", "recipsqrt", "exp", "log",
        "t0s", "t0t", "t0r", "t0b", "t1s", "t1t", "t1r", "t1b"};
    switch (addr) {
    case 40: return file ? "unif_addr_rel" : "unif_addr";
    case 41: return file ? "y_coord" : "x_coord";
    case 42: return file ? "rev_flag" : "ms_mask";
    case 49: return file ? "vw_setup" : "vr_setup";
    case 50: return file ? "vw_addr" : "vr_addr";
    default: return addr >= 32 && addr <= 63 ? names[addr - 32] : NULL;
    }
}

const char *qpu_io_reg_name(int file, unsigned addr, int write)
{
    return write ? write_name(file, addr) : read_name(file, addr);
}

int qpu_io_ready(const struct qpu_periph *p, int file, unsigned addr, int write)
{
    if (!write) {
        switch (addr) {
        case 48: return qpu_vpm_read_ready(p);
        case 50: return file ? p->vdw_pending == 0 : p->vdr_pending == 0;
        case 51: return p->m->mutex_owner < 0 || p->m->mutex_owner == (int)p->num;
        default: return 1;
        }
    }
    if (addr == 50) /* a second DMA waits for the first (completes at once unless latency > 0) */
        return file ? p->vdw_pending == 0 : p->vdr_pending == 0;
    return 1;
}

int qpu_io_read(struct qpu_periph *p, int file, unsigned addr, uint32_t out[QPU_LANES])
{
    if (!qpu_io_ready(p, file, addr, 0))
        return QPU_IO_STALL;
    uint32_t tmp[QPU_LANES] = {0};
    int rc = QPU_IO_OK;
    switch (addr) {
    case 32:
        rc = unif_read(p, tmp);
        break;
    case 35:
        return qpu_err(p, "QPU %u: varying read (vary) not modelled: no fragment interpolation",
                       p->num);
    case 38: /* elem_num on A, qpu_num on B (vc4asm expressions.html) */
        for (unsigned i = 0; i < QPU_LANES; i++)
            tmp[i] = file ? p->num : i;
        break;
    case 39: /* nop: the last regfile read of lanes 12..15 leaks here ([ADD] "Secret access"),
                which is the simulator's to model; we return 0 */
        break;
    case 41:
        memcpy(tmp, p->xy[file ? 1 : 0], sizeof tmp);
        break;
    case 42:
        memcpy(tmp, p->msrev[file ? 1 : 0], sizeof tmp);
        break;
    case 48:
        rc = qpu_vpm_read(p, tmp);
        break;
    case 49: /* vr_busy / vw_busy: 1 in every lane while this QPU's DMA is pending (the exact
                value format is not documented in our sources) */
        for (unsigned i = 0; i < QPU_LANES; i++)
            tmp[i] = (file ? p->vdw_pending : p->vdr_pending) != 0;
        break;
    case 50: /* vr_wait / vw_wait: ready means complete; the value read is 0 */
        break;
    case 51:
        rc = mutex_acquire(p, tmp);
        break;
    default:
        if (addr < 32 || addr > 63)
            return qpu_err(p, "QPU %u: I/O read address %u outside 32..63", p->num, addr);
        return qpu_err(p, "QPU %u: read of reserved I/O address %u (regfile %c)", p->num, addr,
                       file ? 'B' : 'A');
    }
    if (rc == QPU_IO_OK)
        memcpy(out, tmp, sizeof tmp);
    return rc;
}

/* Registers that take only element 0 refuse a masked lane 0: the hardware would use undefined data
 * ([ADD] "No conditional write to peripheral registers": "Probably any other peripheral register
 * share the same problem"; [QPUMD] "no conditional ... writes to peripherals"). */
static int need_lane0(struct qpu_periph *p, int file, unsigned addr, uint16_t lanemask)
{
    if (lanemask & 1u) {
        if (lanemask != 0xFFFFu)
            qpu_warn(p, "QPU %u: conditional write to %s uses element 0 only", p->num,
                     write_name(file, addr));
        return QPU_IO_OK;
    }
    return qpu_err(p, "QPU %u: conditional write to %s with element 0 disabled: the hardware "
                      "would use undefined data", p->num, write_name(file, addr));
}

int qpu_io_write(struct qpu_periph *p, int file, unsigned addr, const uint32_t v[QPU_LANES],
                 uint16_t lanemask)
{
    int rc;
    if (addr < 32 || addr > 63)
        return qpu_err(p, "QPU %u: I/O write address %u outside 32..63", p->num, addr);
    if (!qpu_io_ready(p, file, addr, 1))
        return QPU_IO_STALL;
    switch (addr) {
    case 32: case 33: case 34: case 35: case 37:
        return qpu_err(p, "QPU %u: write to %s is the simulator's, not a peripheral", p->num,
                       write_name(file, addr));
    case 36: /* tmu_noswap: element 0, any non-zero value disables the swap [ADD] "Writing
                tmu_noswap"; TMU writes must wait 3 instructions [QPUMD] Latencies 3 */
        if ((rc = need_lane0(p, file, addr, lanemask)) != QPU_IO_OK)
            return rc;
        p->noswap = v[0] != 0;
        p->noswap_hazard = 3;
        return QPU_IO_OK;
    case 38: /* host_int: only a non-zero value interrupts; conditional writes "work as expected"
                ([ADD] "Host Interrupt") - we look at element 0 when its condition passed */
        if ((lanemask & 1u) && v[0] != 0)
            p->m->host_irqs++;
        return QPU_IO_OK;
    case 39:
        return QPU_IO_OK;
    case 40:
        if ((rc = need_lane0(p, file, addr, lanemask)) != QPU_IO_OK)
            return rc;
        unif_write(p, file, v[0]);
        return QPU_IO_OK;
    case 41: case 42: { /* recorded only; read back by the matching read address */
        uint32_t *dst = addr == 41 ? p->xy[file ? 1 : 0] : p->msrev[file ? 1 : 0];
        for (unsigned i = 0; i < QPU_LANES; i++)
            if (lanemask & (1u << i))
                dst[i] = v[i];
        return QPU_IO_OK;
    }
    case 43: case 44: case 45: case 46: case 47:
        memcpy(p->tlb[addr - 43], v, sizeof p->tlb[0]);
        p->tlb_count[addr - 43]++;
        return QPU_IO_OK;
    case 48:
        return qpu_vpm_write(p, v, lanemask);
    case 49: /* vr_setup (A) / vw_setup (B): element 0 ([ADD] "Branch Instruction - register
                source": "VPM/VCD setup ... will only use SIMD element 0") */
        if ((rc = need_lane0(p, file, addr, lanemask)) != QPU_IO_OK)
            return rc;
        return qpu_vpm_setup(p, file == 0, v[0]);
    case 50: /* vr_addr (A) starts a VDR load, vw_addr (B) a VDW store */
        if ((rc = need_lane0(p, file, addr, lanemask)) != QPU_IO_OK)
            return rc;
        return file ? qpu_vdw_start(p, v[0]) : qpu_vdr_start(p, v[0]);
    case 51:
        if ((rc = need_lane0(p, file, addr, lanemask)) != QPU_IO_OK)
            return rc;
        return mutex_release(p);
    case 52: case 53: case 54: case 55:
        return qpu_sfu_write(p, addr, v, lanemask);
    default: /* 56..63 */
        return qpu_tmu_write(p, addr, v, lanemask);
    }
}

int qpu_io_signal(struct qpu_periph *p, unsigned sig, uint32_t r4[QPU_LANES])
{
    static const char *const names[13] = {"bkpt", "none", "thrsw", "thrend", "sbwait", "sbdone",
                                          "lthrsw", "loadcv", "loadc", "ldcend", "ldtmu0",
                                          "ldtmu1", "loadam"};
    switch (sig) {
    case 1: /* no signal */
    case 4: /* sbwait / sbdone: tile-buffer scoreboard, nothing to wait for without a TLB */
    case 5:
        return QPU_IO_OK;
    case 3: /* thrend: the two following instructions still run [QPUMD] Latencies 6 */
        p->done = 1;
        return QPU_IO_OK;
    case 10:
    case 11:
        return qpu_tmu_load(p, sig - 10, r4);
    default:
        if (sig > 12)
            return qpu_err(p, "QPU %u: signal %u is not a signal (13 small imm, 14 ldi, 15 branch)",
                           p->num, sig);
        return qpu_err(p, "QPU %u: signal %s not modelled", p->num, names[sig]);
    }
}

void qpu_io_step(struct qpu_periph *p, uint32_t r4[QPU_LANES])
{
    qpu_sfu_step(p, r4);
    if (p->vdw_pending)
        p->vdw_pending--;
    if (p->vdr_pending)
        p->vdr_pending--;
    if (p->unif_hazard)
        p->unif_hazard--;
    if (p->noswap_hazard)
        p->noswap_hazard--;
}

int qpu_io_r4_busy(const struct qpu_periph *p)
{
    for (unsigned i = 0; i < QPU_SFU_LATENCY; i++)
        if (p->sfu[i].valid)
            return 1;
    return 0;
}

unsigned qpu_io_hazards(const struct qpu_periph *p)
{
    return (qpu_io_r4_busy(p) ? QPU_HAZ_R4 : 0u) | (p->unif_hazard ? QPU_HAZ_UNIF : 0u) |
           (p->noswap_hazard ? QPU_HAZ_TMU_NOSWAP : 0u);
}
