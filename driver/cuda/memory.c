/* CUDA backend: allocations, device (cuMemAlloc), host (cuMemAllocHost) and shared (cuMemAllocManaged), large
 * alignments through reserved address space, virtual memory (zeVirtualMem*), and memory the program's own CUDA
 * code allocated (a PyTorch tensor, a CuPy array), recognised by its attributes. */
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "cuda_be.h"

/* Alignments up to this many bytes are had by padding (CUDA aligns every allocation to 256 bytes: ask for more
 * and align inside); larger ones reserve aligned address space instead, so that no physical memory is spent on
 * the padding (an alignment of 128 GiB on a 141 GB card could not be padded). */
#define ZC_PAD_LIMIT ((size_t)2 << 20)

enum { ZC_PLAIN, ZC_VMM, ZC_REGISTERED };

typedef struct {
    CUdeviceptr base;  /* ZC_PLAIN: what cuMemAlloc* returned */
    size_t bytes;      /* ZC_PLAIN device memory: how many bytes cuMemAlloc was asked for (the cache's size) */
    ze_memory_type_t type;
    struct zp_bdev *dev;
    int kind;
    /* ZC_VMM: the reservation (res, res_size), the mapping at map of map_size bytes and its physical memory.
     * ZC_REGISTERED: host pages at map of map_size bytes, mmap'd and registered with CUDA. */
    CUdeviceptr res;
    size_t res_size;
    void *map;
    size_t map_size;
    CUmemGenericAllocationHandle handle;
} zc_alloc;

static size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }

/* The cache of device memory. cuMemFree waits for the whole device to finish what it was given, so a program that
 * frees a result and allocates the next one each call (Unified Runtime sends allocations past 4 MB to the driver:
 * dpnp.tensor's add of 2^24 floats) runs its kernels one at a time with a wait between, at a quarter of the
 * bandwidth. So a freed block of device memory of at least ZC_CACHE_MIN bytes is kept, with an event recorded at
 * the free on every live queue of the device, and an allocation of the same size takes it once those events are
 * done: the work given to the device before the free no longer touches it, which is what cuMemFree's wait made
 * sure of (or waits for the oldest, ZC_CACHE_DEPTH, cache_take). Sizes are rounded to 2 MiB, CUDA's own
 * granularity for such blocks, so no memory is spent. The cache holds at most cache_limit bytes (an eighth of the
 * device's memory, at most 4 GiB; ZE_CUDA_MEMORY_CACHE=MiB sets it, 0 turns the cache off), the oldest blocks freed
 * past it; an allocation CUDA refuses frees every cached block
 * and tries again. A reset of the device (zc_device_recover, a new epoch) drops the cache: its blocks died with the
 * context.
 * Memory freed while the program's own CUDA streams still use it is not waited for: Level Zero asks the caller
 * not to free memory in use. */
#define ZC_CACHE_MIN ((size_t)1 << 20)
#define ZC_CACHE_ROUND ((size_t)2 << 20)
#define ZC_CACHE_DEPTH 4u
#define ZC_CACHE_WAIT_NS ((int64_t)100 * 1000000)

struct zc_cached {
    struct zc_cached *next;
    struct zp_bdev *dev;
    CUdeviceptr base;
    size_t bytes;
    unsigned epoch; /* the device's when the events were taken from its pool */
    uint32_t num_events;
    CUevent events[];
};

/* Caller holds cache_lock. The limit, set once; and the blocks of an older epoch dropped without freeing: a reset of
 * the device (zc_device_recover) destroyed them with the context, or they are the lost context's. */
static void cache_check_locked(struct zp_bdev *d) {
    unsigned epoch = atomic_load_explicit(&d->epoch, memory_order_acquire);
    if (d->cache_epoch != epoch) {
        for (struct zc_cached *c = d->cache, *next; c; c = next) {
            next = c->next;
            free(c);
        }
        d->cache = NULL;
        d->cached_bytes = 0;
        d->cache_epoch = epoch;
    }
    if (d->cache_ready) return;
    d->cache_ready = true;
    size_t total = 0;
    zc_cu.cuDeviceTotalMem(&total, d->dev);
    size_t limit = total / 8 < ((size_t)4 << 30) ? total / 8 : ((size_t)4 << 30);
    const char *env = getenv("ZE_CUDA_MEMORY_CACHE");
    if (env && env[0]) {
        char *end;
        unsigned long long mib = strtoull(env, &end, 10);
        if (*end == 0) limit = mib > (SIZE_MAX >> 20) ? SIZE_MAX : (size_t)mib << 20;
    }
    d->cache_limit = limit;
}

static void cached_free(struct zc_cached *c, bool free_memory) {
    for (uint32_t i = 0; i < c->num_events; i++) zc_event_put(c->dev, c->events[i], false, c->epoch);
    if (free_memory) zc_cu.cuMemFree(c->base);
    free(c);
}

/* A chain of blocks taken out of the cache, freed with their memory (each cuMemFree waits for the device). */
static void cached_free_chain(struct zc_cached *c) {
    while (c) {
        struct zc_cached *next = c->next;
        cached_free(c, true);
        c = next;
    }
}

/* Every cached block freed; for an allocation CUDA refused. Returns whether there was one. */
static bool cache_flush(struct zp_bdev *d) {
    pthread_mutex_lock(&d->cache_lock);
    cache_check_locked(d);
    struct zc_cached *c = d->cache;
    d->cache = NULL;
    d->cached_bytes = 0;
    pthread_mutex_unlock(&d->cache_lock);
    bool any = c != NULL;
    cached_free_chain(c);
    return any;
}

static bool cached_done(const struct zc_cached *c) {
    for (uint32_t i = 0; i < c->num_events; i++)
        if (zc_cu.cuEventQuery(c->events[i]) != CUDA_SUCCESS) return false;
    return true;
}

/* Waits up to ZC_CACHE_WAIT_NS for a block's events; whether they are done. Polled rather than cuEventSynchronize, so
 * that work that never ends (a host task waiting for this very thread) costs a fresh allocation, not a deadlock. The
 * first ZC_CACHE_SPIN_NS poll with a yield between queries: the block waited for is the oldest of ZC_CACHE_DEPTH,
 * usually a kernel's time away, and a sleep (20 us asked, 100 us had on average on the project's two-core machine:
 * the kernel's timer slack and the wake-up) would overshoot it by more than the kernel takes. Past that the thread
 * sleeps between queries. */
#define ZC_CACHE_SPIN_NS ((int64_t)2 * 1000000)
static bool cached_wait(const struct zc_cached *c) {
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        if (cached_done(c)) return true;
        clock_gettime(CLOCK_MONOTONIC, &now);
        int64_t ns = (int64_t)(now.tv_sec - start.tv_sec) * 1000000000 + (now.tv_nsec - start.tv_nsec);
        if (ns > ZC_CACHE_WAIT_NS) return false;
        if (ns < ZC_CACHE_SPIN_NS) {
            sched_yield();
        } else {
            struct timespec nap = {0, 20000};
            nanosleep(&nap, NULL);
        }
    }
}

/* A block of exactly bytes whose events are all done, taken out of the cache; 0 when there is none. When none is done
 * but ZC_CACHE_DEPTH blocks of the size wait for the device, the oldest of them is waited for (up to ZC_CACHE_WAIT_NS)
 * instead of allocating: a loop that makes a new result each time (dpnp.tensor's add) then runs at most that many
 * results ahead of the device on the same blocks, where a fresh cuMemAlloc a call would grow the cache to its limit
 * and then free past it, each cuMemFree a wait for the whole device. */
static CUdeviceptr cache_take(struct zp_bdev *d, size_t bytes) {
    if (bytes < ZC_CACHE_MIN) return 0;
    pthread_mutex_lock(&d->cache_lock);
    cache_check_locked(d);
    struct zc_cached *found = NULL, **oldest = NULL;
    unsigned pending = 0;
    for (struct zc_cached **p = &d->cache; *p; p = &(*p)->next) {
        struct zc_cached *c = *p;
        if (c->bytes != bytes) continue;
        if (!cached_done(c)) {
            pending++;
            oldest = p; /* the list is newest first */
            continue;
        }
        *p = c->next;
        d->cached_bytes -= c->bytes;
        found = c;
        break;
    }
    bool wait = !found && pending >= ZC_CACHE_DEPTH;
    if (wait) {
        found = *oldest;
        *oldest = found->next;
        d->cached_bytes -= found->bytes;
    }
    pthread_mutex_unlock(&d->cache_lock);
    if (!found) return 0;
    if (wait && !cached_wait(found)) {
        /* Still in use after the wait: back into the cache (newest first), and the caller allocates. */
        pthread_mutex_lock(&d->cache_lock);
        if (d->cache_epoch == atomic_load_explicit(&d->epoch, memory_order_acquire)) {
            found->next = d->cache;
            d->cache = found;
            d->cached_bytes += found->bytes;
            found = NULL;
        }
        pthread_mutex_unlock(&d->cache_lock);
        if (found) free(found); /* a reset of the device took its memory meanwhile */
        return 0;
    }
    CUdeviceptr base = found->base;
    cached_free(found, false);
    return base;
}

/* Keeps a freed block for reuse; false when it is not kept (too small, no cache, a lost device, an event CUDA would
 * not record), and the caller frees it. */
static bool cache_put(struct zp_bdev *d, CUdeviceptr base, size_t bytes) {
    if (bytes < ZC_CACHE_MIN || zc_device_lost(d)) return false;
    pthread_mutex_lock(&d->cache_lock);
    cache_check_locked(d);
    if (bytes > d->cache_limit) {
        pthread_mutex_unlock(&d->cache_lock);
        return false;
    }
    uint32_t n = 0;
    for (struct zp_bqueue *q = d->live; q; q = q->next_live) n++;
    struct zc_cached *c = malloc(sizeof *c + n * sizeof(CUevent));
    bool ok = c != NULL;
    uint32_t made = 0;
    if (c) {
        c->dev = d;
        c->epoch = d->cache_epoch;
    }
    /* The events come from the device's pool, not a cuEventCreate and a cuEventDestroy per free. */
    for (struct zp_bqueue *q = d->live; ok && q; q = q->next_live) {
        ok = (c->events[made] = zc_event_get(d, false)) != NULL;
        if (!ok) break;
        made++;
        ok = zc_cu.cuEventRecord(c->events[made - 1], q->stream) == CUDA_SUCCESS;
    }
    if (!ok) {
        pthread_mutex_unlock(&d->cache_lock);
        if (c) {
            c->num_events = made;
            cached_free(c, false);
        }
        return false;
    }
    c->base = base;
    c->bytes = bytes;
    c->num_events = made;
    c->next = d->cache;
    d->cache = c;
    d->cached_bytes += bytes;
    /* Past the limit, the oldest blocks go (the list is newest first). */
    struct zc_cached *victims = NULL;
    while (d->cached_bytes > d->cache_limit) {
        struct zc_cached **p = &d->cache;
        while ((*p)->next) p = &(*p)->next;
        struct zc_cached *old = *p;
        *p = NULL;
        d->cached_bytes -= old->bytes;
        old->next = victims;
        victims = old;
    }
    pthread_mutex_unlock(&d->cache_lock);
    cached_free_chain(victims);
    return true;
}

static CUmemAllocationProp device_prop(struct zp_bdev *d) {
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = (int)d->dev;
    return prop;
}

/* The device's granularity of physical memory and mappings, 0 without virtual memory management. */
static size_t granularity(struct zp_bdev *d) {
    if (!zc_cu.cuMemAddressReserve || !zc_cu.cuMemCreate || !zc_cu.cuMemMap || !zc_cu.cuMemSetAccess ||
        !zc_cu.cuMemGetAllocationGranularity || !zc_cu.cuMemUnmap || !zc_cu.cuMemRelease || !zc_cu.cuMemAddressFree)
        return 0;
    int vmm = 0;
    if (zc_cu.cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, d->dev) !=
            CUDA_SUCCESS || !vmm)
        return 0;
    CUmemAllocationProp prop = device_prop(d);
    size_t g = 0;
    if (zc_cu.cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS) return 0;
    return g;
}

/* Address space of size bytes aligned to align: asked for aligned, else reserved with room to align inside (only
 * address space is spent on the room). */
static CUresult reserve_aligned(size_t size, size_t align, CUdeviceptr *res, size_t *res_size, CUdeviceptr *at) {
    CUresult r = zc_cu.cuMemAddressReserve(res, size, align, 0, 0);
    if (r == CUDA_SUCCESS && *res % align == 0) {
        *res_size = size;
        *at = *res;
        return r;
    }
    if (r == CUDA_SUCCESS) zc_cu.cuMemAddressFree(*res, size);
    if (size > SIZE_MAX - align) return CUDA_ERROR_OUT_OF_MEMORY;
    r = zc_cu.cuMemAddressReserve(res, size + align, 0, 0, 0);
    if (r != CUDA_SUCCESS) return r;
    *res_size = size + align;
    *at = (*res + align - 1) / align * align;
    return r;
}

/* Device memory at a large alignment: aligned address space, physical memory of the size rounded to the
 * granularity mapped there, read-write for the device. */
static bool alloc_vmm(struct zp_bdev *d, size_t size, size_t alignment, zc_alloc *a) {
    size_t g = granularity(d);
    if (!g) return false;
    size_t sz = round_up(size, g), align = alignment > g ? alignment : g;
    CUdeviceptr at = 0;
    if (reserve_aligned(sz, align, &a->res, &a->res_size, &at) != CUDA_SUCCESS) return false;
    CUmemAllocationProp prop = device_prop(d);
    if (zc_cu.cuMemCreate(&a->handle, sz, &prop, 0) != CUDA_SUCCESS) {
        zc_cu.cuMemAddressFree(a->res, a->res_size);
        return false;
    }
    CUmemAccessDesc acc = {.location = prop.location, .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    if (zc_cu.cuMemMap(at, sz, 0, a->handle, 0) != CUDA_SUCCESS) {
        zc_cu.cuMemRelease(a->handle);
        zc_cu.cuMemAddressFree(a->res, a->res_size);
        return false;
    }
    if (zc_cu.cuMemSetAccess(at, sz, &acc, 1) != CUDA_SUCCESS) {
        zc_cu.cuMemUnmap(at, sz);
        zc_cu.cuMemRelease(a->handle);
        zc_cu.cuMemAddressFree(a->res, a->res_size);
        return false;
    }
    a->kind = ZC_VMM;
    a->map = (void *)(uintptr_t)at;
    a->map_size = sz;
    return true;
}

/* Host (and shared) memory at a large alignment: host pages at an aligned address (address space reserved with
 * room to align, the rest given back), registered with CUDA, which the device then reaches at the same address.
 * Shared memory of such an alignment is host memory the device reads and writes in place. */
static bool alloc_registered(struct zp_bdev *d, size_t size, size_t alignment, zc_alloc *a) {
    int same_address = 0;
    if (!zc_cu.cuMemHostRegister || !zc_cu.cuMemHostUnregister ||
        zc_cu.cuDeviceGetAttribute(&same_address, CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM,
                                   d->dev) != CUDA_SUCCESS ||
        !same_address)
        return false;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t sz = round_up(size, page);
    if (alignment < page || sz > SIZE_MAX - alignment) return false;
    size_t span = sz + alignment;
    char *r = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED) return false;
    char *at = (char *)(((uintptr_t)r + alignment - 1) & ~(uintptr_t)(alignment - 1));
    if (at > r) munmap(r, (size_t)(at - r));
    if (r + span > at + sz) munmap(at + sz, (size_t)(r + span - (at + sz)));
    if (mprotect(at, sz, PROT_READ | PROT_WRITE) != 0 ||
        zc_cu.cuMemHostRegister(at, sz, CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP) != CUDA_SUCCESS) {
        munmap(at, sz);
        return false;
    }
    a->kind = ZC_REGISTERED;
    a->map = at;
    a->map_size = sz;
    return true;
}

void *zc_mem_alloc_typed(zp_bdev *dev, ze_memory_type_t type, size_t size, size_t alignment, void **raw) {
    if (zc_device_count() == 0) return NULL;
    struct zp_bdev *d = dev ? dev : zc_device(0);
    zc_bind(d);
    zc_alloc *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->type = type;
    a->dev = d;
    if (alignment > ZC_PAD_LIMIT &&
        (type == ZE_MEMORY_TYPE_DEVICE ? alloc_vmm(d, size, alignment, a) : alloc_registered(d, size, alignment, a))) {
        *raw = a;
        return a->map;
    }
    /* CUDA aligns every allocation to at least 256 bytes; more is had by asking for more and aligning. */
    size_t pad = alignment > 256 ? alignment : 0;
    if (size > SIZE_MAX - pad) {
        free(a);
        return NULL;
    }
    CUresult r;
    if (type == ZE_MEMORY_TYPE_HOST) {
        void *p = NULL;
        r = zc_cu.cuMemAllocHost(&p, size + pad);
        a->base = (CUdeviceptr)(uintptr_t)p;
    } else if (type == ZE_MEMORY_TYPE_SHARED) {
        /* Managed memory beyond what the card has free can hang the GPU: refuse it instead. */
        size_t free_b = 0, total_b = 0;
        r = zc_cu.cuMemGetInfo(&free_b, &total_b);
        if (r == CUDA_SUCCESS && size + pad > free_b) r = CUDA_ERROR_OUT_OF_MEMORY;
        if (r == CUDA_SUCCESS) r = zc_cu.cuMemAllocManaged(&a->base, size + pad, CU_MEM_ATTACH_GLOBAL);
    } else {
        size_t bytes = size + pad;
        if (bytes >= ZC_CACHE_MIN && bytes <= SIZE_MAX - ZC_CACHE_ROUND) bytes = round_up(bytes, ZC_CACHE_ROUND);
        a->bytes = bytes;
        a->base = cache_take(d, bytes);
        r = a->base ? CUDA_SUCCESS : zc_cu.cuMemAlloc(&a->base, bytes);
        if (r == CUDA_ERROR_OUT_OF_MEMORY && cache_flush(d)) r = zc_cu.cuMemAlloc(&a->base, bytes);
    }
    if (r != CUDA_SUCCESS) {
        /* Through zc_result so that a sticky error marks the device lost: the object model then answers
         * ZE_RESULT_ERROR_DEVICE_LOST rather than a lack of memory. */
        (void)zc_result(r);
        free(a);
        return NULL;
    }
    a->kind = ZC_PLAIN;
    *raw = a;
    uintptr_t p = (uintptr_t)a->base;
    if (pad) p = (p + alignment - 1) & ~(uintptr_t)(alignment - 1);
    return (void *)p;
}

void zc_mem_free_typed(ze_memory_type_t type, void *raw) {
    (void)type;
    zc_alloc *a = raw;
    if (!a) return;
    zc_bind(a->dev);
    if (a->kind == ZC_VMM) {
        zc_cu.cuMemUnmap((CUdeviceptr)(uintptr_t)a->map, a->map_size);
        zc_cu.cuMemRelease(a->handle);
        zc_cu.cuMemAddressFree(a->res, a->res_size);
    } else if (a->kind == ZC_REGISTERED) {
        zc_cu.cuMemHostUnregister(a->map);
        munmap(a->map, a->map_size);
    } else if (a->type == ZE_MEMORY_TYPE_HOST) {
        zc_cu.cuMemFreeHost((void *)(uintptr_t)a->base);
    } else if (a->type != ZE_MEMORY_TYPE_DEVICE || !cache_put(a->dev, a->base, a->bytes)) {
        zc_cu.cuMemFree(a->base);
    }
    free(a);
}

/* Virtual memory (zeVirtualMem*, zePhysicalMem*): CUDA's own virtual memory management. Reservations, physical
 * memory and mappings are CUDA's; a mapping is made readable and writable by the physical memory's device at
 * once, whatever the access attribute: the attributes are the object model's record (driver/virtual.c), and
 * ze_cuda does not take access away from the device (a device write to memory it may not write is a fault that
 * ends the CUDA context, not an error a command could report). */
typedef struct {
    CUmemGenericAllocationHandle handle;
    struct zp_bdev *dev;
    bool on_host;
} zc_phys;

size_t zc_vm_page_size(zp_bdev *dev, size_t size) {
    (void)size;
    if (zc_device_count() == 0) return 0;
    struct zp_bdev *d = dev ? dev : zc_device(0);
    zc_bind(d);
    return granularity(d);
}

ze_result_t zc_vm_reserve(const void *hint, size_t size, void **out) {
    if (zc_device_count() == 0 || !zc_cu.cuMemAddressReserve) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    zc_bind(zc_device(0));
    CUdeviceptr p = 0;
    CUresult r = zc_cu.cuMemAddressReserve(&p, size, 0, (CUdeviceptr)(uintptr_t)hint, 0);
    /* The start is a hint: where it cannot be had, anywhere. */
    if (r != CUDA_SUCCESS && hint) r = zc_cu.cuMemAddressReserve(&p, size, 0, 0, 0);
    if (r != CUDA_SUCCESS) return r == CUDA_ERROR_OUT_OF_MEMORY ? ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY : zc_result(r);
    *out = (void *)(uintptr_t)p;
    return ZE_RESULT_SUCCESS;
}

void zc_vm_release(void *ptr, size_t size) {
    zc_bind(zc_device(0));
    zc_cu.cuMemAddressFree((CUdeviceptr)(uintptr_t)ptr, size);
}

ze_result_t zc_phys_create(zp_bdev *dev, bool on_host, size_t size, void **out) {
    struct zp_bdev *d = dev ? dev : zc_device(0);
    if (!d || !granularity(d)) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    zc_bind(d);
    CUmemAllocationProp prop = device_prop(d);
    if (on_host) {
        /* Host memory through CUDA's virtual memory management needs a driver and device that offer it. */
        int host_vmm = 0;
        if (zc_cu.cuDeviceGetAttribute(&host_vmm, CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
                                       d->dev) != CUDA_SUCCESS ||
            !host_vmm)
            return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
        prop.location.type = CU_MEM_LOCATION_TYPE_HOST;
        prop.location.id = 0;
    }
    zc_phys *ph = calloc(1, sizeof *ph);
    if (!ph) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    CUresult r = zc_cu.cuMemCreate(&ph->handle, size, &prop, 0);
    if (r != CUDA_SUCCESS) {
        free(ph);
        return r == CUDA_ERROR_INVALID_VALUE ? ZE_RESULT_ERROR_UNSUPPORTED_SIZE
               : r == CUDA_ERROR_OUT_OF_MEMORY ? (on_host ? ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY
                                                          : ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)
                                                : zc_result(r);
    }
    ph->dev = d;
    ph->on_host = on_host;
    *out = ph;
    return ZE_RESULT_SUCCESS;
}

void zc_phys_destroy(void *phys) {
    zc_phys *ph = phys;
    if (!ph) return;
    zc_bind(ph->dev);
    zc_cu.cuMemRelease(ph->handle);
    free(ph);
}

ze_result_t zc_vm_map(void *ptr, size_t size, void *phys, size_t offset, ze_memory_access_attribute_t access) {
    (void)access;
    zc_phys *ph = phys;
    zc_bind(ph->dev);
    CUdeviceptr p = (CUdeviceptr)(uintptr_t)ptr;
    CUresult r = zc_cu.cuMemMap(p, size, offset, ph->handle, 0);
    if (r != CUDA_SUCCESS) return r == CUDA_ERROR_INVALID_VALUE ? ZE_RESULT_ERROR_INVALID_ARGUMENT : zc_result(r);
    CUmemAccessDesc acc[2];
    memset(acc, 0, sizeof acc);
    acc[0].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    acc[0].location.id = (int)ph->dev->dev;
    acc[0].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    /* Host physical memory is readable and writable by the host too. */
    acc[1].location.type = CU_MEM_LOCATION_TYPE_HOST;
    acc[1].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    r = zc_cu.cuMemSetAccess(p, size, acc, ph->on_host ? 2 : 1);
    if (r != CUDA_SUCCESS) {
        zc_cu.cuMemUnmap(p, size);
        return zc_result(r);
    }
    return ZE_RESULT_SUCCESS;
}

ze_result_t zc_vm_unmap(void *ptr, size_t size) {
    zc_bind(zc_device(0));
    CUresult r = zc_cu.cuMemUnmap((CUdeviceptr)(uintptr_t)ptr, size);
    return r == CUDA_SUCCESS ? ZE_RESULT_SUCCESS : zc_result(r);
}

ze_result_t zc_vm_protect(void *ptr, size_t size, ze_memory_access_attribute_t access) {
    (void)ptr;
    (void)size;
    (void)access;
    return ZE_RESULT_SUCCESS;
}

/* Writes from outside the GPU (a NIC's GPUDirect RDMA writes, the only writes into device memory that CUDA does not
 * order itself) are flushed where the device supports it. A device without that option offers no such writes to
 * flush: a host fence is all there is to do. */
ze_result_t zc_system_barrier(zp_bdev *dev) {
    struct zp_bdev *d = dev ? dev : zc_device(0);
    if (!d) return ZE_RESULT_SUCCESS;
    zc_bind(d);
    int options = 0;
    if (zc_cu.cuFlushGPUDirectRDMAWrites &&
        zc_cu.cuDeviceGetAttribute(&options, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS, d->dev) ==
            CUDA_SUCCESS &&
        (options & CU_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST)) {
        CUresult r = zc_cu.cuFlushGPUDirectRDMAWrites(CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX,
                                                      CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_ALL_DEVICES);
        if (r != CUDA_SUCCESS) return zc_result(r);
    }
    /* The same full fence as the object model's fallback (driver/context.c), through stdatomic.h: GCC refuses the
     * __atomic builtin under -fsanitize=thread (-Wtsan), and this fence orders the host against the device, which
     * ThreadSanitizer does not watch. */
    atomic_thread_fence(memory_order_seq_cst);
    return ZE_RESULT_SUCCESS;
}

/* The untyped form (the object model uses the typed one when a backend has it): host memory. */
void *zc_mem_alloc(size_t size, size_t alignment, void **raw) {
    return zc_mem_alloc_typed(NULL, ZE_MEMORY_TYPE_HOST, size, alignment, raw);
}
void zc_mem_free(void *raw) { zc_mem_free_typed(ZE_MEMORY_TYPE_HOST, raw); }

/* ze_cuda runs on each device's primary context, the one the CUDA runtime uses, so memory a program allocated
 * through the runtime (PyTorch, CuPy) is addressable by ze_cuda's kernels as it is. */
bool zc_mem_foreign(const void *ptr, zp_bdev **dev, void **base, size_t *size, ze_memory_type_t *type) {
    if (zc_device_count() == 0 || ptr == NULL) return false;
    unsigned int mtype = 0, managed = 0;
    int ordinal = -1;
    CUdeviceptr start = 0;
    size_t range = 0;
    CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                   CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE,
                                   CU_POINTER_ATTRIBUTE_IS_MANAGED};
    void *data[] = {&mtype, &ordinal, &start, &range, &managed};
    zc_bind(zc_device(0));
    /* Unlike cuPointerGetAttribute, this call succeeds for a pointer CUDA does not know, with a memory type of 0. */
    if (zc_cu.cuPointerGetAttributes(5, attrs, data, (CUdeviceptr)(uintptr_t)ptr) != CUDA_SUCCESS) return false;
    if ((mtype != CU_MEMORYTYPE_DEVICE && mtype != CU_MEMORYTYPE_HOST) || range == 0) return false;
    struct zp_bdev *d = NULL;
    for (uint32_t i = 0; i < zc_device_count(); i++)
        if ((int)zc_device(i)->dev == ordinal) d = zc_device(i);
    if (!d && mtype == CU_MEMORYTYPE_HOST) d = zc_device(0); /* pinned host memory belongs to no one device */
    if (!d) return false;
    *dev = d;
    *base = (void *)(uintptr_t)start;
    *size = range;
    *type = managed ? ZE_MEMORY_TYPE_SHARED : mtype == CU_MEMORYTYPE_HOST ? ZE_MEMORY_TYPE_HOST : ZE_MEMORY_TYPE_DEVICE;
    return true;
}
