// Kernels for the Level Zero conformance cases of test_ze_conform.c.

// Source attributes: zeKernelGetSourceAttributes gives them back as OpenCL C writes them.
__attribute__((work_group_size_hint(1, 1, 1)))
kernel void hinted(global int *out)
{
    out[get_global_id(0)] += 1;
}

__attribute__((reqd_work_group_size(4, 2, 1))) __attribute__((work_group_size_hint(4, 2, 1)))
kernel void required_and_hinted(global int *out)
{
    out[get_global_id(0)] += 2;
}

__attribute__((vec_type_hint(float4)))
kernel void vec_hinted(global float4 *out)
{
    out[get_global_id(0)] *= 2.0f;
}

kernel void plain(global int *out)
{
    out[get_global_id(0)] += 3;
}

// Writes, for every work-item, its group and the launch's group count: an indirect launch must run exactly
// the groups its argument buffer held when the command ran. out holds 4 words per item.
kernel void groups(global uint *out)
{
    size_t i = (get_global_id(2) * get_global_size(1) + get_global_id(1)) * get_global_size(0) + get_global_id(0);
    out[4 * i + 0] = (uint)get_num_groups(0);
    out[4 * i + 1] = (uint)get_num_groups(1);
    out[4 * i + 2] = (uint)get_num_groups(2);
    out[4 * i + 3] = (uint)(get_group_id(0) + 100 * get_group_id(1) + 10000 * get_group_id(2));
}

// Atomic additions into memory of any kind: on a CPU device, memory from malloc too.
kernel void count_into(global int *counter, global int *items)
{
    size_t i = get_global_id(0);
    items[i] = (int)i * 3;
    atomic_add(counter, 1);
}
