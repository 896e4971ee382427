/*
 * launch_overhead: host cost of one launch of a 4-argument kernel, five ways, in one run:
 *   (a) raw Level Zero: zeKernelSetArgumentValue x4, zeKernelSetGroupSize, zeCommandListAppendLaunchKernel
 *       on one immediate command list, group size fixed;
 *   (b) krt_launch with a static group size;
 *   (c) krt_launch with the group size chosen by krt (memoized);
 *   (d) krt_launch with the group size chosen by krt in a context created with KRT_CONTEXT_FLAG_NO_MEMO;
 *   (e) raw OpenCL: clSetKernelArg x4 and clEnqueueNDRangeKernel on the same PoCL device;
 *   (f) raw Level Zero as SYCL's runtimes submit: (a), but every launch signals an event of its own and waits on
 *       the previous launch's, so the driver arms a signal and watches a completion per launch.
 * Every case synchronizes its queue every --sync-every launches (so queues stay bounded) and the time of those
 * synchronizations is part of the wall time of every case alike. The repeats interleave the cases, so a burst
 * of load from elsewhere on the machine hits all of them. Instructions per launch come from callgrind, in a
 * child run per case that collects only inside the function holding the launch loop (not the
 * synchronizations): that count is immune to the noise of a shared machine.
 *
 * Usage: launch_overhead [--launches N] [--repeats R] [--sync-every S] [--callgrind-launches M]
 *                        [--no-callgrind] [--out DIR]
 *        --cases abcdef selects cases (default all); the ratios need (a).
 *        launch_overhead --child --case X --launches M  (what the callgrind runs execute)
 */
#include "bench_util.h"

#include <krt.h>

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <level_zero/ze_api.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RANGE 1024u /* work-items per launch: as in the reference floor (global 1024, local 64) */
#define GROUP 64u   /* the fixed group size of cases a, b and e */
#define NCASES 6

static const char *const case_names[NCASES] = {
    "(a) raw Level Zero", "(b) krt static", "(c) krt dynamic (memo)", "(d) krt dynamic NO_MEMO",
    "(e) raw OpenCL", "(f) raw Level Zero, events chained",
};

/* ------------------------------------------------------------------------------------------------------ */
/* (a) raw Level Zero                                                                                       */

typedef struct ze_case {
    ze_driver_handle_t driver;
    ze_device_handle_t device;
    ze_context_handle_t context;
    ze_command_list_handle_t list;
    ze_module_handle_t module;
    ze_kernel_handle_t kernel;
    ze_event_pool_handle_t pool;
    ze_event_handle_t done;
    ze_event_pool_handle_t chain_pool; /* (f): one event per launch of a chunk, reset at each synchronize */
    ze_event_handle_t *chain;
    uint32_t chain_used;
    ze_group_count_t groups;
    float *y, *x;
    float a;
    uint32_t n;
} ze_case;

#define ZE_CHECK(call)                                                                                     \
    do {                                                                                                   \
        ze_result_t r_ = (call);                                                                           \
        if (r_ != ZE_RESULT_SUCCESS)                                                                       \
            bench_die("%s failed: 0x%x", #call, (unsigned)r_);                                              \
    } while (0)

static void ze_setup(ze_case *c, uint32_t chain_len)
{
    ZE_CHECK(zeInit(0));
    uint32_t n = 1;
    ZE_CHECK(zeDriverGet(&n, &c->driver));
    n = 1;
    ZE_CHECK(zeDeviceGet(c->driver, &n, &c->device));
    ze_context_desc_t cd = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
    ZE_CHECK(zeContextCreate(c->driver, &cd, &c->context));
    /* API 1.4 has no in-order flag; an immediate list of ze_pocl executes in order, like krt's queues. */
    ze_command_queue_desc_t qd = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                  .mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
                                  .priority = ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ZE_CHECK(zeCommandListCreateImmediate(c->context, c->device, &qd, &c->list));
    size_t size;
    void *spv = bench_read_file(bench_path(bench_kernel_dir(), "bench_launch.spv"), &size);
    ze_module_desc_t md = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC, .format = ZE_MODULE_FORMAT_IL_SPIRV,
                           .inputSize = size, .pInputModule = spv, .pBuildFlags = ""};
    ZE_CHECK(zeModuleCreate(c->context, c->device, &md, &c->module, NULL));
    free(spv);
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = "k4"};
    ZE_CHECK(zeKernelCreate(c->module, &kd, &c->kernel));
    ze_device_mem_alloc_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    ZE_CHECK(zeMemAllocShared(c->context, &dd, &hd, RANGE * sizeof(float), 64, c->device, (void **)&c->y));
    ZE_CHECK(zeMemAllocShared(c->context, &dd, &hd, RANGE * sizeof(float), 64, c->device, (void **)&c->x));
    ze_event_pool_desc_t pd = {.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, .flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE,
                               .count = 1};
    ZE_CHECK(zeEventPoolCreate(c->context, &pd, 1, &c->device, &c->pool));
    ze_event_desc_t ed = {.stype = ZE_STRUCTURE_TYPE_EVENT_DESC, .index = 0,
                          .signal = ZE_EVENT_SCOPE_FLAG_HOST, .wait = ZE_EVENT_SCOPE_FLAG_HOST};
    ZE_CHECK(zeEventCreate(c->pool, &ed, &c->done));
    if (chain_len) {
        ze_event_pool_desc_t cp = {.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
                                   .flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE, .count = chain_len};
        ZE_CHECK(zeEventPoolCreate(c->context, &cp, 1, &c->device, &c->chain_pool));
        c->chain = calloc(chain_len, sizeof *c->chain);
        if (!c->chain)
            bench_die("out of memory");
        for (uint32_t i = 0; i < chain_len; i++) {
            ze_event_desc_t ce = {.stype = ZE_STRUCTURE_TYPE_EVENT_DESC, .index = i,
                                  .signal = ZE_EVENT_SCOPE_FLAG_HOST, .wait = ZE_EVENT_SCOPE_FLAG_HOST};
            ZE_CHECK(zeEventCreate(c->chain_pool, &ce, &c->chain[i]));
        }
    }
    c->groups = (ze_group_count_t){RANGE / GROUP, 1, 1};
    c->a = 1.0f;
    c->n = RANGE;
}

/* What every launch of cases (a) and (f) sets before its append: the four arguments and the group size. */
static inline __attribute__((always_inline)) int ze_set_launch(ze_case *c)
{
    int bad = zeKernelSetArgumentValue(c->kernel, 0, sizeof c->y, &c->y);
    bad |= zeKernelSetArgumentValue(c->kernel, 1, sizeof c->x, &c->x);
    bad |= zeKernelSetArgumentValue(c->kernel, 2, sizeof c->a, &c->a);
    bad |= zeKernelSetArgumentValue(c->kernel, 3, sizeof c->n, &c->n);
    return bad | zeKernelSetGroupSize(c->kernel, GROUP, 1, 1);
}

/* The launch loop of case (a), kept out of line so that callgrind can count exactly this. */
static __attribute__((noinline)) int ze_chunk(ze_case *c, uint32_t count)
{
    int bad = 0;
    for (uint32_t i = 0; i < count; i++) {
        bad |= ze_set_launch(c);
        bad |= zeCommandListAppendLaunchKernel(c->list, c->kernel, &c->groups, NULL, 0, NULL);
    }
    return bad;
}

/* The launch loop of case (f): launch i of a chunk signals chain[i] and waits on chain[i - 1]. */
static __attribute__((noinline)) int ze_chained_chunk(ze_case *c, uint32_t count)
{
    int bad = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t e = c->chain_used++; /* below --sync-every, the chain's length: ze_sync resets it */
        bad |= ze_set_launch(c);
        bad |= zeCommandListAppendLaunchKernel(c->list, c->kernel, &c->groups, c->chain[e], e ? 1 : 0,
                                               e ? &c->chain[e - 1] : NULL);
    }
    return bad;
}

/* API 1.4 has no list synchronize: a barrier that signals a host-visible event stands in for it. Case (f)'s events
 * are reset here, once everything that signals them is done. */
static void ze_sync(ze_case *c)
{
    ZE_CHECK(zeCommandListAppendBarrier(c->list, c->done, 0, NULL));
    ZE_CHECK(zeEventHostSynchronize(c->done, UINT64_MAX));
    ZE_CHECK(zeEventHostReset(c->done));
    for (uint32_t i = 0; i < c->chain_used; i++)
        ZE_CHECK(zeEventHostReset(c->chain[i]));
    c->chain_used = 0;
}

/* ------------------------------------------------------------------------------------------------------ */
/* (b), (c), (d): krt                                                                                       */

typedef struct krt_case {
    krt_context *ctx;
    krt_module *module;
    krt_kernel *kernel;
    krt_queue *queue;
    float *y, *x;
    float a;
    uint32_t n;
    krt_arg args[4];
    krt_launch_desc desc;
} krt_case;

static void krt_setup(krt_case *c, uint32_t flags, int static_group)
{
    /* min_groups 16: krt's dynamic choice for the range is then 64, the static case's group, so that (b), (c)
     * and (d) run the same kernel work (on a CPU device the default would give one masked group of 4096). */
    krt_context_desc cd = {.flags = flags, .min_groups = 16};
    KRT_CHECK(krt_context_create(&cd, &c->ctx));
    krt_module_desc md = {.path = bench_path(bench_kernel_dir(), "bench_launch.spv")};
    KRT_CHECK(krt_module_create(c->ctx, &md, &c->module));
    KRT_CHECK(krt_kernel_get(c->module, "k4", &c->kernel));
    krt_alloc_desc ad = {.kind = KRT_MEMORY_SHARED};
    KRT_CHECK(krt_alloc(c->ctx, RANGE * sizeof(float), &ad, (void **)&c->y));
    KRT_CHECK(krt_alloc(c->ctx, RANGE * sizeof(float), &ad, (void **)&c->x));
    c->queue = krt_context_default_queue(c->ctx);
    c->a = 1.0f;
    c->n = RANGE;
    c->args[0] = KRT_ARG(c->y);
    c->args[1] = KRT_ARG(c->x);
    c->args[2] = KRT_ARG(c->a);
    c->args[3] = KRT_ARG(c->n);
    c->desc = (krt_launch_desc){.range = {1, {RANGE, 1, 1}}, .args = c->args, .num_args = 4, .queue = c->queue};
    if (static_group)
        c->desc.group[0] = GROUP;
}

static __attribute__((noinline)) int krt_chunk(krt_case *c, uint32_t count)
{
    int bad = 0;
    for (uint32_t i = 0; i < count; i++)
        bad |= krt_launch(c->kernel, &c->desc);
    return bad;
}

static void krt_sync(krt_case *c)
{
    KRT_CHECK(krt_queue_synchronize(c->queue));
}

/* ------------------------------------------------------------------------------------------------------ */
/* (e) raw OpenCL on PoCL                                                                                    */

typedef struct cl_case {
    cl_context context;
    cl_command_queue queue;
    cl_program program;
    cl_kernel kernel;
    float *y, *x;
    float a;
    cl_uint n;
    size_t global, local;
    const char *built_from;
} cl_case;

#define CL_CHECK(call)                                                                                     \
    do {                                                                                                   \
        cl_int r_ = (call);                                                                                \
        if (r_ != CL_SUCCESS)                                                                              \
            bench_die("%s failed: %d", #call, (int)r_);                                                    \
    } while (0)

/* The device ze_pocl would expose first: the first device of the PoCL platform (POCL_DEVICES applies to
 * both). The kernel comes from the SPIR bitcode the SPIR-V was made from, built the way ze_pocl builds it;
 * if PoCL refuses that, from the OpenCL C source, which makes no difference to the host cost of a launch. */
static void cl_setup(cl_case *c)
{
    cl_platform_id plats[8];
    cl_uint np = 0;
    CL_CHECK(clGetPlatformIDs(8, plats, &np));
    cl_platform_id plat = NULL;
    for (cl_uint i = 0; i < np && !plat; i++) {
        char name[256] = "";
        clGetPlatformInfo(plats[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
        if (strstr(name, "Portable Computing Language") || strstr(name, "PoCL") || strstr(name, "pocl"))
            plat = plats[i];
    }
    if (!plat)
        bench_die("no PoCL OpenCL platform");
    cl_device_id dev;
    CL_CHECK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
    cl_int err;
    c->context = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CL_CHECK(err);
    c->queue = clCreateCommandQueueWithProperties(c->context, dev, NULL, &err);
    CL_CHECK(err);
    size_t size;
    void *bc = bench_read_file(bench_path(bench_kernel_dir(), "bench_launch.bc"), &size);
    const unsigned char *bin = bc;
    cl_int bst;
    c->built_from = "SPIR bitcode";
    c->program = clCreateProgramWithBinary(c->context, 1, &dev, &size, &bin, &bst, &err);
    if (err != CL_SUCCESS || clBuildProgram(c->program, 1, &dev, "-x spir -spir-std=1.2", NULL, NULL) != CL_SUCCESS) {
        if (c->program)
            clReleaseProgram(c->program);
        size_t slen;
        char *src = bench_read_file(bench_path(bench_kernel_dir(), "bench_launch.cl"), &slen);
        const char *s = src;
        c->program = clCreateProgramWithSource(c->context, 1, &s, &slen, &err);
        CL_CHECK(err);
        CL_CHECK(clBuildProgram(c->program, 1, &dev, "", NULL, NULL));
        free(src);
        c->built_from = "OpenCL C source";
    }
    free(bc);
    c->kernel = clCreateKernel(c->program, "k4", &err);
    CL_CHECK(err);
    c->y = clSVMAlloc(c->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, RANGE * sizeof(float), 64);
    c->x = clSVMAlloc(c->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, RANGE * sizeof(float), 64);
    if (!c->y || !c->x)
        bench_die("clSVMAlloc failed");
    c->a = 1.0f;
    c->n = RANGE;
    c->global = RANGE;
    c->local = GROUP;
}

static __attribute__((noinline)) int cl_chunk(cl_case *c, uint32_t count)
{
    int bad = 0;
    for (uint32_t i = 0; i < count; i++) {
        bad |= clSetKernelArgSVMPointer(c->kernel, 0, c->y);
        bad |= clSetKernelArgSVMPointer(c->kernel, 1, c->x);
        bad |= clSetKernelArg(c->kernel, 2, sizeof c->a, &c->a);
        bad |= clSetKernelArg(c->kernel, 3, sizeof c->n, &c->n);
        bad |= clEnqueueNDRangeKernel(c->queue, c->kernel, 1, NULL, &c->global, &c->local, 0, NULL, NULL);
    }
    return bad;
}

static void cl_sync(cl_case *c)
{
    CL_CHECK(clFinish(c->queue));
}

/* ------------------------------------------------------------------------------------------------------ */

typedef struct cases {
    int active[NCASES];
    ze_case ze;
    krt_case krt[3]; /* b, c, d */
    cl_case cl;
    ze_case zf; /* f */
    uint32_t sync_every;
} cases;

static void setup(cases *s)
{
    if (s->active[0])
        ze_setup(&s->ze, 0);
    if (s->active[1])
        krt_setup(&s->krt[0], 0, 1);
    if (s->active[2])
        krt_setup(&s->krt[1], 0, 0);
    if (s->active[3])
        krt_setup(&s->krt[2], KRT_CONTEXT_FLAG_NO_MEMO, 0);
    if (s->active[4])
        cl_setup(&s->cl);
    if (s->active[5])
        ze_setup(&s->zf, s->sync_every);
}

/* Zeroes y and sets x to 1, so that after L launches every y[i] must equal L: the check that each case really
 * ran its kernels. */
static float *case_y(cases *s, int k, float **x)
{
    switch (k) {
    case 0: *x = s->ze.x; return s->ze.y;
    case 1: case 2: case 3: *x = s->krt[k - 1].x; return s->krt[k - 1].y;
    case 5: *x = s->zf.x; return s->zf.y;
    default: *x = s->cl.x; return s->cl.y;
    }
}

static void reset_data(cases *s, int k)
{
    float *x, *y = case_y(s, k, &x);
    for (uint32_t i = 0; i < RANGE; i++) {
        y[i] = 0;
        x[i] = 1;
    }
}

static void check_data(cases *s, int k, uint64_t launches)
{
    float *x, *y = case_y(s, k, &x);
    for (uint32_t i = 0; i < RANGE; i++)
        if (y[i] != (float)launches)
            bench_die("%s: y[%u] = %g after %llu launches, expected %llu", case_names[k], i, y[i],
                      (unsigned long long)launches, (unsigned long long)launches);
}

static int chunk(cases *s, int k, uint32_t count)
{
    switch (k) {
    case 0: return ze_chunk(&s->ze, count);
    case 1: case 2: case 3: return krt_chunk(&s->krt[k - 1], count);
    case 5: return ze_chained_chunk(&s->zf, count);
    default: return cl_chunk(&s->cl, count);
    }
}

static void sync_case(cases *s, int k)
{
    switch (k) {
    case 0: ze_sync(&s->ze); break;
    case 1: case 2: case 3: krt_sync(&s->krt[k - 1]); break;
    case 5: ze_sync(&s->zf); break;
    default: cl_sync(&s->cl); break;
    }
}

/* Runs `launches` launches of case k in chunks of sync_every, synchronizing after each chunk. Returns the
 * wall time; *host_ns receives the time spent in the launch calls alone. Under callgrind, collection is on
 * only around the chunks when `collect` is set. */
static uint64_t run_case(cases *s, int k, uint64_t launches, uint32_t sync_every, int collect, uint64_t *host_ns)
{
    uint64_t t0 = bench_now_ns(), host = 0;
    for (uint64_t done = 0; done < launches; done += sync_every) {
        uint32_t n = (uint32_t)(launches - done < sync_every ? launches - done : sync_every);
        uint64_t c0 = bench_now_ns();
        if (collect)
            CALLGRIND_TOGGLE_COLLECT;
        int bad = chunk(s, k, n);
        if (collect)
            CALLGRIND_TOGGLE_COLLECT;
        host += bench_now_ns() - c0;
        if (bad)
            bench_die("%s: a launch failed", case_names[k]);
        sync_case(s, k);
    }
    *host_ns = host;
    return bench_now_ns() - t0;
}

static int case_index(const char *name)
{
    if (strlen(name) == 1 && name[0] >= 'a' && name[0] < 'a' + NCASES)
        return name[0] - 'a';
    bench_die("unknown case %s (a-f)", name);
}

/* The callgrind child: one case, a warm-up chunk that fills every cache, then the measured launches. */
static int child_main(int argc, char **argv)
{
    cases s;
    memset(&s, 0, sizeof s);
    int k = case_index(bench_opt_str(argc, argv, "case", "a"));
    uint64_t launches = (uint64_t)bench_opt_long(argc, argv, "launches", 2000);
    uint32_t sync_every = (uint32_t)bench_opt_long(argc, argv, "sync-every", 1000);
    s.active[k] = 1;
    s.sync_every = sync_every;
    setup(&s);
    uint64_t h;
    run_case(&s, k, sync_every, sync_every, 0, &h);
    run_case(&s, k, launches, sync_every, 1, &h);
    return 0;
}

static const char *fmt(char *buf, const char *f, double v)
{
    snprintf(buf, 32, f, v);
    return buf;
}

static const char usage[] =
    "usage: launch_overhead [--launches N] [--repeats R] [--sync-every S] [--callgrind-launches M]\n"
    "                       [--no-callgrind] [--cases abcdef] [--out DIR]\n"
    "Environment: ZE_ENABLE_ALT_DRIVERS (the ze_pocl driver), KRT_BENCH_KERNELS (build/bench/kernels).\n";
static const char *const known_opts[] = {"launches", "repeats", "sync-every", "callgrind-launches", "no-callgrind",
                                         "cases", "out", "child", "case", NULL};

int main(int argc, char **argv)
{
    bench_usage(argc, argv, usage, known_opts);
    if (bench_opt_flag(argc, argv, "child"))
        return child_main(argc, argv);

    uint64_t launches = (uint64_t)bench_opt_long(argc, argv, "launches", 100000);
    int repeats = (int)bench_opt_long(argc, argv, "repeats", 5);
    uint32_t sync_every = (uint32_t)bench_opt_long(argc, argv, "sync-every", 1000);
    long cg_launches = bench_opt_long(argc, argv, "callgrind-launches", 2000);
    const char *out = bench_opt_str(argc, argv, "out", "build/bench");
    int no_cg = bench_opt_flag(argc, argv, "no-callgrind");
    if (repeats < 1 || repeats > 100 || launches < 1 || sync_every < 1)
        bench_die("bad options");

    const char *which = bench_opt_str(argc, argv, "cases", "abcdef");
    cases s;
    memset(&s, 0, sizeof s);
    s.sync_every = sync_every;
    for (int k = 0; k < NCASES; k++)
        s.active[k] = strchr(which, 'a' + k) != NULL;
    setup(&s);

    krt_launch_config cfg = {.group = {0}};
    if (s.active[2])
        KRT_CHECK(krt_launch_config_get(s.krt[1].kernel, &s.krt[1].desc.range, &cfg));
    printf("launch_overhead: kernel k4 (4 arguments), range %u, static group %u, krt's dynamic choice %u "
           "(%u groups); %llu launches x %d repeats, synchronize every %u\n",
           RANGE, GROUP, cfg.group[0], cfg.groups[0], (unsigned long long)launches, repeats, sync_every);
    if (s.active[4])
        printf("raw OpenCL kernel built from %s\n", s.cl.built_from);

    /* Warm-up: every case fills its caches (kernel compilation for the group size, krt's memo) and its
     * results are checked once before anything is timed. */
    for (int k = 0; k < NCASES; k++) {
        uint64_t h;
        if (!s.active[k])
            continue;
        reset_data(&s, k);
        run_case(&s, k, sync_every, sync_every, 0, &h);
        check_data(&s, k, sync_every);
    }

    double wall[NCASES][100] = {{0}}, host[NCASES][100] = {{0}};
    for (int k = 0; k < NCASES; k++)
        if (s.active[k])
            reset_data(&s, k);
    for (int r = 0; r < repeats; r++)
        for (int j = 0; j < NCASES; j++) {
            int k = (j + r) % NCASES; /* rotate the order so that no case always runs first */
            if (!s.active[k])
                continue;
            uint64_t h, w = run_case(&s, k, launches, sync_every, 0, &h);
            wall[k][r] = (double)w / (double)launches;
            host[k][r] = (double)h / (double)launches;
        }
    for (int k = 0; k < NCASES; k++)
        if (s.active[k])
            check_data(&s, k, launches * (uint64_t)repeats);

    /* Instructions per launch, one callgrind child per case. */
    double instr[NCASES] = {0}, own[NCASES] = {0};
    if (!no_cg) {
        char cgl[32], se[32];
        snprintf(cgl, sizeof cgl, "%ld", cg_launches);
        snprintf(se, sizeof se, "%u", sync_every);
        for (int k = 0; k < NCASES; k++) {
            if (!s.active[k])
                continue;
            char cn[2] = {(char)('a' + k), 0}, of[4096], af[4096];
            snprintf(of, sizeof of, "%s/callgrind/launch_%c.out", out, 'a' + k);
            snprintf(af, sizeof af, "%s/callgrind/launch_%c.txt", out, 'a' + k);
            const char *args[] = {"--child", "--case", cn, "--launches", cgl, "--sync-every", se, NULL};
            fprintf(stderr, "launch_overhead: callgrind, case %s ...\n", case_names[k]);
            uint64_t ir = bench_callgrind("/proc/self/exe", args, of, af);
            instr[k] = ir ? (double)ir / (double)cg_launches : NAN;
            /* The share of the API below the caller: the driver's (through the loader) or OpenCL's entry
             * points, inclusive. What is left is the caller's own work: krt's, for cases b-d. */
            static const char *const ze_fns[] = {"zeCommandListAppendLaunchKernel", "zeKernelSetArgumentValue",
                                                 "zeKernelSetGroupSize", NULL};
            static const char *const cl_fns[] = {"clEnqueueNDRangeKernel", "clSetKernelArg",
                                                 "clSetKernelArgSVMPointer", NULL};
            uint64_t below = 0;
            for (const char *const *f = k == 4 ? cl_fns : ze_fns; *f; f++)
                below += bench_callgrind_inclusive(af, *f);
            own[k] = ir && below ? (double)(ir - below) / (double)cg_launches : NAN;
        }
    }

    FILE *csv = bench_csv_open(out, "launch_overhead.csv");
    fprintf(csv, "case,label,wall_ns,host_ns,wall_min_ns,host_min_ns,instructions,own_instructions,wall_ratio,"
                 "host_ratio,instr_ratio\n");
    enum { COLS = 8 };
    const char *cells[(NCASES + 1) * COLS];
    static char buf[(NCASES + 1) * COLS][32];
    const char *hdr[COLS] = {"case", "wall ns/launch", "host ns/launch", "instr/launch", "instr above API",
                             "wall / (a)", "host / (a)", "instr / (a)"};
    for (int c = 0; c < COLS; c++)
        cells[c] = hdr[c];
    double mw[NCASES], mh[NCASES];
    for (int k = 0; k < NCASES; k++) {
        mw[k] = bench_median(wall[k], (size_t)repeats);
        mh[k] = bench_median(host[k], (size_t)repeats);
    }
    for (int k = 0; k < NCASES; k++) {
        const char **row = cells + (k + 1) * COLS;
        char(*b)[32] = buf + (k + 1) * COLS;
        row[0] = case_names[k];
        if (!s.active[k]) {
            for (int c = 1; c < COLS; c++)
                row[c] = "not run";
            continue;
        }
        int have_i = !(isnan(instr[k]) || instr[k] == 0);
        row[1] = fmt(b[1], "%.0f", mw[k]);
        row[2] = fmt(b[2], "%.0f", mh[k]);
        row[3] = have_i ? fmt(b[3], "%.0f", instr[k]) : "n/a";
        row[4] = isnan(own[k]) || own[k] == 0 ? "n/a" : fmt(b[4], "%.0f", own[k]);
        row[5] = s.active[0] ? fmt(b[5], "%.3f", mw[k] / mw[0]) : "n/a";
        row[6] = s.active[0] ? fmt(b[6], "%.3f", mh[k] / mh[0]) : "n/a";
        row[7] = have_i && instr[0] > 0 ? fmt(b[7], "%.3f", instr[k] / instr[0]) : "n/a";
        fprintf(csv, "%c,\"%s\",%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.4f,%.4f,%.4f\n", 'a' + k, case_names[k], mw[k],
                mh[k], bench_min(wall[k], (size_t)repeats), bench_min(host[k], (size_t)repeats), instr[k], own[k],
                mw[k] / mw[0], mh[k] / mh[0], instr[k] / instr[0]);
    }
    fclose(csv);
    bench_table_emit(out, "launch_overhead.md",
                     "launch_overhead (median of repeats; wall includes the periodic synchronize, host is the "
                     "launch calls alone; instr above API excludes the Level Zero or OpenCL calls)",
                     COLS, NCASES + 1, cells);

    /* The goals of the benchmark, each with its measured ratio. */
    FILE *g = bench_csv_open(out, "launch_overhead_goals.csv");
    fprintf(g, "goal,metric,measured,limit,met\n");
    printf("\ngoals:\n");
    struct {
        const char *goal, *metric;
        double v, lim;
        int at_most;
    } goals[] = {
        {"(c)/(a) <= 1.05", "instructions", instr[2] / instr[0], 1.05, 1},
        {"(c)/(a) <= 1.05", "host ns", mh[2] / mh[0], 1.05, 1},
        {"(d)/(c) >= 5", "instructions", instr[3] / instr[2], 5, 0},
        {"(d)/(c) >= 5", "host ns", mh[3] / mh[2], 5, 0},
        {"(d)/(c) >= 5", "krt's own instr", own[3] / own[2], 5, 0},
        {"(a)/(e) <= 1.25", "instructions", instr[0] / instr[4], 1.25, 1},
        {"(a)/(e) <= 1.25", "host ns", mh[0] / mh[4], 1.25, 1},
        {"(a)/(e) <= 1.25", "wall ns", mw[0] / mw[4], 1.25, 1},
    };
    for (size_t i = 0; i < sizeof goals / sizeof goals[0]; i++) {
        double v = goals[i].v;
        const char *met = isnan(v) || isinf(v) || v == 0 ? "n/a"
                          : (goals[i].at_most ? v <= goals[i].lim : v >= goals[i].lim) ? "yes" : "NO";
        if (!strcmp(met, "n/a"))
            printf("  %-16s %-13s %8s  met: n/a\n", goals[i].goal, goals[i].metric, "n/a");
        else
            printf("  %-16s %-13s %8.3f  met: %s\n", goals[i].goal, goals[i].metric, v, met);
        fprintf(g, "\"%s\",%s,%.4f,%.2f,%s\n", goals[i].goal, goals[i].metric, v, goals[i].lim, met);
    }
    fclose(g);
    return 0;
}
