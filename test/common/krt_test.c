/* Shared helpers for the libkrt tests; see krt_test.h. */
#include "krt_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

krt_context *kt_context(const krt_context_desc *desc)
{
    krt_context *ctx = NULL;
    KT_OK(krt_context_create(desc, &ctx));
    cr_assert_not_null(ctx);
    return ctx;
}

void kt_skip_on_host(const char *why)
{
    const char *device = getenv("KRT_DEVICE");
    if (device && strcmp(device, "host") == 0)
        cr_skip_test("not on the host device: %s", why);
}

/* Whether the command runs: a path as given, else found executable in a directory of PATH. */
static int kt_command_exists(const char *cmd)
{
    if (strchr(cmd, '/'))
        return access(cmd, X_OK) == 0;
    const char *path = getenv("PATH");
    if (!path)
        return 0;
    char file[4096];
    for (const char *p = path;;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (snprintf(file, sizeof file, "%.*s/%s", (int)len, len ? p : ".", cmd) < (int)sizeof file &&
            access(file, X_OK) == 0)
            return 1;
        if (!end)
            return 0;
        p = end + 1;
    }
}

void kt_skip_without_clang(void)
{
    const char *clang = getenv("KRT_CLANG"), *llvm_spirv = getenv("KRT_LLVM_SPIRV");
    clang = clang && clang[0] ? clang : "clang-15";
    llvm_spirv = llvm_spirv && llvm_spirv[0] ? llvm_spirv : "llvm-spirv-15";
    if (!kt_command_exists(clang))
        cr_skip_test("needs the OpenCL C compiler %s, not installed here (apt-get install clang-15)", clang);
    if (!kt_command_exists(llvm_spirv))
        cr_skip_test("needs %s, not installed here (apt-get install llvm-spirv-15)", llvm_spirv);
}

const char *kt_kernel_path(const char *name)
{
    static _Thread_local char path[4096];
    const char *dir = getenv("KRT_TEST_KERNELS");
    cr_assert(dir != NULL && dir[0] != '\0', "KRT_TEST_KERNELS is not set (run the tests through make)");
    int n = snprintf(path, sizeof path, "%s/%s.spv", dir, name);
    cr_assert(n > 0 && (size_t)n < sizeof path);
    return path;
}

void *kt_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    cr_assert_eq(fseek(f, 0, SEEK_END), 0);
    long len = ftell(f);
    cr_assert(len >= 0);
    cr_assert_eq(fseek(f, 0, SEEK_SET), 0);
    void *buf = malloc((size_t)len + 1);
    cr_assert_not_null(buf);
    cr_assert_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    *size = (size_t)len;
    return buf;
}

krt_module *kt_module(krt_context *ctx, const char *name)
{
    krt_module_desc desc = {.path = kt_kernel_path(name)};
    krt_module *module = NULL;
    KT_OK(krt_module_create(ctx, &desc, &module));
    cr_assert_not_null(module);
    return module;
}

krt_kernel *kt_kernel(krt_module *module, const char *name)
{
    krt_kernel *kernel = NULL;
    KT_OK(krt_kernel_get(module, name, &kernel));
    cr_assert_not_null(kernel);
    return kernel;
}

void *kt_alloc(krt_context *ctx, size_t size, krt_memory_kind kind)
{
    krt_alloc_desc desc = {.kind = kind};
    void *p = NULL;
    KT_OK(krt_alloc(ctx, size, &desc, &p));
    cr_assert_not_null(p);
    return p;
}

void kt_copy_sync(krt_context *ctx, void *dst, const void *src, size_t size)
{
    KT_OK(krt_memcpy(ctx, NULL, dst, src, size));
    KT_OK(krt_queue_synchronize(krt_context_default_queue(ctx)));
}

krt_launch_desc kt_desc1(uint64_t n, const krt_arg *args, uint32_t num_args)
{
    krt_launch_desc d = {0};
    d.range.dims = 1;
    d.range.size[0] = n;
    d.args = args;
    d.num_args = num_args;
    return d;
}

void kt_assert_usable(krt_context *ctx)
{
    enum { N = 1000 };
    krt_module *m = kt_module(ctx, "krt_basic");
    krt_kernel *k = kt_kernel(m, "krt_iota");
    uint32_t *dev = kt_alloc(ctx, N * sizeof(uint32_t), KRT_MEMORY_DEVICE);
    uint32_t n = N, base = 7;
    krt_arg args[] = {KRT_ARG(dev), KRT_ARG(n), KRT_ARG(base)};
    krt_launch_desc d = kt_desc1(N, args, 3);
    KT_OK(krt_launch_sync(k, &d));
    uint32_t *host = calloc(N, sizeof *host);
    cr_assert_not_null(host);
    kt_copy_sync(ctx, host, dev, N * sizeof(uint32_t));
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(host[i], base + i, "after the error, item %u is %u, expected %u", i, host[i], base + i);
    free(host);
    KT_OK(krt_free(ctx, dev));
    krt_module_destroy(m);
}

uint64_t kt_prevpow2(uint64_t x)
{
    uint64_t p = 1;
    while (p <= x / 2)
        p *= 2;
    return p;
}

uint64_t kt_nextpow2(uint64_t x)
{
    uint64_t p = 1;
    while (p < x)
        p *= 2;
    return p;
}

uint32_t kt_local_size_at(uint64_t size, uint32_t group, uint64_t id)
{
    uint64_t start = id / group * group;
    return start + group <= size ? group : (uint32_t)(size - start);
}
