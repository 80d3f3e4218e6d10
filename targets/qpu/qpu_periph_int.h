/* Internal state shared by qpu_periph.c (machine, dispatch, uniforms, sync), qpu_tmu_sfu.c
 * (TMU and SFU) and qpu_vpm.c / qpu_vdma.c (VPM and its DMA).  Not part of the public API. */
#ifndef QPU_PERIPH_INT_H
#define QPU_PERIPH_INT_H

#include "qpu_periph.h"

#include <stddef.h>

/* Address bits kept by every bus access: bits 31:30 are the VideoCore cache alias (see
 * qpu_machine_mem in qpu_periph.h). */
#define QPU_BUS_MASK 0x3FFFFFFFu

struct qpu_tmu_fifo {
    uint32_t data[QPU_TMU_FIFO_DEPTH][QPU_LANES];
    unsigned head, count;
};

struct qpu_sfu_slot {
    int valid;
    unsigned left; /* qpu_io_step calls until the result lands in r4 */
    uint32_t v[QPU_LANES];
};

/* Live state of a VPM generic access (decoded from a vr_setup / vw_setup word). */
struct qpu_vpm_cursor {
    uint32_t word;       /* the setup word as written (for messages) */
    struct qpu_vpm_generic g;
    int set;             /* a generic setup was written since reset */
};

struct qpu_periph {
    struct qpu_machine *m;
    unsigned num;

    /* uniforms */
    uint32_t unif_ptr;
    unsigned unif_hazard;   /* steps left in the unif_addr -> unif read window */

    /* TMU (indexed by physical TMU) */
    struct qpu_tmu_fifo tmu[2];
    int noswap;
    unsigned noswap_hazard;

    /* SFU */
    struct qpu_sfu_slot sfu[QPU_SFU_LATENCY];

    /* VPM generic access */
    struct qpu_vpm_cursor wr, rd;
    unsigned rd_remaining;          /* vectors still owed by the current read setup */
    int rd_carry_valid;             /* one vector already in the FIFO from the previous setup */
    uint32_t rd_carry[QPU_LANES];

    /* VCD DMA */
    uint32_t vdw_setup, vdw_stride, vdr_setup, vdr_pitch;
    int vdw_setup_set, vdr_setup_set;
    unsigned vdw_pending, vdr_pending; /* steps left until the DMA counts as complete */

    /* fragment-ish registers: recorded only */
    uint32_t xy[2][QPU_LANES];      /* [0] x_coord, [1] y_coord */
    uint32_t msrev[2][QPU_LANES];   /* [0] ms_mask, [1] rev_flag */
    uint32_t tlb[5][QPU_LANES];     /* writes to 43..47 */
    unsigned tlb_count[5];

    int done;
    int has_err, has_warn;
    char err[192];
    char warn[192];
};

struct qpu_machine {
    uint8_t *mem;
    uint32_t mem_size;
    unsigned nqpus;
    struct qpu_periph qpu[QPU_MAX_QPUS];
    uint32_t vpm[QPU_VPM_ROWS * QPU_VPM_ROW_WORDS];
    uint8_t sem[QPU_NUM_SEMAPHORES];
    int mutex_owner;
    unsigned host_irqs;
    unsigned sfu_bits;
    unsigned dma_latency;
};

/* Diagnostics (printf-style; the message replaces the previous one).  qpu_err returns
 * QPU_IO_ERROR so callers can `return qpu_err(...)`. */
int qpu_err(struct qpu_periph *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void qpu_warn(struct qpu_periph *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Bus access helpers: translate a bus address (alias bits cleared) and check that `len` bytes fit
 * in memory.  Return a pointer into memory or NULL. */
uint8_t *qpu_bus_ptr(struct qpu_machine *m, uint32_t bus, uint64_t len);
uint32_t qpu_load32(const uint8_t *p);
void qpu_store32(uint8_t *p, uint32_t v);

/* qpu_tmu_sfu.c */
void qpu_tmu_reset(struct qpu_periph *p);
int qpu_tmu_write(struct qpu_periph *p, unsigned addr, const uint32_t v[QPU_LANES], uint16_t lanemask);
int qpu_tmu_load(struct qpu_periph *p, unsigned tmu, uint32_t r4[QPU_LANES]);
void qpu_sfu_reset(struct qpu_periph *p);
int qpu_sfu_write(struct qpu_periph *p, unsigned addr, const uint32_t v[QPU_LANES], uint16_t lanemask);
void qpu_sfu_step(struct qpu_periph *p, uint32_t r4[QPU_LANES]);
uint32_t qpu_sfu_eval(unsigned op, uint32_t x, unsigned frac_bits);

/* qpu_vpm.c */
void qpu_vpm_reset(struct qpu_periph *p);
int qpu_vpm_read_ready(const struct qpu_periph *p);
int qpu_vpm_read(struct qpu_periph *p, uint32_t out[QPU_LANES]);
int qpu_vpm_write(struct qpu_periph *p, const uint32_t v[QPU_LANES], uint16_t lanemask);
int qpu_vpm_setup(struct qpu_periph *p, int is_read, uint32_t word);

/* qpu_vdma.c */
int qpu_vdw_start(struct qpu_periph *p, uint32_t bus);
int qpu_vdr_start(struct qpu_periph *p, uint32_t bus);

#endif
