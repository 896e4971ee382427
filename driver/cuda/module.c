/* CUDA backend: module builds (SPIR-V -> PTX in ptx.cpp, PTX -> CUDA binary with CUDA's JIT, kept in the
 * module cache of cache.c) and kernels: their functions, limits and argument slots. */
#include <stdlib.h>
#include <string.h>

#include "cuda_be.h"
#include "ptx.h"
#include "../../spirv/spirv.h"

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

/* ZE_CUDA_MAX_REGISTERS=N (1 to 255): the JIT's limit of registers per thread (CU_JIT_MAX_REGISTERS, ptxas's
 * -maxrregcount), a knob for measuring: unset, ptxas chooses, and for a kernel whose few threads each walk memory
 * it may choose 32 registers for full occupancy and keep few loads in flight (docs/performance.md, "Checked
 * launches"). Any other value is ignored. Part of the module cache's key. */
static unsigned jit_max_registers(void) {
    const char *v = getenv("ZE_CUDA_MAX_REGISTERS");
    if (!v || !*v) return 0;
    char *end;
    unsigned long n = strtoul(v, &end, 10);
    return *end == '\0' && n >= 1 && n <= 255 ? (unsigned)n : 0;
}

/* PTX -> CUDA binary with the driver's JIT (cuLink*, which hands the binary back so it can be cached). */
static CUresult jit(const char *ptx, unsigned max_registers, void **cubin, size_t *size, char *errlog,
                    size_t errcap) {
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_MAX_REGISTERS};
    void *vals[] = {errlog, (void *)(uintptr_t)errcap, (void *)(uintptr_t)max_registers};
    CUlinkState st;
    CUresult r = zc_cu.cuLinkCreate(max_registers ? 3 : 2, opts, vals, &st);
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

ze_result_t zc_module_build(zp_bdev *dev, const zp_module_src *src, zp_bmod **out, zp_module_meta *meta,
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
    unsigned max_registers = jit_max_registers();
    zc_cache_key(bc, bc_size, src->flags, dev, max_registers, key);
    size_t bin_size = 0;
    void *bin = zc_cache_get(key, &bin_size);
    ze_result_t res = ZE_RESULT_SUCCESS;
    if (!bin) {
        char *ptx = NULL, *blog = NULL;
        rc = zc_back(bc, bc_size, meta, &ptx, &blog);
        if (blog) *log = join_log(*log, blog);
        free(blog);
        if (rc != ZC_OK) {
            res = rc == ZC_OUT_OF_MEMORY ? ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY : ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
        } else {
            char errlog[8192] = "";
            CUresult r = jit(ptx, max_registers, &bin, &bin_size, errlog, sizeof errlog);
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
            /* A sticky error (a fault of earlier work) is the device lost, not a build failure (zc_result marks it). */
            res = r == CUDA_ERROR_OUT_OF_MEMORY                     ? ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY
                  : zc_result(r) == ZE_RESULT_ERROR_DEVICE_LOST ? ZE_RESULT_ERROR_DEVICE_LOST
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
            ki->name = dup_str(zp_kernel_backend_name(km)); /* the PTX's name (ZP_SPIRV_PTX_NAMES) */
            ki->private_size = km->private_size;
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

void zc_module_destroy(zp_bmod *m) {
    if (!m) return;
    zc_bind(m->dev);
    zc_cu.cuModuleUnload(m->module);
    free_kinfo(m);
    free(m);
}

void zc_module_meta_free(zp_module_meta *meta) { zp_spirv_meta_free(meta); }

/* The variable is a global of the CUDA module under its own name (ptx.cpp keeps exported variables visible). */
ze_result_t zc_global_pointer(zp_bmod *m, uint32_t index, const char *name, void **ptr) {
    (void)index;
    if (!zc_cu.cuModuleGetGlobal) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    zc_bind(m->dev);
    CUdeviceptr p = 0;
    size_t bytes = 0;
    CUresult r = zc_cu.cuModuleGetGlobal(&p, &bytes, m->module, name);
    if (r == CUDA_ERROR_NOT_FOUND) return ZE_RESULT_ERROR_INVALID_GLOBAL_NAME;
    if (r != CUDA_SUCCESS) return zc_result(r);
    *ptr = (void *)(uintptr_t)p;
    return ZE_RESULT_SUCCESS;
}

#define ZC_SLOT 16u
static uint32_t slot_size(uint32_t kind, uint32_t size) {
    (void)kind;
    return size > ZC_SLOT ? (size + 15u) & ~15u : ZC_SLOT;
}

ze_result_t zc_kernel_create(zp_bmod *m, const char *name, zp_bkern **out, zp_kernel_limits *limits) {
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
    limits->private_max = zc_local_limit(m->dev); /* ZE_krt_private_memory (device.c) */
    /* A kernel whose private memory is past what CUDA gives a thread runs a trap instead of its body (ptx.h,
     * zc_back): its private size is the module's count, past the limit, so that every launch of it is refused. */
    if (ki->private_size > ZC_LOCAL_MAX) limits->private_size = ki->private_size;
    v = 0;
    zc_cu.cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k->fn);
    limits->local_static = (uint64_t)v;
    k->static_shared = (uint32_t)v;
    v = 0;
    zc_cu.cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, k->fn);
    k->dyn_limit = (uint32_t)v;
    v = 0;
    zc_cu.cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, m->dev->dev);
    k->shared_max = (uint32_t)v;
    *out = k;
    return ZE_RESULT_SUCCESS;
}

void zc_kernel_destroy(zp_bkern *k) {
    if (!k) return;
    free(k->params);
    free(k->store);
    free(k->local_sz);
    free(k);
}

ze_result_t zc_kernel_set_arg(zp_bkern *k, uint32_t index, uint32_t kind, size_t size, const void *value) {
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
