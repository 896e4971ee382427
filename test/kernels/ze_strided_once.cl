/* Strided loops that run at most once, around barriers: `for (b = lid; b < 1; b += get_local_size(0))` is
 * the loop over 256 bins of histogram_local with one bin. PoCL 3.1's optimizer split such a loop on "the step
 * is zero" into a copy that never exits, and its work-group builder then aborted the process at the first
 * launch; ze_pocl tells LLVM that group sizes and counts are never zero, so these build and run. */
__kernel void strided_once(__global uint *out)
{
    __local uint tile[1];
    uint lid = get_local_id(0);
    uint lsize = get_local_size(0);
    for (uint b = lid; b < 1; b += lsize)
        tile[b] = get_group_id(0) + 100;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tile[0] + lid;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = lid; b < 1; b += lsize)
        out[get_global_size(0) + get_group_id(0)] = tile[b] * 2;
}

/* The same over groups: one group's first work-item writes once. */
__kernel void strided_groups_once(__global uint *out)
{
    __local uint tile[1];
    uint lid = get_local_id(0);
    if (lid == 0)
        tile[0] = 7;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint g = get_group_id(0); g < 1; g += get_num_groups(0))
        out[lid] = tile[0] + lid;
}
