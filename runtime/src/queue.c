/*
 * queue.c: a queue is one in-order immediate command list. libkrt builds against API 1.4's headers and reaches
 * drivers through a loader that may be of 1.4 (Debian's), neither of which has zeCommandListHostSynchronize, so a
 * queue waits by appending a barrier that signals a host-visible event of its own and waiting on that event.
 */
#include "krt_internal.h"
#include "../../driver/include/ze_krt_native_queue.h"

#include <stdlib.h>
#include <time.h>

krt_result krt__queue_create(krt_context *ctx, const krt_queue_desc *desc, int is_default, krt_queue **out)
{
    krt_queue *q = calloc(1, sizeof *q);
    if (!q)
        return krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for a queue");
    q->ctx = ctx;
    q->is_default = is_default;
    uint32_t ordinal = desc && desc->ordinal ? desc->ordinal : ctx->dev->compute_ordinal;
    ze_command_queue_desc_t qd = {
        .stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
        .ordinal = ordinal,
        .index = 0,
        .flags = 0,
        .mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
        .priority = ZE_COMMAND_QUEUE_PRIORITY_NORMAL,
    };
    /* Only a driver advertising ZE_krt_native_queue reads the struct (ze_cuda): its CUstream, for krt_queue_native. */
    ze_krt_native_queue_desc_t nq = { ZE_STRUCTURE_TYPE_KRT_NATIVE_QUEUE_DESC, NULL, &q->native };
    if (ctx->drv->has_native_queue_ext)
        qd.pNext = &nq;
    ze_result_t zr = KRT__ZE(ctx->ddi, CommandList, CreateImmediate)(ctx->ze, ctx->device, &qd, &q->list);
    /* A context's default queue is made while the context is created (krt_context_create says why a lost device
     * refuses it); any later queue's refusal is the context's loss. */
    krt_result r = is_default ? krt__ze(zr, "zeCommandListCreateImmediate")
                              : krt__ze_ctx(ctx, NULL, zr, "zeCommandListCreateImmediate");
    if (r != KRT_SUCCESS) {
        free(q);
        return r;
    }
    if ((r = krt__event_create(ctx, 0, 1, &q->sync_event)) != KRT_SUCCESS) {
        KRT__ZE(ctx->ddi, CommandList, Destroy)(q->list);
        free(q);
        return r;
    }
    pthread_mutex_init(&q->lock, NULL);
    pthread_mutex_init(&q->sync_lock, NULL);
    pthread_mutex_lock(&ctx->lock);
    q->next = ctx->queues;
    ctx->queues = q;
    pthread_mutex_unlock(&ctx->lock);
    *out = q;
    return KRT_SUCCESS;
}

krt_result krt_queue_create(krt_context *ctx, const krt_queue_desc *desc, krt_queue **out)
{
    if (!ctx || !out)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_queue_create: %s is NULL", ctx ? "out" : "ctx");
    if (krt__is_lost(ctx))
        return krt__lost_again(ctx);
    return krt__queue_create(ctx, desc, 0, out);
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Waits for the queue's sync event up to the deadline (UINT64_MAX: forever). NOT_READY when it passed. */
static ze_result_t wait_sync_event(krt_queue *q, uint64_t deadline)
{
    uint64_t timeout = UINT64_MAX;
    if (deadline != UINT64_MAX) {
        uint64_t now = now_ns();
        timeout = deadline > now ? deadline - now : 0;
    }
    return KRT__ZE(q->ctx->ddi, Event, HostSynchronize)(q->sync_event->ze, timeout);
}

/* A wait covers the commands appended before it began: it appends a barrier that signals the queue's sync
 * event and waits for the event. A wait that times out leaves that barrier in the queue (sync_pending); the
 * next wait waits for it rather than appending another, and is done when that barrier already covers every
 * command appended before the new wait began (the append count says so), else it appends a new barrier. */
krt_result krt__queue_sync_until(krt_queue *q, uint64_t timeout_ns)
{
    if (krt__is_lost(q->ctx))
        return krt__lost_again(q->ctx);
    pthread_mutex_lock(&q->lock);
    int recording = q->rec != NULL;
    pthread_mutex_unlock(&q->lock);
    if (recording)
        return krt__fail(KRT_ERROR_INVALID_STATE, "the queue is recording (krt_recording_begin): its recorded commands "
                                                  "run only when replayed; end the recording first");
    return krt__queue_sync_live(q, timeout_ns);
}

/* The wait itself, without the report of a checked launch's refused access (krt__queue_sync_live). */
static krt_result sync_live(krt_queue *q, uint64_t timeout_ns)
{
    /* A host task's own queue is held back until the task returns: such a wait could never end. */
    if (krt__host_task_current() == q)
        return krt__fail(KRT_ERROR_INVALID_STATE, "a host task cannot wait for its own queue (it would wait for "
                                                  "itself); wait from another thread, or use a later host task");
    uint64_t deadline = UINT64_MAX;
    if (timeout_ns != UINT64_MAX) {
        uint64_t now = now_ns();
        deadline = timeout_ns < UINT64_MAX - now ? now + timeout_ns : UINT64_MAX - 1;
    }
    pthread_mutex_lock(&q->sync_lock);
    pthread_mutex_lock(&q->lock);
    uint64_t target = q->appended;
    pthread_mutex_unlock(&q->lock);
    krt_result r = KRT_SUCCESS;
    ze_result_t zr;
    /* At most two rounds: an earlier wait's barrier, then one of this wait's. */
    for (;;) {
        if (!q->sync_pending) {
            pthread_mutex_lock(&q->lock);
            zr = KRT__ZE(q->ctx->ddi, CommandList, AppendBarrier)(q->list, q->sync_event->ze, 0, NULL);
            q->pending_mark = ++q->appended;
            /* The launches this barrier covers: once it completes, they are no longer in flight (fault.c). */
            q->sync_launches = atomic_load_explicit(&q->inflight.launches, memory_order_relaxed);
            pthread_mutex_unlock(&q->lock);
            if ((r = krt__ze_ctx(q->ctx, q, zr, "zeCommandListAppendBarrier (a wait for the queue)")) != KRT_SUCCESS)
                break;
            q->sync_pending = 1;
        }
        zr = wait_sync_event(q, deadline);
        if (zr == ZE_RESULT_NOT_READY) {
            r = krt__fail(KRT_TIMEOUT, "the queue did not complete within %llu ns", (unsigned long long)timeout_ns);
            break;
        }
        if ((r = krt__ze_ctx(q->ctx, q, zr, "zeEventHostSynchronize (a wait for the queue)")) != KRT_SUCCESS)
            break;
        if ((r = krt__ze(KRT__ZE(q->ctx->ddi, Event, HostReset)(q->sync_event->ze), "zeEventHostReset")) != KRT_SUCCESS)
            break;
        q->sync_pending = 0;
        if (q->sync_launches > atomic_load_explicit(&q->inflight.done, memory_order_relaxed))
            atomic_store_explicit(&q->inflight.done, q->sync_launches, memory_order_relaxed);
        if (q->pending_mark >= target)
            break;
    }
    pthread_mutex_unlock(&q->sync_lock);
    return r;
}

krt_result krt__queue_sync_live(krt_queue *q, uint64_t timeout_ns)
{
    krt_result r = sync_live(q, timeout_ns);
    return r == KRT_SUCCESS ? krt__checks_report(q->ctx) : r;
}

krt_result krt__queue_sync(krt_queue *q)
{
    return krt__queue_sync_until(q, UINT64_MAX);
}

int krt__queue_idle(krt_queue *q, uint64_t *appended)
{
    pthread_mutex_lock(&q->sync_lock);
    pthread_mutex_lock(&q->lock);
    int idle = !q->sync_pending && q->appended == q->pending_mark;
    if (appended)
        *appended = q->appended;
    pthread_mutex_unlock(&q->lock);
    pthread_mutex_unlock(&q->sync_lock);
    return idle;
}

krt_result krt_queue_synchronize(krt_queue *queue)
{
    if (!queue)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_queue_synchronize: queue is NULL");
    return krt__queue_sync(queue);
}

krt_result krt_queue_synchronize_timeout(krt_queue *queue, uint64_t timeout_ns)
{
    if (!queue)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_queue_synchronize_timeout: queue is NULL");
    return krt__queue_sync_until(queue, timeout_ns);
}

/* The caller holds ctx->lock. */
static void queue_free_locked(krt_queue *q)
{
    /* A recording still open on the queue goes with it; replays' command queue and lists too. */
    if (q->rec)
        krt__recording_free_locked(q->rec);
    q->rec = NULL;
    krt__queue_replay_fini_locked(q);
    KRT__ZE(q->ctx->ddi, CommandList, Destroy)(q->list);
    krt__event_destroy_locked(q->sync_event);
    pthread_mutex_destroy(&q->lock);
    pthread_mutex_destroy(&q->sync_lock);
    free(q);
}

/* The caller holds ctx->lock. A krt_context_synchronize of another thread that is waiting on the queue still holds
 * it (sync_refs): the queue leaves the context's list now and is freed when that wait is over. */
void krt__queue_destroy_locked(krt_queue *q)
{
    krt__host_worker_destroy_locked(q); /* before the list and the events its thread uses go */
    krt_context *ctx = q->ctx;
    for (krt_queue **p = &ctx->queues; *p; p = &(*p)->next)
        if (*p == q) {
            *p = q->next;
            break;
        }
    if (ctx->default_queue == q)
        ctx->default_queue = NULL;
    if (q->sync_refs) {
        q->unlinked = 1;
        return;
    }
    queue_free_locked(q);
}

void krt_queue_destroy(krt_queue *queue)
{
    if (!queue || queue->is_default)
        return;
    if (krt__host_task_current() == queue) {
        krt__logf(&queue->ctx->log, KRT_LOG_ERROR, "krt_queue_destroy ignored: called from a host task of the queue");
        return;
    }
    /* A host task may append to its own queue while the queue is waited for: wait again until a wait leaves
     * nothing appended after its barrier, so that no command outlives the list. */
    while (sync_live(queue, UINT64_MAX) == KRT_SUCCESS && !krt__queue_idle(queue, NULL)) {
    }
    krt_context *ctx = queue->ctx;
    pthread_mutex_lock(&ctx->lock);
    krt__queue_destroy_locked(queue);
    pthread_mutex_unlock(&ctx->lock);
}

krt_queue *krt_context_default_queue(krt_context *ctx)
{
    return ctx ? ctx->default_queue : NULL;
}

krt_result krt_context_synchronize(krt_context *ctx)
{
    if (!ctx)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_context_synchronize: ctx is NULL");
    krt_queue *own = krt__host_task_current();
    if (own && own->ctx == ctx)
        return krt__fail(KRT_ERROR_INVALID_STATE, "krt_context_synchronize: a host task cannot wait for its own "
                                                  "context (its queue waits for the task)");
    if (krt__is_lost(ctx))
        return krt__lost_again(ctx);
    /* The queues are copied out under the context lock and waited for without it, so that other threads can
     * allocate, create events or queues meanwhile. Each copied queue is held (sync_refs): krt_queue_destroy on
     * another thread meanwhile unlinks it and leaves the freeing to this call. Past 64 queues the lock is held
     * throughout. */
    enum { SNAPSHOT = 64 };
    krt_queue *snapshot[SNAPSHOT];
    uint32_t n = 0;
    int overflow = 0;
    pthread_mutex_lock(&ctx->lock);
    uint64_t mark = krt__checks_mark_locked(ctx);
    for (krt_queue *q = ctx->queues; q; q = q->next) {
        if (n == SNAPSHOT) {
            overflow = 1;
            break;
        }
        snapshot[n++] = q;
    }
    if (!overflow)
        for (uint32_t i = 0; i < n; i++)
            snapshot[i]->sync_refs++;
    krt_result r = KRT_SUCCESS;
    if (overflow) {
        for (krt_queue *q = ctx->queues; q; q = q->next) {
            krt_result qr = sync_live(q, UINT64_MAX);
            if (qr != KRT_SUCCESS && r == KRT_SUCCESS)
                r = qr;
        }
        pthread_mutex_unlock(&ctx->lock);
        return r == KRT_SUCCESS ? krt__checks_report(ctx) : r;
    }
    pthread_mutex_unlock(&ctx->lock);
    for (uint32_t i = 0; i < n; i++) {
        krt_result qr = sync_live(snapshot[i], UINT64_MAX);
        if (qr != KRT_SUCCESS && r == KRT_SUCCESS)
            r = qr;
    }
    pthread_mutex_lock(&ctx->lock);
    for (uint32_t i = 0; i < n; i++)
        if (--snapshot[i]->sync_refs == 0 && snapshot[i]->unlinked)
            queue_free_locked(snapshot[i]);
    pthread_mutex_unlock(&ctx->lock);
    if (r == KRT_SUCCESS && ctx->checks) {
        krt__checks_idle(ctx, mark);
        r = krt__checks_report(ctx);
    }
    return r;
}

krt_result krt_queue_barrier(krt_queue *queue, const krt_barrier_desc *desc)
{
    if (!queue)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_queue_barrier: queue is NULL");
    if (krt__is_lost(queue->ctx))
        return krt__lost_again(queue->ctx);
    krt_barrier_desc d = desc ? *desc : (krt_barrier_desc){ 0 };
    if (d.num_wait > 0 && !d.wait)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_queue_barrier: wait is NULL with num_wait %u", d.num_wait);
    krt_result r = krt__events_check(queue->ctx, "krt_queue_barrier", d.wait, d.num_wait, d.signal);
    ze_event_handle_t stack[16], *wait = stack;
    if (r == KRT_SUCCESS)
        r = krt__event_handles(d.wait, d.num_wait, stack, &wait);
    if (r != KRT_SUCCESS)
        return r;
    pthread_mutex_lock(&queue->lock);
    ze_result_t zr = KRT__ZE(queue->ctx->ddi, CommandList, AppendBarrier)(krt__queue_target(queue),
                                                                          d.signal ? d.signal->ze : NULL, d.num_wait,
                                                                          d.num_wait ? wait : NULL);
    queue->appended++;
    if (queue->rec && zr == ZE_RESULT_SUCCESS)
        krt__queue_count(queue, KRT__REC_BARRIER);
    pthread_mutex_unlock(&queue->lock);
    if (wait != stack)
        free(wait);
    return krt__ze_ctx(queue->ctx, queue, zr, "zeCommandListAppendBarrier");
}

krt_result krt_queue_native(krt_queue *queue, void **out)
{
    if (!queue || !out)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_queue_native: %s is NULL", queue ? "out" : "queue");
    if (!queue->native)
        return krt__fail(KRT_ERROR_UNSUPPORTED_FEATURE,
                         "krt_queue_native: the device's driver has no native queue (%s is ze_cuda's)",
                         ZE_KRT_NATIVE_QUEUE_NAME);
    *out = queue->native;
    return KRT_SUCCESS;
}
