// Sub-groups (OpenCL C 3.0 with __opencl_c_subgroups and the cl_khr_subgroup_* extensions; test_ze_groups.c):
// every built-in variable and every sub-group function, each work-item writing what it got at its linear global
// id, so the test can compare it with what the device's sub-group size makes of the launch. Built with
// -cl-std=CL3.0 (kernels.mk).

// The built-in variables, and the linear local id for reference: 8 words per work-item.
kernel void sg_vars(global uint *out) {
    global uint *o = out + get_global_linear_id() * 8;
    o[0] = get_sub_group_size();
    o[1] = get_max_sub_group_size();
    o[2] = get_num_sub_groups();
    o[3] = get_enqueued_num_sub_groups();
    o[4] = get_sub_group_id();
    o[5] = get_sub_group_local_id();
    o[6] = (uint)get_local_linear_id();
    o[7] = 0xc0ffee;
}

// Reductions and scans of add, min and max (cl_khr_subgroups): 9 values per work-item, in the order reduce,
// inclusive scan, exclusive scan, each of add, min, max.
#define ARITH(T)                                                                                                   \
    kernel void sg_arith_##T(global const T *in, global T *out) {                                                 \
        size_t i = get_global_linear_id();                                                                        \
        T x = in[i];                                                                                               \
        global T *o = out + i * 9;                                                                                 \
        o[0] = sub_group_reduce_add(x);                                                                           \
        o[1] = sub_group_reduce_min(x);                                                                           \
        o[2] = sub_group_reduce_max(x);                                                                           \
        o[3] = sub_group_scan_inclusive_add(x);                                                                   \
        o[4] = sub_group_scan_inclusive_min(x);                                                                   \
        o[5] = sub_group_scan_inclusive_max(x);                                                                   \
        o[6] = sub_group_scan_exclusive_add(x);                                                                   \
        o[7] = sub_group_scan_exclusive_min(x);                                                                   \
        o[8] = sub_group_scan_exclusive_max(x);                                                                   \
    }
ARITH(int)
ARITH(uint)
ARITH(long)
ARITH(ulong)
ARITH(float)
ARITH(double)

// Everything else on ints: broadcasts, votes, shuffles, ballots, non-uniform arithmetic, clustered reductions,
// and a sub-group barrier over __local memory. SG_MISC words per work-item (test_ze_groups.c names
// each). buf holds one int per work-item of the group.
#define SG_MISC 32
kernel void sg_misc(global const int *in, global int *out, local int *buf) {
    size_t i = get_global_linear_id();
    int x = in[i];
    uint lane = get_sub_group_local_id(), n = get_sub_group_size();
    global int *o = out + i * SG_MISC;
    o[0] = sub_group_broadcast(x, 0);
    o[1] = sub_group_broadcast(x, n - 1);
    o[2] = sub_group_any(x > 40) ? 1 : 0;
    o[3] = sub_group_all(x > -45) ? 1 : 0;
    o[4] = sub_group_shuffle(x, (lane + 1) % n);
    o[5] = sub_group_shuffle_xor(x, 1);
    o[6] = sub_group_shuffle_up(x, 1);
    o[7] = sub_group_shuffle_down(x, 1);
    uint4 b = sub_group_ballot(x & 1);
    o[8] = (int)b.x;
    o[9] = (int)(b.y | b.z | b.w);
    o[10] = (int)sub_group_ballot_bit_count(b);
    o[11] = (int)sub_group_ballot_inclusive_scan(b);
    o[12] = (int)sub_group_ballot_exclusive_scan(b);
    o[13] = (int)sub_group_ballot_find_lsb(b);
    o[14] = (int)sub_group_ballot_find_msb(b);
    o[15] = sub_group_inverse_ballot(b) ? 1 : 0;
    o[16] = sub_group_ballot_bit_extract(b, 0) ? 1 : 0;
    o[17] = sub_group_elect() ? 1 : 0;
    // Non-uniform: only the work-items with an odd value take part.
    o[18] = o[19] = o[20] = o[21] = o[22] = o[23] = -1;
    if (x & 1) {
        o[18] = sub_group_non_uniform_reduce_add(x);
        o[19] = sub_group_non_uniform_scan_inclusive_mul(x % 3 + 2);
        o[20] = sub_group_non_uniform_reduce_xor(x);
        o[21] = sub_group_non_uniform_all(x > 0) ? 1 : 0;
        o[22] = sub_group_broadcast_first(x);
        o[23] = sub_group_non_uniform_scan_exclusive_add(x);
    }
    o[24] = sub_group_clustered_reduce_add(x, 1);
    o[25] = sub_group_clustered_reduce_max(x, 4);
    o[26] = sub_group_non_uniform_reduce_min(x);
    o[27] = sub_group_non_uniform_reduce_logical_or(x > 45) ? 1 : 0;
    int2 v = sub_group_broadcast((int2)(x, -2 * x), 0);
    o[28] = v.y;
    o[29] = (int)(sub_group_broadcast((long)x << 32, n - 1) >> 32);
    // A sub-group barrier orders the sub-group's __local writes: each work-item then reads its neighbour's.
    size_t l = get_local_linear_id();
    buf[l] = x * 3;
    sub_group_barrier(CLK_LOCAL_MEM_FENCE);
    o[30] = buf[l - lane + (lane + 1) % n];
    o[31] = sub_group_non_uniform_all_equal(x & 1) ? 1 : 0;
}
