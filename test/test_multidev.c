/* Several devices in one program: contexts that share a Level Zero context (krt_context_desc.share), copies
 * between their allocations (peer, and staged through host memory where the devices cannot reach each other),
 * events that order a queue on one device after work on another, the launch memo per device, and the refusals.
 * ze_pocl exposes several devices through PoCL's POCL_DEVICES ("pthread pthread ..."); KRT_ZE_POCL_PEER says which
 * pairs reach each other's memory and KRT_ZE_POCL_MAX_GROUP gives a device a smaller work-group limit. Each test
 * sets them before its first krt call (Criterion runs every test in a process of its own). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "krt_test.h"

/* n ze_pocl devices; peer: KRT_ZE_POCL_PEER (NULL: every pair); max_group: KRT_ZE_POCL_MAX_GROUP (NULL: none). */
static void devices(unsigned n, const char *peer, const char *max_group)
{
    char v[256] = "";
    for (unsigned i = 0; i < n; i++)
        strcat(v, i ? " pthread" : "pthread");
    setenv("POCL_DEVICES", v, 1);
    if (peer)
        setenv("KRT_ZE_POCL_PEER", peer, 1);
    else
        unsetenv("KRT_ZE_POCL_PEER");
    if (max_group)
        setenv("KRT_ZE_POCL_MAX_GROUP", max_group, 1);
    else
        unsetenv("KRT_ZE_POCL_MAX_GROUP");
    unsetenv("KRT_DEVICE");
}

/* A context on ze_pocl's device i, sharing share's Level Zero context when share is not NULL. */
static krt_context *on(unsigned i, krt_context *share, uint32_t flags, size_t staging)
{
    char dev[16];
    snprintf(dev, sizeof dev, "cpu:%u", i);
    krt_context_desc d = { .device = dev, .share = share, .flags = flags, .staging_bytes = staging };
    krt_context *c = NULL;
    KT_OK(krt_context_create(&d, &c));
    krt_device_info info;
    KT_OK(krt_context_device_info(c, &info));
    cr_assert_str_eq(info.driver_name, "ze_pocl");
    cr_assert_eq(info.device_index, i);
    return c;
}

/* out[i] = base + i on the module's context's default queue, waited for. */
static void iota(krt_module *m, uint32_t *out, uint32_t n, uint32_t base)
{
    krt_kernel *k = kt_kernel(m, "krt_iota");
    krt_arg args[] = { KRT_ARG(out), KRT_ARG(n), KRT_ARG(base) };
    krt_launch_desc d = kt_desc1(n, args, 3);
    KT_OK(krt_launch_sync(k, &d));
}

static void expect_iota(krt_context *ctx, const uint32_t *dev_mem, uint32_t n, uint32_t base)
{
    uint32_t *host = malloc(n * sizeof *host);
    cr_assert(host);
    kt_copy_sync(ctx, host, dev_mem, n * sizeof *host);
    for (uint32_t i = 0; i < n; i++)
        cr_assert_eq(host[i], base + i, "element %u is %u, expected %u", i, host[i], base + i);
    free(host);
}

Test(multidev, every_device_is_listed_and_reaches_every_other, .timeout = KT_TEST_TIMEOUT)
{
    devices(4, NULL, NULL);
    uint32_t n = 0;
    KT_OK(krt_device_list(NULL, &n));
    krt_device_info infos[16];
    cr_assert_leq(n, 16);
    KT_OK(krt_device_list(infos, &n));
    uint32_t pocl = 0;
    for (uint32_t i = 0; i < n; i++)
        pocl += strcmp(infos[i].driver_name, "ze_pocl") == 0;
    cr_assert_eq(pocl, 4, "ze_pocl lists %u devices with POCL_DEVICES of 4", pocl);
    krt_context *c[4];
    c[0] = on(0, NULL, 0, 0);
    for (unsigned i = 1; i < 4; i++)
        c[i] = on(i, c[i - 1], 0, 0); /* any member of the group will do as share */
    for (unsigned i = 0; i < 4; i++)
        for (unsigned j = 0; j < 4; j++) {
            int can = -1;
            KT_OK(krt_context_can_access_peer(c[i], c[j], &can));
            cr_assert_eq(can, 1, "device %u -> %u", i, j);
        }
    for (unsigned i = 0; i < 4; i++)
        krt_context_destroy(c[i]);
}

/* A slow kernel on device 0 signals an event; device 1's queue waits for it (krt_queue_barrier) and then copies
 * the result over (a peer copy) and doubles it there. Without the wait, the copy would read the buffer before the
 * slow kernel wrote it. */
Test(multidev, a_queue_waits_for_another_device_then_copies_peer, .timeout = KT_TEST_TIMEOUT)
{
    devices(2, NULL, NULL);
    krt_context *c0 = on(0, NULL, 0, 0), *c1 = on(1, c0, 0, 0);
    krt_module *m0 = kt_module(c0, "krt_basic"), *m1 = kt_module(c1, "krt_basic");
    const uint32_t n = 4096;
    int *a = kt_alloc(c0, n * sizeof(int), KRT_MEMORY_DEVICE);
    int *b = kt_alloc(c1, n * sizeof(int), KRT_MEMORY_DEVICE);
    int *out = kt_alloc(c1, n * sizeof(int), KRT_MEMORY_DEVICE);
    for (int round = 1; round <= 3; round++) {
        krt_event *done = NULL;
        KT_OK(krt_event_create(c0, NULL, &done));
        int value = 1000 * round;
        uint32_t spin = 20000;
        krt_arg sa[] = { KRT_ARG(a), KRT_ARG(value), KRT_ARG(n), KRT_ARG(spin) };
        krt_launch_desc sd = kt_desc1(n, sa, 4);
        sd.signal = done;
        KT_OK(krt_launch(kt_kernel(m0, "krt_slow_fill"), &sd));
        krt_barrier_desc bd = { .wait = &done, .num_wait = 1 };
        KT_OK(krt_queue_barrier(krt_context_default_queue(c1), &bd));
        KT_OK(krt_memcpy(c1, NULL, b, a, n * sizeof(int)));
        krt_arg da[] = { KRT_ARG(b), KRT_ARG(out), KRT_ARG(n) };
        krt_launch_desc dd = kt_desc1(n, da, 3);
        KT_OK(krt_launch(kt_kernel(m1, "krt_double"), &dd));
        int host[4096];
        KT_OK(krt_memcpy_sync(c1, NULL, host, out, sizeof host));
        for (uint32_t i = 0; i < n; i++)
            cr_assert_eq(host[i], 2 * value, "round %d, element %u: %d", round, i, host[i]);
        KT_OK(krt_context_synchronize(c0));
        krt_event_destroy(done);
    }
    krt_context_destroy(c1);
    krt_context_destroy(c0);
}

typedef struct {
    const int *buf; /* shared memory, readable from the host */
    uint32_t n;
    int value, seen;
} seen_job;

static void see_fill(void *p)
{
    seen_job *j = p;
    for (uint32_t i = 0; i < j->n; i++)
        j->seen += j->buf[i] == j->value;
}

/* A launch on device 1 waits directly on an event of device 0 (krt_launch_desc.wait) and reads device 0's shared
 * memory; a host task of device 1's queue waits on another. */
Test(multidev, launches_wait_on_events_of_another_device, .timeout = KT_TEST_TIMEOUT)
{
    devices(2, NULL, NULL);
    krt_context *c0 = on(0, NULL, 0, 0), *c1 = on(1, c0, 0, 0);
    krt_module *m0 = kt_module(c0, "krt_basic"), *m1 = kt_module(c1, "krt_basic");
    const uint32_t n = 2048;
    int *a = kt_alloc(c0, n * sizeof(int), KRT_MEMORY_SHARED);
    int *b = kt_alloc(c1, n * sizeof(int), KRT_MEMORY_DEVICE);
    krt_event *filled = NULL;
    KT_OK(krt_event_create(c0, NULL, &filled));
    int value = 21;
    uint32_t spin = 20000;
    krt_arg sa[] = { KRT_ARG(a), KRT_ARG(value), KRT_ARG(n), KRT_ARG(spin) };
    krt_launch_desc sd = kt_desc1(n, sa, 4);
    sd.signal = filled;
    KT_OK(krt_launch(kt_kernel(m0, "krt_slow_fill"), &sd));
    /* Device 1's kernel reads device 0's shared memory directly, after the event. */
    krt_arg da[] = { KRT_ARG(a), KRT_ARG(b), KRT_ARG(n) };
    krt_launch_desc dd = kt_desc1(n, da, 3);
    dd.wait = &filled;
    dd.num_wait = 1;
    KT_OK(krt_launch(kt_kernel(m1, "krt_double"), &dd));
    int host[2048];
    KT_OK(krt_memcpy_sync(c1, NULL, host, b, sizeof host));
    for (uint32_t i = 0; i < n; i++)
        cr_assert_eq(host[i], 42, "element %u: %d", i, host[i]);
    /* A host task of device 1's queue waits on an event of device 0 too: it sees device 0's slow fill done. */
    krt_event *again = NULL;
    KT_OK(krt_event_create(c0, NULL, &again));
    value = 7;
    sd.signal = again;
    KT_OK(krt_launch(kt_kernel(m0, "krt_slow_fill"), &sd));
    seen_job job = { a, n, 7, 0 };
    krt_host_task_desc hd = { .fn = see_fill, .data = &job, .wait = &again, .num_wait = 1 };
    KT_OK(krt_host_task(c1, &hd));
    KT_OK(krt_context_synchronize(c1));
    cr_assert_eq(job.seen, (int)n, "the host task saw %d of %u elements filled", job.seen, n);
    krt_event_destroy(again);
    krt_event_destroy(filled);
    krt_context_destroy(c0);
    krt_context_destroy(c1);
}

/* Devices that cannot reach each other (KRT_ZE_POCL_PEER=none): the driver refuses a direct copy, so krt stages it
 * through host memory, in pieces of staging_bytes, whichever side the queue is on. */
Test(multidev, copies_between_devices_that_cannot_reach_each_other_are_staged, .timeout = KT_TEST_TIMEOUT)
{
    devices(3, "none", NULL);
    krt_context *c0 = on(0, NULL, 0, 4096), *c1 = on(1, c0, 0, 4096), *c2 = on(2, c1, 0, 0);
    int can = -1;
    KT_OK(krt_context_can_access_peer(c0, c1, &can));
    cr_assert_eq(can, 0);
    KT_OK(krt_context_can_access_peer(c0, c0, &can));
    cr_assert_eq(can, 1);
    krt_module *m0 = kt_module(c0, "krt_basic");
    const uint32_t n = 25000; /* 100000 bytes: 25 pieces of 4096 */
    uint32_t *a = kt_alloc(c0, n * 4, KRT_MEMORY_DEVICE);
    uint32_t *b = kt_alloc(c1, n * 4, KRT_MEMORY_DEVICE);
    uint32_t *c = kt_alloc(c2, n * 4, KRT_MEMORY_DEVICE);
    iota(m0, a, n, 7);
    /* The destination is the far side (the queue is device 0's). */
    KT_OK(krt_memcpy(c0, NULL, b, a, n * 4));
    expect_iota(c1, b, n, 7);
    /* The source is the far side (the queue is device 1's), at an offset into both allocations. */
    KT_OK(krt_memfill(c1, NULL, b, &(uint32_t){ 0 }, 4, n * 4));
    KT_OK(krt_memcpy(c1, NULL, b + 3, a + 3, (n - 3) * 4));
    uint32_t head[3];
    KT_OK(krt_memcpy_sync(c1, NULL, head, b, sizeof head));
    cr_assert(head[0] == 0 && head[1] == 0 && head[2] == 0);
    expect_iota(c1, b + 3, n - 3, 10);
    /* Both sides are far (the queue is device 2's, which reaches neither). */
    KT_OK(krt_memcpy(c2, NULL, b, a, n * 4));
    expect_iota(c1, b, n, 7);
    /* A staged copy into device 2 and back again keeps every byte. */
    KT_OK(krt_memcpy(c0, NULL, c, a, n * 4));
    KT_OK(krt_memfill(c0, NULL, a, &(uint32_t){ 0 }, 4, n * 4));
    KT_OK(krt_memcpy(c0, NULL, a, c, n * 4));
    expect_iota(c0, a, n, 7);
    krt_context_destroy(c2);
    krt_context_destroy(c1);
    krt_context_destroy(c0);
}

/* KRT_ZE_POCL_PEER="0-1": devices 0 and 1 reach each other, device 2 reaches neither. krt takes the peer path for
 * 0 <-> 1 and stages 0 <-> 2 with the same call. */
Test(multidev, peer_and_staged_paths_in_one_program, .timeout = KT_TEST_TIMEOUT)
{
    devices(3, "0-1", NULL);
    krt_context *c0 = on(0, NULL, 0, 0), *c1 = on(1, c0, 0, 0), *c2 = on(2, c0, 0, 0);
    int can = -1;
    KT_OK(krt_context_can_access_peer(c0, c1, &can));
    cr_assert_eq(can, 1);
    KT_OK(krt_context_can_access_peer(c1, c0, &can));
    cr_assert_eq(can, 1);
    KT_OK(krt_context_can_access_peer(c0, c2, &can));
    cr_assert_eq(can, 0);
    KT_OK(krt_context_can_access_peer(c2, c1, &can));
    cr_assert_eq(can, 0);
    krt_module *m0 = kt_module(c0, "krt_basic");
    const uint32_t n = 5000;
    uint32_t *a = kt_alloc(c0, n * 4, KRT_MEMORY_DEVICE);
    uint32_t *b = kt_alloc(c1, n * 4, KRT_MEMORY_DEVICE);
    uint32_t *c = kt_alloc(c2, n * 4, KRT_MEMORY_DEVICE);
    iota(m0, a, n, 100);
    KT_OK(krt_memcpy(c0, NULL, b, a, n * 4)); /* peer, queued on c0: nothing orders c1's queue after it */
    KT_OK(krt_context_synchronize(c0));
    KT_OK(krt_memcpy(c1, NULL, c, b, n * 4)); /* staged */
    KT_OK(krt_context_synchronize(c1));
    expect_iota(c2, c, n, 100);
    krt_context_destroy(c0); /* the shared Level Zero context outlives its creator */
    KT_OK(krt_memcpy(c2, NULL, b, c, n * 4));
    expect_iota(c1, b, n, 100);
    kt_assert_usable(c1);
    krt_context_destroy(c1);
    krt_context_destroy(c2);
}

/* No staging memory: the copy is refused with KRT_ERROR_UNSUPPORTED_FEATURE, nothing is written, and the contexts
 * go on working. */
Test(multidev, no_staging_memory_refuses_the_copy_and_loses_nothing, .timeout = KT_TEST_TIMEOUT)
{
    devices(2, "none", NULL);
    krt_context *c0 = on(0, NULL, KRT_CONTEXT_FLAG_NO_STAGING, 0), *c1 = on(1, c0, 0, 0);
    krt_module *m0 = kt_module(c0, "krt_basic"), *m1 = kt_module(c1, "krt_basic");
    const uint32_t n = 1000;
    uint32_t *a = kt_alloc(c0, n * 4, KRT_MEMORY_DEVICE);
    uint32_t *b = kt_alloc(c1, n * 4, KRT_MEMORY_DEVICE);
    iota(m0, a, n, 1);
    iota(m1, b, n, 500);
    KT_EXPECT(krt_memcpy(c0, NULL, b, a, n * 4), KRT_ERROR_UNSUPPORTED_FEATURE);
    KT_EXPECT(krt_memcpy_sync(c0, NULL, a, b, n * 4), KRT_ERROR_UNSUPPORTED_FEATURE);
    expect_iota(c1, b, n, 500);
    expect_iota(c0, a, n, 1);
    /* The other context has staging memory: the same copy on its queue goes through. */
    KT_OK(krt_memcpy(c1, NULL, b, a, n * 4));
    expect_iota(c1, b, n, 1);
    kt_assert_usable(c0);
    kt_assert_usable(c1);
    krt_context_destroy(c0);
    krt_context_destroy(c1);
}

/* A staged copy waits for its pieces, so it cannot be recorded; a peer copy and a barrier can. */
Test(multidev, a_staged_copy_is_not_recorded_a_barrier_is, .timeout = KT_TEST_TIMEOUT)
{
    devices(2, "none", NULL);
    krt_context *c0 = on(0, NULL, 0, 0), *c1 = on(1, c0, 0, 0);
    uint32_t *a = kt_alloc(c0, 4096, KRT_MEMORY_DEVICE);
    uint32_t *b = kt_alloc(c1, 4096, KRT_MEMORY_DEVICE);
    uint32_t *h = kt_alloc(c1, 4096, KRT_MEMORY_HOST);
    krt_queue *q = krt_context_default_queue(c0);
    KT_OK(krt_recording_begin(q, NULL));
    KT_EXPECT(krt_memcpy(c0, q, b, a, 4096), KRT_ERROR_INVALID_STATE);
    KT_OK(krt_memcpy(c0, q, h, a, 4096)); /* host memory of device 1's context: every device reaches it */
    KT_OK(krt_queue_barrier(q, NULL));
    krt_recording *rec = NULL;
    KT_OK(krt_recording_end(q, &rec));
    krt_recording_info info;
    KT_OK(krt_recording_info_get(rec, &info));
    cr_assert_eq(info.num_copies, 1);
    cr_assert_eq(info.num_barriers, 1);
    cr_assert_eq(info.num_commands, 2);
    KT_OK(krt_memfill(c0, NULL, a, &(uint32_t){ 0x5a5a5a5a }, 4, 4096));
    krt_replay_desc rd = { 0 };
    KT_OK(krt_replay(rec, &rd));
    KT_OK(krt_queue_synchronize(q));
    for (int i = 0; i < 1024; i++)
        cr_assert_eq(h[i], 0x5a5a5a5au);
    krt_recording_destroy(rec);
    krt_context_destroy(c0);
    krt_context_destroy(c1);
}

/* The launch memo is per device: one kernel on two devices with different limits keeps two sets of properties and
 * two sets of configurations, and each device's launches run with its own. */
Test(multidev, the_launch_memo_is_per_device, .timeout = KT_TEST_TIMEOUT)
{
    devices(2, NULL, "0,64");
    krt_context *c0 = on(0, NULL, 0, 0), *c1 = on(1, c0, 0, 0);
    krt_kernel *k0 = kt_kernel(kt_module(c0, "krt_basic"), "krt_iota");
    krt_kernel *k1 = kt_kernel(kt_module(c1, "krt_basic"), "krt_iota");
    krt_kernel_properties p0, p1;
    KT_OK(krt_kernel_properties_get(k0, &p0));
    KT_OK(krt_kernel_properties_get(k1, &p1));
    cr_assert_eq(p1.max_group_size, 64);
    cr_assert_gt(p0.max_group_size, 64);
    krt_ndrange r = { .dims = 1, .size = { 1 << 20 } };
    for (int round = 0; round < 2; round++) { /* the second round answers from the memo */
        krt_launch_config g0, g1;
        KT_OK(krt_launch_config_get(k0, &r, &g0));
        KT_OK(krt_launch_config_get(k1, &r, &g1));
        cr_assert_leq(g1.group[0], 64);
        cr_assert_gt(g0.group[0], 64, "device 0 chose %u", g0.group[0]);
        KT_OK(krt_kernel_properties_get(k1, &p1));
        cr_assert_eq(p1.max_group_size, 64);
    }
    const uint32_t n = 1 << 20;
    uint32_t *a = kt_alloc(c0, n * 4, KRT_MEMORY_DEVICE);
    uint32_t *b = kt_alloc(c1, n * 4, KRT_MEMORY_DEVICE);
    krt_arg a0[] = { KRT_ARG(a), KRT_ARG(n), KRT_U32(3) };
    krt_arg a1[] = { KRT_ARG(b), KRT_ARG(n), KRT_U32(9) };
    krt_launch_desc d0 = kt_desc1(n, a0, 3), d1 = kt_desc1(n, a1, 3);
    KT_OK(krt_launch(k0, &d0));
    KT_OK(krt_launch(k1, &d1));
    /* A static group over device 1's limit is refused there and accepted on device 0. */
    krt_launch_desc big = d1;
    big.group[0] = 128;
    KT_EXPECT(krt_launch(k1, &big), KRT_ERROR_INVALID_GROUP_SIZE);
    big = d0;
    big.group[0] = 128;
    KT_OK(krt_launch(k0, &big));
    KT_OK(krt_context_synchronize(c0));
    KT_OK(krt_context_synchronize(c1));
    expect_iota(c0, a, n, 3);
    expect_iota(c1, b, n, 9);
    krt_context_destroy(c0);
    krt_context_destroy(c1);
}

static void never_runs(void *data)
{
    (void)data;
    abort();
}

/* Events of a context that shares no Level Zero context with the queue's, and signal events of another device's
 * context, are refused with KRT_ERROR_INVALID_ARGUMENT; nothing is appended and everything goes on working. */
Test(multidev, events_of_another_device_are_refused_where_they_cannot_work, .timeout = KT_TEST_TIMEOUT)
{
    devices(2, NULL, NULL);
    krt_context *c0 = on(0, NULL, 0, 0), *c1 = on(1, c0, 0, 0);
    krt_context *lone = on(1, NULL, 0, 0); /* device 1 again, in a Level Zero context of its own */
    krt_module *m1 = kt_module(c1, "krt_basic"), *ml = kt_module(lone, "krt_basic");
    krt_event *e0 = NULL, *el = NULL;
    KT_OK(krt_event_create(c0, NULL, &e0));
    KT_OK(krt_event_create(lone, NULL, &el));
    const uint32_t n = 256;
    uint32_t *b = kt_alloc(c1, n * 4, KRT_MEMORY_DEVICE);
    uint32_t *l = kt_alloc(lone, n * 4, KRT_MEMORY_DEVICE);
    uint32_t base = 5;
    krt_arg args[] = { KRT_ARG(b), KRT_ARG(n), KRT_ARG(base) };
    krt_launch_desc d = kt_desc1(n, args, 3);

    /* A wait on an event of an unshared context: launch, barrier and host task alike. */
    d.wait = &el;
    d.num_wait = 1;
    KT_EXPECT(krt_launch(kt_kernel(m1, "krt_iota"), &d), KRT_ERROR_INVALID_ARGUMENT);
    krt_barrier_desc bd = { .wait = &el, .num_wait = 1 };
    KT_EXPECT(krt_queue_barrier(krt_context_default_queue(c1), &bd), KRT_ERROR_INVALID_ARGUMENT);
    krt_host_task_desc hd = { .fn = never_runs, .wait = &el, .num_wait = 1 };
    KT_EXPECT(krt_host_task(c1, &hd), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_context_can_access_peer(c1, lone, &(int){ 0 }), KRT_ERROR_INVALID_ARGUMENT);

    /* A signal event of another device's context, shared or not. */
    d.wait = NULL;
    d.num_wait = 0;
    d.signal = e0;
    KT_EXPECT(krt_launch(kt_kernel(m1, "krt_iota"), &d), KRT_ERROR_INVALID_ARGUMENT);
    bd = (krt_barrier_desc){ .signal = e0 };
    KT_EXPECT(krt_queue_barrier(krt_context_default_queue(c1), &bd), KRT_ERROR_INVALID_ARGUMENT);
    bd = (krt_barrier_desc){ .signal = el };
    KT_EXPECT(krt_queue_barrier(krt_context_default_queue(c1), &bd), KRT_ERROR_INVALID_ARGUMENT);
    bd = (krt_barrier_desc){ .num_wait = 1 };
    KT_EXPECT(krt_queue_barrier(krt_context_default_queue(c1), &bd), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_queue_barrier(NULL, NULL), KRT_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(krt_event_query(e0), KRT_NOT_READY, "a refused command signalled the event");

    /* Everything still works: the shared event orders device 1 after device 0. */
    krt_barrier_desc sig = { .signal = e0 };
    KT_OK(krt_queue_barrier(krt_context_default_queue(c0), &sig));
    d.signal = NULL;
    d.wait = &e0;
    d.num_wait = 1;
    KT_OK(krt_launch_sync(kt_kernel(m1, "krt_iota"), &d));
    expect_iota(c1, b, n, 5);
    krt_arg la[] = { KRT_ARG(l), KRT_ARG(n), KRT_ARG(base) };
    krt_launch_desc ld = kt_desc1(n, la, 3);
    ld.signal = el;
    KT_OK(krt_launch_sync(kt_kernel(ml, "krt_iota"), &ld));
    KT_OK(krt_event_synchronize(el, UINT64_MAX));
    expect_iota(lone, l, n, 5);
    krt_event_destroy(e0);
    krt_event_destroy(el);
    krt_context_destroy(lone);
    krt_context_destroy(c1);
    krt_context_destroy(c0);
}

/* A kernel may take a pointer of another device's memory only where its device reaches it; a krt_free in the
 * other context makes the next launch check the pointer again. */
Test(multidev, launches_check_pointers_of_other_devices, .timeout = KT_TEST_TIMEOUT)
{
    devices(2, "none", NULL);
    krt_context *c0 = on(0, NULL, 0, 0), *c1 = on(1, c0, 0, 0);
    krt_kernel *k0 = kt_kernel(kt_module(c0, "krt_basic"), "krt_iota");
    const uint32_t n = 128;
    uint32_t *far = kt_alloc(c1, n * 4, KRT_MEMORY_DEVICE);
    uint32_t *host = kt_alloc(c1, n * 4, KRT_MEMORY_HOST);
    uint32_t base = 2;
    krt_arg args[] = { KRT_ARG(far), KRT_ARG(n), KRT_ARG(base) };
    krt_launch_desc d = kt_desc1(n, args, 3);
    KT_EXPECT(krt_launch(k0, &d), KRT_ERROR_INVALID_POINTER);
    krt_arg hargs[] = { KRT_ARG(host), KRT_ARG(n), KRT_ARG(base) };
    krt_launch_desc hdsc = kt_desc1(n, hargs, 3);
    KT_OK(krt_launch_sync(k0, &hdsc)); /* host memory of the other context: every device reaches it */
    for (uint32_t i = 0; i < n; i++)
        cr_assert_eq(host[i], base + i);
    KT_OK(krt_launch_sync(k0, &hdsc)); /* warm */
    KT_OK(krt_free(c1, host));
    KT_EXPECT(krt_launch(k0, &hdsc), KRT_ERROR_INVALID_POINTER);
    kt_assert_usable(c0);
    krt_context_destroy(c0);
    krt_context_destroy(c1);
}

/* Bad arguments of the sharing itself. */
Test(multidev, sharing_is_refused_across_drivers_and_checked, .timeout = KT_TEST_TIMEOUT)
{
    devices(2, NULL, NULL);
    krt_context *c0 = on(0, NULL, 0, 0);
    krt_context_desc hd = { .device = "host", .share = c0 };
    krt_context *h = NULL;
    KT_EXPECT(krt_context_create(&hd, &h), KRT_ERROR_INVALID_ARGUMENT);
    cr_assert_null(h);
    KT_EXPECT(krt_context_can_access_peer(c0, NULL, &(int){ 0 }), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_context_can_access_peer(c0, c0, NULL), KRT_ERROR_INVALID_ARGUMENT);
    /* Two contexts on one device may share. */
    krt_context *again = on(0, c0, 0, 0);
    int can = 0;
    KT_OK(krt_context_can_access_peer(c0, again, &can));
    cr_assert_eq(can, 1);
    /* A copy past the end of the other context's allocation is refused like one past an own allocation. */
    uint32_t *a = kt_alloc(c0, 64, KRT_MEMORY_DEVICE);
    uint32_t *b = kt_alloc(again, 64, KRT_MEMORY_DEVICE);
    KT_EXPECT(krt_memcpy(c0, NULL, b + 8, a, 64), KRT_ERROR_INVALID_ARGUMENT);
    KT_OK(krt_memcpy_sync(c0, NULL, b, a, 64));
    krt_context_destroy(again);
    kt_assert_usable(c0);
    krt_context_destroy(c0);
}

/* Every GPU of the machine (ze_cuda lists them all), one context each in one Level Zero context: for every ordered
 * pair, a kernel on the source GPU signals an event, the destination GPU's queue waits for it and copies the
 * result over (peer where CUDA reports peer access, staged through host memory where not), then doubles it there.
 * The same code runs on 2, 4 or 8 GPUs; with fewer than two it is skipped (make test has none). */
Test(multidev, every_ordered_pair_of_gpus, .timeout = KT_TEST_TIMEOUT)
{
    unsetenv("KRT_DEVICE");
    uint32_t count = 0;
    KT_OK(krt_device_list(NULL, &count));
    krt_device_info *infos = calloc(count ? count : 1, sizeof *infos);
    cr_assert(infos);
    KT_OK(krt_device_list(infos, &count));
    uint32_t gpus = 0;
    for (uint32_t i = 0; i < count; i++)
        gpus += infos[i].type == KRT_DEVICE_TYPE_GPU;
    free(infos);
    if (gpus < 2)
        cr_skip_test("%u GPU(s) here; this test needs two", gpus);
    if (gpus > 16)
        gpus = 16;
    krt_context *c[16];
    krt_module *m[16];
    const uint32_t n = 1 << 20;
    uint32_t *a[16], *b[16];
    for (uint32_t i = 0; i < gpus; i++) {
        char dev[16];
        snprintf(dev, sizeof dev, "gpu:%u", i);
        krt_context_desc d = { .device = dev, .share = i ? c[0] : NULL };
        KT_OK(krt_context_create(&d, &c[i]));
        m[i] = kt_module(c[i], "krt_basic");
        a[i] = kt_alloc(c[i], n * 4, KRT_MEMORY_DEVICE);
        b[i] = kt_alloc(c[i], n * 4, KRT_MEMORY_DEVICE);
    }
    for (uint32_t i = 0; i < gpus; i++) {
        for (uint32_t j = 0; j < gpus; j++) {
            if (i == j)
                continue;
            int can = -1;
            KT_OK(krt_context_can_access_peer(c[j], c[i], &can));
            cr_assert(can == 0 || can == 1);
            krt_event *e = NULL;
            KT_OK(krt_event_create(c[i], NULL, &e));
            uint32_t base = 1000 * i + j;
            krt_arg ia[] = { KRT_ARG(a[i]), KRT_ARG(n), KRT_ARG(base) };
            krt_launch_desc id = kt_desc1(n, ia, 3);
            id.signal = e;
            KT_OK(krt_launch(kt_kernel(m[i], "krt_iota"), &id));
            krt_barrier_desc bd = { .wait = &e, .num_wait = 1 };
            KT_OK(krt_queue_barrier(krt_context_default_queue(c[j]), &bd));
            KT_OK(krt_memcpy(c[j], NULL, b[j], a[i], n * 4));
            int two = 2;
            krt_arg sa[] = { KRT_ARG(b[j]), KRT_ARG(two), KRT_ARG(n) };
            krt_launch_desc sd = kt_desc1(n, sa, 3);
            KT_OK(krt_launch(kt_kernel(m[j], "krt_scale"), &sd));
            uint32_t *host = malloc(n * 4);
            cr_assert(host);
            KT_OK(krt_memcpy_sync(c[j], NULL, host, b[j], n * 4));
            for (uint32_t k = 0; k < n; k += 4099)
                cr_assert_eq(host[k], 2 * (base + k), "gpu %u -> gpu %u (%s), element %u: %u", i, j,
                             can ? "peer" : "staged", k, host[k]);
            free(host);
            KT_OK(krt_context_synchronize(c[i]));
            krt_event_destroy(e);
        }
    }
    for (uint32_t i = gpus; i-- > 0;)
        krt_context_destroy(c[i]);
}

/* Staged copies from two threads at once, in opposite directions, each on its own context's queue: they share the
 * group's staging lock and each context's staging memory, and every copy must arrive whole. */
typedef struct {
    krt_context *ctx;
    uint32_t *src, *dst;
    uint32_t n, rounds, base;
    int ok;
} stage_job;

static void *stage_thread(void *p)
{
    stage_job *j = p;
    uint32_t *host = malloc(j->n * 4);
    j->ok = host != NULL;
    for (uint32_t r = 0; j->ok && r < j->rounds; r++) {
        j->ok = krt_memfill(j->ctx, NULL, j->dst, &(uint32_t){ 0xdeadbeef }, 4, j->n * 4) == KRT_SUCCESS &&
                krt_memcpy(j->ctx, NULL, j->dst, j->src, j->n * 4) == KRT_SUCCESS &&
                krt_memcpy_sync(j->ctx, NULL, host, j->dst, j->n * 4) == KRT_SUCCESS;
        for (uint32_t i = 0; j->ok && i < j->n; i++)
            j->ok = host[i] == j->base + i;
    }
    free(host);
    return NULL;
}

Test(multidev, staged_copies_from_two_threads_at_once, .timeout = KT_TEST_TIMEOUT)
{
    devices(2, "none", NULL);
    krt_context *c0 = on(0, NULL, 0, 8192), *c1 = on(1, c0, 0, 8192);
    const uint32_t n = 10000;
    uint32_t *a0 = kt_alloc(c0, n * 4, KRT_MEMORY_DEVICE), *b0 = kt_alloc(c0, n * 4, KRT_MEMORY_DEVICE);
    uint32_t *a1 = kt_alloc(c1, n * 4, KRT_MEMORY_DEVICE), *b1 = kt_alloc(c1, n * 4, KRT_MEMORY_DEVICE);
    iota(kt_module(c0, "krt_basic"), a0, n, 11);
    iota(kt_module(c1, "krt_basic"), a1, n, 77);
    stage_job j0 = { c0, a1, b0, n, 20, 77, 0 }, j1 = { c1, a0, b1, n, 20, 11, 0 };
    pthread_t t0, t1;
    cr_assert_eq(pthread_create(&t0, NULL, stage_thread, &j0), 0);
    cr_assert_eq(pthread_create(&t1, NULL, stage_thread, &j1), 0);
    pthread_join(t0, NULL);
    pthread_join(t1, NULL);
    cr_assert(j0.ok, "device 1 -> device 0 on device 0's queue went wrong: %s", krt_last_error_message());
    cr_assert(j1.ok, "device 0 -> device 1 on device 1's queue went wrong");
    expect_iota(c0, b0, n, 77);
    expect_iota(c1, b1, n, 11);
    krt_context_destroy(c0);
    krt_context_destroy(c1);
}

/* A host task that makes a staged copy of its own, appended to a queue while another thread's staged copies run on
 * that same queue: the other thread's pieces never wait on the queue while holding the staging lock, so neither
 * waits for the other (a deadlock would end the test by its timeout). */
typedef struct {
    krt_context *ctx;
    uint32_t *dst, *src;
    uint32_t n, done;
    krt_result r;
} task_copy;

static void staged_copy_task(void *p)
{
    task_copy *t = p;
    krt_result r = krt_memcpy(t->ctx, NULL, t->dst, t->src, t->n * 4);
    if (r != KRT_SUCCESS && t->r == KRT_SUCCESS)
        t->r = r;
    t->done++;
}

Test(multidev, a_host_task_makes_a_staged_copy_while_another_thread_stages_on_its_queue,
     .timeout = KT_TEST_TIMEOUT)
{
    devices(2, "none", NULL);
    krt_context *c0 = on(0, NULL, 0, 4096), *c1 = on(1, c0, 0, 4096);
    const uint32_t n = 5000;
    uint32_t *a0 = kt_alloc(c0, n * 4, KRT_MEMORY_DEVICE), *b0 = kt_alloc(c0, n * 4, KRT_MEMORY_DEVICE);
    uint32_t *a1 = kt_alloc(c1, n * 4, KRT_MEMORY_DEVICE), *b1 = kt_alloc(c1, n * 4, KRT_MEMORY_DEVICE);
    iota(kt_module(c0, "krt_basic"), a0, n, 5);
    iota(kt_module(c1, "krt_basic"), a1, n, 900);
    /* The other thread: staged copies device 1 -> device 0 on device 0's default queue. */
    stage_job j = { c0, a1, b0, n, 30, 900, 0 };
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, stage_thread, &j), 0);
    /* This thread: host tasks on the same queue, each a staged copy device 0 -> device 1 on device 1's queue. */
    task_copy tc = { c1, b1, a0, n, 0, KRT_SUCCESS };
    enum { TASKS = 30 };
    for (int i = 0; i < TASKS; i++) {
        KT_OK(krt_host_task(c0, &(krt_host_task_desc){ .fn = staged_copy_task, .data = &tc }));
        usleep(300); /* spread over the other thread's copies, so that some land while it holds the lock */
    }
    KT_OK(krt_queue_synchronize(krt_context_default_queue(c0)));
    pthread_join(t, NULL);
    cr_assert_eq(tc.done, TASKS);
    cr_assert_eq(tc.r, KRT_SUCCESS, "a host task's staged copy failed: %s", krt_result_name(tc.r));
    cr_assert(j.ok, "the other thread's staged copies went wrong");
    expect_iota(c1, b1, n, 5);
    expect_iota(c0, b0, n, 900);
    krt_context_destroy(c1);
    krt_context_destroy(c0);
}
