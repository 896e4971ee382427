/*
 * matmul: a 2-D range, and tiling with local memory. C = A * B with A m x k and B k x n, computed by a naive
 * kernel (krt chooses a 2-D group) and by a tiled kernel that stages 16 x 16 tiles in local memory and so
 * requires 16 x 16 groups (krt obeys). Prints each configuration, the time and the GFLOP/s of each.
 *
 * usage: matmul [m [n [k]]]   (default 512 512 512; n and k default to m)
 */
#include "example.h"

#include <math.h>

/* Launches the kernel once to warm it up (the first launch of a kernel builds its state), then once timed,
 * and checks C against the reference. Returns 1 on a wrong answer. */
static int run(krt_context *ctx, krt_kernel *kernel, const char *name, float *da, float *db, float *dc,
               uint32_t m, uint32_t n, uint32_t k, const double *ref)
{
    size_t cbytes = (size_t)m * n * sizeof(float);
    krt_ndrange range = { .dims = 2, .size = { n, m } }; /* dimension 0: columns, dimension 1: rows */
    krt_kernel_info info;
    EX_CHECK(krt_kernel_info_get(kernel, &info));
    if (info.required_group[0]) {
        /* The tiled kernel loads whole tiles (every item of a group loads one element of each, zero past the
         * matrix, and only its store is guarded): its range is padded to whole groups, OpenCL 1.2-style. */
        range.size[0] = (n + info.required_group[0] - 1) / info.required_group[0] * info.required_group[0];
        range.size[1] = (m + info.required_group[1] - 1) / info.required_group[1] * info.required_group[1];
    }
    krt_launch_config c;
    EX_CHECK(krt_launch_config_get(kernel, &range, &c));

    krt_arg args[] = { KRT_ARG(da), KRT_ARG(db), KRT_ARG(dc), KRT_ARG(m), KRT_ARG(n), KRT_ARG(k) };
    krt_launch_desc launch = { .range = range, .args = args, .num_args = 6 };
    float zero = 0.0f;
    EX_CHECK(krt_memfill(ctx, NULL, dc, &zero, sizeof zero, cbytes));
    EX_CHECK(krt_launch_sync(kernel, &launch));
    uint64_t t0 = ex_now_ns();
    EX_CHECK(krt_launch_sync(kernel, &launch));
    double s = (double)(ex_now_ns() - t0) / 1e9;

    float *cm = malloc(cbytes);
    if (!cm) {
        fprintf(stderr, "matmul: out of memory\n");
        exit(2);
    }
    EX_CHECK(krt_memcpy_sync(ctx, NULL, cm, dc, cbytes));
    /* The inputs lie in [0, 1), so each element of C is a sum of k terms in [0, 1); float rounding over k
     * terms stays far below 1e-4 * k, and any indexing mistake lands far above it. */
    double tol = 1e-4 * k;
    size_t wrong = 0;
    for (size_t i = 0; i < (size_t)m * n; i++)
        if (!(fabs((double)cm[i] - ref[i]) <= tol))
            wrong++;
    free(cm);

    double gflops = 2.0 * m * n * k / s / 1e9;
    printf("%-6s group %u x %u (%s), groups %u x %u: %.2f ms, %.2f GFLOP/s: %s\n", name, c.group[0], c.group[1],
           krt_limit_name(c.limit), c.groups[0], c.groups[1], s * 1e3, gflops, wrong ? "FAILED" : "ok");
    if (wrong)
        printf("  %zu of %zu elements wrong\n", wrong, (size_t)m * n);
    return wrong != 0;
}

int main(int argc, char **argv)
{
    uint32_t m = (uint32_t)ex_arg_size(argc, argv, 1, 512);
    uint32_t n = (uint32_t)ex_arg_size(argc, argv, 2, m);
    uint32_t k = (uint32_t)ex_arg_size(argc, argv, 3, m);
    krt_context *ctx = ex_context();
    krt_module *module = ex_module(ctx, "matmul.spv");
    krt_kernel *naive = ex_kernel(module, "matmul_naive");
    krt_kernel *tiled = ex_kernel(module, "matmul_tiled");

    krt_kernel_info info;
    EX_CHECK(krt_kernel_info_get(tiled, &info));
    printf("matmul_tiled requires a group of %u x %u x %u (reqd_work_group_size)\n", info.required_group[0],
           info.required_group[1], info.required_group[2]);

    size_t abytes = (size_t)m * k * sizeof(float), bbytes = (size_t)k * n * sizeof(float);
    float *a = malloc(abytes), *b = malloc(bbytes);
    double *ref = malloc((size_t)m * n * sizeof(double));
    if (!a || !b || !ref) {
        fprintf(stderr, "matmul: out of memory\n");
        return 2;
    }
    uint32_t seed = 7;
    for (size_t i = 0; i < (size_t)m * k; i++)
        a[i] = ex_randf(&seed);
    for (size_t i = 0; i < (size_t)k * n; i++)
        b[i] = ex_randf(&seed);
    uint64_t t0 = ex_now_ns();
    for (uint32_t r = 0; r < m; r++) {
        double *row = ref + (size_t)r * n;
        for (uint32_t j = 0; j < n; j++)
            row[j] = 0.0;
        for (uint32_t i = 0; i < k; i++) {
            double av = a[(size_t)r * k + i];
            const float *brow = b + (size_t)i * n;
            for (uint32_t j = 0; j < n; j++)
                row[j] += av * brow[j];
        }
    }
    printf("C = A * B with A %u x %u, B %u x %u (host reference in double: %.2f ms)\n", m, k, k, n,
           ex_ms_since(t0));

    float *da = ex_alloc(ctx, abytes), *db = ex_alloc(ctx, bbytes);
    float *dc = ex_alloc(ctx, (size_t)m * n * sizeof(float));
    EX_CHECK(krt_memcpy(ctx, NULL, da, a, abytes));
    EX_CHECK(krt_memcpy(ctx, NULL, db, b, bbytes));

    int failed = 0;
    failed += run(ctx, naive, "naive", da, db, dc, m, n, k, ref);
    failed += run(ctx, tiled, "tiled", da, db, dc, m, n, k, ref);

    krt_context_destroy(ctx);
    free(a);
    free(b);
    free(ref);
    return failed ? 1 : 0;
}
