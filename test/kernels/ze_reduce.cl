// Tree reductions inside a work-group: local memory shared by the group and barriers between the steps.
// Each group writes one partial sum; the group size must be a power of two.

kernel void reduce_sum(global const int *in, global int *partial, local int *scratch)
{
    size_t lid = get_local_id(0);
    size_t n = get_local_size(0);
    scratch[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = n / 2; s > 0; s /= 2) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}

// The same with a static local tile, so the kernel has a fixed local memory size of 256 bytes.
kernel void reduce_sum_static(global const int *in, global int *partial)
{
    local int tile[64];
    size_t lid = get_local_id(0);
    size_t n = get_local_size(0);
    tile[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = n / 2; s > 0; s /= 2) {
        if (lid < s)
            tile[lid] += tile[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = tile[0];
}
