/* The host device's backend: kernels run natively on this machine's cores.
 *
 * A module is its SPIR-V (read for the object model's metadata with libkrt's own reflection, so argument kinds
 * and sizes are exactly those of a device) plus a native shared library compiled from the same OpenCL C source
 * (the ABI is in docs/driver.md, "The host device"). A kernel is the library's function of the kernel's name,
 * called through libffi with a call interface prepared once per kernel. A launch spreads its work-groups over a
 * pool of one thread per core; the work-items of a group run in turn on the thread that took the group, in a
 * plain loop, or, when the kernel has a work-group barrier in its call tree, each on its own small stack,
 * switching to the next work-item at every barrier. A queue is a host thread that runs its commands in order.
 *
 * This file is compiled into libkrt with the driver/ object model (driver/host/host.mk); nothing of it is
 * exported. */
#include <dlfcn.h>
#include <errno.h>
#include <ffi.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

/* Switching work-items at a barrier. On x86-64 a few instructions save the callee-saved registers and swap
 * stacks (ucontext's swapcontext also saves and restores the signal mask, a system call each way, which made a
 * barrier kernel's work-item cost microseconds); elsewhere ucontext does it. */
#if defined(__x86_64__) && !defined(KRT_HOST_UCONTEXT) /* -DKRT_HOST_UCONTEXT tests the portable path */
#define HOST_FAST_SWITCH 1
/* Saves the callee-saved registers on the current stack, stores its pointer in *save and continues on the stack
 * at next, which either krt__host_switch saved or fiber_stack_init prepared. */
void krt__host_switch(void **save, void *next);
__asm__(".text\n"
        ".p2align 4\n"
        ".type krt__host_switch,@function\n"
        ".hidden krt__host_switch\n"
        "krt__host_switch:\n"
        "    pushq %rbp\n"
        "    pushq %rbx\n"
        "    pushq %r12\n"
        "    pushq %r13\n"
        "    pushq %r14\n"
        "    pushq %r15\n"
        "    movq %rsp, (%rdi)\n"
        "    movq %rsi, %rsp\n"
        "    popq %r15\n"
        "    popq %r14\n"
        "    popq %r13\n"
        "    popq %r12\n"
        "    popq %rbx\n"
        "    popq %rbp\n"
        "    ret\n"
        ".size krt__host_switch, .-krt__host_switch\n");
#else
#define HOST_FAST_SWITCH 0
#endif

#include "../zp.h"
#include "../../spirv/reflect.h"
#include "../../kernels/include/krt_host_abi.h"

/* The sanitizers are told about each switch between a work-item's stack and the pool thread's (the scheduler's):
 * ASan so that it knows which stack is current (its fake stacks, and the stack it unpoisons on a noreturn call),
 * TSan so that each work-item has its own shadow call stack and a switch orders what the work-items do, as the
 * barrier does. Compiled only when the sanitizer is on (make sanitize); nothing otherwise. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HOST_ASAN 1
#endif
#if __has_feature(thread_sanitizer)
#define HOST_TSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(HOST_ASAN)
#define HOST_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__) && !defined(HOST_TSAN)
#define HOST_TSAN 1
#endif
#ifdef HOST_ASAN
#include <sanitizer/common_interface_defs.h>
#endif
#ifdef HOST_TSAN
#include <sanitizer/tsan_interface.h>
#endif

/* Libraries of ABI 1 (no enqueued_local_size) still load: they read only the fields before it. */
#define HOST_ABI_VERSION KRT_HOST_ABI_VERSION
#define HOST_ABI_OLDEST 1u
/* Work-items per group, per dimension and in all (docs/driver.md says why). */
#define HOST_MAX_GROUP 1024u
/* Bytes of __local memory a group may take through its __local arguments. */
#define HOST_LOCAL_MEM (256u * 1024u)
/* Stack of one work-item of a kernel with barriers, with a guard page below it: reserved, not committed
 * (MAP_NORESERVE), so only the pages a work-item touches cost memory. */
#define HOST_ITEM_STACK (256u * 1024u)

static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- device ------------------------------------------------------------------------------------------- */

struct zp_bdev {
    uint32_t threads;
};
static struct zp_bdev host_dev;

static uint32_t cores(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (uint32_t)n : 1u;
}

/* ---- tokens --------------------------------------------------------------------------------------------- */

typedef struct callback {
    zp_token_fn fn;
    void *user;
    struct callback *next;
} callback;

struct zp_btoken {
    atomic_int refs;
    int done;           /* under tok_lock: 0 running, 1 finished (times set, callbacks running), 2 done */
    uint64_t start, end;
    callback *callbacks; /* under tok_lock */
    struct zp_btoken *next_free;
};

/* One lock and condition for every token: a queue thread waiting for tokens of other queues sleeps on it. */
static pthread_mutex_t tok_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tok_cv = PTHREAD_COND_INITIALIZER;

/* Released tokens are kept for the next commands (up to TOKENS_KEPT), so that a warm launch allocates
 * nothing (test_memo's no-allocation tests run on the host device too). */
#define TOKENS_KEPT 1024u
static zp_btoken *tok_free;   /* under tok_lock */
static unsigned tok_free_count;

static zp_btoken *token_new(void) {
    pthread_mutex_lock(&tok_lock);
    zp_btoken *t = tok_free;
    if (t) {
        tok_free = t->next_free;
        tok_free_count--;
    }
    pthread_mutex_unlock(&tok_lock);
    if (!t && !(t = malloc(sizeof *t))) return NULL;
    memset(t, 0, sizeof *t);
    atomic_init(&t->refs, 1);
    return t;
}

static void host_token_retain(zp_btoken *t) { atomic_fetch_add(&t->refs, 1); }

static void host_token_release(zp_btoken *t) {
    if (!t || atomic_fetch_sub(&t->refs, 1) != 1) return;
    pthread_mutex_lock(&tok_lock);
    if (tok_free_count < TOKENS_KEPT) {
        t->next_free = tok_free;
        tok_free = t;
        tok_free_count++;
        t = NULL;
    }
    pthread_mutex_unlock(&tok_lock);
    free(t);
}

/* The callbacks (an event's signal) run before the token is marked done: a command waiting on the token, on
 * another queue, must not finish before the event it waited for reads as signalled (test_queue_event's
 * event_orders_two_queues on the host device saw the event not ready after the consumer's queue drained).
 * Callbacks added while they run are taken in the next round. */
static void token_complete(zp_btoken *t) {
    pthread_mutex_lock(&tok_lock);
    t->done = 1;
    for (callback *cb; (cb = t->callbacks) != NULL;) {
        t->callbacks = NULL;
        pthread_mutex_unlock(&tok_lock);
        while (cb) {
            callback *next = cb->next;
            cb->fn(t, cb->user);
            free(cb);
            cb = next;
        }
        pthread_mutex_lock(&tok_lock);
    }
    t->done = 2;
    pthread_cond_broadcast(&tok_cv);
    pthread_mutex_unlock(&tok_lock);
}

static ze_result_t host_token_on_complete(zp_btoken *t, zp_token_fn fn, void *user) {
    pthread_mutex_lock(&tok_lock);
    if (t->done < 2) {
        callback *cb = malloc(sizeof *cb);
        if (!cb) {
            pthread_mutex_unlock(&tok_lock);
            return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
        *cb = (callback){fn, user, t->callbacks};
        t->callbacks = cb;
        pthread_mutex_unlock(&tok_lock);
        return ZE_RESULT_SUCCESS;
    }
    pthread_mutex_unlock(&tok_lock);
    fn(t, user);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t host_token_times(zp_btoken *t, uint64_t *start, uint64_t *end) {
    pthread_mutex_lock(&tok_lock);
    int done = t->done;
    pthread_mutex_unlock(&tok_lock);
    if (!done) return ZE_RESULT_ERROR_NOT_AVAILABLE;
    *start = t->start;
    *end = t->end;
    return ZE_RESULT_SUCCESS;
}

/* ---- modules and kernels ------------------------------------------------------------------------------ */

typedef krt_host_item_slot_fn slot_fn;

struct zp_bmod {
    void *lib;
    slot_fn slot;
    krt_spv_reflection refl;
};

struct zp_bkern {
    zp_bmod *mod;
    void (*fn)(void);
    const krt_spv_kernel *refl;
    ffi_cif cif;
    ffi_type **types;
    uint32_t num_args;
    uint32_t *off;     /* offset of each argument's value in values */
    uint8_t *values;   /* current values: pointers, scalars, and the byte size of __local arguments */
    size_t values_size;
    bool barrier;
};

static char *strdupf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *strdupf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0) s = NULL;
    va_end(ap);
    return s;
}

static void host_module_meta_free(zp_module_meta *meta) {
    if (!meta) return;
    for (uint32_t i = 0; i < meta->count; i++) {
        free(meta->kernels[i].name);
        free(meta->kernels[i].args);
    }
    free(meta->kernels);
    meta->kernels = NULL;
    meta->count = 0;
}

static uint32_t arg_kind(const krt_arg_info *a) {
    switch (a->kind) {
    case KRT_ARG_GLOBAL_POINTER: return ZP_ARG_GLOBAL;
    case KRT_ARG_CONSTANT_POINTER: return ZP_ARG_CONSTANT;
    case KRT_ARG_LOCAL_POINTER: return ZP_ARG_LOCAL;
    case KRT_ARG_SCALAR: return ZP_ARG_SCALAR;
    case KRT_ARG_STRUCT: return ZP_ARG_BYVAL;
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

static ze_result_t host_module_build(zp_bdev *dev, const zp_module_src *src, zp_bmod **out, zp_module_meta *meta,
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
    krt_result kr = krt_spv_reflect(words, src->size / 4, &m->refl, why, sizeof why);
    free(words);
    if (kr != KRT_SUCCESS) {
        *log = strdupf("the module does not parse: %s", why);
        free(m);
        return kr == KRT_ERROR_OUT_OF_HOST_MEMORY ? ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY
                                                   : ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
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
    m->slot = (slot_fn)dlsym(m->lib, "krt_host_item_slot");
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
        km->whole_groups = kr->uses_barrier != 0;
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

static void host_module_destroy(zp_bmod *m) {
    if (!m) return;
    dlclose(m->lib);
    krt_spv_reflection_free(&m->refl);
    free(m);
}

/* The libffi type of one argument; NULL for what the native ABI does not pass (vectors, structs, half). */
static ffi_type *arg_ffi_type(const krt_arg_info *a) {
    switch (a->kind) {
    case KRT_ARG_GLOBAL_POINTER:
    case KRT_ARG_CONSTANT_POINTER:
    case KRT_ARG_LOCAL_POINTER: return &ffi_type_pointer;
    case KRT_ARG_SCALAR: break;
    default: return NULL;
    }
    if (a->vector_width != 1) return NULL;
    /* SPIR-V integers carry no sign; the C callee reads only the bits of its type. */
    switch (a->type) {
    case KRT_TYPE_BOOL:
    case KRT_TYPE_INT8: return &ffi_type_uint8;
    case KRT_TYPE_INT16: return &ffi_type_uint16;
    case KRT_TYPE_INT32: return &ffi_type_uint32;
    case KRT_TYPE_INT64: return &ffi_type_uint64;
    case KRT_TYPE_FLOAT32: return &ffi_type_float;
    case KRT_TYPE_FLOAT64: return &ffi_type_double;
    default: return NULL;
    }
}

static void host_kernel_destroy(zp_bkern *k) {
    if (!k) return;
    free(k->types);
    free(k->off);
    free(k->values);
    free(k);
}

static ze_result_t host_kernel_create(zp_bmod *mod, const char *name, zp_bkern **out, zp_kernel_limits *limits) {
    uint32_t index;
    const krt_spv_kernel *kr = krt_spv_reflection_find(&mod->refl, name, &index);
    if (!kr) return ZE_RESULT_ERROR_INVALID_KERNEL_NAME;
    void (*fn)(void) = (void (*)(void))dlsym(mod->lib, name);
    if (!fn) return ZE_RESULT_ERROR_INVALID_KERNEL_NAME;
    uint32_t n = kr->num_args;
    size_t bytes = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!arg_ffi_type(&kr->args[i])) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
        bytes += 16;
    }
    zp_bkern *k = calloc(1, sizeof *k);
    if (!k) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    k->types = calloc(n ? n : 1, sizeof *k->types);
    k->off = calloc(n ? n : 1, sizeof *k->off);
    k->values = calloc(bytes ? bytes : 1, 1);
    if (!k->types || !k->off || !k->values) goto oom;
    for (uint32_t i = 0; i < n; i++) {
        k->types[i] = arg_ffi_type(&kr->args[i]);
        k->off[i] = 16u * i; /* 16 bytes hold any scalar or pointer, aligned */
    }
    if (ffi_prep_cif(&k->cif, FFI_DEFAULT_ABI, n, &ffi_type_void, k->types) != FFI_OK) {
        free(k->types);
        free(k->off);
        free(k->values);
        free(k);
        return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    }
    k->mod = mod;
    k->fn = fn;
    k->refl = kr;
    k->num_args = n;
    k->values_size = bytes;
    k->barrier = kr->uses_barrier != 0;
    limits->max_group_total = HOST_MAX_GROUP;
    limits->preferred_multiple = 1;
    *out = k;
    return ZE_RESULT_SUCCESS;
oom:
    host_kernel_destroy(k);
    return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
}

static ze_result_t host_kernel_set_arg(zp_bkern *k, uint32_t index, uint32_t kind, size_t size, const void *value) {
    if (index >= k->num_args) return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX;
    uint8_t *slot = k->values + k->off[index];
    memset(slot, 0, 16);
    if (kind == ZP_ARG_GLOBAL || kind == ZP_ARG_CONSTANT) {
        memcpy(slot, &value, sizeof value);
    } else if (kind == ZP_ARG_LOCAL) {
        memcpy(slot, &size, sizeof size);
    } else {
        if (size > 16) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
        if (value) memcpy(slot, value, size);
    }
    return ZE_RESULT_SUCCESS;
}

/* ---- the thread pool and work-groups -------------------------------------------------------------------- */

/* One launch as the pool runs it: a snapshot of the kernel's arguments taken when it was enqueued. */
typedef struct job {
    zp_bkern *kern;
    zp_ndrange range;
    uint8_t *values;          /* the argument snapshot, kern->values_size bytes */
    size_t local_total;       /* bytes of __local arguments per group, each rounded up to 64 */
    size_t num_groups[3];
    size_t total_groups;
    size_t group_items;
    atomic_size_t next;       /* the next group index to hand out */
    size_t finished;          /* groups done (under pool_lock) */
    int failed;               /* a thread could not get its buffers: the launch fails (under pool_lock) */
    unsigned active;          /* workers inside the job (under pool_lock) */
    struct job *next_job;
} job;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_work = PTHREAD_COND_INITIALIZER;
static pthread_cond_t pool_done = PTHREAD_COND_INITIALIZER;
static job *pool_jobs;        /* jobs with groups left to hand out */
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
static ze_result_t pool_result = ZE_RESULT_ERROR_UNINITIALIZED;

/* What one pool thread keeps between groups. */
typedef struct worker {
    uint8_t *local;           /* this thread's __local buffer */
    size_t local_cap;
    void **avalues;           /* libffi's argument pointers */
    uint8_t *ptrs;            /* the __local pointers the avalues of local arguments point at */
    uint32_t cap_args;
    struct krt_host_item *items; /* one per work-item of a group with barriers, one otherwise */
    size_t cap_items;
    size_t cap_fibers;        /* work-items the contexts and stacks below are for */
    /* Kernels with barriers: a context and a stack per work-item, and the scheduler's context. */
    ucontext_t sched;
    ucontext_t *ctx;
    void *sched_sp;           /* HOST_FAST_SWITCH: the scheduler's saved stack pointer */
    void **sp;                /* HOST_FAST_SWITCH: each work-item's saved stack pointer */
    uint8_t *stacks;          /* cap_items stacks of HOST_ITEM_STACK bytes, each above a guard page */
    size_t stacks_len;
    uint8_t *finished;
    size_t current;
    job *job;
#ifdef HOST_ASAN
    const void *sched_bottom; /* the pool thread's stack, as ASan reported it at the switch to a work-item */
    size_t sched_size;
    void *sched_fake;         /* the scheduler's fake stack while a work-item runs */
#endif
#ifdef HOST_TSAN
    void *sched_fiber;        /* the pool thread's own TSan context */
    void **fibers;            /* a TSan fiber per work-item of the group, for its life */
#endif
} worker;

static __thread worker *self;

static void item_barrier(const struct krt_host_item *item);

static int worker_reserve(worker *w, const job *j) {
    uint32_t n = j->kern->num_args;
    if (n > w->cap_args) {
        void **a = realloc(w->avalues, n * sizeof *a);
        if (!a) return 0;
        w->avalues = a;
        uint8_t *p = realloc(w->ptrs, n * sizeof(void *));
        if (!p) return 0;
        w->ptrs = p;
        w->cap_args = n;
    }
    if (j->local_total > w->local_cap) {
        void *b = NULL;
        if (posix_memalign(&b, 64, j->local_total) != 0) return 0;
        free(w->local);
        w->local = b;
        w->local_cap = j->local_total;
    }
    size_t items = j->kern->barrier ? j->group_items : 1;
    if (items > w->cap_items) {
        struct krt_host_item *it = realloc(w->items, items * sizeof *it);
        if (!it) return 0;
        w->items = it;
        w->cap_items = items;
    }
    if (j->kern->barrier && items > w->cap_fibers) {
        {
            ucontext_t *c = realloc(w->ctx, items * sizeof *c);
            if (!c) return 0;
            w->ctx = c;
            void **sp = realloc(w->sp, items * sizeof *sp);
            if (!sp) return 0;
            w->sp = sp;
            uint8_t *f = realloc(w->finished, items);
            if (!f) return 0;
            w->finished = f;
#ifdef HOST_TSAN
            void **fb = realloc(w->fibers, items * sizeof *fb);
            if (!fb) return 0;
            w->fibers = fb;
#endif
            size_t page = (size_t)sysconf(_SC_PAGESIZE);
            size_t len = items * (HOST_ITEM_STACK + page);
            uint8_t *s = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (s == MAP_FAILED) return 0;
            /* A guard page below each stack: a work-item that overflows its stack faults instead of writing
             * over its neighbour's. */
            for (size_t i = 0; i < items; i++) mprotect(s + i * (HOST_ITEM_STACK + page), page, PROT_NONE);
            if (w->stacks) munmap(w->stacks, w->stacks_len);
            w->stacks = s;
            w->stacks_len = len;
        }
        w->cap_fibers = items;
    }
    return 1;
}

/* The sanitizers' side of a switch (see HOST_ASAN above). The scheduler calls san_to_item before it resumes
 * work-item i on its stack and san_in_sched once back; a work-item calls san_in_item first on its stack and after
 * each resume, and san_to_sched before it switches back, with fake NULL when it has ended. */
static inline void san_to_item(worker *w, size_t i, const uint8_t *stack) {
    (void)w, (void)i, (void)stack;
#ifdef HOST_ASAN
    __sanitizer_start_switch_fiber(&w->sched_fake, stack, HOST_ITEM_STACK);
#endif
#ifdef HOST_TSAN
    __tsan_switch_to_fiber(w->fibers[i], 0);
#endif
}

static inline void san_in_sched(worker *w) {
    (void)w;
#ifdef HOST_ASAN
    __sanitizer_finish_switch_fiber(w->sched_fake, NULL, NULL);
#endif
}

static inline void san_in_item(worker *w, void *fake) {
    (void)w, (void)fake;
#ifdef HOST_ASAN
    __sanitizer_finish_switch_fiber(fake, &w->sched_bottom, &w->sched_size);
#endif
}

static inline void san_to_sched(worker *w, void **fake) {
    (void)w, (void)fake;
#ifdef HOST_ASAN
    __sanitizer_start_switch_fiber(fake, w->sched_bottom, w->sched_size);
#endif
#ifdef HOST_TSAN
    __tsan_switch_to_fiber(w->sched_fiber, 0);
#endif
}

/* A work-item's entry on its own stack: run the kernel to its end, then back to the scheduler (uc_link, or the
 * switch below, which never returns here). */
static void item_entry(void) {
    worker *w = self;
    san_in_item(w, NULL);
    ffi_call(&w->job->kern->cif, w->job->kern->fn, NULL, w->avalues);
    w->finished[w->current] = 1;
    san_to_sched(w, NULL);
#if HOST_FAST_SWITCH
    void *dead;
    krt__host_switch(&dead, w->sched_sp);
#endif
}

#if HOST_FAST_SWITCH
/* A fresh stack that krt__host_switch enters at item_entry: six zero registers, then item_entry as the return
 * address, placed so that item_entry starts with the stack aligned as after a call. */
static void *fiber_stack_init(uint8_t *base, size_t size) {
    uintptr_t top = ((uintptr_t)(base + size)) & ~(uintptr_t)15;
    void **ret = (void **)(top - 16);
    *ret = (void *)item_entry;
    void **sp = ret - 6;
    for (int i = 0; i < 6; i++) sp[i] = NULL;
    return sp;
}
#endif

/* The kernel's barrier(): switch to the scheduler, which resumes the next work-item of the group. */
static void item_barrier(const struct krt_host_item *item) {
    (void)item;
    worker *w = self;
    if (!w || !w->job || !w->job->kern->barrier) return;
    void *fake = NULL;
    san_to_sched(w, &fake);
#if HOST_FAST_SWITCH
    krt__host_switch(&w->sp[w->current], w->sched_sp);
#else
    swapcontext(&w->ctx[w->current], &w->sched);
#endif
    san_in_item(w, fake);
}

/* A work-item's local and global ids from its group's ids and its place (x, y, z) in the group. */
static inline void set_item_ids(struct krt_host_item *it, const zp_ndrange *r, const size_t gid[3], size_t x,
                                size_t y, size_t z) {
    const size_t l[3] = {x, y, z};
    for (int d = 0; d < 3; d++) {
        it->local_id[d] = l[d];
        it->global_id[d] = gid[d] * r->local[d] + l[d] + r->offset[d];
    }
}

static void run_group(worker *w, job *j, const struct krt_host_item **slot, size_t g) {
    zp_bkern *k = j->kern;
    const zp_ndrange *r = &j->range;
    size_t gid[3] = {g % j->num_groups[0], (g / j->num_groups[0]) % j->num_groups[1],
                     g / (j->num_groups[0] * j->num_groups[1])};
    /* Arguments: the snapshot's values, and for each __local argument a pointer into this group's buffer. */
    size_t local_at = 0;
    for (uint32_t i = 0; i < k->num_args; i++) {
        if (k->refl->args[i].kind == KRT_ARG_LOCAL_POINTER) {
            size_t n;
            memcpy(&n, j->values + k->off[i], sizeof n);
            void *p = w->local + local_at;
            memcpy(w->ptrs + i * sizeof(void *), &p, sizeof p);
            w->avalues[i] = w->ptrs + i * sizeof(void *);
            local_at += (n + 63) & ~(size_t)63;
        } else {
            w->avalues[i] = j->values + k->off[i];
        }
    }
    struct krt_host_item base;
    memset(&base, 0, sizeof base);
    base.work_dim = r->dims;
    /* The builtins of the whole (exact) launch, backend.h: a partial group's local size is its real size, and
     * only its real items run. */
    for (int d = 0; d < 3; d++) {
        size_t group = gid[d] + r->base[d], left = r->range[d] - group * r->enq[d];
        base.group_id[d] = group;
        base.global_size[d] = r->range[d];
        base.local_size[d] = left < r->enq[d] ? left : r->enq[d];
        base.enqueued_local_size[d] = r->enq[d];
        base.num_groups[d] = (r->range[d] + r->enq[d] - 1) / r->enq[d];
        base.global_offset[d] = r->offset[d] - r->base[d] * r->enq[d];
    }
    base.barrier = item_barrier;
    base.runtime = w;
    size_t lx = base.local_size[0], ly = base.local_size[1], lz = base.local_size[2];
    if (!k->barrier) {
        struct krt_host_item *it = &w->items[0];
        *it = base;
        *slot = it;
        for (size_t z = 0; z < lz; z++)
            for (size_t y = 0; y < ly; y++)
                for (size_t x = 0; x < lx; x++) {
                    set_item_ids(it, r, gid, x, y, z);
                    ffi_call(&k->cif, k->fn, NULL, w->avalues);
                }
        return;
    }
    size_t n = lx * ly * lz; /* all of the piece's group: exec.c gives these kernels whole groups only */
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    for (size_t i = 0; i < n; i++) {
        struct krt_host_item *it = &w->items[i];
        *it = base;
        set_item_ids(it, r, gid, i % lx, (i / lx) % ly, i / (lx * ly));
        uint8_t *stack = w->stacks + i * (HOST_ITEM_STACK + page) + page;
#if HOST_FAST_SWITCH
        w->sp[i] = fiber_stack_init(stack, HOST_ITEM_STACK);
#else
        getcontext(&w->ctx[i]);
        w->ctx[i].uc_stack.ss_sp = stack;
        w->ctx[i].uc_stack.ss_size = HOST_ITEM_STACK;
        w->ctx[i].uc_link = &w->sched;
        makecontext(&w->ctx[i], item_entry, 0);
#endif
        w->finished[i] = 0;
#ifdef HOST_TSAN
        w->fibers[i] = __tsan_create_fiber(0);
#endif
    }
#ifdef HOST_TSAN
    w->sched_fiber = __tsan_get_current_fiber();
#endif
    /* Round robin: each pass runs every unfinished work-item up to its next barrier or its end. */
    size_t left = n;
    while (left > 0) {
        for (size_t i = 0; i < n; i++) {
            if (w->finished[i]) continue;
            w->current = i;
            *slot = &w->items[i];
            san_to_item(w, i, w->stacks + i * (HOST_ITEM_STACK + page) + page);
#if HOST_FAST_SWITCH
            krt__host_switch(&w->sched_sp, w->sp[i]);
#else
            swapcontext(&w->sched, &w->ctx[i]);
#endif
            san_in_sched(w);
            if (w->finished[i]) {
                left--;
#ifdef HOST_TSAN
                __tsan_destroy_fiber(w->fibers[i]);
#endif
            }
        }
    }
}

static void *pool_main(void *arg) {
    (void)arg;
    worker *w = calloc(1, sizeof *w);
    self = w;
    pthread_mutex_lock(&pool_lock);
    for (;;) {
        job *j = pool_jobs;
        while (j && atomic_load(&j->next) >= j->total_groups) j = j->next_job;
        if (!j) {
            pthread_cond_wait(&pool_work, &pool_lock);
            continue;
        }
        j->active++;
        pthread_mutex_unlock(&pool_lock);
        size_t done = 0;
        int ok = w && worker_reserve(w, j);
        if (ok) {
            w->job = j;
            const struct krt_host_item **slot = j->kern->mod->slot();
            for (;;) {
                size_t g = atomic_fetch_add(&j->next, 1);
                if (g >= j->total_groups) break;
                run_group(w, j, slot, g);
                done++;
            }
            *slot = NULL;
            w->job = NULL;
        }
        pthread_mutex_lock(&pool_lock);
        if (!ok) {
            /* Out of memory for this thread's buffers: no group is handed out any more and the launch fails. */
            j->failed = 1;
            atomic_store(&j->next, j->total_groups);
        }
        j->finished += done;
        j->active--;
        pthread_cond_broadcast(&pool_done);
    }
    return NULL;
}

static void pool_start(void) {
    uint32_t n = host_dev.threads;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    uint32_t started = 0;
    for (uint32_t i = 0; i < n; i++) {
        pthread_t t;
        if (pthread_create(&t, &attr, pool_main, NULL) == 0) started++;
    }
    pthread_attr_destroy(&attr);
    pool_result = started ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
}

/* Runs a launch on the pool and returns when every group is done. */
static ze_result_t run_job(job *j) {
    pthread_once(&pool_once, pool_start);
    if (pool_result != ZE_RESULT_SUCCESS) return pool_result;
    pthread_mutex_lock(&pool_lock);
    j->next_job = pool_jobs;
    pool_jobs = j;
    pthread_cond_broadcast(&pool_work);
    while ((j->finished < j->total_groups && !j->failed) || j->active > 0) pthread_cond_wait(&pool_done, &pool_lock);
    for (job **p = &pool_jobs; *p; p = &(*p)->next_job)
        if (*p == j) {
            *p = j->next_job;
            break;
        }
    pthread_mutex_unlock(&pool_lock);
    return j->finished == j->total_groups ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
}

/* ---- queues --------------------------------------------------------------------------------------------- */

enum { CMD_LAUNCH, CMD_COPY, CMD_FILL, CMD_BARRIER, CMD_TASK };

typedef struct hcmd {
    int type;
    zp_btoken *done;
    uint32_t num_waits;
    zp_btoken **waits;
    job launch;
    void *dst;
    const void *src;
    size_t size, pattern_size;
    uint8_t pattern[128];
    void (*fn)(void *);
    void *data;
    struct hcmd *next;
    size_t values_cap;  /* bytes launch.values holds, kept when the command is recycled */
    uint32_t waits_cap;
} hcmd;

/* Finished commands are kept per queue (up to COMMANDS_KEPT) with their buffers, for the next ones. */
#define COMMANDS_KEPT 64u

struct zp_bqueue {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    hcmd *head, *tail;
    int busy;      /* a command is running */
    int stop;
    pthread_t thread;
    ze_result_t error; /* the first failure of a command, reported by queue_finish */
    hcmd *free_cmds;   /* under lock */
    unsigned free_count;
};

static void cmd_destroy(hcmd *c) {
    free(c->waits);
    free(c->launch.values);
    free(c);
}

/* Releases the command's waits and keeps it for the queue's next command. */
static void cmd_free(zp_bqueue *q, hcmd *c) {
    for (uint32_t i = 0; i < c->num_waits; i++) host_token_release(c->waits[i]);
    c->num_waits = 0;
    pthread_mutex_lock(&q->lock);
    if (q->free_count < COMMANDS_KEPT) {
        c->next = q->free_cmds;
        q->free_cmds = c;
        q->free_count++;
        c = NULL;
    }
    pthread_mutex_unlock(&q->lock);
    if (c) cmd_destroy(c);
}

static void fill_bytes(uint8_t *dst, const uint8_t *pattern, size_t pattern_size, size_t size) {
    if (pattern_size == 1) {
        memset(dst, pattern[0], size);
        return;
    }
    for (size_t i = 0; i < size; i += pattern_size)
        memcpy(dst + i, pattern, size - i < pattern_size ? size - i : pattern_size);
}

static void *queue_main(void *arg) {
    zp_bqueue *q = arg;
    pthread_mutex_lock(&q->lock);
    for (;;) {
        while (!q->head && !q->stop) pthread_cond_wait(&q->cv, &q->lock);
        if (!q->head) break;
        hcmd *c = q->head;
        q->head = c->next;
        if (!q->head) q->tail = NULL;
        q->busy = 1;
        pthread_mutex_unlock(&q->lock);

        pthread_mutex_lock(&tok_lock);
        for (uint32_t i = 0; i < c->num_waits; i++)
            while (c->waits[i]->done < 2) pthread_cond_wait(&tok_cv, &tok_lock);
        pthread_mutex_unlock(&tok_lock);
        uint64_t start = mono_ns();
        ze_result_t r = ZE_RESULT_SUCCESS;
        switch (c->type) {
        case CMD_LAUNCH: r = run_job(&c->launch); break;
        case CMD_COPY: memmove(c->dst, c->src, c->size); break;
        case CMD_FILL: fill_bytes(c->dst, c->pattern, c->pattern_size, c->size); break;
        case CMD_TASK: c->fn(c->data); break;
        default: break;
        }
        c->done->start = start;
        c->done->end = mono_ns();
        token_complete(c->done);
        host_token_release(c->done);
        cmd_free(q, c);

        pthread_mutex_lock(&q->lock);
        if (r != ZE_RESULT_SUCCESS && q->error == ZE_RESULT_SUCCESS) q->error = r;
        q->busy = 0;
        pthread_cond_broadcast(&q->cv);
    }
    pthread_mutex_unlock(&q->lock);
    return NULL;
}

static ze_result_t host_queue_create(zp_bdev *dev, bool profiling, zp_bqueue **out) {
    (void)dev;
    (void)profiling; /* command times cost two clock reads: always recorded */
    zp_bqueue *q = calloc(1, sizeof *q);
    if (!q) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->cv, NULL);
    if (pthread_create(&q->thread, NULL, queue_main, q) != 0) {
        pthread_mutex_destroy(&q->lock);
        pthread_cond_destroy(&q->cv);
        free(q);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    *out = q;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t host_queue_finish(zp_bqueue *q) {
    pthread_mutex_lock(&q->lock);
    while (q->head || q->busy) pthread_cond_wait(&q->cv, &q->lock);
    ze_result_t r = q->error;
    q->error = ZE_RESULT_SUCCESS;
    pthread_mutex_unlock(&q->lock);
    return r;
}

static void host_queue_destroy(zp_bqueue *q) {
    if (!q) return;
    pthread_mutex_lock(&q->lock);
    while (q->head || q->busy) pthread_cond_wait(&q->cv, &q->lock);
    q->stop = 1;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->lock);
    pthread_join(q->thread, NULL);
    while (q->free_cmds) {
        hcmd *next = q->free_cmds->next;
        cmd_destroy(q->free_cmds);
        q->free_cmds = next;
    }
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->cv);
    free(q);
}

/* A new command with its waits retained and its completion token; NULL when out of memory. */
static hcmd *cmd_new(zp_bqueue *q, int type, uint32_t num_waits, zp_btoken *const *waits) {
    pthread_mutex_lock(&q->lock);
    hcmd *c = q->free_cmds;
    if (c) {
        q->free_cmds = c->next;
        q->free_count--;
    }
    pthread_mutex_unlock(&q->lock);
    if (!c && !(c = calloc(1, sizeof *c))) return NULL;
    /* A kept command keeps its buffers; everything else starts from zero. */
    zp_btoken **wbuf = c->waits;
    uint32_t wcap = c->waits_cap;
    uint8_t *vbuf = c->launch.values;
    size_t vcap = c->values_cap;
    memset(c, 0, sizeof *c);
    c->waits = wbuf;
    c->waits_cap = wcap;
    c->launch.values = vbuf;
    c->values_cap = vcap;
    c->type = type;
    if (num_waits > c->waits_cap) {
        zp_btoken **w = realloc(c->waits, num_waits * sizeof *w);
        if (!w) {
            cmd_destroy(c);
            return NULL;
        }
        c->waits = w;
        c->waits_cap = num_waits;
    }
    c->done = token_new();
    if (!c->done) {
        cmd_destroy(c);
        return NULL;
    }
    for (uint32_t i = 0; i < num_waits; i++) {
        host_token_retain(waits[i]);
        c->waits[c->num_waits++] = waits[i];
    }
    return c;
}

static void cmd_submit(zp_bqueue *q, hcmd *c, zp_btoken **done) {
    if (done) {
        host_token_retain(c->done);
        *done = c->done;
    }
    pthread_mutex_lock(&q->lock);
    if (q->tail)
        q->tail->next = c;
    else
        q->head = c;
    q->tail = c;
    pthread_cond_signal(&q->cv);
    pthread_mutex_unlock(&q->lock);
}

static ze_result_t host_launch(zp_bqueue *q, zp_bkern *k, const zp_ndrange *r, uint32_t num_waits,
                               zp_btoken *const *waits, zp_btoken **done) {
    size_t items = 1;
    for (int d = 0; d < 3; d++) {
        if (r->local[d] == 0 || r->global[d] % r->local[d] != 0) return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
        items *= r->local[d];
    }
    if (items > HOST_MAX_GROUP) return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
    size_t local_total = 0;
    for (uint32_t i = 0; i < k->num_args; i++)
        if (k->refl->args[i].kind == KRT_ARG_LOCAL_POINTER) {
            size_t n;
            memcpy(&n, k->values + k->off[i], sizeof n);
            local_total += (n + 63) & ~(size_t)63;
        }
    hcmd *c = cmd_new(q, CMD_LAUNCH, num_waits, waits);
    if (!c) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    if (k->values_size > c->values_cap) {
        uint8_t *v = realloc(c->launch.values, k->values_size);
        if (!v) {
            host_token_release(c->done);
            cmd_free(q, c);
            return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
        c->launch.values = v;
        c->values_cap = k->values_size;
    }
    memcpy(c->launch.values, k->values, k->values_size);
    c->launch.kern = k;
    c->launch.range = *r;
    c->launch.local_total = local_total;
    c->launch.group_items = items;
    c->launch.total_groups = 1;
    for (int d = 0; d < 3; d++) {
        c->launch.num_groups[d] = r->global[d] / r->local[d];
        c->launch.total_groups *= c->launch.num_groups[d];
    }
    atomic_init(&c->launch.next, 0);
    cmd_submit(q, c, done);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t host_copy(zp_bqueue *q, void *dst, const void *src, size_t size, uint32_t num_waits,
                             zp_btoken *const *waits, zp_btoken **done) {
    hcmd *c = cmd_new(q, CMD_COPY, num_waits, waits);
    if (!c) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    c->dst = dst;
    c->src = src;
    c->size = size;
    cmd_submit(q, c, done);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t host_fill(zp_bqueue *q, void *dst, const void *pattern, size_t pattern_size, size_t size,
                             uint32_t num_waits, zp_btoken *const *waits, zp_btoken **done) {
    if (pattern_size == 0 || pattern_size > sizeof ((hcmd *)0)->pattern) return ZE_RESULT_ERROR_INVALID_SIZE;
    hcmd *c = cmd_new(q, CMD_FILL, num_waits, waits);
    if (!c) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    c->dst = dst;
    c->size = size;
    c->pattern_size = pattern_size;
    memcpy(c->pattern, pattern, pattern_size);
    cmd_submit(q, c, done);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t host_barrier(zp_bqueue *q, uint32_t num_waits, zp_btoken *const *waits, zp_btoken **done) {
    hcmd *c = cmd_new(q, CMD_BARRIER, num_waits, waits);
    if (!c) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    cmd_submit(q, c, done);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t host_host_task(zp_bqueue *q, void (*fn)(void *data), void *data, uint32_t num_waits,
                                  zp_btoken *const *waits, zp_btoken **done) {
    hcmd *c = cmd_new(q, CMD_TASK, num_waits, waits);
    if (!c) {
        free(data);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    c->fn = fn;
    c->data = data;
    cmd_submit(q, c, done);
    return ZE_RESULT_SUCCESS;
}

/* ---- device and memory ------------------------------------------------------------------------------ */

static ze_result_t host_init(void) {
    host_dev.threads = cores();
    return ZE_RESULT_SUCCESS;
}

static uint32_t host_device_count(void) { return 1; }

static zp_bdev *host_device(uint32_t index) { return index == 0 ? &host_dev : NULL; }

/* The first core's clock as /proc/cpuinfo gives it ("cpu MHz"), 0 where it does not. */
static uint32_t clock_mhz(void) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return 0;
    char line[256];
    double mhz = 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "cpu MHz", 7) == 0) {
            const char *colon = strchr(line, ':');
            if (colon) mhz = strtod(colon + 1, NULL);
            break;
        }
    fclose(f);
    return mhz > 0 && mhz < 1e6 ? (uint32_t)mhz : 0;
}

static void host_device_info(zp_bdev *dev, zp_device_info *info) {
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "krt host (%u threads)", dev->threads);
    info->vendor_id = 0;
    info->compute_units = dev->threads;
    info->clock_mhz = clock_mhz();
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    info->global_mem = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : (uint64_t)1 << 32;
    info->max_alloc = info->global_mem / 2;
    info->local_mem = HOST_LOCAL_MEM;
    info->max_group_total = HOST_MAX_GROUP;
    for (int i = 0; i < 3; i++) info->max_group[i] = HOST_MAX_GROUP;
    info->max_args_size = 4096;
    long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    info->cache_size = l3 > 0 ? (uint64_t)l3 : 0;
    info->cacheline = 64;
    info->fp16 = false;
    info->fp64 = true;
    info->int64_atomics = true;
    info->profiling = true;
}

static void host_timestamps(zp_bdev *dev, uint64_t *host_ns, uint64_t *device_ns) {
    (void)dev;
    *host_ns = *device_ns = mono_ns();
}

static void *host_mem_alloc(size_t size, size_t alignment, void **raw) {
    if (alignment < 64) alignment = 64;
    void *p = NULL;
    if (posix_memalign(&p, alignment, size ? size : 1) != 0) return NULL;
    *raw = p;
    return p;
}

static void host_mem_free(void *raw) { free(raw); }

const zp_backend_ops zp_host_backend = {
    .name = "host",
    .init = host_init,
    .device_count = host_device_count,
    .device = host_device,
    .device_info = host_device_info,
    .timestamps = host_timestamps,
    .mem_alloc = host_mem_alloc,
    .mem_free = host_mem_free,
    .module_build = host_module_build,
    .module_destroy = host_module_destroy,
    .module_meta_free = host_module_meta_free,
    .kernel_create = host_kernel_create,
    .kernel_destroy = host_kernel_destroy,
    .kernel_set_arg = host_kernel_set_arg,
    .queue_create = host_queue_create,
    .queue_destroy = host_queue_destroy,
    .queue_finish = host_queue_finish,
    .launch = host_launch,
    .copy = host_copy,
    .fill = host_fill,
    .barrier = host_barrier,
    .host_task = host_host_task,
    .token_retain = host_token_retain,
    .token_release = host_token_release,
    .token_on_complete = host_token_on_complete,
    .token_times = host_token_times,
};
