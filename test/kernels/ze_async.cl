// Kept apart from ze_builtins.cl so a problem with these builtins cannot hide the others.

// async_work_group_copy into local memory, then a local atomic count per group.
kernel void async_copy(global const int *in, global int *out, local int *tile, global int *counts)
{
    local int count;
    size_t n = get_local_size(0), g = get_group_id(0), lid = get_local_id(0);
    if (lid == 0)
        count = 0;
    event_t e = async_work_group_copy(tile, in + g * n, n, 0);
    wait_group_events(1, &e);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tile[n - 1 - lid] * 2;
    if (tile[lid] % 3 == 0)
        atomic_inc(&count);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0)
        counts[g] = count;
}
