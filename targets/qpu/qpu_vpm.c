/* VideoCore IV QPU peripherals: VPM setup words and QPU generic block access (vr_setup / vw_setup
 * / vpm).  The VCD DMA (vr_addr / vw_addr) is in qpu_vdma.c.
 *
 * The VPM is QPU_VPM_ROWS rows of 16 32-bit words, shared by all QPUs (py-videocore's
 * tests/test_semaphore.py has 10 QPUs increment one VPM word under a semaphore; GPU_FFT's eight
 * QPUs write disjoint VPM columns that one master stores with one VDW).  Bytes inside a word are
 * little-endian: byte b of word w is bits 8b+7..8b. */
#include "qpu_periph_int.h"

#include <string.h>

/* ---- setup words -------------------------------------------------------------------------- */

/* Format selection, bits 31:30 (doe300/VC4C @ src/periphery/VPM.h VPWSetup/VPRSetup):
 *   vw_setup: 00 generic block write (table 32), 10 VDW basic (table 34), 11 VDW stride (table 35);
 *   vr_setup: 00 generic block read (table 33), 1xxx with bits 30:28 != 001 VDR basic (table 36),
 *             1001 VDR extended pitch (table 37).  01 is not a documented format. */
int qpu_vpm_setup_kind(uint32_t word, int is_read)
{
    unsigned id = word >> 30;
    if (id == 0)
        return QPU_SETUP_GENERIC;
    if (id == 1)
        return QPU_SETUP_INVALID;
    if (!is_read)
        return id == 2 ? QPU_SETUP_DMA : QPU_SETUP_STRIDE;
    return ((word >> 28) & 7u) == 1u ? QPU_SETUP_STRIDE : QPU_SETUP_DMA;
}

/* Tables 32 (write) and 33 (read), bit positions from doe300/VC4C @ src/periphery/VPM.h
 * (VPWGenericSetup / VPRGenericSetup, which quote the guide) and maazl/vc4asm @ share/vc4.qinc
 * vpm_setup(num, stride, dma) = (num & 0xf) << 20 | (stride & 0x3f) << 12 | dma:
 *   31:30 ID = 00
 *   23:20 NUM     vectors to read, 0 => 16 (read setup only; unused in the write setup)
 *   17:12 STRIDE  "added to ADDR after every vector", 0 => 64
 *   11    HORIZ   0 vertical, 1 horizontal
 *   10    LANED   0 packed, 1 laned; "Ignored for 32-bit width"
 *    9:8  SIZE    0 8-bit, 1 16-bit, 2 32-bit, 3 reserved
 *    7:0  ADDR    first vector (layout below, vpm_lane_loc)
 * Check against GPU_FFT's Broadcom-assembled words [FFT]: vpm_setup(1, 1, v32(0,0)) = 0x00101200
 * (NUM 1, STRIDE 1, vertical, 32-bit, ADDR 0) and vpm_setup(16, 1, v32(0,0)) = 0x00001200. */
void qpu_vpm_decode_generic(uint32_t word, int is_read, struct qpu_vpm_generic *g)
{
    unsigned num = (word >> 20) & 0xFu, stride = (word >> 12) & 0x3Fu;
    g->num = is_read ? (num ? num : 16u) : 0u;
    g->stride = stride ? stride : 64u;
    g->horiz = (word >> 11) & 1u;
    g->laned = (word >> 10) & 1u;
    g->size = (word >> 8) & 3u;
    g->addr = word & 0xFFu;
}

/* MODEW, bits 2:0 of VDW basic / 30:28 of VDR basic (tables 34/36 as quoted by doe300/VC4C @
 * src/periphery/VPM.h): 0 32-bit; 1 unused (VDW) / extended-pitch format (VDR); 2-3 16-bit with
 * half-word select MODEW[0]; 4-7 8-bit with byte select MODEW[1:0]. */
static void decode_modew(unsigned modew, unsigned *width, unsigned *sel)
{
    if (modew == 0) {
        *width = 4;
        *sel = 0;
    } else if (modew == 1) {
        *width = 0;
        *sel = 0;
    } else if (modew < 4) {
        *width = 2;
        *sel = modew & 1u;
    } else {
        *width = 1;
        *sel = modew & 3u;
    }
}

/* Table 34, VDW basic setup (doe300/VC4C @ src/periphery/VPM.h VPWDMASetup; maazl/vc4asm @
 * share/vc4.qinc vdw_setup_0(units, depth, dma) = 0x80000000 | units << 23 | depth << 16 | dma,
 * dma_h32(y, x) = 0x4000 | y << 7 | x << 3, dma_v32(y, x) = y << 7 | x << 3):
 *   31:30 ID = 10
 *   29:23 UNITS    rows of the 2D block in memory, 0 => 128
 *   22:16 DEPTH    row length in memory, in elements of MODEW's width, 0 => 128
 *   15    LANED    "write as 0"
 *   14    HORIZ    0 vertical, 1 horizontal
 *   13:3  VPMBASE  {Y[6:0] = 13:7, X[3:0] = 6:3}: first 32-bit word in the VPM
 *    2:0  MODEW    see decode_modew
 * GPU_FFT [FFT]: vdw_setup_0(16, 16, dma_h32(0,0)) = 0x88104000, vdw_setup_0(64, 16, ...) =
 * 0xa0104000, dma_h32(32,0) adds 0x1000, dma_h32(1,0) - dma_h32(0,0) = 0x80. */
void qpu_vpm_decode_vdw(uint32_t word, struct qpu_vdw_setup *s)
{
    unsigned units = (word >> 23) & 0x7Fu, depth = (word >> 16) & 0x7Fu;
    s->units = units ? units : 128u;
    s->depth = depth ? depth : 128u;
    s->laned = (word >> 15) & 1u;
    s->horiz = (word >> 14) & 1u;
    s->y = (word >> 7) & 0x7Fu;
    s->x = (word >> 3) & 0xFu;
    decode_modew(word & 7u, &s->width, &s->sel);
}

/* Table 35, VDW stride setup: 31:30 ID = 11; 16 BLOCKMODE (0: one VPM row (horizontal) / column
 * (vertical) per memory row, 1: memory rows packed consecutively in the VPM); 15:0 STRIDE, bytes
 * from the last byte of a memory row to the first of the next.  The guide gives STRIDE as 13 bits
 * but it is 16 ([ADD] "Table 35"; maazl/vc4asm @ share/vc4.qinc vdw_setup_1 asserts 16 bits;
 * GPU_FFT writes vdw_setup_1(0) + PASS16_STRIDE-16*4 = 0xc000ffc0 [FFT]). */
unsigned qpu_vdw_stride(uint32_t word) { return word & 0xFFFFu; }
unsigned qpu_vdw_blockmode(uint32_t word) { return (word >> 16) & 1u; }

/* Table 36, VDR basic setup (doe300/VC4C @ src/periphery/VPM.h VPRDMASetup, which quotes it):
 *   31    ID = 1 (and MODEW != 1)
 *   30:28 MODEW    see decode_modew
 *   27:24 MPITCH   memory row pitch = 8 * 2^MPITCH bytes; 0 = use MPITCHB of table 37
 *   23:20 ROWLEN   elements per memory row, 0 => 16
 *   19:16 NROWS    rows, 0 => 16
 *   15:12 VPITCH   VPM row-to-row pitch, 0 => 16, "added to the Y address and Byte/Half-word sel
 *                  after each row is loaded, for both horizontal and vertical modes"
 *   11    VERT     0 horizontal, 1 vertical
 *   10:0  ADDRXY   {Y[6:0] = 10:4, X[3:0] = 3:0} */
void qpu_vpm_decode_vdr(uint32_t word, struct qpu_vdr_setup *s)
{
    unsigned rowlen = (word >> 20) & 0xFu, nrows = (word >> 16) & 0xFu, vpitch = (word >> 12) & 0xFu;
    decode_modew((word >> 28) & 7u, &s->width, &s->sel);
    s->mpitch = (word >> 24) & 0xFu;
    s->rowlen = rowlen ? rowlen : 16u;
    s->nrows = nrows ? nrows : 16u;
    s->vpitch = vpitch ? vpitch : 16u;
    s->vert = (word >> 11) & 1u;
    s->y = (word >> 4) & 0x7Fu;
    s->x = word & 0xFu;
}

/* Table 37, VDR extended pitch: 31:28 ID = 1001; 12:0 MPITCHB, memory row-to-row pitch in bytes
 * (start to start; "Only used if MPITCH in VPM DMA Load basic setup is 0"). */
unsigned qpu_vdr_pitch(uint32_t word) { return word & 0x1FFFu; }

/* ---- generic block access ----------------------------------------------------------------- */

void qpu_vpm_reset(struct qpu_periph *p)
{
    memset(&p->wr, 0, sizeof p->wr);
    memset(&p->rd, 0, sizeof p->rd);
    qpu_vpm_decode_generic(0, 0, &p->wr.g);
    qpu_vpm_decode_generic(0, 1, &p->rd.g);
    p->rd_remaining = 0;
    p->rd_carry_valid = 0;
    p->vdw_setup = p->vdw_stride = p->vdr_setup = p->vdr_pitch = 0;
    p->vdw_setup_set = p->vdr_setup_set = 0;
    p->vdw_pending = p->vdr_pending = 0;
}

/* Where lane `lane` of the vector at ADDR `addr` lives: VPM row, word and bit shift.  ADDR layout
 * (tables 32/33 as quoted in doe300/VC4C @ src/tools/Emulator.cpp toAddresses):
 *   Horizontal 8-bit:  ADDR[7:0] = {Y[5:0], B[1:0]}      Vertical 8-bit:  {Y[5:4], X[3:0], B[1:0]}
 *   Horizontal 16-bit: ADDR[6:0] = {Y[5:0], H[0]}        Vertical 16-bit: {Y[5:4], X[3:0], H[0]}
 *   Horizontal 32-bit: ADDR[5:0] = Y[5:0]                Vertical 32-bit: {Y[5:4], X[3:0]}
 * (maazl/vc4asm @ share/vc4.qinc: v32(y, x) = 0x200 | y | x with y in {0,16,32,48}, x 0..15.)
 * A horizontal 32-bit vector is row Y, lane i in word i; a vertical one is column X of rows
 * Y[5:4]*16 + i.  For 8/16-bit, B/H picks one of 4/2 vectors sharing the same words: laned, lane i
 * keeps word i (horizontal) / row Y+i (vertical) and B/H selects the byte/half-word in it; packed,
 * the 16 elements are consecutive bytes/half-words and B/H selects which quarter/half of the row
 * (horizontal, as VC4C's toAddresses: ByteOffset*4 / HalfWordOffset*8 words) or of the 16 rows
 * (vertical, by symmetry - no source describes vertical packed access). */
static void vpm_lane_loc(const struct qpu_vpm_generic *g, unsigned addr, unsigned lane,
                         unsigned *row, unsigned *word, unsigned *shift)
{
    unsigned k = g->size == 0 ? 4u : g->size == 1 ? 2u : 1u; /* elements per word */
    unsigned selbits = g->size == 0 ? 2u : g->size == 1 ? 1u : 0u;
    unsigned sel = addr & ((1u << selbits) - 1u);
    unsigned rest = addr >> selbits;
    unsigned ebits = 32u / k;
    if (g->horiz) {
        *row = rest & 63u;
        if (k == 1 || g->laned) {
            *word = lane;
            *shift = sel * ebits;
        } else {
            *word = sel * (16u / k) + lane / k;
            *shift = (lane % k) * ebits;
        }
    } else {
        unsigned base = ((rest >> 4) & 3u) * 16u;
        *word = rest & 15u;
        if (k == 1 || g->laned) {
            *row = base + lane;
            *shift = sel * ebits;
        } else {
            *row = base + sel * (16u / k) + lane / k;
            *shift = (lane % k) * ebits;
        }
    }
}

static void vpm_access(struct qpu_machine *m, const struct qpu_vpm_generic *g, unsigned addr,
                       uint32_t data[QPU_LANES], uint16_t lanemask, int store)
{
    uint32_t emask = g->size == 0 ? 0xFFu : g->size == 1 ? 0xFFFFu : 0xFFFFFFFFu;
    for (unsigned i = 0; i < QPU_LANES; i++) {
        unsigned row, word, shift;
        vpm_lane_loc(g, addr, i, &row, &word, &shift);
        uint32_t *w = &m->vpm[row * QPU_VPM_ROW_WORDS + word];
        if (store) {
            if (lanemask & (1u << i))
                *w = (*w & ~(emask << shift)) | ((data[i] & emask) << shift);
        } else {
            data[i] = (*w >> shift) & emask; /* 8/16-bit elements are zero-extended */
        }
    }
}

/* A write to vpm stores one vector at the write setup's ADDR, then ADDR += STRIDE (8-bit field,
 * wrapping).  Masked lanes keep the old VPM contents; on hardware they get undefined data ([ADD]
 * "the TMU/VPM fifo is triggered unconditional"). */
int qpu_vpm_write(struct qpu_periph *p, const uint32_t v[QPU_LANES], uint16_t lanemask)
{
    struct qpu_vpm_generic *g = &p->wr.g;
    if (g->size == 3)
        return qpu_err(p, "QPU %u: VPM write with reserved SIZE=3 in vw_setup 0x%08x", p->num,
                       p->wr.word);
    if (!p->wr.set)
        qpu_warn(p, "QPU %u: VPM write before any generic vw_setup", p->num);
    if (lanemask != 0xFFFFu)
        qpu_warn(p, "QPU %u: conditional VPM write: lanes outside the condition write undefined "
                    "data on hardware (modelled as no change)", p->num);
    uint32_t tmp[QPU_LANES];
    memcpy(tmp, v, sizeof tmp);
    vpm_access(p->m, g, g->addr, tmp, lanemask, 1);
    g->addr = (g->addr + g->stride) & 0xFFu;
    return QPU_IO_OK;
}

/* The read FIFO ([ADD] "Section 7: QPU Reading and Writing of VPM"): reads "block immediately if
 * the FIFO is empty"; a new read setup "is accepted only if ... there is no more than one value
 * outstanding" - otherwise it is ignored - and a single outstanding value stays readable before the
 * new setup's vectors.  We fetch each vector when it is read (the hardware prefetches). */
int qpu_vpm_read_ready(const struct qpu_periph *p)
{
    return p->rd_carry_valid || p->rd_remaining > 0;
}

unsigned qpu_periph_vpm_read_pending(const struct qpu_periph *p)
{
    return p->rd_remaining + (p->rd_carry_valid ? 1u : 0u);
}

static int vpm_fetch(struct qpu_periph *p, uint32_t out[QPU_LANES])
{
    struct qpu_vpm_generic *g = &p->rd.g;
    if (g->size == 3)
        return qpu_err(p, "QPU %u: VPM read with reserved SIZE=3 in vr_setup 0x%08x", p->num,
                       p->rd.word);
    vpm_access(p->m, g, g->addr, out, 0xFFFFu, 0);
    g->addr = (g->addr + g->stride) & 0xFFu;
    p->rd_remaining--;
    return QPU_IO_OK;
}

int qpu_vpm_read(struct qpu_periph *p, uint32_t out[QPU_LANES])
{
    if (p->rd_carry_valid) {
        memcpy(out, p->rd_carry, sizeof p->rd_carry);
        p->rd_carry_valid = 0;
        return QPU_IO_OK;
    }
    if (p->rd_remaining == 0)
        return QPU_IO_STALL;
    return vpm_fetch(p, out);
}

/* vr_setup (is_read) / vw_setup: route the word to the register its ID bits select. */
int qpu_vpm_setup(struct qpu_periph *p, int is_read, uint32_t word)
{
    switch (qpu_vpm_setup_kind(word, is_read)) {
    case QPU_SETUP_GENERIC:
        if (!is_read) {
            p->wr.word = word;
            p->wr.set = 1;
            qpu_vpm_decode_generic(word, 0, &p->wr.g);
            return QPU_IO_OK;
        }
        if (qpu_periph_vpm_read_pending(p) > 1) {
            qpu_warn(p, "QPU %u: vr_setup 0x%08x ignored: %u VPM reads of the previous setup "
                        "still outstanding", p->num, word, qpu_periph_vpm_read_pending(p));
            return QPU_IO_OK;
        }
        if (p->rd_remaining == 1) { /* the last vector is already in the FIFO */
            int rc = vpm_fetch(p, p->rd_carry);
            if (rc != QPU_IO_OK)
                return rc;
            p->rd_carry_valid = 1;
        }
        p->rd.word = word;
        p->rd.set = 1;
        qpu_vpm_decode_generic(word, 1, &p->rd.g);
        p->rd_remaining = p->rd.g.num;
        return QPU_IO_OK;
    case QPU_SETUP_DMA:
        if (is_read) {
            p->vdr_setup = word;
            p->vdr_setup_set = 1;
        } else {
            p->vdw_setup = word;
            p->vdw_setup_set = 1;
        }
        return QPU_IO_OK;
    case QPU_SETUP_STRIDE:
        if (is_read)
            p->vdr_pitch = word;
        else
            p->vdw_stride = word;
        return QPU_IO_OK;
    default:
        return qpu_err(p, "QPU %u: %s 0x%08x has undocumented ID bits 31:30 = 01", p->num,
                       is_read ? "vr_setup" : "vw_setup", word);
    }
}
