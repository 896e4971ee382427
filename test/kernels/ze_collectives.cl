// Work-group collectives (OpenCL C 3.0 with __opencl_c_work_group_collective_functions; test_ze_groups.c): each
// work-item writes what it got at its linear global id, in 1-, 2- and 3-D ranges with partial groups. Built with
// -cl-std=CL3.0 (kernels.mk).

// Reductions and scans of add, min and max: 9 values per work-item, in the order reduce, inclusive scan,
// exclusive scan, each of add, min, max.
#define ARITH(T)                                                                                                   \
    kernel void wg_arith_##T(global const T *in, global T *out) {                                                 \
        size_t i = get_global_linear_id();                                                                        \
        T x = in[i];                                                                                               \
        global T *o = out + i * 9;                                                                                 \
        o[0] = work_group_reduce_add(x);                                                                          \
        o[1] = work_group_reduce_min(x);                                                                          \
        o[2] = work_group_reduce_max(x);                                                                          \
        o[3] = work_group_scan_inclusive_add(x);                                                                  \
        o[4] = work_group_scan_inclusive_min(x);                                                                  \
        o[5] = work_group_scan_inclusive_max(x);                                                                  \
        o[6] = work_group_scan_exclusive_add(x);                                                                  \
        o[7] = work_group_scan_exclusive_min(x);                                                                  \
        o[8] = work_group_scan_exclusive_max(x);                                                                  \
    }
ARITH(int)
ARITH(uint)
ARITH(long)
ARITH(ulong)
ARITH(float)
ARITH(double)

// Votes and broadcasts: 4 words per work-item. The broadcast source is the group's first and last work-item,
// named with as many local ids as the kernel's range has dimensions (one kernel per count: PoCL 3.1 runs barriers
// in both arms of an if wrongly, so the choice is not made in the kernel).
#define MISC(DIMS, FIRST, LAST)                                                                                    \
    kernel void wg_misc_##DIMS(global const int *in, global int *out) {                                          \
        size_t i = get_global_linear_id();                                                                        \
        int x = in[i];                                                                                             \
        global int *o = out + i * 4;                                                                               \
        o[0] = work_group_all(x > -45) ? 1 : 0;                                                                    \
        o[1] = work_group_any(x > 45) ? 1 : 0;                                                                     \
        size_t lx = get_local_size(0) - 1, ly = get_local_size(1) - 1, lz = get_local_size(2) - 1;                 \
        (void)ly;                                                                                                  \
        (void)lz;                                                                                                  \
        o[2] = work_group_broadcast FIRST;                                                                         \
        o[3] = work_group_broadcast LAST;                                                                          \
    }
MISC(1, (x, 0), (x, lx))
MISC(2, (x, 0, 0), (x, lx, ly))
MISC(3, (x, 0, 0, 0), (x, lx, ly, lz))
