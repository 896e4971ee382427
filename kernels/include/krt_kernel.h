/*
 * krt_kernel.h: kernel-side helpers for krt's launch contract (OpenCL C).
 *
 * krt runs every launch exactly over its range, with OpenCL 2.0's non-uniform work-groups: the kernel body runs
 * for exactly the range's work-items, whatever the group size, and the last group of a dimension is partial when
 * the range is not a multiple of the group (get_local_size(d) is its real size there,
 * get_enqueued_local_size(d) the group's). A kernel needs no guard. The helpers below are optional: they are
 * for kernels whose caller pads the range to whole groups (a tiled kernel in which every item of a group loads
 * one element of a tile), and for code shared with runtimes that do not run exact ranges. Such a kernel takes
 * the range as arguments and returns early past it (a guard is harmless on an exact launch):
 *
 *     __kernel void scale(__global float *x, float a, uint n)
 *     {
 *         KRT_GUARD_1D(i, n);   // declares size_t i = get_global_id(0); returns when i >= n
 *         x[i] *= a;
 *     }
 *
 * Work-items that return early must not take part in a barrier(): a kernel that uses barriers over a padded
 * range keeps every work-item alive until the last barrier and guards only its memory accesses, with
 * krt_in_range_*().
 *
 * Single-source kernels: compiled as C11 with -DKRT_HOST (`krt-cc --host`), this header includes
 * krt_kernel_host.h, which makes the same file an ordinary shared library for krt's host device (see
 * docs/single-source.md for what a kernel can use there). A group-shared array inside a kernel is declared
 * `__local float tile[16];` at the start of a statement (krt-cc --host makes it one copy per work-group in C)
 * or, equivalently, with KRT_LOCAL below.
 */
#ifndef KRT_KERNEL_H
#define KRT_KERNEL_H

#ifdef KRT_HOST
#include "krt_kernel_host.h"
#endif

/* The helpers are forced inline: kernels are compiled at -O0, where clang marks every other function
 * noinline, and a non-inlined function that calls get_global_id() fails to link in PoCL's work-group code
 * ("undefined symbol: _group_id_x") when the module reaches it through SPIR-V. */
#define KRT_KERNEL_HELPER static inline __attribute__((always_inline))

/* 1 when this work-item lies inside an n-item 1-D range. */
KRT_KERNEL_HELPER int krt_in_range_1d(ulong n)
{
    return get_global_id(0) < n;
}

/* 1 when this work-item lies inside an nx by ny range. */
KRT_KERNEL_HELPER int krt_in_range_2d(ulong nx, ulong ny)
{
    return get_global_id(0) < nx && get_global_id(1) < ny;
}

/* 1 when this work-item lies inside an nx by ny by nz range. */
KRT_KERNEL_HELPER int krt_in_range_3d(ulong nx, ulong ny, ulong nz)
{
    return get_global_id(0) < nx && get_global_id(1) < ny && get_global_id(2) < nz;
}

/* Row-major linear index of a 2-D / 3-D work-item within its range (x fastest). */
KRT_KERNEL_HELPER ulong krt_linear_2d(ulong nx)
{
    return get_global_id(1) * nx + get_global_id(0);
}

KRT_KERNEL_HELPER ulong krt_linear_3d(ulong nx, ulong ny)
{
    return (get_global_id(2) * ny + get_global_id(1)) * nx + get_global_id(0);
}

/* Declare the global index (or indices) and return for work-items past the end of the range. */
#define KRT_GUARD_1D(i, n)                                                                                    \
    size_t i = get_global_id(0);                                                                              \
    if (i >= (size_t)(n))                                                                                     \
        return

#define KRT_GUARD_2D(x, y, nx, ny)                                                                            \
    size_t x = get_global_id(0), y = get_global_id(1);                                                       \
    if (x >= (size_t)(nx) || y >= (size_t)(ny))                                                               \
        return

#define KRT_GUARD_3D(x, y, z, nx, ny, nz)                                                                     \
    size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);                                 \
    if (x >= (size_t)(nx) || y >= (size_t)(ny) || z >= (size_t)(nz))                                         \
        return

/* A group-shared array declared inside a kernel, e.g. KRT_LOCAL(float, tile, [16][16]);
 * OpenCL C: `__local float tile[16][16]`, one copy per work-group.
 * C (KRT_HOST): `static _Thread_local float tile[16][16]`: the host device runs all work-items of a group on one
 * thread and one group at a time per thread, so a thread's copy is the group's. (`__local` itself is empty in
 * C, because it also qualifies pointer parameters, which must stay plain pointers.) */
#ifdef KRT_HOST
#define KRT_LOCAL(type, name, dims) static _Thread_local type name dims
#else
#define KRT_LOCAL(type, name, dims) __local type name dims
#endif

/* KRT_ANY_GROUP(kernel); at file scope, after or before the kernel: the kernel's result does not depend on its group
 * size (a histogram whose __local bins every work-item adds to, a reduction that reads get_local_size). A kernel
 * that keeps kernel-scope __local memory across barriers gets a group from krt only with this mark (or a
 * reqd_work_group_size, or the caller's krt_kernel_set_any_group): a tile sized for 16 x 16 items is right for one
 * group only, and nothing in the compiled kernel tells the two apart (docs/design.md, "Groups krt does not
 * choose"). It declares a constant of that name, which krt's reflection reads from the SPIR-V; in C (KRT_HOST) an
 * unused one. */
#ifdef KRT_HOST
#define KRT_ANY_GROUP(kernel) static const char krt_any_group__##kernel __attribute__((unused)) = 1
#else
#define KRT_ANY_GROUP(kernel) __constant char krt_any_group__##kernel = 1
#endif

#endif /* KRT_KERNEL_H */
