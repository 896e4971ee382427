// Element-wise kernels with plain pointer and scalar arguments: the simplest launches the driver must run.

kernel void vadd(global const float *a, global const float *b, global float *c)
{
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}

// Adds k to every element below n; the bound lets a launch cover more items than the buffer holds.
kernel void add_scalar(global int *x, int k, uint n)
{
    size_t i = get_global_id(0);
    if (i < n)
        x[i] += k;
}

// Writes the index of each work-item, so a test can tell which items ran.
kernel void iota(global uint *out)
{
    size_t i = get_global_id(0);
    out[i] = (uint)i;
}
