/* krt_host_task: C callbacks in queue order, against launches on one queue, across queues through events,
 * from eight threads at once, with an error inside the callback, and while a synchronize times out. Every
 * value a callback or a kernel computes is checked; a gate (a user event signalled only after everything is
 * appended) keeps the work pending, so that order comes from the queue and the events, not from timing. */
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "krt_test.h"

TestSuite(host_task, .timeout = KT_TEST_TIMEOUT);

#define N 4096

typedef struct {
    krt_context *ctx;
    krt_module *m;
    krt_kernel *iota, *scale;
} fixture;

static fixture setup(void)
{
    fixture f;
    f.ctx = kt_context(NULL);
    f.m = kt_module(f.ctx, "krt_basic");
    f.iota = kt_kernel(f.m, "krt_iota");
    f.scale = kt_kernel(f.m, "krt_scale");
    return f;
}

/* out[i] = base + i, on q, waiting on the events given. */
static krt_result launch_iota(fixture *f, krt_queue *q, uint32_t *out, uint32_t n, uint32_t base, krt_event *const *wait,
                              uint32_t num_wait, krt_event *signal)
{
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(n), KRT_ARG(base)};
    krt_launch_desc d = kt_desc1(n, args, 3);
    d.queue = q;
    d.wait = wait;
    d.num_wait = num_wait;
    d.signal = signal;
    return krt_launch(f->iota, &d);
}

/* data[i] *= factor, on q. */
static krt_result launch_scale(fixture *f, krt_queue *q, int32_t *data, uint32_t n, int32_t factor, krt_event *const *wait,
                               uint32_t num_wait, krt_event *signal)
{
    krt_arg args[] = {KRT_ARG(data), KRT_ARG(factor), KRT_ARG(n)};
    krt_launch_desc d = kt_desc1(n, args, 3);
    d.queue = q;
    d.wait = wait;
    d.num_wait = num_wait;
    d.signal = signal;
    return krt_launch(f->scale, &d);
}

static krt_result host_task(krt_context *ctx, krt_queue *q, krt_host_fn fn, void *data, krt_event *const *wait,
                            uint32_t num_wait, krt_event *signal)
{
    krt_host_task_desc d = {.fn = fn, .data = data, .queue = q, .signal = signal, .wait = wait, .num_wait = num_wait};
    return krt_host_task(ctx, &d);
}

/* ---- order against launches on one queue ------------------------------------------------------------------- */

typedef struct {
    int32_t *x;
    uint32_t n;
    int32_t base;   /* what the launch before the task wrote: base + i */
    int32_t factor; /* what the launch after the first task multiplies by */
    int wrong;      /* values the tasks found that the launches before them should not have left */
    int32_t *out;   /* the second task's copy of the final values */
} round_data;

/* Reads the iota launch's values, checks them, and writes 3 * x + 1 for the scale launch after it. */
static void transform_task(void *p)
{
    round_data *r = p;
    for (uint32_t i = 0; i < r->n; i++) {
        if (r->x[i] != r->base + (int32_t)i)
            r->wrong++;
        r->x[i] = 3 * r->x[i] + 1;
    }
}

/* Reads the scale launch's values, checks them and keeps them. */
static void collect_task(void *p)
{
    round_data *r = p;
    for (uint32_t i = 0; i < r->n; i++) {
        if (r->x[i] != (3 * (r->base + (int32_t)i) + 1) * r->factor)
            r->wrong++;
        r->out[i] = r->x[i];
    }
}

Test(host_task, order_against_launches_on_one_queue)
{
    enum { ROUNDS = 12 };
    fixture f = setup();
    krt_queue *q = krt_context_default_queue(f.ctx);
    int32_t *x = kt_alloc(f.ctx, N * sizeof(int32_t), KRT_MEMORY_SHARED);
    krt_event *gate;
    KT_OK(krt_event_create(f.ctx, NULL, &gate));
    round_data rounds[ROUNDS];
    /* Every round reuses x with nothing but the queue's order between them: a task that ran early or late would
     * see (and leave) another round's values. */
    for (int r = 0; r < ROUNDS; r++) {
        uint32_t n = N - (uint32_t)r * 37;
        rounds[r] = (round_data){x, n, 1000 * r, r + 2, 0, calloc(n, sizeof(int32_t))};
        cr_assert_not_null(rounds[r].out);
        KT_OK(launch_iota(&f, q, (uint32_t *)x, n, (uint32_t)rounds[r].base, r == 0 ? &gate : NULL, r == 0, NULL));
        KT_OK(host_task(f.ctx, q, transform_task, &rounds[r], NULL, 0, NULL));
        KT_OK(launch_scale(&f, q, x, n, rounds[r].factor, NULL, 0, NULL));
        KT_OK(host_task(f.ctx, q, collect_task, &rounds[r], NULL, 0, NULL));
    }
    KT_EXPECT(krt_queue_synchronize_timeout(q, 0), KRT_TIMEOUT);
    for (int r = 0; r < ROUNDS; r++)
        cr_assert_eq(rounds[r].out[0], 0, "round %d's task ran before the gate opened", r);
    /* A launch on another queue opens the gate. */
    krt_queue *q2;
    KT_OK(krt_queue_create(f.ctx, NULL, &q2));
    uint32_t *scratch = kt_alloc(f.ctx, 64 * sizeof(uint32_t), KRT_MEMORY_SHARED);
    KT_OK(launch_iota(&f, q2, scratch, 64, 0, NULL, 0, gate));
    KT_OK(krt_queue_synchronize(q));
    for (int r = 0; r < ROUNDS; r++) {
        cr_assert_eq(rounds[r].wrong, 0, "round %d: a task saw %d values of another round", r, rounds[r].wrong);
        for (uint32_t i = 0; i < rounds[r].n; i++)
            cr_assert_eq(rounds[r].out[i], (3 * (rounds[r].base + (int32_t)i) + 1) * rounds[r].factor,
                         "round %d item %u", r, i);
        free(rounds[r].out);
    }
    int32_t last = ROUNDS - 1;
    for (uint32_t i = 0; i < rounds[last].n; i++)
        cr_assert_eq(x[i], (3 * (1000 * last + (int32_t)i) + 1) * (last + 2));
    krt_queue_destroy(q2);
    krt_context_destroy(f.ctx);
}

/* ---- event waits across queues ------------------------------------------------------------------------------ */

typedef struct {
    const uint32_t *x;
    int32_t *y;
    uint32_t n;
    atomic_int ran;
} cross_data;

/* y = 2 * x, from the values a launch on the other queue wrote. */
static void double_task(void *p)
{
    cross_data *c = p;
    for (uint32_t i = 0; i < c->n; i++)
        c->y[i] = 2 * (int32_t)c->x[i];
    atomic_fetch_add(&c->ran, 1);
}

/* y += 1 after the first task, on a third queue. */
static void increment_task(void *p)
{
    cross_data *c = p;
    for (uint32_t i = 0; i < c->n; i++)
        c->y[i] += 1;
    atomic_fetch_add(&c->ran, 1);
}

Test(host_task, event_waits_across_queues)
{
    fixture f = setup();
    krt_queue *qa, *qb, *qc;
    KT_OK(krt_queue_create(f.ctx, NULL, &qa));
    KT_OK(krt_queue_create(f.ctx, NULL, &qb));
    KT_OK(krt_queue_create(f.ctx, NULL, &qc));
    uint32_t *x = kt_alloc(f.ctx, N * sizeof(uint32_t), KRT_MEMORY_SHARED);
    int32_t *y = kt_alloc(f.ctx, N * sizeof(int32_t), KRT_MEMORY_SHARED);
    memset(y, 0, N * sizeof(int32_t));
    krt_event *gate, *wrote_x, *doubled, *incremented, *scaled;
    KT_OK(krt_event_create(f.ctx, NULL, &gate));
    KT_OK(krt_event_create(f.ctx, NULL, &wrote_x));
    KT_OK(krt_event_create(f.ctx, NULL, &doubled));
    KT_OK(krt_event_create(f.ctx, NULL, &incremented));
    KT_OK(krt_event_create(f.ctx, NULL, &scaled));
    cross_data c = {x, y, N, 0};

    /* Appended in the reverse of the order they must run in, each on its own queue: only the events order them.
     * qc: y += 1 after doubled; qb: y = 2x after wrote_x; qa: x = 5 + i after the gate, then y *= 7 after
     * incremented (a launch waiting on a host task of another queue). */
    KT_OK(host_task(f.ctx, qc, increment_task, &c, &doubled, 1, incremented));
    KT_OK(host_task(f.ctx, qb, double_task, &c, &wrote_x, 1, doubled));
    KT_OK(launch_iota(&f, qa, x, N, 5, &gate, 1, wrote_x));
    KT_OK(launch_scale(&f, qa, y, N, 7, &incremented, 1, scaled));
    cr_assert_eq(krt_event_query(doubled), KRT_NOT_READY);
    cr_assert_eq(atomic_load(&c.ran), 0, "a host task ran before the events it waits on");

    /* Open the gate from a fourth queue, as a producer on another queue would. */
    krt_queue *qd;
    KT_OK(krt_queue_create(f.ctx, NULL, &qd));
    uint32_t *scratch = kt_alloc(f.ctx, 64 * sizeof(uint32_t), KRT_MEMORY_SHARED);
    KT_OK(launch_iota(&f, qd, scratch, 64, 0, NULL, 0, gate));

    KT_OK(krt_event_synchronize(scaled, UINT64_MAX));
    KT_OK(krt_event_query(doubled));
    KT_OK(krt_event_query(incremented));
    cr_assert_eq(atomic_load(&c.ran), 2);
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(y[i], (2 * (5 + (int32_t)i) + 1) * 7, "item %u", i);
    krt_context_destroy(f.ctx);
}

/* ---- an error inside the callback ------------------------------------------------------------------------- */

typedef struct {
    krt_context *ctx;
    krt_queue *q;
    krt_kernel *iota;
    uint32_t *x;
    /* What the callback reports: it returns void, so the caller's data carries its outcome. */
    int status;          /* 0 fine, -1 the input was wrong */
    krt_result own_sync, own_sync_timeout, ctx_sync, launch_sync, launch;
    int message_set;     /* krt_last_error_message on the callback's thread was non-empty after the refusal */
} error_data;

/* Finds a value it does not accept and reports it through data, then tries what a host task must not do. */
static void failing_task(void *p)
{
    error_data *e = p;
    if (e->x[0] != 123456u)
        e->status = -1;
    e->own_sync = krt_queue_synchronize(e->q);
    e->message_set = krt_last_error_message()[0] != '\0';
    e->own_sync_timeout = krt_queue_synchronize_timeout(e->q, 1000000);
    e->ctx_sync = krt_context_synchronize(e->ctx);
    krt_queue_destroy(e->q);   /* ignored: the queue is this task's */
    krt_context_destroy(e->ctx); /* ignored likewise */
    /* Launching on its own queue is allowed: it runs after this task. */
    uint32_t n = 64, base = 900;
    krt_arg args[] = {KRT_ARG(e->x), KRT_ARG(n), KRT_ARG(base)};
    krt_launch_desc d = kt_desc1(n, args, 3);
    d.queue = e->q;
    e->launch_sync = krt_launch_sync(e->iota, &d);
    e->launch = krt_launch(e->iota, &d);
}

static void check_after_task(void *p)
{
    error_data *e = p;
    /* The launches the failing task appended ran before this later task. */
    for (uint32_t i = 0; i < 64; i++)
        if (e->x[i] != 900 + i)
            e->status = -2;
}

Test(host_task, error_inside_the_callback_is_the_callers)
{
    fixture f = setup();
    krt_queue *q;
    KT_OK(krt_queue_create(f.ctx, NULL, &q));
    uint32_t *x = kt_alloc(f.ctx, 64 * sizeof(uint32_t), KRT_MEMORY_SHARED);
    error_data e = {.ctx = f.ctx, .q = q, .iota = f.iota, .x = x};
    krt_event *done;
    KT_OK(krt_event_create(f.ctx, NULL, &done));
    KT_OK(launch_iota(&f, q, x, 64, 7, NULL, 0, NULL));
    KT_OK(host_task(f.ctx, q, failing_task, &e, NULL, 0, done));
    KT_OK(krt_queue_synchronize(q));
    /* The callback's error is in data; krt's refusals are exact codes; the signal still fired. */
    cr_assert_eq(e.status, -1, "x[0] is 7, which the task must have refused");
    cr_assert_eq(e.own_sync, KRT_ERROR_INVALID_STATE);
    cr_assert_eq(e.own_sync_timeout, KRT_ERROR_INVALID_STATE);
    cr_assert_eq(e.ctx_sync, KRT_ERROR_INVALID_STATE);
    cr_assert_eq(e.launch_sync, KRT_ERROR_INVALID_STATE, "the launch is appended, the wait refused");
    cr_assert_eq(e.launch, KRT_SUCCESS);
    cr_assert(e.message_set);
    KT_OK(krt_event_query(done));
    /* The queue and the context survived the ignored destroys and still work, host tasks included. */
    e.status = 0;
    KT_OK(host_task(f.ctx, q, check_after_task, &e, NULL, 0, NULL));
    KT_OK(krt_queue_synchronize(q));
    cr_assert_eq(e.status, 0);
    KT_OK(launch_iota(&f, q, x, 64, 11, NULL, 0, NULL));
    KT_OK(krt_queue_synchronize(q));
    for (uint32_t i = 0; i < 64; i++)
        cr_assert_eq(x[i], 11 + i);
    kt_assert_usable(f.ctx);
    krt_queue_destroy(q);
    krt_context_destroy(f.ctx);
}

/* ---- eight threads at once ---------------------------------------------------------------------------------- */

#define THREADS 8
#define ROUNDS 25

typedef struct {
    fixture *f;
    krt_queue *shared;
    pthread_barrier_t *start;
    int id;
    int32_t *x;
    uint32_t n;
    int32_t base, add; /* this round's: set by the thread before it appends, read by its tasks */
    int wrong;
    int64_t sum;       /* what the tasks computed, over all rounds */
    krt_result error;
} thread_data;

/* Sees base + i from the iota launch before it, adds the thread's id, for the scale launch after it. */
static void thread_add_task(void *p)
{
    thread_data *t = p;
    for (uint32_t i = 0; i < t->n; i++) {
        if (t->x[i] != t->base + (int32_t)i)
            t->wrong++;
        t->x[i] += t->add;
    }
}

/* Sees 2 * (base + i + add) from the scale launch and sums it. */
static void thread_sum_task(void *p)
{
    thread_data *t = p;
    for (uint32_t i = 0; i < t->n; i++) {
        if (t->x[i] != 2 * (t->base + (int32_t)i + t->add))
            t->wrong++;
        t->sum += t->x[i];
    }
}

static void *thread_main(void *p)
{
    thread_data *t = p;
    krt_queue *own = NULL;
    krt_result r = KRT_SUCCESS;
    /* Even threads share one queue (their appends interleave there), odd ones use their own. */
    if (t->id % 2 && (r = krt_queue_create(t->f->ctx, NULL, &own)) != KRT_SUCCESS) {
        t->error = r;
        return NULL;
    }
    krt_queue *q = own ? own : t->shared;
    pthread_barrier_wait(t->start);
    for (int round = 0; round < ROUNDS && r == KRT_SUCCESS; round++) {
        /* The tasks read base and add when they run, so the thread waits for the round before changing them. */
        t->base = t->id * 100000 + round * 1000;
        t->add = t->id + 1;
        if ((r = launch_iota(t->f, q, (uint32_t *)t->x, t->n, (uint32_t)t->base, NULL, 0, NULL)) != KRT_SUCCESS ||
            (r = host_task(t->f->ctx, q, thread_add_task, t, NULL, 0, NULL)) != KRT_SUCCESS ||
            (r = launch_scale(t->f, q, t->x, t->n, 2, NULL, 0, NULL)) != KRT_SUCCESS ||
            (r = host_task(t->f->ctx, q, thread_sum_task, t, NULL, 0, NULL)) != KRT_SUCCESS)
            break;
        /* A shared queue is waited for as a whole, every thread's work included, which is fine. */
        if (round % 5 == 4 || round == ROUNDS - 1)
            r = krt_queue_synchronize(q);
        else {
            krt_event *e;
            if ((r = krt_event_create(t->f->ctx, NULL, &e)) != KRT_SUCCESS)
                break;
            r = host_task(t->f->ctx, q, thread_sum_task, t, NULL, 0, e);
            if (r == KRT_SUCCESS)
                r = krt_event_synchronize(e, UINT64_MAX);
            krt_event_destroy(e);
        }
    }
    t->error = r;
    krt_queue_destroy(own);
    return NULL;
}

Test(host_task, eight_threads_enqueue_host_tasks_and_launches)
{
    fixture f = setup();
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, THREADS);
    thread_data t[THREADS];
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++) {
        uint32_t n = 1000 + 131 * (uint32_t)i;
        t[i] = (thread_data){&f, krt_context_default_queue(f.ctx), &start, i,
                             kt_alloc(f.ctx, n * sizeof(int32_t), KRT_MEMORY_SHARED), n, 0, 0, 0, 0, KRT_SUCCESS};
        cr_assert_eq(pthread_create(&th[i], NULL, thread_main, &t[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&start);
    for (int i = 0; i < THREADS; i++) {
        cr_assert_eq(t[i].error, KRT_SUCCESS, "thread %d: %s", i, krt_result_name(t[i].error));
        cr_assert_eq(t[i].wrong, 0, "thread %d: its tasks saw %d wrong values", i, t[i].wrong);
        /* Each round sums 2 * (base + i + add) once, plus once more for the rounds waited for by an event. */
        int64_t expect = 0;
        for (int round = 0; round < ROUNDS; round++) {
            int64_t base = i * 100000 + round * 1000, add = i + 1, n = t[i].n;
            int64_t s = 2 * (n * base + n * (n - 1) / 2 + n * add);
            expect += (round % 5 == 4 || round == ROUNDS - 1) ? s : 2 * s;
        }
        cr_assert_eq(t[i].sum, expect, "thread %d: sum %lld, expected %lld", i, (long long)t[i].sum,
                     (long long)expect);
    }
    krt_context_destroy(f.ctx);
}

/* ---- a synchronize timeout while a host task blocks ------------------------------------------------------ */

typedef struct {
    sem_t release;
    atomic_int entered;
} block_data;

static void blocking_task(void *p)
{
    block_data *b = p;
    atomic_store(&b->entered, 1);
    while (sem_wait(&b->release) != 0) {
    }
}

Test(host_task, synchronize_times_out_while_a_task_blocks)
{
    fixture f = setup();
    krt_queue *q = krt_context_default_queue(f.ctx);
    uint32_t *x = kt_alloc(f.ctx, N * sizeof(uint32_t), KRT_MEMORY_SHARED);
    memset(x, 0, N * sizeof(uint32_t));
    block_data b;
    cr_assert_eq(sem_init(&b.release, 0, 0), 0);
    atomic_init(&b.entered, 0);
    krt_event *done;
    KT_OK(krt_event_create(f.ctx, NULL, &done));
    KT_OK(host_task(f.ctx, q, blocking_task, &b, NULL, 0, done));
    KT_OK(launch_iota(&f, q, x, N, 3, NULL, 0, NULL));
    /* The task cannot return before the semaphore is posted, so these time out whatever the machine's load. */
    KT_EXPECT(krt_queue_synchronize_timeout(q, 20 * 1000 * 1000), KRT_TIMEOUT);
    KT_EXPECT(krt_queue_synchronize_timeout(q, 0), KRT_TIMEOUT);
    cr_assert_eq(krt_event_synchronize(done, 10 * 1000 * 1000), KRT_TIMEOUT);
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(x[i], 0, "the launch after the blocked task ran");
    cr_assert_eq(sem_post(&b.release), 0);
    KT_OK(krt_queue_synchronize(q));
    KT_OK(krt_event_query(done));
    cr_assert_eq(atomic_load(&b.entered), 1);
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(x[i], 3 + i);
    sem_destroy(&b.release);
    krt_context_destroy(f.ctx);
}

/* ---- destroy with pending host tasks ----------------------------------------------------------------------- */

typedef struct {
    atomic_int count;
    sem_t *release; /* NULL: do not block */
} count_data;

static void count_task(void *p)
{
    count_data *c = p;
    if (c->release)
        while (sem_wait(c->release) != 0) {
        }
    atomic_fetch_add(&c->count, 1);
}

typedef struct {
    sem_t *release;
    int posts;
} releaser_data;

/* Lets the blocked tasks go one at a time, from a thread of the program's, while the main thread destroys. */
static void *releaser(void *p)
{
    releaser_data *r = p;
    for (int i = 0; i < r->posts; i++)
        sem_post(r->release);
    return NULL;
}

Test(host_task, queue_destroy_runs_pending_tasks_first)
{
    enum { TASKS = 50 };
    fixture f = setup();
    krt_queue *q;
    KT_OK(krt_queue_create(f.ctx, NULL, &q));
    sem_t release;
    cr_assert_eq(sem_init(&release, 0, 0), 0);
    count_data c = {0, &release};
    for (int i = 0; i < TASKS; i++)
        KT_OK(host_task(f.ctx, q, count_task, &c, NULL, 0, NULL));
    cr_assert_eq(atomic_load(&c.count), 0, "a task ran before its semaphore was posted");
    pthread_t th;
    releaser_data r = {&release, TASKS};
    cr_assert_eq(pthread_create(&th, NULL, releaser, &r), 0);
    krt_queue_destroy(q);
    cr_assert_eq(atomic_load(&c.count), TASKS, "krt_queue_destroy returned before every host task ran");
    pthread_join(th, NULL);
    sem_destroy(&release);
    kt_assert_usable(f.ctx);
    krt_context_destroy(f.ctx);
}

Test(host_task, context_destroy_runs_pending_tasks_first)
{
    enum { TASKS = 40 };
    fixture f = setup();
    krt_queue *q;
    KT_OK(krt_queue_create(f.ctx, NULL, &q));
    count_data c = {0, NULL};
    krt_event *gate;
    KT_OK(krt_event_create(f.ctx, NULL, &gate));
    /* Half on the default queue behind a launch, half on q behind the gate the launch signals. */
    uint32_t *x = kt_alloc(f.ctx, N * sizeof(uint32_t), KRT_MEMORY_SHARED);
    for (int i = 0; i < TASKS / 2; i++)
        KT_OK(host_task(f.ctx, q, count_task, &c, &gate, 1, NULL));
    KT_OK(launch_iota(&f, NULL, x, N, 1, NULL, 0, gate));
    for (int i = 0; i < TASKS / 2; i++)
        KT_OK(host_task(f.ctx, NULL, count_task, &c, NULL, 0, NULL));
    krt_context_destroy(f.ctx);
    cr_assert_eq(atomic_load(&c.count), TASKS, "krt_context_destroy returned before every host task ran");
}

/* ---- many pending tasks, many wait events, the thread that runs them ----------------------------------- */

typedef struct {
    int order[1000];
    atomic_int next;
    pthread_t thread;
    int other_thread; /* a task ran on a thread other than the first task's */
    int sigint_blocked;
} seq_data;

typedef struct {
    seq_data *s;
    int index;
} seq_item;

static void seq_task(void *p)
{
    seq_item *it = p;
    seq_data *s = it->s;
    int n = atomic_fetch_add(&s->next, 1);
    s->order[n] = it->index;
    if (n == 0) {
        s->thread = pthread_self();
        sigset_t mask;
        pthread_sigmask(SIG_BLOCK, NULL, &mask);
        s->sigint_blocked = sigismember(&mask, SIGINT) == 1 && sigismember(&mask, SIGSEGV) == 0;
    } else if (!pthread_equal(s->thread, pthread_self())) {
        s->other_thread = 1;
    }
}

Test(host_task, a_thousand_pending_tasks_run_in_order_on_one_thread)
{
    enum { TASKS = 1000, WAITS = 20 };
    fixture f = setup();
    krt_queue *q;
    KT_OK(krt_queue_create(f.ctx, NULL, &q));
    /* The first task waits on 20 events (more than krt's stack array), each signalled by a launch on another
     * queue; the 999 others pile up behind it. */
    krt_event *ev[WAITS];
    for (int i = 0; i < WAITS; i++)
        KT_OK(krt_event_create(f.ctx, NULL, &ev[i]));
    static seq_data s;
    memset(&s, 0, sizeof s);
    static seq_item items[TASKS];
    for (int i = 0; i < TASKS; i++) {
        items[i] = (seq_item){&s, i};
        KT_OK(host_task(f.ctx, q, seq_task, &items[i], i == 0 ? ev : NULL, i == 0 ? WAITS : 0, NULL));
    }
    cr_assert_eq(atomic_load(&s.next), 0);
    krt_queue *other;
    KT_OK(krt_queue_create(f.ctx, NULL, &other));
    uint32_t *x = kt_alloc(f.ctx, 64 * sizeof(uint32_t), KRT_MEMORY_SHARED);
    for (int i = 0; i < WAITS; i++) {
        KT_EXPECT(krt_queue_synchronize_timeout(q, 0), KRT_TIMEOUT);
        cr_assert_eq(atomic_load(&s.next), 0, "the first task ran with %d of its %d events signalled", i, WAITS);
        KT_OK(launch_iota(&f, other, x, 64, 0, NULL, 0, ev[i]));
        KT_OK(krt_queue_synchronize(other));
    }
    KT_OK(krt_queue_synchronize(q));
    cr_assert_eq(atomic_load(&s.next), TASKS);
    for (int i = 0; i < TASKS; i++)
        cr_assert_eq(s.order[i], i, "position %d ran task %d", i, s.order[i]);
    cr_assert_eq(s.other_thread, 0, "one queue's tasks ran on more than one thread");
    cr_assert(!pthread_equal(s.thread, pthread_self()), "fn ran on the caller's thread");
    cr_assert(s.sigint_blocked, "the host-task thread takes SIGINT, or blocks SIGSEGV");
    krt_context_destroy(f.ctx);
}

/* ---- bad input ------------------------------------------------------------------------------------------- */

static void never_task(void *p)
{
    atomic_fetch_add((atomic_int *)p, 1);
}

Test(host_task, bad_input_is_refused_and_never_runs_fn)
{
    fixture f = setup();
    krt_context *other = kt_context(NULL);
    krt_queue *other_q = krt_context_default_queue(other);
    krt_event *other_ev, *ts_ev, *ok_ev;
    KT_OK(krt_event_create(other, NULL, &other_ev));
    krt_event_desc ts = {.flags = KRT_EVENT_FLAG_TIMESTAMP};
    KT_OK(krt_event_create(f.ctx, &ts, &ts_ev));
    KT_OK(krt_event_create(f.ctx, NULL, &ok_ev));
    atomic_int ran = 0;
    krt_host_task_desc d = {.fn = never_task, .data = &ran};
    KT_EXPECT(krt_host_task(NULL, &d), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_host_task(f.ctx, NULL), KRT_ERROR_INVALID_ARGUMENT);
    krt_host_task_desc bad = d;
    bad.fn = NULL;
    KT_EXPECT(krt_host_task(f.ctx, &bad), KRT_ERROR_INVALID_ARGUMENT);
    bad = d;
    bad.num_wait = 1;
    KT_EXPECT(krt_host_task(f.ctx, &bad), KRT_ERROR_INVALID_ARGUMENT);
    krt_event *waits[2] = {ok_ev, NULL};
    bad.wait = waits;
    bad.num_wait = 2;
    KT_EXPECT(krt_host_task(f.ctx, &bad), KRT_ERROR_INVALID_ARGUMENT);
    waits[1] = other_ev;
    KT_EXPECT(krt_host_task(f.ctx, &bad), KRT_ERROR_INVALID_ARGUMENT);
    bad = d;
    bad.queue = other_q;
    KT_EXPECT(krt_host_task(f.ctx, &bad), KRT_ERROR_INVALID_ARGUMENT);
    bad = d;
    bad.signal = other_ev;
    KT_EXPECT(krt_host_task(f.ctx, &bad), KRT_ERROR_INVALID_ARGUMENT);
    bad.signal = ts_ev;
    KT_EXPECT(krt_host_task(f.ctx, &bad), KRT_ERROR_INVALID_ARGUMENT);
    KT_OK(krt_context_synchronize(f.ctx));
    cr_assert_eq(atomic_load(&ran), 0, "a refused host task ran");
    /* The refusals left nothing behind: a good task runs once and signals. */
    d.signal = ok_ev;
    KT_OK(krt_host_task(f.ctx, &d));
    KT_OK(krt_event_synchronize(ok_ev, UINT64_MAX));
    cr_assert_eq(atomic_load(&ran), 1);
    kt_assert_usable(f.ctx);
    krt_context_destroy(other);
    krt_context_destroy(f.ctx);
}

/* ---- host tasks that append to queues while the queues are destroyed ----------------------------------- */

#define CHAIN 24

typedef struct {
    krt_context *ctx;
    krt_kernel *iota;
    krt_queue *q[2];
    uint32_t *x[2];      /* each queue's launches write their own buffer */
    uint32_t *copies;    /* CHAIN words, one krt_memcpy per task */
    atomic_int count;
    int wrong;           /* values a task found that its queue's previous launch should not have left */
    krt_result error;
} chain_data;

static const uint32_t chain_word = 0xC0FFEEu;

/* Task k (from 1) runs on queue k % 2 of the chain (q[1] == q[0] for a one-queue chain): it checks the launch
 * that the previous task on this queue appended (task k - 2 on two queues, k - 1 on one), copies a word
 * (krt_memcpy takes the context's lock), launches, and appends task k + 1 to the other queue, while the program
 * is already destroying. */
static void chain_task(void *p)
{
    chain_data *c = p;
    int k = atomic_fetch_add(&c->count, 1) + 1;
    int side = k % 2;
    int prev = c->q[0] == c->q[1] ? k - 1 : k - 2;
    if (prev > 0)
        for (uint32_t i = 0; i < 64; i++)
            if (c->x[side][i] != (uint32_t)prev * 100u + i)
                c->wrong++;
    krt_result r = krt_memcpy(c->ctx, c->q[side], &c->copies[k - 1], &chain_word, sizeof chain_word);
    uint32_t n = 64, base = (uint32_t)k * 100u;
    krt_arg args[] = {KRT_ARG(c->x[side]), KRT_ARG(n), KRT_ARG(base)};
    krt_launch_desc d = kt_desc1(n, args, 3);
    d.queue = c->q[side];
    if (r == KRT_SUCCESS)
        r = krt_launch(c->iota, &d);
    if (r == KRT_SUCCESS && k < CHAIN) {
        krt_host_task_desc t = {.fn = chain_task, .data = c, .queue = c->q[!side]};
        r = krt_host_task(c->ctx, &t);
    }
    if (r != KRT_SUCCESS && c->error == KRT_SUCCESS)
        c->error = r;
}

Test(host_task, queue_destroy_waits_for_work_its_tasks_append)
{
    fixture f = setup();
    krt_queue *q;
    KT_OK(krt_queue_create(f.ctx, NULL, &q));
    uint32_t *x = kt_alloc(f.ctx, 64 * sizeof(uint32_t), KRT_MEMORY_SHARED);
    uint32_t *copies = kt_alloc(f.ctx, CHAIN * sizeof(uint32_t), KRT_MEMORY_SHARED);
    memset(copies, 0, CHAIN * sizeof(uint32_t));
    chain_data c = {f.ctx, f.iota, {q, q}, {x, x}, copies, 0, 0, KRT_SUCCESS};
    krt_host_task_desc t = {.fn = chain_task, .data = &c, .queue = q};
    KT_OK(krt_host_task(f.ctx, &t));
    krt_queue_destroy(q);
    cr_assert_eq(atomic_load(&c.count), CHAIN, "krt_queue_destroy returned with host tasks still to run");
    cr_assert_eq(c.error, KRT_SUCCESS, "%s", krt_result_name(c.error));
    cr_assert_eq(c.wrong, 0, "tasks saw %d values their queue's earlier launch should not have left", c.wrong);
    for (uint32_t i = 0; i < 64; i++)
        cr_assert_eq(x[i], (uint32_t)CHAIN * 100u + i, "the last task's launch did not run before the destroy returned");
    for (int k = 0; k < CHAIN; k++)
        cr_assert_eq(copies[k], chain_word, "copy %d", k);
    krt_context_destroy(f.ctx);
}

Test(host_task, context_destroy_waits_for_work_its_tasks_append_across_queues)
{
    fixture f = setup();
    krt_queue *qa, *qb;
    KT_OK(krt_queue_create(f.ctx, NULL, &qa));
    KT_OK(krt_queue_create(f.ctx, NULL, &qb));
    chain_data *c = calloc(1, sizeof *c);
    cr_assert_not_null(c);
    *c = (chain_data){f.ctx, f.iota, {qa, qb}, {kt_alloc(f.ctx, 64 * sizeof(uint32_t), KRT_MEMORY_SHARED),
                                                 kt_alloc(f.ctx, 64 * sizeof(uint32_t), KRT_MEMORY_SHARED)},
                      kt_alloc(f.ctx, CHAIN * sizeof(uint32_t), KRT_MEMORY_SHARED), 0, 0, KRT_SUCCESS};
    /* Task 1 runs on queue 1 % 2, qb; each appends the next to the other queue. */
    krt_host_task_desc t = {.fn = chain_task, .data = c, .queue = qb};
    KT_OK(krt_host_task(f.ctx, &t));
    krt_context_destroy(f.ctx);
    cr_assert_eq(atomic_load(&c->count), CHAIN, "krt_context_destroy returned with host tasks still to run");
    cr_assert_eq(c->error, KRT_SUCCESS, "%s", krt_result_name(c->error));
    cr_assert_eq(c->wrong, 0, "tasks saw %d values their queue's earlier launch should not have left", c->wrong);
    free(c);
}

/* ---- the caller destroys the task's event as soon as it reads signalled ------------------------------------ */

/* The documented order (krt.h: an event may be destroyed once it is signalled), at full speed: a host task
 * signals e, this thread sees e signalled (polling, or through krt_event_synchronize) and destroys it at once.
 * The signalling thread was still inside zeEventHostSignal, touching the event, when the caller could see it
 * signalled: the destroy freed it under the signaller (heap-use-after-free; "malloc(): unsorted double linked
 * list corrupted" in a plain build within 50,000 rounds, on ze_pocl and on the host device alike). */
static void tick_task(void *p)
{
    atomic_fetch_add((atomic_long *)p, 1);
}

static void destroy_as_soon_as_signalled(int poll, long rounds)
{
    fixture f = setup();
    krt_queue *q = krt_context_default_queue(f.ctx);
    atomic_long ran = 0;
    for (long i = 0; i < rounds; i++) {
        krt_event *e;
        cr_assert_eq(krt_event_create(f.ctx, NULL, &e), KRT_SUCCESS, "%s", krt_last_error_message());
        cr_assert_eq(host_task(f.ctx, q, tick_task, &ran, NULL, 0, e), KRT_SUCCESS, "%s", krt_last_error_message());
        krt_result r;
        if (poll) {
            while ((r = krt_event_query(e)) == KRT_NOT_READY) {
            }
        } else {
            r = krt_event_synchronize(e, UINT64_MAX);
        }
        cr_assert_eq(r, KRT_SUCCESS, "round %ld: %s", i, krt_result_name(r));
        /* Signalled means the task ran: its count is in before the event reads signalled. */
        cr_assert_eq(atomic_load(&ran), i + 1, "round %ld: the event read signalled before its task ran", i);
        krt_event_destroy(e);
    }
    cr_assert_eq(krt_context_synchronize(f.ctx), KRT_SUCCESS);
    krt_context_destroy(f.ctx);
}

Test(host_task, event_destroyed_as_soon_as_a_poll_sees_it_signalled)
{
    destroy_as_soon_as_signalled(1, 50000);
}

Test(host_task, event_destroyed_as_soon_as_synchronize_returns)
{
    destroy_as_soon_as_signalled(0, 5000);
}
