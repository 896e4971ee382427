/* The API as a porting user meets it (issue 10): typed scalar arguments checked against the reflected type
 * (every pair of C type and kernel argument type of test/kernels/krt_typed.cl), the rvalue helpers, static
 * groups larger than the range, the blocking copy, and a module's load warnings. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "krt_test.h"

#include <criterion/redirect.h>

TestSuite(typed, .timeout = KT_TEST_TIMEOUT);
TestSuite(static_group, .timeout = KT_TEST_TIMEOUT);
TestSuite(memcpy_sync, .timeout = KT_TEST_TIMEOUT);
TestSuite(module_info, .timeout = KT_TEST_TIMEOUT);

/* What a type is, for the expected outcome: a C type and a kernel argument match exactly when their classes
 * are equal (integers by width, whatever the sign). */
enum { C_PTR, C_I8, C_I16, C_I32, C_I64, C_F32, C_F64 };

/* The C side: one value of each krt_arg_type, with its class. Index = krt_arg_type - 1. */
typedef struct {
    krt_arg_type type;
    int cls;
    size_t size;
    uint64_t bits; /* the value's bytes as an integer (little-endian prefix of size bytes) */
} c_value;

/* The kernel side: krt_typed's arguments 1..10, their class and how the kernel widens them to 64 bits. */
typedef struct {
    const char *name;
    int cls;
    int is_signed; /* integers: sign-extended by the kernel */
    const char *described; /* how krt names the reflected type in a mismatch */
} k_param;

static const k_param params[11] = {
    {"out", C_PTR, 0, "a global pointer"},
    {"c", C_I8, 1, "an 8-bit integer (char or uchar)"},
    {"uc", C_I8, 0, "an 8-bit integer (char or uchar)"},
    {"s", C_I16, 1, "a 16-bit integer (short or ushort)"},
    {"us", C_I16, 0, "a 16-bit integer (short or ushort)"},
    {"i", C_I32, 1, "a 32-bit integer (int or uint)"},
    {"ui", C_I32, 0, "a 32-bit integer (int or uint)"},
    {"l", C_I64, 1, "a 64-bit integer (long or ulong)"},
    {"ul", C_I64, 0, "a 64-bit integer (long or ulong)"},
    {"f", C_F32, 0, "float"},
    {"d", C_F64, 0, "double"},
};

typedef struct {
    krt_context *ctx;
    krt_module *m;
    krt_kernel *k;
    uint64_t *out, *out2;
    /* The values passed, one storage slot per C type, and a correctly typed argument per position. */
    int8_t i8;
    uint8_t u8;
    int16_t i16;
    uint16_t u16;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float f;
    double d;
    void *p;
    c_value values[11];
    const void *storage[11];
    krt_arg good[11];
} typed_fixture;

static uint64_t bits_of(const void *v, size_t size)
{
    uint64_t b = 0;
    memcpy(&b, v, size);
    return b;
}

static void typed_setup(typed_fixture *t)
{
    memset(t, 0, sizeof *t);
    t->ctx = kt_context(NULL);
    t->m = kt_module(t->ctx, "krt_typed");
    t->k = kt_kernel(t->m, "krt_typed");
    t->out = kt_alloc(t->ctx, 10 * sizeof(uint64_t), KRT_MEMORY_SHARED);
    t->out2 = kt_alloc(t->ctx, 10 * sizeof(uint64_t), KRT_MEMORY_SHARED);
    /* Values with high bits set, so that a wrong widening or a truncated copy shows. */
    t->i8 = -5;
    t->u8 = 200;
    t->i16 = -3000;
    t->u16 = 60000;
    t->i32 = -123456;
    t->u32 = 4000000000u;
    t->i64 = -(INT64_C(1) << 40) - 7;
    t->u64 = (UINT64_C(1) << 63) | 12345u;
    t->f = 1.5f;
    t->d = -2.25;
    t->p = t->out2;
    const void *st[11] = {&t->i8, &t->u8, &t->i16, &t->u16, &t->i32, &t->u32, &t->i64, &t->u64, &t->f, &t->d, &t->p};
    static const int cls[11] = {C_I8, C_I8, C_I16, C_I16, C_I32, C_I32, C_I64, C_I64, C_F32, C_F64, C_PTR};
    static const size_t sizes[11] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8, sizeof(void *)};
    for (int i = 0; i < 11; i++) {
        t->storage[i] = st[i];
        t->values[i] = (c_value){(krt_arg_type)(KRT_ARG_TYPE_INT8 + i), cls[i], sizes[i], bits_of(st[i], sizes[i])};
    }
    /* The correctly typed arguments, through KRT_ARG (which must tag each as its C type). */
    t->good[0] = KRT_ARG(t->out);
    t->good[1] = KRT_ARG(t->i8);
    t->good[2] = KRT_ARG(t->u8);
    t->good[3] = KRT_ARG(t->i16);
    t->good[4] = KRT_ARG(t->u16);
    t->good[5] = KRT_ARG(t->i32);
    t->good[6] = KRT_ARG(t->u32);
    t->good[7] = KRT_ARG(t->i64);
    t->good[8] = KRT_ARG(t->u64);
    t->good[9] = KRT_ARG(t->f);
    t->good[10] = KRT_ARG(t->d);
    static const krt_arg_type want[11] = {KRT_ARG_TYPE_POINTER, KRT_ARG_TYPE_INT8,   KRT_ARG_TYPE_UINT8,
                                          KRT_ARG_TYPE_INT16,   KRT_ARG_TYPE_UINT16, KRT_ARG_TYPE_INT32,
                                          KRT_ARG_TYPE_UINT32,  KRT_ARG_TYPE_INT64,  KRT_ARG_TYPE_UINT64,
                                          KRT_ARG_TYPE_FLOAT,   KRT_ARG_TYPE_DOUBLE};
    for (int i = 0; i < 11; i++)
        cr_assert_eq(t->good[i].type, want[i], "KRT_ARG tagged position %d as %s", i,
                     krt_arg_type_name(t->good[i].type));
}

static void typed_teardown(typed_fixture *t)
{
    KT_OK(krt_free(t->ctx, t->out));
    KT_OK(krt_free(t->ctx, t->out2));
    krt_module_destroy(t->m);
    krt_context_destroy(t->ctx);
}

/* What the kernel stores for a value of size bytes given to parameter p (1..10): the kernel's own type
 * decides the widening. */
static uint64_t widened(const k_param *p, uint64_t bits, size_t size)
{
    if (p->cls == C_F32 || p->cls == C_F64)
        return bits;
    int shift = 64 - 8 * (int)size;
    if (shift == 0)
        return bits;
    uint64_t low = bits & (UINT64_MAX >> shift);
    if (p->is_signed && (low >> (8 * size - 1)) & 1)
        return low | ~(UINT64_MAX >> shift);
    return low;
}

/* Every C type at every argument of krt_typed: accepted and delivered unchanged exactly when the classes
 * match; otherwise KRT_ERROR_INVALID_KERNEL_ARGUMENT naming the argument and both types, with nothing
 * launched, and the kernel still launches correctly afterwards. */
Test(typed, every_type_pair)
{
    typed_fixture t;
    typed_setup(&t);
    int accepted = 0, refused = 0;
    for (int pos = 0; pos < 11; pos++) {
        const k_param *p = &params[pos];
        for (int c = 0; c < 11; c++) {
            const c_value *v = &t.values[c];
            krt_arg args[11];
            memcpy(args, t.good, sizeof args);
            args[pos] = (krt_arg){t.storage[c], v->size, v->type};
            for (int i = 0; i < 10; i++)
                t.out[i] = t.out2[i] = UINT64_C(0xdeadbeefdeadbeef);
            krt_launch_desc d = kt_desc1(1, args, 11);
            krt_result r = krt_launch_sync(t.k, &d);
            if (p->cls == v->cls) {
                cr_assert_eq(r, KRT_SUCCESS, "%s for argument %d (%s) was refused: %s", krt_arg_type_name(v->type),
                             pos, p->name, krt_last_error_message());
                accepted++;
                uint64_t *where = pos == 0 ? t.out2 : t.out;
                for (int i = 0; i < 10; i++) {
                    uint64_t want = widened(&params[i + 1], t.values[i].bits, t.values[i].size);
                    if (i + 1 == pos)
                        want = widened(p, v->bits, v->size);
                    cr_assert_eq(where[i], want, "%s for argument %d (%s): out[%d] = %#llx, want %#llx",
                                 krt_arg_type_name(v->type), pos, p->name, i, (unsigned long long)where[i],
                                 (unsigned long long)want);
                }
            } else {
                cr_assert_eq(r, KRT_ERROR_INVALID_KERNEL_ARGUMENT, "%s for argument %d (%s) returned %s",
                             krt_arg_type_name(v->type), pos, p->name, krt_result_name(r));
                refused++;
                const char *msg = krt_last_error_message();
                char want[256];
                const char *cn = krt_arg_type_name(v->type);
                snprintf(want, sizeof want, "argument %d (%s) of krt_typed is %s but a%s %s was passed", pos,
                         p->name, p->described, cn[0] == 'i' ? "n" : "", cn);
                cr_assert(strstr(msg, want) != NULL, "message \"%s\" lacks \"%s\"", msg, want);
                for (int i = 0; i < 10; i++)
                    cr_assert_eq(t.out[i], UINT64_C(0xdeadbeefdeadbeef), "a refused launch wrote out[%d]", i);
            }
        }
    }
    /* 8 integer positions take 2 C types each, float, double and the pointer 1 each. */
    cr_assert_eq(accepted, 19);
    cr_assert_eq(refused, 121 - 19);
    typed_teardown(&t);
}

/* An untyped krt_arg keeps the size-only check: the float's bytes reach an int argument as they are. */
Test(typed, untyped_keeps_size_only_check)
{
    typed_fixture t;
    typed_setup(&t);
    krt_arg args[11];
    memcpy(args, t.good, sizeof args);
    float f = 1.0f;
    args[5] = (krt_arg){.value = &f, .size = sizeof f}; /* type left out: 0, untyped */
    cr_assert_eq(args[5].type, KRT_ARG_TYPE_NONE);
    krt_launch_desc d = kt_desc1(1, args, 11);
    KT_OK(krt_launch_sync(t.k, &d));
    cr_assert_eq(t.out[4], UINT64_C(0x3f800000), "out[4] = %#llx", (unsigned long long)t.out[4]);
    /* The size is still checked. */
    double dd = 1.0;
    args[5] = (krt_arg){.value = &dd, .size = sizeof dd};
    KT_EXPECT(krt_launch_sync(t.k, &d), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    typed_teardown(&t);
}

/* A typed argument whose size disagrees with its own type, and a tag outside the enum. */
Test(typed, bad_tags)
{
    typed_fixture t;
    typed_setup(&t);
    krt_arg args[11];
    memcpy(args, t.good, sizeof args);
    krt_launch_desc d = kt_desc1(1, args, 11);
    args[5] = (krt_arg){&t.i64, 8, KRT_ARG_TYPE_INT32};
    KT_EXPECT(krt_launch_sync(t.k, &d), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    cr_assert(strstr(krt_last_error_message(), "of 4 bytes, but 8 bytes were passed") != NULL, "%s",
              krt_last_error_message());
    args[5] = (krt_arg){&t.i32, 4, (krt_arg_type)99};
    KT_EXPECT(krt_launch_sync(t.k, &d), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    cr_assert(strstr(krt_last_error_message(), "type tag 99") != NULL, "%s", krt_last_error_message());
    args[5] = t.good[5];
    KT_OK(krt_launch_sync(t.k, &d));
    cr_assert_eq(t.out[4], (uint64_t)(int64_t)t.i32);
    typed_teardown(&t);
}

/* A vector and a struct by value take no typed scalar, even of the right size; untyped they work. */
Test(typed, vectors_and_structs_take_untyped_only)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_typed");
    krt_kernel *k = kt_kernel(m, "krt_typed_other");
    float *out = kt_alloc(ctx, 2 * sizeof(float), KRT_MEMORY_SHARED);
    float v[4] = {1, 2, 3, 4};
    struct {
        int32_t a;
        float b;
    } pair = {5, 0.5f};
    krt_arg args[3] = {KRT_ARG(out), {.value = v, .size = sizeof v}, KRT_ARG(pair)};
    cr_assert_eq(args[2].type, KRT_ARG_TYPE_NONE, "a struct must be untyped");
    krt_launch_desc d = kt_desc1(1, args, 3);
    KT_OK(krt_launch_sync(k, &d));
    cr_assert_eq(out[0], 10.0f);
    cr_assert_eq(out[1], 5.5f);
    uint64_t same_size = 0;
    args[2] = KRT_ARG(same_size);
    KT_EXPECT(krt_launch_sync(k, &d), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    cr_assert(strstr(krt_last_error_message(), "is a struct of 8 bytes but a uint64_t was passed") != NULL, "%s",
              krt_last_error_message());
    args[2] = KRT_ARG(pair);
    args[1] = KRT_F32(1.0f);
    KT_EXPECT(krt_launch_sync(k, &d), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    cr_assert(strstr(krt_last_error_message(), "is float4 but a float was passed (no C type matches it") != NULL,
              "%s", krt_last_error_message());
    KT_OK(krt_free(ctx, out));
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* The rvalue helpers: values computed in the call, typed, and the warm-launch record does not let a
 * mistyped value with the same bytes through. */
Test(typed, rvalue_helpers_and_warm_record)
{
    enum { N = 1000 };
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_typed");
    krt_kernel *k = kt_kernel(m, "krt_typed_axpy");
    float *y = kt_alloc(ctx, N * sizeof(float), KRT_MEMORY_SHARED);
    float *x = kt_alloc(ctx, N * sizeof(float), KRT_MEMORY_SHARED);
    float want[N];
    for (int i = 0; i < N; i++) {
        x[i] = (float)(i % 7);
        y[i] = want[i] = 1.0f;
    }
    /* Shrinking prefixes, as a solver's per-step launches: n - s - 1 items, alpha 0.5 * (s + 1). */
    for (int s = 0; s < 5; s++) {
        int n = N;
        krt_arg args[4] = {KRT_PTR(y), KRT_PTR(x), KRT_F32(0.5 * (s + 1)), KRT_I32(n - s - 1)};
        cr_assert_eq(args[2].type, KRT_ARG_TYPE_FLOAT);
        cr_assert_eq(args[3].type, KRT_ARG_TYPE_INT32);
        krt_launch_desc d = kt_desc1(N, args, 4);
        KT_OK(krt_launch_sync(k, &d));
        for (int i = 0; i < n - s - 1; i++)
            want[i] += 0.5f * (float)(s + 1) * x[i];
    }
    /* Warm: the same launch twice, then alpha's bytes as an int32_t (the same bytes as the last float). */
    float a = 2.0f;
    int32_t a_bits;
    memcpy(&a_bits, &a, 4);
    krt_arg args[4] = {KRT_ARG(y), KRT_ARG(x), KRT_ARG(a), KRT_I32(N)};
    krt_launch_desc d = kt_desc1(N, args, 4);
    KT_OK(krt_launch_sync(k, &d));
    KT_OK(krt_launch_sync(k, &d));
    for (int i = 0; i < N; i++)
        want[i] += 2 * 2.0f * x[i];
    args[2] = KRT_ARG(a_bits);
    KT_EXPECT(krt_launch_sync(k, &d), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    cr_assert(strstr(krt_last_error_message(), "argument 2 (a) of krt_typed_axpy is float but an int32_t was passed") !=
                  NULL,
              "%s", krt_last_error_message());
    for (int i = 0; i < N; i++)
        cr_assert_eq(y[i], want[i], "y[%d] = %f, want %f", i, (double)y[i], (double)want[i]);
    /* A double for the int count, through KRT_ARG. */
    double n_wrong = N;
    args[2] = KRT_ARG(a);
    args[3] = KRT_ARG(n_wrong);
    KT_EXPECT(krt_launch_sync(k, &d), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    cr_assert(strstr(krt_last_error_message(), "is a 32-bit integer (int or uint) but a double was passed") != NULL,
              "%s", krt_last_error_message());
    args[3] = KRT_I32(N);
    KT_OK(krt_launch_sync(k, &d));
    for (int i = 0; i < N; i++) {
        want[i] += 2.0f * x[i];
        cr_assert_eq(y[i], want[i], "y[%d] = %f, want %f", i, (double)y[i], (double)want[i]);
    }
    KT_OK(krt_free(ctx, y));
    KT_OK(krt_free(ctx, x));
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* The names, one per value, and "unknown" past the enum. */
Test(typed, type_names)
{
    static const char *const names[] = {"untyped", "int8_t",   "uint8_t", "int16_t",  "uint16_t", "int32_t",
                                        "uint32_t", "int64_t", "uint64_t", "float", "double",   "pointer"};
    for (int i = 0; i <= KRT_ARG_TYPE_POINTER; i++)
        cr_assert_str_eq(krt_arg_type_name((krt_arg_type)i), names[i]);
    cr_assert_str_eq(krt_arg_type_name(KRT_ARG_TYPE_LOCAL_PER_ITEM), "__local bytes per work-item");
    cr_assert_str_eq(krt_arg_type_name((krt_arg_type)(KRT_ARG_TYPE_LOCAL_PER_ITEM + 1)), "unknown");
    cr_assert_str_eq(krt_arg_type_name((krt_arg_type)-1), "unknown");
}

/* Counts krt_count3's hits over an nx x ny range with a static group, or returns the launch's error. */
static krt_result count2(krt_kernel *k, uint32_t nx, uint32_t ny, const uint32_t group[3], uint32_t *hits)
{
    memset(hits, 0, (size_t)nx * ny * sizeof *hits);
    uint32_t nz = 1;
    krt_arg args[4] = {KRT_PTR(hits), KRT_ARG(nx), KRT_ARG(ny), KRT_ARG(nz)};
    krt_launch_desc d = {.range = {0, {nx, ny, 0}}, .args = args, .num_args = 4};
    memcpy(d.group, group, sizeof d.group);
    return krt_launch_sync(k, &d);
}

/* count2 over a buffer of cap entries, all cleared first, so that assert_hits can see what the launch touched. */
static krt_result count2_in(krt_kernel *k, uint32_t nx, uint32_t ny, const uint32_t group[3], uint32_t *hits,
                            uint32_t cap)
{
    memset(hits, 0, cap * sizeof *hits);
    return count2(k, nx, ny, group, hits);
}

/* Each of the first n hits is 1 and the rest of the buffer (cap entries) 0: the kernel ran for exactly the range. */
static void assert_hits(const uint32_t *hits, uint32_t n, uint32_t cap)
{
    for (uint32_t i = 0; i < cap; i++)
        cr_assert_eq(hits[i], i < n ? 1u : 0u, "hits[%u] = %u with a range of %u items", i, hits[i], n);
}

/* Range {256, 1} infers two dimensions; a group of 32 x 8 is 8 rows for a range of 1: one partial group there, as
 * krt's own choice for a range smaller than its group is (one rule for groups, whoever picks them). Once this was
 * refused, as OpenCL 1.2 refuses it. */
Test(static_group, larger_than_range_runs_as_one_partial_group)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_basic");
    krt_kernel *k = kt_kernel(m, "krt_count3");
    uint32_t *hits = kt_alloc(ctx, 256 * 8 * sizeof(uint32_t), KRT_MEMORY_SHARED);
    KT_OK(count2_in(k, 256, 1, (uint32_t[3]){32, 8, 0}, hits, 256 * 8));
    assert_hits(hits, 256, 256 * 8);
    KT_OK(count2_in(k, 20, 64, (uint32_t[3]){32, 4, 0}, hits, 256 * 8));
    assert_hits(hits, 20 * 64, 256 * 8);
    /* Equal to the range, and a range that is no multiple of the group (a partial last group), are launched. */
    KT_OK(count2_in(k, 256, 1, (uint32_t[3]){32, 1, 0}, hits, 256 * 8));
    assert_hits(hits, 256, 256 * 8);
    KT_OK(count2_in(k, 100, 7, (uint32_t[3]){32, 7, 0}, hits, 256 * 8));
    assert_hits(hits, 700, 256 * 8);
    KT_OK(count2_in(k, 100, 7, (uint32_t[3]){100, 2, 0}, hits, 256 * 8));
    assert_hits(hits, 700, 256 * 8);
    KT_OK(krt_free(ctx, hits));
    kt_assert_usable(ctx);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* The group krt reports for a range smaller than its usual choice is accepted from a caller, and runs the same:
 * krt_count3 over 1000 x 1 gets krt's 1-D group; given back as a static group it launches, and launches exactly. */
Test(static_group, krt_own_choice_is_accepted_as_a_static_group)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_basic");
    krt_kernel *k = kt_kernel(m, "krt_count3");
    krt_launch_config c;
    KT_OK(krt_launch_config_get(k, &(krt_ndrange){ 2, { 1000, 3, 0 } }, &c));
    uint32_t *hits = kt_alloc(ctx, 4096 * 4 * sizeof(uint32_t), KRT_MEMORY_SHARED);
    KT_OK(count2_in(k, 1000, 3, c.group, hits, 4096 * 4));
    assert_hits(hits, 3000, 4096 * 4);
    KT_OK(count2_in(k, 1000, 3, (uint32_t[3]){0, 0, 0}, hits, 4096 * 4));
    assert_hits(hits, 3000, 4096 * 4);
    KT_OK(krt_free(ctx, hits));
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* The static check's memo keys on the range: the same group over a smaller range, then the larger again, each
 * launch exactly its own range. */
Test(static_group, memo_keys_on_the_range)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_basic");
    krt_kernel *k = kt_kernel(m, "krt_count3");
    uint32_t *hits = kt_alloc(ctx, 64 * 8 * sizeof(uint32_t), KRT_MEMORY_SHARED);
    uint32_t g[3] = {16, 8, 0};
    KT_OK(count2_in(k, 64, 8, g, hits, 512));
    assert_hits(hits, 512, 512);
    KT_OK(count2_in(k, 64, 4, g, hits, 512));
    assert_hits(hits, 256, 512);
    KT_OK(count2_in(k, 64, 8, g, hits, 512));
    assert_hits(hits, 512, 512);
    /* Over the device's limit, then within it again: the refusal is not memoized as a success. */
    uint32_t *big = (uint32_t[3]){1u << 20, 1, 0};
    KT_EXPECT(count2_in(k, 64, 8, big, hits, 512), KRT_ERROR_INVALID_GROUP_SIZE);
    cr_assert(strstr(krt_last_error_message(), "exceeds the device's maxGroupSizeX") != NULL, "%s",
              krt_last_error_message());
    KT_OK(count2_in(k, 64, 8, g, hits, 512));
    assert_hits(hits, 512, 512);
    KT_OK(krt_free(ctx, hits));
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* A float from the stack to device memory and back, with nothing else waiting. */
Test(memcpy_sync, stack_values_round_trip)
{
    krt_context *ctx = kt_context(NULL);
    float *dev = kt_alloc(ctx, 64 * sizeof(float), KRT_MEMORY_DEVICE);
    for (int i = 0; i < 64; i++) {
        float v = 0.25f * (float)i - 3.0f;
        KT_OK(krt_memcpy_sync(ctx, NULL, dev + i, &v, sizeof v));
        v = 1e9f; /* the copy has completed: changing the source no longer matters */
    }
    krt_queue *q = NULL;
    KT_OK(krt_queue_create(ctx, NULL, &q));
    for (int i = 63; i >= 0; i--) {
        float back = -1.0f;
        KT_OK(krt_memcpy_sync(ctx, q, &back, dev + i, sizeof back));
        cr_assert_eq(back, 0.25f * (float)i - 3.0f, "dev[%d] = %f", i, (double)back);
    }
    float x = 0;
    KT_EXPECT(krt_memcpy_sync(NULL, NULL, dev, &x, 4), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_memcpy_sync(ctx, NULL, NULL, &x, 4), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_memcpy_sync(ctx, NULL, dev, NULL, 4), KRT_ERROR_INVALID_ARGUMENT);
    KT_OK(krt_memcpy_sync(ctx, NULL, dev, &x, 0));
    krt_queue_destroy(q);
    KT_OK(krt_free(ctx, dev));
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

/* The copy waits for the launch before it on the same queue. */
Test(memcpy_sync, ordered_after_a_launch)
{
    enum { N = 4096 };
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_basic");
    krt_kernel *k = kt_kernel(m, "krt_iota");
    uint32_t *dev = kt_alloc(ctx, N * sizeof(uint32_t), KRT_MEMORY_DEVICE);
    krt_arg args[3] = {KRT_PTR(dev), KRT_U32(N), KRT_U32(7)};
    krt_launch_desc d = kt_desc1(N, args, 3);
    KT_OK(krt_launch(k, &d));
    uint32_t last = 0;
    KT_OK(krt_memcpy_sync(ctx, NULL, &last, dev + N - 1, sizeof last));
    cr_assert_eq(last, 7u + N - 1, "dev[N - 1] = %u", last);
    KT_OK(krt_free(ctx, dev));
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

typedef struct {
    int warnings;
    char first[1024];
} log_capture;

static void capture(void *user, krt_log_level level, const char *message)
{
    log_capture *c = user;
    if (level == KRT_LOG_WARNING && __atomic_fetch_add(&c->warnings, 1, __ATOMIC_RELAXED) == 0)
        snprintf(c->first, sizeof c->first, "%s", message);
}

/* A module accepted despite a structured-order rule says so through krt_module_info_get, with the same line
 * the logger received; a clean module has none. */
Test(module_info, load_warnings)
{
    log_capture cap = {0};
    krt_context_desc cd = {.logger = {.func = capture, .user_data = &cap, .max_level = KRT_LOG_WARNING}};
    krt_context *ctx = kt_context(&cd);
    krt_module *o2 = kt_module(ctx, "o2/krt_o2_loopmerge");
    krt_module_info info;
    memset(&info, 0xab, sizeof info);
    KT_OK(krt_module_info_get(o2, &info));
    cr_assert_geq(info.num_warnings, 1u);
    cr_assert_eq((int)info.num_warnings, cap.warnings);
    cr_assert_str_eq(info.warnings[0], cap.first);
    cr_assert(strstr(info.warnings[0], "structured-order rule") != NULL, "%s", info.warnings[0]);
    uint32_t n = 0;
    KT_OK(krt_module_kernel_names(o2, NULL, &n));
    cr_assert_eq(info.num_kernels, n);

    /* (krt_basic warns of krt_local_tile, whose result depends on its group: test_launch_rules.c.) */
    krt_module *clean = kt_module(ctx, "krt_rules");
    KT_OK(krt_module_info_get(clean, &info));
    cr_assert_eq(info.num_warnings, 0u, "%s", info.num_warnings ? info.warnings[0] : "");
    cr_assert_null(info.warnings);
    KT_OK(krt_module_kernel_names(clean, NULL, &n));
    cr_assert_eq(info.num_kernels, n);

    /* No logger at all: the warnings are kept just the same. */
    krt_context *quiet = kt_context(NULL);
    krt_module *o2q = kt_module(quiet, "o2/krt_o2_loopmerge");
    KT_OK(krt_module_info_get(o2q, &info));
    cr_assert_geq(info.num_warnings, 1u);

    KT_EXPECT(krt_module_info_get(NULL, &info), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_module_info_get(clean, NULL), KRT_ERROR_INVALID_ARGUMENT);
    krt_module_destroy(o2q);
    krt_context_destroy(quiet);
    krt_module_destroy(o2);
    krt_module_destroy(clean);
    krt_context_destroy(ctx);
}

/* krt_stderr_logger, the logger KRT_TRACE=1 installs, prints the load warning as one "krt warning:" line. */
Test(module_info, stderr_logger_prints_load_warnings, .init = cr_redirect_stderr)
{
    krt_context_desc cd = {.logger = {.func = krt_stderr_logger, .max_level = KRT_LOG_WARNING}};
    krt_context *ctx = kt_context(&cd);
    krt_module *o2 = kt_module(ctx, "o2/krt_o2_blockorder");
    krt_module_info info;
    KT_OK(krt_module_info_get(o2, &info));
    cr_assert_geq(info.num_warnings, 1u);
    fflush(stderr);
    char text[8192] = "";
    size_t got = fread(text, 1, sizeof text - 1, cr_get_redirected_stderr());
    text[got] = '\0';
    char want[1100];
    snprintf(want, sizeof want, "krt warning: %s\n", info.warnings[0]);
    cr_assert(strstr(text, want) != NULL, "stderr \"%s\" lacks \"%s\"", text, want);
    krt_module_destroy(o2);
    krt_context_destroy(ctx);
}

/* KRT_TRACE=1 with no logger installs the stderr logger, which prints the load warning too. Criterion runs
 * each test in its own process, so the variable stays in this one. */
Test(module_info, trace_env_prints_load_warnings, .init = cr_redirect_stderr)
{
    cr_assert_eq(setenv("KRT_TRACE", "1", 1), 0);
    krt_context *ctx = kt_context(NULL);
    krt_module *o2 = kt_module(ctx, "o2/krt_o2_loopmerge");
    krt_module_info info;
    KT_OK(krt_module_info_get(o2, &info));
    cr_assert_geq(info.num_warnings, 1u);
    fflush(stderr);
    static char text[1 << 16];
    size_t got = fread(text, 1, sizeof text - 1, cr_get_redirected_stderr());
    text[got] = '\0';
    char want[1100];
    snprintf(want, sizeof want, "krt warning: %s\n", info.warnings[0]);
    krt_module_destroy(o2);
    krt_context_destroy(ctx);
    unsetenv("KRT_TRACE");
    cr_assert(strstr(text, want) != NULL, "stderr \"%s\" lacks \"%s\"", text, want);
}

/* Four threads launch one kernel at once, each alternating a correct launch and one whose float argument
 * carries an int32_t tag with the same bytes: the shared warm-launch record must never let the mistyped one
 * through, nor refuse a correct one, and every correct launch must land. */

enum { TT_THREADS = 4, TT_ROUNDS = 60, TT_N = 257 };

typedef struct {
    krt_context *ctx;
    krt_kernel *k;
    float *x;
    float *y[TT_THREADS];
    int wrong_ok[TT_THREADS], right_failed[TT_THREADS];
    pthread_barrier_t start;
} tt_shared;

typedef struct {
    tt_shared *s;
    int t;
} tt_arg;

static void *tt_worker(void *p)
{
    tt_arg *a = p;
    tt_shared *s = a->s;
    float alpha = 1.0f;
    int32_t alpha_bits;
    memcpy(&alpha_bits, &alpha, 4);
    int32_t n = TT_N;
    krt_arg right[4] = {KRT_ARG(s->y[a->t]), KRT_ARG(s->x), KRT_ARG(alpha), KRT_ARG(n)};
    krt_arg wrong[4] = {KRT_ARG(s->y[a->t]), KRT_ARG(s->x), KRT_ARG(alpha_bits), KRT_ARG(n)};
    krt_launch_desc dr = kt_desc1(TT_N, right, 4), dw = kt_desc1(TT_N, wrong, 4);
    pthread_barrier_wait(&s->start);
    for (int r = 0; r < TT_ROUNDS; r++) {
        if (krt_launch_sync(s->k, &dr) != KRT_SUCCESS)
            s->right_failed[a->t]++;
        if (krt_launch(s->k, &dw) != KRT_ERROR_INVALID_KERNEL_ARGUMENT)
            s->wrong_ok[a->t]++;
    }
    return NULL;
}

Test(typed, threads_share_the_warm_record)
{
    tt_shared s;
    memset(&s, 0, sizeof s);
    s.ctx = kt_context(NULL);
    krt_module *m = kt_module(s.ctx, "krt_typed");
    s.k = kt_kernel(m, "krt_typed_axpy");
    s.x = kt_alloc(s.ctx, TT_N * sizeof(float), KRT_MEMORY_SHARED);
    for (int i = 0; i < TT_N; i++)
        s.x[i] = (float)(i % 5);
    for (int t = 0; t < TT_THREADS; t++) {
        s.y[t] = kt_alloc(s.ctx, TT_N * sizeof(float), KRT_MEMORY_SHARED);
        for (int i = 0; i < TT_N; i++)
            s.y[t][i] = (float)t;
    }
    pthread_barrier_init(&s.start, NULL, TT_THREADS);
    pthread_t th[TT_THREADS];
    tt_arg args[TT_THREADS];
    for (int t = 0; t < TT_THREADS; t++) {
        args[t] = (tt_arg){&s, t};
        cr_assert_eq(pthread_create(&th[t], NULL, tt_worker, &args[t]), 0);
    }
    for (int t = 0; t < TT_THREADS; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_destroy(&s.start);
    KT_OK(krt_context_synchronize(s.ctx));
    for (int t = 0; t < TT_THREADS; t++) {
        cr_assert_eq(s.right_failed[t], 0, "thread %d: %d correct launches failed", t, s.right_failed[t]);
        cr_assert_eq(s.wrong_ok[t], 0, "thread %d: %d mistyped launches were not refused", t, s.wrong_ok[t]);
        for (int i = 0; i < TT_N; i++)
            cr_assert_eq(s.y[t][i], (float)t + TT_ROUNDS * s.x[i], "thread %d: y[%d] = %f", t, i, (double)s.y[t][i]);
    }
    for (int t = 0; t < TT_THREADS; t++)
        KT_OK(krt_free(s.ctx, s.y[t]));
    KT_OK(krt_free(s.ctx, s.x));
    krt_module_destroy(m);
    krt_context_destroy(s.ctx);
}
