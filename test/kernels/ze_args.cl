// Argument kinds beyond plain pointers and ints: vectors, small and over-aligned structs, many arguments,
// two local buffers. Each kernel writes back what it received so the host can compare exactly.

typedef struct {
    char a, b, c;
} small3;

typedef struct {
    float4 v;
    int k;
} aligned16;

kernel void vec_args(float4 v, int2 w, uchar c, small3 s, aligned16 al, global float *out)
{
    out[0] = v.x;
    out[1] = v.y;
    out[2] = v.z;
    out[3] = v.w;
    out[4] = (float)w.x;
    out[5] = (float)w.y;
    out[6] = (float)c;
    out[7] = (float)s.a;
    out[8] = (float)s.b;
    out[9] = (float)s.c;
    out[10] = al.v.x;
    out[11] = al.v.w;
    out[12] = (float)al.k;
}

kernel void many_args(global long *out, int a0, int a1, int a2, int a3, int a4, int a5, int a6, int a7,
                      long b0, long b1, long b2, long b3, short c0, char c1, float f0, double d0)
{
    out[0] = a0 + 2 * a1 + 3 * a2 + 4 * a3 + 5 * a4 + 6 * a5 + 7 * a6 + 8 * a7;
    out[1] = b0 ^ (b1 << 1) ^ (b2 << 2) ^ (b3 << 3);
    out[2] = c0 * 1000 + c1;
    out[3] = (long)(f0 * 8.0f) + (long)(d0 * 16.0);
}

// Two dynamically sized local buffers: each group fills both, then reads them back reversed.
kernel void two_locals(global int *out, local int *a, local float *b)
{
    size_t lid = get_local_id(0), n = get_local_size(0);
    a[lid] = (int)get_global_id(0);
    b[lid] = (float)lid * 0.5f;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = a[n - 1 - lid] * 10 + (int)(b[n - 1 - lid] * 2.0f);
}

// dpnp.tensor's masked extraction: a __local argument of min(n, group size) + 1 elements, read at lid + 1 and lid by
// every work-item of the group, even those past n, whose values are not used. Such a read past the argument's end
// is harmless on Intel GPUs, whose shared local memory comes in steps of 1 KiB or more; a driver must not fault on it.
// out[i] = counts[i + 1] - counts[i] for i < n.
kernel void reads_past_local(global const int *counts, global int *out, uint n, local int *lacc)
{
    size_t lid = get_local_id(0);
    for (size_t i = lid; i < min((size_t)n, get_local_size(0)) + 1; i += get_local_size(0))
        lacc[i] = counts[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    int next = lacc[lid + 1], here = lacc[lid];
    if (lid < n) out[lid] = next - here;
}

// Pointers stored in memory rather than passed as arguments: the kernel reaches allocations it was not
// given directly, which zeKernelSetIndirectAccess declares.
// OpenCL C forbids pointer-to-pointer parameters, so the addresses travel as integers.
kernel void indirect(global const ulong *ptrs, global int *out)
{
    size_t i = get_global_id(0);
    global const int *p = (global const int *)ptrs[i % 3];
    out[i] = p[i] + 1;
}
