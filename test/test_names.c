/* Tests of the enum name functions of krt.h: krt_limit_name, krt_device_type_name, krt_arg_kind_name,
 * krt_scalar_type_name and krt_driver_status_name. Every value has its documented, distinct name; anything else
 * gets "unknown". */
#include <string.h>

#include "krt_test.h"

/* Checks a table of names: each one as documented in krt.h, none "unknown", none equal to another. */
static void assert_names(const char *what, const char *(*name_of)(int), const char *const *expected, int count)
{
    for (int i = 0; i < count; i++) {
        const char *n = name_of(i);
        cr_assert_not_null(n, "%s %d has a NULL name", what, i);
        cr_assert_str_eq(n, expected[i], "%s %d is named \"%s\", expected \"%s\"", what, i, n, expected[i]);
        cr_assert_str_neq(n, "unknown", "%s %d is named \"unknown\"", what, i);
        for (int j = 0; j < i; j++)
            cr_assert_str_neq(n, name_of(j), "%s %d and %d share the name \"%s\"", what, i, j, n);
    }
    /* Out of range on both sides, and far out. */
    const int outside[] = { count, count + 1, -1, 1000, 0x7fffffff, (int)0x80000000u };
    for (size_t i = 0; i < sizeof outside / sizeof outside[0]; i++)
        cr_assert_str_eq(name_of(outside[i]), "unknown", "%s %d should be \"unknown\", got \"%s\"", what, outside[i],
                         name_of(outside[i]));
}

static const char *limit_of(int v)
{
    return krt_limit_name((krt_limit)v);
}
static const char *device_type_of(int v)
{
    return krt_device_type_name((krt_device_type)v);
}
static const char *driver_status_of(int v)
{
    return krt_driver_status_name((krt_driver_status)v);
}
static const char *arg_kind_of(int v)
{
    return krt_arg_kind_name((krt_arg_kind)v);
}
static const char *scalar_type_of(int v)
{
    return krt_scalar_type_name((krt_scalar_type)v);
}

Test(names, limits)
{
    static const char *const expected[] = { "range",        "static", "required",   "kernel-max", "device-max",
                                            "local-memory", "spill",  "min-groups", "hint",       "barrier",
                                            "shape",        "tuned" };
    cr_assert_eq(sizeof expected / sizeof expected[0], (size_t)KRT_LIMIT_TUNED + 1);
    assert_names("krt_limit", limit_of, expected, (int)(sizeof expected / sizeof expected[0]));
}

Test(names, device_types)
{
    static const char *const expected[] = { "other", "GPU", "CPU", "FPGA", "accelerator", "host" };
    cr_assert_eq(sizeof expected / sizeof expected[0], (size_t)KRT_DEVICE_TYPE_HOST + 1);
    assert_names("krt_device_type", device_type_of, expected, (int)(sizeof expected / sizeof expected[0]));
}

Test(names, driver_statuses)
{
    static const char *const expected[] = { "devices", "no device", "not found", "loaded" };
    cr_assert_eq(sizeof expected / sizeof expected[0], (size_t)KRT_DRIVER_STATUS_LOADED + 1);
    assert_names("krt_driver_status", driver_status_of, expected, (int)(sizeof expected / sizeof expected[0]));
}

Test(names, arg_kinds)
{
    static const char *const expected[] = { "global pointer", "constant pointer", "local pointer",
                                            "scalar",         "struct",           "other" };
    cr_assert_eq(sizeof expected / sizeof expected[0], (size_t)KRT_ARG_OTHER + 1);
    assert_names("krt_arg_kind", arg_kind_of, expected, (int)(sizeof expected / sizeof expected[0]));
}

Test(names, scalar_types)
{
    static const char *const expected[] = { "none",    "int8",    "int16",   "int32", "int64",
                                            "float16", "float32", "float64", "bool" };
    cr_assert_eq(sizeof expected / sizeof expected[0], (size_t)KRT_TYPE_BOOL + 1);
    assert_names("krt_scalar_type", scalar_type_of, expected, (int)(sizeof expected / sizeof expected[0]));
}

/* The strings are static: the same pointer on every call, valid without any context. */
Test(names, static_strings)
{
    cr_assert_eq(krt_limit_name(KRT_LIMIT_SPILL), krt_limit_name(KRT_LIMIT_SPILL));
    cr_assert_eq(krt_arg_kind_name(KRT_ARG_SCALAR), krt_arg_kind_name(KRT_ARG_SCALAR));
    cr_assert_eq(krt_scalar_type_name(KRT_TYPE_INT32), krt_scalar_type_name(KRT_TYPE_INT32));
    cr_assert_eq(krt_device_type_name(KRT_DEVICE_TYPE_CPU), krt_device_type_name(KRT_DEVICE_TYPE_CPU));
}

/* On the real stack: ze_pocl's device is a CPU, the reflected saxpy-like signature of krt_basic names as
 * expected, and a dynamic configuration's limit has a known name. */
Test(names, real_objects, .timeout = KT_TEST_TIMEOUT)
{
    krt_context *ctx = kt_context(NULL);
    krt_device_info d;
    KT_OK(krt_context_device_info(ctx, &d));
    cr_assert_str_neq(krt_device_type_name(d.type), "unknown");
    if (strcmp(d.driver_name, "ze_pocl") == 0)
        cr_assert_str_eq(krt_device_type_name(d.type), "CPU");

    krt_module *m = kt_module(ctx, "krt_basic");
    krt_kernel *k = kt_kernel(m, "krt_iota");
    krt_kernel_info ki;
    KT_OK(krt_kernel_info_get(k, &ki));
    cr_assert_gt(ki.num_args, 0);
    for (uint32_t i = 0; i < ki.num_args; i++) {
        krt_arg_info a;
        KT_OK(krt_kernel_arg_info(k, i, &a));
        cr_assert_str_neq(krt_arg_kind_name(a.kind), "unknown");
        cr_assert_str_neq(krt_scalar_type_name(a.type), "unknown");
        if (a.kind == KRT_ARG_GLOBAL_POINTER)
            cr_assert_str_eq(krt_arg_kind_name(a.kind), "global pointer");
    }
    krt_ndrange r = { 1, { 100000, 1, 1 } };
    krt_launch_config c;
    KT_OK(krt_launch_config_get(k, &r, &c));
    cr_assert_str_neq(krt_limit_name(c.limit), "unknown");
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}
