// Float atomics (cl_ext_float_atomics, SPIR-V's SPV_EXT_shader_atomic_float_add and _min_max; test_ze_groups.c):
// add, min and max on float and double in global memory and add on float in local memory. Built with
// -cl-std=CL3.0 and the two SPIR-V extensions enabled (kernels.mk: krt-cc enables no SPIR-V extension).

// g[0..2] add, min, max of every value; d[0..2] the same in double; sums[group] the group's sum taken in local
// memory. Every value is a multiple of 1/4 of magnitude at most 25, so every sum is exact in any order.
kernel void float_atomics(global float *g, global double *d, global float *sums, local float *l) {
    size_t i = get_global_id(0);
    float v = (float)((int)((i * 37 + 11) % 101) - 50) * 0.25f;
    atomic_fetch_add((volatile global atomic_float *)&g[0], v);
    atomic_fetch_min((volatile global atomic_float *)&g[1], v);
    atomic_fetch_max((volatile global atomic_float *)&g[2], v);
    atomic_fetch_add((volatile global atomic_double *)&d[0], (double)v);
    atomic_fetch_min((volatile global atomic_double *)&d[1], (double)v);
    atomic_fetch_max((volatile global atomic_double *)&d[2], (double)v);
    if (get_local_id(0) == 0) l[0] = 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_fetch_add((volatile local atomic_float *)l, v);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) sums[get_group_id(0)] = l[0];
}
