/*
 * saxpy: y = a * x + y over awkward sizes. Ranges that are prime, odd or tiny do not divide into groups;
 * krt never answers that with a group size of 1 (which would make every work-item its own group). It
 * keeps a good group size and launches it exactly: the last group is partial (OpenCL 2.0's non-uniform groups).
 * For each size this prints the configuration krt chose and checks every element.
 *
 * usage: saxpy [n ...]   (default: 1 7 100 1000 4093 65536 1000003)
 */
#include "example.h"

static int run(krt_context *ctx, krt_kernel *saxpy, uint32_t n)
{
    size_t bytes = (size_t)n * sizeof(float);
    float *x = malloc(bytes), *y = malloc(bytes), *expect = malloc(bytes);
    if (!x || !y || !expect) {
        fprintf(stderr, "saxpy: out of memory\n");
        exit(2);
    }
    const float a = 3.0f;
    for (uint32_t i = 0; i < n; i++) {
        x[i] = (float)(i % 1000) * 0.5f;
        y[i] = (float)(i % 7);
        expect[i] = a * x[i] + y[i];
    }
    float *dx = ex_alloc(ctx, bytes), *dy = ex_alloc(ctx, bytes);
    EX_CHECK(krt_memcpy(ctx, NULL, dx, x, bytes));
    EX_CHECK(krt_memcpy(ctx, NULL, dy, y, bytes));

    krt_ndrange range = { .dims = 1, .size = { n } };
    krt_launch_config c;
    EX_CHECK(krt_launch_config_get(saxpy, &range, &c));

    krt_arg args[] = { KRT_ARG(a), KRT_ARG(dx), KRT_ARG(dy), KRT_ARG(n) };
    krt_launch_desc launch = { .range = range, .args = args, .num_args = 4 };
    uint64_t t0 = ex_now_ns();
    EX_CHECK(krt_launch_sync(saxpy, &launch));
    double ms = ex_ms_since(t0);

    EX_CHECK(krt_memcpy_sync(ctx, NULL, y, dy, bytes));
    uint32_t wrong = 0;
    for (uint32_t i = 0; i < n; i++)
        if (y[i] != expect[i])
            wrong++;

    uint64_t launched = (uint64_t)c.group[0] * c.groups[0];
    printf("%10u  %6u  %8u  %10llu  %-12s  %8.3f  %s\n", n, c.group[0], c.groups[0],
           (unsigned long long)(launched - n), krt_limit_name(c.limit), ms, wrong ? "FAILED" : "ok");

    krt_free(ctx, dx);
    krt_free(ctx, dy);
    free(x);
    free(y);
    free(expect);
    return wrong != 0;
}

int main(int argc, char **argv)
{
    static const uint32_t defaults[] = { 1, 7, 100, 1000, 4093, 65536, 1000003 };
    krt_context *ctx = ex_context();
    krt_module *module = ex_module(ctx, "saxpy.spv");
    krt_kernel *saxpy = ex_kernel(module, "saxpy");

    printf("%10s  %6s  %8s  %10s  %-12s  %8s  %s\n", "n", "group", "groups", "masked", "decided by", "ms",
           "check");
    int failed = 0;
    if (argc > 1) {
        for (int i = 1; i < argc; i++)
            failed += run(ctx, saxpy, (uint32_t)ex_arg_size(argc, argv, i, 1));
    } else {
        for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
            failed += run(ctx, saxpy, defaults[i]);
    }
    krt_context_destroy(ctx);
    printf("%s\n", failed ? "FAILED" : "ok: every size correct");
    return failed ? 1 : 0;
}
