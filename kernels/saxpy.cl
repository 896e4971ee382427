/* saxpy: y = a * x + y, the BLAS level-1 classic. The guard makes any n correct, primes included. */
#include "krt_kernel.h"

__kernel void saxpy(float a, __global const float *x, __global float *y, uint n)
{
    KRT_GUARD_1D(i, n);
    y[i] = a * x[i] + y[i];
}
