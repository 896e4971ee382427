/* bench_util.c: see bench_util.h. */
#include "bench_util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

uint64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double bench_process_cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(const double *v, size_t n)
{
    if (n == 0)
        return 0;
    double *c = malloc(n * sizeof *c);
    if (!c)
        bench_die("out of memory");
    memcpy(c, v, n * sizeof *c);
    qsort(c, n, sizeof *c, cmp_double);
    double m = (n % 2) ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
    free(c);
    return m;
}

double bench_min(const double *v, size_t n)
{
    double m = n ? v[0] : 0;
    for (size_t i = 1; i < n; i++)
        if (v[i] < m)
            m = v[i];
    return m;
}

void bench_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("bench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

void *bench_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        bench_die("cannot open %s: %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *buf = malloc(n > 0 ? (size_t)n : 1);
    if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n))
        bench_die("cannot read %s", path);
    fclose(f);
    *size = (size_t)n;
    return buf;
}

const char *bench_path(const char *dir, const char *name)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", dir, name);
    return buf;
}

const char *bench_kernel_dir(void)
{
    const char *d = getenv("KRT_BENCH_KERNELS");
    return d && *d ? d : "build/bench/kernels";
}

const char *bench_example_kernel_dir(void)
{
    const char *d = getenv("KRT_KERNELS");
    return d && *d ? d : "build/kernels";
}

FILE *bench_csv_open(const char *dir, const char *name)
{
    const char *p = bench_path(dir, name);
    FILE *f = fopen(p, "w");
    if (!f)
        bench_die("cannot write %s: %s", p, strerror(errno));
    return f;
}

/* Runs argv (NULL-terminated) with stdout and stderr sent to log_path; returns the exit status or -1. */
static int run_program(char *const *argv, const char *log_path)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        FILE *log = log_path ? freopen(log_path, "w", stdout) : NULL;
        if (log)
            dup2(fileno(stdout), 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    int st = 0;
    if (waitpid(pid, &st, 0) < 0)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int bench_run_self(char *const *argv, const char *env_name, const char *env_value, char *line, size_t cap)
{
    int fd[2];
    if (pipe(fd))
        return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        if (env_name)
            setenv(env_name, env_value, 1);
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    close(fd[1]);
    line[0] = 0;
    FILE *f = fdopen(fd[0], "r");
    if (!f || !fgets(line, (int)cap, f))
        line[0] = 0;
    if (f)
        fclose(f);
    else
        close(fd[0]);
    int st;
    if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return -1;
    return 0;
}

uint64_t bench_callgrind(const char *self, const char *const *args, const char *out_file, const char *annotate_file)
{
    /* valgrind must be given the program's real path: /proc/self/exe would name valgrind itself. */
    char exe[4096];
    ssize_t el = readlink(self, exe, sizeof exe - 1);
    if (el > 0) {
        exe[el] = 0;
        self = exe;
    }
    char outopt[4200], logpath[4200];
    snprintf(outopt, sizeof outopt, "--callgrind-out-file=%s", out_file);
    snprintf(logpath, sizeof logpath, "%s.log", out_file);
    const char *argv[64];
    int n = 0;
    argv[n++] = "valgrind";
    argv[n++] = "--tool=callgrind";
    argv[n++] = "--collect-atstart=no";
    /* Per-function totals are all the report needs; per-instruction data would only make the files big. */
    argv[n++] = "--dump-instr=no";
    argv[n++] = outopt;
    argv[n++] = self;
    for (int i = 0; args[i] && n < 62; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    int rc = run_program((char *const *)argv, logpath);
    if (rc != 0) {
        fprintf(stderr, "bench: callgrind run failed (status %d), see %s\n", rc, logpath);
        return 0;
    }
    FILE *f = fopen(out_file, "r");
    if (!f)
        return 0;
    char line[4096];
    uint64_t total = 0;
    while (fgets(line, sizeof line, f)) {
        /* Newer callgrind writes "totals:", older ones "summary:"; either holds the Ir total first. */
        if (!strncmp(line, "totals:", 7))
            total = strtoull(line + 7, NULL, 10);
        else if (!total && !strncmp(line, "summary:", 8))
            total = strtoull(line + 8, NULL, 10);
    }
    fclose(f);
    if (annotate_file) {
        char *av[] = {"callgrind_annotate", "--inclusive=yes", "--threshold=100", "--auto=no", (char *)out_file,
                      NULL};
        run_program(av, annotate_file);
    }
    return total;
}

uint64_t bench_callgrind_inclusive(const char *annotate_file, const char *function)
{
    FILE *f = fopen(annotate_file, "r");
    if (!f)
        return 0;
    char line[8192];
    uint64_t v = 0;
    size_t fl = strlen(function);
    while (fgets(line, sizeof line, f)) {
        /* Lines read "  8,034,263 (84.59%)  file:function [object]"; the function follows the last ':' before
         * the object's '['. */
        char *br = strstr(line, " [");
        char *colon = NULL;
        for (char *p = line; p && (!br || p < br); p++) {
            p = strchr(p, ':');
            if (!p || (br && p > br))
                break;
            colon = p;
        }
        if (!colon || strncmp(colon + 1, function, fl) || (colon[1 + fl] != ' ' && colon[1 + fl] != '\n'))
            continue;
        for (const char *p = line; *p && *p != '('; p++)
            if (*p >= '0' && *p <= '9')
                v = v * 10 + (uint64_t)(*p - '0');
        break;
    }
    fclose(f);
    return v;
}

void bench_table_print(FILE *f, const char *title, int cols, int rows, const char *const *cells)
{
    int w[32] = {0};
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols && c < 32; c++) {
            int l = (int)strlen(cells[r * cols + c]);
            if (l > w[c])
                w[c] = l;
        }
    fprintf(f, "\n%s\n", title);
    for (int r = 0; r < rows; r++) {
        fputs("| ", f);
        for (int c = 0; c < cols; c++)
            fprintf(f, c == 0 ? "%-*s | " : "%*s | ", w[c], cells[r * cols + c]);
        fputc('\n', f);
        if (r == 0) {
            fputc('|', f);
            for (int c = 0; c < cols; c++) {
                for (int i = 0; i < w[c] + 2; i++)
                    fputc('-', f);
                fputc('|', f);
            }
            fputc('\n', f);
        }
    }
    fflush(f);
}

void bench_table_emit(const char *out_dir, const char *name, const char *title, int cols, int rows,
                      const char *const *cells)
{
    bench_table_print(stdout, title, cols, rows, cells);
    FILE *f = bench_csv_open(out_dir, name);
    bench_table_print(f, title, cols, rows, cells);
    fclose(f);
}

static const char *find_opt(int argc, char **argv, const char *name)
{
    size_t l = strlen(name);
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--", 2) || strncmp(argv[i] + 2, name, l))
            continue;
        const char *rest = argv[i] + 2 + l;
        if (*rest == '=')
            return rest + 1;
        if (*rest == 0)
            return i + 1 < argc ? argv[i + 1] : "";
    }
    return NULL;
}

long bench_opt_long(int argc, char **argv, const char *name, long def)
{
    const char *v = find_opt(argc, argv, name);
    return v && *v ? strtol(v, NULL, 0) : def;
}

const char *bench_opt_str(int argc, char **argv, const char *name, const char *def)
{
    const char *v = find_opt(argc, argv, name);
    return v && *v ? v : def;
}

void bench_usage(int argc, char **argv, const char *usage, const char *const *known)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            exit(0);
        }
        if (strncmp(a, "--", 2))
            continue; /* an option's value */
        size_t l = strcspn(a + 2, "=");
        int ok = 0;
        for (const char *const *k = known; *k && !ok; k++)
            ok = strlen(*k) == l && !strncmp(a + 2, *k, l);
        if (!ok) {
            fprintf(stderr, "%s: unknown option %s\n%s", argv[0], a, usage);
            exit(2);
        }
    }
}

int bench_opt_flag(int argc, char **argv, const char *name)
{
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "--", 2) && !strcmp(argv[i] + 2, name))
            return 1;
    return 0;
}
