/* Memoization on the launch path, proven from outside krt:
 *  - with the loader's tracing layer, which counts every Level Zero call krt makes: one extension query
 *    sequence per driver and one zeKernelGetProperties per kernel over 1000 dynamic launches, and argument
 *    values and group sizes not set again when unchanged;
 *  - with malloc and friends interposed in this binary: no heap call from libkrt on a warm launch.
 * A control with KRT_CONTEXT_FLAG_NO_MEMO shows that the counters do see the calls when krt makes them. */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <level_zero/ze_api.h>
#include <level_zero/layers/zel_tracing_api.h>
#include <level_zero/layers/zel_tracing_register_cb.h>

#include "krt_test.h"

TestSuite(memo, .timeout = KT_TEST_TIMEOUT);

/* ---------------------------------------------------------------------------------------------------------
 * Heap interposition. Every allocation of the process comes here and goes on to glibc; a call counts only
 * while counting is on and when its return address lies in libkrt's code.
 * ------------------------------------------------------------------------------------------------------- */

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void __libc_free(void *p);
extern void *__libc_memalign(size_t alignment, size_t size);

static uintptr_t krt_text_lo, krt_text_hi;
static atomic_int counting;
static atomic_ulong krt_allocs, krt_frees;

static inline void note(void *ret, atomic_ulong *counter)
{
    if (atomic_load_explicit(&counting, memory_order_relaxed)) {
        uintptr_t a = (uintptr_t)ret;
        if (a >= krt_text_lo && a < krt_text_hi)
            atomic_fetch_add_explicit(counter, 1, memory_order_relaxed);
    }
}

void *malloc(size_t size)
{
    note(__builtin_return_address(0), &krt_allocs);
    return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
    note(__builtin_return_address(0), &krt_allocs);
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
    note(__builtin_return_address(0), &krt_allocs);
    return __libc_realloc(p, size);
}

void free(void *p)
{
    if (p)
        note(__builtin_return_address(0), &krt_frees);
    __libc_free(p);
}

void *aligned_alloc(size_t alignment, size_t size)
{
    note(__builtin_return_address(0), &krt_allocs);
    return __libc_memalign(alignment, size);
}

void *memalign(size_t alignment, size_t size)
{
    note(__builtin_return_address(0), &krt_allocs);
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **out, size_t alignment, size_t size)
{
    note(__builtin_return_address(0), &krt_allocs);
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)))
        return EINVAL;
    void *p = __libc_memalign(alignment, size);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

/* glibc's strdup calls malloc from inside libc, where the return address would hide libkrt. */
char *strdup(const char *s)
{
    note(__builtin_return_address(0), &krt_allocs);
    size_t n = strlen(s) + 1;
    char *p = __libc_malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

char *strndup(const char *s, size_t max)
{
    note(__builtin_return_address(0), &krt_allocs);
    size_t n = strnlen(s, max);
    char *p = __libc_malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

static int find_krt(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    if (!info->dlpi_name || !strstr(info->dlpi_name, "libkrt.so"))
        return 0;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        uintptr_t s = info->dlpi_addr + ph->p_vaddr;
        if (s < lo)
            lo = s;
        if (s + ph->p_memsz > hi)
            hi = s + ph->p_memsz;
    }
    krt_text_lo = lo;
    krt_text_hi = hi;
    return 1;
}

static void locate_libkrt(void)
{
    dl_iterate_phdr(find_krt, NULL);
    cr_assert(krt_text_hi > krt_text_lo, "libkrt.so is not mapped in this process");
    /* The range is right: it holds krt's own functions. */
    Dl_info info;
    cr_assert(dladdr((void *)(uintptr_t)krt_launch, &info) && info.dli_fname && strstr(info.dli_fname, "libkrt.so"));
    uintptr_t f = (uintptr_t)info.dli_saddr;
    cr_assert(f >= krt_text_lo && f < krt_text_hi, "krt_launch lies outside the range found for libkrt");
}

static void count_start(void)
{
    atomic_store(&krt_allocs, 0);
    atomic_store(&krt_frees, 0);
    atomic_store(&counting, 1);
}

static void count_stop(void) { atomic_store(&counting, 0); }

/* ---------------------------------------------------------------------------------------------------------
 * Tracing.
 * ------------------------------------------------------------------------------------------------------- */

#define MAX_HANDLES 64

typedef struct {
    const void *handle;
    unsigned long count_calls; /* the first call of the two-call pattern (no array) */
    unsigned long fill_calls;  /* the second */
} ext_entry;

typedef struct {
    const void *handle;
    unsigned long calls;
} handle_count;

typedef struct {
    atomic_flag lock;
    ext_entry ext[MAX_HANDLES];
    int num_ext;
    handle_count props[MAX_HANDLES];
    int num_props;
    handle_count args[MAX_HANDLES];
    int num_args;
    handle_count groups[MAX_HANDLES];
    int num_groups;
    unsigned long suggest_calls;
} trace_counts;

static trace_counts tc = {.lock = ATOMIC_FLAG_INIT};

static void lock(void)
{
    while (atomic_flag_test_and_set(&tc.lock))
        ;
}

static void unlock(void) { atomic_flag_clear(&tc.lock); }

static void bump(handle_count *table, int *n, const void *handle)
{
    for (int i = 0; i < *n; i++)
        if (table[i].handle == handle) {
            table[i].calls++;
            return;
        }
    if (*n < MAX_HANDLES) {
        table[*n].handle = handle;
        table[*n].calls = 1;
        (*n)++;
    }
}

static void on_ext(ze_driver_get_extension_properties_params_t *p, ze_result_t r, void *user, void **inst)
{
    (void)r;
    (void)user;
    (void)inst;
    lock();
    const void *h = *p->phDriver;
    int i = 0;
    while (i < tc.num_ext && tc.ext[i].handle != h)
        i++;
    if (i == tc.num_ext && i < MAX_HANDLES) {
        tc.ext[i].handle = h;
        tc.num_ext++;
    }
    if (i < MAX_HANDLES) {
        if (*p->ppExtensionProperties == NULL)
            tc.ext[i].count_calls++;
        else
            tc.ext[i].fill_calls++;
    }
    unlock();
}

static void on_props(ze_kernel_get_properties_params_t *p, ze_result_t r, void *user, void **inst)
{
    (void)r;
    (void)user;
    (void)inst;
    lock();
    bump(tc.props, &tc.num_props, *p->phKernel);
    unlock();
}

static void on_arg(ze_kernel_set_argument_value_params_t *p, ze_result_t r, void *user, void **inst)
{
    (void)r;
    (void)user;
    (void)inst;
    lock();
    bump(tc.args, &tc.num_args, *p->phKernel);
    unlock();
}

static void on_group(ze_kernel_set_group_size_params_t *p, ze_result_t r, void *user, void **inst)
{
    (void)r;
    (void)user;
    (void)inst;
    lock();
    bump(tc.groups, &tc.num_groups, *p->phKernel);
    unlock();
}

static void on_suggest(ze_kernel_suggest_group_size_params_t *p, ze_result_t r, void *user, void **inst)
{
    (void)p;
    (void)r;
    (void)user;
    (void)inst;
    lock();
    tc.suggest_calls++;
    unlock();
}

/* Plain call counters for the functions a memory fill must not use, and for kernel appends. */
enum { C_FILL, C_RESIDENT, C_EVENT_SYNC, C_QUEUE_SYNC, C_FENCE_SYNC, C_ALLOC, C_APPEND_KERNEL, C_COUNT };
static atomic_ulong calls[C_COUNT];

#define KT_COUNTER_CB(fn, params_t, slot)                                                                  \
    static void fn(params_t *p, ze_result_t r, void *user, void **inst)                                    \
    {                                                                                                      \
        (void)p;                                                                                           \
        (void)r;                                                                                           \
        (void)user;                                                                                        \
        (void)inst;                                                                                        \
        atomic_fetch_add(&calls[slot], 1);                                                                 \
    }
KT_COUNTER_CB(on_fill, ze_command_list_append_memory_fill_params_t, C_FILL)
KT_COUNTER_CB(on_resident, ze_context_make_memory_resident_params_t, C_RESIDENT)
KT_COUNTER_CB(on_event_sync, ze_event_host_synchronize_params_t, C_EVENT_SYNC)
KT_COUNTER_CB(on_queue_sync, ze_command_queue_synchronize_params_t, C_QUEUE_SYNC)
KT_COUNTER_CB(on_fence_sync, ze_fence_host_synchronize_params_t, C_FENCE_SYNC)
KT_COUNTER_CB(on_alloc_host, ze_mem_alloc_host_params_t, C_ALLOC)
KT_COUNTER_CB(on_alloc_shared, ze_mem_alloc_shared_params_t, C_ALLOC)
KT_COUNTER_CB(on_alloc_device, ze_mem_alloc_device_params_t, C_ALLOC)
KT_COUNTER_CB(on_append_kernel, ze_command_list_append_launch_kernel_params_t, C_APPEND_KERNEL)

/* Turns the tracing layer on and starts counting before krt's first Level Zero call of interest: zeInit
 * here comes first (krt's own zeInit is then a repeat), so the tracer sees the context's creation too. */
static void trace_start(void)
{
    setenv("ZE_ENABLE_TRACING_LAYER", "1", 1);
    cr_assert_eq(zeInit(0), ZE_RESULT_SUCCESS);
    zel_tracer_desc_t desc = {ZEL_STRUCTURE_TYPE_TRACER_EXP_DESC, NULL, &tc};
    zel_tracer_handle_t tracer = NULL;
    cr_assert_eq(zelTracerCreate(&desc, &tracer), ZE_RESULT_SUCCESS, "the tracing layer is not loaded");
    cr_assert_eq(zelTracerDriverGetExtensionPropertiesRegisterCallback(tracer, ZEL_REGISTER_PROLOGUE, on_ext),
                 ZE_RESULT_SUCCESS);
    cr_assert_eq(zelTracerKernelGetPropertiesRegisterCallback(tracer, ZEL_REGISTER_PROLOGUE, on_props),
                 ZE_RESULT_SUCCESS);
    cr_assert_eq(zelTracerKernelSetArgumentValueRegisterCallback(tracer, ZEL_REGISTER_PROLOGUE, on_arg),
                 ZE_RESULT_SUCCESS);
    cr_assert_eq(zelTracerKernelSetGroupSizeRegisterCallback(tracer, ZEL_REGISTER_PROLOGUE, on_group),
                 ZE_RESULT_SUCCESS);
    cr_assert_eq(zelTracerKernelSuggestGroupSizeRegisterCallback(tracer, ZEL_REGISTER_PROLOGUE, on_suggest),
                 ZE_RESULT_SUCCESS);
    cr_assert_eq(zelTracerCommandListAppendMemoryFillRegisterCallback(tracer, ZEL_REGISTER_PROLOGUE, on_fill),
                 ZE_RESULT_SUCCESS);
    cr_assert_eq(zelTracerContextMakeMemoryResidentRegisterCallback(tracer, ZEL_REGISTER_PROLOGUE, on_resident),
                 ZE_RESULT_SUCCESS);
    cr_assert_eq(zelTracerEventHostSynchronizeRegisterCallback(tracer, ZEL_REGISTER_PROLOGUE, on_event_sync),
                 ZE_RESULT_SUCCESS);
    cr_assert_eq(zelTracerCommandQueueSynchronizeRegisterCallback(tracer, ZEL_REGISTER_PROLOGUE, on_queue_sync),
                 ZE_RESULT_SUCCESS);
    cr_assert_eq(zelTracerFenceHostSynchronizeRegisterCallback(tracer, ZEL_REGISTER_PROLOGUE, on_fence_sync),
                 ZE_RESULT_SUCCESS);
    cr_assert_eq(zelTracerMemAllocHostRegisterCallback(tracer, ZEL_REGISTER_PROLOGUE, on_alloc_host),
                 ZE_RESULT_SUCCESS);
    cr_assert_eq(zelTracerMemAllocSharedRegisterCallback(tracer, ZEL_REGISTER_PROLOGUE, on_alloc_shared),
                 ZE_RESULT_SUCCESS);
    cr_assert_eq(zelTracerMemAllocDeviceRegisterCallback(tracer, ZEL_REGISTER_PROLOGUE, on_alloc_device),
                 ZE_RESULT_SUCCESS);
    cr_assert_eq(zelTracerCommandListAppendLaunchKernelRegisterCallback(tracer, ZEL_REGISTER_PROLOGUE,
                                                                         on_append_kernel),
                 ZE_RESULT_SUCCESS);
    cr_assert_eq(zelTracerSetEnabled(tracer, 1), ZE_RESULT_SUCCESS);
}

/* The kernels and buffers of a launch loop: krt_iota and krt_vadd, run over a few ranges. */
typedef struct {
    krt_context *ctx;
    krt_module *m;
    krt_kernel *iota, *vadd;
    uint32_t *out;
    float *a, *b, *c;
} workload;

#define WL_N 4096u

static workload wl_open(uint32_t flags)
{
    workload w;
    krt_context_desc desc = {.flags = flags};
    w.ctx = kt_context(&desc);
    w.m = kt_module(w.ctx, "krt_basic");
    w.iota = kt_kernel(w.m, "krt_iota");
    w.vadd = kt_kernel(w.m, "krt_vadd");
    w.out = kt_alloc(w.ctx, WL_N * 4, KRT_MEMORY_SHARED);
    w.a = kt_alloc(w.ctx, WL_N * 4, KRT_MEMORY_SHARED);
    w.b = kt_alloc(w.ctx, WL_N * 4, KRT_MEMORY_SHARED);
    w.c = kt_alloc(w.ctx, WL_N * 4, KRT_MEMORY_SHARED);
    for (uint32_t i = 0; i < WL_N; i++) {
        w.a[i] = (float)i;
        w.b[i] = 1.0f;
    }
    return w;
}

/* Launch i of a loop: iota or vadd, over one of three ranges, with a changing base. */
static void wl_launch(workload *w, int i)
{
    static const uint32_t ranges[3] = {WL_N, 1000, 333};
    uint32_t n = ranges[i % 3];
    if (i % 2 == 0) {
        uint32_t base = (uint32_t)i;
        krt_arg args[] = {KRT_ARG(w->out), KRT_ARG(n), KRT_ARG(base)};
        krt_launch_desc d = kt_desc1(n, args, 3);
        KT_OK(krt_launch(w->iota, &d));
    } else {
        krt_arg args[] = {KRT_ARG(w->a), KRT_ARG(w->b), KRT_ARG(w->c), KRT_ARG(n)};
        krt_launch_desc d = kt_desc1(n, args, 4);
        KT_OK(krt_launch(w->vadd, &d));
    }
}

static void wl_check_and_close(workload *w, int last_iota)
{
    KT_OK(krt_context_synchronize(w->ctx));
    static const uint32_t ranges[3] = {WL_N, 1000, 333};
    uint32_t n = ranges[last_iota % 3];
    for (uint32_t i = 0; i < n; i++)
        cr_assert_eq(w->out[i], (uint32_t)last_iota + i);
    for (uint32_t i = 0; i < 1000; i++)
        cr_assert_eq(w->c[i], (float)i + 1.0f);
    krt_module_destroy(w->m);
    krt_context_destroy(w->ctx);
}

Test(memo, one_query_per_driver_and_kernel_over_1000_launches)
{
    trace_start();
    workload w = wl_open(0);
    enum { LAUNCHES = 1000 };
    for (int i = 0; i < LAUNCHES; i++)
        wl_launch(&w, i);
    /* Some configuration queries too: they share the memo. */
    for (int i = 0; i < 10; i++) {
        krt_launch_config c;
        krt_ndrange r = {1, {1000, 0, 0}};
        KT_OK(krt_launch_config_get(w.iota, &r, &c));
        KT_OK(krt_launch_config_get(w.vadd, &r, &c));
    }
    /* The last iota launch is i = 998 (even), over ranges[998 % 3] items. */
    wl_check_and_close(&w, 998);

    lock();
    cr_assert_geq(tc.num_ext, 1, "krt never queried the extension list");
    for (int i = 0; i < tc.num_ext; i++) {
        cr_assert_eq(tc.ext[i].count_calls, 1, "driver %p: %lu count queries of the extension list",
                     tc.ext[i].handle, tc.ext[i].count_calls);
        cr_assert_leq(tc.ext[i].fill_calls, 1, "driver %p: %lu fill queries of the extension list",
                      tc.ext[i].handle, tc.ext[i].fill_calls);
    }
    cr_assert_geq(tc.num_props, 2, "zeKernelGetProperties seen for %d kernels, 2 were launched", tc.num_props);
    for (int i = 0; i < tc.num_props; i++)
        cr_assert_eq(tc.props[i].calls, 1, "kernel %p: zeKernelGetProperties called %lu times", tc.props[i].handle,
                     tc.props[i].calls);
    cr_assert_eq(tc.suggest_calls, 0, "krt used zeKernelSuggestGroupSize");
    unlock();
}

/* The control: without memoization the same loop queries the driver on every dynamic launch, and the
 * tracer sees it. */
Test(memo, control_no_memo_queries_every_launch)
{
    trace_start();
    workload w = wl_open(KRT_CONTEXT_FLAG_NO_MEMO);
    enum { LAUNCHES = 1000 };
    for (int i = 0; i < LAUNCHES; i++)
        wl_launch(&w, i);
    wl_check_and_close(&w, 998);
    lock();
    unsigned long props = 0, ext = 0;
    for (int i = 0; i < tc.num_props; i++)
        props += tc.props[i].calls;
    for (int i = 0; i < tc.num_ext; i++)
        ext += tc.ext[i].count_calls;
    cr_assert_geq(props, LAUNCHES, "only %lu property queries for %d unmemoized launches", props, LAUNCHES);
    cr_assert_geq(ext, LAUNCHES, "only %lu extension queries for %d unmemoized launches", ext, LAUNCHES);
    unlock();
}

/* Arguments and group sizes equal to those already set are not set again. */
Test(memo, unchanged_arguments_and_group_size_are_not_set_again)
{
    trace_start();
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_basic");
    krt_kernel *k = kt_kernel(m, "krt_iota");
    enum { N = 1000, LAUNCHES = 1000 };
    uint32_t *out = kt_alloc(ctx, N * 4, KRT_MEMORY_SHARED);
    uint32_t n = N, base = 5;
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(n), KRT_ARG(base)};
    krt_launch_desc d = kt_desc1(N, args, 3);
    for (int i = 0; i < LAUNCHES; i++)
        KT_OK(krt_launch(k, &d));
    KT_OK(krt_context_synchronize(ctx));
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(out[i], 5 + i);
    lock();
    cr_assert_eq(tc.num_args, 1, "arguments set on %d kernels", tc.num_args);
    /* Three arguments and the true range (ZE_krt_exact_range, set like an argument), each once. */
    cr_assert_eq(tc.args[0].calls, 4, "%lu zeKernelSetArgumentValue calls for 3 arguments and a range that never "
                 "changed", tc.args[0].calls);
    cr_assert_eq(tc.num_groups, 1);
    cr_assert_eq(tc.groups[0].calls, 1, "%lu zeKernelSetGroupSize calls for one ndrange", tc.groups[0].calls);
    unlock();

    /* Now only base changes: one more set per launch, for that argument alone. */
    for (int i = 0; i < LAUNCHES; i++) {
        base = 100 + (uint32_t)i;
        KT_OK(krt_launch(k, &d));
    }
    KT_OK(krt_context_synchronize(ctx));
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(out[i], 100 + LAUNCHES - 1 + i);
    lock();
    cr_assert_eq(tc.args[0].calls, 4 + LAUNCHES, "%lu zeKernelSetArgumentValue calls, expected %d",
                 tc.args[0].calls, 4 + LAUNCHES);
    cr_assert_eq(tc.groups[0].calls, 1);
    unlock();
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* No heap call from libkrt on a warm launch: the configuration is memoized, argument slots are inline. */
Test(memo, no_malloc_on_a_warm_launch)
{
    locate_libkrt();
    workload w;
    /* The control: creating a module allocates, and the counter sees it. */
    krt_context *ctx = kt_context(NULL);
    count_start();
    krt_module *m = kt_module(ctx, "krt_basic");
    count_stop();
    cr_assert_gt(atomic_load(&krt_allocs), 0, "the counter saw no allocation while krt created a module");
    krt_module_destroy(m);
    krt_context_destroy(ctx);

    w = wl_open(0);
    /* Warm up: the first launches of each kernel and ndrange may allocate. */
    for (int i = 0; i < 12; i++)
        wl_launch(&w, i);
    KT_OK(krt_context_synchronize(w.ctx));
    count_start();
    for (int i = 12; i < 1000; i++)
        wl_launch(&w, i);
    count_stop();
    unsigned long allocs = atomic_load(&krt_allocs), frees = atomic_load(&krt_frees);
    cr_assert_eq(allocs, 0, "libkrt made %lu heap allocations over 988 warm launches", allocs);
    cr_assert_eq(frees, 0, "libkrt freed heap memory %lu times over 988 warm launches", frees);
    /* Warm configuration queries do not allocate either. */
    krt_ndrange r = {1, {1000, 0, 0}};
    krt_launch_config c;
    KT_OK(krt_launch_config_get(w.iota, &r, &c));
    count_start();
    for (int i = 0; i < 100; i++)
        KT_OK(krt_launch_config_get(w.iota, &r, &c));
    count_stop();
    cr_assert_eq(atomic_load(&krt_allocs), 0, "warm krt_launch_config_get allocated");
    wl_check_and_close(&w, 998);
}

/* A fill is a launch of krt's fill kernel: no driver fill command, no USM allocation for the pattern, no
 * residency call and no wait, on every call. */
Test(memo, memfill_is_a_kernel_without_allocation_residency_or_wait)
{
    trace_start();
    krt_context *ctx = kt_context(NULL);
    enum { BYTES = 1 << 16, FILLS = 64 };
    unsigned char *dev = kt_alloc(ctx, BYTES, KRT_MEMORY_SHARED);
    unsigned char pattern[128];
    for (int i = 0; i < 128; i++)
        pattern[i] = (unsigned char)(i * 5 + 1);
    /* The first fill may build the fill kernel. */
    KT_OK(krt_memfill(ctx, NULL, dev, pattern, 4, BYTES));
    KT_OK(krt_context_synchronize(ctx));
    unsigned long before[C_COUNT];
    for (int i = 0; i < C_COUNT; i++)
        before[i] = atomic_load(&calls[i]);
    size_t last_ps = 1;
    for (int i = 0; i < FILLS; i++) {
        last_ps = (size_t)1 << (i % 8);
        KT_OK(krt_memfill(ctx, NULL, dev, pattern, last_ps, BYTES));
    }
    unsigned long d[C_COUNT];
    for (int i = 0; i < C_COUNT; i++)
        d[i] = atomic_load(&calls[i]) - before[i];
    cr_assert_eq(d[C_FILL], 0, "%lu zeCommandListAppendMemoryFill calls", d[C_FILL]);
    cr_assert_eq(d[C_ALLOC], 0, "%lu USM allocations for %d fills", d[C_ALLOC], FILLS);
    cr_assert_eq(d[C_RESIDENT], 0, "%lu residency calls", d[C_RESIDENT]);
    cr_assert_eq(d[C_EVENT_SYNC] + d[C_QUEUE_SYNC] + d[C_FENCE_SYNC], 0, "the fills waited %lu times",
                 d[C_EVENT_SYNC] + d[C_QUEUE_SYNC] + d[C_FENCE_SYNC]);
    cr_assert_geq(d[C_APPEND_KERNEL], FILLS, "%lu kernel launches for %d fills", d[C_APPEND_KERNEL], FILLS);
    KT_OK(krt_context_synchronize(ctx));
    for (int i = 0; i < BYTES; i++)
        cr_assert_eq(dev[i], pattern[(size_t)i % last_ps], "byte %d", i);
    krt_context_destroy(ctx);
}

/* No heap call from libkrt on warm fills, nor on warm launches that wait on events and signal one, nor on
 * launches on a queue of the caller's. */
Test(memo, no_malloc_on_warm_fills_and_event_launches)
{
    locate_libkrt();
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_basic");
    krt_kernel *k = kt_kernel(m, "krt_iota");
    krt_queue *q = NULL;
    KT_OK(krt_queue_create(ctx, NULL, &q));
    krt_event *ea = NULL, *eb = NULL, *ec = NULL;
    KT_OK(krt_event_create(ctx, NULL, &ea));
    KT_OK(krt_event_create(ctx, NULL, &eb));
    KT_OK(krt_event_create(ctx, NULL, &ec));
    enum { N = 2048 };
    uint32_t *out = kt_alloc(ctx, N * 4, KRT_MEMORY_SHARED);
    uint32_t n = N, base = 0;
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(n), KRT_ARG(base)};
    /* Signal ea and eb once, then every launch waits on both and signals ec. */
    krt_launch_desc da = kt_desc1(N, args, 3);
    da.signal = ea;
    KT_OK(krt_launch(k, &da));
    da.signal = eb;
    KT_OK(krt_launch(k, &da));
    KT_OK(krt_context_synchronize(ctx));
    krt_event *waits[] = {ea, eb};
    krt_launch_desc d = kt_desc1(N, args, 3);
    d.wait = waits;
    d.num_wait = 2;
    d.signal = ec;
    d.queue = q;
    uint32_t pattern = 0x01020304u;
    /* Warm up both paths. */
    for (int i = 0; i < 4; i++) {
        base = (uint32_t)i;
        KT_OK(krt_launch(k, &d));
        KT_OK(krt_memfill(ctx, q, out, &pattern, 4, N * 4));
    }
    KT_OK(krt_context_synchronize(ctx));
    count_start();
    for (int i = 0; i < 300; i++) {
        base = (uint32_t)i;
        KT_OK(krt_memfill(ctx, q, out, &pattern, 4, N * 4));
        KT_OK(krt_launch(k, &d));
    }
    count_stop();
    unsigned long allocs = atomic_load(&krt_allocs), frees = atomic_load(&krt_frees);
    cr_assert_eq(allocs, 0, "libkrt made %lu heap allocations over 300 warm fills and launches", allocs);
    cr_assert_eq(frees, 0, "libkrt freed heap memory %lu times over 300 warm fills and launches", frees);
    KT_OK(krt_context_synchronize(ctx));
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(out[i], 299 + i);
    krt_event_destroy(ea);
    krt_event_destroy(eb);
    krt_event_destroy(ec);
    krt_queue_destroy(q);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}
