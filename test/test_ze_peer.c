/* Several devices of ze_pocl in one Level Zero context: peer queries (zeDeviceCanAccessPeer,
 * zeDeviceGetP2PProperties), copies between two devices' memory, a copy refused where the devices cannot reach each
 * other, and an event that orders one device's list after another's. PoCL exposes several devices through
 * POCL_DEVICES; KRT_ZE_POCL_PEER restricts which pairs reach each other. Each test sets them before zeInit
 * (Criterion runs every test in a process of its own). */
#include "ze_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ZT_MAX_DEVS 8

/* n PoCL devices, peer pairs as KRT_ZE_POCL_PEER (NULL: every pair); then zeInit and one context for them all. The
 * driver's devices go to devs, and per[i] is env with device i. On ze_cuda (the GPU run of tools/gpu-test.sh, which
 * loads it alone) the devices are the GPUs, whatever n: a test that needs ze_pocl's knobs (pocl_only) or more GPUs
 * than there are is skipped, saying so. */
static uint32_t setup(unsigned n, const char *peer, bool pocl_only, zt_env *env, ze_device_handle_t *devs, zt_env *per)
{
    char v[128] = "";
    for (unsigned i = 0; i < n; i++)
        strcat(v, i ? " pthread" : "pthread");
    setenv("POCL_DEVICES", v, 1);
    if (peer)
        setenv("KRT_ZE_POCL_PEER", peer, 1);
    else
        unsetenv("KRT_ZE_POCL_PEER");
    zt_init(env);
    uint32_t count = 0;
    ZT_OK(zeDeviceGet(env->driver, &count, NULL));
    if (!zt_driver_is(env->driver, "ze_pocl")) {
        if (pocl_only)
            cr_skip_test("this test sets ze_pocl's devices and peer pairs; the driver under test is another");
        if (count < 2)
            cr_skip_test("the driver under test has %u device(s); this test needs two", count);
        n = count < ZT_MAX_DEVS ? count : ZT_MAX_DEVS;
    }
    cr_assert_eq(count, n, "ze_pocl has %u devices with POCL_DEVICES=\"%s\"", count, v);
    ZT_OK(zeDeviceGet(env->driver, &count, devs));
    cr_assert_eq(devs[0], env->device);
    for (uint32_t i = 0; i < count; i++) {
        per[i] = *env;
        per[i].device = devs[i];
    }
    return count;
}

static void expect_peer(ze_device_handle_t a, ze_device_handle_t b, bool want)
{
    ze_bool_t can = 2;
    ZT_OK(zeDeviceCanAccessPeer(a, b, &can));
    cr_assert_eq(can, want ? 1 : 0);
    ze_device_p2p_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_P2P_PROPERTIES, .flags = 0xdead};
    ZT_OK(zeDeviceGetP2PProperties(a, b, &p));
    cr_assert_eq(p.flags, want ? (ZE_DEVICE_P2P_PROPERTY_FLAG_ACCESS | ZE_DEVICE_P2P_PROPERTY_FLAG_ATOMICS) : 0u);
}

Test(ze_peer, every_pair_of_devices_reaches_each_other_by_default, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env, per[ZT_MAX_DEVS];
    ze_device_handle_t d[ZT_MAX_DEVS];
    uint32_t n = setup(3, NULL, true, &env, d, per);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n; j++)
            expect_peer(d[i], d[j], true);
    /* Distinct devices, distinct UUIDs. */
    ze_device_properties_t p0 = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    ze_device_properties_t p1 = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    ZT_OK(zeDeviceGetProperties(d[0], &p0));
    ZT_OK(zeDeviceGetProperties(d[1], &p1));
    cr_assert_neq(memcmp(p0.uuid.id, p1.uuid.id, sizeof p0.uuid.id), 0);
    zt_fini(&env);
}

Test(ze_peer, restricted_pairs_answer_both_ways, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env, per[ZT_MAX_DEVS];
    ze_device_handle_t d[ZT_MAX_DEVS];
    setup(3, "0-2", true, &env, d, per);
    expect_peer(d[0], d[2], true);
    expect_peer(d[2], d[0], true);
    expect_peer(d[0], d[1], false);
    expect_peer(d[1], d[0], false);
    expect_peer(d[1], d[2], false);
    expect_peer(d[1], d[1], true);
    ze_bool_t can;
    ZT_EXPECT(zeDeviceCanAccessPeer(d[0], NULL, &can), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    zt_fini(&env);
}

/* Device memory of device 0 copied to device 1's on device 1's immediate list, and back on device 0's regular list
 * through a command queue. */
Test(ze_peer, copies_between_two_devices_memory, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env, per[ZT_MAX_DEVS];
    ze_device_handle_t d[ZT_MAX_DEVS];
    setup(2, NULL, false, &env, d, per);
    ze_bool_t can = 0;
    ZT_OK(zeDeviceCanAccessPeer(d[1], d[0], &can));
    if (!can)
        cr_skip_test("device 1 cannot reach device 0's memory here (zeDeviceCanAccessPeer)");
    ZT_OK(zeDeviceCanAccessPeer(d[0], d[1], &can));
    if (!can)
        cr_skip_test("device 0 cannot reach device 1's memory here (zeDeviceCanAccessPeer)");
    const size_t size = 1 << 16;
    unsigned char *a = zt_alloc_device(&per[0], size), *b = zt_alloc_device(&per[1], size);
    unsigned char *h = zt_alloc_host(&env, size);
    ze_device_handle_t owner = NULL;
    ze_memory_allocation_properties_t mp = {.stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES};
    ZT_OK(zeMemGetAllocProperties(env.context, b, &mp, &owner));
    cr_assert_eq(owner, d[1]);
    for (size_t i = 0; i < size; i++)
        h[i] = (unsigned char)(i * 7 + 1);
    ze_command_list_handle_t l1 = zt_immediate_create(&per[1], ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ZT_OK(zeCommandListAppendMemoryCopy(l1, a, h, size, NULL, 0, NULL)); /* device 1 writes device 0's memory */
    ZT_OK(zeCommandListAppendMemoryCopy(l1, b, a, size, NULL, 0, NULL));
    zt_immediate_sync(&per[1], l1);
    memset(h, 0, size);
    ze_command_queue_handle_t q0 = zt_queue_create(&per[0], ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t l0 = zt_list_create(&per[0]);
    ZT_OK(zeCommandListAppendMemoryFill(l0, a, &(unsigned char){0}, 1, size, NULL, 0, NULL));
    ZT_OK(zeCommandListAppendBarrier(l0, NULL, 0, NULL));
    ZT_OK(zeCommandListAppendMemoryCopy(l0, a, b, size, NULL, 0, NULL));
    ZT_OK(zeCommandListAppendBarrier(l0, NULL, 0, NULL));
    ZT_OK(zeCommandListAppendMemoryCopy(l0, h, a, size, NULL, 0, NULL));
    zt_execute_and_wait(q0, l0);
    for (size_t i = 0; i < size; i++)
        cr_assert_eq(h[i], (unsigned char)(i * 7 + 1), "byte %zu", i);
    ZT_OK(zeCommandListDestroy(l0));
    ZT_OK(zeCommandQueueDestroy(q0));
    ZT_OK(zeCommandListDestroy(l1));
    zt_fini(&env);
}

/* Devices that cannot reach each other: a copy on one device's list that touches the other's device memory is
 * refused (ZE_RESULT_ERROR_UNSUPPORTED_FEATURE), on immediate and regular lists alike, and nothing is written;
 * host memory stays reachable from both. */
Test(ze_peer, a_copy_to_an_unreachable_device_is_refused, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env, per[ZT_MAX_DEVS];
    ze_device_handle_t d[ZT_MAX_DEVS];
    setup(2, "none", true, &env, d, per);
    const size_t size = 4096;
    unsigned char *a = zt_alloc_device(&per[0], size), *b = zt_alloc_device(&per[1], size);
    unsigned char *h = zt_alloc_host(&env, size);
    memset(h, 0x11, size);
    ze_command_list_handle_t l0 = zt_immediate_create(&per[0], ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t l1 = zt_immediate_create(&per[1], ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ZT_OK(zeCommandListAppendMemoryCopy(l1, b, h, size, NULL, 0, NULL));
    ZT_OK(zeCommandListAppendMemoryCopy(l0, a, h, size, NULL, 0, NULL));
    zt_immediate_sync(&per[1], l1);
    zt_immediate_sync(&per[0], l0);
    memset(h, 0x22, size);
    ZT_EXPECT(zeCommandListAppendMemoryCopy(l0, b, a, size, NULL, 0, NULL), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
    ZT_EXPECT(zeCommandListAppendMemoryCopy(l0, a, b, size, NULL, 0, NULL), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
    ZT_EXPECT(zeCommandListAppendMemoryCopy(l0, b, h, size, NULL, 0, NULL), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
    ZT_EXPECT(zeCommandListAppendMemoryCopy(l1, h, a, size, NULL, 0, NULL), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
    ze_command_list_handle_t r0 = zt_list_create(&per[0]);
    ZT_EXPECT(zeCommandListAppendMemoryCopy(r0, b + 16, a, 64, NULL, 0, NULL), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
    /* Nothing was written: device 1's memory still holds 0x11, read back on its own list. */
    ZT_OK(zeCommandListAppendMemoryCopy(l1, h, b, size, NULL, 0, NULL));
    zt_immediate_sync(&per[1], l1);
    for (size_t i = 0; i < size; i++)
        cr_assert_eq(h[i], 0x11, "byte %zu", i);
    ZT_OK(zeCommandListDestroy(r0));
    ZT_OK(zeCommandListDestroy(l0));
    ZT_OK(zeCommandListDestroy(l1));
    zt_fini(&env);
}

/* Device 1's list waits on an event that device 0's list signals: its copy, appended first, runs after device 0's
 * copy, appended later. */
Test(ze_peer, an_event_orders_one_device_after_another, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env, per[ZT_MAX_DEVS];
    ze_device_handle_t d[ZT_MAX_DEVS];
    setup(2, NULL, false, &env, d, per);
    ze_bool_t can = 0;
    ZT_OK(zeDeviceCanAccessPeer(d[1], d[0], &can));
    if (!can)
        cr_skip_test("device 1 cannot reach device 0's memory here (zeDeviceCanAccessPeer)");
    const size_t size = 1 << 14;
    unsigned char *a = zt_alloc_device(&per[0], size), *b = zt_alloc_device(&per[1], size);
    unsigned char *h = zt_alloc_host(&env, size), *out = zt_alloc_host(&env, size);
    memset(h, 0x5c, size);
    memset(out, 0, size);
    ze_event_pool_desc_t pd = {.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, .flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE,
                               .count = 1};
    ze_event_pool_handle_t pool = NULL;
    ZT_OK(zeEventPoolCreate(env.context, &pd, 2, d, &pool));
    ze_event_handle_t ev = zt_event_create(pool, 0);
    ze_command_list_handle_t l0 = zt_immediate_create(&per[0], ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t l1 = zt_immediate_create(&per[1], ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ZT_OK(zeCommandListAppendMemoryCopy(l1, b, a, size, NULL, 1, &ev));
    ZT_OK(zeCommandListAppendMemoryCopy(l1, out, b, size, NULL, 0, NULL));
    cr_assert_eq(zeEventQueryStatus(ev), ZE_RESULT_NOT_READY);
    ZT_OK(zeCommandListAppendMemoryCopy(l0, a, h, size, ev, 0, NULL));
    zt_immediate_sync(&per[1], l1);
    for (size_t i = 0; i < size; i++)
        cr_assert_eq(out[i], 0x5c, "byte %zu", i);
    ZT_OK(zeCommandListDestroy(l0));
    ZT_OK(zeCommandListDestroy(l1));
    ZT_OK(zeEventDestroy(ev));
    ZT_OK(zeEventPoolDestroy(pool));
    zt_fini(&env);
}
