/*
 * event.c: events come from pools of 64 owned by the context, one chain of pools for plain events and one
 * for kernel-timestamp events; a new pool is added when every slot is taken. All events are host-visible
 * so that the host can wait on them.
 */
#include "krt_internal.h"

#include <stdlib.h>

#define POOL_SIZE 64

static krt_result pool_add(krt_context *ctx, uint32_t timestamp, krt__event_pool **out)
{
    krt__event_pool *p = calloc(1, sizeof *p);
    if (!p)
        return krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for an event pool");
    ze_event_pool_desc_t pd = {
        .stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
        .flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE | (timestamp ? ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP : 0),
        .count = POOL_SIZE,
    };
    /* A context sharing its Level Zero context with others' devices makes its pools visible to every device of it
     * (no device list), so that their queues can wait on its events. */
    uint32_t nd = atomic_load_explicit(&ctx->share->shared, memory_order_acquire) ? 0 : 1;
    krt_result r = krt__ze(KRT__ZE(ctx->ddi, EventPool, Create)(ctx->ze, &pd, nd, nd ? &ctx->device : NULL, &p->pool),
                           "zeEventPoolCreate");
    if (r != KRT_SUCCESS) {
        free(p);
        return r;
    }
    p->timestamp = timestamp;
    p->next = ctx->pools;
    ctx->pools = p;
    *out = p;
    return KRT_SUCCESS;
}

krt_result krt__event_create(krt_context *ctx, uint32_t flags, int internal, krt_event **out)
{
    krt_event *e = calloc(1, sizeof *e);
    if (!e)
        return krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for an event");
    uint32_t timestamp = (flags & KRT_EVENT_FLAG_TIMESTAMP) ? 1 : 0;
    pthread_mutex_lock(&ctx->lock);
    krt__event_pool *pool = NULL;
    for (krt__event_pool *p = ctx->pools; p; p = p->next)
        if (p->timestamp == timestamp && p->used != UINT64_MAX) {
            pool = p;
            break;
        }
    krt_result r = KRT_SUCCESS;
    if (!pool)
        r = pool_add(ctx, timestamp, &pool);
    if (r == KRT_SUCCESS) {
        uint32_t slot = 0;
        while (pool->used & ((uint64_t)1 << slot))
            slot++;
        ze_event_desc_t ed = {
            .stype = ZE_STRUCTURE_TYPE_EVENT_DESC,
            .index = slot,
            .signal = ZE_EVENT_SCOPE_FLAG_HOST,
            .wait = ZE_EVENT_SCOPE_FLAG_HOST,
        };
        r = krt__ze(KRT__ZE(ctx->ddi, Event, Create)(pool->pool, &ed, &e->ze), "zeEventCreate");
        if (r == KRT_SUCCESS) {
            pool->used |= (uint64_t)1 << slot;
            e->ctx = ctx;
            e->pool = pool;
            e->slot = slot;
            e->flags = flags;
            e->internal = internal;
            e->next = ctx->events;
            ctx->events = e;
        }
    }
    pthread_mutex_unlock(&ctx->lock);
    if (r != KRT_SUCCESS) {
        free(e);
        return r;
    }
    *out = e;
    return KRT_SUCCESS;
}

krt_result krt_event_create(krt_context *ctx, const krt_event_desc *desc, krt_event **out)
{
    if (!ctx || !out)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_event_create: %s is NULL", ctx ? "out" : "ctx");
    uint32_t flags = desc ? desc->flags : 0;
    if (flags & ~(uint32_t)KRT_EVENT_FLAG_TIMESTAMP)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_event_create: unknown flags 0x%x", flags);
    if (krt__is_lost(ctx))
        return krt__lost_again(ctx);
    return krt__event_create(ctx, flags, 0, out);
}

/* The caller holds ctx->lock. */
void krt__event_destroy_locked(krt_event *e)
{
    krt_context *ctx = e->ctx;
    for (krt_event **p = &ctx->events; *p; p = &(*p)->next)
        if (*p == e) {
            *p = e->next;
            break;
        }
    KRT__ZE(ctx->ddi, Event, Destroy)(e->ze);
    e->pool->used &= ~((uint64_t)1 << e->slot);
    free(e);
}

void krt_event_destroy(krt_event *event)
{
    if (!event || event->internal)
        return;
    krt_context *ctx = event->ctx;
    pthread_mutex_lock(&ctx->lock);
    krt__event_destroy_locked(event);
    pthread_mutex_unlock(&ctx->lock);
}

/* The caller holds ctx->lock; every event is gone. */
void krt__event_pools_destroy(krt_context *ctx)
{
    while (ctx->pools) {
        krt__event_pool *next = ctx->pools->next;
        KRT__ZE(ctx->ddi, EventPool, Destroy)(ctx->pools->pool);
        free(ctx->pools);
        ctx->pools = next;
    }
}

krt_result krt_event_synchronize(krt_event *event, uint64_t timeout_ns)
{
    if (!event)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_event_synchronize: event is NULL");
    krt_context *ctx = event->ctx;
    if (krt__is_lost(ctx))
        return krt__lost_again(ctx);
    ze_result_t zr = KRT__ZE(ctx->ddi, Event, HostSynchronize)(event->ze, timeout_ns);
    if (zr == ZE_RESULT_NOT_READY)
        return KRT_TIMEOUT;
    krt_result r = krt__ze_ctx(ctx, NULL, zr, "zeEventHostSynchronize");
    /* An event the host set (a host task's, skipped because its queue's device was lost) says nothing of the device:
     * the context does. */
    if (r == KRT_SUCCESS && krt__is_lost(ctx))
        return krt__lost_again(ctx);
    return r == KRT_SUCCESS ? krt__checks_report(ctx) : r;
}

krt_result krt_event_query(krt_event *event)
{
    if (!event)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_event_query: event is NULL");
    if (krt__is_lost(event->ctx))
        return krt__lost_again(event->ctx);
    return krt__ze_ctx(event->ctx, NULL, KRT__ZE(event->ctx->ddi, Event, QueryStatus)(event->ze), "zeEventQueryStatus");
}

krt_result krt_event_reset(krt_event *event)
{
    if (!event)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_event_reset: event is NULL");
    if (krt__is_lost(event->ctx))
        return krt__lost_again(event->ctx);
    return krt__ze(KRT__ZE(event->ctx->ddi, Event, HostReset)(event->ze), "zeEventHostReset");
}

krt_result krt_event_kernel_time(krt_event *event, uint64_t *start_ns, uint64_t *end_ns)
{
    if (!event || !start_ns || !end_ns)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_event_kernel_time: %s is NULL",
                         !event ? "event" : !start_ns ? "start_ns" : "end_ns");
    if (!(event->flags & KRT_EVENT_FLAG_TIMESTAMP))
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT,
                         "krt_event_kernel_time: the event was created without KRT_EVENT_FLAG_TIMESTAMP");
    if (krt__is_lost(event->ctx))
        return krt__lost_again(event->ctx);
    ze_result_t zr = KRT__ZE(event->ctx->ddi, Event, QueryStatus)(event->ze);
    if (zr == ZE_RESULT_NOT_READY)
        return KRT_NOT_READY;
    krt_result r = krt__ze_ctx(event->ctx, NULL, zr, "zeEventQueryStatus");
    if (r != KRT_SUCCESS)
        return r;
    ze_kernel_timestamp_result_t ts;
    zr = KRT__ZE(event->ctx->ddi, Event, QueryKernelTimestamp)(event->ze, &ts);
    if (zr == ZE_RESULT_ERROR_UNSUPPORTED_FEATURE)
        return krt__fail(KRT_ERROR_UNSUPPORTED_FEATURE, "the driver gives no kernel timestamps");
    if ((r = krt__ze(zr, "zeEventQueryKernelTimestamp")) != KRT_SUCCESS)
        return r;
    /* With the base device-properties stype, timerResolution is nanoseconds per tick. Kernel timestamps
     * carry kernelTimestampValidBits bits and may wrap once between start and end. */
    const ze_device_properties_t *dp = &event->ctx->dev->props;
    uint64_t res = dp->timerResolution ? dp->timerResolution : 1;
    uint32_t bits = dp->kernelTimestampValidBits;
    uint64_t start = ts.global.kernelStart, end = ts.global.kernelEnd;
    if (end < start && bits > 0 && bits < 64)
        end += (uint64_t)1 << bits;
    *start_ns = start * res;
    *end_ns = end * res;
    return KRT_SUCCESS;
}

krt_result krt__events_check(krt_context *ctx, const char *fn, krt_event *const *wait, uint32_t num_wait,
                             const krt_event *signal)
{
    /* Events of the contexts sharing ctx's Level Zero context (other devices') are visible to its queues. */
    for (uint32_t i = 0; i < num_wait; i++) {
        if (!wait[i])
            return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "%s: wait[%u] is NULL", fn, i);
        if (wait[i]->ctx != ctx && wait[i]->ctx->ze != ctx->ze)
            return krt__fail(KRT_ERROR_INVALID_ARGUMENT,
                             "%s: wait[%u] is an event of another context (on %s) that does not share this one's "
                             "Level Zero context; create one of them with krt_context_desc.share set to the other",
                             fn, i, wait[i]->ctx->info.name);
    }
    if (signal && signal->ctx != ctx)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT,
                         "%s: the signal event belongs to another context (on %s): a command signals only events of "
                         "its own queue's context; wait on that event from the other device instead",
                         fn, signal->ctx->info.name);
    return KRT_SUCCESS;
}

krt_result krt__event_handles(krt_event *const *wait, uint32_t num_wait, ze_event_handle_t *stack,
                              ze_event_handle_t **out)
{
    ze_event_handle_t *h = stack;
    if (num_wait > 16 && !(h = malloc(num_wait * sizeof *h)))
        return krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for %u wait events", num_wait);
    for (uint32_t i = 0; i < num_wait; i++)
        h[i] = wait[i]->ze;
    *out = h;
    return KRT_SUCCESS;
}
