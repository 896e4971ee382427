/* Private to the host device's backend (driver/host/): kernels run natively on this machine's cores.
 *
 * A module is its SPIR-V (read for the object model's metadata with the shared reflection, spirv/reflect.h, so
 * argument kinds and sizes are exactly those of a device) plus a native shared library compiled from the same
 * OpenCL C source (the ABI is kernels/include/krt_host_abi.h; docs/driver.md, "The host device"). A kernel is
 * the library's group runner of the kernel's name, which the pool calls directly with the addresses of the
 * arguments (ABI 4), or in an older library its function and (ABI 3) its runner, each called through libffi with
 * a call interface prepared once per kernel (library.c). A queue is a host thread that runs its
 * commands in order (queue.c), each finishing a completion token (token.c). A launch spreads its work-groups
 * over a pool of one thread per core in chunks (pool.c); the work-items of a group run in turn on the thread
 * that took the group, in the runner's compiled loop (or, for an older library, one call each), or, when the
 * kernel has a work-group barrier in its call tree, each on its own small stack, switching to the next
 * work-item at every barrier (fiber.c). host.c describes the device and holds the backend's table.
 *
 * Calls go one way: host.c -> queue.c -> pool.c -> fiber.c, queue.c -> token.c, and host.c -> library.c.
 * These files are compiled into libkrt with the driver/ object model (host.mk); nothing of them is exported. */
#ifndef ZP_HOST_BE_H
#define ZP_HOST_BE_H

#include <ffi.h>
#include <stdatomic.h>
#include <time.h>

#include "../zp.h"
#include "../../spirv/reflect.h"
#include "../../kernels/include/krt_host_abi.h"

/* Libraries of ABI 1 (no enqueued_local_size), 2 (no group runners) and 3 (runners of the kernel's parameters)
 * still load: they read only the fields they know, the kernels of 1 and 2 are called once per work-item, and
 * the runners of 3 through libffi, which passes pointers and scalars but no half, vector or struct. */
#define HOST_ABI_VERSION KRT_HOST_ABI_VERSION
#define HOST_ABI_OLDEST 1u
/* Work-items per group, per dimension and in all (docs/driver.md says why). */
#define HOST_MAX_GROUP 1024u
/* Groups are handed to the pool's threads in chunks: about this many per thread, at most HOST_MAX_CHUNK groups. */
#define HOST_CHUNKS_PER_THREAD 16u
#define HOST_MAX_CHUNK 256u
/* Bytes of __local memory a group may take through its __local arguments. */
#define HOST_LOCAL_MEM (256u * 1024u)
/* Stack of one work-item on a fiber (fiber.c), with a guard page below it: reserved, not committed (MAP_NORESERVE), so
 * only the pages a work-item touches cost memory. Its private memory must fit (library.c, ZE_krt_private_memory). */
#define HOST_ITEM_STACK (256u * 1024u)

static inline uint64_t host_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct zp_bdev {
    uint32_t threads;
};

/* ---- library.c: modules and kernels ----------------------------------------------------------------------- */

struct zp_bmod {
    void *lib;
    uint32_t abi;      /* the library's krt_host_abi_version() */
    krt_host_item_slot_fn slot;
    krt_spv_reflection refl;
    /* A checked module (ZE_krt_bounds_check, a library of krt-cc --host --checks): its slot, and the checks its
     * launches run under (the table and pool.c's host_check_outside); checks_slot NULL: unchecked. The library's
     * own memory, which its kernels may always reach: its loaded segments, and its thread-local block's size. */
    krt_host_checks_slot_fn checks_slot;
    struct krt_host_checks checks;
    /* A library that tests its accesses against the shadow map (ABI 5, shadow.c): 1; and the bounds table's array
     * the map last took in (host_shadow_sync). */
    int shadow;
    _Atomic uint64_t shadow_seen;
    uintptr_t data_lo, data_hi;
    size_t tls_size;
};

struct zp_bkern {
    zp_bmod *mod;
    void (*fn)(void);
    const krt_spv_kernel *refl;
    /* ABI 4: krt_host_group_NAME, called directly with the arguments' addresses (the runner reads each with its
     * C type, so any argument type passes); NULL for an older library, whose kernel or runner libffi calls. */
    krt_host_group_fn group;
    ffi_cif cif;       /* fn's, for a library without runners (ABI 1 and 2, or one built by hand) */
    ffi_type **types;  /* num_args + 1: the runner's group pointer last */
    void (*runner)(void); /* ABI 3: krt_host_group_NAME, called once per run of groups through runner_cif; else NULL */
    ffi_cif runner_cif;
    uint32_t num_args;
    uint32_t *off;     /* offset of each argument's value in values, aligned for its type (library.c) */
    uint8_t *values;   /* current values: pointers, by-value bytes, and the byte size of __local arguments */
    size_t values_size;
    size_t values_align; /* values' alignment, and that of every snapshot of it (host_job.values) */
    bool local_args;   /* some argument is __local: its pointer differs per pool thread */
    bool barrier;      /* its work-items run on fibers: a barrier kernel without work-item loops (library.c) */
    uint32_t name_hash; /* the low 32 bits of the FNV-1a hash of its name, which a refusal records (ze_krt_bounds.h) */
};

ZP_HIDDEN ze_result_t host_module_build(zp_bdev *dev, const zp_module_src *src, zp_bmod **out,
                                        zp_module_meta *meta, char **log);
ZP_HIDDEN void host_module_destroy(zp_bmod *m);
ZP_HIDDEN void host_module_meta_free(zp_module_meta *meta);
ZP_HIDDEN ze_result_t host_kernel_create(zp_bmod *mod, const char *name, zp_bkern **out, zp_kernel_limits *limits);
ZP_HIDDEN void host_kernel_destroy(zp_bkern *k);
ZP_HIDDEN ze_result_t host_kernel_set_arg(zp_bkern *k, uint32_t index, uint32_t kind, size_t size,
                                          const void *value);

/* ---- pool.c: the thread pool and work-groups ------------------------------------------------------------ */

/* One launch as the pool runs it: a snapshot of the kernel's arguments taken when it was enqueued. */
typedef struct host_job {
    zp_bkern *kern;
    zp_ndrange range;
    uint8_t *values;          /* the argument snapshot, kern->values_size bytes aligned to kern->values_align */
    /* ABI 4: the address of each argument in values, made when the launch is enqueued (or recorded), so that a
     * group of a kernel without __local arguments needs no set-up of its arguments; NULL for older libraries. */
    void **args;
    size_t local_total;       /* bytes of __local arguments per group, each rounded up to 64 */
    size_t num_groups[3];
    size_t total_groups;
    size_t group_items;
    /* Groups are handed out one of two ways (host_run_job, pool.c). With units (at most 64), the groups are cut into
     * that many runs of consecutive groups, units_per_thread of them first offered to each thread, and a thread
     * claims a unit with one bit of claimed; otherwise chunk groups at a time from next. */
    atomic_size_t next;       /* the next group index to hand out */
    size_t chunk;             /* groups handed out at a time */
    atomic_uint_least64_t claimed; /* the units taken */
    uint32_t units, units_per_thread;
    /* Written under the pool's lock; read without it by the submitting thread while it spins (pool.c). */
    atomic_size_t finished;   /* groups done */
    atomic_int failed;        /* a thread could not get its buffers: the launch fails */
    atomic_uint active;       /* threads inside the job */
    struct host_job *next_job;
} host_job;

/* The pool's size: KRT_HOST_THREADS, else one thread per CPU the process may run on; 0 when KRT_HOST_THREADS is not a
 * number from 1 to HOST_MAX_THREADS (pool.c). */
#define HOST_MAX_THREADS 1024
ZP_HIDDEN uint32_t host_pool_threads(void);
/* Runs a launch on the calling thread (a queue's) and the pool (started on the first call), and returns when every
 * group is done: ZE_RESULT_SUCCESS, or ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY when a thread's buffers could not be had.
 * A launch of one chunk runs on the calling thread alone. */
ZP_HIDDEN ze_result_t host_run_job(host_job *j);

/* ---- shadow.c: the shadow map of checked libraries ---- */

/* Reserves the map and installs its SIGSEGV handler, once; NULL, or why it could not be had. */
ZP_HIDDEN const char *host_shadow_start(void);
/* Installs the map's SIGSEGV handler again if a program replaced it, passing other faults on to the new one. */
ZP_HIDDEN void host_shadow_keep_handler(void);
/* Lets the allocations of m's bounds table through the map, when its array changed since m's last launch. */
ZP_HIDDEN void host_shadow_sync(zp_bmod *m);
/* Refuses [lo, lo + size) in the map again (memory the host device frees); nothing before the map exists. */
ZP_HIDDEN void host_shadow_poison(uintptr_t lo, size_t size);
/* Nonzero while this thread runs a library of the map's groups (pool.c): its faults in the map are the map's. */
ZP_HIDDEN extern _Thread_local int host_shadow_running;
/* krt_host_checks.outside of every checked module: lets through an access to memory of the calling thread's work-item
 * (its stack or its fibers' stacks, the group's __local memory, the library's data and thread-local block) with
 * the range that holds it, or records the refusal in the module's table and leaves the group (pool.c). */
ZP_HIDDEN int host_check_outside(uintptr_t address, size_t size, uint32_t kind, uintptr_t range[2]);

/* How long a thread out of work (a pool thread, a queue's thread) watches for more before it sleeps: a launch that
 * comes meanwhile starts without a wake-up (a futex call and a scheduler's latency, tens of microseconds), and an
 * idle program stops using the CPU this long after its last command (docs/design.md, "The host device's pool"). */
#define HOST_SPIN_NS 50000u
/* A launch of at most this many work-items runs on the submitting thread alone: sharing it costs a hand-off (the
 * job's publication, another thread's first touch of its arguments, the wait for that thread's part) that a few
 * thousand simple work-items do not repay (bench/replay's saxpy over 4,096 floats). */
#define HOST_INLINE_ITEMS 4096u
/* Watches *v for up to HOST_SPIN_NS; returns 1 as soon as it differs from seen, 0 when the time ran out. */
ZP_HIDDEN int host_spin_while(const atomic_uint *v, unsigned seen);

/* ---- fiber.c: work-items on their own stacks -------------------------------------------------------------- */

/* The fibers of one pool thread: a stack per work-item of a group with barriers (each above a guard page,
 * reserved rather than committed), kept between groups. Opaque outside fiber.c. */
typedef struct host_fibers host_fibers;

/* A pool thread's fibers, with room for none yet; NULL when out of memory. */
ZP_HIDDEN host_fibers *host_fibers_new(void);
/* Frees a thread's fibers (none may be running). */
ZP_HIDDEN void host_fibers_free(host_fibers *f);
/* Room for n fibers; 0 when out of memory (what was there stays usable). */
ZP_HIDDEN int host_fibers_reserve(host_fibers *f, size_t n);
/* Runs n fibers (n <= the room reserved) to their ends, round robin: each pass calls resume(arg, i) and then
 * runs fiber i up to its next host_fiber_yield or its end, for every fiber not ended yet. Each fiber runs
 * body(arg) from its start. */
ZP_HIDDEN void host_fibers_run(host_fibers *f, size_t n, void (*body)(void *arg),
                               void (*resume)(void *arg, size_t i), void *arg);
/* From a fiber's body, with the calling thread's fibers: back to host_fibers_run, which resumes the next fiber.
 * Returns at once when f is NULL or not running. */
ZP_HIDDEN void host_fiber_yield(host_fibers *f);
/* The memory of a thread's fibers' stacks, [*lo, *hi); both 0 when it has none. */
ZP_HIDDEN void host_fibers_span(const host_fibers *f, uintptr_t *lo, uintptr_t *hi);

/* ---- token.c: completion tokens ---------------------------------------------------------------------------- */

/* A new token, one reference, not done; NULL when out of memory. Released tokens are kept for the next ones,
 * so that a warm launch allocates nothing. */
ZP_HIDDEN zp_btoken *host_token_new(void);
ZP_HIDDEN void host_token_retain(zp_btoken *t);
ZP_HIDDEN void host_token_release(zp_btoken *t);
ZP_HIDDEN ze_result_t host_token_on_complete(zp_btoken *t, zp_token_fn fn, void *user);
ZP_HIDDEN ze_result_t host_token_times(zp_btoken *t, uint64_t *start, uint64_t *end);
/* Returns when each of the n tokens is done. */
ZP_HIDDEN void host_token_wait(zp_btoken *const *tokens, uint32_t n);
/* Records the command's times, runs the token's callbacks, then marks it done and wakes its waiters. */
ZP_HIDDEN void host_token_complete(zp_btoken *t, uint64_t start, uint64_t end);

/* ---- queue.c: queues and their commands ------------------------------------------------------------------- */

ZP_HIDDEN ze_result_t host_queue_create(zp_bdev *dev, bool profiling, zp_bqueue **out);
ZP_HIDDEN ze_result_t host_queue_finish(zp_bqueue *q);
ZP_HIDDEN void host_queue_destroy(zp_bqueue *q);
ZP_HIDDEN ze_result_t host_launch(zp_bqueue *q, zp_bkern *k, const zp_ndrange *r, uint32_t num_waits,
                                  zp_btoken *const *waits, zp_btoken **done);
ZP_HIDDEN ze_result_t host_copy(zp_bqueue *q, void *dst, const void *src, size_t size, uint32_t num_waits,
                                zp_btoken *const *waits, zp_btoken **done);
ZP_HIDDEN ze_result_t host_fill(zp_bqueue *q, void *dst, const void *pattern, size_t pattern_size, size_t size,
                                uint32_t num_waits, zp_btoken *const *waits, zp_btoken **done);
ZP_HIDDEN ze_result_t host_barrier(zp_bqueue *q, uint32_t num_waits, zp_btoken *const *waits, zp_btoken **done);
ZP_HIDDEN ze_result_t host_host_task(zp_bqueue *q, void (*fn)(void *data), void *data, uint32_t num_waits,
                                     zp_btoken *const *waits, zp_btoken **done);
/* A closed command list as one queue command (zp_backend_ops.capture_begin): capture keeps the queue's launches,
 * copies, fills and barriers instead of running them (host tasks refuse: the list then replays its commands);
 * the graph runs them in order, one execution at a time, as one command of the queue it is launched on. */
ZP_HIDDEN ze_result_t host_capture_begin(zp_bqueue *q);
ZP_HIDDEN ze_result_t host_capture_end(zp_bqueue *q, void **graph);
ZP_HIDDEN ze_result_t host_graph_launch(zp_bqueue *q, void *graph, uint32_t num_waits, zp_btoken *const *waits,
                                        zp_btoken **done);
ZP_HIDDEN void host_graph_destroy(void *graph);

#endif
