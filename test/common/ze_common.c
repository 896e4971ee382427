/* Shared helpers for the ze_pocl driver tests; see ze_common.h. */
#include "ze_common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *zt_result_name(ze_result_t r)
{
    switch (r) {
#define ZT_NAME(x) case x: return #x;
    ZT_NAME(ZE_RESULT_SUCCESS)
    ZT_NAME(ZE_RESULT_NOT_READY)
    ZT_NAME(ZE_RESULT_ERROR_DEVICE_LOST)
    ZT_NAME(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY)
    ZT_NAME(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)
    ZT_NAME(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE)
    ZT_NAME(ZE_RESULT_ERROR_MODULE_LINK_FAILURE)
    ZT_NAME(ZE_RESULT_ERROR_UNINITIALIZED)
    ZT_NAME(ZE_RESULT_ERROR_UNSUPPORTED_VERSION)
    ZT_NAME(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE)
    ZT_NAME(ZE_RESULT_ERROR_INVALID_ARGUMENT)
    ZT_NAME(ZE_RESULT_ERROR_INVALID_NULL_HANDLE)
    ZT_NAME(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE)
    ZT_NAME(ZE_RESULT_ERROR_INVALID_NULL_POINTER)
    ZT_NAME(ZE_RESULT_ERROR_INVALID_SIZE)
    ZT_NAME(ZE_RESULT_ERROR_UNSUPPORTED_SIZE)
    ZT_NAME(ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT)
    ZT_NAME(ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT)
    ZT_NAME(ZE_RESULT_ERROR_INVALID_ENUMERATION)
    ZT_NAME(ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION)
    ZT_NAME(ZE_RESULT_ERROR_INVALID_NATIVE_BINARY)
    ZT_NAME(ZE_RESULT_ERROR_INVALID_KERNEL_NAME)
    ZT_NAME(ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION)
    ZT_NAME(ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION)
    ZT_NAME(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX)
    ZT_NAME(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE)
    ZT_NAME(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE)
    ZT_NAME(ZE_RESULT_ERROR_OVERLAPPING_REGIONS)
    ZT_NAME(ZE_RESULT_ERROR_UNKNOWN)
#undef ZT_NAME
    default:
        return "other";
    }
}

bool zt_validation_layer(void)
{
    const char *v = getenv("ZE_ENABLE_VALIDATION_LAYER");
    return v != NULL && strcmp(v, "1") == 0;
}

/* The ze_pocl device is the CPU device; any other driver the loader found (there should be none under
 * ZE_ENABLE_ALT_DRIVERS) is skipped. */
void zt_init(zt_env *env)
{
    memset(env, 0, sizeof *env);
    ZT_OK(zeInit(0));
    uint32_t ndrivers = 0;
    ZT_OK(zeDriverGet(&ndrivers, NULL));
    cr_assert_gt(ndrivers, 0, "no Level Zero driver: is ZE_ENABLE_ALT_DRIVERS set?");
    ze_driver_handle_t drivers[16];
    if (ndrivers > 16)
        ndrivers = 16;
    ZT_OK(zeDriverGet(&ndrivers, drivers));
    /* The device under test: ze_pocl's CPU in make test. The GPU run (tools/gpu-test.sh) loads ze_cuda alone,
     * whose only devices are GPUs: with no CPU device among the drivers, the first device of any type. */
    ze_driver_handle_t any_driver = NULL;
    ze_device_handle_t any_device = NULL;
    for (uint32_t i = 0; i < ndrivers && env->device == NULL; i++) {
        uint32_t ndev = 0;
        if (zeDeviceGet(drivers[i], &ndev, NULL) != ZE_RESULT_SUCCESS || ndev == 0)
            continue;
        ze_device_handle_t dev[16];
        if (ndev > 16)
            ndev = 16;
        ZT_OK(zeDeviceGet(drivers[i], &ndev, dev));
        if (!any_device) {
            any_driver = drivers[i];
            any_device = dev[0];
        }
        for (uint32_t j = 0; j < ndev; j++) {
            ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
            if (zeDeviceGetProperties(dev[j], &p) == ZE_RESULT_SUCCESS && p.type == ZE_DEVICE_TYPE_CPU) {
                env->driver = drivers[i];
                env->device = dev[j];
                break;
            }
        }
    }
    if (!env->device) {
        env->driver = any_driver;
        env->device = any_device;
    }
    cr_assert_not_null(env->device, "no device among %u driver(s)", ndrivers);

    ze_context_desc_t cd = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
    ZT_OK(zeContextCreate(env->driver, &cd, &env->context));

    uint32_t ngroups = 0;
    ZT_OK(zeDeviceGetCommandQueueGroupProperties(env->device, &ngroups, NULL));
    cr_assert_gt(ngroups, 0);
    ze_command_queue_group_properties_t *gp = calloc(ngroups, sizeof *gp);
    cr_assert_not_null(gp);
    for (uint32_t i = 0; i < ngroups; i++)
        gp[i].stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
    ZT_OK(zeDeviceGetCommandQueueGroupProperties(env->device, &ngroups, gp));
    bool found = false;
    for (uint32_t i = 0; i < ngroups && !found; i++) {
        if (gp[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) {
            env->compute_ordinal = i;
            found = true;
        }
    }
    free(gp);
    cr_assert(found, "no command queue group with the compute flag");
}

void zt_fini(zt_env *env)
{
    if (env->context != NULL)
        ZT_OK(zeContextDestroy(env->context));
    env->context = NULL;
}

void *zt_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    cr_assert_gt(n, 0, "%s is empty", path);
    void *buf = malloc((size_t)n);
    cr_assert_not_null(buf);
    size_t got = fread(buf, 1, (size_t)n, f);
    fclose(f);
    cr_assert_eq(got, (size_t)n, "short read on %s", path);
    *size = (size_t)n;
    return buf;
}

void *zt_load_spirv(const char *name, size_t *size)
{
    const char *dir = getenv("KRT_TEST_KERNELS");
    cr_assert_not_null(dir, "KRT_TEST_KERNELS is not set (run the tests through make)");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.spv", dir, name);
    return zt_read_file(path, size);
}

ze_result_t zt_module_create_il(zt_env *env, const void *il, size_t size, const char *flags,
                                ze_module_handle_t *module, ze_module_build_log_handle_t *log)
{
    ze_module_desc_t md = {
        .stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
        .format = ZE_MODULE_FORMAT_IL_SPIRV,
        .inputSize = size,
        .pInputModule = il,
        .pBuildFlags = flags,
    };
    *module = NULL;
    if (log != NULL)
        *log = NULL;
    return zeModuleCreate(env->context, env->device, &md, module, log);
}

char *zt_build_log_string(ze_module_build_log_handle_t log)
{
    size_t n = 0;
    ZT_OK(zeModuleBuildLogGetString(log, &n, NULL));
    char *s = calloc(n + 1, 1);
    cr_assert_not_null(s);
    if (n > 0)
        ZT_OK(zeModuleBuildLogGetString(log, &n, s));
    return s;
}

ze_module_handle_t zt_module_load(zt_env *env, const char *name)
{
    size_t size = 0;
    void *il = zt_load_spirv(name, &size);
    ze_module_handle_t m = NULL;
    ze_module_build_log_handle_t log = NULL;
    ze_result_t r = zt_module_create_il(env, il, size, NULL, &m, &log);
    free(il);
    if (r != ZE_RESULT_SUCCESS) {
        char *s = log != NULL ? zt_build_log_string(log) : NULL;
        cr_assert_fail("zeModuleCreate(%s) returned 0x%x (%s); build log: %s", name, (unsigned)r, zt_result_name(r),
                 s != NULL ? s : "(none)");
    }
    cr_assert_not_null(m);
    if (log != NULL)
        ZT_OK(zeModuleBuildLogDestroy(log));
    return m;
}

ze_kernel_handle_t zt_kernel_create(ze_module_handle_t module, const char *name)
{
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = name};
    ze_kernel_handle_t k = NULL;
    ZT_OK(zeKernelCreate(module, &kd, &k));
    cr_assert_not_null(k);
    return k;
}

ze_command_queue_handle_t zt_queue_create(zt_env *env, ze_command_queue_mode_t mode)
{
    ze_command_queue_desc_t qd = {
        .stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
        .ordinal = env->compute_ordinal,
        .mode = mode,
        .priority = ZE_COMMAND_QUEUE_PRIORITY_NORMAL,
    };
    ze_command_queue_handle_t q = NULL;
    ZT_OK(zeCommandQueueCreate(env->context, env->device, &qd, &q));
    cr_assert_not_null(q);
    return q;
}

ze_command_list_handle_t zt_list_create(zt_env *env)
{
    ze_command_list_desc_t ld = {
        .stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC,
        .commandQueueGroupOrdinal = env->compute_ordinal,
    };
    ze_command_list_handle_t l = NULL;
    ZT_OK(zeCommandListCreate(env->context, env->device, &ld, &l));
    cr_assert_not_null(l);
    return l;
}

ze_command_list_handle_t zt_immediate_create(zt_env *env, ze_command_queue_mode_t mode)
{
    ze_command_queue_desc_t qd = {
        .stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
        .ordinal = env->compute_ordinal,
        .mode = mode,
        .priority = ZE_COMMAND_QUEUE_PRIORITY_NORMAL,
    };
    ze_command_list_handle_t l = NULL;
    ZT_OK(zeCommandListCreateImmediate(env->context, env->device, &qd, &l));
    cr_assert_not_null(l);
    return l;
}

void *zt_alloc_shared(zt_env *env, size_t size)
{
    ze_device_mem_alloc_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    void *p = NULL;
    ZT_OK(zeMemAllocShared(env->context, &dd, &hd, size, 64, env->device, &p));
    cr_assert_not_null(p);
    return p;
}

void *zt_alloc_host(zt_env *env, size_t size)
{
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    void *p = NULL;
    ZT_OK(zeMemAllocHost(env->context, &hd, size, 64, &p));
    cr_assert_not_null(p);
    return p;
}

void *zt_alloc_device(zt_env *env, size_t size)
{
    ze_device_mem_alloc_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    void *p = NULL;
    ZT_OK(zeMemAllocDevice(env->context, &dd, size, 64, env->device, &p));
    cr_assert_not_null(p);
    return p;
}

ze_event_pool_handle_t zt_event_pool_create(zt_env *env, uint32_t count, bool timestamps)
{
    ze_event_pool_desc_t pd = {
        .stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
        .flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE | (timestamps ? ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP : 0),
        .count = count,
    };
    ze_event_pool_handle_t p = NULL;
    ZT_OK(zeEventPoolCreate(env->context, &pd, 1, &env->device, &p));
    cr_assert_not_null(p);
    return p;
}

ze_event_handle_t zt_event_create(ze_event_pool_handle_t pool, uint32_t index)
{
    ze_event_desc_t ed = {
        .stype = ZE_STRUCTURE_TYPE_EVENT_DESC,
        .index = index,
        .signal = ZE_EVENT_SCOPE_FLAG_HOST,
        .wait = ZE_EVENT_SCOPE_FLAG_HOST,
    };
    ze_event_handle_t e = NULL;
    ZT_OK(zeEventCreate(pool, &ed, &e));
    cr_assert_not_null(e);
    return e;
}

void zt_immediate_sync(zt_env *env, ze_command_list_handle_t list)
{
    ze_event_pool_handle_t pool = zt_event_pool_create(env, 1, false);
    ze_event_handle_t ev = zt_event_create(pool, 0);
    ZT_OK(zeCommandListAppendBarrier(list, ev, 0, NULL));
    ZT_OK(zeEventHostSynchronize(ev, ZT_TIMEOUT_NS));
    ZT_OK(zeEventDestroy(ev));
    ZT_OK(zeEventPoolDestroy(pool));
}

bool zt_ts_leq(uint64_t a, uint64_t b, uint32_t bits)
{
    uint64_t mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    if ((a & ~mask) != 0 || (b & ~mask) != 0)
        return false;
    return ((b - a) & mask) <= mask >> 1;
}

void zt_execute_and_wait(ze_command_queue_handle_t queue, ze_command_list_handle_t list)
{
    ZT_OK(zeCommandListClose(list));
    ZT_OK(zeCommandQueueExecuteCommandLists(queue, 1, &list, NULL));
    ZT_OK(zeCommandQueueSynchronize(queue, ZT_TIMEOUT_NS));
}

void zt_set_args(ze_kernel_handle_t kernel, uint32_t count, ...)
{
    va_list ap;
    va_start(ap, count);
    for (uint32_t i = 0; i < count; i++) {
        size_t size = va_arg(ap, size_t);
        const void *value = va_arg(ap, const void *);
        ze_result_t r = zeKernelSetArgumentValue(kernel, i, size, value);
        cr_assert_eq(r, ZE_RESULT_SUCCESS, "zeKernelSetArgumentValue(%u, %zu) returned 0x%x (%s)", i, size,
                     (unsigned)r, zt_result_name(r));
    }
    va_end(ap);
}

void zt_launch_sync(zt_env *env, ze_command_list_handle_t list, ze_kernel_handle_t kernel,
                    uint32_t gx, uint32_t gy, uint32_t gz, uint32_t nx, uint32_t ny, uint32_t nz)
{
    ZT_OK(zeKernelSetGroupSize(kernel, gx, gy, gz));
    ze_group_count_t count = {nx, ny, nz};
    ZT_OK(zeCommandListAppendLaunchKernel(list, kernel, &count, NULL, 0, NULL));
    zt_immediate_sync(env, list);
}

bool zt_driver_is(ze_driver_handle_t drv, const char *name)
{
    ze_driver_properties_t dp = {.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES};
    return zeDriverGetProperties(drv, &dp) == ZE_RESULT_SUCCESS && memcmp(dp.uuid.id, name, strlen(name)) == 0;
}

bool zt_driver_has_extension(ze_driver_handle_t drv, const char *name)
{
    uint32_t n = 0;
    ZT_OK(zeDriverGetExtensionProperties(drv, &n, NULL));
    ze_driver_extension_properties_t *e = calloc(n + 1, sizeof *e);
    cr_assert_not_null(e);
    ZT_OK(zeDriverGetExtensionProperties(drv, &n, e));
    bool has = false;
    for (uint32_t i = 0; i < n; i++) has |= strcmp(e[i].name, name) == 0;
    free(e);
    return has;
}
