// peer_copy: copy bandwidth between GPU allocations through krt (krt_memcpy on ze_cuda) against the hand-written
// CUDA runtime calls, in one process (docs/performance.md, "Copies between devices"):
//   - on each GPU, a device-to-device copy within it: krt_memcpy against cudaMemcpyAsync(DeviceToDevice);
//   - for every ordered pair of GPUs, a copy from one's memory to the other's on the destination's queue: krt_memcpy
//     (a peer copy, cuMemcpyPeerAsync, where CUDA reports peer access; staged through host memory where not) against
//     cudaMemcpyPeerAsync on a stream of the destination device.
// Each figure is the best of 5 rounds of `reps` copies then one synchronize: GB/s = bytes * reps / wall. Both sides
// copy the same bytes between the same allocations (krt's, from krt_alloc), so only the path differs. The program
// checks one copy of each kind. Built on the build machine with nvcc (tools/gpu-pack.sh) against libkrt.
// Usage: peer_copy [--mib N] [--reps R]   (N MiB per copy, default 64; R copies per round, default 20)
#include <cuda_runtime.h>
#include <krt.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_cuda.h"

#define MAX_GPUS 16

// The best of 5 rounds of reps krt_memcpy on ctx's default queue, in GB/s.
static double krt_gbs(krt_context *ctx, void *dst, const void *src, size_t bytes, int reps) {
    double best = 1e30;
    KK(krt_memcpy_sync(ctx, NULL, dst, src, bytes)); // warm-up
    for (int round = 0; round < 5; round++) {
        double t = now_s();
        for (int r = 0; r < reps; r++) KK(krt_memcpy(ctx, NULL, dst, src, bytes));
        KK(krt_queue_synchronize(krt_context_default_queue(ctx)));
        t = now_s() - t;
        if (t < best) best = t;
    }
    return (double)bytes * reps / best / 1e9;
}

// The same with the CUDA runtime on a stream of device dev: cudaMemcpyAsync within a device, cudaMemcpyPeerAsync
// between two.
static double cuda_gbs(int dev, void *dst, int dst_dev, const void *src, int src_dev, size_t bytes, int reps) {
    CK(cudaSetDevice(dev));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    double best = 1e30;
    for (int round = -1; round < 5; round++) { // round -1 warms up
        double t = now_s();
        for (int r = 0; r < (round < 0 ? 1 : reps); r++) {
            if (dst_dev == src_dev)
                CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s));
            else
                CK(cudaMemcpyPeerAsync(dst, dst_dev, src, src_dev, bytes, s));
        }
        CK(cudaStreamSynchronize(s));
        t = now_s() - t;
        if (round >= 0 && t < best) best = t;
    }
    CK(cudaStreamDestroy(s));
    return (double)bytes * reps / best / 1e9;
}

// Checks that dst holds src's bytes (a pattern written once), on the host.
static int same(krt_context *cd, const void *dst, krt_context *cs, const void *src, size_t bytes) {
    unsigned char *a = (unsigned char *)malloc(bytes), *b = (unsigned char *)malloc(bytes);
    if (!a || !b) return 0;
    KK(krt_memcpy_sync(cd, NULL, a, dst, bytes));
    KK(krt_memcpy_sync(cs, NULL, b, src, bytes));
    int ok = memcmp(a, b, bytes) == 0;
    free(a);
    free(b);
    return ok;
}

int main(int argc, char **argv) {
    size_t mib = 64;
    int reps = 20;
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--mib") == 0) mib = (size_t)atol(argv[i + 1]);
        if (strcmp(argv[i], "--reps") == 0) reps = atoi(argv[i + 1]);
    }
    size_t bytes = mib << 20;
    // One krt context per GPU, all sharing the first one's Level Zero context.
    krt_context *ctx[MAX_GPUS];
    int n = 0;
    for (; n < MAX_GPUS; n++) {
        char dev[16];
        snprintf(dev, sizeof dev, "gpu:%d", n);
        krt_context_desc d;
        memset(&d, 0, sizeof d);
        d.device = dev;
        d.share = n ? ctx[0] : NULL;
        if (krt_context_create(&d, &ctx[n]) != KRT_SUCCESS) break;
    }
    if (n == 0) {
        fprintf(stderr, "peer_copy: no GPU: %s\n", krt_last_error_message());
        return 1;
    }
    int cuda_n = 0;
    CK(cudaGetDeviceCount(&cuda_n));
    printf("peer_copy: %d GPU(s) through krt (ze_cuda), %d through the CUDA runtime; %zu MiB per copy, best of 5 "
           "rounds of %d copies\n",
           n, cuda_n, mib, reps);
    void *a[MAX_GPUS], *b[MAX_GPUS];
    for (int i = 0; i < n; i++) {
        krt_device_info info;
        KK(krt_context_device_info(ctx[i], &info));
        printf("  gpu %d: %s\n", i, info.name);
        KK(krt_alloc(ctx[i], bytes, NULL, &a[i]));
        KK(krt_alloc(ctx[i], bytes, NULL, &b[i]));
        KK(krt_memfill(ctx[i], NULL, a[i], &i, sizeof i, bytes));
        KK(krt_context_synchronize(ctx[i]));
    }
    printf("\n%-22s %-8s %12s %12s %8s\n", "copy", "path", "krt GB/s", "CUDA GB/s", "krt/CUDA");
    for (int i = 0; i < n; i++) {
        double k = krt_gbs(ctx[i], b[i], a[i], bytes, reps);
        double c = cuda_gbs(i, b[i], i, a[i], i, bytes, reps);
        char what[32];
        snprintf(what, sizeof what, "gpu %d -> gpu %d", i, i);
        printf("%-22s %-8s %12.1f %12.1f %8.2f%s\n", what, "device", k, c, k / c,
               same(ctx[i], b[i], ctx[i], a[i], bytes) ? "" : "  WRONG RESULT");
    }
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            if (i == j) continue;
            int can = 0;
            KK(krt_context_can_access_peer(ctx[j], ctx[i], &can));
            unsigned char stale = 0xee; // so that the check below sees this copy's bytes
            KK(krt_memfill(ctx[j], NULL, b[j], &stale, 1, bytes));
            double k = krt_gbs(ctx[j], b[j], a[i], bytes, reps);
            int ok = same(ctx[j], b[j], ctx[i], a[i], bytes);
            double c = cuda_gbs(j, b[j], j, a[i], i, bytes, reps);
            char what[32];
            snprintf(what, sizeof what, "gpu %d -> gpu %d", i, j);
            printf("%-22s %-8s %12.1f %12.1f %8.2f%s\n", what, can ? "peer" : "staged", k, c, k / c,
                   ok ? "" : "  WRONG RESULT");
        }
    }
    if (n < 2) printf("(one GPU: no copies between devices; the figure above is the device-to-device copy)\n");
    for (int i = n - 1; i >= 0; i--) krt_context_destroy(ctx[i]);
    return 0;
}
