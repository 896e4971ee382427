// Kernels named far past what PoCL can make a file name of (test_ze_module.c, long_kernel_names_*): 1000 bytes, and
// 1007 bytes that begin with the same 1000, as DPC++'s mangled kernel names (300 bytes and more) share long
// prefixes; ze_pocl gives each a short internal name while Level Zero sees the real one. A program-scope variable
// brings in the hidden storage argument and the kernel that fills it. Built with -cl-std=CL2.0 (kernels.mk).

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
// 125 bytes, 8 times: 1000. test_ze_module.c spells the same name.
#define PART _ZTSN4sycl3_V16detail18RoundedRangeKernelINS0_4itemILi1ELb1EEELi1EZZ4mainENKUlRNS0_7handlerEE_clES6_EUlS4_E_EE_long_name_abcd
#define P2 CAT(PART, PART)
#define P4 CAT(P2, P2)
#define P8 CAT(P4, P4)

global int bias = 7;

kernel void P8(global int *a) {
    size_t i = get_global_id(0);
    a[i] = 2 * a[i] + bias;
}

kernel void CAT(P8, _scaled)(global int *a, int s) {
    size_t i = get_global_id(0);
    a[i] = s * a[i] + bias;
}

kernel void set_bias(int b) { bias = b; }
