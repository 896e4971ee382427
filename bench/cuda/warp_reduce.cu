// warp_reduce: a warp reduction through krt (bench/cuda/warp_sum.cl, OpenCL C's sub_group_reduce_add, on ze_cuda)
// against the same algorithm written in CUDA (__shfl_down_sync), in one process on one GPU (docs/performance.md,
// "A warp reduction against CUDA"). Both kernels read the same krt allocation of n floats with the same grid (SM
// count x 8 blocks of 256 threads): each thread adds a grid-strided slice, its warp reduces the slice sums, and lane
// 0 writes the warp's partial sum. Each figure is the best of 5 rounds of `reps` launches then one synchronize;
// GB/s = 4 n reps / wall. Both results are checked against a sum on the host. Built with nvcc (tools/gpu-pack.sh).
// Usage: warp_reduce [--log2n N] [--reps R] [--spv PATH]   (default 2^26 floats, 50 launches a round,
//        $KRT_BENCH_KERNELS/warp_sum.spv)
#include <cuda_runtime.h>
#include <krt.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_cuda.h"

// The CUDA twin of warp_sum: the same loop, a shuffle-down tree, lane 0 writes.
__global__ void warp_sum_cuda(const float *x, float *partial, unsigned n) {
    float acc = 0.0f;
    unsigned id = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
    for (unsigned i = id; i < n; i += stride) acc += x[i];
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
    if ((threadIdx.x & 31) == 0) partial[id / 32] = acc;
}

int main(int argc, char **argv) {
    int log2n = 26, reps = 50;
    char spv[1024];
    reduce_args(argc, argv, "warp_reduce", "warp_sum.spv", &log2n, &reps, spv, sizeof spv);
    unsigned n = 1u << log2n;
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    unsigned blocks = (unsigned)sms * 8, threads = 256, warps = blocks * threads / 32;

    krt_context *ctx;
    krt_context_desc cd = {};
    cd.device = "nvidia";
    KK(krt_context_create(&cd, &ctx));
    krt_device_info info;
    KK(krt_context_device_info(ctx, &info));
    krt_module *mod;
    krt_module_desc md = {};
    md.path = spv;
    KK(krt_module_create(ctx, &md, &mod));
    krt_kernel *k;
    KK(krt_kernel_get(mod, "warp_sum", &k));
    float *x, *pk, *pc;
    KK(krt_alloc(ctx, (size_t)n * sizeof *x, NULL, (void **)&x));
    KK(krt_alloc(ctx, warps * sizeof *pk, NULL, (void **)&pk));
    KK(krt_alloc(ctx, warps * sizeof *pc, NULL, (void **)&pc));
    float *h = (float *)malloc((size_t)n * sizeof *h), *hp = (float *)malloc(warps * sizeof *hp);
    if (!h || !hp) return 1;
    srand(1);
    for (unsigned i = 0; i < n; i++) h[i] = (float)(rand() % 1000) / 1000.0f;
    double want = sum_of(h, n);
    KK(krt_memcpy_sync(ctx, NULL, x, h, (size_t)n * sizeof *x));

    krt_arg args[] = {KRT_ARG(x), KRT_ARG(pk), KRT_ARG(n)};
    krt_launch_desc d = {};
    d.range.dims = 1;
    d.range.size[0] = (uint64_t)blocks * threads;
    d.group[0] = threads;
    d.args = args;
    d.num_args = 3;
    // Results first: both partial arrays sum to the host's sum (float sums of a slice: a relative 1e-4).
    KK(krt_launch_sync(k, &d));
    KK(krt_memcpy_sync(ctx, NULL, hp, pk, warps * sizeof *hp));
    double got_k = sum_of(hp, warps);
    warp_sum_cuda<<<blocks, threads>>>(x, pc, n);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(hp, pc, warps * sizeof *hp, cudaMemcpyDeviceToHost));
    double got_c = sum_of(hp, warps);
    int ok = fabs(got_k - want) <= 1e-4 * want && fabs(got_c - want) <= 1e-4 * want;

    double best_k = 1e30, best_c = 1e30;
    krt_queue *q = krt_context_default_queue(ctx);
    for (int round = 0; round < 5; round++) {
        double t = now_s();
        for (int r = 0; r < reps; r++) KK(krt_launch(k, &d));
        KK(krt_queue_synchronize(q));
        t = now_s() - t;
        if (t < best_k) best_k = t;
        t = now_s();
        for (int r = 0; r < reps; r++) warp_sum_cuda<<<blocks, threads>>>(x, pc, n);
        CK(cudaDeviceSynchronize());
        t = now_s() - t;
        if (t < best_c) best_c = t;
    }
    double bytes = 4.0 * n * reps;
    printf("warp_reduce on %s: n = 2^%d floats, %u blocks of %u, %d launches a round, best of 5\n", info.name, log2n,
           blocks, threads, reps);
    printf("results: krt %.6g, CUDA %.6g, host %.6g: %s\n", got_k, got_c, want, ok ? "agree" : "DISAGREE");
    printf("krt (warp_sum.cl, sub_group_reduce_add) %9.1f us %7.1f GB/s\n", 1e6 * best_k / reps, bytes / best_k / 1e9);
    printf("CUDA (__shfl_down_sync)                  %9.1f us %7.1f GB/s\n", 1e6 * best_c / reps, bytes / best_c / 1e9);
    printf("ratio krt / CUDA in time: %.3f\n", best_k / best_c);
    KK(krt_free(ctx, x));
    KK(krt_free(ctx, pk));
    KK(krt_free(ctx, pc));
    krt_module_destroy(mod);
    krt_context_destroy(ctx);
    free(h);
    free(hp);
    return ok ? 0 : 1;
}
