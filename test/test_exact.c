/* Exact ranges (docs/design.md, "Exact ranges"): every launch runs its kernel body for exactly the range's
 * work-items, whatever group krt chooses or the caller gives, with OpenCL 2.0's partial groups. The kernels
 * (test/kernels/krt_exact.cl, krt_exact_local.cl) carry no guard; every buffer has sentinel words past its end,
 * checked after each launch. Runs on the default device and, in make test's second pass, on the host device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "krt_test.h"

#define SENTINELS 64
#define SENTINEL 0x5a5a5a5a

/* n ints of shared memory, set to `fill`, followed by SENTINELS sentinel words. */
static int *buffer(krt_context *ctx, size_t n, int fill)
{
    int *p = kt_alloc(ctx, (n + SENTINELS) * sizeof(int), KRT_MEMORY_SHARED);
    for (size_t i = 0; i < n; i++)
        p[i] = fill;
    for (size_t i = 0; i < SENTINELS; i++)
        p[n + i] = SENTINEL;
    return p;
}

static void sentinels_intact(const int *p, size_t n, const char *what)
{
    for (size_t i = 0; i < SENTINELS; i++)
        cr_assert_eq(p[n + i], SENTINEL, "%s: the word %zu past the end of %zu was written (0x%x)", what, i, n,
                     (unsigned)p[n + i]);
}

static void each_is(const int *p, size_t n, int want, const char *what)
{
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(p[i], want, "%s: item %zu is %d, expected %d", what, i, p[i], want);
    sentinels_intact(p, n, what);
}

/* A launch over (dims, size) with the static group `group`, or krt's choice when group is NULL. */
static krt_launch_desc launch_of(uint32_t dims, const uint64_t size[3], const uint32_t *group, const krt_arg *args,
                                 uint32_t num_args)
{
    krt_launch_desc desc = {.range = {dims, {size[0], size[1], size[2]}}, .args = args, .num_args = num_args};
    if (group)
        memcpy(desc.group, group, sizeof desc.group);
    return desc;
}

/* Runs kernel `name` with one buffer argument over range (dims, size) and, when group is not NULL, that static
 * group; every element must have been incremented once. */
static void inc_once(krt_context *ctx, krt_kernel *k, uint32_t dims, const uint64_t size[3], const uint32_t *group)
{
    size_t n = 1;
    for (uint32_t d = 0; d < dims; d++)
        n *= size[d];
    int *a = buffer(ctx, n, 0);
    krt_arg args[] = {KRT_ARG(a)};
    krt_launch_desc desc = launch_of(dims, size, group, args, 1);
    KT_OK(krt_launch_sync(k, &desc));
    char what[128];
    snprintf(what, sizeof what, "%uD %llu x %llu x %llu, group %u x %u x %u", dims, (unsigned long long)size[0],
             (unsigned long long)size[1], (unsigned long long)size[2], group ? group[0] : 0, group ? group[1] : 0,
             group ? group[2] : 0);
    each_is(a, n, 1, what);
    KT_OK(krt_free(ctx, a));
}

static const uint64_t ranges_1d[] = {1, 2, 3, 5, 7, 13, 31, 97, 127, 257, 1023, 1025, 4097, 65537, 100003};

Test(exact, one_dimension_any_range, .timeout = KT_TEST_TIMEOUT)
{
    krt_context *ctx = kt_context(NULL);
    krt_kernel *k = kt_kernel(kt_module(ctx, "krt_exact"), "inc");
    for (size_t i = 0; i < sizeof ranges_1d / sizeof *ranges_1d; i++) {
        uint64_t size[3] = {ranges_1d[i], 1, 1};
        inc_once(ctx, k, 1, size, NULL);
        uint32_t group[3] = {ranges_1d[i] < 64 ? (uint32_t)ranges_1d[i] : 64, 1, 1};
        inc_once(ctx, k, 1, size, group); /* a static group that does not divide the range */
    }
    krt_context_destroy(ctx);
}

Test(exact, rows_and_columns, .timeout = KT_TEST_TIMEOUT)
{
    krt_context *ctx = kt_context(NULL);
    krt_kernel *k = kt_kernel(kt_module(ctx, "krt_exact"), "inc_rows");
    const uint64_t ns[] = {1, 5, 100, 1000, 4099};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
        uint64_t row[3] = {ns[i], 1, 1}, col[3] = {1, ns[i], 1}, sq[3] = {ns[i], ns[i] > 100 ? 3 : ns[i], 1};
        inc_once(ctx, k, 2, row, NULL);
        inc_once(ctx, k, 2, col, NULL);
        inc_once(ctx, k, 2, sq, NULL);
    }
    krt_context_destroy(ctx);
}

Test(exact, ragged_three_dimensions, .timeout = KT_TEST_TIMEOUT)
{
    krt_context *ctx = kt_context(NULL);
    krt_kernel *k = kt_kernel(kt_module(ctx, "krt_exact"), "inc3");
    const uint64_t sizes[][3] = {{7, 5, 3}, {13, 1, 9}, {1, 1, 5}, {33, 17, 3}, {65, 2, 2}, {1, 31, 1}};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        inc_once(ctx, k, 3, sizes[i], NULL);
        uint32_t group[3] = {sizes[i][0] < 4 ? (uint32_t)sizes[i][0] : 4, sizes[i][1] < 2 ? 1 : 2,
                             sizes[i][2] < 2 ? 1 : 2};
        inc_once(ctx, k, 3, sizes[i], group);
    }
    krt_context_destroy(ctx);
}

/* A grid-stride loop reads get_global_size: it must be the range, or items are skipped or done twice. */
Test(exact, grid_stride_loop_sees_the_range, .timeout = KT_TEST_TIMEOUT)
{
    krt_context *ctx = kt_context(NULL);
    krt_kernel *k = kt_kernel(kt_module(ctx, "krt_exact"), "stride_add");
    const uint64_t rs[] = {1, 3, 97, 1025, 4097};
    for (size_t i = 0; i < sizeof rs / sizeof *rs; i++) {
        uint32_t n = (uint32_t)(3 * rs[i] + 5);
        int *a = buffer(ctx, n, 0);
        krt_arg args[] = {KRT_ARG(a), KRT_ARG(n)};
        krt_launch_desc desc = kt_desc1(rs[i], args, 2);
        KT_OK(krt_launch_sync(k, &desc));
        each_is(a, n, 1, "grid-stride loop");
        KT_OK(krt_free(ctx, a));
    }
    krt_context_destroy(ctx);
}

/* What each item of a partial last group sees: OpenCL 2.0's answers. */
static void check_builtins(krt_context *ctx, krt_kernel *k, uint32_t dims, const uint64_t size[3],
                           const uint32_t group[3])
{
    size_t n = (size_t)(size[0] * size[1] * size[2]);
    for (uint32_t d = 0; d < dims; d++) {
        uint64_t *out = kt_alloc(ctx, n * 8 * sizeof(uint64_t), KRT_MEMORY_SHARED);
        memset(out, 0xff, n * 8 * sizeof(uint64_t));
        krt_arg args[] = {KRT_ARG(out), KRT_ARG(d)};
        krt_launch_desc desc = launch_of(dims, size, group, args, 2);
        KT_OK(krt_launch_sync(k, &desc));
        for (size_t i = 0; i < n; i++) {
            uint64_t id[3] = {i % size[0], i / size[0] % size[1], i / size[0] / size[1]};
            uint64_t g = group[d], groups = (size[d] + g - 1) / g, gid = id[d] / g;
            uint64_t real = gid + 1 < groups ? g : size[d] - gid * g;
            uint64_t lsz[3], lid[3];
            for (uint32_t e = 0; e < 3; e++) {
                uint64_t ge = group[e], gide = id[e] / ge, ne = (size[e] + ge - 1) / ge;
                lsz[e] = gide + 1 < ne ? ge : size[e] - gide * ge;
                lid[e] = id[e] % ge;
            }
            const uint64_t *o = out + i * 8;
            cr_assert_eq(o[7], i, "item %zu: global linear id %llu", i, (unsigned long long)o[7]);
            cr_assert_eq(o[0], size[d], "item %zu dim %u: global size %llu", i, d, (unsigned long long)o[0]);
            cr_assert_eq(o[1], real, "item %zu dim %u: local size %llu, expected %llu", i, d,
                         (unsigned long long)o[1], (unsigned long long)real);
            cr_assert_eq(o[2], g, "item %zu dim %u: enqueued local size %llu", i, d, (unsigned long long)o[2]);
            cr_assert_eq(o[3], groups, "item %zu dim %u: %llu groups", i, d, (unsigned long long)o[3]);
            cr_assert_eq(o[4], gid, "item %zu dim %u: group id %llu", i, d, (unsigned long long)o[4]);
            cr_assert_eq(o[5], id[d] % g, "item %zu dim %u: local id %llu", i, d, (unsigned long long)o[5]);
            cr_assert_eq(o[6], (lid[2] * lsz[1] + lid[1]) * lsz[0] + lid[0], "item %zu: local linear id %llu", i,
                         (unsigned long long)o[6]);
        }
        KT_OK(krt_free(ctx, out));
    }
}

Test(exact, builtins_of_a_partial_group, .timeout = KT_TEST_TIMEOUT)
{
    krt_context *ctx = kt_context(NULL);
    krt_kernel *k = kt_kernel(kt_module(ctx, "krt_exact"), "builtins");
    check_builtins(ctx, k, 1, (uint64_t[3]){1000, 1, 1}, (uint32_t[3]){64, 1, 1});
    check_builtins(ctx, k, 1, (uint64_t[3]){5, 1, 1}, (uint32_t[3]){4, 1, 1});
    check_builtins(ctx, k, 2, (uint64_t[3]){10, 7, 1}, (uint32_t[3]){4, 4, 1});
    check_builtins(ctx, k, 3, (uint64_t[3]){5, 3, 7}, (uint32_t[3]){2, 2, 4});
    krt_context_destroy(ctx);
}

/* A barrier reduction over groups krt chooses, and over static groups: each group sums exactly its items.
 * With krt's choice the group is not known here, so the test checks what must hold whatever it is: the group
 * sums add up to the whole, the sizes to the range, and every group but the last is full. */
static void group_sums(krt_context *ctx, krt_kernel *k, uint64_t n, uint32_t group)
{
    int *in = buffer(ctx, n, 0), *sums = buffer(ctx, n, -1), *sizes = buffer(ctx, n, -1);
    for (uint64_t i = 0; i < n; i++)
        in[i] = (int)(i % 1000) + 1;
    uint32_t local = group ? group : 4096;
    krt_arg args[] = {KRT_ARG(in), KRT_ARG(sums), KRT_ARG(sizes), KRT_ARG_LOCAL(local * sizeof(int))};
    krt_launch_desc desc = kt_desc1(n, args, 4);
    desc.group[0] = group;
    KT_OK(krt_launch_sync(k, &desc));
    uint64_t groups = 0;
    while (groups < n && sizes[groups] != -1)
        groups++;
    cr_assert(groups > 0);
    long long total = 0, want = 0, items = 0;
    for (uint64_t i = 0; i < n; i++)
        want += in[i];
    for (uint64_t g = 0; g < groups; g++) {
        total += sums[g];
        items += sizes[g];
        if (g + 1 < groups)
            cr_assert_eq(sizes[g], sizes[0], "n %llu: group %llu has %d items, group 0 %d", (unsigned long long)n,
                         (unsigned long long)g, sizes[g], sizes[0]);
        if (group)
            cr_assert_eq(sizes[g], g + 1 < groups ? (int)group : (int)(n - g * group));
    }
    cr_assert_eq(items, (long long)n, "n %llu: the groups hold %lld items", (unsigned long long)n, items);
    cr_assert_eq(total, want, "n %llu: the group sums add up to %lld, expected %lld", (unsigned long long)n, total,
                 want);
    sentinels_intact(in, n, "in");
    sentinels_intact(sums, n, "sums");
    sentinels_intact(sizes, n, "sizes");
    KT_OK(krt_free(ctx, in));
    KT_OK(krt_free(ctx, sums));
    KT_OK(krt_free(ctx, sizes));
}

Test(exact, barrier_reduction_in_partial_groups, .timeout = KT_TEST_TIMEOUT)
{
    krt_context *ctx = kt_context(NULL);
    krt_kernel *k = kt_kernel(kt_module(ctx, "krt_exact"), "group_sum");
    const uint64_t ns[] = {1, 7, 63, 65, 1000, 4099};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
        group_sums(ctx, k, ns[i], 0);
        group_sums(ctx, k, ns[i], ns[i] < 64 ? (uint32_t)ns[i] : 64);
        if (ns[i] >= 8)
            group_sums(ctx, k, ns[i], 8);
    }
    krt_context_destroy(ctx);
}

/* Barriers, static __local memory and a required group size of 64, over ranges that 64 does not divide. */
Test(exact, required_group_with_static_local, .timeout = KT_TEST_TIMEOUT)
{
    kt_skip_on_host("kernel-scope __local arrays are not compiled for the host device yet");
    krt_context *ctx = kt_context(NULL);
    krt_kernel *k = kt_kernel(kt_module(ctx, "krt_exact_local"), "tile_sum");
    const uint64_t ns[] = {1, 50, 64, 100, 1000};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
        uint64_t n = ns[i], groups = (n + 63) / 64;
        int *in = buffer(ctx, n, 0), *sums = buffer(ctx, groups, -1);
        for (uint64_t j = 0; j < n; j++)
            in[j] = (int)j + 1;
        krt_arg args[] = {KRT_ARG(in), KRT_ARG(sums)};
        krt_launch_desc desc = kt_desc1(n, args, 2);
        KT_OK(krt_launch_sync(k, &desc));
        for (uint64_t g = 0; g < groups; g++) {
            long long want = 0;
            for (uint64_t j = g * 64; j < n && j < g * 64 + 64; j++)
                want += in[j];
            cr_assert_eq(sums[g], want, "n %llu group %llu: %d, expected %lld", (unsigned long long)n,
                         (unsigned long long)g, sums[g], want);
        }
        sentinels_intact(in, n, "in");
        sentinels_intact(sums, groups, "sums");
        KT_OK(krt_free(ctx, in));
        KT_OK(krt_free(ctx, sums));
    }
    krt_context_destroy(ctx);
}

/* A masked item never reaches an atomic: the counter counts exactly the range. */
Test(exact, atomics_count_the_range, .timeout = KT_TEST_TIMEOUT)
{
    krt_context *ctx = kt_context(NULL);
    krt_kernel *k = kt_kernel(kt_module(ctx, "krt_exact"), "count_hits");
    const uint64_t sizes[][3] = {{1, 1, 1}, {3, 1, 1}, {1025, 1, 1}, {100003, 1, 1}, {7, 5, 3}, {1, 1000, 1}};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        int *c = buffer(ctx, 1, 0);
        krt_arg args[] = {KRT_ARG(c)};
        uint32_t dims = sizes[i][2] > 1 ? 3 : sizes[i][1] > 1 ? 2 : 1;
        krt_launch_desc desc = launch_of(dims, sizes[i], NULL, args, 1);
        KT_OK(krt_launch_sync(k, &desc));
        each_is(c, 1, (int)(sizes[i][0] * sizes[i][1] * sizes[i][2]), "counter");
        KT_OK(krt_free(ctx, c));
    }
    krt_context_destroy(ctx);
}

/* A shrinking sequence of ranges (an LU factorization's loop) on one kernel: every launch exact. */
Test(exact, shrinking_ranges, .timeout = KT_TEST_TIMEOUT)
{
    krt_context *ctx = kt_context(NULL);
    krt_kernel *k = kt_kernel(kt_module(ctx, "krt_exact"), "inc");
    const size_t n = 300;
    int *a = buffer(ctx, n, 0);
    krt_arg args[] = {KRT_ARG(a)};
    for (size_t r = n; r >= 1; r--) {
        krt_launch_desc desc = kt_desc1(r, args, 1);
        KT_OK(krt_launch(k, &desc));
    }
    KT_OK(krt_queue_synchronize(krt_context_default_queue(ctx)));
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(a[i], (int)(n - i), "item %zu: %d launches reached it, expected %zu", i, a[i], n - i);
    sentinels_intact(a, n, "a");
    krt_context_destroy(ctx);
}
