/* Memory: allocation kinds and alignment, free and bad pointers, queued copies, and fills with every pattern
 * size from 1 to 128 bytes. */
#include <stdlib.h>
#include <string.h>

#include "krt_test.h"

TestSuite(memory, .timeout = KT_TEST_TIMEOUT);

Test(memory, every_kind_round_trips)
{
    krt_context *ctx = kt_context(NULL);
    enum { N = 100000 };
    unsigned char *src = malloc(N), *back = malloc(N);
    cr_assert(src && back);
    for (size_t i = 0; i < N; i++)
        src[i] = (unsigned char)(i * 31 + 7);
    const krt_memory_kind kinds[] = {KRT_MEMORY_DEVICE, KRT_MEMORY_HOST, KRT_MEMORY_SHARED};
    for (int k = 0; k < 3; k++) {
        unsigned char *p = kt_alloc(ctx, N, kinds[k]);
        cr_assert_eq((uintptr_t)p % 64, 0, "kind %d: default alignment is 64", k);
        memset(back, 0, N);
        kt_copy_sync(ctx, p, src, N);
        kt_copy_sync(ctx, back, p, N);
        cr_assert_eq(memcmp(back, src, N), 0, "kind %d: data changed on the round trip", k);
        if (kinds[k] != KRT_MEMORY_DEVICE) {
            /* Host and shared memory are readable and writable by the host directly. */
            cr_assert_eq(memcmp(p, src, N), 0, "kind %d", k);
            p[5] = 0xa5;
            kt_copy_sync(ctx, back, p, N);
            cr_assert_eq(back[5], 0xa5);
        }
        KT_OK(krt_free(ctx, p));
    }
    free(src);
    free(back);
    krt_context_destroy(ctx);
}

static void check_alignments(krt_context *ctx, const size_t *aligns, size_t count)
{
    for (size_t i = 0; i < count; i++)
        for (int kind = 0; kind < 3; kind++) {
            krt_alloc_desc d = {.kind = (krt_memory_kind)kind, .alignment = aligns[i]};
            void *p = NULL;
            krt_result r = krt_alloc(ctx, 1000, &d, &p);
            cr_assert_eq(r, KRT_SUCCESS, "kind %d alignment %zu: %s (%s)", kind, aligns[i], krt_result_name(r),
                         krt_last_error_message());
            cr_assert_eq((uintptr_t)p % aligns[i], 0, "kind %d alignment %zu gave %p", kind, aligns[i], p);
            KT_OK(krt_free(ctx, p));
        }
}

Test(memory, alignment)
{
    krt_context *ctx = kt_context(NULL);
    const size_t aligns[] = {1, 2, 8, 64, 128};
    check_alignments(ctx, aligns, sizeof aligns / sizeof aligns[0]);
    krt_context_destroy(ctx);
}

/* Level Zero allows any power of two; page alignment is a common request. */
Test(memory, large_alignment)
{
    krt_context *ctx = kt_context(NULL);
    const size_t aligns[] = {256, 4096, 65536};
    check_alignments(ctx, aligns, sizeof aligns / sizeof aligns[0]);
    krt_context_destroy(ctx);
}

Test(memory, bad_allocations)
{
    krt_context *ctx = kt_context(NULL);
    void *sentinel = (void *)(uintptr_t)0x99, *p = sentinel;
    KT_EXPECT(krt_alloc(ctx, 0, NULL, &p), KRT_ERROR_INVALID_ARGUMENT);
    krt_alloc_desc odd = {.alignment = 48};
    KT_EXPECT(krt_alloc(ctx, 64, &odd, &p), KRT_ERROR_INVALID_ARGUMENT);
    krt_alloc_desc three = {.alignment = 3};
    KT_EXPECT(krt_alloc(ctx, 64, &three, &p), KRT_ERROR_INVALID_ARGUMENT);
    krt_alloc_desc kind = {.kind = (krt_memory_kind)7};
    KT_EXPECT(krt_alloc(ctx, 64, &kind, &p), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_alloc(ctx, 64, NULL, NULL), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_alloc(NULL, 64, NULL, &p), KRT_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(p, sentinel, "output written on failure");
    /* NULL desc takes the defaults: device memory aligned to 64. */
    KT_OK(krt_alloc(ctx, 64, NULL, &p));
    cr_assert_eq((uintptr_t)p % 64, 0);
    KT_OK(krt_free(ctx, p));
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

/* More device memory than the device has: krt.h lists size 0, a bad alignment or kind and a NULL out as the
 * invalid arguments; an allocation that cannot be satisfied is out of device memory. */
Test(memory, allocation_larger_than_the_device)
{
    krt_context *ctx = kt_context(NULL);
    krt_device_info dev;
    KT_OK(krt_context_device_info(ctx, &dev));
    void *p = NULL;
    krt_alloc_desc d = {.kind = KRT_MEMORY_DEVICE};
    KT_EXPECT(krt_alloc(ctx, (size_t)dev.memory_bytes * 4, &d, &p), KRT_ERROR_OUT_OF_DEVICE_MEMORY);
    KT_EXPECT(krt_alloc(ctx, SIZE_MAX / 2, &d, &p), KRT_ERROR_OUT_OF_DEVICE_MEMORY);
    cr_assert_null(p);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

Test(memory, free_bad_pointers)
{
    krt_context *ctx = kt_context(NULL);
    KT_OK(krt_free(ctx, NULL));
    int on_stack = 0;
    KT_EXPECT(krt_free(ctx, &on_stack), KRT_ERROR_INVALID_POINTER);
    void *heap = malloc(64);
    KT_EXPECT(krt_free(ctx, heap), KRT_ERROR_INVALID_POINTER);
    free(heap);
    char *p = kt_alloc(ctx, 4096, KRT_MEMORY_SHARED);
    KT_EXPECT(krt_free(ctx, p + 64), KRT_ERROR_INVALID_POINTER);
    KT_OK(krt_free(ctx, p));
    KT_EXPECT(krt_free(ctx, p), KRT_ERROR_INVALID_POINTER);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

Test(memory, free_in_the_wrong_context)
{
    krt_context *a = kt_context(NULL), *b = kt_context(NULL);
    void *p = kt_alloc(a, 256, KRT_MEMORY_DEVICE);
    KT_EXPECT(krt_free(b, p), KRT_ERROR_INVALID_POINTER);
    KT_OK(krt_free(a, p));
    krt_context_destroy(b);
    krt_context_destroy(a);
}

Test(memory, many_allocations_and_context_destroy_frees_the_rest)
{
    krt_context *ctx = kt_context(NULL);
    void *ptrs[64];
    for (int i = 0; i < 64; i++) {
        ptrs[i] = kt_alloc(ctx, (size_t)(i + 1) * 1000, (krt_memory_kind)(i % 3));
        for (int j = 0; j < i; j++)
            cr_assert_neq(ptrs[i], ptrs[j]);
    }
    for (int i = 0; i < 64; i += 2)
        KT_OK(krt_free(ctx, ptrs[i]));
    /* The odd ones are left for krt_context_destroy. */
    krt_context_destroy(ctx);
}

Test(memory, memcpy_device_to_device_and_offsets)
{
    krt_context *ctx = kt_context(NULL);
    enum { N = 65536 };
    uint32_t *host = malloc(N * 4), *back = calloc(N, 4);
    cr_assert(host && back);
    for (uint32_t i = 0; i < N; i++)
        host[i] = i ^ 0x5a5a5a5au;
    uint32_t *a = kt_alloc(ctx, N * 4, KRT_MEMORY_DEVICE), *b = kt_alloc(ctx, N * 4, KRT_MEMORY_DEVICE);
    KT_OK(krt_memcpy(ctx, NULL, a, host, N * 4));
    KT_OK(krt_memcpy(ctx, NULL, b, a, N * 4));
    /* Ordered on the queue: the overwrite of a's start does not reach b. */
    uint32_t zeros[16] = {0};
    KT_OK(krt_memcpy(ctx, NULL, a, zeros, sizeof zeros));
    /* An odd size at odd offsets. */
    KT_OK(krt_memcpy(ctx, NULL, (char *)b + 3, (char *)a + 1001, 777));
    KT_OK(krt_queue_synchronize(krt_context_default_queue(ctx)));
    kt_copy_sync(ctx, back, b, N * 4);
    unsigned char *want = malloc(N * 4);
    cr_assert_not_null(want);
    memcpy(want, host, N * 4);
    memcpy(want + 3, (char *)host + 1001, 777);
    cr_assert_eq(memcmp(back, want, N * 4), 0);
    kt_copy_sync(ctx, back, a, 64);
    cr_assert_eq(memcmp(back, zeros, 64), 0);
    free(want);
    free(host);
    free(back);
    krt_context_destroy(ctx);
}

/* Any two host pointers too: plain malloc memory on both sides. */
Test(memory, memcpy_host_to_host)
{
    krt_context *ctx = kt_context(NULL);
    enum { N = 300000 };
    unsigned char *a = malloc(N), *b = malloc(N);
    cr_assert(a && b);
    for (int i = 0; i < N; i++)
        a[i] = (unsigned char)(i * 13 + 5);
    memset(b, 0, N);
    kt_copy_sync(ctx, b, a, N);
    cr_assert_eq(memcmp(a, b, N), 0);
    free(a);
    free(b);
    krt_context_destroy(ctx);
}

Test(memory, memcpy_bad_arguments)
{
    krt_context *ctx = kt_context(NULL);
    char host[64] = {0};
    void *dev = kt_alloc(ctx, 64, KRT_MEMORY_DEVICE);
    KT_EXPECT(krt_memcpy(NULL, NULL, dev, host, 64), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_memcpy(ctx, NULL, NULL, host, 64), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_memcpy(ctx, NULL, dev, NULL, 64), KRT_ERROR_INVALID_ARGUMENT);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

/* Fills size bytes at offset `at` of a device buffer with the pattern and checks the whole buffer: the fill
 * range holds the pattern, the rest keeps its guard bytes. */
static void check_fill(krt_context *ctx, size_t pattern_size, size_t count, size_t at)
{
    size_t size = pattern_size * count, total = at + size + 256;
    unsigned char pattern[128];
    for (size_t i = 0; i < pattern_size; i++)
        pattern[i] = (unsigned char)(0x11 + i * 7 + pattern_size);
    unsigned char *host = malloc(total), *want = malloc(total);
    cr_assert(host && want);
    memset(want, 0xc3, total);
    for (size_t i = 0; i < size; i++)
        want[at + i] = pattern[i % pattern_size];
    unsigned char *dev = kt_alloc(ctx, total, KRT_MEMORY_DEVICE);
    memset(host, 0xc3, total);
    KT_OK(krt_memcpy(ctx, NULL, dev, host, total));
    KT_OK(krt_memfill(ctx, NULL, dev + at, pattern, pattern_size, size));
    /* The pattern is passed by value: changing it now cannot change the queued fill. */
    memset(pattern, 0, sizeof pattern);
    KT_OK(krt_queue_synchronize(krt_context_default_queue(ctx)));
    kt_copy_sync(ctx, host, dev, total);
    for (size_t i = 0; i < total; i++)
        cr_assert_eq(host[i], want[i], "pattern %zu x %zu at %zu: byte %zu is 0x%02x, expected 0x%02x",
                     pattern_size, count, at, i, host[i], want[i]);
    KT_OK(krt_free(ctx, dev));
    free(host);
    free(want);
}

Test(memory, fill_every_pattern_size)
{
    krt_context *ctx = kt_context(NULL);
    for (size_t ps = 1; ps <= 128; ps *= 2) {
        check_fill(ctx, ps, 1, 0);
        check_fill(ctx, ps, 37, 0);
        check_fill(ctx, ps, 1000, ps * 3);
    }
    krt_context_destroy(ctx);
}

Test(memory, fill_large_and_unaligned)
{
    krt_context *ctx = kt_context(NULL);
    check_fill(ctx, 1, 3 * 1024 * 1024 + 5, 1);
    check_fill(ctx, 4, 1000003, 8);
    check_fill(ctx, 16, 4099, 16);
    check_fill(ctx, 128, 2049, 128);
    krt_context_destroy(ctx);
}

/* Nothing asks dst to be aligned to the pattern: fills start at odd offsets too. */
Test(memory, fill_at_unaligned_offsets)
{
    krt_context *ctx = kt_context(NULL);
    for (size_t ps = 2; ps <= 128; ps *= 2) {
        check_fill(ctx, ps, 100, 1);
        check_fill(ctx, ps, 33, 3);
        check_fill(ctx, ps, 7, ps + 5);
    }
    krt_context_destroy(ctx);
}

Test(memory, fill_shared_memory_seen_by_host)
{
    krt_context *ctx = kt_context(NULL);
    enum { N = 10000 };
    uint32_t *p = kt_alloc(ctx, N * 4, KRT_MEMORY_SHARED);
    uint32_t v = 0xdeadbeefu;
    KT_OK(krt_memfill(ctx, NULL, p, &v, 4, N * 4));
    KT_OK(krt_context_synchronize(ctx));
    for (int i = 0; i < N; i++)
        cr_assert_eq(p[i], 0xdeadbeefu, "item %d", i);
    krt_context_destroy(ctx);
}

Test(memory, fill_bad_sizes)
{
    krt_context *ctx = kt_context(NULL);
    unsigned char pattern[256] = {1, 2, 3};
    unsigned char *dev = kt_alloc(ctx, 4096, KRT_MEMORY_DEVICE);
    const size_t bad_patterns[] = {0, 3, 5, 6, 7, 12, 24, 48, 96, 100, 127, 129, 256};
    for (size_t i = 0; i < sizeof bad_patterns / sizeof bad_patterns[0]; i++) {
        size_t ps = bad_patterns[i];
        KT_EXPECT(krt_memfill(ctx, NULL, dev, pattern, ps, ps ? ps * 8 : 64), KRT_ERROR_INVALID_ARGUMENT);
    }
    /* size not a multiple of the pattern */
    KT_EXPECT(krt_memfill(ctx, NULL, dev, pattern, 4, 1022), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_memfill(ctx, NULL, dev, pattern, 128, 4000), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_memfill(ctx, NULL, dev, pattern, 2, 1), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_memfill(ctx, NULL, dev, NULL, 4, 64), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_memfill(NULL, NULL, dev, pattern, 4, 64), KRT_ERROR_INVALID_ARGUMENT);
    /* dst must come from krt_alloc. */
    unsigned char *heap = malloc(4096);
    KT_EXPECT(krt_memfill(ctx, NULL, heap, pattern, 4, 64), KRT_ERROR_INVALID_POINTER);
    free(heap);
    /* Nothing was written by the failed calls: the buffer still holds what was copied in. */
    unsigned char host[4096], back[4096];
    memset(host, 0x3c, sizeof host);
    kt_copy_sync(ctx, dev, host, sizeof host);
    KT_EXPECT(krt_memfill(ctx, NULL, dev, pattern, 3, 12), KRT_ERROR_INVALID_ARGUMENT);
    KT_OK(krt_context_synchronize(ctx));
    kt_copy_sync(ctx, back, dev, sizeof back);
    cr_assert_eq(memcmp(host, back, sizeof host), 0);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

Test(memory, fill_on_another_queue)
{
    krt_context *ctx = kt_context(NULL);
    krt_queue *q = NULL;
    KT_OK(krt_queue_create(ctx, NULL, &q));
    enum { N = 4096 };
    uint16_t *p = kt_alloc(ctx, N * 2, KRT_MEMORY_SHARED);
    uint16_t v = 0x1234;
    KT_OK(krt_memfill(ctx, q, p, &v, 2, N * 2));
    KT_OK(krt_queue_synchronize(q));
    for (int i = 0; i < N; i++)
        cr_assert_eq(p[i], 0x1234);
    krt_queue_destroy(q);
    krt_context_destroy(ctx);
}

/* The same work on PoCL's single-threaded "basic" device, which runs commands inline: a driver that re-enters
 * PoCL from inside a command deadlocks there (the timeout turns that into a failure). */
Test(memory, copies_and_fills_on_the_basic_pocl_device, .timeout = 60)
{
    setenv("POCL_DEVICES", "basic", 1);
    krt_context *ctx = kt_context(NULL);
    enum { N = 4096 };
    unsigned char src[N], back[N];
    for (int i = 0; i < N; i++)
        src[i] = (unsigned char)(i * 3);
    unsigned char *dev = kt_alloc(ctx, N, KRT_MEMORY_DEVICE);
    kt_copy_sync(ctx, dev, src, N);
    kt_copy_sync(ctx, back, dev, N);
    cr_assert_eq(memcmp(back, src, N), 0);
    uint32_t v = 0xabcdef01u;
    KT_OK(krt_memfill(ctx, NULL, dev, &v, 4, N));
    kt_copy_sync(ctx, back, dev, N);
    for (int i = 0; i < N; i += 4)
        cr_assert_eq(memcmp(back + i, &v, 4), 0, "byte %d", i);
    kt_assert_usable(ctx);
    krt_context_destroy(ctx);
}

/* krt_device_info.device_memory_host_accessible: where it says 1 (a CPU device, the host device), the host writes
 * device memory in place, a kernel scales it, and the host reads the kernel's result in place after the queue is
 * idle, with no krt_memcpy. Every listed device says 1 exactly when it is a CPU or the host device. */
Test(memory, device_memory_host_access_is_as_the_device_info_says)
{
    uint32_t count = 0;
    KT_OK(krt_device_list(NULL, &count));
    krt_device_info *infos = calloc(count, sizeof *infos);
    cr_assert(infos);
    KT_OK(krt_device_list(infos, &count));
    for (uint32_t i = 0; i < count; i++) {
        int host = infos[i].type == KRT_DEVICE_TYPE_CPU || infos[i].type == KRT_DEVICE_TYPE_HOST;
        cr_assert_eq(infos[i].device_memory_host_accessible, host, "device %u (%s, %s): %d", i, infos[i].name,
                     krt_device_type_name(infos[i].type), infos[i].device_memory_host_accessible);
    }
    free(infos);

    krt_context *ctx = kt_context(NULL);
    krt_device_info info;
    KT_OK(krt_context_device_info(ctx, &info));
    if (!info.device_memory_host_accessible) {
        cr_assert_eq(info.type, KRT_DEVICE_TYPE_GPU, "%s says its device memory is not host memory", info.name);
        krt_context_destroy(ctx);
        return;
    }
    enum { N = 10007 };
    int *p = kt_alloc(ctx, N * sizeof(int), KRT_MEMORY_DEVICE);
    for (int i = 0; i < N; i++)
        p[i] = i - 5000;
    krt_kernel *scale = kt_kernel(kt_module(ctx, "krt_basic"), "krt_scale");
    int factor = -3;
    uint32_t n = N;
    krt_arg args[] = {KRT_ARG(p), KRT_ARG(factor), KRT_ARG(n)};
    krt_launch_desc d = kt_desc1(N, args, 3);
    KT_OK(krt_launch(scale, &d));
    KT_OK(krt_queue_synchronize(krt_context_default_queue(ctx)));
    for (int i = 0; i < N; i++)
        cr_assert_eq(p[i], (i - 5000) * -3, "p[%d] = %d", i, p[i]);
    krt_context_destroy(ctx);
}
