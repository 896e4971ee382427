/* Kernels for the launch configuration's rules that read the kernel (test/test_launch_rules.c): with and
 * without a work-group barrier, in the kernel or in a function it calls, with __local arguments or static
 * __local memory. Each one writes its local size, so a test can check the launch used the reported group. */
#include "krt_kernel.h"

/* No barrier, no local memory. out[i] = local size in x. */
kernel void krt_rule_plain(global uint *out, uint n)
{
    KRT_GUARD_1D(i, n);
    out[i] = (uint)get_local_size(0);
}

/* A barrier and a __local argument of one element per work-item (a reduction's scratch). */
kernel void krt_rule_barrier_arg(global uint *out, local uint *scratch, uint n)
{
    size_t l = get_local_id(0);
    scratch[l] = (uint)get_local_size(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (krt_in_range_1d(n))
        out[get_global_id(0)] = scratch[(l + 1) % get_local_size(0)];
}

/* A barrier and static __local memory: a per-group table set up and read back. */
kernel void krt_rule_barrier_static(global uint *out, uint n)
{
    KRT_LOCAL(uint, table, [64]);
    size_t l = get_local_id(0);
    if (l < 64)
        table[l] = (uint)get_local_size(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (krt_in_range_1d(n))
        out[get_global_id(0)] = table[l % 64 < get_local_size(0) ? l % 64 : 0];
}
/* Every item writes the size of its own group, whatever it is: the tests read it to see krt's choice, so any group
 * is right for them. */
KRT_ANY_GROUP(krt_rule_barrier_static);

/* The barrier lives in a helper the kernel calls: reflection follows the call tree. */
__attribute__((noinline)) void krt_rule_sync(local uint *scratch, size_t l)
{
    scratch[l] = (uint)get_local_size(0);
    barrier(CLK_LOCAL_MEM_FENCE);
}

kernel void krt_rule_barrier_callee(global uint *out, local uint *scratch, uint n)
{
    size_t l = get_local_id(0);
    krt_rule_sync(scratch, l);
    if (krt_in_range_1d(n))
        out[get_global_id(0)] = scratch[l];
}

/* A __local argument but no barrier. */
kernel void krt_rule_local_only(global uint *out, local uint *scratch, uint n)
{
    size_t l = get_local_id(0);
    scratch[l] = (uint)get_local_size(0);
    if (krt_in_range_1d(n))
        out[get_global_id(0)] = scratch[l];
}

/* 2-D and 3-D, no barrier: out[linear id] = local size x * 65536 + y * 256 + z (small groups fit). */
kernel void krt_rule_2d(global uint *out, uint nx, uint ny)
{
    KRT_GUARD_2D(x, y, nx, ny);
    out[y * nx + x] = (uint)(get_local_size(0) * 65536 + get_local_size(1) * 256 + get_local_size(2));
}

kernel void krt_rule_3d(global uint *out, uint nx, uint ny, uint nz)
{
    KRT_GUARD_3D(x, y, z, nx, ny, nz);
    out[(z * ny + y) * nx + x] = (uint)(get_local_size(0) * 65536 + get_local_size(1) * 256 + get_local_size(2));
}
