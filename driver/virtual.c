/* Virtual memory: zeVirtualMemReserve / Free / QueryPageSize / Map / Unmap / SetAccessAttribute /
 * GetAccessAttribute and zePhysicalMemCreate / Destroy. The object model keeps the reservations, the mappings and
 * their access attributes, checks every argument against them, and asks the backend only to reserve, map and
 * protect (zp_backend_ops.vm_*): ze_pocl with mmap over shared-memory files, ze_cuda with CUDA's virtual memory
 * management. A backend without vm_page_size answers every entry with ZE_RESULT_ERROR_UNSUPPORTED_FEATURE.
 *
 * A mapping is made by one zeVirtualMemMap and is unmapped whole: zeVirtualMemUnmap takes ranges that cover the
 * mappings they touch entirely (CUDA unmaps only whole mappings). Access attributes are kept per piece of a
 * mapping, so zeVirtualMemSetAccessAttribute may change any page-aligned part of one. Pages reserved but not
 * mapped are inaccessible (ZE_MEMORY_ACCESS_ATTRIBUTE_NONE) whatever was set on them. */
#include "zp.h"
#include "api.h"

struct _ze_physical_mem_handle_t {
    uint32_t magic;
    ze_context_handle_t ctx;
    ze_device_handle_t dev;
    size_t size;
    void *bphys;        /* the backend's */
    uint32_t mappings;  /* under vm_lock: mappings that use it */
};

typedef struct {
    ze_context_handle_t ctx;
    uintptr_t base;
    size_t size;
} vm_reservation;

/* One piece of a mapping: a page-aligned part of what one zeVirtualMemMap mapped (map_base, map_size), with its
 * own access attribute. Sorted by base; pieces never overlap. */
typedef struct {
    uintptr_t base;
    size_t size;
    uintptr_t map_base;
    size_t map_size;
    ze_physical_mem_handle_t phys;
    ze_memory_access_attribute_t access;
} vm_piece;

static pthread_mutex_t vm_lock = PTHREAD_MUTEX_INITIALIZER;
static vm_reservation *res;
static size_t num_res, cap_res;
static vm_piece *pieces;
static size_t num_pieces, cap_pieces;

/* The page size of the first device: reservations belong to no device, so they and their checks use it. */
static size_t driver_page(void) {
    if (!zp_be->vm_page_size || zp_driver.num_devices == 0) return 0;
    return zp_be->vm_page_size(zp_driver.devices[0].bdev, 1);
}

static bool aligned(uintptr_t v, size_t page) { return v % page == 0; }

/* The checks every range entry shares: the page size, a non-zero page-aligned size and start. */
static ze_result_t check_range(const void *ptr, size_t size, size_t *page) {
    *page = driver_page();
    if (*page == 0) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    if (size == 0 || !aligned(size, *page)) return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
    if (!aligned((uintptr_t)ptr, *page)) return ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT;
    return ZE_RESULT_SUCCESS;
}

/* The reservation of ctx holding [p, p + size), or NULL. Caller holds vm_lock. */
static vm_reservation *reservation_of(ze_context_handle_t ctx, uintptr_t p, size_t size) {
    for (size_t i = 0; i < num_res; i++) {
        vm_reservation *r = &res[i];
        if (r->ctx == ctx && p >= r->base && size <= r->size && p - r->base <= r->size - size) return r;
    }
    return NULL;
}

static bool grow(void **arr, size_t *cap, size_t len, size_t elem) {
    if (len < *cap) return true;
    size_t n = *cap ? *cap * 2 : 16;
    void *a = realloc(*arr, n * elem);
    if (!a) return false;
    *arr = a;
    *cap = n;
    return true;
}

static bool insert_piece(const vm_piece *p) {
    if (!grow((void **)&pieces, &cap_pieces, num_pieces, sizeof *pieces)) return false;
    size_t at = 0;
    while (at < num_pieces && pieces[at].base < p->base) at++;
    memmove(&pieces[at + 1], &pieces[at], (num_pieces - at) * sizeof *pieces);
    pieces[at] = *p;
    num_pieces++;
    return true;
}

static void remove_piece(size_t i) {
    memmove(&pieces[i], &pieces[i + 1], (num_pieces - i - 1) * sizeof *pieces);
    num_pieces--;
}

/* Splits the piece holding address at, if any, so that a piece starts there. */
static bool split_at(uintptr_t at) {
    for (size_t i = 0; i < num_pieces; i++) {
        vm_piece *p = &pieces[i];
        if (at <= p->base || at >= p->base + p->size) continue;
        vm_piece tail = *p;
        tail.base = at;
        tail.size = p->base + p->size - at;
        p->size = at - p->base;
        return insert_piece(&tail);
    }
    return true;
}

/* Removes the pieces of the mapping that starts at map_base. */
static void drop_mapping(uintptr_t map_base) {
    for (size_t i = 0; i < num_pieces;) {
        if (pieces[i].map_base == map_base)
            remove_piece(i);
        else
            i++;
    }
}

ze_result_t zp_zeVirtualMemQueryPageSize(ze_context_handle_t hContext, ze_device_handle_t hDevice, size_t size,
                                         size_t *pagesize) {
    ZP_CHECK_HANDLE(hContext, ZP_MAGIC_CONTEXT);
    ZP_CHECK_HANDLE(hDevice, ZP_MAGIC_DEVICE);
    ZP_CHECK_PTR(pagesize);
    if (size == 0) return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
    size_t page = zp_be->vm_page_size ? zp_be->vm_page_size(hDevice->bdev, size) : 0;
    if (page == 0) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    *pagesize = page;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeVirtualMemReserve(ze_context_handle_t hContext, const void *pStart, size_t size, void **pptr) {
    ZP_CHECK_HANDLE(hContext, ZP_MAGIC_CONTEXT);
    ZP_CHECK_PTR(pptr);
    size_t page;
    ze_result_t checked = check_range(pStart, size, &page);
    if (checked != ZE_RESULT_SUCCESS) return checked;
    pthread_mutex_lock(&vm_lock);
    if (!grow((void **)&res, &cap_res, num_res, sizeof *res)) {
        pthread_mutex_unlock(&vm_lock);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    void *p = NULL;
    ze_result_t r = zp_be->vm_reserve(pStart, size, &p);
    if (r == ZE_RESULT_SUCCESS) {
        res[num_res++] = (vm_reservation){.ctx = hContext, .base = (uintptr_t)p, .size = size};
        *pptr = p;
    }
    pthread_mutex_unlock(&vm_lock);
    return r;
}

/* Unmaps every mapping inside [base, base + size) and forgets its pieces. Caller holds vm_lock. */
static void unmap_all_in(uintptr_t base, size_t size) {
    for (size_t i = 0; i < num_pieces;) {
        vm_piece p = pieces[i];
        if (p.map_base >= base && p.map_base - base < size) {
            zp_be->vm_unmap((void *)p.map_base, p.map_size);
            p.phys->mappings--;
            drop_mapping(p.map_base);
            i = 0;
        } else {
            i++;
        }
    }
}

ze_result_t zp_zeVirtualMemFree(ze_context_handle_t hContext, const void *ptr, size_t size) {
    ZP_CHECK_HANDLE(hContext, ZP_MAGIC_CONTEXT);
    ZP_CHECK_PTR(ptr);
    size_t page;
    ze_result_t checked = check_range(ptr, size, &page);
    if (checked != ZE_RESULT_SUCCESS) return checked;
    /* As zeMemFree: on a lost device, the work a CPU backend still runs may write these pages (fault.c). */
    if (zp_context_status(hContext) == ZE_RESULT_ERROR_DEVICE_LOST) zp_fault_run_out();
    pthread_mutex_lock(&vm_lock);
    size_t i = 0;
    while (i < num_res && !(res[i].ctx == hContext && res[i].base == (uintptr_t)ptr && res[i].size == size)) i++;
    if (i == num_res) {
        pthread_mutex_unlock(&vm_lock);
        return ZE_RESULT_ERROR_INVALID_ARGUMENT; /* not a reservation of this context, or not all of one */
    }
    unmap_all_in((uintptr_t)ptr, size);
    zp_be->vm_release((void *)ptr, size);
    memmove(&res[i], &res[i + 1], (num_res - i - 1) * sizeof *res);
    num_res--;
    pthread_mutex_unlock(&vm_lock);
    return ZE_RESULT_SUCCESS;
}

/* Bit 0 places the memory on the device, bit 1 on the host: ZE_PHYSICAL_MEM_FLAG_ALLOCATE_ON_DEVICE and
 * ALLOCATE_ON_HOST of later versions of the specification (1.4 names bit 0 only, "reserved"). */
#define ZP_PHYS_ON_HOST 0x2u
#define ZP_PHYS_FLAGS 0x3u

ze_result_t zp_zePhysicalMemCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                   ze_physical_mem_desc_t *desc, ze_physical_mem_handle_t *phPhysicalMemory) {
    ZP_CHECK_HANDLE(hContext, ZP_MAGIC_CONTEXT);
    ZP_CHECK_PTR(desc);
    ZP_CHECK_PTR(phPhysicalMemory);
    if (desc->flags > ZP_PHYS_FLAGS) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    /* Since API 1.10 the device "can be nullptr if creating physical host memory": host memory then goes with the
     * driver's first device, whose page size (the system's on ze_pocl) and host allocation it uses. */
    zp_bdev *bdev = NULL;
    if (hDevice || !(desc->flags & ZP_PHYS_ON_HOST)) {
        ZP_CHECK_HANDLE(hDevice, ZP_MAGIC_DEVICE);
        bdev = hDevice->bdev;
    } else {
        if (zp_driver.num_devices == 0) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
        bdev = zp_driver.devices[0].bdev;
    }
    size_t page = zp_be->vm_page_size ? zp_be->vm_page_size(bdev, desc->size ? desc->size : 1) : 0;
    if (page == 0) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    if (desc->size == 0) return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
    if (!aligned(desc->size, page)) return ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT;
    /* fault.c: memory on the device (host memory without one goes with the first device, as above). */
    ze_device_handle_t dev = hDevice ? hDevice : &zp_driver.devices[0];
    zp_context_use(hContext, dev);
    if (zp_device_lost(dev)) return ZE_RESULT_ERROR_DEVICE_LOST;
    ze_physical_mem_handle_t ph = calloc(1, sizeof *ph);
    if (!ph) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    ze_result_t r = zp_be->phys_create(bdev, (desc->flags & ZP_PHYS_ON_HOST) != 0, desc->size, &ph->bphys);
    if (r != ZE_RESULT_SUCCESS) {
        free(ph);
        return r;
    }
    ph->magic = ZP_MAGIC_PHYSMEM;
    ph->ctx = hContext;
    ph->dev = hDevice;
    ph->size = desc->size;
    *phPhysicalMemory = ph;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zePhysicalMemDestroy(ze_context_handle_t hContext, ze_physical_mem_handle_t hPhysicalMemory) {
    ZP_CHECK_HANDLE(hContext, ZP_MAGIC_CONTEXT);
    ZP_CHECK_HANDLE(hPhysicalMemory, ZP_MAGIC_PHYSMEM);
    if (hPhysicalMemory->ctx != hContext) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    pthread_mutex_lock(&vm_lock);
    bool used = hPhysicalMemory->mappings > 0;
    if (!used) hPhysicalMemory->magic = 0;
    pthread_mutex_unlock(&vm_lock);
    if (used) return ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE;
    zp_be->phys_destroy(hPhysicalMemory->bphys);
    free(hPhysicalMemory);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeVirtualMemMap(ze_context_handle_t hContext, const void *ptr, size_t size,
                               ze_physical_mem_handle_t hPhysicalMemory, size_t offset,
                               ze_memory_access_attribute_t access) {
    ZP_CHECK_HANDLE(hContext, ZP_MAGIC_CONTEXT);
    ZP_CHECK_HANDLE(hPhysicalMemory, ZP_MAGIC_PHYSMEM);
    ZP_CHECK_PTR(ptr);
    if ((uint32_t)access > ZE_MEMORY_ACCESS_ATTRIBUTE_READONLY) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    size_t page = 0;
    ze_result_t r = check_range(ptr, size, &page);
    if (r != ZE_RESULT_SUCCESS) return r;
    if (!aligned(offset, page)) return ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT;
    if (hPhysicalMemory->ctx != hContext) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (offset > hPhysicalMemory->size || size > hPhysicalMemory->size - offset) return ZE_RESULT_ERROR_INVALID_SIZE;
    uintptr_t p = (uintptr_t)ptr;
    pthread_mutex_lock(&vm_lock);
    r = reservation_of(hContext, p, size) ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_ARGUMENT;
    for (size_t i = 0; r == ZE_RESULT_SUCCESS && i < num_pieces; i++)
        if (pieces[i].base < p + size && p < pieces[i].base + pieces[i].size)
            r = ZE_RESULT_ERROR_INVALID_ARGUMENT; /* already mapped: unmap first */
    if (r == ZE_RESULT_SUCCESS && !grow((void **)&pieces, &cap_pieces, num_pieces, sizeof *pieces))
        r = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    if (r == ZE_RESULT_SUCCESS) r = zp_be->vm_map((void *)ptr, size, hPhysicalMemory->bphys, offset, access);
    if (r == ZE_RESULT_SUCCESS) {
        vm_piece piece = {.base = p, .size = size, .map_base = p, .map_size = size, .phys = hPhysicalMemory,
                          .access = access};
        insert_piece(&piece); /* room was made above */
        hPhysicalMemory->mappings++;
    }
    pthread_mutex_unlock(&vm_lock);
    return r;
}

ze_result_t zp_zeVirtualMemUnmap(ze_context_handle_t hContext, const void *ptr, size_t size) {
    ZP_CHECK_HANDLE(hContext, ZP_MAGIC_CONTEXT);
    ZP_CHECK_PTR(ptr);
    size_t page = 0;
    ze_result_t r = check_range(ptr, size, &page);
    if (r != ZE_RESULT_SUCCESS) return r;
    if (zp_context_status(hContext) == ZE_RESULT_ERROR_DEVICE_LOST) zp_fault_run_out(); /* as zeVirtualMemFree */
    uintptr_t p = (uintptr_t)ptr;
    pthread_mutex_lock(&vm_lock);
    if (!reservation_of(hContext, p, size)) r = ZE_RESULT_ERROR_INVALID_ARGUMENT;
    /* Every mapping the range touches must lie wholly inside it. */
    for (size_t i = 0; r == ZE_RESULT_SUCCESS && i < num_pieces; i++) {
        const vm_piece *q = &pieces[i];
        if (q->base < p + size && p < q->base + q->size &&
            (q->map_base < p || q->map_base + q->map_size > p + size))
            r = ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    if (r == ZE_RESULT_SUCCESS) unmap_all_in(p, size);
    pthread_mutex_unlock(&vm_lock);
    return r;
}

ze_result_t zp_zeVirtualMemSetAccessAttribute(ze_context_handle_t hContext, const void *ptr, size_t size,
                                              ze_memory_access_attribute_t access) {
    ZP_CHECK_HANDLE(hContext, ZP_MAGIC_CONTEXT);
    ZP_CHECK_PTR(ptr);
    if ((uint32_t)access > ZE_MEMORY_ACCESS_ATTRIBUTE_READONLY) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    size_t page = 0;
    ze_result_t r = check_range(ptr, size, &page);
    if (r != ZE_RESULT_SUCCESS) return r;
    if (zp_context_status(hContext) == ZE_RESULT_ERROR_DEVICE_LOST) zp_fault_run_out(); /* as zeVirtualMemFree */
    uintptr_t p = (uintptr_t)ptr;
    pthread_mutex_lock(&vm_lock);
    if (!reservation_of(hContext, p, size)) r = ZE_RESULT_ERROR_INVALID_ARGUMENT;
    /* Two splits add at most two pieces: make room first, so that nothing fails half-way. */
    if (r == ZE_RESULT_SUCCESS && (!grow((void **)&pieces, &cap_pieces, num_pieces + 1, sizeof *pieces) ||
                                   !split_at(p) || !split_at(p + size)))
        r = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    for (size_t i = 0; r == ZE_RESULT_SUCCESS && i < num_pieces; i++) {
        vm_piece *q = &pieces[i];
        if (q->base < p || q->base >= p + size || q->access == access) continue;
        r = zp_be->vm_protect((void *)q->base, q->size, access);
        if (r == ZE_RESULT_SUCCESS) q->access = access;
    }
    pthread_mutex_unlock(&vm_lock);
    return r;
}

ze_result_t zp_zeVirtualMemGetAccessAttribute(ze_context_handle_t hContext, const void *ptr, size_t size,
                                              ze_memory_access_attribute_t *access, size_t *outSize) {
    ZP_CHECK_HANDLE(hContext, ZP_MAGIC_CONTEXT);
    ZP_CHECK_PTR(ptr);
    ZP_CHECK_PTR(access);
    ZP_CHECK_PTR(outSize);
    size_t page = 0;
    ze_result_t r = check_range(ptr, size, &page);
    if (r != ZE_RESULT_SUCCESS) return r;
    uintptr_t p = (uintptr_t)ptr, end = p + size;
    pthread_mutex_lock(&vm_lock);
    if (!reservation_of(hContext, p, size)) {
        pthread_mutex_unlock(&vm_lock);
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    /* Walk from ptr while the attribute stays the one at ptr: pieces in address order, gaps between them NONE. */
    ze_memory_access_attribute_t first = ZE_MEMORY_ACCESS_ATTRIBUTE_NONE;
    bool have_first = false;
    uintptr_t at = p;
    size_t i = 0;
    while (i < num_pieces && pieces[i].base + pieces[i].size <= p) i++;
    while (at < end) {
        ze_memory_access_attribute_t a;
        uintptr_t next;
        if (i < num_pieces && pieces[i].base <= at) {
            a = pieces[i].access;
            next = pieces[i].base + pieces[i].size;
            i++;
        } else {
            a = ZE_MEMORY_ACCESS_ATTRIBUTE_NONE;
            next = i < num_pieces && pieces[i].base < end ? pieces[i].base : end;
        }
        if (!have_first) {
            first = a;
            have_first = true;
        } else if (a != first) {
            break;
        }
        at = next < end ? next : end;
    }
    pthread_mutex_unlock(&vm_lock);
    *access = first;
    *outSize = at - p;
    return ZE_RESULT_SUCCESS;
}

bool zp_vm_mapped(const void *ptr, size_t size) {
    uintptr_t at = (uintptr_t)ptr, end = at + size;
    pthread_mutex_lock(&vm_lock);
    for (size_t i = 0; i < num_pieces && at < end; i++)
        if (pieces[i].base <= at && at < pieces[i].base + pieces[i].size) at = pieces[i].base + pieces[i].size;
    pthread_mutex_unlock(&vm_lock);
    return num_pieces > 0 && at >= end;
}
