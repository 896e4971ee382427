/* OpenCL C modules: krt_module_desc.source and a .cl path, compiled by krt-cc (build/bin/krt-cc, found beside
 * build/lib/libkrt.so), with compile options, the compiler's diagnostic on an error, a clear
 * KRT_ERROR_UNSUPPORTED_FEATURE naming what is missing, and several threads compiling at once. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "krt_test.h"

TestSuite(source, .timeout = KT_TEST_TIMEOUT);

/* krt_kernel.h is on krt-cc's include path; FACTOR comes from the compile options when given. */
static const char scale_source[] =
    "#include \"krt_kernel.h\"\n"
    "#ifndef FACTOR\n"
    "#define FACTOR 2\n"
    "#endif\n"
    "__kernel void scale(__global int *x, uint n)\n"
    "{\n"
    "    KRT_GUARD_1D(i, n);\n"
    "    x[i] = x[i] * FACTOR + (int)i;\n"
    "}\n";

/* Runs scale over n = 1000 ints x[i] = i and checks x[i] == i * factor + i. */
static void check_scale(krt_context *ctx, krt_module *m, int factor)
{
    krt_kernel *k = kt_kernel(m, "scale");
    enum { N = 1000 };
    int host[N];
    for (int i = 0; i < N; i++)
        host[i] = i;
    int *x = kt_alloc(ctx, sizeof host, KRT_MEMORY_DEVICE);
    kt_copy_sync(ctx, x, host, sizeof host);
    uint32_t n = N;
    krt_arg args[] = {KRT_ARG(x), KRT_ARG(n)};
    krt_launch_desc d = kt_desc1(N, args, 2);
    KT_OK(krt_launch_sync(k, &d));
    kt_copy_sync(ctx, host, x, sizeof host);
    for (int i = 0; i < N; i++)
        cr_assert_eq(host[i], i * factor + i, "x[%d] = %d, want %d", i, host[i], i * factor + i);
    KT_OK(krt_free(ctx, x));
}

Test(source, source_text_compiles_and_runs)
{
    kt_skip_without_clang();
    krt_context *ctx = kt_context(NULL);
    krt_module *m = NULL;
    KT_OK(krt_module_create(ctx, &(krt_module_desc){.source = scale_source}, &m));
    /* The argument names survive, as in the project's own kernels (-fno-discard-value-names). */
    krt_arg_info info;
    KT_OK(krt_module_arg_info(m, "scale", 1, &info));
    cr_assert_str_eq(info.name, "n");
    check_scale(ctx, m, 2);
    krt_context_destroy(ctx);
}

Test(source, compile_options_reach_the_compiler)
{
    kt_skip_without_clang();
    krt_context *ctx = kt_context(NULL);
    krt_module *m = NULL;
    KT_OK(krt_module_create(ctx, &(krt_module_desc){.source = scale_source, .compile_options = " -DFACTOR=5  "}, &m));
    check_scale(ctx, m, 5);
    krt_context_destroy(ctx);
}

/* A .cl path is compiled, and a quoted include resolves beside the file. */
Test(source, cl_path_compiles_with_its_own_includes)
{
    kt_skip_without_clang();
    char dir[] = "/tmp/krt-test-source.XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char header[sizeof dir + 16], cl[sizeof dir + 16];
    snprintf(header, sizeof header, "%s/factor.h", dir);
    snprintf(cl, sizeof cl, "%s/scale.cl", dir);
    FILE *f = fopen(header, "w");
    cr_assert_not_null(f);
    fputs("#define FACTOR 7\n", f);
    fclose(f);
    f = fopen(cl, "w");
    cr_assert_not_null(f);
    fprintf(f, "#include \"factor.h\"\n%s", scale_source);
    fclose(f);

    krt_context *ctx = kt_context(NULL);
    krt_module *m = NULL;
    KT_OK(krt_module_create(ctx, &(krt_module_desc){.path = cl}, &m));
    check_scale(ctx, m, 7);
    krt_context_destroy(ctx);
    unlink(header);
    unlink(cl);
    rmdir(dir);
}

/* A compile error is a build failure carrying clang's diagnostic; nothing is left behind and the context
 * stays usable. */
Test(source, compile_error_carries_the_diagnostic)
{
    kt_skip_without_clang();
    krt_context *ctx = kt_context(NULL);
    krt_module *m = NULL;
    KT_EXPECT(krt_module_create(ctx,
                                &(krt_module_desc){.source = "__kernel void bad(__global int *x) { x[0] = nope; }\n"},
                                &m),
              KRT_ERROR_MODULE_BUILD_FAILURE);
    cr_assert_null(m);
    const char *msg = krt_last_error_message();
    cr_assert(strstr(msg, "use of undeclared identifier 'nope'"), "%s", msg);
    cr_assert(strstr(msg, "did not compile"), "%s", msg);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

Test(source, missing_cl_file)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = NULL;
    KT_EXPECT(krt_module_create(ctx, &(krt_module_desc){.path = "/nonexistent/krt-test/none.cl"}, &m),
              KRT_ERROR_MODULE_BUILD_FAILURE);
    cr_assert(strstr(krt_last_error_message(), "cannot read /nonexistent/krt-test/none.cl"), "%s",
              krt_last_error_message());
    krt_context_destroy(ctx);
}

/* Without krt-cc there is no compiler: the error says what is missing and how to provide it. */
Test(source, missing_krt_cc_is_unsupported_and_named)
{
    setenv("KRT_CC", "/nonexistent/krt-test/krt-cc", 1);
    krt_context *ctx = kt_context(NULL);
    krt_module *m = NULL;
    KT_EXPECT(krt_module_create(ctx, &(krt_module_desc){.source = scale_source}, &m), KRT_ERROR_UNSUPPORTED_FEATURE);
    cr_assert_null(m);
    const char *msg = krt_last_error_message();
    cr_assert(strstr(msg, "need krt-cc"), "%s", msg);
    cr_assert(strstr(msg, "KRT_CC=/nonexistent/krt-test/krt-cc"), "%s", msg);
    /* SPIR-V modules are unaffected. */
    kt_assert_usable(ctx);
    krt_module *spv = kt_module(ctx, "krt_basic");
    cr_assert_not_null(spv);
    krt_context_destroy(ctx);
}

/* krt-cc present but its compiler missing: krt-cc's message, which names the tool and its Debian package. */
Test(source, missing_clang_is_unsupported_and_named)
{
    setenv("KRT_CLANG", "clang-krt-test-missing", 1);
    krt_context *ctx = kt_context(NULL);
    krt_module *m = NULL;
    KT_EXPECT(krt_module_create(ctx, &(krt_module_desc){.source = scale_source}, &m), KRT_ERROR_UNSUPPORTED_FEATURE);
    const char *msg = krt_last_error_message();
    cr_assert(strstr(msg, "clang-krt-test-missing not found"), "%s", msg);
    cr_assert(strstr(msg, "apt-get install clang-15"), "%s", msg);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

/* Options krt-cc does not pass to clang are the caller's mistake, named, not a build failure. */
Test(source, refused_compile_options)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = NULL;
    KT_EXPECT(krt_module_create(ctx, &(krt_module_desc){.source = scale_source, .compile_options = "-O2"}, &m),
              KRT_ERROR_INVALID_ARGUMENT);
    cr_assert_null(m);
    cr_assert(strstr(krt_last_error_message(), "unknown option -O2"), "%s", krt_last_error_message());
    KT_EXPECT(krt_module_create(ctx, &(krt_module_desc){.source = scale_source, .compile_options = "extra.cl"}, &m),
              KRT_ERROR_INVALID_ARGUMENT);
    char many[51 * 6 + 1] = "";
    for (int i = 0; i < 51; i++)
        strcat(many, "-DA=1 ");
    KT_EXPECT(krt_module_create(ctx, &(krt_module_desc){.source = scale_source, .compile_options = many}, &m),
              KRT_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(krt_last_error_message(), "more than 50"), "%s", krt_last_error_message());
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

Test(source, exactly_one_of_code_path_and_source)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = NULL;
    KT_EXPECT(krt_module_create(ctx, &(krt_module_desc){.source = scale_source, .path = "x.spv"}, &m),
              KRT_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(krt_last_error_message(), "exactly one of code, path and source"), "%s",
              krt_last_error_message());
    uint32_t word = 0x07230203;
    KT_EXPECT(krt_module_create(ctx, &(krt_module_desc){.source = scale_source, .code = &word, .size = 4}, &m),
              KRT_ERROR_INVALID_ARGUMENT);
    cr_assert_null(m);
    krt_context_destroy(ctx);
}

/* Each compile has its own temporary directory: threads compiling at once get their own modules. */
typedef struct {
    krt_context *ctx;
    int factor;
    krt_result r;
    krt_module *m;
} compile_job;

static void *compile_thread(void *arg)
{
    compile_job *j = arg;
    char options[32];
    snprintf(options, sizeof options, "-DFACTOR=%d", j->factor);
    j->r = krt_module_create(j->ctx, &(krt_module_desc){.source = scale_source, .compile_options = options}, &j->m);
    return NULL;
}

Test(source, threads_compile_at_once)
{
    kt_skip_without_clang();
    krt_context *ctx = kt_context(NULL);
    enum { T = 3 };
    compile_job jobs[T];
    pthread_t th[T];
    for (int t = 0; t < T; t++) {
        jobs[t] = (compile_job){ctx, 3 + t, KRT_ERROR_DRIVER, NULL};
        cr_assert_eq(pthread_create(&th[t], NULL, compile_thread, &jobs[t]), 0);
    }
    for (int t = 0; t < T; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < T; t++) {
        cr_assert_eq(jobs[t].r, KRT_SUCCESS, "thread %d: %s", t, krt_result_name(jobs[t].r));
        check_scale(ctx, jobs[t].m, jobs[t].factor);
    }
    krt_context_destroy(ctx);
}
