/* host_device: the host device (issue 12) against ze_pocl, and what a native work-item costs.
 *
 * 1. vadd, saxpy and matmul (naive and tiled) on both devices: median wall time of a launch and its wait, with
 *    krt's choice of group size (the tiled matmul requires 16 x 16).
 * 2. The per-work-item cost of the libffi call: vadd's native function from build/kernels/host/vadd.so called once
 *    per work-item directly and through ffi_call with the call interface the host device prepares, in one thread.
 * 3. How the group loop amortizes the cost of a group: vadd over 2^22 work-items on the host device with static
 *    groups of 1 to 1024 work-items, time per work-item.
 * The goal is to be honest, not to win: PoCL compiles a work-group into vectorized loops, the host device calls
 * a C function once per work-item. */
#include <dlfcn.h>
#include <ffi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

/* The native kernel ABI's work-item state (kernels/include/krt_kernel_host.h). */
struct krt_host_item {
    uint32_t work_dim, reserved;
    size_t global_id[3], local_id[3], group_id[3];
    size_t global_size[3], local_size[3], num_groups[3], global_offset[3];
    void (*barrier)(const struct krt_host_item *item);
    void *runtime;
};
_Static_assert(sizeof(struct krt_host_item) == 192, "the native kernel ABI's work-item state");

static const char *const usage =
    "usage: host_device [--out DIR] [--samples N] [--n N] [--matrix N] [--items N] [--ffi-only]\n"
    "  vadd, saxpy and matmul on the host device and on ze_pocl; the libffi call per work-item; group sizes\n";

static krt_kernel *kernel_of(krt_context *ctx, const char *file, const char *name)
{
    krt_module *m = NULL;
    KRT_CHECK(krt_module_create(ctx, &(krt_module_desc){ .path = bench_path(bench_example_kernel_dir(), file) },
                                  &m));
    krt_kernel *k = NULL;
    KRT_CHECK(krt_kernel_get(m, name, &k));
    return k;
}

/* Median ms of one launch + wait over samples, after one warm-up launch. */
static double time_launch(krt_kernel *k, const krt_launch_desc *d, int samples)
{
    KRT_CHECK(krt_launch_sync(k, d));
    double *t = calloc((size_t)samples, sizeof *t);
    for (int s = 0; s < samples; s++) {
        uint64_t t0 = bench_now_ns();
        KRT_CHECK(krt_launch_sync(k, d));
        t[s] = (double)(bench_now_ns() - t0) / 1e6;
    }
    double m = bench_median(t, (size_t)samples);
    free(t);
    return m;
}

typedef struct workload {
    const char *name;
    double ms[2];
} workload;

static void run_device(const char *device, int samples, uint32_t n, uint32_t mm, workload *w, int side)
{
    krt_context *ctx = NULL;
    KRT_CHECK(krt_context_create(&(krt_context_desc){ .device = device }, &ctx));
    krt_alloc_desc ad = { .kind = KRT_MEMORY_SHARED };
    float *a, *b, *c;
    KRT_CHECK(krt_alloc(ctx, (size_t)n * sizeof(float), &ad, (void **)&a));
    KRT_CHECK(krt_alloc(ctx, (size_t)n * sizeof(float), &ad, (void **)&b));
    KRT_CHECK(krt_alloc(ctx, (size_t)n * sizeof(float), &ad, (void **)&c));
    for (uint32_t i = 0; i < n; i++) {
        a[i] = (float)(i % 100);
        b[i] = 1.0f;
    }
    krt_kernel *vadd = kernel_of(ctx, "vadd.spv", "vadd");
    krt_arg va[] = { KRT_ARG(a), KRT_ARG(b), KRT_ARG(c), KRT_ARG(n) };
    krt_launch_desc d = { .range = { .dims = 1, .size = { n } }, .args = va, .num_args = 4 };
    w[0].ms[side] = time_launch(vadd, &d, samples);
    for (uint32_t i = 0; i < n; i += 997)
        if (c[i] != a[i] + 1.0f)
            bench_die("vadd on %s: c[%u] = %g", device, i, (double)c[i]);
    krt_kernel *saxpy = kernel_of(ctx, "saxpy.spv", "saxpy");
    float alpha = 0.5f;
    krt_arg sa[] = { KRT_ARG(alpha), KRT_ARG(a), KRT_ARG(c), KRT_ARG(n) };
    d.args = sa;
    w[1].ms[side] = time_launch(saxpy, &d, samples);
    krt_kernel *naive = kernel_of(ctx, "matmul.spv", "matmul_naive");
    krt_kernel *tiled = kernel_of(ctx, "matmul.spv", "matmul_tiled");
    krt_arg ma[] = { KRT_ARG(a), KRT_ARG(b), KRT_ARG(c), KRT_ARG(mm), KRT_ARG(mm), KRT_ARG(mm) };
    krt_launch_desc md = { .range = { .dims = 2, .size = { mm, mm } }, .args = ma, .num_args = 6 };
    w[2].ms[side] = time_launch(naive, &md, samples);
    float naive_c0 = c[0];
    w[3].ms[side] = time_launch(tiled, &md, samples);
    if (c[0] != naive_c0)
        bench_die("matmul on %s: tiled %g, naive %g", device, (double)c[0], (double)naive_c0);
    krt_context_destroy(ctx);
}

typedef void (*vadd_fn)(const float *, const float *, float *, uint32_t);

/* ns per work-item of vadd's native function, called directly and through libffi, in this thread. */
static void ffi_cost(uint32_t items, double *direct_ns, double *ffi_ns)
{
    const char *lib = bench_path(bench_example_kernel_dir(), "host/vadd.so");
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        bench_die("cannot load %s: %s", lib, dlerror());
    vadd_fn fn = (vadd_fn)dlsym(h, "vadd");
    const struct krt_host_item **(*slot_fn)(void) = (const struct krt_host_item **(*)(void))dlsym(h,
                                                                                               "krt_host_item_slot");
    if (!fn || !slot_fn)
        bench_die("%s lacks vadd or krt_host_item_slot", lib);
    float *a = calloc(items, sizeof *a), *b = calloc(items, sizeof *b), *c = calloc(items, sizeof *c);
    struct krt_host_item item;
    memset(&item, 0, sizeof item);
    item.work_dim = 1;
    item.global_size[0] = items;
    item.local_size[0] = items;
    item.num_groups[0] = item.global_size[1] = item.global_size[2] = 1;
    item.local_size[1] = item.local_size[2] = item.num_groups[1] = item.num_groups[2] = 1;
    *slot_fn() = &item;
    ffi_type *types[4] = { &ffi_type_pointer, &ffi_type_pointer, &ffi_type_pointer, &ffi_type_uint32 };
    ffi_cif cif;
    if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, 4, &ffi_type_void, types) != FFI_OK)
        bench_die("ffi_prep_cif failed");
    void *pa = a, *pb = b, *pc = c;
    uint32_t n = items;
    void *values[4] = { &pa, &pb, &pc, &n };
    double best_direct = 1e30, best_ffi = 1e30;
    for (int rep = 0; rep < 5; rep++) {
        uint64_t t0 = bench_now_ns();
        for (uint32_t i = 0; i < items; i++) {
            item.global_id[0] = item.local_id[0] = i;
            fn(a, b, c, n);
        }
        uint64_t t1 = bench_now_ns();
        for (uint32_t i = 0; i < items; i++) {
            item.global_id[0] = item.local_id[0] = i;
            ffi_call(&cif, (void (*)(void))fn, NULL, values);
        }
        uint64_t t2 = bench_now_ns();
        double d = (double)(t1 - t0) / items, f = (double)(t2 - t1) / items;
        best_direct = d < best_direct ? d : best_direct;
        best_ffi = f < best_ffi ? f : best_ffi;
    }
    *slot_fn() = NULL;
    *direct_ns = best_direct;
    *ffi_ns = best_ffi;
    free(a);
    free(b);
    free(c);
    dlclose(h);
}

int main(int argc, char **argv)
{
    static const char *const known[] = { "out", "samples", "n", "items", "matrix", "ffi-only", NULL };
    bench_usage(argc, argv, usage, known);
    const char *out = bench_opt_str(argc, argv, "out", "build/bench");
    int samples = (int)bench_opt_long(argc, argv, "samples", 5);
    uint32_t n = (uint32_t)bench_opt_long(argc, argv, "n", 1 << 22);
    uint32_t mm = (uint32_t)bench_opt_long(argc, argv, "matrix", 256);
    uint32_t items = (uint32_t)bench_opt_long(argc, argv, "items", 1 << 22);
    if (samples < 1 || n < 1 || mm < 16 || (uint64_t)mm * mm > n || items < 1)
        bench_die("--samples >= 1, --n >= 1, --matrix >= 16 with matrix^2 <= n, --items >= 1");

    if (bench_opt_flag(argc, argv, "ffi-only")) {
        /* Only the calls of part 2, for callgrind: valgrind --tool=callgrind build/bench/host_device --ffi-only */
        double direct, viaffi;
        ffi_cost(items, &direct, &viaffi);
        printf("direct %.2f ns, ffi_call %.2f ns per work-item\n", direct, viaffi);
        return 0;
    }
    workload w[4] = { { "vadd", { 0, 0 } }, { "saxpy", { 0, 0 } }, { "matmul_naive", { 0, 0 } }, { "matmul_tiled", { 0, 0 } } };
    run_device("cpu", samples, n, mm, w, 0);
    run_device("host", samples, n, mm, w, 1);
    char cells[5][4][64];
    const char *cellp[5 * 4];
    snprintf(cells[0][0], 64, "kernel");
    snprintf(cells[0][1], 64, "ze_pocl ms");
    snprintf(cells[0][2], 64, "host ms");
    snprintf(cells[0][3], 64, "host / ze_pocl");
    for (int i = 0; i < 4; i++) {
        if (i < 2)
            snprintf(cells[i + 1][0], 64, "%s, %u elements", w[i].name, n);
        else
            snprintf(cells[i + 1][0], 64, "%s, %u x %u", w[i].name, mm, mm);
        snprintf(cells[i + 1][1], 64, "%.2f", w[i].ms[0]);
        snprintf(cells[i + 1][2], 64, "%.2f", w[i].ms[1]);
        snprintf(cells[i + 1][3], 64, "%.1f", w[i].ms[1] / w[i].ms[0]);
    }
    for (int r = 0; r < 5; r++)
        for (int c = 0; c < 4; c++)
            cellp[r * 4 + c] = cells[r][c];
    bench_table_emit(out, "host_device.md", "launch + wait, median of the samples, krt's group size", 4, 5, cellp);
    FILE *csv = bench_csv_open(out, "host_device.csv");
    fprintf(csv, "kernel,ze_pocl_ms,host_ms\n");
    for (int i = 0; i < 4; i++)
        fprintf(csv, "%s,%.3f,%.3f\n", w[i].name, w[i].ms[0], w[i].ms[1]);

    double direct, viaffi;
    ffi_cost(items, &direct, &viaffi);
    printf("\nvadd's native function per work-item, one thread, best of 5 x %u: direct call %.2f ns, ffi_call "
           "%.2f ns: the libffi call costs %.2f ns per work-item\n",
           items, direct, viaffi, viaffi - direct);
    fprintf(csv, "\nper_item,direct_ns,ffi_ns\nvadd,%.3f,%.3f\n", direct, viaffi);

    /* The group loop: a group costs its set-up (group ids, __local pointers, the slot) once, then one ffi_call
     * per work-item. */
    krt_context *ctx = NULL;
    KRT_CHECK(krt_context_create(&(krt_context_desc){ .device = "host" }, &ctx));
    krt_kernel *vadd = kernel_of(ctx, "vadd.spv", "vadd");
    float *a, *c;
    krt_alloc_desc ad = { .kind = KRT_MEMORY_SHARED };
    KRT_CHECK(krt_alloc(ctx, (size_t)n * sizeof(float), &ad, (void **)&a));
    KRT_CHECK(krt_alloc(ctx, (size_t)n * sizeof(float), &ad, (void **)&c));
    memset(a, 0, (size_t)n * sizeof(float));
    krt_arg va[] = { KRT_ARG(a), KRT_ARG(a), KRT_ARG(c), KRT_ARG(n) };
    const uint32_t groups[] = { 1, 4, 16, 64, 256, 1024 };
    printf("\nvadd over %u work-items on the host device (%d samples, median), by static group size:\n", n,
           samples);
    fprintf(csv, "\ngroup,ns_per_item\n");
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        krt_launch_desc d = { .range = { .dims = 1, .size = { n } }, .args = va, .num_args = 4,
                              .group = { groups[g] } };
        double ms = time_launch(vadd, &d, samples);
        printf("  group %4u: %7.2f ms, %6.2f ns per work-item\n", groups[g], ms, ms * 1e6 / n);
        fprintf(csv, "%u,%.3f\n", groups[g], ms * 1e6 / n);
    }
    fclose(csv);
    krt_context_destroy(ctx);
    return 0;
}
