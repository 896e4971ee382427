/*
 * fill.c: krt_memfill, a queued fill done by krt's built-in kernels (kernels/krt_fill.cl, embedded in libkrt)
 * through the launch path, so that it orders on the queue like any launch.
 */
#include "krt_internal.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The built-in fill module, built once per context on the first fill. */
static krt_result builtin_kernel(krt_context *ctx, const char *name, krt_kernel **out)
{
    pthread_mutex_lock(&ctx->lock);
    krt_result r = KRT_SUCCESS;
    if (!ctx->builtin)
        r = krt__module_create_builtin(ctx, &ctx->builtin);
    krt_module *m = ctx->builtin;
    pthread_mutex_unlock(&ctx->lock);
    if (r == KRT_ERROR_DEVICE_LOST)
        return krt__lost(ctx, NULL, "zeModuleCreate (the built-in fill kernels)");
    if (r != KRT_SUCCESS)
        return r;
    return krt_kernel_get(m, name, out);
}

krt_result krt_memfill(krt_context *ctx, krt_queue *queue, void *dst, const void *pattern, size_t pattern_size,
                       size_t size)
{
    if (!ctx || !dst || !pattern)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_memfill: %s is NULL",
                         !ctx ? "ctx" : !dst ? "dst" : "pattern");
    if (pattern_size == 0 || pattern_size > 128 || (pattern_size & (pattern_size - 1)))
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT,
                         "krt_memfill: pattern_size %zu is not a power of two in 1..128", pattern_size);
    if (size % pattern_size)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_memfill: size %zu is not a multiple of pattern_size %zu",
                         size, pattern_size);
    if (queue && queue->ctx != ctx)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_memfill: the queue belongs to another context");
    if (krt__is_lost(ctx))
        return krt__lost_again(ctx);
    if (size > (size_t)PTRDIFF_MAX || size > UINTPTR_MAX - (uintptr_t)dst)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_memfill: size %zu is larger than any object can be", size);
    /* A krt_alloc allocation is checked against its size without asking the driver; other pointers must at
     * least be allocations the driver knows. */
    int found = 0;
    krt_result r = krt__alloc_check_range(ctx, "krt_memfill", "dst", dst, size, &found);
    if (r != KRT_SUCCESS)
        return r;
    if (!found && !krt__pointer_known(ctx, dst, NULL))
        return krt__fail(KRT_ERROR_INVALID_POINTER, "krt_memfill: dst %p is not an allocation known to the driver",
                         dst);
    if (size == 0)
        return KRT_SUCCESS;

    /* The host device fills natively (its driver's fill is a host loop): the built-in fill kernels are embedded
     * as SPIR-V only, without the native library the host device would call. */
    if (ctx->host) {
        krt_queue *q = queue ? queue : ctx->default_queue;
        pthread_mutex_lock(&q->lock);
        ze_result_t zr =
            KRT__ZE(ctx->ddi, CommandList, AppendMemoryFill)(krt__queue_target(q), dst, pattern, pattern_size, size, NULL, 0, NULL);
        q->appended++;
        if (q->rec && zr == ZE_RESULT_SUCCESS)
            krt__queue_count(q, KRT__REC_FILL);
        pthread_mutex_unlock(&q->lock);
        return krt__ze_ctx(ctx, q, zr, "zeCommandListAppendMemoryFill");
    }
    /* The pattern goes by value, as a ulong16 of 128 bytes, repeated to fill it: nothing is allocated. */
    uint64_t words[16];
    unsigned char *bytes = (unsigned char *)words;
    for (size_t i = 0; i < sizeof words; i += pattern_size)
        memcpy(bytes + i, pattern, pattern_size);

    /* Patterns of up to 8 bytes repeat within one 64-bit word, so aligned fills write words. */
    uintptr_t addr = (uintptr_t)dst;
    const char *name;
    uint64_t n;
    uint32_t period;
    if ((addr & 7) == 0 && size % 8 == 0) {
        name = "krt_fill_words";
        n = size / 8;
        period = pattern_size <= 8 ? 1 : (uint32_t)(pattern_size / 8);
    } else {
        name = "krt_fill_bytes";
        n = size;
        period = (uint32_t)pattern_size;
    }
    krt_kernel *k;
    r = builtin_kernel(ctx, name, &k);
    if (r != KRT_SUCCESS)
        return r;
    krt_arg args[] = { KRT_ARG(dst), KRT_ARG(n), { .value = words, .size = sizeof words }, KRT_ARG(period) };
    krt_launch_desc ld = { .range = { .dims = 1, .size = { n } }, .args = args, .num_args = 4, .queue = queue };
    r = krt__launch(k, &ld);
    /* A recording counts the fill kernel's launch as a fill (krt_recording_info). */
    krt_queue *q = queue ? queue : ctx->default_queue;
    pthread_mutex_lock(&q->lock);
    if (r == KRT_SUCCESS && q->rec && q->rec->info.num_launches > 0) {
        q->rec->info.num_launches--;
        q->rec->info.num_fills++;
    }
    pthread_mutex_unlock(&q->lock);
    return r;
}
