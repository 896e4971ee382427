/* The host device (KRT_DEVICE_TYPE_HOST): kernels compiled as C from the project's .cl files and run natively
 * (build/kernels/host/NAME.so beside build/kernels/NAME.spv). Launches, barriers at every group size up to the
 * device's maximum, __local memory, errors, events, queues and threads; test_oracle.c compares every example
 * kernel's results with ze_pocl's. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "krt_test.h"

TestSuite(host, .timeout = KT_TEST_TIMEOUT);

static krt_context *host_context(void)
{
    return kt_context(&(krt_context_desc){ .device = "host" });
}

static const char *kernel_spv(const char *name)
{
    static _Thread_local char path[4096];
    const char *dir = getenv("KRT_KERNELS");
    cr_assert(dir && dir[0], "KRT_KERNELS is not set (run the tests through make)");
    snprintf(path, sizeof path, "%s/%s.spv", dir, name);
    return path;
}

static krt_module *host_module(krt_context *ctx, const char *name)
{
    krt_module *m = NULL;
    KT_OK(krt_module_create(ctx, &(krt_module_desc){ .path = kernel_spv(name) }, &m));
    return m;
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

Test(host, listed_once_and_chosen_only_by_name)
{
    uint32_t n = 0;
    KT_OK(krt_device_list(NULL, &n));
    krt_device_info *infos = calloc(n, sizeof *infos);
    cr_assert_not_null(infos);
    KT_OK(krt_device_list(infos, &n));
    int hosts = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (infos[i].type != KRT_DEVICE_TYPE_HOST)
            continue;
        hosts++;
        cr_assert_str_eq(infos[i].driver_name, "host");
        cr_assert_eq(i, n - 1, "the host device is listed after every Level Zero device");
        cr_assert_eq(infos[i].max_group_size, 1024);
        cr_assert_eq(infos[i].compute_units, (uint32_t)sysconf(_SC_NPROCESSORS_ONLN));
        cr_assert_gt(infos[i].max_shared_local_memory, 0);
    }
    cr_assert_eq(hosts, 1);
    free(infos);
    cr_assert_str_eq(krt_device_type_name(KRT_DEVICE_TYPE_HOST), "host");

    krt_context *ctx = host_context();
    krt_device_info info;
    KT_OK(krt_context_device_info(ctx, &info));
    cr_assert_eq(info.type, KRT_DEVICE_TYPE_HOST);
    krt_context_destroy(ctx);
    /* "cpu" is ze_pocl's device, never the host; the default never picks the host either. */
    ctx = kt_context(&(krt_context_desc){ .device = "cpu" });
    KT_OK(krt_context_device_info(ctx, &info));
    cr_assert_eq(info.type, KRT_DEVICE_TYPE_CPU);
    krt_context_destroy(ctx);
    unsetenv("KRT_DEVICE");
    ctx = kt_context(NULL);
    KT_OK(krt_context_device_info(ctx, &info));
    cr_assert_neq(info.type, KRT_DEVICE_TYPE_HOST);
    krt_context_destroy(ctx);
    krt_context *none = NULL;
    KT_EXPECT(krt_context_create(&(krt_context_desc){ .device = "host:1" }, &none), KRT_ERROR_NO_DEVICE);
    cr_assert(strstr(krt_last_error_message(), "only 1 host device"), "%s", krt_last_error_message());
}

/* Without any Level Zero driver the host device is still there, but only for whoever asks for it. */
Test(host, there_without_a_level_zero_driver)
{
    setenv("ZE_ENABLE_ALT_DRIVERS", "/nonexistent/krt-test/libze_nothing.so", 1);
    unsetenv("KRT_DEVICE");
    krt_context *ctx = NULL;
    KT_EXPECT(krt_context_create(NULL, &ctx), KRT_ERROR_NO_DRIVER);
    cr_assert(strstr(krt_last_error_message(), "KRT_DEVICE=host"), "%s", krt_last_error_message());
    uint32_t n = 0;
    KT_OK(krt_device_list(NULL, &n));
    cr_assert_eq(n, 1);
    krt_device_info info;
    KT_OK(krt_device_list(&info, &n));
    cr_assert_eq(info.type, KRT_DEVICE_TYPE_HOST);
    ctx = host_context();
    krt_module *m = host_module(ctx, "vadd");
    krt_kernel *k = kt_kernel(m, "vadd");
    uint32_t count = 1000;
    float *a = kt_alloc(ctx, count * sizeof *a, KRT_MEMORY_SHARED);
    for (uint32_t i = 0; i < count; i++)
        a[i] = (float)i;
    krt_arg args[] = { KRT_ARG(a), KRT_ARG(a), KRT_ARG(a), KRT_ARG(count) };
    krt_launch_desc d = kt_desc1(count, args, 4);
    KT_OK(krt_launch_sync(k, &d));
    for (uint32_t i = 0; i < count; i++)
        cr_assert_eq(a[i], 2.0f * (float)i);
    krt_context_destroy(ctx);
}

static void vadd_check(krt_context *ctx, krt_kernel *k, uint32_t n, const uint32_t *group)
{
    float *a = kt_alloc(ctx, (n + 1) * sizeof(float), KRT_MEMORY_SHARED);
    float *b = kt_alloc(ctx, (n + 1) * sizeof(float), KRT_MEMORY_DEVICE);
    float *c = kt_alloc(ctx, (n + 1) * sizeof(float), KRT_MEMORY_HOST);
    for (uint32_t i = 0; i <= n; i++) {
        a[i] = (float)i * 0.5f;
        b[i] = 3.0f - (float)i;
        c[i] = -1.0f;
    }
    krt_arg args[] = { KRT_ARG(a), KRT_ARG(b), KRT_ARG(c), KRT_ARG(n) };
    krt_launch_desc d = kt_desc1(n, args, 4);
    if (group)
        memcpy(d.group, group, sizeof d.group);
    KT_OK(krt_launch_sync(k, &d));
    for (uint32_t i = 0; i < n; i++)
        cr_assert_eq(c[i], a[i] + b[i], "n %u: c[%u] = %g", n, i, (double)c[i]);
    cr_assert_eq(c[n], -1.0f, "n %u: the element past the end was written", n);
    KT_OK(krt_free(ctx, a));
    KT_OK(krt_free(ctx, b));
    KT_OK(krt_free(ctx, c));
}

Test(host, vadd_over_sizes_and_groups)
{
    krt_context *ctx = host_context();
    krt_kernel *k = kt_kernel(host_module(ctx, "vadd"), "vadd");
    const uint32_t sizes[] = { 1, 2, 63, 64, 65, 1000, 4097, 100003 };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        vadd_check(ctx, k, sizes[i], NULL);
    const uint32_t groups[][3] = { { 1 }, { 3 }, { 64 }, { 1000 }, { 1024 } };
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
        vadd_check(ctx, k, 5000, groups[i]);
    krt_context_destroy(ctx);
}

/* A library of ABI 2 (no group runners, built as krt-cc built them before ABI 3) still loads and runs, one
 * call per work-item, exact ranges and partial groups included. */
Test(host, older_libraries_run_per_work_item)
{
    krt_context *ctx = host_context();
    char lib[4096];
    snprintf(lib, sizeof lib, "%s/abi2/vadd.so", getenv("KRT_TEST_KERNELS"));
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    cr_assert(h, "%s: %s", lib, dlerror());
    uint32_t (*version)(void) = (uint32_t(*)(void))dlsym(h, "krt_host_abi_version");
    cr_assert(version && version() == 2u && !dlsym(h, "krt_host_group_vadd"), "%s is not an ABI 2 library", lib);
    dlclose(h);
    krt_module *m = NULL;
    KT_OK(krt_module_create(ctx, &(krt_module_desc){ .path = kernel_spv("vadd"), .host_library = lib }, &m));
    krt_kernel *k = kt_kernel(m, "vadd");
    const uint32_t sizes[] = { 1, 65, 4097 };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        vadd_check(ctx, k, sizes[i], NULL);
    const uint32_t groups[][3] = { { 3 }, { 1000 } };
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
        vadd_check(ctx, k, 5000, groups[i]);
    krt_context_destroy(ctx);
}

Test(host, saxpy_scalars_in_any_position)
{
    krt_context *ctx = host_context();
    krt_kernel *k = kt_kernel(host_module(ctx, "saxpy"), "saxpy");
    uint32_t n = 12345;
    float *x = kt_alloc(ctx, n * sizeof *x, KRT_MEMORY_SHARED);
    float *y = kt_alloc(ctx, n * sizeof *y, KRT_MEMORY_SHARED);
    for (uint32_t i = 0; i < n; i++) {
        x[i] = (float)(i % 97);
        y[i] = (float)(i % 13);
    }
    float a = 2.5f;
    krt_arg args[] = { KRT_ARG(a), KRT_ARG(x), KRT_ARG(y), KRT_ARG(n) };
    krt_launch_desc d = kt_desc1(n, args, 4);
    KT_OK(krt_launch_sync(k, &d));
    for (uint32_t i = 0; i < n; i++)
        cr_assert_eq(y[i], 2.5f * (float)(i % 97) + (float)(i % 13));
    krt_context_destroy(ctx);
}

/* reduce_sum_i32 with a static group of g work-items: one barrier tree per group, so every group size up to the
 * device's maximum (1024), powers of two or not, checks the work-item switching and the __local buffer. */
Test(host, reduce_at_every_kind_of_group_size_up_to_the_maximum)
{
    krt_context *ctx = host_context();
    krt_kernel *k = kt_kernel(host_module(ctx, "reduce"), "reduce_sum_i32");
    krt_device_info info;
    KT_OK(krt_context_device_info(ctx, &info));
    uint32_t n = 50000;
    int32_t *in = kt_alloc(ctx, n * sizeof *in, KRT_MEMORY_SHARED);
    srand(12);
    for (uint32_t i = 0; i < n; i++)
        in[i] = rand() % 2001 - 1000;
    const uint32_t groups[] = { 1, 2, 3, 7, 31, 64, 100, 255, 256, 513, 1000, info.max_group_size };
    for (size_t gi = 0; gi < sizeof groups / sizeof groups[0]; gi++) {
        uint32_t g = groups[gi];
        uint32_t range = g * 6; /* six groups; each work-item strides over the whole input */
        int32_t *partial = kt_alloc(ctx, 6 * sizeof *partial, KRT_MEMORY_SHARED);
        krt_arg args[] = { KRT_ARG(in), KRT_ARG(partial), KRT_ARG_LOCAL(g * sizeof(int32_t)), KRT_ARG(n) };
        krt_launch_desc d = kt_desc1(range, args, 4);
        d.group[0] = g;
        KT_OK(krt_launch_sync(k, &d));
        for (uint32_t grp = 0; grp < 6; grp++) {
            int64_t want = 0;
            for (uint32_t item = grp * g; item < (grp + 1) * g; item++)
                for (uint32_t i = item; i < n; i += range)
                    want += in[i];
            cr_assert_eq(partial[grp], (int32_t)want, "group size %u, group %u: %d, want %lld", g, grp, partial[grp],
                         (long long)want);
        }
        KT_OK(krt_free(ctx, partial));
    }
    krt_context_destroy(ctx);
}

Test(host, histogram_local_at_group_sizes_up_to_the_maximum)
{
    krt_context *ctx = host_context();
    krt_module *m = host_module(ctx, "histogram");
    krt_kernel *local = kt_kernel(m, "histogram_local");
    krt_kernel *global = kt_kernel(m, "histogram_global");
    uint32_t n = 200003;
    uint8_t *data = kt_alloc(ctx, n, KRT_MEMORY_SHARED);
    uint32_t want[256] = { 0 };
    srand(5);
    for (uint32_t i = 0; i < n; i++) {
        data[i] = (uint8_t)(rand() % 7 == 0 ? 42 : rand());
        want[data[i]]++;
    }
    uint32_t *bins = kt_alloc(ctx, 256 * sizeof *bins, KRT_MEMORY_SHARED);
    const uint32_t groups[] = { 0, 1, 17, 256, 512, 1000, 1024 };
    for (int which = 0; which < 2; which++) {
        for (size_t gi = 0; gi < sizeof groups / sizeof groups[0]; gi++) {
            memset(bins, 0, 256 * sizeof *bins);
            krt_arg args[] = { KRT_ARG(data), KRT_ARG(bins), KRT_ARG(n) };
            krt_launch_desc d = kt_desc1(n, args, 3);
            d.group[0] = groups[gi];
            KT_OK(krt_launch_sync(which ? global : local, &d));
            for (int b = 0; b < 256; b++)
                cr_assert_eq(bins[b], want[b], "%s, group %u: bin %d holds %u, want %u",
                             which ? "histogram_global" : "histogram_local", groups[gi], b, bins[b], want[b]);
        }
    }
    krt_context_destroy(ctx);
}

static void matmul_ref(const float *a, const float *b, float *c, uint32_t m, uint32_t n, uint32_t kk)
{
    for (uint32_t r = 0; r < m; r++)
        for (uint32_t col = 0; col < n; col++) {
            double s = 0;
            for (uint32_t i = 0; i < kk; i++)
                s += (double)a[r * kk + i] * b[i * n + col];
            c[r * n + col] = (float)s;
        }
}

Test(host, matmul_naive_and_tiled_in_two_dimensions)
{
    krt_context *ctx = host_context();
    krt_module *mod = host_module(ctx, "matmul");
    krt_kernel *naive = kt_kernel(mod, "matmul_naive");
    krt_kernel *tiled = kt_kernel(mod, "matmul_tiled");
    krt_kernel_info ki;
    KT_OK(krt_module_kernel_info(mod, "matmul_naive", &ki));
    cr_assert_eq(ki.num_args, 6);
    const uint32_t dims[][3] = { { 16, 16, 16 }, { 33, 17, 40 }, { 64, 48, 80 } };
    for (size_t t = 0; t < sizeof dims / sizeof dims[0]; t++) {
        uint32_t m = dims[t][0], n = dims[t][1], kk = dims[t][2];
        float *a = kt_alloc(ctx, (size_t)m * kk * sizeof(float), KRT_MEMORY_SHARED);
        float *b = kt_alloc(ctx, (size_t)kk * n * sizeof(float), KRT_MEMORY_SHARED);
        float *c = kt_alloc(ctx, (size_t)m * n * sizeof(float), KRT_MEMORY_SHARED);
        float *ref = malloc((size_t)m * n * sizeof(float));
        for (uint32_t i = 0; i < m * kk; i++)
            a[i] = (float)((i * 7) % 11) - 5.0f;
        for (uint32_t i = 0; i < kk * n; i++)
            b[i] = (float)((i * 3) % 5) - 2.0f;
        matmul_ref(a, b, ref, m, n, kk);
        for (int which = 0; which < 2; which++) {
            memset(c, 0, (size_t)m * n * sizeof(float));
            krt_arg args[] = { KRT_ARG(a), KRT_ARG(b), KRT_ARG(c), KRT_ARG(m), KRT_ARG(n), KRT_ARG(kk) };
            krt_launch_desc d = { .range = { .dims = 2, .size = { n, m } }, .args = args, .num_args = 6 };
            if (!which) {
                d.group[0] = 32; /* 32 x 32 = the maximum */
                d.group[1] = 32;
                if (d.group[0] > n || d.group[1] > m)
                    d.group[0] = d.group[1] = 0;
            }
            if (which) { /* the tiled kernel loads whole tiles: its range is padded to them, and it guards */
                d.range.size[0] = (n + 15) / 16 * 16;
                d.range.size[1] = (m + 15) / 16 * 16;
            }
            KT_OK(krt_launch_sync(which ? tiled : naive, &d));
            for (uint32_t i = 0; i < m * n; i++)
                cr_assert_eq(c[i], ref[i], "%s %ux%ux%u: c[%u] = %g, want %g", which ? "tiled" : "naive", m, n, kk,
                             i, (double)c[i], (double)ref[i]);
        }
        free(ref);
    }
    krt_context_destroy(ctx);
}

Test(host, memfill_every_pattern_size)
{
    krt_context *ctx = host_context();
    size_t size = 4096 + 128;
    uint8_t *p = kt_alloc(ctx, size + 16, KRT_MEMORY_DEVICE);
    uint8_t pattern[128];
    for (int i = 0; i < 128; i++)
        pattern[i] = (uint8_t)(i * 37 + 1);
    for (size_t ps = 1; ps <= 128; ps *= 2) {
        memset(p, 0xee, size + 16);
        KT_OK(krt_memfill(ctx, NULL, p + 8, pattern, ps, size));
        KT_OK(krt_queue_synchronize(krt_context_default_queue(ctx)));
        for (size_t i = 0; i < size; i++)
            cr_assert_eq(p[8 + i], pattern[i % ps], "pattern %zu, byte %zu", ps, i);
        cr_assert_eq(p[7], 0xee);
        cr_assert_eq(p[8 + size], 0xee);
    }
    KT_EXPECT(krt_memfill(ctx, NULL, p, pattern, 3, 9), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_memfill(ctx, NULL, p, pattern, 4, size + 32), KRT_ERROR_INVALID_ARGUMENT);
    krt_context_destroy(ctx);
}

/* The argument checks come from the SPIR-V, as on any device: the same call fails with the same code and the
 * same message on the host device and on ze_pocl. */
Test(host, argument_errors_are_those_of_a_device)
{
    krt_context *host = host_context();
    krt_context *cpu = kt_context(&(krt_context_desc){ .device = "cpu" });
    krt_context *ctxs[2] = { host, cpu };
    char msg[2][6][512];
    for (int c = 0; c < 2; c++) {
        krt_module *mod = host_module(ctxs[c], "vadd");
        krt_kernel *k = kt_kernel(mod, "vadd");
        float *a = kt_alloc(ctxs[c], 64 * sizeof(float), KRT_MEMORY_SHARED);
        float x = 1.0f;
        uint32_t n = 64;
        int local_int = 5;
        krt_arg too_few[] = { KRT_ARG(a), KRT_ARG(a), KRT_ARG(a) };
        krt_arg wrong_type[] = { KRT_ARG(a), KRT_ARG(a), KRT_ARG(a), KRT_ARG(x) };
        krt_arg not_alloc[] = { KRT_ARG(a), KRT_ARG(a), { .value = &(void *){ &local_int }, .size = sizeof(void *) },
                                KRT_ARG(n) };
        krt_arg ok[] = { KRT_ARG(a), KRT_ARG(a), KRT_ARG(a), KRT_ARG(n) };
        krt_launch_desc d = kt_desc1(n, too_few, 3);
        KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
        snprintf(msg[c][0], sizeof msg[c][0], "%s", krt_last_error_message());
        d = kt_desc1(n, wrong_type, 4);
        KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
        snprintf(msg[c][1], sizeof msg[c][1], "%s", krt_last_error_message());
        d = kt_desc1(n, not_alloc, 4);
        KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_POINTER);
        snprintf(msg[c][2], sizeof msg[c][2], "%s", krt_last_error_message());
        d = kt_desc1(n, ok, 4);
        d.group[0] = 8192; /* over both devices' maximum group (a group over the range is one partial group) */
        KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_GROUP_SIZE);
        d = kt_desc1(0, ok, 4);
        KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_NDRANGE);
        snprintf(msg[c][3], sizeof msg[c][3], "%s", krt_last_error_message());
        krt_kernel *missing = NULL;
        KT_EXPECT(krt_kernel_get(mod, "no_such", &missing), KRT_ERROR_KERNEL_NOT_FOUND);
        snprintf(msg[c][4], sizeof msg[c][4], "%s", krt_last_error_message());
        /* and the context is still usable */
        d = kt_desc1(n, ok, 4);
        KT_OK(krt_launch_sync(k, &d));
    }
    for (int i = 0; i < 5; i++)
        cr_assert_str_eq(msg[0][i], msg[1][i]);
    krt_context_destroy(host);
    krt_context_destroy(cpu);
}

Test(host, modules_without_a_native_library_are_refused_clearly)
{
    krt_context *ctx = host_context();
    size_t size = 0;
    void *code = kt_read_file(kernel_spv("vadd"), &size);
    krt_module *m = NULL;
    KT_EXPECT(krt_module_create(ctx, &(krt_module_desc){ .code = code, .size = size }, &m),
              KRT_ERROR_UNSUPPORTED_FEATURE);
    cr_assert(strstr(krt_last_error_message(), "host_library"), "%s", krt_last_error_message());
    cr_assert(strstr(krt_last_error_message(), "krt-cc --host -o NAME.so NAME.cl"), "%s", krt_last_error_message());
    /* bytes with the library named */
    char lib[4096];
    snprintf(lib, sizeof lib, "%s/host/vadd.so", getenv("KRT_KERNELS"));
    KT_OK(krt_module_create(ctx, &(krt_module_desc){ .code = code, .size = size, .host_library = lib }, &m));
    kt_kernel(m, "vadd");
    krt_module_destroy(m);
    /* a .spv with no library beside it */
    char dir[] = "/tmp/krt-host-test-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char spv[4200];
    snprintf(spv, sizeof spv, "%s/vadd.spv", dir);
    FILE *f = fopen(spv, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(code, 1, size, f), size);
    fclose(f);
    KT_EXPECT(krt_module_create(ctx, &(krt_module_desc){ .path = spv }, &m), KRT_ERROR_IO);
    cr_assert(strstr(krt_last_error_message(), "/host/vadd.so"), "%s", krt_last_error_message());
    char command[4200]; /* the exact command that builds it */
    snprintf(command, sizeof command, "`krt-cc --host -o %s/host/vadd.so vadd.cl`", dir);
    cr_assert(strstr(krt_last_error_message(), command), "%s", krt_last_error_message());
    /* a library that is not a kernel library */
    KT_EXPECT(krt_module_create(ctx, &(krt_module_desc){ .path = spv, .host_library = "libm.so.6" }, &m),
              KRT_ERROR_IO);
    krt_result r = krt_module_create(ctx, &(krt_module_desc){ .code = code, .size = size,
                                                                .host_library = "/lib/x86_64-linux-gnu/libm.so.6" },
                                     &m);
    if (access("/lib/x86_64-linux-gnu/libm.so.6", R_OK) == 0) {
        cr_assert_eq(r, KRT_ERROR_MODULE_BUILD_FAILURE, "%s", krt_result_name(r));
        cr_assert(strstr(krt_last_error_message(), "krt_host_abi_version"), "%s", krt_last_error_message());
    }
    /* the library lacks a kernel the SPIR-V has: saxpy's SPIR-V with vadd's library */
    krt_module *wrong = NULL;
    KT_OK(krt_module_create(ctx, &(krt_module_desc){ .path = kernel_spv("saxpy"), .host_library = lib }, &wrong));
    krt_kernel *k = NULL;
    KT_EXPECT(krt_kernel_get(wrong, "saxpy", &k), KRT_ERROR_KERNEL_NOT_FOUND);
    krt_module_destroy(wrong);
    unlink(spv);
    rmdir(dir);
    free(code);
    /* specialization constants cannot reach a compiled library */
    int32_t five = 5;
    krt_spec_constant spec = { .id = 1, .value = &five, .size = sizeof five };
    KT_EXPECT(krt_module_create(ctx,
                                &(krt_module_desc){ .path = kernel_spv("knobs"), .spec_constants = &spec,
                                                    .num_spec_constants = 1 },
                                &m),
              KRT_ERROR_UNSUPPORTED_FEATURE);
    /* vector arguments are not passed: the built-in fill's ulong16 */
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

/* OpenCL C for the host device, as source text or a .cl path: krt runs krt-cc --host itself (a temporary library,
 * gone once loaded), with the compile options; a compile error is the compiler's diagnostic. */
Test(host, opencl_c_modules_compile_for_the_host_device)
{
    kt_skip_without_clang();
    krt_context *ctx = host_context();
    const char *src = "__kernel void f(__global int *x, int n)\n"
                      "{ int i = get_global_id(0); if (i < n) x[i] = SCALE * i + 1; }"; /* no newline at the end */
    krt_module *m = NULL;
    KT_OK(krt_module_create(ctx, &(krt_module_desc){ .source = src, .compile_options = "-DSCALE=3" }, &m));
    enum { N = 1000 };
    int32_t *x = kt_alloc(ctx, N * sizeof *x, KRT_MEMORY_SHARED);
    int32_t n = N;
    krt_arg args[] = { KRT_ARG(x), KRT_ARG(n) };
    KT_OK(krt_launch_sync(kt_kernel(m, "f"), &(krt_launch_desc){ .range = { 1, { N } }, .args = args, .num_args = 2 }));
    for (int i = 0; i < N; i++)
        cr_assert_eq(x[i], 3 * i + 1, "x[%d] = %d", i, x[i]);
    krt_module_destroy(m);

    char dir[] = "/tmp/krt-host-cl-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char cl[4200];
    snprintf(cl, sizeof cl, "%s/twice.cl", dir);
    FILE *f = fopen(cl, "w");
    cr_assert_not_null(f);
    fputs("#include \"krt_kernel.h\"\n__kernel void twice(__global int *x, uint n) { KRT_GUARD_1D(i, n); x[i] *= 2; }\n", f);
    fclose(f);
    KT_OK(krt_module_create(ctx, &(krt_module_desc){ .path = cl }, &m));
    KT_OK(krt_launch_sync(kt_kernel(m, "twice"), &(krt_launch_desc){ .range = { 1, { N } }, .args = args,
                                                                     .num_args = 2 }));
    for (int i = 0; i < N; i++)
        cr_assert_eq(x[i], 2 * (3 * i + 1), "x[%d] = %d", i, x[i]);
    krt_module_destroy(m);
    unlink(cl);
    rmdir(dir);

    KT_EXPECT(krt_module_create(ctx, &(krt_module_desc){ .source = "__kernel void g(__global int *x) { x[0] = y; }" },
                                &m),
              KRT_ERROR_MODULE_BUILD_FAILURE);
    cr_assert(strstr(krt_last_error_message(), "'y'"), "%s", krt_last_error_message());
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

Test(host, events_carry_monotonic_timestamps_and_order_queues)
{
    krt_context *ctx = host_context();
    krt_kernel *k = kt_kernel(host_module(ctx, "saxpy"), "saxpy");
    krt_queue *q1 = NULL, *q2 = NULL;
    KT_OK(krt_queue_create(ctx, NULL, &q1));
    KT_OK(krt_queue_create(ctx, NULL, &q2));
    krt_event *e1 = NULL, *e2 = NULL;
    KT_OK(krt_event_create(ctx, &(krt_event_desc){ .flags = KRT_EVENT_FLAG_TIMESTAMP }, &e1));
    KT_OK(krt_event_create(ctx, &(krt_event_desc){ .flags = KRT_EVENT_FLAG_TIMESTAMP }, &e2));
    uint32_t n = 300000;
    float *x = kt_alloc(ctx, n * sizeof *x, KRT_MEMORY_SHARED);
    float *y = kt_alloc(ctx, n * sizeof *y, KRT_MEMORY_SHARED);
    for (uint32_t i = 0; i < n; i++) {
        x[i] = 1.0f;
        y[i] = 0.0f;
    }
    float one = 1.0f, two = 2.0f;
    krt_arg a1[] = { KRT_ARG(one), KRT_ARG(x), KRT_ARG(y), KRT_ARG(n) };
    krt_arg a2[] = { KRT_ARG(two), KRT_ARG(y), KRT_ARG(x), KRT_ARG(n) };
    uint64_t before = mono_ns();
    krt_launch_desc d1 = kt_desc1(n, a1, 4);
    d1.queue = q1;
    d1.signal = e1;
    KT_OK(krt_launch(k, &d1));
    /* q2's launch reads y, which q1's writes: it waits for e1 */
    krt_launch_desc d2 = kt_desc1(n, a2, 4);
    d2.queue = q2;
    d2.signal = e2;
    d2.wait = &e1;
    d2.num_wait = 1;
    KT_OK(krt_launch(k, &d2));
    KT_OK(krt_event_synchronize(e2, UINT64_MAX));
    uint64_t after = mono_ns();
    for (uint32_t i = 0; i < n; i++)
        cr_assert_eq(x[i], 3.0f, "x[%u] = %g: the second launch did not wait for the first", i, (double)x[i]);
    uint64_t s1, t1, s2, t2;
    KT_OK(krt_event_kernel_time(e1, &s1, &t1));
    KT_OK(krt_event_kernel_time(e2, &s2, &t2));
    cr_assert(before <= s1 && s1 <= t1 && t1 <= s2 && s2 <= t2 && t2 <= after,
              "times %llu %llu %llu %llu %llu %llu", (unsigned long long)before, (unsigned long long)s1,
              (unsigned long long)t1, (unsigned long long)s2, (unsigned long long)t2, (unsigned long long)after);
    KT_OK(krt_event_query(e2));
    krt_event_destroy(e1);
    krt_event_destroy(e2);
    krt_queue_destroy(q1);
    krt_queue_destroy(q2);
    krt_context_destroy(ctx);
}

typedef struct thread_arg {
    krt_context *ctx;
    krt_kernel *shared;
    int id;
    int failures;
} thread_arg;

/* Each thread launches on its own queue and on the default one, with its own values, and checks every result. */
static void *thread_main(void *p)
{
    thread_arg *t = p;
    krt_queue *q = NULL;
    if (krt_queue_create(t->ctx, NULL, &q) != KRT_SUCCESS) {
        t->failures++;
        return NULL;
    }
    uint32_t n = 2000 + 97 * (uint32_t)t->id;
    float *x = NULL, *y = NULL;
    krt_alloc(t->ctx, n * sizeof(float), &(krt_alloc_desc){ .kind = KRT_MEMORY_SHARED }, (void **)&x);
    krt_alloc(t->ctx, n * sizeof(float), &(krt_alloc_desc){ .kind = KRT_MEMORY_SHARED }, (void **)&y);
    if (!x || !y) {
        t->failures++;
        return NULL;
    }
    for (int round = 0; round < 40; round++) {
        float a = (float)(t->id + round);
        for (uint32_t i = 0; i < n; i++) {
            x[i] = (float)i;
            y[i] = 1.0f;
        }
        krt_arg args[] = { KRT_ARG(a), KRT_ARG(x), KRT_ARG(y), KRT_ARG(n) };
        krt_launch_desc d = { .range = { .dims = 1, .size = { n } }, .args = args, .num_args = 4 };
        d.queue = round % 2 ? q : NULL;
        if (krt_launch_sync(t->shared, &d) != KRT_SUCCESS) {
            t->failures++;
            continue;
        }
        for (uint32_t i = 0; i < n; i++)
            if (y[i] != a * (float)i + 1.0f) {
                t->failures++;
                break;
            }
    }
    krt_free(t->ctx, x);
    krt_free(t->ctx, y);
    krt_queue_destroy(q);
    return NULL;
}

Test(host, eight_threads_share_a_kernel)
{
    krt_context *ctx = host_context();
    krt_kernel *k = kt_kernel(host_module(ctx, "saxpy"), "saxpy");
    pthread_t th[8];
    thread_arg args[8];
    for (int i = 0; i < 8; i++) {
        args[i] = (thread_arg){ ctx, k, i, 0 };
        cr_assert_eq(pthread_create(&th[i], NULL, thread_main, &args[i]), 0);
    }
    for (int i = 0; i < 8; i++) {
        pthread_join(th[i], NULL);
        cr_assert_eq(args[i].failures, 0, "thread %d: %d failures", i, args[i].failures);
    }
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

typedef struct reduce_arg {
    krt_context *ctx;
    krt_kernel *k;
    const int32_t *in;
    uint32_t n;
    int id;
    int failures;
} reduce_arg;

/* Barrier kernels from several threads at once: groups of several launches share the pool, each group's
 * work-items switching on their own stacks. */
static void *reduce_thread(void *p)
{
    reduce_arg *t = p;
    krt_queue *q = NULL;
    if (krt_queue_create(t->ctx, NULL, &q) != KRT_SUCCESS) {
        t->failures++;
        return NULL;
    }
    int32_t *partial = NULL;
    krt_alloc(t->ctx, 64 * sizeof(int32_t), &(krt_alloc_desc){ .kind = KRT_MEMORY_SHARED }, (void **)&partial);
    if (!partial) {
        t->failures++;
        return NULL;
    }
    for (int round = 0; round < 12; round++) {
        uint32_t g = 1 + (uint32_t)((t->id * 131 + round * 77) % 1024);
        uint32_t groups = 1 + (uint32_t)((t->id + round) % 8);
        uint32_t range = g * groups;
        krt_arg args[] = { KRT_ARG(t->in), KRT_ARG(partial), KRT_ARG_LOCAL(g * sizeof(int32_t)), KRT_ARG(t->n) };
        krt_launch_desc d = { .range = { .dims = 1, .size = { range } }, .args = args, .num_args = 4, .queue = q };
        d.group[0] = g;
        if (krt_launch_sync(t->k, &d) != KRT_SUCCESS) {
            t->failures++;
            continue;
        }
        for (uint32_t grp = 0; grp < groups; grp++) {
            int64_t want = 0;
            for (uint32_t item = grp * g; item < (grp + 1) * g; item++)
                for (uint32_t i = item; i < t->n; i += range)
                    want += t->in[i];
            t->failures += partial[grp] != (int32_t)want;
        }
    }
    krt_free(t->ctx, partial);
    krt_queue_destroy(q);
    return NULL;
}

Test(host, eight_threads_run_barrier_kernels_at_once)
{
    krt_context *ctx = host_context();
    krt_kernel *k = kt_kernel(host_module(ctx, "reduce"), "reduce_sum_i32");
    uint32_t n = 20011;
    int32_t *in = kt_alloc(ctx, n * sizeof *in, KRT_MEMORY_SHARED);
    for (uint32_t i = 0; i < n; i++)
        in[i] = (int32_t)(i % 101) - 50;
    pthread_t th[8];
    reduce_arg args[8];
    for (int i = 0; i < 8; i++) {
        args[i] = (reduce_arg){ ctx, k, in, n, i, 0 };
        cr_assert_eq(pthread_create(&th[i], NULL, reduce_thread, &args[i]), 0);
    }
    for (int i = 0; i < 8; i++) {
        pthread_join(th[i], NULL);
        cr_assert_eq(args[i].failures, 0, "thread %d: %d wrong partial sums or failed launches", i,
                     args[i].failures);
    }
    krt_context_destroy(ctx);
}

Test(host, queue_synchronize_timeout_and_copies)
{
    krt_context *ctx = host_context();
    size_t n = 1 << 20;
    uint8_t *a = kt_alloc(ctx, n, KRT_MEMORY_DEVICE);
    uint8_t *b = kt_alloc(ctx, n, KRT_MEMORY_HOST);
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)(i * 13);
    KT_OK(krt_memcpy(ctx, NULL, a, b, n));
    KT_OK(krt_queue_synchronize_timeout(krt_context_default_queue(ctx), UINT64_MAX));
    cr_assert_eq(memcmp(a, b, n), 0);
    KT_EXPECT(krt_memcpy(ctx, NULL, a, a + 16, 64), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_memcpy(ctx, NULL, a, b, n + 1), KRT_ERROR_INVALID_ARGUMENT);
    krt_context_destroy(ctx);
}

/* Every element width stored by its own work-item, on the host device, against a C reference, with the memory past
 * the range untouched: GCC 12's loop distribution at -O3 once left all but the last byte of each runner loop
 * unwritten (krt-cc --host now builds with -fno-tree-loop-distribution). Over a range that is no multiple of the
 * group, krt's group and a static one. */
Test(host, stores_of_every_width_are_exact)
{
    krt_context *ctx = host_context();
    krt_module *m = kt_module(ctx, "krt_widths");
    static const struct {
        const char *kernel;
        size_t size;
    } widths[] = { { "xor_uchar", 1 }, { "xor_char", 1 }, { "xor_ushort", 2 }, { "xor_short", 2 },
                   { "xor_uint", 4 },  { "xor_int", 4 },  { "xor_ulong", 8 },  { "xor_long", 8 } };
    const uint32_t n = 4099, pad = 64;
    unsigned char *src = kt_alloc(ctx, (n + pad) * 8, KRT_MEMORY_SHARED);
    unsigned char *dst = kt_alloc(ctx, (n + pad) * 8 * 4, KRT_MEMORY_SHARED);
    for (size_t i = 0; i < (n + pad) * 8; i++)
        src[i] = (unsigned char)(i * 37 + 11);
    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
        krt_kernel *k = kt_kernel(m, widths[w].kernel);
        size_t size = widths[w].size;
        for (int pass = 0; pass < 2; pass++) {
            memset(dst, 0xee, (n + pad) * size);
            uint64_t key = 0x5a5a5a5a5a5a5a5aull;
            krt_arg args[] = { KRT_ARG(src), KRT_ARG(dst), { .value = &key, .size = size } };
            krt_launch_desc d = kt_desc1(n, args, 3);
            d.group[0] = pass ? 64 : 0;
            KT_OK(krt_launch_sync(k, &d));
            for (size_t b = 0; b < n * size; b++)
                cr_assert_eq(dst[b], (unsigned char)(src[b] ^ 0x5a), "%s (%s group): byte %zu of item %zu is 0x%02x",
                             widths[w].kernel, pass ? "static" : "krt's", b, b / size, dst[b]);
            for (size_t b = n * size; b < (n + pad) * size; b++)
                cr_assert_eq(dst[b], 0xee, "%s wrote past the range at byte %zu", widths[w].kernel, b);
        }
    }
    /* Bytes at a stride of 3 (the bytes between stay as they were). */
    memset(dst, 0xee, (size_t)n * 3 + pad);
    uint32_t stride = 3;
    krt_arg strided[] = { KRT_ARG(src), KRT_ARG(dst), KRT_ARG(stride) };
    krt_launch_desc d = kt_desc1(n, strided, 3);
    KT_OK(krt_launch_sync(kt_kernel(m, "stride_uchar"), &d));
    for (size_t b = 0; b < (size_t)n * 3 + pad; b++)
        cr_assert_eq(dst[b], b % 3 == 0 && b / 3 < n ? src[b / 3] : 0xee, "stride_uchar: byte %zu", b);
    /* half: storage and arithmetic, rounded as C's _Float16 rounds (the device reports fp16). */
    krt_device_info dev;
    KT_OK(krt_context_device_info(ctx, &dev));
    cr_assert(dev.fp16, "the host device reports no fp16, though its kernels' C has _Float16");
    _Float16 *hs = kt_alloc(ctx, (n + pad) * sizeof(_Float16), KRT_MEMORY_SHARED);
    _Float16 *hd = kt_alloc(ctx, (n + pad) * sizeof(_Float16), KRT_MEMORY_SHARED);
    for (size_t i = 0; i < n + pad; i++) {
        hs[i] = (_Float16)((float)i * 0.37f - 700.0f);
        hd[i] = (_Float16)-1.0f;
    }
    float k = 1.75f;
    krt_arg half_args[] = { KRT_ARG(hs), KRT_ARG(hd), KRT_ARG(k) };
    d = kt_desc1(n, half_args, 3);
    KT_OK(krt_launch_sync(kt_kernel(m, "scale_half"), &d));
    for (size_t i = 0; i < n + pad; i++) {
        _Float16 want = i < n ? (_Float16)((float)hs[i] * k) : (_Float16)-1.0f;
        cr_assert(hd[i] == want, "scale_half: item %zu is %g, expected %g", i, (double)hd[i], (double)want);
    }
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* ---- Arguments by value (native ABI 4) ----------------------------------------------------------------------- */

/* test/kernels/krt_byvalue.cl's types as C lays them out; the tests check each struct's size against the SPIR-V's. */
typedef float bv_float4 __attribute__((vector_size(16)));
typedef float bv_float8 __attribute__((vector_size(32)));
typedef double bv_double2 __attribute__((vector_size(16)));
typedef uint8_t bv_uchar16 __attribute__((vector_size(16)));
typedef int32_t bv_int2 __attribute__((vector_size(8)));
typedef int32_t bv_int3 __attribute__((vector_size(16)));
typedef double bv_double16 __attribute__((vector_size(128)));
typedef struct {
    float x;
    int32_t y;
} bv_pair;
typedef struct {
    double a;
    float b;
} bv_wide;
typedef struct {
    int16_t s;
    char tag;
    int64_t l;
} bv_inner;
typedef struct {
    char c;
    float f;
    double d;
    int32_t i;
    bv_inner in;
    float arr[3];
    uint8_t u;
    _Float16 h;
    bv_float4 v;
} bv_params;
_Static_assert(sizeof(bv_params) == 80 && offsetof(bv_params, in) == 24 && offsetof(bv_params, h) == 54 &&
                   offsetof(bv_params, v) == 64,
               "krt_byvalue.cl's params_t, as OpenCL C lays it out");

/* Structs whose padding holds garbage: the kernel must read its members at OpenCL C's offsets, from the bytes the
 * launch gave. */
static bv_params bv_params_value(void)
{
    bv_params q;
    memset(&q, 0xa5, sizeof q);
    q.c = -7;
    q.f = 0.5f;
    q.d = -1234.5;
    q.i = -100000;
    q.in.s = -30000;
    q.in.tag = 42;
    q.in.l = -5000000000ll;
    q.arr[0] = 1.25f;
    q.arr[1] = -2.5f;
    q.arr[2] = 8.0f;
    q.u = 200;
    q.h = (_Float16)-3.5f;
    q.v = (bv_float4){ 16.0f, -32.0f, 64.0f, 0.75f };
    return q;
}

/* The argument's size in the SPIR-V is the C type's: the layouts agree. */
static void bv_assert_size(krt_kernel *k, uint32_t index, size_t size)
{
    krt_arg_info info;
    KT_OK(krt_kernel_arg_info(k, index, &info));
    cr_assert_eq(info.size, size, "argument %u (%s): %u bytes in the SPIR-V, %zu in C", index, info.name, info.size,
                 size);
}

/* Every kernel of krt_byvalue.cl on one device, against C. */
static void bv_check_device(krt_context *ctx, const char *device)
{
    krt_module *m = kt_module(ctx, "krt_byvalue");
    /* Every member of every argument, written by work-item 0 of a launch of several groups. */
    krt_kernel *k = kt_kernel(m, "byvalue_members");
    bv_assert_size(k, 1, sizeof(bv_pair));
    bv_assert_size(k, 2, sizeof(bv_wide));
    bv_assert_size(k, 3, sizeof(bv_params));
    double *out = kt_alloc(ctx, 32 * sizeof *out, KRT_MEMORY_SHARED);
    for (int i = 0; i < 32; i++)
        out[i] = -1.0;
    bv_pair p;
    memset(&p, 0xa5, sizeof p);
    p.x = 2.75f;
    p.y = -17;
    bv_wide w;
    memset(&w, 0xa5, sizeof w);
    w.a = 1e300;
    w.b = -0.125f;
    bv_params q = bv_params_value();
    _Float16 h = (_Float16)1.5f;
    bv_float4 v4 = { 3.0f, 99.0f, 99.0f, -4.0f };
    bv_int2 i2 = { 123, -45 };
    uint64_t n = 0x123456789ull;
    krt_arg args[] = { KRT_ARG(out), KRT_ARG(p), KRT_ARG(w), KRT_ARG(q), KRT_ARG(h), KRT_ARG(v4), KRT_ARG(i2), KRT_ARG(n) };
    krt_launch_desc d = kt_desc1(300, args, 8);
    KT_OK(krt_launch_sync(k, &d));
    const double want[24] = { 2.75, -17, 1e300, -0.125, -7, 0.5, -1234.5, -100000, -30000, 42, -5000000000.0,
                              1.25, -2.5, 8.0, 200, -3.5, 16, -32, 64, 0.75, 1.5, 3.0f + 10.0f * -4.0f,
                              123 - 1000 * -45, (double)0x123456789ull };
    for (int i = 0; i < 24; i++)
        cr_assert_eq(out[i], want[i], "%s: byvalue_members' value %d is %.17g, expected %.17g", device, i, out[i],
                     want[i]);
    cr_assert_eq(out[24], -1.0, "%s: byvalue_members wrote past its values", device);

    /* The structs in every work-item, over a range that is no multiple of the group. */
    uint32_t count = 10007;
    float *x = kt_alloc(ctx, (count + 1) * sizeof *x, KRT_MEMORY_SHARED);
    float *y = kt_alloc(ctx, (count + 1) * sizeof *y, KRT_MEMORY_SHARED);
    for (uint32_t i = 0; i <= count; i++) {
        x[i] = (float)((int)(i % 61) - 30);
        y[i] = -1.0f;
    }
    uint64_t n64 = count;
    krt_arg affine_args[] = { KRT_ARG(x), KRT_ARG(y), KRT_ARG(p), KRT_ARG(q), KRT_ARG(n64) };
    d = kt_desc1(count, affine_args, 5);
    KT_OK(krt_launch_sync(kt_kernel(m, "byvalue_affine"), &d));
    for (uint32_t i = 0; i < count; i++) {
        float want_y = x[i] * q.f + (float)q.d + p.x + q.arr[i % 3] + q.v[i % 4] + (float)q.h + (float)q.in.tag;
        cr_assert_eq(y[i], want_y, "%s: byvalue_affine: y[%u] is %g, expected %g", device, i, (double)y[i],
                     (double)want_y);
    }
    cr_assert_eq(y[count], -1.0f, "%s: byvalue_affine wrote past the range", device);

    /* Vectors of 8 to 128 bytes. */
    k = kt_kernel(m, "byvalue_vectors");
    bv_assert_size(k, 7, sizeof(bv_double16));
    uint32_t nv = 1001;
    bv_float4 *vx = kt_alloc(ctx, (nv + 1) * sizeof *vx, KRT_MEMORY_SHARED);
    bv_float4 *vy = kt_alloc(ctx, (nv + 1) * sizeof *vy, KRT_MEMORY_SHARED);
    for (uint32_t i = 0; i <= nv; i++) {
        vx[i] = (bv_float4){ (float)i, -(float)i, 0.5f * (float)(i % 7), 3.0f };
        vy[i] = (bv_float4){ -1.0f, -1.0f, -1.0f, -1.0f };
    }
    bv_float4 a = { 2.0f, -1.0f, 4.0f, 0.25f };
    bv_float8 b = { 1.0f, 0, 0, 0, 0, 0, 0, 2.5f };
    bv_double2 c = { 99.0, -6.0 };
    bv_uchar16 dd = { 0 };
    dd[15] = 250;
    bv_int3 e = { 0, 0, -7, 0x5a5a5a5a }; /* the 3-vector's fourth element is padding */
    bv_double16 f = { 0 };
    f[0] = 1024.0;
    f[15] = -0.5;
    uint64_t nv64 = nv;
    krt_arg vec_args[] = { KRT_ARG(vy), KRT_ARG(vx), KRT_ARG(a), KRT_ARG(b), KRT_ARG(c),
                           KRT_ARG(dd), KRT_ARG(e), KRT_ARG(f), KRT_ARG(nv64) };
    d = kt_desc1(nv, vec_args, 9);
    KT_OK(krt_launch_sync(k, &d));
    bv_float4 add = { 1.0f + 2.5f, -6.0f, 250.0f + -7.0f, 1023.5f };
    for (uint32_t i = 0; i < nv; i++)
        for (int l = 0; l < 4; l++) {
            float want_v = a[l] * vx[i][l] + add[l];
            cr_assert_eq(vy[i][l], want_v, "%s: byvalue_vectors: y[%u][%d] is %g, expected %g", device, i, l,
                         (double)vy[i][l], (double)want_v);
        }
    cr_assert_eq(vy[nv][0], -1.0f, "%s: byvalue_vectors wrote past the range", device);

    /* half by value, rounded to half as C's _Float16 rounds a product. */
    uint32_t nh = 4099;
    _Float16 *hs = kt_alloc(ctx, (nh + 1) * sizeof *hs, KRT_MEMORY_SHARED);
    _Float16 *hd = kt_alloc(ctx, (nh + 1) * sizeof *hd, KRT_MEMORY_SHARED);
    for (uint32_t i = 0; i <= nh; i++) {
        hs[i] = (_Float16)((float)i * 0.37f - 700.0f);
        hd[i] = (_Float16)-1.0f;
    }
    _Float16 hk = (_Float16)1.3f; /* not a power of two: the products round */
    uint64_t nh64 = nh;
    krt_arg half_args[] = { KRT_ARG(hs), KRT_ARG(hd), KRT_ARG(hk), KRT_ARG(nh64) };
    d = kt_desc1(nh, half_args, 4);
    KT_OK(krt_launch_sync(kt_kernel(m, "byvalue_half"), &d));
    for (uint32_t i = 0; i < nh; i++) {
        _Float16 want_h = (_Float16)((float)hs[i] * (float)hk);
        cr_assert(hd[i] == want_h, "%s: byvalue_half: item %u is %g, expected %g", device, i, (double)hd[i],
                  (double)want_h);
    }
    cr_assert(hd[nh] == (_Float16)-1.0f, "%s: byvalue_half wrote past the range", device);

    /* A struct beside a __local argument in a kernel with a barrier, in static groups of 64. */
    uint32_t groups = 37, g = 64;
    float *sums = kt_alloc(ctx, groups * sizeof *sums, KRT_MEMORY_SHARED);
    bv_pair ps = { 0.25f, 1000 };
    krt_arg sum_args[] = { KRT_ARG(x), KRT_ARG(sums), KRT_ARG_LOCAL(g * sizeof(float)), KRT_ARG(ps) };
    d = kt_desc1(groups * g, sum_args, 4);
    d.group[0] = g;
    KT_OK(krt_launch_sync(kt_kernel(m, "byvalue_group_sum"), &d));
    for (uint32_t grp = 0; grp < groups; grp++) {
        float s = 0.0f;
        for (uint32_t l = 0; l < g; l++)
            s += x[grp * g + l] * ps.x;
        s += (float)ps.y;
        cr_assert_eq(sums[grp], s, "%s: byvalue_group_sum: group %u is %g, expected %g", device, grp,
                     (double)sums[grp], (double)s);
    }
    krt_module_destroy(m);
}

/* half, vectors and structs by value: the group runner of a library of native ABI 4 reads each argument with its
 * C type, so the C compiler passes it by C's rules. The same checks on ze_pocl show that the C references and the
 * struct layouts are OpenCL C's. */
Test(host, arguments_by_value_structs_vectors_and_half)
{
    krt_context *ctx = host_context();
    bv_check_device(ctx, "host");
    krt_context_destroy(ctx);
    ctx = kt_context(&(krt_context_desc){ .device = "cpu" });
    bv_check_device(ctx, "ze_pocl");
    krt_context_destroy(ctx);
}

/* The same with the barrier kernel's work-items on fibers (KRT_HOST_FIBERS=1): its struct travels in the runner's
 * frame to each work-item. */
Test(host, arguments_by_value_on_fibers)
{
    setenv("KRT_HOST_FIBERS", "1", 1);
    krt_context *ctx = host_context();
    bv_check_device(ctx, "host, fibers");
    krt_context_destroy(ctx);
    unsetenv("KRT_HOST_FIBERS");
}

/* A library of ABI 3 (group runners that take the kernel's parameters, as krt-cc wrote them before ABI 4) still
 * loads, and the host device calls its runners through libffi: vadd over exact ranges and partial groups, and
 * reduce_sum_i32, whose work-items run on fibers through the runner's run_items. Its kernels with half, vector or
 * struct arguments, which libffi cannot pass, are refused naming the argument. */
Test(host, abi3_libraries_run_through_libffi)
{
    krt_context *ctx = host_context();
    char lib[4096], byvalue[4096];
    snprintf(lib, sizeof lib, "%s/abi3/runners.so", getenv("KRT_TEST_KERNELS"));
    snprintf(byvalue, sizeof byvalue, "%s/abi3/krt_byvalue.so", getenv("KRT_TEST_KERNELS"));
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    cr_assert(h, "%s: %s", lib, dlerror());
    uint32_t (*version)(void) = (uint32_t(*)(void))dlsym(h, "krt_host_abi_version");
    cr_assert(version && version() == 3u && dlsym(h, "krt_host_group_vadd") && !dlsym(h, "krt_host_loops_reduce_sum_i32"),
              "%s is not an ABI 3 library with runners and without work-item loops", lib);
    dlclose(h);
    krt_module *m = NULL;
    KT_OK(krt_module_create(ctx, &(krt_module_desc){ .path = kernel_spv("vadd"), .host_library = lib }, &m));
    krt_kernel *k = kt_kernel(m, "vadd");
    const uint32_t sizes[] = { 1, 65, 4097, 100003 };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        vadd_check(ctx, k, sizes[i], NULL);
    const uint32_t vgroups[][3] = { { 3 }, { 1000 } };
    for (size_t i = 0; i < sizeof vgroups / sizeof vgroups[0]; i++)
        vadd_check(ctx, k, 5000, vgroups[i]);

    KT_OK(krt_module_create(ctx, &(krt_module_desc){ .path = kernel_spv("reduce"), .host_library = lib }, &m));
    k = kt_kernel(m, "reduce_sum_i32");
    uint32_t n = 5003;
    int32_t *in = kt_alloc(ctx, n * sizeof *in, KRT_MEMORY_SHARED);
    for (uint32_t i = 0; i < n; i++)
        in[i] = (int32_t)(i % 101) - 50;
    const uint32_t groups[] = { 1, 7, 64, 1000 };
    for (size_t gi = 0; gi < sizeof groups / sizeof groups[0]; gi++) {
        uint32_t g = groups[gi], range = g * 5;
        int32_t *partial = kt_alloc(ctx, 5 * sizeof *partial, KRT_MEMORY_SHARED);
        krt_arg args[] = { KRT_ARG(in), KRT_ARG(partial), KRT_ARG_LOCAL(g * sizeof(int32_t)), KRT_ARG(n) };
        krt_launch_desc d = kt_desc1(range, args, 4);
        d.group[0] = g;
        KT_OK(krt_launch_sync(k, &d));
        for (uint32_t grp = 0; grp < 5; grp++) {
            int64_t want = 0;
            for (uint32_t item = grp * g; item < (grp + 1) * g; item++)
                for (uint32_t i = item; i < n; i += range)
                    want += in[i];
            cr_assert_eq(partial[grp], (int32_t)want, "group size %u, group %u", g, grp);
        }
    }

    char spv[4096];
    snprintf(spv, sizeof spv, "%s/krt_byvalue.spv", getenv("KRT_TEST_KERNELS"));
    KT_OK(krt_module_create(ctx, &(krt_module_desc){ .path = spv, .host_library = byvalue }, &m));
    static const struct {
        const char *kernel, *says;
    } refused[] = { { "byvalue_members", "argument 1 (p): a struct" },
                    { "byvalue_affine", "argument 2 (p): a struct" },
                    { "byvalue_vectors", "argument 2 (a): a vector of float32" },
                    { "byvalue_half", "argument 2 (k): a float16" },
                    { "byvalue_group_sum", "argument 3 (p): a struct" } };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        krt_kernel *bad = NULL;
        KT_EXPECT(krt_kernel_get(m, refused[i].kernel, &bad), KRT_ERROR_UNSUPPORTED_FEATURE);
        cr_assert(strstr(krt_last_error_message(), refused[i].says) && strstr(krt_last_error_message(), "ABI 4"),
                  "%s: %s", refused[i].kernel, krt_last_error_message());
    }
    krt_context_destroy(ctx);
}
