/* Private to the CUDA backend: the CUDA driver API as ze_cuda opens it (dlopen at zeInit, never linked),
 * and how the backend's opaque objects map onto CUDA. */
#ifndef ZC_CUDA_BE_H
#define ZC_CUDA_BE_H

#include <pthread.h>
#include <stdatomic.h>
#include <cuda.h>

#include "../backend.h"

#define ZC_HIDDEN __attribute__((visibility("hidden")))

/* One pointer per CUDA function, named as cuda.h names it: cuda.h maps cuMemAlloc to cuMemAlloc_v2 and so
 * on, so the field, its type and the symbol looked up all follow the header's version of each call. */
#define ZC_CU_FUNCS(X)                                                                                       \
    X(cuInit) X(cuDriverGetVersion) X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName)                  \
    X(cuDeviceGetAttribute) X(cuDeviceTotalMem) X(cuDeviceGetUuid) X(cuDevicePrimaryCtxRetain)             \
    X(cuCtxSetCurrent) X(cuMemAlloc) X(cuMemFree) X(cuMemAllocHost) X(cuMemFreeHost) X(cuMemAllocManaged)  \
    X(cuMemGetInfo) X(cuMemcpyAsync) X(cuMemsetD8Async) X(cuMemsetD16Async) X(cuMemsetD32Async)            \
    X(cuModuleLoadDataEx) X(cuModuleUnload) X(cuModuleGetFunction) X(cuFuncGetAttribute)                   \
    X(cuFuncSetAttribute) X(cuLaunchKernel) X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize)    \
    X(cuStreamWaitEvent) X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord) X(cuEventSynchronize)         \
    X(cuEventQuery) X(cuEventElapsedTime) X(cuLaunchHostFunc) X(cuLinkCreate) X(cuLinkAddData)             \
    X(cuLinkComplete) X(cuLinkDestroy) X(cuGetErrorString)

#define ZC_CU_FIELD(f) __typeof__(&f) f;
typedef struct zc_cuda_api {
    ZC_CU_FUNCS(ZC_CU_FIELD)
} zc_cuda_api;
extern zc_cuda_api zc_cu;

struct zp_bdev {
    CUdevice dev;
    CUcontext ctx;
    int cc_major, cc_minor;
    int driver_version;
    char name[256];
    /* The clock of command timestamps: CLOCK_MONOTONIC nanoseconds. base_ev completed at base_ns, and a
     * timed event's time is base_ns plus its distance from base_ev. */
    CUevent base_ev;
    uint64_t base_ns;
    /* Events of finished tokens, kept for the next ones (creating an event costs more than recording). */
    pthread_mutex_t pool_lock;
    CUevent *pool[2]; /* [0] untimed, [1] timed */
    uint32_t pool_len[2], pool_cap[2];
};

struct zp_bqueue {
    struct zp_bdev *dev;
    CUstream stream;
    bool profiling;
};

struct zp_btoken {
    atomic_int refs;
    struct zp_bdev *dev;
    CUevent start, end; /* start only on profiling queues */
    pthread_mutex_t lock;
    bool complete;
    struct zc_cb *cbs; /* callbacks waiting for completion */
};

struct zc_kinfo {
    char *name;
    uint32_t num_args;
    uint32_t *kinds;
    uint32_t *sizes;
};

struct zp_bmod {
    struct zp_bdev *dev;
    CUmodule module;
    uint32_t count;
    struct zc_kinfo *kernels;
};

struct zp_bkern {
    struct zp_bmod *mod;
    CUfunction fn;
    CUfunction fn_exact; /* the exact-range variant (spirv/exact_range.cpp), for launches not uniform */
    uint32_t num_args;
    const uint32_t *kinds;
    const uint32_t *sizes;
    void **params;       /* num_args + 4 hidden: work dim, global offset x, y, z */
    void **params_exact; /* fn_exact's, in the same allocation: num_args, the descriptor, then the same 4 */
    uint8_t *store;      /* the argument values params point at, 16 bytes a slot or the struct's size */
    uint64_t *local_sz;  /* per __local argument: bytes asked for */
    bool has_local;
    uint32_t static_shared;
    uint32_t dyn_limit;  /* dynamic shared bytes the function is currently allowed */
    uint64_t hidden_exact[8]; /* the exact-range descriptor (zp_exact_desc) */
    uint32_t hidden_dim;
    uint64_t hidden_off[3];
};

ZC_HIDDEN ze_result_t zc_result(CUresult r);
ZC_HIDDEN void zc_bind(struct zp_bdev *d);
ZC_HIDDEN uint64_t zc_now_ns(void);

/* The on-disk cache of compiled modules (cache.c). */
ZC_HIDDEN void zc_cache_key(const void *bitcode, size_t size, const char *flags, const struct zp_bdev *dev,
                            char out[33]);
ZC_HIDDEN void *zc_cache_get(const char *key, size_t *size);
ZC_HIDDEN void zc_cache_put(const char *key, const void *data, size_t size);

#endif
