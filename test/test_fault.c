/* Faults without losing the process (issue 39), in libkrt: the wait that sees a device fault returns
 * KRT_ERROR_DEVICE_LOST with a message naming the device and the kernels in flight on the queue; every later call on
 * the context returns the same code with the same message; destroying the context works; once every context on the
 * device is gone a new one works and computes right. The fault is the drivers' test knob KRT_ZE_FAULT=krt_wild_write
 * (driver/fault.c): the kernel runs in bounds (offset 0) and its device is lost at its completion, as a kernel that
 * writes out of bounds loses a GPU (test_cuda.c has the real one); a wild write on a CPU device ends the process
 * (docs/design.md, "Robustness"). Runs on ze_pocl and, in make test's second pass, on the host device. Each test sets
 * the knob before its first kernel (Criterion runs every test in a process of its own). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <level_zero/ze_api.h>

#include "krt_test.h"

#define N 1000u

static void knob(void)
{
    setenv("KRT_ZE_FAULT", "krt_wild_write", 1);
}

/* The fault: krt_wild_write over N items of x, offset 0, on q (NULL: the default queue), signalling ev. */
static krt_result wild(krt_module *m, float *x, krt_queue *q, krt_event *ev, int sync)
{
    krt_kernel *k = kt_kernel(m, "krt_wild_write");
    uint64_t off = 0;
    krt_arg args[] = { KRT_ARG(x), KRT_ARG(off) };
    krt_launch_desc d = kt_desc1(N, args, 2);
    d.queue = q;
    d.signal = ev;
    return sync ? krt_launch_sync(k, &d) : krt_launch(k, &d);
}

/* krt_after over N items into out (device memory), on q. */
static krt_result after(krt_module *m, uint32_t *out, krt_queue *q)
{
    krt_kernel *k = kt_kernel(m, "krt_after");
    uint32_t n = N, base = 5;
    krt_arg args[] = { KRT_ARG(out), KRT_ARG(n), KRT_ARG(base) };
    krt_launch_desc d = kt_desc1(N, args, 3);
    d.queue = q;
    return krt_launch(k, &d);
}

/* A context works and computes right: krt_after on a fresh module, every value checked, and krt's own check. */
static void expect_works(krt_context *ctx)
{
    krt_module *m = kt_module(ctx, "krt_fault");
    uint32_t *out = kt_alloc(ctx, N * sizeof *out, KRT_MEMORY_DEVICE);
    KT_OK(after(m, out, NULL));
    uint32_t host[N];
    kt_copy_sync(ctx, host, out, sizeof host);
    for (uint32_t i = 0; i < N; i++)
        cr_assert_eq(host[i], 3 * i + 5, "out[%u] = %u, expected %u", i, host[i], 3 * i + 5);
    KT_OK(krt_free(ctx, out));
    krt_module_destroy(m);
    kt_assert_usable(ctx);
}

/* The message of the loss names the device and the kernels in flight; returns a copy. */
static char *expect_lost_message(krt_context *ctx, const char *kernels)
{
    krt_device_info info;
    KT_OK(krt_context_device_info(ctx, &info));
    const char *msg = krt_last_error_message();
    cr_assert(strstr(msg, "the device was lost"), "message: %s", msg);
    cr_assert(strstr(msg, info.name), "the message does not name the device %s: %s", info.name, msg);
    cr_assert(strstr(msg, kernels), "the message does not say \"%s\": %s", kernels, msg);
    char *copy = strdup(msg);
    cr_assert(copy);
    return copy;
}

/* The call fails with the context's loss, word for word. */
#define EXPECT_SAME_LOSS(call, first)                                                                            \
    do {                                                                                                          \
        KT_EXPECT(call, KRT_ERROR_DEVICE_LOST);                                                                   \
        cr_assert_str_eq(krt_last_error_message(), first, "%s said another thing", #call);                       \
    } while (0)

static void noop_task(void *data)
{
    atomic_fetch_add((atomic_int *)data, 1);
}

/* Holds its queue until *data is set. */
static void hold(void *data)
{
    while (!atomic_load((atomic_int *)data)) {
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
}

Test(fault, the_wait_reports_it_naming_the_device_and_the_kernel, .timeout = KT_TEST_TIMEOUT)
{
    knob();
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_fault");
    float *x = kt_alloc(ctx, N * sizeof *x, KRT_MEMORY_DEVICE);
    /* A completed wait takes what it covered out of the record: only the faulting launch is in flight. */
    uint32_t *out = kt_alloc(ctx, N * sizeof *out, KRT_MEMORY_DEVICE);
    KT_OK(after(m, out, NULL));
    KT_OK(krt_queue_synchronize(krt_context_default_queue(ctx)));
    KT_EXPECT(wild(m, x, NULL, NULL, 1), KRT_ERROR_DEVICE_LOST);
    free(expect_lost_message(ctx, "kernels in flight on the queue: krt_wild_write (1 launch since its last "
                                  "completed wait)"));
    krt_context_destroy(ctx);
}

Test(fault, every_later_call_says_the_same_and_a_new_context_works, .timeout = KT_TEST_TIMEOUT)
{
    knob();
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_fault");
    float *x = kt_alloc(ctx, N * sizeof *x, KRT_MEMORY_DEVICE);
    uint32_t *out = kt_alloc(ctx, N * sizeof *out, KRT_MEMORY_DEVICE);
    krt_queue *q2;
    KT_OK(krt_queue_create(ctx, NULL, &q2));
    krt_event *ev;
    KT_OK(krt_event_create(ctx, NULL, &ev));
    /* The fault, then one more kernel behind it, appended while a host task holds the queue (else the device could be
     * lost before the second append); a wait reports both in flight. */
    atomic_int go = 0;
    KT_OK(krt_host_task(ctx, &(krt_host_task_desc){ .fn = hold, .data = &go }));
    KT_OK(wild(m, x, NULL, NULL, 0));
    KT_OK(after(m, out, NULL));
    atomic_store(&go, 1);
    KT_EXPECT(krt_context_synchronize(ctx), KRT_ERROR_DEVICE_LOST);
    char *first = expect_lost_message(ctx, "krt_wild_write, krt_after (2 launches since its last completed wait)");

    void *p = NULL;
    EXPECT_SAME_LOSS(krt_alloc(ctx, 64, NULL, &p), first);
    krt_alloc_desc shared = { .kind = KRT_MEMORY_SHARED };
    EXPECT_SAME_LOSS(krt_alloc(ctx, 64, &shared, &p), first);
    EXPECT_SAME_LOSS(after(m, out, NULL), first);
    EXPECT_SAME_LOSS(after(m, out, q2), first);
    EXPECT_SAME_LOSS(wild(m, x, NULL, NULL, 1), first);
    uint32_t host[4] = { 0 };
    EXPECT_SAME_LOSS(krt_memcpy(ctx, NULL, out, host, sizeof host), first);
    EXPECT_SAME_LOSS(krt_memcpy_sync(ctx, q2, host, out, sizeof host), first);
    uint32_t pattern = 7;
    EXPECT_SAME_LOSS(krt_memfill(ctx, NULL, out, &pattern, sizeof pattern, 64), first);
    EXPECT_SAME_LOSS(krt_queue_synchronize(krt_context_default_queue(ctx)), first);
    EXPECT_SAME_LOSS(krt_queue_synchronize(q2), first);
    EXPECT_SAME_LOSS(krt_queue_synchronize_timeout(q2, 1000000), first);
    EXPECT_SAME_LOSS(krt_context_synchronize(ctx), first);
    EXPECT_SAME_LOSS(krt_queue_barrier(q2, NULL), first);
    EXPECT_SAME_LOSS(krt_event_synchronize(ev, 0), first);
    EXPECT_SAME_LOSS(krt_event_query(ev), first);
    krt_event *ev2 = NULL;
    EXPECT_SAME_LOSS(krt_event_create(ctx, NULL, &ev2), first);
    krt_queue *q3 = NULL;
    EXPECT_SAME_LOSS(krt_queue_create(ctx, NULL, &q3), first);
    krt_module *m2 = NULL;
    EXPECT_SAME_LOSS(krt_module_create(ctx, &(krt_module_desc){ .path = kt_kernel_path("krt_fault") }, &m2), first);
    atomic_int ran = 0;
    EXPECT_SAME_LOSS(krt_host_task(ctx, &(krt_host_task_desc){ .fn = noop_task, .data = &ran }), first);
    EXPECT_SAME_LOSS(krt_recording_begin(q2, NULL), first);
    cr_assert_eq(atomic_load(&ran), 0);
    /* Releasing and describing still work: a kernel's handle is host state. */
    krt_kernel *k = NULL;
    KT_OK(krt_kernel_get(m, "krt_after", &k));
    KT_OK(krt_free(ctx, out));
    krt_device_info info;
    KT_OK(krt_context_device_info(ctx, &info));
    krt_event_destroy(ev);
    krt_queue_destroy(q2);
    krt_module_destroy(m);
    krt_context_destroy(ctx);

    /* Every context on the device is gone: a new one works and computes right. */
    ctx = kt_context(NULL);
    expect_works(ctx);
    krt_context_destroy(ctx);
    free(first);
}

/* A wait on an event of the faulting launch is the first to see it: the message lists what every queue has in
 * flight. */
Test(fault, an_event_wait_reports_it, .timeout = KT_TEST_TIMEOUT)
{
    knob();
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_fault");
    float *x = kt_alloc(ctx, N * sizeof *x, KRT_MEMORY_DEVICE);
    krt_event *ev;
    KT_OK(krt_event_create(ctx, NULL, &ev));
    KT_OK(wild(m, x, NULL, ev, 0));
    KT_EXPECT(krt_event_synchronize(ev, UINT64_MAX), KRT_ERROR_DEVICE_LOST);
    char *first = expect_lost_message(ctx, "the default queue: krt_wild_write (1 launch");
    EXPECT_SAME_LOSS(krt_event_query(ev), first);
    krt_event_destroy(ev);
    krt_context_destroy(ctx);
    ctx = kt_context(NULL);
    expect_works(ctx);
    krt_context_destroy(ctx);
    free(first);
}

/* Recovery waits for every context on the device: while another one lives, the device stays lost (its calls say
 * so too), and a new context is refused saying why; once it is destroyed too, a new context works. */
Test(fault, another_context_on_the_device_keeps_it_lost_until_destroyed, .timeout = KT_TEST_TIMEOUT)
{
    knob();
    krt_context *a = kt_context(NULL), *b = kt_context(NULL);
    krt_module *m = kt_module(a, "krt_fault");
    float *x = kt_alloc(a, N * sizeof *x, KRT_MEMORY_DEVICE);
    KT_EXPECT(wild(m, x, NULL, NULL, 1), KRT_ERROR_DEVICE_LOST);
    /* b's next wait sees its device lost. */
    KT_EXPECT(krt_context_synchronize(b), KRT_ERROR_DEVICE_LOST);
    char *msg_b = expect_lost_message(b, "kernels in flight on the queue: none");
    void *p;
    EXPECT_SAME_LOSS(krt_alloc(b, 64, NULL, &p), msg_b);
    krt_context_destroy(a);
    krt_context *c = NULL;
    KT_EXPECT(krt_context_create(NULL, &c), KRT_ERROR_DEVICE_LOST);
    cr_assert(strstr(krt_last_error_message(), "destroy every context on the device"), "message: %s",
              krt_last_error_message());
    krt_context_destroy(b);
    c = kt_context(NULL);
    expect_works(c);
    krt_context_destroy(c);
    free(msg_b);
}

/* A driver that cannot recover the device (ze_cuda when CUDA keeps the fault for the life of the process; here the test
 * knob KRT_ZE_FAULT_UNRECOVERABLE) keeps it lost after its last context is destroyed, and the refusal of the next
 * context says why, in the driver's words (zeKrtDriverStatus). The in-process host driver has no such status: its
 * refusal is the general one. */
Test(fault, a_device_the_driver_cannot_recover_says_why, .timeout = KT_TEST_TIMEOUT)
{
    knob();
    setenv("KRT_ZE_FAULT_UNRECOVERABLE", "1", 1);
    krt_context *a = kt_context(NULL);
    krt_device_info info;
    KT_OK(krt_context_device_info(a, &info));
    krt_module *m = kt_module(a, "krt_fault");
    float *x = kt_alloc(a, N * sizeof *x, KRT_MEMORY_DEVICE);
    KT_EXPECT(wild(m, x, NULL, NULL, 1), KRT_ERROR_DEVICE_LOST);
    krt_context_destroy(a);
    krt_context *c = NULL;
    KT_EXPECT(krt_context_create(NULL, &c), KRT_ERROR_DEVICE_LOST);
    const char *msg = krt_last_error_message();
    if (strcmp(info.driver_name, "host") == 0)
        cr_assert(strstr(msg, "destroy every context on the device"), "message: %s", msg);
    else
        cr_assert(strstr(msg, "could not recover it") && strstr(msg, "KRT_ZE_FAULT_UNRECOVERABLE") &&
                      strstr(msg, info.name),
                  "message: %s", msg);
    /* Without the knob the next context recovers it. */
    unsetenv("KRT_ZE_FAULT_UNRECOVERABLE");
    c = kt_context(NULL);
    expect_works(c);
    krt_context_destroy(c);
}

/* A fault in the first kernel of a recorded replay: the replay's wait reports it naming the recording's kernels, and
 * the context recovers as any other. */
Test(fault, a_fault_in_the_first_kernel_of_a_replay, .timeout = KT_TEST_TIMEOUT)
{
    knob();
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_fault");
    float *x = kt_alloc(ctx, N * sizeof *x, KRT_MEMORY_DEVICE);
    uint32_t *out = kt_alloc(ctx, N * sizeof *out, KRT_MEMORY_DEVICE);
    krt_queue *q = krt_context_default_queue(ctx);
    KT_OK(krt_recording_begin(q, NULL));
    KT_OK(wild(m, x, NULL, NULL, 0));
    KT_OK(after(m, out, NULL));
    krt_recording *rec;
    KT_OK(krt_recording_end(q, &rec));
    /* Recorded, not run: nothing is lost yet. */
    KT_OK(krt_queue_synchronize(q));
    krt_event *done;
    KT_OK(krt_event_create(ctx, NULL, &done));
    /* The queue is held while the replay is appended: else its kernels may run, and lose the device, before the
     * replay's last append, which would then report the loss itself. */
    atomic_int go = 0;
    KT_OK(krt_host_task(ctx, &(krt_host_task_desc){ .fn = hold, .data = &go }));
    KT_OK(krt_replay(rec, &(krt_replay_desc){ .signal = done }));
    atomic_store(&go, 1);
    KT_EXPECT(krt_queue_synchronize(q), KRT_ERROR_DEVICE_LOST);
    char *first = expect_lost_message(ctx, "krt_wild_write, krt_after (2 launches since its last completed wait)");
    EXPECT_SAME_LOSS(krt_replay(rec, &(krt_replay_desc){ 0 }), first);
    EXPECT_SAME_LOSS(krt_event_synchronize(done, UINT64_MAX), first);
    krt_recording_destroy(rec);
    krt_event_destroy(done);
    krt_context_destroy(ctx);
    ctx = kt_context(NULL);
    expect_works(ctx);
    krt_context_destroy(ctx);
    free(first);
}

/* A fault just before a host task on the same queue: the task does not run on what the lost device left, its signal
 * event's wait reports the loss, nothing hangs, and the context recovers. */
Test(fault, a_fault_beside_a_host_task, .timeout = KT_TEST_TIMEOUT)
{
    knob();
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_fault");
    float *x = kt_alloc(ctx, N * sizeof *x, KRT_MEMORY_DEVICE);
    uint32_t *out = kt_alloc(ctx, N * sizeof *out, KRT_MEMORY_DEVICE);
    krt_event *task_done;
    KT_OK(krt_event_create(ctx, NULL, &task_done));
    atomic_int ran = 0, go = 0;
    /* The queue is held until everything is appended, so that the fault happens after the appends, not before. */
    KT_OK(krt_host_task(ctx, &(krt_host_task_desc){ .fn = hold, .data = &go }));
    KT_OK(wild(m, x, NULL, NULL, 0));
    KT_OK(krt_host_task(ctx, &(krt_host_task_desc){ .fn = noop_task, .data = &ran, .signal = task_done }));
    KT_OK(after(m, out, NULL));
    atomic_store(&go, 1);
    KT_EXPECT(krt_event_synchronize(task_done, UINT64_MAX), KRT_ERROR_DEVICE_LOST);
    char *first = expect_lost_message(ctx, "krt_wild_write");
    EXPECT_SAME_LOSS(krt_queue_synchronize(krt_context_default_queue(ctx)), first);
    cr_assert_eq(atomic_load(&ran), 0, "the host task ran after its queue's device was lost");
    krt_event_destroy(task_done);
    krt_context_destroy(ctx);
    ctx = kt_context(NULL);
    expect_works(ctx);
    krt_context_destroy(ctx);
    free(first);
}

/* Two devices (ze_pocl's POCL_DEVICES="pthread pthread"): a fault on one loses only its contexts; the other device
 * keeps working meanwhile, and the first recovers once its context is destroyed. */
Test(fault, a_fault_on_one_of_two_devices, .timeout = KT_TEST_TIMEOUT)
{
    kt_skip_on_host("the host device is one device");
    setenv("POCL_DEVICES", "pthread pthread", 1);
    unsetenv("KRT_DEVICE");
    knob();
    krt_context *zero = kt_context(&(krt_context_desc){ .device = "cpu:0" });
    krt_context *one = kt_context(&(krt_context_desc){ .device = "cpu:1" });
    krt_device_info i0, i1;
    KT_OK(krt_context_device_info(zero, &i0));
    KT_OK(krt_context_device_info(one, &i1));
    cr_assert_eq(i1.device_index, 1);
    krt_module *m = kt_module(one, "krt_fault");
    float *x = kt_alloc(one, N * sizeof *x, KRT_MEMORY_DEVICE);
    KT_EXPECT(wild(m, x, NULL, NULL, 1), KRT_ERROR_DEVICE_LOST);
    char *first = expect_lost_message(one, "krt_wild_write");
    cr_assert(strstr(first, "device 1 of the driver"), "message: %s", first);
    expect_works(zero);
    void *p;
    EXPECT_SAME_LOSS(krt_alloc(one, 64, NULL, &p), first);
    krt_context_destroy(one);
    one = kt_context(&(krt_context_desc){ .device = "cpu:1" });
    expect_works(one);
    expect_works(zero);
    krt_context_destroy(one);
    krt_context_destroy(zero);
    free(first);
}

/* The debugging knobs (docs/driver.md, "Debugging"): under KRT_ZE_SYNC the append of the faulting kernel reports the
 * loss itself (the launch's own call, not a later wait), and KRT_ZE_TRACE has one line per launch, in order, naming
 * each kernel with its group count and size and its result, the last line the faulting one. */
Test(fault, the_debugging_knobs_report_the_fault_at_its_launch_and_trace_each_launch, .timeout = KT_TEST_TIMEOUT)
{
    knob();
    char path[] = "/tmp/krt-trace-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    setenv("KRT_ZE_TRACE", path, 1);
    setenv("KRT_ZE_SYNC", "1", 1);
    krt_context *ctx = kt_context(NULL);
    krt_module *m = kt_module(ctx, "krt_fault");
    float *x = kt_alloc(ctx, N * sizeof *x, KRT_MEMORY_DEVICE);
    uint32_t *out = kt_alloc(ctx, N * sizeof *out, KRT_MEMORY_DEVICE);
    KT_OK(after(m, out, NULL));
    /* krt_launch, not krt_launch_sync: no wait of krt's own follows, the append alone sees the loss. */
    KT_EXPECT(wild(m, x, NULL, NULL, 0), KRT_ERROR_DEVICE_LOST);
    krt_context_destroy(ctx);
    unsetenv("KRT_ZE_SYNC");
    unsetenv("KRT_ZE_TRACE");

    FILE *f = fopen(path, "r");
    cr_assert(f);
    char line[2][512] = { "", "" };
    int lines = 0;
    char buf[512];
    while (fgets(buf, sizeof buf, f)) {
        if (lines < 2) snprintf(line[lines], sizeof line[lines], "%s", buf);
        lines++;
    }
    fclose(f);
    unlink(path);
    cr_assert_eq(lines, 2, "%d lines in the trace, expected 2: %s%s", lines, line[0], line[1]);
    const char *first = "launch krt_after device ", *second = "launch krt_wild_write device ";
    cr_assert(strncmp(line[0], first, strlen(first)) == 0, "first line: %s", line[0]);
    cr_assert(strstr(line[0], "range 1000,1,1 immediate: 0x0 "), "first line: %s", line[0]);
    cr_assert(strncmp(line[1], second, strlen(second)) == 0, "second line: %s", line[1]);
    char want[64];
    snprintf(want, sizeof want, "immediate: 0x%x ", (unsigned)ZE_RESULT_ERROR_DEVICE_LOST);
    cr_assert(strstr(line[1], want), "the faulting launch's line does not say %s: %s", want, line[1]);
}
