/* A 256-bin histogram of bytes, two ways. */
#include "krt_kernel.h"

/* Every work-item increments its bin in global memory with an atomic: simple, but all work-items contend
 * for 256 counters. */
__kernel void histogram_global(__global const uchar *data, __global uint *bins, uint n)
{
    KRT_GUARD_1D(i, n);
    atomic_inc(&bins[data[i]]);
}

/* Each group counts into a private copy of the bins in local memory (local atomics are cheap), then adds its
 * non-zero counts to the global bins: 256 global atomics per group at most instead of one per byte.
 * Work-items past the end skip the count but still reach both barriers. */
__kernel void histogram_local(__global const uchar *data, __global uint *bins, uint n)
{
    KRT_LOCAL(uint, local_bins, [256]);
    uint lid = get_local_id(0);
    uint lsize = get_local_size(0);
    for (uint b = lid; b < 256; b += lsize)
        local_bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (krt_in_range_1d(n))
        atomic_inc(&local_bins[data[get_global_id(0)]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = lid; b < 256; b += lsize) {
        uint count = local_bins[b];
        if (count != 0)
            atomic_add(&bins[b], count);
    }
}

/* Right for any group: each work-item adds its byte to the group's bins, and the loops over the bins step by the
 * group's own size, so krt may choose the group (it would not for a kernel whose __local tile fits one group). */
KRT_ANY_GROUP(histogram_local);
