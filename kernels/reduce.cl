/* Sum reductions with local memory and barriers, for float and int.
 *
 * Each work-group writes one partial sum to partial[group]. A first pass over n elements gives one partial
 * per group; a second pass of a single group reduces those partials to one value.
 *
 * Two rules shape the code:
 *  - Every work-item of a group must reach every barrier, so the work-items past the end of the range may not
 *    return early as in vadd: they take part with a neutral value (0) instead.
 *  - The group size is whatever krt chose, not necessarily a power of two, so the tree halves a size s into
 *    ceil(s / 2) and the odd element out waits for the next step.
 *
 * Each work-item first accumulates in[i], in[i + global size], ... so one group can reduce any n (the
 * second pass relies on that). scratch must hold one element per work-item of the group. */

__kernel void reduce_sum_f32(__global const float *in, __global float *partial, __local float *scratch, uint n)
{
    uint lid = get_local_id(0);
    uint stride = get_global_size(0);
    float acc = 0.0f;
    for (uint i = get_global_id(0); i < n; i += stride)
        acc += in[i];
    scratch[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = get_local_size(0); s > 1;) {
        uint upper = (s + 1) / 2;
        if (lid < s - upper)
            scratch[lid] += scratch[lid + upper];
        barrier(CLK_LOCAL_MEM_FENCE);
        s = upper;
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}

__kernel void reduce_sum_i32(__global const int *in, __global int *partial, __local int *scratch, uint n)
{
    uint lid = get_local_id(0);
    uint stride = get_global_size(0);
    int acc = 0;
    for (uint i = get_global_id(0); i < n; i += stride)
        acc += in[i];
    scratch[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = get_local_size(0); s > 1;) {
        uint upper = (s + 1) / 2;
        if (lid < s - upper)
            scratch[lid] += scratch[lid + upper];
        barrier(CLK_LOCAL_MEM_FENCE);
        s = upper;
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}
