/* The CUDA backend of the Level Zero object model (ze_cuda): devices, memory, modules, kernels, streams and
 * events over the CUDA driver API, which is opened with dlopen at zeInit. Without libcuda.so.1, with
 * ZE_CUDA_DISABLE=1, or when cuInit finds no GPU, the driver reports no devices and does nothing else. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_be.h"
#include "ptx.h"
#include "../../spirv/spirv.h"

zc_cuda_api zc_cu;

#define ZC_MAX_DEVICES 16
static struct zp_bdev devs[ZC_MAX_DEVICES];
static uint32_t num_devs;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static ze_result_t init_result;

ze_result_t zc_result(CUresult r) {
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
    default: return ZE_RESULT_ERROR_DEVICE_LOST;
    }
}

uint64_t zc_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Each thread binds a device's primary context once; calls from then on cost one compare. */
static __thread CUcontext bound_ctx;
void zc_bind(struct zp_bdev *d) {
    if (bound_ctx != d->ctx) {
        zc_cu.cuCtxSetCurrent(d->ctx);
        bound_ctx = d->ctx;
    }
}

#define ZC_STR2(x) #x
#define ZC_STR(x) ZC_STR2(x)
#define ZC_CU_LOAD(f) if (!(zc_cu.f = (__typeof__(zc_cu.f))dlsym(lib, ZC_STR(f)))) return false;

static bool load_api(void *lib) {
    ZC_CU_FUNCS(ZC_CU_LOAD)
    return true;
}

static void init_device(struct zp_bdev *d) {
    zc_bind(d);
    zc_cu.cuDriverGetVersion(&d->driver_version);
    zc_cu.cuDeviceGetName(d->name, sizeof d->name, d->dev);
    zc_cu.cuDeviceGetAttribute(&d->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d->dev);
    zc_cu.cuDeviceGetAttribute(&d->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d->dev);
    pthread_mutex_init(&d->pool_lock, NULL);
    /* The anchor of command timestamps: an event known complete at a known host time. */
    if (zc_cu.cuEventCreate(&d->base_ev, CU_EVENT_DEFAULT) == CUDA_SUCCESS) {
        zc_cu.cuEventRecord(d->base_ev, NULL);
        zc_cu.cuEventSynchronize(d->base_ev);
    }
    d->base_ns = zc_now_ns();
}

static void do_init(void) {
    init_result = ZE_RESULT_SUCCESS;
    const char *off = getenv("ZE_CUDA_DISABLE");
    if (off && strcmp(off, "1") == 0) return;
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return;
    if (!load_api(lib) || zc_cu.cuInit(0) != CUDA_SUCCESS) {
        dlclose(lib);
        return;
    }
    int n = 0;
    if (zc_cu.cuDeviceGetCount(&n) != CUDA_SUCCESS || n <= 0) return;
    for (int i = 0; i < n && num_devs < ZC_MAX_DEVICES; i++) {
        struct zp_bdev *d = &devs[num_devs];
        if (zc_cu.cuDeviceGet(&d->dev, i) != CUDA_SUCCESS) continue;
        if (zc_cu.cuDevicePrimaryCtxRetain(&d->ctx, d->dev) != CUDA_SUCCESS) continue;
        init_device(d);
        num_devs++;
    }
}

static ze_result_t zc_init(void) {
    pthread_once(&init_once, do_init);
    return init_result;
}

static uint32_t zc_device_count(void) { return num_devs; }
static zp_bdev *zc_device(uint32_t i) { return i < num_devs ? &devs[i] : NULL; }

static int attr(struct zp_bdev *d, CUdevice_attribute a) {
    int v = 0;
    zc_cu.cuDeviceGetAttribute(&v, a, d->dev);
    return v;
}

static void zc_device_info(zp_bdev *d, zp_device_info *in) {
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
    in->profiling = true;
    in->gpu = true;
    in->subgroup_size = (uint32_t)attr(d, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    CUuuid u;
    if (zc_cu.cuDeviceGetUuid(&u, d->dev) == CUDA_SUCCESS) {
        memcpy(in->uuid, u.bytes, sizeof in->uuid);
        in->has_uuid = true;
    }
}

static void zc_timestamps(zp_bdev *dev, uint64_t *host_ns, uint64_t *device_ns) {
    (void)dev;
    uint64_t t = zc_now_ns();
    if (host_ns) *host_ns = t;
    if (device_ns) *device_ns = t;
}

/* ---- memory ---- */

typedef struct {
    CUdeviceptr base;
    ze_memory_type_t type;
    struct zp_bdev *dev;
} zc_alloc;

static void *zc_mem_alloc_typed(zp_bdev *dev, ze_memory_type_t type, size_t size, size_t alignment, void **raw) {
    if (num_devs == 0) return NULL;
    struct zp_bdev *d = dev ? dev : &devs[0];
    zc_bind(d);
    zc_alloc *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    /* CUDA aligns every allocation to at least 256 bytes; more is had by asking for more and aligning. */
    size_t pad = alignment > 256 ? alignment : 0;
    CUresult r;
    if (type == ZE_MEMORY_TYPE_HOST) {
        void *p = NULL;
        r = zc_cu.cuMemAllocHost(&p, size + pad);
        a->base = (CUdeviceptr)(uintptr_t)p;
    } else if (type == ZE_MEMORY_TYPE_SHARED) {
        /* Managed memory beyond what the card has free can hang the GPU: refuse it instead. */
        size_t free_b = 0, total_b = 0;
        r = zc_cu.cuMemGetInfo(&free_b, &total_b);
        if (r == CUDA_SUCCESS && size + pad > free_b) r = CUDA_ERROR_OUT_OF_MEMORY;
        if (r == CUDA_SUCCESS) r = zc_cu.cuMemAllocManaged(&a->base, size + pad, CU_MEM_ATTACH_GLOBAL);
    } else {
        r = zc_cu.cuMemAlloc(&a->base, size + pad);
    }
    if (r != CUDA_SUCCESS) {
        free(a);
        return NULL;
    }
    a->type = type;
    a->dev = d;
    *raw = a;
    uintptr_t p = (uintptr_t)a->base;
    if (pad) p = (p + alignment - 1) & ~(uintptr_t)(alignment - 1);
    return (void *)p;
}

static void zc_mem_free_typed(ze_memory_type_t type, void *raw) {
    (void)type;
    zc_alloc *a = raw;
    if (!a) return;
    zc_bind(a->dev);
    if (a->type == ZE_MEMORY_TYPE_HOST)
        zc_cu.cuMemFreeHost((void *)(uintptr_t)a->base);
    else
        zc_cu.cuMemFree(a->base);
    free(a);
}

/* The untyped form (the object model uses the typed one when a backend has it): host memory. */
static void *zc_mem_alloc(size_t size, size_t alignment, void **raw) {
    return zc_mem_alloc_typed(NULL, ZE_MEMORY_TYPE_HOST, size, alignment, raw);
}
static void zc_mem_free(void *raw) { zc_mem_free_typed(ZE_MEMORY_TYPE_HOST, raw); }

/* ---- modules and kernels ---- */

static char *dup_str(const char *s) {
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}

static void free_kinfo(struct zp_bmod *m) {
    for (uint32_t i = 0; i < m->count; i++) {
        free(m->kernels[i].name);
        free(m->kernels[i].kinds);
        free(m->kernels[i].sizes);
    }
    free(m->kernels);
}

static char *join_log(char *a, const char *b) {
    size_t na = a ? strlen(a) : 0, nb = strlen(b);
    char *p = realloc(a, na + nb + 2);
    if (!p) return a;
    if (na) p[na++] = '\n';
    memcpy(p + na, b, nb + 1);
    return p;
}

/* PTX -> CUDA binary with the driver's JIT (cuLink*, which hands the binary back so it can be cached). */
static CUresult jit(const char *ptx, void **cubin, size_t *size, char *errlog, size_t errcap) {
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[] = {errlog, (void *)(uintptr_t)errcap};
    CUlinkState st;
    CUresult r = zc_cu.cuLinkCreate(2, opts, vals, &st);
    if (r != CUDA_SUCCESS) return r;
    r = zc_cu.cuLinkAddData(st, CU_JIT_INPUT_PTX, (void *)ptx, strlen(ptx) + 1, "module.ptx", 0, NULL, NULL);
    void *out = NULL;
    size_t n = 0;
    if (r == CUDA_SUCCESS) r = zc_cu.cuLinkComplete(st, &out, &n);
    if (r == CUDA_SUCCESS) {
        *cubin = malloc(n);
        if (*cubin) {
            memcpy(*cubin, out, n);
            *size = n;
        } else {
            r = CUDA_ERROR_OUT_OF_MEMORY;
        }
    }
    zc_cu.cuLinkDestroy(st);
    return r;
}

static ze_result_t zc_module_build(zp_bdev *dev, const zp_module_src *src, zp_bmod **out, zp_module_meta *meta,
                                   char **log) {
    *out = NULL;
    *log = NULL;
    void *bc = NULL;
    size_t bc_size = 0;
    int rc = zc_front(src, &bc, &bc_size, meta, log);
    if (rc != ZC_OK) {
        free(bc);
        return rc == ZC_INVALID_BINARY ? ZE_RESULT_ERROR_INVALID_NATIVE_BINARY
               : rc == ZC_OUT_OF_MEMORY ? ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY
                                        : ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
    }
    zc_bind(dev);
    char key[33];
    zc_cache_key(bc, bc_size, src->flags, dev, key);
    size_t bin_size = 0;
    void *bin = zc_cache_get(key, &bin_size);
    ze_result_t res = ZE_RESULT_SUCCESS;
    if (!bin) {
        char *ptx = NULL, *blog = NULL;
        rc = zc_back(bc, bc_size, &ptx, &blog);
        if (blog) *log = join_log(*log, blog);
        free(blog);
        if (rc != ZC_OK) {
            res = rc == ZC_OUT_OF_MEMORY ? ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY : ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
        } else {
            char errlog[8192] = "";
            CUresult r = jit(ptx, &bin, &bin_size, errlog, sizeof errlog);
            if (r != CUDA_SUCCESS) {
                *log = join_log(*log, "CUDA's JIT refused the PTX:");
                *log = join_log(*log, errlog);
                res = ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
            } else {
                zc_cache_put(key, bin, bin_size);
            }
        }
        free(ptx);
    }
    free(bc);
    struct zp_bmod *m = NULL;
    if (res == ZE_RESULT_SUCCESS) {
        m = calloc(1, sizeof *m);
        if (!m) res = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    if (res == ZE_RESULT_SUCCESS) {
        char errlog[4096] = "";
        CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
        void *vals[] = {errlog, (void *)(uintptr_t)sizeof errlog};
        CUresult r = zc_cu.cuModuleLoadDataEx(&m->module, bin, 2, opts, vals);
        if (r != CUDA_SUCCESS) {
            *log = join_log(*log, "cuModuleLoadDataEx failed:");
            *log = join_log(*log, errlog);
            res = r == CUDA_ERROR_OUT_OF_MEMORY ? ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY
                                                : ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
        }
    }
    free(bin);
    if (res == ZE_RESULT_SUCCESS) {
        m->dev = dev;
        m->kernels = calloc(meta->count ? meta->count : 1, sizeof *m->kernels);
        if (!m->kernels) res = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        for (uint32_t i = 0; res == ZE_RESULT_SUCCESS && i < meta->count; i++) {
            const zp_kernel_meta *km = &meta->kernels[i];
            struct zc_kinfo *ki = &m->kernels[i];
            m->count++;
            ki->name = dup_str(km->name);
            ki->num_args = km->num_args;
            ki->kinds = calloc(km->num_args + 1, sizeof *ki->kinds);
            ki->sizes = calloc(km->num_args + 1, sizeof *ki->sizes);
            if (!ki->name || !ki->kinds || !ki->sizes) {
                res = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
                break;
            }
            for (uint32_t a = 0; a < km->num_args; a++) {
                ki->kinds[a] = km->args[a].kind;
                ki->sizes[a] = km->args[a].size;
            }
        }
        if (res != ZE_RESULT_SUCCESS) {
            zc_cu.cuModuleUnload(m->module);
            free_kinfo(m);
        }
    }
    if (res != ZE_RESULT_SUCCESS) {
        free(m);
        return res;
    }
    *out = m;
    return ZE_RESULT_SUCCESS;
}

static void zc_module_destroy(zp_bmod *m) {
    if (!m) return;
    zc_bind(m->dev);
    zc_cu.cuModuleUnload(m->module);
    free_kinfo(m);
    free(m);
}

static void zc_module_meta_free(zp_module_meta *meta) { zp_spirv_meta_free(meta); }

#define ZC_SLOT 16u
static uint32_t slot_size(uint32_t kind, uint32_t size) {
    (void)kind;
    return size > ZC_SLOT ? (size + 15u) & ~15u : ZC_SLOT;
}

static ze_result_t zc_kernel_create(zp_bmod *m, const char *name, zp_bkern **out, zp_kernel_limits *limits) {
    const struct zc_kinfo *ki = NULL;
    for (uint32_t i = 0; i < m->count; i++)
        if (strcmp(m->kernels[i].name, name) == 0) ki = &m->kernels[i];
    if (!ki) return ZE_RESULT_ERROR_INVALID_KERNEL_NAME;
    zc_bind(m->dev);
    struct zp_bkern *k = calloc(1, sizeof *k);
    if (!k) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    CUresult r = zc_cu.cuModuleGetFunction(&k->fn, m->module, name);
    /* Its exact-range variant (spirv/exact_range.cpp), for the launches that are not uniform. */
    char *variant = r == CUDA_SUCCESS ? malloc(strlen(name) + sizeof ZP_EXACT_SUFFIX) : NULL;
    if (variant) {
        r = zc_cu.cuModuleGetFunction(&k->fn_exact, m->module, strcat(strcpy(variant, name), ZP_EXACT_SUFFIX));
        free(variant);
    }
    if (r != CUDA_SUCCESS || !variant) {
        free(k);
        return r != CUDA_SUCCESS ? ZE_RESULT_ERROR_INVALID_KERNEL_NAME : ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    k->mod = m;
    k->num_args = ki->num_args;
    k->kinds = ki->kinds;
    k->sizes = ki->sizes;
    size_t bytes = 0;
    for (uint32_t a = 0; a < ki->num_args; a++) bytes += slot_size(ki->kinds[a], ki->sizes[a]);
    k->params = calloc(2 * ki->num_args + 9, sizeof *k->params);
    k->store = calloc(bytes ? bytes : 1, 1);
    k->local_sz = calloc(ki->num_args + 1, sizeof *k->local_sz);
    if (!k->params || !k->store || !k->local_sz) {
        free(k->params);
        free(k->store);
        free(k->local_sz);
        free(k);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    size_t off = 0;
    for (uint32_t a = 0; a < ki->num_args; a++) {
        k->params[a] = k->store + off;
        off += slot_size(ki->kinds[a], ki->sizes[a]);
        if (ki->kinds[a] == ZP_ARG_LOCAL) k->has_local = true;
    }
    /* After the kernel's own parameters: the work dimension and the global offset (add_launch_params in
     * ptx.cpp); the variant takes the exact-range descriptor before them. Both lists share the slots. */
    void **x = k->params_exact = k->params + ki->num_args + 4;
    for (uint32_t a = 0; a < ki->num_args; a++) x[a] = k->params[a];
    k->params[ki->num_args] = x[ki->num_args + 1] = &k->hidden_dim;
    for (int d = 0; d < 3; d++) k->params[ki->num_args + 1 + d] = x[ki->num_args + 2 + d] = &k->hidden_off[d];
    x[ki->num_args] = k->hidden_exact;
    int v = 0, vx = 0;
    zc_cu.cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k->fn);
    zc_cu.cuFuncGetAttribute(&vx, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k->fn_exact);
    limits->max_group_total = (uint32_t)(vx < v ? vx : v);
    limits->preferred_multiple = 32;
    limits->subgroup_size = 32;
    limits->has_sizes = true;
    v = 0;
    zc_cu.cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, k->fn);
    /* CUDA's local memory per thread is the stack frame and spilled registers: what does not fit in
     * registers, which is what spillMemSize means. */
    limits->private_size = (uint64_t)v;
    limits->spill_size = (uint64_t)v;
    v = 0;
    zc_cu.cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k->fn);
    limits->local_static = (uint64_t)v;
    k->static_shared = (uint32_t)v;
    v = 0;
    zc_cu.cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, k->fn);
    k->dyn_limit = (uint32_t)v;
    *out = k;
    return ZE_RESULT_SUCCESS;
}

static void zc_kernel_destroy(zp_bkern *k) {
    if (!k) return;
    free(k->params);
    free(k->store);
    free(k->local_sz);
    free(k);
}

static ze_result_t zc_kernel_set_arg(zp_bkern *k, uint32_t index, uint32_t kind, size_t size, const void *value) {
    if (index >= k->num_args) return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX;
    if (kind == ZP_ARG_LOCAL) {
        k->local_sz[index] = size;
        return ZE_RESULT_SUCCESS;
    }
    if (kind == ZP_ARG_UNSUPPORTED) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    uint8_t *slot = k->params[index];
    if (kind == ZP_ARG_GLOBAL || kind == ZP_ARG_CONSTANT) {
        /* The pointer value itself; CUDA takes the address of where it is stored. */
        memcpy(slot, &value, sizeof value);
        return ZE_RESULT_SUCCESS;
    }
    if (size > slot_size(kind, k->sizes[index])) return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
    if (value)
        memcpy(slot, value, size);
    else
        memset(slot, 0, size);
    return ZE_RESULT_SUCCESS;
}

/* ---- tokens ---- */

struct zc_cb {
    zp_token_fn fn;
    void *user;
    struct zc_cb *next;
};

static CUevent event_get(struct zp_bdev *d, bool timed) {
    CUevent e = NULL;
    pthread_mutex_lock(&d->pool_lock);
    if (d->pool_len[timed]) e = d->pool[timed][--d->pool_len[timed]];
    pthread_mutex_unlock(&d->pool_lock);
    if (!e && zc_cu.cuEventCreate(&e, timed ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS) e = NULL;
    return e;
}

static void event_put(struct zp_bdev *d, CUevent e, bool timed) {
    if (!e) return;
    pthread_mutex_lock(&d->pool_lock);
    if (d->pool_len[timed] == d->pool_cap[timed]) {
        uint32_t cap = d->pool_cap[timed] ? d->pool_cap[timed] * 2 : 64;
        CUevent *p = realloc(d->pool[timed], cap * sizeof *p);
        if (p) {
            d->pool[timed] = p;
            d->pool_cap[timed] = cap;
        }
    }
    if (d->pool_len[timed] < d->pool_cap[timed]) {
        d->pool[timed][d->pool_len[timed]++] = e;
        e = NULL;
    }
    pthread_mutex_unlock(&d->pool_lock);
    if (e) zc_cu.cuEventDestroy(e);
}

static void zc_token_retain(zp_btoken *t) { atomic_fetch_add(&t->refs, 1); }

static void zc_token_release(zp_btoken *t) {
    if (atomic_fetch_sub(&t->refs, 1) != 1) return;
    /* Events go back to the pool rather than to cuEventDestroy: this may run on any thread. */
    event_put(t->dev, t->end, t->start != NULL);
    event_put(t->dev, t->start, true);
    pthread_mutex_destroy(&t->lock);
    free(t);
}

/* One thread watches tokens that have callbacks and calls them once their events complete. Callbacks may
 * call back into the backend (and CUDA), which CUDA's own host callbacks must not. */
static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t watch_cv = PTHREAD_COND_INITIALIZER;
static zp_btoken **watched;
static size_t watched_len, watched_cap;
static bool watcher_started;

static void fire(zp_btoken *t) {
    pthread_mutex_lock(&t->lock);
    t->complete = true;
    struct zc_cb *cb = t->cbs;
    t->cbs = NULL;
    pthread_mutex_unlock(&t->lock);
    while (cb) {
        struct zc_cb *next = cb->next;
        cb->fn(t, cb->user);
        free(cb);
        cb = next;
    }
}

static void *watcher(void *arg) {
    (void)arg;
    unsigned idle_us = 2;
    for (;;) {
        pthread_mutex_lock(&watch_lock);
        while (watched_len == 0) {
            idle_us = 2;
            pthread_cond_wait(&watch_cv, &watch_lock);
        }
        /* Take the finished ones out under the lock; fire them outside it. */
        zp_btoken *done[64];
        size_t nd = 0, w = 0;
        for (size_t i = 0; i < watched_len; i++) {
            zp_btoken *t = watched[i];
            zc_bind(t->dev);
            if (nd < 64 && zc_cu.cuEventQuery(t->end) != CUDA_ERROR_NOT_READY)
                done[nd++] = t;
            else
                watched[w++] = t;
        }
        watched_len = w;
        pthread_mutex_unlock(&watch_lock);
        for (size_t i = 0; i < nd; i++) {
            fire(done[i]);
            zc_token_release(done[i]);
        }
        if (nd == 0) {
            struct timespec ts = {0, (long)idle_us * 1000};
            nanosleep(&ts, NULL);
            if (idle_us < 200) idle_us *= 2;
        } else {
            idle_us = 2;
        }
    }
    return NULL;
}

static ze_result_t zc_token_on_complete(zp_btoken *t, zp_token_fn fn, void *user) {
    struct zc_cb *cb = malloc(sizeof *cb);
    if (!cb) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    cb->fn = fn;
    cb->user = user;
    pthread_mutex_lock(&t->lock);
    if (t->complete) {
        pthread_mutex_unlock(&t->lock);
        free(cb);
        fn(t, user);
        return ZE_RESULT_SUCCESS;
    }
    bool first = t->cbs == NULL;
    cb->next = t->cbs;
    t->cbs = cb;
    pthread_mutex_unlock(&t->lock);
    if (!first) return ZE_RESULT_SUCCESS;
    zc_token_retain(t);
    pthread_mutex_lock(&watch_lock);
    ze_result_t r = ZE_RESULT_SUCCESS;
    if (!watcher_started) {
        pthread_t th;
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&th, &at, watcher, NULL) == 0)
            watcher_started = true;
        else
            r = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        pthread_attr_destroy(&at);
    }
    if (r == ZE_RESULT_SUCCESS && watched_len == watched_cap) {
        size_t cap = watched_cap ? watched_cap * 2 : 64;
        zp_btoken **p = realloc(watched, cap * sizeof *p);
        if (p) {
            watched = p;
            watched_cap = cap;
        } else {
            r = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
    }
    if (r == ZE_RESULT_SUCCESS) {
        watched[watched_len++] = t;
        pthread_cond_signal(&watch_cv);
    }
    pthread_mutex_unlock(&watch_lock);
    if (r != ZE_RESULT_SUCCESS) {
        /* Undo: the callback stays unregistered and the caller sets its signal itself. */
        pthread_mutex_lock(&t->lock);
        t->cbs = NULL;
        pthread_mutex_unlock(&t->lock);
        free(cb);
        zc_token_release(t);
    }
    return r;
}

static ze_result_t zc_token_times(zp_btoken *t, uint64_t *start, uint64_t *end) {
    if (!t->start) return ZE_RESULT_ERROR_NOT_AVAILABLE;
    zc_bind(t->dev);
    float from_base = 0, dur = 0;
    CUresult r = zc_cu.cuEventElapsedTime(&from_base, t->dev->base_ev, t->start);
    if (r == CUDA_SUCCESS) r = zc_cu.cuEventElapsedTime(&dur, t->start, t->end);
    if (r != CUDA_SUCCESS) return zc_result(r);
    *start = t->dev->base_ns + (uint64_t)((double)from_base * 1e6);
    *end = *start + (uint64_t)((double)dur * 1e6);
    return ZE_RESULT_SUCCESS;
}

/* ---- queues and commands ---- */

static ze_result_t zc_queue_create(zp_bdev *dev, bool profiling, zp_bqueue **out) {
    struct zp_bqueue *q = calloc(1, sizeof *q);
    if (!q) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    zc_bind(dev);
    CUresult r = zc_cu.cuStreamCreate(&q->stream, CU_STREAM_NON_BLOCKING);
    if (r != CUDA_SUCCESS) {
        free(q);
        return zc_result(r);
    }
    q->dev = dev;
    q->profiling = profiling;
    *out = q;
    return ZE_RESULT_SUCCESS;
}

static void zc_queue_destroy(zp_bqueue *q) {
    if (!q) return;
    zc_bind(q->dev);
    zc_cu.cuStreamSynchronize(q->stream);
    zc_cu.cuStreamDestroy(q->stream);
    free(q);
}

static ze_result_t zc_queue_finish(zp_bqueue *q) {
    zc_bind(q->dev);
    return zc_result(zc_cu.cuStreamSynchronize(q->stream));
}

/* Before a command: its waits, and the start event of a timed token. */
static ze_result_t begin(zp_bqueue *q, uint32_t nw, zp_btoken *const *waits, zp_btoken **done, zp_btoken **tok) {
    zc_bind(q->dev);
    for (uint32_t i = 0; i < nw; i++) {
        CUresult r = zc_cu.cuStreamWaitEvent(q->stream, waits[i]->end, 0);
        if (r != CUDA_SUCCESS) return zc_result(r);
    }
    *tok = NULL;
    if (!done) return ZE_RESULT_SUCCESS;
    zp_btoken *t = calloc(1, sizeof *t);
    if (!t) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    atomic_init(&t->refs, 1);
    t->dev = q->dev;
    pthread_mutex_init(&t->lock, NULL);
    t->end = event_get(q->dev, q->profiling);
    if (q->profiling) t->start = event_get(q->dev, true);
    if (!t->end || (q->profiling && !t->start)) {
        zc_token_release(t);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    if (t->start) zc_cu.cuEventRecord(t->start, q->stream);
    *tok = t;
    return ZE_RESULT_SUCCESS;
}

/* After a command: the token's end event, or the token dropped when the command failed. */
static ze_result_t finish(zp_bqueue *q, CUresult r, zp_btoken *t, zp_btoken **done) {
    if (!t) return zc_result(r);
    if (r == CUDA_SUCCESS) r = zc_cu.cuEventRecord(t->end, q->stream);
    if (r != CUDA_SUCCESS) {
        zc_token_release(t);
        return zc_result(r);
    }
    *done = t;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t zc_launch(zp_bqueue *q, zp_bkern *k, const zp_ndrange *range, uint32_t nw,
                             zp_btoken *const *waits, zp_btoken **done) {
    zp_btoken *t;
    ze_result_t res = begin(q, nw, waits, done, &t);
    if (res != ZE_RESULT_SUCCESS) return res;
    uint32_t shared = 0;
    if (k->has_local) {
        /* __local arguments: consecutive 128-byte aligned pieces of the dynamic shared block; each
         * argument's value is its offset (see rewrite_local_args in ptx.cpp). */
        uint64_t off = 0;
        for (uint32_t a = 0; a < k->num_args; a++) {
            if (k->kinds[a] != ZP_ARG_LOCAL) continue;
            off = (off + 127u) & ~(uint64_t)127u;
            memcpy(k->params[a], &off, sizeof off);
            off += k->local_sz[a];
        }
        if (off > UINT32_MAX) return finish(q, CUDA_ERROR_INVALID_VALUE, t, done);
        shared = (uint32_t)off;
        if (shared > k->dyn_limit) {
            CUresult r = zc_cu.cuFuncSetAttribute(k->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)shared);
            if (r == CUDA_SUCCESS)
                r = zc_cu.cuFuncSetAttribute(k->fn_exact, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)shared);
            if (r != CUDA_SUCCESS) {
                if (t) zc_token_release(t);
                return ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
            }
            k->dyn_limit = shared;
        }
    }
    bool uniform = zp_ndrange_uniform(range);
    if (!uniform) zp_exact_desc(range, k->hidden_exact);
    k->hidden_dim = range->dims;
    unsigned g[3], l[3];
    for (int d = 0; d < 3; d++) {
        k->hidden_off[d] = range->offset[d];
        l[d] = (unsigned)(range->local[d] ? range->local[d] : 1);
        g[d] = (unsigned)(range->global[d] / l[d]);
    }
    CUresult r = zc_cu.cuLaunchKernel(uniform ? k->fn : k->fn_exact, g[0], g[1], g[2], l[0], l[1], l[2], shared,
                                      q->stream, uniform ? k->params : k->params_exact, NULL);
    return finish(q, r, t, done);
}

static ze_result_t zc_copy(zp_bqueue *q, void *dst, const void *src, size_t size, uint32_t nw,
                           zp_btoken *const *waits, zp_btoken **done) {
    zp_btoken *t;
    ze_result_t res = begin(q, nw, waits, done, &t);
    if (res != ZE_RESULT_SUCCESS) return res;
    CUresult r = zc_cu.cuMemcpyAsync((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src, size, q->stream);
    return finish(q, r, t, done);
}

static ze_result_t zc_fill(zp_bqueue *q, void *dst, const void *pattern, size_t psize, size_t size, uint32_t nw,
                           zp_btoken *const *waits, zp_btoken **done) {
    zp_btoken *t;
    ze_result_t res = begin(q, nw, waits, done, &t);
    if (res != ZE_RESULT_SUCCESS) return res;
    CUdeviceptr d = (CUdeviceptr)(uintptr_t)dst;
    const uint8_t *p = pattern;
    bool same = true;
    for (size_t i = 1; i < psize; i++) same &= p[i] == p[0];
    CUresult r;
    if (same) {
        r = zc_cu.cuMemsetD8Async(d, p[0], size, q->stream);
    } else if (psize == 2 && d % 2 == 0 && size % 2 == 0) {
        uint16_t v;
        memcpy(&v, p, 2);
        r = zc_cu.cuMemsetD16Async(d, v, size / 2, q->stream);
    } else if (psize == 4 && d % 4 == 0 && size % 4 == 0) {
        uint32_t v;
        memcpy(&v, p, 4);
        r = zc_cu.cuMemsetD32Async(d, v, size / 4, q->stream);
    } else {
        /* Any other pattern: one piece written from the host, then doubled with device copies. A copy
         * from pageable host memory has taken its source once it returns, so the piece can go at once. */
        size_t piece = size < 65536 ? size : 65536 - 65536 % psize;
        uint8_t *h = malloc(piece);
        if (!h) {
            if (t) zc_token_release(t);
            return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
        for (size_t i = 0; i < piece; i += psize) memcpy(h + i, p, psize < piece - i ? psize : piece - i);
        r = zc_cu.cuMemcpyAsync(d, (CUdeviceptr)(uintptr_t)h, piece, q->stream);
        free(h);
        for (size_t have = piece; r == CUDA_SUCCESS && have < size;) {
            size_t n = have < size - have ? have : size - have;
            r = zc_cu.cuMemcpyAsync(d + have, d, n, q->stream);
            have += n;
        }
    }
    return finish(q, r, t, done);
}

static ze_result_t zc_barrier(zp_bqueue *q, uint32_t nw, zp_btoken *const *waits, zp_btoken **done) {
    zp_btoken *t;
    ze_result_t res = begin(q, nw, waits, done, &t);
    if (res != ZE_RESULT_SUCCESS) return res;
    return finish(q, CUDA_SUCCESS, t, done);
}

/* Host tasks run on one worker thread of ze_cuda's, not on CUDA's callback thread: the task may call into
 * CUDA (a timestamp query reads event times), which a CUDA host callback must not. The callback only hands
 * the task over and waits for it, which keeps the task in stream order. */
typedef struct host_job {
    void (*fn)(void *);
    void *data;
    bool done;
    pthread_mutex_t lock;
    pthread_cond_t cv;
    struct host_job *next;
} host_job;

static pthread_mutex_t job_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t job_cv = PTHREAD_COND_INITIALIZER;
static host_job *jobs_head, *jobs_tail;
static bool worker_started;

static void *host_worker(void *arg) {
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&job_lock);
        while (!jobs_head) pthread_cond_wait(&job_cv, &job_lock);
        host_job *j = jobs_head;
        jobs_head = j->next;
        if (!jobs_head) jobs_tail = NULL;
        pthread_mutex_unlock(&job_lock);
        j->fn(j->data);
        pthread_mutex_lock(&j->lock);
        j->done = true;
        pthread_cond_signal(&j->cv);
        pthread_mutex_unlock(&j->lock);
    }
    return NULL;
}

static void CUDA_CB host_trampoline(void *p) {
    host_job *j = p;
    pthread_mutex_lock(&job_lock);
    j->next = NULL;
    if (jobs_tail)
        jobs_tail->next = j;
    else
        jobs_head = j;
    jobs_tail = j;
    pthread_cond_signal(&job_cv);
    pthread_mutex_unlock(&job_lock);
    pthread_mutex_lock(&j->lock);
    while (!j->done) pthread_cond_wait(&j->cv, &j->lock);
    pthread_mutex_unlock(&j->lock);
    pthread_mutex_destroy(&j->lock);
    pthread_cond_destroy(&j->cv);
    free(j);
}

static ze_result_t zc_host_task(zp_bqueue *q, void (*fn)(void *data), void *data, uint32_t nw,
                                zp_btoken *const *waits, zp_btoken **done) {
    pthread_mutex_lock(&job_lock);
    if (!worker_started) {
        pthread_t th;
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        worker_started = pthread_create(&th, &at, host_worker, NULL) == 0;
        pthread_attr_destroy(&at);
    }
    bool ok = worker_started;
    pthread_mutex_unlock(&job_lock);
    if (!ok) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    host_job *j = calloc(1, sizeof *j);
    if (!j) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    j->fn = fn;
    j->data = data;
    pthread_mutex_init(&j->lock, NULL);
    pthread_cond_init(&j->cv, NULL);
    zp_btoken *t;
    ze_result_t res = begin(q, nw, waits, done, &t);
    if (res != ZE_RESULT_SUCCESS) {
        free(j);
        return res;
    }
    CUresult r = zc_cu.cuLaunchHostFunc(q->stream, host_trampoline, j);
    if (r != CUDA_SUCCESS) free(j);
    return finish(q, r, t, done);
}

const zp_backend_ops zp_cuda_backend = {
    .name = "cuda",
    .init = zc_init,
    .device_count = zc_device_count,
    .device = zc_device,
    .device_info = zc_device_info,
    .timestamps = zc_timestamps,
    .mem_alloc = zc_mem_alloc,
    .mem_free = zc_mem_free,
    .module_build = zc_module_build,
    .module_destroy = zc_module_destroy,
    .module_meta_free = zc_module_meta_free,
    .kernel_create = zc_kernel_create,
    .kernel_destroy = zc_kernel_destroy,
    .kernel_set_arg = zc_kernel_set_arg,
    .queue_create = zc_queue_create,
    .queue_destroy = zc_queue_destroy,
    .queue_finish = zc_queue_finish,
    .launch = zc_launch,
    .copy = zc_copy,
    .fill = zc_fill,
    .barrier = zc_barrier,
    .host_task = zc_host_task,
    .token_retain = zc_token_retain,
    .token_release = zc_token_release,
    .token_on_complete = zc_token_on_complete,
    .token_times = zc_token_times,
    .mem_alloc_typed = zc_mem_alloc_typed,
    .mem_free_typed = zc_mem_free_typed,
    .copy_any = true,
};
