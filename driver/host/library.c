/* The host device's modules and kernels (host_be.h): a module is the reflection of its SPIR-V plus its native
 * library (dlopen); a kernel is the library's group runner of that name (ABI 4, called directly), or for an
 * older library its function and runner with libffi call interfaces prepared once, and its current argument
 * values. */
#include <dlfcn.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>

#include "host_be.h"
#include "../../common/fnv.h"

/* The stack of a thread made without attributes (the pool's and the queues': pool.c, queue.c): glibc's default, the
 * RLIMIT_STACK of the process's start (8 MiB on Debian) unless the program changed it. */
static uint64_t host_thread_stack(void) {
    pthread_attr_t a;
    size_t size = 0;
    if (pthread_getattr_default_np(&a) == 0) {
        pthread_attr_getstacksize(&a, &size);
        pthread_attr_destroy(&a);
    }
    return size ? size : 2u << 20; /* unreadable: a small stack's worth */
}

static char *strdupf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *strdupf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0) s = NULL;
    va_end(ap);
    return s;
}

/* The loaded segments of a library, [data_lo, data_hi), and the size of its thread-local block: memory of the
 * library's own (program-scope variables, __constant tables, kernel-scope __local arrays) that a checked kernel
 * may always reach. */
struct span_query {
    uintptr_t base;
    uintptr_t lo, hi;
    size_t tls;
    bool found;
};

static int span_of(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct span_query *q = data;
    if (info->dlpi_addr != q->base) return 0;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_TLS) q->tls = ph->p_memsz;
        if (ph->p_type != PT_LOAD) continue;
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;
        if (a < lo) lo = a;
        if (a + ph->p_memsz > hi) hi = a + ph->p_memsz;
    }
    q->lo = lo;
    q->hi = hi;
    q->found = lo < hi;
    return 1;
}

static bool library_span(zp_bmod *m) {
    struct link_map *lm = NULL;
    if (dlinfo(m->lib, RTLD_DI_LINKMAP, &lm) != 0 || !lm) return false;
    struct span_query q = {.base = lm->l_addr};
    dl_iterate_phdr(span_of, &q);
    if (!q.found) return false;
    m->data_lo = q.lo;
    m->data_hi = q.hi;
    m->tls_size = q.tls;
    return true;
}

void host_module_meta_free(zp_module_meta *meta) {
    if (!meta) return;
    for (uint32_t i = 0; i < meta->count; i++) {
        free(meta->kernels[i].name);
        free(meta->kernels[i].args);
        free(meta->kernels[i].attrs);
    }
    free(meta->kernels);
    meta->kernels = NULL;
    meta->count = 0;
}

static uint32_t arg_kind(const krt_spv_arg *a) {
    switch (a->kind) {
    case KRT_SPV_ARG_GLOBAL_POINTER: return ZP_ARG_GLOBAL;
    case KRT_SPV_ARG_CONSTANT_POINTER: return ZP_ARG_CONSTANT;
    case KRT_SPV_ARG_LOCAL_POINTER: return ZP_ARG_LOCAL;
    case KRT_SPV_ARG_SCALAR: return ZP_ARG_SCALAR;
    case KRT_SPV_ARG_STRUCT: return ZP_ARG_BYVAL;
    default: return ZP_ARG_UNSUPPORTED;
    }
}

/* Build flags: the native library was compiled beforehand, so they change nothing, but an OpenCL option
 * (-cl-*) the OpenCL C specification does not define is refused as a device compiler refuses it. Returns the
 * first such option (in a static buffer), or NULL. */
static const char *unknown_option(const char *flags) {
    static const char *const known[] = {
        "-cl-single-precision-constant", "-cl-denorms-are-zero", "-cl-fp32-correctly-rounded-divide-sqrt",
        "-cl-opt-disable", "-cl-mad-enable", "-cl-no-signed-zeros", "-cl-unsafe-math-optimizations",
        "-cl-finite-math-only", "-cl-fast-relaxed-math", "-cl-uniform-work-group-size", "-cl-no-subgroup-ifp",
        "-cl-kernel-arg-info", "-cl-strict-aliasing", "-cl-std=CL1.0", "-cl-std=CL1.1", "-cl-std=CL1.2",
        "-cl-std=CL2.0", "-cl-std=CL3.0",
    };
    static __thread char word[128];
    for (const char *p = flags; p && *p;) {
        while (*p == ' ' || *p == '\t') p++;
        const char *start = p;
        while (*p && *p != ' ' && *p != '\t') p++;
        size_t len = (size_t)(p - start);
        if (len < 4 || strncmp(start, "-cl-", 4) != 0) continue;
        int ok = 0;
        for (size_t i = 0; i < sizeof known / sizeof known[0] && !ok; i++)
            ok = strlen(known[i]) == len && strncmp(known[i], start, len) == 0;
        if (!ok) {
            snprintf(word, sizeof word, "%.*s", (int)(len < 100 ? len : 100), start);
            return word;
        }
    }
    return NULL;
}

ze_result_t host_module_build(zp_bdev *dev, const zp_module_src *src, zp_bmod **out, zp_module_meta *meta,
                              char **log) {
    (void)dev;
    *out = NULL;
    *log = NULL;
    meta->count = 0;
    meta->kernels = NULL;
    if (!src->host_library) {
        *log = strdupf("the host device runs a module's kernels from their native library (NAME.so built from "
                       "the kernel's .cl with -DKRT_HOST), and none was given");
        return ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
    }
    const char *bad = unknown_option(src->flags);
    if (bad) {
        *log = strdupf("the host device does not know the build option %s", bad);
        return ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
    }
    if (src->num_spec > 0) {
        *log = strdupf("the host device cannot specialize a native library: specialization constants are "
                       "unsupported there");
        return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    }
    if (src->size % 4 != 0) return ZE_RESULT_ERROR_INVALID_SIZE;
    zp_bmod *m = calloc(1, sizeof *m);
    if (!m) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    /* libkrt reflected this SPIR-V before building it; the same reflection gives the object model its
     * metadata, so the checks of arguments are those of any device. The copy keeps the words aligned. */
    uint32_t *words = malloc(src->size ? src->size : 4);
    if (!words) {
        free(m);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    memcpy(words, src->spirv, src->size);
    char why[1024];
    krt_spv_status st = krt_spv_reflect(words, src->size / 4, &m->refl, why, sizeof why);
    free(words);
    if (st != KRT_SPV_OK) {
        *log = strdupf("the module does not parse: %s", why);
        free(m);
        return st == KRT_SPV_OUT_OF_MEMORY ? ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY : ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
    }
    dlerror();
    m->lib = dlopen(src->host_library, RTLD_NOW | RTLD_LOCAL);
    if (!m->lib) {
        const char *e = dlerror();
        *log = strdupf("cannot load the host library %s: %s", src->host_library, e ? e : "unknown error");
        krt_spv_reflection_free(&m->refl);
        free(m);
        return ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
    }
    uint32_t (*version)(void) = (uint32_t(*)(void))dlsym(m->lib, "krt_host_abi_version");
    m->slot = (krt_host_item_slot_fn)dlsym(m->lib, "krt_host_item_slot");
    if (!version || !m->slot || version() < HOST_ABI_OLDEST || version() > HOST_ABI_VERSION) {
        *log = strdupf("%s is not a host kernel library of ABI version %u to %u (%s): build it from the kernel's "
                       ".cl with krt_kernel.h and -DKRT_HOST",
                       src->host_library, HOST_ABI_OLDEST, HOST_ABI_VERSION,
                       !version || !m->slot ? "krt_host_abi_version or krt_host_item_slot is missing"
                                            : "another version");
        dlclose(m->lib);
        krt_spv_reflection_free(&m->refl);
        free(m);
        return ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
    }
    m->abi = version();
    /* ABI 5: a checked library that tests its accesses inline against the shadow map (krt_host_checks_shadow,
     * shadow.c) runs only where the map is there, checked or not. */
    uint64_t (*shadow)(void) = (uint64_t(*)(void))dlsym(m->lib, "krt_host_checks_shadow");
    if (shadow) {
        const char *no = shadow() != KRT_HOST_CHECK_SHADOW ? "its shadow map is at another address than this krt's"
                                                           : host_shadow_start();
        if (no) {
            *log = strdupf("the checked library %s cannot run here: %s; build it with KRT_HOST_CHECK_CALLS=1 krt-cc "
                           "--host --checks, which checks every access with a call and needs no map "
                           "(docs/single-source.md, \"Checked libraries\")",
                           src->host_library, no);
            dlclose(m->lib);
            krt_spv_reflection_free(&m->refl);
            free(m);
            return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
        }
        m->shadow = 1;
    }
    /* A checked context's module (ZE_krt_bounds_check) runs a checked library; a checked library also runs
     * unchecked, its slot then pointing at no checks (pool.c). */
    m->checks_slot = (krt_host_checks_slot_fn)dlsym(m->lib, "krt_host_checks_slot");
    if (src->bounds_table) {
        if (!m->checks_slot || !library_span(m)) {
            *log = strdupf("%s is not a checked host kernel library, and a checked context (KRT_CHECK_BOUNDS, "
                           "KRT_CHECK=bounds) runs only those: build it from the kernel's .cl with `krt-cc --host "
                           "--checks` (docs/api.md, \"Checked launches\")",
                           src->host_library);
            dlclose(m->lib);
            krt_spv_reflection_free(&m->refl);
            free(m);
            return ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
        }
        m->checks.table = (const volatile uint64_t *)(uintptr_t)src->bounds_table;
        m->checks.outside = host_check_outside;
    }
    meta->kernels = calloc(m->refl.num_kernels ? m->refl.num_kernels : 1, sizeof *meta->kernels);
    if (!meta->kernels) goto oom;
    meta->count = m->refl.num_kernels;
    for (uint32_t k = 0; k < m->refl.num_kernels; k++) {
        const krt_spv_kernel *kr = &m->refl.kernels[k];
        zp_kernel_meta *km = &meta->kernels[k];
        km->name = strdup(kr->name);
        km->num_args = kr->num_args;
        km->args = calloc(kr->num_args ? kr->num_args : 1, sizeof *km->args);
        if (!km->name || !km->args) goto oom;
        memcpy(km->reqd, kr->required_group, sizeof km->reqd);
        /* The source attributes the reflection knows, written as the SPIR-V drivers write them (spirv/meta.cpp). */
        char req[64] = "", hint[64] = "";
        const uint32_t *r = kr->required_group, *h = kr->group_hint;
        if (r[0]) snprintf(req, sizeof req, "reqd_work_group_size(%u,%u,%u)", r[0], r[1], r[2]);
        if (h[0]) snprintf(hint, sizeof hint, "work_group_size_hint(%u,%u,%u)", h[0], h[1], h[2]);
        km->attrs = strdupf("%s%s%s", req, req[0] && hint[0] ? " " : "", hint);
        if (!km->attrs) goto oom;
        km->whole_groups = kr->uses_barrier != 0;
        /* The C locals of the kernel's call tree, as the SPIR-V declares them (the native code keeps them on the stack
         * its work-item runs on; the SPIR-V drivers measure the same from their LLVM). */
        km->private_size = kr->private_bytes;
        for (uint32_t i = 0; i < kr->num_args; i++) {
            km->args[i].kind = arg_kind(&kr->args[i]);
            km->args[i].size = kr->args[i].size;
        }
    }
    *out = m;
    return ZE_RESULT_SUCCESS;
oom:
    host_module_meta_free(meta);
    dlclose(m->lib);
    krt_spv_reflection_free(&m->refl);
    free(m);
    return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
}

void host_module_destroy(zp_bmod *m) {
    if (!m) return;
    dlclose(m->lib);
    krt_spv_reflection_free(&m->refl);
    free(m);
}

/* The libffi type of one argument; NULL for what libffi cannot pass (vectors, structs, half): a library of ABI 4
 * passes those itself (its runner reads each argument with its C type), an older one cannot take them. */
static ffi_type *arg_ffi_type(const krt_spv_arg *a) {
    switch (a->kind) {
    case KRT_SPV_ARG_GLOBAL_POINTER:
    case KRT_SPV_ARG_CONSTANT_POINTER:
    case KRT_SPV_ARG_LOCAL_POINTER: return &ffi_type_pointer;
    case KRT_SPV_ARG_SCALAR: break;
    default: return NULL;
    }
    if (a->vector_width != 1) return NULL;
    /* SPIR-V integers carry no sign; the C callee reads only the bits of its type. */
    switch (a->type) {
    case KRT_SPV_TYPE_BOOL:
    case KRT_SPV_TYPE_INT8: return &ffi_type_uint8;
    case KRT_SPV_TYPE_INT16: return &ffi_type_uint16;
    case KRT_SPV_TYPE_INT32: return &ffi_type_uint32;
    case KRT_SPV_TYPE_INT64: return &ffi_type_uint64;
    case KRT_SPV_TYPE_FLOAT32: return &ffi_type_float;
    case KRT_SPV_TYPE_FLOAT64: return &ffi_type_double;
    default: return NULL;
    }
}

/* The bytes an argument's value takes in zp_bkern.values: the pointer of a pointer argument, the byte size of a
 * __local one (run_group puts the group's pointer in its place), a by-value argument's own bytes; 0 for what
 * has no layout (the object model refuses to set those). */
static size_t arg_bytes(const krt_spv_arg *a) {
    switch (a->kind) {
    case KRT_SPV_ARG_GLOBAL_POINTER:
    case KRT_SPV_ARG_CONSTANT_POINTER: return sizeof(void *);
    case KRT_SPV_ARG_LOCAL_POINTER: return sizeof(size_t);
    case KRT_SPV_ARG_SCALAR:
    case KRT_SPV_ARG_STRUCT: return a->size;
    default: return 0;
    }
}

/* KRT_HOST_FIBERS=1: barrier kernels on fibers even where their library has work-item loops. */
static bool host_env_fibers(void) {
    const char *e = getenv("KRT_HOST_FIBERS");
    return e && strcmp(e, "1") == 0;
}

void host_kernel_destroy(zp_bkern *k) {
    if (!k) return;
    free(k->types);
    free(k->off);
    free(k->values);
    free(k);
}

ze_result_t host_kernel_create(zp_bmod *mod, const char *name, zp_bkern **out, zp_kernel_limits *limits) {
    uint32_t index;
    const krt_spv_kernel *kr = krt_spv_reflection_find(&mod->refl, name, &index);
    if (!kr) return ZE_RESULT_ERROR_INVALID_KERNEL_NAME;
    void (*fn)(void) = (void (*)(void))dlsym(mod->lib, name);
    if (!fn) return ZE_RESULT_ERROR_INVALID_KERNEL_NAME;
    /* ABI 4: the runner, which the runtime calls directly with the arguments' addresses. ABI 3: the runner, called
     * through libffi with the kernel's parameters and the group last. A library of ABI 3 or 4 that lacks one
     * (built by hand) runs per work-item through libffi, as an older library does. */
    void (*runner)(void) = NULL;
    if (mod->abi >= 3) {
        char sym[512];
        if ((size_t)snprintf(sym, sizeof sym, "%s%s", KRT_HOST_GROUP_PREFIX, name) < sizeof sym)
            runner = (void (*)(void))dlsym(mod->lib, sym);
    }
    /* A checked library's instrumentation finds its thread's slot through the runner (krt_kernel_host.h,
     * KRT__SLOT_ENTER: in a register, on x86-64), so its kernels run only through their runners. krt-cc writes one
     * for every kernel; a checked library built otherwise, without one, is refused rather than run. */
    if (mod->checks_slot && !runner) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    bool direct = mod->abi >= 4 && runner;
    uint32_t n = kr->num_args;
    /* Each value at an offset aligned to the largest power of two dividing its size (at least a pointer's): C
     * aligns no type more than that, as a type's size is a multiple of its alignment, so the runner of ABI 4 may
     * read it as its type wherever the buffer is, the buffer being aligned as much as its most aligned value. */
    size_t bytes = 0, align = 16;
    bool by_ffi = true;
    for (uint32_t i = 0; i < n; i++) {
        size_t b = arg_bytes(&kr->args[i]);
        if (b == 0) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
        if (!arg_ffi_type(&kr->args[i])) by_ffi = false;
        size_t a = b & -b;
        if (a < sizeof(void *)) a = sizeof(void *);
        if (a > align) align = a;
        bytes = (bytes + a - 1) & ~(a - 1);
        bytes += b;
    }
    /* libffi has no half, vector or struct type: an older library's kernel with one cannot be called. */
    if (!direct && !by_ffi) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    zp_bkern *k = calloc(1, sizeof *k);
    if (!k) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    k->types = calloc(n + 1, sizeof *k->types);
    k->off = calloc(n ? n : 1, sizeof *k->off);
    k->values_align = align;
    k->values_size = (bytes + align - 1) & ~(align - 1);
    if (!k->types || !k->off || posix_memalign((void **)&k->values, align, k->values_size ? k->values_size : align) != 0)
        goto oom;
    memset(k->values, 0, k->values_size);
    bytes = 0;
    for (uint32_t i = 0; i < n; i++) {
        size_t b = arg_bytes(&kr->args[i]), a = b & -b;
        if (a < sizeof(void *)) a = sizeof(void *);
        bytes = (bytes + a - 1) & ~(a - 1);
        k->off[i] = (uint32_t)bytes;
        bytes += b;
        k->types[i] = arg_ffi_type(&kr->args[i]);
        if (kr->args[i].kind == KRT_SPV_ARG_LOCAL_POINTER) k->local_args = true;
    }
    if (direct) {
        k->group = (krt_host_group_fn)runner;
    } else {
        if (ffi_prep_cif(&k->cif, FFI_DEFAULT_ABI, n, &ffi_type_void, k->types) != FFI_OK) {
            host_kernel_destroy(k);
            return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
        }
        k->types[n] = &ffi_type_pointer;
        if (runner && ffi_prep_cif(&k->runner_cif, FFI_DEFAULT_ABI, n + 1, &ffi_type_void, k->types) == FFI_OK)
            k->runner = runner;
    }
    k->mod = mod;
    k->fn = fn;
    k->refl = kr;
    k->name_hash = (uint32_t)krt_fnv1a64(KRT_FNV1A64_INIT, name, strlen(name));
    k->num_args = n;
    /* A kernel with barriers runs each work-item on a stack of its own (fiber.c), unless krt-cc --host wrote
     * its runner as work-item loops (krt_host_loops_NAME, tools/krt_loops.py): then the runner takes its
     * groups like any other. KRT_HOST_FIBERS=1 keeps the stacks anyway, to compare or to rule the loops out. */
    k->barrier = kr->uses_barrier != 0;
    if (k->barrier && (k->runner || k->group) && !host_env_fibers()) {
        char loops[512];
        if ((size_t)snprintf(loops, sizeof loops, "krt_host_loops_%s", name) < sizeof loops && dlsym(mod->lib, loops))
            k->barrier = false;
    }
    limits->max_group_total = HOST_MAX_GROUP;
    limits->preferred_multiple = 1;
    /* Private memory (ZE_krt_private_memory, issue 39): a work-item's private variables are C locals on the stack it
     * runs on, its fiber's (HOST_ITEM_STACK) for a barrier kernel on fibers, else the stack of the thread that runs its
     * group, a pool thread's or its queue's, both made with the default stack size. (Work-item loops keep the
     * variables a barrier kernel's items keep across barriers in arrays of one element per work-item, on the heap past
     * 64 KiB, krt_kernel_host.h: no group shares the stack.) A quarter of the stack is left for the frames around the
     * kernel (PoCL 5 leaves the same for its work-group functions). A launch past it is refused: it would overrun the
     * stack and end the process. */
    limits->private_max = (k->barrier ? HOST_ITEM_STACK : host_thread_stack()) / 4 * 3;
    limits->private_per_group = false;
    *out = k;
    return ZE_RESULT_SUCCESS;
oom:
    host_kernel_destroy(k);
    return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
}

ze_result_t host_kernel_set_arg(zp_bkern *k, uint32_t index, uint32_t kind, size_t size, const void *value) {
    if (index >= k->num_args) return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX;
    uint8_t *slot = k->values + k->off[index];
    if (kind == ZP_ARG_GLOBAL || kind == ZP_ARG_CONSTANT) {
        memcpy(slot, &value, sizeof value);
    } else if (kind == ZP_ARG_LOCAL) {
        memcpy(slot, &size, sizeof size);
    } else {
        if (size != arg_bytes(&k->refl->args[index])) return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
        if (value)
            memcpy(slot, value, size);
        else
            memset(slot, 0, size);
    }
    return ZE_RESULT_SUCCESS;
}
