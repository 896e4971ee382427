/* PoCL backend: in-order queues, commands and completion tokens (cl_events). */
#include <stdlib.h>
#include <string.h>

#include "pocl_be.h"

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

ze_result_t zp_pocl_launch(zp_bqueue *q, zp_bkern *kern, const zp_ndrange *r, uint32_t num_waits,
                           zp_btoken *const *waits, zp_btoken **done) {
    cl_int err = clEnqueueNDRangeKernel(ZP_CLQ(q), ZP_CLK(kern), r->dims, r->offset, r->global, r->local,
                                        num_waits, (num_waits ? (const cl_event *)waits : NULL), (cl_event *)done);
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
