// A kernel compiled for one group size only: the driver must report it and refuse any other.
__attribute__((reqd_work_group_size(8, 4, 2)))
kernel void reqd(global uint *out)
{
    size_t i = (get_global_id(2) * get_global_size(1) + get_global_id(1)) * get_global_size(0) + get_global_id(0);
    out[i] = (uint)(get_local_size(0) * 100 + get_local_size(1) * 10 + get_local_size(2));
}

// The same without the attribute, for comparison in the same module.
kernel void free_size(global uint *out)
{
    out[get_global_id(0)] = (uint)get_local_size(0);
}
