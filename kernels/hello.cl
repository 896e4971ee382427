/* printf from a kernel: each work-item prints one line. ze_pocl supports OpenCL C printf; the lines go to the
 * program's standard output when the kernel runs, in no fixed order between work-items. */
#include "krt_kernel.h"

__kernel void hello(__global const int *values, uint n)
{
    KRT_GUARD_1D(i, n);
    printf("printf from the kernel: work-item %u of %u sees %d\n", (uint)i, n, values[i]);
}
