/* Logging: the library never prints on its own; the context's logger gets the lines up to its level;
 * KRT_TRACE=1 gives one trace line per launch. */
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "krt_test.h"

TestSuite(log, .timeout = KT_TEST_TIMEOUT);

typedef struct {
    atomic_int lines[4];
    atomic_int empty;
} log_counts;

static void count_line(void *user, krt_log_level level, const char *message)
{
    log_counts *c = user;
    if ((int)level >= 0 && (int)level < 4)
        atomic_fetch_add(&c->lines[level], 1);
    if (!message || !message[0])
        atomic_fetch_add(&c->empty, 1);
}

/* Launches krt_iota `launches` times over n items (a new ndrange every time when `vary`) and checks it. */
static void launch_some(krt_context *ctx, int launches, int vary)
{
    krt_module *m = kt_module(ctx, "krt_basic");
    krt_kernel *k = kt_kernel(m, "krt_iota");
    uint32_t *out = kt_alloc(ctx, 4096 * 4, KRT_MEMORY_SHARED);
    for (int i = 0; i < launches; i++) {
        uint32_t n = vary ? 1000 + (uint32_t)i : 1000, base = (uint32_t)i;
        krt_arg args[] = {KRT_ARG(out), KRT_ARG(n), KRT_ARG(base)};
        krt_launch_desc d = kt_desc1(n, args, 3);
        KT_OK(krt_launch(k, &d));
    }
    KT_OK(krt_context_synchronize(ctx));
    uint32_t last_n = vary ? 1000 + (uint32_t)launches - 1 : 1000;
    for (uint32_t i = 0; i < last_n; i++)
        cr_assert_eq(out[i], (uint32_t)launches - 1 + i);
    krt_module_destroy(m);
}

Test(log, trace_gives_one_line_per_launch)
{
    setenv("KRT_TRACE", "1", 1);
    log_counts c;
    memset(&c, 0, sizeof c);
    krt_context_desc desc = {.logger = {.func = count_line, .user_data = &c, .max_level = KRT_LOG_TRACE}};
    krt_context *ctx = kt_context(&desc);
    int before = atomic_load(&c.lines[KRT_LOG_TRACE]);
    launch_some(ctx, 25, 1);
    int traced = atomic_load(&c.lines[KRT_LOG_TRACE]) - before;
    cr_assert_eq(traced, 25, "%d trace lines for 25 launches", traced);
    /* Warm launches are traced too. */
    before = atomic_load(&c.lines[KRT_LOG_TRACE]);
    launch_some(ctx, 10, 0);
    traced = atomic_load(&c.lines[KRT_LOG_TRACE]) - before;
    cr_assert_eq(traced, 10, "%d trace lines for 10 launches", traced);
    cr_assert_eq(atomic_load(&c.empty), 0, "empty log lines");
    krt_context_destroy(ctx);
}

Test(log, no_trace_without_krt_trace)
{
    unsetenv("KRT_TRACE");
    log_counts c;
    memset(&c, 0, sizeof c);
    krt_context_desc desc = {.logger = {.func = count_line, .user_data = &c, .max_level = KRT_LOG_WARNING}};
    krt_context *ctx = kt_context(&desc);
    launch_some(ctx, 10, 1);
    krt_context_destroy(ctx);
    cr_assert_eq(atomic_load(&c.lines[KRT_LOG_TRACE]), 0);
}

/* Redirects stdout and stderr into a file for the duration of fn and returns how many bytes arrived. */
static long captured_output(void (*fn)(void))
{
    char path[] = "/tmp/krt-test-output-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    fflush(stdout);
    fflush(stderr);
    int saved_out = dup(1), saved_err = dup(2);
    cr_assert(saved_out >= 0 && saved_err >= 0);
    cr_assert_geq(dup2(fd, 1), 0);
    cr_assert_geq(dup2(fd, 2), 0);
    fn();
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    struct stat st;
    cr_assert_eq(fstat(fd, &st), 0);
    close(fd);
    unlink(path);
    return (long)st.st_size;
}

/* Work with successes and failures of every kind, without a logger. */
static void busy_without_logger(void)
{
    krt_context *ctx = NULL;
    if (krt_context_create(NULL, &ctx) != KRT_SUCCESS)
        return;
    launch_some(ctx, 20, 1);
    krt_module *m = NULL;
    static const uint32_t junk[16] = {0x07230203u, 0x00010000u, 0, 100, 0, 0xffffffffu};
    krt_module_desc bad = {.code = junk, .size = sizeof junk};
    (void)krt_module_create(ctx, &bad, &m);
    krt_module_desc o2 = {.path = kt_kernel_path("o2/krt_o2_loopmerge")};
    if (krt_module_create(ctx, &o2, &m) == KRT_SUCCESS)
        krt_module_destroy(m);
    krt_module_desc missing = {.path = "/nonexistent/krt-test.spv"};
    (void)krt_module_create(ctx, &missing, &m);
    krt_kernel *k = NULL;
    krt_module *basic = kt_module(ctx, "krt_basic");
    (void)krt_kernel_get(basic, "no_such_kernel", &k);
    k = kt_kernel(basic, "krt_vadd");
    krt_launch_desc d = kt_desc1(0, NULL, 0);
    (void)krt_launch(k, &d);
    (void)krt_free(ctx, &d);
    krt_module_destroy(basic);
    krt_context_destroy(ctx);
}

Test(log, never_prints_without_a_logger)
{
    unsetenv("KRT_TRACE");
    long bytes = captured_output(busy_without_logger);
    cr_assert_eq(bytes, 0, "%ld bytes printed with no logger and no KRT_TRACE", bytes);
}

static void launches_only(void)
{
    krt_context *ctx = NULL;
    if (krt_context_create(NULL, &ctx) != KRT_SUCCESS)
        return;
    launch_some(ctx, 5, 1);
    krt_context_destroy(ctx);
}

/* KRT_TRACE=1 without a logger installs a stderr logger. */
Test(log, krt_trace_without_a_logger_writes_stderr)
{
    setenv("KRT_TRACE", "1", 1);
    long bytes = captured_output(launches_only);
    cr_assert_gt(bytes, 0, "KRT_TRACE=1 printed nothing");
}

/* The warning for a tolerated validation error reaches the logger; an error-level logger does not get it. */
Test(log, levels_filter_warnings)
{
    unsetenv("KRT_TRACE");
    log_counts c;
    memset(&c, 0, sizeof c);
    krt_context_desc desc = {.logger = {.func = count_line, .user_data = &c, .max_level = KRT_LOG_ERROR}};
    krt_context *ctx = kt_context(&desc);
    krt_module *m = kt_module(ctx, "o2/krt_o2_loopmerge");
    krt_module_destroy(m);
    krt_context_destroy(ctx);
    cr_assert_eq(atomic_load(&c.lines[KRT_LOG_WARNING]), 0, "a warning went past max_level ERROR");
    memset(&c, 0, sizeof c);
    desc.logger.max_level = KRT_LOG_WARNING;
    ctx = kt_context(&desc);
    m = kt_module(ctx, "o2/krt_o2_loopmerge");
    krt_module_destroy(m);
    krt_context_destroy(ctx);
    cr_assert_geq(atomic_load(&c.lines[KRT_LOG_WARNING]), 1);
}
