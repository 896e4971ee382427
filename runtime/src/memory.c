/*
 * memory.c: unified shared memory allocation and free, the set of a context's allocations (so that
 * krt_free can tell a foreign pointer and krt_context_destroy can free what is left), and queued copies. The
 * fill, done by krt's built-in kernels through the launch path, is fill.c.
 */
#include "krt_internal.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define KRT__TOMBSTONE ((void *)1)

static size_t ptr_hash(const void *p, size_t cap)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x & (cap - 1);
}

static int set_grow(krt__alloc_set *s)
{
    size_t cap = s->cap ? s->cap * 2 : 64;
    void **slots = calloc(cap, sizeof *slots);
    if (!slots)
        return 0;
    for (size_t i = 0; i < s->cap; i++) {
        void *p = s->slots[i];
        if (p && p != KRT__TOMBSTONE) {
            size_t h = ptr_hash(p, cap);
            while (slots[h])
                h = (h + 1) & (cap - 1);
            slots[h] = p;
        }
    }
    free(s->slots);
    s->slots = slots;
    s->cap = cap;
    s->used = s->count;
    return 1;
}

static int set_insert(krt__alloc_set *s, void *p)
{
    if ((s->used + 1) * 4 >= s->cap * 3 && !set_grow(s))
        return 0;
    size_t h = ptr_hash(p, s->cap);
    while (s->slots[h] && s->slots[h] != KRT__TOMBSTONE)
        h = (h + 1) & (s->cap - 1);
    if (!s->slots[h])
        s->used++;
    s->slots[h] = p;
    s->count++;
    return 1;
}

static int set_remove(krt__alloc_set *s, void *p)
{
    if (!s->cap)
        return 0;
    size_t h = ptr_hash(p, s->cap);
    while (s->slots[h]) {
        if (s->slots[h] == p) {
            s->slots[h] = KRT__TOMBSTONE;
            s->count--;
            return 1;
        }
        h = (h + 1) & (s->cap - 1);
    }
    return 0;
}

/* Index of the last range whose base is <= addr, or SIZE_MAX when none is. Caller holds ctx->lock. */
static size_t range_find(const krt_context *ctx, uintptr_t addr)
{
    size_t lo = 0, hi = ctx->num_ranges;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ctx->ranges[mid].base <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? lo - 1 : SIZE_MAX;
}

/* Caller holds ctx->lock. */
static int range_insert(krt_context *ctx, void *p, size_t size, krt_memory_kind kind)
{
    if (ctx->num_ranges == ctx->cap_ranges) {
        size_t nc = ctx->cap_ranges ? ctx->cap_ranges * 2 : 64;
        krt__alloc_range *r = realloc(ctx->ranges, nc * sizeof *r);
        if (!r)
            return 0;
        ctx->ranges = r;
        ctx->cap_ranges = nc;
    }
    size_t i = range_find(ctx, (uintptr_t)p);
    i = i == SIZE_MAX ? 0 : i + 1;
    memmove(&ctx->ranges[i + 1], &ctx->ranges[i], (ctx->num_ranges - i) * sizeof *ctx->ranges);
    ctx->ranges[i] = (krt__alloc_range){ (uintptr_t)p, size, kind };
    ctx->num_ranges++;
    return 1;
}

/* Caller holds ctx->lock. */
static void range_remove(krt_context *ctx, void *p)
{
    size_t i = range_find(ctx, (uintptr_t)p);
    if (i == SIZE_MAX || ctx->ranges[i].base != (uintptr_t)p)
        return;
    memmove(&ctx->ranges[i], &ctx->ranges[i + 1], (ctx->num_ranges - i - 1) * sizeof *ctx->ranges);
    ctx->num_ranges--;
}

int krt__alloc_find(krt_context *ctx, uintptr_t addr, uintptr_t *base, size_t *size)
{
    pthread_mutex_lock(&ctx->lock);
    size_t i = range_find(ctx, addr);
    int in = i != SIZE_MAX && addr - ctx->ranges[i].base < ctx->ranges[i].size;
    if (in) {
        *base = ctx->ranges[i].base;
        *size = ctx->ranges[i].size;
    }
    pthread_mutex_unlock(&ctx->lock);
    return in;
}

/* The allocation of ctx that addr falls in, if any. */
static int range_of(krt_context *ctx, uintptr_t addr, krt__alloc_range *out)
{
    pthread_mutex_lock(&ctx->lock);
    size_t i = range_find(ctx, addr);
    int in = i != SIZE_MAX && addr - ctx->ranges[i].base < ctx->ranges[i].size;
    if (in)
        *out = ctx->ranges[i];
    pthread_mutex_unlock(&ctx->lock);
    return in;
}

/* The allocation ptr falls in, among ctx's and then, when ctx shares its Level Zero context, those of the other
 * contexts that share it; *owner (NULL when none holds it: host memory, or memory krt did not allocate) and
 * *kind say whose and what. The size is checked against it as krt__alloc_check_range says. */
static krt_result locate(krt_context *ctx, const char *call, const char *what, const void *ptr, size_t size,
                         krt_context **owner, krt_memory_kind *kind)
{
    uintptr_t addr = (uintptr_t)ptr;
    krt__alloc_range a = { 0, 0, KRT_MEMORY_DEVICE };
    krt_context *o = range_of(ctx, addr, &a) ? ctx : NULL;
    if (!o && atomic_load_explicit(&ctx->share->shared, memory_order_acquire)) {
        pthread_mutex_lock(&ctx->share->lock);
        for (krt_context *m = ctx->share->members; m && !o; m = m->share_next)
            if (m != ctx && range_of(m, addr, &a))
                o = m;
        pthread_mutex_unlock(&ctx->share->lock);
    }
    *owner = o;
    *kind = a.kind;
    if (!o)
        return KRT_SUCCESS;
    size_t offset = (size_t)(addr - a.base);
    if (size > a.size - offset)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT,
                         "%s: %zu bytes at %s %p run past the end of its allocation: %s is at offset %zu of a "
                         "%zu-byte allocation at %p, which has %zu bytes left",
                         call, size, what, ptr, what, offset, a.size, (void *)a.base, a.size - offset);
    return KRT_SUCCESS;
}

krt_result krt__alloc_check_range(krt_context *ctx, const char *call, const char *what, const void *ptr,
                                  size_t size, int *found)
{
    krt_context *owner;
    krt_memory_kind kind;
    krt_result r = locate(ctx, call, what, ptr, size, &owner, &kind);
    if (found)
        *found = owner != NULL;
    return r;
}

void krt__alloc_set_free_all(krt_context *ctx)
{
    krt__alloc_set *s = &ctx->allocs;
    for (size_t i = 0; i < s->cap; i++)
        if (s->slots[i] && s->slots[i] != KRT__TOMBSTONE)
            KRT__ZE(ctx->ddi, Mem, Free)(ctx->ze, s->slots[i]);
    free(s->slots);
    memset(s, 0, sizeof *s);
    free(ctx->ranges);
    ctx->ranges = NULL;
    ctx->num_ranges = ctx->cap_ranges = 0;
}

bool krt__pointer_known(krt_context *ctx, const void *ptr, ze_device_handle_t *unreachable)
{
    ze_memory_allocation_properties_t props = { .stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES };
    ze_device_handle_t dev = NULL;
    if (unreachable)
        *unreachable = NULL;
    if (KRT__ZE(ctx->ddi, Mem, GetAllocProperties)(ctx->ze, ptr, &props, &dev) != ZE_RESULT_SUCCESS)
        return false;
    if (unreachable && props.type == ZE_MEMORY_TYPE_DEVICE && dev && dev != ctx->device &&
        !krt__device_reaches(ctx, dev))
        *unreachable = dev;
    return props.type != ZE_MEMORY_TYPE_UNKNOWN;
}

void krt__staging_free_locked(krt_context *ctx)
{
    if (ctx->staging)
        KRT__ZE(ctx->ddi, Mem, Free)(ctx->ze, ctx->staging);
    ctx->staging = NULL;
}

/* Whether every queue of the context is idle (for a checked context's retired tables). Caller holds ctx->lock. */
static int queues_idle_locked(krt_context *ctx)
{
    if (!ctx->checks)
        return 0;
    for (krt_queue *q = ctx->queues; q; q = q->next)
        if (!krt__queue_idle(q, NULL))
            return 0;
    return 1;
}

krt_result krt_alloc(krt_context *ctx, size_t size, const krt_alloc_desc *desc, void **out)
{
    if (!ctx || !out)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_alloc: %s is NULL", ctx ? "out" : "ctx");
    krt_alloc_desc d = desc ? *desc : (krt_alloc_desc){ 0 };
    if (d.alignment == 0)
        d.alignment = 64;
    if (size == 0)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_alloc: size is 0");
    if (d.alignment & (d.alignment - 1))
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_alloc: alignment %zu is not a power of two", d.alignment);
    if (krt__is_lost(ctx))
        return krt__lost_again(ctx);

    void *p = NULL;
    ze_result_t zr;
    ze_device_mem_alloc_desc_t dd = { .stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC };
    ze_host_mem_alloc_desc_t hd = { .stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC };
    /* A checked context on the host device lets a kernel through to any of its allocations (docs/api.md, "Checked
     * launches"): each gets 64 bytes more than asked, outside its range in the bounds table, so that a kernel that
     * runs a little past its end never lands in the next one. (Only there: AddressSanitizer, which the host device
     * also runs under, would take the extra bytes for the allocation's own.) */
    size_t get = size;
    if (ctx->host && ctx->checks && size <= SIZE_MAX - KRT__HOST_CHECK_GAP)
        get = size + KRT__HOST_CHECK_GAP;
    switch (d.kind) {
    case KRT_MEMORY_DEVICE:
        zr = KRT__ZE(ctx->ddi, Mem, AllocDevice)(ctx->ze, &dd, get, d.alignment, ctx->device, &p);
        break;
    case KRT_MEMORY_HOST:
        zr = KRT__ZE(ctx->ddi, Mem, AllocHost)(ctx->ze, &hd, get, d.alignment, &p);
        break;
    case KRT_MEMORY_SHARED:
        zr = KRT__ZE(ctx->ddi, Mem, AllocShared)(ctx->ze, &dd, &hd, get, d.alignment, ctx->device, &p);
        break;
    default:
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_alloc: unknown memory kind %d", (int)d.kind);
    }
    /* A request over the device's largest single allocation is reported as what it is for the caller: memory
     * the device cannot provide, with the limit, rather than as a malformed argument. */
    if (zr == ZE_RESULT_ERROR_UNSUPPORTED_SIZE && size > ctx->dev->props.maxMemAllocSize)
        return krt__fail(KRT_ERROR_OUT_OF_DEVICE_MEMORY,
                         "krt_alloc of %zu bytes: larger than the device's largest allocation (%llu bytes)", size,
                         (unsigned long long)ctx->dev->props.maxMemAllocSize);
    /* A lost device is the context's loss, whatever the allocation (fault.c). */
    if (zr == ZE_RESULT_ERROR_DEVICE_LOST)
        return krt__lost(ctx, NULL, d.kind == KRT_MEMORY_HOST     ? "zeMemAllocHost"
                                    : d.kind == KRT_MEMORY_SHARED ? "zeMemAllocShared"
                                                                  : "zeMemAllocDevice");
    if (zr != ZE_RESULT_SUCCESS)
        return krt__fail(krt__from_ze(zr), "krt_alloc of %zu bytes (kind %d, alignment %zu) failed: %s", size,
                         (int)d.kind, d.alignment, krt__ze_name(zr));
    pthread_mutex_lock(&ctx->lock);
    int ok = set_insert(&ctx->allocs, p);
    if (ok && !range_insert(ctx, p, size, d.kind)) {
        set_remove(&ctx->allocs, p);
        ok = 0;
    }
    /* A checked context's kernels may reach the new allocation from their next launch on. */
    if (ok && krt__checks_update_locked(ctx, queues_idle_locked(ctx)) != KRT_SUCCESS) {
        range_remove(ctx, p);
        set_remove(&ctx->allocs, p);
        ok = 0;
    }
    pthread_mutex_unlock(&ctx->lock);
    if (!ok) {
        KRT__ZE(ctx->ddi, Mem, Free)(ctx->ze, p);
        return krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "krt_alloc: out of host memory for the allocation table");
    }
    *out = p;
    return KRT_SUCCESS;
}

krt_result krt_free(krt_context *ctx, void *ptr)
{
    if (!ptr)
        return KRT_SUCCESS;
    if (!ctx)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_free: ctx is NULL");
    pthread_mutex_lock(&ctx->lock);
    int found = set_remove(&ctx->allocs, ptr);
    if (found) {
        range_remove(ctx, ptr);
        /* A checked context's kernels no longer reach it (without memory for a new table, the old one stays: the
         * allocation is then still checked as reachable). */
        krt__checks_update_locked(ctx, queues_idle_locked(ctx));
        /* Launches compare this generation with the one they checked their pointer arguments at. */
        atomic_fetch_add(&ctx->free_generation, 1);
    }
    pthread_mutex_unlock(&ctx->lock);
    if (!found)
        return krt__fail(KRT_ERROR_INVALID_POINTER, "krt_free: %p is not an allocation of this context", ptr);
    /* The other contexts of a shared Level Zero context may have checked the pointer for their own launches. */
    if (atomic_load_explicit(&ctx->share->shared, memory_order_acquire)) {
        pthread_mutex_lock(&ctx->share->lock);
        for (krt_context *m = ctx->share->members; m; m = m->share_next)
            if (m != ctx)
                atomic_fetch_add(&m->free_generation, 1);
        pthread_mutex_unlock(&ctx->share->lock);
    }
    return krt__ze(KRT__ZE(ctx->ddi, Mem, Free)(ctx->ze, ptr), "zeMemFree");
}

static krt_result append_copy(krt_queue *q, void *dst, const void *src, size_t size)
{
    pthread_mutex_lock(&q->lock);
    ze_result_t zr = KRT__ZE(q->ctx->ddi, CommandList, AppendMemoryCopy)(krt__queue_target(q), dst, src, size, NULL, 0, NULL);
    q->appended++;
    if (q->rec && zr == ZE_RESULT_SUCCESS)
        krt__queue_count(q, KRT__REC_COPY);
    pthread_mutex_unlock(&q->lock);
    return krt__ze_ctx(q->ctx, q, zr, "zeCommandListAppendMemoryCopy");
}

/* The internal queue of o that runs the part of a staged copy on o's device. Caller holds o->share->staging_lock. */
static krt_result peer_queue(krt_context *o, krt_queue **out)
{
    krt_result r = KRT_SUCCESS;
    if (!o->peer_queue)
        r = krt__queue_create(o, NULL, 0, &o->peer_queue);
    *out = o->peer_queue;
    return r;
}

/* A copy between ctx's device and the device memory of another context's device (far_dst: dst's owner, far_src:
 * src's; NULL where ctx's device reaches the memory) that ctx's device cannot reach: each piece goes from the
 * source into ctx's staging memory on a queue of a device that reaches the source, then from there to the
 * destination on a queue of a device that reaches the destination (the internal queue of ctx where ctx's device
 * does, else of the other context). Staging memory is host memory of the shared Level Zero context, which every
 * device reaches. The copy is synchronous: q's earlier commands first, and every piece waited for, so that the
 * one staging buffer serves them all; share->staging_lock keeps two staged copies of the group apart. */
static krt_result staged_copy(krt_context *ctx, krt_queue *q, void *dst, krt_context *far_dst, const void *src,
                              krt_context *far_src, size_t size)
{
    krt_context *far = far_dst ? far_dst : far_src;
    if (ctx->flags & KRT_CONTEXT_FLAG_NO_STAGING)
        return krt__fail(KRT_ERROR_UNSUPPORTED_FEATURE,
                         "krt_memcpy: %s %p is device memory of %s (device %u of driver %u), which this context's "
                         "device, %s (device %u), cannot reach (zeDeviceCanAccessPeer), and the context has no "
                         "staging memory (KRT_CONTEXT_FLAG_NO_STAGING): nothing was copied",
                         far_dst ? "dst" : "src", far_dst ? dst : src, far->info.name, far->info.device_index,
                         far->info.driver_index, ctx->info.name, ctx->info.device_index);
    if (q->rec)
        return krt__fail(KRT_ERROR_INVALID_STATE,
                         "krt_memcpy: a copy with device memory of %s, which this context's device cannot reach, is "
                         "staged through host memory and waited for, so it cannot be recorded",
                         far->info.name);
    krt_result r = krt__queue_sync(q);
    if (r != KRT_SUCCESS)
        return r;
    krt__share *sh = ctx->share;
    pthread_mutex_lock(&sh->staging_lock);
    if (!ctx->staging) {
        ze_host_mem_alloc_desc_t hd = { .stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC };
        ze_result_t zr = KRT__ZE(ctx->ddi, Mem, AllocHost)(ctx->ze, &hd, ctx->staging_bytes, 64, &ctx->staging);
        if (zr != ZE_RESULT_SUCCESS) {
            ctx->staging = NULL;
            pthread_mutex_unlock(&sh->staging_lock);
            return krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY,
                             "krt_memcpy: no %zu bytes of staging memory for a copy with device memory of %s (%s): "
                             "nothing was copied",
                             ctx->staging_bytes, far->info.name, krt__ze_name(zr));
        }
    }
    /* The pieces go on internal queues only (ctx's where ctx's device reaches that side), never on q: waiting for q
     * while holding the lock would wait for whatever another thread appended to q meanwhile, a host task that makes
     * a staged copy of its own among them, which would wait for the lock. */
    krt_queue *qs = NULL, *qd = NULL;
    r = peer_queue(far_src ? far_src : ctx, &qs);
    if (r == KRT_SUCCESS)
        r = peer_queue(far_dst ? far_dst : ctx, &qd);
    for (size_t off = 0; r == KRT_SUCCESS && off < size; off += ctx->staging_bytes) {
        size_t n = size - off < ctx->staging_bytes ? size - off : ctx->staging_bytes;
        r = append_copy(qs, ctx->staging, (const unsigned char *)src + off, n);
        if (r == KRT_SUCCESS)
            r = krt__queue_sync(qs);
        if (r == KRT_SUCCESS)
            r = append_copy(qd, (unsigned char *)dst + off, ctx->staging, n);
        if (r == KRT_SUCCESS)
            r = krt__queue_sync(qd);
    }
    pthread_mutex_unlock(&sh->staging_lock);
    return r;
}

krt_result krt_memcpy(krt_context *ctx, krt_queue *queue, void *dst, const void *src, size_t size)
{
    if (!ctx)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_memcpy: ctx is NULL");
    if (!dst || !src)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_memcpy: %s is NULL", dst ? "src" : "dst");
    if (queue && queue->ctx != ctx)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_memcpy: the queue belongs to another context");
    if (krt__is_lost(ctx))
        return krt__lost_again(ctx);
    if (size == 0)
        return KRT_SUCCESS;
    /* No object is larger than PTRDIFF_MAX, so such a size is wrong whatever the pointers are (and it keeps
     * the range arithmetic below from wrapping). */
    if (size > (size_t)PTRDIFF_MAX || size > UINTPTR_MAX - (uintptr_t)dst || size > UINTPTR_MAX - (uintptr_t)src)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_memcpy: size %zu is larger than any object can be", size);
    /* krt knows the size of its allocations (and those of the contexts sharing its Level Zero context): a copy
     * past the end of one is refused here rather than left to the driver (ze_pocl's host copy would overrun the
     * heap). */
    krt_context *od, *os;
    krt_memory_kind kd, ks;
    krt_result r = locate(ctx, "krt_memcpy", "dst", dst, size, &od, &kd);
    if (r == KRT_SUCCESS)
        r = locate(ctx, "krt_memcpy", "src", src, size, &os, &ks);
    if (r != KRT_SUCCESS)
        return r;
    /* memcpy's contract: the regions must not overlap. Level Zero leaves overlapping copies undefined (its
     * validation layer refuses them), so krt refuses them with the overlap named. */
    uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
    if (d < s + size && s < d + size) {
        uintptr_t lo = d > s ? d : s, hi = d + size < s + size ? d + size : s + size;
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT,
                         "krt_memcpy: dst %p and src %p overlap by %zu bytes (%zu bytes each); copy through a "
                         "separate buffer",
                         dst, src, (size_t)(hi - lo), size);
    }
    krt_queue *q = queue ? queue : ctx->default_queue;
    /* Device memory of another context's device that this one cannot reach: through host memory. */
    int far_d = od && od != ctx && kd == KRT_MEMORY_DEVICE && !krt__device_reaches(ctx, od->device);
    int far_s = os && os != ctx && ks == KRT_MEMORY_DEVICE && !krt__device_reaches(ctx, os->device);
    if (far_d || far_s)
        return staged_copy(ctx, q, dst, far_d ? od : NULL, src, far_s ? os : NULL, size);
    return append_copy(q, dst, src, size);
}

krt_result krt_memcpy_sync(krt_context *ctx, krt_queue *queue, void *dst, const void *src, size_t size)
{
    krt_result r = krt_memcpy(ctx, queue, dst, src, size);
    if (r != KRT_SUCCESS)
        return r;
    return krt__queue_sync(queue ? queue : ctx->default_queue);
}
