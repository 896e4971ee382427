/* A module of ten small, different kernels: what the module-load benchmark builds, validates and reflects.
 * The bodies differ so that no compiler merges them; what they compute does not matter. */

kernel void t0_copy(global float *y, global const float *x, uint n)
{
    size_t i = get_global_id(0);
    if (i < n)
        y[i] = x[i];
}

kernel void t1_scale(global float *y, float a, uint n)
{
    size_t i = get_global_id(0);
    if (i < n)
        y[i] *= a;
}

kernel void t2_axpy(global float *y, global const float *x, float a, uint n)
{
    size_t i = get_global_id(0);
    if (i < n)
        y[i] += a * x[i];
}

kernel void t3_iota(global int *y, int start, uint n)
{
    size_t i = get_global_id(0);
    if (i < n)
        y[i] = start + (int)i;
}

kernel void t4_square(global double *y, uint n)
{
    size_t i = get_global_id(0);
    if (i < n)
        y[i] = y[i] * y[i];
}

kernel void t5_clamp(global float *y, float lo, float hi, uint n)
{
    size_t i = get_global_id(0);
    if (i < n)
        y[i] = clamp(y[i], lo, hi);
}

kernel void t6_sum2d(global float *y, global const float *x, uint w, uint h)
{
    size_t i = get_global_id(0), j = get_global_id(1);
    if (i < w && j < h)
        y[j * w + i] += x[j * w + i];
}

kernel void t7_partial_sum(global const float *x, global float *out, local float *tmp, uint n)
{
    size_t i = get_global_id(0), l = get_local_id(0);
    tmp[l] = i < n ? x[i] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = get_local_size(0) / 2; s > 0; s /= 2) {
        if (l < s)
            tmp[l] += tmp[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        out[get_group_id(0)] = tmp[0];
}

kernel void t8_count(global const int *x, volatile global int *count, int v, uint n)
{
    size_t i = get_global_id(0);
    if (i < n && x[i] == v)
        atomic_inc(count);
}

typedef struct { float scale; float offset; uint n; } t9_params;

kernel void t9_affine(global float *y, t9_params p)
{
    size_t i = get_global_id(0);
    if (i < p.n)
        y[i] = p.scale * y[i] + p.offset;
}
