/* Global offsets (zeKernelSetGlobalOffsetExp) in every dimension, also in those whose range is 1. Each work-item
 * writes seven words at its place in the range, counted from the offset: its global id in x, y and z, the launch's
 * offset in x, y and z, and the work dimension. A dimension whose offset the driver dropped gives an id without the
 * offset and an offset of 0 there, at the same place, so a test that checks every word sees it.
 * Compiled as SPIR-V for ze_pocl and ze_cuda, and as C for the host device (test/host/test_host_driver.c). */
kernel void offset_ids(global uint *out)
{
    size_t x = get_global_id(0) - get_global_offset(0);
    size_t y = get_global_id(1) - get_global_offset(1);
    size_t z = get_global_id(2) - get_global_offset(2);
    global uint *o = out + ((z * get_global_size(1) + y) * get_global_size(0) + x) * 7;
    o[0] = (uint)get_global_id(0);
    o[1] = (uint)get_global_id(1);
    o[2] = (uint)get_global_id(2);
    o[3] = (uint)get_global_offset(0);
    o[4] = (uint)get_global_offset(1);
    o[5] = (uint)get_global_offset(2);
    o[6] = get_work_dim();
}
