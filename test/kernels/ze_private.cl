// Kernels with very different private memory needs in one module, so the driver must report per-kernel
// figures rather than one figure for the whole program.

// 16 KiB of private memory per work-item, indexed with run-time values so it cannot be optimised away.
kernel void big_private(global const int *in, global int *out, int n)
{
    int buf[4096];
    size_t g = get_global_id(0);
    for (int i = 0; i < 4096; i++)
        buf[i] = in[(g + (size_t)i) % (size_t)n] + i;
    int acc = 0;
    for (int i = 0; i < 4096; i++)
        acc += buf[(i * 7 + (int)g) % 4096];
    out[g] = acc;
}

kernel void small_private(global int *out)
{
    out[get_global_id(0)] = (int)get_global_id(0) * 3;
}
