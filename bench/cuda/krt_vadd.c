/* krt_vadd: vadd over 16 M floats through krt on the default device, for the comparison with the hand-written
 * CUDA vadd (bench/cuda/cuda_ref.cu) in the GPU run (tools/gpu-test.sh). For krt's own group size and for
 * each power of two from 32 to 1024: 200 launches then one synchronize, per-launch time = wall / 200, the best
 * of 5 rounds; bandwidth counts 12 bytes per element. Checks the result once. Prints the module build time
 * too (ze_cuda's on-disk cache makes the second build of a process cheaper).
 * Usage: krt_vadd [n]   (kernels from $KRT_KERNELS) */
#include <krt.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHECK(x)                                                                                  \
    do {                                                                                          \
        krt_result r_ = (x);                                                                      \
        if (r_ != KRT_SUCCESS) {                                                                  \
            fprintf(stderr, "%s: %s: %s\n", #x, krt_result_name(r_), krt_last_error_message());   \
            return 1;                                                                             \
        }                                                                                         \
    } while (0)

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    uint32_t n = argc > 1 ? (uint32_t)atol(argv[1]) : 16u << 20;
    size_t bytes = (size_t)n * sizeof(float);
    krt_context *ctx;
    CHECK(krt_context_create(NULL, &ctx));
    krt_device_info di;
    CHECK(krt_context_device_info(ctx, &di));
    printf("device: %s (driver %s)\n", di.name, di.driver_name);
    char path[1024];
    const char *dir = getenv("KRT_KERNELS");
    snprintf(path, sizeof path, "%s/vadd.spv", dir ? dir : "build/kernels");
    krt_module *m;
    krt_module_desc md = {.path = path};
    double tm = now_s();
    CHECK(krt_module_create(ctx, &md, &m));
    printf("module build (vadd.spv): %.1f ms\n", (now_s() - tm) * 1e3);
    krt_kernel *k;
    CHECK(krt_kernel_get(m, "vadd", &k));
    float *h = malloc(bytes), *a, *b, *c;
    if (!h) return 1;
    CHECK(krt_alloc(ctx, bytes, NULL, (void **)&a));
    CHECK(krt_alloc(ctx, bytes, NULL, (void **)&b));
    CHECK(krt_alloc(ctx, bytes, NULL, (void **)&c));
    for (uint32_t i = 0; i < n; i++) h[i] = (float)(i % 1000);
    CHECK(krt_memcpy(ctx, NULL, a, h, bytes));
    CHECK(krt_memcpy(ctx, NULL, b, h, bytes));
    krt_arg args[] = {KRT_ARG(a), KRT_ARG(b), KRT_ARG(c), KRT_ARG(n)};
    krt_launch_desc d = {.range = {.dims = 1, .size = {n}}, .args = args, .num_args = 4};
    krt_launch_config cfg;
    CHECK(krt_launch_config_get(k, &d.range, &cfg));
    CHECK(krt_launch_sync(k, &d));
    CHECK(krt_memcpy(ctx, NULL, h, c, bytes));
    CHECK(krt_queue_synchronize(krt_context_default_queue(ctx)));
    uint32_t wrong = 0;
    for (uint32_t i = 0; i < n; i++) wrong += h[i] != 2.0f * (float)(i % 1000);
    printf("vadd %u floats: %u wrong\n", n, wrong);
    for (int g = 0; g <= 6; g++) {
        uint32_t group = g == 0 ? 0 : 16u << g;
        d.group[0] = group;
        d.group[1] = d.group[2] = group ? 1 : 0;
        CHECK(krt_launch_sync(k, &d));
        double best = 1e30;
        for (int r = 0; r < 5; r++) {
            double t0 = now_s();
            for (int i = 0; i < 200; i++) CHECK(krt_launch(k, &d));
            CHECK(krt_queue_synchronize(krt_context_default_queue(ctx)));
            double t = (now_s() - t0) / 200;
            if (t < best) best = t;
        }
        if (group)
            printf("vadd krt group %4u: %8.1f us  %7.0f GB/s\n", group, best * 1e6, 12.0 * n / best / 1e9);
        else
            printf("vadd krt auto (group %u): %8.1f us  %7.0f GB/s\n", cfg.group[0], best * 1e6, 12.0 * n / best / 1e9);
    }
    krt_context_destroy(ctx);
    free(h);
    return wrong ? 1 : 0;
}
