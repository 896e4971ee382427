/* A loop after a barrier that follows another loop, whose exit test reads memory the loop never writes: once
 * entered it never exits. PoCL 3.1 aborts the process when it builds the work-group function of this kernel
 * (the shape of test/data/repro/histogram_local_badcfg.spv), so ze_pocl refuses the module. */
__kernel void endless_after_barrier(__global const uchar *data, __global uint *bins)
{
    uint lid = get_local_id(0);
    uint lsize = get_local_size(0);
    for (uint b = lid; b < 256; b += lsize)
        bins[b] = data[b];
    barrier(CLK_GLOBAL_MEM_FENCE);
    for (uint b = lid; b < 256; b += lsize) {
        uint count;
        do {
            count = bins[b];
        } while (count != 0);
        bins[b] = count + 1;
    }
}
