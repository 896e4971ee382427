// Work-group collectives in both arms of an if whose condition every work-item shares (test_ze_groups.c): ze_cuda
// runs it; ze_pocl refuses it by name, since PoCL 3.1 runs barriers in both arms of a branch wrongly (every
// work-item took the else arm). Built with -cl-std=CL3.0 (kernels.mk).
kernel void collectives_branch(global const int *in, global int *out, int pick) {
    size_t i = get_global_id(0);
    int x = in[i];
    if (pick) {
        out[i * 2] = work_group_reduce_add(x);
        out[i * 2 + 1] = work_group_scan_inclusive_max(x);
    } else {
        out[i * 2] = work_group_reduce_min(x);
        out[i * 2 + 1] = work_group_scan_exclusive_add(x);
    }
}
