// Four 64-bit specialization constants (SpecId 0 to 3, defaults 10, 30, 50, 70) summed: a module specialised on
// some of them must use the given values for those and the defaults for the rest. OpenCL C has no syntax for one,
// so the kernel calls the SPIR-V friendly builtin that llvm-spirv turns into OpSpecConstant.
ulong __spirv_SpecConstant(int id, ulong def);

kernel void spec_sum(global ulong *out)
{
    *out = __spirv_SpecConstant(0, 10) + __spirv_SpecConstant(1, 30) + __spirv_SpecConstant(2, 50) +
           __spirv_SpecConstant(3, 70);
}
