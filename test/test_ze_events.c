/* Synchronisation on ze_pocl: events, fences, ordering across queues, kernel timestamps, regular and
 * immediate command lists. No test measures time; timeouts only guard against hangs. */
#include "ze_common.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>
#include <stdatomic.h>

#define T(name) Test(ze_events, name, .timeout = ZT_TEST_TIMEOUT)

/* A short real pause, used only to give a wrongly ordered driver the chance to run something early. */
static void pause_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

typedef struct {
    ze_module_handle_t module;
    ze_kernel_handle_t add; /* add_scalar(int *x, int k, uint n) */
} adder;

static adder adder_create(zt_env *env, int *x, int k, uint32_t n)
{
    adder a;
    a.module = zt_module_load(env, "ze_vadd");
    a.add = zt_kernel_create(a.module, "add_scalar");
    zt_set_args(a.add, 3, sizeof x, &x, sizeof k, &k, sizeof n, &n);
    ZT_OK(zeKernelSetGroupSize(a.add, 64, 1, 1));
    return a;
}

static void adder_destroy(adder *a)
{
    ZT_OK(zeKernelDestroy(a->add));
    ZT_OK(zeModuleDestroy(a->module));
}

static const ze_group_count_t four_groups = {4, 1, 1}; /* 256 items */

T(host_signal_query_reset)
{
    zt_env env;
    zt_init(&env);
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 4, false);
    ze_event_handle_t e = zt_event_create(pool, 2);
    ZT_EXPECT(zeEventQueryStatus(e), ZE_RESULT_NOT_READY);
    ZT_EXPECT(zeEventHostSynchronize(e, 0), ZE_RESULT_NOT_READY);
    ZT_EXPECT(zeEventHostSynchronize(e, 1000000), ZE_RESULT_NOT_READY);
    ZT_OK(zeEventHostSignal(e));
    ZT_OK(zeEventQueryStatus(e));
    ZT_OK(zeEventHostSynchronize(e, 0));
    ZT_OK(zeEventHostSynchronize(e, UINT64_MAX));
    ZT_OK(zeEventHostReset(e));
    ZT_EXPECT(zeEventQueryStatus(e), ZE_RESULT_NOT_READY);
    ZT_OK(zeEventHostSignal(e));
    ZT_OK(zeEventQueryStatus(e));
    ZT_OK(zeEventDestroy(e));
    ZT_OK(zeEventPoolDestroy(pool));
    zt_fini(&env);
}

Test(ze_events, invalid_pool_and_event_arguments)
{
    zt_env env;
    zt_init(&env);
    ze_event_pool_handle_t pool = NULL;
    ze_event_pool_desc_t pd = {.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, .flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE,
                               .count = 0};
    ZT_EXPECT(zeEventPoolCreate(env.context, &pd, 1, &env.device, &pool), ZE_RESULT_ERROR_INVALID_SIZE);
    pd.count = 2;
    ZT_EXPECT(zeEventPoolCreate(env.context, &pd, 1, NULL, &pool), ZE_RESULT_ERROR_INVALID_SIZE);
    ZT_EXPECT(zeEventPoolCreate(NULL, &pd, 1, &env.device, &pool), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeEventPoolCreate(env.context, NULL, 1, &env.device, &pool), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(zeEventPoolCreate(env.context, &pd, 1, &env.device, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    pd.flags = 0x80;
    ZT_EXPECT(zeEventPoolCreate(env.context, &pd, 1, &env.device, &pool), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    /* A pool with no device list spans the context's devices. */
    pd.flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE;
    ZT_OK(zeEventPoolCreate(env.context, &pd, 0, NULL, &pool));
    ze_event_handle_t e = NULL;
    ze_event_desc_t ed = {.stype = ZE_STRUCTURE_TYPE_EVENT_DESC, .index = 0};
    ZT_EXPECT(zeEventCreate(NULL, &ed, &e), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeEventCreate(pool, NULL, &e), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(zeEventCreate(pool, &ed, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ed.signal = 0x80;
    ZT_EXPECT(zeEventCreate(pool, &ed, &e), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    ed.signal = 0;
    ZT_OK(zeEventCreate(pool, &ed, &e));
    ZT_OK(zeEventDestroy(e));
    ZT_EXPECT(zeEventHostSignal(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeEventHostSynchronize(NULL, 0), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeEventQueryStatus(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeEventHostReset(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeEventDestroy(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeEventPoolDestroy(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_OK(zeEventPoolDestroy(pool));
    zt_fini(&env);
}

/* A kernel's signal event completes after its results are visible. */
T(kernel_signals_event)
{
    zt_env env;
    zt_init(&env);
    int *x = zt_alloc_shared(&env, 256 * sizeof(int));
    memset(x, 0, 256 * sizeof(int));
    adder a = adder_create(&env, x, 5, 256);
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 1, false);
    ze_event_handle_t e = zt_event_create(pool, 0);
    ZT_OK(zeCommandListAppendLaunchKernel(l, a.add, &four_groups, e, 0, NULL));
    ZT_OK(zeEventHostSynchronize(e, ZT_TIMEOUT_NS));
    ZT_OK(zeEventQueryStatus(e));
    for (int i = 0; i < 256; i++)
        cr_assert_eq(x[i], 5);
    ZT_OK(zeEventDestroy(e));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeCommandListDestroy(l));
    adder_destroy(&a);
    ZT_OK(zeMemFree(env.context, x));
    zt_fini(&env);
}

/* A launch that waits on an event does not run before the host signals it. */
T(wait_event_gates_a_launch)
{
    zt_env env;
    zt_init(&env);
    int *x = zt_alloc_shared(&env, 256 * sizeof(int));
    memset(x, 0, 256 * sizeof(int));
    adder a = adder_create(&env, x, 1, 256);
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 2, false);
    ze_event_handle_t gate = zt_event_create(pool, 0);
    ze_event_handle_t done = zt_event_create(pool, 1);
    ZT_OK(zeCommandListAppendLaunchKernel(l, a.add, &four_groups, done, 1, &gate));
    pause_ms(100);
    ZT_EXPECT(zeEventQueryStatus(done), ZE_RESULT_NOT_READY);
    for (int i = 0; i < 256; i++)
        cr_assert_eq(x[i], 0, "the launch ran before its wait event was signalled");
    ZT_OK(zeEventHostSignal(gate));
    ZT_OK(zeEventHostSynchronize(done, ZT_TIMEOUT_NS));
    for (int i = 0; i < 256; i++)
        cr_assert_eq(x[i], 1);
    ZT_OK(zeEventDestroy(gate));
    ZT_OK(zeEventDestroy(done));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeCommandListDestroy(l));
    adder_destroy(&a);
    ZT_OK(zeMemFree(env.context, x));
    zt_fini(&env);
}

/* Signal, wait and reset commands in a list, and a barrier that waits on an event. */
static void append_signal_wait_reset_and_barrier(void)
{
    zt_env env;
    zt_init(&env);
    int *x = zt_alloc_shared(&env, 256 * sizeof(int));
    memset(x, 0, 256 * sizeof(int));
    adder a = adder_create(&env, x, 2, 256);
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 4, false);
    ze_event_handle_t host = zt_event_create(pool, 0);
    ze_event_handle_t mid = zt_event_create(pool, 1);
    ze_event_handle_t end = zt_event_create(pool, 2);
    ZT_OK(zeCommandListAppendWaitOnEvents(l, 1, &host));
    ZT_OK(zeCommandListAppendLaunchKernel(l, a.add, &four_groups, NULL, 0, NULL));
    ZT_OK(zeCommandListAppendSignalEvent(l, mid));
    ZT_OK(zeCommandListAppendBarrier(l, NULL, 1, &mid));
    ZT_OK(zeCommandListAppendLaunchKernel(l, a.add, &four_groups, NULL, 0, NULL));
    ZT_OK(zeCommandListAppendEventReset(l, mid));
    ZT_OK(zeCommandListAppendSignalEvent(l, end));
    pause_ms(50);
    ZT_EXPECT(zeEventQueryStatus(end), ZE_RESULT_NOT_READY);
    cr_assert_eq(x[0], 0, "ran past a wait on an unsignalled event");
    ZT_OK(zeEventHostSignal(host));
    ZT_OK(zeEventHostSynchronize(end, ZT_TIMEOUT_NS));
    ZT_EXPECT(zeEventQueryStatus(mid), ZE_RESULT_NOT_READY);
    for (int i = 0; i < 256; i++)
        cr_assert_eq(x[i], 4);
    ZT_OK(zeEventDestroy(host));
    ZT_OK(zeEventDestroy(mid));
    ZT_OK(zeEventDestroy(end));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeCommandListDestroy(l));
    adder_destroy(&a);
    ZT_OK(zeMemFree(env.context, x));
    zt_fini(&env);
}

/* Queue B's work waits on an event that queue A's work signals; B is submitted first and A is held back
 * by a host event, so the order can only come from the events. */
T(ordering_across_two_queues)
{
    zt_env env;
    zt_init(&env);
    enum { N = 256 };
    int *x = zt_alloc_shared(&env, N * sizeof(int));
    int *y = zt_alloc_shared(&env, N * sizeof(int));
    for (int i = 0; i < N; i++) {
        x[i] = i;
        y[i] = -1;
    }
    ze_module_handle_t m = zt_module_load(&env, "ze_vadd");
    ze_kernel_handle_t add = zt_kernel_create(m, "add_scalar");
    int k = 1000;
    uint32_t n = N;
    zt_set_args(add, 3, sizeof x, &x, sizeof k, &k, sizeof n, &n);
    ZT_OK(zeKernelSetGroupSize(add, 64, 1, 1));

    ze_command_queue_handle_t qa = zt_queue_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_queue_handle_t qb = zt_queue_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t la = zt_list_create(&env);
    ze_command_list_handle_t lb = zt_list_create(&env);
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 3, false);
    ze_event_handle_t hold = zt_event_create(pool, 0);
    ze_event_handle_t a_done = zt_event_create(pool, 1);
    ze_event_handle_t b_done = zt_event_create(pool, 2);

    ZT_OK(zeCommandListAppendMemoryCopy(lb, y, x, N * sizeof(int), b_done, 1, &a_done));
    ZT_OK(zeCommandListClose(lb));
    ZT_OK(zeCommandListAppendLaunchKernel(la, add, &four_groups, a_done, 1, &hold));
    ZT_OK(zeCommandListClose(la));

    ZT_OK(zeCommandQueueExecuteCommandLists(qb, 1, &lb, NULL));
    ZT_OK(zeCommandQueueExecuteCommandLists(qa, 1, &la, NULL));
    pause_ms(100);
    ZT_EXPECT(zeEventQueryStatus(b_done), ZE_RESULT_NOT_READY);
    ZT_EXPECT(zeCommandQueueSynchronize(qb, 0), ZE_RESULT_NOT_READY);
    cr_assert_eq(y[0], -1, "queue B ran before its wait event");
    ZT_OK(zeEventHostSignal(hold));
    ZT_OK(zeCommandQueueSynchronize(qb, ZT_TIMEOUT_NS));
    ZT_OK(zeCommandQueueSynchronize(qa, ZT_TIMEOUT_NS));
    ZT_OK(zeEventQueryStatus(a_done));
    ZT_OK(zeEventQueryStatus(b_done));
    for (int i = 0; i < N; i++) {
        cr_assert_eq(x[i], i + 1000);
        cr_assert_eq(y[i], i + 1000, "y[%d] = %d: the copy did not see queue A's result", i, y[i]);
    }
    ZT_OK(zeEventDestroy(hold));
    ZT_OK(zeEventDestroy(a_done));
    ZT_OK(zeEventDestroy(b_done));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeCommandListDestroy(la));
    ZT_OK(zeCommandListDestroy(lb));
    ZT_OK(zeCommandQueueDestroy(qa));
    ZT_OK(zeCommandQueueDestroy(qb));
    ZT_OK(zeKernelDestroy(add));
    ZT_OK(zeModuleDestroy(m));
    ZT_OK(zeMemFree(env.context, x));
    ZT_OK(zeMemFree(env.context, y));
    zt_fini(&env);
}

/* Three kernels in order on one list: each kernel's timestamps are ordered, and each starts no earlier
 * than the previous one ended. */
T(kernel_timestamps_increase)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_private");
    ze_kernel_handle_t k = zt_kernel_create(m, "big_private");
    enum { N = 2048 };
    int *in = zt_alloc_shared(&env, N * sizeof(int));
    int *out = zt_alloc_shared(&env, N * sizeof(int));
    for (int i = 0; i < N; i++)
        in[i] = i % 13;
    int n = N;
    zt_set_args(k, 3, sizeof in, &in, sizeof out, &out, sizeof n, &n);
    ZT_OK(zeKernelSetGroupSize(k, 16, 1, 1));
    ze_group_count_t gc = {N / 16, 1, 1};
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 3, true);
    ze_event_handle_t ev[3];
    for (uint32_t i = 0; i < 3; i++) {
        ev[i] = zt_event_create(pool, i);
        ze_kernel_timestamp_result_t ts;
        memset(&ts, 0x77, sizeof ts);
        ZT_EXPECT(zeEventQueryKernelTimestamp(ev[i], &ts), ZE_RESULT_NOT_READY);
    }
    for (int i = 0; i < 3; i++)
        ZT_OK(zeCommandListAppendLaunchKernel(l, k, &gc, ev[i], i > 0 ? 1 : 0, i > 0 ? &ev[i - 1] : NULL));
    ZT_OK(zeEventHostSynchronize(ev[2], ZT_TIMEOUT_NS));
    ze_device_properties_t dp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    ZT_OK(zeDeviceGetProperties(env.device, &dp));
    uint32_t bits = dp.kernelTimestampValidBits;
    ze_kernel_timestamp_result_t ts[3];
    for (int i = 0; i < 3; i++) {
        ZT_OK(zeEventQueryKernelTimestamp(ev[i], &ts[i]));
        cr_assert(zt_ts_leq(ts[i].global.kernelStart, ts[i].global.kernelEnd, bits),
                  "kernel %d: global start after end", i);
        cr_assert(zt_ts_leq(ts[i].context.kernelStart, ts[i].context.kernelEnd, bits),
                  "kernel %d: context start after end", i);
        if (i > 0)
            cr_assert(zt_ts_leq(ts[i - 1].global.kernelEnd, ts[i].global.kernelStart, bits),
                      "kernel %d started (%lu) before kernel %d ended (%lu)", i,
                      (unsigned long)ts[i].global.kernelStart, i - 1, (unsigned long)ts[i - 1].global.kernelEnd);
    }
    cr_assert(zt_ts_leq(ts[0].global.kernelStart, ts[2].global.kernelEnd, bits) &&
                  ts[0].global.kernelStart != ts[2].global.kernelEnd,
              "three real kernels took no time at all");
    /* The data is right too. */
    for (int g = 0; g < N; g += 97) {
        int buf_sum = 0;
        for (int i = 0; i < 4096; i++) {
            int j = (i * 7 + g) % 4096;
            buf_sum += in[(g + j) % N] + j;
        }
        cr_assert_eq(out[g], buf_sum, "out[%d]", g);
    }
    for (int i = 0; i < 3; i++)
        ZT_OK(zeEventDestroy(ev[i]));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    ZT_OK(zeMemFree(env.context, in));
    ZT_OK(zeMemFree(env.context, out));
    zt_fini(&env);
}

/* Kernel timestamps are in the device's global time domain, the one zeDeviceGetGlobalTimestamps reads:
 * a kernel appended after one reading and finished before another lies between the two. This orders
 * causally related points; it measures no duration. */
T(kernel_timestamps_lie_between_global_timestamps)
{
    zt_env env;
    zt_init(&env);
    ze_device_properties_t dp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    ZT_OK(zeDeviceGetProperties(env.device, &dp));
    /* Both clocks are one: kernel timestamps and global ones are compared on the narrower counter. */
    uint32_t bits = dp.kernelTimestampValidBits < dp.timestampValidBits ? dp.kernelTimestampValidBits
                                                                       : dp.timestampValidBits;
    ze_module_handle_t m = zt_module_load(&env, "ze_vadd");
    ze_kernel_handle_t k = zt_kernel_create(m, "iota");
    uint32_t *out = zt_alloc_shared(&env, 4096 * sizeof(uint32_t));
    zt_set_args(k, 1, sizeof out, &out);
    ZT_OK(zeKernelSetGroupSize(k, 64, 1, 1));
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 1, true);
    ze_event_handle_t e = zt_event_create(pool, 0);
    ze_group_count_t gc = {64, 1, 1};
    for (int round = 0; round < 3; round++) {
        uint64_t h0 = 0, d0 = 0, h1 = 0, d1 = 0;
        ZT_OK(zeDeviceGetGlobalTimestamps(env.device, &h0, &d0));
        ZT_OK(zeCommandListAppendLaunchKernel(l, k, &gc, e, 0, NULL));
        ZT_OK(zeEventHostSynchronize(e, ZT_TIMEOUT_NS));
        ZT_OK(zeDeviceGetGlobalTimestamps(env.device, &h1, &d1));
        ze_kernel_timestamp_result_t ts;
        ZT_OK(zeEventQueryKernelTimestamp(e, &ts));
        cr_assert(zt_ts_leq(d0, d1, bits));
        cr_assert(zt_ts_leq(d0, ts.global.kernelStart, bits), "round %d: kernel start %lu before the launch (%lu)",
                  round, (unsigned long)ts.global.kernelStart, (unsigned long)d0);
        cr_assert(zt_ts_leq(ts.global.kernelStart, ts.global.kernelEnd, bits));
        cr_assert(zt_ts_leq(ts.global.kernelEnd, d1, bits), "round %d: kernel end %lu after the wait returned (%lu)",
                  round, (unsigned long)ts.global.kernelEnd, (unsigned long)d1);
        ZT_OK(zeEventHostReset(e));
    }
    ZT_OK(zeEventDestroy(e));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* A global timestamp written by the device lies between host-side readings of the same clock, and a
 * kernel's timestamps copied by zeCommandListAppendQueryKernelTimestamps equal the host query's. */
T(written_and_copied_timestamps)
{
    zt_env env;
    zt_init(&env);
    ze_device_properties_t dp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    ZT_OK(zeDeviceGetProperties(env.device, &dp));
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    uint64_t *stamp = zt_alloc_shared(&env, 2 * sizeof(uint64_t));
    uint64_t h0, d0, h1, d1;
    ZT_OK(zeDeviceGetGlobalTimestamps(env.device, &h0, &d0));
    ZT_OK(zeCommandListAppendWriteGlobalTimestamp(l, stamp, NULL, 0, NULL));
    zt_immediate_sync(&env, l);
    ZT_OK(zeDeviceGetGlobalTimestamps(env.device, &h1, &d1));
    cr_assert(zt_ts_leq(d0, stamp[0], dp.timestampValidBits), "written %lu before the reading %lu",
              (unsigned long)stamp[0], (unsigned long)d0);
    cr_assert(zt_ts_leq(stamp[0], d1, dp.timestampValidBits), "written %lu after the reading %lu",
              (unsigned long)stamp[0], (unsigned long)d1);

    ze_module_handle_t m = zt_module_load(&env, "ze_vadd");
    ze_kernel_handle_t k = zt_kernel_create(m, "iota");
    uint32_t *out = zt_alloc_shared(&env, 1024 * sizeof(uint32_t));
    zt_set_args(k, 1, sizeof out, &out);
    ZT_OK(zeKernelSetGroupSize(k, 64, 1, 1));
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 2, true);
    ze_event_handle_t ev[2] = {zt_event_create(pool, 0), zt_event_create(pool, 1)};
    ze_group_count_t gc = {16, 1, 1};
    ZT_OK(zeCommandListAppendLaunchKernel(l, k, &gc, ev[0], 0, NULL));
    ZT_OK(zeCommandListAppendLaunchKernel(l, k, &gc, ev[1], 1, &ev[0]));
    ze_kernel_timestamp_result_t *copied = zt_alloc_shared(&env, 2 * sizeof *copied);
    memset(copied, 0, 2 * sizeof *copied);
    ZT_OK(zeCommandListAppendQueryKernelTimestamps(l, 2, ev, copied, NULL, NULL, 2, ev));
    zt_immediate_sync(&env, l);
    for (int i = 0; i < 2; i++) {
        ze_kernel_timestamp_result_t ts;
        ZT_OK(zeEventQueryKernelTimestamp(ev[i], &ts));
        cr_assert_arr_eq(&copied[i], &ts, sizeof ts, "copied timestamps of kernel %d differ", i);
    }
    ZT_OK(zeEventDestroy(ev[0]));
    ZT_OK(zeEventDestroy(ev[1]));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeMemFree(env.context, copied));
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeMemFree(env.context, stamp));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    ZT_OK(zeCommandListDestroy(l));
    zt_fini(&env);
}

/* timestampValidBits and kernelTimestampValidBits are below 64, so the mask clients build, (1ull << bits) - 1, is
 * defined C (64 made it undefined: level-zero-tests' ze_peak then printed a launch latency of 0), and every
 * device timestamp a driver hands out lies within its bits: global readings (monotonic), written global
 * timestamps, kernel timestamps from the event and copied by a command, each kernel's start not after its end. */
T(timestamps_fit_their_valid_bits)
{
    zt_env env;
    zt_init(&env);
    ze_device_properties_t dp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    ZT_OK(zeDeviceGetProperties(env.device, &dp));
    cr_assert(dp.timestampValidBits > 0 && dp.timestampValidBits < 64, "timestampValidBits %u",
              dp.timestampValidBits);
    cr_assert(dp.kernelTimestampValidBits > 0 && dp.kernelTimestampValidBits < 64, "kernelTimestampValidBits %u",
              dp.kernelTimestampValidBits);
    const uint64_t mask = (1ull << dp.timestampValidBits) - 1, kmask = (1ull << dp.kernelTimestampValidBits) - 1;

    uint64_t host = 0, prev = 0;
    ZT_OK(zeDeviceGetGlobalTimestamps(env.device, &host, &prev));
    cr_assert_eq(prev & ~mask, 0, "device timestamp 0x%lx has bits above %u", (unsigned long)prev,
                 dp.timestampValidBits);
    for (int i = 0; i < 1000; i++) {
        uint64_t d = 0;
        ZT_OK(zeDeviceGetGlobalTimestamps(env.device, &host, &d));
        cr_assert_eq(d & ~mask, 0, "device timestamp 0x%lx has bits above %u", (unsigned long)d, dp.timestampValidBits);
        cr_assert(zt_ts_leq(prev, d, dp.timestampValidBits), "reading %d: %lu after %lu", i, (unsigned long)d,
                  (unsigned long)prev);
        prev = d;
    }

    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    uint64_t *stamp = zt_alloc_shared(&env, sizeof *stamp);
    *stamp = UINT64_MAX;
    ZT_OK(zeCommandListAppendWriteGlobalTimestamp(l, stamp, NULL, 0, NULL));
    ze_module_handle_t m = zt_module_load(&env, "ze_vadd");
    ze_kernel_handle_t k = zt_kernel_create(m, "iota");
    uint32_t *out = zt_alloc_shared(&env, 1024 * sizeof(uint32_t));
    zt_set_args(k, 1, sizeof out, &out);
    ZT_OK(zeKernelSetGroupSize(k, 64, 1, 1));
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 1, true);
    ze_event_handle_t e = zt_event_create(pool, 0);
    ze_group_count_t gc = {16, 1, 1};
    ZT_OK(zeCommandListAppendLaunchKernel(l, k, &gc, e, 0, NULL));
    ze_kernel_timestamp_result_t *copied = zt_alloc_shared(&env, sizeof *copied);
    memset(copied, 0xff, sizeof *copied);
    ZT_OK(zeCommandListAppendQueryKernelTimestamps(l, 1, &e, copied, NULL, NULL, 0, NULL));
    zt_immediate_sync(&env, l);
    cr_assert_eq(*stamp & ~mask, 0, "written timestamp 0x%lx has bits above %u", (unsigned long)*stamp,
                 dp.timestampValidBits);
    ze_kernel_timestamp_result_t ts;
    ZT_OK(zeEventQueryKernelTimestamp(e, &ts));
    const ze_kernel_timestamp_data_t *spans[] = {&ts.global, &ts.context, &copied->global, &copied->context};
    for (int i = 0; i < 4; i++) {
        cr_assert_eq(spans[i]->kernelStart & ~kmask, 0, "span %d: start 0x%lx has bits above %u", i,
                     (unsigned long)spans[i]->kernelStart, dp.kernelTimestampValidBits);
        cr_assert_eq(spans[i]->kernelEnd & ~kmask, 0, "span %d: end 0x%lx has bits above %u", i,
                     (unsigned long)spans[i]->kernelEnd, dp.kernelTimestampValidBits);
        cr_assert(zt_ts_leq(spans[i]->kernelStart, spans[i]->kernelEnd, dp.kernelTimestampValidBits),
                  "span %d: start %lu after end %lu", i, (unsigned long)spans[i]->kernelStart,
                  (unsigned long)spans[i]->kernelEnd);
    }
    ZT_OK(zeEventDestroy(e));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeMemFree(env.context, copied));
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeMemFree(env.context, stamp));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    ZT_OK(zeCommandListDestroy(l));
    zt_fini(&env);
}

T(fence_lifecycle)
{
    zt_env env;
    zt_init(&env);
    int *x = zt_alloc_shared(&env, 256 * sizeof(int));
    memset(x, 0, 256 * sizeof(int));
    adder a = adder_create(&env, x, 3, 256);
    ze_command_queue_handle_t q = zt_queue_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t l = zt_list_create(&env);
    ZT_OK(zeCommandListAppendLaunchKernel(l, a.add, &four_groups, NULL, 0, NULL));
    ZT_OK(zeCommandListClose(l));
    ze_fence_desc_t fd = {.stype = ZE_STRUCTURE_TYPE_FENCE_DESC};
    ze_fence_handle_t f = NULL;
    ZT_OK(zeFenceCreate(q, &fd, &f));
    ZT_EXPECT(zeFenceQueryStatus(f), ZE_RESULT_NOT_READY);
    ZT_EXPECT(zeFenceHostSynchronize(f, 0), ZE_RESULT_NOT_READY);
    for (int round = 1; round <= 3; round++) {
        ZT_OK(zeCommandQueueExecuteCommandLists(q, 1, &l, f));
        ZT_OK(zeFenceHostSynchronize(f, ZT_TIMEOUT_NS));
        ZT_OK(zeFenceQueryStatus(f));
        for (int i = 0; i < 256; i++)
            cr_assert_eq(x[i], 3 * round, "round %d: x[%d] = %d", round, i, x[i]);
        ZT_OK(zeFenceReset(f));
        ZT_EXPECT(zeFenceQueryStatus(f), ZE_RESULT_NOT_READY);
    }
    /* A fence created signalled. */
    ze_fence_handle_t s = NULL;
    fd.flags = ZE_FENCE_FLAG_SIGNALED;
    ZT_OK(zeFenceCreate(q, &fd, &s));
    ZT_OK(zeFenceQueryStatus(s));
    ZT_OK(zeFenceDestroy(s));

    fd.flags = 0;
    ZT_EXPECT(zeFenceCreate(NULL, &fd, &s), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeFenceCreate(q, NULL, &s), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(zeFenceCreate(q, &fd, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    fd.flags = 0x2;
    ZT_EXPECT(zeFenceCreate(q, &fd, &s), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    ZT_EXPECT(zeFenceQueryStatus(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeFenceHostSynchronize(NULL, 0), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeFenceReset(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeFenceDestroy(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);

    ZT_OK(zeFenceDestroy(f));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeCommandQueueDestroy(q));
    adder_destroy(&a);
    ZT_OK(zeMemFree(env.context, x));
    zt_fini(&env);
}

/* A closed regular list runs as often as it is executed, and after a reset holds new commands only. */
T(regular_list_execute_reset_reuse)
{
    zt_env env;
    zt_init(&env);
    int *x = zt_alloc_shared(&env, 256 * sizeof(int));
    memset(x, 0, 256 * sizeof(int));
    adder a = adder_create(&env, x, 1, 256);
    ze_command_queue_handle_t q = zt_queue_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t l = zt_list_create(&env);
    ZT_OK(zeCommandListAppendLaunchKernel(l, a.add, &four_groups, NULL, 0, NULL));
    ZT_OK(zeCommandListAppendBarrier(l, NULL, 0, NULL));
    ZT_OK(zeCommandListAppendLaunchKernel(l, a.add, &four_groups, NULL, 0, NULL));
    ZT_OK(zeCommandListClose(l));
    for (int i = 0; i < 3; i++)
        ZT_OK(zeCommandQueueExecuteCommandLists(q, 1, &l, NULL));
    ZT_OK(zeCommandQueueSynchronize(q, ZT_TIMEOUT_NS));
    for (int i = 0; i < 256; i++)
        cr_assert_eq(x[i], 6, "x[%d] = %d", i, x[i]);

    ZT_OK(zeCommandListReset(l));
    static const int pattern = 77;
    ZT_OK(zeCommandListAppendMemoryFill(l, x, &pattern, sizeof pattern, 128 * sizeof(int), NULL, 0, NULL));
    ZT_OK(zeCommandListClose(l));
    ZT_OK(zeCommandQueueExecuteCommandLists(q, 1, &l, NULL));
    ZT_OK(zeCommandQueueSynchronize(q, ZT_TIMEOUT_NS));
    for (int i = 0; i < 256; i++)
        cr_assert_eq(x[i], i < 128 ? 77 : 6, "after reset: x[%d] = %d", i, x[i]);

    /* Two lists in one submission run in order. */
    ze_command_list_handle_t l2 = zt_list_create(&env);
    ZT_OK(zeCommandListReset(l));
    ZT_OK(zeCommandListAppendMemoryFill(l, x, &pattern, sizeof pattern, 256 * sizeof(int), NULL, 0, NULL));
    ZT_OK(zeCommandListClose(l));
    ZT_OK(zeCommandListAppendLaunchKernel(l2, a.add, &four_groups, NULL, 0, NULL));
    ZT_OK(zeCommandListClose(l2));
    ze_command_list_handle_t both[2] = {l, l2};
    ZT_OK(zeCommandQueueExecuteCommandLists(q, 2, both, NULL));
    ZT_OK(zeCommandQueueSynchronize(q, ZT_TIMEOUT_NS));
    for (int i = 0; i < 256; i++)
        cr_assert_eq(x[i], 78, "two lists: x[%d] = %d", i, x[i]);

    ZT_EXPECT(zeCommandQueueExecuteCommandLists(q, 0, both, NULL), ZE_RESULT_ERROR_INVALID_SIZE);
    ZT_EXPECT(zeCommandQueueExecuteCommandLists(q, 1, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(zeCommandQueueExecuteCommandLists(NULL, 1, both, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeCommandQueueSynchronize(NULL, 0), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeCommandListClose(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeCommandListReset(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);

    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeCommandListDestroy(l2));
    ZT_OK(zeCommandQueueDestroy(q));
    adder_destroy(&a);
    ZT_OK(zeMemFree(env.context, x));
    zt_fini(&env);
}

/* A synchronous queue has finished the work when the execute call returns. */
T(synchronous_queue)
{
    zt_env env;
    zt_init(&env);
    int *x = zt_alloc_shared(&env, 256 * sizeof(int));
    memset(x, 0, 256 * sizeof(int));
    adder a = adder_create(&env, x, 9, 256);
    ze_command_queue_handle_t q = zt_queue_create(&env, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    ze_command_list_handle_t l = zt_list_create(&env);
    ZT_OK(zeCommandListAppendLaunchKernel(l, a.add, &four_groups, NULL, 0, NULL));
    ZT_OK(zeCommandListClose(l));
    ZT_OK(zeCommandQueueExecuteCommandLists(q, 1, &l, NULL));
    for (int i = 0; i < 256; i++)
        cr_assert_eq(x[i], 9, "x[%d] = %d right after a synchronous execute", i, x[i]);
    ZT_OK(zeCommandQueueSynchronize(q, ZT_TIMEOUT_NS));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeCommandQueueDestroy(q));
    adder_destroy(&a);
    ZT_OK(zeMemFree(env.context, x));
    zt_fini(&env);
}

/* With a timeout of 0 the spec asks for the queue's current status: a queue with nothing pending is done. */
Test(ze_events, idle_queue_synchronize_with_zero_timeout, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env;
    zt_init(&env);
    ze_command_queue_handle_t q = zt_queue_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    for (int i = 0; i < 200; i++)
        ZT_OK(zeCommandQueueSynchronize(q, 0));
    int *x = zt_alloc_shared(&env, 256 * sizeof(int));
    memset(x, 0, 256 * sizeof(int));
    adder a = adder_create(&env, x, 1, 256);
    ze_command_list_handle_t l = zt_list_create(&env);
    ZT_OK(zeCommandListAppendLaunchKernel(l, a.add, &four_groups, NULL, 0, NULL));
    ZT_OK(zeCommandListClose(l));
    ZT_OK(zeCommandQueueExecuteCommandLists(q, 1, &l, NULL));
    ZT_OK(zeCommandQueueSynchronize(q, UINT64_MAX));
    cr_assert_eq(x[255], 1);
    for (int i = 0; i < 200; i++)
        ZT_OK(zeCommandQueueSynchronize(q, 0));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeCommandQueueDestroy(q));
    adder_destroy(&a);
    ZT_OK(zeMemFree(env.context, x));
    zt_fini(&env);
}

/* A synchronous immediate list has finished each command when the append returns. */
T(synchronous_immediate_list)
{
    zt_env env;
    zt_init(&env);
    int *x = zt_alloc_shared(&env, 256 * sizeof(int));
    memset(x, 0, 256 * sizeof(int));
    adder a = adder_create(&env, x, 1, 256);
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    for (int round = 1; round <= 5; round++) {
        ZT_OK(zeCommandListAppendLaunchKernel(l, a.add, &four_groups, NULL, 0, NULL));
        for (int i = 0; i < 256; i++)
            cr_assert_eq(x[i], round, "round %d: x[%d] = %d right after a synchronous append", round, i, x[i]);
    }
    int *y = zt_alloc_shared(&env, 256 * sizeof(int));
    ZT_OK(zeCommandListAppendMemoryCopy(l, y, x, 256 * sizeof(int), NULL, 0, NULL));
    cr_assert_arr_eq(y, x, 256 * sizeof(int));
    ZT_OK(zeCommandListDestroy(l));
    adder_destroy(&a);
    ZT_OK(zeMemFree(env.context, x));
    ZT_OK(zeMemFree(env.context, y));
    zt_fini(&env);
}

/* Two asynchronous immediate lists joined by an event: the second list's copy waits for the first's kernel. */
T(immediate_lists_joined_by_event)
{
    zt_env env;
    zt_init(&env);
    int *x = zt_alloc_shared(&env, 256 * sizeof(int));
    int *y = zt_alloc_shared(&env, 256 * sizeof(int));
    memset(x, 0, 256 * sizeof(int));
    memset(y, 0xff, 256 * sizeof(int));
    adder a = adder_create(&env, x, 42, 256);
    ze_command_list_handle_t l1 = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t l2 = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 3, false);
    ze_event_handle_t hold = zt_event_create(pool, 0);
    ze_event_handle_t k_done = zt_event_create(pool, 1);
    ze_event_handle_t c_done = zt_event_create(pool, 2);
    ZT_OK(zeCommandListAppendMemoryCopy(l2, y, x, 256 * sizeof(int), c_done, 1, &k_done));
    ZT_OK(zeCommandListAppendLaunchKernel(l1, a.add, &four_groups, k_done, 1, &hold));
    ZT_OK(zeEventHostSignal(hold));
    ZT_OK(zeEventHostSynchronize(c_done, ZT_TIMEOUT_NS));
    for (int i = 0; i < 256; i++)
        cr_assert_eq(y[i], 42, "y[%d] = %d", i, y[i]);
    ZT_OK(zeEventDestroy(hold));
    ZT_OK(zeEventDestroy(k_done));
    ZT_OK(zeEventDestroy(c_done));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeCommandListDestroy(l1));
    ZT_OK(zeCommandListDestroy(l2));
    adder_destroy(&a);
    ZT_OK(zeMemFree(env.context, x));
    ZT_OK(zeMemFree(env.context, y));
    zt_fini(&env);
}

/* An event signalled by a launch can be reset on the host and signalled again by a later launch. */
T(event_reuse_after_host_reset)
{
    zt_env env;
    zt_init(&env);
    int *x = zt_alloc_shared(&env, 256 * sizeof(int));
    memset(x, 0, 256 * sizeof(int));
    adder a = adder_create(&env, x, 1, 256);
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 2, true);
    ze_event_handle_t done = zt_event_create(pool, 0);
    ze_event_handle_t gate = zt_event_create(pool, 1);
    for (int round = 1; round <= 3; round++) {
        ZT_OK(zeCommandListAppendLaunchKernel(l, a.add, &four_groups, done, 1, &gate));
        pause_ms(20);
        ZT_EXPECT(zeEventQueryStatus(done), ZE_RESULT_NOT_READY);
        ZT_OK(zeEventHostSignal(gate));
        ZT_OK(zeEventHostSynchronize(done, ZT_TIMEOUT_NS));
        ze_kernel_timestamp_result_t ts;
        ZT_OK(zeEventQueryKernelTimestamp(done, &ts));
        cr_assert_leq(ts.global.kernelStart, ts.global.kernelEnd);
        for (int i = 0; i < 256; i++)
            cr_assert_eq(x[i], round, "round %d: x[%d] = %d", round, i, x[i]);
        ZT_OK(zeEventHostReset(done));
        ZT_OK(zeEventHostReset(gate));
        ZT_EXPECT(zeEventQueryStatus(done), ZE_RESULT_NOT_READY);
        ZT_EXPECT(zeEventQueryKernelTimestamp(done, &ts), ZE_RESULT_NOT_READY);
    }
    ZT_OK(zeEventDestroy(done));
    ZT_OK(zeEventDestroy(gate));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeCommandListDestroy(l));
    adder_destroy(&a);
    ZT_OK(zeMemFree(env.context, x));
    zt_fini(&env);
}

/* Several host threads wait on one event at once; one signal releases them all. */
typedef struct {
    ze_event_handle_t ev;
    ze_result_t result;
} waiter;

static void *wait_main(void *arg)
{
    waiter *w = arg;
    w->result = zeEventHostSynchronize(w->ev, ZT_TIMEOUT_NS);
    return NULL;
}

T(many_host_waiters)
{
    zt_env env;
    zt_init(&env);
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 1, false);
    ze_event_handle_t e = zt_event_create(pool, 0);
    enum { W = 4 };
    pthread_t th[W];
    waiter w[W];
    for (int i = 0; i < W; i++) {
        w[i] = (waiter){.ev = e, .result = ZE_RESULT_ERROR_UNKNOWN};
        cr_assert_eq(pthread_create(&th[i], NULL, wait_main, &w[i]), 0);
    }
    pause_ms(50);
    ZT_OK(zeEventHostSignal(e));
    for (int i = 0; i < W; i++) {
        cr_assert_eq(pthread_join(th[i], NULL), 0);
        cr_assert_eq(w[i].result, ZE_RESULT_SUCCESS, "waiter %d: 0x%x", i, (unsigned)w[i].result);
    }
    ZT_OK(zeEventDestroy(e));
    ZT_OK(zeEventPoolDestroy(pool));
    zt_fini(&env);
}

/* A barrier that waits on events from two other lists joins them: its signal comes after both. */
static void barrier_joins_two_lists(void)
{
    zt_env env;
    zt_init(&env);
    int *x = zt_alloc_shared(&env, 256 * sizeof(int));
    int *y = zt_alloc_shared(&env, 256 * sizeof(int));
    int *z = zt_alloc_shared(&env, 512 * sizeof(int));
    memset(x, 0, 256 * sizeof(int));
    memset(y, 0, 256 * sizeof(int));
    memset(z, 0, 512 * sizeof(int));
    adder ax = adder_create(&env, x, 3, 256);
    adder ay = adder_create(&env, y, 4, 256);
    ze_command_list_handle_t l1 = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t l2 = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t l3 = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 4, false);
    ze_event_handle_t gate = zt_event_create(pool, 0);
    ze_event_handle_t e1 = zt_event_create(pool, 1);
    ze_event_handle_t e2 = zt_event_create(pool, 2);
    ze_event_handle_t joined = zt_event_create(pool, 3);
    ze_event_handle_t both[2] = {e1, e2};
    ZT_OK(zeCommandListAppendBarrier(l3, NULL, 2, both));
    ZT_OK(zeCommandListAppendMemoryCopy(l3, z, x, 256 * sizeof(int), NULL, 0, NULL));
    ZT_OK(zeCommandListAppendMemoryCopy(l3, z + 256, y, 256 * sizeof(int), joined, 0, NULL));
    ZT_OK(zeCommandListAppendLaunchKernel(l1, ax.add, &four_groups, e1, 1, &gate));
    ZT_OK(zeCommandListAppendLaunchKernel(l2, ay.add, &four_groups, e2, 0, NULL));
    ZT_OK(zeEventHostSynchronize(e2, ZT_TIMEOUT_NS));
    pause_ms(20);
    ZT_EXPECT(zeEventQueryStatus(joined), ZE_RESULT_NOT_READY);
    cr_assert_eq(z[256], 0, "copy ran before the barrier's second event");
    ZT_OK(zeEventHostSignal(gate));
    ZT_OK(zeEventHostSynchronize(joined, ZT_TIMEOUT_NS));
    for (int i = 0; i < 256; i++) {
        cr_assert_eq(z[i], 3, "z[%d] = %d", i, z[i]);
        cr_assert_eq(z[256 + i], 4, "z[%d] = %d", 256 + i, z[256 + i]);
    }
    ze_event_handle_t evs[4] = {gate, e1, e2, joined};
    for (int i = 0; i < 4; i++)
        ZT_OK(zeEventDestroy(evs[i]));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeCommandListDestroy(l1));
    ZT_OK(zeCommandListDestroy(l2));
    ZT_OK(zeCommandListDestroy(l3));
    adder_destroy(&ax);
    adder_destroy(&ay);
    ZT_OK(zeMemFree(env.context, x));
    ZT_OK(zeMemFree(env.context, y));
    ZT_OK(zeMemFree(env.context, z));
    zt_fini(&env);
}

/* Two queues ping-pong through fences: each round's list on one queue reads what the other queue wrote. */
T(fences_order_two_queues)
{
    zt_env env;
    zt_init(&env);
    int *x = zt_alloc_shared(&env, 256 * sizeof(int));
    memset(x, 0, 256 * sizeof(int));
    adder a1 = adder_create(&env, x, 1, 256);
    ze_command_queue_handle_t q[2] = {zt_queue_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS),
                                      zt_queue_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS)};
    ze_command_list_handle_t l[2] = {zt_list_create(&env), zt_list_create(&env)};
    ze_fence_handle_t f[2];
    ze_fence_desc_t fd = {.stype = ZE_STRUCTURE_TYPE_FENCE_DESC};
    for (int i = 0; i < 2; i++) {
        ZT_OK(zeCommandListAppendLaunchKernel(l[i], a1.add, &four_groups, NULL, 0, NULL));
        ZT_OK(zeCommandListClose(l[i]));
        ZT_OK(zeFenceCreate(q[i], &fd, &f[i]));
    }
    for (int round = 0; round < 10; round++) {
        int i = round % 2;
        ZT_OK(zeCommandQueueExecuteCommandLists(q[i], 1, &l[i], f[i]));
        ZT_OK(zeFenceHostSynchronize(f[i], ZT_TIMEOUT_NS));
        ZT_OK(zeFenceReset(f[i]));
        for (int j = 0; j < 256; j++)
            cr_assert_eq(x[j], round + 1, "round %d: x[%d] = %d", round, j, x[j]);
    }
    for (int i = 0; i < 2; i++) {
        ZT_OK(zeFenceDestroy(f[i]));
        ZT_OK(zeCommandListDestroy(l[i]));
        ZT_OK(zeCommandQueueDestroy(q[i]));
    }
    adder_destroy(&a1);
    ZT_OK(zeMemFree(env.context, x));
    zt_fini(&env);
}

/* Arguments and group size are captured at append even while the launch waits on an event: changing them
 * before the launch runs must not change what it does. */
T(pending_launch_keeps_its_arguments)
{
    zt_env env;
    zt_init(&env);
    int *x = zt_alloc_shared(&env, 256 * sizeof(int));
    int *y = zt_alloc_shared(&env, 256 * sizeof(int));
    memset(x, 0, 256 * sizeof(int));
    memset(y, 0, 256 * sizeof(int));
    adder a = adder_create(&env, x, 5, 256);
    ze_command_list_handle_t l1 = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t l2 = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 3, false);
    ze_event_handle_t gate = zt_event_create(pool, 0);
    ze_event_handle_t d1 = zt_event_create(pool, 1);
    ze_event_handle_t d2 = zt_event_create(pool, 2);
    /* First launch: x += 5 over 256 items (group 64), held back by the gate. */
    ZT_OK(zeCommandListAppendLaunchKernel(l1, a.add, &four_groups, d1, 1, &gate));
    /* Then the kernel is changed: y += 9 over 4 groups of 16 = 64 items. */
    int nine = 9;
    zt_set_args(a.add, 2, sizeof y, &y, sizeof nine, &nine);
    ZT_OK(zeKernelSetGroupSize(a.add, 16, 1, 1));
    ZT_OK(zeCommandListAppendLaunchKernel(l2, a.add, &four_groups, d2, 1, &gate));
    pause_ms(20);
    ZT_OK(zeEventHostSignal(gate));
    ZT_OK(zeEventHostSynchronize(d1, ZT_TIMEOUT_NS));
    ZT_OK(zeEventHostSynchronize(d2, ZT_TIMEOUT_NS));
    for (int i = 0; i < 256; i++) {
        cr_assert_eq(x[i], 5, "x[%d] = %d", i, x[i]);
        cr_assert_eq(y[i], i < 64 ? 9 : 0, "y[%d] = %d", i, y[i]);
    }
    ZT_OK(zeEventDestroy(gate));
    ZT_OK(zeEventDestroy(d1));
    ZT_OK(zeEventDestroy(d2));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeCommandListDestroy(l1));
    ZT_OK(zeCommandListDestroy(l2));
    adder_destroy(&a);
    ZT_OK(zeMemFree(env.context, x));
    ZT_OK(zeMemFree(env.context, y));
    zt_fini(&env);
}

/* Events from a pool without the host-visible flag still order device work between lists. */
T(device_only_events_order_lists)
{
    zt_env env;
    zt_init(&env);
    int *x = zt_alloc_shared(&env, 256 * sizeof(int));
    int *y = zt_alloc_shared(&env, 256 * sizeof(int));
    memset(x, 0, 256 * sizeof(int));
    memset(y, 0, 256 * sizeof(int));
    adder a = adder_create(&env, x, 6, 256);
    ze_event_pool_desc_t pd = {.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, .flags = 0, .count = 1};
    ze_event_pool_handle_t dpool = NULL;
    ZT_OK(zeEventPoolCreate(env.context, &pd, 1, &env.device, &dpool));
    ze_event_desc_t ed = {.stype = ZE_STRUCTURE_TYPE_EVENT_DESC, .index = 0};
    ze_event_handle_t dev_ev = NULL;
    ZT_OK(zeEventCreate(dpool, &ed, &dev_ev));
    ze_event_pool_handle_t hpool = zt_event_pool_create(&env, 2, false);
    ze_event_handle_t gate = zt_event_create(hpool, 0);
    ze_event_handle_t done = zt_event_create(hpool, 1);
    ze_command_list_handle_t l1 = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t l2 = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ZT_OK(zeCommandListAppendMemoryCopy(l2, y, x, 256 * sizeof(int), done, 1, &dev_ev));
    ZT_OK(zeCommandListAppendLaunchKernel(l1, a.add, &four_groups, dev_ev, 1, &gate));
    ZT_OK(zeEventHostSignal(gate));
    ZT_OK(zeEventHostSynchronize(done, ZT_TIMEOUT_NS));
    for (int i = 0; i < 256; i++)
        cr_assert_eq(y[i], 6, "y[%d] = %d", i, y[i]);
    ZT_OK(zeEventDestroy(dev_ev));
    ZT_OK(zeEventPoolDestroy(dpool));
    ZT_OK(zeEventDestroy(gate));
    ZT_OK(zeEventDestroy(done));
    ZT_OK(zeEventPoolDestroy(hpool));
    ZT_OK(zeCommandListDestroy(l1));
    ZT_OK(zeCommandListDestroy(l2));
    adder_destroy(&a);
    ZT_OK(zeMemFree(env.context, x));
    ZT_OK(zeMemFree(env.context, y));
    zt_fini(&env);
}

/* A regular list that resets and signals its own event can be executed again and again. */
T(regular_list_resets_and_signals_its_event)
{
    zt_env env;
    zt_init(&env);
    int *x = zt_alloc_shared(&env, 256 * sizeof(int));
    memset(x, 0, 256 * sizeof(int));
    adder a = adder_create(&env, x, 2, 256);
    ze_command_queue_handle_t q = zt_queue_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t l = zt_list_create(&env);
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 1, true);
    ze_event_handle_t e = zt_event_create(pool, 0);
    ZT_OK(zeCommandListAppendEventReset(l, e));
    ZT_OK(zeCommandListAppendLaunchKernel(l, a.add, &four_groups, e, 0, NULL));
    ZT_OK(zeCommandListClose(l));
    for (int round = 1; round <= 4; round++) {
        ZT_OK(zeCommandQueueExecuteCommandLists(q, 1, &l, NULL));
        ZT_OK(zeEventHostSynchronize(e, ZT_TIMEOUT_NS));
        ZT_OK(zeCommandQueueSynchronize(q, ZT_TIMEOUT_NS));
        ze_kernel_timestamp_result_t ts;
        ZT_OK(zeEventQueryKernelTimestamp(e, &ts));
        cr_assert_leq(ts.global.kernelStart, ts.global.kernelEnd);
        for (int i = 0; i < 256; i++)
            cr_assert_eq(x[i], 2 * round, "round %d: x[%d] = %d", round, i, x[i]);
    }
    ZT_OK(zeEventDestroy(e));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeCommandQueueDestroy(q));
    adder_destroy(&a);
    ZT_OK(zeMemFree(env.context, x));
    zt_fini(&env);
}

/* Enumerations and flags beyond the spec's ranges, and NULLs the spec names, in queue, list and event
 * calls. The codes are the spec's, so the validation layer agrees. */
Test(ze_events, invalid_descriptors_and_null_arguments)
{
    zt_env env;
    zt_init(&env);
    ze_command_queue_desc_t qd = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, .ordinal = env.compute_ordinal};
    ze_command_queue_handle_t q = NULL;
    ze_command_list_handle_t l = NULL;
    qd.mode = (ze_command_queue_mode_t)7;
    ZT_EXPECT(zeCommandQueueCreate(env.context, env.device, &qd, &q), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    ZT_EXPECT(zeCommandListCreateImmediate(env.context, env.device, &qd, &l), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    qd.mode = ZE_COMMAND_QUEUE_MODE_DEFAULT;
    qd.priority = (ze_command_queue_priority_t)9;
    ZT_EXPECT(zeCommandQueueCreate(env.context, env.device, &qd, &q), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    ZT_EXPECT(zeCommandListCreateImmediate(env.context, env.device, &qd, &l), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    qd.priority = ZE_COMMAND_QUEUE_PRIORITY_NORMAL;
    qd.flags = 0x80;
    ZT_EXPECT(zeCommandQueueCreate(env.context, env.device, &qd, &q), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    ZT_EXPECT(zeCommandQueueCreate(NULL, env.device, &qd, &q), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeCommandQueueCreate(env.context, NULL, &qd, &q), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeCommandQueueCreate(env.context, env.device, NULL, &q), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(zeCommandQueueCreate(env.context, env.device, &qd, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ze_command_list_desc_t ld = {.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, .flags = 0x80};
    ZT_EXPECT(zeCommandListCreate(env.context, env.device, &ld, &l), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    ld.flags = 0;
    ZT_EXPECT(zeCommandListCreate(env.context, env.device, NULL, &l), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(zeCommandListCreate(env.context, env.device, &ld, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ze_context_desc_t cd = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC, .flags = 0x2};
    ze_context_handle_t c = NULL;
    ZT_EXPECT(zeContextCreate(env.driver, &cd, &c), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    ze_device_mem_alloc_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, .flags = 0x80};
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, .flags = 0x80};
    void *p = NULL;
    ZT_EXPECT(zeMemAllocDevice(env.context, &dd, 64, 0, env.device, &p), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    ZT_EXPECT(zeMemAllocHost(env.context, &hd, 64, 0, &p), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    uint32_t n = 0;
    ZT_EXPECT(zeDeviceGetCommandQueueGroupProperties(env.device, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(zeDeviceGetMemoryProperties(env.device, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(zeDeviceGetCacheProperties(env.device, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(zeDeviceGetCommandQueueGroupProperties(NULL, &n, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);

    l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 1, true);
    ze_event_handle_t e = zt_event_create(pool, 0);
    ZT_EXPECT(zeCommandListAppendWaitOnEvents(NULL, 1, &e), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeCommandListAppendSignalEvent(l, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeCommandListAppendSignalEvent(NULL, e), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeCommandListAppendEventReset(l, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeCommandListAppendBarrier(l, NULL, 1, NULL), ZE_RESULT_ERROR_INVALID_SIZE);
    ZT_EXPECT(zeCommandListAppendBarrier(NULL, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeEventQueryKernelTimestamp(e, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(zeCommandListDestroy(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeCommandQueueDestroy(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    /* Nothing above left the list or the event in a bad state. */
    ZT_OK(zeCommandListAppendSignalEvent(l, e));
    ZT_OK(zeEventHostSynchronize(e, ZT_TIMEOUT_NS));
    ZT_OK(zeEventDestroy(e));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeCommandListDestroy(l));
    zt_fini(&env);
}

Test(ze_events, wait_on_events_with_null_list)
{
    zt_env env;
    zt_init(&env);
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ZT_EXPECT(zeCommandListAppendWaitOnEvents(l, 1, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_OK(zeCommandListDestroy(l));
    zt_fini(&env);
}

/* zeCommandQueueExecuteCommandLists may be called from several threads at once on one queue: each thread
 * executes its own list with its own fence, round after round, and checks its own data. */
typedef struct {
    zt_env *env;
    ze_command_queue_handle_t queue;
    ze_module_handle_t module;
    int *data;
    int rounds;
    int bad_round; /* 0 when every round checked out */
    ze_result_t failed;
} queue_job;

static void *queue_thread(void *arg)
{
    queue_job *j = arg;
    ze_kernel_handle_t k = NULL;
    ze_command_list_handle_t l = NULL;
    ze_fence_handle_t f = NULL;
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = "add_scalar"};
    ze_command_list_desc_t ld = {.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC,
                                 .commandQueueGroupOrdinal = j->env->compute_ordinal};
    ze_fence_desc_t fd = {.stype = ZE_STRUCTURE_TYPE_FENCE_DESC};
    int one = 1;
    uint32_t n = 256;
    ze_result_t r;
#define STEP(call)                                                                                        \
    if ((r = (call)) != ZE_RESULT_SUCCESS) {                                                              \
        j->failed = r;                                                                                    \
        return NULL;                                                                                      \
    }
    STEP(zeKernelCreate(j->module, &kd, &k));
    STEP(zeKernelSetArgumentValue(k, 0, sizeof j->data, &j->data));
    STEP(zeKernelSetArgumentValue(k, 1, sizeof one, &one));
    STEP(zeKernelSetArgumentValue(k, 2, sizeof n, &n));
    STEP(zeKernelSetGroupSize(k, 64, 1, 1));
    STEP(zeCommandListCreate(j->env->context, j->env->device, &ld, &l));
    STEP(zeCommandListAppendLaunchKernel(l, k, &four_groups, NULL, 0, NULL));
    STEP(zeCommandListClose(l));
    STEP(zeFenceCreate(j->queue, &fd, &f));
    for (int round = 1; round <= j->rounds; round++) {
        STEP(zeCommandQueueExecuteCommandLists(j->queue, 1, &l, f));
        STEP(zeFenceHostSynchronize(f, ZT_TIMEOUT_NS));
        STEP(zeFenceReset(f));
        for (int i = 0; i < 256 && j->bad_round == 0; i++)
            if (j->data[i] != round)
                j->bad_round = round;
    }
    STEP(zeFenceDestroy(f));
    STEP(zeCommandListDestroy(l));
    STEP(zeKernelDestroy(k));
#undef STEP
    return NULL;
}

T(threads_share_one_queue)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_vadd");
    ze_command_queue_handle_t q = zt_queue_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    enum { THREADS = 4 };
    pthread_t th[THREADS];
    queue_job jobs[THREADS];
    for (int t = 0; t < THREADS; t++) {
        jobs[t] = (queue_job){.env = &env, .queue = q, .module = m, .rounds = 25, .failed = ZE_RESULT_SUCCESS};
        jobs[t].data = zt_alloc_shared(&env, 256 * sizeof(int));
        memset(jobs[t].data, 0, 256 * sizeof(int));
    }
    for (int t = 0; t < THREADS; t++)
        cr_assert_eq(pthread_create(&th[t], NULL, queue_thread, &jobs[t]), 0);
    for (int t = 0; t < THREADS; t++)
        cr_assert_eq(pthread_join(th[t], NULL), 0);
    ZT_OK(zeCommandQueueSynchronize(q, ZT_TIMEOUT_NS));
    for (int t = 0; t < THREADS; t++) {
        cr_assert_eq(jobs[t].failed, ZE_RESULT_SUCCESS, "thread %d: 0x%x (%s)", t, (unsigned)jobs[t].failed,
                     zt_result_name(jobs[t].failed));
        cr_assert_eq(jobs[t].bad_round, 0, "thread %d: wrong data after round %d", t, jobs[t].bad_round);
        for (int i = 0; i < 256; i++)
            cr_assert_eq(jobs[t].data[i], 25);
        ZT_OK(zeMemFree(env.context, jobs[t].data));
    }
    ZT_OK(zeCommandQueueDestroy(q));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* PoCL's single-threaded basic device (POCL_DEVICES=basic, chosen before zeInit in this test's own process)
 * runs commands in the thread that makes them ready, so completing a host event must not happen under a
 * lock the command needs. */
Test(ze_events, basic_device_wait_on_host_event, .timeout = 60)
{
    cr_assert_eq(setenv("POCL_DEVICES", "basic", 1), 0);
    zt_env env;
    zt_init(&env);
    int *x = zt_alloc_shared(&env, 256 * sizeof(int));
    memset(x, 0, 256 * sizeof(int));
    adder a = adder_create(&env, x, 4, 256);
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 2, false);
    ze_event_handle_t gate = zt_event_create(pool, 0);
    ze_event_handle_t done = zt_event_create(pool, 1);
    ZT_OK(zeCommandListAppendWaitOnEvents(l, 1, &gate));
    ZT_OK(zeCommandListAppendLaunchKernel(l, a.add, &four_groups, done, 0, NULL));
    ZT_OK(zeEventHostSignal(gate));
    ZT_OK(zeEventHostSynchronize(done, ZT_TIMEOUT_NS));
    for (int i = 0; i < 256; i++)
        cr_assert_eq(x[i], 4);
    ZT_OK(zeEventDestroy(gate));
    ZT_OK(zeEventDestroy(done));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeCommandListDestroy(l));
    adder_destroy(&a);
    ZT_OK(zeMemFree(env.context, x));
    zt_fini(&env);
}

/* The spec's HANDLE_OBJECT_IN_USE for a pool with live events, and the documented codes for list misuse:
 * appending to a closed list, executing an open one, a queue ordinal or index that does not exist. */
Test(ze_events, in_use_and_list_state_errors)
{
    zt_env env;
    zt_init(&env);
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 2, false);
    ze_event_handle_t e = zt_event_create(pool, 1);
    ZT_EXPECT(zeEventPoolDestroy(pool), ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
    ZT_OK(zeEventHostSignal(e));
    ZT_OK(zeEventQueryStatus(e));

    ze_command_queue_handle_t q = zt_queue_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t open = zt_list_create(&env);
    ZT_OK(zeCommandListAppendBarrier(open, NULL, 0, NULL));
    ZT_EXPECT(zeCommandQueueExecuteCommandLists(q, 1, &open, NULL), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ZT_OK(zeCommandListClose(open));
    ZT_EXPECT(zeCommandListAppendBarrier(open, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ZT_OK(zeCommandQueueExecuteCommandLists(q, 1, &open, NULL));
    ZT_OK(zeCommandQueueSynchronize(q, ZT_TIMEOUT_NS));
    ze_command_list_handle_t imm = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ZT_EXPECT(zeCommandQueueExecuteCommandLists(q, 1, &imm, NULL), ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE);

    uint32_t ngroups = 0;
    ZT_OK(zeDeviceGetCommandQueueGroupProperties(env.device, &ngroups, NULL));
    ze_command_queue_desc_t qd = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, .ordinal = ngroups};
    ze_command_queue_handle_t bad = NULL;
    ZT_EXPECT(zeCommandQueueCreate(env.context, env.device, &qd, &bad), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ze_command_list_desc_t ld = {.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, .commandQueueGroupOrdinal = ngroups};
    ze_command_list_handle_t badl = NULL;
    ZT_EXPECT(zeCommandListCreate(env.context, env.device, &ld, &badl), ZE_RESULT_ERROR_INVALID_ARGUMENT);

    ZT_OK(zeCommandListDestroy(imm));
    ZT_OK(zeCommandListDestroy(open));
    ZT_OK(zeCommandQueueDestroy(q));
    ZT_OK(zeEventDestroy(e));
    ZT_OK(zeEventPoolDestroy(pool));
    zt_fini(&env);
}

T(append_signal_wait_reset_and_barrier)
{
    append_signal_wait_reset_and_barrier();
}

T(barrier_joins_two_lists)
{
    barrier_joins_two_lists();
}

/* The same two on PoCL's basic device, where both once hung. */
Test(ze_events, basic_device_append_signal_wait_reset_and_barrier, .timeout = 60)
{
    cr_assert_eq(setenv("POCL_DEVICES", "basic", 1), 0);
    append_signal_wait_reset_and_barrier();
}

Test(ze_events, basic_device_barrier_joins_two_lists, .timeout = 60)
{
    cr_assert_eq(setenv("POCL_DEVICES", "basic", 1), 0);
    barrier_joins_two_lists();
}

/* A chain over three immediate lists, each waiting on an event that nothing has signalled or even appended
 * yet when it is appended; the host opens the first link last. */
T(chain_of_held_back_lists)
{
    zt_env env;
    zt_init(&env);
    enum { L = 3 };
    int *x = zt_alloc_shared(&env, 256 * sizeof(int));
    memset(x, 0, 256 * sizeof(int));
    adder a[L];
    ze_command_list_handle_t l[L];
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, L + 1, false);
    ze_event_handle_t e[L + 1];
    for (int i = 0; i <= L; i++)
        e[i] = zt_event_create(pool, (uint32_t)i);
    /* Link i multiplies nothing and adds 10^i, so any other order would give another total only if a link
     * ran twice or not at all; the order itself is checked through the copy each link makes. */
    int *snap = zt_alloc_shared(&env, L * 256 * sizeof(int));
    memset(snap, 0xff, L * 256 * sizeof(int));
    int add[L] = {1, 10, 100};
    for (int i = L - 1; i >= 0; i--) {
        a[i] = adder_create(&env, x, add[i], 256);
        l[i] = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
        ZT_OK(zeCommandListAppendLaunchKernel(l[i], a[i].add, &four_groups, NULL, 1, &e[i]));
        ZT_OK(zeCommandListAppendMemoryCopy(l[i], snap + i * 256, x, 256 * sizeof(int), e[i + 1], 0, NULL));
    }
    pause_ms(20);
    ZT_EXPECT(zeEventQueryStatus(e[L]), ZE_RESULT_NOT_READY);
    cr_assert_eq(x[0], 0, "a link ran before its event");
    ZT_OK(zeEventHostSignal(e[0]));
    ZT_OK(zeEventHostSynchronize(e[L], ZT_TIMEOUT_NS));
    for (int i = 0; i < 256; i++) {
        cr_assert_eq(snap[i], 1, "link 0 saw %d", snap[i]);
        cr_assert_eq(snap[256 + i], 11, "link 1 saw %d", snap[256 + i]);
        cr_assert_eq(snap[512 + i], 111, "link 2 saw %d", snap[512 + i]);
    }
    for (int i = 0; i < L; i++) {
        ZT_OK(zeCommandListDestroy(l[i]));
        adder_destroy(&a[i]);
    }
    for (int i = 0; i <= L; i++)
        ZT_OK(zeEventDestroy(e[i]));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeMemFree(env.context, x));
    ZT_OK(zeMemFree(env.context, snap));
    zt_fini(&env);
}

/* An immediate list waits on an event that a regular list executed later on a queue signals; a fence on
 * a queue whose list waits on an unsignalled event stays unsignalled until the host signals it. */
T(held_back_work_and_queues)
{
    zt_env env;
    zt_init(&env);
    int *x = zt_alloc_shared(&env, 256 * sizeof(int));
    int *y = zt_alloc_shared(&env, 256 * sizeof(int));
    memset(x, 0, 256 * sizeof(int));
    memset(y, 0, 256 * sizeof(int));
    adder a = adder_create(&env, x, 3, 256);
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 3, false);
    ze_event_handle_t armed_by_queue = zt_event_create(pool, 0);
    ze_event_handle_t copied = zt_event_create(pool, 1);
    ze_event_handle_t host = zt_event_create(pool, 2);
    ze_command_list_handle_t imm = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ZT_OK(zeCommandListAppendMemoryCopy(imm, y, x, 256 * sizeof(int), copied, 1, &armed_by_queue));

    ze_command_queue_handle_t q = zt_queue_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t l = zt_list_create(&env);
    ZT_OK(zeCommandListAppendWaitOnEvents(l, 1, &host));
    ZT_OK(zeCommandListAppendLaunchKernel(l, a.add, &four_groups, armed_by_queue, 0, NULL));
    ZT_OK(zeCommandListClose(l));
    ze_fence_desc_t fd = {.stype = ZE_STRUCTURE_TYPE_FENCE_DESC};
    ze_fence_handle_t f = NULL;
    ZT_OK(zeFenceCreate(q, &fd, &f));
    ZT_OK(zeCommandQueueExecuteCommandLists(q, 1, &l, f));
    pause_ms(20);
    ZT_EXPECT(zeFenceQueryStatus(f), ZE_RESULT_NOT_READY);
    ZT_EXPECT(zeFenceHostSynchronize(f, 1000000), ZE_RESULT_NOT_READY);
    ZT_EXPECT(zeCommandQueueSynchronize(q, 1000000), ZE_RESULT_NOT_READY);
    ZT_EXPECT(zeEventQueryStatus(copied), ZE_RESULT_NOT_READY);
    ZT_OK(zeEventHostSignal(host));
    ZT_OK(zeFenceHostSynchronize(f, ZT_TIMEOUT_NS));
    ZT_OK(zeEventHostSynchronize(copied, ZT_TIMEOUT_NS));
    ZT_OK(zeCommandQueueSynchronize(q, ZT_TIMEOUT_NS));
    for (int i = 0; i < 256; i++) {
        cr_assert_eq(x[i], 3);
        cr_assert_eq(y[i], 3, "y[%d] = %d: the copy did not wait for the queue's kernel", i, y[i]);
    }
    ZT_OK(zeFenceDestroy(f));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeCommandQueueDestroy(q));
    ZT_OK(zeCommandListDestroy(imm));
    ZT_OK(zeEventDestroy(armed_by_queue));
    ZT_OK(zeEventDestroy(copied));
    ZT_OK(zeEventDestroy(host));
    ZT_OK(zeEventPoolDestroy(pool));
    adder_destroy(&a);
    ZT_OK(zeMemFree(env.context, x));
    ZT_OK(zeMemFree(env.context, y));
    zt_fini(&env);
}

/* Many commands held back behind one event keep their order and all run once it is signalled. */
T(many_held_back_commands)
{
    zt_env env;
    zt_init(&env);
    int *x = zt_alloc_shared(&env, 256 * sizeof(int));
    memset(x, 0, 256 * sizeof(int));
    adder a = adder_create(&env, x, 1, 256);
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 2, false);
    ze_event_handle_t gate = zt_event_create(pool, 0);
    ze_event_handle_t done = zt_event_create(pool, 1);
    ZT_OK(zeCommandListAppendWaitOnEvents(l, 1, &gate));
    for (int i = 0; i < 500; i++)
        ZT_OK(zeCommandListAppendLaunchKernel(l, a.add, &four_groups, NULL, 0, NULL));
    static const int seven = 7;
    ZT_OK(zeCommandListAppendMemoryFill(l, x, &seven, sizeof seven, 16 * sizeof(int), NULL, 0, NULL));
    ZT_OK(zeCommandListAppendLaunchKernel(l, a.add, &four_groups, done, 0, NULL));
    cr_assert_eq(x[0], 0);
    ZT_OK(zeEventHostSignal(gate));
    ZT_OK(zeEventHostSynchronize(done, ZT_TIMEOUT_NS));
    for (int i = 0; i < 256; i++)
        cr_assert_eq(x[i], i < 16 ? 8 : 501, "x[%d] = %d", i, x[i]);
    ZT_OK(zeEventDestroy(gate));
    ZT_OK(zeEventDestroy(done));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeCommandListDestroy(l));
    adder_destroy(&a);
    ZT_OK(zeMemFree(env.context, x));
    zt_fini(&env);
}

/* One thread appends launches that wait on host events while another signals those events at the same
 * time: every launch runs exactly once, in order. */
typedef struct {
    ze_event_handle_t *events;
    int count;
} signaller;

static void *signal_main(void *arg)
{
    signaller *s = arg;
    for (int i = 0; i < s->count; i++) {
        if (i % 7 == 0)
            pause_ms(1);
        zeEventHostSignal(s->events[i]);
    }
    return NULL;
}

T(appends_race_with_host_signals)
{
    zt_env env;
    zt_init(&env);
    enum { N = 100 };
    int *x = zt_alloc_shared(&env, 256 * sizeof(int));
    memset(x, 0, 256 * sizeof(int));
    adder a = adder_create(&env, x, 1, 256);
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, N + 1, false);
    ze_event_handle_t ev[N + 1];
    for (int i = 0; i <= N; i++)
        ev[i] = zt_event_create(pool, (uint32_t)i);
    signaller s = {ev, N};
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, signal_main, &s), 0);
    for (int i = 0; i < N; i++)
        ZT_OK(zeCommandListAppendLaunchKernel(l, a.add, &four_groups, i == N - 1 ? ev[N] : NULL, 1, &ev[i]));
    cr_assert_eq(pthread_join(th, NULL), 0);
    ZT_OK(zeEventHostSynchronize(ev[N], ZT_TIMEOUT_NS));
    for (int i = 0; i < 256; i++)
        cr_assert_eq(x[i], N, "x[%d] = %d", i, x[i]);
    for (int i = 0; i <= N; i++)
        ZT_OK(zeEventDestroy(ev[i]));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeCommandListDestroy(l));
    adder_destroy(&a);
    ZT_OK(zeMemFree(env.context, x));
    zt_fini(&env);
}

/* The sequence krt_host_task builds on (runtime/src/host_task.c): the list appends a barrier that signals
 * start, a wait on done and a reset of done around each host step, and one host thread waits for start,
 * resets it, works on the data and signals done. One pair of events serves every step, all appended before
 * the first runs: the list's order alone keeps a step from seeing the pair in the previous step's state. */
typedef struct {
    ze_event_handle_t start, done;
    int *x;
    int steps;
    int wrong; /* values a host step found that the launch before it should not have left */
} host_steps;

static void *host_steps_thread(void *p)
{
    host_steps *h = p;
    for (int s = 0; s < h->steps; s++) {
        if (zeEventHostSynchronize(h->start, UINT64_MAX) != ZE_RESULT_SUCCESS) {
            h->wrong = -1;
            return NULL;
        }
        zeEventHostReset(h->start);
        /* Step s follows s + 1 launches of +1 and s host doublings: x = 2 * x_before + 1, from 0. */
        int expect = (1 << (s + 1)) - 1;
        for (int i = 0; i < 256; i++) {
            if (h->x[i] != expect)
                h->wrong++;
            h->x[i] *= 2;
        }
        zeEventHostSignal(h->done);
    }
    return NULL;
}

T(host_thread_steps_between_barrier_and_wait)
{
    enum { STEPS = 12 };
    zt_env env;
    zt_init(&env);
    int *x = zt_alloc_shared(&env, 256 * sizeof(int));
    memset(x, 0, 256 * sizeof(int));
    adder a = adder_create(&env, x, 1, 256);
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 3, false);
    host_steps h = {zt_event_create(pool, 0), zt_event_create(pool, 1), x, STEPS, 0};
    ze_event_handle_t gate = zt_event_create(pool, 2);
    ZT_OK(zeCommandListAppendWaitOnEvents(l, 1, &gate));
    for (int s = 0; s < STEPS; s++) {
        ZT_OK(zeCommandListAppendLaunchKernel(l, a.add, &four_groups, NULL, 0, NULL));
        ZT_OK(zeCommandListAppendBarrier(l, h.start, 0, NULL));
        ZT_OK(zeCommandListAppendWaitOnEvents(l, 1, &h.done));
        ZT_OK(zeCommandListAppendEventReset(l, h.done));
    }
    ZT_OK(zeCommandListAppendLaunchKernel(l, a.add, &four_groups, NULL, 0, NULL));
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, host_steps_thread, &h), 0);
    ZT_OK(zeEventHostSignal(gate));
    pthread_join(th, NULL);
    zt_immediate_sync(&env, l);
    cr_assert_eq(h.wrong, 0, "host steps saw %d wrong values", h.wrong);
    /* STEPS + 1 additions and STEPS doublings from 0: 2^(STEPS + 1) - 1. */
    for (int i = 0; i < 256; i++)
        cr_assert_eq(x[i], (1 << (STEPS + 1)) - 1);
    ZT_EXPECT(zeEventQueryStatus(h.done), ZE_RESULT_NOT_READY);
    ZT_OK(zeEventDestroy(h.start));
    ZT_OK(zeEventDestroy(h.done));
    ZT_OK(zeEventDestroy(gate));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeCommandListDestroy(l));
    adder_destroy(&a);
    ZT_OK(zeMemFree(env.context, x));
    zt_fini(&env);
}

/* An event destroyed the moment it reads signalled, while the thread that signalled it may still be inside
 * zeEventHostSignal: the destroy must not free what the event_signaller still touches (a heap-use-after-free in the
 * signal's waiter list corrupted the heap within 50,000 rounds before the event_signaller held a reference of its own). */
typedef struct {
    _Atomic(ze_event_handle_t) next; /* the event to signal, handed over by the main thread */
    atomic_int stop;
    atomic_long signalled;
} event_signaller;

static void *signaller_main(void *p)
{
    event_signaller *s = p;
    for (;;) {
        ze_event_handle_t e;
        while (!(e = atomic_exchange(&s->next, NULL)))
            if (atomic_load(&s->stop))
                return NULL;
        if (zeEventHostSignal(e) == ZE_RESULT_SUCCESS)
            atomic_fetch_add(&s->signalled, 1);
    }
}

T(event_destroyed_while_its_signaller_returns)
{
    zt_env env;
    zt_init(&env);
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 1, false);
    event_signaller s = {NULL, 0, 0};
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, signaller_main, &s), 0);
    const long rounds = 50000;
    for (long i = 0; i < rounds; i++) {
        ze_event_handle_t e = zt_event_create(pool, 0);
        atomic_store(&s.next, e);
        ze_result_t r;
        while ((r = zeEventQueryStatus(e)) == ZE_RESULT_NOT_READY) {
        }
        ZT_EXPECT(r, ZE_RESULT_SUCCESS);
        ZT_OK(zeEventDestroy(e));
    }
    atomic_store(&s.stop, 1);
    pthread_join(th, NULL);
    cr_assert_eq(atomic_load(&s.signalled), rounds);
    ZT_OK(zeEventPoolDestroy(pool));
    zt_fini(&env);
}

/* 1.8's ZE_experimental_event_pool_counter_based (the installed headers are 1.4's): a pool whose pNext holds this
 * descriptor makes counter-based events. */
#define ZT_COUNTER_BASED_EVENT_POOL_EXP_DESC ((ze_structure_type_t)0x00020014)
typedef struct {
    ze_structure_type_t stype;
    const void *pNext;
    uint32_t flags;
} zt_counter_based_desc;

static ze_result_t counter_pool_create(zt_env *env, uint32_t flags, ze_event_pool_handle_t *pool)
{
    zt_counter_based_desc cb = {.stype = ZT_COUNTER_BASED_EVENT_POOL_EXP_DESC, .flags = flags};
    ze_event_pool_desc_t pd = {.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, .pNext = &cb,
                               .flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE, .count = 2};
    return zeEventPoolCreate(env->context, &pd, 1, &env->device, pool);
}

/* A counter-based event reads as the last command given to signal it, whatever its earlier signallings did, and is
 * never reset. Each command here is held back by a host event, so "not ready" can only come from the driver taking
 * the new signalling at once: before the fix, an event still set from its previous use read as done before its
 * kernel had run (Unified Runtime's second adapter then copied a sum's result before the sum). */
T(counter_based_events_read_as_the_last_command_that_signals_them)
{
    zt_env env;
    zt_init(&env);
    cr_assert(zt_driver_has_extension(env.driver, "ZE_experimental_event_pool_counter_based"),
              "ZE_experimental_event_pool_counter_based not listed");

    int *x = zt_alloc_shared(&env, 256 * sizeof(int));
    int *y = zt_alloc_shared(&env, 256 * sizeof(int));
    memset(x, 0, 256 * sizeof(int));
    memset(y, 0, 256 * sizeof(int));
    adder a = adder_create(&env, x, 2, 256);
    ze_command_list_handle_t l1 = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t l2 = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t hp = zt_event_pool_create(&env, 4, false);
    ze_event_handle_t h[4];
    for (uint32_t i = 0; i < 4; i++) h[i] = zt_event_create(hp, i);
    ze_event_pool_handle_t cp = NULL, bad = NULL;
    ZT_EXPECT(counter_pool_create(&env, 4, &bad), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    ZT_OK(counter_pool_create(&env, 0, &cp));
    ze_event_handle_t e = zt_event_create(cp, 0);

    /* Never signalled: nothing to wait for. The host may not signal or reset it. */
    ZT_OK(zeEventQueryStatus(e));
    ZT_OK(zeEventHostSynchronize(e, 0));
    ZT_EXPECT(zeEventHostSignal(e), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ZT_EXPECT(zeEventHostReset(e), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ZT_EXPECT(zeCommandListAppendEventReset(l1, e), ZE_RESULT_ERROR_INVALID_ARGUMENT);

    /* First signalling, then a second one held back on the same list: the event is not done again. */
    ZT_OK(zeCommandListAppendLaunchKernel(l1, a.add, &four_groups, e, 0, NULL));
    ZT_OK(zeEventHostSynchronize(e, ZT_TIMEOUT_NS));
    cr_assert_eq(x[0], 2);
    ZT_OK(zeCommandListAppendLaunchKernel(l1, a.add, &four_groups, e, 1, &h[0]));
    ZT_EXPECT(zeEventQueryStatus(e), ZE_RESULT_NOT_READY);
    ZT_EXPECT(zeEventHostSynchronize(e, 0), ZE_RESULT_NOT_READY);
    /* A third on another list, while the second waits: the second's completion must not set the event. */
    ZT_OK(zeCommandListAppendLaunchKernel(l2, a.add, &four_groups, e, 1, &h[1]));
    pause_ms(20);
    cr_assert_eq(x[0], 2, "ran past a wait on an unsignalled event");
    ZT_OK(zeEventHostSignal(h[0]));
    zt_immediate_sync(&env, l1);
    cr_assert_eq(x[0], 4);
    ZT_EXPECT(zeEventQueryStatus(e), ZE_RESULT_NOT_READY);
    ZT_OK(zeEventHostSignal(h[1]));
    ZT_OK(zeEventHostSynchronize(e, ZT_TIMEOUT_NS));
    for (int i = 0; i < 256; i++) cr_assert_eq(x[i], 6);

    /* A wait on it from another list waits for its last signalling: the copy sees the kernel's result. */
    ZT_OK(zeCommandListAppendLaunchKernel(l2, a.add, &four_groups, e, 1, &h[2]));
    ZT_OK(zeCommandListAppendMemoryCopy(l1, y, x, 256 * sizeof(int), NULL, 1, &e));
    pause_ms(20);
    cr_assert_eq(y[0], 0, "the copy ran before the kernel it waits for");
    ZT_OK(zeEventHostSignal(h[2]));
    zt_immediate_sync(&env, l1);
    for (int i = 0; i < 256; i++) cr_assert_eq(y[i], 8);

    /* A regular list's execution takes the signalling when it is executed. */
    ze_command_queue_handle_t q = zt_queue_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t rl = zt_list_create(&env);
    ZT_OK(zeCommandListAppendLaunchKernel(rl, a.add, &four_groups, e, 1, &h[3]));
    ZT_OK(zeCommandListClose(rl));
    ZT_OK(zeEventQueryStatus(e)); /* recorded, not executed: still the last signalling's */
    ZT_OK(zeCommandQueueExecuteCommandLists(q, 1, &rl, NULL));
    ZT_EXPECT(zeEventQueryStatus(e), ZE_RESULT_NOT_READY);
    ZT_OK(zeEventHostSignal(h[3]));
    ZT_OK(zeEventHostSynchronize(e, ZT_TIMEOUT_NS));
    cr_assert_eq(x[255], 10);
    ZT_OK(zeCommandQueueSynchronize(q, ZT_TIMEOUT_NS));

    ZT_OK(zeCommandListDestroy(rl));
    ZT_OK(zeCommandQueueDestroy(q));
    ZT_OK(zeEventDestroy(e));
    ZT_OK(zeEventPoolDestroy(cp));
    for (uint32_t i = 0; i < 4; i++) ZT_OK(zeEventDestroy(h[i]));
    ZT_OK(zeEventPoolDestroy(hp));
    ZT_OK(zeCommandListDestroy(l1));
    ZT_OK(zeCommandListDestroy(l2));
    adder_destroy(&a);
    ZT_OK(zeMemFree(env.context, x));
    ZT_OK(zeMemFree(env.context, y));
    zt_fini(&env);
}
