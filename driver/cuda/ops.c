/* The CUDA backend's operations table (ze_cuda): devices, memory, modules, kernels, streams and events over
 * the CUDA driver API, which is opened with dlopen at zeInit. Without libcuda.so.1, with ZE_CUDA_DISABLE=1, or
 * when cuInit finds no GPU, the driver reports no devices and does nothing else. */
#include "cuda_be.h"

const zp_backend_ops zp_cuda_backend = {
    .name = "cuda",
    .init = zc_init,
    .device_count = zc_device_count,
    .device = zc_device,
    .device_info = zc_device_info,
    .timestamps = zc_timestamps,
    .mem_alloc = zc_mem_alloc,
    .mem_free = zc_mem_free,
    .module_build = zc_module_build,
    .module_destroy = zc_module_destroy,
    .module_meta_free = zc_module_meta_free,
    .kernel_create = zc_kernel_create,
    .kernel_destroy = zc_kernel_destroy,
    .kernel_set_arg = zc_kernel_set_arg,
    .queue_create = zc_queue_create,
    .queue_destroy = zc_queue_destroy,
    .queue_finish = zc_queue_finish,
    .launch = zc_launch,
    .copy = zc_copy,
    .fill = zc_fill,
    .barrier = zc_barrier,
    .host_task = zc_host_task,
    .token_retain = zc_token_retain,
    .token_release = zc_token_release,
    .token_on_complete = zc_token_on_complete,
    .token_times = zc_token_times,
    .mem_alloc_typed = zc_mem_alloc_typed,
    .mem_free_typed = zc_mem_free_typed,
    .copy_any = true,
    .mem_foreign = zc_mem_foreign,
    .queue_native = zc_queue_native,
};
