/* CUDA backend: in-order queues (CUstreams) and their commands: launches, copies, fills, barriers, and host
 * tasks run on a thread of ze_cuda's in stream order. */
#include <stdlib.h>
#include <string.h>

#include "cuda_be.h"

ze_result_t zc_queue_create(zp_bdev *dev, bool profiling, zp_bqueue **out) {
    struct zp_bqueue *q = calloc(1, sizeof *q);
    if (!q) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    zc_bind(dev);
    CUresult r = zc_cu.cuStreamCreate(&q->stream, CU_STREAM_NON_BLOCKING);
    if (r != CUDA_SUCCESS) {
        free(q);
        return zc_result(r);
    }
    q->dev = dev;
    q->profiling = profiling;
    pthread_mutex_lock(&dev->cache_lock);
    q->next_live = dev->live;
    dev->live = q;
    pthread_mutex_unlock(&dev->cache_lock);
    *out = q;
    return ZE_RESULT_SUCCESS;
}

void zc_queue_destroy(zp_bqueue *q) {
    if (!q) return;
    zc_bind(q->dev);
    pthread_mutex_lock(&q->dev->cache_lock);
    for (struct zp_bqueue **p = &q->dev->live; *p; p = &(*p)->next_live)
        if (*p == q) {
            *p = q->next_live;
            break;
        }
    pthread_mutex_unlock(&q->dev->cache_lock);
    zc_cu.cuStreamSynchronize(q->stream);
    zc_cu.cuStreamDestroy(q->stream);
    free(q);
}

void *zc_queue_native(zp_bqueue *q) { return q ? (void *)q->stream : NULL; }

ze_result_t zc_queue_finish(zp_bqueue *q) {
    zc_bind(q->dev);
    return zc_result(zc_cu.cuStreamSynchronize(q->stream));
}

/* Before a command: its waits, and the start event of a timed token. A token of this same queue is already behind
 * the command in stream order, so only other queues' tokens cost a cuStreamWaitEvent: SYCL's runtimes make every
 * launch wait on the previous launch's event, mostly of the same in-order queue. */
static ze_result_t begin(zp_bqueue *q, uint32_t nw, zp_btoken *const *waits, zp_btoken **done, zp_btoken **tok) {
    zc_bind(q->dev);
    for (uint32_t i = 0; i < nw; i++) {
        if (waits[i]->queue == q) continue;
        CUresult r = zc_cu.cuStreamWaitEvent(q->stream, waits[i]->end, 0);
        if (r != CUDA_SUCCESS) return zc_result(r);
    }
    *tok = NULL;
    if (!done) return ZE_RESULT_SUCCESS;
    zp_btoken *t = calloc(1, sizeof *t);
    if (!t) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    atomic_init(&t->refs, 1);
    t->dev = q->dev;
    t->queue = q;
    t->epoch = atomic_load_explicit(&q->dev->epoch, memory_order_acquire);
    pthread_mutex_init(&t->lock, NULL);
    t->end = zc_event_get(q->dev, q->profiling);
    if (q->profiling) t->start = zc_event_get(q->dev, true);
    if (!t->end || (q->profiling && !t->start)) {
        zc_token_release(t);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    if (t->start) zc_cu.cuEventRecord(t->start, q->stream);
    *tok = t;
    return ZE_RESULT_SUCCESS;
}

/* After a command: the token's end event, or the token dropped when the command failed. */
static ze_result_t finish(zp_bqueue *q, CUresult r, zp_btoken *t, zp_btoken **done) {
    if (!t) return zc_result(r);
    if (r == CUDA_SUCCESS) r = zc_cu.cuEventRecord(t->end, q->stream);
    if (r != CUDA_SUCCESS) {
        zc_token_release(t);
        return zc_result(r);
    }
    *done = t;
    return ZE_RESULT_SUCCESS;
}

#define ZC_SHARED_GRANULE 1024u

ze_result_t zc_launch(zp_bqueue *q, zp_bkern *k, const zp_ndrange *range, uint32_t nw,
                      zp_btoken *const *waits, zp_btoken **done) {
    zp_btoken *t;
    ze_result_t res = begin(q, nw, waits, done, &t);
    if (res != ZE_RESULT_SUCCESS) return res;
    uint32_t shared = 0;
    if (k->has_local) {
        /* __local arguments: consecutive 128-byte aligned pieces of the dynamic shared block; each
         * argument's value is its offset (see rewrite_local_args in ptx.cpp). */
        uint64_t off = 0;
        for (uint32_t a = 0; a < k->num_args; a++) {
            if (k->kinds[a] != ZP_ARG_LOCAL) continue;
            off = (off + 127u) & ~(uint64_t)127u;
            memcpy(k->params[a], &off, sizeof off);
            off += k->local_sz[a];
        }
        if (off > UINT32_MAX) return finish(q, CUDA_ERROR_INVALID_VALUE, t, done);
        /* The group's window of shared memory (static and dynamic) is rounded up to ZC_SHARED_GRANULE, as Intel GPUs
         * allocate their shared local memory in such steps: real SPIR-V reads past the end of a __local argument
         * where that is harmless there (dpnp.tensor's masked extraction reads lacc[lid + 1] of every work-item of a
         * group of 64 from an accessor of n + 1 elements when n < 64, and ignores the value), and CUDA faults on any
         * access past the window (CUDA_ERROR_ILLEGAL_ADDRESS, the context lost). Not past the device's limit. */
        uint64_t window = ((uint64_t)k->static_shared + off + ZC_SHARED_GRANULE - 1) / ZC_SHARED_GRANULE *
                          ZC_SHARED_GRANULE;
        if (window <= k->shared_max && window - k->static_shared > off) off = window - k->static_shared;
        shared = (uint32_t)off;
        if (shared > k->dyn_limit) {
            CUresult r = zc_cu.cuFuncSetAttribute(k->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)shared);
            if (r == CUDA_SUCCESS)
                r = zc_cu.cuFuncSetAttribute(k->fn_exact, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)shared);
            if (r != CUDA_SUCCESS) {
                if (t) zc_token_release(t);
                return zc_result(r) == ZE_RESULT_ERROR_DEVICE_LOST ? ZE_RESULT_ERROR_DEVICE_LOST
                                                                   : ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
            }
            k->dyn_limit = shared;
        }
    }
    bool uniform = zp_ndrange_uniform(range);
    if (!uniform) zp_exact_desc(range, k->hidden_exact);
    k->hidden_dim = range->dims;
    unsigned g[3], l[3];
    for (int d = 0; d < 3; d++) {
        k->hidden_off[d] = range->offset[d];
        l[d] = (unsigned)(range->local[d] ? range->local[d] : 1);
        g[d] = (unsigned)(range->global[d] / l[d]);
    }
    CUresult r = zc_cu.cuLaunchKernel(uniform ? k->fn : k->fn_exact, g[0], g[1], g[2], l[0], l[1], l[2], shared,
                                      q->stream, uniform ? k->params : k->params_exact, NULL);
    return finish(q, r, t, done);
}

ze_result_t zc_copy(zp_bqueue *q, void *dst, const void *src, size_t size, uint32_t nw,
                    zp_btoken *const *waits, zp_btoken **done) {
    zp_btoken *t;
    ze_result_t res = begin(q, nw, waits, done, &t);
    if (res != ZE_RESULT_SUCCESS) return res;
    CUresult r = zc_cu.cuMemcpyAsync((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src, size, q->stream);
    return finish(q, r, t, done);
}

ze_result_t zc_copy_peer(zp_bqueue *q, void *dst, zp_bdev *dst_dev, const void *src, zp_bdev *src_dev, size_t size,
                         uint32_t nw, zp_btoken *const *waits, zp_btoken **done) {
    zp_btoken *t;
    ze_result_t res = begin(q, nw, waits, done, &t);
    if (res != ZE_RESULT_SUCCESS) return res;
    CUresult r = zc_cu.cuMemcpyPeerAsync((CUdeviceptr)(uintptr_t)dst, dst_dev->ctx, (CUdeviceptr)(uintptr_t)src,
                                         src_dev->ctx, size, q->stream);
    return finish(q, r, t, done);
}

ze_result_t zc_fill(zp_bqueue *q, void *dst, const void *pattern, size_t psize, size_t size, uint32_t nw,
                    zp_btoken *const *waits, zp_btoken **done) {
    zp_btoken *t;
    ze_result_t res = begin(q, nw, waits, done, &t);
    if (res != ZE_RESULT_SUCCESS) return res;
    CUdeviceptr d = (CUdeviceptr)(uintptr_t)dst;
    const uint8_t *p = pattern;
    bool same = true;
    for (size_t i = 1; i < psize; i++) same &= p[i] == p[0];
    CUresult r;
    if (same) {
        r = zc_cu.cuMemsetD8Async(d, p[0], size, q->stream);
    } else if (psize == 2 && d % 2 == 0 && size % 2 == 0) {
        uint16_t v;
        memcpy(&v, p, 2);
        r = zc_cu.cuMemsetD16Async(d, v, size / 2, q->stream);
    } else if (psize == 4 && d % 4 == 0 && size % 4 == 0) {
        uint32_t v;
        memcpy(&v, p, 4);
        r = zc_cu.cuMemsetD32Async(d, v, size / 4, q->stream);
    } else if (q->capturing) {
        /* The piece below comes from pageable host memory freed at once: a graph cannot hold that copy. The
         * list replays its commands instead. */
        if (t) zc_token_release(t);
        return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    } else {
        /* Any other pattern: one piece written from the host, then doubled with device copies. A copy
         * from pageable host memory has taken its source once it returns, so the piece can go at once. */
        size_t piece = size < 65536 ? size : 65536 - 65536 % psize;
        uint8_t *h = malloc(piece);
        if (!h) {
            if (t) zc_token_release(t);
            return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
        for (size_t i = 0; i < piece; i += psize) memcpy(h + i, p, psize < piece - i ? psize : piece - i);
        r = zc_cu.cuMemcpyAsync(d, (CUdeviceptr)(uintptr_t)h, piece, q->stream);
        free(h);
        for (size_t have = piece; r == CUDA_SUCCESS && have < size;) {
            size_t n = have < size - have ? have : size - have;
            r = zc_cu.cuMemcpyAsync(d + have, d, n, q->stream);
            have += n;
        }
    }
    return finish(q, r, t, done);
}

ze_result_t zc_capture_begin(zp_bqueue *q) {
    const char *env = getenv("ZE_CUDA_GRAPHS");
    if (env && strcmp(env, "0") == 0) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    zc_bind(q->dev);
    /* Relaxed: the capture must not forbid other threads' CUDA calls (an allocation elsewhere) meanwhile. */
    CUresult r = zc_cu.cuStreamBeginCapture(q->stream, CU_STREAM_CAPTURE_MODE_RELAXED);
    if (r == CUDA_SUCCESS) q->capturing = true;
    return zc_result(r);
}

ze_result_t zc_capture_end(zp_bqueue *q, void **graph) {
    *graph = NULL;
    zc_bind(q->dev);
    q->capturing = false;
    CUgraph g = NULL;
    CUresult r = zc_cu.cuStreamEndCapture(q->stream, &g);
    if (r != CUDA_SUCCESS || !g) {
        if (g) zc_cu.cuGraphDestroy(g);
        return r != CUDA_SUCCESS ? zc_result(r) : ZE_RESULT_ERROR_UNKNOWN;
    }
    CUgraphExec e = NULL;
    r = zc_cu.cuGraphInstantiate(&e, g, 0);
    zc_cu.cuGraphDestroy(g);
    if (r != CUDA_SUCCESS) return zc_result(r);
    *graph = e;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zc_graph_launch(zp_bqueue *q, void *graph, uint32_t nw, zp_btoken *const *waits, zp_btoken **done) {
    zp_btoken *t;
    ze_result_t res = begin(q, nw, waits, done, &t);
    if (res != ZE_RESULT_SUCCESS) return res;
    return finish(q, zc_cu.cuGraphLaunch((CUgraphExec)graph, q->stream), t, done);
}

void zc_graph_destroy(void *graph) {
    if (graph) zc_cu.cuGraphExecDestroy((CUgraphExec)graph);
}

ze_result_t zc_barrier(zp_bqueue *q, uint32_t nw, zp_btoken *const *waits, zp_btoken **done) {
    zp_btoken *t;
    ze_result_t res = begin(q, nw, waits, done, &t);
    if (res != ZE_RESULT_SUCCESS) return res;
    return finish(q, CUDA_SUCCESS, t, done);
}

/* Host tasks run on one worker thread of ze_cuda's, not on CUDA's callback thread: the task may call into
 * CUDA (a timestamp query reads event times), which a CUDA host callback must not. The callback only hands
 * the task over and waits for it, which keeps the task in stream order. */
typedef struct host_job {
    void (*fn)(void *);
    void *data;
    bool done;
    pthread_mutex_t lock;
    pthread_cond_t cv;
    struct host_job *next;
} host_job;

static pthread_mutex_t job_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t job_cv = PTHREAD_COND_INITIALIZER;
static host_job *jobs_head, *jobs_tail;
static bool worker_started;

static void *host_worker(void *arg) {
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&job_lock);
        while (!jobs_head) pthread_cond_wait(&job_cv, &job_lock);
        host_job *j = jobs_head;
        jobs_head = j->next;
        if (!jobs_head) jobs_tail = NULL;
        pthread_mutex_unlock(&job_lock);
        j->fn(j->data);
        pthread_mutex_lock(&j->lock);
        j->done = true;
        pthread_cond_signal(&j->cv);
        pthread_mutex_unlock(&j->lock);
    }
    return NULL;
}

static void CUDA_CB host_trampoline(void *p) {
    host_job *j = p;
    pthread_mutex_lock(&job_lock);
    j->next = NULL;
    if (jobs_tail)
        jobs_tail->next = j;
    else
        jobs_head = j;
    jobs_tail = j;
    pthread_cond_signal(&job_cv);
    pthread_mutex_unlock(&job_lock);
    pthread_mutex_lock(&j->lock);
    while (!j->done) pthread_cond_wait(&j->cv, &j->lock);
    pthread_mutex_unlock(&j->lock);
    pthread_mutex_destroy(&j->lock);
    pthread_cond_destroy(&j->cv);
    free(j);
}

ze_result_t zc_host_task(zp_bqueue *q, void (*fn)(void *data), void *data, uint32_t nw,
                         zp_btoken *const *waits, zp_btoken **done) {
    pthread_mutex_lock(&job_lock);
    if (!worker_started) {
        pthread_t th;
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        worker_started = pthread_create(&th, &at, host_worker, NULL) == 0;
        pthread_attr_destroy(&at);
    }
    bool ok = worker_started;
    pthread_mutex_unlock(&job_lock);
    /* fn owns data (backend.h): a task that will never run frees it, as the other backends do. */
    if (!ok) {
        free(data);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    host_job *j = calloc(1, sizeof *j);
    if (!j) {
        free(data);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    j->fn = fn;
    j->data = data;
    pthread_mutex_init(&j->lock, NULL);
    pthread_cond_init(&j->cv, NULL);
    zp_btoken *t;
    ze_result_t res = begin(q, nw, waits, done, &t);
    if (res != ZE_RESULT_SUCCESS) {
        free(j);
        free(data);
        return res;
    }
    CUresult r = zc_cu.cuLaunchHostFunc(q->stream, host_trampoline, j);
    if (r != CUDA_SUCCESS) {
        free(j);
        free(data);
    }
    return finish(q, r, t, done);
}
