// Two kernels of one module: one with a 32 KiB static local tile (CUDA takes 48 KiB of static shared memory), one with none of its own but a local
// argument. PoCL gives each kernel of a program every __local variable in it, so the second gets the tile too
// (test_ze_launch: local_argument_counts_the_modules_other_locals).

kernel void big_tile(global int *out)
{
    local int tile[8192];
    size_t lid = get_local_id(0);
    tile[lid] = (int)lid;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tile[get_local_size(0) - 1 - lid];
}

kernel void sum_local(global const int *in, global int *out, local int *scratch)
{
    size_t lid = get_local_id(0);
    scratch[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        int s = 0;
        for (size_t i = 0; i < get_local_size(0); i++)
            s += scratch[i];
        out[get_group_id(0)] = s;
    }
}
