/* Smoke test of ze_pocl through the Level Zero loader: the core path a program needs to launch a
 * kernel and wait for it. The full driver suite lives in the other test/test_ze_*.c files. */
#include <criterion/criterion.h>
#include "ze_common.h"
#include <level_zero/ze_api.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
    /* ze_pocl's device is the CPU; the GPU run loads ze_cuda alone, whose devices are GPUs. */
    cr_assert_eq(p.type, zt_driver_is(drv, "ze_cuda") ? ZE_DEVICE_TYPE_GPU : ZE_DEVICE_TYPE_CPU);
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
    /* vadd(a, b, c): c[i] = a[i] + b[i], from test/kernels/ze_vadd.cl. */
    size_t spv_size;
    void *spv = zt_load_spirv("ze_vadd", &spv_size);
    ze_module_desc_t md = {ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_IL_SPIRV, spv_size,
                           (const uint8_t *)spv, "", NULL};
    ze_module_handle_t mod;
    cr_assert_eq(zeModuleCreate(ctx, dev, &md, &mod, NULL), ZE_RESULT_SUCCESS);
    free(spv);
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
