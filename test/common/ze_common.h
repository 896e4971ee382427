/* Shared helpers for the ze_pocl driver tests. They go through the Level Zero loader only, exactly as an
 * application would, and fail the calling Criterion test on any unexpected result. */
#ifndef KRT_TEST_ZE_COMMON_H
#define KRT_TEST_ZE_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <criterion/criterion.h>
#include <level_zero/ze_api.h>

/* The 1.4 headers lack the max-group-size extension; its layout is fixed by the extension's spec. */
#ifndef ZE_STRUCTURE_TYPE_KERNEL_MAX_GROUP_SIZE_EXT_PROPERTIES
#define ZE_STRUCTURE_TYPE_KERNEL_MAX_GROUP_SIZE_EXT_PROPERTIES ((ze_structure_type_t)0x10013)
typedef struct {
    ze_structure_type_t stype;
    void *pNext;
    uint32_t maxGroupSize;
} ze_kernel_max_group_size_properties_ext_t;
#endif
#define ZT_MAX_GROUP_SIZE_EXT_NAME "ZE_extension_kernel_max_group_size_properties"

/* Hang guard for every host wait: long enough for a slow, loaded machine, short enough to end a stuck run
 * before Criterion's own per-test timeout. */
#define ZT_TIMEOUT_NS (60ull * 1000 * 1000 * 1000)
/* Per-test timeout in seconds for Criterion's .timeout, above ZT_TIMEOUT_NS so the wait reports first. */
#define ZT_TEST_TIMEOUT 120

/* Fails the test unless the call returns ZE_RESULT_SUCCESS; the call is evaluated once. */
#define ZT_OK(call)                                                                                       \
    do {                                                                                                  \
        ze_result_t zt_r_ = (call);                                                                       \
        cr_assert_eq(zt_r_, ZE_RESULT_SUCCESS, "%s returned 0x%x (%s)", #call, (unsigned)zt_r_,          \
                     zt_result_name(zt_r_));                                                              \
    } while (0)

/* Fails the test unless the call returns exactly the given code. */
#define ZT_EXPECT(call, code)                                                                             \
    do {                                                                                                  \
        ze_result_t zt_r_ = (call);                                                                       \
        cr_assert_eq(zt_r_, (code), "%s returned 0x%x (%s), expected %s", #call, (unsigned)zt_r_,        \
                     zt_result_name(zt_r_), #code);                                                       \
    } while (0)

typedef struct {
    ze_driver_handle_t driver;
    ze_device_handle_t device;
    ze_context_handle_t context;
    uint32_t compute_ordinal; /* a command queue group with the compute flag */
} zt_env;

const char *zt_result_name(ze_result_t r);

/* True when the loader's validation layer is on (the variable is exactly "1"): some NULL checks are then
 * answered by the layer, which may use a different code than the driver. */
bool zt_validation_layer(void);

/* zeInit, then the driver whose device is the ze_pocl CPU device, its first device, and a new context. */
void zt_init(zt_env *env);
/* Whether a driver is one of the project's, by the name its UUID starts with ("ze_pocl", "ze_cuda"). */
bool zt_driver_is(ze_driver_handle_t drv, const char *name);
/* Whether the driver lists the extension NAME (zeDriverGetExtensionProperties; a failed query is a test failure). */
bool zt_driver_has_extension(ze_driver_handle_t drv, const char *name);
void zt_fini(zt_env *env);

/* Reads a whole file; the caller frees the buffer. Fails the test when the file cannot be read. */
void *zt_read_file(const char *path, size_t *size);
/* Reads $KRT_TEST_KERNELS/<name>.spv (name may contain a subfolder, e.g. "o2/ze_loops_o2"). */
void *zt_load_spirv(const char *name, size_t *size);

/* zeModuleCreate from SPIR-V bytes; returns the result and leaves the module and log (either may be NULL)
 * for the caller. */
ze_result_t zt_module_create_il(zt_env *env, const void *il, size_t size, const char *flags,
                                ze_module_handle_t *module, ze_module_build_log_handle_t *log);
/* Builds $KRT_TEST_KERNELS/<name>.spv, failing the test (with the build log) when that fails. */
ze_module_handle_t zt_module_load(zt_env *env, const char *name);
/* Returns the build log as a malloc'd string (the caller frees it), never NULL. */
char *zt_build_log_string(ze_module_build_log_handle_t log);
ze_kernel_handle_t zt_kernel_create(ze_module_handle_t module, const char *name);

ze_command_queue_handle_t zt_queue_create(zt_env *env, ze_command_queue_mode_t mode);
ze_command_list_handle_t zt_list_create(zt_env *env);
ze_command_list_handle_t zt_immediate_create(zt_env *env, ze_command_queue_mode_t mode);

void *zt_alloc_shared(zt_env *env, size_t size);
void *zt_alloc_host(zt_env *env, size_t size);
void *zt_alloc_device(zt_env *env, size_t size);

/* A host-visible event pool of `count` events, optionally with kernel timestamps. */
ze_event_pool_handle_t zt_event_pool_create(zt_env *env, uint32_t count, bool timestamps);
ze_event_handle_t zt_event_create(ze_event_pool_handle_t pool, uint32_t index);

/* Waits on the host until everything appended so far to an immediate list has finished: appends a barrier
 * that signals a host-visible event and waits for that event (Debian's loader, API 1.4, cannot reach
 * zeCommandListHostSynchronize; test_ze_api tests that one). */
void zt_immediate_sync(zt_env *env, ze_command_list_handle_t list);

/* Whether device timestamp a is not later than b on a counter of `bits` valid bits (the device's
 * timestampValidBits or kernelTimestampValidBits), which may have wrapped once between them: both lie within the
 * bits, and b - a modulo 2^bits is less than half the counter's range. */
bool zt_ts_leq(uint64_t a, uint64_t b, uint32_t bits);

/* Closes a regular list, executes it on the queue and waits for the queue. */
void zt_execute_and_wait(ze_command_queue_handle_t queue, ze_command_list_handle_t list);

/* Sets a kernel's arguments from consecutive (size, pointer) pairs: zt_set_args(k, 2, 8, &p, 4, &n). */
void zt_set_args(ze_kernel_handle_t kernel, uint32_t count, ...);

/* Launches a kernel on an immediate list with the given group size and count and waits for it. */
void zt_launch_sync(zt_env *env, ze_command_list_handle_t list, ze_kernel_handle_t kernel,
                    uint32_t gx, uint32_t gy, uint32_t gz, uint32_t nx, uint32_t ny, uint32_t nz);

#endif
