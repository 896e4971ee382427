/* Fence entry points. A fence is a signal (see signal.c) armed by zeCommandQueueExecuteCommandLists. */
#include "zp.h"
#include "api.h"

static void free_fence(zp_signal *s) { free((ze_fence_handle_t)s); }

ze_result_t zp_zeFenceCreate(ze_command_queue_handle_t hQueue, const ze_fence_desc_t *desc, ze_fence_handle_t *phFence) {
    ZP_CHECK_HANDLE(hQueue, ZP_MAGIC_QUEUE);
    ZP_CHECK_PTR(desc);
    ZP_CHECK_PTR(phFence);
    if (desc->flags > 0x1) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    ze_fence_handle_t f = calloc(1, sizeof *f);
    if (!f) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    zp_signal_init(&f->sig, free_fence);
    if (desc->flags & ZE_FENCE_FLAG_SIGNALED) atomic_store(&f->sig.state, 1);
    f->magic = ZP_MAGIC_FENCE;
    f->queue = hQueue;
    *phFence = f;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeFenceDestroy(ze_fence_handle_t hFence) {
    ZP_CHECK_HANDLE(hFence, ZP_MAGIC_FENCE);
    hFence->magic = 0;
    zp_signal_unref(&hFence->sig);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeFenceHostSynchronize(ze_fence_handle_t hFence, uint64_t timeout) {
    ZP_CHECK_HANDLE(hFence, ZP_MAGIC_FENCE);
    return zp_signal_wait(&hFence->sig, timeout);
}

ze_result_t zp_zeFenceQueryStatus(ze_fence_handle_t hFence) {
    ZP_CHECK_HANDLE(hFence, ZP_MAGIC_FENCE);
    return zp_signal_status(&hFence->sig);
}

ze_result_t zp_zeFenceReset(ze_fence_handle_t hFence) {
    ZP_CHECK_HANDLE(hFence, ZP_MAGIC_FENCE);
    zp_signal_reset(&hFence->sig);
    return ZE_RESULT_SUCCESS;
}
