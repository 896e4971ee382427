/* Arguments the host device's C kernels do not take (vectors, half, a struct by value): the Python package's tests
 * run these on ze_pocl (test/python/test_package.py). */
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef struct { int a; float b; } krt_py_pair;

kernel void krt_py_other(global float *out, float4 v, half h, krt_py_pair p, char2 c2, float3 v3, uchar b)
{
    if (get_global_id(0) != 0)
        return;
    out[0] = v.x;
    out[1] = v.y;
    out[2] = v.z;
    out[3] = v.w;
    out[4] = (float)h;
    out[5] = (float)p.a;
    out[6] = p.b;
    out[7] = (float)c2.x;
    out[8] = (float)c2.y;
    out[9] = v3.x + v3.y + v3.z;
    out[10] = (float)b;
}

/* Vector and half pointees, for the dtype checks: out[i] is the sum of v[i]'s four lanes plus h[i]. */
kernel void krt_py_vec_ptrs(global float *out, global const float4 *v, global const half *h)
{
    size_t i = get_global_id(0);
    float4 x = v[i];
    out[i] = x.x + x.y + x.z + x.w + (float)h[i];
}
