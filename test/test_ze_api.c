/* The Level Zero API version the driver reports, and what the versions after 1.4 added to the core API up to it:
 * zeCommandListHostSynchronize and zeDriverGetLastErrorDescription (1.6), zeDeviceGetRootDevice (1.7), the
 * getters of 1.9, zeInitDrivers (1.10), physical host memory without a device (1.10), and the new values of
 * existing enums (1.6's KERNEL_MAPPED_TIMESTAMP event pools, 1.7's memory advice, 1.9's command list flags).
 *
 * The installed headers (API 1.4) declare none of the newer functions, and Debian's loader (1.8.12) neither
 * exports them nor has room for them in its tables: it cannot reach them. So each is called the way a loader of
 * the driver's version would call it: the loader's own export when the loader in use has one (a newer loader, as
 * make test runs this binary a second time with ../shared/level-zero-loader's 1.32.0 on LD_LIBRARY_PATH), else
 * the driver's own table entry at the index the specification gives it, read from the driver's table getter as
 * that loader would read it. With one driver and no interception the loader hands the application the driver's
 * own handles, so they may be passed to that entry as they are. */
#include "ze_common.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define T(name) Test(ze_api, name, .timeout = ZT_TEST_TIMEOUT)

/* Values newer than the installed headers, as the specification defines them. */
#define ZT_EVENT_POOL_FLAG_KERNEL_MAPPED_TIMESTAMP ((ze_event_pool_flags_t)(1u << 3))  /* 1.6 */
#define ZT_MEMORY_ADVICE_SET_SYSTEM_MEMORY_PREFERRED_LOCATION ((ze_memory_advice_t)8)   /* 1.7 */
#define ZT_MEMORY_ADVICE_CLEAR_SYSTEM_MEMORY_PREFERRED_LOCATION ((ze_memory_advice_t)9) /* 1.7 */
#define ZT_COMMAND_LIST_FLAG_IN_ORDER ((ze_command_list_flags_t)(1u << 3))              /* 1.7 */
#define ZT_COMMAND_LIST_FLAG_EXP_CLONEABLE ((ze_command_list_flags_t)(1u << 4))         /* 1.9 */

/* Where an entry point lies: its table getter and its index in the specification's table of API 1.13. */
typedef struct {
    const char *name;
    const char *getter;
    unsigned slot;
} zt_entry_at;

#define ZT_ENTRY(name, getter, slot) ((zt_entry_at){#name, #getter, slot})

/* The entry point `e`, as a loader of API 1.13 reaches it. */
static void *entry(zt_entry_at e)
{
    void *f = dlsym(RTLD_DEFAULT, e.name);
    if (f)
        return f;
    const char *intercept = getenv("ZE_ENABLE_LOADER_INTERCEPT");
    if (intercept && strcmp(intercept, "1") == 0)
        cr_skip_test("%s: the loader in use does not export it, and with ZE_ENABLE_LOADER_INTERCEPT=1 it wraps the "
                     "handles the driver's own entry would need",
                     e.name);
    const char *path = getenv("ZE_ENABLE_ALT_DRIVERS");
    cr_assert(path && path[0] == '/' && !strchr(path, ','),
              "%s: the loader in use does not export it; reaching the driver's own entry needs ZE_ENABLE_ALT_DRIVERS "
              "to name one driver by absolute path",
              e.name);
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(lib, "dlopen(%s): %s", path, dlerror());
    ze_result_t (*get)(ze_api_version_t, void *);
    *(void **)&get = dlsym(lib, e.getter);
    cr_assert_not_null(get, "%s not exported", e.getter);
    void *table[64];
    memset(table, 0, sizeof table);
    ZT_OK(get(ZE_MAKE_VERSION(1, 13), table));
    cr_assert_not_null(table[e.slot], "%s: entry %u of %s's 1.13 table is NULL", e.name, e.slot, e.getter);
    f = table[e.slot];
    dlclose(lib); /* the loader holds the library: the entry stays valid */
    return f;
}

typedef ze_result_t (*zt_host_sync_fn)(ze_command_list_handle_t, uint64_t);

static zt_host_sync_fn host_sync_fn(void)
{
    zt_host_sync_fn f;
    *(void **)&f = entry(ZT_ENTRY(zeCommandListHostSynchronize, zeGetCommandListProcAddrTable, 28));
    return f;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The version every table and zeDriverGetApiVersion answer with: 1.13, the newest whose core functions the driver
 * implements (docs/driver.md, "API version"). */
T(api_version_is_1_13)
{
    zt_env env;
    zt_init(&env);
    ze_api_version_t v = 0;
    ZT_OK(zeDriverGetApiVersion(env.driver, &v));
    cr_assert_eq(v, ZE_MAKE_VERSION(1, 13), "version %u.%u", ZE_MAJOR_VERSION(v), ZE_MINOR_VERSION(v));
    zt_fini(&env);
}

/* zeCommandListHostSynchronize on an immediate list whose commands are held back behind a gate event nothing has
 * signalled: a timeout of 0 and one of 2 ms answer ZE_RESULT_NOT_READY (the second after waiting its time); once
 * the host signals the gate, a wait without timeout returns with the copy done and its event set, and an idle list
 * answers ZE_RESULT_SUCCESS for a timeout of 0. */
T(host_synchronize_waits_for_held_back_commands)
{
    zt_env env;
    zt_init(&env);
    zt_host_sync_fn host_sync = host_sync_fn();
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ZT_OK(host_sync(l, 0)); /* nothing appended yet */
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 2, false);
    ze_event_handle_t gate = zt_event_create(pool, 0), done = zt_event_create(pool, 1);
    enum { N = 4096 };
    uint32_t *src = zt_alloc_shared(&env, N * sizeof *src), *dst = zt_alloc_shared(&env, N * sizeof *dst);
    for (uint32_t i = 0; i < N; i++) {
        src[i] = i * 2654435761u;
        dst[i] = 0;
    }
    ZT_OK(zeCommandListAppendBarrier(l, NULL, 1, &gate));
    ZT_OK(zeCommandListAppendMemoryCopy(l, dst, src, N * sizeof *src, done, 0, NULL));
    ZT_EXPECT(host_sync(l, 0), ZE_RESULT_NOT_READY);
    uint64_t t0 = now_ns();
    ZT_EXPECT(host_sync(l, 2000000), ZE_RESULT_NOT_READY);
    cr_assert_geq(now_ns() - t0, 2000000, "a 2 ms timeout returned after %lu ns", (unsigned long)(now_ns() - t0));
    ZT_EXPECT(zeEventQueryStatus(done), ZE_RESULT_NOT_READY);
    cr_assert_eq(dst[N - 1], 0, "the copy ran before its gate");
    ZT_OK(zeEventHostSignal(gate));
    ZT_OK(host_sync(l, UINT64_MAX));
    ZT_OK(zeEventQueryStatus(done));
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(dst[i], i * 2654435761u, "dst[%u]", i);
    ZT_OK(host_sync(l, 0));
    ZT_OK(zeEventDestroy(gate));
    ZT_OK(zeEventDestroy(done));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeMemFree(env.context, src));
    ZT_OK(zeMemFree(env.context, dst));
    ZT_OK(zeCommandListDestroy(l));
    zt_fini(&env);
}

/* Kernels handed straight to the device (no events: the launch path that bypasses the stream), then waited for
 * with bounded timeouts only, as the conformance suite waits (UINT64_MAX - 1), and by polling with 0: each wait
 * that returns ZE_RESULT_SUCCESS leaves every kernel done and the signalled event set. Several rounds on one list,
 * so a later round must not be answered by an earlier round's completion. */
T(host_synchronize_with_timeouts_sees_every_launch)
{
    zt_env env;
    zt_init(&env);
    zt_host_sync_fn host_sync = host_sync_fn();
    ze_module_handle_t m = zt_module_load(&env, "ze_private");
    ze_kernel_handle_t k = zt_kernel_create(m, "big_private");
    enum { N = 8192 };
    int *in = zt_alloc_shared(&env, N * sizeof(int)), *out = zt_alloc_shared(&env, N * sizeof(int));
    for (int i = 0; i < N; i++)
        in[i] = i % 13;
    int n = N;
    zt_set_args(k, 3, sizeof in, &in, sizeof out, &out, sizeof n, &n);
    ZT_OK(zeKernelSetGroupSize(k, 16, 1, 1));
    ze_group_count_t gc = {N / 16, 1, 1};
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 1, false);
    ze_event_handle_t e = zt_event_create(pool, 0);
    for (int round = 0; round < 6; round++) {
        memset(out, 0xff, N * sizeof(int));
        for (int i = 0; i < 3; i++)
            ZT_OK(zeCommandListAppendLaunchKernel(l, k, &gc, NULL, 0, NULL));
        ZT_OK(zeCommandListAppendLaunchKernel(l, k, &gc, e, 0, NULL));
        if (round % 2 == 0) {
            ZT_OK(host_sync(l, UINT64_MAX - 1));
        } else {
            uint64_t t0 = now_ns();
            ze_result_t r;
            while ((r = host_sync(l, 0)) == ZE_RESULT_NOT_READY)
                cr_assert_lt(now_ns() - t0, ZT_TIMEOUT_NS, "round %d: the list never became idle", round);
            ZT_OK(r);
        }
        ZT_OK(zeEventQueryStatus(e));
        for (int g = 0; g < N; g += 97) {
            int sum = 0;
            for (int i = 0; i < 4096; i++) {
                int j = (i * 7 + g) % 4096;
                sum += in[(g + j) % N] + j;
            }
            cr_assert_eq(out[g], sum, "round %d: out[%d]", round, g);
        }
        ZT_OK(zeEventHostReset(e));
    }
    ZT_OK(zeEventDestroy(e));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeMemFree(env.context, in));
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

typedef struct {
    zt_host_sync_fn host_sync;
    ze_command_list_handle_t list;
    ze_result_t result;
} zt_sync_job;

static void *sync_thread(void *p)
{
    zt_sync_job *j = p;
    j->result = j->host_sync(j->list, ZT_TIMEOUT_NS);
    return NULL;
}

/* "The application may call this function from simultaneous threads": two threads wait on one list held behind a
 * gate; both return ZE_RESULT_SUCCESS only after the host signals it, with the copy done. */
T(host_synchronize_from_two_threads)
{
    zt_env env;
    zt_init(&env);
    zt_host_sync_fn host_sync = host_sync_fn();
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 1, false);
    ze_event_handle_t gate = zt_event_create(pool, 0);
    uint64_t *src = zt_alloc_shared(&env, sizeof *src), *dst = zt_alloc_shared(&env, sizeof *dst);
    *src = 0x0123456789abcdefull;
    *dst = 0;
    ZT_OK(zeCommandListAppendMemoryCopy(l, dst, src, sizeof *src, NULL, 1, &gate));
    zt_sync_job jobs[2] = {{host_sync, l, ZE_RESULT_ERROR_UNKNOWN}, {host_sync, l, ZE_RESULT_ERROR_UNKNOWN}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, sync_thread, &jobs[i]), 0);
    struct timespec pause = {0, 20000000};
    nanosleep(&pause, NULL);
    cr_assert_eq(*dst, 0, "the copy ran before its gate");
    ZT_OK(zeEventHostSignal(gate));
    for (int i = 0; i < 2; i++) {
        pthread_join(t[i], NULL);
        ZT_OK(jobs[i].result);
    }
    cr_assert_eq(*dst, 0x0123456789abcdefull);
    ZT_OK(zeEventDestroy(gate));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeMemFree(env.context, src));
    ZT_OK(zeMemFree(env.context, dst));
    ZT_OK(zeCommandListDestroy(l));
    zt_fini(&env);
}

/* A regular list has nothing of its own to wait for: ZE_RESULT_ERROR_INVALID_ARGUMENT, "handle does not correspond
 * to an immediate command list"; a NULL list, ZE_RESULT_ERROR_INVALID_NULL_HANDLE. A synchronous immediate list is
 * idle after every append. */
T(host_synchronize_refuses_regular_lists)
{
    zt_env env;
    zt_init(&env);
    zt_host_sync_fn host_sync = host_sync_fn();
    ze_command_list_handle_t regular = zt_list_create(&env);
    ZT_EXPECT(host_sync(regular, 0), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ZT_EXPECT(host_sync(regular, UINT64_MAX), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ZT_OK(zeCommandListClose(regular));
    ZT_EXPECT(host_sync(regular, 0), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ZT_EXPECT(host_sync(NULL, 0), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ze_command_list_handle_t sync = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    uint32_t *p = zt_alloc_shared(&env, 64);
    uint32_t pattern = 0xa5a5a5a5u;
    ZT_OK(zeCommandListAppendMemoryFill(sync, p, &pattern, sizeof pattern, 64, NULL, 0, NULL));
    ZT_OK(host_sync(sync, 0));
    cr_assert_eq(p[15], 0xa5a5a5a5u);
    ZT_OK(zeMemFree(env.context, p));
    ZT_OK(zeCommandListDestroy(sync));
    ZT_OK(zeCommandListDestroy(regular));
    zt_fini(&env);
}

/* API 1.9's getters answer what each object was created with. */
T(getters_of_1_9)
{
    zt_env env;
    zt_init(&env);
    ze_result_t (*queue_ordinal)(ze_command_queue_handle_t, uint32_t *);
    ze_result_t (*queue_index)(ze_command_queue_handle_t, uint32_t *);
    ze_result_t (*list_device)(ze_command_list_handle_t, ze_device_handle_t *);
    ze_result_t (*list_context)(ze_command_list_handle_t, ze_context_handle_t *);
    ze_result_t (*list_ordinal)(ze_command_list_handle_t, uint32_t *);
    ze_result_t (*list_index)(ze_command_list_handle_t, uint32_t *);
    ze_result_t (*list_is_immediate)(ze_command_list_handle_t, ze_bool_t *);
    ze_result_t (*pool_context)(ze_event_pool_handle_t, ze_context_handle_t *);
    ze_result_t (*pool_flags)(ze_event_pool_handle_t, ze_event_pool_flags_t *);
    ze_result_t (*event_pool)(ze_event_handle_t, ze_event_pool_handle_t *);
    ze_result_t (*signal_scope)(ze_event_handle_t, ze_event_scope_flags_t *);
    ze_result_t (*wait_scope)(ze_event_handle_t, ze_event_scope_flags_t *);
    *(void **)&queue_ordinal = entry(ZT_ENTRY(zeCommandQueueGetOrdinal, zeGetCommandQueueProcAddrTable, 4));
    *(void **)&queue_index = entry(ZT_ENTRY(zeCommandQueueGetIndex, zeGetCommandQueueProcAddrTable, 5));
    *(void **)&list_device = entry(ZT_ENTRY(zeCommandListGetDeviceHandle, zeGetCommandListProcAddrTable, 29));
    *(void **)&list_context = entry(ZT_ENTRY(zeCommandListGetContextHandle, zeGetCommandListProcAddrTable, 30));
    *(void **)&list_ordinal = entry(ZT_ENTRY(zeCommandListGetOrdinal, zeGetCommandListProcAddrTable, 31));
    *(void **)&list_index = entry(ZT_ENTRY(zeCommandListImmediateGetIndex, zeGetCommandListProcAddrTable, 32));
    *(void **)&list_is_immediate = entry(ZT_ENTRY(zeCommandListIsImmediate, zeGetCommandListProcAddrTable, 33));
    *(void **)&pool_context = entry(ZT_ENTRY(zeEventPoolGetContextHandle, zeGetEventPoolProcAddrTable, 6));
    *(void **)&pool_flags = entry(ZT_ENTRY(zeEventPoolGetFlags, zeGetEventPoolProcAddrTable, 7));
    *(void **)&event_pool = entry(ZT_ENTRY(zeEventGetEventPool, zeGetEventProcAddrTable, 8));
    *(void **)&signal_scope = entry(ZT_ENTRY(zeEventGetSignalScope, zeGetEventProcAddrTable, 9));
    *(void **)&wait_scope = entry(ZT_ENTRY(zeEventGetWaitScope, zeGetEventProcAddrTable, 10));

    ze_command_queue_desc_t qd = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, .ordinal = env.compute_ordinal,
                                  .index = 2, .mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS};
    ze_command_queue_handle_t q = NULL;
    ZT_OK(zeCommandQueueCreate(env.context, env.device, &qd, &q));
    uint32_t u = 99;
    ZT_OK(queue_ordinal(q, &u));
    cr_assert_eq(u, env.compute_ordinal);
    ZT_OK(queue_index(q, &u));
    cr_assert_eq(u, 2);
    ZT_EXPECT(queue_index(q, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(queue_ordinal(NULL, &u), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);

    ze_command_list_handle_t imm = NULL, reg = zt_list_create(&env);
    ze_command_queue_desc_t id = qd;
    id.index = 3;
    ZT_OK(zeCommandListCreateImmediate(env.context, env.device, &id, &imm));
    ze_command_list_handle_t lists[2] = {imm, reg};
    for (int i = 0; i < 2; i++) {
        ze_device_handle_t d = NULL;
        ze_context_handle_t c = NULL;
        ze_bool_t b = 7;
        ZT_OK(list_device(lists[i], &d));
        cr_assert_eq(d, env.device);
        ZT_OK(list_context(lists[i], &c));
        cr_assert_eq(c, env.context);
        u = 99;
        ZT_OK(list_ordinal(lists[i], &u));
        cr_assert_eq(u, env.compute_ordinal);
        ZT_OK(list_is_immediate(lists[i], &b));
        cr_assert_eq(b, i == 0);
    }
    ZT_OK(list_index(imm, &u));
    cr_assert_eq(u, 3);
    ZT_EXPECT(list_index(reg, &u), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ZT_EXPECT(list_is_immediate(imm, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);

    ze_event_pool_desc_t pd = {.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
                               .flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP,
                               .count = 2};
    ze_event_pool_handle_t pool = NULL;
    ZT_OK(zeEventPoolCreate(env.context, &pd, 1, &env.device, &pool));
    ze_context_handle_t c = NULL;
    ZT_OK(pool_context(pool, &c));
    cr_assert_eq(c, env.context);
    ze_event_pool_flags_t pf = 0;
    ZT_OK(pool_flags(pool, &pf));
    cr_assert_eq(pf, ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP);
    ze_event_desc_t ed = {.stype = ZE_STRUCTURE_TYPE_EVENT_DESC, .index = 1, .signal = ZE_EVENT_SCOPE_FLAG_DEVICE,
                          .wait = ZE_EVENT_SCOPE_FLAG_HOST | ZE_EVENT_SCOPE_FLAG_SUBDEVICE};
    ze_event_handle_t e = NULL;
    ZT_OK(zeEventCreate(pool, &ed, &e));
    ze_event_pool_handle_t p = NULL;
    ZT_OK(event_pool(e, &p));
    cr_assert_eq(p, pool);
    ze_event_scope_flags_t sf = 99;
    ZT_OK(signal_scope(e, &sf));
    cr_assert_eq(sf, ZE_EVENT_SCOPE_FLAG_DEVICE);
    ZT_OK(wait_scope(e, &sf));
    cr_assert_eq(sf, ZE_EVENT_SCOPE_FLAG_HOST | ZE_EVENT_SCOPE_FLAG_SUBDEVICE);
    ZT_EXPECT(event_pool(NULL, &p), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);

    ZT_OK(zeEventDestroy(e));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeCommandListDestroy(imm));
    ZT_OK(zeCommandListDestroy(reg));
    ZT_OK(zeCommandQueueDestroy(q));
    zt_fini(&env);
}

/* zeDeviceGetRootDevice (1.7): the device is no sub-device, so it belongs to no root device: NULL.
 * zeDriverGetLastErrorDescription (1.6): the empty string, which the specification allows where the result code
 * says it all; it is there after an error too. zeMemPutIpcHandle and zeEventPoolPutIpcHandle (1.6) belong with
 * IPC, which the driver does not offer (zeDriverGetIpcProperties): ZE_RESULT_ERROR_UNSUPPORTED_FEATURE. */
T(root_device_error_description_and_ipc_put)
{
    zt_env env;
    zt_init(&env);
    ze_result_t (*root)(ze_device_handle_t, ze_device_handle_t *);
    ze_result_t (*describe)(ze_driver_handle_t, const char **);
    ze_result_t (*mem_put)(ze_context_handle_t, ze_ipc_mem_handle_t);
    ze_result_t (*pool_put)(ze_context_handle_t, ze_ipc_event_pool_handle_t);
    *(void **)&root = entry(ZT_ENTRY(zeDeviceGetRootDevice, zeGetDeviceProcAddrTable, 18));
    *(void **)&describe = entry(ZT_ENTRY(zeDriverGetLastErrorDescription, zeGetDriverProcAddrTable, 6));
    *(void **)&mem_put = entry(ZT_ENTRY(zeMemPutIpcHandle, zeGetMemProcAddrTable, 10));
    *(void **)&pool_put = entry(ZT_ENTRY(zeEventPoolPutIpcHandle, zeGetEventPoolProcAddrTable, 5));

    ze_device_handle_t r = env.device;
    ZT_OK(root(env.device, &r));
    cr_assert_null(r);
    ZT_EXPECT(root(env.device, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(root(NULL, &r), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);

    const char *s = NULL;
    ZT_OK(describe(env.driver, &s));
    cr_assert_str_eq(s, "");
    ZT_EXPECT(zeCommandListCreate(env.context, env.device, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    s = NULL;
    ZT_OK(describe(env.driver, &s));
    cr_assert_not_null(s);
    cr_assert_str_eq(s, "");
    ZT_EXPECT(describe(env.driver, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);

    ze_ipc_mem_handle_t mh;
    memset(&mh, 0, sizeof mh);
    ZT_EXPECT(mem_put(env.context, mh), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
    ze_ipc_event_pool_handle_t ph;
    memset(&ph, 0, sizeof ph);
    ZT_EXPECT(pool_put(env.context, ph), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
    zt_fini(&env);
}

/* Values that later versions added to enums of 1.4's functions, which those functions take now: command list flags
 * IN_ORDER (1.7, a list runs in order anyway) and EXP_CLONEABLE (1.9), memory advice SET/CLEAR_SYSTEM_MEMORY_
 * PREFERRED_LOCATION (1.7, no-ops as every advice), and event pools with KERNEL_MAPPED_TIMESTAMP (1.6), whose events
 * give kernel timestamps in the host's time domain: the device clock is a host clock, the one
 * zeDeviceGetGlobalTimestamps reads, so a kernel lies between two readings of it. Values past the newest are
 * still refused, and the two timestamp flags together ("cannot be combined") are ZE_RESULT_ERROR_INVALID_ARGUMENT. */
T(enum_values_of_later_versions)
{
    if (zt_validation_layer() && !dlsym(RTLD_DEFAULT, "zeCommandListHostSynchronize"))
        cr_skip_test("the validation layer of a loader of API 1.4 refuses the values of later versions before the "
                     "driver sees them");
    zt_env env;
    zt_init(&env);
    ze_command_list_desc_t ld = {.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC,
                                 .commandQueueGroupOrdinal = env.compute_ordinal,
                                 .flags = ZT_COMMAND_LIST_FLAG_IN_ORDER | ZT_COMMAND_LIST_FLAG_EXP_CLONEABLE};
    ze_command_list_handle_t l = NULL;
    ZT_OK(zeCommandListCreate(env.context, env.device, &ld, &l));
    ZT_OK(zeCommandListDestroy(l));
    ld.flags = 1u << 5;
    ZT_EXPECT(zeCommandListCreate(env.context, env.device, &ld, &l), ZE_RESULT_ERROR_INVALID_ENUMERATION);

    ze_command_list_handle_t imm = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    void *p = zt_alloc_shared(&env, 4096);
    ZT_OK(zeCommandListAppendMemAdvise(imm, env.device, p, 4096,
                                       ZT_MEMORY_ADVICE_SET_SYSTEM_MEMORY_PREFERRED_LOCATION));
    ZT_OK(zeCommandListAppendMemAdvise(imm, env.device, p, 4096,
                                       ZT_MEMORY_ADVICE_CLEAR_SYSTEM_MEMORY_PREFERRED_LOCATION));
    ZT_EXPECT(zeCommandListAppendMemAdvise(imm, env.device, p, 4096, (ze_memory_advice_t)10),
              ZE_RESULT_ERROR_INVALID_ENUMERATION);

    ze_event_pool_desc_t pd = {.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
                               .flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZT_EVENT_POOL_FLAG_KERNEL_MAPPED_TIMESTAMP,
                               .count = 1};
    ze_event_pool_handle_t pool = NULL;
    ze_event_pool_desc_t both = pd;
    both.flags |= ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP;
    ZT_EXPECT(zeEventPoolCreate(env.context, &both, 1, &env.device, &pool), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ze_event_pool_desc_t past = pd;
    past.flags = 1u << 4;
    ZT_EXPECT(zeEventPoolCreate(env.context, &past, 1, &env.device, &pool), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    ZT_OK(zeEventPoolCreate(env.context, &pd, 1, &env.device, &pool));
    ze_event_handle_t e = zt_event_create(pool, 0);
    ze_module_handle_t m = zt_module_load(&env, "ze_vadd");
    ze_kernel_handle_t k = zt_kernel_create(m, "iota");
    uint32_t *out = zt_alloc_shared(&env, 1024 * sizeof(uint32_t));
    zt_set_args(k, 1, sizeof out, &out);
    ZT_OK(zeKernelSetGroupSize(k, 64, 1, 1));
    ze_device_properties_t dp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    ZT_OK(zeDeviceGetProperties(env.device, &dp));
    uint64_t h0, d0, h1, d1;
    ZT_OK(zeDeviceGetGlobalTimestamps(env.device, &h0, &d0));
    ze_group_count_t gc = {16, 1, 1};
    ZT_OK(zeCommandListAppendLaunchKernel(imm, k, &gc, e, 0, NULL));
    ZT_OK(zeEventHostSynchronize(e, ZT_TIMEOUT_NS));
    ZT_OK(zeDeviceGetGlobalTimestamps(env.device, &h1, &d1));
    ze_kernel_timestamp_result_t ts;
    ZT_OK(zeEventQueryKernelTimestamp(e, &ts));
    uint32_t bits = dp.kernelTimestampValidBits;
    cr_assert(zt_ts_leq(d0, ts.global.kernelStart, bits), "kernel start %lu before the launch (%lu)",
              (unsigned long)ts.global.kernelStart, (unsigned long)d0);
    cr_assert(zt_ts_leq(ts.global.kernelStart, ts.global.kernelEnd, bits));
    cr_assert(zt_ts_leq(ts.global.kernelEnd, d1, bits), "kernel end %lu after the wait (%lu)",
              (unsigned long)ts.global.kernelEnd, (unsigned long)d1);
    for (uint32_t i = 0; i < 1024; i++)
        cr_assert_eq(out[i], i);

    ZT_OK(zeEventDestroy(e));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeMemFree(env.context, p));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    ZT_OK(zeCommandListDestroy(imm));
    zt_fini(&env);
}

/* zeInitDrivers (1.10), ze_init_driver_type_desc_t and its flags as the specification defines them. */
#define ZT_STRUCTURE_TYPE_INIT_DRIVER_TYPE_DESC ((ze_structure_type_t)0x00020021)
#define ZT_INIT_DRIVER_TYPE_FLAG_GPU 1u
#define ZT_INIT_DRIVER_TYPE_FLAG_NPU 2u
typedef struct {
    ze_structure_type_t stype;
    const void *pNext;
    uint32_t flags;
} zt_init_driver_type_desc_t;
typedef ze_result_t (*zt_init_drivers_fn)(uint32_t *, ze_driver_handle_t *, zt_init_driver_type_desc_t *);

/* The loader's zeInitDrivers when it has one (it then starts the drivers itself); else zeInit through the loader
 * in use (so that the driver the entry belongs to is the loader's), then the driver's own entry. */
static zt_init_drivers_fn init_drivers_fn(bool *through_loader)
{
    zt_init_drivers_fn f;
    *(void **)&f = dlsym(RTLD_DEFAULT, "zeInitDrivers");
    *through_loader = f != NULL;
    if (!f) {
        ZT_OK(zeInit(0));
        *(void **)&f = entry(ZT_ENTRY(zeInitDrivers, zeGetGlobalProcAddrTable, 1));
    }
    return f;
}

/* zeInitDrivers for GPU drivers answers with the driver, whose device is the one zeInit's path finds (a CPU device
 * is answered for the GPU type, as zeInit(ZE_INIT_FLAG_GPU_ONLY) is); the two-call pattern gives the count first. */
T(init_drivers_finds_the_driver)
{
    bool via_loader;
    zt_init_drivers_fn init_drivers = init_drivers_fn(&via_loader);
    zt_init_driver_type_desc_t desc = {ZT_STRUCTURE_TYPE_INIT_DRIVER_TYPE_DESC, NULL, ZT_INIT_DRIVER_TYPE_FLAG_GPU};
    uint32_t n = 0;
    ZT_OK(init_drivers(&n, NULL, &desc));
    cr_assert_eq(n, 1, "%u drivers", n);
    ze_driver_handle_t drv = NULL;
    ZT_OK(init_drivers(&n, &drv, &desc));
    cr_assert_eq(n, 1);
    cr_assert_not_null(drv);
    if (!via_loader) {
        /* One driver, no interception: zeDriverGet hands out the same handle. */
        ze_driver_handle_t got = NULL;
        uint32_t one = 1;
        ZT_OK(zeDriverGet(&one, &got));
        cr_assert_eq(got, drv);
    }
    uint32_t ndev = 0;
    ZT_OK(zeDeviceGet(drv, &ndev, NULL));
    cr_assert_geq(ndev, 1);
    ze_device_handle_t dev = NULL;
    ndev = 1;
    ZT_OK(zeDeviceGet(drv, &ndev, &dev));
    ze_device_properties_t dp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    ZT_OK(zeDeviceGetProperties(dev, &dp));
    cr_assert(dp.type == ZE_DEVICE_TYPE_CPU || dp.type == ZE_DEVICE_TYPE_GPU, "device type %d", (int)dp.type);
    ze_api_version_t v = 0;
    ZT_OK(zeDriverGetApiVersion(drv, &v));
    cr_assert_eq(v, ZE_MAKE_VERSION(1, 13));
}

/* zeInitDrivers for NPU drivers only finds none here (ZE_RESULT_SUCCESS, count 0); no flag at all is
 * ZE_RESULT_ERROR_INVALID_ENUMERATION, a NULL count or descriptor ZE_RESULT_ERROR_INVALID_NULL_POINTER. */
T(init_drivers_for_other_types_or_none)
{
    bool via_loader;
    zt_init_drivers_fn init_drivers = init_drivers_fn(&via_loader);
    zt_init_driver_type_desc_t npu = {ZT_STRUCTURE_TYPE_INIT_DRIVER_TYPE_DESC, NULL, ZT_INIT_DRIVER_TYPE_FLAG_NPU};
    uint32_t n = 5;
    ZT_OK(init_drivers(&n, NULL, &npu));
    cr_assert_eq(n, 0, "%u drivers for NPUs", n);
    zt_init_driver_type_desc_t none = {ZT_STRUCTURE_TYPE_INIT_DRIVER_TYPE_DESC, NULL, 0};
    n = 0;
    ZT_EXPECT(init_drivers(&n, NULL, &none), ZE_RESULT_ERROR_INVALID_ENUMERATION);
    ZT_EXPECT(init_drivers(NULL, NULL, &npu), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(init_drivers(&n, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
}

/* Physical host memory without a device (1.10: hDevice "can be nullptr if creating physical host memory"): made
 * with the system page size, mapped into reserved address space, written and read back; device memory still needs
 * a device (ZE_RESULT_ERROR_INVALID_NULL_HANDLE). */
T(physical_host_memory_without_a_device)
{
    zt_env env;
    zt_init(&env);
    size_t page = 0;
    ze_result_t r = zeVirtualMemQueryPageSize(env.context, env.device, 1, &page);
    if (r == ZE_RESULT_ERROR_UNSUPPORTED_FEATURE) {
        zt_fini(&env);
        cr_skip_test("the device has no virtual memory");
    }
    ZT_OK(r);
    if (zt_validation_layer()) {
        zt_fini(&env);
        cr_skip_test("the validation layer refuses a NULL device before the driver sees it (its checks list "
                     "`nullptr == hDevice` although the parameter's text allows it for host memory)");
    }
    ze_physical_mem_desc_t pd = {.stype = ZE_STRUCTURE_TYPE_PHYSICAL_MEM_DESC, .flags = 0x2 /* ALLOCATE_ON_HOST */,
                                 .size = page};
    ze_physical_mem_handle_t ph = NULL;
    ze_result_t hr = zePhysicalMemCreate(env.context, NULL, &pd, &ph);
    if (hr == ZE_RESULT_ERROR_UNSUPPORTED_FEATURE) { /* ze_cuda on a GPU without host virtual memory */
        zt_fini(&env);
        cr_skip_test("the device's driver offers no physical host memory");
    }
    ZT_OK(hr);
    void *va = NULL;
    ZT_OK(zeVirtualMemReserve(env.context, NULL, page, &va));
    ZT_OK(zeVirtualMemMap(env.context, va, page, ph, 0, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE));
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    uint32_t pattern = 0x5eed5eedu;
    ZT_OK(zeCommandListAppendMemoryFill(l, va, &pattern, sizeof pattern, page, NULL, 0, NULL));
    uint32_t *back = zt_alloc_shared(&env, page);
    ZT_OK(zeCommandListAppendMemoryCopy(l, back, va, page, NULL, 0, NULL));
    for (size_t i = 0; i < page / 4; i++)
        cr_assert_eq(back[i], 0x5eed5eedu, "word %zu", i);
    ZT_OK(zeVirtualMemUnmap(env.context, va, page));
    ZT_OK(zeVirtualMemFree(env.context, va, page));
    ZT_OK(zePhysicalMemDestroy(env.context, ph));
    pd.flags = 0;
    ZT_EXPECT(zePhysicalMemCreate(env.context, NULL, &pd, &ph), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_OK(zeMemFree(env.context, back));
    ZT_OK(zeCommandListDestroy(l));
    zt_fini(&env);
}
