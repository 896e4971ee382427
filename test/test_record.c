/* Recorded launches (krt_recording_begin/end, krt_replay): a replay computes what the same commands launched one
 * by one compute, copies, fills and host tasks included; two recordings with pointers swapped step ping-pong;
 * replays wait and signal like a launch, run on any queue of the context, from several threads at once; and the
 * misuses (begin twice, end without begin, a synchronize of a recording queue, a replay on another context's queue
 * or on a recording queue) fail with their documented codes. Every value is checked. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "krt_test.h"

TestSuite(record, .timeout = KT_TEST_TIMEOUT);

#define N 3000 /* not a multiple of any group size: the last group is partial */

typedef struct {
    krt_context *ctx;
    krt_module *m;
    krt_kernel *iota, *scale, *dbl, *count;
} fixture;

static fixture setup(void)
{
    fixture f;
    f.ctx = kt_context(NULL);
    f.m = kt_module(f.ctx, "krt_basic");
    f.iota = kt_kernel(f.m, "krt_iota");
    f.scale = kt_kernel(f.m, "krt_scale");
    f.dbl = kt_kernel(f.m, "krt_double");
    f.count = kt_kernel(f.m, "krt_count1");
    return f;
}

static krt_result iota(fixture *f, krt_queue *q, void *out, uint32_t n, uint32_t base)
{
    krt_arg args[] = { KRT_ARG(out), KRT_ARG(n), KRT_ARG(base) };
    krt_launch_desc d = kt_desc1(n, args, 3);
    d.queue = q;
    return krt_launch(f->iota, &d);
}

static krt_result scale(fixture *f, krt_queue *q, void *data, int32_t factor, uint32_t n)
{
    krt_arg args[] = { KRT_ARG(data), KRT_ARG(factor), KRT_ARG(n) };
    krt_launch_desc d = kt_desc1(n, args, 3);
    d.queue = q;
    return krt_launch(f->scale, &d);
}

static krt_result dbl(fixture *f, krt_queue *q, const void *in, void *out, uint32_t n)
{
    krt_arg args[] = { KRT_ARG(in), KRT_ARG(out), KRT_ARG(n) };
    krt_launch_desc d = kt_desc1(n, args, 3);
    d.queue = q;
    return krt_launch(f->dbl, &d);
}

static krt_result count(fixture *f, krt_queue *q, void *hits, uint32_t n)
{
    krt_arg args[] = { KRT_ARG(hits), KRT_ARG(n) };
    krt_launch_desc d = kt_desc1(n, args, 2);
    d.queue = q;
    return krt_launch(f->count, &d);
}

/* The sequence under test: a = iota(base); a *= 3; b = 2 * a; c = b (copy); d = fill 0x5a; hits += 1, with the
 * scalar values changed after each call so that a replay shows it captured them. */
static void sequence(fixture *f, krt_queue *q, int32_t *a, int32_t *b, int32_t *c, uint8_t *d, uint32_t *hits)
{
    uint32_t n = N, base = 11;
    KT_OK(iota(f, q, a, n, base));
    base = 99; /* captured at the call: a replay must not see this */
    (void)base;
    KT_OK(scale(f, q, a, 3, n));
    KT_OK(dbl(f, q, a, b, n));
    KT_OK(krt_memcpy(f->ctx, q, c, b, n * sizeof *c));
    uint8_t pattern = 0x5a;
    KT_OK(krt_memfill(f->ctx, q, d, &pattern, 1, n));
    KT_OK(count(f, q, hits, n));
}

static void check(const int32_t *c, const uint8_t *d, const uint32_t *hits, uint32_t runs)
{
    for (uint32_t i = 0; i < N; i++) {
        cr_assert_eq(c[i], 2 * 3 * (int32_t)(11 + i), "c[%u] = %d", i, c[i]);
        cr_assert_eq(d[i], 0x5a, "d[%u] = %#x", i, d[i]);
        cr_assert_eq(hits[i], runs, "hits[%u] = %u after %u runs", i, hits[i], runs);
    }
}

Test(record, replay_equals_launches_one_by_one)
{
    fixture f = setup();
    size_t bytes = N * sizeof(int32_t);
    /* One set of buffers for the launches one by one, one for the replays. */
    int32_t *a[2], *b[2], *c[2];
    uint8_t *d[2];
    uint32_t *hits[2];
    for (int s = 0; s < 2; s++) {
        a[s] = kt_alloc(f.ctx, bytes, KRT_MEMORY_SHARED);
        b[s] = kt_alloc(f.ctx, bytes, KRT_MEMORY_DEVICE);
        c[s] = kt_alloc(f.ctx, bytes, KRT_MEMORY_SHARED);
        d[s] = kt_alloc(f.ctx, N, KRT_MEMORY_SHARED);
        hits[s] = kt_alloc(f.ctx, bytes, KRT_MEMORY_SHARED);
        memset(hits[s], 0, bytes);
        memset(c[s], 0, bytes);
        memset(d[s], 0, N);
    }
    krt_queue *q = krt_context_default_queue(f.ctx);
    KT_OK(krt_recording_begin(q, NULL));
    sequence(&f, q, a[1], b[1], c[1], d[1], hits[1]);
    krt_recording *rec;
    KT_OK(krt_recording_end(q, &rec));
    /* Nothing ran while recording. */
    KT_OK(krt_queue_synchronize(q));
    for (uint32_t i = 0; i < N; i++)
        cr_assert(hits[1][i] == 0 && c[1][i] == 0 && d[1][i] == 0, "item %u ran while recording", i);

    krt_recording_info info;
    KT_OK(krt_recording_info_get(rec, &info));
    cr_assert_eq(info.num_launches, 4);
    cr_assert_eq(info.num_copies, 1);
    cr_assert_eq(info.num_fills, 1);
    cr_assert_eq(info.num_host_tasks, 0);
    cr_assert_eq(info.num_commands, 6);
    cr_assert_eq(info.replays, 0);

    for (uint32_t run = 1; run <= 5; run++) {
        sequence(&f, q, a[0], b[0], c[0], d[0], hits[0]);
        KT_OK(krt_replay(rec, &(krt_replay_desc){ .queue = q }));
        KT_OK(krt_queue_synchronize(q));
        check(c[0], d[0], hits[0], run);
        check(c[1], d[1], hits[1], run);
        cr_assert_eq(memcmp(a[0], a[1], bytes), 0, "a differs after %u runs", run);
    }
    KT_OK(krt_recording_info_get(rec, &info));
    cr_assert_eq(info.replays, 5);
    /* Many replays queued before one wait. */
    for (int i = 0; i < 100; i++)
        KT_OK(krt_replay(rec, &(krt_replay_desc){ 0 }));
    KT_OK(krt_queue_synchronize(q));
    check(c[1], d[1], hits[1], 105);
    krt_recording_destroy(rec);
    krt_recording_destroy(NULL);
    krt_context_destroy(f.ctx);
}

/* Ping-pong: x -> y in one recording, y -> x in the other, each step doubling; a replay cannot change a pointer,
 * two recordings can. */
Test(record, pointer_swap_ping_pong)
{
    fixture f = setup();
    size_t bytes = N * sizeof(int32_t);
    int32_t *x = kt_alloc(f.ctx, bytes, KRT_MEMORY_SHARED), *y = kt_alloc(f.ctx, bytes, KRT_MEMORY_SHARED);
    for (uint32_t i = 0; i < N; i++)
        x[i] = (int32_t)(i % 7) - 3;
    krt_queue *q;
    KT_OK(krt_queue_create(f.ctx, NULL, &q));
    krt_recording *even, *odd;
    KT_OK(krt_recording_begin(q, NULL));
    KT_OK(dbl(&f, q, x, y, N));
    KT_OK(krt_recording_end(q, &even));
    KT_OK(krt_recording_begin(q, NULL));
    KT_OK(dbl(&f, q, y, x, N));
    KT_OK(krt_recording_end(q, &odd));
    for (int step = 0; step < 20; step++)
        KT_OK(krt_replay(step % 2 ? odd : even, &(krt_replay_desc){ .queue = q }));
    KT_OK(krt_queue_synchronize(q));
    for (uint32_t i = 0; i < N; i++) {
        cr_assert_eq(x[i], ((int32_t)(i % 7) - 3) * (1 << 20), "x[%u] = %d", i, x[i]);
        cr_assert_eq(y[i], ((int32_t)(i % 7) - 3) * (1 << 19), "y[%u] = %d", i, y[i]);
    }
    krt_recording_destroy(even);
    krt_recording_destroy(odd);
    krt_queue_destroy(q);
    krt_context_destroy(f.ctx);
}

/* Recorded on one queue, replayed on others, waiting on a gate event and signalling an event. */
Test(record, replay_on_other_queue_with_events)
{
    fixture f = setup();
    size_t bytes = N * sizeof(int32_t);
    int32_t *a = kt_alloc(f.ctx, bytes, KRT_MEMORY_SHARED);
    krt_queue *q1, *q2;
    KT_OK(krt_queue_create(f.ctx, NULL, &q1));
    KT_OK(krt_queue_create(f.ctx, NULL, &q2));
    krt_recording *rec;
    KT_OK(krt_recording_begin(q1, NULL));
    KT_OK(scale(&f, q1, a, 2, N));
    KT_OK(krt_recording_end(q1, &rec));
    for (uint32_t i = 0; i < N; i++)
        a[i] = (int32_t)i;
    krt_event *gate, *done;
    KT_OK(krt_event_create(f.ctx, NULL, &gate));
    KT_OK(krt_event_create(f.ctx, NULL, &done));
    KT_OK(krt_replay(rec, &(krt_replay_desc){ .queue = q2, .wait = &gate, .num_wait = 1, .signal = done }));
    /* Later work on q2 waits for the replay, which waits for the gate. */
    KT_OK(scale(&f, q2, a, 5, N));
    KT_EXPECT(krt_event_synchronize(done, 50 * 1000000ull), KRT_TIMEOUT);
    KT_EXPECT(krt_queue_synchronize_timeout(q2, 0), KRT_TIMEOUT);
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(a[i], (int32_t)i, "a[%u] changed before the gate opened", i);
    KT_OK(krt_replay(rec, &(krt_replay_desc){ .queue = q1 })); /* q1 is not held by the gate... */
    KT_OK(krt_queue_synchronize(q1));
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(a[i], 2 * (int32_t)i, "a[%u] = %d after the ungated replay", i, a[i]);
    /* ...and an empty recording, replayed on q1, opens the gate: a replay only orders and signals. */
    krt_recording *empty;
    KT_OK(krt_recording_begin(q1, NULL));
    KT_OK(krt_recording_end(q1, &empty));
    KT_OK(krt_replay(empty, &(krt_replay_desc){ .queue = q1, .signal = gate }));
    KT_OK(krt_event_synchronize(done, UINT64_MAX));
    KT_OK(krt_queue_synchronize(q2));
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(a[i], 2 * 2 * 5 * (int32_t)i, "a[%u] = %d", i, a[i]);
    krt_recording_destroy(rec);
    krt_recording_destroy(empty);
    krt_event_destroy(gate);
    krt_event_destroy(done);
    krt_queue_destroy(q1);
    krt_queue_destroy(q2);
    krt_context_destroy(f.ctx);
}

typedef struct {
    int32_t *a;
    atomic_int calls;
    atomic_int bad;
    int32_t expect;
} task_data;

/* Runs between the recorded scale and the recorded iota: sees a scaled by 3 and checks it, then writes a[0]. */
static void check_then_mark(void *p)
{
    task_data *t = p;
    for (uint32_t i = 1; i < N; i++)
        if (t->a[i] != 3 * (int32_t)(100 + i))
            atomic_fetch_add(&t->bad, 1);
    t->a[0] = -1;
    atomic_fetch_add(&t->calls, 1);
}

Test(record, host_tasks_replay_in_order)
{
    fixture f = setup();
    size_t bytes = N * sizeof(int32_t);
    int32_t *a = kt_alloc(f.ctx, bytes, KRT_MEMORY_SHARED), *b = kt_alloc(f.ctx, bytes, KRT_MEMORY_SHARED);
    task_data t = { .a = a };
    atomic_init(&t.calls, 0);
    atomic_init(&t.bad, 0);
    krt_queue *q;
    KT_OK(krt_queue_create(f.ctx, NULL, &q));
    krt_recording *rec;
    KT_OK(krt_recording_begin(q, NULL));
    KT_OK(iota(&f, q, a, N, 100));
    KT_OK(scale(&f, q, a, 3, N));
    KT_OK(krt_host_task(f.ctx, &(krt_host_task_desc){ .fn = check_then_mark, .data = &t, .queue = q }));
    KT_OK(dbl(&f, q, a, b, N));
    KT_OK(krt_recording_end(q, &rec));
    KT_OK(krt_queue_synchronize(q));
    cr_assert_eq(atomic_load(&t.calls), 0, "a recorded host task ran while recording");
    krt_recording_info info;
    KT_OK(krt_recording_info_get(rec, &info));
    cr_assert_eq(info.num_host_tasks, 1);
    cr_assert_eq(info.num_launches, 3);
    /* Replays on the recording queue and on the default queue, mixed with a host task of the queue's own. */
    for (int i = 0; i < 6; i++) {
        KT_OK(krt_replay(rec, &(krt_replay_desc){ .queue = i % 2 ? q : NULL }));
        KT_OK(krt_queue_synchronize(i % 2 ? q : krt_context_default_queue(f.ctx)));
        cr_assert_eq(b[0], -2, "b[0] = %d: the kernel after the host task ran before it", b[0]);
        for (uint32_t k = 1; k < N; k++)
            cr_assert_eq(b[k], 6 * (int32_t)(100 + k), "b[%u] = %d", k, b[k]);
    }
    cr_assert_eq(atomic_load(&t.calls), 6);
    cr_assert_eq(atomic_load(&t.bad), 0, "a host task saw the kernel before it unfinished");
    krt_recording_destroy(rec);
    krt_queue_destroy(q);
    krt_context_destroy(f.ctx);
}

/* Host memory a recorded copy reads is read at each replay: its contents may change between replays. */
Test(record, copy_reads_at_replay)
{
    fixture f = setup();
    int32_t host[64];
    int32_t *dev = kt_alloc(f.ctx, sizeof host, KRT_MEMORY_DEVICE);
    int32_t back[64];
    krt_queue *q = krt_context_default_queue(f.ctx);
    krt_recording *rec;
    KT_OK(krt_recording_begin(q, NULL));
    KT_OK(krt_memcpy(f.ctx, q, dev, host, sizeof host));
    KT_OK(scale(&f, q, dev, -1, 64));
    KT_OK(krt_memcpy(f.ctx, q, back, dev, sizeof back));
    KT_OK(krt_recording_end(q, &rec));
    for (int run = 0; run < 3; run++) {
        for (int i = 0; i < 64; i++)
            host[i] = run * 1000 + i;
        KT_OK(krt_replay(rec, &(krt_replay_desc){ 0 }));
        KT_OK(krt_queue_synchronize(q));
        for (int i = 0; i < 64; i++)
            cr_assert_eq(back[i], -(run * 1000 + i), "run %d: back[%d] = %d", run, i, back[i]);
    }
    krt_recording_destroy(rec);
    krt_context_destroy(f.ctx);
}

Test(record, misuse_codes)
{
    fixture f = setup();
    krt_queue *q = krt_context_default_queue(f.ctx);
    krt_recording *rec = NULL;
    int32_t *a = kt_alloc(f.ctx, N * sizeof(int32_t), KRT_MEMORY_SHARED);
    KT_EXPECT(krt_recording_end(q, &rec), KRT_ERROR_INVALID_STATE);
    KT_EXPECT(krt_recording_begin(NULL, NULL), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_recording_begin(q, &(krt_recording_desc){ .flags = 1 }), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_recording_end(NULL, &rec), KRT_ERROR_INVALID_ARGUMENT);
    KT_OK(krt_recording_begin(q, NULL));
    KT_EXPECT(krt_recording_begin(q, NULL), KRT_ERROR_INVALID_STATE);
    KT_EXPECT(krt_recording_end(q, NULL), KRT_ERROR_INVALID_ARGUMENT);
    /* A launch is recorded; waiting for the recording queue is refused, with or without krt_launch_sync. */
    KT_OK(iota(&f, q, a, N, 1));
    krt_arg args[] = { KRT_ARG(a), KRT_U32(N), KRT_U32(5) };
    krt_launch_desc d = kt_desc1(N, args, 3);
    KT_EXPECT(krt_launch_sync(f.iota, &d), KRT_ERROR_INVALID_STATE);
    KT_EXPECT(krt_queue_synchronize(q), KRT_ERROR_INVALID_STATE);
    KT_EXPECT(krt_queue_synchronize_timeout(q, 0), KRT_ERROR_INVALID_STATE);
    KT_EXPECT(krt_memcpy_sync(f.ctx, q, a, a + 1, 0), KRT_ERROR_INVALID_STATE);
    /* The context's synchronize waits for what ran before the begin and ignores the recorded commands. */
    KT_OK(krt_context_synchronize(f.ctx));
    /* A recording's arguments are still checked when recorded. */
    int32_t stack[4], *sp = stack;
    krt_arg bad[] = { KRT_ARG(sp), KRT_U32(N), KRT_U32(5) };
    krt_launch_desc bd = kt_desc1(N, bad, 3);
    KT_EXPECT(krt_launch(f.iota, &bd), KRT_ERROR_INVALID_POINTER);
    KT_OK(krt_recording_end(q, &rec));
    krt_recording_info info;
    KT_OK(krt_recording_info_get(rec, &info));
    cr_assert_eq(info.num_launches, 2);
    KT_EXPECT(krt_recording_info_get(rec, NULL), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_recording_info_get(NULL, &info), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_replay(NULL, &(krt_replay_desc){ 0 }), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_replay(rec, NULL), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_replay(rec, &(krt_replay_desc){ .num_wait = 1 }), KRT_ERROR_INVALID_ARGUMENT);
    krt_event *none = NULL;
    KT_EXPECT(krt_replay(rec, &(krt_replay_desc){ .wait = &none, .num_wait = 1 }), KRT_ERROR_INVALID_ARGUMENT);
    /* Another context's queue and events. */
    krt_context *other = kt_context(NULL);
    krt_event *ev;
    KT_OK(krt_event_create(other, NULL, &ev));
    KT_EXPECT(krt_replay(rec, &(krt_replay_desc){ .queue = krt_context_default_queue(other) }),
              KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_replay(rec, &(krt_replay_desc){ .signal = ev }), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_replay(rec, &(krt_replay_desc){ .wait = &ev, .num_wait = 1 }), KRT_ERROR_INVALID_ARGUMENT);
    krt_event_destroy(ev);
    krt_context_destroy(other);
    /* A replay on a queue that records is refused (a replay is not recorded). */
    krt_queue *q2;
    KT_OK(krt_queue_create(f.ctx, NULL, &q2));
    KT_OK(krt_recording_begin(q2, NULL));
    KT_EXPECT(krt_replay(rec, &(krt_replay_desc){ .queue = q2 }), KRT_ERROR_INVALID_STATE);
    /* The recorded launches run at the replay: a = 1 + i, then 5 + i. */
    KT_OK(krt_replay(rec, &(krt_replay_desc){ .queue = q }));
    KT_OK(krt_queue_synchronize(q));
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(a[i], (int32_t)(5 + i), "a[%u] = %d", i, a[i]);
    /* A queue destroyed while it records drops its recording; a recording not destroyed goes with its context. */
    krt_queue_destroy(q2);
    krt_context_destroy(f.ctx);
}

/* Destroying a recording while its replays are queued waits for them: every replay runs whole. */
Test(record, destroy_while_replaying)
{
    fixture f = setup();
    uint32_t *hits = kt_alloc(f.ctx, N * sizeof(uint32_t), KRT_MEMORY_SHARED);
    memset(hits, 0, N * sizeof(uint32_t));
    krt_queue *q = krt_context_default_queue(f.ctx);
    krt_recording *rec;
    KT_OK(krt_recording_begin(q, NULL));
    for (int i = 0; i < 4; i++)
        KT_OK(count(&f, q, hits, N));
    KT_OK(krt_recording_end(q, &rec));
    for (int i = 0; i < 50; i++)
        KT_OK(krt_replay(rec, &(krt_replay_desc){ 0 }));
    krt_recording_destroy(rec);
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(hits[i], 200, "hits[%u] = %u", i, hits[i]);
    KT_OK(krt_queue_synchronize(q));
    krt_context_destroy(f.ctx);
}

/* Thread safety: eight threads replay one shared recording (counting into one buffer with atomics) on queues
 * of their own, while each also records and replays a recording of its own. */
typedef struct {
    fixture *f;
    krt_recording *shared;
    uint32_t *own;
    int failures;
} worker_arg;

#define THREADS 8
#define REPLAYS 40

static void *worker(void *p)
{
    worker_arg *w = p;
    krt_queue *q;
    if (krt_queue_create(w->f->ctx, NULL, &q) != KRT_SUCCESS) {
        w->failures++;
        return NULL;
    }
    krt_recording *mine = NULL;
    if (krt_recording_begin(q, NULL) != KRT_SUCCESS || count(w->f, q, w->own, N) != KRT_SUCCESS ||
        krt_recording_end(q, &mine) != KRT_SUCCESS)
        w->failures++;
    for (int i = 0; i < REPLAYS && mine; i++) {
        if (krt_replay(w->shared, &(krt_replay_desc){ .queue = q }) != KRT_SUCCESS)
            w->failures++;
        if (krt_replay(mine, &(krt_replay_desc){ .queue = q }) != KRT_SUCCESS)
            w->failures++;
    }
    if (krt_queue_synchronize(q) != KRT_SUCCESS)
        w->failures++;
    krt_queue_destroy(q);
    if (mine)
        krt_recording_destroy(mine);
    return NULL;
}

Test(record, threads)
{
    fixture f = setup();
    uint32_t *hits = kt_alloc(f.ctx, N * sizeof(uint32_t), KRT_MEMORY_SHARED);
    memset(hits, 0, N * sizeof(uint32_t));
    krt_queue *q = krt_context_default_queue(f.ctx);
    krt_recording *shared;
    KT_OK(krt_recording_begin(q, NULL));
    KT_OK(count(&f, q, hits, N));
    KT_OK(krt_recording_end(q, &shared));
    pthread_t th[THREADS];
    worker_arg args[THREADS];
    for (int t = 0; t < THREADS; t++) {
        args[t] = (worker_arg){ &f, shared, kt_alloc(f.ctx, N * sizeof(uint32_t), KRT_MEMORY_SHARED), 0 };
        memset(args[t].own, 0, N * sizeof(uint32_t));
        cr_assert_eq(pthread_create(&th[t], NULL, worker, &args[t]), 0);
    }
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < THREADS; t++) {
        cr_assert_eq(args[t].failures, 0, "thread %d: %d calls failed", t, args[t].failures);
        for (uint32_t i = 0; i < N; i++)
            cr_assert_eq(args[t].own[i], REPLAYS, "thread %d: own[%u] = %u", t, i, args[t].own[i]);
    }
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(hits[i], THREADS * REPLAYS, "hits[%u] = %u", i, hits[i]);
    krt_recording_destroy(shared);
    krt_context_destroy(f.ctx);
}

/* A recorded host task that calls krt (an allocation takes the context's lock) while the recording is destroyed
 * with its replays still queued: the destroy waits for them without holding that lock. */
typedef struct {
    krt_context *ctx;
    atomic_int calls, failed;
} alloc_task;

static void alloc_and_free(void *p)
{
    alloc_task *t = p;
    void *mem = NULL;
    if (krt_alloc(t->ctx, 4096, NULL, &mem) != KRT_SUCCESS || krt_free(t->ctx, mem) != KRT_SUCCESS)
        atomic_fetch_add(&t->failed, 1);
    atomic_fetch_add(&t->calls, 1);
}

Test(record, destroy_waits_for_host_tasks_that_call_krt)
{
    fixture f = setup();
    alloc_task t = { .ctx = f.ctx };
    atomic_init(&t.calls, 0);
    atomic_init(&t.failed, 0);
    uint32_t *hits = kt_alloc(f.ctx, N * sizeof(uint32_t), KRT_MEMORY_SHARED);
    memset(hits, 0, N * sizeof(uint32_t));
    krt_queue *q;
    KT_OK(krt_queue_create(f.ctx, NULL, &q));
    krt_recording *rec;
    KT_OK(krt_recording_begin(q, NULL));
    KT_OK(count(&f, q, hits, N));
    KT_OK(krt_host_task(f.ctx, &(krt_host_task_desc){ .fn = alloc_and_free, .data = &t, .queue = q }));
    KT_OK(count(&f, q, hits, N));
    KT_OK(krt_recording_end(q, &rec));
    for (int i = 0; i < 10; i++)
        KT_OK(krt_replay(rec, &(krt_replay_desc){ .queue = q }));
    krt_recording_destroy(rec);
    cr_assert_eq(atomic_load(&t.calls), 10);
    cr_assert_eq(atomic_load(&t.failed), 0);
    KT_OK(krt_queue_synchronize(q));
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(hits[i], 20, "hits[%u] = %u", i, hits[i]);
    krt_queue_destroy(q);
    krt_context_destroy(f.ctx);
}
