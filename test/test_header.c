/* krt.h compiles as C11, C17, C++11 and C++17 with -pedantic -Werror (test/test.mk builds one object per
 * standard from test/header/ and links them here), and every compilation sees the same layouts. */
#include <string.h>

#include "krt_test.h"
#include "header/krt_header_layout.h"

TestSuite(header, .timeout = KT_TEST_TIMEOUT);

static void check_same(const char *what, void (*fn)(size_t *))
{
    size_t here[KT_LAYOUT_COUNT], there[KT_LAYOUT_COUNT];
    size_t i = 0;
#define KT_STORE_(e) here[i++] = (size_t)(e);
    KT_LAYOUT_LIST(KT_STORE_)
#undef KT_STORE_
    memset(there, 0xab, sizeof there);
    fn(there);
    for (i = 0; i < KT_LAYOUT_COUNT; i++)
        cr_assert_eq(there[i], here[i], "%s: layout item %zu is %zu, C11 in this test says %zu", what, i,
                     there[i], here[i]);
}

Test(header, c11_layout) { check_same("C11", kt_layout_c11); }
Test(header, c17_layout) { check_same("C17", kt_layout_c17); }
Test(header, cxx11_layout) { check_same("C++11", kt_layout_cxx11); }
Test(header, cxx17_layout) { check_same("C++17", kt_layout_cxx17); }

Test(header, cxx_calls_reach_libkrt)
{
    cr_assert_str_eq(kt_name_cxx11(KRT_ERROR_IO), "KRT_ERROR_IO");
    cr_assert_str_eq(kt_name_cxx17(KRT_ERROR_INVALID_NDRANGE), "KRT_ERROR_INVALID_NDRANGE");
}

Test(header, arg_macros)
{
    double d = 2.5;
    krt_arg a = KRT_ARG(d);
    cr_assert_eq(a.value, (const void *)&d);
    cr_assert_eq(a.size, sizeof d);
    krt_arg l = KRT_ARG_LOCAL(96);
    cr_assert_null(l.value);
    cr_assert_eq(l.size, 96);
}

/* KRT_ARG tags each variable by its C type in every standard: _Generic in C, overloads in C++. */
static void check_tags(const char *what, void (*fn)(int *))
{
    static const int want[KT_TAG_COUNT] = {
        KRT_ARG_TYPE_INT8,   KRT_ARG_TYPE_UINT8,  KRT_ARG_TYPE_INT16,   KRT_ARG_TYPE_UINT16,  KRT_ARG_TYPE_INT32,
        KRT_ARG_TYPE_UINT32, KRT_ARG_TYPE_INT64,  KRT_ARG_TYPE_UINT64,  KRT_ARG_TYPE_INT64,   KRT_ARG_TYPE_UINT64,
        KRT_ARG_TYPE_FLOAT,  KRT_ARG_TYPE_DOUBLE, KRT_ARG_TYPE_POINTER, KRT_ARG_TYPE_POINTER, KRT_ARG_TYPE_POINTER,
        KRT_ARG_TYPE_NONE,   KRT_ARG_TYPE_INT8,   KRT_ARG_TYPE_UINT64};
    int got[KT_TAG_COUNT];
    memset(got, 0xab, sizeof got);
    fn(got);
    for (int i = 0; i < KT_TAG_COUNT; i++)
        cr_assert_eq(got[i], want[i], "%s: KRT_ARG tag %d is %s, want %s", what, i,
                     krt_arg_type_name((krt_arg_type)got[i]), krt_arg_type_name((krt_arg_type)want[i]));
}

Test(header, c11_arg_tags) { check_tags("C11", kt_tags_c11); }
Test(header, c17_arg_tags) { check_tags("C17", kt_tags_c17); }
Test(header, cxx11_arg_tags) { check_tags("C++11", kt_tags_cxx11); }
Test(header, cxx17_arg_tags) { check_tags("C++17", kt_tags_cxx17); }

static void check_helpers(const char *what, int (*fn)(int *))
{
    static const int want[KT_HELPER_COUNT] = {
        KRT_ARG_TYPE_INT8,   KRT_ARG_TYPE_UINT8,  KRT_ARG_TYPE_INT16, KRT_ARG_TYPE_UINT16,
        KRT_ARG_TYPE_INT32,  KRT_ARG_TYPE_UINT32, KRT_ARG_TYPE_INT64, KRT_ARG_TYPE_UINT64,
        KRT_ARG_TYPE_FLOAT,  KRT_ARG_TYPE_DOUBLE, KRT_ARG_TYPE_POINTER};
    int got[KT_HELPER_COUNT];
    memset(got, 0xab, sizeof got);
    cr_assert_eq(fn(got), 1, "%s: a helper's value or size is wrong", what);
    for (int i = 0; i < KT_HELPER_COUNT; i++)
        cr_assert_eq(got[i], want[i], "%s: helper %d is tagged %s", what, i, krt_arg_type_name((krt_arg_type)got[i]));
}

Test(header, c11_rvalue_helpers) { check_helpers("C11", kt_helpers_c11); }
Test(header, c17_rvalue_helpers) { check_helpers("C17", kt_helpers_c17); }
