/* Driver and device queries of ze_pocl, through the loader. */
#include "ze_common.h"

#include <level_zero/layers/zel_tracing_api.h>
#include <level_zero/layers/zel_tracing_register_cb.h>

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../driver/include/ze_krt_driver_status.h"

Test(ze_driver, init_is_idempotent)
{
    ZT_OK(zeInit(0));
    ZT_OK(zeInit(0));
    zt_env env;
    zt_init(&env);
    zt_fini(&env);
}

Test(ze_driver, get_returns_same_handles)
{
    zt_env env;
    zt_init(&env);
    uint32_t n1 = 0, n2 = 0;
    ZT_OK(zeDriverGet(&n1, NULL));
    ZT_OK(zeDriverGet(&n2, NULL));
    cr_assert_eq(n1, n2);
    cr_assert_geq(n1, 1);
    ze_driver_handle_t a[16], b[16];
    cr_assert_leq(n1, 16);
    ZT_OK(zeDriverGet(&n1, a));
    ZT_OK(zeDriverGet(&n2, b));
    cr_assert_arr_eq(a, b, n1 * sizeof a[0]);
    bool found = false;
    for (uint32_t i = 0; i < n1; i++)
        found = found || a[i] == env.driver;
    cr_assert(found);
    zt_fini(&env);
}

Test(ze_driver, api_version_is_1_x_at_least_1_4)
{
    zt_env env;
    zt_init(&env);
    ze_api_version_t v = 0;
    ZT_OK(zeDriverGetApiVersion(env.driver, &v));
    cr_assert_eq(ZE_MAJOR_VERSION(v), 1, "version 0x%x", (unsigned)v);
    cr_assert_geq(ZE_MINOR_VERSION(v), 4, "version 0x%x", (unsigned)v);
    zt_fini(&env);
}

Test(ze_driver, properties_have_stable_nonzero_uuid)
{
    zt_env env;
    zt_init(&env);
    ze_driver_properties_t p1 = {.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES};
    ze_driver_properties_t p2 = {.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES};
    ZT_OK(zeDriverGetProperties(env.driver, &p1));
    ZT_OK(zeDriverGetProperties(env.driver, &p2));
    cr_assert_arr_eq(p1.uuid.id, p2.uuid.id, ZE_MAX_DRIVER_UUID_SIZE);
    cr_assert_eq(p1.driverVersion, p2.driverVersion);
    uint8_t zero[ZE_MAX_DRIVER_UUID_SIZE] = {0};
    cr_assert_arr_neq(p1.uuid.id, zero, ZE_MAX_DRIVER_UUID_SIZE, "driver UUID is all zero");
    zt_fini(&env);
}

Test(ze_driver, ipc_properties)
{
    zt_env env;
    zt_init(&env);
    ze_driver_ipc_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DRIVER_IPC_PROPERTIES};
    ZT_OK(zeDriverGetIpcProperties(env.driver, &p));
    zt_fini(&env);
}

/* Two-call pattern, a too-large count corrected, a too-small count honoured, and the max-group-size
 * extension listed exactly once. */
Test(ze_driver, extension_properties)
{
    zt_env env;
    zt_init(&env);
    uint32_t n = 0;
    ZT_OK(zeDriverGetExtensionProperties(env.driver, &n, NULL));
    cr_assert_geq(n, 1, "no extension listed; the max-group-size extension is implemented");
    uint32_t big = n + 5;
    ze_driver_extension_properties_t *e = calloc(big, sizeof *e);
    cr_assert_not_null(e);
    ZT_OK(zeDriverGetExtensionProperties(env.driver, &big, e));
    cr_assert_eq(big, n, "count not corrected to the number available");
    int maxgs = 0;
    for (uint32_t i = 0; i < n; i++) {
        size_t len = strnlen(e[i].name, ZE_MAX_EXTENSION_NAME);
        cr_assert_lt(len, ZE_MAX_EXTENSION_NAME, "extension %u name not terminated", i);
        cr_assert_gt(len, 0, "extension %u has an empty name", i);
        cr_assert_gt(e[i].version, 0, "extension %s has version 0", e[i].name);
        for (uint32_t j = 0; j < i; j++)
            cr_assert_str_neq(e[i].name, e[j].name, "extension %s listed twice", e[i].name);
        if (strcmp(e[i].name, ZT_MAX_GROUP_SIZE_EXT_NAME) == 0)
            maxgs++;
    }
    cr_assert_eq(maxgs, 1, "%s not listed", ZT_MAX_GROUP_SIZE_EXT_NAME);

    if (n > 1) {
        ze_driver_extension_properties_t one[2];
        memset(one, 0x5a, sizeof one);
        uint32_t c = 1;
        ZT_OK(zeDriverGetExtensionProperties(env.driver, &c, one));
        cr_assert_eq(c, 1);
        cr_assert_str_eq(one[0].name, e[0].name);
        uint8_t pattern[sizeof one[1]];
        memset(pattern, 0x5a, sizeof pattern);
        cr_assert_arr_eq(&one[1], pattern, sizeof pattern, "wrote past the requested count");
    }
    free(e);
    zt_fini(&env);
}

Test(ze_driver, null_arguments)
{
    zt_env env;
    zt_init(&env);
    uint32_t n = 0;
    ZT_EXPECT(zeDriverGetExtensionProperties(NULL, &n, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeDriverGetExtensionProperties(env.driver, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(zeDriverGetProperties(NULL, &(ze_driver_properties_t){.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES}),
              ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeDriverGetProperties(env.driver, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(zeDeviceGet(NULL, &n, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeDeviceGet(env.driver, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(zeDeviceGetProperties(NULL, &(ze_device_properties_t){.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES}),
              ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeDeviceGetProperties(env.device, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(zeDeviceGetComputeProperties(env.device, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(zeDeviceGetModuleProperties(env.device, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(zeDeviceGetSubDevices(NULL, &n, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeDeviceGetSubDevices(env.device, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(zeContextCreate(NULL, &(ze_context_desc_t){.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC},
                              &(ze_context_handle_t){NULL}),
              ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeContextCreate(env.driver, NULL, &(ze_context_handle_t){NULL}), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(zeContextDestroy(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zt_fini(&env);
}

Test(ze_device, get_returns_same_handles)
{
    zt_env env;
    zt_init(&env);
    uint32_t n = 0;
    ZT_OK(zeDeviceGet(env.driver, &n, NULL));
    cr_assert_geq(n, 1);
    cr_assert_leq(n, 8);
    uint32_t big = n + 3;
    ze_device_handle_t a[16] = {0}, b[16] = {0};
    ZT_OK(zeDeviceGet(env.driver, &big, a));
    cr_assert_eq(big, n, "count not corrected to the number of devices");
    ZT_OK(zeDeviceGet(env.driver, &n, b));
    cr_assert_arr_eq(a, b, n * sizeof a[0]);
    for (uint32_t i = 0; i < n; i++)
        cr_assert_not_null(a[i]);
    zt_fini(&env);
}

/* The CPU device's shape: at least one hardware thread per online core, which PoCL's pthread device
 * uses, and a clock. */
Test(ze_device, properties)
{
    zt_env env;
    zt_init(&env);
    ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    ZT_OK(zeDeviceGetProperties(env.device, &p));
    bool gpu = zt_driver_is(env.driver, "ze_cuda");
    cr_assert_eq(p.type, gpu ? ZE_DEVICE_TYPE_GPU : ZE_DEVICE_TYPE_CPU);
    size_t len = strnlen(p.name, ZE_MAX_DEVICE_NAME);
    cr_assert_gt(len, 0, "empty device name");
    cr_assert_lt(len, ZE_MAX_DEVICE_NAME, "device name not terminated");
    cr_assert_gt(p.coreClockRate, 0);
    cr_assert_gt(p.maxMemAllocSize, 0);
    cr_assert_eq(p.flags & ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE, 0);
    cr_assert_gt(p.numSlices, 0);
    cr_assert_gt(p.numSubslicesPerSlice, 0);
    cr_assert_gt(p.numEUsPerSubslice, 0);
    cr_assert_gt(p.numThreadsPerEU, 0);
    uint64_t threads = (uint64_t)p.numSlices * p.numSubslicesPerSlice * p.numEUsPerSubslice * p.numThreadsPerEU;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    /* PoCL's pthread device runs work-groups on every core; its basic device uses one thread. */
    if (strncmp(p.name, "pthread", 7) == 0)
        cr_assert_geq(threads, (uint64_t)cores, "device reports %lu hardware threads for %ld online cores",
                      (unsigned long)threads, cores);
    if (!gpu)
        cr_assert_leq((uint64_t)p.numSlices * p.numSubslicesPerSlice * p.numEUsPerSubslice,
                      (uint64_t)sysconf(_SC_NPROCESSORS_CONF), "more execution units than configured cores");

    ze_device_properties_t again = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    ZT_OK(zeDeviceGetProperties(env.device, &again));
    cr_assert_arr_eq(p.uuid.id, again.uuid.id, ZE_MAX_DEVICE_UUID_SIZE);
    cr_assert_str_eq(p.name, again.name);
    zt_fini(&env);
}

Test(ze_device, compute_properties)
{
    zt_env env;
    zt_init(&env);
    ze_device_compute_properties_t c = {.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES};
    ZT_OK(zeDeviceGetComputeProperties(env.device, &c));
    cr_assert_gt(c.maxTotalGroupSize, 0);
    cr_assert_gt(c.maxGroupSizeX, 0);
    cr_assert_gt(c.maxGroupSizeY, 0);
    cr_assert_gt(c.maxGroupSizeZ, 0);
    cr_assert_leq(c.maxGroupSizeX, c.maxTotalGroupSize);
    cr_assert_leq(c.maxGroupSizeY, c.maxTotalGroupSize);
    cr_assert_leq(c.maxGroupSizeZ, c.maxTotalGroupSize);
    cr_assert_gt(c.maxGroupCountX, 0);
    cr_assert_gt(c.maxGroupCountY, 0);
    cr_assert_gt(c.maxGroupCountZ, 0);
    /* OpenCL guarantees at least 32 KiB of local memory on a full-profile device. */
    cr_assert_geq(c.maxSharedLocalMemory, 32768);
    zt_fini(&env);
}

/* PoCL's CPU device on x86-64 has cl_khr_fp64 and the int64 atomics, and takes SPIR-V 1.0 or later. */
Test(ze_device, module_properties)
{
    zt_env env;
    zt_init(&env);
    ze_device_module_properties_t m = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES};
    ZT_OK(zeDeviceGetModuleProperties(env.device, &m));
    cr_assert_geq(m.spirvVersionSupported, ZE_MAKE_VERSION(1, 0));
    cr_assert_gt(m.maxArgumentsSize, 0);
    cr_assert_neq(m.flags & ZE_DEVICE_MODULE_FLAG_FP64, 0, "fp64 not reported");
    cr_assert_neq(m.fp64flags, 0, "fp64 reported without fp64 capabilities");
    cr_assert_neq(m.flags & ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS, 0, "int64 atomics not reported");
    cr_assert_neq(m.fp32flags, 0);
    if (m.flags & ZE_DEVICE_MODULE_FLAG_FP16)
        cr_assert_neq(m.fp16flags, 0, "fp16 reported without fp16 capabilities");
    zt_fini(&env);
}

Test(ze_device, memory_properties)
{
    zt_env env;
    zt_init(&env);
    uint32_t n = 0;
    ZT_OK(zeDeviceGetMemoryProperties(env.device, &n, NULL));
    cr_assert_geq(n, 1);
    ze_device_memory_properties_t *m = calloc(n, sizeof *m);
    cr_assert_not_null(m);
    for (uint32_t i = 0; i < n; i++)
        m[i].stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES;
    ZT_OK(zeDeviceGetMemoryProperties(env.device, &n, m));
    cr_assert_gt(m[0].totalSize, 0);
    free(m);
    zt_fini(&env);
}

/* The issue promises fill patterns up to 128 bytes, which the spec ties to maxMemoryFillPatternSize. */
Test(ze_device, command_queue_groups)
{
    zt_env env;
    zt_init(&env);
    uint32_t n = 0;
    ZT_OK(zeDeviceGetCommandQueueGroupProperties(env.device, &n, NULL));
    cr_assert_geq(n, 1);
    ze_command_queue_group_properties_t g[8];
    cr_assert_leq(n, 8);
    for (uint32_t i = 0; i < n; i++)
        g[i] = (ze_command_queue_group_properties_t){.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES};
    ZT_OK(zeDeviceGetCommandQueueGroupProperties(env.device, &n, g));
    ze_command_queue_group_properties_t *c = &g[env.compute_ordinal];
    cr_assert_neq(c->flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE, 0);
    cr_assert_geq(c->numQueues, 1);
    cr_assert_geq(c->maxMemoryFillPatternSize, 128);
    zt_fini(&env);
}

Test(ze_device, cache_properties)
{
    zt_env env;
    zt_init(&env);
    uint32_t n = 0;
    ZT_OK(zeDeviceGetCacheProperties(env.device, &n, NULL));
    if (n > 0) {
        ze_device_cache_properties_t *c = calloc(n, sizeof *c);
        cr_assert_not_null(c);
        for (uint32_t i = 0; i < n; i++)
            c[i].stype = ZE_STRUCTURE_TYPE_DEVICE_CACHE_PROPERTIES;
        uint32_t m = n;
        ZT_OK(zeDeviceGetCacheProperties(env.device, &m, c));
        cr_assert_eq(m, n);
        free(c);
    }
    zt_fini(&env);
}

Test(ze_device, no_sub_devices)
{
    zt_env env;
    zt_init(&env);
    uint32_t n = 7;
    ZT_OK(zeDeviceGetSubDevices(env.device, &n, NULL));
    cr_assert_eq(n, 0);
    zt_fini(&env);
}

Test(ze_context, create_status_destroy)
{
    zt_env env;
    zt_init(&env);
    ZT_OK(zeContextGetStatus(env.context));
    ze_context_handle_t second = NULL;
    ze_context_desc_t cd = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
    ZT_OK(zeContextCreate(env.driver, &cd, &second));
    cr_assert_not_null(second);
    cr_assert_neq(second, env.context);
    ZT_OK(zeContextGetStatus(second));
    ZT_OK(zeContextDestroy(second));
    ZT_OK(zeContextGetStatus(env.context));
    zt_fini(&env);
}

/* The driver runs under the loader's tracing layer: every traced call reaches the driver and returns its
 * result, and the work is still done. The layer is switched on before zeInit, in this test's own process. */
typedef struct {
    int launch_prologue;
    int launch_epilogue;
    int set_arg_epilogue;
    ze_result_t last_launch_result;
} trace_counts;

static void on_launch_prologue(ze_command_list_append_launch_kernel_params_t *params, ze_result_t result,
                               void *user, void **instance)
{
    (void)params, (void)result, (void)instance;
    ((trace_counts *)user)->launch_prologue++;
}

static void on_launch_epilogue(ze_command_list_append_launch_kernel_params_t *params, ze_result_t result,
                               void *user, void **instance)
{
    (void)params, (void)instance;
    ((trace_counts *)user)->launch_epilogue++;
    ((trace_counts *)user)->last_launch_result = result;
}

static void on_set_arg_epilogue(ze_kernel_set_argument_value_params_t *params, ze_result_t result, void *user,
                                void **instance)
{
    (void)params, (void)instance;
    if (result == ZE_RESULT_SUCCESS)
        ((trace_counts *)user)->set_arg_epilogue++;
}

Test(ze_driver, runs_under_tracing_layer, .timeout = ZT_TEST_TIMEOUT)
{
    cr_assert_eq(setenv("ZE_ENABLE_TRACING_LAYER", "1", 1), 0);
    zt_env env;
    zt_init(&env);
    trace_counts counts = {0, 0, 0, ZE_RESULT_ERROR_UNKNOWN};
    zel_tracer_desc_t td = {ZEL_STRUCTURE_TYPE_TRACER_EXP_DESC, NULL, &counts};
    zel_tracer_handle_t tracer = NULL;
    ZT_OK(zelTracerCreate(&td, &tracer));
    ZT_OK(zelTracerCommandListAppendLaunchKernelRegisterCallback(tracer, ZEL_REGISTER_PROLOGUE, on_launch_prologue));
    ZT_OK(zelTracerCommandListAppendLaunchKernelRegisterCallback(tracer, ZEL_REGISTER_EPILOGUE, on_launch_epilogue));
    ZT_OK(zelTracerKernelSetArgumentValueRegisterCallback(tracer, ZEL_REGISTER_EPILOGUE, on_set_arg_epilogue));
    ZT_OK(zelTracerSetEnabled(tracer, 1));

    ze_module_handle_t m = zt_module_load(&env, "ze_vadd");
    ze_kernel_handle_t k = zt_kernel_create(m, "add_scalar");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    int *x = zt_alloc_shared(&env, 64 * sizeof(int));
    memset(x, 0, 64 * sizeof(int));
    int kv = 5;
    uint32_t n = 64;
    zt_set_args(k, 3, sizeof x, &x, sizeof kv, &kv, sizeof n, &n);
    ZT_OK(zeKernelSetGroupSize(k, 16, 1, 1));
    ze_group_count_t gc = {4, 1, 1};
    for (int i = 0; i < 3; i++)
        ZT_OK(zeCommandListAppendLaunchKernel(l, k, &gc, NULL, 0, NULL));
    zt_immediate_sync(&env, l);
    ZT_OK(zelTracerSetEnabled(tracer, 0));
    for (int i = 0; i < 64; i++)
        cr_assert_eq(x[i], 15);
    cr_assert_eq(counts.launch_prologue, 3);
    cr_assert_eq(counts.launch_epilogue, 3);
    cr_assert_eq(counts.set_arg_epilogue, 3);
    cr_assert_eq(counts.last_launch_result, ZE_RESULT_SUCCESS);
    ZT_OK(zelTracerDestroy(tracer));
    ZT_OK(zeMemFree(env.context, x));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* Issue 2: what the driver does not implement answers UNSUPPORTED_FEATURE (from the driver or from the
 * loader for a missing table entry), never a crash. Arguments are valid so that no layer rejects them first. */
Test(ze_driver, unsupported_entry_points)
{
    zt_env env;
    zt_init(&env);
    const ze_result_t U = ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    ze_image_desc_t id = {.stype = ZE_STRUCTURE_TYPE_IMAGE_DESC,
                          .type = ZE_IMAGE_TYPE_2D,
                          .format = {.layout = ZE_IMAGE_FORMAT_LAYOUT_8_8_8_8, .type = ZE_IMAGE_FORMAT_TYPE_UNORM},
                          .width = 16,
                          .height = 16,
                          .depth = 1};
    ze_image_handle_t img = NULL;
    ZT_EXPECT(zeImageCreate(env.context, env.device, &id, &img), U);
    ze_sampler_desc_t sd = {.stype = ZE_STRUCTURE_TYPE_SAMPLER_DESC};
    ze_sampler_handle_t smp = NULL;
    ZT_EXPECT(zeSamplerCreate(env.context, env.device, &sd, &smp), U);
    void *p = zt_alloc_device(&env, 64);
    ze_ipc_mem_handle_t ih;
    ZT_EXPECT(zeMemGetIpcHandle(env.context, p, &ih), U);
    ze_module_handle_t m = zt_module_load(&env, "ze_vadd");
    void *fp = NULL;
    ZT_EXPECT(zeModuleGetFunctionPointer(m, "vadd", &fp), U);
    ze_kernel_handle_t k = zt_kernel_create(m, "iota");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    uint32_t *out = zt_alloc_shared(&env, 64 * sizeof(uint32_t));
    zt_set_args(k, 1, sizeof out, &out);
    ZT_OK(zeKernelSetGroupSize(k, 1, 1, 1));
    ze_group_count_t gc = {1, 1, 1};
    ZT_EXPECT(zeCommandListAppendLaunchCooperativeKernel(l, k, &gc, NULL, 0, NULL), U);
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 1, false);
    ze_ipc_event_pool_handle_t iph;
    ZT_EXPECT(zeEventPoolGetIpcHandle(pool, &iph), U);
    /* Nothing was left half-done: the list still works. */
    out[0] = 77;
    zt_launch_sync(&env, l, k, 1, 1, 1, 1, 1, 1);
    cr_assert_eq(out[0], 0);
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeMemFree(env.context, p));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* Documented: zeInit(ZE_INIT_FLAG_GPU_ONLY), which many programs pass out of habit, still finds ze_pocl. */
Test(ze_driver, init_gpu_only_finds_ze_pocl)
{
    ZT_OK(zeInit(ZE_INIT_FLAG_GPU_ONLY));
    uint32_t n = 0;
    ZT_OK(zeDriverGet(&n, NULL));
    cr_assert_geq(n, 1);
    zt_env env;
    zt_init(&env);
    zt_fini(&env);
}

/* KRT_ZE_POCL_DEVICE_TYPE=gpu, ze_pocl's test knob for clients that take only GPUs: zeDeviceGetProperties reports
 * the type GPU, and the rest stays the CPU's (integrated, sharing the host's memory). Criterion runs each test in a
 * process of its own, so the variable is read afresh. */
Test(ze_driver, pocl_device_type_knob_reports_gpu)
{
    setenv("KRT_ZE_POCL_DEVICE_TYPE", "gpu", 1);
    zt_env env;
    zt_init(&env);
    if (!zt_driver_is(env.driver, "ze_pocl"))
        cr_skip_test("KRT_ZE_POCL_DEVICE_TYPE is ze_pocl's; the driver under test is another");
    ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    ZT_OK(zeDeviceGetProperties(env.device, &p));
    cr_assert_eq(p.type, ZE_DEVICE_TYPE_GPU, "type %d", (int)p.type);
    cr_assert(p.flags & ZE_DEVICE_PROPERTY_FLAG_INTEGRATED, "flags 0x%x", (unsigned)p.flags);
    zt_fini(&env);
    unsetenv("KRT_ZE_POCL_DEVICE_TYPE");
}

/* "cpu" is the default answer, and any value but cpu or gpu leaves ze_pocl without a device, its status naming the
 * variable and the value (krt_driver_list and krt-info show it), rather than a device of a type not asked for. */
Test(ze_driver, pocl_device_type_knob_cpu_and_bad_value)
{
    const char *path = getenv("ZE_ENABLE_ALT_DRIVERS");
    if (!path || !strstr(path, "ze_pocl"))
        cr_skip_test("KRT_ZE_POCL_DEVICE_TYPE is ze_pocl's; the driver under test is another");
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) { /* "cpu": the type stays CPU */
        setenv("KRT_ZE_POCL_DEVICE_TYPE", "cpu", 1);
        zt_env env;
        zt_init(&env);
        ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
        _exit(zeDeviceGetProperties(env.device, &p) == ZE_RESULT_SUCCESS && p.type == ZE_DEVICE_TYPE_CPU ? 0 : 1);
    }
    int st = 0;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "with KRT_ZE_POCL_DEVICE_TYPE=cpu the type is not CPU");
    setenv("KRT_ZE_POCL_DEVICE_TYPE", "fpga", 1);
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(lib, "dlopen(%s): %s", path, dlerror());
    ze_pfnKrtDriverStatus_t status;
    *(void **)&status = dlsym(lib, ZE_KRT_DRIVER_STATUS_SYMBOL);
    cr_assert_not_null(status);
    ze_krt_driver_status_t s;
    ZT_OK(status(&s));
    cr_assert_eq(s.numDevices, 0u);
    cr_assert(strstr(s.reason, "KRT_ZE_POCL_DEVICE_TYPE=\"fpga\"") != NULL, "reason: %s", s.reason);
    cr_assert_neq(zeInit(0), ZE_RESULT_SUCCESS, "zeInit succeeded with no device");
    unsetenv("KRT_ZE_POCL_DEVICE_TYPE");
}

/* timerResolution is in nanoseconds for DEVICE_PROPERTIES and in cycles per second for DEVICE_PROPERTIES_1_2:
 * the two describe the same timer. */
Test(ze_device, timer_resolution_in_both_units)
{
    zt_env env;
    zt_init(&env);
    ze_device_properties_t ns = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    ze_device_properties_t hz = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2};
    ZT_OK(zeDeviceGetProperties(env.device, &ns));
    ZT_OK(zeDeviceGetProperties(env.device, &hz));
    cr_assert_geq(ns.timerResolution, 1);
    cr_assert_geq(hz.timerResolution, 1);
    double product = (double)ns.timerResolution * (double)hz.timerResolution;
    cr_assert(product > 0.99e9 && product < 1.01e9, "%lu ns per tick but %lu ticks per second",
              (unsigned long)ns.timerResolution, (unsigned long)hz.timerResolution);
    cr_assert_gt(ns.timestampValidBits, 0);
    cr_assert_gt(ns.kernelTimestampValidBits, 0);
    cr_assert_str_eq(ns.name, hz.name);
    zt_fini(&env);
}

/* The global-offset extension's function is reachable by name, and calling it works like the API entry. */
typedef ze_result_t (*set_offset_fn)(ze_kernel_handle_t, uint32_t, uint32_t, uint32_t);

Test(ze_driver, extension_function_address, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env;
    zt_init(&env);
    void *fp = NULL;
    ZT_EXPECT(zeDriverGetExtensionFunctionAddress(env.driver, NULL, &fp), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(zeDriverGetExtensionFunctionAddress(env.driver, "zeKernelSetGlobalOffsetExp", NULL),
              ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(zeDriverGetExtensionFunctionAddress(NULL, "zeKernelSetGlobalOffsetExp", &fp),
              ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    fp = (void *)(uintptr_t)1;
    cr_assert_neq(zeDriverGetExtensionFunctionAddress(env.driver, "zeNoSuchFunctionExp", &fp), ZE_RESULT_SUCCESS);
    if (!zt_driver_has_extension(env.driver, ZE_GLOBAL_OFFSET_EXP_NAME)) {
        zt_fini(&env);
        cr_skip_test("%s not listed", ZE_GLOBAL_OFFSET_EXP_NAME);
    }
    fp = NULL;
    ZT_OK(zeDriverGetExtensionFunctionAddress(env.driver, "zeKernelSetGlobalOffsetExp", &fp));
    cr_assert_not_null(fp);
    set_offset_fn set_offset;
    memcpy(&set_offset, &fp, sizeof set_offset);
    ze_module_handle_t m = zt_module_load(&env, "ze_vadd");
    ze_kernel_handle_t k = zt_kernel_create(m, "iota");
    uint32_t *out = zt_alloc_shared(&env, 64 * sizeof(uint32_t));
    memset(out, 0, 64 * sizeof(uint32_t));
    zt_set_args(k, 1, sizeof out, &out);
    ZT_OK(set_offset(k, 40, 0, 0));
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zt_launch_sync(&env, l, k, 8, 1, 1, 1, 1, 1);
    for (uint32_t i = 0; i < 64; i++)
        cr_assert_eq(out[i], (i >= 40 && i < 48) ? i : 0, "out[%u] = %u", i, out[i]);
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}
