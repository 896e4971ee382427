/* CUDA backend: allocations, device (cuMemAlloc), host (cuMemAllocHost) and shared (cuMemAllocManaged). */
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
