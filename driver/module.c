/* Module and build-log entry points. The backend turns SPIR-V into something it runs and returns the
 * per-kernel facts that kernel.c reports. */
#include <stddef.h>
#include <stdio.h>

#include "zp.h"
#include "api.h"
#include "../common/fnv.h"

static ze_module_build_log_handle_t make_log(char *text) {
    ze_module_build_log_handle_t log = calloc(1, sizeof *log);
    if (!log) {
        free(text);
        return NULL;
    }
    log->magic = ZP_MAGIC_BUILDLOG;
    log->text = text;
    return log;
}

/* ze_pocl's native binary: what a module was built from, for the same driver version and device, behind a
 * header that lets zeModuleCreate(ZE_MODULE_FORMAT_NATIVE) refuse anything else. ze_pocl builds in two steps
 * (SPIR-V -> bitcode in process, then PoCL's compiler, whose kernel cache keys on that bitcode), so a module
 * made from the binary is built again from the same SPIR-V: translation takes well under a millisecond and
 * PoCL's build is a cache hit. Layout, in host byte order (a binary never leaves its driver and device):
 *   header; SPIR-V (spirv_size bytes); build flags (flags_size bytes, no NUL);
 *   num_spec x {uint32 id, uint32 width in bytes (1, 2, 4 or 8), uint64 value}.
 * The checksum (64-bit FNV-1a) covers everything after the header, so a truncated or altered copy is refused
 * before its contents are read. */
#define ZP_NATIVE_MAGIC "ZEPOCLNB"
#define ZP_NATIVE_FORMAT 1u

typedef struct zp_native_header {
    char magic[8];
    uint32_t format;
    uint32_t driver_version;
    uint32_t device_index;
    uint32_t num_spec;
    uint64_t device_hash; /* FNV-1a of the device's name */
    uint64_t spirv_size;
    uint64_t flags_size;
    uint64_t checksum;
} zp_native_header;

typedef struct zp_native_spec {
    uint32_t id;
    uint32_t width;
    uint64_t value;
} zp_native_spec;


static uint64_t device_hash(ze_device_handle_t dev) {
    return krt_fnv1a64(KRT_FNV1A64_INIT, dev->info.name, strnlen(dev->info.name, sizeof dev->info.name));
}

/* Width in bytes of the specialization constant with SpecId `id` in a module that passed validation, or 0
 * when the module has none (the translator ignores such a constant). */
static uint32_t spec_width(const uint32_t *w, size_t n, uint32_t id) {
    enum { OP_DECORATE = 71, DEC_SPEC_ID = 1, OP_TYPE_BOOL = 20, OP_TYPE_INT = 21, OP_TYPE_FLOAT = 22,
           OP_SPEC_TRUE = 48, OP_SPEC_FALSE = 49, OP_SPEC = 50 };
    uint32_t target = 0, type = 0;
    for (size_t i = 5; i < n && (w[i] >> 16) != 0; i += w[i] >> 16) {
        uint32_t op = w[i] & 0xffff, wc = w[i] >> 16;
        if (i + wc > n) break;
        if (op == OP_DECORATE && wc >= 4 && w[i + 2] == DEC_SPEC_ID && w[i + 3] == id) target = w[i + 1];
    }
    if (!target) return 0;
    for (size_t i = 5; i < n && (w[i] >> 16) != 0; i += w[i] >> 16) {
        uint32_t op = w[i] & 0xffff, wc = w[i] >> 16;
        if (i + wc > n) break;
        if ((op == OP_SPEC || op == OP_SPEC_TRUE || op == OP_SPEC_FALSE) && wc >= 3 && w[i + 2] == target)
            type = w[i + 1];
    }
    if (!type) return 0;
    for (size_t i = 5; i < n && (w[i] >> 16) != 0; i += w[i] >> 16) {
        uint32_t op = w[i] & 0xffff, wc = w[i] >> 16;
        if (i + wc > n) break;
        if (wc >= 2 && w[i + 1] == type) {
            if (op == OP_TYPE_BOOL) return 1;
            if ((op == OP_TYPE_INT || op == OP_TYPE_FLOAT) && wc >= 3 && w[i + 2] >= 8 && w[i + 2] <= 64)
                return w[i + 2] / 8;
            return 0;
        }
    }
    return 0;
}

/* Packs what a successful build came from. Returns false only when out of memory. */
static bool make_native(ze_module_handle_t m, const zp_module_src *src) {
    size_t nwords = src->size / 4;
    /* The caller's SPIR-V need not be word-aligned: the widths are looked up in an aligned copy. */
    uint32_t *words = src->num_spec ? malloc(src->size) : NULL;
    zp_native_spec *spec = calloc(src->num_spec ? src->num_spec : 1, sizeof *spec);
    if ((src->num_spec && !words) || !spec) {
        free(words);
        free(spec);
        return false;
    }
    if (words) memcpy(words, src->spirv, src->size);
    uint32_t num_spec = 0;
    for (uint32_t i = 0; i < src->num_spec; i++) {
        uint32_t width = src->spec_values[i] ? spec_width(words, nwords, src->spec_ids[i]) : 0;
        if (width == 0) continue;
        spec[num_spec].id = src->spec_ids[i];
        spec[num_spec].width = width;
        memcpy(&spec[num_spec].value, src->spec_values[i], width);
        num_spec++;
    }
    free(words);
    size_t flags_size = src->flags ? strlen(src->flags) : 0;
    size_t total = sizeof(zp_native_header) + src->size + flags_size + num_spec * sizeof(zp_native_spec);
    uint8_t *blob = malloc(total);
    if (!blob) {
        free(spec);
        return false;
    }
    zp_native_header h = {.format = ZP_NATIVE_FORMAT, .driver_version = ZP_DRIVER_VERSION,
                          .device_index = m->dev->index, .num_spec = num_spec, .device_hash = device_hash(m->dev),
                          .spirv_size = src->size, .flags_size = flags_size};
    memcpy(h.magic, ZP_NATIVE_MAGIC, sizeof h.magic);
    uint8_t *at = blob + sizeof h;
    memcpy(at, src->spirv, src->size);
    at += src->size;
    if (flags_size) memcpy(at, src->flags, flags_size);
    at += flags_size;
    if (num_spec) memcpy(at, spec, num_spec * sizeof *spec);
    free(spec);
    h.checksum = krt_fnv1a64(KRT_FNV1A64_INIT, blob + sizeof h, total - sizeof h);
    memcpy(blob, &h, sizeof h);
    m->native = blob;
    m->native_size = total;
    return true;
}

/* What a native binary holds once its header and checksum are checked. */
typedef struct zp_native_parts {
    zp_module_src src;
    char *flags;            /* owned, NUL-terminated */
    uint32_t *spec_ids;     /* owned */
    const void **spec_values; /* owned; point into the caller's blob */
} zp_native_parts;

static void native_parts_free(zp_native_parts *p) {
    free(p->flags);
    free(p->spec_ids);
    free(p->spec_values);
}

/* Checks a native binary and unpacks it; on failure *why says what was wrong. */
static ze_result_t native_unpack(ze_device_handle_t dev, const uint8_t *blob, size_t size, zp_native_parts *out,
                                 const char **why) {
    memset(out, 0, sizeof *out);
    zp_native_header h;
    if (size < sizeof h) {
        *why = "not a ze_pocl native binary: shorter than its header";
        return ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
    }
    memcpy(&h, blob, sizeof h);
    if (memcmp(h.magic, ZP_NATIVE_MAGIC, sizeof h.magic) != 0) {
        *why = "not a ze_pocl native binary: wrong magic";
        return ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
    }
    if (h.format != ZP_NATIVE_FORMAT || h.driver_version != ZP_DRIVER_VERSION) {
        *why = "native binary from another ze_pocl version";
        return ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
    }
    if (h.device_index != dev->index || h.device_hash != device_hash(dev)) {
        *why = "native binary built for another device";
        return ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
    }
    size_t body = size - sizeof h;
    /* Each term is checked against what is left, so no sum can wrap. */
    if (h.spirv_size > body || h.flags_size > body - h.spirv_size ||
        (uint64_t)h.num_spec * sizeof(zp_native_spec) != body - h.spirv_size - h.flags_size) {
        *why = "native binary truncated or padded: its sizes do not add up";
        return ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
    }
    if (krt_fnv1a64(KRT_FNV1A64_INIT, blob + sizeof h, body) != h.checksum) {
        *why = "native binary damaged: checksum mismatch";
        return ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
    }
    const uint8_t *spirv = blob + sizeof h;
    const uint8_t *flags = spirv + h.spirv_size;
    const uint8_t *spec = flags + h.flags_size;
    out->flags = malloc(h.flags_size + 1);
    out->spec_ids = calloc(h.num_spec ? h.num_spec : 1, sizeof *out->spec_ids);
    out->spec_values = calloc(h.num_spec ? h.num_spec : 1, sizeof *out->spec_values);
    if (!out->flags || !out->spec_ids || !out->spec_values) {
        native_parts_free(out);
        *why = "out of host memory";
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    memcpy(out->flags, flags, h.flags_size);
    out->flags[h.flags_size] = '\0';
    for (uint32_t i = 0; i < h.num_spec; i++) {
        /* The entries may be unaligned in the caller's buffer: read the id by copy, and point at the value,
         * which the build reads by copy too. */
        memcpy(&out->spec_ids[i], spec + i * sizeof(zp_native_spec) + offsetof(zp_native_spec, id), 4);
        out->spec_values[i] = spec + i * sizeof(zp_native_spec) + offsetof(zp_native_spec, value);
    }
    out->src = (zp_module_src){.spirv = spirv, .size = h.spirv_size, .flags = out->flags, .num_spec = h.num_spec,
                               .spec_ids = out->spec_ids, .spec_values = out->spec_values};
    return ZE_RESULT_SUCCESS;
}

/* ZE_krt_build_log: copies the build log into the caller's chained struct, if there is one (the loader passes a
 * chained struct through as it is, where it loses a failed build's log handle with several drivers loaded). */
static void copy_log_out(const ze_module_desc_t *desc, const char *text) {
    if (!text) text = "";
    for (const ze_base_desc_t *e = (const ze_base_desc_t *)desc->pNext; e; e = (const ze_base_desc_t *)e->pNext) {
        if (e->stype != ZE_STRUCTURE_TYPE_KRT_BUILD_LOG_DESC) continue;
        const ze_krt_build_log_desc_t *bl = (const ze_krt_build_log_desc_t *)e;
        size_t n = strlen(text);
        if (bl->pLength) *bl->pLength = n + 1;
        if (bl->pText && bl->capacity > 0) {
            size_t c = n < bl->capacity - 1 ? n : bl->capacity - 1;
            memcpy(bl->pText, text, c);
            bl->pText[c] = '\0';
        }
    }
}

ze_result_t zp_zeModuleCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice, const ze_module_desc_t *desc,
                              ze_module_handle_t *phModule, ze_module_build_log_handle_t *phBuildLog) {
    ZP_CHECK_HANDLE(hContext, ZP_MAGIC_CONTEXT);
    ZP_CHECK_HANDLE(hDevice, ZP_MAGIC_DEVICE);
    ZP_CHECK_PTR(desc);
    ZP_CHECK_PTR(phModule);
    if (phBuildLog) *phBuildLog = NULL;
    *phModule = NULL;
    if (desc->format > ZE_MODULE_FORMAT_NATIVE) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    ZP_CHECK_PTR(desc->pInputModule);
    if (desc->inputSize == 0) return ZE_RESULT_ERROR_INVALID_SIZE;
    /* A module is built on the device for the context (fault.c): a lost device builds nothing. */
    zp_context_use(hContext, hDevice);
    if (zp_device_lost(hDevice)) return ZE_RESULT_ERROR_DEVICE_LOST;
    zp_module_src src = {.spirv = desc->pInputModule, .size = desc->inputSize, .flags = desc->pBuildFlags};
    zp_native_parts native = {0};
    if (desc->format == ZE_MODULE_FORMAT_NATIVE) {
        /* Build flags and specialization constants come from the binary ("valid only for SPIR-V input"). */
        const char *why = NULL;
        ze_result_t r = native_unpack(hDevice, desc->pInputModule, desc->inputSize, &native, &why);
        if (r != ZE_RESULT_SUCCESS) {
            copy_log_out(desc, why);
            if (phBuildLog) *phBuildLog = make_log(strdup(why));
            return r;
        }
        src = native.src;
    } else if (desc->pConstants && desc->pConstants->numConstants > 0) {
        if (!desc->pConstants->pConstantIds || !desc->pConstants->pConstantValues)
            return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
        src.num_spec = desc->pConstants->numConstants;
        src.spec_ids = desc->pConstants->pConstantIds;
        src.spec_values = desc->pConstants->pConstantValues;
    }
    /* The native library of libkrt's host device (ZE_STRUCTURE_TYPE_KRT_HOST_LIBRARY_DESC); a backend that runs
     * no native code (PoCL, CUDA) ignores it. The bounds table of a checked module (ZE_krt_bounds_check): the
     * SPIR-V front end instruments the module (spirv/bounds.cpp); the host's backend needs a checked library. */
    for (const ze_base_desc_t *e = (const ze_base_desc_t *)desc->pNext; e; e = (const ze_base_desc_t *)e->pNext)
        if (e->stype == ZE_STRUCTURE_TYPE_KRT_HOST_LIBRARY_DESC)
            src.host_library = ((const ze_krt_host_library_desc_t *)e)->path;
        else if (e->stype == ZE_STRUCTURE_TYPE_KRT_BOUNDS_CHECK_DESC)
            src.bounds_table = ((const ze_krt_bounds_check_desc_t *)e)->table;
    src.fp16 = hDevice->info.fp16;
    src.fp64 = hDevice->info.fp64;
    src.int64_atomics = hDevice->info.int64_atomics;
    src.max_group_size = hDevice->info.max_group_total;
    ze_module_handle_t m = calloc(1, sizeof *m);
    if (!m) {
        native_parts_free(&native);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    m->dev = hDevice;
    char *text = NULL;
    ze_result_t r = zp_be->module_build(hDevice->bdev, &src, &m->bmod, &m->meta, &text);
    if (r == ZE_RESULT_SUCCESS && !make_native(m, &src)) r = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    native_parts_free(&native);
    copy_log_out(desc, text);
    if (phBuildLog) {
        *phBuildLog = make_log(text ? text : strdup(""));
        if (!*phBuildLog && r == ZE_RESULT_SUCCESS) r = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    } else {
        free(text);
    }
    if (r != ZE_RESULT_SUCCESS) {
        if (m->bmod) {
            zp_be->module_destroy(m->bmod);
            zp_be->module_meta_free(&m->meta);
        }
        free(m->native);
        free(m);
        return r;
    }
    m->magic = ZP_MAGIC_MODULE;
    m->ctx = hContext;
    *phModule = m;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeModuleDestroy(ze_module_handle_t hModule) {
    ZP_CHECK_HANDLE(hModule, ZP_MAGIC_MODULE);
    if (atomic_load(&hModule->live_kernels) > 0) return ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE;
    hModule->magic = 0;
    zp_be->module_destroy(hModule->bmod);
    zp_be->module_meta_free(&hModule->meta);
    free(hModule->native);
    free(hModule);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeModuleBuildLogDestroy(ze_module_build_log_handle_t hLog) {
    ZP_CHECK_HANDLE(hLog, ZP_MAGIC_BUILDLOG);
    hLog->magic = 0;
    free(hLog->text);
    free(hLog);
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeModuleBuildLogGetString(ze_module_build_log_handle_t hLog, size_t *pSize, char *pBuildLog) {
    ZP_CHECK_HANDLE(hLog, ZP_MAGIC_BUILDLOG);
    ZP_CHECK_PTR(pSize);
    const char *t = hLog->text ? hLog->text : "";
    size_t need = strlen(t) + 1;
    if (pBuildLog == NULL || *pSize == 0) {
        *pSize = need;
        return ZE_RESULT_SUCCESS;
    }
    size_t n = *pSize < need ? *pSize : need;
    memcpy(pBuildLog, t, n - 1);
    pBuildLog[n - 1] = '\0';
    *pSize = n;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeModuleGetKernelNames(ze_module_handle_t hModule, uint32_t *pCount, const char **pNames) {
    ZP_CHECK_HANDLE(hModule, ZP_MAGIC_MODULE);
    ZP_CHECK_PTR(pCount);
    uint32_t n = hModule->meta.count;
    if (*pCount == 0 || pNames == NULL) {
        *pCount = n;
        return ZE_RESULT_SUCCESS;
    }
    if (*pCount > n) *pCount = n;
    for (uint32_t i = 0; i < *pCount; i++) pNames[i] = hModule->meta.kernels[i].name;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeModuleGetProperties(ze_module_handle_t hModule, ze_module_properties_t *props) {
    ZP_CHECK_HANDLE(hModule, ZP_MAGIC_MODULE);
    ZP_CHECK_PTR(props);
    props->flags = 0;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeModuleGetNativeBinary(ze_module_handle_t hModule, size_t *pSize, uint8_t *pModuleNativeBinary) {
    ZP_CHECK_HANDLE(hModule, ZP_MAGIC_MODULE);
    ZP_CHECK_PTR(pSize);
    /* A buffer smaller than the binary gets nothing: a truncated copy would only be refused later. */
    if (pModuleNativeBinary == NULL) {
        *pSize = hModule->native_size;
        return ZE_RESULT_SUCCESS;
    }
    if (*pSize < hModule->native_size) {
        *pSize = hModule->native_size;
        return ZE_RESULT_ERROR_INVALID_SIZE;
    }
    memcpy(pModuleNativeBinary, hModule->native, hModule->native_size);
    *pSize = hModule->native_size;
    return ZE_RESULT_SUCCESS;
}

/* The module's exported program-scope variables (zp_module_meta.globals, from the SPIR-V) and their addresses from
 * the backend: on ze_pocl host memory that PoCL keeps for the program, on ze_cuda the CUDA module's global. */
ze_result_t zp_zeModuleGetGlobalPointer(ze_module_handle_t hModule, const char *pGlobalName, size_t *pSize, void **pptr) {
    ZP_CHECK_HANDLE(hModule, ZP_MAGIC_MODULE);
    ZP_CHECK_PTR(pGlobalName);
    if (!zp_be->global_pointer) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    const zp_module_meta *meta = &hModule->meta;
    for (uint32_t i = 0; i < meta->num_globals; i++) {
        if (strcmp(meta->globals[i].name, pGlobalName) != 0) continue;
        void *p = NULL;
        ze_result_t r = zp_be->global_pointer(hModule->bmod, i, pGlobalName, &p);
        if (r != ZE_RESULT_SUCCESS) return r;
        if (pSize) *pSize = (size_t)meta->globals[i].size;
        if (pptr) *pptr = p;
        return ZE_RESULT_SUCCESS;
    }
    return ZE_RESULT_ERROR_INVALID_GLOBAL_NAME;
}

ze_result_t zp_zeModuleGetFunctionPointer(ze_module_handle_t hModule, const char *pFunctionName, void **pfnFunction) {
    ZP_CHECK_HANDLE(hModule, ZP_MAGIC_MODULE);
    ZP_CHECK_PTR(pFunctionName);
    ZP_CHECK_PTR(pfnFunction);
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}
