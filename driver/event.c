/* Event pool and event entry points. Events are host objects (see signal.c).
 *
 * Counter-based events (1.8's ZE_experimental_event_pool_counter_based, asked for by a
 * ze_event_pool_counter_based_exp_desc_t in the pool's pNext): such an event always reads as the completion of the
 * last command given to signal it, and is never reset. So the command that signals it resets it when it is submitted
 * (zp_stream_submit: an append on an immediate list, an execution of a regular one), which also detaches any earlier
 * signalling still running (signal.c), and its completion sets it. Every list of these drivers runs in order, so
 * every list may signal one. Until a command signals it, it reads as set, as it does once its last command is done.
 * The host may not signal or reset it (zeEventHostSignal, zeEventHostReset, zeCommandListAppendEventReset):
 * ZE_RESULT_ERROR_INVALID_ARGUMENT, as the extension forbids them. Unified Runtime's second Level Zero adapter makes
 * all its events this way and relies on that meaning: taken for ordinary events, an event still set from its
 * previous use read as done before its kernel had run (docs/driver.md, "Counter-based events"). */
#include "zp.h"
#include "api.h"

ze_result_t zp_zeEventPoolCreate(ze_context_handle_t hContext, const ze_event_pool_desc_t *desc, uint32_t numDevices,
                                 ze_device_handle_t *phDevices, ze_event_pool_handle_t *phEventPool) {
    ZP_CHECK_HANDLE(hContext, ZP_MAGIC_CONTEXT);
    ZP_CHECK_PTR(desc);
    ZP_CHECK_PTR(phEventPool);
    if (numDevices > 0 && phDevices == NULL) return ZE_RESULT_ERROR_INVALID_SIZE;
    for (uint32_t i = 0; i < numDevices; i++) ZP_CHECK_HANDLE(phDevices[i], ZP_MAGIC_DEVICE);
    /* HOST_VISIBLE, IPC, KERNEL_TIMESTAMP and API 1.6's KERNEL_MAPPED_TIMESTAMP: kernel timestamps "synchronized
     * to host time domain", which every backend's are already (their device clock is a host clock, the one
     * zeDeviceGetGlobalTimestamps reads), so its events are kernel-timestamp events like the others. The
     * specification says the two timestamp flags cannot be combined. */
    if (desc->flags > 0xf) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    const ze_event_pool_flags_t both = ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP | ZP_EVENT_POOL_FLAG_KERNEL_MAPPED_TIMESTAMP;
    if ((desc->flags & both) == both) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (desc->count == 0) return ZE_RESULT_ERROR_INVALID_SIZE;
    bool counter_based = false;
    for (const ze_base_desc_t *e = desc->pNext; e; e = e->pNext)
        if (e->stype == ZP_STRUCTURE_TYPE_COUNTER_BASED_EVENT_POOL_EXP_DESC) {
            if (((const zp_event_pool_counter_based_exp_desc_t *)e)->flags > 0x3)
                return ZE_RESULT_ERROR_INVALID_ENUMERATION;
            counter_based = true;
        }
    ze_event_pool_handle_t p = calloc(1, sizeof *p);
    if (!p) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    p->magic = ZP_MAGIC_POOL;
    p->ctx = hContext;
    p->count = desc->count;
    p->flags = desc->flags;
    p->counter_based = counter_based;
    atomic_init(&p->live_events, 0);
    *phEventPool = p;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeEventPoolDestroy(ze_event_pool_handle_t hEventPool) {
    ZP_CHECK_HANDLE(hEventPool, ZP_MAGIC_POOL);
    if (atomic_load(&hEventPool->live_events) > 0) return ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE;
    hEventPool->magic = 0;
    free(hEventPool);
    return ZE_RESULT_SUCCESS;
}

static void free_event(zp_signal *s) { free((ze_event_handle_t)s); }

ze_result_t zp_zeEventCreate(ze_event_pool_handle_t hEventPool, const ze_event_desc_t *desc, ze_event_handle_t *phEvent) {
    ZP_CHECK_HANDLE(hEventPool, ZP_MAGIC_POOL);
    ZP_CHECK_PTR(desc);
    ZP_CHECK_PTR(phEvent);
    if (desc->signal > 0x7 || desc->wait > 0x7) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if (desc->index >= hEventPool->count) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    ze_event_handle_t e = calloc(1, sizeof *e);
    if (!e) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    zp_signal_init(&e->sig, free_event);
    e->magic = ZP_MAGIC_EVENT;
    e->pool = hEventPool;
    e->index = desc->index;
    e->signal_scope = desc->signal;
    e->wait_scope = desc->wait;
    /* A counter-based event no command has signalled has nothing to wait for. */
    if (hEventPool->counter_based) atomic_store(&e->sig.state, 1);
    atomic_fetch_add(&hEventPool->live_events, 1);
    *phEvent = e;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeEventDestroy(ze_event_handle_t hEvent) {
    ZP_CHECK_HANDLE(hEvent, ZP_MAGIC_EVENT);
    hEvent->magic = 0;
    atomic_fetch_sub(&hEvent->pool->live_events, 1);
    zp_signal_unref(&hEvent->sig);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeEventHostSignal(ze_event_handle_t hEvent) {
    ZP_CHECK_HANDLE(hEvent, ZP_MAGIC_EVENT);
    if (hEvent->pool->counter_based) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    zp_signal_set(&hEvent->sig);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeEventHostSynchronize(ze_event_handle_t hEvent, uint64_t timeout) {
    ZP_CHECK_HANDLE(hEvent, ZP_MAGIC_EVENT);
    return zp_signal_wait(&hEvent->sig, timeout);
}

ze_result_t zp_zeEventQueryStatus(ze_event_handle_t hEvent) {
    ZP_CHECK_HANDLE(hEvent, ZP_MAGIC_EVENT);
    return zp_signal_status(&hEvent->sig);
}

ze_result_t zp_zeEventHostReset(ze_event_handle_t hEvent) {
    ZP_CHECK_HANDLE(hEvent, ZP_MAGIC_EVENT);
    if (hEvent->pool->counter_based) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    zp_signal_reset(&hEvent->sig);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeEventQueryKernelTimestamp(ze_event_handle_t hEvent, ze_kernel_timestamp_result_t *dst) {
    ZP_CHECK_HANDLE(hEvent, ZP_MAGIC_EVENT);
    ZP_CHECK_PTR(dst);
    if (!zp_event_wants_times(hEvent)) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    zp_signal *s = &hEvent->sig;
    ze_result_t st = zp_signal_status(s);
    if (st != ZE_RESULT_SUCCESS) return st;
    uint64_t start = 0, end = 0;
    pthread_mutex_lock(&s->mu);
    zp_btoken *t = s->token;
    if (t) zp_be->token_retain(t);
    pthread_mutex_unlock(&s->mu);
    if (t) {
        zp_be->token_times(t, &start, &end);
        zp_be->token_release(t);
    }
    /* Kernels of one command run on the whole device: the context span equals the global span. */
    dst->global.kernelStart = dst->context.kernelStart = zp_ts(start);
    dst->global.kernelEnd = dst->context.kernelEnd = zp_ts(end);
    return ZE_RESULT_SUCCESS;
}

/* API 1.9: what the event and its pool were created with. */
ze_result_t zp_zeEventGetEventPool(ze_event_handle_t hEvent, ze_event_pool_handle_t *phEventPool) {
    ZP_CHECK_HANDLE(hEvent, ZP_MAGIC_EVENT);
    ZP_CHECK_PTR(phEventPool);
    *phEventPool = hEvent->pool;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeEventGetSignalScope(ze_event_handle_t hEvent, ze_event_scope_flags_t *pSignalScope) {
    ZP_CHECK_HANDLE(hEvent, ZP_MAGIC_EVENT);
    ZP_CHECK_PTR(pSignalScope);
    *pSignalScope = hEvent->signal_scope;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeEventGetWaitScope(ze_event_handle_t hEvent, ze_event_scope_flags_t *pWaitScope) {
    ZP_CHECK_HANDLE(hEvent, ZP_MAGIC_EVENT);
    ZP_CHECK_PTR(pWaitScope);
    *pWaitScope = hEvent->wait_scope;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeEventPoolGetContextHandle(ze_event_pool_handle_t hEventPool, ze_context_handle_t *phContext) {
    ZP_CHECK_HANDLE(hEventPool, ZP_MAGIC_POOL);
    ZP_CHECK_PTR(phContext);
    *phContext = hEventPool->ctx;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeEventPoolGetFlags(ze_event_pool_handle_t hEventPool, ze_event_pool_flags_t *pFlags) {
    ZP_CHECK_HANDLE(hEventPool, ZP_MAGIC_POOL);
    ZP_CHECK_PTR(pFlags);
    *pFlags = hEventPool->flags;
    return ZE_RESULT_SUCCESS;
}
