/* Kernels of test/test_robust.c. */

/* out[i] = a[i] / b[i] in integers. OpenCL C leaves an integer division by zero unspecified but forbids an
 * exception; on x86 the CPU traps, and PoCL's SIGFPE handler skips the instruction. */
kernel void krt_divide(global int *out, global const int *a, global const int *b, uint n)
{
    size_t i = get_global_id(0);
    if (i >= n)
        return;
    out[i] = a[i] / b[i];
}
