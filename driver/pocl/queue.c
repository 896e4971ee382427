/* PoCL backend: in-order queues, commands and completion tokens (cl_events). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pocl_be.h"
#include "../../common/fnv.h"

ze_result_t zp_pocl_queue_create(zp_bdev *dev, bool profiling, zp_bqueue **out) {
    /* PoCL reads the clock (CLOCK_MONOTONIC_RAW) several times per profiled command: about a tenth of
     * an enqueue's host time on the basic device. */
    cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, profiling ? CL_QUEUE_PROFILING_ENABLE : 0, 0};
    cl_int err;
    cl_command_queue q = clCreateCommandQueueWithProperties(zp_cl_ctx, ZP_CLD(dev), props, &err);
    if (!q) return zp_cl_result(err);
    *out = (zp_bqueue *)q;
    return ZE_RESULT_SUCCESS;
}

void zp_pocl_queue_destroy(zp_bqueue *q) {
    if (!q) return;
    clFinish(ZP_CLQ(q));
    clReleaseCommandQueue(ZP_CLQ(q));
}

ze_result_t zp_pocl_queue_finish(zp_bqueue *q) { return zp_cl_result(clFinish(ZP_CLQ(q))); }

/* Workaround for PoCL 3.1's cache of compiled work-group functions (lib/CL/devices/common.c). A command
 * takes a reference on a cache entry when it starts to run, chosen by kernel, local size, grid width and
 * global offset, but drops it at the end on the first entry of the same kernel and local size only. When
 * two commands of one kernel and local size with different grid widths overlap, they can hold different
 * entries of that key, the release can hit the wrong one, and PoCL aborts (assertion `found->ref_count >
 * 0' in pocl_release_dlhandle_cache) or miscounts. On one in-order queue such commands never overlap,
 * since PoCL drops the reference before it completes the command. So the driver orders the launches of
 * one (kernel name, local size) across queues: a launch on another queue than the previous one of its
 * key first waits for a marker behind that previous queue's commands. Keys share a fixed table of slots;
 * a collision only adds ordering. Every wait points at a command enqueued earlier, so no cycle can form.
 * Launches on the queue that last ran the key pay one uncontended lock. */
#define LAUNCH_SLOTS 64

typedef struct {
    pthread_mutex_t lock;
    cl_command_queue last; /* retained; the queue that took the latest launch of this slot's keys */
} launch_slot;

static launch_slot slots[LAUNCH_SLOTS];
static pthread_once_t slots_once = PTHREAD_ONCE_INIT;

static void slots_init(void) {
    for (int i = 0; i < LAUNCH_SLOTS; i++) pthread_mutex_init(&slots[i].lock, NULL);
}

static launch_slot *slot_for(const zp_bkern *kern, const zp_ndrange *r) {
    uint64_t h = kern->name_hash;
    for (int i = 0; i < 3; i++) h = krt_fnv1a64_word(h, (uint64_t)r->local[i]);
    return &slots[(h ^ (h >> 29)) % LAUNCH_SLOTS];
}

ze_result_t zp_pocl_launch(zp_bqueue *q, zp_bkern *kern, const zp_ndrange *r, uint32_t num_waits,
                           zp_btoken *const *waits, zp_btoken **done) {
    pthread_once(&slots_once, slots_init);
    /* A uniform launch runs the kernel itself; any other its exact-range variant, whose hidden argument is set
     * only when it changes (the object model holds the kernel's lock). */
    cl_kernel ck = ZP_CLK(kern);
    if (!zp_ndrange_uniform(r)) {
        ck = kern->exact_kernel;
        uint64_t desc[8];
        zp_exact_desc(r, desc);
        if (!kern->exact_set || memcmp(desc, kern->exact, sizeof desc) != 0) {
            cl_int e = clSetKernelArg(ck, kern->exact_index, sizeof desc, desc);
            if (e != CL_SUCCESS) {
                kern->exact_set = false;
                return zp_cl_result(e);
            }
            memcpy(kern->exact, desc, sizeof desc);
            kern->exact_set = true;
        }
    }
    cl_command_queue cq = ZP_CLQ(q);
    launch_slot *s = slot_for(kern, r);
    cl_event buf[9], *wl = num_waits ? (cl_event *)waits : NULL, marker = NULL;
    cl_uint nw = num_waits;
    cl_int err = CL_SUCCESS;
    pthread_mutex_lock(&s->lock);
    if (s->last && s->last != cq) {
        err = clEnqueueMarkerWithWaitList(s->last, 0, NULL, &marker);
        if (err == CL_SUCCESS) {
            wl = num_waits < 9 ? buf : malloc((num_waits + 1) * sizeof *wl);
            if (!wl) err = CL_OUT_OF_HOST_MEMORY;
        }
        if (err == CL_SUCCESS) {
            if (num_waits) memcpy(wl, waits, num_waits * sizeof *wl);
            wl[num_waits] = marker;
            nw = num_waits + 1;
        }
    }
    if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(cq, ck, r->dims, r->offset, r->global, r->local, nw, wl,
                                     (cl_event *)done);
    if (err == CL_SUCCESS && s->last != cq) {
        /* The slot keeps the queue alive, so a marker can still be put behind it after the queue's own
         * destroy; it is released when another queue takes the slot. */
        clRetainCommandQueue(cq);
        if (s->last) clReleaseCommandQueue(s->last);
        s->last = cq;
    }
    pthread_mutex_unlock(&s->lock);
    if (marker) clReleaseEvent(marker);
    if (wl && wl != buf && wl != (cl_event *)waits) free(wl);
    if (err == CL_SUCCESS) return ZE_RESULT_SUCCESS;
    return zp_cl_result(err);
}

ze_result_t zp_pocl_copy(zp_bqueue *q, void *dst, const void *src, size_t size, uint32_t num_waits,
                         zp_btoken *const *waits, zp_btoken **done) {
    return zp_cl_result(clEnqueueSVMMemcpy(ZP_CLQ(q), CL_FALSE, dst, src, size, num_waits,
                                           (num_waits ? (const cl_event *)waits : NULL), (cl_event *)done));
}

ze_result_t zp_pocl_fill(zp_bqueue *q, void *dst, const void *pattern, size_t pattern_size, size_t size,
                         uint32_t num_waits, zp_btoken *const *waits, zp_btoken **done) {
    return zp_cl_result(clEnqueueSVMMemFill(ZP_CLQ(q), dst, pattern, pattern_size, size, num_waits,
                                            (num_waits ? (const cl_event *)waits : NULL), (cl_event *)done));
}

ze_result_t zp_pocl_barrier(zp_bqueue *q, uint32_t num_waits, zp_btoken *const *waits, zp_btoken **done) {
    return zp_cl_result(clEnqueueBarrierWithWaitList(ZP_CLQ(q), num_waits, (num_waits ? (const cl_event *)waits : NULL),
                                                     (cl_event *)done));
}

void zp_pocl_token_retain(zp_btoken *t) { clRetainEvent(ZP_CLE(t)); }

void zp_pocl_token_release(zp_btoken *t) { clReleaseEvent(ZP_CLE(t)); }

typedef struct {
    zp_token_fn fn;
    void *user;
} callback_data;

static void CL_CALLBACK on_complete(cl_event e, cl_int status, void *p) {
    (void)status;
    callback_data cd = *(callback_data *)p;
    free(p);
    cd.fn((zp_btoken *)e, cd.user);
}

ze_result_t zp_pocl_token_on_complete(zp_btoken *t, zp_token_fn fn, void *user) {
    callback_data *cd = malloc(sizeof *cd);
    if (!cd) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    cd->fn = fn;
    cd->user = user;
    cl_int err = clSetEventCallback(ZP_CLE(t), CL_COMPLETE, on_complete, cd);
    if (err != CL_SUCCESS) {
        free(cd);
        return zp_cl_result(err);
    }
    return ZE_RESULT_SUCCESS;
}

/* PoCL runs a completion callback on its own thread after the event is complete and after the commands waiting on it
 * were released: a query that waited for the callback could read an event as not set after a later command that
 * waited on it had finished (test_ze_events' counter_based_events_read_as_the_last_command_that_signals_them, once in
 * a dozen CI runs). The event's own status answers at once. An error status is a completion too, as for the
 * callback. */
bool zp_pocl_token_done(zp_btoken *t) {
    cl_int st = CL_QUEUED;
    if (clGetEventInfo(ZP_CLE(t), CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL) != CL_SUCCESS) return false;
    return st <= CL_COMPLETE;
}

ze_result_t zp_pocl_token_times(zp_btoken *t, uint64_t *start, uint64_t *end) {
    cl_ulong s = 0, e = 0;
    cl_int err = clGetEventProfilingInfo(ZP_CLE(t), CL_PROFILING_COMMAND_START, sizeof s, &s, NULL);
    if (err == CL_SUCCESS) err = clGetEventProfilingInfo(ZP_CLE(t), CL_PROFILING_COMMAND_END, sizeof e, &e, NULL);
    if (err != CL_SUCCESS) return ZE_RESULT_ERROR_NOT_AVAILABLE;
    *start = s;
    *end = e;
    return ZE_RESULT_SUCCESS;
}

typedef struct {
    void (*fn)(void *data);
    void *data;
} host_task;

static void run_host_task(void *args) {
    host_task t;
    memcpy(&t, args, sizeof t);
    t.fn(t.data);
}

/* A native kernel is OpenCL's own host function in stream order: it runs after the waits and the
 * previous command, and the next command starts after it. (A user event opened from a completion
 * callback would do the same on the pthread device, but PoCL 3.1's basic device deadlocks when a user
 * event releases a command.) OpenCL copies the argument block, so nothing is allocated here. */
ze_result_t zp_pocl_host_task(zp_bqueue *q, void (*fn)(void *data), void *data, uint32_t num_waits,
                              zp_btoken *const *waits, zp_btoken **done) {
    host_task t = {fn, data};
    cl_int err = clEnqueueNativeKernel(ZP_CLQ(q), run_host_task, &t, sizeof t, 0, NULL, NULL, num_waits,
                                       (num_waits ? (const cl_event *)waits : NULL), (cl_event *)done);
    if (err != CL_SUCCESS) {
        free(data);
        return zp_cl_result(err);
    }
    return ZE_RESULT_SUCCESS;
}
