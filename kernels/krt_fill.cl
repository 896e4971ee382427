/*
 * krt_fill: the built-in kernels behind krt_memfill, embedded in libkrt.
 *
 * The pattern arrives by value as 128 bytes (a ulong16 holding the user's pattern repeated), so a fill needs
 * no device copy of the pattern, no residency call and no synchronisation. `period` is the pattern's length in
 * the unit the kernel writes; since 128 is a multiple of every pattern size, element i takes the pattern's
 * element i % period.
 */
#include "krt_kernel.h"

/* dst is 8-byte aligned and the size a multiple of 8: one 64-bit word per work-item. */
__kernel void krt_fill_words(__global ulong *dst, ulong n, ulong16 pattern, uint period)
{
    KRT_GUARD_1D(i, n);
    ulong w[16];
    vstore16(pattern, 0, w);
    dst[i] = w[i % period];
}

/* Any alignment and size: one byte per work-item. */
__kernel void krt_fill_bytes(__global uchar *dst, ulong n, ulong16 pattern, uint period)
{
    KRT_GUARD_1D(i, n);
    ulong w[16];
    vstore16(pattern, 0, w);
    dst[i] = ((uchar *)w)[i % period];
}
