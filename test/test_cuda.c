/* ze_cuda on a machine without a GPU (make test): its translation of every kernel of the project to PTX, checked
 * by the CUDA toolkit's ptxas for sm_90; the modules it must refuse; and the driver itself, which reports no
 * devices without an NVIDIA driver while krt falls back to ze_pocl. On a machine with an NVIDIA GPU
 * (tools/gpu-test.sh) the last two expect the GPU instead. */
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <level_zero/ze_api.h>

#include "krt_test.h"

static const char *env_or(const char *name, const char *fallback) {
    const char *v = getenv(name);
    return v && *v ? v : fallback;
}

static bool have_nvidia_driver(void) {
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h) dlclose(h);
    return h != NULL;
}

static const char *ptxas(void) {
    static char path[512];
    const char *p = getenv("PTXAS");
    if (p && *p) return p;
    if (system("command -v ptxas >/dev/null 2>&1") == 0) return "ptxas";
    snprintf(path, sizeof path, "%s/bin/ptxas", env_or("CUDA_HOME", "/usr/local/cuda"));
    return path;
}

/* Runs a shell command with its output in a file; returns the exit status, -1 when it did not exit. */
static int run(const char *cmd) {
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Modules ze_cuda refuses on purpose, and the words their build log must contain. */
static const struct {
    const char *file, *why;
} refused[] = {
    {"zc_image.spv", "image"},                      /* an image argument: nothing in CUDA to map it to */
    {"krt_unresolved.spv", "krt_missing_function"}, /* calls a function nothing defines */
    {"ze_enqueue.spv", "DeviceEnqueue"},            /* device-side enqueue: no driver implements it */
    {"ze_sg_reqd1.spv", "sub-group size of 1 "},    /* intel_reqd_sub_group_size other than the warp's */
    {"ze_sg_reqd16.spv", "sub-group size of 16 "},
    {"ze_nonuniform_workgroup.spv", "OpGroupNonUniformIAdd"}, /* a non-uniform instruction at work-group scope */
    {"ze_unknown_extension.spv", "SPV_KHR_shader_clock"},     /* an extension the translator does not know */
};

static const char *refusal(const char *file) {
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        if (strcmp(refused[i].file, file) == 0) return refused[i].why;
    return NULL;
}

/* Translates every .spv of a directory (options: more arguments of ze_cuda_ptx, "" for none); returns how many, and
 * appends each failure to fails. */
static int translate_dir(const char *dir, const char *options, char *fails, size_t cap) {
    DIR *d = opendir(dir);
    cr_assert(d != NULL, "cannot open kernel directory %s", dir);
    const char *tool = env_or("ZC_PTX_TOOL", NULL);
    char toolbuf[512];
    if (!tool) {
        snprintf(toolbuf, sizeof toolbuf, "%s/bin/ze_cuda_ptx", env_or("KRT_BUILD", "build"));
        tool = toolbuf;
    }
    char tmp[] = "/tmp/krt_cuda_ptx_XXXXXX";
    cr_assert(mkdtemp(tmp) != NULL);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".spv") != 0) continue;
        n++;
        char cmd[4096], log[1024] = "";
        snprintf(cmd, sizeof cmd, "'%s' %s '%s/%s' '%s/out.ptx' 2>'%s/log'", tool, options, dir, e->d_name, tmp, tmp);
        int rc = run(cmd);
        snprintf(cmd, sizeof cmd, "%s/log", tmp);
        FILE *f = fopen(cmd, "r");
        if (f) {
            size_t got = fread(log, 1, sizeof log - 1, f);
            log[got] = 0;
            fclose(f);
        }
        const char *why = refusal(e->d_name);
        char line[1400] = "";
        if (why) {
            if (rc != 2 || strstr(log, why) == NULL)
                snprintf(line, sizeof line, "%s: expected a refusal naming '%s', got exit %d: %s\n", e->d_name, why,
                         rc, log);
        } else if (rc != 0) {
            snprintf(line, sizeof line, "%s: translation failed (exit %d): %s\n", e->d_name, rc, log);
        } else {
            snprintf(cmd, sizeof cmd, "'%s' -arch=sm_90 '%s/out.ptx' -o /dev/null >'%s/log' 2>&1", ptxas(), tmp, tmp);
            rc = run(cmd);
            if (rc != 0) snprintf(line, sizeof line, "%s: ptxas -arch=sm_90 refused the PTX (exit %d)\n", e->d_name, rc);
        }
        if (line[0] && strlen(fails) + strlen(line) < cap) strcat(fails, line);
    }
    closedir(d);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    run(cmd);
    return n;
}

static void check_dir_with(const char *dir, const char *options) {
    static char fails[16384];
    fails[0] = 0;
    int n = translate_dir(dir, options, fails, sizeof fails);
    cr_assert(n > 0, "no .spv in %s", dir);
    cr_assert(fails[0] == 0, "in %s:\n%s", dir, fails);
}

static void check_dir(const char *dir) { check_dir_with(dir, ""); }

Test(cuda_ptx, ptxas_is_there) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "'%s' --version >/dev/null 2>&1", ptxas());
    cr_assert_eq(run(cmd), 0, "ptxas (the CUDA toolkit's) not found: set PTXAS or CUDA_HOME");
}

Test(cuda_ptx, kernels, .timeout = KT_TEST_TIMEOUT) { check_dir(env_or("KRT_KERNELS", "build/kernels")); }

Test(cuda_ptx, test_kernels, .timeout = KT_TEST_TIMEOUT) {
    check_dir(env_or("KRT_TEST_KERNELS", "build/test-kernels"));
}

/* The hand-written SPIR-V (DPC++'s forms of the group instructions among them) and the kernels built with SPIR-V
 * extensions krt-cc does not enable (float atomics). */
/* Checked launches (ZE_krt_bounds_check): every kernel, instrumented against a bounds table, is PTX ptxas takes. */
Test(cuda_ptx, checked_kernels, .timeout = KT_TEST_TIMEOUT) {
    check_dir_with(env_or("KRT_KERNELS", "build/kernels"), "--bounds-table 0x7f0012345000");
    check_dir_with(env_or("KRT_TEST_KERNELS", "build/test-kernels"), "--bounds-table 0x7f0012345000");
}

Test(cuda_ptx, test_kernels_asm_and_ext, .timeout = KT_TEST_TIMEOUT) {
    char dir[512];
    snprintf(dir, sizeof dir, "%s/asm", env_or("KRT_TEST_KERNELS", "build/test-kernels"));
    check_dir(dir);
    snprintf(dir, sizeof dir, "%s/ext", env_or("KRT_TEST_KERNELS", "build/test-kernels"));
    check_dir(dir);
}

Test(cuda_ptx, test_kernels_o2, .timeout = KT_TEST_TIMEOUT) {
    char dir[512];
    snprintf(dir, sizeof dir, "%s/o2", env_or("KRT_TEST_KERNELS", "build/test-kernels"));
    check_dir(dir);
}

Test(cuda_ptx, bench_kernels, .timeout = KT_TEST_TIMEOUT) {
    char dir[512];
    snprintf(dir, sizeof dir, "%s/bench/kernels", env_or("KRT_BUILD", "build"));
    check_dir(dir);
}

/* A by-value struct larger than CUDA's 4 KiB of kernel parameters (the issue-8 reproducer structdag.spv, 16
 * nested levels of 8 members: a valid module) is refused with a log naming the limit, quickly: NVPTX's
 * instruction selection flattened it into its scalars and never returned. */
Test(cuda_ptx, huge_by_value_argument_refused, .timeout = KT_TEST_TIMEOUT) {
    const char *data = getenv("KRT_TEST_DATA");
    cr_assert(data && data[0], "KRT_TEST_DATA is not set (run the tests through make)");
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s/bin/ze_cuda_ptx' '%s/repro/structdag.spv' /dev/null 2>&1 | grep -q '4096 bytes CUDA'",
             env_or("KRT_BUILD", "build"), data);
    cr_assert_eq(run(cmd), 0, "ze_cuda_ptx did not refuse structdag.spv naming CUDA's parameter limit");
}

/* The PTX ze_cuda_ptx makes of test kernel spv with options (more arguments of the tool, "" for none), in a buffer
 * of its own that the next call reuses; the test fails when the tool does. */
static const char *ptx_of(const char *options, const char *spv) {
    char out[] = "/tmp/krt_cuda_ptx_XXXXXX", cmd[2048];
    int fd = mkstemp(out);
    cr_assert(fd >= 0);
    close(fd);
    snprintf(cmd, sizeof cmd, "'%s/bin/ze_cuda_ptx' %s '%s/%s' '%s'", env_or("KRT_BUILD", "build"), options,
             env_or("KRT_TEST_KERNELS", "build/test-kernels"), spv, out);
    cr_assert_eq(run(cmd), 0, "ze_cuda_ptx %s failed on %s", options, spv);
    FILE *f = fopen(out, "r");
    cr_assert_not_null(f);
    static char ptx[1 << 20];
    size_t n = fread(ptx, 1, sizeof ptx - 1, f);
    ptx[n] = 0;
    fclose(f);
    unlink(out);
    return ptx;
}

/* A 64-bit rotate by a register amount (OpenCL C's ~(1L << (i % 63)), which LLVM folds into a rotate of -2 by
 * i + i / 63) reduces its amount modulo 64 before NVPTX's shl/shr/add sequence, which is right only below 64: every
 * rotate block of the PTX shifts by the masked amount. On the GPU, test_ze_groups' 64-bit fetch_and checks the
 * result. */
Test(cuda_ptx, rotates_by_a_register_amount_are_modular, .timeout = KT_TEST_TIMEOUT) {
    const char *ptx = ptx_of("", "ze_atomics_c11.spv");
    int blocks = 0;
    for (const char *b = strstr(ptx, ".reg .u32 %amt2;"); b; b = strstr(b + 1, ".reg .u32 %amt2;")) {
        const char *end = strchr(b, '}');
        cr_assert_not_null(end);
        char block[512];
        size_t len = (size_t)(end - b) < sizeof block - 1 ? (size_t)(end - b) : sizeof block - 1;
        memcpy(block, b, len);
        block[len] = 0;
        cr_assert(strstr(block, "and.b32 \t%amt1, ") && strstr(block, ", 63;") && strstr(block, "%lhs, ") &&
                      strstr(block, "64, %amt1;"),
                  "a rotate shifts by an amount not reduced modulo 64:\n%s", block);
        cr_assert(strstr(strstr(block, "%lhs, "), ", %amt1;") != NULL, "the first shift is not by the masked amount:\n%s",
                  block);
        blocks++;
    }
    cr_assert(blocks > 0, "ze_atomics_c11's atomics_c11_64 has no 64-bit rotate by a register any more");
}

/* Checked launches on the GPU keep a work-item's refusals in registers and record them once, at the kernel's exit
 * (spirv/bounds.cpp, "Deferred"): refuse_in_loop checks three accesses through its argument, one of them in a loop,
 * and each of its entries (the kernel and its exact-range variant) holds one compare-and-swap, the record's. Checked
 * where each access recorded its own refusal, it held one per access and the loop was not unrolled. On the GPU,
 * test_checks' refusals_in_a_loop_are_named_first_and_counted checks what the record says. */
Test(cuda_ptx, checked_refusals_are_recorded_once_at_the_exit, .timeout = KT_TEST_TIMEOUT) {
    const char *ptx = ptx_of("--bounds-table 0x7f0012345000", "krt_checks.spv");
    int entries = 0;
    for (const char *e = strstr(ptx, ".entry "); e; e = strstr(e + 1, ".entry ")) {
        const char *name_end = strchr(e, '(');
        cr_assert_not_null(name_end);
        if (!memmem(e, (size_t)(name_end - e), "refuse_in_loop", 14)) continue;
        const char *end = strstr(e, "\n}\n");
        cr_assert_not_null(end);
        int cas = 0;
        for (const char *a = strstr(e, "atom.global.cas"); a && a < end; a = strstr(a + 1, "atom.global.cas")) cas++;
        cr_assert_eq(cas, 1, "%.*s holds %d compare-and-swaps, expected the record's one", (int)(name_end - e), e, cas);
        entries++;
    }
    cr_assert(entries > 0, "krt_checks.spv's checked PTX has no entry named refuse_in_loop");
}

/* Garbage is refused as an invalid binary (exit 2 with a log), never a crash. */
/* A kernel named with a character PTX does not allow ("va@dd"; SPIR-V allows any): NVPTX stopped the process
 * ("LLVM ERROR: Symbol name with unsupported characters"). ze_cuda now gives the PTX an internal name
 * (ZP_SPIRV_PTX_NAMES, spirv/names.cpp) and looks the kernel up by it; on the GPU, test_ze_robust's kernel_name
 * tests run the kernel by its own name. */
Test(cuda_ptx, kernel_names_ptx_cannot_hold_are_renamed, .timeout = KT_TEST_TIMEOUT) {
    char out[] = "/tmp/krt_cuda_names_XXXXXX", cmd[2048];
    cr_assert(mkdtemp(out) != NULL);
    snprintf(cmd, sizeof cmd, "'%s/bin/ze_cuda_ptx' '%s/fuzz/vadd_name_with_at.spv' '%s/out.ptx' 2>'%s/log'",
             env_or("KRT_BUILD", "build"), env_or("KRT_TEST_DATA", "test/data"), out, out);
    cr_assert_eq(run(cmd), 0, "ze_cuda_ptx failed on a kernel named va@dd (%s/log)", out);
    snprintf(cmd, sizeof cmd, "grep -q '^.visible .entry va_dd[$]zp[0-9a-f]*($' '%s/out.ptx'", out);
    cr_assert_eq(run(cmd), 0, "the PTX has no entry va_dd$zp<hash> (%s/out.ptx)", out);
    snprintf(cmd, sizeof cmd, "grep -q 'va@dd' '%s/out.ptx'", out);
    cr_assert_neq(run(cmd), 0, "the name va@dd is left in the PTX");
    snprintf(cmd, sizeof cmd, "'%s' -arch=sm_90 '%s/out.ptx' -o /dev/null", ptxas(), out);
    cr_assert_eq(run(cmd), 0, "ptxas refused the PTX of the renamed kernel");
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", out);
    run(cmd);
}

Test(cuda_ptx, garbage_refused) {
    char tmp[] = "/tmp/krt_cuda_bad_XXXXXX";
    int fd = mkstemp(tmp);
    cr_assert(fd >= 0);
    static const unsigned char junk[64] = {0x03, 0x02, 0x23, 0x07, 0, 0, 1, 0, 9, 9, 9, 9};
    cr_assert_eq(write(fd, junk, sizeof junk), (ssize_t)sizeof junk);
    close(fd);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s/bin/ze_cuda_ptx' '%s' /dev/null 2>/dev/null", env_or("KRT_BUILD", "build"), tmp);
    int rc = run(cmd);
    unlink(tmp);
    cr_assert_eq(rc, 2, "ze_cuda_ptx on garbage: exit %d, expected 2", rc);
}

/* The driver through the loader, alone: no NVIDIA driver, no devices, and a clean zeInit. */
Test(cuda_driver, no_devices_without_nvidia_driver) {
    char lib[512];
    snprintf(lib, sizeof lib, "%s/lib/libze_cuda.so", env_or("KRT_BUILD", "build"));
    setenv("ZE_ENABLE_ALT_DRIVERS", lib, 1);
    cr_assert_eq(zeInit(0), ZE_RESULT_SUCCESS);
    uint32_t nd = 0;
    cr_assert_eq(zeDriverGet(&nd, NULL), ZE_RESULT_SUCCESS);
    cr_assert_eq(nd, 1u, "the loader should list ze_cuda as one driver");
    ze_driver_handle_t drv;
    cr_assert_eq(zeDriverGet(&nd, &drv), ZE_RESULT_SUCCESS);
    ze_driver_properties_t dp = {.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES};
    cr_assert_eq(zeDriverGetProperties(drv, &dp), ZE_RESULT_SUCCESS);
    cr_assert(memcmp(dp.uuid.id, "ze_cuda", 7) == 0, "driver UUID should start with ze_cuda");
    uint32_t n = 0;
    cr_assert_eq(zeDeviceGet(drv, &n, NULL), ZE_RESULT_SUCCESS);
    if (have_nvidia_driver())
        cr_assert(n >= 1, "libcuda.so.1 is here but ze_cuda found no device");
    else
        cr_assert_eq(n, 0u, "no NVIDIA driver here, yet ze_cuda reports %u devices", n);
}

/* krt's default driver list (ZE_ENABLE_ALT_DRIVERS unset) holds ze_cuda beside ze_pocl; without an NVIDIA GPU the
 * default device is ze_pocl's CPU, with one the NVIDIA GPU. */
Test(cuda_driver, krt_default_list_falls_back_to_pocl) {
    unsetenv("ZE_ENABLE_ALT_DRIVERS");
    uint32_t n = 0;
    KT_OK(krt_device_list(NULL, &n));
    cr_assert(n >= 1);
    krt_device_info *infos = calloc(n, sizeof *infos);
    cr_assert(infos != NULL);
    KT_OK(krt_device_list(infos, &n));
    int pocl = 0, cuda = 0;
    for (uint32_t i = 0; i < n; i++) {
        pocl += strcmp(infos[i].driver_name, "ze_pocl") == 0;
        cuda += strcmp(infos[i].driver_name, "ze_cuda") == 0;
    }
    cr_assert(pocl >= 1, "ze_pocl's CPU should be listed");
    krt_context *ctx = kt_context(NULL);
    krt_device_info di;
    KT_OK(krt_context_device_info(ctx, &di));
    if (have_nvidia_driver() && cuda > 0) {
        cr_assert_str_eq(di.driver_name, "ze_cuda");
        cr_assert_eq(di.type, KRT_DEVICE_TYPE_GPU);
    } else {
        cr_assert_eq(cuda, 0, "ze_cuda lists devices without an NVIDIA driver");
        cr_assert_str_eq(di.driver_name, "ze_pocl");
        cr_assert_eq(di.type, KRT_DEVICE_TYPE_CPU);
    }
    krt_context_destroy(ctx);
    free(infos);
}

/* The CUDA driver API calls the next test makes itself, as a CUDA program (PyTorch, CuPy) would. */
typedef int (*cu_fn_init)(unsigned);
typedef int (*cu_fn_dev)(int *, int);
typedef int (*cu_fn_retain)(void **, int);
typedef int (*cu_fn_set)(void *);
typedef int (*cu_fn_alloc)(unsigned long long *, size_t);
typedef int (*cu_fn_free)(unsigned long long);
typedef int (*cu_fn_memset)(unsigned long long, unsigned, size_t, void *);

/* krt_queue_native and memory krt did not allocate. Without an NVIDIA GPU the default device is ze_pocl's, which
 * has no native queue. With one: the queue's CUstream, and a kernel of krt's over memory from the program's own
 * cuMemAlloc (no copy), ordered after a cuMemsetD32Async the program put on that stream. */
Test(cuda_driver, native_queue_and_cuda_memory) {
    unsetenv("ZE_ENABLE_ALT_DRIVERS");
    krt_context *ctx = kt_context(NULL);
    krt_device_info di;
    KT_OK(krt_context_device_info(ctx, &di));
    void *native = NULL;
    cr_assert_eq(krt_queue_native(NULL, &native), KRT_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(krt_queue_native(krt_context_default_queue(ctx), NULL), KRT_ERROR_INVALID_ARGUMENT);
    if (strcmp(di.driver_name, "ze_cuda") != 0) {
        cr_assert_eq(krt_queue_native(krt_context_default_queue(ctx), &native), KRT_ERROR_UNSUPPORTED_FEATURE);
        cr_assert(strstr(krt_last_error_message(), "ZE_krt_native_queue") != NULL, "%s", krt_last_error_message());
        cr_assert_null(native);
        krt_context_destroy(ctx);
        return;
    }
    KT_OK(krt_queue_native(krt_context_default_queue(ctx), &native));
    cr_assert_not_null(native);

    void *cu = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(cu);
    cu_fn_init init = (cu_fn_init)dlsym(cu, "cuInit");
    cu_fn_dev dev_get = (cu_fn_dev)dlsym(cu, "cuDeviceGet");
    cu_fn_retain retain = (cu_fn_retain)dlsym(cu, "cuDevicePrimaryCtxRetain");
    cu_fn_set set = (cu_fn_set)dlsym(cu, "cuCtxSetCurrent");
    cu_fn_alloc alloc = (cu_fn_alloc)dlsym(cu, "cuMemAlloc_v2");
    cu_fn_free cfree = (cu_fn_free)dlsym(cu, "cuMemFree_v2");
    cu_fn_memset memset32 = (cu_fn_memset)dlsym(cu, "cuMemsetD32Async");
    cr_assert(init && dev_get && retain && set && alloc && cfree && memset32);
    int dev = 0;
    void *pctx = NULL;
    cr_assert_eq(init(0), 0);
    cr_assert_eq(dev_get(&dev, (int)di.device_index), 0);
    cr_assert_eq(retain(&pctx, dev), 0);
    cr_assert_eq(set(pctx), 0);

    enum { N = 100003 };
    unsigned long long a = 0, b = 0, c = 0;
    cr_assert_eq(alloc(&a, N * sizeof(float)), 0);
    cr_assert_eq(alloc(&b, N * sizeof(float)), 0);
    cr_assert_eq(alloc(&c, N * sizeof(float)), 0);
    float one = 1.0f, two = 2.0f;
    unsigned one_bits, two_bits;
    memcpy(&one_bits, &one, 4);
    memcpy(&two_bits, &two, 4);
    cr_assert_eq(memset32(a, one_bits, N, native), 0);
    cr_assert_eq(memset32(b, two_bits, N, native), 0);

    krt_module *mod = kt_module(ctx, "ze_vadd"); /* vadd(a, b, c): c[i] = a[i] + b[i], no guard */
    krt_kernel *vadd = kt_kernel(mod, "vadd");
    void *pa = (void *)(uintptr_t)a, *pb = (void *)(uintptr_t)b, *pc = (void *)(uintptr_t)c;
    krt_arg args[] = {KRT_ARG(pa), KRT_ARG(pb), KRT_ARG(pc)};
    KT_OK(krt_launch(vadd, &(krt_launch_desc){.range = {1, {N}}, .args = args, .num_args = 3}));
    float *out = malloc(N * sizeof *out);
    cr_assert_not_null(out);
    KT_OK(krt_memcpy_sync(ctx, NULL, out, pc, N * sizeof *out));
    for (int i = 0; i < N; i++) cr_assert_eq(out[i], 3.0f, "c[%d] = %g, expected 3", i, out[i]);
    /* A pointer past the allocation the program made is still refused by name. */
    cr_assert_eq(krt_memcpy_sync(ctx, NULL, out, pc, (N + 64) * sizeof *out), KRT_ERROR_INVALID_ARGUMENT);
    free(out);
    krt_context_destroy(ctx);
    cfree(a);
    cfree(b);
    cfree(c);
    dlclose(cu);
}

/* Issue 39 on an NVIDIA GPU: a kernel that writes 2^40 floats past its buffer. CUDA answers one of its sticky errors
 * (CUDA_ERROR_ILLEGAL_ADDRESS), which ze_cuda makes ZE_RESULT_ERROR_DEVICE_LOST at the first call that sees it and
 * remembers for the device. The wait for the kernel returns KRT_ERROR_DEVICE_LOST naming the device and the kernel;
 * every later call on the context the same (an allocation too, not OUT_OF_DEVICE_MEMORY); while another context on
 * the GPU lives, a new context is refused saying why; once both are destroyed ze_cuda tries to recover the device, and
 * a new context either runs a kernel right or is refused with CUDA's answer (CUDA keeps a sticky error for the life of
 * the process: measured so on an H100). Without an NVIDIA GPU (make test) there is nothing to run: it returns at once,
 * and tools/gpu-test.sh runs it on the GPU machine. */
Test(cuda_fault, a_wild_write_loses_the_device_and_the_device_recovers, .timeout = KT_TEST_TIMEOUT) {
    unsetenv("ZE_ENABLE_ALT_DRIVERS");
    unsetenv("KRT_ZE_FAULT");
    krt_context *ctx = NULL;
    if (!have_nvidia_driver() || krt_context_create(&(krt_context_desc){.device = "nvidia"}, &ctx) != KRT_SUCCESS)
        cr_skip_test("no NVIDIA GPU here (tools/gpu-test.sh runs this on one)");
    krt_context *other = kt_context(&(krt_context_desc){.device = "nvidia"});
    kt_assert_usable(other);
    krt_device_info di;
    KT_OK(krt_context_device_info(ctx, &di));
    cr_assert_str_eq(di.driver_name, "ze_cuda");
    krt_module *m = kt_module(ctx, "krt_fault");
    krt_kernel *wild = kt_kernel(m, "krt_wild_write");
    float *x = kt_alloc(ctx, 1024 * sizeof *x, KRT_MEMORY_DEVICE);
    uint64_t off = (uint64_t)1 << 40;
    krt_arg args[] = {KRT_ARG(x), KRT_ARG(off)};
    KT_EXPECT(krt_launch_sync(wild, &(krt_launch_desc){.range = {1, {1024}}, .args = args, .num_args = 2}),
              KRT_ERROR_DEVICE_LOST);
    char first[2048];
    snprintf(first, sizeof first, "%s", krt_last_error_message());
    cr_assert(strstr(first, "the device was lost") && strstr(first, di.name) && strstr(first, "krt_wild_write"),
              "message: %s", first);
    void *p = NULL;
    KT_EXPECT(krt_alloc(ctx, 1 << 20, NULL, &p), KRT_ERROR_DEVICE_LOST);
    cr_assert_str_eq(krt_last_error_message(), first);
    KT_EXPECT(krt_context_synchronize(ctx), KRT_ERROR_DEVICE_LOST);
    cr_assert_str_eq(krt_last_error_message(), first);
    KT_EXPECT(krt_launch_sync(wild, &(krt_launch_desc){.range = {1, {1024}}, .args = args, .num_args = 2}),
              KRT_ERROR_DEVICE_LOST);
    cr_assert_str_eq(krt_last_error_message(), first);
    /* The other context's next call on the GPU sees the loss too: CUDA's primary context is one per device. */
    KT_EXPECT(krt_alloc(other, 64, NULL, &p), KRT_ERROR_DEVICE_LOST);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
    krt_context *again = NULL;
    KT_EXPECT(krt_context_create(&(krt_context_desc){.device = "nvidia"}, &again), KRT_ERROR_DEVICE_LOST);
    cr_assert(strstr(krt_last_error_message(), "destroy every context on the device"), "%s", krt_last_error_message());
    krt_context_destroy(other);
    /* No context uses the GPU: ze_cuda resets its primary context, or makes one of its own, and proves either with a
     * probe. CUDA may keep the sticky error for the life of the process (cuda.h says a process must end to use CUDA
     * again; on an H100 with driver 580 the reset and a new context both answer CUDA error 700): then the refusal
     * says so with CUDA's answer. Otherwise a new context computes right. */
    krt_result rr = krt_context_create(&(krt_context_desc){.device = "nvidia"}, &again);
    if (rr == KRT_ERROR_DEVICE_LOST) {
        const char *msg = krt_last_error_message();
        cr_assert(strstr(msg, "could not recover it") && strstr(msg, "cuDevicePrimaryCtxReset") &&
                      strstr(msg, "CUDA error"),
                  "%s", msg);
        return;
    }
    KT_OK(rr);
    krt_module *m2 = kt_module(again, "krt_fault");
    uint32_t *out = kt_alloc(again, 1000 * sizeof *out, KRT_MEMORY_DEVICE);
    uint32_t n = 1000, base = 7;
    krt_arg a2[] = {KRT_ARG(out), KRT_ARG(n), KRT_ARG(base)};
    KT_OK(krt_launch_sync(kt_kernel(m2, "krt_after"), &(krt_launch_desc){.range = {1, {1000}}, .args = a2, .num_args = 3}));
    uint32_t host[1000];
    kt_copy_sync(again, host, out, sizeof host);
    for (uint32_t i = 0; i < 1000; i++) cr_assert_eq(host[i], 3 * i + 7, "out[%u] = %u", i, host[i]);
    kt_assert_usable(again);
    krt_module_destroy(m2);
    krt_context_destroy(again);
}

/* krt_driver_list: each driver krt tried and why one has no device (zeKrtDriverStatus, docs/design.md). Each test
 * runs in its own process, so the environment it sets is what zeInit and ze_cuda's start see. */
static const char *lib_path(const char *name, char *buf, size_t size) {
    snprintf(buf, size, "%s/lib/%s", env_or("KRT_BUILD", "build"), name);
    return buf;
}

/* Lists the drivers with ZE_ENABLE_ALT_DRIVERS set to ze_cuda, then ze_pocl; returns ze_cuda's entry. */
static krt_driver_info cuda_and_pocl(void) {
    char cuda[512], pocl[512], list[1100];
    snprintf(list, sizeof list, "%s,%s", lib_path("libze_cuda.so", cuda, sizeof cuda),
             lib_path("libze_pocl.so", pocl, sizeof pocl));
    setenv("ZE_ENABLE_ALT_DRIVERS", list, 1);
    uint32_t n = 0;
    KT_OK(krt_driver_list(NULL, &n));
    cr_assert_eq(n, 3u, "ze_cuda, ze_pocl and the host driver: %u entries", n);
    krt_driver_info d[3];
    memset(d, 0x5a, sizeof d);
    KT_OK(krt_driver_list(d, &n));
    cr_assert_eq(n, 3u);
    cr_assert_str_eq(d[0].name, "ze_cuda");
    cr_assert_str_eq(d[0].path, cuda);
    cr_assert_str_eq(d[1].name, "ze_pocl");
    cr_assert_str_eq(d[1].path, pocl);
    cr_assert_eq(d[1].status, KRT_DRIVER_STATUS_DEVICES);
    cr_assert_eq(d[1].num_devices, 1u);
    cr_assert_str_eq(d[1].reason, "");
    cr_assert_str_eq(d[2].name, "host");
    cr_assert_str_eq(d[2].path, "");
    cr_assert_eq(d[2].status, KRT_DRIVER_STATUS_DEVICES);
    cr_assert_eq(d[2].num_devices, 1u);
    return d[0];
}

static void assert_no_device(const krt_driver_info *d, const char *reason) {
    cr_assert_eq(d->status, KRT_DRIVER_STATUS_NO_DEVICE, "ze_cuda: status %s", krt_driver_status_name(d->status));
    cr_assert_eq(d->num_devices, 0u);
    cr_assert_str_eq(d->reason, reason);
}

/* A device request no device meets ends its message with the drivers that have none, and why. */
static void assert_request_says(const char *device, const char *tail) {
    krt_context *ctx = NULL;
    KT_EXPECT(krt_context_create(&(krt_context_desc){ .device = device }, &ctx), KRT_ERROR_NO_DEVICE);
    cr_assert_null(ctx);
    const char *m = krt_last_error_message();
    size_t lm = strlen(m), lt = strlen(tail);
    cr_assert(lm >= lt && strcmp(m + lm - lt, tail) == 0, "message for \"%s\" does not end in \"%s\": %s", device,
              tail, m);
}

Test(driver_list, cuda_disabled_says_so) {
    setenv("ZE_CUDA_DISABLE", "1", 1);
    krt_driver_info cuda = cuda_and_pocl();
    assert_no_device(&cuda, "ZE_CUDA_DISABLE=1 is set");
    assert_request_says("nvidia", "; drivers with no device: ze_cuda (ZE_CUDA_DISABLE=1 is set)");
    assert_request_says("gpu", "; drivers with no device: ze_cuda (ZE_CUDA_DISABLE=1 is set)");
    /* and the context stays usable on what there is */
    krt_context *ctx = kt_context(&(krt_context_desc){ .device = "cpu" });
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

/* ZE_CUDA_LIBCUDA names a library that is not there, so this holds on a machine with a GPU too. */
Test(driver_list, libcuda_missing_says_so) {
    unsetenv("ZE_CUDA_DISABLE");
    setenv("ZE_CUDA_LIBCUDA", "/nonexistent/krt-test/libcuda.so.1", 1);
    krt_driver_info cuda = cuda_and_pocl();
    assert_no_device(&cuda, "/nonexistent/krt-test/libcuda.so.1 not found: no NVIDIA driver is installed");
    assert_request_says("nvidia", "; drivers with no device: ze_cuda (/nonexistent/krt-test/libcuda.so.1 not found: "
                                  "no NVIDIA driver is installed)");
}

/* With the real libcuda.so.1: its absence is the reason where it is missing (make test), the GPU where it is not. */
Test(driver_list, default_libcuda) {
    unsetenv("ZE_CUDA_DISABLE");
    unsetenv("ZE_CUDA_LIBCUDA");
    krt_driver_info cuda = cuda_and_pocl();
    if (have_nvidia_driver()) {
        cr_assert_eq(cuda.status, KRT_DRIVER_STATUS_DEVICES, "libcuda.so.1 is here: %s", cuda.reason);
        cr_assert_geq(cuda.num_devices, 1u);
        cr_assert_str_eq(cuda.reason, "");
    } else {
        assert_no_device(&cuda, "libcuda.so.1 not found: no NVIDIA driver is installed");
    }
}

/* A library that is not there is NOT_FOUND with the dynamic linker's words; the two-call pattern; no driver at all
 * still gives the list, which is when it helps most. */
Test(driver_list, missing_library_and_two_calls) {
    setenv("ZE_ENABLE_ALT_DRIVERS", "/nonexistent/krt-test/libze_nothing.so", 1);
    KT_EXPECT(krt_driver_list(NULL, NULL), KRT_ERROR_INVALID_ARGUMENT);
    uint32_t n = 0;
    KT_OK(krt_driver_list(NULL, &n));
    cr_assert_eq(n, 2u);
    krt_driver_info d[2];
    n = 1;
    KT_OK(krt_driver_list(d, &n));
    cr_assert_eq(n, 1u, "asked for one entry, got %u", n);
    cr_assert_str_eq(d[0].name, "libze_nothing.so");
    cr_assert_str_eq(d[0].path, "/nonexistent/krt-test/libze_nothing.so");
    cr_assert_eq(d[0].status, KRT_DRIVER_STATUS_NOT_FOUND);
    cr_assert_eq(d[0].num_devices, 0u);
    cr_assert(strstr(d[0].reason, "/nonexistent/krt-test/libze_nothing.so") &&
                  strstr(d[0].reason, "No such file or directory"),
              "%s", d[0].reason);
    n = 2;
    KT_OK(krt_driver_list(d, &n));
    cr_assert_eq(n, 2u);
    cr_assert_str_eq(d[1].name, "host");
    cr_assert_eq(d[1].status, KRT_DRIVER_STATUS_DEVICES);
    krt_context *ctx = NULL;
    KT_EXPECT(krt_context_create(NULL, &ctx), KRT_ERROR_NO_DRIVER);
}

/* krt's default list (the variable unset): the loader's GPU driver names, then ze_cuda and ze_pocl beside libkrt. */
Test(driver_list, default_list) {
    unsetenv("ZE_ENABLE_ALT_DRIVERS");
    setenv("ZE_CUDA_DISABLE", "1", 1);
    uint32_t n = 0;
    KT_OK(krt_driver_list(NULL, &n));
    cr_assert_eq(n, 5u, "%u entries", n);
    krt_driver_info d[5];
    KT_OK(krt_driver_list(d, &n));
    cr_assert_str_eq(d[0].name, "libze_intel_gpu.so.1");
    cr_assert_str_eq(d[1].name, "libze_intel_vpu.so.1");
    cr_assert_str_eq(d[2].name, "ze_cuda");
    assert_no_device(&d[2], "ZE_CUDA_DISABLE=1 is set");
    cr_assert_str_eq(d[3].name, "ze_pocl");
    cr_assert_eq(d[3].status, KRT_DRIVER_STATUS_DEVICES);
    const char *base = strrchr(d[3].path, '/');
    cr_assert(base && strcmp(base, "/libze_pocl.so") == 0, "%s", d[3].path);
    cr_assert_str_eq(d[4].name, "host");
    cr_assert_str_eq(krt_driver_status_name(KRT_DRIVER_STATUS_NO_DEVICE), "no device");
    cr_assert_str_eq(krt_driver_status_name((krt_driver_status)99), "unknown");
}
