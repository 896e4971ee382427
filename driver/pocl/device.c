/* PoCL backend: platform start-up, devices, their properties, clocks and memory. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pocl_be.h"
#include "../../spirv/spirv.h"
#include "pocl_rewrites.h"

cl_context zp_cl_ctx;
zp_pocl_caps zp_caps;
static cl_device_id *devices;
static cl_uint num_devices;
static ze_result_t init_result = ZE_RESULT_ERROR_UNINITIALIZED;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/* Chooses the PoCL platform among whatever ICDs are installed. */
static cl_platform_id find_pocl(void) {
    cl_uint n = 0;
    if (clGetPlatformIDs(0, NULL, &n) != CL_SUCCESS || n == 0) return NULL;
    cl_platform_id *ps = calloc(n, sizeof *ps);
    if (!ps) return NULL;
    cl_platform_id found = NULL;
    if (clGetPlatformIDs(n, ps, NULL) == CL_SUCCESS) {
        for (cl_uint i = 0; i < n && !found; i++) {
            char name[256] = {0};
            clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof name - 1, name, NULL);
            if (strstr(name, "Portable Computing Language") || strstr(name, "pocl") || strstr(name, "PoCL"))
                found = ps[i];
        }
    }
    free(ps);
    return found;
}

/* What decides how modules reach PoCL: its version, whether it takes SPIR-V, whether its devices (and so its
 * kernel library) have a generic address space. One kernel library serves every device of the platform. */
static void read_caps(cl_platform_id p, cl_device_id d, zp_pocl_caps *caps) {
    memset(caps, 0, sizeof *caps);
    clGetPlatformInfo(p, CL_PLATFORM_VERSION, sizeof caps->version - 1, caps->version, NULL);
    clGetDeviceInfo(d, CL_DEVICE_VERSION, sizeof caps->device - 1, caps->device, NULL);
    caps->major = caps->minor = -1;
    const char *v = strstr(caps->version, "PoCL ");
    if (v && sscanf(v + 5, "%d.%d", &caps->major, &caps->minor) != 2) caps->major = caps->minor = -1;
    char il[256] = {0};
    if (clGetDeviceInfo(d, CL_DEVICE_IL_VERSION, sizeof il - 1, il, NULL) == CL_SUCCESS)
        caps->il = strstr(il, "SPIR-V") != NULL;
    cl_bool gas = CL_FALSE;
    if (clGetDeviceInfo(d, CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT, sizeof gas, &gas, NULL) == CL_SUCCESS)
        caps->generic_as = gas != CL_FALSE;
    caps->check = ZE_RESULT_ERROR_UNINITIALIZED;
}

/* Why init_once_fn found no device, for zeKrtDriverStatus; "" when it found some. */
static char no_device_why[256];

const char *zp_pocl_no_device_reason(void) { return num_devices ? "" : no_device_why; }

/* KRT_ZE_POCL_DEVICE_TYPE, a test knob: "gpu" makes zeDeviceGetProperties report ze_pocl's devices as GPUs, for
 * clients that take only GPUs (Unified Runtime's Level Zero adapter, under Intel's SYCL runtime, makes no platform
 * for a driver without one); unset, empty or "cpu", they are CPUs. Any other value is refused: the driver then has
 * no device, and its status says why, rather than running as something the caller did not ask for. */
static int device_type_knob(void) {
    const char *v = getenv("KRT_ZE_POCL_DEVICE_TYPE");
    if (!v || !*v || strcmp(v, "cpu") == 0) return 0;
    if (strcmp(v, "gpu") == 0) return 1;
    return -1;
}

static void init_once_fn(void) {
    if (device_type_knob() < 0) {
        snprintf(no_device_why, sizeof no_device_why, "KRT_ZE_POCL_DEVICE_TYPE=\"%.64s\" is neither cpu nor gpu",
                 getenv("KRT_ZE_POCL_DEVICE_TYPE"));
        init_result = ZE_RESULT_ERROR_UNINITIALIZED;
        return;
    }
    cl_platform_id p = find_pocl();
    if (!p) {
        snprintf(no_device_why, sizeof no_device_why,
                 "no OpenCL platform is PoCL: PoCL's ICD is not installed (Debian: pocl-opencl-icd)");
        init_result = ZE_RESULT_ERROR_UNINITIALIZED;
        return;
    }
    cl_uint n = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, NULL, &n) != CL_SUCCESS || n == 0) {
        snprintf(no_device_why, sizeof no_device_why, "PoCL lists no device");
        init_result = ZE_RESULT_ERROR_UNINITIALIZED;
        return;
    }
    devices = calloc(n, sizeof *devices);
    if (!devices) {
        init_result = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        return;
    }
    clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, devices, NULL);
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)p, 0};
    cl_int err;
    zp_cl_ctx = clCreateContext(props, n, devices, NULL, NULL, &err);
    if (!zp_cl_ctx) {
        snprintf(no_device_why, sizeof no_device_why, "clCreateContext on PoCL's devices failed (OpenCL error %d)",
                 (int)err);
        free(devices);
        devices = NULL;
        init_result = zp_cl_result(err) == ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY ? ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY
                                                                             : ZE_RESULT_ERROR_UNINITIALIZED;
        return;
    }
    num_devices = n;
    zp_spirv_warm_up();
    zp_pocl_tune_llvm();
    read_caps(p, devices[0], &zp_caps);
    zp_caps.check = ZE_RESULT_SUCCESS;
    init_result = ZE_RESULT_SUCCESS;
}

ze_result_t zp_pocl_open(void) {
    pthread_once(&init_once, init_once_fn);
    return init_result;
}

/* Which pairs of devices reach each other's memory: every pair, unless KRT_ZE_POCL_PEER says otherwise ("none", or
 * pairs "0-1,2-3", both ways). PoCL's devices all share the host's memory, so this only exists to test what a
 * program does on hardware where some devices cannot reach others (copies staged through the host). Read once. */
#define ZP_PEER_MAX 64
static uint64_t peer_rows[ZP_PEER_MAX];
static pthread_once_t peer_once = PTHREAD_ONCE_INIT;

static void peer_parse(void) {
    const char *v = getenv("KRT_ZE_POCL_PEER");
    for (uint32_t i = 0; i < ZP_PEER_MAX; i++) peer_rows[i] = (!v || !*v || strcmp(v, "all") == 0) ? ~0ull : 1ull << i;
    if (!v || !*v || strcmp(v, "all") == 0 || strcmp(v, "none") == 0) return;
    for (const char *p = v; *p;) {
        char *end;
        unsigned long a = strtoul(p, &end, 10);
        if (end != p && *end == '-') {
            const char *q = end + 1;
            unsigned long b = strtoul(q, &end, 10);
            if (end != q && a < ZP_PEER_MAX && b < ZP_PEER_MAX) {
                peer_rows[a] |= 1ull << b;
                peer_rows[b] |= 1ull << a;
            }
        }
        p = strchr(end, ',') ? strchr(end, ',') + 1 : end + strlen(end);
    }
}

static uint32_t device_index(zp_bdev *d) {
    for (uint32_t i = 0; i < num_devices; i++)
        if ((zp_bdev *)devices[i] == d) return i;
    return UINT32_MAX;
}

unsigned zp_pocl_can_access_peer(zp_bdev *dev, zp_bdev *peer) {
    pthread_once(&peer_once, peer_parse);
    uint32_t a = device_index(dev), b = device_index(peer);
    if (a >= ZP_PEER_MAX || b >= ZP_PEER_MAX) return a == b ? ZP_PEER_ACCESS | ZP_PEER_ATOMICS : 0;
    return (peer_rows[a] >> b) & 1u ? ZP_PEER_ACCESS | ZP_PEER_ATOMICS : 0;
}

uint32_t zp_pocl_device_count(void) { return num_devices; }

zp_bdev *zp_pocl_device(uint32_t index) { return index < num_devices ? (zp_bdev *)devices[index] : NULL; }

static uint64_t dev_u64(cl_device_id d, cl_device_info what) {
    cl_ulong v = 0;
    clGetDeviceInfo(d, what, sizeof v, &v, NULL);
    return v;
}

static uint32_t dev_u32(cl_device_id d, cl_device_info what) {
    cl_uint v = 0;
    clGetDeviceInfo(d, what, sizeof v, &v, NULL);
    return v;
}

static size_t dev_size(cl_device_id d, cl_device_info what) {
    size_t v = 0;
    clGetDeviceInfo(d, what, sizeof v, &v, NULL);
    return v;
}

/* The device's local memory: PoCL's, which it sizes from the CPU's caches (1 MiB on one machine, 512 KiB on another),
 * or less where KRT_ZE_POCL_LOCAL_MEM=bytes says so (a larger value is ignored), so that tests can see the local
 * memory of another CPU: test/docs-outputs.py --other-machine checks with it that the pages mask this size. */
uint64_t zp_pocl_local_mem(cl_device_id d) {
    uint64_t v = dev_u64(d, CL_DEVICE_LOCAL_MEM_SIZE);
    const char *cap = getenv("KRT_ZE_POCL_LOCAL_MEM");
    if (cap && *cap) {
        char *end;
        unsigned long long c = strtoull(cap, &end, 10);
        if (*end == '\0' && c > 0 && c < v) v = c;
    }
    return v;
}

void zp_pocl_device_info(zp_bdev *dev, zp_device_info *info) {
    cl_device_id d = ZP_CLD(dev);
    memset(info, 0, sizeof *info);
    clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof info->name - 1, info->name, NULL);
    /* vendor_id: the object model reads the processor's own (driver/cpu.c); PoCL 3.1 says 0x8086 for any x86 CPU. */
    info->device_id = 0;
    info->compute_units = dev_u32(d, CL_DEVICE_MAX_COMPUTE_UNITS);
    info->clock_mhz = dev_u32(d, CL_DEVICE_MAX_CLOCK_FREQUENCY);
    info->global_mem = dev_u64(d, CL_DEVICE_GLOBAL_MEM_SIZE);
    info->max_alloc = dev_u64(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    info->local_mem = zp_pocl_local_mem(d);
    info->max_group_total = (uint32_t)dev_size(d, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    size_t sizes[3] = {0, 0, 0};
    clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof sizes, sizes, NULL);
    for (int i = 0; i < 3; i++) info->max_group[i] = (uint32_t)sizes[i];
    info->max_args_size = (uint32_t)dev_size(d, CL_DEVICE_MAX_PARAMETER_SIZE);
    info->printf_buffer = (uint32_t)dev_size(d, CL_DEVICE_PRINTF_BUFFER_SIZE);
    info->cache_size = dev_u64(d, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE);
    info->cacheline = dev_u32(d, CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE);
    size_t ext_len = 0;
    clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, 0, NULL, &ext_len);
    char *ext = calloc(1, ext_len + 1);
    if (ext) {
        clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, ext_len, ext, NULL);
        info->fp16 = strstr(ext, "cl_khr_fp16") != NULL;
        info->fp64 = strstr(ext, "cl_khr_fp64") != NULL;
        info->int64_atomics = strstr(ext, "cl_khr_int64_base_atomics") != NULL;
        info->float_atomics = true;
        free(ext);
    }
    info->profiling = true;
    info->report_gpu = device_type_knob() == 1;
    /* KRT_ZE_POCL_MAX_GROUP="4096,256": a smaller work-group limit per device index (0 or missing: PoCL's), so
     * that tests see devices with different limits where PoCL's devices are all alike. */
    const char *caps = getenv("KRT_ZE_POCL_MAX_GROUP");
    uint32_t idx = device_index(dev);
    for (uint32_t i = 0; caps && *caps && i <= idx; i++) {
        char *end;
        unsigned long v = strtoul(caps, &end, 10);
        if (i == idx && end != caps && v > 0 && v < info->max_group_total) {
            info->max_group_total = (uint32_t)v;
            for (int k = 0; k < 3; k++)
                if (info->max_group[k] > v) info->max_group[k] = (uint32_t)v;
        }
        caps = strchr(caps, ',') ? strchr(caps, ',') + 1 : "";
    }
}

/* PoCL 3.1 stamps profiled commands with CLOCK_MONOTONIC_RAW and has no clGetDeviceAndHostTimer, so the
 * device clock is that clock, and the host timestamp is read from it too. */
static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void zp_pocl_timestamps(zp_bdev *dev, uint64_t *host_ns, uint64_t *device_ns) {
    cl_ulong d = 0, h = 0;
    if (clGetDeviceAndHostTimer(ZP_CLD(dev), &d, &h) == CL_SUCCESS) {
        *host_ns = h;
        *device_ns = d;
    } else {
        *host_ns = *device_ns = mono_ns();
    }
}

/* PoCL's clSVMAlloc refuses alignments above 128 bytes; larger ones are served by padding. PoCL also refuses
 * any SVM block above CL_DEVICE_MAX_MEM_ALLOC_SIZE, so a large alignment whose padded size does not fit (an
 * alignment near the allocation limit) comes from posix_memalign instead: PoCL 3.1's CPU devices take any
 * host pointer as a kernel argument and in SVM copies and fills. Such a block is marked by the low bit of
 * *raw (every block here is at least 128-byte aligned), so mem_free knows which allocator to give it to. */
#define ZP_SVM_MAX_ALIGN 128u
#define ZP_RAW_HOST_BIT ((uintptr_t)1)

void *zp_pocl_mem_alloc(size_t size, size_t alignment, void **raw) {
    cl_svm_mem_flags flags = CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS;
    if (alignment <= ZP_SVM_MAX_ALIGN) {
        *raw = clSVMAlloc(zp_cl_ctx, flags, size, (cl_uint)alignment);
        return *raw;
    }
    if (size > SIZE_MAX - alignment) return NULL;
    *raw = clSVMAlloc(zp_cl_ctx, flags, size + alignment, ZP_SVM_MAX_ALIGN);
    if (*raw) return (void *)(((uintptr_t)*raw + alignment - 1) & ~(uintptr_t)(alignment - 1));
    void *p = NULL;
    if (posix_memalign(&p, alignment, size) != 0) return NULL;
    *raw = (void *)((uintptr_t)p | ZP_RAW_HOST_BIT);
    return p;
}

void zp_pocl_mem_free(void *raw) {
    if ((uintptr_t)raw & ZP_RAW_HOST_BIT)
        free((void *)((uintptr_t)raw & ~ZP_RAW_HOST_BIT));
    else
        clSVMFree(zp_cl_ctx, raw);
}
