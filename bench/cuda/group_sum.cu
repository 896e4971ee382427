// group_sum: the shape of dpnp.tensor's sum (docs/sycl.md, "The allocation path and the sum") through krt against
// the same algorithm in CUDA and against CUB's DeviceReduce::Sum, which CuPy's sum runs, in one process on one GPU
// (docs/performance.md, "A group reduction of dpctl's shape against CUDA and CUB"). dpctl reduces n floats in levels:
// groups of 128 that each read 128 x 8 elements and write one partial (bench/cuda/group_sum.cl), then the same over
// the partials until one is left (2^24 floats: 16,384 groups, then 16, then 1). krt runs group_sum8 on ze_cuda
// (work_group_reduce_add); CUDA runs the same loop and a block reduction (warp shuffles, one shared word per warp).
// krt also runs group_sum8_sg, the group reduction written out as the CUDA twin's (sub-group reductions, one
// barrier), to show what work_group_reduce_add's lowering costs beyond it. Each figure is the best of 5 rounds of
// `reps` sums then one synchronize; GB/s = 4 n reps / wall. The first level alone is timed too. Every sum (krt's
// two, CUDA's, CUB's) is checked against the host's.
// Usage: group_sum [--log2n N] [--reps R] [--spv PATH]   (default 2^24 floats, 50 sums a round,
//        $KRT_BENCH_KERNELS/group_sum.spv)
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <krt.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cuda.h"

enum { WG = 128, PER_ITEM = 8 };

// The CUDA twin of group_sum8: the same guarded loads, then a block reduction (what work_group_reduce_add does on
// ze_cuda, written by hand): a shuffle tree per warp, one shared word per warp, the first warp reduces those.
__global__ void group_sum8_cuda(const float *x, float *partial, size_t n) {
    __shared__ float warp_sums[32];
    size_t lid = threadIdx.x, wg = blockDim.x, base = (size_t)blockIdx.x * wg * PER_ITEM + lid;
    float acc = 0.0f;
#pragma unroll
    for (int m = 0; m < PER_ITEM; m++) {
        size_t i = base + (size_t)m * wg;
        if (i < n) acc += x[i];
    }
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
    if ((lid & 31) == 0) warp_sums[lid >> 5] = acc;
    __syncthreads();
    if (lid < 32) {
        acc = lid < wg / 32 ? warp_sums[lid] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
        if (lid == 0) partial[blockIdx.x] = acc;
    }
}

static size_t groups_for(size_t n) { return (n + (size_t)WG * PER_ITEM - 1) / ((size_t)WG * PER_ITEM); }

struct levels {
    int count;
    size_t n[8];  // elements read by each level; level L writes groups_for(n[L]) partials into buffer L % 2
};

static levels levels_for(size_t n) {
    levels l = {};
    do {
        l.n[l.count++] = n;
        n = groups_for(n);
    } while (n > 1 && l.count < 8);
    return l;
}

// One sum through krt: every level launched on the default queue; returns the buffer that holds the sum.
static float *krt_sum(krt_kernel *k, const levels &l, const float *x, float *tmp[2], int first_only) {
    const float *in = x;
    float *out = tmp[0];
    for (int i = 0; i < (first_only ? 1 : l.count); i++) {
        uint64_t n = l.n[i];
        out = tmp[i % 2];
        krt_arg args[] = {KRT_ARG(in), KRT_ARG(out), KRT_ARG(n)};
        krt_launch_desc d = {};
        d.range.dims = 1;
        d.range.size[0] = groups_for(n) * WG;
        d.group[0] = WG;
        d.args = args;
        d.num_args = 3;
        KK(krt_launch(k, &d));
        in = out;
    }
    return out;
}

static float *cuda_sum(const levels &l, const float *x, float *tmp[2], int first_only) {
    const float *in = x;
    float *out = tmp[0];
    for (int i = 0; i < (first_only ? 1 : l.count); i++) {
        out = tmp[i % 2];
        group_sum8_cuda<<<(unsigned)groups_for(l.n[i]), WG>>>(in, out, l.n[i]);
        in = out;
    }
    return out;
}

int main(int argc, char **argv) {
    int log2n = 24, reps = 50;
    char spv[1024];
    reduce_args(argc, argv, "group_sum", "group_sum.spv", &log2n, &reps, spv, sizeof spv);
    size_t n = (size_t)1 << log2n;
    levels l = levels_for(n);

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
    krt_kernel *k, *ks;
    KK(krt_kernel_get(mod, "group_sum8", &k));
    KK(krt_kernel_get(mod, "group_sum8_sg", &ks));
    krt_queue *q = krt_context_default_queue(ctx);

    // One input for all three, in krt's allocation; each its own partial buffers.
    float *x, *kt[2], *ct[2], *cub_out;
    size_t parts = groups_for(n);
    KK(krt_alloc(ctx, n * sizeof *x, NULL, (void **)&x));
    for (int i = 0; i < 2; i++) {
        KK(krt_alloc(ctx, parts * sizeof(float), NULL, (void **)&kt[i]));
        KK(krt_alloc(ctx, parts * sizeof(float), NULL, (void **)&ct[i]));
    }
    KK(krt_alloc(ctx, sizeof(float), NULL, (void **)&cub_out));
    void *cub_tmp = NULL;
    size_t cub_bytes = 0;
    CK(cub::DeviceReduce::Sum(cub_tmp, cub_bytes, x, cub_out, (int)n));
    KK(krt_alloc(ctx, cub_bytes ? cub_bytes : 1, NULL, &cub_tmp));

    float *h = (float *)malloc(n * sizeof *h);
    if (!h) return 1;
    srand(1);
    for (size_t i = 0; i < n; i++) h[i] = (float)(rand() % 1000) / 1000.0f;
    double want = sum_of(h, n);
    KK(krt_memcpy_sync(ctx, NULL, x, h, n * sizeof *x));

    // Results first: each sum against the host's (a relative 1e-4: float sums in different orders).
    float got[4];
    float *kr = krt_sum(k, l, x, kt, 0);
    KK(krt_queue_synchronize(q));
    KK(krt_memcpy_sync(ctx, NULL, &got[0], kr, sizeof(float)));
    kr = krt_sum(ks, l, x, kt, 0);
    KK(krt_queue_synchronize(q));
    KK(krt_memcpy_sync(ctx, NULL, &got[3], kr, sizeof(float)));
    float *cr = cuda_sum(l, x, ct, 0);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(&got[1], cr, sizeof(float), cudaMemcpyDeviceToHost));
    CK(cub::DeviceReduce::Sum(cub_tmp, cub_bytes, x, cub_out, (int)n));
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(&got[2], cub_out, sizeof(float), cudaMemcpyDeviceToHost));
    int ok = 1;
    for (int i = 0; i < 4; i++) ok &= fabs(got[i] - want) <= 1e-4 * want;

    // best[first_only][0 krt, 1 CUDA, 2 krt's sub-group form], and CUB's whole sum.
    double best[2][3] = {{1e30, 1e30, 1e30}, {1e30, 1e30, 1e30}}, best_cub = 1e30;
    for (int round = 0; round < 5; round++) {
        for (int first = 0; first < 2; first++) {
            double t = now_s();
            for (int r = 0; r < reps; r++) krt_sum(k, l, x, kt, first);
            KK(krt_queue_synchronize(q));
            t = now_s() - t;
            if (t < best[first][0]) best[first][0] = t;
            t = now_s();
            for (int r = 0; r < reps; r++) cuda_sum(l, x, ct, first);
            CK(cudaDeviceSynchronize());
            t = now_s() - t;
            if (t < best[first][1]) best[first][1] = t;
            t = now_s();
            for (int r = 0; r < reps; r++) krt_sum(ks, l, x, kt, first);
            KK(krt_queue_synchronize(q));
            t = now_s() - t;
            if (t < best[first][2]) best[first][2] = t;
        }
        double t = now_s();
        for (int r = 0; r < reps; r++) CK(cub::DeviceReduce::Sum(cub_tmp, cub_bytes, x, cub_out, (int)n));
        CK(cudaDeviceSynchronize());
        t = now_s() - t;
        if (t < best_cub) best_cub = t;
    }
    double bytes = 4.0 * n * reps;
    printf("group_sum on %s: n = 2^%d floats, %d levels (", info.name, log2n, l.count);
    for (int i = 0; i < l.count; i++) printf("%s%zu groups of %d", i ? ", " : "", groups_for(l.n[i]), WG);
    printf("), %d sums a round, best of 5\n", reps);
    printf("results: krt %.7g (sub-group form %.7g), CUDA %.7g, CUB %.7g, host %.7g: %s\n", got[0], got[3], got[1],
           got[2], want,
           ok ? "agree" : "DISAGREE");
    const char *what[2] = {"whole sum", "first level"};
    for (int first = 0; first < 2; first++) {
        printf("%-11s krt (group_sum8, work_group_reduce_add) %8.1f us %7.1f GB/s\n", what[first],
               1e6 * best[first][0] / reps, bytes / best[first][0] / 1e9);
        printf("%-11s krt (group_sum8_sg, sub-groups+barrier)  %8.1f us %7.1f GB/s\n", what[first],
               1e6 * best[first][2] / reps, bytes / best[first][2] / 1e9);
        printf("%-11s CUDA (same algorithm)                   %8.1f us %7.1f GB/s\n", what[first],
               1e6 * best[first][1] / reps, bytes / best[first][1] / 1e9);
    }
    printf("whole sum   CUB DeviceReduce::Sum (CuPy's)         %8.1f us %7.1f GB/s\n", 1e6 * best_cub / reps,
           bytes / best_cub / 1e9);
    printf("ratio krt / CUDA in time: whole sum %.3f, first level %.3f (sub-group form %.3f, %.3f); "
           "same algorithm in CUDA / CUB: %.3f; krt / CUB: %.3f\n",
           best[0][0] / best[0][1], best[1][0] / best[1][1], best[0][2] / best[0][1], best[1][2] / best[1][1],
           best[0][1] / best_cub, best[0][0] / best_cub);
    KK(krt_free(ctx, x));
    for (int i = 0; i < 2; i++) {
        KK(krt_free(ctx, kt[i]));
        KK(krt_free(ctx, ct[i]));
    }
    KK(krt_free(ctx, cub_out));
    KK(krt_free(ctx, cub_tmp));
    krt_module_destroy(mod);
    krt_context_destroy(ctx);
    free(h);
    return ok ? 0 : 1;
}
