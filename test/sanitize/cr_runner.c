/* The runner of criterion.h's stand-in (see there): the Criterion test binaries as make sanitize builds them,
 * under ASan+UBSan and under TSan. With no arguments it runs every test that is not disabled, each in a fresh
 * process (this program again, with --one SUITE NAME: fork and exec, no sandbox), N at a time (--jobs N, default
 * 1), and judges it as Criterion does: a pass is exit status 0, or the test's .signal or .exit_code; a test ends
 * failed on an assertion, a sanitizer report (a non-zero exit: TSan's 66, ASan's and UBSan's 1), a crash or its
 * timeout (.timeout times KRT_CR_TIMEOUT_SCALE, default 10, for the sanitizer's slowdown). It closes with
 * Criterion's "Synthesis:" line, which test/run.sh reads. --filter SUITE/NAME (fnmatch pattern) runs fewer. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "criterion/criterion.h"

static struct crs_test *tests;
static struct crs_suite *suites;
enum { SKIP_STATUS = 77 };

void crs_register(struct crs_test *t) {
    t->next = tests;
    tests = t;
}

void crs_register_suite(struct crs_suite *s) {
    s->next = suites;
    suites = s;
}

/* One message line on stderr: prefix, then fmt's text. */
static void vline(const char *prefix, const char *fmt, va_list ap) {
    fprintf(stderr, "%s", prefix);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
}

void crs_fail(const char *file, int line, const char *expr, const char *fmt, ...) {
    fprintf(stderr, "[----] %s:%d: Assertion Failed\n[----]   %s\n", file, line, expr);
    if (fmt[1]) {
        va_list ap;
        va_start(ap, fmt);
        vline("[----]  ", fmt, ap);
        va_end(ap);
    }
    fflush(NULL);
    _exit(1); /* no leak check: it would list what the test held when it stopped */
}

void crs_skip(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vline("[SKIP]", fmt, ap);
    va_end(ap);
    fflush(NULL);
    _exit(SKIP_STATUS);
}

void crs_log(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vline("[----] ", fmt, ap);
    va_end(ap);
}

static char redirect_path[64];

void cr_redirect_stderr(void) {
    snprintf(redirect_path, sizeof redirect_path, "/tmp/krt-cr-stderr-XXXXXX");
    int fd = mkstemp(redirect_path);
    if (fd < 0 || dup2(fd, 2) < 0) crs_fail(__FILE__, __LINE__, "cr_redirect_stderr", "%s", strerror(errno));
    close(fd);
}

FILE *cr_get_redirected_stderr(void) {
    fflush(stderr);
    FILE *f = fopen(redirect_path, "r");
    if (!f) crs_fail(__FILE__, __LINE__, "cr_get_redirected_stderr", "%s", strerror(errno));
    unlink(redirect_path);
    return f;
}

static const struct crs_suite *suite_of(const struct crs_test *t) {
    for (const struct crs_suite *s = suites; s; s = s->next)
        if (strcmp(s->name, t->suite) == 0) return s;
    return NULL;
}

/* The test's options over its suite's. */
static struct crs_opts opts_of(const struct crs_test *t) {
    struct crs_opts o = t->opts;
    const struct crs_suite *s = suite_of(t);
    if (s) {
        if (o.timeout == 0) o.timeout = s->opts.timeout;
        if (!o.init) o.init = s->opts.init;
        if (!o.fini) o.fini = s->opts.fini;
        if (s->opts.disabled) o.disabled = true;
    }
    return o;
}

static int run_one(const char *suite, const char *name) {
    for (struct crs_test *t = tests; t; t = t->next) {
        if (strcmp(t->suite, suite) != 0 || strcmp(t->name, name) != 0) continue;
        struct crs_opts o = opts_of(t);
        if (o.init) o.init();
        t->fn();
        if (o.fini) o.fini();
        fflush(NULL);
        return 0;
    }
    fprintf(stderr, "no test %s::%s\n", suite, name);
    return 2;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct {
    pid_t pid;
    struct crs_test *t;
    double start, deadline;
} running;

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "--one") == 0) return run_one(argv[2], argv[3]);
    int jobs = 1;
    const char *filter = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--jobs") == 0 && i + 1 < argc) jobs = atoi(argv[++i]);
        else if (strncmp(argv[i], "--jobs=", 7) == 0) jobs = atoi(argv[i] + 7);
        else if (strcmp(argv[i], "--filter") == 0 && i + 1 < argc) filter = argv[++i];
        else if (strncmp(argv[i], "--filter=", 9) == 0) filter = argv[i] + 9;
    }
    if (jobs < 1) jobs = 1;
    const char *sc = getenv("KRT_CR_TIMEOUT_SCALE");
    double scale = sc && atof(sc) > 0 ? atof(sc) : 10.0;
    running run[64];
    if (jobs > 64) jobs = 64;
    int nrun = 0, tested = 0, passed = 0, failed = 0, crashed = 0, skipped = 0;
    struct crs_test *next = tests;
    fflush(NULL);
    for (;;) {
        while (nrun < jobs && next) {
            struct crs_test *t = next;
            next = next->next;
            char full[512];
            snprintf(full, sizeof full, "%s/%s", t->suite, t->name);
            if (filter && fnmatch(filter, full, 0) != 0) continue;
            struct crs_opts o = opts_of(t);
            if (o.disabled) continue;
            pid_t pid = fork();
            if (pid < 0) {
                perror("fork");
                return 2;
            }
            if (pid == 0) {
                execl("/proc/self/exe", argv[0], "--one", t->suite, t->name, (char *)NULL);
                _exit(127);
            }
            double timeout = o.timeout > 0 ? o.timeout * scale : 0;
            run[nrun++] = (running){pid, t, now(), timeout > 0 ? now() + timeout : 0};
            tested++;
        }
        if (nrun == 0) break;
        int st;
        pid_t pid = waitpid(-1, &st, WNOHANG);
        if (pid == 0) {
            for (int i = 0; i < nrun; i++)
                if (run[i].deadline > 0 && now() > run[i].deadline) kill(run[i].pid, SIGKILL);
            usleep(10000);
            continue;
        }
        if (pid < 0) {
            perror("waitpid");
            return 2;
        }
        for (int i = 0; i < nrun; i++) {
            if (run[i].pid != pid) continue;
            struct crs_test *t = run[i].t;
            struct crs_opts o = opts_of(t);
            double secs = now() - run[i].start;
            bool timed_out = run[i].deadline > 0 && now() > run[i].deadline && WIFSIGNALED(st) &&
                             WTERMSIG(st) == SIGKILL;
            const char *verdict;
            if (WIFEXITED(st) && WEXITSTATUS(st) == SKIP_STATUS) {
                verdict = "SKIP";
                skipped++;
            } else if (o.signal ? WIFSIGNALED(st) && WTERMSIG(st) == o.signal
                                : WIFEXITED(st) && WEXITSTATUS(st) == o.exit_code) {
                verdict = "PASS";
                passed++;
            } else if (WIFSIGNALED(st)) {
                verdict = timed_out ? "TIMEOUT" : "CRASH";
                crashed++;
            } else {
                verdict = "FAIL";
                failed++;
            }
            if (WIFSIGNALED(st) && !o.signal)
                printf("[----] %s::%s: %s (signal %d)\n", t->suite, t->name, timed_out ? "timed out" : "crashed",
                       WTERMSIG(st));
            else if (WIFEXITED(st) && WEXITSTATUS(st) != o.exit_code && WEXITSTATUS(st) != SKIP_STATUS)
                printf("[----] %s::%s: exit status %d\n", t->suite, t->name, WEXITSTATUS(st));
            printf("[%s] %s::%s: (%.2fs)\n", verdict, t->suite, t->name, secs);
            fflush(stdout);
            run[i] = run[--nrun];
            break;
        }
    }
    printf("[====] Synthesis: Tested: %d | Passing: %d | Failing: %d | Crashing: %d | Skipped: %d\n", tested, passed,
           failed, crashed, skipped);
    return failed || crashed ? 1 : 0;
}
