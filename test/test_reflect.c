/* Reflection straight from the SPIR-V: kernel names, argument kinds, types, sizes and names, and the
 * reqd_work_group_size / work_group_size_hint attributes. */
#include <stdlib.h>
#include <string.h>

#include "krt_test.h"

TestSuite(reflect, .timeout = KT_TEST_TIMEOUT);

typedef struct {
    krt_arg_kind kind;
    krt_scalar_type type;
    uint32_t vector_width; /* 0: not checked */
    uint32_t size;
    const char *name;
    const char *declared; /* krt_arg_info.type_name; NULL: not checked */
} want_arg;

/* The signature of krt_args in test/kernels/krt_reflect.cl. */
static const want_arg krt_args_sig[] = {
    {KRT_ARG_GLOBAL_POINTER, KRT_TYPE_FLOAT32, 0, sizeof(void *), "gf", "float*"},
    {KRT_ARG_CONSTANT_POINTER, KRT_TYPE_INT32, 0, sizeof(void *), "ci", "int*"},
    {KRT_ARG_LOCAL_POINTER, KRT_TYPE_FLOAT32, 0, 0, "lf", "float*"},
    {KRT_ARG_SCALAR, KRT_TYPE_INT8, 1, 1, "c", "char"},
    {KRT_ARG_SCALAR, KRT_TYPE_INT16, 1, 2, "s", "short"},
    {KRT_ARG_SCALAR, KRT_TYPE_INT32, 1, 4, "i", "int"},
    {KRT_ARG_SCALAR, KRT_TYPE_INT64, 1, 8, "l", "long"},
    {KRT_ARG_SCALAR, KRT_TYPE_FLOAT32, 1, 4, "f", "float"},
    {KRT_ARG_SCALAR, KRT_TYPE_FLOAT64, 1, 8, "d", "double"},
    {KRT_ARG_SCALAR, KRT_TYPE_FLOAT32, 4, 16, "v4", "float4"},
    {KRT_ARG_SCALAR, KRT_TYPE_INT32, 2, 8, "i2", "int2"},
    {KRT_ARG_STRUCT, KRT_TYPE_NONE, 0, 32, "p", "krt_params"},
    {KRT_ARG_SCALAR, KRT_TYPE_INT8, 1, 1, "uc", "uchar"},
    {KRT_ARG_SCALAR, KRT_TYPE_INT64, 1, 8, "ul", "ulong"},
    {KRT_ARG_GLOBAL_POINTER, KRT_TYPE_INT32, 0, sizeof(void *), "gu", "uint*"},
};
#define NUM_ARGS (sizeof krt_args_sig / sizeof krt_args_sig[0])

static void check_arg(const krt_arg_info *got, const want_arg *want, uint32_t index)
{
    cr_assert_eq(got->kind, want->kind, "arg %u kind %d, expected %d", index, got->kind, want->kind);
    cr_assert_eq(got->type, want->type, "arg %u type %d, expected %d", index, got->type, want->type);
    if (want->vector_width)
        cr_assert_eq(got->vector_width, want->vector_width, "arg %u vector width %u, expected %u", index,
                     got->vector_width, want->vector_width);
    cr_assert_eq(got->size, want->size, "arg %u size %u, expected %u", index, got->size, want->size);
    cr_assert_not_null(got->name, "arg %u name NULL", index);
    cr_assert_str_eq(got->name, want->name, "arg %u", index);
    cr_assert_not_null(got->type_name, "arg %u type_name NULL", index);
    if (want->declared)
        cr_assert_str_eq(got->type_name, want->declared, "arg %u declared type", index);
}

Test(reflect, kernel_names_in_module_order)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_reflect");
    static const char *const want[] = {"krt_args",    "krt_noargs",    "krt_reqd842",
                                       "krt_hint128x2", "krt_vectors", "krt_struct_ptr"};
    const char *names[8];
    uint32_t n = 8;
    KT_OK(krt_module_kernel_names(m, names, &n));
    cr_assert_eq(n, 6);
    for (uint32_t i = 0; i < n; i++)
        cr_assert_str_eq(names[i], want[i]);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

Test(reflect, argument_kinds_types_sizes_names)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_reflect");
    krt_kernel_info info;
    KT_OK(krt_module_kernel_info(m, "krt_args", &info));
    cr_assert_str_eq(info.name, "krt_args");
    cr_assert_eq(info.num_args, NUM_ARGS);
    for (uint32_t i = 0; i < 3; i++) {
        cr_assert_eq(info.required_group[i], 0);
        cr_assert_eq(info.group_hint[i], 0);
    }
    for (uint32_t i = 0; i < NUM_ARGS; i++) {
        krt_arg_info a;
        KT_OK(krt_module_arg_info(m, "krt_args", i, &a));
        check_arg(&a, &krt_args_sig[i], i);
    }
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

Test(reflect, kernel_handle_agrees_with_module)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_reflect");
    krt_kernel *k = kt_kernel(m, "krt_args");
    krt_kernel_info info;
    KT_OK(krt_kernel_info_get(k, &info));
    cr_assert_str_eq(info.name, "krt_args");
    cr_assert_eq(info.num_args, NUM_ARGS);
    for (uint32_t i = 0; i < NUM_ARGS; i++) {
        krt_arg_info a;
        KT_OK(krt_kernel_arg_info(k, i, &a));
        check_arg(&a, &krt_args_sig[i], i);
    }
    krt_arg_info a;
    KT_EXPECT(krt_kernel_arg_info(k, NUM_ARGS, &a), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_kernel_arg_info(k, 0, NULL), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_kernel_arg_info(NULL, 0, &a), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_kernel_info_get(k, NULL), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_kernel_info_get(NULL, &info), KRT_ERROR_INVALID_ARGUMENT);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

Test(reflect, vectors_of_three_take_four)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_reflect");
    static const want_arg sig[] = {
        {KRT_ARG_GLOBAL_POINTER, KRT_TYPE_FLOAT32, 0, sizeof(void *), "out", "float*"},
        {KRT_ARG_SCALAR, KRT_TYPE_FLOAT32, 3, 16, "v3", "float3"},
        {KRT_ARG_SCALAR, KRT_TYPE_INT8, 2, 2, "c2", "char2"},
        {KRT_ARG_SCALAR, KRT_TYPE_INT16, 8, 16, "s8", "short8"},
    };
    krt_kernel_info info;
    KT_OK(krt_module_kernel_info(m, "krt_vectors", &info));
    cr_assert_eq(info.num_args, 4);
    for (uint32_t i = 0; i < 4; i++) {
        krt_arg_info a;
        KT_OK(krt_module_arg_info(m, "krt_vectors", i, &a));
        check_arg(&a, &sig[i], i);
    }
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

Test(reflect, pointer_to_struct)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_reflect");
    static const want_arg sig[] = {
        {KRT_ARG_GLOBAL_POINTER, KRT_TYPE_NONE, 0, sizeof(void *), "p", "krt_params*"},
        {KRT_ARG_GLOBAL_POINTER, KRT_TYPE_INT64, 0, sizeof(void *), "out", "long*"},
    };
    for (uint32_t i = 0; i < 2; i++) {
        krt_arg_info a;
        KT_OK(krt_module_arg_info(m, "krt_struct_ptr", i, &a));
        check_arg(&a, &sig[i], i);
    }
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

Test(reflect, no_arguments)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_reflect");
    krt_kernel_info info;
    KT_OK(krt_module_kernel_info(m, "krt_noargs", &info));
    cr_assert_eq(info.num_args, 0);
    krt_arg_info a;
    KT_EXPECT(krt_module_arg_info(m, "krt_noargs", 0, &a), KRT_ERROR_INVALID_ARGUMENT);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

Test(reflect, required_group_size)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_reflect");
    krt_kernel_info info;
    KT_OK(krt_module_kernel_info(m, "krt_reqd842", &info));
    cr_assert_eq(info.required_group[0], 8);
    cr_assert_eq(info.required_group[1], 4);
    cr_assert_eq(info.required_group[2], 2);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(info.group_hint[i], 0);
    cr_assert_eq(info.num_args, 1);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

Test(reflect, group_size_hint)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_reflect");
    krt_kernel_info info;
    KT_OK(krt_module_kernel_info(m, "krt_hint128x2", &info));
    cr_assert_eq(info.group_hint[0], 128);
    cr_assert_eq(info.group_hint[1], 2);
    cr_assert_eq(info.group_hint[2], 1);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(info.required_group[i], 0);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* Copies a SPIR-V module without its OpName, OpMemberName and OpString instructions (debug names and strings
 * only, among them the declared argument types: the module stays valid). Returns the new size in bytes. */
static size_t strip_names(const uint32_t *in, size_t size, uint32_t *out)
{
    size_t words = size / 4, o = 5;
    memcpy(out, in, 5 * 4);
    for (size_t i = 5; i < words;) {
        uint32_t count = in[i] >> 16, opcode = in[i] & 0xffff;
        cr_assert(count > 0 && i + count <= words, "malformed test module at word %zu", i);
        if (opcode != 5 /* OpName */ && opcode != 6 /* OpMemberName */ && opcode != 7 /* OpString */) {
            memcpy(out + o, in + i, count * 4);
            o += count;
        }
        i += count;
    }
    return o * 4;
}

Test(reflect, basic_module_kinds_and_empty_names)
{
    krt_context *ctx = kt_context(NULL);
    size_t size;
    uint32_t *named = kt_read_file(kt_kernel_path("krt_basic"), &size);
    uint32_t *bare = malloc(size);
    cr_assert_not_null(bare);
    size_t bare_size = strip_names(named, size, bare);
    cr_assert_lt(bare_size, size, "the test module has no names to strip");
    krt_module_desc desc = {.code = bare, .size = bare_size};
    krt_module *m = NULL;
    KT_OK(krt_module_create(ctx, &desc, &m));
    free(named);
    free(bare);
    /* krt_group_sum(global const int *in, global int *out, local int *scratch, uint n), built without names and
     * declared types: uint is only a 32-bit integer then. */
    static const want_arg sig[] = {
        {KRT_ARG_GLOBAL_POINTER, KRT_TYPE_INT32, 0, sizeof(void *), "", ""},
        {KRT_ARG_GLOBAL_POINTER, KRT_TYPE_INT32, 0, sizeof(void *), "", ""},
        {KRT_ARG_LOCAL_POINTER, KRT_TYPE_INT32, 0, 0, "", ""},
        {KRT_ARG_SCALAR, KRT_TYPE_INT32, 1, 4, "", ""},
    };
    for (uint32_t i = 0; i < 4; i++) {
        krt_arg_info a;
        KT_OK(krt_module_arg_info(m, "krt_group_sum", i, &a));
        check_arg(&a, &sig[i], i);
    }
    /* krt_struct(global long *out, krt_params p) */
    krt_arg_info a;
    KT_OK(krt_module_arg_info(m, "krt_struct", 1, &a));
    cr_assert_eq(a.kind, KRT_ARG_STRUCT);
    cr_assert_eq(a.size, 32);
    krt_kernel_info info;
    KT_OK(krt_module_kernel_info(m, "krt_reqd16x2", &info));
    cr_assert_eq(info.required_group[0], 16);
    cr_assert_eq(info.required_group[1], 2);
    cr_assert_eq(info.required_group[2], 1);
    KT_OK(krt_module_kernel_info(m, "krt_hint32", &info));
    cr_assert_eq(info.group_hint[0], 32);
    cr_assert_eq(info.group_hint[1], 1);
    cr_assert_eq(info.group_hint[2], 1);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

Test(reflect, unknown_kernel_and_bad_arguments)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_reflect");
    krt_kernel_info info;
    krt_arg_info a;
    KT_EXPECT(krt_module_kernel_info(m, "krt_no_such_kernel", &info), KRT_ERROR_KERNEL_NOT_FOUND);
    KT_EXPECT(krt_module_kernel_info(m, "krt_arg", &info), KRT_ERROR_KERNEL_NOT_FOUND);
    KT_EXPECT(krt_module_arg_info(m, "krt_no_such_kernel", 0, &a), KRT_ERROR_KERNEL_NOT_FOUND);
    KT_EXPECT(krt_module_arg_info(m, "krt_args", NUM_ARGS, &a), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_module_arg_info(m, "krt_args", UINT32_MAX, &a), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_module_kernel_info(m, NULL, &info), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_module_kernel_info(m, "krt_args", NULL), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_module_kernel_info(NULL, "krt_args", &info), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_module_arg_info(m, "krt_args", 0, NULL), KRT_ERROR_INVALID_ARGUMENT);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* Samplers (and images) are reflected as KRT_ARG_OTHER. */
Test(reflect, sampler_is_other)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_other");
    krt_kernel_info info;
    KT_OK(krt_module_kernel_info(m, "krt_sampler_arg", &info));
    cr_assert_eq(info.num_args, 2);
    krt_arg_info a;
    KT_OK(krt_module_arg_info(m, "krt_sampler_arg", 0, &a));
    cr_assert_eq(a.kind, KRT_ARG_GLOBAL_POINTER);
    KT_OK(krt_module_arg_info(m, "krt_sampler_arg", 1, &a));
    cr_assert_eq(a.kind, KRT_ARG_OTHER);
    cr_assert_str_eq(a.name, "s");
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* The declared types come from llvm-spirv's kernel_arg_type strings; one whose count of types is not the kernel's
 * count of parameters is ignored (every type_name ""), and the other kernels keep theirs. */
Test(reflect, declared_types_and_a_string_that_does_not_match)
{
    krt_context *ctx = kt_context(NULL);
    size_t size;
    char *code = kt_read_file(kt_kernel_path("krt_basic"), &size);
    static const char want[] = "kernel_arg_type.krt_vadd.float*,float*,float*,uint,";
    char *at = memmem(code, size, want, sizeof want - 1);
    cr_assert_not_null(at, "krt_basic.spv carries no declared types for krt_vadd (is krt-cc's llvm-spirv option gone?)");
    krt_module *m = NULL;
    KT_OK(krt_module_create(ctx, &(krt_module_desc){.code = code, .size = size}, &m));
    krt_arg_info a;
    KT_OK(krt_module_arg_info(m, "krt_vadd", 3, &a));
    cr_assert_str_eq(a.type_name, "uint");
    cr_assert_eq(a.type, KRT_TYPE_INT32);
    krt_module_destroy(m);
    at[sizeof want - 2] = ';'; /* "uint;": three types for four parameters */
    KT_OK(krt_module_create(ctx, &(krt_module_desc){.code = code, .size = size}, &m));
    for (uint32_t i = 0; i < 4; i++) {
        KT_OK(krt_module_arg_info(m, "krt_vadd", i, &a));
        cr_assert_str_eq(a.type_name, "", "arg %u: %s", i, a.type_name);
    }
    KT_OK(krt_module_arg_info(m, "krt_iota", 0, &a));
    cr_assert_str_eq(a.type_name, "uint*");
    krt_module_destroy(m);
    free(code);
    krt_context_destroy(ctx);
}
