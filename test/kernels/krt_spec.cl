/* Specialization constants. OpenCL C has no syntax for them; the SPIR-V translator turns calls of
 * __spirv_SpecConstant(id, default) into OpSpecConstant decorated with SpecId id. */

int __attribute__((overloadable)) __spirv_SpecConstant(int id, int default_value);
long __attribute__((overloadable)) __spirv_SpecConstant(int id, long default_value);

kernel void krt_spec_values(global long *out)
{
    if (get_global_id(0) != 0)
        return;
    out[0] = __spirv_SpecConstant(1, 7);
    out[1] = __spirv_SpecConstant(2, -3);
    out[2] = __spirv_SpecConstant(3, 5000000000L);
}
