/* ze_pocl's start-up self-check: one kernel per construct the driver translates for PoCL, each with a result
 * the host knows exactly (driver/pocl/selfcheck.c). Compiled like krt's kernels (-O0, OpenCL C 1.2) and
 * embedded in libze_pocl.so. Helpers are not used: every kernel is flat. */

/* A by-value 128-byte pattern stored to private memory with vstore16 and read back by index, as
 * krt_memfill's built-in kernels do; plus a by-value uchar and char beside it. */
__kernel void zp_check_fill(__global ulong *words, __global uchar *bytes, ulong16 pattern, uint period, uchar u,
                            char c)
{
    size_t i = get_global_id(0);
    ulong w[16];
    vstore16(pattern, 0, w);
    words[i] = w[i % period];
    bytes[i] = (uchar)(((uchar *)w)[i % 128] ^ u ^ (uchar)c);
}

/* Global atomics (atomic_inc, atomic_add, atomic_max, atomic_cmpxchg) and local ones (atomic_inc into a
 * __local histogram between barriers, then atomic_add of the group's counts to global memory). */
__kernel void zp_check_atomics(__global const uchar *data, __global uint *bins, __global uint *sums,
                               __global int *extrema)
{
    __local uint local_bins[16];
    size_t lid = get_local_id(0), lsize = get_local_size(0), i = get_global_id(0);
    for (size_t b = lid; b < 16; b += lsize)
        local_bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    uchar v = data[i];
    atomic_inc(&local_bins[v & 15]);
    atomic_inc(&bins[16 + (v & 15)]);
    atomic_add(&sums[0], (uint)v);
    atomic_max(&extrema[0], (int)v);
    int seen = atomic_cmpxchg(&extrema[1], -1, (int)i);
    if (seen != -1)
        atomic_inc(&sums[1]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t b = lid; b < 16; b += lsize)
        if (local_bins[b])
            atomic_add(&bins[b], local_bins[b]);
}

/* async_work_group_copy in and out of __local memory with wait_group_events, a barrier and a mem_fence. */
__kernel void zp_check_async(__global const int *in, __global int *out, __local int *tile)
{
    size_t n = get_local_size(0), g = get_group_id(0), lid = get_local_id(0);
    event_t e = async_work_group_copy(tile, in + g * n, n, 0);
    wait_group_events(1, &e);
    barrier(CLK_LOCAL_MEM_FENCE);
    int v = tile[n - 1 - lid] * 3 + 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    tile[lid] = v;
    mem_fence(CLK_LOCAL_MEM_FENCE);
    barrier(CLK_LOCAL_MEM_FENCE);
    e = async_work_group_copy(out + g * n, tile, n, 0);
    wait_group_events(1, &e);
}
