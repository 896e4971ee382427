/* Kernels whose result does or does not depend on the group size (test_group_dep.c, docs/design.md "Groups krt
 * does not choose"). */
#include "krt_kernel.h"

#define TW 16
#define TH 16

static int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* A 5-point blur as a newcomer writes it: a 16 x 16 tile of the input plus a one-item halo in __local memory, loaded
 * by the group's items (the halo by the items on the tile's edges, found with get_local_size so that a partial group
 * at the range's edge loads its own), a barrier, then each item averages its neighbourhood from the tile. Right for
 * groups up to 16 x 16 only: a wider group writes past the tile's rows (64 x 8 gets most of 1000 x 777 wrong), and
 * nothing in the compiled kernel says so. Edges clamp. */
kernel void blur(global const float *in, global float *out, int w, int h)
{
    KRT_LOCAL(float, tile, [TH + 2][TW + 2]);
    int lx = (int)get_local_id(0), ly = (int)get_local_id(1);
    int gx = (int)get_global_id(0), gy = (int)get_global_id(1);
    int lw = (int)get_local_size(0), lh = (int)get_local_size(1);
    int cx = clampi(gx, 0, w - 1), cy = clampi(gy, 0, h - 1);
    tile[ly + 1][lx + 1] = in[cy * w + cx];
    if (lx == 0)
        tile[ly + 1][0] = in[cy * w + clampi(gx - 1, 0, w - 1)];
    if (lx == lw - 1)
        tile[ly + 1][lx + 2] = in[cy * w + clampi(gx + 1, 0, w - 1)];
    if (ly == 0)
        tile[0][lx + 1] = in[clampi(gy - 1, 0, h - 1) * w + cx];
    if (ly == lh - 1)
        tile[ly + 2][lx + 1] = in[clampi(gy + 1, 0, h - 1) * w + cx];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (gx < w && gy < h)
        out[gy * w + gx] = 0.2f * (tile[ly + 1][lx + 1] + tile[ly][lx + 1] + tile[ly + 2][lx + 1] +
                                   tile[ly + 1][lx] + tile[ly + 1][lx + 2]);
}

/* The same blur with the group it is written for declared: krt obeys it. */
__attribute__((reqd_work_group_size(TW, TH, 1)))
kernel void blur_reqd(global const float *in, global float *out, int w, int h)
{
    KRT_LOCAL(float, tile, [TH + 2][TW + 2]);
    int lx = (int)get_local_id(0), ly = (int)get_local_id(1);
    int gx = (int)get_global_id(0), gy = (int)get_global_id(1);
    int lw = (int)get_local_size(0), lh = (int)get_local_size(1);
    int cx = clampi(gx, 0, w - 1), cy = clampi(gy, 0, h - 1);
    tile[ly + 1][lx + 1] = in[cy * w + cx];
    if (lx == 0)
        tile[ly + 1][0] = in[cy * w + clampi(gx - 1, 0, w - 1)];
    if (lx == lw - 1)
        tile[ly + 1][lx + 2] = in[cy * w + clampi(gx + 1, 0, w - 1)];
    if (ly == 0)
        tile[0][lx + 1] = in[clampi(gy - 1, 0, h - 1) * w + cx];
    if (ly == lh - 1)
        tile[ly + 2][lx + 1] = in[clampi(gy + 1, 0, h - 1) * w + cx];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (gx < w && gy < h)
        out[gy * w + gx] = 0.2f * (tile[ly + 1][lx + 1] + tile[ly][lx + 1] + tile[ly + 2][lx + 1] +
                                   tile[ly + 1][lx] + tile[ly + 1][lx + 2]);
}

/* Counts of n values mod 16 into __local bins, then added to out: right for any group (the bins' loops step by the
 * group's own size), and marked so. */
kernel void count16(global const uint *in, global uint *out, uint n)
{
    KRT_LOCAL(uint, bins, [16]);
    uint l = (uint)get_local_id(0), ls = (uint)get_local_size(0);
    for (uint b = l; b < 16; b += ls)
        bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    size_t i = get_global_id(0);
    if (i < n)
        atomic_inc(&bins[in[i] % 16]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = l; b < 16; b += ls)
        if (bins[b])
            atomic_add(&out[b], bins[b]);
}
KRT_ANY_GROUP(count16);

/* The same counts unmarked: krt leaves its group to the caller unless the caller says any group is right. */
kernel void count16_unmarked(global const uint *in, global uint *out, uint n)
{
    KRT_LOCAL(uint, bins, [16]);
    uint l = (uint)get_local_id(0), ls = (uint)get_local_size(0);
    for (uint b = l; b < 16; b += ls)
        bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    size_t i = get_global_id(0);
    if (i < n)
        atomic_inc(&bins[in[i] % 16]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = l; b < 16; b += ls)
        if (bins[b])
            atomic_add(&out[b], bins[b]);
}

/* partial[group] = the sum of the group's values, through scratch: one float per work-item of whatever group the
 * launch gets (KRT_ARG_LOCAL_PER_ITEM), any size, a partial group included. No guard of its own: the launch is
 * exact. group_size[group] = the group's item count. */
kernel void scratch_sum(global const float *in, global float *partial, global uint *group_size, local float *scratch)
{
    uint l = (uint)get_local_id(0), s = (uint)get_local_size(0);
    scratch[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint n = s; n > 1;) {
        uint upper = (n + 1) / 2;
        if (l + upper < n)
            scratch[l] += scratch[l + upper];
        barrier(CLK_LOCAL_MEM_FENCE);
        n = upper;
    }
    if (l == 0) {
        partial[get_group_id(0)] = scratch[0];
        group_size[get_group_id(0)] = s;
    }
}

/* out[i] = i + 1, with no guard: only an exact launch leaves out past the range untouched. */
kernel void write_id(global uint *out)
{
    size_t i = get_global_id(0) + get_global_size(0) * (get_global_id(1) + get_global_size(1) * get_global_id(2));
    out[i] = (uint)i + 1;
}
