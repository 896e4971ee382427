/*
 * checks.c: checked launches (krt_context_desc.checks = KRT_CHECK_BOUNDS). The context keeps a bounds table in shared
 * memory (ZE_krt_bounds_check, driver/include/ze_krt_bounds.h): word 0 points at an array of the context's
 * allocations as [base, end) ranges, which the driver's instrumented kernels search before every global memory
 * access (spirv/bounds.cpp). Every krt_alloc and krt_free writes a new array and points the table at it; the old one
 * is retired and freed once no queue of the context can still be running a kernel that reads it. A refused access
 * is recorded in the table by the device, which then sets a word of host memory (ZE_KRT_BOUNDS_NOTIFY); the next
 * wait that covers it sees that word, reads the record, names the kernel from a ring of the context's recent checked
 * launches, and returns KRT_ERROR_OUT_OF_BOUNDS. A wait with no refusal reads only that word.
 */
#include "krt_internal.h"
#include "../../common/fnv.h"
#include "../../driver/include/ze_krt_bounds.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { RING = 32, MAX_PTRS = 8, NAME = 64, ARG_NAME = 40 };

/* One checked launch: enough to name a fault's kernel and its nearest pointer argument after the kernel is gone. */
typedef struct check_note {
    uint32_t hash; /* krt__checks_name_hash of the kernel's name */
    char kernel[NAME];
    uint32_t num_ptrs;
    struct {
        uint32_t index;
        uintptr_t value;
        char name[ARG_NAME];
    } ptrs[MAX_PTRS];
} check_note;

typedef struct retired {
    void *mem;
    uint64_t seq; /* the update that retired it */
    struct retired *next;
} retired;

struct krt__checks {
    volatile uint64_t *table; /* ZE_KRT_BOUNDS_TABLE_WORDS words of shared memory */
    volatile uint32_t *notify; /* host memory the device sets at a refusal (ZE_KRT_BOUNDS_NOTIFY) */
    uint64_t *ranges;         /* the array the table points at */
    retired *retired;         /* arrays a running kernel may still read */
    pthread_mutex_t lock;     /* the ring, and the fault record's read and reset */
    check_note ring[RING];
    uint32_t next;            /* launches noted so far */
    uint64_t seq;             /* updates so far */
};

uint32_t krt__checks_name_hash(const char *name)
{
    return (uint32_t)krt_fnv1a64(KRT_FNV1A64_INIT, name, strlen(name));
}

static void *shared_alloc(krt_context *ctx, size_t size)
{
    ze_device_mem_alloc_desc_t dd = { .stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC };
    ze_host_mem_alloc_desc_t hd = { .stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC };
    void *p = NULL;
    if (KRT__ZE(ctx->ddi, Mem, AllocShared)(ctx->ze, &dd, &hd, size, 64, ctx->device, &p) != ZE_RESULT_SUCCESS)
        return NULL;
    return p;
}

/* The word a refusal sets (ZE_KRT_BOUNDS_NOTIFY): host memory, which the device writes in place and a wait reads
 * without moving anything. The table itself is shared memory, which ze_cuda's managed memory keeps on the GPU while
 * kernels read it; a wait that read the table's flag would move it to the host and the next kernel would fault it
 * back, some 50 to 400 us a wait on an H100 (docs/performance.md, "Checked launches"). */
static void *host_alloc(krt_context *ctx, size_t size)
{
    ze_host_mem_alloc_desc_t hd = { .stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC };
    void *p = NULL;
    if (KRT__ZE(ctx->ddi, Mem, AllocHost)(ctx->ze, &hd, size, 64, &p) != ZE_RESULT_SUCCESS)
        return NULL;
    return p;
}

static void usm_free(krt_context *ctx, void *p)
{
    if (p)
        KRT__ZE(ctx->ddi, Mem, Free)(ctx->ze, p);
}

krt_result krt__checks_parse_env(uint32_t *checks)
{
    const char *e = getenv("KRT_CHECK");
    if (!e || !e[0] || strcmp(e, "none") == 0 || strcmp(e, "0") == 0) {
        *checks = KRT_CHECK_NONE;
        return KRT_SUCCESS;
    }
    if (strcmp(e, "bounds") == 0) {
        *checks = KRT_CHECK_BOUNDS;
        return KRT_SUCCESS;
    }
    return krt__fail(KRT_ERROR_INVALID_ARGUMENT,
                     "krt_context_create: KRT_CHECK is \"%s\"; it takes \"bounds\" (checked launches) or \"none\"", e);
}

krt_result krt__checks_init(krt_context *ctx)
{
    if (!ctx->drv->has_bounds_check_ext)
        return krt__fail(KRT_ERROR_UNSUPPORTED_FEATURE,
                         "krt_context_create: checked launches (KRT_CHECK_BOUNDS, KRT_CHECK=bounds) need a driver with "
                         "ZE_krt_bounds_check (ze_pocl, ze_cuda), and %s's driver (%s) has none; choose a device of "
                         "krt's drivers (KRT_DEVICE=cpu), or leave checks off",
                         ctx->info.name, ctx->info.driver_name);
    krt__checks *c = calloc(1, sizeof *c);
    if (!c)
        return krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for a checked context");
    c->table = shared_alloc(ctx, ZE_KRT_BOUNDS_TABLE_WORDS * sizeof(uint64_t));
    c->ranges = shared_alloc(ctx, 4 * sizeof(uint64_t));
    c->notify = host_alloc(ctx, 64);
    if (!c->table || !c->ranges || !c->notify) {
        usm_free(ctx, (void *)c->table);
        usm_free(ctx, c->ranges);
        usm_free(ctx, (void *)c->notify);
        free(c);
        return krt__fail(KRT_ERROR_OUT_OF_DEVICE_MEMORY, "krt_context_create: no shared memory for the bounds table "
                                                         "of a checked context");
    }
    memset((void *)c->table, 0, ZE_KRT_BOUNDS_TABLE_WORDS * sizeof(uint64_t));
    memset(c->ranges, 0, 4 * sizeof(uint64_t));
    c->table[ZE_KRT_BOUNDS_RANGES] = (uint64_t)(uintptr_t)c->ranges;
    *c->notify = 0;
    c->table[ZE_KRT_BOUNDS_NOTIFY] = (uint64_t)(uintptr_t)c->notify;
    pthread_mutex_init(&c->lock, NULL);
    ctx->checks = c;
    return KRT_SUCCESS;
}

/* Frees the arrays retired by updates before the one numbered before. */
static void free_retired(krt_context *ctx, uint64_t before)
{
    krt__checks *c = ctx->checks;
    for (retired **p = &c->retired; *p;) {
        retired *r = *p;
        if (r->seq >= before) {
            p = &r->next;
            continue;
        }
        *p = r->next;
        usm_free(ctx, r->mem);
        free(r);
    }
}

void krt__checks_fini(krt_context *ctx)
{
    krt__checks *c = ctx->checks;
    if (!c)
        return;
    free_retired(ctx, UINT64_MAX);
    usm_free(ctx, c->ranges);
    usm_free(ctx, (void *)c->table);
    usm_free(ctx, (void *)c->notify);
    pthread_mutex_destroy(&c->lock);
    free(c);
    ctx->checks = NULL;
}

uint64_t krt__checks_table(const krt_context *ctx)
{
    return ctx->checks ? (uint64_t)(uintptr_t)ctx->checks->table : 0;
}

/* The allocation of the table's current array (the context's allocations, sorted by base) that holds addr: 1 with
 * its base and size, else 0. */
static int ranges_find(const uint64_t *a, uintptr_t addr, uintptr_t *base, size_t *size)
{
    uint64_t lo = 0, hi = a[0];
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (a[2 + 2 * mid] <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || addr >= a[2 * lo + 1])
        return 0;
    *base = (uintptr_t)a[2 * lo];
    *size = (size_t)(a[2 * lo + 1] - a[2 * lo]);
    return 1;
}

krt_result krt__checks_update_locked(krt_context *ctx, int idle)
{
    krt__checks *c = ctx->checks;
    if (!c)
        return KRT_SUCCESS;
    /* Room for one entry more than there are: the CPU's lookup reads entry 0 even of an empty array. */
    uint64_t *a = shared_alloc(ctx, (4 + 2 * ctx->num_ranges) * sizeof(uint64_t));
    retired *r = malloc(sizeof *r);
    if (!a || !r) {
        usm_free(ctx, a);
        free(r);
        return krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "out of memory for the bounds table of a checked context");
    }
    a[0] = ctx->num_ranges;
    a[1] = 0;
    a[2 + 2 * ctx->num_ranges] = a[3 + 2 * ctx->num_ranges] = 0;
    for (size_t i = 0; i < ctx->num_ranges; i++) {
        a[2 + 2 * i] = ctx->ranges[i].base;
        a[3 + 2 * i] = ctx->ranges[i].base + ctx->ranges[i].size;
    }
    /* A kernel running now may be reading the old array: it goes on the retired list, freed below once every
     * queue is idle (a wait covered everything appended to it), else at a later update, a context-wide wait or
     * the context's end. */
    atomic_thread_fence(memory_order_release);
    c->table[ZE_KRT_BOUNDS_RANGES] = (uint64_t)(uintptr_t)a;
    r->mem = c->ranges;
    r->seq = c->seq++;
    r->next = c->retired;
    c->retired = r;
    c->ranges = a;
    if (idle)
        free_retired(ctx, UINT64_MAX);
    return KRT_SUCCESS;
}

uint64_t krt__checks_mark_locked(krt_context *ctx)
{
    return ctx->checks ? ctx->checks->seq : 0;
}

void krt__checks_idle(krt_context *ctx, uint64_t mark)
{
    if (!ctx->checks)
        return;
    pthread_mutex_lock(&ctx->lock);
    free_retired(ctx, mark);
    pthread_mutex_unlock(&ctx->lock);
}

void krt__checks_note(krt_kernel *k, const krt_launch_desc *d)
{
    krt__checks *c = k->ctx->checks;
    pthread_mutex_lock(&c->lock);
    check_note *n = &c->ring[c->next++ % RING];
    n->hash = krt__checks_name_hash(k->refl->name);
    snprintf(n->kernel, sizeof n->kernel, "%s", k->refl->name);
    n->num_ptrs = 0;
    for (uint32_t i = 0; i < d->num_args && n->num_ptrs < MAX_PTRS; i++) {
        krt_arg_kind kind = k->args[i].kind;
        if ((kind != KRT_ARG_GLOBAL_POINTER && kind != KRT_ARG_CONSTANT_POINTER) || !d->args[i].value ||
            d->args[i].size != sizeof(void *))
            continue;
        uintptr_t v;
        memcpy(&v, d->args[i].value, sizeof v);
        n->ptrs[n->num_ptrs].index = i;
        n->ptrs[n->num_ptrs].value = v;
        snprintf(n->ptrs[n->num_ptrs].name, ARG_NAME, "%s", k->args[i].name ? k->args[i].name : "");
        n->num_ptrs++;
    }
    pthread_mutex_unlock(&c->lock);
}

static const char *kind_name(uint32_t kind)
{
    return kind == ZE_KRT_BOUNDS_LOAD ? "load" : kind == ZE_KRT_BOUNDS_STORE ? "store" : "atomic";
}

/* What the access is nearest to among the noted launch's pointer arguments, as a clause of the message. */
static void nearest(krt_context *ctx, const check_note *n, uint64_t addr, uint64_t size, char *buf, size_t cap)
{
    int best = -1;
    uint64_t best_dist = UINT64_MAX, best_base = 0, best_size = 0;
    for (uint32_t i = 0; n && i < n->num_ptrs; i++) {
        uintptr_t base = 0;
        size_t bytes = 0;
        pthread_mutex_lock(&ctx->lock); /* the array krt_alloc and krt_free replace */
        int found = ranges_find(ctx->checks->ranges, n->ptrs[i].value, &base, &bytes);
        pthread_mutex_unlock(&ctx->lock);
        if (!found)
            continue;
        uint64_t end = base + bytes;
        uint64_t dist = addr >= end ? addr - end : addr < base ? base - addr : 0;
        if (dist < best_dist) {
            best_dist = dist;
            best = (int)i;
            best_base = base;
            best_size = bytes;
        }
    }
    if (best < 0) {
        snprintf(buf, cap, "no pointer argument of the launch is an allocation of the context");
        return;
    }
    char label[80];
    if (n->ptrs[best].name[0])
        snprintf(label, sizeof label, "argument %u (%s)", n->ptrs[best].index, n->ptrs[best].name);
    else
        snprintf(label, sizeof label, "argument %u", n->ptrs[best].index);
    uint64_t end = best_base + best_size;
    if (addr >= end)
        snprintf(buf, cap,
                 "nearest is %s, a %" PRIu64 "-byte allocation at 0x%" PRIx64 ": the access starts %" PRIu64
                 " bytes past its end (at offset %" PRIu64 ")",
                 label, best_size, best_base, addr - end, addr - best_base);
    else if (addr < best_base)
        snprintf(buf, cap,
                 "nearest is %s, a %" PRIu64 "-byte allocation at 0x%" PRIx64 ": the access starts %" PRIu64
                 " bytes before its start",
                 label, best_size, best_base, best_base - addr);
    else
        snprintf(buf, cap,
                 "it starts inside %s, a %" PRIu64 "-byte allocation at 0x%" PRIx64 " (at offset %" PRIu64
                 "), and its %" PRIu64 " bytes run %" PRIu64 " bytes past the end",
                 label, best_size, best_base, addr - best_base, size, addr + size - end);
}

krt_result krt__checks_report(krt_context *ctx)
{
    krt__checks *c = ctx->checks;
    if (!c)
        return KRT_SUCCESS;
    /* Nothing of the table is read until the device says a refusal was recorded. */
    if (*c->notify == 0)
        return KRT_SUCCESS;
    volatile uint64_t *t = c->table;
    pthread_mutex_lock(&c->lock);
    *c->notify = 0;
    if ((uint32_t)t[ZE_KRT_BOUNDS_FLAG] == 0) {
        pthread_mutex_unlock(&c->lock);
        return KRT_SUCCESS;
    }
    uint64_t addr = t[ZE_KRT_BOUNDS_ADDRESS], size = t[ZE_KRT_BOUNDS_SIZE], kind = t[ZE_KRT_BOUNDS_KIND];
    uint64_t gid[3] = { t[ZE_KRT_BOUNDS_GLOBAL_ID], t[ZE_KRT_BOUNDS_GLOBAL_ID + 1], t[ZE_KRT_BOUNDS_GLOBAL_ID + 2] };
    uint32_t refused = (uint32_t)t[ZE_KRT_BOUNDS_REFUSED];
    t[ZE_KRT_BOUNDS_REFUSED] = 0;
    t[ZE_KRT_BOUNDS_FLAG] = 0;
    uint32_t hash = (uint32_t)(kind >> 32);
    /* The most recent checked launch of a kernel of that name. */
    const check_note *n = NULL;
    uint32_t seen = c->next < RING ? c->next : RING;
    for (uint32_t i = 1; i <= seen && !n; i++) {
        const check_note *e = &c->ring[(c->next - i) % RING];
        if (e->hash == hash)
            n = e;
    }
    check_note copy;
    if (n) {
        copy = *n;
        n = &copy;
    }
    pthread_mutex_unlock(&c->lock);
    char kernel[NAME + 64], near[320], more[96] = "";
    if (n)
        snprintf(kernel, sizeof kernel, "kernel %s", n->kernel);
    else
        snprintf(kernel, sizeof kernel, "a kernel whose name hashes to 0x%08x (launched before the last %d checked "
                                        "launches krt remembers)", hash, RING);
    nearest(ctx, n, addr, size, near, sizeof near);
    if (refused > 1)
        snprintf(more, sizeof more, "; %u more access%s refused too", refused - 1,
                 refused - 1 == 1 ? " was" : "es were");
    /* The host device checks against every allocation of the context and ends a refused access's work-group
     * (its work-items are one native loop); the SPIR-V drivers check against the argument's own allocation and go
     * on with a refused load giving 0. */
    return krt__fail(KRT_ERROR_OUT_OF_BOUNDS,
                     "%s, work-item (%" PRIu64 ", %" PRIu64 ", %" PRIu64 "): a %" PRIu64 "-byte %s at 0x%" PRIx64
                     " is out of bounds (%s); %s. The access was not made (%s)%s; look for an index past the data's "
                     "end or a launch range larger than the data",
                     kernel, gid[0], gid[1], gid[2], size, kind_name((uint32_t)kind), addr,
                     ctx->host ? "outside every allocation of the context"
                               : "outside the allocation of the argument it goes through",
                     near,
                     ctx->host ? "on the host device its work-group ended there" : "a refused load gives 0", more);
}
