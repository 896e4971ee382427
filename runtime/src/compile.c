/*
 * compile.c: OpenCL C modules. krt does not link a compiler: it runs krt-cc (tools/krt-cc), the same program
 * that builds krt's own kernels and that users run by hand, so that a source module gets exactly the flags and
 * the validation a .spv built by the project gets. krt-cc's exit status 3 means a tool is missing (clang-15,
 * llvm-spirv-15, spirv-val), which becomes KRT_ERROR_UNSUPPORTED_FEATURE with krt-cc's message naming it;
 * status 2 (usage) means compile_options held something krt-cc does not take: KRT_ERROR_INVALID_ARGUMENT; any
 * other failure is the compiler's diagnostic as KRT_ERROR_MODULE_BUILD_FAILURE.
 *
 * Which krt-cc: $KRT_CC; else bin/krt-cc beside the lib/ directory holding libkrt (build/bin/krt-cc for
 * build/lib/libkrt.so, $PREFIX/bin/krt-cc after make install); else krt-cc on PATH.
 */
#include "krt_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* An executable file at path? */
static int executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

static int find_krt_cc(char *out, size_t size)
{
    const char *env = getenv("KRT_CC");
    if (env && env[0]) {
        snprintf(out, size, "%s", env);
        return executable(out);
    }
    Dl_info info;
    if (dladdr((void *)&find_krt_cc, &info) && info.dli_fname && info.dli_fname[0] == '/') {
        char buf[PATH_MAX];
        snprintf(buf, sizeof buf, "%s", info.dli_fname);
        char dir[PATH_MAX];
        /* libkrt's path may hold "..", from an rpath of $ORIGIN/../lib: resolved, for a readable message. */
        if (!realpath(dirname(buf), dir))
            snprintf(dir, sizeof dir, "%s", info.dli_fname);
        int n = snprintf(out, size, "%s/../bin/krt-cc", dir);
        char resolved[PATH_MAX];
        if (n > 0 && (size_t)n < size && executable(out)) {
            if (realpath(out, resolved) && strlen(resolved) < size)
                memcpy(out, resolved, strlen(resolved) + 1);
            return 1;
        }
    }
    const char *path = getenv("PATH");
    for (const char *p = path ? path : "/usr/local/bin:/usr/bin:/bin"; *p;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len > 0) {
            int n = snprintf(out, size, "%.*s/krt-cc", (int)len, p);
            if (n > 0 && (size_t)n < size && executable(out))
                return 1;
        }
        p += len + (end ? 1 : 0);
    }
    snprintf(out, size, "krt-cc");
    return 0;
}

static krt_result write_all(int fd, const char *data, size_t size, const char *what)
{
    while (size > 0) {
        ssize_t w = write(fd, data, size);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return krt__fail(KRT_ERROR_IO, "cannot write %s: %s", what, strerror(errno));
        data += w;
        size -= (size_t)w;
    }
    return KRT_SUCCESS;
}

/* The first lines of krt-cc's stderr, without the trailing newline, for the message. */
static void read_log(const char *path, char *out, size_t size)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    size_t n = fread(out, 1, size - 1, f);
    fclose(f);
    out[n] = '\0';
    while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
        out[--n] = '\0';
}

/* The directory for the temporary files: $TMPDIR, else /tmp. */
static const char *temp_dir(void)
{
    const char *t = getenv("TMPDIR");
    return t && t[0] ? t : "/tmp";
}

/* Runs krt-cc (with --host when host, and --checks too when host is 2) on source (written to dir/module.cl) or path, writing out; the temporary
 * files stay in dir for the caller to remove (remove_dir). */
static krt_result run_krt_cc(const char *source, const char *path, const char *options, int host, const char *dir,
                             const char *out)
{
    char cc[PATH_MAX];
    if (!find_krt_cc(cc, sizeof cc))
        return krt__fail(KRT_ERROR_UNSUPPORTED_FEATURE,
                         "OpenCL C modules need krt-cc, which was not found (%s%s): it is installed by make "
                         "install beside libkrt, in build/bin in the build tree, or set KRT_CC to it; it runs "
                         "clang-15, llvm-spirv-15 and spirv-val%s",
                         getenv("KRT_CC") && getenv("KRT_CC")[0] ? "KRT_CC=" : "looked beside libkrt and on PATH",
                         getenv("KRT_CC") && getenv("KRT_CC")[0] ? cc : "",
                         host ? ", and the system C compiler for the host device" : "");

    /* Split options at white space: krt-cc passes -I, -D, -U, -W and -cl- options on to clang. */
    char *opts = NULL;
    char *argv[64];
    int argc = 0;
    argv[argc++] = cc;
    if (host)
        argv[argc++] = "--host";
    if (host == 2)
        argv[argc++] = "--checks";
    if (options && options[0]) {
        if (!(opts = strdup(options)))
            return krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for the compile options");
        for (char *save = NULL, *tok = strtok_r(opts, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
            if (argc > 50) { /* argv[0], --host and 49 options; the input, -o and the output follow */
                free(opts);
                return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_module_create: more than 50 compile options");
            }
            argv[argc++] = tok;
        }
    }

    krt_result r = KRT_SUCCESS;
    char src[PATH_MAX + 16], log[PATH_MAX + 16];
    snprintf(src, sizeof src, "%s/module.cl", dir);
    snprintf(log, sizeof log, "%s/log", dir);
    if (source) {
        int fd = open(src, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0) {
            free(opts);
            return krt__fail(KRT_ERROR_IO, "cannot write %s: %s", src, strerror(errno));
        }
        r = write_all(fd, source, strlen(source), src);
        close(fd);
        if (r != KRT_SUCCESS) {
            free(opts);
            return r;
        }
    }
    argv[argc++] = (char *)(source ? src : path);
    argv[argc++] = "-o";
    argv[argc++] = (char *)out;
    argv[argc] = NULL;

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    pid_t pid;
    int err = posix_spawn(&pid, cc, &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    free(opts);
    if (err != 0)
        return krt__fail(KRT_ERROR_UNSUPPORTED_FEATURE, "cannot run %s: %s", cc, strerror(err));
    int status = 0;
    pid_t w;
    while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;
    char text[1536];
    read_log(log, text, sizeof text);
    const char *what = source ? "the OpenCL C source" : path;
    const char *as = host ? " for the host device (krt-cc --host)" : "";
    if (w < 0)
        return krt__fail(KRT_ERROR_MODULE_BUILD_FAILURE, "cannot wait for %s compiling %s: %s", cc, what,
                         strerror(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
        return krt__fail(KRT_ERROR_UNSUPPORTED_FEATURE, "cannot compile %s%s: %s", what, as, text);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 2) /* krt-cc's usage error: an option it does not pass on */
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_module_create: compile_options \"%s\" refused by krt-cc: %s",
                         options ? options : "", text);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return krt__fail(KRT_ERROR_MODULE_BUILD_FAILURE, "%s did not compile%s (%s, status %d):\n%s", what, as, cc,
                         WIFEXITED(status) ? WEXITSTATUS(status) : -1, text[0] ? text : "no diagnostic");
    return KRT_SUCCESS;
}

static krt_result make_dir(char *dir, size_t size)
{
    snprintf(dir, size, "%s/krt-module.XXXXXX", temp_dir());
    if (!mkdtemp(dir))
        return krt__fail(KRT_ERROR_IO, "cannot create a temporary directory in %s for the compiler: %s", temp_dir(),
                         strerror(errno));
    return KRT_SUCCESS;
}

/* Removes what run_krt_cc and its callers may have left in dir, then dir. */
static void remove_dir(const char *dir)
{
    static const char *const names[] = {"module.cl", "module.spv", "module.so", "log"};
    char p[PATH_MAX + 16];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        unlink(p);
    }
    rmdir(dir);
}

krt_result krt__compile_opencl(const char *source, const char *path, const char *options, uint32_t **words,
                               size_t *size)
{
    char dir[PATH_MAX], spv[PATH_MAX + 16];
    krt_result r = make_dir(dir, sizeof dir);
    if (r != KRT_SUCCESS)
        return r;
    snprintf(spv, sizeof spv, "%s/module.spv", dir);
    /* The module is read back like a .spv file; krt_module_create validates it again under its policy. */
    if ((r = run_krt_cc(source, path, options, 0, dir, spv)) == KRT_SUCCESS)
        r = krt__read_module_file(spv, words, size);
    remove_dir(dir);
    return r;
}

krt_result krt__compile_opencl_host(const char *source, const char *path, const char *options, int checked,
                                    char *dir, size_t dir_size, char *lib, size_t lib_size)
{
    krt_result r = make_dir(dir, dir_size);
    if (r != KRT_SUCCESS)
        return r;
    if ((size_t)snprintf(lib, lib_size, "%s/module.so", dir) >= lib_size) {
        remove_dir(dir);
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_module_create: the temporary directory's path is too long");
    }
    if ((r = run_krt_cc(source, path, options, checked ? 2 : 1, dir, lib)) != KRT_SUCCESS)
        remove_dir(dir);
    return r;
}

void krt__compile_remove(const char *dir)
{
    remove_dir(dir);
}
