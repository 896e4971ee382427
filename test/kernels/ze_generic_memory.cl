// A generic pointer read back from memory (a private array indexed at run time) and cast with to_global: ze_cuda
// asks the hardware where it points; ze_pocl, whose CPU has one address space for all, cannot tell and refuses the
// module (test_ze_groups.c). Built with -cl-std=CL2.0 (kernels.mk).
kernel void generic_from_memory(global int *g, global int *out, local int *l) {
    size_t i = get_global_id(0);
    generic int *table[2] = {&g[i], &l[get_local_id(0)]};
    generic int *q = table[out[i] & 1];
    out[i] = to_global(q) ? 1 : to_local(q) ? 2 : 0;
}
