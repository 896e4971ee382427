// What the GPU-only benchmark programs built with nvcc share (bench/cuda/*.cu, tools/gpu-pack.sh): a check of a
// CUDA runtime call and, where krt.h is included first, of a krt call (each ends the program with the call and its
// error), a monotonic clock in seconds, and the reduction benchmarks' host sum and options.
#ifndef KRT_BENCH_CUDA_H
#define KRT_BENCH_CUDA_H

#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CK(x)                                                                                       \
    do {                                                                                            \
        cudaError_t e_ = (x);                                                                       \
        if (e_ != cudaSuccess) {                                                                    \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                                \
            exit(1);                                                                                \
        }                                                                                           \
    } while (0)

#ifdef KRT_H
#define KK(x)                                                                                       \
    do {                                                                                            \
        krt_result r_ = (x);                                                                        \
        if (r_ != KRT_SUCCESS) {                                                                    \
            fprintf(stderr, "%s: %s: %s\n", #x, krt_result_name(r_), krt_last_error_message());     \
            exit(1);                                                                                \
        }                                                                                           \
    } while (0)
#endif

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The host's sum of n floats, in double: what the reduction benchmarks check their results against. */
static inline double sum_of(const float *p, size_t n) {
    double s = 0;
    for (size_t i = 0; i < n; i++) s += p[i];
    return s;
}

/* The reduction benchmarks' options (warp_reduce, group_sum): [--log2n N] [--reps R] [--spv PATH], the module by
 * default $KRT_BENCH_KERNELS/MODULE (build/bench/kernels without it). Anything else: prog's usage, exit status 2. */
static inline void reduce_args(int argc, char **argv, const char *prog, const char *module, int *log2n, int *reps,
                               char *spv, size_t cap) {
    const char *dir = getenv("KRT_BENCH_KERNELS");
    snprintf(spv, cap, "%s/%s", dir ? dir : "build/bench/kernels", module);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--log2n")) *log2n = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps")) *reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--spv")) snprintf(spv, cap, "%s", argv[i + 1]);
        else {
            fprintf(stderr, "usage: %s [--log2n N] [--reps R] [--spv PATH]\n", prog);
            exit(2);
        }
    }
}

#endif
