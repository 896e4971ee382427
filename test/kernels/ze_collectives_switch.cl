// Work-group collectives in the cases of a switch (test_ze_groups.c, collectives_in_arms_*): ze_cuda runs it;
// ze_pocl cannot make a switch ifs in sequence and refuses the kernel by name (PoCL 3.1 runs barriers in two arms
// of a branch wrongly).
kernel void collectives_switch(global const int *in, global int *out, int pick) {
    size_t i = get_global_id(0);
    int x = in[i];
    switch (pick) {
    case 0: out[i] = work_group_reduce_add(x); break;
    case 1: out[i] = work_group_reduce_max(x); break;
    case 2: out[i] = work_group_reduce_min(x); break;
    case 5: out[i] = work_group_scan_inclusive_add(x); break;
    default: out[i] = work_group_scan_exclusive_add(x); break;
    }
}
