/* Known-answer tests for the VideoCore IV QPU peripherals (targets/qpu/qpu_periph.h).
 * Setup words are the ones GPU_FFT's Broadcom-assembled hex contains
 * (../shared/corpus/qpu/gpu_fft_r3/hex), so the decoder is checked against real encodings. */
#include "../targets/qpu/qpu_periph.h"

#include <criterion/criterion.h>

#include <math.h>
#include <string.h>

#define ALL 0xFFFFu

static struct qpu_machine *M;
static struct qpu_periph *P0;

static void setup_machine(void)
{
    M = qpu_machine_new(1u << 20, 8);
    cr_assert_not_null(M);
    P0 = qpu_machine_qpu(M, 0);
}

static void teardown_machine(void) { qpu_machine_free(M); }

static void put32(uint32_t addr, uint32_t v)
{
    uint8_t *m = qpu_machine_mem(M) + addr;
    m[0] = (uint8_t)v;
    m[1] = (uint8_t)(v >> 8);
    m[2] = (uint8_t)(v >> 16);
    m[3] = (uint8_t)(v >> 24);
}

static uint32_t get32(uint32_t addr)
{
    const uint8_t *m = qpu_machine_mem(M) + addr;
    return (uint32_t)m[0] | (uint32_t)m[1] << 8 | (uint32_t)m[2] << 16 | (uint32_t)m[3] << 24;
}

static void splat(uint32_t v[QPU_LANES], uint32_t x)
{
    for (unsigned i = 0; i < QPU_LANES; i++)
        v[i] = x;
}

/* write element-0 value x to an I/O register */
static int wr(struct qpu_periph *p, int file, unsigned addr, uint32_t x)
{
    uint32_t v[QPU_LANES];
    splat(v, x);
    return qpu_io_write(p, file, addr, v, ALL);
}

static uint32_t f2u(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float u2f(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* register numbers (vc4asm expressions.html) */
enum { R_UNIF = 32, R_ELEM = 38, R_VPM = 48, R_BUSY = 49, R_WAIT = 50, R_MUTEX = 51 };
enum { W_NOSWAP = 36, W_HOSTINT = 38, W_UNIFADDR = 40, W_VPM = 48, W_SETUP = 49, W_ADDR = 50,
       W_MUTEX = 51, W_RECIP = 52, W_RSQRT = 53, W_EXP = 54, W_LOG = 55, W_T0S = 56, W_T0T = 57,
       W_T1S = 60 };
enum { FA = 0, FB = 1 };

TestSuite(machine, .init = setup_machine, .fini = teardown_machine);

Test(machine, new_rejects_bad_arguments)
{
    cr_assert_null(qpu_machine_new(0, 1));
    cr_assert_null(qpu_machine_new(4096, 0));
    cr_assert_null(qpu_machine_new(4096, 13));
    struct qpu_machine *m = qpu_machine_new(4096, 12);
    cr_assert_not_null(m);
    cr_assert_eq(qpu_machine_nqpus(m), 12);
    cr_assert_null(qpu_machine_qpu(m, 12));
    cr_assert_eq(qpu_machine_mem_size(m), 4096);
    qpu_machine_free(m);
    qpu_machine_free(NULL);
}

Test(machine, elem_num_and_qpu_num)
{
    uint32_t out[QPU_LANES];
    struct qpu_periph *p5 = qpu_machine_qpu(M, 5);
    cr_assert_eq(qpu_io_read(p5, FA, R_ELEM, out), QPU_IO_OK);
    for (unsigned i = 0; i < QPU_LANES; i++)
        cr_assert_eq(out[i], i);
    cr_assert_eq(qpu_io_read(p5, FB, R_ELEM, out), QPU_IO_OK);
    for (unsigned i = 0; i < QPU_LANES; i++)
        cr_assert_eq(out[i], 5);
    cr_assert_eq(qpu_periph_num(p5), 5);
}

Test(machine, reg_names)
{
    cr_assert_str_eq(qpu_io_reg_name(FB, 49, 1), "vw_setup");
    cr_assert_str_eq(qpu_io_reg_name(FA, 50, 0), "vr_wait");
    cr_assert_str_eq(qpu_io_reg_name(FA, 56, 1), "t0s");
    cr_assert_null(qpu_io_reg_name(FA, 33, 0));
}

/* ---- uniforms ----------------------------------------------------------------------------- */

Test(machine, uniform_stream_order_and_restart)
{
    uint32_t out[QPU_LANES];
    for (unsigned i = 0; i < 6; i++)
        put32(0x100 + 4 * i, 0x1000 + i);
    qpu_periph_reset(P0, 0x100);
    for (unsigned i = 0; i < 3; i++) {
        cr_assert_eq(qpu_io_read(P0, i & 1, R_UNIF, out), QPU_IO_OK);
        for (unsigned l = 0; l < QPU_LANES; l++)
            cr_assert_eq(out[l], 0x1000 + i, "uniform %u lane %u", i, l);
    }
    cr_assert_eq(qpu_periph_unif_addr(P0), 0x10C);

    /* unif_addr (A side) restarts the stream at element 0's value */
    cr_assert_eq(wr(P0, FA, W_UNIFADDR, 0x104), QPU_IO_OK);
    cr_assert(qpu_io_hazards(P0) & QPU_HAZ_UNIF);
    qpu_io_step(P0, out);
    cr_assert(qpu_io_hazards(P0) & QPU_HAZ_UNIF); /* N+1 */
    qpu_io_step(P0, out);
    cr_assert(qpu_io_hazards(P0) & QPU_HAZ_UNIF); /* N+2 */
    qpu_io_step(P0, out);
    cr_assert_eq(qpu_io_hazards(P0) & QPU_HAZ_UNIF, 0); /* N+3: reading is fine */
    cr_assert_eq(qpu_io_read(P0, FA, R_UNIF, out), QPU_IO_OK);
    cr_assert_eq(out[0], 0x1001);

    /* unif_addr_rel (B side): read a uniform but do not advance ("mov vr_addr, unif ;
       mov unif_addr_rel, -1") */
    cr_assert_eq(qpu_io_read(P0, FA, R_UNIF, out), QPU_IO_OK);
    cr_assert_eq(out[0], 0x1002);
    cr_assert_eq(wr(P0, FB, W_UNIFADDR, (uint32_t)-1), QPU_IO_OK);
    cr_assert_eq(qpu_io_read(P0, FB, R_UNIF, out), QPU_IO_OK);
    cr_assert_eq(out[0], 0x1002);
}

Test(machine, uniform_bus_alias_and_out_of_range)
{
    uint32_t out[QPU_LANES] = {0};
    put32(0x200, 0xCAFEF00D);
    qpu_periph_reset(P0, 0xC0000200); /* GPU_FFT hands out 0xC... bus addresses */
    cr_assert_eq(qpu_io_read(P0, FA, R_UNIF, out), QPU_IO_OK);
    cr_assert_eq(out[7], 0xCAFEF00D);

    qpu_periph_reset(P0, (1u << 20) - 2);
    cr_assert_eq(qpu_io_read(P0, FA, R_UNIF, out), QPU_IO_ERROR);
    cr_assert_not_null(qpu_periph_error(P0));
    cr_assert(strstr(qpu_periph_error(P0), "uniform read outside memory at 0x000ffffe") != NULL,
              "%s", qpu_periph_error(P0));
    qpu_periph_reset(P0, 0);
    cr_assert_null(qpu_periph_error(P0));
}

/* ---- semaphores, mutex, interrupts ------------------------------------------------------- */

Test(machine, semaphore_counting_and_blocking)
{
    struct qpu_periph *p1 = qpu_machine_qpu(M, 1);
    /* acquire at 0 blocks, without side effects */
    cr_assert_eq(qpu_io_semaphore_ready(P0, 3, 1), 0);
    cr_assert_eq(qpu_io_semaphore(P0, 3, 1), QPU_IO_STALL);
    cr_assert_eq(qpu_machine_semaphore(M, 3), 0);
    /* releases count up to 15, the 16th blocks */
    for (unsigned i = 1; i <= 15; i++) {
        cr_assert_eq(qpu_io_semaphore(p1, 3, 0), QPU_IO_OK);
        cr_assert_eq(qpu_machine_semaphore(M, 3), i);
    }
    cr_assert_eq(qpu_io_semaphore_ready(p1, 3, 0), 0);
    cr_assert_eq(qpu_io_semaphore(p1, 3, 0), QPU_IO_STALL);
    cr_assert_eq(qpu_machine_semaphore(M, 3), 15);
    /* the other semaphores are independent */
    cr_assert_eq(qpu_machine_semaphore(M, 4), 0);
    /* the waiting QPU gets through, one acquire per count */
    cr_assert_eq(qpu_io_semaphore(P0, 3, 1), QPU_IO_OK);
    cr_assert_eq(qpu_machine_semaphore(M, 3), 14);
    cr_assert_eq(qpu_io_semaphore(p1, 3, 0), QPU_IO_OK);
    cr_assert_eq(qpu_machine_semaphore(M, 3), 15);
    for (unsigned i = 0; i < 15; i++)
        cr_assert_eq(qpu_io_semaphore(P0, 3, 1), QPU_IO_OK);
    cr_assert_eq(qpu_io_semaphore(P0, 3, 1), QPU_IO_STALL);
    cr_assert_eq(qpu_io_semaphore(P0, 16, 1), QPU_IO_ERROR);
}

Test(machine, gpu_fft_master_slave_handshake)
{
    /* body_ra_sync / body_rx_sync_slave: master sacq(i+9) then srel(i+1); slave i srel(i+9)
       then sacq(i+1).  Run both sides until neither can move. */
    struct qpu_periph *slave[7];
    unsigned sstep[7] = {0}, mstep = 0;
    for (unsigned i = 0; i < 7; i++)
        slave[i] = qpu_machine_qpu(M, i + 1);
    for (int round = 0; round < 100; round++) {
        for (unsigned i = 0; i < 7; i++) {
            if (sstep[i] == 0 && qpu_io_semaphore(slave[i], i + 9, 0) == QPU_IO_OK)
                sstep[i] = 1;
            else if (sstep[i] == 1 && qpu_io_semaphore(slave[i], i + 1, 1) == QPU_IO_OK)
                sstep[i] = 2;
        }
        if (mstep < 14) {
            unsigned i = mstep / 2;
            int rc = (mstep & 1) ? qpu_io_semaphore(P0, i + 1, 0) : qpu_io_semaphore(P0, i + 9, 1);
            if (rc == QPU_IO_OK)
                mstep++;
        }
    }
    cr_assert_eq(mstep, 14);
    for (unsigned i = 0; i < 7; i++) {
        cr_assert_eq(sstep[i], 2);
        cr_assert_eq(qpu_machine_semaphore(M, i + 1), 0);
        cr_assert_eq(qpu_machine_semaphore(M, i + 9), 0);
    }
}

Test(machine, mutex)
{
    uint32_t out[QPU_LANES];
    struct qpu_periph *p1 = qpu_machine_qpu(M, 1);
    cr_assert_eq(qpu_machine_mutex_owner(M), -1);
    cr_assert_eq(qpu_io_read(P0, FA, R_MUTEX, out), QPU_IO_OK);
    cr_assert_eq(qpu_machine_mutex_owner(M), 0);
    cr_assert_eq(qpu_io_ready(p1, FB, R_MUTEX, 0), 0);
    cr_assert_eq(qpu_io_read(p1, FB, R_MUTEX, out), QPU_IO_STALL);
    cr_assert_eq(wr(p1, FA, W_MUTEX, 0), QPU_IO_ERROR); /* not the owner */
    cr_assert(strstr(qpu_periph_error(p1), "held by QPU 0") != NULL);
    cr_assert_eq(qpu_io_read(P0, FA, R_MUTEX, out), QPU_IO_ERROR); /* twice */
    cr_assert_eq(wr(P0, FA, W_MUTEX, 0), QPU_IO_OK);
    cr_assert_eq(qpu_io_ready(p1, FB, R_MUTEX, 0), 1);
    cr_assert_eq(qpu_io_read(p1, FB, R_MUTEX, out), QPU_IO_OK);
    cr_assert_eq(qpu_machine_mutex_owner(M), 1);
}

Test(machine, host_interrupt_counts_nonzero_writes)
{
    uint32_t v[QPU_LANES];
    cr_assert_eq(wr(P0, FA, W_HOSTINT, 0), QPU_IO_OK); /* GPU_FFT "mov interrupt, flag" with 0 */
    cr_assert_eq(qpu_machine_host_irqs(M), 0);
    cr_assert_eq(wr(P0, FA, W_HOSTINT, 1), QPU_IO_OK);
    cr_assert_eq(wr(qpu_machine_qpu(M, 3), FB, W_HOSTINT, 7), QPU_IO_OK);
    cr_assert_eq(qpu_machine_host_irqs(M), 2);
    splat(v, 1);
    cr_assert_eq(qpu_io_write(P0, FA, W_HOSTINT, v, 0xFFFE), QPU_IO_OK); /* lane 0 masked */
    cr_assert_eq(qpu_machine_host_irqs(M), 2);
}

Test(machine, thread_end_and_signals)
{
    uint32_t r4[QPU_LANES] = {0};
    cr_assert_eq(qpu_periph_done(P0), 0);
    cr_assert_eq(qpu_io_signal(P0, 1, r4), QPU_IO_OK);
    cr_assert_eq(qpu_io_signal(P0, 3, r4), QPU_IO_OK);
    cr_assert_eq(qpu_periph_done(P0), 1);
    cr_assert_eq(qpu_io_signal(P0, 8, r4), QPU_IO_ERROR);
    cr_assert(strstr(qpu_periph_error(P0), "loadc not modelled") != NULL);
    cr_assert_eq(qpu_io_signal(P0, 13, r4), QPU_IO_ERROR);
    qpu_periph_reset(P0, 0);
    cr_assert_eq(qpu_periph_done(P0), 0);
}

Test(machine, io_errors)
{
    uint32_t v[QPU_LANES] = {0};
    cr_assert_eq(qpu_io_read(P0, FA, 33, v), QPU_IO_ERROR);
    cr_assert(strstr(qpu_periph_error(P0), "reserved") != NULL);
    cr_assert_eq(qpu_io_read(P0, FA, 35, v), QPU_IO_ERROR); /* vary */
    cr_assert_eq(qpu_io_read(P0, FA, 64, v), QPU_IO_ERROR);
    cr_assert_eq(qpu_io_write(P0, FA, 32, v, ALL), QPU_IO_ERROR); /* r0 is the simulator's */
    cr_assert_eq(qpu_io_write(P0, FA, 70, v, ALL), QPU_IO_ERROR);
    cr_assert_eq(qpu_io_write(P0, FB, W_SETUP, v, 0xFFFE), QPU_IO_ERROR); /* lane 0 masked */
    cr_assert(strstr(qpu_periph_error(P0), "vw_setup") != NULL);
    cr_assert_eq(qpu_io_write(P0, FB, 39, v, ALL), QPU_IO_OK); /* nop */
}

Test(machine, tlb_writes_are_recorded)
{
    unsigned n = 9;
    cr_assert_eq(wr(P0, FA, 46, 0xFF00FF00), QPU_IO_OK);
    cr_assert_eq(wr(P0, FB, 46, 0x12345678), QPU_IO_OK);
    const uint32_t *t = qpu_periph_tlb(P0, 46, &n);
    cr_assert_eq(n, 2);
    cr_assert_eq(t[15], 0x12345678);
    cr_assert_null(qpu_periph_tlb(P0, 48, &n));
}

/* ---- TMU ---------------------------------------------------------------------------------- */

Test(machine, tmu_direct_read_of_known_pattern)
{
    uint32_t v[QPU_LANES], r4[QPU_LANES];
    for (unsigned i = 0; i < 64; i++)
        put32(0x4000 + 4 * i, 0xA5000000u + i * 0x01010101u);
    /* GPU_FFT load_tw style: two requests, then two ldtmu0 */
    for (unsigned i = 0; i < QPU_LANES; i++)
        v[i] = 0x4000 + 8 * i; /* elem_num << 3 */
    cr_assert_eq(qpu_io_write(P0, FA, W_T0S, v, ALL), QPU_IO_OK);
    for (unsigned i = 0; i < QPU_LANES; i++)
        v[i] = 0x4000 + 8 * i + 4 + 0xC0000000u; /* + alias bits */
    cr_assert_eq(qpu_io_write(P0, FB, W_T0S, v, ALL), QPU_IO_OK);
    cr_assert_eq(qpu_periph_tmu_pending(P0, 0), 2);
    cr_assert_eq(qpu_io_signal(P0, 10, r4), QPU_IO_OK);
    for (unsigned i = 0; i < QPU_LANES; i++)
        cr_assert_eq(r4[i], 0xA5000000u + (2 * i) * 0x01010101u);
    cr_assert_eq(qpu_io_signal(P0, 10, r4), QPU_IO_OK);
    for (unsigned i = 0; i < QPU_LANES; i++)
        cr_assert_eq(r4[i], 0xA5000000u + (2 * i + 1) * 0x01010101u);
    cr_assert_eq(qpu_io_signal(P0, 10, r4), QPU_IO_ERROR); /* nothing outstanding */
    cr_assert(strstr(qpu_periph_error(P0), "ldtmu0 with no outstanding") != NULL);
    /* unaligned addresses read the enclosing word */
    splat(v, 0x4006);
    cr_assert_eq(qpu_io_write(P0, FA, W_T1S, v, ALL), QPU_IO_OK);
    cr_assert_eq(qpu_io_signal(P0, 11, r4), QPU_IO_OK);
    cr_assert_eq(r4[3], 0xA5000000u + 0x01010101u);
}

Test(machine, tmu_masked_lanes_fifo_depth_and_errors)
{
    uint32_t v[QPU_LANES], r4[QPU_LANES];
    put32(0x80, 77);
    splat(v, 0x80);
    v[1] = 0xFFFFFFF0; /* masked: must not be read */
    cr_assert_eq(qpu_io_write(P0, FA, W_T0S, v, 0xFFFD), QPU_IO_OK);
    cr_assert_not_null(qpu_periph_warning(P0));
    cr_assert_eq(qpu_io_signal(P0, 10, r4), QPU_IO_OK);
    cr_assert_eq(r4[0], 77);
    cr_assert_eq(r4[1], 0);
    splat(v, 0x80);
    for (unsigned i = 0; i < 8; i++)
        cr_assert_eq(qpu_io_write(P0, FA, W_T0S, v, ALL), QPU_IO_OK);
    cr_assert(strstr(qpu_periph_warning(P0), "unreliable") != NULL);
    cr_assert_eq(qpu_io_write(P0, FA, W_T0S, v, ALL), QPU_IO_ERROR);
    cr_assert(strstr(qpu_periph_error(P0), "TMU0 FIFO overflow") != NULL);
    cr_assert_eq(qpu_periph_tmu_pending(P0, 0), 8);
    v[9] = 1u << 20; /* first byte past memory */
    cr_assert_eq(qpu_io_write(P0, FA, W_T1S, v, ALL), QPU_IO_ERROR);
    cr_assert(strstr(qpu_periph_error(P0), "TMU1 read outside memory at 0x00100000 (lane 9)") != NULL,
              "%s", qpu_periph_error(P0));
    cr_assert_eq(qpu_periph_tmu_pending(P0, 1), 0);
    cr_assert_eq(qpu_io_write(P0, FA, W_T0T, v, ALL), QPU_IO_ERROR);
    cr_assert(strstr(qpu_periph_error(P0), "texture") != NULL);
}

Test(machine, tmu_swap_on_qpus_2_and_3_of_a_slice)
{
    uint32_t v[QPU_LANES], r4[QPU_LANES];
    struct qpu_periph *p2 = qpu_machine_qpu(M, 2), *p5 = qpu_machine_qpu(M, 5),
                      *p7 = qpu_machine_qpu(M, 7);
    cr_assert_eq(qpu_periph_tmu_phys(P0, 0), 0);
    cr_assert_eq(qpu_periph_tmu_phys(p2, 0), 1);
    cr_assert_eq(qpu_periph_tmu_phys(p5, 1), 1);
    cr_assert_eq(qpu_periph_tmu_phys(p7, 1), 0);
    /* the swap is invisible to a program that pairs t1s with ldtmu1 (GPU_FFT transpose) */
    put32(0x40, 123);
    splat(v, 0x40);
    cr_assert_eq(qpu_io_write(p2, FA, W_T1S, v, ALL), QPU_IO_OK);
    cr_assert_eq(qpu_io_signal(p2, 11, r4), QPU_IO_OK);
    cr_assert_eq(r4[0], 123);
    /* tmu_noswap: element 0, any non-zero value; 3-instruction hazard */
    cr_assert_eq(wr(p2, FB, W_NOSWAP, 0x80000000u), QPU_IO_OK);
    cr_assert_eq(qpu_periph_tmu_phys(p2, 0), 0);
    cr_assert(qpu_io_hazards(p2) & QPU_HAZ_TMU_NOSWAP);
    for (int i = 0; i < 3; i++)
        qpu_io_step(p2, r4);
    cr_assert_eq(qpu_io_hazards(p2) & QPU_HAZ_TMU_NOSWAP, 0);
}

/* ---- SFU ---------------------------------------------------------------------------------- */

Test(machine, sfu_latency_three_steps)
{
    uint32_t v[QPU_LANES], r4[QPU_LANES];
    splat(r4, 0xDEAD);
    splat(v, f2u(4.0f));
    cr_assert_eq(qpu_io_r4_busy(P0), 0);
    cr_assert_eq(qpu_io_write(P0, FA, W_RECIP, v, ALL), QPU_IO_OK); /* instruction N */
    cr_assert_neq(qpu_io_r4_busy(P0), 0);
    qpu_io_step(P0, r4); /* end of N */
    cr_assert_eq(r4[0], 0xDEAD);
    cr_assert_neq(qpu_io_r4_busy(P0), 0); /* N+1 must not read r4 */
    cr_assert(qpu_io_hazards(P0) & QPU_HAZ_R4);
    qpu_io_step(P0, r4);
    cr_assert_eq(r4[0], 0xDEAD);
    cr_assert_neq(qpu_io_r4_busy(P0), 0); /* N+2 must not read r4 */
    qpu_io_step(P0, r4);
    cr_assert_eq(qpu_io_r4_busy(P0), 0); /* N+3 reads the result */
    for (unsigned i = 0; i < QPU_LANES; i++)
        cr_assert_eq(r4[i], f2u(0.25f));
}

Test(machine, sfu_back_to_back_results_in_order)
{
    uint32_t v[QPU_LANES], r4[QPU_LANES] = {0};
    splat(v, f2u(2.0f));
    cr_assert_eq(qpu_io_write(P0, FA, W_RECIP, v, ALL), QPU_IO_OK);
    qpu_io_step(P0, r4);
    splat(v, f2u(5.0f));
    cr_assert_eq(qpu_io_write(P0, FB, W_EXP, v, ALL), QPU_IO_OK);
    qpu_io_step(P0, r4);
    qpu_io_step(P0, r4);
    cr_assert_eq(r4[0], f2u(0.5f));
    cr_assert_neq(qpu_io_r4_busy(P0), 0);
    qpu_io_step(P0, r4);
    cr_assert_eq(r4[0], f2u(32.0f));
    cr_assert_eq(qpu_io_r4_busy(P0), 0);
}

static uint32_t sfu1(unsigned op, float x)
{
    uint32_t v[QPU_LANES], r4[QPU_LANES];
    splat(v, f2u(x));
    cr_assert_eq(qpu_io_write(P0, FA, op, v, ALL), QPU_IO_OK);
    for (int i = 0; i < QPU_SFU_LATENCY; i++)
        qpu_io_step(P0, r4);
    return r4[0];
}

Test(machine, sfu_values_and_precision_model)
{
    /* exact cases */
    cr_assert_eq(sfu1(W_RSQRT, -4.0f), f2u(0.5f)); /* 1/sqrt(|x|) */
    cr_assert_eq(sfu1(W_EXP, 3.0f), f2u(8.0f));
    cr_assert_eq(sfu1(W_EXP, -1.0f), f2u(0.5f));
    cr_assert_eq(sfu1(W_LOG, 8.0f), f2u(3.0f));
    cr_assert_eq(sfu1(W_LOG, -8.0f), f2u(3.0f)); /* log2(|x|) */
    cr_assert_eq(sfu1(W_RECIP, 0.0f), f2u(INFINITY));
    cr_assert_eq(sfu1(W_RSQRT, 0.0f), f2u(INFINITY));
    cr_assert_eq(sfu1(W_LOG, 0.0f), f2u(-INFINITY));
    cr_assert_eq(sfu1(W_RECIP, u2f(0x00000001)), f2u(INFINITY)); /* denormal in = 0 */
    cr_assert_eq(sfu1(W_EXP, -140.0f), 0); /* denormal out = 0 */
    /* default model: 13 fraction bits, truncated (1/3 = 0x3EAAAAAB -> 0x3EAAA800) */
    cr_assert_eq(sfu1(W_RECIP, 3.0f), 0x3EAAA800u);
    /* relative error below 2^-13 and the hardware test's rtol 1e-3, over a sweep */
    for (int k = 1; k < 200; k++) {
        float x = (float)k * 0.0137f + 0.01f;
        double want[4] = {1.0 / x, 1.0 / sqrt(x), exp2(x), log2(x)};
        unsigned ops[4] = {W_RECIP, W_RSQRT, W_EXP, W_LOG};
        for (int o = 0; o < 4; o++) {
            double got = u2f(sfu1(ops[o], x));
            double rel = fabs(got - want[o]) / fabs(want[o]);
            if (want[o] != 0)
                cr_assert(rel < ldexp(1.0, -13), "op %u x=%g got %.9g want %.9g", ops[o], x, got,
                          want[o]);
        }
    }
    /* full precision on request */
    qpu_machine_set_sfu_bits(M, 23);
    cr_assert_eq(sfu1(W_RECIP, 3.0f), f2u(1.0f / 3.0f));
    qpu_machine_set_sfu_bits(M, 10);
    cr_assert_eq(sfu1(W_RECIP, 3.0f), 0x3EAAA000u);
}

/* ---- setup words -------------------------------------------------------------------------- */

Test(machine, decode_gpu_fft_setup_words)
{
    struct qpu_vpm_generic g;
    struct qpu_vdw_setup w;
    /* 0x00101200  mov r0, vpm_setup(1, 1, v32( 0,0)) */
    cr_assert_eq(qpu_vpm_setup_kind(0x00101200, 0), QPU_SETUP_GENERIC);
    qpu_vpm_decode_generic(0x00101200, 1, &g);
    cr_assert_eq(g.num, 1);
    cr_assert_eq(g.stride, 1);
    cr_assert_eq(g.horiz, 0);
    cr_assert_eq(g.size, 2);
    cr_assert_eq(g.addr, 0);
    /* 0x00001200  mov vw_setup, vpm_setup(16, 1, v32(0,0)): NUM 16 encodes as 0 */
    qpu_vpm_decode_generic(0x00001200, 1, &g);
    cr_assert_eq(g.num, 16);
    /* 0x88104000  vdw_setup_0(16, 16, dma_h32( 0,0)) */
    cr_assert_eq(qpu_vpm_setup_kind(0x88104000, 0), QPU_SETUP_DMA);
    qpu_vpm_decode_vdw(0x88104000, &w);
    cr_assert_eq(w.units, 16);
    cr_assert_eq(w.depth, 16);
    cr_assert_eq(w.horiz, 1);
    cr_assert_eq(w.y, 0);
    cr_assert_eq(w.x, 0);
    cr_assert_eq(w.width, 4);
    /* 0xa0104000  vdw_setup_0(64, 16, dma_h32(0,0)) */
    qpu_vpm_decode_vdw(0xa0104000, &w);
    cr_assert_eq(w.units, 64);
    /* 0x80905000  vdw_setup_0(1, 16, dma_h32(32,0)) */
    qpu_vpm_decode_vdw(0x80905000, &w);
    cr_assert_eq(w.units, 1);
    cr_assert_eq(w.depth, 16);
    cr_assert_eq(w.y, 32);
    /* 0xc000ffc0  vdw_setup_1(0) + PASS16_STRIDE-16*4: STRIDE is 16 bits */
    cr_assert_eq(qpu_vpm_setup_kind(0xc000ffc0, 0), QPU_SETUP_STRIDE);
    cr_assert_eq(qpu_vdw_stride(0xc000ffc0), 0xffc0);
    cr_assert_eq(qpu_vdw_blockmode(0xc000ffc0), 0);
    /* read side: 0x9xxxxxxx is the VDR extended pitch, other 1xxx VDR basic */
    cr_assert_eq(qpu_vpm_setup_kind(0x90000080, 1), QPU_SETUP_STRIDE);
    cr_assert_eq(qpu_vdr_pitch(0x90000080), 0x80);
    cr_assert_eq(qpu_vpm_setup_kind(0x8304080f, 1), QPU_SETUP_DMA);
    cr_assert_eq(qpu_vpm_setup_kind(0x40000000, 1), QPU_SETUP_INVALID);
    struct qpu_vdr_setup r;
    qpu_vpm_decode_vdr(0x8304080f, &r);
    cr_assert_eq(r.width, 4);
    cr_assert_eq(r.mpitch, 3);
    cr_assert_eq(r.rowlen, 16);
    cr_assert_eq(r.nrows, 4);
    cr_assert_eq(r.vpitch, 16);
    cr_assert_eq(r.vert, 1);
    cr_assert_eq(r.y, 0);
    cr_assert_eq(r.x, 15);
}

/* ---- VPM and DMA -------------------------------------------------------------------------- */

static uint32_t vpm_setup(unsigned num, unsigned stride, unsigned dma) /* vc4.qinc vpm_setup */
{
    return (num & 0xFu) << 20 | (stride & 0x3Fu) << 12 | dma;
}
static uint32_t v32(unsigned y, unsigned x) { return 0x200u | y | x; }
static uint32_t h32(unsigned y) { return 0xA00u | y; }
static uint32_t vdw_setup_0(unsigned units, unsigned depth, unsigned dma)
{
    return 0x80000000u | (units & 0x7Fu) << 23 | (depth & 0x7Fu) << 16 | (dma & 0xFFFFu);
}
static uint32_t vdw_setup_1(unsigned stride) { return 0xC0000000u | stride; }
static uint32_t dma_h32(unsigned y, unsigned x) { return 0x4000u | y << 7 | x << 3; }

Test(machine, gpu_fft_style_vpm_write_then_vdw)
{
    /* Eight instances (inst_vpm: out_0 = vpm_setup(1, 1, v32(0, 2*inst))) each run
       write_vpm_16: "mov vw_setup, arg; mov vpm, r0; mov vpm, r1" - re then im, vertical, so lane
       i of QPU q lands in VPM row i, columns 2q and 2q+1.  The master then stores the 16x16 block
       with vdw_setup_0(16, 16, dma_h32(0,0)) and a stride of 64 bytes between rows. */
    uint32_t re[QPU_LANES], im[QPU_LANES];
    const uint32_t base = 0x8000, stride = 64;
    memset(qpu_machine_mem(M) + base, 0xAA, 16 * (64 + stride));
    for (unsigned q = 0; q < 8; q++) {
        struct qpu_periph *p = qpu_machine_qpu(M, q);
        for (unsigned i = 0; i < QPU_LANES; i++) {
            re[i] = f2u((float)(100 * q + i));
            im[i] = f2u(-(float)(100 * q + i));
        }
        cr_assert_eq(wr(p, FB, W_SETUP, vpm_setup(1, 1, v32(0, 0)) + 2 * q), QPU_IO_OK);
        cr_assert_eq(qpu_io_write(p, FB, W_VPM, re, ALL), QPU_IO_OK);
        cr_assert_eq(qpu_io_write(p, FA, W_VPM, im, ALL), QPU_IO_OK);
    }
    cr_assert_eq(qpu_io_ready(P0, FB, R_WAIT, 0), 1); /* mov -, vw_wait */
    cr_assert_eq(wr(P0, FB, W_SETUP, vdw_setup_0(16, 16, dma_h32(0, 0))), QPU_IO_OK);
    cr_assert_eq(wr(P0, FB, W_SETUP, vdw_setup_1(0) + stride), QPU_IO_OK);
    cr_assert_eq(wr(P0, FB, W_ADDR, 0xC0000000u | base), QPU_IO_OK);
    for (unsigned row = 0; row < 16; row++) {
        uint32_t a = base + row * (64 + stride);
        for (unsigned q = 0; q < 8; q++) {
            cr_assert_eq(get32(a + 8 * q), f2u((float)(100 * q + row)), "row %u q %u", row, q);
            cr_assert_eq(get32(a + 8 * q + 4), f2u(-(float)(100 * q + row)));
        }
        for (unsigned b = 0; b < stride; b++) /* the gap is untouched */
            cr_assert_eq(qpu_machine_mem(M)[a + 64 + b], 0xAA);
    }
    cr_assert_null(qpu_periph_error(P0));
}

Test(machine, gpu_fft_trans_style_transpose)
{
    /* gpu_fft_trans.qasm: vw_setup vpm_setup(16, 1, v32(0,0)), 16 vpm writes (vector k = column
       k), then vdw_setup_0(16, 16, dma_h32(0,0)) with stride vdw_setup_1(0) + Y_STRIDE_DST - 64. */
    uint32_t v[QPU_LANES];
    const uint32_t dst = 0x10000, ystride = 256;
    cr_assert_eq(wr(P0, FB, W_SETUP, vpm_setup(16, 1, v32(0, 0))), QPU_IO_OK);
    for (unsigned k = 0; k < 16; k++) {
        for (unsigned i = 0; i < QPU_LANES; i++)
            v[i] = k * 16 + i; /* element (k, i) */
        cr_assert_eq(qpu_io_write(P0, FB, W_VPM, v, ALL), QPU_IO_OK);
    }
    cr_assert_eq(wr(P0, FB, W_SETUP, vdw_setup_0(16, 16, dma_h32(0, 0))), QPU_IO_OK);
    cr_assert_eq(wr(P0, FB, W_SETUP, vdw_setup_1(0) + ystride - 16 * 4), QPU_IO_OK);
    cr_assert_eq(wr(P0, FB, W_ADDR, dst), QPU_IO_OK);
    for (unsigned i = 0; i < 16; i++)
        for (unsigned k = 0; k < 16; k++)
            cr_assert_eq(get32(dst + i * ystride + 4 * k), k * 16 + i);
}

Test(machine, vdw_sixteen_bit_stride_and_single_row_dmas)
{
    /* gpu_fft_2048k.qinc: 16 DMAs of vdw_setup_0(1, 16, dma_h32(y,0)), y += 1 via + 0x80, with
       the 16-bit stride register 0xffc0 set once; and a two-row DMA whose second row sits
       64 + 0xffc0 = 0x10000 bytes after the first. */
    uint32_t *vpm = qpu_machine_vpm(M);
    for (unsigned i = 0; i < 64 * 16; i++)
        vpm[i] = 0x5000000u + i;
    cr_assert_eq(wr(P0, FB, W_SETUP, vdw_setup_1(0xffc0)), QPU_IO_OK);
    cr_assert_eq(wr(P0, FB, W_SETUP, vdw_setup_0(2, 16, dma_h32(3, 0))), QPU_IO_OK);
    cr_assert_eq(wr(P0, FB, W_ADDR, 0x20000), QPU_IO_OK);
    for (unsigned w = 0; w < 16; w++) {
        cr_assert_eq(get32(0x20000 + 4 * w), 0x5000000u + 3 * 16 + w);
        cr_assert_eq(get32(0x30000 + 4 * w), 0x5000000u + 4 * 16 + w);
    }
    uint32_t setup = vdw_setup_0(1, 16, dma_h32(0, 0)), addr = 0x40000;
    for (unsigned y = 0; y < 16; y++) {
        setup += vdw_setup_0(1, 16, dma_h32(1, 0)) - vdw_setup_0(1, 16, dma_h32(0, 0));
        addr += 0x100;
        cr_assert_eq(wr(P0, FB, W_SETUP, setup), QPU_IO_OK);
        cr_assert_eq(wr(P0, FB, W_ADDR, addr), QPU_IO_OK);
    }
    for (unsigned y = 1; y <= 16; y++)
        for (unsigned w = 0; w < 16; w++)
            cr_assert_eq(get32(0x40000 + 0x100 * y + 4 * w), 0x5000000u + y * 16 + w);
}

Test(machine, vdw_vertical_walks_columns)
{
    /* VDW vertical, 4 units at Y=0, X=14: columns 14, 15, then 0 and 1 of rows 16.. */
    uint32_t *vpm = qpu_machine_vpm(M);
    for (unsigned i = 0; i < 64 * 16; i++)
        vpm[i] = i;
    cr_assert_eq(wr(P0, FB, W_SETUP, vdw_setup_1(0)), QPU_IO_OK);
    cr_assert_eq(wr(P0, FB, W_SETUP, vdw_setup_0(4, 16, (0u << 7) | (14u << 3))), QPU_IO_OK);
    cr_assert_eq(wr(P0, FB, W_ADDR, 0x1000), QPU_IO_OK);
    const unsigned cols[4] = {14, 15, 0, 1}, rows[4] = {0, 0, 16, 16};
    for (unsigned u = 0; u < 4; u++)
        for (unsigned e = 0; e < 16; e++)
            cr_assert_eq(get32(0x1000 + 64 * u + 4 * e), (rows[u] + e) * 16 + cols[u]);
}

Test(machine, vdr_then_vpm_read_horizontal)
{
    uint32_t out[QPU_LANES];
    for (unsigned r = 0; r < 4; r++)
        for (unsigned w = 0; w < 16; w++)
            put32(0x3000 + r * 128 + 4 * w, 0x77000000u + r * 256 + w);
    /* VDR: 32-bit, MPITCH 0 (extended pitch 128), ROWLEN 16, NROWS 4, VPITCH 1, horizontal,
       Y=8 X=0 */
    cr_assert_eq(wr(P0, FA, W_SETUP, 0x90000000u | 128), QPU_IO_OK);
    cr_assert_eq(wr(P0, FA, W_SETUP, 0x80000000u | 0u << 20 | 4u << 16 | 1u << 12 | 8u << 4), QPU_IO_OK);
    cr_assert_eq(wr(P0, FA, W_ADDR, 0x3000), QPU_IO_OK);
    cr_assert_eq(qpu_io_ready(P0, FA, R_WAIT, 0), 1);
    cr_assert_eq(qpu_io_read(P0, FA, R_WAIT, out), QPU_IO_OK); /* mov -, vr_wait */
    /* generic read: vpm_setup(4, 1, h32(8)) */
    cr_assert_eq(qpu_io_ready(P0, FA, R_VPM, 0), 0);
    cr_assert_eq(wr(P0, FA, W_SETUP, vpm_setup(4, 1, h32(8))), QPU_IO_OK);
    cr_assert_eq(qpu_periph_vpm_read_pending(P0), 4);
    for (unsigned r = 0; r < 4; r++) {
        cr_assert_eq(qpu_io_read(P0, r & 1, R_VPM, out), QPU_IO_OK);
        for (unsigned w = 0; w < 16; w++)
            cr_assert_eq(out[w], 0x77000000u + r * 256 + w);
    }
    /* the FIFO is empty now: a read stalls without side effects */
    cr_assert_eq(qpu_io_ready(P0, FA, R_VPM, 0), 0);
    cr_assert_eq(qpu_io_read(P0, FA, R_VPM, out), QPU_IO_STALL);
}

Test(machine, vdr_vertical_uses_vpitch)
{
    /* Amol Surati's hardware check: vr_setup 0x8304080f (MPITCH 3 = 64 bytes, 4 rows of 16 words,
       vertical at X=15) fills column 15 at Y = 0, 16, 32, 48.  Read back with a vertical generic
       read vpm_setup(4, 16, v32(0, 15)) (stride 16 steps Y[5:4]). */
    uint32_t out[QPU_LANES];
    for (unsigned i = 0; i < 64; i++)
        put32(0x6000 + 4 * i, 1000 + i);
    cr_assert_eq(wr(P0, FA, W_SETUP, 0x8304080f), QPU_IO_OK);
    cr_assert_eq(wr(P0, FA, W_ADDR, 0x6000), QPU_IO_OK);
    for (unsigned y = 0; y < 64; y++)
        cr_assert_eq(qpu_machine_vpm(M)[y * 16 + 15], 1000 + y);
    cr_assert_eq(wr(P0, FA, W_SETUP, vpm_setup(4, 16, v32(0, 15))), QPU_IO_OK);
    for (unsigned r = 0; r < 4; r++) {
        cr_assert_eq(qpu_io_read(P0, FA, R_VPM, out), QPU_IO_OK);
        for (unsigned i = 0; i < QPU_LANES; i++)
            cr_assert_eq(out[i], 1000 + 16 * r + i);
    }
}

Test(machine, vpm_read_setup_queueing_per_addendum)
{
    uint32_t out[QPU_LANES];
    uint32_t *vpm = qpu_machine_vpm(M);
    for (unsigned y = 0; y < 8; y++)
        for (unsigned w = 0; w < 16; w++)
            vpm[y * 16 + w] = y;
    /* 2 requested, then 2 more while 2 are outstanding: the second setup is ignored */
    cr_assert_eq(wr(P0, FA, W_SETUP, vpm_setup(2, 1, h32(0))), QPU_IO_OK);
    cr_assert_eq(wr(P0, FA, W_SETUP, vpm_setup(2, 1, h32(5))), QPU_IO_OK);
    cr_assert(strstr(qpu_periph_warning(P0), "ignored") != NULL);
    cr_assert_eq(qpu_periph_vpm_read_pending(P0), 2);
    cr_assert_eq(qpu_io_read(P0, FA, R_VPM, out), QPU_IO_OK);
    cr_assert_eq(out[0], 0);
    /* 1 outstanding: the new setup is accepted and its vectors follow the outstanding one */
    cr_assert_eq(wr(P0, FA, W_SETUP, vpm_setup(3, 1, h32(5))), QPU_IO_OK);
    cr_assert_eq(qpu_periph_vpm_read_pending(P0), 4);
    const uint32_t want[4] = {1, 5, 6, 7};
    for (unsigned i = 0; i < 4; i++) {
        cr_assert_eq(qpu_io_read(P0, FA, R_VPM, out), QPU_IO_OK);
        cr_assert_eq(out[15], want[i]);
    }
    cr_assert_eq(qpu_io_read(P0, FA, R_VPM, out), QPU_IO_STALL);
}

Test(machine, vpm_generic_8_and_16_bit_layouts)
{
    uint32_t v[QPU_LANES], out[QPU_LANES];
    uint32_t *vpm = qpu_machine_vpm(M);
    for (unsigned i = 0; i < QPU_LANES; i++)
        v[i] = 0xAB00u + i;
    /* horizontal 16-bit packed, Y=2, H=1: lanes fill words 8..15 of row 2, two per word */
    cr_assert_eq(wr(P0, FB, W_SETUP, vpm_setup(1, 1, 0x900u | (2u << 1) | 1u)), QPU_IO_OK);
    cr_assert_eq(qpu_io_write(P0, FB, W_VPM, v, ALL), QPU_IO_OK);
    for (unsigned w = 0; w < 8; w++) {
        cr_assert_eq(vpm[2 * 16 + w], 0);
        cr_assert_eq(vpm[2 * 16 + 8 + w], (0xAB00u + 2 * w) | (0xAB00u + 2 * w + 1) << 16);
    }
    /* horizontal 8-bit laned, Y=3, B=2: lane i -> byte 2 of word i */
    cr_assert_eq(wr(P0, FB, W_SETUP, vpm_setup(1, 1, 0xC00u | (3u << 2) | 2u)), QPU_IO_OK);
    cr_assert_eq(qpu_io_write(P0, FB, W_VPM, v, ALL), QPU_IO_OK);
    for (unsigned w = 0; w < 16; w++)
        cr_assert_eq(vpm[3 * 16 + w], (uint32_t)(w) << 16);
    /* read both back, zero-extended */
    cr_assert_eq(wr(P0, FA, W_SETUP, vpm_setup(1, 1, 0x900u | (2u << 1) | 1u)), QPU_IO_OK);
    cr_assert_eq(qpu_io_read(P0, FA, R_VPM, out), QPU_IO_OK);
    for (unsigned i = 0; i < QPU_LANES; i++)
        cr_assert_eq(out[i], 0xAB00u + i);
    cr_assert_eq(wr(P0, FA, W_SETUP, vpm_setup(1, 1, 0xC00u | (3u << 2) | 2u)), QPU_IO_OK);
    cr_assert_eq(qpu_io_read(P0, FA, R_VPM, out), QPU_IO_OK);
    for (unsigned i = 0; i < QPU_LANES; i++)
        cr_assert_eq(out[i], i);
    /* stride: h32 writes with stride 2 go to rows 10, 12, 14 */
    cr_assert_eq(wr(P0, FB, W_SETUP, vpm_setup(1, 2, h32(10))), QPU_IO_OK);
    for (unsigned k = 0; k < 3; k++) {
        splat(v, 40 + k);
        cr_assert_eq(qpu_io_write(P0, FB, W_VPM, v, ALL), QPU_IO_OK);
    }
    cr_assert_eq(vpm[10 * 16 + 3], 40);
    cr_assert_eq(vpm[11 * 16 + 3], 0);
    cr_assert_eq(vpm[12 * 16 + 3], 41);
    cr_assert_eq(vpm[14 * 16 + 3], 42);
    /* masked lanes keep the old word and leave a warning */
    splat(v, 99);
    cr_assert_eq(wr(P0, FB, W_SETUP, vpm_setup(1, 1, h32(10))), QPU_IO_OK);
    cr_assert_eq(qpu_io_write(P0, FB, W_VPM, v, 0x00FF), QPU_IO_OK);
    cr_assert_eq(vpm[10 * 16 + 7], 99);
    cr_assert_eq(vpm[10 * 16 + 8], 40);
    cr_assert_not_null(qpu_periph_warning(P0));
}

Test(machine, dma_errors_never_crash)
{
    uint32_t snapshot[64];
    memcpy(snapshot, qpu_machine_mem(M) + (1u << 20) - 256, 256);
    /* vw_addr before any VDW setup */
    cr_assert_eq(wr(P0, FB, W_ADDR, 0), QPU_IO_ERROR);
    cr_assert(strstr(qpu_periph_error(P0), "before any VDW setup") != NULL);
    /* a store whose last row runs past the end of memory: nothing is written */
    cr_assert_eq(wr(P0, FB, W_SETUP, vdw_setup_1(0)), QPU_IO_OK);
    cr_assert_eq(wr(P0, FB, W_SETUP, vdw_setup_0(4, 16, dma_h32(0, 0))), QPU_IO_OK);
    cr_assert_eq(wr(P0, FB, W_ADDR, (1u << 20) - 192), QPU_IO_ERROR);
    cr_assert(strstr(qpu_periph_error(P0), "VDW DMA outside memory at 0x00100000") != NULL, "%s",
              qpu_periph_error(P0));
    cr_assert_eq(memcmp(snapshot, qpu_machine_mem(M) + (1u << 20) - 256, 256), 0);
    /* a block that leaves the VPM */
    cr_assert_eq(wr(P0, FB, W_SETUP, vdw_setup_0(2, 16, dma_h32(127, 0))), QPU_IO_OK);
    cr_assert_eq(wr(P0, FB, W_ADDR, 0), QPU_IO_ERROR);
    cr_assert(strstr(qpu_periph_error(P0), "leaves the VPM") != NULL);
    cr_assert_eq(wr(P0, FB, W_SETUP, vdw_setup_0(1, 17, dma_h32(0, 0))), QPU_IO_OK);
    cr_assert_eq(wr(P0, FB, W_ADDR, 0), QPU_IO_ERROR);
    /* a load past the end of memory */
    cr_assert_eq(wr(P0, FA, W_SETUP, 0x80000000u | 2u << 16 | 3u << 24), QPU_IO_OK);
    cr_assert_eq(wr(P0, FA, W_ADDR, 0xFFFFFFC0u), QPU_IO_ERROR);
    cr_assert(strstr(qpu_periph_error(P0), "VDR DMA outside memory") != NULL, "%s",
              qpu_periph_error(P0));
    /* undocumented setup format */
    cr_assert_eq(wr(P0, FB, W_SETUP, 0x40000000u), QPU_IO_ERROR);
}

Test(machine, dma_wait_semantics_with_latency)
{
    uint32_t out[QPU_LANES], r4[QPU_LANES];
    qpu_machine_set_dma_latency(M, 2);
    cr_assert_eq(wr(P0, FB, W_SETUP, vdw_setup_1(0)), QPU_IO_OK);
    cr_assert_eq(wr(P0, FB, W_SETUP, vdw_setup_0(1, 16, dma_h32(0, 0))), QPU_IO_OK);
    cr_assert_eq(wr(P0, FB, W_ADDR, 0x100), QPU_IO_OK);
    /* vr_wait is unaffected by a store */
    cr_assert_eq(qpu_io_ready(P0, FA, R_WAIT, 0), 1);
    cr_assert_eq(qpu_io_ready(P0, FB, R_WAIT, 0), 0);
    cr_assert_eq(qpu_io_read(P0, FB, R_WAIT, out), QPU_IO_STALL);
    cr_assert_eq(qpu_io_read(P0, FB, R_BUSY, out), QPU_IO_OK);
    cr_assert_eq(out[0], 1);
    cr_assert_eq(wr(P0, FB, W_ADDR, 0x200), QPU_IO_STALL); /* the second DMA waits */
    qpu_io_step(P0, r4);
    cr_assert_eq(qpu_io_ready(P0, FB, R_WAIT, 0), 0);
    qpu_io_step(P0, r4);
    cr_assert_eq(qpu_io_ready(P0, FB, R_WAIT, 0), 1);
    cr_assert_eq(qpu_io_read(P0, FB, R_BUSY, out), QPU_IO_OK);
    cr_assert_eq(out[0], 0);
    cr_assert_eq(wr(P0, FB, W_ADDR, 0x200), QPU_IO_OK);
}

Test(machine, sfu_range_edges)
{
    cr_assert_eq(sfu1(W_EXP, 200.0f), f2u(INFINITY));
    cr_assert_eq(sfu1(W_EXP, -200.0f), 0);
    cr_assert_eq(sfu1(W_RECIP, 3.0e38f), 0); /* 3.3e-39 is denormal: flushed */
    cr_assert_eq(sfu1(W_RECIP, -0.0f), f2u(-INFINITY));
    cr_assert_eq(sfu1(W_RSQRT, 0.25f), f2u(2.0f));
}

/* Random traffic on every I/O address, signal and semaphore of several QPUs: each call must
   return one of the three codes, leave a message on error, and never crash (run under ASan). */
Test(machine, random_io_never_crashes)
{
    uint32_t seed = 12345u, v[QPU_LANES], r4[QPU_LANES] = {0};
#define NEXT() (seed = seed * 1664525u + 1013904223u)
    qpu_machine_set_dma_latency(M, 1);
    for (int it = 0; it < 20000; it++) {
        struct qpu_periph *p = qpu_machine_qpu(M, (NEXT() >> 8) % 8);
        unsigned kind = (NEXT() >> 8) % 8, addr = 32 + (NEXT() >> 8) % 32, file = (NEXT() >> 8) & 1u;
        for (unsigned i = 0; i < QPU_LANES; i++) {
            uint32_t r = NEXT();
            /* mostly small addresses so DMA and TMU sometimes succeed */
            v[i] = (r & 0x10000u) ? r : (r & 0xFFFFCu);
        }
        uint16_t mask = (NEXT() & 0x100u) ? (uint16_t)(NEXT() >> 8) : ALL;
        int rc;
        if (kind < 3)
            rc = qpu_io_write(p, (int)file, addr, v, mask);
        else if (kind < 5)
            rc = qpu_io_read(p, (int)file, addr, v);
        else if (kind == 5)
            rc = qpu_io_signal(p, (NEXT() >> 8) % 16, r4);
        else if (kind == 6) {
            unsigned num = (NEXT() >> 8) % 17;
            rc = qpu_io_semaphore(p, num, (int)(NEXT() >> 8) & 1);
        }
        else {
            qpu_io_step(p, r4);
            rc = QPU_IO_OK;
        }
        cr_assert(rc == QPU_IO_OK || rc == QPU_IO_STALL || rc == QPU_IO_ERROR);
        if (rc == QPU_IO_ERROR)
            cr_assert_not_null(qpu_periph_error(p));
        if ((NEXT() >> 8) % 64 == 0)
            qpu_periph_reset(p, (NEXT() >> 8) % 0x1000);
    }
#undef NEXT
}
