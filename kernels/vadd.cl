/* vadd: c = a + b, one work-item per element.
 *
 * krt may launch more work-items than n (it rounds the range up to whole groups rather than shrinking the
 * group to fit), so the kernel takes n and the work-items past the end return at once: KRT_GUARD_1D declares
 * i = get_global_id(0) and returns when i >= n. */
#include "krt_kernel.h"

__kernel void vadd(__global const float *a, __global const float *b, __global float *c, uint n)
{
    KRT_GUARD_1D(i, n);
    c[i] = a[i] + b[i];
}
