/*
 * bench_util.h: helpers shared by the benchmark programs in bench/ (timing, statistics, tables, CSV files,
 * and running a program under callgrind to count instructions). Benchmarks are programs, not library code:
 * they print, and they exit on a setup failure because no figure would be meaningful after one.
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define BENCH_HAVE_CALLGRIND_H 1
#endif
#endif
#ifndef BENCH_HAVE_CALLGRIND_H
/* Without the header the benchmarks still build; callgrind then counts the whole run after start-up. */
#define CALLGRIND_TOGGLE_COLLECT do { } while (0)
#define RUNNING_ON_VALGRIND 0
#endif

/* Every benchmark drives krt; a failing krt call ends the run with its name, result and message. */
#include <krt.h>

#define KRT_CHECK(call)                                                                                    \
    do {                                                                                                   \
        krt_result r_ = (call);                                                                            \
        if (r_ != KRT_SUCCESS)                                                                             \
            bench_die("%s failed: %s: %s", #call, krt_result_name(r_), krt_last_error_message());          \
    } while (0)

/* Monotonic wall time in nanoseconds. */
uint64_t bench_now_ns(void);
/* The process's CPU time so far (every thread's), in milliseconds. */
double bench_process_cpu_ms(void);
/* Median of n values (sorts a copy; n may be 0, giving 0). */
double bench_median(const double *v, size_t n);
double bench_min(const double *v, size_t n);

/* Prints "bench: <message>" on stderr and exits with status 1. */
void bench_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Reads a whole file; exits on failure. *size receives its length. The caller frees the result. */
void *bench_read_file(const char *path, size_t *size);
/* dir/name in a static buffer that the next call overwrites. */
const char *bench_path(const char *dir, const char *name);
/* The directory for outputs (--out, else build/bench) and for the benchmark kernels (KRT_BENCH_KERNELS, else
 * build/bench/kernels) and the example kernels (KRT_KERNELS, else build/kernels). */
const char *bench_kernel_dir(void);
const char *bench_example_kernel_dir(void);

/* Opens dir/name for writing, exits on failure. */
FILE *bench_csv_open(const char *dir, const char *name);

/* Runs this program again (/proc/self/exe) with argv (NULL-terminated; argv[0] is its name), with the
 * environment variable env_name set to env_value when env_name is not NULL, and reads the first line of its
 * standard output into line. Returns 0 when the child exited with status 0, else -1. */
int bench_run_self(char *const *argv, const char *env_name, const char *env_value, char *line, size_t cap);

/* Runs `valgrind --tool=callgrind` on this executable with the given extra program arguments, collecting only
 * where the program toggles collection (CALLGRIND_TOGGLE_COLLECT around its measured loop), writes the
 * profile to out_file and returns the total instruction count ("Ir") or 0 if valgrind is missing or failed.
 * When annotate_file is not NULL, a callgrind_annotate breakdown (inclusive, top functions) goes there. */
uint64_t bench_callgrind(const char *self, const char *const *args, const char *out_file, const char *annotate_file);

/* The inclusive instruction count of a function (name as callgrind_annotate prints it after "file:") in an
 * annotate file written by bench_callgrind; the first match counts (for an API function called through the
 * loader, that is the loader's entry point, which includes the driver's work). 0 when absent. */
uint64_t bench_callgrind_inclusive(const char *annotate_file, const char *function);

/* Prints a Markdown table: rows x cols strings, row 0 being the header; columns are padded to fit. */
void bench_table_print(FILE *f, const char *title, int cols, int rows, const char *const *cells);
/* The same table on stdout and in out_dir/name.md (title as a paragraph above it). */
void bench_table_emit(const char *out_dir, const char *name, const char *title, int cols, int rows,
                      const char *const *cells);

/* Integer command-line option "--name value" or "--name=value"; returns def when absent. */
long bench_opt_long(int argc, char **argv, const char *name, long def);
const char *bench_opt_str(int argc, char **argv, const char *name, const char *def);
int bench_opt_flag(int argc, char **argv, const char *name);
/* With --help or -h among the arguments: prints usage and exits 0. Any other argument that is not an option
 * this program knows (names, NULL-terminated; each may take a value) makes it print usage and exit 2. */
void bench_usage(int argc, char **argv, const char *usage, const char *const *known);

#endif /* BENCH_UTIL_H */
