/* Matrix multiplication C = A * B, row-major, A is m x k, B is k x n, C is m x n.
 * Dimension 0 of the range runs over the columns of C, dimension 1 over its rows. */

#include "krt_kernel.h"

/* The straightforward version: one work-item per element of C, every operand read from global memory.
 * krt chooses the 2-D group size. */
__kernel void matmul_naive(__global const float *a, __global const float *b, __global float *c,
                           uint m, uint n, uint k)
{
    KRT_GUARD_2D(col, row, n, m);
    float acc = 0.0f;
    for (uint i = 0; i < k; i++)
        acc += a[row * k + i] * b[i * n + col];
    c[row * n + col] = acc;
}

/* The tiled version: each 16 x 16 group stages a tile of A and a tile of B in local memory, so every element
 * loaded from global memory is used 16 times. The tile shape is fixed at compile time, so the kernel requires
 * that group size and krt obeys it. Work-items outside C still load (zeros) and reach every barrier; only the
 * final store is guarded. */
#define TILE 16

__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1)))
void matmul_tiled(__global const float *a, __global const float *b, __global float *c, uint m, uint n, uint k)
{
    KRT_LOCAL(float, ta, [TILE][TILE]);
    KRT_LOCAL(float, tb, [TILE][TILE]);
    uint tx = get_local_id(0);
    uint ty = get_local_id(1);
    uint col = get_global_id(0);
    uint row = get_global_id(1);
    float acc = 0.0f;
    for (uint t = 0; t < k; t += TILE) {
        ta[ty][tx] = (row < m && t + tx < k) ? a[row * k + t + tx] : 0.0f;
        tb[ty][tx] = (col < n && t + ty < k) ? b[(t + ty) * n + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint i = 0; i < TILE; i++)
            acc += ta[ty][i] * tb[i][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (krt_in_range_2d(n, m))
        c[row * n + col] = acc;
}
