/*
 * lu: the launch sequence of an LU factorisation, the case of issue 11. An n x n matrix (n = 250 by default)
 * is factorised without pivoting by n - 1 launches of bench/kernels/bench_lu.cl's lu_update, step k over an
 * (n-k-1) x (n-k-1) range: 2-D ranges shrinking from 249 x 249 to 1 x 1. A backend that compiles per group
 * size (PoCL builds a work-group function for every local size it meets) pays for every distinct shape krt
 * chooses, so the sequence is timed with krt's dynamic group size against a static 16 x 16 group (m x m for the last
 * steps, where the range is smaller: a static group may not exceed the range), each:
 *   - cold: in a fresh process whose POCL_CACHE_DIR is a new empty directory, as on a first run;
 *   - warm: in a fresh process whose POCL_CACHE_DIR an untimed run of the same mode has filled.
 * A sample is the wall time from the first launch to the end of the last (every launch appended, then one
 * synchronize), measured in the child. The figure is the median of --samples children. Each child also
 * prints the number of distinct group shapes it launched and a checksum of the factors, which must agree
 * between the modes (same arithmetic per element whatever the grouping).
 *
 * Usage: lu [--n N] [--samples N] [--out DIR]
 */
#include "bench_util.h"

#include <krt.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define STATIC_GROUP 16u

/* The static group for an m x m step: 16 x 16, or m x m once the range is smaller (a static group may not
 * exceed the range: krt_launch refuses it), as a user's static code must do. */
static uint32_t static_group(uint32_t m)
{
    return m < STATIC_GROUP ? m : STATIC_GROUP;
}

/* The child: one factorisation; prints "ms shapes checksum". */
static int child(uint32_t n, int dynamic)
{
    krt_context *ctx;
    KRT_CHECK(krt_context_create(NULL, &ctx));
    krt_module *mod;
    krt_module_desc md = {.path = bench_path(bench_kernel_dir(), "bench_lu.spv")};
    KRT_CHECK(krt_module_create(ctx, &md, &mod));
    krt_kernel *k;
    KRT_CHECK(krt_kernel_get(mod, "lu_update", &k));
    krt_alloc_desc ad = {.kind = KRT_MEMORY_SHARED};
    float *a;
    KRT_CHECK(krt_alloc(ctx, (size_t)n * n * sizeof *a, &ad, (void **)&a));
    /* Diagonally dominant, so that no pivoting is needed. */
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n; j++)
            a[(size_t)i * n + j] = i == j ? (float)n : 1.0f / (float)(1 + i + j);

    /* The shapes the sequence launches, read before timing: the same lookups the launches make. */
    static uint32_t shapes[8192][2];
    int nshapes = 0;
    for (uint32_t step = 0; step + 1 < n; step++) {
        uint32_t m = n - step - 1;
        krt_ndrange r = {2, {m, m, 0}};
        krt_launch_config c;
        KRT_CHECK(krt_launch_config_get(k, &r, &c));
        uint32_t g0 = dynamic ? c.group[0] : static_group(m), g1 = dynamic ? c.group[1] : static_group(m);
        int seen = 0;
        for (int s = 0; s < nshapes; s++)
            seen |= shapes[s][0] == g0 && shapes[s][1] == g1;
        if (!seen && nshapes < 8192) {
            shapes[nshapes][0] = g0;
            shapes[nshapes][1] = g1;
            nshapes++;
        }
    }

    uint32_t nn = n, kk = 0;
    krt_arg args[] = {KRT_ARG(a), KRT_ARG(nn), KRT_ARG(kk)};
    uint64_t t0 = bench_now_ns();
    for (uint32_t step = 0; step + 1 < n; step++) {
        uint32_t m = n - step - 1;
        kk = step;
        krt_launch_desc d = {.range = {2, {m, m, 0}}, .args = args, .num_args = 3};
        if (!dynamic)
            d.group[0] = d.group[1] = static_group(m);
        KRT_CHECK(krt_launch(k, &d));
    }
    KRT_CHECK(krt_queue_synchronize(krt_context_default_queue(ctx)));
    double ms = (double)(bench_now_ns() - t0) / 1e6;
    double sum = 0;
    for (size_t i = 0; i < (size_t)n * n; i++)
        sum += a[i];
    printf("%.3f %d %.6e\n", ms, nshapes, sum);
    krt_free(ctx, a);
    krt_module_destroy(mod);
    krt_context_destroy(ctx);
    return 0;
}

typedef struct run {
    double ms;
    int shapes;
    double sum;
} run;

/* Runs this program as a child with POCL_CACHE_DIR=cache_dir. */
static int spawn(uint32_t n, int dynamic, const char *cache_dir, run *out)
{
    char ns[32], buf[256];
    snprintf(ns, sizeof ns, "%u", n);
    char *argv[] = {"lu", "--child", dynamic ? "dynamic" : "static", "--n", ns, NULL};
    if (bench_run_self(argv, "POCL_CACHE_DIR", cache_dir, buf, sizeof buf) != 0)
        return -1;
    return sscanf(buf, "%lf %d %le", &out->ms, &out->shapes, &out->sum) == 3 ? 0 : -1;
}

static void remove_tree(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "lu: could not remove %s\n", dir);
}

static const char usage[] = "usage: lu [--n N] [--samples N] [--out DIR]\n"
                            "Environment: ZE_ENABLE_ALT_DRIVERS (the ze_pocl driver), KRT_BENCH_KERNELS\n"
                            "(build/bench/kernels).\n";
static const char *const known_opts[] = {"n", "samples", "out", "child", NULL};

int main(int argc, char **argv)
{
    bench_usage(argc, argv, usage, known_opts);
    uint32_t n = (uint32_t)bench_opt_long(argc, argv, "n", 250);
    const char *mode = bench_opt_str(argc, argv, "child", NULL);
    if (n < 2 || n > 8192)
        bench_die("--n must be 2..8192");
    if (mode)
        return child(n, !strcmp(mode, "dynamic"));
    int samples = (int)bench_opt_long(argc, argv, "samples", 3);
    const char *out = bench_opt_str(argc, argv, "out", "build/bench");
    if (samples < 1 || samples > 32)
        bench_die("--samples must be 1..32");
    mkdir(out, 0777); /* an existing directory is fine; a failure shows when the table is written */

    /* rows: static cold, dynamic cold, static warm, dynamic warm */
    double med[2][2];
    int shapes[2];
    double sums[2] = {0, 0};
    for (int warm = 0; warm < 2; warm++)
        for (int dyn = 0; dyn < 2; dyn++) {
            double v[32];
            for (int s = 0; s < samples; s++) {
                char dir[] = "/tmp/krt-lu-cache-XXXXXX";
                if (!mkdtemp(dir))
                    bench_die("mkdtemp failed");
                run r;
                if (warm && spawn(n, dyn, dir, &r))
                    bench_die("the untimed %s run failed", dyn ? "dynamic" : "static");
                if (spawn(n, dyn, dir, &r))
                    bench_die("the %s run failed", dyn ? "dynamic" : "static");
                remove_tree(dir);
                v[s] = r.ms;
                shapes[dyn] = r.shapes;
                sums[dyn] = r.sum;
                fprintf(stderr, "lu: %s %s sample %d: %.1f ms\n", dyn ? "dynamic" : "static", warm ? "warm" : "cold",
                        s, r.ms);
            }
            med[warm][dyn] = bench_median(v, (size_t)samples);
        }
    if (fabs(sums[0] - sums[1]) > 1e-6 * fabs(sums[0]))
        bench_die("the dynamic and static factors differ: checksums %.6e and %.6e", sums[0], sums[1]);

    enum { COLS = 5 };
    const char *cells[5 * COLS] = {"group size", "shapes", "cold cache ms", "warm cache ms", "/ static (cold, warm)"};
    char b[4][COLS][48];
    for (int dyn = 0; dyn < 2; dyn++) {
        const char **row = cells + (dyn + 1) * COLS;
        snprintf(b[dyn][0], 48, "%s", dyn ? "krt dynamic" : "static 16x16 (clamped)");
        snprintf(b[dyn][1], 48, "%d", shapes[dyn]);
        snprintf(b[dyn][2], 48, "%.1f", med[0][dyn]);
        snprintf(b[dyn][3], 48, "%.1f", med[1][dyn]);
        snprintf(b[dyn][4], 48, "%.2f, %.2f", med[0][dyn] / med[0][0], med[1][dyn] / med[1][0]);
        for (int c = 0; c < COLS; c++)
            row[c] = b[dyn][c];
    }
    char title[256];
    snprintf(title, sizeof title,
             "lu: %u launches over 2-D ranges %u x %u down to 1 x 1, median of %d fresh processes per cell", n - 1,
             n - 1, n - 1, samples);
    bench_table_emit(out, "lu.md", title, COLS, 3, cells);
    FILE *csv = bench_csv_open(out, "lu.csv");
    fprintf(csv, "mode,shapes,cold_ms,warm_ms\nstatic,%d,%.2f,%.2f\ndynamic,%d,%.2f,%.2f\n", shapes[0], med[0][0],
            med[1][0], shapes[1], med[0][1], med[1][1]);
    fclose(csv);
    double rc = med[0][1] / med[0][0], rw = med[1][1] / med[1][0];
    printf("\ngoal: dynamic <= 1.5x static: cold %.2f (%s), warm %.2f (%s)\n", rc, rc <= 1.5 ? "met" : "missed", rw,
           rw <= 1.5 ? "met" : "missed");
    return 0;
}
