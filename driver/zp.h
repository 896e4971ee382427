/* ze_pocl internals: the Level Zero object model shared by the driver/ C files. Nothing here is exported; the
 * only exported symbols are the table getters in ddi.c. */
#ifndef ZP_H
#define ZP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <level_zero/ze_api.h>
#include <level_zero/ze_ddi.h>

#include "backend.h"
#include "include/ze_krt_bounds.h"
#include "include/ze_krt_build_log.h"
#include "include/ze_krt_driver_status.h"
#include "include/ze_krt_exact_range.h"
#include "include/ze_krt_host.h"
#include "include/ze_krt_native_queue.h"
#include "include/ze_krt_private_memory.h"

/* The headers of API 1.4 lack this extension; define it as later headers do. */
#ifndef ZE_STRUCTURE_TYPE_KERNEL_MAX_GROUP_SIZE_EXT_PROPERTIES
#define ZE_STRUCTURE_TYPE_KERNEL_MAX_GROUP_SIZE_EXT_PROPERTIES ((ze_structure_type_t)0x10013)
#endif
#ifndef ZE_KERNEL_MAX_GROUP_SIZE_PROPERTIES_EXT_NAME
#define ZE_KERNEL_MAX_GROUP_SIZE_PROPERTIES_EXT_NAME "ZE_extension_kernel_max_group_size_properties"
typedef struct _ze_kernel_max_group_size_properties_ext_t {
    ze_structure_type_t stype;
    void *pNext;
    uint32_t maxGroupSize;
} ze_kernel_max_group_size_properties_ext_t;
#endif

#define ZP_HIDDEN __attribute__((visibility("hidden")))

/* The Level Zero API version the drivers report (zeDriverGetApiVersion) and fill tables for (ddi.c): the newest
 * version whose core functions they all implement (docs/driver.md, "API version"). */
#define ZP_API_VERSION ZE_MAKE_VERSION(1, 13)

/* Values and types of API versions newer than the installed headers (1.4), as the specification defines them. */
#define ZP_EVENT_POOL_FLAG_KERNEL_MAPPED_TIMESTAMP ((ze_event_pool_flags_t)(1u << 3)) /* 1.6 */
#define ZP_MEMORY_ADVICE_CLEAR_SYSTEM_MEMORY_PREFERRED_LOCATION ((ze_memory_advice_t)9) /* 1.7, after SET (8) */
#define ZP_COMMAND_LIST_FLAGS_1_9 0x1fu /* 1.7's IN_ORDER (bit 3), 1.9's EXP_CLONEABLE (bit 4) */
#define ZP_INIT_DRIVER_TYPE_FLAG_GPU 1u  /* 1.10: ze_init_driver_type_flag_t */
/* 1.8's ZE_experimental_event_pool_counter_based: a ze_event_pool_counter_based_exp_desc_t in the pool's pNext
 * (stype, pNext, flags: 0 or ZE_EVENT_POOL_COUNTER_BASED_EXP_FLAG_IMMEDIATE 1 | _NON_IMMEDIATE 2) makes its events
 * counter-based (event.c). */
#define ZP_EVENT_POOL_COUNTER_BASED_EXP_NAME "ZE_experimental_event_pool_counter_based"
#define ZP_STRUCTURE_TYPE_COUNTER_BASED_EVENT_POOL_EXP_DESC ((ze_structure_type_t)0x00020014)
typedef struct zp_event_pool_counter_based_exp_desc {
    ze_structure_type_t stype;
    const void *pNext;
    uint32_t flags;
} zp_event_pool_counter_based_exp_desc_t;
typedef struct zp_init_driver_type_desc { /* 1.10: ze_init_driver_type_desc_t */
    ze_structure_type_t stype;
    const void *pNext;
    uint32_t flags; /* ze_init_driver_type_flags_t */
} zp_init_driver_type_desc_t;

/* Valid bits of every device timestamp the drivers return (timestampValidBits, kernelTimestampValidBits). Each
 * backend's device clock is a Linux monotonic clock in nanoseconds (ze_pocl: CLOCK_MONOTONIC_RAW, PoCL's own
 * command clock; the host device and ze_cuda: CLOCK_MONOTONIC), which the kernel keeps as a signed 64-bit count
 * (ktime_t): its values never reach 2^63, so 63 bits is what the counter has. 64 would be no truer and would make
 * the usual client mask (1ull << bits) - 1 undefined in C. zp_ts applies the mask to every device timestamp a
 * driver hands out, so the guarantee holds whatever a backend's clock returns; with 63 bits of nanoseconds it
 * never wraps (292 years). */
#define ZP_TIMESTAMP_BITS 63u
static inline uint64_t zp_ts(uint64_t t) { return t & ((UINT64_C(1) << ZP_TIMESTAMP_BITS) - 1); }

/* Driver version as zeDriverGetProperties reports it: major.minor.patch in 8.8.16 bits. */
#define ZP_DRIVER_VERSION ((0u << 24) | (1u << 16) | 0u)

/* Every handle starts with a magic word so that a wrong, stale or foreign handle is refused instead of
 * being used. Destroy clears the word before freeing. */
enum {
    ZP_MAGIC_DRIVER = 0x7a704472,
    ZP_MAGIC_DEVICE = 0x7a704476,
    ZP_MAGIC_CONTEXT = 0x7a704378,
    ZP_MAGIC_MODULE = 0x7a704d64,
    ZP_MAGIC_BUILDLOG = 0x7a70424c,
    ZP_MAGIC_KERNEL = 0x7a704b6e,
    ZP_MAGIC_CMDLIST = 0x7a70434c,
    ZP_MAGIC_QUEUE = 0x7a705175,
    ZP_MAGIC_POOL = 0x7a70506c,
    ZP_MAGIC_EVENT = 0x7a704576,
    ZP_MAGIC_FENCE = 0x7a704663,
    ZP_MAGIC_PHYSMEM = 0x7a70504d,
};

/* A handle is usable when it is not NULL, looks like a heap pointer and carries the right magic word.
 * The address test keeps small integers passed as handles from being dereferenced. */
#define ZP_BAD_HANDLE(h, m) \
    ((uintptr_t)(h) < 4096u || ((uintptr_t)(h) & 7u) != 0 || (h)->magic != (uint32_t)(m))
#define ZP_CHECK_HANDLE(h, m)                                     \
    do {                                                          \
        if ((h) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE; \
        if (ZP_BAD_HANDLE(h, m)) return ZE_RESULT_ERROR_INVALID_ARGUMENT; \
    } while (0)
#define ZP_CHECK_PTR(p)                                               \
    do {                                                              \
        if ((p) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER; \
    } while (0)
#define ZP_CHECK_INIT()                                                \
    do {                                                               \
        if (!zp_initialized) return ZE_RESULT_ERROR_UNINITIALIZED;     \
    } while (0)

struct _ze_device_handle_t {
    uint32_t magic;
    uint32_t index;
    zp_bdev *bdev;
    zp_device_info info;
    /* Faults (fault.c): the device was lost (an injected fault, KRT_ZE_FAULT; a backend's own loss is its
     * device_lost), and how many contexts have used it (under fault.c's lock): it is recovered when none does. */
    atomic_bool lost;
    uint32_t users;
};

struct _ze_driver_handle_t {
    uint32_t magic;
    uint32_t num_devices;
    struct _ze_device_handle_t *devices;
};

struct _ze_context_handle_t {
    uint32_t magic;
    ze_driver_handle_t driver;
    /* Bit i: the context has used device i (a list, a queue, a module, memory): fault.c counts it among the
     * device's users until the context is destroyed. */
    atomic_uint_fast64_t used;
};

struct _ze_module_handle_t {
    uint32_t magic;
    ze_context_handle_t ctx;
    ze_device_handle_t dev;
    zp_bmod *bmod;
    zp_module_meta meta;
    atomic_int live_kernels; /* kernels point into meta: the module must outlive them */
    uint8_t *native;         /* what zeModuleGetNativeBinary hands out (see module.c) */
    size_t native_size;
};

struct _ze_module_build_log_handle_t {
    uint32_t magic;
    char *text;
};

struct _ze_kernel_handle_t {
    uint32_t magic;
    ze_module_handle_t module;
    const zp_kernel_meta *meta;
    zp_bkern *bkern;
    zp_kernel_limits limits;
    pthread_mutex_t lock;  /* serialises argument changes and launches of this kernel */
    uint32_t group[3];
    bool group_valid;      /* group was set by zeKernelSetGroupSize and passed its checks */
    size_t offset[3];
    bool has_offset;
    uint64_t exact[3];     /* the true range (ZE_krt_exact_range), set as the argument one past the last */
    bool has_exact;        /* exact is not all zeros: launches are exact */
    bool backend_stale;    /* a replay left other arguments in the backend kernel */
    uint32_t args_set;     /* count of distinct arguments set so far */
    uint8_t *arg_set;      /* one flag per argument */
    uint32_t *arg_off;     /* offset of each argument's bytes in arg_data */
    uint8_t *arg_data;     /* current argument values (pointer values, scalar bytes, local sizes) */
    size_t arg_bytes;
    atomic_uint indirect;  /* flags as zeKernelSetIndirectAccess last set them (0 at creation); atomic because
                            * zeKernelGetIndirectAccess may run on any thread at the same time */
    bool fault;            /* KRT_ZE_FAULT names it: each launch loses its device at completion (fault.c) */
    bool trace;            /* KRT_ZE_TRACE is set: each append writes a line (trace.c) */
};

struct zp_signal;

/* What waits on a signal that nothing has armed yet (a stream whose next command waits for it: stream.c). The
 * signal calls back through it and knows nothing else of the waiter, so the queued append path reads one way:
 * stream -> exec -> signal. forget is called, under no signal lock, before a signal that still lists the
 * waiter is freed (the waiter must drop its pointer to it); wake, after the signal is armed, set or freed. */
typedef struct zp_signal_waiter {
    void (*wake)(struct zp_signal_waiter *w);
    void (*forget)(struct zp_signal_waiter *w, const struct zp_signal *gone);
} zp_signal_waiter;

/* The state behind an event or a fence: host-side, so it can be waited on before anything that
 * signals it has been appended. */
typedef struct zp_signal {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    atomic_int refs;        /* the handle plus each completion callback in flight */
    atomic_int state;       /* 1 signalled, 0 not */
    zp_btoken *token;       /* the last command that signals it, retained (timestamps come from it) */
    ze_device_handle_t dev; /* that command's device (under mu), NULL when the host set it or nothing armed it:
                             * a wait or query answers ZE_RESULT_ERROR_DEVICE_LOST once that device is lost */
    uint64_t gen;           /* counter-based events: the number of the last signalling submitted (under mu) */
    zp_signal_waiter **waiters; /* streams whose next command waits for this signal to be armed or set */
    uint32_t num_waiters, cap_waiters;
    void (*free_fn)(struct zp_signal *s);
} zp_signal;

struct _ze_event_pool_handle_t {
    uint32_t magic;
    ze_context_handle_t ctx;
    uint32_t count;
    ze_event_pool_flags_t flags;
    bool counter_based;     /* ZE_experimental_event_pool_counter_based: its events read as the last command given
                             * to signal them (event.c) */
    atomic_int live_events;
};

struct _ze_event_handle_t {
    zp_signal sig;          /* first, so the signal's free function frees the event */
    uint32_t magic;
    ze_event_pool_handle_t pool;
    uint32_t index;
    ze_event_scope_flags_t signal_scope, wait_scope; /* as created, for zeEventGetSignalScope / GetWaitScope */
};

struct _ze_fence_handle_t {
    zp_signal sig;
    uint32_t magic;
    ze_command_queue_handle_t queue;
};


/* One recorded command of a regular command list. */
enum zp_cmd_type {
    ZP_CMD_LAUNCH,
    ZP_CMD_COPY,
    ZP_CMD_FILL,
    ZP_CMD_BARRIER,
    ZP_CMD_SIGNAL,
    ZP_CMD_WAIT,
    ZP_CMD_RESET,
    ZP_CMD_TIMESTAMP,      /* write the device clock to dst */
    ZP_CMD_QUERY_TS,       /* write kernel timestamps of the first num_query waits to dst */
    ZP_CMD_COPY_REGION,
    ZP_CMD_FENCE,          /* arm fence and/or mark after everything before it */
    ZP_CMD_GRAPH,          /* a whole closed list as one backend graph (zp_backend_ops.capture_begin) */
    ZP_CMD_LAUNCH_INDIRECT, /* a launch whose group count is read from src when its turn comes (stream.c) */
};

struct zp_indirect;

typedef struct zp_cmd {
    uint32_t type;
    ze_event_handle_t signal;
    uint64_t signal_gen;      /* a counter-based signal's number for this signalling (zp_signal_renew), else 0 */
    uint32_t num_waits;
    ze_event_handle_t *waits;
    ze_kernel_handle_t kernel;
    zp_ndrange range;
    uint8_t *args;       /* snapshot of the kernel's arg_data */
    void *dst;
    const void *src;
    size_t size;
    size_t pattern_size;
    uint8_t pattern[128];
    zp_bdev *bdev;            /* the device whose clock a timestamp command reads */
    uint32_t num_query;       /* ZP_CMD_QUERY_TS: the first num_query waits are the events queried */
    const size_t *offsets;    /* ZP_CMD_QUERY_TS: owned copy of the caller's offsets, or NULL */
    ze_copy_region_t dst_region, src_region;
    uint32_t dst_pitch, dst_slice_pitch, src_pitch, src_slice_pitch;
    ze_fence_handle_t fence;  /* ZP_CMD_FENCE, or NULL */
    zp_signal *mark;          /* ZP_CMD_FENCE: the queue's end-of-execute mark, or NULL; each copy holds a reference */
    void *graph;              /* ZP_CMD_GRAPH: the list's backend graph, owned by the list */
    zp_bdev *dst_dev, *src_dev; /* ZP_CMD_COPY between device memory of two devices (zp_backend_ops.copy_peer) */
    struct zp_indirect *ind;  /* ZP_CMD_LAUNCH_INDIRECT held back in a stream: its gate (stream.c), or NULL */
    const uint32_t *count_src; /* ZP_CMD_LAUNCH_INDIRECT of several kernels: how many run, read with the group count;
                                * this command's kernel runs when `index` is below it. NULL for one kernel */
    uint32_t index;
} zp_cmd;

/* An in-order stream of commands on one backend queue: what an immediate command list and a command
 * queue both are. A command that waits for an event nothing has armed yet (no signalling command
 * appended, not set by the host) cannot be handed to the backend, which knows only commands: it and
 * every later command of the stream wait here, in order, until the event is armed or set. */
typedef struct zp_stream {
    zp_bqueue *bq;
    ze_device_handle_t dev;
    bool profiling;           /* bq records command times */
    atomic_bool has_pending;  /* pending is not empty: new commands queue behind it */
    pthread_mutex_t lock;     /* pending, and bq while pending commands run */
    pthread_cond_t drained;   /* broadcast when pending empties */
    zp_cmd *pending;          /* owned copies, oldest at head */
    size_t head, len, cap;
    zp_signal *blocked_on;    /* the signal whose waiters list holds this stream */
    zp_signal_waiter waiter;  /* how that signal wakes this stream (stream.c) */
    zp_signal *last_mark;     /* command queues: set once everything submitted so far has completed (under lock) */
    atomic_uint_fast64_t submitted; /* commands submitted so far, marks aside (zp_stream_count) */
    uint64_t covered;         /* under mark_lock: of those, how many last_mark or a finished queue covers */
    pthread_mutex_t mark_lock; /* one mark at a time for zp_stream_sync_submitted, and covered */
    struct zp_stream *live_prev, *live_next; /* every live stream (fault.c, zp_fault_run_out) */
} zp_stream;

struct _ze_command_queue_handle_t {
    uint32_t magic;
    ze_context_handle_t ctx;
    ze_device_handle_t dev;
    zp_stream st;
    ze_command_queue_mode_t mode;
    uint32_t index;      /* the desc's index within the queue group (ordinal 0, the only group) */
    pthread_mutex_t lock;
};

struct _ze_command_list_handle_t {
    uint32_t magic;
    bool immediate;
    bool closed;
    bool synchronous;
    ze_context_handle_t ctx;
    ze_device_handle_t dev;
    uint32_t index;      /* immediate lists: the desc's queue index (zeCommandListImmediateGetIndex) */
    zp_stream st;        /* immediate lists only */
    bool wants_times;    /* regular lists: some command signals a kernel-timestamp event */
    zp_cmd *cmds;        /* regular lists only */
    size_t num_cmds;
    size_t cap_cmds;
    void *graph;         /* closed regular lists the backend captured whole (ze_cuda's CUDA graph), else NULL */
};

/* Globals. */
extern const zp_backend_ops *zp_be;
extern struct _ze_driver_handle_t zp_driver;
extern atomic_bool zp_initialized;
/* zeKrtDriverStatus's body (driver.c); exported by ddi_export.c. */
ze_result_t zp_driver_status(ze_krt_driver_status_t *out);

/* Memory tracking (memory.c). */
typedef struct zp_alloc_info {
    void *base;
    void *raw;      /* what the backend frees */
    size_t size;
    ze_memory_type_t type;
    ze_context_handle_t ctx;
    ze_device_handle_t dev;
    uint64_t id;
} zp_alloc_info;
ZP_HIDDEN bool zp_mem_lookup(ze_context_handle_t ctx, const void *ptr, zp_alloc_info *out);
ZP_HIDDEN ze_result_t zp_mem_free_context(ze_context_handle_t ctx);

/* Virtual memory (virtual.c): whether [p, p + size) lies in mapped virtual memory. */
ZP_HIDDEN bool zp_vm_mapped(const void *p, size_t size);

/* Signals (event.c). */
/* A CPU device's answers about the processor itself (cpu.c); called on every device the backend lists. */
ZP_HIDDEN void zp_cpu_device_info(zp_device_info *info);

ZP_HIDDEN void zp_signal_init(zp_signal *s, void (*free_fn)(zp_signal *));
ZP_HIDDEN void zp_signal_unref(zp_signal *s);
ZP_HIDDEN void zp_signal_set(zp_signal *s);
ZP_HIDDEN void zp_signal_reset(zp_signal *s);
/* Arms the signal with the completion token of a command on dev. */
ZP_HIDDEN void zp_signal_arm(zp_signal *s, zp_btoken *token, ze_device_handle_t dev);
/* A counter-based event's new signalling: reset, and numbered; returns the number. */
ZP_HIDDEN uint64_t zp_signal_renew(zp_signal *s);
/* zp_signal_arm for signalling number gen (0: any): a signalling renewed since is not the event's any more, and
 * its token is released instead. */
ZP_HIDDEN void zp_signal_arm_gen(zp_signal *s, zp_btoken *token, ze_device_handle_t dev, uint64_t gen);
/* A command on dev that would have armed the signal was dropped (it failed in its stream) while dev is lost: the
 * signal is set so that no one waits for it forever, and its waits answer ZE_RESULT_ERROR_DEVICE_LOST. */
ZP_HIDDEN void zp_signal_fail(zp_signal *s, ze_device_handle_t dev);
/* ZE_RESULT_SUCCESS once set, ZE_RESULT_NOT_READY when the timeout passed, ZE_RESULT_ERROR_DEVICE_LOST when the
 * device of the command that arms it is lost (at once, or once the wait ends). */
ZP_HIDDEN ze_result_t zp_signal_wait(zp_signal *s, uint64_t timeout_ns);
/* The signal's state, first set from the device when the backend can tell that its arming command has completed
 * (zp_backend_ops.token_done) before the completion callback ran. */
ZP_HIDDEN bool zp_signal_query(zp_signal *s);
/* zeEventQueryStatus's answer: zp_signal_query as a result, ZE_RESULT_ERROR_DEVICE_LOST when the device of the
 * command that arms it is lost. */
ZP_HIDDEN ze_result_t zp_signal_status(zp_signal *s);
/* The token a command must wait for to see this signal set (retained), NULL when it is set already, or
 * ZE_RESULT_NOT_READY when nothing has armed it yet. */
ZP_HIDDEN ze_result_t zp_signal_wait_token(zp_signal *s, zp_btoken **out);
/* Registers a stream to be kicked when the signal is armed or set; false if it already is. */
ZP_HIDDEN bool zp_signal_add_waiter(zp_signal *s, zp_signal_waiter *w);
ZP_HIDDEN void zp_signal_remove_waiter(zp_signal *s, zp_signal_waiter *w);

/* Streams (stream.c). */
ZP_HIDDEN ze_result_t zp_stream_init(zp_stream *st, ze_device_handle_t dev);
ZP_HIDDEN void zp_stream_fini(zp_stream *st);
/* Counts a command handed to the stream outside zp_stream_submit (an immediate list's launch fast path). A load and
 * a store, no atomic read-modify-write: a list's appends come from one thread at a time (the specification's rule
 * for command lists), and the count only tells zp_stream_sync_submitted whether to mark. */
static inline void zp_stream_count(zp_stream *st) {
    uint_fast64_t n = atomic_load_explicit(&st->submitted, memory_order_relaxed);
    atomic_store_explicit(&st->submitted, n + 1, memory_order_relaxed);
}
/* Runs a command now, or queues an owned copy of it behind the stream's pending commands. */
ZP_HIDDEN ze_result_t zp_stream_submit(zp_stream *st, const zp_cmd *c);
/* Waits for the pending commands to be handed over and for the backend queue to finish. */
ZP_HIDDEN ze_result_t zp_stream_sync(zp_stream *st, uint64_t timeout_ns);
/* Waits, within the timeout, for every command submitted so far to complete, their events' callbacks included
 * (ZE_RESULT_NOT_READY when the timeout passes first): first marks the stream when a command came after its last
 * mark. For streams that are not marked at every submission (immediate lists: zeCommandListHostSynchronize). */
ZP_HIDDEN ze_result_t zp_stream_sync_submitted(zp_stream *st, uint64_t timeout_ns);
/* Tries to hand pending commands to the backend (after a signal they wait for changed). */
ZP_HIDDEN void zp_stream_kick(zp_stream *st);
/* Submits a mark after everything submitted so far (and arms fence, when not NULL, with it); the stream's
 * bounded synchronize then answers from the mark's state. */
ZP_HIDDEN ze_result_t zp_stream_mark(zp_stream *st, ze_fence_handle_t fence);
/* Owned copy of a command: wait list, argument snapshot and offsets are duplicated. */
ZP_HIDDEN ze_result_t zp_cmd_clone(zp_cmd *dst, const zp_cmd *src);
ZP_HIDDEN void zp_cmd_free(zp_cmd *c);

/* Command execution shared by immediate lists and queue replay (exec.c). */
/* Returns ZE_RESULT_NOT_READY, with the event in *blocked, when an event is neither set nor armed. */
ZP_HIDDEN ze_result_t zp_exec_waits(uint32_t n, ze_event_handle_t *events, zp_btoken **buf, uint32_t cap,
                                    zp_btoken ***out, uint32_t *num_out, ze_event_handle_t *blocked);
ZP_HIDDEN void zp_exec_release_waits(zp_btoken **tokens, uint32_t n, zp_btoken **buf);
/* dev: the device bq belongs to, which the command's signal, fence and mark remember (zp_signal_arm). */
ZP_HIDDEN ze_result_t zp_exec_cmd(zp_bqueue *bq, ze_device_handle_t dev, const zp_cmd *cmd, ze_event_handle_t *blocked);
/* A backend barrier after the command's waits (and everything before it on bq); *gate its completion token. */
ZP_HIDDEN ze_result_t zp_exec_gate(zp_bqueue *bq, const zp_cmd *c, zp_btoken **gate, ze_event_handle_t *blocked);
/* True when a command signalling this event must run on a queue that records command times. */
static inline bool zp_event_wants_times(ze_event_handle_t e) {
    return e && (e->pool->flags & (ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP | ZP_EVENT_POOL_FLAG_KERNEL_MAPPED_TIMESTAMP));
}
/* Replaces the stream's queue by one that records command times, after the old one's commands are done. */
ZP_HIDDEN ze_result_t zp_exec_enable_times(zp_stream *st);
/* A launch's global size from its group counts, with r->local and r->offset already set: count x group size in
 * each dimension, and the work dimension, up to the highest dimension whose size, group size or global offset is
 * not the default (1, 1, 0). The sizes alone are not enough: OpenCL (ze_pocl) and the host device answer
 * get_global_id and get_global_offset with 0 past the work dimension, so an offset z = 7 over a z range of 1
 * launched as 1-D ran as if it had no offset, a wrong result with no error (issue 37; the conformance suite's
 * KernelOffsetTests). ze_cuda passes all three offsets whatever the work dimension, and get_work_dim answers it.
 * ZE_RESULT_ERROR_INVALID_ARGUMENT when the launch has more work-items than a 64-bit count holds (the product of
 * the three global sizes, none of them 0): the backends number work-items and groups with size_t (the host
 * device's count of groups, PoCL's linear ids), which would wrap and run some other number of them. */
static inline ze_result_t zp_ndrange_set_groups(zp_ndrange *r, const uint32_t groups[3]) {
    uint64_t items = 1;
    bool empty = false, over = false;
    for (int d = 0; d < 3; d++) {
        r->global[d] = (size_t)groups[d] * r->local[d];
        empty |= r->global[d] == 0;
        over |= __builtin_mul_overflow(items, (uint64_t)r->global[d], &items);
    }
    r->dims = 1;
    for (uint32_t d = 1; d < 3; d++)
        if (r->global[d] > 1 || r->local[d] > 1 || r->offset[d] != 0) r->dims = d + 1;
    return over && !empty ? ZE_RESULT_ERROR_INVALID_ARGUMENT : ZE_RESULT_SUCCESS;
}
ZP_HIDDEN ze_result_t zp_exec_launch_pieces(zp_bqueue *bq, ze_kernel_handle_t k, const zp_ndrange *r, uint32_t nt,
                                            zp_btoken *const *tokens, zp_btoken **done);
ZP_HIDDEN ze_result_t zp_exec_launch(zp_bqueue *bq, ze_device_handle_t dev, ze_kernel_handle_t k, const zp_ndrange *range,
                                     const uint8_t *args, ze_event_handle_t signal, uint64_t signal_gen,
                                     uint32_t num_waits, ze_event_handle_t *waits, ze_event_handle_t *blocked);

/* Kernels (kernel.c). */
ZP_HIDDEN ze_result_t zp_kernel_apply_args(ze_kernel_handle_t k, const uint8_t *args);
/* ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY when a launch of k in groups of its current group size needs more private memory
 * than the device gives (zp_kernel_limits.private_max; ZE_krt_private_memory), else ZE_RESULT_SUCCESS. */
ZP_HIDDEN ze_result_t zp_kernel_private_check(ze_kernel_handle_t k);

/* Faults (fault.c). A device is lost when its backend says so (zp_backend_ops.device_lost: ze_cuda after one of
 * CUDA's sticky errors) or when a kernel KRT_ZE_FAULT names completed on it (the test knob: every driver of the
 * object model has it). A lost device refuses new work (appends, executes, allocations, lists, queues, modules)
 * with ZE_RESULT_ERROR_DEVICE_LOST, and every wait or query of work on it answers the same; work already handed
 * to the backend runs out (on a CPU), so that destroying what used it never frees memory a command still reads.
 * A device is recovered (zp_backend_ops.device_recover, then no longer lost) once no context uses it: when the
 * last context that used it is destroyed, or when one starts using it while none does. */
ZP_HIDDEN bool zp_device_lost(ze_device_handle_t dev);
/* Why a lost device was not recovered when its last context went (a test knob, or the backend's answer); "". */
ZP_HIDDEN const char *zp_recover_failure(ze_device_handle_t dev);
/* The context uses dev (a list, queue, module or allocation on it): counted once per context. */
ZP_HIDDEN void zp_context_use(ze_context_handle_t ctx, ze_device_handle_t dev);
/* At zeContextDestroy: the context stops using its devices; a lost one nothing uses any more is recovered. */
ZP_HIDDEN void zp_context_release(ze_context_handle_t ctx);
/* ZE_RESULT_ERROR_DEVICE_LOST when a device the context has used is lost (zeContextGetStatus). */
ZP_HIDDEN ze_result_t zp_context_status(ze_context_handle_t ctx);
/* KRT_ZE_FAULT: whether a kernel of this name is to fault (read at each zeKernelCreate). */
ZP_HIDDEN bool zp_fault_wanted(const char *kernel_name);
/* After a faulting kernel's launch on bq: a host step in stream order that marks the kernel's device lost; *done
 * (when asked for) is that step's token, so that whatever waits for the launch sees the device lost. */
ZP_HIDDEN ze_result_t zp_fault_after(zp_bqueue *bq, ze_kernel_handle_t k, zp_btoken **done);
/* Every live stream, so that the memory of a context on a lost device is freed only once what its streams handed to a
 * CPU backend has run out (zp_fault_run_out, at zeMemFree, zeVirtualMemUnmap and zeVirtualMemFree): on a lost device
 * every wait answers at once. */
ZP_HIDDEN void zp_fault_track(zp_stream *st);
ZP_HIDDEN void zp_fault_untrack(zp_stream *st);
ZP_HIDDEN void zp_fault_run_out(void);
/* Debugging knobs (trace.c): KRT_ZE_SYNC (every list and queue synchronous) and KRT_ZE_TRACE (a line per launch). */
ZP_HIDDEN bool zp_debug_sync(void);
/* Inline, so that kernel.c reads the knob without calling trace.c, which reads the allocation table. */
static inline bool zp_trace_wanted(void) {
    const char *v = getenv("KRT_ZE_TRACE");
    return v && v[0];
}
ZP_HIDDEN uint64_t zp_trace_clock(void);
ZP_HIDDEN void zp_trace_launch(ze_kernel_handle_t k, const zp_ndrange *r, const uint32_t groups[3], bool immediate,
                               ze_result_t res, uint64_t start_ns);

/* Whether commands on dev may touch device memory of peer (device.c): always for the same device. */
ZP_HIDDEN bool zp_device_reaches(ze_device_handle_t dev, ze_device_handle_t peer);

/* Helpers. */
static inline bool zp_is_pow2(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

#endif
