// Integer and float atomics on global and local memory. Every work-item contends for the same words, so a
// missing atomic shows up as a wrong total.

kernel void atomic_int_ops(global const int *vals, global int *counter, global int *sum,
                           global int *minv, global int *maxv, global int *bits)
{
    size_t i = get_global_id(0);
    int v = vals[i];
    atomic_inc(counter);
    atomic_add(sum, v);
    atomic_min(minv, v);
    atomic_max(maxv, v);
    atomic_or(bits, 1 << (i % 32));
}

// Counts per group in local memory first, then adds the group's count to the global total once.
kernel void atomic_local_count(global int *total)
{
    local int count;
    if (get_local_id(0) == 0)
        count = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_inc(&count);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0)
        atomic_add(total, count);
}

// OpenCL C 1.2 has no float atomic add, so it is built from compare-and-swap on the bit pattern.
static void atomic_add_float(volatile global float *p, float v)
{
    volatile global int *ip = (volatile global int *)p;
    int old = *ip;
    for (;;) {
        int want = as_int(as_float(old) + v);
        int seen = atomic_cmpxchg(ip, old, want);
        if (seen == old)
            break;
        old = seen;
    }
}

kernel void atomic_float_add(global const float *vals, global float *sum)
{
    atomic_add_float(sum, vals[get_global_id(0)]);
}

// atomic_xchg on float is core OpenCL C 1.2: each item swaps its value in and records what it took out,
// so the values taken out plus the final value are a permutation of the initial value and the inputs.
kernel void atomic_float_xchg(global const float *vals, global float *slot, global float *taken)
{
    size_t i = get_global_id(0);
    taken[i] = atomic_xchg(slot, vals[i]);
}
