/* Built-in functions of krt_kernel.h's C side (docs/single-source.md), in a kernel built both ways: as SPIR-V
 * like every test kernel, and as a native library (build/test-kernels/host/) that test/host/test_host_kernels.c
 * runs through the native kernel ABI. Work-item i writes row i of out (ROW values), each a function of i that
 * the test computes on its own. Vector components are written v[k], which both OpenCL C and C accept. */
#include "krt_kernel.h"

#define ROW 32

__kernel void krt_ss_builtins(__global long *out, __global const int *in, __global uint *counters,
                              __global int *minmax, __global float *fout, uint n)
{
    KRT_GUARD_1D(i, n);
    __global long *o = out + i * ROW;
    int v = in[i];
    /* Work-item functions, including a dimension past work_dim (1 here): 0 for ids, 1 for sizes. */
    o[0] = (long)get_global_id(0);
    o[1] = (long)get_local_id(0) + 1000 * (long)get_group_id(0);
    o[2] = (long)get_global_size(0) + 1000 * (long)get_local_size(0);
    o[3] = (long)get_num_groups(0) + 1000 * (long)get_work_dim();
    o[4] = (long)get_global_id(1) + (long)get_local_id(2) + (long)get_group_id(1);
    o[5] = (long)get_global_size(2) + (long)get_local_size(1) + (long)get_num_groups(2);
    o[6] = (long)get_global_offset(0);
    /* Scalar overloads. */
    o[7] = min(v, 7);
    o[8] = max(v, -7);
    o[9] = clamp(v, -5, 5);
    o[10] = (long)min((uint)i, 3u);
    o[11] = (long)abs(v);
    o[12] = (long)(clamp((float)v * 0.5f, -1.5f, 2.5f) * 4.0f);
    o[13] = (long)(mad((float)v, 2.0f, 1.0f));
    o[14] = (long)(sqrt((float)(i * i)) + 0.5f);
    o[15] = (long)as_uint((float)v);
    o[16] = (long)convert_int((float)v * 1.75f);
    o[17] = (long)popcount((uint)i);
    /* Vectors: arithmetic, components by index, vload/vstore, conversion. */
    int4 a = vload4(0, in + (i & ~3u));
    int4 b = a * 2 + (int4){ 1, 2, 3, 4 };
    o[18] = b[0] + 10 * b[3];
    float4 f = convert_float4(b);
    vstore4(f * 0.5f, i, fout);
    o[19] = (long)(f[1] + f[2]);
    /* Atomics, on memory every work-item shares; each returns the old value, which a test cannot predict
     * across threads, so only the final values are checked. */
    atomic_inc(&counters[0]);
    atomic_add(&counters[1], (uint)i);
    atomic_sub(&counters[2], 1u);
    atomic_or(&counters[3], 1u << (i % 32));
    atomic_xor(&counters[4], (uint)i);
    atomic_min(&minmax[0], v);
    atomic_max(&minmax[1], v);
    /* cmpxchg and xchg on a per-item slot: their return values are predictable there. */
    o[20] = atomic_cmpxchg(&minmax[2 + i], 0, v);   /* was 0: returns 0, stores v */
    o[21] = atomic_cmpxchg(&minmax[2 + i], 12345, 1); /* not 12345: returns v, stores nothing */
    o[22] = atomic_xchg(&minmax[2 + i], v + 1);      /* returns v, stores v + 1 */
    o[23] = atom_add(&minmax[2 + i], 1);             /* returns v + 1, stores v + 2 */
}
