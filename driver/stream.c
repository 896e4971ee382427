/* In-order command streams (immediate command lists and command queues) over one backend queue, with
 * a host-side queue for commands that wait on events nothing has armed yet. Backends know only
 * commands and their completion tokens; holding such a command back (with every later command of its
 * stream, to keep the order) until the event is armed or set keeps host-side user events out of the
 * backend (PoCL 3.1's basic device deadlocks when one releases a command). */
#include <errno.h>
#include <time.h>

#include "zp.h"

static void indirect_drop(struct zp_indirect *ind);
static void indirect_forget(zp_stream *st);

/* The stream as a signal's waiter (zp_signal_waiter, zp.h). */
static void waiter_wake(zp_signal_waiter *w) {
    zp_stream_kick((zp_stream *)((char *)w - offsetof(zp_stream, waiter)));
}

static void waiter_forget(zp_signal_waiter *w, const zp_signal *gone) {
    zp_stream *st = (zp_stream *)((char *)w - offsetof(zp_stream, waiter));
    pthread_mutex_lock(&st->lock);
    if (st->blocked_on == gone) st->blocked_on = NULL;
    pthread_mutex_unlock(&st->lock);
}

ze_result_t zp_stream_init(zp_stream *st, ze_device_handle_t dev) {
    memset(st, 0, sizeof *st);
    ze_result_t r = zp_be->queue_create(dev->bdev, false, &st->bq);
    if (r != ZE_RESULT_SUCCESS) return r;
    st->dev = dev;
    st->waiter = (zp_signal_waiter){.wake = waiter_wake, .forget = waiter_forget};
    atomic_init(&st->has_pending, false);
    atomic_init(&st->submitted, 0);
    pthread_mutex_init(&st->lock, NULL);
    pthread_mutex_init(&st->mark_lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&st->drained, &ca);
    pthread_condattr_destroy(&ca);
    zp_fault_track(st);
    return ZE_RESULT_SUCCESS;
}

void zp_stream_fini(zp_stream *st) {
    zp_fault_untrack(st);
    indirect_forget(st);
    pthread_mutex_lock(&st->lock);
    if (st->blocked_on) zp_signal_remove_waiter(st->blocked_on, &st->waiter);
    st->blocked_on = NULL;
    /* Commands still held back are dropped: their stream is going away. */
    for (size_t i = 0; i < st->len; i++) zp_cmd_free(&st->pending[st->head + i]);
    free(st->pending);
    st->pending = NULL;
    st->len = st->head = st->cap = 0;
    pthread_mutex_unlock(&st->lock);
    zp_be->queue_destroy(st->bq);
    if (st->last_mark) zp_signal_unref(st->last_mark);
    st->last_mark = NULL;
    pthread_mutex_destroy(&st->lock);
    pthread_mutex_destroy(&st->mark_lock);
    pthread_cond_destroy(&st->drained);
}

ze_result_t zp_cmd_clone(zp_cmd *dst, const zp_cmd *src) {
    *dst = *src;
    if (dst->mark) atomic_fetch_add(&dst->mark->refs, 1);
    dst->waits = NULL;
    dst->args = NULL;
    dst->offsets = NULL;
    dst->ind = NULL; /* a gate belongs to one run of the command */
    if (src->num_waits) {
        dst->waits = malloc(src->num_waits * sizeof *dst->waits);
        if (!dst->waits) goto oom;
        memcpy(dst->waits, src->waits, src->num_waits * sizeof *dst->waits);
    }
    if (src->type == ZP_CMD_LAUNCH || src->type == ZP_CMD_LAUNCH_INDIRECT) {
        ze_kernel_handle_t k = src->kernel;
        dst->args = malloc(k->arg_bytes ? k->arg_bytes : 1);
        if (!dst->args) goto oom;
        if (src->args) {
            memcpy(dst->args, src->args, k->arg_bytes);
        } else {
            /* Level Zero captures arguments at append time. */
            pthread_mutex_lock(&k->lock);
            memcpy(dst->args, k->arg_data, k->arg_bytes);
            pthread_mutex_unlock(&k->lock);
        }
    }
    if (src->offsets) {
        size_t *o = malloc(src->num_query * sizeof *o);
        if (!o) goto oom;
        memcpy(o, src->offsets, src->num_query * sizeof *o);
        dst->offsets = o;
    }
    return ZE_RESULT_SUCCESS;
oom:
    zp_cmd_free(dst);
    return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
}

void zp_cmd_free(zp_cmd *c) {
    if (c->ind) indirect_drop(c->ind);
    c->ind = NULL;
    if (c->mark) zp_signal_unref(c->mark);
    c->mark = NULL;
    free(c->waits);
    free(c->args);
    free((void *)c->offsets);
    c->waits = NULL;
    c->args = NULL;
    c->offsets = NULL;
}

/* Hands one command to the backend, first switching to a timing queue if the command needs times. */
static ze_result_t exec_now(zp_stream *st, const zp_cmd *c, ze_event_handle_t *blocked) {
    if (!st->profiling && zp_event_wants_times(c->signal) && c->type != ZP_CMD_RESET) {
        ze_result_t r = zp_exec_enable_times(st);
        if (r != ZE_RESULT_SUCCESS) return r;
    }
    return zp_exec_cmd(st->bq, st->dev, c, blocked);
}

/* Indirect launches (zeCommandListAppendLaunchKernelIndirect). The group count lies in memory that the commands
 * before the launch, or the host after the append, may still write: it is read when the launch's turn comes,
 * once everything before it in its stream and its waits have completed. The launch waits in the stream's held-back
 * commands (with every later command of the stream behind it, so the order holds), behind a gate: a backend barrier
 * after its waits and the stream's earlier commands. When the gate completes, its completion callback (on a
 * backend thread, which must not hand commands to the backend) passes the stream to one helper thread of the
 * driver, which pumps it: the count is read (on a backend whose memory may not be host-visible, with a backend
 * copy into host memory; the queue is idle then), and the launch goes to the backend like any other. Neither the
 * append nor a backend thread blocks on it.
 *
 * The gate is shared by the held-back command and the callback (refs). A stream going away cancels its gates
 * and waits until the helper is no longer pumping it. */
typedef struct zp_indirect {
    atomic_int refs;
    atomic_bool done;      /* the gate completed */
    bool cancelled;        /* under ind_lock: the command was dropped; the helper must not touch its stream */
    zp_stream *st;
    zp_btoken *gate;
    struct zp_indirect *next; /* under ind_lock: the helper's list of gates completed */
} zp_indirect;

static pthread_mutex_t ind_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ind_ready_cv = PTHREAD_COND_INITIALIZER;
static pthread_cond_t ind_idle_cv = PTHREAD_COND_INITIALIZER;
static zp_indirect *ind_ready;
static zp_stream *ind_current; /* the stream the helper is pumping */
static pthread_once_t ind_once = PTHREAD_ONCE_INIT;
static bool ind_started;

static void indirect_unref(zp_indirect *ind) {
    if (atomic_fetch_sub(&ind->refs, 1) != 1) return;
    if (ind->gate) zp_be->token_release(ind->gate);
    free(ind);
}

static void indirect_drop(zp_indirect *ind) {
    pthread_mutex_lock(&ind_lock);
    ind->cancelled = true;
    pthread_mutex_unlock(&ind_lock);
    indirect_unref(ind);
}

static void *indirect_helper(void *unused) {
    (void)unused;
    pthread_mutex_lock(&ind_lock);
    for (;;) {
        while (!ind_ready) pthread_cond_wait(&ind_ready_cv, &ind_lock);
        zp_indirect *ind = ind_ready;
        ind_ready = ind->next;
        if (!ind->cancelled) {
            ind_current = ind->st;
            pthread_mutex_unlock(&ind_lock);
            zp_stream_kick(ind->st);
            pthread_mutex_lock(&ind_lock);
            ind_current = NULL;
            pthread_cond_broadcast(&ind_idle_cv);
        }
        pthread_mutex_unlock(&ind_lock);
        indirect_unref(ind);
        pthread_mutex_lock(&ind_lock);
    }
    return NULL;
}

static void indirect_start(void) {
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    ind_started = pthread_create(&t, &a, indirect_helper, NULL) == 0;
    pthread_attr_destroy(&a);
}

/* The gate's completion callback: hands the gate (and its reference) to the helper. */
static void indirect_gate_done(zp_btoken *t, void *user) {
    (void)t;
    zp_indirect *ind = user;
    atomic_store(&ind->done, true);
    pthread_mutex_lock(&ind_lock);
    ind->next = ind_ready;
    ind_ready = ind;
    pthread_cond_signal(&ind_ready_cv);
    pthread_mutex_unlock(&ind_lock);
}

/* Before a stream goes away: its gates are cancelled (the caller frees their commands) and the helper is not
 * pumping it. */
static void indirect_forget(zp_stream *st) {
    pthread_mutex_lock(&st->lock);
    pthread_mutex_lock(&ind_lock);
    for (size_t i = 0; i < st->len; i++) {
        zp_indirect *ind = st->pending[st->head + i].ind;
        if (ind) ind->cancelled = true;
    }
    pthread_mutex_unlock(&ind_lock);
    pthread_mutex_unlock(&st->lock);
    pthread_mutex_lock(&ind_lock);
    while (ind_current == st) pthread_cond_wait(&ind_idle_cv, &ind_lock);
    pthread_mutex_unlock(&ind_lock);
}

/* One step of a held-back indirect launch: the gate first, then, once it has completed, the launch with the
 * group count read now. ZE_RESULT_NOT_READY without *blocked: waiting for the gate (the helper pumps again). */
static ze_result_t indirect_step(zp_stream *st, zp_cmd *c, ze_event_handle_t *blocked) {
    if (!c->ind) {
        pthread_once(&ind_once, indirect_start);
        if (!ind_started) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        zp_indirect *ind = calloc(1, sizeof *ind);
        if (!ind) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        zp_cmd gate = {.type = ZP_CMD_BARRIER, .num_waits = c->num_waits, .waits = c->waits};
        ze_result_t r = zp_exec_gate(st->bq, &gate, &ind->gate, blocked);
        if (r != ZE_RESULT_SUCCESS) {
            free(ind);
            return r;
        }
        atomic_init(&ind->refs, 2); /* the command's and the callback's */
        atomic_init(&ind->done, false);
        ind->st = st;
        c->ind = ind;
        if (zp_be->token_on_complete(ind->gate, indirect_gate_done, ind) != ZE_RESULT_SUCCESS) {
            indirect_unref(ind); /* no callback will come: wait for the gate here instead */
            zp_be->queue_finish(st->bq);
            atomic_store(&ind->done, true);
        }
    }
    if (!atomic_load(&c->ind->done)) return ZE_RESULT_NOT_READY;
    ze_group_count_t gc;
    uint32_t count = 1;
    if (zp_be->copy_any) {
        ze_result_t r = zp_be->copy(st->bq, &gc, c->src, sizeof gc, 0, NULL, NULL);
        if (r == ZE_RESULT_SUCCESS && c->count_src) r = zp_be->copy(st->bq, &count, c->count_src, sizeof count, 0, NULL, NULL);
        if (r == ZE_RESULT_SUCCESS) r = zp_be->queue_finish(st->bq);
        if (r != ZE_RESULT_SUCCESS) return r;
    } else {
        memcpy(&gc, c->src, sizeof gc);
        if (c->count_src) memcpy(&count, c->count_src, sizeof count);
    }
    /* One of several kernels past the count the buffer gives runs nothing (its signal, if any, is still set). */
    if (c->index >= count) gc = (ze_group_count_t){0, 0, 0};
    zp_cmd launch = *c;
    launch.type = ZP_CMD_LAUNCH;
    launch.num_waits = 0; /* the gate waited for them */
    launch.waits = NULL;
    launch.ind = NULL;
    /* A count of more work-items than 64 bits can number has no caller left to refuse it to: the launch is
     * dropped, as any failing held-back command is, and its signal event is never set. */
    const uint32_t groups[3] = {gc.groupCountX, gc.groupCountY, gc.groupCountZ};
    ze_result_t r = zp_ndrange_set_groups(&launch.range, groups);
    if (r != ZE_RESULT_SUCCESS) return r;
    for (int d = 0; d < 3; d++) launch.range.range[d] = launch.range.global[d];
    return exec_now(st, &launch, blocked);
}

/* Runs pending commands until one is blocked again. Errors of held-back commands have no caller left
 * to report to; such a command is dropped. */
static void pump(zp_stream *st) {
    pthread_mutex_lock(&st->lock);
    st->blocked_on = NULL;
    while (st->len > 0) {
        zp_cmd *c = &st->pending[st->head];
        ze_event_handle_t blocked = NULL;
        /* On a lost device a held-back command is dropped, not run: its client has been told of the loss and may be
         * destroying what it uses (zp_fault_run_out). */
        ze_result_t r = zp_device_lost(st->dev)             ? ZE_RESULT_ERROR_DEVICE_LOST
                        : c->type == ZP_CMD_LAUNCH_INDIRECT ? indirect_step(st, c, &blocked)
                                                            : exec_now(st, c, &blocked);
        if (r == ZE_RESULT_NOT_READY && !blocked) break; /* an indirect launch's gate: the helper pumps again */
        if (r == ZE_RESULT_NOT_READY && blocked) {
            if (zp_signal_add_waiter(&blocked->sig, &st->waiter)) {
                st->blocked_on = &blocked->sig;
                break;
            }
            continue; /* armed or set in the meantime: try again */
        }
        /* A mark dropped with an error would otherwise keep the queue busy forever. */
        if (r != ZE_RESULT_SUCCESS && c->mark) zp_signal_set(c->mark);
        /* On a lost device (the command failed because of it, as every command on ze_cuda's does then), its signal
         * and fence are set too, and their waits answer ZE_RESULT_ERROR_DEVICE_LOST: else a host waiting for this
         * command (a synchronize's barrier held back behind a host task) would wait forever. */
        if (r != ZE_RESULT_SUCCESS && zp_device_lost(st->dev)) {
            if (c->signal && !ZP_BAD_HANDLE(c->signal, ZP_MAGIC_EVENT)) zp_signal_fail(&c->signal->sig, st->dev);
            if (c->fence && !ZP_BAD_HANDLE(c->fence, ZP_MAGIC_FENCE)) zp_signal_fail(&c->fence->sig, st->dev);
        }
        zp_cmd_free(c);
        st->head++;
        st->len--;
    }
    if (st->len == 0) {
        st->head = 0;
        atomic_store(&st->has_pending, false);
        pthread_cond_broadcast(&st->drained);
    }
    pthread_mutex_unlock(&st->lock);
}

/* Kicks that happen while this thread pumps a stream are queued and run after it, so no thread ever
 * holds two stream locks. The queue is a heap array per thread, freed when the thread exits by the
 * destructor of kick_key (which holds the same pointer); the key is deleted when this library is unloaded,
 * so that no thread exiting later calls into it. */
static _Thread_local int kicking;
static _Thread_local zp_stream **kick_list;
static _Thread_local size_t kick_len, kick_cap;
static pthread_key_t kick_key;
static pthread_once_t kick_once = PTHREAD_ONCE_INIT;
static int kick_key_made;

static void kick_key_make(void) {
    kick_key_made = pthread_key_create(&kick_key, free) == 0;
}

__attribute__((destructor)) static void kick_key_unload(void) {
    if (kick_key_made) pthread_key_delete(kick_key);
    kick_key_made = 0;
}

void zp_stream_kick(zp_stream *st) {
    if (kicking) {
        for (size_t i = 0; i < kick_len; i++)
            if (kick_list[i] == st) return;
        if (kick_len == kick_cap) {
            pthread_once(&kick_once, kick_key_make);
            /* Without the key the array could not be freed at thread exit: no array then. */
            if (!kick_key_made) return; /* the stream stays registered nowhere; its next submit or sync pumps it */
            size_t cap = kick_cap ? kick_cap * 2 : 8;
            zp_stream **n = realloc(kick_list, cap * sizeof *n);
            if (!n) return; /* as above */
            if (pthread_setspecific(kick_key, n) != 0) {
                free(n);
                kick_list = NULL;
                kick_len = kick_cap = 0;
                return;
            }
            kick_list = n;
            kick_cap = cap;
        }
        kick_list[kick_len++] = st;
        return;
    }
    kicking = 1;
    pump(st);
    while (kick_len > 0) pump(kick_list[--kick_len]);
    kicking = 0;
}

ze_result_t zp_stream_submit(zp_stream *st, const zp_cmd *c) {
    /* Counted before the command goes anywhere, so a later zp_stream_sync_submitted marks after it. */
    if (!c->mark) atomic_fetch_add_explicit(&st->submitted, 1, memory_order_relaxed);
    /* A counter-based event reads as this command from now on: not set until it completes, whatever an earlier
     * signalling does meanwhile (event.c). */
    zp_cmd renewed;
    if (c->signal && !ZP_BAD_HANDLE(c->signal, ZP_MAGIC_EVENT) && c->signal->pool->counter_based &&
        c->type != ZP_CMD_RESET) {
        renewed = *c;
        renewed.signal_gen = zp_signal_renew(&c->signal->sig);
        c = &renewed;
    }
    /* An indirect launch always waits behind its gate, among the held-back commands. */
    if (!atomic_load(&st->has_pending) && c->type != ZP_CMD_LAUNCH_INDIRECT) {
        ze_event_handle_t blocked = NULL;
        ze_result_t r = exec_now(st, c, &blocked);
        if (r != ZE_RESULT_NOT_READY || !blocked) return r;
    }
    zp_cmd copy;
    ze_result_t r = zp_cmd_clone(&copy, c);
    if (r != ZE_RESULT_SUCCESS) return r;
    pthread_mutex_lock(&st->lock);
    if (st->head + st->len == st->cap) {
        if (st->head > 0) {
            memmove(st->pending, st->pending + st->head, st->len * sizeof *st->pending);
            st->head = 0;
        } else {
            size_t cap = st->cap ? st->cap * 2 : 8;
            zp_cmd *n = realloc(st->pending, cap * sizeof *n);
            if (!n) {
                pthread_mutex_unlock(&st->lock);
                zp_cmd_free(&copy);
                return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
            }
            st->pending = n;
            st->cap = cap;
        }
    }
    st->pending[st->head + st->len++] = copy;
    atomic_store(&st->has_pending, true);
    pthread_mutex_unlock(&st->lock);
    /* The pump registers the stream on the event its first command waits for, or runs what it can. */
    zp_stream_kick(st);
    return ZE_RESULT_SUCCESS;
}

static void deadline_after(struct timespec *ts, uint64_t ns) {
    clock_gettime(CLOCK_MONOTONIC, ts);
    uint64_t n = (uint64_t)ts->tv_nsec + ns % 1000000000u;
    ts->tv_sec += (time_t)(ns / 1000000000u + n / 1000000000u);
    ts->tv_nsec = (long)(n % 1000000000u);
}

static void free_mark(zp_signal *s) { free(s); }

ze_result_t zp_stream_mark(zp_stream *st, ze_fence_handle_t fence) {
    zp_signal *m = malloc(sizeof *m);
    if (!m) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    zp_signal_init(m, free_mark);
    /* One reference for the stream's last_mark, one for the command submitted below (a held-back copy
     * takes its own). */
    atomic_fetch_add(&m->refs, 1);
    zp_cmd c = {.type = ZP_CMD_FENCE, .fence = fence, .mark = m};
    ze_result_t r = zp_stream_submit(st, &c);
    if (r == ZE_RESULT_SUCCESS) {
        pthread_mutex_lock(&st->lock);
        zp_signal *old = st->last_mark;
        st->last_mark = m;
        pthread_mutex_unlock(&st->lock);
        if (old) zp_signal_unref(old);
    } else {
        zp_signal_unref(m);
    }
    zp_signal_unref(m);
    return r;
}

/* The stream's last mark with a reference, or NULL when nothing was ever marked. */
static zp_signal *get_last_mark(zp_stream *st) {
    pthread_mutex_lock(&st->lock);
    zp_signal *m = st->last_mark;
    if (m) atomic_fetch_add(&m->refs, 1);
    pthread_mutex_unlock(&st->lock);
    return m;
}

ze_result_t zp_stream_sync(zp_stream *st, uint64_t timeout_ns) {
    uint64_t seen = atomic_load(&st->submitted);
    if (atomic_load(&st->has_pending)) {
        if (timeout_ns == 0) return ZE_RESULT_NOT_READY;
        struct timespec ts;
        if (timeout_ns != UINT64_MAX) deadline_after(&ts, timeout_ns);
        pthread_mutex_lock(&st->lock);
        while (st->len > 0) {
            if (timeout_ns == UINT64_MAX) {
                pthread_cond_wait(&st->drained, &st->lock);
            } else if (pthread_cond_timedwait(&st->drained, &st->lock, &ts) == ETIMEDOUT) {
                pthread_mutex_unlock(&st->lock);
                return ZE_RESULT_NOT_READY;
            }
        }
        pthread_mutex_unlock(&st->lock);
    }
    /* A command queue ends every execute with a mark, so its last mark is set exactly when everything
     * it was given has completed (the backend queue is in order): an idle queue answers at once for any
     * timeout, a busy one waits for the mark. Waiting for the mark's completion callback, not only for
     * the backend queue to drain, also makes a later timeout of 0 see the queue idle. */
    zp_signal *m = get_last_mark(st);
    ze_result_t r = ZE_RESULT_SUCCESS;
    if (m) {
        r = zp_signal_wait(m, timeout_ns);
        zp_signal_unref(m);
    }
    /* On a lost device the mark answers at once, but a wait without a timeout still lets what was handed to the backend
     * run out (a CPU backend runs it), so that its caller may destroy what those commands read. */
    if ((r == ZE_RESULT_SUCCESS || r == ZE_RESULT_ERROR_DEVICE_LOST) && timeout_ns == UINT64_MAX) {
        ze_result_t f = zp_be->queue_finish(st->bq);
        if (r == ZE_RESULT_SUCCESS) r = f;
    }
    /* Everything handed over has run out (or failed at once, on ze_cuda): on a lost device that is the answer. */
    if (r != ZE_RESULT_NOT_READY && zp_device_lost(st->dev)) return ZE_RESULT_ERROR_DEVICE_LOST;
    if (r == ZE_RESULT_SUCCESS && timeout_ns == UINT64_MAX) {
        /* Everything submitted before this call has completed: a later zp_stream_sync_submitted need not mark for
         * it (a synchronous immediate list, idle after every append, then answers a timeout of 0 at once). */
        pthread_mutex_lock(&st->mark_lock);
        if (seen > st->covered) st->covered = seen;
        pthread_mutex_unlock(&st->mark_lock);
    }
    return r;
}

/* An immediate list marks nothing on its own (a mark per append would cost a backend command each), so a
 * bounded wait would have nothing to wait for: the stream is marked here when commands were submitted that
 * neither its last mark nor a finished wait covers, and then waited for like a command queue. The mark's
 * completion callback runs after those of the commands before it (the backend queue is in order, and a backend
 * completes a command, callbacks included, before it releases the next), so the events those commands signal read
 * as set once this returns ZE_RESULT_SUCCESS. mark_lock makes a second caller wait for the first one's mark rather
 * than find the older one set; nothing waits under it. */
ze_result_t zp_stream_sync_submitted(zp_stream *st, uint64_t timeout_ns) {
    ze_result_t r = ZE_RESULT_SUCCESS;
    pthread_mutex_lock(&st->mark_lock);
    uint64_t n = atomic_load(&st->submitted);
    if (n != st->covered) {
        r = zp_stream_mark(st, NULL);
        if (r == ZE_RESULT_SUCCESS) st->covered = n;
    }
    pthread_mutex_unlock(&st->mark_lock);
    if (r != ZE_RESULT_SUCCESS) return r;
    return zp_stream_sync(st, timeout_ns);
}
