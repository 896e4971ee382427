/*
 * record.c: recorded launches. A queue that records appends to a regular (non-immediate) command list of its
 * own instead of its immediate list; krt_recording_end closes that list, and a replay executes it on a command
 * queue with zeCommandQueueExecuteCommandLists, once per replay, whatever it holds.
 *
 * A krt queue is an immediate list, and Level Zero 1.4 has no way to append a regular list to an immediate one.
 * So each queue that replays gets a command queue of its own, and two events order the replay within the queue:
 *
 *     list:  barrier (waits: the replay's wait events; signals: rin)   -- the queue's earlier work is done
 *     cq:    [pro: wait on rin, reset rin] [the recording] [epi: barrier signalling rout]
 *     list:  barrier (waits: rout; signals: the replay's signal event) -- later commands wait for the replay
 *            reset rout                                                -- ready for the next replay
 *
 * The queue is in order, so the barrier of replay n + 1 signals rin only after replay n's wait on rout, which
 * comes after replay n's pro reset rin; and rout is reset before the next epi can signal it. Everything happens
 * under the queue's lock, so replays from several threads stay whole.
 */
#include "krt_internal.h"

#include <stdlib.h>

/* Serialises the first replay of each queue (events are created under ctx->lock, which must never be taken
 * while a queue's lock is held: krt_context_synchronize takes them in the other order). */
static pthread_mutex_t replay_create_lock = PTHREAD_MUTEX_INITIALIZER;

krt_result krt_recording_begin(krt_queue *queue, const krt_recording_desc *desc)
{
    if (!queue)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_recording_begin: queue is NULL");
    if (desc && desc->flags)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_recording_begin: desc->flags %#x is not 0 (reserved)",
                         desc->flags);
    krt_context *ctx = queue->ctx;
    if (krt__is_lost(ctx))
        return krt__lost_again(ctx);
    krt_recording *rec = calloc(1, sizeof *rec);
    if (!rec)
        return krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "krt_recording_begin: out of host memory");
    rec->ctx = ctx;
    atomic_init(&rec->replays, 0);
    pthread_mutex_init(&rec->qlock, NULL);
    ze_command_list_desc_t ld = { .stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC,
                                  .commandQueueGroupOrdinal = ctx->dev->compute_ordinal };
    krt_result r = krt__ze_ctx(ctx, NULL, KRT__ZE(ctx->ddi, CommandList, Create)(ctx->ze, ctx->device, &ld, &rec->list),
                               "zeCommandListCreate (a recording)");
    if (r != KRT_SUCCESS) {
        pthread_mutex_destroy(&rec->qlock);
        free(rec);
        return r;
    }
    pthread_mutex_lock(&queue->lock);
    if (queue->rec) {
        pthread_mutex_unlock(&queue->lock);
        KRT__ZE(ctx->ddi, CommandList, Destroy)(rec->list);
        pthread_mutex_destroy(&rec->qlock);
        free(rec);
        return krt__fail(KRT_ERROR_INVALID_STATE, "krt_recording_begin: the queue is recording already (one "
                                                  "recording at a time per queue; krt_recording_end it first)");
    }
    queue->rec = rec;
    pthread_mutex_unlock(&queue->lock);
    return KRT_SUCCESS;
}

krt_result krt_recording_end(krt_queue *queue, krt_recording **out)
{
    if (!queue || !out)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_recording_end: %s is NULL", queue ? "out" : "queue");
    krt_context *ctx = queue->ctx;
    pthread_mutex_lock(&queue->lock);
    krt_recording *rec = queue->rec;
    queue->rec = NULL;
    pthread_mutex_unlock(&queue->lock);
    if (!rec)
        return krt__fail(KRT_ERROR_INVALID_STATE, "krt_recording_end: the queue is not recording "
                                                  "(krt_recording_begin first)");
    krt_result r = KRT_SUCCESS;
    /* On a lost context the queue stops recording and the recording is dropped: nothing of it could run. */
    if (krt__is_lost(ctx))
        r = krt__lost_again(ctx);
    else if (rec->broken)
        r = krt__fail(KRT_ERROR_DRIVER, "krt_recording_end: an append failed part-way (a recorded host task); the "
                                        "recording is dropped");
    else
        r = krt__ze(KRT__ZE(ctx->ddi, CommandList, Close)(rec->list), "zeCommandListClose");
    pthread_mutex_lock(&ctx->lock);
    if (r != KRT_SUCCESS) {
        krt__recording_free_locked(rec);
    } else {
        rec->next = ctx->recordings;
        ctx->recordings = rec;
    }
    pthread_mutex_unlock(&ctx->lock);
    if (r == KRT_SUCCESS)
        *out = rec;
    return r;
}

/* The queue's command queue, its two lists and its two events, made at the queue's first replay. */
static krt_result replay_state(krt_queue *q)
{
    if (atomic_load_explicit(&q->replay_ready, memory_order_acquire))
        return KRT_SUCCESS;
    krt_context *ctx = q->ctx;
    const ze_dditable_t *ddi = ctx->ddi;
    krt_result r = KRT_SUCCESS;
    pthread_mutex_lock(&replay_create_lock);
    if (atomic_load_explicit(&q->replay_ready, memory_order_relaxed))
        goto out;
    ze_command_queue_desc_t qd = { .stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                   .ordinal = ctx->dev->compute_ordinal,
                                   .mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
                                   .priority = ZE_COMMAND_QUEUE_PRIORITY_NORMAL };
    ze_command_list_desc_t ld = { .stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC,
                                  .commandQueueGroupOrdinal = ctx->dev->compute_ordinal };
    if (!q->rin && (r = krt__event_create(ctx, 0, 1, &q->rin)) != KRT_SUCCESS)
        goto out;
    if (!q->rout && (r = krt__event_create(ctx, 0, 1, &q->rout)) != KRT_SUCCESS)
        goto out;
    if (!q->cq && (r = krt__ze_ctx(ctx, q, KRT__ZE(ddi, CommandQueue, Create)(ctx->ze, ctx->device, &qd, &q->cq),
                                   "zeCommandQueueCreate (replays)")) != KRT_SUCCESS)
        goto out;
    if (!q->pro) {
        ze_command_list_handle_t l;
        if ((r = krt__ze(KRT__ZE(ddi, CommandList, Create)(ctx->ze, ctx->device, &ld, &l), "zeCommandListCreate")))
            goto out;
        ze_result_t zr = KRT__ZE(ddi, CommandList, AppendWaitOnEvents)(l, 1, &q->rin->ze);
        if (zr == ZE_RESULT_SUCCESS)
            zr = KRT__ZE(ddi, CommandList, AppendEventReset)(l, q->rin->ze);
        if (zr == ZE_RESULT_SUCCESS)
            zr = KRT__ZE(ddi, CommandList, Close)(l);
        if ((r = krt__ze(zr, "the replay's first list")) != KRT_SUCCESS) {
            KRT__ZE(ddi, CommandList, Destroy)(l);
            goto out;
        }
        q->pro = l;
    }
    if (!q->epi) {
        ze_command_list_handle_t l;
        if ((r = krt__ze(KRT__ZE(ddi, CommandList, Create)(ctx->ze, ctx->device, &ld, &l), "zeCommandListCreate")))
            goto out;
        ze_result_t zr = KRT__ZE(ddi, CommandList, AppendBarrier)(l, q->rout->ze, 0, NULL);
        if (zr == ZE_RESULT_SUCCESS)
            zr = KRT__ZE(ddi, CommandList, Close)(l);
        if ((r = krt__ze(zr, "the replay's last list")) != KRT_SUCCESS) {
            KRT__ZE(ddi, CommandList, Destroy)(l);
            goto out;
        }
        q->epi = l;
    }
    atomic_store_explicit(&q->replay_ready, 1, memory_order_release);
out:
    pthread_mutex_unlock(&replay_create_lock);
    return r;
}

void krt__queue_replay_fini_locked(krt_queue *q)
{
    const ze_dditable_t *ddi = q->ctx->ddi;
    for (krt_recording *rec = q->ctx->recordings; rec; rec = rec->next) {
        pthread_mutex_lock(&rec->qlock);
        for (uint32_t i = 0; i < rec->num_queues; i++)
            if (rec->queues[i] == q) {
                rec->queues[i] = rec->queues[--rec->num_queues];
                break;
            }
        pthread_mutex_unlock(&rec->qlock);
    }
    if (q->cq) {
        KRT__ZE(ddi, CommandQueue, Synchronize)(q->cq, UINT64_MAX);
        KRT__ZE(ddi, CommandQueue, Destroy)(q->cq);
    }
    if (q->pro)
        KRT__ZE(ddi, CommandList, Destroy)(q->pro);
    if (q->epi)
        KRT__ZE(ddi, CommandList, Destroy)(q->epi);
    if (q->rin)
        krt__event_destroy_locked(q->rin);
    if (q->rout)
        krt__event_destroy_locked(q->rout);
    q->cq = NULL;
    q->pro = q->epi = NULL;
    q->rin = q->rout = NULL;
    atomic_store_explicit(&q->replay_ready, 0, memory_order_relaxed);
}

krt_result krt_replay(krt_recording *rec, const krt_replay_desc *desc)
{
    if (!rec || !desc)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_replay: %s is NULL", rec ? "desc" : "recording");
    krt_context *ctx = rec->ctx;
    if (desc->num_wait > 0 && !desc->wait)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_replay: wait is NULL with num_wait %u", desc->num_wait);
    if (krt__is_lost(ctx))
        return krt__lost_again(ctx);
    krt_queue *q = desc->queue ? desc->queue : ctx->default_queue;
    if (q->ctx != ctx)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_replay: the queue belongs to another context than the "
                                                     "recording's (a recording replays on its own context's queues)");
    krt_result r = krt__events_check(ctx, "krt_replay", desc->wait, desc->num_wait, desc->signal);
    if (r != KRT_SUCCESS)
        return r;
    if ((r = replay_state(q)) != KRT_SUCCESS)
        return r;
    /* The queue joins the recording's list of queues to wait for at its destroy. */
    pthread_mutex_lock(&rec->qlock);
    uint32_t at = 0;
    while (at < rec->num_queues && rec->queues[at] != q)
        at++;
    if (at == rec->num_queues) {
        if (rec->num_queues == rec->cap_queues) {
            uint32_t cap = rec->cap_queues ? rec->cap_queues * 2 : 4;
            krt_queue **n = realloc(rec->queues, cap * sizeof *n);
            if (!n) {
                pthread_mutex_unlock(&rec->qlock);
                return krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "krt_replay: out of host memory");
            }
            rec->queues = n;
            rec->cap_queues = cap;
        }
        rec->queues[rec->num_queues++] = q;
    }
    pthread_mutex_unlock(&rec->qlock);
    struct krt__host_worker *w = NULL;
    if (rec->num_tasks && (r = krt__host_worker_get(q, &w)) != KRT_SUCCESS)
        return r;

    ze_event_handle_t wait_stack[16], *wait;
    if ((r = krt__event_handles(desc->wait, desc->num_wait, wait_stack, &wait)) != KRT_SUCCESS)
        return r;

    const ze_dditable_t *ddi = ctx->ddi;
    pthread_mutex_lock(&q->lock);
    if (q->rec) {
        pthread_mutex_unlock(&q->lock);
        r = krt__fail(KRT_ERROR_INVALID_STATE, "krt_replay: the queue is recording (a replay is not recorded); "
                                               "replay on another queue or end the recording");
        goto out;
    }
    if (w && (r = krt__host_replay_reserve(w, rec->num_tasks)) != KRT_SUCCESS) {
        pthread_mutex_unlock(&q->lock);
        goto out;
    }
    ze_result_t zr = KRT__ZE(ddi, CommandList, AppendBarrier)(q->list, q->rin->ze, desc->num_wait,
                                                             desc->num_wait ? wait : NULL);
    if ((r = krt__ze_ctx(ctx, q, zr, "zeCommandListAppendBarrier (before a replay)")) != KRT_SUCCESS) {
        pthread_mutex_unlock(&q->lock);
        goto out;
    }
    q->appended++;
    ze_command_list_handle_t lists[3] = { q->pro, rec->list, q->epi };
    zr = KRT__ZE(ddi, CommandQueue, ExecuteCommandLists)(q->cq, 3, lists, NULL);
    if ((r = krt__ze_ctx(ctx, q, zr, "zeCommandQueueExecuteCommandLists (a replay)")) != KRT_SUCCESS) {
        /* Nothing consumes rin: reset it in queue order, so that the next replay waits for its own barrier. */
        if (KRT__ZE(ddi, CommandList, AppendEventReset)(q->list, q->rin->ze) == ZE_RESULT_SUCCESS)
            q->appended++;
        pthread_mutex_unlock(&q->lock);
        goto out;
    }
    /* The recording's kernels are in flight on the queue now (fault.c). */
    krt__inflight_append(&q->inflight, &rec->inflight);
    if (w)
        krt__host_replay_push(w, rec->tasks, rec->num_tasks);
    zr = KRT__ZE(ddi, CommandList, AppendBarrier)(q->list, desc->signal ? desc->signal->ze : NULL, 1, &q->rout->ze);
    if (zr == ZE_RESULT_SUCCESS) {
        q->appended++;
        zr = KRT__ZE(ddi, CommandList, AppendEventReset)(q->list, q->rout->ze);
        if (zr == ZE_RESULT_SUCCESS)
            q->appended++;
    }
    pthread_mutex_unlock(&q->lock);
    if ((r = krt__ze_ctx(ctx, q, zr, "zeCommandListAppendBarrier (after a replay)")) == KRT_SUCCESS)
        atomic_fetch_add_explicit(&rec->replays, 1, memory_order_relaxed);
out:
    if (wait != wait_stack)
        free(wait);
    return r;
}

krt_result krt_recording_info_get(krt_recording *rec, krt_recording_info *out)
{
    if (!rec || !out)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_recording_info_get: %s is NULL", rec ? "out" : "recording");
    *out = rec->info;
    out->replays = atomic_load_explicit(&rec->replays, memory_order_relaxed);
    return KRT_SUCCESS;
}

void krt__recording_free_locked(krt_recording *rec)
{
    krt_context *ctx = rec->ctx;
    for (krt_recording **p = &ctx->recordings; *p; p = &(*p)->next)
        if (*p == rec) {
            *p = rec->next;
            break;
        }
    KRT__ZE(ctx->ddi, CommandList, Destroy)(rec->list);
    for (uint32_t i = 0; i < rec->num_tasks; i++) {
        krt__event_destroy_locked(rec->tasks[i].start);
        krt__event_destroy_locked(rec->tasks[i].done);
    }
    free(rec->tasks);
    free(rec->queues);
    pthread_mutex_destroy(&rec->qlock);
    free(rec);
}

void krt_recording_destroy(krt_recording *rec)
{
    if (!rec)
        return;
    krt_context *ctx = rec->ctx;
    krt_queue *own = krt__host_task_current();
    if (own && own->ctx == ctx) {
        krt__logf(&ctx->log, KRT_LOG_ERROR, "krt_recording_destroy ignored: called from a host task of the context "
                                            "(it waits for the context's queues)");
        return;
    }
    /* Each replay ran on its queue's command queue: waiting for those covers every replay. The recording's own
     * lock keeps those queues alive meanwhile (a queue's destroy takes it before freeing its command queue), and
     * ctx->lock is not held: a recorded host task that calls krt (an allocation, a copy's check) takes it. */
    pthread_mutex_lock(&rec->qlock);
    for (uint32_t i = 0; i < rec->num_queues; i++)
        KRT__ZE(ctx->ddi, CommandQueue, Synchronize)(rec->queues[i]->cq, UINT64_MAX);
    pthread_mutex_unlock(&rec->qlock);
    pthread_mutex_lock(&ctx->lock);
    krt__recording_free_locked(rec);
    pthread_mutex_unlock(&ctx->lock);
}
