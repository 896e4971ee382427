// A kernel that requires sub-groups of 1 work-items (intel_reqd_sub_group_size, SPIR-V's SubgroupSize execution
// mode; test_ze_groups.c): a device whose sub-groups have another size refuses the module, naming the size.
__attribute__((intel_reqd_sub_group_size(1))) kernel void sg_reqd(global uint *out) {
    out[get_global_linear_id()] = get_sub_group_size() * 1000 + get_sub_group_local_id();
}
