// Device-side enqueue (OpenCL C 2.0's enqueue_kernel: SPIR-V's DeviceEnqueue capability), which no driver of
// the project implements: refused at zeModuleCreate, naming the capability (test_ze_groups.c).
kernel void parent(global int *out) {
    queue_t q = get_default_queue();
    enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), ^{ out[0] = 7; });
}
