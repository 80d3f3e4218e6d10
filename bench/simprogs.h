/* The programs bench_simdesc.c runs on each target's generated simulator through its descriptor (a header of
 * bench_simdesc.c, not a program itself): a corpus program per target (path under $TESSERA_SHARED/corpus, read in
 * the target's word order), and for a program whose results can be worked out in C, the inputs of each of its
 * runs ("vertices") and the check of its results.  The one place bench_simdesc chooses inputs by target name.
 *
 * Everything here reaches the simulator through struct tsr_sim_desc (runtime/sim/sim.h): states by their
 * names in the description (sp_state), values as the descriptor's state() gives them. */
#ifndef BENCH_SIMPROGS_H
#define BENCH_SIMPROGS_H
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sim/sim.h"

#define SP_MAXOUT 32   /* 32-bit output values one run keeps */

struct simprog {
    const char *target;
    const char *path;     /* under the corpus directory */
    const char *what;     /* for the table */
    /* Untimed: the values every run shares (constants); 0, or -1 with a message in msg. */
    int (*setup)(const struct tsr_sim_desc *D, void *sim, char *msg, size_t n);
    /* Timed, before run k: its inputs (attributes). */
    void (*inputs)(const struct tsr_sim_desc *D, void *sim, unsigned k);
    /* Timed, after run k: its results into out[SP_MAXOUT] (exports). */
    void (*outputs)(const struct tsr_sim_desc *D, void *sim, uint32_t *out);
    /* Untimed: 0 when out holds run k's right results, else -1 with a message in msg. */
    int (*check)(unsigned k, const uint32_t *out, char *msg, size_t n);
};

/* The state named `name` of D, or -1. */
static inline int sp_state(const struct tsr_sim_desc *D, const char *name)
{
    for (int i = 0; i < D->nstates; i++)
        if (!strcmp(D->state_names[i], name))
            return i;
    return -1;
}

static inline uint32_t sp_bits(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    return x;
}

static inline float sp_float(uint32_t x)
{
    float f;
    memcpy(&f, &x, 4);
    return f;
}

/* ---- Tegra: opentegra's vertex_common (grate vertex/opentegra/vertex_common.asm) ----------------------------
 * Attributes v[0] position, v[1] source and v[2] mask texture coordinates; constants c[0].zw = (0, 1) and two
 * 3x4 transforms with a width/height in w (c[1..4]); exports o[0] = (pos.xy, c0.zw) and o[1] = the transformed
 * coordinates over the widths.  The same math as tests/test_tegra_sim.c corpus_vertex_common, per vertex k. */
static const float vc_k[5][4] = { { 0, 0, 0, 1 }, { 1.5f, -0.5f, 3, 256 }, { 0.25f, 2, -1, 128 }, { -2, 1, 0.5f, 64 },
                                  { 3, 0.125f, 2, 3 } };

static inline void vc_attrs(unsigned k, float pos[4], float st0[4], float mt[4])
{
    float x = (float)(k % 64) * 0.5f - 12.25f, y = (float)(k / 64) * 0.75f - 3.5f;
    pos[0] = x, pos[1] = y, pos[2] = 7, pos[3] = 1;
    st0[0] = x * 0.125f, st0[1] = 0.75f - y * 0.0625f, st0[2] = 9, st0[3] = 9;
    mt[0] = -0.5f + y * 0.25f, mt[1] = 2.0f - x * 0.03125f, mt[2] = 5, mt[3] = 5;
}

static inline int vc_setup(const struct tsr_sim_desc *D, void *sim, char *msg, size_t n)
{
    int c = sp_state(D, "c"), v = sp_state(D, "v"), o = sp_state(D, "o");
    if (c < 0 || v < 0 || o < 0 || D->lanes != 4) {
        snprintf(msg, n, "the simulator has no vec4 regfiles c, v and o");
        return -1;
    }
    for (int i = 0; i < 5; i++)
        for (int l = 0; l < 4; l++)
            D->state(sim, c, i)[l] = sp_bits(vc_k[i][l]);
    return 0;
}

static inline void vc_inputs(const struct tsr_sim_desc *D, void *sim, unsigned k)
{
    static int v = -1;
    if (v < 0)
        v = sp_state(D, "v");
    float a[3][4];
    vc_attrs(k, a[0], a[1], a[2]);
    for (int i = 0; i < 3; i++) {
        uint32_t *p = D->state(sim, v, i);
        for (int l = 0; l < 4; l++)
            p[l] = sp_bits(a[i][l]);
    }
}

static inline void vc_outputs(const struct tsr_sim_desc *D, void *sim, uint32_t *out)
{
    static int o = -1;
    if (o < 0)
        o = sp_state(D, "o");
    memcpy(out, D->state(sim, o, 0), 16);
    memcpy(out + 4, D->state(sim, o, 1), 16);
}

static inline float vc_dot3(const float *a, const float *b)
{
    return (a[0] * b[0] + a[1] * b[1]) + a[2] * b[2];
}

static inline int vc_check(unsigned k, const uint32_t *out, char *msg, size_t n)
{
    float pos[4], st0[4], mt[4];
    vc_attrs(k, pos, st0, mt);
    /* r1 = (st.xy, c0.w, c0.z); r3.xy = r1 . c1/c2; r1.xy = mt.xy; r3.zw = r1 . c3/c4; r0 = 1 / c1..c4.w */
    float r1[4] = { st0[0], st0[1], 1, 0 }, r3[4], want[8];
    r3[0] = vc_dot3(r1, vc_k[1]), r3[1] = vc_dot3(r1, vc_k[2]);
    r1[0] = mt[0], r1[1] = mt[1];
    r3[2] = vc_dot3(r1, vc_k[3]), r3[3] = vc_dot3(r1, vc_k[4]);
    want[0] = pos[0], want[1] = pos[1], want[2] = 0, want[3] = 1;
    for (int i = 0; i < 4; i++)
        want[4 + i] = r3[i] * (1.0f / vc_k[i + 1][3]);
    for (int i = 0; i < 8; i++)
        if (out[i] != sp_bits(want[i])) {
            snprintf(msg, n, "vertex %u: o[%d] component %d is %g (0x%08x), expected %g", k, i / 4, i % 4,
                     (double)sp_float(out[i]), out[i], (double)want[i]);
            return -1;
        }
    return 0;
}

/* ---- Utgard: lima's glmark2 depth.vert (lima_compiler/glmark2_depth.hex) ------------------------------------
 * gl_Position = MVP * position and one varying (the normal), lima's layout: uniforms t[0..3] the matrix's columns,
 * t[4] and t[5] the viewport scale and offset; attributes a[0] position, a[1] normal; varyings v[0] = the clip
 * position divided by w, scaled and offset, with 1/w in w, v[1].xyz = the normal.  The same math as
 * tests/test_utgard_sim.c corpus_depth_shader_against_c (in double; the complex unit's reciprocal is checked within
 * 1e-5 relative). */
static const float dp_m[4][4] = { { 0.5f, -1.25f, 2, 0.75f }, { 1.5f, 0.25f, -0.5f, -1 }, { -2, 1, 0.125f, 0.5f },
                                  { 0.25f, -0.75f, 3, 20 } };
static const float dp_scale[3] = { 400, -240, 0.5f }, dp_off[3] = { 400, 240, 0.5f };

static inline void dp_attrs(unsigned k, float pos[4], float nrm[4])
{
    float x = (float)(k % 64) * 0.25f - 8, y = (float)(k / 64) * 0.125f - 4;
    pos[0] = x, pos[1] = y, pos[2] = 0.5f - x * 0.0625f, pos[3] = 1;
    nrm[0] = y * 0.5f, nrm[1] = 1 - x * 0.125f, nrm[2] = 0.75f, nrm[3] = 0;
}

static inline int dp_setup(const struct tsr_sim_desc *D, void *sim, char *msg, size_t n)
{
    int u = sp_state(D, "U"), a = sp_state(D, "A"), v = sp_state(D, "V");
    if (u < 0 || a < 0 || v < 0 || D->lanes != 4) {
        snprintf(msg, n, "the simulator has no vec4 regfiles U, A and V");
        return -1;
    }
    for (int i = 0; i < 4; i++)
        for (int l = 0; l < 4; l++)
            D->state(sim, u, i)[l] = sp_bits(dp_m[i][l]);
    for (int l = 0; l < 4; l++) {
        D->state(sim, u, 4)[l] = sp_bits(l < 3 ? dp_scale[l] : 0);
        D->state(sim, u, 5)[l] = sp_bits(l < 3 ? dp_off[l] : 0);
    }
    return 0;
}

static inline void dp_inputs(const struct tsr_sim_desc *D, void *sim, unsigned k)
{
    static int a = -1;
    if (a < 0)
        a = sp_state(D, "A");
    float in[2][4];
    dp_attrs(k, in[0], in[1]);
    for (int i = 0; i < 2; i++) {
        uint32_t *p = D->state(sim, a, i);
        for (int l = 0; l < 4; l++)
            p[l] = sp_bits(in[i][l]);
    }
}

static inline void dp_outputs(const struct tsr_sim_desc *D, void *sim, uint32_t *out)
{
    static int v = -1;
    if (v < 0)
        v = sp_state(D, "V");
    memcpy(out, D->state(sim, v, 0), 16);
    memcpy(out + 4, D->state(sim, v, 1), 16);
}

static inline int dp_check(unsigned k, const uint32_t *out, char *msg, size_t n)
{
    float pos[4], nrm[4];
    dp_attrs(k, pos, nrm);
    double clip[4], want[7];
    for (int r = 0; r < 4; r++)
        clip[r] = (double)dp_m[0][r] * pos[0] + (double)dp_m[1][r] * pos[1] + (double)dp_m[2][r] * pos[2] + dp_m[3][r];
    double rw = 1.0 / clip[3];
    for (int c = 0; c < 3; c++)
        want[c] = clip[c] * rw * dp_scale[c] + dp_off[c], want[4 + c] = nrm[c];
    want[3] = rw;
    for (int i = 0; i < 7; i++) {
        double got = sp_float(out[i]), tol = i < 4 ? 1e-5 * (fabs(want[i]) > 1 ? fabs(want[i]) : 1) : 0;
        if (!(fabs(got - want[i]) <= tol)) {
            snprintf(msg, n, "vertex %u: v[%d] component %d is %.9g, expected %.9g", k, i / 4, i % 4, got, want[i]);
            return -1;
        }
    }
    return 0;
}

/* One program per target; a target without an entry gets no simulation figure.  An entry without setup/inputs/
 * outputs/check runs its program from the simulator's initial state and checks nothing but that it runs. */
static const struct simprog simprogs[] = {
    { "tegra", "tegra/grate/vertex/opentegra/vertex_common.hex", "opentegra vertex_common", vc_setup, vc_inputs,
      vc_outputs, vc_check },
    { "utgard", "utgard-gp/lima_compiler/glmark2_depth.hex", "lima glmark2_depth", dp_setup, dp_inputs, dp_outputs,
      dp_check },
};
#endif
