/* Private memory (issue 39, test_robust.c): a kernel whose work-items need more private memory than any of krt's
 * devices gives one, and one whose items keep a large private array across a barrier. */

#include "krt_kernel.h" /* so that the file also builds as C for the host device (docs/single-source.md) */

/* 8 GiB of private array per work-item: the launch is refused, naming the kernel's private memory and the device's
 * limit; run, it would overrun its stack. */
kernel void krt_big_private(global ulong *out, ulong n)
{
    ulong big[1ul << 30];
    size_t i = get_global_id(0);
    big[(i * 7919u) % n] = i;
    out[i] = big[(i * 104729u) % n];
}

/* 64 KiB of private array per work-item, live across a barrier: PoCL keeps such variables in arrays of one element per
 * work-item of the group on its worker's stack, so krt chooses a group whose arrays fit. out[i] = 6 i + 16383. */
kernel void krt_group_private(global uint *out, uint n)
{
    uint a[16384];
    size_t i = get_global_id(0);
    uint l = (uint)get_local_id(0);
    for (uint k = 0; k < 16384u; k++)
        a[k] = (uint)i * 3u + k;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i < n)
        out[i] = a[l] + a[16383u - l];
}
