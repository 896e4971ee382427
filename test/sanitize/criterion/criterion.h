/* A stand-in for Criterion's <criterion/criterion.h> for the sanitizer builds (test/sanitize/sanitize.mk):
 * Criterion's sandbox (BoxFort) maps its arena at a fixed address, which TSan refuses ("Could not initialize
 * inheritable arena"), and Criterion's runner keeps 48 bytes for its life, which LeakSanitizer reports in every
 * binary. So under the sanitizers the same test sources are compiled against this header and linked with
 * cr_runner.c, a runner that starts each test in a fresh process of its own (fork and exec, no sandbox).
 * It covers what krt's tests use: Test/TestSuite with .timeout, .init, .fini, .signal, .exit_code, .disabled;
 * the cr_assert family (each failure ends the test's process); cr_skip_test; cr_log_info; cr_redirect_stderr. */
#ifndef KRT_CR_TSAN_H
#define KRT_CR_TSAN_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct crs_opts {
    double timeout;
    void (*init)(void);
    void (*fini)(void);
    int signal;
    int exit_code;
    bool disabled;
    const char *description;
};

struct crs_test {
    const char *suite, *name;
    void (*fn)(void);
    struct crs_opts opts;
    struct crs_test *next;
};

struct crs_suite {
    const char *name;
    struct crs_opts opts;
    struct crs_suite *next;
};

void crs_register(struct crs_test *t);
void crs_register_suite(struct crs_suite *s);
__attribute__((noreturn, format(printf, 4, 5))) void crs_fail(const char *file, int line, const char *expr,
                                                               const char *fmt, ...);
__attribute__((noreturn, format(printf, 1, 2))) void crs_skip(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void crs_log(const char *fmt, ...);
void cr_redirect_stderr(void);
FILE *cr_get_redirected_stderr(void);

#define CRS_ID(a, b, c) crs_##a##__##b##__##c

#define TestSuite(suite, ...)                                                                                      \
    static struct crs_suite CRS_ID(suite, , s) = {#suite, {__VA_ARGS__}, NULL};                                    \
    __attribute__((constructor)) static void CRS_ID(suite, , sreg)(void) { crs_register_suite(&CRS_ID(suite, , s)); }

#define Test(suite, name, ...)                                                                                     \
    static void CRS_ID(suite, name, fn)(void);                                                                     \
    static struct crs_test CRS_ID(suite, name, t) = {#suite, #name, CRS_ID(suite, name, fn), {__VA_ARGS__}, NULL}; \
    __attribute__((constructor)) static void CRS_ID(suite, name, reg)(void) { crs_register(&CRS_ID(suite, name, t)); } \
    static void CRS_ID(suite, name, fn)(void)

/* The optional message: a format and its arguments after a space (the space alone when there is none). */
#define CRS_CHECK(cond, expr, ...)                                                                                 \
    do {                                                                                                           \
        if (!(cond)) crs_fail(__FILE__, __LINE__, expr, " " __VA_ARGS__);                                          \
    } while (0)

#define cr_assert(c, ...) CRS_CHECK((c), #c, __VA_ARGS__)
#define cr_assert_not(c, ...) CRS_CHECK(!(c), "!(" #c ")", __VA_ARGS__)
#define cr_assert_fail(...) crs_fail(__FILE__, __LINE__, "cr_assert_fail", " " __VA_ARGS__)
#define cr_assert_eq(a, b, ...) CRS_CHECK((a) == (b), #a " == " #b, __VA_ARGS__)
#define cr_assert_neq(a, b, ...) CRS_CHECK((a) != (b), #a " != " #b, __VA_ARGS__)
#define cr_assert_lt(a, b, ...) CRS_CHECK((a) < (b), #a " < " #b, __VA_ARGS__)
#define cr_assert_leq(a, b, ...) CRS_CHECK((a) <= (b), #a " <= " #b, __VA_ARGS__)
#define cr_assert_gt(a, b, ...) CRS_CHECK((a) > (b), #a " > " #b, __VA_ARGS__)
#define cr_assert_geq(a, b, ...) CRS_CHECK((a) >= (b), #a " >= " #b, __VA_ARGS__)
#define cr_assert_null(p, ...) CRS_CHECK((p) == NULL, #p " == NULL", __VA_ARGS__)
#define cr_assert_not_null(p, ...) CRS_CHECK((p) != NULL, #p " != NULL", __VA_ARGS__)
#define cr_assert_str_eq(a, b, ...) CRS_CHECK(strcmp((a), (b)) == 0, #a " equals " #b, __VA_ARGS__)
#define cr_assert_str_neq(a, b, ...) CRS_CHECK(strcmp((a), (b)) != 0, #a " differs from " #b, __VA_ARGS__)
#define cr_assert_str_empty(a, ...) CRS_CHECK((a)[0] == 0, #a " is empty", __VA_ARGS__)
#define cr_assert_str_not_empty(a, ...) CRS_CHECK((a)[0] != 0, #a " is not empty", __VA_ARGS__)
#define cr_assert_arr_eq(a, b, n, ...) CRS_CHECK(memcmp((a), (b), (n)) == 0, #a " equals " #b, __VA_ARGS__)
#define cr_assert_arr_neq(a, b, n, ...) CRS_CHECK(memcmp((a), (b), (n)) != 0, #a " differs from " #b, __VA_ARGS__)
#define cr_assert_float_eq(a, b, eps, ...) CRS_CHECK(fabs((double)(a) - (double)(b)) <= (eps), #a " ~ " #b, __VA_ARGS__)
#define cr_expect cr_assert
#define cr_expect_eq cr_assert_eq
#define cr_skip_test(...) crs_skip(" " __VA_ARGS__)
#define cr_log_info(...) crs_log(__VA_ARGS__)
#define cr_log_warn(...) crs_log(__VA_ARGS__)

#endif
