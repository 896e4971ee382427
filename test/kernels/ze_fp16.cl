// Half precision (cl_khr_fp16; test_ze_groups.c): arithmetic, conversions and a sub-group reduction on half.
// A device that reports ZE_DEVICE_MODULE_FLAG_FP16 runs it; one that does not (ze_pocl: PoCL 3.1's CPU device
// has no cl_khr_fp16, so no half builtins) refuses the module at zeModuleCreate, naming the Float16 capability:
// clang contracts x * 1.5 + 0.25 into the builtin mad on half.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

// out[i] = in[i] * 1.5h + 0.25h in half, and the sub-group's sum of in (every value a multiple of 1/4 of
// magnitude at most 12.5: exact in half for any sub-group).
kernel void fp16_ops(global const half *in, global half *out, global half *sums) {
    size_t i = get_global_linear_id();
    half x = in[i];
    out[i] = x * (half)1.5f + (half)0.25f;
    sums[i] = sub_group_reduce_add(x);
}

// nextafter of half, scalar and half2, toward +inf, -inf and 0 (test_ze_groups.c checks every bit): libclc has no
// half nextafter, and computed in float it would step by a float's ulp and round back to x (ze_cuda defines it by
// its bits: driver/cuda/ptx.cpp, define_half_nextafter).
kernel void fp16_nextafter(global const half *in, global half *out) {
    size_t i = get_global_linear_id();
    half x = in[i];
    out[5 * i] = nextafter(x, (half)INFINITY);
    out[5 * i + 1] = nextafter(x, (half)-INFINITY);
    out[5 * i + 2] = nextafter(x, (half)0.0f);
    half2 v = nextafter((half2)(x, -x), (half2)((half)-INFINITY, (half)INFINITY));
    out[5 * i + 3] = v.s0;
    out[5 * i + 4] = v.s1;
}
