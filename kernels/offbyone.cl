/* A kernel with a deliberate bug, for docs/tutorial-debugging.md: do not copy it.
 *
 * Each work-item scales one block of `per` elements: out[j] = factor * in[j]. The loop's bound is `<=` where
 * it must be `<`, so every work-item also handles the first element of the next block. Inside the arrays that
 * goes unnoticed (the next work-item writes the same value there), but the last work-item reads in[n] and
 * writes out[n], one element past the end of both arrays. */
#include "krt_kernel.h"

__kernel void scale_blocks(__global const float *in, __global float *out, float factor, uint per, uint blocks)
{
    KRT_GUARD_1D(b, blocks);
    size_t first = b * per;
    for (uint k = 0; k <= per; k++) /* the off-by-one: k < per */
        out[first + k] = factor * in[first + k]; /* k == per: in[n] and out[n] in the last block */
}
