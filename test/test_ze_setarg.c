/* ze_pocl returns early from zeKernelSetArgumentValue and zeKernelSetGroupSize when the value is the one
 * already in place. These tests check that the early returns keep Level Zero's semantics: every append
 * captures the arguments and group size set before it, on immediate lists and in the snapshot a regular
 * list records, also after a replay left other values in the backend kernel, and that the checks still
 * refuse what they refused before. */
#include "ze_common.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define T(name) Test(ze_setarg, name, .timeout = ZT_TEST_TIMEOUT)

enum { N = 256, GROUP = 64 };

static const ze_group_count_t groups = {N / GROUP, 1, 1};

/* add_scalar(global int *x, int k, uint n) from ze_vadd.cl, with x and n set and group size GROUP. */
static ze_kernel_handle_t add_kernel(ze_module_handle_t m, int *x)
{
    ze_kernel_handle_t k = zt_kernel_create(m, "add_scalar");
    uint32_t n = N;
    int zero = 0;
    zt_set_args(k, 3, sizeof x, &x, sizeof zero, &zero, sizeof n, &n);
    ZT_OK(zeKernelSetGroupSize(k, GROUP, 1, 1));
    return k;
}

static void set_x(ze_kernel_handle_t k, int *x) { ZT_OK(zeKernelSetArgumentValue(k, 0, sizeof x, &x)); }
static void set_k(ze_kernel_handle_t k, int v) { ZT_OK(zeKernelSetArgumentValue(k, 1, sizeof v, &v)); }

static void expect_all(const int *x, int want, const char *what)
{
    for (int i = 0; i < N; i++) cr_assert_eq(x[i], want, "%s: x[%d] = %d, expected %d", what, i, x[i], want);
}

/* Value A, then B, then A again, then A once more (the early return): each append adds its own value. */
T(immediate_each_append_sees_its_value)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_vadd");
    int *x = zt_alloc_shared(&env, N * sizeof(int));
    memset(x, 0, N * sizeof(int));
    ze_kernel_handle_t k = add_kernel(m, x);
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    static const int values[] = {1, 100, 1, 1, 100, 100, 7};
    int want = 0;
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        set_k(k, values[i]);
        ZT_OK(zeCommandListAppendLaunchKernel(l, k, &groups, NULL, 0, NULL));
        zt_immediate_sync(&env, l);
        want += values[i];
        expect_all(x, want, "after an append");
    }
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeMemFree(env.context, x));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* The same without waiting between appends: each launch still runs with the values set before it. */
T(immediate_back_to_back_appends)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_vadd");
    int *p1 = zt_alloc_shared(&env, N * sizeof(int));
    int *p2 = zt_alloc_shared(&env, N * sizeof(int));
    memset(p1, 0, N * sizeof(int));
    memset(p2, 0, N * sizeof(int));
    ze_kernel_handle_t k = add_kernel(m, p1);
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    /* (p1, 1) (p2, 1) (p2, 100) (p1, 100) (p1, 1) (p1, 1) */
    set_x(k, p1), set_k(k, 1);
    ZT_OK(zeCommandListAppendLaunchKernel(l, k, &groups, NULL, 0, NULL));
    set_x(k, p2), set_k(k, 1);
    ZT_OK(zeCommandListAppendLaunchKernel(l, k, &groups, NULL, 0, NULL));
    set_x(k, p2), set_k(k, 100);
    ZT_OK(zeCommandListAppendLaunchKernel(l, k, &groups, NULL, 0, NULL));
    set_x(k, p1), set_k(k, 100);
    ZT_OK(zeCommandListAppendLaunchKernel(l, k, &groups, NULL, 0, NULL));
    set_x(k, p1), set_k(k, 1);
    ZT_OK(zeCommandListAppendLaunchKernel(l, k, &groups, NULL, 0, NULL));
    set_x(k, p1), set_k(k, 1);
    ZT_OK(zeCommandListAppendLaunchKernel(l, k, &groups, NULL, 0, NULL));
    zt_immediate_sync(&env, l);
    expect_all(p1, 1 + 100 + 1 + 1, "p1");
    expect_all(p2, 1 + 100, "p2");
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeMemFree(env.context, p1));
    ZT_OK(zeMemFree(env.context, p2));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* A regular list records the values of each append; what is set after recording does not reach it. */
T(regular_list_records_each_snapshot)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_vadd");
    int *p1 = zt_alloc_shared(&env, N * sizeof(int));
    int *p2 = zt_alloc_shared(&env, N * sizeof(int));
    memset(p1, 0, N * sizeof(int));
    memset(p2, 0, N * sizeof(int));
    ze_kernel_handle_t k = add_kernel(m, p1);
    ze_command_queue_handle_t q = zt_queue_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t l = zt_list_create(&env);
    set_k(k, 1);
    ZT_OK(zeCommandListAppendLaunchKernel(l, k, &groups, NULL, 0, NULL)); /* p1 += 1 */
    set_k(k, 100);
    ZT_OK(zeCommandListAppendLaunchKernel(l, k, &groups, NULL, 0, NULL)); /* p1 += 100 */
    set_k(k, 1);
    ZT_OK(zeCommandListAppendLaunchKernel(l, k, &groups, NULL, 0, NULL)); /* p1 += 1 */
    set_x(k, p2);
    set_k(k, 1);
    ZT_OK(zeCommandListAppendLaunchKernel(l, k, &groups, NULL, 0, NULL)); /* p2 += 1 */
    /* After recording: changes the kernel, not the list. */
    set_x(k, p1);
    set_k(k, 1000);
    zt_execute_and_wait(q, l);
    expect_all(p1, 102, "p1 after one execute");
    expect_all(p2, 1, "p2 after one execute");
    /* Setting back the value of the last recorded append changes nothing either. */
    set_x(k, p2);
    set_k(k, 1);
    ZT_OK(zeCommandQueueExecuteCommandLists(q, 1, &l, NULL));
    ZT_OK(zeCommandQueueSynchronize(q, ZT_TIMEOUT_NS));
    expect_all(p1, 204, "p1 after two executes");
    expect_all(p2, 2, "p2 after two executes");
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeCommandQueueDestroy(q));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeMemFree(env.context, p1));
    ZT_OK(zeMemFree(env.context, p2));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* A replay puts the snapshot's values into the backend kernel. Setting the kernel's own values again
 * afterwards (unchanged, so the early return) must still launch with them on an immediate list. */
T(immediate_after_replay_uses_kernel_values)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_vadd");
    int *p1 = zt_alloc_shared(&env, N * sizeof(int));
    int *p2 = zt_alloc_shared(&env, N * sizeof(int));
    memset(p1, 0, N * sizeof(int));
    memset(p2, 0, N * sizeof(int));
    ze_kernel_handle_t k = add_kernel(m, p1);
    ze_command_queue_handle_t q = zt_queue_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t l = zt_list_create(&env);
    ze_command_list_handle_t imm = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    set_k(k, 100);
    ZT_OK(zeCommandListAppendLaunchKernel(l, k, &groups, NULL, 0, NULL)); /* records (p1, 100) */
    ZT_OK(zeCommandListClose(l));
    set_x(k, p2);
    set_k(k, 1);
    ZT_OK(zeCommandListAppendLaunchKernel(imm, k, &groups, NULL, 0, NULL)); /* p2 += 1 */
    zt_immediate_sync(&env, imm);
    for (int round = 1; round <= 3; round++) {
        ZT_OK(zeCommandQueueExecuteCommandLists(q, 1, &l, NULL)); /* p1 += 100 */
        ZT_OK(zeCommandQueueSynchronize(q, ZT_TIMEOUT_NS));
        set_x(k, p2);
        set_k(k, 1);
        ZT_OK(zeCommandListAppendLaunchKernel(imm, k, &groups, NULL, 0, NULL)); /* p2 += 1 */
        zt_immediate_sync(&env, imm);
        expect_all(p1, 100 * round, "p1");
        expect_all(p2, 1 + round, "p2");
    }
    ZT_OK(zeCommandListDestroy(imm));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeCommandQueueDestroy(q));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeMemFree(env.context, p1));
    ZT_OK(zeMemFree(env.context, p2));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* A NULL value sets zeros for a scalar; setting the earlier value afterwards must reach the kernel. */
T(null_scalar_between_values)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_vadd");
    int *x = zt_alloc_shared(&env, N * sizeof(int));
    memset(x, 0, N * sizeof(int));
    ze_kernel_handle_t k = add_kernel(m, x);
    ze_command_list_handle_t l = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
    set_k(k, 5);
    ZT_OK(zeCommandListAppendLaunchKernel(l, k, &groups, NULL, 0, NULL));
    ZT_OK(zeKernelSetArgumentValue(k, 1, sizeof(int), NULL));
    ZT_OK(zeCommandListAppendLaunchKernel(l, k, &groups, NULL, 0, NULL));
    expect_all(x, 5, "after the NULL value");
    ZT_OK(zeKernelSetArgumentValue(k, 1, sizeof(int), NULL));
    ZT_OK(zeCommandListAppendLaunchKernel(l, k, &groups, NULL, 0, NULL));
    set_k(k, 5);
    ZT_OK(zeCommandListAppendLaunchKernel(l, k, &groups, NULL, 0, NULL));
    expect_all(x, 10, "after 5 again");
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeMemFree(env.context, x));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* A value equal to the one in place is still checked: a wrong size or index is refused as before. */
T(unchanged_value_still_checked)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_vadd");
    int *x = zt_alloc_shared(&env, N * sizeof(int));
    ze_kernel_handle_t k = add_kernel(m, x);
    int64_t wide = 0; /* its first four bytes equal the int 0 in place */
    ZT_EXPECT(zeKernelSetArgumentValue(k, 1, sizeof wide, &wide), ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
    ZT_EXPECT(zeKernelSetArgumentValue(k, 1, 2, &wide), ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
    ZT_EXPECT(zeKernelSetArgumentValue(k, 0, 4, &x), ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
    /* Index 3 is the true range of ZE_krt_exact_range (24 bytes); 4 is past every argument. */
    ZT_EXPECT(zeKernelSetArgumentValue(k, 3, sizeof wide, &wide), ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
    ZT_EXPECT(zeKernelSetArgumentValue(k, 4, sizeof wide, &wide), ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX);
    ZT_OK(zeKernelSetArgumentValue(k, 0, sizeof x, &x));
    ZT_OK(zeKernelSetGroupSize(k, GROUP, 1, 1));
    ZT_EXPECT(zeKernelSetGroupSize(k, 0, 1, 1), ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION);
    ZT_EXPECT(zeKernelSetGroupSize(k, GROUP, 0, 1), ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION);
    ZT_EXPECT(zeKernelSetGroupSize(k, UINT32_MAX, 1, 1), ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION);
    ZT_OK(zeKernelSetGroupSize(k, GROUP, 1, 1));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeMemFree(env.context, x));
    ZT_OK(zeModuleDestroy(m));

    /* A kernel with a required size: its default is that size, and 1 x 1 x 1 is refused even first. */
    m = zt_module_load(&env, "ze_reqd");
    k = zt_kernel_create(m, "reqd");
    ZT_EXPECT(zeKernelSetGroupSize(k, 1, 1, 1), ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION);
    ZT_OK(zeKernelSetGroupSize(k, 8, 4, 2));
    ZT_OK(zeKernelSetGroupSize(k, 8, 4, 2));
    ZT_EXPECT(zeKernelSetGroupSize(k, 8, 4, 1), ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION);
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* free_size(global uint *out) writes get_local_size(0) for every item. */
static void expect_local(const uint32_t *out, uint32_t want, const char *what)
{
    for (int i = 0; i < N; i++) cr_assert_eq(out[i], want, "%s: out[%d] = %u, expected %u", what, i, out[i], want);
}

static void append_free_size(ze_command_list_handle_t l, ze_kernel_handle_t k, uint32_t *out, uint32_t g)
{
    ZT_OK(zeKernelSetArgumentValue(k, 0, sizeof out, &out));
    ZT_OK(zeKernelSetGroupSize(k, g, 1, 1));
    ze_group_count_t gc = {N / g, 1, 1};
    ZT_OK(zeCommandListAppendLaunchKernel(l, k, &gc, NULL, 0, NULL));
}

/* Group size A, B, A, A on an immediate list and in a regular list: each launch runs with its own. */
T(group_size_each_append_sees_its_size)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_reqd");
    ze_kernel_handle_t k = zt_kernel_create(m, "free_size");
    uint32_t *out[4];
    for (int i = 0; i < 4; i++) out[i] = zt_alloc_shared(&env, N * sizeof(uint32_t));
    static const uint32_t sizes[] = {8, 16, 8, 8};

    ze_command_list_handle_t imm = zt_immediate_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    for (int i = 0; i < 4; i++) {
        memset(out[i], 0, N * sizeof(uint32_t));
        append_free_size(imm, k, out[i], sizes[i]);
    }
    zt_immediate_sync(&env, imm);
    for (int i = 0; i < 4; i++) expect_local(out[i], sizes[i], "immediate");

    ze_command_queue_handle_t q = zt_queue_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t l = zt_list_create(&env);
    for (int i = 0; i < 4; i++) {
        memset(out[i], 0, N * sizeof(uint32_t));
        append_free_size(l, k, out[i], sizes[i]);
    }
    /* After recording: changes the kernel, not the list. */
    ZT_OK(zeKernelSetGroupSize(k, 32, 1, 1));
    zt_execute_and_wait(q, l);
    for (int i = 0; i < 4; i++) expect_local(out[i], sizes[i], "regular list");

    /* The size set after recording is the kernel's for the next immediate append. */
    memset(out[0], 0, N * sizeof(uint32_t));
    ZT_OK(zeKernelSetArgumentValue(k, 0, sizeof out[0], &out[0]));
    ze_group_count_t gc = {N / 32, 1, 1};
    ZT_OK(zeCommandListAppendLaunchKernel(imm, k, &gc, NULL, 0, NULL));
    zt_immediate_sync(&env, imm);
    expect_local(out[0], 32, "immediate after the list");

    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeCommandQueueDestroy(q));
    ZT_OK(zeCommandListDestroy(imm));
    for (int i = 0; i < 4; i++) ZT_OK(zeMemFree(env.context, out[i]));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}

/* One kernel used by two threads at once: one replays a recorded launch (p1, 100) on a queue, the other
 * sets the kernel's own values (p2, 1), unchanged after the first round, and appends to an immediate
 * list. Every launch must use its own values. */
enum { ROUNDS = 100 };

typedef struct {
    zt_env *env;
    ze_kernel_handle_t k;
    int *p2;
} imm_job;

static void *imm_thread(void *arg)
{
    imm_job *j = arg;
    ze_command_list_handle_t imm = zt_immediate_create(j->env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    for (int i = 0; i < ROUNDS; i++) {
        set_x(j->k, j->p2);
        set_k(j->k, 1);
        ZT_OK(zeCommandListAppendLaunchKernel(imm, j->k, &groups, NULL, 0, NULL));
    }
    zt_immediate_sync(j->env, imm);
    ZT_OK(zeCommandListDestroy(imm));
    return NULL;
}

T(replay_and_immediate_on_two_threads)
{
    zt_env env;
    zt_init(&env);
    ze_module_handle_t m = zt_module_load(&env, "ze_vadd");
    int *p1 = zt_alloc_shared(&env, N * sizeof(int));
    int *p2 = zt_alloc_shared(&env, N * sizeof(int));
    memset(p1, 0, N * sizeof(int));
    memset(p2, 0, N * sizeof(int));
    ze_kernel_handle_t k = add_kernel(m, p1);
    ze_command_queue_handle_t q = zt_queue_create(&env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t l = zt_list_create(&env);
    set_k(k, 100);
    ZT_OK(zeCommandListAppendLaunchKernel(l, k, &groups, NULL, 0, NULL));
    ZT_OK(zeCommandListClose(l));
    set_x(k, p2);
    set_k(k, 1);
    imm_job j = {&env, k, p2};
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, imm_thread, &j), 0);
    for (int i = 0; i < ROUNDS; i++) ZT_OK(zeCommandQueueExecuteCommandLists(q, 1, &l, NULL));
    ZT_OK(zeCommandQueueSynchronize(q, ZT_TIMEOUT_NS));
    cr_assert_eq(pthread_join(t, NULL), 0);
    expect_all(p1, 100 * ROUNDS, "p1 (replays)");
    expect_all(p2, ROUNDS, "p2 (immediate appends)");
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeCommandQueueDestroy(q));
    ZT_OK(zeKernelDestroy(k));
    ZT_OK(zeMemFree(env.context, p1));
    ZT_OK(zeMemFree(env.context, p2));
    ZT_OK(zeModuleDestroy(m));
    zt_fini(&env);
}
