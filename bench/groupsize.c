/*
 * groupsize: how good is the group size krt chooses? For each example kernel (build/kernels) and each of the
 * ranges 2^20 and 1,000,003 (1-D kernels), 1000 x 1000 (2-D kernels) and 97 x 89 x 31 (a benchmark-only 3-D
 * stencil, since no example kernel is 3-D), the kernel time with krt's automatic configuration is compared
 * with the best of a sweep over the valid group sizes on the same device.
 *
 * The sweep: every group whose size in each dimension is a power of two, no larger than the device's limit
 * for that dimension nor than the next power of two above the range in that dimension, and whose total is
 * within the kernel's maximum group size; plus krt's own choice, which need not be a power of two. A kernel
 * with a required group size has exactly one valid size. Each candidate is run once untimed (PoCL compiles a
 * work-group function per group size on its first use), then timed; the five fastest and krt's choice are
 * timed again, interleaved, and the fastest sample of each decides. Time is wall time of synchronized runs:
 * `reps` launches (about 5 ms of work), then krt_queue_synchronize, divided by reps. The minimum, not the
 * median, because on a machine shared with other work the noise only ever adds time, and it hits a sample
 * of the best size and one of krt's size alike.
 *
 * With --tune, each case is first tuned by krt_kernel_tune (the same candidates, --samples samples each), so
 * that krt's choice in the table is the measured one (limit "tuned"): the table then shows how well wisdom from
 * one tuning run holds up against the sweep in the same run.
 *
 * First, a table of how many distinct groups krt chooses per kernel over range sweeps (count_shapes), with the
 * context's default min_groups and with 16; --shapes-only stops after it.
 *
 * Usage: groupsize [--samples N] [--final N] [--only SUBSTRING] [--quick] [--tune] [--shapes-only] [--out DIR]
 */
#include "bench_util.h"

#include <krt.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct spec {
    const char *file;   /* module file name */
    int bench_only;     /* 1: in build/bench/kernels, else in build/kernels */
    const char *kernel;
    int dims;
} spec;

static const spec specs[] = {
    {"vadd.spv", 0, "vadd", 1},
    {"saxpy.spv", 0, "saxpy", 1},
    {"histogram.spv", 0, "histogram_global", 1},
    {"histogram.spv", 0, "histogram_local", 1},
    {"reduce.spv", 0, "reduce_sum_f32", 1},
    {"reduce.spv", 0, "reduce_sum_i32", 1},
    {"heat.spv", 0, "heat_step", 2},
    {"mandelbrot.spv", 0, "mandelbrot", 2},
    {"matmul.spv", 0, "matmul_naive", 2},
    {"matmul.spv", 0, "matmul_tiled", 2},
    {"bench_stencil3d.spv", 1, "stencil3d", 3},
};

static const krt_ndrange ranges[] = {
    {1, {1u << 20, 1, 1}},
    {1, {1000003, 1, 1}},
    {2, {1000, 1000, 1}},
    {3, {97, 89, 31}},
};

#define MATMUL_K 64u     /* inner dimension of the matmul runs: enough work per item, short runs */
#define MANDEL_ITERS 64u /* iteration cap of the mandelbrot runs */

/* One (kernel, range) pair with its buffers and arguments. local_arg is the index of a __local argument
 * sized per work-item (local_bytes_per_item), or -1. */
typedef struct job {
    krt_context *ctx;
    krt_kernel *kernel;
    krt_ndrange range;
    krt_arg args[8];
    uint32_t num_args;
    int local_arg;
    size_t local_bytes_per_item;
    void *bufs[4];
    int nbufs;
    /* scalar argument storage: arguments point into these */
    uint32_t u[4];
    float f[5];
} job;

static void *alloc_buf(job *j, size_t bytes, int byte_pattern)
{
    krt_alloc_desc ad = {.kind = KRT_MEMORY_SHARED};
    void *p;
    KRT_CHECK(krt_alloc(j->ctx, bytes, &ad, &p));
    /* Shared memory is host-accessible on every driver krt supports; filling it here keeps the runs free of
     * uninitialised data (NaNs and denormals would distort float kernels). */
    if (byte_pattern >= 0)
        memset(p, byte_pattern, bytes);
    j->bufs[j->nbufs++] = p;
    return p;
}

static void fill_floats(float *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (float)(i % 97) * 0.01f;
}

/* Arguments for each kernel, sized for the range. */
static void setup_job(job *j, const spec *s)
{
    uint64_t nx = j->range.size[0], ny = j->range.size[1], nz = j->range.size[2];
    uint64_t n = nx * ny * nz;
    j->local_arg = -1;
    const char *k = s->kernel;
#define PTR(i, p) (j->args[i] = (krt_arg){&j->bufs[p], sizeof(void *), KRT_ARG_TYPE_POINTER})
    if (!strcmp(k, "vadd")) {
        fill_floats(alloc_buf(j, n * 4, 0), n);
        fill_floats(alloc_buf(j, n * 4, 0), n);
        alloc_buf(j, n * 4, 0);
        j->u[0] = (uint32_t)n;
        PTR(0, 0), PTR(1, 1), PTR(2, 2);
        j->args[3] = KRT_ARG(j->u[0]);
        j->num_args = 4;
    } else if (!strcmp(k, "saxpy")) {
        fill_floats(alloc_buf(j, n * 4, 0), n);
        fill_floats(alloc_buf(j, n * 4, 0), n);
        j->f[0] = 0.5f;
        j->u[0] = (uint32_t)n;
        j->args[0] = KRT_ARG(j->f[0]);
        PTR(1, 0), PTR(2, 1);
        j->args[3] = KRT_ARG(j->u[0]);
        j->num_args = 4;
    } else if (!strncmp(k, "histogram", 9)) {
        unsigned char *d = alloc_buf(j, n, 0);
        for (uint64_t i = 0; i < n; i++)
            d[i] = (unsigned char)((i * 2654435761u) >> 13);
        alloc_buf(j, 256 * 4, 0);
        j->u[0] = (uint32_t)n;
        PTR(0, 0), PTR(1, 1);
        j->args[2] = KRT_ARG(j->u[0]);
        j->num_args = 3;
    } else if (!strncmp(k, "reduce_sum", 10)) {
        fill_floats(alloc_buf(j, n * 4, 0), n);
        alloc_buf(j, n * 4, 0); /* one partial per group: at most n groups */
        j->u[0] = (uint32_t)n;
        PTR(0, 0), PTR(1, 1);
        j->args[2] = KRT_ARG_LOCAL(4);
        j->local_arg = 2;
        j->local_bytes_per_item = 4;
        j->args[3] = KRT_ARG(j->u[0]);
        j->num_args = 4;
    } else if (!strcmp(k, "heat_step")) {
        fill_floats(alloc_buf(j, n * 4, 0), n);
        alloc_buf(j, n * 4, 0);
        j->u[0] = (uint32_t)nx;
        j->u[1] = (uint32_t)ny;
        j->f[0] = 0.2f;
        PTR(0, 0), PTR(1, 1);
        j->args[2] = KRT_ARG(j->u[0]);
        j->args[3] = KRT_ARG(j->u[1]);
        j->args[4] = KRT_ARG(j->f[0]);
        j->num_args = 5;
    } else if (!strcmp(k, "mandelbrot")) {
        alloc_buf(j, n * 4, 0);
        j->u[0] = (uint32_t)nx;
        j->u[1] = (uint32_t)ny;
        j->f[0] = -2.0f;
        j->f[1] = -1.5f;
        j->f[2] = 3.0f / (float)nx;
        j->f[3] = 3.0f / (float)ny;
        j->u[2] = MANDEL_ITERS;
        PTR(0, 0);
        j->args[1] = KRT_ARG(j->u[0]);
        j->args[2] = KRT_ARG(j->u[1]);
        j->args[3] = KRT_ARG(j->f[0]);
        j->args[4] = KRT_ARG(j->f[1]);
        j->args[5] = KRT_ARG(j->f[2]);
        j->args[6] = KRT_ARG(j->f[3]);
        j->args[7] = KRT_ARG(j->u[2]);
        j->num_args = 8;
    } else if (!strncmp(k, "matmul", 6)) {
        /* Dimension 0 runs over the columns of C (n), dimension 1 over its rows (m). */
        uint32_t m = (uint32_t)ny, cols = (uint32_t)nx, kk = MATMUL_K;
        fill_floats(alloc_buf(j, (size_t)m * kk * 4, 0), (size_t)m * kk);
        fill_floats(alloc_buf(j, (size_t)kk * cols * 4, 0), (size_t)kk * cols);
        alloc_buf(j, (size_t)m * cols * 4, 0);
        j->u[0] = m;
        j->u[1] = cols;
        j->u[2] = kk;
        PTR(0, 0), PTR(1, 1), PTR(2, 2);
        j->args[3] = KRT_ARG(j->u[0]);
        j->args[4] = KRT_ARG(j->u[1]);
        j->args[5] = KRT_ARG(j->u[2]);
        j->num_args = 6;
    } else if (!strcmp(k, "stencil3d")) {
        fill_floats(alloc_buf(j, n * 4, 0), n);
        alloc_buf(j, n * 4, 0);
        j->u[0] = (uint32_t)nx;
        j->u[1] = (uint32_t)ny;
        j->u[2] = (uint32_t)nz;
        PTR(0, 0), PTR(1, 1);
        j->args[2] = KRT_ARG(j->u[0]);
        j->args[3] = KRT_ARG(j->u[1]);
        j->args[4] = KRT_ARG(j->u[2]);
        j->num_args = 5;
    } else {
        bench_die("no argument setup for kernel %s", k);
    }
#undef PTR
}

/* One launch with group g (all zero: krt chooses). Returns the krt result. */
static krt_result launch(job *j, const uint32_t g[3], const uint32_t chosen[3])
{
    krt_launch_desc d = {.range = j->range, .args = j->args, .num_args = j->num_args};
    memcpy(d.group, g, sizeof d.group);
    krt_arg args[8];
    memcpy(args, j->args, sizeof args);
    if (j->local_arg >= 0) {
        /* A __local scratch argument holds one element per work-item of the group actually used. */
        const uint32_t *e = (g[0] | g[1] | g[2]) ? g : chosen;
        size_t items = (size_t)(e[0] ? e[0] : 1) * (e[1] ? e[1] : 1) * (e[2] ? e[2] : 1);
        args[j->local_arg] = KRT_ARG_LOCAL(items * j->local_bytes_per_item);
    }
    d.args = args;
    return krt_launch(j->kernel, &d);
}

/* Seconds per launch over reps launches and one synchronize; negative when the launch was refused. */
static double time_runs(job *j, const uint32_t g[3], const uint32_t chosen[3], int reps)
{
    uint64_t t0 = bench_now_ns();
    for (int r = 0; r < reps; r++)
        if (launch(j, g, chosen) != KRT_SUCCESS)
            return -1;
    KRT_CHECK(krt_queue_synchronize(krt_context_default_queue(j->ctx)));
    return (double)(bench_now_ns() - t0) / 1e9 / reps;
}

typedef struct cand {
    uint32_t g[3];
    int reps;
    double t;      /* sweep time: fastest sample */
    double final;  /* fastest of the interleaved final samples */
    double samples[32];
    int nsamples;
    int is_krt;
} cand;

static uint32_t next_pow2(uint64_t v)
{
    uint32_t p = 1;
    while (p < v && p < (1u << 30))
        p <<= 1;
    return p;
}

static int cmp_cand(const void *a, const void *b)
{
    double x = ((const cand *)a)->t, y = ((const cand *)b)->t;
    return (x > y) - (x < y);
}

static void fmt_group(char *buf, size_t n, const uint32_t g[3], int dims)
{
    if (dims == 1)
        snprintf(buf, n, "%u", g[0]);
    else if (dims == 2)
        snprintf(buf, n, "%ux%u", g[0], g[1]);
    else
        snprintf(buf, n, "%ux%ux%u", g[0], g[1], g[2]);
}

static void fmt_range(char *buf, size_t n, const krt_ndrange *r)
{
    if (r->dims == 1)
        snprintf(buf, n, "%llu", (unsigned long long)r->size[0]);
    else if (r->dims == 2)
        snprintf(buf, n, "%llux%llu", (unsigned long long)r->size[0], (unsigned long long)r->size[1]);
    else
        snprintf(buf, n, "%llux%llux%llu", (unsigned long long)r->size[0], (unsigned long long)r->size[1],
                 (unsigned long long)r->size[2]);
}

typedef struct result {
    char kernel[64], range[32], krt_group[32], best_group[32], limit[32];
    int ncand;
    double t_krt, t_best, ratio;
    double tune_s; /* --tune: seconds krt_kernel_tune took */
} result;

static int run_job(krt_context *ctx, krt_module *mod, const spec *s, const krt_ndrange *range,
                   const krt_device_info *dev, int samples, int finals, int quick, int tune, FILE *sweep,
                   result *res)
{
    job j;
    memset(&j, 0, sizeof j);
    j.ctx = ctx;
    j.range = *range;
    KRT_CHECK(krt_kernel_get(mod, s->kernel, &j.kernel));
    setup_job(&j, s);

    if (tune) {
        /* Wisdom from one tuning run (krt_kernel_tune), then the same sweep: krt's choice is the tuned group. */
        krt_launch_desc td = {.range = *range, .args = j.args, .num_args = j.num_args};
        krt_tune_desc t = {.samples = (uint32_t)samples,
                           .local_bytes_per_item = j.local_arg >= 0 ? (uint32_t)j.local_bytes_per_item : 0};
        krt_tune_result tr;
        uint64_t t0 = bench_now_ns();
        KRT_CHECK(krt_kernel_tune(j.kernel, &td, &t, &tr));
        res->tune_s = (double)(bench_now_ns() - t0) / 1e9;
    }
    krt_launch_config cfg;
    KRT_CHECK(krt_launch_config_get(j.kernel, range, &cfg));
    krt_kernel_properties props;
    KRT_CHECK(krt_kernel_properties_get(j.kernel, &props));
    uint32_t kmax = props.max_group_size ? props.max_group_size : dev->max_group_size;

    /* The candidates. */
    static cand c[2048];
    memset(c, 0, sizeof c);
    int nc = 0;
    int dims = (int)range->dims;
    if (props.required_group[0]) {
        memcpy(c[nc].g, props.required_group, sizeof c[nc].g);
        nc++;
    } else {
        uint32_t lim[3];
        for (int d = 0; d < 3; d++) {
            lim[d] = d < dims ? next_pow2(range->size[d]) : 1;
            if (lim[d] > dev->max_group[d])
                lim[d] = dev->max_group[d];
        }
        uint32_t minprod = quick ? 16 : 1;
        for (uint32_t z = 1; z <= lim[2]; z <<= 1)
            for (uint32_t y = 1; y <= lim[1]; y <<= 1)
                for (uint32_t x = 1; x <= lim[0]; x <<= 1) {
                    uint64_t p = (uint64_t)x * y * z;
                    if (p > kmax || p < minprod || nc >= 2047)
                        continue;
                    c[nc++] = (cand){.g = {x, y, z}};
                }
    }
    int krt_i = -1;
    uint32_t kg[3] = {cfg.group[0], dims > 1 ? cfg.group[1] : 1, dims > 2 ? cfg.group[2] : 1};
    for (int i = 0; i < nc; i++)
        if (!memcmp(c[i].g, kg, sizeof kg))
            krt_i = i;
    if (krt_i < 0) {
        memcpy(c[nc].g, kg, sizeof kg);
        krt_i = nc++;
    }
    c[krt_i].is_krt = 1;

    /* Sweep: one untimed run (compilation), one run to size the batch, then the timed samples. */
    static const uint32_t zero[3] = {0, 0, 0};
    int valid = 0;
    for (int i = 0; i < nc; i++) {
        const uint32_t *g = c[i].is_krt ? zero : c[i].g;
        double t = time_runs(&j, g, kg, 1);
        if (t < 0) {
            c[i].t = INFINITY;
            continue;
        }
        t = time_runs(&j, g, kg, 1);
        int reps = (int)(5e-3 / (t > 1e-6 ? t : 1e-6));
        c[i].reps = reps < 1 ? 1 : reps > 100 ? 100 : reps;
        double v[32];
        for (int r = 0; r < samples; r++)
            v[r] = time_runs(&j, g, kg, c[i].reps);
        c[i].t = bench_min(v, (size_t)samples);
        valid++;
    }
    /* Every candidate's sweep time, for a look at the whole landscape (groupsize_sweep.csv). */
    char rs[32];
    fmt_range(rs, sizeof rs, range);
    for (int i = 0; i < nc; i++)
        if (!isinf(c[i].t))
            fprintf(sweep, "%s,%s,%u,%u,%u,%u,%.2f,%d\n", s->kernel, rs, c[i].g[0], c[i].g[1], c[i].g[2],
                    c[i].g[0] * c[i].g[1] * c[i].g[2], c[i].t * 1e6, c[i].is_krt);
    /* Final: the five fastest and krt's choice, interleaved. */
    cand krt_c = c[krt_i];
    qsort(c, (size_t)nc, sizeof c[0], cmp_cand);
    int nf = nc < 5 ? nc : 5;
    int have_krt = 0;
    for (int i = 0; i < nf; i++)
        have_krt |= c[i].is_krt;
    if (!have_krt)
        c[nf++] = krt_c;
    for (int r = 0; r < finals; r++)
        for (int i = 0; i < nf; i++) {
            const uint32_t *g = c[i].is_krt ? zero : c[i].g;
            c[i].samples[c[i].nsamples++] = time_runs(&j, g, kg, c[i].reps);
        }
    int best = -1, ki = -1;
    for (int i = 0; i < nf; i++) {
        c[i].final = bench_min(c[i].samples, (size_t)c[i].nsamples);
        if (c[i].is_krt)
            ki = i;
        if (!isinf(c[i].t) && (best < 0 || c[i].final < c[best].final))
            best = i;
    }
    snprintf(res->kernel, sizeof res->kernel, "%s", s->kernel);
    fmt_range(res->range, sizeof res->range, range);
    fmt_group(res->krt_group, sizeof res->krt_group, kg, dims);
    fmt_group(res->best_group, sizeof res->best_group, c[best].g, dims);
    snprintf(res->limit, sizeof res->limit, "%s", krt_limit_name(cfg.limit));
    res->ncand = valid;
    res->t_krt = c[ki].final;
    res->t_best = c[best].final;
    res->ratio = c[ki].final / c[best].final;

    for (int i = 0; i < j.nbufs; i++)
        krt_free(ctx, j.bufs[i]);
    return 0;
}

/* The distinct groups krt chooses for one kernel over the sweeps of issue 11: every 1-D range 1..2^20 (each
 * size up to 8192, then steps of n / 4096 + 1, and 2^20) for a 1-D kernel, every n x n for n in 1..1024 for a
 * 2-D one, n x n x n for n in 1..128 for a 3-D one. Configuration lookups only, nothing is launched. */
static int count_shapes(krt_kernel *k, int dims)
{
    static uint32_t seen[4096][3];
    int n = 0;
    uint64_t last = dims == 1 ? (1u << 20) : dims == 2 ? 1024 : 128;
    for (uint64_t v = 1; v <= last;) {
        krt_ndrange r = {(uint32_t)dims, {v, dims > 1 ? v : 1, dims > 2 ? v : 1}};
        krt_launch_config c;
        KRT_CHECK(krt_launch_config_get(k, &r, &c));
        int found = 0;
        for (int i = 0; i < n && !found; i++)
            found = !memcmp(seen[i], c.group, sizeof seen[i]);
        if (!found && n < 4096)
            memcpy(seen[n++], c.group, sizeof seen[0]);
        if (v == last)
            break;
        v += dims == 1 && v > 8192 ? v / 4096 + 1 : 1;
        if (v > last)
            v = last;
    }
    return n;
}

/* The shape counts for every kernel of the table, with the context's default min_groups and with 16. */
static void shapes_table(const char *out, const char *only)
{
    enum { COLS = 4 };
    const char *cells[(sizeof specs / sizeof specs[0] + 1) * COLS];
    char buf[sizeof specs / sizeof specs[0]][3][32];
    cells[0] = "kernel";
    cells[1] = "sweep";
    cells[2] = "shapes (default)";
    cells[3] = "shapes (min_groups 16)";
    int rows = 1;
    for (size_t si = 0; si < sizeof specs / sizeof specs[0]; si++) {
        const spec *s = &specs[si];
        if (only && !strstr(s->kernel, only))
            continue;
        int counts[2];
        for (int m = 0; m < 2; m++) {
            krt_context_desc cd = {.min_groups = m ? 16 : 0};
            krt_context *ctx;
            KRT_CHECK(krt_context_create(&cd, &ctx));
            krt_module *mod;
            krt_module_desc md = {.path = bench_path(s->bench_only ? bench_kernel_dir() : bench_example_kernel_dir(),
                                                     s->file)};
            KRT_CHECK(krt_module_create(ctx, &md, &mod));
            krt_kernel *k;
            KRT_CHECK(krt_kernel_get(mod, s->kernel, &k));
            counts[m] = count_shapes(k, s->dims);
            krt_module_destroy(mod);
            krt_context_destroy(ctx);
        }
        const char **row = cells + rows * COLS;
        row[0] = s->kernel;
        row[1] = s->dims == 1 ? "1..2^20" : s->dims == 2 ? "n x n, n = 1..1024" : "n x n x n, n = 1..128";
        snprintf(buf[rows - 1][0], 32, "%d", counts[0]);
        snprintf(buf[rows - 1][1], 32, "%d", counts[1]);
        row[2] = buf[rows - 1][0];
        row[3] = buf[rows - 1][1];
        rows++;
    }
    bench_table_emit(out, "groupsize_shapes.md",
                     "groupsize: distinct groups krt chooses per kernel over the range sweeps (configuration "
                     "lookups only; goal: at most 12)",
                     COLS, rows, cells);
}

static const char usage[] =
    "usage: groupsize [--samples N] [--final N] [--only SUBSTRING] [--quick] [--tune] [--shapes-only]\n"
    "                 [--out DIR]\n"
    "--tune: krt_kernel_tune each case first (with --samples), so that krt's choice is the tuned group.\n"
    "--shapes-only: print the table of shapes krt chooses over the range sweeps, then stop.\n"
    "Environment: ZE_ENABLE_ALT_DRIVERS (the ze_pocl driver), KRT_KERNELS (build/kernels),\n"
    "KRT_BENCH_KERNELS (build/bench/kernels).\n";
static const char *const known_opts[] = {"samples", "final", "only", "quick", "out", "tune", "shapes-only", NULL};

int main(int argc, char **argv)
{
    bench_usage(argc, argv, usage, known_opts);
    int samples = (int)bench_opt_long(argc, argv, "samples", 3);
    int finals = (int)bench_opt_long(argc, argv, "final", 7);
    const char *only = bench_opt_str(argc, argv, "only", NULL);
    int quick = bench_opt_flag(argc, argv, "quick");
    int tune = bench_opt_flag(argc, argv, "tune");
    const char *out = bench_opt_str(argc, argv, "out", "build/bench");
    if (samples < 1 || samples > 32 || finals < 1 || finals > 32)
        bench_die("bad options");

    krt_context *ctx;
    KRT_CHECK(krt_context_create(NULL, &ctx));
    krt_device_info dev;
    KRT_CHECK(krt_context_device_info(ctx, &dev));
    printf("groupsize: device %s, max group %u (%u x %u x %u)\n", dev.name, dev.max_group_size, dev.max_group[0],
           dev.max_group[1], dev.max_group[2]);

    shapes_table(out, only);
    if (bench_opt_flag(argc, argv, "shapes-only"))
        return 0;

    static result res[64];
    int nres = 0;
    FILE *sweep = bench_csv_open(out, "groupsize_sweep.csv");
    fprintf(sweep, "kernel,range,gx,gy,gz,items,sweep_us,is_krt\n");
    for (size_t si = 0; si < sizeof specs / sizeof specs[0]; si++) {
        const spec *s = &specs[si];
        if (only && !strstr(s->kernel, only))
            continue;
        krt_module *mod;
        krt_module_desc md = {.path = bench_path(s->bench_only ? bench_kernel_dir() : bench_example_kernel_dir(),
                                                 s->file)};
        KRT_CHECK(krt_module_create(ctx, &md, &mod));
        for (size_t ri = 0; ri < sizeof ranges / sizeof ranges[0]; ri++) {
            if ((int)ranges[ri].dims != s->dims)
                continue;
            fprintf(stderr, "groupsize: %s ...\n", s->kernel);
            run_job(ctx, mod, s, &ranges[ri], &dev, samples, finals, quick, tune, sweep, &res[nres]);
            nres++;
        }
        krt_module_destroy(mod);
    }
    krt_context_destroy(ctx);
    fclose(sweep);

    FILE *csv = bench_csv_open(out, "groupsize.csv");
    fprintf(csv, "kernel,range,krt_group,krt_limit,krt_us,best_group,best_us,ratio,candidates,within_10pct\n");
    enum { COLS = 8 };
    const char **cells = calloc((size_t)(nres + 1) * COLS, sizeof *cells);
    char(*buf)[40] = calloc((size_t)(nres + 1) * COLS, sizeof *buf);
    const char *hdr[COLS] = {"kernel", "range", "krt group (rule)", "krt us", "best group", "best us",
                             "krt / best", "sizes swept"};
    for (int c = 0; c < COLS; c++)
        cells[c] = hdr[c];
    int met = 0;
    double worst = 0;
    for (int r = 0; r < nres; r++) {
        const char **row = cells + (r + 1) * COLS;
        char(*b)[40] = buf + (r + 1) * COLS;
        row[0] = res[r].kernel;
        row[1] = res[r].range;
        snprintf(b[2], 40, "%s (%s)", res[r].krt_group, res[r].limit);
        row[2] = b[2];
        snprintf(b[3], 40, "%.1f", res[r].t_krt * 1e6);
        row[3] = b[3];
        row[4] = res[r].best_group;
        snprintf(b[5], 40, "%.1f", res[r].t_best * 1e6);
        row[5] = b[5];
        snprintf(b[6], 40, "%.3f", res[r].ratio);
        row[6] = b[6];
        snprintf(b[7], 40, "%d", res[r].ncand);
        row[7] = b[7];
        int ok = res[r].ratio <= 1.10;
        met += ok;
        if (res[r].ratio > worst)
            worst = res[r].ratio;
        fprintf(csv, "%s,%s,%s,%s,%.2f,%s,%.2f,%.4f,%d,%s\n", res[r].kernel, res[r].range, res[r].krt_group,
                res[r].limit, res[r].t_krt * 1e6, res[r].best_group, res[r].t_best * 1e6, res[r].ratio,
                res[r].ncand, ok ? "yes" : "no");
    }
    fclose(csv);
    bench_table_emit(out, "groupsize.md",
                     "groupsize: kernel time with krt's choice against the best swept group size (fastest of the "
                     "interleaved final samples, wall time per launch)",
                     COLS, nres + 1, cells);
    int met5 = 0;
    double tune_total = 0;
    for (int r = 0; r < nres; r++) {
        met5 += res[r].ratio <= 1.05;
        tune_total += res[r].tune_s;
    }
    printf("\ngoal: krt within 10%% of the best everywhere: %d of %d cases met, worst ratio %.3f\n", met, nres,
           worst);
    if (tune)
        printf("goal (tuned): within 5%% of the best everywhere: %d of %d cases met; tuning took %.1f s in all\n",
               met5, nres, tune_total);
    free(cells);
    free(buf);
    return 0;
}
