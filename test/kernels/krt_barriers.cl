/* Kernels with barriers of several shapes, for test_oracle's barrier_kernels: the host device runs them as
 * work-item loops (tools/krt_loops.py) and, with KRT_HOST_FIBERS=1, on fibers; both must give ze_pocl's results
 * exactly (integers only) and the test's own reference in C. Every work-item reaches every barrier; n is the
 * number of valid inputs, the range may be larger (padded to whole groups). */

#include "krt_kernel.h"

/* A tree reduction in __local memory (kernel scope), any group size up to 256: partial[g] = sum of the group's
 * in[i] (0 past n). lid and gid live across the barriers, s and upper are the loop's. */
kernel void krt_bar_reduce(global const int *in, global int *partial, uint n)
{
    local int tmp[256];
    uint lid = get_local_id(0);
    size_t gid = get_global_id(0);
    tmp[lid] = gid < n ? in[gid] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = get_local_size(0); s > 1;) {
        uint upper = (s + 1) / 2;
        if (lid + upper < s)
            tmp[lid] += tmp[lid + upper];
        barrier(CLK_LOCAL_MEM_FENCE);
        s = upper;
    }
    if (lid == 0)
        partial[get_group_id(0)] = tmp[0];
}

/* A private accumulator and a private array that live across a barrier inside a loop over tiles: out[i] = the
 * sum over every tile t of the group of tile[t][(lid + 1) % size] * (t + 1), plus a private running max. */
kernel void krt_bar_tiles(global const int *in, global int *out, local int *tile, uint n, uint tiles)
{
    uint lid = get_local_id(0);
    uint size = get_local_size(0);
    int acc = 0;
    int hist[4];
    for (int j = 0; j < 4; j++)
        hist[j] = 0;
    int best = -2147483647;
    for (uint t = 0; t < tiles; t++) {
        size_t at = (size_t)t * get_global_size(0) + get_global_id(0);
        tile[lid] = at < n ? in[at] : (int)t;
        barrier(CLK_LOCAL_MEM_FENCE);
        int v = tile[(lid + 1) % size];
        acc += v * (int)(t + 1);
        hist[v & 3]++;
        if (v > best)
            best = v;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    size_t g = get_global_id(0);
    out[3 * g] = acc;
    out[3 * g + 1] = hist[0] * 1000000 + hist[1] * 10000 + hist[2] * 100 + hist[3];
    out[3 * g + 2] = best;
}

/* Barriers in nested ifs whose conditions are the same for the whole group (the group's id, an argument), a
 * while loop and a do loop with barriers, and a return after the last barrier. out[gid] = what the work-item
 * read from its neighbours. */
kernel void krt_bar_nested(global int *out, local int *buf, uint n, int mode)
{
    uint lid = get_local_id(0);
    uint size = get_local_size(0);
    size_t gid = get_global_id(0);
    int mine = (int)(gid * 7 % 23);
    int got = 0;
    buf[lid] = mine;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (mode > 0) {
        if (get_group_id(0) % 2 == 0) {
            got = buf[size - 1 - lid];
            barrier(CLK_LOCAL_MEM_FENCE);
            buf[lid] = got + 1;
            barrier(CLK_LOCAL_MEM_FENCE);
            got += buf[(lid + 2) % size];
        } else {
            got = -buf[(lid + 1) % size];
        }
    } else {
        got = buf[0];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    int round = 0;
    while (round < mode) {
        buf[lid] = got;
        barrier(CLK_LOCAL_MEM_FENCE);
        got = got * 3 + buf[(lid + size - 1) % size];
        got &= 0xffff;
        barrier(CLK_LOCAL_MEM_FENCE);
        round++;
    }
    int k = 0;
    do {
        buf[lid] = got + k;
        barrier(CLK_LOCAL_MEM_FENCE);
        got ^= buf[(lid + 3) % size];
        barrier(CLK_LOCAL_MEM_FENCE);
        k++;
    } while (k < 2);
    if (gid >= n)
        return;
    {
        int got = 5; /* another variable of the same name, in a block of its own */
        out[gid] += got;
    }
    out[gid] += got;
}

/* A 2-D group: a transpose through __local memory. out[x][y] (ny columns) = in[y][x] (nx columns), for
 * 8 x 8 groups over a range padded to whole groups. */
__attribute__((reqd_work_group_size(8, 8, 1)))
kernel void krt_bar_transpose(global const int *in, global int *out, uint nx, uint ny)
{
    local int t[8][9];
    size_t x = get_global_id(0), y = get_global_id(1);
    uint lx = get_local_id(0), ly = get_local_id(1);
    t[ly][lx] = x < nx && y < ny ? in[y * nx + x] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    size_t ox = get_group_id(1) * 8 + lx, oy = get_group_id(0) * 8 + ly;
    if (ox < ny && oy < nx)
        out[oy * ny + ox] = t[lx][ly];
}

/* A private array of 100 ints live across a barrier: 400 bytes per work-item, which the loops keep on the heap
 * for groups of more than 163 (KRT__PRIVATE_STACK). out[gid] = the sum of big[j] ^ the neighbour's last one. */
kernel void krt_bar_big(global int *out, local int *t, uint n)
{
    uint lid = get_local_id(0);
    int big[100];
    for (int j = 0; j < 100; j++)
        big[j] = (int)(get_global_id(0) * 100 + j);
    t[lid] = big[99];
    barrier(CLK_LOCAL_MEM_FENCE);
    int s = 0;
    for (int j = 0; j < 100; j++)
        s += big[j] ^ t[(lid + 1) % get_local_size(0)];
    if (get_global_id(0) < n)
        out[get_global_id(0)] = s;
}

/* Returns before a barrier, each taken by a whole group (OpenCL's rule: a barrier is reached by all work-items
 * of a group or by none): groups g with g % 3 == skip return at once; the others leave the loop with a barrier
 * in iteration g % 4, after storing acc, the sum of their right-hand neighbours' gid + k so far. */
kernel void krt_bar_early(global int *out, local int *t, uint n, uint skip)
{
    uint lid = get_local_id(0);
    size_t gid = get_global_id(0);
    if (get_group_id(0) % 3 == skip)
        return;
    int acc = 0;
    for (int k = 0; k < 4; k++) {
        t[lid] = (int)gid + k;
        barrier(CLK_LOCAL_MEM_FENCE);
        acc += t[(lid + 1) % get_local_size(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        if ((int)(get_group_id(0) % 4) == k) {
            if (gid < n)
                out[gid] = acc;
            return;
        }
    }
    if (gid < n)
        out[gid] = -acc;
}
