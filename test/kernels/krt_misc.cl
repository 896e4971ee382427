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
