/*
 * module.c: a module's way in: read (sizes checked first), validate under the policy, reflect, check
 * capabilities and specialization constants, then build with the driver (its build log becomes the message
 * on failure).
 */
#include "krt_internal.h"
#include "../../driver/include/ze_krt_bounds.h"
#include "../../driver/include/ze_krt_build_log.h"
#include "../../driver/include/ze_krt_host.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A path naming OpenCL C source rather than SPIR-V: it ends in ".cl". */
static int opencl_path(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    return n > 3 && strcmp(path + n - 3, ".cl") == 0;
}

/* The front end's argument kinds and types as krt.h's public ones. spirv/ keeps its own (reflect.h), so that it
 * grows with what producers' SPIR-V holds without touching krt's public header; each value is mapped by name,
 * and a kind or type krt.h does not have becomes KRT_ARG_OTHER / KRT_TYPE_NONE, which krt_launch refuses. */
static krt_arg_kind arg_kind(krt_spv_arg_kind kind)
{
    switch (kind) {
    case KRT_SPV_ARG_GLOBAL_POINTER: return KRT_ARG_GLOBAL_POINTER;
    case KRT_SPV_ARG_CONSTANT_POINTER: return KRT_ARG_CONSTANT_POINTER;
    case KRT_SPV_ARG_LOCAL_POINTER: return KRT_ARG_LOCAL_POINTER;
    case KRT_SPV_ARG_SCALAR: return KRT_ARG_SCALAR;
    case KRT_SPV_ARG_STRUCT: return KRT_ARG_STRUCT;
    case KRT_SPV_ARG_OTHER: break;
    }
    return KRT_ARG_OTHER;
}

static krt_scalar_type scalar_type(krt_spv_scalar type)
{
    switch (type) {
    case KRT_SPV_TYPE_INT8: return KRT_TYPE_INT8;
    case KRT_SPV_TYPE_INT16: return KRT_TYPE_INT16;
    case KRT_SPV_TYPE_INT32: return KRT_TYPE_INT32;
    case KRT_SPV_TYPE_INT64: return KRT_TYPE_INT64;
    case KRT_SPV_TYPE_FLOAT16: return KRT_TYPE_FLOAT16;
    case KRT_SPV_TYPE_FLOAT32: return KRT_TYPE_FLOAT32;
    case KRT_SPV_TYPE_FLOAT64: return KRT_TYPE_FLOAT64;
    case KRT_SPV_TYPE_BOOL: return KRT_TYPE_BOOL;
    case KRT_SPV_TYPE_NONE: break;
    }
    return KRT_TYPE_NONE;
}

/* The module's reflection, and its arguments in krt.h's types (m->args, one entry per refl.all_args entry). The
 * names point into the reflection's strings, which live as long as the module. */
static krt_result reflect(krt_module *m, const uint32_t *words, size_t num_words)
{
    char why[1024];
    krt_spv_status st = krt_spv_reflect(words, num_words, &m->refl, why, sizeof why);
    if (st != KRT_SPV_OK)
        return krt__fail(st == KRT_SPV_OUT_OF_MEMORY ? KRT_ERROR_OUT_OF_HOST_MEMORY : KRT_ERROR_INVALID_MODULE, "%s",
                         why);
    size_t n = 0;
    for (uint32_t k = 0; k < m->refl.num_kernels; k++)
        n += m->refl.kernels[k].num_args;
    m->args = calloc(n ? n : 1, sizeof *m->args);
    if (!m->args)
        return krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for the module's reflection");
    for (size_t i = 0; i < n; i++) {
        const krt_spv_arg *a = &m->refl.all_args[i];
        m->args[i] = (krt_arg_info){
            .kind = arg_kind(a->kind),
            .type = scalar_type(a->type),
            .vector_width = a->vector_width,
            .size = a->size,
            .name = a->name,
            .type_name = a->type_name,
        };
    }
    return KRT_SUCCESS;
}

static krt_result check_capabilities(krt_context *ctx, const krt_spv_reflection *refl)
{
    uint32_t flags = ctx->dev->module.flags;
    if (refl->uses_fp64 && !(flags & ZE_DEVICE_MODULE_FLAG_FP64))
        return krt__fail(KRT_ERROR_UNSUPPORTED_FEATURE, "the module uses Float64, which %s does not support",
                         ctx->info.name);
    if (refl->uses_fp16 && !(flags & ZE_DEVICE_MODULE_FLAG_FP16))
        return krt__fail(KRT_ERROR_UNSUPPORTED_FEATURE, "the module uses Float16, which %s does not support",
                         ctx->info.name);
    if (refl->uses_int64_atomics && !(flags & ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS))
        return krt__fail(KRT_ERROR_UNSUPPORTED_FEATURE, "the module uses Int64Atomics, which %s does not support",
                         ctx->info.name);
    return KRT_SUCCESS;
}

/* The driver takes specialization constants as bare pointers and reads as many bytes as the module's type of
 * each has (ze_module_constants_t carries no sizes), so a smaller buffer would be over-read: each size must
 * equal the width the module declares. An id the module does not declare is passed on, and drivers ignore it
 * (a runtime may give one set of constants to every module). */
static krt_result check_spec_constants(const krt_module_desc *d, const krt_spv_reflection *refl)
{
    for (uint32_t i = 0; i < d->num_spec_constants; i++) {
        const krt_spec_constant *c = &d->spec_constants[i];
        for (uint32_t k = 0; k < refl->num_spec_constants; k++) {
            const krt_spv_spec *sr = &refl->spec_constants[k];
            if (sr->spec_id != c->id || sr->size == 0 || c->size == sr->size)
                continue;
            return krt__fail(KRT_ERROR_INVALID_ARGUMENT,
                             "krt_module_create: specialization constant %u (spec_constants[%u]) is %u bytes wide "
                             "in the module, but its size is %zu",
                             c->id, i, sr->size, c->size);
        }
    }
    return KRT_SUCCESS;
}

/* A module that does not start with SPIR-V's magic number (in either byte order) is not SPIR-V at all: say so, and
 * show what it starts with, before any talk of sizes or words (a text file given as a module is the usual case). */
static krt_result check_magic(const void *bytes, size_t size, const char *what)
{
    const unsigned char *b = bytes;
    if (size < 4)
        return KRT_SUCCESS; /* empty or truncated: said by the size checks */
    uint32_t magic;
    memcpy(&magic, b, 4);
    if (magic == 0x07230203u || magic == 0x03022307u)
        return KRT_SUCCESS;
    size_t n = size < 24 ? size : 24, text = 0;
    while (text < n && ((b[text] >= 0x20 && b[text] < 0x7f) || b[text] == '\n' || b[text] == '\r' || b[text] == '\t'))
        text++;
    if (text == n) {
        char head[25];
        for (size_t i = 0; i < n; i++)
            head[i] = b[i] == '\n' || b[i] == '\r' || b[i] == '\t' ? ' ' : (char)b[i];
        head[n] = '\0';
        return krt__fail(KRT_ERROR_INVALID_MODULE,
                         "%s is not a SPIR-V module: it starts with text (\"%s%s\"); compile OpenCL C with krt-cc, or "
                         "give it as krt_module_desc.source", what, head, size > n ? "..." : "");
    }
    return krt__fail(KRT_ERROR_INVALID_MODULE,
                     "%s is not a SPIR-V module: its first word is 0x%08x, not SPIR-V's magic number 0x07230203", what,
                     (unsigned)magic);
}

static krt_result build(krt_context *ctx, const krt_module_desc *d, const uint32_t *words, size_t size,
                        const char *host_library, ze_module_handle_t *out)
{
    enum { MAX_SPEC = 64 };
    uint32_t ids[MAX_SPEC];
    const void *values[MAX_SPEC];
    if (d->num_spec_constants > MAX_SPEC)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_module_create: %u specialization constants (at most %d)",
                         d->num_spec_constants, MAX_SPEC);
    for (uint32_t i = 0; i < d->num_spec_constants; i++) {
        if (!d->spec_constants[i].value)
            return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_module_create: specialization constant %u has no value",
                             d->spec_constants[i].id);
        ids[i] = d->spec_constants[i].id;
        values[i] = d->spec_constants[i].value;
    }
    ze_module_constants_t constants = { d->num_spec_constants, ids, values };
    ze_module_desc_t md = {
        .stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
        .format = ZE_MODULE_FORMAT_IL_SPIRV,
        .inputSize = size,
        .pInputModule = (const uint8_t *)words,
        .pBuildFlags = d->build_options,
        .pConstants = d->num_spec_constants ? &constants : NULL,
    };
    /* The host device's driver reads the native library's path from its pNext entry (ze_krt_host.h). */
    ze_krt_host_library_desc_t host_desc = { ZE_STRUCTURE_TYPE_KRT_HOST_LIBRARY_DESC, NULL, host_library };
    if (host_library)
        md.pNext = &host_desc;
    /* A checked context's modules are built checked against its bounds table (checks.c, ze_krt_bounds.h). */
    ze_krt_bounds_check_desc_t bounds = { ZE_STRUCTURE_TYPE_KRT_BOUNDS_CHECK_DESC, md.pNext, krt__checks_table(ctx) };
    if (bounds.table)
        md.pNext = &bounds;
    /* krt's drivers copy the build log into text as they build (ZE_krt_build_log, a struct on the pNext chain). */
    char text[1536] = "";
    ze_krt_build_log_desc_t log_out = { ZE_STRUCTURE_TYPE_KRT_BUILD_LOG_DESC, md.pNext, text, sizeof text, NULL };
    int log_ext = ctx->drv && ctx->drv->has_build_log_ext;
    if (log_ext)
        md.pNext = &log_out;
    /* With the extension no handle is asked for: the text is all krt reads, and the handle of a failed build
     * never comes back through the loader when several drivers are loaded (below), so it could not be freed. */
    ze_module_build_log_handle_t log = NULL;
    ze_result_t zr = KRT__ZE(ctx->ddi, Module, Create)(ctx->ze, ctx->device, &md, out, log_ext ? NULL : &log);
    krt_result r = KRT_SUCCESS;
    /* With more than one driver the loader wraps every handle a driver returns, but on a failed
     * zeModuleCreate it hands back the driver's own build log handle unwrapped, and any call with it jumps
     * through garbage (seen with libze1 1.8 and ze_cuda beside ze_pocl). So the log of a failed build comes from
     * ZE_krt_build_log where the driver has it, and otherwise through the handle only when one driver is loaded
     * (the loader then passes handles through as they are). */
    uint32_t num_drivers = 0;
    if (zr != ZE_RESULT_SUCCESS && log && !ctx->host &&
        (zeDriverGet(&num_drivers, NULL) != ZE_RESULT_SUCCESS || num_drivers != 1))
        log = NULL;
    if (zr != ZE_RESULT_SUCCESS) {
        r = krt__from_ze(zr);
        if (r == KRT_ERROR_INVALID_MODULE || r == KRT_ERROR_DRIVER)
            r = KRT_ERROR_MODULE_BUILD_FAILURE;
        size_t n = 0;
        if (!text[0] && log && KRT__ZE(ctx->ddi, ModuleBuildLog, GetString)(log, &n, NULL) == ZE_RESULT_SUCCESS &&
            n > 0) {
            char *full = malloc(n);
            if (full && KRT__ZE(ctx->ddi, ModuleBuildLog, GetString)(log, &n, full) == ZE_RESULT_SUCCESS)
                snprintf(text, sizeof text, "%s", full);
            free(full);
        }
        krt__fail(r, "the driver failed to build the module (%s): %s", krt__ze_name(zr),
                  text[0] ? text
                  : num_drivers > 1 ? "no build log (the Level Zero loader loses the build log of a failed build "
                                      "when several drivers are loaded, and this driver has no ZE_krt_build_log)"
                                    : "no build log");
    }
    if (log)
        KRT__ZE(ctx->ddi, ModuleBuildLog, Destroy)(log);
    return r;
}

/* The host device's native library of a module: krt_module_desc.host_library, else <dir>/host/<stem>.so beside
 * a .spv path (where make puts build/kernels/host/NAME.so for build/kernels/NAME.spv), or in a checked context
 * <dir>/host/<stem>.checked.so (krt-cc --host --checks). */
static krt_result host_library_path(const krt_module_desc *d, int checked, char *out, size_t size)
{
    const char *suffix = checked ? ".checked" : "", *opt = checked ? " --checks" : "";
    const char *given = d->host_library;
    const char *base = NULL; /* the .spv's file name and the length of its stem, for the default and the message */
    int stem = 0;
    if (!given) {
        if (!d->path || opencl_path(d->path))
            return krt__fail(KRT_ERROR_UNSUPPORTED_FEATURE,
                             "krt_module_create: the host device runs a kernel from its native library, and a module "
                             "given as code has none: build it from the kernel's OpenCL C with `krt-cc --host -o "
                             "NAME.so NAME.cl` and name it in krt_module_desc.host_library (or give the module as "
                             "its .cl path or source, which krt compiles for the host device itself)");
        const char *slash = strrchr(d->path, '/');
        base = slash ? slash + 1 : d->path;
        const char *dot = strrchr(base, '.');
        stem = dot && dot != base ? (int)(dot - base) : (int)strlen(base);
        int dir = slash ? (int)(slash - d->path) : 1;
        int n = snprintf(out, size, "%.*s/host/%.*s%s.so", dir, slash ? d->path : ".", stem, base, suffix);
        if (n < 0 || (size_t)n >= size)
            return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_module_create: the path %s is too long", d->path);
    } else {
        int n = snprintf(out, size, "%s", given);
        if (n < 0 || (size_t)n >= size)
            return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_module_create: host_library is too long");
    }
    if (access(out, R_OK) != 0) {
        int e = errno;
        if (given)
            return krt__fail(KRT_ERROR_IO, "krt_module_create: the host device needs the native library %s, which "
                             "cannot be read (%s): build it from the kernel's OpenCL C with `krt-cc --host%s -o %s "
                             "NAME.cl`", out, strerror(e), opt, out);
        if (checked)
            return krt__fail(KRT_ERROR_IO,
                             "krt_module_create: a checked context on the host device needs the checked native "
                             "library %s of %s, which cannot be read (%s): build it from the kernel's OpenCL C with "
                             "`krt-cc --host --checks -o %s %.*s.cl`, or name another in "
                             "krt_module_desc.host_library (docs/api.md, \"Checked launches\")",
                             out, d->path, strerror(e), out, stem, base);
        return krt__fail(KRT_ERROR_IO,
                         "krt_module_create: the host device needs the native library %s of %s, which cannot be read "
                         "(%s): build it from the kernel's OpenCL C with `krt-cc --host -o %s %.*s.cl`, or name "
                         "another in krt_module_desc.host_library; make builds build/kernels/host/NAME.so for its own "
                         "kernels",
                         out, d->path, strerror(e), out, stem, base);
    }
    return KRT_SUCCESS;
}

static krt_result module_create(krt_context *ctx, const krt_module_desc *d, int builtin, krt_module **out)
{
    uint32_t *words = NULL;
    size_t size = 0;
    krt_result r;
    const char *what = d->path ? d->path : d->source ? "the module compiled from source" : "the module";
    krt_module *m = NULL;
    if (d->source || opencl_path(d->path)) {
        if ((r = krt__compile_opencl(d->source, d->source ? NULL : d->path, d->compile_options, &words, &size)) !=
            KRT_SUCCESS)
            return r;
    } else if (d->path) {
        if ((r = krt__read_module_file(d->path, &words, &size)) != KRT_SUCCESS)
            return r;
        if ((r = check_magic(words, size, what)) != KRT_SUCCESS)
            goto fail;
    } else {
        /* A size no object can have is the caller's mistake, found before anything is sized by it. */
        if (d->size > (size_t)PTRDIFF_MAX)
            return krt__fail(KRT_ERROR_INVALID_ARGUMENT,
                             "krt_module_create: size %zu is larger than any object can be (PTRDIFF_MAX)", d->size);
        if (d->size == 0)
            return krt__fail(KRT_ERROR_INVALID_MODULE, "%s is empty", what);
        if ((r = check_magic(d->code, d->size, what)) != KRT_SUCCESS)
            return r;
        if (d->size % 4 != 0 || d->size < 20)
            return krt__fail(KRT_ERROR_INVALID_MODULE,
                             "%s is truncated: %zu bytes is not a whole SPIR-V header and words", what, d->size);
        /* Copied so that the words are aligned and the caller's buffer may go away. */
        words = malloc(d->size);
        if (!words)
            return krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for a %zu-byte module", d->size);
        memcpy(words, d->code, d->size);
        size = d->size;
    }
    if (size == 0) {
        r = krt__fail(KRT_ERROR_INVALID_MODULE, "%s is empty", what);
        goto fail;
    }
    if (size % 4 != 0 || size < 20) {
        r = krt__fail(KRT_ERROR_INVALID_MODULE, "%s is truncated: %zu bytes is not a whole SPIR-V header and words",
                      what, size);
        goto fail;
    }
    m = calloc(1, sizeof *m);
    if (!m) {
        r = krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for a module");
        goto fail;
    }
    m->ctx = ctx;
    m->builtin = builtin;
    m->spirv_hash = krt__module_hash(words, size, d->build_options, d->spec_constants, d->num_spec_constants);
    pthread_mutex_init(&m->lock, NULL);
    /* Validation first, so that reflection sees only modules that passed it (under the default policies) and
     * the message is the validator's diagnostic. Reflection is bounded on its own as well, for
     * KRT_VALIDATION_NONE: it checks the id bound first and lays out each type once. */
    if ((r = krt__validate_warn(&ctx->log, words, size / 4, d->validation, &m->warnings)) != KRT_SUCCESS)
        goto fail;
    if ((r = reflect(m, words, size / 4)) != KRT_SUCCESS)
        goto fail;
    if (m->refl.num_kernels == 0) {
        r = krt__fail(KRT_ERROR_INVALID_MODULE, "%s has no kernel entry point", what);
        goto fail;
    }
    if ((r = check_capabilities(ctx, &m->refl)) != KRT_SUCCESS)
        goto fail;
    /* Said at load, where the author reads the module's warnings, rather than first at a launch that fails. */
    for (uint32_t k = 0; k < m->refl.num_kernels; k++) {
        const krt_spv_kernel *kr = &m->refl.kernels[k];
        if (krt__group_dependent(kr))
            krt__warn(&ctx->log, &m->warnings,
                      "kernel %s: its result may depend on its group size (kernel-scope __local memory %s, shared "
                      "across barriers), so krt will not choose its group: launch it with a group, give it "
                      "reqd_work_group_size, or, if any group is right, mark it KRT_ANY_GROUP(%s) or call "
                      "krt_kernel_set_any_group",
                      kr->name, kr->local_vars[0] ? kr->local_vars : "(unnamed)", kr->name);
    }
    if ((r = check_spec_constants(d, &m->refl)) != KRT_SUCCESS)
        goto fail;
    m->kernels = calloc(m->refl.num_kernels, sizeof *m->kernels);
    if (!m->kernels) {
        r = krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for a module");
        goto fail;
    }
    char host_lib[4096], host_dir[4096] = "";
    if (ctx->host) {
        if (d->num_spec_constants > 0) {
            r = krt__fail(KRT_ERROR_UNSUPPORTED_FEATURE, "krt_module_create: %s: the host device runs a native library "
                          "compiled beforehand and cannot take specialization constants", what);
            goto fail;
        }
        /* OpenCL C without a named library: compiled once more, as C, by krt-cc --host (a temporary library,
         * removed once the driver has loaded it). */
        if (!d->host_library && (d->source || opencl_path(d->path)))
            r = krt__compile_opencl_host(d->source, d->source ? NULL : d->path, d->compile_options,
                                         ctx->checks != NULL, host_dir, sizeof host_dir, host_lib, sizeof host_lib);
        else
            r = host_library_path(d, ctx->checks != NULL, host_lib, sizeof host_lib);
        if (r != KRT_SUCCESS)
            goto fail;
    }
    r = build(ctx, d, words, size, ctx->host ? host_lib : NULL, &m->ze);
    if (host_dir[0])
        krt__compile_remove(host_dir);
    if (r != KRT_SUCCESS)
        goto fail;
    free(words);
    if (!builtin)
        pthread_mutex_lock(&ctx->lock);
    m->next = ctx->modules;
    ctx->modules = m;
    if (!builtin)
        pthread_mutex_unlock(&ctx->lock);
    *out = m;
    return KRT_SUCCESS;
fail:
    free(words);
    if (m) {
        free(m->kernels);
        free(m->args);
        krt_spv_reflection_free(&m->refl);
        krt__warnings_free(&m->warnings);
        pthread_mutex_destroy(&m->lock);
        free(m);
    }
    return r;
}

krt_result krt_module_create(krt_context *ctx, const krt_module_desc *desc, krt_module **out)
{
    if (!ctx || !desc || !out)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_module_create: %s is NULL",
                         !ctx ? "ctx" : !desc ? "desc" : "out");
    int has_code = desc->code != NULL, has_path = desc->path != NULL, has_source = desc->source != NULL;
    if (has_code + has_path + has_source != 1)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT,
                         "krt_module_create: give exactly one of code, path and source (%s)",
                         has_code + has_path + has_source ? "more than one given" : "none given");
    if ((unsigned)desc->validation > KRT_VALIDATION_NONE)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_module_create: unknown validation policy %d",
                         (int)desc->validation);
    if (desc->num_spec_constants && !desc->spec_constants)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_module_create: spec_constants is NULL");
    if (krt__is_lost(ctx))
        return krt__lost_again(ctx);
    krt_result r = module_create(ctx, desc, 0, out);
    /* The driver's refusal on a lost device is the context's loss (fault.c; the built-in module's caller, under
     * ctx->lock, tells it itself). */
    if (r == KRT_ERROR_DEVICE_LOST)
        r = krt__lost(ctx, NULL, "zeModuleCreate");
    return r;
}

/* The caller holds ctx->lock. */
krt_result krt__module_create_builtin(krt_context *ctx, krt_module **out)
{
    krt_module_desc d = {
        .code = krt__builtin_spv,
        .size = (size_t)(krt__builtin_spv_end - krt__builtin_spv),
    };
    return module_create(ctx, &d, 1, out);
}

/* The caller holds ctx->lock. */
void krt__module_destroy_locked(krt_module *m)
{
    krt_context *ctx = m->ctx;
    for (krt_module **p = &ctx->modules; *p; p = &(*p)->next)
        if (*p == m) {
            *p = m->next;
            break;
        }
    if (ctx->builtin == m)
        ctx->builtin = NULL;
    /* A fault's message must not name a kernel that is gone (fault.c). */
    krt__inflight_forget_module(ctx, m);
    for (uint32_t i = 0; i < m->refl.num_kernels; i++)
        krt__kernel_destroy(m->kernels[i]);
    if (m->ze)
        KRT__ZE(m->ctx->ddi, Module, Destroy)(m->ze);
    free(m->kernels);
    free(m->args);
    krt_spv_reflection_free(&m->refl);
    krt__warnings_free(&m->warnings);
    pthread_mutex_destroy(&m->lock);
    free(m);
}

void krt_module_destroy(krt_module *module)
{
    if (!module)
        return;
    krt_context *ctx = module->ctx;
    pthread_mutex_lock(&ctx->lock);
    krt__module_destroy_locked(module);
    pthread_mutex_unlock(&ctx->lock);
}

krt_result krt_module_kernel_names(krt_module *module, const char **names, uint32_t *count)
{
    if (!module || !count)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_module_kernel_names: %s is NULL",
                         module ? "count" : "module");
    uint32_t n = module->refl.num_kernels;
    if (!names) {
        *count = n;
        return KRT_SUCCESS;
    }
    if (*count < n)
        n = *count;
    for (uint32_t i = 0; i < n; i++)
        names[i] = module->refl.kernel_names[i];
    *count = n;
    return KRT_SUCCESS;
}

krt_result krt_module_kernel_info(krt_module *module, const char *kernel_name, krt_kernel_info *out)
{
    if (!module || !kernel_name || !out)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_module_kernel_info: %s is NULL",
                         !module ? "module" : !kernel_name ? "kernel_name" : "out");
    const krt_spv_kernel *kr = krt_spv_reflection_find(&module->refl, kernel_name, NULL);
    if (!kr)
        return krt__kernel_not_found(module, kernel_name);
    krt__kernel_info_fill(kr, out);
    return KRT_SUCCESS;
}

krt_result krt_module_arg_info(krt_module *module, const char *kernel_name, uint32_t index, krt_arg_info *out)
{
    if (!module || !kernel_name || !out)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_module_arg_info: %s is NULL",
                         !module ? "module" : !kernel_name ? "kernel_name" : "out");
    const krt_spv_kernel *kr = krt_spv_reflection_find(&module->refl, kernel_name, NULL);
    if (!kr)
        return krt__kernel_not_found(module, kernel_name);
    if (index >= kr->num_args)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "argument index %u out of range: %s has %u arguments", index,
                         kernel_name, kr->num_args);
    *out = krt__module_args(module, kr)[index];
    return KRT_SUCCESS;
}

krt_result krt_module_info_get(krt_module *module, krt_module_info *out)
{
    if (!module || !out)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_module_info_get: %s is NULL", module ? "out" : "module");
    out->num_kernels = module->refl.num_kernels;
    out->num_warnings = module->warnings.count;
    out->warnings = module->warnings.count ? (const char *const *)module->warnings.lines : NULL;
    return KRT_SUCCESS;
}
