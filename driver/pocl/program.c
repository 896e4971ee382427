/* PoCL backend: module builds (SPIR-V -> SPIR 1.2 bitcode or processed SPIR-V -> clBuildProgram) and kernels. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pocl_be.h"
#include "../../common/fnv.h"
#include "pocl_rewrites.h"

/* PoCL reads SPIR 1.2 bitcode with "-x spir -spir-std=1.2"; SPIR-V needs no option. Of the caller's flags
 * only the -cl-* ones mean something to an OpenCL compiler; Level Zero's own (-ze-*) have no PoCL
 * counterpart and are dropped. */
static char *build_options(const char *flags, uint32_t route) {
    const char *base = route == ZP_ROUTE_SPIR ? "-x spir -spir-std=1.2" : "";
    size_t n = strlen(base) + (flags ? strlen(flags) : 0) + 2;
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
            if (out[0]) strcat(out, " ");
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

/* Local memory as PoCL allocates it: each kernel gets every __local variable of its program, its own or not
 * (PoCL 3.1 gives histogram_global histogram_local's bins), and PoCL aborts the process at the launch of a kernel
 * whose local memory exceeds the device's. Such a module is refused here, from what PoCL reports for each kernel. */
static ze_result_t check_local_memory(cl_program prog, cl_device_id d, const zp_module_meta *meta, char **log) {
    uint64_t dev_local = zp_pocl_local_mem(d);
    for (uint32_t i = 0; i < meta->count; i++) {
        cl_int err;
        cl_kernel k = clCreateKernel(prog, zp_kernel_backend_name(&meta->kernels[i]), &err);
        if (!k) continue; /* zeKernelCreate reports it */
        cl_ulong need = 0;
        clGetKernelWorkGroupInfo(k, d, CL_KERNEL_LOCAL_MEM_SIZE, sizeof need, &need, NULL);
        clReleaseKernel(k);
        if (need <= dev_local) continue;
        free(*log);
        size_t n = strlen(meta->kernels[i].name) + 256;
        *log = malloc(n);
        if (*log)
            snprintf(*log, n,
                     "kernel %s needs %llu bytes of local memory (%llu of its own; PoCL gives each kernel every "
                     "__local variable of its module), more than the device's %llu",
                     meta->kernels[i].name, (unsigned long long)need, (unsigned long long)meta->kernels[i].local_static,
                     (unsigned long long)dev_local);
        return ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
    }
    return ZE_RESULT_SUCCESS;
}

/* The test knob KRT_ZE_POCL_BOUNDS_AT_EXIT=1: checked modules record a work-item's refusals at its kernel's exit,
 * as ze_cuda's do (ZP_SPIRV_BOUNDS_AT_EXIT), so that the CPU's test runs check that way too; slower here (docs/
 * driver.md, "Checked launches"). Read at each build. */
static unsigned bounds_at_exit(void) {
    const char *v = getenv("KRT_ZE_POCL_BOUNDS_AT_EXIT");
    return v && v[0] == '1' && v[1] == 0 ? ZP_SPIRV_BOUNDS_AT_EXIT : 0;
}

ze_result_t zp_pocl_program_build(cl_device_id d, const zp_module_src *src, uint32_t route, unsigned rewrites,
                                  cl_program *out, zp_module_meta *meta, char **log) {
    void *bin = NULL;
    size_t bin_size = 0;
    *out = NULL;
    *log = NULL;
    /* PoCL makes a kernel's name a directory and a file name in its kernel cache and a symbol of the work-group
     * function, and aborts the process when the link or the file fails: a kernel whose name could not be one gets
     * a short internal name (ZP_SPIRV_SHORT_NAMES, spirv/names.cpp). A library without a generic address space
     * (PoCL 3.1's) has no generic-pointer overloads of frexp, vstoreN, ...: ZP_SPIRV_GENERIC_BUILTINS. */
    unsigned flags = rewrites | ZP_POCL_REGIONS | ZP_SPIRV_EXACT_RANGE | ZP_SPIRV_GLOBALS_KERNEL |
                     ZP_SPIRV_SHORT_NAMES | (zp_caps.generic_as ? 0 : ZP_SPIRV_GENERIC_BUILTINS) |
                     (route == ZP_ROUTE_IL ? ZP_SPIRV_EMIT_SPIRV : 0) | bounds_at_exit();
    int rc = zp_pocl_translate(src, flags, &bin, &bin_size, meta, log);
    if (rc == ZP_SPIRV_INVALID_BINARY) return ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
    if (rc == ZP_SPIRV_OUT_OF_MEMORY) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    if (rc != ZP_SPIRV_OK) return ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;

    char *opts = build_options(src->flags, route);
    if (!opts) {
        free(bin);
        zp_spirv_meta_free(meta);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    cl_int err, bin_status = CL_SUCCESS;
    cl_program prog;
    if (route == ZP_ROUTE_IL) {
        prog = clCreateProgramWithIL(zp_cl_ctx, bin, bin_size, &err);
    } else {
        const unsigned char *bins[1] = {bin};
        prog = clCreateProgramWithBinary(zp_cl_ctx, 1, &d, &bin_size, bins, &bin_status, &err);
    }
    free(bin);
    ze_result_t res = ZE_RESULT_SUCCESS;
    if (!prog) {
        res = ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
    } else {
        err = clBuildProgram(prog, 1, &d, opts, NULL, NULL);
        char *cl_log = program_log(prog, d);
        if (cl_log && cl_log[0]) {
            free(*log);
            *log = cl_log;
        } else {
            free(cl_log);
        }
        if (err != CL_SUCCESS) res = ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
    }
    free(opts);
    if (res == ZE_RESULT_SUCCESS) res = check_local_memory(prog, d, meta, log);
    if (res != ZE_RESULT_SUCCESS) {
        if (!*log) {
            char *msg = malloc(96);
            if (msg) snprintf(msg, 96, "PoCL could not build the module (OpenCL error %d)", (int)err);
            *log = msg;
        }
        if (prog) clReleaseProgram(prog);
        zp_spirv_meta_free(meta);
        return res;
    }
    *out = prog;
    return ZE_RESULT_SUCCESS;
}

/* Program-scope variables. PoCL 3.1 compiles each kernel into code of its own, with its own copy of every
 * program-scope variable: a value one kernel writes, another never sees, and OpenCL gives the host no address of
 * any. So the front end moves the variables into one storage that every kernel takes as a hidden last argument
 * (spirv/globals.cpp), and adds a kernel, run here once, that writes their initial values into it. The storage is
 * the module's, host memory the driver allocates: zeModuleGetGlobalPointer gives addresses inside it. A `constant`
 * variable keeps its copies, one per kernel (its value never changes); the host gets a copy of its value that the
 * driver makes from the module (zp_global_meta.init). */
static void free_globals(struct zp_bmod *m) {
    if (m->storage) clSVMFree(zp_cl_ctx, m->storage);
    for (uint32_t i = 0; m->copies && i < m->num_globals; i++)
        if (m->copies[i]) clSVMFree(zp_cl_ctx, m->copies[i]);
    free(m->copies);
    free(m->offsets);
    m->storage = NULL;
    m->offsets = NULL;
    m->copies = NULL;
}

static ze_result_t place_globals(cl_device_id d, struct zp_bmod *m, const zp_module_meta *meta) {
    m->num_globals = meta->num_globals;
    m->offsets = calloc(meta->num_globals ? meta->num_globals : 1, sizeof *m->offsets);
    m->copies = calloc(meta->num_globals ? meta->num_globals : 1, sizeof *m->copies);
    if (!m->offsets || !m->copies) {
        free_globals(m);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    for (uint32_t i = 0; i < meta->num_globals; i++) {
        const zp_global_meta *g = &meta->globals[i];
        m->offsets[i] = g->offset;
        if (!g->init) continue;
        m->copies[i] = clSVMAlloc(zp_cl_ctx, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, g->size ? g->size : 1, 0);
        if (!m->copies[i]) {
            free_globals(m);
            return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
        memcpy(m->copies[i], g->init, (size_t)g->size);
    }
    if (meta->globals_size == 0) return ZE_RESULT_SUCCESS;
    m->storage = clSVMAlloc(zp_cl_ctx, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, (size_t)meta->globals_size, 0);
    cl_int err = CL_SUCCESS;
    cl_kernel k = m->offsets && m->storage ? clCreateKernel(m->program, ZP_GLOBALS_KERNEL, &err) : NULL;
    cl_command_queue q = k ? clCreateCommandQueueWithProperties(zp_cl_ctx, d, NULL, &err) : NULL;
    size_t one = 1;
    if (q) err = clSetKernelArgSVMPointer(k, 0, m->storage);
    if (q && err == CL_SUCCESS) err = clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, NULL);
    if (q && err == CL_SUCCESS) err = clFinish(q);
    ze_result_t r = !m->offsets || !m->storage ? ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY : zp_cl_result(err);
    if (q) clReleaseCommandQueue(q);
    if (k) clReleaseKernel(k);
    if (r != ZE_RESULT_SUCCESS) free_globals(m);
    return r;
}

ze_result_t zp_pocl_global_pointer(zp_bmod *mod, uint32_t index, const char *name, void **ptr) {
    (void)name;
    if (mod->copies && mod->copies[index]) {
        *ptr = mod->copies[index];
        return ZE_RESULT_SUCCESS;
    }
    /* A variable used outside any function (in another variable's initializer), or a constant whose value has no
     * fixed bytes (an address), stays where PoCL put it, which the host cannot learn. */
    if (!mod->offsets || mod->offsets[index] == UINT64_MAX || !mod->storage) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    *ptr = (char *)mod->storage + mod->offsets[index];
    return ZE_RESULT_SUCCESS;
}

ze_result_t zp_pocl_module_build(zp_bdev *dev, const zp_module_src *src, zp_bmod **out, zp_module_meta *meta,
                                 char **log) {
    *out = NULL;
    *log = NULL;
    /* A PoCL that failed the start-up self-check would compute wrong results or abort: no module is built,
     * and the log says which PoCL and what failed. */
    if (zp_caps.check != ZE_RESULT_SUCCESS) {
        size_t n = strlen(zp_caps.check_log) + 1;
        *log = malloc(n);
        if (*log) memcpy(*log, zp_caps.check_log, n);
        meta->count = 0;
        meta->kernels = NULL;
        return zp_caps.check;
    }
    struct zp_bmod *m = calloc(1, sizeof *m);
    if (!m) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    ze_result_t res = zp_pocl_program_build(ZP_CLD(dev), src, zp_caps.route, zp_caps.rewrites, &m->program, meta, log);
    if (res != ZE_RESULT_SUCCESS) {
        free(m);
        return res;
    }
    if (meta->num_globals || meta->globals_size) {
        res = place_globals(ZP_CLD(dev), m, meta);
        if (res != ZE_RESULT_SUCCESS) {
            clReleaseProgram(m->program);
            free(m);
            zp_spirv_meta_free(meta);
            return res;
        }
    }
    *out = m;
    return ZE_RESULT_SUCCESS;
}

void zp_pocl_module_destroy(zp_bmod *mod) {
    if (!mod) return;
    clReleaseProgram(mod->program);
    free_globals(mod);
    free(mod);
}

void zp_pocl_module_meta_free(zp_module_meta *meta) { zp_spirv_meta_free(meta); }

/* The stack of a thread made without attributes: glibc's default, the RLIMIT_STACK of the process's start (8 MiB on
 * Debian) unless the program changed it; PoCL 5 sets its workers' to 8 MiB. */
static uint64_t worker_stack(void) {
    pthread_attr_t a;
    size_t size = 0;
    if (pthread_getattr_default_np(&a) == 0) {
        pthread_attr_getstacksize(&a, &size);
        pthread_attr_destroy(&a);
    }
    if (!size) size = 2u << 20; /* unreadable: a small stack's worth */
    if (zp_caps.major >= 5 && size > (8u << 20)) size = 8u << 20;
    return size;
}

ze_result_t zp_pocl_kernel_create(zp_bmod *mod, const char *name, zp_bkern **out, zp_kernel_limits *limits) {
    cl_int err;
    cl_kernel k = clCreateKernel(mod->program, name, &err);
    if (!k) return err == CL_INVALID_KERNEL_NAME ? ZE_RESULT_ERROR_INVALID_KERNEL_NAME : zp_cl_result(err);
    cl_device_id d;
    clGetProgramInfo(mod->program, CL_PROGRAM_DEVICES, sizeof d, &d, NULL);
    size_t wg = 0, mult = 0;
    clGetKernelWorkGroupInfo(k, d, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
    clGetKernelWorkGroupInfo(k, d, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, sizeof mult, &mult, NULL);
    cl_ulong local_alloc = 0;
    clGetKernelWorkGroupInfo(k, d, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local_alloc, &local_alloc, NULL);
    limits->local_alloc = local_alloc;
    limits->max_group_total = (uint32_t)wg;
    limits->preferred_multiple = mult ? (uint32_t)mult : 1;
    /* Private memory (ZE_krt_private_memory, issue 39). PoCL runs a kernel's work-group function on one of its pthread
     * device's worker threads, which it creates without attributes (PoCL 3.1's pthread_scheduler.c; PoCL 5 asks for
     * 8 MiB), and keeps the work-items' private variables in that function's frame: one copy of each, reused item
     * after item, except the variables that live across a barrier, which it keeps in arrays of one element per
     * work-item of the group (its work-item loops). A launch that needs more than the stack holds crashed the process
     * (a private array of 0xFFFFFFFF00000010 ulongs); it is refused now. A quarter of the stack is left for the frames
     * around the work-group function, as PoCL 5 leaves itself (HOST_CPU_ENABLE_STACK_SIZE_CHECK). For a barrier
     * kernel the group shares the limit (the object model applies it to such kernels only). */
    limits->private_max = worker_stack() / 4 * 3;
    limits->private_per_group = true;
    zp_bkern *bk = malloc(sizeof *bk);
    if (!bk) {
        clReleaseKernel(k);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    uint64_t h = krt_fnv1a64(KRT_FNV1A64_INIT, name, strlen(name));
    char *variant = malloc(strlen(name) + sizeof ZP_EXACT_SUFFIX);
    if (variant) strcat(strcpy(variant, name), ZP_EXACT_SUFFIX);
    cl_kernel x = variant ? clCreateKernel(mod->program, variant, &err) : NULL;
    free(variant);
    if (!x) {
        clReleaseKernel(k);
        free(bk);
        return variant ? zp_cl_result(err) : ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    cl_uint nargs = 0;
    clGetKernelInfo(x, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL);
    /* The storage of program-scope variables: the last argument of the kernel, the one before the descriptor of
     * its variant. */
    if (mod->storage) {
        cl_uint kargs = 0;
        clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof kargs, &kargs, NULL);
        err = kargs && nargs >= 2 ? clSetKernelArgSVMPointer(k, kargs - 1, mod->storage) : CL_INVALID_KERNEL_ARGS;
        if (err == CL_SUCCESS) err = clSetKernelArgSVMPointer(x, nargs - 2, mod->storage);
        if (err != CL_SUCCESS) {
            clReleaseKernel(k);
            clReleaseKernel(x);
            free(bk);
            return zp_cl_result(err);
        }
    }
    bk->kernel = k;
    bk->name_hash = h;
    bk->exact_kernel = x;
    bk->exact_index = nargs ? nargs - 1 : 0;
    bk->exact_set = false;
    *out = bk;
    return ZE_RESULT_SUCCESS;
}

void zp_pocl_kernel_destroy(zp_bkern *kern) {
    if (!kern) return;
    clReleaseKernel(ZP_CLK(kern));
    clReleaseKernel(kern->exact_kernel);
    free(kern);
}

static cl_int set_arg(cl_kernel k, uint32_t index, uint32_t kind, size_t size, const void *value) {
    switch (kind) {
    case ZP_ARG_GLOBAL:
    case ZP_ARG_CONSTANT: return clSetKernelArgSVMPointer(k, index, value);
    case ZP_ARG_LOCAL: return clSetKernelArg(k, index, size, NULL);
    default: return clSetKernelArg(k, index, size, value);
    }
}

/* The kernel and its exact-range variant take the same arguments: both get each value. */
ze_result_t zp_pocl_kernel_set_arg(zp_bkern *kern, uint32_t index, uint32_t kind, size_t size, const void *value) {
    cl_int err = set_arg(ZP_CLK(kern), index, kind, size, value);
    if (err == CL_SUCCESS) err = set_arg(kern->exact_kernel, index, kind, size, value);
    return zp_cl_result(err);
}
