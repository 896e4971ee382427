/* Modules of ze_pocl: good SPIR-V builds and lists its kernels; bad or unsupported SPIR-V fails with the
 * spec's codes and a build log, and never takes the process down. */
#include "ze_common.h"
#include "../driver/include/ze_krt_build_log.h" /* the extension struct, as a client of ze_pocl would copy it */

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* A Vulkan compute shader (Shader capability, GLCompute, Logical addressing): valid SPIR-V that no OpenCL
 * device can run. Assembled with spirv-as from:
 *   OpCapability Shader / OpMemoryModel Logical GLSL450 / OpEntryPoint GLCompute %main "main"
 *   OpExecutionMode %main LocalSize 1 1 1 / %void = OpTypeVoid / %fn = OpTypeFunction %void
 *   %main = OpFunction %void None %fn / %l = OpLabel / OpReturn / OpFunctionEnd */
static const uint32_t shader_spv[] = {
    0x07230203, 0x00010000, 0x00070000, 0x00000005, 0x00000000, 0x00020011, 0x00000001, 0x0003000e,
    0x00000000, 0x00000001, 0x0005000f, 0x00000005, 0x00000001, 0x6e69616d, 0x00000000, 0x00060010,
    0x00000001, 0x00000011, 0x00000001, 0x00000001, 0x00000001, 0x00020013, 0x00000002, 0x00030021,
    0x00000003, 0x00000002, 0x00050036, 0x00000002, 0x00000001, 0x00000000, 0x00000003, 0x000200f8,
    0x00000004, 0x000100fd, 0x00010038,
};

/* An OpenCL kernel doing half-precision arithmetic (Float16 capability), valid per spirv-val:
 *   OpCapability Addresses / Kernel / Float16; OpMemoryModel Physical64 OpenCL;
 *   kernel "half_twice"(CrossWorkgroup half *p) { *p = *p + *p; } */
static const uint32_t half_spv[] = {
    0x07230203, 0x00010000, 0x00070000, 0x0000000a, 0x00000000, 0x00020011, 0x00000004, 0x00020011,
    0x00000006, 0x00020011, 0x00000009, 0x0003000e, 0x00000002, 0x00000002, 0x0006000f, 0x00000006,
    0x00000001, 0x666c6168, 0x6977745f, 0x00006563, 0x00020013, 0x00000002, 0x00030016, 0x00000003,
    0x00000010, 0x00040020, 0x00000004, 0x00000005, 0x00000003, 0x00040021, 0x00000005, 0x00000002,
    0x00000004, 0x00050036, 0x00000002, 0x00000001, 0x00000000, 0x00000005, 0x00030037, 0x00000004,
    0x00000006, 0x000200f8, 0x00000007, 0x0004003d, 0x00000003, 0x00000008, 0x00000006, 0x00050081,
    0x00000003, 0x00000009, 0x00000008, 0x00000008, 0x0003003e, 0x00000006, 0x00000009, 0x000100fd,
    0x00010038,
};

/* Bad input must give one of the two codes the spec has for it, a build log with text, and no module. */
static void expect_rejected(zt_env *env, const void *il, size_t size, const char *what)
{
    ze_module_handle_t m = NULL;
    ze_module_build_log_handle_t log = NULL;
    ze_result_t r = zt_module_create_il(env, il, size, NULL, &m, &log);
    cr_assert(r == ZE_RESULT_ERROR_INVALID_NATIVE_BINARY || r == ZE_RESULT_ERROR_MODULE_BUILD_FAILURE,
              "%s: zeModuleCreate returned 0x%x (%s)", what, (unsigned)r, zt_result_name(r));
    cr_assert_null(m, "%s: a module handle came back with a failure", what);
    cr_assert_not_null(log, "%s: no build log handle on failure", what);
    char *s = zt_build_log_string(log);
    cr_assert_gt(strlen(s), 0, "%s: empty build log", what);
    free(s);
    ZT_OK(zeModuleBuildLogDestroy(log));

    /* The same input without a build log handle fails the same way. */
    ze_result_t r2 = zt_module_create_il(env, il, size, NULL, &m, NULL);
    cr_assert_eq(r2, r, "%s: 0x%x without a log, 0x%x with one", what, (unsigned)r2, (unsigned)r);
}

/* After a failure the driver still builds and runs a good module. */
static void expect_still_works(zt_env *env)
{
    ze_module_handle_t m = zt_module_load(env, "ze_vadd");
    ze_kernel_handle_t k = zt_kernel_create(m, "iota");
    ze_command_list_handle_t l = zt_immediate_create(env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    uint32_t *out = zt_alloc_shared(env, 64 * sizeof(uint32_t));
    memset(out, 0xff, 64 * sizeof(uint32_t));
    zt_set_args(k, 1, sizeof out, &out);
    zt_launch_sync(env, l, k, 16, 1, 1, 4, 1, 1);
    for (uint32_t i = 0; i < 64; i++)
        cr_assert_eq(out[i], i);
    ZT_OK(zeMemFree(env->context, out));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
}

Test(ze_module, builds_and_lists_kernel_names)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_vadd");
    uint32_t n = 0;
    ZT_OK(zeModuleGetKernelNames(m, &n, NULL));
    cr_assert_eq(n, 3);
    const char *names[4] = {0};
    uint32_t big = 4;
    ZT_OK(zeModuleGetKernelNames(m, &big, names));
    cr_assert_eq(big, 3);
    const char *want[3] = {"vadd", "add_scalar", "iota"};
    for (int w = 0; w < 3; w++) {
        int seen = 0;
        for (uint32_t i = 0; i < n; i++)
            seen += names[i] != NULL && strcmp(names[i], want[w]) == 0;
        cr_assert_eq(seen, 1, "kernel %s listed %d times", want[w], seen);
    }
    uint32_t one = 1;
    const char *first[2] = {NULL, NULL};
    ZT_OK(zeModuleGetKernelNames(m, &one, first));
    cr_assert_eq(one, 1);
    cr_assert_not_null(first[0]);
    cr_assert_null(first[1]);

    ze_module_properties_t mp = {.stype = ZE_STRUCTURE_TYPE_MODULE_PROPERTIES};
    ZT_OK(zeModuleGetProperties(m, &mp));
    cr_assert_eq(mp.flags & ZE_MODULE_PROPERTY_FLAG_IMPORTS, 0, "a self-contained module reports imports");
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

Test(ze_module, build_log_on_success)
{
    zt_env env;
    zt_init(&env);
    size_t size = 0;
    void *il = zt_load_spirv("ze_reduce", &size);
    ze_module_handle_t m = NULL;
    ze_module_build_log_handle_t log = NULL;
    ZT_OK(zt_module_create_il(&env, il, size, NULL, &m, &log));
    cr_assert_not_null(m);
    cr_assert_not_null(log);
    size_t n = 0;
    ZT_OK(zeModuleBuildLogGetString(log, &n, NULL));
    cr_assert_geq(n, 1, "the log size counts the terminating NUL");
    char *s = malloc(n);
    cr_assert_not_null(s);
    memset(s, 'x', n);
    ZT_OK(zeModuleBuildLogGetString(log, &n, s));
    cr_assert_eq(s[n - 1], '\0');
    cr_assert_eq(strlen(s), n - 1);
    free(s);
    ZT_OK(zeModuleBuildLogDestroy(log));
    ZT_OK(zeModuleDestroy(m));
    free(il);
    zt_fini(&env);
}

/* Build flags are passed on: OpenCL build options that PoCL knows must be accepted. */
Test(ze_module, build_flags_accepted)
{
    zt_env env;
    zt_init(&env);
    size_t size = 0;
    void *il = zt_load_spirv("ze_vadd", &size);
    const char *flags[] = {"", "-cl-fast-relaxed-math", "-cl-opt-disable", "-cl-mad-enable -cl-no-signed-zeros"};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        ze_module_handle_t m = NULL;
        ze_result_t r = zt_module_create_il(&env, il, size, flags[i], &m, NULL);
        cr_assert_eq(r, ZE_RESULT_SUCCESS, "flags \"%s\": 0x%x (%s)", flags[i], (unsigned)r, zt_result_name(r));
        ze_kernel_handle_t k = zt_kernel_create(m, "vadd");
        ZT_OK(zeKernelDestroy(k));
        ZT_OK(zeModuleDestroy(m));
    }
    free(il);
    zt_fini(&env);
}

Test(ze_module, same_spirv_twice_gives_two_working_modules)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t a = zt_module_load(&env, "ze_vadd");
    ze_module_handle_t b = zt_module_load(&env, "ze_vadd");
    cr_assert_neq(a, b);
    ZT_OK(zeModuleDestroy(a));
    expect_still_works(&env);
    ZT_OK(zeModuleDestroy(b));
    zt_fini(&env);
}

Test(ze_module, empty_input)
{
    zt_env env;
    zt_init(&env);
    static const uint32_t word = 0x07230203;
    ze_module_handle_t m = NULL;
    /* The spec gives INVALID_SIZE for a zero input size. */
    ZT_EXPECT(zt_module_create_il(&env, &word, 0, NULL, &m, NULL), ZE_RESULT_ERROR_INVALID_SIZE);
    expect_still_works(&env);
    zt_fini(&env);
}

Test(ze_module, magic_only)
{
    zt_env env;
    zt_init(&env);
    static const uint32_t word = 0x07230203;
    expect_rejected(&env, &word, sizeof word, "magic only");
    expect_still_works(&env);
    zt_fini(&env);
}

Test(ze_module, header_only)
{
    zt_env env;
    zt_init(&env);
    static const uint32_t header[5] = {0x07230203, 0x00010000, 0, 16, 0};
    expect_rejected(&env, header, sizeof header, "header only");
    zt_fini(&env);
}

Test(ze_module, truncated)
{
    zt_env env;
    zt_init(&env);
    size_t size = 0;
    unsigned char *il = zt_load_spirv("ze_vadd", &size);
    expect_rejected(&env, il, (size / 2) & ~(size_t)3, "truncated at half, word boundary");
    expect_rejected(&env, il, size - 4, "last word missing");
    expect_rejected(&env, il, size - 3, "not a whole number of words");
    expect_rejected(&env, il, 24, "header and one word");
    free(il);
    expect_still_works(&env);
    zt_fini(&env);
}

Test(ze_module, wrong_magic)
{
    zt_env env;
    zt_init(&env);
    size_t size = 0;
    uint32_t *il = zt_load_spirv("ze_vadd", &size);
    il[0] = 0x07230204;
    expect_rejected(&env, il, size, "wrong magic");
    il[0] = 0xdec04342; /* LLVM bitcode magic: not SPIR-V, whatever PoCL could do with it. */
    expect_rejected(&env, il, size, "bitcode magic");
    free(il);
    expect_still_works(&env);
    zt_fini(&env);
}

/* A correct header followed by pseudo-random words, several seeds. */
Test(ze_module, valid_header_then_garbage)
{
    zt_env env;
    zt_init(&env);
    enum { WORDS = 256 };
    uint32_t il[WORDS];
    uint32_t x = 0x12345678;
    for (int seed = 0; seed < 4; seed++) {
        il[0] = 0x07230203;
        il[1] = 0x00010000;
        il[2] = 0;
        il[3] = 64;
        il[4] = 0;
        for (int i = 5; i < WORDS; i++) {
            x = x * 1664525u + 1013904223u;
            il[i] = x;
        }
        if (seed == 3) {
            /* Plausible instruction headers with absurd word counts. */
            for (int i = 5; i < WORDS; i += 2)
                il[i] = 0xffff0011u;
        }
        expect_rejected(&env, il, sizeof il, "header then garbage");
    }
    /* A real module's header with its instructions replaced by garbage from word 20 on. */
    size_t size = 0;
    uint32_t *real = zt_load_spirv("ze_vadd", &size);
    for (size_t i = 20; i < size / 4; i++) {
        x = x * 1664525u + 1013904223u;
        real[i] = x;
    }
    expect_rejected(&env, real, size, "real header then garbage");
    free(real);
    expect_still_works(&env);
    zt_fini(&env);
}

Test(ze_module, unsupported_capability_shader)
{
    zt_env env;
    zt_init(&env);
    expect_rejected(&env, shader_spv, sizeof shader_spv, "Shader capability");
    expect_still_works(&env);
    zt_fini(&env);
}

/* Float16 arithmetic is accepted exactly when the device says it supports fp16. */
Test(ze_module, float16_matches_device_flags)
{
    zt_env env;
    zt_init(&env);
    ze_device_module_properties_t mp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES};
    ZT_OK(zeDeviceGetModuleProperties(env.device, &mp));
    if (mp.flags & ZE_DEVICE_MODULE_FLAG_FP16) {
        ze_module_handle_t m = NULL;
        ZT_OK(zt_module_create_il(&env, half_spv, sizeof half_spv, NULL, &m, NULL));
        ZT_OK(zeModuleDestroy(m));
    } else {
        expect_rejected(&env, half_spv, sizeof half_spv, "Float16 without fp16 support");
    }
    expect_still_works(&env);
    zt_fini(&env);
}

Test(ze_module, invalid_descriptors)
{
    zt_env env;
    zt_init(&env);
    size_t size = 0;
    void *il = zt_load_spirv("ze_vadd", &size);
    ze_module_handle_t m = NULL;
    ze_module_desc_t md = {
        .stype = ZE_STRUCTURE_TYPE_MODULE_DESC, .format = ZE_MODULE_FORMAT_IL_SPIRV, .inputSize = size,
        .pInputModule = il,
    };
    ZT_EXPECT(zeModuleCreate(NULL, env.device, &md, &m, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeModuleCreate(env.context, NULL, &md, &m, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeModuleCreate(env.context, env.device, NULL, &m, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(zeModuleCreate(env.context, env.device, &md, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    md.pInputModule = NULL;
    ZT_EXPECT(zeModuleCreate(env.context, env.device, &md, &m, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    md.pInputModule = il;
    md.format = (ze_module_format_t)7;
    ZT_EXPECT(zeModuleCreate(env.context, env.device, &md, &m, NULL), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    /* SPIR-V passed as a native binary is not a binary this device can load. */
    md.format = ZE_MODULE_FORMAT_NATIVE;
    ze_result_t r = zeModuleCreate(env.context, env.device, &md, &m, NULL);
    cr_assert(r == ZE_RESULT_ERROR_INVALID_NATIVE_BINARY || r == ZE_RESULT_ERROR_UNSUPPORTED_FEATURE,
              "SPIR-V as native binary: 0x%x (%s)", (unsigned)r, zt_result_name(r));
    free(il);
    ZT_EXPECT(zeModuleDestroy(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeModuleBuildLogDestroy(NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    size_t n = 0;
    ZT_EXPECT(zeModuleBuildLogGetString(NULL, &n, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    uint32_t count = 0;
    ZT_EXPECT(zeModuleGetKernelNames(NULL, &count, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    expect_still_works(&env);
    zt_fini(&env);
}

Test(ze_module, unknown_kernel_name)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_vadd");
    ze_kernel_handle_t k = NULL;
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = "no_such_kernel"};
    ZT_EXPECT(zeKernelCreate(m, &kd, &k), ZE_RESULT_ERROR_INVALID_KERNEL_NAME);
    kd.pKernelName = "";
    ZT_EXPECT(zeKernelCreate(m, &kd, &k), ZE_RESULT_ERROR_INVALID_KERNEL_NAME);
    kd.pKernelName = "vad";
    ZT_EXPECT(zeKernelCreate(m, &kd, &k), ZE_RESULT_ERROR_INVALID_KERNEL_NAME);
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

Test(ze_module, native_binary_optional)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_vadd");
    size_t n = 0;
    ze_result_t r = zeModuleGetNativeBinary(m, &n, NULL);
    cr_assert(r == ZE_RESULT_SUCCESS || r == ZE_RESULT_ERROR_UNSUPPORTED_FEATURE, "0x%x (%s)", (unsigned)r,
              zt_result_name(r));
    if (r == ZE_RESULT_SUCCESS) {
        cr_assert_gt(n, 0);
        void *buf = malloc(n);
        cr_assert_not_null(buf);
        ZT_OK(zeModuleGetNativeBinary(m, &n, buf));
        free(buf);
    }
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* Loops compiled at -O2 fail spirv-val's block-order rules but are what clang produces; they must build
 * and compute correctly. */
Test(ze_module, o2_modules_with_loops_run, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "o2/ze_loops_o2");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);

    enum { ROWS = 32, W = 50 };
    int *in = zt_alloc_shared(&env, ROWS * W * sizeof(int));
    int *out = zt_alloc_shared(&env, ROWS * W * sizeof(int));
    for (int i = 0; i < ROWS * W; i++)
        in[i] = (i * 37) % 11 - 5;
    ze_kernel_handle_t k = zt_kernel_create(m, "prefix_rows");
    int w = W;
    zt_set_args(k, 3, sizeof in, &in, sizeof out, &out, sizeof w, &w);
    zt_launch_sync(&env, l, k, 8, 1, 1, ROWS / 8, 1, 1);
    for (int r = 0; r < ROWS; r++) {
        int acc = 0;
        for (int x = 0; x < W; x++) {
            acc += in[r * W + x];
            cr_assert_eq(out[r * W + x], acc, "row %d col %d", r, x);
        }
    }

    enum { N = 64 };
    uint32_t *cin = zt_alloc_shared(&env, N * sizeof(uint32_t));
    uint32_t *cout = zt_alloc_shared(&env, N * sizeof(uint32_t));
    for (uint32_t i = 0; i < N; i++)
        cin[i] = i + 1;
    ze_kernel_handle_t c = zt_kernel_create(m, "collatz_steps");
    zt_set_args(c, 2, sizeof cin, &cin, sizeof cout, &cout);
    zt_launch_sync(&env, l, c, 16, 1, 1, N / 16, 1, 1);
    for (uint32_t i = 0; i < N; i++) {
        uint32_t v = i + 1, steps = 0;
        while (v != 1) {
            v = (v & 1) ? 3 * v + 1 : v / 2;
            steps++;
        }
        cr_assert_eq(cout[i], steps, "collatz(%u)", i + 1);
    }
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeKernelDestroy(c));
    ZT_OK(zeMemFree(env.context, in));
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeMemFree(env.context, cin));
    ZT_OK(zeMemFree(env.context, cout));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* zeModuleCreate is thread-safe: threads build different modules at once and each runs its kernel. */
typedef struct {
    zt_env *env;
    void *il;
    size_t size;
    ze_result_t result;
    ze_module_handle_t module;
} build_job;

static void *build_main(void *arg)
{
    build_job *j = arg;
    j->result = zt_module_create_il(j->env, j->il, j->size, NULL, &j->module, NULL);
    return NULL;
}

Test(ze_module, concurrent_builds, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env;
    zt_init(&env);
    const char *names[] = {"ze_vadd", "ze_reduce", "ze_atomics", "ze_ranges", "ze_vadd", "ze_struct"};
    enum { J = 6 };
    build_job jobs[J];
    pthread_t th[J];
    for (int i = 0; i < J; i++) {
        jobs[i] = (build_job){.env = &env};
        jobs[i].il = zt_load_spirv(names[i], &jobs[i].size);
    }
    for (int i = 0; i < J; i++)
        cr_assert_eq(pthread_create(&th[i], NULL, build_main, &jobs[i]), 0);
    for (int i = 0; i < J; i++)
        cr_assert_eq(pthread_join(th[i], NULL), 0);
    for (int i = 0; i < J; i++) {
        cr_assert_eq(jobs[i].result, ZE_RESULT_SUCCESS, "%s: 0x%x", names[i], (unsigned)jobs[i].result);
        uint32_t n = 0;
        ZT_OK(zeModuleGetKernelNames(jobs[i].module, &n, NULL));
        cr_assert_geq(n, 1);
        free(jobs[i].il);
    }
    /* Run one kernel from a module built on another thread. */
    ze_kernel_handle_t k = zt_kernel_create(jobs[4].module, "iota");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    uint32_t *out = zt_alloc_shared(&env, 128 * sizeof(uint32_t));
    zt_set_args(k, 1, sizeof out, &out);
    zt_launch_sync(&env, l, k, 32, 1, 1, 4, 1, 1);
    for (uint32_t i = 0; i < 128; i++)
        cr_assert_eq(out[i], i);
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    for (int i = 0; i < J; i++)
        ZT_OK(zeModuleDestroy(jobs[i].module));
    zt_fini(&env);
}

static void run_spec(zt_env *env, ze_module_handle_t m, int base)
{
    ze_kernel_handle_t k = zt_kernel_create(m, "spec");
    ze_command_list_handle_t l = zt_immediate_create(env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    int *out = zt_alloc_shared(env, 64 * sizeof(int));
    zt_set_args(k, 1, sizeof out, &out);
    zt_launch_sync(env, l, k, 16, 1, 1, 4, 1, 1);
    for (int i = 0; i < 64; i++)
        cr_assert_eq(out[i], base + i, "out[%d] = %d, expected %d", i, out[i], base + i);
    ZT_OK(zeMemFree(env->context, out));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
}

/* Specialization constants: the default without constants, the given value with them. A driver that cannot
 * specialise must say so (UNSUPPORTED_FEATURE), not build with the default. */
Test(ze_module, specialization_constants, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env;
    zt_init(&env);
    size_t size = 0;
    void *il = zt_load_spirv("ze_specconst", &size);
    ze_module_handle_t m = NULL;
    ZT_OK(zt_module_create_il(&env, il, size, NULL, &m, NULL));
    run_spec(&env, m, 100);
    ZT_OK(zeModuleDestroy(m));

    uint32_t ids[2] = {7, 12345};
    int32_t value = 42, unused = 5;
    const void *values[2] = {&value, &unused};
    ze_module_constants_t consts = {.numConstants = 2, .pConstantIds = ids, .pConstantValues = values};
    ze_module_desc_t md = {
        .stype = ZE_STRUCTURE_TYPE_MODULE_DESC, .format = ZE_MODULE_FORMAT_IL_SPIRV, .inputSize = size,
        .pInputModule = il, .pConstants = &consts,
    };
    m = NULL;
    ze_result_t r = zeModuleCreate(env.context, env.device, &md, &m, NULL);
    free(il);
    if (r == ZE_RESULT_ERROR_UNSUPPORTED_FEATURE) {
        zt_fini(&env);
        cr_skip_test("specialization constants not supported");
    }
    cr_assert_eq(r, ZE_RESULT_SUCCESS, "0x%x (%s)", (unsigned)r, zt_result_name(r));
    run_spec(&env, m, 42);
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* Modules patched from a real one, each with one defect that once aborted a SPIR-V translator inside the
 * process. Each must be refused cleanly. Instructions are walked by their word counts from word 5. */
typedef struct {
    uint32_t *words;
    size_t count;
} spirv_module;

static spirv_module load_words(const char *name)
{
    size_t size = 0;
    spirv_module m;
    m.words = zt_load_spirv(name, &size);
    m.count = size / 4;
    return m;
}

/* The index of the first instruction with this opcode whose word count is at least min_words, or 0. */
static size_t find_inst(const spirv_module *m, uint32_t opcode, uint32_t min_words, size_t from)
{
    size_t pos = 5;
    while (pos < m->count) {
        uint32_t wc = m->words[pos] >> 16, op = m->words[pos] & 0xffff;
        cr_assert_gt(wc, 0, "corrupt test module at word %zu", pos);
        if (pos >= from && op == opcode && wc >= min_words)
            return pos;
        pos += wc;
    }
    return 0;
}

enum { OP_NAME = 5, OP_TYPE_VOID = 19, OP_LOAD = 61, OP_STORE = 62, OP_DECORATE = 71, DEC_ALIGNMENT = 44,
       MEM_ALIGNED = 0x2 };

Test(ze_module, aligned_operand_not_power_of_two)
{
    zt_env env;
    zt_init(&env);
    spirv_module m = load_words("ze_vadd");
    /* OpLoad result-type result pointer MemoryOperands(Aligned) alignment */
    size_t pos = 0, from = 5;
    while ((pos = find_inst(&m, OP_LOAD, 6, from)) != 0 && m.words[pos + 4] != MEM_ALIGNED)
        from = pos + 1;
    cr_assert_neq(pos, 0, "no aligned OpLoad in ze_vadd");
    m.words[pos + 5] = 48;
    expect_rejected(&env, m.words, m.count * 4, "OpLoad Aligned 48");
    free(m.words);
    expect_still_works(&env);
    zt_fini(&env);
}

Test(ze_module, alignment_decoration_not_power_of_two)
{
    zt_env env;
    zt_init(&env);
    spirv_module m = load_words("ze_vadd");
    size_t pos = 0, from = 5;
    while ((pos = find_inst(&m, OP_DECORATE, 4, from)) != 0 && m.words[pos + 2] != DEC_ALIGNMENT)
        from = pos + 1;
    cr_assert_neq(pos, 0, "no Alignment decoration in ze_vadd");
    m.words[pos + 3] = 12;
    expect_rejected(&env, m.words, m.count * 4, "Alignment 12");
    free(m.words);
    expect_still_works(&env);
    zt_fini(&env);
}

Test(ze_module, unterminated_string)
{
    zt_env env;
    zt_init(&env);
    spirv_module m = load_words("ze_vadd");
    size_t pos = find_inst(&m, OP_NAME, 3, 5);
    cr_assert_neq(pos, 0, "no OpName in ze_vadd");
    uint32_t wc = m.words[pos] >> 16;
    /* The name's last word loses its terminating zero bytes. */
    m.words[pos + wc - 1] = 0x41414141;
    expect_rejected(&env, m.words, m.count * 4, "OpName without a terminating NUL");
    free(m.words);
    expect_still_works(&env);
    zt_fini(&env);
}

Test(ze_module, store_of_a_type_id)
{
    zt_env env;
    zt_init(&env);
    spirv_module m = load_words("ze_vadd");
    size_t tv = find_inst(&m, OP_TYPE_VOID, 2, 5);
    size_t st = find_inst(&m, OP_STORE, 3, 5);
    cr_assert(tv != 0 && st != 0, "ze_vadd lacks OpTypeVoid or OpStore");
    /* OpStore pointer object: the object becomes the id of a type, a value without a type. */
    m.words[st + 2] = m.words[tv + 1];
    expect_rejected(&env, m.words, m.count * 4, "OpStore of a type id");
    free(m.words);
    expect_still_works(&env);
    zt_fini(&env);
}

/* Deterministic single-word mutations of a real module: each build succeeds or is refused with the spec's
 * codes; none may take the process down. */
Test(ze_module, single_word_mutations_never_crash, .timeout = 600)
{
    zt_env env;
    zt_init(&env);
    size_t size = 0;
    uint32_t *orig = zt_load_spirv("ze_vadd", &size);
    size_t nw = size / 4;
    uint32_t *w = malloc(size);
    cr_assert_not_null(w);
    uint32_t x = 20261202;
    for (int it = 0; it < 48; it++) {
        memcpy(w, orig, size);
        x = x * 1664525u + 1013904223u;
        size_t pos = 5 + (x >> 8) % (nw - 5);
        x = x * 1664525u + 1013904223u;
        switch (it % 4) {
        case 0: w[pos] ^= 1u << (x % 32); break;                          /* one bit */
        case 1: w[pos] = x; break;                                         /* one word */
        case 2: w[pos] = (w[pos] & 0xffffu) | ((x % 8) << 16); break;      /* a word count */
        default: w[pos] = (w[pos] & 0xffff0000u) | (x & 0xffffu); break;  /* an opcode or low half */
        }
        ze_module_handle_t m = NULL;
        ze_result_t r = zt_module_create_il(&env, w, size, NULL, &m, NULL);
        cr_assert(r == ZE_RESULT_SUCCESS || r == ZE_RESULT_ERROR_INVALID_NATIVE_BINARY ||
                      r == ZE_RESULT_ERROR_MODULE_BUILD_FAILURE,
                  "mutation %d (word %zu = 0x%08x): 0x%x (%s)", it, pos, w[pos], (unsigned)r, zt_result_name(r));
        if (r == ZE_RESULT_SUCCESS)
            ZT_OK(zeModuleDestroy(m));
    }
    free(w);
    free(orig);
    expect_still_works(&env);
    zt_fini(&env);
}

/* A string whose terminating NUL is followed by non-zero padding bytes in its last word: spirv-val does not
 * look at the padding, but SPIR-V requires it to be zero and a translator once aborted on it. */
Test(ze_module, string_with_nonzero_padding)
{
    zt_env env;
    zt_init(&env);
    spirv_module m = load_words("ze_vadd");
    /* Find an OpName whose last word holds the NUL in byte 0..2, so at least one padding byte follows. */
    size_t pos = 0, from = 5;
    int nul_byte = -1;
    while ((pos = find_inst(&m, OP_NAME, 3, from)) != 0) {
        uint32_t last = m.words[pos + (m.words[pos] >> 16) - 1];
        for (int b = 0; b < 3 && nul_byte < 0; b++)
            if (((last >> (8 * b)) & 0xff) == 0)
                nul_byte = b;
        if (nul_byte >= 0)
            break;
        from = pos + 1;
    }
    cr_assert_neq(pos, 0, "no OpName with padding in ze_vadd");
    m.words[pos + (m.words[pos] >> 16) - 1] |= 0x41u << 24;
    expect_rejected(&env, m.words, m.count * 4, "string padding not zero");
    free(m.words);
    expect_still_works(&env);
    zt_fini(&env);
}

/* ZE_krt_build_log: the driver copies the log into a struct chained on the module descriptor, which the loader
 * passes through as it is (it loses a failed build's log handle when several drivers are loaded). The copy equals
 * the handle's log, is cut to the capacity with the whole length still reported, and may ask the length alone. */
static ze_result_t create_with_log_out(zt_env *env, const void *il, size_t size, const char *flags,
                                       ze_krt_build_log_desc_t *bl, ze_module_handle_t *m,
                                       ze_module_build_log_handle_t *log)
{
    ze_module_desc_t md = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC, .pNext = bl, .format = ZE_MODULE_FORMAT_IL_SPIRV,
                           .inputSize = size, .pInputModule = il, .pBuildFlags = flags};
    return zeModuleCreate(env->context, env->device, &md, m, log);
}

Test(ze_module, build_log_copied_into_the_chained_struct)
{
    zt_env env;
    zt_init(&env);
    cr_assert(zt_driver_has_extension(env.driver, ZE_KRT_BUILD_LOG_NAME), "%s is not in the driver's extension list",
              ZE_KRT_BUILD_LOG_NAME);

    /* A failed build (a bad build option): the struct's text is the handle's log. */
    size_t size = 0;
    void *il = zt_load_spirv("ze_vadd", &size);
    char text[4096];
    memset(text, 'x', sizeof text);
    size_t length = 0;
    ze_krt_build_log_desc_t bl = {ZE_STRUCTURE_TYPE_KRT_BUILD_LOG_DESC, NULL, text, sizeof text, &length};
    ze_module_handle_t m = NULL;
    ze_module_build_log_handle_t log = NULL;
    ze_result_t r = create_with_log_out(&env, il, size, "-cl-std=CL9.9", &bl, &m, &log);
    cr_assert_neq(r, ZE_RESULT_SUCCESS, "a build with -cl-std=CL9.9 succeeded");
    cr_assert_null(m);
    char *from_handle = zt_build_log_string(log);
    cr_assert_gt(strlen(from_handle), 0, "empty build log");
    cr_assert_str_eq(text, from_handle);
    cr_assert_eq(length, strlen(from_handle) + 1);
    ZT_OK(zeModuleBuildLogDestroy(log));

    /* Cut to a capacity of 8: seven bytes and the NUL, the whole length still reported; then the length alone. */
    char small[8];
    size_t cut_length = 0;
    ze_krt_build_log_desc_t cut = {ZE_STRUCTURE_TYPE_KRT_BUILD_LOG_DESC, NULL, small, sizeof small, &cut_length};
    cr_assert_eq(create_with_log_out(&env, il, size, "-cl-std=CL9.9", &cut, &m, NULL), r);
    cr_assert_eq(strlen(small), 7);
    cr_assert(strncmp(small, from_handle, 7) == 0, "cut log '%s' is not the start of '%s'", small, from_handle);
    cr_assert_eq(cut_length, length);
    size_t only_length = 0;
    ze_krt_build_log_desc_t ask = {ZE_STRUCTURE_TYPE_KRT_BUILD_LOG_DESC, NULL, NULL, 0, &only_length};
    cr_assert_eq(create_with_log_out(&env, il, size, "-cl-std=CL9.9", &ask, &m, NULL), r);
    cr_assert_eq(only_length, length);
    free(from_handle);

    /* A good build fills the struct too (its log may be empty), and makes a working module. */
    memset(text, 'x', sizeof text);
    length = 0;
    ZT_OK(create_with_log_out(&env, il, size, NULL, &bl, &m, NULL));
    cr_assert_not_null(m);
    cr_assert_lt(strlen(text), sizeof text);
    cr_assert_eq(length, strlen(text) + 1);
    ZT_OK(zeModuleDestroy(m));
    free(il);
    expect_still_works(&env);
}

/* ze_long_names.cl: kernels named with 1000 and 1007 bytes (the second begins with the first), as DPC++'s mangled
 * names run past 300 bytes; PoCL makes a file name of a kernel's name, so ze_pocl gives such kernels a short internal
 * name (spirv/names.cpp), and the real one is what every Level Zero call sees: zeModuleGetKernelNames,
 * zeKernelCreate, zeKernelGetName. Each kernel runs, uniform and over an exact range (its variant is named after the
 * internal name), reads the program-scope variable another kernel sets (the storage argument and the kernel that
 * fills it), and does so again in a module made from the first's native binary. */
static char *long_name(const char *suffix) {
    static const char part[] = "_ZTSN4sycl3_V16detail18RoundedRangeKernelINS0_4itemILi1ELb1EEELi1EZZ4mainENKUlRNS0_"
                               "7handlerEE_clES6_EUlS4_E_EE_long_name_abcd";
    cr_assert_eq(strlen(part), 125);
    char *s = malloc(8 * 125 + strlen(suffix) + 1);
    cr_assert_not_null(s);
    s[0] = '\0';
    for (int k = 0; k < 8; k++) strcat(s, part);
    strcat(s, suffix);
    return s;
}

static void run_long_names(zt_env *env, ze_module_handle_t m, const char *plain, const char *scaled) {
    ze_kernel_handle_t kp = zt_kernel_create(m, plain), ks = zt_kernel_create(m, scaled);
    ze_kernel_handle_t kb = zt_kernel_create(m, "set_bias");
    size_t size = 0;
    ZT_OK(zeKernelGetName(kp, &size, NULL));
    cr_assert_eq(size, strlen(plain) + 1);
    char *got = malloc(size);
    ZT_OK(zeKernelGetName(kp, &size, got));
    cr_assert_str_eq(got, plain);
    free(got);
    ze_kernel_properties_t props = {.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES};
    ZT_OK(zeKernelGetProperties(ks, &props));
    cr_assert_eq(props.numKernelArgs, 2);

    ze_command_list_handle_t l = zt_immediate_create(env, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    enum { N = 1000, SLACK = 24 };
    int *a = zt_alloc_shared(env, (N + SLACK) * sizeof(int));
    for (int i = 0; i < N + SLACK; i++) a[i] = i;
    zt_set_args(kp, 1, sizeof a, &a);
    zt_launch_sync(env, l, kp, 64, 1, 1, 16, 1, 1); /* uniform: 1024 items */
    for (int i = 0; i < N + SLACK; i++) cr_assert_eq(a[i], 2 * i + 7, "a[%d] = %d after the plain kernel", i, a[i]);

    int bias = -3, s = 3;
    zt_set_args(kb, 1, sizeof bias, &bias);
    zt_launch_sync(env, l, kb, 1, 1, 1, 1, 1, 1);
    zt_set_args(ks, 2, sizeof a, &a, sizeof s, &s);
    ZT_OK(zeKernelSetGroupSize(ks, 64, 1, 1));
    uint64_t range[3] = {N, 1, 1}; /* ZE_krt_exact_range: the argument one past the last */
    ZT_OK(zeKernelSetArgumentValue(ks, 2, sizeof range, range));
    ze_group_count_t gc = {N / 64 + 1, 1, 1};
    ZT_OK(zeCommandListAppendLaunchKernel(l, ks, &gc, NULL, 0, NULL));
    for (int i = 0; i < N + SLACK; i++) {
        int want = i < N ? 3 * (2 * i + 7) - 3 : 2 * i + 7;
        cr_assert_eq(a[i], want, "a[%d] = %d after the exact launch of the scaled kernel over %d", i, a[i], N);
    }
    ZT_OK(zeMemFree(env->context, a));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(kp));
    ZT_OK(zeKernelDestroy(ks));
    ZT_OK(zeKernelDestroy(kb));
}

Test(ze_module, long_kernel_names_build_list_and_run, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env;
    zt_init(&env);
    char *plain = long_name(""), *scaled = long_name("_scaled");
    cr_assert_eq(strlen(plain), 1000);
    ze_module_handle_t m = zt_module_load(&env, "ze_long_names");
    uint32_t n = 0;
    ZT_OK(zeModuleGetKernelNames(m, &n, NULL));
    cr_assert_eq(n, 3);
    const char *names[3] = {0};
    ZT_OK(zeModuleGetKernelNames(m, &n, names));
    const char *want[3] = {plain, scaled, "set_bias"};
    for (int w = 0; w < 3; w++) {
        int seen = 0;
        for (uint32_t i = 0; i < n; i++) seen += strcmp(names[i], want[w]) == 0;
        cr_assert_eq(seen, 1, "kernel %.40s... (%zu bytes) listed %d times", want[w], strlen(want[w]), seen);
    }
    /* Found by its whole name only: not by a prefix, nor by anything like an internal name. */
    ze_kernel_handle_t k = NULL;
    char *prefix = strndup(plain, 999);
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = prefix};
    ZT_EXPECT(zeKernelCreate(m, &kd, &k), ZE_RESULT_ERROR_INVALID_KERNEL_NAME);
    kd.pKernelName = plain + 1;
    ZT_EXPECT(zeKernelCreate(m, &kd, &k), ZE_RESULT_ERROR_INVALID_KERNEL_NAME);
    free(prefix);
    run_long_names(&env, m, plain, scaled);

    size_t size = 0;
    ze_result_t r = zeModuleGetNativeBinary(m, &size, NULL);
    if (r == ZE_RESULT_SUCCESS) {
        uint8_t *bin = malloc(size);
        cr_assert_not_null(bin);
        ZT_OK(zeModuleGetNativeBinary(m, &size, bin));
        ze_module_desc_t md = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC, .format = ZE_MODULE_FORMAT_NATIVE,
                               .inputSize = size, .pInputModule = bin};
        ze_module_handle_t m2 = NULL;
        ZT_OK(zeModuleCreate(env.context, env.device, &md, &m2, NULL));
        free(bin);
        run_long_names(&env, m2, plain, scaled);
        ZT_OK(zeModuleDestroy(m2));
    }
    ZT_OK(zeModuleDestroy(m));
    free(plain);
    free(scaled);
    zt_fini(&env);
}
