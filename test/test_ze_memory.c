/* Unified shared memory of ze_pocl: allocation kinds, alignment, properties and address ranges. */
#include "ze_common.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static void check_props(zt_env *env, const void *p, ze_memory_type_t want, bool has_device)
{
    ze_memory_allocation_properties_t mp = {.stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES};
    ze_device_handle_t dev = (ze_device_handle_t)(uintptr_t)0x1;
    ZT_OK(zeMemGetAllocProperties(env->context, p, &mp, &dev));
    cr_assert_eq(mp.type, want, "pointer %p: type %d, expected %d", p, (int)mp.type, (int)want);
    if (has_device)
        cr_assert_eq(dev, env->device, "pointer %p: wrong device", p);
}

Test(ze_memory, allocation_types_and_properties)
{
    zt_env env;
    zt_init(&env);
    void *d = zt_alloc_device(&env, 4096);
    void *h = zt_alloc_host(&env, 4096);
    void *s = zt_alloc_shared(&env, 4096);
    check_props(&env, d, ZE_MEMORY_TYPE_DEVICE, true);
    check_props(&env, h, ZE_MEMORY_TYPE_HOST, false);
    check_props(&env, s, ZE_MEMORY_TYPE_SHARED, true);

    /* Live allocations have distinct identifiers. */
    uint64_t ids[3];
    void *ptrs[3] = {d, h, s};
    for (int i = 0; i < 3; i++) {
        ze_memory_allocation_properties_t mp = {.stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES};
        ZT_OK(zeMemGetAllocProperties(env.context, ptrs[i], &mp, NULL));
        ids[i] = mp.id;
    }
    cr_assert_neq(ids[0], ids[1]);
    cr_assert_neq(ids[0], ids[2]);
    cr_assert_neq(ids[1], ids[2]);

    /* Host and shared memory are directly usable by the host. */
    memset(h, 0xab, 4096);
    memset(s, 0xcd, 4096);
    cr_assert_eq(((unsigned char *)h)[4095], 0xab);
    cr_assert_eq(((unsigned char *)s)[4095], 0xcd);

    ZT_OK(zeMemFree(env.context, d));
    ZT_OK(zeMemFree(env.context, h));
    ZT_OK(zeMemFree(env.context, s));
    zt_fini(&env);
}

/* krt checks pointer arguments with this query, including pointers into the middle of an allocation. */
Test(ze_memory, interior_pointers_resolve_to_their_allocation)
{
    zt_env env;
    zt_init(&env);
    char *s = zt_alloc_shared(&env, 1 << 16);
    char *d = zt_alloc_device(&env, 1 << 16);
    check_props(&env, s + 1, ZE_MEMORY_TYPE_SHARED, true);
    check_props(&env, s + 12345, ZE_MEMORY_TYPE_SHARED, true);
    check_props(&env, s + (1 << 16) - 1, ZE_MEMORY_TYPE_SHARED, true);
    check_props(&env, d + 4000, ZE_MEMORY_TYPE_DEVICE, true);

    void *base = NULL;
    size_t size = 0;
    ZT_OK(zeMemGetAddressRange(env.context, s + 12345, &base, &size));
    cr_assert_eq(base, s);
    cr_assert_geq(size, (size_t)1 << 16);
    base = NULL;
    ZT_OK(zeMemGetAddressRange(env.context, d + 4000, &base, NULL));
    cr_assert_eq(base, d);
    size = 0;
    ZT_OK(zeMemGetAddressRange(env.context, d, NULL, &size));
    cr_assert_geq(size, (size_t)1 << 16);
    ZT_OK(zeMemFree(env.context, s));
    ZT_OK(zeMemFree(env.context, d));
    zt_fini(&env);
}

Test(ze_memory, unknown_pointers_report_unknown)
{
    zt_env env;
    zt_init(&env);
    int on_stack = 0;
    void *heap = malloc(256);
    cr_assert_not_null(heap);
    ze_memory_allocation_properties_t mp = {.stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES};
    ZT_OK(zeMemGetAllocProperties(env.context, &on_stack, &mp, NULL));
    cr_assert_eq(mp.type, ZE_MEMORY_TYPE_UNKNOWN);
    mp.type = ZE_MEMORY_TYPE_DEVICE;
    ZT_OK(zeMemGetAllocProperties(env.context, heap, &mp, NULL));
    cr_assert_eq(mp.type, ZE_MEMORY_TYPE_UNKNOWN);

    /* A freed allocation is unknown again. */
    char *s = zt_alloc_shared(&env, 4096);
    mp.type = ZE_MEMORY_TYPE_DEVICE;
    ZT_OK(zeMemFree(env.context, s));
    ZT_OK(zeMemGetAllocProperties(env.context, s, &mp, NULL));
    cr_assert_eq(mp.type, ZE_MEMORY_TYPE_UNKNOWN);
    free(heap);
    zt_fini(&env);
}

Test(ze_memory, alignment_is_honoured)
{
    zt_env env;
    zt_init(&env);
    ze_device_mem_alloc_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    for (size_t align = 1; align <= 65536; align *= 2) {
        void *p = NULL;
        ZT_OK(zeMemAllocDevice(env.context, &dd, 100, align, env.device, &p));
        cr_assert_eq((uintptr_t)p % align, 0, "device allocation %p not aligned to %zu", p, align);
        ZT_OK(zeMemFree(env.context, p));
        ZT_OK(zeMemAllocHost(env.context, &hd, 100, align, &p));
        cr_assert_eq((uintptr_t)p % align, 0, "host allocation %p not aligned to %zu", p, align);
        ZT_OK(zeMemFree(env.context, p));
        ZT_OK(zeMemAllocShared(env.context, &dd, &hd, 100, align, env.device, &p));
        cr_assert_eq((uintptr_t)p % align, 0, "shared allocation %p not aligned to %zu", p, align);
        ZT_OK(zeMemFree(env.context, p));
    }
    void *p = NULL;
    ZT_OK(zeMemAllocShared(env.context, &dd, &hd, 3, 0, env.device, &p));
    cr_assert_not_null(p);
    ZT_OK(zeMemFree(env.context, p));
    zt_fini(&env);
}

Test(ze_memory, invalid_sizes_and_alignments)
{
    zt_env env;
    zt_init(&env);
    ze_device_mem_alloc_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    void *p = NULL;
    ZT_EXPECT(zeMemAllocDevice(env.context, &dd, 64, 3, env.device, &p), ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT);
    ZT_EXPECT(zeMemAllocHost(env.context, &hd, 64, 48, &p), ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT);
    ZT_EXPECT(zeMemAllocShared(env.context, &dd, &hd, 64, 6, env.device, &p), ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT);
    ZT_EXPECT(zeMemAllocDevice(env.context, &dd, 0, 64, env.device, &p), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    ZT_EXPECT(zeMemAllocHost(env.context, &hd, 0, 64, &p), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    ZT_EXPECT(zeMemAllocShared(env.context, &dd, &hd, 0, 64, env.device, &p), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    zt_fini(&env);
}

Test(ze_memory, null_arguments)
{
    zt_env env;
    zt_init(&env);
    ze_device_mem_alloc_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    void *p = NULL;
    ZT_EXPECT(zeMemAllocHost(NULL, &hd, 64, 0, &p), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeMemAllocHost(env.context, NULL, 64, 0, &p), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(zeMemAllocHost(env.context, &hd, 64, 0, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(zeMemAllocDevice(env.context, &dd, 64, 0, NULL, &p), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeMemAllocDevice(env.context, NULL, 64, 0, env.device, &p), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(zeMemAllocShared(env.context, &dd, NULL, 64, 0, env.device, &p), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(zeMemFree(env.context, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(zeMemFree(NULL, &p), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ze_memory_allocation_properties_t mp = {.stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES};
    ZT_EXPECT(zeMemGetAllocProperties(env.context, NULL, &mp, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(zeMemGetAllocProperties(env.context, &mp, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(zeMemGetAddressRange(env.context, NULL, NULL, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zt_fini(&env);
}

/* Many live allocations of assorted sizes keep their own contents and properties. */
Test(ze_memory, many_allocations_keep_contents)
{
    zt_env env;
    zt_init(&env);
    enum { N = 64 };
    unsigned char *p[N];
    size_t sizes[N];
    for (int i = 0; i < N; i++) {
        sizes[i] = (size_t)(i * 977 % 5000) + 1;
        p[i] = (i % 2) ? zt_alloc_shared(&env, sizes[i]) : zt_alloc_host(&env, sizes[i]);
        memset(p[i], i, sizes[i]);
    }
    for (int i = 0; i < N; i++) {
        for (size_t j = 0; j < sizes[i]; j++)
            cr_assert_eq(p[i][j], (unsigned char)i, "allocation %d byte %zu overwritten", i, j);
        check_props(&env, p[i] + sizes[i] - 1, (i % 2) ? ZE_MEMORY_TYPE_SHARED : ZE_MEMORY_TYPE_HOST, false);
        void *base = NULL;
        ZT_OK(zeMemGetAddressRange(env.context, p[i] + sizes[i] / 2, &base, NULL));
        cr_assert_eq(base, p[i]);
    }
    for (int i = 0; i < N; i++)
        ZT_OK(zeMemFree(env.context, p[i]));
    zt_fini(&env);
}

/* The size must be below maxMemAllocSize; UNSUPPORTED_SIZE is the spec's code for a size the device does
 * not support. */
Test(ze_memory, above_max_alloc_size)
{
    zt_env env;
    zt_init(&env);
    ze_device_properties_t dp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    ZT_OK(zeDeviceGetProperties(env.device, &dp));
    cr_assert_lt(dp.maxMemAllocSize, (uint64_t)SIZE_MAX);
    size_t too_big = (size_t)dp.maxMemAllocSize + 1;
    ze_device_mem_alloc_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    void *p = NULL;
    ZT_EXPECT(zeMemAllocDevice(env.context, &dd, too_big, 0, env.device, &p), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    ZT_EXPECT(zeMemAllocShared(env.context, &dd, &hd, too_big, 0, env.device, &p), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    ZT_EXPECT(zeMemAllocHost(env.context, &hd, too_big, 0, &p), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    ZT_EXPECT(zeMemAllocHost(env.context, &hd, SIZE_MAX, 0, &p), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    zt_fini(&env);
}

/* Freeing something that is not the start of a live allocation must fail and leave allocations alone. */
Test(ze_memory, free_of_non_allocation_is_refused)
{
    zt_env env;
    zt_init(&env);
    char *s = zt_alloc_shared(&env, 4096);
    memset(s, 0x42, 4096);
    int on_stack = 0;
    cr_assert_neq(zeMemFree(env.context, s + 64), ZE_RESULT_SUCCESS, "freed an interior pointer");
    cr_assert_neq(zeMemFree(env.context, &on_stack), ZE_RESULT_SUCCESS, "freed a stack address");
    check_props(&env, s, ZE_MEMORY_TYPE_SHARED, true);
    for (int i = 0; i < 4096; i++)
        cr_assert_eq(s[i], 0x42);
    ZT_OK(zeMemFree(env.context, s));
    zt_fini(&env);
}

/* Allocation, query and free are thread-safe: threads churn through allocations and check each one. */
typedef struct {
    zt_env *env;
    int id;
    int errors;
} churn_job;

static void *churn_main(void *arg)
{
    churn_job *j = arg;
    ze_device_mem_alloc_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    for (int i = 0; i < 300; i++) {
        size_t size = (size_t)((i * 131 + j->id * 17) % 8192) + 1;
        unsigned char *p = NULL;
        if (zeMemAllocShared(j->env->context, &dd, &hd, size, 64, j->env->device, (void **)&p) != ZE_RESULT_SUCCESS) {
            j->errors++;
            continue;
        }
        memset(p, j->id, size);
        ze_memory_allocation_properties_t mp = {.stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES};
        void *base = NULL;
        if (zeMemGetAllocProperties(j->env->context, p + size - 1, &mp, NULL) != ZE_RESULT_SUCCESS ||
            mp.type != ZE_MEMORY_TYPE_SHARED)
            j->errors++;
        if (zeMemGetAddressRange(j->env->context, p + size / 2, &base, NULL) != ZE_RESULT_SUCCESS || base != p)
            j->errors++;
        for (size_t b = 0; b < size; b++)
            if (p[b] != (unsigned char)j->id) {
                j->errors++;
                break;
            }
        if (zeMemFree(j->env->context, p) != ZE_RESULT_SUCCESS)
            j->errors++;
    }
    return NULL;
}

Test(ze_memory, threads_allocate_query_and_free, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env;
    zt_init(&env);
    enum { THREADS = 4 };
    pthread_t th[THREADS];
    churn_job jobs[THREADS];
    for (int t = 0; t < THREADS; t++) {
        jobs[t] = (churn_job){.env = &env, .id = t + 1};
        cr_assert_eq(pthread_create(&th[t], NULL, churn_main, &jobs[t]), 0);
    }
    for (int t = 0; t < THREADS; t++) {
        cr_assert_eq(pthread_join(th[t], NULL), 0);
        cr_assert_eq(jobs[t].errors, 0, "thread %d saw %d errors", t, jobs[t].errors);
    }
    zt_fini(&env);
}

/* Documented: an unknown pointer has id 0 and no device; overlapping copies are refused. */
Test(ze_memory, unknown_pointer_has_no_device_and_overlaps_are_refused)
{
    zt_env env;
    zt_init(&env);
    int local = 0;
    ze_memory_allocation_properties_t mp = {.stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES, .id = 99};
    ze_device_handle_t dev = env.device;
    ZT_OK(zeMemGetAllocProperties(env.context, &local, &mp, &dev));
    cr_assert_eq(mp.type, ZE_MEMORY_TYPE_UNKNOWN);
    cr_assert_null(dev);
    cr_assert_eq(mp.id, 0);
    unsigned char *s = zt_alloc_shared(&env, 256);
    for (int i = 0; i < 256; i++)
        s[i] = (unsigned char)i;
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ZT_EXPECT(zeCommandListAppendMemoryCopy(l, s + 8, s, 64, NULL, 0, NULL), ZE_RESULT_ERROR_OVERLAPPING_REGIONS);
    ZT_EXPECT(zeCommandListAppendMemoryCopy(l, s, s + 63, 64, NULL, 0, NULL), ZE_RESULT_ERROR_OVERLAPPING_REGIONS);
    /* Adjacent is not overlapping. */
    ZT_OK(zeCommandListAppendMemoryCopy(l, s + 64, s, 64, NULL, 0, NULL));
    zt_immediate_sync(&env, l);
    for (int i = 0; i < 64; i++)
        cr_assert_eq(s[64 + i], i);
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeMemFree(env.context, s));
    zt_fini(&env);
}

/* Copies and fills are checked against the ze_pocl allocation they start in (issue 8): a range past its end is
 * ZE_RESULT_ERROR_INVALID_SIZE at append time, on immediate and regular lists alike, for every allocation
 * kind, and nothing is written; ranges that fit still run. */
static void expect_bounds_refused(ze_command_list_handle_t l, unsigned char *a, unsigned char *host)
{
    const size_t big = 1u << 20;
    static const uint8_t pat[4] = {1, 2, 3, 4};
    ZT_EXPECT(zeCommandListAppendMemoryCopy(l, a, host, big, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_SIZE);
    ZT_EXPECT(zeCommandListAppendMemoryCopy(l, host, a, big, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_SIZE);
    ZT_EXPECT(zeCommandListAppendMemoryCopy(l, a + 32, host, 33, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_SIZE);
    ZT_EXPECT(zeCommandListAppendMemoryCopy(l, host, a + 63, 2, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_SIZE);
    ZT_EXPECT(zeCommandListAppendMemoryCopy(l, a, host, SIZE_MAX, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_SIZE);
    ZT_EXPECT(zeCommandListAppendMemoryFill(l, a, pat, 4, big, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_SIZE);
    ZT_EXPECT(zeCommandListAppendMemoryFill(l, a + 60, pat, 4, 8, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_SIZE);
    ZT_EXPECT(zeCommandListAppendMemoryFill(l, a, pat, 1, SIZE_MAX, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_SIZE);
    /* 8 rows of 8 bytes fit a 64-byte allocation with pitch 8; a ninth row, or pitch 16, does not. */
    ze_copy_region_t r8 = {0, 0, 0, 8, 8, 1}, r9 = {0, 1, 0, 8, 8, 1};
    ZT_EXPECT(zeCommandListAppendMemoryCopyRegion(l, a, &r9, 8, 64, host, &r8, 8, 64, NULL, 0, NULL),
              ZE_RESULT_ERROR_INVALID_SIZE);
    ZT_EXPECT(zeCommandListAppendMemoryCopyRegion(l, host, &r8, 16, 128, a, &r8, 16, 128, NULL, 0, NULL),
              ZE_RESULT_ERROR_INVALID_SIZE);
    /* Depth 0 is a 2-D copy (one slice), checked like depth 1. */
    ze_copy_region_t r8_2d = {0, 0, 0, 8, 8, 0}, r9_2d = {0, 1, 0, 8, 8, 0};
    ZT_EXPECT(zeCommandListAppendMemoryCopyRegion(l, a, &r9_2d, 8, 0, host, &r8_2d, 8, 0, NULL, 0, NULL),
              ZE_RESULT_ERROR_INVALID_SIZE);
    ZT_EXPECT(zeCommandListAppendMemoryCopyRegion(l, host, &r8_2d, 16, 0, a, &r8_2d, 16, 0, NULL, 0, NULL),
              ZE_RESULT_ERROR_INVALID_SIZE);
    ze_copy_region_t huge = {0, 0, 0xffffffffu, 8, 8, 1};
    ZT_EXPECT(zeCommandListAppendMemoryCopyRegion(l, a, &huge, 8, 0xffffffffu, host, &huge, 8, 0xffffffffu, NULL,
                                                  0, NULL),
              ZE_RESULT_ERROR_INVALID_SIZE);
    /* What fits runs: the whole allocation, its last byte, a 64-byte region. */
    ZT_OK(zeCommandListAppendMemoryFill(l, a, pat, 4, 64, NULL, 0, NULL));
    ZT_OK(zeCommandListAppendMemoryCopy(l, host, a, 64, NULL, 0, NULL));
    ZT_OK(zeCommandListAppendMemoryCopy(l, host + 64, a + 63, 1, NULL, 0, NULL));
    ZT_OK(zeCommandListAppendMemoryCopyRegion(l, host + 128, &r8, 8, 64, a, &r8, 8, 64, NULL, 0, NULL));
}

static void check_bounds_results(const unsigned char *host)
{
    for (int i = 0; i < 64; i++) {
        cr_assert_eq(host[i], 1 + i % 4, "byte %d of the allocation is %u after the fill", i, host[i]);
        cr_assert_eq(host[128 + i], 1 + i % 4, "byte %d of the region copy is %u", i, host[128 + i]);
    }
    cr_assert_eq(host[64], 4);
    /* The refused fills and copies wrote nothing past the allocation into the host buffer's guard. */
    for (int i = 192; i < 1 << 20; i++)
        cr_assert_eq(host[i], 0xee, "host byte %d was written by a refused command", i);
}

Test(ze_memory, copies_and_fills_past_an_allocation_are_refused, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env;
    zt_init(&env);
    unsigned char *host = malloc(1u << 20);
    cr_assert_not_null(host);
    unsigned char *(*allocs[3])(zt_env *, size_t) = {
        (unsigned char *(*)(zt_env *, size_t))zt_alloc_shared, (unsigned char *(*)(zt_env *, size_t))zt_alloc_device,
        (unsigned char *(*)(zt_env *, size_t))zt_alloc_host};
    for (int kind = 0; kind < 3; kind++) {
        unsigned char *a = allocs[kind](&env, 64);
        /* Immediate list. */
        memset(host, 0xee, 1u << 20);
        ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
        expect_bounds_refused(l, a, host);
        zt_immediate_sync(&env, l);
        check_bounds_results(host);
        ZT_OK(zeCommandListDestroy(l));
        /* Regular list on a queue. */
        memset(host, 0xee, 1u << 20);
        ze_command_queue_handle_t q = zt_queue_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
        l = zt_list_create(&env);
        expect_bounds_refused(l, a, host);
        zt_execute_and_wait(q, l);
        check_bounds_results(host);
        ZT_OK(zeCommandListDestroy(l));
        ZT_OK(zeCommandQueueDestroy(q));
        ZT_OK(zeMemFree(env.context, a));
    }
    free(host);
    zt_fini(&env);
}
