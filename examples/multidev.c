/*
 * multidev: one saxpy split over every device of a driver. A context per device, all sharing the first one's
 * Level Zero context (krt_context_desc.share); the input goes to device 0, each other device copies its slice
 * over (a peer copy where the devices reach each other, staged through host memory where they do not: the same
 * krt_memcpy either way), after an event of device 0 says the input is there; each device runs saxpy on its slice
 * and signals an event; device 0's queue waits for all of them (krt_queue_barrier) and gathers the slices back.
 * The result is checked on the host.
 *
 * usage: multidev [n]   (n floats, default 1000003; exits 1 when a result is wrong)
 * The devices are those of the driver of the default device (KRT_DEVICE chooses another): on ze_pocl, as many as
 * POCL_DEVICES lists ("pthread pthread pthread"), on ze_cuda every GPU.
 */
#include "example.h"

#define MAX_DEVICES 16

int main(int argc, char **argv)
{
    uint32_t n = (uint32_t)ex_arg_size(argc, argv, 1, 1000003);
    float alpha = 2.0f;

    /* Device 0: the default device; then every other device of its driver, sharing its Level Zero context. */
    krt_context *ctx[MAX_DEVICES];
    uint32_t nd = ex_driver_contexts(ctx, MAX_DEVICES);
    krt_device_info first;
    EX_CHECK(krt_context_device_info(ctx[0], &first));
    printf("%u device(s) of driver %s:\n", nd, first.driver_name);
    for (uint32_t i = 0; i < nd; i++) {
        krt_device_info info;
        EX_CHECK(krt_context_device_info(ctx[i], &info));
        printf("  %u: %s, reaches", i, info.name);
        for (uint32_t j = 0; j < nd; j++) {
            int can = 0;
            EX_CHECK(krt_context_can_access_peer(ctx[i], ctx[j], &can));
            printf(" %u:%s", j, can ? "yes" : "no");
        }
        printf("\n");
    }

    /* The input on device 0, and an event that says it is there. */
    float *host = malloc((size_t)n * sizeof(float));
    if (!host)
        return 2;
    for (uint32_t i = 0; i < n; i++)
        host[i] = (float)i;
    float *x = ex_alloc(ctx[0], (size_t)n * sizeof(float)), *y = ex_alloc(ctx[0], (size_t)n * sizeof(float));
    krt_event *ready;
    EX_CHECK(krt_event_create(ctx[0], NULL, &ready));
    EX_CHECK(krt_memcpy(ctx[0], NULL, x, host, (size_t)n * sizeof(float)));
    EX_CHECK(krt_queue_barrier(krt_context_default_queue(ctx[0]), &(krt_barrier_desc){ .signal = ready }));

    /* Each device: its slice over, saxpy on it (y = alpha * x + 1), and an event when done. */
    krt_event *done[MAX_DEVICES];
    float *xs[MAX_DEVICES], *ys[MAX_DEVICES];
    krt_module *modules[MAX_DEVICES];
    const float one = 1.0f;
    for (uint32_t i = 0; i < nd; i++) {
        uint32_t lo = (uint32_t)((uint64_t)n * i / nd), hi = (uint32_t)((uint64_t)n * (i + 1) / nd), len = hi - lo;
        size_t bytes = (size_t)len * sizeof(float);
        krt_queue *q = krt_context_default_queue(ctx[i]);
        if (i == 0) {
            xs[i] = x + lo;
            ys[i] = y + lo;
        } else {
            xs[i] = ex_alloc(ctx[i], bytes ? bytes : 1);
            ys[i] = ex_alloc(ctx[i], bytes ? bytes : 1);
            EX_CHECK(krt_queue_barrier(q, &(krt_barrier_desc){ .wait = &ready, .num_wait = 1 }));
            if (len)
                EX_CHECK(krt_memcpy(ctx[i], q, xs[i], x + lo, bytes));
        }
        if (len)
            EX_CHECK(krt_memfill(ctx[i], q, ys[i], &one, sizeof one, bytes));
        EX_CHECK(krt_event_create(ctx[i], NULL, &done[i]));
        modules[i] = ex_module(ctx[i], "saxpy.spv");
        krt_arg args[] = { KRT_ARG(alpha), KRT_ARG(xs[i]), KRT_ARG(ys[i]), KRT_ARG(len) };
        if (len)
            EX_CHECK(krt_launch(ex_kernel(modules[i], "saxpy"),
                                &(krt_launch_desc){ .range = { 1, { len } }, .args = args, .num_args = 4,
                                                    .signal = done[i] }));
        else
            EX_CHECK(krt_queue_barrier(q, &(krt_barrier_desc){ .signal = done[i] }));
    }

    /* Device 0 waits for every device, then gathers the slices into y. */
    krt_queue *q0 = krt_context_default_queue(ctx[0]);
    EX_CHECK(krt_queue_barrier(q0, &(krt_barrier_desc){ .wait = done, .num_wait = nd }));
    for (uint32_t i = 1; i < nd; i++) {
        uint32_t lo = (uint32_t)((uint64_t)n * i / nd), hi = (uint32_t)((uint64_t)n * (i + 1) / nd);
        if (hi > lo)
            EX_CHECK(krt_memcpy(ctx[0], q0, y + lo, ys[i], (size_t)(hi - lo) * sizeof(float)));
    }
    EX_CHECK(krt_memcpy_sync(ctx[0], q0, host, y, (size_t)n * sizeof(float)));
    uint32_t wrong = 0;
    for (uint32_t i = 0; i < n; i++)
        wrong += host[i] != alpha * (float)i + 1.0f;
    printf("saxpy of %u floats over %u device(s): %u wrong: %s\n", n, nd, wrong, wrong ? "FAILED" : "ok");

    free(host);
    /* Each context releases its events, modules and memory; the shared Level Zero context goes with the last. */
    for (uint32_t i = nd; i-- > 0;) {
        EX_CHECK(krt_context_synchronize(ctx[i]));
        krt_context_destroy(ctx[i]);
    }
    return wrong ? 1 : 0;
}
