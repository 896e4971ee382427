/*
 * pipeline: two queues ordered by events, with kernel timestamps.
 *
 * The data is cut into chunks. A "produce" queue runs saxpy (y = 2x + y) on each chunk and signals an event
 * per chunk; a "consume" queue runs vadd (z = y + x) on each chunk after waiting for that chunk's event only.
 * So the consumer can work on chunk i while the producer is already on chunk i + 1, and nothing but the events
 * orders the two queues. Every event records its kernel's start and end on the device, which the program
 * prints as a timeline and checks: each consume starts after its produce ended.
 *
 * usage: pipeline [n [chunks]]   (default 4000000 8; when chunks does not divide n, the first
 *                                  n % chunks chunks hold one element more, so all n elements are processed)
 */
#include "example.h"

#define MAX_CHUNKS 64

int main(int argc, char **argv)
{
    uint64_t total = ex_arg_size(argc, argv, 1, 4000000);
    uint32_t chunks = (uint32_t)ex_arg_size(argc, argv, 2, 8);
    if (chunks > MAX_CHUNKS || chunks > total) {
        fprintf(stderr, "pipeline: chunks must be at most %d and at most n\n", MAX_CHUNKS);
        return 2;
    }
    /* Elements per chunk: total / chunks, and one more in each of the first total % chunks chunks. */
    uint32_t len[MAX_CHUNKS];
    for (uint32_t c = 0; c < chunks; c++)
        len[c] = (uint32_t)(total / chunks + (c < total % chunks ? 1 : 0));
    uint32_t n = len[0]; /* the largest chunk */
    size_t bytes = (size_t)n * sizeof(float);

    krt_context *ctx = ex_context();
    krt_module *saxpy_module = ex_module(ctx, "saxpy.spv");
    krt_module *vadd_module = ex_module(ctx, "vadd.spv");
    krt_kernel *saxpy = ex_kernel(saxpy_module, "saxpy");
    krt_kernel *vadd = ex_kernel(vadd_module, "vadd");

    krt_queue *produce = NULL, *consume = NULL;
    EX_CHECK(krt_queue_create(ctx, NULL, &produce));
    EX_CHECK(krt_queue_create(ctx, NULL, &consume));

    float *x = malloc(bytes), *y = malloc(bytes), *z = malloc(bytes);
    if (!x || !y || !z) {
        fprintf(stderr, "pipeline: out of memory\n");
        return 2;
    }
    for (uint32_t i = 0; i < n; i++) {
        x[i] = (float)(i % 1024);
        y[i] = 1.0f;
    }

    /* One set of buffers and two timestamp events per chunk. */
    float *dx[MAX_CHUNKS], *dy[MAX_CHUNKS], *dz[MAX_CHUNKS];
    krt_event *produced[MAX_CHUNKS], *consumed[MAX_CHUNKS];
    krt_event_desc timestamps = { .flags = KRT_EVENT_FLAG_TIMESTAMP };
    for (uint32_t c = 0; c < chunks; c++) {
        dx[c] = ex_alloc(ctx, bytes);
        dy[c] = ex_alloc(ctx, bytes);
        dz[c] = ex_alloc(ctx, bytes);
        EX_CHECK(krt_memcpy(ctx, NULL, dx[c], x, bytes));
        EX_CHECK(krt_memcpy(ctx, NULL, dy[c], y, bytes));
        EX_CHECK(krt_event_create(ctx, &timestamps, &produced[c]));
        EX_CHECK(krt_event_create(ctx, &timestamps, &consumed[c]));
    }
    /* The copies went to the default queue; the two pipeline queues must not start before they finish. */
    EX_CHECK(krt_queue_synchronize(krt_context_default_queue(ctx)));

    const float a = 2.0f;
    krt_ndrange range = { .dims = 1, .size = { n } }; /* the largest chunk's, for the configuration shown */
    krt_launch_config c;
    EX_CHECK(krt_launch_config_get(saxpy, &range, &c));
    ex_print_config("krt chose for saxpy: ", &c);
    EX_CHECK(krt_launch_config_get(vadd, &range, &c));
    ex_print_config("krt chose for vadd:  ", &c);
    uint64_t t0 = ex_now_ns();
    for (uint32_t c = 0; c < chunks; c++) {
        krt_ndrange chunk = { .dims = 1, .size = { len[c] } };
        krt_arg pargs[] = { KRT_ARG(a), KRT_ARG(dx[c]), KRT_ARG(dy[c]), KRT_ARG(len[c]) };
        krt_launch_desc p = { .range = chunk, .args = pargs, .num_args = 4, .queue = produce,
                              .signal = produced[c] };
        EX_CHECK(krt_launch(saxpy, &p));

        krt_arg cargs[] = { KRT_ARG(dy[c]), KRT_ARG(dx[c]), KRT_ARG(dz[c]), KRT_ARG(len[c]) };
        krt_launch_desc q = { .range = chunk, .args = cargs, .num_args = 4, .queue = consume,
                              .signal = consumed[c], .wait = &produced[c], .num_wait = 1 };
        EX_CHECK(krt_launch(vadd, &q));
    }
    double submit_ms = ex_ms_since(t0);
    /* The last consume event completes after everything else: the host waits for it alone. */
    EX_CHECK(krt_event_synchronize(consumed[chunks - 1], UINT64_MAX));
    double ms = ex_ms_since(t0);
    EX_CHECK(krt_queue_synchronize(produce));
    if (len[chunks - 1] == n)
        printf("%u chunks of %u elements on two queues: submitted in %.3f ms, done in %.2f ms\n", chunks, n,
               submit_ms, ms);
    else
        printf("%u chunks of %u or %u elements (%llu in all) on two queues: submitted in %.3f ms, done in %.2f ms\n",
               chunks, n, len[chunks - 1], (unsigned long long)total, submit_ms, ms);

    /* The timeline, in microseconds from the first kernel's start. */
    uint64_t ps[MAX_CHUNKS], pe[MAX_CHUNKS], cs[MAX_CHUNKS], ce[MAX_CHUNKS];
    int failed = 0;
    for (uint32_t c = 0; c < chunks; c++) {
        EX_CHECK(krt_event_kernel_time(produced[c], &ps[c], &pe[c]));
        EX_CHECK(krt_event_kernel_time(consumed[c], &cs[c], &ce[c]));
    }
    uint64_t origin = ps[0];
    printf("chunk   produce (saxpy) [us]   consume (vadd) [us]   order\n");
    for (uint32_t c = 0; c < chunks; c++) {
        int ordered = cs[c] >= pe[c];
        failed += !ordered;
        printf("%5u   %8.1f - %8.1f    %8.1f - %8.1f    %s\n", c, (double)(ps[c] - origin) / 1e3,
               (double)(pe[c] - origin) / 1e3, (double)(cs[c] - origin) / 1e3, (double)(ce[c] - origin) / 1e3,
               ordered ? "ok" : "WRONG: consume started before produce ended");
    }

    uint64_t wrong = 0, checked = 0;
    for (uint32_t c = 0; c < chunks; c++) {
        EX_CHECK(krt_memcpy_sync(ctx, NULL, z, dz[c], (size_t)len[c] * sizeof(float)));
        for (uint32_t i = 0; i < len[c]; i++, checked++)
            if (z[i] != (a * x[i] + y[i]) + x[i])
                wrong++;
    }
    failed += wrong != 0 || checked != total;
    printf("%llu of %llu elements wrong: %s\n", (unsigned long long)wrong, (unsigned long long)checked,
           failed ? "FAILED" : "ok");

    for (uint32_t c = 0; c < chunks; c++) {
        krt_event_destroy(produced[c]);
        krt_event_destroy(consumed[c]);
    }
    krt_queue_destroy(produce);
    krt_queue_destroy(consume);
    krt_context_destroy(ctx);
    free(x);
    free(y);
    free(z);
    return failed ? 1 : 0;
}
