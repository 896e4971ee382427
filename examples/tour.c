/*
 * tour: the program `make run` starts. A short guided run of krt on the default device: what the device is,
 * which extensions its driver advertises, a first kernel checked against the host, the launch configurations
 * krt chooses for awkward ranges and why, and what a launch costs the host, cold and warm.
 *
 * usage: tour   (KRT_DEVICE=<cpu, gpu, name or index> picks another device; krt-info lists them)
 */
#include "example.h"

static void section(const char *title)
{
    printf("\n== %s\n", title);
}

static void show_config(krt_kernel *kernel, const char *kernel_name, krt_ndrange range)
{
    krt_launch_config c;
    EX_CHECK(krt_launch_config_get(kernel, &range, &c));
    char r[64], g[32], n[32];
    if (c.dims == 1) {
        snprintf(r, sizeof r, "%llu", (unsigned long long)range.size[0]);
        snprintf(g, sizeof g, "%u", c.group[0]);
        snprintf(n, sizeof n, "%u", c.groups[0]);
    } else {
        snprintf(r, sizeof r, "%llu x %llu", (unsigned long long)range.size[0], (unsigned long long)range.size[1]);
        snprintf(g, sizeof g, "%u x %u", c.group[0], c.group[1]);
        snprintf(n, sizeof n, "%u x %u", c.groups[0], c.groups[1]);
    }
    printf("  %-13s %-17s %-9s %-11s %-12s %s\n", kernel_name, r, g, n, krt_limit_name(c.limit),
           c.masked ? "yes" : "no");
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *ns, size_t count)
{
    qsort(ns, count, sizeof ns[0], compare_u64);
    return ns[count / 2];
}

/* Two host costs, each the median of many calls timed one by one: krt_launch_config_get, which is krt's own
 * share of a dynamic launch (finding the configuration), and a whole krt_launch, which adds the argument
 * checks and the driver's append. The queue is drained between launches, so a launch is not timed while it
 * competes with running kernels (on a CPU device they share the cores with this thread). */
static void launch_cost(krt_context *ctx, const char *label)
{
    krt_module *module = ex_module(ctx, "vadd.spv");
    krt_kernel *vadd = ex_kernel(module, "vadd");
    uint32_t n = 1024;
    float *a = ex_alloc(ctx, n * sizeof(float)), *b = ex_alloc(ctx, n * sizeof(float));
    float *c = ex_alloc(ctx, n * sizeof(float));
    krt_arg args[] = { KRT_ARG(a), KRT_ARG(b), KRT_ARG(c), KRT_ARG(n) };
    krt_launch_desc launch = { .range = { .dims = 1, .size = { n } }, .args = args, .num_args = 4 };
    krt_queue *queue = krt_context_default_queue(ctx);
    EX_CHECK(krt_launch_sync(vadd, &launch)); /* the first launch builds the kernel's state: not counted */

    enum { CALLS = 1000 };
    static uint64_t ns[CALLS];
    krt_launch_config config;
    for (int i = 0; i < CALLS; i++) {
        uint64_t t0 = ex_now_ns();
        EX_CHECK(krt_launch_config_get(vadd, &launch.range, &config));
        ns[i] = ex_now_ns() - t0;
    }
    double config_us = (double)median(ns, CALLS) / 1e3;
    for (int i = 0; i < CALLS; i++) {
        uint64_t t0 = ex_now_ns();
        EX_CHECK(krt_launch(vadd, &launch));
        ns[i] = ex_now_ns() - t0;
        EX_CHECK(krt_queue_synchronize(queue));
    }
    double launch_us = (double)median(ns, CALLS) / 1e3;
    printf("  %-26s configuration %6.2f us, whole launch %6.2f us\n", label, config_us, launch_us);
    krt_free(ctx, a);
    krt_free(ctx, b);
    krt_free(ctx, c);
    krt_module_destroy(module);
}

int main(void)
{
    printf("krt %d.%d.%d tour\n", KRT_VERSION_MAJOR, KRT_VERSION_MINOR, KRT_VERSION_PATCH);

    section("1. The device");
    uint64_t t0 = ex_now_ns();
    krt_context *ctx = NULL;
    EX_CHECK(krt_context_create(NULL, &ctx));
    double create_ms = ex_ms_since(t0);
    krt_device_info d;
    EX_CHECK(krt_context_device_info(ctx, &d));
    printf("  %s: a %s, driver %s, Level Zero API %u.%u\n", d.name, krt_device_type_name(d.type), d.driver_name,
           d.api_version_major, d.api_version_minor);
    printf("  %u compute units at %u MHz, %llu MiB of memory\n", d.compute_units, d.clock_mhz,
           (unsigned long long)(d.memory_bytes >> 20));
    printf("  work-groups: up to %u work-items (%u x %u x %u), %u KiB of local memory\n", d.max_group_size,
           d.max_group[0], d.max_group[1], d.max_group[2], d.max_shared_local_memory / 1024);
    printf("  context created in %.1f ms (loader, driver and device start-up)\n", create_ms);

    section("2. The driver's extensions (queried once, then memoized)");
    uint32_t count = 0;
    EX_CHECK(krt_context_extensions(ctx, NULL, &count));
    const char **names = calloc(count ? count : 1, sizeof *names);
    if (!names)
        return 2;
    EX_CHECK(krt_context_extensions(ctx, names, &count));
    for (uint32_t i = 0; i < count; i++)
        printf("  %s\n", names[i]);
    free(names);
    const char *ext = "ZE_extension_kernel_max_group_size_properties";
    printf("  %s: %s\n", ext,
           krt_context_has_extension(ctx, ext) ? "present, so each kernel's own maximum group size is used"
                                               : "absent, so krt falls back on the device's limits");

    section("3. A first kernel: vadd over 1000000 floats");
    uint32_t n = 1000000;
    size_t bytes = (size_t)n * sizeof(float);
    krt_module *vadd_module = ex_module(ctx, "vadd.spv");
    krt_kernel *vadd = ex_kernel(vadd_module, "vadd");
    float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
    if (!a || !b || !c)
        return 2;
    for (uint32_t i = 0; i < n; i++) {
        a[i] = (float)i;
        b[i] = 0.5f * (float)i;
    }
    float *da = ex_alloc(ctx, bytes), *db = ex_alloc(ctx, bytes), *dc = ex_alloc(ctx, bytes);
    EX_CHECK(krt_memcpy(ctx, NULL, da, a, bytes));
    EX_CHECK(krt_memcpy(ctx, NULL, db, b, bytes));
    krt_arg args[] = { KRT_ARG(da), KRT_ARG(db), KRT_ARG(dc), KRT_ARG(n) };
    krt_launch_desc launch = { .range = { .dims = 1, .size = { n } }, .args = args, .num_args = 4 };
    t0 = ex_now_ns();
    EX_CHECK(krt_launch_sync(vadd, &launch));
    double ms = ex_ms_since(t0);
    EX_CHECK(krt_memcpy_sync(ctx, NULL, c, dc, bytes));
    uint32_t wrong = 0;
    for (uint32_t i = 0; i < n; i++)
        wrong += c[i] != a[i] + b[i];
    krt_launch_config vc;
    EX_CHECK(krt_launch_config_get(vadd, &launch.range, &vc));
    printf("  launched with no group size given; krt chose %u x %u groups of %u (%s)\n", vc.groups[0], 1u,
           vc.group[0], krt_limit_name(vc.limit));
    printf("  %.2f ms including the first launch's set-up; %u wrong elements: %s\n", ms, wrong,
           wrong ? "FAILED" : "ok");
    /* A porting slip krt catches: KRT_ARG records each argument's C type, and krt checks it against the
     * kernel's (vadd takes a uint n; a float of the same size would otherwise be read as its bits). */
    float n_as_float = (float)n;
    krt_arg slip[] = { KRT_ARG(da), KRT_ARG(db), KRT_ARG(dc), KRT_ARG(n_as_float) };
    krt_launch_desc slipped = { .range = launch.range, .args = slip, .num_args = 4 };
    krt_result sr = krt_launch(vadd, &slipped);
    printf("  the count passed as a float instead: %s\n    %s\n", krt_result_name(sr), krt_last_error_message());
    if (sr != KRT_ERROR_INVALID_KERNEL_ARGUMENT)
        wrong++;

    section("4. Launch configurations krt chooses (no group size given)");
    krt_module *saxpy_module = ex_module(ctx, "saxpy.spv");
    krt_module *heat_module = ex_module(ctx, "heat.spv");
    krt_module *matmul_module = ex_module(ctx, "matmul.spv");
    krt_kernel *saxpy = ex_kernel(saxpy_module, "saxpy");
    krt_kernel *heat = ex_kernel(heat_module, "heat_step");
    krt_kernel *tiled = ex_kernel(matmul_module, "matmul_tiled");
    krt_kernel_properties p;
    EX_CHECK(krt_kernel_properties_get(saxpy, &p));
    printf("  saxpy: max group %u%s, preferred multiple %u, private %u B, spill %u B per work-item\n",
           p.max_group_size, p.max_group_size_from_extension ? " (from the extension)" : " (device limit)",
           p.preferred_multiple, p.private_mem_size, p.spill_mem_size);
    printf("  %-13s %-17s %-9s %-11s %-12s %s\n", "kernel", "range", "group", "groups", "decided by", "masked");
    static const uint64_t sizes[] = { 1, 100, 1000, 4093, 65536, 1000003 };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        show_config(saxpy, "saxpy", (krt_ndrange){ 1, { sizes[i] } });
    show_config(heat, "heat_step", (krt_ndrange){ 2, { 1024, 1024 } });
    show_config(heat, "heat_step", (krt_ndrange){ 2, { 1000, 3 } });
    show_config(tiled, "matmul_tiled", (krt_ndrange){ 2, { 1000, 1000 } });
    printf("  A prime range keeps a full group size: the last group is partial, and runs only the range's items.\n");

    section("5. What a launch costs the host (vadd, 1024 items; medians of 1000 calls)");
    launch_cost(ctx, "memoized (the default):");
    krt_context *nomemo = NULL;
    krt_context_desc nd = { .flags = KRT_CONTEXT_FLAG_NO_MEMO };
    EX_CHECK(krt_context_create(&nd, &nomemo));
    launch_cost(nomemo, "KRT_CONTEXT_FLAG_NO_MEMO:");
    krt_context_destroy(nomemo);

    section("6. Next");
    printf("  build/bin/vadd, saxpy, reduce, matmul, histogram, heat, mandelbrot, pipeline: one idea each\n");
    printf("  build/bin/krt-info [file.spv]: devices, or a module's kernels, arguments and configurations\n");
    printf("  docs/getting-started.md and docs/tutorial-*.md walk through each program\n");

    krt_context_destroy(ctx);
    free(a);
    free(b);
    free(c);
    printf("\ntour: %s\n", wrong ? "FAILED" : "ok");
    return wrong ? 1 : 0;
}
