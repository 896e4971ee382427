/* Private to the PoCL backend: how its opaque objects map onto OpenCL. */
#ifndef ZP_POCL_BE_H
#define ZP_POCL_BE_H

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include "../backend.h"

#define ZP_HIDDEN __attribute__((visibility("hidden")))

/* The backend objects are the OpenCL objects themselves where possible, so no wrapper is allocated per
 * command: zp_bqueue is a cl_command_queue, zp_btoken a cl_event, zp_bdev a cl_device_id. zp_bkern wraps
 * the cl_kernel with its name's hash, which launches need for the work-group function workaround (see
 * zp_pocl_launch). */
#define ZP_CLQ(q) ((cl_command_queue)(q))
#define ZP_CLK(k) (((struct zp_bkern *)(k))->kernel)
#define ZP_CLE(t) ((cl_event)(t))
#define ZP_CLD(d) ((cl_device_id)(d))

struct zp_bmod {
    cl_program program;
    void *storage;     /* the program-scope variables (zp_module_meta.globals_size bytes, SVM), or NULL */
    uint64_t *offsets; /* each exported variable's offset in storage (UINT64_MAX: not there), or NULL */
    void **copies;     /* each exported constant's copy (from zp_global_meta.init), else NULL */
    uint32_t num_globals;
};

struct zp_bkern {
    cl_kernel kernel;
    /* FNV-1a hash of the kernel's name: PoCL keys its cache of compiled work-group functions by the
     * kernel (its program's build and its name), so every cl_kernel of one name shares entries. */
    uint64_t name_hash;
    /* The kernel's exact-range variant (spirv/exact_range.cpp), for launches that are not uniform: it
     * takes the same arguments, then the descriptor at exact_index, which holds `exact` once exact_set. */
    cl_kernel exact_kernel;
    cl_uint exact_index;
    bool exact_set;
    uint64_t exact[8];
};

/* The one OpenCL context holding every PoCL device; created once by zp_pocl_open. */
extern cl_context zp_cl_ctx;

/* How modules reach PoCL: SPIR-V through clCreateProgramWithIL, or SPIR 1.2 bitcode through
 * clCreateProgramWithBinary. */
enum zp_route { ZP_ROUTE_SPIR = 0, ZP_ROUTE_IL = 1 };

/* What the installed PoCL reports, and what ze_pocl chose from it (device.c, at zp_pocl_open; the choice
 * is then proven by the self-check, selfcheck.c). Read-only after start-up. */
typedef struct zp_pocl_caps {
    char version[256];  /* CL_PLATFORM_VERSION, e.g. "OpenCL 3.0 PoCL 3.1+debian  Linux, ..." */
    char device[256];   /* CL_DEVICE_VERSION of the first device (names the kernel library's CPU variant) */
    int major, minor;   /* from "PoCL X.Y" in version; -1 when absent */
    bool il;            /* CL_DEVICE_IL_VERSION names SPIR-V */
    bool generic_as;    /* CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT */
    uint32_t route;     /* enum zp_route */
    unsigned rewrites;  /* zp_spirv_flags and zp_pocl_rewrite_flags for module builds (pocl_rewrites.h) */
    ze_result_t check;  /* the self-check's verdict: module builds fail with it unless SUCCESS */
    char check_log[768]; /* the self-check's findings, naming the PoCL version, when it failed */
} zp_pocl_caps;

extern zp_pocl_caps zp_caps;

/* Builds a program for dev from SPIR-V the way caps say (route and rewrites); *meta gets the per-kernel
 * facts, *log (malloc'd) what went wrong. Used by module builds and by the self-check. */
ZP_HIDDEN ze_result_t zp_pocl_program_build(cl_device_id dev, const zp_module_src *src, uint32_t route,
                                            unsigned rewrites, cl_program *out, zp_module_meta *meta, char **log);

/* The start-up self-check (selfcheck.c): runs the constructs ze_pocl translates with the route and
 * rewrites in caps; 0 when every result is exact, else writes why into why (n bytes). */
ZP_HIDDEN int zp_pocl_selfcheck_run(cl_device_id dev, uint32_t route, unsigned rewrites, unsigned which, char *why,
                                    size_t n);
/* Fills caps->route, ->rewrites and ->check: a cached verdict for this PoCL if there is one, else the
 * self-check of each candidate in order of preference, cached for the next start. */
ZP_HIDDEN void zp_pocl_selfcheck(zp_pocl_caps *caps, cl_device_id dev);
enum { ZP_CHECK_FILL = 1, ZP_CHECK_ATOMICS = 2, ZP_CHECK_ASYNC = 4, ZP_CHECK_ALL = 7 };

ZP_HIDDEN ze_result_t zp_cl_result(cl_int err);
/* Opens PoCL once: its platform, devices, context and zp_caps, without the self-check (device.c). */
ZP_HIDDEN ze_result_t zp_pocl_open(void);
ZP_HIDDEN uint32_t zp_pocl_device_count(void);
/* Why zp_pocl_open found no device ("" when it found some), for zeKrtDriverStatus. */
ZP_HIDDEN const char *zp_pocl_no_device_reason(void);
ZP_HIDDEN zp_bdev *zp_pocl_device(uint32_t index);
ZP_HIDDEN void zp_pocl_device_info(zp_bdev *dev, zp_device_info *info);
ZP_HIDDEN uint64_t zp_pocl_local_mem(cl_device_id d);
/* ZP_PEER_* bits of dev towards peer: every pair unless KRT_ZE_POCL_PEER restricts them (device.c). */
ZP_HIDDEN unsigned zp_pocl_can_access_peer(zp_bdev *dev, zp_bdev *peer);
ZP_HIDDEN void zp_pocl_timestamps(zp_bdev *dev, uint64_t *host_ns, uint64_t *device_ns);
ZP_HIDDEN void *zp_pocl_mem_alloc(size_t size, size_t alignment, void **raw);
ZP_HIDDEN void zp_pocl_mem_free(void *ptr);

ZP_HIDDEN ze_result_t zp_pocl_module_build(zp_bdev *dev, const zp_module_src *src, zp_bmod **out,
                                           zp_module_meta *meta, char **log);
ZP_HIDDEN void zp_pocl_module_destroy(zp_bmod *mod);
ZP_HIDDEN ze_result_t zp_pocl_global_pointer(zp_bmod *mod, uint32_t index, const char *name, void **ptr);
ZP_HIDDEN void zp_pocl_module_meta_free(zp_module_meta *meta);
ZP_HIDDEN ze_result_t zp_pocl_kernel_create(zp_bmod *mod, const char *name, zp_bkern **out,
                                            zp_kernel_limits *limits);
ZP_HIDDEN void zp_pocl_kernel_destroy(zp_bkern *kern);
ZP_HIDDEN ze_result_t zp_pocl_kernel_set_arg(zp_bkern *kern, uint32_t index, uint32_t kind, size_t size,
                                             const void *value);

ZP_HIDDEN ze_result_t zp_pocl_queue_create(zp_bdev *dev, bool profiling, zp_bqueue **out);
ZP_HIDDEN void zp_pocl_queue_destroy(zp_bqueue *q);
ZP_HIDDEN ze_result_t zp_pocl_queue_finish(zp_bqueue *q);
ZP_HIDDEN ze_result_t zp_pocl_launch(zp_bqueue *q, zp_bkern *kern, const zp_ndrange *range, uint32_t num_waits,
                                     zp_btoken *const *waits, zp_btoken **done);
ZP_HIDDEN ze_result_t zp_pocl_copy(zp_bqueue *q, void *dst, const void *src, size_t size, uint32_t num_waits,
                                   zp_btoken *const *waits, zp_btoken **done);
ZP_HIDDEN ze_result_t zp_pocl_fill(zp_bqueue *q, void *dst, const void *pattern, size_t pattern_size, size_t size,
                                   uint32_t num_waits, zp_btoken *const *waits, zp_btoken **done);
ZP_HIDDEN ze_result_t zp_pocl_barrier(zp_bqueue *q, uint32_t num_waits, zp_btoken *const *waits,
                                      zp_btoken **done);
ZP_HIDDEN ze_result_t zp_pocl_host_task(zp_bqueue *q, void (*fn)(void *data), void *data, uint32_t num_waits,
                                        zp_btoken *const *waits, zp_btoken **done);
/* Virtual memory (vm.c): address space and memory-file mappings. */
ZP_HIDDEN size_t zp_pocl_vm_page_size(zp_bdev *dev, size_t size);
ZP_HIDDEN ze_result_t zp_pocl_vm_reserve(const void *hint, size_t size, void **out);
ZP_HIDDEN void zp_pocl_vm_release(void *ptr, size_t size);
ZP_HIDDEN ze_result_t zp_pocl_phys_create(zp_bdev *dev, bool on_host, size_t size, void **out);
ZP_HIDDEN void zp_pocl_phys_destroy(void *phys);
ZP_HIDDEN ze_result_t zp_pocl_vm_map(void *ptr, size_t size, void *phys, size_t offset,
                                     ze_memory_access_attribute_t access);
ZP_HIDDEN ze_result_t zp_pocl_vm_unmap(void *ptr, size_t size);
ZP_HIDDEN ze_result_t zp_pocl_vm_protect(void *ptr, size_t size, ze_memory_access_attribute_t access);
ZP_HIDDEN void zp_pocl_token_retain(zp_btoken *t);
ZP_HIDDEN void zp_pocl_token_release(zp_btoken *t);
ZP_HIDDEN ze_result_t zp_pocl_token_on_complete(zp_btoken *t, zp_token_fn fn, void *user);
ZP_HIDDEN bool zp_pocl_token_done(zp_btoken *t);
ZP_HIDDEN ze_result_t zp_pocl_token_times(zp_btoken *t, uint64_t *start, uint64_t *end);

#endif
