/*
 * module_load: time and memory to load a SPIR-V module of ten kernels (bench/kernels/bench_ten.cl) and
 * resolve all ten kernels.
 *   cold:         the first load in a fresh process (each sample is a new process), PoCL's on-disk kernel cache
 *                 as the previous runs left it (warm after the first run on a machine);
 *   cold, no cache: the same with POCL_KERNEL_CACHE=0, so PoCL compiles everything: a first run on a fresh
 *                 machine;
 *   warm:         the module destroyed and loaded again in the same process;
 *   warm raw L0:  zeModuleCreate + ten zeKernelCreate on the same driver, the floor under krt's validation and
 *                 reflection.
 * Memory: the interposer library bench/alloc_count.c (liballoc_count.so, linked first) wraps malloc, calloc,
 * realloc and the aligned allocators to count the bytes and the calls made during a load by every library in
 * the process (krt, the loader, ze_pocl, PoCL, LLVM); mallinfo2() before and after gives the bytes still held
 * once the load returns.
 *
 * Usage: module_load [--cold N] [--cold-nocache N] [--warm N] [--out DIR]
 */
#include "bench_util.h"

#include <krt.h>
#include <level_zero/ze_api.h>

#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------------------------ */
/* Allocation counting: bench/alloc_count.c, an interposer library this program is linked with (first, so its
 * malloc is the one every library in the process calls); the program itself defines no C library function. */

#include "alloc_count.h"

static size_t held_bytes(void)
{
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
}

/* ------------------------------------------------------------------------------------------------------ */

typedef struct sample {
    double ms;
    uint64_t bytes, calls;
    int64_t held;
} sample;

static const char *module_path(void)
{
    return bench_path(bench_kernel_dir(), "bench_ten.spv");
}

/* One load: module create and every kernel resolved. */
static sample krt_load(krt_context *ctx, krt_module **out, krt_validation validation)
{
    sample s;
    krt_module_desc md = {.path = module_path(), .validation = validation};
    size_t h0 = held_bytes();
    alloc_count_start();
    uint64_t t0 = bench_now_ns();
    KRT_CHECK(krt_module_create(ctx, &md, out));
    const char *names[16];
    uint32_t n = 16;
    KRT_CHECK(krt_module_kernel_names(*out, names, &n));
    for (uint32_t i = 0; i < n; i++) {
        krt_kernel *k;
        KRT_CHECK(krt_kernel_get(*out, names[i], &k));
    }
    uint64_t t1 = bench_now_ns();
    alloc_count_stop(&s.bytes, &s.calls);
    s.held = (int64_t)held_bytes() - (int64_t)h0;
    s.ms = (double)(t1 - t0) / 1e6;
    if (n != 10)
        bench_die("bench_ten.spv has %u kernels, expected 10", n);
    return s;
}

/* The child of a cold sample: prints "ctx_ms load_ms bytes calls held" and exits. */
static int child_main(void)
{
    krt_context *ctx;
    uint64_t t0 = bench_now_ns();
    KRT_CHECK(krt_context_create(NULL, &ctx));
    double ctx_ms = (double)(bench_now_ns() - t0) / 1e6;
    krt_module *m;
    sample s = krt_load(ctx, &m, KRT_VALIDATION_DEFAULT);
    printf("%.3f %.3f %llu %llu %lld\n", ctx_ms, s.ms, (unsigned long long)s.bytes, (unsigned long long)s.calls,
           (long long)s.held);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
    return 0;
}

/* Runs this program as a cold child, with POCL_KERNEL_CACHE=0 when nocache is set. */
static int cold_sample(int nocache, double *ctx_ms, sample *s)
{
    char buf[512];
    char *argv[] = {"module_load", "--child", NULL};
    if (bench_run_self(argv, nocache ? "POCL_KERNEL_CACHE" : NULL, "0", buf, sizeof buf) != 0)
        return -1;
    unsigned long long b, c;
    long long h;
    if (sscanf(buf, "%lf %lf %llu %llu %lld", ctx_ms, &s->ms, &b, &c, &h) != 5)
        return -1;
    s->bytes = b;
    s->calls = c;
    s->held = h;
    return 0;
}

/* The raw Level Zero floor: what ze_pocl alone costs for the same module and kernels. */
static sample ze_load(void)
{
    sample s = {0};
    uint32_t n = 1;
    ze_driver_handle_t drv;
    ze_device_handle_t dev;
    if (zeInit(0) || zeDriverGet(&n, &drv) || (n = 1, zeDeviceGet(drv, &n, &dev)))
        bench_die("Level Zero initialisation failed");
    ze_context_handle_t ctx;
    ze_context_desc_t cd = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
    if (zeContextCreate(drv, &cd, &ctx))
        bench_die("zeContextCreate failed");
    size_t size;
    void *spv = bench_read_file(module_path(), &size);
    static const char *const names[10] = {"t0_copy", "t1_scale", "t2_axpy", "t3_iota", "t4_square",
                                          "t5_clamp", "t6_sum2d", "t7_partial_sum", "t8_count", "t9_affine"};
    size_t h0 = held_bytes();
    alloc_count_start();
    uint64_t t0 = bench_now_ns();
    ze_module_desc_t md = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC, .format = ZE_MODULE_FORMAT_IL_SPIRV,
                           .inputSize = size, .pInputModule = spv, .pBuildFlags = ""};
    ze_module_handle_t mod;
    if (zeModuleCreate(ctx, dev, &md, &mod, NULL))
        bench_die("zeModuleCreate failed");
    ze_kernel_handle_t k[10];
    for (int i = 0; i < 10; i++) {
        ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = names[i]};
        if (zeKernelCreate(mod, &kd, &k[i]))
            bench_die("zeKernelCreate %s failed", names[i]);
    }
    uint64_t t1 = bench_now_ns();
    alloc_count_stop(&s.bytes, &s.calls);
    s.held = (int64_t)held_bytes() - (int64_t)h0;
    s.ms = (double)(t1 - t0) / 1e6;
    for (int i = 0; i < 10; i++)
        zeKernelDestroy(k[i]);
    zeModuleDestroy(mod);
    zeContextDestroy(ctx);
    free(spv);
    return s;
}

/* One fork of the whole process and the wait for a child that exits at once. */
static sample fork_wait(void)
{
    sample s = {0};
    fflush(stdout);
    alloc_count_start();
    uint64_t t0 = bench_now_ns();
    pid_t pid = fork();
    if (pid < 0)
        bench_die("fork failed");
    if (pid == 0)
        _exit(0);
    int st;
    waitpid(pid, &st, 0);
    uint64_t t1 = bench_now_ns();
    alloc_count_stop(&s.bytes, &s.calls);
    s.ms = (double)(t1 - t0) / 1e6;
    return s;
}

typedef struct row {
    const char *name;
    int n;
    double ctx_ms, ms, ms_min;
    double bytes, calls, held;
} row;

static row summarize(const char *name, const sample *s, const double *ctx_ms, int n)
{
    row r = {.name = name, .n = n};
    double v[256] = {0};
    for (int i = 0; i < n; i++)
        v[i] = s[i].ms;
    r.ms = bench_median(v, (size_t)n);
    r.ms_min = bench_min(v, (size_t)n);
    for (int i = 0; i < n; i++)
        v[i] = (double)s[i].bytes;
    r.bytes = bench_median(v, (size_t)n);
    for (int i = 0; i < n; i++)
        v[i] = (double)s[i].calls;
    r.calls = bench_median(v, (size_t)n);
    for (int i = 0; i < n; i++)
        v[i] = (double)s[i].held;
    r.held = bench_median(v, (size_t)n);
    if (ctx_ms)
        r.ctx_ms = bench_median(ctx_ms, (size_t)n);
    else
        r.ctx_ms = -1;
    return r;
}

static const char usage[] =
    "usage: module_load [--cold N] [--cold-nocache N] [--warm N] [--out DIR]\n"
    "Environment: ZE_ENABLE_ALT_DRIVERS (the ze_pocl driver), KRT_BENCH_KERNELS (build/bench/kernels).\n";
static const char *const known_opts[] = {"cold", "cold-nocache", "warm", "out", "child", NULL};

int main(int argc, char **argv)
{
    bench_usage(argc, argv, usage, known_opts);
    if (bench_opt_flag(argc, argv, "child"))
        return child_main();
    int ncold = (int)bench_opt_long(argc, argv, "cold", 5);
    int nnocache = (int)bench_opt_long(argc, argv, "cold-nocache", 2);
    int nwarm = (int)bench_opt_long(argc, argv, "warm", 20);
    const char *out = bench_opt_str(argc, argv, "out", "build/bench");
    if (ncold < 0 || ncold > 200 || nnocache < 0 || nnocache > 200 || nwarm < 1 || nwarm > 200)
        bench_die("bad options");

    row rows[6];
    int nrows = 0;
    sample s[256];
    double cms[256];

    /* The cache-off runs go first so that the normal cold runs find PoCL's disk cache filled by them. */
    int got = 0;
    for (int i = 0; i < nnocache; i++)
        if (cold_sample(1, &cms[got], &s[got]) == 0)
            got++;
    if (got)
        rows[nrows++] = summarize("cold process (PoCL cache off)", s, cms, got);
    /* One untimed run fills PoCL's disk cache (runs with the cache off leave it as it was). */
    double prime_ms;
    sample prime;
    if (ncold > 0)
        cold_sample(0, &prime_ms, &prime);
    got = 0;
    for (int i = 0; i < ncold; i++)
        if (cold_sample(0, &cms[got], &s[got]) == 0)
            got++;
    if (got)
        rows[nrows++] = summarize("cold process (PoCL cache warm)", s, cms, got);
    if (got < ncold)
        fprintf(stderr, "module_load: %d of %d cold runs failed\n", ncold - got, ncold);

    krt_context *ctx;
    KRT_CHECK(krt_context_create(NULL, &ctx));
    krt_module *m;
    krt_load(ctx, &m, KRT_VALIDATION_DEFAULT); /* the first load of a process is cold: not counted as warm */
    krt_module_destroy(m);
    for (int i = 0; i < nwarm; i++) {
        s[i] = krt_load(ctx, &m, KRT_VALIDATION_DEFAULT);
        krt_module_destroy(m);
    }
    rows[nrows++] = summarize("warm krt (same process)", s, NULL, nwarm);
    int krt_row = nrows - 1;
    /* The same without SPIRV-Tools validation (parse and reflection only): the validator's share. */
    for (int i = 0; i < nwarm; i++) {
        s[i] = krt_load(ctx, &m, KRT_VALIDATION_NONE);
        krt_module_destroy(m);
    }
    rows[nrows++] = summarize("warm krt (validation NONE)", s, NULL, nwarm);
    for (int i = 0; i < nwarm; i++)
        s[i] = ze_load();
    rows[nrows++] = summarize("warm raw Level Zero", s, NULL, nwarm);
    /* What containing each module build in a child process would add at the very least (issue 8, see
     * docs/driver.md "Modules"): fork this process, with krt, ze_pocl, PoCL and LLVM loaded and PoCL's threads
     * running, and wait for a child that exits at once. */
    for (int i = 0; i < nwarm; i++)
        s[i] = fork_wait();
    rows[nrows++] = summarize("fork + wait, no build (containment floor)", s, NULL, nwarm);
    krt_context_destroy(ctx);

    FILE *csv = bench_csv_open(out, "module_load.csv");
    fprintf(csv, "variant,samples,context_ms,load_ms,load_min_ms,bytes_allocated,allocations,bytes_held\n");
    const char *cells[7 * 7];
    static char buf[7 * 7][48];
    const char *hdr[7] = {"variant", "samples", "context ms", "load ms (median)", "load ms (min)",
                          "bytes allocated", "malloc calls"};
    for (int c = 0; c < 7; c++)
        cells[c] = hdr[c];
    for (int r = 0; r < nrows; r++) {
        const char **row = cells + (r + 1) * 7;
        char(*b)[48] = buf + (r + 1) * 7;
        row[0] = rows[r].name;
        snprintf(b[1], 48, "%d", rows[r].n);
        row[1] = b[1];
        if (rows[r].ctx_ms >= 0)
            snprintf(b[2], 48, "%.1f", rows[r].ctx_ms);
        else
            snprintf(b[2], 48, "-");
        row[2] = b[2];
        snprintf(b[3], 48, "%.2f", rows[r].ms);
        row[3] = b[3];
        snprintf(b[4], 48, "%.2f", rows[r].ms_min);
        row[4] = b[4];
        snprintf(b[5], 48, "%.0f", rows[r].bytes);
        row[5] = b[5];
        snprintf(b[6], 48, "%.0f", rows[r].calls);
        row[6] = b[6];
        fprintf(csv, "\"%s\",%d,%.3f,%.3f,%.3f,%.0f,%.0f,%.0f\n", rows[r].name, rows[r].n, rows[r].ctx_ms,
                rows[r].ms, rows[r].ms_min, rows[r].bytes, rows[r].calls, rows[r].held);
    }
    fclose(csv);
    bench_table_emit(out, "module_load.md",
                     "module_load: 10-kernel module, krt_module_create + 10 x krt_kernel_get (bytes and calls: "
                     "every allocation in the process during the load)",
                     7, nrows + 1, cells);
    printf("bytes held by a loaded module after a warm krt load (mallinfo2 delta): %.0f\n", rows[krt_row].held);
    return 0;
}
