/* The launch path's shortcuts and preferences:
 *  - the warm-launch record: a launch whose arguments are byte-identical to the last fully checked launch of
 *    the kernel skips the per-argument work, with every result exactly as the full checks give it;
 *  - the kernel's work_group_size_hint as the dynamic configuration's preferred shape.
 * Every test checks computed data or exact result codes. */
#include <stdlib.h>
#include <string.h>

#include "krt_test.h"

TestSuite(launch_hint, .timeout = KT_TEST_TIMEOUT);

typedef struct {
    krt_context *ctx;
    krt_module *m;
} fixture;

static fixture setup(void)
{
    fixture f;
    f.ctx = kt_context(NULL);
    f.m = kt_module(f.ctx, "krt_basic");
    return f;
}

static void teardown(fixture *f)
{
    krt_module_destroy(f->m);
    krt_context_destroy(f->ctx);
}

static void expect_iota(const uint32_t *out, uint32_t n, uint32_t base, const char *when)
{
    for (uint32_t i = 0; i < n; i++)
        cr_assert_eq(out[i], base + i, "%s: out[%u] = %u, expected %u", when, i, out[i], base + i);
}

/* ---- the warm-launch record ---- */

/* The same krt_arg array launched again after its values were changed in place: the record compares the
 * bytes, not the addresses, so every launch runs with the values of its call. */
Test(launch_hint, warm_values_changed_in_place)
{
    fixture f = setup();
    krt_kernel *k = kt_kernel(f.m, "krt_iota");
    enum { N = 3000 };
    uint32_t *o1 = kt_alloc(f.ctx, N * 4, KRT_MEMORY_SHARED), *o2 = kt_alloc(f.ctx, N * 4, KRT_MEMORY_SHARED);
    uint32_t *out = o1;
    uint32_t n = N, base = 10;
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(n), KRT_ARG(base)};
    krt_launch_desc d = kt_desc1(N, args, 3);
    for (int i = 0; i < 3; i++)
        KT_OK(krt_launch_sync(k, &d)); /* warm */
    expect_iota(o1, N, 10, "warm");
    base = 77; /* a scalar changed behind the same krt_arg */
    KT_OK(krt_launch_sync(k, &d));
    expect_iota(o1, N, 77, "scalar changed");
    out = o2; /* the pointer changed behind the same krt_arg */
    KT_OK(krt_launch_sync(k, &d));
    expect_iota(o2, N, 77, "pointer changed");
    expect_iota(o1, N, 77, "old output untouched");
    n = N / 2; /* fewer items written: the guard argument changed */
    base = 5;
    KT_OK(krt_launch_sync(k, &d));
    expect_iota(o2, N / 2, 5, "n changed");
    for (uint32_t i = N / 2; i < N; i++)
        cr_assert_eq(o2[i], 77 + i, "n changed: out[%u] = %u was written", i, o2[i]);
    teardown(&f);
}

/* A struct by value (compared with its slot, not as one word): a change of one field is seen. */
Test(launch_hint, warm_struct_field_changed)
{
    kt_skip_on_host("a struct is passed by value, which the native kernel ABI does not pass");
    fixture f = setup();
    krt_kernel *k = kt_kernel(f.m, "krt_struct");
    typedef struct {
        int32_t a;
        float b;
        int64_t c;
        int32_t d[3];
    } params;
    params p = {.a = 1, .b = 2.0f, .c = 3, .d = {4, 5, 6}};
    int64_t *out = kt_alloc(f.ctx, 6 * 8, KRT_MEMORY_SHARED);
    krt_arg args[] = {KRT_ARG(out), {&p, 32, KRT_ARG_TYPE_NONE}};
    krt_launch_desc d = kt_desc1(1, args, 2);
    KT_OK(krt_launch_sync(k, &d));
    KT_OK(krt_launch_sync(k, &d));
    cr_assert_eq(out[5], 6);
    p.d[2] = -9;
    KT_OK(krt_launch_sync(k, &d));
    cr_assert_eq(out[0], 1);
    cr_assert_eq(out[2], 3);
    cr_assert_eq(out[5], -9, "the last int of the struct: %lld", (long long)out[5]);
    p.c = 1ll << 40;
    KT_OK(krt_launch_sync(k, &d));
    cr_assert_eq(out[2], 1ll << 40);
    teardown(&f);
}

/* After warm launches, a value passed where a __local size belongs and a __local size where a value belongs,
 * each with the size the record holds, are still the errors they are on a cold kernel; then the warm
 * arguments run correctly. */
Test(launch_hint, warm_kind_mismatch_with_the_same_sizes)
{
    fixture f = setup();
    krt_kernel *k = kt_kernel(f.m, "krt_group_sum");
    enum { N = 1024, G = 64 };
    int32_t *in = kt_alloc(f.ctx, N * 4, KRT_MEMORY_SHARED), *out = kt_alloc(f.ctx, N / G * 4, KRT_MEMORY_SHARED);
    for (int i = 0; i < N; i++)
        in[i] = i % 7;
    uint32_t n = N;
    krt_arg args[] = {KRT_ARG(in), KRT_ARG(out), KRT_ARG_LOCAL(G * 4), KRT_ARG(n)};
    krt_launch_desc d = kt_desc1(N, args, 4);
    d.group[0] = G;
    KT_OK(krt_launch_sync(k, &d));
    KT_OK(krt_launch_sync(k, &d));

    uint8_t bytes[G * 4] = {0};
    krt_arg local_by_value[] = {KRT_ARG(in), KRT_ARG(out), {bytes, G * 4, KRT_ARG_TYPE_NONE}, KRT_ARG(n)};
    krt_launch_desc d1 = d;
    d1.args = local_by_value;
    KT_EXPECT(krt_launch(k, &d1), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    krt_arg value_as_local[] = {KRT_ARG(in), KRT_ARG(out), KRT_ARG_LOCAL(G * 4), KRT_ARG_LOCAL(sizeof n)};
    krt_launch_desc d2 = d;
    d2.args = value_as_local;
    KT_EXPECT(krt_launch(k, &d2), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    krt_arg pointer_as_local[] = {KRT_ARG_LOCAL(sizeof in), KRT_ARG(out), KRT_ARG_LOCAL(G * 4), KRT_ARG(n)};
    krt_launch_desc d3 = d;
    d3.args = pointer_as_local;
    KT_EXPECT(krt_launch(k, &d3), KRT_ERROR_INVALID_KERNEL_ARGUMENT);

    memset(out, 0xff, N / G * 4);
    KT_OK(krt_launch_sync(k, &d));
    for (int g = 0; g < N / G; g++) {
        int32_t want = 0;
        for (int i = g * G; i < (g + 1) * G; i++)
            want += in[i];
        cr_assert_eq(out[g], want, "group %d: %d, expected %d", g, out[g], want);
    }
    teardown(&f);
}

/* Freeing memory the launch does not use bumps the free generation: the next identical launch checks its
 * pointers again, finds them valid and runs. Freeing the memory it does use fails it, however many warm
 * launches came before. */
Test(launch_hint, warm_after_frees)
{
    fixture f = setup();
    krt_kernel *k = kt_kernel(f.m, "krt_iota");
    enum { N = 1000 };
    uint32_t *out = kt_alloc(f.ctx, N * 4, KRT_MEMORY_SHARED);
    uint32_t n = N, base = 3;
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(n), KRT_ARG(base)};
    krt_launch_desc d = kt_desc1(N, args, 3);
    for (int i = 0; i < 5; i++)
        KT_OK(krt_launch(k, &d));
    KT_OK(krt_context_synchronize(f.ctx));
    void *other = kt_alloc(f.ctx, 64, KRT_MEMORY_DEVICE);
    KT_OK(krt_free(f.ctx, other));
    memset(out, 0, N * 4);
    KT_OK(krt_launch_sync(k, &d));
    expect_iota(out, N, 3, "after an unrelated free");
    KT_OK(krt_launch_sync(k, &d));
    KT_OK(krt_free(f.ctx, out));
    KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_POINTER);
    KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_POINTER);
    /* A NULL output passes the pointer check (the kernel would write through it, so it is not launched);
     * a fresh allocation runs. */
    uint32_t *fresh = kt_alloc(f.ctx, N * 4, KRT_MEMORY_SHARED);
    out = fresh;
    KT_OK(krt_launch_sync(k, &d));
    KT_OK(krt_launch_sync(k, &d));
    expect_iota(fresh, N, 3, "fresh output");
    teardown(&f);
}

/* On a warm kernel the errors keep their order and their codes: an argument error before a wait-event
 * error, a wait-event error before a range error; then the warm arguments run. */
Test(launch_hint, warm_errors_in_order)
{
    fixture f = setup();
    krt_kernel *k = kt_kernel(f.m, "krt_iota");
    enum { N = 700 };
    uint32_t *out = kt_alloc(f.ctx, N * 4, KRT_MEMORY_SHARED);
    uint32_t n = N, base = 9;
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(n), KRT_ARG(base)};
    krt_launch_desc d = kt_desc1(N, args, 3);
    KT_OK(krt_launch_sync(k, &d));
    KT_OK(krt_launch_sync(k, &d));

    krt_event *const null_event[1] = {NULL};
    uint64_t wide = N;
    krt_arg bad[] = {KRT_ARG(out), KRT_ARG(wide), KRT_ARG(base)};
    krt_launch_desc e = d;
    e.args = bad;
    e.wait = null_event;
    e.num_wait = 1;
    KT_EXPECT(krt_launch(k, &e), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    e.args = args; /* warm arguments, a bad wait list, an empty range */
    e.range.size[0] = 0;
    KT_EXPECT(krt_launch(k, &e), KRT_ERROR_INVALID_ARGUMENT);
    e.num_wait = 0;
    KT_EXPECT(krt_launch(k, &e), KRT_ERROR_INVALID_NDRANGE);
    krt_launch_desc fewer = d;
    fewer.num_args = 2;
    KT_EXPECT(krt_launch(k, &fewer), KRT_ERROR_INVALID_KERNEL_ARGUMENT);

    memset(out, 0, N * 4);
    KT_OK(krt_launch_sync(k, &d));
    expect_iota(out, N, 9, "after the errors");
    teardown(&f);
}

/* The record belongs to the kernel, not to the call site: two argument sets alternating on one kernel, and
 * the same arguments on two kernels of one module, each run with their own values. */
Test(launch_hint, warm_alternating_argument_sets)
{
    fixture f = setup();
    krt_kernel *k = kt_kernel(f.m, "krt_iota");
    enum { N = 512 };
    uint32_t *o1 = kt_alloc(f.ctx, N * 4, KRT_MEMORY_SHARED), *o2 = kt_alloc(f.ctx, N * 4, KRT_MEMORY_SHARED);
    uint32_t n = N, b1 = 100, b2 = 200;
    krt_arg a1[] = {KRT_ARG(o1), KRT_ARG(n), KRT_ARG(b1)};
    krt_arg a2[] = {KRT_ARG(o2), KRT_ARG(n), KRT_ARG(b2)};
    krt_launch_desc d1 = kt_desc1(N, a1, 3), d2 = kt_desc1(N, a2, 3);
    for (int round = 0; round < 4; round++) {
        memset(o1, 0, N * 4);
        memset(o2, 0, N * 4);
        KT_OK(krt_launch(k, &d1));
        KT_OK(krt_launch(k, &d1));
        KT_OK(krt_launch(k, &d2));
        KT_OK(krt_context_synchronize(f.ctx));
        expect_iota(o1, N, b1, "set 1");
        expect_iota(o2, N, b2, "set 2");
        if (round % 2)
            b1 += 1000; /* one set changes, the other stays warm */
        else
            b2 += 1000;
    }
    krt_kernel *k2 = kt_kernel(f.m, "krt_scale");
    int32_t *data = kt_alloc(f.ctx, N * 4, KRT_MEMORY_SHARED);
    for (int i = 0; i < N; i++)
        data[i] = i;
    int32_t factor = 3;
    krt_arg a3[] = {KRT_ARG(data), KRT_ARG(factor), KRT_ARG(n)};
    krt_launch_desc d3 = kt_desc1(N, a3, 3);
    KT_OK(krt_launch(k2, &d3));
    KT_OK(krt_launch(k, &d1));
    KT_OK(krt_launch(k2, &d3));
    KT_OK(krt_context_synchronize(f.ctx));
    for (int i = 0; i < N; i++)
        cr_assert_eq(data[i], i * 9, "scaled twice: data[%d] = %d", i, data[i]);
    expect_iota(o1, N, b1, "set 1 between the other kernel's launches");
    teardown(&f);
}

/* A launch that fails on its second argument after the first was set leaves the driver holding a new first
 * argument: the record of the earlier, identical launches must not be trusted afterwards. */
Test(launch_hint, warm_after_a_partial_failure)
{
    fixture f = setup();
    krt_kernel *k = kt_kernel(f.m, "krt_vadd");
    enum { N = 2048 };
    float *a1 = kt_alloc(f.ctx, N * 4, KRT_MEMORY_SHARED), *a2 = kt_alloc(f.ctx, N * 4, KRT_MEMORY_SHARED);
    float *b = kt_alloc(f.ctx, N * 4, KRT_MEMORY_SHARED), *c = kt_alloc(f.ctx, N * 4, KRT_MEMORY_SHARED);
    float *freed = kt_alloc(f.ctx, N * 4, KRT_MEMORY_SHARED);
    KT_OK(krt_free(f.ctx, freed));
    for (int i = 0; i < N; i++) {
        a1[i] = (float)i;
        a2[i] = 100000.0f;
        b[i] = 0.25f;
    }
    uint32_t n = N;
    krt_arg good[] = {KRT_ARG(a1), KRT_ARG(b), KRT_ARG(c), KRT_ARG(n)};
    krt_arg bad[] = {KRT_ARG(a2), KRT_ARG(freed), KRT_ARG(c), KRT_ARG(n)};
    krt_launch_desc dg = kt_desc1(N, good, 4), db = kt_desc1(N, bad, 4);
    for (int round = 0; round < 3; round++) {
        KT_OK(krt_launch_sync(k, &dg));
        KT_OK(krt_launch_sync(k, &dg));
        KT_EXPECT(krt_launch(k, &db), KRT_ERROR_INVALID_POINTER);
        for (int i = 0; i < N; i++)
            c[i] = -1.0f;
        KT_OK(krt_launch_sync(k, &dg));
        for (int i = 0; i < N; i++)
            cr_assert_eq(c[i], (float)i + 0.25f, "round %d: c[%d] = %f", round, i, (double)c[i]);
    }
    teardown(&f);
}

/* ---- work_group_size_hint ---- */

typedef struct {
    krt_context *ctx;
    krt_module *m;
    krt_kernel *k;
    krt_device_info dev;
    uint32_t *shape;
} hinted;

static hinted open_hinted(const char *kernel, size_t spill_budget, uint32_t min_groups)
{
    hinted h;
    krt_context_desc desc = {.spill_budget = spill_budget, .min_groups = min_groups};
    h.ctx = kt_context(&desc);
    KT_OK(krt_context_device_info(h.ctx, &h.dev));
    h.m = kt_module(h.ctx, "krt_hint");
    h.k = kt_kernel(h.m, kernel);
    h.shape = kt_alloc(h.ctx, 6 * 4, KRT_MEMORY_SHARED);
    return h;
}

static void close_hinted(hinted *h)
{
    krt_module_destroy(h->m);
    krt_context_destroy(h->ctx);
}

static krt_launch_config config_1d(krt_kernel *k, uint64_t n)
{
    krt_ndrange r = {1, {n, 1, 1}};
    krt_launch_config c;
    KT_OK(krt_launch_config_get(k, &r, &c));
    return c;
}

/* Launches krt_hint64 over n items with krt's group size, checks every item and that the launch used the
 * configuration krt_launch_config_get reports. */
static void run_hint64(hinted *h, uint32_t n, const krt_launch_config *c)
{
    uint32_t *out = kt_alloc(h->ctx, (size_t)n * 4, KRT_MEMORY_SHARED);
    memset(out, 0, (size_t)n * 4);
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(h->shape), KRT_ARG(n)};
    krt_launch_desc d = kt_desc1(n, args, 3);
    KT_OK(krt_launch_sync(h->k, &d));
    for (uint32_t i = 0; i < n; i++)
        cr_assert_eq(out[i], 3 * i + 1, "n %u: out[%u] = %u", n, i, out[i]);
    cr_assert_eq(h->shape[0], c->group[0], "n %u: the launch ran groups of %u, the configuration says %u", n,
                 h->shape[0], c->group[0]);
    cr_assert_eq(h->shape[3], c->groups[0], "n %u: %u groups ran, the configuration says %u", n, h->shape[3],
                 c->groups[0]);
    KT_OK(krt_free(h->ctx, out));
}

/* A large range gets exactly the hint, reported as KRT_LIMIT_HINT, where a kernel without a hint gets the
 * kernel's maximum. */
Test(launch_hint, hint_on_a_large_range)
{
    hinted h = open_hinted("krt_hint64", 0, 0);
    const uint32_t sizes[] = {1u << 20, 1000003 /* prime */, 4096, 65};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        uint32_t n = sizes[s];
        krt_launch_config c = config_1d(h.k, n);
        if (n >= 64 * 16) {
            cr_assert_eq(c.group[0], 64, "n %u: group %u", n, c.group[0]);
            cr_assert_eq(c.limit, KRT_LIMIT_HINT, "n %u: limit %s", n, krt_limit_name(c.limit));
            cr_assert_eq(c.groups[0], (n + 63) / 64);
            cr_assert_eq(c.masked, n % 64 != 0);
        }
        run_hint64(&h, n, &c);
    }
    /* The same device and module: the unhinted kernel of krt_basic takes the maximum. */
    krt_module *basic = kt_module(h.ctx, "krt_basic");
    krt_launch_config plain = config_1d(kt_kernel(basic, "krt_iota"), 1u << 20);
    cr_assert_gt(plain.group[0], 64, "without a hint the group is %u", plain.group[0]);
    cr_assert_neq(plain.limit, KRT_LIMIT_HINT);
    krt_module_destroy(basic);
    close_hinted(&h);
}

/* Small ranges: the group never exceeds the range, and min_groups still splits a range that would give
 * fewer groups; with min_groups 1 a range smaller than the hint is one group of exactly its size. */
Test(launch_hint, hint_shrinks_for_small_ranges)
{
    hinted h = open_hinted("krt_hint64", 0, 0); /* min_groups 16 */
    krt_kernel_properties p;
    KT_OK(krt_kernel_properties_get(h.k, &p));
    const uint32_t small[] = {1, 7, 100, 500, 700};
    for (size_t s = 0; s < sizeof small / sizeof small[0]; s++) {
        uint32_t n = small[s];
        krt_launch_config c = config_1d(h.k, n);
        /* ceil(n / min_groups), rounded up to the preferred multiple; a range within that is one group. */
        uint32_t want = (n + 15) / 16;
        if (p.preferred_multiple > 1 && p.preferred_multiple <= 64)
            want = (want + p.preferred_multiple - 1) / p.preferred_multiple * p.preferred_multiple;
        if (want >= 64) {
            /* A preferred multiple (32 on a GPU) can round the split up to the hint itself: both rules
             * then give the same group. */
            cr_assert_eq(c.group[0], 64, "n %u: group %u, expected the hint", n, c.group[0]);
            cr_assert(c.limit == KRT_LIMIT_HINT || c.limit == KRT_LIMIT_MIN_GROUPS, "n %u: limit %s", n,
                      krt_limit_name(c.limit));
            run_hint64(&h, n, &c);
            continue;
        }
        if (want >= n) {
            cr_assert_eq(c.group[0], n, "n %u: group %u, expected the whole range", n, c.group[0]);
            cr_assert_eq(c.limit, KRT_LIMIT_NONE, "n %u: limit %s", n, krt_limit_name(c.limit));
        } else {
            cr_assert_eq(c.group[0], want, "n %u: group %u, expected %u", n, c.group[0], want);
            cr_assert_eq(c.limit, KRT_LIMIT_MIN_GROUPS, "n %u: limit %s", n, krt_limit_name(c.limit));
        }
        cr_assert_lt(c.group[0], 64, "n %u: group %u", n, c.group[0]);
        run_hint64(&h, n, &c);
    }
    close_hinted(&h);

    h = open_hinted("krt_hint64", 0, 1);
    const uint32_t one_group[] = {1, 40, 63, 64};
    for (size_t s = 0; s < sizeof one_group / sizeof one_group[0]; s++) {
        uint32_t n = one_group[s];
        krt_launch_config c = config_1d(h.k, n);
        cr_assert_eq(c.group[0], n, "n %u: group %u", n, c.group[0]);
        cr_assert_eq(c.groups[0], 1);
        cr_assert_eq(c.limit, KRT_LIMIT_NONE, "n %u: limit %s", n, krt_limit_name(c.limit));
        run_hint64(&h, n, &c);
    }
    krt_launch_config c = config_1d(h.k, 65);
    cr_assert_eq(c.group[0], 64);
    cr_assert_eq(c.groups[0], 2);
    cr_assert_eq(c.limit, KRT_LIMIT_HINT);
    run_hint64(&h, 65, &c);
    close_hinted(&h);
}

/* A 2-D hint: its shape on a large range, y clamped to a range of 2 rows, every item written once. */
Test(launch_hint, hint_2d_shape)
{
    hinted h = open_hinted("krt_hint8x4", 0, 0);
    const uint32_t shapes[][2] = {{1000, 1000}, {1000, 2}, {333, 77}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        uint32_t nx = shapes[s][0], ny = shapes[s][1];
        krt_ndrange r = {2, {nx, ny, 1}};
        krt_launch_config c;
        KT_OK(krt_launch_config_get(h.k, &r, &c));
        cr_assert_eq(c.group[0], 8, "%ux%u: group x %u", nx, ny, c.group[0]);
        cr_assert_eq(c.group[1], ny < 4 ? ny : 4, "%ux%u: group y %u", nx, ny, c.group[1]);
        cr_assert_eq(c.group[2], 1);
        cr_assert_eq(c.limit, KRT_LIMIT_HINT, "%ux%u: limit %s", nx, ny, krt_limit_name(c.limit));
        uint32_t *out = kt_alloc(h.ctx, (size_t)nx * ny * 4, KRT_MEMORY_SHARED);
        memset(out, 0xff, (size_t)nx * ny * 4);
        krt_arg args[] = {KRT_ARG(out), KRT_ARG(h.shape), KRT_ARG(nx), KRT_ARG(ny)};
        krt_launch_desc d = {.range = r, .args = args, .num_args = 4};
        KT_OK(krt_launch_sync(h.k, &d));
        for (uint32_t y = 0; y < ny; y++)
            for (uint32_t x = 0; x < nx; x++)
                cr_assert_eq(out[x + nx * y], x * 7 + y, "%ux%u: out(%u,%u) = %u", nx, ny, x, y, out[x + nx * y]);
        cr_assert_eq(h.shape[0], c.group[0]);
        cr_assert_eq(h.shape[1], c.group[1]);
        KT_OK(krt_free(h.ctx, out));
    }
    close_hinted(&h);
}

/* The spill cap applies to the hint: with a budget of 100 work-items' spill, the hint of 256 becomes 64
 * (KRT_LIMIT_SPILL); exactly at 256 work-items' spill it is not capped. Results are correct either way. */
Test(launch_hint, hint_capped_by_the_spill_budget)
{
    kt_skip_on_host("static __local arrays are thread-local data of the native library and private arrays live on the host stack, so the host device reports no local, private or spill memory per kernel");
    hinted probe = open_hinted("krt_hint_spill", 0, 0);
    krt_kernel_properties p;
    KT_OK(krt_kernel_properties_get(probe.k, &p));
    close_hinted(&probe);
    cr_assert_gt(p.spill_mem_size, 0, "the driver reports no spill for a 3648-byte private array");
    const struct {
        size_t budget;
        uint32_t group;
        krt_limit limit;
    } cases[] = {
        {(size_t)p.spill_mem_size * 100, 64, KRT_LIMIT_SPILL},
        {(size_t)p.spill_mem_size * 256, 256, KRT_LIMIT_HINT},
        {(size_t)p.spill_mem_size * 255, 128, KRT_LIMIT_SPILL},
        {(size_t)p.spill_mem_size / 2, 1, KRT_LIMIT_SPILL},
    };
    enum { N = 20000 };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hinted h = open_hinted("krt_hint_spill", cases[i].budget, 0);
        krt_launch_config c = config_1d(h.k, N);
        cr_assert_eq(c.group[0], cases[i].group, "budget %zu: group %u, expected %u", cases[i].budget, c.group[0],
                     cases[i].group);
        cr_assert_eq(c.limit, cases[i].limit, "budget %zu: limit %s", cases[i].budget, krt_limit_name(c.limit));
        if (cases[i].group >= 64) {
            uint32_t *out = kt_alloc(h.ctx, N * 4, KRT_MEMORY_SHARED);
            uint32_t n = N, seed = 5;
            krt_arg args[] = {KRT_ARG(out), KRT_ARG(h.shape), KRT_ARG(n), KRT_ARG(seed)};
            krt_launch_desc d = kt_desc1(N, args, 4);
            KT_OK(krt_launch_sync(h.k, &d));
            for (uint32_t j = 0; j < N; j++) {
                uint32_t want = j * 912u + 912u * 911u / 2u;
                cr_assert_eq(out[j], want, "budget %zu: out[%u] = %u, expected %u", cases[i].budget, j, out[j],
                             want);
            }
            cr_assert_eq(h.shape[0], cases[i].group);
        }
        close_hinted(&h);
    }
}

/* A hint over the device's limits is cut to them; a required size wins over a hint; a static size wins over
 * both krt's choice and the hint. */
Test(launch_hint, hint_within_limits_and_below_required_and_static)
{
    hinted h = open_hinted("krt_hint_huge", 0, 0);
    krt_kernel_properties p;
    KT_OK(krt_kernel_properties_get(h.k, &p));
    uint32_t bound = p.max_group_size < h.dev.max_group_size ? p.max_group_size : h.dev.max_group_size;
    if (h.dev.max_group[0] < bound)
        bound = h.dev.max_group[0];
    krt_launch_config c = config_1d(h.k, 1u << 24);
    cr_assert_eq(c.group[0], bound, "group %u, expected the limit %u", c.group[0], bound);
    cr_assert(c.limit == KRT_LIMIT_DEVICE_MAX || c.limit == KRT_LIMIT_KERNEL_MAX, "limit %s",
              krt_limit_name(c.limit));
    enum { N = 100000 };
    uint32_t *out = kt_alloc(h.ctx, N * 4, KRT_MEMORY_SHARED);
    uint32_t n = N;
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(h.shape), KRT_ARG(n)};
    krt_launch_desc d = kt_desc1(N, args, 3);
    KT_OK(krt_launch_sync(h.k, &d));
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(out[i], i ^ 0x5au, "out[%u] = %u", i, out[i]);
    close_hinted(&h);

    h = open_hinted("krt_hint_reqd", 0, 0);
    c = config_1d(h.k, 1u << 20);
    cr_assert_eq(c.group[0], 16);
    cr_assert_eq(c.limit, KRT_LIMIT_REQUIRED);
    close_hinted(&h);

    h = open_hinted("krt_hint64", 0, 0);
    out = kt_alloc(h.ctx, N * 4, KRT_MEMORY_SHARED);
    krt_arg args2[] = {KRT_ARG(out), KRT_ARG(h.shape), KRT_ARG(n)};
    krt_launch_desc s = kt_desc1(N, args2, 3);
    s.group[0] = 32;
    KT_OK(krt_launch_sync(h.k, &s));
    cr_assert_eq(h.shape[0], 32, "a static 32 ran as %u", h.shape[0]);
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(out[i], 3 * i + 1);
    close_hinted(&h);
}

/* The reduction that asks for groups of 8 gets them and sums correctly, over a multiple of 8, a prime and a
 * range smaller than min_groups groups of 8. */
Test(launch_hint, hint_tree_reduction)
{
    hinted h = open_hinted("krt_hint_reduce", 0, 0);
    /* Its kernel-scope scratch holds 64 items, so krt would leave the group to the caller (the kernel is right for
     * groups up to 64 only); the hint rule never goes past the hint, so this caller may say any group is right. */
    krt_kernel_info info;
    KT_OK(krt_kernel_info_get(h.k, &info));
    cr_assert(info.group_dependent, "krt_hint_reduce keeps __local scratch across barriers");
    KT_OK(krt_kernel_set_any_group(h.k, 1));
    const uint32_t sizes[] = {1u << 18, 100003, 50};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        uint32_t n = sizes[s];
        krt_launch_config c = config_1d(h.k, n);
        if (n >= 8 * 16) {
            cr_assert_eq(c.group[0], 8, "n %u: group %u", n, c.group[0]);
            cr_assert_eq(c.limit, KRT_LIMIT_HINT);
        } else {
            cr_assert_leq(c.group[0], 8, "n %u: group %u", n, c.group[0]);
        }
        int32_t *in = kt_alloc(h.ctx, (size_t)n * 4, KRT_MEMORY_SHARED);
        int32_t *partial = kt_alloc(h.ctx, (size_t)c.groups[0] * 4, KRT_MEMORY_SHARED);
        for (uint32_t i = 0; i < n; i++)
            in[i] = (int32_t)(i % 101) - 50;
        krt_arg args[] = {KRT_ARG(in), KRT_ARG(partial), KRT_ARG(h.shape), KRT_ARG(n)};
        krt_launch_desc d = kt_desc1(n, args, 4);
        KT_OK(krt_launch_sync(h.k, &d));
        cr_assert_eq(h.shape[0], c.group[0]);
        int64_t total = 0, want_total = 0;
        for (uint32_t g = 0; g < c.groups[0]; g++) {
            int32_t want = 0;
            for (uint32_t i = g * c.group[0]; i < (g + 1) * c.group[0] && i < n; i++)
                want += in[i];
            cr_assert_eq(partial[g], want, "n %u, group %u: %d, expected %d", n, g, partial[g], want);
            total += partial[g];
        }
        for (uint32_t i = 0; i < n; i++)
            want_total += in[i];
        cr_assert_eq(total, want_total);
        KT_OK(krt_free(h.ctx, in));
        KT_OK(krt_free(h.ctx, partial));
    }
    close_hinted(&h);
}
