/* See krt_fuzz_one.h. */
#include "krt_fuzz_one.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

krt_result kf_pool_create(krt_context *ctx, kf_pool *pool)
{
    memset(pool, 0, sizeof *pool);
    pool->ctx = ctx;
    for (int i = 0; i < KF_POOL_BUFFERS; i++) {
        krt_alloc_desc d = {.kind = KRT_MEMORY_SHARED};
        krt_result r = krt_alloc(ctx, KF_POOL_BYTES, &d, &pool->buf[i]);
        if (r != KRT_SUCCESS) {
            kf_pool_destroy(pool);
            return r;
        }
    }
    return KRT_SUCCESS;
}

void kf_pool_destroy(kf_pool *pool)
{
    for (int i = 0; i < KF_POOL_BUFFERS; i++)
        if (pool->buf[i]) krt_free(pool->ctx, pool->buf[i]);
    memset(pool->buf, 0, sizeof pool->buf);
}

const char *kf_outcome_name(kf_outcome o)
{
    switch (o) {
    case KF_REFUSED: return "refused";
    case KF_LOADED: return "loaded";
    case KF_BAD_ERROR: return "bad-error";
    case KF_LAUNCH_ERROR: return "launch-error";
    case KF_KERNEL_HANG: return "kernel-hang";
    }
    return "unknown";
}

/* A scalar argument's bytes: integers KF_INT_VALUE, floating point 1.0, per vector element; other types
 * (bool, unknown) zeros. */
static void scalar_value(const krt_arg_info *ai, unsigned char *v)
{
    memset(v, 0, ai->size);
    uint32_t n = ai->vector_width ? ai->vector_width : 1;
    size_t esz = 0;
    switch (ai->type) {
    case KRT_TYPE_INT8: esz = 1; break;
    case KRT_TYPE_INT16: case KRT_TYPE_FLOAT16: esz = 2; break;
    case KRT_TYPE_INT32: case KRT_TYPE_FLOAT32: esz = 4; break;
    case KRT_TYPE_INT64: case KRT_TYPE_FLOAT64: esz = 8; break;
    default: return;
    }
    /* A vector of 3 takes the room of 4; never write past size. */
    for (uint32_t e = 0; e < n && (e + 1) * esz <= ai->size; e++) {
        unsigned char *p = v + e * esz;
        switch (ai->type) {
        case KRT_TYPE_INT8: *p = KF_INT_VALUE; break;
        case KRT_TYPE_INT16: { uint16_t x = KF_INT_VALUE; memcpy(p, &x, 2); break; }
        case KRT_TYPE_INT32: { uint32_t x = KF_INT_VALUE; memcpy(p, &x, 4); break; }
        case KRT_TYPE_INT64: { uint64_t x = KF_INT_VALUE; memcpy(p, &x, 8); break; }
        case KRT_TYPE_FLOAT16: { uint16_t x = 0x3c00; memcpy(p, &x, 2); break; }
        case KRT_TYPE_FLOAT32: { float x = 1.0f; memcpy(p, &x, 4); break; }
        case KRT_TYPE_FLOAT64: { double x = 1.0; memcpy(p, &x, 8); break; }
        default: break;
        }
    }
}

/* By-value arguments larger than this are not launched (the fuzzer would only measure malloc). */
#define KF_MAX_ARG_BYTES 4096
#define KF_MAX_ARGS 64

/* Launches one kernel; returns 0 when it ran (or cannot be launched by design), else fills out. */
static int launch_one(kf_pool *pool, krt_kernel *k, uint64_t timeout_ns, kf_report *out)
{
    krt_kernel_info info;
    krt_result r = krt_kernel_info_get(k, &info);
    if (r != KRT_SUCCESS) {
        snprintf(out->detail, sizeof out->detail, "krt_kernel_info_get: %s: %s", krt_result_name(r),
                 krt_last_error_message());
        return -1;
    }
    if (info.num_args > KF_MAX_ARGS) {
        out->skipped++;
        return 0;
    }
    krt_arg args[KF_MAX_ARGS];
    static unsigned char values[KF_MAX_ARGS][KF_MAX_ARG_BYTES];
    void *ptrs[KF_MAX_ARGS];
    uint32_t next_buf = 0;
    for (uint32_t i = 0; i < info.num_args; i++) {
        krt_arg_info ai;
        r = krt_kernel_arg_info(k, i, &ai);
        if (r != KRT_SUCCESS) {
            snprintf(out->detail, sizeof out->detail, "krt_kernel_arg_info(%u): %s: %s", i, krt_result_name(r),
                     krt_last_error_message());
            return -1;
        }
        switch (ai.kind) {
        case KRT_ARG_GLOBAL_POINTER:
        case KRT_ARG_CONSTANT_POINTER:
            ptrs[i] = pool->buf[next_buf++ % KF_POOL_BUFFERS];
            args[i] = (krt_arg){.value = &ptrs[i], .size = sizeof(void *)};
            break;
        case KRT_ARG_LOCAL_POINTER:
            args[i] = (krt_arg){.value = NULL, .size = 1024};
            break;
        case KRT_ARG_SCALAR:
        case KRT_ARG_STRUCT:
            if (ai.size == 0 || ai.size > KF_MAX_ARG_BYTES) {
                out->skipped++;
                return 0;
            }
            if (ai.kind == KRT_ARG_SCALAR) scalar_value(&ai, values[i]);
            else memset(values[i], 0, ai.size);
            args[i] = (krt_arg){.value = values[i], .size = ai.size}; /* untyped: bytes from reflection */
            break;
        default:
            out->skipped++;
            return 0; /* images, samplers: krt_launch does not take them */
        }
    }
    for (int i = 0; i < KF_POOL_BUFFERS; i++) memset(pool->buf[i], 0, KF_POOL_BYTES);
    krt_event *ev = NULL;
    r = krt_event_create(pool->ctx, NULL, &ev);
    if (r != KRT_SUCCESS) {
        snprintf(out->detail, sizeof out->detail, "krt_event_create: %s", krt_result_name(r));
        return -1;
    }
    krt_launch_desc d = {0};
    d.range.dims = 1;
    d.range.size[0] = KF_RANGE;
    d.args = args;
    d.num_args = info.num_args;
    d.signal = ev;
    r = krt_launch(k, &d);
    if (r != KRT_SUCCESS) {
        /* A refusal with a message is an answer (a reqd_work_group_size over the device's limits, local memory
         * over the device's); only an error without one is a finding. */
        const char *m = krt_last_error_message();
        krt_event_destroy(ev);
        if (m && m[0]) {
            out->skipped++;
            return 0;
        }
        snprintf(out->detail, sizeof out->detail, "krt_launch of %s: %s without a message", info.name,
                 krt_result_name(r));
        return -1;
    }
    r = krt_event_synchronize(ev, timeout_ns);
    if (r == KRT_TIMEOUT) {
        out->outcome = KF_KERNEL_HANG;
        snprintf(out->detail, sizeof out->detail, "kernel %s did not finish within %llu ms", info.name,
                 (unsigned long long)(timeout_ns / 1000000));
        return -2; /* the event stays in use by the runaway launch: not destroyed */
    }
    krt_event_destroy(ev);
    if (r != KRT_SUCCESS) {
        snprintf(out->detail, sizeof out->detail, "waiting for %s: %s: %s", info.name, krt_result_name(r),
                 krt_last_error_message());
        return -1;
    }
    out->launched++;
    return 0;
}

void kf_run_one(kf_pool *pool, const void *code, size_t size, int launch, uint64_t timeout_ns, kf_report *out)
{
    memset(out, 0, sizeof *out);
    krt_module *m = NULL;
    krt_module_desc desc = {.code = code, .size = size};
    krt_result r = krt_module_create(pool->ctx, &desc, &m);
    out->module_result = r;
    if (r != KRT_SUCCESS) {
        const char *msg = krt_last_error_message();
        out->outcome = (msg && msg[0] && !m) ? KF_REFUSED : KF_BAD_ERROR;
        snprintf(out->detail, sizeof out->detail, "%s", msg ? msg : "(no message)");
        return;
    }
    if (!m) {
        out->outcome = KF_BAD_ERROR;
        snprintf(out->detail, sizeof out->detail, "krt_module_create succeeded without a module");
        return;
    }
    out->outcome = KF_LOADED;
    uint32_t count = 0;
    r = krt_module_kernel_names(m, NULL, &count);
    const char **names = count ? calloc(count, sizeof *names) : NULL;
    if (r != KRT_SUCCESS || (count && !names) || (count && krt_module_kernel_names(m, names, &count) != KRT_SUCCESS)) {
        out->outcome = KF_BAD_ERROR;
        snprintf(out->detail, sizeof out->detail, "krt_module_kernel_names failed: %s", krt_last_error_message());
        free(names);
        krt_module_destroy(m);
        return;
    }
    out->kernels = count;
    for (uint32_t i = 0; launch && i < count; i++) {
        krt_kernel *k = NULL;
        r = krt_kernel_get(m, names[i], &k);
        if (r != KRT_SUCCESS) {
            const char *msg = krt_last_error_message();
            if (msg && msg[0]) { /* refused with a reason (a kernel PoCL cannot make) */
                out->skipped++;
                continue;
            }
            out->outcome = KF_BAD_ERROR;
            snprintf(out->detail, sizeof out->detail, "krt_kernel_get(%s): %s without a message", names[i],
                     krt_result_name(r));
            break;
        }
        int rc = launch_one(pool, k, timeout_ns, out);
        if (rc == -2) {
            free(names);
            return; /* a runaway kernel still uses the module: leave it to the context */
        }
        if (rc != 0) {
            out->outcome = KF_LAUNCH_ERROR;
            break;
        }
    }
    free(names);
    krt_module_destroy(m);
}
