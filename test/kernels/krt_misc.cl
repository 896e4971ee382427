/* Small kernels for ordering and configuration-state tests. */

/* out[i] = the group size item i ran with, in dimension 0. */
kernel void krt_lsize(global uint *out, uint n)
{
    size_t i = get_global_id(0);
    if (i >= n)
        return;
    out[i] = (uint)get_local_size(0);
}

/* data[i] += add. */
kernel void krt_add(global int *data, int add, uint n)
{
    size_t i = get_global_id(0);
    if (i >= n)
        return;
    data[i] += add;
}

typedef struct {
    int a;
    float b;
    long c;
    int d[3];
} krt_params;

/* Copies arguments of sizes 1, 2, 16 and 32 bytes out, so that a change in any byte of any of them shows. */
kernel void krt_echo(global long *out, char c, short s, float4 v, krt_params p, uchar tail)
{
    if (get_global_id(0) != 0)
        return;
    out[0] = c;
    out[1] = s;
    out[2] = (long)v.s0;
    out[3] = (long)v.s1;
    out[4] = (long)v.s2;
    out[5] = (long)v.s3;
    out[6] = p.a;
    out[7] = (long)p.b;
    out[8] = p.c;
    out[9] = p.d[0];
    out[10] = p.d[1];
    out[11] = p.d[2];
    out[12] = tail;
}
