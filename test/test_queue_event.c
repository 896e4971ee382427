/* Queues and events: the default queue, extra queues, ordering across two queues through events, event
 * states, and kernel timestamps. */
#include <stdlib.h>
#include <string.h>

#include "krt_test.h"

TestSuite(queue_event, .timeout = KT_TEST_TIMEOUT);

Test(queue_event, default_queue)
{
    krt_context *ctx = kt_context(NULL);
    krt_queue *q = krt_context_default_queue(ctx);
    cr_assert_not_null(q);
    cr_assert_eq(krt_context_default_queue(ctx), q);
    cr_assert_null(krt_context_default_queue(NULL));
    KT_OK(krt_queue_synchronize(q));
    /* Destroying the default queue is ignored. */
    krt_queue_destroy(q);
    cr_assert_eq(krt_context_default_queue(ctx), q);
    kt_assert_usable(ctx);
    krt_queue_destroy(NULL);
    KT_EXPECT(krt_queue_synchronize(NULL), KRT_ERROR_INVALID_ARGUMENT);
    krt_context_destroy(ctx);
}

Test(queue_event, create_bad_arguments)
{
    krt_context *ctx = kt_context(NULL);
    krt_queue *q = NULL;
    KT_EXPECT(krt_queue_create(ctx, NULL, NULL), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_queue_create(NULL, NULL, &q), KRT_ERROR_INVALID_ARGUMENT);
    krt_event *e = NULL;
    KT_EXPECT(krt_event_create(ctx, NULL, NULL), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_event_create(NULL, NULL, &e), KRT_ERROR_INVALID_ARGUMENT);
    /* A command queue group the device does not have, and an event flag krt does not define. */
    krt_queue_desc qd = {.ordinal = 99};
    KT_EXPECT(krt_queue_create(ctx, &qd, &q), KRT_ERROR_INVALID_ARGUMENT);
    krt_event_desc ed = {.flags = 1u << 7};
    KT_EXPECT(krt_event_create(ctx, &ed, &e), KRT_ERROR_INVALID_ARGUMENT);
    cr_assert_null(q);
    cr_assert_null(e);
    krt_context_destroy(ctx);
}

/* Launches krt_iota over n items into out on queue q. */
static void iota_on(krt_kernel *k, krt_queue *q, uint32_t *out, uint32_t n, uint32_t base, krt_event *signal)
{
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(n), KRT_ARG(base)};
    krt_launch_desc d = kt_desc1(n, args, 3);
    d.queue = q;
    d.signal = signal;
    KT_OK(krt_launch(k, &d));
}

Test(queue_event, work_on_several_queues)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_basic");
    krt_kernel *k = kt_kernel(m, "krt_iota");
    enum { Q = 3, N = 5000 };
    krt_queue *qs[Q];
    uint32_t *outs[Q];
    for (int i = 0; i < Q; i++) {
        KT_OK(krt_queue_create(ctx, NULL, &qs[i]));
        outs[i] = kt_alloc(ctx, N * 4, KRT_MEMORY_SHARED);
        iota_on(k, qs[i], outs[i], N, 100000u * (uint32_t)i, NULL);
    }
    /* The context waits for every queue. */
    KT_OK(krt_context_synchronize(ctx));
    for (int i = 0; i < Q; i++)
        for (uint32_t j = 0; j < N; j++)
            cr_assert_eq(outs[i][j], 100000u * (uint32_t)i + j, "queue %d item %u", i, j);
    for (int i = 0; i < Q; i++)
        krt_queue_destroy(qs[i]);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

Test(queue_event, in_order_within_a_queue)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_basic");
    krt_kernel *slow = kt_kernel(m, "krt_slow_fill"), *scale = kt_kernel(m, "krt_scale");
    krt_queue *q = NULL;
    KT_OK(krt_queue_create(ctx, NULL, &q));
    enum { N = 4096 };
    int32_t *buf = kt_alloc(ctx, N * 4, KRT_MEMORY_SHARED);
    memset(buf, 0, N * 4);
    int32_t value = 3, factor = 5;
    uint32_t n = N, spin = 20000;
    krt_arg a1[] = {KRT_ARG(buf), KRT_ARG(value), KRT_ARG(n), KRT_ARG(spin)};
    krt_launch_desc d1 = kt_desc1(N, a1, 4);
    d1.queue = q;
    KT_OK(krt_launch(slow, &d1));
    krt_arg a2[] = {KRT_ARG(buf), KRT_ARG(factor), KRT_ARG(n)};
    krt_launch_desc d2 = kt_desc1(N, a2, 3);
    d2.queue = q;
    KT_OK(krt_launch(scale, &d2));
    KT_OK(krt_queue_synchronize(q));
    for (int i = 0; i < N; i++)
        cr_assert_eq(buf[i], 15, "item %d: the second launch did not run after the first", i);
    krt_queue_destroy(q);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* A producer on queue A signals an event; a consumer on queue B waits for it. */
Test(queue_event, event_orders_two_queues)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_basic");
    krt_kernel *slow = kt_kernel(m, "krt_slow_fill"), *dbl = kt_kernel(m, "krt_double");
    krt_queue *qa = NULL, *qb = NULL;
    KT_OK(krt_queue_create(ctx, NULL, &qa));
    KT_OK(krt_queue_create(ctx, NULL, &qb));
    krt_event *ev = NULL;
    KT_OK(krt_event_create(ctx, NULL, &ev));
    enum { N = 8192 };
    int32_t *in = kt_alloc(ctx, N * 4, KRT_MEMORY_SHARED), *out = kt_alloc(ctx, N * 4, KRT_MEMORY_SHARED);
    memset(in, 0, N * 4);
    memset(out, 0xff, N * 4);
    int32_t value = 21;
    uint32_t n = N, spin = 50000;
    krt_arg a1[] = {KRT_ARG(in), KRT_ARG(value), KRT_ARG(n), KRT_ARG(spin)};
    krt_launch_desc d1 = kt_desc1(N, a1, 4);
    d1.queue = qa;
    d1.signal = ev;
    KT_OK(krt_launch(slow, &d1));
    krt_arg a2[] = {KRT_ARG(in), KRT_ARG(out), KRT_ARG(n)};
    krt_launch_desc d2 = kt_desc1(N, a2, 3);
    d2.queue = qb;
    krt_event *waits[] = {ev};
    d2.wait = waits;
    d2.num_wait = 1;
    KT_OK(krt_launch(dbl, &d2));
    KT_OK(krt_queue_synchronize(qb));
    for (int i = 0; i < N; i++)
        cr_assert_eq(out[i], 42, "item %d: the consumer ran before the producer finished", i);
    KT_OK(krt_event_query(ev));
    krt_event_destroy(ev);
    krt_queue_destroy(qa);
    krt_queue_destroy(qb);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* Two producers on two queues, one consumer waiting on both on the default queue. */
Test(queue_event, wait_on_two_events)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_basic");
    krt_kernel *slow = kt_kernel(m, "krt_slow_fill"), *vadd = kt_kernel(m, "krt_vadd");
    krt_queue *qa = NULL, *qb = NULL;
    KT_OK(krt_queue_create(ctx, NULL, &qa));
    KT_OK(krt_queue_create(ctx, NULL, &qb));
    krt_event *ea = NULL, *eb = NULL;
    KT_OK(krt_event_create(ctx, NULL, &ea));
    KT_OK(krt_event_create(ctx, NULL, &eb));
    enum { N = 4096 };
    /* krt_slow_fill writes ints; krt_vadd adds floats: fill with the bit patterns of 1.5f and 2.25f. */
    float fa = 1.5f, fb = 2.25f;
    int32_t ia, ib;
    memcpy(&ia, &fa, 4);
    memcpy(&ib, &fb, 4);
    float *a = kt_alloc(ctx, N * 4, KRT_MEMORY_SHARED), *b = kt_alloc(ctx, N * 4, KRT_MEMORY_SHARED);
    float *c = kt_alloc(ctx, N * 4, KRT_MEMORY_SHARED);
    memset(a, 0, N * 4);
    memset(b, 0, N * 4);
    uint32_t n = N, spin = 30000;
    krt_arg pa[] = {KRT_ARG(a), KRT_ARG(ia), KRT_ARG(n), KRT_ARG(spin)};
    krt_arg pb[] = {KRT_ARG(b), KRT_ARG(ib), KRT_ARG(n), KRT_ARG(spin)};
    krt_launch_desc da = kt_desc1(N, pa, 4), db = kt_desc1(N, pb, 4);
    da.queue = qa;
    da.signal = ea;
    db.queue = qb;
    db.signal = eb;
    KT_OK(krt_launch(slow, &da));
    KT_OK(krt_launch(slow, &db));
    krt_arg pc[] = {KRT_ARG(a), KRT_ARG(b), KRT_ARG(c), KRT_ARG(n)};
    krt_launch_desc dc = kt_desc1(N, pc, 4);
    krt_event *waits[] = {ea, eb};
    dc.wait = waits;
    dc.num_wait = 2;
    KT_OK(krt_launch_sync(vadd, &dc));
    for (int i = 0; i < N; i++)
        cr_assert_eq(c[i], 3.75f, "item %d is %f", i, (double)c[i]);
    krt_event_destroy(ea);
    krt_event_destroy(eb);
    krt_queue_destroy(qa);
    krt_queue_destroy(qb);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

Test(queue_event, event_states)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_basic");
    krt_kernel *k = kt_kernel(m, "krt_iota");
    krt_event *ev = NULL;
    KT_OK(krt_event_create(ctx, NULL, &ev));
    /* A new event is unsignalled. */
    KT_EXPECT(krt_event_query(ev), KRT_NOT_READY);
    KT_EXPECT(krt_event_synchronize(ev, 0), KRT_TIMEOUT);
    KT_EXPECT(krt_event_synchronize(ev, 1000000), KRT_TIMEOUT);
    enum { N = 100 };
    uint32_t *out = kt_alloc(ctx, N * 4, KRT_MEMORY_SHARED);
    iota_on(k, NULL, out, N, 9, ev);
    KT_OK(krt_event_synchronize(ev, UINT64_MAX));
    KT_OK(krt_event_query(ev));
    /* A signalled event needs no time to wait for. */
    KT_OK(krt_event_synchronize(ev, 0));
    /* The kernel that signalled has finished: its results are there. */
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(out[i], 9 + i);
    KT_OK(krt_event_reset(ev));
    KT_EXPECT(krt_event_query(ev), KRT_NOT_READY);
    /* A reset event can be signalled again. */
    iota_on(k, NULL, out, N, 50, ev);
    KT_OK(krt_event_synchronize(ev, UINT64_MAX));
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(out[i], 50 + i);
    KT_EXPECT(krt_event_query(NULL), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_event_synchronize(NULL, 0), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_event_reset(NULL), KRT_ERROR_INVALID_ARGUMENT);
    krt_event_destroy(ev);
    krt_event_destroy(NULL);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

Test(queue_event, kernel_timestamps)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_basic");
    krt_kernel *k = kt_kernel(m, "krt_iota");
    krt_event_desc ed = {.flags = KRT_EVENT_FLAG_TIMESTAMP};
    krt_event *ev = NULL, *plain = NULL;
    KT_OK(krt_event_create(ctx, &ed, &ev));
    KT_OK(krt_event_create(ctx, NULL, &plain));
    uint64_t start = 0, end = 0;
    KT_EXPECT(krt_event_kernel_time(ev, &start, &end), KRT_NOT_READY);
    enum { N = 100000 };
    uint32_t *out = kt_alloc(ctx, N * 4, KRT_MEMORY_SHARED);
    iota_on(k, NULL, out, N, 1, ev);
    iota_on(k, NULL, out, N, 1, plain);
    KT_OK(krt_queue_synchronize(krt_context_default_queue(ctx)));
    KT_OK(krt_event_kernel_time(ev, &start, &end));
    cr_assert_gt(start, 0, "no start time");
    cr_assert_geq(end, start, "the kernel ended (%llu) before it started (%llu)", (unsigned long long)end,
                  (unsigned long long)start);
    KT_EXPECT(krt_event_kernel_time(plain, &start, &end), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_event_kernel_time(NULL, &start, &end), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_event_kernel_time(ev, NULL, &end), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_event_kernel_time(ev, &start, NULL), KRT_ERROR_INVALID_ARGUMENT);

    /* Two kernels in order on one queue: the second starts no earlier than the first ended. */
    krt_event *e2 = NULL;
    KT_OK(krt_event_create(ctx, &ed, &e2));
    KT_OK(krt_event_reset(ev));
    iota_on(k, NULL, out, N, 2, ev);
    iota_on(k, NULL, out, N, 3, e2);
    KT_OK(krt_event_synchronize(e2, UINT64_MAX));
    uint64_t s1, e1, s2, e2t;
    KT_OK(krt_event_kernel_time(ev, &s1, &e1));
    KT_OK(krt_event_kernel_time(e2, &s2, &e2t));
    cr_assert_geq(s2, e1, "in-order kernels overlap: second started at %llu, first ended at %llu",
                  (unsigned long long)s2, (unsigned long long)e1);
    krt_event_destroy(e2);
    krt_event_destroy(ev);
    krt_event_destroy(plain);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* krt_queue_destroy waits for the queue's work before it goes. */
Test(queue_event, queue_destroy_waits)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_basic");
    krt_kernel *slow = kt_kernel(m, "krt_slow_fill");
    krt_queue *q = NULL;
    KT_OK(krt_queue_create(ctx, NULL, &q));
    enum { N = 8192 };
    int32_t *buf = kt_alloc(ctx, N * 4, KRT_MEMORY_SHARED);
    memset(buf, 0, N * 4);
    int32_t value = 77;
    uint32_t n = N, spin = 50000;
    krt_arg args[] = {KRT_ARG(buf), KRT_ARG(value), KRT_ARG(n), KRT_ARG(spin)};
    krt_launch_desc d = kt_desc1(N, args, 4);
    d.queue = q;
    KT_OK(krt_launch(slow, &d));
    krt_queue_destroy(q);
    for (int i = 0; i < N; i++)
        cr_assert_eq(buf[i], 77, "item %d: the queue was destroyed before its kernel finished", i);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* Copies, fills and launches on one queue run in the order they were appended. */
Test(queue_event, copies_fills_and_launches_in_order)
{
    kt_skip_on_host("its kernels (krt_reflect, krt_misc) use vector types that the C side of the kernels does not compile");
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_misc");
    krt_kernel *add = kt_kernel(m, "krt_add");
    krt_queue *q = NULL;
    KT_OK(krt_queue_create(ctx, NULL, &q));
    enum { N = 100000 };
    int32_t *dev = kt_alloc(ctx, N * 4, KRT_MEMORY_DEVICE);
    int32_t *host = malloc(N * 4), *back = malloc(N * 4);
    cr_assert(host && back);
    for (int i = 0; i < N; i++)
        host[i] = i;
    uint32_t n = N;
    int32_t k1 = 5, k2 = -2, fillv = 1000;
    krt_arg a1[] = {KRT_ARG(dev), KRT_ARG(k1), KRT_ARG(n)};
    krt_arg a2[] = {KRT_ARG(dev), KRT_ARG(k2), KRT_ARG(n)};
    krt_launch_desc d1 = kt_desc1(N, a1, 3), d2 = kt_desc1(N, a2, 3);
    d1.queue = d2.queue = q;
    /* fill 1000, +5, copy in i (overwriting), +(-2), copy out: i - 2 */
    KT_OK(krt_memfill(ctx, q, dev, &fillv, 4, N * 4));
    KT_OK(krt_launch(add, &d1));
    KT_OK(krt_memcpy(ctx, q, dev, host, N * 4));
    KT_OK(krt_launch(add, &d2));
    KT_OK(krt_memcpy(ctx, q, back, dev, N * 4));
    KT_OK(krt_queue_synchronize(q));
    for (int i = 0; i < N; i++)
        cr_assert_eq(back[i], i - 2, "item %d is %d", i, back[i]);
    /* And the other way round: copy in, +5, fill 7, +(-2), copy out: 5 */
    KT_OK(krt_memcpy(ctx, q, dev, host, N * 4));
    KT_OK(krt_launch(add, &d1));
    int32_t seven = 7;
    KT_OK(krt_memfill(ctx, q, dev, &seven, 4, N * 4));
    KT_OK(krt_launch(add, &d2));
    KT_OK(krt_memcpy(ctx, q, back, dev, N * 4));
    KT_OK(krt_queue_synchronize(q));
    for (int i = 0; i < N; i++)
        cr_assert_eq(back[i], 5, "item %d is %d", i, back[i]);
    free(host);
    free(back);
    krt_queue_destroy(q);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* A launch that waits on an event nobody has signalled yet cannot complete: its own event stays unsignalled
 * (deterministically, not by timing) until the producer is appended. The append itself does not block. */
Test(queue_event, pending_wait_completes_once_the_producer_runs)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_basic");
    krt_kernel *iota = kt_kernel(m, "krt_iota"), *dbl = kt_kernel(m, "krt_double");
    krt_queue *qa = NULL, *qb = NULL;
    KT_OK(krt_queue_create(ctx, NULL, &qa));
    KT_OK(krt_queue_create(ctx, NULL, &qb));
    krt_event *produced = NULL, *consumed = NULL;
    KT_OK(krt_event_create(ctx, NULL, &produced));
    KT_OK(krt_event_create(ctx, NULL, &consumed));
    enum { N = 5000 };
    uint32_t *in = kt_alloc(ctx, N * 4, KRT_MEMORY_SHARED), *out = kt_alloc(ctx, N * 4, KRT_MEMORY_SHARED);
    memset(in, 0, N * 4);
    memset(out, 0, N * 4);
    uint32_t n = N, base = 10;
    /* The consumer first, on queue B, waiting for `produced`. */
    krt_arg ca[] = {KRT_ARG(in), KRT_ARG(out), KRT_ARG(n)};
    krt_launch_desc cd = kt_desc1(N, ca, 3);
    krt_event *waits[] = {produced};
    cd.queue = qb;
    cd.wait = waits;
    cd.num_wait = 1;
    cd.signal = consumed;
    KT_OK(krt_launch(dbl, &cd));
    KT_EXPECT(krt_event_query(consumed), KRT_NOT_READY);
    KT_EXPECT(krt_event_synchronize(consumed, 20 * 1000 * 1000), KRT_TIMEOUT);
    KT_EXPECT(krt_event_query(produced), KRT_NOT_READY);
    for (int i = 0; i < N; i++)
        cr_assert_eq(out[i], 0, "the consumer ran before its producer existed (item %d)", i);
    /* Now the producer, on queue A. */
    krt_arg pa[] = {KRT_ARG(in), KRT_ARG(n), KRT_ARG(base)};
    krt_launch_desc pd = kt_desc1(N, pa, 3);
    pd.queue = qa;
    pd.signal = produced;
    KT_OK(krt_launch(iota, &pd));
    KT_OK(krt_event_synchronize(consumed, UINT64_MAX));
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(out[i], 2 * (10 + i), "item %u is %u", i, out[i]);
    KT_OK(krt_context_synchronize(ctx));
    krt_event_destroy(produced);
    krt_event_destroy(consumed);
    krt_queue_destroy(qa);
    krt_queue_destroy(qb);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}
