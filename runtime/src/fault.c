/*
 * fault.c: a lost device (issue 39). When a driver answers ZE_RESULT_ERROR_DEVICE_LOST (a kernel faulted on a GPU,
 * the device hung or was reset; krt's drivers also when KRT_ZE_FAULT injects a fault), the context is lost for good:
 * the first call that sees it writes a message naming the device, the call and the kernels that were in flight on the
 * queue (krt knows its launches: each queue keeps the first few since its last completed wait, krt__inflight), and
 * every later call that would make the device work answers KRT_ERROR_DEVICE_LOST with that same message, never another
 * cause (a driver's later failures on a lost device, an allocation's say, would name other ones). Destroying the
 * context still works; once every context on the device is destroyed, krt's drivers recover the device and a new
 * context works (docs/design.md, "Robustness").
 *
 * Called by the files that talk to the driver (queue.c, event.c, launch.c, memory.c, fill.c, host_task.c, record.c,
 * module.c, kernel.c, context.c); calls none of them.
 */
#include "krt_internal.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* Appends to the message; cut at its end. */
static void put(char *buf, size_t size, size_t *at, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t size, size_t *at, const char *fmt, ...)
{
    if (*at >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *at, size - *at, fmt, ap);
    va_end(ap);
    if (n > 0)
        *at = *at + (size_t)n < size ? *at + (size_t)n : size;
}

/* The kernels of one queue's record, oldest first: "krt_wild_write, krt_iota (2 launches since its last completed
 * wait)". Reads the slots without a lock: a launch appended meanwhile is listed or not. Returns the launches in
 * flight. */
static uint64_t list_inflight(krt__inflight *f, char *buf, size_t size, size_t *at)
{
    uint64_t n = atomic_load_explicit(&f->launches, memory_order_relaxed);
    uint64_t done = atomic_load_explicit(&f->done, memory_order_relaxed);
    if (n <= done)
        return 0;
    uint64_t named = 0;
    for (uint64_t s = done; s < n && s < done + KRT__INFLIGHT; s++) {
        const struct krt_kernel *k = atomic_load_explicit(&f->kernel[s % KRT__INFLIGHT], memory_order_relaxed);
        if (atomic_load_explicit(&f->seq[s % KRT__INFLIGHT], memory_order_relaxed) != s + 1 || !k)
            continue;
        put(buf, size, at, "%s%s", named ? ", " : "", k->refl->name);
        named++;
    }
    uint64_t total = n - done;
    if (named == 0)
        put(buf, size, at, "%llu launch%s not named", (unsigned long long)total, total == 1 ? "" : "es");
    else if (named < total)
        put(buf, size, at, " and %llu more", (unsigned long long)(total - named));
    put(buf, size, at, " (%llu launch%s since its last completed wait)", (unsigned long long)total,
        total == 1 ? "" : "es");
    return total;
}

/* The queues of ctx but skip that have kernels in flight, after head: "the default queue: a, b (...); another queue: c
 * (...)". Caller holds ctx->lock. Returns the launches listed. */
static uint64_t list_queues(krt_context *ctx, const krt_queue *skip, const char *head, char *m, size_t size,
                            size_t *at)
{
    uint64_t any = 0;
    for (krt_queue *o = ctx->queues; o; o = o->next) {
        if (o == skip)
            continue;
        size_t before = *at;
        put(m, size, at, "%s%s queue: ", any ? "; " : head, o->is_default ? "the default" : "another");
        uint64_t n = list_inflight(&o->inflight, m, size, at);
        if (!n) {
            *at = before; /* a queue with nothing in flight is left out */
            if (*at < size)
                m[*at] = '\0';
        }
        any += n;
    }
    return any;
}

krt_result krt__lost(krt_context *ctx, krt_queue *q, const char *what)
{
    pthread_mutex_lock(&ctx->lost_lock);
    if (!atomic_load_explicit(&ctx->lost, memory_order_relaxed)) {
        char *m = ctx->lost_message;
        size_t size = sizeof ctx->lost_message, at = 0;
        put(m, size, &at,
            "the device was lost: %s (driver %s, device %u of the driver) answered ZE_RESULT_ERROR_DEVICE_LOST to %s",
            ctx->info.name, ctx->info.driver_name, ctx->info.device_index, what);
        if (q) {
            put(m, size, &at, "; kernels in flight on the queue: ");
            if (!list_inflight(&q->inflight, m, size, &at))
                put(m, size, &at, "none (its work since its last completed wait was copies, fills or host tasks)");
            /* A device's fault is seen by whichever queue waits first (a GPU's CUDA context fails as a whole), so the
             * other queues' kernels are named too. Their list needs ctx->lock, which this caller may be unable to
             * take (a host-task thread the destroy joins under it, an append under the queue's lock): waited for a
             * while, else left out. */
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_nsec += 200000000L;
            if (until.tv_nsec >= 1000000000L) {
                until.tv_sec++;
                until.tv_nsec -= 1000000000L;
            }
            if (pthread_mutex_timedlock(&ctx->lock, &until) == 0) {
                list_queues(ctx, q, "; on the context's other queues: ", m, size, &at);
                pthread_mutex_unlock(&ctx->lock);
            }
        } else {
            pthread_mutex_lock(&ctx->lock);
            if (!list_queues(ctx, NULL, "; kernels in flight on the context's queues: ", m, size, &at))
                put(m, size, &at, "; no kernel in flight on the context's queues");
            pthread_mutex_unlock(&ctx->lock);
        }
        put(m, size, &at, ". Every later call on this context fails the same way; destroy it (and every other "
                          "context on the device) and create a new one");
        atomic_store_explicit(&ctx->lost, 1, memory_order_release);
        krt__logf(&ctx->log, KRT_LOG_ERROR, "%s", ctx->lost_message);
    }
    pthread_mutex_unlock(&ctx->lost_lock);
    return krt__lost_again(ctx);
}

krt_result krt__lost_again(krt_context *ctx)
{
    return krt__fail(KRT_ERROR_DEVICE_LOST, "%s", ctx->lost_message);
}

krt_result krt__ze_ctx(krt_context *ctx, krt_queue *q, ze_result_t zr, const char *what)
{
    if (zr == ZE_RESULT_ERROR_DEVICE_LOST)
        return krt__lost(ctx, q, what);
    return krt__ze(zr, what);
}

static void forget(krt__inflight *f, const krt_module *module)
{
    for (int i = 0; i < KRT__INFLIGHT; i++) {
        const struct krt_kernel *k = atomic_load_explicit(&f->kernel[i], memory_order_relaxed);
        if (k && k->module == module)
            atomic_store_explicit(&f->kernel[i], NULL, memory_order_relaxed);
    }
}

void krt__inflight_forget_module(krt_context *ctx, const krt_module *module)
{
    for (krt_queue *q = ctx->queues; q; q = q->next) {
        forget(&q->inflight, module);
        pthread_mutex_lock(&q->lock);
        if (q->rec)
            forget(&q->rec->inflight, module);
        pthread_mutex_unlock(&q->lock);
    }
    for (krt_recording *rec = ctx->recordings; rec; rec = rec->next)
        forget(&rec->inflight, module);
}
