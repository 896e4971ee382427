// cuda_ref: hand-written CUDA references for ze_cuda's figures on an NVIDIA GPU (docs/performance.md), run in
// the same GPU run as krt's benchmarks (tools/gpu-test.sh):
//   - launch: host time per asynchronous cuLaunchKernel of a 4-argument kernel (launch_overhead's case (f));
//   - vadd over 16 M floats at every block size 32..1024, and CUDA's occupancy suggestion for it;
//   - a 64 MiB device-to-device copy, the bandwidth ceiling.
// Built on the build machine with nvcc (tools/gpu-pack.sh); needs only the NVIDIA driver where it runs.
//   - with --graph K: K dependent launches of an empty 4-argument kernel and of a 4,096-float saxpy, issued one by
//     one on a stream and as one hand-written CUDA graph of the same kernels (captured once, instantiated once,
//     launched per run): host and wall us per kernel, bench/replay's reference (docs/performance.md).
// Usage: cuda_ref [--launches N] [--graph K]
#include <cuda.h>
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_cuda.h"

#define CKD(x)                                                                                      \
    do {                                                                                            \
        CUresult e_ = (x);                                                                          \
        if (e_ != CUDA_SUCCESS) {                                                                   \
            fprintf(stderr, "%s: CUresult %d\n", #x, (int)e_);                                      \
            exit(1);                                                                                \
        }                                                                                           \
    } while (0)

// The same body as bench/kernels/bench_launch.cl's four-argument kernel: y[i] = a * x[i] + y[i] for i < n.
extern "C" __global__ void launch4(float *y, const float *x, float a, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void empty4(float *y, const float *x, float a, unsigned n) {}

extern "C" __global__ void vadd(const float *a, const float *b, float *c, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

// K kernels of fn over 4,096 items in groups of 256 on a non-blocking stream, one by one and as one CUDA graph;
// the median of 7 runs of each (after one warm-up), host and wall us per kernel.
static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void graph_case(const char *name, const void *sym, long k) {
    const unsigned n = 4096;
    float *y, *x;
    CK(cudaMalloc(&y, n * sizeof(float)));
    CK(cudaMalloc(&x, n * sizeof(float)));
    CK(cudaMemset(y, 0, n * sizeof(float)));
    CK(cudaMemset(x, 0, n * sizeof(float)));
    CUfunction fn;
    CK(cudaGetFuncBySymbol(&fn, sym));
    CUstream s;
    CKD(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    float a = 1.0f;
    unsigned nn = n;
    void *args[] = {&y, &x, &a, &nn};
    CUgraph g;
    CKD(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED));
    for (long i = 0; i < k; i++) CKD(cuLaunchKernel(fn, n / 256, 1, 1, 256, 1, 1, 0, s, args, NULL));
    CKD(cuStreamEndCapture(s, &g));
    CUgraphExec e;
    CKD(cuGraphInstantiate(&e, g, 0));
    double host[2][7], wall[2][7];
    for (int rep = -1; rep < 7; rep++)
        for (int mode = 0; mode < 2; mode++) {
            double t0 = now_s();
            if (mode == 0)
                for (long i = 0; i < k; i++) CKD(cuLaunchKernel(fn, n / 256, 1, 1, 256, 1, 1, 0, s, args, NULL));
            else
                CKD(cuGraphLaunch(e, s));
            double t1 = now_s();
            CKD(cuStreamSynchronize(s));
            double t2 = now_s();
            if (rep >= 0) {
                host[mode][rep] = (t1 - t0) / k * 1e6;
                wall[mode][rep] = (t2 - t0) / k * 1e6;
            }
        }
    for (int mode = 0; mode < 2; mode++) {
        qsort(host[mode], 7, sizeof(double), cmp_d);
        qsort(wall[mode], 7, sizeof(double), cmp_d);
        printf("graph reference %s x %ld %s: host %.3f us/kernel, wall %.3f us/kernel (median of 7)\n", name, k,
               mode ? "as one CUDA graph" : "one by one", host[mode][3], wall[mode][3]);
    }
    CKD(cuGraphExecDestroy(e));
    CKD(cuGraphDestroy(g));
    CKD(cuStreamDestroy(s));
    CK(cudaFree(y));
    CK(cudaFree(x));
}

int main(int argc, char **argv) {
    long launches = 100000, graph = 0;
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--launches") == 0) launches = atol(argv[i + 1]);
        if (strcmp(argv[i], "--graph") == 0) graph = atol(argv[i + 1]);
    }
    CK(cudaSetDevice(0));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);
    if (graph > 0) {
        graph_case("empty", (const void *)empty4, graph);
        graph_case("saxpy", (const void *)launch4, graph);
        return 0;
    }

    // (f) raw cuLaunchKernel: 1024 work-items in groups of 64, 4 arguments, asynchronous, synchronizing every
    // 1000 launches as launch_overhead does; host wall time per launch, best of 3 runs.
    {
        const unsigned range = 1024;
        float *y, *x;
        CK(cudaMalloc(&y, range * sizeof(float)));
        CK(cudaMalloc(&x, range * sizeof(float)));
        CUfunction fn;
        CK(cudaGetFuncBySymbol(&fn, (const void *)launch4));
        CUstream s;
        CKD(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
        float a = 2.0f;
        unsigned n = range;
        void *args[] = {&y, &x, &a, &n};
        double best = 1e30;
        for (int rep = 0; rep < 3; rep++) {
            double t0 = now_s();
            for (long i = 0; i < launches; i++) {
                CKD(cuLaunchKernel(fn, range / 64, 1, 1, 64, 1, 1, 0, s, args, NULL));
                if ((i + 1) % 1000 == 0) CKD(cuStreamSynchronize(s));
            }
            CKD(cuStreamSynchronize(s));
            double us = (now_s() - t0) / launches * 1e6;
            if (us < best) best = us;
        }
        printf("launch (f) raw cuLaunchKernel: %.3f us per launch (best of 3 x %ld)\n", best, launches);
        CK(cudaFree(y));
        CK(cudaFree(x));
    }

    // vadd, 16 M floats, each block size: best of 20 timed runs by CUDA events.
    {
        const unsigned n = 16u << 20;
        float *a, *b, *c;
        CK(cudaMalloc(&a, n * sizeof(float)));
        CK(cudaMalloc(&b, n * sizeof(float)));
        CK(cudaMalloc(&c, n * sizeof(float)));
        CK(cudaMemset(a, 0, n * sizeof(float)));
        CK(cudaMemset(b, 0, n * sizeof(float)));
        cudaEvent_t e0, e1;
        CK(cudaEventCreate(&e0));
        CK(cudaEventCreate(&e1));
        for (unsigned bs = 32; bs <= 1024; bs *= 2) {
            float best = 1e30f;
            for (int r = 0; r < 21; r++) {
                CK(cudaEventRecord(e0));
                vadd<<<(n + bs - 1) / bs, bs>>>(a, b, c, n);
                CK(cudaEventRecord(e1));
                CK(cudaEventSynchronize(e1));
                float ms;
                CK(cudaEventElapsedTime(&ms, e0, e1));
                if (r > 0 && ms < best) best = ms;
            }
            printf("vadd cuda block %4u: %8.1f us  %7.0f GB/s\n", bs, best * 1e3, 3.0 * 4 * n / (best * 1e-3) / 1e9);
        }
        int min_grid = 0, block = 0;
        CK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, vadd, 0, 0));
        printf("vadd occupancy suggestion: block %d\n", block);
        // 64 MiB device-to-device copy: read + write bytes.
        size_t bytes = 64u << 20;
        float best = 1e30f;
        for (int r = 0; r < 21; r++) {
            CK(cudaEventRecord(e0));
            CK(cudaMemcpyAsync(c, a, bytes, cudaMemcpyDeviceToDevice));
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            float ms;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            if (r > 0 && ms < best) best = ms;
        }
        printf("copy 64 MiB d2d: %.1f us  %.0f GB/s\n", best * 1e3, 2.0 * bytes / (best * 1e-3) / 1e9);
    }
    return 0;
}
