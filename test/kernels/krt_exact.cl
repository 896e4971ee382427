/* OpenCL C 2.0's work-item functions, which krt-cc's OpenCL C 1.2 does not declare (SPIR-V has them as builtin
 * variables; the host device's header defines them). */
#ifndef KRT_HOST
size_t __attribute__((overloadable)) get_enqueued_local_size(uint dimindx);
size_t __attribute__((overloadable)) get_global_linear_id(void);
size_t __attribute__((overloadable)) get_local_linear_id(void);
#endif

/* Kernels written to the OpenCL contract, with no guard of their own: they trust get_global_size to be the
 * range (test_exact.c launches them over ranges that no group divides, with sentinels past every buffer). */

kernel void inc(global int *a)
{
    a[get_global_id(0)] += 1;
}

/* A read-modify-write of a 2-D range that never reads dimension 1's id: run once per item of an n x 1 range. */
kernel void inc_rows(global int *a)
{
    a[get_global_id(1) * get_global_size(0) + get_global_id(0)] += 1;
}

kernel void inc3(global int *a)
{
    size_t i = (get_global_id(2) * get_global_size(1) + get_global_id(1)) * get_global_size(0) + get_global_id(0);
    atomic_add(&a[i], 1);
}

/* A grid-stride loop over n items, whatever the launch's global size. */
kernel void stride_add(global int *a, uint n)
{
    for (size_t i = get_global_id(0); i < n; i += get_global_size(0))
        a[i] += 1;
}

/* What each item sees of the launch: global size, local size, enqueued local size, group count, group id,
 * local id, local linear id, global linear id, for dimension d. Eight words per item. */
kernel void builtins(global ulong *out, uint d)
{
    size_t i = get_global_linear_id();
    global ulong *o = out + i * 8;
    o[0] = get_global_size(d);
    o[1] = get_local_size(d);
    o[2] = get_enqueued_local_size(d);
    o[3] = get_num_groups(d);
    o[4] = get_group_id(d);
    o[5] = get_local_id(d);
    o[6] = get_local_linear_id();
    o[7] = i;
}

/* A barrier reduction: each group sums its items' values in local memory; item 0 writes the group's sum and
 * size. Reads past the range would add garbage (or fault). */
kernel void group_sum(global const int *in, global int *sums, global int *sizes, local int *tmp)
{
    size_t lid = get_local_id(0), n = get_local_size(0);
    tmp[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        int s = 0;
        for (size_t k = 0; k < n; k++)
            s += tmp[k];
        sums[get_group_id(0)] = s;
        sizes[get_group_id(0)] = (int)n;
    }
}

kernel void count_hits(global volatile int *counter)
{
    atomic_inc(counter);
}
