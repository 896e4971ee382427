/* Command queue entry points: each queue owns an in-order backend queue on which regular command
 * lists are replayed. */
#include "zp.h"
#include "api.h"

#define ZP_NUM_QUEUES 4u

ze_result_t zp_zeCommandQueueCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                    const ze_command_queue_desc_t *desc, ze_command_queue_handle_t *phQueue) {
    ZP_CHECK_HANDLE(hContext, ZP_MAGIC_CONTEXT);
    ZP_CHECK_HANDLE(hDevice, ZP_MAGIC_DEVICE);
    ZP_CHECK_PTR(desc);
    ZP_CHECK_PTR(phQueue);
    if (desc->flags > 0x3 || desc->mode > ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS ||
        desc->priority > ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_HIGH)
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if (desc->ordinal != 0 || desc->index >= ZP_NUM_QUEUES) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    zp_context_use(hContext, hDevice);
    if (zp_device_lost(hDevice)) return ZE_RESULT_ERROR_DEVICE_LOST;
    ze_command_queue_handle_t q = calloc(1, sizeof *q);
    if (!q) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    ze_result_t r = zp_stream_init(&q->st, hDevice);
    if (r != ZE_RESULT_SUCCESS) {
        free(q);
        return r;
    }
    pthread_mutex_init(&q->lock, NULL);
    q->magic = ZP_MAGIC_QUEUE;
    q->ctx = hContext;
    q->dev = hDevice;
    q->mode = zp_debug_sync() ? ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS : desc->mode;
    q->index = desc->index;
    *phQueue = q;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeCommandQueueDestroy(ze_command_queue_handle_t hQueue) {
    ZP_CHECK_HANDLE(hQueue, ZP_MAGIC_QUEUE);
    hQueue->magic = 0;
    zp_stream_fini(&hQueue->st);
    pthread_mutex_destroy(&hQueue->lock);
    free(hQueue);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeCommandQueueExecuteCommandLists(ze_command_queue_handle_t hQueue, uint32_t numLists,
                                                 ze_command_list_handle_t *phLists, ze_fence_handle_t hFence) {
    ZP_CHECK_HANDLE(hQueue, ZP_MAGIC_QUEUE);
    ZP_CHECK_PTR(phLists);
    if (numLists == 0) return ZE_RESULT_ERROR_INVALID_SIZE;
    if (hFence && (ZP_BAD_HANDLE(hFence, ZP_MAGIC_FENCE) || hFence->queue != hQueue))
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < numLists; i++) {
        ZP_CHECK_HANDLE(phLists[i], ZP_MAGIC_CMDLIST);
        if (phLists[i]->immediate) return ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE;
        if (!phLists[i]->closed) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    /* A lost device takes no new work (fault.c). Checked once: an execute refused half-way would leave the events of
     * its later commands unarmed, and whatever waits on them waiting forever. */
    if (zp_device_lost(hQueue->dev)) return ZE_RESULT_ERROR_DEVICE_LOST;
    ze_result_t r = ZE_RESULT_SUCCESS;
    pthread_mutex_lock(&hQueue->lock);
    for (uint32_t i = 0; i < numLists && r == ZE_RESULT_SUCCESS; i++) {
        ze_command_list_handle_t l = phLists[i];
        if (l->graph) {
            /* The whole list as one backend command (ze_cuda: one cuGraphLaunch). */
            zp_cmd g = {.type = ZP_CMD_GRAPH, .graph = l->graph};
            r = zp_stream_submit(&hQueue->st, &g);
            continue;
        }
        for (size_t j = 0; j < l->num_cmds && r == ZE_RESULT_SUCCESS; j++) r = zp_stream_submit(&hQueue->st, &l->cmds[j]);
    }
    /* Every execute ends with a mark (which also arms the fence), so that synchronize knows on the host
     * whether anything the queue was given is still running. */
    if (r == ZE_RESULT_SUCCESS) r = zp_stream_mark(&hQueue->st, hFence);
    pthread_mutex_unlock(&hQueue->lock);
    if (r == ZE_RESULT_SUCCESS && hQueue->mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS)
        r = zp_stream_sync(&hQueue->st, UINT64_MAX);
    return r;
}

ze_result_t zp_zeCommandQueueSynchronize(ze_command_queue_handle_t hQueue, uint64_t timeout) {
    ZP_CHECK_HANDLE(hQueue, ZP_MAGIC_QUEUE);
    return zp_stream_sync(&hQueue->st, timeout);
}

/* API 1.9: where the queue was created. Every queue belongs to group 0, the device's only one. */
ze_result_t zp_zeCommandQueueGetOrdinal(ze_command_queue_handle_t hQueue, uint32_t *pOrdinal) {
    ZP_CHECK_HANDLE(hQueue, ZP_MAGIC_QUEUE);
    ZP_CHECK_PTR(pOrdinal);
    *pOrdinal = 0;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeCommandQueueGetIndex(ze_command_queue_handle_t hQueue, uint32_t *pIndex) {
    ZP_CHECK_HANDLE(hQueue, ZP_MAGIC_QUEUE);
    ZP_CHECK_PTR(pIndex);
    *pIndex = hQueue->index;
    return ZE_RESULT_SUCCESS;
}
