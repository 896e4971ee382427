/* ze_pocl's start-up self-check (driver/pocl/selfcheck.c): the verdict it caches per PoCL, what the driver
 * does with each verdict, recovery from a check that ended its process, and the vload/vstore lowering a
 * verdict can select. The driver starts once per process, so each start runs in a child process with
 * KRT_ZE_POCL_CACHE_DIR pointing at a fresh folder; the test edits the cached verdict between starts. */
#include "ze_common.h"

#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

TestSuite(ze_selfcheck, .timeout = ZT_TEST_TIMEOUT);

/* Exit codes of the child starts; anything else is a failure the test names. */
enum { CHILD_OK = 0, CHILD_NO_DEVICE = 10, CHILD_BUILD = 11, CHILD_WRONG = 12, CHILD_LOG = 13, CHILD_API = 14 };

typedef struct {
    ze_driver_handle_t driver;
    ze_device_handle_t device;
    ze_context_handle_t context;
} child_env;

static int child_open(child_env *e) {
    if (zeInit(0) != ZE_RESULT_SUCCESS) return CHILD_NO_DEVICE;
    uint32_t n = 1;
    if (zeDriverGet(&n, &e->driver) != ZE_RESULT_SUCCESS || n == 0) return CHILD_NO_DEVICE;
    n = 1;
    if (zeDeviceGet(e->driver, &n, &e->device) != ZE_RESULT_SUCCESS || n == 0) return CHILD_NO_DEVICE;
    ze_context_desc_t cd = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
    return zeContextCreate(e->driver, &cd, &e->context) == ZE_RESULT_SUCCESS ? CHILD_OK : CHILD_API;
}

static ze_result_t child_module(child_env *e, const char *name, ze_module_handle_t *m, char *log, size_t n) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.spv", getenv("KRT_TEST_KERNELS"), name);
    FILE *f = fopen(path, "rb");
    if (!f) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    static unsigned char buf[1 << 20];
    size_t size = fread(buf, 1, sizeof buf, f);
    fclose(f);
    ze_module_desc_t md = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC, .format = ZE_MODULE_FORMAT_IL_SPIRV,
                           .inputSize = size, .pInputModule = buf};
    ze_module_build_log_handle_t bl = NULL;
    ze_result_t r = zeModuleCreate(e->context, e->device, &md, m, &bl);
    log[0] = 0;
    if (bl) {
        size_t len = n;
        zeModuleBuildLogGetString(bl, &len, log);
        zeModuleBuildLogDestroy(bl);
    }
    return r;
}

static void *child_alloc(child_env *e, size_t size) {
    ze_device_mem_alloc_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    void *p = NULL;
    if (zeMemAllocShared(e->context, &dd, &hd, size, 64, e->device, &p) != ZE_RESULT_SUCCESS) return NULL;
    memset(p, 0, size);
    return p;
}

static int child_launch(child_env *e, ze_kernel_handle_t k, uint32_t group, uint32_t groups) {
    ze_command_queue_desc_t qd = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                  .mode = ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS};
    ze_command_list_handle_t l;
    if (zeCommandListCreateImmediate(e->context, e->device, &qd, &l) != ZE_RESULT_SUCCESS) return CHILD_API;
    ze_group_count_t gc = {groups, 1, 1};
    int rc = CHILD_OK;
    if (zeKernelSetGroupSize(k, group, 1, 1) != ZE_RESULT_SUCCESS ||
        zeCommandListAppendLaunchKernel(l, k, &gc, NULL, 0, NULL) != ZE_RESULT_SUCCESS)
        rc = CHILD_API;
    /* A synchronous immediate list has finished the launch when the append returns. */
    zeCommandListDestroy(l);
    return rc;
}

/* One start: builds test kernel vadd and checks its sums. */
static int child_vadd(void) {
    child_env e;
    int rc = child_open(&e);
    if (rc) return rc;
    ze_module_handle_t m;
    char log[4096];
    if (child_module(&e, "ze_vadd", &m, log, sizeof log) != ZE_RESULT_SUCCESS) return CHILD_BUILD;
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = "vadd"};
    ze_kernel_handle_t k;
    if (zeKernelCreate(m, &kd, &k) != ZE_RESULT_SUCCESS) return CHILD_API;
    enum { N = 1024 };
    float *a = child_alloc(&e, N * 4), *b = child_alloc(&e, N * 4), *c = child_alloc(&e, N * 4);
    if (!a || !b || !c) return CHILD_API;
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = (float)(3 * i);
    }
    if (zeKernelSetArgumentValue(k, 0, sizeof a, &a) || zeKernelSetArgumentValue(k, 1, sizeof b, &b) ||
        zeKernelSetArgumentValue(k, 2, sizeof c, &c))
        return CHILD_API;
    if ((rc = child_launch(&e, k, 64, N / 64))) return rc;
    for (int i = 0; i < N; i++)
        if (c[i] != (float)(4 * i)) return CHILD_WRONG;
    return CHILD_OK;
}

/* One start that must be refused: the module build fails and its log names the PoCL. */
static int child_refused(void) {
    child_env e;
    int rc = child_open(&e);
    if (rc) return rc;
    ze_module_handle_t m = NULL;
    char log[4096];
    ze_result_t r = child_module(&e, "ze_vadd", &m, log, sizeof log);
    if (r != ZE_RESULT_ERROR_MODULE_BUILD_FAILURE || m) return CHILD_BUILD;
    if (!strstr(log, "does not support this PoCL") || !strstr(log, "PoCL ")) return CHILD_LOG;
    const char *want = getenv("ZT_WANT_IN_LOG");
    if (want && !strstr(log, want)) return CHILD_LOG;
    return CHILD_OK;
}

/* One start running test kernel vloadstore, checking every element it writes. */
static int child_vloadstore(void) {
    child_env e;
    int rc = child_open(&e);
    if (rc) return rc;
    ze_module_handle_t m;
    char log[4096];
    if (child_module(&e, "ze_vloadstore", &m, log, sizeof log) != ZE_RESULT_SUCCESS) return CHILD_BUILD;
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = "vloadstore"};
    ze_kernel_handle_t k;
    if (zeKernelCreate(m, &kd, &k) != ZE_RESULT_SUCCESS) return CHILD_API;
    enum { G = 16, GROUPS = 4, N = G * GROUPS };
    float *in = child_alloc(&e, (16 * N + 8) * 4), *o16 = child_alloc(&e, 16 * N * 4), *o3 = child_alloc(&e, 3 * N * 4);
    unsigned char *cin = child_alloc(&e, 4 * N + 2), *cout = child_alloc(&e, 6 * N);
    int64_t *lin = child_alloc(&e, 8 * N * 8), *lout = child_alloc(&e, 8 * N * 8);
    if (!in || !o16 || !o3 || !cin || !cout || !lin || !lout) return CHILD_API;
    for (int i = 0; i < 16 * N + 8; i++) in[i] = (float)(i % 97) - 40.0f;
    for (int i = 0; i < 4 * N + 2; i++) cin[i] = (unsigned char)(i * 29 + 3);
    for (int i = 0; i < 8 * N; i++) lin[i] = (int64_t)i * 1000003 - 77;
    void *ptrs[] = {in, o16, o3, cin, cout, lin, lout};
    for (uint32_t a = 0; a < 7; a++)
        if (zeKernelSetArgumentValue(k, a, sizeof(void *), &ptrs[a]) != ZE_RESULT_SUCCESS) return CHILD_API;
    if (zeKernelSetArgumentValue(k, 7, 8 * G * sizeof(int64_t), NULL) != ZE_RESULT_SUCCESS) return CHILD_API;
    if ((rc = child_launch(&e, k, G, GROUPS))) return rc;
    for (int i = 0; i < 16 * N; i++)
        if (o16[i] != in[i] * 2.0f + 1.0f) return CHILD_WRONG;
    for (int i = 0; i < 3 * N; i++)
        if (o3[i] != in[5 + i] - 1.0f) return CHILD_WRONG;
    for (int i = 0; i < 4 * N; i++)
        if (cout[i] != (unsigned char)(cin[i] ^ 0x5a)) return CHILD_WRONG;
    for (int i = 0; i < 2 * N; i++)
        if (cout[4 * N + i] != (unsigned char)(cin[1 + i] + 1 + i % 2)) return CHILD_WRONG;
    for (int i = 0; i < N; i++) {
        int g = i / G, l = i % G, from = g * G + G - 1 - l;
        for (int j = 0; j < 8; j++)
            if (lout[8 * i + j] != lin[8 * from + j]) return CHILD_WRONG;
    }
    return CHILD_OK;
}

/* Runs fn in a child process whose driver caches its verdict in dir; returns the exit status. */
static int start(const char *dir, int (*fn)(void)) {
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        setenv("KRT_ZE_POCL_CACHE_DIR", dir, 1);
        _exit(fn());
    }
    int st = 0;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 100 + WTERMSIG(st);
}

static char *fresh_dir(void) {
    char *d = strdup("/tmp/krt-selfcheck-XXXXXX");
    cr_assert_not_null(mkdtemp(d));
    return d;
}

/* The one cache file in dir (the driver writes one per PoCL version and build). */
static void entry_path(const char *dir, char *path, size_t n) {
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    int found = 0, temporary = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strncmp(de->d_name, "ze_pocl-check-", 14) != 0) continue;
        if (strstr(de->d_name, ".tmp")) {
            temporary++;
            continue;
        }
        snprintf(path, n, "%s/%s", dir, de->d_name);
        found++;
    }
    closedir(d);
    cr_assert_eq(found, 1, "%d verdict files in %s", found, dir);
    cr_assert_eq(temporary, 0, "%d temporary files left in %s", temporary, dir);
}

typedef struct {
    char key[2048], verdict[256], log[1024];
} entry;

static void entry_read(const char *path, entry *e) {
    memset(e, 0, sizeof *e);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    cr_assert_not_null(fgets(e->key, sizeof e->key, f));
    cr_assert_not_null(fgets(e->verdict, sizeof e->verdict, f));
    size_t got = fread(e->log, 1, sizeof e->log - 1, f);
    e->log[got] = 0;
    fclose(f);
}

static void entry_write(const char *path, const entry *e) {
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "%s%s%s", e->key, e->verdict, e->log);
    fclose(f);
}

static void cleanup(char *dir) {
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
    free(dir);
}

static pid_t dead_pid(void) {
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) _exit(0);
    int st;
    waitpid(pid, &st, 0);
    return pid;
}

Test(ze_selfcheck, verdict_is_cached_once_per_pocl)
{
    char *dir = fresh_dir(), path[1024];
    cr_assert_eq(start(dir, child_vadd), CHILD_OK);
    entry_path(dir, path, sizeof path);
    entry e;
    entry_read(path, &e);
    cr_assert(strncmp(e.key, "rev ", 4) == 0 && strstr(e.key, "PoCL "), "key: %s", e.key);
    unsigned route = 9, flags = 0;
    cr_assert_eq(sscanf(e.verdict, "ok %u %u", &route, &flags), 2, "verdict: %s", e.verdict);
    cr_assert_leq(route, 1);
    /* A warm start reads the verdict and writes nothing (a check would replace the file: new inode). */
    struct stat before, after;
    cr_assert_eq(stat(path, &before), 0);
    cr_assert_eq(start(dir, child_vadd), CHILD_OK);
    cr_assert_eq(stat(path, &after), 0);
    cr_assert_eq(before.st_ino, after.st_ino, "the warm start checked again");
    cleanup(dir);
}

Test(ze_selfcheck, failed_verdict_refuses_modules_naming_the_pocl)
{
    char *dir = fresh_dir(), path[1024];
    cr_assert_eq(start(dir, child_vadd), CHILD_OK);
    entry_path(dir, path, sizeof path);
    entry e;
    entry_read(path, &e);
    snprintf(e.verdict, sizeof e.verdict, "fail 0 0 0 0 0\n");
    snprintf(e.log, sizeof e.log, "ze_pocl does not support this PoCL (OpenCL 3.0 PoCL 0.0 test): a test said so");
    entry_write(path, &e);
    cr_assert_eq(start(dir, child_refused), CHILD_OK);
    cleanup(dir);
}

Test(ze_selfcheck, check_that_ended_its_process_is_retried_once_then_skipped)
{
    char *dir = fresh_dir(), path[1024];
    cr_assert_eq(start(dir, child_vadd), CHILD_OK);
    entry_path(dir, path, sizeof path);
    entry e;
    entry_read(path, &e);
    unsigned route, flags;
    cr_assert_eq(sscanf(e.verdict, "ok %u %u", &route, &flags), 2);
    /* Candidate 0 began once in a process now gone: the next start tries it again. */
    snprintf(e.verdict, sizeof e.verdict, "running 0 0 0 1 %ld\n", (long)dead_pid());
    e.log[0] = 0;
    entry_write(path, &e);
    cr_assert_eq(start(dir, child_vadd), CHILD_OK);
    entry again;
    entry_read(path, &again);
    unsigned r2, f2;
    cr_assert_eq(sscanf(again.verdict, "ok %u %u", &r2, &f2), 2, "verdict: %s", again.verdict);
    cr_assert_eq(f2, flags);
    /* Twice gone: the next start moves on to candidate 1, the same with vload/vstore lowered (flag 32) on a
     * PoCL without SPIR-V input. */
    snprintf(e.verdict, sizeof e.verdict, "running 0 0 0 2 %ld\n", (long)dead_pid());
    entry_write(path, &e);
    cr_assert_eq(start(dir, child_vadd), CHILD_OK);
    entry_read(path, &again);
    cr_assert_eq(sscanf(again.verdict, "ok %u %u", &r2, &f2), 2, "verdict: %s", again.verdict);
    if (route == 0)
        cr_assert_eq(f2, flags | 32, "flags %u after skipping candidate 0 (flags %u)", f2, flags);
    cleanup(dir);
}

Test(ze_selfcheck, vload_vstore_exact_as_translated_and_lowered)
{
    char *dir = fresh_dir(), path[1024];
    cr_assert_eq(start(dir, child_vloadstore), CHILD_OK);
    entry_path(dir, path, sizeof path);
    entry e;
    entry_read(path, &e);
    unsigned route, flags;
    cr_assert_eq(sscanf(e.verdict, "ok %u %u", &route, &flags), 2);
    /* The same kernel with the lowering forced on, where this PoCL did not need it. */
    if (!(flags & 32)) {
        snprintf(e.verdict, sizeof e.verdict, "ok %u %u 0 0 0\n", route, flags | 32);
        entry_write(path, &e);
        cr_assert_eq(start(dir, child_vloadstore), CHILD_OK);
    }
    cleanup(dir);
}

Test(ze_selfcheck, no_candidate_left_gives_an_error_naming_the_pocl)
{
    char *dir = fresh_dir(), path[1024];
    cr_assert_eq(start(dir, child_vadd), CHILD_OK);
    entry_path(dir, path, sizeof path);
    entry e;
    entry_read(path, &e);
    /* The key's second field is the platform version the driver puts in its message. */
    char version[512] = "";
    const char *v = strstr(e.key, " | ");
    cr_assert_not_null(v);
    snprintf(version, sizeof version, "%.*s", (int)(strstr(v + 3, " | ") - (v + 3)), v + 3);
    cr_assert(strstr(version, "PoCL "), "version: %s", version);
    /* The last candidate (and any past it) ended two starts: nothing is left to try. */
    snprintf(e.verdict, sizeof e.verdict, "running 0 0 99 2 %ld\n", (long)dead_pid());
    e.log[0] = 0;
    entry_write(path, &e);
    char want[600];
    snprintf(want, sizeof want, "ze_pocl does not support this PoCL (%s)", version);
    setenv("ZT_WANT_IN_LOG", want, 1);
    cr_assert_eq(start(dir, child_refused), CHILD_OK);
    /* The failure is cached: the next start is refused the same way without checking. */
    entry after;
    entry_read(path, &after);
    cr_assert(strncmp(after.verdict, "fail", 4) == 0, "verdict: %s", after.verdict);
    cr_assert(strstr(after.log, "aborted the process"), "log: %s", after.log);
    cr_assert_eq(start(dir, child_refused), CHILD_OK);
    unsetenv("ZT_WANT_IN_LOG");
    cleanup(dir);
}

/* Processes starting at once with no verdict each run the check; the renames leave one whole entry, no
 * temporary file, and every process gets the same exact results. */
Test(ze_selfcheck, concurrent_cold_starts_agree)
{
    char *dir = fresh_dir(), path[1024];
    enum { N = 4 };
    pid_t pids[N];
    fflush(NULL);
    for (int i = 0; i < N; i++) {
        pids[i] = fork();
        cr_assert_geq(pids[i], 0);
        if (pids[i] == 0) {
            setenv("KRT_ZE_POCL_CACHE_DIR", dir, 1);
            _exit(child_vadd());
        }
    }
    for (int i = 0; i < N; i++) {
        int st = 0;
        cr_assert_eq(waitpid(pids[i], &st, 0), pids[i]);
        cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == CHILD_OK, "start %d: status 0x%x", i, st);
    }
    entry_path(dir, path, sizeof path);
    entry e;
    entry_read(path, &e);
    cr_assert(strncmp(e.verdict, "ok ", 3) == 0, "verdict: %s", e.verdict);
    cleanup(dir);
}

/* A cold start runs the check itself: every construct (fill, atomics, async copies) in one run, whose buffers
 * are kept in a table of fixed size. The verdict must be ok, and the same candidate run alone with every check
 * (the ze_pocl_selfcheck tool, built from the driver's objects: in `make sanitize` it is instrumented too) must
 * be exact. With a table too small for one run, the run fails saying so instead of writing past it. */
Test(ze_selfcheck, cold_start_runs_every_check_in_one_run)
{
    char *dir = fresh_dir(), path[1024];
    cr_assert_eq(start(dir, child_vadd), CHILD_OK);
    entry_path(dir, path, sizeof path);
    entry e;
    entry_read(path, &e);
    unsigned route = 9, flags = 0;
    cr_assert_eq(sscanf(e.verdict, "ok %u %u", &route, &flags), 2, "verdict: %s", e.verdict);
    cr_assert(e.log[0], "the verdict names no candidate");
    char cmd[2048], out[2048] = "";
    snprintf(cmd, sizeof cmd, "KRT_ZE_POCL_CACHE_DIR='%s' '%s/bin/ze_pocl_selfcheck' %u %u 7 2>&1", dir,
             getenv("KRT_BUILD"), route, flags);
    fflush(NULL);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t got = fread(out, 1, sizeof out - 1, p);
    out[got] = 0;
    int st = pclose(p);
    char want[64];
    snprintf(want, sizeof want, "route %u flags %u which 7: ok", route, flags);
    cr_assert(strstr(out, want), "%s: %s", cmd, out);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status 0x%x: %s", cmd, st, out);
    cleanup(dir);
}
