/* Host cost of one zeCommandListAppendLaunchKernel on an immediate ze_pocl list against one raw
 * clEnqueueNDRangeKernel on the same PoCL device, same kernel, same sizes, in one process.
 * Usage: ZE_ENABLE_ALT_DRIVERS=<abs path>/libze_pocl.so ze_pocl_append_cost [repetitions]
 * Each repetition times a batch of launches on each side; the queues are drained between batches and
 * the drain is not timed. For instruction counts run it under valgrind --tool=callgrind and compare the
 * inclusive costs of raw_batch and ze_batch. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <level_zero/ze_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* vadd as SPIR-V (clang-15 -cl-std=CL1.2 -target spir64 -O0, llvm-spirv-15) for ze_pocl ... */
static const uint32_t vadd_spv[] = {
    0x07230203, 0x00010000, 0x0006000e, 0x00000029, 0x00000000, 0x00020011,
    0x00000004, 0x00020011, 0x00000005, 0x00020011, 0x00000006, 0x00020011,
    0x0000000b, 0x0005000b, 0x00000001, 0x6e65704f, 0x732e4c43, 0x00006474,
    0x0003000e, 0x00000002, 0x00000002, 0x0006000f, 0x00000006, 0x00000023,
    0x64646176, 0x00000000, 0x00000005, 0x00030010, 0x00000023, 0x0000001f,
    0x00030003, 0x00000003, 0x00018e70, 0x000b0005, 0x00000005, 0x70735f5f,
    0x5f767269, 0x6c697542, 0x476e4974, 0x61626f6c, 0x766e496c, 0x7461636f,
    0x496e6f69, 0x00000064, 0x00040005, 0x0000000a, 0x64646176, 0x00000000,
    0x000d0047, 0x00000005, 0x00000029, 0x70735f5f, 0x5f767269, 0x6c697542,
    0x476e4974, 0x61626f6c, 0x766e496c, 0x7461636f, 0x496e6f69, 0x00000064,
    0x00000001, 0x00030047, 0x00000005, 0x00000016, 0x00040047, 0x00000005,
    0x0000000b, 0x0000001c, 0x00060047, 0x0000000a, 0x00000029, 0x64646176,
    0x00000000, 0x00000000, 0x00040047, 0x0000000b, 0x0000002c, 0x00000004,
    0x00040047, 0x0000000c, 0x0000002c, 0x00000004, 0x00040047, 0x0000000d,
    0x0000002c, 0x00000004, 0x00040047, 0x00000010, 0x0000002c, 0x00000008,
    0x00040047, 0x00000011, 0x0000002c, 0x00000008, 0x00040047, 0x00000012,
    0x0000002c, 0x00000008, 0x00040047, 0x00000014, 0x0000002c, 0x00000008,
    0x00040047, 0x00000024, 0x0000002c, 0x00000004, 0x00040047, 0x00000025,
    0x0000002c, 0x00000004, 0x00040047, 0x00000026, 0x0000002c, 0x00000004,
    0x00040015, 0x00000002, 0x00000040, 0x00000000, 0x00040017, 0x00000003,
    0x00000002, 0x00000003, 0x00040020, 0x00000004, 0x00000001, 0x00000003,
    0x00020013, 0x00000006, 0x00030016, 0x00000007, 0x00000020, 0x00040020,
    0x00000008, 0x00000005, 0x00000007, 0x00060021, 0x00000009, 0x00000006,
    0x00000008, 0x00000008, 0x00000008, 0x00040020, 0x0000000f, 0x00000007,
    0x00000008, 0x00040020, 0x00000013, 0x00000007, 0x00000002, 0x0004003b,
    0x00000004, 0x00000005, 0x00000001, 0x00050036, 0x00000006, 0x0000000a,
    0x00000002, 0x00000009, 0x00030037, 0x00000008, 0x0000000b, 0x00030037,
    0x00000008, 0x0000000c, 0x00030037, 0x00000008, 0x0000000d, 0x000200f8,
    0x0000000e, 0x0004003b, 0x0000000f, 0x00000010, 0x00000007, 0x0004003b,
    0x0000000f, 0x00000011, 0x00000007, 0x0004003b, 0x0000000f, 0x00000012,
    0x00000007, 0x0004003b, 0x00000013, 0x00000014, 0x00000007, 0x0005003e,
    0x00000010, 0x0000000b, 0x00000002, 0x00000008, 0x0005003e, 0x00000011,
    0x0000000c, 0x00000002, 0x00000008, 0x0005003e, 0x00000012, 0x0000000d,
    0x00000002, 0x00000008, 0x0006003d, 0x00000003, 0x00000015, 0x00000005,
    0x00000002, 0x00000020, 0x00050051, 0x00000002, 0x00000016, 0x00000015,
    0x00000000, 0x0005003e, 0x00000014, 0x00000016, 0x00000002, 0x00000008,
    0x0006003d, 0x00000008, 0x00000017, 0x00000010, 0x00000002, 0x00000008,
    0x0006003d, 0x00000002, 0x00000018, 0x00000014, 0x00000002, 0x00000008,
    0x00050046, 0x00000008, 0x00000019, 0x00000017, 0x00000018, 0x0006003d,
    0x00000007, 0x0000001a, 0x00000019, 0x00000002, 0x00000004, 0x0006003d,
    0x00000008, 0x0000001b, 0x00000011, 0x00000002, 0x00000008, 0x0006003d,
    0x00000002, 0x0000001c, 0x00000014, 0x00000002, 0x00000008, 0x00050046,
    0x00000008, 0x0000001d, 0x0000001b, 0x0000001c, 0x0006003d, 0x00000007,
    0x0000001e, 0x0000001d, 0x00000002, 0x00000004, 0x00050081, 0x00000007,
    0x0000001f, 0x0000001a, 0x0000001e, 0x0006003d, 0x00000008, 0x00000020,
    0x00000012, 0x00000002, 0x00000008, 0x0006003d, 0x00000002, 0x00000021,
    0x00000014, 0x00000002, 0x00000008, 0x00050046, 0x00000008, 0x00000022,
    0x00000020, 0x00000021, 0x0005003e, 0x00000022, 0x0000001f, 0x00000002,
    0x00000004, 0x000100fd, 0x00010038, 0x00050036, 0x00000006, 0x00000023,
    0x00000002, 0x00000009, 0x00030037, 0x00000008, 0x00000024, 0x00030037,
    0x00000008, 0x00000025, 0x00030037, 0x00000008, 0x00000026, 0x000200f8,
    0x00000027, 0x00070039, 0x00000006, 0x00000028, 0x0000000a, 0x00000024,
    0x00000025, 0x00000026, 0x000100fd, 0x00010038,
};

/* ... and as OpenCL C for the raw side: the kernel's code differs in nothing that an enqueue costs. */
static const char *vadd_src =
    "kernel void vadd(global const float *a, global const float *b, global float *c) {\n"
    "  size_t i = get_global_id(0); c[i] = a[i] + b[i];\n"
    "}\n";

enum { BATCH = 256 };
static size_t global_size = 1024, local_size = 64;
static cl_command_queue cq;
static cl_kernel ck;
static ze_command_list_handle_t zl;
static ze_kernel_handle_t zk;
static ze_event_handle_t zev;

static int fail(const char *what, long code) {
    fprintf(stderr, "ze_pocl_append_cost: %s failed (%ld)\n", what, code);
    exit(1);
}
#define CK(x) do { long r_ = (long)(x); if (r_) fail(#x, r_); } while (0)

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

__attribute__((noinline)) static void raw_batch(void) {
    for (int i = 0; i < BATCH; i++) clEnqueueNDRangeKernel(cq, ck, 1, NULL, &global_size, &local_size, 0, NULL, NULL);
}

__attribute__((noinline)) static void ze_batch(void) {
    ze_group_count_t gc = {(uint32_t)(global_size / local_size), 1, 1};
    for (int i = 0; i < BATCH; i++) zeCommandListAppendLaunchKernel(zl, zk, &gc, NULL, 0, NULL);
}

static void ze_drain(void) {
    CK(zeCommandListAppendBarrier(zl, zev, 0, NULL));
    CK(zeEventHostSynchronize(zev, UINT64_MAX));
    CK(zeEventHostReset(zev));
}

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 40;
    if (reps < 2) reps = 2;

    CK(zeInit(0));
    ze_driver_handle_t drv;
    uint32_t n = 1;
    CK(zeDriverGet(&n, &drv));
    ze_device_handle_t dev;
    n = 1;
    CK(zeDeviceGet(drv, &n, &dev));
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_context_handle_t ctx;
    CK(zeContextCreate(drv, &cd, &ctx));
    ze_module_desc_t md = {ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_IL_SPIRV, sizeof vadd_spv,
                           (const uint8_t *)vadd_spv, "", NULL};
    ze_module_handle_t mod;
    CK(zeModuleCreate(ctx, dev, &md, &mod, NULL));
    ze_kernel_desc_t kd = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, "vadd"};
    CK(zeKernelCreate(mod, &kd, &zk));
    ze_device_mem_alloc_desc_t dd = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    void *a, *b, *c;
    CK(zeMemAllocDevice(ctx, &dd, global_size * 4, 64, dev, &a));
    CK(zeMemAllocDevice(ctx, &dd, global_size * 4, 64, dev, &b));
    CK(zeMemAllocDevice(ctx, &dd, global_size * 4, 64, dev, &c));
    CK(zeKernelSetArgumentValue(zk, 0, sizeof a, &a));
    CK(zeKernelSetArgumentValue(zk, 1, sizeof b, &b));
    CK(zeKernelSetArgumentValue(zk, 2, sizeof c, &c));
    CK(zeKernelSetGroupSize(zk, (uint32_t)local_size, 1, 1));
    ze_command_queue_desc_t qd = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0,
                                  ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    CK(zeCommandListCreateImmediate(ctx, dev, &qd, &zl));
    ze_event_pool_desc_t pd = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1};
    ze_event_pool_handle_t pool;
    CK(zeEventPoolCreate(ctx, &pd, 1, &dev, &pool));
    ze_event_desc_t ed = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, 0, 0};
    CK(zeEventCreate(pool, &ed, &zev));

    /* The raw side: the first device of the PoCL platform, which is ze_pocl's first device too. */
    cl_uint np = 0;
    CK(clGetPlatformIDs(0, NULL, &np));
    cl_platform_id plats[8], p = NULL;
    CK(clGetPlatformIDs(np < 8 ? np : 8, plats, NULL));
    for (cl_uint i = 0; i < np && i < 8 && !p; i++) {
        char name[256] = {0};
        clGetPlatformInfo(plats[i], CL_PLATFORM_NAME, sizeof name - 1, name, NULL);
        if (strstr(name, "Portable Computing Language")) p = plats[i];
    }
    if (!p) fail("finding the PoCL platform", -1);
    cl_device_id d;
    CK(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL));
    cl_int err;
    cl_context cc = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
    CK(err);
    cl_queue_properties qp[] = {CL_QUEUE_PROPERTIES, 0, 0};
    cq = clCreateCommandQueueWithProperties(cc, d, qp, &err);
    CK(err);
    cl_program pr = clCreateProgramWithSource(cc, 1, &vadd_src, NULL, &err);
    CK(err);
    CK(clBuildProgram(pr, 1, &d, "", NULL, NULL));
    ck = clCreateKernel(pr, "vadd", &err);
    CK(err);
    cl_svm_mem_flags f = CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER;
    void *ra = clSVMAlloc(cc, f, global_size * 4, 64), *rb = clSVMAlloc(cc, f, global_size * 4, 64),
         *rc = clSVMAlloc(cc, f, global_size * 4, 64);
    CK(clSetKernelArgSVMPointer(ck, 0, ra));
    CK(clSetKernelArgSVMPointer(ck, 1, rb));
    CK(clSetKernelArgSVMPointer(ck, 2, rc));

    /* Medians of per-batch figures: the machine is shared, and a mean would carry every interruption. */
    double *raw = calloc((size_t)reps, sizeof *raw), *ze = calloc((size_t)reps, sizeof *ze);
    if (!raw || !ze) fail("calloc", -1);
    for (int r = 0; r < reps; r++) {
        double t0 = now_ns();
        raw_batch();
        double t1 = now_ns();
        CK(clFinish(cq));
        double t2 = now_ns();
        ze_batch();
        double t3 = now_ns();
        ze_drain();
        raw[r] = (t1 - t0) / BATCH;
        ze[r] = (t3 - t2) / BATCH;
    }
    /* The first batch of each side warms caches and PoCL's kernel compilation: left out. */
    qsort(raw + 1, (size_t)reps - 1, sizeof *raw, cmp_double);
    qsort(ze + 1, (size_t)reps - 1, sizeof *ze, cmp_double);
    double mraw = raw[1 + (reps - 1) / 2], mze = ze[1 + (reps - 1) / 2];
    printf("host time per launch, median of %d batches of %d (global %zu, local %zu): clEnqueueNDRangeKernel "
           "%.0f ns, zeCommandListAppendLaunchKernel %.0f ns, ratio %.2f\n",
           reps - 1, BATCH, global_size, local_size, mraw, mze, mze / mraw);
    free(raw);
    free(ze);
    return 0;
}
