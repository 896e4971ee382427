/*
 * errors: what krt says when something is wrong, and how to read it. The program makes the common mistakes on
 * purpose, one at a time, and prints for each the krt_result's name, its one-line meaning and
 * krt_last_error_message(), the detail; each result must be exactly the one expected. Then it shows that the
 * context is still usable (a correct launch, checked), a logger receiving krt's log lines (the trace line of
 * each launch), and printf from inside a kernel.
 *
 * usage: errors   (exits 1 when a result is not the expected one or the final launch is wrong)
 */
#include "example.h"

static int failed;

/* Prints one mistake's outcome and checks its result code. */
static void expect(const char *what, krt_result got, krt_result want)
{
    int ok = got == want;
    failed += !ok;
    printf("%s\n  -> %s (%s)%s\n     %s\n", what, krt_result_name(got), krt_result_string(got),
           ok ? "" : "   UNEXPECTED", krt_last_error_message());
}

/* A logger: krt calls it from any thread, so a real one must be thread-safe; this one only counts and keeps the
 * last trace line, from the one thread that launches. */
typedef struct log_state {
    int lines;
    char last[512];
} log_state;

static void on_log(void *user_data, krt_log_level level, const char *message)
{
    log_state *s = user_data;
    s->lines++;
    if (level == KRT_LOG_TRACE)
        snprintf(s->last, sizeof s->last, "%s", message);
}

int main(void)
{
    /* A device that does not exist: the message lists those that do. */
    krt_context *nothing = NULL;
    expect("krt_context_create with .device = \"tpu\"",
           krt_context_create(&(krt_context_desc){ .device = "tpu" }, &nothing), KRT_ERROR_NO_DEVICE);

    log_state log = { 0 };
    krt_context_desc desc = { .logger = { .func = on_log, .user_data = &log, .max_level = KRT_LOG_TRACE } };
    krt_context *ctx = NULL;
    EX_CHECK(krt_context_create(&desc, &ctx));
    krt_device_info info;
    EX_CHECK(krt_context_device_info(ctx, &info));
    printf("device: %s (driver %s)\n\n", info.name, info.driver_name);

    /* Modules: a missing file, a file that is not SPIR-V, OpenCL C that does not compile. */
    krt_module *m = NULL;
    expect("krt_module_create with .path = \"no-such-file.spv\"",
           krt_module_create(ctx, &(krt_module_desc){ .path = "no-such-file.spv" }, &m), KRT_ERROR_IO);
    static const char not_spirv[] = "this is not a SPIR-V module";
    expect("krt_module_create with 24 bytes of text as code",
           krt_module_create(ctx, &(krt_module_desc){ .code = not_spirv, .size = 24 }, &m), KRT_ERROR_INVALID_MODULE);
    /* Source needs an OpenCL C compiler (clang-15); where none is installed, krt says so with
     * KRT_ERROR_UNSUPPORTED_FEATURE, naming the package, instead of the compiler's diagnostic. */
    krt_result r = krt_module_create(
        ctx, &(krt_module_desc){ .source = "__kernel void f(__global int *x) { x[0] = y; }\n" }, &m);
    expect("krt_module_create with OpenCL C that uses an undeclared name", r,
           r == KRT_ERROR_UNSUPPORTED_FEATURE && strstr(krt_last_error_message(), " not found")
               ? KRT_ERROR_UNSUPPORTED_FEATURE
               : KRT_ERROR_MODULE_BUILD_FAILURE);

    /* A kernel name with a typo: the message lists the module's kernels. */
    krt_module *module = ex_module(ctx, "saxpy.spv");
    krt_kernel *saxpy = NULL;
    expect("krt_kernel_get(module, \"sxapy\")", krt_kernel_get(module, "sxapy", &saxpy), KRT_ERROR_KERNEL_NOT_FOUND);
    saxpy = ex_kernel(module, "saxpy");

    /* saxpy(float a, __global const float *x, __global float *y, uint n) */
    enum { N = 1000 };
    float *x = ex_alloc(ctx, N * sizeof(float)), *y = ex_alloc(ctx, N * sizeof(float));
    float a = 2.0f;
    uint32_t n = N;
    size_t n_wide = N;
    float host[N];
    krt_ndrange range = { .dims = 1, .size = { N } };

    /* The argument checks: count, size, kind; each message names the argument. */
    krt_arg three[] = { KRT_ARG(a), KRT_ARG(x), KRT_ARG(y) };
    expect("krt_launch with 3 arguments for saxpy's 4",
           krt_launch(saxpy, &(krt_launch_desc){ .range = range, .args = three, .num_args = 3 }),
           KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    krt_arg wide[] = { KRT_ARG(a), KRT_ARG(x), KRT_ARG(y), KRT_ARG(n_wide) };
    expect("krt_launch with a size_t for the kernel's uint n",
           krt_launch(saxpy, &(krt_launch_desc){ .range = range, .args = wide, .num_args = 4 }),
           KRT_ERROR_INVALID_KERNEL_ARGUMENT);
    float *not_device = host;
    krt_arg stack[] = { KRT_ARG(a), KRT_ARG(not_device), KRT_ARG(y), KRT_ARG(n) };
    expect("krt_launch with a pointer to a stack array for x",
           krt_launch(saxpy, &(krt_launch_desc){ .range = range, .args = stack, .num_args = 4 }),
           KRT_ERROR_INVALID_POINTER);

    /* The range and the group size. */
    krt_arg args[] = { KRT_ARG(a), KRT_ARG(x), KRT_ARG(y), KRT_ARG(n) };
    expect("krt_launch over an empty range",
           krt_launch(saxpy, &(krt_launch_desc){ .range = { 1, { 0 } }, .args = args, .num_args = 4 }),
           KRT_ERROR_INVALID_NDRANGE);
    expect("krt_launch with a static group of 100000 work-items",
           krt_launch(saxpy, &(krt_launch_desc){ .range = range, .group = { 100000 }, .args = args, .num_args = 4 }),
           KRT_ERROR_INVALID_GROUP_SIZE);

    /* None of this changed the context: a correct launch works and is right. */
    for (int i = 0; i < N; i++)
        host[i] = (float)i;
    EX_CHECK(krt_memcpy(ctx, NULL, x, host, sizeof host));
    EX_CHECK(krt_memcpy(ctx, NULL, y, host, sizeof host));
    int before = log.lines;
    EX_CHECK(krt_launch(saxpy, &(krt_launch_desc){ .range = range, .args = args, .num_args = 4 }));
    EX_CHECK(krt_memcpy(ctx, NULL, host, y, sizeof host));
    EX_CHECK(krt_queue_synchronize(krt_context_default_queue(ctx)));
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += host[i] != 3.0f * (float)i;
    failed += wrong != 0;
    printf("\nafter all that, a correct saxpy on the same context: %d of %d wrong: %s\n", wrong, N,
           wrong ? "FAILED" : "ok");
    failed += log.lines == before;
    printf("the logger got %d line%s from that launch; the trace line:\n  %s\n", log.lines - before,
           log.lines - before == 1 ? "" : "s", log.last);

    /* printf inside a kernel: the lines appear on standard output when the kernel runs. stdout is flushed
     * around the launch so that the program's own lines and the kernel's stay in order. */
    krt_module *hello_module = ex_module(ctx, "hello.spv");
    krt_kernel *hello = ex_kernel(hello_module, "hello");
    int *values = ex_alloc(ctx, 4 * sizeof(int));
    int hv[4] = { 10, 20, 30, 40 };
    EX_CHECK(krt_memcpy(ctx, NULL, values, hv, sizeof hv));
    uint32_t four = 4;
    krt_arg hargs[] = { KRT_ARG(values), KRT_ARG(four) };
    printf("\nprintf in a kernel, 4 work-items:\n");
    fflush(stdout);
    EX_CHECK(krt_launch_sync(hello, &(krt_launch_desc){ .range = { 1, { 4 } }, .args = hargs, .num_args = 2 }));
    fflush(stdout);

    krt_context_destroy(ctx);
    printf("%s\n", failed ? "FAILED: a result was not the expected one" : "ok: every error was the expected one");
    return failed ? 1 : 0;
}
