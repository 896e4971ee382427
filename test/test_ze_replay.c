/* Regular command lists executed many times (what krt_replay stands on): one closed list executed again and
 * again, with and without waits between; lists that signal, wait on and reset events, as the specification says
 * an event is reset before it is signalled again; several lists in one zeCommandQueueExecuteCommandLists, in
 * order; arguments captured at append time; the same list on two queues; and the refusals. Every value the
 * kernels compute is checked. */
#include <string.h>

#include "ze_common.h"

TestSuite(ze_replay, .timeout = ZT_TEST_TIMEOUT);

#define N 1024u
#define GROUP 64u

typedef struct {
    zt_env env;
    ze_module_handle_t mod;
    ze_kernel_handle_t add; /* x[i] += k */
    ze_command_queue_handle_t q;
} fixture;

static void setup(fixture *f)
{
    zt_init(&f->env);
    f->mod = zt_module_load(&f->env, "ze_vadd");
    f->add = zt_kernel_create(f->mod, "add_scalar");
    ZT_OK(zeKernelSetGroupSize(f->add, GROUP, 1, 1));
    f->q = zt_queue_create(&f->env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
}

static void teardown(fixture *f)
{
    ZT_OK(zeCommandQueueDestroy(f->q));
    ZT_OK(zeKernelDestroy(f->add));
    ZT_OK(zeModuleDestroy(f->mod));
    zt_fini(&f->env);
}

static void append_add(fixture *f, ze_command_list_handle_t l, int *x, int k, ze_event_handle_t signal,
                       uint32_t nw, ze_event_handle_t *waits)
{
    uint32_t n = N;
    zt_set_args(f->add, 3, sizeof x, &x, sizeof k, &k, sizeof n, &n);
    ze_group_count_t gc = { N / GROUP, 1, 1 };
    ZT_OK(zeCommandListAppendLaunchKernel(l, f->add, &gc, signal, nw, waits));
}

static void expect_all(const int *x, int value)
{
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(x[i], value, "x[%u] = %d, expected %d", i, x[i], value);
}

/* One list, executed 50 times back to back and 5 times with a wait after each; the arguments are those of the
 * appends (3 then 4), whatever the kernel holds when the list runs. */
Test(ze_replay, one_list_many_executions)
{
    fixture f;
    setup(&f);
    int *x = zt_alloc_shared(&f.env, N * sizeof(int));
    memset(x, 0, N * sizeof(int));
    ze_command_list_handle_t l = zt_list_create(&f.env);
    append_add(&f, l, x, 3, NULL, 0, NULL);
    ZT_OK(zeCommandListAppendBarrier(l, NULL, 0, NULL));
    append_add(&f, l, x, 4, NULL, 0, NULL);
    ZT_OK(zeCommandListClose(l));
    uint32_t n = N;
    int k = 1000;
    zt_set_args(f.add, 3, sizeof x, &x, sizeof k, &k, sizeof n, &n); /* must not reach the recorded launches */
    for (int i = 0; i < 50; i++)
        ZT_OK(zeCommandQueueExecuteCommandLists(f.q, 1, &l, NULL));
    ZT_OK(zeCommandQueueSynchronize(f.q, ZT_TIMEOUT_NS));
    expect_all(x, 50 * 7);
    for (int i = 1; i <= 5; i++) {
        ZT_OK(zeCommandQueueExecuteCommandLists(f.q, 1, &l, NULL));
        ZT_OK(zeCommandQueueSynchronize(f.q, ZT_TIMEOUT_NS));
        expect_all(x, (50 + i) * 7);
    }
    ZT_OK(zeCommandListDestroy(l));
    teardown(&f);
}

/* A list whose launches are chained by events and which resets them itself first, so that each execution
 * starts from unsignalled events; the last event is waited on from the host after every execution. */
Test(ze_replay, list_with_events_resets_them)
{
    fixture f;
    setup(&f);
    int *x = zt_alloc_shared(&f.env, N * sizeof(int));
    int *y = zt_alloc_shared(&f.env, N * sizeof(int));
    memset(x, 0, N * sizeof(int));
    memset(y, 0, N * sizeof(int));
    ze_event_pool_handle_t pool = zt_event_pool_create(&f.env, 3, false);
    ze_event_handle_t e0 = zt_event_create(pool, 0), e1 = zt_event_create(pool, 1), e2 = zt_event_create(pool, 2);
    ze_command_list_handle_t l = zt_list_create(&f.env);
    ZT_OK(zeCommandListAppendEventReset(l, e0));
    ZT_OK(zeCommandListAppendEventReset(l, e1));
    append_add(&f, l, x, 1, e0, 0, NULL);
    append_add(&f, l, y, 2, e1, 1, &e0);
    ZT_OK(zeCommandListAppendMemoryCopy(l, y, x, N * sizeof(int), e2, 1, &e1)); /* y = x */
    ZT_OK(zeCommandListClose(l));
    for (int i = 1; i <= 8; i++) {
        ZT_OK(zeEventHostReset(e2));
        ZT_OK(zeCommandQueueExecuteCommandLists(f.q, 1, &l, NULL));
        ZT_OK(zeEventHostSynchronize(e2, ZT_TIMEOUT_NS));
        ZT_OK(zeEventQueryStatus(e0));
        ZT_OK(zeEventQueryStatus(e1));
        expect_all(x, i);
        expect_all(y, i);
    }
    ZT_OK(zeCommandQueueSynchronize(f.q, ZT_TIMEOUT_NS));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeEventDestroy(e0));
    ZT_OK(zeEventDestroy(e1));
    ZT_OK(zeEventDestroy(e2));
    ZT_OK(zeEventPoolDestroy(pool));
    teardown(&f);
}

/* A list that waits on an event the host signals: nothing of it runs before the signal, every time. */
Test(ze_replay, list_waits_on_host_event_each_execution)
{
    fixture f;
    setup(&f);
    int *x = zt_alloc_shared(&f.env, N * sizeof(int));
    memset(x, 0, N * sizeof(int));
    ze_event_pool_handle_t pool = zt_event_pool_create(&f.env, 2, false);
    ze_event_handle_t gate = zt_event_create(pool, 0), done = zt_event_create(pool, 1);
    ze_command_list_handle_t l = zt_list_create(&f.env);
    append_add(&f, l, x, 5, done, 1, &gate);
    ZT_OK(zeCommandListClose(l));
    for (int i = 1; i <= 3; i++) {
        ZT_OK(zeCommandQueueExecuteCommandLists(f.q, 1, &l, NULL));
        ZT_EXPECT(zeEventHostSynchronize(done, 20 * 1000 * 1000), ZE_RESULT_NOT_READY);
        expect_all(x, 5 * (i - 1));
        ZT_OK(zeEventHostSignal(gate));
        ZT_OK(zeEventHostSynchronize(done, ZT_TIMEOUT_NS));
        expect_all(x, 5 * i);
        ZT_OK(zeEventHostReset(gate));
        ZT_OK(zeEventHostReset(done));
    }
    ZT_OK(zeCommandQueueSynchronize(f.q, ZT_TIMEOUT_NS));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeEventDestroy(gate));
    ZT_OK(zeEventDestroy(done));
    ZT_OK(zeEventPoolDestroy(pool));
    teardown(&f);
}

/* Three lists in one call run in the order given: x += 10, then y = x, then x += 1; executed four times, with a
 * fence each time. */
Test(ze_replay, several_lists_at_once)
{
    fixture f;
    setup(&f);
    int *x = zt_alloc_shared(&f.env, N * sizeof(int));
    int *y = zt_alloc_shared(&f.env, N * sizeof(int));
    memset(x, 0, N * sizeof(int));
    memset(y, 0, N * sizeof(int));
    ze_command_list_handle_t l[3];
    for (int i = 0; i < 3; i++)
        l[i] = zt_list_create(&f.env);
    append_add(&f, l[0], x, 10, NULL, 0, NULL);
    ZT_OK(zeCommandListAppendBarrier(l[1], NULL, 0, NULL));
    ZT_OK(zeCommandListAppendMemoryCopy(l[1], y, x, N * sizeof(int), NULL, 0, NULL));
    ZT_OK(zeCommandListAppendBarrier(l[2], NULL, 0, NULL));
    append_add(&f, l[2], x, 1, NULL, 0, NULL);
    for (int i = 0; i < 3; i++)
        ZT_OK(zeCommandListClose(l[i]));
    ze_fence_desc_t fd = { .stype = ZE_STRUCTURE_TYPE_FENCE_DESC };
    ze_fence_handle_t fence;
    ZT_OK(zeFenceCreate(f.q, &fd, &fence));
    for (int i = 1; i <= 4; i++) {
        ZT_OK(zeFenceReset(fence));
        ZT_OK(zeCommandQueueExecuteCommandLists(f.q, 3, l, fence));
        ZT_OK(zeFenceHostSynchronize(fence, ZT_TIMEOUT_NS));
        expect_all(x, 11 * i);
        expect_all(y, 11 * i - 1);
    }
    ZT_OK(zeFenceDestroy(fence));
    for (int i = 0; i < 3; i++)
        ZT_OK(zeCommandListDestroy(l[i]));
    teardown(&f);
}

/* One list executed on two queues, one after the other through an event, and a list reset and reused. */
Test(ze_replay, two_queues_and_reset)
{
    fixture f;
    setup(&f);
    int *x = zt_alloc_shared(&f.env, N * sizeof(int));
    memset(x, 0, N * sizeof(int));
    ze_command_queue_handle_t q2 = zt_queue_create(&f.env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    ze_command_list_handle_t l = zt_list_create(&f.env);
    append_add(&f, l, x, 2, NULL, 0, NULL);
    ZT_OK(zeCommandListClose(l));
    ZT_OK(zeCommandQueueExecuteCommandLists(f.q, 1, &l, NULL));
    ZT_OK(zeCommandQueueSynchronize(f.q, ZT_TIMEOUT_NS));
    ZT_OK(zeCommandQueueExecuteCommandLists(q2, 1, &l, NULL));
    ZT_OK(zeCommandQueueSynchronize(q2, ZT_TIMEOUT_NS));
    expect_all(x, 4);
    /* Appending to a closed list is refused; a reset list records afresh. */
    int k = 1;
    uint32_t n = N;
    zt_set_args(f.add, 3, sizeof x, &x, sizeof k, &k, sizeof n, &n);
    ze_group_count_t gc = { N / GROUP, 1, 1 };
    ze_result_t r = zeCommandListAppendLaunchKernel(l, f.add, &gc, NULL, 0, NULL);
    cr_assert_neq(r, ZE_RESULT_SUCCESS, "an append to a closed list was accepted");
    ZT_OK(zeCommandListReset(l));
    append_add(&f, l, x, 100, NULL, 0, NULL);
    /* An open list cannot be executed. */
    cr_assert_neq(zeCommandQueueExecuteCommandLists(f.q, 1, &l, NULL), ZE_RESULT_SUCCESS);
    ZT_OK(zeCommandListClose(l));
    ZT_OK(zeCommandQueueExecuteCommandLists(q2, 1, &l, NULL));
    ZT_OK(zeCommandQueueSynchronize(q2, ZT_TIMEOUT_NS));
    expect_all(x, 104);
    /* An immediate list is not executed on a queue. */
    ze_command_list_handle_t imm = zt_immediate_create(&f.env, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
    cr_assert_neq(zeCommandQueueExecuteCommandLists(f.q, 1, &imm, NULL), ZE_RESULT_SUCCESS);
    ZT_OK(zeCommandListDestroy(imm));
    ZT_OK(zeCommandListDestroy(l));
    ZT_OK(zeCommandQueueDestroy(q2));
    teardown(&f);
}
