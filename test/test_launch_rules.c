/* The launch configuration's rules as tables (docs/design.md, "The launch configuration"): what reflection
 * reads of a kernel (barriers over the call tree, static __local memory, __local arguments), then kernel
 * properties plus range give the expected group and limit, then the number of distinct shapes krt chooses
 * over the sweeps of issue 11 (every 1-D range 1..2^20, sampled densely, and every n x n for n in 1..1024).
 *
 * The expected shapes are those of ze_pocl's CPU device, the device the tests run on: preferred multiple 8
 * and a kernel maximum of 4096. premise() checks those figures first, so a table never passes by accident on
 * a device it was not written for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "krt_test.h"

TestSuite(launch_rules, .timeout = KT_TEST_TIMEOUT);

typedef struct {
    krt_context *ctx;
    krt_module *m;
    krt_device_info dev;
} rules;

static rules open_rules(uint32_t min_groups)
{
    rules r;
    krt_context_desc desc = {.min_groups = min_groups};
    r.ctx = kt_context(&desc);
    KT_OK(krt_context_device_info(r.ctx, &r.dev));
    r.m = kt_module(r.ctx, "krt_rules");
    return r;
}

static void close_rules(rules *r)
{
    krt_module_destroy(r->m);
    krt_context_destroy(r->ctx);
}

static void premise(rules *r, krt_kernel *k)
{
    krt_kernel_properties p;
    KT_OK(krt_kernel_properties_get(k, &p));
    /* These are the CPU device's rules; where the default device is a GPU (the GPU run) they do not apply. */
    if (r->dev.type != KRT_DEVICE_TYPE_CPU) {
        close_rules(r);
        cr_skip_test("the CPU device's rules; the default device here is not a CPU");
    }
    cr_assert(p.preferred_multiple == 8 && p.max_group_size == 4096,
              "premise: preferred multiple 8 and maximum 4096, the device has %u and %u", p.preferred_multiple,
              p.max_group_size);
}

/* ---- what reflection reads ---- */

Test(launch_rules, reflection_reads_barriers_and_local_memory)
{
    rules r = open_rules(0);
    const struct {
        const char *kernel;
        int barrier, static_local;
        uint32_t local_args;
    } table[] = {
        {"krt_rule_plain", 0, 0, 0},          {"krt_rule_barrier_arg", 1, 0, 1},
        {"krt_rule_barrier_static", 1, 1, 0}, {"krt_rule_barrier_callee", 1, 0, 1},
        {"krt_rule_local_only", 0, 0, 1},     {"krt_rule_2d", 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        krt_kernel_info info;
        KT_OK(krt_module_kernel_info(r.m, table[i].kernel, &info));
        cr_assert_eq(info.uses_barrier, table[i].barrier, "%s: uses_barrier %d", table[i].kernel, info.uses_barrier);
        cr_assert_eq(info.uses_static_local, table[i].static_local, "%s: uses_static_local %d", table[i].kernel,
                     info.uses_static_local);
        cr_assert_eq(info.local_args, table[i].local_args, "%s: local_args %u", table[i].kernel, info.local_args);
        /* The kernel handle reports the same. */
        krt_kernel_info again;
        KT_OK(krt_kernel_info_get(kt_kernel(r.m, table[i].kernel), &again));
        cr_assert_eq(again.uses_barrier, info.uses_barrier);
        cr_assert_eq(again.uses_static_local, info.uses_static_local);
    }
    close_rules(&r);
    /* The example kernels: the reductions and histogram_local have barriers, histogram_local static __local. */
    krt_context *ctx = kt_context(NULL);
    char path[4096];
    const char *dir = getenv("KRT_KERNELS");
    cr_assert(dir, "KRT_KERNELS is not set");
    snprintf(path, sizeof path, "%s/histogram.spv", dir);
    krt_module_desc md = {.path = path};
    krt_module *m;
    KT_OK(krt_module_create(ctx, &md, &m));
    krt_kernel_info hl, hg;
    KT_OK(krt_module_kernel_info(m, "histogram_local", &hl));
    KT_OK(krt_module_kernel_info(m, "histogram_global", &hg));
    cr_assert(hl.uses_barrier && hl.uses_static_local && !hg.uses_barrier && !hg.uses_static_local);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* ---- the rule as a table ---- */

typedef struct {
    const char *kernel;
    krt_ndrange range;
    uint32_t group[3];
    krt_limit limit;
} row;

static void check_rows(rules *r, const row *table, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        krt_kernel *k = kt_kernel(r->m, table[i].kernel);
        premise(r, k);
        krt_launch_config c;
        KT_OK(krt_launch_config_get(k, &table[i].range, &c));
        cr_assert(c.group[0] == table[i].group[0] && c.group[1] == table[i].group[1] &&
                      c.group[2] == table[i].group[2],
                  "row %zu (%s over %llu x %llu x %llu): group %u x %u x %u, expected %u x %u x %u", i,
                  table[i].kernel, (unsigned long long)table[i].range.size[0],
                  (unsigned long long)table[i].range.size[1], (unsigned long long)table[i].range.size[2], c.group[0],
                  c.group[1], c.group[2], table[i].group[0], table[i].group[1], table[i].group[2]);
        cr_assert_eq(c.limit, table[i].limit, "row %zu (%s): limit %s, expected %s", i, table[i].kernel,
                     krt_limit_name(c.limit), krt_limit_name(table[i].limit));
        for (uint32_t d = 0; d < 3; d++) {
            uint64_t size = d < table[i].range.dims ? table[i].range.size[d] : 1;
            cr_assert_eq(c.groups[d], (size + c.group[d] - 1) / c.group[d], "row %zu: groups[%u]", i, d);
        }
    }
}

#define R1(n) {1, {(n), 0, 0}}
#define R2(x, y) {2, {(x), (y), 0}}
#define R3(x, y, z) {3, {(x), (y), (z)}}

/* Without a barrier, 1-D, min_groups 16 set by the caller: the bound (4096) for large ranges; small ranges get
 * the largest size of the set {8, 16, ..., 4096} that still gives min_groups groups; a range within the smallest size is one masked
 * group of 8. Never reshaped to the range: 1,000,003 gets 4096, not 4088. */
Test(launch_rules, one_dimension_without_barrier)
{
    rules r = open_rules(16);
    const row table[] = {
        {"krt_rule_plain", R1(1), {8, 1, 1}, KRT_LIMIT_NONE},
        {"krt_rule_plain", R1(8), {8, 1, 1}, KRT_LIMIT_NONE},
        {"krt_rule_plain", R1(100), {8, 1, 1}, KRT_LIMIT_MIN_GROUPS},
        {"krt_rule_plain", R1(1000), {32, 1, 1}, KRT_LIMIT_MIN_GROUPS},
        {"krt_rule_plain", R1(4096), {256, 1, 1}, KRT_LIMIT_MIN_GROUPS},
        {"krt_rule_plain", R1(65000), {2048, 1, 1}, KRT_LIMIT_MIN_GROUPS},
        {"krt_rule_plain", R1(65521), {4096, 1, 1}, KRT_LIMIT_KERNEL_MAX},
        {"krt_rule_plain", R1(1u << 20), {4096, 1, 1}, KRT_LIMIT_KERNEL_MAX},
        {"krt_rule_plain", R1(1000003), {4096, 1, 1}, KRT_LIMIT_KERNEL_MAX},
        /* A __local argument alone changes nothing. */
        {"krt_rule_local_only", R1(1u << 20), {4096, 1, 1}, KRT_LIMIT_KERNEL_MAX},
    };
    check_rows(&r, table, sizeof table / sizeof table[0]);
    close_rules(&r);
}

/* A barrier on the CPU device: groups of 8 (the preferred multiple); with static __local memory, 512. The
 * barrier may sit in a called function. min_groups still applies below that. */
Test(launch_rules, barrier_kernels_on_the_cpu)
{
    rules r = open_rules(16);
    const row table[] = {
        {"krt_rule_barrier_arg", R1(1u << 20), {8, 1, 1}, KRT_LIMIT_BARRIER},
        {"krt_rule_barrier_arg", R1(1000003), {8, 1, 1}, KRT_LIMIT_BARRIER},
        {"krt_rule_barrier_arg", R1(100), {8, 1, 1}, KRT_LIMIT_BARRIER},
        {"krt_rule_barrier_arg", R1(5), {8, 1, 1}, KRT_LIMIT_NONE},
        {"krt_rule_barrier_callee", R1(1u << 20), {8, 1, 1}, KRT_LIMIT_BARRIER},
        {"krt_rule_barrier_static", R1(1u << 20), {512, 1, 1}, KRT_LIMIT_BARRIER},
        {"krt_rule_barrier_static", R1(10000), {512, 1, 1}, KRT_LIMIT_BARRIER},
        {"krt_rule_barrier_static", R1(4000), {128, 1, 1}, KRT_LIMIT_MIN_GROUPS},
    };
    check_rows(&r, table, sizeof table / sizeof table[0]);
    close_rules(&r);
}

/* 2-D and 3-D on the CPU device: a tile of 1024 (x up to 64 in 2-D; x up to 64 and y up to 4 in 3-D), with
 * what a dimension's range (rounded up to a power of two) cannot take moved to the next, then back to x. */
Test(launch_rules, tiles_in_two_and_three_dimensions)
{
    rules r = open_rules(16);
    const row table[] = {
        {"krt_rule_2d", R2(1000, 1000), {64, 16, 1}, KRT_LIMIT_SHAPE},
        {"krt_rule_2d", R2(1024, 1024), {64, 16, 1}, KRT_LIMIT_SHAPE},
        {"krt_rule_2d", R2(1, 1), {8, 1, 1}, KRT_LIMIT_NONE},
        {"krt_rule_2d", R2(30, 20), {32, 1, 1}, KRT_LIMIT_MIN_GROUPS},
        {"krt_rule_2d", R2(1000, 3), {64, 2, 1}, KRT_LIMIT_MIN_GROUPS},
        {"krt_rule_2d", R2(5, 3000), {8, 64, 1}, KRT_LIMIT_MIN_GROUPS},
        {"krt_rule_2d", R2(100000, 2), {512, 2, 1}, KRT_LIMIT_SHAPE},
        {"krt_rule_3d", R3(64, 64, 64), {64, 4, 4}, KRT_LIMIT_SHAPE},
        {"krt_rule_3d", R3(97, 89, 31), {64, 4, 4}, KRT_LIMIT_SHAPE},
        {"krt_rule_3d", R3(3, 5, 7000), {8, 4, 32}, KRT_LIMIT_SHAPE},
    };
    check_rows(&r, table, sizeof table / sizeof table[0]);
    close_rules(&r);
}

/* On a CPU device with min_groups left at 0, small ranges are not split: every range gets the kernel's one
 * size (one masked group when the range is smaller), and a range larger than a group is reshaped only where
 * a dimension is narrower than the tile. */
Test(launch_rules, cpu_default_does_not_split_small_ranges)
{
    rules r = open_rules(0);
    const row table[] = {
        {"krt_rule_plain", R1(1), {4096, 1, 1}, KRT_LIMIT_NONE},
        {"krt_rule_plain", R1(100), {4096, 1, 1}, KRT_LIMIT_NONE},
        {"krt_rule_plain", R1(4096), {4096, 1, 1}, KRT_LIMIT_NONE},
        {"krt_rule_plain", R1(65000), {4096, 1, 1}, KRT_LIMIT_KERNEL_MAX},
        {"krt_rule_barrier_arg", R1(5), {8, 1, 1}, KRT_LIMIT_NONE},
        {"krt_rule_barrier_arg", R1(100), {8, 1, 1}, KRT_LIMIT_BARRIER},
        {"krt_rule_barrier_static", R1(10000), {512, 1, 1}, KRT_LIMIT_BARRIER},
        {"krt_rule_2d", R2(1, 1), {64, 16, 1}, KRT_LIMIT_NONE},
        {"krt_rule_2d", R2(30, 20), {64, 16, 1}, KRT_LIMIT_SHAPE},
        {"krt_rule_2d", R2(32, 32), {64, 16, 1}, KRT_LIMIT_SHAPE},
        {"krt_rule_2d", R2(249, 249), {64, 16, 1}, KRT_LIMIT_SHAPE},
        {"krt_rule_2d", R2(1000, 3), {256, 4, 1}, KRT_LIMIT_SHAPE},
        {"krt_rule_2d", R2(5, 3000), {8, 128, 1}, KRT_LIMIT_SHAPE},
        {"krt_rule_3d", R3(2, 2, 2), {64, 4, 4}, KRT_LIMIT_NONE},
        {"krt_rule_3d", R3(3, 5, 7000), {8, 4, 32}, KRT_LIMIT_SHAPE},
    };
    check_rows(&r, table, sizeof table / sizeof table[0]);
    close_rules(&r);
}

/* A context's min_groups of 1: the largest size of the set within the range. */
Test(launch_rules, min_groups_one)
{
    rules r = open_rules(1);
    const row table[] = {
        {"krt_rule_plain", R1(100), {64, 1, 1}, KRT_LIMIT_MIN_GROUPS},
        {"krt_rule_plain", R1(4096), {4096, 1, 1}, KRT_LIMIT_NONE},
        {"krt_rule_plain", R1(3), {8, 1, 1}, KRT_LIMIT_NONE},
        {"krt_rule_2d", R2(20, 20), {32, 8, 1}, KRT_LIMIT_MIN_GROUPS},
    };
    check_rows(&r, table, sizeof table / sizeof table[0]);
    close_rules(&r);
}

/* ---- the shape counts ---- */

typedef struct {
    uint32_t g[256][3];
    int n;
} shape_set;

static void add_shape(shape_set *s, const uint32_t g[3])
{
    for (int i = 0; i < s->n; i++)
        if (!memcmp(s->g[i], g, sizeof s->g[i]))
            return;
    cr_assert_lt(s->n, 256, "more than 256 distinct shapes");
    memcpy(s->g[s->n++], g, sizeof s->g[0]);
}

/* Every 1-D range 1..2^20: every size up to 8192, then steps of n / 4096 + 1 (about 28,000 ranges), and
 * 2^20 itself. */
static int sweep_1d(krt_kernel *k)
{
    static shape_set s;
    memset(&s, 0, sizeof s);
    for (uint64_t n = 1; n <= (1u << 20); n += n <= 8192 ? 1 : n / 4096 + 1) {
        krt_ndrange r = R1(n);
        krt_launch_config c;
        KT_OK(krt_launch_config_get(k, &r, &c));
        add_shape(&s, c.group);
    }
    krt_ndrange last = R1(1u << 20);
    krt_launch_config c;
    KT_OK(krt_launch_config_get(k, &last, &c));
    add_shape(&s, c.group);
    return s.n;
}

static int sweep_2d(krt_kernel *k)
{
    static shape_set s;
    memset(&s, 0, sizeof s);
    for (uint64_t n = 1; n <= 1024; n++) {
        krt_ndrange r = R2(n, n);
        krt_launch_config c;
        KT_OK(krt_launch_config_get(k, &r, &c));
        add_shape(&s, c.group);
    }
    return s.n;
}

/* The goal of issue 11: at most 12 shapes per kernel in each sweep. On the CPU device's default every range of
 * a kernel gets one shape (n x n for n = 32 is 1024 items, one group: no reshaping). With min_groups 16 the
 * exact counts follow from the size set {8, ..., 4096}: 10 sizes in 1-D without a barrier (7 with static
 * __local and a barrier: 8..512; 1 for a barrier kernel). In 2-D, n x n with min_groups 16 gives the strips 8x1 (n <= 11), 16x1, 32x1, then 32x2
 * (n = 32, whose x cannot take 64), 64x1, 64x2, 64x4, 64x8 and the tile 64x16 (n >= 128): 9. */
Test(launch_rules, few_shapes_over_the_sweeps)
{
    /* min_groups 0: the CPU device's default (no split); 16: set by the caller. */
    const struct {
        uint32_t min_groups;
        const char *kernel;
        int want_1d, want_2d;
    } table[] = {
        {0, "krt_rule_plain", 1, 0},          {0, "krt_rule_barrier_arg", 1, 0},
        {0, "krt_rule_barrier_static", 1, 0}, {0, "krt_rule_2d", 0, 1},
        {16, "krt_rule_plain", 10, 0},        {16, "krt_rule_barrier_arg", 1, 0},
        {16, "krt_rule_barrier_static", 7, 0}, {16, "krt_rule_2d", 0, 9},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        rules r = open_rules(table[i].min_groups);
        krt_kernel *k = kt_kernel(r.m, table[i].kernel);
        premise(&r, k);
        if (table[i].want_1d) {
            int n = sweep_1d(k);
            cr_assert_eq(n, table[i].want_1d, "%s, min_groups %u: %d shapes over the 1-D sweep, expected %d",
                         table[i].kernel, table[i].min_groups, n, table[i].want_1d);
            cr_assert_leq(n, 12);
        }
        if (table[i].want_2d) {
            int n = sweep_2d(k);
            cr_assert_eq(n, table[i].want_2d, "%s, min_groups %u: %d shapes over the n x n sweep, expected %d",
                         table[i].kernel, table[i].min_groups, n, table[i].want_2d);
            cr_assert_leq(n, 12);
        }
        close_rules(&r);
    }
}

/* ---- the launch runs what the rule says, tails masked ---- */

Test(launch_rules, launches_use_the_rule_and_run_exactly_the_range)
{
    rules r = open_rules(0);
    const char *kernels[] = {"krt_rule_plain", "krt_rule_barrier_arg", "krt_rule_barrier_static",
                             "krt_rule_barrier_callee"};
    const uint32_t sizes[] = {5, 1000, 10007, 65521};
    uint32_t *out = kt_alloc(r.ctx, (65521 + 4096) * 4, KRT_MEMORY_SHARED);
    for (size_t ki = 0; ki < sizeof kernels / sizeof kernels[0]; ki++) {
        krt_kernel *k = kt_kernel(r.m, kernels[ki]);
        krt_kernel_info info;
        KT_OK(krt_kernel_info_get(k, &info));
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            uint32_t n = sizes[si];
            krt_ndrange range = R1(n);
            krt_launch_config c;
            KT_OK(krt_launch_config_get(k, &range, &c));
            memset(out, 0xff, (65521 + 4096) * 4);
            krt_arg args[3];
            uint32_t na = 0;
            args[na++] = KRT_ARG(out);
            if (info.local_args)
                args[na++] = KRT_ARG_LOCAL(c.group[0] * 4);
            args[na++] = KRT_ARG(n);
            krt_launch_desc d = kt_desc1(n, args, na);
            KT_OK(krt_launch_sync(k, &d));
            for (uint32_t i = 0; i < n + 4096; i++)
                cr_assert_eq(out[i], i < n ? kt_local_size_at(n, c.group[0], i) : 0xffffffffu,
                             "%s over %u: item %u wrote %u (group %u)",
                             kernels[ki], n, i, out[i], c.group[0]);
        }
    }
    /* 2-D: every item sees the reported tile, or the real size of a partial last group. */
    krt_kernel *k2 = kt_kernel(r.m, "krt_rule_2d");
    uint32_t nx = 1000, ny = 37;
    krt_ndrange range = R2(nx, ny);
    krt_launch_config c;
    KT_OK(krt_launch_config_get(k2, &range, &c));
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(nx), KRT_ARG(ny)};
    krt_launch_desc d = {.range = range, .args = args, .num_args = 3};
    KT_OK(krt_launch_sync(k2, &d));
    for (uint32_t i = 0; i < nx * ny; i++)
        cr_assert_eq(out[i],
                     kt_local_size_at(nx, c.group[0], i % nx) * 65536 + kt_local_size_at(ny, c.group[1], i / nx) * 256 + 1,
                     "2-D item %u: %u", i, out[i]);
    close_rules(&r);
}

/* The GPU's aim (docs/design.md, step 6): 256 work-items for every kernel without static __local memory, a
 * barrier or not, spread as the 64 x 4 tile in 2-D and 3-D; a kernel with static __local memory keeps the
 * kernel maximum. Written for ze_cuda's figures (preferred multiple 32, maximum 1024); it runs in the GPU run
 * (tools/gpu-test.sh) and skips on any other driver. */
Test(launch_rules, gpu_aims_at_256)
{
    rules r = open_rules(0);
    if (strcmp(r.dev.driver_name, "ze_cuda") != 0) {
        close_rules(&r);
        cr_skip_test("ze_cuda's GPU rule; the default device here is %s's", r.dev.driver_name);
    }
    const row table[] = {
        {"krt_rule_plain", R1(1u << 20), {256, 1, 1}, KRT_LIMIT_SHAPE},
        {"krt_rule_plain", R1(1000003), {256, 1, 1}, KRT_LIMIT_SHAPE},
        {"krt_rule_barrier_arg", R1(1u << 20), {256, 1, 1}, KRT_LIMIT_SHAPE},
        {"krt_rule_barrier_callee", R1(1u << 20), {256, 1, 1}, KRT_LIMIT_SHAPE},
        {"krt_rule_barrier_static", R1(1u << 20), {1024, 1, 1}, KRT_LIMIT_KERNEL_MAX},
        {"krt_rule_2d", R2(1000, 1000), {64, 4, 1}, KRT_LIMIT_SHAPE},
        {"krt_rule_3d", R3(97, 89, 31), {64, 4, 1}, KRT_LIMIT_SHAPE},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        krt_kernel *k = kt_kernel(r.m, table[i].kernel);
        krt_kernel_properties p;
        KT_OK(krt_kernel_properties_get(k, &p));
        cr_assert(p.preferred_multiple == 32 && p.max_group_size == 1024,
                  "premise: preferred multiple 32 and maximum 1024, the device has %u and %u", p.preferred_multiple,
                  p.max_group_size);
        krt_launch_config c;
        KT_OK(krt_launch_config_get(k, &table[i].range, &c));
        cr_assert(c.group[0] == table[i].group[0] && c.group[1] == table[i].group[1] &&
                      c.group[2] == table[i].group[2],
                  "row %zu (%s): group %u x %u x %u, expected %u x %u x %u", i, table[i].kernel, c.group[0],
                  c.group[1], c.group[2], table[i].group[0], table[i].group[1], table[i].group[2]);
        cr_assert_eq(c.limit, table[i].limit, "row %zu (%s): limit %s, expected %s", i, table[i].kernel,
                     krt_limit_name(c.limit), krt_limit_name(table[i].limit));
    }
    close_rules(&r);
}
