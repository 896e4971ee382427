// Barriers and work-group collectives in the arms of branches (test_ze_groups.c, collectives_in_arms_*): ze_cuda
// runs them as they are; PoCL 3.1 runs barriers in both arms of a branch wrongly (every work-item took the else
// arm), so ze_pocl makes each such if-else two ifs in sequence with a barrier between (driver/pocl/pocl_rewrites.cpp).

// An if-else whose condition every work-item shares.
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

// if, else if, else.
kernel void chain_arms(global const int *in, global int *out, int pick) {
    size_t i = get_global_id(0);
    int x = in[i];
    if (pick == 0)
        out[i] = work_group_reduce_add(x);
    else if (pick == 1)
        out[i] = work_group_reduce_max(x) + work_group_scan_inclusive_add(x);
    else
        out[i] = work_group_scan_exclusive_min(x);
}

// An if-else in an arm of another.
kernel void nested_arms(global const int *in, global int *out, int pick) {
    size_t i = get_global_id(0);
    int x = in[i];
    if (pick & 1) {
        if (pick & 2)
            out[i] = work_group_reduce_add(x);
        else
            out[i] = work_group_reduce_min(x);
    } else {
        out[i] = work_group_scan_inclusive_add(x) - work_group_reduce_max(x);
    }
}

// An if-else in a loop, its condition changing with the iteration.
kernel void arms_in_loop(global const int *in, global int *out, int pick, int rounds) {
    size_t i = get_global_id(0);
    int x = in[i], s = 0;
    for (int r = 0; r < rounds; r++) {
        if ((r + pick) & 1)
            s += work_group_reduce_add(x + r);
        else
            s -= work_group_reduce_max(x - r);
    }
    out[i] = s;
}

// Local memory and a barrier under an inner condition in each arm, after a barrier (the shape of dpnp's one-group
// radix sort): the barrier before the branch shows that the whole group reaches it.
kernel void arms_with_local(global const int *in, global int *out, int pick, int sync) {
    local int lm[64];
    size_t l = get_local_id(0), n = get_local_size(0);
    int x = in[get_global_id(0)], y;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (pick) {
        lm[l] = x;
        if (sync) barrier(CLK_LOCAL_MEM_FENCE);
        y = lm[n - 1 - l];
    } else {
        lm[l] = 2 * x;
        if (sync) barrier(CLK_LOCAL_MEM_FENCE);
        y = lm[(l + 1) % n];
    }
    out[get_global_id(0)] = y;
}

// A condition that differs between work-items, legal because no work-item reaches the arms' barriers (sync is 0);
// the barrier before the branch shows that the whole group reaches it.
kernel void divergent_arms(global const int *in, global int *out, int sync) {
    size_t i = get_global_id(0);
    int x = in[i];
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (get_local_id(0) & 1) {
        if (sync) barrier(CLK_LOCAL_MEM_FENCE);
        out[i] = 3 * x;
    } else {
        if (sync) barrier(CLK_LOCAL_MEM_FENCE);
        out[i] = 5 * x;
    }
}
