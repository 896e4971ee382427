/* group_sum8: one level of the tree reduction dpnp.tensor's sum launches (docs/sycl.md, "The allocation path and the
 * sum"): each group of wg work-items reads wg * 8 consecutive elements, work-item lid the elements lid, lid + wg, ...,
 * lid + 7 wg of its group's block (guarded by n), reduces over the group (work_group_reduce_add) and its first
 * work-item writes the group's partial sum. bench/cuda/group_sum.cu runs the levels through krt on ze_cuda beside
 * the same algorithm in CUDA and CUB's DeviceReduce::Sum (what CuPy's sum runs). OpenCL C 3.0, krt-cc's default. */
/* A work-item's share of its group's block: the elements lid, lid + wg, ..., lid + 7 wg of the block of wg * 8, those
 * below n, added. */
static float item_sum8(global const float *x, ulong n) {
    size_t lid = get_local_id(0), wg = get_local_size(0);
    size_t base = get_group_id(0) * wg * 8 + lid;
    float acc = 0.0f;
    for (int m = 0; m < 8; m++) {
        size_t i = base + (size_t)m * wg;
        if (i < n) acc += x[i];
    }
    return acc;
}

kernel void group_sum8(global const float *x, global float *partial, ulong n) {
    float acc = work_group_reduce_add(item_sum8(x, n));
    if (get_local_id(0) == 0) partial[get_group_id(0)] = acc;
}

/* group_sum8_sg: the same level with the group reduction written out as the CUDA twin does it (a sub-group
 * reduction, one local word per sub-group, one barrier, the first sub-group reduces those): what
 * work_group_reduce_add's lowering costs beyond it. */
kernel void group_sum8_sg(global const float *x, global float *partial, ulong n) {
    local float sg_sums[32];
    float acc = sub_group_reduce_add(item_sum8(x, n));
    if (get_sub_group_local_id() == 0) sg_sums[get_sub_group_id()] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_sub_group_id() == 0) {
        acc = get_sub_group_local_id() < get_num_sub_groups() ? sg_sums[get_sub_group_local_id()] : 0.0f;
        acc = sub_group_reduce_add(acc);
        if (get_local_id(0) == 0) partial[get_group_id(0)] = acc;
    }
}
