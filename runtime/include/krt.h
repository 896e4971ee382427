/*
 * krt.h: the public contract of krt, a kernel launch runtime over oneAPI Level Zero.
 *
 * krt loads SPIR-V modules, resolves kernels by name and launches them over a 1-3-D ndrange, choosing the
 * work-group size itself when the caller does not. Everything a program needs is in this header; all other
 * headers of the project are private.
 *
 * Conventions (see docs/api.md for every function in detail):
 *  - Every call that can fail returns krt_result; KRT_SUCCESS is 0. Outputs go through the last pointer
 *    argument, which is left untouched on failure unless the function says otherwise.
 *  - On failure, krt_last_error_message() (thread-local) says what was wrong: the argument, the limit, the
 *    validator's diagnostic or the driver's build log.
 *  - Options come in krt_*_desc structs in which a zero field means "the default". Pass NULL for a
 *    descriptor to take every default.
 *  - Handles are opaque. Destroying NULL does nothing. Objects created from a context should be destroyed
 *    before it; krt_context_destroy() releases whatever is left (modules, kernels, queues, events, and memory
 *    from krt_alloc()).
 *  - The library never prints, never exits and never aborts on a caller's error. Log lines go to the logger in
 *    krt_context_desc; KRT_TRACE=1 in the environment installs a stderr logger when none is given.
 *
 * Thread safety: every function may be called from any thread. Launching one kernel from several threads at
 * once is safe (krt serialises the per-kernel driver state). A queue may be used from several threads; the
 * order of commands appended concurrently to one queue is the order in which the calls took its lock.
 */
#ifndef KRT_H
#define KRT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(KRT_BUILDING_LIBRARY)
#define KRT_API __attribute__((visibility("default")))
#else
#define KRT_API
#endif

#define KRT_VERSION_MAJOR 0
#define KRT_VERSION_MINOR 1
#define KRT_VERSION_PATCH 0

/* ---------------------------------------------------------------------------------------------------------
 * Results
 * ------------------------------------------------------------------------------------------------------- */

/* X(NAME, value, description). One list generates the enum, krt_result_name() and krt_result_string(). */
#define KRT_RESULT_LIST(X)                                                                                   \
    X(SUCCESS, 0, "success")                                                                                 \
    X(NOT_READY, 1, "the event or queue has not completed yet")                                              \
    X(TIMEOUT, 2, "the wait timed out before completion")                                                    \
    X(ERROR_INVALID_ARGUMENT, -1, "an argument of the call is invalid")                                      \
    X(ERROR_OUT_OF_HOST_MEMORY, -2, "out of host memory")                                                    \
    X(ERROR_OUT_OF_DEVICE_MEMORY, -3, "out of device memory")                                                \
    X(ERROR_NO_DRIVER, -4, "no Level Zero driver could be loaded")                                           \
    X(ERROR_NO_DEVICE, -5, "no device matches the request")                                                  \
    X(ERROR_IO, -6, "a file could not be read")                                                              \
    X(ERROR_INVALID_MODULE, -7, "the SPIR-V module is invalid")                                              \
    X(ERROR_MODULE_BUILD_FAILURE, -8, "the driver failed to build the module")                               \
    X(ERROR_KERNEL_NOT_FOUND, -9, "no kernel of that name in the module")                                    \
    X(ERROR_INVALID_KERNEL_ARGUMENT, -10, "a kernel argument does not match the kernel's signature")         \
    X(ERROR_INVALID_NDRANGE, -11, "the ndrange is empty or too large")                                       \
    X(ERROR_INVALID_GROUP_SIZE, -12, "the group size is invalid for this kernel or device")                  \
    X(ERROR_INVALID_POINTER, -13, "a pointer is not an allocation known to the driver")                      \
    X(ERROR_UNSUPPORTED_FEATURE, -14, "the driver or device does not support this")                          \
    X(ERROR_DEVICE_LOST, -15, "the device was lost")                                                         \
    X(ERROR_INVALID_STATE, -16, "the object is not in a state that allows the call")                         \
    X(ERROR_DRIVER, -17, "the driver returned an unexpected error")                                          \
    X(ERROR_OUT_OF_BOUNDS, -18, "a checked kernel accessed memory outside every allocation it can reach")

typedef enum krt_result {
#define KRT_RESULT_ENUM_(name, value, text) KRT_##name = value,
    KRT_RESULT_LIST(KRT_RESULT_ENUM_)
#undef KRT_RESULT_ENUM_
} krt_result;

/* "KRT_ERROR_INVALID_MODULE" for KRT_ERROR_INVALID_MODULE; "KRT_UNKNOWN_RESULT" for a value not in the list.
 * The string is static. */
KRT_API const char *krt_result_name(krt_result result);
/* A one-line English description of the code. The string is static. */
KRT_API const char *krt_result_string(krt_result result);
/* What went wrong in the last failing krt call on this thread, in detail; "" when nothing failed yet. The
 * string belongs to krt and stays valid until the next krt call on the same thread. */
KRT_API const char *krt_last_error_message(void);

/* ---------------------------------------------------------------------------------------------------------
 * Handles
 * ------------------------------------------------------------------------------------------------------- */

typedef struct krt_context krt_context;
typedef struct krt_module krt_module;
typedef struct krt_kernel krt_kernel;
typedef struct krt_queue krt_queue;
typedef struct krt_event krt_event;

/* ---------------------------------------------------------------------------------------------------------
 * Logging
 * ------------------------------------------------------------------------------------------------------- */

typedef enum krt_log_level {
    KRT_LOG_ERROR = 0,
    KRT_LOG_WARNING = 1,
    KRT_LOG_INFO = 2,
    KRT_LOG_TRACE = 3, /* one line per launch: the configuration used */
} krt_log_level;

typedef struct krt_logger {
    /* Called from any thread krt runs on; must be thread-safe. message is valid during the call only. */
    void (*func)(void *user_data, krt_log_level level, const char *message);
    void *user_data;
    krt_log_level max_level; /* lines above this level are not produced; 0 = KRT_LOG_ERROR */
} krt_logger;

/* The stderr logger that KRT_TRACE=1 installs, for a program that wants krt's lines on stderr at a level of its
 * choosing: .logger = { krt_stderr_logger, NULL, KRT_LOG_WARNING } shows load warnings (see krt_module_info)
 * and errors. One line per call, "krt <level>: <message>". */
KRT_API void krt_stderr_logger(void *user_data, krt_log_level level, const char *message);

/* ---------------------------------------------------------------------------------------------------------
 * Context and device
 * ------------------------------------------------------------------------------------------------------- */

enum {
    /* Debug knob for benchmarks: no memoization on the launch path. Every dynamic launch re-queries the
     * driver's extension list and the kernel's properties and recomputes the configuration, as Level Zero
     * runtimes without a cache do. Never use it for real work. */
    KRT_CONTEXT_FLAG_NO_MEMO = 1u << 0,
    /* No staging memory: a krt_memcpy between devices that cannot reach each other (krt_context_can_access_peer)
     * is refused with KRT_ERROR_UNSUPPORTED_FEATURE instead of going through host memory. */
    KRT_CONTEXT_FLAG_NO_STAGING = 1u << 1,
};

/* Checked launches (krt_context_desc.checks; docs/api.md, "Checked launches"). */
typedef enum krt_check {
    KRT_CHECK_NONE = 0,
    /* Every load, store and atomic a kernel makes to global or constant memory through a pointer is checked against
     * the allocations of the context (krt_alloc): one outside them all is not made (a load yields 0), and the next
     * wait that covers the launch (krt_launch_sync, krt_queue_synchronize, krt_context_synchronize,
     * krt_event_synchronize) returns KRT_ERROR_OUT_OF_BOUNDS, its message naming the kernel, the work-item, the
     * address, the access and the nearest pointer argument with the offset past its allocation's end. On ze_pocl
     * and ze_cuda, and on the host device through checked libraries (krt-cc --host --checks), where a refused
     * access ends its work-group. */
    KRT_CHECK_BOUNDS = 1,
} krt_check;

typedef struct krt_context_desc {
    /* Which device: a case-insensitive substring of the device name, or a decimal index into the list
     * krt_device_list() returns. NULL: the KRT_DEVICE environment variable if set, else the first GPU of any
     * driver, else the first device. Tried before both: a kind, "cpu", "gpu", "fpga", "accelerator" or
     * "host" (any case; "cpu:1" is the second CPU); "host" is krt's own host device (kernels built with
     * krt-cc --host, run as native code), which is there whether or not the Level Zero loader is. */
    const char *device;
    /* Scratch memory a spilling kernel may use per work-group, in bytes; 0 = 1 MiB. See krt_launch_config. */
    size_t spill_budget;
    /* Minimum number of work-groups a dynamic launch aims for on small ranges; 0 = 16. */
    uint32_t min_groups;
    uint32_t flags; /* KRT_CONTEXT_FLAG_* */
    krt_logger logger; /* func NULL: no logging, unless KRT_TRACE=1 (then stderr, up to KRT_LOG_TRACE) */
    /* Several devices in one program (docs/api.md, "Several devices"): a context of the same driver whose Level
     * Zero context this one joins. The contexts stay one per device, but each may then copy between the other's
     * allocations and its own (krt_memcpy), wait on the other's events and pass the other's allocations to its
     * kernels where the device can reach them. NULL: a context of its own. */
    krt_context *share;
    /* Host memory for copies between devices that cannot reach each other, in bytes: such a copy goes through it
     * in pieces of this size. 0 = 4 MiB; allocated at the first such copy. See KRT_CONTEXT_FLAG_NO_STAGING. */
    size_t staging_bytes;
    /* KRT_CHECK_BOUNDS: every module of the context is built checked, at a cost (docs/performance.md). 0: the
     * KRT_CHECK environment variable ("bounds", or "none"/"" for none), else none. */
    uint32_t checks;
} krt_context_desc;

typedef enum krt_device_type {
    KRT_DEVICE_TYPE_OTHER = 0,
    KRT_DEVICE_TYPE_GPU = 1,
    KRT_DEVICE_TYPE_CPU = 2,
    KRT_DEVICE_TYPE_FPGA = 3,
    KRT_DEVICE_TYPE_ACCELERATOR = 4,
    KRT_DEVICE_TYPE_HOST = 5, /* krt's own host device: kernels compiled as C, run natively (docs/api.md) */
} krt_device_type;

/* "other", "GPU", "CPU", "FPGA", "accelerator", "host" for the values above, in order; "unknown" for any other value.
 * The string is static. */
KRT_API const char *krt_device_type_name(krt_device_type type);

typedef struct krt_device_info {
    char name[256];
    char driver_name[64];         /* "ze_pocl" for krt's CPU driver, "ze_cuda" for its NVIDIA driver, else the
                                   * driver's UUID in hex */
    krt_device_type type;
    uint32_t driver_index;        /* position of the driver in the loader's list */
    uint32_t device_index;        /* position of the device in that driver */
    uint32_t api_version_major, api_version_minor;
    uint32_t driver_version;
    uint32_t vendor_id;
    uint32_t compute_units;       /* EUs or cores: numSlices * numSubslicesPerSlice * numEUsPerSubslice */
    uint32_t clock_mhz;
    uint32_t max_group_size;      /* maxTotalGroupSize */
    uint32_t max_group[3];        /* maxGroupSizeX/Y/Z */
    uint32_t max_group_count[3];  /* maxGroupCountX/Y/Z */
    uint32_t max_shared_local_memory;
    uint32_t sub_group_sizes[8];
    uint32_t num_sub_group_sizes;
    uint64_t memory_bytes;        /* total of the device's memory properties */
    int fp16, fp64, int64_atomics;
    /* 1 when memory of every krt_alloc kind, KRT_MEMORY_DEVICE included, is the host's own memory: host code
     * (a memcpy, an MPI call) may read and write it directly once the queue that wrote it is idle. So on a CPU
     * device (ze_pocl) and on the host device. 0 on a GPU: its device memory is reached only by kernels and
     * krt_memcpy / krt_memfill; stage through KRT_MEMORY_HOST memory. */
    int device_memory_host_accessible;
} krt_device_info;

/* Lists every device of every driver the loader found, in the order used by the decimal form of
 * krt_context_desc.device. Two-call pattern: with infos NULL, *count receives the number of devices; else
 * up to *count entries are filled and *count receives the number filled.
 * Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT (count NULL); KRT_ERROR_NO_DRIVER (the loader found no
 * driver; the message says how to install one or point ZE_ENABLE_ALT_DRIVERS at one). */
KRT_API krt_result krt_device_list(krt_device_info *infos, uint32_t *count);

/* What became of one driver krt tried: the Level Zero driver libraries it named to the loader, in that order
 * (ZE_ENABLE_ALT_DRIVERS as the user set it, else krt's default list: the loader's GPU driver names, then
 * libze_cuda.so and libze_pocl.so beside libkrt), then libkrt's own host driver. A driver with no device is
 * invisible in krt_device_list; this says why it has none. */
typedef enum krt_driver_status {
    KRT_DRIVER_STATUS_DEVICES = 0,   /* loaded, with num_devices devices */
    KRT_DRIVER_STATUS_NO_DEVICE = 1, /* loaded, with no device: reason says why ("ZE_CUDA_DISABLE=1 is set") */
    KRT_DRIVER_STATUS_NOT_FOUND = 2, /* the library could not be loaded: reason holds the dynamic linker's words */
    KRT_DRIVER_STATUS_LOADED = 3,    /* loaded, but not one of krt's drivers, so it does not say: its devices, if
                                      * any, are in krt_device_list under its UUID */
} krt_driver_status;

/* "devices", "no device", "not found", "loaded"; "unknown" for other values. The string is static. */
KRT_API const char *krt_driver_status_name(krt_driver_status status);

typedef struct krt_driver_info {
    char name[64];            /* "ze_pocl", "ze_cuda", "host", or the library's file name for other drivers */
    char path[256];           /* the library as krt named it to the loader (cut to fit); "" for the host driver */
    krt_driver_status status;
    uint32_t num_devices;     /* with KRT_DRIVER_STATUS_DEVICES; else 0 */
    char reason[256];         /* with NO_DEVICE and NOT_FOUND: why, one line; else "" */
} krt_driver_info;

/* Lists the drivers krt tried (see krt_driver_info) and what became of each. Worked out once per process, after
 * zeInit, by asking each library krt named to the loader (dlopen of the loaded copy; krt's drivers export
 * zeKrtDriverStatus, docs/design.md); it works when the loader found no driver at all, which is when it helps
 * most. Two-call pattern as krt_device_list. Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT (count NULL). */
KRT_API krt_result krt_driver_list(krt_driver_info *infos, uint32_t *count);

/* Creates a context on one device, with its default queue (with desc->share: sharing that context's Level Zero
 * context, for work on several devices). zeInit runs once per process. When
 * ZE_ENABLE_ALT_DRIVERS is unset, krt first points the loader at the usual GPU driver names and at the
 * ze_pocl driver installed beside libkrt, so a machine without a GPU runs kernels on the CPU; an explicit
 * ZE_ENABLE_ALT_DRIVERS is used as it is, minus empty entries (on which the loader would crash).
 * Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT (out NULL, bad flags; desc->share a context of another driver
 * than the device chosen, the message names both: a context on share's own device is allowed; an unknown checks
 * value, or a KRT_CHECK that is not "bounds" or "none"); KRT_ERROR_NO_DRIVER; KRT_ERROR_NO_DEVICE (no device matches
 * desc->device / KRT_DEVICE); KRT_ERROR_UNSUPPORTED_FEATURE (checks on a device whose driver cannot check: the host
 * device, a vendor's driver); KRT_ERROR_OUT_OF_HOST_MEMORY; KRT_ERROR_DRIVER. */
KRT_API krt_result krt_context_create(const krt_context_desc *desc, krt_context **out);
/* Waits for all queues, then releases everything created from the context, including krt_alloc memory.
 * Pending host tasks run first; from a host task of the context the call is ignored (see krt_host_task). A context
 * that shares its Level Zero context leaves it; the last one to leave destroys it, in whatever order they go. */
KRT_API void krt_context_destroy(krt_context *ctx);
/* Fills *out with the context's device. Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT. */
KRT_API krt_result krt_context_device_info(krt_context *ctx, krt_device_info *out);
/* The driver's extensions (memoized per driver). Two-call pattern as krt_device_list. The names belong to
 * the context and live as long as it. Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT. */
KRT_API krt_result krt_context_extensions(krt_context *ctx, const char **names, uint32_t *count);
/* 1 if the context's driver advertises the extension, else 0 (also for NULL arguments). A lookup, never a
 * driver call after the first. */
KRT_API int krt_context_has_extension(krt_context *ctx, const char *name);
/* *out = 1 when the context's device can read and write the peer context's device memory directly, as the
 * driver reports it (zeDeviceCanAccessPeer; on ze_cuda, cuDeviceCanAccessPeer): a krt_memcpy on a queue of ctx
 * between the two is then one peer copy, and ctx's kernels may take peer's allocations as arguments. *out = 0:
 * krt_memcpy stages such copies through host memory, and a launch refuses the peer's device memory. 1 for two
 * contexts on the same device, and 1 for the host and shared memory of any context of the group (every device
 * reaches it). Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT (a NULL argument; contexts that do not share a
 * Level Zero context, see krt_context_desc.share). */
KRT_API krt_result krt_context_can_access_peer(krt_context *ctx, krt_context *peer, int *out);
/* Waits until every queue of the context is idle. Other threads may create, use and destroy queues meanwhile: a
 * queue destroyed during the wait is freed when the wait is over.
 * Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT; KRT_ERROR_INVALID_STATE (called from a host task of the
 * context, see krt_host_task); KRT_ERROR_OUT_OF_BOUNDS (a checked kernel's access was refused, KRT_CHECK_BOUNDS:
 * the queues are idle, the message says which access); KRT_ERROR_DEVICE_LOST; KRT_ERROR_DRIVER. */
KRT_API krt_result krt_context_synchronize(krt_context *ctx);

/* ---------------------------------------------------------------------------------------------------------
 * Memory (unified shared memory: the pointers are usable as kernel arguments)
 * ------------------------------------------------------------------------------------------------------- */

typedef enum krt_memory_kind {
    KRT_MEMORY_DEVICE = 0, /* the default */
    KRT_MEMORY_HOST = 1,
    KRT_MEMORY_SHARED = 2,
} krt_memory_kind;

typedef struct krt_alloc_desc {
    krt_memory_kind kind;
    size_t alignment; /* a power of two; 0 = 64 */
} krt_alloc_desc;

/* Allocates size bytes. The memory belongs to the caller until krt_free() or krt_context_destroy().
 * Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT (size 0, alignment not a power of two, bad kind, out NULL);
 * KRT_ERROR_OUT_OF_DEVICE_MEMORY (also for a size over the device's largest allocation, maxMemAllocSize: the
 * message gives the limit); KRT_ERROR_OUT_OF_HOST_MEMORY. */
KRT_API krt_result krt_alloc(krt_context *ctx, size_t size, const krt_alloc_desc *desc, void **out);
/* Frees memory from krt_alloc. The caller must make sure no queued command uses it. NULL does nothing.
 * Results: KRT_SUCCESS; KRT_ERROR_INVALID_POINTER (not an allocation of this context). */
KRT_API krt_result krt_free(krt_context *ctx, void *ptr);

/* Queued copy of size bytes between any two host or krt_alloc pointers; queue NULL = the context's default
 * queue. Ordered after earlier commands of the queue; host memory must stay valid until the queue has run it.
 * A pointer into a krt_alloc allocation must have size bytes left in it (krt checks; it cannot check host
 * memory), and the two regions must not overlap.
 * Between devices: either pointer may be an allocation of another context sharing ctx's Level Zero context
 * (krt_context_desc.share). Where ctx's device reaches the other's memory (krt_context_can_access_peer) the copy
 * is one queued peer copy like any other. Where it does not, krt stages the copy through host memory (the
 * context's staging_bytes, in pieces), using the queue for the part on ctx's device and an internal queue of the
 * other context for the rest: that copy waits for the queue's earlier commands and returns when it is complete
 * (as krt_memcpy_sync), and it cannot be recorded.
 * Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT (also a copy past the end of a krt_alloc allocation: the
 * message gives its size; or overlapping regions: the message gives the overlap); KRT_ERROR_UNSUPPORTED_FEATURE
 * (devices that cannot reach each other and a context with KRT_CONTEXT_FLAG_NO_STAGING: nothing is copied, the
 * message names both devices); KRT_ERROR_INVALID_STATE (a staged copy on a recording queue, or from a host task
 * of the queue); KRT_ERROR_OUT_OF_HOST_MEMORY (no staging memory could be allocated); KRT_ERROR_DRIVER. */
KRT_API krt_result krt_memcpy(krt_context *ctx, krt_queue *queue, void *dst, const void *src, size_t size);
/* Blocking copy: krt_memcpy, then waits until the queue has run it (and so every earlier command of the queue).
 * When it returns KRT_SUCCESS the bytes are at dst and src may go away: a stack variable can be the source or
 * the destination. Same results as krt_memcpy, plus those of krt_queue_synchronize. */
KRT_API krt_result krt_memcpy_sync(krt_context *ctx, krt_queue *queue, void *dst, const void *src, size_t size);
/* Queued fill of size bytes of dst with a pattern of pattern_size bytes (a power of two, 1..128; size a
 * multiple of it), done by krt's built-in fill kernel: the pattern is passed by value, nothing is
 * allocated and nothing waits. queue NULL = the context's default queue; dst must be from krt_alloc.
 * Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT (also a fill past the end of dst's allocation: the message
 * gives its size); KRT_ERROR_INVALID_POINTER. */
KRT_API krt_result krt_memfill(krt_context *ctx, krt_queue *queue, void *dst, const void *pattern,
                               size_t pattern_size, size_t size);

/* ---------------------------------------------------------------------------------------------------------
 * Queues and events
 * ------------------------------------------------------------------------------------------------------- */

typedef struct krt_queue_desc {
    uint32_t ordinal; /* command queue group ordinal; 0 = the first compute group */
} krt_queue_desc;

/* A queue is one in-order immediate command list. Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT;
 * KRT_ERROR_OUT_OF_HOST_MEMORY; KRT_ERROR_DRIVER. */
KRT_API krt_result krt_queue_create(krt_context *ctx, const krt_queue_desc *desc, krt_queue **out);
/* Waits for the queue, then destroys it. The default queue cannot be destroyed (ignored). */
KRT_API void krt_queue_destroy(krt_queue *queue);
/* The queue used when a call is given queue NULL. Never NULL for a live context. */
KRT_API krt_queue *krt_context_default_queue(krt_context *ctx);
/* Waits until every command appended to the queue has completed.
 * Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT; KRT_ERROR_INVALID_STATE (called from a host task of the
 * queue, see krt_host_task); KRT_ERROR_OUT_OF_BOUNDS (a checked kernel's access was refused, KRT_CHECK_BOUNDS: the
 * queue is idle, the message says which access); KRT_ERROR_DEVICE_LOST; KRT_ERROR_DRIVER. */
KRT_API krt_result krt_queue_synchronize(krt_queue *queue);
/* krt_queue_synchronize bounded by a timeout (UINT64_MAX: forever; 0: a poll), as zeCommandQueueSynchronize
 * takes one: a host notices a kernel that runs away (loops forever, or waits on an event nothing signals)
 * instead of blocking with it. On KRT_TIMEOUT the commands stay queued and keep running; krt cannot stop a
 * kernel that has started, and krt_queue_synchronize, krt_queue_destroy and krt_context_destroy still wait
 * for it (see docs/design.md, "Kernel code"). A later call, timed or not, picks up where this one stopped; a
 * poll may report KRT_TIMEOUT until the driver reaches the wait's barrier, even on an idle queue.
 * Results: KRT_SUCCESS; KRT_TIMEOUT (not complete within timeout_ns); KRT_ERROR_INVALID_ARGUMENT;
 * KRT_ERROR_INVALID_STATE (called from a host task of the queue); KRT_ERROR_DEVICE_LOST; KRT_ERROR_DRIVER. */
KRT_API krt_result krt_queue_synchronize_timeout(krt_queue *queue, uint64_t timeout_ns);

/* The backend's own queue under a krt queue, for ordering work of the backend's API against it: a CUstream on
 * ze_cuda (its ZE_krt_native_queue extension), which a DLPack or __cuda_array_interface__ producer can make wait
 * for its work. Work put on that stream runs after every command the queue has already submitted and before
 * every command appended after. The handle belongs to the queue; never destroy it.
 * Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT; KRT_ERROR_UNSUPPORTED_FEATURE (every other driver: ze_pocl,
 * the host device); KRT_ERROR_DRIVER. */
KRT_API krt_result krt_queue_native(krt_queue *queue, void **out);

enum {
    KRT_EVENT_FLAG_TIMESTAMP = 1u << 0, /* record kernel start/end for krt_event_kernel_time */
};

typedef struct krt_event_desc {
    uint32_t flags; /* KRT_EVENT_FLAG_* */
} krt_event_desc;

/* An event starts unsignalled; a command of the context's queues signals it (a launch, a host task, a replay,
 * krt_queue_barrier); a command can wait on it, on any queue of the context or of another context sharing its
 * Level Zero context (krt_context_desc.share): that is how a queue on one device waits for work on another. A
 * command signals only events of its own queue's context.
 * Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT; KRT_ERROR_OUT_OF_HOST_MEMORY; KRT_ERROR_DRIVER. */
KRT_API krt_result krt_event_create(krt_context *ctx, const krt_event_desc *desc, krt_event **out);
KRT_API void krt_event_destroy(krt_event *event);
/* Waits up to timeout_ns (UINT64_MAX: forever) for the event.
 * Results: KRT_SUCCESS (signalled); KRT_TIMEOUT; KRT_ERROR_INVALID_ARGUMENT; KRT_ERROR_OUT_OF_BOUNDS (signalled,
 * and a checked kernel's access was refused, KRT_CHECK_BOUNDS); KRT_ERROR_DEVICE_LOST. */
KRT_API krt_result krt_event_synchronize(krt_event *event, uint64_t timeout_ns);
/* Results: KRT_SUCCESS (signalled); KRT_NOT_READY; KRT_ERROR_INVALID_ARGUMENT. */
KRT_API krt_result krt_event_query(krt_event *event);
/* Returns the event to unsignalled. The caller must make sure no queued command still signals or waits on it.
 * Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT. */
KRT_API krt_result krt_event_reset(krt_event *event);
typedef struct krt_barrier_desc {
    krt_event *signal;            /* signalled when the barrier is passed; NULL = none; an event of the queue's context */
    krt_event *const *wait;       /* the queue's later commands wait for these too: events of any context sharing
                                   * the queue's Level Zero context */
    uint32_t num_wait;
} krt_barrier_desc;

/* Appends a barrier to the queue: its later commands start after its earlier ones and after the wait events are
 * signalled; then the signal event is signalled. With events of another device's context this orders a queue
 * after work on another device (a copy from memory a kernel there writes, for example). desc NULL: a barrier with
 * no events. On a recording queue the barrier is recorded (krt_recording_info.num_barriers).
 * Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT (queue NULL; wait NULL with num_wait > 0; a NULL wait event; a
 * wait event of a context that shares no Level Zero context with the queue's; a signal event of another
 * context); KRT_ERROR_OUT_OF_HOST_MEMORY; KRT_ERROR_DRIVER. */
KRT_API krt_result krt_queue_barrier(krt_queue *queue, const krt_barrier_desc *desc);

/* Start and end of the kernel that signalled a KRT_EVENT_FLAG_TIMESTAMP event, in device nanoseconds.
 * Results: KRT_SUCCESS; KRT_NOT_READY (not signalled yet); KRT_ERROR_INVALID_ARGUMENT (NULL, or the event
 * was created without KRT_EVENT_FLAG_TIMESTAMP); KRT_ERROR_UNSUPPORTED_FEATURE. */
KRT_API krt_result krt_event_kernel_time(krt_event *event, uint64_t *start_ns, uint64_t *end_ns);

/* ---------------------------------------------------------------------------------------------------------
 * Modules and reflection
 * ------------------------------------------------------------------------------------------------------- */

typedef enum krt_validation {
    /* Default. The SPIR-V must parse (magic, version, bounds, every instruction well formed) and pass
     * SPIRV-Tools validation, except for the block-order rules that optimised clang + llvm-spirv output
     * breaks (blocks before their dominator, OpLoopMerge placement), which drivers accept, and for what the
     * validator cannot judge of extensions: the hints of SPV_INTEL_memory_access_aliasing, which krt checks
     * itself, and, in a module declaring an extension the installed SPIRV-Tools does not know, the
     * instructions of that kind it refuses (the driver judges those). Block order and unknown extensions are
     * reported as a KRT_LOG_WARNING and the module loads; any other validator error rejects it. */
    KRT_VALIDATION_DEFAULT = 0,
    KRT_VALIDATION_STRICT = 1, /* every spirv-val error rejects the module */
    KRT_VALIDATION_NONE = 2,   /* parse only (still rejects what cannot be reflected) */
} krt_validation;

typedef struct krt_spec_constant {
    uint32_t id;       /* the SpecId decoration */
    const void *value; /* size bytes */
    size_t size;       /* must equal the constant's width in the module: 4 for int, 8 for long, 1 for bool */
} krt_spec_constant;

typedef struct krt_module_desc {
    /* Exactly one of: code (size bytes of SPIR-V, copied by krt during the call), path (a regular .spv file;
     * opened without blocking, so a FIFO or device is refused rather than waited on) or source (below). */
    const void *code;
    size_t size;
    const char *path;
    const char *build_options; /* passed to the driver as is; NULL = none */
    const krt_spec_constant *spec_constants;
    uint32_t num_spec_constants;
    krt_validation validation;
    /* OpenCL C instead of SPIR-V: source is the NUL-terminated text, given instead of code and path; a path
     * ending in ".cl" is read as OpenCL C source too. krt compiles it with krt-cc (installed beside libkrt; $KRT_CC
     * overrides), with the flags and spirv-val check of krt's own kernels; krt_kernel.h is on the include path.
     * Needs clang-15, llvm-spirv-15 and spirv-val at run time: KRT_ERROR_UNSUPPORTED_FEATURE names what is
     * missing. */
    const char *source;
    /* For OpenCL C: options for the compiler, split at white space (-D NAME=VALUE, -I DIR, -cl-...); NULL = none.
     * build_options still goes to the driver. */
    const char *compile_options;
    /* The host device only (KRT_DEVICE_TYPE_HOST): the native library holding the module's kernels, compiled from
     * the same .cl as C (docs/api.md, "The host device"). NULL = <dir>/host/<stem>.so beside a .spv path; for
     * OpenCL C (source or a .cl path) krt compiles one with krt-cc --host; a module given as code has no default.
     * Other devices ignore it. */
    const char *host_library;
} krt_module_desc;

/* Validates, reflects and builds a SPIR-V module. Whatever the bytes are, the call returns an error or a
 * working module within time and memory bounded by the module's size (docs/design.md, "Robustness").
 * Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT (desc NULL, not exactly one of code, path and source, a
 * size over PTRDIFF_MAX, a specialization constant whose size differs from its width in the module: the
 * message names it); KRT_ERROR_IO (path unreadable or not a regular file); KRT_ERROR_INVALID_MODULE (empty,
 * truncated, wrong magic, malformed, invalid, an id bound over SPIR-V's 4194303: the message has the
 * diagnostic and word offset); KRT_ERROR_MODULE_BUILD_FAILURE (the message has the driver's build log, or the
 * compiler's diagnostic for OpenCL C); KRT_ERROR_UNSUPPORTED_FEATURE (a capability the device lacks, or OpenCL
 * C without krt-cc or the compilers it runs: the message names it);
 * KRT_ERROR_OUT_OF_HOST_MEMORY. */
KRT_API krt_result krt_module_create(krt_context *ctx, const krt_module_desc *desc, krt_module **out);
/* Destroys the module and its kernels. The caller must make sure no queued launch still uses them. */
KRT_API void krt_module_destroy(krt_module *module);
/* Kernel names of the module, in module order. Two-call pattern. The names live as long as the module.
 * Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT. */
KRT_API krt_result krt_module_kernel_names(krt_module *module, const char **names, uint32_t *count);

/* What krt_module_create learnt about a module beyond its kernels: how many kernels, and the warnings of the
 * load (today: the validator's diagnostics that KRT_VALIDATION_DEFAULT accepts, and kernels whose result may
 * depend on their group size), the same lines the logger received as KRT_LOG_WARNING. krt-info prints them. */
typedef struct krt_module_info {
    uint32_t num_kernels;
    uint32_t num_warnings;
    const char *const *warnings; /* num_warnings lines (NULL when none); they live as long as the module */
} krt_module_info;

/* Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT (module or out NULL). */
KRT_API krt_result krt_module_info_get(krt_module *module, krt_module_info *out);

typedef enum krt_arg_kind {
    KRT_ARG_GLOBAL_POINTER = 0,   /* __global T*: pass a pointer from krt_alloc */
    KRT_ARG_CONSTANT_POINTER = 1, /* __constant T*: pass a pointer from krt_alloc */
    KRT_ARG_LOCAL_POINTER = 2,    /* __local T*: pass KRT_ARG_LOCAL(bytes) */
    KRT_ARG_SCALAR = 3,           /* int, float, vectors of them: pass the value */
    KRT_ARG_STRUCT = 4,           /* a struct by value: pass its bytes */
    KRT_ARG_OTHER = 5,            /* images, samplers, ...: not supported by krt_launch */
} krt_arg_kind;

typedef enum krt_scalar_type {
    KRT_TYPE_NONE = 0, /* pointers and structs */
    KRT_TYPE_INT8, KRT_TYPE_INT16, KRT_TYPE_INT32, KRT_TYPE_INT64, /* SPIR-V integers carry no sign */
    KRT_TYPE_FLOAT16, KRT_TYPE_FLOAT32, KRT_TYPE_FLOAT64,
    KRT_TYPE_BOOL,
} krt_scalar_type;

/* Static names for logs and tables, one per value, in order:
 *   krt_arg_kind_name:    "global pointer", "constant pointer", "local pointer", "scalar", "struct", "other";
 *   krt_scalar_type_name: "none", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "bool".
 * Both return "unknown" for a value not in the enum. */
KRT_API const char *krt_arg_kind_name(krt_arg_kind kind);
KRT_API const char *krt_scalar_type_name(krt_scalar_type type);

typedef struct krt_arg_info {
    krt_arg_kind kind;
    krt_scalar_type type;  /* scalars: the element type; pointers: the pointee's element type if scalar */
    uint32_t vector_width; /* 1 for plain scalars */
    uint32_t size;         /* bytes the launch must pass: sizeof(void*) for pointers, 0 for local pointers */
    const char *name;      /* from OpName; "" when the module carries no names */
    /* The OpenCL C type as the kernel declares it ("uint", "float*", "float4"): SPIR-V integers carry no sign,
     * but a module built by krt-cc keeps its kernels' declared types (llvm-spirv's kernel_arg_type strings).
     * "" when the module carries none. */
    const char *type_name;
} krt_arg_info;

typedef struct krt_kernel_info {
    const char *name;
    uint32_t num_args;
    uint32_t required_group[3]; /* reqd_work_group_size, or 0,0,0 */
    uint32_t group_hint[3];     /* work_group_size_hint, or 0,0,0; krt_launch_config_get aims at it */
    /* Read from the kernel's call tree in the SPIR-V; the launch configuration uses them (docs/design.md). */
    int uses_barrier;           /* 1: a work-group barrier (OpControlBarrier) or collective at Workgroup scope */
    int uses_static_local;      /* 1: static __local memory (a Workgroup variable) */
    uint32_t local_args;        /* number of __local pointer arguments */
    /* The static __local variables of the call tree as messages name them, "tile (1296 bytes), ..."; "" for none. */
    const char *local_vars;
    /* 1: the kernel's source says its result does not depend on its group size (KRT_ANY_GROUP(name), krt_kernel.h),
     * or, from krt_kernel_info_get, its caller said so (krt_kernel_set_any_group). */
    int any_group;
    /* 1: the kernel's result may depend on its group size, so krt does not choose one for it: it keeps kernel-scope
     * __local memory across work-group barriers (uses_barrier and uses_static_local) and has neither a
     * reqd_work_group_size nor KRT_ANY_GROUP. Launch it with a group (krt_launch_desc.group), or say that any group
     * is right: KRT_ANY_GROUP(name) in its source, or krt_kernel_set_any_group (after which krt_kernel_info_get
     * reports 0). docs/design.md, "Groups krt does not choose". */
    int group_dependent;
} krt_kernel_info;

/* Reflection straight from the SPIR-V, without building a kernel. Strings live as long as the module.
 * Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT; KRT_ERROR_KERNEL_NOT_FOUND. */
KRT_API krt_result krt_module_kernel_info(krt_module *module, const char *kernel_name, krt_kernel_info *out);
/* Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT (index out of range names the count);
 * KRT_ERROR_KERNEL_NOT_FOUND. */
KRT_API krt_result krt_module_arg_info(krt_module *module, const char *kernel_name, uint32_t index,
                                       krt_arg_info *out);

/* ---------------------------------------------------------------------------------------------------------
 * Kernels
 * ------------------------------------------------------------------------------------------------------- */

/* The kernel of that name, created once per module and memoized: a second call returns the same handle.
 * Kernels belong to their module; there is no kernel destroy.
 * Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT; KRT_ERROR_KERNEL_NOT_FOUND (the message lists the
 * module's kernels); KRT_ERROR_DRIVER. */
KRT_API krt_result krt_kernel_get(krt_module *module, const char *name, krt_kernel **out);
/* Same as krt_module_kernel_info for this kernel. */
KRT_API krt_result krt_kernel_info_get(krt_kernel *kernel, krt_kernel_info *out);
/* The caller's word that the kernel computes the same result whatever its group size (any = 1), as
 * KRT_ANY_GROUP(name) in its source says it; any = 0 takes it back. krt then chooses the group of a kernel it
 * would otherwise leave to the caller (krt_kernel_info.group_dependent): a histogram whose __local bins every
 * work-item of a group adds to is right for any group, a tile sized for 16 x 16 items is not. For the kernel's
 * every launch, krt_launch_config_get and krt_kernel_tune, from any thread; launches already appended keep the
 * group they got. Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT (kernel NULL, any not 0 or 1). */
KRT_API krt_result krt_kernel_set_any_group(krt_kernel *kernel, int any);
KRT_API krt_result krt_kernel_arg_info(krt_kernel *kernel, uint32_t index, krt_arg_info *out);

typedef struct krt_kernel_properties {
    uint32_t num_args;
    uint32_t required_group[3];   /* 0,0,0 when none */
    uint32_t max_group_size;      /* from ZE_extension_kernel_max_group_size_properties, else the device's */
    int max_group_size_from_extension;
    uint32_t preferred_multiple;  /* from ze_kernel_preferred_group_size_properties_t; 1 when unknown */
    uint32_t local_mem_size;      /* static local memory, bytes per group */
    uint32_t private_mem_size;    /* bytes per work-item */
    uint32_t spill_mem_size;      /* scratch bytes per work-item */
} krt_kernel_properties;

/* The driver's view of the kernel, queried once through zeKernelGetProperties and memoized.
 * Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT; KRT_ERROR_DRIVER. */
KRT_API krt_result krt_kernel_properties_get(krt_kernel *kernel, krt_kernel_properties *out);

/* ---------------------------------------------------------------------------------------------------------
 * Launch
 * ------------------------------------------------------------------------------------------------------- */

/* The C type of a typed kernel argument (krt_arg.type). KRT_ARG and the KRT_I32-style helpers below record it;
 * krt_launch checks it against the reflected type: an integer matches a kernel integer of the same width
 * whatever the sign (SPIR-V integers carry none), float matches float, double matches double, a pointer
 * matches a global or constant pointer, and nothing typed matches a vector, a struct or half. A mismatch is
 * KRT_ERROR_INVALID_KERNEL_ARGUMENT naming both types, e.g. "argument 3 (alpha) of gemm is float but an
 * int32_t was passed". KRT_ARG_TYPE_NONE (0) is an untyped argument: only its size is checked, for vectors,
 * structs, half, and embedders that marshal bytes. */
typedef enum krt_arg_type {
    KRT_ARG_TYPE_NONE = 0,
    KRT_ARG_TYPE_INT8, KRT_ARG_TYPE_UINT8, KRT_ARG_TYPE_INT16, KRT_ARG_TYPE_UINT16,
    KRT_ARG_TYPE_INT32, KRT_ARG_TYPE_UINT32, KRT_ARG_TYPE_INT64, KRT_ARG_TYPE_UINT64,
    KRT_ARG_TYPE_FLOAT, KRT_ARG_TYPE_DOUBLE, KRT_ARG_TYPE_POINTER,
    /* Not a C type: a __local argument whose size is bytes per work-item (KRT_ARG_LOCAL_PER_ITEM). */
    KRT_ARG_TYPE_LOCAL_PER_ITEM,
} krt_arg_type;

/* "untyped", "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t", "float",
 * "double", "pointer", "__local bytes per work-item", in enum order; "unknown" for a value not in the enum. The
 * string is static. */
KRT_API const char *krt_arg_type_name(krt_arg_type type);

/* One kernel argument: size bytes at value. For a pointer argument value points at the pointer; for a
 * __local argument value is NULL and size is the number of bytes per work-group, or, with type
 * KRT_ARG_TYPE_LOCAL_PER_ITEM, per work-item of the group the launch gets. type is the C type of the
 * value (see krt_arg_type); 0, the default of an initializer that leaves it out, means untyped. (GCC's
 * -Wmissing-field-initializers, part of -Wextra, flags a positional { &x, sizeof x } that leaves it out; a
 * designated { .value = &x, .size = sizeof x } is not flagged.) */
typedef struct krt_arg {
    const void *value;
    size_t size;
    krt_arg_type type;
} krt_arg;

/* KRT_ARG(x): the variable x by address, typed by its C type: in C11 and later through _Generic (the integer
 * types, float, double, and pointers to them or to void, const or not), in C++ through overloads (any pointer);
 * any other type (a struct, an array, a vector type) is passed untyped. x must be an lvalue that outlives the
 * launch call; for a value (KRT_ARG(3.0f), KRT_ARG(n - 1)) use the typed helpers below (KRT_F32, KRT_I32, ...):
 * in C the compiler's error then names them through the macro it expands, KRT_ARG_WANTS_A_VARIABLE_..., and in
 * C++ an rvalue does not compile. Before C11, KRT_ARG is untyped.
 * KRT_ARG_LOCAL(bytes): a __local argument of bytes per work-group.
 * KRT_ARG_LOCAL_PER_ITEM(bytes): a __local argument of bytes per work-item of whatever group the launch gets (a
 * reduction's scratch of one float per item: KRT_ARG_LOCAL_PER_ITEM(sizeof(float))): krt sets group items * bytes,
 * and when it chooses the group it keeps every __local byte within the device's local memory (KRT_LIMIT_LOCAL_MEMORY).
 * One launch, where sizing a __local argument by krt's group once took krt_launch_config_get first. */
#if defined(__cplusplus)
#define KRT_ARG(x) krt__arg_of(x)
#define KRT_ARG_LOCAL(bytes) krt__arg_local(bytes)
#define KRT_ARG_LOCAL_PER_ITEM(bytes) krt__arg_local_per_item(bytes)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define KRT_ARG(x) ((krt_arg){ KRT_ARG_WANTS_A_VARIABLE_for_a_value_use_KRT_F32_KRT_I32_etc(x), sizeof(x), \
                              KRT__ARG_TYPE_OF(x) })
#define KRT_ARG_LOCAL(bytes) ((krt_arg){ NULL, (bytes), KRT_ARG_TYPE_NONE })
#define KRT_ARG_LOCAL_PER_ITEM(bytes) ((krt_arg){ NULL, (bytes), KRT_ARG_TYPE_LOCAL_PER_ITEM })
#else
#define KRT_ARG(x) ((krt_arg){ KRT_ARG_WANTS_A_VARIABLE_for_a_value_use_KRT_F32_KRT_I32_etc(x), sizeof(x), \
                              KRT_ARG_TYPE_NONE })
#define KRT_ARG_LOCAL(bytes) ((krt_arg){ NULL, (bytes), KRT_ARG_TYPE_NONE })
#define KRT_ARG_LOCAL_PER_ITEM(bytes) ((krt_arg){ NULL, (bytes), KRT_ARG_TYPE_LOCAL_PER_ITEM })
#endif

#if !defined(__cplusplus)
/* KRT_ARG's address of x, under a name that compilers print when x is a value rather than a variable ("lvalue
 * required as unary '&' operand ... in expansion of macro KRT_ARG_WANTS_A_VARIABLE_..."), naming the fix. */
#define KRT_ARG_WANTS_A_VARIABLE_for_a_value_use_KRT_F32_KRT_I32_etc(x) (&(x))
/* Rvalue arguments (C only): typed helpers that take a value, not a variable, e.g. KRT_I32(n - k - 1),
 * KRT_F32(alpha), KRT_PTR(buffer + offset). The value is converted to the helper's type as by assignment and
 * stored in a compound literal, which lives until the end of the enclosing block: build the argument array in
 * the block that launches. */
#define KRT_I8(v) ((krt_arg){ &(int8_t){ (v) }, sizeof(int8_t), KRT_ARG_TYPE_INT8 })
#define KRT_U8(v) ((krt_arg){ &(uint8_t){ (v) }, sizeof(uint8_t), KRT_ARG_TYPE_UINT8 })
#define KRT_I16(v) ((krt_arg){ &(int16_t){ (v) }, sizeof(int16_t), KRT_ARG_TYPE_INT16 })
#define KRT_U16(v) ((krt_arg){ &(uint16_t){ (v) }, sizeof(uint16_t), KRT_ARG_TYPE_UINT16 })
#define KRT_I32(v) ((krt_arg){ &(int32_t){ (v) }, sizeof(int32_t), KRT_ARG_TYPE_INT32 })
#define KRT_U32(v) ((krt_arg){ &(uint32_t){ (v) }, sizeof(uint32_t), KRT_ARG_TYPE_UINT32 })
#define KRT_I64(v) ((krt_arg){ &(int64_t){ (v) }, sizeof(int64_t), KRT_ARG_TYPE_INT64 })
#define KRT_U64(v) ((krt_arg){ &(uint64_t){ (v) }, sizeof(uint64_t), KRT_ARG_TYPE_UINT64 })
#define KRT_F32(v) ((krt_arg){ &(float){ (v) }, sizeof(float), KRT_ARG_TYPE_FLOAT })
#define KRT_F64(v) ((krt_arg){ &(double){ (v) }, sizeof(double), KRT_ARG_TYPE_DOUBLE })
#define KRT_PTR(p) ((krt_arg){ &(const void *){ (p) }, sizeof(void *), KRT_ARG_TYPE_POINTER })
#endif

#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
/* KRT_ARG's type tag. An array decays to a pointer in _Generic, so a pointer type counts only when x has a
 * pointer's size (an array of pointer size, rare as an argument, is then taken for a pointer: pass it with an
 * untyped krt_arg). */
#define KRT__PTR_OF_(x) (sizeof(x) == sizeof(void *) ? KRT_ARG_TYPE_POINTER : KRT_ARG_TYPE_NONE)
#define KRT__PTR_CASES_(T, x) T *: KRT__PTR_OF_(x), const T *: KRT__PTR_OF_(x),
#define KRT__ARG_TYPE_OF(x)                                                                                  \
    _Generic((x),                                                                                            \
        char: KRT_ARG_TYPE_INT8,                                                                             \
        signed char: KRT_ARG_TYPE_INT8, unsigned char: KRT_ARG_TYPE_UINT8,                                   \
        short: KRT_ARG_TYPE_INT16, unsigned short: KRT_ARG_TYPE_UINT16,                                      \
        int: KRT_ARG_TYPE_INT32, unsigned int: KRT_ARG_TYPE_UINT32,                                          \
        long: (sizeof(long) == 8 ? KRT_ARG_TYPE_INT64 : KRT_ARG_TYPE_INT32),                                 \
        unsigned long: (sizeof(long) == 8 ? KRT_ARG_TYPE_UINT64 : KRT_ARG_TYPE_UINT32),                      \
        long long: KRT_ARG_TYPE_INT64, unsigned long long: KRT_ARG_TYPE_UINT64,                              \
        float: KRT_ARG_TYPE_FLOAT, double: KRT_ARG_TYPE_DOUBLE,                                              \
        KRT__PTR_CASES_(void, x) KRT__PTR_CASES_(char, x) KRT__PTR_CASES_(signed char, x)                    \
        KRT__PTR_CASES_(unsigned char, x) KRT__PTR_CASES_(short, x) KRT__PTR_CASES_(unsigned short, x)       \
        KRT__PTR_CASES_(int, x) KRT__PTR_CASES_(unsigned int, x) KRT__PTR_CASES_(long, x)                    \
        KRT__PTR_CASES_(unsigned long, x) KRT__PTR_CASES_(long long, x)                                      \
        KRT__PTR_CASES_(unsigned long long, x) KRT__PTR_CASES_(float, x) KRT__PTR_CASES_(double, x)          \
        default: KRT_ARG_TYPE_NONE)
#endif

/* A 1-3-D range of work-items. dims 0 means: the highest dimension whose size is not 0. Unused dimensions
 * count as 1. */
typedef struct krt_ndrange {
    uint32_t dims;
    uint64_t size[3];
} krt_ndrange;

/* Which rule fixed the group size krt chose. */
typedef enum krt_limit {
    KRT_LIMIT_NONE = 0,          /* the range itself: the whole range fits in one group */
    KRT_LIMIT_STATIC = 1,        /* the caller gave the group size */
    KRT_LIMIT_REQUIRED = 2,      /* the kernel's reqd_work_group_size */
    KRT_LIMIT_KERNEL_MAX = 3,    /* the kernel's max group size (extension) */
    KRT_LIMIT_DEVICE_MAX = 4,    /* the device's maxTotalGroupSize / per-dimension maxima */
    KRT_LIMIT_LOCAL_MEMORY = 5,  /* static + argument local memory against maxSharedLocalMemory */
    KRT_LIMIT_SPILL = 6,         /* the spill-aware cap: group * spill within the budget */
    KRT_LIMIT_MIN_GROUPS = 7,    /* shrunk so a small range still gives min_groups groups */
    KRT_LIMIT_HINT = 8,          /* the kernel's work_group_size_hint, used as it is (see krt_launch_config_get) */
    KRT_LIMIT_BARRIER = 9,       /* a barrier kernel on a CPU device: small groups (docs/design.md) */
    KRT_LIMIT_SHAPE = 10,        /* the device type's aim: the CPU's 2-D / 3-D tile, a GPU's 256 items */
    KRT_LIMIT_TUNED = 11,        /* measured by krt_kernel_tune or loaded from wisdom */
} krt_limit;

/* The limit's short name, as the KRT_TRACE line and krt's tools print it, in enum order: "range", "static",
 * "required", "kernel-max", "device-max", "local-memory", "spill", "min-groups", "hint", "barrier", "shape",
 * "tuned"; "unknown" for a value
 * not in the enum. The string is static. */
KRT_API const char *krt_limit_name(krt_limit limit);

typedef struct krt_launch_config {
    uint32_t dims;
    uint32_t group[3];           /* work-items per group, per dimension */
    uint32_t groups[3];          /* number of groups per dimension: ceil(range / group) */
    uint32_t max_group_size;     /* the bound before the spill cap and range shaping */
    uint32_t preferred_multiple;
    uint32_t spill_mem_size;     /* bytes per work-item the cap worked with */
    krt_limit limit;             /* the rule that decided */
    int masked;                  /* 1 when a last group is partial: the range is not a multiple of the group */
} krt_launch_config;

/* The configuration krt_launch would use for this kernel and range with no static group size. Memoized per
 * (kernel, ndrange), like a launch.
 *
 * The launch contract: every launch is exact. The kernel body runs for exactly the range's work-items, whatever
 * group krt chooses or the caller gives, with OpenCL 2.0's non-uniform work-groups: krt launches
 * ceil(size[d] / group[d]) groups in each dimension (groups[d]); get_global_size(d) is the range,
 * get_num_groups(d) is groups[d], and the last group of a dimension is partial: get_local_size(d) is its real
 * size there, get_enqueued_local_size(d) the group's. Barriers and __local memory work within a partial group.
 * A kernel needs no guard of its own (kernels written for OpenCL or SYCL carry none), and guards it has are
 * harmless. A kernel that needs whole groups (a tiled kernel whose items each load one element of a tile) is
 * launched over a range padded to whole groups by its caller and guards, as in OpenCL 1.2. krt never shrinks
 * the group size to 1 to make a prime range divide evenly. (On a Level Zero driver without krt's
 * ZE_krt_exact_range extension, krt's own groups divide the range instead, and a static or required group that
 * does not is refused with KRT_ERROR_INVALID_GROUP_SIZE; docs/design.md, "Exact ranges".)
 * One rule for groups, whoever picks them: a static group, the caller's own shape (as a ported OpenCL program gives
 * it), runs as krt's own would. A range that is not a multiple of it gets a partial last group, and a range smaller
 * than it in a dimension one partial group there, of the range's size (get_local_size(d) is the range's,
 * get_enqueued_local_size(d) the group's). So the group krt reports for a small range (its usual shape, kept so
 * that a backend compiles few shapes) is the group that runs, and a caller may give it back as a static group.
 *
 * krt does not choose the group of a kernel whose result may depend on it (krt_kernel_info.group_dependent: kernel-
 * scope __local memory shared across barriers, no reqd_work_group_size): krt_launch_config_get and a launch without
 * a group return KRT_ERROR_INVALID_GROUP_SIZE naming the kernel, its __local variables and the ways out (a static
 * group, reqd_work_group_size, or KRT_ANY_GROUP / krt_kernel_set_any_group where any group is right).
 *
 * A kernel's work_group_size_hint(x,y,z) is a soft preference: when the kernel has no reqd_work_group_size
 * (which always wins) and the caller gives no group size, krt aims at the hint's shape instead of the largest
 * group the kernel allows, still subject to every limit: maxGroupSize{X,Y,Z}, the kernel's or device's
 * maximum and the spill cap (the shape shrinks from its highest dimension first), no group larger than the
 * range in a dimension, and min_groups on small ranges. limit is KRT_LIMIT_HINT when the hint is used as it
 * is, else the limit that changed it. This is how a kernel tells krt which size suits its algorithm (a tree
 * reduction on a CPU device wants small groups).
 * Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT; KRT_ERROR_INVALID_NDRANGE (as for krt_launch);
 * KRT_ERROR_INVALID_GROUP_SIZE (the kernel's reqd_work_group_size exceeds the device's limits; a kernel whose
 * group krt does not choose, see above); KRT_ERROR_INVALID_KERNEL_ARGUMENT (the kernel's static local memory
 * exceeds the device's); KRT_ERROR_DRIVER. */
KRT_API krt_result krt_launch_config_get(krt_kernel *kernel, const krt_ndrange *range, krt_launch_config *out);

typedef struct krt_launch_desc {
    krt_ndrange range;
    uint32_t group[3];            /* static group size; all 0 = krt chooses; unused dimensions may be 0 */
    const krt_arg *args;
    uint32_t num_args;
    krt_queue *queue;             /* NULL = the context's default queue */
    krt_event *signal;            /* signalled when the kernel completes; NULL = none */
    krt_event *const *wait;       /* the kernel starts after these are signalled (events of any context sharing
                                   * the queue's Level Zero context: krt_context_desc.share) */
    uint32_t num_wait;
} krt_launch_desc;

/* Appends a kernel launch to the queue and returns without waiting. Arguments are checked against the
 * reflected signature: count, kind, C type (typed arguments, see krt_arg_type) and size, and every
 * global/constant pointer must be an allocation known to the driver (or NULL). Argument values are captured by
 * the call: the caller may change them afterwards.
 * Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT (desc NULL, args NULL with num_args > 0, num_wait > 0 with
 * wait NULL); KRT_ERROR_INVALID_KERNEL_ARGUMENT (count, kind, C type or size, the message names the argument
 * and, for a C type, both types; or
 * static plus argument __local memory over the device's maxSharedLocalMemory (with KRT_ARG_LOCAL_PER_ITEM, for the
 * static group, or for one work-item when krt chooses), or a __local argument the driver
 * refuses for the local memory it gives the kernel: ze_pocl gives every kernel all of its module's __local
 * variables);
 * KRT_ERROR_INVALID_POINTER (a pointer argument that is not an allocation; the message names it);
 * KRT_ERROR_INVALID_NDRANGE (a zero size; more groups than the device allows, which a range near 2^64 always
 * needs; or more work-items than a 64-bit linear id can number, the product of the sizes or of the whole groups
 * launched above 2^64 - 1, as 2^32 in each of three dimensions is: the message names the sizes);
 * KRT_ERROR_INVALID_GROUP_SIZE (a static size over the device or kernel limits, or against the kernel's
 * required size; no static size for a kernel whose group krt does not choose, krt_launch_config_get);
 * KRT_ERROR_DRIVER; KRT_ERROR_DEVICE_LOST. */
KRT_API krt_result krt_launch(krt_kernel *kernel, const krt_launch_desc *desc);

/* Convenience: launch and wait for the queue. Same results as krt_launch, plus those of
 * krt_queue_synchronize. */
KRT_API krt_result krt_launch_sync(krt_kernel *kernel, const krt_launch_desc *desc);

/* ---------------------------------------------------------------------------------------------------------
 * Host tasks: a C callback in queue order (SYCL's host_task, CUDA's cuLaunchHostFunc)
 * ------------------------------------------------------------------------------------------------------- */

typedef void (*krt_host_fn)(void *data);

typedef struct krt_host_task_desc {
    krt_host_fn fn;               /* required */
    void *data;                   /* passed to fn as it is; krt never reads it */
    krt_queue *queue;             /* NULL = the context's default queue */
    krt_event *signal;            /* signalled after fn returns; NULL = none. Not a KRT_EVENT_FLAG_TIMESTAMP
                                   * event: a host task has no kernel time */
    krt_event *const *wait;       /* fn runs after these are signalled (and after the queue's earlier work) */
    uint32_t num_wait;
} krt_host_task_desc;

/* Appends a host task to the queue and returns without waiting: fn(data) runs once every command appended to
 * the queue before it has completed and every wait event is signalled; the queue's later commands start after
 * fn has returned. fn runs on a thread krt owns, one per queue, started at the queue's first host task (a
 * program that never calls this pays nothing), with asynchronous signals blocked (a fault's signal stays
 * open); the host tasks of one queue run one at a time in append order, those of different queues
 * concurrently.
 * fn returns nothing: an error inside it is the caller's to report, for example through a status field in
 * data that the caller reads after a synchronize or from a later host task. krt's own message for a krt call
 * that fails inside fn is on fn's thread (krt_last_error_message there).
 * fn may call krt: launch, copy and enqueue host tasks, on its own queue too (they run after it). It must not
 * wait for its own queue: krt_queue_synchronize, _timeout, krt_launch_sync, krt_memcpy_sync and
 * krt_kernel_tune on that queue and krt_context_synchronize of its context return KRT_ERROR_INVALID_STATE,
 * and krt_queue_destroy of its queue and krt_context_destroy of its context are ignored (a KRT_LOG_ERROR
 * line says so). Waiting on an event that only a later command of its own queue signals can never end and
 * cannot be detected. A synchronize from another thread while fn blocks returns KRT_TIMEOUT if timed, else
 * waits for fn; krt_queue_destroy and krt_context_destroy wait for every pending host task to run and for the
 * work those tasks append meanwhile (see docs/api.md). A failing call never runs fn; on KRT_SUCCESS fn runs exactly once, unless the driver loses
 * the device before (then fn is skipped and the signal event is still signalled, so that nothing hangs).
 * Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT (ctx, desc or fn NULL; wait NULL with num_wait > 0; a NULL
 * wait event; a queue or event of another context; a timestamp signal event); KRT_ERROR_OUT_OF_HOST_MEMORY
 * (also when the queue's thread cannot be started); KRT_ERROR_DRIVER (the driver refused an append). */
KRT_API krt_result krt_host_task(krt_context *ctx, const krt_host_task_desc *desc);

/* ---------------------------------------------------------------------------------------------------------
 * Recorded launches: capture a sequence of commands once, replay it many times (docs/tutorial-replay.md)
 * ------------------------------------------------------------------------------------------------------- */

typedef struct krt_recording krt_recording;

typedef struct krt_recording_desc {
    uint32_t flags; /* reserved; 0 */
} krt_recording_desc;

/* Starts recording on a queue: until krt_recording_end, the launches (krt_launch, krt_launch_sync), copies
 * (krt_memcpy), fills (krt_memfill), barriers (krt_queue_barrier) and host tasks (krt_host_task) made on the queue are
 * recorded into a regular
 * (non-immediate) Level Zero command list instead of being run. Each command is checked as it would be when run,
 * and captures what it would capture: a launch's argument values and its group size (krt's choice, through the
 * memo, is made now and replayed as it is), a copy's and a fill's pointers and size, a fill's pattern, a host
 * task's fn and data. Waits and signals of recorded commands happen at every replay. Commands appended before
 * the begin keep running. krt_queue_synchronize (and the waits of krt_launch_sync, krt_memcpy_sync and
 * krt_kernel_tune) on a recording queue return KRT_ERROR_INVALID_STATE: its recorded commands never run there;
 * krt_context_synchronize waits only for the queue's commands from before the begin.
 * One recording at a time per queue; other queues keep running while one records. desc may be NULL.
 * Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT (queue NULL, desc->flags not 0); KRT_ERROR_INVALID_STATE (the
 * queue is recording already); KRT_ERROR_OUT_OF_HOST_MEMORY; KRT_ERROR_DRIVER. */
KRT_API krt_result krt_recording_begin(krt_queue *queue, const krt_recording_desc *desc);
/* Ends the queue's recording and returns it, closed, in *out (the caller owns it: krt_recording_destroy). The
 * queue runs what it is given from then on. A recording with no command is valid (a replay then only orders).
 * Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT (queue or out NULL); KRT_ERROR_INVALID_STATE (the queue is not
 * recording); KRT_ERROR_DRIVER (the driver could not close the list; the recording is dropped). */
KRT_API krt_result krt_recording_end(krt_queue *queue, krt_recording **out);

typedef struct krt_replay_desc {
    krt_queue *queue;             /* NULL = the context's default queue; any queue of the recording's context */
    krt_event *signal;            /* signalled when the whole replay has completed; NULL = none */
    krt_event *const *wait;       /* the replay starts after these are signalled (and the queue's earlier work) */
    uint32_t num_wait;
} krt_replay_desc;

/* Appends one run of the recording to the queue and returns without waiting: the recorded commands run in order
 * after the queue's earlier commands and the wait events, and the queue's later commands start after the last of
 * them, as if the commands had been appended again one by one, with the values captured when they were recorded.
 * A replay changes nothing that was captured: to run the same steps on other memory, record once per set of
 * pointers (two recordings with the buffers swapped give ping-pong time stepping) or put the values in device
 * memory the kernels read. What the recorded commands point at is read when they run: the contents of the
 * buffers (and of host memory a copy reads) may change between replays. The allocations a recording uses, and its
 * kernels' modules, must outlive it. An event a recorded command signals is signalled again by every replay:
 * reset it (krt_event_reset) before a replay that must see it unsignalled. Replays of one recording may be made
 * from several threads and on several queues at once (each runs whole, in its own queue's order); the host tasks
 * of one recording are run by the replaying queue's host-task thread.
 * On ze_cuda a recording's list becomes a CUDA graph, launched once per replay (docs/driver.md says which
 * commands keep a list from being one). desc may not be NULL.
 * Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT (recording or desc NULL; wait NULL with num_wait > 0; a NULL
 * wait event; a queue or event of another context); KRT_ERROR_INVALID_STATE (the queue is recording: a replay is
 * not recorded); KRT_ERROR_OUT_OF_HOST_MEMORY; KRT_ERROR_DRIVER; KRT_ERROR_DEVICE_LOST. */
KRT_API krt_result krt_replay(krt_recording *recording, const krt_replay_desc *desc);

typedef struct krt_recording_info {
    uint32_t num_commands;   /* every command recorded: the sum of the five below */
    uint32_t num_launches;   /* krt_launch */
    uint32_t num_copies;     /* krt_memcpy */
    uint32_t num_fills;      /* krt_memfill (a launch of krt's fill kernel, counted here and not as a launch) */
    uint32_t num_host_tasks; /* krt_host_task */
    uint32_t num_barriers;   /* krt_queue_barrier */
    uint64_t replays;        /* krt_replay calls that succeeded so far */
} krt_recording_info;

/* Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT (a NULL argument). */
KRT_API krt_result krt_recording_info_get(krt_recording *recording, krt_recording_info *out);
/* Waits for every replay of the recording appended so far, then destroys it; the context's other work goes on.
 * Replaying a recording while it is destroyed, from another thread, is a use after free. Destroying NULL does
 * nothing. Called from a host task of the context it is ignored (a KRT_LOG_ERROR line says so): the wait could
 * never end. Recordings not destroyed go with their context. */
KRT_API void krt_recording_destroy(krt_recording *recording);

/* ---------------------------------------------------------------------------------------------------------
 * Measured tuning and wisdom (opt in)
 * ------------------------------------------------------------------------------------------------------- */

typedef struct krt_tune_desc {
    uint32_t samples; /* timed batches of launches per candidate, the fastest counts; 0 = 3 */
    /* For kernels with __local arguments whose size follows the group (a reduction's scratch): bytes per
     * work-item, so each candidate's __local arguments get items * local_bytes_per_item. 0 = the sizes in
     * desc->args are used for every candidate, which the caller promises are valid for any group size. */
    uint32_t local_bytes_per_item;
} krt_tune_desc;

typedef struct krt_tune_result {
    uint32_t group[3];     /* the fastest group; the kernel's required size when it has one */
    uint32_t rule_group[3]; /* what the rule chose before tuning */
    double best_ns;        /* wall time per launch (launch to completion) of the fastest */
    double rule_ns;        /* the same for the rule's choice */
    uint32_t candidates;   /* groups timed; 0 when there was nothing to tune (a required size) */
} krt_tune_result;

/* Times candidate group sizes for desc's range with desc's arguments and keeps the fastest as wisdom for this
 * kernel and range class; later dynamic launches of the kernel over ranges of the same class use it
 * (KRT_LIMIT_TUNED). The caller promises that the launch may be repeated (each candidate runs twice, then
 * samples batches of up to 64 launches, and the fastest few again, docs/api.md) and that its arguments stay
 * valid until the call returns. The candidates: every group whose size in
 * each dimension is a power of two up to the range rounded up to one (and the device's per-dimension limit),
 * with a total within the kernel's bound (after the spill cap), plus the rule's own choice. A range class is,
 * per dimension, the size rounded up to a power of two. desc->group must be all 0. A kernel with a
 * reqd_work_group_size has nothing to tune: KRT_SUCCESS, candidates 0, nothing stored. Waits for the queue
 * first. Thread-safe; two threads tuning at once both succeed, and the last to finish sets the entry.
 * Results: as krt_launch and krt_queue_synchronize, plus KRT_ERROR_INVALID_ARGUMENT (NULL kernel, desc or
 * out; a static group in desc). */
KRT_API krt_result krt_kernel_tune(krt_kernel *kernel, const krt_launch_desc *desc, const krt_tune_desc *tune,
                                   krt_tune_result *out);

/* Writes the context's wisdom to path as text (docs/api.md has the format): every entry tuned or loaded,
 * including those of other devices and modules, keyed by device name, driver version, a hash of the module's
 * SPIR-V (with its build options and specialization constants), the kernel and the range class. The file is
 * written beside path and renamed over it, so a reader never sees a partial file.
 * Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT; KRT_ERROR_IO. */
KRT_API krt_result krt_wisdom_save(krt_context *ctx, const char *path);
/* Reads wisdom from path and adds its entries (an entry with the same key replaces the context's). Entries of
 * another device, driver version or module are kept (and saved again) but never used here. A file that does
 * not parse (a wrong header, a malformed line, a missing or wrong end line) is ignored as a whole, with a
 * KRT_LOG_WARNING naming the line: KRT_ERROR_IO, and the context's wisdom is unchanged. A usable entry whose
 * group no longer fits the kernel's limits is ignored at launch (the rule decides).
 * KRT_WISDOM=path in the environment loads path at krt_context_create (a missing file is not an error; any
 * other failure is the warning above) and saves to it at krt_context_destroy.
 * Results: KRT_SUCCESS; KRT_ERROR_INVALID_ARGUMENT; KRT_ERROR_IO; KRT_ERROR_OUT_OF_HOST_MEMORY. */
KRT_API krt_result krt_wisdom_load(krt_context *ctx, const char *path);

#ifdef __cplusplus
}

/* KRT_ARG in C++: one overload per C type (the fixed-width types are typedefs of these), any pointer, and an
 * untyped fallback for everything else. The deleted rvalue overload keeps KRT_ARG(n - 1) from compiling: the
 * temporary would die before the launch reads it. */
extern "C++" {
#define KRT__ARG_OVERLOAD_(T, tag)                                                                           \
    inline krt_arg krt__arg_of(const T &x)                                                                   \
    {                                                                                                        \
        krt_arg a = { &x, sizeof x, (tag) };                                                                 \
        return a;                                                                                            \
    }
KRT__ARG_OVERLOAD_(char, KRT_ARG_TYPE_INT8)
KRT__ARG_OVERLOAD_(signed char, KRT_ARG_TYPE_INT8)
KRT__ARG_OVERLOAD_(unsigned char, KRT_ARG_TYPE_UINT8)
KRT__ARG_OVERLOAD_(short, KRT_ARG_TYPE_INT16)
KRT__ARG_OVERLOAD_(unsigned short, KRT_ARG_TYPE_UINT16)
KRT__ARG_OVERLOAD_(int, KRT_ARG_TYPE_INT32)
KRT__ARG_OVERLOAD_(unsigned int, KRT_ARG_TYPE_UINT32)
KRT__ARG_OVERLOAD_(long, sizeof(long) == 8 ? KRT_ARG_TYPE_INT64 : KRT_ARG_TYPE_INT32)
KRT__ARG_OVERLOAD_(unsigned long, sizeof(long) == 8 ? KRT_ARG_TYPE_UINT64 : KRT_ARG_TYPE_UINT32)
KRT__ARG_OVERLOAD_(long long, KRT_ARG_TYPE_INT64)
KRT__ARG_OVERLOAD_(unsigned long long, KRT_ARG_TYPE_UINT64)
KRT__ARG_OVERLOAD_(float, KRT_ARG_TYPE_FLOAT)
KRT__ARG_OVERLOAD_(double, KRT_ARG_TYPE_DOUBLE)
#undef KRT__ARG_OVERLOAD_
template <typename T> inline krt_arg krt__arg_of(T *const &x)
{
    krt_arg a = { &x, sizeof x, KRT_ARG_TYPE_POINTER };
    return a;
}
template <typename T> inline krt_arg krt__arg_of(const T &x)
{
    krt_arg a = { &x, sizeof x, KRT_ARG_TYPE_NONE };
    return a;
}
template <typename T> krt_arg krt__arg_of(const T &&x) = delete;
inline krt_arg krt__arg_local(size_t bytes)
{
    krt_arg a = { NULL, bytes, KRT_ARG_TYPE_NONE };
    return a;
}
inline krt_arg krt__arg_local_per_item(size_t bytes)
{
    krt_arg a = { NULL, bytes, KRT_ARG_TYPE_LOCAL_PER_ITEM };
    return a;
}
}
#endif

#endif /* KRT_H */
