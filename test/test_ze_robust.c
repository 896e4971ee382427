/* Modules that took the process down inside libLLVMSPIRVLib or PoCL (issue 8, the reproducers in
 * test/data/repro/): ze_pocl refuses each before the translator or PoCL sees it, with the exact result code and a
 * build log naming the cause, and the driver builds and runs a good module afterwards. */
#include "ze_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* name: "repro/<file>" (issue 8) or "fuzz/<file>" (found by make fuzz), under test/data. */
static void *read_repro(const char *name, size_t *size)
{
    const char *dir = getenv("KRT_TEST_DATA");
    cr_assert(dir != NULL && dir[0] != '\0', "KRT_TEST_DATA is not set (run the tests through make)");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return zt_read_file(path, size);
}

static void good_module_runs(zt_env *env)
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

/* The build log of a refused module says `cause`; the log is destroyed. */
static void expect_log_says(ze_module_build_log_handle_t log, const char *what, const char *cause)
{
    cr_assert_not_null(log);
    char *text = zt_build_log_string(log);
    cr_assert(strstr(text, cause) != NULL, "%s: the build log \"%s\" does not say \"%s\"", what, text, cause);
    free(text);
    ZT_OK(zeModuleBuildLogDestroy(log));
}

/* zeModuleCreate of the SPIR-V gives exactly `want`, no module, and a log containing `cause`; a good module then
 * runs in the same context. */
static void expect_il_refused(zt_env *env, const void *il, size_t size, const char *what, ze_result_t want,
                              const char *cause)
{
    ze_module_handle_t m = NULL;
    ze_module_build_log_handle_t log = NULL;
    ze_result_t r = zt_module_create_il(env, il, size, NULL, &m, &log);
    cr_assert_eq(r, want, "%s: zeModuleCreate returned 0x%x (%s)", what, (unsigned)r, zt_result_name(r));
    cr_assert_null(m);
    expect_log_says(log, what, cause);
    good_module_runs(env);
}

/* expect_il_refused of the file under test/data, in a context of its own. */
static void expect_refused(const char *file, ze_result_t want, const char *cause)
{
    zt_env env;
    zt_init(&env);
    size_t size = 0;
    void *il = read_repro(file, &size);
    expect_il_refused(&env, il, size, file, want, cause);
    free(il);
    zt_fini(&env);
}

/* expect_il_refused of a test kernel (test/kernels/NAME.cl). */
static void expect_kernel_refused(zt_env *env, const char *name, ze_result_t want, const char *cause)
{
    size_t size = 0;
    void *il = zt_load_spirv(name, &size);
    expect_il_refused(env, il, size, name, want, cause);
    free(il);
}

/* Runs `kernel` (data, bins, n) of m over n bytes data[i] = i % period in groups of `group`, into 256 bins that
 * start at 0, and copies the bins to out. */
static void histogram_run(zt_env *env, ze_module_handle_t m, const char *kernel, uint32_t n, uint32_t period,
                          uint32_t group, uint32_t out[256])
{
    ze_kernel_handle_t k = zt_kernel_create(m, kernel);
    ze_command_list_handle_t l = zt_immediate_create(env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    uint8_t *data = zt_alloc_shared(env, n);
    uint32_t *bins = zt_alloc_shared(env, 256 * sizeof(uint32_t));
    for (uint32_t i = 0; i < n; i++)
        data[i] = (uint8_t)(i % period);
    memset(bins, 0, 256 * sizeof(uint32_t));
    zt_set_args(k, 3, sizeof data, &data, sizeof bins, &bins, sizeof n, &n);
    zt_launch_sync(env, l, k, group, 1, 1, (n + group - 1) / group, 1, 1);
    memcpy(out, bins, 256 * sizeof(uint32_t));
    ZT_OK(zeMemFree(env->context, bins));
    ZT_OK(zeMemFree(env->context, data));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
}

Test(ze_robust, spirv_1_5_is_refused_not_exit, .timeout = ZT_TEST_TIMEOUT)
{
    expect_refused("repro/vadd_v15.spv", ZE_RESULT_ERROR_MODULE_BUILD_FAILURE, "SPIR-V version 1.5 is newer than 1.4");
}

Test(ze_robust, nonzero_schema_is_refused_not_exit, .timeout = ZT_TEST_TIMEOUT)
{
    expect_refused("repro/saxpy_schema4.spv", ZE_RESULT_ERROR_INVALID_NATIVE_BINARY, "schema word is 4");
}

Test(ze_robust, repeated_execution_mode_is_refused_not_abort, .timeout = ZT_TEST_TIMEOUT)
{
    expect_refused("repro/dup_execmode.spv", ZE_RESULT_ERROR_MODULE_BUILD_FAILURE,
                   "execution mode 31 is given twice for entry point id 47");
}

Test(ze_robust, decorated_extinst_import_is_refused_not_abort, .timeout = ZT_TEST_TIMEOUT)
{
    expect_refused("repro/extinst_alignment.spv", ZE_RESULT_ERROR_MODULE_BUILD_FAILURE,
                   "targets id 1, an OpExtInstImport");
}

Test(ze_robust, endless_loop_is_refused_before_pocl_aborts, .timeout = ZT_TEST_TIMEOUT)
{
    expect_refused("repro/histogram_local_badcfg.spv", ZE_RESULT_ERROR_MODULE_BUILD_FAILURE,
                   "kernel histogram_local has a barrier and a loop that, once entered, can never exit");
}

Test(ze_robust, name_of_extinst_import_is_refused_not_abort, .timeout = ZT_TEST_TIMEOUT)
{
    expect_refused("fuzz/matmul_name_on_extinst.spv", ZE_RESULT_ERROR_MODULE_BUILD_FAILURE,
                   "name at word offset 598 targets id 1, an OpExtInstImport");
}

Test(ze_robust, physical32_is_refused_not_segfault, .timeout = ZT_TEST_TIMEOUT)
{
    expect_refused("fuzz/vadd_physical32.spv", ZE_RESULT_ERROR_MODULE_BUILD_FAILURE,
                   "addressing model Physical32: ze_pocl's devices have 64-bit addresses");
}

Test(ze_robust, input_variable_not_builtin_is_refused_not_segfault, .timeout = ZT_TEST_TIMEOUT)
{
    expect_refused("fuzz/vadd_input_not_builtin.spv", ZE_RESULT_ERROR_INVALID_NATIVE_BINARY,
                   "Input variable id 5 is not decorated BuiltIn");
}

/* knobs.spv with a builtin variable (a pointer) as an OpInBoundsPtrAccessChain index: the validator passed it,
 * the translator reached an UNREACHABLE ("Unexpected pattern"). Indexes must be scalar integers. */
Test(ze_robust, pointer_as_access_chain_index_is_refused_not_abort, .timeout = ZT_TEST_TIMEOUT)
{
    expect_refused("fuzz/knobs_pointer_index.spv", ZE_RESULT_ERROR_INVALID_NATIVE_BINARY,
                   "access chain index %7 at word offset 1934 is not a scalar integer");
}

/* histogram.spv with its barriers' memory semantics 0x110 changed to 0x111: the validator passed it, the
 * translator asserted mapping the low five bits to an OpenCL memory order. */
Test(ze_robust, undefined_memory_semantics_bit_is_refused_not_abort, .timeout = ZT_TEST_TIMEOUT)
{
    expect_refused("fuzz/histogram_semantics_bit0.spv", ZE_RESULT_ERROR_INVALID_NATIVE_BINARY,
                   "= 0x111 at word offset");
}

/* histogram.spv with a builtin variable's BuiltIn decoration mutated to PointSize (1), a graphics builtin: the
 * validator passed it in a Kernel module, the translator asserted ("Invalid key") mapping it to an OpenCL
 * function. Only the Kernel builtins are taken. */
Test(ze_robust, graphics_builtin_is_refused_not_abort, .timeout = ZT_TEST_TIMEOUT)
{
    expect_refused("fuzz/histogram_builtin_pointsize.spv", ZE_RESULT_ERROR_INVALID_NATIVE_BINARY,
                   "BuiltIn 1 at word offset 466 is not a Kernel builtin");
}

/* histogram.spv with histogram_local's __local bins given the LinkageAttributes name
 * "__spirv_BuiltInWorkgroupSize": the validator passed it, and the translator, which finds builtin variables by
 * that name prefix, reached an UNREACHABLE ("Unexpected pattern") lowering the bins' uses. */
Test(ze_robust, builtin_name_on_a_plain_variable_is_refused_not_abort, .timeout = ZT_TEST_TIMEOUT)
{
    expect_refused("fuzz/histogram_local_named_builtin.spv", ZE_RESULT_ERROR_INVALID_NATIVE_BINARY,
                   "id 7 has a name beginning __spirv_BuiltIn but is not decorated BuiltIn");
}

/* mandelbrot.spv with a pointer type mutated to the Image storage class: the validator passed it, and the
 * translator asserted ("Invalid key") mapping the storage class to an OpenCL address space. */
Test(ze_robust, storage_class_without_an_address_space_is_refused_not_abort, .timeout = ZT_TEST_TIMEOUT)
{
    expect_refused("fuzz/mandelbrot_image_pointer.spv", ZE_RESULT_ERROR_INVALID_NATIVE_BINARY,
                   "storage class 11 at word offset 413 has no OpenCL address space");
}

/* knobs.spv with scale_spec's LinkageAttributes export name changed to "scale_reqd", another kernel's: the
 * validator passed it, and the translator, which names functions by their export, segfaulted on a null
 * function. Export names must be unique. */
Test(ze_robust, duplicate_export_name_is_refused_not_crash, .timeout = ZT_TEST_TIMEOUT)
{
    expect_refused("fuzz/knobs_duplicate_export.spv", ZE_RESULT_ERROR_INVALID_NATIVE_BINARY,
                   "two ids export the name \"scale_reqd\" (LinkageAttributes at word offset 786)");
}

/* knobs.spv with scale_reqd's export removed and scale_spec's renamed to "scale_reqd": two functions named alike,
 * one by OpName, one by its export, which the validator lets through; the translator segfaulted. The name each
 * function gets must be its own. */
Test(ze_robust, two_functions_of_one_name_are_refused_not_crash, .timeout = ZT_TEST_TIMEOUT)
{
    expect_refused("fuzz/knobs_export_named_as_function.spv", ZE_RESULT_ERROR_INVALID_NATIVE_BINARY,
                   "functions 106 and 149 are both named \"scale_reqd\" (OpName or LinkageAttributes)");
}

/* The same module with scale_reqd's OpName removed as well: scale_spec's function alone is named "scale_reqd", and
 * the translator took it for the body of kernel scale_reqd, whose entry point calls another function; PoCL
 * asserted on the argument metadata ("kernel_arg_addr_space meta incomplete"). A function named like a kernel
 * must be the one that kernel's entry point calls. */
Test(ze_robust, function_named_as_another_kernel_is_refused_not_abort, .timeout = ZT_TEST_TIMEOUT)
{
    expect_refused("fuzz/knobs_function_named_as_kernel.spv", ZE_RESULT_ERROR_INVALID_NATIVE_BINARY,
                   "function 149 is named \"scale_reqd\" (OpName or LinkageAttributes), as a kernel is, but that "
                   "kernel's entry point function 204 does not call it");
}

/* hello.spv with a printf argument replaced by the GlobalInvocationId variable itself (a pointer): the translator
 * lowers builtins by rewriting their loads and reached an UNREACHABLE ("Unexpected pattern") on this use. */
Test(ze_robust, builtin_variable_as_a_value_is_refused_not_abort, .timeout = ZT_TEST_TIMEOUT)
{
    expect_refused("fuzz/hello_builtin_as_value.spv", ZE_RESULT_ERROR_INVALID_NATIVE_BINARY,
                   "builtin variable %33 is used at word offset 523 other than through OpLoad, an access chain or "
                   "OpPtrCastToGeneric");
}

/* histogram.spv with histogram_local's 256 bins made 2097408 (8 MiB of static __local): PoCL 3.1 gives every kernel
 * of the module that array, and aborted the process at the first launch of histogram_global, which does not use it
 * (fuzzer, long run). Over a device with less local memory than that ze_pocl refuses the module. PoCL 5.0 (the
 * H200 machine's) reports less local memory for each kernel and builds it; then histogram_global must count. */
Test(ze_robust, module_locals_over_the_device_are_refused_not_abort, .timeout = ZT_TEST_TIMEOUT)
{
    const char *file = "fuzz/histogram_local_bins_8mib.spv";
    zt_env env;
    zt_init(&env);
    size_t size = 0;
    void *il = read_repro(file, &size);
    ze_module_handle_t m = NULL;
    ze_module_build_log_handle_t log = NULL;
    ze_result_t r = zt_module_create_il(&env, il, size, NULL, &m, &log);
    free(il);
    if (r != ZE_RESULT_SUCCESS) {
        cr_assert_eq(r, ZE_RESULT_ERROR_MODULE_BUILD_FAILURE, "zeModuleCreate returned 0x%x (%s)", (unsigned)r,
                     zt_result_name(r));
        expect_log_says(log, file,
                        "kernel histogram_global needs 8389632 bytes of local memory (0 of its own; PoCL gives each "
                        "kernel every __local variable of its module), more than the device's");
        good_module_runs(&env);
        zt_fini(&env);
        return;
    }
    if (log) ZT_OK(zeModuleBuildLogDestroy(log));
    const uint32_t n = 1024;
    uint32_t bins[256];
    histogram_run(&env, m, "histogram_global", n, 5, 64, bins);
    for (uint32_t b = 0; b < 256; b++)
        cr_assert_eq(bins[b], b < 5 ? (n - b + 4) / 5 : 0, "bin %u is %u", b, bins[b]);
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* Builds a fuzzed copy of vadd.spv whose kernel is renamed, finds the kernel by that name (zeModuleGetKernelNames
 * lists it) and runs it. */
static void renamed_vadd_runs(const char *file, const char *name) {
    zt_env env;
    zt_init(&env);
    size_t size = 0;
    void *il = read_repro(file, &size);
    ze_module_handle_t m = NULL;
    ZT_OK(zt_module_create_il(&env, il, size, NULL, &m, NULL));
    free(il);
    uint32_t count = 0;
    ZT_OK(zeModuleGetKernelNames(m, &count, NULL));
    const char *names[8] = {0};
    cr_assert_leq(count, 8);
    ZT_OK(zeModuleGetKernelNames(m, &count, names));
    int listed = 0;
    for (uint32_t i = 0; i < count; i++) listed += strcmp(names[i], name) == 0;
    cr_assert_eq(listed, 1, "%s: kernel %s listed %d times", file, name, listed);
    ze_kernel_handle_t k = zt_kernel_create(m, name);
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    enum { N = 256 };
    float *a = zt_alloc_shared(&env, N * sizeof(float)), *b = zt_alloc_shared(&env, N * sizeof(float));
    float *c = zt_alloc_shared(&env, N * sizeof(float));
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = 0.5f * (float)i;
        c[i] = -1.0f;
    }
    uint32_t n = N;
    zt_set_args(k, 4, sizeof a, &a, sizeof b, &b, sizeof c, &c, sizeof n, &n);
    zt_launch_sync(&env, l, k, 64, 1, 1, N / 64, 1, 1);
    for (int i = 0; i < N; i++)
        cr_assert_float_eq(c[i], 1.5f * (float)i, 0.0f, "%s: c[%d] = %f", file, i, (double)c[i]);
    ZT_OK(zeMemFree(env.context, a));
    ZT_OK(zeMemFree(env.context, b));
    ZT_OK(zeMemFree(env.context, c));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* vadd.spv with its kernel named "va@dd": PoCL links the work-group function with the name in a symbol, which the
 * linker reads as a symbol version, and aborted the process at the first launch ("Final linking of kernel ...
 * failed"; fuzzer, long run, "reduce_sum_i32@"). A '/' did the same, through the kernel cache's paths. ze_pocl
 * refused such names; now PoCL gets a short internal name (spirv/names.cpp) and the kernel runs by its own. */
Test(ze_robust, kernel_name_with_at_runs_not_abort, .timeout = ZT_TEST_TIMEOUT)
{
    renamed_vadd_runs("fuzz/vadd_name_with_at.spv", "va@dd");
}

/* vadd.spv renamed to 241 'k's (PoCL makes "NAME.so" a file name, and 253 bytes aborted the process; ze_pocl refused
 * more than 240) and to 240: both build and run, the longer under an internal name. */
Test(ze_robust, kernel_name_length, .timeout = ZT_TEST_TIMEOUT)
{
    char name[242];
    memset(name, 'k', 241);
    name[241] = '\0';
    renamed_vadd_runs("fuzz/vadd_name_241.spv", name);
    name[240] = '\0';
    renamed_vadd_runs("fuzz/vadd_name_240.spv", name);
}

/* matmul.spv with matmul_tiled's body missing its OpFunctionParameter for n (and other changes): its type still takes
 * six parameters, which SPIRV-Tools 2023.1 does not compare, and the translator segfaulted (fuzzer, long run). */
Test(ze_robust, function_with_a_parameter_missing_is_refused_not_crash, .timeout = ZT_TEST_TIMEOUT)
{
    expect_refused("fuzz/matmul_missing_parameter.spv", ZE_RESULT_ERROR_INVALID_NATIVE_BINARY,
                   "function %99 has 5 OpFunctionParameter but its type takes 6 parameters");
}

/* matmul.spv mutated so that a block calling a barrier cannot be reached (make test's fuzz smoke, seed 8, once the
 * check of barriers in two arms of a branch came): that check asked LLVM for the nearest common dominator of an
 * unreachable block, and LLVM's assertion ended the process. Unreachable barriers are left out of it now; the
 * module is refused for its endless loop. */
Test(ze_robust, unreachable_barrier_is_refused_not_abort, .timeout = ZT_TEST_TIMEOUT)
{
    expect_refused("fuzz/matmul_unreachable_barrier.spv", ZE_RESULT_ERROR_MODULE_BUILD_FAILURE,
                   "kernel matmul_tiled has a barrier and a loop that, once entered, can never exit");
}

/* hello.spv with a printf argument replaced by a label's id: the validator does not check OpExtInst operands, and
 * the translator asserted ("value has no type"). A function's value operands must not be labels or types. */
Test(ze_robust, label_as_a_value_is_refused_not_abort, .timeout = ZT_TEST_TIMEOUT)
{
    expect_refused("fuzz/hello_label_as_value.spv", ZE_RESULT_ERROR_INVALID_NATIVE_BINARY,
                   "id 41 at word offset 524 is used as a value but is a label, a type");
}

/* Every SPIR-V version word other than 1.0-1.4 is refused in the header; 1.4 (which the kernel's instructions
 * all exist in) still builds. */
Test(ze_robust, version_words, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env;
    zt_init(&env);
    size_t size = 0;
    uint32_t *w = zt_load_spirv("ze_vadd", &size);
    static const struct { uint32_t version; ze_result_t want; } cases[] = {
        {0x00010600, ZE_RESULT_ERROR_MODULE_BUILD_FAILURE}, {0x00010500, ZE_RESULT_ERROR_MODULE_BUILD_FAILURE},
        {0x00010700, ZE_RESULT_ERROR_INVALID_NATIVE_BINARY}, {0x00020000, ZE_RESULT_ERROR_INVALID_NATIVE_BINARY},
        {0x00010001, ZE_RESULT_ERROR_INVALID_NATIVE_BINARY}, {0x01010000, ZE_RESULT_ERROR_INVALID_NATIVE_BINARY},
        {0x00000000, ZE_RESULT_ERROR_INVALID_NATIVE_BINARY}, {0x00010400, ZE_RESULT_SUCCESS},
    };
    cr_assert_leq(w[1], 0x00010400u, "the test kernel's own version is above 1.4");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        w[1] = cases[i].version;
        ze_module_handle_t m = NULL;
        ze_result_t r = zt_module_create_il(&env, w, size, NULL, &m, NULL);
        cr_assert_eq(r, cases[i].want, "version word 0x%08x: 0x%x (%s)", cases[i].version, (unsigned)r,
                     zt_result_name(r));
        if (m) ZT_OK(zeModuleDestroy(m));
    }
    free(w);
    good_module_runs(&env);
    zt_fini(&env);
}

/* The same class written in OpenCL C: a barrier, then a loop whose exit test reads memory the loop never writes.
 * Without a barrier PoCL builds such kernels (they hang only once they enter the loop), and so does ze_pocl. */
Test(ze_robust, endless_loop_after_barrier_refused_without_barrier_built, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env;
    zt_init(&env);
    expect_kernel_refused(&env, "ze_endless_barrier", ZE_RESULT_ERROR_MODULE_BUILD_FAILURE,
                          "kernel endless_after_barrier has a barrier and a loop that, once entered, can never exit");
    ze_module_handle_t ok = zt_module_load(&env, "ze_endless_ok");
    uint32_t count = 0;
    ZT_OK(zeModuleGetKernelNames(ok, &count, NULL));
    cr_assert_eq(count, 2);
    ZT_OK(zeModuleDestroy(ok));
    good_module_runs(&env);
    zt_fini(&env);
}

/* A strided loop that runs at most once, around barriers (histogram_local over one bin): PoCL 3.1 aborted at
 * the first launch (test/data/fuzz/histogram_local_parallel_region.spv is the fuzzer's find). Now it builds,
 * and every group size gets its own work-group function, so three are launched. */
Test(ze_robust, strided_loop_run_at_most_once_builds_and_runs, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_strided_once");
    ze_kernel_handle_t k = zt_kernel_create(m, "strided_once");
    ze_kernel_handle_t kg = zt_kernel_create(m, "strided_groups_once");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    const uint32_t items = 64;
    uint32_t *out = zt_alloc_shared(&env, (items + items) * sizeof(uint32_t));
    static const uint32_t sizes[] = {1, 4, 16};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        uint32_t lsize = sizes[s], groups = items / lsize;
        memset(out, 0xff, (items + items) * sizeof(uint32_t));
        zt_set_args(k, 1, sizeof out, &out);
        zt_launch_sync(&env, l, k, lsize, 1, 1, groups, 1, 1);
        for (uint32_t i = 0; i < items; i++)
            cr_assert_eq(out[i], 100 + i / lsize + i % lsize, "group size %u: out[%u] = %u", lsize, i, out[i]);
        for (uint32_t g = 0; g < groups; g++)
            cr_assert_eq(out[items + g], 2 * (100 + g), "group size %u: group %u wrote %u", lsize, g, out[items + g]);
        for (uint32_t i = items + groups; i < items + items; i++)
            cr_assert_eq(out[i], 0xffffffffu, "group size %u: out[%u] written", lsize, i);

        memset(out, 0xff, items * sizeof(uint32_t));
        zt_set_args(kg, 1, sizeof out, &out);
        zt_launch_sync(&env, l, kg, lsize, 1, 1, groups, 1, 1);
        for (uint32_t i = 0; i < items; i++)
            cr_assert_eq(out[i], i < lsize ? 7 + i : 0xffffffffu, "group size %u: out[%u] = %u", lsize, i, out[i]);
    }
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(kg));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* With the step an argument, nothing says it is not 0: the module is refused, naming the kernel, and the
 * context still builds and runs a good module. */
Test(ze_robust, strided_loop_whose_step_may_be_zero_is_refused_not_abort, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env;
    zt_init(&env);
    expect_kernel_refused(&env, "ze_strided_step", ZE_RESULT_ERROR_MODULE_BUILD_FAILURE,
                          "kernel strided_by_argument has a barrier and a loop that, once entered, can never exit "
                          "as LLVM optimizes it");
    zt_fini(&env);
}

/* The fuzzer's find: histogram_local with its loops over 256 bins cut to one (and names and linkage changed).
 * PoCL 3.1 aborted at its first launch; now it counts the zero bytes, the one bin its loops reach. */
Test(ze_robust, fuzzed_histogram_over_one_bin_builds_and_counts, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env;
    zt_init(&env);
    size_t size = 0;
    void *il = read_repro("fuzz/histogram_local_parallel_region.spv", &size);
    ze_module_handle_t m = NULL;
    ZT_OK(zt_module_create_il(&env, il, size, NULL, &m, NULL));
    free(il);
    const uint32_t n = 1000, zeros = (n + 6) / 7; /* the i < n with i % 7 == 0 */
    static const uint32_t sizes[] = {1, 4, 16};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        uint32_t bins[256];
        histogram_run(&env, m, "histogram_local", n, 7, sizes[s], bins);
        cr_assert_eq(bins[0], zeros, "group size %u: bin 0 is %u, not %u", sizes[s], bins[0], zeros);
        for (uint32_t b = 1; b < 256; b++)
            cr_assert_eq(bins[b], 0, "group size %u: bin %u is %u", sizes[s], b, bins[b]);
    }
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}
