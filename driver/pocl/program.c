/* PoCL backend: module builds (SPIR-V -> SPIR 1.2 bitcode -> clBuildProgram) and kernels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pocl_be.h"
#include "spirv_bridge.h"

/* PoCL reads SPIR 1.2 bitcode with these options. Of the caller's flags only the -cl-* ones mean
 * something to an OpenCL compiler; Level Zero's own (-ze-*) have no PoCL counterpart and are dropped. */
static char *build_options(const char *flags) {
    static const char base[] = "-x spir -spir-std=1.2";
    size_t n = sizeof base + (flags ? strlen(flags) : 0) + 2;
    char *out = malloc(n);
    if (!out) return NULL;
    strcpy(out, base);
    if (!flags) return out;
    const char *p = flags;
    while (*p) {
        while (*p == ' ' || *p == '\t') p++;
        const char *start = p;
        while (*p && *p != ' ' && *p != '\t') p++;
        size_t len = (size_t)(p - start);
        if (len > 4 && strncmp(start, "-cl-", 4) == 0) {
            strcat(out, " ");
            strncat(out, start, len);
        }
    }
    return out;
}

static char *program_log(cl_program prog, cl_device_id dev) {
    size_t len = 0;
    if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &len) != CL_SUCCESS) return NULL;
    char *log = calloc(1, len + 1);
    if (log) clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, len, log, NULL);
    return log;
}

ze_result_t zp_pocl_module_build(zp_bdev *dev, const zp_module_src *src, zp_bmod **out, zp_module_meta *meta,
                                 char **log) {
    void *bc = NULL;
    size_t bc_size = 0;
    *out = NULL;
    *log = NULL;
    int rc = zp_spirv_to_bitcode(src, &bc, &bc_size, meta, log);
    if (rc == ZP_BRIDGE_INVALID_BINARY) return ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
    if (rc == ZP_BRIDGE_OUT_OF_MEMORY) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    if (rc != ZP_BRIDGE_OK) return ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;

    struct zp_bmod *m = calloc(1, sizeof *m);
    char *opts = build_options(src->flags);
    if (!m || !opts) {
        free(m);
        free(opts);
        free(bc);
        zp_spirv_meta_free(meta);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    cl_device_id d = ZP_CLD(dev);
    cl_int err, bin_status = CL_SUCCESS;
    const unsigned char *bins[1] = {bc};
    m->program = clCreateProgramWithBinary(zp_cl_ctx, 1, &d, &bc_size, bins, &bin_status, &err);
    free(bc);
    ze_result_t res = ZE_RESULT_SUCCESS;
    if (!m->program) {
        res = ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
    } else {
        err = clBuildProgram(m->program, 1, &d, opts, NULL, NULL);
        char *cl_log = program_log(m->program, d);
        if (cl_log && cl_log[0]) {
            free(*log);
            *log = cl_log;
        } else {
            free(cl_log);
        }
        if (err != CL_SUCCESS) res = ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
    }
    free(opts);
    if (res != ZE_RESULT_SUCCESS) {
        if (!*log) {
            char *msg = malloc(64);
            if (msg) snprintf(msg, 64, "PoCL could not build the module (OpenCL error %d)", (int)err);
            *log = msg;
        }
        if (m->program) clReleaseProgram(m->program);
        free(m);
        zp_spirv_meta_free(meta);
        return res;
    }
    *out = m;
    return ZE_RESULT_SUCCESS;
}

void zp_pocl_module_destroy(zp_bmod *mod) {
    if (!mod) return;
    clReleaseProgram(mod->program);
    free(mod);
}

void zp_pocl_module_meta_free(zp_module_meta *meta) { zp_spirv_meta_free(meta); }

ze_result_t zp_pocl_kernel_create(zp_bmod *mod, const char *name, zp_bkern **out, zp_kernel_limits *limits) {
    cl_int err;
    cl_kernel k = clCreateKernel(mod->program, name, &err);
    if (!k) return err == CL_INVALID_KERNEL_NAME ? ZE_RESULT_ERROR_INVALID_KERNEL_NAME : zp_cl_result(err);
    cl_device_id d;
    clGetProgramInfo(mod->program, CL_PROGRAM_DEVICES, sizeof d, &d, NULL);
    size_t wg = 0, mult = 0;
    clGetKernelWorkGroupInfo(k, d, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
    clGetKernelWorkGroupInfo(k, d, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, sizeof mult, &mult, NULL);
    limits->max_group_total = (uint32_t)wg;
    limits->preferred_multiple = mult ? (uint32_t)mult : 1;
    zp_bkern *bk = malloc(sizeof *bk);
    if (!bk) {
        clReleaseKernel(k);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    uint32_t h = 2166136261u;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++) h = (h ^ *c) * 16777619u;
    bk->kernel = k;
    bk->name_hash = h;
    *out = bk;
    return ZE_RESULT_SUCCESS;
}

void zp_pocl_kernel_destroy(zp_bkern *kern) {
    if (!kern) return;
    clReleaseKernel(ZP_CLK(kern));
    free(kern);
}

ze_result_t zp_pocl_kernel_set_arg(zp_bkern *kern, uint32_t index, uint32_t kind, size_t size, const void *value) {
    cl_int err;
    switch (kind) {
    case ZP_ARG_GLOBAL:
    case ZP_ARG_CONSTANT:
        err = clSetKernelArgSVMPointer(ZP_CLK(kern), index, value);
        break;
    case ZP_ARG_LOCAL:
        err = clSetKernelArg(ZP_CLK(kern), index, size, NULL);
        break;
    default:
        err = clSetKernelArg(ZP_CLK(kern), index, size, value);
        break;
    }
    return zp_cl_result(err);
}
