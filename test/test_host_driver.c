/* The host device's Level Zero driver (driver/host/) driven directly, as the test_ze_* binaries drive ze_pocl
 * through the loader. The loader cannot list the host driver (it lives inside libkrt), and libkrt never sets a
 * global offset nor appends a group count it has not checked itself, so what only the driver decides is tested
 * here, through the table krt__host_ddi fills (driver/include/ze_krt_host.h); the test links libkrt.a, where that
 * entry point is a plain global symbol (test.mk). Kernels: $KRT_TEST_KERNELS/NAME.spv with the native library
 * $KRT_TEST_KERNELS/host/NAME.so that the host driver runs (kernels.mk, TEST_KERNEL_HOST_SRCS). */
#include "offset_cases.h"
#include "../driver/include/ze_krt_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#define TIMEOUT_NS (60ull * 1000 * 1000 * 1000)

#define HD_OK(call)                                                                                       \
    do {                                                                                                  \
        ze_result_t hd_r_ = (call);                                                                       \
        cr_assert_eq(hd_r_, ZE_RESULT_SUCCESS, "%s returned 0x%x", #call, (unsigned)hd_r_);              \
    } while (0)

#define HD_EXPECT(call, code)                                                                             \
    do {                                                                                                  \
        ze_result_t hd_r_ = (call);                                                                       \
        cr_assert_eq(hd_r_, (code), "%s returned 0x%x, expected %s", #call, (unsigned)hd_r_, #code);     \
    } while (0)

TestSuite(host_driver, .timeout = 120);

typedef struct {
    ze_dditable_t t;
    ze_driver_handle_t driver;
    ze_device_handle_t device;
    ze_context_handle_t context;
} hd_env;

static void hd_init(hd_env *e)
{
    memset(e, 0, sizeof *e);
    HD_OK(krt__host_ddi(&e->t, NULL));
    HD_OK(e->t.Global.pfnInit(0));
    uint32_t n = 1;
    HD_OK(e->t.Driver.pfnGet(&n, &e->driver));
    cr_assert_eq(n, 1u, "the host driver has %u drivers", n);
    n = 1;
    HD_OK(e->t.Device.pfnGet(e->driver, &n, &e->device));
    cr_assert(n >= 1, "the host driver has no device");
    ze_context_desc_t cd = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
    HD_OK(e->t.Context.pfnCreate(e->driver, &cd, &e->context));
}

static void hd_fini(hd_env *e)
{
    HD_OK(e->t.Context.pfnDestroy(e->context));
}

static void *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    cr_assert(len > 0, "%s is empty", path);
    void *buf = malloc((size_t)len);
    cr_assert(buf && fread(buf, 1, (size_t)len, f) == (size_t)len, "cannot read %s", path);
    fclose(f);
    *size = (size_t)len;
    return buf;
}

/* $KRT_TEST_KERNELS/<name>.spv, run by $KRT_TEST_KERNELS/host/<name>.so. */
static ze_module_handle_t hd_module(hd_env *e, const char *name)
{
    const char *dir = getenv("KRT_TEST_KERNELS");
    cr_assert(dir && dir[0], "KRT_TEST_KERNELS is not set (run the tests through make)");
    char spv[4096], so[4096];
    snprintf(spv, sizeof spv, "%s/%s.spv", dir, name);
    snprintf(so, sizeof so, "%s/host/%s.so", dir, name);
    size_t size = 0;
    void *il = read_all(spv, &size);
    ze_krt_host_library_desc_t lib = {ZE_STRUCTURE_TYPE_KRT_HOST_LIBRARY_DESC, NULL, so};
    ze_module_desc_t md = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC, .pNext = &lib, .format = ZE_MODULE_FORMAT_IL_SPIRV,
                           .inputSize = size, .pInputModule = il};
    ze_module_handle_t m = NULL;
    HD_OK(e->t.Module.pfnCreate(e->context, e->device, &md, &m, NULL));
    free(il);
    return m;
}

static ze_kernel_handle_t hd_kernel(hd_env *e, ze_module_handle_t m, const char *name)
{
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = name};
    ze_kernel_handle_t k = NULL;
    HD_OK(e->t.Kernel.pfnCreate(m, &kd, &k));
    return k;
}

static void *hd_alloc_shared(hd_env *e, size_t size)
{
    ze_device_mem_alloc_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    void *p = NULL;
    HD_OK(e->t.Mem.pfnAllocShared(e->context, &dd, &hd, size, 64, e->device, &p));
    return p;
}

static ze_command_list_handle_t hd_immediate(hd_env *e)
{
    ze_command_queue_desc_t qd = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                  .mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS};
    ze_command_list_handle_t l = NULL;
    HD_OK(e->t.CommandList.pfnCreateImmediate(e->context, e->device, &qd, &l));
    return l;
}

static ze_command_list_handle_t hd_list(hd_env *e)
{
    ze_command_list_desc_t ld = {.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC};
    ze_command_list_handle_t l = NULL;
    HD_OK(e->t.CommandList.pfnCreate(e->context, e->device, &ld, &l));
    return l;
}

/* Waits until everything appended to an immediate list so far has run: a barrier that signals a host-visible
 * event. */
static void hd_sync(hd_env *e, ze_command_list_handle_t l)
{
    ze_event_pool_desc_t pd = {.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, .flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE,
                               .count = 1};
    ze_event_pool_handle_t pool = NULL;
    HD_OK(e->t.EventPool.pfnCreate(e->context, &pd, 1, &e->device, &pool));
    ze_event_desc_t ed = {.stype = ZE_STRUCTURE_TYPE_EVENT_DESC, .index = 0};
    ze_event_handle_t ev = NULL;
    HD_OK(e->t.Event.pfnCreate(pool, &ed, &ev));
    HD_OK(e->t.CommandList.pfnAppendBarrier(l, ev, 0, NULL));
    HD_OK(e->t.Event.pfnHostSynchronize(ev, TIMEOUT_NS));
    HD_OK(e->t.Event.pfnDestroy(ev));
    HD_OK(e->t.EventPool.pfnDestroy(pool));
}

/* test_ze_conform's global_offset_in_dimensions_of_range_one on the host device: every case of offset_cases.h on an
 * immediate list, on a regular list executed on a queue, and as an indirect launch. The host device ran a launch
 * with an offset over a range of 1 in y or z as 1-D and answered get_global_id and get_global_offset with 0 there
 * (driver/host/pool.c stores OpenCL's defaults past the work dimension). */
Test(host_driver, global_offset_in_dimensions_of_range_one)
{
    hd_env e;
    hd_init(&e);
    ze_module_handle_t m = hd_module(&e, "ze_offsets");
    ze_kernel_handle_t k = hd_kernel(&e, m, "offset_ids");
    size_t words = offset_cases_buffer_words();
    uint32_t *out = hd_alloc_shared(&e, words * sizeof *out);
    ze_group_count_t *indirect = hd_alloc_shared(&e, sizeof *indirect);
    HD_OK(e.t.Kernel.pfnSetArgumentValue(k, 0, sizeof out, &out));
    ze_command_list_handle_t il = hd_immediate(&e);
    ze_command_queue_desc_t qd = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                  .mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS};
    ze_command_queue_handle_t q = NULL;
    HD_OK(e.t.CommandQueue.pfnCreate(e.context, e.device, &qd, &q));
    for (int i = 0; i < (int)OFFSET_CASES; i++) {
        const offset_case *c = &offset_cases[i];
        ze_group_count_t gc = {c->count[0], c->count[1], c->count[2]};
        HD_OK(e.t.Kernel.pfnSetGroupSize(k, c->group[0], c->group[1], c->group[2]));
        HD_OK(e.t.KernelExp.pfnSetGlobalOffsetExp(k, c->offset[0], c->offset[1], c->offset[2]));
        for (int how = 0; how < 3; how++) {
            for (size_t w = 0; w < words; w++)
                out[w] = OFFSET_SENTINEL;
            if (how == 0) {
                HD_OK(e.t.CommandList.pfnAppendLaunchKernel(il, k, &gc, NULL, 0, NULL));
                hd_sync(&e, il);
            } else if (how == 1) {
                ze_command_list_handle_t rl = hd_list(&e);
                HD_OK(e.t.CommandList.pfnAppendLaunchKernel(rl, k, &gc, NULL, 0, NULL));
                HD_OK(e.t.CommandList.pfnClose(rl));
                HD_OK(e.t.CommandQueue.pfnExecuteCommandLists(q, 1, &rl, NULL));
                HD_OK(e.t.CommandQueue.pfnSynchronize(q, TIMEOUT_NS));
                HD_OK(e.t.CommandList.pfnDestroy(rl));
            } else {
                *indirect = gc;
                HD_OK(e.t.CommandList.pfnAppendLaunchKernelIndirect(il, k, indirect, NULL, 0, NULL));
                hd_sync(&e, il);
            }
            expect_offset_ids(out, c, i, how == 0 ? "immediate list" : how == 1 ? "regular list" : "indirect launch");
        }
    }
    HD_OK(e.t.CommandQueue.pfnDestroy(q));
    HD_OK(e.t.CommandList.pfnDestroy(il));
    HD_OK(e.t.Mem.pfnFree(e.context, indirect));
    HD_OK(e.t.Mem.pfnFree(e.context, out));
    HD_OK(e.t.Kernel.pfnDestroy(k));
    HD_OK(e.t.Module.pfnDestroy(m));
    hd_fini(&e);
}

/* test_ze_launch's work_items_past_a_64_bit_count on the host device, whose count of a launch's groups is a size_t
 * (driver/host/queue.c): (2^32 - 1)^3 groups wrapped it to some other number, and the launch ran that many. The
 * appends are refused on a regular list first (before the fix that failed without running anything), then on an
 * immediate one; 3 x 2^62 groups of one item fit, and so does a count of 0 beside two whose product does not
 * (nothing runs): recorded, never executed. */
Test(host_driver, work_items_past_a_64_bit_count)
{
    hd_env e;
    hd_init(&e);
    ze_module_handle_t m = hd_module(&e, "ze_offsets");
    ze_kernel_handle_t k = hd_kernel(&e, m, "offset_ids");
    const offset_case small = {{0, 0, 0}, {2, 1, 1}, {2, 1, 1}};
    size_t words = offset_case_words(&small) + OFFSET_SLACK;
    uint32_t *out = hd_alloc_shared(&e, words * sizeof *out);
    for (size_t w = 0; w < words; w++)
        out[w] = OFFSET_SENTINEL;
    HD_OK(e.t.Kernel.pfnSetArgumentValue(k, 0, sizeof out, &out));
    const ze_group_count_t all = {UINT32_MAX, UINT32_MAX, UINT32_MAX}, two = {1u << 31, 1u << 31, 2},
                           fits = {1u << 31, 1u << 31, 3};
    ze_command_list_handle_t rl = hd_list(&e);
    HD_OK(e.t.Kernel.pfnSetGroupSize(k, 1, 1, 1));
    HD_EXPECT(e.t.CommandList.pfnAppendLaunchKernel(rl, k, &all, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    HD_OK(e.t.CommandList.pfnAppendLaunchKernel(rl, k, &two, NULL, 0, NULL));
    HD_OK(e.t.CommandList.pfnAppendLaunchKernel(rl, k, &fits, NULL, 0, NULL));
    HD_OK(e.t.Kernel.pfnSetGroupSize(k, 1, 1, 2));
    HD_EXPECT(e.t.CommandList.pfnAppendLaunchKernel(rl, k, &two, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    /* A count of 0 launches nothing, whatever the other two multiply to (2^68 here). */
    const ze_group_count_t none = {UINT32_MAX, UINT32_MAX, 0};
    HD_OK(e.t.Kernel.pfnSetGroupSize(k, 16, 16, 1));
    HD_OK(e.t.CommandList.pfnAppendLaunchKernel(rl, k, &none, NULL, 0, NULL));
    HD_OK(e.t.Kernel.pfnSetGroupSize(k, 1, 1, 2));
    HD_OK(e.t.CommandList.pfnDestroy(rl));
    ze_command_list_handle_t il = hd_immediate(&e);
    HD_EXPECT(e.t.CommandList.pfnAppendLaunchKernel(il, k, &two, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    HD_OK(e.t.Kernel.pfnSetGroupSize(k, 1, 1, 1));
    HD_EXPECT(e.t.CommandList.pfnAppendLaunchKernel(il, k, &all, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    hd_sync(&e, il);
    for (size_t w = 0; w < words; w++)
        cr_assert_eq(out[w], OFFSET_SENTINEL, "word %zu written by a launch that was refused", w);
    /* The kernel still runs. */
    HD_OK(e.t.Kernel.pfnSetGroupSize(k, small.group[0], small.group[1], small.group[2]));
    ze_group_count_t gc = {small.count[0], small.count[1], small.count[2]};
    HD_OK(e.t.CommandList.pfnAppendLaunchKernel(il, k, &gc, NULL, 0, NULL));
    hd_sync(&e, il);
    expect_offset_ids(out, &small, 0, "after the refusals");
    HD_OK(e.t.CommandList.pfnDestroy(il));
    HD_OK(e.t.Mem.pfnFree(e.context, out));
    HD_OK(e.t.Kernel.pfnDestroy(k));
    HD_OK(e.t.Module.pfnDestroy(m));
    hd_fini(&e);
}
