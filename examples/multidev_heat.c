/*
 * multidev_heat: the heat plate of examples/heat.c over every device of a driver, in one process. A context per
 * device, all sharing the first one's Level Zero context; each device holds a block of rows plus one halo row per
 * neighbour (mpi_heat's layout, so the unchanged heat_step kernel copies the halo rows through). Each step, every
 * device runs its block, then copies its neighbours' edge rows into its halo rows, peer where the devices reach
 * each other and staged through host memory where they do not (the same krt_memcpy), after a barrier that waits
 * for the neighbours' kernels (their events). The host waits for every device at the end of a step. The result
 * is checked against one device running the whole plate, bit for bit.
 *
 * usage: multidev_heat [width [height [steps]]]   (default 512 512 200; exits 1 when the check fails)
 * The devices are those of the driver of the default device (KRT_DEVICE chooses another): on ze_pocl, as many as
 * POCL_DEVICES lists, on ze_cuda every GPU. Each device needs at least 3 rows.
 */
#include "example.h"

#define MAX_DEVICES 16

typedef struct block {
    krt_context *ctx;
    krt_kernel *step;
    float *buf[2];       /* rows (lo - top .. hi + bottom) of the plate, w floats each */
    uint32_t lo, hi;     /* the plate's rows this device computes */
    uint32_t top, bottom; /* 1 where there is a halo row above / below */
    krt_event *done;     /* this step's kernel */
} block;

/* One step of n rows starting at the plate row of buf's first row, in -> out. */
static void launch(block *b, int cur, uint32_t w, float alpha)
{
    uint32_t rows = b->hi - b->lo + b->top + b->bottom;
    float *in = b->buf[cur], *out = b->buf[cur ^ 1];
    krt_arg args[] = { KRT_ARG(in), KRT_ARG(out), KRT_ARG(w), KRT_ARG(rows), KRT_ARG(alpha) };
    EX_CHECK(krt_launch(b->step, &(krt_launch_desc){ .range = { 2, { w, rows } }, .args = args, .num_args = 5,
                                                      .signal = b->done }));
}

int main(int argc, char **argv)
{
    uint32_t w = (uint32_t)ex_arg_size(argc, argv, 1, 512), h = (uint32_t)ex_arg_size(argc, argv, 2, 512);
    uint32_t steps = (uint32_t)ex_arg_size(argc, argv, 3, 200);
    const float alpha = 0.2f;

    /* Device 0: the default device; then every other device of its driver, sharing its Level Zero context. */
    krt_context *ctx[MAX_DEVICES];
    uint32_t nd = ex_driver_contexts(ctx, MAX_DEVICES);
    block b[MAX_DEVICES];
    memset(b, 0, sizeof b);
    for (uint32_t i = 0; i < nd; i++)
        b[i].ctx = ctx[i];
    krt_device_info first;
    EX_CHECK(krt_context_device_info(ctx[0], &first));
    if (w < 3 || h < 3 * nd || (uint64_t)w * h > (1u << 30)) {
        fprintf(stderr, "multidev_heat: a %u x %u plate over %u devices: width at least 3, at least 3 rows per "
                        "device, at most 2^30 cells\n", w, h, nd);
        return 2;
    }

    /* The initial plate: cold, with a hot square in the middle and a hot left edge. */
    size_t cells = (size_t)w * h;
    float *plate = malloc(cells * sizeof(float)), *whole = malloc(cells * sizeof(float));
    if (!plate || !whole)
        return 2;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            plate[(size_t)y * w + x] = x == 0 || (x > w / 3 && x < 2 * w / 3 && y > h / 3 && y < 2 * h / 3) ? 100.0f : 0.0f;

    /* Each device's block, its two buffers filled from the plate. */
    for (uint32_t i = 0; i < nd; i++) {
        block *d = &b[i];
        d->lo = (uint32_t)((uint64_t)h * i / nd);
        d->hi = (uint32_t)((uint64_t)h * (i + 1) / nd);
        d->top = i > 0;
        d->bottom = i + 1 < nd;
        size_t bytes = (size_t)(d->hi - d->lo + d->top + d->bottom) * w * sizeof(float);
        for (int k = 0; k < 2; k++) {
            d->buf[k] = ex_alloc(d->ctx, bytes);
            EX_CHECK(krt_memcpy(d->ctx, NULL, d->buf[k], plate + (size_t)(d->lo - d->top) * w, bytes));
        }
        d->step = ex_kernel(ex_module(d->ctx, "heat.spv"), "heat_step");
        EX_CHECK(krt_event_create(d->ctx, NULL, &d->done));
        EX_CHECK(krt_queue_synchronize(krt_context_default_queue(d->ctx)));
    }
    printf("multidev_heat: %u x %u plate, %u steps, over %u device(s) of driver %s\n", w, h, steps, nd,
           first.driver_name);
    for (uint32_t i = 0; i < nd; i++) {
        krt_device_info info;
        EX_CHECK(krt_context_device_info(b[i].ctx, &info));
        int up = 1, down = 1;
        if (i > 0)
            EX_CHECK(krt_context_can_access_peer(b[i].ctx, b[i - 1].ctx, &up));
        if (i + 1 < nd)
            EX_CHECK(krt_context_can_access_peer(b[i].ctx, b[i + 1].ctx, &down));
        printf("  device %u: %s, rows %u..%u, halos %s\n", i, info.name, b[i].lo, b[i].hi - 1,
               nd == 1 ? "none" : up && down ? "peer" : "staged (a neighbour it cannot reach)");
    }

    uint64_t t0 = ex_now_ns();
    int cur = 0;
    for (uint32_t s = 0; s < steps; s++) {
        for (uint32_t i = 0; i < nd; i++)
            launch(&b[i], cur, w, alpha);
        /* Halo rows: device i's top halo is device i-1's last computed row, its bottom halo device i+1's first,
         * copied once those devices' kernels are done (their events). */
        for (uint32_t i = 0; i < nd; i++) {
            block *d = &b[i];
            krt_queue *q = krt_context_default_queue(d->ctx);
            krt_event *wait[2];
            uint32_t nw = 0;
            if (d->top)
                wait[nw++] = b[i - 1].done;
            if (d->bottom)
                wait[nw++] = b[i + 1].done;
            if (!nw)
                continue;
            EX_CHECK(krt_queue_barrier(q, &(krt_barrier_desc){ .wait = wait, .num_wait = nw }));
            float *out = d->buf[cur ^ 1];
            size_t row = (size_t)w * sizeof(float);
            if (d->top) {
                const block *u = &b[i - 1];
                uint32_t last = u->hi - u->lo + u->top - 1; /* its last computed row, in its buffer */
                EX_CHECK(krt_memcpy(d->ctx, q, out, u->buf[cur ^ 1] + (size_t)last * w, row));
            }
            if (d->bottom) {
                const block *v = &b[i + 1];
                uint32_t mine = d->hi - d->lo + d->top;     /* the bottom halo row, in this buffer */
                EX_CHECK(krt_memcpy(d->ctx, q, out + (size_t)mine * w, v->buf[cur ^ 1] + (size_t)v->top * w, row));
            }
        }
        for (uint32_t i = 0; i < nd; i++) {
            EX_CHECK(krt_queue_synchronize(krt_context_default_queue(b[i].ctx)));
            EX_CHECK(krt_event_reset(b[i].done));
        }
        cur ^= 1;
    }
    double ms = ex_ms_since(t0);

    /* Gather the blocks' rows, then the same steps on device 0 alone over the whole plate. */
    for (uint32_t i = 0; i < nd; i++)
        EX_CHECK(krt_memcpy_sync(b[i].ctx, NULL, whole + (size_t)b[i].lo * w, b[i].buf[cur] + (size_t)b[i].top * w,
                                 (size_t)(b[i].hi - b[i].lo) * w * sizeof(float)));
    block one = { .ctx = b[0].ctx, .step = b[0].step, .lo = 0, .hi = h };
    for (int k = 0; k < 2; k++) {
        one.buf[k] = ex_alloc(one.ctx, cells * sizeof(float));
        EX_CHECK(krt_memcpy(one.ctx, NULL, one.buf[k], plate, cells * sizeof(float)));
    }
    uint64_t t1 = ex_now_ns();
    int c1 = 0;
    for (uint32_t s = 0; s < steps; s++, c1 ^= 1)
        launch(&one, c1, w, alpha);
    EX_CHECK(krt_memcpy_sync(one.ctx, NULL, plate, one.buf[c1], cells * sizeof(float)));
    double ms1 = ex_ms_since(t1);
    size_t differ = 0;
    for (size_t i = 0; i < cells; i++)
        differ += memcmp(&plate[i], &whole[i], sizeof(float)) != 0;
    printf("%u device(s), the host waiting for them each step: %.3f ms a step; device 0 alone, its steps queued "
           "back to back: %.3f ms a step\n", nd, ms / steps, ms1 / steps);
    printf("against device 0 alone on the whole plate: %zu of %zu cells differ: %s\n", differ, cells,
           differ ? "FAILED" : "identical, bit for bit: ok");

    free(plate);
    free(whole);
    for (uint32_t i = nd; i-- > 0;)
        krt_context_destroy(b[i].ctx);
    return differ ? 1 : 0;
}
