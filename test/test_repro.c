/* The reproducers of issue 8 (test/data/repro/, copied from ../shared/repro/modules) as a regression corpus:
 * each goes through krt_module_create with the default validation and, when it loads, a launch of every
 * launchable kernel with arguments built from its reflection (test/common/krt_fuzz_one.c, the fuzzer's own harness).
 * Each must give an error with a message or a working module, never end or hang the process (Criterion runs
 * each test in its own process, so a death is a failed test), and the context must run a correct launch
 * afterwards. The files of ze_pocl's half of the issue also have their result and the cause in the message. */
#include "krt_fuzz_one.h"
#include "krt_test.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A kernel that runs longer than this is a finding (the corpus has no kernel that should loop). */
#define REPRO_KERNEL_TIMEOUT_NS (60ull * 1000 * 1000 * 1000)

static const char *repro_dir(void)
{
    static char path[4096];
    const char *dir = getenv("KRT_TEST_DATA");
    cr_assert(dir != NULL && dir[0] != '\0', "KRT_TEST_DATA is not set (run the tests through make)");
    snprintf(path, sizeof path, "%s/repro", dir);
    return path;
}

/* Runs one file; returns the report. Asserts the general rule: an error with a message, or a module whose
 * kernels all ran. */
static kf_report run_file(krt_context *ctx, const char *file)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", repro_dir(), file);
    size_t size = 0;
    void *code = kt_read_file(path, &size);
    kf_pool pool;
    KT_OK(kf_pool_create(ctx, &pool));
    kf_report rep;
    kf_run_one(&pool, code, size, 1, REPRO_KERNEL_TIMEOUT_NS, &rep);
    cr_assert(rep.outcome == KF_REFUSED || rep.outcome == KF_LOADED, "%s: %s (module: %s): %s", file,
              kf_outcome_name(rep.outcome), krt_result_name(rep.module_result), rep.detail);
    if (rep.outcome == KF_LOADED)
        cr_assert_eq(rep.launched + rep.skipped, rep.kernels, "%s: %u of %u kernels ran, %u not launchable (%s)",
                     file, rep.launched, rep.kernels, rep.skipped, rep.detail);
    kf_pool_destroy(&pool);
    free(code);
    return rep;
}

/* The files with a test of their own below. */
static const char *const named[] = {"vadd_v15.spv", "saxpy_schema4.spv", "dup_execmode.spv", "extinst_alignment.spv",
                                    "histogram_local_badcfg.spv", "selfvec.spv", "zerovec.spv", "structdag.spv",
                                    "bigbound.spv", "maxbound.spv"};

static int is_named(const char *file)
{
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (strcmp(named[i], file) == 0) return 1;
    return 0;
}

/* Every other .spv file of the corpus gets the general rule, so a reproducer added later is covered without a
 * new test; and every named file must be there, so none is skipped silently. */
Test(repro, every_other_file_errs_or_works, .timeout = KT_TEST_TIMEOUT)
{
    DIR *d = opendir(repro_dir());
    cr_assert_not_null(d, "cannot open %s", repro_dir());
    krt_context *ctx = kt_context(NULL);
    unsigned found = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 4 || strcmp(e->d_name + n - 4, ".spv") != 0) continue;
        if (is_named(e->d_name)) {
            found++;
            continue;
        }
        kf_report rep = run_file(ctx, e->d_name);
        cr_log_info("%s: %s (%s) %s", e->d_name, kf_outcome_name(rep.outcome), krt_result_name(rep.module_result),
                    rep.detail);
        kt_assert_usable(ctx);
    }
    closedir(d);
    cr_assert_eq(found, sizeof named / sizeof named[0], "only %u of the %zu named files are in %s", found,
                 sizeof named / sizeof named[0], repro_dir());
    krt_context_destroy(ctx);
}

/* The files ze_pocl refuses (before the translator calls exit() or aborts, or PoCL aborts at the first launch).
 * Through krt the driver's refusal is KRT_ERROR_MODULE_BUILD_FAILURE with the driver's build log, naming the
 * cause, in the message (test_ze_robust checks the driver's exact codes). krt's own checks may refuse some of
 * these first, which can only be KRT_ERROR_INVALID_MODULE. */
static void expect_refused(const char *file, const char *cause)
{
    krt_context *ctx = kt_context(NULL);
    kf_report rep = run_file(ctx, file);
    cr_assert(rep.module_result == KRT_ERROR_MODULE_BUILD_FAILURE || rep.module_result == KRT_ERROR_INVALID_MODULE,
              "%s: %s: %s", file, krt_result_name(rep.module_result), rep.detail);
    if (rep.module_result == KRT_ERROR_MODULE_BUILD_FAILURE)
        cr_assert(strstr(rep.detail, cause) != NULL, "%s: the message \"%s\" does not say \"%s\"", file, rep.detail,
                  cause);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

Test(repro, vadd_v15, .timeout = KT_TEST_TIMEOUT)
{
    expect_refused("vadd_v15.spv", "SPIR-V version 1.5 is newer than 1.4");
}

Test(repro, saxpy_schema4, .timeout = KT_TEST_TIMEOUT)
{
    expect_refused("saxpy_schema4.spv", "schema word is 4");
}

Test(repro, dup_execmode, .timeout = KT_TEST_TIMEOUT)
{
    expect_refused("dup_execmode.spv", "execution mode 31 is given twice");
}

Test(repro, extinst_alignment, .timeout = KT_TEST_TIMEOUT)
{
    expect_refused("extinst_alignment.spv", "an OpExtInstImport");
}

Test(repro, histogram_local_badcfg, .timeout = KT_TEST_TIMEOUT)
{
    expect_refused("histogram_local_badcfg.spv",
                   "kernel histogram_local has a barrier and a loop that, once entered, can never exit");
}

/* One test per file of libkrt's half (reflection and API bounds), so that a failure names its file; they pass
 * once libkrt's fixes for issue 8 are in. */
Test(repro, selfvec, .timeout = KT_TEST_TIMEOUT)
{
    krt_context *ctx = kt_context(NULL);
    run_file(ctx, "selfvec.spv");
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

Test(repro, zerovec, .timeout = KT_TEST_TIMEOUT)
{
    krt_context *ctx = kt_context(NULL);
    run_file(ctx, "zerovec.spv");
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

Test(repro, structdag, .timeout = KT_TEST_TIMEOUT)
{
    krt_context *ctx = kt_context(NULL);
    run_file(ctx, "structdag.spv");
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

Test(repro, bigbound, .timeout = KT_TEST_TIMEOUT)
{
    krt_context *ctx = kt_context(NULL);
    run_file(ctx, "bigbound.spv");
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

Test(repro, maxbound, .timeout = KT_TEST_TIMEOUT)
{
    krt_context *ctx = kt_context(NULL);
    run_file(ctx, "maxbound.spv");
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}
