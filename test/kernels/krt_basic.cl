/* Kernels for the libkrt tests. Every kernel that may be launched over a range that is not a multiple of
 * its group size takes the range and lets the work-items past the end return at once: krt rounds the range
 * up to whole groups instead of shrinking the group. */

#include "krt_kernel.h" /* KRT_LOCAL, so that the file also builds as C (docs/single-source.md) */

/* c = a + b. */
kernel void krt_vadd(global const float *a, global const float *b, global float *c, uint n)
{
    size_t i = get_global_id(0);
    if (i >= n)
        return;
    c[i] = a[i] + b[i];
}

/* out[i] = base + i. */
kernel void krt_iota(global uint *out, uint n, uint base)
{
    size_t i = get_global_id(0);
    if (i >= n)
        return;
    out[i] = base + (uint)i;
}

/* data[i] *= factor. */
kernel void krt_scale(global int *data, int factor, uint n)
{
    size_t i = get_global_id(0);
    if (i >= n)
        return;
    data[i] *= factor;
}

/* Counts how often each item of a 1-D range runs, so that a test sees both missing and doubled items. */
kernel void krt_count1(global uint *hits, uint n)
{
    size_t i = get_global_id(0);
    if (i >= n)
        return;
    atomic_inc(&hits[i]);
}

/* Counts how often each item of a 3-D range runs; out is nx * ny * nz counters. */
kernel void krt_count3(global uint *hits, uint nx, uint ny, uint nz)
{
    size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    if (x >= nx || y >= ny || z >= nz)
        return;
    atomic_inc(&hits[x + (size_t)nx * (y + (size_t)ny * z)]);
}

/* Records the shape the launch really used, from the first work-item only. */
kernel void krt_shape(global uint *out)
{
    if (get_global_id(0) != 0 || get_global_id(1) != 0 || get_global_id(2) != 0)
        return;
    for (uint d = 0; d < 3; d++) {
        out[d] = (uint)get_local_size(d);
        out[3 + d] = (uint)get_num_groups(d);
    }
    out[6] = get_work_dim();
}

/* out[i] = maybe ? maybe[i] : -1, so a NULL pointer argument is legal for this kernel. */
kernel void krt_optional(global int *out, global const int *maybe, uint n)
{
    size_t i = get_global_id(0);
    if (i >= n)
        return;
    out[i] = maybe ? maybe[i] : -1;
}

/* Sum of each group's items through a __local scratch argument of one int per work-item. */
kernel void krt_group_sum(global const int *in, global int *out, local int *scratch, uint n)
{
    size_t i = get_global_id(0);
    size_t l = get_local_id(0);
    size_t ls = get_local_size(0);
    scratch[l] = i < n ? in[i] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) {
        int s = 0;
        for (size_t k = 0; k < ls; k++)
            s += scratch[k];
        out[get_group_id(0)] = s;
    }
}

/* out[i] = table[i % 16] + i, reading a __constant argument. */
kernel void krt_const_add(global int *out, constant int *table, uint n)
{
    size_t i = get_global_id(0);
    if (i >= n)
        return;
    out[i] = table[i % 16] + (int)i;
}

typedef struct {
    int a;
    float b;
    long c;
    int d[3];
} krt_params;

/* Copies a struct passed by value out to memory. */
kernel void krt_struct(global long *out, krt_params p)
{
    if (get_global_id(0) != 0)
        return;
    out[0] = p.a;
    out[1] = (long)p.b;
    out[2] = p.c;
    out[3] = p.d[0];
    out[4] = p.d[1];
    out[5] = p.d[2];
}

/* Uses a static __local tile, so the kernel has local memory of its own. */
kernel void krt_local_tile(global int *out, uint n)
{
    KRT_LOCAL(int, tile, [128]);
    size_t l = get_local_id(0);
    size_t i = get_global_id(0);
    tile[l % 128] = (int)i;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i < n)
        out[i] = tile[l % 128];
}

/* Must run with groups of exactly 64: each item writes the group size it saw. */
__attribute__((reqd_work_group_size(64, 1, 1)))
kernel void krt_reqd64(global uint *out, uint n)
{
    size_t i = get_global_id(0);
    if (i >= n)
        return;
    out[i] = (uint)get_local_size(0);
}

/* A 2-D required size. */
__attribute__((reqd_work_group_size(16, 2, 1)))
kernel void krt_reqd16x2(global uint *out, uint nx, uint ny)
{
    size_t x = get_global_id(0), y = get_global_id(1);
    if (x >= nx || y >= ny)
        return;
    out[x + nx * y] = (uint)(get_local_size(0) * 100 + get_local_size(1));
}

/* A size hint only: krt may choose any size. */
__attribute__((work_group_size_hint(32, 1, 1)))
kernel void krt_hint32(global uint *out, uint n)
{
    size_t i = get_global_id(0);
    if (i >= n)
        return;
    out[i] = (uint)i * 3u;
}

/* Spins for a while before writing, so that a consumer on another queue that does not wait would likely
 * read stale data. */
kernel void krt_slow_fill(global int *buf, int value, uint n, uint spin)
{
    size_t i = get_global_id(0);
    if (i >= n)
        return;
    volatile uint acc = 0;
    for (uint k = 0; k < spin; k++)
        acc += k;
    buf[i] = value + (int)(acc & 0u);
}

/* out[i] = 2 * in[i]. */
kernel void krt_double(global const int *in, global int *out, uint n)
{
    size_t i = get_global_id(0);
    if (i >= n)
        return;
    out[i] = 2 * in[i];
}
