/* CUDA backend: allocations, device (cuMemAlloc), host (cuMemAllocHost) and shared (cuMemAllocManaged), and
 * memory the program's own CUDA code allocated (a PyTorch tensor, a CuPy array), recognised by its attributes. */
#include <stdlib.h>

#include "cuda_be.h"

typedef struct {
    CUdeviceptr base;
    ze_memory_type_t type;
    struct zp_bdev *dev;
} zc_alloc;

void *zc_mem_alloc_typed(zp_bdev *dev, ze_memory_type_t type, size_t size, size_t alignment, void **raw) {
    if (zc_device_count() == 0) return NULL;
    struct zp_bdev *d = dev ? dev : zc_device(0);
    zc_bind(d);
    zc_alloc *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    /* CUDA aligns every allocation to at least 256 bytes; more is had by asking for more and aligning. */
    size_t pad = alignment > 256 ? alignment : 0;
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
        r = zc_cu.cuMemAlloc(&a->base, size + pad);
    }
    if (r != CUDA_SUCCESS) {
        free(a);
        return NULL;
    }
    a->type = type;
    a->dev = d;
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
    if (a->type == ZE_MEMORY_TYPE_HOST)
        zc_cu.cuMemFreeHost((void *)(uintptr_t)a->base);
    else
        zc_cu.cuMemFree(a->base);
    free(a);
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
