/* Kernels of the fault tests (issue 39: test_fault.c, test_ze_fault.c, test_cuda.c, test/python). */

#include "krt_kernel.h" /* so that the file also builds as C for the host device (docs/single-source.md) */

/* x[gid + off] = 1. With off far past the buffer (2^40 floats in test_cuda.c) this is the wild write of issue 39, a
 * sticky fault on an NVIDIA GPU. The CPU tests launch it with off 0, in bounds, and lose the device with the drivers'
 * test knob KRT_ZE_FAULT=krt_wild_write instead: a wild write on a CPU device ends the process (docs/design.md,
 * "Robustness"). */
kernel void krt_wild_write(global float *x, ulong off)
{
    x[get_global_id(0) + off] = 1.0f;
}

/* out[i] = 3 * i + base: the kernel each test runs after a recovery, checked item by item. */
kernel void krt_after(global uint *out, uint n, uint base)
{
    size_t i = get_global_id(0);
    if (i >= n)
        return;
    out[i] = 3u * (uint)i + base;
}
