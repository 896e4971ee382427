/* The execution backend of ze_pocl: one table of operations between the Level Zero object model
 * (the driver/ C files) and whatever executes commands (driver/pocl/ today, a CUDA backend later).
 * Nothing here names OpenCL: the object model only sees opaque backend objects and neutral structs. */
#ifndef ZP_BACKEND_H
#define ZP_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <level_zero/ze_api.h>

/* What a module is built from and the per-kernel facts (zp_module_src, zp_module_meta, zp_kernel_meta,
 * zp_arg_meta, enum zp_arg_kind, ZP_EXACT_SUFFIX): the SPIR-V front end's plain data, which the object model
 * passes through unchanged. */
#include "../spirv/module.h"

/* Opaque backend objects. A backend defines these structs privately. */
typedef struct zp_bdev zp_bdev;     /* one execution device */
typedef struct zp_bmod zp_bmod;     /* one built program */
typedef struct zp_bkern zp_bkern;   /* one kernel instance with its own argument state */
typedef struct zp_bqueue zp_bqueue; /* one in-order stream of commands */
typedef struct zp_btoken zp_btoken; /* completion token of one command */

/* What the object model needs to know about a device to answer the property queries. */
typedef struct zp_device_info {
    char name[256];
    uint32_t vendor_id;
    uint32_t device_id;
    uint32_t compute_units;   /* cores the backend schedules work-groups on */
    uint32_t clock_mhz;
    uint64_t global_mem;
    uint64_t max_alloc;
    uint64_t local_mem;       /* bytes of work-group local memory */
    uint32_t max_group_total; /* work-items per work-group */
    uint32_t max_group[3];
    uint32_t max_args_size;   /* bytes of kernel arguments */
    uint32_t printf_buffer;
    uint64_t cache_size;      /* last-level cache bytes as the backend reports it */
    uint32_t cacheline;
    bool fp16;
    bool fp64;
    bool int64_atomics;
    /* Atomic add, min, max, load, store and exchange on float, and on double with fp64, in global and local memory
     * (SPV_EXT_shader_atomic_float_add and _min_max, which the SPIR-V front end lowers: spirv/groups.cpp);
     * ZE_extension_float_atomics says so. */
    bool float_atomics;
    bool profiling;           /* command timestamps available */
    /* Set by backends whose device is a GPU (ze_cuda); zeros keep ze_pocl's CPU answers. */
    bool gpu;
    /* A test knob's (ze_pocl's KRT_ZE_POCL_DEVICE_TYPE=gpu): zeDeviceGetProperties reports the type GPU, for clients
     * that take only GPUs; every other answer stays the CPU's. */
    bool report_gpu;
    uint32_t subgroup_size;   /* threads that run in lock step (a warp), 0 for one */
    bool has_uuid;
    uint8_t uuid[16];         /* the device's own UUID when has_uuid */
    uint32_t max_group_count[3]; /* groups per dimension of one launch, 0 for no limit below UINT32_MAX */
} zp_device_info;

/* Per-kernel limits that only the backend knows. */
typedef struct zp_kernel_limits {
    uint32_t max_group_total;    /* largest work-group the backend can run this kernel with */
    uint32_t preferred_multiple; /* preferred work-group size multiple */
    /* Set by backends that know the compiled kernel's real sizes (ze_cuda, from cuFuncGetAttribute);
     * they then replace the module-derived estimates in zeKernelGetProperties. */
    bool has_sizes;
    uint64_t private_size;
    uint64_t local_static;
    uint64_t spill_size;
    uint32_t subgroup_size;      /* 0 for one */
    /* Bytes of local memory the backend gives the kernel before its __local arguments, which can exceed the
     * kernel's own (PoCL gives a kernel every __local variable of its program); 0 when it does not say. */
    uint64_t local_alloc;
    /* The most private memory one work-item of this kernel can have (ZE_krt_private_memory), 0 when the backend sets
     * no limit; private_per_group: that memory is shared by a group's work-items (their private variables live on one
     * stack), so the private size times the group's work-items must fit. A launch past it is refused (kernel.c). */
    uint64_t private_max;
    bool private_per_group;
} zp_kernel_limits;

/* One kernel launch, or one piece of an exact launch (ZE_krt_exact_range, driver/include). The backend runs
 * global[d] items from offset[d] in groups of local[d], as OpenCL would. The three exact fields describe the
 * whole launch the piece belongs to: range[d] items in groups of enq[d], this piece's first group being group
 * base[d] of it. The backend must
 *   - run the kernel body only for items whose index in the whole launch, id - offset + base * enq, is below
 *     range in every dimension (the others are masked: they run nothing);
 *   - answer get_global_size with range, get_enqueued_local_size with enq, get_num_groups with
 *     ceil(range / enq), get_group_id with its own group id plus base, get_local_size with the real size of
 *     the group, min(enq, range - group_id * enq), and get_global_offset with offset - base * enq.
 * A uniform launch has range == global, enq == local and base 0. Masked items occur only in kernels that do not
 * need whole groups (zp_kernel_meta.whole_groups); the others get pieces whose groups are all full. */
typedef struct zp_ndrange {
    uint32_t dims;
    size_t offset[3];
    size_t global[3];
    size_t local[3];
    size_t range[3];
    size_t enq[3];
    size_t base[3];
} zp_ndrange;

/* A backend that compiles the module's LLVM (spirv/exact_range.cpp) has two functions per kernel: the
 * kernel as the module has it, for uniform launches (zp_ndrange_uniform), and its exact-range variant, named
 * with ZP_EXACT_SUFFIX (spirv/module.h), for every other launch. The variant takes one hidden argument after the
 * kernel's own, filled by zp_exact_desc: lanes 0-2 range, lanes 3-5 enq | base << 32, lanes 6-7 zero. */

static inline bool zp_ndrange_uniform(const zp_ndrange *r) {
    return r->range[0] == r->global[0] && r->range[1] == r->global[1] && r->range[2] == r->global[2] &&
           r->base[0] == 0 && r->base[1] == 0 && r->base[2] == 0;
}

static inline void zp_exact_desc(const zp_ndrange *r, uint64_t out[8]) {
    for (int d = 0; d < 3; d++) {
        out[d] = r->range[d];
        out[3 + d] = (uint64_t)r->enq[d] | (uint64_t)r->base[d] << 32;
    }
    out[6] = out[7] = 0;
}

typedef void (*zp_token_fn)(zp_btoken *token, void *user);

enum { ZP_PEER_ACCESS = 1u, ZP_PEER_ATOMICS = 2u };

typedef struct zp_backend_ops {
    const char *name;
    /* Starts the backend once; later calls return the first result. */
    ze_result_t (*init)(void);
    uint32_t (*device_count)(void);
    zp_bdev *(*device)(uint32_t index);
    void (*device_info)(zp_bdev *dev, zp_device_info *info);
    /* Host clock and device clock, both in nanoseconds of the clock command timestamps use. */
    void (*timestamps)(zp_bdev *dev, uint64_t *host_ns, uint64_t *device_ns);

    /* Memory visible to host and every device; alignment is a power of two or 0. *raw receives what
     * mem_free takes, which differs from the result when the alignment needed padding. */
    void *(*mem_alloc)(size_t size, size_t alignment, void **raw);
    void (*mem_free)(void *raw);

    /* Builds SPIR-V for one device. Fills meta (caller frees with module_meta_free) and a build log
     * (malloc'd, may be NULL) on success and on failure. */
    ze_result_t (*module_build)(zp_bdev *dev, const zp_module_src *src, zp_bmod **out,
                                zp_module_meta *meta, char **log);
    void (*module_destroy)(zp_bmod *mod);
    void (*module_meta_free)(zp_module_meta *meta);

    ze_result_t (*kernel_create)(zp_bmod *mod, const char *name, zp_bkern **out, zp_kernel_limits *limits);
    void (*kernel_destroy)(zp_bkern *kern);
    /* Sets one argument; value is the pointer value itself for pointer kinds, NULL for local kinds. */
    ze_result_t (*kernel_set_arg)(zp_bkern *kern, uint32_t index, uint32_t kind, size_t size,
                                  const void *value);

    /* A queue records command start and end times only when created with profiling: recording costs
     * time on every command, so the object model asks for it only when timestamps are wanted. */
    ze_result_t (*queue_create)(zp_bdev *dev, bool profiling, zp_bqueue **out);
    void (*queue_destroy)(zp_bqueue *q);
    ze_result_t (*queue_finish)(zp_bqueue *q);

    /* Commands. Each waits for the tokens in waits, runs after the previous command of its queue,
     * and returns its own completion token in *done when done is not NULL. */
    ze_result_t (*launch)(zp_bqueue *q, zp_bkern *kern, const zp_ndrange *range, uint32_t num_waits,
                          zp_btoken *const *waits, zp_btoken **done);
    ze_result_t (*copy)(zp_bqueue *q, void *dst, const void *src, size_t size, uint32_t num_waits,
                        zp_btoken *const *waits, zp_btoken **done);
    ze_result_t (*fill)(zp_bqueue *q, void *dst, const void *pattern, size_t pattern_size, size_t size,
                        uint32_t num_waits, zp_btoken *const *waits, zp_btoken **done);
    ze_result_t (*barrier)(zp_bqueue *q, uint32_t num_waits, zp_btoken *const *waits, zp_btoken **done);
    /* Runs fn(data) on some host thread in stream order: after the waits and the previous command, and
     * before the next command starts. For work the device cannot do itself, such as copies from memory
     * the backend did not allocate. fn owns data. */
    ze_result_t (*host_task)(zp_bqueue *q, void (*fn)(void *data), void *data, uint32_t num_waits,
                             zp_btoken *const *waits, zp_btoken **done);

    /* Tokens. */
    void (*token_retain)(zp_btoken *t);
    void (*token_release)(zp_btoken *t);
    /* Calls fn(token, user) once the token completes (at once if it already has), from any thread. */
    ze_result_t (*token_on_complete)(zp_btoken *t, zp_token_fn fn, void *user);
    /* Start and end of the command in device nanoseconds. */
    ze_result_t (*token_times)(zp_btoken *t, uint64_t *start, uint64_t *end);

    /* Optional, for backends whose memory is not one host-visible kind (ze_cuda). When set, allocations
     * go here with their Level Zero type instead of mem_alloc, and are freed with mem_free_typed; a NULL
     * result means out of device memory. */
    void *(*mem_alloc_typed)(zp_bdev *dev, ze_memory_type_t type, size_t size, size_t alignment, void **raw);
    void (*mem_free_typed)(ze_memory_type_t type, void *raw);
    /* The backend's copy takes any host or device pointer (unified addressing), so copies that touch
     * memory it did not allocate go to it rather than to a host memcpy, which cannot read device memory;
     * and its fill takes any size, a partial last repetition too (a host fill cannot write device memory). */
    bool copy_any;
    /* Optional: memory the backend's own API allocated outside the driver (ze_cuda: cuMemAlloc of a
     * program's CUDA runtime, as PyTorch and CuPy allocate), which the driver then treats as an allocation of
     * its own for lookups (zeMemGetAllocProperties, launches' and copies' checks) but never frees. Fills the
     * allocation around ptr: its device, base, size and Level Zero type; false when ptr is not such memory. */
    bool (*mem_foreign)(const void *ptr, zp_bdev **dev, void **base, size_t *size, ze_memory_type_t *type);
    /* Optional: the backend's own queue object under q (ze_cuda: the CUstream), for ZE_krt_native_queue. */
    void *(*queue_native)(zp_bqueue *q);
    /* Optional: blocks until the token's command has completed (ze_cuda: cuEventSynchronize on its end event), so
     * that a host wait returns when the device is done rather than when the completion callback gets to run. */
    ze_result_t (*token_wait)(zp_btoken *t);
    /* Optional: whether the token's command has completed, without blocking (ze_cuda: cuEventQuery; ze_pocl: the
     * event's execution status). A query of a signal then answers from the device, so that once a later command is
     * known complete (a wait returned through token_wait, or a command that waited on this one), the events of the
     * earlier ones read as set too, before their completion callbacks have run. */
    bool (*token_done)(zp_btoken *t);
    /* Optional (ze_cuda): a closed regular command list as one backend object, a CUDA graph, launched once per
     * execution. capture_begin makes a queue of the backend's record its commands instead of running them (they
     * come with no waits and no completion tokens); capture_end stops that and returns the instantiated graph, or
     * an error when a command could not be captured (the list then replays its commands one by one);
     * graph_launch runs a graph in stream order like any command; graph_destroy frees it. */
    ze_result_t (*capture_begin)(zp_bqueue *q);
    ze_result_t (*capture_end)(zp_bqueue *q, void **graph);
    ze_result_t (*graph_launch)(zp_bqueue *q, void *graph, uint32_t num_waits, zp_btoken *const *waits,
                                zp_btoken **done);
    void (*graph_destroy)(void *graph);
    /* Optional: virtual memory (zeVirtualMem*, zePhysicalMem*; driver/virtual.c keeps the reservations, mappings
     * and access attributes, and asks the backend only for these). Without vm_page_size every entry answers
     * ZE_RESULT_ERROR_UNSUPPORTED_FEATURE.
     *   vm_page_size: the granularity of reservations, physical memory and mappings on dev, never 0 (0: no
     *     virtual memory on this device);
     *   vm_reserve: address space of size bytes (a multiple of the page size), at hint when it is free there,
     *     inaccessible; vm_release gives it back, unmapping whatever is mapped in it;
     *   phys_create: size bytes of memory on dev (on_host: in host memory) that mappings share; phys_destroy;
     *   vm_map: maps [ptr, ptr + size) of a reservation onto phys from offset, with an access attribute;
     *     vm_unmap makes the range inaccessible again and keeps it reserved;
     *   vm_protect: applies an access attribute to mapped pages (the backend says in docs/driver.md which
     *     attributes it enforces). */
    size_t (*vm_page_size)(zp_bdev *dev, size_t size);
    ze_result_t (*vm_reserve)(const void *hint, size_t size, void **out);
    void (*vm_release)(void *ptr, size_t size);
    ze_result_t (*phys_create)(zp_bdev *dev, bool on_host, size_t size, void **out);
    void (*phys_destroy)(void *phys);
    ze_result_t (*vm_map)(void *ptr, size_t size, void *phys, size_t offset, ze_memory_access_attribute_t access);
    ze_result_t (*vm_unmap)(void *ptr, size_t size);
    ze_result_t (*vm_protect)(void *ptr, size_t size, ze_memory_access_attribute_t access);
    /* Optional: zeContextSystemBarrier, making writes into dev's memory from outside (another device, a NIC)
     * visible to it; blocks until they are. Without it, a host memory fence: the memory of a backend without it is
     * host memory. */
    ze_result_t (*system_barrier)(zp_bdev *dev);
    /* Optional: the device address of the module's program-scope variable number index of its meta's globals (named
     * name), for zeModuleGetGlobalPointer; without it, ZE_RESULT_ERROR_UNSUPPORTED_FEATURE. */
    ze_result_t (*global_pointer)(zp_bmod *mod, uint32_t index, const char *name, void **ptr);
    /* Optional: after init, why the backend has no device (one line, for zeKrtDriverStatus), or "" when it has
     * devices or cannot say. */
    const char *(*no_device_reason)(void);
    /* Optional: whether commands on dev may read and write device memory of peer (zeDeviceCanAccessPeer), as
     * ZP_PEER_* bits: ZP_PEER_ACCESS, and ZP_PEER_ATOMICS when atomics work across too. NULL: every device reaches
     * every other with atomics (ze_pocl's devices share the host's memory). A copy on dev's queues that touches
     * device memory of a device it cannot reach is refused (cmdlist.c); the caller stages it through host memory. */
    unsigned (*can_access_peer)(zp_bdev *dev, zp_bdev *peer);
    /* Optional: a copy between device memory of two different devices (ze_cuda: cuMemcpyPeerAsync), used instead of
     * copy for such a copy; NULL: copy takes it. */
    ze_result_t (*copy_peer)(zp_bqueue *q, void *dst, zp_bdev *dst_dev, const void *src, zp_bdev *src_dev,
                             size_t size, uint32_t num_waits, zp_btoken *const *waits, zp_btoken **done);
    /* Optional: whether the backend has seen dev fail for good (ze_cuda: one of CUDA's sticky errors, after which
     * every call on the device's context fails). The object model then treats the device as lost (driver/fault.c):
     * its calls answer ZE_RESULT_ERROR_DEVICE_LOST, whatever the backend's own failure would have said. Its
     * backend calls that see such an error return ZE_RESULT_ERROR_DEVICE_LOST themselves. */
    bool (*device_lost)(zp_bdev *dev);
    /* Optional, with device_lost: makes a lost device usable again (ze_cuda: resets its primary context and
     * rebuilds what the backend keeps for it). Called when no context uses the device any more, so nothing of the
     * backend's made on it before is in use (queues, modules, memory and tokens all belong to destroyed contexts);
     * success means device_lost is false again. */
    ze_result_t (*device_recover)(zp_bdev *dev);
    /* Optional, with device_recover: why the last recovery of dev failed (one line, for zeKrtDriverStatus), or "" when
     * it did not fail. */
    const char *(*recover_failure)(zp_bdev *dev);
} zp_backend_ops;

/* The backend in use; chosen at build time. */
extern const zp_backend_ops zp_pocl_backend;
extern const zp_backend_ops zp_cuda_backend;
extern const zp_backend_ops zp_host_backend;

#endif
