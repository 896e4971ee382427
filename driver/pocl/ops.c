/* The PoCL backend's operations table, the only thing the object model sees of OpenCL, and its start. */
#include <pthread.h>

#include "pocl_be.h"

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static ze_result_t init_result;

/* zeInit: PoCL opened (device.c), then the way modules are built on it chosen and proven once (selfcheck.c). */
static void init_once_fn(void) {
    init_result = zp_pocl_open();
    if (init_result == ZE_RESULT_SUCCESS) zp_pocl_selfcheck(&zp_caps, (cl_device_id)zp_pocl_device(0));
}

static ze_result_t pocl_init(void) {
    pthread_once(&init_once, init_once_fn);
    return init_result;
}

const zp_backend_ops zp_pocl_backend = {
    .name = "pocl",
    .init = pocl_init,
    .device_count = zp_pocl_device_count,
    .no_device_reason = zp_pocl_no_device_reason,
    .device = zp_pocl_device,
    .device_info = zp_pocl_device_info,
    .timestamps = zp_pocl_timestamps,
    .mem_alloc = zp_pocl_mem_alloc,
    .mem_free = zp_pocl_mem_free,
    .module_build = zp_pocl_module_build,
    .module_destroy = zp_pocl_module_destroy,
    .module_meta_free = zp_pocl_module_meta_free,
    .kernel_create = zp_pocl_kernel_create,
    .kernel_destroy = zp_pocl_kernel_destroy,
    .kernel_set_arg = zp_pocl_kernel_set_arg,
    .queue_create = zp_pocl_queue_create,
    .queue_destroy = zp_pocl_queue_destroy,
    .queue_finish = zp_pocl_queue_finish,
    .launch = zp_pocl_launch,
    .copy = zp_pocl_copy,
    .fill = zp_pocl_fill,
    .barrier = zp_pocl_barrier,
    .host_task = zp_pocl_host_task,
    .token_retain = zp_pocl_token_retain,
    .token_release = zp_pocl_token_release,
    .token_on_complete = zp_pocl_token_on_complete,
    .token_done = zp_pocl_token_done,
    .token_times = zp_pocl_token_times,
    .can_access_peer = zp_pocl_can_access_peer,
    .vm_page_size = zp_pocl_vm_page_size,
    .vm_reserve = zp_pocl_vm_reserve,
    .vm_release = zp_pocl_vm_release,
    .phys_create = zp_pocl_phys_create,
    .phys_destroy = zp_pocl_phys_destroy,
    .vm_map = zp_pocl_vm_map,
    .vm_unmap = zp_pocl_vm_unmap,
    .vm_protect = zp_pocl_vm_protect,
    .global_pointer = zp_pocl_global_pointer,
};
