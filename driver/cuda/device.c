/* CUDA backend: the CUDA driver API opened with dlopen at zeInit (zc_cu), the devices and their properties,
 * each thread's context binding, CUDA results as Level Zero results, and the clock of timestamps. Without
 * libcuda.so.1, with ZE_CUDA_DISABLE=1, or when cuInit finds no GPU, there are no devices. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_be.h"
#include "ptx.h"

zc_cuda_api zc_cu;

#define ZC_MAX_DEVICES 16
static struct zp_bdev devs[ZC_MAX_DEVICES];
static uint32_t num_devs;
/* ZP_PEER_* bits of device i towards device j (i != j), from CUDA at zeInit. */
static unsigned char peer[ZC_MAX_DEVICES][ZC_MAX_DEVICES];
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static ze_result_t init_result;

/* The device whose primary context this thread has bound (zc_bind), and the epoch it was bound at. */
static __thread CUcontext bound_ctx;
static __thread struct zp_bdev *bound_dev;
static __thread unsigned bound_epoch;

/* CUDA's sticky errors: the CUDA context hit a fault it cannot continue from (cuda.h: "any further CUDA work will
 * return the same error"), whichever call reports it first, a launch, an event query, a synchronize or an
 * allocation. Level Zero's DEVICE_LOST ("device hung, reset, was removed") is the nearest; the device stays lost
 * until zc_device_recover resets the context. */
static bool sticky(CUresult r) {
    switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_NVLINK_UNCORRECTABLE:
    case CUDA_ERROR_CONTAINED:
    case CUDA_ERROR_TENSOR_MEMORY_LEAK:
        return true;
    default:
        return false;
    }
}

ze_result_t zc_result(CUresult r) {
    if (sticky(r)) {
        if (bound_dev) atomic_store_explicit(&bound_dev->lost, true, memory_order_release);
        return ZE_RESULT_ERROR_DEVICE_LOST;
    }
    switch (r) {
    case CUDA_SUCCESS: return ZE_RESULT_SUCCESS;
    case CUDA_ERROR_NOT_READY: return ZE_RESULT_NOT_READY;
    case CUDA_ERROR_OUT_OF_MEMORY: return ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
    case CUDA_ERROR_INVALID_VALUE: return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
    case CUDA_ERROR_INVALID_PTX:
    case CUDA_ERROR_INVALID_IMAGE:
    case CUDA_ERROR_NO_BINARY_FOR_GPU: return ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
    case CUDA_ERROR_NOT_SUPPORTED: return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    case CUDA_ERROR_NOT_INITIALIZED:
    case CUDA_ERROR_DEINITIALIZED: return ZE_RESULT_ERROR_UNINITIALIZED;
    /* The GPU itself gone (or taken by another process in exclusive mode): lost to this process for now, but nothing
     * of its context failed, so the device is not marked. */
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_INVALID_DEVICE:
    case CUDA_ERROR_DEVICE_UNAVAILABLE: return ZE_RESULT_ERROR_DEVICE_LOST;
    /* Anything else is not a lost device: krt keeps a context lost for good after DEVICE_LOST, so an error CUDA
     * recovers from (an invalid handle, a capture refused) must not say it. */
    default: return ZE_RESULT_ERROR_UNKNOWN;
    }
}

bool zc_device_lost(zp_bdev *d) { return atomic_load_explicit(&d->lost, memory_order_acquire); }

uint64_t zc_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Each thread binds a device's primary context once; calls from then on cost two compares. A reset (the epoch) binds
 * again: the context handle may be the same after it. */
void zc_bind(struct zp_bdev *d) {
    unsigned epoch = atomic_load_explicit(&d->epoch, memory_order_acquire);
    if (bound_ctx != d->ctx || bound_epoch != epoch) {
        zc_cu.cuCtxSetCurrent(d->ctx);
        bound_ctx = d->ctx;
        bound_epoch = epoch;
    }
    bound_dev = d;
}

#define ZC_STR2(x) #x
#define ZC_STR(x) ZC_STR2(x)
#define ZC_CU_LOAD(f) if (!(zc_cu.f = (__typeof__(zc_cu.f))dlsym(lib, ZC_STR(f)))) { *missing = ZC_STR(f); return false; }

#define ZC_CU_LOAD_OPTIONAL(f) zc_cu.f = (__typeof__(zc_cu.f))dlsym(lib, ZC_STR(f));

static bool load_api(void *lib, const char **missing) {
    ZC_CU_FUNCS(ZC_CU_LOAD)
    ZC_CU_OPTIONAL(ZC_CU_LOAD_OPTIONAL)
    return true;
}

/* Why do_init found no device, for zeKrtDriverStatus; "" when it found some. */
static char no_device_why[256];

/* The anchor of command timestamps (base_ev, base_ns), on d's context as it is now. */
static void anchor_clock(struct zp_bdev *d);

static void init_device(struct zp_bdev *d) {
    zc_bind(d);
    zc_cu.cuDriverGetVersion(&d->driver_version);
    zc_cu.cuDeviceGetName(d->name, sizeof d->name, d->dev);
    zc_cu.cuDeviceGetAttribute(&d->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d->dev);
    zc_cu.cuDeviceGetAttribute(&d->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d->dev);
    pthread_mutex_init(&d->pool_lock, NULL);
    pthread_mutex_init(&d->cache_lock, NULL);
    atomic_init(&d->lost, false);
    atomic_init(&d->epoch, 0);
    anchor_clock(d);
}

static void anchor_clock(struct zp_bdev *d) {
    zc_bind(d);
    /* The anchor of command timestamps: an event and the host time at which the device recorded it. That time lies
     * between the host's clock before the record and after the wait for it; the wait's return alone is late by the
     * wait's own latency (a kernel's end then read after a host timestamp taken once the kernel was waited for).
     * So: the middle of the narrowest of 8 such windows, the event of that try kept. */
    d->base_ns = 0;
    d->base_ev = NULL;
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 8; i++) {
        CUevent ev;
        if (zc_cu.cuEventCreate(&ev, CU_EVENT_DEFAULT) != CUDA_SUCCESS) break;
        uint64_t t0 = zc_now_ns();
        if (zc_cu.cuEventRecord(ev, NULL) != CUDA_SUCCESS || zc_cu.cuEventSynchronize(ev) != CUDA_SUCCESS) {
            zc_cu.cuEventDestroy(ev);
            break;
        }
        uint64_t t1 = zc_now_ns();
        if (t1 - t0 < best) {
            best = t1 - t0;
            if (d->base_ev) zc_cu.cuEventDestroy(d->base_ev);
            d->base_ev = ev;
            d->base_ns = t0 + (t1 - t0) / 2;
        } else {
            zc_cu.cuEventDestroy(ev);
        }
    }
    if (!d->base_ns) d->base_ns = zc_now_ns();
}

/* Lets device i's context reach device j's memory (one direction). */
static bool enable_peer(uint32_t i, uint32_t j) {
    zc_bind(&devs[i]);
    CUresult r = zc_cu.cuCtxEnablePeerAccess(devs[j].ctx, 0);
    return r == CUDA_SUCCESS || r == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
}

/* ZE_CUDA_LIBCUDA names the CUDA driver library to open instead of libcuda.so.1 (a path, or a name the dynamic
 * linker looks up); tests name a missing one to see the no-driver case on a machine with a GPU. */
static void do_init(void) {
    init_result = ZE_RESULT_SUCCESS;
    const char *off = getenv("ZE_CUDA_DISABLE");
    if (off && strcmp(off, "1") == 0) {
        snprintf(no_device_why, sizeof no_device_why, "ZE_CUDA_DISABLE=1 is set");
        return;
    }
    const char *name = getenv("ZE_CUDA_LIBCUDA");
    if (!name || !name[0]) name = "libcuda.so.1";
    void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *err = dlerror();
        if (err && strstr(err, "No such file"))
            snprintf(no_device_why, sizeof no_device_why, "%s not found: no NVIDIA driver is installed", name);
        else
            snprintf(no_device_why, sizeof no_device_why, "%s could not be loaded: %s", name, err ? err : "?");
        return;
    }
    const char *missing = NULL;
    if (!load_api(lib, &missing)) {
        snprintf(no_device_why, sizeof no_device_why, "%s lacks %s: the NVIDIA driver is too old", name, missing);
        dlclose(lib);
        return;
    }
    CUresult cr = zc_cu.cuInit(0);
    if (cr != CUDA_SUCCESS) {
        const char *s = NULL;
        if (zc_cu.cuGetErrorString(cr, &s) != CUDA_SUCCESS || !s) s = "unknown error";
        snprintf(no_device_why, sizeof no_device_why, "cuInit failed (CUDA error %d: %s)%s", (int)cr, s,
                 cr == CUDA_ERROR_NO_DEVICE ? ": no NVIDIA GPU" : "");
        dlclose(lib);
        return;
    }
    int n = 0;
    if (zc_cu.cuDeviceGetCount(&n) != CUDA_SUCCESS || n <= 0) {
        snprintf(no_device_why, sizeof no_device_why, "CUDA lists no GPU");
        return;
    }
    for (int i = 0; i < n && num_devs < ZC_MAX_DEVICES; i++) {
        struct zp_bdev *d = &devs[num_devs];
        if (zc_cu.cuDeviceGet(&d->dev, i) != CUDA_SUCCESS) continue;
        if (zc_cu.cuDevicePrimaryCtxRetain(&d->ctx, d->dev) != CUDA_SUCCESS) continue;
        init_device(d);
        num_devs++;
    }
    /* Peer access between every pair CUDA allows, enabled once for the process: Level Zero has no call to enable
     * it, a device that can access a peer's memory simply may (zeDeviceCanAccessPeer). cuCtxEnablePeerAccess is one
     * way (the current context may then access the peer's), so each direction is enabled from its own side. */
    for (uint32_t i = 0; i < num_devs; i++) {
        for (uint32_t j = 0; j < num_devs; j++) {
            int can = 0, atomics = 0;
            if (i == j || zc_cu.cuDeviceCanAccessPeer(&can, devs[i].dev, devs[j].dev) != CUDA_SUCCESS || !can) continue;
            if (!enable_peer(i, j)) continue;
            if (zc_cu.cuDeviceGetP2PAttribute(&atomics, CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED, devs[i].dev,
                                              devs[j].dev) != CUDA_SUCCESS)
                atomics = 0;
            peer[i][j] = (unsigned char)(ZP_PEER_ACCESS | (atomics ? ZP_PEER_ATOMICS : 0));
        }
    }
}

unsigned zc_can_access_peer(zp_bdev *dev, zp_bdev *p) {
    if (dev == p) return ZP_PEER_ACCESS | ZP_PEER_ATOMICS;
    uint32_t i = (uint32_t)(dev - devs), j = (uint32_t)(p - devs);
    return i < num_devs && j < num_devs ? peer[i][j] : 0;
}

ze_result_t zc_init(void) {
    pthread_once(&init_once, do_init);
    return init_result;
}

uint32_t zc_device_count(void) { return num_devs; }
const char *zc_no_device_reason(void) {
    if (num_devs == 0 && !no_device_why[0])
        snprintf(no_device_why, sizeof no_device_why, "no GPU could be opened (cuDevicePrimaryCtxRetain failed)");
    return num_devs ? "" : no_device_why;
}
zp_bdev *zc_device(uint32_t i) { return i < num_devs ? &devs[i] : NULL; }

static int attr(struct zp_bdev *d, CUdevice_attribute a) {
    int v = 0;
    zc_cu.cuDeviceGetAttribute(&v, a, d->dev);
    return v;
}

void zc_device_info(zp_bdev *d, zp_device_info *in) {
    memset(in, 0, sizeof *in);
    zc_bind(d);
    snprintf(in->name, sizeof in->name, "%s", d->name);
    in->vendor_id = 0x10de;
    /* CUDA gives no PCI device id; the compute capability identifies the architecture instead. */
    in->device_id = (uint32_t)(d->cc_major * 10 + d->cc_minor);
    in->compute_units = (uint32_t)attr(d, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    in->clock_mhz = (uint32_t)attr(d, CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000u;
    size_t total = 0;
    zc_cu.cuDeviceTotalMem(&total, d->dev);
    in->global_mem = total;
    in->max_alloc = total;
    in->local_mem = (uint64_t)attr(d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    in->max_group_total = (uint32_t)attr(d, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    in->max_group[0] = (uint32_t)attr(d, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
    in->max_group[1] = (uint32_t)attr(d, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
    in->max_group[2] = (uint32_t)attr(d, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
    in->max_group_count[0] = (uint32_t)attr(d, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
    in->max_group_count[1] = (uint32_t)attr(d, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
    in->max_group_count[2] = (uint32_t)attr(d, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
    in->max_args_size = 4096 - 64 - 4 - 3 * 8; /* CUDA's 4 KiB of parameters less ze_cuda's hidden ones */
    in->printf_buffer = 0;
    in->cache_size = (uint64_t)attr(d, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    in->cacheline = 128;
    in->fp16 = true;
    in->fp64 = true;
    in->int64_atomics = true;
    in->float_atomics = true;
    in->profiling = true;
    in->gpu = true;
    in->subgroup_size = (uint32_t)attr(d, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    CUuuid u;
    if (zc_cu.cuDeviceGetUuid(&u, d->dev) == CUDA_SUCCESS) {
        memcpy(in->uuid, u.bytes, sizeof in->uuid);
        in->has_uuid = true;
    }
}

/* CUDA gives one thread at most 512 KiB of local memory (the stack frame and spills; the Programming Guide's limit
 * for every compute capability CUDA 12 and 13 support, which ptxas enforces), and reserves it at a launch for every
 * thread the device keeps resident: where the card's memory cannot hold that much for all of them, less. (The
 * per-thread stack limit, CU_LIMIT_STACK_SIZE, is no bound: the driver raises it for each launch as needed.) */
uint64_t zc_local_limit(zp_bdev *d) {
    uint64_t limit = ZC_LOCAL_MAX;
    size_t total = 0;
    uint64_t threads = (uint64_t)attr(d, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR) *
                       (uint64_t)attr(d, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    if (threads && zc_cu.cuDeviceTotalMem(&total, d->dev) == CUDA_SUCCESS && total / threads < limit)
        limit = total / threads;
    return limit;
}

void zc_timestamps(zp_bdev *dev, uint64_t *host_ns, uint64_t *device_ns) {
    (void)dev;
    uint64_t t = zc_now_ns();
    if (host_ns) *host_ns = t;
    if (device_ns) *device_ns = t;
}

const char *zc_recover_failure(zp_bdev *d) { return d->recover_why; }

/* Whether the current context runs work: 256 bytes set on the device and read back. The raw result, not through
 * zc_result: a failed probe is a failed recovery, not a new fault. */
static CUresult probe_context(void) {
    CUdeviceptr p = 0;
    CUresult r = zc_cu.cuMemAlloc(&p, 256);
    if (r != CUDA_SUCCESS) return r;
    unsigned char back[256] = {0};
    r = zc_cu.cuMemsetD8Async(p, 0x5a, sizeof back, NULL);
    if (r == CUDA_SUCCESS) r = zc_cu.cuMemcpyAsync((CUdeviceptr)(uintptr_t)back, p, sizeof back, NULL);
    if (r == CUDA_SUCCESS) r = zc_cu.cuStreamSynchronize(NULL);
    if (r == CUDA_SUCCESS && (back[0] != 0x5a || back[255] != 0x5a)) r = CUDA_ERROR_UNKNOWN;
    zc_cu.cuMemFree(p);
    return r;
}

static const char *cu_name(CUresult r) {
    const char *s = NULL;
    if (zc_cu.cuGetErrorString) zc_cu.cuGetErrorString(r, &s);
    return s ? s : "unknown CUDA error";
}

/* A context of ze_cuda's own for d, made current and probed; NULL (and why) when CUDA gives none that works. */
static CUcontext own_context(struct zp_bdev *d, char *why, size_t cap) {
    size_t n = strlen(why);
    if (!zc_cu.cuCtxCreate || !zc_cu.cuCtxDestroy) {
        snprintf(why + n, cap - n, "; this NVIDIA driver has no cuCtxCreate to start a new context");
        return NULL;
    }
    CUcontext c = NULL;
#if CUDA_VERSION >= 12050
    CUresult r = zc_cu.cuCtxCreate(&c, NULL, 0, d->dev);
#else
    CUresult r = zc_cu.cuCtxCreate(&c, 0, d->dev);
#endif
    if (r == CUDA_SUCCESS && c) {
        zc_cu.cuCtxSetCurrent(c);
        r = probe_context();
        if (r == CUDA_SUCCESS) return c;
        zc_cu.cuCtxDestroy(c);
    }
    snprintf(why + n, cap - n, "; a new context: CUDA error %d (%s)", (int)r, cu_name(r));
    return NULL;
}

/* A lost device made usable again, called by the object model once no Level Zero context uses it (driver/fault.c):
 * nothing made on its context is in use. cuda.h says a process must end to use CUDA again after a sticky error;
 * the driver API has two ways to try without that, taken in turn, each proved by a probe that writes and reads
 * device memory: cuDevicePrimaryCtxReset, which destroys every allocation, stream, event and module of the primary
 * context and starts it afresh (the program's own CUDA work on that device, PyTorch's or CuPy's, shares that context:
 * it was lost with it at the fault and is reset too), and then a new context of ze_cuda's own (cuCtxCreate), which
 * ze_cuda uses from then on: its memory is then not the primary context's, so a program's own CUDA work reaches it
 * only through peer-style calls. When neither works the device stays lost, recover_why saying what CUDA answered.
 * Then what ze_cuda keeps for the device is made again: the clock's anchor event, and peer access both ways (the
 * reset forgets the context's). The pooled events died with the context: they are dropped, not destroyed, and the
 * epoch tells every thread to bind again and every older token that its events are gone. */
ze_result_t zc_device_recover(zp_bdev *d) {
    if (!zc_cu.cuDevicePrimaryCtxReset || !zc_cu.cuDevicePrimaryCtxRelease) {
        snprintf(d->recover_why, sizeof d->recover_why, "this NVIDIA driver has no cuDevicePrimaryCtxReset");
        return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    }
    pthread_mutex_lock(&d->pool_lock);
    d->pool_len[0] = d->pool_len[1] = 0;
    atomic_fetch_add_explicit(&d->epoch, 1, memory_order_acq_rel);
    pthread_mutex_unlock(&d->pool_lock);
    d->base_ev = NULL;
    d->recover_why[0] = 0;
    CUcontext ctx = NULL;
    if (d->own_ctx) {
        /* A context of ze_cuda's own lost in turn: replaced by another. Until one works, the handle is the primary
         * context's again (retained since zeInit), never the destroyed one. */
        zc_cu.cuCtxDestroy(d->ctx);
        d->own_ctx = false;
        CUcontext primary = NULL;
        if (zc_cu.cuDevicePrimaryCtxRetain(&primary, d->dev) == CUDA_SUCCESS && primary) {
            zc_cu.cuDevicePrimaryCtxRelease(d->dev);
            d->ctx = primary;
        }
        snprintf(d->recover_why, sizeof d->recover_why, "ze_cuda's own context lost");
        ctx = own_context(d, d->recover_why, sizeof d->recover_why);
        d->own_ctx = ctx != NULL;
    } else {
        CUresult r = zc_cu.cuDevicePrimaryCtxReset(d->dev);
        /* The reset keeps zeInit's retain: retain once more for the handle (the same context, or a new one), and give
         * that retain back. */
        if (r == CUDA_SUCCESS) r = zc_cu.cuDevicePrimaryCtxRetain(&ctx, d->dev);
        if (r == CUDA_SUCCESS && ctx) {
            zc_cu.cuDevicePrimaryCtxRelease(d->dev);
            zc_cu.cuCtxSetCurrent(ctx);
            r = probe_context();
        }
        if (r != CUDA_SUCCESS || !ctx) {
            snprintf(d->recover_why, sizeof d->recover_why, "the primary context after cuDevicePrimaryCtxReset: CUDA "
                     "error %d (%s)", (int)r, cu_name(r));
            ctx = own_context(d, d->recover_why, sizeof d->recover_why);
            d->own_ctx = ctx != NULL;
        }
    }
    if (!ctx) {
        atomic_store_explicit(&d->lost, true, memory_order_release);
        return ZE_RESULT_ERROR_DEVICE_LOST;
    }
    d->recover_why[0] = 0;
    d->ctx = ctx;
    atomic_fetch_add_explicit(&d->epoch, 1, memory_order_acq_rel);
    atomic_store_explicit(&d->lost, false, memory_order_release);
    anchor_clock(d);
    uint32_t i = (uint32_t)(d - devs);
    for (uint32_t j = 0; j < num_devs; j++) {
        if (j == i) continue;
        if (peer[i][j] && !enable_peer(i, j)) peer[i][j] = 0;
        if (peer[j][i] && !enable_peer(j, i)) peer[j][i] = 0;
    }
    /* A sticky error seen meanwhile (the anchor's record and wait) leaves it lost: the object model keeps it so. */
    return zc_device_lost(d) ? ZE_RESULT_ERROR_DEVICE_LOST : ZE_RESULT_SUCCESS;
}
