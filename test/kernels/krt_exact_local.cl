/* A barrier kernel with static __local memory, apart from krt_exact.cl because the host device does not take
 * kernel-scope __local arrays yet (test_exact.c runs it on the Level Zero devices). */

/* The same with a static __local tile, a required group size and a tree reduction over the tile (slots past a
 * partial group's end hold 0): barriers, static local memory and reqd_work_group_size. */
kernel __attribute__((reqd_work_group_size(64, 1, 1))) void tile_sum(global const int *in, global int *sums)
{
    local int tile[64];
    size_t lid = get_local_id(0), n = get_local_size(0);
    tile[lid] = in[get_global_id(0)];
    for (size_t k = n; k < 64; k += n)
        if (lid + k < 64)
            tile[lid + k] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = 32; s > 0; s >>= 1) {
        if (lid < s)
            tile[lid] += tile[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        sums[get_group_id(0)] = tile[0];
}

