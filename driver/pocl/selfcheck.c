/* PoCL backend: the start-up self-check. ze_pocl translates SPIR-V for PoCL and depends on how PoCL's kernel
 * library names and implements builtins, which changes between PoCL releases (a build that was right on
 * PoCL 3.1 computed wrong fills and atomics on 5.0 without any error). So before the first module is built,
 * the constructs ze_pocl translates run once with exact expected results (selfcheck.cl): a by-value pattern
 * fill through vstore16 into private memory with by-value char arguments, global and local atomics with
 * barriers, async copies with wait_group_events and a mem_fence. Candidates (route and rewrites, in order
 * of preference) are tried until one is exact; the verdict is cached on disk per PoCL version and build,
 * so later starts only read one small file. With no candidate exact, no module is built and the build log
 * names the PoCL version and what was wrong: never a wrong result. */
#include <errno.h>
#include <fcntl.h>
#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pocl_be.h"
#include "../../common/fnv.h"
#include "pocl_rewrites.h"

/* selfcheck.spv, embedded by selfcheck_spv.S. */
extern const uint8_t zp_selfcheck_spv[], zp_selfcheck_spv_end[];

/* Bump when the check kernels, the candidates or the rewrites change: cached verdicts of older revisions
 * are then ignored. */
#define ZP_CHECK_REVISION 1

/* The buffers of one run, freed at its end: the fill takes 2, the atomics 4, the async copies 2. A check that
 * asks for more than ZP_CHECK_BUFS gets none, and the run fails saying so (full), rather than writing past
 * the table. */
#define ZP_CHECK_BUFS 8
typedef struct {
    cl_command_queue q;
    void *bufs[ZP_CHECK_BUFS];
    size_t nbufs;
    int full;
} run_state;

static void *svm(run_state *st, size_t size) {
    if (st->nbufs == ZP_CHECK_BUFS) {
        st->full = 1;
        return NULL;
    }
    void *p = clSVMAlloc(zp_cl_ctx, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, size, 128);
    if (p) {
        memset(p, 0, size);
        st->bufs[st->nbufs++] = p;
    }
    return p;
}

static int launch(run_state *st, cl_kernel k, size_t global, size_t local, char *why, size_t n, const char *what) {
    cl_int err = clEnqueueNDRangeKernel(st->q, k, 1, NULL, &global, &local, 0, NULL, NULL);
    if (err == CL_SUCCESS) err = clFinish(st->q);
    if (err != CL_SUCCESS) {
        snprintf(why, n, "%s: launch failed (OpenCL error %d)", what, (int)err);
        return -1;
    }
    return 0;
}

enum { FILL_N = 512, ATOM_N = 1024, ATOM_G = 64, ASYNC_N = 512, ASYNC_G = 32 };

static int check_fill(run_state *st, cl_program prog, char *why, size_t n) {
    cl_int err;
    cl_kernel k = clCreateKernel(prog, "zp_check_fill", &err);
    if (!k) {
        snprintf(why, n, "fill: no kernel (OpenCL error %d)", (int)err);
        return -1;
    }
    uint64_t *words = svm(st, FILL_N * 8);
    uint8_t *bytes = svm(st, FILL_N);
    int rc = -1;
    if (!words || !bytes) {
        snprintf(why, n, "fill: out of memory");
        goto out;
    }
    /* A pattern of 32 distinct bytes, period 4 words; uchar 0x5a and char -0x3c beside it. */
    uint64_t pattern[16];
    uint8_t *pb = (uint8_t *)pattern;
    for (int i = 0; i < 128; i++) pb[i] = (uint8_t)(0x12 + 7 * (i % 32));
    cl_uint period = 4;
    cl_uchar u = 0x5a;
    cl_char c = -0x3c;
    clSetKernelArgSVMPointer(k, 0, words);
    clSetKernelArgSVMPointer(k, 1, bytes);
    clSetKernelArg(k, 2, sizeof pattern, pattern);
    clSetKernelArg(k, 3, sizeof period, &period);
    clSetKernelArg(k, 4, sizeof u, &u);
    clSetKernelArg(k, 5, sizeof c, &c);
    if (launch(st, k, FILL_N, 64, why, n, "fill") != 0) goto out;
    for (int i = 0; i < FILL_N; i++) {
        if (words[i] != pattern[i % period]) {
            snprintf(why, n, "by-value pattern fill: word %d is 0x%016llx, expected 0x%016llx", i,
                     (unsigned long long)words[i], (unsigned long long)pattern[i % period]);
            goto out;
        }
        uint8_t want = (uint8_t)(pb[i % 128] ^ u ^ (uint8_t)c);
        if (bytes[i] != want) {
            snprintf(why, n, "by-value pattern fill with char arguments: byte %d is 0x%02x, expected 0x%02x", i,
                     bytes[i], want);
            goto out;
        }
    }
    rc = 0;
out:
    clReleaseKernel(k);
    return rc;
}

static int check_atomics(run_state *st, cl_program prog, char *why, size_t n) {
    cl_int err;
    cl_kernel k = clCreateKernel(prog, "zp_check_atomics", &err);
    if (!k) {
        snprintf(why, n, "atomics: no kernel (OpenCL error %d)", (int)err);
        return -1;
    }
    uint8_t *data = svm(st, ATOM_N);
    uint32_t *bins = svm(st, 32 * 4);
    uint32_t *sums = svm(st, 2 * 4);
    int32_t *ext = svm(st, 2 * 4);
    int rc = -1;
    if (!data || !bins || !sums || !ext) {
        snprintf(why, n, "atomics: out of memory");
        goto out;
    }
    uint32_t want_bins[16] = {0}, want_sum = 0;
    int32_t want_max = 0;
    for (int i = 0; i < ATOM_N; i++) {
        data[i] = (uint8_t)((i * 37 + i / 7) & 0xff);
        want_bins[data[i] & 15]++;
        want_sum += data[i];
        if (data[i] > want_max) want_max = data[i];
    }
    ext[0] = -1;
    ext[1] = -1;
    clSetKernelArgSVMPointer(k, 0, data);
    clSetKernelArgSVMPointer(k, 1, bins);
    clSetKernelArgSVMPointer(k, 2, sums);
    clSetKernelArgSVMPointer(k, 3, ext);
    if (launch(st, k, ATOM_N, ATOM_G, why, n, "atomics") != 0) goto out;
    for (int b = 0; b < 16; b++) {
        if (bins[b] != want_bins[b]) {
            snprintf(why, n, "local atomics (atomic_inc on __local between barriers, then atomic_add): bin %d is "
                     "%u, expected %u", b, bins[b], want_bins[b]);
            goto out;
        }
        if (bins[16 + b] != want_bins[b]) {
            snprintf(why, n, "global atomic_inc: bin %d is %u, expected %u", b, bins[16 + b], want_bins[b]);
            goto out;
        }
    }
    if (sums[0] != want_sum) {
        snprintf(why, n, "global atomic_add: sum %u, expected %u", sums[0], want_sum);
        goto out;
    }
    if (ext[0] != want_max) {
        snprintf(why, n, "global atomic_max: %d, expected %d", ext[0], want_max);
        goto out;
    }
    if (ext[1] < 0 || ext[1] >= ATOM_N || sums[1] != ATOM_N - 1) {
        snprintf(why, n, "global atomic_cmpxchg: winner %d and %u losers, expected one winner and %d losers",
                 ext[1], sums[1], ATOM_N - 1);
        goto out;
    }
    rc = 0;
out:
    clReleaseKernel(k);
    return rc;
}

static int check_async(run_state *st, cl_program prog, char *why, size_t n) {
    cl_int err;
    cl_kernel k = clCreateKernel(prog, "zp_check_async", &err);
    if (!k) {
        snprintf(why, n, "async copies: no kernel (OpenCL error %d)", (int)err);
        return -1;
    }
    int32_t *in = svm(st, ASYNC_N * 4);
    int32_t *out = svm(st, ASYNC_N * 4);
    int rc = -1;
    if (!in || !out) {
        snprintf(why, n, "async copies: out of memory");
        goto done;
    }
    for (int i = 0; i < ASYNC_N; i++) in[i] = (i * 13) % 251 - 100;
    clSetKernelArgSVMPointer(k, 0, in);
    clSetKernelArgSVMPointer(k, 1, out);
    clSetKernelArg(k, 2, ASYNC_G * sizeof(int32_t), NULL);
    if (launch(st, k, ASYNC_N, ASYNC_G, why, n, "async copies") != 0) goto done;
    for (int i = 0; i < ASYNC_N; i++) {
        int g = i / ASYNC_G, l = i % ASYNC_G;
        int32_t want = in[g * ASYNC_G + ASYNC_G - 1 - l] * 3 + 1;
        if (out[i] != want) {
            snprintf(why, n, "async_work_group_copy / wait_group_events / barrier / mem_fence: item %d is %d, "
                     "expected %d", i, out[i], want);
            goto done;
        }
    }
    rc = 0;
done:
    clReleaseKernel(k);
    return rc;
}

int zp_pocl_selfcheck_run(cl_device_id dev, uint32_t route, unsigned rewrites, unsigned which, char *why, size_t n) {
    zp_module_src src;
    memset(&src, 0, sizeof src);
    src.spirv = zp_selfcheck_spv;
    src.size = (size_t)(zp_selfcheck_spv_end - zp_selfcheck_spv);
    src.fp64 = src.int64_atomics = src.fp16 = false;
    cl_program prog = NULL;
    zp_module_meta meta = {0};
    char *log = NULL;
    ze_result_t r = zp_pocl_program_build(dev, &src, route, rewrites, &prog, &meta, &log);
    if (r != ZE_RESULT_SUCCESS) {
        snprintf(why, n, "the check module does not build: %s", log ? log : "(no log)");
        free(log);
        return -1;
    }
    free(log);
    zp_spirv_meta_free(&meta);
    run_state st;
    memset(&st, 0, sizeof st);
    cl_int err;
    st.q = clCreateCommandQueueWithProperties(zp_cl_ctx, dev, NULL, &err);
    int rc = -1;
    if (!st.q) {
        snprintf(why, n, "no queue (OpenCL error %d)", (int)err);
    } else {
        rc = 0;
        if (rc == 0 && (which & ZP_CHECK_FILL)) rc = check_fill(&st, prog, why, n);
        if (rc == 0 && (which & ZP_CHECK_ATOMICS)) rc = check_atomics(&st, prog, why, n);
        if (rc == 0 && (which & ZP_CHECK_ASYNC)) rc = check_async(&st, prog, why, n);
        if (st.full) snprintf(why, n, "the self-check needs more than its %d buffers", ZP_CHECK_BUFS);
        clFinish(st.q);
        clReleaseCommandQueue(st.q);
    }
    for (size_t i = 0; i < st.nbufs; i++) clSVMFree(zp_cl_ctx, st.bufs[i]);
    clReleaseProgram(prog);
    return rc;
}

/* ---- the cache ---- */

/* The PoCL library this process loaded, for the cache key: a rebuilt PoCL with an unchanged version
 * string is another file. */
static int find_pocl(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    if (info->dlpi_name && strstr(info->dlpi_name, "libpocl")) {
        snprintf((char *)data, 512, "%s", info->dlpi_name);
        return 1;
    }
    return 0;
}

static void file_id(const char *path, long long *size, long long *mtime) {
    struct stat sb;
    *size = *mtime = 0;
    if (path[0] && stat(path, &sb) == 0) {
        *size = (long long)sb.st_size;
        *mtime = (long long)sb.st_mtime;
    }
}

/* The key names this PoCL (versions and library file) and this driver's own file, so a rebuilt ze_pocl
 * (other kernels, rewrites or candidates) checks again too. Its longest (two 255-byte versions, two 511-byte
 * paths, four numbers) fits ZP_CHECK_KEY_MAX, and a line of it fits cache_read's line buffer. */
#define ZP_CHECK_KEY_MAX 1700
static void cache_key(const zp_pocl_caps *caps, char *key, size_t n) {
    char lib[512] = "", self[512] = "";
    dl_iterate_phdr(find_pocl, lib);
    Dl_info di;
    if (dladdr((void *)zp_pocl_selfcheck, &di) && di.dli_fname) snprintf(self, sizeof self, "%s", di.dli_fname);
    long long size, mtime, ssize, smtime;
    file_id(lib, &size, &mtime);
    file_id(self, &ssize, &smtime);
    int w = snprintf(key, n, "rev %d | %s | %s | %s %lld %lld | %s %lld %lld", ZP_CHECK_REVISION, caps->version,
                     caps->device, lib, size, mtime, self, ssize, smtime);
    if (w < 0) key[0] = 0; /* an empty key matches no entry: the check runs */
    for (char *p = key; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
}

/* $KRT_ZE_POCL_CACHE_DIR, else $XDG_CACHE_HOME/krt, else $HOME/.cache/krt; created when missing. */
static int cache_path(const char *key, char *path, size_t n) {
    const char *dir = getenv("KRT_ZE_POCL_CACHE_DIR");
    char base[512];
    if (dir && dir[0]) {
        snprintf(base, sizeof base, "%s", dir);
    } else if ((dir = getenv("XDG_CACHE_HOME")) && dir[0]) {
        snprintf(base, sizeof base, "%s/krt", dir);
    } else if ((dir = getenv("HOME")) && dir[0]) {
        snprintf(base, sizeof base, "%s/.cache", dir);
        mkdir(base, 0755);
        snprintf(base, sizeof base, "%s/.cache/krt", dir);
    } else {
        return -1;
    }
    if (mkdir(base, 0755) != 0 && errno != EEXIST) return -1;
    uint64_t h = krt_fnv1a64(KRT_FNV1A64_INIT, key, strlen(key));
    snprintf(path, n, "%s/ze_pocl-check-%016llx", base, (unsigned long long)h);
    return 0;
}

typedef struct {
    int found;          /* the file exists and holds this key */
    char state[16];     /* "ok", "fail" or "running" */
    uint32_t route;
    unsigned rewrites;
    int candidate;      /* running: the candidate under test; */
    int attempts;       /* running: how many starts began it */
    long pid;           /* running: the process that began it */
    char log[768];
} cache_entry;

static void cache_read(const char *path, const char *key, cache_entry *e) {
    memset(e, 0, sizeof *e);
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[2048];
    if (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (strcmp(line, key) == 0 && fgets(line, sizeof line, f) &&
            sscanf(line, "%15s %u %u %d %d %ld", e->state, &e->route, &e->rewrites, &e->candidate, &e->attempts,
                   &e->pid) == 6) {
            e->found = 1;
            size_t got = fread(e->log, 1, sizeof e->log - 1, f);
            e->log[got] = 0;
        }
    }
    fclose(f);
}

/* Written to a temporary file and renamed over the entry, so a reader sees a whole entry or none. */
static void cache_write(const char *path, const char *key, const cache_entry *e) {
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) return;
    fprintf(f, "%s\n%s %u %u %d %d %ld\n%s", key, e->state, e->route, e->rewrites, e->candidate, e->attempts, e->pid,
            e->log);
    if (fclose(f) != 0 || rename(tmp, path) != 0) unlink(tmp);
}

typedef struct {
    uint32_t route;
    unsigned rewrites;
    const char *name;
} candidate;

/* In order of preference: SPIR-V for PoCL's own translator where it takes it; else SPIR 1.2 bitcode with
 * OpenCL 1.2 builtin names (the representation the most of the suite has run on with PoCL 3.1 and 5.0),
 * with the private-pointer wait_group_events where the device has no generic address space (PoCL 3.1's
 * library has no generic one); then the other wait_group_events, or on a device with a generic address
 * space the OpenCL 2.0 names PoCL's own SPIR-V path would ask its translator for. Fences are lowered only
 * before PoCL 4.0, whose SPIR wrappers lack them. Each bitcode candidate is tried as it is, then with
 * vloadN / vstoreN lowered: a rewrite only where the installed PoCL proves it needs one. */
static int candidates(const zp_pocl_caps *caps, candidate *out) {
    int n = 0;
    unsigned old = caps->major >= 0 && caps->major < 4 ? ZP_SPIRV_FENCES_TO_LLVM : 0;
    static const struct {
        unsigned flags;
        const char *name, *lowered;
    } reps[] = {
        {0, "SPIR 1.2 bitcode, OpenCL 1.2 builtin names",
         "SPIR 1.2 bitcode, OpenCL 1.2 builtin names, vload/vstore lowered"},
        {ZP_SPIRV_WAIT_PRIVATE, "SPIR 1.2 bitcode, OpenCL 1.2 builtin names, private wait_group_events",
         "SPIR 1.2 bitcode, OpenCL 1.2 builtin names, private wait_group_events, vload/vstore lowered"},
        {ZP_SPIRV_OCL20, "SPIR 1.2 bitcode, OpenCL 2.0 builtin names",
         "SPIR 1.2 bitcode, OpenCL 2.0 builtin names, vload/vstore lowered"},
    };
    static const int with_generic[] = {0, 2}, without_generic[] = {1, 0};
    const int *order = caps->generic_as ? with_generic : without_generic;
    if (caps->il) out[n++] = (candidate){ZP_ROUTE_IL, 0, "SPIR-V through clCreateProgramWithIL"};
    for (int k = 0; k < 2; k++) {
        int r = order[k];
        out[n++] = (candidate){ZP_ROUTE_SPIR, reps[r].flags | old, reps[r].name};
        out[n++] = (candidate){ZP_ROUTE_SPIR, reps[r].flags | old | ZP_POCL_LOWER_VLOADSTORE, reps[r].lowered};
    }
    return n;
}

/* How many starts may begin the check of one candidate and die before that candidate counts as failed: an
 * unknown PoCL can abort the process on a builtin its library lacks, and a second start should then move
 * on to the next candidate rather than abort again. */
#define ZP_CHECK_ATTEMPTS 2

void zp_pocl_selfcheck(zp_pocl_caps *caps, cl_device_id dev) {
    char key[ZP_CHECK_KEY_MAX], path[600];
    cache_key(caps, key, sizeof key);
    int cached = cache_path(key, path, sizeof path) == 0;
    cache_entry e;
    memset(&e, 0, sizeof e);
    if (cached) cache_read(path, key, &e);
    if (e.found && strcmp(e.state, "ok") == 0) {
        caps->route = e.route;
        caps->rewrites = e.rewrites;
        caps->check = ZE_RESULT_SUCCESS;
        return;
    }
    if (e.found && strcmp(e.state, "fail") == 0) {
        caps->check = ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
        snprintf(caps->check_log, sizeof caps->check_log, "%s", e.log);
        return;
    }
    candidate cand[6];
    int nc = candidates(caps, cand);
    int first = 0, attempts = 0, skipped = -1;
    /* A "running" entry whose process is gone died in the check of that candidate (the ones before it had
     * failed in that process); the candidate is tried again until it has ended ZP_CHECK_ATTEMPTS starts. */
    if (e.found && strcmp(e.state, "running") == 0 && e.pid > 0 && kill((pid_t)e.pid, 0) != 0 && errno == ESRCH &&
        e.candidate >= 0) {
        first = e.candidate < nc ? e.candidate : nc;
        attempts = e.attempts;
        if (attempts >= ZP_CHECK_ATTEMPTS) {
            skipped = first < nc ? first : nc - 1;
            first++;
            attempts = 0;
        }
    }
    char findings[768] = "";
    size_t used = 0;
    if (skipped >= 0) {
        int w = snprintf(findings, sizeof findings, "%s: ended %d starts of this check (PoCL aborted the process)",
                         cand[skipped].name, ZP_CHECK_ATTEMPTS);
        if (w > 0) used = (size_t)w < sizeof findings ? (size_t)w : sizeof findings - 1;
    }
    for (int i = first; i < nc; i++) {
        if (cached) {
            cache_entry run;
            memset(&run, 0, sizeof run);
            snprintf(run.state, sizeof run.state, "running");
            run.candidate = i;
            run.attempts = i == first ? attempts + 1 : 1;
            run.pid = (long)getpid();
            cache_write(path, key, &run);
        }
        char why[384] = "";
        if (zp_pocl_selfcheck_run(dev, cand[i].route, cand[i].rewrites, ZP_CHECK_ALL, why, sizeof why) == 0) {
            caps->route = cand[i].route;
            caps->rewrites = cand[i].rewrites;
            caps->check = ZE_RESULT_SUCCESS;
            if (cached) {
                cache_entry ok;
                memset(&ok, 0, sizeof ok);
                snprintf(ok.state, sizeof ok.state, "ok");
                ok.route = cand[i].route;
                ok.rewrites = cand[i].rewrites;
                snprintf(ok.log, sizeof ok.log, "%s", cand[i].name);
                cache_write(path, key, &ok);
            }
            return;
        }
        int w = snprintf(findings + used, sizeof findings - used, "%s%s: %s", used ? "; " : "", cand[i].name, why);
        if (w > 0) used = used + (size_t)w < sizeof findings ? used + (size_t)w : sizeof findings - 1;
    }
    caps->check = ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
    int w = snprintf(caps->check_log, sizeof caps->check_log,
                     "ze_pocl does not support this PoCL (%s): no way of building kernels passed its start-up "
                     "self-check (results compared exactly), so no module is built. %s",
                     caps->version, findings);
    /* The findings may not all fit: the log then says so at its end. */
    if (w >= (int)sizeof caps->check_log) memcpy(caps->check_log + sizeof caps->check_log - 4, "...", 4);
    if (cached) {
        cache_entry bad;
        memset(&bad, 0, sizeof bad);
        snprintf(bad.state, sizeof bad.state, "fail");
        snprintf(bad.log, sizeof bad.log, "%s", caps->check_log);
        cache_write(path, key, &bad);
    }
}
