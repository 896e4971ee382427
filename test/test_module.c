/* Modules: loading from a file and from memory, bad input of every kind (each leaving the context usable),
 * the validation policy on optimised loops, driver build failures, build options, specialization constants
 * and kernel names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "krt_test.h"
#include "krt_trace.h"

TestSuite(module, .timeout = KT_TEST_TIMEOUT);

static const char *const basic_names[] = {
    "krt_vadd",       "krt_iota",   "krt_scale",    "krt_count1",   "krt_count3", "krt_shape",
    "krt_optional",   "krt_group_sum", "krt_const_add", "krt_struct", "krt_local_tile", "krt_reqd64",
    "krt_reqd16x2",   "krt_hint32", "krt_slow_fill", "krt_double",
};
#define NUM_BASIC (sizeof basic_names / sizeof basic_names[0])

static void check_basic_names(krt_module *m)
{
    uint32_t count = 0;
    KT_OK(krt_module_kernel_names(m, NULL, &count));
    cr_assert_eq(count, NUM_BASIC);
    const char *names[NUM_BASIC + 1];
    names[NUM_BASIC] = (const char *)(uintptr_t)0x1;
    uint32_t filled = NUM_BASIC + 1;
    KT_OK(krt_module_kernel_names(m, names, &filled));
    cr_assert_eq(filled, NUM_BASIC);
    for (size_t i = 0; i < NUM_BASIC; i++)
        cr_assert_str_eq(names[i], basic_names[i], "kernel %zu", i);
    cr_assert_eq(names[NUM_BASIC], (const char *)(uintptr_t)0x1, "wrote past the count");
}

/* Runs krt_iota from module m over n items in shared memory and checks it. */
static void run_iota(krt_context *ctx, krt_module *m, uint32_t n)
{
    krt_kernel *k = kt_kernel(m, "krt_iota");
    uint32_t *out = kt_alloc(ctx, n * sizeof(uint32_t), KRT_MEMORY_SHARED);
    uint32_t base = 1000;
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(n), KRT_ARG(base)};
    krt_launch_desc d = kt_desc1(n, args, 3);
    KT_OK(krt_launch_sync(k, &d));
    for (uint32_t i = 0; i < n; i++)
        cr_assert_eq(out[i], base + i, "item %u", i);
    KT_OK(krt_free(ctx, out));
}

Test(module, load_from_file)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_basic");
    check_basic_names(m);
    run_iota(ctx, m, 777);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

Test(module, load_from_memory_copies_the_code)
{
    krt_context *ctx = kt_context(NULL);
    size_t size;
    unsigned char *code = kt_read_file(kt_kernel_path("krt_basic"), &size);
    krt_module_desc desc = {.code = code, .size = size};
    krt_module *m = NULL;
    KT_OK(krt_module_create(ctx, &desc, &m));
    /* krt copied the code during the call: wreck the caller's buffer before anything else uses the module. */
    memset(code, 0xee, size);
    free(code);
    check_basic_names(m);
    run_iota(ctx, m, 1234);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

Test(module, kernel_names_partial_and_bad_arguments)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_basic");
    const char *two[3] = {NULL, NULL, (const char *)(uintptr_t)0x1};
    uint32_t n = 2;
    KT_OK(krt_module_kernel_names(m, two, &n));
    cr_assert_eq(n, 2);
    cr_assert_str_eq(two[0], basic_names[0]);
    cr_assert_str_eq(two[1], basic_names[1]);
    cr_assert_eq(two[2], (const char *)(uintptr_t)0x1);
    KT_EXPECT(krt_module_kernel_names(m, two, NULL), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_module_kernel_names(NULL, NULL, &n), KRT_ERROR_INVALID_ARGUMENT);
    krt_module_destroy(m);
    krt_module_destroy(NULL);
    krt_context_destroy(ctx);
}

Test(module, bad_descriptors)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = NULL;
    KT_EXPECT(krt_module_create(ctx, NULL, &m), KRT_ERROR_INVALID_ARGUMENT);
    krt_module_desc neither = {0};
    KT_EXPECT(krt_module_create(ctx, &neither, &m), KRT_ERROR_INVALID_ARGUMENT);
    size_t size;
    void *code = kt_read_file(kt_kernel_path("krt_basic"), &size);
    krt_module_desc both = {.code = code, .size = size, .path = kt_kernel_path("krt_basic")};
    KT_EXPECT(krt_module_create(ctx, &both, &m), KRT_ERROR_INVALID_ARGUMENT);
    krt_module_desc good = {.code = code, .size = size};
    KT_EXPECT(krt_module_create(ctx, &good, NULL), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_module_create(NULL, &good, &m), KRT_ERROR_INVALID_ARGUMENT);
    cr_assert_null(m);
    free(code);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

Test(module, unreadable_paths)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = NULL;
    krt_module_desc missing = {.path = "/nonexistent/krt-test/none.spv"};
    KT_EXPECT(krt_module_create(ctx, &missing, &m), KRT_ERROR_IO);
    cr_assert_null(m);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

/* A directory opens but cannot be read as a file. */
Test(module, directory_path)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = NULL;
    krt_module_desc dir = {.path = "/"};
    KT_EXPECT(krt_module_create(ctx, &dir, &m), KRT_ERROR_IO);
    cr_assert_null(m);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

/* Loads bytes from memory and expects KRT_ERROR_INVALID_MODULE, an untouched output, and a usable
 * context. */
static void expect_invalid(krt_context *ctx, const void *code, size_t size, const char *what)
{
    krt_module_desc desc = {.code = code, .size = size};
    krt_module *sentinel = (krt_module *)(uintptr_t)0x4321, *m = sentinel;
    krt_result r = krt_module_create(ctx, &desc, &m);
    cr_assert_eq(r, KRT_ERROR_INVALID_MODULE, "%s: got %s", what, krt_result_name(r));
    const char *msg = krt_last_error_message();
    cr_assert(msg && msg[0], "%s: empty message", what);
    cr_assert_eq(m, sentinel, "%s: output written on failure", what);
    kt_assert_usable(ctx);
}

Test(module, empty_input)
{
    krt_context *ctx = kt_context(NULL);
    static const uint32_t nothing[1] = {0};
    expect_invalid(ctx, nothing, 0, "empty buffer");
    /* An empty file too. */
    char path[] = "/tmp/krt-test-empty-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    krt_module_desc desc = {.path = path};
    krt_module *m = NULL;
    KT_EXPECT(krt_module_create(ctx, &desc, &m), KRT_ERROR_INVALID_MODULE);
    unlink(path);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

Test(module, truncated_input)
{
    krt_context *ctx = kt_context(NULL);
    size_t size;
    uint32_t *code = kt_read_file(kt_kernel_path("krt_basic"), &size);
    cr_assert_gt(size, 64);
    expect_invalid(ctx, code, 3 * 4, "three words");
    expect_invalid(ctx, code, 5 * 4, "header only");
    expect_invalid(ctx, code, (size / 8) * 4, "first half");
    expect_invalid(ctx, code, size - 4, "last word missing");
    expect_invalid(ctx, code, size - 1, "size not a multiple of 4");
    free(code);
    krt_context_destroy(ctx);
}

Test(module, wrong_magic)
{
    krt_context *ctx = kt_context(NULL);
    size_t size;
    uint32_t *code = kt_read_file(kt_kernel_path("krt_basic"), &size);
    cr_assert_eq(code[0], 0x07230203u);
    code[0] = 0x07230204u;
    expect_invalid(ctx, code, size, "wrong magic");
    cr_assert(strstr(krt_last_error_message(), "is not a SPIR-V module: its first word is 0x07230204"), "%s",
              krt_last_error_message());
    code[0] = 0xdeadbeefu;
    expect_invalid(ctx, code, size, "other magic");
    free(code);
    krt_context_destroy(ctx);
}

/* A text file given as a module (any size, a multiple of 4 or not) is said to be text, not "truncated". */
Test(module, text_is_not_spirv)
{
    krt_context *ctx = kt_context(NULL);
    static const char text[] = "# krt: one Makefile\nall:\n\tcc -o app app.c\n";
    for (size_t size = 8; size <= sizeof text - 1; size += 7) {
        expect_invalid(ctx, text, size, "text");
        cr_assert(strstr(krt_last_error_message(), "is not a SPIR-V module: it starts with text (\"# krt:"), "%zu: %s",
                  size, krt_last_error_message());
    }
    krt_context_destroy(ctx);
}

Test(module, garbage)
{
    krt_context *ctx = kt_context(NULL);
    enum { WORDS = 2048 };
    uint32_t *junk = malloc(WORDS * 4);
    cr_assert_not_null(junk);
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < WORDS; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        junk[i] = (uint32_t)(s >> 32);
    }
    expect_invalid(ctx, junk, WORDS * 4, "random words");
    /* A correct header followed by random words. */
    size_t size;
    uint32_t *code = kt_read_file(kt_kernel_path("krt_basic"), &size);
    memcpy(junk, code, 5 * 4);
    expect_invalid(ctx, junk, WORDS * 4, "header + random words");
    /* A real module whose id bound is too small for its ids. */
    code[3] = 2;
    expect_invalid(ctx, code, size, "id bound 2");
    /* A real module with its first instruction's word count made 0. */
    free(code);
    code = kt_read_file(kt_kernel_path("krt_basic"), &size);
    code[5] &= 0x0000ffffu;
    expect_invalid(ctx, code, size, "instruction of 0 words");
    free(code);
    free(junk);
    krt_context_destroy(ctx);
}

/* Index of the first instruction with this opcode in a SPIR-V word array, or 0 when there is none. */
static size_t find_op(const uint32_t *w, size_t words, uint32_t opcode)
{
    for (size_t i = 5; i < words;) {
        uint32_t count = w[i] >> 16;
        cr_assert(count > 0 && i + count <= words, "malformed test module");
        if ((w[i] & 0xffff) == opcode)
            return i;
        i += count;
    }
    return 0;
}

/* Modules that parse but break rules other than block order: the default policy must reject them. */
Test(module, invalid_but_parseable)
{
    krt_context *ctx = kt_context(NULL);
    size_t size;
    uint32_t *code = kt_read_file(kt_kernel_path("krt_basic"), &size);
    size_t words = size / 4;

    /* An integer type of 13 bits. */
    uint32_t *bad = malloc(size);
    cr_assert_not_null(bad);
    memcpy(bad, code, size);
    size_t at = find_op(bad, words, 21 /* OpTypeInt */);
    cr_assert_gt(at, 0);
    bad[at + 2] = 13;
    expect_invalid(ctx, bad, size, "OpTypeInt of 13 bits");

    /* A store of a value no instruction defines (its id is below the bound, so the module still parses). */
    memcpy(bad, code, size);
    at = find_op(bad, words, 62 /* OpStore */);
    cr_assert_gt(at, 0);
    bad[at + 2] = bad[3];
    bad[3] += 1;
    expect_invalid(ctx, bad, size, "use of an undefined id");
    krt_module_desc strict = {.code = bad, .size = size, .validation = KRT_VALIDATION_STRICT};
    krt_module *m = NULL;
    KT_EXPECT(krt_module_create(ctx, &strict, &m), KRT_ERROR_INVALID_MODULE);

    /* No OpMemoryModel. */
    memcpy(bad, code, size);
    at = find_op(bad, words, 14 /* OpMemoryModel */);
    cr_assert_gt(at, 0);
    uint32_t count = bad[at] >> 16;
    memmove(bad + at, bad + at + count, (words - at - count) * 4);
    expect_invalid(ctx, bad, size - count * 4, "no OpMemoryModel");

    free(bad);
    free(code);
    krt_context_destroy(ctx);
}

typedef struct {
    int warnings;
    int errors;
} log_counts;

static void count_log(void *user, krt_log_level level, const char *message)
{
    log_counts *c = user;
    cr_assert_not_null(message);
    if (level == KRT_LOG_WARNING)
        __atomic_fetch_add(&c->warnings, 1, __ATOMIC_RELAXED);
    if (level == KRT_LOG_ERROR)
        __atomic_fetch_add(&c->errors, 1, __ATOMIC_RELAXED);
}

static uint32_t collatz(uint32_t v)
{
    uint32_t c = 0;
    while (v != 1) {
        v = (v & 1) ? 3 * v + 1 : v / 2;
        c++;
    }
    return c;
}

/* -O2 loops with a misplaced OpLoopMerge: the default policy loads them (with a warning) and they run. */
Test(module, o2_loop_merge_loads_by_default_and_runs)
{
    log_counts counts = {0, 0};
    krt_context_desc cdesc = {.logger = {.func = count_log, .user_data = &counts, .max_level = KRT_LOG_WARNING}};
    krt_context *ctx = kt_context(&cdesc);
    krt_module *m = kt_module(ctx, "o2/krt_o2_loopmerge");
    cr_assert_geq(counts.warnings, 1, "the tolerated validation error was not logged as a warning");
    krt_kernel *k = kt_kernel(m, "krt_o2_collatz");
    enum { N = 3000 };
    uint32_t *in = kt_alloc(ctx, N * 4, KRT_MEMORY_SHARED), *out = kt_alloc(ctx, N * 4, KRT_MEMORY_SHARED);
    for (uint32_t i = 0; i < N; i++) {
        in[i] = i + 1;
        out[i] = 0xffffffffu;
    }
    uint32_t n = N;
    krt_arg args[] = {KRT_ARG(in), KRT_ARG(out), KRT_ARG(n)};
    krt_launch_desc d = kt_desc1(N, args, 3);
    KT_OK(krt_launch_sync(k, &d));
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(out[i], collatz(i + 1), "collatz(%u)", i + 1);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

Test(module, o2_loop_merge_rejected_when_strict)
{
    krt_context *ctx = kt_context(NULL);
    krt_module_desc desc = {.path = kt_kernel_path("o2/krt_o2_loopmerge"), .validation = KRT_VALIDATION_STRICT};
    krt_module *m = NULL;
    KT_EXPECT(krt_module_create(ctx, &desc, &m), KRT_ERROR_INVALID_MODULE);
    cr_assert_null(m);
    /* Validation off: the module only has to parse. */
    desc.validation = KRT_VALIDATION_NONE;
    KT_OK(krt_module_create(ctx, &desc, &m));
    krt_module_destroy(m);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

/* -O2 loops whose exit block comes before the block that dominates it. */
Test(module, o2_block_order_loads_by_default_and_runs)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "o2/krt_o2_blockorder");
    krt_kernel *k = kt_kernel(m, "krt_o2_triangle");
    enum { N = 2500 };
    uint32_t *out = kt_alloc(ctx, N * 4, KRT_MEMORY_SHARED);
    uint32_t n = N;
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(n)};
    krt_launch_desc d = kt_desc1(N, args, 2);
    KT_OK(krt_launch_sync(k, &d));
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(out[i], i * (i + 1) / 2, "triangle(%u)", i);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

Test(module, o2_block_order_rejected_when_strict)
{
    krt_context *ctx = kt_context(NULL);
    krt_module_desc desc = {.path = kt_kernel_path("o2/krt_o2_blockorder"), .validation = KRT_VALIDATION_STRICT};
    krt_module *m = NULL;
    KT_EXPECT(krt_module_create(ctx, &desc, &m), KRT_ERROR_INVALID_MODULE);
    cr_assert_null(m);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

/* Valid SPIR-V the driver cannot build: its own code, and the context stays usable. */
Test(module, driver_build_failure)
{
    krt_context *ctx = kt_context(NULL);
    krt_module_desc desc = {.path = kt_kernel_path("krt_unresolved")};
    krt_module *m = NULL;
    KT_EXPECT(krt_module_create(ctx, &desc, &m), KRT_ERROR_MODULE_BUILD_FAILURE);
    cr_assert_null(m);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

Test(module, build_options_are_passed)
{
    krt_context *ctx = kt_context(NULL);
    krt_module_desc desc = {.path = kt_kernel_path("krt_basic"), .build_options = "-cl-fast-relaxed-math"};
    krt_module *m = NULL;
    KT_OK(krt_module_create(ctx, &desc, &m));
    run_iota(ctx, m, 100);
    krt_module_destroy(m);
    /* The options do reach the driver: one it refuses fails the build. */
    krt_module_desc bad = {.path = kt_kernel_path("krt_basic"), .build_options = "-cl-std=CL9.9"};
    m = NULL;
    KT_EXPECT(krt_module_create(ctx, &bad, &m), KRT_ERROR_MODULE_BUILD_FAILURE);
    cr_assert_null(m);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

static void read_spec(krt_context *ctx, const krt_spec_constant *sc, uint32_t n, int64_t out3[3])
{
    krt_module_desc desc = {.path = kt_kernel_path("krt_spec"), .spec_constants = sc, .num_spec_constants = n};
    krt_module *m = NULL;
    KT_OK(krt_module_create(ctx, &desc, &m));
    krt_kernel *k = kt_kernel(m, "krt_spec_values");
    int64_t *out = kt_alloc(ctx, 3 * sizeof(int64_t), KRT_MEMORY_SHARED);
    out[0] = out[1] = out[2] = 0x5555;
    krt_arg args[] = {KRT_ARG(out)};
    krt_launch_desc d = kt_desc1(1, args, 1);
    KT_OK(krt_launch_sync(k, &d));
    memcpy(out3, out, 3 * sizeof(int64_t));
    KT_OK(krt_free(ctx, out));
    krt_module_destroy(m);
}

Test(module, spec_constant_defaults)
{
    krt_context *ctx = kt_context(NULL);
    int64_t v[3];
    read_spec(ctx, NULL, 0, v);
    cr_assert_eq(v[0], 7);
    cr_assert_eq(v[1], -3);
    cr_assert_eq(v[2], 5000000000ll);
    krt_context_destroy(ctx);
}

Test(module, spec_constants_override)
{
    krt_context *ctx = kt_context(NULL);
    int32_t one = 100;
    int64_t three = -42000000000ll;
    krt_spec_constant sc[] = {{.id = 3, .value = &three, .size = sizeof three}, {.id = 1, .value = &one, .size = sizeof one}};
    int64_t v[3];
    read_spec(ctx, sc, 2, v);
    cr_assert_eq(v[0], 100);
    cr_assert_eq(v[1], -3, "a constant not given keeps its default");
    cr_assert_eq(v[2], -42000000000ll);
    /* Another module of the same code without constants is not affected. */
    read_spec(ctx, NULL, 0, v);
    cr_assert_eq(v[0], 7);
    krt_context_destroy(ctx);
}

/* SPIR-V that krt rejects never reaches the driver's zeModuleCreate. */
Test(module, rejected_input_never_reaches_the_driver)
{
    kt_trace_start();
    krt_context *ctx = kt_context(NULL);
    size_t size;
    uint32_t *code = kt_read_file(kt_kernel_path("krt_basic"), &size);
    /* The control: a good module is one zeModuleCreate. */
    unsigned long before = kt_trace_count(KT_ZE_MODULE_CREATE);
    krt_module_desc good = {.code = code, .size = size};
    krt_module *m = NULL;
    KT_OK(krt_module_create(ctx, &good, &m));
    krt_module_destroy(m);
    cr_assert_eq(kt_trace_count(KT_ZE_MODULE_CREATE) - before, 1);

    before = kt_trace_count(KT_ZE_MODULE_CREATE);
    krt_module_desc d = {.code = code, .size = size / 2};
    KT_EXPECT(krt_module_create(ctx, &d, &m), KRT_ERROR_INVALID_MODULE);
    d.size = size - 1;
    KT_EXPECT(krt_module_create(ctx, &d, &m), KRT_ERROR_INVALID_MODULE);
    code[0] = 0x12345678u;
    d.size = size;
    KT_EXPECT(krt_module_create(ctx, &d, &m), KRT_ERROR_INVALID_MODULE);
    krt_module_desc strict = {.path = kt_kernel_path("o2/krt_o2_loopmerge"), .validation = KRT_VALIDATION_STRICT};
    KT_EXPECT(krt_module_create(ctx, &strict, &m), KRT_ERROR_INVALID_MODULE);
    cr_assert_eq(kt_trace_count(KT_ZE_MODULE_CREATE) - before, 0, "the driver saw %lu rejected modules",
                 kt_trace_count(KT_ZE_MODULE_CREATE) - before);
    free(code);
    krt_context_destroy(ctx);
}

/* krt_basic with one more OpCapability (not used by any instruction, so the module stays valid). */
static uint32_t *with_capability(uint32_t capability, size_t *size)
{
    size_t n;
    uint32_t *code = kt_read_file(kt_kernel_path("krt_basic"), &n);
    uint32_t *out = malloc(n + 8);
    cr_assert_not_null(out);
    memcpy(out, code, 5 * 4);
    out[5] = (2u << 16) | 17u; /* OpCapability */
    out[6] = capability;
    memcpy(out + 7, code + 5, n - 5 * 4);
    free(code);
    *size = n + 8;
    return out;
}

/* A module that needs a capability the device lacks gets its own code; one the device has loads. */
Test(module, capabilities_against_the_device)
{
    krt_context *ctx = kt_context(NULL);
    krt_device_info dev;
    KT_OK(krt_context_device_info(ctx, &dev));
    const struct {
        uint32_t capability;
        int present;
        const char *name;
    } caps[] = {{9, dev.fp16, "Float16"}, {10, dev.fp64, "Float64"}, {12, dev.int64_atomics, "Int64Atomics"}};
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        size_t size;
        uint32_t *code = with_capability(caps[i].capability, &size);
        krt_module_desc desc = {.code = code, .size = size};
        krt_module *m = NULL;
        krt_result r = krt_module_create(ctx, &desc, &m);
        if (caps[i].present) {
            cr_assert_eq(r, KRT_SUCCESS, "%s is supported, yet: %s (%s)", caps[i].name, krt_result_name(r),
                         krt_last_error_message());
            run_iota(ctx, m, 100);
            krt_module_destroy(m);
        } else {
            cr_assert_eq(r, KRT_ERROR_UNSUPPORTED_FEATURE, "%s is not supported, got %s", caps[i].name,
                         krt_result_name(r));
            cr_assert_null(m);
            kt_assert_usable(ctx);
        }
        free(code);
    }
    krt_context_destroy(ctx);
}

/* KRT_VALIDATION_NONE still parses: what does not parse is rejected by krt; what parses but is invalid goes
 * to the driver, whose refusal is a build failure, and the process and context survive it. */
Test(module, validation_none_still_parses)
{
    krt_context *ctx = kt_context(NULL);
    size_t size;
    uint32_t *code = kt_read_file(kt_kernel_path("krt_basic"), &size);
    size_t words = size / 4;
    uint32_t *bad = malloc(size);
    cr_assert_not_null(bad);
    krt_module *m = NULL;
    krt_module_desc d = {.code = bad, .size = size, .validation = KRT_VALIDATION_NONE};

    memcpy(bad, code, size);
    bad[0] = 0xdeadbeefu;
    KT_EXPECT(krt_module_create(ctx, &d, &m), KRT_ERROR_INVALID_MODULE);
    memcpy(bad, code, size);
    d.size = (size / 8) * 4;
    KT_EXPECT(krt_module_create(ctx, &d, &m), KRT_ERROR_INVALID_MODULE);
    d.size = size;
    /* An OpTypeInt of 13 bits makes the constants of that type undecodable: a parse error. */
    size_t at = find_op(bad, words, 21 /* OpTypeInt */);
    cr_assert_gt(at, 0);
    bad[at + 2] = 13;
    KT_EXPECT(krt_module_create(ctx, &d, &m), KRT_ERROR_INVALID_MODULE);
    /* An undefined id parses; the driver refuses it. */
    memcpy(bad, code, size);
    at = find_op(bad, words, 62 /* OpStore */);
    cr_assert_gt(at, 0);
    bad[at + 2] = bad[3];
    bad[3] += 1;
    KT_EXPECT(krt_module_create(ctx, &d, &m), KRT_ERROR_MODULE_BUILD_FAILURE);
    cr_assert_null(m);
    kt_assert_usable(ctx);
    free(bad);
    free(code);
    krt_context_destroy(ctx);
}

/* ---- extensions the validator cannot judge (issue 38; docs/design.md, "Modules: validate, reflect, build") ---- */

/* The first instruction with this opcode at or after word `from`, and its word count, or 0. */
static size_t find_op_from(const uint32_t *w, size_t words, uint32_t opcode, size_t from)
{
    for (size_t i = 5; i < words;) {
        uint32_t count = w[i] >> 16;
        cr_assert(count > 0 && i + count <= words, "malformed test module");
        if (i >= from && (w[i] & 0xffff) == opcode)
            return i;
        i += count;
    }
    return 0;
}

/* The result id of the first OpTypeInt of this width. */
static uint32_t int_type(const uint32_t *w, size_t words, uint32_t width)
{
    for (size_t at = find_op(w, words, 21); at; at = find_op_from(w, words, 21, at + 1))
        if (w[at + 2] == width)
            return w[at + 1];
    cr_assert_fail("no OpTypeInt %u in the test module", width);
    return 0;
}

/* Loads a module from memory with a logger that keeps the first warning; the result and the module. */
typedef struct {
    int warnings;
    char first[1024];
} warning_log;

static void keep_warning(void *user, krt_log_level level, const char *message)
{
    warning_log *w = user;
    if (level == KRT_LOG_WARNING && __atomic_fetch_add(&w->warnings, 1, __ATOMIC_RELAXED) == 0)
        snprintf(w->first, sizeof w->first, "%s", message);
}

/* DPC++'s strided add with SPV_INTEL_memory_access_aliasing hints (test/kernels/asm/krt_alias_strided_add.spvasm):
 * valid SPIR-V that SPIRV-Tools 2023.1 refuses ("AliasDomainDeclINTEL must appear in a block"). krt checks the
 * hints itself and loads it without a warning; the driver translates the hints (llvm-spirv 15 reads them) and it
 * runs right. KRT_VALIDATION_STRICT keeps the validator's word. */
Test(module, aliasing_hints_load_without_warning_and_run)
{
    kt_skip_on_host("a hand-written SPIR-V module has no native library for the host device");
    warning_log log = {0};
    krt_context_desc cd = {.logger = {.func = keep_warning, .user_data = &log, .max_level = KRT_LOG_WARNING}};
    krt_context *ctx = kt_context(&cd);
    krt_module *m = kt_module(ctx, "asm/krt_alias_strided_add");
    krt_module_info info;
    KT_OK(krt_module_info_get(m, &info));
    cr_assert_eq(info.num_warnings, 0u, "%s", info.num_warnings ? info.warnings[0] : "");
    cr_assert_eq(log.warnings, 0, "%s", log.first);
    krt_kernel *k = kt_kernel(m, "strided_add");
    enum { N = 1000 };
    uint64_t n = N, sc = 1, sa = 2, sb = 3;
    float *a = kt_alloc(ctx, 2 * N * sizeof(float), KRT_MEMORY_SHARED);
    float *b = kt_alloc(ctx, 3 * N * sizeof(float), KRT_MEMORY_SHARED);
    float *c = kt_alloc(ctx, N * sizeof(float), KRT_MEMORY_SHARED);
    for (uint32_t i = 0; i < 3 * N; i++) {
        if (i < 2 * N)
            a[i] = (float)i;
        b[i] = (float)(i % 17) * 0.5f;
    }
    krt_arg args[] = {KRT_ARG(c), KRT_ARG(a), KRT_ARG(b), KRT_ARG(n), KRT_ARG(sc), KRT_ARG(sa), KRT_ARG(sb)};
    krt_launch_desc d = kt_desc1(N, args, 7);
    KT_OK(krt_launch_sync(k, &d));
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(c[i], a[2 * i] + b[3 * i], "c[%u] = %g", i, (double)c[i]);
    KT_OK(krt_free(ctx, a));
    KT_OK(krt_free(ctx, b));
    KT_OK(krt_free(ctx, c));
    krt_module_destroy(m);

    krt_module_desc strict = {.path = kt_kernel_path("asm/krt_alias_strided_add"),
                              .validation = KRT_VALIDATION_STRICT};
    m = NULL;
    KT_EXPECT(krt_module_create(ctx, &strict, &m), KRT_ERROR_INVALID_MODULE);
    cr_assert(strstr(krt_last_error_message(), "AliasDomainDeclINTEL") != NULL, "%s", krt_last_error_message());
    krt_context_destroy(ctx);
}

/* Looking past the aliasing hints hides nothing: ids of theirs that the translator would cast wrongly (a scope
 * naming a type rather than a domain, a decoration naming a constant rather than a scope list) and a type error
 * elsewhere in the module are refused, with the reason. */
Test(module, aliasing_hints_do_not_hide_malformed_spirv)
{
    krt_context *ctx = kt_context(NULL);
    size_t size;
    uint32_t *code = kt_read_file(kt_kernel_path("asm/krt_alias_strided_add"), &size);
    size_t words = size / 4;
    uint32_t *bad = malloc(size);
    cr_assert_not_null(bad);

    memcpy(bad, code, size);
    size_t at = find_op(bad, words, 5912 /* OpAliasScopeDeclINTEL */);
    cr_assert_gt(at, 0);
    bad[at + 2] = int_type(bad, words, 64);
    expect_invalid(ctx, bad, size, "an alias scope naming a type");
    cr_assert(strstr(krt_last_error_message(), "names no alias domain") != NULL, "%s", krt_last_error_message());

    memcpy(bad, code, size);
    at = find_op(bad, words, 332 /* OpDecorateId */);
    cr_assert_gt(at, 0);
    bad[at + 3] = int_type(bad, words, 64);
    expect_invalid(ctx, bad, size, "an aliasing decoration naming a type");
    cr_assert(strstr(krt_last_error_message(), "names no alias scope list") != NULL, "%s",
              krt_last_error_message());

    /* OpFAdd with a 64-bit integer result type over two floats. */
    memcpy(bad, code, size);
    at = find_op(bad, words, 129 /* OpFAdd */);
    cr_assert_gt(at, 0);
    bad[at + 1] = int_type(bad, words, 64);
    expect_invalid(ctx, bad, size, "an OpFAdd of the wrong type");
    cr_assert(strstr(krt_last_error_message(), "FAdd") != NULL, "%s", krt_last_error_message());
    cr_assert(strstr(krt_last_error_message(), "AliasDomainDeclINTEL") == NULL, "%s", krt_last_error_message());
    free(bad);
    free(code);
    krt_context_destroy(ctx);
}

/* test/kernels/asm/krt_unknown_extension.spvasm with its extension renamed: name must take the same number of
 * words (28 to 31 bytes). */
static uint32_t *unknown_extension_module(const char *name, size_t *size)
{
    uint32_t *code = kt_read_file(kt_kernel_path("asm/krt_unknown_extension"), size);
    size_t at = find_op(code, *size / 4, 10 /* OpExtension */);
    cr_assert_gt(at, 0);
    cr_assert_eq(code[at] >> 16, 9u, "the test module changed");
    cr_assert(strlen(name) >= 28 && strlen(name) < 32);
    memset(code + at + 1, 0, 32);
    memcpy(code + at + 1, name, strlen(name));
    return code;
}

/* A module declaring an extension that this SPIRV-Tools does not know (SPV_INTEL_optimization_hints, which the
 * drivers' translator does know), with instructions of it that the validator refuses: krt loads it, warns naming
 * the extension and the validator's complaint, and leaves the judgement to the driver, where it runs right.
 * KRT_VALIDATION_STRICT keeps the validator's word. */
Test(module, extension_unknown_to_the_validator_loads_with_a_warning_and_runs)
{
    kt_skip_on_host("a hand-written SPIR-V module has no native library for the host device");
    warning_log log = {0};
    krt_context_desc cd = {.logger = {.func = keep_warning, .user_data = &log, .max_level = KRT_LOG_WARNING}};
    krt_context *ctx = kt_context(&cd);
    krt_module *m = kt_module(ctx, "asm/krt_unknown_extension");
    krt_module_info info;
    KT_OK(krt_module_info_get(m, &info));
    cr_assert_eq(info.num_warnings, 1u);
    cr_assert_eq(log.warnings, 1);
    cr_assert_str_eq(info.warnings[0], log.first);
    cr_assert(strstr(info.warnings[0], "SPV_INTEL_optimization_hints") != NULL, "%s", info.warnings[0]);
    cr_assert(strstr(info.warnings[0], "ExpectAssumeKHR") != NULL, "%s", info.warnings[0]);
    krt_kernel *k = kt_kernel(m, "expect_add");
    enum { N = 999 };
    uint32_t *src = kt_alloc(ctx, N * 4, KRT_MEMORY_SHARED), *dst = kt_alloc(ctx, N * 4, KRT_MEMORY_SHARED);
    for (uint32_t i = 0; i < N; i++) {
        src[i] = i * 7 + 3;
        dst[i] = 0;
    }
    krt_arg args[] = {KRT_ARG(dst), KRT_ARG(src)};
    krt_launch_desc d = kt_desc1(N, args, 2);
    KT_OK(krt_launch_sync(k, &d));
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(dst[i], i * 7 + 4, "dst[%u] = %u", i, dst[i]);
    KT_OK(krt_free(ctx, src));
    KT_OK(krt_free(ctx, dst));
    krt_module_destroy(m);

    krt_module_desc strict = {.path = kt_kernel_path("asm/krt_unknown_extension"),
                              .validation = KRT_VALIDATION_STRICT};
    m = NULL;
    KT_EXPECT(krt_module_create(ctx, &strict, &m), KRT_ERROR_INVALID_MODULE);
    krt_context_destroy(ctx);
}

/* An extension nobody knows (a made-up name): krt's validator cannot judge it either, so krt warns and lets the
 * driver decide, and the driver, whose translator does not know it, refuses to build it, saying which extension. */
Test(module, extension_nobody_knows_is_the_drivers_to_refuse)
{
    kt_skip_on_host("a hand-written SPIR-V module has no native library for the host device");
    warning_log log = {0};
    krt_context_desc cd = {.logger = {.func = keep_warning, .user_data = &log, .max_level = KRT_LOG_WARNING}};
    krt_context *ctx = kt_context(&cd);
    size_t size;
    uint32_t *code = unknown_extension_module("SPV_KRT_made_up_for_this_test", &size);
    krt_module_desc desc = {.code = code, .size = size};
    krt_module *m = NULL;
    KT_EXPECT(krt_module_create(ctx, &desc, &m), KRT_ERROR_MODULE_BUILD_FAILURE);
    cr_assert_null(m);
    cr_assert(strstr(krt_last_error_message(), "SPV_KRT_made_up_for_this_test") != NULL, "%s",
              krt_last_error_message());
    cr_assert_eq(log.warnings, 1);
    cr_assert(strstr(log.first, "SPV_KRT_made_up_for_this_test") != NULL, "%s", log.first);
    kt_assert_usable(ctx);
    free(code);
    krt_context_destroy(ctx);
}

/* Declaring an extension the validator does not know excuses only the instructions it refuses that an extension
 * gives: a type error (an OpIAdd of a 64-bit result over 32-bit operands) and a use of an undefined id elsewhere
 * in the same module are refused by krt itself, before any driver, whether the extension is the translator's or
 * nobody's. */
Test(module, unknown_extension_does_not_hide_malformed_spirv)
{
    krt_context *ctx = kt_context(NULL);
    const char *const names[] = {"SPV_INTEL_optimization_hints", "SPV_KRT_made_up_for_this_test"};
    for (size_t k = 0; k < 2; k++) {
        size_t size;
        uint32_t *code = unknown_extension_module(names[k], &size);
        size_t words = size / 4;
        uint32_t *bad = malloc(size);
        cr_assert_not_null(bad);

        memcpy(bad, code, size);
        size_t at = find_op(bad, words, 128 /* OpIAdd */);
        cr_assert_gt(at, 0);
        bad[at + 1] = int_type(bad, words, 64);
        expect_invalid(ctx, bad, size, "an OpIAdd of the wrong type");
        cr_assert(strstr(krt_last_error_message(), "IAdd") != NULL, "%s: %s", names[k], krt_last_error_message());

        memcpy(bad, code, size);
        at = find_op(bad, words, 62 /* OpStore */);
        cr_assert_gt(at, 0);
        bad[at + 2] = bad[3];
        bad[3] += 1;
        expect_invalid(ctx, bad, size, "a store of an undefined id");
        cr_assert(strstr(krt_last_error_message(), "not been defined") != NULL, "%s: %s", names[k],
                  krt_last_error_message());
        free(bad);
        free(code);
    }
    krt_context_destroy(ctx);
}
