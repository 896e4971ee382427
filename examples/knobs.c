/*
 * knobs: overriding krt's choice of group size, and the other launch knobs. The same computation,
 * x[i] *= factor over n elements, is launched with krt's choice, a static group size, a kernel's
 * work_group_size_hint, its reqd_work_group_size, a context's min_groups, a specialization constant and driver
 * build options. Each launch is checked twice: the data against the host, and the shape the kernel recorded
 * (its get_local_size and get_num_groups) against what krt said it would launch.
 *
 * usage: knobs [n]   (default 100003; exits 1 on any difference)
 */
#include "example.h"

static int failed;

/* Launches kernel over n elements of x = 1, 2, 3, ... with group (all 0: krt chooses) and checks
 * x[i] == (i + 1) * factor and the recorded shape against want_group (0: krt_launch_config_get's answer). */
static void run(krt_context *ctx, krt_kernel *kernel, const char *label, uint32_t n, const uint32_t group[3],
                float factor, int factor_is_arg)
{
    float *host = malloc(n * sizeof(float));
    if (!host)
        exit(2);
    for (uint32_t i = 0; i < n; i++)
        host[i] = (float)(i + 1);
    float *x = ex_alloc(ctx, n * sizeof(float));
    uint32_t *shape = NULL;
    EX_CHECK(krt_alloc(ctx, 2 * sizeof(uint32_t), &(krt_alloc_desc){ .kind = KRT_MEMORY_SHARED }, (void **)&shape));
    shape[0] = shape[1] = 0;
    EX_CHECK(krt_memcpy(ctx, NULL, x, host, n * sizeof(float)));

    krt_ndrange range = { .dims = 1, .size = { n } };
    krt_launch_config c;
    EX_CHECK(krt_launch_config_get(kernel, &range, &c));
    uint32_t want_group = group[0] ? group[0] : c.group[0];
    uint32_t want_groups = (n + want_group - 1) / want_group;

    krt_arg with_factor[] = { KRT_ARG(x), KRT_ARG(factor), KRT_ARG(n), KRT_ARG(shape) };
    krt_arg without[] = { KRT_ARG(x), KRT_ARG(n), KRT_ARG(shape) };
    krt_launch_desc d = { .range = range, .group = { group[0], group[1], group[2] },
                          .args = factor_is_arg ? with_factor : without, .num_args = factor_is_arg ? 4 : 3 };
    EX_CHECK(krt_launch(kernel, &d));
    EX_CHECK(krt_memcpy(ctx, NULL, host, x, n * sizeof(float)));
    EX_CHECK(krt_queue_synchronize(krt_context_default_queue(ctx)));

    uint32_t wrong = 0;
    for (uint32_t i = 0; i < n; i++)
        wrong += host[i] != (float)(i + 1) * factor;
    int ok = wrong == 0 && shape[0] == want_group && shape[1] == want_groups;
    failed += !ok;
    printf("%-38s group %5u, %5u groups  %-12s %u wrong: %s\n", label, shape[0], shape[1],
           group[0] ? "(static)" : krt_limit_name(c.limit), wrong, ok ? "ok" : "FAILED");
    if (shape[0] != want_group || shape[1] != want_groups)
        printf("  expected group %u, %u groups\n", want_group, want_groups);
    EX_CHECK(krt_free(ctx, x));
    EX_CHECK(krt_free(ctx, shape));
    free(host);
}

static void expect(const char *what, krt_result got, krt_result want)
{
    int ok = got == want;
    failed += !ok;
    printf("%s: %s: %s\n  %s\n", what, krt_result_name(got), ok ? "ok, as expected" : "UNEXPECTED",
           krt_last_error_message());
}

int main(int argc, char **argv)
{
    uint32_t n = (uint32_t)ex_arg_size(argc, argv, 1, 100003);
    krt_context *ctx = ex_context();
    krt_module *module = ex_module(ctx, "knobs.spv");
    krt_kernel *scale = ex_kernel(module, "scale");
    krt_kernel *scale_hint = ex_kernel(module, "scale_hint");
    krt_kernel *scale_reqd = ex_kernel(module, "scale_reqd");
    const uint32_t krt_chooses[3] = { 0, 0, 0 };
    printf("x[i] *= factor over %u elements\n", n);

    /* 1. krt's choice, then a static group size: .group in the launch, used as given. */
    run(ctx, scale, "scale, krt's choice:", n, krt_chooses, 3.0f, 1);
    run(ctx, scale, "scale, .group = { 256 }:", n, (uint32_t[3]){ 256 }, 3.0f, 1);
    run(ctx, scale, "scale, .group = { 100 }:", n, (uint32_t[3]){ 100 }, 3.0f, 1);

    /* 2. The kernel's own preference and requirement. */
    run(ctx, scale_hint, "scale_hint (hint 64), krt's choice:", n, krt_chooses, 3.0f, 1);
    run(ctx, scale_reqd, "scale_reqd (reqd 128), krt's choice:", n, krt_chooses, 3.0f, 1);
    run(ctx, scale_reqd, "scale_reqd, .group = { 128 }:", n, (uint32_t[3]){ 128 }, 3.0f, 1);
    {
        float *x = ex_alloc(ctx, n * sizeof(float));
        uint32_t *shape = ex_alloc(ctx, 2 * sizeof(uint32_t));
        float f = 3.0f;
        krt_arg args[] = { KRT_ARG(x), KRT_ARG(f), KRT_ARG(n), KRT_ARG(shape) };
        expect("scale_reqd, .group = { 256 }",
               krt_launch(scale_reqd,
                          &(krt_launch_desc){ .range = { 1, { n } }, .group = { 256 }, .args = args, .num_args = 4 }),
               KRT_ERROR_INVALID_GROUP_SIZE);
        EX_CHECK(krt_free(ctx, x));
        EX_CHECK(krt_free(ctx, shape));
    }

    /* 3. min_groups: on a small range krt aims at this many groups (default 16; on a CPU device the default
     * does not split small ranges). A context-wide knob. */
    uint32_t small = 4096;
    run(ctx, scale, "scale over 4096, default min_groups:", small, krt_chooses, 3.0f, 1);
    krt_context *ctx64 = NULL;
    EX_CHECK(krt_context_create(&(krt_context_desc){ .min_groups = 64 }, &ctx64));
    krt_module *module64 = ex_module(ctx64, "knobs.spv");
    run(ctx64, ex_kernel(module64, "scale"), "scale over 4096, min_groups 64:", small, krt_chooses, 3.0f, 1);
    krt_context_destroy(ctx64);

    /* 4. A specialization constant: factor fixed when the module is built. */
    run(ctx, ex_kernel(module, "scale_spec"), "scale_spec, SpecId 1 default (2):", n, krt_chooses, 2.0f, 0);
    int32_t five = 5;
    krt_spec_constant spec = { .id = 1, .value = &five, .size = sizeof five };
    krt_module *module5 = NULL;
    krt_module_desc desc5 = { .path = ex_kernel_path("knobs.spv"), .spec_constants = &spec, .num_spec_constants = 1 };
    krt_device_info dev;
    EX_CHECK(krt_context_device_info(ctx, &dev));
    if (dev.type == KRT_DEVICE_TYPE_HOST) {
        /* The host device runs the kernel's native library, compiled before the constant is known. */
        expect("scale_spec, SpecId 1 = 5 on the host device", krt_module_create(ctx, &desc5, &module5),
               KRT_ERROR_UNSUPPORTED_FEATURE);
    } else {
        EX_CHECK(krt_module_create(ctx, &desc5, &module5));
        run(ctx, ex_kernel(module5, "scale_spec"), "scale_spec, SpecId 1 = 5:", n, krt_chooses, 5.0f, 0);
    }

    /* 5. Build options go to the driver as they are: one it accepts, one it refuses. */
    krt_module *relaxed = NULL;
    krt_module_desc fast = { .path = ex_kernel_path("knobs.spv"), .build_options = "-cl-fast-relaxed-math" };
    EX_CHECK(krt_module_create(ctx, &fast, &relaxed));
    run(ctx, ex_kernel(relaxed, "scale"), "scale, -cl-fast-relaxed-math:", n, krt_chooses, 3.0f, 1);
    krt_module *refused = NULL;
    krt_module_desc bad = { .path = ex_kernel_path("knobs.spv"), .build_options = "-cl-std=CL9.9" };
    expect("build_options \"-cl-std=CL9.9\"", krt_module_create(ctx, &bad, &refused), KRT_ERROR_MODULE_BUILD_FAILURE);

    krt_context_destroy(ctx);
    printf("%s\n", failed ? "FAILED" : "ok: every launch right, every shape as krt said");
    return failed ? 1 : 0;
}
