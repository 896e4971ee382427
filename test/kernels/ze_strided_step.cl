/* A strided loop whose step is an argument, around a barrier. Where the step is 0 it never exits once
 * entered, and LLVM splits it into that copy and one that runs at most once; PoCL 3.1's work-group builder
 * aborts the process on the endless copy, so ze_pocl refuses the module (nothing says the step is not 0). */
__kernel void strided_by_argument(__global uint *out, uint step)
{
    __local uint tile[256];
    uint lid = get_local_id(0);
    for (uint b = lid; b < 1; b += step)
        tile[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = lid; b < 1; b += step)
        out[b] = tile[b];
}
