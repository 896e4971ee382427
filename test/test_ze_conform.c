/* What the Level Zero conformance suite asks of a driver beyond the other test_ze_* files: specialization
 * constants given for some ids only, a module without kernels, source attributes, system memory on a CPU
 * device, virtual memory, global variables, indirect launches, copies between contexts, the system barrier and
 * global offsets in dimensions whose range is 1.
 * Every case runs on ze_pocl (make test) and on ze_cuda (tools/gpu-test.sh), asserting computed values or exact
 * result codes; where the two devices differ by design (a CPU reaches malloc'd memory, a GPU does not), the
 * test asserts each device's answer. */
#include "ze_common.h"
#include "offset_cases.h"

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
 * conformance suite's case of this expects 190 from a module with no specialization constants in it
 * (update_variable_with_spec_constant.spv declares no OpSpecConstant: its four values are ordinary constants),
 * which gives 160 on any driver; ze_spec64 has the four constants the suite's test means. */
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

/* A reservation hint: the validation layer refuses a NULL start (1.4's text lists it), although the driver takes
 * NULL as "anywhere". */
static const void *reserve_hint(void)
{
    return zt_validation_layer() ? (const void *)(uintptr_t)0x100000000000ull : NULL;
}

/* Launches iota over n items into out (any memory the device reaches) and waits. */
static void run_iota(zt_env *env, ze_command_list_handle_t l, ze_kernel_handle_t k, void *out, uint32_t n)
{
    zt_set_args(k, 1, sizeof out, &out);
    zt_launch_sync(env, l, k, 64, 1, 1, n / 64, 1, 1);
}

/* Virtual memory: physical memory mapped twice into one reservation is one memory seen at two addresses, by
 * kernels and copies; access attributes are kept per page-aligned part of a mapping; a mapping is unmapped whole;
 * physical memory in use cannot be destroyed. */
Test(ze_conform, virtual_memory_maps_physical_memory, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env;
    zt_init(&env);
    size_t page = 0;
    ZT_OK(zeVirtualMemQueryPageSize(env.context, env.device, 1, &page));
    cr_assert_gt(page, 0);
    cr_assert_eq(page & (page - 1), 0, "page size %zu is not a power of two", page);
    /* An even number of pages (halves are set apart below), at least 256 KiB. */
    size_t size = 2 * page > 64 * 4096 ? 2 * page : 64 * 4096;
    size = (size + 2 * page - 1) / (2 * page) * (2 * page);
    void *va = NULL;
    ZT_OK(zeVirtualMemReserve(env.context, reserve_hint(), 2 * size, &va));
    cr_assert_not_null(va);
    cr_assert_eq((uintptr_t)va % page, 0);
    ze_memory_access_attribute_t access = ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE;
    size_t out_size = 0;
    ZT_OK(zeVirtualMemGetAccessAttribute(env.context, va, 2 * size, &access, &out_size));
    cr_assert_eq(access, ZE_MEMORY_ACCESS_ATTRIBUTE_NONE);
    cr_assert_eq(out_size, 2 * size);

    ze_physical_mem_desc_t pd = {.stype = ZE_STRUCTURE_TYPE_PHYSICAL_MEM_DESC, .size = size};
    ze_physical_mem_handle_t phys = NULL;
    ZT_OK(zePhysicalMemCreate(env.context, env.device, &pd, &phys));
    char *second = (char *)va + size;
    ZT_OK(zeVirtualMemMap(env.context, va, size, phys, 0, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE));
    ZT_OK(zeVirtualMemMap(env.context, second, size, phys, 0, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE));
    /* The same pages mapped again over a mapping: refused. */
    ZT_EXPECT(zeVirtualMemMap(env.context, va, page, phys, 0, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE),
              ZE_RESULT_ERROR_INVALID_ARGUMENT);

    /* A kernel writes through the first mapping; a copy reads the second. */
    uint32_t n = (uint32_t)(size / sizeof(uint32_t));
    ze_module_handle_t m = zt_module_load(&env, "ze_vadd");
    ze_kernel_handle_t k = zt_kernel_create(m, "iota");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    run_iota(&env, l, k, va, n);
    uint32_t *back = zt_alloc_shared(&env, size);
    memset(back, 0, size);
    ZT_OK(zeCommandListAppendMemoryCopy(l, back, second, size, NULL, 0, NULL));
    zt_immediate_sync(&env, l);
    for (uint32_t i = 0; i < n; i++) cr_assert_eq(back[i], i, "word %u reads %u through the second mapping", i, back[i]);
    /* A fill through the second mapping, read back through the first. */
    uint32_t pattern = 0xa5c3e1f7u;
    ZT_OK(zeCommandListAppendMemoryFill(l, second, &pattern, sizeof pattern, size, NULL, 0, NULL));
    ZT_OK(zeCommandListAppendBarrier(l, NULL, 0, NULL));
    ZT_OK(zeCommandListAppendMemoryCopy(l, back, va, size, NULL, 0, NULL));
    zt_immediate_sync(&env, l);
    for (uint32_t i = 0; i < n; i++) cr_assert_eq(back[i], pattern);

    /* Attributes per part: the second half of the first mapping read-only. */
    ZT_OK(zeVirtualMemSetAccessAttribute(env.context, (char *)va + size / 2, size / 2,
                                         ZE_MEMORY_ACCESS_ATTRIBUTE_READONLY));
    ZT_OK(zeVirtualMemGetAccessAttribute(env.context, va, 2 * size, &access, &out_size));
    cr_assert_eq(access, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE);
    cr_assert_eq(out_size, size / 2);
    ZT_OK(zeVirtualMemGetAccessAttribute(env.context, (char *)va + size / 2, size / 2, &access, &out_size));
    cr_assert_eq(access, ZE_MEMORY_ACCESS_ATTRIBUTE_READONLY);
    cr_assert_eq(out_size, size / 2);
    ZT_OK(zeVirtualMemSetAccessAttribute(env.context, va, size, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE));
    ZT_OK(zeVirtualMemGetAccessAttribute(env.context, va, 2 * size, &access, &out_size));
    cr_assert_eq(access, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE);
    cr_assert_eq(out_size, 2 * size);

    /* Mapped physical memory cannot be destroyed; part of a mapping cannot be unmapped. */
    ZT_EXPECT(zePhysicalMemDestroy(env.context, phys), ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
    ZT_EXPECT(zeVirtualMemUnmap(env.context, va, size / 2), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ZT_OK(zeVirtualMemUnmap(env.context, va, size));
    ZT_OK(zeVirtualMemGetAccessAttribute(env.context, va, 2 * size, &access, &out_size));
    cr_assert_eq(access, ZE_MEMORY_ACCESS_ATTRIBUTE_NONE);
    cr_assert_eq(out_size, size);
    /* The second mapping still holds the data. */
    memset(back, 0, size);
    ZT_OK(zeCommandListAppendMemoryCopy(l, back, second, size, NULL, 0, NULL));
    zt_immediate_sync(&env, l);
    cr_assert_eq(back[n - 1], pattern);
    /* Freeing the reservation unmaps what is left; then the physical memory can go. */
    ZT_OK(zeVirtualMemFree(env.context, va, 2 * size));
    ZT_OK(zePhysicalMemDestroy(env.context, phys));

    ZT_OK(zeMemFree(env.context, back));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* The codes of the virtual memory entries for what the specification lists. */
Test(ze_conform, virtual_memory_refusals)
{
    zt_env env;
    zt_init(&env);
    size_t page = 0;
    ZT_EXPECT(zeVirtualMemQueryPageSize(env.context, env.device, 0, &page), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    ZT_OK(zeVirtualMemQueryPageSize(env.context, env.device, 3 * page + 1, &page));
    void *va = NULL;
    ZT_EXPECT(zeVirtualMemReserve(env.context, reserve_hint(), 0, &va), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    ZT_EXPECT(zeVirtualMemReserve(env.context, reserve_hint(), page + 1, &va), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    ZT_OK(zeVirtualMemReserve(env.context, reserve_hint(), 4 * page, &va));
    ze_physical_mem_desc_t pd = {.stype = ZE_STRUCTURE_TYPE_PHYSICAL_MEM_DESC, .size = 0};
    ze_physical_mem_handle_t phys = NULL;
    ZT_EXPECT(zePhysicalMemCreate(env.context, env.device, &pd, &phys), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    pd.size = page;
    pd.flags = 0x4;
    ZT_EXPECT(zePhysicalMemCreate(env.context, env.device, &pd, &phys), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    pd.flags = 0;
    ZT_OK(zePhysicalMemCreate(env.context, env.device, &pd, &phys));
    ZT_EXPECT(zeVirtualMemMap(env.context, va, page, phys, 0, (ze_memory_access_attribute_t)3),
              ZE_RESULT_ERROR_INVALID_ENUMERATION);
    /* More than the physical memory holds, or from past its end. */
    ZT_EXPECT(zeVirtualMemMap(env.context, va, 2 * page, phys, 0, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE),
              ZE_RESULT_ERROR_INVALID_SIZE);
    ZT_EXPECT(zeVirtualMemMap(env.context, va, page, phys, page, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE),
              ZE_RESULT_ERROR_INVALID_SIZE);
    /* Outside the reservation, or not page-aligned. */
    ZT_EXPECT(zeVirtualMemMap(env.context, (char *)va + 4 * page, page, phys, 0, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE),
              ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ZT_EXPECT(zeVirtualMemMap(env.context, (char *)va + 1, page, phys, 0, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE),
              ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT);
    ZT_EXPECT(zeVirtualMemSetAccessAttribute(env.context, va, page, (ze_memory_access_attribute_t)3),
              ZE_RESULT_ERROR_INVALID_ENUMERATION);
    /* Only a whole reservation of the context is freed. */
    ZT_EXPECT(zeVirtualMemFree(env.context, va, 2 * page), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ZT_OK(zeVirtualMemFree(env.context, va, 4 * page));
    ZT_OK(zePhysicalMemDestroy(env.context, phys));
    zt_fini(&env);
}

/* Checks what the groups kernel wrote for a launch of (gx, gy, gz) groups of (lx, ly, 1) items: every item saw
 * that count, the groups ids cover it exactly once per item, and nothing past the launch was written. */
static void expect_groups(const uint32_t *out, uint32_t gx, uint32_t gy, uint32_t gz, uint32_t lx, uint32_t ly,
                          size_t words)
{
    size_t items = (size_t)gx * gy * gz * lx * ly;
    size_t seen[4][4][4] = {{{0}}};
    for (size_t i = 0; i < items; i++) {
        cr_assert_eq(out[4 * i + 0], gx, "item %zu: %u groups in x, expected %u", i, out[4 * i + 0], gx);
        cr_assert_eq(out[4 * i + 1], gy);
        cr_assert_eq(out[4 * i + 2], gz);
        uint32_t id = out[4 * i + 3];
        cr_assert(id % 100 < gx && id / 100 % 100 < gy && id / 10000 < gz, "item %zu: group id %u", i, id);
        seen[id % 100][id / 100 % 100][id / 10000]++;
    }
    for (uint32_t z = 0; z < gz; z++)
        for (uint32_t y = 0; y < gy; y++)
            for (uint32_t x = 0; x < gx; x++) cr_assert_eq(seen[x][y][z], (size_t)lx * ly);
    for (size_t w = 4 * items; w < words; w++) cr_assert_eq(out[w], 0xdeadbeefu, "word %zu past the launch written", w);
}

/* An indirect launch reads its group count when its turn comes: here the host writes the count after the append,
 * before it signals the event the launch waits for. */
Test(ze_conform, indirect_launch_reads_the_count_when_it_runs, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_conform");
    ze_kernel_handle_t k = zt_kernel_create(m, "groups");
    enum { WORDS = 4 * 4 * 4 * 4 * 4 };
    uint32_t *out = zt_alloc_shared(&env, WORDS * sizeof *out);
    for (size_t w = 0; w < WORDS; w++) out[w] = 0xdeadbeefu;
    ze_group_count_t *count = zt_alloc_shared(&env, sizeof *count);
    *count = (ze_group_count_t){1, 1, 1};
    zt_set_args(k, 1, sizeof out, &out);
    ZT_OK(zeKernelSetGroupSize(k, 2, 2, 1));
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 2, false);
    ze_event_handle_t go = zt_event_create(pool, 0), done = zt_event_create(pool, 1);
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ZT_OK(zeCommandListAppendLaunchKernelIndirect(l, k, count, done, 1, &go));
    *count = (ze_group_count_t){3, 2, 2};
    ZT_EXPECT(zeEventQueryStatus(done), ZE_RESULT_NOT_READY);
    ZT_OK(zeEventHostSignal(go));
    ZT_OK(zeEventHostSynchronize(done, ZT_TIMEOUT_NS));
    expect_groups(out, 3, 2, 2, 2, 2, WORDS);
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeEventDestroy(go));
    ZT_OK(zeEventDestroy(done));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeMemFree(env.context, count));
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* In a regular list the count is read at each execution, after the commands before the launch: here a copy into
 * device memory writes it, from host memory that changes between executions. A zero count launches nothing and
 * still signals. */
Test(ze_conform, indirect_launch_in_a_regular_list, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_conform");
    ze_kernel_handle_t k = zt_kernel_create(m, "groups");
    enum { WORDS = 4 * 4 * 4 * 4 * 4 };
    uint32_t *out = zt_alloc_shared(&env, WORDS * sizeof *out);
    ze_group_count_t *source = zt_alloc_host(&env, sizeof *source);
    ze_group_count_t *count = zt_alloc_device(&env, sizeof *count);
    zt_set_args(k, 1, sizeof out, &out);
    ZT_OK(zeKernelSetGroupSize(k, 1, 2, 1));
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 1, false);
    ze_event_handle_t done = zt_event_create(pool, 0);
    ze_command_queue_handle_t q = zt_queue_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t l = zt_list_create(&env);
    ZT_OK(zeCommandListAppendMemoryCopy(l, count, source, sizeof *count, NULL, 0, NULL));
    ZT_OK(zeCommandListAppendBarrier(l, NULL, 0, NULL));
    ZT_OK(zeCommandListAppendLaunchKernelIndirect(l, k, count, done, 0, NULL));
    ZT_OK(zeCommandListClose(l));
    const ze_group_count_t runs[] = {{2, 1, 3}, {4, 2, 1}, {0, 1, 1}};
    for (int i = 0; i < 3; i++) {
        for (size_t w = 0; w < WORDS; w++) out[w] = 0xdeadbeefu;
        *source = runs[i];
        ZT_OK(zeEventHostReset(done));
        ZT_OK(zeCommandQueueExecuteCommandLists(q, 1, &l, NULL));
        ZT_OK(zeCommandQueueSynchronize(q, UINT64_MAX));
        ZT_OK(zeEventQueryStatus(done));
        expect_groups(out, runs[i].groupCountX, runs[i].groupCountY, runs[i].groupCountZ, 1, 2, WORDS);
    }
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeCommandQueueDestroy(q));
    ZT_OK(zeEventDestroy(done));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeMemFree(env.context, count));
    ZT_OK(zeMemFree(env.context, source));
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* A list destroyed while its indirect launch still waits for an event drops the launch; the event signalled
 * afterwards finds nothing to run, and the kernel never ran. */
Test(ze_conform, indirect_launch_dropped_with_its_list, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_conform");
    ze_kernel_handle_t k = zt_kernel_create(m, "groups");
    uint32_t *out = zt_alloc_shared(&env, 64 * sizeof *out);
    for (size_t w = 0; w < 64; w++) out[w] = 0xdeadbeefu;
    ze_group_count_t *count = zt_alloc_shared(&env, sizeof *count);
    *count = (ze_group_count_t){2, 1, 1};
    zt_set_args(k, 1, sizeof out, &out);
    ZT_OK(zeKernelSetGroupSize(k, 1, 1, 1));
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 1, false);
    ze_event_handle_t go = zt_event_create(pool, 0);
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ZT_OK(zeCommandListAppendLaunchKernelIndirect(l, k, count, NULL, 1, &go));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeEventHostSignal(go));
    for (size_t w = 0; w < 64; w++) cr_assert_eq(out[w], 0xdeadbeefu);
    ZT_OK(zeEventDestroy(go));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeMemFree(env.context, count));
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* Global offsets in dimensions whose range is 1 (issue 37). The conformance suite's KernelOffsetTests launch an
 * offset z = 7 over a z range of 1; a driver that counted a launch's dimensions from its sizes alone launched that
 * as 1-D, and the offsets above dimension 0 were dropped without an error. ze_offsets.cl's offset_ids writes each
 * item's global ids, the offsets and the work dimension at the item's place in the range; every word is checked,
 * and the words past the range must keep their sentinel (test/common/offset_cases.h has the cases and the check;
 * test_host_driver.c runs them on the host device). Each case runs on an immediate list (the driver's direct
 * path), on a regular list executed on a queue, and as an indirect launch (its group count read when it runs). */
Test(ze_conform, global_offset_in_dimensions_of_range_one, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_offsets");
    ze_kernel_handle_t k = zt_kernel_create(m, "offset_ids");
    size_t words = offset_cases_buffer_words();
    uint32_t *out = zt_alloc_shared(&env, words * sizeof *out);
    ze_group_count_t *indirect = zt_alloc_shared(&env, sizeof *indirect);
    zt_set_args(k, 1, sizeof out, &out);
    ze_command_list_handle_t il = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_queue_handle_t q = zt_queue_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    for (int i = 0; i < (int)OFFSET_CASES; i++) {
        const offset_case *c = &offset_cases[i];
        ze_group_count_t gc = {c->count[0], c->count[1], c->count[2]};
        ZT_OK(zeKernelSetGroupSize(k, c->group[0], c->group[1], c->group[2]));
        ZT_OK(zeKernelSetGlobalOffsetExp(k, c->offset[0], c->offset[1], c->offset[2]));
        for (int how = 0; how < 3; how++) {
            for (size_t w = 0; w < words; w++)
                out[w] = OFFSET_SENTINEL;
            if (how == 0) {
                ZT_OK(zeCommandListAppendLaunchKernel(il, k, &gc, NULL, 0, NULL));
                zt_immediate_sync(&env, il);
            } else if (how == 1) {
                ze_command_list_handle_t rl = zt_list_create(&env);
                ZT_OK(zeCommandListAppendLaunchKernel(rl, k, &gc, NULL, 0, NULL));
                zt_execute_and_wait(q, rl);
                ZT_OK(zeCommandListDestroy(rl));
            } else {
                *indirect = gc;
                ZT_OK(zeCommandListAppendLaunchKernelIndirect(il, k, indirect, NULL, 0, NULL));
                zt_immediate_sync(&env, il);
            }
            expect_offset_ids(out, c, i, how == 0 ? "immediate list" : how == 1 ? "regular list" : "indirect launch");
        }
    }
    ZT_OK(zeCommandQueueDestroy(q));
    ZT_OK(zeCommandListDestroy(il));
    ZT_OK(zeMemFree(env.context, indirect));
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* Memory of two contexts of the driver, copied through both with zeCommandListAppendMemoryCopyFromContext, chained
 * by events, on an immediate list and on a regular one. */
static void copy_between_contexts(zt_env *env, bool immediate)
{
    enum { N = 4096 };
    ze_context_desc_t cd = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
    ze_context_handle_t other = NULL;
    ZT_OK(zeContextCreate(env->driver, &cd, &other));
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    ze_device_mem_alloc_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    uint8_t *src_other = NULL, *dev_other = NULL;
    ZT_OK(zeMemAllocHost(other, &hd, N, 1, (void **)&src_other));
    ZT_OK(zeMemAllocDevice(other, &dd, N, 1, env->device, (void **)&dev_other));
    uint8_t *dev_here = zt_alloc_device(env, N);
    uint8_t *back = zt_alloc_host(env, N);
    for (int i = 0; i < N; i++) src_other[i] = (uint8_t)(i * 7 + 3);
    memset(back, 0, N);
    ze_event_pool_handle_t pool = zt_event_pool_create(env, 2, false);
    ze_event_handle_t e1 = zt_event_create(pool, 0), e2 = zt_event_create(pool, 1);
    ze_command_list_handle_t l = immediate ? zt_immediate_create(env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS)
                                           : zt_list_create(env);
    ZT_OK(zeCommandListAppendMemoryCopyFromContext(l, dev_here, other, src_other, N, e1, 0, NULL));
    ZT_OK(zeCommandListAppendMemoryCopyFromContext(l, dev_other, env->context, dev_here, N, e2, 1, &e1));
    ZT_OK(zeCommandListAppendMemoryCopyFromContext(l, back, other, dev_other, N, NULL, 1, &e2));
    if (immediate) {
        zt_immediate_sync(env, l);
    } else {
        ze_command_queue_handle_t q = zt_queue_create(env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
        zt_execute_and_wait(q, l);
        ZT_OK(zeCommandQueueDestroy(q));
    }
    for (int i = 0; i < N; i++) cr_assert_eq(back[i], (uint8_t)(i * 7 + 3), "byte %d", i);
    /* The source context must be a context. */
    ZT_EXPECT(zeCommandListAppendMemoryCopyFromContext(l, back, NULL, dev_other, N, NULL, 0, NULL),
              ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeEventDestroy(e1));
    ZT_OK(zeEventDestroy(e2));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeMemFree(env->context, back));
    ZT_OK(zeMemFree(env->context, dev_here));
    ZT_OK(zeMemFree(other, dev_other));
    ZT_OK(zeMemFree(other, src_other));
    ZT_OK(zeContextDestroy(other));
}

Test(ze_conform, copy_from_another_context, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env;
    zt_init(&env);
    copy_between_contexts(&env, true);
    copy_between_contexts(&env, false);
    zt_fini(&env);
}

/* zeContextSystemBarrier blocks until outside writes are visible and returns; commands still work after it. */
Test(ze_conform, system_barrier)
{
    zt_env env;
    zt_init(&env);
    ZT_OK(zeContextSystemBarrier(env.context, env.device));
    ZT_EXPECT(zeContextSystemBarrier(env.context, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeContextSystemBarrier(NULL, env.device), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    uint32_t *p = zt_alloc_shared(&env, 64 * sizeof *p);
    ze_module_handle_t m = zt_module_load(&env, "ze_vadd");
    ze_kernel_handle_t k = zt_kernel_create(m, "iota");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    run_iota(&env, l, k, p, 64);
    ZT_OK(zeContextSystemBarrier(env.context, env.device));
    for (uint32_t i = 0; i < 64; i++) cr_assert_eq(p[i], i);
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    ZT_OK(zeMemFree(env.context, p));
    zt_fini(&env);
}

/* Copies size bytes on an immediate list and waits. */
static void copy_sync(zt_env *env, ze_command_list_handle_t l, void *dst, const void *src, size_t size)
{
    ZT_OK(zeCommandListAppendMemoryCopy(l, dst, src, size, NULL, 0, NULL));
    zt_immediate_sync(env, l);
}

/* Program-scope variables: zeModuleGetGlobalPointer gives each one's size and an address that copies and the
 * module's kernels share; the values last between launches; each module has its own; unknown names are refused. */
Test(ze_conform, global_pointer, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_globals");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    int *host = zt_alloc_shared(&env, 16 * sizeof *host);
    void *counter = NULL, *again = NULL, *table = NULL, *fixed = NULL;
    size_t size = 0;
    ZT_OK(zeModuleGetGlobalPointer(m, "counter", &size, &counter));
    cr_assert_not_null(counter);
    cr_assert_eq(size, sizeof(int));
    ZT_OK(zeModuleGetGlobalPointer(m, "counter", NULL, &again));
    cr_assert_eq(again, counter);
    ZT_OK(zeModuleGetGlobalPointer(m, "table", &size, &table));
    cr_assert_eq(size, 4 * sizeof(int));
    ZT_OK(zeModuleGetGlobalPointer(m, "fixed", &size, &fixed));
    cr_assert_eq(size, 2 * sizeof(int));
    ZT_OK(zeModuleGetGlobalPointer(m, "fixed", NULL, NULL));
    ZT_EXPECT(zeModuleGetGlobalPointer(m, "no_such_global", &size, &again), ZE_RESULT_ERROR_INVALID_GLOBAL_NAME);
    ZT_EXPECT(zeModuleGetGlobalPointer(m, "bump", &size, &again), ZE_RESULT_ERROR_INVALID_GLOBAL_NAME);

    /* Initial values, read with copies. */
    copy_sync(&env, l, host, counter, sizeof(int));
    cr_assert_eq(host[0], 5);
    copy_sync(&env, l, host, fixed, 2 * sizeof(int));
    cr_assert_eq(host[0], 7);
    cr_assert_eq(host[1], 9);
    /* A kernel updates the variable, which keeps its value between launches. */
    ze_kernel_handle_t bump = zt_kernel_create(m, "bump");
    int *out = zt_alloc_shared(&env, 4 * sizeof *out);
    zt_set_args(bump, 1, sizeof out, &out);
    zt_launch_sync(&env, l, bump, 1, 1, 1, 1, 1, 1);
    cr_assert_eq(out[0], 6);
    cr_assert_eq(out[1], 16);
    zt_launch_sync(&env, l, bump, 1, 1, 1, 1, 1, 1);
    cr_assert_eq(out[0], 7);
    copy_sync(&env, l, host, counter, sizeof(int));
    cr_assert_eq(host[0], 7);
    /* The host writes it; the kernel sees what was written. */
    host[0] = 100;
    copy_sync(&env, l, counter, host, sizeof(int));
    zt_launch_sync(&env, l, bump, 1, 1, 1, 1, 1, 1);
    cr_assert_eq(out[0], 101);
    /* Another kernel of the module reads the same table the host wrote. */
    for (int i = 0; i < 4; i++) host[i] = 1000 + i;
    copy_sync(&env, l, table, host, 4 * sizeof(int));
    ze_kernel_handle_t rt = zt_kernel_create(m, "read_table");
    zt_set_args(rt, 1, sizeof out, &out);
    zt_launch_sync(&env, l, rt, 1, 1, 1, 1, 1, 1);
    for (int i = 0; i < 4; i++) cr_assert_eq(out[i], 1000 + i);

    /* A second module of the same SPIR-V has variables of its own, at their initial values. */
    ze_module_handle_t m2 = zt_module_load(&env, "ze_globals");
    void *counter2 = NULL;
    ZT_OK(zeModuleGetGlobalPointer(m2, "counter", NULL, &counter2));
    cr_assert_neq(counter2, counter);
    copy_sync(&env, l, host, counter2, sizeof(int));
    cr_assert_eq(host[0], 5);
    copy_sync(&env, l, host, counter, sizeof(int));
    cr_assert_eq(host[0], 101);
    ZT_OK(zeModuleDestroy(m2));

    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeMemFree(env.context, host));
    ZT_OK(zeKernelDestroy(rt));
    ZT_OK(zeKernelDestroy(bump));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* The kernel that finds the variables is the driver's own: it is not among the module's kernels. */
Test(ze_conform, global_pointer_kernel_not_listed)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_globals");
    uint32_t n = 0;
    ZT_OK(zeModuleGetKernelNames(m, &n, NULL));
    cr_assert_eq(n, 2);
    const char *names[2] = {NULL, NULL};
    ZT_OK(zeModuleGetKernelNames(m, &n, names));
    for (uint32_t i = 0; i < n; i++)
        cr_assert(strcmp(names[i], "bump") == 0 || strcmp(names[i], "read_table") == 0, "kernel %s", names[i]);
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* OpenCL C 1.2's program-scope constant tables are exported variables too: their values, read with copies. */
Test(ze_conform, global_pointer_of_constants, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_constant");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    void *squares = NULL, *weights = NULL;
    size_t size = 0;
    ZT_OK(zeModuleGetGlobalPointer(m, "squares", &size, &squares));
    cr_assert_eq(size, 8 * sizeof(int));
    ZT_OK(zeModuleGetGlobalPointer(m, "weights", &size, &weights));
    cr_assert_eq(size, 4 * sizeof(float));
    int *ints = zt_alloc_shared(&env, 8 * sizeof *ints);
    float *floats = zt_alloc_shared(&env, 4 * sizeof *floats);
    copy_sync(&env, l, ints, squares, 8 * sizeof *ints);
    for (int i = 0; i < 8; i++) cr_assert_eq(ints[i], i * i);
    copy_sync(&env, l, floats, weights, 4 * sizeof *floats);
    cr_assert_eq(floats[0], 0.5f);
    cr_assert_eq(floats[1], 0.25f);
    cr_assert_eq(floats[3], 0.125f);
    uint32_t n = 0;
    ZT_OK(zeModuleGetKernelNames(m, &n, NULL));
    cr_assert_eq(n, 1);
    ZT_OK(zeMemFree(env.context, floats));
    ZT_OK(zeMemFree(env.context, ints));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* Several kernels launched indirectly: the number that run and each one's group count are read at each execution;
 * a kernel past the number runs nothing, and the signal event is set either way. */
Test(ze_conform, indirect_launch_of_several_kernels, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_conform");
    enum { WORDS = 4 * 4 * 4 * 4 * 4 };
    ze_kernel_handle_t k[2];
    uint32_t *out[2];
    for (int i = 0; i < 2; i++) {
        k[i] = zt_kernel_create(m, "groups");
        out[i] = zt_alloc_shared(&env, WORDS * sizeof *out[i]);
        zt_set_args(k[i], 1, sizeof out[i], &out[i]);
        ZT_OK(zeKernelSetGroupSize(k[i], 2, 1, 1));
    }
    uint32_t *count = zt_alloc_host(&env, sizeof *count);
    ze_group_count_t *args = zt_alloc_host(&env, 2 * sizeof *args);
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 1, false);
    ze_event_handle_t done = zt_event_create(pool, 0);
    ze_command_queue_handle_t q = zt_queue_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t l = zt_list_create(&env);
    ZT_OK(zeCommandListAppendLaunchMultipleKernelsIndirect(l, 2, k, count, args, done, 0, NULL));
    ZT_OK(zeCommandListClose(l));
    const struct { uint32_t n; ze_group_count_t a, b; } runs[] = {{1, {3, 1, 1}, {2, 2, 1}}, {2, {1, 2, 1}, {4, 1, 2}}};
    for (int r = 0; r < 2; r++) {
        for (int i = 0; i < 2; i++)
            for (size_t w = 0; w < WORDS; w++) out[i][w] = 0xdeadbeefu;
        *count = runs[r].n;
        args[0] = runs[r].a;
        args[1] = runs[r].b;
        ZT_OK(zeEventHostReset(done));
        ZT_OK(zeCommandQueueExecuteCommandLists(q, 1, &l, NULL));
        ZT_OK(zeCommandQueueSynchronize(q, UINT64_MAX));
        ZT_OK(zeEventQueryStatus(done));
        expect_groups(out[0], runs[r].a.groupCountX, runs[r].a.groupCountY, runs[r].a.groupCountZ, 2, 1, WORDS);
        if (runs[r].n > 1)
            expect_groups(out[1], runs[r].b.groupCountX, runs[r].b.groupCountY, runs[r].b.groupCountZ, 2, 1, WORDS);
        else
            expect_groups(out[1], 0, 0, 0, 2, 1, WORDS); /* nothing written */
    }
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeCommandQueueDestroy(q));
    ZT_OK(zeEventDestroy(done));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeMemFree(env.context, args));
    ZT_OK(zeMemFree(env.context, count));
    for (int i = 0; i < 2; i++) {
        ZT_OK(zeMemFree(env.context, out[i]));
        ZT_OK(zeKernelDestroy(k[i]));
    }
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}
