/*
 * host_task.c: krt_host_task, a C callback run on a host thread in queue order, on any Level Zero device.
 *
 * A queue is an in-order immediate command list, and the only way to hold its later commands back until the
 * host says so is an event the host signals. So each host task appends three commands:
 *
 *     barrier (waits: the task's wait events; signals: start)   -- the queue's earlier work is done
 *     wait on events (done)                                      -- later commands wait for fn
 *     reset event (done)                                         -- done is ready for the next task
 *
 * and the queue's host-task thread waits for start, resets it, runs fn, signals the task's signal event and
 * then done. One pair of events per queue serves every task of that queue: the queue is in order, so the
 * barrier of task n + 1 signals start only after the reset of task n's done has run, and the thread resets
 * start before it signals done, which is what lets the queue reach the next barrier. Nothing on the launch
 * path changes: a queue without host tasks has a NULL worker and no thread.
 *
 * One thread per queue, not per context, so that a host task that waits on an event of another queue never
 * holds back that queue's own host tasks (with one thread for the context, a task on queue A waiting for work
 * that follows a host task on queue B would wait forever).
 */
#include "krt_internal.h"

#include <signal.h>
#include <stdlib.h>

/* The Level Zero entry points of the queue's context. Where libkrt calls its drivers through a per-context table
 * (KRT__ZE, for a driver that is not behind the loader), host tasks use it too; else the loader's functions. */
#ifdef KRT__ZE
#define HT_ZE(ctx, table, fn) KRT__ZE((ctx)->ddi, table, fn)
#else
#define HT_ZE(ctx, table, fn) ze##table##fn
#endif

typedef struct krt__host_item {
    krt_host_fn fn;     /* NULL: only consume start (an append failed part-way; the call reported it) */
    void *data;
    krt_event *signal;  /* the caller's, or NULL */
    int signal_done;    /* 0 when the queue never got the wait on done (the append failed) */
    krt_event *start, *done; /* a recorded task's own pair (record.c), or NULL for the worker's */
} krt__host_item;

typedef struct krt__host_worker {
    krt_queue *queue;
    krt_event *start, *done;
    pthread_t thread;
    /* Guards the ring and stop; appends to the ring happen under queue->lock as well, so the ring's order is
     * the order of the barriers in the queue. */
    pthread_mutex_t lock;
    pthread_cond_t wake;
    krt__host_item *ring;
    uint32_t head, len, cap;
    int stop;
    /* Guarded by queue->lock: an append of "reset done" failed after the wait on done went in, so done stays
     * signalled after that task; the next task appends the reset first. */
    int reset_owed;
} krt__host_worker;

/* The queue whose host task this thread runs: set once by each worker thread. */
static _Thread_local krt_queue *current_queue;

/* Serialises the creation of workers (the first host task of a queue, from several threads at once). Taken
 * before ctx->lock (events are created under it), never after. */
static pthread_mutex_t create_lock = PTHREAD_MUTEX_INITIALIZER;

krt_queue *krt__host_task_current(void)
{
    return current_queue;
}

static void run_one(krt__host_worker *w, const krt__host_item *t)
{
    /* The barrier signals start once the queue's earlier work and the task's wait events are done. A driver
     * error here (a lost device) leaves the order unknown: fn is skipped, but the events are still signalled
     * so that no synchronize or later command waits forever on this thread. */
    krt_event *start = t->start ? t->start : w->start, *done = t->done ? t->done : w->done;
    ze_result_t zr = HT_ZE(w->queue->ctx, Event, HostSynchronize)(start->ze, UINT64_MAX);
    if (zr == ZE_RESULT_SUCCESS) {
        HT_ZE(w->queue->ctx, Event, HostReset)(start->ze);
        if (t->fn)
            t->fn(t->data);
    } else if (zr == ZE_RESULT_ERROR_DEVICE_LOST) {
        /* The work before the task ran on a device that was lost: fn does not run on what it left. The context is
         * lost from here (fault.c takes no lock of the context with a queue: the destroy holds ctx->lock while it
         * joins this thread), so the waits for the task's signal event say so. */
        krt__lost(w->queue->ctx, w->queue, "zeEventHostSynchronize (a host task's wait for its queue)");
    } else {
        krt__logf(&w->queue->ctx->log, KRT_LOG_ERROR, "host task skipped: waiting for its queue failed (%s)",
                  krt__ze_name(zr));
    }
    if (t->signal)
        HT_ZE(w->queue->ctx, Event, HostSignal)(t->signal->ze);
    if (t->signal_done)
        HT_ZE(w->queue->ctx, Event, HostSignal)(done->ze);
}

static void *worker_main(void *arg)
{
    krt__host_worker *w = arg;
    current_queue = w->queue;
    for (;;) {
        pthread_mutex_lock(&w->lock);
        while (w->len == 0 && !w->stop)
            pthread_cond_wait(&w->wake, &w->lock);
        if (w->len == 0) {
            pthread_mutex_unlock(&w->lock);
            break;
        }
        krt__host_item t = w->ring[w->head];
        w->head = (w->head + 1) % w->cap;
        w->len--;
        pthread_mutex_unlock(&w->lock);
        run_one(w, &t);
    }
    return NULL;
}

static void worker_free(krt_context *ctx, krt__host_worker *w, int lock_ctx)
{
    if (lock_ctx)
        pthread_mutex_lock(&ctx->lock);
    if (w->start)
        krt__event_destroy_locked(w->start);
    if (w->done)
        krt__event_destroy_locked(w->done);
    if (lock_ctx)
        pthread_mutex_unlock(&ctx->lock);
    free(w->ring);
    free(w);
}

static krt_result worker_create(krt_queue *q, krt__host_worker **out)
{
    krt_context *ctx = q->ctx;
    krt__host_worker *w = calloc(1, sizeof *w);
    if (!w)
        return krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "krt_host_task: out of host memory for the queue's worker");
    w->queue = q;
    w->cap = 16;
    w->ring = malloc(w->cap * sizeof *w->ring);
    krt_result r = KRT_SUCCESS;
    if (!w->ring)
        r = krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "krt_host_task: out of host memory for the queue's worker");
    if (r == KRT_SUCCESS)
        r = krt__event_create(ctx, 0, 1, &w->start);
    if (r == KRT_SUCCESS)
        r = krt__event_create(ctx, 0, 1, &w->done);
    if (r != KRT_SUCCESS) {
        worker_free(ctx, w, 1);
        return r;
    }
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->wake, NULL);
    /* The thread runs the caller's code but is krt's: asynchronous signals are blocked in it, so that a
     * process-directed signal (SIGINT, a timer) goes to one of the program's own threads, as it did before the
     * first host task. The signals a fault raises stay open: blocked, the kernel would kill the process without
     * running the program's (or ASan's, or gdb's) handler for a bad access inside fn. */
    sigset_t all, old;
    sigfillset(&all);
    static const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT, SIGSYS };
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
        sigdelset(&all, faults[i]);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int err = pthread_create(&w->thread, NULL, worker_main, w);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (err != 0) {
        pthread_mutex_destroy(&w->lock);
        pthread_cond_destroy(&w->wake);
        worker_free(ctx, w, 1);
        return krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "krt_host_task: the queue's host thread could not be "
                                                       "started (pthread_create: error %d)", err);
    }
    *out = w;
    return KRT_SUCCESS;
}

krt_result krt__host_worker_get(krt_queue *q, krt__host_worker **out)
{
    krt__host_worker *w = atomic_load_explicit(&q->host, memory_order_acquire);
    if (w) {
        *out = w;
        return KRT_SUCCESS;
    }
    krt_result r = KRT_SUCCESS;
    pthread_mutex_lock(&create_lock);
    w = atomic_load_explicit(&q->host, memory_order_acquire);
    if (!w && (r = worker_create(q, &w)) == KRT_SUCCESS)
        atomic_store_explicit(&q->host, w, memory_order_release);
    pthread_mutex_unlock(&create_lock);
    *out = w;
    return r;
}

void krt__host_worker_destroy_locked(krt_queue *q)
{
    krt__host_worker *w = atomic_load_explicit(&q->host, memory_order_acquire);
    if (!w)
        return;
    /* The caller waited for the queue, so every task has run and the thread is idle or about to be; it never
     * takes ctx->lock, which the caller holds. */
    pthread_mutex_lock(&w->lock);
    w->stop = 1;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->wake);
    atomic_store_explicit(&q->host, NULL, memory_order_relaxed);
    worker_free(q->ctx, w, 0);
}

/* Room for n more items, so that the push after the appends cannot fail. Caller holds queue->lock. */
static krt_result ring_reserve_n(krt__host_worker *w, uint32_t n)
{
    krt_result r = KRT_SUCCESS;
    pthread_mutex_lock(&w->lock);
    if (w->cap - w->len < n) {
        uint32_t cap = w->cap * 2;
        while (cap - w->len < n)
            cap *= 2;
        krt__host_item *ring = malloc(cap * sizeof *ring);
        if (!ring) {
            r = krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "krt_host_task: out of host memory for %u pending host tasks",
                          cap);
        } else {
            for (uint32_t i = 0; i < w->len; i++)
                ring[i] = w->ring[(w->head + i) % w->cap];
            free(w->ring);
            w->ring = ring;
            w->head = 0;
            w->cap = cap;
        }
    }
    pthread_mutex_unlock(&w->lock);
    return r;
}

static krt_result ring_reserve(krt__host_worker *w)
{
    return ring_reserve_n(w, 1);
}

static void ring_push(krt__host_worker *w, const krt__host_item *t)
{
    pthread_mutex_lock(&w->lock);
    w->ring[(w->head + w->len) % w->cap] = *t;
    w->len++;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
}

krt_result krt__host_replay_reserve(krt__host_worker *w, uint32_t n)
{
    return ring_reserve_n(w, n);
}

void krt__host_replay_push(krt__host_worker *w, const krt__rec_task *tasks, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        krt__host_item item = { tasks[i].fn, tasks[i].data, tasks[i].signal, 1, tasks[i].start, tasks[i].done };
        ring_push(w, &item);
    }
}

/* A host task on a recording queue: the same three commands, into the recording's list, around a pair of events
 * of the task's own; each replay hands fn to the replaying queue's thread (krt__host_replay_push). *fallback is
 * set when the queue stopped recording meanwhile: the caller appends the task as usual. */
static krt_result record_host_task(krt_context *ctx, krt_queue *q, const krt_host_task_desc *desc,
                                   ze_event_handle_t *wait, int *fallback)
{
    krt_event *start = NULL, *done = NULL;
    krt_result r = krt__event_create(ctx, 0, 1, &start);
    if (r == KRT_SUCCESS)
        r = krt__event_create(ctx, 0, 1, &done);
    if (r != KRT_SUCCESS)
        goto drop;
    pthread_mutex_lock(&q->lock);
    krt_recording *rec = q->rec;
    if (!rec) {
        pthread_mutex_unlock(&q->lock);
        *fallback = 1;
        goto drop;
    }
    if (rec->num_tasks == rec->cap_tasks) {
        uint32_t cap = rec->cap_tasks ? rec->cap_tasks * 2 : 8;
        krt__rec_task *t = realloc(rec->tasks, cap * sizeof *t);
        if (!t) {
            pthread_mutex_unlock(&q->lock);
            r = krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "krt_host_task: out of host memory for a recorded host task");
            goto drop;
        }
        rec->tasks = t;
        rec->cap_tasks = cap;
    }
    ze_result_t zr = HT_ZE(ctx, CommandList, AppendBarrier)(rec->list, start->ze, desc->num_wait,
                                                           desc->num_wait ? wait : NULL);
    int kept = zr == ZE_RESULT_SUCCESS; /* the recording owns the events from here */
    if (kept) {
        /* From here a failure leaves part of the task in the list: the recording cannot be replayed. */
        zr = HT_ZE(ctx, CommandList, AppendWaitOnEvents)(rec->list, 1, &done->ze);
        if (zr == ZE_RESULT_SUCCESS)
            zr = HT_ZE(ctx, CommandList, AppendEventReset)(rec->list, done->ze);
        rec->tasks[rec->num_tasks++] = (krt__rec_task){ desc->fn, desc->data, desc->signal, start, done };
        if (zr != ZE_RESULT_SUCCESS)
            rec->broken = 1;
    }
    r = krt__ze_ctx(ctx, q, zr, "zeCommandListAppendBarrier (a recorded host task)");
    if (r == KRT_SUCCESS)
        krt__queue_count(q, KRT__REC_HOST_TASK);
    pthread_mutex_unlock(&q->lock);
    if (kept)
        return r;
drop:
    pthread_mutex_lock(&ctx->lock);
    if (start)
        krt__event_destroy_locked(start);
    if (done)
        krt__event_destroy_locked(done);
    pthread_mutex_unlock(&ctx->lock);
    return r;
}

krt_result krt_host_task(krt_context *ctx, const krt_host_task_desc *desc)
{
    if (!ctx || !desc)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_host_task: %s is NULL", ctx ? "desc" : "ctx");
    if (!desc->fn)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_host_task: desc->fn is NULL");
    if (desc->num_wait > 0 && !desc->wait)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_host_task: wait is NULL with num_wait %u", desc->num_wait);
    krt_queue *q = desc->queue ? desc->queue : ctx->default_queue;
    if (q->ctx != ctx)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_host_task: the queue belongs to another context");
    if (krt__is_lost(ctx))
        return krt__lost_again(ctx);
    krt_result r = krt__events_check(ctx, "krt_host_task", desc->wait, desc->num_wait, desc->signal);
    if (r != KRT_SUCCESS)
        return r;
    if (desc->signal && (desc->signal->flags & KRT_EVENT_FLAG_TIMESTAMP))
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT,
                         "krt_host_task: the signal event has KRT_EVENT_FLAG_TIMESTAMP, but a host task has no kernel "
                         "time; use an event without it");

    ze_event_handle_t wait_stack[16], *wait;
    if ((r = krt__event_handles(desc->wait, desc->num_wait, wait_stack, &wait)) != KRT_SUCCESS)
        return r;

    krt__host_worker *w;
    pthread_mutex_lock(&q->lock);
    int recording = q->rec != NULL;
    pthread_mutex_unlock(&q->lock);
    if (recording) {
        int fallback = 0;
        r = record_host_task(ctx, q, desc, wait, &fallback);
        if (!fallback)
            goto out;
    }
    r = krt__host_worker_get(q, &w);
    if (r != KRT_SUCCESS)
        goto out;

    /* The appends and the push happen under the queue's lock, so the ring holds the tasks in the order of their
     * barriers. A failure after the barrier went in still pushes an item, without fn, to consume start: else
     * the next task's thread would take this start for its own and run early. */
    pthread_mutex_lock(&q->lock);
    if ((r = ring_reserve(w)) != KRT_SUCCESS) {
        pthread_mutex_unlock(&q->lock);
        goto out;
    }
    ze_result_t zr = ZE_RESULT_SUCCESS;
    if (w->reset_owed) {
        zr = HT_ZE(ctx, CommandList, AppendEventReset)(q->list, w->done->ze);
        if (zr == ZE_RESULT_SUCCESS) {
            q->appended++;
            w->reset_owed = 0;
        }
    }
    if (zr == ZE_RESULT_SUCCESS) {
        zr = HT_ZE(ctx, CommandList, AppendBarrier)(q->list, w->start->ze, desc->num_wait, desc->num_wait ? wait : NULL);
        r = krt__ze_ctx(ctx, q, zr, "zeCommandListAppendBarrier (a host task)");
    } else {
        r = krt__ze_ctx(ctx, q, zr, "zeCommandListAppendEventReset (a host task)");
    }
    if (r != KRT_SUCCESS) {
        pthread_mutex_unlock(&q->lock);
        goto out;
    }
    q->appended++;
    krt__host_item item = { desc->fn, desc->data, desc->signal, 1, NULL, NULL };
    zr = HT_ZE(ctx, CommandList, AppendWaitOnEvents)(q->list, 1, &w->done->ze);
    if (zr != ZE_RESULT_SUCCESS) {
        r = krt__ze_ctx(ctx, q, zr, "zeCommandListAppendWaitOnEvents (a host task)");
        item = (krt__host_item){ NULL, NULL, NULL, 0, NULL, NULL };
    } else {
        q->appended++;
        zr = HT_ZE(ctx, CommandList, AppendEventReset)(q->list, w->done->ze);
        if (zr != ZE_RESULT_SUCCESS) {
            /* The queue waits for done but would not reset it: the thread signals it (else the queue hangs) and
             * the next task resets it first. */
            r = krt__ze_ctx(ctx, q, zr, "zeCommandListAppendEventReset (a host task)");
            item = (krt__host_item){ NULL, NULL, NULL, 1, NULL, NULL };
            w->reset_owed = 1;
        } else {
            q->appended++;
        }
    }
    ring_push(w, &item);
    pthread_mutex_unlock(&q->lock);
out:
    if (wait != wait_stack)
        free(wait);
    return r;
}
