/* The on-disk cache of compiled modules. Building a module costs the LLVM pipeline plus CUDA's JIT of the PTX
 * (about 130 ms a module on the H200), so the finished CUDA binary is kept, keyed by a hash of what decides
 * it: the translated module (a function of the SPIR-V and its specialization constants), the build flags,
 * the device and its driver, and the translator's version.
 *   Location: $ZE_CUDA_CACHE_DIR, else $XDG_CACHE_HOME/krt/ze_cuda, else $HOME/.cache/krt/ze_cuda.
 *   Off:      ZE_CUDA_CACHE=0.
 * Entries are written to a temporary file and renamed into place, so concurrent processes see either no
 * entry or a whole one. A cache that cannot be read or written is simply not used. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuda_be.h"
#include "ptx.h"
#include "../../common/fnv.h"

/* Changes whenever the translation changes what it produces for the same input. */
#define ZC_CACHE_VERSION "ze_cuda-1"

void zc_cache_key(const void *bitcode, size_t size, const char *flags, const struct zp_bdev *dev,
                  unsigned max_registers, char out[33]) {
    uint64_t h[2] = {KRT_FNV1A64_INIT, 0x84222325cbf29ce4ull};
    for (int i = 0; i < 2; i++) {
        h[i] = krt_fnv1a64(h[i], ZC_CACHE_VERSION ZC_PTX_ARCH ZC_PTX_FEATURES, sizeof ZC_CACHE_VERSION ZC_PTX_ARCH ZC_PTX_FEATURES);
        h[i] = krt_fnv1a64(h[i], bitcode, size);
        h[i] = krt_fnv1a64(h[i], "\0flags", 6);
        if (flags) h[i] = krt_fnv1a64(h[i], flags, strlen(flags));
        h[i] = krt_fnv1a64(h[i], dev->name, strlen(dev->name));
        int ids[3] = {dev->cc_major, dev->cc_minor, dev->driver_version};
        h[i] = krt_fnv1a64(h[i], ids, sizeof ids);
        if (max_registers) h[i] = krt_fnv1a64(h[i], &max_registers, sizeof max_registers);
        h[i] = krt_fnv1a64(h[i], &i, sizeof i);
    }
    snprintf(out, 33, "%016llx%016llx", (unsigned long long)h[0], (unsigned long long)h[1]);
}

static bool cache_dir(char *buf, size_t n) {
    const char *off = getenv("ZE_CUDA_CACHE");
    if (off && strcmp(off, "0") == 0) return false;
    const char *d = getenv("ZE_CUDA_CACHE_DIR");
    if (d && *d) return (size_t)snprintf(buf, n, "%s", d) < n;
    const char *x = getenv("XDG_CACHE_HOME");
    if (x && *x) return (size_t)snprintf(buf, n, "%s/krt/ze_cuda", x) < n;
    const char *home = getenv("HOME");
    if (home && *home) return (size_t)snprintf(buf, n, "%s/.cache/krt/ze_cuda", home) < n;
    return false;
}

static void make_dirs(char *path) {
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        mkdir(path, 0755);
        *p = '/';
    }
    mkdir(path, 0755);
}

void *zc_cache_get(const char *key, size_t *size) {
    char dir[4096], path[4200];
    if (!cache_dir(dir, sizeof dir)) return NULL;
    snprintf(path, sizeof path, "%s/%s.cubin", dir, key);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    struct stat st;
    void *buf = NULL;
    if (fstat(fd, &st) == 0 && st.st_size > 0 && st.st_size < (1 << 30)) {
        buf = malloc((size_t)st.st_size);
        size_t got = 0;
        while (buf && got < (size_t)st.st_size) {
            ssize_t r = read(fd, (char *)buf + got, (size_t)st.st_size - got);
            if (r <= 0) {
                free(buf);
                buf = NULL;
                break;
            }
            got += (size_t)r;
        }
        if (buf) *size = got;
    }
    close(fd);
    return buf;
}

void zc_cache_put(const char *key, const void *data, size_t size) {
    char dir[4096], path[4200], tmp[4300];
    if (!cache_dir(dir, sizeof dir)) return;
    make_dirs(dir);
    snprintf(path, sizeof path, "%s/%s.cubin", dir, key);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%lx", path, (long)getpid(), (unsigned long)pthread_self());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return;
    size_t put = 0;
    while (put < size) {
        ssize_t w = write(fd, (const char *)data + put, size - put);
        if (w <= 0) break;
        put += (size_t)w;
    }
    if (close(fd) == 0 && put == size && rename(tmp, path) == 0) return;
    unlink(tmp);
}
