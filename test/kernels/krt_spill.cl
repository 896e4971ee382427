/* Kernels with large private arrays, for the spill-aware group size cap. The arrays are indexed with values
 * the compiler cannot know, so they stay in private memory. */

/* 16 KiB of private memory per work-item. out[i] = sum over k of arr[(k * 7) % 4096] with
 * arr[j] = i + j * seed (mod 2^32). */
kernel void krt_private_16k(global uint *out, uint n, uint seed)
{
    size_t i = get_global_id(0);
    if (i >= n)
        return;
    uint arr[4096];
    for (uint j = 0; j < 4096; j++)
        arr[(j * seed) % 4096] = (uint)i + ((j * seed) % 4096) * seed;
    uint s = 0;
    for (uint k = 0; k < 4096; k++)
        s += arr[(k * 7) % 4096];
    out[i] = s;
}

/* 3648 bytes (912 ints) of private memory per work-item, the figure of the spill-cap example. */
kernel void krt_private_3648(global uint *out, uint n, uint seed)
{
    size_t i = get_global_id(0);
    if (i >= n)
        return;
    uint arr[912];
    for (uint j = 0; j < 912; j++)
        arr[(j * seed) % 912] = (uint)i + j;
    uint s = 0;
    for (uint k = 0; k < 912; k++)
        s += arr[(k * 5) % 912];
    out[i] = s;
}

/* No private array at all, in the same module, so per-kernel figures must differ. */
kernel void krt_private_none(global uint *out, uint n)
{
    size_t i = get_global_id(0);
    if (i >= n)
        return;
    out[i] = (uint)i;
}
