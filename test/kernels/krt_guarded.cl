/* Kernels written with krt's kernel-side guard helpers (kernels/include/krt_kernel.h), for the launch
 * contract: work-items past the end of the range return at once. */
#include "krt_kernel.h"

/* hits[i] counts how often item i of an n-item range runs. */
kernel void krt_guard1(global uint *hits, uint n)
{
    KRT_GUARD_1D(i, n);
    atomic_inc(&hits[i]);
}

kernel void krt_guard2(global uint *hits, uint nx, uint ny)
{
    KRT_GUARD_2D(x, y, nx, ny);
    atomic_inc(&hits[krt_linear_2d(nx)]);
    (void)x;
    (void)y;
}

kernel void krt_guard3(global uint *hits, uint nx, uint ny, uint nz)
{
    KRT_GUARD_3D(x, y, z, nx, ny, nz);
    atomic_inc(&hits[krt_linear_3d(nx, ny)]);
    (void)x;
    (void)y;
    (void)z;
}

/* Work-items past the end stay alive for the barrier and only skip their memory accesses. */
kernel void krt_guard_barrier(global const int *in, global int *out, local int *tile, uint n)
{
    size_t l = get_local_id(0);
    tile[l] = krt_in_range_1d(n) ? in[get_global_id(0)] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (krt_in_range_1d(n)) {
        size_t ls = get_local_size(0);
        out[get_global_id(0)] = tile[l] + tile[(l + 1) % ls];
    }
}
