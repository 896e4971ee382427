/* Robustness (issue 8, libkrt's half): modules built to break reflection (a self-referencing vector, a
 * 0-component vector, a struct DAG whose naive layout is exponential, id bounds of 2^29 and 2^32), sizes no
 * buffer can have, a FIFO as a module path, specialization constants narrower than their type, group counts
 * that wrap, copies and fills past the end of an allocation, overlapping copies, a bounded queue wait, and
 * PoCL's SIGFPE handler. Each bad input gets its exact result code and is followed by a correct launch in the
 * same context (kt_assert_usable). The reproducer modules are test/data/repro/, copied from the issue. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "krt_test.h"

TestSuite(robust, .timeout = KT_TEST_TIMEOUT);

/* test/data/repro/<name>, relative to the source tree (make runs the tests from its root); KRT_TEST_DATA
 * overrides the test/data part. */
static const char *repro_path(const char *name)
{
    static _Thread_local char path[4096];
    const char *dir = getenv("KRT_TEST_DATA");
    int n = snprintf(path, sizeof path, "%s/repro/%s", dir && dir[0] ? dir : "test/data", name);
    cr_assert(n > 0 && (size_t)n < sizeof path);
    return path;
}

/* Whether the last error message contains text: for the few places where the issue asks that the message
 * name what was wrong (a size, an id, an overlap). */
static void assert_message_has(const char *text)
{
    const char *msg = krt_last_error_message();
    cr_assert(msg && strstr(msg, text), "the message \"%s\" does not name \"%s\"", msg ? msg : "(null)", text);
}

/* Loads a reproducer from memory under a policy and returns the result; the output must stay untouched on
 * failure. */
static krt_result load_repro(krt_context *ctx, const char *name, krt_validation policy, krt_module **out)
{
    size_t size;
    void *code = kt_read_file(repro_path(name), &size);
    krt_module_desc desc = {.code = code, .size = size, .validation = policy};
    krt_module *sentinel = (krt_module *)(uintptr_t)0x4321, *m = sentinel;
    krt_result r = krt_module_create(ctx, &desc, &m);
    free(code);
    if (r != KRT_SUCCESS)
        cr_assert_eq(m, sentinel, "%s: output written on failure", name);
    *out = r == KRT_SUCCESS ? m : NULL;
    return r;
}

static void expect_repro(krt_context *ctx, const char *name, krt_validation policy, krt_result want)
{
    krt_module *m = NULL;
    krt_result r = load_repro(ctx, name, policy, &m);
    cr_assert_eq(r, want, "%s (validation %d): got %s, expected %s: %s", name, (int)policy, krt_result_name(r),
                 krt_result_name(want), krt_last_error_message());
    if (r != KRT_SUCCESS)
        cr_assert(krt_last_error_message()[0], "%s: empty message", name);
    krt_module_destroy(m);
    kt_assert_usable(ctx);
}

static const krt_validation all_policies[] = {KRT_VALIDATION_DEFAULT, KRT_VALIDATION_STRICT, KRT_VALIDATION_NONE};

/* %v = OpTypeVector %v 4: reflection recursed without end before; now the validator refuses it, and with
 * validation off reflection refuses it itself (a vector's component must be a scalar defined before it). */
Test(robust, self_referencing_vector)
{
    krt_context *ctx = kt_context(NULL);
    for (size_t i = 0; i < 3; i++)
        expect_repro(ctx, "selfvec.spv", all_policies[i], KRT_ERROR_INVALID_MODULE);
    krt_context_destroy(ctx);
}

/* A by-value struct holding a vector of 0 components: a division by zero in the layout before. */
Test(robust, zero_component_vector)
{
    krt_context *ctx = kt_context(NULL);
    for (size_t i = 0; i < 3; i++)
        expect_repro(ctx, "zerovec.spv", all_policies[i], KRT_ERROR_INVALID_MODULE);
    krt_module *m;
    cr_assert_eq(load_repro(ctx, "zerovec.spv", KRT_VALIDATION_NONE, &m), KRT_ERROR_INVALID_MODULE);
    assert_message_has("0 components");
    krt_context_destroy(ctx);
}

/* A valid module: 16 levels of structs of 8 members each, one by-value parameter of the top one. The naive
 * recursive layout made 8^16 calls; each struct is now laid out once. Its size (4 * 8^16 bytes) has no
 * krt_arg_info size, so the argument is reflected as KRT_ARG_OTHER, which krt_launch refuses. The module
 * loads under every policy, except on ze_cuda: CUDA passes at most 4 KiB of parameters to a kernel, and the
 * driver refuses a module whose kernel takes more (docs/driver.md), after krt's reflection has passed it. */
Test(robust, struct_dag_loads)
{
    kt_skip_on_host("the module is given as bytes, which have no native library");
    krt_context *ctx = kt_context(NULL);
    krt_device_info dev;
    KT_OK(krt_context_device_info(ctx, &dev));
    for (size_t i = 0; i < 3; i++) {
        krt_module *m = NULL;
        krt_result r = load_repro(ctx, "structdag.spv", all_policies[i], &m);
        if (strcmp(dev.driver_name, "ze_cuda") == 0) {
            cr_assert_eq(r, KRT_ERROR_MODULE_BUILD_FAILURE, "policy %d on ze_cuda: %s: %s", (int)all_policies[i],
                         krt_result_name(r), krt_last_error_message());
            kt_assert_usable(ctx);
            continue;
        }
        cr_assert_eq(r, KRT_SUCCESS, "policy %d: %s: %s", (int)all_policies[i], krt_result_name(r),
                     krt_last_error_message());
        krt_arg_info info;
        KT_OK(krt_module_arg_info(m, "k", 0, &info));
        cr_assert_eq(info.kind, KRT_ARG_OTHER);
        cr_assert_eq(info.size, 0);
        krt_kernel *k = kt_kernel(m, "k");
        unsigned char byte = 0;
        krt_arg args[] = {KRT_ARG(byte)};
        krt_launch_desc d = kt_desc1(1, args, 1);
        KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_KERNEL_ARGUMENT);
        krt_module_destroy(m);
        kt_assert_usable(ctx);
    }
    krt_context_destroy(ctx);
}

/* Header id bounds of 0x2A000000 and 0xFFFFFFFF: refused as invalid before anything is sized by them, under
 * every policy. The address-space limit makes a gigabyte-sized allocation fail in this process, so a
 * regression shows as KRT_ERROR_OUT_OF_HOST_MEMORY here rather than as a slow pass. */
Test(robust, huge_id_bounds)
{
    krt_context *ctx = kt_context(NULL);
    struct rlimit old;
    cr_assert_eq(getrlimit(RLIMIT_AS, &old), 0);
    struct rlimit lim = old;
    /* Address space in use now plus 2 GiB: enough for the tests, far below 22 GB. */
    FILE *f = fopen("/proc/self/statm", "r");
    cr_assert_not_null(f);
    unsigned long pages = 0;
    cr_assert_eq(fscanf(f, "%lu", &pages), 1);
    fclose(f);
    rlim_t cap = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (2ull << 30);
    if (lim.rlim_max == RLIM_INFINITY || lim.rlim_max > cap) {
        lim.rlim_cur = cap;
        cr_assert_eq(setrlimit(RLIMIT_AS, &lim), 0, "setrlimit: %s", strerror(errno));
    }
    for (size_t i = 0; i < 3; i++) {
        krt_module *m;
        krt_result r = load_repro(ctx, "bigbound.spv", all_policies[i], &m);
        cr_assert_eq(r, KRT_ERROR_INVALID_MODULE, "bigbound policy %d: %s: %s", (int)all_policies[i],
                     krt_result_name(r), krt_last_error_message());
        assert_message_has("bound");
        r = load_repro(ctx, "maxbound.spv", all_policies[i], &m);
        cr_assert_eq(r, KRT_ERROR_INVALID_MODULE, "maxbound policy %d: %s: %s", (int)all_policies[i],
                     krt_result_name(r), krt_last_error_message());
        assert_message_has("bound");
    }
    cr_assert_eq(setrlimit(RLIMIT_AS, &old), 0);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

/* The largest bound SPIR-V allows (0x3FFFFF) on a small valid module: accepted, and reflection's memory is
 * sized by the module, not by the bound. */
Test(robust, largest_legal_id_bound)
{
    kt_skip_on_host("the module is given as bytes, which have no native library");
    krt_context *ctx = kt_context(NULL);
    size_t size;
    uint32_t *code = kt_read_file(kt_kernel_path("krt_basic"), &size);
    code[3] = 0x3FFFFF;
    krt_module_desc desc = {.code = code, .size = size, .validation = KRT_VALIDATION_NONE};
    krt_module *m = NULL;
    KT_OK(krt_module_create(ctx, &desc, &m));
    krt_kernel *k = kt_kernel(m, "krt_iota");
    uint32_t *out = kt_alloc(ctx, 100 * sizeof(uint32_t), KRT_MEMORY_SHARED);
    uint32_t n = 100, base = 3;
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(n), KRT_ARG(base)};
    krt_launch_desc d = kt_desc1(n, args, 3);
    KT_OK(krt_launch_sync(k, &d));
    for (uint32_t i = 0; i < n; i++)
        cr_assert_eq(out[i], base + i);
    KT_OK(krt_free(ctx, out));
    krt_module_destroy(m);
    code[3] = 0x400000;
    KT_EXPECT(krt_module_create(ctx, &desc, &m), KRT_ERROR_INVALID_MODULE);
    free(code);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

/* .size = SIZE_MAX or SIZE_MAX - 3 with .code: malloc(size + 4) wrapped before. No object is that large. */
Test(robust, sizes_no_buffer_can_have)
{
    krt_context *ctx = kt_context(NULL);
    static const uint32_t words[8] = {0x07230203u};
    const size_t sizes[] = {SIZE_MAX, SIZE_MAX - 3, SIZE_MAX - 7, (size_t)PTRDIFF_MAX + 1};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        krt_module_desc desc = {.code = words, .size = sizes[i]};
        krt_module *m = NULL;
        KT_EXPECT(krt_module_create(ctx, &desc, &m), KRT_ERROR_INVALID_ARGUMENT);
        assert_message_has("larger than any object can be");
        cr_assert_null(m);
    }
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

/* A FIFO with no writer: opening it for reading blocked forever before. It is not a regular file. */
Test(robust, fifo_path_does_not_block)
{
    krt_context *ctx = kt_context(NULL);
    char dir[] = "/tmp/krt-test-fifo-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path[sizeof dir + 16];
    snprintf(path, sizeof path, "%s/module.spv", dir);
    cr_assert_eq(mkfifo(path, 0600), 0, "mkfifo: %s", strerror(errno));
    krt_module_desc desc = {.path = path};
    krt_module *m = NULL;
    KT_EXPECT(krt_module_create(ctx, &desc, &m), KRT_ERROR_IO);
    assert_message_has("not a regular file");
    cr_assert_null(m);
    unlink(path);
    rmdir(dir);
    /* /dev/null: a character device, readable, empty. */
    desc.path = "/dev/null";
    KT_EXPECT(krt_module_create(ctx, &desc, &m), KRT_ERROR_IO);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

/* krt_spec.cl declares SpecId 1 and 2 as int (4 bytes) and 3 as long (8 bytes). A value of another size was
 * over-read (a 1-byte buffer for a long) and the call succeeded. */
Test(robust, spec_constant_sizes_match_the_module)
{
    kt_skip_on_host("a native library cannot take specialization constants");
    krt_context *ctx = kt_context(NULL);
    unsigned char small = 1;
    int32_t i32 = 5;
    int64_t i64 = 6;
    const struct {
        uint32_t id;
        const void *value;
        size_t size;
        const char *named;
    } bad[] = {
        {3, &small, 1, "constant 3"}, {3, &i32, 4, "constant 3"}, {1, &i64, 8, "constant 1"}, {2, &small, 0, "constant 2"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        krt_spec_constant sc[] = {{.id = bad[i].id, .value = bad[i].value, .size = bad[i].size}};
        krt_module_desc desc = {.path = kt_kernel_path("krt_spec"), .spec_constants = sc, .num_spec_constants = 1};
        krt_module *m = NULL;
        KT_EXPECT(krt_module_create(ctx, &desc, &m), KRT_ERROR_INVALID_ARGUMENT);
        cr_assert_null(m);
        assert_message_has(bad[i].named);
        kt_assert_usable(ctx);
    }
    /* The right sizes load and take effect; an id the module does not declare is passed on and ignored. */
    krt_spec_constant good[] = {{.id = 3, .value = &i64, .size = 8}, {.id = 1, .value = &i32, .size = 4},
                                {.id = 99, .value = &small, .size = 1}};
    krt_module_desc desc = {.path = kt_kernel_path("krt_spec"), .spec_constants = good, .num_spec_constants = 3};
    krt_module *m = NULL;
    KT_OK(krt_module_create(ctx, &desc, &m));
    krt_kernel *k = kt_kernel(m, "krt_spec_values");
    int64_t *out = kt_alloc(ctx, 3 * sizeof(int64_t), KRT_MEMORY_SHARED);
    krt_arg args[] = {KRT_ARG(out)};
    krt_launch_desc d = kt_desc1(1, args, 1);
    KT_OK(krt_launch_sync(k, &d));
    cr_assert_eq(out[0], 5);
    cr_assert_eq(out[1], -3);
    cr_assert_eq(out[2], 6);
    KT_OK(krt_free(ctx, out));
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* A range of 2^64 - 1 with a static group of 256: the group count wrapped to 0, nothing ran and the launch
 * reported success. It needs 2^56 groups, more than any device allows. */
Test(robust, group_count_overflow)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_basic");
    krt_kernel *k = kt_kernel(m, "krt_iota");
    uint32_t *out = kt_alloc(ctx, 16 * sizeof(uint32_t), KRT_MEMORY_DEVICE);
    uint32_t n = 16, base = 0;
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(n), KRT_ARG(base)};
    krt_launch_desc d = kt_desc1(UINT64_MAX, args, 3);
    d.group[0] = 256;
    KT_EXPECT(krt_launch_sync(k, &d), KRT_ERROR_INVALID_NDRANGE);
    assert_message_has("72057594037927936 groups of 256"); /* 2^56 */
    d.range.size[0] = UINT64_MAX - 254;
    KT_EXPECT(krt_launch_sync(k, &d), KRT_ERROR_INVALID_NDRANGE);
    /* krt's own choice of group size too, and in a higher dimension. */
    d.group[0] = 0;
    d.range.size[0] = UINT64_MAX;
    KT_EXPECT(krt_launch_sync(k, &d), KRT_ERROR_INVALID_NDRANGE);
    krt_launch_config cfg;
    KT_EXPECT(krt_launch_config_get(k, &d.range, &cfg), KRT_ERROR_INVALID_NDRANGE);
    d.range = (krt_ndrange){2, {1, UINT64_MAX, 0}};
    d.group[0] = 1;
    d.group[1] = 256;
    KT_EXPECT(krt_launch_sync(k, &d), KRT_ERROR_INVALID_NDRANGE);
    KT_OK(krt_free(ctx, out));
    krt_module_destroy(m);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

/* A range of 2^32 in each of three dimensions, 2^96 work-items, was accepted with KRT_SUCCESS (issue 37): each
 * dimension's group count fits the device's limit, but no 64-bit linear id numbers its work-items, and the driver
 * would have run some other number of them. It is refused, naming the sizes, by krt_launch_config_get and by
 * krt_launch whoever chooses the group; 2^64 - 2^42 work-items still have ids. A range that has them but whose
 * whole groups do not (x rounded up to groups of 64: 2^64 work-items launched) is refused too. The configuration
 * checks come first: before the fix the launches below would have run (for ever). */
Test(robust, work_items_past_a_64_bit_id)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_basic");
    krt_kernel *k = kt_kernel(m, "krt_iota");
    uint32_t *out = kt_alloc(ctx, 16 * sizeof(uint32_t), KRT_MEMORY_DEVICE);
    uint32_t n = 16, base = 0;
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(n), KRT_ARG(base)};
    const uint64_t big = 1ull << 32;
    krt_launch_config cfg;
    const krt_ndrange huge = {3, {big, big, big}};
    KT_EXPECT(krt_launch_config_get(k, &huge, &cfg), KRT_ERROR_INVALID_NDRANGE);
    assert_message_has("the ndrange 4294967296 x 4294967296 x 4294967296 has more work-items than a 64-bit linear id");
    /* dims 0: the same three sizes. */
    const krt_ndrange implied = {0, {big, big, big}};
    KT_EXPECT(krt_launch_config_get(k, &implied, &cfg), KRT_ERROR_INVALID_NDRANGE);
    assert_message_has("4294967296 x 4294967296 x 4294967296");
    /* Two dimensions: 2^64 work-items are one too many; 2^64 - 2^42 are not (sizes that any power-of-two group
     * up to 1024 divides, so that whole groups launch no more). */
    const krt_ndrange two = {2, {big, big, 0}}, fits = {2, {big - 1024, big, 0}};
    KT_EXPECT(krt_launch_config_get(k, &two, &cfg), KRT_ERROR_INVALID_NDRANGE);
    assert_message_has("the ndrange 4294967296 x 4294967296 has");
    /* A GPU may refuse it for another reason, its count of groups in y (CUDA allows 65535): never the 64-bit one. */
    krt_result fr = krt_launch_config_get(k, &fits, &cfg);
    if (fr != KRT_SUCCESS) {
        cr_assert_eq(fr, KRT_ERROR_INVALID_NDRANGE, "%s", krt_last_error_message());
        cr_assert(strstr(krt_last_error_message(), "the device allows") &&
                      !strstr(krt_last_error_message(), "64-bit"),
                  "%s", krt_last_error_message());
    }
    /* Launches: krt's group, then the caller's. */
    krt_launch_desc d = {.range = huge, .args = args, .num_args = 3};
    KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_NDRANGE);
    assert_message_has("4294967296 x 4294967296 x 4294967296");
    d.group[0] = 16;
    d.group[1] = 8;
    d.group[2] = 8;
    KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_NDRANGE);
    assert_message_has("4294967296 x 4294967296 x 4294967296");
    /* (2^22 - 1) x 2^21 x 2^21 = 2^64 - 2^42 work-items, 2^22 x 2^21 x 2^21 launched in groups of 64 x 1 x 1. */
    d.range = (krt_ndrange){3, {(1ull << 22) - 1, 1ull << 21, 1ull << 21}};
    d.group[0] = 64;
    d.group[1] = 1;
    d.group[2] = 1;
    KT_EXPECT(krt_launch(k, &d), KRT_ERROR_INVALID_NDRANGE);
    assert_message_has("the ndrange 4194303 x 2097152 x 2097152 in groups of 64 x 1 x 1 launches "
                       "4194304 x 2097152 x 2097152 work-items");
    KT_OK(krt_free(ctx, out));
    krt_module_destroy(m);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

/* 1 MiB into and out of a 64-byte allocation: ze_pocl's host copy overran the heap before. krt refuses it
 * with the allocation's size in the message, for every kind of memory, at any offset. */
Test(robust, copies_past_an_allocation)
{
    krt_context *ctx = kt_context(NULL);
    const krt_memory_kind kinds[] = {KRT_MEMORY_DEVICE, KRT_MEMORY_HOST, KRT_MEMORY_SHARED};
    enum { BIG = 1 << 20 };
    unsigned char *host = calloc(BIG, 1);
    cr_assert_not_null(host);
    for (size_t i = 0; i < 3; i++) {
        unsigned char *small = kt_alloc(ctx, 64, kinds[i]);
        unsigned char *big = kt_alloc(ctx, BIG, kinds[i]);
        KT_EXPECT(krt_memcpy(ctx, NULL, small, host, BIG), KRT_ERROR_INVALID_ARGUMENT);
        assert_message_has("64-byte allocation");
        KT_EXPECT(krt_memcpy(ctx, NULL, host, small, BIG), KRT_ERROR_INVALID_ARGUMENT);
        assert_message_has("64-byte allocation");
        KT_EXPECT(krt_memcpy(ctx, NULL, big, small, BIG), KRT_ERROR_INVALID_ARGUMENT);
        KT_EXPECT(krt_memcpy(ctx, NULL, small, big, BIG), KRT_ERROR_INVALID_ARGUMENT);
        /* One byte too many, from an offset. */
        KT_EXPECT(krt_memcpy(ctx, NULL, small + 60, host, 5), KRT_ERROR_INVALID_ARGUMENT);
        KT_EXPECT(krt_memcpy(ctx, NULL, host, big + BIG - 8, 9), KRT_ERROR_INVALID_ARGUMENT);
        assert_message_has("1048576-byte allocation");
        /* A size that would wrap the address space. */
        KT_EXPECT(krt_memcpy(ctx, NULL, small + 1, host, SIZE_MAX), KRT_ERROR_INVALID_ARGUMENT);
        /* Exactly to the end is fine, and the bytes arrive. */
        for (int b = 0; b < 64; b++)
            host[b] = (unsigned char)(b + 1);
        KT_OK(krt_memcpy(ctx, NULL, small + 32, host, 32));
        KT_OK(krt_memcpy(ctx, NULL, big + BIG - 32, small + 32, 32));
        unsigned char back[32] = {0};
        kt_copy_sync(ctx, back, big + BIG - 32, 32);
        for (int b = 0; b < 32; b++)
            cr_assert_eq(back[b], b + 1, "byte %d", b);
        KT_OK(krt_free(ctx, small));
        KT_OK(krt_free(ctx, big));
    }
    free(host);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

/* 1 MiB of fill over a 64-byte allocation corrupted the heap before. */
Test(robust, fills_past_an_allocation)
{
    krt_context *ctx = kt_context(NULL);
    const krt_memory_kind kinds[] = {KRT_MEMORY_DEVICE, KRT_MEMORY_HOST, KRT_MEMORY_SHARED};
    for (size_t i = 0; i < 3; i++) {
        unsigned char *small = kt_alloc(ctx, 64, kinds[i]);
        uint32_t pattern = 0xdeadbeefu;
        KT_EXPECT(krt_memfill(ctx, NULL, small, &pattern, 4, 1 << 20), KRT_ERROR_INVALID_ARGUMENT);
        assert_message_has("64-byte allocation");
        KT_EXPECT(krt_memfill(ctx, NULL, small + 4, &pattern, 4, 64), KRT_ERROR_INVALID_ARGUMENT);
        KT_EXPECT(krt_memfill(ctx, NULL, small + 63, &pattern, 1, 2), KRT_ERROR_INVALID_ARGUMENT);
        /* To the end exactly: filled, and the byte before untouched. */
        unsigned char zero = 0, ones = 0xff;
        KT_OK(krt_memfill(ctx, NULL, small, &zero, 1, 64));
        KT_OK(krt_memfill(ctx, NULL, small + 48, &ones, 1, 16));
        unsigned char back[64];
        kt_copy_sync(ctx, back, small, 64);
        for (int b = 0; b < 64; b++)
            cr_assert_eq(back[b], b < 48 ? 0 : 0xff, "byte %d", b);
        KT_OK(krt_free(ctx, small));
    }
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

/* Overlapping copies have no defined result in Level Zero (KRT_ERROR_DRIVER came back before). krt refuses
 * them with the overlap in the message; adjacent regions are not overlapping. */
Test(robust, overlapping_copies)
{
    krt_context *ctx = kt_context(NULL);
    const krt_memory_kind kinds[] = {KRT_MEMORY_DEVICE, KRT_MEMORY_SHARED};
    for (size_t i = 0; i < 2; i++) {
        unsigned char *buf = kt_alloc(ctx, 256, kinds[i]);
        KT_EXPECT(krt_memcpy(ctx, NULL, buf + 16, buf, 64), KRT_ERROR_INVALID_ARGUMENT);
        assert_message_has("overlap by 48 bytes");
        KT_EXPECT(krt_memcpy(ctx, NULL, buf, buf + 63, 64), KRT_ERROR_INVALID_ARGUMENT);
        assert_message_has("overlap by 1 bytes");
        KT_EXPECT(krt_memcpy(ctx, NULL, buf, buf, 8), KRT_ERROR_INVALID_ARGUMENT);
        unsigned char src[64];
        for (int b = 0; b < 64; b++)
            src[b] = (unsigned char)(3 * b + 1);
        kt_copy_sync(ctx, buf, src, 64);
        KT_OK(krt_memcpy(ctx, NULL, buf + 64, buf, 64));
        unsigned char back[128];
        kt_copy_sync(ctx, back, buf, 128);
        for (int b = 0; b < 128; b++)
            cr_assert_eq(back[b], src[b % 64], "byte %d", b);
        KT_OK(krt_free(ctx, buf));
    }
    unsigned char host[32];
    KT_EXPECT(krt_memcpy(ctx, NULL, host + 1, host, 16), KRT_ERROR_INVALID_ARGUMENT);
    /* Host memory cannot be checked against an allocation, but no object is SIZE_MAX bytes long. */
    unsigned char other[32];
    KT_EXPECT(krt_memcpy(ctx, NULL, other, host, SIZE_MAX), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_memcpy(ctx, NULL, other, host, (size_t)PTRDIFF_MAX + 1), KRT_ERROR_INVALID_ARGUMENT);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

/* A queue held up by a launch that waits on an event nothing has signalled yet: the bounded wait returns
 * KRT_TIMEOUT (deterministically: the kernel cannot start), a plain one would block. Signalling the event
 * from another queue lets the kernel run; the next wait, timed or not, completes and sees its result. */
Test(robust, bounded_queue_synchronize)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_basic");
    krt_kernel *k = kt_kernel(m, "krt_iota");
    krt_queue *q = NULL;
    KT_OK(krt_queue_create(ctx, NULL, &q));
    krt_event *gate = NULL;
    KT_OK(krt_event_create(ctx, NULL, &gate));
    uint32_t *out = kt_alloc(ctx, 64 * sizeof(uint32_t), KRT_MEMORY_SHARED);
    uint32_t n = 64, base = 40;
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(n), KRT_ARG(base)};
    krt_launch_desc d = kt_desc1(n, args, 3);
    d.queue = q;
    d.wait = &gate;
    d.num_wait = 1;
    KT_OK(krt_launch(k, &d));
    KT_EXPECT(krt_queue_synchronize_timeout(q, 0), KRT_TIMEOUT);
    KT_EXPECT(krt_queue_synchronize_timeout(q, 1000000), KRT_TIMEOUT);
    KT_EXPECT(krt_queue_synchronize_timeout(NULL, 0), KRT_ERROR_INVALID_ARGUMENT);
    /* More work behind the blocked launch; the other queue still works meanwhile. */
    /* Its range and its guard say 32: the launch contract lets a dynamic group run past the range, up to the
     * kernel's guard. */
    uint32_t base2 = 90, n2 = 32;
    krt_arg args2[] = {KRT_ARG(out), KRT_ARG(n2), KRT_ARG(base2)};
    krt_launch_desc d2 = kt_desc1(n2, args2, 3);
    d2.queue = q;
    KT_OK(krt_launch(k, &d2));
    KT_EXPECT(krt_queue_synchronize_timeout(q, 1000), KRT_TIMEOUT);
    kt_assert_usable(ctx);
    /* Open the gate: a launch on the default queue signals it. */
    uint32_t *other = kt_alloc(ctx, 4 * sizeof(uint32_t), KRT_MEMORY_SHARED);
    uint32_t four = 4, zero = 0;
    krt_arg args3[] = {KRT_ARG(other), KRT_ARG(four), KRT_ARG(zero)};
    krt_launch_desc d3 = kt_desc1(4, args3, 3);
    d3.signal = gate;
    KT_OK(krt_launch(k, &d3));
    KT_OK(krt_queue_synchronize_timeout(q, UINT64_MAX));
    /* Both launches of q ran, in order: the second overwrote the first 32 items. */
    for (uint32_t i = 0; i < n; i++)
        cr_assert_eq(out[i], (i < 32 ? base2 : base) + i, "item %u", i);
    KT_OK(krt_queue_synchronize(q));
    KT_OK(krt_queue_synchronize_timeout(q, UINT64_MAX));
    /* Polling an idle queue ends in KRT_SUCCESS once the driver reaches the poll's barrier (a hang here would
     * be the Criterion timeout). */
    krt_result r;
    while ((r = krt_queue_synchronize_timeout(q, 0)) == KRT_TIMEOUT)
        sched_yield();
    cr_assert_eq(r, KRT_SUCCESS, "%s", krt_result_name(r));
    KT_OK(krt_free(ctx, out));
    KT_OK(krt_free(ctx, other));
    krt_event_destroy(gate);
    krt_queue_destroy(q);
    krt_module_destroy(m);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

/* PoCL (behind ze_pocl) installs a process-wide SIGFPE handler when the driver initialises, the first
 * krt_device_list or krt_context_create of the process: on x86-64 an integer division by zero traps, OpenCL C
 * says it must not, and PoCL's handler steps over the faulting instruction. It does so for the whole process,
 * host code included. These tests pin what docs/design.md says about it. */
#if defined(__x86_64__)
static int on_ze_pocl(krt_context *ctx)
{
    krt_device_info info;
    KT_OK(krt_context_device_info(ctx, &info));
    return strcmp(info.driver_name, "ze_pocl") == 0;
}

/* Runs krt_divide over 64 items, every eighth divisor 0; checks the items with a non-zero divisor. */
static krt_result divide_by_zero_in_a_kernel(krt_context *ctx)
{
    krt_module *m = kt_module(ctx, "krt_robust");
    krt_kernel *k = kt_kernel(m, "krt_divide");
    enum { N = 64 };
    int *out = kt_alloc(ctx, N * sizeof(int), KRT_MEMORY_SHARED);
    int *a = kt_alloc(ctx, N * sizeof(int), KRT_MEMORY_SHARED);
    int *b = kt_alloc(ctx, N * sizeof(int), KRT_MEMORY_SHARED);
    for (int i = 0; i < N; i++) {
        a[i] = 1000 + 7 * i;
        b[i] = i % 8 == 3 ? 0 : 1 + i % 5;
    }
    uint32_t n = N;
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(a), KRT_ARG(b), KRT_ARG(n)};
    krt_launch_desc d = kt_desc1(N, args, 4);
    krt_result r = krt_launch_sync(k, &d);
    if (r == KRT_SUCCESS)
        for (int i = 0; i < N; i++)
            if (b[i])
                cr_assert_eq(out[i], a[i] / b[i], "item %d", i);
    KT_OK(krt_free(ctx, out));
    KT_OK(krt_free(ctx, a));
    KT_OK(krt_free(ctx, b));
    krt_module_destroy(m);
    return r;
}

static void *sigfpe_handler(void)
{
    struct sigaction sa;
    cr_assert_eq(sigaction(SIGFPE, NULL, &sa), 0);
    return (sa.sa_flags & SA_SIGINFO) ? (void *)sa.sa_sigaction : (void *)sa.sa_handler;
}

/* With PoCL's handler in place, a kernel's integer division by zero gives an unspecified value for that item
 * and the launch succeeds; the context stays usable. */
Test(robust, sigfpe_pocl_handler_steps_over_kernel_division_by_zero)
{
    void *before = sigfpe_handler();
    krt_context *ctx = kt_context(NULL);
    if (!on_ze_pocl(ctx)) {
        krt_context_destroy(ctx);
        cr_skip_test("PoCL's handler is a ze_pocl matter");
    }
    cr_assert_neq(sigfpe_handler(), before, "PoCL did not install its SIGFPE handler (docs/design.md says it does)");
    KT_OK(divide_by_zero_in_a_kernel(ctx));
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
    /* Destroying the context leaves it installed: it belongs to the process, not to the context. */
    cr_assert_neq(sigfpe_handler(), before);
}

/* Why krt does not restore the host's handler after creating a context: with the default disposition back,
 * the same kernel's division by zero kills the process with SIGFPE. The fatal part runs in a child process,
 * which reports "not ze_pocl" (the test is then skipped: PoCL's handler is a ze_pocl matter) or dies; the
 * parent asserts that it died of exactly SIGFPE. The child touches krt only after the fork, so it inherits no
 * driver threads. */
static int child_divides_with_the_default_disposition(void)
{
    krt_context *ctx = NULL;
    if (krt_context_create(NULL, &ctx) != KRT_SUCCESS)
        return 2;
    krt_device_info info;
    if (krt_context_device_info(ctx, &info) != KRT_SUCCESS)
        return 2;
    if (strcmp(info.driver_name, "ze_pocl") != 0)
        return 77;
    char path[4096];
    const char *dir = getenv("KRT_TEST_KERNELS");
    snprintf(path, sizeof path, "%s/krt_robust.spv", dir ? dir : "build/test-kernels");
    krt_module *m = NULL;
    krt_kernel *k = NULL;
    if (krt_module_create(ctx, &(krt_module_desc){.path = path}, &m) != KRT_SUCCESS ||
        krt_kernel_get(m, "krt_divide", &k) != KRT_SUCCESS)
        return 2;
    enum { N = 64 };
    int *out = NULL, *a = NULL, *b = NULL;
    if (krt_alloc(ctx, N * sizeof(int), &(krt_alloc_desc){.kind = KRT_MEMORY_SHARED}, (void **)&out) ||
        krt_alloc(ctx, N * sizeof(int), &(krt_alloc_desc){.kind = KRT_MEMORY_SHARED}, (void **)&a) ||
        krt_alloc(ctx, N * sizeof(int), &(krt_alloc_desc){.kind = KRT_MEMORY_SHARED}, (void **)&b))
        return 2;
    for (int i = 0; i < N; i++) {
        a[i] = 1000 + 7 * i;
        b[i] = i % 8 == 3 ? 0 : 1 + i % 5;
    }
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigemptyset(&dfl.sa_mask);
    if (sigaction(SIGFPE, &dfl, NULL) != 0)
        return 2;
    uint32_t n = N;
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(a), KRT_ARG(b), KRT_ARG(n)};
    krt_launch_desc d = kt_desc1(N, args, 4);
    krt_launch_sync(k, &d);
    return 1; /* survived: the division did not trap */
}

Test(robust, sigfpe_host_handler_restored_makes_kernel_division_fatal)
{
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
    if (pid == 0)
        _exit(child_divides_with_the_default_disposition());
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
        cr_skip_test("PoCL's handler is a ze_pocl matter");
    cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGFPE,
              "the child was to die of SIGFPE; it %s %d", WIFSIGNALED(status) ? "died of signal" : "exited with",
              WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}
#endif

/* Thread safety of the new checks: the allocation ranges change under the context's lock while other threads
 * copy and fill against them, and timed waits share a queue with launches on other threads. */
typedef struct {
    krt_context *ctx;
    krt_queue *queue;
    int id;
    int failures;
} worker;

static void *alloc_copy_worker(void *p)
{
    worker *w = p;
    unsigned char host[256];
    for (int i = 0; i < 200; i++) {
        size_t size = 64 + (size_t)((w->id * 37 + i * 11) % 128);
        unsigned char *buf = NULL;
        if (krt_alloc(w->ctx, size, &(krt_alloc_desc){.kind = KRT_MEMORY_SHARED}, (void **)&buf) != KRT_SUCCESS) {
            w->failures++;
            continue;
        }
        memset(host, w->id + i, sizeof host);
        unsigned char byte = (unsigned char)(w->id * 16 + i);
        if (krt_memcpy(w->ctx, w->queue, buf, host, size) != KRT_SUCCESS ||
            krt_memcpy(w->ctx, w->queue, buf, host, size + 1) != KRT_ERROR_INVALID_ARGUMENT ||
            krt_memcpy(w->ctx, w->queue, host, buf + 1, size) != KRT_ERROR_INVALID_ARGUMENT ||
            krt_memfill(w->ctx, w->queue, buf + size / 2, &byte, 1, size - size / 2) != KRT_SUCCESS ||
            krt_memfill(w->ctx, w->queue, buf + size / 2, &byte, 1, size - size / 2 + 1) != KRT_ERROR_INVALID_ARGUMENT ||
            krt_queue_synchronize_timeout(w->queue, UINT64_MAX) != KRT_SUCCESS)
            w->failures++;
        else
            for (size_t k = 0; k < size; k++)
                if (buf[k] != (k < size / 2 ? (unsigned char)(w->id + i) : byte)) {
                    w->failures++;
                    break;
                }
        if (krt_free(w->ctx, buf) != KRT_SUCCESS)
            w->failures++;
    }
    return NULL;
}

Test(robust, threads_copy_and_fill_checks_while_allocating)
{
    krt_context *ctx = kt_context(NULL);
    enum { T = 4 };
    worker w[T];
    pthread_t th[T];
    for (int t = 0; t < T; t++) {
        w[t] = (worker){ctx, NULL, t, 0};
        KT_OK(krt_queue_create(ctx, NULL, &w[t].queue));
        cr_assert_eq(pthread_create(&th[t], NULL, alloc_copy_worker, &w[t]), 0);
    }
    for (int t = 0; t < T; t++) {
        pthread_join(th[t], NULL);
        cr_assert_eq(w[t].failures, 0, "thread %d: %d failures", t, w[t].failures);
        krt_queue_destroy(w[t].queue);
    }
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

typedef struct {
    krt_queue *queue;
    int polls, failures;
    atomic_int *stop;
} waiter;

static void *timed_waiter(void *p)
{
    waiter *w = p;
    while (!atomic_load(w->stop)) {
        krt_result r = krt_queue_synchronize_timeout(w->queue, (uint64_t)(w->polls % 3) * 100000);
        if (r != KRT_SUCCESS && r != KRT_TIMEOUT)
            w->failures++;
        w->polls++;
    }
    return NULL;
}

/* Two threads poll one queue with short timeouts while the main thread launches on it; each launch adds to
 * every item, so a lost or reordered launch shows in the sums. A final plain wait sees everything. */
Test(robust, threads_timed_waits_share_a_queue_with_launches)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_basic");
    krt_kernel *k = kt_kernel(m, "krt_iota");
    krt_queue *q = NULL;
    KT_OK(krt_queue_create(ctx, NULL, &q));
    enum { N = 256, LAUNCHES = 100 };
    uint32_t *out = kt_alloc(ctx, N * sizeof(uint32_t), KRT_MEMORY_SHARED);
    atomic_int stop = 0;
    waiter w[2] = {{q, 0, 0, &stop}, {q, 1, 0, &stop}};
    pthread_t th[2];
    for (int t = 0; t < 2; t++)
        cr_assert_eq(pthread_create(&th[t], NULL, timed_waiter, &w[t]), 0);
    uint32_t n = N;
    for (uint32_t i = 0; i < LAUNCHES; i++) {
        uint32_t base = i * 1000;
        krt_arg args[] = {KRT_ARG(out), KRT_ARG(n), KRT_ARG(base)};
        krt_launch_desc d = kt_desc1(N, args, 3);
        d.queue = q;
        KT_OK(krt_launch(k, &d));
    }
    KT_OK(krt_queue_synchronize(q));
    /* The last launch wrote last: the queue is in order, whatever the waiters did. */
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(out[i], (LAUNCHES - 1) * 1000 + i, "item %u", i);
    atomic_store(&stop, 1);
    for (int t = 0; t < 2; t++) {
        pthread_join(th[t], NULL);
        cr_assert_eq(w[t].failures, 0, "waiter %d: %d failures", t, w[t].failures);
    }
    KT_OK(krt_queue_synchronize_timeout(q, UINT64_MAX));
    KT_OK(krt_free(ctx, out));
    krt_queue_destroy(q);
    krt_module_destroy(m);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

/* Private memory a work-item cannot have (issue 39): a kernel asking for more than the device gives one work-item is
 * refused at launch (and by krt_launch_config_get, which krt-info shows), naming the kernel's private memory and the
 * device's limit, where before ze_pocl and the host device ran it on a stack far too small and the process died, and
 * ze_cuda's ptxas refused the whole module (CUDA's 512 KiB of local memory per thread): the module builds on every
 * device, its other kernel included. */
Test(robust, private_memory_no_work_item_can_have_is_refused_at_launch)
{
    krt_context *ctx = kt_context(NULL);
    krt_device_info info;
    KT_OK(krt_context_device_info(ctx, &info));
    krt_module *m = kt_module(ctx, "krt_private");
    krt_kernel *k = kt_kernel(m, "krt_big_private");
    uint64_t *out = kt_alloc(ctx, 64 * sizeof *out, KRT_MEMORY_DEVICE);
    uint64_t n = 64;
    krt_arg args[] = { KRT_ARG(out), KRT_ARG(n) };
    krt_launch_desc d = kt_desc1(64, args, 2);
    /* 8 GiB of private array per work-item, at any group: a group of 1 too. */
    KT_EXPECT(krt_launch(k, &d), KRT_ERROR_OUT_OF_DEVICE_MEMORY);
    const char *msg = krt_last_error_message();
    cr_assert(strstr(msg, "krt_big_private needs 85899") && strstr(msg, "bytes of private memory per work-item"),
              "message: %s", msg);
    cr_assert(strstr(msg, "bytes the device") && strstr(msg, info.name), "the limit is not named: %s", msg);
    d.group[0] = d.group[1] = d.group[2] = 1;
    KT_EXPECT(krt_launch(k, &d), KRT_ERROR_OUT_OF_DEVICE_MEMORY);
    krt_launch_config c;
    KT_EXPECT(krt_launch_config_get(k, &d.range, &c), KRT_ERROR_OUT_OF_DEVICE_MEMORY);
    kt_assert_usable(ctx);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* The fuzzed module of issue 39, hand-written (test/kernels/asm/krt_huge_private.spvasm): a private array of
 * 0xFFFFFFFF00000010 ulongs, its length a 64-bit constant, more bytes than 64 bits count. ze_pocl and ze_cuda (whose
 * translation keeps such a kernel's entry with a trap for a body, and refuses its launches); the host device runs no
 * module without its native library, and C cannot declare such an array. */
Test(robust, fuzzed_private_array_of_2_to_the_64_ulongs_is_refused)
{
    krt_context *ctx = kt_context(NULL);
    krt_device_info info;
    KT_OK(krt_context_device_info(ctx, &info));
    if (info.type == KRT_DEVICE_TYPE_HOST) {
        krt_context_destroy(ctx);
        cr_skip_test("the hand-written module has no native library for the host device");
    }
    krt_module *m = kt_module(ctx, "asm/krt_huge_private");
    uint64_t *out = kt_alloc(ctx, 256 * sizeof *out, KRT_MEMORY_DEVICE);
    krt_arg args[] = { KRT_ARG(out) };
    krt_launch_desc d = kt_desc1(256, args, 1);
    KT_EXPECT(krt_launch_sync(kt_kernel(m, "huge_private"), &d), KRT_ERROR_OUT_OF_DEVICE_MEMORY);
    const char *msg = krt_last_error_message();
    cr_assert(strstr(msg, "huge_private needs more bytes than 64 bits count of private memory per work-item"),
              "message: %s", msg);
    cr_assert(strstr(msg, "bytes the device"), "the limit is not named: %s", msg);
    /* Its neighbour with a private array of 16 ulongs runs, and right. */
    KT_OK(krt_launch_sync(kt_kernel(m, "small_private"), &d));
    uint64_t host[256];
    kt_copy_sync(ctx, host, out, sizeof host);
    for (uint64_t i = 0; i < 256; i++)
        cr_assert_eq(host[i], 2 * i, "out[%llu] = %llu", (unsigned long long)i, (unsigned long long)host[i]);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* A barrier kernel keeping 64 KiB of private array per work-item across the barrier. ze_pocl keeps such variables in
 * arrays of one element per work-item of the group on its worker's stack, so the group is as large as that stack
 * holds (three quarters of a thread's default stack): with the spill cap out of the way (a spill budget of 1 GiB)
 * krt chose 1024 items, 64 MiB, and PoCL crashed. A static group past it is refused; the results are right. */
Test(robust, a_group_shares_the_stack_its_private_arrays_live_on)
{
    krt_context *ctx = kt_context(&(krt_context_desc){ .spill_budget = (size_t)1 << 30 });
    krt_device_info info;
    KT_OK(krt_context_device_info(ctx, &info));
    krt_module *m = kt_module(ctx, "krt_private");
    krt_kernel *k = kt_kernel(m, "krt_group_private");
    uint32_t n = 4096;
    uint32_t *out = kt_alloc(ctx, n * sizeof *out, KRT_MEMORY_DEVICE);
    krt_arg args[] = { KRT_ARG(out), KRT_ARG(n) };
    krt_launch_desc d = kt_desc1(n, args, 2);
    krt_launch_config c;
    KT_OK(krt_launch_config_get(k, &d.range, &c));
    if (strcmp(info.driver_name, "ze_pocl") == 0) {
        krt_kernel_properties p;
        KT_OK(krt_kernel_properties_get(k, &p));
        pthread_attr_t a;
        size_t stack = 0;
        cr_assert_eq(pthread_getattr_default_np(&a), 0);
        pthread_attr_getstacksize(&a, &stack);
        pthread_attr_destroy(&a);
        uint64_t group = (uint64_t)c.group[0] * c.group[1] * c.group[2];
        cr_assert(group * p.private_mem_size <= stack / 4 * 3,
                  "a group of %llu items of %u bytes of private memory each on a stack of %zu bytes",
                  (unsigned long long)group, p.private_mem_size, stack);
        krt_launch_desc big = d;
        big.group[0] = 1024;
        big.group[1] = big.group[2] = 1;
        KT_EXPECT(krt_launch(k, &big), KRT_ERROR_INVALID_GROUP_SIZE);
    }
    KT_OK(krt_launch_sync(k, &d));
    uint32_t *host = malloc(n * sizeof *host);
    cr_assert(host);
    kt_copy_sync(ctx, host, out, n * sizeof *host);
    for (uint32_t i = 0; i < n; i++)
        cr_assert_eq(host[i], 6 * i + 16383, "out[%u] = %u, expected %u", i, host[i], 6 * i + 16383);
    free(host);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}
