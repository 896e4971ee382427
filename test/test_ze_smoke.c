/* Smoke test of ze_pocl through the Level Zero loader: the core path a program needs to launch a
 * kernel and wait for it. The full driver suite lives in the other test/test_ze_*.c files. */
#include <criterion/criterion.h>
#include <level_zero/ze_api.h>
#include <stdint.h>
#include <string.h>

/* vadd(global const float *a, global const float *b, global float *c): c[i] = a[i] + b[i], built with
 * clang-15 -cl-std=CL1.2 -target spir64 -O0 and llvm-spirv-15, embedded so the test needs no files. */
static const uint32_t vadd_spv[] = {
    0x07230203, 0x00010000, 0x0006000e, 0x00000029, 0x00000000, 0x00020011,
    0x00000004, 0x00020011, 0x00000005, 0x00020011, 0x00000006, 0x00020011,
    0x0000000b, 0x0005000b, 0x00000001, 0x6e65704f, 0x732e4c43, 0x00006474,
    0x0003000e, 0x00000002, 0x00000002, 0x0006000f, 0x00000006, 0x00000023,
    0x64646176, 0x00000000, 0x00000005, 0x00030010, 0x00000023, 0x0000001f,
    0x00030003, 0x00000003, 0x00018e70, 0x000b0005, 0x00000005, 0x70735f5f,
    0x5f767269, 0x6c697542, 0x476e4974, 0x61626f6c, 0x766e496c, 0x7461636f,
    0x496e6f69, 0x00000064, 0x00040005, 0x0000000a, 0x64646176, 0x00000000,
    0x000d0047, 0x00000005, 0x00000029, 0x70735f5f, 0x5f767269, 0x6c697542,
    0x476e4974, 0x61626f6c, 0x766e496c, 0x7461636f, 0x496e6f69, 0x00000064,
    0x00000001, 0x00030047, 0x00000005, 0x00000016, 0x00040047, 0x00000005,
    0x0000000b, 0x0000001c, 0x00060047, 0x0000000a, 0x00000029, 0x64646176,
    0x00000000, 0x00000000, 0x00040047, 0x0000000b, 0x0000002c, 0x00000004,
    0x00040047, 0x0000000c, 0x0000002c, 0x00000004, 0x00040047, 0x0000000d,
    0x0000002c, 0x00000004, 0x00040047, 0x00000010, 0x0000002c, 0x00000008,
    0x00040047, 0x00000011, 0x0000002c, 0x00000008, 0x00040047, 0x00000012,
    0x0000002c, 0x00000008, 0x00040047, 0x00000014, 0x0000002c, 0x00000008,
    0x00040047, 0x00000024, 0x0000002c, 0x00000004, 0x00040047, 0x00000025,
    0x0000002c, 0x00000004, 0x00040047, 0x00000026, 0x0000002c, 0x00000004,
    0x00040015, 0x00000002, 0x00000040, 0x00000000, 0x00040017, 0x00000003,
    0x00000002, 0x00000003, 0x00040020, 0x00000004, 0x00000001, 0x00000003,
    0x00020013, 0x00000006, 0x00030016, 0x00000007, 0x00000020, 0x00040020,
    0x00000008, 0x00000005, 0x00000007, 0x00060021, 0x00000009, 0x00000006,
    0x00000008, 0x00000008, 0x00000008, 0x00040020, 0x0000000f, 0x00000007,
    0x00000008, 0x00040020, 0x00000013, 0x00000007, 0x00000002, 0x0004003b,
    0x00000004, 0x00000005, 0x00000001, 0x00050036, 0x00000006, 0x0000000a,
    0x00000002, 0x00000009, 0x00030037, 0x00000008, 0x0000000b, 0x00030037,
    0x00000008, 0x0000000c, 0x00030037, 0x00000008, 0x0000000d, 0x000200f8,
    0x0000000e, 0x0004003b, 0x0000000f, 0x00000010, 0x00000007, 0x0004003b,
    0x0000000f, 0x00000011, 0x00000007, 0x0004003b, 0x0000000f, 0x00000012,
    0x00000007, 0x0004003b, 0x00000013, 0x00000014, 0x00000007, 0x0005003e,
    0x00000010, 0x0000000b, 0x00000002, 0x00000008, 0x0005003e, 0x00000011,
    0x0000000c, 0x00000002, 0x00000008, 0x0005003e, 0x00000012, 0x0000000d,
    0x00000002, 0x00000008, 0x0006003d, 0x00000003, 0x00000015, 0x00000005,
    0x00000002, 0x00000020, 0x00050051, 0x00000002, 0x00000016, 0x00000015,
    0x00000000, 0x0005003e, 0x00000014, 0x00000016, 0x00000002, 0x00000008,
    0x0006003d, 0x00000008, 0x00000017, 0x00000010, 0x00000002, 0x00000008,
    0x0006003d, 0x00000002, 0x00000018, 0x00000014, 0x00000002, 0x00000008,
    0x00050046, 0x00000008, 0x00000019, 0x00000017, 0x00000018, 0x0006003d,
    0x00000007, 0x0000001a, 0x00000019, 0x00000002, 0x00000004, 0x0006003d,
    0x00000008, 0x0000001b, 0x00000011, 0x00000002, 0x00000008, 0x0006003d,
    0x00000002, 0x0000001c, 0x00000014, 0x00000002, 0x00000008, 0x00050046,
    0x00000008, 0x0000001d, 0x0000001b, 0x0000001c, 0x0006003d, 0x00000007,
    0x0000001e, 0x0000001d, 0x00000002, 0x00000004, 0x00050081, 0x00000007,
    0x0000001f, 0x0000001a, 0x0000001e, 0x0006003d, 0x00000008, 0x00000020,
    0x00000012, 0x00000002, 0x00000008, 0x0006003d, 0x00000002, 0x00000021,
    0x00000014, 0x00000002, 0x00000008, 0x00050046, 0x00000008, 0x00000022,
    0x00000020, 0x00000021, 0x0005003e, 0x00000022, 0x0000001f, 0x00000002,
    0x00000004, 0x000100fd, 0x00010038, 0x00050036, 0x00000006, 0x00000023,
    0x00000002, 0x00000009, 0x00030037, 0x00000008, 0x00000024, 0x00030037,
    0x00000008, 0x00000025, 0x00030037, 0x00000008, 0x00000026, 0x000200f8,
    0x00000027, 0x00070039, 0x00000006, 0x00000028, 0x0000000a, 0x00000024,
    0x00000025, 0x00000026, 0x000100fd, 0x00010038,
};

static ze_driver_handle_t drv;
static ze_device_handle_t dev;
static ze_context_handle_t ctx;

static void setup(void) {
    cr_assert_eq(zeInit(0), ZE_RESULT_SUCCESS);
    uint32_t n = 1;
    cr_assert_eq(zeDriverGet(&n, &drv), ZE_RESULT_SUCCESS);
    n = 1;
    cr_assert_eq(zeDeviceGet(drv, &n, &dev), ZE_RESULT_SUCCESS);
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    cr_assert_eq(zeContextCreate(drv, &cd, &ctx), ZE_RESULT_SUCCESS);
}

static void teardown(void) { zeContextDestroy(ctx); }

TestSuite(ze_smoke, .init = setup, .fini = teardown);

Test(ze_smoke, device_is_cpu) {
    ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    cr_assert_eq(zeDeviceGetProperties(dev, &p), ZE_RESULT_SUCCESS);
    cr_assert_eq(p.type, ZE_DEVICE_TYPE_CPU);
    cr_assert_gt(p.numEUsPerSubslice * p.numSubslicesPerSlice * p.numSlices, 0);
}

Test(ze_smoke, unknown_pointer_is_unknown) {
    int local = 0;
    ze_memory_allocation_properties_t ap = {.stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES};
    ze_device_handle_t d = dev;
    cr_assert_eq(zeMemGetAllocProperties(ctx, &local, &ap, &d), ZE_RESULT_SUCCESS);
    cr_assert_eq(ap.type, ZE_MEMORY_TYPE_UNKNOWN);
}

Test(ze_smoke, vadd_on_immediate_list) {
    enum { N = 1000 };
    ze_module_desc_t md = {ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_IL_SPIRV, sizeof vadd_spv,
                           (const uint8_t *)vadd_spv, "", NULL};
    ze_module_handle_t mod;
    cr_assert_eq(zeModuleCreate(ctx, dev, &md, &mod, NULL), ZE_RESULT_SUCCESS);
    ze_kernel_desc_t kd = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, "vadd"};
    ze_kernel_handle_t k;
    cr_assert_eq(zeKernelCreate(mod, &kd, &k), ZE_RESULT_SUCCESS);

    ze_device_mem_alloc_desc_t dd = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
    float *a, *b, *c;
    cr_assert_eq(zeMemAllocShared(ctx, &dd, &hd, N * sizeof(float), 64, dev, (void **)&a), ZE_RESULT_SUCCESS);
    cr_assert_eq(zeMemAllocShared(ctx, &dd, &hd, N * sizeof(float), 64, dev, (void **)&b), ZE_RESULT_SUCCESS);
    cr_assert_eq(zeMemAllocDevice(ctx, &dd, N * sizeof(float), 64, dev, (void **)&c), ZE_RESULT_SUCCESS);
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = (float)(2 * i);
    }
    cr_assert_eq(zeKernelSetArgumentValue(k, 0, sizeof a, &a), ZE_RESULT_SUCCESS);
    cr_assert_eq(zeKernelSetArgumentValue(k, 1, sizeof b, &b), ZE_RESULT_SUCCESS);
    cr_assert_eq(zeKernelSetArgumentValue(k, 2, sizeof c, &c), ZE_RESULT_SUCCESS);
    uint32_t gx, gy, gz;
    cr_assert_eq(zeKernelSuggestGroupSize(k, N, 1, 1, &gx, &gy, &gz), ZE_RESULT_SUCCESS);
    cr_assert_eq(N % gx, 0);
    cr_assert_eq(zeKernelSetGroupSize(k, gx, gy, gz), ZE_RESULT_SUCCESS);

    ze_command_queue_desc_t qd = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0,
                                  ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t list;
    cr_assert_eq(zeCommandListCreateImmediate(ctx, dev, &qd, &list), ZE_RESULT_SUCCESS);
    ze_event_pool_desc_t pd = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1};
    ze_event_pool_handle_t pool;
    cr_assert_eq(zeEventPoolCreate(ctx, &pd, 1, &dev, &pool), ZE_RESULT_SUCCESS);
    ze_event_desc_t ed = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, ZE_EVENT_SCOPE_FLAG_HOST, ZE_EVENT_SCOPE_FLAG_HOST};
    ze_event_handle_t done;
    cr_assert_eq(zeEventCreate(pool, &ed, &done), ZE_RESULT_SUCCESS);

    float out[N];
    ze_group_count_t gc = {N / gx, 1, 1};
    cr_assert_eq(zeCommandListAppendLaunchKernel(list, k, &gc, NULL, 0, NULL), ZE_RESULT_SUCCESS);
    cr_assert_eq(zeCommandListAppendMemoryCopy(list, out, c, sizeof out, NULL, 0, NULL), ZE_RESULT_SUCCESS);
    cr_assert_eq(zeCommandListAppendBarrier(list, done, 0, NULL), ZE_RESULT_SUCCESS);
    cr_assert_eq(zeEventHostSynchronize(done, UINT64_MAX), ZE_RESULT_SUCCESS);
    for (int i = 0; i < N; i++) cr_assert_eq(out[i], (float)(3 * i), "out[%d] = %f", i, out[i]);

    zeEventDestroy(done);
    zeEventPoolDestroy(pool);
    zeCommandListDestroy(list);
    zeMemFree(ctx, a);
    zeMemFree(ctx, b);
    zeMemFree(ctx, c);
    zeKernelDestroy(k);
    zeModuleDestroy(mod);
}
