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
    atomic_init(&c->used, 0);
    *phContext = c;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeContextCreateEx(ze_driver_handle_t hDriver, const ze_context_desc_t *desc, uint32_t numDevices,
                                 ze_device_handle_t *phDevices, ze_context_handle_t *phContext) {
    ZP_CHECK_INIT();
    ZP_CHECK_HANDLE(hDriver, ZP_MAGIC_DRIVER);
    if (numDevices > 0 && phDevices == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    for (uint32_t i = 0; i < numDevices; i++) ZP_CHECK_HANDLE(phDevices[i], ZP_MAGIC_DEVICE);
    ze_result_t r = zp_zeContextCreate(hDriver, desc, phContext);
    /* The devices named use the context from now on (fault.c): a lost one is recovered first if nothing else uses it. */
    for (uint32_t i = 0; r == ZE_RESULT_SUCCESS && i < numDevices; i++) zp_context_use(*phContext, phDevices[i]);
    return r;
}

ze_result_t zp_zeContextDestroy(ze_context_handle_t hContext) {
    ZP_CHECK_HANDLE(hContext, ZP_MAGIC_CONTEXT);
    /* Memory still allocated in the context goes with it, as the context owns it. */
    zp_mem_free_context(hContext);
    /* Then the context stops using its devices: a lost one that no other context uses is recovered (fault.c). */
    zp_context_release(hContext);
    hContext->magic = 0;
    free(hContext);
    return ZE_RESULT_SUCCESS;
}

/* ZE_RESULT_ERROR_DEVICE_LOST when a device the context has used is lost (fault.c). */
ze_result_t zp_zeContextGetStatus(ze_context_handle_t hContext) {
    ZP_CHECK_HANDLE(hContext, ZP_MAGIC_CONTEXT);
    return zp_context_status(hContext);
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
