/*
 * polybench: launch-bound benchmarks against OpenMP (issue 40; docs/performance.md, "Launch-bound benchmarks
 * against OpenMP"). Eleven programs of the kinds PolyBench collects, written here from the algorithms' textbook
 * definitions (kernels: bench/kernels/pb_stencils.cl and pb_linalg.cl): seven launch-bound ones, a launch or a
 * few per time step or factorisation step (jacobi-1d, jacobi-2d, lu, gramschmidt, adi, fdtd-2d, convolution-3d),
 * and four of a few launches of much work each (gemm, atax, mvt, gemver). Each runs in one process three ways:
 *   - OpenMP: its C twin (omp.c, gcc -O3 -fopenmp -march=native), a parallel region for every launch, with as
 *     many threads as the host device's pool has (one per CPU the process may run on) and OMP_WAIT_POLICY as
 *     the environment leaves it;
 *   - host: through krt on the host device (the kernels compiled as C by krt-cc --host);
 *   - ze_pocl: through krt on ze_pocl's CPU device (the kernels' SPIR-V, through PoCL).
 * A run is the whole benchmark from its initial data: through krt every launch appended to the queue and one
 * krt_queue_synchronize at the end, as a program would; for OpenMP the twin's loops. After an untimed run each
 * way (which also builds PoCL's kernels), --samples rounds each time one run of every way, in turn; a figure is
 * the median of its way's samples. Before every timed run the inputs are copied back in and the program sleeps
 * --settle-ms, so that the threads of the way that ran before are asleep (libgomp's team spins for milliseconds
 * after a region at the default wait policy, the host device's pool 50 us, PoCL's workers their own while) and
 * none takes a core from the run being timed, on a machine of 2 cores.
 *
 * The three results must agree (compare_outputs): for every output array, the largest difference from the
 * OpenMP result, over the largest magnitude in that result, at most PB_TOLERANCE; the program fails otherwise.
 *
 * Usage: polybench [--samples N] [--only NAME,...] [--settle-ms MS] [--group2d W,H] [--out DIR]
 *        polybench --check [--only NAME,...]    (small sizes, one run each way, results compared; make test runs it)
 *        polybench --way OpenMP|host|ze_pocl [--samples N] [--only NAME,...] [--settle-ms MS] [--group2d W,H]
 *                                              (one way alone, for a profiler: its median per benchmark)
 * --group2d W,H gives every 2-D launch a static W x H group (at most the range) instead of krt's choice.
 * --checks makes the host and ze_pocl ways' launches checked (KRT_CHECK_BOUNDS; the host device then runs the
 * checked libraries, build/bench/kernels/host/NAME.checked.so): `--way ze_pocl` or `--way host` with and without it
 * gives the cost of checked launches (docs/performance.md, "Checked launches").
 */
#include "bench_util.h"
#include "polybench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* How far the three results may differ, relative to the magnitude of the values (see compare_outputs). The
 * twins do the same operations in the same order as the kernels, and neither C build contracts a * b + c, so
 * most results agree exactly or to an ulp or two; what differs is (a) float sums whose order the devices choose
 * (gramschmidt's norm: a tree over 256 partial sums in the kernel, OpenMP's per-thread sums) and (b) PoCL's code,
 * which may fuse a multiply-add where C rounds twice. Each is a few ulps (2^-24 = 6e-8 relative) per rounding
 * on a value of the result's magnitude; a value of these benchmarks goes through at most about a thousand
 * dependent roundings (lu's 400 updates of the last rows, gramschmidt's 200 projections of the last column, a
 * stencil's steps, whose averages shrink an error rather than grow it), so 1e-4, about 1700 ulps of the largest
 * value, bounds what rounding can do, while a wrong index or a missed launch changes values by their own size.
 * The largest differences seen are printed (--check, and the CSV). */
#define PB_TOLERANCE 1e-4

enum { PB_MAX_ARRAYS = 9, PB_MAX_KERNELS = 4, PB_MAX_PARAMS = 4, PB_MAX_SAMPLES = 99 };

/* The three ways, in the order of the tables. */
enum { WAY_OMP, WAY_HOST, WAY_POCL, WAYS };
static const char *const way_names[WAYS] = {"OpenMP", "host", "ze_pocl"};

/* One benchmark's krt side on one device: its kernels, its buffers, and the launches of the current run. */
typedef struct pb_krt {
    krt_context *ctx;
    krt_queue *q;
    krt_module *mod;
    krt_kernel *k[PB_MAX_KERNELS];
    float *buf[PB_MAX_ARRAYS];
    long launches;
} pb_krt;

/* --group2d W,H: a static group for every 2-D launch (clamped to the range, as a static group may not exceed
 * it), to compare the group krt chooses with others; 0, 0: krt chooses (the default). */
static uint32_t group2d[2];

/* Appends one launch over an x (1-D, y = 0) or x by y range, krt choosing the group. */
static void launch(pb_krt *r, int kern, uint64_t x, uint64_t y, const krt_arg *args, uint32_t nargs)
{
    krt_launch_desc d = {.range = {y ? 2u : 1u, {x, y, 0}}, .args = args, .num_args = nargs, .queue = r->q};
    if (y && group2d[0]) {
        d.group[0] = group2d[0] < x ? group2d[0] : (uint32_t)x;
        d.group[1] = group2d[1] < y ? group2d[1] : (uint32_t)y;
    }
    KRT_CHECK(krt_launch(r->k[kern], &d));
    r->launches++;
}

#define PB_ARGS(...) ((const krt_arg[]){__VA_ARGS__}), (uint32_t)(sizeof((krt_arg[]){__VA_ARGS__}) / sizeof(krt_arg))
#define LAUNCH_1D(r, kern, x, ...) launch(r, kern, x, 0, PB_ARGS(__VA_ARGS__))
#define LAUNCH_2D(r, kern, x, y, ...) launch(r, kern, x, y, PB_ARGS(__VA_ARGS__))
#define BUF(i) KRT_PTR(r->buf[i])

/* The krt sequences: every launch of one run, appended; the caller synchronizes. p is the benchmark's row of
 * the size table; arrays and kernels in the table's order. */

static void krt_jacobi1d(pb_krt *r, const long *p)
{
    uint32_t n = (uint32_t)p[0];
    for (long t = 0; t < p[1]; t++) {
        LAUNCH_1D(r, 0, n - 2, BUF(0), BUF(1), KRT_U32(n));
        LAUNCH_1D(r, 0, n - 2, BUF(1), BUF(0), KRT_U32(n));
    }
}

static void krt_jacobi2d(pb_krt *r, const long *p)
{
    uint32_t n = (uint32_t)p[0];
    for (long t = 0; t < p[1]; t++) {
        LAUNCH_2D(r, 0, n - 2, n - 2, BUF(0), BUF(1), KRT_U32(n));
        LAUNCH_2D(r, 0, n - 2, n - 2, BUF(1), BUF(0), KRT_U32(n));
    }
}

static void krt_lu(pb_krt *r, const long *p)
{
    uint32_t n = (uint32_t)p[0];
    for (uint32_t k = 0; k + 1 < n; k++) {
        LAUNCH_1D(r, 0, n - k - 1, BUF(0), KRT_U32(n), KRT_U32(k));
        LAUNCH_2D(r, 1, n - k - 1, n - k - 1, BUF(0), KRT_U32(n), KRT_U32(k));
    }
}

static void krt_gramschmidt(pb_krt *r, const long *p)
{
    uint32_t m = (uint32_t)p[0], n = (uint32_t)p[1];
    for (uint32_t k = 0; k < n; k++) {
        /* One work-group of the kernel's required size, whatever m is. */
        LAUNCH_1D(r, 0, PB_GS_GROUP, BUF(0), BUF(1), BUF(2), KRT_U32(m), KRT_U32(n), KRT_U32(k));
        if (k + 1 < n)
            LAUNCH_1D(r, 1, n - k - 1, BUF(0), BUF(1), BUF(2), KRT_U32(m), KRT_U32(n), KRT_U32(k));
    }
}

static void krt_adi(pb_krt *r, const long *p)
{
    uint32_t n = (uint32_t)p[0];
    for (long t = 0; t < p[1]; t++) {
        for (uint32_t y = 1; y < n - 1; y++)
            LAUNCH_1D(r, 0, n - 2, BUF(0), BUF(2), BUF(3), KRT_U32(n), KRT_U32(y), KRT_F32(PB_ADI_A));
        for (uint32_t y = n - 2; y >= 1; y--)
            LAUNCH_1D(r, 1, n - 2, BUF(1), BUF(2), BUF(3), KRT_U32(n), KRT_U32(y));
        for (uint32_t x = 1; x < n - 1; x++)
            LAUNCH_1D(r, 2, n - 2, BUF(1), BUF(2), BUF(3), KRT_U32(n), KRT_U32(x), KRT_F32(PB_ADI_A));
        for (uint32_t x = n - 2; x >= 1; x--)
            LAUNCH_1D(r, 3, n - 2, BUF(0), BUF(2), BUF(3), KRT_U32(n), KRT_U32(x));
    }
}

static void krt_fdtd2d(pb_krt *r, const long *p)
{
    uint32_t nx = (uint32_t)p[0], ny = (uint32_t)p[1];
    for (long t = 0; t < p[2]; t++) {
        LAUNCH_2D(r, 0, ny, nx, BUF(1), BUF(2), KRT_U32(nx), KRT_U32(ny), KRT_F32((float)t), KRT_F32(PB_FDTD_CH));
        LAUNCH_2D(r, 1, ny - 1, nx, BUF(0), BUF(2), KRT_U32(nx), KRT_U32(ny), KRT_F32(PB_FDTD_CH));
        LAUNCH_2D(r, 2, ny - 1, nx - 1, BUF(2), BUF(0), BUF(1), KRT_U32(nx), KRT_U32(ny), KRT_F32(PB_FDTD_CE));
    }
}

static void krt_conv3d(pb_krt *r, const long *p)
{
    uint32_t ni = (uint32_t)p[0], nj = (uint32_t)p[1], nk = (uint32_t)p[2];
    for (uint32_t i = 1; i < ni - 1; i++)
        LAUNCH_2D(r, 0, nk - 2, nj - 2, BUF(0), BUF(1), KRT_U32(nj), KRT_U32(nk), KRT_U32(i), KRT_F32(PB_CONV_C0),
                  KRT_F32(PB_CONV_C1), KRT_F32(PB_CONV_C2), KRT_F32(PB_CONV_C3));
}

static void krt_gemm(pb_krt *r, const long *p)
{
    uint32_t ni = (uint32_t)p[0], nj = (uint32_t)p[1], nk = (uint32_t)p[2];
    LAUNCH_2D(r, 0, nj, ni, BUF(0), BUF(1), BUF(2), KRT_U32(ni), KRT_U32(nj), KRT_U32(nk), KRT_F32(PB_ALPHA),
              KRT_F32(PB_BETA));
}

static void krt_atax(pb_krt *r, const long *p)
{
    uint32_t m = (uint32_t)p[0], n = (uint32_t)p[1];
    LAUNCH_1D(r, 0, m, BUF(0), BUF(1), BUF(3), KRT_U32(m), KRT_U32(n));
    LAUNCH_1D(r, 1, n, BUF(0), BUF(3), BUF(2), KRT_U32(m), KRT_U32(n));
}

static void krt_mvt(pb_krt *r, const long *p)
{
    uint32_t n = (uint32_t)p[0];
    LAUNCH_1D(r, 0, n, BUF(1), BUF(0), BUF(3), KRT_U32(n));
    LAUNCH_1D(r, 1, n, BUF(2), BUF(0), BUF(4), KRT_U32(n));
}

static void krt_gemver(pb_krt *r, const long *p)
{
    uint32_t n = (uint32_t)p[0];
    LAUNCH_2D(r, 0, n, n, BUF(0), BUF(1), BUF(2), BUF(3), BUF(4), KRT_U32(n));
    LAUNCH_1D(r, 1, n, BUF(5), BUF(0), BUF(7), KRT_U32(n), KRT_F32(PB_BETA));
    LAUNCH_1D(r, 2, n, BUF(5), BUF(8), KRT_U32(n));
    LAUNCH_1D(r, 3, n, BUF(6), BUF(0), BUF(5), KRT_U32(n), KRT_F32(PB_ALPHA));
}

/* Array sizes in floats, from the parameters. */
static void sizes_jacobi1d(const long *p, size_t *c) { c[0] = c[1] = (size_t)p[0]; }
static void sizes_jacobi2d(const long *p, size_t *c) { c[0] = c[1] = (size_t)(p[0] * p[0]); }
static void sizes_lu(const long *p, size_t *c) { c[0] = (size_t)(p[0] * p[0]); }
static void sizes_gramschmidt(const long *p, size_t *c)
{
    c[0] = c[1] = (size_t)(p[0] * p[1]);
    c[2] = (size_t)(p[1] * p[1]);
}
static void sizes_adi(const long *p, size_t *c) { c[0] = c[1] = c[2] = c[3] = (size_t)(p[0] * p[0]); }
static void sizes_fdtd2d(const long *p, size_t *c) { c[0] = c[1] = c[2] = (size_t)(p[0] * p[1]); }
static void sizes_conv3d(const long *p, size_t *c) { c[0] = c[1] = (size_t)(p[0] * p[1] * p[2]); }
static void sizes_gemm(const long *p, size_t *c)
{
    c[0] = (size_t)(p[0] * p[1]);
    c[1] = (size_t)(p[0] * p[2]);
    c[2] = (size_t)(p[2] * p[1]);
}
static void sizes_atax(const long *p, size_t *c)
{
    c[0] = (size_t)(p[0] * p[1]);
    c[1] = c[2] = (size_t)p[1];
    c[3] = (size_t)p[0];
}
static void sizes_mvt(const long *p, size_t *c)
{
    c[0] = (size_t)(p[0] * p[0]);
    c[1] = c[2] = c[3] = c[4] = (size_t)p[0];
}
static void sizes_gemver(const long *p, size_t *c)
{
    c[0] = (size_t)(p[0] * p[0]);
    for (int i = 1; i < 9; i++)
        c[i] = (size_t)p[0];
}

/* Initial data: every array starts as pb_rand values in [0, 1) (init_arrays); these then make the problem well
 * posed. */
static void init_lu(const long *p, float *const *a)
{
    /* Off-diagonal rows sum to about n / 2: a diagonal of n + 1 makes the matrix diagonally dominant, so that
     * the factorisation needs no pivoting and stays well conditioned. */
    for (long i = 0; i < p[0]; i++)
        a[0][i * p[0] + i] += (float)p[0] + 1.0f;
}

static void init_gramschmidt(const long *p, float *const *a)
{
    /* A well-conditioned m x n matrix (m >= n): entries in [-0.5, 0.5) plus the identity's columns. q and r are
     * written before they are read, but start at zero (r's lower triangle is never written). */
    long m = p[0], n = p[1];
    for (long i = 0; i < m * n; i++)
        a[0][i] -= 0.5f;
    for (long i = 0; i < n; i++)
        a[0][i * n + i] += 1.0f;
    memset(a[1], 0, (size_t)(m * n) * sizeof(float));
    memset(a[2], 0, (size_t)(n * n) * sizeof(float));
}

static void init_adi(const long *p, float *const *a)
{
    /* v starts as u (its border stays u's); p = 0 and q = u, of which the kernels only read row 0 and column 0:
     * the start of every elimination, p = 0 and q = the line's fixed border value. */
    size_t bytes = (size_t)(p[0] * p[0]) * sizeof(float);
    memcpy(a[1], a[0], bytes);
    memset(a[2], 0, bytes);
    memcpy(a[3], a[0], bytes);
}

static void init_conv3d(const long *p, float *const *a)
{
    memset(a[1], 0, (size_t)(p[0] * p[1] * p[2]) * sizeof(float)); /* the border planes are never written */
}

static void init_atax(const long *p, float *const *a)
{
    memset(a[2], 0, (size_t)p[1] * sizeof(float));
    memset(a[3], 0, (size_t)p[0] * sizeof(float));
}

typedef struct pb_bench {
    const char *name;
    int compute_bound;                      /* 0: launch-bound */
    const char *module;                     /* build/bench/kernels/<module>.spv */
    const char *kernels[PB_MAX_KERNELS];    /* the sequence's kernels, in the order krt_* uses them */
    const char *params;                     /* what p holds, comma-separated */
    const char *size_class;                 /* how the run's sizes relate to PolyBench's classes */
    long run[PB_MAX_PARAMS];                /* the benchmark's sizes and steps */
    long check[PB_MAX_PARAMS];              /* --check's: small, odd, a few steps */
    const char *arrays[PB_MAX_ARRAYS];      /* names, NULL-terminated */
    unsigned outputs;                       /* bit i: array i is a result, compared */
    void (*sizes)(const long *p, size_t *count);
    void (*init)(const long *p, float *const *a); /* after init_arrays; NULL: nothing more */
    void (*krt)(pb_krt *r, const long *p);
    long (*omp)(const long *p, float *const *a);
} pb_bench;

/* The size table. The launch-bound programs take PolyBench's MEDIUM sizes where a run of them is a few ms or
 * more, LARGE for jacobi-1d (MEDIUM's N = 400 would be 200 launches of 400 points, a run well under a
 * millisecond), fewer steps for adi (4 (N - 2) launches a step here: MEDIUM's 100 steps would be 79,200
 * launches), gramschmidt's MEDIUM with M and N swapped (PolyBench's M = 200 rows under N = 240 columns leaves the
 * last 40 columns with a zero norm) and convolution-3d at 256^3 (not in PolyBench 4; the size of PolyBench/GPU's
 * 3-D convolution). The four of much work per launch take LARGE, gemm MEDIUM (its naive loops at LARGE take
 * about a second a run on 2 cores). */
static const pb_bench benches[] = {
    {"jacobi-1d", 0, "pb_stencils", {"jacobi1d_sweep"}, "N,T", "LARGE", {2000, 500}, {67, 5}, {"A", "B"}, 0x3,
     sizes_jacobi1d, NULL, krt_jacobi1d, pb_omp_jacobi1d},
    {"jacobi-2d", 0, "pb_stencils", {"jacobi2d_sweep"}, "N,T", "MEDIUM", {250, 100}, {21, 5}, {"A", "B"}, 0x3,
     sizes_jacobi2d, NULL, krt_jacobi2d, pb_omp_jacobi2d},
    {"lu", 0, "pb_linalg", {"lu_column", "lu_trailing"}, "N", "MEDIUM", {400}, {37}, {"A"}, 0x1, sizes_lu, init_lu,
     krt_lu, pb_omp_lu},
    {"gramschmidt", 0, "pb_linalg", {"gs_normalize", "gs_update"}, "M,N", "MEDIUM, M and N swapped", {240, 200},
     {45, 23}, {"A", "Q", "R"}, 0x7, sizes_gramschmidt, init_gramschmidt, krt_gramschmidt, pb_omp_gramschmidt},
    {"adi", 0, "pb_stencils", {"adi_col_forward", "adi_col_back", "adi_row_forward", "adi_row_back"}, "N,T",
     "MEDIUM N, 10 steps", {200, 10}, {19, 2}, {"U", "V", "P", "Q"}, 0x3, sizes_adi, init_adi, krt_adi,
     pb_omp_adi},
    {"fdtd-2d", 0, "pb_stencils", {"fdtd_ey", "fdtd_ex", "fdtd_hz"}, "NX,NY,T", "MEDIUM", {200, 240, 100},
     {13, 17, 5}, {"ex", "ey", "hz"}, 0x7, sizes_fdtd2d, NULL, krt_fdtd2d, pb_omp_fdtd2d},
    {"convolution-3d", 0, "pb_stencils", {"conv3d_plane"}, "NI,NJ,NK", "PolyBench/GPU's", {256, 256, 256},
     {11, 13, 17}, {"in", "out"}, 0x2, sizes_conv3d, init_conv3d, krt_conv3d, pb_omp_conv3d},
    {"gemm", 1, "pb_linalg", {"gemm"}, "NI,NJ,NK", "MEDIUM", {200, 220, 240}, {13, 17, 19}, {"C", "A", "B"}, 0x1,
     sizes_gemm, NULL, krt_gemm, pb_omp_gemm},
    {"atax", 1, "pb_linalg", {"atax_ax", "atax_aty"}, "M,N", "LARGE", {1900, 2100}, {23, 29},
     {"A", "x", "y", "tmp"}, 0xc, sizes_atax, init_atax, krt_atax, pb_omp_atax},
    {"mvt", 1, "pb_linalg", {"mvt_ax", "mvt_atx"}, "N", "LARGE", {2000}, {31}, {"A", "x1", "x2", "y1", "y2"}, 0x6,
     sizes_mvt, NULL, krt_mvt, pb_omp_mvt},
    {"gemver", 1, "pb_linalg", {"gemver_rank2", "gemver_atx", "gemver_add", "gemver_ax"}, "N", "LARGE", {2000}, {27},
     {"A", "u1", "v1", "u2", "v2", "x", "w", "y", "z"}, 0x61, sizes_gemver, NULL, krt_gemver, pb_omp_gemver},
};
enum { NBENCH = sizeof benches / sizeof benches[0] };

static int narrays(const pb_bench *b)
{
    int n = 0;
    while (n < PB_MAX_ARRAYS && b->arrays[n])
        n++;
    return n;
}

/* "N=2000 T=500" from the parameter names and values. */
static void format_size(const pb_bench *b, const long *p, char *out, size_t cap)
{
    char names[64];
    snprintf(names, sizeof names, "%s", b->params);
    size_t at = 0;
    int i = 0;
    for (char *save, *tok = strtok_r(names, ",", &save); tok && at < cap; tok = strtok_r(NULL, ",", &save), i++)
        at += (size_t)snprintf(out + at, cap - at, "%s%s=%ld", i ? " " : "", tok, p[i]);
}

/* A deterministic value in [0, 1) for element i of array `salt` (an integer hash; the same on every run). */
static float pb_rand(uint64_t i, uint64_t salt)
{
    uint64_t x = i * 0x9e3779b97f4a7c15u + salt * 0xbf58476d1ce4e5b9u + 1;
    x ^= x >> 31;
    x *= 0x94d049bb133111ebu;
    x ^= x >> 29;
    return (float)(x >> 40) / (float)(1u << 24);
}

static void init_arrays(const pb_bench *b, const long *p, float *const *a, const size_t *count)
{
    for (int k = 0; k < narrays(b); k++)
        for (size_t i = 0; i < count[k]; i++)
            a[k][i] = pb_rand(i, (uint64_t)k);
    if (b->init)
        b->init(p, a);
}

/* The OpenMP arrays: 2 MiB-aligned and marked for transparent huge pages from 2 MiB on, as the host device's
 * allocations are (docs/design.md, "Memory"), so that the two C builds stream through memory alike. */
static float *alloc_floats(size_t n)
{
    size_t bytes = (n ? n : 1) * sizeof(float), align = bytes >= (2u << 20) ? (2u << 20) : 64;
    void *p = NULL;
    if (posix_memalign(&p, align, bytes) != 0)
        bench_die("out of memory (%zu bytes)", bytes);
    if (align > 64)
        (void)madvise(p, bytes, MADV_HUGEPAGE); /* a hint: without it the run is only slower */
    return p;
}

/* The two krt devices. */
typedef struct pb_dev {
    krt_context *ctx;
    krt_device_info info;
} pb_dev;

static void dev_open(pb_dev *d, const char *which, uint32_t checks)
{
    KRT_CHECK(krt_context_create(&(krt_context_desc){.device = which, .checks = checks}, &d->ctx));
    KRT_CHECK(krt_context_device_info(d->ctx, &d->info));
}

/* One benchmark's state across its runs. */
typedef struct pb_state {
    const pb_bench *b;
    const long *p;
    int n;                          /* arrays */
    size_t count[PB_MAX_ARRAYS];    /* floats per array */
    float *init[PB_MAX_ARRAYS];     /* the initial data */
    float *omp[PB_MAX_ARRAYS];      /* OpenMP's arrays, which hold its last run's results */
    float *scratch;                 /* a krt result read back */
    pb_krt krt[2];                  /* host, ze_pocl */
    long launches;                  /* per run, from the OpenMP twin's regions */
    double err[WAYS];               /* the largest difference from OpenMP seen (compare_outputs) */
} pb_state;

static void state_open(pb_state *s, const pb_bench *b, const long *p, pb_dev *devs)
{
    memset(s, 0, sizeof *s);
    s->b = b;
    s->p = p;
    s->n = narrays(b);
    b->sizes(p, s->count);
    size_t most = 0;
    for (int k = 0; k < s->n; k++) {
        s->init[k] = alloc_floats(s->count[k]);
        s->omp[k] = alloc_floats(s->count[k]);
        most = s->count[k] > most ? s->count[k] : most;
    }
    s->scratch = alloc_floats(most);
    init_arrays(b, p, s->init, s->count);
    for (int d = 0; d < 2; d++) {
        pb_krt *r = &s->krt[d];
        char file[128];
        snprintf(file, sizeof file, "%s.spv", b->module);
        r->ctx = devs[d].ctx;
        r->q = krt_context_default_queue(r->ctx);
        KRT_CHECK(krt_module_create(r->ctx, &(krt_module_desc){.path = bench_path(bench_kernel_dir(), file)},
                                    &r->mod));
        for (int k = 0; k < PB_MAX_KERNELS && b->kernels[k]; k++)
            KRT_CHECK(krt_kernel_get(r->mod, b->kernels[k], &r->k[k]));
        for (int k = 0; k < s->n; k++)
            KRT_CHECK(krt_alloc(r->ctx, s->count[k] * sizeof(float), NULL, (void **)&r->buf[k]));
    }
}

static void state_close(pb_state *s)
{
    for (int d = 0; d < 2; d++) {
        for (int k = 0; k < s->n; k++)
            krt_free(s->krt[d].ctx, s->krt[d].buf[k]);
        krt_module_destroy(s->krt[d].mod);
    }
    for (int k = 0; k < s->n; k++) {
        free(s->init[k]);
        free(s->omp[k]);
    }
    free(s->scratch);
}

static void settle(long ms)
{
    if (ms <= 0)
        return;
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* One run of the whole benchmark one way from its initial data; returns its wall time in ms (the reset and the
 * settling pause before it are not timed). */
static double run_once(pb_state *s, int way, long settle_ms)
{
    if (way == WAY_OMP) {
        for (int k = 0; k < s->n; k++)
            memcpy(s->omp[k], s->init[k], s->count[k] * sizeof(float));
        settle(settle_ms);
        uint64_t t0 = bench_now_ns();
        long regions = s->b->omp(s->p, s->omp);
        uint64_t t1 = bench_now_ns();
        if (s->launches && regions != s->launches)
            bench_die("%s: the OpenMP twin opened %ld parallel regions, krt made %ld launches", s->b->name, regions,
                      s->launches);
        s->launches = regions;
        return (double)(t1 - t0) / 1e6;
    }
    pb_krt *r = &s->krt[way - WAY_HOST];
    for (int k = 0; k < s->n; k++)
        KRT_CHECK(krt_memcpy_sync(r->ctx, r->q, r->buf[k], s->init[k], s->count[k] * sizeof(float)));
    settle(settle_ms);
    r->launches = 0;
    uint64_t t0 = bench_now_ns();
    s->b->krt(r, s->p);
    KRT_CHECK(krt_queue_synchronize(r->q));
    uint64_t t1 = bench_now_ns();
    if (s->launches && r->launches != s->launches)
        bench_die("%s: %s made %ld launches, the OpenMP twin %ld parallel regions", s->b->name, way_names[way],
                  r->launches, s->launches);
    s->launches = r->launches;
    return (double)(t1 - t0) / 1e6;
}

/* Compares each krt device's results of its last run with OpenMP's: for every output array, max |x - ref| over
 * max |ref| (the difference relative to the magnitude of the values: an element near zero, which subtraction
 * leaves in lu and gramschmidt, is held to the array's scale, not its own). Keeps the largest in s->err; returns
 * 0 when every one is within PB_TOLERANCE and every value is finite, else -1 with the first failure in why. */
static int compare_outputs(pb_state *s, char *why, size_t cap)
{
    for (int d = 0; d < 2; d++) {
        pb_krt *r = &s->krt[d];
        for (int k = 0; k < s->n; k++) {
            if (!(s->b->outputs & (1u << k)))
                continue;
            KRT_CHECK(krt_memcpy_sync(r->ctx, r->q, s->scratch, r->buf[k], s->count[k] * sizeof(float)));
            const float *ref = s->omp[k];
            double scale = 0, diff = 0;
            size_t worst = 0;
            for (size_t i = 0; i < s->count[k]; i++) {
                if (!isfinite(ref[i]) || !isfinite(s->scratch[i])) {
                    snprintf(why, cap, "%s: %s[%zu] is %g on OpenMP, %g on %s", s->b->name, s->b->arrays[k], i,
                             (double)ref[i], (double)s->scratch[i], way_names[WAY_HOST + d]);
                    return -1;
                }
                scale = fmax(scale, fabs((double)ref[i]));
                double e = fabs((double)s->scratch[i] - (double)ref[i]);
                if (e > diff) {
                    diff = e;
                    worst = i;
                }
            }
            double rel = scale > 0 ? diff / scale : diff;
            s->err[WAY_HOST + d] = fmax(s->err[WAY_HOST + d], rel);
            if (rel > PB_TOLERANCE) {
                snprintf(why, cap,
                         "%s: %s differs between %s and OpenMP: %s[%zu] = %.9g against %.9g, %.3g of the array's "
                         "largest magnitude %.6g (tolerance %g)",
                         s->b->name, s->b->arrays[k], way_names[WAY_HOST + d], s->b->arrays[k], worst,
                         (double)s->scratch[worst], (double)ref[worst], rel, scale, PB_TOLERANCE);
                return -1;
            }
        }
    }
    return 0;
}

typedef struct pb_result {
    const pb_bench *b;
    char size[64];
    long launches;
    double ms[WAYS];  /* medians */
    double min[WAYS]; /* the fastest sample, in the CSV: what a run costs when nothing else interferes */
    double err[WAYS];
} pb_result;

static double geomean(const double *v, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += log(v[i]);
    return n ? exp(s / n) : NAN;
}

static const char usage[] =
    "usage: polybench [--samples N] [--only NAME,...] [--settle-ms MS] [--group2d W,H] [--out DIR]\n"
    "       polybench --check [--only NAME,...]\n"
    "       polybench --way OpenMP|host|ze_pocl [--samples N] [--only NAME,...] [--settle-ms MS] [--group2d W,H]\n"
    "                 [--checks] [--device SEL]\n"
    "Runs each benchmark as OpenMP C, on the host device and on ze_pocl (docs/performance.md, \"Launch-bound\n"
    "benchmarks against OpenMP\"); --check runs small sizes once each way and only compares the results;\n"
    "--way runs one way alone (to profile it) and prints its medians, nothing compared; --group2d gives every\n"
    "2-D launch a static group of W x H (at most the range) instead of krt's choice; --checks makes the host and\n"
    "ze_pocl ways' launches checked (KRT_CHECK_BOUNDS), to measure their cost against a run without it; --device SEL\n"
    "puts another device (krt's selector: gpu) in the ze_pocl way's place, with --way ze_pocl or --check.\n"
    "Environment: ZE_ENABLE_ALT_DRIVERS (the ze_pocl driver), KRT_BENCH_KERNELS (build/bench/kernels),\n"
    "OMP_WAIT_POLICY (left to libgomp's default unless set).\n";
static const char *const known_opts[] = {"samples", "only", "settle-ms", "out", "check", "way", "group2d", "checks",
                                         "device", NULL};

/* Whether --only (a comma-separated list of names, or NULL for every benchmark) selects b. */
static int selected(const char *only, const pb_bench *b)
{
    if (!only)
        return 1;
    size_t n = strlen(b->name);
    for (const char *at = only; *at;) {
        const char *end = strchr(at, ',');
        size_t len = end ? (size_t)(end - at) : strlen(at);
        if (len == n && !strncmp(at, b->name, n))
            return 1;
        at += len + (end != NULL);
    }
    return 0;
}

/* Exits with status 2, listing the names, when --only names a benchmark there is not. */
static void check_only(const char *only)
{
    for (const char *at = only; at && *at;) {
        const char *end = strchr(at, ',');
        size_t len = end ? (size_t)(end - at) : strlen(at);
        int found = 0;
        for (int i = 0; i < NBENCH; i++)
            found |= strlen(benches[i].name) == len && !strncmp(at, benches[i].name, len);
        if (!found) {
            fprintf(stderr, "polybench: no benchmark %.*s; there are:", (int)len, at);
            for (int i = 0; i < NBENCH; i++)
                fprintf(stderr, " %s", benches[i].name);
            fputc('\n', stderr);
            exit(2);
        }
        at += len + (end != NULL);
    }
}

static int check_main(const char *only, pb_dev *devs)
{
    int failed = 0;
    for (int i = 0; i < NBENCH; i++) {
        const pb_bench *b = &benches[i];
        if (!selected(only, b))
            continue;
        pb_state s;
        state_open(&s, b, b->check, devs);
        for (int w = 0; w < WAYS; w++)
            run_once(&s, w, 0);
        char why[512], size[64];
        format_size(b, b->check, size, sizeof size);
        if (compare_outputs(&s, why, sizeof why)) {
            printf("polybench --check: %s\n", why);
            failed++;
        } else {
            printf("polybench --check: %-14s %-16s %5ld launches: host and ze_pocl agree with OpenMP "
                   "(largest difference %.2g and %.2g of the values' magnitude)\n",
                   b->name, size, s.launches, s.err[WAY_HOST], s.err[WAY_POCL]);
        }
        state_close(&s);
    }
    if (failed)
        printf("polybench --check: %d benchmark%s\n", failed, failed > 1 ? "s disagree" : " disagrees");
    return failed ? 1 : 0;
}

/* One way alone, for perf or callgrind: the untimed run and the samples, the median printed; nothing compared,
 * and the other ways' threads never start (the other device's context is open, idle). */
static int way_main(const char *only, int way, int samples, long settle_ms, pb_dev *devs)
{
    for (int i = 0; i < NBENCH; i++) {
        const pb_bench *b = &benches[i];
        if (!selected(only, b))
            continue;
        pb_state s;
        state_open(&s, b, b->run, devs);
        double v[PB_MAX_SAMPLES];
        run_once(&s, way, settle_ms);
        for (int k = 0; k < samples; k++)
            v[k] = run_once(&s, way, settle_ms);
        printf("polybench: %-14s %s alone: %.3f ms (median of %d), %ld launches (%s)\n", b->name, way_names[way],
               bench_median(v, (size_t)samples), samples, s.launches,
               way == 0 ? "OpenMP" : devs[way - 1].info.name);
        state_close(&s);
    }
    return 0;
}

static void read_loadavg(char *out, size_t cap)
{
    FILE *f = fopen("/proc/loadavg", "r");
    double l1 = 0, l5 = 0, l15 = 0;
    if (f && fscanf(f, "%lf %lf %lf", &l1, &l5, &l15) == 3)
        snprintf(out, cap, "%.2f, %.2f, %.2f", l1, l5, l15);
    else
        snprintf(out, cap, "unknown");
    if (f)
        fclose(f);
}

int main(int argc, char **argv)
{
    bench_usage(argc, argv, usage, known_opts);
    int check = bench_opt_flag(argc, argv, "check");
    const char *only = bench_opt_str(argc, argv, "only", NULL);
    int samples = (int)bench_opt_long(argc, argv, "samples", 9);
    long settle_ms = bench_opt_long(argc, argv, "settle-ms", 50);
    const char *out = bench_opt_str(argc, argv, "out", "build/bench");
    if (samples < 1 || samples > PB_MAX_SAMPLES)
        bench_die("--samples must be 1..%d", PB_MAX_SAMPLES);
    if (settle_ms < 0 || settle_ms > 10000)
        bench_die("--settle-ms must be 0..10000");
    check_only(only);
    const char *g2 = bench_opt_str(argc, argv, "group2d", NULL);
    if (g2 && (sscanf(g2, "%u,%u", &group2d[0], &group2d[1]) != 2 || !group2d[0] || !group2d[1]))
        bench_die("--group2d takes W,H, both above 0");

    pb_dev devs[2];
    uint32_t checks = bench_opt_flag(argc, argv, "checks") ? KRT_CHECK_BOUNDS : KRT_CHECK_NONE;
    dev_open(&devs[0], "host", checks);
    /* --device SEL: another device in the ze_pocl way's place (--way ze_pocl, --check): a GPU, to measure checked
     * launches there. */
    const char *sel = bench_opt_str(argc, argv, "device", "cpu");
    if (strcmp(sel, "cpu") != 0 && !check && !bench_opt_str(argc, argv, "way", NULL))
        bench_die("--device is for --way ze_pocl or --check");
    dev_open(&devs[1], sel, checks);
    if (strcmp(sel, "cpu") == 0 && strcmp(devs[1].info.driver_name, "ze_pocl") != 0)
        bench_die("the CPU device is %s's %s, not ze_pocl's: point ZE_ENABLE_ALT_DRIVERS at build/lib/libze_pocl.so",
                  devs[1].info.driver_name, devs[1].info.name);
    /* As many OpenMP threads as the host device's pool (its compute units: one thread per CPU this process may
     * run on, or KRT_HOST_THREADS). */
    int threads = pb_omp_threads((int)devs[0].info.compute_units);
    const char *policy = getenv("OMP_WAIT_POLICY");

    const char *way = bench_opt_str(argc, argv, "way", NULL);
    if (way) {
        for (int w = 0; w < WAYS; w++)
            if (!strcmp(way, way_names[w])) {
                int rc = way_main(only, w, samples, settle_ms, devs);
                krt_context_destroy(devs[1].ctx);
                krt_context_destroy(devs[0].ctx);
                return rc;
            }
        bench_die("--way must be OpenMP, host or ze_pocl");
    }
    if (check) {
        int rc = check_main(only, devs);
        krt_context_destroy(devs[1].ctx);
        krt_context_destroy(devs[0].ctx);
        return rc;
    }

    char load0[64];
    read_loadavg(load0, sizeof load0);
    pb_result res[NBENCH];
    int nres = 0;
    for (int i = 0; i < NBENCH; i++) {
        const pb_bench *b = &benches[i];
        if (!selected(only, b))
            continue;
        pb_state s;
        state_open(&s, b, b->run, devs);
        char why[512];
        /* The untimed run: PoCL builds the kernels for their group sizes, pages are touched, threads started. */
        for (int w = 0; w < WAYS; w++)
            run_once(&s, w, settle_ms);
        if (compare_outputs(&s, why, sizeof why))
            bench_die("%s", why);
        double v[WAYS][PB_MAX_SAMPLES];
        for (int k = 0; k < samples; k++)
            for (int w = 0; w < WAYS; w++)
                v[w][k] = run_once(&s, w, settle_ms);
        if (compare_outputs(&s, why, sizeof why))
            bench_die("%s", why);
        pb_result *r = &res[nres++];
        r->b = b;
        format_size(b, b->run, r->size, sizeof r->size);
        r->launches = s.launches;
        for (int w = 0; w < WAYS; w++) {
            r->ms[w] = bench_median(v[w], (size_t)samples);
            r->min[w] = bench_min(v[w], (size_t)samples);
            r->err[w] = s.err[w];
        }
        fprintf(stderr, "polybench: %-14s OpenMP %9.3f ms, host %9.3f ms, ze_pocl %9.3f ms\n", b->name,
                r->ms[WAY_OMP], r->ms[WAY_HOST], r->ms[WAY_POCL]);
        state_close(&s);
    }
    char load1[64];
    read_loadavg(load1, sizeof load1);

    /* The table: a row per benchmark, then the geometric means of the launch-bound rows, the others, and all. */
    enum { COLS = 9, MAXROWS = 1 + NBENCH + 3 };
    static char cellbuf[MAXROWS][COLS][64];
    const char *cells[MAXROWS * COLS] = {"benchmark",     "size",     "launches",         "OpenMP ms",
                                         "host ms",       "ze_pocl ms", "host / OpenMP", "ze_pocl / OpenMP",
                                         "host / ze_pocl"};
    int rows = 1;
    double ratio[3][NBENCH]; /* host/OpenMP, ze_pocl/OpenMP, host/ze_pocl */
    for (int i = 0; i < nres; i++, rows++) {
        pb_result *r = &res[i];
        ratio[0][i] = r->ms[WAY_HOST] / r->ms[WAY_OMP];
        ratio[1][i] = r->ms[WAY_POCL] / r->ms[WAY_OMP];
        ratio[2][i] = r->ms[WAY_HOST] / r->ms[WAY_POCL];
        char(*c)[64] = cellbuf[rows];
        snprintf(c[0], 64, "%s", r->b->name);
        snprintf(c[1], 64, "%s", r->size);
        snprintf(c[2], 64, "%ld", r->launches);
        for (int w = 0; w < WAYS; w++)
            snprintf(c[3 + w], 64, "%.3f", r->ms[w]);
        for (int k = 0; k < 3; k++)
            snprintf(c[6 + k], 64, "%.2f", ratio[k][i]);
    }
    for (int g = 0; g < 3; g++) {
        double sel[3][NBENCH];
        int n = 0;
        for (int i = 0; i < nres; i++)
            if (g == 2 || res[i].b->compute_bound == g) {
                for (int k = 0; k < 3; k++)
                    sel[k][n] = ratio[k][i];
                n++;
            }
        if (n == 0)
            continue;
        char(*c)[64] = cellbuf[rows];
        snprintf(c[0], 64, "geometric mean, %s (%d)", g == 0 ? "launch-bound" : g == 1 ? "compute-bound" : "all", n);
        for (int k = 0; k < 6; k++)
            c[1 + k][0] = '\0';
        for (int k = 0; k < 3; k++)
            snprintf(c[6 + k], 64, "%.2f", geomean(sel[k], n));
        rows++;
    }
    for (int r = 1; r < rows; r++)
        for (int c = 0; c < COLS; c++)
            cells[r * COLS + c] = cellbuf[r][c];
    char title[1024];
    snprintf(title, sizeof title,
             "polybench: whole runs (every launch, one synchronize), median of %d; OpenMP: gcc -O3 -fopenmp "
             "-march=native, %d threads (the host device's pool), OMP_WAIT_POLICY %s; ze_pocl: %s; load average "
             "%s at the start, %s at the end",
             samples, threads, policy ? policy : "unset (libgomp's default)", devs[1].info.name, load0, load1);
    bench_table_emit(out, "polybench.md", title, COLS, rows, cells);

    FILE *csv = bench_csv_open(out, "polybench.csv");
    fprintf(csv, "benchmark,kind,size,launches,omp_ms,host_ms,pocl_ms,host_over_omp,pocl_over_omp,host_over_pocl,"
                 "omp_min_ms,host_min_ms,pocl_min_ms,err_host,err_pocl\n");
    for (int i = 0; i < nres; i++)
        fprintf(csv, "%s,%s,%s,%ld,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.3g,%.3g\n", res[i].b->name,
                res[i].b->compute_bound ? "compute" : "launch", res[i].size, res[i].launches, res[i].ms[WAY_OMP],
                res[i].ms[WAY_HOST], res[i].ms[WAY_POCL], ratio[0][i], ratio[1][i], ratio[2][i], res[i].min[WAY_OMP],
                res[i].min[WAY_HOST], res[i].min[WAY_POCL], res[i].err[WAY_HOST], res[i].err[WAY_POCL]);
    fclose(csv);

    /* Issue 40's goal, as the table says it. */
    double gm = geomean(ratio[0], nres);
    printf("\ngoal (issue 40): host / OpenMP geometric mean at most 1.0: %.2f (%s)\n", gm, gm <= 1.0 ? "met" : "missed");
    int over = 0, slower = 0;
    printf("goal: no benchmark above 1.5x OpenMP:");
    for (int i = 0; i < nres; i++)
        if (ratio[0][i] > 1.5) {
            printf(" %s %.2f", res[i].b->name, ratio[0][i]);
            over++;
        }
    printf(over ? " (missed)\n" : " met\n");
    printf("goal: host never slower than ze_pocl:");
    for (int i = 0; i < nres; i++)
        if (ratio[2][i] > 1.0) {
            printf(" %s %.2f", res[i].b->name, ratio[2][i]);
            slower++;
        }
    printf(slower ? " (missed)\n" : " met\n");
    krt_context_destroy(devs[1].ctx);
    krt_context_destroy(devs[0].ctx);
    return 0;
}
