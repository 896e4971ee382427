/* Launches on ze_pocl with every result checked on the host: element-wise kernels, a local-memory
 * reduction, atomics, 2-D and 3-D ranges, struct and scalar arguments, copies and fills, and threads. */
#include "ze_common.h"
#include "offset_cases.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define T(name) Test(ze_launch, name, .timeout = ZT_TEST_TIMEOUT)

static void run_vadd(zt_env *env, ze_command_list_handle_t list, bool immediate, ze_command_queue_handle_t queue)
{
    enum { N = 1 << 16 };
    ze_module_handle_t m = zt_module_load(env, "ze_vadd");
    ze_kernel_handle_t k = zt_kernel_create(m, "vadd");
    float *a = zt_alloc_shared(env, N * sizeof(float));
    float *b = zt_alloc_host(env, N * sizeof(float));
    float *c = zt_alloc_shared(env, N * sizeof(float));
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = (float)(2 * i + 1);
        c[i] = -1.0f;
    }
    zt_set_args(k, 3, sizeof a, &a, sizeof b, &b, sizeof c, &c);
    ZT_OK(zeKernelSetGroupSize(k, 64, 1, 1));
    ze_group_count_t gc = {N / 64, 1, 1};
    ZT_OK(zeCommandListAppendLaunchKernel(list, k, &gc, NULL, 0, NULL));
    if (immediate)
        zt_immediate_sync(env, list);
    else
        zt_execute_and_wait(queue, list);
    for (int i = 0; i < N; i++)
        cr_assert_eq(c[i], (float)(3 * i + 1), "c[%d] = %f", i, (double)c[i]);
    ZT_OK(zeMemFree(env->context, a));
    ZT_OK(zeMemFree(env->context, b));
    ZT_OK(zeMemFree(env->context, c));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
}

T(vadd_immediate_async)
{
    zt_env env;
    zt_init(&env);
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    run_vadd(&env, l, true, NULL);
    ZT_OK(zeCommandListDestroy(l));
    zt_fini(&env);
}

T(vadd_immediate_sync)
{
    zt_env env;
    zt_init(&env);
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    run_vadd(&env, l, true, NULL);
    ZT_OK(zeCommandListDestroy(l));
    zt_fini(&env);
}

T(vadd_regular_list)
{
    zt_env env;
    zt_init(&env);
    ze_command_queue_handle_t q = zt_queue_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t l = zt_list_create(&env);
    run_vadd(&env, l, false, q);
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeCommandQueueDestroy(q));
    zt_fini(&env);
}

/* The global range may exceed the data; the kernel masks, and items past n stay untouched. */
T(scalar_arguments_and_partial_range)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_vadd");
    ze_kernel_handle_t k = zt_kernel_create(m, "add_scalar");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    enum { CAP = 1024 };
    int *x = zt_alloc_shared(&env, CAP * sizeof(int));
    for (int i = 0; i < CAP; i++)
        x[i] = i;
    int kv = -7;
    uint32_t n = 1000;
    zt_set_args(k, 3, sizeof x, &x, sizeof kv, &kv, sizeof n, &n);
    zt_launch_sync(&env, l, k, 32, 1, 1, (1000 + 31) / 32, 1, 1);
    for (int i = 0; i < CAP; i++)
        cr_assert_eq(x[i], i < 1000 ? i - 7 : i, "x[%d] = %d", i, x[i]);
    ZT_OK(zeMemFree(env.context, x));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* Arguments are captured when a launch is appended: changing one afterwards affects later launches only. */
T(arguments_captured_at_append)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_vadd");
    ze_kernel_handle_t k = zt_kernel_create(m, "add_scalar");
    ze_command_queue_handle_t q = zt_queue_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t l = zt_list_create(&env);
    int *x = zt_alloc_shared(&env, 64 * sizeof(int));
    int *y = zt_alloc_shared(&env, 64 * sizeof(int));
    memset(x, 0, 64 * sizeof(int));
    memset(y, 0, 64 * sizeof(int));
    int one = 1, ten = 10;
    uint32_t n = 64;
    zt_set_args(k, 3, sizeof x, &x, sizeof one, &one, sizeof n, &n);
    ZT_OK(zeKernelSetGroupSize(k, 16, 1, 1));
    ze_group_count_t gc = {4, 1, 1};
    ZT_OK(zeCommandListAppendLaunchKernel(l, k, &gc, NULL, 0, NULL));
    ZT_OK(zeCommandListAppendBarrier(l, NULL, 0, NULL));
    zt_set_args(k, 2, sizeof x, &x, sizeof ten, &ten);
    ZT_OK(zeCommandListAppendLaunchKernel(l, k, &gc, NULL, 0, NULL));
    ZT_OK(zeCommandListAppendBarrier(l, NULL, 0, NULL));
    zt_set_args(k, 1, sizeof y, &y);
    ZT_OK(zeKernelSetGroupSize(k, 8, 1, 1));
    ZT_OK(zeCommandListAppendLaunchKernel(l, k, &gc, NULL, 0, NULL));
    zt_execute_and_wait(q, l);
    for (int i = 0; i < 64; i++) {
        cr_assert_eq(x[i], 11, "x[%d] = %d", i, x[i]);
        /* The last launch: group size 8 over 4 groups covers 32 items with k = 10. */
        cr_assert_eq(y[i], i < 32 ? 10 : 0, "y[%d] = %d", i, y[i]);
    }
    ZT_OK(zeMemFree(env.context, x));
    ZT_OK(zeMemFree(env.context, y));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeCommandQueueDestroy(q));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* In-order immediate list: 200 dependent launches each add 1. */
T(many_launches_in_order)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_vadd");
    ze_kernel_handle_t k = zt_kernel_create(m, "add_scalar");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    int *x = zt_alloc_shared(&env, 256 * sizeof(int));
    memset(x, 0, 256 * sizeof(int));
    int one = 1;
    uint32_t n = 256;
    zt_set_args(k, 3, sizeof x, &x, sizeof one, &one, sizeof n, &n);
    ZT_OK(zeKernelSetGroupSize(k, 64, 1, 1));
    ze_group_count_t gc = {4, 1, 1};
    for (int i = 0; i < 200; i++)
        ZT_OK(zeCommandListAppendLaunchKernel(l, k, &gc, NULL, 0, NULL));
    zt_immediate_sync(&env, l);
    for (int i = 0; i < 256; i++)
        cr_assert_eq(x[i], 200, "x[%d] = %d", i, x[i]);
    ZT_OK(zeMemFree(env.context, x));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

static void check_reduction(const int *in, const int *partial, uint32_t groups, uint32_t gs)
{
    for (uint32_t g = 0; g < groups; g++) {
        int want = 0;
        for (uint32_t i = 0; i < gs; i++)
            want += in[g * gs + i];
        cr_assert_eq(partial[g], want, "group %u of size %u: %d, expected %d", g, gs, partial[g], want);
    }
}

T(reduction_with_local_memory_and_barriers)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_reduce");
    ze_kernel_handle_t k = zt_kernel_create(m, "reduce_sum");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    enum { N = 1 << 14 };
    int *in = zt_alloc_shared(&env, N * sizeof(int));
    /* One spare element past the largest number of groups shows a write beyond the last group. */
    int *partial = zt_alloc_shared(&env, (N + 1) * sizeof(int));
    for (int i = 0; i < N; i++)
        in[i] = (i * 7919) % 1000 - 500;
    const uint32_t sizes[] = {1, 2, 16, 64, 256, 1024};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        uint32_t gs = sizes[s], groups = N / gs;
        memset(partial, 0x55, (N + 1) * sizeof(int));
        zt_set_args(k, 2, sizeof in, &in, sizeof partial, &partial);
        ZT_OK(zeKernelSetArgumentValue(k, 2, gs * sizeof(int), NULL));
        zt_launch_sync(&env, l, k, gs, 1, 1, groups, 1, 1);
        check_reduction(in, partial, groups, gs);
        cr_assert_eq(partial[groups], 0x55555555, "wrote past the last group");
    }

    ze_kernel_handle_t st = zt_kernel_create(m, "reduce_sum_static");
    memset(partial, 0, N * sizeof(int));
    zt_set_args(st, 2, sizeof in, &in, sizeof partial, &partial);
    zt_launch_sync(&env, l, st, 64, 1, 1, N / 64, 1, 1);
    check_reduction(in, partial, N / 64, 64);
    ZT_OK(zeKernelDestroy(st));

    ZT_OK(zeMemFree(env.context, in));
    ZT_OK(zeMemFree(env.context, partial));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

T(integer_atomics)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_atomics");
    ze_kernel_handle_t k = zt_kernel_create(m, "atomic_int_ops");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    enum { N = 8192 };
    int *vals = zt_alloc_shared(&env, N * sizeof(int));
    int *res = zt_alloc_shared(&env, 5 * sizeof(int));
    int want_sum = 0, want_min = 1 << 30, want_max = -(1 << 30);
    for (int i = 0; i < N; i++) {
        vals[i] = (i * 2654435761u) % 20001 - 10000;
        want_sum += vals[i];
        want_min = vals[i] < want_min ? vals[i] : want_min;
        want_max = vals[i] > want_max ? vals[i] : want_max;
    }
    res[0] = 0;
    res[1] = 0;
    res[2] = 1 << 30;
    res[3] = -(1 << 30);
    res[4] = 0;
    int *counter = &res[0], *sum = &res[1], *minv = &res[2], *maxv = &res[3], *bits = &res[4];
    zt_set_args(k, 6, sizeof vals, &vals, sizeof counter, &counter, sizeof sum, &sum, sizeof minv, &minv,
                sizeof maxv, &maxv, sizeof bits, &bits);
    zt_launch_sync(&env, l, k, 128, 1, 1, N / 128, 1, 1);
    cr_assert_eq(res[0], N);
    cr_assert_eq(res[1], want_sum);
    cr_assert_eq(res[2], want_min);
    cr_assert_eq(res[3], want_max);
    cr_assert_eq((uint32_t)res[4], 0xffffffffu);

    ze_kernel_handle_t lc = zt_kernel_create(m, "atomic_local_count");
    int *total = zt_alloc_shared(&env, sizeof(int));
    *total = 0;
    zt_set_args(lc, 1, sizeof total, &total);
    zt_launch_sync(&env, l, lc, 256, 1, 1, 40, 1, 1);
    cr_assert_eq(*total, 256 * 40);
    ZT_OK(zeKernelDestroy(lc));
    ZT_OK(zeMemFree(env.context, total));

    ZT_OK(zeMemFree(env.context, vals));
    ZT_OK(zeMemFree(env.context, res));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

T(float_atomics)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_atomics");
    ze_kernel_handle_t k = zt_kernel_create(m, "atomic_float_add");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    enum { N = 4096 };
    float *vals = zt_alloc_shared(&env, N * sizeof(float));
    float *sum = zt_alloc_shared(&env, sizeof(float));
    /* Quarters up to 1.75: every partial sum is exact in float, so the order of additions cannot matter. */
    double want = 0;
    for (int i = 0; i < N; i++) {
        vals[i] = (float)(i % 8) * 0.25f;
        want += vals[i];
    }
    *sum = 0.0f;
    zt_set_args(k, 2, sizeof vals, &vals, sizeof sum, &sum);
    zt_launch_sync(&env, l, k, 64, 1, 1, N / 64, 1, 1);
    cr_assert_eq(*sum, (float)want, "sum %f, expected %f", (double)*sum, want);

    /* Exchange: what was taken out plus what is left is exactly the initial value and the inputs. */
    ze_kernel_handle_t x = zt_kernel_create(m, "atomic_float_xchg");
    float *slot = zt_alloc_shared(&env, sizeof(float));
    float *taken = zt_alloc_shared(&env, (N + 1) * sizeof(float));
    for (int i = 0; i < N; i++)
        vals[i] = (float)i + 0.5f;
    *slot = -1.0f;
    zt_set_args(x, 3, sizeof vals, &vals, sizeof slot, &slot, sizeof taken, &taken);
    zt_launch_sync(&env, l, x, 64, 1, 1, N / 64, 1, 1);
    taken[N] = *slot;
    qsort(taken, N + 1, sizeof(float), cmp_float);
    cr_assert_eq(taken[0], -1.0f);
    for (int i = 0; i < N; i++)
        cr_assert_eq(taken[i + 1], (float)i + 0.5f, "value %d lost or duplicated", i);
    ZT_OK(zeKernelDestroy(x));
    ZT_OK(zeMemFree(env.context, slot));
    ZT_OK(zeMemFree(env.context, taken));

    ZT_OK(zeMemFree(env.context, vals));
    ZT_OK(zeMemFree(env.context, sum));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

T(range_2d)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_ranges");
    ze_kernel_handle_t k = zt_kernel_create(m, "ids2d");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    const uint32_t lx = 8, ly = 4, nx = 6, ny = 5, W = lx * nx, H = ly * ny;
    uint32_t *gid = zt_alloc_shared(&env, W * H * 4);
    uint32_t *lid = zt_alloc_shared(&env, W * H * 4);
    uint32_t *grp = zt_alloc_shared(&env, W * H * 4);
    uint32_t *sizes = zt_alloc_shared(&env, 8 * 4);
    memset(gid, 0xff, W * H * 4);
    zt_set_args(k, 4, sizeof gid, &gid, sizeof lid, &lid, sizeof grp, &grp, sizeof sizes, &sizes);
    zt_launch_sync(&env, l, k, lx, ly, 1, nx, ny, 1);
    for (uint32_t y = 0; y < H; y++) {
        for (uint32_t x = 0; x < W; x++) {
            uint32_t i = y * W + x;
            cr_assert_eq(gid[i], x | (y << 16), "item %u,%u: global id 0x%x", x, y, gid[i]);
            cr_assert_eq(lid[i], (x % lx) | ((y % ly) << 16), "item %u,%u: local id 0x%x", x, y, lid[i]);
            cr_assert_eq(grp[i], (x / lx) | ((y / ly) << 16), "item %u,%u: group id 0x%x", x, y, grp[i]);
        }
    }
    const uint32_t want[6] = {W, H, lx, ly, nx, ny};
    for (int i = 0; i < 6; i++)
        cr_assert_eq(sizes[i], want[i], "size %d: %u, expected %u", i, sizes[i], want[i]);
    /* Level Zero has no work dimension; a driver may report the dimensions used or all three. */
    cr_assert(sizes[6] == 2 || sizes[6] == 3, "get_work_dim() = %u", sizes[6]);
    ZT_OK(zeMemFree(env.context, gid));
    ZT_OK(zeMemFree(env.context, lid));
    ZT_OK(zeMemFree(env.context, grp));
    ZT_OK(zeMemFree(env.context, sizes));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

T(range_3d)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_ranges");
    ze_kernel_handle_t k = zt_kernel_create(m, "ids3d");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    const uint32_t lx = 4, ly = 3, lz = 2, nx = 4, ny = 4, nz = 3;
    const uint32_t W = lx * nx, H = ly * ny, D = lz * nz, N = W * H * D;
    uint32_t *gid = zt_alloc_shared(&env, N * 4);
    uint32_t *lid = zt_alloc_shared(&env, N * 4);
    uint32_t *grp = zt_alloc_shared(&env, N * 4);
    int *hits = zt_alloc_shared(&env, N * 4);
    memset(hits, 0, N * 4);
    zt_set_args(k, 4, sizeof gid, &gid, sizeof lid, &lid, sizeof grp, &grp, sizeof hits, &hits);
    zt_launch_sync(&env, l, k, lx, ly, lz, nx, ny, nz);
    for (uint32_t z = 0; z < D; z++)
        for (uint32_t y = 0; y < H; y++)
            for (uint32_t x = 0; x < W; x++) {
                uint32_t i = (z * H + y) * W + x;
                cr_assert_eq(hits[i], 1, "item %u,%u,%u ran %d times", x, y, z, hits[i]);
                cr_assert_eq(gid[i], x | (y << 10) | (z << 20), "item %u,%u,%u: global id", x, y, z);
                cr_assert_eq(lid[i], (x % lx) | ((y % ly) << 10) | ((z % lz) << 20), "item %u,%u,%u: local id", x,
                             y, z);
                cr_assert_eq(grp[i], (x / lx) | ((y / ly) << 10) | ((z / lz) << 20), "item %u,%u,%u: group id",
                             x, y, z);
            }
    ZT_OK(zeMemFree(env.context, gid));
    ZT_OK(zeMemFree(env.context, lid));
    ZT_OK(zeMemFree(env.context, grp));
    ZT_OK(zeMemFree(env.context, hits));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

typedef struct {
    int32_t a;
    float b;
    int64_t c;
    char d;
    int32_t arr[4];
} params;
_Static_assert(sizeof(params) == 40, "params must match the kernel's layout");

T(struct_by_value)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_struct");
    ze_kernel_handle_t k = zt_kernel_create(m, "struct_arg");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    enum { N = 32 };
    int64_t *out = zt_alloc_shared(&env, N * 8 * sizeof(int64_t));
    params p;
    memset(&p, 0, sizeof p);
    p.a = -123456;
    p.b = 2.75f;
    p.c = 0x123456789abcdefll;
    p.d = -5;
    p.arr[0] = 11;
    p.arr[1] = -22;
    p.arr[2] = 33;
    p.arr[3] = 1000;
    zt_set_args(k, 2, sizeof p, &p, sizeof out, &out);
    /* The host copy may change right after the call: the driver must have taken its own. */
    memset(&p, 0, sizeof p);
    zt_launch_sync(&env, l, k, 8, 1, 1, N / 8, 1, 1);
    for (int i = 0; i < N; i++) {
        const int64_t *o = &out[i * 8];
        cr_assert_eq(o[0], -123456);
        cr_assert_eq(o[1], 11);
        cr_assert_eq(o[2], 0x123456789abcdefll);
        cr_assert_eq(o[3], -5);
        cr_assert_eq(o[4], 11);
        cr_assert_eq(o[5], -22);
        cr_assert_eq(o[6], 33);
        cr_assert_eq(o[7], 1000 + i);
    }
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

T(scalars_of_every_size)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_struct");
    ze_kernel_handle_t k = zt_kernel_create(m, "mixed_scalars");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    double *out = zt_alloc_shared(&env, 6 * sizeof(double));
    char c = -3;
    short s = -30000;
    int i = 2000000000;
    long long ll = -(1ll << 40) - 7;
    float f = 1.5f;
    double d = 1e300;
    zt_set_args(k, 7, sizeof c, &c, sizeof s, &s, sizeof i, &i, sizeof ll, &ll, sizeof f, &f, sizeof d, &d,
                sizeof out, &out);
    zt_launch_sync(&env, l, k, 1, 1, 1, 1, 1, 1);
    cr_assert_eq(out[0], -3.0);
    cr_assert_eq(out[1], -30000.0);
    cr_assert_eq(out[2], 2000000000.0);
    cr_assert_eq(out[3], (double)(-(1ll << 40) - 7));
    cr_assert_eq(out[4], 1.5);
    cr_assert_eq(out[5], 1e300);
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

typedef struct {
    char a, b, c;
} small3;
typedef struct {
    _Alignas(16) float v[4];
    int32_t k;
} aligned16;
_Static_assert(sizeof(small3) == 3 && sizeof(aligned16) == 32, "layouts must match the kernel's");

/* Vectors, a 3-byte struct and a 16-byte aligned struct by value. */
T(vector_and_struct_arguments)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_args");
    ze_kernel_handle_t k = zt_kernel_create(m, "vec_args");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    float *out = zt_alloc_shared(&env, 16 * sizeof(float));
    memset(out, 0, 16 * sizeof(float));
    _Alignas(16) float v[4] = {1.5f, -2.25f, 3.0f, 1024.0f};
    int32_t w[2] = {-7, 123456};
    unsigned char c = 200;
    small3 s3 = {-1, 2, 100};
    aligned16 al;
    memset(&al, 0, sizeof al);
    al.v[0] = 0.125f;
    al.v[3] = -64.0f;
    al.k = 99;
    zt_set_args(k, 6, sizeof v, v, sizeof w, w, sizeof c, &c, sizeof s3, &s3, sizeof al, &al, sizeof out, &out);
    zt_launch_sync(&env, l, k, 1, 1, 1, 1, 1, 1);
    const float want[13] = {1.5f, -2.25f, 3.0f, 1024.0f, -7.0f, 123456.0f, 200.0f, -1.0f, 2.0f, 100.0f,
                            0.125f, -64.0f, 99.0f};
    for (int i = 0; i < 13; i++)
        cr_assert_eq(out[i], want[i], "out[%d] = %f, expected %f", i, (double)out[i], (double)want[i]);
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

T(sixteen_arguments)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_args");
    ze_kernel_handle_t k = zt_kernel_create(m, "many_args");
    ze_kernel_properties_t p = {.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES};
    ZT_OK(zeKernelGetProperties(k, &p));
    cr_assert_eq(p.numKernelArgs, 17);
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    int64_t *out = zt_alloc_shared(&env, 4 * sizeof(int64_t));
    ZT_OK(zeKernelSetArgumentValue(k, 0, sizeof out, &out));
    int64_t want0 = 0;
    for (uint32_t i = 0; i < 8; i++) {
        int32_t a = (int32_t)(i * 1000 + 1);
        want0 += (int64_t)(i + 1) * a;
        ZT_OK(zeKernelSetArgumentValue(k, 1 + i, sizeof a, &a));
    }
    int64_t b[4] = {0x1111111111ll, -5, 0x7fffffffll, 3};
    for (uint32_t i = 0; i < 4; i++)
        ZT_OK(zeKernelSetArgumentValue(k, 9 + i, sizeof b[i], &b[i]));
    int16_t c0 = -321;
    char c1 = 45;
    float f0 = 2.5f;
    double d0 = 0.75;
    ZT_OK(zeKernelSetArgumentValue(k, 13, sizeof c0, &c0));
    ZT_OK(zeKernelSetArgumentValue(k, 14, sizeof c1, &c1));
    ZT_OK(zeKernelSetArgumentValue(k, 15, sizeof f0, &f0));
    ZT_OK(zeKernelSetArgumentValue(k, 16, sizeof d0, &d0));
    zt_launch_sync(&env, l, k, 1, 1, 1, 1, 1, 1);
    cr_assert_eq(out[0], want0);
    /* The kernel's shifts, on the two's complement bits (a left shift of -5 is undefined in C). */
    cr_assert_eq(out[1], (int64_t)((uint64_t)b[0] ^ ((uint64_t)b[1] << 1) ^ ((uint64_t)b[2] << 2) ^ ((uint64_t)b[3] << 3)));
    cr_assert_eq(out[2], -321 * 1000 + 45);
    cr_assert_eq(out[3], 20 + 12);
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

T(two_local_arguments)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_args");
    ze_kernel_handle_t k = zt_kernel_create(m, "two_locals");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    enum { N = 4096 };
    int *out = zt_alloc_shared(&env, N * sizeof(int));
    const uint32_t sizes[] = {32, 100, 256};
    for (size_t s = 0; s < 3; s++) {
        uint32_t gs = sizes[s], groups = N / gs;
        memset(out, 0, N * sizeof(int));
        ZT_OK(zeKernelSetArgumentValue(k, 0, sizeof out, &out));
        ZT_OK(zeKernelSetArgumentValue(k, 1, gs * sizeof(int), NULL));
        ZT_OK(zeKernelSetArgumentValue(k, 2, gs * sizeof(float), NULL));
        zt_launch_sync(&env, l, k, gs, 1, 1, groups, 1, 1);
        for (uint32_t i = 0; i < groups * gs; i++) {
            uint32_t g = i / gs, lid = i % gs, mirror = gs - 1 - lid;
            int want = (int)(g * gs + mirror) * 10 + (int)mirror;
            cr_assert_eq(out[i], want, "group size %u item %u: %d, expected %d", gs, i, out[i], want);
        }
    }
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* Reads past the end of a __local argument, within the group's first KiB of local memory, as dpnp.tensor's masked
 * extraction makes them (docs/driver.md, ze_cuda "Memory, queues and events"): they do not fault, on a GPU either,
 * and the values used are right. Groups of 64 and 128 items over n of 1 to the group size (the reads reach at most
 * 4 * 129 bytes). */
T(reads_past_a_local_argument_within_a_kib_do_not_fault)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_args");
    ze_kernel_handle_t k = zt_kernel_create(m, "reads_past_local");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    enum { MAX = 257 };
    int *counts = zt_alloc_shared(&env, MAX * sizeof(int));
    int *out = zt_alloc_shared(&env, MAX * sizeof(int));
    for (int i = 0; i < MAX; i++) counts[i] = i * (i + 1) / 2; /* counts[i + 1] - counts[i] = i + 1 */
    const uint32_t groups[] = {64, 128};
    const uint32_t ns[] = {1, 2, 20, 63, 64, 100, 128};
    for (size_t g = 0; g < 2; g++)
        for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
            uint32_t gs = groups[g], n = ns[t];
            if (n > gs) continue;
            memset(out, 0xff, MAX * sizeof(int));
            ZT_OK(zeKernelSetArgumentValue(k, 0, sizeof counts, &counts));
            ZT_OK(zeKernelSetArgumentValue(k, 1, sizeof out, &out));
            ZT_OK(zeKernelSetArgumentValue(k, 2, sizeof n, &n));
            ZT_OK(zeKernelSetArgumentValue(k, 3, (n + 1) * sizeof(int), NULL));
            zt_launch_sync(&env, l, k, gs, 1, 1, 1, 1, 1);
            for (uint32_t i = 0; i < n; i++)
                cr_assert_eq(out[i], (int)i + 1, "group %u, n %u: out[%u] = %d", gs, n, i, out[i]);
            cr_assert_eq(out[n], -1, "group %u, n %u: out[%u] written", gs, n, n);
        }
    ZT_OK(zeMemFree(env.context, counts));
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* Pointers into the middle of allocations, and device memory, are valid kernel arguments. */
T(interior_and_device_pointer_arguments)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_vadd");
    ze_kernel_handle_t k = zt_kernel_create(m, "vadd");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    enum { N = 1024, PAD = 64 };
    float *a = zt_alloc_shared(&env, (N + PAD) * sizeof(float));
    float *b = zt_alloc_host(&env, (N + PAD) * sizeof(float));
    float *dc = zt_alloc_device(&env, (N + PAD) * sizeof(float));
    float *c = malloc((N + PAD) * sizeof(float));
    cr_assert_not_null(c);
    for (int i = 0; i < N + PAD; i++) {
        a[i] = (float)i;
        b[i] = 1000.0f * (float)i;
        c[i] = -1.0f;
    }
    ZT_OK(zeCommandListAppendMemoryCopy(l, dc, c, (N + PAD) * sizeof(float), NULL, 0, NULL));
    float *ai = a + 16, *bi = b + 32, *ci = dc + 8;
    zt_set_args(k, 3, sizeof ai, &ai, sizeof bi, &bi, sizeof ci, &ci);
    zt_launch_sync(&env, l, k, 64, 1, 1, N / 64, 1, 1);
    ZT_OK(zeCommandListAppendMemoryCopy(l, c, dc, (N + PAD) * sizeof(float), NULL, 0, NULL));
    zt_immediate_sync(&env, l);
    for (int i = 0; i < N + PAD; i++) {
        float want = (i >= 8 && i < N + 8) ? (float)(i - 8 + 16) + 1000.0f * (float)(i - 8 + 32) : -1.0f;
        cr_assert_eq(c[i], want, "c[%d] = %f, expected %f", i, (double)c[i], (double)want);
    }
    free(c);
    ZT_OK(zeMemFree(env.context, a));
    ZT_OK(zeMemFree(env.context, b));
    ZT_OK(zeMemFree(env.context, dc));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* A kernel follows pointers it reads from memory into device, host and shared allocations. */
T(indirect_access_through_stored_pointers)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_args");
    ze_kernel_handle_t k = zt_kernel_create(m, "indirect");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    enum { N = 96 };
    int *d = zt_alloc_device(&env, N * sizeof(int));
    int *h = zt_alloc_host(&env, N * sizeof(int));
    int *s = zt_alloc_shared(&env, N * sizeof(int));
    int init[N];
    for (int i = 0; i < N; i++) {
        init[i] = 1000 + i;
        h[i] = 2000 + i;
        s[i] = 3000 + i;
    }
    ZT_OK(zeCommandListAppendMemoryCopy(l, d, init, sizeof init, NULL, 0, NULL));
    int **ptrs = zt_alloc_shared(&env, 3 * sizeof(int *));
    ptrs[0] = d;
    ptrs[1] = h;
    ptrs[2] = s;
    int *out = zt_alloc_shared(&env, N * sizeof(int));
    ZT_OK(zeKernelSetIndirectAccess(k, ZE_KERNEL_INDIRECT_ACCESS_FLAG_DEVICE | ZE_KERNEL_INDIRECT_ACCESS_FLAG_HOST |
                                           ZE_KERNEL_INDIRECT_ACCESS_FLAG_SHARED));
    zt_set_args(k, 2, sizeof ptrs, &ptrs, sizeof out, &out);
    zt_launch_sync(&env, l, k, 32, 1, 1, N / 32, 1, 1);
    for (int i = 0; i < N; i++)
        cr_assert_eq(out[i], (i % 3 + 1) * 1000 + i + 1, "out[%d] = %d", i, out[i]);
    ZT_OK(zeMemFree(env.context, d));
    ZT_OK(zeMemFree(env.context, h));
    ZT_OK(zeMemFree(env.context, s));
    ZT_OK(zeMemFree(env.context, ptrs));
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* PoCL gives a kernel every __local variable of its module: sum_local, which has none of its own, gets big_tile's
 * 32 KiB too (PoCL 3.1), and PoCL aborts the process at the launch of a work-group it cannot fit (with a 256 KiB
 * tile, an argument of the device's local memory less 64 bytes took the old driver down). An argument that fits
 * the device only without the tile must be refused, or run correctly on a PoCL that gives a kernel only its own;
 * one that leaves the tile's room runs. */
Test(ze_launch, local_argument_counts_the_modules_other_locals, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env;
    zt_init(&env);
    ze_device_compute_properties_t c = {.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES};
    ZT_OK(zeDeviceGetComputeProperties(env.device, &c));
    const size_t tile = 8192 * sizeof(int);
    if (c.maxSharedLocalMemory < 2 * tile)
        cr_skip_test("the device's %u bytes of local memory do not hold two 32 KiB tiles", c.maxSharedLocalMemory);
    ze_module_handle_t m = zt_module_load(&env, "ze_local_siblings");
    ze_kernel_handle_t k = zt_kernel_create(m, "sum_local");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    int *in = zt_alloc_shared(&env, 64 * sizeof(int));
    int *out = zt_alloc_shared(&env, sizeof(int));
    for (int i = 0; i < 64; i++)
        in[i] = i;
    zt_set_args(k, 2, sizeof in, &in, sizeof out, &out);
    ZT_OK(zeKernelSetGroupSize(k, 64, 1, 1));
    const size_t sizes[2] = {(size_t)c.maxSharedLocalMemory - 64, (size_t)c.maxSharedLocalMemory - tile};
    for (int i = 0; i < 2; i++) {
        *out = -1;
        ze_result_t set = zeKernelSetArgumentValue(k, 2, sizes[i], NULL);
        if (i == 0 && set != ZE_RESULT_SUCCESS) {
            cr_assert_eq(set, ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE, "%zu bytes: 0x%x", sizes[i], (unsigned)set);
            continue;
        }
        cr_assert_eq(set, ZE_RESULT_SUCCESS, "%zu bytes of local memory (device %u): 0x%x", sizes[i],
                     c.maxSharedLocalMemory, (unsigned)set);
        zt_launch_sync(&env, l, k, 64, 1, 1, 1, 1, 1);
        cr_assert_eq(*out, 64 * 63 / 2, "%zu bytes of local memory: sum %d", sizes[i], *out);
    }
    ZT_OK(zeMemFree(env.context, in));
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* More local memory than the device has must be refused, at set-argument or at append, without a crash;
 * the list stays usable. */
Test(ze_launch, local_memory_over_the_limit_is_refused, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env;
    zt_init(&env);
    ze_device_compute_properties_t c = {.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES};
    ZT_OK(zeDeviceGetComputeProperties(env.device, &c));
    ze_module_handle_t m = zt_module_load(&env, "ze_reduce");
    ze_kernel_handle_t k = zt_kernel_create(m, "reduce_sum");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    int *in = zt_alloc_shared(&env, 64 * sizeof(int));
    int *partial = zt_alloc_shared(&env, sizeof(int));
    for (int i = 0; i < 64; i++)
        in[i] = i;
    *partial = -1;
    zt_set_args(k, 2, sizeof in, &in, sizeof partial, &partial);
    ZT_OK(zeKernelSetGroupSize(k, 64, 1, 1));
    ze_group_count_t gc = {1, 1, 1};
    const size_t sizes[2] = {(size_t)c.maxSharedLocalMemory + 4096, (size_t)1 << 30};
    for (int i = 0; i < 2; i++) {
        ze_result_t set = zeKernelSetArgumentValue(k, 2, sizes[i], NULL);
        ze_result_t app = set == ZE_RESULT_SUCCESS ? zeCommandListAppendLaunchKernel(l, k, &gc, NULL, 0, NULL)
                                                   : ZE_RESULT_SUCCESS;
        cr_assert(set != ZE_RESULT_SUCCESS || app != ZE_RESULT_SUCCESS,
                  "%zu bytes of local memory (device maximum %u) accepted at set-argument and at append", sizes[i],
                  c.maxSharedLocalMemory);
        zt_immediate_sync(&env, l);
        cr_assert_eq(*partial, -1, "the refused launch ran");
    }
    ZT_OK(zeKernelSetArgumentValue(k, 2, 64 * sizeof(int), NULL));
    zt_launch_sync(&env, l, k, 64, 1, 1, 1, 1, 1);
    cr_assert_eq(*partial, 64 * 63 / 2);
    ZT_OK(zeMemFree(env.context, in));
    ZT_OK(zeMemFree(env.context, partial));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* A million work-items, and group sizes that are not powers of two. */
T(large_and_odd_ranges)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_vadd");
    ze_kernel_handle_t k = zt_kernel_create(m, "iota");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    enum { N = 1 << 20 };
    uint32_t *out = zt_alloc_shared(&env, (N + 1) * sizeof(uint32_t));
    const uint32_t shapes[][2] = {{256, N / 256}, {1, 4096}, {3, 1000}, {7, 13}, {1000, 3}, {4096, 2}};
    /* Group sizes beyond the device's limit (1024 on a GPU) are another test's matter. */
    ze_device_compute_properties_t cp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES};
    ZT_OK(zeDeviceGetComputeProperties(env.device, &cp));
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        uint32_t gs = shapes[s][0], groups = shapes[s][1], total = gs * groups;
        if (gs > cp.maxTotalGroupSize || gs > cp.maxGroupSizeX)
            continue;
        memset(out, 0xff, (N + 1) * sizeof(uint32_t));
        zt_set_args(k, 1, sizeof out, &out);
        zt_launch_sync(&env, l, k, gs, 1, 1, groups, 1, 1);
        for (uint32_t i = 0; i < total; i++)
            if (out[i] != i)
                cr_assert_fail("group size %u x %u groups: out[%u] = %u", gs, groups, i, out[i]);
        cr_assert_eq(out[total], 0xffffffffu, "group size %u x %u groups ran past its range", gs, groups);
    }
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* The spec requires a power-of-two pattern size but names no code for others: any error will do, and the
 * memory must stay untouched. */
Test(ze_launch, fill_pattern_size_not_power_of_two)
{
    zt_env env;
    zt_init(&env);
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    unsigned char *s = zt_alloc_shared(&env, 256);
    memset(s, 0x11, 256);
    const unsigned char pattern[256] = {1, 2, 3, 4, 5, 6};
    const size_t bad[] = {3, 6, 12, 100};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ze_result_t r = zeCommandListAppendMemoryFill(l, s, pattern, bad[i], bad[i] * 2, NULL, 0, NULL);
        cr_assert_neq(r, ZE_RESULT_SUCCESS, "pattern size %zu accepted", bad[i]);
    }
    zt_immediate_sync(&env, l);
    for (int i = 0; i < 256; i++)
        cr_assert_eq(s[i], 0x11, "byte %d changed by a refused fill", i);
    ZT_OK(zeMemFree(env.context, s));
    ZT_OK(zeCommandListDestroy(l));
    zt_fini(&env);
}

/* Host references for the integer builtins, with OpenCL's definitions (no undefined C overflow). */
static int32_t sat32(int64_t v)
{
    return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

static int32_t ref_convert_int_sat(float f)
{
    if (isnan(f))
        return 0;
    if (f >= 2147483648.0f)
        return INT32_MAX;
    if (f <= -2147483648.0f)
        return INT32_MIN;
    return (int32_t)truncf(f);
}

static void ref_int_builtins(int32_t a, int32_t b, uint32_t i, int32_t *o)
{
    uint32_t ua = (uint32_t)a, ub = (uint32_t)b, r = i % 32;
    o[0] = __builtin_popcount(ua);
    o[1] = ua == 0 ? 32 : __builtin_clz(ua);
    o[2] = (a & 0x7fff) * (b & 0x7fff) + 3;
    o[3] = (int32_t)(((int64_t)a * b) >> 32);
    o[4] = (int32_t)(r == 0 ? ua : (ua << r) | (ua >> (32 - r)));
    o[5] = (int32_t)(a < 0 ? 0u - ua : ua);
    o[6] = (int32_t)(uint32_t)llabs((int64_t)a - b);
    o[7] = sat32((int64_t)a + b);
    o[8] = sat32((int64_t)a - b);
    o[9] = (int32_t)(((int64_t)a + b) >> 1);
    o[10] = (int32_t)(((int64_t)a + b + 1) >> 1);
    o[11] = a < b ? a : b;
    o[12] = a > b ? a : b;
    o[13] = a < -1000 ? -1000 : a > 1000 ? 1000 : a;
    o[14] = a > b ? b : a;
    o[15] = (int32_t)(((ua & 0xffff) << 16) | (ub & 0xffff));
    o[16] = ref_convert_int_sat((float)a * 1000.0f);
    o[17] = a < 0 ? 0 : a > 255 ? 255 : a;
    o[18] = b < -128 ? -128 : b > 127 ? 127 : b;
    o[19] = (a & 0x7fff) * (b & 0x7fff);
    o[20] = (int32_t)(ua / (ub | 1u));
    o[21] = a % ((b & 0xff) | 1);
    uint32_t v[4] = {ua, ub, ua ^ ub, ua & ub};
    o[22] = (int32_t)(v[3] + 2u * v[2] + 3u * v[1] + 4u * v[0]);
    o[23] = (int32_t)((ua & ~0x0f0f0f0fu) | (ub & 0x0f0f0f0fu));
}

T(integer_builtins)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_builtins");
    ze_kernel_handle_t k = zt_kernel_create(m, "int_builtins");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    enum { N = 256, NI = 24 };
    int32_t *in = zt_alloc_shared(&env, (N + 1) * sizeof(int32_t));
    int32_t *out = zt_alloc_shared(&env, N * NI * sizeof(int32_t));
    uint32_t x = 12345;
    for (int i = 0; i <= N; i++) {
        x = x * 1103515245u + 12345u;
        in[i] = (int32_t)x >> (i % 7 == 0 ? 0 : 4 + i % 20);
    }
    in[10] = INT32_MAX;
    in[11] = INT32_MIN + 1;
    in[12] = 0;
    in[13] = -1;
    zt_set_args(k, 2, sizeof in, &in, sizeof out, &out);
    zt_launch_sync(&env, l, k, 32, 1, 1, N / 32, 1, 1);
    for (uint32_t i = 0; i < N; i++) {
        int32_t want[NI];
        ref_int_builtins(in[i], in[i + 1], i, want);
        for (int j = 0; j < NI; j++)
            cr_assert_eq(out[i * NI + j], want[j], "builtin %d on (%d, %d): %d, expected %d", j, in[i], in[i + 1],
                         out[i * NI + j], want[j]);
    }
    ZT_OK(zeMemFree(env.context, in));
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* Float builtins against double-precision references, within OpenCL's error bounds (a few ulp for the
 * full-precision functions, loose for native_sin); exact where OpenCL requires exact results. */
T(float_builtins)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_builtins");
    ze_kernel_handle_t k = zt_kernel_create(m, "float_builtins");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    enum { N = 256, NF = 24 };
    float *in = zt_alloc_shared(&env, (N + 1) * sizeof(float));
    float *out = zt_alloc_shared(&env, N * NF * sizeof(float));
    for (int i = 0; i <= N; i++)
        in[i] = (float)(i - 128) * 0.37f + 0.011f * (float)(i % 5);
    in[3] = 2.5f;  /* round() halfway cases */
    in[4] = -2.5f;
    zt_set_args(k, 2, sizeof in, &in, sizeof out, &out);
    zt_launch_sync(&env, l, k, 32, 1, 1, N / 32, 1, 1);
    for (int i = 0; i < N; i++) {
        double xd = in[i], yd = in[i + 1];
        float xf = in[i], yf = in[i + 1];
        double nrm = sqrt(xd * xd + yd * yd + 1.0 + 4.0);
        const double want[NF] = {
            sqrt(fabs(xd)), 1.0 / sqrt(fabs(xd) + 1.0), exp(xd * 0.01), log(fabs(xd) + 1.0), sin(xd), cos(xd),
            pow(fabs(xd) + 1.0, 1.5), fmaf(xf, yf, 1.0f), floorf(xf), ceilf(xf), roundf(xf), fminf(xf, yf),
            fmaxf(xf, yf), copysignf(2.0f, yf), hypot(xd, yd), atan2(yd, xd), xd * xd + yd * yd + 1.0 + 4.0, nrm,
            yd / nrm, xd * 2.0 - yd * 1.0, sin(xd), floorf(xf), -xd, tanh(xd * 0.1)};
        /* Relative tolerance per builtin: 0 means exact. */
        const double tol[NF] = {1e-6, 1e-6, 1e-6, 1e-6, 1e-5, 1e-5, 1e-5, 0, 0, 0, 0, 0,
                                0, 0, 1e-6, 1e-5, 1e-6, 1e-6, 1e-5, 1e-6, 1e-3, 0, 0, 1e-5};
        for (int j = 0; j < NF; j++) {
            double got = out[i * NF + j];
            if (tol[j] == 0)
                cr_assert_eq(got, want[j], "builtin %d on (%g, %g): %.9g, expected %.9g", j, xd, yd, got, want[j]);
            else
                cr_assert_leq(fabs(got - want[j]), tol[j] * fmax(1.0, fabs(want[j])),
                              "builtin %d on (%g, %g): %.9g, expected %.9g", j, xd, yd, got, want[j]);
        }
    }
    ZT_OK(zeMemFree(env.context, in));
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

T(double_builtins)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_builtins");
    ze_kernel_handle_t k = zt_kernel_create(m, "double_builtins");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    enum { N = 128 };
    double *in = zt_alloc_shared(&env, N * sizeof(double));
    double *out = zt_alloc_shared(&env, N * 4 * sizeof(double));
    for (int i = 0; i < N; i++)
        in[i] = (i - 64) * 1.234567890123 + 1e-9 * i;
    zt_set_args(k, 2, sizeof in, &in, sizeof out, &out);
    zt_launch_sync(&env, l, k, 16, 1, 1, N / 16, 1, 1);
    for (int i = 0; i < N; i++) {
        double x = in[i];
        cr_assert_eq(out[i * 4 + 0], sqrt(fabs(x)), "sqrt(%.17g)", fabs(x));
        cr_assert_eq(out[i * 4 + 1], fma(x, x, 1.0), "fma(%.17g)", x);
        cr_assert_leq(fabs(out[i * 4 + 2] - exp(x * 0.001)), 1e-14 * exp(x * 0.001), "exp(%.17g)", x * 0.001);
        cr_assert_eq(out[i * 4 + 3], floor(x * 3.5), "floor(%.17g)", x * 3.5);
    }
    ZT_OK(zeMemFree(env.context, in));
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

T(vector_and_half_storage)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_builtins");
    ze_kernel_handle_t k = zt_kernel_create(m, "vector_memory");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    enum { N = 128 };
    float *in = zt_alloc_shared(&env, 4 * N * sizeof(float));
    float *out = zt_alloc_shared(&env, 5 * N * sizeof(float));
    uint16_t *h = zt_alloc_shared(&env, N * sizeof(uint16_t));
    /* Quarters between -8 and 8 are exact in half precision. */
    for (int i = 0; i < 4 * N; i++)
        in[i] = (float)(i % 64) * 0.25f - 8.0f;
    zt_set_args(k, 3, sizeof in, &in, sizeof out, &out, sizeof h, &h);
    zt_launch_sync(&env, l, k, 32, 1, 1, N / 32, 1, 1);
    for (int i = 0; i < 4 * N; i++)
        cr_assert_eq(out[i], in[i] * 2.0f, "vstore4 element %d", i);
    for (int i = 0; i < N; i++)
        cr_assert_eq(out[4 * N + i], in[4 * i], "half round trip of item %d: %f", i, (double)out[4 * N + i]);
    /* 1.0 in half precision is 0x3c00; -8.0 is 0xc800. */
    cr_assert_eq(h[0], 0xc800);
    for (int i = 0; i < N; i++)
        if (in[4 * i] == 1.0f)
            cr_assert_eq(h[i], 0x3c00);
    ZT_OK(zeMemFree(env.context, in));
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeMemFree(env.context, h));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

Test(ze_launch, async_copy_and_local_atomics, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_async");
    ze_kernel_handle_t k = zt_kernel_create(m, "async_copy");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    enum { N = 2048, G = 64 };
    int *in = zt_alloc_shared(&env, N * sizeof(int));
    int *out = zt_alloc_shared(&env, N * sizeof(int));
    int *counts = zt_alloc_shared(&env, (N / G) * sizeof(int));
    for (int i = 0; i < N; i++)
        in[i] = (i * 7) % 101;
    ZT_OK(zeKernelSetArgumentValue(k, 0, sizeof in, &in));
    ZT_OK(zeKernelSetArgumentValue(k, 1, sizeof out, &out));
    ZT_OK(zeKernelSetArgumentValue(k, 2, G * sizeof(int), NULL));
    ZT_OK(zeKernelSetArgumentValue(k, 3, sizeof counts, &counts));
    zt_launch_sync(&env, l, k, G, 1, 1, N / G, 1, 1);
    for (int g = 0; g < N / G; g++) {
        int want = 0;
        for (int j = 0; j < G; j++) {
            cr_assert_eq(out[g * G + j], in[g * G + G - 1 - j] * 2, "item %d", g * G + j);
            want += in[g * G + j] % 3 == 0;
        }
        cr_assert_eq(counts[g], want, "group %d: %d, expected %d", g, counts[g], want);
    }
    ZT_OK(zeMemFree(env.context, in));
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeMemFree(env.context, counts));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

T(pointer_out_builtins)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_builtins");
    ze_kernel_handle_t k = zt_kernel_create(m, "pointer_out_builtins");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    enum { N = 128 };
    float *in = zt_alloc_shared(&env, N * sizeof(float));
    float *out = zt_alloc_shared(&env, N * 6 * sizeof(float));
    int *iout = zt_alloc_shared(&env, N * 2 * sizeof(int));
    for (int i = 0; i < N; i++)
        in[i] = (float)(i - 64) * 0.3f + 0.01f;
    zt_set_args(k, 3, sizeof in, &in, sizeof out, &out, sizeof iout, &iout);
    zt_launch_sync(&env, l, k, 16, 1, 1, N / 16, 1, 1);
    for (int i = 0; i < N; i++) {
        float x = in[i];
        float fl = floorf(x);
        cr_assert_eq(out[i * 6 + 0], fminf(x - fl, 0x1.fffffep-1f), "fract(%g)", (double)x);
        cr_assert_eq(out[i * 6 + 1], fl, "fract(%g) integral part", (double)x);
        cr_assert_leq(fabs(out[i * 6 + 2] - sin((double)x)), 1e-5, "sincos(%g) sine", (double)x);
        cr_assert_leq(fabs(out[i * 6 + 3] - cos((double)x)), 1e-5, "sincos(%g) cosine", (double)x);
        int e = 0;
        float mant = frexpf(x, &e);
        cr_assert_eq(out[i * 6 + 4], mant, "frexp(%g)", (double)x);
        cr_assert_eq(iout[i * 2 + 0], e, "frexp(%g) exponent", (double)x);
        int q = 0;
        float r = remquof(x, 0.75f, &q);
        cr_assert_eq(out[i * 6 + 5], r, "remquo(%g, 0.75)", (double)x);
        /* OpenCL returns the sign of x/y and at least its 7 low bits; glibc keeps fewer, so the quotient is
         * recomputed here: the nearest integer to x/y, ties to even. */
        long n = lrint((double)x / 0.75);
        int got_q = iout[i * 2 + 1];
        if (n != 0)
            cr_assert_eq(got_q < 0, n < 0, "remquo(%g) quotient sign: %d for %ld", (double)x, got_q, n);
        cr_assert_eq(labs(got_q) & 0x7f, labs(n) & 0x7f, "remquo(%g) quotient bits: %d for %ld", (double)x, got_q, n);
    }
    ZT_OK(zeMemFree(env.context, in));
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeMemFree(env.context, iout));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

Test(ze_launch, fences_and_prefetch, .timeout = ZT_TEST_TIMEOUT)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_fences");
    ze_kernel_handle_t f = zt_kernel_create(m, "fences_and_prefetch");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    int *out = zt_alloc_shared(&env, 256 * sizeof(int));
    memset(out, 0, 256 * sizeof(int));
    zt_set_args(f, 1, sizeof out, &out);
    zt_launch_sync(&env, l, f, 16, 1, 1, 16, 1, 1);
    for (int i = 0; i < 256; i++)
        cr_assert_eq(out[i], 7);
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(f));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* A 1-D launch answers the OpenCL defaults for the unused dimensions. */
T(work_item_functions_of_unused_dimensions)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_builtins");
    ze_kernel_handle_t k = zt_kernel_create(m, "item_functions");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    uint32_t *out = zt_alloc_shared(&env, 8 * sizeof(uint32_t));
    memset(out, 0xff, 8 * sizeof(uint32_t));
    zt_set_args(k, 1, sizeof out, &out);
    zt_launch_sync(&env, l, k, 8, 1, 1, 4, 1, 1);
    const uint32_t want[6] = {1, 1, 1, 1, 0, 0};
    for (int i = 0; i < 6; i++)
        cr_assert_eq(out[i], want[i], "value %d: %u, expected %u", i, out[i], want[i]);
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* printf in a kernel builds and runs; the output itself goes to stdout and is not checked. */
T(printf_in_kernel)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_builtins");
    ze_kernel_handle_t k = zt_kernel_create(m, "printf_kernel");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    int *out = zt_alloc_shared(&env, 64 * sizeof(int));
    zt_set_args(k, 1, sizeof out, &out);
    zt_launch_sync(&env, l, k, 16, 1, 1, 4, 1, 1);
    for (int i = 0; i < 64; i++)
        cr_assert_eq(out[i], i + 1);
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* A 2-D region copy moves exactly the region, with pitches, and nothing around it. */
T(memory_copy_region)
{
    zt_env env;
    zt_init(&env);
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    enum { SP = 40, SH = 30, DP = 64, DH = 20 };
    unsigned char *src = zt_alloc_shared(&env, SP * SH);
    unsigned char *dst = zt_alloc_device(&env, DP * DH);
    unsigned char *back = zt_alloc_host(&env, DP * DH);
    for (int i = 0; i < SP * SH; i++)
        src[i] = (unsigned char)(i * 13 + 1);
    static const unsigned char zero = 0;
    ZT_OK(zeCommandListAppendMemoryFill(l, dst, &zero, 1, DP * DH, NULL, 0, NULL));
    ze_copy_region_t sr = {5, 7, 0, 12, 9, 1}; /* origin (5,7), 12 bytes x 9 rows */
    ze_copy_region_t dr = {30, 2, 0, 12, 9, 1};
    ZT_OK(zeCommandListAppendMemoryCopyRegion(l, dst, &dr, DP, 0, src, &sr, SP, 0, NULL, 0, NULL));
    ZT_OK(zeCommandListAppendMemoryCopy(l, back, dst, DP * DH, NULL, 0, NULL));
    zt_immediate_sync(&env, l);
    for (int y = 0; y < DH; y++)
        for (int x = 0; x < DP; x++) {
            bool inside = x >= 30 && x < 42 && y >= 2 && y < 11;
            unsigned char want = inside ? src[(y - 2 + 7) * SP + (x - 30 + 5)] : 0;
            cr_assert_eq(back[y * DP + x], want, "byte (%d,%d): %u, expected %u", x, y, back[y * DP + x], want);
        }
    ZT_OK(zeMemFree(env.context, src));
    ZT_OK(zeMemFree(env.context, dst));
    ZT_OK(zeMemFree(env.context, back));
    ZT_OK(zeCommandListDestroy(l));
    zt_fini(&env);
}

/* The device reports int64 atomics, so 64-bit atomic add/min/max/inc must work. */
T(int64_atomics)
{
    zt_env env;
    zt_init(&env);
    ze_device_module_properties_t mp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES};
    ZT_OK(zeDeviceGetModuleProperties(env.device, &mp));
    if (!(mp.flags & ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS)) {
        zt_fini(&env);
        cr_skip_test("no int64 atomics");
    }
    ze_module_handle_t m = zt_module_load(&env, "ze_atomics64");
    ze_kernel_handle_t k = zt_kernel_create(m, "atomics64");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    enum { N = 4096 };
    int64_t *vals = zt_alloc_shared(&env, N * sizeof(int64_t));
    int64_t *res = zt_alloc_shared(&env, 4 * sizeof(int64_t));
    int64_t sum = 0, mn = INT64_MAX, mx = INT64_MIN;
    for (int i = 0; i < N; i++) {
        vals[i] = ((int64_t)(i * 2654435761u % 100003) - 50000) * 100000000ll;
        sum += vals[i];
        mn = vals[i] < mn ? vals[i] : mn;
        mx = vals[i] > mx ? vals[i] : mx;
    }
    res[0] = 0;
    res[1] = INT64_MAX;
    res[2] = INT64_MIN;
    res[3] = 0;
    int64_t *ps = &res[0], *pmn = &res[1], *pmx = &res[2], *pc = &res[3];
    zt_set_args(k, 5, sizeof vals, &vals, sizeof ps, &ps, sizeof pmn, &pmn, sizeof pmx, &pmx, sizeof pc, &pc);
    zt_launch_sync(&env, l, k, 64, 1, 1, N / 64, 1, 1);
    cr_assert_eq(res[0], sum);
    cr_assert_eq(res[1], mn);
    cr_assert_eq(res[2], mx);
    cr_assert_eq(res[3], N);
    ZT_OK(zeMemFree(env.context, vals));
    ZT_OK(zeMemFree(env.context, res));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

T(constant_tables_and_arguments)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_constant");
    ze_kernel_handle_t k = zt_kernel_create(m, "use_constants");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    int *table = zt_alloc_shared(&env, 4 * sizeof(int));
    int *out = zt_alloc_shared(&env, 64 * sizeof(int));
    const int t[4] = {7, 11, 13, 17};
    memcpy(table, t, sizeof t);
    zt_set_args(k, 2, sizeof table, &table, sizeof out, &out);
    zt_launch_sync(&env, l, k, 16, 1, 1, 4, 1, 1);
    const int w8[4] = {4, 2, 1, 1};
    for (int i = 0; i < 64; i++) {
        int want = (i % 8) * (i % 8) * 100 + t[i % 4] + w8[i % 4];
        cr_assert_eq(out[i], want, "out[%d] = %d, expected %d", i, out[i], want);
    }
    ZT_OK(zeMemFree(env.context, table));
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

static int32_t clampi(double v, double lo, double hi)
{
    return (int32_t)(v < lo ? lo : v > hi ? hi : v);
}

T(rounding_and_saturating_conversions)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_convert");
    ze_kernel_handle_t k = zt_kernel_create(m, "conversions");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    enum { N = 64 };
    float *in = zt_alloc_shared(&env, N * sizeof(float));
    int32_t *out = zt_alloc_shared(&env, N * 8 * sizeof(int32_t));
    const float special[8] = {2.5f, -2.5f, 0.5f, 1.5f, -0.5f, 3.7f, -3.7f, 0.0f};
    for (int i = 0; i < N; i++)
        in[i] = i < 8 ? special[i] : (float)(i - 32) * 0.77f;
    zt_set_args(k, 2, sizeof in, &in, sizeof out, &out);
    zt_launch_sync(&env, l, k, 16, 1, 1, N / 16, 1, 1);
    for (int i = 0; i < N; i++) {
        float x = in[i];
        int32_t want[8] = {
            (int32_t)rintf(x), (int32_t)truncf(x), (int32_t)ceilf(x), (int32_t)floorf(x),
            clampi(rintf(x * 10.0f), 0, 255), clampi(truncf(x * 10000.0f), -32768, 32767),
            (int32_t)rintf(x) + (int32_t)rintf(-x) + (int32_t)rintf(x * 0.5f), INT32_MAX};
        for (int j = 0; j < 8; j++)
            cr_assert_eq(out[i * 8 + j], want[j], "conversion %d of %g: %d, expected %d", j, (double)x,
                         out[i * 8 + j], want[j]);
    }

    ze_kernel_handle_t g = zt_kernel_create(m, "global_barrier");
    int *scratch = zt_alloc_shared(&env, 1024 * sizeof(int));
    int *gout = zt_alloc_shared(&env, 1024 * sizeof(int));
    zt_set_args(g, 2, sizeof scratch, &scratch, sizeof gout, &gout);
    zt_launch_sync(&env, l, g, 128, 1, 1, 8, 1, 1);
    for (int i = 0; i < 1024; i++) {
        int mirror = 127 - i % 128;
        cr_assert_eq(gout[i], mirror * mirror, "item %d", i);
    }
    ZT_OK(zeKernelDestroy(g));
    ZT_OK(zeMemFree(env.context, scratch));
    ZT_OK(zeMemFree(env.context, gout));
    ZT_OK(zeMemFree(env.context, in));
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* Copies between every pair of allocation kinds and plain host memory, odd sizes and offsets included. */
T(memory_copy)
{
    zt_env env;
    zt_init(&env);
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    enum { CAP = 70000 };
    unsigned char *src = malloc(CAP);
    unsigned char *back = malloc(CAP);
    cr_assert_not_null(src);
    cr_assert_not_null(back);
    for (int i = 0; i < CAP; i++)
        src[i] = (unsigned char)(i * 31 + 7);
    unsigned char *dev = zt_alloc_device(&env, CAP);
    unsigned char *host = zt_alloc_host(&env, CAP);
    unsigned char *shared = zt_alloc_shared(&env, CAP);
    const size_t sizes[] = {1, 3, 4, 64, 4097, 65536};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s], off = s * 3;
        memset(back, 0, CAP);
        memset(host, 0, CAP);
        memset(shared, 0, CAP);
        ZT_OK(zeCommandListAppendMemoryCopy(l, dev + off, src, n, NULL, 0, NULL));
        ZT_OK(zeCommandListAppendMemoryCopy(l, host + off + 1, dev + off, n, NULL, 0, NULL));
        ZT_OK(zeCommandListAppendMemoryCopy(l, shared, host + off + 1, n, NULL, 0, NULL));
        ZT_OK(zeCommandListAppendMemoryCopy(l, back, shared, n, NULL, 0, NULL));
        zt_immediate_sync(&env, l);
        cr_assert_arr_eq(back, src, n, "copy of %zu bytes", n);
        cr_assert_eq(back[n], 0, "copy of %zu bytes wrote past the end", n);
        cr_assert_eq(host[off], 0, "copy wrote before its destination");
        cr_assert_eq(host[off + 1 + n], 0, "copy wrote past its destination");
    }
    ZT_OK(zeMemFree(env.context, dev));
    ZT_OK(zeMemFree(env.context, host));
    ZT_OK(zeMemFree(env.context, shared));
    free(src);
    free(back);
    ZT_OK(zeCommandListDestroy(l));
    zt_fini(&env);
}

/* Every power-of-two pattern size from 1 to 128 bytes, into device and shared memory, with guard bytes
 * on both sides. */
T(memory_fill_patterns)
{
    zt_env env;
    zt_init(&env);
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    enum { CAP = 128 * 40 + 256 };
    unsigned char *shared = zt_alloc_shared(&env, CAP);
    unsigned char *dev = zt_alloc_device(&env, CAP);
    unsigned char *back = malloc(CAP);
    cr_assert_not_null(back);
    for (size_t ps = 1; ps <= 128; ps *= 2) {
        unsigned char pattern[128];
        for (size_t i = 0; i < ps; i++)
            pattern[i] = (unsigned char)(0x80 + i * 3 + ps);
        size_t n = ps * 37, off = 128;
        memset(shared, 0xee, CAP);
        ZT_OK(zeCommandListAppendMemoryFill(l, shared + off, pattern, ps, n, NULL, 0, NULL));
        /* The pattern is read at append time or later; either way it must stay valid until the sync. */
        ZT_OK(zeCommandListAppendMemoryCopy(l, dev, shared, CAP, NULL, 0, NULL));
        ZT_OK(zeCommandListAppendMemoryFill(l, dev + off + n, pattern, ps, ps, NULL, 0, NULL));
        ZT_OK(zeCommandListAppendMemoryCopy(l, back, dev, CAP, NULL, 0, NULL));
        zt_immediate_sync(&env, l);
        for (size_t i = 0; i < off; i++)
            cr_assert_eq(shared[i], 0xee, "pattern %zu: byte %zu before the fill changed", ps, i);
        for (size_t i = 0; i < n; i++)
            cr_assert_eq(shared[off + i], pattern[i % ps], "pattern %zu: byte %zu", ps, i);
        for (size_t i = off + n; i < CAP; i++)
            cr_assert_eq(shared[i], 0xee, "pattern %zu: byte %zu after the fill changed", ps, i);
        for (size_t i = 0; i < n + ps; i++)
            cr_assert_eq(back[off + i], pattern[i % ps], "pattern %zu: device byte %zu", ps, i);
        cr_assert_eq(back[off + n + ps], 0xee, "pattern %zu: device fill overran", ps);
    }
    ZT_OK(zeMemFree(env.context, shared));
    ZT_OK(zeMemFree(env.context, dev));
    free(back);
    ZT_OK(zeCommandListDestroy(l));
    zt_fini(&env);
}

Test(ze_launch, append_null_arguments)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_vadd");
    ze_kernel_handle_t k = zt_kernel_create(m, "iota");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_group_count_t gc = {1, 1, 1};
    ZT_EXPECT(zeCommandListAppendLaunchKernel(NULL, k, &gc, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeCommandListAppendLaunchKernel(l, NULL, &gc, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    ZT_EXPECT(zeCommandListAppendLaunchKernel(l, k, NULL, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(zeCommandListAppendLaunchKernel(l, k, &gc, NULL, 1, NULL), ZE_RESULT_ERROR_INVALID_SIZE);
    char buf[16];
    ZT_EXPECT(zeCommandListAppendMemoryCopy(l, NULL, buf, 4, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(zeCommandListAppendMemoryCopy(l, buf, NULL, 4, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(zeCommandListAppendMemoryFill(l, buf, NULL, 1, 4, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ZT_EXPECT(zeCommandListAppendMemoryFill(l, NULL, buf, 1, 4, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    zt_immediate_sync(&env, l);
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* The global-offset experimental extension, when the driver lists it. */
T(global_offset_extension)
{
    zt_env env;
    zt_init(&env);
    if (!zt_driver_has_extension(env.driver, ZE_GLOBAL_OFFSET_EXP_NAME)) {
        zt_fini(&env);
        cr_skip_test("%s not listed", ZE_GLOBAL_OFFSET_EXP_NAME);
    }
    ze_module_handle_t m = zt_module_load(&env, "ze_vadd");
    ze_kernel_handle_t k = zt_kernel_create(m, "iota");
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    uint32_t *out = zt_alloc_shared(&env, 256 * sizeof(uint32_t));
    memset(out, 0, 256 * sizeof(uint32_t));
    zt_set_args(k, 1, sizeof out, &out);
    ZT_OK(zeKernelSetGlobalOffsetExp(k, 100, 0, 0));
    zt_launch_sync(&env, l, k, 16, 1, 1, 4, 1, 1);
    for (uint32_t i = 0; i < 256; i++)
        cr_assert_eq(out[i], (i >= 100 && i < 164) ? i : 0, "out[%u] = %u", i, out[i]);
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* Threads each drive their own immediate list and kernel (the spec forbids sharing a kernel's argument
 * state between threads), all at the same time; every thread's result is checked. */
typedef struct {
    zt_env *env;
    ze_module_handle_t module;
    int *data;
    int k;
    int launches;
    ze_result_t failed;
} thread_job;

static void *thread_main(void *arg)
{
    thread_job *j = arg;
    j->failed = ZE_RESULT_SUCCESS;
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = "add_scalar"};
    ze_kernel_handle_t k = NULL;
    ze_command_queue_desc_t qd = {
        .stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
        .ordinal = j->env->compute_ordinal,
        .mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
    };
    ze_command_list_handle_t l = NULL;
    ze_event_pool_handle_t pool = NULL;
    ze_event_handle_t ev = NULL;
    ze_result_t r;
#define STEP(call)                                                                                        \
    if ((r = (call)) != ZE_RESULT_SUCCESS) {                                                              \
        j->failed = r;                                                                                    \
        return NULL;                                                                                      \
    }
    STEP(zeKernelCreate(j->module, &kd, &k));
    STEP(zeCommandListCreateImmediate(j->env->context, j->env->device, &qd, &l));
    uint32_t n = 1024;
    STEP(zeKernelSetArgumentValue(k, 0, sizeof j->data, &j->data));
    STEP(zeKernelSetArgumentValue(k, 1, sizeof j->k, &j->k));
    STEP(zeKernelSetArgumentValue(k, 2, sizeof n, &n));
    STEP(zeKernelSetGroupSize(k, 64, 1, 1));
    ze_group_count_t gc = {16, 1, 1};
    for (int i = 0; i < j->launches; i++)
        STEP(zeCommandListAppendLaunchKernel(l, k, &gc, NULL, 0, NULL));
    ze_event_pool_desc_t pd = {.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, .flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE,
                               .count = 1};
    STEP(zeEventPoolCreate(j->env->context, &pd, 1, &j->env->device, &pool));
    ze_event_desc_t ed = {.stype = ZE_STRUCTURE_TYPE_EVENT_DESC, .signal = ZE_EVENT_SCOPE_FLAG_HOST,
                          .wait = ZE_EVENT_SCOPE_FLAG_HOST};
    STEP(zeEventCreate(pool, &ed, &ev));
    STEP(zeCommandListAppendBarrier(l, ev, 0, NULL));
    STEP(zeEventHostSynchronize(ev, ZT_TIMEOUT_NS));
    STEP(zeEventDestroy(ev));
    STEP(zeEventPoolDestroy(pool));
    STEP(zeCommandListDestroy(l));
    STEP(zeKernelDestroy(k));
#undef STEP
    return NULL;
}

T(threads_append_to_their_own_lists)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_vadd");
    enum { THREADS = 6, LAUNCHES = 40 };
    pthread_t th[THREADS];
    thread_job jobs[THREADS];
    for (int t = 0; t < THREADS; t++) {
        jobs[t] = (thread_job){.env = &env, .module = m, .k = t + 1, .launches = LAUNCHES};
        jobs[t].data = zt_alloc_shared(&env, 1024 * sizeof(int));
        for (int i = 0; i < 1024; i++)
            jobs[t].data[i] = i;
    }
    for (int t = 0; t < THREADS; t++)
        cr_assert_eq(pthread_create(&th[t], NULL, thread_main, &jobs[t]), 0);
    for (int t = 0; t < THREADS; t++)
        cr_assert_eq(pthread_join(th[t], NULL), 0);
    for (int t = 0; t < THREADS; t++) {
        cr_assert_eq(jobs[t].failed, ZE_RESULT_SUCCESS, "thread %d: 0x%x (%s)", t, (unsigned)jobs[t].failed,
                     zt_result_name(jobs[t].failed));
        for (int i = 0; i < 1024; i++)
            cr_assert_eq(jobs[t].data[i], i + LAUNCHES * (t + 1), "thread %d item %d: %d", t, i, jobs[t].data[i]);
        ZT_OK(zeMemFree(env.context, jobs[t].data));
    }
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* The same launches and copies on PoCL's single-threaded basic device (POCL_DEVICES=basic, set before
 * zeInit in this test's own process), including a copy from plain host memory. */
Test(ze_launch, basic_device_launch_copy_fill, .timeout = 60)
{
    cr_assert_eq(setenv("POCL_DEVICES", "basic", 1), 0);
    zt_env env;
    zt_init(&env);
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    enum { N = 4096 };
    unsigned char *src = malloc(N);
    cr_assert_not_null(src);
    for (int i = 0; i < N; i++)
        src[i] = (unsigned char)(i * 7);
    unsigned char *s = zt_alloc_shared(&env, N);
    unsigned char *d = zt_alloc_device(&env, N);
    /* First command on a fresh list: a copy from plain host memory. */
    ZT_OK(zeCommandListAppendMemoryCopy(l, s, src, N, NULL, 0, NULL));
    zt_immediate_sync(&env, l);
    cr_assert_arr_eq(s, src, N);
    memset(s, 0, N);
    ZT_OK(zeCommandListAppendMemoryCopy(l, d, src, N, NULL, 0, NULL));
    ZT_OK(zeCommandListAppendMemoryCopy(l, s, d, N, NULL, 0, NULL));
    zt_immediate_sync(&env, l);
    cr_assert_arr_eq(s, src, N);
    static const uint32_t pattern = 0xa1b2c3d4u;
    ZT_OK(zeCommandListAppendMemoryFill(l, s, &pattern, sizeof pattern, N, NULL, 0, NULL));
    zt_immediate_sync(&env, l);
    for (int i = 0; i < N; i++)
        cr_assert_eq(s[i], ((const unsigned char *)&pattern)[i % 4]);
    run_vadd(&env, l, true, NULL);
    free(src);
    ZT_OK(zeMemFree(env.context, s));
    ZT_OK(zeMemFree(env.context, d));
    ZT_OK(zeCommandListDestroy(l));
    zt_fini(&env);
}

/* A regular list's recorded launch keeps its own arguments when replayed, and immediate appends of the same
 * kernel between replays keep using the kernel's current arguments. */
T(replay_and_immediate_appends_of_one_kernel)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_vadd");
    ze_kernel_handle_t k = zt_kernel_create(m, "add_scalar");
    int *x = zt_alloc_shared(&env, 64 * sizeof(int));
    int *y = zt_alloc_shared(&env, 64 * sizeof(int));
    memset(x, 0, 64 * sizeof(int));
    memset(y, 0, 64 * sizeof(int));
    uint32_t n = 64;
    int one = 1, ten = 10;
    zt_set_args(k, 3, sizeof x, &x, sizeof one, &one, sizeof n, &n);
    ZT_OK(zeKernelSetGroupSize(k, 64, 1, 1));
    ze_group_count_t gc = {1, 1, 1};
    ze_command_queue_handle_t q = zt_queue_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t rl = zt_list_create(&env);
    ZT_OK(zeCommandListAppendLaunchKernel(rl, k, &gc, NULL, 0, NULL));
    ZT_OK(zeCommandListClose(rl));
    zt_set_args(k, 2, sizeof y, &y, sizeof ten, &ten);
    ze_command_list_handle_t il = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    for (int round = 1; round <= 3; round++) {
        ZT_OK(zeCommandListAppendLaunchKernel(il, k, &gc, NULL, 0, NULL));
        ZT_OK(zeCommandQueueExecuteCommandLists(q, 1, &rl, NULL));
        ZT_OK(zeCommandQueueSynchronize(q, ZT_TIMEOUT_NS));
    }
    ZT_OK(zeCommandListAppendLaunchKernel(il, k, &gc, NULL, 0, NULL));
    for (int i = 0; i < 64; i++) {
        cr_assert_eq(x[i], 3, "x[%d] = %d (replays of the recorded launch)", i, x[i]);
        cr_assert_eq(y[i], 40, "y[%d] = %d (immediate appends)", i, y[i]);
    }
    ZT_OK(zeCommandListDestroy(il));
    ZT_OK(zeCommandListDestroy(rl));
    ZT_OK(zeCommandQueueDestroy(q));
    ZT_OK(zeMemFree(env.context, x));
    ZT_OK(zeMemFree(env.context, y));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* One kernel, its arguments set once, appended by several threads to their own lists at the same time. */
typedef struct {
    zt_env *env;
    ze_kernel_handle_t kernel;
    int launches;
    ze_result_t failed;
} shared_kernel_job;

static void *shared_kernel_main(void *arg)
{
    shared_kernel_job *j = arg;
    ze_command_queue_desc_t qd = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, .ordinal = j->env->compute_ordinal,
                                  .mode = ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS};
    ze_command_list_handle_t l = NULL;
    ze_result_t r = zeCommandListCreateImmediate(j->env->context, j->env->device, &qd, &l);
    ze_group_count_t gc = {8, 1, 1};
    for (int i = 0; i < j->launches && r == ZE_RESULT_SUCCESS; i++)
        r = zeCommandListAppendLaunchKernel(l, j->kernel, &gc, NULL, 0, NULL);
    if (l != NULL && zeCommandListDestroy(l) != ZE_RESULT_SUCCESS && r == ZE_RESULT_SUCCESS)
        r = ZE_RESULT_ERROR_UNKNOWN;
    j->failed = r;
    return NULL;
}

T(one_kernel_appended_from_several_threads)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_atomics");
    ze_kernel_handle_t k = zt_kernel_create(m, "atomic_local_count");
    int *total = zt_alloc_shared(&env, sizeof(int));
    *total = 0;
    zt_set_args(k, 1, sizeof total, &total);
    ZT_OK(zeKernelSetGroupSize(k, 32, 1, 1));
    enum { THREADS = 4, LAUNCHES = 50 };
    pthread_t th[THREADS];
    shared_kernel_job jobs[THREADS];
    for (int t = 0; t < THREADS; t++) {
        jobs[t] = (shared_kernel_job){.env = &env, .kernel = k, .launches = LAUNCHES};
        cr_assert_eq(pthread_create(&th[t], NULL, shared_kernel_main, &jobs[t]), 0);
    }
    for (int t = 0; t < THREADS; t++) {
        cr_assert_eq(pthread_join(th[t], NULL), 0);
        cr_assert_eq(jobs[t].failed, ZE_RESULT_SUCCESS, "thread %d: 0x%x", t, (unsigned)jobs[t].failed);
    }
    cr_assert_eq(*total, THREADS * LAUNCHES * 8 * 32);
    ZT_OK(zeMemFree(env.context, total));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* The global offset is part of what a regular list records. */
T(global_offset_recorded_in_regular_list)
{
    zt_env env;
    zt_init(&env);
    if (!zt_driver_has_extension(env.driver, ZE_GLOBAL_OFFSET_EXP_NAME)) {
        zt_fini(&env);
        cr_skip_test("%s not listed", ZE_GLOBAL_OFFSET_EXP_NAME);
    }
    ze_module_handle_t m = zt_module_load(&env, "ze_vadd");
    ze_kernel_handle_t k = zt_kernel_create(m, "iota");
    uint32_t *out = zt_alloc_shared(&env, 256 * sizeof(uint32_t));
    memset(out, 0, 256 * sizeof(uint32_t));
    zt_set_args(k, 1, sizeof out, &out);
    ZT_OK(zeKernelSetGroupSize(k, 16, 1, 1));
    ze_group_count_t gc = {2, 1, 1};
    ze_command_queue_handle_t q = zt_queue_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t l = zt_list_create(&env);
    ZT_OK(zeKernelSetGlobalOffsetExp(k, 32, 0, 0));
    ZT_OK(zeCommandListAppendLaunchKernel(l, k, &gc, NULL, 0, NULL));
    ZT_OK(zeKernelSetGlobalOffsetExp(k, 128, 0, 0));
    ZT_OK(zeCommandListAppendLaunchKernel(l, k, &gc, NULL, 0, NULL));
    ZT_OK(zeKernelSetGlobalOffsetExp(k, 0, 0, 0));
    zt_execute_and_wait(q, l);
    for (uint32_t i = 0; i < 256; i++) {
        bool written = (i >= 32 && i < 64) || (i >= 128 && i < 160);
        cr_assert_eq(out[i], written ? i : 0, "out[%u] = %u", i, out[i]);
    }
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeCommandQueueDestroy(q));
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* A launch of more work-items than a 64-bit count holds (issue 37): group counts of 2^32 - 1 in every dimension,
 * 2^96 work-items, or 2^31 x 2^31 x 2 groups of 1 x 1 x 2 (2^64: the group size counts too). The drivers count
 * work-items and groups in 64 bits (the host device its groups, PoCL its linear ids) and would have run some other
 * number of them; the append refuses them with ZE_RESULT_ERROR_INVALID_ARGUMENT, on a regular list first (so
 * that before the fix the test failed without running them) and on an immediate one. 2^31 x 2^31 x 3 groups of
 * one item (3 x 2^62) fit, and so does a count of 0 beside two whose product does not (nothing runs): recorded,
 * never executed. An indirect launch reads its count when it runs, with no
 * caller left to refuse it to: it is dropped, its signal event never set, and a barrier after it still runs.
 * The kernel then runs as before. */
T(work_items_past_a_64_bit_count)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_offsets");
    ze_kernel_handle_t k = zt_kernel_create(m, "offset_ids");
    const offset_case small = {{0, 0, 0}, {2, 1, 1}, {2, 1, 1}};
    size_t words = offset_case_words(&small) + OFFSET_SLACK;
    uint32_t *out = zt_alloc_shared(&env, words * sizeof *out);
    for (size_t w = 0; w < words; w++)
        out[w] = OFFSET_SENTINEL;
    zt_set_args(k, 1, sizeof out, &out);
    const ze_group_count_t all = {UINT32_MAX, UINT32_MAX, UINT32_MAX}, two = {1u << 31, 1u << 31, 2},
                           fits = {1u << 31, 1u << 31, 3};
    ze_command_list_handle_t rl = zt_list_create(&env);
    ZT_OK(zeKernelSetGroupSize(k, 1, 1, 1));
    ZT_EXPECT(zeCommandListAppendLaunchKernel(rl, k, &all, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ZT_OK(zeCommandListAppendLaunchKernel(rl, k, &two, NULL, 0, NULL));
    ZT_OK(zeCommandListAppendLaunchKernel(rl, k, &fits, NULL, 0, NULL));
    ZT_OK(zeKernelSetGroupSize(k, 1, 1, 2));
    ZT_EXPECT(zeCommandListAppendLaunchKernel(rl, k, &two, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    /* A count of 0 launches nothing, whatever the other two multiply to (2^68 here). */
    const ze_group_count_t none = {UINT32_MAX, UINT32_MAX, 0};
    ZT_OK(zeKernelSetGroupSize(k, 16, 16, 1));
    ZT_OK(zeCommandListAppendLaunchKernel(rl, k, &none, NULL, 0, NULL));
    ZT_OK(zeKernelSetGroupSize(k, 1, 1, 2));
    ZT_OK(zeCommandListDestroy(rl));
    ze_command_list_handle_t il = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ZT_EXPECT(zeCommandListAppendLaunchKernel(il, k, &two, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ZT_OK(zeKernelSetGroupSize(k, 1, 1, 1));
    ZT_EXPECT(zeCommandListAppendLaunchKernel(il, k, &all, NULL, 0, NULL), ZE_RESULT_ERROR_INVALID_ARGUMENT);
    ze_event_pool_handle_t pool = zt_event_pool_create(&env, 2, false);
    ze_event_handle_t launched = zt_event_create(pool, 0), after = zt_event_create(pool, 1);
    ze_group_count_t *count = zt_alloc_shared(&env, sizeof *count);
    *count = all;
    ZT_OK(zeCommandListAppendLaunchKernelIndirect(il, k, count, launched, 0, NULL));
    ZT_OK(zeCommandListAppendBarrier(il, after, 0, NULL));
    ZT_OK(zeEventHostSynchronize(after, ZT_TIMEOUT_NS));
    ZT_EXPECT(zeEventQueryStatus(launched), ZE_RESULT_NOT_READY);
    for (size_t w = 0; w < words; w++)
        cr_assert_eq(out[w], OFFSET_SENTINEL, "word %zu written by a launch that was refused", w);
    ZT_OK(zeKernelSetGroupSize(k, small.group[0], small.group[1], small.group[2]));
    ze_group_count_t gc = {small.count[0], small.count[1], small.count[2]};
    ZT_OK(zeCommandListAppendLaunchKernel(il, k, &gc, NULL, 0, NULL));
    zt_immediate_sync(&env, il);
    expect_offset_ids(out, &small, 0, "after the refusals");
    ZT_OK(zeCommandListDestroy(il));
    ZT_OK(zeEventDestroy(launched));
    ZT_OK(zeEventDestroy(after));
    ZT_OK(zeEventPoolDestroy(pool));
    ZT_OK(zeMemFree(env.context, count));
    ZT_OK(zeMemFree(env.context, out));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* ZE_krt_exact_range through Level Zero alone: the true range set as the argument one past the last makes a
 * launch exact (the kernel, krt_exact.cl's inc, has no guard), a group count the range does not need is
 * refused, zeros go back to uniform launches, and a regular list keeps the range it recorded. */
T(exact_range_extension)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "krt_exact");
    ze_kernel_handle_t k = zt_kernel_create(m, "inc");
    enum { N = 1000, SLACK = 64 };
    int *a = zt_alloc_shared(&env, (N + SLACK) * sizeof(int));
    memset(a, 0, (N + SLACK) * sizeof(int));
    zt_set_args(k, 1, sizeof a, &a);
    ZT_OK(zeKernelSetGroupSize(k, 64, 1, 1));
    uint64_t range[3] = {N, 1, 1};
    ZT_OK(zeKernelSetArgumentValue(k, 1, sizeof range, range));
    ze_command_list_handle_t il = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    ze_group_count_t gc = {N / 64 + 1, 1, 1}, too_many = {N / 64 + 2, 1, 1}, too_few = {N / 64, 1, 1};
    ZT_EXPECT(zeCommandListAppendLaunchKernel(il, k, &too_many, NULL, 0, NULL),
              ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION);
    ZT_EXPECT(zeCommandListAppendLaunchKernel(il, k, &too_few, NULL, 0, NULL),
              ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION);
    ZT_OK(zeCommandListAppendLaunchKernel(il, k, &gc, NULL, 0, NULL));
    /* Recorded with the range, replayed twice after the kernel's range went back to uniform. */
    ze_command_queue_handle_t q = zt_queue_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t rl = zt_list_create(&env);
    ZT_OK(zeCommandListAppendLaunchKernel(rl, k, &gc, NULL, 0, NULL));
    ZT_OK(zeCommandListClose(rl));
    uint64_t none[3] = {0, 0, 0};
    ZT_OK(zeKernelSetArgumentValue(k, 1, sizeof none, none));
    for (int round = 0; round < 2; round++) {
        ZT_OK(zeCommandQueueExecuteCommandLists(q, 1, &rl, NULL));
        ZT_OK(zeCommandQueueSynchronize(q, ZT_TIMEOUT_NS));
    }
    for (int i = 0; i < N + SLACK; i++)
        cr_assert_eq(a[i], i < N ? 3 : 0, "a[%d] = %d after three exact launches over %d", i, a[i], N);
    /* Uniform again: 16 whole groups of 64 items. */
    ZT_OK(zeCommandListAppendLaunchKernel(il, k, &gc, NULL, 0, NULL));
    for (int i = 0; i < N + SLACK; i++)
        cr_assert_eq(a[i], i < N ? 4 : i < 1024 ? 1 : 0, "a[%d] = %d after a uniform launch of 1024", i, a[i]);
    ZT_OK(zeCommandListDestroy(rl));
    ZT_OK(zeCommandQueueDestroy(q));
    ZT_OK(zeCommandListDestroy(il));
    ZT_OK(zeMemFree(env.context, a));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}
