/* The launch configuration krt chooses when the caller gives no group size: the spill-aware cap as a table
 * and end to end, required sizes, the preferred multiple, small ranges, 2-D/3-D spreading, and prime ranges
 * with guarded work-items past the end. */
#include <stdlib.h>
#include <string.h>

#include "krt_test.h"

TestSuite(launch_config, .timeout = KT_TEST_TIMEOUT);

#define MIB (1024u * 1024u)

static krt_launch_config config_of(krt_kernel *k, krt_ndrange range)
{
    krt_launch_config c;
    memset(&c, 0xab, sizeof c);
    KT_OK(krt_launch_config_get(k, &range, &c));
    return c;
}

static krt_ndrange r1(uint64_t n) { return (krt_ndrange){1, {n, 0, 0}}; }

/* Checks the invariants every configuration has, whatever decided it. */
static void check_consistent(const krt_launch_config *c, krt_ndrange range, const krt_device_info *dev)
{
    uint32_t dims = range.dims;
    cr_assert_eq(c->dims, dims);
    uint64_t total = 1;
    int masked = 0;
    for (uint32_t d = 0; d < 3; d++) {
        uint64_t size = d < dims ? range.size[d] : 1;
        cr_assert_geq(c->group[d], 1, "group[%u] = 0", d);
        cr_assert_leq(c->group[d], dev->max_group[d], "group[%u] %u over the device's %u", d, c->group[d],
                      dev->max_group[d]);
        cr_assert_eq(c->groups[d], (size + c->group[d] - 1) / c->group[d], "groups[%u] = %u for size %llu and group %u",
                     d, c->groups[d], (unsigned long long)size, c->group[d]);
        masked |= (uint64_t)c->groups[d] * c->group[d] != size;
        total *= c->group[d];
    }
    cr_assert_leq(total, c->max_group_size, "group %u x %u x %u over max %u", c->group[0], c->group[1], c->group[2],
                  c->max_group_size);
    cr_assert_leq(c->max_group_size, dev->max_group_size);
    cr_assert_eq(c->masked, masked, "masked is %d, the groups %s the range", c->masked,
                 masked ? "overrun" : "fit");
}

typedef struct {
    krt_context *ctx;
    krt_module *m;
    krt_kernel *k;
    krt_device_info dev;
} one_kernel;

static one_kernel open_kernel(size_t budget, uint32_t min_groups, const char *module, const char *kernel)
{
    one_kernel o;
    krt_context_desc desc = {.spill_budget = budget, .min_groups = min_groups};
    o.ctx = kt_context(&desc);
    KT_OK(krt_context_device_info(o.ctx, &o.dev));
    o.m = kt_module(o.ctx, module);
    o.k = kt_kernel(o.m, kernel);
    return o;
}

static void close_kernel(one_kernel *o)
{
    krt_module_destroy(o->m);
    krt_context_destroy(o->ctx);
}

/* A range large enough that neither min_groups nor the range itself limits the group. */
#define BIG_RANGE (1u << 24)

/* ---- the spill cap ---- */

static uint32_t spill_of(const char *kernel)
{
    one_kernel o = open_kernel(0, 0, "krt_spill", kernel);
    krt_kernel_properties p;
    KT_OK(krt_kernel_properties_get(o.k, &p));
    close_kernel(&o);
    return p.spill_mem_size;
}

/* The uncapped maximum for the kernel: what the cap starts from. */
static uint32_t max_of(const char *kernel)
{
    one_kernel o = open_kernel(0, 0, "krt_spill", kernel);
    krt_launch_config c = config_of(o.k, r1(BIG_RANGE));
    close_kernel(&o);
    return c.max_group_size;
}

/* The rule: if spill > 0 and gs * spill > budget then gs = max(1, prevpow2(max(1, budget / spill))). */
static uint32_t capped(uint32_t max, uint32_t spill, uint64_t budget)
{
    if (spill == 0 || (uint64_t)max * spill <= budget)
        return max;
    uint64_t q = budget / spill;
    return (uint32_t)kt_prevpow2(q ? q : 1);
}

/* The group the device type aims at for a kernel without static __local memory (launch_config.c, step 5): a
 * GPU's 256 work-items; a CPU device keeps the top of the size set. */
static uint32_t device_aim(const krt_device_info *dev)
{
    return dev->type == KRT_DEVICE_TYPE_CPU || dev->type == KRT_DEVICE_TYPE_HOST ? UINT32_MAX : 256;
}

/* The group of a big range for a kernel of that maximum: the maximum, or the device's aim where it is less. */
static uint32_t aimed(uint32_t max, const krt_device_info *dev)
{
    return max < device_aim(dev) ? max : device_aim(dev);
}

/* want and want_spill_limit as on a CPU; on a GPU a group above its aim is the aim, for the shape's sake. */
static void expect_cap(const char *kernel, uint64_t budget, uint32_t want, int want_spill_limit)
{
    one_kernel o = open_kernel((size_t)budget, 0, "krt_spill", kernel);
    if (want > device_aim(&o.dev)) {
        want = device_aim(&o.dev);
        want_spill_limit = 0;
    }
    krt_launch_config c = config_of(o.k, r1(BIG_RANGE));
    check_consistent(&c, r1(BIG_RANGE), &o.dev);
    cr_assert_eq(c.group[0], want, "%s, budget %llu: group %u, expected %u (spill %u, max %u)", kernel,
                 (unsigned long long)budget, c.group[0], want, c.spill_mem_size, c.max_group_size);
    if (want_spill_limit)
        cr_assert_eq(c.limit, KRT_LIMIT_SPILL, "%s, budget %llu: limit %d", kernel, (unsigned long long)budget,
                     c.limit);
    else
        cr_assert_neq(c.limit, KRT_LIMIT_SPILL, "%s, budget %llu: the cap applied", kernel,
                      (unsigned long long)budget);
    close_kernel(&o);
}

Test(launch_config, spill_zero_is_not_capped)
{
    one_kernel o = open_kernel(0, 0, "krt_spill", "krt_private_none");
    krt_launch_config c = config_of(o.k, r1(BIG_RANGE));
    check_consistent(&c, r1(BIG_RANGE), &o.dev);
    cr_assert_eq(c.spill_mem_size, 0);
    cr_assert_neq(c.limit, KRT_LIMIT_SPILL);
    cr_assert_eq(c.group[0], aimed(c.max_group_size, &o.dev),
                 "a big range without spill gets the maximum (on a GPU, its aim)");
    close_kernel(&o);
    /* Even a one-byte budget does not cap a kernel that does not spill. */
    expect_cap("krt_private_none", 1, max_of("krt_private_none"), 0);
}

/* The worked example: 3648 bytes of spill per item at 1024 items is 3.7 MB; 1 MiB / 3648 = 287, so 256. */
Test(launch_config, spill_3648_gives_256)
{
    kt_skip_on_host("static __local arrays are thread-local data of the native library and private arrays live on the host stack, so the host device reports no local, private or spill memory per kernel");
    uint32_t s = spill_of("krt_private_3648"), max = max_of("krt_private_3648");
    cr_assert_gt(s, 0, "krt_private_3648 reports no spill");
    cr_assert_gt(max, 287, "the kernel's maximum group %u is below the example's", max);
    /* With the driver's own figure the same ratio comes from a budget of 287.5 items' worth; when the driver
     * reports exactly 3648 that budget is the default 1 MiB. */
    uint64_t budget = s == 3648 ? 0 : 287ull * s + s / 2;
    expect_cap("krt_private_3648", budget, 256, 1);
    if (s == 3648)
        cr_assert_eq(capped(1024, 3648, MIB), 256);
}

Test(launch_config, spill_exactly_at_the_budget_is_not_capped)
{
    kt_skip_on_host("static __local arrays are thread-local data of the native library and private arrays live on the host stack, so the host device reports no local, private or spill memory per kernel");
    uint32_t s = spill_of("krt_private_3648"), max = max_of("krt_private_3648");
    cr_assert_gt(s, 0);
    expect_cap("krt_private_3648", (uint64_t)max * s, max, 0);
    /* One byte less and the cap halves the group (the next power of two down). */
    expect_cap("krt_private_3648", (uint64_t)max * s - 1, (uint32_t)kt_prevpow2(max - 1), 1);
}

Test(launch_config, spill_above_the_whole_budget_gives_1)
{
    kt_skip_on_host("static __local arrays are thread-local data of the native library and private arrays live on the host stack, so the host device reports no local, private or spill memory per kernel");
    uint32_t s = spill_of("krt_private_3648");
    cr_assert_gt(s, 1);
    expect_cap("krt_private_3648", s - 1, 1, 1);
    expect_cap("krt_private_3648", 1, 1, 1);
    uint32_t s16 = spill_of("krt_private_16k");
    cr_assert_gt(s16, 1);
    expect_cap("krt_private_16k", s16 / 2, 1, 1);
}

Test(launch_config, spill_cap_table)
{
    kt_skip_on_host("static __local arrays are thread-local data of the native library and private arrays live on the host stack, so the host device reports no local, private or spill memory per kernel");
    uint32_t s = spill_of("krt_private_3648"), max = max_of("krt_private_3648");
    cr_assert_gt(s, 0);
    const uint64_t budgets[] = {s, 2ull * s, 3ull * s, 5ull * s + 1, 100ull * s, 1000ull * s, MIB, 2 * MIB,
                                (uint64_t)max * s + 1, (uint64_t)max * s * 4};
    for (size_t i = 0; i < sizeof budgets / sizeof budgets[0]; i++) {
        uint32_t want = capped(max, s, budgets[i]);
        expect_cap("krt_private_3648", budgets[i], want, want != max);
    }
}

static uint32_t host_private_16k(uint32_t i, uint32_t seed)
{
    /* j * seed (mod 4096) is a permutation for an odd seed, so every slot x holds i + x * seed. */
    uint32_t s = 0;
    for (uint32_t x = 0; x < 4096; x++)
        s += i + x * seed;
    return s;
}

/* A kernel with a large private array gets a capped group on ze_pocl and computes the right result. */
Test(launch_config, spill_end_to_end)
{
    kt_skip_on_host("static __local arrays are thread-local data of the native library and private arrays live on the host stack, so the host device reports no local, private or spill memory per kernel");
    one_kernel o = open_kernel(0, 0, "krt_spill", "krt_private_16k");
    krt_kernel_properties p;
    KT_OK(krt_kernel_properties_get(o.k, &p));
    cr_assert_gt(p.spill_mem_size, 0, "a 16 KiB private array does not spill");
    const uint32_t n = 3001;
    krt_launch_config c = config_of(o.k, r1(n));
    check_consistent(&c, r1(n), &o.dev);
    cr_assert_eq(c.spill_mem_size, p.spill_mem_size);
    uint32_t items = c.group[0] * c.group[1] * c.group[2];
    cr_assert((uint64_t)items * p.spill_mem_size <= MIB || items == 1,
              "group %u x spill %u is over the 1 MiB budget", items, p.spill_mem_size);
    uint32_t *out = kt_alloc(o.ctx, n * 4, KRT_MEMORY_SHARED);
    uint32_t nn = n, seed = 5;
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(nn), KRT_ARG(seed)};
    krt_launch_desc d = kt_desc1(n, args, 3);
    KT_OK(krt_launch_sync(o.k, &d));
    const uint32_t base = host_private_16k(0, seed);
    for (uint32_t i = 0; i < n; i++)
        cr_assert_eq(out[i], base + 4096u * i, "item %u: %u", i, out[i]);
    close_kernel(&o);
}

Test(launch_config, spill_3648_end_to_end)
{
    one_kernel o = open_kernel(0, 0, "krt_spill", "krt_private_3648");
    const uint32_t n = 10007;
    uint32_t *out = kt_alloc(o.ctx, n * 4, KRT_MEMORY_SHARED);
    uint32_t nn = n, seed = 5;
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(nn), KRT_ARG(seed)};
    krt_launch_desc d = kt_desc1(n, args, 3);
    KT_OK(krt_launch_sync(o.k, &d));
    for (uint32_t i = 0; i < n; i++)
        cr_assert_eq(out[i], 912u * i + 911u * 912u / 2u, "item %u: %u", i, out[i]);
    close_kernel(&o);
}

/* ---- required sizes, preferred multiple, small ranges ---- */

Test(launch_config, required_size_obeyed_exactly)
{
    one_kernel o = open_kernel(0, 0, "krt_basic", "krt_reqd64");
    const uint64_t sizes[] = {1, 7, 64, 1000, 1u << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        krt_launch_config c = config_of(o.k, r1(sizes[i]));
        check_consistent(&c, r1(sizes[i]), &o.dev);
        cr_assert_eq(c.group[0], 64, "range %llu: group %u", (unsigned long long)sizes[i], c.group[0]);
        cr_assert_eq(c.group[1], 1);
        cr_assert_eq(c.group[2], 1);
        cr_assert_eq(c.limit, KRT_LIMIT_REQUIRED);
    }
    krt_kernel *k2 = kt_kernel(o.m, "krt_reqd16x2");
    krt_ndrange r = {2, {100, 9, 0}};
    krt_launch_config c = config_of(k2, r);
    check_consistent(&c, r, &o.dev);
    cr_assert_eq(c.group[0], 16);
    cr_assert_eq(c.group[1], 2);
    cr_assert_eq(c.group[2], 1);
    cr_assert_eq(c.groups[0], 7);
    cr_assert_eq(c.groups[1], 5);
    cr_assert_eq(c.masked, 1);
    cr_assert_eq(c.limit, KRT_LIMIT_REQUIRED);
    /* And the launch runs it so: every item sees 16 x 2, or the real size of a partial last group. */
    uint32_t nx = 100, ny = 9;
    uint32_t *out = kt_alloc(o.ctx, nx * ny * 4, KRT_MEMORY_SHARED);
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(nx), KRT_ARG(ny)};
    krt_launch_desc d = {.range = r, .args = args, .num_args = 3};
    KT_OK(krt_launch_sync(k2, &d));
    for (uint32_t i = 0; i < nx * ny; i++)
        cr_assert_eq(out[i], kt_local_size_at(nx, 16, i % nx) * 100 + kt_local_size_at(ny, 2, i / nx),
                     "item %u saw %u", i, out[i]);
    close_kernel(&o);
}

Test(launch_config, preferred_multiple_honoured)
{
    one_kernel o = open_kernel(0, 0, "krt_basic", "krt_vadd");
    krt_kernel_properties p;
    KT_OK(krt_kernel_properties_get(o.k, &p));
    const uint64_t sizes[] = {1000, 4099, 10007, 100000, 1u << 20, 1000003};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        krt_launch_config c = config_of(o.k, r1(sizes[i]));
        check_consistent(&c, r1(sizes[i]), &o.dev);
        cr_assert_eq(c.preferred_multiple, p.preferred_multiple);
        if (sizes[i] >= 16ull * p.preferred_multiple)
            cr_assert_eq(c.group[0] % p.preferred_multiple, 0, "range %llu: group %u is not a multiple of %u",
                         (unsigned long long)sizes[i], c.group[0], p.preferred_multiple);
    }
    close_kernel(&o);
}

/* min_groups as the caller sets it (on a CPU device the default, 0, does not split small ranges:
 * test_launch_rules.c). */
Test(launch_config, small_ranges_give_min_groups)
{
    one_kernel o = open_kernel(0, 16, "krt_basic", "krt_vadd");
    krt_kernel_properties p;
    KT_OK(krt_kernel_properties_get(o.k, &p));
    const uint64_t n = 256ull * p.preferred_multiple;
    krt_launch_config c = config_of(o.k, r1(n));
    check_consistent(&c, r1(n), &o.dev);
    cr_assert_geq(c.groups[0], 16, "range %llu split into %u groups", (unsigned long long)n, c.groups[0]);
    if ((uint64_t)aimed(c.max_group_size, &o.dev) * 16 > n)
        cr_assert_eq(c.limit, KRT_LIMIT_MIN_GROUPS);
    close_kernel(&o);

    /* The context's own min_groups. */
    o = open_kernel(0, 64, "krt_basic", "krt_vadd");
    const uint64_t n2 = 64ull * 4 * p.preferred_multiple;
    c = config_of(o.k, r1(n2));
    check_consistent(&c, r1(n2), &o.dev);
    cr_assert_geq(c.groups[0], 64, "range %llu split into %u groups with min_groups 64", (unsigned long long)n2,
                  c.groups[0]);
    cr_assert_eq(c.limit, KRT_LIMIT_MIN_GROUPS);
    /* A large range is not shrunk. */
    c = config_of(o.k, r1(BIG_RANGE));
    cr_assert_eq(c.group[0], aimed(c.max_group_size, &o.dev));
    cr_assert_neq(c.limit, KRT_LIMIT_MIN_GROUPS);
    close_kernel(&o);
}

/* With min_groups 1 a range that fits in one group of the size set gets one group, and the range is the limit;
 * the group is a member of the set (a multiple of the preferred multiple), so a range that is not one is
 * masked. */
Test(launch_config, whole_range_in_one_group)
{
    one_kernel o = open_kernel(0, 1, "krt_basic", "krt_count3");
    krt_launch_config big = config_of(o.k, r1(BIG_RANGE));
    const uint32_t pm = big.preferred_multiple;
    /* The largest one group: the maximum, on a GPU its aim of 256. */
    const uint32_t top = aimed(big.max_group_size, &o.dev);
    const krt_ndrange ranges[] = {{1, {1, 0, 0}},   {1, {pm - 1 ? pm - 1 : 1, 0, 0}}, {1, {pm, 0, 0}},
                                  {1, {top, 0, 0}}, {2, {pm, 1, 0}},                {3, {pm, 1, 1}}};
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
        krt_launch_config c = config_of(o.k, ranges[i]);
        check_consistent(&c, ranges[i], &o.dev);
        cr_assert(c.groups[0] == 1 && c.groups[1] == 1 && c.groups[2] == 1, "range %zu: %u x %u x %u groups", i,
                  c.groups[0], c.groups[1], c.groups[2]);
        cr_assert_eq(c.limit, KRT_LIMIT_NONE, "range %zu: limit %d", i, c.limit);
        cr_assert_eq(c.group[0] % pm, 0, "range %zu: group %u is not from the set", i, c.group[0]);
        cr_assert_eq(c.masked, c.group[0] != ranges[i].size[0], "range %zu: masked %d", i, c.masked);
    }
    /* One more item than that needs two groups. */
    krt_launch_config c = config_of(o.k, r1((uint64_t)top + 1));
    cr_assert_geq(c.groups[0], 2);
    cr_assert_neq(c.limit, KRT_LIMIT_NONE);
    close_kernel(&o);
}

/* ---- dimensions ---- */

/* The 3-D tile on a CPU device (docs/design.md): 1024 items, x up to 64, y up to 4, z the rest. ze_pocl's
 * figures (preferred multiple 8, maximum 4096) are the premise of the expected shape. */
Test(launch_config, spreading_over_3d)
{
    one_kernel o = open_kernel(0, 0, "krt_basic", "krt_count3");
    krt_ndrange r = {3, {64, 64, 64}};
    krt_launch_config c = config_of(o.k, r);
    check_consistent(&c, r, &o.dev);
    if (o.dev.type != KRT_DEVICE_TYPE_CPU)
        cr_skip_test("the CPU device's 3-D tile; the default device here is not a CPU");
    cr_assert(c.max_group_size == 4096 && c.preferred_multiple == 8, "premise: max %u, multiple %u",
              c.max_group_size, c.preferred_multiple);
    cr_assert(c.group[0] == 64 && c.group[1] == 4 && c.group[2] == 4, "(64,64,64) gave (%u,%u,%u), expected (64,4,4)",
              c.group[0], c.group[1], c.group[2]);
    cr_assert_eq(c.limit, KRT_LIMIT_SHAPE);
    /* Every item runs once. */
    uint32_t nx = 64, ny = 64, nz = 64;
    uint32_t *hits = kt_alloc(o.ctx, nx * ny * nz * 4, KRT_MEMORY_SHARED);
    memset(hits, 0, nx * ny * nz * 4);
    krt_arg args[] = {KRT_ARG(hits), KRT_ARG(nx), KRT_ARG(ny), KRT_ARG(nz)};
    krt_launch_desc d = {.range = r, .args = args, .num_args = 4};
    KT_OK(krt_launch_sync(o.k, &d));
    for (uint32_t i = 0; i < nx * ny * nz; i++)
        cr_assert_eq(hits[i], 1, "item %u ran %u times", i, hits[i]);
    close_kernel(&o);
}

Test(launch_config, spreading_over_2d_and_odd_shapes)
{
    one_kernel o = open_kernel(0, 0, "krt_basic", "krt_count3");
    const krt_ndrange ranges[] = {{2, {1000, 3, 0}}, {2, {5, 3000, 0}}, {3, {3, 5, 7000}}, {2, {1009, 997, 0}}};
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
        krt_ndrange r = ranges[i];
        krt_launch_config c = config_of(o.k, r);
        check_consistent(&c, r, &o.dev);
        /* A dimension's group is at most its range rounded up to a power of two (x: at least the preferred
         * multiple, which carries the size set's base). */
        for (uint32_t d = 0; d < r.dims; d++)
            cr_assert(c.group[d] <= kt_nextpow2(r.size[d]) || (d == 0 && c.group[d] == c.preferred_multiple),
                      "range %zu: group[%u] = %u larger than its dimension rounded up", i, d, c.group[d]);
        cr_assert_gt(c.group[0] * c.group[1] * c.group[2], 1, "range %zu got a group of 1", i);
        uint32_t nx = (uint32_t)r.size[0], ny = (uint32_t)r.size[1], nz = r.dims == 3 ? (uint32_t)r.size[2] : 1;
        uint32_t *hits = kt_alloc(o.ctx, (size_t)nx * ny * nz * 4, KRT_MEMORY_SHARED);
        memset(hits, 0, (size_t)nx * ny * nz * 4);
        krt_arg args[] = {KRT_ARG(hits), KRT_ARG(nx), KRT_ARG(ny), KRT_ARG(nz)};
        krt_launch_desc d = {.range = r, .args = args, .num_args = 4};
        KT_OK(krt_launch_sync(o.k, &d));
        for (uint32_t j = 0; j < nx * ny * nz; j++)
            cr_assert_eq(hits[j], 1, "range %zu item %u ran %u times", i, j, hits[j]);
        KT_OK(krt_free(o.ctx, hits));
    }
    close_kernel(&o);
}

/* The launch really uses the configuration krt_launch_config_get reports. */
Test(launch_config, launch_uses_the_reported_configuration)
{
    one_kernel o = open_kernel(0, 0, "krt_basic", "krt_shape");
    const krt_ndrange ranges[] = {{1, {100000, 0, 0}}, {1, {1000, 0, 0}}, {2, {300, 200, 0}}, {3, {64, 64, 64}},
                                  {1, {1000003, 0, 0}}};
    uint32_t *out = kt_alloc(o.ctx, 7 * 4, KRT_MEMORY_SHARED);
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
        krt_launch_config c = config_of(o.k, ranges[i]);
        memset(out, 0, 7 * 4);
        krt_arg args[] = {KRT_ARG(out)};
        krt_launch_desc d = {.range = ranges[i], .args = args, .num_args = 1};
        KT_OK(krt_launch_sync(o.k, &d));
        for (int dd = 0; dd < 3; dd++) {
            uint64_t size = dd < (int)ranges[i].dims ? ranges[i].size[dd] : 1;
            cr_assert_eq(out[dd], kt_local_size_at(size, c.group[dd], 0),
                         "range %zu: the launch used local size %u in dim %d, config says %u", i, out[dd], dd,
                         c.group[dd]);
            cr_assert_eq(out[3 + dd], c.groups[dd], "range %zu: %u groups in dim %d, config says %u", i,
                         out[3 + dd], dd, c.groups[dd]);
        }
        cr_assert_eq(out[6], ranges[i].dims);
        /* Asked again, the same answer. */
        krt_launch_config again = config_of(o.k, ranges[i]);
        cr_assert_arr_eq(again.group, c.group, sizeof c.group);
        cr_assert_eq(again.limit, c.limit);
    }
    close_kernel(&o);
}

/* ---- primes ---- */

Test(launch_config, prime_ranges_never_give_group_1)
{
    one_kernel o = open_kernel(0, 0, "krt_basic", "krt_count1");
    const uint32_t primes[] = {1009, 7919, 65537, 1000003};
    for (size_t i = 0; i < sizeof primes / sizeof primes[0]; i++) {
        uint32_t n = primes[i];
        krt_launch_config c = config_of(o.k, r1(n));
        check_consistent(&c, r1(n), &o.dev);
        cr_assert_gt(c.group[0], 1, "prime %u collapsed to group size 1", n);
        cr_assert_eq(c.masked, 1);
        uint64_t covered = (uint64_t)c.groups[0] * c.group[0];
        uint32_t *hits = kt_alloc(o.ctx, covered * 4, KRT_MEMORY_SHARED);
        memset(hits, 0, covered * 4);
        uint32_t nn = n;
        krt_arg args[] = {KRT_ARG(hits), KRT_ARG(nn)};
        krt_launch_desc d = kt_desc1(n, args, 2);
        KT_OK(krt_launch_sync(o.k, &d));
        for (uint64_t j = 0; j < covered; j++)
            cr_assert_eq(hits[j], j < n ? 1u : 0u, "prime %u: item %llu ran %u times", n, (unsigned long long)j,
                         hits[j]);
        KT_OK(krt_free(o.ctx, hits));
    }
    close_kernel(&o);
}

/* Primes in the second and third dimensions, with the other dimensions 1 or tiny. */
Test(launch_config, prime_ranges_in_higher_dimensions)
{
    one_kernel o = open_kernel(0, 0, "krt_basic", "krt_count3");
    const krt_ndrange ranges[] = {{3, {1, 1, 100003}}, {3, {3, 1, 99991}}, {2, {1, 65537, 0}}, {3, {1, 7919, 2}}};
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
        krt_ndrange r = ranges[i];
        krt_launch_config c = config_of(o.k, r);
        check_consistent(&c, r, &o.dev);
        cr_assert_gt((uint64_t)c.group[0] * c.group[1] * c.group[2], 1, "range %zu collapsed to one item", i);
        uint32_t nx = (uint32_t)r.size[0], ny = (uint32_t)r.size[1], nz = r.dims == 3 ? (uint32_t)r.size[2] : 1;
        size_t total = (size_t)nx * ny * nz;
        uint32_t *hits = kt_alloc(o.ctx, total * 4, KRT_MEMORY_SHARED);
        memset(hits, 0, total * 4);
        krt_arg args[] = {KRT_ARG(hits), KRT_ARG(nx), KRT_ARG(ny), KRT_ARG(nz)};
        krt_launch_desc d = {.range = r, .args = args, .num_args = 4};
        KT_OK(krt_launch_sync(o.k, &d));
        for (size_t j = 0; j < total; j++)
            cr_assert_eq(hits[j], 1, "range %zu item %zu ran %u times", i, j, hits[j]);
        KT_OK(krt_free(o.ctx, hits));
    }
    close_kernel(&o);
}

Test(launch_config, prime_range_result_is_right)
{
    one_kernel o = open_kernel(0, 0, "krt_basic", "krt_vadd");
    const uint32_t n = 1000003;
    float *a = kt_alloc(o.ctx, n * 4, KRT_MEMORY_SHARED), *b = kt_alloc(o.ctx, n * 4, KRT_MEMORY_SHARED);
    /* c has room for a whole extra group after the range, filled with a marker the kernel must not touch. */
    krt_launch_config cfg = config_of(o.k, r1(n));
    cr_assert_gt(cfg.group[0], 1);
    size_t cn = (size_t)cfg.groups[0] * cfg.group[0];
    float *c = kt_alloc(o.ctx, cn * 4, KRT_MEMORY_SHARED);
    for (uint32_t i = 0; i < n; i++) {
        a[i] = (float)(i % 1024);
        b[i] = 3.0f;
    }
    for (size_t i = 0; i < cn; i++)
        c[i] = -7.0f;
    uint32_t nn = n;
    krt_arg args[] = {KRT_ARG(a), KRT_ARG(b), KRT_ARG(c), KRT_ARG(nn)};
    krt_launch_desc d = kt_desc1(n, args, 4);
    KT_OK(krt_launch_sync(o.k, &d));
    for (size_t i = 0; i < cn; i++)
        cr_assert_eq(c[i], i < n ? (float)(i % 1024) + 3.0f : -7.0f, "item %zu is %f", i, (double)c[i]);
    close_kernel(&o);
}

/* Sizes of unused dimensions are ignored: a 1-D range with junk in size[1] and size[2] is still 1-D. */
Test(launch_config, unused_dimensions_are_ignored)
{
    one_kernel o = open_kernel(0, 0, "krt_basic", "krt_count3");
    krt_ndrange clean = {1, {1000, 0, 0}}, junk = {1, {1000, 7, 9}};
    krt_launch_config a = config_of(o.k, clean), b = config_of(o.k, junk);
    cr_assert_arr_eq(b.group, a.group, sizeof a.group);
    cr_assert_arr_eq(b.groups, a.groups, sizeof a.groups);
    cr_assert_eq(b.groups[1], 1);
    cr_assert_eq(b.groups[2], 1);
    /* Launched, only the 1000 items of the first row run. */
    uint32_t nx = 1000, ny = 7, nz = 9;
    uint32_t *hits = kt_alloc(o.ctx, nx * ny * nz * 4, KRT_MEMORY_SHARED);
    memset(hits, 0, nx * ny * nz * 4);
    krt_arg args[] = {KRT_ARG(hits), KRT_ARG(nx), KRT_ARG(ny), KRT_ARG(nz)};
    krt_launch_desc d = {.range = junk, .args = args, .num_args = 4};
    KT_OK(krt_launch_sync(o.k, &d));
    for (uint32_t i = 0; i < nx * ny * nz; i++)
        cr_assert_eq(hits[i], i < nx ? 1u : 0u, "item %u ran %u times", i, hits[i]);
    /* dims 0 takes the highest non-zero dimension; a zero below it makes the range empty. */
    krt_ndrange hole = {0, {10, 0, 5}};
    krt_launch_config c;
    KT_EXPECT(krt_launch_config_get(o.k, &hole, &c), KRT_ERROR_INVALID_NDRANGE);
    krt_ndrange two = {0, {300, 4, 0}};
    c = config_of(o.k, two);
    cr_assert_eq(c.dims, 2);
    close_kernel(&o);
}

/* Many ranges memoized side by side: each keeps its own configuration and runs right. */
Test(launch_config, many_ranges_memoized_apart)
{
    one_kernel o = open_kernel(0, 0, "krt_basic", "krt_count1");
    enum { RANGES = 300 };
    const uint32_t cap = 18241 + 4096; /* the largest range plus a masked group of the largest size */
    uint32_t *hits = kt_alloc(o.ctx, cap * 4, KRT_MEMORY_SHARED);
    krt_launch_config first[RANGES];
    for (int pass = 0; pass < 2; pass++)
        for (int r = 0; r < RANGES; r++) {
            /* Different sizes in a scattered order, including ones equal modulo powers of two. */
            uint32_t n = 1 + (uint32_t)((r * 7919 + pass * 13) % RANGES) * 61;
            int idx = (int)((n - 1) / 61);
            krt_launch_config c = config_of(o.k, r1(n));
            if (pass == 0)
                first[idx] = c; /* 7919 is prime to RANGES, so every idx comes once per pass */
            check_consistent(&c, r1(n), &o.dev);
            uint64_t covered = (uint64_t)c.groups[0] * c.group[0];
            cr_assert_leq(covered, cap);
            memset(hits, 0, covered * 4);
            uint32_t nn = n;
            krt_arg args[] = {KRT_ARG(hits), KRT_ARG(nn)};
            krt_launch_desc d = kt_desc1(n, args, 2);
            KT_OK(krt_launch_sync(o.k, &d));
            for (uint64_t j = 0; j < covered; j++)
                cr_assert_eq(hits[j], j < n ? 1u : 0u, "range %u: item %llu ran %u times", n,
                             (unsigned long long)j, hits[j]);
        }
    /* The memo answers as it did the first time. */
    for (int i = 0; i < RANGES; i++) {
        uint32_t n = 1 + (uint32_t)i * 61;
        krt_launch_config c = config_of(o.k, r1(n));
        cr_assert_eq(first[i].dims, 1, "range %u was never visited", n);
        cr_assert_arr_eq(c.group, first[i].group, sizeof c.group, "range %u changed", n);
    }
    close_kernel(&o);
}

/* Kernels written with the guard helpers of kernels/include/krt_kernel.h, over prime ranges. */
Test(launch_config, guard_helpers_over_prime_ranges)
{
    one_kernel o = open_kernel(0, 0, "krt_guarded", "krt_guard1");
    krt_kernel *k2 = kt_kernel(o.m, "krt_guard2"), *k3 = kt_kernel(o.m, "krt_guard3");
    const uint32_t nx = 101, ny = 53, nz = 7;
    uint32_t *hits = kt_alloc(o.ctx, 1000003 * 4, KRT_MEMORY_SHARED);
    memset(hits, 0, 1000003 * 4);
    uint32_t n = 1000003;
    krt_arg a1[] = {KRT_ARG(hits), KRT_ARG(n)};
    krt_launch_desc d1 = kt_desc1(n, a1, 2);
    KT_OK(krt_launch_sync(o.k, &d1));
    for (uint32_t i = 0; i < n; i++)
        cr_assert_eq(hits[i], 1, "1-D item %u ran %u times", i, hits[i]);
    memset(hits, 0, nx * ny * 4);
    krt_arg a2[] = {KRT_ARG(hits), KRT_ARG(nx), KRT_ARG(ny)};
    krt_launch_desc d2 = {.range = {2, {nx, ny, 0}}, .args = a2, .num_args = 3};
    KT_OK(krt_launch_sync(k2, &d2));
    for (uint32_t i = 0; i < nx * ny; i++)
        cr_assert_eq(hits[i], 1, "2-D item %u ran %u times", i, hits[i]);
    memset(hits, 0, nx * ny * nz * 4);
    krt_arg a3[] = {KRT_ARG(hits), KRT_ARG(nx), KRT_ARG(ny), KRT_ARG(nz)};
    krt_launch_desc d3 = {.range = {3, {nx, ny, nz}}, .args = a3, .num_args = 4};
    KT_OK(krt_launch_sync(k3, &d3));
    for (uint32_t i = 0; i < nx * ny * nz; i++)
        cr_assert_eq(hits[i], 1, "3-D item %u ran %u times", i, hits[i]);
    close_kernel(&o);
}

/* A guarded barrier kernel (krt_in_range_1d) stays right: its guards are harmless, and its neighbour within the
 * group wraps at the real size of the partial last group. */
Test(launch_config, guarded_barrier_kernel)
{
    one_kernel o = open_kernel(0, 0, "krt_guarded", "krt_guard_barrier");
    const uint32_t n = 10007;
    krt_launch_config c = config_of(o.k, r1(n));
    cr_assert_gt(c.group[0], 1);
    int32_t *in = kt_alloc(o.ctx, n * 4, KRT_MEMORY_SHARED), *out = kt_alloc(o.ctx, n * 4, KRT_MEMORY_SHARED);
    for (uint32_t i = 0; i < n; i++)
        in[i] = (int32_t)(i * 3 + 1);
    uint32_t nn = n;
    krt_arg args[] = {KRT_ARG(in), KRT_ARG(out), KRT_ARG_LOCAL(c.group[0] * 4), KRT_ARG(nn)};
    krt_launch_desc d = kt_desc1(n, args, 4);
    KT_OK(krt_launch_sync(o.k, &d));
    const uint32_t g = c.group[0];
    for (uint32_t i = 0; i < n; i++) {
        uint32_t l = i % g, next = i - l + (l + 1) % kt_local_size_at(n, g, i);
        int32_t want = in[i] + in[next];
        cr_assert_eq(out[i], want, "item %u: %d, expected %d", i, out[i], want);
    }
    close_kernel(&o);
}

/* The debug flag changes how often krt asks, never the answer. */
Test(launch_config, no_memo_gives_the_same_configurations)
{
    one_kernel a = open_kernel(0, 0, "krt_basic", "krt_count3");
    krt_context_desc desc = {.flags = KRT_CONTEXT_FLAG_NO_MEMO};
    krt_context *ctx = kt_context(&desc);
    krt_module *m = kt_module(ctx, "krt_basic");
    krt_kernel *k = kt_kernel(m, "krt_count3");
    const krt_ndrange ranges[] = {{1, {1000003, 0, 0}}, {1, {1000, 0, 0}}, {2, {300, 200, 0}}, {3, {64, 64, 64}},
                                  {1, {17, 0, 0}}};
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
        for (int rep = 0; rep < 2; rep++) {
            krt_launch_config x = config_of(a.k, ranges[i]), y = config_of(k, ranges[i]);
            cr_assert_arr_eq(y.group, x.group, sizeof x.group, "range %zu", i);
            cr_assert_arr_eq(y.groups, x.groups, sizeof x.groups, "range %zu", i);
            cr_assert_eq(y.limit, x.limit, "range %zu", i);
            cr_assert_eq(y.max_group_size, x.max_group_size);
        }
    krt_module_destroy(m);
    krt_context_destroy(ctx);
    close_kernel(&a);
}

/* Launches of one kernel over ranges with different group sizes, back to back without waiting: each runs with
 * its own group size, whatever the kernel's driver state was left at by the one before. */
Test(launch_config, alternating_ranges_keep_their_group_sizes)
{
    kt_skip_on_host("its kernels (krt_reflect, krt_misc) use vector types that the C side of the kernels does not compile");
    /* min_groups 16: the sizes then differ between these ranges (the CPU default gives every range one size). */
    one_kernel o = open_kernel(0, 16, "krt_misc", "krt_lsize");
    const uint32_t sizes[4] = {1000, 100000, 4096, 10007};
    krt_launch_config cfg[4];
    uint32_t *outs[4][3];
    for (int s = 0; s < 4; s++) {
        cfg[s] = config_of(o.k, r1(sizes[s]));
        for (int rep = 0; rep < 3; rep++)
            outs[s][rep] = kt_alloc(o.ctx, sizes[s] * 4, KRT_MEMORY_SHARED);
    }
    cr_assert(cfg[0].group[0] != cfg[1].group[0] || cfg[1].group[0] != cfg[2].group[0],
              "the sizes chosen do not differ, the test proves nothing");
    for (int rep = 0; rep < 3; rep++)
        for (int s = 0; s < 4; s++) {
            uint32_t n = sizes[s];
            krt_arg args[] = {KRT_ARG(outs[s][rep]), KRT_ARG(n)};
            krt_launch_desc d = kt_desc1(n, args, 2);
            /* Every other launch gives a static size instead. */
            if ((rep + s) % 2)
                d.group[0] = 32u << s;
            KT_OK(krt_launch(o.k, &d));
        }
    KT_OK(krt_context_synchronize(o.ctx));
    for (int rep = 0; rep < 3; rep++)
        for (int s = 0; s < 4; s++) {
            uint32_t group = (rep + s) % 2 ? 32u << s : cfg[s].group[0];
            for (uint32_t i = 0; i < sizes[s]; i++)
                cr_assert_eq(outs[s][rep][i], kt_local_size_at(sizes[s], group, i),
                             "range %u pass %d item %u ran in a group of %u, group %u", sizes[s], rep, i,
                             outs[s][rep][i], group);
        }
    close_kernel(&o);
}

/* A 2-D required size on a 1-D range: each group is partial in its second dimension (1 of 2 rows), and the
 * last one in its first too. */
Test(launch_config, required_2d_size_on_a_1d_range)
{
    one_kernel o = open_kernel(0, 0, "krt_basic", "krt_reqd16x2");
    krt_launch_config c = config_of(o.k, r1(100));
    cr_assert_eq(c.group[0], 16);
    cr_assert_eq(c.group[1], 2);
    cr_assert_eq(c.group[2], 1);
    cr_assert_eq(c.groups[0], 7);
    cr_assert_eq(c.groups[1], 1);
    cr_assert_eq(c.masked, 1);
    uint32_t nx = 100, ny = 1;
    uint32_t *out = kt_alloc(o.ctx, 200 * 4, KRT_MEMORY_SHARED);
    memset(out, 0, 200 * 4);
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(nx), KRT_ARG(ny)};
    krt_launch_desc d = kt_desc1(100, args, 3);
    KT_OK(krt_launch_sync(o.k, &d));
    for (uint32_t i = 0; i < 200; i++)
        cr_assert_eq(out[i], i < 100 ? kt_local_size_at(100, 16, i) * 100 + 1 : 0u, "item %u: %u", i, out[i]);
    close_kernel(&o);
}

Test(launch_config, bad_arguments)
{
    one_kernel o = open_kernel(0, 0, "krt_basic", "krt_vadd");
    krt_ndrange r = r1(100);
    krt_launch_config c;
    KT_EXPECT(krt_launch_config_get(NULL, &r, &c), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_launch_config_get(o.k, NULL, &c), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_launch_config_get(o.k, &r, NULL), KRT_ERROR_INVALID_ARGUMENT);
    c = config_of(o.k, r);
    check_consistent(&c, r, &o.dev);
    close_kernel(&o);
}

/* Ranges near 2^64 need more groups than any device allows, whatever min_groups and the group size: the
 * group arithmetic must not wrap around (on a 16-core PoCL 5.0 it once divided by a zero group count and
 * killed the process). */
Test(launch_config, huge_ranges_are_refused_for_any_min_groups)
{
    const uint32_t min_groups[] = {0, 1, 2, 3, 16, 64, 1000};
    const uint64_t sizes[] = {UINT64_MAX, UINT64_MAX - 1, UINT64_MAX - 4095, (1ull << 63) + 1, 1ull << 63};
    for (size_t m = 0; m < sizeof min_groups / sizeof min_groups[0]; m++) {
        one_kernel o = open_kernel(0, min_groups[m], "krt_basic", "krt_vadd");
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            krt_ndrange r = r1(sizes[i]);
            krt_launch_config c;
            KT_EXPECT(krt_launch_config_get(o.k, &r, &c), KRT_ERROR_INVALID_NDRANGE);
            krt_ndrange r3 = {3, {1, 1, sizes[i]}};
            KT_EXPECT(krt_launch_config_get(o.k, &r3, &c), KRT_ERROR_INVALID_NDRANGE);
        }
        close_kernel(&o);
    }
}
