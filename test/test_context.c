/* Contexts and devices: device listing and choice (index, name, KRT_DEVICE), device info, the memoized
 * extension list, and the embedded default driver. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "krt_test.h"
#include "krt_trace.h"

TestSuite(context, .timeout = KT_TEST_TIMEOUT);

static krt_device_info *list_devices(uint32_t *count)
{
    *count = 0;
    KT_OK(krt_device_list(NULL, count));
    cr_assert_gt(*count, 0, "no device");
    krt_device_info *infos = calloc(*count, sizeof *infos);
    cr_assert_not_null(infos);
    uint32_t filled = *count;
    KT_OK(krt_device_list(infos, &filled));
    cr_assert_eq(filled, *count);
    return infos;
}

static int same_device(const krt_device_info *a, const krt_device_info *b)
{
    return strcmp(a->name, b->name) == 0 && a->driver_index == b->driver_index &&
           a->device_index == b->device_index;
}

Test(context, device_list_describes_the_ze_pocl_cpu)
{
    uint32_t count;
    krt_device_info *infos = list_devices(&count);
    int found = 0;
    for (uint32_t i = 0; i < count; i++) {
        const krt_device_info *d = &infos[i];
        cr_assert_neq(d->name[0], '\0', "device %u has no name", i);
        cr_assert_gt(d->max_group_size, 0);
        for (int k = 0; k < 3; k++) {
            cr_assert_gt(d->max_group[k], 0, "device %u max_group[%d]", i, k);
            cr_assert_leq(d->max_group[k], d->max_group_size, "device %u max_group[%d]", i, k);
            cr_assert_gt(d->max_group_count[k], 0, "device %u max_group_count[%d]", i, k);
        }
        cr_assert_leq(d->num_sub_group_sizes, 8);
        if (strcmp(d->driver_name, "ze_pocl") == 0) {
            found = 1;
            cr_assert_eq(d->type, KRT_DEVICE_TYPE_CPU, "ze_pocl device %u is not a CPU", i);
            cr_assert_gt(d->compute_units, 0);
            cr_assert_gt(d->memory_bytes, 0);
            cr_assert_gt(d->max_shared_local_memory, 0);
            cr_assert_eq(d->device_memory_host_accessible, 1, "ze_pocl's memory is the host's");
        }
    }
    cr_assert(found, "no ze_pocl device among %u", count);
    free(infos);
}

Test(context, device_list_fills_no_more_than_asked)
{
    uint32_t count;
    krt_device_info *all = list_devices(&count);
    krt_device_info one[2];
    memset(one, 0x5a, sizeof one);
    uint32_t n = 1;
    KT_OK(krt_device_list(one, &n));
    cr_assert_eq(n, 1);
    cr_assert(same_device(&one[0], &all[0]));
    /* The entry after the one asked for is untouched. */
    unsigned char pattern[sizeof one[1]];
    memset(pattern, 0x5a, sizeof pattern);
    cr_assert_eq(memcmp(&one[1], pattern, sizeof pattern), 0, "krt_device_list wrote past *count entries");
    free(all);
}

Test(context, device_list_needs_count)
{
    krt_device_info info;
    KT_EXPECT(krt_device_list(&info, NULL), KRT_ERROR_INVALID_ARGUMENT);
    /* Room for none: none filled. */
    uint32_t zero = 0;
    memset(&info, 0x5a, sizeof info);
    KT_OK(krt_device_list(&info, &zero));
    cr_assert_eq(zero, 0);
    unsigned char pattern[sizeof info];
    memset(pattern, 0x5a, sizeof pattern);
    cr_assert_eq(memcmp(&info, pattern, sizeof info), 0, "krt_device_list wrote into a zero-length array");
}

Test(context, default_device_is_first_gpu_else_first_device)
{
    uint32_t count;
    krt_device_info *infos = list_devices(&count);
    const krt_device_info *want = &infos[0];
    for (uint32_t i = 0; i < count; i++)
        if (infos[i].type == KRT_DEVICE_TYPE_GPU) {
            want = &infos[i];
            break;
        }
    unsetenv("KRT_DEVICE");
    krt_context *ctx = kt_context(NULL);
    krt_device_info got;
    KT_OK(krt_context_device_info(ctx, &got));
    cr_assert(same_device(&got, want), "default device is %s, expected %s", got.name, want->name);
    krt_context_destroy(ctx);
    free(infos);
}

Test(context, device_info_matches_the_list_and_is_stable)
{
    uint32_t count;
    krt_device_info *infos = list_devices(&count);
    krt_context_desc desc = {.device = "0"};
    krt_context *ctx = kt_context(&desc);
    krt_device_info a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0xff, sizeof b);
    KT_OK(krt_context_device_info(ctx, &a));
    KT_OK(krt_context_device_info(ctx, &b));
    cr_assert(same_device(&a, &infos[0]));
    cr_assert_eq(a.max_group_size, infos[0].max_group_size);
    cr_assert_eq(a.compute_units, infos[0].compute_units);
    cr_assert_eq(a.max_shared_local_memory, infos[0].max_shared_local_memory);
    cr_assert_str_eq(a.name, b.name);
    cr_assert_eq(a.max_group_size, b.max_group_size);
    cr_assert_eq(memcmp(a.max_group, b.max_group, sizeof a.max_group), 0);
    cr_assert_eq(a.memory_bytes, b.memory_bytes);
    KT_EXPECT(krt_context_device_info(ctx, NULL), KRT_ERROR_INVALID_ARGUMENT);
    krt_context_destroy(ctx);
    free(infos);
}

Test(context, device_by_every_index)
{
    uint32_t count;
    krt_device_info *infos = list_devices(&count);
    for (uint32_t i = 0; i < count; i++) {
        char idx[16];
        snprintf(idx, sizeof idx, "%u", i);
        krt_context_desc desc = {.device = idx};
        krt_context *ctx = kt_context(&desc);
        krt_device_info got;
        KT_OK(krt_context_device_info(ctx, &got));
        cr_assert(same_device(&got, &infos[i]), "index %u gave %s", i, got.name);
        krt_context_destroy(ctx);
    }
    free(infos);
}

Test(context, device_index_out_of_range)
{
    uint32_t count;
    krt_device_info *infos = list_devices(&count);
    char idx[16];
    snprintf(idx, sizeof idx, "%u", count);
    krt_context_desc desc = {.device = idx};
    krt_context *sentinel = (krt_context *)(uintptr_t)0x1234;
    krt_context *ctx = sentinel;
    KT_EXPECT(krt_context_create(&desc, &ctx), KRT_ERROR_NO_DEVICE);
    cr_assert_eq(ctx, sentinel, "the output was written on failure");
    /* A failed creation leaves krt able to create a good context. */
    krt_context *good = kt_context(NULL);
    kt_assert_usable(good);
    krt_context_destroy(good);
    free(infos);
}

Test(context, device_by_name_substring_any_case)
{
    uint32_t count;
    krt_device_info *infos = list_devices(&count);
    const char *name = infos[count - 1].name;
    size_t len = strlen(name);
    cr_assert_gt(len, 0);
    /* The middle part of the name, with every letter's case flipped. */
    size_t start = len / 4, sub_len = len - start - len / 4;
    if (sub_len == 0)
        sub_len = 1;
    char sub[256];
    for (size_t i = 0; i < sub_len; i++) {
        char c = name[start + i];
        sub[i] = isupper((unsigned char)c) ? (char)tolower((unsigned char)c) : (char)toupper((unsigned char)c);
    }
    sub[sub_len] = '\0';
    krt_context_desc desc = {.device = sub};
    krt_context *ctx = kt_context(&desc);
    krt_device_info got;
    KT_OK(krt_context_device_info(ctx, &got));
    cr_assert_neq(strcasestr(got.name, sub), NULL, "device %s does not contain %s", got.name, sub);
    krt_context_destroy(ctx);
    free(infos);
}

Test(context, device_name_without_match)
{
    krt_context_desc desc = {.device = "no-such-device-anywhere-7f3a"};
    krt_context *ctx = NULL;
    KT_EXPECT(krt_context_create(&desc, &ctx), KRT_ERROR_NO_DEVICE);
    cr_assert_null(ctx);
}

/* A name that matches nothing lists the devices there are, each with its index, name and kind, so the user
 * can correct KRT_DEVICE without another tool. */
Test(context, device_name_without_match_lists_the_devices)
{
    uint32_t count;
    krt_device_info *infos = list_devices(&count);
    krt_context_desc desc = {.device = "no-such-device-anywhere-7f3a"};
    krt_context *ctx = NULL;
    KT_EXPECT(krt_context_create(&desc, &ctx), KRT_ERROR_NO_DEVICE);
    const char *msg = krt_last_error_message();
    cr_assert(strstr(msg, "no-such-device-anywhere-7f3a"), "message does not name the request: %s", msg);
    cr_assert(strstr(msg, "the devices are:"), "message lists no devices: %s", msg);
    for (uint32_t i = 0; i < count; i++) {
        char entry[300];
        snprintf(entry, sizeof entry, "%u \"%s\" (%s", i, infos[i].name, krt_device_type_name(infos[i].type));
        cr_assert(strstr(msg, entry), "device %u (%s) missing from: %s", i, entry, msg);
    }
    free(infos);
}

/* The device kinds: "cpu", "gpu" (any case) choose the first device of that type, "cpu:1" the second. The
 * expected device is found from the list by type, not assumed. */
static int nth_of_type(const krt_device_info *infos, uint32_t count, krt_device_type type, uint32_t nth)
{
    for (uint32_t i = 0; i < count; i++)
        if (infos[i].type == type && nth-- == 0)
            return (int)i;
    return -1;
}

static void check_kind(const char *word, const krt_device_info *infos, uint32_t count, krt_device_type type,
                       uint32_t nth)
{
    int want = nth_of_type(infos, count, type, nth);
    krt_context_desc desc = {.device = word};
    krt_context *ctx = NULL;
    if (want < 0) {
        KT_EXPECT(krt_context_create(&desc, &ctx), KRT_ERROR_NO_DEVICE);
        cr_assert_null(ctx);
        cr_assert(strstr(krt_last_error_message(), "the devices are:"), "%s", krt_last_error_message());
        return;
    }
    ctx = kt_context(&desc);
    krt_device_info got;
    KT_OK(krt_context_device_info(ctx, &got));
    cr_assert(same_device(&got, &infos[want]), "\"%s\" chose %s, not device %d (%s)", word, got.name, want,
              infos[want].name);
    cr_assert_eq(got.type, type);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

Test(context, device_by_kind)
{
    uint32_t count;
    krt_device_info *infos = list_devices(&count);
    cr_assert_geq(nth_of_type(infos, count, KRT_DEVICE_TYPE_CPU, 0), 0, "the test runs with ze_pocl: no CPU");
    check_kind("cpu", infos, count, KRT_DEVICE_TYPE_CPU, 0);
    check_kind("CPU", infos, count, KRT_DEVICE_TYPE_CPU, 0);
    check_kind("cpu:0", infos, count, KRT_DEVICE_TYPE_CPU, 0);
    check_kind("cpu:1", infos, count, KRT_DEVICE_TYPE_CPU, 1);
    check_kind("gpu", infos, count, KRT_DEVICE_TYPE_GPU, 0);
    check_kind("Gpu", infos, count, KRT_DEVICE_TYPE_GPU, 0);
    check_kind("fpga", infos, count, KRT_DEVICE_TYPE_FPGA, 0);
    free(infos);
}

Test(context, device_kind_through_krt_device)
{
    setenv("KRT_DEVICE", "cpu", 1);
    krt_context *ctx = kt_context(NULL);
    krt_device_info got;
    KT_OK(krt_context_device_info(ctx, &got));
    cr_assert_eq(got.type, KRT_DEVICE_TYPE_CPU);
    krt_context_destroy(ctx);
    unsetenv("KRT_DEVICE");
}

/* A kind with no device of it, or an index past the kind's count, names the kind and the count. */
Test(context, device_kind_past_the_last)
{
    krt_context_desc desc = {.device = "cpu:63"};
    krt_context *ctx = NULL;
    KT_EXPECT(krt_context_create(&desc, &ctx), KRT_ERROR_NO_DEVICE);
    cr_assert_null(ctx);
    const char *msg = krt_last_error_message();
    cr_assert(strstr(msg, "there is only 1 cpu device") || strstr(msg, "cpu devices"), "%s", msg);
    cr_assert(strstr(msg, "the devices are:"), "%s", msg);
}

/* "host" is reserved for krt's host device, which does not exist yet: it chooses nothing, and says so,
 * rather than matching a device whose name happens to contain "host". */
/* "host" is a kind: krt's host device, never a device whose name merely contains "host"; "host:1" names none. */
Test(context, device_kind_host_is_the_host_device)
{
    krt_context_desc desc = {.device = "HOST"};
    krt_context *ctx = kt_context(&desc);
    krt_device_info info;
    KT_OK(krt_context_device_info(ctx, &info));
    cr_assert_eq(info.type, KRT_DEVICE_TYPE_HOST);
    cr_assert_str_eq(info.driver_name, "host");
    krt_context_destroy(ctx);
    ctx = NULL;
    desc.device = "host:1";
    KT_EXPECT(krt_context_create(&desc, &ctx), KRT_ERROR_NO_DEVICE);
    cr_assert_null(ctx);
    cr_assert(strstr(krt_last_error_message(), "there is only 1 host device"), "%s", krt_last_error_message());
}

/* Words that only start like a kind are names: "cpux" and "cpu:" are substrings, not kinds. */
Test(context, device_kind_prefix_is_a_name)
{
    krt_context_desc desc = {.device = "cpu:"};
    krt_context *ctx = NULL;
    KT_EXPECT(krt_context_create(&desc, &ctx), KRT_ERROR_NO_DEVICE);
    cr_assert(strstr(krt_last_error_message(), "a piece of a device name"), "%s", krt_last_error_message());
}

Test(context, krt_device_environment_variable)
{
    setenv("KRT_DEVICE", "no-such-device-anywhere-7f3a", 1);
    krt_context *ctx = NULL;
    KT_EXPECT(krt_context_create(NULL, &ctx), KRT_ERROR_NO_DEVICE);
    cr_assert_null(ctx);
    /* The descriptor's choice comes before the environment's. */
    krt_context_desc desc = {.device = "0"};
    ctx = kt_context(&desc);
    krt_context_destroy(ctx);
    setenv("KRT_DEVICE", "0", 1);
    ctx = kt_context(NULL);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

Test(context, bad_create_arguments)
{
    KT_EXPECT(krt_context_create(NULL, NULL), KRT_ERROR_INVALID_ARGUMENT);
    krt_context_desc desc = {.flags = 1u << 30};
    krt_context *ctx = NULL;
    KT_EXPECT(krt_context_create(&desc, &ctx), KRT_ERROR_INVALID_ARGUMENT);
    cr_assert_null(ctx);
}

Test(context, destroy_null_does_nothing)
{
    krt_context_destroy(NULL);
    krt_context *ctx = kt_context(NULL);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

Test(context, two_contexts_at_once)
{
    krt_context *a = kt_context(NULL);
    krt_context *b = kt_context(NULL);
    cr_assert_neq(a, b);
    kt_assert_usable(a);
    kt_assert_usable(b);
    krt_context_destroy(a);
    kt_assert_usable(b);
    krt_context_destroy(b);
}

Test(context, create_destroy_create_again)
{
    for (int i = 0; i < 3; i++) {
        krt_context *ctx = kt_context(NULL);
        kt_assert_usable(ctx);
        krt_context_destroy(ctx);
    }
}

Test(context, extension_list_two_call_pattern_and_lookup)
{
    krt_context *ctx = kt_context(NULL);
    uint32_t count = 0;
    KT_OK(krt_context_extensions(ctx, NULL, &count));
    cr_assert_gt(count, 0, "ze_pocl advertises no extension");
    const char **names = calloc(count, sizeof *names);
    cr_assert_not_null(names);
    uint32_t filled = count;
    KT_OK(krt_context_extensions(ctx, names, &filled));
    cr_assert_eq(filled, count);
    for (uint32_t i = 0; i < count; i++) {
        cr_assert(names[i] != NULL && names[i][0] != '\0', "extension %u has no name", i);
        for (uint32_t j = 0; j < i; j++)
            cr_assert_str_neq(names[i], names[j], "extension %s listed twice", names[i]);
        cr_assert_eq(krt_context_has_extension(ctx, names[i]), 1, "%s listed but not found", names[i]);
    }
    cr_assert_eq(krt_context_has_extension(ctx, "ZE_extension_that_does_not_exist"), 0);
    cr_assert_eq(krt_context_has_extension(ctx, ""), 0);
    cr_assert_eq(krt_context_has_extension(ctx, NULL), 0);
    cr_assert_eq(krt_context_has_extension(NULL, names[0]), 0);
    /* A prefix of a listed name is not that extension. */
    char prefix[256];
    snprintf(prefix, sizeof prefix, "%.*s", (int)(strlen(names[0]) - 1), names[0]);
    int prefix_listed = 0;
    for (uint32_t i = 0; i < count; i++)
        prefix_listed |= strcmp(names[i], prefix) == 0;
    if (!prefix_listed)
        cr_assert_eq(krt_context_has_extension(ctx, prefix), 0, "prefix %s matched", prefix);
    free(names);
    krt_context_destroy(ctx);
}

Test(context, extension_list_is_memoized)
{
    krt_context *ctx = kt_context(NULL);
    uint32_t count = 0;
    KT_OK(krt_context_extensions(ctx, NULL, &count));
    cr_assert_gt(count, 0);
    const char **a = calloc(count, sizeof *a), **b = calloc(count, sizeof *b);
    cr_assert(a && b);
    uint32_t na = count, nb = count;
    KT_OK(krt_context_extensions(ctx, a, &na));
    KT_OK(krt_context_extensions(ctx, b, &nb));
    cr_assert_eq(na, nb);
    /* The names belong to the context: the same strings every time, not fresh copies of a new query. */
    for (uint32_t i = 0; i < na; i++)
        cr_assert_eq(a[i], b[i], "extension %u moved between calls", i);
    /* A smaller buffer gets that many names. */
    uint32_t one = 1;
    const char *first = NULL;
    KT_OK(krt_context_extensions(ctx, &first, &one));
    cr_assert_eq(one, 1);
    cr_assert_eq(first, a[0]);
    KT_EXPECT(krt_context_extensions(ctx, a, NULL), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_context_extensions(NULL, a, &na), KRT_ERROR_INVALID_ARGUMENT);
    free(a);
    free(b);
    krt_context_destroy(ctx);
}

Test(context, synchronize)
{
    krt_context *ctx = kt_context(NULL);
    KT_OK(krt_context_synchronize(ctx));
    KT_EXPECT(krt_context_synchronize(NULL), KRT_ERROR_INVALID_ARGUMENT);
    krt_context_destroy(ctx);
}

/* With ZE_ENABLE_ALT_DRIVERS unset, krt itself must point the loader at the ze_pocl installed beside libkrt.
 * Each Criterion test runs in its own process, so this process has not run zeInit yet. */
Test(context, embedded_default_driver_without_environment)
{
    unsetenv("ZE_ENABLE_ALT_DRIVERS");
    unsetenv("KRT_DEVICE");
    /* A GPU driver may be found too on a machine that has one; ze_pocl must be among the drivers. */
    uint32_t count;
    krt_device_info *infos = list_devices(&count);
    int pocl = -1;
    for (uint32_t i = 0; i < count && pocl < 0; i++)
        if (strcmp(infos[i].driver_name, "ze_pocl") == 0)
            pocl = (int)i;
    cr_assert_geq(pocl, 0, "ze_pocl was not found beside libkrt");
    char idx[16];
    snprintf(idx, sizeof idx, "%d", pocl);
    krt_context_desc desc = {.device = idx};
    krt_context *ctx = kt_context(&desc);
    krt_device_info info;
    KT_OK(krt_context_device_info(ctx, &info));
    cr_assert_str_eq(info.driver_name, "ze_pocl");
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
    free(infos);
}

/* Without the variable, krt_context_create alone (no krt_device_list first) finds a driver too. */
Test(context, embedded_default_driver_first_call_is_create)
{
    unsetenv("ZE_ENABLE_ALT_DRIVERS");
    unsetenv("KRT_DEVICE");
    krt_context *ctx = kt_context(NULL);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

/* An explicit ZE_ENABLE_ALT_DRIVERS is used as it is, even when it names nothing loadable. */
Test(context, explicit_alt_drivers_respected)
{
    setenv("ZE_ENABLE_ALT_DRIVERS", "/nonexistent/krt-test/libze_nothing.so", 1);
    krt_context *ctx = NULL;
    KT_EXPECT(krt_context_create(NULL, &ctx), KRT_ERROR_NO_DRIVER);
    cr_assert_null(ctx);
    cr_assert(strstr(krt_last_error_message(), "KRT_DEVICE=host"), "%s", krt_last_error_message());
    /* krt's host device is no Level Zero driver's: it is listed alone */
    uint32_t count = 77;
    KT_OK(krt_device_list(NULL, &count));
    cr_assert_eq(count, 1);
    krt_device_info info;
    KT_OK(krt_device_list(&info, &count));
    cr_assert_eq(info.type, KRT_DEVICE_TYPE_HOST);
}

/* Device properties are cached per device: a second context on the same device, its device info and its
 * launches query none of them again. */
Test(context, device_properties_cached_per_device)
{
    kt_trace_start();
    krt_context *first = kt_context(NULL);
    unsigned long after_first = kt_trace_device_queries();
    cr_assert_gt(after_first, 0, "the tracer saw no device property query at all");
    krt_context *second = kt_context(NULL);
    krt_device_info info;
    for (int i = 0; i < 100; i++) {
        KT_OK(krt_context_device_info(second, &info));
        KT_OK(krt_context_device_info(first, &info));
    }
    kt_assert_usable(second);
    kt_assert_usable(first);
    unsigned long more = kt_trace_device_queries() - after_first;
    cr_assert_eq(more, 0, "%lu device property queries after the first context", more);
    krt_context_destroy(second);
    krt_context_destroy(first);
}

/* krt_context_destroy releases whatever the caller left: modules, kernels, queues, events and memory, with
 * work still queued. A new context afterwards works. */
Test(context, destroy_releases_what_is_left)
{
    for (int round = 0; round < 2; round++) {
        krt_context *ctx = kt_context(NULL);
        krt_module *m = kt_module(ctx, "krt_basic");
        krt_module *m2 = kt_module(ctx, "krt_reflect");
        (void)kt_kernel(m2, "krt_noargs");
        krt_kernel *k = kt_kernel(m, "krt_slow_fill");
        krt_queue *q = NULL;
        KT_OK(krt_queue_create(ctx, NULL, &q));
        krt_event *e = NULL;
        KT_OK(krt_event_create(ctx, NULL, &e));
        enum { N = 4096 };
        int32_t *buf = kt_alloc(ctx, N * 4, KRT_MEMORY_SHARED);
        (void)kt_alloc(ctx, 1000, KRT_MEMORY_DEVICE);
        (void)kt_alloc(ctx, 1000, KRT_MEMORY_HOST);
        int32_t value = 1;
        uint32_t n = N, spin = 20000;
        krt_arg args[] = {KRT_ARG(buf), KRT_ARG(value), KRT_ARG(n), KRT_ARG(spin)};
        krt_launch_desc d = kt_desc1(N, args, 4);
        d.queue = q;
        d.signal = e;
        KT_OK(krt_launch(k, &d));
        d.queue = NULL;
        d.signal = NULL;
        KT_OK(krt_launch(k, &d));
        krt_context_destroy(ctx);
    }
    krt_context *ctx = kt_context(NULL);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

/* Empty entries in ZE_ENABLE_ALT_DRIVERS (a trailing or doubled comma) make the loader load the program
 * itself and recurse until the stack overflows; krt must not let that happen and uses the real entries. */
static void alt_drivers_with_empty_entries(const char *pattern)
{
    const char *so = getenv("ZE_ENABLE_ALT_DRIVERS");
    char path[4096];
    if (so && so[0] && !strchr(so, ','))
        snprintf(path, sizeof path, "%s", so);
    else {
        const char *b = getenv("KRT_BUILD");
        cr_assert(b != NULL, "KRT_BUILD is not set (run the tests through make)");
        snprintf(path, sizeof path, "%s/lib/libze_pocl.so", b);
    }
    char value[8192];
    snprintf(value, sizeof value, pattern, path, path);
    setenv("ZE_ENABLE_ALT_DRIVERS", value, 1);
    krt_context *ctx = kt_context(NULL);
    krt_device_info info;
    KT_OK(krt_context_device_info(ctx, &info));
    cr_assert_str_eq(info.driver_name, "ze_pocl");
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

Test(context, alt_drivers_trailing_comma) { alt_drivers_with_empty_entries("%s,"); }
Test(context, alt_drivers_leading_and_double_commas) { alt_drivers_with_empty_entries(",%s,,%.0s"); }
