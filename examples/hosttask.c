/*
 * hosttask: host code in queue order, between two kernels and on a second queue, without waiting for the queue.
 *
 * On the default queue: saxpy (y = 2x + y), then a host task that clips y to a limit and counts what it clipped,
 * then vadd (z = y + x) on the clipped y. A host task on a second queue waits for vadd's event and sums z on the
 * host. The program appends all four, waits only for the last host task's event, and checks every element
 * against the same computation done on the host. The host tasks report through their data: a status field
 * that the program reads afterwards (a host task returns nothing, so its errors are the program's to carry).
 *
 * usage: hosttask [n [limit]]   (default 1000000 1500)
 */
#include "example.h"

#include <math.h>

typedef struct {
    float *y;
    uint32_t n;
    float limit;
    uint32_t clipped; /* what the task did */
    int status;       /* 0, or -1 when it found a value it cannot handle (NaN), which it leaves as it is */
} clip_data;

/* Runs after saxpy has written y and before vadd reads it. */
static void clip(void *p)
{
    clip_data *d = p;
    for (uint32_t i = 0; i < d->n; i++) {
        if (isnan(d->y[i])) {
            d->status = -1;
        } else if (d->y[i] > d->limit) {
            d->y[i] = d->limit;
            d->clipped++;
        }
    }
}

typedef struct {
    const float *z;
    uint32_t n;
    double sum;
} sum_data;

/* Runs on the second queue once vadd's event is signalled. */
static void sum(void *p)
{
    sum_data *d = p;
    for (uint32_t i = 0; i < d->n; i++)
        d->sum += d->z[i];
}

int main(int argc, char **argv)
{
    uint32_t n = (uint32_t)ex_arg_size(argc, argv, 1, 1000000);
    float limit = (float)ex_arg_size(argc, argv, 2, 1500);
    krt_context *ctx = ex_context();
    krt_kernel *saxpy = ex_kernel(ex_module(ctx, "saxpy.spv"), "saxpy");
    krt_kernel *vadd = ex_kernel(ex_module(ctx, "vadd.spv"), "vadd");

    /* Shared memory: the kernels and the host tasks both read and write it, with no copy. */
    krt_alloc_desc shared = { .kind = KRT_MEMORY_SHARED };
    float *x, *y, *z;
    EX_CHECK(krt_alloc(ctx, (size_t)n * sizeof(float), &shared, (void **)&x));
    EX_CHECK(krt_alloc(ctx, (size_t)n * sizeof(float), &shared, (void **)&y));
    EX_CHECK(krt_alloc(ctx, (size_t)n * sizeof(float), &shared, (void **)&z));
    for (uint32_t i = 0; i < n; i++) {
        x[i] = (float)(i % 1024);
        y[i] = 1.0f;
    }
    krt_queue *other;
    krt_event *added, *summed;
    EX_CHECK(krt_queue_create(ctx, NULL, &other));
    EX_CHECK(krt_event_create(ctx, NULL, &added));
    EX_CHECK(krt_event_create(ctx, NULL, &summed));

    const float a = 2.0f;
    krt_ndrange range = { .dims = 1, .size = { n } };
    krt_arg sargs[] = { KRT_ARG(a), KRT_ARG(x), KRT_ARG(y), KRT_ARG(n) };
    krt_launch_desc s = { .range = range, .args = sargs, .num_args = 4 };
    EX_CHECK(krt_launch(saxpy, &s));

    clip_data c = { y, n, limit, 0, 0 };
    krt_host_task_desc ct = { .fn = clip, .data = &c };
    EX_CHECK(krt_host_task(ctx, &ct));

    krt_arg vargs[] = { KRT_ARG(y), KRT_ARG(x), KRT_ARG(z), KRT_ARG(n) };
    krt_launch_desc v = { .range = range, .args = vargs, .num_args = 4, .signal = added };
    EX_CHECK(krt_launch(vadd, &v));

    sum_data d = { z, n, 0.0 };
    krt_host_task_desc st = { .fn = sum, .data = &d, .queue = other, .wait = &added, .num_wait = 1,
                              .signal = summed };
    EX_CHECK(krt_host_task(ctx, &st));

    /* Everything is appended; the host waits for the last host task alone. */
    EX_CHECK(krt_event_synchronize(summed, UINT64_MAX));
    if (c.status != 0) {
        printf("clip: found a NaN in y\n");
        return 1;
    }

    uint64_t wrong = 0, clipped = 0;
    double expect_sum = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        float yi = a * (float)(i % 1024) + 1.0f;
        if (yi > limit) {
            yi = limit;
            clipped++;
        }
        float zi = yi + (float)(i % 1024);
        expect_sum += zi;
        if (z[i] != zi)
            wrong++;
    }
    int failed = wrong != 0 || clipped != c.clipped || d.sum != expect_sum;
    printf("saxpy, then clip on the host: %u of %u values clipped to %g\n", c.clipped, n, (double)limit);
    printf("vadd on the clipped values, then a sum on the host on another queue: %.1f\n", d.sum);
    printf("%llu of %u elements wrong: %s\n", (unsigned long long)wrong, n, failed ? "FAILED" : "ok");

    krt_event_destroy(added);
    krt_event_destroy(summed);
    krt_queue_destroy(other);
    krt_context_destroy(ctx);
    return failed ? 1 : 0;
}
