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
    krt_arg args[] = {KRT_ARG(out), {&p, 32}};
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
    krt_arg local_by_value[] = {KRT_ARG(in), KRT_ARG(out), {bytes, G * 4}, KRT_ARG(n)};
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
