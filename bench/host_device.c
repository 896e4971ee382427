/* host_device: the host device (issues 12 and 22) against ze_pocl, and what a native work-item costs.
 *
 * 1. vadd, saxpy and matmul (naive and tiled) on both devices: median wall time of a launch and its wait, with
 *    krt's choice of group size (the tiled matmul requires 16 x 16).
 * 2. The cost of a libffi call: vadd's native function from build/kernels/host/vadd.so called once per
 *    work-item directly and through ffi_call, in one thread (what a library of ABI 1 or 2 pays per work-item;
 *    ABI 3's group runner paid it once per run of groups; ABI 4's runner is called without it).
 * 3. What a group costs: vadd over 2^22 work-items on the host device with static groups of 1 to 1024.
 * 4. Every kernel of kernels/ and bench/kernels/ on both devices, side by side, results compared, with the
 *    geometric mean of host / ze_pocl (--kernels-only runs this part alone, --only KERNEL one kernel).
 *
 * --device DEV runs part 4 on one device only and prints its times (for valgrind, which cannot run PoCL's AVX-512
 * kernels). --best reports the fastest sample instead of the median; --cpu-time times each launch and wait in the process's
 * CPU time (every thread's: the host device's pool, PoCL's threads) instead of the wall clock. On a machine that
 * other work loads, the two together move far less from run to run than wall-clock medians; they measure work
 * done rather than elapsed time (a device that keeps two threads busy for 1 ms shows 2 ms). */
#include <time.h>
#include <dlfcn.h>
#include <ffi.h>
#include <math.h>
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
    "usage: host_device [--out DIR] [--samples N] [--n N] [--matrix N] [--items N] [--ffi-only] [--kernels-only] [--only KERNEL]\n"
    "                   [--cpu-time] [--best] [--device host|cpu]\n"
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

/* --cpu-time, --best (above). */
static int cpu_time, best;

static uint64_t clock_ns(void)
{
    if (!cpu_time)
        return bench_now_ns();
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Median (--best: least) ms of one launch + wait over samples, after one warm-up launch. */
static double time_launch(krt_kernel *k, const krt_launch_desc *d, int samples)
{
    KRT_CHECK(krt_launch_sync(k, d));
    double *t = calloc((size_t)samples, sizeof *t);
    for (int s = 0; s < samples; s++) {
        uint64_t t0 = clock_ns();
        KRT_CHECK(krt_launch_sync(k, d));
        t[s] = (double)(clock_ns() - t0) / 1e6;
    }
    double m = t[0];
    if (best) {
        for (int s = 1; s < samples; s++)
            m = t[s] < m ? t[s] : m;
    } else {
        m = bench_median(t, (size_t)samples);
    }
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

/* ---- 4. Every kernel of kernels/ and bench/kernels/ on both devices ----------------------------------------- */

/* An argument of a workload: a buffer of count elements ('f' float, 'd' double, 'i' 32-bit int, 'b' byte, filled
 * with small values the same on both devices, 'z' zeroed ints), a __local buffer of count bytes ('L'), or a
 * scalar ('U' uint, 'I' int, 'F' float). */
typedef struct kspec_arg {
    char kind;
    double value;
    size_t count;
} kspec_arg;

typedef struct kspec {
    const char *file;   /* module: in kernels/ (example) or bench/kernels/ (bench) */
    int bench;
    const char *kernel;
    uint32_t dims;
    size_t size[3];
    size_t group[3];    /* 0: krt's choice */
    kspec_arg args[20];
    int num_args;
} kspec;

#define N4M ((size_t)1 << 22)
#define BUF(k, n) { k, 0, n }
#define VAL(k, v) { k, v, 0 }

static const kspec kspecs[] = {
    { "vadd.spv", 0, "vadd", 1, { N4M }, { 0 }, { BUF('f', N4M), BUF('f', N4M), BUF('f', N4M), VAL('U', N4M) }, 4 },
    { "saxpy.spv", 0, "saxpy", 1, { N4M }, { 0 }, { VAL('F', 0.5), BUF('f', N4M), BUF('f', N4M), VAL('U', N4M) }, 4 },
    { "matmul.spv", 0, "matmul_naive", 2, { 256, 256 }, { 0 },
      { BUF('f', 65536), BUF('f', 65536), BUF('f', 65536), VAL('U', 256), VAL('U', 256), VAL('U', 256) }, 6 },
    { "matmul.spv", 0, "matmul_tiled", 2, { 256, 256 }, { 16, 16 },
      { BUF('f', 65536), BUF('f', 65536), BUF('f', 65536), VAL('U', 256), VAL('U', 256), VAL('U', 256) }, 6 },
    { "heat.spv", 0, "heat_step", 2, { 1024, 1024 }, { 0 },
      { BUF('f', 1 << 20), BUF('f', 1 << 20), VAL('U', 1024), VAL('U', 1024), VAL('F', 0.1) }, 5 },
    { "histogram.spv", 0, "histogram_global", 1, { N4M }, { 0 }, { BUF('b', N4M), BUF('z', 256), VAL('U', N4M) }, 3 },
    { "histogram.spv", 0, "histogram_local", 1, { N4M }, { 0 }, { BUF('b', N4M), BUF('z', 256), VAL('U', N4M) }, 3 },
    { "mandelbrot.spv", 0, "mandelbrot", 2, { 512, 512 }, { 0 },
      { BUF('z', 1 << 18), VAL('U', 512), VAL('U', 512), VAL('F', -2.0), VAL('F', -1.5), VAL('F', 3.0 / 512),
        VAL('F', 3.0 / 512), VAL('U', 256) }, 8 },
    { "reduce.spv", 0, "reduce_sum_f32", 1, { N4M }, { 256 },
      { BUF('f', N4M), BUF('f', N4M / 256), BUF('L', 256 * 4), VAL('U', N4M) }, 4 },
    { "reduce.spv", 0, "reduce_sum_i32", 1, { N4M }, { 256 },
      { BUF('i', N4M), BUF('i', N4M / 256), BUF('L', 256 * 4), VAL('U', N4M) }, 4 },
    { "knobs.spv", 0, "scale", 1, { N4M }, { 0 }, { BUF('f', N4M), VAL('F', 2), VAL('U', N4M), BUF('z', 16) }, 4 },
    { "knobs.spv", 0, "scale_hint", 1, { N4M }, { 0 }, { BUF('f', N4M), VAL('F', 2), VAL('U', N4M), BUF('z', 16) }, 4 },
    { "knobs.spv", 0, "scale_reqd", 1, { N4M }, { 0 }, { BUF('f', N4M), VAL('F', 2), VAL('U', N4M), BUF('z', 16) }, 4 },
    { "knobs.spv", 0, "scale_spec", 1, { N4M }, { 0 }, { BUF('f', N4M), VAL('U', N4M), BUF('z', 16) }, 3 },
    { "offbyone.spv", 0, "scale_blocks", 1, { N4M / 16 }, { 0 },
      { BUF('f', N4M + 1), BUF('f', N4M + 1), VAL('F', 2), VAL('U', 16), VAL('U', N4M / 16) }, 5 },
    { "bench_launch.spv", 1, "k1", 1, { N4M }, { 0 }, { BUF('f', N4M) }, 1 },
    { "bench_launch.spv", 1, "k4", 1, { N4M }, { 0 }, { BUF('f', N4M), BUF('f', N4M), VAL('F', 0.5), VAL('U', N4M) }, 4 },
    { "bench_launch.spv", 1, "k16", 1, { N4M }, { 0 },
      { BUF('f', N4M), BUF('f', N4M), BUF('f', N4M), BUF('f', N4M), BUF('f', N4M), BUF('f', N4M), BUF('f', N4M),
        BUF('f', N4M), VAL('F', 1), VAL('F', 2), VAL('F', 3), VAL('F', 4), VAL('F', 5), VAL('F', 6), VAL('F', 7),
        VAL('U', N4M) }, 16 },
    { "bench_lu.spv", 1, "lu_update", 2, { 1023, 1023 }, { 0 }, { BUF('f', 1 << 20), VAL('U', 1024), VAL('U', 0) }, 3 },
    { "bench_stencil3d.spv", 1, "stencil3d", 3, { 128, 128, 128 }, { 0 },
      { BUF('f', 1 << 21), BUF('f', 1 << 21), VAL('U', 128), VAL('U', 128), VAL('U', 128) }, 5 },
    { "bench_ten.spv", 1, "t0_copy", 1, { N4M }, { 0 }, { BUF('f', N4M), BUF('f', N4M), VAL('U', N4M) }, 3 },
    { "bench_ten.spv", 1, "t1_scale", 1, { N4M }, { 0 }, { BUF('f', N4M), VAL('F', 1.5), VAL('U', N4M) }, 3 },
    { "bench_ten.spv", 1, "t2_axpy", 1, { N4M }, { 0 }, { BUF('f', N4M), BUF('f', N4M), VAL('F', 0.5), VAL('U', N4M) }, 4 },
    { "bench_ten.spv", 1, "t3_iota", 1, { N4M }, { 0 }, { BUF('i', N4M), VAL('I', 7), VAL('U', N4M) }, 3 },
    { "bench_ten.spv", 1, "t4_square", 1, { N4M }, { 0 }, { BUF('d', N4M), VAL('U', N4M) }, 2 },
    { "bench_ten.spv", 1, "t5_clamp", 1, { N4M }, { 0 }, { BUF('f', N4M), VAL('F', 2), VAL('F', 50), VAL('U', N4M) }, 4 },
    { "bench_ten.spv", 1, "t6_sum2d", 2, { 2048, 2048 }, { 0 },
      { BUF('f', N4M), BUF('f', N4M), VAL('U', 2048), VAL('U', 2048) }, 4 },
    { "bench_ten.spv", 1, "t7_partial_sum", 1, { N4M }, { 256 },
      { BUF('f', N4M), BUF('f', N4M / 256), BUF('L', 256 * 4), VAL('U', N4M) }, 4 },
    { "bench_ten.spv", 1, "t8_count", 1, { N4M }, { 0 }, { BUF('i', N4M), BUF('z', 1), VAL('I', 3), VAL('U', N4M) }, 4 },
};
#define NUM_KSPECS (sizeof kspecs / sizeof kspecs[0])

/* What a workload left in its buffers, as 64-bit sums of the integer ones (equal on both devices) and of the
 * float ones (close). */
typedef struct kresult {
    double ms;
    double fsum;
    uint64_t isum;
} kresult;

/* --only NAME: the workloads of that kernel alone (for an experiment); NULL: all. */
static const char *only;

static void run_kernels(const char *device, int samples, kresult *res)
{
    krt_context *ctx = NULL;
    KRT_CHECK(krt_context_create(&(krt_context_desc){ .device = device }, &ctx));
    krt_alloc_desc ad = { .kind = KRT_MEMORY_SHARED };
    for (size_t w = 0; w < NUM_KSPECS; w++) {
        const kspec *k = &kspecs[w];
        if (only && strcmp(only, k->kernel) != 0)
            continue;
        krt_module *m = NULL;
        const char *dir = k->bench ? bench_kernel_dir() : bench_example_kernel_dir();
        KRT_CHECK(krt_module_create(ctx, &(krt_module_desc){ .path = bench_path(dir, k->file) }, &m));
        krt_kernel *kern = NULL;
        KRT_CHECK(krt_kernel_get(m, k->kernel, &kern));
        krt_arg args[20];
        void *bufs[20] = { 0 };
        uint32_t u[20];
        int32_t i32[20];
        float f[20];
        for (int a = 0; a < k->num_args; a++) {
            const kspec_arg *s = &k->args[a];
            size_t elem = s->kind == 'd' ? 8 : s->kind == 'b' ? 1 : 4;
            switch (s->kind) {
            case 'f': case 'd': case 'i': case 'b': case 'z':
                KRT_CHECK(krt_alloc(ctx, s->count * elem, &ad, &bufs[a]));
                for (size_t e = 0; e < s->count; e++) {
                    uint32_t v = (uint32_t)((e * 2654435761u) >> 7) % 97;
                    if (s->kind == 'f') ((float *)bufs[a])[e] = (float)v / 97.0f + 0.5f;
                    else if (s->kind == 'd') ((double *)bufs[a])[e] = (double)v / 97.0;
                    else if (s->kind == 'i') ((int32_t *)bufs[a])[e] = (int32_t)v;
                    else if (s->kind == 'b') ((uint8_t *)bufs[a])[e] = (uint8_t)(v * 2);
                    else ((int32_t *)bufs[a])[e] = 0;
                }
                args[a] = KRT_ARG(bufs[a]);
                break;
            case 'L': args[a] = KRT_ARG_LOCAL(s->count); break;
            case 'U': u[a] = (uint32_t)s->value; args[a] = KRT_ARG(u[a]); break;
            case 'I': i32[a] = (int32_t)s->value; args[a] = KRT_ARG(i32[a]); break;
            case 'F': f[a] = (float)s->value; args[a] = KRT_ARG(f[a]); break;
            default: bench_die("workload %s: argument kind %c", k->kernel, s->kind);
            }
        }
        krt_launch_desc d = { .range = { .dims = k->dims, .size = { k->size[0], k->size[1], k->size[2] } },
                              .args = args, .num_args = (uint32_t)k->num_args,
                              .group = { k->group[0], k->group[1], k->group[2] } };
        /* One launch from the inputs, for the results compared between the devices; then the timed ones. */
        KRT_CHECK(krt_launch_sync(kern, &d));
        res[w].fsum = 0;
        res[w].isum = 0;
        for (int a = 0; a < k->num_args; a++) {
            const kspec_arg *s = &k->args[a];
            for (size_t e = 0; bufs[a] && e < s->count; e++) {
                if (s->kind == 'f') res[w].fsum += ((float *)bufs[a])[e];
                else if (s->kind == 'd') res[w].fsum += ((double *)bufs[a])[e];
                else if (s->kind == 'i' || s->kind == 'z') res[w].isum += (uint32_t)((int32_t *)bufs[a])[e];
                else if (s->kind == 'b') res[w].isum += ((uint8_t *)bufs[a])[e];
            }
        }
        res[w].ms = time_launch(kern, &d, samples);
        for (int a = 0; a < k->num_args; a++)
            if (bufs[a])
                KRT_CHECK(krt_free(ctx, bufs[a]));
        krt_module_destroy(m);
    }
    krt_context_destroy(ctx);
}

/* Every workload on ze_pocl and on the host device, in one process, the devices side by side; the table, the
 * CSV and the geometric mean of host / ze_pocl. */
/* --device DEV: part 4 on that device alone (`host` or `cpu`), its times printed, nothing compared: for a profiler
 * that cannot run the other device (valgrind does not run PoCL's AVX-512 kernels). */
static void one_device(const char *device, int samples)
{
    static kresult res[NUM_KSPECS];
    run_kernels(device, samples, res);
    for (size_t w = 0; w < NUM_KSPECS; w++)
        if (!only || strcmp(only, kspecs[w].kernel) == 0)
            printf("%-16s %10.3f ms\n", kspecs[w].kernel, res[w].ms);
}

static void every_kernel(const char *out, int samples)
{
    static kresult pocl[NUM_KSPECS], host[NUM_KSPECS];
    run_kernels("cpu", samples, pocl);
    run_kernels("host", samples, host);
    char cells[NUM_KSPECS + 2][5][64];
    const char *cellp[(NUM_KSPECS + 2) * 5];
    snprintf(cells[0][0], 64, "kernel");
    snprintf(cells[0][1], 64, "range");
    snprintf(cells[0][2], 64, "ze_pocl ms");
    snprintf(cells[0][3], 64, "host ms");
    snprintf(cells[0][4], 64, "host / ze_pocl");
    FILE *csv = bench_csv_open(out, "host_kernels.csv");
    fprintf(csv, "kernel,ze_pocl_ms,host_ms,ratio\n");
    double log_sum = 0;
    size_t rows = 0;
    for (size_t w = 0; w < NUM_KSPECS; w++) {
        const kspec *k = &kspecs[w];
        if (only && strcmp(only, k->kernel) != 0)
            continue;
        size_t row = ++rows;
        if (host[w].isum != pocl[w].isum ||
            fabs(host[w].fsum - pocl[w].fsum) > 1e-4 * fmax(1.0, fabs(pocl[w].fsum)))
            bench_die("%s: the devices disagree (host %.9g / %llu, ze_pocl %.9g / %llu)", k->kernel, host[w].fsum,
                      (unsigned long long)host[w].isum, pocl[w].fsum, (unsigned long long)pocl[w].isum);
        double ratio = host[w].ms / pocl[w].ms;
        log_sum += log(ratio);
        snprintf(cells[row][0], 64, "%s%s", k->kernel, k->group[0] ? " (static group)" : "");
        if (k->dims == 1) snprintf(cells[row][1], 64, "%zu", k->size[0]);
        else if (k->dims == 2) snprintf(cells[row][1], 64, "%zu x %zu", k->size[0], k->size[1]);
        else snprintf(cells[row][1], 64, "%zu x %zu x %zu", k->size[0], k->size[1], k->size[2]);
        snprintf(cells[row][2], 64, "%.3f", pocl[w].ms);
        snprintf(cells[row][3], 64, "%.3f", host[w].ms);
        snprintf(cells[row][4], 64, "%.2f", ratio);
        fprintf(csv, "%s,%.4f,%.4f,%.4f\n", k->kernel, pocl[w].ms, host[w].ms, ratio);
    }
    double geomean = exp(log_sum / (double)(rows ? rows : 1));
    snprintf(cells[rows + 1][0], 64, "geometric mean");
    snprintf(cells[rows + 1][1], 64, "%zu kernels", rows);
    cells[rows + 1][2][0] = 0;
    cells[rows + 1][3][0] = 0;
    snprintf(cells[rows + 1][4], 64, "%.2f", geomean);
    fprintf(csv, "geomean,,,%.4f\n", geomean);
    fclose(csv);
    for (size_t r = 0; r < rows + 2; r++)
        for (int c = 0; c < 5; c++)
            cellp[r * 5 + c] = cells[r][c];
    bench_table_emit(out, "host_kernels.md",
                     cpu_time ? (best ? "every kernel of kernels/ and bench/kernels/, launch + wait in process CPU time, least of the samples"
                                      : "every kernel of kernels/ and bench/kernels/, launch + wait in process CPU time, median of the samples")
                              : (best ? "every kernel of kernels/ and bench/kernels/, launch + wait, least of the samples"
                                      : "every kernel of kernels/ and bench/kernels/, launch + wait, median of the samples"), 5,
                     (int)rows + 2, cellp);
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
    static const char *const known[] = { "out", "samples", "n", "items", "matrix", "ffi-only", "kernels-only", "only",
                                         "cpu-time", "best", "device", NULL };
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
    only = bench_opt_str(argc, argv, "only", NULL);
    cpu_time = bench_opt_flag(argc, argv, "cpu-time");
    best = bench_opt_flag(argc, argv, "best");
    const char *device = bench_opt_str(argc, argv, "device", NULL);
    if (device) {
        one_device(device, samples);
        return 0;
    }
    if (bench_opt_flag(argc, argv, "kernels-only")) {
        every_kernel(out, samples);
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
    printf("\n");
    every_kernel(out, samples);
    return 0;
}
