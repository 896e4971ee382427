/* A lost device at the driver's level (issue 39, driver/fault.c): the test knob KRT_ZE_FAULT=krt_wild_write makes
 * each launch of that kernel lose its device when it completes, as a kernel that writes out of bounds does on a GPU
 * (where ze_cuda sees CUDA's sticky error; test_cuda.c has that case). The kernel itself runs in bounds (offset 0).
 * The wait that sees the fault answers ZE_RESULT_ERROR_DEVICE_LOST, and so does every later call on the device:
 * allocations, appends, executes, lists, modules, event and fence queries, zeContextGetStatus, never another cause.
 * Destroying everything works; once no context uses the device, a new context works and computes right; while
 * another context that used it lives, the device stays lost. Each test sets the knob before its first kernel
 * (Criterion runs every test in a process of its own). */
#include <stdlib.h>
#include <string.h>

#include "ze_common.h"

#define N 1024u

static void knob(void)
{
    setenv("KRT_ZE_FAULT", "krt_wild_write", 1);
}

typedef struct {
    ze_module_handle_t module;
    ze_kernel_handle_t kernel;
} wild;

/* Appends krt_wild_write over N items of x (offset 0) to list, after gate when not NULL, signalling ev. */
static wild launch_wild(zt_env *env, ze_command_list_handle_t list, float *x, ze_event_handle_t ev,
                        ze_event_handle_t gate)
{
    wild w;
    w.module = zt_module_load(env, "krt_fault");
    w.kernel = zt_kernel_create(w.module, "krt_wild_write");
    uint64_t off = 0;
    zt_set_args(w.kernel, 2, sizeof x, &x, sizeof off, &off);
    ZT_OK(zeKernelSetGroupSize(w.kernel, 64, 1, 1));
    ze_group_count_t gc = {N / 64, 1, 1};
    ZT_OK(zeCommandListAppendLaunchKernel(list, w.kernel, &gc, ev, gate ? 1 : 0, gate ? &gate : NULL));
    return w;
}

static void wild_destroy(wild w)
{
    ZT_OK(zeKernelDestroy(w.kernel));
    ZT_OK(zeModuleDestroy(w.module));
}

/* Runs krt_after over N items on a fresh immediate list of env and checks every value: the device computes right. */
static void expect_after_works(zt_env *env)
{
    ze_command_list_handle_t list = zt_immediate_create(env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    uint32_t *out = zt_alloc_shared(env, N * sizeof *out);
    memset(out, 0, N * sizeof *out);
    ze_module_handle_t m = zt_module_load(env, "krt_fault");
    ze_kernel_handle_t k = zt_kernel_create(m, "krt_after");
    uint32_t n = N, base = 11;
    zt_set_args(k, 3, sizeof out, &out, sizeof n, &n, sizeof base, &base);
    zt_launch_sync(env, list, k, 64, 1, 1, N / 64, 1, 1);
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(out[i], 3 * i + base, "out[%u] = %u, expected %u", i, out[i], 3 * i + base);
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    ZT_OK(zeMemFree(env->context, out));
    ZT_OK(zeCommandListDestroy(list));
}

Test(ze_fault, the_wait_reports_the_fault_and_every_later_call_the_same, .timeout = ZT_TEST_TIMEOUT)
{
    knob();
    zt_env env;
    zt_init(&env);
    ze_command_list_handle_t list = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    float *x = zt_alloc_device(&env, N * sizeof *x);
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 2, false);
    ze_event_handle_t ev = zt_event_create(pool, 0), after = zt_event_create(pool, 1);
    wild w = launch_wild(&env, list, x, ev, NULL);
    ze_kernel_handle_t k = w.kernel;
    ze_group_count_t gc = {N / 64, 1, 1};

    /* The wait for the faulting kernel is where the fault surfaces. */
    ZT_EXPECT(zeEventHostSynchronize(ev, ZT_TIMEOUT_NS), ZE_RESULT_ERROR_DEVICE_LOST);
    /* Every later call on the device says the same. */
    ZT_EXPECT(zeEventQueryStatus(ev), ZE_RESULT_ERROR_DEVICE_LOST);
    ZT_EXPECT(zeEventHostSynchronize(ev, 0), ZE_RESULT_ERROR_DEVICE_LOST);
    ZT_EXPECT(zeContextGetStatus(env.context), ZE_RESULT_ERROR_DEVICE_LOST);
    void *p = NULL;
    ze_device_mem_alloc_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    ZT_EXPECT(zeMemAllocDevice(env.context, &dd, 64, 0, env.device, &p), ZE_RESULT_ERROR_DEVICE_LOST);
    ZT_EXPECT(zeMemAllocShared(env.context, &dd, &hd, 64, 0, env.device, &p), ZE_RESULT_ERROR_DEVICE_LOST);
    ZT_EXPECT(zeCommandListAppendLaunchKernel(list, k, &gc, NULL, 0, NULL), ZE_RESULT_ERROR_DEVICE_LOST);
    ZT_EXPECT(zeCommandListAppendBarrier(list, after, 0, NULL), ZE_RESULT_ERROR_DEVICE_LOST);
    ZT_EXPECT(zeCommandListAppendMemoryCopy(list, x, x + N / 2, 64, NULL, 0, NULL), ZE_RESULT_ERROR_DEVICE_LOST);
    ze_command_list_handle_t l2 = NULL;
    ze_command_queue_desc_t qd = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, .ordinal = env.compute_ordinal};
    ZT_EXPECT(zeCommandListCreateImmediate(env.context, env.device, &qd, &l2), ZE_RESULT_ERROR_DEVICE_LOST);
    ze_command_queue_handle_t cq = NULL;
    ZT_EXPECT(zeCommandQueueCreate(env.context, env.device, &qd, &cq), ZE_RESULT_ERROR_DEVICE_LOST);
    size_t size = 0;
    void *il = zt_load_spirv("krt_fault", &size);
    ze_module_handle_t m2 = NULL;
    ZT_EXPECT(zt_module_create_il(&env, il, size, "", &m2, NULL), ZE_RESULT_ERROR_DEVICE_LOST);
    free(il);
    /* An event the host sets says nothing of the device: it is set. */
    ZT_OK(zeEventHostSignal(after));
    ZT_OK(zeEventHostSynchronize(after, 0));

    /* Destroying works; with the last context that used the device gone, a new context works. */
    wild_destroy(w);
    ZT_OK(zeEventDestroy(ev));
    ZT_OK(zeEventDestroy(after));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeMemFree(env.context, x));
    ZT_OK(zeCommandListDestroy(list));
    zt_fini(&env);
    zt_env again;
    zt_init(&again);
    ZT_OK(zeContextGetStatus(again.context));
    expect_after_works(&again);
    zt_fini(&again);
}

/* The first call to see the fault may be an append after it (the device lost meanwhile), a queue's synchronize, or a
 * fence: each answers DEVICE_LOST. */
Test(ze_fault, a_command_queue_reports_the_fault_at_its_fence_and_synchronize, .timeout = ZT_TEST_TIMEOUT)
{
    knob();
    zt_env env;
    zt_init(&env);
    ze_command_queue_handle_t cq = zt_queue_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t list = zt_list_create(&env);
    float *x = zt_alloc_device(&env, N * sizeof *x);
    wild w = launch_wild(&env, list, x, NULL, NULL);
    ZT_OK(zeCommandListClose(list));
    ze_fence_desc_t fd = {.stype = ZE_STRUCTURE_TYPE_FENCE_DESC};
    ze_fence_handle_t fence;
    ZT_OK(zeFenceCreate(cq, &fd, &fence));
    ZT_OK(zeCommandQueueExecuteCommandLists(cq, 1, &list, fence));
    ZT_EXPECT(zeFenceHostSynchronize(fence, ZT_TIMEOUT_NS), ZE_RESULT_ERROR_DEVICE_LOST);
    ZT_EXPECT(zeFenceQueryStatus(fence), ZE_RESULT_ERROR_DEVICE_LOST);
    ZT_EXPECT(zeCommandQueueSynchronize(cq, ZT_TIMEOUT_NS), ZE_RESULT_ERROR_DEVICE_LOST);
    ZT_EXPECT(zeCommandQueueExecuteCommandLists(cq, 1, &list, NULL), ZE_RESULT_ERROR_DEVICE_LOST);
    ZT_OK(zeFenceDestroy(fence));
    ZT_OK(zeCommandListDestroy(list));
    ZT_OK(zeCommandQueueDestroy(cq));
    wild_destroy(w);
    ZT_OK(zeMemFree(env.context, x));
    zt_fini(&env);
    zt_env again;
    zt_init(&again);
    expect_after_works(&again);
    zt_fini(&again);
}

/* Recovery waits for every context that used the device: while one lives, its objects were made on the device as it
 * was before the fault (on ze_cuda a recovery resets the CUDA context under them), so the device stays lost. A
 * context that never used the device does not hold it. */
Test(ze_fault, the_device_stays_lost_while_another_context_that_used_it_lives, .timeout = ZT_TEST_TIMEOUT)
{
    knob();
    zt_env a, b, idle;
    zt_init(&a);
    zt_init(&b);
    zt_init(&idle); /* a context, nothing on the device */
    uint32_t *keep = zt_alloc_device(&b, 64); /* b uses the device */
    ze_command_list_handle_t list = zt_immediate_create(&a, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    float *x = zt_alloc_device(&a, N * sizeof *x);
    ze_event_pool_handle_t pool = zt_event_pool_create(&a, 1, false);
    ze_event_handle_t ev = zt_event_create(pool, 0);
    wild w = launch_wild(&a, list, x, ev, NULL);
    ZT_EXPECT(zeEventHostSynchronize(ev, ZT_TIMEOUT_NS), ZE_RESULT_ERROR_DEVICE_LOST);
    ZT_EXPECT(zeContextGetStatus(b.context), ZE_RESULT_ERROR_DEVICE_LOST);
    ZT_OK(zeContextGetStatus(idle.context));
    wild_destroy(w);
    ZT_OK(zeMemFree(a.context, x));
    ZT_OK(zeEventDestroy(ev));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeCommandListDestroy(list));
    zt_fini(&a);
    /* b still uses the device: a new context cannot. */
    zt_env c;
    zt_init(&c);
    ze_command_list_handle_t l = NULL;
    ze_command_queue_desc_t qd = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, .ordinal = c.compute_ordinal};
    ZT_EXPECT(zeCommandListCreateImmediate(c.context, c.device, &qd, &l), ZE_RESULT_ERROR_DEVICE_LOST);
    ZT_EXPECT(zeContextGetStatus(b.context), ZE_RESULT_ERROR_DEVICE_LOST);
    /* c tried: it counts as a user too, until it goes. */
    zt_fini(&c);
    ZT_OK(zeMemFree(b.context, keep));
    zt_fini(&b);
    /* Nothing uses the device now: the idle context, which never used it, works on it. */
    expect_after_works(&idle);
    zt_fini(&idle);
}

/* Two devices of one driver (PoCL's POCL_DEVICES="pthread pthread"): a fault on one leaves the other working, in a
 * context of its own, while the first is lost; then the first recovers. */
Test(ze_fault, a_fault_on_one_of_two_devices_leaves_the_other_working, .timeout = ZT_TEST_TIMEOUT)
{
    setenv("POCL_DEVICES", "pthread pthread", 1);
    knob();
    zt_env env;
    zt_init(&env);
    uint32_t ndev = 0;
    ZT_OK(zeDeviceGet(env.driver, &ndev, NULL));
    if (ndev < 2) {
        zt_fini(&env);
        cr_skip_test("the driver under test has %u device (ze_pocl has two with POCL_DEVICES)", ndev);
    }
    ze_device_handle_t devs[2];
    ndev = 2;
    ZT_OK(zeDeviceGet(env.driver, &ndev, devs));
    zt_env one = env, two = env;
    two.device = devs[1];
    ze_context_desc_t cd = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
    ZT_OK(zeContextCreate(env.driver, &cd, &two.context));
    one.device = devs[0];
    ze_command_list_handle_t list = zt_immediate_create(&two, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    float *x = zt_alloc_device(&two, N * sizeof *x);
    ze_event_pool_handle_t pool = zt_event_pool_create(&two, 1, false);
    ze_event_handle_t ev = zt_event_create(pool, 0);
    wild w = launch_wild(&two, list, x, ev, NULL);
    ZT_EXPECT(zeEventHostSynchronize(ev, ZT_TIMEOUT_NS), ZE_RESULT_ERROR_DEVICE_LOST);
    ZT_EXPECT(zeContextGetStatus(two.context), ZE_RESULT_ERROR_DEVICE_LOST);
    wild_destroy(w);
    /* The other device works on, in its own context. */
    ZT_OK(zeContextGetStatus(one.context));
    expect_after_works(&one);
    ZT_OK(zeEventDestroy(ev));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeMemFree(two.context, x));
    ZT_OK(zeCommandListDestroy(list));
    ZT_OK(zeContextDestroy(two.context));
    /* The lost device recovered: a new context on it works. */
    ZT_OK(zeContextCreate(env.driver, &cd, &two.context));
    expect_after_works(&two);
    ZT_OK(zeContextDestroy(two.context));
    expect_after_works(&one);
    zt_fini(&env);
}

/* Virtual memory on a lost device: a kernel queued behind the faulting one writes through a mapping; the wait for the
 * faulting kernel answers at once, and unmapping then lets what a CPU backend still runs finish before the pages go
 * (without that, the kernel wrote unmapped pages: a segfault). The faulting kernel waits for a host event, so that
 * both are handed over before the device is lost. */
Test(ze_fault, unmapping_virtual_memory_after_the_fault_waits_for_what_still_runs, .timeout = ZT_TEST_TIMEOUT)
{
    knob();
    zt_env env;
    zt_init(&env);
    size_t page = 0;
    ZT_OK(zeVirtualMemQueryPageSize(env.context, env.device, 1, &page));
    const uint32_t n = 1u << 24; /* 64 MiB of uint: long enough to be running when the wait returns */
    size_t size = ((size_t)n * sizeof(uint32_t) + page - 1) / page * page;
    void *va = NULL;
    /* The validation layer wants a start hint, and any hint will do (test_ze_conform.c does the same). */
    const void *hint = zt_validation_layer() ? (const void *)(uintptr_t)0x100000000000ull : NULL;
    ZT_OK(zeVirtualMemReserve(env.context, hint, size, &va));
    ze_physical_mem_desc_t pd = {.stype = ZE_STRUCTURE_TYPE_PHYSICAL_MEM_DESC, .size = size};
    ze_physical_mem_handle_t phys = NULL;
    ZT_OK(zePhysicalMemCreate(env.context, env.device, &pd, &phys));
    ZT_OK(zeVirtualMemMap(env.context, va, size, phys, 0, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE));

    ze_command_list_handle_t list = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    float *x = zt_alloc_device(&env, N * sizeof *x);
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 2, false);
    ze_event_handle_t gate = zt_event_create(pool, 0), ev = zt_event_create(pool, 1);
    wild w = launch_wild(&env, list, x, ev, gate);
    ze_kernel_handle_t after = zt_kernel_create(w.module, "krt_after");
    uint32_t base = 5;
    zt_set_args(after, 3, sizeof va, &va, sizeof n, &n, sizeof base, &base);
    ZT_OK(zeKernelSetGroupSize(after, 256, 1, 1));
    ze_group_count_t ga = {n / 256, 1, 1};
    ZT_OK(zeCommandListAppendLaunchKernel(list, after, &ga, NULL, 0, NULL));
    ZT_OK(zeEventHostSignal(gate));
    ZT_EXPECT(zeEventHostSynchronize(ev, ZT_TIMEOUT_NS), ZE_RESULT_ERROR_DEVICE_LOST);

    ZT_OK(zeVirtualMemUnmap(env.context, va, size));
    ZT_OK(zePhysicalMemDestroy(env.context, phys));
    ZT_OK(zeVirtualMemFree(env.context, va, size));
    ZT_OK(zeKernelDestroy(after));
    wild_destroy(w);
    ZT_OK(zeEventDestroy(ev));
    ZT_OK(zeEventDestroy(gate));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeMemFree(env.context, x));
    ZT_OK(zeCommandListDestroy(list));
    zt_fini(&env);
}
