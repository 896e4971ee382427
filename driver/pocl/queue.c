/* PoCL backend: in-order queues, commands and completion tokens (cl_events). */
#include <stdlib.h>

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

ze_result_t zp_pocl_gate_create(zp_btoken **out) {
    cl_int err;
    cl_event e = clCreateUserEvent(zp_cl_ctx, &err);
    if (!e) return zp_cl_result(err);
    *out = (zp_btoken *)e;
    return ZE_RESULT_SUCCESS;
}

void zp_pocl_gate_open(zp_btoken *gate) { clSetUserEventStatus(ZP_CLE(gate), CL_COMPLETE); }

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
    cl_event gate;
} host_task;

static void CL_CALLBACK run_host_task(cl_event e, cl_int status, void *p) {
    (void)e;
    host_task *t = p;
    /* A failed predecessor still releases the stream, as OpenCL would with an error status. */
    if (status >= 0) t->fn(t->data); else free(t->data);
    clSetUserEventStatus(t->gate, status >= 0 ? CL_COMPLETE : -1);
    clReleaseEvent(t->gate);
    free(t);
}

/* A marker after the waits runs the task from its completion callback; the queue itself waits for a
 * user event the task opens when it is done, so the next command sees the task's effects. */
ze_result_t zp_pocl_host_task(zp_bqueue *q, void (*fn)(void *data), void *data, uint32_t num_waits,
                              zp_btoken *const *waits, zp_btoken **done) {
    host_task *t = malloc(sizeof *t);
    if (!t) {
        free(data);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    cl_int err;
    t->fn = fn;
    t->data = data;
    t->gate = clCreateUserEvent(zp_cl_ctx, &err);
    if (!t->gate) {
        free(t);
        free(data);
        return zp_cl_result(err);
    }
    cl_event marker = NULL;
    err = clEnqueueMarkerWithWaitList(ZP_CLQ(q), num_waits, (num_waits ? (const cl_event *)waits : NULL), &marker);
    if (err == CL_SUCCESS) {
        err = clEnqueueBarrierWithWaitList(ZP_CLQ(q), 1, &t->gate, (cl_event *)done);
        if (err == CL_SUCCESS) {
            /* From here the callback owns t and the gate's one reference. */
            err = clSetEventCallback(marker, CL_COMPLETE, run_host_task, t);
            if (err != CL_SUCCESS) {
                /* Nothing will run the task: open the gate so the queue does not stall on it. */
                clSetUserEventStatus(t->gate, CL_COMPLETE);
                if (done && *done) {
                    clReleaseEvent(ZP_CLE(*done));
                    *done = NULL;
                }
            }
        }
        clReleaseEvent(marker);
    }
    if (err != CL_SUCCESS) {
        clReleaseEvent(t->gate);
        free(t);
        free(data);
        return zp_cl_result(err);
    }
    return ZE_RESULT_SUCCESS;
}
