// Relational functions of half vectors (isnan, isinf, signbit of half4 return short4): ze_cuda calls libclc's float4
// ones, which return int4, and narrows the result (driver/cuda/ptx.cpp, promote_half_builtins); dpnp.tensor's isnan,
// isinf and signbit of half are such kernels. make test hands the PTX to ptxas (test_cuda); ze_pocl's CPU has no fp16.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void half_relational(global const half4 *x, global short4 *out) {
    size_t i = get_global_id(0);
    out[3 * i] = isnan(x[i]);
    out[3 * i + 1] = isinf(x[i]);
    out[3 * i + 2] = signbit(x[i]);
}
