/* What the Level Zero conformance suite asks of a driver beyond the other test_ze_* files: specialization
 * constants given for some ids only, a module without kernels, source attributes, system memory on a CPU
 * device, virtual memory, global variables, indirect launches, copies between contexts and the system barrier.
 * Every case runs on ze_pocl (make test) and on ze_cuda (tools/gpu-test.sh), asserting computed values or exact
 * result codes; where the two devices differ by design (a CPU reaches malloc'd memory, a GPU does not), the
 * test asserts each device's answer. */
#include "ze_common.h"

#include <stdlib.h>
#include <string.h>

static bool device_is_cpu(zt_env *env)
{
    ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    ZT_OK(zeDeviceGetProperties(env->device, &p));
    return p.type == ZE_DEVICE_TYPE_CPU;
}

/* Builds a module from $KRT_TEST_KERNELS/<name>.spv with the given specialization constants. */
static ze_module_handle_t load_with_constants(zt_env *env, const char *name, const ze_module_constants_t *consts)
{
    size_t size = 0;
    void *il = zt_load_spirv(name, &size);
    ze_module_desc_t md = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC, .format = ZE_MODULE_FORMAT_IL_SPIRV,
                           .inputSize = size, .pInputModule = il, .pConstants = consts};
    ze_module_handle_t m = NULL;
    ZT_OK(zeModuleCreate(env->context, env->device, &md, &m, NULL));
    free(il);
    return m;
}

/* Runs spec_sum once on a regular list executed on a queue, the way the conformance suite does, and returns the
 * sum it wrote. */
static uint64_t run_spec_sum(zt_env *env, ze_module_handle_t m)
{
    ze_kernel_handle_t k = zt_kernel_create(m, "spec_sum");
    uint64_t *out = zt_alloc_shared(env, sizeof *out);
    *out = 0;
    zt_set_args(k, 1, sizeof out, &out);
    ZT_OK(zeKernelSetGroupSize(k, 1, 1, 1));
    ze_command_queue_handle_t q = zt_queue_create(env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t l = zt_list_create(env);
    ze_group_count_t gc = {1, 1, 1};
    ZT_OK(zeCommandListAppendLaunchKernel(l, k, &gc, NULL, 0, NULL));
    zt_execute_and_wait(q, l);
    uint64_t v = *out;
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeCommandQueueDestroy(q));
    ZT_OK(zeMemFree(env->context, out));
    ZT_OK(zeKernelDestroy(k));
    return v;
}

/* Four 64-bit constants, three of them given (ids 0, 1 and 3): 20 + 40 + 50 (id 2's default) + 80. The
 * conformance suite's case of this reads 160 only when it reads the result before the kernel ran: its immediate
 * variant waits with zeCommandListHostSynchronize, an API 1.6 function these drivers (1.4) do not have. */
Test(ze_conform, some_specialization_constants_given, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = load_with_constants(&env, "ze_spec64", NULL);
    cr_assert_eq(run_spec_sum(&env, m), 160);
    ZT_OK(zeModuleDestroy(m));

    uint64_t v0 = 20, v1 = 40, v3 = 80;
    uint32_t ids[] = {0, 1, 3};
    const void *values[] = {&v0, &v1, &v3};
    ze_module_constants_t consts = {.numConstants = 3, .pConstantIds = ids, .pConstantValues = values};
    m = load_with_constants(&env, "ze_spec64", &consts);
    cr_assert_eq(run_spec_sum(&env, m), 190);
    ZT_OK(zeModuleDestroy(m));

    /* A value above 32 bits reaches the kernel whole. */
    uint64_t big = 0x123456789ull;
    uint32_t id2[] = {2};
    const void *val2[] = {&big};
    consts = (ze_module_constants_t){.numConstants = 1, .pConstantIds = id2, .pConstantValues = val2};
    m = load_with_constants(&env, "ze_spec64", &consts);
    cr_assert_eq(run_spec_sum(&env, m), 10 + 30 + 0x123456789ull + 70);
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* A module without kernels builds, lists no kernel names, and refuses any kernel name. */
Test(ze_conform, module_without_kernels)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "asm/ze_no_kernels");
    uint32_t count = 99;
    ZT_OK(zeModuleGetKernelNames(m, &count, NULL));
    cr_assert_eq(count, 0);
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = "twice"};
    ze_kernel_handle_t k = NULL;
    ZT_EXPECT(zeKernelCreate(m, &kd, &k), ZE_RESULT_ERROR_INVALID_KERNEL_NAME);
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* zeKernelGetSourceAttributes as the conformance suite calls it: the size first, then the string through a
 * pointer to the caller's char pointer. */
static void expect_attributes(ze_module_handle_t m, const char *kernel, const char *want)
{
    ze_kernel_handle_t k = zt_kernel_create(m, kernel);
    uint32_t size = 0;
    /* The loader's validation layer (1.8.12) refuses a NULL pString; a pointer to a NULL string asks the size
     * too. */
    if (!zt_validation_layer()) {
        ZT_OK(zeKernelGetSourceAttributes(k, &size, NULL));
        cr_assert_eq(size, strlen(want) + 1, "%s: size %u for \"%s\"", kernel, size, want);
    }
    char *none = NULL;
    size = 0;
    ZT_OK(zeKernelGetSourceAttributes(k, &size, &none));
    cr_assert_eq(size, strlen(want) + 1, "%s: size %u for \"%s\"", kernel, size, want);
    char *buf = malloc(size + 8);
    memset(buf, 'x', size + 8);
    ZT_OK(zeKernelGetSourceAttributes(k, &size, &buf));
    cr_assert_eq(size, strlen(want) + 1);
    cr_assert_str_eq(buf, want, "%s: \"%s\", expected \"%s\"", kernel, buf, want);
    cr_assert_eq(buf[size], 'x', "%s: written past the size", kernel);
    /* A short buffer gets the attributes cut and terminated. */
    if (size > 4) {
        uint32_t small = 4;
        memset(buf, 'x', size + 8);
        ZT_OK(zeKernelGetSourceAttributes(k, &small, &buf));
        cr_assert_eq(small, 4);
        cr_assert_eq(memcmp(buf, want, 3), 0);
        cr_assert_eq(buf[3], '\0');
        cr_assert_eq(buf[4], 'x');
    }
    free(buf);
    ZT_OK(zeKernelDestroy(k));
}

Test(ze_conform, source_attributes)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_conform");
    expect_attributes(m, "hinted", "work_group_size_hint(1,1,1)");
    expect_attributes(m, "required_and_hinted", "reqd_work_group_size(4,2,1) work_group_size_hint(4,2,1)");
    expect_attributes(m, "vec_hinted", "vec_type_hint(float4)");
    expect_attributes(m, "plain", "");
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* A CPU device runs kernels on memory from the system allocator, atomics included: it reports every capability
 * for it. A GPU device of these drivers reports none. */
Test(ze_conform, shared_system_allocations, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env;
    zt_init(&env);
    ze_device_memory_access_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_ACCESS_PROPERTIES};
    ZT_OK(zeDeviceGetMemoryAccessProperties(env.device, &p));
    if (!device_is_cpu(&env)) {
        cr_assert_eq(p.sharedSystemAllocCapabilities, 0);
        zt_fini(&env);
        return;
    }
    cr_assert_eq(p.sharedSystemAllocCapabilities,
                 ZE_MEMORY_ACCESS_CAP_FLAG_RW | ZE_MEMORY_ACCESS_CAP_FLAG_ATOMIC |
                     ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT | ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT_ATOMIC);
    enum { N = 1000 };
    int *counter = malloc(sizeof *counter);
    int *items = malloc(N * sizeof *items);
    *counter = 5;
    memset(items, 0, N * sizeof *items);
    ze_module_handle_t m = zt_module_load(&env, "ze_conform");
    ze_kernel_handle_t k = zt_kernel_create(m, "count_into");
    zt_set_args(k, 2, sizeof counter, &counter, sizeof items, &items);
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    zt_launch_sync(&env, l, k, 8, 1, 1, N / 8, 1, 1);
    cr_assert_eq(*counter, 5 + N);
    for (int i = 0; i < N; i++) cr_assert_eq(items[i], 3 * i, "items[%d] = %d", i, items[i]);
    /* Copies between system memory and an allocation, in both directions. */
    int *dev = zt_alloc_device(&env, N * sizeof *dev);
    int *back = malloc(N * sizeof *back);
    memset(back, 0, N * sizeof *back);
    ZT_OK(zeCommandListAppendMemoryCopy(l, dev, items, N * sizeof *dev, NULL, 0, NULL));
    ZT_OK(zeCommandListAppendBarrier(l, NULL, 0, NULL));
    ZT_OK(zeCommandListAppendMemoryCopy(l, back, dev, N * sizeof *dev, NULL, 0, NULL));
    zt_immediate_sync(&env, l);
    cr_assert_eq(memcmp(back, items, N * sizeof *back), 0);
    free(back);
    free(items);
    free(counter);
    ZT_OK(zeMemFree(env.context, dev));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}
