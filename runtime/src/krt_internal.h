/*
 * krt_internal.h: the objects behind krt's opaque handles and the functions the runtime's files share.
 * Private to runtime/src; nothing here is part of the contract in krt.h.
 */
#ifndef KRT_INTERNAL_H
#define KRT_INTERNAL_H

#include "krt.h"

#include <level_zero/ze_api.h>
#include <level_zero/ze_ddi.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>

/* The loader headers of API 1.4 lack the max-group-size extension; the layout is the one the extension
 * specification fixes, so a driver that implements it fills this struct. */
#ifndef ZE_STRUCTURE_TYPE_KERNEL_MAX_GROUP_SIZE_EXT_PROPERTIES
#define ZE_STRUCTURE_TYPE_KERNEL_MAX_GROUP_SIZE_EXT_PROPERTIES ((ze_structure_type_t)0x10013)
typedef struct krt__ze_kernel_max_group_size_properties_ext {
    ze_structure_type_t stype;
    void *pNext;
    uint32_t maxGroupSize;
} ze_kernel_max_group_size_properties_ext_t;
#endif
#define KRT__EXT_MAX_GROUP_SIZE "ZE_extension_kernel_max_group_size_properties"
/* krt's drivers' extension for exact launches (ZE_krt_exact_range, driver/include/ze_krt_exact_range.h): the
 * argument one past a kernel's last is its true range, 3 x uint64_t. */
#define KRT__EXT_EXACT_RANGE "ZE_krt_exact_range"

#define KRT__UNUSED(x) ((void)(x))

/* ---- result.c: messages and translation ------------------------------------------------------------ */

/* Records a formatted message for krt_last_error_message() and returns code, so that a failing path reads
 * `return krt__fail(KRT_ERROR_..., "...", ...);`. */
krt_result krt__fail(krt_result code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The one translation of a Level Zero result; records "<what>: <ze name>" as the message on failure. */
krt_result krt__ze(ze_result_t zr, const char *what);
krt_result krt__from_ze(ze_result_t zr);
const char *krt__ze_name(ze_result_t zr);

/* ---- log.c ----------------------------------------------------------------------------------------- */

typedef struct krt__log {
    krt_logger logger; /* func NULL: nothing is produced */
} krt__log;

void krt__log_init(krt__log *log, const krt_logger *user);
void krt__logf(const krt__log *log, krt_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline bool krt__log_enabled(const krt__log *log, krt_log_level level)
{
    return log->logger.func != NULL && level <= log->logger.max_level;
}
/* 1 when the environment variable is exactly "1" (the loader's convention). */
int krt__env_flag(const char *name);

/* The warnings of one module load, kept for krt_module_info_get. */
typedef struct krt__warnings {
    char **lines;
    uint32_t count;
} krt__warnings;
/* Logs the line at KRT_LOG_WARNING and, when warnings is not NULL, keeps a copy (dropped if out of memory:
 * a warning never fails a load). */
void krt__warn(const krt__log *log, krt__warnings *warnings, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void krt__warnings_free(krt__warnings *warnings);

/* ---- arena.c: scoped arena for pNext chains ------------------------------------------------------- */

typedef struct krt__arena {
    unsigned char *base;
    size_t cap, used;
} krt__arena;

void krt__arena_init(krt__arena *arena, void *buffer, size_t size);
/* Zeroed, aligned memory from the arena, or NULL when the arena's buffer is exhausted. */
void *krt__arena_alloc(krt__arena *arena, size_t size, size_t align);
void krt__arena_release(krt__arena *arena);

/* ---- driver_cache.c: per-driver extension list, per-device properties --------------------------- */

typedef struct krt__driver_entry {
    ze_driver_handle_t driver;
    uint32_t num_extensions;
    ze_driver_extension_properties_t *extensions;
    const char **names; /* points into extensions[].name */
    int has_max_group_size_ext;
    int has_exact_range_ext;
    int has_native_queue_ext; /* ZE_krt_native_queue (ze_cuda): krt_queue_native */
    int has_build_log_ext;    /* ZE_krt_build_log (krt's drivers): a failed build's log with several drivers loaded */
    int has_private_memory_ext; /* ZE_krt_private_memory (krt's drivers): a kernel's private memory and its limit */
    int has_bounds_check_ext; /* ZE_krt_bounds_check (ze_pocl, ze_cuda): checked launches, checks.c */
    struct krt__driver_entry *next;
} krt__driver_entry;

typedef struct krt__device_entry {
    ze_device_handle_t device;
    ze_device_properties_t props;
    ze_device_compute_properties_t compute;
    ze_device_module_properties_t module;
    uint64_t memory_bytes;
    uint32_t compute_ordinal;
    struct krt__device_entry *next;
} krt__device_entry;

/* Both return the memoized entry, querying the driver the first time a handle is seen. */
krt_result krt__driver_entry_get(ze_driver_handle_t driver, krt__driver_entry **out);
krt_result krt__device_entry_get(ze_device_handle_t device, krt__device_entry **out);
/* Forgets every entry: called when krt initialises afresh (no live context). */
void krt__driver_cache_clear(void);
/* The uncached query that KRT_CONTEXT_FLAG_NO_MEMO performs on every launch: the two-call pattern with a
 * heap array, as a runtime without the cache does. Returns whether the max-group-size extension is there. */
krt_result krt__driver_query_max_group_ext(ze_driver_handle_t driver, int *has_ext);
/* Fills a krt_device_info from the cached properties. */
void krt__device_info_fill(const krt__driver_entry *drv, const krt__device_entry *dev, uint32_t driver_index,
                           uint32_t device_index, krt_device_info *out);

/* ---- context.c ------------------------------------------------------------------------------------- */

typedef struct krt__alloc_set {
    void **slots; /* open addressing; NULL = empty, KRT__TOMBSTONE = deleted */
    size_t cap, count, used;
} krt__alloc_set;

/* The address ranges of a context's allocations, sorted by base, so that a copy or fill can be checked
 * against the allocation it falls in (a binary search) without asking the driver. */
typedef struct krt__alloc_range {
    uintptr_t base;
    size_t size;
    krt_memory_kind kind;
} krt__alloc_range;

/* The Level Zero context that contexts created with krt_context_desc.share have in common (one per context that
 * shares none). lock guards the member list; staging_lock the staged copies between its devices (memory.c), the
 * members' staging memory and internal queues. Order: staging_lock, then lock, then a member's ctx->lock, never
 * the other way round. A copy's lookup of the members' allocations takes lock alone, so that a host task holding
 * it up cannot wait on a staged copy. */
typedef struct krt__share {
    pthread_mutex_t lock;
    pthread_mutex_t staging_lock;
    ze_context_handle_t ze;
    const ze_dditable_t *ddi;
    ze_driver_handle_t driver;
    uint32_t refs;           /* contexts holding it, guarded by lock */
    atomic_int shared;       /* a second context has joined: event pools are made for every device */
    struct krt_context *members; /* linked through ctx->share_next */
} krt__share;

typedef struct krt__event_pool {
    ze_event_pool_handle_t pool;
    uint32_t timestamp;
    uint64_t used; /* bit mask of the 64 slots */
    struct krt__event_pool *next;
} krt__event_pool;

/* wisdom.c: one measured configuration (see wisdom.c for the file format). */
typedef struct krt__wisdom_entry {
    char *device;            /* device name */
    uint32_t driver_version;
    uint64_t module_hash;    /* krt__module_hash */
    char *kernel;
    uint32_t dims;
    uint32_t cls[3];         /* range class: each dimension rounded up to a power of two; 1 beyond dims */
    uint32_t group[3];
    double ns;               /* measured wall time per launch */
} krt__wisdom_entry;

typedef struct krt__wisdom_set {
    krt__wisdom_entry *entries;
    uint32_t count, cap;
} krt__wisdom_set;

struct krt_context {
    ze_driver_handle_t driver;
    ze_device_handle_t device;
    ze_context_handle_t ze;
    krt__driver_entry *drv;
    krt__device_entry *dev;
    krt_device_info info;
    size_t spill_budget;
    uint32_t min_groups;
    int min_groups_default; /* the caller left min_groups 0: on a CPU device, no small-range split */
    uint32_t flags;
    krt__log log;
    int trace;

    /* Guards the lists below, the allocation set, the event pools and the built-in module. */
    pthread_mutex_t lock;
    krt_queue *queues;       /* every queue, the default one included */
    krt_queue *default_queue;
    krt_module *modules;
    krt_event *events;
    krt__event_pool *pools;
    krt__alloc_set allocs;
    krt__alloc_range *ranges; /* sorted by base; num_ranges == allocs.count */
    size_t num_ranges, cap_ranges;
    /* Bumped by every krt_free, so that a launch revalidates pointer arguments it had checked before. */
    atomic_uint_fast64_t free_generation;

    krt_module *builtin;     /* the embedded fill kernels, built on first use */
    struct krt_recording *recordings; /* ended recordings not yet destroyed (record.c) */

    /* Wisdom (wisdom.c): guarded by wisdom_lock, taken after a kernel's lock and never before it. The
     * generation grows with every change, so a kernel drops configurations memoized before it. */
    pthread_mutex_t wisdom_lock;
    krt__wisdom_set wisdom;
    atomic_uint_fast64_t wisdom_generation;
    char *wisdom_path;       /* KRT_WISDOM: loaded at creation, saved at destroy */

    /* The entry points this context calls (ze_dispatch.c): the loader's, or the in-process host driver's. */
    const ze_dditable_t *ddi;
    int host;                /* the host device (KRT_DEVICE_TYPE_HOST) */

    /* Several devices (krt_context_desc.share): the Level Zero context ze belongs to, shared or not, and this
     * context's place in its member list (share->lock). Guarded by share->staging_lock: the staging memory of
     * copies between devices that cannot reach each other and the internal queue that runs the part of such a copy
     * on this device. */
    krt__share *share;
    struct krt_context *share_next;
    size_t staging_bytes;
    void *staging;
    krt_queue *peer_queue;

    /* Faults (fault.c): 1 once a call saw the device lost; from then on every call that would make the device work
     * answers KRT_ERROR_DEVICE_LOST with lost_message, which the first one wrote (under lost_lock, before the release
     * store of lost) and nothing changes after. */
    atomic_int lost;
    pthread_mutex_t lost_lock;
    char lost_message[1536];
    /* Checked launches (checks.c): the bounds table and the ring of recent checked launches; NULL unchecked. */
    struct krt__checks *checks;
};

/* driver_cache.c: whether ctx's device reaches peer's device memory (zeDeviceCanAccessPeer; 1 for the same
 * device). */
int krt__device_reaches(krt_context *ctx, ze_device_handle_t peer);

/* ---- checks.c -------------------------------------------------------------------------------------- */

/* Bytes krt_alloc adds after each allocation of a checked context on the host device (memory.c). */
#define KRT__HOST_CHECK_GAP 64u

typedef struct krt__checks krt__checks;
/* KRT_CHECK as a krt_check; KRT_ERROR_INVALID_ARGUMENT for a value it does not take. */
krt_result krt__checks_parse_env(uint32_t *checks);
/* The bounds table of a checked context; KRT_ERROR_UNSUPPORTED_FEATURE where the device cannot check. */
krt_result krt__checks_init(krt_context *ctx);
void krt__checks_fini(krt_context *ctx);
/* The table's device address for ZE_krt_bounds_check; 0 for an unchecked context. */
uint64_t krt__checks_table(const krt_context *ctx);
/* Points the table at the context's allocations as they now are; idle: every queue of the context is idle, so the
 * arrays retired so far may be freed. Caller holds ctx->lock. */
krt_result krt__checks_update_locked(krt_context *ctx, int idle);
/* The number of the next update, before a wait on every queue (caller holds ctx->lock); after it, krt__checks_idle
 * frees the arrays retired before that update, which no kernel still running can read. */
uint64_t krt__checks_mark_locked(krt_context *ctx);
void krt__checks_idle(krt_context *ctx, uint64_t mark);
/* Notes a checked launch just appended, for the report of a fault. */
void krt__checks_note(krt_kernel *k, const krt_launch_desc *d);
/* After a wait: KRT_ERROR_OUT_OF_BOUNDS with the message when a checked kernel's access was refused (and the record
 * reset), else KRT_SUCCESS. */
krt_result krt__checks_report(krt_context *ctx);
uint32_t krt__checks_name_hash(const char *name);

/* ---- memory.c -------------------------------------------------------------------------------------- */

/* The allocation of ctx that addr falls in: 1 with its base and size, else 0. */
int krt__alloc_find(krt_context *ctx, uintptr_t addr, uintptr_t *base, size_t *size);

void krt__alloc_set_free_all(krt_context *ctx);
/* Whether [ptr, ptr + size) stays inside the krt_alloc allocation ptr falls in; KRT_SUCCESS too when ptr is in
 * none (host memory, or memory krt did not allocate). Else KRT_ERROR_INVALID_ARGUMENT naming the allocation's
 * size; what is "dst" or "src" in the message, call the function's name. */
krt_result krt__alloc_check_range(krt_context *ctx, const char *call, const char *what, const void *ptr,
                                  size_t size, int *found);
/* Whether ptr is an allocation the driver knows (zeMemGetAllocProperties type not UNKNOWN). *dev (may be NULL)
 * gets the device of device memory that ctx's device cannot reach (an allocation of another context of its
 * group), else NULL: the launch refuses such a pointer. */
bool krt__pointer_known(krt_context *ctx, const void *ptr, ze_device_handle_t *unreachable);
/* Frees the staging memory of a context (its destroy; the caller holds ctx->share->staging_lock). */
void krt__staging_free_locked(krt_context *ctx);

/* ---- the reflection (spirv/reflect.h, shared with the host driver) -------------------------------------- */

/* The front end's reflection is in its own types; module.c translates each argument into krt.h's krt_arg_info
 * once, at module creation (krt_module.args), and everything of the runtime reads those. */
#include "../../spirv/reflect.h"

/* ---- validate.c ------------------------------------------------------------------------------------ */

krt_result krt__validate(const krt__log *log, const uint32_t *words, size_t num_words, krt_validation policy);
/* The same, keeping the warnings of an accepted module in *warnings. */
krt_result krt__validate_warn(const krt__log *log, const uint32_t *words, size_t num_words, krt_validation policy,
                              krt__warnings *warnings);

/* ---- module.c / kernel.c --------------------------------------------------------------------------- */

struct krt_module {
    krt_context *ctx;
    ze_module_handle_t ze;
    krt_spv_reflection refl;
    krt_arg_info *args;   /* refl.all_args in krt.h's types, in the same order (module.c) */
    pthread_mutex_t lock; /* guards kernels[] creation */
    krt_kernel **kernels; /* memoized per kernel index, created on first krt_kernel_get */
    int builtin;
    krt_module *next;
    uint64_t spirv_hash;  /* krt__module_hash of the SPIR-V, build options and specialization constants */
    krt__warnings warnings; /* of the load, for krt_module_info_get */
};

/* A kernel argument slot: the value the driver holds for the argument, so that an unchanged value is not set
 * again. Slots live inline in the kernel's single allocation, made at kernel creation. */
typedef struct krt__arg_slot {
    size_t size;         /* bytes last set, 0 = never set */
    int is_set;
    uint64_t generation; /* pointers: free_generation when the pointer was last checked */
    unsigned char *value; /* points into the kernel's storage block, refl size bytes */
} krt__arg_slot;

/* One argument of a kernel's warm-launch record (launch.c): what the last launch that checked and set every
 * argument passed, so that an identical launch can skip the per-argument work. */
enum {
    KRT__WARM_LOCAL = 0, /* a __local argument: value NULL, size compared */
    KRT__WARM_WORD4 = 1, /* a 4-byte by-value argument: its bytes in word */
    KRT__WARM_WORD8 = 2, /* an 8-byte by-value argument (pointers): its bytes in word */
    KRT__WARM_BYTES = 3, /* any other size: compared with the slot's bytes */
};
typedef struct krt__warm_arg {
    size_t size;   /* krt_arg.size as passed */
    uint64_t word; /* the value's bytes for the WORD modes */
    uint32_t mode; /* KRT__WARM_*, fixed at kernel creation by the reflected kind and size */
    krt_arg_type type; /* krt_arg.type as passed: a typed value is checked against the reflected type */
} krt__warm_arg;

typedef struct krt__config_key {
    uint32_t dims;
    uint32_t local_bytes;    /* __local argument bytes per group: part of the key, they bound the group size */
    uint32_t local_per_item; /* __local argument bytes per work-item (KRT_ARG_LOCAL_PER_ITEM): the same */
    uint64_t size[3];
} krt__config_key;

typedef struct krt__config_entry {
    krt__config_key key;
    int used;
    krt_launch_config config;
} krt__config_entry;

struct krt_kernel {
    krt_module *module;
    krt_context *ctx;
    ze_kernel_handle_t ze;
    const krt_spv_kernel *refl;
    const krt_arg_info *args; /* refl->num_args, in the module's args */
    uint32_t index;

    /* Guards everything below and the driver's argument and group-size state of this kernel. */
    pthread_mutex_t lock;
    int props_valid;
    krt_kernel_properties props;
    /* With the properties, from ZE_krt_private_memory (0, 0, 0 without it): a work-item's private bytes unclamped, the
     * most the device gives one, and whether the group shares that (launch_config.c refuses or caps the group). */
    uint64_t private_bytes, private_max;
    int private_per_group;
    uint32_t group_set[3]; /* the group size last given to zeKernelSetGroupSize; 0 = none yet */
    uint64_t exact_set[3]; /* the true range last given to the driver (ZE_krt_exact_range); 0 = none yet */

    /* Memo of launch configurations per (ndrange, local bytes): open addressing, grown on cold lookups. */
    krt__config_entry *configs;
    uint32_t config_cap, config_count;
    krt__config_entry *last_config;
    krt_launch_config unmemoized; /* KRT_CONTEXT_FLAG_NO_MEMO: the configuration of the current launch */
    uint64_t wisdom_generation;   /* the context's wisdom generation the memo was filled under */
    /* The last static group size checked, so that repeating it costs a comparison. */
    int static_valid;
    uint32_t static_group[3];
    krt__config_key static_key;
    krt_launch_config static_config;
    /* krt_kernel_set_any_group: the caller's word that any group is right (read under the lock). */
    int any_group;

    krt__arg_slot *slots; /* refl->num_args, inline after the struct */
    /* The warm-launch record (launch.c), valid after a launch checked and set every argument; dropped before
     * any argument is set again. warm_generation is the free generation its pointers were checked at. */
    int warm_valid;
    uint32_t warm_local_bytes, warm_local_per_item;
    uint64_t warm_generation;
    krt__warm_arg *warm; /* refl->num_args, inline after the slots */
};

krt_result krt__kernel_create(krt_module *module, uint32_t index, krt_kernel **out);
void krt__kernel_destroy(krt_kernel *kernel);
/* The memoized kernel properties (queried through the pNext chain on first use). Caller holds kernel->lock. */
krt_result krt__kernel_properties_locked(krt_kernel *kernel, krt_kernel_properties **out);
/* The uncached query; KRT_CONTEXT_FLAG_NO_MEMO uses it on every launch. */
krt_result krt__kernel_query_properties(krt_kernel *kernel, int has_max_ext, krt_kernel_properties *out);

/* kernel.c: KRT_ERROR_KERNEL_NOT_FOUND with a message listing the module's kernels; a krt_kernel_info from the
 * reflected signature. */
krt_result krt__kernel_not_found(const krt_module *module, const char *name);
void krt__kernel_info_fill(const krt_spv_kernel *kr, krt_kernel_info *out);
/* Whether the kernel's result may depend on its group size by its reflection alone: kernel-scope __local memory
 * across barriers, neither reqd_work_group_size nor KRT_ANY_GROUP (krt_kernel_info.group_dependent). */
int krt__group_dependent(const krt_spv_kernel *kr);
krt_result krt__module_create_builtin(krt_context *ctx, krt_module **out);

/* The arguments of a module's kernel in krt.h's types: where its reflection's arguments are in refl.all_args. */
static inline const krt_arg_info *krt__module_args(const krt_module *m, const krt_spv_kernel *kr)
{
    return m->args + (kr->args - m->refl.all_args);
}

/* ---- file.c -------------------------------------------------------------------------------------------- */
/* Reads a whole .spv file into malloc'd words (KRT_ERROR_IO naming the path on failure). */
krt_result krt__read_module_file(const char *path, uint32_t **words, size_t *size);

/* ---- compile.c ----------------------------------------------------------------------------------------- */
/* OpenCL C (source text, or the file at path when source is NULL) to SPIR-V through krt-cc; options are split
 * at white space and passed on. *words is malloc'd. KRT_ERROR_UNSUPPORTED_FEATURE when krt-cc or a tool it
 * runs is missing (the message names it); KRT_ERROR_MODULE_BUILD_FAILURE with the compiler's diagnostic. */
krt_result krt__compile_opencl(const char *source, const char *path, const char *options, uint32_t **words,
                               size_t *size);
/* The same OpenCL C as the host device's native library (krt-cc --host, and --checks when checked), written to lib
 * inside a new temporary directory dir; the caller removes both with krt__compile_remove(dir) once the library is
 * loaded. */
krt_result krt__compile_opencl_host(const char *source, const char *path, const char *options, int checked, char *dir,
                                    size_t dir_size, char *lib, size_t lib_size);
void krt__compile_remove(const char *dir);
void krt__module_destroy_locked(krt_module *module);

/* ---- launch_config.c ------------------------------------------------------------------------------- */

/* Everything the choice depends on, so that the rule is a pure function (and testable as one). */
typedef struct krt__config_input {
    uint32_t dims;
    uint64_t size[3];
    uint32_t local_bytes;    /* __local argument bytes per group */
    uint32_t local_per_item; /* __local argument bytes per work-item of the group */
    /* device */
    uint32_t dev_max_total, dev_max[3], dev_max_count[3], dev_max_slm;
    /* kernel */
    uint32_t required[3];
    uint32_t hint[3]; /* work_group_size_hint, or 0,0,0 */
    uint32_t kernel_max;
    int kernel_max_from_ext;
    uint32_t preferred_multiple;
    uint32_t local_mem_size;
    uint32_t spill_mem_size;
    /* context */
    size_t spill_budget;
    uint32_t min_groups;
    /* what the rule reads of the kernel and device (docs/design.md, "The launch configuration") */
    int device_cpu;        /* the device type is CPU */
    int uses_barrier;      /* a work-group barrier in the kernel's call tree */
    int uses_static_local; /* static __local memory (reflected, or the driver's localMemSize > 0) */
    uint32_t tuned[3];     /* a measured group for this range class (krt_kernel_tune, wisdom); 0 = none */
    int no_split;          /* min_groups left to its default on a CPU device: small ranges are not split */
    int inexact;           /* the driver runs no partial group (it lacks ZE_krt_exact_range): groups divide */
} krt__config_input;

/* The spill-aware cap: gs * spill within budget, else the largest power of two that fits (at least 1). */
uint32_t krt__spill_cap(uint32_t group_size, uint32_t spill, size_t budget);
uint32_t krt__prev_pow2(uint64_t x);
/* Normalises dims (0 = highest non-zero) and checks the sizes. */
krt_result krt__ndrange_check(const krt_ndrange *range, uint32_t *dims_out);
krt_result krt__config_compute(const krt__config_input *in, krt_launch_config *out);
krt_result krt__config_static(const krt__config_input *in, const uint32_t group[3], krt_launch_config *out);
/* The memoized lookup of the launch path. Caller holds kernel->lock. */
krt_result krt__config_lookup(krt_kernel *kernel, const krt_ndrange *range, uint32_t local_bytes,
                              uint32_t local_per_item, const krt_launch_config **out);
/* The check of a caller's static group size. Caller holds kernel->lock. */
krt_result krt__config_static_for(krt_kernel *kernel, const krt_ndrange *range, uint32_t local_bytes,
                                  uint32_t local_per_item, const uint32_t group[3], const krt_launch_config **out);

/* ---- wisdom.c ---------------------------------------------------------------------------------------- */

uint64_t krt__module_hash(const void *words, size_t size, const char *build_options,
                          const krt_spec_constant *spec, uint32_t num_spec);
/* The measured group for this kernel and range's class on the context's device, if any (1), else 0. Takes
 * wisdom_lock; the caller may hold the kernel's lock. */
/* Records a tuned group for kernel over ranges of size's class (cls: the class), and bumps the generation so
 * that memos refill. */
krt_result krt__wisdom_record(krt_kernel *kernel, uint32_t dims, const uint64_t size[3], const uint32_t group[3],
                              double ns, uint32_t cls[3]);
int krt__wisdom_find(krt_kernel *kernel, uint32_t dims, const uint64_t size[3], uint32_t group[3]);
/* At context creation (after the device is known) and destruction: the lock, and KRT_WISDOM. */
void krt__wisdom_init(krt_context *ctx);
void krt__wisdom_fini(krt_context *ctx);

/* ---- fault.c: a lost device ----------------------------------------------------------------------------- */

/* The kernels appended to a queue (or recorded) since its last completed wait, for a fault's message: the first
 * KRT__INFLIGHT of them by launch number, each slot tagged with the number it holds (0: empty), written with two
 * relaxed stores on the launch path and read without a lock by fault.c. A module's destroy empties the slots of its
 * kernels. */
#define KRT__INFLIGHT 8
typedef struct krt__inflight {
    _Atomic(const struct krt_kernel *) kernel[KRT__INFLIGHT];
    atomic_uint_fast64_t seq[KRT__INFLIGHT]; /* the launch's number + 1 */
    atomic_uint_fast64_t launches;           /* launches so far (written under the queue's lock) */
    atomic_uint_fast64_t done;               /* launches the last completed wait covered */
} krt__inflight;

/* One more launch of k: kept when it is among the first KRT__INFLIGHT since the last completed wait. The caller holds
 * the lock that orders the appends (the queue's). */
static inline void krt__inflight_push(krt__inflight *f, const struct krt_kernel *k)
{
    uint64_t n = atomic_load_explicit(&f->launches, memory_order_relaxed);
    if (n - atomic_load_explicit(&f->done, memory_order_relaxed) < KRT__INFLIGHT) {
        atomic_store_explicit(&f->kernel[n % KRT__INFLIGHT], k, memory_order_relaxed);
        atomic_store_explicit(&f->seq[n % KRT__INFLIGHT], n + 1, memory_order_relaxed);
    }
    atomic_store_explicit(&f->launches, n + 1, memory_order_relaxed);
}

/* A replay of a recording whose launches `from` recorded: they are in flight on the queue `to` now. */
static inline void krt__inflight_append(krt__inflight *to, krt__inflight *from)
{
    uint64_t n = atomic_load_explicit(&from->launches, memory_order_relaxed);
    for (uint64_t i = 0; i < n; i++) {
        const struct krt_kernel *k = NULL;
        if (i < KRT__INFLIGHT && atomic_load_explicit(&from->seq[i], memory_order_relaxed) == i + 1)
            k = atomic_load_explicit(&from->kernel[i], memory_order_relaxed);
        if (i >= KRT__INFLIGHT) {
            /* Past the ones kept, only counted. */
            atomic_fetch_add_explicit(&to->launches, n - i, memory_order_relaxed);
            break;
        }
        krt__inflight_push(to, k);
    }
}

/* Whether the context's device was lost (a call saw KRT_ERROR_DEVICE_LOST). */
static inline int krt__is_lost(krt_context *ctx)
{
    return atomic_load_explicit(&ctx->lost, memory_order_acquire);
}
/* The first call to see the device lost writes the context's message: the device, the call, and the kernels in flight
 * on q, the queue whose append or wait saw it, then on the other queues (every queue of the context when q is NULL: the
 * caller must not hold ctx->lock then; with q, ctx->lock is only tried for a while, so the queue's host-task thread,
 * which the destroy joins under that lock, may call it). Every call returns KRT_ERROR_DEVICE_LOST with that message. */
krt_result krt__lost(krt_context *ctx, struct krt_queue *q, const char *what);
/* KRT_ERROR_DEVICE_LOST with the message of the context's loss (krt__is_lost holds). */
krt_result krt__lost_again(krt_context *ctx);
/* krt__ze, with a DEVICE_LOST result made the context's loss (krt__lost). */
krt_result krt__ze_ctx(krt_context *ctx, struct krt_queue *q, ze_result_t zr, const char *what);
/* A module is going: its kernels leave every queue's and recording's record. Caller holds ctx->lock. */
void krt__inflight_forget_module(krt_context *ctx, const struct krt_module *module);

/* ---- queue.c / event.c ----------------------------------------------------------------------------- */

struct krt_queue {
    krt_context *ctx;
    ze_command_list_handle_t list;
    pthread_mutex_t lock;      /* order of appends */
    pthread_mutex_t sync_lock; /* one synchronize at a time uses sync_event */
    krt_event *sync_event;
    /* Commands appended so far, the sync barriers included (guarded by lock). Every append to list must bump
     * it: a wait after a timed-out one relies on it to know whether the barrier left behind covers them. */
    uint64_t appended;
    /* Guarded by sync_lock: a timed-out wait left its barrier, which will signal sync_event (sync_pending),
     * and the append count that barrier covers (pending_mark). */
    int sync_pending;
    uint64_t pending_mark;
    int is_default;
    void *native;              /* the backend's queue (ZE_krt_native_queue, ze_cuda's CUstream), else NULL */
    /* Guarded by ctx->lock: krt_context_synchronize calls waiting on the queue without the lock (sync_refs), and
     * whether krt_queue_destroy has unlinked it meanwhile (unlinked): the last of those waits frees it. */
    uint32_t sync_refs;
    int unlinked;
    krt_queue *next;
    /* host_task.c: the queue's host-task thread and its two events, made at its first krt_host_task. */
    _Atomic(struct krt__host_worker *) host;
    /* record.c. While the queue records (rec not NULL, guarded by lock), appends go to rec->list instead of list:
     * every append site takes its list from krt__queue_target. */
    struct krt_recording *rec;
    /* What replays on this queue use, made at its first krt_replay (under record.c's create lock, published
     * with replay_ready): a command queue, the lists before and after a recording, and the two events that
     * order them against list. */
    ze_command_queue_handle_t cq;
    ze_command_list_handle_t pro, epi;
    krt_event *rin, *rout;
    atomic_int replay_ready;
    /* fault.c: the kernels launched since the last completed wait (pushed under lock); sync_launches is the launch
     * count the barrier of the pending wait covers (sync_lock). */
    krt__inflight inflight;
    uint64_t sync_launches;
};

struct krt_event {
    krt_context *ctx;
    ze_event_handle_t ze;
    krt__event_pool *pool;
    uint32_t slot;
    uint32_t flags;
    int internal;
    krt_event *next;
};

krt_result krt__queue_create(krt_context *ctx, const krt_queue_desc *desc, int is_default, krt_queue **out);
void krt__queue_destroy_locked(krt_queue *queue);
krt_result krt__queue_sync(krt_queue *queue);
/* krt__queue_sync with a timeout (UINT64_MAX: none): KRT_TIMEOUT when the queue is not done by then. */
krt_result krt__queue_sync_until(krt_queue *queue, uint64_t timeout_ns);
/* Whether nothing was appended to the queue after the barrier of its last completed wait (a host task may append
 * while its queue is waited for); *appended (may be NULL) gets the append count. */
int krt__queue_idle(krt_queue *queue, uint64_t *appended);
krt_result krt__event_create(krt_context *ctx, uint32_t flags, int internal, krt_event **out);
void krt__event_destroy_locked(krt_event *event);
void krt__event_pools_destroy(krt_context *ctx);
/* The checks a command's wait list and signal event get (fn names the call in the message): every wait event
 * non-NULL and of ctx, the signal (may be NULL) of ctx. */
krt_result krt__events_check(krt_context *ctx, const char *fn, krt_event *const *wait, uint32_t num_wait,
                             const krt_event *signal);
/* The wait events' driver handles: in stack (16 entries) when they fit, else in *out malloc'd (free it when
 * *out != stack). */
krt_result krt__event_handles(krt_event *const *wait, uint32_t num_wait, ze_event_handle_t *stack,
                              ze_event_handle_t **out);

/* ---- record.c: recorded launches ----------------------------------------------------------------------- */

/* A host task of a recording: its own pair of events, so that replays of the recording can hand its fn to the
 * replaying queue's host-task thread (host_task.c). */
typedef struct krt__rec_task {
    krt_host_fn fn;
    void *data;
    krt_event *signal;
    krt_event *start, *done;
} krt__rec_task;

struct krt_recording {
    krt_context *ctx;
    ze_command_list_handle_t list; /* regular: open while recording, closed after krt_recording_end */
    krt_recording_info info;       /* counts, guarded by the recording queue's lock while recording */
    atomic_uint_fast64_t replays;
    krt__rec_task *tasks;
    uint32_t num_tasks, cap_tasks;
    int broken;                    /* an append left part of a command in the list: krt_recording_end refuses it */
    /* The queues that have replayed it (their command queues hold its replays): krt_recording_destroy waits for
     * them. A queue destroyed first takes itself out, under ctx->lock then qlock. */
    pthread_mutex_t qlock;
    krt_queue **queues;
    uint32_t num_queues, cap_queues;
    krt_recording *next;           /* ctx->recordings, under ctx->lock, once ended */
    /* fault.c: its first launches, which each replay adds to the replaying queue's record (krt__inflight). */
    krt__inflight inflight;
};

enum { KRT__REC_LAUNCH, KRT__REC_COPY, KRT__REC_FILL, KRT__REC_HOST_TASK, KRT__REC_BARRIER };

/* The list an append goes to: the recording's while the queue records. Caller holds q->lock. */
static inline ze_command_list_handle_t krt__queue_target(krt_queue *q)
{
    return q->rec ? q->rec->list : q->list;
}
/* Counts a recorded command (nothing when the queue is not recording). Caller holds q->lock. Inline, so that the
 * append sites (launch.c, memory.c, fill.c, host_task.c) do not call into record.c, which calls host_task.c. */
static inline void krt__queue_count(krt_queue *q, int kind)
{
    krt_recording *rec = q->rec;
    if (!rec)
        return;
    rec->info.num_commands++;
    if (kind == KRT__REC_LAUNCH)
        rec->info.num_launches++;
    else if (kind == KRT__REC_COPY)
        rec->info.num_copies++;
    else if (kind == KRT__REC_FILL)
        rec->info.num_fills++;
    else if (kind == KRT__REC_BARRIER)
        rec->info.num_barriers++;
    else
        rec->info.num_host_tasks++;
}
/* Frees a recording's list, events and memory; the caller has waited for its replays and holds ctx->lock. */
void krt__recording_free_locked(krt_recording *rec);
/* Frees what replays on the queue made (krt__queue_destroy_locked; the queue has been waited for). */
void krt__queue_replay_fini_locked(krt_queue *q);
/* krt__queue_sync_until without the recording check: waits for the queue's commands from before a begin too. */
krt_result krt__queue_sync_live(krt_queue *q, uint64_t timeout_ns);

/* ---- host_task.c ----------------------------------------------------------------------------------- */

/* The queue's host-task thread, started if it has none. */
krt_result krt__host_worker_get(krt_queue *q, struct krt__host_worker **out);
/* Room for n items on the thread's ring (before a replay appends anything), then the replay's host tasks in order
 * (after; it cannot fail). Caller holds q->lock for both. */
krt_result krt__host_replay_reserve(struct krt__host_worker *w, uint32_t n);
void krt__host_replay_push(struct krt__host_worker *w, const krt__rec_task *tasks, uint32_t n);

/* The queue whose host task the calling thread is running, else NULL: a wait for that queue (or its context)
 * from inside the task could never end. */
krt_queue *krt__host_task_current(void);
/* Stops and joins the queue's host-task thread, if it has one, and frees its events. The caller holds
 * ctx->lock and has waited for the queue. */
void krt__host_worker_destroy_locked(krt_queue *queue);

/* ---- launch.c -------------------------------------------------------------------------------------- */

/* The launch path shared by krt_launch and the built-in fill. */
krt_result krt__launch(krt_kernel *kernel, const krt_launch_desc *desc);

/* ---- the embedded built-in kernels (builtin_kernels.S) ---------------------------------------------- */

extern const unsigned char krt__builtin_spv[];
extern const unsigned char krt__builtin_spv_end[];

/* ---- ze_dispatch.c: the Level Zero entry points of a context ------------------------------------------- */

/* KRT__ZE(ctx->ddi, Kernel, Create)(...) calls zeKernelCreate of the context's driver. */
#define KRT__ZE(ddi, table, fn) ((ddi)->table.pfn##fn)
const ze_dditable_t *krt__ze_loader(void);
/* The host driver's table, started on first use; NULL when it could not start. */
const ze_dditable_t *krt__ze_host(void);
/* Why the host driver has no device ("" when it has one, or when it does not say). */
const char *krt__ze_host_no_device_reason(void);
/* The table a driver or device handle belongs to (the host's for the host driver's handles). */
const ze_dditable_t *krt__ddi_of_driver(ze_driver_handle_t driver);
const ze_dditable_t *krt__ddi_of_device(ze_device_handle_t device);
int krt__host_is_driver_handle(ze_driver_handle_t driver);

#endif /* KRT_INTERNAL_H */
