/* One scalar of each C type a kernel argument can have, for the typed-argument checks (test/test_porting.c):
 * out[k] receives argument k + 1 widened to 64 bits (floats as their bits), so a test sees each value arrive
 * unchanged. Built with parameter names kept (test/test.mk), which the mismatch messages name. */
kernel void krt_typed(global ulong *out, char c, uchar uc, short s, ushort us, int i, uint ui, long l, ulong ul,
                      float f, double d)
{
    if (get_global_id(0) != 0)
        return;
    out[0] = (ulong)(long)c;
    out[1] = (ulong)uc;
    out[2] = (ulong)(long)s;
    out[3] = (ulong)us;
    out[4] = (ulong)(long)i;
    out[5] = (ulong)ui;
    out[6] = (ulong)l;
    out[7] = ul;
    out[8] = (ulong)as_uint(f);
    out[9] = as_ulong(d);
}

/* A vector, a half and a struct by value: no typed C scalar matches these. */
typedef struct { int a; float b; } krt_typed_pair;
kernel void krt_typed_other(global float *out, float4 v, krt_typed_pair p)
{
    if (get_global_id(0) != 0)
        return;
    out[0] = v.x + v.y + v.z + v.w;
    out[1] = (float)p.a + p.b;
}

/* y[i] += a * x[i] for i < n, the classic mixed int/float signature. */
kernel void krt_typed_axpy(global float *y, global const float *x, float a, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    y[i] += a * x[i];
}
