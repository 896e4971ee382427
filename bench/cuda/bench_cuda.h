// What the GPU-only benchmark programs built with nvcc share (bench/cuda/*.cu, tools/gpu-pack.sh): a check of a
// CUDA runtime call and, where krt.h is included first, of a krt call (each ends the program with the call and its
// error), and a monotonic clock in seconds.
#ifndef KRT_BENCH_CUDA_H
#define KRT_BENCH_CUDA_H

#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
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

#endif
