/* The host device as an oracle: every example kernel (every .cl of kernels/) runs on the host device and on ze_pocl with
 * the same inputs, drawn at random sizes (a fixed seed per test, printed on failure), and the results must agree:
 * integers exactly; floats within a few units in the last place, because PoCL may contract a * b + c into one
 * fused multiply-add where the C compiler rounds twice; for mandelbrot, a pixel's iteration count may differ only
 * where such a rounding difference decides when |z| passes 2, which the test bounds to a handful of pixels. */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "krt_test.h"

TestSuite(oracle, .timeout = KT_TEST_TIMEOUT);

enum { HOST = 0, POCL = 1 };

typedef struct pair {
    krt_context *ctx[2];
} pair;

static pair open_pair(void)
{
    pair p;
    p.ctx[HOST] = kt_context(&(krt_context_desc){ .device = "host" });
    p.ctx[POCL] = kt_context(&(krt_context_desc){ .device = "cpu" });
    krt_device_info info;
    KT_OK(krt_context_device_info(p.ctx[POCL], &info));
    cr_assert_str_eq(info.driver_name, "ze_pocl");
    return p;
}

static void close_pair(pair *p)
{
    krt_context_destroy(p->ctx[HOST]);
    krt_context_destroy(p->ctx[POCL]);
}

static krt_kernel *kernel_of(krt_context *ctx, const char *file, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.spv", getenv("KRT_KERNELS"), file);
    krt_module *m = NULL;
    KT_OK(krt_module_create(ctx, &(krt_module_desc){ .path = path }, &m));
    return kt_kernel(m, name);
}

/* A deterministic generator, so that a failure names inputs that can be made again. */
static uint64_t rng_state;
static uint32_t rnd(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33);
}
static float rndf(void)
{
    return (float)(rnd() % 20001) / 1000.0f - 10.0f;
}

static void *both_alloc(pair *p, size_t size, void *mem[2], const void *init)
{
    for (int s = 0; s < 2; s++) {
        mem[s] = kt_alloc(p->ctx[s], size ? size : 1, KRT_MEMORY_SHARED);
        if (init)
            memcpy(mem[s], init, size);
        else
            memset(mem[s], 0, size);
    }
    return mem[HOST];
}

static void floats_agree(const float *h, const float *c, size_t n, float ulps, const char *what)
{
    for (size_t i = 0; i < n; i++) {
        float tol = ulps * 1.2e-7f * fmaxf(1.0f, fmaxf(fabsf(h[i]), fabsf(c[i])));
        cr_assert(fabsf(h[i] - c[i]) <= tol, "%s (seed %llu): element %zu: host %.9g, ze_pocl %.9g", what,
                  (unsigned long long)rng_state, i, (double)h[i], (double)c[i]);
    }
}

static void words_agree(const uint32_t *h, const uint32_t *c, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(h[i], c[i], "%s: element %zu: host %u, ze_pocl %u", what, i, h[i], c[i]);
}

static void sync_both(pair *p)
{
    for (int s = 0; s < 2; s++)
        KT_OK(krt_context_synchronize(p->ctx[s]));
}

Test(oracle, vadd_and_saxpy)
{
    pair p = open_pair();
    rng_state = 101;
    krt_kernel *vadd[2], *saxpy[2];
    for (int s = 0; s < 2; s++) {
        vadd[s] = kernel_of(p.ctx[s], "vadd", "vadd");
        saxpy[s] = kernel_of(p.ctx[s], "saxpy", "saxpy");
    }
    for (int round = 0; round < 6; round++) {
        uint32_t n = 1 + rnd() % 200000;
        float *in = malloc(n * sizeof *in);
        for (uint32_t i = 0; i < n; i++)
            in[i] = rndf();
        void *a[2], *b[2], *c[2];
        both_alloc(&p, n * sizeof(float), a, in);
        for (uint32_t i = 0; i < n; i++)
            in[i] = rndf();
        both_alloc(&p, n * sizeof(float), b, in);
        both_alloc(&p, n * sizeof(float), c, NULL);
        float alpha = rndf();
        for (int s = 0; s < 2; s++) {
            krt_arg va[] = { KRT_ARG(a[s]), KRT_ARG(b[s]), KRT_ARG(c[s]), KRT_ARG(n) };
            krt_launch_desc d = kt_desc1(n, va, 4);
            KT_OK(krt_launch(vadd[s], &d));
            krt_arg sa[] = { KRT_ARG(alpha), KRT_ARG(a[s]), KRT_ARG(b[s]), KRT_ARG(n) };
            d = kt_desc1(n, sa, 4);
            KT_OK(krt_launch(saxpy[s], &d));
        }
        sync_both(&p);
        floats_agree(c[HOST], c[POCL], n, 0, "vadd");
        floats_agree(b[HOST], b[POCL], n, 2, "saxpy");
        free(in);
    }
    close_pair(&p);
}

Test(oracle, reductions_at_random_group_sizes)
{
    pair p = open_pair();
    rng_state = 202;
    krt_kernel *rf[2], *ri[2];
    for (int s = 0; s < 2; s++) {
        rf[s] = kernel_of(p.ctx[s], "reduce", "reduce_sum_f32");
        ri[s] = kernel_of(p.ctx[s], "reduce", "reduce_sum_i32");
    }
    for (int round = 0; round < 6; round++) {
        uint32_t n = 1 + rnd() % 300000;
        uint32_t g = 1 + rnd() % 1024;
        uint32_t groups = 1 + rnd() % 40;
        float *fin = malloc(n * sizeof *fin);
        int32_t *iin = malloc(n * sizeof *iin);
        for (uint32_t i = 0; i < n; i++) {
            fin[i] = rndf();
            iin[i] = (int32_t)(rnd() % 2001) - 1000;
        }
        void *fa[2], *ia[2], *fp[2], *ip[2];
        both_alloc(&p, n * sizeof(float), fa, fin);
        both_alloc(&p, n * sizeof(int32_t), ia, iin);
        both_alloc(&p, groups * sizeof(float), fp, NULL);
        both_alloc(&p, groups * sizeof(int32_t), ip, NULL);
        for (int s = 0; s < 2; s++) {
            krt_arg f[] = { KRT_ARG(fa[s]), KRT_ARG(fp[s]), KRT_ARG_LOCAL(g * sizeof(float)), KRT_ARG(n) };
            krt_launch_desc d = kt_desc1((uint64_t)g * groups, f, 4);
            d.group[0] = g;
            KT_OK(krt_launch(rf[s], &d));
            krt_arg i[] = { KRT_ARG(ia[s]), KRT_ARG(ip[s]), KRT_ARG_LOCAL(g * sizeof(int32_t)), KRT_ARG(n) };
            d.args = i;
            KT_OK(krt_launch(ri[s], &d));
        }
        sync_both(&p);
        char what[128];
        snprintf(what, sizeof what, "reduce_sum_i32, n %u, group %u", n, g);
        words_agree(ip[HOST], ip[POCL], groups, what);
        /* the same tree of float additions in the same order on both */
        snprintf(what, sizeof what, "reduce_sum_f32, n %u, group %u", n, g);
        floats_agree(fp[HOST], fp[POCL], groups, 0, what);
        free(fin);
        free(iin);
    }
    close_pair(&p);
}

Test(oracle, histograms)
{
    pair p = open_pair();
    rng_state = 303;
    krt_kernel *hg[2], *hl[2];
    for (int s = 0; s < 2; s++) {
        hg[s] = kernel_of(p.ctx[s], "histogram", "histogram_global");
        hl[s] = kernel_of(p.ctx[s], "histogram", "histogram_local");
    }
    for (int round = 0; round < 5; round++) {
        uint32_t n = 1 + rnd() % 500000;
        uint8_t *data = malloc(n);
        for (uint32_t i = 0; i < n; i++)
            data[i] = (uint8_t)(rnd() % (round + 2) == 0 ? 7 : rnd());
        void *d[2], *bg[2], *bl[2];
        both_alloc(&p, n, d, data);
        both_alloc(&p, 1024, bg, NULL);
        both_alloc(&p, 1024, bl, NULL);
        uint32_t g = round == 0 ? 0 : 1 + rnd() % 1024;
        for (int s = 0; s < 2; s++) {
            krt_arg a[] = { KRT_ARG(d[s]), KRT_ARG(bg[s]), KRT_ARG(n) };
            krt_launch_desc ld = kt_desc1(n, a, 3);
            KT_OK(krt_launch(hg[s], &ld));
            krt_arg b[] = { KRT_ARG(d[s]), KRT_ARG(bl[s]), KRT_ARG(n) };
            ld = kt_desc1(n, b, 3);
            ld.group[0] = g;
            KT_OK(krt_launch(hl[s], &ld));
        }
        sync_both(&p);
        words_agree(bg[HOST], bg[POCL], 256, "histogram_global");
        words_agree(bl[HOST], bl[POCL], 256, "histogram_local");
        words_agree(bg[HOST], bl[HOST], 256, "histogram_global against histogram_local on the host");
        free(data);
    }
    close_pair(&p);
}

Test(oracle, matmul_naive_and_tiled)
{
    pair p = open_pair();
    rng_state = 404;
    krt_kernel *mn[2], *mt[2];
    for (int s = 0; s < 2; s++) {
        mn[s] = kernel_of(p.ctx[s], "matmul", "matmul_naive");
        mt[s] = kernel_of(p.ctx[s], "matmul", "matmul_tiled");
    }
    for (int round = 0; round < 4; round++) {
        uint32_t m = 1 + rnd() % 90, n = 1 + rnd() % 90, k = 1 + rnd() % 90;
        float *in = malloc((size_t)90 * 90 * sizeof *in);
        void *a[2], *b[2], *c1[2], *c2[2];
        for (uint32_t i = 0; i < m * k; i++)
            in[i] = rndf();
        both_alloc(&p, (size_t)m * k * sizeof(float), a, in);
        for (uint32_t i = 0; i < k * n; i++)
            in[i] = rndf();
        both_alloc(&p, (size_t)k * n * sizeof(float), b, in);
        both_alloc(&p, (size_t)m * n * sizeof(float), c1, NULL);
        both_alloc(&p, (size_t)m * n * sizeof(float), c2, NULL);
        for (int s = 0; s < 2; s++) {
            krt_arg x[] = { KRT_ARG(a[s]), KRT_ARG(b[s]), KRT_ARG(c1[s]), KRT_ARG(m), KRT_ARG(n), KRT_ARG(k) };
            krt_launch_desc d = { .range = { .dims = 2, .size = { n, m } }, .args = x, .num_args = 6 };
            KT_OK(krt_launch(mn[s], &d));
            krt_arg y[] = { KRT_ARG(a[s]), KRT_ARG(b[s]), KRT_ARG(c2[s]), KRT_ARG(m), KRT_ARG(n), KRT_ARG(k) };
            d.args = y;
            d.range.size[0] = (n + 15) / 16 * 16; /* the tiled kernel loads whole tiles and guards */
            d.range.size[1] = (m + 15) / 16 * 16;
            KT_OK(krt_launch(mt[s], &d));
        }
        sync_both(&p);
        /* k products summed: each fused multiply-add on one side may round differently */
        floats_agree(c1[HOST], c1[POCL], (size_t)m * n, 4.0f * (float)k, "matmul_naive");
        floats_agree(c2[HOST], c2[POCL], (size_t)m * n, 4.0f * (float)k, "matmul_tiled");
        free(in);
    }
    close_pair(&p);
}

Test(oracle, heat_and_mandelbrot)
{
    pair p = open_pair();
    rng_state = 505;
    krt_kernel *heat[2], *mb[2];
    for (int s = 0; s < 2; s++) {
        heat[s] = kernel_of(p.ctx[s], "heat", "heat_step");
        mb[s] = kernel_of(p.ctx[s], "mandelbrot", "mandelbrot");
    }
    for (int round = 0; round < 4; round++) {
        uint32_t w = 3 + rnd() % 300, h = 3 + rnd() % 200;
        float *grid = malloc((size_t)w * h * sizeof *grid);
        for (uint32_t i = 0; i < w * h; i++)
            grid[i] = rndf();
        void *in[2], *out[2], *it[2];
        both_alloc(&p, (size_t)w * h * sizeof(float), in, grid);
        both_alloc(&p, (size_t)w * h * sizeof(float), out, NULL);
        both_alloc(&p, (size_t)w * h * sizeof(uint32_t), it, NULL);
        float alpha = 0.2f, x0 = -2.0f, y0 = -1.2f, dx = 3.0f / (float)w, dy = 2.4f / (float)h;
        uint32_t max_iter = 200;
        for (int s = 0; s < 2; s++) {
            krt_arg a[] = { KRT_ARG(in[s]), KRT_ARG(out[s]), KRT_ARG(w), KRT_ARG(h), KRT_ARG(alpha) };
            krt_launch_desc d = { .range = { .dims = 2, .size = { w, h } }, .args = a, .num_args = 5 };
            KT_OK(krt_launch(heat[s], &d));
            krt_arg b[] = { KRT_ARG(it[s]), KRT_ARG(w), KRT_ARG(h), KRT_ARG(x0), KRT_ARG(y0), KRT_ARG(dx),
                            KRT_ARG(dy), KRT_ARG(max_iter) };
            d = (krt_launch_desc){ .range = { .dims = 2, .size = { w, h } }, .args = b, .num_args = 8 };
            KT_OK(krt_launch(mb[s], &d));
        }
        sync_both(&p);
        floats_agree(out[HOST], out[POCL], (size_t)w * h, 8, "heat_step");
        const uint32_t *ih = it[HOST], *ic = it[POCL];
        uint32_t differ = 0;
        for (uint32_t i = 0; i < w * h; i++)
            differ += ih[i] != ic[i];
        cr_assert_leq(differ, 1 + w * h / 500, "mandelbrot %ux%u: %u pixels differ", w, h, differ);
        free(grid);
    }
    close_pair(&p);
}

Test(oracle, knobs_scale_kernels_and_fills)
{
    pair p = open_pair();
    rng_state = 606;
    const char *names[] = { "scale", "scale_hint", "scale_reqd", "scale_spec" };
    for (int kn = 0; kn < 4; kn++) {
        krt_kernel *k[2];
        for (int s = 0; s < 2; s++)
            k[s] = kernel_of(p.ctx[s], "knobs", names[kn]);
        uint32_t n = 1 + rnd() % 100000;
        uint32_t g = kn == 2 ? 128 : 64; /* the same static group on both, so the recorded shapes agree */
        float *x0 = malloc(n * sizeof *x0);
        for (uint32_t i = 0; i < n; i++)
            x0[i] = rndf();
        void *x[2], *shape[2];
        both_alloc(&p, n * sizeof(float), x, x0);
        both_alloc(&p, 16 * sizeof(uint32_t), shape, NULL);
        float factor = rndf();
        for (int s = 0; s < 2; s++) {
            krt_arg a[] = { KRT_ARG(x[s]), KRT_ARG(factor), KRT_ARG(n), KRT_ARG(shape[s]) };
            krt_arg b[] = { KRT_ARG(x[s]), KRT_ARG(n), KRT_ARG(shape[s]) };
            krt_launch_desc d = kt_desc1(n, kn == 3 ? b : a, kn == 3 ? 3 : 4);
            d.group[0] = g;
            KT_OK(krt_launch(k[s], &d));
        }
        sync_both(&p);
        floats_agree(x[HOST], x[POCL], n, 0, names[kn]);
        words_agree(shape[HOST], shape[POCL], 16, names[kn]);
        free(x0);
    }
    /* krt_memfill: the built-in fill kernels on ze_pocl, the host device's own fill */
    for (int round = 0; round < 8; round++) {
        size_t ps = (size_t)1 << (rnd() % 8);
        size_t size = ps * (1 + rnd() % 5000);
        size_t off = rnd() % 8;
        uint8_t pattern[128];
        for (size_t i = 0; i < ps; i++)
            pattern[i] = (uint8_t)rnd();
        void *buf[2];
        both_alloc(&p, size + 16, buf, NULL);
        for (int s = 0; s < 2; s++)
            KT_OK(krt_memfill(p.ctx[s], NULL, (uint8_t *)buf[s] + off, pattern, ps, size));
        sync_both(&p);
        cr_assert_eq(memcmp(buf[HOST], buf[POCL], size + 16), 0, "memfill pattern %zu, size %zu, offset %zu", ps,
                     size, off);
    }
    close_pair(&p);
}

/* Kernels with barriers (test/kernels/krt_barriers.cl) at random group sizes, partial last groups included: the
 * host device's work-item loops (tools/krt_loops.py), the host device's fibers (KRT_HOST_FIBERS=1, read when a
 * kernel is created) and ze_pocl must all give the same integers, and the reduction and the transpose what
 * this test computes itself. */
enum { BAR_KERNELS = 6 };
static const char *const bar_names[BAR_KERNELS] = { "krt_bar_reduce", "krt_bar_tiles", "krt_bar_nested",
                                                    "krt_bar_transpose", "krt_bar_big", "krt_bar_early" };

static void bar_kernels(krt_context *ctx, krt_kernel *k[BAR_KERNELS])
{
    char path[4096];
    snprintf(path, sizeof path, "%s/krt_barriers.spv", getenv("KRT_TEST_KERNELS"));
    krt_module *m = NULL;
    KT_OK(krt_module_create(ctx, &(krt_module_desc){ .path = path }, &m));
    for (int i = 0; i < BAR_KERNELS; i++)
        k[i] = kt_kernel(m, bar_names[i]);
}

Test(oracle, barrier_kernels_as_loops_and_fibers)
{
    enum { LOOPS = 0, PO = 1, FIBERS = 2 };
    krt_context *ctx[3];
    krt_kernel *k[3][BAR_KERNELS];
    ctx[LOOPS] = kt_context(&(krt_context_desc){ .device = "host" });
    ctx[PO] = kt_context(&(krt_context_desc){ .device = "cpu" });
    ctx[FIBERS] = kt_context(&(krt_context_desc){ .device = "host" });
    bar_kernels(ctx[LOOPS], k[LOOPS]);
    bar_kernels(ctx[PO], k[PO]);
    setenv("KRT_HOST_FIBERS", "1", 1);
    bar_kernels(ctx[FIBERS], k[FIBERS]);
    unsetenv("KRT_HOST_FIBERS");
    rng_state = 404;
    for (int round = 0; round < 8; round++) {
        uint32_t g = round == 0 ? 1 : round == 1 ? 256 : 1 + rnd() % 256;
        uint32_t n = 1 + rnd() % 20000;
        uint32_t groups = (n + g - 1) / g;
        uint32_t tiles = 1 + rnd() % 4;
        int mode = (int)(rnd() % 4);
        /* The transpose: nx x ny in 8 x 8 groups, of the same input. */
        uint32_t nx = 1 + rnd() % 300, ny = 1 + rnd() % 300;
        size_t count = (size_t)n * tiles > (size_t)nx * ny ? (size_t)n * tiles : (size_t)nx * ny;
        int32_t *in = malloc(count * sizeof *in);
        for (size_t i = 0; i < count; i++)
            in[i] = (int32_t)(rnd() % 2001) - 1000;
        uint32_t *out[3][BAR_KERNELS];
        size_t sizes[BAR_KERNELS] = { groups * sizeof(int32_t), (size_t)n * 3 * sizeof(int32_t), n * sizeof(int32_t),
                                      (size_t)nx * ny * sizeof(int32_t), n * sizeof(int32_t), n * sizeof(int32_t) };
        for (int s = 0; s < 3; s++) {
            void *din = kt_alloc(ctx[s], count * sizeof *in, KRT_MEMORY_SHARED);
            memcpy(din, in, count * sizeof *in);
            for (int o = 0; o < BAR_KERNELS; o++) {
                out[s][o] = kt_alloc(ctx[s], sizes[o], KRT_MEMORY_SHARED);
                memset(out[s][o], 0, sizes[o]);
            }
            krt_arg ra[] = { KRT_ARG(din), KRT_ARG(out[s][0]), KRT_ARG(n) };
            krt_launch_desc d = kt_desc1(n, ra, 3);
            d.group[0] = g;
            KT_OK(krt_launch(k[s][0], &d));
            /* krt_bar_tiles reads n * tiles inputs over a range of n. */
            uint32_t total = n * tiles;
            krt_arg ta[] = { KRT_ARG(din), KRT_ARG(out[s][1]), KRT_ARG_LOCAL(g * sizeof(int32_t)), KRT_ARG(total),
                             KRT_ARG(tiles) };
            d = kt_desc1(n, ta, 5);
            d.group[0] = g;
            KT_OK(krt_launch(k[s][1], &d));
            krt_arg na[] = { KRT_ARG(out[s][2]), KRT_ARG_LOCAL(g * sizeof(int32_t)), KRT_ARG(n), KRT_ARG(mode) };
            d = kt_desc1(n, na, 4);
            d.group[0] = g;
            KT_OK(krt_launch(k[s][2], &d));
            krt_arg xa[] = { KRT_ARG(din), KRT_ARG(out[s][3]), KRT_ARG(nx), KRT_ARG(ny) };
            uint32_t px = (nx + 7) / 8 * 8, py = (ny + 7) / 8 * 8;
            d = (krt_launch_desc){ .range = { 2, { px, py } }, .group = { 8, 8 }, .args = xa, .num_args = 4 };
            KT_OK(krt_launch(k[s][3], &d));
            krt_arg ba[] = { KRT_ARG(out[s][4]), KRT_ARG_LOCAL(g * sizeof(int32_t)), KRT_ARG(n) };
            d = kt_desc1(n, ba, 3);
            d.group[0] = g;
            KT_OK(krt_launch(k[s][4], &d));
            uint32_t skip = (uint32_t)round % 3;
            krt_arg ea[] = { KRT_ARG(out[s][5]), KRT_ARG_LOCAL(g * sizeof(int32_t)), KRT_ARG(n), KRT_ARG(skip) };
            d = kt_desc1(n, ea, 4);
            d.group[0] = g;
            KT_OK(krt_launch(k[s][5], &d));
        }
        for (int s = 0; s < 3; s++)
            KT_OK(krt_context_synchronize(ctx[s]));
        char what[160];
        for (int o = 0; o < BAR_KERNELS; o++) {
            snprintf(what, sizeof what, "%s, n %u, group %u, tiles %u, mode %d, loops against ze_pocl",
                     bar_names[o], n, g, tiles, mode);
            words_agree(out[LOOPS][o], out[PO][o], sizes[o] / 4, what);
            snprintf(what, sizeof what, "%s, n %u, group %u, tiles %u, mode %d, fibers against ze_pocl",
                     bar_names[o], n, g, tiles, mode);
            words_agree(out[FIBERS][o], out[PO][o], sizes[o] / 4, what);
        }
        for (uint32_t gi = 0; gi < groups; gi++) {
            int32_t sum = 0;
            for (uint32_t i = gi * g; i < n && i < (gi + 1) * g; i++)
                sum += in[i];
            cr_assert_eq((int32_t)out[LOOPS][0][gi], sum, "krt_bar_reduce: group %u of %u", gi, g);
        }
        for (uint32_t y = 0; y < ny; y++)
            for (uint32_t x = 0; x < nx; x++)
                cr_assert_eq((int32_t)out[LOOPS][3][x * ny + y], in[y * nx + x], "krt_bar_transpose (%u, %u)", x, y);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t g0 = i / g * g, size = n - g0 < g ? n - g0 : g;
            int32_t t = (int32_t)((g0 + (i - g0 + 1) % size) * 100 + 99), sum = 0;
            for (int32_t j = 0; j < 100; j++)
                sum += (int32_t)(i * 100 + (uint32_t)j) ^ t;
            cr_assert_eq((int32_t)out[LOOPS][4][i], sum, "krt_bar_big: work-item %u, group %u", i, g);
            uint32_t gi = i / g, right = g0 + (i - g0 + 1) % size;
            int32_t acc = 0;
            for (uint32_t k = 0; k <= gi % 4; k++)
                acc += (int32_t)(right + k);
            cr_assert_eq((int32_t)out[LOOPS][5][i], gi % 3 == (uint32_t)round % 3 ? 0 : acc,
                         "krt_bar_early: work-item %u, group %u", i, g);
        }
        free(in);
    }
    for (int s = 0; s < 3; s++)
        krt_context_destroy(ctx[s]);
}

/* Barrier kernels written to trip a reader of C (test/kernels/krt_barriers_tricky.cl): barriers from macros,
 * barrier( in comments and strings, declarations after barriers and of an outer variable's name, barriers in
 * for, while, do and a uniform if, a work-item id and a parameter changed through parentheses, goto, a barrier in
 * a switch. The first two must have become work-item loops (the library exports krt_host_loops_NAME), the others
 * must have kept their fibers (krt-cc said why); either way the host device must give ze_pocl's integers, and so
 * must the fibers of all five. */
enum { TRICKY_KERNELS = 5 };
static const char *const tricky_names[TRICKY_KERNELS] = { "tricky_macros", "tricky_loops", "tricky_param",
                                                          "tricky_goto", "tricky_switch" };
static const int tricky_loops[TRICKY_KERNELS] = { 1, 1, 0, 0, 0 };

Test(oracle, tricky_barrier_kernels)
{
    enum { LOOPS = 0, PO = 1, FIBERS = 2 };
    char path[4096];
    snprintf(path, sizeof path, "%s/host/krt_barriers_tricky.so", getenv("KRT_TEST_KERNELS"));
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    cr_assert(lib, "%s: %s", path, dlerror());
    for (int i = 0; i < TRICKY_KERNELS; i++) {
        char sym[128];
        snprintf(sym, sizeof sym, "krt_host_loops_%s", tricky_names[i]);
        cr_expect_eq(dlsym(lib, sym) != NULL, tricky_loops[i], "%s: work-item loops %s", tricky_names[i],
                     tricky_loops[i] ? "missing" : "made, where the transform must refuse the kernel");
    }
    dlclose(lib);
    snprintf(path, sizeof path, "%s/krt_barriers_tricky.spv", getenv("KRT_TEST_KERNELS"));
    krt_context *ctx[3];
    krt_kernel *k[3][TRICKY_KERNELS];
    ctx[LOOPS] = kt_context(&(krt_context_desc){ .device = "host" });
    ctx[PO] = kt_context(&(krt_context_desc){ .device = "cpu" });
    ctx[FIBERS] = kt_context(&(krt_context_desc){ .device = "host" });
    for (int s = 0; s < 3; s++) {
        if (s == FIBERS)
            setenv("KRT_HOST_FIBERS", "1", 1);
        krt_module *m = NULL;
        KT_OK(krt_module_create(ctx[s], &(krt_module_desc){ .path = path }, &m));
        for (int i = 0; i < TRICKY_KERNELS; i++)
            k[s][i] = kt_kernel(m, tricky_names[i]);
        unsetenv("KRT_HOST_FIBERS");
    }
    rng_state = 505;
    for (int round = 0; round < 8; round++) {
        uint32_t g = round == 0 ? 1 : round == 1 ? 256 : 1 + rnd() % 256;
        uint32_t n = 1 + rnd() % 5000;
        int32_t extra = (int32_t)(rnd() % 1000);
        uint32_t *out[3][TRICKY_KERNELS];
        for (int s = 0; s < 3; s++)
            for (int i = 0; i < TRICKY_KERNELS; i++) {
                out[s][i] = kt_alloc(ctx[s], n * sizeof(uint32_t), KRT_MEMORY_SHARED);
                memset(out[s][i], 0xee, n * sizeof(uint32_t));
                krt_arg a[] = { KRT_ARG(out[s][i]), KRT_ARG_LOCAL(g * sizeof(int32_t)), KRT_ARG(n), KRT_ARG(extra) };
                krt_launch_desc d = kt_desc1(n, a, 4);
                d.group[0] = g;
                KT_OK(krt_launch(k[s][i], &d));
            }
        for (int s = 0; s < 3; s++)
            KT_OK(krt_context_synchronize(ctx[s]));
        char what[160];
        for (int i = 0; i < TRICKY_KERNELS; i++) {
            snprintf(what, sizeof what, "%s, n %u, group %u, extra %d, host device against ze_pocl", tricky_names[i],
                     n, g, extra);
            words_agree(out[LOOPS][i], out[PO][i], n, what);
            snprintf(what, sizeof what, "%s, n %u, group %u, extra %d, fibers against ze_pocl", tricky_names[i], n,
                     g, extra);
            words_agree(out[FIBERS][i], out[PO][i], n, what);
        }
    }
    for (int s = 0; s < 3; s++)
        krt_context_destroy(ctx[s]);
}
