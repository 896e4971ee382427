/* warp_sum: a sum by sub-groups (warps on ze_cuda), the kernel of bench/cuda/warp_reduce.cu, which runs the same
 * algorithm written in CUDA beside it. Each work-item adds a grid-strided slice of x, its sub-group reduces the
 * slice sums (sub_group_reduce_add: warp shuffles), and the first work-item of each sub-group writes the partial
 * sum of its sub-group. OpenCL C 3.0 with sub-groups: krt-cc's default (tools/gpu-pack.sh builds it). */
kernel void warp_sum(global const float *x, global float *partial, uint n) {
    float acc = 0.0f;
    for (uint i = (uint)get_global_id(0); i < n; i += (uint)get_global_size(0)) acc += x[i];
    acc = sub_group_reduce_add(acc);
    if (get_sub_group_local_id() == 0) partial[get_global_id(0) / get_max_sub_group_size()] = acc;
}
