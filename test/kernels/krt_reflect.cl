/* Signatures for the reflection tests. This module is built with parameter names kept (see test/test.mk),
 * so that OpName carries them. */

typedef struct {
    int a;
    float b;
    long c;
    int d[3];
} krt_params;

kernel void krt_args(global float *gf, constant int *ci, local float *lf, char c, short s, int i, long l,
                     float f, double d, float4 v4, int2 i2, krt_params p, uchar uc, ulong ul, global uint *gu)
{
    if (get_global_id(0) != 0)
        return;
    lf[0] = f;
    gu[0] = (uint)(ci[0] + c + s + i + (int)l + (int)d + (int)v4.x + i2.y + p.a + uc + (uint)ul);
    gf[0] = lf[0];
}

kernel void krt_noargs(void)
{
}

__attribute__((reqd_work_group_size(8, 4, 2)))
kernel void krt_reqd842(global int *out)
{
    out[get_global_id(0)] = 1;
}

__attribute__((work_group_size_hint(128, 2, 1)))
kernel void krt_hint128x2(global int *out)
{
    out[get_global_id(0)] = 2;
}

/* OpenCL's 3-component vectors take the room of 4 components. */
kernel void krt_vectors(global float *out, float3 v3, char2 c2, short8 s8)
{
    out[0] = v3.z + c2.y + s8.s7;
}

/* A pointer to a struct: a global pointer whose pointee is not a scalar. */
kernel void krt_struct_ptr(global const krt_params *p, global long *out)
{
    if (get_global_id(0) != 0)
        return;
    out[0] = p->a + p->c + p->d[2];
}
