/*
 * example.h: the few helpers every krt example shares, kept out of the examples so that each one shows only
 * what it teaches. Everything here is plain C on top of krt.h.
 */
#ifndef KRT_EXAMPLE_H
#define KRT_EXAMPLE_H

#include <krt.h>

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Stops the program with krt's own explanation when a call fails: the result's name, its meaning, and the
 * detail of krt_last_error_message() (the argument at fault, the validator's diagnostic, the build log). */
#define EX_CHECK(call)                                                                                       \
    do {                                                                                                     \
        krt_result ex_r_ = (call);                                                                           \
        if (ex_r_ != KRT_SUCCESS) {                                                                          \
            fprintf(stderr, "%s:%d: %s failed: %s (%s)\n  %s\n", __FILE__, __LINE__, #call,                 \
                    krt_result_name(ex_r_), krt_result_string(ex_r_), krt_last_error_message());             \
            exit(2);                                                                                         \
        }                                                                                                    \
    } while (0)

static inline uint64_t ex_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline double ex_ms_since(uint64_t start_ns)
{
    return (double)(ex_now_ns() - start_ns) / 1e6;
}

/* The path of a kernel file: $KRT_KERNELS/<file> when the variable is set (make sets it), else
 * <directory of this executable>/../kernels/<file>, which is build/kernels for build/bin/<example>, so the
 * programs also run by hand from any directory. */
static inline const char *ex_kernel_path(const char *file)
{
    static char path[PATH_MAX + 64];
    const char *dir = getenv("KRT_KERNELS");
    if (dir && dir[0]) {
        snprintf(path, sizeof path, "%s/%s", dir, file);
        return path;
    }
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) {
        snprintf(path, sizeof path, "build/kernels/%s", file);
        return path;
    }
    exe[len] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    snprintf(path, sizeof path, "%s/../kernels/%s", exe, file);
    return path;
}

/* Creates a context on the default device (KRT_DEVICE chooses another) and says which device it is. */
static inline krt_context *ex_context(void)
{
    krt_context *ctx = NULL;
    EX_CHECK(krt_context_create(NULL, &ctx));
    krt_device_info info;
    EX_CHECK(krt_context_device_info(ctx, &info));
    printf("device: %s (driver %s)\n", info.name, info.driver_name);
    return ctx;
}

/* ctx[0]: a context on the default device (KRT_DEVICE chooses another); then, up to max in all, one on every other
 * device of the same driver, each sharing ctx[0]'s Level Zero context (krt_context_desc.share), as a program
 * spread over several devices wants them. Returns how many contexts it made. */
static inline uint32_t ex_driver_contexts(krt_context **ctx, uint32_t max)
{
    EX_CHECK(krt_context_create(NULL, &ctx[0]));
    krt_device_info first;
    EX_CHECK(krt_context_device_info(ctx[0], &first));
    uint32_t count = 0;
    EX_CHECK(krt_device_list(NULL, &count));
    krt_device_info *list = calloc(count, sizeof *list);
    if (!list)
        exit(2);
    EX_CHECK(krt_device_list(list, &count));
    uint32_t n = 1;
    for (uint32_t i = 0; i < count && n < max; i++) {
        if (list[i].driver_index != first.driver_index || list[i].device_index == first.device_index)
            continue;
        char index[16];
        snprintf(index, sizeof index, "%u", i);
        EX_CHECK(krt_context_create(&(krt_context_desc){ .device = index, .share = ctx[0] }, &ctx[n]));
        n++;
    }
    free(list);
    return n;
}

static inline krt_module *ex_module(krt_context *ctx, const char *file)
{
    krt_module_desc desc = { .path = ex_kernel_path(file) };
    krt_module *module = NULL;
    EX_CHECK(krt_module_create(ctx, &desc, &module));
    return module;
}

static inline krt_kernel *ex_kernel(krt_module *module, const char *name)
{
    krt_kernel *kernel = NULL;
    EX_CHECK(krt_kernel_get(module, name, &kernel));
    return kernel;
}

static inline void *ex_alloc(krt_context *ctx, size_t size)
{
    void *p = NULL;
    EX_CHECK(krt_alloc(ctx, size, NULL, &p));
    return p;
}

/* One line describing a launch configuration: "group 256 x 1 x 1, groups 40 x 1 x 1, decided by ...". */
static inline void ex_print_config(const char *label, const krt_launch_config *c)
{
    printf("%sgroup %u x %u x %u, groups %u x %u x %u, decided by %s%s\n", label, c->group[0], c->group[1],
           c->group[2], c->groups[0], c->groups[1], c->groups[2], krt_limit_name(c->limit),
           c->masked ? ", last group partial" : "");
}

/* Reads argv[i] as a positive size, or returns fallback when the argument is absent. */
static inline uint64_t ex_arg_size(int argc, char **argv, int i, uint64_t fallback)
{
    if (i >= argc)
        return fallback;
    char *end = NULL;
    unsigned long long v = strtoull(argv[i], &end, 0);
    if (!end || *end != '\0' || v == 0) {
        fprintf(stderr, "%s: argument %d ('%s') must be a positive number\n", argv[0], i, argv[i]);
        exit(2);
    }
    return v;
}

/* A small deterministic generator so every run checks the same data. */
static inline uint32_t ex_rand(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}

static inline float ex_randf(uint32_t *state)
{
    return (float)(ex_rand(state) & 0xffff) / 65536.0f;
}

#endif
