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
};

struct zp_bkern {
    cl_kernel kernel;
    /* FNV-1a hash of the kernel's name: PoCL keys its cache of compiled work-group functions by the
     * kernel (its program's build and its name), so every cl_kernel of one name shares entries. */
    uint32_t name_hash;
};

/* The one OpenCL context holding every PoCL device; created once by zp_pocl_init. */
extern cl_context zp_cl_ctx;

ZP_HIDDEN ze_result_t zp_cl_result(cl_int err);
ZP_HIDDEN ze_result_t zp_pocl_init(void);
ZP_HIDDEN uint32_t zp_pocl_device_count(void);
ZP_HIDDEN zp_bdev *zp_pocl_device(uint32_t index);
ZP_HIDDEN void zp_pocl_device_info(zp_bdev *dev, zp_device_info *info);
ZP_HIDDEN void zp_pocl_timestamps(zp_bdev *dev, uint64_t *host_ns, uint64_t *device_ns);
ZP_HIDDEN void *zp_pocl_mem_alloc(size_t size, size_t alignment, void **raw);
ZP_HIDDEN void zp_pocl_mem_free(void *ptr);

ZP_HIDDEN ze_result_t zp_pocl_module_build(zp_bdev *dev, const zp_module_src *src, zp_bmod **out,
                                           zp_module_meta *meta, char **log);
ZP_HIDDEN void zp_pocl_module_destroy(zp_bmod *mod);
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
ZP_HIDDEN void zp_pocl_token_retain(zp_btoken *t);
ZP_HIDDEN void zp_pocl_token_release(zp_btoken *t);
ZP_HIDDEN ze_result_t zp_pocl_token_on_complete(zp_btoken *t, zp_token_fn fn, void *user);
ZP_HIDDEN ze_result_t zp_pocl_token_times(zp_btoken *t, uint64_t *start, uint64_t *end);

#endif
