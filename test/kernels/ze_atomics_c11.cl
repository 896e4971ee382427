// OpenCL C 2.0's atomics on 64-bit integers (atomic_long, atomic_ulong; test_ze_groups.c), which the device offers
// with ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS. Built with -cl-std=CL2.0 (kernels.mk).
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable

// a[0] sum, a[1] signed min, a[2] signed max, a[3] or, a[4] xor, a[5] and, a[6] count of successful
// compare-exchanges of a[7] (each work-item raises it from i to i + 1: exactly one per i succeeds when they take
// turns), u[0] unsigned min, u[1] unsigned max.
kernel void atomics_c11_64(global const long *vals, volatile global atomic_long *a, volatile global atomic_ulong *u) {
    size_t i = get_global_id(0);
    long v = vals[i];
    atomic_fetch_add_explicit(&a[0], v, memory_order_relaxed);
    atomic_fetch_min_explicit(&a[1], v, memory_order_relaxed);
    atomic_fetch_max_explicit(&a[2], v, memory_order_relaxed);
    atomic_fetch_or_explicit(&a[3], v & 0x7f000000000ff0L, memory_order_relaxed);
    atomic_fetch_xor_explicit(&a[4], v, memory_order_relaxed);
    atomic_fetch_and_explicit(&a[5], ~(1L << (i % 63)), memory_order_relaxed);
    atomic_fetch_min_explicit(&u[0], (ulong)v, memory_order_relaxed);
    atomic_fetch_max_explicit(&u[1], (ulong)v, memory_order_relaxed);
    long expected = atomic_load_explicit(&a[7], memory_order_relaxed);
    while (!atomic_compare_exchange_strong(&a[7], &expected, expected + 1))
        ;
    atomic_fetch_add(&a[6], 1);
}
