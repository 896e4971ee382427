/* Kernels with barriers written in ways that a reader of C can trip over, for test_oracle's
 * tricky_barrier_kernels and test/krt-cc.sh: the host device runs each as work-item loops where krt-cc's transform
 * (tools/krt_loops.py) takes it, on fibers where it refuses it (with a note naming the line and why), and both
 * must give ze_pocl's integers. Every kernel is (out, a __local int per work-item, n, extra): out[gid] for
 * gid < n; every work-item reaches every barrier. */

#include "krt_kernel.h"

#define SYNC barrier(CLK_LOCAL_MEM_FENCE)
#define SYNC_BOTH() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
#define ROTATE(buf, lid, size) (buf)[((lid) + 1) % (size)]

/* Barriers that macros write; barrier( in comments and in a string, which are not barriers; a variable whose name
 * starts with barrier; nested blocks that declare a variable of an outer one's name, one of them after a
 * barrier. */
kernel void tricky_macros(global int *out, local int *tmp, uint n, int extra)
{
    uint lid = get_local_id(0), size = get_local_size(0);
    size_t gid = get_global_id(0);
    int barrier_count = (int)sizeof("barrier(CLK_LOCAL_MEM_FENCE);") + extra; /* barrier(0); in a comment */
    tmp[lid] = (int)gid * 3;
    SYNC; // barrier(CLK_GLOBAL_MEM_FENCE);
    int right = ROTATE(tmp, lid, size);
    {
        int right = 7; /* another right, in one region */
        barrier_count += right;
    }
    SYNC_BOTH();
    tmp[lid] = right + barrier_count;
    SYNC;
    {
        int x = ROTATE(tmp, lid, size);
        SYNC;
        int right = x * 2; /* declared after a barrier, in a nested block */
        if (gid < n)
            out[gid] = right + (int)lid;
    }
}

/* Barriers inside for, while, do and an if whose condition is the same for the whole group; a switch and a
 * pragma'd loop between barriers; a work-item id changed through parentheses after its declaration, which the
 * loops must keep per work-item rather than compute again from get_local_id after the barrier. */
kernel void tricky_loops(global int *out, local int *tmp, uint n, int extra)
{
    uint lid = get_local_id(0);
    uint size = get_local_size(0);
    uint me = get_local_id(0);
    (me) += 1;
    int acc = 0;
    uint rounds = (uint)extra % 4 + 1;
    for (uint r = 0; r < rounds; r++) {
        tmp[lid] = (int)(me * 10 + r);
        barrier(CLK_LOCAL_MEM_FENCE);
        int v = tmp[(lid + r) % size];
        switch (v % 3) {
        case 0:
            acc += v;
            break;
        case 1: {
            int w = v * 2;
            acc += w;
            break;
        }
        default:
            acc -= 1;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    uint left = rounds;
    while (left > 0) {
        left--;
        if (get_group_id(0) % 2 == 0) {
            tmp[lid] = acc + (int)left;
            barrier(CLK_LOCAL_MEM_FENCE);
            acc = tmp[size - 1 - lid];
            barrier(CLK_LOCAL_MEM_FENCE);
        } else
            acc -= 1;
    }
    do {
        tmp[lid] = acc;
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma GCC unroll 2
        for (int k = 0; k < 3; k++)
            acc += tmp[(lid + (uint)k) % size] & 7;
        barrier(CLK_LOCAL_MEM_FENCE);
    } while (0);
    size_t gid = get_global_id(0);
    if (gid < n)
        out[gid] = acc * 1000 + (int)me;
}

/* A parameter that each work-item changes, through parentheses. Each work-item has its own copy in OpenCL C; the
 * loops share the parameters, so the kernel keeps its fibers. */
kernel void tricky_param(global int *out, local int *tmp, uint n, int extra)
{
    (extra) += (int)get_local_id(0);
    tmp[get_local_id(0)] = extra;
    barrier(CLK_LOCAL_MEM_FENCE);
    size_t gid = get_global_id(0);
    if (gid < n)
        out[gid] = extra * 2 + tmp[0];
}

/* A goto (before the barrier, legal): the kernel keeps its fibers. */
kernel void tricky_goto(global int *out, local int *tmp, uint n, int extra)
{
    uint lid = get_local_id(0);
    int v = (int)lid + extra;
    if (v % 3 == 0)
        goto skip;
    v *= 5;
skip:
    tmp[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    size_t gid = get_global_id(0);
    if (gid < n)
        out[gid] = v + tmp[(lid + 1) % get_local_size(0)];
}

/* A barrier inside a switch on a value that is the same for the whole group (legal; in one arm only, as PoCL 3.1
 * wants): the kernel keeps its fibers. */
kernel void tricky_switch(global int *out, local int *tmp, uint n, int extra)
{
    uint lid = get_local_id(0), size = get_local_size(0);
    int v = (int)lid;
    tmp[lid] = v;
    switch (extra % 3) {
    case 0:
        v += 1000;
        break;
    default:
        barrier(CLK_LOCAL_MEM_FENCE);
        v -= tmp[(lid + 1) % size];
    }
    size_t gid = get_global_id(0);
    if (gid < n)
        out[gid] = v;
}
