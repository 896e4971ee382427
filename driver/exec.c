/* Running one command on a backend queue: shared by immediate command lists (at append) and by
 * command queues (replaying a regular list). Wait events become backend tokens; a signal event is
 * armed with the command's completion token. */
#include "zp.h"

ze_result_t zp_exec_waits(uint32_t n, ze_event_handle_t *events, zp_btoken **buf, uint32_t cap,
                          zp_btoken ***out, uint32_t *num_out, ze_event_handle_t *blocked) {
    zp_btoken **tokens = buf;
    *num_out = 0;
    *out = buf;
    if (n == 0) return ZE_RESULT_SUCCESS;
    if (events == NULL) return ZE_RESULT_ERROR_INVALID_SIZE;
    for (uint32_t i = 0; i < n; i++) ZP_CHECK_HANDLE(events[i], ZP_MAGIC_EVENT);
    if (n > cap) {
        tokens = malloc(n * sizeof *tokens);
        if (!tokens) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        zp_btoken *t;
        ze_result_t r = zp_signal_wait_token(&events[i]->sig, &t);
        if (r != ZE_RESULT_SUCCESS) {
            if (r == ZE_RESULT_NOT_READY && blocked) *blocked = events[i];
            zp_exec_release_waits(tokens, m, buf);
            return r;
        }
        if (t) tokens[m++] = t;
    }
    *out = tokens;
    *num_out = m;
    return ZE_RESULT_SUCCESS;
}

void zp_exec_release_waits(zp_btoken **tokens, uint32_t n, zp_btoken **buf) {
    for (uint32_t i = 0; i < n; i++) zp_be->token_release(tokens[i]);
    if (tokens != buf) free(tokens);
}

#define ZP_WAIT_BUF 8

/* Copies and fills that touch memory the backend did not allocate run on the host, in stream order. */
typedef struct {
    void *dst;
    const void *src;
    size_t size;
    size_t pattern_size;
    uint8_t pattern[128];
} host_mem_op;

static void host_copy(void *p) {
    host_mem_op *op = p;
    memcpy(op->dst, op->src, op->size);
    free(op);
}

/* Writes the pattern once, then doubles the filled prefix (always whole repetitions) until the size is
 * reached: a partial last repetition comes out right, and a 1-byte pattern costs a few large copies rather
 * than one copy per byte. */
static void host_fill(void *p) {
    host_mem_op *op = p;
    uint8_t *d = op->dst;
    size_t done = op->pattern_size < op->size ? op->pattern_size : op->size;
    memcpy(d, op->pattern, done);
    while (done < op->size) {
        size_t n = done < op->size - done ? done : op->size - done;
        memcpy(d + done, d, n);
        done += n;
    }
    free(op);
}

/* Whether the backend's copy and fill can name [p, p + size): it lies in one of its allocations, and that
 * allocation is the backend's own. A block whose raw pointer has its low bit set (ZP_RAW_HOST_BIT in
 * driver/pocl/device.c: a large alignment served by posix_memalign) is ordinary host memory, which PoCL 3.1
 * takes in SVM copies and fills but PoCL 5.0 refuses (CL_INVALID_VALUE); those commands run on the host. */
static bool tracked(const void *p, size_t size) {
    zp_alloc_info a;
    return zp_mem_lookup(NULL, p, &a) && (uintptr_t)p + size <= (uintptr_t)a.base + a.size &&
           !((uintptr_t)a.raw & 1u);
}

static ze_result_t mem_op(zp_bqueue *bq, const zp_cmd *c, uint32_t nt, zp_btoken **tokens, zp_btoken **pdone) {
    if (c->size == 0) return zp_be->barrier(bq, nt, tokens, pdone);
    bool dev_ok = (c->type == ZP_CMD_COPY && zp_be->copy_any) ||
                  (tracked(c->dst, c->size) && (c->type == ZP_CMD_FILL || tracked(c->src, c->size)));
    /* OpenCL fills take whole repetitions only, so on ze_pocl a fill with a partial last repetition runs on the
     * host. A copy_any backend's memory may not be host-visible (ze_cuda's device memory): its own fill takes
     * any size. */
    if (c->type == ZP_CMD_FILL && c->size % c->pattern_size != 0 && !zp_be->copy_any) dev_ok = false;
    /* Mapped virtual memory (virtual.c) is the backend's own: on ze_cuda device memory, which only its fill can
     * write. On ze_pocl it is host memory, which stays with the host. */
    if (!dev_ok && zp_be->copy_any && c->type == ZP_CMD_FILL && zp_vm_mapped(c->dst, c->size)) dev_ok = true;
    if (dev_ok) {
        if (c->type == ZP_CMD_COPY && c->dst_dev && zp_be->copy_peer)
            return zp_be->copy_peer(bq, c->dst, c->dst_dev, c->src, c->src_dev, c->size, nt, tokens, pdone);
        if (c->type == ZP_CMD_COPY) return zp_be->copy(bq, c->dst, c->src, c->size, nt, tokens, pdone);
        return zp_be->fill(bq, c->dst, c->pattern, c->pattern_size, c->size, nt, tokens, pdone);
    }
    host_mem_op *op = malloc(sizeof *op);
    if (!op) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    op->dst = c->dst;
    op->src = c->src;
    op->size = c->size;
    op->pattern_size = c->pattern_size;
    if (c->type == ZP_CMD_FILL) memcpy(op->pattern, c->pattern, c->pattern_size);
    return zp_be->host_task(bq, c->type == ZP_CMD_COPY ? host_copy : host_fill, op, nt, tokens, pdone);
}

/* An exact launch whose range is not a multiple of its group (a partial last group in some dimension), of a
 * kernel that needs whole groups (a barrier: every item of a group takes part, so items past the range cannot
 * simply be masked), runs as up to 2^dims pieces of full groups: in each dimension the full groups, then the
 * one partial group as a group of its own size. The backend gives each piece the builtins of the whole launch
 * (zp_ndrange's exact fields). Every other launch is one backend launch, its masked items running nothing.
 * The queue is in order, so the waits go to the first piece and the completion token is the last one's. */
static ze_result_t launch_pieces(zp_bqueue *bq, ze_kernel_handle_t k, const zp_ndrange *r, uint32_t nt,
                                 zp_btoken *const *tokens, zp_btoken **done) {
    if (!k->meta->whole_groups || zp_ndrange_uniform(r)) return zp_be->launch(bq, k->bkern, r, nt, tokens, done);
    size_t start[3][2], size[3][2], local[3][2];
    uint32_t segs[3];
    for (int d = 0; d < 3; d++) {
        size_t full = r->range[d] / r->enq[d] * r->enq[d];
        segs[d] = 0;
        if (full) {
            start[d][segs[d]] = 0;
            size[d][segs[d]] = full;
            local[d][segs[d]++] = r->enq[d];
        }
        if (full != r->range[d]) {
            start[d][segs[d]] = full;
            size[d][segs[d]] = r->range[d] - full;
            local[d][segs[d]++] = r->range[d] - full;
        }
    }
    uint32_t pieces = segs[0] * segs[1] * segs[2];
    ze_result_t res = ZE_RESULT_SUCCESS;
    for (uint32_t i = 0; i < pieces && res == ZE_RESULT_SUCCESS; i++) {
        zp_ndrange p = *r;
        uint32_t at[3] = {i % segs[0], i / segs[0] % segs[1], i / segs[0] / segs[1]};
        for (int d = 0; d < 3; d++) {
            p.offset[d] = r->offset[d] + start[d][at[d]];
            p.global[d] = size[d][at[d]];
            p.local[d] = local[d][at[d]];
            p.base[d] = start[d][at[d]] / r->enq[d];
        }
        bool first = i == 0, last = i + 1 == pieces;
        res = zp_be->launch(bq, k->bkern, &p, first ? nt : 0, first ? tokens : NULL, last ? done : NULL);
    }
    return res;
}

ze_result_t zp_exec_launch_pieces(zp_bqueue *bq, ze_kernel_handle_t k, const zp_ndrange *r, uint32_t nt,
                                  zp_btoken *const *tokens, zp_btoken **done) {
    if (__builtin_expect(!k->fault, 1)) return launch_pieces(bq, k, r, nt, tokens, done);
    /* KRT_ZE_FAULT names the kernel (fault.c): it runs, then a host step loses its device, and the launch's token
     * is that step's. */
    ze_result_t res = launch_pieces(bq, k, r, nt, tokens, NULL);
    return res == ZE_RESULT_SUCCESS ? zp_fault_after(bq, k, done) : res;
}

ze_result_t zp_exec_launch(zp_bqueue *bq, ze_device_handle_t dev, ze_kernel_handle_t k, const zp_ndrange *range,
                           const uint8_t *args,
                           ze_event_handle_t signal, uint64_t signal_gen, uint32_t num_waits,
                           ze_event_handle_t *waits, ze_event_handle_t *blocked) {
    zp_btoken *buf[ZP_WAIT_BUF], **tokens, *done = NULL;
    uint32_t nt;
    ze_result_t r = zp_exec_waits(num_waits, waits, buf, ZP_WAIT_BUF, &tokens, &nt, blocked);
    if (r != ZE_RESULT_SUCCESS) return r;
    pthread_mutex_lock(&k->lock);
    if (args) {
        /* A recorded launch whose snapshot is what the backend kernel holds already (the kernel's current
         * arguments, not stale) sets nothing: a list replaying the same launch many times costs only the
         * enqueues. */
        bool same = memcmp(args, k->arg_data, k->arg_bytes) == 0;
        if (!same || k->backend_stale) {
            r = zp_kernel_apply_args(k, args);
            k->backend_stale = !same || r != ZE_RESULT_SUCCESS;
        }
    } else if (k->backend_stale) {
        r = zp_kernel_apply_args(k, k->arg_data);
        if (r == ZE_RESULT_SUCCESS) k->backend_stale = false;
    }
    if (r == ZE_RESULT_SUCCESS) r = zp_exec_launch_pieces(bq, k, range, nt, tokens, signal ? &done : NULL);
    pthread_mutex_unlock(&k->lock);
    zp_exec_release_waits(tokens, nt, buf);
    if (r == ZE_RESULT_SUCCESS && signal) zp_signal_arm_gen(&signal->sig, done, dev, signal_gen);
    return r;
}

/* Host tasks for the commands no backend command covers. Each owns its data and frees it. */
typedef struct {
    void *dst;
    zp_bdev *bdev;
} ts_op;

static void host_timestamp(void *p) {
    ts_op *op = p;
    uint64_t host, dev;
    zp_be->timestamps(op->bdev, &host, &dev);
    dev = zp_ts(dev);
    memcpy(op->dst, &dev, sizeof dev);
    free(op);
}

typedef struct {
    uint8_t *dst;
    uint32_t n;
    size_t *offsets;            /* n entries, or NULL for consecutive results */
    ze_event_handle_t events[]; /* n entries */
} query_op;

static void host_query(void *p) {
    query_op *op = p;
    for (uint32_t i = 0; i < op->n; i++) {
        ze_kernel_timestamp_result_t r;
        memset(&r, 0, sizeof r);
        zp_signal *s = &op->events[i]->sig;
        pthread_mutex_lock(&s->mu);
        zp_btoken *t = s->token;
        if (t) zp_be->token_retain(t);
        pthread_mutex_unlock(&s->mu);
        if (t) {
            uint64_t start = 0, end = 0;
            zp_be->token_times(t, &start, &end);
            zp_be->token_release(t);
            r.global.kernelStart = r.context.kernelStart = zp_ts(start);
            r.global.kernelEnd = r.context.kernelEnd = zp_ts(end);
        }
        size_t at = op->offsets ? op->offsets[i] : i * sizeof r;
        memcpy(op->dst + at, &r, sizeof r);
    }
    free(op->offsets);
    free(op);
}

typedef struct {
    uint8_t *dst;
    const uint8_t *src;
    ze_copy_region_t dr, sr;
    size_t dpitch, dslice, spitch, sslice;
} region_op;

static void host_region(void *p) {
    region_op *op = p;
    /* Depth 0 (a 2-D copy) was made 1 when the command was appended. */
    for (uint32_t z = 0; z < op->dr.depth; z++) {
        for (uint32_t y = 0; y < op->dr.height; y++) {
            uint8_t *d = op->dst + (op->dr.originZ + z) * op->dslice + (op->dr.originY + y) * op->dpitch + op->dr.originX;
            const uint8_t *s = op->src + (op->sr.originZ + z) * op->sslice + (op->sr.originY + y) * op->spitch + op->sr.originX;
            memmove(d, s, op->dr.width);
        }
    }
    free(op);
}

static ze_result_t special_op(zp_bqueue *bq, const zp_cmd *c, uint32_t nt, zp_btoken **tokens, zp_btoken **pdone) {
    if (c->type == ZP_CMD_TIMESTAMP) {
        ts_op *op = malloc(sizeof *op);
        if (!op) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        op->dst = c->dst;
        op->bdev = c->bdev;
        return zp_be->host_task(bq, host_timestamp, op, nt, tokens, pdone);
    }
    if (c->type == ZP_CMD_QUERY_TS) {
        query_op *op = malloc(sizeof *op + c->num_query * sizeof(ze_event_handle_t));
        if (!op) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        op->dst = c->dst;
        op->n = c->num_query;
        op->offsets = NULL;
        if (c->offsets) {
            op->offsets = malloc(c->num_query * sizeof *op->offsets);
            if (!op->offsets) {
                free(op);
                return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
            }
            memcpy(op->offsets, c->offsets, c->num_query * sizeof *op->offsets);
        }
        memcpy(op->events, c->waits, c->num_query * sizeof(ze_event_handle_t));
        return zp_be->host_task(bq, host_query, op, nt, tokens, pdone);
    }
    if (zp_be->copy_any) {
        /* Device memory may not be host-visible: one backend copy per row, in stream order; the first
         * takes the waits, the last gives the completion token. */
        const ze_copy_region_t *dr = &c->dst_region, *sr = &c->src_region;
        uint64_t rows = (uint64_t)dr->height * dr->depth, k = 0; /* depth >= 1: see host_region */
        if (rows == 0 || dr->width == 0) return zp_be->barrier(bq, nt, tokens, pdone);
        for (uint32_t z = 0; z < dr->depth; z++)
            for (uint32_t y = 0; y < dr->height; y++, k++) {
                uint8_t *d = (uint8_t *)c->dst + (size_t)(dr->originZ + z) * c->dst_slice_pitch +
                             (size_t)(dr->originY + y) * c->dst_pitch + dr->originX;
                const uint8_t *s = (const uint8_t *)c->src + (size_t)(sr->originZ + z) * c->src_slice_pitch +
                                   (size_t)(sr->originY + y) * c->src_pitch + sr->originX;
                ze_result_t r = zp_be->copy(bq, d, s, dr->width, k == 0 ? nt : 0, k == 0 ? tokens : NULL,
                                            k == rows - 1 ? pdone : NULL);
                if (r != ZE_RESULT_SUCCESS) return r;
            }
        return ZE_RESULT_SUCCESS;
    }
    region_op *op = malloc(sizeof *op);
    if (!op) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    op->dst = c->dst;
    op->src = c->src;
    op->dr = c->dst_region;
    op->sr = c->src_region;
    op->dpitch = c->dst_pitch;
    op->dslice = c->dst_slice_pitch;
    op->spitch = c->src_pitch;
    op->sslice = c->src_slice_pitch;
    return zp_be->host_task(bq, host_region, op, nt, tokens, pdone);
}

ze_result_t zp_exec_enable_times(zp_stream *st) {
    /* Done once per stream, at the first command that needs times: waiting for the old queue to drain
     * keeps the stream in order without linking the two queues. */
    zp_bqueue *nq;
    ze_result_t r = zp_be->queue_create(st->dev->bdev, true, &nq);
    if (r != ZE_RESULT_SUCCESS) return r;
    zp_be->queue_destroy(st->bq);
    st->bq = nq;
    st->profiling = true;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_exec_gate(zp_bqueue *bq, const zp_cmd *c, zp_btoken **gate, ze_event_handle_t *blocked) {
    zp_btoken *buf[ZP_WAIT_BUF], **tokens;
    uint32_t nt;
    ze_result_t r = zp_exec_waits(c->num_waits, c->waits, buf, ZP_WAIT_BUF, &tokens, &nt, blocked);
    if (r != ZE_RESULT_SUCCESS) return r;
    r = zp_be->barrier(bq, nt, tokens, gate);
    zp_exec_release_waits(tokens, nt, buf);
    return r;
}

ze_result_t zp_exec_cmd(zp_bqueue *bq, ze_device_handle_t dev, const zp_cmd *c, ze_event_handle_t *blocked) {
    /* Indirect launches run only through a stream, which reads their group count (stream.c). */
    if (c->type == ZP_CMD_LAUNCH_INDIRECT) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    if (c->type == ZP_CMD_LAUNCH && (c->range.global[0] && c->range.global[1] && c->range.global[2]))
        return zp_exec_launch(bq, dev, c->kernel, &c->range, c->args, c->signal, c->signal_gen, c->num_waits, c->waits,
                              blocked);
    if (c->type == ZP_CMD_RESET) {
        /* Resets happen when the command is reached on the host side of the stream. */
        zp_signal_reset(&c->signal->sig);
        return ZE_RESULT_SUCCESS;
    }
    zp_btoken *buf[ZP_WAIT_BUF], **tokens, *done = NULL;
    uint32_t nt;
    ze_result_t r = zp_exec_waits(c->num_waits, c->waits, buf, ZP_WAIT_BUF, &tokens, &nt, blocked);
    if (r != ZE_RESULT_SUCCESS) return r;
    zp_btoken **pdone = (c->signal || c->fence || c->mark) ? &done : NULL;
    switch (c->type) {
    case ZP_CMD_COPY:
    case ZP_CMD_FILL:
        r = mem_op(bq, c, nt, tokens, pdone);
        break;
    case ZP_CMD_TIMESTAMP:
    case ZP_CMD_QUERY_TS:
    case ZP_CMD_COPY_REGION:
        r = special_op(bq, c, nt, tokens, pdone);
        break;
    case ZP_CMD_GRAPH:
        r = zp_be->graph_launch(bq, c->graph, nt, tokens, pdone);
        break;
    default: /* barriers, signal and wait commands, empty launches */
        r = zp_be->barrier(bq, nt, tokens, pdone);
        break;
    }
    zp_exec_release_waits(tokens, nt, buf);
    if (r != ZE_RESULT_SUCCESS) return r;
    if (c->signal) {
        zp_signal_arm_gen(&c->signal->sig, done, dev, c->signal_gen);
        return ZE_RESULT_SUCCESS;
    }
    /* A fence and a mark may share one barrier; each signal keeps its own reference to the token. */
    if (c->fence && c->mark) zp_be->token_retain(done);
    if (c->fence) zp_signal_arm(&c->fence->sig, done, dev);
    if (c->mark) zp_signal_arm(c->mark, done, dev);
    return ZE_RESULT_SUCCESS;
}
