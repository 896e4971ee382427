/* Launches with checked results: dynamic and static group sizes, every argument kind, and every launch
 * error, each with its exact result and followed by a correct launch of the same kernel. */
#include <stdlib.h>
#include <string.h>

#include "krt_test.h"

TestSuite(launch, .timeout = KT_TEST_TIMEOUT);

typedef struct {
    krt_context *ctx;
    krt_module *m;
    krt_device_info dev;
} fixture;

static fixture setup(void)
{
    fixture f;
    f.ctx = kt_context(NULL);
    KT_OK(krt_context_device_info(f.ctx, &f.dev));
    f.m = kt_module(f.ctx, "krt_basic");
    return f;
}

static void teardown(fixture *f)
{
    krt_module_destroy(f->m);
    krt_context_destroy(f->ctx);
}

/* c = a + b over n items with a dynamic group size, checked. Used after each error to prove the kernel and
 * context still work. */
static void vadd_ok(fixture *f, uint32_t n)
{
    krt_kernel *k = kt_kernel(f->m, "krt_vadd");
    float *a = kt_alloc(f->ctx, n * 4, KRT_MEMORY_SHARED), *b = kt_alloc(f->ctx, n * 4, KRT_MEMORY_SHARED);
    float *c = kt_alloc(f->ctx, n * 4, KRT_MEMORY_SHARED);
    for (uint32_t i = 0; i < n; i++) {
        a[i] = (float)i;
        b[i] = 0.5f * (float)(i % 1000);
        c[i] = -1.0f;
    }
    krt_arg args[] = {KRT_ARG(a), KRT_ARG(b), KRT_ARG(c), KRT_ARG(n)};
    krt_launch_desc d = kt_desc1(n, args, 4);
    KT_OK(krt_launch_sync(k, &d));
    for (uint32_t i = 0; i < n; i++)
        cr_assert_eq(c[i], (float)i + 0.5f * (float)(i % 1000), "c[%u] = %f", i, (double)c[i]);
    KT_OK(krt_free(f->ctx, a));
    KT_OK(krt_free(f->ctx, b));
    KT_OK(krt_free(f->ctx, c));
}

Test(launch, vadd_dynamic)
{
    fixture f = setup();
    vadd_ok(&f, 1);
    vadd_ok(&f, 1000);
    vadd_ok(&f, 1 << 20);
    vadd_ok(&f, 1000003);
    teardown(&f);
}

Test(launch, vadd_device_memory)
{
    fixture f = setup();
    enum { N = 50000 };
    krt_kernel *k = kt_kernel(f.m, "krt_vadd");
    float *ha = malloc(N * 4), *hb = malloc(N * 4), *hc = malloc(N * 4);
    cr_assert(ha && hb && hc);
    for (int i = 0; i < N; i++) {
        ha[i] = (float)i * 2.0f;
        hb[i] = 1.0f;
    }
    float *a = kt_alloc(f.ctx, N * 4, KRT_MEMORY_DEVICE), *b = kt_alloc(f.ctx, N * 4, KRT_MEMORY_DEVICE);
    float *c = kt_alloc(f.ctx, N * 4, KRT_MEMORY_DEVICE);
    KT_OK(krt_memcpy(f.ctx, NULL, a, ha, N * 4));
    KT_OK(krt_memcpy(f.ctx, NULL, b, hb, N * 4));
    uint32_t n = N;
    krt_arg args[] = {KRT_ARG(a), KRT_ARG(b), KRT_ARG(c), KRT_ARG(n)};
    krt_launch_desc d = kt_desc1(N, args, 4);
    KT_OK(krt_launch(k, &d));
    KT_OK(krt_memcpy(f.ctx, NULL, hc, c, N * 4));
    KT_OK(krt_queue_synchronize(krt_context_default_queue(f.ctx)));
    for (int i = 0; i < N; i++)
        cr_assert_eq(hc[i], (float)i * 2.0f + 1.0f, "item %d", i);
    free(ha);
    free(hb);
    free(hc);
    teardown(&f);
}

/* Runs krt_shape with the given range and static group and returns what the kernel saw. */
static void shape_of(fixture *f, krt_ndrange range, const uint32_t group[3], uint32_t out7[7])
{
    krt_kernel *k = kt_kernel(f->m, "krt_shape");
    uint32_t *out = kt_alloc(f->ctx, 7 * 4, KRT_MEMORY_SHARED);
    memset(out, 0, 7 * 4);
    krt_arg args[] = {KRT_ARG(out)};
    krt_launch_desc d = {.range = range, .args = args, .num_args = 1};
    if (group)
        memcpy(d.group, group, sizeof d.group);
    KT_OK(krt_launch_sync(k, &d));
    memcpy(out7, out, 7 * 4);
    KT_OK(krt_free(f->ctx, out));
}

Test(launch, static_group_size_is_used)
{
    fixture f = setup();
    uint32_t s[7];
    shape_of(&f, (krt_ndrange){1, {1024, 0, 0}}, (const uint32_t[3]){64, 1, 1}, s);
    const uint32_t want1[7] = {64, 1, 1, 16, 1, 1, 1};
    cr_assert_arr_eq(s, want1, sizeof want1, "1-D: local %u,%u,%u groups %u,%u,%u dim %u", s[0], s[1], s[2],
                     s[3], s[4], s[5], s[6]);
    /* Unused dimensions of the group may be 0. */
    shape_of(&f, (krt_ndrange){1, {512, 0, 0}}, (const uint32_t[3]){32, 0, 0}, s);
    const uint32_t want2[7] = {32, 1, 1, 16, 1, 1, 1};
    cr_assert_arr_eq(s, want2, sizeof want2);
    shape_of(&f, (krt_ndrange){2, {64, 32, 0}}, (const uint32_t[3]){8, 4, 1}, s);
    const uint32_t want3[7] = {8, 4, 1, 8, 8, 1, 2};
    cr_assert_arr_eq(s, want3, sizeof want3);
    shape_of(&f, (krt_ndrange){3, {16, 8, 6}}, (const uint32_t[3]){4, 2, 3}, s);
    const uint32_t want4[7] = {4, 2, 3, 4, 4, 2, 3};
    cr_assert_arr_eq(s, want4, sizeof want4);
    /* dims 0: the highest dimension with a non-zero size. */
    shape_of(&f, (krt_ndrange){0, {64, 32, 0}}, (const uint32_t[3]){8, 4, 1}, s);
    cr_assert_arr_eq(s, want3, sizeof want3);
    teardown(&f);
}

Test(launch, static_group_not_dividing_the_range)
{
    fixture f = setup();
    krt_kernel *k = kt_kernel(f.m, "krt_count1");
    enum { N = 1000, G = 64 };
    const uint32_t padded = (N + G - 1) / G * G;
    uint32_t *hits = kt_alloc(f.ctx, padded * 4, KRT_MEMORY_SHARED);
    memset(hits, 0, padded * 4);
    uint32_t n = N;
    krt_arg args[] = {KRT_ARG(hits), KRT_ARG(n)};
    krt_launch_desc d = kt_desc1(N, args, 2);
    d.group[0] = G;
    KT_OK(krt_launch_sync(k, &d));
    for (uint32_t i = 0; i < padded; i++)
        cr_assert_eq(hits[i], i < N ? 1u : 0u, "item %u ran %u times", i, hits[i]);
    teardown(&f);
}

Test(launch, dynamic_3d_every_item_once)
{
    fixture f = setup();
    krt_kernel *k = kt_kernel(f.m, "krt_count3");
    const uint32_t nx = 100, ny = 37, nz = 3;
    uint32_t *hits = kt_alloc(f.ctx, nx * ny * nz * 4, KRT_MEMORY_SHARED);
    memset(hits, 0, nx * ny * nz * 4);
    krt_arg args[] = {KRT_ARG(hits), KRT_ARG(nx), KRT_ARG(ny), KRT_ARG(nz)};
    krt_launch_desc d = {.range = {3, {nx, ny, nz}}, .args = args, .num_args = 4};
    KT_OK(krt_launch_sync(k, &d));
    for (uint32_t i = 0; i < nx * ny * nz; i++)
        cr_assert_eq(hits[i], 1, "item %u ran %u times", i, hits[i]);
    teardown(&f);
}

static void group_sum_check(fixture *f, uint32_t n, uint32_t group, int dynamic)
{
    krt_kernel *k = kt_kernel(f->m, "krt_group_sum");
    krt_ndrange range = {1, {n, 0, 0}};
    if (dynamic) {
        krt_launch_config cfg;
        KT_OK(krt_launch_config_get(k, &range, &cfg));
        group = cfg.group[0];
    }
    uint32_t groups = (n + group - 1) / group;
    int32_t *in = kt_alloc(f->ctx, n * 4, KRT_MEMORY_SHARED), *out = kt_alloc(f->ctx, groups * 4, KRT_MEMORY_SHARED);
    for (uint32_t i = 0; i < n; i++)
        in[i] = (int32_t)(i % 97) - 40;
    memset(out, 0x7f, groups * 4);
    krt_arg args[] = {KRT_ARG(in), KRT_ARG(out), KRT_ARG_LOCAL(group * sizeof(int32_t)), KRT_ARG(n)};
    krt_launch_desc d = kt_desc1(n, args, 4);
    if (!dynamic)
        d.group[0] = group;
    KT_OK(krt_launch_sync(k, &d));
    for (uint32_t g = 0; g < groups; g++) {
        int32_t want = 0;
        for (uint32_t i = g * group; i < (g + 1) * group && i < n; i++)
            want += in[i];
        cr_assert_eq(out[g], want, "group %u of %u (size %u): %d, expected %d", g, groups, group, out[g], want);
    }
    KT_OK(krt_free(f->ctx, in));
    KT_OK(krt_free(f->ctx, out));
}

Test(launch, local_pointer_argument)
{
    fixture f = setup();
    group_sum_check(&f, 128 * 50, 128, 0);
    group_sum_check(&f, 1000, 64, 0);
    group_sum_check(&f, 100000, 0, 1);
    teardown(&f);
}

Test(launch, constant_pointer_argument)
{
    fixture f = setup();
    krt_kernel *k = kt_kernel(f.m, "krt_const_add");
    enum { N = 4000 };
    int32_t *table = kt_alloc(f.ctx, 16 * 4, KRT_MEMORY_SHARED), *out = kt_alloc(f.ctx, N * 4, KRT_MEMORY_SHARED);
    for (int i = 0; i < 16; i++)
        table[i] = i * i * 1000;
    uint32_t n = N;
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(table), KRT_ARG(n)};
    krt_launch_desc d = kt_desc1(N, args, 3);
    KT_OK(krt_launch_sync(k, &d));
    for (int i = 0; i < N; i++)
        cr_assert_eq(out[i], (i % 16) * (i % 16) * 1000 + i);
    teardown(&f);
}

typedef struct {
    int32_t a;
    float b;
    int64_t c;
    int32_t d[3];
} krt_params; /* the kernel's struct: 32 bytes with OpenCL's alignment */

Test(launch, struct_by_value)
{
    kt_skip_on_host("a struct is passed by value, which the native kernel ABI does not pass");
    fixture f = setup();
    cr_assert_eq(sizeof(krt_params), 32);
    krt_kernel *k = kt_kernel(f.m, "krt_struct");
    int64_t *out = kt_alloc(f.ctx, 6 * 8, KRT_MEMORY_SHARED);
    krt_params p = {.a = -12345, .b = 77.0f, .c = 9000000000ll, .d = {1, -2, 3}};
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(p)};
    krt_launch_desc d = kt_desc1(1, args, 2);
    KT_OK(krt_launch_sync(k, &d));
    const int64_t want[6] = {-12345, 77, 9000000000ll, 1, -2, 3};
    cr_assert_arr_eq(out, want, sizeof want);
    teardown(&f);
}

Test(launch, arguments_are_captured_by_the_call)
{
    fixture f = setup();
    krt_kernel *k = kt_kernel(f.m, "krt_iota");
    enum { N = 20000 };
    uint32_t *o1 = kt_alloc(f.ctx, N * 4, KRT_MEMORY_SHARED), *o2 = kt_alloc(f.ctx, N * 4, KRT_MEMORY_SHARED);
    uint32_t *out = o1, n = N, base = 10;
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(n), KRT_ARG(base)};
    krt_launch_desc d = kt_desc1(N, args, 3);
    KT_OK(krt_launch(k, &d));
    /* Change every value before the queue has necessarily run the first launch. */
    out = o2;
    base = 500;
    KT_OK(krt_launch(k, &d));
    base = 999999;
    out = NULL;
    KT_OK(krt_queue_synchronize(krt_context_default_queue(f.ctx)));
    for (uint32_t i = 0; i < N; i++) {
        cr_assert_eq(o1[i], 10 + i, "first launch item %u", i);
        cr_assert_eq(o2[i], 500 + i, "second launch item %u", i);
    }
    teardown(&f);
}

Test(launch, null_pointer_argument_is_accepted)
{
    fixture f = setup();
    krt_kernel *k = kt_kernel(f.m, "krt_optional");
    enum { N = 3000 };
    int32_t *out = kt_alloc(f.ctx, N * 4, KRT_MEMORY_SHARED), *src = kt_alloc(f.ctx, N * 4, KRT_MEMORY_SHARED);
    for (int i = 0; i < N; i++)
        src[i] = i * 3;
    int32_t *maybe = NULL;
    uint32_t n = N;
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(maybe), KRT_ARG(n)};
    krt_launch_desc d = kt_desc1(N, args, 3);
    KT_OK(krt_launch_sync(k, &d));
    for (int i = 0; i < N; i++)
        cr_assert_eq(out[i], -1, "item %d", i);
    maybe = src;
    KT_OK(krt_launch_sync(k, &d));
    for (int i = 0; i < N; i++)
        cr_assert_eq(out[i], i * 3, "item %d", i);
    teardown(&f);
}

Test(launch, pointer_inside_an_allocation)
{
    fixture f = setup();
    krt_kernel *k = kt_kernel(f.m, "krt_iota");
    enum { N = 1000, OFF = 100 };
    uint32_t *buf = kt_alloc(f.ctx, (N + 2 * OFF) * 4, KRT_MEMORY_SHARED);
    memset(buf, 0, (N + 2 * OFF) * 4);
    uint32_t *inner = buf + OFF, n = N, base = 1;
    krt_arg args[] = {KRT_ARG(inner), KRT_ARG(n), KRT_ARG(base)};
    krt_launch_desc d = kt_desc1(N, args, 3);
    KT_OK(krt_launch_sync(k, &d));
    for (uint32_t i = 0; i < N + 2 * OFF; i++)
        cr_assert_eq(buf[i], i >= OFF && i < OFF + N ? i - OFF + 1 : 0u, "item %u", i);
    teardown(&f);
}

Test(launch, launch_on_a_queue_and_synchronize_it)
{
    fixture f = setup();
    krt_kernel *k = kt_kernel(f.m, "krt_iota");
    krt_queue *q = NULL;
    KT_OK(krt_queue_create(f.ctx, NULL, &q));
    enum { N = 777 };
    uint32_t *out = kt_alloc(f.ctx, N * 4, KRT_MEMORY_SHARED);
    uint32_t n = N, base = 3;
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(n), KRT_ARG(base)};
    krt_launch_desc d = kt_desc1(N, args, 3);
    d.queue = q;
    KT_OK(krt_launch_sync(k, &d));
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(out[i], 3 + i);
    krt_queue_destroy(q);
    teardown(&f);
}

/* Every scalar size, a vector, a struct, __constant and __local in one launch (krt_args in krt_reflect.cl):
 * gu[0] = ci[0] + c + s + i + (int)l + (int)d + (int)v4.x + i2.y + p.a + uc + (uint)ul, gf[0] = f. */
Test(launch, every_argument_type)
{
    kt_skip_on_host("its kernels (krt_reflect, krt_misc) use vector types that the C side of the kernels does not compile");
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_reflect");
    krt_kernel *k = kt_kernel(m, "krt_args");
    float *gf = kt_alloc(ctx, 64, KRT_MEMORY_SHARED);
    int32_t *ci = kt_alloc(ctx, 64, KRT_MEMORY_SHARED);
    uint32_t *gu = kt_alloc(ctx, 64, KRT_MEMORY_SHARED);
    ci[0] = 1000000;
    int8_t c = -3;
    int16_t sh = -300;
    int32_t i = 70000;
    int64_t l = 5000000;
    float fl = 6.5f;
    double d = 123.75;
    float v4[4] = {9.0f, 100.0f, 100.0f, 100.0f};
    int32_t i2[2] = {100, -20};
    krt_params p = {.a = 400, .b = 1.0f, .c = 1, .d = {1, 2, 3}};
    uint8_t uc = 250;
    uint64_t ul = 77;
    krt_arg args[] = {KRT_ARG(gf), KRT_ARG(ci), KRT_ARG_LOCAL(64), KRT_ARG(c), KRT_ARG(sh), KRT_ARG(i), KRT_ARG(l),
                      KRT_ARG(fl), KRT_ARG(d), {v4, sizeof v4, KRT_ARG_TYPE_NONE},
                      {i2, sizeof i2, KRT_ARG_TYPE_NONE}, KRT_ARG(p), KRT_ARG(uc), KRT_ARG(ul), KRT_ARG(gu)};
    krt_launch_desc desc = kt_desc1(1, args, 15);
    KT_OK(krt_launch_sync(k, &desc));
    uint32_t want = (uint32_t)(1000000 - 3 - 300 + 70000 + 5000000 + 123 + 9 - 20 + 400 + 250 + 77);
    cr_assert_eq(gu[0], want, "got %u, expected %u", gu[0], want);
    cr_assert_eq(gf[0], 6.5f);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* A float3 is passed as 16 bytes, like OpenCL's cl_float3. out[0] = v3.z + c2.y + s8.s7. */
Test(launch, three_component_vector)
{
    kt_skip_on_host("its kernels (krt_reflect, krt_misc) use vector types that the C side of the kernels does not compile");
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_reflect");
    krt_kernel *k = kt_kernel(m, "krt_vectors");
    float *out = kt_alloc(ctx, 64, KRT_MEMORY_SHARED);
    float v3[4] = {1.0f, 2.0f, 40.0f, 0.0f};
    int8_t c2[2] = {1, 5};
    int16_t s8[8] = {0, 0, 0, 0, 0, 0, 0, 300};
    krt_arg args[] = {KRT_ARG(out), {v3, sizeof v3, KRT_ARG_TYPE_NONE}, {c2, sizeof c2, KRT_ARG_TYPE_NONE},
                      {s8, sizeof s8, KRT_ARG_TYPE_NONE}};
    krt_launch_desc desc = kt_desc1(1, args, 4);
    KT_OK(krt_launch_sync(k, &desc));
    cr_assert_eq(out[0], 345.0f, "got %f", (double)out[0]);
    /* 12 bytes for the float3 is the wrong size. */
    args[1].size = 12;
    KT_EXPECT(krt_launch(k, &desc), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

Test(launch, pointer_to_struct)
{
    kt_skip_on_host("its kernels (krt_reflect, krt_misc) use vector types that the C side of the kernels does not compile");
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_reflect");
    krt_kernel *k = kt_kernel(m, "krt_struct_ptr");
    krt_params *p = kt_alloc(ctx, sizeof *p, KRT_MEMORY_SHARED);
    int64_t *out = kt_alloc(ctx, 64, KRT_MEMORY_SHARED);
    *p = (krt_params){.a = 10, .b = 0.0f, .c = 20000000000ll, .d = {0, 0, 3}};
    krt_arg args[] = {KRT_ARG(p), KRT_ARG(out)};
    krt_launch_desc desc = kt_desc1(1, args, 2);
    KT_OK(krt_launch_sync(k, &desc));
    cr_assert_eq(out[0], 20000000013ll);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

Test(launch, kernel_without_arguments)
{
    kt_skip_on_host("its kernels (krt_reflect, krt_misc) use vector types that the C side of the kernels does not compile");
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_reflect");
    krt_kernel *k = kt_kernel(m, "krt_noargs");
    krt_launch_desc desc = kt_desc1(1000, NULL, 0);
    KT_OK(krt_launch_sync(k, &desc));
    int x = 0;
    krt_arg extra[] = {KRT_ARG(x)};
    desc = kt_desc1(1000, extra, 1);
    KT_EXPECT(krt_launch(k, &desc), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    desc = kt_desc1(10, NULL, 0);
    KT_OK(krt_launch_sync(k, &desc));
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* ---- errors: each returns its exact result, then the same kernel launches correctly ---- */

Test(launch, bad_descriptors)
{
    fixture f = setup();
    krt_kernel *k = kt_kernel(f.m, "krt_vadd");
    KT_EXPECT(krt_launch(k, NULL), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_launch_sync(k, NULL), KRT_ERROR_INVALID_ARGUMENT);
    krt_launch_desc d = kt_desc1(100, NULL, 4);
    KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_ARGUMENT);
    float *a = kt_alloc(f.ctx, 400, KRT_MEMORY_SHARED);
    uint32_t n = 100;
    krt_arg args[] = {KRT_ARG(a), KRT_ARG(a), KRT_ARG(a), KRT_ARG(n)};
    d = kt_desc1(100, args, 4);
    KT_EXPECT(krt_launch(NULL, &d), KRT_ERROR_INVALID_ARGUMENT);
    d.num_wait = 1;
    KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_ARGUMENT);
    vadd_ok(&f, 5000);
    teardown(&f);
}

Test(launch, wrong_argument_count)
{
    fixture f = setup();
    krt_kernel *k = kt_kernel(f.m, "krt_vadd");
    float *a = kt_alloc(f.ctx, 400, KRT_MEMORY_SHARED);
    uint32_t n = 100;
    krt_arg args[] = {KRT_ARG(a), KRT_ARG(a), KRT_ARG(a), KRT_ARG(n), KRT_ARG(n)};
    krt_launch_desc d = kt_desc1(100, args, 3);
    KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    vadd_ok(&f, 100);
    d.num_args = 5;
    KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    vadd_ok(&f, 100);
    d.num_args = 0;
    d.args = NULL;
    KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    vadd_ok(&f, 100);
    teardown(&f);
}

Test(launch, wrong_argument_size)
{
    kt_skip_on_host("a struct is passed by value, which the native kernel ABI does not pass");
    fixture f = setup();
    krt_kernel *k = kt_kernel(f.m, "krt_vadd");
    float *a = kt_alloc(f.ctx, 400, KRT_MEMORY_SHARED);
    uint64_t n64 = 100;
    uint32_t n = 100, p32 = 0;
    /* An 8-byte value for the 4-byte n. */
    krt_arg big[] = {KRT_ARG(a), KRT_ARG(a), KRT_ARG(a), KRT_ARG(n64)};
    krt_launch_desc d = kt_desc1(100, big, 4);
    KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    vadd_ok(&f, 100);
    /* A 4-byte value for a pointer. */
    krt_arg small[] = {KRT_ARG(a), KRT_ARG(p32), KRT_ARG(a), KRT_ARG(n)};
    d.args = small;
    KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    vadd_ok(&f, 100);
    /* A struct of the wrong size. */
    krt_kernel *ks = kt_kernel(f.m, "krt_struct");
    krt_params p = {0};
    int64_t *out = kt_alloc(f.ctx, 64, KRT_MEMORY_SHARED);
    krt_arg sargs[] = {KRT_ARG(out), {&p, 28, KRT_ARG_TYPE_NONE}};
    krt_launch_desc ds = kt_desc1(1, sargs, 2);
    KT_EXPECT(krt_launch(ks, &ds), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    sargs[1] = KRT_ARG(p);
    KT_OK(krt_launch_sync(ks, &ds));
    vadd_ok(&f, 100);
    teardown(&f);
}

Test(launch, wrong_argument_kind)
{
    fixture f = setup();
    krt_kernel *k = kt_kernel(f.m, "krt_vadd");
    float *a = kt_alloc(f.ctx, 400, KRT_MEMORY_SHARED);
    uint32_t n = 100;
    /* A __local argument where a global pointer goes. */
    krt_arg local_for_global[] = {KRT_ARG(a), KRT_ARG_LOCAL(8), KRT_ARG(a), KRT_ARG(n)};
    krt_launch_desc d = kt_desc1(100, local_for_global, 4);
    KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    vadd_ok(&f, 100);
    /* A __local argument where a scalar goes. */
    krt_arg local_for_scalar[] = {KRT_ARG(a), KRT_ARG(a), KRT_ARG(a), KRT_ARG_LOCAL(4)};
    d.args = local_for_scalar;
    KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    vadd_ok(&f, 100);
    /* A value where a __local argument goes. */
    krt_kernel *gs = kt_kernel(f.m, "krt_group_sum");
    int32_t *in = kt_alloc(f.ctx, 256 * 4, KRT_MEMORY_SHARED), *out = kt_alloc(f.ctx, 256 * 4, KRT_MEMORY_SHARED);
    uint32_t m = 256;
    krt_arg value_for_local[] = {KRT_ARG(in), KRT_ARG(out), KRT_ARG(in), KRT_ARG(m)};
    krt_launch_desc dl = kt_desc1(256, value_for_local, 4);
    dl.group[0] = 64;
    KT_EXPECT(krt_launch(gs, &dl), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    /* A NULL value with a pointer's size where a scalar goes is a __local argument, not a scalar. */
    krt_arg null_scalar[] = {KRT_ARG(a), KRT_ARG(a), KRT_ARG(a), {NULL, 4, KRT_ARG_TYPE_NONE}};
    d.args = null_scalar;
    KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    vadd_ok(&f, 100);
    teardown(&f);
}

Test(launch, pointers_not_from_krt)
{
    fixture f = setup();
    krt_kernel *k = kt_kernel(f.m, "krt_vadd");
    float *a = kt_alloc(f.ctx, 400, KRT_MEMORY_SHARED);
    float *freed = kt_alloc(f.ctx, 400, KRT_MEMORY_SHARED);
    KT_OK(krt_free(f.ctx, freed));
    float on_stack[100];
    float *stack = on_stack, *heap = malloc(400);
    cr_assert_not_null(heap);
    uint32_t n = 100;
    float *bad[] = {freed, stack, heap};
    for (int i = 0; i < 3; i++) {
        krt_arg args[] = {KRT_ARG(a), KRT_ARG(a), KRT_ARG(bad[i]), KRT_ARG(n)};
        krt_launch_desc d = kt_desc1(100, args, 4);
        KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_POINTER);
        vadd_ok(&f, 100);
    }
    free(heap);
    teardown(&f);
}

Test(launch, empty_ndrange)
{
    fixture f = setup();
    krt_kernel *k = kt_kernel(f.m, "krt_iota");
    uint32_t *out = kt_alloc(f.ctx, 400, KRT_MEMORY_SHARED);
    uint32_t n = 100, base = 0;
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(n), KRT_ARG(base)};
    const krt_ndrange empties[] = {{1, {0, 0, 0}}, {0, {0, 0, 0}}, {2, {10, 0, 0}}, {3, {4, 4, 0}}, {2, {0, 5, 0}}};
    for (size_t i = 0; i < sizeof empties / sizeof empties[0]; i++) {
        krt_launch_desc d = {.range = empties[i], .args = args, .num_args = 3};
        krt_result r = krt_launch(k, &d);
        cr_assert_eq(r, KRT_ERROR_INVALID_NDRANGE, "range %zu: %s", i, krt_result_name(r));
        d.group[0] = 1;
        d.group[1] = 1;
        d.group[2] = 1;
        r = krt_launch(k, &d);
        cr_assert_eq(r, KRT_ERROR_INVALID_NDRANGE, "range %zu with a static group: %s", i, krt_result_name(r));
        krt_launch_config cfg;
        r = krt_launch_config_get(k, &empties[i], &cfg);
        cr_assert_eq(r, KRT_ERROR_INVALID_NDRANGE, "config of range %zu: %s", i, krt_result_name(r));
    }
    vadd_ok(&f, 100);
    teardown(&f);
}

Test(launch, oversized_ndrange)
{
    fixture f = setup();
    krt_kernel *k = kt_kernel(f.m, "krt_iota");
    uint32_t *out = kt_alloc(f.ctx, 400, KRT_MEMORY_SHARED);
    uint32_t n = 100, base = 0;
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(n), KRT_ARG(base)};
    /* More groups of one item than the device allows in dimension 0. */
    krt_launch_desc d = {.range = {1, {(uint64_t)f.dev.max_group_count[0] + 1, 0, 0}}, .group = {1, 1, 1},
                         .args = args, .num_args = 3};
    KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_NDRANGE);
    vadd_ok(&f, 100);
    /* A range no group size can cover. */
    krt_launch_desc dd = {.range = {1, {UINT64_MAX, 0, 0}}, .args = args, .num_args = 3};
    KT_EXPECT(krt_launch(k, &dd), KRT_ERROR_INVALID_NDRANGE);
    krt_launch_config cfg;
    KT_EXPECT(krt_launch_config_get(k, &dd.range, &cfg), KRT_ERROR_INVALID_NDRANGE);
    /* Same in the third dimension. */
    krt_launch_desc d3 = {.range = {3, {1, 1, (uint64_t)f.dev.max_group_count[2] + 1}}, .group = {1, 1, 1},
                          .args = args, .num_args = 3};
    KT_EXPECT(krt_launch(k, &d3), KRT_ERROR_INVALID_NDRANGE);
    vadd_ok(&f, 100);
    teardown(&f);
}

Test(launch, static_group_over_device_limits)
{
    fixture f = setup();
    krt_kernel *k = kt_kernel(f.m, "krt_count3");
    const uint32_t nx = 64, ny = 64, nz = 4;
    uint32_t *hits = kt_alloc(f.ctx, nx * ny * nz * 4, KRT_MEMORY_SHARED);
    krt_arg args[] = {KRT_ARG(hits), KRT_ARG(nx), KRT_ARG(ny), KRT_ARG(nz)};
    krt_launch_desc d = {.range = {3, {nx, ny, nz}}, .args = args, .num_args = 4};
    /* Over the per-dimension maximum. */
    d.group[0] = f.dev.max_group[0] + 1;
    d.group[1] = d.group[2] = 1;
    KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_GROUP_SIZE);
    d.group[0] = 1;
    d.group[1] = f.dev.max_group[1] + 1;
    KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_GROUP_SIZE);
    /* Every dimension within its maximum, the product over the total. */
    uint32_t gx = f.dev.max_group[0], gy = 2;
    while ((uint64_t)gx * gy <= f.dev.max_group_size)
        gy *= 2;
    if (gy <= f.dev.max_group[1]) {
        d.group[0] = gx;
        d.group[1] = gy;
        d.group[2] = 1;
        KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_GROUP_SIZE);
    }
    /* Over the kernel's own maximum. */
    krt_kernel_properties p;
    KT_OK(krt_kernel_properties_get(k, &p));
    d.group[0] = p.max_group_size + 1;
    d.group[1] = d.group[2] = 1;
    if (d.group[0] <= f.dev.max_group[0]) {
        d.range.size[0] = d.group[0];
        KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_GROUP_SIZE);
    }
    /* Afterwards a correct static launch of the same kernel covers every item once. */
    memset(hits, 0, nx * ny * nz * 4);
    d.range = (krt_ndrange){3, {nx, ny, nz}};
    d.group[0] = 16;
    d.group[1] = 4;
    d.group[2] = 2;
    KT_OK(krt_launch_sync(k, &d));
    for (uint32_t i = 0; i < nx * ny * nz; i++)
        cr_assert_eq(hits[i], 1, "item %u", i);
    vadd_ok(&f, 100);
    teardown(&f);
}

Test(launch, required_group_size)
{
    fixture f = setup();
    krt_kernel *k = kt_kernel(f.m, "krt_reqd64");
    enum { N = 1000 };
    uint32_t *out = kt_alloc(f.ctx, N * 4, KRT_MEMORY_SHARED);
    uint32_t n = N;
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(n)};
    krt_launch_desc d = kt_desc1(N, args, 2);
    const uint32_t wrong[][3] = {{32, 1, 1}, {128, 1, 1}, {64, 2, 1}, {1, 1, 1}};
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
        memcpy(d.group, wrong[i], sizeof d.group);
        if (wrong[i][1] > 1)
            d.range = (krt_ndrange){2, {N, 2, 0}};
        else
            d.range = (krt_ndrange){1, {N, 0, 0}};
        KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_GROUP_SIZE);
    }
    /* The required size given statically, then chosen by krt: both run groups of 64, the last one partial. */
    d.range = (krt_ndrange){1, {N, 0, 0}};
    const uint32_t right[3] = {64, 1, 1};
    for (int pass = 0; pass < 2; pass++) {
        memset(out, 0, N * 4);
        memcpy(d.group, right, sizeof d.group);
        if (pass == 1)
            memset(d.group, 0, sizeof d.group);
        KT_OK(krt_launch_sync(k, &d));
        for (uint32_t i = 0; i < N; i++)
            cr_assert_eq(out[i], kt_local_size_at(N, 64, i), "pass %d item %u saw group size %u", pass, i, out[i]);
    }
    vadd_ok(&f, 100);
    teardown(&f);
}

Test(launch, launch_sync_reports_errors_like_launch)
{
    fixture f = setup();
    krt_kernel *k = kt_kernel(f.m, "krt_vadd");
    float *a = kt_alloc(f.ctx, 400, KRT_MEMORY_SHARED);
    uint32_t n = 100;
    krt_arg args[] = {KRT_ARG(a), KRT_ARG(a), KRT_ARG(a), KRT_ARG(n)};
    krt_launch_desc d = kt_desc1(0, args, 4);
    KT_EXPECT(krt_launch_sync(k, &d), KRT_ERROR_INVALID_NDRANGE);
    d = kt_desc1(100, args, 3);
    KT_EXPECT(krt_launch_sync(k, &d), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    vadd_ok(&f, 100);
    teardown(&f);
}

/* A pointer that was valid at the previous launch and has been freed since is refused, even though its value
 * is the one already set on the kernel. */
Test(launch, freed_pointer_after_a_good_launch)
{
    fixture f = setup();
    krt_kernel *k = kt_kernel(f.m, "krt_iota");
    enum { N = 500 };
    uint32_t *out = kt_alloc(f.ctx, N * 4, KRT_MEMORY_SHARED);
    uint32_t n = N, base = 1;
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(n), KRT_ARG(base)};
    krt_launch_desc d = kt_desc1(N, args, 3);
    KT_OK(krt_launch_sync(k, &d));
    KT_OK(krt_free(f.ctx, out));
    KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_POINTER);
    KT_EXPECT(krt_launch_sync(k, &d), KRT_ERROR_INVALID_POINTER);
    vadd_ok(&f, 1000);
    teardown(&f);
}

/* A launch that fails on a later argument leaves no trace: the next launch with the earlier arguments runs
 * with exactly those. */
Test(launch, failed_launch_leaves_no_partial_arguments)
{
    fixture f = setup();
    krt_kernel *k = kt_kernel(f.m, "krt_optional");
    enum { N = 2000 };
    int32_t *oa = kt_alloc(f.ctx, N * 4, KRT_MEMORY_SHARED), *ob = kt_alloc(f.ctx, N * 4, KRT_MEMORY_SHARED);
    int32_t *src = kt_alloc(f.ctx, N * 4, KRT_MEMORY_SHARED), *freed = kt_alloc(f.ctx, N * 4, KRT_MEMORY_SHARED);
    KT_OK(krt_free(f.ctx, freed));
    for (int i = 0; i < N; i++)
        src[i] = i * 7;
    uint32_t n = N;
    krt_arg good[] = {KRT_ARG(oa), KRT_ARG(src), KRT_ARG(n)};
    krt_launch_desc dg = kt_desc1(N, good, 3);
    KT_OK(krt_launch_sync(k, &dg));
    /* The same kernel with a new output, then a bad second argument. */
    krt_arg bad_ptr[] = {KRT_ARG(ob), KRT_ARG(freed), KRT_ARG(n)};
    krt_launch_desc db = kt_desc1(N, bad_ptr, 3);
    krt_arg bad_kind[] = {KRT_ARG(ob), KRT_ARG_LOCAL(64), KRT_ARG(n)};
    krt_launch_desc dk = kt_desc1(N, bad_kind, 3);
    uint64_t wide = N;
    krt_arg bad_size[] = {KRT_ARG(ob), KRT_ARG(src), KRT_ARG(wide)};
    krt_launch_desc ds = kt_desc1(N, bad_size, 3);
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < N; i++)
            oa[i] = ob[i] = -5;
        if (round == 0)
            KT_EXPECT(krt_launch(k, &db), KRT_ERROR_INVALID_POINTER);
        else if (round == 1)
            KT_EXPECT(krt_launch(k, &dk), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
        else
            KT_EXPECT(krt_launch(k, &ds), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
        KT_OK(krt_launch_sync(k, &dg));
        for (int i = 0; i < N; i++) {
            cr_assert_eq(oa[i], i * 7, "round %d: item %d of the right output is %d", round, i, oa[i]);
            cr_assert_eq(ob[i], -5, "round %d: the failed launch's output was written at %d", round, i);
        }
    }
    teardown(&f);
}

/* The __local size is an argument like the others: changed with the group size between launches, back to
 * back, each launch gets its own. */
Test(launch, local_size_changes_between_launches)
{
    fixture f = setup();
    krt_kernel *k = kt_kernel(f.m, "krt_group_sum");
    enum { N = 4096 };
    int32_t *in = kt_alloc(f.ctx, N * 4, KRT_MEMORY_SHARED);
    for (int i = 0; i < N; i++)
        in[i] = (i % 13) - 6 + (i / 100);
    const uint32_t groups[4] = {32, 256, 16, 128};
    int32_t *outs[4];
    uint32_t n = N;
    for (int r = 0; r < 4; r++) {
        outs[r] = kt_alloc(f.ctx, (N / groups[r]) * 4, KRT_MEMORY_SHARED);
        krt_arg args[] = {KRT_ARG(in), KRT_ARG(outs[r]), KRT_ARG_LOCAL(groups[r] * 4), KRT_ARG(n)};
        krt_launch_desc d = kt_desc1(N, args, 4);
        d.group[0] = groups[r];
        KT_OK(krt_launch(k, &d));
    }
    KT_OK(krt_context_synchronize(f.ctx));
    for (int r = 0; r < 4; r++)
        for (uint32_t g = 0; g < N / groups[r]; g++) {
            int32_t want = 0;
            for (uint32_t i = g * groups[r]; i < (g + 1) * groups[r]; i++)
                want += in[i];
            cr_assert_eq(outs[r][g], want, "group size %u, group %u: %d, expected %d", groups[r], g, outs[r][g],
                         want);
        }
    teardown(&f);
}

typedef struct {
    int8_t c;
    int16_t s;
    float v[4];
    krt_params p;
    uint8_t tail;
} echo_args;

/* Back-to-back launches that each change one byte region of one argument (1, 2, 16 and 32-byte values): every
 * launch runs with its own values, so krt's "set only what changed" compares whole values. */
Test(launch, every_byte_of_every_argument_counts)
{
    kt_skip_on_host("its kernels (krt_reflect, krt_misc) use vector types that the C side of the kernels does not compile");
    fixture f = setup();
    krt_module *m = kt_module(f.ctx, "krt_misc");
    krt_kernel *k = kt_kernel(m, "krt_echo");
    enum { L = 12 };
    echo_args a[L];
    a[0] = (echo_args){.c = 1, .s = 2, .v = {3, 4, 5, 6}, .p = {.a = 7, .b = 8, .c = 9, .d = {10, 11, 12}}, .tail = 13};
    for (int i = 1; i < L; i++)
        a[i] = a[i - 1];
    a[1].c = -100;
    a[2].s = 30000;
    a[3].v[0] = 41;
    a[4].v[3] = 44;
    a[5].v[1] = 42;
    a[6].p.a = 70;
    a[7].p.d[2] = 120;
    a[8].p.c = 90000000000ll;
    a[9].p.b = 80;
    a[10].tail = 200;
    a[11] = a[0];
    int64_t *outs[L];
    for (int i = 0; i < L; i++) {
        outs[i] = kt_alloc(f.ctx, 13 * 8, KRT_MEMORY_SHARED);
        krt_arg args[] = {KRT_ARG(outs[i]), KRT_ARG(a[i].c), KRT_ARG(a[i].s),
                          {a[i].v, sizeof a[i].v, KRT_ARG_TYPE_NONE}, KRT_ARG(a[i].p), KRT_ARG(a[i].tail)};
        krt_launch_desc d = kt_desc1(1, args, 6);
        KT_OK(krt_launch(k, &d));
    }
    KT_OK(krt_context_synchronize(f.ctx));
    for (int i = 0; i < L; i++) {
        const int64_t want[13] = {a[i].c,        a[i].s,        (int64_t)a[i].v[0], (int64_t)a[i].v[1],
                                  (int64_t)a[i].v[2], (int64_t)a[i].v[3], a[i].p.a, (int64_t)a[i].p.b,
                                  a[i].p.c,      a[i].p.d[0],   a[i].p.d[1],   a[i].p.d[2], a[i].tail};
        for (int j = 0; j < 13; j++)
            cr_assert_eq(outs[i][j], want[j], "launch %d, value %d: %lld, expected %lld", i, j,
                         (long long)outs[i][j], (long long)want[j]);
    }
    krt_module_destroy(m);
    teardown(&f);
}

/* __local arguments up to the device's shared local memory run; one byte more is an argument of the wrong
 * size, reported before anything reaches the driver, and the kernel works afterwards. */
Test(launch, local_argument_at_and_over_the_device_limit)
{
    fixture f = setup();
    krt_kernel *k = kt_kernel(f.m, "krt_group_sum");
    enum { N = 1024 };
    int32_t *in = kt_alloc(f.ctx, N * 4, KRT_MEMORY_SHARED), *out = kt_alloc(f.ctx, N * 4, KRT_MEMORY_SHARED);
    for (int i = 0; i < N; i++)
        in[i] = i;
    uint32_t n = N;
    const size_t limit = f.dev.max_shared_local_memory;
    krt_arg over[] = {KRT_ARG(in), KRT_ARG(out), KRT_ARG_LOCAL(limit + 1), KRT_ARG(n)};
    krt_launch_desc d = kt_desc1(N, over, 4);
    d.group[0] = 64;
    KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    d.group[0] = 0;
    KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    /* At the limit: krt_group_sum has no __local variable of its own, but its module has krt_local_tile's tile,
     * which ze_pocl's PoCL gives every kernel of the module. So the driver may refuse it, saying so; a device that
     * gives a kernel only its own runs it. */
    krt_arg at[] = {KRT_ARG(in), KRT_ARG(out), KRT_ARG_LOCAL(limit), KRT_ARG(n)};
    d.args = at;
    d.group[0] = 64;
    memset(out, 0xff, N * 4);
    krt_result r = krt_launch_sync(k, &d);
    if (r != KRT_SUCCESS) {
        KT_EXPECT(r, KRT_ERROR_INVALID_KERNEL_ARGUMENT);
        cr_assert(strstr(krt_last_error_message(), "every __local variable of its module") != NULL, "%s",
                  krt_last_error_message());
    } else {
        for (int g = 0; g < N / 64; g++) {
            int32_t want = 0;
            for (int i = g * 64; i < (g + 1) * 64; i++)
                want += i;
            cr_assert_eq(out[g], want, "group %d", g);
        }
    }
    /* At the limit in a module with no __local variable: it runs. */
    krt_module *gm = kt_module(f.ctx, "krt_guarded");
    krt_kernel *gb = kt_kernel(gm, "krt_guard_barrier");
    krt_arg gat[] = {KRT_ARG(in), KRT_ARG(out), KRT_ARG_LOCAL(limit), KRT_ARG(n)};
    krt_launch_desc gd = kt_desc1(N, gat, 4);
    gd.group[0] = 64;
    KT_OK(krt_launch_sync(gb, &gd));
    for (int i = 0; i < N; i++) {
        int g = i / 64, l = i % 64;
        cr_assert_eq(out[i], in[i] + in[g * 64 + (l + 1) % 64], "item %d", i);
    }
    krt_module_destroy(gm);
    vadd_ok(&f, 100);
    teardown(&f);
}

/* Arguments identical to the previous good launch do not excuse the rest of the description: every other
 * field is still checked, with its exact result, and a kernel's argument memory freed since is refused. */
Test(launch, warm_arguments_with_a_bad_description)
{
    fixture f = setup();
    krt_kernel *k = kt_kernel(f.m, "krt_iota");
    enum { N = 1000 };
    uint32_t *out = kt_alloc(f.ctx, N * 4, KRT_MEMORY_SHARED);
    uint32_t n = N, base = 3;
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(n), KRT_ARG(base)};
    krt_launch_desc good = kt_desc1(N, args, 3);
    for (int i = 0; i < 3; i++)
        KT_OK(krt_launch_sync(k, &good));
    krt_launch_desc d = good;
    d.range.size[0] = 0;
    KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_NDRANGE);
    d = good;
    d.range = (krt_ndrange){1, {UINT64_MAX, 0, 0}};
    KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_NDRANGE);
    d = good;
    d.group[0] = f.dev.max_group[0] + 1;
    KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_GROUP_SIZE);
    d = good;
    d.num_wait = 1;
    KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_ARGUMENT);
    d = good;
    d.num_args = 2;
    KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    d = good;
    d.args = NULL;
    KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_ARGUMENT);
    /* Still good afterwards, with the same arguments. */
    memset(out, 0, N * 4);
    KT_OK(krt_launch_sync(k, &good));
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(out[i], 3 + i);
    /* The memory behind an unchanged pointer argument goes away. */
    KT_OK(krt_free(f.ctx, out));
    KT_EXPECT(krt_launch(k, &good), KRT_ERROR_INVALID_POINTER);
    vadd_ok(&f, 100);
    teardown(&f);
}
