/* Eight threads launching the same kernel and different kernels at once, on shared and own queues, with
 * changing arguments and ranges; every result is checked. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "krt_test.h"

TestSuite(threads, .timeout = KT_TEST_TIMEOUT);

#define THREADS 8
#define ROUNDS 40

typedef struct {
    krt_context *ctx;
    krt_module *m;
    pthread_barrier_t start;
    krt_kernel *got[THREADS]; /* what each thread's krt_kernel_get returned */
} shared_state;

typedef struct {
    shared_state *s;
    int id;
    int failures; /* wrong values seen */
    krt_result first_error;
} thread_arg;

static void note_error(thread_arg *t, krt_result r)
{
    if (r != KRT_SUCCESS && t->first_error == KRT_SUCCESS)
        t->first_error = r;
}

/* krt_iota with a base unique to (thread, round), on the thread's own queue or the default one, with a
 * dynamic or a static group size. */
static void round_iota(thread_arg *t, krt_kernel *k, krt_queue *q, uint32_t *out, int round)
{
    uint32_t n = 1000 + (uint32_t)(t->id * 97 + round * 13) % 3000;
    uint32_t base = (uint32_t)t->id * 1000000u + (uint32_t)round * 10000u;
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(n), KRT_ARG(base)};
    krt_launch_desc d = kt_desc1(n, args, 3);
    d.queue = q;
    if (round % 3 == 1)
        d.group[0] = 32u << (round % 4);
    krt_result r = krt_launch_sync(k, &d);
    note_error(t, r);
    if (r != KRT_SUCCESS)
        return;
    for (uint32_t i = 0; i < n; i++)
        if (out[i] != base + i) {
            t->failures++;
            break;
        }
}

/* krt_scale of a buffer of known values. */
static void round_scale(thread_arg *t, krt_kernel *k, krt_queue *q, int32_t *buf, int round)
{
    uint32_t n = 2048 + (uint32_t)round * 7;
    int32_t factor = t->id + round + 2;
    for (uint32_t i = 0; i < n; i++)
        buf[i] = (int32_t)i - 1000;
    krt_arg args[] = {KRT_ARG(buf), KRT_ARG(factor), KRT_ARG(n)};
    krt_launch_desc d = kt_desc1(n, args, 3);
    d.queue = q;
    krt_result r = krt_launch_sync(k, &d);
    note_error(t, r);
    if (r != KRT_SUCCESS)
        return;
    for (uint32_t i = 0; i < n; i++)
        if (buf[i] != ((int32_t)i - 1000) * factor) {
            t->failures++;
            break;
        }
}

/* krt_vadd with a second operand unique to (thread, round). */
static void round_vadd(thread_arg *t, krt_kernel *k, krt_queue *q, float *a, float *b, float *c, int round)
{
    uint32_t n = 3000 - (uint32_t)round * 11;
    float add = (float)(t->id * 100 + round);
    for (uint32_t i = 0; i < n; i++) {
        a[i] = (float)i;
        b[i] = add;
    }
    krt_arg args[] = {KRT_ARG(a), KRT_ARG(b), KRT_ARG(c), KRT_ARG(n)};
    krt_launch_desc d = kt_desc1(n, args, 4);
    d.queue = q;
    krt_result r = krt_launch_sync(k, &d);
    note_error(t, r);
    if (r != KRT_SUCCESS)
        return;
    for (uint32_t i = 0; i < n; i++)
        if (c[i] != (float)i + add) {
            t->failures++;
            break;
        }
}

static void *worker(void *p)
{
    thread_arg *t = p;
    shared_state *s = t->s;
    enum { CAP = 4096 };
    krt_queue *q = NULL;
    if (t->id % 2 == 1)
        note_error(t, krt_queue_create(s->ctx, NULL, &q));
    krt_alloc_desc shared = {.kind = KRT_MEMORY_SHARED};
    void *b1 = NULL, *b2 = NULL, *b3 = NULL;
    note_error(t, krt_alloc(s->ctx, CAP * 4, &shared, &b1));
    note_error(t, krt_alloc(s->ctx, CAP * 4, &shared, &b2));
    note_error(t, krt_alloc(s->ctx, CAP * 4, &shared, &b3));
    pthread_barrier_wait(&s->start);
    if (t->first_error != KRT_SUCCESS)
        return NULL;
    /* Every thread resolves the same kernel at the same moment. */
    krt_kernel *iota = NULL, *scale = NULL, *vadd = NULL;
    note_error(t, krt_kernel_get(s->m, "krt_iota", &iota));
    note_error(t, krt_kernel_get(s->m, "krt_scale", &scale));
    note_error(t, krt_kernel_get(s->m, "krt_vadd", &vadd));
    s->got[t->id] = iota;
    if (t->first_error != KRT_SUCCESS)
        return NULL;
    for (int round = 0; round < ROUNDS; round++) {
        /* Threads 0-3 all hammer krt_iota; threads 4-7 cycle through the three kernels. */
        int which = t->id < 4 ? 0 : (t->id + round) % 3;
        if (which == 0)
            round_iota(t, iota, q, b1, round);
        else if (which == 1)
            round_scale(t, scale, q, b2, round);
        else
            round_vadd(t, vadd, q, b1, b2, b3, round);
    }
    note_error(t, krt_free(s->ctx, b1));
    note_error(t, krt_free(s->ctx, b2));
    note_error(t, krt_free(s->ctx, b3));
    krt_queue_destroy(q);
    return NULL;
}

Test(threads, eight_threads_same_and_different_kernels)
{
    shared_state s;
    memset(&s, 0, sizeof s);
    s.ctx = kt_context(NULL);
    s.m = kt_module(s.ctx, "krt_basic");
    cr_assert_eq(pthread_barrier_init(&s.start, NULL, THREADS), 0);
    pthread_t th[THREADS];
    thread_arg args[THREADS];
    for (int i = 0; i < THREADS; i++) {
        args[i] = (thread_arg){.s = &s, .id = i, .failures = 0, .first_error = KRT_SUCCESS};
        cr_assert_eq(pthread_create(&th[i], NULL, worker, &args[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        cr_assert_eq(pthread_join(th[i], NULL), 0);
    for (int i = 0; i < THREADS; i++) {
        cr_assert_eq(args[i].first_error, KRT_SUCCESS, "thread %d: %s", i, krt_result_name(args[i].first_error));
        cr_assert_eq(args[i].failures, 0, "thread %d saw %d wrong results", i, args[i].failures);
        cr_assert_eq(s.got[i], s.got[0], "thread %d got another handle for krt_iota", i);
    }
    pthread_barrier_destroy(&s.start);
    krt_module_destroy(s.m);
    krt_context_destroy(s.ctx);
}

typedef struct {
    krt_kernel *k;
    pthread_barrier_t *start;
    int id;
    krt_launch_config cfg[4];
    krt_result r;
} config_arg;

static const krt_ndrange config_ranges[4] = {{1, {1000003, 0, 0}}, {1, {4096, 0, 0}}, {2, {300, 200, 0}},
                                             {3, {64, 64, 64}}};

static void *config_worker(void *p)
{
    config_arg *a = p;
    pthread_barrier_wait(a->start);
    a->r = KRT_SUCCESS;
    for (int rep = 0; rep < 50 && a->r == KRT_SUCCESS; rep++)
        for (int i = 0; i < 4 && a->r == KRT_SUCCESS; i++)
            a->r = krt_launch_config_get(a->k, &config_ranges[(i + a->id) % 4], &a->cfg[(i + a->id) % 4]);
    return NULL;
}

/* The configuration memo filled from eight threads at once gives every thread the same answers. */
Test(threads, concurrent_configuration_queries_agree)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_basic");
    krt_kernel *k = kt_kernel(m, "krt_count3");
    pthread_barrier_t start;
    cr_assert_eq(pthread_barrier_init(&start, NULL, THREADS), 0);
    pthread_t th[THREADS];
    config_arg args[THREADS];
    for (int i = 0; i < THREADS; i++) {
        memset(&args[i], 0, sizeof args[i]);
        args[i].k = k;
        args[i].start = &start;
        args[i].id = i;
        cr_assert_eq(pthread_create(&th[i], NULL, config_worker, &args[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        cr_assert_eq(pthread_join(th[i], NULL), 0);
    for (int i = 0; i < THREADS; i++) {
        cr_assert_eq(args[i].r, KRT_SUCCESS, "thread %d: %s", i, krt_result_name(args[i].r));
        for (int j = 0; j < 4; j++) {
            cr_assert_arr_eq(args[i].cfg[j].group, args[0].cfg[j].group, sizeof args[0].cfg[j].group,
                             "thread %d range %d", i, j);
            cr_assert_arr_eq(args[i].cfg[j].groups, args[0].cfg[j].groups, sizeof args[0].cfg[j].groups);
            cr_assert_eq(args[i].cfg[j].limit, args[0].cfg[j].limit);
        }
    }
    /* And they equal a fresh single-threaded query. */
    for (int j = 0; j < 4; j++) {
        krt_launch_config c;
        KT_OK(krt_launch_config_get(k, &config_ranges[j], &c));
        cr_assert_arr_eq(c.group, args[0].cfg[j].group, sizeof c.group);
    }
    pthread_barrier_destroy(&start);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

typedef struct {
    pthread_barrier_t *start;
    krt_context *shared_ctx; /* NULL: each thread makes its own context */
    int id;
    krt_result r;
    int wrong;
    const char *step;
} life_arg;

#define LIFE_CHECK(a, call, name)                                                                          \
    do {                                                                                                   \
        (a)->r = (call);                                                                                   \
        if ((a)->r != KRT_SUCCESS) {                                                                       \
            (a)->step = (name);                                                                            \
            return NULL;                                                                                   \
        }                                                                                                  \
    } while (0)

/* A whole life: (context,) module, kernel, memory, launch, extension lookups, and teardown. */
static void *life_worker(void *p)
{
    life_arg *a = p;
    pthread_barrier_wait(a->start);
    krt_context *ctx = a->shared_ctx;
    if (!ctx) {
        uint32_t count = 0;
        LIFE_CHECK(a, krt_device_list(NULL, &count), "krt_device_list");
        LIFE_CHECK(a, krt_context_create(NULL, &ctx), "krt_context_create");
    }
    uint32_t next = 0;
    LIFE_CHECK(a, krt_context_extensions(ctx, NULL, &next), "krt_context_extensions");
    const char *names[64];
    uint32_t filled = next < 64 ? next : 64;
    LIFE_CHECK(a, krt_context_extensions(ctx, names, &filled), "krt_context_extensions fill");
    for (uint32_t i = 0; i < filled; i++)
        if (krt_context_has_extension(ctx, names[i]) != 1)
            a->wrong++;
    krt_module_desc md = {.path = kt_kernel_path("krt_basic")};
    krt_module *m = NULL;
    LIFE_CHECK(a, krt_module_create(ctx, &md, &m), "krt_module_create");
    krt_kernel *k = NULL;
    LIFE_CHECK(a, krt_kernel_get(m, "krt_iota", &k), "krt_kernel_get");
    krt_alloc_desc ad = {.kind = KRT_MEMORY_SHARED};
    uint32_t *out = NULL;
    const uint32_t n = 5000 + (uint32_t)a->id * 17, base = (uint32_t)a->id * 100000u;
    LIFE_CHECK(a, krt_alloc(ctx, n * 4, &ad, (void **)&out), "krt_alloc");
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(n), KRT_ARG(base)};
    krt_launch_desc d = kt_desc1(n, args, 3);
    LIFE_CHECK(a, krt_launch_sync(k, &d), "krt_launch_sync");
    for (uint32_t i = 0; i < n; i++)
        if (out[i] != base + i) {
            a->wrong++;
            break;
        }
    LIFE_CHECK(a, krt_free(ctx, out), "krt_free");
    krt_module_destroy(m);
    if (!a->shared_ctx)
        krt_context_destroy(ctx);
    return NULL;
}

static void run_lives(krt_context *shared)
{
    pthread_barrier_t start;
    cr_assert_eq(pthread_barrier_init(&start, NULL, THREADS), 0);
    pthread_t th[THREADS];
    life_arg args[THREADS];
    for (int i = 0; i < THREADS; i++) {
        args[i] = (life_arg){.start = &start, .shared_ctx = shared, .id = i, .r = KRT_SUCCESS, .step = ""};
        cr_assert_eq(pthread_create(&th[i], NULL, life_worker, &args[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        cr_assert_eq(pthread_join(th[i], NULL), 0);
    for (int i = 0; i < THREADS; i++) {
        cr_assert_eq(args[i].r, KRT_SUCCESS, "thread %d: %s failed with %s", i, args[i].step,
                     krt_result_name(args[i].r));
        cr_assert_eq(args[i].wrong, 0, "thread %d saw %d wrong results", i, args[i].wrong);
    }
    pthread_barrier_destroy(&start);
}

/* The process's first krt calls come from eight threads at once: zeInit and the driver cache are set up
 * once, safely. */
Test(threads, first_contexts_created_concurrently)
{
    run_lives(NULL);
}

/* Eight threads share one fresh context: modules, kernels, memory and the extension memo at once. */
Test(threads, one_context_shared_by_eight_threads)
{
    krt_context *ctx = kt_context(NULL);
    run_lives(ctx);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

typedef struct {
    krt_kernel *k;
    krt_queue *q; /* NULL: the default queue */
    uint32_t *slab; /* LAUNCHES slices of SLICE items for this thread */
    pthread_barrier_t *start;
    int id;
    krt_result r;
} flight_arg;

#define FLIGHT_LAUNCHES 60
#define SLICE 1024u

/* Many launches of one kernel in flight from each thread, none waited for until the end: each writes its own
 * slice (a pointer inside one allocation) with its own base, range and group size. */
static void *flight_worker(void *p)
{
    flight_arg *a = p;
    pthread_barrier_wait(a->start);
    for (int i = 0; i < FLIGHT_LAUNCHES; i++) {
        uint32_t *out = a->slab + (size_t)i * SLICE;
        uint32_t n = SLICE - (uint32_t)((i * 37 + a->id * 11) % 700);
        uint32_t base = (uint32_t)a->id * 1000000u + (uint32_t)i * 1000u;
        krt_arg args[] = {KRT_ARG(out), KRT_ARG(n), KRT_ARG(base)};
        krt_launch_desc d = kt_desc1(n, args, 3);
        d.queue = a->q;
        if (i % 4 == 3)
            d.group[0] = 16u << (i % 3);
        a->r = krt_launch(a->k, &d);
        if (a->r != KRT_SUCCESS)
            return NULL;
    }
    return NULL;
}

/* Runs flight_worker in eight threads; odd threads use a queue of their own when own_queues. */
static void run_flights(int own_queues)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_basic");
    krt_kernel *k = kt_kernel(m, "krt_iota");
    pthread_barrier_t start;
    cr_assert_eq(pthread_barrier_init(&start, NULL, THREADS), 0);
    pthread_t th[THREADS];
    flight_arg args[THREADS];
    for (int i = 0; i < THREADS; i++) {
        args[i] = (flight_arg){.k = k, .start = &start, .id = i, .r = KRT_SUCCESS};
        if (own_queues && i % 2)
            KT_OK(krt_queue_create(ctx, NULL, &args[i].q));
        args[i].slab = kt_alloc(ctx, (size_t)FLIGHT_LAUNCHES * SLICE * 4, KRT_MEMORY_SHARED);
        memset(args[i].slab, 0xff, (size_t)FLIGHT_LAUNCHES * SLICE * 4);
        cr_assert_eq(pthread_create(&th[i], NULL, flight_worker, &args[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        cr_assert_eq(pthread_join(th[i], NULL), 0);
    KT_OK(krt_context_synchronize(ctx));
    for (int t = 0; t < THREADS; t++) {
        cr_assert_eq(args[t].r, KRT_SUCCESS, "thread %d: %s", t, krt_result_name(args[t].r));
        for (int i = 0; i < FLIGHT_LAUNCHES; i++) {
            const uint32_t *out = args[t].slab + (size_t)i * SLICE;
            uint32_t n = SLICE - (uint32_t)((i * 37 + t * 11) % 700);
            uint32_t base = (uint32_t)t * 1000000u + (uint32_t)i * 1000u;
            for (uint32_t j = 0; j < SLICE; j++)
                cr_assert_eq(out[j], j < n ? base + j : 0xffffffffu, "thread %d launch %d item %u: %u", t, i, j,
                             out[j]);
        }
        krt_queue_destroy(args[t].q);
    }
    pthread_barrier_destroy(&start);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* All eight threads append to the context's default queue. */
Test(threads, same_kernel_many_launches_in_flight_one_queue)
{
    run_flights(0);
}

/* Four threads on the default queue, four on queues of their own. */
Test(threads, same_kernel_many_launches_in_flight_own_queues)
{
    run_flights(1);
}

typedef struct {
    krt_context *ctx;
    krt_kernel *k;
    krt_result r;
    uint32_t *out;
} churn_arg;

/* Creates a queue, launches on it and destroys it, again and again, checking each launch's result. */
static void *queue_churn(void *p)
{
    churn_arg *a = p;
    for (int i = 0; i < 40 && a->r == KRT_SUCCESS; i++) {
        krt_queue *q = NULL;
        if ((a->r = krt_queue_create(a->ctx, NULL, &q)) != KRT_SUCCESS)
            break;
        uint32_t n = SLICE, base = (uint32_t)i * 7u;
        krt_arg args[] = {KRT_ARG(a->out), KRT_ARG(n), KRT_ARG(base)};
        krt_launch_desc d = kt_desc1(n, args, 3);
        d.queue = q;
        a->r = krt_launch(a->k, &d);
        krt_queue_destroy(q); /* waits for the launch */
        for (uint32_t j = 0; a->r == KRT_SUCCESS && j < n; j++)
            if (a->out[j] != base + j)
                a->r = KRT_ERROR_DRIVER;
    }
    return NULL;
}

/* krt_context_synchronize on one thread while others create and destroy queues: a queue destroyed while a
 * synchronize of its context waits on it is freed after that wait, never under it. */
Test(threads, queues_destroyed_while_the_context_synchronizes)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_basic");
    krt_kernel *k = kt_kernel(m, "krt_iota");
    enum { CHURN = 3 };
    pthread_t th[CHURN];
    churn_arg args[CHURN];
    for (int i = 0; i < CHURN; i++) {
        args[i] = (churn_arg){.ctx = ctx, .k = k, .r = KRT_SUCCESS};
        args[i].out = kt_alloc(ctx, SLICE * 4, KRT_MEMORY_SHARED);
        cr_assert_eq(pthread_create(&th[i], NULL, queue_churn, &args[i]), 0);
    }
    int syncs = 0, joined[CHURN] = {0};
    for (;;) {
        KT_OK(krt_context_synchronize(ctx));
        syncs++;
        int running = 0;
        for (int i = 0; i < CHURN; i++) {
            if (!joined[i])
                joined[i] = pthread_tryjoin_np(th[i], NULL) == 0; /* a joined thread must not be joined again */
            running |= !joined[i];
        }
        if (!running)
            break;
    }
    for (int i = 0; i < CHURN; i++)
        cr_assert_eq(args[i].r, KRT_SUCCESS, "thread %d: %s", i, krt_result_name(args[i].r));
    cr_assert_gt(syncs, 0);
    kt_assert_usable(ctx);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}
