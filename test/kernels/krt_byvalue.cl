/* Arguments by value of every kind a kernel may take (test_host.c, arguments_by_value_*): half, vectors, a
 * size_t-like typedef, and structs declared in this file whose layouts mix char, short, int, long, float, double,
 * half, an array, a nested struct, a vector and the padding between them. C passes each by its own rules (x86-64:
 * pair_t in one integer register, wide_t in two SSE registers, params_t in memory), which the host device's group
 * runner (native ABI 4) must meet exactly. test_host.c declares the same structs and computes every result in C,
 * and runs these kernels on ze_pocl too, so the C references and layouts are those of OpenCL C. Vector components
 * are written v[k], which both OpenCL C and C accept. */
#include "krt_kernel.h"

#pragma OPENCL EXTENSION cl_khr_fp16 : enable

typedef ulong count_t; /* a size_t-like typedef of the kernels' own */

typedef struct {
    float x;
    int y;
} pair_t; /* 8 bytes: a float and an int in one eightbyte */

typedef struct {
    double a;
    float b;
} wide_t; /* 16 bytes: two floating-point eightbytes */

typedef struct {
    short s;
    char tag; /* then 5 bytes of padding */
    long l;
} inner_t; /* 16 bytes, aligned to 8 */

typedef struct {
    char c;      /* 0, then 3 bytes of padding */
    float f;     /* 4 */
    double d;    /* 8 */
    int i;       /* 16, then 4 bytes of padding */
    inner_t in;  /* 24: nested */
    float arr[3]; /* 40 */
    uchar u;     /* 52, then 1 byte of padding */
    half h;      /* 54, then 8 bytes of padding */
    float4 v;    /* 64: aligned to 16 */
} params_t;      /* 80 bytes */

/* Work-item 0 writes every member of every argument, converted to double, into out[0 ..]; the others write
 * nothing, so a member read from the wrong bytes shows as itself. */
kernel void byvalue_members(global double *out, pair_t p, wide_t w, params_t q, half h, float4 v4, int2 i2,
                            count_t n)
{
    if (get_global_id(0) != 0)
        return;
    out[0] = p.x;
    out[1] = p.y;
    out[2] = w.a;
    out[3] = w.b;
    out[4] = q.c;
    out[5] = q.f;
    out[6] = q.d;
    out[7] = q.i;
    out[8] = q.in.s;
    out[9] = q.in.tag;
    out[10] = q.in.l;
    out[11] = q.arr[0];
    out[12] = q.arr[1];
    out[13] = q.arr[2];
    out[14] = q.u;
    out[15] = (float)q.h;
    out[16] = q.v[0];
    out[17] = q.v[1];
    out[18] = q.v[2];
    out[19] = q.v[3];
    out[20] = (float)h;
    out[21] = v4[0] + 10.0f * v4[3];
    out[22] = i2[0] - 1000 * i2[1];
    out[23] = (double)n;
}

/* Every work-item reads the struct arguments (invariant in the group runner's loop, which vectorizes over them). */
kernel void byvalue_affine(global const float *x, global float *y, pair_t p, params_t q, count_t n)
{
    size_t i = get_global_id(0);
    if (i < n)
        y[i] = x[i] * q.f + (float)q.d + p.x + q.arr[i % 3] + q.v[i % 4] + (float)q.h + (float)q.in.tag;
}

/* Vectors by value, 8 to 128 bytes (a 3-vector takes the room of 4). */
kernel void byvalue_vectors(global float4 *y, global const float4 *x, float4 a, float8 b, double2 c, uchar16 d,
                            int3 e, double16 f, count_t n)
{
    size_t i = get_global_id(0);
    if (i < n)
        y[i] = a * x[i] + (float4){ b[0] + b[7], (float)c[1], (float)d[15] + (float)e[2], (float)(f[0] + f[15]) };
}

/* half by value: dst[i] = src[i] * k, rounded to half. */
kernel void byvalue_half(global const half *src, global half *dst, half k, count_t n)
{
    size_t i = get_global_id(0);
    if (i < n)
        dst[i] = src[i] * k;
}

/* A struct beside a __local argument in a kernel with a barrier: the group's sum of x[i] * p.x in work-item order,
 * plus p.y, per group. */
kernel void byvalue_group_sum(global const float *x, global float *sums, local float *scratch, pair_t p)
{
    size_t l = get_local_id(0);
    scratch[l] = x[get_global_id(0)] * p.x;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) {
        float s = 0.0f;
        for (size_t k = 0; k < get_local_size(0); k++)
            s += scratch[k];
        sums[get_group_id(0)] = s + (float)p.y;
    }
}
