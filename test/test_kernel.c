/* Kernels: lookup by name, the memoized handle, unknown names, and the driver's properties. */
#include <string.h>

#include "krt_test.h"

TestSuite(kernel, .timeout = KT_TEST_TIMEOUT);

#define MAX_GROUP_EXT "ZE_extension_kernel_max_group_size_properties"

Test(kernel, by_name_is_memoized)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_basic");
    krt_kernel *a = kt_kernel(m, "krt_vadd");
    krt_kernel *b = kt_kernel(m, "krt_iota");
    cr_assert_neq(a, b);
    cr_assert_eq(kt_kernel(m, "krt_vadd"), a, "second lookup gave a new handle");
    cr_assert_eq(kt_kernel(m, "krt_iota"), b);
    /* The name is matched whole, from a buffer of the caller's that changes afterwards. */
    char name[32];
    strcpy(name, "krt_vadd");
    cr_assert_eq(kt_kernel(m, name), a);
    strcpy(name, "krt_vaddx");
    krt_kernel *k = NULL;
    KT_EXPECT(krt_kernel_get(m, name, &k), KRT_ERROR_KERNEL_NOT_FOUND);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

Test(kernel, same_name_in_two_modules)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m1 = kt_module(ctx, "krt_basic");
    krt_module *m2 = kt_module(ctx, "krt_basic");
    krt_kernel *a = kt_kernel(m1, "krt_iota"), *b = kt_kernel(m2, "krt_iota");
    cr_assert_neq(a, b);
    krt_module_destroy(m1);
    /* The second module's kernel still works after the first module is gone. */
    enum { N = 300 };
    uint32_t *out = kt_alloc(ctx, N * 4, KRT_MEMORY_SHARED);
    uint32_t n = N, base = 5;
    krt_arg args[] = {KRT_ARG(out), KRT_ARG(n), KRT_ARG(base)};
    krt_launch_desc d = kt_desc1(N, args, 3);
    KT_OK(krt_launch_sync(b, &d));
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(out[i], 5 + i);
    krt_module_destroy(m2);
    krt_context_destroy(ctx);
}

Test(kernel, unknown_name)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_basic");
    krt_kernel *sentinel = (krt_kernel *)(uintptr_t)0x77, *k = sentinel;
    KT_EXPECT(krt_kernel_get(m, "no_such_kernel", &k), KRT_ERROR_KERNEL_NOT_FOUND);
    cr_assert_eq(k, sentinel, "output written on failure");
    KT_EXPECT(krt_kernel_get(m, "", &k), KRT_ERROR_KERNEL_NOT_FOUND);
    KT_EXPECT(krt_kernel_get(m, "krt_vad", &k), KRT_ERROR_KERNEL_NOT_FOUND);
    KT_EXPECT(krt_kernel_get(m, "KRT_VADD", &k), KRT_ERROR_KERNEL_NOT_FOUND);
    /* The module and context work afterwards. */
    cr_assert_not_null(kt_kernel(m, "krt_vadd"));
    kt_assert_usable(ctx);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

Test(kernel, bad_arguments)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_basic");
    krt_kernel *k = NULL;
    KT_EXPECT(krt_kernel_get(m, NULL, &k), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_kernel_get(m, "krt_vadd", NULL), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_kernel_get(NULL, "krt_vadd", &k), KRT_ERROR_INVALID_ARGUMENT);
    krt_kernel_properties p;
    KT_EXPECT(krt_kernel_properties_get(NULL, &p), KRT_ERROR_INVALID_ARGUMENT);
    KT_EXPECT(krt_kernel_properties_get(kt_kernel(m, "krt_vadd"), NULL), KRT_ERROR_INVALID_ARGUMENT);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

Test(kernel, properties)
{
    krt_context *ctx = kt_context(NULL);
    krt_device_info dev;
    KT_OK(krt_context_device_info(ctx, &dev));
    krt_module *m = kt_module(ctx, "krt_basic");
    krt_kernel_properties p, again;
    memset(&p, 0xcd, sizeof p);
    KT_OK(krt_kernel_properties_get(kt_kernel(m, "krt_vadd"), &p));
    cr_assert_eq(p.num_args, 4);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(p.required_group[i], 0);
    cr_assert_gt(p.max_group_size, 0);
    cr_assert_leq(p.max_group_size, dev.max_group_size);
    cr_assert_geq(p.preferred_multiple, 1);
    cr_assert_eq(p.max_group_size_from_extension, krt_context_has_extension(ctx, MAX_GROUP_EXT),
                 "max_group_size_from_extension disagrees with the extension list");
    cr_assert_eq(p.local_mem_size, 0, "krt_vadd has no local memory, got %u", p.local_mem_size);
    cr_assert_eq(p.spill_mem_size, 0, "krt_vadd spills %u bytes", p.spill_mem_size);
    /* Memoized: the same answer again. */
    memset(&again, 0x11, sizeof again);
    KT_OK(krt_kernel_properties_get(kt_kernel(m, "krt_vadd"), &again));
    cr_assert_eq(again.num_args, p.num_args);
    cr_assert_eq(again.max_group_size, p.max_group_size);
    cr_assert_eq(again.preferred_multiple, p.preferred_multiple);
    cr_assert_eq(again.private_mem_size, p.private_mem_size);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

Test(kernel, properties_required_group)
{
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_basic");
    krt_kernel_properties p;
    KT_OK(krt_kernel_properties_get(kt_kernel(m, "krt_reqd64"), &p));
    cr_assert_eq(p.required_group[0], 64);
    cr_assert_eq(p.required_group[1], 1);
    cr_assert_eq(p.required_group[2], 1);
    cr_assert_eq(p.num_args, 2);
    KT_OK(krt_kernel_properties_get(kt_kernel(m, "krt_reqd16x2"), &p));
    cr_assert_eq(p.required_group[0], 16);
    cr_assert_eq(p.required_group[1], 2);
    cr_assert_eq(p.required_group[2], 1);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

/* Per-kernel figures, even with several kernels in one module. */
Test(kernel, properties_local_memory_per_kernel)
{
    kt_skip_on_host("static __local arrays are thread-local data of the native library and private arrays live on the host stack, so the host device reports no local, private or spill memory per kernel");
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_basic");
    krt_kernel_properties tile, plain;
    KT_OK(krt_kernel_properties_get(kt_kernel(m, "krt_local_tile"), &tile));
    KT_OK(krt_kernel_properties_get(kt_kernel(m, "krt_iota"), &plain));
    cr_assert_geq(tile.local_mem_size, 128 * sizeof(int), "krt_local_tile has a 512-byte tile, got %u",
                  tile.local_mem_size);
    cr_assert_eq(plain.local_mem_size, 0, "krt_iota has no local memory, got %u", plain.local_mem_size);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}

Test(kernel, properties_private_memory_per_kernel)
{
    kt_skip_on_host("static __local arrays are thread-local data of the native library and private arrays live on the host stack, so the host device reports no local, private or spill memory per kernel");
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_spill");
    krt_kernel_properties big, none;
    KT_OK(krt_kernel_properties_get(kt_kernel(m, "krt_private_16k"), &big));
    KT_OK(krt_kernel_properties_get(kt_kernel(m, "krt_private_none"), &none));
    cr_assert_geq((uint64_t)big.private_mem_size + big.spill_mem_size, 16384,
                  "a 16 KiB private array: private %u + spill %u", big.private_mem_size, big.spill_mem_size);
    cr_assert_gt(big.spill_mem_size, 0, "a 16 KiB private array does not spill");
    cr_assert_eq(none.spill_mem_size, 0, "krt_private_none spills %u", none.spill_mem_size);
    cr_assert_lt(none.private_mem_size, 16384);
    krt_module_destroy(m);
    krt_context_destroy(ctx);
}
