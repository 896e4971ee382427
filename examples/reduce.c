/*
 * reduce: a sum in two passes with local memory and barriers, for float and for int.
 *
 * Pass 1 runs over all n elements; each work-group reduces its part in local memory and writes one partial
 * sum. Pass 2 runs a single group over those partials. The local buffer (one element per work-item) is a
 * kernel argument whose size depends on the group size, so the program asks krt for its configuration first
 * and launches with exactly that group.
 *
 * usage: reduce [n]   (default 4000000)
 */
#include "example.h"

#include <math.h>

/* Runs both passes of kernel over the device buffer in (n elements of elem bytes) and leaves the sum in
 * *result (elem bytes). Returns the time of the two passes in ms. */
static double reduce(krt_context *ctx, krt_kernel *kernel, const void *in, uint32_t n, size_t elem,
                     void *result)
{
    krt_ndrange range = { .dims = 1, .size = { n } };
    krt_launch_config c;
    EX_CHECK(krt_launch_config_get(kernel, &range, &c));
    /* krt's choice may be larger than a small range (it keeps one shape for every range); a static group may
     * not (exact ranges, krt.h), and the tree reduction takes any group size. */
    if (c.group[0] > n) {
        c.group[0] = n;
        c.groups[0] = 1;
    }
    uint32_t groups = c.groups[0];
    void *partial = ex_alloc(ctx, (size_t)groups * elem);
    void *sum = ex_alloc(ctx, elem);

    /* Pass 2 uses one group, as large as the kernel allows but no larger than the number of partials. */
    krt_kernel_properties props;
    EX_CHECK(krt_kernel_properties_get(kernel, &props));
    uint32_t group2 = groups < props.max_group_size ? groups : props.max_group_size;

    krt_arg args1[] = { KRT_ARG(in), KRT_ARG(partial), KRT_ARG_LOCAL(c.group[0] * elem), KRT_ARG(n) };
    krt_launch_desc pass1 = { .range = range, .group = { c.group[0] }, .args = args1, .num_args = 4 };
    krt_arg args2[] = { KRT_ARG(partial), KRT_ARG(sum), KRT_ARG_LOCAL(group2 * elem), KRT_ARG(groups) };
    krt_launch_desc pass2 = { .range = { .dims = 1, .size = { group2 } }, .group = { group2 }, .args = args2,
                              .num_args = 4 };

    uint64_t t0 = ex_now_ns();
    /* Both launches go to the default queue, which is in order: pass 2 starts after pass 1 without a wait. */
    EX_CHECK(krt_launch(kernel, &pass1));
    EX_CHECK(krt_launch(kernel, &pass2));
    EX_CHECK(krt_memcpy_sync(ctx, NULL, result, sum, elem));
    double ms = ex_ms_since(t0);

    printf("  pass 1: %u items, group %u, %u partial sums (decided by %s)\n", n, c.group[0], groups,
           krt_limit_name(c.limit));
    printf("  pass 2: 1 group of %u items\n", group2);
    krt_free(ctx, partial);
    krt_free(ctx, sum);
    return ms;
}

int main(int argc, char **argv)
{
    uint32_t n = (uint32_t)ex_arg_size(argc, argv, 1, 4000000);
    krt_context *ctx = ex_context();
    krt_module *module = ex_module(ctx, "reduce.spv");
    krt_kernel *sum_f32 = ex_kernel(module, "reduce_sum_f32");
    krt_kernel *sum_i32 = ex_kernel(module, "reduce_sum_i32");

    float *f = malloc((size_t)n * sizeof(float));
    int32_t *k = malloc((size_t)n * sizeof(int32_t));
    if (!f || !k) {
        fprintf(stderr, "reduce: out of memory\n");
        return 2;
    }
    uint32_t seed = 1;
    double expect_f = 0.0;
    int64_t expect_i = 0;
    for (uint32_t i = 0; i < n; i++) {
        f[i] = ex_randf(&seed);
        k[i] = (int32_t)(ex_rand(&seed) % 201) - 100;
        expect_f += f[i];
        expect_i += k[i];
    }
    float *df = ex_alloc(ctx, (size_t)n * sizeof(float));
    int32_t *dk = ex_alloc(ctx, (size_t)n * sizeof(int32_t));
    EX_CHECK(krt_memcpy(ctx, NULL, df, f, (size_t)n * sizeof(float)));
    EX_CHECK(krt_memcpy(ctx, NULL, dk, k, (size_t)n * sizeof(int32_t)));

    int failed = 0;
    float got_f = 0.0f;
    printf("float sum of %u values:\n", n);
    double ms = reduce(ctx, sum_f32, df, n, sizeof(float), &got_f);
    /* Float additions in a different order round differently; a relative error of 1e-5 is what a tree of
     * float sums may honestly differ from a double sum by at these sizes. */
    double rel = fabs((double)got_f - expect_f) / (fabs(expect_f) > 1.0 ? fabs(expect_f) : 1.0);
    int bad = !(rel <= 1e-5);
    failed += bad;
    printf("  %.3f ms, sum %.6g, host %.6g, relative error %.1e: %s\n", ms, (double)got_f, expect_f, rel,
           bad ? "FAILED" : "ok");

    int32_t got_i = 0;
    printf("int sum of %u values:\n", n);
    ms = reduce(ctx, sum_i32, dk, n, sizeof(int32_t), &got_i);
    bad = (int64_t)got_i != expect_i;
    failed += bad;
    printf("  %.3f ms, sum %d, host %lld: %s\n", ms, got_i, (long long)expect_i, bad ? "FAILED" : "ok");

    krt_context_destroy(ctx);
    free(f);
    free(k);
    return failed ? 1 : 0;
}
