/* Private to the CUDA backend: the CUDA driver API as ze_cuda opens it (dlopen at zeInit, never linked),
 * how the backend's opaque objects map onto CUDA, and what its files share. Calls between the files run one
 * way: ops.c (the table) calls every file, queue.c -> token.c -> device.c, memory.c -> device.c, and
 * module.c -> cache.c, ptx.cpp, device.c. */
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
    X(cuLinkComplete) X(cuLinkDestroy) X(cuGetErrorString) X(cuPointerGetAttributes)                       \
    X(cuStreamBeginCapture) X(cuStreamEndCapture) X(cuGraphInstantiate) X(cuGraphLaunch)                   \
    X(cuGraphExecDestroy) X(cuGraphDestroy) X(cuDeviceCanAccessPeer) X(cuDeviceGetP2PAttribute)                \
    X(cuCtxEnablePeerAccess) X(cuMemcpyPeerAsync)

/* Calls ze_cuda can do without (every driver of CUDA 12 and 13 has them; a missing one is NULL and only the
 * features that need it are off): virtual memory management for large alignments and zeVirtualMem*, host
 * registration, module globals, and the reset of a lost device's primary context or a context of ze_cuda's own in its
 * place (without them a lost device stays lost for the life of the process). */
#define ZC_CU_OPTIONAL(X)                                                                                    \
    X(cuMemAddressReserve) X(cuMemAddressFree) X(cuMemCreate) X(cuMemRelease) X(cuMemMap) X(cuMemUnmap)    \
    X(cuMemSetAccess) X(cuMemGetAllocationGranularity) X(cuMemHostRegister) X(cuMemHostUnregister)          \
    X(cuModuleGetGlobal) X(cuFlushGPUDirectRDMAWrites) X(cuDevicePrimaryCtxRelease) X(cuDevicePrimaryCtxReset) \
    X(cuCtxCreate) X(cuCtxDestroy)

#define ZC_CU_FIELD(f) __typeof__(&f) f;
typedef struct zc_cuda_api {
    ZC_CU_FUNCS(ZC_CU_FIELD)
    ZC_CU_OPTIONAL(ZC_CU_FIELD)
} zc_cuda_api;
extern zc_cuda_api zc_cu;

struct zp_bdev {
    CUdevice dev;
    CUcontext ctx;
    /* Faults: CUDA reported one of its sticky errors on ctx (zc_result), after which every call on it fails: the
     * device is lost until zc_device_recover resets ctx. epoch counts the resets, so that what was made on ctx
     * before one (a thread's binding, a pooled event, a token's events) is known stale. */
    atomic_bool lost;
    atomic_uint epoch;
    /* ctx is a context ze_cuda created (cuCtxCreate) after a reset of the primary context left the fault in place,
     * rather than the primary context the program's own CUDA shares; recover_why says why the last recovery
     * failed, "" when none did (both under the object model's recovery lock). */
    bool own_ctx;
    char recover_why[200];
    int cc_major, cc_minor;
    int driver_version;
    char name[256];
    /* The clock of command timestamps: CLOCK_MONOTONIC nanoseconds. base_ev completed at base_ns, and a
     * timed event's time is base_ns plus its distance from base_ev. */
    CUevent base_ev;
    uint64_t base_ns;
    /* Device memory freed and kept for reuse (memory.c, "The cache of device memory"), and the live queues whose
     * streams a free records events on, under cache_lock. */
    pthread_mutex_t cache_lock;
    struct zc_cached *cache;
    size_t cached_bytes, cache_limit;
    bool cache_ready;      /* cache_limit set (at the first allocation) */
    unsigned cache_epoch;  /* the epoch of the cached blocks: a reset since drops them */
    struct zp_bqueue *live;
    /* Events of finished tokens, kept for the next ones (creating an event costs more than recording). */
    pthread_mutex_t pool_lock;
    CUevent *pool[2]; /* [0] untimed, [1] timed */
    uint32_t pool_len[2], pool_cap[2];
};

struct zp_bqueue {
    struct zp_bdev *dev;
    CUstream stream;
    struct zp_bqueue *next_live; /* the device's live queues (dev->live), under dev->cache_lock */
    bool profiling;
    bool capturing; /* between zc_capture_begin and zc_capture_end: commands are recorded into a graph */
};

struct zp_btoken {
    atomic_int refs;
    struct zp_bdev *dev;
    unsigned epoch;     /* dev->epoch when made: events of an older one died with a reset and are not pooled */
    const struct zp_bqueue *queue; /* the queue whose stream records end: a later command there needs no wait on it.
                                    * Compared, never followed (a queue is drained before it is freed). */
    CUevent start, end; /* start only on profiling queues */
    pthread_mutex_t lock;
    bool complete;
    struct zc_cb *cbs; /* callbacks waiting for completion */
};

struct zc_kinfo {
    char *name;
    uint64_t private_size; /* the module's count (zp_kernel_meta); past ZC_LOCAL_MAX its body is a trap (ptx.h) */
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
    uint32_t shared_max; /* the device's shared memory per block (opt-in), static and dynamic together */
    uint64_t hidden_exact[8]; /* the exact-range descriptor (zp_exact_desc) */
    uint32_t hidden_dim;
    uint64_t hidden_off[3];
};

/* Devices (device.c); zc_cu, the CUDA calls, lives there too. */
/* A CUDA result as a Level Zero one. One of CUDA's sticky errors (an illegal address, a trap, an assert: the context
 * cannot run anything any more) is ZE_RESULT_ERROR_DEVICE_LOST and marks the device bound on this thread (zc_bind)
 * lost: every call that sees a CUDA result passes it through here. */
ZC_HIDDEN ze_result_t zc_result(CUresult r);
/* zp_backend_ops.device_lost and device_recover (device.c). */
ZC_HIDDEN bool zc_device_lost(zp_bdev *d);
ZC_HIDDEN const char *zc_recover_failure(zp_bdev *d);
ZC_HIDDEN ze_result_t zc_device_recover(zp_bdev *d);
ZC_HIDDEN void zc_bind(struct zp_bdev *d);
ZC_HIDDEN uint64_t zc_now_ns(void);
/* Opens libcuda.so.1 and finds the devices, once; success with no devices when there is no CUDA. */
ZC_HIDDEN ze_result_t zc_init(void);
/* How many devices zc_init found. */
ZC_HIDDEN uint32_t zc_device_count(void);
/* Why zc_init found no device ("" when it found some), for zeKrtDriverStatus. */
ZC_HIDDEN const char *zc_no_device_reason(void);
/* Device i, or NULL past the last. */
ZC_HIDDEN zp_bdev *zc_device(uint32_t i);
/* A device's properties, from cuDeviceGetAttribute and the rest. */
ZC_HIDDEN void zc_device_info(zp_bdev *d, zp_device_info *in);
/* ZP_PEER_* bits of dev towards peer, as CUDA reported them at zeInit (cuDeviceCanAccessPeer, native atomics). */
ZC_HIDDEN unsigned zc_can_access_peer(zp_bdev *dev, zp_bdev *peer);
/* The most local memory (private memory) one thread may have on d (ZE_krt_private_memory). */
ZC_HIDDEN uint64_t zc_local_limit(zp_bdev *d);
/* The host's and the device's clock now: both CLOCK_MONOTONIC nanoseconds. */
ZC_HIDDEN void zc_timestamps(zp_bdev *dev, uint64_t *host_ns, uint64_t *device_ns);

/* Memory (memory.c). */
/* An allocation of a Level Zero type on dev (NULL: the first device), aligned; *raw is what zc_mem_free_typed takes. */
ZC_HIDDEN void *zc_mem_alloc_typed(zp_bdev *dev, ze_memory_type_t type, size_t size, size_t alignment, void **raw);
/* Frees what zc_mem_alloc_typed allocated. */
ZC_HIDDEN void zc_mem_free_typed(ze_memory_type_t type, void *raw);
/* Memory the program's own CUDA code allocated (zp_backend_ops.mem_foreign). */
ZC_HIDDEN bool zc_mem_foreign(const void *ptr, zp_bdev **dev, void **base, size_t *size, ze_memory_type_t *type);
/* Virtual memory (memory.c; zp_backend_ops.vm_page_size and the rest). */
ZC_HIDDEN size_t zc_vm_page_size(zp_bdev *dev, size_t size);
ZC_HIDDEN ze_result_t zc_vm_reserve(const void *hint, size_t size, void **out);
ZC_HIDDEN void zc_vm_release(void *ptr, size_t size);
ZC_HIDDEN ze_result_t zc_phys_create(zp_bdev *dev, bool on_host, size_t size, void **out);
ZC_HIDDEN void zc_phys_destroy(void *phys);
ZC_HIDDEN ze_result_t zc_vm_map(void *ptr, size_t size, void *phys, size_t offset, ze_memory_access_attribute_t access);
ZC_HIDDEN ze_result_t zc_vm_unmap(void *ptr, size_t size);
ZC_HIDDEN ze_result_t zc_vm_protect(void *ptr, size_t size, ze_memory_access_attribute_t access);
/* zeContextSystemBarrier (memory.c): GPUDirect RDMA writes into the device made visible to it. */
ZC_HIDDEN ze_result_t zc_system_barrier(zp_bdev *dev);
/* The untyped allocation: host memory. */
ZC_HIDDEN void *zc_mem_alloc(size_t size, size_t alignment, void **raw);
/* Frees what zc_mem_alloc allocated. */
ZC_HIDDEN void zc_mem_free(void *raw);

/* Modules and kernels (module.c). */
/* SPIR-V -> PTX -> CUDA binary (or the cached binary) -> a loaded CUmodule, with the kernels' facts. */
ZC_HIDDEN ze_result_t zc_module_build(zp_bdev *dev, const zp_module_src *src, zp_bmod **out, zp_module_meta *meta,
                                      char **log);
/* Unloads a module and frees its kernels' facts. */
ZC_HIDDEN void zc_module_destroy(zp_bmod *m);
/* A program-scope variable's device address (cuModuleGetGlobal). */
ZC_HIDDEN ze_result_t zc_global_pointer(zp_bmod *m, uint32_t index, const char *name, void **ptr);
/* Frees the metadata zc_module_build filled. */
ZC_HIDDEN void zc_module_meta_free(zp_module_meta *meta);
/* A kernel by name: its function and exact-range variant, argument slots and limits. */
ZC_HIDDEN ze_result_t zc_kernel_create(zp_bmod *m, const char *name, zp_bkern **out, zp_kernel_limits *limits);
/* Frees a kernel. */
ZC_HIDDEN void zc_kernel_destroy(zp_bkern *k);
/* Stores an argument's value in its slot (a __local argument: its size). */
ZC_HIDDEN ze_result_t zc_kernel_set_arg(zp_bkern *k, uint32_t index, uint32_t kind, size_t size, const void *value);

/* Completion tokens (token.c). */
/* An event from the device's pool (timed or not), or a new one; NULL when CUDA cannot make one. */
ZC_HIDDEN CUevent zc_event_get(struct zp_bdev *d, bool timed);
/* Back to the pool; epoch is the device's when the event was made (an older one's event died with a reset). */
ZC_HIDDEN void zc_event_put(struct zp_bdev *d, CUevent e, bool timed, unsigned epoch);
/* Takes a reference to a token. */
ZC_HIDDEN void zc_token_retain(zp_btoken *t);
/* Drops a reference; the last one puts the token's events back in the pool and frees it. */
ZC_HIDDEN void zc_token_release(zp_btoken *t);
/* Calls fn once the token completes: at once if it has, else on the watcher thread. */
ZC_HIDDEN ze_result_t zc_token_on_complete(zp_btoken *t, zp_token_fn fn, void *user);
/* A timed token's start and end on the CLOCK_MONOTONIC clock. */
ZC_HIDDEN ze_result_t zc_token_times(zp_btoken *t, uint64_t *start, uint64_t *end);
/* Whether the token was made before its device's last reset (zc_device_recover): its events are gone. */
static inline bool zc_token_stale(const zp_btoken *t) {
    return t->epoch != atomic_load_explicit(&t->dev->epoch, memory_order_acquire);
}
/* Blocks until the token's command has completed: cuEventSynchronize on its end event. */
ZC_HIDDEN ze_result_t zc_token_wait(zp_btoken *t);
/* Whether the token's command has completed: cuEventQuery on its end event, without blocking. */
ZC_HIDDEN bool zc_token_done(zp_btoken *t);

/* Queues and commands (queue.c). */
/* A queue: a non-blocking CUstream, its tokens timed when profiling. */
ZC_HIDDEN ze_result_t zc_queue_create(zp_bdev *dev, bool profiling, zp_bqueue **out);
/* Waits for a queue's stream, then destroys it. */
ZC_HIDDEN void zc_queue_destroy(zp_bqueue *q);
/* Waits until a queue's stream has done all its work. */
ZC_HIDDEN ze_result_t zc_queue_finish(zp_bqueue *q);
/* The queue's CUstream (ZE_krt_native_queue). */
ZC_HIDDEN void *zc_queue_native(zp_bqueue *q);
/* Launches a kernel over range, after waits; *done (when asked for) its token. */
ZC_HIDDEN ze_result_t zc_launch(zp_bqueue *q, zp_bkern *k, const zp_ndrange *range, uint32_t nw,
                                zp_btoken *const *waits, zp_btoken **done);
/* Copies size bytes, any pointers, in stream order. */
ZC_HIDDEN ze_result_t zc_copy(zp_bqueue *q, void *dst, const void *src, size_t size, uint32_t nw,
                              zp_btoken *const *waits, zp_btoken **done);
/* Copies size bytes between device memory of two devices (cuMemcpyPeerAsync), in stream order. */
ZC_HIDDEN ze_result_t zc_copy_peer(zp_bqueue *q, void *dst, zp_bdev *dst_dev, const void *src, zp_bdev *src_dev,
                                   size_t size, uint32_t nw, zp_btoken *const *waits, zp_btoken **done);
/* Fills size bytes with a pattern of psize bytes, in stream order. */
ZC_HIDDEN ze_result_t zc_fill(zp_bqueue *q, void *dst, const void *pattern, size_t psize, size_t size, uint32_t nw,
                              zp_btoken *const *waits, zp_btoken **done);
/* A command that only waits, for its token. */
ZC_HIDDEN ze_result_t zc_barrier(zp_bqueue *q, uint32_t nw, zp_btoken *const *waits, zp_btoken **done);
/* CUDA graphs (zp_backend_ops.capture_begin): stream capture of a queue, the graph instantiated once, launched
 * per execution. ZE_CUDA_GRAPHS=0 turns them off (every list then replays its commands). */
ZC_HIDDEN ze_result_t zc_capture_begin(zp_bqueue *q);
ZC_HIDDEN ze_result_t zc_capture_end(zp_bqueue *q, void **graph);
ZC_HIDDEN ze_result_t zc_graph_launch(zp_bqueue *q, void *graph, uint32_t nw, zp_btoken *const *waits,
                                      zp_btoken **done);
ZC_HIDDEN void zc_graph_destroy(void *graph);
/* Runs fn(data) on ze_cuda's host-task thread in stream order. */
ZC_HIDDEN ze_result_t zc_host_task(zp_bqueue *q, void (*fn)(void *data), void *data, uint32_t nw,
                                   zp_btoken *const *waits, zp_btoken **done);

/* The on-disk cache of compiled modules (cache.c); max_registers: the JIT's register limit (0: none), part of the
 * key. */
ZC_HIDDEN void zc_cache_key(const void *bitcode, size_t size, const char *flags, const struct zp_bdev *dev,
                            unsigned max_registers, char out[33]);
ZC_HIDDEN void *zc_cache_get(const char *key, size_t *size);
ZC_HIDDEN void zc_cache_put(const char *key, const void *data, size_t size);

#endif
