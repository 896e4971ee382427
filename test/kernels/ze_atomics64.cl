// 64-bit atomics (cl_khr_int64_base_atomics / extended), which the device reports through
// ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS.
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable

kernel void atomics64(global const long *vals, global long *sum, global long *minv, global long *maxv,
                      global long *count)
{
    long v = vals[get_global_id(0)];
    atom_add(sum, v);
    atom_min(minv, v);
    atom_max(maxv, v);
    atom_inc(count);
}
