/* Command list entry points. An immediate list owns an in-order backend queue and runs each append at
 * once; a regular list records commands (with argument snapshots) for a command queue to replay. */
#include "zp.h"
#include "api.h"

#define ZP_NUM_QUEUES 4u

static void free_cmds(ze_command_list_handle_t l) {
    for (size_t i = 0; i < l->num_cmds; i++) zp_cmd_free(&l->cmds[i]);
    l->num_cmds = 0;
    if (l->graph) zp_be->graph_destroy(l->graph);
    l->graph = NULL;
}

/* Whether a recorded command can go into a backend graph: kernels, copies, fills and barriers that neither wait
 * on nor signal an event. Events, resets, fences, timestamps and region copies keep the list a list of commands
 * (docs/driver.md, "Regular command lists"). */
static bool graph_ok(const zp_cmd *c) {
    switch (c->type) {
    case ZP_CMD_LAUNCH:
    case ZP_CMD_COPY:
    case ZP_CMD_FILL:
    case ZP_CMD_BARRIER:
        /* A kernel KRT_ZE_FAULT names ends with a host step (fault.c), which runs once, not once per execution. */
        return !c->signal && c->num_waits == 0 && !c->fence && !c->mark && !(c->kernel && c->kernel->fault);
    default:
        return false;
    }
}

/* At close, a backend that captures (ze_cuda) gets the whole list once, on a queue of its own that records
 * instead of running: the commands go through the same path as at execution (arguments applied, exact pieces
 * split, copies routed), so the graph holds what one execution would have run. Any command the backend cannot
 * capture leaves the list without a graph: it then replays its commands at each execution, as on ze_pocl. */
static void build_graph(ze_command_list_handle_t l) {
    if (!zp_be->capture_begin || l->num_cmds == 0 || l->wants_times) return;
    for (size_t i = 0; i < l->num_cmds; i++)
        if (!graph_ok(&l->cmds[i])) return;
    zp_bqueue *cap;
    if (zp_be->queue_create(l->dev->bdev, false, &cap) != ZE_RESULT_SUCCESS) return;
    ze_result_t r = zp_be->capture_begin(cap);
    if (r == ZE_RESULT_SUCCESS) {
        for (size_t i = 0; i < l->num_cmds && r == ZE_RESULT_SUCCESS; i++) r = zp_exec_cmd(cap, l->dev, &l->cmds[i], NULL);
        void *graph = NULL;
        ze_result_t e = zp_be->capture_end(cap, &graph);
        if (r == ZE_RESULT_SUCCESS && e == ZE_RESULT_SUCCESS && graph)
            l->graph = graph;
        else if (graph)
            zp_be->graph_destroy(graph);
    }
    zp_be->queue_destroy(cap);
}

ze_result_t zp_zeCommandListCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                   const ze_command_list_desc_t *desc, ze_command_list_handle_t *phList) {
    ZP_CHECK_HANDLE(hContext, ZP_MAGIC_CONTEXT);
    ZP_CHECK_HANDLE(hDevice, ZP_MAGIC_DEVICE);
    ZP_CHECK_PTR(desc);
    ZP_CHECK_PTR(phList);
    /* Every flag up to API 1.9's: RELAXED_ORDERING, MAXIMIZE_THROUGHPUT, EXPLICIT_ONLY, 1.7's IN_ORDER (a list runs
     * in order anyway) and 1.9's EXP_CLONEABLE (no cloning is offered: the flag asks for nothing else). */
    if (desc->flags > ZP_COMMAND_LIST_FLAGS_1_9) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if (desc->commandQueueGroupOrdinal != 0) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    zp_context_use(hContext, hDevice);
    if (zp_device_lost(hDevice)) return ZE_RESULT_ERROR_DEVICE_LOST;
    ze_command_list_handle_t l = calloc(1, sizeof *l);
    if (!l) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    l->magic = ZP_MAGIC_CMDLIST;
    l->ctx = hContext;
    l->dev = hDevice;
    *phList = l;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeCommandListCreateImmediate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                            const ze_command_queue_desc_t *desc, ze_command_list_handle_t *phList) {
    ZP_CHECK_HANDLE(hContext, ZP_MAGIC_CONTEXT);
    ZP_CHECK_HANDLE(hDevice, ZP_MAGIC_DEVICE);
    ZP_CHECK_PTR(desc);
    ZP_CHECK_PTR(phList);
    if (desc->flags > 0x3 || desc->mode > ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS ||
        desc->priority > ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_HIGH)
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if (desc->ordinal != 0 || desc->index >= ZP_NUM_QUEUES) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    zp_context_use(hContext, hDevice);
    if (zp_device_lost(hDevice)) return ZE_RESULT_ERROR_DEVICE_LOST;
    ze_command_list_handle_t l = calloc(1, sizeof *l);
    if (!l) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    ze_result_t r = zp_stream_init(&l->st, hDevice);
    if (r != ZE_RESULT_SUCCESS) {
        free(l);
        return r;
    }
    l->magic = ZP_MAGIC_CMDLIST;
    l->immediate = true;
    l->synchronous = desc->mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS || zp_debug_sync();
    l->index = desc->index;
    l->ctx = hContext;
    l->dev = hDevice;
    /* ZE_krt_native_queue: the backend queue, for a caller that asked for it in the chain. */
    for (const ze_base_desc_t *e = desc->pNext; e; e = e->pNext)
        if (e->stype == ZE_STRUCTURE_TYPE_KRT_NATIVE_QUEUE_DESC) {
            const ze_krt_native_queue_desc_t *nq = (const ze_krt_native_queue_desc_t *)e;
            if (nq->phNative) *nq->phNative = zp_be->queue_native ? zp_be->queue_native(l->st.bq) : NULL;
        }
    *phList = l;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeCommandListDestroy(ze_command_list_handle_t hList) {
    ZP_CHECK_HANDLE(hList, ZP_MAGIC_CMDLIST);
    hList->magic = 0;
    if (hList->immediate) zp_stream_fini(&hList->st);
    free_cmds(hList);
    free(hList->cmds);
    free(hList);
    return ZE_RESULT_SUCCESS;
}

/* API 1.6: waits on the host for everything appended to an immediate list so far, within the timeout in
 * nanoseconds (0 polls, UINT64_MAX waits for good); ZE_RESULT_NOT_READY when it passes first. When it returns
 * ZE_RESULT_SUCCESS, the events those commands signal read as set. A regular list has nothing running of its
 * own (its executions belong to queues): ZE_RESULT_ERROR_INVALID_ARGUMENT, as the specification says. */
ze_result_t zp_zeCommandListHostSynchronize(ze_command_list_handle_t hList, uint64_t timeout) {
    ZP_CHECK_HANDLE(hList, ZP_MAGIC_CMDLIST);
    if (!hList->immediate) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    return zp_stream_sync_submitted(&hList->st, timeout);
}

/* API 1.9: what the list was created with. Every list belongs to queue group 0, the device's only one. */
ze_result_t zp_zeCommandListGetDeviceHandle(ze_command_list_handle_t hList, ze_device_handle_t *phDevice) {
    ZP_CHECK_HANDLE(hList, ZP_MAGIC_CMDLIST);
    ZP_CHECK_PTR(phDevice);
    *phDevice = hList->dev;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeCommandListGetContextHandle(ze_command_list_handle_t hList, ze_context_handle_t *phContext) {
    ZP_CHECK_HANDLE(hList, ZP_MAGIC_CMDLIST);
    ZP_CHECK_PTR(phContext);
    *phContext = hList->ctx;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeCommandListGetOrdinal(ze_command_list_handle_t hList, uint32_t *pOrdinal) {
    ZP_CHECK_HANDLE(hList, ZP_MAGIC_CMDLIST);
    ZP_CHECK_PTR(pOrdinal);
    *pOrdinal = 0;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeCommandListImmediateGetIndex(ze_command_list_handle_t hList, uint32_t *pIndex) {
    ZP_CHECK_HANDLE(hList, ZP_MAGIC_CMDLIST);
    ZP_CHECK_PTR(pIndex);
    if (!hList->immediate) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    *pIndex = hList->index;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeCommandListIsImmediate(ze_command_list_handle_t hList, ze_bool_t *pIsImmediate) {
    ZP_CHECK_HANDLE(hList, ZP_MAGIC_CMDLIST);
    ZP_CHECK_PTR(pIsImmediate);
    *pIsImmediate = hList->immediate;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeCommandListClose(ze_command_list_handle_t hList) {
    ZP_CHECK_HANDLE(hList, ZP_MAGIC_CMDLIST);
    if (!hList->immediate && !hList->closed) {
        hList->closed = true;
        build_graph(hList);
    }
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeCommandListReset(ze_command_list_handle_t hList) {
    ZP_CHECK_HANDLE(hList, ZP_MAGIC_CMDLIST);
    if (hList->immediate) return zp_stream_sync(&hList->st, UINT64_MAX);
    free_cmds(hList);
    hList->closed = false;
    hList->wants_times = false;
    return ZE_RESULT_SUCCESS;
}

/* Runs a command on an immediate list or records it on a regular one. The recorded copy owns its
 * wait list and a snapshot of the kernel's arguments. */
static ze_result_t submit(ze_command_list_handle_t l, const zp_cmd *c) {
    /* A lost device takes no new work (fault.c); checked once per append, never half-way through one. */
    if (zp_device_lost(l->dev)) return ZE_RESULT_ERROR_DEVICE_LOST;
    if (l->immediate) {
        ze_result_t r = zp_stream_submit(&l->st, c);
        if (r == ZE_RESULT_SUCCESS && l->synchronous) r = zp_stream_sync(&l->st, UINT64_MAX);
        return r;
    }
    if (l->closed) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (l->num_cmds == l->cap_cmds) {
        size_t cap = l->cap_cmds ? l->cap_cmds * 2 : 16;
        zp_cmd *n = realloc(l->cmds, cap * sizeof *n);
        if (!n) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        l->cmds = n;
        l->cap_cmds = cap;
    }
    ze_result_t r = zp_cmd_clone(&l->cmds[l->num_cmds], c);
    if (r != ZE_RESULT_SUCCESS) return r;
    l->num_cmds++;
    if (zp_event_wants_times(c->signal) && c->type != ZP_CMD_RESET) l->wants_times = true;
    return ZE_RESULT_SUCCESS;
}

/* Checks the handles every append shares. */
static ze_result_t check_events(ze_event_handle_t signal, uint32_t num_waits, ze_event_handle_t *waits) {
    if (signal && ZP_BAD_HANDLE(signal, ZP_MAGIC_EVENT)) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (num_waits && !waits) return ZE_RESULT_ERROR_INVALID_SIZE;
    for (uint32_t i = 0; i < num_waits; i++) ZP_CHECK_HANDLE(waits[i], ZP_MAGIC_EVENT);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeCommandListAppendLaunchKernel(ze_command_list_handle_t hList, ze_kernel_handle_t hKernel,
                                               const ze_group_count_t *gc, ze_event_handle_t hSignalEvent,
                                               uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
    ZP_CHECK_HANDLE(hList, ZP_MAGIC_CMDLIST);
    ZP_CHECK_HANDLE(hKernel, ZP_MAGIC_KERNEL);
    ZP_CHECK_PTR(gc);
    ze_kernel_handle_t k = hKernel;
    const uint64_t t0 = k->trace ? zp_trace_clock() : 0; /* KRT_ZE_TRACE (trace.c) */
    if (numWaitEvents && !phWaitEvents) return ZE_RESULT_ERROR_INVALID_SIZE;
    /* A launch with arguments never set would run the kernel on garbage. */
    if (k->args_set != k->meta->num_args) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    /* Private memory the device cannot give a work-item (kernel.c). */
    ze_result_t pr = zp_kernel_private_check(k);
    if (pr != ZE_RESULT_SUCCESS) return pr;
    zp_ndrange range, *r = &range;
    /* Reading group size and offset unlocked is fine: the spec forbids changing them concurrently with
     * an append that uses the kernel. */
    for (int d = 0; d < 3; d++) {
        r->local[d] = k->group[d];
        r->offset[d] = k->has_offset ? k->offset[d] : 0;
    }
    const uint32_t groups[3] = {gc->groupCountX, gc->groupCountY, gc->groupCountZ};
    ze_result_t res = zp_ndrange_set_groups(r, groups);
    if (res != ZE_RESULT_SUCCESS) return res;
    /* The whole launch: uniform, or exact (ZE_krt_exact_range) with each group count the true range needs. */
    for (int d = 0; d < 3; d++) {
        r->enq[d] = r->local[d];
        r->base[d] = 0;
        r->range[d] = r->global[d];
    }
    if (k->has_exact && r->global[0] && r->global[1] && r->global[2]) {
        for (int d = 0; d < 3; d++) {
            if (k->exact[d] > r->global[d] || r->global[d] - k->exact[d] >= r->local[d])
                return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
            r->range[d] = k->exact[d];
        }
    }

    /* The common case: an immediate list, no events, arguments already in the backend kernel. */
    if (hList->immediate && !hSignalEvent && numWaitEvents == 0 && r->global[0] && r->global[1] && r->global[2] &&
        !atomic_load_explicit(&hList->st.has_pending, memory_order_acquire)) {
        if (zp_device_lost(hList->dev)) return ZE_RESULT_ERROR_DEVICE_LOST;
        pthread_mutex_lock(&k->lock);
        if (k->backend_stale) {
            res = zp_kernel_apply_args(k, k->arg_data);
            if (res == ZE_RESULT_SUCCESS) k->backend_stale = false;
        }
        if (res == ZE_RESULT_SUCCESS) res = zp_exec_launch_pieces(hList->st.bq, k, r, 0, NULL, NULL);
        pthread_mutex_unlock(&k->lock);
        /* As zp_stream_submit counts every other command: zeCommandListHostSynchronize marks after it. */
        zp_stream_count(&hList->st);
        if (res == ZE_RESULT_SUCCESS && hList->synchronous) res = zp_stream_sync(&hList->st, UINT64_MAX);
        if (k->trace) zp_trace_launch(k, r, groups, true, res, t0);
        return res;
    }

    res = check_events(hSignalEvent, numWaitEvents, phWaitEvents);
    if (res != ZE_RESULT_SUCCESS) return res;
    zp_cmd c = {.type = ZP_CMD_LAUNCH, .kernel = k, .range = range, .signal = hSignalEvent,
                .num_waits = numWaitEvents, .waits = phWaitEvents};
    /* Recording (or holding back) snapshots the arguments; running now uses them in place. */
    res = submit(hList, &c);
    if (k->trace) zp_trace_launch(k, r, groups, hList->immediate, res, t0);
    return res;
}

/* The group count is read from pLaunchArgumentsBuffer when the launch's turn comes, after the commands before it
 * and its waits have completed (stream.c, "Indirect launches"): the buffer may be written after the append. The
 * kernel's arguments, group size and offset are taken at the append, as for any launch. */
ze_result_t zp_zeCommandListAppendLaunchKernelIndirect(ze_command_list_handle_t hList, ze_kernel_handle_t hKernel,
                                                       const ze_group_count_t *pLaunchArgumentsBuffer,
                                                       ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                                       ze_event_handle_t *phWaitEvents) {
    ZP_CHECK_HANDLE(hList, ZP_MAGIC_CMDLIST);
    ZP_CHECK_HANDLE(hKernel, ZP_MAGIC_KERNEL);
    ZP_CHECK_PTR(pLaunchArgumentsBuffer);
    ze_kernel_handle_t k = hKernel;
    if (k->args_set != k->meta->num_args) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    ze_result_t res = zp_kernel_private_check(k);
    if (res == ZE_RESULT_SUCCESS) res = check_events(hSignalEvent, numWaitEvents, phWaitEvents);
    if (res != ZE_RESULT_SUCCESS) return res;
    zp_cmd c = {.type = ZP_CMD_LAUNCH_INDIRECT, .kernel = k, .src = pLaunchArgumentsBuffer, .signal = hSignalEvent,
                .num_waits = numWaitEvents, .waits = phWaitEvents};
    for (int d = 0; d < 3; d++) {
        c.range.local[d] = c.range.enq[d] = k->group[d];
        c.range.offset[d] = k->has_offset ? k->offset[d] : 0;
    }
    return submit(hList, &c);
}

/* Several kernels, each with the group count at its place in pLaunchArgumentsBuffer; how many of them run
 * (at most numKernels) is read from pCountBuffer with the group counts. Each kernel is an indirect launch of its
 * own, in order: the first takes the waits, the last the signal. */
ze_result_t zp_zeCommandListAppendLaunchMultipleKernelsIndirect(ze_command_list_handle_t hList, uint32_t numKernels,
                                                               ze_kernel_handle_t *phKernels,
                                                               const uint32_t *pCountBuffer,
                                                               const ze_group_count_t *pLaunchArgumentsBuffer,
                                                               ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                                               ze_event_handle_t *phWaitEvents) {
    ZP_CHECK_HANDLE(hList, ZP_MAGIC_CMDLIST);
    ZP_CHECK_PTR(phKernels);
    ZP_CHECK_PTR(pCountBuffer);
    ZP_CHECK_PTR(pLaunchArgumentsBuffer);
    for (uint32_t i = 0; i < numKernels; i++) {
        ZP_CHECK_HANDLE(phKernels[i], ZP_MAGIC_KERNEL);
        if (phKernels[i]->args_set != phKernels[i]->meta->num_args) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
        if (zp_kernel_private_check(phKernels[i]) != ZE_RESULT_SUCCESS) return ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
    }
    ze_result_t res = check_events(hSignalEvent, numWaitEvents, phWaitEvents);
    if (res != ZE_RESULT_SUCCESS) return res;
    if (numKernels == 0) return zp_zeCommandListAppendBarrier(hList, hSignalEvent, numWaitEvents, phWaitEvents);
    for (uint32_t i = 0; i < numKernels && res == ZE_RESULT_SUCCESS; i++) {
        ze_kernel_handle_t k = phKernels[i];
        zp_cmd c = {.type = ZP_CMD_LAUNCH_INDIRECT, .kernel = k, .src = &pLaunchArgumentsBuffer[i],
                    .count_src = pCountBuffer, .index = i, .signal = i == numKernels - 1 ? hSignalEvent : NULL,
                    .num_waits = i == 0 ? numWaitEvents : 0, .waits = i == 0 ? phWaitEvents : NULL};
        for (int d = 0; d < 3; d++) {
            c.range.local[d] = c.range.enq[d] = k->group[d];
            c.range.offset[d] = k->has_offset ? k->offset[d] : 0;
        }
        res = submit(hList, &c);
    }
    return res;
}

/* A range that starts in a ze_pocl allocation must end in it, as Level Zero's validation layer requires:
 * a copy or fill past the allocation's end would write over whatever follows it. `end` is the offset from p
 * one past the last byte touched (128 bits: region extents are products of 32-bit values). Memory that
 * ze_pocl did not allocate cannot be checked and stays the caller's responsibility. */
static bool fits_allocation(const void *p, unsigned __int128 end) {
    zp_alloc_info a;
    if (end == 0 || !zp_mem_lookup(NULL, p, &a)) return true;
    return end <= (unsigned __int128)((uintptr_t)a.base + a.size - (uintptr_t)p);
}

/* The device whose memory p is, when it is device memory (host and shared memory every device reaches). */
static ze_device_handle_t device_memory_of(const void *p) {
    zp_alloc_info a;
    if (!zp_mem_lookup(NULL, p, &a) || a.type != ZE_MEMORY_TYPE_DEVICE) return NULL;
    return a.dev;
}

/* A copy on dev's list that touches device memory of a device dev cannot reach (zeDeviceCanAccessPeer) has no path
 * in hardware: refused, so that the caller stages it through host memory. A copy between device memory of two
 * devices notes them for the backend's peer copy (zp_backend_ops.copy_peer). */
static ze_result_t peer_check(ze_device_handle_t dev, zp_cmd *c) {
    ze_device_handle_t d = device_memory_of(c->dst), s = device_memory_of(c->src);
    if ((d && !zp_device_reaches(dev, d)) || (s && !zp_device_reaches(dev, s))) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    if (d && s && d != s) {
        c->dst_dev = d->bdev;
        c->src_dev = s->bdev;
    }
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeCommandListAppendMemoryCopy(ze_command_list_handle_t hList, void *dst, const void *src, size_t size,
                                             ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                             ze_event_handle_t *phWaitEvents) {
    ZP_CHECK_HANDLE(hList, ZP_MAGIC_CMDLIST);
    ZP_CHECK_PTR(dst);
    ZP_CHECK_PTR(src);
    ze_result_t res = check_events(hSignalEvent, numWaitEvents, phWaitEvents);
    if (res != ZE_RESULT_SUCCESS) return res;
    if (!fits_allocation(dst, size) || !fits_allocation(src, size)) return ZE_RESULT_ERROR_INVALID_SIZE;
    uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
    if (size && d < s + size && s < d + size) return ZE_RESULT_ERROR_OVERLAPPING_REGIONS;
    zp_cmd c = {.type = ZP_CMD_COPY, .signal = hSignalEvent, .num_waits = numWaitEvents, .waits = phWaitEvents,
                .dst = dst, .src = src, .size = size};
    if (zp_driver.num_devices > 1 && size) {
        res = peer_check(hList->dev, &c);
        if (res != ZE_RESULT_SUCCESS) return res;
    }
    return submit(hList, &c);
}

/* Every context of a driver shares one address space and one allocation table (memory.c), so memory of another
 * context of the same driver is copied like any memory: the source context is checked and the copy is the plain
 * one, with its checks. */
ze_result_t zp_zeCommandListAppendMemoryCopyFromContext(ze_command_list_handle_t hList, void *dstptr,
                                                       ze_context_handle_t hContextSrc, const void *srcptr,
                                                       size_t size, ze_event_handle_t hSignalEvent,
                                                       uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
    ZP_CHECK_HANDLE(hList, ZP_MAGIC_CMDLIST);
    ZP_CHECK_HANDLE(hContextSrc, ZP_MAGIC_CONTEXT);
    return zp_zeCommandListAppendMemoryCopy(hList, dstptr, srcptr, size, hSignalEvent, numWaitEvents, phWaitEvents);
}

ze_result_t zp_zeCommandListAppendMemoryFill(ze_command_list_handle_t hList, void *ptr, const void *pattern,
                                             size_t pattern_size, size_t size, ze_event_handle_t hSignalEvent,
                                             uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
    ZP_CHECK_HANDLE(hList, ZP_MAGIC_CMDLIST);
    ZP_CHECK_PTR(ptr);
    ZP_CHECK_PTR(pattern);
    ze_result_t res = check_events(hSignalEvent, numWaitEvents, phWaitEvents);
    if (res != ZE_RESULT_SUCCESS) return res;
    /* "The pattern size must be a power-of-two and less than or equal to maxMemoryFillPatternSize" (128 here).
     * The specification has no rule tying the size to the pattern size: the last repetition may be partial. */
    if (!zp_is_pow2(pattern_size) || pattern_size > 128) return ZE_RESULT_ERROR_INVALID_SIZE;
    if (!fits_allocation(ptr, size)) return ZE_RESULT_ERROR_INVALID_SIZE;
    zp_cmd c = {.type = ZP_CMD_FILL, .signal = hSignalEvent, .num_waits = numWaitEvents, .waits = phWaitEvents,
                .dst = ptr, .size = size, .pattern_size = pattern_size};
    memcpy(c.pattern, pattern, pattern_size);
    return submit(hList, &c);
}

ze_result_t zp_zeCommandListAppendBarrier(ze_command_list_handle_t hList, ze_event_handle_t hSignalEvent,
                                          uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
    ZP_CHECK_HANDLE(hList, ZP_MAGIC_CMDLIST);
    ze_result_t res = check_events(hSignalEvent, numWaitEvents, phWaitEvents);
    if (res != ZE_RESULT_SUCCESS) return res;
    zp_cmd c = {.type = ZP_CMD_BARRIER, .signal = hSignalEvent, .num_waits = numWaitEvents, .waits = phWaitEvents};
    return submit(hList, &c);
}

ze_result_t zp_zeCommandListAppendMemoryRangesBarrier(ze_command_list_handle_t hList, uint32_t numRanges,
                                                      const size_t *pRangeSizes, const void **pRanges,
                                                      ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                                      ze_event_handle_t *phWaitEvents) {
    ZP_CHECK_HANDLE(hList, ZP_MAGIC_CMDLIST);
    if (numRanges && (!pRangeSizes || !pRanges)) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    /* Memory is coherent; a full barrier covers any set of ranges. */
    return zp_zeCommandListAppendBarrier(hList, hSignalEvent, numWaitEvents, phWaitEvents);
}

ze_result_t zp_zeCommandListAppendSignalEvent(ze_command_list_handle_t hList, ze_event_handle_t hEvent) {
    ZP_CHECK_HANDLE(hList, ZP_MAGIC_CMDLIST);
    ZP_CHECK_HANDLE(hEvent, ZP_MAGIC_EVENT);
    zp_cmd c = {.type = ZP_CMD_SIGNAL, .signal = hEvent};
    return submit(hList, &c);
}

ze_result_t zp_zeCommandListAppendWaitOnEvents(ze_command_list_handle_t hList, uint32_t numEvents,
                                               ze_event_handle_t *phEvents) {
    ZP_CHECK_HANDLE(hList, ZP_MAGIC_CMDLIST);
    ZP_CHECK_PTR(phEvents);
    ze_result_t res = check_events(NULL, numEvents, phEvents);
    if (res != ZE_RESULT_SUCCESS) return res;
    zp_cmd c = {.type = ZP_CMD_WAIT, .num_waits = numEvents, .waits = phEvents};
    return submit(hList, &c);
}

ze_result_t zp_zeCommandListAppendEventReset(ze_command_list_handle_t hList, ze_event_handle_t hEvent) {
    ZP_CHECK_HANDLE(hList, ZP_MAGIC_CMDLIST);
    ZP_CHECK_HANDLE(hEvent, ZP_MAGIC_EVENT);
    if (hEvent->pool->counter_based) return ZE_RESULT_ERROR_INVALID_ARGUMENT; /* never reset (event.c) */
    zp_cmd c = {.type = ZP_CMD_RESET, .signal = hEvent};
    return submit(hList, &c);
}

ze_result_t zp_zeCommandListAppendMemoryPrefetch(ze_command_list_handle_t hList, const void *ptr, size_t size) {
    ZP_CHECK_HANDLE(hList, ZP_MAGIC_CMDLIST);
    ZP_CHECK_PTR(ptr);
    (void)size;
    /* Host and device share memory: nothing to move. */
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeCommandListAppendMemAdvise(ze_command_list_handle_t hList, ze_device_handle_t hDevice, const void *ptr,
                                            size_t size, ze_memory_advice_t advice) {
    ZP_CHECK_HANDLE(hList, ZP_MAGIC_CMDLIST);
    ZP_CHECK_HANDLE(hDevice, ZP_MAGIC_DEVICE);
    ZP_CHECK_PTR(ptr);
    (void)size;
    /* Every advice up to API 1.7's SET/CLEAR_SYSTEM_MEMORY_PREFERRED_LOCATION is accepted; none changes anything
     * where host and device share memory. */
    if (advice > ZP_MEMORY_ADVICE_CLEAR_SYSTEM_MEMORY_PREFERRED_LOCATION) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeCommandListAppendWriteGlobalTimestamp(ze_command_list_handle_t hList, uint64_t *dstptr,
                                                       ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                                       ze_event_handle_t *phWaitEvents) {
    ZP_CHECK_HANDLE(hList, ZP_MAGIC_CMDLIST);
    ZP_CHECK_PTR(dstptr);
    ze_result_t res = check_events(hSignalEvent, numWaitEvents, phWaitEvents);
    if (res != ZE_RESULT_SUCCESS) return res;
    zp_cmd c = {.type = ZP_CMD_TIMESTAMP, .signal = hSignalEvent, .num_waits = numWaitEvents, .waits = phWaitEvents,
                .dst = dstptr, .bdev = hList->dev->bdev};
    return submit(hList, &c);
}

ze_result_t zp_zeCommandListAppendQueryKernelTimestamps(ze_command_list_handle_t hList, uint32_t numEvents,
                                                        ze_event_handle_t *phEvents, void *dstptr,
                                                        const size_t *pOffsets, ze_event_handle_t hSignalEvent,
                                                        uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
    ZP_CHECK_HANDLE(hList, ZP_MAGIC_CMDLIST);
    ZP_CHECK_PTR(phEvents);
    ZP_CHECK_PTR(dstptr);
    ze_result_t res = check_events(hSignalEvent, numWaitEvents, phWaitEvents);
    if (res == ZE_RESULT_SUCCESS) res = check_events(NULL, numEvents, phEvents);
    if (res != ZE_RESULT_SUCCESS) return res;
    if (numEvents == 0) return zp_zeCommandListAppendBarrier(hList, hSignalEvent, numWaitEvents, phWaitEvents);
    /* The command waits for the queried events as well as for its own wait list: the queried events go
     * first in one combined wait list. */
    uint32_t n = numEvents + numWaitEvents;
    ze_event_handle_t *all = malloc(n * sizeof *all);
    if (!all) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    memcpy(all, phEvents, numEvents * sizeof *all);
    if (numWaitEvents) memcpy(all + numEvents, phWaitEvents, numWaitEvents * sizeof *all);
    zp_cmd c = {.type = ZP_CMD_QUERY_TS, .signal = hSignalEvent, .num_waits = n, .waits = all, .dst = dstptr,
                .num_query = numEvents, .offsets = pOffsets};
    res = submit(hList, &c);
    free(all);
    return res;
}

/* One past the last byte a region copy touches, as an offset from the pointer (the host copy's addressing);
 * 0 for an empty region. */
static unsigned __int128 region_end(const ze_copy_region_t *r, uint32_t pitch, uint32_t slice) {
    if (r->width == 0 || r->height == 0 || r->depth == 0) return 0;
    typedef unsigned __int128 u128;
    return ((u128)r->originZ + r->depth - 1) * slice + ((u128)r->originY + r->height - 1) * pitch + r->originX +
           r->width;
}

ze_result_t zp_zeCommandListAppendMemoryCopyRegion(ze_command_list_handle_t hList, void *dstptr,
                                                   const ze_copy_region_t *dstRegion, uint32_t dstPitch,
                                                   uint32_t dstSlicePitch, const void *srcptr,
                                                   const ze_copy_region_t *srcRegion, uint32_t srcPitch,
                                                   uint32_t srcSlicePitch, ze_event_handle_t hSignalEvent,
                                                   uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
    ZP_CHECK_HANDLE(hList, ZP_MAGIC_CMDLIST);
    ZP_CHECK_PTR(dstptr);
    ZP_CHECK_PTR(srcptr);
    ZP_CHECK_PTR(dstRegion);
    ZP_CHECK_PTR(srcRegion);
    ze_result_t res = check_events(hSignalEvent, numWaitEvents, phWaitEvents);
    if (res != ZE_RESULT_SUCCESS) return res;
    if (dstRegion->width != srcRegion->width || dstRegion->height != srcRegion->height ||
        dstRegion->depth != srcRegion->depth)
        return ZE_RESULT_ERROR_INVALID_SIZE;
    /* "Set this to 0 for 2D copy" (ze_copy_region_t.depth): one slice, from here on, for the checks and the copy. */
    ze_copy_region_t dr = *dstRegion, sr = *srcRegion;
    if (dr.depth == 0) dr.depth = sr.depth = 1;
    if ((uint64_t)dr.originX + dr.width > dstPitch && (dr.height > 1 || dr.depth > 1))
        return ZE_RESULT_ERROR_INVALID_SIZE;
    if ((uint64_t)sr.originX + sr.width > srcPitch && (sr.height > 1 || sr.depth > 1))
        return ZE_RESULT_ERROR_INVALID_SIZE;
    if (!fits_allocation(dstptr, region_end(&dr, dstPitch, dstSlicePitch)) ||
        !fits_allocation(srcptr, region_end(&sr, srcPitch, srcSlicePitch)))
        return ZE_RESULT_ERROR_INVALID_SIZE;
    zp_cmd c = {.type = ZP_CMD_COPY_REGION, .signal = hSignalEvent, .num_waits = numWaitEvents,
                .waits = phWaitEvents, .dst = dstptr, .src = srcptr, .dst_region = dr,
                .src_region = sr, .dst_pitch = dstPitch, .dst_slice_pitch = dstSlicePitch,
                .src_pitch = srcPitch, .src_slice_pitch = srcSlicePitch};
    return submit(hList, &c);
}
