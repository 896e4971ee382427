/* Memory entry points and the allocation table. Every allocation is shared virtual memory from the
 * backend (host, device and shared alike on a CPU); the table is what tells them apart, answers
 * zeMemGetAllocProperties (UNKNOWN for pointers it does not hold) and resolves interior pointers. A backend may
 * also recognise memory its own API allocated (ze_cuda: a CUDA program's cuMemAlloc), which lookups then find
 * but zeMemFree refuses. */
#include "zp.h"
#include "api.h"

/* Sorted by base address; lookups take the read lock, so concurrent launches checking pointers do
 * not serialise. */
static zp_alloc_info *table;
static size_t table_len, table_cap;
static uint64_t next_id = 1;
static pthread_rwlock_t table_lock = PTHREAD_RWLOCK_INITIALIZER;

/* Index of the last entry whose base is <= ptr, or SIZE_MAX. Caller holds the lock. */
static size_t find_floor(const void *ptr) {
    size_t lo = 0, hi = table_len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((uintptr_t)table[mid].base <= (uintptr_t)ptr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo == 0 ? SIZE_MAX : lo - 1;
}

static ze_result_t insert(zp_alloc_info *info) {
    pthread_rwlock_wrlock(&table_lock);
    if (table_len == table_cap) {
        size_t cap = table_cap ? table_cap * 2 : 64;
        zp_alloc_info *t = realloc(table, cap * sizeof *t);
        if (!t) {
            pthread_rwlock_unlock(&table_lock);
            return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
        table = t;
        table_cap = cap;
    }
    size_t at = find_floor(info->base);
    at = at == SIZE_MAX ? 0 : at + 1;
    memmove(&table[at + 1], &table[at], (table_len - at) * sizeof *table);
    info->id = next_id++;
    table[at] = *info;
    table_len++;
    pthread_rwlock_unlock(&table_lock);
    return ZE_RESULT_SUCCESS;
}

/* Memory of the backend's own API (zp_backend_ops.mem_foreign): an allocation of every context of the driver,
 * with no id and nothing to free. */
static bool foreign_lookup(ze_context_handle_t ctx, const void *ptr, zp_alloc_info *out) {
    zp_bdev *bdev = NULL;
    void *base = NULL;
    size_t size = 0;
    ze_memory_type_t type = ZE_MEMORY_TYPE_UNKNOWN;
    if (!zp_be->mem_foreign(ptr, &bdev, &base, &size, &type)) return false;
    ze_device_handle_t dev = NULL;
    for (uint32_t i = 0; i < zp_driver.num_devices; i++)
        if (zp_driver.devices[i].bdev == bdev) dev = &zp_driver.devices[i];
    if (!dev) return false;
    *out = (zp_alloc_info){.base = base, .raw = NULL, .size = size, .type = type, .ctx = ctx, .dev = dev, .id = 0};
    return true;
}

bool zp_mem_lookup(ze_context_handle_t ctx, const void *ptr, zp_alloc_info *out) {
    bool found = false;
    pthread_rwlock_rdlock(&table_lock);
    size_t i = find_floor(ptr);
    if (i != SIZE_MAX) {
        const zp_alloc_info *a = &table[i];
        if ((uintptr_t)ptr < (uintptr_t)a->base + a->size && (ctx == NULL || a->ctx == ctx)) {
            *out = *a;
            found = true;
        }
    }
    pthread_rwlock_unlock(&table_lock);
    if (!found && zp_be->mem_foreign) found = foreign_lookup(ctx, ptr, out);
    return found;
}

static void free_raw(ze_memory_type_t type, void *raw) {
    if (zp_be->mem_free_typed)
        zp_be->mem_free_typed(type, raw);
    else
        zp_be->mem_free(raw);
}

ze_result_t zp_mem_free_context(ze_context_handle_t ctx) {
    pthread_rwlock_wrlock(&table_lock);
    size_t w = 0;
    for (size_t r = 0; r < table_len; r++) {
        if (table[r].ctx == ctx)
            free_raw(table[r].type, table[r].raw);
        else
            table[w++] = table[r];
    }
    table_len = w;
    pthread_rwlock_unlock(&table_lock);
    return ZE_RESULT_SUCCESS;
}

/* Every flag API 1.4 defines: BIAS_CACHED, BIAS_UNCACHED, BIAS_INITIAL_PLACEMENT for device memory, and
 * BIAS_WRITE_COMBINED too for host memory. All are hints a CPU has no use for; only unknown bits are refused. */
#define ZP_DEVICE_MEM_ALLOC_FLAGS                                                                      \
    (ZE_DEVICE_MEM_ALLOC_FLAG_BIAS_CACHED | ZE_DEVICE_MEM_ALLOC_FLAG_BIAS_UNCACHED |                    \
     ZE_DEVICE_MEM_ALLOC_FLAG_BIAS_INITIAL_PLACEMENT)
#define ZP_HOST_MEM_ALLOC_FLAGS                                                                        \
    (ZE_HOST_MEM_ALLOC_FLAG_BIAS_CACHED | ZE_HOST_MEM_ALLOC_FLAG_BIAS_UNCACHED |                        \
     ZE_HOST_MEM_ALLOC_FLAG_BIAS_WRITE_COMBINED | ZE_HOST_MEM_ALLOC_FLAG_BIAS_INITIAL_PLACEMENT)

static ze_result_t alloc(ze_context_handle_t ctx, ze_device_handle_t dev, ze_memory_type_t type, size_t size,
                         size_t alignment, void **pptr) {
    if (size == 0) return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
    if (alignment != 0 && !zp_is_pow2(alignment)) return ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT;
    uint64_t limit = dev ? dev->info.max_alloc : (zp_driver.num_devices ? zp_driver.devices[0].info.max_alloc : 0);
    if (size > limit) return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
    /* The specification refuses only alignments that are not powers of two; every power of two up to the
     * allocation limit is served (the backend pads or asks the host allocator). Above the limit no
     * allocation could be placed within it, which this code says more clearly than an allocation failure. */
    if (alignment > limit) return ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT;
    /* The device the memory lives on is used by the context (fault.c): the one named, or, for a backend whose memory
     * is typed (ze_cuda, where host memory and shared memory without a device belong to the first device's CUDA
     * context, which a recovery would reset), the first device. A lost device allocates nothing. */
    ze_device_handle_t home = dev ? dev : zp_be->mem_alloc_typed && zp_driver.num_devices ? &zp_driver.devices[0] : NULL;
    if (home) {
        zp_context_use(ctx, home);
        if (zp_device_lost(home)) return ZE_RESULT_ERROR_DEVICE_LOST;
    }
    void *raw = NULL;
    void *p = zp_be->mem_alloc_typed ? zp_be->mem_alloc_typed(dev ? dev->bdev : NULL, type, size, alignment, &raw)
                                     : zp_be->mem_alloc(size, alignment, &raw);
    /* A failure because the device was lost meanwhile is that, not a lack of memory. */
    if (!p) return home && zp_device_lost(home) ? ZE_RESULT_ERROR_DEVICE_LOST : ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
    zp_alloc_info info = {.base = p, .raw = raw, .size = size, .type = type, .ctx = ctx, .dev = dev};
    ze_result_t r = insert(&info);
    if (r != ZE_RESULT_SUCCESS) {
        free_raw(type, raw);
        return r;
    }
    *pptr = p;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeMemAllocDevice(ze_context_handle_t hContext, const ze_device_mem_alloc_desc_t *desc, size_t size,
                                size_t alignment, ze_device_handle_t hDevice, void **pptr) {
    ZP_CHECK_HANDLE(hContext, ZP_MAGIC_CONTEXT);
    ZP_CHECK_HANDLE(hDevice, ZP_MAGIC_DEVICE);
    ZP_CHECK_PTR(desc);
    ZP_CHECK_PTR(pptr);
    if (desc->flags > ZP_DEVICE_MEM_ALLOC_FLAGS) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    return alloc(hContext, hDevice, ZE_MEMORY_TYPE_DEVICE, size, alignment, pptr);
}

ze_result_t zp_zeMemAllocHost(ze_context_handle_t hContext, const ze_host_mem_alloc_desc_t *desc, size_t size,
                              size_t alignment, void **pptr) {
    ZP_CHECK_HANDLE(hContext, ZP_MAGIC_CONTEXT);
    ZP_CHECK_PTR(desc);
    ZP_CHECK_PTR(pptr);
    if (desc->flags > ZP_HOST_MEM_ALLOC_FLAGS) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    return alloc(hContext, NULL, ZE_MEMORY_TYPE_HOST, size, alignment, pptr);
}

ze_result_t zp_zeMemAllocShared(ze_context_handle_t hContext, const ze_device_mem_alloc_desc_t *device_desc,
                                const ze_host_mem_alloc_desc_t *host_desc, size_t size, size_t alignment,
                                ze_device_handle_t hDevice, void **pptr) {
    ZP_CHECK_HANDLE(hContext, ZP_MAGIC_CONTEXT);
    if (hDevice != NULL && ZP_BAD_HANDLE(hDevice, ZP_MAGIC_DEVICE)) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    ZP_CHECK_PTR(device_desc);
    ZP_CHECK_PTR(host_desc);
    ZP_CHECK_PTR(pptr);
    if (device_desc->flags > ZP_DEVICE_MEM_ALLOC_FLAGS || host_desc->flags > ZP_HOST_MEM_ALLOC_FLAGS)
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    return alloc(hContext, hDevice, ZE_MEMORY_TYPE_SHARED, size, alignment, pptr);
}

ze_result_t zp_zeMemFree(ze_context_handle_t hContext, void *ptr) {
    ZP_CHECK_HANDLE(hContext, ZP_MAGIC_CONTEXT);
    ZP_CHECK_PTR(ptr);
    /* On a lost device no wait waited for the work a CPU backend still runs (fault.c): let it run out first. */
    if (zp_context_status(hContext) == ZE_RESULT_ERROR_DEVICE_LOST) zp_fault_run_out();
    pthread_rwlock_wrlock(&table_lock);
    size_t i = find_floor(ptr);
    if (i == SIZE_MAX || table[i].base != ptr || table[i].ctx != hContext) {
        pthread_rwlock_unlock(&table_lock);
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    void *raw = table[i].raw;
    ze_memory_type_t type = table[i].type;
    memmove(&table[i], &table[i + 1], (table_len - i - 1) * sizeof *table);
    table_len--;
    pthread_rwlock_unlock(&table_lock);
    free_raw(type, raw);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeMemGetAllocProperties(ze_context_handle_t hContext, const void *ptr,
                                       ze_memory_allocation_properties_t *props, ze_device_handle_t *phDevice) {
    ZP_CHECK_HANDLE(hContext, ZP_MAGIC_CONTEXT);
    ZP_CHECK_PTR(ptr);
    ZP_CHECK_PTR(props);
    zp_alloc_info a;
    if (zp_mem_lookup(hContext, ptr, &a)) {
        props->type = a.type;
        props->id = a.id;
        props->pageSize = 4096;
        if (phDevice) *phDevice = a.dev;
    } else {
        props->type = ZE_MEMORY_TYPE_UNKNOWN;
        props->id = 0;
        props->pageSize = 0;
        if (phDevice) *phDevice = NULL;
    }
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeMemGetAddressRange(ze_context_handle_t hContext, const void *ptr, void **pBase, size_t *pSize) {
    ZP_CHECK_HANDLE(hContext, ZP_MAGIC_CONTEXT);
    ZP_CHECK_PTR(ptr);
    zp_alloc_info a;
    if (!zp_mem_lookup(hContext, ptr, &a)) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (pBase) *pBase = a.base;
    if (pSize) *pSize = a.size;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeMemFreeExt(ze_context_handle_t hContext, const ze_memory_free_ext_desc_t *desc, void *ptr) {
    ZP_CHECK_HANDLE(hContext, ZP_MAGIC_CONTEXT);
    ZP_CHECK_PTR(desc);
    if (desc->freePolicy > 0x3) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    /* Both policies (blocking free, defer free) come down to an immediate free: the caller must not
     * free memory that queued work still uses, and nothing on a CPU device needs deferring. */
    return zp_zeMemFree(hContext, ptr);
}
