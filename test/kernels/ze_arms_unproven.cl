// Barriers in both arms of a branch that nothing shows the whole group reaches (test_ze_groups.c,
// arms_the_group_need_not_reach_run_or_are_refused): legal as launched (sync is 0, so no work-item reaches a
// barrier and the condition may differ between work-items), and ze_cuda runs it; ze_pocl cannot prove that a
// barrier added between the arms would be reached by every work-item, so it refuses the kernel by name rather than
// leave the branch to PoCL 3.1, which runs barriers in two arms wrongly.
kernel void arms_unproven(global const int *in, global int *out, int sync) {
    size_t i = get_global_id(0);
    int x = in[i];
    if (get_local_id(0) & 1) {
        if (sync) barrier(CLK_LOCAL_MEM_FENCE);
        out[i] = 3 * x;
    } else {
        if (sync) barrier(CLK_LOCAL_MEM_FENCE);
        out[i] = 5 * x;
    }
}
