/* Module and build-log entry points. The backend turns SPIR-V into something it runs and returns the
 * per-kernel facts that kernel.c reports. */
#include <stdio.h>

#include "zp.h"
#include "api.h"

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
    /* ze_pocl never hands out native binaries (zeModuleGetNativeBinary is unsupported), so no native
     * binary can be one of ours. */
    if (desc->format == ZE_MODULE_FORMAT_NATIVE) {
        if (phBuildLog) *phBuildLog = make_log(strdup("native binaries are not supported by ze_pocl"));
        return ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
    }
    zp_module_src src = {.spirv = desc->pInputModule, .size = desc->inputSize, .flags = desc->pBuildFlags,
                         .fp16 = hDevice->info.fp16, .fp64 = hDevice->info.fp64,
                         .int64_atomics = hDevice->info.int64_atomics};
    if (desc->pConstants && desc->pConstants->numConstants > 0) {
        if (!desc->pConstants->pConstantIds || !desc->pConstants->pConstantValues)
            return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
        src.num_spec = desc->pConstants->numConstants;
        src.spec_ids = desc->pConstants->pConstantIds;
        src.spec_values = desc->pConstants->pConstantValues;
    }
    ze_module_handle_t m = calloc(1, sizeof *m);
    if (!m) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    char *text = NULL;
    ze_result_t r = zp_be->module_build(hDevice->bdev, &src, &m->bmod, &m->meta, &text);
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
        free(m);
        return r;
    }
    m->magic = ZP_MAGIC_MODULE;
    m->ctx = hContext;
    m->dev = hDevice;
    *phModule = m;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_zeModuleDestroy(ze_module_handle_t hModule) {
    ZP_CHECK_HANDLE(hModule, ZP_MAGIC_MODULE);
    if (atomic_load(&hModule->live_kernels) > 0) return ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE;
    hModule->magic = 0;
    zp_be->module_destroy(hModule->bmod);
    zp_be->module_meta_free(&hModule->meta);
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
    (void)pModuleNativeBinary;
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}

ze_result_t zp_zeModuleGetGlobalPointer(ze_module_handle_t hModule, const char *pGlobalName, size_t *pSize, void **pptr) {
    ZP_CHECK_HANDLE(hModule, ZP_MAGIC_MODULE);
    ZP_CHECK_PTR(pGlobalName);
    (void)pSize;
    (void)pptr;
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}

ze_result_t zp_zeModuleGetFunctionPointer(ze_module_handle_t hModule, const char *pFunctionName, void **pfnFunction) {
    ZP_CHECK_HANDLE(hModule, ZP_MAGIC_MODULE);
    ZP_CHECK_PTR(pFunctionName);
    ZP_CHECK_PTR(pfnFunction);
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}
