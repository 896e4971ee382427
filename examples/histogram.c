/*
 * histogram: atomics. 256 bins over n bytes, counted two ways: every work-item does an atomic increment in
 * global memory, or each group counts in local memory first and adds its counts to the global bins once.
 * Both must give exactly the host's counts. Each kernel is launched once untimed first (a warm-up), so that the
 * times compare the kernels, not the driver's build of each kernel on its first launch.
 *
 * usage: histogram [n]   (default 16000000)
 */
#include "example.h"

/* group 0: krt chooses; else a static group size of that many work-items. */
static int run(krt_context *ctx, krt_kernel *kernel, const char *name, const uint8_t *ddata, uint32_t *dbins,
               uint32_t n, const uint32_t *expect, uint32_t group)
{
    krt_ndrange range = { .dims = 1, .size = { n } };
    krt_launch_config c;
    EX_CHECK(krt_launch_config_get(kernel, &range, &c));
    if (group) {
        c.group[0] = group;
        c.groups[0] = (n + group - 1) / group;
        c.limit = KRT_LIMIT_STATIC;
    }
    krt_arg args[] = { KRT_ARG(ddata), KRT_ARG(dbins), KRT_ARG(n) };
    krt_launch_desc launch = { .range = range, .group = { group }, .args = args, .num_args = 3 };

    /* The bins must start at zero: a queued fill, ordered before the launch by the in-order queue. */
    uint32_t zero = 0;
    uint32_t bins[256];
    EX_CHECK(krt_launch_sync(kernel, &launch)); /* warm-up: the driver builds the kernel on its first launch */
    uint64_t t0 = ex_now_ns();
    EX_CHECK(krt_memfill(ctx, NULL, dbins, &zero, sizeof zero, sizeof bins));
    EX_CHECK(krt_launch(kernel, &launch));
    EX_CHECK(krt_memcpy_sync(ctx, NULL, bins, dbins, sizeof bins));
    double ms = ex_ms_since(t0);

    int wrong = 0;
    for (int i = 0; i < 256; i++)
        if (bins[i] != expect[i])
            wrong++;
    char limit[32];
    snprintf(limit, sizeof limit, "(%s):", krt_limit_name(c.limit));
    printf("%-16s group %4u, %5u groups %-13s %8.3f ms: %s\n", name, c.group[0], c.groups[0], limit, ms,
           wrong ? "FAILED" : "ok");
    return wrong != 0;
}

int main(int argc, char **argv)
{
    uint32_t n = (uint32_t)ex_arg_size(argc, argv, 1, 16000000);
    krt_context *ctx = ex_context();
    krt_module *module = ex_module(ctx, "histogram.spv");
    krt_kernel *global_atomics = ex_kernel(module, "histogram_global");
    krt_kernel *local_atomics = ex_kernel(module, "histogram_local");

    /* Skewed data (the sum of two random bytes, halved) so that some bins are hot, as in real images. */
    uint8_t *data = malloc(n);
    if (!data) {
        fprintf(stderr, "histogram: out of memory\n");
        return 2;
    }
    uint32_t expect[256] = { 0 };
    uint32_t seed = 3;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = ex_rand(&seed);
        data[i] = (uint8_t)(((r & 0xff) + ((r >> 8) & 0xff)) / 2);
        expect[data[i]]++;
    }
    uint8_t *ddata = ex_alloc(ctx, n);
    uint32_t *dbins = ex_alloc(ctx, 256 * sizeof(uint32_t));
    EX_CHECK(krt_memcpy(ctx, NULL, ddata, data, n));

    printf("histogram of %u bytes into 256 bins\n", n);
    int failed = 0;
    failed += run(ctx, global_atomics, "global atomics", ddata, dbins, n, expect, 0);
    failed += run(ctx, local_atomics, "local atomics", ddata, dbins, n, expect, 0);
    /* The local version again with groups of 256, one work-item per bin: how much its cost depends on the group
     * size (docs/tutorial-histogram.md). */
    failed += run(ctx, local_atomics, "local atomics", ddata, dbins, n, expect, 256);

    krt_context_destroy(ctx);
    free(data);
    return failed ? 1 : 0;
}
