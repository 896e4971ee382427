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
