/*
 * memory: the three memory kinds, what a copy costs, and overlapping copies with compute.
 *
 *  1. Kinds: saxpy (y = a * x + y) on device, host and shared allocations. Device memory is filled and read
 *     with krt_memcpy; host and shared memory are written and read by the host directly (zero-copy).
 *  2. Transfer cost: krt_memcpy between the host and the device at a few sizes, in GB/s, beside the time of a
 *     saxpy over the same data.
 *  3. Overlap: n elements in chunks, each chunk copied in, computed and copied back on one queue; then the
 *     chunks spread over two queues, so that one queue's copies can run while the other computes; then no
 *     copies at all, the kernel working on host memory in place.
 *
 * Every result is checked against the host; the times are printed, never judged.
 * usage: memory [n]   (default 4000000; exits 1 on a wrong result)
 */
#include "example.h"

#define CHUNKS 8

static int failed;

static int check(const float *y, uint32_t n, const char *label)
{
    uint32_t wrong = 0;
    for (uint32_t i = 0; i < n; i++)
        wrong += y[i] != 2.0f * (float)(i % 1024) + 1.0f;
    failed += wrong != 0;
    printf("%s%u wrong: %s\n", label, wrong, wrong ? "FAILED" : "ok");
    return wrong != 0;
}

static void fill_inputs(float *x, float *y, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        x[i] = (float)(i % 1024);
        y[i] = 1.0f;
    }
}

static krt_launch_desc saxpy_desc(krt_arg *args, const float *a, float **x, float **y, uint32_t *n, krt_queue *q)
{
    args[0] = KRT_ARG(*a); /* the caller's variables, typed: float, pointer, pointer, uint32_t */
    args[1] = KRT_ARG(*x);
    args[2] = KRT_ARG(*y);
    args[3] = KRT_ARG(*n);
    return (krt_launch_desc){ .range = { 1, { *n } }, .args = args, .num_args = 4, .queue = q };
}

/* 1. One saxpy on each memory kind. */
static void kinds(krt_context *ctx, krt_kernel *saxpy, uint32_t n)
{
    static const char *const names[] = { "device", "host", "shared" };
    const float a = 2.0f;
    float *hx = malloc(n * sizeof(float)), *hy = malloc(n * sizeof(float));
    if (!hx || !hy)
        exit(2);
    for (int kind = KRT_MEMORY_DEVICE; kind <= KRT_MEMORY_SHARED; kind++) {
        float *x, *y;
        krt_alloc_desc desc = { .kind = (krt_memory_kind)kind };
        EX_CHECK(krt_alloc(ctx, n * sizeof(float), &desc, (void **)&x));
        EX_CHECK(krt_alloc(ctx, n * sizeof(float), &desc, (void **)&y));
        if (kind == KRT_MEMORY_DEVICE) {
            /* Device memory: not for the host to touch. Fill it with copies. */
            fill_inputs(hx, hy, n);
            EX_CHECK(krt_memcpy(ctx, NULL, x, hx, n * sizeof(float)));
            EX_CHECK(krt_memcpy(ctx, NULL, y, hy, n * sizeof(float)));
        } else {
            fill_inputs(x, y, n); /* host and shared memory: the host writes it in place */
        }
        krt_arg args[4];
        uint32_t len = n;
        krt_launch_desc d = saxpy_desc(args, &a, &x, &y, &len, NULL);
        EX_CHECK(krt_launch(saxpy, &d));
        const float *result = y;
        if (kind == KRT_MEMORY_DEVICE) {
            EX_CHECK(krt_memcpy(ctx, NULL, hy, y, n * sizeof(float)));
            result = hy;
        }
        /* Whatever the kind, the host waits for the queue before it reads. */
        EX_CHECK(krt_queue_synchronize(krt_context_default_queue(ctx)));
        char label[96];
        snprintf(label, sizeof label, "  %-6s memory: %-38s", names[kind],
                 kind == KRT_MEMORY_DEVICE ? "krt_memcpy in, saxpy, krt_memcpy out:" : "host writes, saxpy, host reads:");
        check(result, n, label);
        EX_CHECK(krt_free(ctx, x));
        EX_CHECK(krt_free(ctx, y));
    }
    free(hx);
    free(hy);
}

/* 2. Copy bandwidth at a few sizes, and a saxpy over the same bytes for scale. */
static void transfer_cost(krt_context *ctx, krt_kernel *saxpy)
{
    printf("  %10s  %14s  %14s  %14s  %12s\n", "bytes", "host->device", "device->host", "pinned->device",
           "saxpy");
    for (size_t mib = 1; mib <= 64; mib *= 8) {
        size_t bytes = mib << 20;
        uint32_t n = (uint32_t)(bytes / sizeof(float));
        float *h = malloc(bytes), *pinned, *x, *y;
        if (!h)
            exit(2);
        memset(h, 0, bytes);
        EX_CHECK(krt_alloc(ctx, bytes, &(krt_alloc_desc){ .kind = KRT_MEMORY_HOST }, (void **)&pinned));
        memset(pinned, 0, bytes);
        x = ex_alloc(ctx, bytes);
        y = ex_alloc(ctx, bytes);
        krt_queue *q = krt_context_default_queue(ctx);
        /* Each copy once untimed first: the first touch of fresh pages costs more than the copy itself. */
        double t[3];
        for (int which = 0; which < 3; which++) {
            for (int rep = 0; rep < 2; rep++) {
                uint64_t t0 = ex_now_ns();
                if (which == 0)
                    EX_CHECK(krt_memcpy(ctx, NULL, x, h, bytes));
                else if (which == 1)
                    EX_CHECK(krt_memcpy(ctx, NULL, h, x, bytes));
                else
                    EX_CHECK(krt_memcpy(ctx, NULL, y, pinned, bytes));
                EX_CHECK(krt_queue_synchronize(q));
                t[which] = ex_ms_since(t0);
            }
        }
        const float a = 2.0f;
        krt_arg args[4];
        krt_launch_desc d = saxpy_desc(args, &a, &x, &y, &n, NULL);
        EX_CHECK(krt_launch_sync(saxpy, &d)); /* warm-up */
        uint64_t t0 = ex_now_ns();
        EX_CHECK(krt_launch_sync(saxpy, &d));
        double ks = ex_ms_since(t0);
        printf("  %6zu MiB  %7.2f GB/s   %7.2f GB/s   %7.2f GB/s   %8.3f ms\n", mib, (double)bytes / t[0] / 1e6,
               (double)bytes / t[1] / 1e6, (double)bytes / t[2] / 1e6, ks);
        EX_CHECK(krt_free(ctx, x));
        EX_CHECK(krt_free(ctx, y));
        EX_CHECK(krt_free(ctx, pinned));
        free(h);
    }
}

/* 3. Chunks copied in, computed and copied back, on `queues` queues in turn. Returns the time in ms. */
static double chunked(krt_context *ctx, krt_kernel *saxpy, krt_queue *const *q, int queues, float *hx, float *hy,
                      float **dx, float **dy, uint32_t n)
{
    const float a = 2.0f;
    uint32_t len[CHUNKS];
    krt_arg args[CHUNKS][4];
    fill_inputs(hx, hy, n);
    uint64_t t0 = ex_now_ns();
    for (int c = 0; c < CHUNKS; c++) {
        size_t first = (size_t)n / CHUNKS * (size_t)c;
        len[c] = c == CHUNKS - 1 ? n - (uint32_t)first : n / CHUNKS;
        size_t bytes = (size_t)len[c] * sizeof(float);
        krt_queue *qc = q[c % queues];
        /* On one queue these three run in order; the next chunk's copy may run beside this chunk's kernel only
         * when it is on the other queue. */
        EX_CHECK(krt_memcpy(ctx, qc, dx[c], hx + first, bytes));
        EX_CHECK(krt_memcpy(ctx, qc, dy[c], hy + first, bytes));
        krt_launch_desc d = saxpy_desc(args[c], &a, &dx[c], &dy[c], &len[c], qc);
        EX_CHECK(krt_launch(saxpy, &d));
        EX_CHECK(krt_memcpy(ctx, qc, hy + first, dy[c], bytes));
    }
    for (int i = 0; i < queues; i++)
        EX_CHECK(krt_queue_synchronize(q[i]));
    return ex_ms_since(t0);
}

int main(int argc, char **argv)
{
    uint32_t n = (uint32_t)ex_arg_size(argc, argv, 1, 4000000);
    if (n < CHUNKS) {
        fprintf(stderr, "memory: n must be at least %d\n", CHUNKS);
        return 2;
    }
    krt_context *ctx = ex_context();
    krt_module *module = ex_module(ctx, "saxpy.spv");
    krt_kernel *saxpy = ex_kernel(module, "saxpy");

    printf("1. memory kinds, saxpy over %u floats\n", n);
    kinds(ctx, saxpy, n);

    printf("2. what a copy costs (each timed on its second run: the first one also touches fresh pages)\n");
    transfer_cost(ctx, saxpy);

    printf("3. %u floats in %d chunks: copy in, saxpy, copy out\n", n, CHUNKS);
    float *hx, *hy;
    EX_CHECK(krt_alloc(ctx, (size_t)n * sizeof(float), &(krt_alloc_desc){ .kind = KRT_MEMORY_HOST }, (void **)&hx));
    EX_CHECK(krt_alloc(ctx, (size_t)n * sizeof(float), &(krt_alloc_desc){ .kind = KRT_MEMORY_HOST }, (void **)&hy));
    float *dx[CHUNKS], *dy[CHUNKS];
    for (int c = 0; c < CHUNKS; c++) {
        dx[c] = ex_alloc(ctx, ((size_t)n / CHUNKS + CHUNKS) * sizeof(float));
        dy[c] = ex_alloc(ctx, ((size_t)n / CHUNKS + CHUNKS) * sizeof(float));
    }
    krt_queue *q[2] = { krt_context_default_queue(ctx), NULL };
    EX_CHECK(krt_queue_create(ctx, NULL, &q[1]));
    chunked(ctx, saxpy, q, 2, hx, hy, dx, dy, n); /* warm-up of both queues */
    double one = chunked(ctx, saxpy, q, 1, hx, hy, dx, dy, n);
    char label[96];
    snprintf(label, sizeof label, "  one queue:  %8.2f ms, ", one);
    check(hy, n, label);
    double two = chunked(ctx, saxpy, q, 2, hx, hy, dx, dy, n);
    snprintf(label, sizeof label, "  two queues: %8.2f ms, ", two);
    check(hy, n, label);
    /* No copies at all: the kernel works on the host allocations themselves. */
    fill_inputs(hx, hy, n);
    const float a = 2.0f;
    krt_arg args[4];
    krt_launch_desc d = saxpy_desc(args, &a, &hx, &hy, &n, NULL);
    uint64_t t0 = ex_now_ns();
    EX_CHECK(krt_launch_sync(saxpy, &d));
    snprintf(label, sizeof label, "  zero-copy:  %8.2f ms, ", ex_ms_since(t0));
    check(hy, n, label);

    krt_queue_destroy(q[1]);
    krt_context_destroy(ctx);
    printf("%s\n", failed ? "FAILED" : "ok: every result checked");
    return failed ? 1 : 0;
}
