// Kept apart from ze_builtins.cl so a problem with these builtins cannot hide the others.

// Fences and prefetch compile to nothing observable; the kernel must still build and run.
kernel void fences_and_prefetch(global int *out)
{
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    read_mem_fence(CLK_LOCAL_MEM_FENCE);
    write_mem_fence(CLK_GLOBAL_MEM_FENCE);
    prefetch(out, 4);
    out[get_global_id(0)] = 7;
}
