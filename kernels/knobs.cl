/* The launch knobs of examples/knobs.c: one computation, x[i] = x[i] * factor, under four kernels that differ
 * only in what they tell krt about their group size (nothing, a hint, a requirement) or how factor is fixed (an
 * argument, or a specialization constant set when the module is built). Work-item 0 records the shape the
 * launch really used, shape[0] the group size and shape[1] the number of groups, so the program can check that
 * krt launched what it said it would. */
#include "krt_kernel.h"

KRT_KERNEL_HELPER void record_shape(__global uint *shape)
{
    if (get_global_id(0) == 0) {
        shape[0] = (uint)get_local_size(0);
        shape[1] = (uint)get_num_groups(0);
    }
}

__kernel void scale(__global float *x, float factor, uint n, __global uint *shape)
{
    record_shape(shape);
    KRT_GUARD_1D(i, n);
    x[i] *= factor;
}

/* A soft preference: krt aims at groups of 64 when the caller gives no group size. */
__attribute__((work_group_size_hint(64, 1, 1)))
__kernel void scale_hint(__global float *x, float factor, uint n, __global uint *shape)
{
    record_shape(shape);
    KRT_GUARD_1D(i, n);
    x[i] *= factor;
}

/* A requirement: every launch uses groups of exactly 128. */
__attribute__((reqd_work_group_size(128, 1, 1)))
__kernel void scale_reqd(__global float *x, float factor, uint n, __global uint *shape)
{
    record_shape(shape);
    KRT_GUARD_1D(i, n);
    x[i] *= factor;
}

/* factor as a specialization constant (SpecId 1, default 2): fixed when the module is built, so the driver
 * compiles it as a constant. OpenCL C has no syntax for one; llvm-spirv turns this call into OpSpecConstant. */
int __spirv_SpecConstant(int id, int default_value);

__kernel void scale_spec(__global float *x, uint n, __global uint *shape)
{
    record_shape(shape);
    KRT_GUARD_1D(i, n);
    x[i] *= (float)__spirv_SpecConstant(1, 2);
}
