/* Kernels with a work_group_size_hint, for krt's dynamic launch configuration: the hint is the shape krt aims
 * at, within every limit. Each kernel guards the work-items past the end of its range, and the first
 * work-item records the shape the launch really used: shape[0..2] the group, shape[3..5] the group counts. */

#include "krt_kernel.h" /* KRT_LOCAL, so that the file also builds as C (docs/single-source.md) */

static void record_shape(global uint *shape)
{
    if (get_global_id(0) != 0 || get_global_id(1) != 0 || get_global_id(2) != 0)
        return;
    for (uint d = 0; d < 3; d++) {
        shape[d] = (uint)get_local_size(d);
        shape[3 + d] = (uint)get_num_groups(d);
    }
}

/* out[i] = 3 * i + 1. */
__attribute__((work_group_size_hint(64, 1, 1)))
kernel void krt_hint64(global uint *out, global uint *shape, uint n)
{
    record_shape(shape);
    size_t i = get_global_id(0);
    if (i >= n)
        return;
    out[i] = 3u * (uint)i + 1u;
}

/* out[x + nx * y] = x * 7 + y. */
__attribute__((work_group_size_hint(8, 4, 1)))
kernel void krt_hint8x4(global uint *out, global uint *shape, uint nx, uint ny)
{
    record_shape(shape);
    size_t x = get_global_id(0), y = get_global_id(1);
    if (x >= nx || y >= ny)
        return;
    out[x + nx * y] = (uint)x * 7u + (uint)y;
}

/* A tree reduction, the kind of kernel that wants small groups on a CPU device: partial[g] is the sum of
 * group g's items. The scratch array holds up to 64 work-items; the hint asks for 8. Work-items past the end
 * stay alive through the barriers and contribute 0. */
__attribute__((work_group_size_hint(8, 1, 1)))
kernel void krt_hint_reduce(global const int *in, global int *partial, global uint *shape, uint n)
{
    KRT_LOCAL(int, scratch, [64]);
    record_shape(shape);
    size_t i = get_global_id(0);
    uint l = (uint)get_local_id(0);
    uint ls = (uint)get_local_size(0);
    if (ls > 64)
        return; /* the whole group returns: no barrier is left waiting */
    scratch[l] = i < n ? in[i] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint stride = 1; stride < ls; stride *= 2) {
        if (l % (2 * stride) == 0 && l + stride < ls)
            scratch[l] += scratch[l + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        partial[get_group_id(0)] = scratch[0];
}

/* 3648 bytes of private memory per work-item (as krt_spill.cl's krt_private_3648) and a hint of 256: the
 * spill cap applies to the hint. out[i] = the sum of i + j for j < 912. */
__attribute__((work_group_size_hint(256, 1, 1)))
kernel void krt_hint_spill(global uint *out, global uint *shape, uint n, uint seed)
{
    record_shape(shape);
    size_t i = get_global_id(0);
    if (i >= n)
        return;
    uint arr[912];
    for (uint j = 0; j < 912; j++)
        arr[(j * seed) % 912] = (uint)i + ((j * seed) % 912);
    uint s = 0;
    for (uint k = 0; k < 912; k++)
        s += arr[(k * 7) % 912];
    out[i] = s;
}

/* A hint larger than any device allows: the kernel's or device's maximum applies. */
__attribute__((work_group_size_hint(65536, 1, 1)))
kernel void krt_hint_huge(global uint *out, global uint *shape, uint n)
{
    record_shape(shape);
    size_t i = get_global_id(0);
    if (i >= n)
        return;
    out[i] = (uint)i ^ 0x5au;
}

/* Both attributes: the required size wins over the hint. */
__attribute__((reqd_work_group_size(16, 1, 1)))
__attribute__((work_group_size_hint(64, 1, 1)))
kernel void krt_hint_reqd(global uint *out, global uint *shape, uint n)
{
    record_shape(shape);
    size_t i = get_global_id(0);
    if (i >= n)
        return;
    out[i] = (uint)i + 11u;
}
