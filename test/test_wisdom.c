/* Measured tuning and wisdom: krt_kernel_tune keeps the fastest group per kernel and range class, dynamic
 * launches of that class use it (KRT_LIMIT_TUNED), and wisdom round-trips through krt_wisdom_save/load and
 * KRT_WISDOM; a corrupt or truncated file, another device's entries and a group that no longer fits are
 * ignored; a kernel with a required size has nothing to tune; two threads may tune at once. Which group wins
 * depends on timing, so no test asserts a particular winner: each asserts that the winner is a valid candidate
 * and that launches then use exactly what tuning reported. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "krt_test.h"

TestSuite(wisdom, .timeout = KT_TEST_TIMEOUT);

/* Captures warnings from the context's logger. */
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static char warnings[8192];

static void capture(void *user, krt_log_level level, const char *message)
{
    (void)user;
    if (level != KRT_LOG_WARNING)
        return;
    pthread_mutex_lock(&log_mu);
    size_t n = strlen(warnings);
    snprintf(warnings + n, sizeof warnings - n, "%s\n", message);
    pthread_mutex_unlock(&log_mu);
}

static krt_context *logged_context(void)
{
    krt_context_desc desc = {.logger = {.func = capture, .max_level = KRT_LOG_WARNING}};
    return kt_context(&desc);
}

static char *tmp_path(const char *name)
{
    static char buf[4][512];
    static int next;
    char *p = buf[next++ % 4];
    snprintf(p, 512, "/tmp/krt-test-wisdom-%ld-%s", (long)getpid(), name);
    unlink(p);
    return p;
}

static char *read_text(const char *path)
{
    size_t n;
    char *t = kt_read_file(path, &n);
    char *z = realloc(t, n + 1);
    cr_assert(z);
    z[n] = '\0';
    return z;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

/* One tuning of krt_rule_plain (writes its local size to out[i]) over n items. */
typedef struct {
    krt_context *ctx;
    krt_module *m;
    krt_kernel *k;
    uint32_t *out;
    uint32_t n;
    krt_arg args[2];
    krt_launch_desc desc;
} plain;

static void plain_open(plain *p, krt_context *ctx, uint32_t n)
{
    p->ctx = ctx;
    p->m = kt_module(ctx, "krt_rules");
    p->k = kt_kernel(p->m, "krt_rule_plain");
    p->n = n;
    p->out = kt_alloc(ctx, ((size_t)n + 4096) * 4, KRT_MEMORY_SHARED);
    p->args[0] = KRT_ARG(p->out);
    p->args[1] = KRT_ARG(p->n);
    p->desc = kt_desc1(n, p->args, 2);
}

static krt_launch_config config_of(krt_kernel *k, uint64_t n)
{
    krt_ndrange r = {1, {n, 0, 0}};
    krt_launch_config c;
    KT_OK(krt_launch_config_get(k, &r, &c));
    return c;
}

static int is_pow2(uint32_t x)
{
    return x && !(x & (x - 1));
}

/* A dynamic launch over n items runs in groups of exactly g, the last one partial (every item writes its local
 * size). */
static void expect_launch_group(plain *p, uint32_t n, uint32_t g)
{
    uint32_t nn = n;
    krt_arg args[] = {KRT_ARG(p->out), KRT_ARG(nn)};
    krt_launch_desc d = kt_desc1(n, args, 2);
    memset(p->out, 0, (size_t)n * 4);
    KT_OK(krt_launch_sync(p->k, &d));
    for (uint32_t i = 0; i < n; i++)
        cr_assert_eq(p->out[i], kt_local_size_at(n, g, i), "item %u ran in a group of %u, tuned %u", i, p->out[i], g);
}

Test(wisdom, tuning_sets_the_group_of_the_range_class)
{
    krt_context *ctx = kt_context(NULL);
    plain p;
    plain_open(&p, ctx, 100000);
    krt_launch_config before = config_of(p.k, 100000);
    krt_tune_desc t = {.samples = 1};
    krt_tune_result res;
    KT_OK(krt_kernel_tune(p.k, &p.desc, &t, &res));
    /* Candidates: 1, 2, ..., 4096 (13 powers of two within the kernel's 4096), the rule's 4096 among them. */
    krt_kernel_properties props;
    KT_OK(krt_kernel_properties_get(p.k, &props));
    uint32_t expect = 0;
    for (uint32_t g = 1; g <= props.max_group_size; g <<= 1)
        expect++;
    cr_assert_eq(res.candidates, expect, "%u candidates, expected %u", res.candidates, expect);
    cr_assert_arr_eq(res.rule_group, before.group, sizeof before.group);
    cr_assert(is_pow2(res.group[0]) && res.group[0] <= props.max_group_size && res.group[1] == 1 &&
                  res.group[2] == 1,
              "tuned group %u x %u x %u is not a candidate", res.group[0], res.group[1], res.group[2]);
    cr_assert(res.best_ns > 0 && res.best_ns <= res.rule_ns, "best %.0f ns, rule %.0f ns", res.best_ns,
              res.rule_ns);
    /* The same class (65537..131072 items) now uses it; the launch runs it. */
    const uint32_t same[] = {100000, 65537, 131072};
    for (size_t i = 0; i < 3; i++) {
        krt_launch_config c = config_of(p.k, same[i]);
        cr_assert_eq(c.limit, KRT_LIMIT_TUNED, "range %u: limit %s", same[i], krt_limit_name(c.limit));
        cr_assert_arr_eq(c.group, res.group, sizeof c.group, "range %u", same[i]);
    }
    expect_launch_group(&p, 100000, res.group[0]);
    /* Another class does not. */
    krt_launch_config other = config_of(p.k, 65536);
    cr_assert_neq(other.limit, KRT_LIMIT_TUNED);
    cr_assert_eq(strcmp(krt_limit_name(KRT_LIMIT_TUNED), "tuned"), 0);
    krt_module_destroy(p.m);
    krt_context_destroy(ctx);
}

Test(wisdom, round_trip_through_a_file)
{
    const char *path = tmp_path("round");
    krt_context *ctx = kt_context(NULL);
    plain p;
    plain_open(&p, ctx, 5000);
    krt_tune_desc t = {.samples = 1};
    krt_tune_result res;
    KT_OK(krt_kernel_tune(p.k, &p.desc, &t, &res));
    KT_OK(krt_wisdom_save(ctx, path));
    krt_device_info dev;
    KT_OK(krt_context_device_info(ctx, &dev));
    krt_module_destroy(p.m);
    krt_context_destroy(ctx);

    char *text = read_text(path);
    char want[512];
    snprintf(want, sizeof want, "%s\t%x\t", dev.name, dev.driver_version);
    cr_assert(strncmp(text, "krt-wisdom 1\n", 13) == 0, "header: %s", text);
    cr_assert(strstr(text, want), "no entry for this device in:\n%s", text);
    snprintf(want, sizeof want, "\tkrt_rule_plain\t1\t8192x1x1\t%ux1x1\t", res.group[0]);
    cr_assert(strstr(text, want), "no entry \"%s\" in:\n%s", want, text);
    cr_assert(strstr(text, "\nend 1\n"), "no end line in:\n%s", text);
    free(text);

    /* A fresh context learns it from the file, for the same class. */
    ctx = kt_context(NULL);
    plain_open(&p, ctx, 5000);
    cr_assert_neq(config_of(p.k, 5000).limit, KRT_LIMIT_TUNED);
    KT_OK(krt_wisdom_load(ctx, path));
    krt_launch_config c = config_of(p.k, 6000);
    cr_assert_eq(c.limit, KRT_LIMIT_TUNED);
    cr_assert_eq(c.group[0], res.group[0]);
    expect_launch_group(&p, 6000, res.group[0]);
    /* Saved again, the same single entry. */
    KT_OK(krt_wisdom_save(ctx, path));
    text = read_text(path);
    cr_assert(strstr(text, "\nend 1\n"));
    free(text);
    krt_module_destroy(p.m);
    krt_context_destroy(ctx);
    unlink(path);
}

/* A good file for this device, made by tuning, then damaged in every way the loader must refuse. */
Test(wisdom, corrupt_or_truncated_files_are_ignored_with_a_warning)
{
    const char *good = tmp_path("good"), *bad = tmp_path("bad");
    krt_context *ctx = kt_context(NULL);
    plain p;
    plain_open(&p, ctx, 5000);
    krt_tune_desc t = {.samples = 1};
    krt_tune_result res;
    KT_OK(krt_kernel_tune(p.k, &p.desc, &t, &res));
    KT_OK(krt_wisdom_save(ctx, good));
    krt_module_destroy(p.m);
    krt_context_destroy(ctx);
    char *text = read_text(good);
    size_t len = strlen(text);
    char *entry = strchr(text, '\n') + 1; /* the entry line */

    char variant[4096];
    const char *cases[10];
    char storage[10][4096];
    int nc = 0;
    /* Truncated: no end line; cut inside the entry; cut inside the end line (no newline). */
    snprintf(storage[nc], 4096, "%.*s", (int)(strstr(text, "end ") - text), text), cases[nc] = storage[nc], nc++;
    snprintf(storage[nc], 4096, "%.*s", (int)(entry - text + 20), text), cases[nc] = storage[nc], nc++;
    snprintf(storage[nc], 4096, "%.*s", (int)(len - 1), text), cases[nc] = storage[nc], nc++;
    /* A wrong header, an empty file, an end count that lies, text after the end. */
    snprintf(storage[nc], 4096, "krt-wisdom 2\n%s", entry), cases[nc] = storage[nc], nc++;
    cases[nc++] = "";
    snprintf(storage[nc], 4096, "%.*send 2\n", (int)(strstr(text, "end ") - text), text), cases[nc] = storage[nc], nc++;
    snprintf(storage[nc], 4096, "%sgarbage\n", text), cases[nc] = storage[nc], nc++;
    /* A malformed entry: a group of 0, a letter in the time, a missing field. */
    const char *g = strstr(text, "\t8192x1x1\t") + 10; /* the group field */
    snprintf(storage[nc], 4096, "%.*s0x1x1%s", (int)(g - text), text, strchr(g, '\t')), cases[nc] = storage[nc],
                                                                                     nc++;
    snprintf(variant, sizeof variant, "%s", text);
    char *nl = strchr(strchr(variant, '\n') + 1, '\n');
    nl[-1] = 'x';
    snprintf(storage[nc], 4096, "%s", variant), cases[nc] = storage[nc], nc++;
    snprintf(storage[nc], 4096, "krt-wisdom 1\nonly\tthree\tfields\nend 1\n"), cases[nc] = storage[nc], nc++;

    ctx = logged_context();
    plain_open(&p, ctx, 5000);
    for (int i = 0; i < nc; i++) {
        write_text(bad, cases[i]);
        warnings[0] = '\0';
        KT_EXPECT(krt_wisdom_load(ctx, bad), KRT_ERROR_IO);
        cr_assert(strstr(warnings, "wisdom file") && strstr(warnings, "ignored"), "case %d: warning \"%s\"", i,
                  warnings);
        krt_launch_config c = config_of(p.k, 5000);
        cr_assert_neq(c.limit, KRT_LIMIT_TUNED, "case %d: a corrupt file was used", i);
    }
    /* A missing file is an error for the explicit call, without a warning. */
    warnings[0] = '\0';
    KT_EXPECT(krt_wisdom_load(ctx, tmp_path("missing")), KRT_ERROR_IO);
    cr_assert_eq(warnings[0], '\0');
    /* The context is fine, and the good file still loads. */
    kt_assert_usable(ctx);
    KT_OK(krt_wisdom_load(ctx, good));
    cr_assert_eq(config_of(p.k, 5000).limit, KRT_LIMIT_TUNED);
    krt_module_destroy(p.m);
    krt_context_destroy(ctx);

    /* Through KRT_WISDOM: the context is created, with the warning, and without the wisdom. */
    write_text(bad, cases[0]);
    setenv("KRT_WISDOM", bad, 1);
    warnings[0] = '\0';
    ctx = logged_context();
    cr_assert(strstr(warnings, "ignored"), "no warning for KRT_WISDOM: \"%s\"", warnings);
    plain_open(&p, ctx, 5000);
    cr_assert_neq(config_of(p.k, 5000).limit, KRT_LIMIT_TUNED);
    krt_module_destroy(p.m);
    krt_context_destroy(ctx);
    unsetenv("KRT_WISDOM");
    free(text);
    unlink(good);
    unlink(bad);
}

/* Entries of another device, driver version or module are kept but never used; a group that no longer fits
 * the kernel is left to the rule. */
Test(wisdom, foreign_and_unfit_entries_are_not_used)
{
    const char *path = tmp_path("foreign");
    krt_context *ctx = kt_context(NULL);
    plain p;
    plain_open(&p, ctx, 5000);
    krt_tune_desc t = {.samples = 1};
    krt_tune_result res;
    KT_OK(krt_kernel_tune(p.k, &p.desc, &t, &res));
    KT_OK(krt_wisdom_save(ctx, path));
    krt_device_info dev;
    KT_OK(krt_context_device_info(ctx, &dev));
    krt_module_destroy(p.m);
    krt_context_destroy(ctx);
    char *text = read_text(path);
    char *entry = strchr(text, '\n') + 1;
    char *fields = strchr(entry, '\t'); /* from the driver version on */
    char *hash = strchr(fields + 1, '\t') + 1;
    char *kname = strchr(hash, '\t');
    char *group = strstr(entry, "\t8192x1x1\t") + 10;
    char *time = strchr(group, '\t');
    *strchr(entry, '\n') = '\0';

    char lines[4][1024];
    /* another device */
    snprintf(lines[0], 1024, "Some Other Device%s", fields);
    /* another driver version */
    snprintf(lines[1], 1024, "%s\t%x%s", dev.name, dev.driver_version + 1, hash - 1);
    /* another module */
    snprintf(lines[2], 1024, "%.*s%s%s", (int)(hash - entry), entry, "0123456789abcdef", kname);
    /* a group over the device's maximum */
    snprintf(lines[3], 1024, "%.*s%ux1x1%s", (int)(group - entry), entry, dev.max_group_size * 2, time);
    for (int i = 0; i < 4; i++) {
        char file[4096];
        snprintf(file, sizeof file, "krt-wisdom 1\n%s\nend 1\n", lines[i]);
        write_text(path, file);
        ctx = kt_context(NULL);
        plain_open(&p, ctx, 5000);
        KT_OK(krt_wisdom_load(ctx, path));
        krt_launch_config c = config_of(p.k, 5000);
        cr_assert_neq(c.limit, KRT_LIMIT_TUNED, "line %d was used: %s", i, lines[i]);
        /* The launch runs the rule's group. */
        expect_launch_group(&p, 5000, c.group[0]);
        /* Saved again, the entry is still there. */
        KT_OK(krt_wisdom_save(ctx, path));
        char *again = read_text(path);
        cr_assert(strstr(again, lines[i]), "line %d was dropped:\n%s", i, again);
        free(again);
        krt_module_destroy(p.m);
        krt_context_destroy(ctx);
    }
    free(text);
    unlink(path);
}

Test(wisdom, required_size_has_nothing_to_tune)
{
    const char *path = tmp_path("reqd");
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_basic");
    krt_kernel *k = kt_kernel(m, "krt_reqd64");
    uint32_t *out = kt_alloc(ctx, 1000 * 4, KRT_MEMORY_SHARED);
    uint32_t n = 1000;
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(n)};
    krt_launch_desc d = kt_desc1(1000, args, 2);
    krt_kernel_info info;
    KT_OK(krt_kernel_info_get(k, &info));
    cr_assert_eq(info.num_args, 2, "krt_reqd64 takes (out, n)");
    krt_tune_result res;
    memset(&res, 0xab, sizeof res);
    KT_OK(krt_kernel_tune(k, &d, NULL, &res));
    cr_assert_eq(res.candidates, 0);
    cr_assert(res.group[0] == 64 && res.group[1] == 1 && res.group[2] == 1);
    krt_launch_config c = config_of(k, 1000);
    cr_assert_eq(c.limit, KRT_LIMIT_REQUIRED);
    KT_OK(krt_wisdom_save(ctx, path));
    char *text = read_text(path);
    cr_assert_str_eq(text, "krt-wisdom 1\nend 0\n");
    free(text);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
    unlink(path);
}

Test(wisdom, bad_arguments)
{
    krt_context *ctx = kt_context(NULL);
    plain p;
    plain_open(&p, ctx, 1000);
    krt_tune_result res;
    KT_EXPECT(krt_kernel_tune(NULL, &p.desc, NULL, &res), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_kernel_tune(p.k, NULL, NULL, &res), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_kernel_tune(p.k, &p.desc, NULL, NULL), KRT_ERROR_INVALID_ARGUMENT);
    krt_launch_desc st = p.desc;
    st.group[0] = 64;
    KT_EXPECT(krt_kernel_tune(p.k, &st, NULL, &res), KRT_ERROR_INVALID_ARGUMENT);
    /* A wrong argument fails like the launch would, and stores nothing. */
    krt_launch_desc wrong = p.desc;
    wrong.num_args = 1;
    KT_EXPECT(krt_kernel_tune(p.k, &wrong, NULL, &res), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    cr_assert_neq(config_of(p.k, 1000).limit, KRT_LIMIT_TUNED);
    KT_EXPECT(krt_wisdom_save(NULL, "/tmp/x"), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_wisdom_save(ctx, NULL), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_wisdom_load(ctx, NULL), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_wisdom_save(ctx, "/nonexistent-dir/wisdom"), KRT_ERROR_IO);
    kt_assert_usable(ctx);
    krt_module_destroy(p.m);
    krt_context_destroy(ctx);
}

/* KRT_WISDOM: loaded at creation, saved at destroy. */
Test(wisdom, environment_variable_loads_and_saves)
{
    const char *path = tmp_path("env");
    setenv("KRT_WISDOM", path, 1);
    krt_context *ctx = kt_context(NULL);
    plain p;
    plain_open(&p, ctx, 3000);
    krt_tune_desc t = {.samples = 1};
    krt_tune_result res;
    KT_OK(krt_kernel_tune(p.k, &p.desc, &t, &res));
    krt_module_destroy(p.m);
    cr_assert_neq(access(path, F_OK), 0, "saved before destroy");
    krt_context_destroy(ctx);
    cr_assert_eq(access(path, F_OK), 0, "not saved at destroy");
    ctx = kt_context(NULL);
    plain_open(&p, ctx, 3000);
    krt_launch_config c = config_of(p.k, 3000);
    cr_assert_eq(c.limit, KRT_LIMIT_TUNED);
    cr_assert_eq(c.group[0], res.group[0]);
    krt_module_destroy(p.m);
    krt_context_destroy(ctx);
    unsetenv("KRT_WISDOM");
    unlink(path);
}

/* Two threads tune at once: one kernel over two classes, and the same class from both. Both succeed, and the
 * entries are those of the tunings (for the shared class, one of the two results). */
typedef struct {
    krt_kernel *k;
    krt_launch_desc desc;
    krt_tune_result res;
    krt_result r;
} tune_job;

static void *tune_thread(void *arg)
{
    tune_job *j = arg;
    krt_tune_desc t = {.samples = 1};
    j->r = krt_kernel_tune(j->k, &j->desc, &t, &j->res);
    return NULL;
}

Test(wisdom, two_threads_tune_at_once)
{
    krt_context *ctx = kt_context(NULL);
    plain a, b;
    plain_open(&a, ctx, 3000);
    plain_open(&b, ctx, 20000); /* another module handle of the same SPIR-V: the same wisdom key */
    for (int round = 0; round < 2; round++) {
        tune_job j[2] = {{.k = a.k, .desc = a.desc}, {.k = b.k, .desc = b.desc}};
        if (round == 1)
            j[1].desc = b.desc, j[1].desc.range.size[0] = 3000; /* both on class 4096 */
        pthread_t th[2];
        for (int i = 0; i < 2; i++)
            cr_assert_eq(pthread_create(&th[i], NULL, tune_thread, &j[i]), 0);
        for (int i = 0; i < 2; i++)
            pthread_join(th[i], NULL);
        for (int i = 0; i < 2; i++)
            cr_assert_eq(j[i].r, KRT_SUCCESS, "round %d thread %d: %s: %s", round, i, krt_result_name(j[i].r),
                         krt_last_error_message());
        krt_launch_config ca = config_of(a.k, 3000), cb = config_of(b.k, round ? 3000 : 20000);
        cr_assert_eq(ca.limit, KRT_LIMIT_TUNED);
        cr_assert_eq(cb.limit, KRT_LIMIT_TUNED);
        if (round == 0) {
            cr_assert_eq(ca.group[0], j[0].res.group[0]);
            cr_assert_eq(cb.group[0], j[1].res.group[0]);
        } else {
            cr_assert(ca.group[0] == j[0].res.group[0] || ca.group[0] == j[1].res.group[0]);
            cr_assert_eq(cb.group[0], ca.group[0], "one class, two answers");
        }
        expect_launch_group(&a, 3000, ca.group[0]);
    }
    krt_module_destroy(a.m);
    krt_module_destroy(b.m);
    krt_context_destroy(ctx);
}
