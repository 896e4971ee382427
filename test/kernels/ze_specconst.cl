// A specialization constant (SpecId 7, default 100). OpenCL C has no syntax for one, so the kernel calls
// the SPIR-V friendly builtin that llvm-spirv turns into OpSpecConstant.
int __spirv_SpecConstant(int id, int def);

kernel void spec(global int *out)
{
    out[get_global_id(0)] = __spirv_SpecConstant(7, 100) + (int)get_global_id(0);
}
