/* Context entry points. A context is a tracking scope for memory; all contexts share the backend's
 * one execution context, so handles from different contexts never need translating. */
#include "zp.h"
#include "api.h"

ze_result_t zp_zeContextCreate(ze_driver_handle_t hDriver, const ze_context_desc_t *desc, ze_context_handle_t *phContext) {
    ZP_CHECK_INIT();
    ZP_CHECK_HANDLE(hDriver, ZP_MAGIC_DRIVER);
    ZP_CHECK_PTR(desc);
    ZP_CHECK_PTR(phContext);
    if (desc->flags & ~(ze_context_flags_t)ZE_CONTEXT_FLAG_TBD) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    ze_context_handle_t c = calloc(1, sizeof *c);
    if (!c) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    c->magic = ZP_MAGIC_CONTEXT;
    c->driver = hDriver;
    *phContext = c;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeContextCreateEx(ze_driver_handle_t hDriver, const ze_context_desc_t *desc, uint32_t numDevices,
                                 ze_device_handle_t *phDevices, ze_context_handle_t *phContext) {
    ZP_CHECK_INIT();
    ZP_CHECK_HANDLE(hDriver, ZP_MAGIC_DRIVER);
    if (numDevices > 0 && phDevices == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    for (uint32_t i = 0; i < numDevices; i++) ZP_CHECK_HANDLE(phDevices[i], ZP_MAGIC_DEVICE);
    return zp_zeContextCreate(hDriver, desc, phContext);
}

ze_result_t zp_zeContextDestroy(ze_context_handle_t hContext) {
    ZP_CHECK_HANDLE(hContext, ZP_MAGIC_CONTEXT);
    /* Memory still allocated in the context goes with it, as the context owns it. */
    zp_mem_free_context(hContext);
    hContext->magic = 0;
    free(hContext);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeContextGetStatus(ze_context_handle_t hContext) {
    ZP_CHECK_HANDLE(hContext, ZP_MAGIC_CONTEXT);
    return ZE_RESULT_SUCCESS;
}

/* Host and device share memory: residency is always given. */
ze_result_t zp_zeContextMakeMemoryResident(ze_context_handle_t hContext, ze_device_handle_t hDevice, void *ptr, size_t size) {
    ZP_CHECK_HANDLE(hContext, ZP_MAGIC_CONTEXT);
    ZP_CHECK_HANDLE(hDevice, ZP_MAGIC_DEVICE);
    ZP_CHECK_PTR(ptr);
    (void)size;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeContextEvictMemory(ze_context_handle_t hContext, ze_device_handle_t hDevice, void *ptr, size_t size) {
    return zp_zeContextMakeMemoryResident(hContext, hDevice, ptr, size);
}

/* zeContextSystemBarrier: writes into the device's memory from outside it become visible to it. On a backend whose
 * memory is host memory (ze_pocl) a full host memory fence does that; ze_cuda flushes GPUDirect RDMA writes. */
ze_result_t zp_zeContextSystemBarrier(ze_context_handle_t hContext, ze_device_handle_t hDevice) {
    ZP_CHECK_HANDLE(hContext, ZP_MAGIC_CONTEXT);
    ZP_CHECK_HANDLE(hDevice, ZP_MAGIC_DEVICE);
    if (zp_be->system_barrier) return zp_be->system_barrier(hDevice->bdev);
    atomic_thread_fence(memory_order_seq_cst);
    return ZE_RESULT_SUCCESS;
}
